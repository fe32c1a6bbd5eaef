/* harness/analysis/analysis_project.c: the projection of a per-GPU power trace to a cluster of many GPUs in groups
 * (analysis.h): each group the trace shifted by a random offset, the groups added, and the cluster's figures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_int.h"
#include "stats.h"
#include "util.h"

int analysis_project(const struct an_series *s, long gpus, long groups, double jitter_s, unsigned long long seed,
                     const struct an_band *bands, int n_bands, struct an_projection *out)
{
    return analysis_project_trace(s, gpus, groups, jitter_s, seed, bands, n_bands, out, NULL, NULL, NULL);
}

int analysis_project_series(const double *mw, size_t n, double dt, const struct an_band *bands, int n_bands,
                            const struct an_projection *base, struct an_projection *out)
{
    if (out != base)
        *out = *base;
    /* not held: the cluster's trace, shifted copies added, is a staircase that would read as a sensor's; of held
     * readings it is the sum of their lines already (de-held once more, its flat stretches were smeared: a 1 s ramp
     * 2.4 % under N times one GPU's), and what their sensor cannot resolve is nulled as for one GPU */
    struct an_series as = { mw, n, dt, AN_NOT_HELD, base->period_s };
    struct an_result res;
    if (!n || analysis_run(&as, bands, n_bands, &res) != 0)
        return -1;
    if (base->held)
        an_null_held(&res, base->update_s, base->period_s);
    out->unresolved = res.unresolved;
    out->band_nyq_hz = res.band_nyq_hz;
    out->peak_nyq_hz = res.peak_nyq_hz;
    out->mean_mw = res.mean_w;
    out->swing_mw = res.swing_w;
    out->range_mw = res.range_w;
    out->ramp_up_mw_s = res.ramp_up_w_s[AN_RAMP_WINDOWS - 1];
    out->ramp_down_mw_s = res.ramp_down_w_s[AN_RAMP_WINDOWS - 1];
    out->dominant_hz = res.dominant_hz;
    out->n_bands = res.n_bands;
    memcpy(out->bands, res.bands, sizeof out->bands);
    return 0;
}

/* The mean |y[a + j] - y[b + j]| over j < len, on at most 4096 of them (every step-th). */
static double an_misfit(const double *y, size_t a, size_t b, size_t len)
{
    size_t step = len / 4096 + 1, k = 0;
    double d = 0;
    for (size_t j = 0; j < len; j += step, k++)
        d += fabs(y[a + j] - y[b + j]);
    return k ? d / (double)k : INFINITY;
}

/* How well y (n points) wraps at w, with p the period in points: where a period and more follows every candidate
 * (cont), the trace after w against its start (y[w + j] against y[j]: a wrap at a whole number of periods continues
 * the trace as it goes on, whatever p's own error); else the period ending at w against the first. */
static double an_wrap_misfit(const double *y, size_t n, size_t w, size_t p, int cont)
{
    return cont ? an_misfit(y, w, 0, n - w) : an_misfit(y, w - p, 0, p);
}

/* The length w <= n over which y (n points dt apart, no gap) repeats, for a wrap-around, with P the period (period_s,
 * or the dominant frequency's where the trace holds two cycles of it) in points p: of the lengths from a period and
 * an eighth before the last period to that period's start, the one whose continuation (the trace after it, at least a
 * period long) differs least from the trace's start, on average; in a trace shorter than three periods and an eighth,
 * of the lengths within its last period, the one whose last period differs least from its first. Taken on up to 512
 * lengths, then every length around the best. 0 where no period is known or the trace does not come back to its start
 * (the best mean difference over a tenth of its range: a trend, not a repetition). Until 2026-11-30 each length was
 * judged on what overlapped the start after it, one sample at the last: a sample that matched by chance beat the
 * whole periods, and every group with a shift jumped phase at its wrap (a 1 s ramp 45 times what N GPUs can make). */
static size_t an_wrap_len(const double *y, size_t n, double period_s, double dt)
{
    double P = period_s, lo = INFINITY, hi = -INFINITY, mean = 0;
    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, y[i]);
        hi = fmax(hi, y[i]);
        mean += y[i] / (double)n;
    }
    if (!(P > 0) && n >= 4) {
        double f = NAN;
        struct an_band none[1];
        if (an_spectrum(y, 0, n, dt, mean, NULL, 0, &f, none) == 0 && f * (double)n * dt >= 2)
            P = 1 / f;
    }
    double pn = P / dt;
    if (!(pn >= 2) || !(pn < (double)n) || !(hi > lo))
        return 0;
    size_t p = (size_t)llround(pn), q = p + p / 8 + 1;
    int cont = n >= 2 * p + q;
    size_t from = cont ? n - p - q : (n - p > p ? n - p : p), to = cont ? n - p : n - 1;
    if (from > to || from < 2)
        return 0;
    size_t step = (to - from) / 512 + 1, best = 0;
    double best_d = INFINITY;
    for (size_t w = from; w <= to; w += step) {
        double d = an_wrap_misfit(y, n, w, p, cont);
        if (d < best_d) {
            best_d = d;
            best = w;
        }
    }
    size_t a = best > from + step ? best - step + 1 : from, b = best + step - 1 < to ? best + step - 1 : to;
    for (size_t w = a; step > 1 && w <= b; w++) {   /* every length around the best: a whole period may lie between */
        double d = an_wrap_misfit(y, n, w, p, cont);
        if (d < best_d) {
            best_d = d;
            best = w;
        }
    }
    return best && best_d <= 0.1 * (hi - lo) ? best : 0;
}

/* Marks out as failed for why: every figure NAN (a failed projection is no figures: zeros once passed a spec's
 * clauses). Returns -1. */
static int an_proj_fail(struct an_projection *out, const char *why)
{
    out->mean_mw = out->swing_mw = out->range_mw = out->ramp_up_mw_s = out->ramp_down_mw_s = NAN;
    out->dominant_hz = out->band_nyq_hz = out->peak_nyq_hz = NAN;
    out->n_bands = 0;
    out->why = why;
    return -1;
}

double an_project_fft_min = 2e7;

/* The groups added by FFT where (distinct shifts) x (points) passes an_project_fft_min, in (points) log (points)
 * whatever the shifts (the direct sum's cost grew with their product: 59 s for 300 s of 1 ms points and a 1 s jitter,
 * until 2026-11-30): agg[i] = sum over c of per_group count[c] y[(i + c) mod N] (N: the wrap, else the trace, where
 * i + c never passes it), the same for h, a gap wherever a group with a shift reads one. 0; 1 below the bound, or -1
 * (FFTW could not): the caller sums them directly. */
static int proj_by_fft(const double *y, const double *h, const unsigned char *gap, int any_gap, size_t N,
                       const long *count, size_t span, double per_group, size_t len, double *agg, double *aggh,
                       unsigned char *agap)
{
    size_t distinct = 0;
    for (size_t c = 0; c < span; c++)
        distinct += count[c] > 0;
    if (!((double)distinct * (double)len > an_project_fft_min))
        return 1;
    double *w = xcalloc(N, sizeof *w), *x = any_gap ? xmalloc(N * sizeof *x) : NULL, *r = xmalloc(N * sizeof *r);
    int rc = 0;
    for (size_t c = 0; c < span && c < N; c++)
        w[c] = per_group * (double)count[c];
    if ((rc = an_correlate(y, w, N, r)) == 0)
        memcpy(agg, r, len * sizeof *agg);
    if (rc == 0 && h && (rc = an_correlate(h, w, N, r)) == 0)
        memcpy(aggh, r, len * sizeof *aggh);
    if (rc == 0 && any_gap) {   /* how many groups read a gap there: one is enough */
        for (size_t c = 0; c < N; c++) {
            w[c] = c < span && count[c] > 0;
            x[c] = gap[c];
        }
        if ((rc = an_correlate(x, w, N, r)) == 0)
            for (size_t i = 0; i < len; i++)
                agap[i] = r[i] > 0.5;
    }
    free(w), free(x), free(r);
    if (rc != 0) {   /* a later step failed after an earlier one filled its part: the direct sum starts from zero */
        memset(agg, 0, len * sizeof *agg);
        if (aggh)
            memset(aggh, 0, len * sizeof *aggh);
        memset(agap, 0, len);
    }
    return rc;
}

int analysis_project_trace(const struct an_series *s, long gpus, long groups, double jitter_s, unsigned long long seed,
                           const struct an_band *bands, int n_bands, struct an_projection *out, double **trace,
                           double **held, size_t *trace_n)
{
    if (trace)
        *trace = NULL;
    if (held)
        *held = NULL;
    if (trace_n)
        *trace_n = 0;
    memset(out, 0, sizeof *out);
    out->gpus = gpus;
    out->groups = groups < 1 ? 1 : groups > gpus ? gpus : groups;
    out->jitter_s = jitter_s;
    out->period_s = s->period_s;
    size_t lo, hi;
    an_span(s->x, s->n, &lo, &hi);
    if (hi == lo || gpus < 1 || !(s->dt > 0))
        return an_proj_fail(out, hi == lo ? "the per-GPU trace has no valid reading" : "no GPUs or no grid to project");
    size_t dn = 0;   /* held readings: the cluster is built from the distinct ones */
    if (s->update_s > 0) {
        out->update_s = s->update_s;
        out->held = an_sensor_held(out->update_s, s->dt);
    } else if (s->update_s < 0) {
        out->update_s = NAN;   /* the caller knows: not held */
    } else {
        an_sensor_measure(s->x, s->n, s->dt, &out->update_s, &dn);
        struct acc a;
        acc_reset(&a);
        for (size_t i = lo; i < hi; i++)
            if (!isnan(s->x[i]))
                acc_add(&a, s->x[i]);
        out->held = an_series_held(s, lo, hi, acc_mean(&a), out->update_s);
    }
    double *src = out->held ? an_dehold(s->x + lo, hi - lo, out->update_s / s->dt) : NULL;
    if (!src) {
        src = xmalloc((hi - lo) * sizeof *src);
        memcpy(src, s->x + lo, (hi - lo) * sizeof *src);
    }
    size_t a0, b0;
    an_span(src, hi - lo, &a0, &b0);
    if (b0 - a0 < 2) {
        free(src);
        return an_proj_fail(out, "the per-GPU trace has fewer than two points to project");
    }
    size_t n = b0 - a0;
    double *y = an_filled(src, a0, b0);   /* inner gaps interpolated: the trace handed out, the spectrum */
    unsigned char *gap = xmalloc(n);      /* ... but no cluster figure from a time a group has no reading of */
    int any_gap = 0;
    for (size_t i = 0; i < n; i++)
        any_gap |= gap[i] = isnan(src[a0 + i]);
    free(src);
    /* held: the readings as the sensor shows them, each until the next, for the cluster's statistics (mean, p1, p99,
     * the range), as a node's are taken; the line through them (y) visits a reading only at its time, so its p1 and
     * p99 move inward: a 21 ms gap read every 20 ms projected a swing 9 % under N times the node's per GPU */
    double *h = NULL;
    if (out->held) {
        h = xmalloc(n * sizeof *h);
        for (size_t i = 0; i < n; i++)
            h[i] = isnan(s->x[lo + a0 + i]) ? y[i] : s->x[lo + a0 + i];
    }
    /* each group is shifted by a whole number of samples. A trace that repeats (its iteration's period, where
     * known, else its dominant frequency's) stands for a periodic workload: cut where it comes back to the phase it
     * began at, each group's shift wraps around within it. Else no wrap: the cluster's trace is the time every
     * group's shifted trace covers (a wrap of the whole trace joined its end to its start, and a steady rise read as
     * a 1 s fall of MW). */
    size_t wrap = jitter_s > 0 && out->groups > 1 ? an_wrap_len(y, n, s->period_s, s->dt) : 0;
    long *shift = xmalloc((size_t)out->groups * sizeof *shift), smin = 0, smax = 0;
    struct rng r;
    rng_seed(&r, seed, 0x9a0);
    for (long g = 0; g < out->groups; g++) {
        double x = jitter_s > 0 ? rng_normal(&r) * jitter_s / s->dt : 0;
        if (!(fabs(x) < 1e18))   /* a shift beyond a long's range: the same shift modulo n, never an overflow */
            x = isfinite(x) ? fmod(x, (double)n) : 0;
        long sh = lround(x);
        if (wrap) {
            sh %= (long)wrap;
            if (sh < 0)
                sh += (long)wrap;
        }
        shift[g] = sh;
        smin = g ? (sh < smin ? sh : smin) : sh;
        smax = g ? (sh > smax ? sh : smax) : sh;
    }
    size_t len = wrap ? wrap : (smax - smin < (long)n ? n - (size_t)(smax - smin) : 0);
    if (len < 2) {   /* the groups' spread is longer than the trace: no time every group covers */
        free(shift), free(y), free(gap);
        return an_proj_fail(out, "the groups' spread (their jitter) is longer than the trace, which does not repeat: "
                                 "no time every group covers");
    }
    /* groups sharing a shift are added at once: the cost is (distinct shifts) x len whatever the number of groups */
    size_t span = wrap ? wrap : (size_t)(smax - smin) + 1;
    long *count = xcalloc(span, sizeof *count);
    for (long g = 0; g < out->groups; g++)
        count[wrap ? (size_t)shift[g] : (size_t)(shift[g] - smin)]++;
    free(shift);
    double per_group = (double)gpus / (double)out->groups * 1e-6;   /* W -> MW */
    double *agg = xcalloc(len, sizeof *agg), *aggh = h ? xcalloc(len, sizeof *aggh) : NULL;
    unsigned char *agap = xcalloc(len, 1);
    if (proj_by_fft(y, h, gap, any_gap, wrap ? wrap : n, count, span, per_group, len, agg, aggh, agap) == 0)
        span = 0;   /* many groups apart over a long trace: added by FFT */
    for (size_t c = 0; c < span; c++) {
        if (!count[c])
            continue;
        double wgt = per_group * (double)count[c];
        /* group time i reads the trace at i + its shift (less the least), wrapped: two plain loops the compiler
         * vectorises (the cost is distinct shifts x len) */
        size_t split = wrap ? wrap - c : len;
        for (size_t i = 0; i < split; i++)
            agg[i] += wgt * y[i + c];
        for (size_t i = split; i < len; i++)
            agg[i] += wgt * y[i + c - wrap];
        for (size_t i = 0; h && i < split; i++)
            aggh[i] += wgt * h[i + c];
        for (size_t i = split; h && i < len; i++)
            aggh[i] += wgt * h[i + c - wrap];
        for (size_t i = 0; any_gap && i < split; i++)
            agap[i] |= gap[i + c];
        for (size_t i = split; any_gap && i < len; i++)
            agap[i] |= gap[i + c - wrap];
    }
    free(count);
    free(gap);
    free(y);
    free(h);
    /* the figures from the cluster's trace with the times some group had no reading as gaps */
    double *fig = xmalloc(len * sizeof *fig);
    for (size_t i = 0; i < len; i++)
        fig[i] = agap[i] ? NAN : agg[i];
    n = len;
    int rc = analysis_project_series(fig, n, s->dt, bands, n_bands, out, out);
    if (rc != 0)
        an_proj_fail(out, "the cluster's trace could not be analysed");
    if (rc == 0 && aggh) {   /* the statistics of the readings (above); the ramps and the spectrum of their line */
        size_t nv = 0;
        for (size_t i = 0; i < len; i++)
            if (!agap[i])
                fig[nv++] = aggh[i];
        an_stats(fig, nv, &out->mean_mw, &out->swing_mw, &out->range_mw);
    }
    free(fig);
    free(agap);
    if (trace_n)
        *trace_n = n;
    if (held)
        *held = aggh;
    else
        free(aggh);
    if (trace)
        *trace = agg;
    else
        free(agg);
    return rc;
}
