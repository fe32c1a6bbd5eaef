/* harness/supreport.c: what the supervisor writes at the end: summary.json's object and the table on stdout,
 * both from the records the run filled. */
#include <stdio.h>

#include "sup.h"
#include "util.h"

/* Builds summary.json from the runs and the run's outcome. */
json_t *sup_summary(struct sup *s, int code, const char *started)
{
    uint64_t dropped = 0;
    for (int k = 0; k < s->nslots; k++)
        dropped += atomic_load(&shm_ctl(&s->shm, k)->evt.dropped);
    json_t *j = json_pack("{s:s, s:s, s:I, s:s, s:i, s:s, s:i, s:o, s:o, s:o, s:o, s:I, s:I}", "scenario", s->sc->name,
                          "backend", s->ops->name, "seed", (json_int_t)s->sc->seed, "started_utc", started, "exit", code,
                          "gauntlet_version", GAUNTLET_VERSION, "ranks", s->nranks, "stopped",
                          s->reason[0] ? json_string(s->reason) : json_null(), "runs", json_incref(s->runs), "faults",
                          faultlog_json(s), "wall_s", json_real((double)(mono_ns() - s->t0) * 1e-9), "events_dropped",
                          (json_int_t)dropped, "power_samples", (json_int_t)s->samples);
    return j;
}

/* Returns the signals the supervisor takes through its signalfd. */
/* Prints x with fmt, or "-" when it was not measured. */
static void sup_cell(char *out, size_t n, const char *fmt, json_t *v, double scale)
{
    if (json_is_number(v))
        snprintf(out, n, fmt, json_number_value(v) * scale);
    else
        snprintf(out, n, "-");
}

/* Prints the end-of-run table: one row per mitigation run, from the records summary.json is made of. */
void sup_print_table(struct sup *s, int code)
{
    printf("gauntlet: %s: exit %d after %.1f s%s%s; results in %s\n", s->sc->name, code,
           (double)(mono_ns() - s->t0) * 1e-9, s->reason[0] ? ": " : "", s->reason, s->opt->out_dir);
    printf("  %-3s %-12s %7s %10s %10s %8s %8s %8s %8s %8s %8s %9s\n", "run", "mitigation", "iters", "iter_p50", "iter_p99",
           "TFLOP/s", "busbw", "ckpt", "mean_W", "min_W", "max_W", "swing_W");
    size_t i;
    json_t *r;
    json_array_foreach(s->runs, i, r) {
        char c[10][32];
        json_t *it = json_object_get(r, "iteration_s"), *agg = json_object_get(json_object_get(r, "power"), "aggregate");
        sup_cell(c[0], 32, "%.2fms", json_object_get(it, "p50"), 1e3);
        sup_cell(c[1], 32, "%.2fms", json_object_get(it, "p99"), 1e3);
        sup_cell(c[2], 32, "%.1f", json_object_get(r, "tflops"), 1);
        sup_cell(c[3], 32, "%.1f", json_object_get(r, "busbw_gbs"), 1);
        sup_cell(c[4], 32, "%.2f", json_object_get(r, "checkpoint_gbs"), 1);
        sup_cell(c[5], 32, "%.0f", json_object_get(agg, "mean_w"), 1);
        sup_cell(c[6], 32, "%.0f", json_object_get(agg, "min_w"), 1);
        sup_cell(c[7], 32, "%.0f", json_object_get(agg, "max_w"), 1);
        sup_cell(c[8], 32, "%.0f", json_object_get(agg, "swing_w"), 1);
        snprintf(c[9], 32, "%lld%s", (long long)json_integer_value(json_object_get(r, "iterations")),
                 json_is_true(json_object_get(r, "complete")) ? "" : "*");
        printf("  %-3zu %-12s %7s %10s %10s %8s %8s %8s %8s %8s %8s %9s\n", i + 1,
               json_string_value(json_object_get(r, "mitigation")), c[9], c[0], c[1], c[2], c[3], c[4], c[5], c[6],
               c[7], c[8]);
    }
    printf("  (busbw and ckpt in GB/s; power is the sum over ranks; * = run ended early)\n");
    fflush(stdout);
}

