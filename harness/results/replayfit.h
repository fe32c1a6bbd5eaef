/* harness/results/replayfit.h: a replay's fidelity to its trace (docs/results.md "replay"). */
#ifndef GAUNTLET_REPLAYFIT_H
#define GAUNTLET_REPLAYFIT_H

#include <jansson.h>
#include <stddef.h>

#include "analysis.h"
#include "scenario.h"

/* The run's mean power per GPU on its sample grid, and where each pass of the trace began. */
struct replayfit_in {
    const double *per_gpu;     /* m points, dt_s apart, the first t0_s after the run began; NAN: a gap */
    size_t m;
    double dt_s, t0_s;
    const double *starts_s;    /* each iteration's (pass's) start, seconds after the run began, increasing */
    size_t n_starts;
    const struct an_band *bands;
    int nb;
    double max_shift_s;        /* the readings may trail the power by up to this (two sensor updates; 0: not at all) */
};

/* {trace, points, shift_ms (the delay the readings were compared at), correlation, rms_error_w, band_share_max_diff_points, trace_w: {swing_w, mean_w, bands},
 * run_w: {...}} over the points where a pass was under way; null when the scenario replays nothing. */
json_t *replayfit_json(const struct scenario *sc, const struct replayfit_in *in);

#endif
