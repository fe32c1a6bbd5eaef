/* harness/backends/cuda/fillwork.h: filler work on a GPU — the compute phase's own kind of work (cuBLASLt bf16 GEMMs
 * of 4096^3 on random data, 0.175 ms each on an H100) at a duty, issued by a thread of its own on the
 * lowest-priority stream, so that it runs while the worker waits on a collective.
 *
 * Duty d: each GEMM (t_g) is followed by a gap of t_g (1 - d) / d (kernels/filler.h: a sleep that ends when stopped), a
 * period of t_g / d: under 2 ms for every duty above t_g / 2 ms (about 9 % on an H100), longer below. A gap is queued
 * as waits of at most 1 ms (RANKPLAN_FILL_SLICE_S, rankplan_fill_slice), the next decided as the one before it starts,
 * at the duty of that moment: a duty that rises in a long gap (a climb from near idle: 87 ms at 0.2 %) ends it within
 * two waits, so the filler's work follows the duty its plan asks to within 2 ms plus one GEMM at any duty (a rise from
 * none: within the thread's 0.2 ms look plus a launch). Where the gap is long enough to hide the thread's wake-up and a
 * launch (200 us: duties up to about 45 %), the thread waits for each GEMM before it issues the next, so a stop leaves
 * at most that GEMM in flight (0.175 ms); above, it keeps one more queued so the duty holds, and a stop may leave two
 * (0.35 ms). Either way the compute phase's stream has the highest priority, so its blocks are scheduled ahead of any
 * filler block still queued. Where a real collective runs beside it, cuBLASLt is asked to fit the GEMMs to the SMs NCCL
 * leaves (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: all but NCCL_MAX_CTAS, default 32; a target its heuristic optimises
 * for, not a hard limit).
 *
 * It follows a gap's plan (plugins/mitigations/fillplan.h) through the GPU's measured curve, with a slow correction
 * against the energy counter (fill_corr: the supervisor's readings of this GPU, at least 1 s at a time, while the
 * plan holds a constant level) and, in a gap after a compute phase, the boost learned for the gap's first part from
 * the driver's samples of the gaps before (fill_learn, fillwork_learn: the limiter's lowered clocks coming back), or
 * holds one duty (tuning, replay). */
#ifndef GAUNTLET_FILLWORK_H
#define GAUNTLET_FILLWORK_H

#include <stddef.h>
#include <stdint.h>

#include "mitigations/fillplan.h"
#include "shm.h"

#define FILLWORK_DIM 4096       /* the filler's GEMM: m = n = k, bf16 */

struct fillwork;

/* Prepares the filler on the current device: its GEMM on random data (confined to the SMs NCCL leaves when
 * beside_nccl), its stream at the lowest priority, the stop word, and its thread; c: this GPU's control block, whose
 * readings the correction uses. NULL with why. */
struct fillwork *fillwork_create(struct ctl *c, int beside_nccl, char *why, size_t n);
/* Returns the measured time of one filler GEMM (s). */
double fillwork_gemm_s(const struct fillwork *f);
/* Holds duty (0..1; 0 stops it) until told otherwise. 0, or -1 when the thread has failed (logged). */
int fillwork_hold(struct fillwork *f, double duty);
/* Follows plan from t0_ns on through curve (which passed fill_curve_check), corrected by corr and learn: the level
 * the plan asks, plus corr's offset and learn's boost of the moment (learn NULL: none), turned into a duty. corr is
 * updated while the plan holds its floor. 0 or -1. */
int fillwork_follow(struct fillwork *f, const struct fill_plan *plan, const struct fill_curve *curve,
                    struct fill_corr *corr, const struct fill_learn *learn, uint64_t t0_ns);
/* After the gap followed last ended at t_end_ns (the filler stopped): teaches l that gap from the supervisor's
 * samples of this GPU stamped inside it (ctl_read_samples; fill_learn_gap against the gap's plan, idle_w the
 * curve's idle). Returns the bins moved. */
int fillwork_learn(struct fillwork *f, struct fill_learn *l, uint64_t t_end_ns, double idle_w);
/* Stops the filler now: no further GEMM is issued and the gap in progress ends; returns at once. */
void fillwork_stop(struct fillwork *f);
/* Waits until nothing of the filler is left on the GPU (for measurements). 0 or -1. */
int fillwork_wait(struct fillwork *f);
/* Stops the thread and frees everything; NULL is a no-op. */
void fillwork_destroy(struct fillwork *f);

#endif
