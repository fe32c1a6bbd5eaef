/* harness/backends/cuda/shaper.h: the software mitigations acting on a real GPU — the power floor (filler work during
 * communication, checkpoints and idle gaps), the ramp limits (the GEMM chain released gradually going into
 * compute, the filler fading out going into communication) and the stagger (a rank's compute phase starts
 * later) — driven by the same `struct mit_model` a mitigation fills for the sim, with this GPU's TDP.
 *
 * The harness knows when each phase starts, so it acts ahead of the power telemetry (which lags 1-100 ms):
 * the filler starts the moment the GEMM chain is done and stops the moment the next one is issued. Its duty is
 * set from levels measured at start-up against the supervisor's power readings of this GPU (idle, the compute
 * phase, the filler at four duties); each run's choice is an event (`mitigation_tuned`). */
#ifndef GAUNTLET_SHAPER_H
#define GAUNTLET_SHAPER_H

#include <cuda_runtime.h>

#include "backend.h"
#include "gemm.h"

struct shaper;

/* Prepares the shaper of one worker when a mitigation of the scenario acts on the GPU (*out NULL otherwise):
 * the filler's stream, and the GPU's levels measured once per slot at start-up (about 3 s: one GEMM's time,
 * the compute level, idle, the filler at four duties, through the supervisor's readings of this GPU), before
 * any run's clock starts; a replacement worker of the slot reuses them. 0, or -1 with why. */
int shaper_create(struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s, struct shaper **out, char *why, size_t n);
/* A run starts: takes the run's mitigation and stops any filler left from the run before. 0, or -1 with w->err. */
int shaper_begin_run(struct shaper *sh, struct worker_ctx *w);
/* Stops the filler now (before the harness's own kernels, at a run's end, in a pause). */
void shaper_stop(struct shaper *sh);
/* Before the compute phase: stops the filler, then waits out the rank's stagger delay. 0 or -1. */
int shaper_compute_prepare(struct shaper *sh);
/* Issues the compute phase's GEMM chain on s, released gradually while a ramp-up limit holds: from the
 * floor's level to the full rate. 0, or -1 (logged). */
int shaper_compute(struct shaper *sh, struct gemm_chain *g, cudaStream_t s);
/* The compute phase is done: starts the filler for the floor, or its fade for a ramp-down limit. 0 or -1. */
int shaper_after_compute(struct shaper *sh);
/* workload.replay: runs the filler at the duty whose measured level is watts (0: stops it), unless *duty already
 * is that duty and the filler runs; *duty becomes the duty set. 0, or -1 (logged) when the filler fails. */
int shaper_replay(struct shaper *sh, double watts, float *duty);
/* The levels a replay can reach with the filler: returns idle's, *top_w the filler's at 100 % (NAN: not measured). */
double shaper_range_w(const struct shaper *sh, double *top_w);
/* Stops the filler and frees the shaper; NULL is a no-op. */
void shaper_destroy(struct shaper *sh);

#endif
