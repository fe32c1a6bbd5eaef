/* harness/backends/cuda/rankplan.h: what a cuda rank decides on the host alone, before any GPU call: the seeds of its
 * GEMM operands, the chain each GEMM step of workload.phases runs and the one a run's abft and gemm-output faults
 * target, and the collectives that carry the gradient exchange. No CUDA call here: tests/test_cuda_plan.c checks
 * each without a GPU. */
#ifndef GAUNTLET_RANKPLAN_H
#define GAUNTLET_RANKPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "coll.h"

#define RANKPLAN_MAX_CHAINS 32   /* distinct GEMM shapes of workload.phases */

/* The seeds of a rank's chain's operands: B (the weights) from the scenario's seed and the chain alone, the same on
 * every rank and on a spare, as in data parallelism (the fingerprint compares them across ranks); A (the
 * activations) from the rank too. chain: 0 the rank's own (workload.gemm), i + 1 the one made for step i. */
void rankplan_seeds(uint64_t seed, int rank, int chain, uint64_t *seed_a, uint64_t *seed_b);

/* The chains of workload.phases: one per distinct GEMM shape (m, n, k, dtype), chain 0 the first GEMM step's (the
 * rank's own); which[i] is GEMM step i's chain (-1 for a step of another kind), make[c] the first step of chain c's
 * shape, count[c] the most GEMMs a step of that shape runs. The number of chains, or -1 past RANKPLAN_MAX_CHAINS. */
int rankplan_chains(const struct scenario *sc, int which[SC_MAX_STEPS], int make[RANKPLAN_MAX_CHAINS],
                    int64_t count[RANKPLAN_MAX_CHAINS]);

/* The step whose chain a run's abft checks and its gemm-output faults corrupt: the first GEMM step among the steps
 * run `run` executes (its index in workload.steps), -1 where it has none. */
int rankplan_out_step(const struct scenario *sc, int run);

/* One collective of the gradient exchange: op in place over elements first .. first + count - 1 of the buffer. */
struct rankplan_coll {
    enum coll_op op;
    size_t first, count;
};

/* The collectives that carry a gradient exchange of kind (ST_ALLREDUCE or ST_REDUCE_SCATTER) over a buffer of count
 * elements among nranks, so that every rank ends with the ranks' mean of the whole buffer, as sim's all-reduce
 * leaves it: an all-reduce; for a reduce-scatter, FSDP's pair — the reduce-scatter, then the all-gather of the
 * shares — over the ranks' whole shares, and an all-reduce of the count % nranks elements after them. Into out;
 * their number (1 to 3). */
int rankplan_grad_colls(int kind, size_t count, int nranks, struct rankplan_coll out[3]);

struct mit_model;
struct plugin_spec;
struct sim_params;

/* The model of mitigation spec for a rank on a GPU whose TDP is tdp_w, read as the sim reads it: the rank's place
 * among every node's ranks (rank_offset + rank of world), so that a stagger's groups span the nodes (until
 * 2026-11-30 a cuda rank passed its local rank and ranks per node: one GPU per node put every GPU in group 0, and
 * the stagger did nothing). Into out (zeroed first). */
void rankplan_mit_model(const struct plugin_spec *spec, const struct sim_params *m, double tdp_w, int rank,
                        uint32_t rank_offset, uint32_t world, struct mit_model *out);

/* Waits until end_ns (mono_ns) in sleeps of at most step_ns, calling beat(arg) after each: 0 at end_ns, or -1 as
 * soon as beat returns nonzero (the wait given up: the run is stopping). A stagger's delay waits so, beating, as the
 * sim's does (until 2026-11-30 a plain sleep: a delay past heartbeat.timeout read as a hang, and a stop waited it
 * out). step_ns 0 is taken as 1 ms. */
int rankplan_wait_until(uint64_t end_ns, uint64_t step_ns, int (*beat)(void *), void *arg);

#define RANKPLAN_FILL_SLICE_S 1e-3   /* the filler's longest single wait on the GPU */

/* The filler's next wait in the period of one GEMM (gemm_s) at duty (0..1], after waits of queued_s already queued
 * in that period: the rest of the period's gap gemm_s (1 - duty) / duty, at most slice_s; 0 when the gap is done
 * (2 us or less left: the next GEMM is due) or the duty is none. The filler asks again at the start of each wait
 * with the duty of that moment, so a long gap at a low duty is cut short when the duty asked rises. */
double rankplan_fill_slice(double gemm_s, double duty, double queued_s, double slice_s);

#endif
