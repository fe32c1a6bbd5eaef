/* harness/accept/accept_faults.c: the checks about faults — the silent-corruption screen, the failures nobody
 * injected, and the fault drill (each planned fault detected and recovered in time, or named as never fired). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accept.h"
#include "accept_int.h"
#include "detectors/detector.h"
#include "util.h"

/* What GPU r's silent-corruption detectors compared, in words into out ("fingerprint 8 votes (2 whole passes of 4
 * slices), abft 8 GEMM outputs, replay 2 replays"): 1 when one of them screened something — a fingerprint of N slices
 * only once its votes cover every slice, a whole pass —, 0 when none did, -1 when the summary does not say. */
static int sdc_screened(const struct scenario *sc, const struct rankdata *r, char *out, size_t n)
{
    size_t l = 0;
    int any = 0;
    out[0] = 0;
    for (int k = 0; k < DET_COUNT && l < n; k++) {
        if (!detector_table[k]->sdc || !scenario_detector_on(sc, k))
            continue;
        long long c = r->sdc_checks[k];
        const char *sep = l ? ", " : "";
        if (k == DET_FINGERPRINT) {
            const struct fingerprint_params *fp = scenario_detector_params(sc, k);
            long long slices = fp && fp->slices > 1 ? fp->slices : 1;
            any |= c / slices > 0;
            if (slices > 1)
                l += (size_t)snprintf(out + l, n - l, "%sfingerprint %lld votes (%lld whole passes of %lld slices)", sep, c,
                                      c / slices, slices);
            else
                l += (size_t)snprintf(out + l, n - l, "%sfingerprint %lld votes", sep, c);
        } else {
            any |= c > 0;
            l += (size_t)snprintf(out + l, n - l, "%s%s %lld %s", sep, detector_table[k]->name, c,
                                  k == DET_ABFT ? "GEMM outputs" : "replays compared");
        }
    }
    return r->sdc_recorded ? any : -1;
}

void accept_check_sdc(const struct scenario *sc, struct rundata *d, struct verdicts *vs)
{
    /* a detector that can see on this run: the fingerprint compares ranks, and one rank (a 1-GPU node, a per-GPU health
     * check under CUDA_VISIBLE_DEVICES) has nothing to compare (until 2026-11-30 such a screen passed, having seen
     * nothing) */
    int on = 0, fingerprint_only = 0;
    for (int k = 0; k < DET_COUNT; k++) {
        if (!detector_table[k]->sdc || !scenario_detector_on(sc, k))
            continue;
        if (k == DET_FINGERPRINT && d->nranks < 2)
            fingerprint_only = 1;
        else
            on++;
    }
    if (!on) {
        accept_skip(vs, sc, "sdc_screen", fingerprint_only
                                              ? "fingerprint needs 2 or more ranks to compare, and the run has 1: add abft "
                                                "or replay to detectors"
                                              : "no silent-corruption detector on: list fingerprint, abft or replay in "
                                                "detectors");
        return;
    }
    for (int i = 0; i < d->nranks; i++) {
        const struct rankdata *r = &d->r[i];
        char screened[200];
        int any = sdc_screened(sc, r, screened, sizeof screened);
        if (!r->sdc && any <= 0) {   /* a GPU its detectors compared nothing of was not screened: no pass (until
                                      * 2026-11-30 one passed, 0 mismatches found in nothing compared) */
            struct verdict *v = accept_add(vs, sc, "sdc_screen", V_SKIP);
            accept_place(v, r->node, i, d->per_node);
            if (any < 0)
                accept_note(v, "not screened: summary.json does not say what its detectors compared (no "
                               "runs[].ranks[].sdc_checks: a summary rebuilt from a killed run's record, or an older one)");
            else
                accept_note(v, "not screened (what its detectors compared: %s)", screened);
            continue;
        }
        struct verdict *v = accept_judge(vs, sc, "sdc_screen", r->node, r->idx, i, r->sdc, "<=", 0, "mismatches");
        if (r->sdc)
            accept_note(v, "%s", r->sdc_note);
        else
            accept_note(v, "screened: %s", screened);
    }
}

/* A failure nobody injected (a death, a hang, a straggler, a corruption) fails the GPU it hit, whatever the
 * checks: on a new cluster these are the failures that matter. */
void accept_check_observed(const struct scenario *sc, struct rundata *d, struct verdicts *vs)
{
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(d->summary, "faults"), i, f) {
        if (strcmp(jstr(f, "origin", ""), "observed") != 0)
            continue;
        struct verdict *v = accept_add(vs, sc, "observed_fault", V_FAIL);
        json_t *det = json_object_get(f, "detection");
        json_t *rk = json_object_get(f, "rank");   /* none: the detector could not name one GPU */
        accept_place(v, (int)json_integer_value(json_object_get(f, "node")),
                     json_is_integer(rk) ? (int)json_integer_value(rk) : -1, d->per_node);
        v->value = 1;
        v->limit = 0;
        str_copy(v->cmp, sizeof v->cmp, "<=");
        str_copy(v->unit, sizeof v->unit, "faults");
        accept_note(v, "%s nobody injected, seen by %s at iteration %lld: %s (%s)", jstr(f, "kind", "?"),
                    jstr(f, "detected_by", "?"), (long long)json_integer_value(json_object_get(det, "iter_seen")),
                    jstr(f, "what", ""), jstr(f, "outcome", ""));
    }
    json_t *n;
    json_array_foreach(json_object_get(d->summary, "nodes_lost"), i, n) {   /* a node lost fails every GPU of it */
        struct verdict *v = accept_add(vs, sc, "observed_fault", V_FAIL);
        accept_place(v, (int)json_integer_value(n), -1, d->per_node);
        v->value = 1;
        v->limit = 0;
        str_copy(v->cmp, sizeof v->cmp, "<=");
        str_copy(v->unit, sizeof v->unit, "nodes");
        accept_note(v, "node %d went silent past the heartbeat timeout and was lost (events: node_lost)", v->node);
    }
    /* a summary rebuilt from a killed run's record has no fault table: its fault events say what happened */
    json_t *e;
    json_array_foreach(json_object_get(d->summary, "fault_events"), i, e) {
        const char *type = jstr(e, "event", "");
        int lost = strcmp(type, "node_lost") == 0;
        if (strcmp(type, "fault_observed") != 0 && !lost)
            continue;
        struct verdict *v = accept_add(vs, sc, "observed_fault", V_FAIL);
        json_t *node = json_object_get(e, "node"), *rank = json_object_get(e, "rank");
        int rk = !lost && json_is_integer(rank) ? (int)json_integer_value(rank) : -1;
        accept_place(v, json_is_integer(node) ? (int)json_integer_value(node) : rk >= 0 ? rk / d->per_node : 0, rk,
                     d->per_node);
        v->value = 1;
        v->limit = 0;
        str_copy(v->cmp, sizeof v->cmp, "<=");
        str_copy(v->unit, sizeof v->unit, lost ? "nodes" : "faults");
        if (lost)
            accept_note(v, "node %d was lost: %s (from the killed run's events)", v->node, jstr(e, "why", ""));
        else
            accept_note(v, "%s nobody injected, seen by %s at iteration %lld: %s (from the killed run's events)",
                        jstr(e, "kind", "?"), jstr(e, "detector", "?"),
                        (long long)json_integer_value(json_object_get(e, "iter")), jstr(e, "what", ""));
    }
}

/* Why planned fault i did not fire in run r, as far as the summary tells. */
static void drill_why(const struct scenario *sc, const struct rundata *d, int i, char *out, size_t n)
{
    const struct fault_spec *f = &sc->faults[i];
    json_t *run = json_array_get(json_object_get(d->summary, "runs"), 0), *st = json_object_get(d->summary, "stopped");
    double wall = json_number_value(json_object_get(d->summary, "wall_s"));
    if (f->rank >= d->nranks)
        snprintf(out, n, "rank %lld is not in the run (ranks 0..%d)", (long long)f->rank, d->nranks - 1);
    else if (json_is_string(st) || json_is_true(st))
        snprintf(out, n, "the run stopped first (%s)", json_is_string(st) ? json_string_value(st) : "stopped");
    else if (f->at_s >= 0 && wall > 0 && wall < f->at_s)
        snprintf(out, n, "at_s %g s is past the run's end (it took %.3g s)", f->at_s, wall);
    else if (f->rate_per_hour > 0)
        snprintf(out, n, "its Poisson process at %g/h drew no time within the run", f->rate_per_hour);
    else if (f->at >= 0 && run && json_integer_value(json_object_get(run, "iterations")) <= f->at)
        snprintf(out, n, "the run ended before iteration %lld", (long long)f->at);
    else
        snprintf(out, n, "no record of it in summary.json or events.jsonl");
}

void accept_check_drill(const struct scenario *sc, struct rundata *d, struct verdicts *vs)
{
    json_t *faults = json_object_get(d->summary, "faults"), *f;
    size_t i;
    const struct check_drill *c = &sc->checks.fault_drill;
    if (!sc->n_faults) {
        accept_skip(vs, sc, "fault_drill", "the scenario injected no fault");
        return;
    }
    if (!json_is_array(faults)) {   /* a summary rebuilt by gauntlet summarize has fault events, not faults[] */
        accept_skip(vs, sc, "fault_drill", "summary.json has no faults[] (rebuilt from the record of a killed run): "
                                           "the drill cannot be judged");
        return;
    }
    json_array_foreach(faults, i, f) {
        if (strcmp(jstr(f, "origin", "injected"), "injected") != 0)
            continue;   /* not part of the drill: check_observed judges it */
        const char *kind = jstr(f, "kind", "?");
        int rank = (int)json_integer_value(json_object_get(f, "rank"));
        json_t *ds = json_object_get(f, "detect_s"), *rs = json_object_get(f, "recover_s");
        double det = json_is_number(ds) ? json_number_value(ds) : NAN, rec = json_is_number(rs) ? json_number_value(rs) : NAN;
        int det_ok = isfinite(det) && det <= c->max_detect_s, rec_ok = isfinite(rec) && rec <= c->max_recover_s;
        /* its effect gone before a detector could see it (as the campaign counts it: not visible, no miss): a later
         * fault's recovery restored a state from before it, or shrink dropped its rank; untested, so no pass. Unless
         * it went unseen for longer than max_detect before then (unseen_s): the detectors had their time and missed
         * it (until 2026-11-30 a SKIP too; one that left with its rank was a SKIP however long it went unseen) */
        json_t *us = json_object_get(f, "unseen_s");
        double unseen = json_is_number(us) ? json_number_value(us) : NAN;
        int rolled = json_is_true(json_object_get(f, "rolled_back")), left = json_is_true(json_object_get(f, "left_with_rank"));
        int late = (rolled || left) && isfinite(unseen) && unseen > c->max_detect_s;
        const char *gone = json_is_true(json_object_get(f, "ineffective"))
                               ? "the injection changed nothing (the element kept every bit): no detector could see it"
                           : isfinite(det) || late ? NULL
                           : rolled ? "rolled back before it was seen: a later fault's recovery restored a state from before it"
                           : left   ? "its rank left the run (shrink dropped it) before a detector saw it"
                                    : NULL;
        struct verdict *v = accept_add(vs, sc, "fault_drill", gone ? V_SKIP : det_ok && rec_ok ? V_PASS : V_FAIL);
        json_t *fn = json_object_get(f, "node");
        accept_place(v, json_is_integer(fn) ? (int)json_integer_value(fn) : rank >= 0 ? rank / d->per_node : 0, rank,
                     d->per_node);
        if (rank >= 0)
            snprintf(v->subject, sizeof v->subject, "fault %zu (%s, node %d gpu %d)", i, kind, v->node, v->gpu);
        else
            snprintf(v->subject, sizeof v->subject, "fault %zu (%s)", i, kind);
        if (gone) {
            accept_note(v, "not judged: %s; the drill did not test it", gone);
            continue;
        }
        /* the figure that decided it: the detection time, or the recovery time when detection passed */
        int by_rec = det_ok && !rec_ok;
        v->value = by_rec ? rec : det;
        v->limit = by_rec ? c->max_recover_s : c->max_detect_s;
        str_copy(v->cmp, sizeof v->cmp, "<=");
        str_copy(v->unit, sizeof v->unit, "s");
        if (late) {
            v->value = unseen;
            accept_note(v, "not detected in the %.3f s it went unseen before %s (limit %g s)", unseen,
                        rolled ? "a later fault's recovery rolled it back" : "shrink dropped its rank", c->max_detect_s);
        } else if (!isfinite(det))
            accept_note(v, "not detected (%s)", jstr(f, "outcome", ""));
        else if (!isfinite(rec))
            accept_note(v, "detected by %s in %.3f s, not recovered (recovery time; %s)", jstr(f, "detected_by", "?"), det,
                        jstr(f, "outcome", ""));
        else
            accept_note(v, "detected by %s in %.3f s (limit %g s), recovered in %.3f s (limit %g s)",
                        jstr(f, "detected_by", "?"), det, c->max_detect_s, rec, c->max_recover_s);
    }
    /* every planned fault, in every run, fired: one that did not was never tested, and is no pass */
    size_t nruns = json_array_size(json_object_get(d->summary, "runs"));
    for (int s = 0; s < sc->n_faults; s++)
        for (size_t r = 0; r < (nruns ? nruns : 1); r++) {
            int fired = 0;
            json_array_foreach(faults, i, f)
                fired |= json_integer_value(json_object_get(f, "fault_spec")) == s && json_is_integer(json_object_get(f, "fault_spec")) &&
                         (size_t)json_integer_value(json_object_get(f, "run")) == r &&
                         strcmp(jstr(f, "origin", "injected"), "injected") == 0;
            if (fired)
                continue;
            const struct fault_spec *fs = &sc->faults[s];
            /* a Poisson process may draw no time in the run by chance (1/h over an hour: 37 %): untested, so no pass,
             * but no fault of the node either */
            int chance = fs->rate_per_hour > 0 && fs->rank < d->nranks;
            struct verdict *v = accept_add(vs, sc, "fault_drill", chance ? V_SKIP : V_FAIL);
            if (fs->rank >= 0 && fs->rank < d->nranks) {
                accept_place(v, (int)fs->rank / d->per_node, (int)fs->rank, d->per_node);
                snprintf(v->subject, sizeof v->subject, "faults[%d] (%s, node %d gpu %d)", s, scenario_fault_kind(sc, s),
                         v->node, v->gpu);
            } else if (fs->rank >= 0) {   /* not in the run: the scenario's own words */
                snprintf(v->subject, sizeof v->subject, "faults[%d] (%s, rank %lld)", s, scenario_fault_kind(sc, s),
                         (long long)fs->rank);
            } else {
                snprintf(v->subject, sizeof v->subject, "faults[%d] (%s)", s, scenario_fault_kind(sc, s));
            }
            if (!chance) {
                v->value = 0;
                v->limit = 1;
                str_copy(v->cmp, sizeof v->cmp, ">=");
                str_copy(v->unit, sizeof v->unit, "fired");
            }
            char why[160];
            drill_why(sc, d, s, why, sizeof why);
            char where[48] = "";
            if (nruns > 1)
                snprintf(where, sizeof where, " in run %zu", r);
            accept_note(v, "never fired%s (%s:%d): %s; the drill did not test it", where, sc->file, fs->line, why);
        }
}

