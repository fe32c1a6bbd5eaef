/* harness/cluster/supfp.c: the fingerprint detector across nodes. Each node's supervisor votes over its own ranks
 * (faultlog.c); where they agree it sends node 0 the node's value of the iteration and how many ranks hold it, where
 * they do not, that its own vote took the iteration. Node 0 votes over every rank of every node that agreed, as a
 * node votes over its ranks (the value most ranks hold is right; another held as often is a tie), and tells the node
 * whose ranks differ, which records the detection as its own vote would: its fault, its recovery. At a run's end node
 * 0 compares every node's final state (supfp_run_end): runs[].fingerprints_agree covers every node's ranks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "detectors/detector.h"
#include "supcluster_int.h"
#include "util.h"

/* Node 0: one row per iteration of the window, every node's value of it. */
struct supfp {
    int64_t *run, *ep, *iter;   /* [FP_WINDOW] the row's key (iter -1: none) */
    int *got, *need;            /* [FP_WINDOW] nodes heard for the row; nodes taking part when it began */
    uint64_t *h;                /* [FP_WINDOW][nodes] each node's value */
    int *n;                     /* [FP_WINDOW][nodes] its ranks holding it (0: they disagreed; its own vote took it) */
    unsigned char *have;        /* [FP_WINDOW][nodes] */
    uint64_t *val;              /* [nodes] the distinct values of a vote, and the ranks holding each */
    int *cnt;
};

static struct supfp *supfp_get(struct sup *s)
{
    if (s->ln->fp)
        return s->ln->fp;
    struct supfp *f = xcalloc(1, sizeof *f);
    size_t rows = FP_WINDOW, cells = rows * (size_t)s->nodes;
    f->run = xmalloc(rows * sizeof *f->run);
    f->ep = xmalloc(rows * sizeof *f->ep);
    f->iter = xmalloc(rows * sizeof *f->iter);
    f->got = xcalloc(rows, sizeof *f->got);
    f->need = xcalloc(rows, sizeof *f->need);
    for (size_t i = 0; i < rows; i++)
        f->iter[i] = -1;
    f->h = xcalloc(cells, sizeof *f->h);
    f->n = xcalloc(cells, sizeof *f->n);
    f->have = xcalloc(cells, 1);
    f->val = xcalloc((size_t)s->nodes, sizeof *f->val);
    f->cnt = xcalloc((size_t)s->nodes, sizeof *f->cnt);
    s->ln->fp = f;
    return f;
}

void supfp_free(struct sup *s)
{
    struct supfp *f = s->ln ? s->ln->fp : NULL;
    if (!f)
        return;
    free(f->run), free(f->ep), free(f->iter), free(f->got), free(f->need), free(f->h), free(f->n), free(f->have), free(f->val), free(f->cnt);
    free(f);
    s->ln->fp = NULL;
}

/* Whether node k takes part in the vote: not lost, not ended, with ranks left (shrink). */
static int supfp_expected(const struct sup *s, int k)
{
    return k < SHM_MAX_NODES && !s->ln->node_gone[k] && !s->ln->node_ended[k] && s->shm.hdr->xn.live[k];
}

/* Node 0: tells node k (itself too) what the vote found of its ranks at the row's iteration. */
static void supfp_tell(struct sup *s, int k, int64_t run, int64_t ep, int64_t iter, int tie, uint64_t best, int best_n,
                       int world, uint64_t mine)
{
    char note[160];
    if (tie)
        snprintf(note, sizeof note, "the nodes' ranks disagree with no majority (%016" PRIx64 ": %d of %d ranks)", mine,
                 best_n, world);
    else
        snprintf(note, sizeof note, "differs from the majority of the nodes' ranks (%016" PRIx64 "; %d of %d hold %016" PRIx64 ")",
                 mine, best_n, world, best);
    json_t *o = json_pack("{s:I, s:I, s:I, s:b, s:s}", "run", (json_int_t)run, "ep", (json_int_t)ep, "iter",
                          (json_int_t)iter, "tie", tie, "note", note);
    if (k == 0)
        supfp_message(s, 0, TAG_FP_VERDICT, o);
    else
        cluster_send_json(k, TAG_FP_VERDICT, o);
    json_decref(o);
}

/* Node 0: row i is whole when every node taking part has said: the vote over every rank that agreed within its node. */
static void supfp_vote(struct sup *s, struct supfp *f, int i)
{
    const uint64_t *h = f->h + (size_t)i * (size_t)s->nodes;
    const int *n = f->n + (size_t)i * (size_t)s->nodes;
    const unsigned char *have = f->have + (size_t)i * (size_t)s->nodes;
    if (f->got[i] < f->need[i])
        return;   /* a look over every node once per row, not per node heard: 4,096 nodes stay linear */
    for (int k = 0; k < s->nodes; k++)
        if (supfp_expected(s, k) && !have[k])
            return;
    int nv = 0, world = 0, voters = 0;
    for (int k = 0; k < s->nodes; k++) {   /* the distinct values, each with the ranks that hold it */
        if (!have[k] || n[k] <= 0)
            continue;
        int v = 0;
        while (v < nv && f->val[v] != h[k])
            v++;
        if (v == nv)
            f->val[nv] = h[k], f->cnt[nv++] = 0;
        f->cnt[v] += n[k];
        world += n[k];
        voters++;
    }
    int64_t run = f->run[i], ep = f->ep[i], iter = f->iter[i];
    f->iter[i] = -1;
    if (nv < 2 || voters < 2)
        return;   /* every rank that agreed within its node agrees across nodes too */
    int b = 0, tie = 0;   /* as fingerprint.c's vote, over the ranks: the value most hold; another as often: a tie */
    for (int v = 1; v < nv; v++)
        if (f->cnt[v] > f->cnt[b])
            b = v, tie = 0;
        else if (f->cnt[v] == f->cnt[b])
            tie = 1;
    for (int k = 0; k < s->nodes; k++)
        if (have[k] && n[k] > 0 && (tie || h[k] != f->val[b]))
            supfp_tell(s, k, run, ep, iter, tie, f->val[b], f->cnt[b], world, h[k]);
}

/* Node 0: node k's value of an iteration (n: its ranks agreeing; 0: its own vote took the iteration). */
static void supfp_fold(struct sup *s, int k, int64_t run, int64_t ep, int64_t iter, uint64_t h, int n)
{
    if (k < 0 || k >= s->nodes || iter < 0)
        return;
    struct supfp *f = supfp_get(s);
    int i = (int)(iter % FP_WINDOW);
    unsigned char *have = f->have + (size_t)i * (size_t)s->nodes;
    if (f->iter[i] != iter || f->run[i] != run || f->ep[i] != ep) {   /* a new row (an older one never whole: gone) */
        f->iter[i] = iter;
        f->run[i] = run;
        f->ep[i] = ep;
        memset(have, 0, (size_t)s->nodes);
        f->got[i] = f->need[i] = 0;
        for (int q = 0; q < s->nodes; q++)
            f->need[i] += supfp_expected(s, q);
    }
    f->got[i] += !have[k];
    have[k] = 1;
    f->h[(size_t)i * (size_t)s->nodes + (size_t)k] = h;
    f->n[(size_t)i * (size_t)s->nodes + (size_t)k] = n;
    supfp_vote(s, f, i);
}

void supfp_recount(struct sup *s)
{
    struct supfp *f = s->node == 0 && s->ln ? s->ln->fp : NULL;
    if (!f)
        return;
    int expected = 0;
    for (int q = 0; q < s->nodes; q++)
        expected += supfp_expected(s, q);
    for (int i = 0; i < FP_WINDOW; i++)
        if (f->iter[i] >= 0) {
            f->need[i] = expected;   /* supfp_vote still looks at every node that takes part */
            supfp_vote(s, f, i);
        }
}

void supfp_node(struct sup *s, int64_t iter, uint64_t h, int n)
{
    int64_t ep = (int64_t)atomic_load(&s->shm.hdr->xn.epoch);   /* the same on every node for one timeline */
    if (s->node == 0) {
        supfp_fold(s, 0, s->run, ep, iter, h, n);
        return;
    }
    char hex[20];
    snprintf(hex, sizeof hex, "%016" PRIx64, h);
    json_t *o = json_pack("{s:i, s:I, s:I, s:i}", "run", s->run, "ep", (json_int_t)ep, "iter", (json_int_t)iter, "n", n);
    if (n > 0)
        json_object_set_new(o, "fp", json_string(hex));
    cluster_send_json(0, TAG_FP, o);   /* up the tree after this node's lines of the iteration */
    json_decref(o);
}

/* Node k: node 0's vote found its ranks at iteration iter differ from the majority (or tie): recorded as its own
 * vote would record it, unless the timeline it was for is over. */
static void supfp_verdict(struct sup *s, json_t *o)
{
    int64_t iter = json_integer_value(json_object_get(o, "iter"));
    const char *note = json_string_value(json_object_get(o, "note"));
    if (!s->running || json_integer_value(json_object_get(o, "run")) != s->run || s->stopping ||
        (s->recovering && !s->fl->rec_wait) ||
        json_integer_value(json_object_get(o, "ep")) != (json_int_t)atomic_load(&s->shm.hdr->xn.epoch))
        return;   /* a timeline a recovery (or the end) left behind: its findings go with it, as a stale report's */
    int rank = -1, active = 0, tie = json_is_true(json_object_get(o, "tie"));
    for (int r = 0; r < s->nranks; r++)   /* one rank left here: a majority names it; several that agree: the node */
        if (!s->dropped[r])
            rank = r, active++;
    if (active != 1 || tie)
        rank = -1;   /* a tie names no rank, as a node's own vote does */
    if (tie && s->ops->modelled && !faultlog_explains(s, DET_FINGERPRINT, iter)) {
        /* no majority to name a node by; on modelled devices, where nothing fails by itself, the node whose fault
         * explains the disagreement records it, and the others say they took part */
        results_event(&s->res, mono_ns(), "fingerprint_tie",
                      json_pack("{s:I, s:s, s:s}", "iter", (json_int_t)iter, "note", note ? note : "",
                                "what", "no fault of this node explains it: another node's does"));
        return;
    }
    faultlog_detect(s, DET_FINGERPRINT, rank, iter, mono_ns(), note ? note : "differs from the other nodes", 1);
}

void supfp_message(struct sup *s, int node, int tag, json_t *o)
{
    if (tag == TAG_FP_VERDICT) {
        supfp_verdict(s, o);
        return;
    }
    if (s->node != 0)
        return;
    const char *hex = json_string_value(json_object_get(o, "fp"));
    int n = (int)json_integer_value(json_object_get(o, "n"));
    uint64_t h = hex ? strtoull(hex, NULL, 16) : 0;
    supfp_fold(s, node, json_integer_value(json_object_get(o, "run")), json_integer_value(json_object_get(o, "ep")),
               json_integer_value(json_object_get(o, "iter")), h, hex ? n : 0);
}

/* Node 0: node k's figures of run m, where it ended the run whole with ranks still in it (NULL: none). */
static json_t *supfp_final(struct sup *s, int m, int k)
{
    json_t *r;
    size_t i;
    if (s->ln->node_gone[k] || !s->shm.hdr->xn.live[k])
        return NULL;   /* a node lost, or left without a rank by shrink, holds no state of the run's end */
    json_array_foreach(s->ln->node_runs, i, r)
        if (json_integer_value(json_object_get(r, "node")) == k && json_integer_value(json_object_get(r, "run")) == m)
            return json_string_value(json_object_get(r, "state_fingerprint")) ? r : NULL;
    return NULL;
}

void supfp_run_end(struct sup *s, int m, json_t *run)
{
    if (s->nodes < 2 || s->node != 0 || !json_string_value(json_object_get(run, "state_fingerprint")))
        return;   /* a run that did not end whole has no final state to compare */
    const char *mine = NULL;   /* the first node's still in the run: the others are compared with it */
    int ref = -1, agree = 1, compared = 0;
    json_t *differ = json_array();
    for (int k = 0; k < s->nodes; k++) {
        json_t *r = supfp_final(s, m, k);
        const char *fp = r ? json_string_value(json_object_get(r, "state_fingerprint")) : NULL;
        if (!fp)
            continue;
        compared++;
        if (!mine)
            mine = fp, ref = k;
        agree &= json_is_true(json_object_get(r, "fingerprints_agree"));   /* its own ranks, as on one node */
        if (strcmp(fp, mine) != 0) {
            agree = 0;
            json_array_append_new(differ, json_pack("{s:i, s:s, s:o}", "node", k, "state_fingerprint", fp,
                                                    "fingerprints_agree", json_copy(json_object_get(r, "fingerprints_agree"))));
        }
    }
    json_object_set_new(run, "fingerprints_agree", json_boolean(agree));   /* every node's ranks, not node 0's alone */
    json_object_set_new(run, "fingerprints_nodes", json_integer(compared));   /* the nodes whose final state it holds */
    if (!json_array_size(differ)) {
        json_decref(differ);
        return;
    }
    char msg[400];
    json_t *d0 = json_array_get(differ, 0);
    snprintf(msg, sizeof msg, "run %d: the nodes ended in different states (node %d %s, node %d %s%s): %s", m + 1,
             (int)json_integer_value(json_object_get(d0, "node")), json_string_value(json_object_get(d0, "state_fingerprint")),
             ref, mine, json_array_size(differ) > 1 ? ", and others" : "",
             scenario_detector_on(s->sc, DET_FINGERPRINT) ? "fingerprint: a corruption no iteration's vote caught (no "
                                                            "iteration is left to recover)"
                                                          : "silent corruption (the fingerprint detector is off)");
    results_event(&s->res, mono_ns(), "states_differ", json_pack("{s:i, s:s, s:o, s:s}", "run", m, "state_fingerprint",
                                                                 mine, "nodes", differ, "note", msg));
    if (scenario_detector_on(s->sc, DET_FINGERPRINT) && !s->failed)
        sup_fail(s, SUP_STOP_FAULT, msg);   /* the detector's last comparison: a detection, as recovery none ends a run */
    else
        gl_log("%s", msg);
}
