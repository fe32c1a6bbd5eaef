/* tui/measure.c: the live measurements of the view's model (model.h, vm_measure): the aggregate's swing, ramp and
 * dominant frequency over the window through the summary's analysis, the iterations' durations and rate, the GEMM
 * rate and the bus bandwidth. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "model.h"
#include "util.h"

static int64_t bin_of(double t) { return (int64_t)floor(t / VM_BIN_S); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The p-th percentile of v[0..n) (sorted in place). */
static double pct(double *v, size_t n, double p)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    double k = p / 100 * (double)(n - 1);
    size_t i = (size_t)k;
    return i + 1 < n ? v[i] + (k - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* The sum of num[] over the sum of den[], the last n (at most cap) of each (NAN: none, or no time). */
static double ratio_of(const double *num, const double *den, uint64_t n, size_t cap)
{
    size_t k = n < cap ? (size_t)n : cap;
    double a = 0, b = 0;
    for (size_t i = 0; i < k; i++)
        a += num[i], b += den[i];
    return k && b > 0 ? a / b : NAN;
}

void vm_measure(struct vm *m, double window_s)
{
    struct vm_measure *x = &m->m;
    x->t = m->t_now;
    /* the aggregate over the window, on a uniform grid, through the same analysis as the summary */
    size_t n = 0, first = m->nraw > VM_RAW ? (size_t)(m->nraw - VM_RAW) : 0;
    double *t = xmalloc(VM_RAW * sizeof *t), *w = xmalloc(VM_RAW * sizeof *w);
    /* iterations: durations (first: their median is the power's period below) */
    size_t k = 0, kk = m->niter < VM_ITERS ? (size_t)m->niter : VM_ITERS;
    for (size_t i = 0; i < kk; i++)
        if (isfinite(m->iter_s[i]))
            t[k++] = m->iter_s[i];
    x->iter_p50_s = pct(t, k, 50);
    x->iter_p99_s = pct(t, k, 99);
    /* the window within this run: the run before's readings are another mitigation's (until 2026-12-02 a cap's first
     * 10 s held none's peaks) */
    double from = m->t_now - window_s;
    from = isfinite(m->run_t0) && m->run_t0 > from ? m->run_t0 : from;
    for (uint64_t i = first; i < m->nraw; i++)
        if (m->raw_t[i % VM_RAW] >= from) {
            t[n] = m->raw_t[i % VM_RAW];
            w[n++] = m->raw_w[i % VM_RAW];
        }
    x->swing_w = x->swing_pct_tdp = x->ramp_w_s = x->dominant_hz = x->sensor_ms = NAN;
    double dt = m->sample_hz > 0 ? 1.0 / m->sample_hz : n > 1 ? (t[n - 1] - t[0]) / (double)(n - 1) : 0;
    double *u = NULL;
    /* a grid of at most 4 x the readings held: readings far apart against the rate (a damaged record) are not
     * measured rather than resampled onto millions of points each frame */
    size_t nu = n > 16 && dt > 0 && (t[n - 1] - t[0]) / dt <= 4.0 * VM_RAW ? analysis_resample(t, w, n, dt, &u) : 0;
    /* as the summary analyses the sum: the slowest GPU's update interval from its sensor's stamps (a sum of sensors
     * whose updates interleave changes more often than any of them: four 20 ms sensors read as a 10 ms one), and the
     * iteration as the period (without it a held trace has no dominant frequency); where a GPU gives no stamps, or
     * the sum is the cluster's, measured from the readings */
    double upd = 0, period = x->iter_p50_s;
    for (int r = 0; r < m->nranks && !m->cluster_fed; r++) {
        double ur = an_stamp_update_s(m->rank[r].stamps);
        if (!(ur > 0)) {
            upd = 0;
            break;
        }
        upd = fmax(upd, ur);
    }
    struct an_result res;
    if (nu > 16 && analysis_run(&(struct an_series){ u, nu, dt, upd, period > 0 ? period : 0 }, an_default_bands, 4,
                                &res) == 0) {
        x->swing_w = res.swing_w;
        double gpus = m->gpus > m->nranks ? (double)m->gpus : m->nranks;   /* every GPU summed, past those held too */
        x->swing_pct_tdp = m->tdp_w > 0 && gpus > 0 ? 100 * res.swing_w / (m->tdp_w * gpus) : NAN;
        x->ramp_w_s = fmax(res.ramp_up_w_s[1], res.ramp_down_w_s[1]);   /* NAN: the sensor cannot resolve it */
        x->dominant_hz = res.dominant_hz;
        x->sensor_ms = res.held ? res.update_s * 1e3 : NAN;
    }
    free(u);
    /* the rate: rank-iterations completed in the window's bins per rank still in the run, over the time those bins
     * cover (this run's only) */
    int live = 0;
    for (int r = 0; r < m->nranks; r++)
        live += !m->rank[r].dropped;
    int64_t b1 = bin_of(m->t_now), b0 = bin_of(fmax(m->run_t0, m->t_now - window_s));
    if (b1 - b0 >= VM_RATE_BINS)
        b0 = b1 - VM_RATE_BINS + 1;
    double done = 0, span = m->t_now - fmax(m->run_t0, (double)b0 * VM_BIN_S);
    for (int64_t b = b0; b <= b1; b++)
        if (m->rate_bin[((b % VM_RATE_BINS) + VM_RATE_BINS) % VM_RATE_BINS].no == b)
            done += m->rate_bin[((b % VM_RATE_BINS) + VM_RATE_BINS) % VM_RATE_BINS].n;
    x->it_per_s = live && span > 0 && m->run_iters && m->state != VS_FINISHED ? done / live / span : NAN;
    x->tflops = ratio_of(m->flops, m->flops_s, m->nflops, 64) / 1e12;   /* as summary.json's: flops over time */
    size_t nb = m->nbus < 64 ? (size_t)m->nbus : 64;   /* the median, as summary.json's busbw */
    memcpy(t, m->bus_rate, nb * sizeof *t);
    x->busbw_gbs = pct(t, nb, 50) / 1e9;
    free(t);
    free(w);
}

/* One record line into the model (model.c vm_event); -1 where it is no JSON object. */
int vm_event_line(struct vm *m, const char *line, size_t len)
{
    json_error_t err;
    json_t *ev = json_loadb(line, len, 0, &err);
    if (!ev)
        return -1;
    int rc = json_is_object(ev) ? vm_event(m, ev) : -1;
    json_decref(ev);
    return rc;
}
