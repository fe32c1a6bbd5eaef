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

/* srun started several tasks without PMI wiring (MpiDefault=none and no --mpi): MPI_Init would abort inside the
 * library ("OMPI was not built with SLURM's PMI support") with the exit code of a failed check. Says what to do. */
static int srun_without_pmi(char *why, size_t n)
{
    const char *pmi[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS" };
    const char *nt = getenv("SLURM_STEP_NUM_TASKS"), *id = getenv("SLURM_PROCID");
    if (!id || !nt || atoi(nt) < 2)
        return 0;
    for (size_t i = 0; i < ARRAY_LEN(pmi); i++)
        if (getenv(pmi[i]))
            return 0;
    snprintf(why, n, "started by srun as task %s of %s without PMI: MPI cannot join the tasks into one run; start it "
                     "with `srun --mpi=pmix ...` (or set MpiDefault=pmix in slurm.conf)", id, nt);
    return -1;
}

#ifndef GAUNTLET_HAVE_MPI

int cluster_init(char *why, size_t n)
{
    if (srun_without_pmi(why, n) != 0)
        return -1;
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
void cluster_forward(int st, const char *line, size_t len) { (void)st, (void)line, (void)len; }
void cluster_flush(void) {}
void cluster_poll(const struct cluster_sink *sink) { (void)sink; }
void cluster_fail(const char *reason) { (void)reason; }
void cluster_send_json(int dest, int tag, json_t *o) { (void)dest, (void)tag, (void)o; }
void cluster_send_json_direct(int dest, int tag, json_t *o) { (void)dest, (void)tag, (void)o; }
void cluster_set_fanout(int fanout) { (void)fanout; }
uint64_t cluster_relayed(void) { return 0; }
uint64_t cluster_records_missing(int node) { (void)node; return 0; }
void cluster_barrier_begin(void) {}
void cluster_stats(uint64_t *sent, uint64_t *received)
{
    *sent = *received = 0;
}
void cluster_set_send_wait(double seconds) { (void)seconds; }
void cluster_mark_lost(int node) { (void)node; }
int cluster_lost_node(void) { return -1; }
void cluster_no_barrier(void) {}
void cluster_new_run(void) {}
int cluster_stalled_peer(void) { return -1; }
int cluster_subtree_run_ended(void) { return 1; }
int cluster_run_no(void) { return 0; }
int cluster_barrier_test(void) { return 1; }
int cluster_proxy_start(struct shm *shm, char *why, size_t n)
{
    (void)shm, (void)why, (void)n;
    return 0;
}
void cluster_proxy_stop(void) {}

#else

#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "cluster_int.h"
#include "shm.h"

struct cluster_state cl = { .nodes = 1, .send_wait_s = 30, .stalled_dest = -1, .lost_node = -1 };

int cluster_init(char *why, size_t n)
{
    if (!launched_env())
        return 0;
    if (srun_without_pmi(why, n) != 0)
        return -1;
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
    /* three: the records (drained by cluster_poll, every tag), the proxy's data, and the set-up's agreements (a node
     * done with one scenario of a suite agrees on the next while node 0 still polls the records: on the records'
     * communicator its message was taken and dropped, and the suite ended at its second scenario) */
    if (MPI_Comm_dup(MPI_COMM_WORLD, &cl.comm) != MPI_SUCCESS || MPI_Comm_dup(MPI_COMM_WORLD, &cl.xcomm) != MPI_SUCCESS ||
        MPI_Comm_dup(MPI_COMM_WORLD, &cl.scomm) != MPI_SUCCESS) {
        snprintf(why, n, "MPI_Comm_dup failed");
        return -1;
    }
    MPI_Comm_rank(cl.comm, &cl.node);
    MPI_Comm_size(cl.comm, &cl.nodes);
    cl.on = 1;
    cl.fly = xcalloc((size_t)MAX_INFLIGHT(cl.nodes), sizeof *cl.fly);
    up_init();
    if (cl.nodes > 1)
        cluster_same_build();   /* before any other message: a node built otherwise ends the job, saying so */
    return 0;
}

int cluster_node(void) { return cl.node; }
int cluster_nodes(void) { return cl.nodes; }

/* Frees the sends that are done (all: waits for every one). A send up the tree that a relay has not taken for
 * send_wait_s (the heartbeat timeout) marks that relay stalled, for the liveness check to go around it: judged here,
 * never by holding this node's loop in a wait (until 2026-11-30 only a send that waited that long for a free slot
 * did, and a node whose relay took nothing of its own sat that long without beating: node 0 lost it instead). */
void reap_sends(int all)
{
    uint64_t now = mono_ns(), wait = (uint64_t)(cl.send_wait_s * 1e9);
    for (int i = 0; i < cl.nfly;) {
        int done = 0;
        if (all)
            MPI_Wait(&cl.fly[i].req, MPI_STATUS_IGNORE), done = 1;
        else
            MPI_Test(&cl.fly[i].req, &done, MPI_STATUS_IGNORE);
        if (done) {
            free(cl.fly[i].buf);
            cl.fly[i] = cl.fly[--cl.nfly];
        } else {
            if (cl.node != 0 && cl.fly[i].dest > 0 && now - cl.fly[i].t_ns > wait)   /* another node sends only
                                                                                        * node 0 and its relay */
                cl.stalled_dest = cl.fly[i].dest;
            i++;
        }
    }
}

/* Whether this node (not node 0) holds half the send slots for its relay dest: one that far behind is not waited
 * for; the slots left keep its messages to node 0 (the heartbeats) going. */
static int relay_behind(int dest)
{
    if (cl.node == 0 || dest <= 0)
        return 0;
    int n = 0;
    for (int i = 0; i < cl.nfly; i++)
        n += cl.fly[i].dest == dest;
    return n >= MAX_INFLIGHT(cl.nodes) / 2;
}

/* Sends buf (taken over) to dest without blocking; its buffer is freed once the send is done. */
void send_owned(char *buf, size_t len, int dest, int tag)
{
    if (dest >= 0 && dest < SHM_MAX_NODES && cl.lost[dest]) {   /* it would never take it */
        free(buf);
        return;
    }
    if (relay_behind(dest) && (reap_sends(0), relay_behind(dest))) {   /* dropped: reap_sends judges the relay */
        cl.dropped++;
        free(buf);
        return;
    }
    uint64_t end = mono_ns() + (uint64_t)(cl.send_wait_s * 1e9);
    while (cl.nfly == MAX_INFLIGHT(cl.nodes)) {   /* the peer is behind: wait for a slot rather than drop, a while */
        reap_sends(0);
        if (cl.nfly < MAX_INFLIGHT(cl.nodes))
            break;
        if (mono_ns() > end) {   /* it takes nothing: a stalled node; the liveness check says so */
            cl.dropped++;
            cl.stalled_dest = dest;
            free(buf);
            return;
        }
        sleep_ns(100000);
    }
    cl.sent += len;
    if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, cl.comm, &cl.fly[cl.nfly].req) != MPI_SUCCESS) {
        gl_log("cluster: MPI_Isend to node %d failed", dest);
        free(buf);
        return;
    }
    cl.fly[cl.nfly].dest = dest;
    cl.fly[cl.nfly].t_ns = mono_ns();
    cl.fly[cl.nfly++].buf = buf;
}

void cluster_forward(int st, const char *line, size_t len)
{
    if (!cl.on || cl.node == 0 || len > BATCH)
        return;
    up_line(st, line, len);
}

void cluster_flush(void)
{
    if (!cl.on)
        return;
    up_flush();
    reap_sends(0);
}

void cluster_poll(const struct cluster_sink *sink)
{
    if (!cl.on)
        return;
    reap_sends(0);
    /* at most 50 ms of messages a call: node 0 beats, checks its workers and sends between them, however fast the
     * nodes' records come (until 2026-12-02 a flood on 2 busy cores held it here, beatless) */
    uint64_t until = mono_ns() + 50000000ull;
    for (unsigned taken = 0; !(taken && mono_ns() > until); taken++) {
        int flag = 0, len = 0;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, cl.comm, &flag, &st) != MPI_SUCCESS || !flag)
            return;
        if (st.MPI_TAG == TAG_CLOCK)
            return;   /* the clock exchange takes its own */
        if (MPI_Get_count(&st, MPI_BYTE, &len) != MPI_SUCCESS || len < 0) {
            gl_log("cluster: node %d: a message from node %d of no size MPI can say: not read", cl.node, st.MPI_SOURCE);
            return;
        }
        char *buf = xmalloc((size_t)len + 1);
        if (MPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, cl.comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            gl_log("cluster: node %d: a message of %d bytes from node %d could not be received", cl.node, len,
                   st.MPI_SOURCE);
            free(buf);
            return;
        }
        buf[len] = 0;
        cl.received += (uint64_t)len;
        if (st.MPI_TAG == TAG_UP)
            up_take(buf, (size_t)len, sink);
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
    if (!cl.on)
        return;
    for (int k = 0; k < cl.nodes; k++)
        if (k != cl.node)
            send_owned(xstrdup(reason), strlen(reason) + 1, k, TAG_FAIL);
}

/* To node 0 from another node: a record up the tree, after this node's lines (up_json); else straight to dest. */
static void send_json(int dest, int tag, json_t *o, int direct)
{
    if (!cl.on || dest == cl.node)
        return;
    char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
    size_t len = text ? strlen(text) : 0;
    if (dest == 0 && !direct) {
        up_json(tag, text ? text : "", len);
        free(text);
        return;
    }
    char *buf = xmalloc(len + 4);
    int32_t t = tag;
    memcpy(buf, &t, 4);
    memcpy(buf + 4, text, len);
    free(text);
    send_owned(buf, len + 4, dest, TAG_JSON);
}

void cluster_send_json(int dest, int tag, json_t *o) { send_json(dest, tag, o, 0); }
void cluster_send_json_direct(int dest, int tag, json_t *o) { send_json(dest, tag, o, 1); }

void cluster_set_fanout(int fanout)
{
    cl.fanout = fanout >= 2 ? fanout : CLUSTER_FANOUT;
    cl.up_to = up_parent(cl.node, cl.fanout, cl.lost);   /* before anything went up */
}
uint64_t cluster_relayed(void) { return cl.relayed; }
uint64_t cluster_records_missing(int node) { return up_missing(node); }

void cluster_stats(uint64_t *sent, uint64_t *received)
{
    *sent = cl.sent;
    *received = cl.received;
}

void cluster_set_send_wait(double seconds) { cl.send_wait_s = seconds > 0 ? seconds : 30; }

int cluster_stalled_peer(void) { return cl.stalled_dest; }

void cluster_barrier_begin(void)
{
    if (!cl.on)
        return;
    cl.barrier_on = MPI_Ibarrier(cl.comm, &cl.barrier) == MPI_SUCCESS;
    if (!cl.barrier_on)   /* none to wait for: the leave goes on as after it */
        gl_log("cluster: node %d: MPI_Ibarrier failed: leaving without waiting for the other nodes", cl.node);
}

int cluster_barrier_test(void)
{
    if (!cl.on || !cl.barrier_on)
        return 1;
    int done = 0;
    if (MPI_Test(&cl.barrier, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        gl_log("cluster: node %d: the leave's barrier failed: leaving without it", cl.node);
        done = 1;
    }
    if (done)
        cl.barrier_on = 0;
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
        if (spins >= 4096)
            sched_yield();   /* not there within the first spins: a machine with more supervisors than cores, where
                              * spinning takes the core from the node that is to answer */
        if ((spins & 1023) == 0 && mono_ns() > deadline_ns) {
            MPI_Cancel(req);
            MPI_Wait(req, MPI_STATUS_IGNORE);
            return -1;
        }
    }
}

#define CLOCK_PINGS 16
#define CLOCK_TIMEOUT_NS (60ull * 1000000000ull)   /* a wait of the exchange not over by then: the node is not coming */

/* Answers CLOCK_PINGS pings of node k (the parent's side of one exchange). 0, or -1 when k is silent. */
static int clock_serve(int k, uint64_t deadline)
{
    MPI_Request r;
    for (int i = 0; i < CLOCK_PINGS; i++) {
        uint64_t t;
        if (MPI_Irecv(&t, 1, MPI_UINT64_T, k, TAG_CLOCK, cl.comm, &r) != MPI_SUCCESS || clock_wait(&r, deadline) != 0) {
            gl_log("cluster: node %d did not answer the clock exchange within %llu s", k,
                   (unsigned long long)(CLOCK_TIMEOUT_NS / 1000000000ull));
            return -1;
        }
        t = mono_ns();
        if (MPI_Isend(&t, 1, MPI_UINT64_T, k, TAG_CLOCK, cl.comm, &r) != MPI_SUCCESS || clock_wait(&r, deadline) != 0)
            return -1;
    }
    return 0;
}

/* Pings node p CLOCK_PINGS times (the child's side): p's clock minus this one's at the middle of the shortest
 * trip, and half that trip. 0, or -1 when p is silent. */
static int clock_ping(int p, uint64_t deadline, int64_t *offset_ns, double *uncert_s)
{
    MPI_Request r;
    double best = 1e30;
    for (int i = 0; i < CLOCK_PINGS; i++) {
        uint64_t t0 = mono_ns(), there;
        if (MPI_Isend(&t0, 1, MPI_UINT64_T, p, TAG_CLOCK, cl.comm, &r) != MPI_SUCCESS || clock_wait(&r, deadline) != 0 ||
            MPI_Irecv(&there, 1, MPI_UINT64_T, p, TAG_CLOCK, cl.comm, &r) != MPI_SUCCESS || clock_wait(&r, deadline) != 0) {
            gl_log("cluster: node %d did not answer this node's clock exchange within %llu s", p,
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

int cluster_clock(int64_t *offset_ns, double *uncert_s)
{
    *offset_ns = 0;
    *uncert_s = 0;
    if (!cl.on)
        return 0;
    /* the agreement after it waits at least as long as the exchange may take on the node farthest down the tree (a
     * wait per level, each bounded): those nodes are still measuring, not stalled (cluster_setup.c) */
    cl.setup_extra_s = (double)CLOCK_TIMEOUT_NS * 1e-9 * (up_depth(cl.nodes - 1, cl.fanout) + 1);
    /* Along the gather tree (fan-out cl.fanout, nothing lost yet), not every node against node 0 in turn (511 x 16
     * trips one after another did not fit in 60 s with 512 supervisors on one machine): a node answers each of its
     * children's pings, then pings its parent; then the offsets go down the tree, each node's to node 0 its
     * parent's plus its own to the parent, the uncertainties added along the path. Every wait has a deadline: a
     * missing node is an error, not a hang. */
    int parent = up_parent(cl.node, cl.fanout, NULL);
    long first = (long)cl.node * cl.fanout + 1, last = first + cl.fanout - 1 < cl.nodes - 1 ? first + cl.fanout - 1 : cl.nodes - 1;
    for (long k = first; k <= last; k++)
        if (clock_serve((int)k, mono_ns() + CLOCK_TIMEOUT_NS) != 0)
            return -1;
    double up[2] = { 0, 0 }, down[2] = { 0, 0 };   /* to the parent, and the parent's to node 0: ns, s */
    MPI_Request r;
    if (parent >= 0) {
        int64_t off = 0;
        if (clock_ping(parent, mono_ns() + CLOCK_TIMEOUT_NS, &off, &up[1]) != 0)
            return -1;
        up[0] = (double)off;
        /* the parent's own exchange goes up the tree first: a wait per level above it */
        uint64_t wait = CLOCK_TIMEOUT_NS * (uint64_t)up_depth(cl.node, cl.fanout);
        if (MPI_Irecv(down, 2, MPI_DOUBLE, parent, TAG_CLOCK, cl.comm, &r) != MPI_SUCCESS || clock_wait(&r, mono_ns() + wait) != 0) {
            gl_log("cluster: node %d did not pass node 0's clock down in time", parent);
            return -1;
        }
    }
    double mine[2] = { down[0] + up[0], down[1] + up[1] };
    for (long k = first; k <= last; k++)
        if (MPI_Isend(mine, 2, MPI_DOUBLE, (int)k, TAG_CLOCK, cl.comm, &r) != MPI_SUCCESS ||
            clock_wait(&r, mono_ns() + CLOCK_TIMEOUT_NS) != 0)
            return -1;
    *offset_ns = (int64_t)llround(mine[0]);
    *uncert_s = mine[1];
    return 0;
}

void cluster_mark_lost(int node)
{
    cl.lost_node = node;
    if (node >= 0 && node < SHM_MAX_NODES && !cl.lost[node])
        for (int k = cl.node; k > 0;) {   /* on this node's path to node 0: what it held of ours goes again */
            k = (k - 1) / (cl.fanout >= 2 ? cl.fanout : 2);
            if (k == node && k > 0)
                cl.resend = 1;
        }
    if (node >= 0 && node < SHM_MAX_NODES)
        cl.lost[node] = 1;
    for (int i = 0; i < cl.nfly;)   /* sends it will never take: their slots go to the others (MPI keeps the buffers) */
        if (cl.fly[i].dest == node) {
            MPI_Request_free(&cl.fly[i].req);
            cl.fly[i] = cl.fly[--cl.nfly];
        } else {
            i++;
        }
    if (cl.stalled_dest == node)
        cl.stalled_dest = -1;
}

int cluster_lost_node(void) { return cl.on ? cl.lost_node : -1; }

void cluster_no_barrier(void)
{
    if (cl.on && cl.node == 0)
        cl.bye = 1;   /* cluster_fini: bye to every node not lost, no barrier */
    else if (cl.on)
        cl.no_barrier = 1;   /* cluster_fini: waits for that bye, no barrier */
}

int cluster_run_no(void) { return cl.run_no; }

void cluster_new_run(void)
{
    if (!cl.on)
        return;
    memset(cl.lost, 0, sizeof cl.lost);
    cl.lost_node = -1;
    cl.stalled_dest = -1;
    cl.bye = cl.no_barrier = 0;
    cl.run_no++;
    if (cl.run_ended)
        memset(cl.run_ended, 0, (size_t)cl.nodes);
    cl.up_to = up_parent(cl.node, cl.fanout, cl.lost);
}

void cluster_fini(void)
{
    if (!cl.on)
        return;
    up_leave();   /* a relay stays until the nodes below it have left */
    cluster_flush();
    /* a node is stalled or gone (node 0's bye says it knows of one, or a node went around its relay): no barrier or
     * finalize would ever end; the launcher takes the others down when this process exits with its code */
    if (cl.lost_node >= 0 || cl.bye || cl.no_barrier) {
        up_leave_lost();
        cl.on = 0;
        return;
    }
    reap_sends(1);
    MPI_Barrier(cl.comm);
    MPI_Comm_free(&cl.comm);
    MPI_Comm_free(&cl.xcomm);
    MPI_Comm_free(&cl.scomm);
    up_free();
    MPI_Finalize();
    cl.on = 0;
}

#endif
