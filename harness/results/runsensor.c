/* harness/results/runsensor.c: what a run's power readings say of their sensor, and what the sensor hides that many
 * iterations together show: the sensor's lag behind a known step, the iteration's period, and the waveform folded
 * from every rank's readings below the sensor's update interval (runstats.h). */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "analysis_json.h"
#include "runstats.h"
#include "util.h"

/* Returns the sensor's lag behind a known step: over the compute phases that start at the rank's low level (within a
 * quarter of its swing of p1: the reading at the start, or the last within an update before it), the median time
 * from the start to the first reading past half way to p99, less half the update interval (the mean wait for the next
 * reading; an averaging sensor's own delay stays in). x: the rank's readings on the grid of step dt from t0 (s since
 * the run's start). A step followed by the next within two updates, or a crossing after the next step began, belongs
 * to no one step (iterations faster than the sensor): NAN with fewer than 3 such steps. */
double runsensor_lag_s(const double *x, size_t m, double dt, double t0, const struct series *starts,
                             const struct an_result *res)
{
    double lo = res->p1_w, hi = res->p99_w, half = (lo + hi) / 2, u = isfinite(res->update_s) ? res->update_s : dt;
    if (!(hi - lo > 0) || !(dt > 0))
        return NAN;
    struct series d = { 0 };
    for (size_t k = 0; k < starts->n; k++) {
        double te = starts->v[k];
        if (te < t0)
            continue;
        size_t i = (size_t)((te - t0) / dt);
        if (i >= m)
            continue;
        /* the level the step starts from: the reading at its start, or the last one within an update before it (a
         * tick the sampler missed there; the sensor held that reading) */
        double from = NAN;
        for (size_t b = i + 1; b-- > 0 && (double)(i - b) * dt <= u;)
            if (!isnan(x[b])) {
                from = x[b];
                break;
            }
        if (isnan(from) || from > lo + (hi - lo) / 4)
            continue;   /* not from the low level, or not known: no clean step */
        double within = k + 1 < starts->n ? starts->v[k + 1] - te : 2.0;   /* this step's, before the next one */
        if (within < 2 * u)
            continue;   /* the next step begins before the sensor could show this one */
        for (size_t j = i + 1; j < m && (double)(j - i) * dt < fmin(within, 2.0); j++) {
            if (isnan(x[j]))
                continue;   /* a tick the sampler missed: the next one tells */
            if (x[j] >= half) {
                series_add(&d, t0 + (double)j * dt - te);
                break;
            }
        }
    }
    double lag = d.n >= 3 ? series_pct(&d, 50) - u / 2 : NAN;
    series_free(&d);
    return isfinite(lag) && lag < 0 ? 0 : lag;
}

/* Returns the iteration's per-GPU waveform folded from every rank's readings (analysis_fold: each distinct reading,
 * moved back by its rank's lag, at its phase within rank 0's iterations) in the finest bins the readings fill (from
 * about 5 ms, 10 to 400 bins): {period_s,
 * resolution_ms, w (the mean over ranks of each bin's mean; null where no reading fell), readings (behind each bin),
 * empty_bins, iterations, note}; the note says when the run is too short or the period locks to the sensor's. */
/* Folds every rank into bins bins: w (the mean over ranks of each bin's mean, NAN where no reading fell) and nr (the
 * readings behind each bin); returns the bins without a reading. */
static size_t runsensor_fold(const struct run_stats *rs, double **grid, size_t m, double dt, double t0,
                             const struct an_result *res, const double *lags, size_t bins, double *w, double *nr)
{
    double *sum = xcalloc(bins, sizeof *sum), *cnt = xcalloc(bins, sizeof *cnt);
    memset(w, 0, bins * sizeof *w);
    memset(nr, 0, bins * sizeof *nr);
    for (int r = 0; r < rs->nranks; r++) {
        memset(sum, 0, bins * sizeof *sum);
        memset(cnt, 0, bins * sizeof *cnt);
        analysis_fold(grid[r], m, dt, t0, res[r].held && isfinite(lags[r]) ? lags[r] : 0, res[r].held, rs->iter_begin.v,
                      rs->iter_begin.n, sum, cnt, bins);
        for (size_t b = 0; b < bins; b++) {
            w[b] += cnt[b] > 0 ? sum[b] / cnt[b] / rs->nranks : NAN;
            nr[b] += cnt[b];
        }
    }
    size_t empty = 0;
    for (size_t b = 0; b < bins; b++)
        empty += !(nr[b] > 0) || isnan(w[b]);
    free(sum);
    free(cnt);
    return empty;
}

json_t *runsensor_fold_json(const struct run_stats *rs, double **grid, size_t m, double dt, double t0,
                            const struct an_result *res, const double *lags, double period)
{
    size_t k = rs->iter_begin.n;
    if (!(period > 0) || k < 3)
        return json_null();
    /* the finest bins the readings fill: from about 5 ms (at most 400 bins, 5 readings a bin on average), coarser by a
     * quarter at a time until at most 5 % of the bins are empty (readings on a period locked to the sensor's fall on a
     * few phases only), down to 10 bins */
    double readings = 0;
    for (int r = 0; r < rs->nranks; r++)
        for (size_t i = 0; i < m; i++)
            readings += !isnan(grid[r][i]) && (!res[r].held || i == 0 || isnan(grid[r][i - 1]) || grid[r][i] != grid[r][i - 1]);
    double want = fmin(period / 0.005, readings / 5);
    size_t bins = want < 10 ? 10 : want > 400 ? 400 : (size_t)want, empty;
    double *w = xcalloc(400, sizeof *w), *nr = xcalloc(400, sizeof *nr);
    while ((empty = runsensor_fold(rs, grid, m, dt, t0, res, lags, bins, w, nr)) > bins / 20 && bins > 10)
        bins = bins * 3 / 4 > 10 ? bins * 3 / 4 : 10;
    json_t *wj = json_array(), *nj = json_array();
    readings = 0;
    for (size_t b = 0; b < bins; b++) {
        readings += nr[b];
        json_array_append_new(wj, json_num(w[b]));
        json_array_append_new(nj, json_integer((json_int_t)nr[b]));
    }
    const char *note = readings < 3.0 * (double)bins ? "too short: fewer than 3 readings a bin"
                       : empty > bins / 10    ? "the period locks to the sensor's: readings fall on few phases"
                                              : "";
    json_t *o = json_pack("{s:f, s:f, s:I, s:o, s:o, s:I, s:I, s:s}", "period_s", period, "resolution_ms",
                          period / (double)bins * 1e3, "bins", (json_int_t)bins, "w", wj, "readings", nj, "empty_bins",
                          (json_int_t)empty, "iterations", (json_int_t)k, "note", note);
    free(w);
    free(nr);
    return o;
}

/* Returns the iteration's period: the median interval between rank 0's compute-phase starts (0: fewer than 3). */
double runsensor_period_s(const struct run_stats *rs)
{
    size_t n = rs->iter_begin.n;
    if (n < 3)
        return 0;
    struct series d = { 0 };
    for (size_t i = 1; i < n; i++)
        series_add(&d, rs->iter_begin.v[i] - rs->iter_begin.v[i - 1]);
    double p = series_pct(&d, 50);
    series_free(&d);
    return p > 0 ? p : 0;
}
