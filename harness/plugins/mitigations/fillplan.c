/* harness/plugins/mitigations/fillplan.c: the filler's plan for a gap between compute phases (fillplan.h). */
#include "fillplan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct fill_curve fill_curve_of(const double *w, double compute_w)
{
    struct fill_curve c = { .compute_w = compute_w };
    memcpy(c.w, w, sizeof c.w);
    return c;
}

/* The step each point of the curve must rise by: FILL_RISE_MIN of (compute - idle), 0 without a span. */
static double fill_curve_step(const struct fill_curve *c)
{
    double span = c->compute_w - c->w[0];
    return FILL_RISE_MIN * (span > 0 ? span : 0);
}

int fill_curve_top_index(const struct fill_curve *c)
{
    double step = fill_curve_step(c);
    int k = 0;
    while (k < FILL_DUTIES && c->w[k + 1] >= c->w[k] + step)
        k++;
    return k;
}

int fill_curve_check(const struct fill_curve *c, char *why, size_t n)
{
    double span = c->compute_w - c->w[0];
    for (int i = 0; i <= FILL_DUTIES; i++)
        if (!isfinite(c->w[i])) {
            snprintf(why, n, "the filler's power at %d %% duty was not measured (no power readings)", 100 * i / FILL_DUTIES);
            return -1;
        }
    if (!isfinite(c->compute_w) || !(span > 0)) {
        snprintf(why, n, "the compute phase (%.0f W) draws no more than idle (%.0f W): nothing to fill", c->compute_w,
                 c->w[0]);
        return -1;
    }
    if (fill_curve_top_index(c) < 1) {
        char levels[160];
        fill_curve_levels(c, levels, sizeof levels);
        snprintf(why, n, "the filler's power does not rise with its duty (%s; compute %.0f W): it cannot hold a level",
                 levels, c->compute_w);
        return -1;
    }
    return 0;
}

void fill_curve_levels(const struct fill_curve *c, char *out, size_t n)
{
    int at = 0;
    out[0] = 0;
    for (int j = 0; j <= FILL_DUTIES && at >= 0 && (size_t)at < n; j++)
        at += snprintf(out + at, n - (size_t)at, "%s%d %% %.0f W", j ? ", " : "", 100 * j / FILL_DUTIES, c->w[j]);
}

double fill_curve_duty(const struct fill_curve *c, double watts)
{
    int k = fill_curve_top_index(c);
    if (!(watts > c->w[0]))
        return 0;
    for (int i = 1; i <= k; i++)
        if (watts <= c->w[i])
            return (i - 1 + (watts - c->w[i - 1]) / (c->w[i] - c->w[i - 1])) / FILL_DUTIES;
    return (double)k / FILL_DUTIES;
}

double fill_curve_top(const struct fill_curve *c) { return c->w[fill_curve_top_index(c)]; }

double fill_curve_reach(const struct fill_curve *c)
{
    int k = fill_curve_top_index(c);
    return k >= 1 ? c->w[k] + (c->w[k] - c->w[k - 1]) * (FILL_DUTIES - k) : c->w[0];
}

double fill_curve_duty_boost(const struct fill_curve *c, double watts)
{
    int k = fill_curve_top_index(c);
    if (k < 1 || k == FILL_DUTIES || !(watts > c->w[k]))
        return fill_curve_duty(c, watts);
    double d = (k + (watts - c->w[k]) / (c->w[k] - c->w[k - 1])) / FILL_DUTIES;
    return d < 1 ? d : 1;
}

/* Sets the fall's and the climb's durations from the plan's levels and rates. */
static void fill_plan_times(struct fill_plan *p)
{
    double step = p->high_w > p->low_w ? p->high_w - p->low_w : 0;
    p->down_s = p->down_w_s > 0 ? step / p->down_w_s : 0;
    p->up_s = p->up_w_s > 0 ? step / p->up_w_s : 0;
}

void fill_plan_make(struct fill_plan *p, double floor_asked_w, double down_w_s, double up_w_s, double idle_w,
                    double compute_w, double top_w, double gap_s)
{
    memset(p, 0, sizeof *p);
    p->asked_w = floor_asked_w > 0 ? floor_asked_w : 0;
    p->top_w = isfinite(top_w) && top_w > idle_w ? top_w : idle_w;
    p->high_w = compute_w < p->top_w ? compute_w : p->top_w;
    p->down_w_s = down_w_s > 0 ? down_w_s : 0;
    p->up_w_s = up_w_s > 0 ? up_w_s : 0;
    p->unreachable = p->asked_w > p->top_w + 0.5;
    p->clipped = p->asked_w > p->high_w + 0.5;   /* until 2026-11-30 a floor above compute was held there unsaid */
    p->floor_w = p->asked_w > 0 ? fmin(p->asked_w, p->high_w) : 0;   /* never above the compute level either */
    p->low_w = p->floor_w > 0 ? p->floor_w : fmin(idle_w, p->high_w);
    fill_plan_times(p);
    p->rise_at_s = -1;
    if (!(p->down_w_s > 0 || p->up_w_s > 0))
        return;
    if (!(isfinite(gap_s) && gap_s > 0)) {
        if (p->up_w_s > 0 && p->high_w > p->low_w) {   /* the next compute may begin at any time: do not fall */
            p->low_w = p->floor_w = p->high_w;
            p->raised = 1;
            fill_plan_times(p);
        }
        return;
    }
    if (p->down_s + p->up_s > gap_s) {   /* the fall and the climb do not fit: raise the level they turn at */
        double k = (p->down_w_s > 0 ? 1 / p->down_w_s : 0) + (p->up_w_s > 0 ? 1 / p->up_w_s : 0);
        double low = p->high_w - gap_s / k;
        if (low > p->low_w) {
            p->low_w = p->floor_w = low;
            p->raised = 1;
            fill_plan_times(p);
        }
    }
    if (p->up_w_s > 0)
        p->rise_at_s = gap_s - p->up_s > 0 ? gap_s - p->up_s : 0;
}

int fill_plan_active(const struct fill_plan *p) { return p->floor_w > 0 || p->down_w_s > 0 || p->up_w_s > 0; }

int fill_plan_floor_why(const struct fill_plan *p, char *why, size_t n)
{
    if (!p->clipped)
        return 0;
    if (p->high_w < p->top_w)   /* the compute level binds before the filler's top */
        snprintf(why, n, "floor %.0f W unreachable: compute draws %.0f W", p->asked_w, p->high_w);
    else
        snprintf(why, n, "floor %.0f W unreachable: the filler reaches %.0f W", p->asked_w, p->top_w);
    return 1;
}

double fill_plan_watts(const struct fill_plan *p, double t)
{
    if (!fill_plan_active(p))
        return 0;
    double v = p->floor_w > 0 ? p->floor_w : p->low_w;   /* without a floor: idle once the fall is over (duty 0) */
    if (p->down_w_s > 0 && t < p->down_s)
        v = fmax(v, p->high_w - p->down_w_s * (t > 0 ? t : 0));
    if (p->rise_at_s >= 0 && t >= p->rise_at_s)
        v = fmax(v, fmin(p->high_w, p->low_w + p->up_w_s * (t - p->rise_at_s)));
    return v;
}

void fill_history_add(struct fill_history *h, double gap_s)
{
    if (!(isfinite(gap_s) && gap_s > 0))
        return;
    h->gap_s[h->next] = gap_s;
    h->next = (h->next + 1) % FILL_HISTORY;
    if (h->n < FILL_HISTORY)
        h->n++;
}

double fill_history_expect(const struct fill_history *h)
{
    double v[FILL_HISTORY];
    int n = h->n;
    if (n < 1)
        return NAN;
    memcpy(v, h->gap_s, sizeof v);
    for (int i = 1; i < n; i++)   /* insertion sort of at most FILL_HISTORY values */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int fill_corr_add(struct fill_corr *c, double de, double dt, double target_w)
{
    if (!(isfinite(de) && isfinite(dt) && dt > 0 && isfinite(target_w)))
        return 0;
    c->sum_j += de;
    c->sum_s += dt;
    c->sum_target_js += target_w * dt;
    if (c->sum_s < FILL_CORR_S)
        return 0;
    double drawn = c->sum_j / c->sum_s, asked = c->sum_target_js / c->sum_s, span = c->span_w > 0 ? c->span_w : 0;
    double lo = -span, hi = span;
    if (c->hi_w > c->lo_w) {   /* asked + offset within the curve: further would not move the duty */
        lo = fmax(lo, c->lo_w - asked);
        hi = fmin(hi, c->hi_w - asked);
    }
    c->offset_w = fmax(lo, fmin(fmax(lo, hi), c->offset_w + FILL_CORR_GAIN * (asked - drawn)));
    c->sum_j = c->sum_s = c->sum_target_js = 0;
    c->moves++;
    return 1;
}

double fill_learn_boost(const struct fill_learn *l, double t)
{
    if (!(t >= 0))
        return 0;
    double j = floor(t / FILL_LEARN_BIN_S);
    return j < FILL_LEARN_BINS ? l->boost_w[(int)j] : 0;
}

/* The samples' window: the median of their spacing (the driver's sample period), 20 ms without two; within
 * [0.1 ms, 100 ms]. */
static double fill_learn_window(const struct fill_sample *s, int n)
{
    double d[64];
    int m = 0;
    for (int i = 1; i < n && m < 64; i++)
        if (s[i].t_s > s[i - 1].t_s)
            d[m++] = s[i].t_s - s[i - 1].t_s;
    if (!m)
        return FILL_LEARN_BIN_S;
    for (int i = 1; i < m; i++)   /* insertion sort of at most 64 values */
        for (int j = i; j > 0 && d[j - 1] > d[j]; j--) {
            double x = d[j];
            d[j] = d[j - 1];
            d[j - 1] = x;
        }
    return fmax(1e-4, fmin(0.1, m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2));
}

int fill_learn_gap(struct fill_learn *l, const struct fill_plan *p, double idle_w, double gap_s,
                   const struct fill_sample *s, int n, double window_s)
{
    if (!fill_plan_active(p) || !(gap_s > 0) || n < 1)
        return 0;
    double u = window_s > 0 ? fmax(1e-4, fmin(0.1, window_s)) : fill_learn_window(s, n);
    double most = l->most_w > p->top_w ? l->most_w : p->top_w;
    double err[FILL_LEARN_BINS] = { 0 };
    int cnt[FILL_LEARN_BINS] = { 0 }, moved = 0;
    for (int i = 0; i < n; i++) {
        double a = s[i].t_s - u, b = s[i].t_s;
        if (!isfinite(b) || a < 0 || b > gap_s || !isfinite(s[i].w))
            continue;   /* a window reaching into a compute phase, or past the gap */
        double mid = (a + b) / 2, asked = 0, bin = floor(mid / FILL_LEARN_BIN_S);
        if (!(bin < FILL_LEARN_BINS))
            continue;
        int j = (int)bin;
        for (int k = 0; k <= 4; k++)   /* the plan's mean over the window */
            asked += fill_plan_watts(p, a + u * k / 4) / 5;
        if (!(asked > idle_w))
            continue;   /* no filler asked there: the gap's own power, nothing to learn */
        err[j] += asked - s[i].w;
        cnt[j]++;
    }
    for (int j = 0; j < FILL_LEARN_BINS; j++) {
        if (!cnt[j])
            continue;
        double lo = INFINITY, hi = -INFINITY, b = l->boost_w[j] + FILL_LEARN_GAIN * err[j] / cnt[j];
        for (int k = 0; k <= 4; k++) {   /* the plan's range over the bin */
            double v = fill_plan_watts(p, FILL_LEARN_BIN_S * (j + k / 4.0));
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
        /* no further than what takes the whole bin to the filler's most, or to idle: nothing to wind up */
        l->boost_w[j] = fmax(idle_w - hi, fmin(most - lo, b));
        moved++;
    }
    l->gaps++;
    l->updates += moved;
    return moved;
}

void fill_learn_describe(const struct fill_learn *l, char *out, size_t n)
{
    int at = 0, big = 0;
    for (int j = 0; j < FILL_LEARN_BINS; j++) {
        if (fabs(l->boost_w[j]) > fabs(l->boost_w[at]))
            at = j;
        big += fabs(l->boost_w[j]) > 10;
    }
    snprintf(out, n, "learned %+.0f W at %d-%d ms (%d bins over 10 W, %d gaps)", l->boost_w[at],
             (int)(1e3 * FILL_LEARN_BIN_S * at + 0.5), (int)(1e3 * FILL_LEARN_BIN_S * (at + 1) + 0.5), big, l->gaps);
}

void replay_corr_init(struct replay_corr *c, const float *tr, int n, double dt_s, double idle_w, double top_w)
{
    double lo = n > 0 ? tr[0] : 0, hi = lo;
    for (int i = 1; i < n; i++) {
        lo = fmin(lo, tr[i]);
        hi = fmax(hi, tr[i]);
    }
    memset(c, 0, sizeof *c);
    c->span_w = isfinite(top_w) && isfinite(idle_w) && top_w > idle_w ? top_w - idle_w : 0;   /* never negative */
    c->lo_w = isfinite(idle_w) ? idle_w : 0;
    c->hi_w = c->lo_w + (c->span_w > 0 ? c->span_w : 1);
    c->tol_w = fmax(5, REPLAY_STEADY_FRAC * (hi - lo));
    c->steady_n = dt_s > 0 ? (int)ceil(REPLAY_STEADY_S / dt_s) : 1;
}

/* Where level_w falls among the knots: the knot below (*j) and the share of the one above (returned). */
static double replay_knot(const struct replay_corr *c, double level_w, int *j)
{
    double x = (level_w - c->lo_w) / (c->hi_w - c->lo_w) * (REPLAY_KNOTS - 1);
    x = isfinite(x) ? fmax(0, fmin(REPLAY_KNOTS - 1, x)) : 0;
    *j = x >= REPLAY_KNOTS - 1 ? REPLAY_KNOTS - 2 : (int)x;
    return x - *j;
}

double replay_corr_at(const struct replay_corr *c, double level_w)
{
    int j;
    double f = replay_knot(c, level_w, &j);
    return (1 - f) * c->knot_w[j] + f * c->knot_w[j + 1];
}

int replay_corr_add(struct replay_corr *c, const float *tr, int n, int i, double got_w)
{
    if (!isfinite(got_w) || i < c->steady_n || i >= n)
        return 0;
    double lo = tr[i], hi = tr[i], sum = 0;
    for (int j = i - c->steady_n; j <= i; j++) {
        lo = fmin(lo, tr[j]);
        hi = fmax(hi, tr[j]);
        sum += tr[j];
    }
    if (hi - lo > c->tol_w)
        return 0;   /* an edge within the sensor's reach: its error is the sensor's delay */
    double asked = sum / (c->steady_n + 1), e = REPLAY_GAIN * (asked - got_w);
    int j;
    double f = replay_knot(c, asked, &j);
    for (int k = j; k <= j + 1; k++) {   /* each knot's level plus its correction within idle .. the top */
        double at = c->lo_w + (c->hi_w - c->lo_w) * k / (REPLAY_KNOTS - 1);
        double lo = fmax(-c->span_w, c->lo_w - at), hi = fmin(c->span_w, c->hi_w - at);
        c->knot_w[k] = fmax(lo, fmin(hi, c->knot_w[k] + (k == j ? 1 - f : f) * e));
    }
    c->moves++;
    return 1;
}
