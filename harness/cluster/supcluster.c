/* harness/cluster/supcluster.c: the supervisor's part in a run over several nodes (harness/cluster/cluster.h): one timeline,
 * global ranks, telemetry to node 0, runs that start together, a failure anywhere ending the run everywhere,
 * and node 0's summary holding every node's figures. With one node every function here returns at once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cluster.h"
#include "faults/fault.h"
#include "recovery/recovery.h"
#include "supcluster_int.h"
#include "shm.h"
#include "util.h"

void supc_new(struct sup *s)
{
    struct sup_link *ln = xcalloc(1, sizeof *ln);
    ln->go_run = -1;
    ln->rec_asked = (struct rec_failure){ .fault = -1, .rank = -1 };
    ln->rec_start = -1;
    ln->node_runs = json_array();
    ln->node_ends = json_array();
    s->ln = ln;
}

void supc_free(struct sup *s)
{
    struct sup_link *ln = s->ln;
    if (!ln)
        return;
    json_decref(ln->node_runs);
    json_decref(ln->node_ends);
    supfp_free(s);
    free(ln->ready_upto);
    free(ln->node_seen);
    free(ln->rec_counts);
    free(ln);
    s->ln = NULL;
}

int supc_setup(struct sup *s, char *why, size_t n)
{
    s->node = cluster_node();
    s->nodes = cluster_nodes();
    struct shm_hdr *h = s->shm.hdr;
    h->node = (uint32_t)s->node;
    h->nodes = (uint32_t)s->nodes;
    h->rank_offset = (uint32_t)(s->node * s->nranks);
    h->world = (uint32_t)(s->nodes * s->nranks);
    if (s->nodes < 2)
        return 0;
    s->ln->ready_upto = xmalloc((size_t)s->nodes * sizeof *s->ln->ready_upto);
    s->ln->node_seen = xmalloc((size_t)s->nodes * sizeof *s->ln->node_seen);
    s->ln->rec_counts = xcalloc((size_t)s->nodes, sizeof *s->ln->rec_counts);
    for (int k = 0; k < s->nodes; k++) {
        s->ln->ready_upto[k] = -1;
        s->ln->node_seen[k] = mono_ns();
    }
    cluster_set_fanout((int)s->sc->gather_fanout);
    if (s->nodes > SHM_MAX_NODES) {   /* every node's tables have this many places */
        snprintf(why, n, "nodes: %d: one run spans at most %d nodes", s->nodes, SHM_MAX_NODES);
        return -1;
    }
    if (s->ops->max_nodes > 0 && s->nodes > s->ops->max_nodes) {
        snprintf(why, n, "nodes: %d: the %s backend takes at most %d", s->nodes, s->ops->name, s->ops->max_nodes);
        return -1;
    }
    atomic_store(&h->xn.world_active, h->world);
    atomic_store(&h->xn.active_before, h->rank_offset);
    for (int k = 0; k < s->nodes && k < SHM_MAX_NODES; k++)
        h->xn.live[k] = 1;
    /* one timeline: node 0's start, moved onto this node's clock by the measured offset */
    int clock_bad = cluster_clock(&s->ln->clock_offset_ns, &s->ln->clock_uncert_s) != 0;
    if (cluster_agree(clock_bad ? EXIT_ENV : 0, "the clock exchange") != 0) {   /* every node stops here, or none */
        snprintf(why, n, clock_bad ? "node %d: the clock exchange with node 0 failed"
                                   : "node %d: the clock exchange failed on another node", s->node);
        return -1;
    }
    uint64_t t0 = cluster_bcast_u64(s->t0, "node 0's start time");
    s->t0 = (uint64_t)((int64_t)t0 - s->ln->clock_offset_ns);
    h->t0_ns = s->t0;
    /* faults name global ranks (node-crash: the node's first); the node that holds the rank carries it out */
    struct scenario *sc = &h->sc;
    for (int i = 0; i < sc->n_faults; i++) {
        struct fault_spec *f = &sc->faults[i];
        if (fault_table[f->kind]->node)   /* a whole node's: carried out by its first rank */
            f->rank = fault_table[f->kind]->node(f->params) * s->nranks;
        int64_t local = f->rank - (int64_t)h->rank_offset;
        f->rank = local >= 0 && local < s->nranks ? local : -2;   /* -2: another node's */
    }
    return cluster_proxy_start(&s->shm, why, n);
}

/* ---- what arrives from the other nodes */
/* Returns 1 when node's supervisor has said nothing for longer than the heartbeat timeout. */
int supc_silent(const struct sup *s, int node)
{
    return s->ln->node_seen && (double)(mono_ns() - s->ln->node_seen[node]) * 1e-9 > s->sc->heartbeat.timeout_s;
}

/* Any word from node's supervisor is a sign of life. */
static void supc_seen(struct sup *s, int node)
{
    if (s->ln->node_seen && node >= 0 && node < s->nodes)
        s->ln->node_seen[node] = mono_ns();
}

int supc_gone(const struct sup *s, int node)
{
    return node >= 0 && node < SHM_MAX_NODES && s->ln->node_gone[node];
}

static void sink_lines(void *ctx, int node, enum cluster_stream st, const char *text, size_t len)
{
    struct sup *s = ctx;
    if (supc_gone(s, node))
        return;
    supc_seen(s, node);
    if (s->node != 0)
        return;
    if (results_append(&s->res, st == CL_POWER, text, len) != 0)
        return;
    const struct view_link *v = s->res.view;   /* node 0's live view or progress lines */
    if (!v)
        return;
    for (const char *p = text, *end = text + len; p < end;) {   /* the live view shows every node */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (st == CL_EVENTS) {
            v->event(v->ctx, p, l);
        } else if (s->sc->forward == FORWARD_NODES) {   /* the node's sum: results_append gave it to the view */
            break;
        } else {
            double t, w;
            int rank, n = 0;
            if (sscanf(p, "%lf,%d,%lf,%n", &t, &rank, &w, &n) == 3) {
                struct power_reading pr = POWER_READING_NONE;
                pr.watts = w;   /* and the row's phase (-1: none said; until 2026-12-01 idle whatever it said) */
                v->power(v->ctx, t, rank, &pr, n > 0 ? phase_parse(p + n, strcspn(p + n, ",\n")) : -1);
            }
        }
        p += l;
    }
}

static void sink_failed(void *ctx, int node, const char *reason)
{
    struct sup *s = ctx;
    if (supc_gone(s, node))
        return;
    char msg[600];
    snprintf(msg, sizeof msg, "node %d: %s", node, reason);
    s->ln->remote_failure = 1;   /* not sent on again */
    sup_fail(s, SUP_STOP_NODE, msg);
}

/* The pause/resume/skip boundary's atomic for kind (resume needs none). */
static _Atomic int64_t *bnd_atomic(struct sup *s, int kind)
{
    return kind == SUP_BND_SKIP ? &s->shm.hdr->stop_at : kind == SUP_BND_PAUSE ? &s->shm.hdr->pause_at : NULL;
}

/* Node 0: decides the boundary being agreed once every node still in the run has answered (one lost or ended while
 * it was asked answers nothing: until 2026-11-30 it was waited for, and every rank waited at the boundary for good). */
static void bnd_settle(struct sup *s);

/* Every node: the agreed boundary. */
static void bnd_apply(struct sup *s, int kind, int64_t at)
{
    if (kind == SUP_BND_SKIP)
        sup_set_skip(s, at);
    else
        sup_set_pause(s, kind == SUP_BND_PAUSE ? at : INT64_MAX);
}

/* Node 0: every node answered: the boundary is the iteration after the furthest, on every node. */
static void bnd_decide(struct sup *s)
{
    int kind = s->ln->bnd_kind;
    int64_t at = s->ln->bnd_top + 1;
    json_t *o = json_pack("{s:I}", "iter", (json_int_t)at);
    for (int k = 1; k < s->nodes; k++)
        cluster_send_json(k, TAG_BND_SET - kind, o);
    json_decref(o);
    s->ln->bnd_kind = 0;
    bnd_apply(s, kind, at);
}

static void bnd_settle(struct sup *s)
{
    if (s->node != 0 || !s->ln->bnd_kind)
        return;
    for (int k = 1; k < s->nodes; k++)
        if (!supc_gone(s, k) && !(k < SHM_MAX_NODES && (s->ln->node_ended[k] || s->ln->bnd_answered[k])))
            return;
    bnd_decide(s);
}

void supc_boundary(struct sup *s, int kind)
{
    json_t *o = json_object();
    for (int k = 1; k < s->nodes; k++)
        cluster_send_json(k, (kind == SUP_BND_RESUME ? TAG_BND_SET : TAG_BND_REQ) - kind, o);
    json_decref(o);
    if (kind == SUP_BND_RESUME) {   /* no boundary to agree on: every node lets its ranks go */
        sup_set_pause(s, INT64_MAX);
        return;
    }
    s->ln->bnd_kind = kind;
    memset(s->ln->bnd_answered, 0, sizeof s->ln->bnd_answered);   /* every node that is still there answers */
    s->ln->bnd_top = sup_pending_top(s, bnd_atomic(s, kind));
}

static void sink_json(void *ctx, int node, int tag, json_t *o)
{
    struct sup *s = ctx;
    if (supc_gone(s, node))
        return;
    supc_seen(s, node);
    if (tag == TAG_FP || tag == TAG_FP_VERDICT) {   /* the fingerprint vote across nodes (supfp.c) */
        supfp_message(s, node, tag, o);
        return;
    }
    int64_t it = json_integer_value(json_object_get(o, "iter"));
    if (tag == TAG_HB) {
        supc_hb_in(s, o);
        return;
    } else if (tag <= TAG_BND_REQ && tag > TAG_BND_REQ - 10) {   /* mark pending, answer with this node's furthest */
        int kind = TAG_BND_REQ - tag;
        json_t *a = json_pack("{s:I}", "iter", (json_int_t)sup_pending_top(s, bnd_atomic(s, kind)));
        cluster_send_json(0, TAG_BND_TOP - kind, a);
        json_decref(a);
    } else if (tag <= TAG_BND_TOP && tag > TAG_BND_TOP - 10) {
        if (s->node == 0 && s->ln->bnd_kind == TAG_BND_TOP - tag) {
            s->ln->bnd_top = it > s->ln->bnd_top ? it : s->ln->bnd_top;
            if (node < SHM_MAX_NODES)
                s->ln->bnd_answered[node] = 1;
            bnd_settle(s);
        }
    } else if (tag <= TAG_BND_SET && tag > TAG_BND_SET - 10) {
        bnd_apply(s, TAG_BND_SET - tag, it);
    } else if (tag >= TAG_REC_START && tag < TAG_HB) {
        json_t *live = json_object_get(o, "live"), *x;
        size_t i;
        json_array_foreach(live, i, x)
            if (i < SHM_MAX_NODES)
                s->ln->rec_live[i] = json_is_true(x);
        s->ln->rec_world = (int)json_integer_value(json_object_get(o, "active"));
        json_t *counts = json_object_get(o, "counts");
        for (int k = 0; k < s->nodes && k < (int)json_array_size(counts); k++)
            s->ln->rec_counts[k] = (int)json_integer_value(json_array_get(counts, (size_t)k));
        const char *id = json_string_value(json_object_get(o, "coll_id"));   /* node 0 made a new one (cuda) */
        for (size_t b = 0; id && b < sizeof s->shm.hdr->coll_id && id[2 * b] && id[2 * b + 1]; b++) {
            unsigned v;
            if (sscanf(id + 2 * b, "%2x", &v) == 1)
                s->shm.hdr->coll_id[b] = (unsigned char)v;
        }
        s->ln->rec_start = it;
    } else if (tag >= TAG_REC_CKPT) {   /* node 0: a node's proposal and how many of its ranks go on */
        coord_fold(s, node, it, (int)json_integer_value(json_object_get(o, "active")));
    } else if (tag >= TAG_REC_GO) {   /* idle, or waiting for this since our own request */
        if (!s->stopping && (!s->recovering || s->fl->rec_wait))
            coord_enter(s, it);
        else if (!s->stopping) {   /* still starting its ranks after the recovery before: node 0 waits for this
                                    * node's proposal, so the go is kept, never dropped (two deaths on two nodes at
                                    * once: node 0 finished the first recovery first and began the second) */
            s->ln->go_deferred = 1;
            s->ln->go_limit = it;
        }
    } else if (tag >= TAG_REC_REQ) {   /* node 0: a node asks (begun now, joined, or queued: supcoord.c) */
        coord_request_in(s, node, it);
    } else if (tag >= TAG_GO) {
        s->ln->go_run = tag - TAG_GO;
    } else if (tag >= TAG_READY) {
        if (s->ln->ready_upto && node < s->nodes && tag - TAG_READY > s->ln->ready_upto[node])
            s->ln->ready_upto[node] = tag - TAG_READY;   /* a node may say so before node 0 reaches that run */
    } else if (s->node == 0 && tag == TAG_END) {
        json_object_del(o, "cluster_run");   /* the relays' (cluster_run_no), not the summary's */
        if (node >= 0 && node < SHM_MAX_NODES)
            s->ln->node_ended[node] = 1;
        supfp_recount(s);
        if (node > 0 && node < s->nodes && node < SHM_MAX_NODES && !s->shm.hdr->xn.live[node]) {
            results_node_left(&s->res, node);   /* shrink left it no rank: out of the cluster's sum */
            results_event(&s->res, mono_ns(), "node_left",   /* for summarize, which sums again from the record */
                          json_pack("{s:i, s:s, s:I}", "node", node, "why", "shrink left it no rank: out of the cluster's sum",
                                    "nodes_csv_at", (json_int_t)results_nodes_at(&s->res)));
        } else
            results_node_ended(&s->res, node);   /* its power rows are over: the sum waits no more, nor is whole */
        json_object_set_new(o, "telemetry_records_missing", json_integer((json_int_t)cluster_records_missing(node)));
        if (s->fl->rm.state == RM_STOPPING || s->fl->rm.state == RM_AGREEING)
            coord_fold(s, node, INT64_MAX, 0);   /* a recovery under way: it has nothing left to propose */
        json_object_set_new(o, "node", json_integer(node));
        json_array_append(s->ln->node_ends, o);
    } else if (s->node == 0 && tag >= 0) {
        json_object_set_new(o, "node", json_integer(node));
        json_array_append(s->ln->node_runs, o);
    }
}

void supc_poll(struct sup *s)
{
    if (s->nodes < 2)
        return;
    static const struct cluster_sink sink = { NULL, sink_lines, sink_failed, sink_json };
    struct cluster_sink k = sink;
    k.ctx = s;
    cluster_poll(&k);
    if (s->ln->go_deferred && !s->recovering && !s->stopping) {   /* the recovery before has ended here */
        s->ln->go_deferred = 0;
        coord_enter(s, s->ln->go_limit);
    }
    coord_queued(s);   /* node 0: a request that came while a recovery was under way, begun once it has ended */
    supc_liveness(s, mono_ns());
    bnd_settle(s);   /* a node lost or ended while a boundary was asked */
    cluster_flush();
}

void supc_fail(struct sup *s, const char *reason)
{
    if (s->nodes > 1 && !s->ln->remote_failure)
        cluster_fail(reason);
}

/* Waits, stepping the loop, until cond holds or the run is stopping; -1 when it stopped. */
#define SUPC_WAIT(s, cond)                                                                                           \
    do {                                                                                                             \
        while (!(cond) && !(s)->stopping)                                                                            \
            sup_step(s);                                                                                             \
    } while (0)

static int supc_all_ready(const struct sup *s, int m)
{
    for (int k = 1; k < s->nodes; k++)
        if (s->ln->ready_upto[k] < m && !supc_gone(s, k) && !(k < SHM_MAX_NODES && s->ln->node_ended[k]))
            return 0;
    return 1;
}

int supc_run_begin(struct sup *s, int m)
{
    if (s->nodes < 2)
        return 0;
    if (!s->ln->hb_armed) {   /* from here on every supervisor turns its loop: silence means a node is gone */
        uint64_t now = mono_ns();
        for (int k = 0; k < s->nodes; k++)
            s->ln->node_seen[k] = now;
        s->ln->hb_armed = 1;
        cluster_set_send_wait(s->sc->heartbeat.timeout_s);
    }
    json_t *o = json_object();
    if (s->node == 0) {   /* every node says it is ready for run m; then node 0 says go */
        s->ln->sync_run = m;
        SUPC_WAIT(s, supc_all_ready(s, m));
        for (int k = 1; k < s->nodes && !s->stopping; k++)
            cluster_send_json(k, TAG_GO + m, o);
    } else {
        cluster_send_json(0, TAG_READY + m, o);
        SUPC_WAIT(s, s->ln->go_run == m);
    }
    json_decref(o);
    return s->stopping ? -1 : 0;
}

void supc_run_end(struct sup *s, int m, json_t *run)
{
    if (s->nodes < 2)
        return;
    if (s->node != 0) {
        cluster_send_json(0, m, run);
        return;
    }
    /* node 0 keeps its own figures for this run and waits (a bounded time) for the others' */
    json_t *mine = json_deep_copy(run);
    json_object_set_new(mine, "node", json_integer(0));
    json_array_append_new(s->ln->node_runs, mine);
    /* stopped by a signal: the launcher is ending the job (Open MPI kills 1 s after its SIGTERM): brief waits, so that
     * the summary is written in time */
    uint64_t end = mono_ns() + (s->signals ? 400000000ull : 30000000000ull);
    for (;;) {
        int have = 1;   /* node 0's own; each other node once: its figures came, or it is silent (sends nothing) */
        for (int k = 1; k < s->nodes; k++) {
            int got = 0;
            size_t i;
            json_t *r;
            json_array_foreach(s->ln->node_runs, i, r)
                got |= json_integer_value(json_object_get(r, "run")) == m && json_integer_value(json_object_get(r, "node")) == k;
            have += got || supc_silent(s, k);
        }
        if (have >= s->nodes || mono_ns() > end)
            break;
        sup_step(s);
    }
    supfp_run_end(s, m, run);   /* fingerprints_agree over every node's final state */
}

/* Node 0, at the end: a node whose end record never came (and that shrink did not lose) ended no run it was in, so
 * the run is incomplete: a run that would say exit 0 fails (exit 1, stop node_failed). Each such node is marked lost,
 * so that leaving waits for it no more (a barrier it never reaches). */
static void supc_missing_ends(struct sup *s, json_t *summary, int *code)
{
    int first = -1, more = 0;
    for (int k = 1; k < s->nodes && k < SHM_MAX_NODES; k++) {
        if (supc_gone(s, k) || s->ln->node_ended[k])
            continue;
        cluster_mark_lost(k);
        more += first >= 0;
        first = first < 0 ? k : first;
    }
    if (first < 0 || *code != EXIT_OK)
        return;
    char more_s[48] = "";
    if (more)
        snprintf(more_s, sizeof more_s, " (and %d more node%s)", more, more == 1 ? "" : "s");
    snprintf(s->reason, sizeof s->reason, "node %d%s: no end record came (silent, or not within 30 s): the run is "
                                          "incomplete", first, more_s);
    gl_log("%s", s->reason);
    s->failed = 1;
    s->stop = SUP_STOP_NODE;
    *code = EXIT_CHECK;
    json_object_set_new(summary, "exit", json_integer(*code));
    json_object_set_new(summary, "stop", json_string(s->stop));
    json_object_set_new(summary, "stopped", json_string(s->reason));
}

/* The end: the other nodes send node 0 what only they know; node 0 puts every node into the summary (and fails a run
 * that would end with exit 0, *code, where a node's end record never came). */
void supc_end(struct sup *s, json_t *summary, int *code)
{
    if (s->nodes < 2)
        return;
    s->ln->hb_armed = 0;
    json_t *me = json_pack("{s:i, s:f, s:f, s:I, s:s, s:i}", "ranks", s->nranks, "clock_offset_s",
                           (double)s->ln->clock_offset_ns * 1e-9, "clock_uncertainty_s", s->ln->clock_uncert_s, "events",
                           (json_int_t)s->res.events, "stopped", s->reason, "cluster_run", cluster_run_no());
    json_object_set(me, "stop", json_object_get(summary, "stop"));
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    struct rusage ru;
    uint64_t sent, received;
    cluster_stats(&sent, &received);
    if (getrusage(RUSAGE_SELF, &ru) == 0) {   /* the supervisor's own cost: its loop, the proxy, MPI's threads */
        json_object_set_new(me, "supervisor_cpu_s", json_real((double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                                                              (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6));
        json_object_set_new(me, "supervisor_max_rss_mb", json_real((double)ru.ru_maxrss / 1024.0));
    }
    json_object_set_new(me, "telemetry_sent_bytes", json_integer((json_int_t)sent));
    json_object_set_new(me, "telemetry_received_bytes", json_integer((json_int_t)received));
    json_object_set_new(me, "telemetry_relayed_bytes", json_integer((json_int_t)cluster_relayed()));
    json_object_set_new(me, "wall_s", json_real((double)(mono_ns() - s->t0) * 1e-9));
    json_object_set_new(me, "host", json_string(host));
    json_t *faults = faultlog_json(s), *f;   /* this node's faults, with global ranks */
    size_t i;
    json_array_foreach(faults, i, f) {
        json_int_t rk = json_integer_value(json_object_get(f, "rank"));   /* -1: no single rank (a tie), kept */
        json_object_set_new(f, "rank", json_integer(rk >= 0 ? rk + s->node * s->nranks : -1));
        json_object_set_new(f, "node", json_integer(s->node));
        json_t *det = json_object_get(f, "detection"), *dr = json_object_get(det, "rank");
        if (json_is_integer(dr) && json_integer_value(dr) >= 0)   /* the rank whose detector saw it: global too */
            json_object_set_new(det, "rank", json_integer(json_integer_value(dr) + s->node * s->nranks));
    }
    if (s->node != 0) {
        json_object_set_new(me, "faults", faults);
        json_t *gpus = results_gpus_json(&s->res);   /* forward: nodes: what node 0 judges this node's GPUs by */
        if (gpus)
            json_object_set_new(me, "gpus", gpus);
        results_forward_flush(&s->res);   /* forward: nodes: the last power cell */
        cluster_send_json(0, TAG_END, me);   /* after every line of this node's, in the same batches up the tree */
        cluster_flush();
        json_decref(me);
        supc_relay_ends(s);
        return;
    }
    json_decref(faults);   /* node 0's are in the summary already */
    json_object_set_new(me, "node", json_integer(0));
    json_array_insert_new(s->ln->node_ends, 0, me);
    /* a stop by a signal is the launcher ending the job: the others are being stopped too, briefly wait */
    uint64_t end = mono_ns() + (s->signals ? 300000000ull : 30000000000ull);
    while ((int)json_array_size(s->ln->node_ends) < s->nodes && mono_ns() < end) {
        supc_poll(s);
        supc_beat(s, mono_ns());   /* a node still ending its run must not take node 0 for gone */
        int waiting = 0;   /* a node silent for the heartbeat timeout sends no end record: nobody waits for it */
        for (int k = 1; k < s->nodes; k++) {
            int ended = 0;
            size_t q;
            json_t *e;
            json_array_foreach(s->ln->node_ends, q, e)
                ended |= json_integer_value(json_object_get(e, "node")) == k;
            waiting += !ended && !supc_silent(s, k);
        }
        if (!waiting)
            break;
        sleep_ns(1000000);
    }
    supc_ends_done(s);
    cluster_stats(&sent, &received);   /* node 0's figures include what came while it waited for the end records */
    json_object_set_new(me, "telemetry_sent_bytes", json_integer((json_int_t)sent));
    json_object_set_new(me, "telemetry_received_bytes", json_integer((json_int_t)received));
    json_t *all = json_object_get(summary, "faults"), *e;
    json_array_foreach(all, i, f)
        json_object_set_new(f, "node", json_integer(0));
    json_t *lost = json_array();   /* nodes lost during the run (silent past the heartbeat timeout) */
    for (int k = 1; k < s->nodes && k < SHM_MAX_NODES; k++)
        if (s->ln->node_gone[k])
            json_array_append_new(lost, json_integer(k));
    json_object_set_new(summary, "nodes_lost", lost);
    json_array_foreach(s->ln->node_ends, i, e) {   /* the other nodes' faults join node 0's */
        json_t *nf = json_object_get(e, "faults"), *x;
        size_t j;
        json_array_foreach(nf, j, x)
            json_array_append(all, x);
        json_object_del(e, "faults");
    }
    /* each run's fault counts over every node (a fault is counted by the node of its rank, once) */
    json_t *run0;
    json_array_foreach(json_object_get(summary, "runs"), i, run0) {
        json_t *mine = json_object_get(run0, "faults"), *r;
        size_t j;
        json_array_foreach(s->ln->node_runs, j, r) {
            if (json_integer_value(json_object_get(r, "node")) == 0 ||
                json_integer_value(json_object_get(r, "run")) != json_integer_value(json_object_get(run0, "run")))
                continue;
            json_t *theirs = json_object_get(r, "faults");
            static const char *const sums[] = { "injected", "observed", "left_with_rank", "ineffective", "detected",
                                                "false_positives", "stale_reports" };
            for (size_t q = 0; q < sizeof sums / sizeof sums[0]; q++)
                json_object_set_new(mine, sums[q], json_integer(json_integer_value(json_object_get(mine, sums[q])) +
                                                                json_integer_value(json_object_get(theirs, sums[q]))));
            json_array_extend(json_object_get(mine, "false_positive_detections"),
                              json_object_get(theirs, "false_positive_detections"));
            const char *kind;
            json_t *kv;
            json_object_foreach(json_object_get(theirs, "by_kind"), kind, kv) {
                json_t *cov = json_object_get(mine, "by_kind"), *k = json_object_get(cov, kind);
                if (!k) {   /* a copy: the node's own by_kind stays its own as the next node's are added */
                    json_object_set_new(cov, kind, json_deep_copy(kv));
                    continue;
                }
                json_object_set_new(k, "injected", json_integer(json_integer_value(json_object_get(k, "injected")) +
                                                                json_integer_value(json_object_get(kv, "injected"))));
                json_object_set_new(k, "detected", json_integer(json_integer_value(json_object_get(k, "detected")) +
                                                                json_integer_value(json_object_get(kv, "detected"))));
                const char *dn;
                json_t *dv;
                json_object_foreach(json_object_get(kv, "by"), dn, dv)
                    json_object_set_new(json_object_get(k, "by"), dn,
                                        json_integer(json_integer_value(json_object_get(json_object_get(k, "by"), dn)) +
                                                     json_integer_value(dv)));
            }
        }
        json_int_t inj = json_integer_value(json_object_get(mine, "injected"));
        if (mine)
            json_object_set_new(mine, "coverage", inj ? json_real((double)json_integer_value(json_object_get(mine, "detected")) /
                                                                  (double)inj)
                                                      : json_null());
    }
    /* per node: its end record, and its figures of each run */
    json_t *nodes = json_array();
    for (int k = 0; k < s->nodes; k++) {
        json_t *rec = NULL;
        json_array_foreach(s->ln->node_ends, i, e)
            if (json_integer_value(json_object_get(e, "node")) == k)
                rec = json_copy(e);
        if (!rec)
            rec = json_pack("{s:i, s:s}", "node", k, "stopped", "no end record from this node (silent, or not within 30 s)");
        json_t *runs = json_array(), *r;
        json_array_foreach(s->ln->node_runs, i, r)
            if (json_integer_value(json_object_get(r, "node")) == k)
                json_array_append(runs, r);
        json_object_set_new(rec, "runs", runs);
        json_array_append_new(nodes, rec);
    }
    json_object_set_new(summary, "nodes", nodes);
    json_object_set_new(summary, "ranks_total", json_integer((json_int_t)s->nodes * s->nranks));
    supc_missing_ends(s, summary, code);
}

const struct sup_hooks cluster_hooks = { .poll = supc_poll, .fail = supc_fail };

void supc_start_json(const struct sup *s, json_t *st)
{
    if (s->nodes < 2 || !st)
        return;
    const struct scenario *sc = s->sc;
    double cell_s = sc->power.forward_hz > 0 ? 1.0 / sc->power.forward_hz : sc->power.sample_hz > 0 ? 1.0 / sc->power.sample_hz : 0;
    json_object_set_new(st, "forward", json_string(sc->forward == FORWARD_NODES ? "nodes" : "ranks"));
    json_object_set_new(st, "forward_hz", cell_s > 0 ? json_real(1.0 / cell_s) : json_null());
    json_object_set_new(st, "clock_offset_s", json_real((double)s->ln->clock_offset_ns * 1e-9));
    json_object_set_new(st, "clock_uncertainty_s",
                        isfinite(s->ln->clock_uncert_s) ? json_real(s->ln->clock_uncert_s) : json_null());
}
