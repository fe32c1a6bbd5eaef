/* harness/campaign/campaign_across.c: one schedule's runs compared across strategies: the same detections (detector,
 * rank, iteration) of every fault under every strategy, pair by pair, where both runs could see the fault alike. */
#include <stdio.h>

#include "campaign_int.h"

/* The detections of one run equal another's, except for faults on ranks that shrink removed in either; where
 * shrink left two ranks or fewer, a fingerprint vote cannot name the rank (a tie), so the rank is not compared. */
static int cp_same(const struct cp_result *a, const struct cp_result *b, const struct cp_sched *sc, char *why, size_t n)
{
    for (int k = 0; k < sc->n; k++) {
        const struct cp_det *x = &a->det[k], *y = &b->det[k];
        if ((a->dropped | b->dropped) >> sc->f[k].rank & 1 || a->exhausted || b->exhausted || x->shrunk || y->shrunk)
            continue;   /* shrink changed the world it fired in: fewer peers, another timing */
        if (x->borderline || y->borderline)
            continue;   /* the host's load left a straggler's run of slow phases short in one of them */
        int shrunk = (a->dropped || b->dropped) && (x->rank < 0 || y->rank < 0);
        int timed = sc->f[k].kind == CK_STRAGGLER;   /* seen after persist slow phases in wall time: within its bound */
        /* the same detector, rank and delay in iterations from the iteration it was carried out in: a fault sent to
         * another node's rank may land an iteration later under load, and is seen that much later too */
        int64_t dx = x->iter_fired >= 0 ? x->iter_seen - x->iter_fired : x->iter_seen;
        int64_t dy = y->iter_fired >= 0 ? y->iter_seen - y->iter_fired : y->iter_seen;
        if (x->detector != y->detector || (x->rank != y->rank && !shrunk) || (dx != dy && !timed)) {
            snprintf(why, n, "fault %d (%s on rank %d at %d): detector %d rank %d iteration %lld (fired %lld) vs detector "
                     "%d rank %d iteration %lld (fired %lld)", k, cp_kind_names[sc->f[k].kind], sc->f[k].rank,
                     sc->f[k].at, x->detector, x->rank, (long long)x->iter_seen, (long long)x->iter_fired, y->detector,
                     y->rank, (long long)y->iter_seen, (long long)y->iter_fired);
            return 0;
        }
    }
    return 1;
}

int cp_compare(const struct cp_opts *o, const struct cp_result *res, const struct cp_sched *sc, const char *name,
               json_t *breaks)
{
    /* every pair, not each against the first alone: under shrink first, a dropped rank or a run out of ranks excused
     * every later fault of every pair, and the others were never compared (until 2026-11-30) */
    int broken = 0;
    char why[CP_NOTE * 2];
    for (int a = 0; a < o->nstrat; a++)
        for (int b = a + 1; b < o->nstrat; b++) {
            if (res[a].not_started || res[b].not_started || cp_same(&res[a], &res[b], sc, why, sizeof why))
                continue;   /* a run that never began has nothing to compare */
            char w[sizeof why + 64];
            snprintf(w, sizeof w, "%s and %s detect differently: %s", o->strat[a], o->strat[b], why);
            json_array_append_new(breaks, json_pack("{s:s, s:s}", "run", name, "why", w));
            broken++;
        }
    return broken;
}
