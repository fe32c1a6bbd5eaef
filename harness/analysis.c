/* harness/analysis.c: power-swing analysis, pure functions over traces (see analysis.h). The spectrum uses
 * FFTW's real-to-complex transform. */
#include "analysis.h"

#include <fftw3.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

const double an_ramp_windows_s[AN_RAMP_WINDOWS] = { 0.01, 0.1, 1.0 };
const char *const an_ramp_window_names[AN_RAMP_WINDOWS] = { "10ms", "100ms", "1s" };
const struct an_band an_default_bands[4] = { { 0.1, 1, 0 }, { 1, 2.5, 0 }, { 2.5, 7, 0 }, { 7, 20, 0 } };
const char *const an_clause_names[4] = { "max_ramp_up_mw_s", "max_ramp_down_mw_s", "dynamic_range_mw", "max_band_share" };

/* Returns a copy of x with each missing sample replaced by the last valid one (the first valid one at the
 * start); NULL when nothing is valid. */
static double *an_filled(const double *x, size_t n)
{
    size_t first = 0;
    while (first < n && isnan(x[first]))
        first++;
    if (first == n)
        return NULL;
    double *y = xmalloc(n * sizeof *y), last = x[first];
    for (size_t i = 0; i < n; i++)
        y[i] = isnan(x[i]) ? last : (last = x[i]);
    return y;
}

/* Largest rise and fall of y over k samples, in units per second. */
static void an_ramps(const double *y, size_t n, size_t k, double dt, double *up, double *down)
{
    double rise = 0, fall = 0;
    for (size_t i = 0; i + k < n; i++) {
        double d = y[i + k] - y[i];
        if (d > rise)
            rise = d;
        if (-d > fall)
            fall = -d;
    }
    *up = rise / ((double)k * dt);
    *down = fall / ((double)k * dt);
}

/* Returns the transform of y[0..n) less mean: n / 2 + 1 bins (fftw_free it), or NULL when FFTW cannot. */
static fftw_complex *an_fft(const double *y, size_t n, double mean)
{
    if (n > INT_MAX)
        return NULL;
    double *in = fftw_alloc_real(n);
    fftw_complex *spec = fftw_alloc_complex(n / 2 + 1);
    fftw_plan plan = in && spec ? fftw_plan_dft_r2c_1d((int)n, in, spec, FFTW_ESTIMATE) : NULL;
    if (!plan) {
        fftw_free(in);
        fftw_free(spec);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        in[i] = y[i] - mean;
    fftw_execute(plan);
    fftw_destroy_plan(plan);
    fftw_free(in);
    return spec;
}

/* The spectrum of y (mean removed): dominant frequency and band shares of the fluctuation's energy. */
static int an_spectrum(const double *y, size_t n, double dt, double mean, const struct an_band *bands, int n_bands,
                       double *dominant, struct an_band *out)
{
    fftw_complex *spec = an_fft(y, n, mean);
    if (!spec)
        return -1;
    double total = 0, best = 0, df = 1.0 / ((double)n * dt);
    size_t best_j = 0;
    for (int b = 0; b < n_bands; b++)
        out[b] = (struct an_band){ bands[b].lo_hz, bands[b].hi_hz, 0 };
    for (size_t j = 1; j <= n / 2; j++) {
        double p = spec[j][0] * spec[j][0] + spec[j][1] * spec[j][1], f = (double)j * df;
        total += p;
        if (p > best) {
            best = p;
            best_j = j;
        }
        for (int b = 0; b < n_bands; b++)
            if (f >= bands[b].lo_hz && f < bands[b].hi_hz)
                out[b].share += p;
    }
    for (int b = 0; b < n_bands; b++)
        out[b].share = total > 0 ? out[b].share / total : NAN;
    *dominant = best_j ? (double)best_j * df : NAN;
    fftw_free(spec);
    return 0;
}

int analysis_spectrum(const struct an_series *s, double *freq, double *amp, size_t max, size_t *n)
{
    *n = 0;
    struct acc a;
    acc_reset(&a);
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(s->x[i]))
            acc_add(&a, s->x[i]);
    double *y = s->n >= 4 && s->dt > 0 ? an_filled(s->x, s->n) : NULL;
    fftw_complex *spec = y ? an_fft(y, s->n, acc_mean(&a)) : NULL;
    free(y);
    if (!spec)
        return -1;
    double df = 1.0 / ((double)s->n * s->dt);
    for (size_t j = 1; j <= s->n / 2 && *n < max; j++) {   /* one-sided: 2|X| / N, the Nyquist bin once */
        double m = hypot(spec[j][0], spec[j][1]) / (double)s->n;
        freq[*n] = (double)j * df;
        amp[(*n)++] = 2 * j == s->n ? m : 2 * m;
    }
    fftw_free(spec);
    return 0;
}

/* Returns the k-th smallest of v[0..n) (v is reordered): Hoare's selection, O(n) on average. */
static double an_select(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* Returns the p-th percentile (linear interpolation, as stats.c's series_pct) of v[0..n), reordering v. */
static double an_pct(double *v, size_t n, double p)
{
    double pos = p / 100.0 * (double)(n - 1);
    size_t i = (size_t)pos;
    double a = an_select(v, n, i);
    if (i + 1 >= n)
        return a;
    double b = an_select(v + i + 1, n - i - 1, 0);   /* the next one up: the smallest of what lies above */
    return a + (pos - (double)i) * (b - a);
}

int analysis_run(const struct an_series *s, const struct an_band *bands, int n_bands, struct an_result *out)
{
    memset(out, 0, sizeof *out);
    out->mean_w = out->min_w = out->max_w = out->p1_w = out->p99_w = out->swing_w = out->swing_p99_p1_w = NAN;
    out->dominant_hz = NAN;
    for (int w = 0; w < AN_RAMP_WINDOWS; w++)
        out->ramp_up_w_s[w] = out->ramp_down_w_s[w] = NAN;
    if (n_bands > AN_MAX_BANDS)
        n_bands = AN_MAX_BANDS;
    out->n_bands = n_bands;
    for (int b = 0; b < n_bands; b++)
        out->bands[b] = (struct an_band){ bands[b].lo_hz, bands[b].hi_hz, NAN };
    double *v = xmalloc((s->n ? s->n : 1) * sizeof *v);
    size_t nv = 0;
    struct acc a;
    acc_reset(&a);
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(s->x[i])) {
            v[nv++] = s->x[i];
            acc_add(&a, s->x[i]);
        }
    out->samples = nv;
    if (!nv) {
        free(v);
        return 0;
    }
    out->mean_w = acc_mean(&a);
    out->min_w = acc_min(&a);
    out->max_w = acc_max(&a);
    out->swing_w = acc_swing(&a);
    out->p1_w = an_pct(v, nv, 1);
    out->p99_w = an_pct(v, nv, 99);
    out->swing_p99_p1_w = out->p99_w - out->p1_w;
    free(v);
    double *y = an_filled(s->x, s->n);
    for (int w = 0; w < AN_RAMP_WINDOWS && s->dt > 0; w++) {
        size_t k = (size_t)llround(an_ramp_windows_s[w] / s->dt);
        if (k < 1)
            k = 1;
        if (k < s->n)
            an_ramps(y, s->n, k, s->dt, &out->ramp_up_w_s[w], &out->ramp_down_w_s[w]);
    }
    int rc = s->n >= 4 && s->dt > 0 ? an_spectrum(y, s->n, s->dt, out->mean_w, bands, n_bands, &out->dominant_hz, out->bands)
                                    : 0;
    free(y);
    return rc;
}

size_t analysis_resample(const double *t, const double *v, size_t n, double dt, double **out)
{
    *out = NULL;
    if (!n || !(dt > 0) || !(t[n - 1] >= t[0]))
        return 0;
    size_t m = (size_t)floor((t[n - 1] - t[0]) / dt) + 1;
    double *y = xmalloc(m * sizeof *y);
    for (size_t i = 0, j = 0; i < m; i++) {
        double ti = t[0] + (double)i * dt;
        while (j + 1 < n && t[j + 1] <= ti + 1e-12)
            j++;
        y[i] = v[j];
    }
    *out = y;
    return m;
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

int analysis_project(const struct an_series *s, long gpus, long groups, double jitter_s, unsigned long long seed,
                     const struct an_band *bands, int n_bands, struct an_projection *out)
{
    return analysis_project_trace(s, gpus, groups, jitter_s, seed, bands, n_bands, out, NULL);
}

int analysis_project_series(const double *mw, size_t n, double dt, const struct an_band *bands, int n_bands,
                            const struct an_projection *base, struct an_projection *out)
{
    if (out != base)
        *out = *base;
    struct an_series as = { mw, n, dt };
    struct an_result res;
    if (!n || analysis_run(&as, bands, n_bands, &res) != 0)
        return -1;
    out->mean_mw = res.mean_w;
    out->swing_mw = res.swing_w;
    out->ramp_up_mw_s = res.ramp_up_w_s[AN_RAMP_WINDOWS - 1];
    out->ramp_down_mw_s = res.ramp_down_w_s[AN_RAMP_WINDOWS - 1];
    out->dominant_hz = res.dominant_hz;
    out->n_bands = res.n_bands;
    memcpy(out->bands, res.bands, sizeof out->bands);
    return 0;
}

int analysis_project_trace(const struct an_series *s, long gpus, long groups, double jitter_s, unsigned long long seed,
                           const struct an_band *bands, int n_bands, struct an_projection *out, double **trace)
{
    if (trace)
        *trace = NULL;
    memset(out, 0, sizeof *out);
    out->gpus = gpus;
    out->groups = groups < 1 ? 1 : groups > gpus ? gpus : groups;
    out->jitter_s = jitter_s;
    double *y = s->n ? an_filled(s->x, s->n) : NULL;
    if (!y || gpus < 1 || !(s->dt > 0))
        return free(y), -1;
    /* each group is shifted by a whole number of samples; groups sharing a shift are added at once, so the
     * cost is (distinct shifts) x n whatever the number of groups */
    size_t n = s->n;
    long *count = xcalloc(n, sizeof *count);
    struct rng r;
    rng_seed(&r, seed, 0x9a0);
    for (long g = 0; g < out->groups; g++) {
        long shift = jitter_s > 0 ? lround(rng_normal(&r) * jitter_s / s->dt) : 0;
        shift %= (long)n;
        if (shift < 0)
            shift += (long)n;
        count[shift]++;
    }
    double per_group = (double)gpus / (double)out->groups * 1e-6;   /* W -> MW */
    double *agg = xcalloc(n, sizeof *agg);
    for (size_t sh = 0; sh < n; sh++) {
        if (!count[sh])
            continue;
        double wgt = per_group * (double)count[sh];
        for (size_t i = 0; i < n; i++)   /* circular: the trace stands for a periodic workload */
            agg[i] += wgt * y[(i + sh) % n];
    }
    int rc = analysis_project_series(agg, n, s->dt, bands, n_bands, out, out);
    if (trace)
        *trace = agg;
    else
        free(agg);
    free(count);
    free(y);
    return rc;
}

int analysis_bess(const double *p, size_t n, double dt, struct an_bess *b, double *grid)
{
    if (!n || !(dt > 0) || !(b->capacity_mwh > 0) || !(b->power_mw > 0) || !(b->efficiency > 0 && b->efficiency <= 1))
        return -1;
    double cap = b->capacity_mwh * 3600;   /* MJ (MW s) */
    double soc = cap / 2, leg = sqrt(b->efficiency), alpha = dt / (b->window_s > dt ? b->window_s : dt);
    double avg = 0, thr = 0, loss = 0;
    size_t warm = (size_t)(b->window_s / dt);   /* the setpoint starts at the first window's mean (a warm start) */
    if (warm < 1 || warm > n)
        warm = n < 1 ? 1 : (warm > n ? n : 1);
    for (size_t i = 0; i < warm; i++)
        avg += p[i] / (double)warm;
    double *g = grid ? grid : xmalloc(n * sizeof *g);
    b->soc_min = b->soc_max = 0.5;
    b->battery_max_mw = 0;
    for (size_t i = 0; i < n; i++) {
        avg += alpha * (p[i] - avg);   /* the grid's setpoint: an exponential moving average */
        double want = p[i] - avg;      /* > 0: the battery discharges, < 0: it charges */
        double batt = fmax(-b->power_mw, fmin(b->power_mw, want));
        if (batt > 0) {   /* energy out of storage: batt / leg */
            double e = fmin(batt * dt / leg, soc);
            batt = e * leg / dt;
            soc -= e;
            loss += e - batt * dt;
        } else if (batt < 0) {   /* energy into storage: -batt * leg */
            double e = fmin(-batt * dt * leg, cap - soc);
            batt = -e / leg / dt;
            soc += e;
            loss += -batt * dt - e;
        }
        g[i] = p[i] - batt;
        thr += fabs(batt) * dt;
        b->battery_max_mw = fmax(b->battery_max_mw, fabs(batt));
        b->soc_min = fmin(b->soc_min, soc / cap);
        b->soc_max = fmax(b->soc_max, soc / cap);
    }
    struct an_series gs = { g, n, dt };
    struct an_result r;
    analysis_run(&gs, NULL, 0, &r);
    b->grid_swing_mw = r.swing_w;
    b->grid_ramp_up_mw_s = r.ramp_up_w_s[AN_RAMP_WINDOWS - 1];
    b->grid_ramp_down_mw_s = r.ramp_down_w_s[AN_RAMP_WINDOWS - 1];
    b->soc_end = soc / cap;
    b->throughput_mwh = thr / 3600;
    b->losses_mwh = loss / 3600;
    if (!grid)
        free(g);
    return 0;
}

void analysis_check_spec(const struct an_projection *p, const struct an_spec *spec, struct an_verdict *v)
{
    memset(v, 0, sizeof *v);
    double limits[4] = { spec->max_ramp_up_mw_s, spec->max_ramp_down_mw_s, spec->dynamic_range_mw, spec->max_band_share };
    double band = NAN;
    for (int b = 0; b < p->n_bands; b++)
        if (p->bands[b].lo_hz == spec->band_lo_hz && p->bands[b].hi_hz == spec->band_hi_hz)
            band = p->bands[b].share;
    double values[4] = { p->ramp_up_mw_s, p->ramp_down_mw_s, p->swing_mw, band };
    for (int c = 0; c < 4; c++) {
        v->limit[c] = limits[c];
        v->value[c] = values[c];
        v->checked[c] = limits[c] > 0 && isfinite(limits[c]);
        v->pass[c] = v->checked[c] && values[c] <= limits[c];
    }
}
