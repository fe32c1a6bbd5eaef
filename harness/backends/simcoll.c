/* harness/backends/simcoll.c: the shared-memory all-reduce (see simcoll.h): copy in, barrier, each rank
 * reduces its chunk in rank order, barrier, copy out. Only the active ranks take part (recovery shrink). */
#include "simcoll.h"

#include <string.h>

int simcoll_allreduce(struct shm *s, int rank, const float *in, float *out, size_t n, void (*beat)(void *), void *arg)
{
    int nactive = (int)atomic_load(&s->hdr->nactive), pos = -1;
    if (n > s->hdr->coll_elems)
        return -1;
    for (int i = 0; i < nactive; i++)   /* this rank's place among those taking part (shrink removes some) */
        if (s->hdr->active[i] == rank)
            pos = i;
    if (pos < 0)
        return -1;
    memcpy(shm_slot(s, rank), in, n * sizeof(float));
    if (shm_barrier(s, beat, arg) != 0)
        return -1;
    size_t lo = n * (size_t)pos / (size_t)nactive, hi = n * (size_t)(pos + 1) / (size_t)nactive;
    float *res = shm_result(s);
    const float *slot0 = shm_slot(s, s->hdr->active[0]);
    for (size_t i = lo; i < hi; i++)
        res[i] = slot0[i];
    for (int r = 1; r < nactive; r++) {
        const float *slot = shm_slot(s, s->hdr->active[r]);
        for (size_t i = lo; i < hi; i++)
            res[i] += slot[i];
    }
    if (shm_barrier(s, beat, arg) != 0)
        return -1;
    memcpy(out, res, n * sizeof(float));
    return 0;
}
