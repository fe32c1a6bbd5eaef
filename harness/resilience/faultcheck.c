/* harness/resilience/faultcheck.c: the checks the supervisor runs on what the ranks report, beside the workers' own
 * detectors: the cross-rank fingerprint comparison, the straggler check on compute phases, and the backstop for a rank
 * whose process is gone with no recovery to take it. */
#include <stdio.h>
#include <string.h>

#include "detectors/detector.h"
#include "recovery/recovery.h"
#include "resilience.h"
#include "util.h"

void faultlog_fingerprint(struct sup *s, const struct wevent *ev)
{
    if (ev->rank < 0 || ev->rank >= s->nranks || ev->run != s->run)
        return;
    int row = (int)(ev->iter % FP_WINDOW);
    uint64_t *h = s->fl->fp + (size_t)row * (size_t)s->nranks;
    unsigned char *have = s->fl->fp_have + (size_t)row * (size_t)s->nranks;
    if (s->fl->fp_iter[row] != ev->iter) {
        s->fl->fp_iter[row] = ev->iter;
        memset(have, 0, (size_t)s->nranks);
    }
    h[ev->rank] = ((uint64_t)ev->a << 32) | (uint64_t)ev->b;
    have[ev->rank] = 1;
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r] && !have[r])
            return;
    /* every rank has reported this iteration: the detector's vote (fingerprint.c) */
    uint64_t best = 0;
    int tie = 0, agree = 0;
    detector_table[DET_FINGERPRINT]->vote(h, s->dropped, s->nranks, &best, &tie);
    s->fl->fp_iter[row] = -1;
    /* what the vote compared: each rank's value against another rank's of this node, or (several nodes) against the
     * other nodes' in node 0's vote across nodes (supfp.c); a rank alone compares nothing (sdc_checks) */
    int voting = 0;
    for (int r = 0; r < s->nranks; r++)
        voting += !s->dropped[r];
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r] && (voting >= 2 || (s->fl->coord && s->fl->coord->fingerprint)))
            s->rs.rank[r].sdc_checks[DET_FINGERPRINT]++;
    if (s->fl->coord && s->fl->coord->fingerprint) {   /* several nodes: the node's value joins the vote across nodes
                                                        * (supfp.c) where its ranks agree; where not, this vote speaks */
        for (int r = 0; r < s->nranks && agree >= 0; r++)
            agree = s->dropped[r] ? agree : h[r] == best ? agree + 1 : -1;
        s->fl->coord->fingerprint(s, ev->iter, best, tie || agree < 0 ? 0 : agree);
    }
    for (int r = 0; r < s->nranks; r++) {
        if (s->dropped[r] || (h[r] == best && !tie))
            continue;
        char note[96];
        snprintf(note, sizeof note, tie ? "ranks disagree with no majority (%016llx)" : "differs from the majority (%016llx)",
                 (unsigned long long)h[r]);
        /* detected now, when the last rank's fingerprint arrived; not at that rank's own time */
        faultlog_detect(s, DET_FINGERPRINT, tie ? -1 : r, ev->iter, mono_ns(), note, 1);
        if (tie || s->recovering || s->stopping)
            return;
    }
}

void faultlog_compute(struct sup *s, const struct wevent *ev, double dur)
{
    int rank = ev->rank, others = 0;
    double v[256];
    s->fl->compute_s[rank] = dur;
    s->fl->compute_iter[rank] = ev->iter;
    for (int r = 0; r < s->nranks && others < 256; r++)
        if (r != rank && !s->dropped[r] && s->fl->compute_iter[r] >= ev->iter - 1)
            v[others++] = s->fl->compute_s[r];
    if (others == 0)
        return;
    char note[96];   /* the detector's judgement (heartbeat.c) */
    if (detector_table[DET_HEARTBEAT]->slow(scenario_detector_params(s->sc, DET_HEARTBEAT), dur, v, others,
                                            &s->fl->slow_count[rank], note, sizeof note))
        faultlog_detect(s, DET_HEARTBEAT, rank, ev->iter, ev->t_ns, note, 0);
}

void faultlog_gone(struct sup *s, uint64_t now)
{
    if (!s->running || s->stopping || s->recovering || s->failed || !recovery_table[s->sc->recovery.index]->recovers)
        return;
    for (int r = 0; r < s->nranks; r++) {
        int k = s->slot_of[r];
        /* a death the detectors took is queued (n_pending) or recovered: only one nothing took is left behind */
        if (s->dropped[r] || s->alive[k] || s->rs.rank[r].done || s->fl->n_pending) {
            s->fl->gone_ns[r] = 0;
            continue;
        }
        if (!s->fl->gone_ns[r])
            s->fl->gone_ns[r] = now;
        double age = (double)(now - s->fl->gone_ns[r]) * 1e-9;
        if (age <= s->sc->heartbeat.timeout_s)
            continue;
        s->fl->gone_ns[r] = 0;
        char note[200];
        snprintf(note, sizeof note, "rank %d's process has been gone for %.2f s and no recovery took it (the ranks left "
                 "would wait for it for ever)", r, age);
        gl_log("%s", note);
        faultlog_detect(s, DET_HEARTBEAT, r, atomic_load(&shm_ctl(&s->shm, k)->iter), now, note, 2);
        return;   /* one a turn: the next is acted on with it */
    }
}
