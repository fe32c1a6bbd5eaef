/* harness/campaign/campaign_straggler.c: what a run's record shows of a straggler: the heartbeat's rule replayed on
 * the rank's node's record as its supervisor applied it, and the rank's compute phases against its peers' (for a
 * straggler missed or caught late). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_int.h"
#include "detectors/detector.h"
#include "stats.h"

#define CP_RULE_RANKS 64   /* a campaign's ranks at most (--ranks x --nodes) */

/* The record of rank's compute phases, opened: node 0's events.jsonl, or on several nodes the rank's node's own
 * events-node<N>.jsonl (every line of its GPUs; node 0's holds only its fold of them), NULL when there is none. A
 * straggler is judged on its node, against that node's ranks (the node's supervisor takes the median). */
static FILE *cp_events_of(const char *dir, int rank, int node_ranks)
{
    char path[1100];
    int node = node_ranks > 0 ? rank / node_ranks : 0;
    FILE *f = NULL;
    if (node > 0) {
        snprintf(path, sizeof path, "%s/events-node%d.jsonl", dir, node);
        f = fopen(path, "r");
    }
    if (!f) {   /* one node, or forward: ranks (node 0 holds every line) */
        snprintf(path, sizeof path, "%s/events.jsonl", dir);
        f = fopen(path, "r");
    }
    return f;
}

/* For a straggler missed or caught late: the rank's compute phases from the injection's iteration on, each as
 * "iteration: its ms / the peers' median ms @ seconds after the injection" (a phase that begins past the fault's
 * duration runs at full speed; a peer slowed by the host lifts the median): what such a broken invariant needs to be
 * read. Later lines of a rank's iteration replace earlier ones (a rollback's rerun is the timeline that survived). */
void cp_straggler_trace(const char *dir, int rank, int node_ranks, int from, double inj_s, char *out, size_t n)
{
    enum { W = 8, R = 64 };
    double beg[W][R], dur[W][R];
    node_ranks = node_ranks > 0 ? node_ranks : R;
    for (int i = 0; i < W; i++)
        for (int r = 0; r < R; r++)
            beg[i][r] = dur[i][r] = NAN;
    char *line = NULL;
    size_t cap = 0;
    FILE *f = cp_events_of(dir, rank, node_ranks);
    out[0] = 0;
    if (!f || rank < 0 || rank >= R) {
        if (f)
            fclose(f);
        return;
    }
    while (getline(&line, &cap, f) > 0) {
        if (!strstr(line, "\"compute\""))
            continue;
        json_t *o = json_loads(line, 0, NULL);
        const char *ev = json_string_value(json_object_get(o, "event"));
        long long it = json_integer_value(json_object_get(o, "iter")) - from, r = json_integer_value(json_object_get(o, "rank"));
        double t = json_number_value(json_object_get(o, "t_s"));
        if (ev && it >= 0 && it < W && r >= 0 && r < R) {
            if (strcmp(ev, "phase_begin") == 0)
                beg[it][r] = t, dur[it][r] = NAN;
            else if (strcmp(ev, "phase_end") == 0 && !isnan(beg[it][r]))
                dur[it][r] = t - beg[it][r];
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
    size_t k = (size_t)snprintf(out, n, "; rank %d's compute phases (ms / peers' median @ s after injection):", rank);
    for (int i = 0; i < W && k < n; i++) {
        if (isnan(dur[i][rank]))
            continue;
        struct series peers = { 0 };   /* a NAN (no phase of that peer) is skipped */
        for (int r = 0; r < R; r++)
            if (r != rank && r / node_ranks == rank / node_ranks)
                series_add(&peers, dur[i][r]);
        k += (size_t)snprintf(out + k, n - k, " %d: %.0f/%.0f @%.2f", from + i, dur[i][rank] * 1e3,
                              series_pct(&peers, 50) * 1e3, beg[i][rank] - inj_s);
        series_free(&peers);
    }
}

/* The rule's state for one node's ranks, as the supervisor keeps it (faultlog.c): each rank's latest compute phase
 * and its iteration, a phase begun, the straggler's slow phases in a row, the ranks shrink dropped. */
struct cp_rule {
    double open[CP_RULE_RANKS], last[CP_RULE_RANKS];
    int64_t last_iter[CP_RULE_RANKS];
    unsigned char dropped[CP_RULE_RANKS];
    int count;
};

/* Forgets what one timeline held (faultlog_clear_windows, at a recovery's new epoch, and faultlog_run_begin): no
 * phase begun, no peer's latest phase of this timeline (iteration -1), no slow phase in a row. A peer's latest
 * duration stays, as the supervisor's compute_s does. */
static void cp_rule_clear(struct cp_rule *w)
{
    for (int r = 0; r < CP_RULE_RANKS; r++)
        w->open[r] = NAN, w->last_iter[r] = -1;
    w->count = 0;
}

/* The heartbeat's straggler rule (its own function, heartbeat.c: slower than CP_HB_FACTOR x the peers' median and
 * by CP_HB_EXCESS_S, persist times in a row) replayed on the record as the supervisor applied it (faultlog_compute):
 * every compute phase in the order the supervisor wrote it, of the run it was on, against the latest phase of each
 * peer of its node that shrink has not dropped and that is no more than an iteration behind; a recovery's new epoch
 * (this node's recovery_begin: the old timeline's reports are dropped before they reach the record) clears the
 * peers' iterations and the count, as faultlog_clear_windows does. For rank's phases that end after inj_s: the
 * iteration whose phase completes the first run of persist slow ones (-1: none did), and *longest, the longest run
 * of slow phases. A loaded host that stretched a peer's phase (lifting the median) or made the fault's window end
 * early breaks the run: no detector can see what the record does not show. */
int64_t cp_straggler_rule(const char *dir, int rank, int node_ranks, double inj_s, int persist, int *longest)
{
    struct cp_rule w = { .count = 0 };
    node_ranks = node_ranks > 0 ? node_ranks : CP_RULE_RANKS;
    long long cur_run = 0;
    int64_t found = -1;
    const struct heartbeat_params hp = { CP_HB_FACTOR, CP_HB_EXCESS_S, persist };
    cp_rule_clear(&w);
    for (int r = 0; r < CP_RULE_RANKS; r++)
        w.last[r] = 0, w.dropped[r] = 0;   /* the supervisor's compute_s starts at 0 */
    *longest = 0;
    char *line = NULL;
    size_t cap = 0;
    FILE *f = cp_events_of(dir, rank, node_ranks);
    if (!f || rank < 0 || rank >= CP_RULE_RANKS) {
        if (f)
            fclose(f);
        return -1;
    }
    int node = rank / node_ranks;
    while (found < 0 && getline(&line, &cap, f) > 0) {
        if (!strstr(line, "\"compute\"") && !strstr(line, "\"recovery_begin\"") && !strstr(line, "\"rank_dropped\""))
            continue;
        json_t *o = json_loads(line, 0, NULL), *nd = json_object_get(o, "node");
        const char *ev = json_string_value(json_object_get(o, "event")) ?: "";
        const char *phase = json_string_value(json_object_get(o, "phase")) ?: "";
        json_int_t it = json_integer_value(json_object_get(o, "iter")), r = json_integer_value(json_object_get(o, "rank"));
        long long run = json_integer_value(json_object_get(o, "run"));
        double t = json_number_value(json_object_get(o, "t_s"));
        int in = r >= 0 && r < CP_RULE_RANKS && json_is_integer(json_object_get(o, "rank"));
        if (strcmp(ev, "recovery_begin") == 0 && (!json_is_integer(nd) || json_integer_value(nd) == node))
            cp_rule_clear(&w);   /* this node's new epoch (node 0's file holds other nodes' lines too) */
        else if (strcmp(ev, "rank_dropped") == 0 && in)
            w.dropped[r] = 1;
        else if (in && strcmp(phase, "compute") == 0 && run >= cur_run) {
            if (run > cur_run)   /* a new mitigation run: faultlog_run_begin */
                cur_run = run, cp_rule_clear(&w);
            if (strcmp(ev, "phase_begin") == 0) {
                w.open[r] = t;
            } else if (strcmp(ev, "phase_end") == 0 && !isnan(w.open[r])) {
                double dur = t - w.open[r], v[CP_RULE_RANKS];
                int n = 0;
                w.open[r] = NAN;
                for (int p = 0; p < CP_RULE_RANKS; p++)
                    if (p != r && p / node_ranks == r / node_ranks && !w.dropped[p] && w.last_iter[p] >= it - 1)
                        v[n++] = w.last[p];
                w.last[r] = dur, w.last_iter[r] = it;
                if (r == rank && n > 0) {   /* the detector's own judgement (heartbeat.c), its count kept throughout */
                    char note[96];
                    int slow = detector_table[DET_HEARTBEAT]->slow(&hp, dur, v, n, &w.count, note, sizeof note);
                    if (t > inj_s) {
                        found = slow ? it : found;
                        *longest = w.count > *longest ? w.count : *longest;
                    }
                }
            }
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
    return found;
}
