/* harness/results/replayfit.c: how closely a run followed the power trace it replayed (workload.replay): the
 * trace laid on the run's sample grid from each pass's start, against the run's mean power per GPU read that much
 * later as lines them up best (the sensor's delay, up to two of its updates). */
#include <math.h>
#include <stdlib.h>

#include "analysis_json.h"
#include "replayfit.h"
#include "util.h"

/* The trace's value u seconds (model time) into a pass, by the line between its samples; NAN past its end. */
static double replay_at(const struct scenario *sc, double u)
{
    double x = u / sc->workload.replay.dt_s;
    int n = sc->workload.replay.n;
    if (!(x >= 0) || x > n - 1)
        return NAN;
    int i = (int)x;
    if (i >= n - 1)
        return sc->workload.replay.w[n - 1];
    double f = x - i;
    return sc->workload.replay.w[i] * (1 - f) + sc->workload.replay.w[i + 1] * f;
}

/* Lays the trace on the run's grid with the readings taken shift_s later (a sensor's readings trail the power):
 * ref[i] the trace at the grid's time less shift_s, run[i] the run's reading, both NAN where either is missing.
 * Returns the points where both are, and their squared error in *se. */
static size_t replay_lay(const struct scenario *sc, const struct replayfit_in *in, double shift_s, double *ref, double *run,
                         double *se)
{
    size_t k = 0, both = 0;
    *se = 0;
    for (size_t i = 0; i < in->m; i++) {
        double t = in->t0_s + (double)i * in->dt_s - shift_s;   /* seconds since the run began */
        while (k + 1 < in->n_starts && in->starts_s[k + 1] <= t)
            k++;
        ref[i] = t >= in->starts_s[k] ? replay_at(sc, (t - in->starts_s[k]) * sc->sim.speedup) : NAN;
        run[i] = isnan(ref[i]) ? NAN : in->per_gpu[i];   /* compared where both are: between passes is neither's */
        if (isnan(run[i]))
            ref[i] = NAN;
        else {
            *se += (run[i] - ref[i]) * (run[i] - ref[i]);
            both++;
        }
    }
    return both;
}

json_t *replayfit_json(const struct scenario *sc, const struct replayfit_in *in)
{
    if (!sc->workload.replay.on || in->m < 2 || in->n_starts < 1)
        return json_null();
    double *ref = xmalloc(in->m * sizeof *ref), *run = xmalloc(in->m * sizeof *run), se;
    /* the readings' delay behind the power: the shift, up to max_shift_s, that lines them up best */
    double best = -INFINITY, shift = 0;
    for (int j = 0; in->dt_s > 0 && j <= (int)(in->max_shift_s / in->dt_s + 1e-9); j++) {
        if (replay_lay(sc, in, j * in->dt_s, ref, run, &se) < 2)
            continue;
        double c = analysis_correlation(ref, run, in->m);
        if (c > best) {
            best = c;
            shift = j * in->dt_s;
        }
    }
    size_t both = replay_lay(sc, in, shift, ref, run, &se);
    struct an_series rs = { ref, in->m, in->dt_s, 0, 0 }, ms = { run, in->m, in->dt_s, 0, 0 };
    struct an_result rr, mr;
    json_t *o;
    if (both < 2 || analysis_run(&rs, in->bands, in->nb, &rr) != 0 || analysis_run(&ms, in->bands, in->nb, &mr) != 0) {
        o = json_pack("{s:s, s:I}", "trace", sc->workload.replay.trace, "points", (json_int_t)both);
    } else {
        /* the largest difference of band shares, in points (a share of 1 = 100 points); none where no band has a
         * share on both sides (a short trace, a slow rate: null, until 2026-12-01 0) */
        double shares = NAN;
        for (int b = 0; b < rr.n_bands && b < mr.n_bands; b++) {
            double d = fabs(rr.bands[b].share - mr.bands[b].share) * 100;
            if (isfinite(d) && !(d <= shares))
                shares = d;
        }
        o = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}}", "trace",
                      sc->workload.replay.trace, "points", (json_int_t)both, "shift_ms", json_num(shift * 1e3),
                      "correlation",
                      json_num(analysis_correlation(ref, run, in->m)), "rms_error_w", json_num(sqrt(se / (double)both)),
                      "band_share_max_diff_points", json_num(shares), "trace_w", "swing_w", json_num(rr.swing_w),
                      "mean_w", json_num(rr.mean_w), "bands", analysis_bands_json(rr.bands, rr.n_bands), "run_w",
                      "swing_w", json_num(mr.swing_w), "mean_w", json_num(mr.mean_w), "bands",
                      analysis_bands_json(mr.bands, mr.n_bands));
    }
    free(ref);
    free(run);
    return o;
}
