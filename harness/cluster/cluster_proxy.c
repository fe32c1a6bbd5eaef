/* harness/cluster/cluster_proxy.c: the proxy thread that carries the sim all-reduce between nodes, over the
 * duplicate communicator (cluster.c keeps the other one). Built with MPI only. */
#ifdef GAUNTLET_HAVE_MPI
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_int.h"
#include "proxytree.h"
#include "util.h"

/* ---- the proxy thread: per collective `want`, once this node's ranks have put their inputs in (`ready`), sum
 * them chunk by chunk onto the running sum that comes from the live node before (node order, then rank order: the
 * serial sum, bitwise), pass each chunk on to the next live node as soon as it is done (a pipeline), and take the
 * total from the tree rooted at the last live node, passing each chunk on to this node's children in it
 * (proxytree.h). Every message starts with the collective's id and the chunk's number: a message left over from a
 * collective abandoned by a failure is recognised and dropped (messages between two nodes arrive in order). A
 * collective the ranks have moved on from (a recovery gave them a new epoch) is abandoned. */
struct msg { uint64_t id; uint64_t chunk; float data[]; };

static int proxy_give_up(uint64_t id)
{
    return atomic_load(&cl.proxy_stop) || atomic_load(&cl.shm->hdr->xn.want) != id;
}

/* A nap of the wait's spins-th turn: doubling from 2 us to 4 ms every 32 turns, so a short wait is answered at once
 * and a long one costs few wake-ups (hundreds of supervisors may share one machine's cores); what a nap adds to a
 * wait is at most about 1/32 of what it had waited. */
static void proxy_nap(unsigned spins)
{
    sleep_ns(2000ull << (spins / 32 < 11 ? spins / 32 : 11));
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
        proxy_nap(spins);
    }
}

/* A message that arrived ahead of the collective being waited for (the peer already restarted) is kept for
 * the next receive on its tag from the same node, not lost. */
static struct msg *stash[2];
static int stashed[2], stash_src[2];
static size_t stash_cap[2];   /* its bytes: a later scenario (gauntlet accept runs several) may have larger chunks */

/* Receives chunk c (len floats) of collective id from node src into m; drops older collectives' messages. 0, or -1
 * (given up, or out of order). */
static int proxy_recv(struct msg *m, size_t bytes, size_t len, int src, int tag, uint64_t id, uint64_t c)
{
    int k = tag == TAG_CHAIN ? 0 : 1;
    if (stash_cap[k] < bytes) {   /* grown, never with a message in it: one is kept only at this size or less */
        free(stash[k]);
        stash[k] = xmalloc(bytes);
        stash_cap[k] = bytes;
        stashed[k] = 0;
    }
    if (stashed[k] && stash_src[k] == src) {
        if (stash[k]->id > id)
            return -1;   /* still ahead of what the ranks here are in */
        stashed[k] = 0;
        if (stash[k]->id == id) {
            memcpy(m, stash[k], sizeof *m + len * sizeof(float));
            return m->chunk == c ? 0 : -1;
        }
    }
    for (;;) {
        MPI_Request r;
        if (MPI_Irecv(m, (int)bytes, MPI_BYTE, src, tag, cl.xcomm, &r) != MPI_SUCCESS)
            return -1;
        int w = proxy_wait(&r, id, 1);
        if (w < 0)
            return -1;
        if (w == 1 || m->id > id) {   /* given up or the peer is ahead, yet a message came: keep a newer one */
            if (m->id > id) {
                memcpy(stash[k], m, bytes);
                stashed[k] = 1;
                stash_src[k] = src;
            }
            return -1;
        }
        if (m->id == id) {
            if (m->chunk != c)
                gl_log("cluster: node %d: the all-reduce's chunk %llu came from node %d where %llu was due", cl.node,
                       (unsigned long long)m->chunk, src, (unsigned long long)c);
            return m->chunk == c ? 0 : -1;
        }
    }
}

static int proxy_wait_flag(_Atomic uint64_t *flag, uint64_t id)
{
    for (unsigned spins = 0; atomic_load(flag) != id; spins++) {
        if (proxy_give_up(id) || shm_aborted(cl.shm))
            return -1;
        proxy_nap(spins);
    }
    return 0;
}

/* Sends still in flight, each from its own buffer (one per chunk and way: every chunk may be in flight at once). */
struct sends {
    MPI_Request *req;
    int n;
    int let_go;   /* sends given up and left to MPI: their buffers may still be read */
};

/* Sends len floats of chunk c from m to node dest. 0, or -1. */
static int proxy_send(struct sends *q, struct msg *m, size_t len, int dest, int tag)
{
    if (MPI_Isend(m, (int)(sizeof *m + len * sizeof(float)), MPI_BYTE, dest, tag, cl.xcomm, &q->req[q->n]) != MPI_SUCCESS) {
        gl_log("cluster: node %d: the all-reduce's send to node %d failed", cl.node, dest);
        return -1;
    }
    q->n++;
    return 0;
}

/* Waits for every send of q. 0, or -1 (given up: the ones left are let go). */
static int proxy_sent(struct sends *q, uint64_t id)
{
    int ok = 1;
    for (int i = 0; i < q->n; i++)
        if (ok) {
            ok = proxy_wait(&q->req[i], id, 0) == 0;
            q->let_go |= !ok;   /* given up: proxy_wait let it go */
        } else {
            MPI_Request_free(&q->req[i]);
            q->let_go = 1;
        }
    q->n = 0;
    return ok ? 0 : -1;
}

/* Chunk c of this node's sum into res: the running sum of the nodes before (in, when there are), then each active
 * rank's input in rank order. */
static void proxy_add(const struct shm_hdr *h, float *res, const float *in, size_t first, size_t len)
{
    int nactive = (int)atomic_load(&h->nactive);
    const float *slot0 = shm_slot(cl.shm, h->active[0]) + first;
    float *r = res + first;
    if (in)
        for (size_t i = 0; i < len; i++)
            r[i] = in[i] + slot0[i];
    else
        memcpy(r, slot0, len * sizeof(float));
    for (int a = 1; a < nactive; a++) {
        const float *slot = shm_slot(cl.shm, h->active[a]) + first;
        for (size_t i = 0; i < len; i++)
            r[i] += slot[i];
    }
}

/* The buffers one collective's messages go out of: a send given up may still be read by MPI, so its buffers are
 * left to it and new ones taken (a rare leak, only after a failure). */
struct proxy_bufs {
    struct msg **chain, **down;   /* per chunk: to the next node, to the children */
    struct msg *in;
    size_t chunks, bytes;
    struct sends chain_q, down_q;   /* room for every chunk's send to the next node, and to every child */
};

static void bufs_new(struct proxy_bufs *b)
{
    b->chain = xcalloc(b->chunks, sizeof *b->chain);
    b->down = xcalloc(b->chunks, sizeof *b->down);
    for (size_t c = 0; c < b->chunks; c++) {
        b->chain[c] = xmalloc(b->bytes);
        b->down[c] = xmalloc(b->bytes);
    }
    b->chain_q = (struct sends){ .req = xcalloc(b->chunks, sizeof(MPI_Request)) };
    b->down_q = (struct sends){ .req = xcalloc(b->chunks * PROXY_FANOUT, sizeof(MPI_Request)) };
}

static void bufs_free(struct proxy_bufs *b)
{
    for (size_t c = 0; c < b->chunks; c++) {
        free(b->chain[c]);
        free(b->down[c]);
    }
    free(b->chain);
    free(b->down);
    free(b->chain_q.req);
    free(b->down_q.req);
}

/* Chunk c of the total: to every child of this node. */
static int proxy_down(struct sends *q, const struct proxy_plan *p, struct msg *m, size_t len)
{
    for (int i = 0; i < p->nchildren; i++)
        if (proxy_send(q, m, len, p->children[i], TAG_RESULT) != 0)
            return -1;
    return 0;
}

/* One collective, id, of n floats. 0, or -1 (given up or failed: the buffers in flight are left to MPI). */
static int proxy_collective(struct proxy_bufs *b, uint64_t id, size_t n)
{
    struct shm_hdr *h = cl.shm->hdr;
    struct proxy_plan p;
    if (proxy_plan(h->xn.live, cl.nodes < SHM_MAX_NODES ? cl.nodes : SHM_MAX_NODES, cl.node, &p) != 0)
        return -1;
    float *res = shm_result(cl.shm);
    if (proxy_wait_flag(&h->xn.ready, id) != 0)
        return -1;
    struct sends *chain = &b->chain_q, *down = &b->down_q;
    size_t chunks = proxy_chunks(n);
    for (size_t c = 0; c < chunks; c++) {   /* the sum, in node order */
        size_t first, len;
        proxy_chunk(n, c, &first, &len);
        if (p.prev >= 0 && proxy_recv(b->in, b->bytes, len, p.prev, TAG_CHAIN, id, c) != 0)
            return proxy_sent(chain, id), proxy_sent(down, id), -1;
        proxy_add(h, res, p.prev >= 0 ? b->in->data : NULL, first, len);
        struct msg *m = p.next >= 0 ? b->chain[c] : b->down[c];
        m->id = id;
        m->chunk = c;
        memcpy(m->data, res + first, len * sizeof(float));
        if (p.next >= 0 ? proxy_send(chain, m, len, p.next, TAG_CHAIN) : proxy_down(down, &p, m, len))
            return proxy_sent(chain, id), proxy_sent(down, id), -1;
    }
    if (proxy_sent(chain, id) != 0 || proxy_sent(down, id) != 0)
        return -1;
    for (size_t c = 0; c < chunks && p.parent >= 0; c++) {   /* the total, down the tree */
        size_t first, len;
        proxy_chunk(n, c, &first, &len);
        struct msg *m = b->down[c];
        if (proxy_recv(m, b->bytes, len, p.parent, TAG_RESULT, id, c) != 0 || proxy_down(down, &p, m, len) != 0)
            return proxy_sent(down, id), -1;
        memcpy(res + first, m->data, len * sizeof(float));
    }
    return proxy_sent(down, id);
}

static void *proxy_main(void *arg)
{
    (void)arg;
    struct shm_hdr *h = cl.shm->hdr;
    uint64_t last = atomic_load(&h->xn.want);
    struct proxy_bufs b = { .chunks = proxy_chunks(h->coll_elems) };
    size_t most = h->coll_elems < PROXY_CHUNK_ELEMS ? h->coll_elems : PROXY_CHUNK_ELEMS;
    b.bytes = sizeof(struct msg) + (most ? most : 1) * sizeof(float);
    b.in = xmalloc(b.bytes);
    bufs_new(&b);
    while (!atomic_load(&cl.proxy_stop)) {
        uint32_t seen = atomic_load(&h->xn.want_seq);   /* before `want`: a bump after this look wakes the sleep */
        uint64_t id = atomic_load(&h->xn.want);
        if (id == last || shm_aborted(cl.shm)) {   /* asleep until the ranks start a collective (or a stop, 50 ms) */
            shm_seq_wait(&h->xn.want_seq, seen, 50000000);
            continue;
        }
        last = id;
        if (proxy_collective(&b, id, (size_t)h->xn.count) != 0) {
            /* a send left to MPI may still read its buffer: new ones, the old left to it (a leak, of 2 x the all-reduce
             * at most); else the same (until 2026-12-02 new ones after every failed collective, each recovery's too:
             * ~2 GiB a recovery at 1 GiB) */
            if (b.chain_q.let_go || b.down_q.let_go)
                bufs_new(&b);
            if (!proxy_give_up(id) && !shm_aborted(cl.shm)) {   /* failed, not given up: the ranks must hear it */
                gl_log("cluster: node %d: the all-reduce across nodes failed (collective %llu): its ranks fail it",
                       cl.node, (unsigned long long)id);
                atomic_store(&h->xn.out_failed, id);
                shm_seq_bump(&h->xn.out_seq);
            }
            continue;
        }
        atomic_store(&h->xn.out_ready, id);
        shm_seq_bump(&h->xn.out_seq);   /* wakes the node's ranks */
    }
    free(b.in);
    bufs_free(&b);
    return NULL;
}

int cluster_proxy_start(struct shm *shm, char *why, size_t n)
{
    if (!cl.on || cl.nodes < 2)
        return 0;
    cl.shm = shm;
    atomic_store(&cl.proxy_stop, 0);
    stashed[0] = stashed[1] = 0;   /* a message kept from an earlier scenario's collectives is none of this one's */
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
    shm_seq_bump(&cl.shm->hdr->xn.want_seq);
    pthread_join(cl.proxy, NULL);
    cl.proxy_on = 0;
}

#endif
