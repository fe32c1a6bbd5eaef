/* harness/analysis/analyze_print.c: what `gauntlet analyze` prints of a trace's analysis: the JSON object (--json) or
 * the table, the sum's unresolved figures with their reasons, and the projection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_json.h"
#include "analyze.h"
#include "analyze_int.h"
#include "util.h"

json_t *az_json_string(const char *s)
{
    char *t = utf8_lossy(s);   /* a byte that starts no character (a file name in another encoding): U+FFFD */
    json_t *j = json_string(t);
    free(t);
    return j;
}

/* v with prec decimals into buf, or "-" where it is not measured (NAN); never "-0.00". Returns buf. */
static const char *az_fmt(char *buf, size_t n, double v, int prec)
{
    if (!isfinite(v))
        return str_copy(buf, n, "-"), buf;
    if (fabs(v) < 0.5 * pow(10, -prec))
        v = 0;
    snprintf(buf, n, "%.*f", prec, v);
    return buf;
}

/* Prints one row of the text table. */
static void az_row(const char *name, const struct an_result *r)
{
    char f[10][32];
    const double v[10] = { r->mean_w, r->min_w, r->max_w, r->swing_w, r->range_w, r->ramp_up_w_s[1], r->ramp_down_w_s[1],
                           r->ramp_up_w_s[2], r->dominant_hz, 0 };
    const int prec[10] = { 1, 1, 1, 1, 1, 0, 0, 0, 2, 0 };
    for (int i = 0; i < 9; i++)
        az_fmt(f[i], sizeof f[i], v[i], prec[i]);
    printf("  %-9s %9s %9s %9s %9s %9s %9zu %11s %11s %11s %8s\n", name, f[0], f[1], f[2], f[3], f[4], r->samples, f[5],
           f[6], f[7], f[8]);
}

/* The figures of r its sensor or its span cannot resolve, each with the reason, one line each. */
static void az_unresolved(const char *name, const struct an_result *r)
{
    json_t *u = analysis_unresolved_json(r->unresolved, r->update_s, r->held, r->band_nyq_hz, r->peak_nyq_hz,
                                         r->bands, r->n_bands), *e;
    size_t i;
    json_array_foreach(u, i, e)
        printf("  %s: %s not resolved: %s\n", name, json_string_value(json_object_get(e, "figure")),
               json_string_value(json_object_get(e, "why")));
    json_decref(u);
}

/* Prints the analysis: JSON (--json) or the table with the projection. 0, or EXIT_ENV when stdout fails. */
int az_print(const char *path, const struct az_trace *tr, const struct an_result *res,
                    const struct an_projection *proj, size_t m, double dt, double median_hz, size_t merged, int json,
                    int64_t gpus, const struct an_spec *spec, json_t **json_out)
{
    const struct an_result *ares = &res[tr->ng];
    double grid_hz = dt > 0 ? 1 / dt : NAN;
    int rc = 0;
    if (json) {
        json_t *pg = json_array();
        for (int k = 0; k < tr->ng; k++) {
            json_t *o = analysis_power_json(&res[k], NAN);
            json_object_set_new(o, "gpu", json_integer(tr->g[k].id));
            json_array_append_new(pg, o);
        }
        struct an_spec none = { 0 };
        json_t *a = analysis_power_json(ares, NAN);
        json_object_set_new(a, "projection", analysis_projection_json(proj, spec ? spec : &none));
        if (proj->why)   /* null, never zeros: a spec judged on zeros passed every ramp and range clause */
            json_object_set_new(a, "projection_note", json_string(proj->why));
        json_t *warn = json_object();
        for (int k = 0; k < AZW_N; k++)
            json_object_set_new(warn, az_warn_names[k], json_integer(tr->warn[k]));
        json_object_set_new(warn, "not_measured", json_integer(tr->missing));
        json_object_set_new(warn, "merged", json_integer((json_int_t)merged));
        json_object_set_new(warn, "averaged_column", json_boolean(tr->averaged));
        json_object_set_new(warn, "decimated", json_boolean(tr->decimated > 0));   /* a GPU's rate over the grid's */
        /* the path as valid UTF-8 (a name in another encoding, its odd bytes U+FFFD): jansson refuses any other, and
         * the output was nothing at all (exit 3 unsaid; a results folder's runs an empty [] with exit 0) */
        json_t *out = json_pack("{s:o, s:f, s:o, s:o, s:I, s:o, s:o, s:o}", "trace", az_json_string(path), "dt_s", dt, "grid_hz",
                                json_num(grid_hz), "median_hz", json_num(median_hz), "points", (json_int_t)m, "warnings",
                                warn, "aggregate", a, "per_gpu", pg);
        json_object_set_new(out, "power_column", json_pack("{s:s, s:o}", "name", tr->column, "note",
                                                           tr->averaged ? json_string(AZ_AVERAGED_NOTE) : json_null()));
        if (!out) {
            fprintf(stderr, "gauntlet analyze: %s: the JSON output could not be built\n", path);
            return EXIT_ENV;
        }
        if (json_out) {   /* one run of several: the caller prints them together */
            *json_out = out;
            return 0;
        }
        char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if (!text || puts(text) == EOF || fflush(stdout) != 0)
            rc = EXIT_ENV;
        free(text);
        json_decref(out);
    } else {
        printf("%s: %d GPU(s) on a grid of %.6g Hz (%.6g s; the median interval: %.6g Hz), %zu points; the sum over the "
               "%.3f s all GPUs cover\n", path, tr->ng, grid_hz, dt, median_hz, m, ares->span_s);
        if (tr->averaged)
            printf("  ! %s\n", AZ_AVERAGED_NOTE);
        if (merged || tr->missing)
            printf("  %zu samples shared a grid point with %s; %ld rows had no reading\n", merged,
                   tr->decimated ? "others (their weighted mean kept)" : "a later one (the later kept)", tr->missing);
        printf("  %-9s %9s %9s %9s %9s %9s %9s %11s %11s %11s %8s\n", "gpu", "mean_W", "min_W", "max_W", "swing_W",
               "max-min_W", "samples", "up100ms", "down100ms", "up1s_W/s", "dom_Hz");
        for (int k = 0; k < tr->ng; k++) {
            char name[32];
            snprintf(name, sizeof name, "%ld", tr->g[k].id);
            az_row(name, &res[k]);
        }
        az_row("sum", ares);
        printf("  swing: p99 - p1; ramps in W/s; - not measured\n  bands of the sum:");
        char a[5][32];
        for (int b = 0; b < ares->n_bands; b++)
            printf("  %g-%g Hz %s%s", ares->bands[b].lo_hz, ares->bands[b].hi_hz,
                   az_fmt(a[0], sizeof a[0], 100 * ares->bands[b].share, 1), isfinite(ares->bands[b].share) ? "%" : "");
        printf("\n");
        az_unresolved("sum", ares);
        if (!proj->why)
            printf("  projected to %lld GPUs in %lld group(s): swing %s MW (max-min %s), ramp up %s MW/s, down %s MW/s (1 s), "
                   "mean %s MW\n", (long long)gpus, (long long)proj->groups, az_fmt(a[0], sizeof a[0], proj->swing_mw, 2),
                   az_fmt(a[1], sizeof a[1], proj->range_mw, 2), az_fmt(a[2], sizeof a[2], proj->ramp_up_mw_s, 2),
                   az_fmt(a[3], sizeof a[3], proj->ramp_down_mw_s, 2), az_fmt(a[4], sizeof a[4], proj->mean_mw, 2));
        else
            printf("  no projection: %s\n", proj->why);
        if (fflush(stdout) != 0)
            rc = EXIT_ENV;
    }
    return rc;
}

