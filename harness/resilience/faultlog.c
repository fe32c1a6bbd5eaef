/* harness/resilience/faultlog.c: the supervisor's book of faults and detections: which fault each detection caught
 * (or that it was a false positive), the failures queued for the recovery machine, the rollbacks of one timeline,
 * and what each fault's detection and recovery took (their JSON: faultjson.c; the checks that find faults on the
 * supervisor's side: faultcheck.c; the faults it sends: faultsend.c). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "detectors/detector.h"
#include "faults/fault.h"
#include "recovery/recovery.h"
#include "resilience.h"
#include "util.h"

/* Returns whether detector det (flavour: 0 straggler, 1 fatal, 2 hang) can have caught a fault of kind: the
 * detector's own list (detector_ops.finds). */
static int faultlog_compatible(int det, int flavour, const char *kind) { return detector_finds(det, flavour == 0, kind); }

void faultlog_run_begin(struct sup *s)
{
    for (int i = 0; i < FP_WINDOW; i++)
        s->fl->fp_iter[i] = -1;
    memset(s->fl->fp_have, 0, (size_t)FP_WINDOW * (size_t)s->nranks);
    memset(s->fl->detcost, 0, sizeof s->fl->detcost);
    memset(s->fl->detdev, 0, sizeof s->fl->detdev);
    memset(s->fl->detdev_ranks, 0, sizeof s->fl->detdev_ranks);
    memset(s->fl->detcost_iters, 0, sizeof s->fl->detcost_iters);
    memset(s->fl->detdev_iters, 0, sizeof s->fl->detdev_iters);
    for (int r = 0; r < s->nranks; r++) {
        s->fl->compute_iter[r] = -1;
        s->fl->compute_sum[r] = 0;
        s->fl->slow_count[r] = 0;
    }
    s->fl->awaiting_fault = -1;
    s->check_cap = INT64_MAX;
    for (int i = 0; i < SC_MAX_FAULTS; i++)
        s->fl->sent_rank[i] = -1;   /* a run's own: what an earlier run asked is that run's (faultlog_run_end) */
    s->fl->restore_fault = -1;
    s->fl->n_superseded = 0;
    s->fl->n_joined = 0;
    s->fl->stale_reports = 0;
    s->fl->fail_iter = -1;
    for (int r = 0; r < s->nranks; r++)
        s->fl->gone_ns[r] = 0;
    recover_run_reset(s->fl);   /* a run's own give-up counts: each run's faults fire anew (docs/faults.md) */
    s->epoch++;
    for (int i = 0; i < s->sc->n_faults; i++)
        atomic_store(&s->shm.hdr->fault_fired[i], 0);
    faultlog_timers_begin(s);
}

/* Clears the per-iteration windows: nothing of one timeline meets anything of another. */
static void faultlog_clear_windows(struct sup *s)
{
    for (int i = 0; i < FP_WINDOW; i++)
        s->fl->fp_iter[i] = -1;
    memset(s->fl->fp_have, 0, (size_t)FP_WINDOW * (size_t)s->nranks);
    for (int r = 0; r < s->nranks; r++) {
        s->fl->compute_iter[r] = -1;
        s->fl->compute_sum[r] = 0;
        s->fl->slow_count[r] = 0;
    }
    if (s->running)
        runstats_new_epoch(&s->rs);
}

uint32_t faultlog_new_epoch(struct sup *s, int64_t fail_iter)
{
    s->epoch++;
    s->fl->fail_iter = fail_iter;
    faultlog_clear_windows(s);
    return s->epoch;
}

/* A straggler still slowing its rank when a recovery begins, not seen yet: the recovery's continuation ends the
 * slowdown (a new process, or the run's next part), so no detector can see it any more: excused as a rolled-back
 * fault is, saying so (until 2026-12-02 it read "not detected", a miss charged to the heartbeat). */
/* Marks fault j rolled back (excused: its effect is gone before any detector saw it), why in its outcome, and says so
 * (fault_rolled_back). */
static void faultlog_mark_rolled_back(struct sup *s, int j, int64_t start_iter, const char *outcome)
{
    struct fault_rec *f = &s->fl->faults[j];
    f->rolled_back = 1;
    f->rollback_ns = mono_ns();
    str_copy(f->outcome, sizeof f->outcome, outcome);
    results_event(&s->res, f->rollback_ns, "fault_rolled_back",
                  json_pack("{s:i, s:i, s:I, s:I, s:I}", "id", j, "rank", f->rank, "iter", (json_int_t)f->iter,
                            "restore_iter", (json_int_t)start_iter, "failure_iter", (json_int_t)s->fl->fail_iter));
}

static void faultlog_cut_short(struct sup *s, int64_t start_iter)
{
    uint64_t now = mono_ns();
    for (int j = 0; j < s->fl->n_faults; j++) {
        struct fault_rec *f = &s->fl->faults[j];
        if (f->run != s->run || f->undone || f->observed || f->detector >= 0 || f->rolled_back || f->left ||
            f->spec < 0 || f->spec >= s->sc->n_faults || strcmp(fault_table[f->kind]->name, "straggler") != 0 ||
            (double)(now - f->t_ns) * 1e-9 >= ((const struct straggler_params *)s->sc->faults[f->spec].params)->duration_s)
            continue;
        faultlog_mark_rolled_back(s, j, start_iter, "cut short by the recovery before it was seen (its slowdown ends with it)");
    }
}

void faultlog_rollback(struct sup *s, int cause, int64_t start_iter)
{
    if (s->fl->fail_iter < 0)
        return;
    for (int j = 0; j < s->fl->n_faults; j++) {   /* between the restore point and the failure, not seen yet */
        struct fault_rec *f = &s->fl->faults[j];
        /* a timed one (at_s, rate) at or past the failure too: it fires no more on the new timeline (a scheduled one
         * is undone and fires again, below), and left as it was it read "not detected" (coverage 0.5 for two flips
         * of one iteration). One whose rank shrink dropped has left with it (faultlog_left_with_rank): its story is
         * told, never both (until 2026-11-30 it was rolled back too, its outcome overwritten) */
        int timed = f->spec >= 0 && f->spec < s->sc->n_faults && s->sc->faults[f->spec].at < 0;
        if (j == cause || f->run != s->run || f->undone || f->observed || f->detector >= 0 || f->rolled_back ||
            f->left || f->ineffective || f->iter < start_iter || (f->iter >= s->fl->fail_iter && !timed) || f->recovery)
            continue;   /* an ineffective one had no effect to roll back: its story is that */
        char outcome[64];
        snprintf(outcome, sizeof outcome, "rolled back before it was seen (to iteration %lld)", (long long)start_iter);
        faultlog_mark_rolled_back(s, j, start_iter, outcome);
    }
    /* by the control block's flags, not the records: a fault that fired as the recovery began has its report
     * dropped with the old timeline's */
    for (int i = 0; i < s->sc->n_faults; i++) {
        const struct fault_spec *fs = &s->sc->faults[i];
        if (fs->at < 0 || fs->at < s->fl->fail_iter || !atomic_load(&s->shm.hdr->fault_fired[i]))
            continue;
        int rec = -1;
        for (int j = 0; j < s->fl->n_faults; j++)
            if (s->fl->faults[j].spec == i && s->fl->faults[j].run == s->run && !s->fl->faults[j].undone && !s->fl->faults[j].observed)
                rec = j;
        if (rec >= 0 && (rec == cause || s->fl->faults[rec].detector >= 0))
            continue;   /* it caused this recovery, or was caught: its story is told */
        if (fs->rank >= 0 && fs->rank < s->nranks && s->dropped[fs->rank])
            continue;   /* its rank left the run (shrink): it fired, and never fires again (undone, it vanished from the
                         * summary with the rank it cost) */
        if (rec >= 0)
            s->fl->faults[rec].undone = 1;
        atomic_store(&s->shm.hdr->fault_fired[i], 0);
        results_event(&s->res, mono_ns(), "fault_undone",
                      json_pack("{s:o, s:i, s:I, s:I, s:I}", "id", rec >= 0 ? json_integer(rec) : json_null(), "fault_spec", i,
                                "rank", (json_int_t)fs->rank, "iter", (json_int_t)fs->at, "failure_iter",
                                (json_int_t)s->fl->fail_iter));
    }
    faultlog_cut_short(s, start_iter);
    s->fl->fail_iter = -1;   /* the new timeline runs from here */
}

int faultlog_current(struct sup *s, const struct wevent *ev)
{
    if (ev->type == WEV_READY || ev->type == WEV_ERROR || ev->epoch == s->epoch)
        return 1;
    s->fl->stale_reports++;
    return 0;
}

void faultlog_injected(struct sup *s, const struct wevent *ev)
{
    if (s->fl->n_faults == s->fl->cap_faults) {
        s->fl->cap_faults = s->fl->cap_faults ? 2 * s->fl->cap_faults : 16;
        s->fl->faults = xrealloc(s->fl->faults, (size_t)s->fl->cap_faults * sizeof *s->fl->faults);
    }
    if (ev->phase >= 0 && ev->phase < SC_MAX_FAULTS)
        s->fl->sent_rank[ev->phase] = -1;   /* it was carried out: nothing waits */
    struct fault_rec *f = &s->fl->faults[s->fl->n_faults++];
    *f = (struct fault_rec){ .spec = ev->phase, .kind = s->sc->faults[ev->phase].kind, .rank = ev->rank, .run = s->run,
                             .iter = ev->iter, .t_ns = ev->t_ns, .detector = -1, .restore_iter = -1, .lost = -1, .redone = -1, .joined_to = -1,
                             .det_rank = -1,
                             .d = { .target = ev->target, .where = ev->where, .format = ev->format, .element = ev->elem,
                                    .mask = ev->mask, .old_v = ev->c, .new_v = ev->d, .scale = ev->scale } };
    str_copy(f->note, sizeof f->note, ev->note);
    f->ineffective = fault_detail_ineffective(&f->d);
    str_copy(f->outcome, sizeof f->outcome, f->ineffective ? "ineffective: the element kept every bit (nothing to see)"
                                                           : "not detected");
}

/* Adds a fault nobody injected, seen by detector det at t: a real failure, recorded like an injected one. */
static int faultlog_observe(struct sup *s, int det, int flavour, int rank, int64_t iter, uint64_t t, const char *note)
{
    if (s->fl->n_faults == s->fl->cap_faults) {
        s->fl->cap_faults = s->fl->cap_faults ? 2 * s->fl->cap_faults : 16;
        s->fl->faults = xrealloc(s->fl->faults, (size_t)s->fl->cap_faults * sizeof *s->fl->faults);
    }
    int kind = 0;
    char observed[32];   /* what the detector says such a finding is */
    detector_observed_kind(det, flavour == 0, observed, sizeof observed);
    for (int k = 0; fault_table[k]; k++)
        if (strcmp(fault_table[k]->name, observed) == 0)
            kind = k;
    struct fault_rec *f = &s->fl->faults[s->fl->n_faults];
    *f = (struct fault_rec){ .spec = -1, .kind = kind, .rank = rank, .run = s->run, .observed = 1, .iter = iter,
                             .t_ns = t, .detector = -1, .restore_iter = -1, .lost = -1, .redone = -1, .joined_to = -1, .det_rank = -1,
                             .d = { .target = -1, .where = -1, .format = -1, .element = -1, .old_v = NAN, .new_v = NAN,
                                    .scale = NAN } };
    str_copy(f->note, sizeof f->note, note);
    str_copy(f->outcome, sizeof f->outcome, "not detected");
    results_event(&s->res, t, "fault_observed",
                  json_pack("{s:i, s:s, s:i, s:I, s:s, s:s}", "id", s->fl->n_faults, "kind", fault_table[kind]->name, "rank",
                            rank, "iter", (json_int_t)iter, "detector", detector_table[det]->name, "what", note));
    return s->fl->n_faults++;
}

void faultlog_left_with_rank(struct sup *s, int rank, int cause)
{
    for (int j = 0; j < s->fl->n_faults; j++) {
        struct fault_rec *f = &s->fl->faults[j];
        if (j == cause || f->rank != rank || f->run != s->run || f->observed || f->undone || f->rolled_back ||
            f->detector >= 0 || f->recovery || f->ineffective)
            continue;
        snprintf(f->outcome, sizeof f->outcome, "recovered with fault %d (its rank left the run)", cause);
        f->left = 1;
        f->rollback_ns = mono_ns();   /* the detectors' chance at it ends here (unseen_s) */
        f->joined_to = cause;
        faultlog_join(s, j);
    }
}

/* Fault i is recovered by the recovery under way (or about to begin): its recover_s ends with that one's. */
void faultlog_join(struct sup *s, int i)
{
    for (int k = 0; k < s->fl->n_joined; k++)
        if (s->fl->joined[k] == i)
            return;
    if (s->fl->n_joined < SUP_MAX_PENDING)
        s->fl->joined[s->fl->n_joined++] = i;
}

/* Returns the fault a finding of detector det on rank (-1: none named) at iter is (-1: none): the newest compatible
 * one on that rank (an older one left undetected, a corruption no detector here sees, does not take the credit for a
 * later one's finding); *repeat: it was caught already, this is it seen again (a straggler's next slow iteration, a
 * corruption still in the state). */
static int faultlog_match(struct sup *s, int det, int rank, int64_t iter, uint64_t t, int fatal, int *repeat)
{
    const struct detector_ops *dop = detector_table[det];
    int match = -1, sdc = dop->sdc;
    int window = dop->window_of ? dop->window_of(scenario_detector_params(s->sc, det)) : dop->window;
    int once = dop->once && fatal;   /* a process replaced (a heartbeat's slow-rank finding is not fatal) */
    *repeat = 0;
    for (int i = s->fl->n_faults - 1; i >= 0 && match < 0; i--) {
        struct fault_rec *f = &s->fl->faults[i];
        int whole_node = fault_table[f->kind]->node != NULL;   /* any rank of the node shows it */
        if (once && f->detector >= 0 && !whole_node)
            continue;   /* a death, a hang, a broken communicator is a new failure each time: never a repeat (but
                         * every rank of a crashed node dies of the one fault) */
        if (f->run != s->run || f->undone || f->ineffective || (rank >= 0 && f->rank != rank && !whole_node) ||
            f->t_ns > t + 1000000 || !faultlog_compatible(det, fatal, fault_table[f->kind]->name))
            continue;
        if (!f->observed && fault_target_name(f->d.target) && !detector_sees(det, fault_target_name(f->d.target)))
            continue;   /* a flip of a buffer it cannot see (detector_ops.sees) */
        if (!f->observed && f->iter > iter && !whole_node)
            continue;   /* a fault of a later iteration cannot explain this one's finding (its report came first; a
                         * crashed node's other ranks may still have been an iteration behind) */
        if (sdc && f->detector < 0 && !f->observed && !f->abandoned && iter - f->iter > window)
            continue;   /* a corruption is found in its own iteration (abft) or by the next (an async fingerprint); an
                         * older flip no detector saw does not take the credit for a later finding (a NaN spread) */
        if (f->observed && f->detector >= 0 && (f->detector != det || f->detect_iter < iter - 1))
            continue;   /* an observed fault repeats only as the same finding on the next iteration */
        if (sdc && f->detector >= 0 && f->recovered_ns && f->recovered_ns <= t)
            continue;   /* a corruption whose recovery is over (a good iteration after it) is out of the state: a later
                         * finding is another one, on a GPU a real one (until 2026-12-01 its repeat, never recovered,
                         * and no observed_fault in gauntlet accept) */
        match = i;
        *repeat = f->detector >= 0;
    }
    return match;
}

int faultlog_explains(struct sup *s, int det, int64_t iter)
{
    int repeat;
    return faultlog_match(s, det, -1, iter, mono_ns(), 1, &repeat) >= 0 && !repeat;
}

/* Whether a fatal failure of rank, found while a recovery is under way, must have a recovery of its own rather than
 * join this one: under shrink, once this node has proposed (its dead ranks dropped, the ranks going on counted and
 * agreed), a rank still in the run that fails now would be told to go on dead, and the others would wait for it in
 * their collective for ever (it is queued, and the next recovery drops it). The other strategies replace every
 * process that is gone as they restart, whenever it died. */
static int faultlog_after_proposal(struct sup *s, int rank)
{
    int st = s->fl->rm.state;
    return recovery_table[s->sc->recovery.index]->drops_failed && st != RM_IDLE && st != RM_STOPPING && rank >= 0 &&
           rank < s->nranks && !s->dropped[rank];
}

/* The fault of rank this run whose detection the recovery under way holds (found, not yet recovered), or -1. */
static int faultlog_held(struct sup *s, int rank)
{
    for (int i = s->fl->n_faults - 1; i >= 0; i--) {
        const struct fault_rec *f = &s->fl->faults[i];
        if (f->run == s->run && f->rank == rank && f->detector >= 0 && !f->recovered_ns && !f->undone && !f->rolled_back)
            return i;
    }
    return -1;
}

int faultlog_detect(struct sup *s, int det, int rank, int64_t iter, uint64_t t, const char *note, int fatal)
{
    /* a rank the recovery already holds a failure of, found hung as it stops the ranks (it was left alive: only the
     * cause's rank is killed): that failure, not another (two ranks hung at once read as three faults) */
    int held = s->recovering && det == DET_HEARTBEAT && fatal == 2 && rank >= 0 ? faultlog_held(s, rank) : -1;
    if (held >= 0)
        return held;
    const struct detector_ops *dop = detector_table[det];
    int repeat, sdc = dop->sdc;
    int window = dop->window_of ? dop->window_of(scenario_detector_params(s->sc, det)) : dop->window;
    int match = faultlog_match(s, det, rank, iter, t, fatal, &repeat);
    if (match >= 0 && !repeat && s->fl->faults[match].abandoned) {
        /* a fault whose detection was given up for an earlier failure's rollback (faultlog_take), seen again on the
         * old timeline before the ranks stop (a corruption still in the state, while the nodes agree on the
         * recovery): the rollback undoes it, it fires again and is detected on the new timeline. Taken here it
         * would be seen an iteration late on one run and in time on another, as the recovery's timing falls. */
        results_event(&s->res, t, "seen_during_recovery",
                      json_pack("{s:s, s:i, s:I, s:i, s:s}", "detector", detector_table[det]->name, "rank", rank, "iter",
                                (json_int_t)iter, "fault", match, "note", note));
        return match;
    }
    if (s->fl->fail_iter >= 0 && match >= 0 && !repeat && !s->fl->faults[match].observed && s->fl->faults[match].iter >= s->fl->fail_iter &&
        s->sc->faults[s->fl->faults[match].spec].at >= 0) {
        /* a fault the abandoned timeline ran into, seen while the recovery stops it: the rollback undoes it, it
         * fires again on the new timeline and is detected there (the recovery replaces a process it took) */
        results_event(&s->res, t, "seen_during_recovery",
                      json_pack("{s:s, s:i, s:I, s:i, s:s}", "detector", detector_table[det]->name, "rank", rank, "iter",
                                (json_int_t)iter, "fault", match, "note", note));
        return match;
    }
    if (s->fl->fail_iter >= 0 && match < 0 && rank >= 0) {
        /* while a recovery stops the ranks, a fault of the abandoned timeline whose own report came too late (it
         * was dropped with that timeline's) is known by the control block's flag: it is no real failure, and it
         * fires again on the new timeline */
        for (int i = 0; i < s->sc->n_faults; i++) {
            const struct fault_spec *fs = &s->sc->faults[i];
            if (fs->at >= s->fl->fail_iter && fs->rank == rank &&   /* the control block holds this node's local ranks */
                atomic_load(&s->shm.hdr->fault_fired[i]) && faultlog_compatible(det, fatal, fault_table[fs->kind]->name)) {
                results_event(&s->res, t, "seen_during_recovery",
                              json_pack("{s:s, s:i, s:I, s:i, s:s}", "detector", detector_table[det]->name, "rank", rank,
                                        "iter", (json_int_t)iter, "fault_spec", i, "note", note));
                return -1;
            }
        }
    }
    /* what no injected fault explains is a real failure; only a corruption on modelled devices, where nothing
     * fails by itself, is shown false */
    if (match < 0 && !repeat && !(sdc && s->ops->modelled))
        match = faultlog_observe(s, det, fatal, rank, iter, t, note);
    if (match >= 0 && repeat && s->fl->faults[match].observed)
        s->fl->faults[match].detect_iter = iter;   /* the observed straggler is still slow */
    if (s->fl->n_dets == s->fl->cap_dets) {
        s->fl->cap_dets = s->fl->cap_dets ? 2 * s->fl->cap_dets : 16;
        s->fl->dets = xrealloc(s->fl->dets, (size_t)s->fl->cap_dets * sizeof *s->fl->dets);
    }
    s->fl->dets[s->fl->n_dets++] = (struct detection){ det, rank, s->run, repeat ? -2 : match, iter, t };
    json_t *o = json_pack("{s:s, s:i, s:I, s:I, s:s, s:b}", "detector", detector_table[det]->name, "rank", rank, "iter",
                          (json_int_t)iter, "iter_seen", (json_int_t)iter, "note", note, "false_positive",
                          match < 0 && !repeat);
    if (match >= 0 && !repeat) {
        struct fault_rec *f = &s->fl->faults[match];
        f->detector = det;
        f->detect_ns = t;
        f->detect_iter = iter;
        f->det_rank = rank;
        str_copy(f->outcome, sizeof f->outcome, "detected");
        json_object_set_new(o, "fault", json_integer(match));
        json_object_set_new(o, "origin", json_string(f->observed ? "observed" : "injected"));
        /* a fault stamped up to 1 ms after its finding (another clock's stamp) has no latency: null, never a wrap */
        json_object_set_new(o, "latency_s", f->observed || t < f->t_ns ? json_null() : json_real((double)(t - f->t_ns) * 1e-9));
        json_object_set_new(o, "latency_iters", f->observed ? json_null() : json_integer(iter - f->iter));
        json_object_set_new(o, "detect_s", json_copy(json_object_get(o, "latency_s")));
        json_object_set_new(o, "detect_iters", json_copy(json_object_get(o, "latency_iters")));
    }
    results_event(&s->res, t, repeat ? "detection_repeat" : "detection", o);
    if (!fatal || repeat || s->stopping)
        return match;
    if (s->recovering && (s->fl->rec_wait || (s->fl->fail_iter >= 0 && !faultlog_after_proposal(s, rank)))) {
        /* while the recovery stops the old timeline (or this node waits for node 0's go to begin it): it replaces
         * every process that is gone (shrink: drops it, until this node has proposed) */
        if (match >= 0) {
            str_copy(s->fl->faults[match].outcome, sizeof s->fl->faults[match].outcome, "joined the recovery under way");
            int under = s->fl->rec_wait ? s->fl->rec_wait_fault : s->fl->rm.fail.fault;   /* waiting for node 0's
                                                * go, rm is the last recovery's (before any, all zero: fault 0) */
            if (under != match)
                s->fl->faults[match].joined_to = under;
            faultlog_join(s, match);
        }
        return match;
    }
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    if (!rec->recovers) {
        char msg[256], who[32];   /* a finding that names no rank (a fingerprint tie) is the node's */
        if (rank >= 0)
            snprintf(who, sizeof who, "rank %d", rank + s->node * s->nranks);
        else
            snprintf(who, sizeof who, s->nodes > 1 ? "node %d" : "the ranks", s->node);
        snprintf(msg, sizeof msg, "%s: %s: %s (recovery none: the run ends)", who, detector_table[det]->name, note);
        if (match >= 0)
            str_copy(s->fl->faults[match].outcome, sizeof s->fl->faults[match].outcome, "detected; the run ended (recovery none)");
        if (fatal == 2 && rank >= 0) {   /* a hung rank is killed: nothing may wait on it */
            s->fl->host->kill(s, s->slot_of[rank]);
        }
        sup_fail(s, SUP_STOP_FAULT, msg);
        return match;
    }
    if (s->fl->n_pending < SUP_MAX_PENDING) {   /* acted on once every rank's reports so far are in (faultlog_act) */
        int lag = sdc && window > 1 ? window - 1 : 0;
        s->fl->pending[s->fl->n_pending++] = (struct failure){ match, rank, fatal == 2, sdc, s->fl->n_dets - 1, iter, lag };
        /* until it is acted on (a recovery still starting holds it a turn), no rank may write over its replica of
         * before it: the checks stop counting there (the ranks ran on, every slot past it was overwritten, and the
         * recovery found no replica to roll back to) */
        if (iter - lag < s->check_cap)
            s->check_cap = iter - lag > 0 ? iter - lag : 0;
    }
    return match;
}

int faultlog_take(struct sup *s, struct rec_failure *out)
{
    if (!s->fl->n_pending || s->stopping)
        return 0;
    int c = 0;
    for (int i = 1; i < s->fl->n_pending; i++)
        if (s->fl->pending[i].iter < s->fl->pending[c].iter)
            c = i;
    struct failure cause = s->fl->pending[c];
    for (int i = 0; i < s->fl->n_pending; i++) {
        const struct failure *p = &s->fl->pending[i];
        if (i != c && p->fault < 0 && p->iter >= cause.iter && p->det >= 0 && p->det < s->fl->n_dets &&
            s->fl->dets[p->det].fault == -1) {
            /* a corruption seen where no fault was injected, after the earlier failure's iteration: the earlier
             * one spread to it (a NaN all-reduced to every rank); the rollback undoes both */
            s->fl->dets[p->det].fault = -3;
            results_event(&s->res, mono_ns(), "detection_abandoned",
                          json_pack("{s:o, s:i, s:I, s:I}", "fault", json_null(), "rank", p->rank, "iter", (json_int_t)p->iter,
                                    "for_iter", (json_int_t)cause.iter));
            continue;
        }
        if (i == c || p->fault < 0 || p->fault == cause.fault)
            continue;
        struct fault_rec *f = &s->fl->faults[p->fault];
        /* under shrink a rank whose process is gone leaves with the recovery: its fault never fires again, so it is
         * recovered with the earlier one, never undone (it vanished from the summary with the rank it cost) */
        int slot = p->rank >= 0 && p->rank < s->nranks ? s->slot_of[p->rank] : -1;
        /* gone: killed, reaped, or its death said through its pipe and not reaped yet (until 2026-12-01 only the
         * first two: a crash whose reap came after this was undone, its detection erased, and left with its rank) */
        int leaves = recovery_table[s->sc->recovery.index]->drops_failed && slot >= 0 &&
                     (p->kill || !s->alive[slot] || s->death_ns[slot]);
        if (!leaves && !f->observed && f->spec >= 0 && s->sc->faults[f->spec].at >= 0 && f->iter >= cause.iter) {
            /* the rollback for the earlier failure undoes this fault: it fires again and is detected anew */
            f->abandoned = 1;
            f->detector = -1;
            f->detect_ns = 0;
            f->det_rank = -1;
            str_copy(f->outcome, sizeof f->outcome, "not detected");
            if (p->det >= 0 && p->det < s->fl->n_dets)
                s->fl->dets[p->det].fault = -3;
            results_event(&s->res, mono_ns(), "detection_abandoned",
                          json_pack("{s:i, s:i, s:I, s:I}", "fault", p->fault, "rank", p->rank, "iter", (json_int_t)p->iter,
                                    "for_iter", (json_int_t)cause.iter));
        } else {
            snprintf(f->outcome, sizeof f->outcome, "recovered with fault %d", cause.fault);
            f->joined_to = cause.fault;
            faultlog_join(s, p->fault);
        }
    }
    s->fl->n_pending = 0;
    s->check_cap = INT64_MAX;   /* the recovery takes it from here (its own restore point, sup_checked_reset) */
    *out = (struct rec_failure){ cause.fault, cause.rank, cause.kill, cause.sdc, cause.iter, cause.lag };
    return 1;
}

void faultlog_act(struct sup *s)
{
    struct rec_failure f;
    if (s->recovering || !faultlog_take(s, &f))
        return;
    if (recover_begin(s, &f) != 0 && !s->failed)
        sup_fail(s, SUP_STOP_RECOVERY_FAILED, "recovery failed");
}

void faultlog_joined_figures(struct sup *s, struct fault_rec *f)
{
    int c = f->joined_to;
    if (f->lost < 0 && c >= 0 && c < s->fl->n_faults && s->fl->faults[c].lost >= 0) {
        f->lost = s->fl->faults[c].lost;
        f->redone = s->fl->faults[c].redone;
    }
}

void faultlog_recovered(struct sup *s, int fault, uint64_t t, const char *note)
{
    struct fault_rec *f = &s->fl->faults[fault];
    f->recovered_ns = t;
    faultlog_joined_figures(s, f);
    /* from its detection, as summary.json's recover_s (faultjson.c): null for a fault no detector saw (one that left
     * with its rank), never the time since boot */
    json_t *rs = f->detect_ns && t >= f->detect_ns ? json_real((double)(t - f->detect_ns) * 1e-9) : json_null();
    json_t *o = json_pack("{s:i, s:i, s:s, s:o, s:I}", "fault", fault, "rank", f->rank, "recovery", s->sc->recovery.name,
                          "recover_s", rs, "iterations_lost", (json_int_t)f->lost);
    if (f->lost < 0)   /* not known: null, as summary.json says it, never -1 */
        json_object_set_new(o, "iterations_lost", json_null());
    json_object_set_new(o, "iterations_redone", f->redone >= 0 ? json_integer(f->redone) : json_null());
    if (note)
        json_object_set_new(o, "note", json_string(note));
    results_event(&s->res, t, "recovered", o);
}

void faultlog_joined_recovered(struct sup *s, uint64_t t, const char *note)
{
    for (int k = 0; k < s->fl->n_joined; k++) {
        int i = s->fl->joined[k];
        if (i == s->fl->awaiting_fault || s->fl->faults[i].recovered_ns || s->fl->faults[i].rolled_back)
            continue;   /* a rolled-back fault is no recovery's: the rollback took its effect away */
        s->fl->faults[i].recovery = 1;   /* its recovery was the other fault's: its figures of work are that one's */
        faultlog_joined_figures(s, &s->fl->faults[i]);   /* the fault it joined (until 2026-12-02 the one awaited: a
                                                          * recovery that followed took its 0 and 0 for the 2 and 2
                                                          * of the one it joined) */
        int aw = s->fl->awaiting_fault;
        if (aw >= 0 && aw < s->fl->n_faults && s->fl->faults[i].lost < 0) {   /* as results.md says (it wrote -1) */
            s->fl->faults[i].lost = s->fl->faults[aw].lost;
            s->fl->faults[i].redone = s->fl->faults[aw].redone;
        }
        faultlog_recovered(s, i, t, note);
    }
    s->fl->n_joined = 0;
}

void faultlog_iteration(struct sup *s, const struct wevent *ev)
{
    if (s->fl->awaiting_fault == -1 || ev->run != s->run || ev->iter < s->fl->awaiting_iter)
        return;
    if (s->fl->awaiting_fault >= 0)
        faultlog_recovered(s, s->fl->awaiting_fault, ev->t_ns, NULL);
    faultlog_joined_recovered(s, ev->t_ns, "with the recovery that covered it");
    for (int i = 0; i < s->fl->n_superseded; i++)   /* their recovery is done when the one that followed is */
        faultlog_recovered(s, s->fl->superseded[i], ev->t_ns, "with the recovery that followed before its first good "
                                                              "iteration");
    s->fl->n_superseded = 0;
    s->fl->awaiting_fault = -1;
}

void faultlog_restored(struct sup *s, const struct wevent *ev)
{
    if (s->fl->restore_fault < 0)   /* the current timeline's restores: every rank's, however the queues are read */
        return;
    struct fault_rec *f = &s->fl->faults[s->fl->restore_fault];
    f->restore_bytes += ev->a;
    if (ev->b > f->restore_s)
        f->restore_s = ev->b;   /* the slowest rank's restore bounds the recovery */
    str_copy(f->restore_from, sizeof f->restore_from, ev->note);
}
