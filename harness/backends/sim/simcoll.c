/* harness/backends/sim/simcoll.c: the shared-memory all-reduce (see simcoll.h): copy in, barrier, each rank
 * reduces its chunk in rank order, barrier, copy out. Only the active ranks take part (recovery shrink).
 * Several nodes: once the inputs are in, the supervisor's proxy thread (harness/cluster/cluster_proxy.c) sums them
 * onto the running sum of the nodes before, in node and rank order, chunk by chunk along the live nodes (a
 * pipeline), and brings the last node's total back down a tree: every rank of every node gets the serial sum in
 * global rank order, bitwise. */
#include "simcoll.h"

#include <string.h>

#include "util.h"

/* Waits until *flag holds id (the proxy thread moved the data, then bumped *seq); beats meanwhile, at least every
 * 10 ms. Asleep on *seq, not napping: the proxy's bump wakes the rank at once, and hundreds of ranks waiting on one
 * machine take no cores in wake-ups. 0, or -1 on abort. */
static int simcoll_wait(struct shm *s, _Atomic uint64_t *flag, _Atomic uint32_t *seq, uint64_t id, void (*beat)(void *),
                        void *arg)
{
    for (;;) {
        uint32_t seen = atomic_load(seq);   /* before the flag: a bump after this look wakes the sleep below */
        if (atomic_load(flag) == id)
            return 0;
        /* aborted, or the cross-node sum failed (until 2026-12-02 the ranks waited for it for ever, beating) */
        if (shm_aborted(s) || (flag == &s->hdr->xn.out_ready && atomic_load(&s->hdr->xn.out_failed) == id))
            return -1;
        shm_seq_wait(seq, seen, 10000000);
        if (beat)   /* every wait: on a loaded machine a sleep can last far longer than asked */
            beat(arg);
    }
}

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
    int multi = s->hdr->nodes > 1;
    /* the collective's name, the same on every rank of every node: the run's (or recovery's) epoch, and how many
     * collectives this process has done in it — every rank restarts at the same iteration in a new epoch */
    static uint64_t epoch_seen = UINT64_MAX, count;
    uint64_t epoch = atomic_load(&s->hdr->xn.epoch);
    if (epoch != epoch_seen) {
        epoch_seen = epoch;
        count = 0;
    }
    uint64_t id = epoch << 32 | ++count;
    if (multi) {   /* the proxy thread sums the slots in node and rank order, then brings the total */
        if (pos == 0) {
            s->hdr->xn.count = n;
            atomic_store(&s->hdr->xn.want, id);
            atomic_store(&s->hdr->xn.ready, id);
            shm_seq_bump(&s->hdr->xn.want_seq);   /* wakes the proxy thread */
        }
        if (simcoll_wait(s, &s->hdr->xn.out_ready, &s->hdr->xn.out_seq, id, beat, arg) != 0)
            return -1;
        memcpy(out, shm_result(s), n * sizeof(float));
        return 0;
    }
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
