/* harness/resilience/faultjson.c: the fault ledger as JSON: each fault's record for summary.json (what it did, when
 * it was seen and by which detector, its recovery's figures) and the run's figures (coverage, false positives,
 * goodput, each detector's cost). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "detectors/detector.h"
#include "faults/fault.h"
#include "recovery/recovery.h"
#include "resilience.h"
#include "util.h"

/* Returns x as a JSON number, or null when the event never happened (t == 0). */
static json_t *faultlog_since(uint64_t t, uint64_t since)
{
    return t && since && t >= since ? json_real((double)(t - since) * 1e-9) : json_null();
}

/* A value as JSON: a number, or the string "inf", "-inf" or "nan" (a flip can make any of them). */
static json_t *faultlog_value(double x)
{
    if (isfinite(x))
        return json_real(x);
    return json_string(isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
}

/* The bits in mask, as a JSON array of bit numbers (bit 0 least significant). */
static json_t *faultlog_bits(uint32_t mask)
{
    json_t *a = json_array();
    for (int b = 31; b >= 0; b--)
        if (mask & (1u << b))
            json_array_append_new(a, json_integer(b));
    return a;
}

void faultlog_detail(json_t *o, const struct fault_detail *d)
{
    static const char *const wheres[] = { "random", "sign", "exponent", "mantissa", "value" };
    json_object_set_new(o, "target", fault_target_name(d->target) ? json_string(fault_target_name(d->target)) : json_null());
    json_object_set_new(o, "where", d->where >= 0 && d->where < 5 ? json_string(wheres[d->where]) : json_null());
    if (d->element >= 0) {
        json_object_set_new(o, "format", json_string(fault_format_name(d->format)));
        json_object_set_new(o, "element", json_integer(d->element));
        json_object_set_new(o, "bits", faultlog_bits(d->mask));
        json_object_set_new(o, "bit", d->mask ? json_integer(31 - __builtin_clz(d->mask)) : json_null());
        json_object_set_new(o, "bit_class", json_string(fault_mask_class(d->format, d->mask)));
        json_object_set_new(o, "old", faultlog_value(d->old_v));
        json_object_set_new(o, "new", faultlog_value(d->new_v));
        json_object_set_new(o, "rel_error", faultlog_value(fault_rel_error(d->old_v, d->new_v)));
        json_object_set_new(o, "scale", json_num(d->scale));
    } else {
        const char *keys[] = { "format", "element", "bits", "bit", "bit_class", "old", "new", "rel_error", "scale" };
        for (size_t k = 0; k < ARRAY_LEN(keys); k++)
            json_object_set_new(o, keys[k], json_null());
    }
}

json_t *faultlog_json(struct sup *s)
{
    json_t *a = json_array();
    for (int i = 0; i < s->fl->n_faults; i++) {
        struct fault_rec *f = &s->fl->faults[i];
        if (f->undone)   /* its timeline was rolled back: it fired again on the new one (its own record) */
            continue;
        int seen = f->detector >= 0, timed = seen && !f->observed;
        json_t *o = json_pack(
            "{s:i, s:s, s:s, s:i, s:I, s:s, s:o, s:o, s:o, s:i, s:f, s:o, s:s, s:s, s:s}", "id", i, "kind",
            fault_table[f->kind]->name, "origin", f->observed ? "observed" : "injected", "rank", f->rank,
            "injected_iter", (json_int_t)f->iter, "what", f->note, "detected_by",
            seen ? json_string(detector_table[f->detector]->name) : json_null(), "detect_s",
            timed ? faultlog_since(f->detect_ns, f->t_ns) : json_null(), "recover_s",
            faultlog_since(f->recovered_ns, f->detect_ns), "run", f->run, "injected_t_s", (double)(f->t_ns - s->t0) * 1e-9,
            "detect_iters", timed ? json_integer(f->detect_iter - f->iter) : json_null(), "recovery",
            f->recovery ? s->sc->recovery.name : "none", "outcome", f->outcome, "restore_from", f->restore_from);
        if (f->observed)   /* nobody injected it: when it happened is not known, only when it was seen */
            json_object_set_new(o, "injected_iter", json_null());
        json_object_set_new(o, "fault_spec", f->spec >= 0 ? json_integer(f->spec) : json_null());
        json_object_set_new(o, "rolled_back", json_boolean(f->rolled_back));
        /* how long it went unseen before the rollback took it away, or its rank left: the detectors' chance at it
         * (until 2026-11-30 null for one that left with its rank) */
        json_object_set_new(o, "unseen_s",
                            f->rolled_back || f->left ? faultlog_since(f->rollback_ns, f->t_ns) : json_null());
        json_object_set_new(o, "left_with_rank", json_boolean(f->left));
        json_object_set_new(o, "ineffective", json_boolean(f->ineffective));
        faultlog_detail(o, &f->d);
        json_object_set_new(o, "detection",
                            seen ? json_pack("{s:s, s:i, s:I, s:o, s:o}", "detector", detector_table[f->detector]->name,
                                             "rank", f->det_rank, "iter_seen", (json_int_t)f->detect_iter, "latency_iters",
                                             timed ? json_integer(f->detect_iter - f->iter) : json_null(), "latency_s",
                                             timed ? faultlog_since(f->detect_ns, f->t_ns) : json_null())
                                 : json_null());
        faultlog_joined_figures(s, f);   /* one whose recovery's first good iteration never came here too */
        json_object_set_new(o, "iterations_lost", f->lost >= 0 ? json_integer(f->lost) : json_null());
        json_object_set_new(o, "iterations_redone", f->redone >= 0 ? json_integer(f->redone) : json_null());
        json_object_set_new(o, "restore_bytes", f->restore_bytes > 0 ? json_real(f->restore_bytes) : json_null());
        json_object_set_new(o, "restore_s", f->restore_bytes > 0 ? json_real(f->restore_s) : json_null());
        json_object_set_new(o, "restore_gbs", f->restore_bytes > 0 && f->restore_s > 0
                                                  ? json_real(f->restore_bytes / f->restore_s / 1e9) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

void faultlog_ranks_json(struct sup *s, json_t *ranks)
{
    json_t *e;
    size_t i;
    json_array_foreach(ranks, i, e) {
        json_int_t r = json_integer_value(json_object_get(e, "rank"));
        if (r < 0 || r >= s->nranks)
            continue;
        json_t *o = json_object();
        for (int d = 0; d < DET_COUNT; d++)
            if (detector_table[d]->sdc && scenario_detector_on(s->sc, d))
                json_object_set_new(o, detector_table[d]->name, json_integer(s->rs.rank[r].sdc_checks[d]));
        json_object_set_new(e, "sdc_checks", o);
    }
}

json_t *faultlog_run_json(struct sup *s, double iter_p50)
{
    int injected = 0, detected = 0, fp = 0, observed = 0, left = 0, ineffective = 0;
    json_t *cov = json_object();
    for (int i = 0; i < s->fl->n_faults; i++) {
        const struct fault_rec *f = &s->fl->faults[i];
        if (f->run != s->run || f->undone)
            continue;
        if (f->rolled_back)   /* its effect went with the state it was in: no detector could still see it */
            continue;
        if (f->ineffective) {   /* it changed nothing: no detector could see it (until 2026-12-02 a miss) */
            ineffective++;
            continue;
        }
        if (f->left) {   /* its effect went with its rank, which shrink dropped before a detector saw it */
            left++;
            continue;
        }
        if (f->observed) {   /* not in the coverage: nothing says how many real faults went unseen */
            observed++;
            continue;
        }
        injected++;
        detected += f->detector >= 0;
        const char *kind = fault_table[f->kind]->name;
        json_t *k = json_object_get(cov, kind);
        if (!k) {
            k = json_pack("{s:i, s:i, s:{}}", "injected", 0, "detected", 0, "by");
            json_object_set_new(cov, kind, k);
        }
        json_object_set_new(k, "injected", json_integer(json_integer_value(json_object_get(k, "injected")) + 1));
        if (f->detector >= 0) {
            json_t *by = json_object_get(k, "by");
            const char *dn = detector_table[f->detector]->name;
            json_object_set_new(k, "detected", json_integer(json_integer_value(json_object_get(k, "detected")) + 1));
            json_object_set_new(by, dn, json_integer(json_integer_value(json_object_get(by, dn)) + 1));
        }
    }
    json_t *fps = json_array();
    for (int i = 0; i < s->fl->n_dets; i++)
        if (s->fl->dets[i].run == s->run && s->fl->dets[i].fault == -1) {
            fp++;
            json_array_append_new(fps, json_pack("{s:s, s:i, s:I}", "detector", detector_table[s->fl->dets[i].detector]->name,
                                                 "rank", s->fl->dets[i].rank, "iter", (json_int_t)s->fl->dets[i].iter));
        }
    double wall = (double)((s->rs.t_end ? s->rs.t_end : mono_ns()) - s->run_t0) * 1e-9;
    int64_t iters = runstats_iterations(&s->rs);
    json_t *cost = json_object();
    for (int d = 0; d < DET_COUNT; d++)
        if (s->fl->detcost[d] > 0 || s->fl->detdev_ranks[d] > 0) {
            /* per rank and iteration: the cost the processes reported over the iterations it covers (a restart's
             * killed processes never report; survivors of an in-process recovery count the iterations they redid) */
            double per = s->fl->detcost_iters[d] > 0 ? s->fl->detcost[d] / s->fl->detcost_iters[d]
                                                     : s->fl->detcost[d] / (double)(iters > 0 ? iters : 1) / (double)s->nranks;
            /* the device time: over the ranks that reported it (every rank of a backend that measures it) */
            int nd = s->fl->detdev_ranks[d];
            double dev = s->fl->detdev_iters[d] > 0 ? s->fl->detdev[d] / s->fl->detdev_iters[d]
                       : nd > 0 ? s->fl->detdev[d] / (double)(iters > 0 ? iters : 1) / (double)nd : NAN;
            /* the asynchronous fingerprint's events span its wait for SMs beside the compute phase, not its work:
             * that span under a name of its own, never as device time (what it costs shows only against a run
             * without it) */
            const struct fingerprint_params *fpp = d == DET_FINGERPRINT ? scenario_detector_params(s->sc, d) : NULL;
            int beside = fpp && fpp->async;
            json_t *o = json_pack("{s:f, s:f, s:o, s:o, s:o}", "total_s", s->fl->detcost[d], "per_iter_s", per, "share",
                                  json_num(iter_p50 > 0 ? per / iter_p50 : NAN), "device_s_per_iter",
                                  json_num(beside ? NAN : dev), "device_share",
                                  json_num(!beside && iter_p50 > 0 ? dev / iter_p50 : NAN));
            /* and that span as a share of the iteration p50: an upper bound of what the hash costs the iteration
             * (the span holds its blocks' waits for the SMs the GEMMs hold), as the wait's share is a lower one (on
             * an H200, 2026-11-28: 1.89 ms beside, 0.128 ms waited, +2.15 % paid of 12.8 ms). Since 2026-11-30:
             * until then only the wait had a share, and nothing in a run bounded the cost from above */
            if (beside) {
                json_object_set_new(o, "beside_compute_s_per_iter", json_num(dev));
                json_object_set_new(o, "beside_share", json_num(iter_p50 > 0 ? dev / iter_p50 : NAN));
            }
            json_object_set_new(cost, detector_table[d]->name, o);
        }
    return json_pack("{s:i, s:i, s:i, s:i, s:I, s:i, s:o, s:i, s:o, s:o, s:o, s:o}", "injected", injected, "observed",
                     observed, "left_with_rank", left, "ineffective", ineffective,
                     "stale_reports", (json_int_t)s->fl->stale_reports, "detected", detected, "coverage",
                     injected ? json_real((double)detected / injected) : json_null(), "false_positives", fp,
                     "false_positive_detections", fps, "by_kind", cov, "goodput",
                     wall > 0 && iter_p50 > 0 ? json_real((double)iters * iter_p50 / wall) : json_null(),
                     "detector_cost", cost);
}
