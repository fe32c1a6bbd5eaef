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

#endif
