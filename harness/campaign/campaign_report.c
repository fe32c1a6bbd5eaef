/* harness/campaign/campaign_report.c: the campaign's table on standard output and its campaign.json: faults by kind,
 * bit flips by class and detector, detect and recover quantiles per strategy, what broke, what never started. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "campaign_int.h"
#include "results.h"
#include "util.h"

/* Orders doubles ascending (qsort). */
static int cp_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (nearest rank) of v, sorted (cp_report sorts each once), NAN when empty. */
static double cp_q(const double *v, int64_t n, double q)
{
    if (n == 0)
        return NAN;
    int64_t i = (int64_t)ceil(q * (double)n) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* One quantile in the table's column of width w: milliseconds, or "-" when there is none (no detection). */
static void cp_ms(double s, int w)
{
    if (isfinite(s))
        printf(" %*.1fms", w - 2, s * 1e3);
    else
        printf(" %*s", w, "-");
}

/* Prints the table and returns campaign.json's object. */
json_t *cp_report(const struct cp_opts *o, struct cp_stats *st, double wall, json_t *breaks)
{
    int broken = (int)json_array_size(breaks);   /* the count is the list's: every broken invariant is in it */
    static const char *const classes[CB_COUNT] = { "sign", "exponent", "mantissa-high", "mantissa-low", "no bit changed" };
    static const char *const dets[CD_COUNT] = { "fingerprint", "abft", "exit", "heartbeat", "comm", "other" };
    json_t *j = json_pack("{s:i, s:I, s:i, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:i}", "schedules", o->schedules, "seed",
                          (json_int_t)o->seed, "strategies", o->nstrat, "heartbeat_timeout_s", o->shape.hb_timeout_s,
                          "wall_s", wall, "runs", (json_int_t)st->runs,
                          "false_positives", (json_int_t)st->false_positives, "observed", (json_int_t)st->observed,
                          "stale_reports", (json_int_t)st->stale_reports, "runs_ended_early", (json_int_t)st->runs_failed,
                          "broken", broken);
    printf("campaign: %d schedules x %d strategies, seed %llu: %lld runs in %.1f s; results in %s\n", o->schedules,
           o->nstrat, (unsigned long long)o->seed, (long long)st->runs, wall, o->out);
    printf("  %-11s %8s %8s %8s %17s %11s %12s\n", "fault", "fired", "visible", "caught", "missed-by-design", "borderline",
           "ineffective");
    json_t *kinds = json_object();
    int64_t ineffective = 0;   /* injections that changed nothing: each a broken invariant too */
    for (int k = 0; k < CK_COUNT; k++) {
        printf("  %-11s %8lld %8lld %8lld %17lld %11lld %12lld\n", cp_kind_names[k], (long long)st->fired[k],
               (long long)st->visible[k], (long long)st->caught[k], (long long)st->by_design[k], (long long)st->borderline[k],
               (long long)st->ineffective[k]);
        json_object_set_new(kinds, cp_kind_names[k],
                            json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "fired", (json_int_t)st->fired[k], "visible",
                                      (json_int_t)st->visible[k], "caught", (json_int_t)st->caught[k], "missed_by_design",
                                      (json_int_t)st->by_design[k], "borderline", (json_int_t)st->borderline[k],
                                      "ineffective", (json_int_t)st->ineffective[k]));
        ineffective += st->ineffective[k];
    }
    json_object_set_new(j, "by_kind", kinds);
    json_object_set_new(j, "ineffective", json_integer(ineffective));
    printf("  bit flips by bit class: %-14s %8s %12s %8s %8s\n", "class", "flipped", "fingerprint", "abft", "missed");
    json_t *bits = json_object();
    for (int c = 0; c < CB_COUNT; c++) {
        int64_t caught = 0;
        json_t *by = json_object();
        for (int d = 0; d < CD_COUNT; d++) {
            caught += st->bits_caught[c][d];
            if (st->bits_caught[c][d])
                json_object_set_new(by, dets[d], json_integer(st->bits_caught[c][d]));
        }
        printf("  %24s %-14s %8lld %12lld %8lld %8lld\n", "", classes[c], (long long)st->bits_injected[c],
               (long long)st->bits_caught[c][CD_FINGERPRINT], (long long)st->bits_caught[c][CD_ABFT],
               (long long)(st->bits_injected[c] - caught));
        json_object_set_new(bits, classes[c], json_pack("{s:I, s:o}", "flipped", (json_int_t)st->bits_injected[c], "caught_by", by));
    }
    json_object_set_new(j, "bit_classes", bits);
    printf("  %-11s %12s %12s %12s %12s\n", "strategy", "detect_p50", "detect_p99", "recover_p50", "recover_p99");
    json_t *strats = json_object();
    for (int s = 0; s < o->nstrat; s++) {
        if (st->n_detect[s] > 1)   /* in completion order: sorted once, here (qsort, n log n) */
            qsort(st->detect_s[s], (size_t)st->n_detect[s], sizeof *st->detect_s[s], cp_cmp);
        if (st->n_recover[s] > 1)
            qsort(st->recover_s[s], (size_t)st->n_recover[s], sizeof *st->recover_s[s], cp_cmp);
        double q[4] = { cp_q(st->detect_s[s], st->n_detect[s], 0.5), cp_q(st->detect_s[s], st->n_detect[s], 0.99),
                        cp_q(st->recover_s[s], st->n_recover[s], 0.5), cp_q(st->recover_s[s], st->n_recover[s], 0.99) };
        printf("  %-11s", o->strat[s]);
        for (int k = 0; k < 4; k++)
            cp_ms(q[k], 12);
        printf("\n");
        json_object_set_new(strats, o->strat[s],
                            json_pack("{s:o, s:o, s:o, s:o, s:I}", "detect_p50_s", json_num(q[0]), "detect_p99_s",
                                      json_num(q[1]), "recover_p50_s", json_num(q[2]), "recover_p99_s",
                                      json_num(q[3]), "detections", (json_int_t)st->n_detect[s]));
    }
    json_object_set_new(j, "strategies_figures", strats);
    printf("  false positives %lld, detections no fault explains %lld, stale reports dropped %lld, runs ended early %lld "
           "(shrink out of ranks included)\n", (long long)st->false_positives, (long long)st->observed,
           (long long)st->stale_reports, (long long)st->runs_failed);
    size_t i;
    json_t *m;
    json_array_foreach(st->missed, i, m) {
        if (i == 4) {
            printf("  ... (campaign.json: missed_by_design)\n");
            break;
        }
        char rel[32];
        json_t *re = json_object_get(m, "rel_error");
        if (json_is_number(re))
            snprintf(rel, sizeof rel, "%.2g", json_number_value(re));
        else
            str_copy(rel, sizeof rel, json_string_value(re) ?: "-");
        printf("  missed %s: %s %s %s %s, rel error %s: %s\n",
               json_is_true(json_object_get(m, "borderline")) ? "(borderline)" : "by design", json_string_value(json_object_get(m, "kind")),
               json_string_value(json_object_get(m, "target")) ?: "", json_string_value(json_object_get(m, "where")) ?: "",
               json_string_value(json_object_get(m, "bit_class")) ?: "", rel, json_string_value(json_object_get(m, "why")));
    }
    json_object_set(j, "missed_by_design", st->missed);
    json_object_set(j, "broken_invariants", breaks);
    json_array_foreach(breaks, i, m) {
        if (i == 20) {
            printf("  ... %zu more in campaign.json\n", json_array_size(breaks) - 20);
            break;
        }
        printf("  BROKEN %s: %s\n", json_string_value(json_object_get(m, "run")), json_string_value(json_object_get(m, "why")));
    }
    json_object_set(j, "relaunched", st->relaunched);
    json_object_set(j, "not_started", st->not_started);
    size_t nrel = json_array_size(st->relaunched), nnot = json_array_size(st->not_started);
    if (nrel)
        printf("  launches that never began their record and were started again: %zu (campaign.json: relaunched)\n", nrel);
    json_array_foreach(st->not_started, i, m)
        printf("  NOT STARTED %s: %lld launches; the last exited %lld: %s\n", json_string_value(json_object_get(m, "run")),
               json_integer_value(json_object_get(m, "launch")), json_integer_value(json_object_get(m, "exit")),
               json_string_value(json_object_get(m, "log_ends")));
    /* an injection that changed nothing is a failure of the campaign, said as such: what it did not inject it did not
     * test (before 2026-11-30 it passed, listed among the misses by design) */
    if (broken && ineffective >= broken)
        printf("invariants: INJECTION INEFFECTIVE (%lld injection%s changed nothing, nothing else broke%s)\n",
               (long long)ineffective, ineffective == 1 ? "" : "s", nnot ? "; and some runs never started" : "");
    else if (broken && ineffective)
        printf("invariants: BROKEN (%d broken, %lld of them injection%s that changed nothing%s)\n", broken,
               (long long)ineffective, ineffective == 1 ? "" : "s", nnot ? "; and some runs never started" : "");
    else if (broken)
        printf("invariants: BROKEN (%d broken%s)\n", broken, nnot ? ", and some runs never started" : "");
    else if (nnot)
        printf("invariants: NOT ALL TESTED (%zu run%s never started; none of the runs that ran broke one)\n", nnot,
               nnot == 1 ? "" : "s");
    else
        printf("invariants: all held (0 broken)\n");
    return j;
}

