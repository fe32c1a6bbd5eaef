/* harness/backends/simcoll.c: the shared-memory all-reduce (see simcoll.h): copy in, barrier, each rank
 * reduces its chunk in rank order, barrier, copy out. */
#include "simcoll.h"

#include <string.h>

int simcoll_allreduce(struct shm *s, int rank, const float *in, float *out, size_t n, void (*beat)(void *), void *arg)
{
    int nranks = (int)s->hdr->nranks;
    if (n > s->hdr->coll_elems)
        return -1;
    memcpy(shm_slot(s, rank), in, n * sizeof(float));
    if (shm_barrier(s, beat, arg) != 0)
        return -1;
    size_t lo = n * (size_t)rank / (size_t)nranks, hi = n * (size_t)(rank + 1) / (size_t)nranks;
    float *res = shm_result(s);
    const float *slot0 = shm_slot(s, 0);
    for (size_t i = lo; i < hi; i++)
        res[i] = slot0[i];
    for (int r = 1; r < nranks; r++) {
        const float *slot = shm_slot(s, r);
        for (size_t i = lo; i < hi; i++)
            res[i] += slot[i];
    }
    if (shm_barrier(s, beat, arg) != 0)
        return -1;
    memcpy(out, res, n * sizeof(float));
    return 0;
}
