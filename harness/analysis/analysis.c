/* harness/analysis/analysis.c: power-swing analysis, pure functions over traces (see analysis.h). The spectrum is
 * analysis_spectrum.c's. */
#include "analysis.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "stats.h"
#include "util.h"

const double an_ramp_windows_s[AN_RAMP_WINDOWS] = { 0.01, 0.1, 1.0 };
const char *const an_ramp_window_names[AN_RAMP_WINDOWS] = { "10ms", "100ms", "1s" };
const struct an_band an_default_bands[4] = { { 0.1, 1, 0 }, { 1, 2.5, 0 }, { 2.5, 7, 0 }, { 7, 20, 0 } };
const char *const an_clause_names[4] = { "max_ramp_up_mw_s", "max_ramp_down_mw_s", "dynamic_range_mw", "max_band_share" };

/* The span of x from its first valid sample to its last: [*a, *b); *a == *b when nothing is valid. */
void an_span(const double *x, size_t n, size_t *a, size_t *b)
{
    size_t i = 0, j = n;
    while (i < j && isnan(x[i]))
        i++;
    while (j > i && isnan(x[j - 1]))
        j--;
    *a = i;
    *b = j;
}

/* Returns a copy of x[a..b) (x[a] and x[b - 1] valid) with each inner gap filled by linear interpolation between
 * the valid samples around it. */
double *an_filled(const double *x, size_t a, size_t b)
{
    double *y = xmalloc((b - a) * sizeof *y);
    size_t last = a;
    for (size_t i = a; i < b; i++) {
        if (isnan(x[i]))
            continue;
        for (size_t j = last + 1; j < i; j++)   /* the gap (last, i) */
            y[j - a] = x[last] + (x[i] - x[last]) * (double)(j - last) / (double)(i - last);
        y[i - a] = x[i];
        last = i;
    }
    return y;
}

/* Largest rise and fall of x over exactly k steps, over the pairs of valid samples, in units per second; NAN
 * when no pair is valid. complete: x has no gap (a loop the compiler can vectorise). */
static void an_ramps(const double *x, size_t n, size_t k, double dt, int complete, double *up, double *down)
{
    double rise = 0, fall = 0;
    if (complete) {   /* four running extremes: independent chains the processor overlaps */
        double h[4] = { 0, 0, 0, 0 }, l[4] = { 0, 0, 0, 0 };
        size_t i = 0;
        for (; i + 3 + k < n; i += 4)
            for (int u = 0; u < 4; u++) {
                double d = x[i + u + k] - x[i + u];
                h[u] = d > h[u] ? d : h[u];
                l[u] = d < l[u] ? d : l[u];
            }
        for (; i + k < n; i++) {
            double d = x[i + k] - x[i];
            h[0] = d > h[0] ? d : h[0];
            l[0] = d < l[0] ? d : l[0];
        }
        double hi = fmax(fmax(h[0], h[1]), fmax(h[2], h[3])), lo = fmin(fmin(l[0], l[1]), fmin(l[2], l[3]));
        *up = n > k ? hi / ((double)k * dt) : NAN;
        *down = n > k ? (lo < 0 ? -lo : 0) / ((double)k * dt) : NAN;   /* never -0: a trace that never falls falls 0 */
        return;
    }
    size_t pairs = 0;
    for (size_t i = 0; i + k < n; i++) {
        double d = x[i + k] - x[i];
        if (isnan(d))
            continue;
        pairs++;
        if (d > rise)
            rise = d;
        if (-d > fall)
            fall = -d;
    }
    *up = pairs ? rise / ((double)k * dt) : NAN;
    *down = pairs ? fall / ((double)k * dt) : NAN;
}

#define AN_SWAP(a, b)      \
    do {                   \
        double t_ = (a);   \
        (a) = (b);         \
        (b) = t_;          \
    } while (0)

/* Reorders v[left..right] so that v[k] is the value of rank k, none before it larger and none after it smaller:
 * Floyd and Rivest's SELECT (CACM 18(3), 1975), about n + min(k, n - k) comparisons on average: for the 1st and
 * 99th percentiles little more than one pass. */
static void an_select(double *v, long left, long right, long k)
{
    while (right > left) {
        if (right - left > 600) {   /* narrow [left, right] to a sample's guess around k first */
            double n = (double)(right - left + 1), i = (double)(k - left + 1), z = log(n);
            double sz = 0.5 * exp(2 * z / 3), sd = 0.5 * sqrt(z * sz * (n - sz) / n) * (i - n / 2 < 0 ? -1 : 1);
            long nl = (long)((double)k - i * sz / n + sd), nr = (long)((double)k + (n - i) * sz / n + sd);
            an_select(v, nl > left ? nl : left, nr < right ? nr : right, k);
        }
        double t = v[k];
        long i = left, j = right;
        AN_SWAP(v[left], v[k]);
        if (v[right] > t)
            AN_SWAP(v[right], v[left]);
        while (i < j) {
            AN_SWAP(v[i], v[j]);
            i++;
            j--;
            while (v[i] < t)
                i++;
            while (v[j] > t)
                j--;
        }
        if (v[left] == t) {
            AN_SWAP(v[left], v[j]);
        } else {
            j++;
            AN_SWAP(v[j], v[right]);
        }
        if (j <= k)
            left = j + 1;
        if (k <= j)
            right = j - 1;
    }
}

/* Returns the smallest of v[a..b). */
static double an_min(const double *v, size_t a, size_t b)
{
    double m = v[a];
    for (size_t i = a + 1; i < b; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* The 1st and 99th percentiles of v[0..n) (linear interpolation between order statistics, as stats.c's series_pct
 * and numpy's default), reordering v. */
static void an_p1_p99(double *v, size_t n, double *p1, double *p99)
{
    double pos1 = 0.01 * (double)(n - 1), pos99 = 0.99 * (double)(n - 1);
    size_t i1 = (size_t)pos1, i99 = (size_t)pos99;
    an_select(v, 0, (long)n - 1, (long)i1);
    double a1 = v[i1], b1 = i1 + 1 < n ? an_min(v, i1 + 1, n) : a1;   /* the next one up: the least above */
    if (i99 > i1)
        an_select(v, (long)i1 + 1, (long)n - 1, (long)i99);   /* all there rank above i1 */
    double a99 = v[i99], b99 = i99 + 1 < n ? an_min(v, i99 + 1, n) : a99;
    *p1 = a1 + (pos1 - (double)i1) * (b1 - a1);
    *p99 = a99 + (pos99 - (double)i99) * (b99 - a99);
}

/* Whether x[lo, hi) takes more than `most` distinct values (NAN left out). */
static int an_levels_over(const double *x, size_t lo, size_t hi, int most)
{
    double seen[8];
    int k = 0;
    for (size_t i = lo; i < hi && k <= most && k < 8; i++) {
        if (isnan(x[i]) || (i > lo && x[i] == x[i - 1]))
            continue;
        int known = 0;
        for (int j = 0; j < k && !known; j++)
            known = seen[j] == x[i];
        if (!known)
            seen[k++] = x[i];
    }
    return k > most;
}

/* The changes of x[lo, hi) (a sample unlike the one before) and the pairs of valid samples they are counted over. */
static void an_changes(const double *x, size_t lo, size_t hi, size_t *changes, size_t *pairs)
{
    *changes = *pairs = 0;
    for (size_t i = lo + 1; i < hi; i++)
        if (!isnan(x[i]) && !isnan(x[i - 1])) {
            (*pairs)++;
            *changes += x[i] != x[i - 1];
        }
}

/* Whether s[lo, hi) of mean `mean`, whose readings change every update_s, is a held sensor's: held over 1.5 samples,
 * and either more than four levels (a sensor's readings carry its noise) or at least three changes in each cycle of
 * its own strongest frequency or of its iteration (a trace that is merely piecewise constant, as a noiseless square
 * wave between its edges, changes twice a cycle: a signal, not a held sensor). Counted, not taken from update_s: the
 * most common interval between changes is a square wave's shorter phase, and every duty under 1/3 or over 2/3 read as
 * a sensor's (a 94/21 ms iteration: its 10 ms ramp null, its 100 ms ramp 29 % low). */
int an_series_held(const struct an_series *s, size_t lo, size_t hi, double mean, double update_s)
{
    if (!an_sensor_held(update_s, s->dt) || hi - lo < 4)
        return 0;
    if (an_levels_over(s->x, lo, hi, 4))
        return 1;   /* a 13.3 Hz sine read every 100 ms peaks at its 3.35 Hz alias, under three changes a cycle */
    double f_raw = NAN;
    struct an_band none[1];
    if (an_spectrum(s->x, lo, hi, s->dt, mean, NULL, 0, &f_raw, none) != 0 || !(f_raw > 0))
        return 1;
    double cycle = s->period_s > 0 ? fmax(s->period_s, 1 / f_raw) : 1 / f_raw;
    size_t changes, pairs;
    an_changes(s->x, lo, hi, &changes, &pairs);
    return pairs && (double)changes * cycle >= 3 * (double)pairs * s->dt;
}

void an_null_held(struct an_result *r, double update_s, double period_s)
{
    if (!(update_s > 0))
        return;
    for (int w = 0; w < AN_RAMP_WINDOWS; w++)
        if (an_ramp_windows_s[w] < 2 * update_s && !(r->unresolved & AN_UNRES_RAMP_SAMPLE(w))) {   /* one reason */
            r->ramp_up_w_s[w] = r->ramp_down_w_s[w] = NAN;
            r->unresolved |= AN_UNRES_RAMP(w);
        }
    double nyq = 0.5 / update_s;
    r->band_nyq_hz = r->peak_nyq_hz = nyq;
    for (int b = 0; b < r->n_bands; b++)
        if (r->bands[b].hi_hz > nyq) {
            r->bands[b].share = NAN;
            r->unresolved = (r->unresolved | AN_UNRES_BAND(b)) & ~AN_UNRES_BAND_SHORT(b);   /* one reason */
        }
    if (!(period_s > 0 && 1 / period_s < 0.95 * nyq) || !(r->dominant_hz < 0.95 * nyq)) {
        r->dominant_hz = NAN;
        r->unresolved |= AN_UNRES_DOMINANT;
    }
}

void an_stats(double *v, size_t n, double *mean, double *swing, double *range)
{
    double sum = 0, mn = INFINITY, mx = -INFINITY, p1 = NAN, p99 = NAN;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    if (n)
        an_p1_p99(v, n, &p1, &p99);
    *mean = n ? sum / (double)n : NAN;
    *swing = n >= 2 ? p99 - p1 : NAN;   /* one point has no swing: null, not 0 */
    *range = n >= 2 ? mx - mn : NAN;
}

int analysis_run(const struct an_series *s, const struct an_band *bands, int n_bands, struct an_result *out)
{
    memset(out, 0, sizeof *out);
    out->mean_w = out->min_w = out->max_w = out->p1_w = out->p99_w = out->swing_w = out->range_w = out->span_s = NAN;
    out->dominant_hz = out->band_nyq_hz = out->peak_nyq_hz = NAN;
    for (int w = 0; w < AN_RAMP_WINDOWS; w++)
        out->ramp_up_w_s[w] = out->ramp_down_w_s[w] = NAN;
    if (n_bands > AN_MAX_BANDS)
        n_bands = AN_MAX_BANDS;
    out->n_bands = n_bands;
    for (int b = 0; b < n_bands; b++)
        out->bands[b] = (struct an_band){ bands[b].lo_hz, bands[b].hi_hz, NAN };
    double *v = xmalloc((s->n ? s->n : 1) * sizeof *v);
    size_t nv = 0;
    double sum = 0, mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        double x = s->x[i];
        if (x != x)
            continue;   /* a gap */
        v[nv++] = x;
        sum += x;
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
    }
    out->samples = nv;
    out->update_s = NAN;
    if (!nv) {
        free(v);
        return 0;
    }
    size_t lo, hi;
    an_span(s->x, s->n, &lo, &hi);
    size_t len = hi - lo;
    out->gaps = len - nv;
    out->span_s = s->dt > 0 ? (double)(len - 1) * s->dt : NAN;
    out->mean_w = sum / (double)nv;
    out->min_w = mn;
    out->max_w = mx;
    an_p1_p99(v, nv, &out->p1_w, &out->p99_w);
    if (nv >= 2) {   /* a swing is between readings: one reading has none (it read 0 W until 2026-11-30) */
        out->range_w = mx - mn;
        out->swing_w = out->p99_w - out->p1_w;
    }
    free(v);
    /* the sensor: a reading held over several samples is one reading; ramps and the spectrum take the distinct
     * readings at their times, and what the update interval cannot resolve is left unmeasured (NAN) */
    size_t distinct = 0, pairs = 0;   /* the changes and the pairs of valid samples they are counted over */
    an_sensor_count(s->x, s->n, s->dt, &out->update_s, &distinct, &pairs);   /* whatever the source */
    if (s->update_s > 0)
        out->update_s = s->update_s;   /* the source's own stamps say it */
    out->distinct = distinct;
    if (s->update_s < 0)
        out->update_s = NAN;   /* the caller knows: not a sensor's held readings (a sum of signals) */
    out->held = s->update_s > 0   ? an_sensor_held(out->update_s, s->dt)
                : s->update_s < 0 ? 0
                                  : an_series_held(s, lo, hi, out->mean_w, out->update_s);
    double *dh = out->held && s->dt > 0 ? an_dehold(s->x, s->n, out->update_s / s->dt) : NULL;
    const double *x = dh ? dh : s->x;
    size_t dlo = lo, dhi = hi;   /* held: what the readings show, from the first known point to the last (the times
                                  * around a segment's edges whose line to the next reading is unknown are gaps) */
    int complete = out->gaps == 0;
    if (dh) {
        an_span(dh, s->n, &dlo, &dhi);
        for (size_t i = dlo; i < dhi && complete; i++)
            complete = !isnan(dh[i]);
    }
    for (int w = 0; w < AN_RAMP_WINDOWS && s->dt > 0; w++) {
        size_t k = (size_t)llround(an_ramp_windows_s[w] / s->dt);   /* an exact window: 1 s at 1 kHz is 1000 steps */
        if (an_ramp_windows_s[w] < s->dt * (1 - 1e-9)) {   /* shorter than a sample (10 ms at 50 Hz once read as a 20 ms ramp) */
            out->unresolved |= AN_UNRES_RAMP_SAMPLE(w);
            continue;
        }
        if (out->held && an_ramp_windows_s[w] < 2 * out->update_s) {   /* than two of the sensor's updates */
            out->unresolved |= AN_UNRES_RAMP(w);
            continue;
        }
        if (k >= dhi - dlo)
            out->unresolved |= AN_UNRES_RAMP_SPAN(w);
        else
            an_ramps(x + dlo, dhi - dlo, k, s->dt, complete, &out->ramp_up_w_s[w], &out->ramp_down_w_s[w]);
    }
    int rc = 0;
    if (dhi - dlo >= 4 && s->dt > 0)
        rc = an_spectrum(x, dlo, dhi, s->dt, out->mean_w, bands, n_bands, &out->dominant_hz, out->bands);
    else
        out->unresolved |= AN_UNRES_SPECTRUM_SHORT;
    if (out->range_w == 0 && !(out->unresolved & AN_UNRES_SPECTRUM_SHORT))
        out->unresolved |= AN_UNRES_SPECTRUM_FLAT;
    for (int b = 0; b < n_bands && rc == 0; b++)   /* no bin in the band (a trace shorter than a cycle of its top) */
        if (!(out->unresolved & (AN_UNRES_SPECTRUM_SHORT | AN_UNRES_SPECTRUM_FLAT)) && isnan(out->bands[b].share))
            out->unresolved |= AN_UNRES_BAND_SHORT(b);
    free(dh);
    /* a peak with fewer than two cycles in the span is the spectrum's lowest bin: a trend (a steady rise reads 1 /
     * span), not an oscillation */
    if (out->dominant_hz > 0 && out->span_s > 0 && out->dominant_hz * (out->span_s + s->dt) < 1.5) {
        out->dominant_hz = NAN;
        out->unresolved |= AN_UNRES_DOMINANT_SPAN;
    }
    /* a signal that changes c times over a span S carries nothing above c / 2S (a held series: half its update rate,
     * an_null_held): a peak past it (a change at either end allowed: 1 / S) is a step's harmonic or an alias (a 20 ms sensor's trace of a run's 13 ms
     * iterations, taken for a signal, peaked at 28.6 Hz), and where the iteration is known to be faster, any peak may
     * be an alias of it (13 ms iterations read every 20 ms peak at 22.8 Hz). Counted, not the most common interval: a
     * square wave changes every half period on average whatever its duty, and a 50 % one of known period, its interval
     * half its period, read null. A series that changes at nearly every sample is bounded by its grid's own half rate:
     * 121 ms iterations logged at 10 Hz peaked at 2.57 Hz, an alias, and a 7-20 Hz band, which no bin of that grid
     * reaches, read a share of 0 */
    if (!out->held && s->dt > 0) {
        size_t changes = distinct;   /* counted over s->x[lo, hi) as an_changes counts them: the same pass (no valid
                                      * pair lies outside it) */
        double span = (double)pairs * s->dt, nyq = 0.5 / s->dt, allow = 0;
        if (changes && span >= 1.5 * s->dt * (double)changes) {
            nyq = (double)changes / (2 * span);
            allow = 1 / span;
        }
        out->peak_nyq_hz = nyq;
        out->band_nyq_hz = 0.5 / s->dt;
        double it = s->period_s > 0 ? 1 / s->period_s : 0;
        if (out->dominant_hz > nyq + allow || it > nyq + allow || !(it < 0.95 * out->band_nyq_hz)) {
            out->dominant_hz = NAN;
            out->unresolved |= AN_UNRES_DOMINANT;
        }
        for (int b = 0; b < n_bands; b++)
            if (out->bands[b].hi_hz > 0.5 / s->dt * (1 + 1e-9)) {   /* past the grid's last bin: nothing measured */
                out->bands[b].share = NAN;
                out->unresolved = (out->unresolved | AN_UNRES_BAND(b)) & ~AN_UNRES_BAND_SHORT(b);
            }
    }
    if (out->held)   /* bands past half the update rate; within 5 % of it a peak cannot be told from its alias (f and
                      * 2 nyq - f meet there, and the update interval is itself measured): resolved only below that */
        an_null_held(out, out->update_s, s->period_s);
    return rc;
}

struct an_many {
    const struct an_series *s;
    size_t n;
    const struct an_band *bands;
    int n_bands;
    struct an_result *out;
    atomic_size_t next;
    atomic_int rc;
};

/* A worker of analysis_run_many: takes series one at a time until none is left. */
static void *an_many_worker(void *arg)
{
    struct an_many *w = arg;
    for (size_t i; (i = atomic_fetch_add(&w->next, 1)) < w->n;) {
        int rc = analysis_run(&w->s[i], w->bands, w->n_bands, &w->out[i]);
        int zero = 0;
        if (rc)
            atomic_compare_exchange_strong(&w->rc, &zero, rc);
    }
    return NULL;
}

int analysis_run_many(const struct an_series *s, size_t n, const struct an_band *bands, int n_bands,
                      struct an_result *out, int threads)
{
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (int)(cores > 256 ? 256 : cores) : 1;
    }
    if ((size_t)threads > n)
        threads = (int)n;
    struct an_many w = { .s = s, .n = n, .bands = bands, .n_bands = n_bands, .out = out };
    atomic_init(&w.next, 0);
    atomic_init(&w.rc, 0);
    pthread_t *tid = xmalloc((size_t)(threads > 1 ? threads : 1) * sizeof *tid);
    int started = 0;
    for (int i = 1; i < threads; i++) {   /* the calling thread is the first worker */
        if (pthread_create(&tid[started], NULL, an_many_worker, &w) != 0)
            break;   /* fewer threads: the work is still all done, by those there are */
        started++;
    }
    an_many_worker(&w);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    return atomic_load(&w.rc);
}

double analysis_correlation(const double *a, const double *b, size_t n)
{
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) || isnan(b[i]))
            continue;
        sa += a[i];
        sb += b[i];
        saa += a[i] * a[i];
        sbb += b[i] * b[i];
        sab += a[i] * b[i];
        k++;
    }
    if (k < 2)
        return NAN;
    double cov = sab - sa * sb / (double)k, va = saa - sa * sa / (double)k, vb = sbb - sb * sb / (double)k;
    return va > 0 && vb > 0 ? cov / sqrt(va * vb) : NAN;
}

size_t analysis_waveform(const struct an_series *s, double t0, const double *starts, size_t k, double *bins, int nbins)
{
    double *sum = xcalloc((size_t)nbins, sizeof *sum);
    size_t *cnt = xcalloc((size_t)nbins, sizeof *cnt), used = 0;
    for (size_t it = 0; it + 1 < k; it++) {
        double a = starts[it], b = starts[it + 1];
        if (!(b > a))
            continue;
        used++;
        long i0 = (long)ceil((a - t0) / s->dt), i1 = (long)ceil((b - t0) / s->dt);
        for (long i = i0 < 0 ? 0 : i0; i < i1 && i < (long)s->n; i++) {
            if (isnan(s->x[i]))
                continue;
            int bin = (int)(((t0 + (double)i * s->dt) - a) / (b - a) * nbins);
            if (bin >= 0 && bin < nbins) {
                sum[bin] += s->x[i];
                cnt[bin]++;
            }
        }
    }
    for (int j = 0; j < nbins; j++)
        bins[j] = cnt[j] ? sum[j] / (double)cnt[j] : NAN;
    free(sum);
    free(cnt);
    return used;
}
