/* harness/cluster/supcoord.c: the recovery machine's coordinator over MPI (rec_coord_cluster, recover.h): the node
 * that saw a failure asks node 0; node 0's go makes every node enter the machine; node 0 gathers every node's
 * proposal and sends the agreement. */
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "recovery/recovery.h"
#include "supcluster_int.h"
#include "util.h"

/* ---- the cluster coordinator of the recovery machine (recover.h): the node that saw the failure asks node 0;
 * node 0 tells every node to stop (its go) and every node enters the machine; each stops its ranks (the failed
 * ones for good: killed, dropped by shrink) and proposes where it can start again — restart: the newest iteration
 * all its ranks hold a checkpoint of; inprocess, spare, shrink: the newest replica a healthy rank of it holds (a
 * replica outlives its process: a crashed node's own are still in its memory) — with how many of its ranks go on;
 * node 0 takes the oldest proposal, the ranks left over every node and the nodes left in the chain, makes a new
 * communicator id where one is needed, and sends that agreement to every node. */

/* Node 0: a new gathering of proposals (they may arrive while this node still stops its ranks). */
static void coord_reset(struct sup *s)
{
    s->ln->rec_have = 0;
    s->ln->rec_active = 0;
    memset(s->ln->rec_live, 0, sizeof s->ln->rec_live);
    memset(s->ln->rec_got, 0, sizeof s->ln->rec_got);
    for (int k = 0; k < s->nodes && k < SHM_MAX_NODES; k++)   /* a lost or ended node proposes nothing, keeps no rank */
        if (s->ln->node_gone[k] || s->ln->node_ended[k])
            coord_fold(s, k, INT64_MAX, 0);
}

/* Node 0: every node stops and enters the recovery of failure f (this node's own, or none here). A request queued
 * meanwhile is this recovery's too: its node waits for a go (rec_wait) and enters with its own failure. */
void coord_go(struct sup *s, const struct rec_failure *f)
{
    coord_reset(s);
    s->ln->rec_start = -1;
    s->ln->req_queued = 0;
    memset(s->ln->req_from, 0, sizeof s->ln->req_from);
    json_t *go = json_pack("{s:I}", "iter", (json_int_t)f->iter);
    for (int k = 1; k < s->nodes; k++)
        cluster_send_json(k, TAG_REC_GO, go);
    json_decref(go);
}

/* Node 0: begins the recovery node(s) asked for, from iteration it at most (node 0's own failures found meanwhile
 * join it). */
static void coord_begin(struct sup *s, int64_t it)
{
    struct rec_failure f = { .fault = -1, .rank = -1, .iter = it };
    if (faultlog_take(s, &f))   /* node 0's own failures, found meanwhile: this recovery takes them in */
        f.iter = it < f.iter ? it : f.iter;
    coord_go(s, &f);
    recover_enter(s, &f);
}

/* Node 0: node asks for a recovery of a failure at iteration it. Idle: it begins now. A recovery under way: a
 * request sent before that node took this recovery's go (it has not proposed in it) is in it already — the node
 * waited for a go and entered with its own failure (two deaths at once); one sent after (the node proposed, was
 * answered, ended its part and then failed again: node 0 has agreed, and backs off or starts its ranks) is queued and
 * begun as soon as this recovery ends (coord_queued). Until 2026-11-30 it was dropped, and the node waited for a go
 * that never came until its deadline (heartbeat timeout + start-up) failed the run. */
void coord_request_in(struct sup *s, int node, int64_t it)
{
    if (s->stopping || node <= 0 || node >= s->nodes || node >= SHM_MAX_NODES)
        return;
    if (!s->recovering) {
        coord_begin(s, it);
        return;
    }
    if (!s->ln->rec_got[node])   /* sent before it entered this recovery: joined there */
        return;
    s->ln->req_iter = s->ln->req_queued && s->ln->req_iter < it ? s->ln->req_iter : it;
    s->ln->req_queued = 1;
    s->ln->req_from[node] = 1;
    results_event(&s->res, mono_ns(), "recovery_queued",
                  json_pack("{s:i, s:I, s:I}", "node", node, "iter", (json_int_t)it, "from_iter",
                            (json_int_t)s->ln->req_iter));
}

/* Node 0, each turn: a queued request begins once the recovery under way has ended (unless every node that asked has
 * since been lost or ended: nobody waits for it). */
void coord_queued(struct sup *s)
{
    if (s->node != 0 || !s->ln->req_queued || s->recovering || s->stopping)
        return;
    int waiting = 0;
    for (int k = 1; k < s->nodes && k < SHM_MAX_NODES; k++)
        waiting |= s->ln->req_from[k] && !s->ln->node_gone[k] && !s->ln->node_ended[k];
    if (!waiting) {
        s->ln->req_queued = 0;
        return;
    }
    coord_begin(s, s->ln->req_iter);
}

static int cluster_request(struct sup *s, const struct rec_failure *f)
{
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    s->ln->rec_start = -1;
    results_event(&s->res, mono_ns(), "recovery_request",
                  json_pack("{s:s, s:i, s:I}", "recovery", rec->name, "rank", f->rank, "iter", (json_int_t)f->iter));
    if (s->node == 0) {
        coord_go(s, f);
        return 1;
    }
    json_t *m = json_pack("{s:I}", "iter", (json_int_t)f->iter);
    cluster_send_json(0, TAG_REC_REQ, m);
    json_decref(m);
    s->ln->rec_asked = *f;
    s->recovering = 1;   /* until node 0's go: no other detection starts a second recovery */
    s->fl->rec_wait = 1;
    s->fl->rec_wait_fault = f->fault;
    s->fl->rec_wait_since = mono_ns();
    return 0;
}

/* Node 0's go arrived (limit: the failure's iteration it was sent for): this node enters the machine, for its own
 * failure if it asked (node 0 may be recovering another one, begun before this node's request came), else for none
 * here. */
void coord_enter(struct sup *s, int64_t limit)
{
    struct rec_failure f = { .fault = -1, .rank = -1, .iter = limit };
    if (s->fl->rec_wait) {   /* this node's own failure, which may be older than the one the go is for: the rollback
                          * goes to a state before the older one (the agreement takes every node's oldest) */
        f = s->ln->rec_asked;
        f.iter = limit < f.iter ? limit : f.iter;
    } else if (faultlog_take(s, &f)) {   /* found here but not yet asked for: this recovery takes it in (a second
                                         * one, after, would recover what this one already replaced) */
        f.iter = limit < f.iter ? limit : f.iter;
    }
    s->fl->rec_wait = 0;
    s->ln->rec_asked = (struct rec_failure){ .fault = -1, .rank = -1 };
    s->ln->rec_start = -1;
    recover_enter(s, &f);
}

/* Node 0: a node's proposal (its own, or one received). */
void coord_fold(struct sup *s, int node, int64_t start, int active)
{
    if (node >= 0 && node < SHM_MAX_NODES) {   /* once per node and recovery */
        if (s->ln->rec_got[node])
            return;
        s->ln->rec_got[node] = 1;
    }
    s->ln->rec_min = s->ln->rec_have++ ? (start < s->ln->rec_min ? start : s->ln->rec_min) : start;
    s->ln->rec_active += active;
    if (node >= 0 && node < s->nodes)
        s->ln->rec_counts[node] = active;
    if (node >= 0 && node < SHM_MAX_NODES)
        s->ln->rec_live[node] = active > 0;
}

static void cluster_propose(struct sup *s, const struct rec_proposal *p)
{
    if (s->node == 0) {
        coord_fold(s, 0, p->start, p->active);
        return;
    }
    json_t *o = json_pack("{s:I, s:i}", "iter", (json_int_t)p->start, "active", p->active);
    cluster_send_json(0, TAG_REC_CKPT, o);
    json_decref(o);
}

/* Node 0, every proposal in: the oldest start point, the ranks left and the nodes left (and a new communicator id
 * where the strategy needs one), to every node. */
static int coord_agree(struct sup *s, char *why, size_t n)
{
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    s->ln->rec_have = 0;
    s->ln->rec_start = s->ln->rec_min;
    s->ln->rec_world = s->ln->rec_active;
    json_t *live = json_array(), *counts = json_array();
    for (int k = 0; k < s->nodes; k++) {
        json_array_append_new(live, json_boolean(k < SHM_MAX_NODES && s->ln->rec_live[k]));
        json_array_append_new(counts, json_integer(s->ln->rec_counts[k]));
    }
    json_t *st = json_pack("{s:I, s:i, s:o, s:o}", "iter", (json_int_t)s->ln->rec_start, "active", s->ln->rec_world, "live",
                           live, "counts", counts);
    int usable = s->ln->rec_start >= 0 && s->ln->rec_start != INT64_MAX;
    if ((rec->restarts_all || s->ops->reconnect) && s->ops->prepare && usable) {   /* every GPU joins a new one */
        if (s->ops->prepare(&s->shm, why, n) != 0) {
            json_decref(st);
            return -1;
        }
        char hex[2 * sizeof s->shm.hdr->coll_id + 1];
        for (size_t b = 0; b < sizeof s->shm.hdr->coll_id; b++)
            snprintf(hex + 2 * b, 3, "%02x", s->shm.hdr->coll_id[b]);
        json_object_set_new(st, "coll_id", json_string(hex));
    }
    for (int k = 1; k < s->nodes && !s->stopping; k++)
        cluster_send_json(k, TAG_REC_START, st);
    json_decref(st);
    return 0;
}

static int cluster_agreed(struct sup *s, struct rec_agreement *a, char *why, size_t n)
{
    if (s->node == 0 ? s->ln->rec_have < s->nodes : s->ln->rec_start < 0) {
        snprintf(why, n, s->node == 0 ? "recovery: a node did not say where it can start again"
                                      : "recovery: node 0 did not say where to start again");
        return 0;
    }
    if (s->node == 0 && coord_agree(s, why, n) != 0)
        return -1;
    memset(a, 0, sizeof *a);
    a->start = s->ln->rec_start;
    a->world = s->ln->rec_world;
    for (int k = 0; k < s->node; k++)   /* this node's first active rank's place among every node's */
        a->before += s->ln->rec_counts[k];
    for (int k = 0; k < s->nodes && k < SHM_MAX_NODES; k++)
        a->live[k] = s->ln->rec_live[k];
    return 1;
}

const struct rec_coord rec_coord_cluster = { cluster_request, cluster_propose, cluster_agreed, supfp_node };
