/* harness/cluster/cluster_setup.c: what the nodes agree on while they set up (see cluster.h): every node's worst exit
 * code, node 0's values, a figure of each. No wait here is without end: each is a test loop with a deadline (the
 * set-up wait) that reads the signals meanwhile. A node that does not come in time, or a signal, ends the job from
 * here, saying which step and which nodes: MPI_Abort, so the launcher takes every node down (a node stalled in its
 * set-up would otherwise hold every other node forever, deaf to SIGTERM: its signals are read only by the run's
 * loop). docs/cluster.md, "All start or none does". */
#include "cluster.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shm.h"
#include "util.h"

#ifndef GAUNTLET_HAVE_MPI

size_t cluster_agree_bytes(void) { return 0; }
void cluster_set_setup_wait(double seconds) { (void)seconds; }
void cluster_set_signals_end(int on) { (void)on; }
void cluster_set_agree_grace(int on, int (*stopped)(void)) { (void)on, (void)stopped; }
void cluster_set_late_lost(int on) { (void)on; }
int cluster_lost_late(int node)
{
    (void)node;
    return 0;
}
int cluster_lost_agreed(void) { return -1; }
int cluster_agree(int rc, const char *step)
{
    (void)step;
    return rc;
}
int cluster_agree_note(int rc, const char *note, const char *step, char *first, size_t n)
{
    (void)note, (void)step;
    if (n)
        first[0] = 0;
    return rc;
}
int cluster_agree_values(int rc, const double *mine, int nv, double *all, const char *step)
{
    (void)step;
    for (int i = 0; i < nv; i++)
        all[i] = mine[i];
    return rc;
}
int cluster_gather_int(int x, int *out, const char *step)
{
    (void)step;
    out[0] = x;
    return 0;
}
uint64_t cluster_bcast_u64(uint64_t x, const char *step)
{
    (void)step;
    return x;
}
void cluster_bcast(void *buf, size_t n, const char *step) { (void)buf, (void)n, (void)step; }

#else

#include <mpi.h>
#include <sched.h>

#include "cluster_int.h"

#define SETUP_WAIT_DEFAULT_S 130.0   /* heartbeat.startup + heartbeat.timeout at their defaults */
#define NOTE_MAX 248
#define AGREE_VALS 2   /* the figures one node's word carries at most (cluster_agree_values) */
/* node 0, a stop signal pending while it waits in an agreement the caller reads the signals after: how long it still
 * waits for the nodes missing before it takes them for lost (the launcher is ending the job: Open MPI kills 1 s after
 * its SIGTERM, and a node it killed never comes) */
#define AGREE_SIGNAL_GRACE_NS 300000000ull

static double setup_wait_s = SETUP_WAIT_DEFAULT_S;
static int signals_end = 1;   /* a stop signal pending during a wait ends the job (cluster_set_signals_end) */
static int agree_grace;       /* node 0: a stop signal cuts its wait for the nodes missing (cluster_set_agree_grace) */
static int (*agree_stopped)(void);   /* the caller's own record of a stop signal it has read, or NULL */
static int agreed_lost = -1;  /* the node node 0 said lost at the last agreement (node 0: its own), -1: none */
static int late_lost_on;      /* node 0: a node that does not come within the wait is taken for lost, not the job ended */
static unsigned char lost_late[SHM_MAX_NODES];   /* node 0: taken for lost at the last agreement, not there in time */
static int32_t agree_seq;   /* the agreements so far: a message of another is never taken for this one's */

/* One node's word to node 0 in an agreement. */
struct agree_msg {
    int32_t seq, rc;
    double val[AGREE_VALS];   /* its figures (cluster_agree_values) */
    char note[NOTE_MAX];
};

size_t cluster_agree_bytes(void) { return sizeof(struct agree_msg); }
void cluster_set_setup_wait(double seconds) { setup_wait_s = seconds > 0 ? seconds : SETUP_WAIT_DEFAULT_S; }
void cluster_set_signals_end(int on) { signals_end = on; }
void cluster_set_agree_grace(int on, int (*stopped)(void))
{
    agree_grace = on;
    agree_stopped = stopped;
}
void cluster_set_late_lost(int on) { late_lost_on = on; }
int cluster_lost_late(int node) { return cl.on && node >= 0 && node < SHM_MAX_NODES && lost_late[node]; }
int cluster_lost_agreed(void) { return cl.on ? agreed_lost : -1; }

/* The bound of the next wait (seconds): the set-up wait, or the clock exchange's own where it is longer (cluster_clock
 * leaves it for the agreement after it: a node far down the tree may still be in its exchange, itself bounded). */
static double setup_bound_s(void)
{
    return cl.setup_extra_s > setup_wait_s ? cl.setup_extra_s : setup_wait_s;
}

/* Ends the job: says why (already said by the caller), then MPI_Abort with code so that the launcher stops every
 * node. Never returns. */
static void setup_abort(int code)
{
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);   /* MPI_Abort does not return; should it, this node still goes */
}

/* The name of a SIGINT, SIGTERM or SIGHUP waiting (the supervisor blocks them until its loop reads them), or NULL. */
static const char *stop_pending(void)
{
    sigset_t pend;
    if (sigpending(&pend) != 0)
        return NULL;
    static const struct { int sig; const char *name; } sigs[] = { { SIGTERM, "SIGTERM" }, { SIGINT, "SIGINT" },
                                                                  { SIGHUP, "SIGHUP" } };
    for (size_t i = 0; i < ARRAY_LEN(sigs); i++)
        if (sigismember(&pend, sigs[i].sig) == 1)
            return sigs[i].name;
    int sig = agree_grace && agree_stopped ? agree_stopped() : 0;   /* one the run already read (its signalfd) */
    return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : NULL;
}

/* A stop signal waiting: the set-up ends. */
static void setup_signal_check(const char *step)
{
    const char *sig = stop_pending();
    if (!sig)
        return;
    gl_log("node %d: stopped by %s during the set-up (at step '%s', before any run): the job ends (exit 1)", cl.node,
           sig, step);
    setup_abort(EXIT_CHECK);
}

/* Naps between tests of a request: short at first (an answer is usually there in microseconds), then 1 ms, so that
 * hundreds of supervisors sharing a machine's cores leave them to the nodes still setting up. */
static void setup_nap(unsigned spins)
{
    if (spins < 64)
        sched_yield();
    else
        sleep_ns(spins < 256 ? 20000 : 1000000);
}

/* Completes n requests until deadline_ns, reading the signals meanwhile; done[i] says which completed. 0, or -1 at
 * the deadline (the rest left pending: the caller ends the job) or when MPI fails. grace: where the caller reads the
 * signals (cluster_set_signals_end(0)), one pending brings the deadline to AGREE_SIGNAL_GRACE_NS from when it is
 * seen. */
static int setup_wait(MPI_Request *req, int n, unsigned char *done, uint64_t deadline_ns, const char *step, int grace)
{
    int left = 0;
    for (int i = 0; i < n; i++)
        left += !done[i];
    for (unsigned spins = 0; left; spins++) {
        for (int i = 0; i < n; i++) {
            int flag = 0;
            if (done[i])
                continue;
            if (MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return -1;
            if (flag)
                done[i] = 1, left--;
        }
        if (!left)
            break;
        if (signals_end)
            setup_signal_check(step);
        else if (grace && agree_grace && stop_pending()) {
            uint64_t soon = mono_ns() + AGREE_SIGNAL_GRACE_NS;
            deadline_ns = soon < deadline_ns ? soon : deadline_ns;
            grace = 0;
        }
        if (mono_ns() > deadline_ns)
            return -1;
        setup_nap(spins);
    }
    return 0;
}

/* Node 0: the nodes that did not come (done[k] 0 for k >= 1) listed into buf ("1, 5, 9 and 3 more"). */
static void setup_missing(const unsigned char *done, char *buf, size_t n)
{
    size_t at = 0;
    int listed = 0, more = 0;
    buf[0] = 0;
    for (int k = 1; k < cl.nodes; k++) {
        if (done[k])
            continue;
        if (listed < 16 && at + 16 < n) {
            at += (size_t)snprintf(buf + at, n - at, "%s%d", listed ? ", " : "", k);
            listed++;
        } else {
            more++;
        }
    }
    if (more)
        snprintf(buf + at, n - at, " and %d more", more);
}

/* Whether node k is one this node took for lost (cluster_mark_lost). */
static int agree_lost(int k) { return k < SHM_MAX_NODES && cl.lost[k]; }

/* Node 0, a stop signal pending where the caller reads the signals (gauntlet accept): the nodes whose word did not come
 * within AGREE_SIGNAL_GRACE_NS of it are taken for lost, as the run takes a node whose end record did not come when
 * stopped by a signal (the launcher is ending the job; a node it killed would hold node 0 until the launcher's SIGKILL,
 * no verdict written). Their receives are withdrawn; one that came meanwhile counts. */
static void agree_lose_missing(MPI_Request *req, unsigned char *done, const char *step, double late_s)
{
    char who[256];
    setup_missing(done, who, sizeof who);
    if (late_s > 0)   /* cluster_set_late_lost: no signal, the wait's bound passed */
        gl_log("node 0: node(s) %s did not reach step '%s' within %g s: taken for lost (stalled, or held by its file "
               "system or device)", who, step, late_s);
    else
        gl_log("node 0: %s pending, and node(s) %s did not reach step '%s' within %.1f s of it: taken for lost (the "
               "launcher is ending the job)", stop_pending(), who, step, (double)AGREE_SIGNAL_GRACE_NS * 1e-9);
    for (int k = 1; k < cl.nodes; k++) {
        if (done[k])
            continue;
        MPI_Status st;
        int cancelled = 1;
        if (MPI_Cancel(&req[k]) != MPI_SUCCESS || MPI_Wait(&req[k], &st) != MPI_SUCCESS ||
            MPI_Test_cancelled(&st, &cancelled) != MPI_SUCCESS) {   /* a receive still open would write into freed
                                                                     * memory once node k's word came */
            gl_log("node 0: MPI could not withdraw the receive from node %d at set-up step '%s': the job ends (exit 3)",
                   k, step);
            setup_abort(EXIT_ENV);
        }
        if (cancelled) {   /* else its word came meanwhile, and counts */
            cluster_mark_lost(k);
            if (k < SHM_MAX_NODES && late_s > 0)
                lost_late[k] = 1;
        }
        done[k] = 1;
    }
}

/* Node 0's side of an agreement: every node's word, then the worst code to each (and a node it took for lost, or -1).
 * A node lost is left out: it may be stopped or gone, and nothing is sent to it any more (gauntlet accept's
 * agreements after a run that lost one). vals (nv per node, NAN for a node lost): the figures each node's word
 * carries. */
static int agree_root(struct agree_msg *mine, const char *step, char *first, size_t n, double *vals, int nv)
{
    int nodes = cl.nodes;
    struct agree_msg *in = xcalloc((size_t)nodes, sizeof *in);
    MPI_Request *req = xcalloc((size_t)nodes, sizeof *req);
    unsigned char *done = xcalloc((size_t)nodes, 1);
    double bound = setup_bound_s();
    done[0] = 1;
    req[0] = MPI_REQUEST_NULL;
    for (int k = 1; k < nodes; k++) {
        in[k].seq = mine->seq;   /* a node lost says nothing and is told nothing: its word is not waited for */
        if (agree_lost(k))
            done[k] = 1, req[k] = MPI_REQUEST_NULL;
        else if (MPI_Irecv(&in[k], (int)sizeof in[k], MPI_BYTE, k, TAG_AGREE, cl.scomm, &req[k]) != MPI_SUCCESS) {
            gl_log("node 0: MPI_Irecv from node %d failed at set-up step '%s'", k, step);
            setup_abort(EXIT_ENV);
        }
    }
    int late = setup_wait(req, nodes, done, mono_ns() + (uint64_t)(bound * 1e9), step, 1) != 0;
    memset(lost_late, 0, sizeof lost_late);
    if (late && !signals_end && agree_grace && stop_pending())
        agree_lose_missing(req, done, step, 0), late = 0;
    else if (late && late_lost_on && !stop_pending())
        agree_lose_missing(req, done, step, bound), late = 0;
    if (late) {
        char who[256];
        setup_missing(done, who, sizeof who);
        gl_log("node 0: node(s) %s did not reach set-up step '%s' within %g s (stalled or gone: a frozen host, a hung "
               "file system or device): the job ends (exit 3)", who, step, bound);
        setup_abort(EXIT_ENV);
    }
    int32_t worst[3] = { mine->seq, mine->rc, cl.lost_node };
    agreed_lost = cl.lost_node;
    for (int k = 1; k < nodes; k++) {
        if (in[k].seq != mine->seq) {
            gl_log("node 0: node %d is out of step in the set-up (its agreement %d at step '%s', %d here)", k,
                   (int)in[k].seq, step, (int)mine->seq);
            setup_abort(EXIT_ENV);
        }
        worst[1] = in[k].rc > worst[1] ? in[k].rc : worst[1];
        for (int i = 0; i < nv; i++)
            vals[k * nv + i] = agree_lost(k) ? NAN : in[k].val[i];
        in[k].note[NOTE_MAX - 1] = 0;
        if (first && n && !first[0] && in[k].note[0])
            str_copy(first, n, in[k].note);
    }
    for (int k = 1; k < nodes; k++) {
        done[k] = agree_lost(k);
        if (done[k])
            req[k] = MPI_REQUEST_NULL;
        else if (MPI_Isend(worst, 3, MPI_INT32_T, k, TAG_AGREE, cl.scomm, &req[k]) != MPI_SUCCESS) {
            gl_log("node 0: MPI_Isend to node %d failed at set-up step '%s'", k, step);
            setup_abort(EXIT_ENV);
        }
    }
    if (setup_wait(req, nodes, done, mono_ns() + (uint64_t)(bound * 1e9), step, 0) != 0) {
        char who[256];
        setup_missing(done, who, sizeof who);
        gl_log("node 0: node(s) %s did not take the outcome of set-up step '%s' within %g s: the job ends (exit 3)", who,
               step, bound);
        setup_abort(EXIT_ENV);
    }
    free(in);
    free(req);
    free(done);
    return worst[1];
}

/* An agreement (cluster_agree_note), each node's word carrying nv figures (mine), every node's on node 0 (all). */
static int agree(int rc, const char *note, const char *step, char *first, size_t n, const double *mine, double *all,
                 int nv)
{
    if (first && n)
        first[0] = 0;
    struct agree_msg m = { .seq = ++agree_seq, .rc = rc };
    if (note)
        str_copy(m.note, sizeof m.note, note);
    for (int i = 0; i < nv; i++)
        m.val[i] = mine[i];
    int worst;
    if (cl.node == 0) {
        worst = agree_root(&m, step, first, n, all, nv);
        for (int i = 0; i < nv; i++)
            all[i] = mine[i];
    } else {
        /* node 0 speaks first when another node is missing: this node waits its bound and some more */
        double bound = setup_bound_s() + 10;
        int32_t back[3] = { 0, 0, -1 };
        MPI_Request req[2];
        unsigned char done[2] = { 0, 0 };
        if (MPI_Isend(&m, (int)sizeof m, MPI_BYTE, 0, TAG_AGREE, cl.scomm, &req[0]) != MPI_SUCCESS ||
            MPI_Irecv(back, 3, MPI_INT32_T, 0, TAG_AGREE, cl.scomm, &req[1]) != MPI_SUCCESS) {
            gl_log("node %d: MPI failed at set-up step '%s'", cl.node, step);
            setup_abort(EXIT_ENV);
        }
        if (setup_wait(req, 2, done, mono_ns() + (uint64_t)(bound * 1e9), step, 0) != 0) {
            gl_log("node %d: node 0 did not answer set-up step '%s' within %g s (node 0, or a node it waits for, did "
                   "not reach it): the job ends (exit 3)", cl.node, step, bound);
            setup_abort(EXIT_ENV);
        }
        if (back[0] != m.seq) {
            gl_log("node %d: node 0 is out of step in the set-up (its agreement %d at step '%s', %d here)", cl.node,
                   (int)back[0], step, (int)m.seq);
            setup_abort(EXIT_ENV);
        }
        worst = back[1];
        agreed_lost = back[2] > 0 && back[2] < cl.nodes ? back[2] : -1;   /* node 0's word, not this node's view */
        if (back[2] > 0 && back[2] < cl.nodes && back[2] != cl.node && cl.lost_node < 0)
            cluster_mark_lost(back[2]);   /* node 0 lost one: this node too leaves without the closing barrier */
    }
    cl.setup_extra_s = 0;
    return worst;
}

int cluster_agree_note(int rc, const char *note, const char *step, char *first, size_t n)
{
    if (first && n)
        first[0] = 0;
    return cl.on ? agree(rc, note, step, first, n, NULL, NULL, 0) : rc;
}

int cluster_agree(int rc, const char *step) { return cluster_agree_note(rc, NULL, step, NULL, 0); }

int cluster_agree_values(int rc, const double *mine, int nv, double *all, const char *step)
{
    nv = nv < 0 ? 0 : nv > AGREE_VALS ? AGREE_VALS : nv;
    if (!cl.on) {
        for (int i = 0; i < nv; i++)
            all[i] = mine[i];
        return rc;
    }
    return agree(rc, NULL, step, NULL, 0, mine, all, nv);
}

/* Completes a collective begun on every node (req) within the set-up wait, or ends the job naming step. */
static void setup_coll(MPI_Request *req, const char *step)
{
    unsigned char done = 0;
    double bound = setup_bound_s();
    if (setup_wait(req, 1, &done, mono_ns() + (uint64_t)(bound * 1e9), step, 0) == 0)
        return;
    if (cl.node == 0)
        gl_log("node 0: not every node reached set-up step '%s' within %g s (stalled or gone): the job ends (exit 3)",
               step, bound);
    else
        gl_log("node %d: set-up step '%s' did not end within %g s (node 0, or another node, did not reach it%s): the "
               "job ends (exit 3)", cl.node, step, bound,
               strcmp(step, "the build") == 0 ? "; node 0 may run an older gauntlet, which sends no build record: "
                                                "install one build on every node" : "");
    setup_abort(EXIT_ENV);
}

int cluster_gather_int(int x, int *out, const char *step)
{
    if (!cl.on) {
        out[0] = x;
        return 0;
    }
    MPI_Request req;
    if (MPI_Iallgather(&x, 1, MPI_INT, out, 1, MPI_INT, cl.scomm, &req) != MPI_SUCCESS)
        return -1;
    setup_coll(&req, step);
    return 0;
}

uint64_t cluster_bcast_u64(uint64_t x, const char *step)
{
    cluster_bcast(&x, sizeof x, step);
    return x;
}

void cluster_bcast(void *buf, size_t n, const char *step)
{
    if (!cl.on)
        return;
    MPI_Request req;
    if (MPI_Ibcast(buf, (int)n, MPI_BYTE, 0, cl.scomm, &req) != MPI_SUCCESS) {
        gl_log("node %d: MPI_Ibcast failed at set-up step '%s'", cl.node, step);
        setup_abort(EXIT_ENV);
    }
    setup_coll(&req, step);
}

void cluster_same_build(void)
{
    struct cluster_build mine, theirs;
    cluster_build_of(&mine);
    theirs = mine;
    cluster_bcast(&theirs, sizeof theirs, "the build");
    char why[320];
    if (cl.node != 0 && cluster_build_differs(&mine, &theirs, why, sizeof why)) {
        gl_log("node %d: %s: the job ends (exit 3)", cl.node, why);
        setup_abort(EXIT_ENV);
    }
}

#endif
