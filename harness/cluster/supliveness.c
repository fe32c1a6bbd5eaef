/* harness/cluster/supliveness.c: liveness between nodes (see supcluster.h): heartbeats in a star (every node to
 * node 0 and node 0 to every node, straight, never up the tree), a node silent past the heartbeat timeout lost, and
 * node 0's list of the nodes it lost passed to the others, so that what they send up the tree goes around them. */
#include <math.h>
#include <stdio.h>

#include "cluster.h"
#include "recovery/recovery.h"
#include "supcluster_int.h"
#include "util.h"

/* Node k is lost (why: what showed it). It is a failure of that node, handled by the recovery: shrink (seen by node 0)
 * goes on without the node's ranks — a recovery in which the node proposes nothing and keeps no rank; every other
 * strategy needs the node's supervisor to start its ranks again, and node 0 to coordinate: the run fails (exit 1)
 * on every node that can still say so, each writing its summary. */
static void supc_node_lost(struct sup *s, int k, const char *why)
{
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    cluster_mark_lost(k);
    if (k < SHM_MAX_NODES)
        s->ln->node_gone[k] = 1;
    supfp_recount(s);
    results_node_left(&s->res, k);
    if (!rec->drops_failed || s->node != 0 || k == 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s (recovery %s: %s)", why, rec->name,
                 !rec->recovers ? "the run ends"
                 : k == 0 ? "node 0 coordinates every recovery; the run ends"
                 : rec->drops_failed ? "node 0 decides; the run ends here"
                          : "a lost node's ranks cannot start again without its supervisor; relaunch the job");
        sup_fail(s, SUP_STOP_NODE, msg);
        return;
    }
    int64_t top = 0;   /* the furthest iteration this node's ranks reached: the failure's */
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r]) {
            int64_t it = atomic_load(&shm_ctl(&s->shm, s->slot_of[r])->iter);
            top = it > top ? it : top;
        }
    results_event(&s->res, mono_ns(), "node_lost",
                  json_pack("{s:i, s:s, s:I, s:s, s:I}", "node", k, "recovery", rec->name, "iter", (json_int_t)top, "why",
                            why, "nodes_csv_at", (json_int_t)results_nodes_at(&s->res)));
    gl_log("%s: shrink goes on without its ranks", why);
    if ((s->fl->rm.state == RM_STOPPING || s->fl->rm.state == RM_AGREEING) && k < SHM_MAX_NODES && !s->ln->rec_got[k]) {
        coord_fold(s, k, INT64_MAX, 0);   /* the recovery under way goes on without it */
        return;
    }
    /* a failure on the queue like any other: the machine takes it up once it is idle (a recovery that already
     * counted the node in is followed by one without it) */
    if (s->fl->n_pending < SUP_MAX_PENDING)
        s->fl->pending[s->fl->n_pending++] = (struct failure){ .fault = -1, .rank = -1, .det = -1, .iter = top };
}

/* How often the nodes beat to each other: the heartbeat interval, or a tenth of the timeout where that is longer.
 * Silence is judged against the timeout alone, so ten beats to a timeout lose nothing of what is detected or when,
 * and node 0 sends a thousand nodes 1,000 beats a second at the defaults (100 ms, 10 s), not 10,000. */
double supc_node_beat_s(const struct scenario *sc)
{
    return fmax(sc->heartbeat.interval_s, sc->heartbeat.timeout_s / 10);
}

/* Sends this supervisor's heartbeat when one is due (node 0: to every node, naming the nodes it lost; the others: to
 * node 0). Also while node 0 waits for the end records, when nothing is judged any more: a node still ending its run
 * must not take node 0 for gone. */
void supc_beat(struct sup *s, uint64_t now)
{
    if ((double)(now - s->ln->hb_sent) * 1e-9 < supc_node_beat_s(s->sc))
        return;
    json_t *o = json_pack("{s:i}", "run", s->run);
    if (s->node == 0 && s->ln->no_barrier)   /* node 0 ends with a bye to each node, not in the closing barrier */
        json_object_set_new(o, "no_barrier", json_true());
    for (int k = 1; k < s->nodes && s->node == 0; k++)   /* node 0: the nodes it lost, to everyone */
        if (supc_gone(s, k)) {
            if (!json_object_get(o, "lost"))
                json_object_set_new(o, "lost", json_array());
            json_array_append_new(json_object_get(o, "lost"), json_integer(k));
        }
    for (int k = 0; k < s->nodes; k++)
        if (k != s->node && (s->node == 0 || k == 0))
            cluster_send_json_direct(k, TAG_HB, o);
    json_decref(o);
    s->ln->hb_sent = now;
}

/* Liveness between nodes, in a star: every node tells node 0 it is alive and node 0 tells every node, each
 * supc_node_beat_s; a node silent for the heartbeat timeout (node 0, for the others) is a failure of that
 * node: the run fails on every node that can still say so, each writing its summary. */
void supc_liveness(struct sup *s, uint64_t now)
{
    if (!s->ln->hb_armed)
        return;
    supc_beat(s, now);   /* stopping too: a node stopping its workers (up to 10 s, or in a slow sync) is alive, and
                          * node 0 must not take it for lost (until 2026-12-02 it beat no more) */
    if (s->stopping)
        return;
    for (int k = 0; k < s->nodes; k++) {
        if (k == s->node || (s->node != 0 && k != 0) || supc_gone(s, k) || (k < SHM_MAX_NODES && s->ln->node_ended[k]))
            continue;   /* a node that sent its end record waits for the others in MPI_Finalize's barrier */
        double silent = now > s->ln->node_seen[k] ? (double)(now - s->ln->node_seen[k]) * 1e-9 : 0;
        if (silent > s->sc->heartbeat.timeout_s) {
            results_event(&s->res, now, "node_silent", json_pack("{s:i, s:f, s:f}", "node", k, "silent_s", silent,
                                                                 "timeout_s", s->sc->heartbeat.timeout_s));
            char msg[200];
            snprintf(msg, sizeof msg, "node %d: no word from its supervisor for %.1f s (heartbeat timeout %.1f s): the "
                                      "node is stalled or gone", k, silent, s->sc->heartbeat.timeout_s);
            supc_node_lost(s, k, msg);
            return;
        }
    }
    int stalled = cluster_stalled_peer();
    if (stalled > 0 && s->node != 0) {   /* this node's relay up the tree: node 0 judges it; ours go around it */
        cluster_mark_lost(stalled);
        results_event(&s->res, now, "relay_lost", json_pack("{s:i, s:f}", "node", stalled, "silent_s",
                                                            s->sc->heartbeat.timeout_s));
        /* node 0, straight away: this node now leaves without the closing barrier (its relay may not come to it), so
         * node 0 must say bye to every node rather than wait in the barrier (until 2026-11-30 a relay silent to this
         * node alone left node 0 in the barrier and this node waiting 100 s for a bye, then leaving without
         * MPI_Finalize) */
        json_t *o = json_pack("{s:i, s:i}", "run", s->run, "relay_lost", stalled);
        cluster_send_json_direct(0, TAG_HB, o);
        json_decref(o);
        return;
    }
    if (stalled >= 0 && !supc_gone(s, stalled) && !(stalled < SHM_MAX_NODES && s->ln->node_ended[stalled])) {
        char msg[200];
        snprintf(msg, sizeof msg, "node %d: took no message from this node for %.1f s: the node is stalled or gone",
                 stalled, s->sc->heartbeat.timeout_s);
        results_event(&s->res, now, "node_silent", json_pack("{s:i, s:f, s:f}", "node", stalled, "silent_s",
                                                             s->sc->heartbeat.timeout_s, "timeout_s",
                                                             s->sc->heartbeat.timeout_s));
        supc_node_lost(s, stalled, msg);
        return;
    }
    /* node 0 answers at once, or (a recovery it had agreed still under way: the request is queued) once that one has
     * backed off and started its ranks: the heartbeat timeout covers the messages, then the longest back-off and the
     * start-up */
    if (s->fl->rec_wait && s->fl->rec_wait_since &&
        (double)(now - s->fl->rec_wait_since) * 1e-9 >
            s->sc->heartbeat.timeout_s + (double)REC_BACKOFF_MAX_NS * 1e-9 + s->sc->heartbeat.startup_s)
        sup_fail(s, SUP_STOP_RECOVERY_FAILED, "recovery: node 0 did not answer this node's recovery request within the heartbeat timeout, "
                    "the longest back-off and the start-up time");
}


void supc_hb_in(struct sup *s, json_t *o)
{
    size_t i;
    json_t *k;
    if (s->node == 0 && json_is_integer(json_object_get(o, "relay_lost")))   /* a node took its relay for lost */
        cluster_no_barrier(), s->ln->no_barrier = 1;
    if (s->node != 0 && json_is_true(json_object_get(o, "no_barrier")))   /* node 0 will say bye instead */
        cluster_no_barrier();
    if (s->node != 0 && json_is_true(json_object_get(o, "ends_done")) &&   /* kept whenever it comes, this run's only */
        json_integer_value(json_object_get(o, "cluster_run")) == cluster_run_no())
        s->ln->ends_done = 1;
    json_array_foreach(json_object_get(o, "lost"), i, k)   /* node 0's lost nodes: what is sent up goes around them */
        if (json_is_integer(k) && json_integer_value(k) > 0 && json_integer_value(k) < s->nodes &&
            json_integer_value(k) != s->node)
            cluster_mark_lost((int)json_integer_value(k));
}

static void relay_seen(struct sup *s, int node)
{
    if (node == 0 && s->ln->node_seen)
        s->ln->node_seen[0] = mono_ns();
}
static void relay_json(void *ctx, int node, int tag, json_t *o)
{
    relay_seen(ctx, node);
    if (tag == TAG_HB)
        supc_hb_in(ctx, o);
}
static void relay_failed(void *ctx, int node, const char *why) { (void)why, relay_seen(ctx, node); }

/* A relay passes its subtree's end records on before it leaves the run, beating meanwhile, for as long as node 0
 * speaks: `gauntlet accept` goes from the run's end to its agreement, where nothing is relayed (until 2026-12-02 a
 * child's end record that came a moment late sat there, and node 0 took the child for lost: a suite of more than
 * gather_fanout + 1 nodes could fail healthy nodes). The wait takes only what it needs: the records from below are passed on (cluster_poll's relay path), node 0's word
 * is a sign of life, the rest is over here (the run has ended: no recovery, boundary or vote is taken up again). A
 * stop by a signal waits 0.3 s at most, as node 0 waits for the end records then. */
void supc_relay_ends(struct sup *s)
{
    const struct cluster_sink sink = { s, NULL, relay_failed, relay_json };
    uint64_t until = s->signals ? mono_ns() + 300000000ull : UINT64_MAX;
    while (!cluster_subtree_run_ended() && !s->ln->ends_done && !supc_silent(s, 0) && !supc_gone(s, 0) &&
           mono_ns() < until) {
        cluster_poll(&sink);
        supc_beat(s, mono_ns());
        cluster_flush();
        sleep_ns(1000000);
    }
}

/* Node 0 tells every node it waits for no more end records: a relay waits for its subtree's until then, and one that
 * went around it (a node whose relay was deaf to it) is not waited for there. */
void supc_ends_done(struct sup *s)
{
    json_t *done = json_pack("{s:i, s:b, s:i}", "run", s->run, "ends_done", 1, "cluster_run", cluster_run_no());
    for (int k = 1; k < s->nodes; k++)
        if (!supc_gone(s, k))
            cluster_send_json_direct(k, TAG_HB, done);
    json_decref(done);
    cluster_flush();
}
