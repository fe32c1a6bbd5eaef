/* harness/backends/sim/simcoll.h: the sim backend's all-reduce: real fp32 data summed across worker processes
 * over the shared control block. Each element is summed in rank order 0..n-1, so every rank gets the
 * bitwise-same result, equal to a serial sum in that order. */
#ifndef GAUNTLET_SIMCOLL_H
#define GAUNTLET_SIMCOLL_H

#include <stddef.h>

#include "shm.h"

/* Sums n floats of in across all ranks into out (in may equal out); n <= the block's coll_elems.
 * Calls beat(arg) while waiting for peers. 0, or -1 when the run was aborted. */
int simcoll_allreduce(struct shm *s, int rank, const float *in, float *out, size_t n, void (*beat)(void *), void *arg);

#endif
