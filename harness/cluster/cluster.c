/* harness/cluster/cluster.c: several nodes over MPI (see cluster.h). Two communicators: one for the supervisors'
 * telemetry and control (the main thread), a duplicate for the sim all-reduce's proxy thread, so neither
 * ever takes the other's messages. Every wait is a test loop, so a failure elsewhere never leaves a
 * supervisor stuck in MPI. */
#include "cluster.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static int launched_env(void)
{
    const char *vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS" };
    for (size_t i = 0; i < ARRAY_LEN(vars); i++)
        if (getenv(vars[i]))
            return 1;
    const char *nt = getenv("SLURM_STEP_NUM_TASKS");   /* srun: a step of several tasks */
    return getenv("SLURM_PROCID") && nt && atoi(nt) > 1;
}

int cluster_launched(void) { return launched_env(); }

#ifndef GAUNTLET_HAVE_MPI

int cluster_init(char *why, size_t n)
{
    if (launched_env()) {
        snprintf(why, n, "started by a launcher (mpirun or srun) but built without MPI: rebuild with libopenmpi-dev "
                         "installed, or run without the launcher");
        return -1;
    }
    return 0;
}
int cluster_node(void) { return 0; }
int cluster_nodes(void) { return 1; }
void cluster_fini(void) {}
int cluster_clock(int64_t *offset_ns, double *uncert_s)
{
    *offset_ns = 0;
    *uncert_s = 0;
    return 0;
}
int cluster_agree(int rc) { return rc; }
int cluster_gather_int(int x, int *out)
{
    out[0] = x;
    return 0;
}
uint64_t cluster_bcast_u64(uint64_t x) { return x; }
void cluster_bcast(void *buf, size_t n) { (void)buf, (void)n; }
void cluster_gather_double(double x, double *out) { out[0] = x; }
void cluster_forward(enum cluster_stream st, const char *line, size_t len) { (void)st, (void)line, (void)len; }
void cluster_flush(void) {}
void cluster_poll(const struct cluster_sink *sink) { (void)sink; }
void cluster_fail(const char *reason) { (void)reason; }
void cluster_send_json(int dest, int tag, json_t *o) { (void)dest, (void)tag, (void)o; }
void cluster_barrier_begin(void) {}
void cluster_stats(uint64_t *sent, uint64_t *received)
{
    *sent = *received = 0;
}
void cluster_set_send_wait(double seconds) { (void)seconds; }
void cluster_mark_lost(int node) { (void)node; }
int cluster_stalled_peer(void) { return -1; }
int cluster_barrier_test(void) { return 1; }
int cluster_proxy_start(struct shm *shm, char *why, size_t n)
{
    (void)shm, (void)why, (void)n;
    return 0;
}
void cluster_proxy_stop(void) {}

#else

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>

#include "shm.h"

enum { TAG_EVENTS = 1, TAG_POWER, TAG_FAIL, TAG_JSON, TAG_CLOCK, TAG_CHAIN, TAG_RESULT };
#define BATCH (256u << 10)   /* bytes of lines per message */
#define MAX_INFLIGHT 64

static struct {
    int on, node, nodes;
    MPI_Comm comm, xcomm;
    /* batches being filled, and sends in flight (their buffers live until done) */
    char *batch[2];
    size_t fill[2];
    struct { MPI_Request req; char *buf; } fly[MAX_INFLIGHT];
    int nfly;
    MPI_Request barrier;
    int barrier_on;
    uint64_t sent, received;   /* telemetry and control bytes on the main communicator */
    double send_wait_s;        /* the longest a send waits for a free slot (then its message is dropped) */
    uint64_t dropped;          /* messages dropped so: the peer took nothing for send_wait_s */
    int stalled_dest;          /* the last peer a message was dropped for, -1: none */
    int lost_node;             /* a node known stalled or gone (cluster_mark_lost), -1: none */
    unsigned char lost[SHM_MAX_NODES];   /* per node: marked lost; nothing is sent to it any more */
    /* the proxy thread */
    pthread_t proxy;
    int proxy_on;
    _Atomic int proxy_stop;
    struct shm *shm;
} C = { .nodes = 1, .send_wait_s = 30, .stalled_dest = -1, .lost_node = -1 };

int cluster_init(char *why, size_t n)
{
    if (!launched_env())
        return 0;
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        snprintf(why, n, "MPI_Init_thread failed");
        return -1;
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        snprintf(why, n, "the MPI library offers thread level %d, gauntlet needs MPI_THREAD_MULTIPLE", provided);
        MPI_Finalize();
        return -1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Comm_dup(MPI_COMM_WORLD, &C.comm) != MPI_SUCCESS || MPI_Comm_dup(MPI_COMM_WORLD, &C.xcomm) != MPI_SUCCESS) {
        snprintf(why, n, "MPI_Comm_dup failed");
        return -1;
    }
    MPI_Comm_rank(C.comm, &C.node);
    MPI_Comm_size(C.comm, &C.nodes);
    C.on = 1;
    for (int i = 0; i < 2; i++)
        C.batch[i] = xmalloc(BATCH);
    return 0;
}

int cluster_node(void) { return C.node; }
int cluster_nodes(void) { return C.nodes; }

static void reap_sends(int all)
{
    for (int i = 0; i < C.nfly;) {
        int done = 0;
        if (all)
            MPI_Wait(&C.fly[i].req, MPI_STATUS_IGNORE), done = 1;
        else
            MPI_Test(&C.fly[i].req, &done, MPI_STATUS_IGNORE);
        if (done) {
            free(C.fly[i].buf);
            C.fly[i] = C.fly[--C.nfly];
        } else {
            i++;
        }
    }
}

/* Sends buf (taken over) to dest without blocking; its buffer is freed once the send is done. */
static void send_owned(char *buf, size_t len, int dest, int tag)
{
    if (dest >= 0 && dest < SHM_MAX_NODES && C.lost[dest]) {   /* it would never take it */
        free(buf);
        return;
    }
    uint64_t end = mono_ns() + (uint64_t)(C.send_wait_s * 1e9);
    while (C.nfly == MAX_INFLIGHT) {   /* node 0 is behind: wait for a slot rather than drop telemetry, for a while */
        reap_sends(0);
        if (C.nfly < MAX_INFLIGHT)
            break;
        if (mono_ns() > end) {   /* it takes nothing: a stalled node; the liveness check says so */
            C.dropped++;
            C.stalled_dest = dest;
            free(buf);
            return;
        }
        sleep_ns(100000);
    }
    C.sent += len;
    if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, C.comm, &C.fly[C.nfly].req) != MPI_SUCCESS) {
        gl_log("cluster: MPI_Isend to node %d failed", dest);
        free(buf);
        return;
    }
    C.fly[C.nfly++].buf = buf;
}

static void flush_stream(int st)
{
    if (!C.fill[st])
        return;
    send_owned(C.batch[st], C.fill[st], 0, st == CL_EVENTS ? TAG_EVENTS : TAG_POWER);
    C.batch[st] = xmalloc(BATCH);
    C.fill[st] = 0;
}

void cluster_forward(enum cluster_stream st, const char *line, size_t len)
{
    if (!C.on || C.node == 0 || len > BATCH)
        return;
    if (C.fill[st] + len > BATCH)
        flush_stream(st);
    memcpy(C.batch[st] + C.fill[st], line, len);
    C.fill[st] += len;
}

void cluster_flush(void)
{
    if (!C.on)
        return;
    flush_stream(CL_EVENTS);
    flush_stream(CL_POWER);
    reap_sends(0);
}

void cluster_poll(const struct cluster_sink *sink)
{
    if (!C.on)
        return;
    reap_sends(0);
    for (;;) {
        int flag = 0, len = 0;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, C.comm, &flag, &st) != MPI_SUCCESS || !flag)
            return;
        if (st.MPI_TAG == TAG_CLOCK)
            return;   /* the clock exchange takes its own */
        MPI_Get_count(&st, MPI_BYTE, &len);
        char *buf = xmalloc((size_t)len + 1);
        MPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, C.comm, MPI_STATUS_IGNORE);
        buf[len] = 0;
        C.received += (uint64_t)len;
        if ((st.MPI_TAG == TAG_EVENTS || st.MPI_TAG == TAG_POWER) && sink->lines)
            sink->lines(sink->ctx, st.MPI_SOURCE, st.MPI_TAG == TAG_EVENTS ? CL_EVENTS : CL_POWER, buf, (size_t)len);
        else if (st.MPI_TAG == TAG_FAIL && sink->failed)
            sink->failed(sink->ctx, st.MPI_SOURCE, buf);
        else if (st.MPI_TAG == TAG_JSON && sink->json && len >= 4) {
            int32_t tag;
            memcpy(&tag, buf, 4);
            json_error_t err;
            json_t *o = json_loadb(buf + 4, (size_t)len - 4, 0, &err);
            if (o)
                sink->json(sink->ctx, st.MPI_SOURCE, tag, o);
            json_decref(o);
        }
        free(buf);
    }
}

void cluster_fail(const char *reason)
{
    if (!C.on)
        return;
    for (int k = 0; k < C.nodes; k++)
        if (k != C.node)
            send_owned(xstrdup(reason), strlen(reason) + 1, k, TAG_FAIL);
}

void cluster_send_json(int dest, int tag, json_t *o)
{
    if (!C.on || dest == C.node)
        return;
    cluster_flush();   /* the lines before it arrive first (MPI keeps the order between two ranks) */
    char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
    size_t len = text ? strlen(text) : 0;
    char *buf = xmalloc(len + 4);
    int32_t t = tag;
    memcpy(buf, &t, 4);
    memcpy(buf + 4, text, len);
    free(text);
    send_owned(buf, len + 4, dest, TAG_JSON);
}

void cluster_stats(uint64_t *sent, uint64_t *received)
{
    *sent = C.sent;
    *received = C.received;
}

void cluster_set_send_wait(double seconds) { C.send_wait_s = seconds > 0 ? seconds : 30; }

int cluster_stalled_peer(void) { return C.stalled_dest; }

void cluster_barrier_begin(void)
{
    if (!C.on)
        return;
    MPI_Ibarrier(C.comm, &C.barrier);
    C.barrier_on = 1;
}

int cluster_barrier_test(void)
{
    if (!C.on || !C.barrier_on)
        return 1;
    int done = 0;
    MPI_Test(&C.barrier, &done, MPI_STATUS_IGNORE);
    if (done)
        C.barrier_on = 0;
    return done;
}

/* Completes req, spinning (a round trip is timed) until deadline_ns; 0, or -1 (failed or too late: the
 * request is cancelled). */
static int clock_wait(MPI_Request *req, uint64_t deadline_ns)
{
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        if ((spins & 1023) == 0 && mono_ns() > deadline_ns) {
            MPI_Cancel(req);
            MPI_Wait(req, MPI_STATUS_IGNORE);
            return -1;
        }
    }
}

#define CLOCK_PINGS 16
#define CLOCK_TIMEOUT_NS (60ull * 1000000000ull)   /* a node not there by then is not coming */

int cluster_clock(int64_t *offset_ns, double *uncert_s)
{
    *offset_ns = 0;
    *uncert_s = 0;
    if (!C.on)
        return 0;
    /* node 0 answers each node in turn; a node's first ping may wait in node 0's queue (a slow trip, not
     * kept: the best of CLOCK_PINGS is). Non-blocking with a deadline: a missing node is an error, not a hang. */
    uint64_t deadline = mono_ns() + CLOCK_TIMEOUT_NS;
    MPI_Request r;
    if (C.node == 0) {
        for (int k = 1; k < C.nodes; k++)
            for (int i = 0; i < CLOCK_PINGS; i++) {
                uint64_t t;
                if (MPI_Irecv(&t, 1, MPI_UINT64_T, k, TAG_CLOCK, C.comm, &r) != MPI_SUCCESS || clock_wait(&r, deadline) != 0) {
                    gl_log("cluster: node %d did not answer the clock exchange within %llu s", k,
                           (unsigned long long)(CLOCK_TIMEOUT_NS / 1000000000ull));
                    return -1;
                }
                t = mono_ns();
                if (MPI_Isend(&t, 1, MPI_UINT64_T, k, TAG_CLOCK, C.comm, &r) != MPI_SUCCESS || clock_wait(&r, deadline) != 0)
                    return -1;
            }
        return 0;
    }
    double best = 1e30;
    for (int i = 0; i < CLOCK_PINGS; i++) {
        uint64_t t0 = mono_ns(), there;
        if (MPI_Isend(&t0, 1, MPI_UINT64_T, 0, TAG_CLOCK, C.comm, &r) != MPI_SUCCESS || clock_wait(&r, deadline) != 0 ||
            MPI_Irecv(&there, 1, MPI_UINT64_T, 0, TAG_CLOCK, C.comm, &r) != MPI_SUCCESS || clock_wait(&r, deadline) != 0) {
            gl_log("cluster: node 0 did not answer this node's clock exchange within %llu s",
                   (unsigned long long)(CLOCK_TIMEOUT_NS / 1000000000ull));
            return -1;
        }
        uint64_t t1 = mono_ns();
        double rtt = (double)(t1 - t0);
        if (rtt < best) {
            best = rtt;
            *offset_ns = (int64_t)there - (int64_t)(t0 + (t1 - t0) / 2);
        }
    }
    *uncert_s = best / 2 * 1e-9;
    return 0;
}

int cluster_agree(int rc)
{
    int worst = rc;
    if (C.on && MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, C.comm) != MPI_SUCCESS) {
        gl_log("cluster: node %d: MPI_Allreduce failed while the nodes agreed to go on", C.node);
        return rc ? rc : EXIT_ENV;
    }
    return worst;
}

int cluster_gather_int(int x, int *out)
{
    if (!C.on) {
        out[0] = x;
        return 0;
    }
    return MPI_Allgather(&x, 1, MPI_INT, out, 1, MPI_INT, C.comm) == MPI_SUCCESS ? 0 : -1;
}

uint64_t cluster_bcast_u64(uint64_t x)
{
    if (C.on)
        MPI_Bcast(&x, 1, MPI_UINT64_T, 0, C.comm);
    return x;
}

void cluster_bcast(void *buf, size_t n)
{
    if (C.on)
        MPI_Bcast(buf, (int)n, MPI_BYTE, 0, C.comm);
}

void cluster_gather_double(double x, double *out)
{
    if (C.on)
        MPI_Gather(&x, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, 0, C.comm);
    else
        out[0] = x;
}

/* ---- the proxy thread: per collective `want`, receive the running sum from the node before (node > 0),
 * wait for this node's sum, pass it on (node < last), and share the total from the last node with all.
 * Every message starts with the collective's id: a message left over from a collective abandoned by a
 * failure is recognised and dropped (messages between two nodes arrive in order). A collective the ranks
 * have moved on from (a recovery gave them a new epoch) is abandoned. */
struct msg { uint64_t id; float data[]; };

static int proxy_give_up(uint64_t id)
{
    return atomic_load(&C.proxy_stop) || atomic_load(&C.shm->hdr->xn.want) != id;
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
        if (MPI_Irecv(m, (int)bytes, MPI_BYTE, src, tag, C.xcomm, &r) != MPI_SUCCESS)
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
        if (proxy_give_up(id) || shm_aborted(C.shm))
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
    for (int k = me + 1; k < C.nodes; k++)
        if (h->xn.live[k])
            return k;
    return -1;
}

static void *proxy_main(void *arg)
{
    (void)arg;
    struct shm_hdr *h = C.shm->hdr;
    uint64_t last = atomic_load(&h->xn.want);
    int me = C.node;
    size_t bytes = sizeof(struct msg) + h->coll_elems * sizeof(float);
    struct msg *in = xmalloc(bytes), *out = xmalloc(bytes);
    unsigned idle = 0;
    while (!atomic_load(&C.proxy_stop)) {
        uint64_t id = atomic_load(&h->xn.want);
        if (id == last || shm_aborted(C.shm)) {   /* short naps while collectives come fast, longer when idle */
            sleep_ns(idle++ < 500 ? 20000 : 500000);
            continue;
        }
        idle = 0;
        last = id;
        int n = (int)h->xn.count, prev = live_prev(h, me), next = live_next(h, me), last_node = me;
        for (int k = next; k >= 0; k = live_next(h, k))
            last_node = k;
        size_t len = sizeof(struct msg) + (size_t)n * sizeof(float);
        float *res = shm_result(C.shm);
        if (prev >= 0) {
            if (proxy_recv(in, bytes, shm_incoming(C.shm), n, prev, TAG_CHAIN, id) != 0)
                continue;
            atomic_store(&h->xn.in_ready, id);
        }
        if (proxy_wait_flag(&h->xn.ready, id) != 0)
            continue;
        out->id = id;
        memcpy(out->data, res, (size_t)n * sizeof(float));
        if (next >= 0) {
            MPI_Request r;
            if (MPI_Isend(out, (int)len, MPI_BYTE, next, TAG_CHAIN, C.xcomm, &r) != MPI_SUCCESS) {
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
            MPI_Request rs[C.nodes > 1 ? C.nodes - 1 : 1];
            int nr = 0;
            int ok = 1;
            for (int k = live_prev(h, me); k >= 0 && ok; k = live_prev(h, k))
                if (MPI_Isend(out, (int)len, MPI_BYTE, k, TAG_RESULT, C.xcomm, &rs[nr]) == MPI_SUCCESS)
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
    if (!C.on || C.nodes < 2)
        return 0;
    C.shm = shm;
    atomic_store(&C.proxy_stop, 0);
    if (pthread_create(&C.proxy, NULL, proxy_main, NULL) != 0) {
        snprintf(why, n, "cannot start the all-reduce proxy thread");
        return -1;
    }
    C.proxy_on = 1;
    return 0;
}

void cluster_proxy_stop(void)
{
    if (!C.proxy_on)
        return;
    atomic_store(&C.proxy_stop, 1);
    pthread_join(C.proxy, NULL);
    C.proxy_on = 0;
}

void cluster_mark_lost(int node)
{
    C.lost_node = node;
    if (node >= 0 && node < SHM_MAX_NODES)
        C.lost[node] = 1;
    if (C.stalled_dest == node)
        C.stalled_dest = -1;
}

void cluster_fini(void)
{
    if (!C.on)
        return;
    cluster_flush();
    if (C.lost_node >= 0) {   /* a node is stalled or gone: no barrier or finalize would ever end; the launcher
                               * takes the others down when this process exits with its code */
        C.on = 0;
        return;
    }
    reap_sends(1);
    MPI_Barrier(C.comm);
    MPI_Comm_free(&C.comm);
    MPI_Comm_free(&C.xcomm);
    for (int i = 0; i < 2; i++)
        free(C.batch[i]);
    MPI_Finalize();
    C.on = 0;
}

#endif
