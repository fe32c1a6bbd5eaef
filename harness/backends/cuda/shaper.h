/* harness/backends/cuda/shaper.h: the software mitigations acting on a real GPU — the power floor and the ramp limits
 * (filler work between compute phases, fillwork.h, following the gap's plan of plugins/mitigations/fillplan.h, the
 * same plan the sim's model runs) and the stagger (a rank's compute phase starts later, its group drawn from its
 * place among every node's ranks, as on sim) — driven by the `struct mit_model` a mitigation fills, with this GPU's
 * TDP. They only ever add power: the compute phase always runs its GEMM chain whole, at full rate, with no gap
 * inside it.
 *
 * The levels come from this GPU, measured once per slot at start-up before any run's clock starts: idle, the
 * compute phase, and the filler at 25, 50, 75 and 100 % duty, each held 1.3 s and read over its last second from the
 * energy counter (the supervisor's readings: the difference of the counter over the time between them), or as the
 * mean of the readings where the GPU has no counter. The filler runs within the curve's rising part (fill_curve_check,
 * fill_curve_top_index: at the power limit its top flattens or falls); a floor above the filler's most is said before the run (`mitigation_tuned`: "floor 560 W unreachable: the filler reaches X W")
 * and in the summary (vs_none.floor_unreachable). While a run holds a floor, a slow correction (fill_corr: >= 1 s of
 * readings at a time) trims the level against the energy counter. */
#ifndef GAUNTLET_SHAPER_H
#define GAUNTLET_SHAPER_H

#include <cuda_runtime.h>

#include "backend.h"
#include "gemm.h"

struct shaper;

/* Prepares the shaper of one worker when a mitigation of the scenario acts on the GPU (*out NULL otherwise): the
 * filler, and the GPU's levels measured once per slot at start-up (about 8 s, through the supervisor's readings of
 * this GPU), before any run's clock starts; a replacement worker of the slot reuses them. 0, or -1 with why. */
int shaper_create(struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s, struct shaper **out, char *why, size_t n);
/* A run starts: takes the run's mitigation, says what the filler can do for it, and starts the run's first gap (the
 * rank is idle until its first compute phase). 0, or -1 with w->err. */
int shaper_begin_run(struct shaper *sh, struct worker_ctx *w);
/* Stops the filler now (before the harness's own kernels, at a run's end, in a pause). */
void shaper_stop(struct shaper *sh);
/* Before the compute phase: stops the filler (the gap's length becomes history), then waits out the rank's stagger
 * delay, beating every heartbeat.interval as the sim does. 0, or -1 when the run stopped meanwhile (the abort flag:
 * the wait is given up). */
int shaper_compute_prepare(struct shaper *sh);
/* The compute phase is done: the gap begins; the filler follows its plan (floor, held fall, prepared climb). 0 or
 * -1 with w->err. */
int shaper_after_compute(struct shaper *sh, struct worker_ctx *w);
/* workload.replay: runs the filler at the duty whose measured level is watts (0: stops it), unless *duty already is
 * that duty; *duty becomes the duty set. 0, or -1 (logged) when the filler fails. */
int shaper_replay(struct shaper *sh, double watts, float *duty);
/* The levels a replay can reach with the filler: returns idle's, *top_w the filler's at 100 % (NAN: not measured). */
double shaper_range_w(const struct shaper *sh, double *top_w);
/* Stops the filler and frees the shaper; NULL is a no-op. */
void shaper_destroy(struct shaper *sh);

#endif
