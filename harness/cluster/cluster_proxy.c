/* harness/cluster/cluster_proxy.c: the proxy thread that carries the sim all-reduce between nodes, over the
 * duplicate communicator (cluster.c keeps the other one). Built with MPI only. */
#ifdef GAUNTLET_HAVE_MPI
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_int.h"
#include "util.h"

/* ---- the proxy thread: per collective `want`, receive the running sum from the node before (node > 0),
 * wait for this node's sum, pass it on (node < last), and share the total from the last node with all.
 * Every message starts with the collective's id: a message left over from a collective abandoned by a
 * failure is recognised and dropped (messages between two nodes arrive in order). A collective the ranks
 * have moved on from (a recovery gave them a new epoch) is abandoned. */
struct msg { uint64_t id; float data[]; };

static int proxy_give_up(uint64_t id)
{
    return atomic_load(&cl.proxy_stop) || atomic_load(&cl.shm->hdr->xn.want) != id;
}

/* Waits for req. When the collective is given up, a send is let go and a receive cancelled; a receive that
 * had already matched a message cannot be cancelled and completes: 1 then, the message is in the buffer
 * (it may belong to a newer collective and must not be lost). 0 done, -1 given up or failed. */
static int proxy_wait(MPI_Request *req, uint64_t id, int cancel)
{
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        if (proxy_give_up(id)) {
            if (!cancel) {
                MPI_Request_free(req);
                return -1;
            }
            MPI_Status st;
            int cancelled = 1;
            if (MPI_Cancel(req) != MPI_SUCCESS || MPI_Wait(req, &st) != MPI_SUCCESS ||
                MPI_Test_cancelled(&st, &cancelled) != MPI_SUCCESS)
                return -1;
            return cancelled ? -1 : 1;
        }
        sleep_ns(spins < 200 ? 2000 : 50000);
    }
}

/* A message that arrived ahead of the collective being waited for (the peer already restarted) is kept for
 * the next receive on its tag, not lost. */
static struct msg *stash[2];
static int stashed[2];

/* Receives collective id's floats from node src into out; drops older collectives' messages. */
static int proxy_recv(struct msg *m, size_t bytes, float *out, int n, int src, int tag, uint64_t id)
{
    int k = tag == TAG_CHAIN ? 0 : 1;
    if (!stash[k])
        stash[k] = xmalloc(bytes);
    if (stashed[k]) {
        if (stash[k]->id > id)
            return -1;   /* still ahead of what the ranks here are in */
        stashed[k] = 0;
        if (stash[k]->id == id) {
            memcpy(out, stash[k]->data, (size_t)n * sizeof(float));
            return 0;
        }
    }
    for (;;) {
        MPI_Request r;
        if (MPI_Irecv(m, (int)bytes, MPI_BYTE, src, tag, cl.xcomm, &r) != MPI_SUCCESS)
            return -1;
        int w = proxy_wait(&r, id, 1);
        if (w < 0)
            return -1;
        if (w == 1) {   /* given up, yet a message came: keep it if it is a newer collective's */
            if (m->id > id) {
                memcpy(stash[k], m, bytes);
                stashed[k] = 1;
            }
            return -1;
        }
        if (m->id == id) {
            memcpy(out, m->data, (size_t)n * sizeof(float));
            return 0;
        }
        if (m->id > id) {   /* the peer is ahead: this collective was abandoned; keep its message */
            memcpy(stash[k], m, bytes);
            stashed[k] = 1;
            return -1;
        }
    }
}

static int proxy_wait_flag(_Atomic uint64_t *flag, uint64_t id)
{
    for (unsigned spins = 0; atomic_load(flag) != id; spins++) {
        if (proxy_give_up(id) || shm_aborted(cl.shm))
            return -1;
        sleep_ns(spins < 200 ? 2000 : 20000);
    }
    return 0;
}

/* The live nodes around this one (shrink can take a whole node out of the chain); -1 where none. */
static int live_prev(const struct shm_hdr *h, int me)
{
    for (int k = me - 1; k >= 0; k--)
        if (h->xn.live[k])
            return k;
    return -1;
}

static int live_next(const struct shm_hdr *h, int me)
{
    for (int k = me + 1; k < cl.nodes; k++)
        if (h->xn.live[k])
            return k;
    return -1;
}

static void *proxy_main(void *arg)
{
    (void)arg;
    struct shm_hdr *h = cl.shm->hdr;
    uint64_t last = atomic_load(&h->xn.want);
    int me = cl.node;
    size_t bytes = sizeof(struct msg) + h->coll_elems * sizeof(float);
    struct msg *in = xmalloc(bytes), *out = xmalloc(bytes);
    unsigned idle = 0;
    while (!atomic_load(&cl.proxy_stop)) {
        uint64_t id = atomic_load(&h->xn.want);
        if (id == last || shm_aborted(cl.shm)) {   /* short naps while collectives come fast, longer when idle */
            sleep_ns(idle++ < 500 ? 20000 : 500000);
            continue;
        }
        idle = 0;
        last = id;
        int n = (int)h->xn.count, prev = live_prev(h, me), next = live_next(h, me), last_node = me;
        for (int k = next; k >= 0; k = live_next(h, k))
            last_node = k;
        size_t len = sizeof(struct msg) + (size_t)n * sizeof(float);
        float *res = shm_result(cl.shm);
        if (prev >= 0) {
            if (proxy_recv(in, bytes, shm_incoming(cl.shm), n, prev, TAG_CHAIN, id) != 0)
                continue;
            atomic_store(&h->xn.in_ready, id);
        }
        if (proxy_wait_flag(&h->xn.ready, id) != 0)
            continue;
        out->id = id;
        memcpy(out->data, res, (size_t)n * sizeof(float));
        if (next >= 0) {
            MPI_Request r;
            if (MPI_Isend(out, (int)len, MPI_BYTE, next, TAG_CHAIN, cl.xcomm, &r) != MPI_SUCCESS) {
                gl_log("cluster: node %d: the all-reduce's send to node %d failed", me, next);
                continue;   /* the ranks wait; the heartbeat detector reports them */
            }
            if (proxy_wait(&r, id, 0) != 0) {
                out = xmalloc(bytes);   /* MPI may still read the abandoned send's buffer: it is left to it */
                continue;
            }
            if (proxy_recv(in, bytes, res, n, last_node, TAG_RESULT, id) != 0)
                continue;
        } else {   /* the last live node: the total to every other live node */
            MPI_Request rs[cl.nodes > 1 ? cl.nodes - 1 : 1];
            int nr = 0;
            int ok = 1;
            for (int k = live_prev(h, me); k >= 0 && ok; k = live_prev(h, k))
                if (MPI_Isend(out, (int)len, MPI_BYTE, k, TAG_RESULT, cl.xcomm, &rs[nr]) == MPI_SUCCESS)
                    nr++;
                else
                    ok = 0, gl_log("cluster: node %d: the all-reduce's total to node %d could not be sent", me, k);
            for (int k = 0; k < nr; k++)
                if (ok)
                    ok = proxy_wait(&rs[k], id, 0) == 0;
                else
                    MPI_Request_free(&rs[k]);
            if (!ok) {
                out = xmalloc(bytes);   /* as above */
                continue;
            }
        }
        atomic_store(&h->xn.out_ready, id);
    }
    free(in);
    free(out);
    return NULL;
}

int cluster_proxy_start(struct shm *shm, char *why, size_t n)
{
    if (!cl.on || cl.nodes < 2)
        return 0;
    cl.shm = shm;
    atomic_store(&cl.proxy_stop, 0);
    if (pthread_create(&cl.proxy, NULL, proxy_main, NULL) != 0) {
        snprintf(why, n, "cannot start the all-reduce proxy thread");
        return -1;
    }
    cl.proxy_on = 1;
    return 0;
}

void cluster_proxy_stop(void)
{
    if (!cl.proxy_on)
        return;
    atomic_store(&cl.proxy_stop, 1);
    pthread_join(cl.proxy, NULL);
    cl.proxy_on = 0;
}

#endif
