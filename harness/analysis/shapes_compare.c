/* harness/analysis/shapes_compare.c: workload.shapes — how the mitigations compare on each shape, and where their
 * ranking changes from one shape to another (summary.json `shapes`, the end table, `gauntlet report`): by the node's
 * swing removed, a facility battery's (bess) by the grid's behind it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis_json.h"
#include "shapes_compare.h"
#include "util.h"


/* A mitigation's name in the comparison: its run's label (with its parameters where entries of one mitigation differ:
 * "filler floor=50%") without the shape's " [name]". */
static void base_label(json_t *r, char *out, size_t n)
{
    json_t *l = json_object_get(r, "label");
    str_copy(out, n, json_string_value(l ? l : json_object_get(r, "mitigation")));
    char *b = strstr(out, " [");
    if (b)
        *b = 0;
}

/* The key of run at among runs on shape: its label, then " #2", " #3" for the second, third run of that label on the
 * shape (entries alike in name and parameters), so that no run overwrites another and the k-th of one shape is
 * compared with the k-th of another (each shape runs the same list in order). */
static void run_key(json_t *runs, size_t at, const char *shape, char *out, size_t n)
{
    char lbl[64], other[64];
    int occ = 0;
    json_t *r;
    size_t i;
    base_label(json_array_get(runs, at), lbl, sizeof lbl);
    json_array_foreach(runs, i, r) {
        if (i >= at)
            break;
        base_label(r, other, sizeof other);
        occ += strcmp(json_str_or(json_object_get(r, "shape")), shape) == 0 && strcmp(other, lbl) == 0;
    }
    if (occ)
        snprintf(out, n, "%s #%d", lbl, occ + 1);
    else
        str_copy(out, n, lbl);
}

/* A run's node swing (p99 - p1 of the aggregate), NAN when not measured: a run without one keeps its row. */
static double agg_swing(json_t *r)
{
    json_t *v = json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "swing_w");
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double vs(json_t *r, const char *key)
{
    json_t *v = json_object_get(json_object_get(r, "vs_none"), key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Whether run r is a facility battery's (bess): it leaves the node's trace as it is (what that trace's swing does
 * against none is run-to-run noise: bess read 8.7 % less than none for that alone), and the swing it removes is the
 * grid's, behind it (vs_none.grid_swing_reduction_pct, as the report's bars take it). */
static int facility(json_t *r) { return strcmp(json_str_or(json_object_get(r, "mitigation")), "bess") == 0; }

/* The swing run r removed against its shape's none, the figure it is ranked by: the node's, or a battery's grid's
 * (NAN: not known, as for a battery a rebuilt summary has no figures of). */
static double removed(json_t *r) { return vs(r, facility(r) ? "grid_swing_reduction_pct" : "swing_reduction_pct"); }

/* Writes v (% removed) into buf as a ranking change states it: " grid" after a battery's. Returns buf. */
static const char *pct_text(char *buf, size_t n, double v, int grid)
{
    snprintf(buf, n, "%.1f %%%s", v, grid ? " grid" : "");
    return buf;
}

json_t *shapes_compare_json(json_t *runs)
{
    enum { MAXM = 32, MAXS = 8 };
    char shape[MAXS][32];   /* the shapes, in the order of their first run */
    int ns = 0;
    json_t *r;
    size_t i;
    json_array_foreach(runs, i, r) {
        const char *n = json_string_value(json_object_get(r, "shape"));
        int k = 0;
        while (n && k < ns && strcmp(shape[k], n) != 0)
            k++;
        if (n && k == ns && ns < MAXS)
            str_copy(shape[ns++], sizeof shape[0], n);
    }
    if (ns < 2)
        return json_null();
    char names[MAXM][64];
    int nm = 0, grid[MAXM] = { 0 };   /* grid: a battery's, ranked by the grid's swing */
    double sw[MAXS][MAXM];   /* swing removed, % of none's, per shape and mitigation (NAN: not measured) */
    for (int k = 0; k < ns; k++)
        for (int m = 0; m < MAXM; m++)
            sw[k][m] = NAN;
    json_t *per = json_array();
    for (int k = 0; k < ns; k++) {
        json_t *list = json_array();
        json_array_foreach(runs, i, r) {
            if (strcmp(json_str_or(json_object_get(r, "shape")), shape[k]) != 0 ||
                strcmp(json_str_or(json_object_get(r, "mitigation")), "none") == 0)
                continue;
            char lbl[64];
            run_key(runs, i, shape[k], lbl, sizeof lbl);
            int m = 0;
            while (m < nm && strcmp(names[m], lbl) != 0)
                m++;
            if (m == nm && nm < MAXM)
                str_copy(names[nm++], sizeof names[0], lbl);
            /* a run disturbed by hand (paused, a fault by hand, skipped) is listed, never ranked: its figures are not
             * the mitigation's alone */
            int disturbed = json_array_size(json_object_get(r, "disturbed")) > 0;
            /* nor one whose readings cannot follow its iteration (vs_none.swing_measurable false): what it removed is
             * an alias's (until 2026-12-02 ranked on it: "smoothing > ramp" where the warning said neither could be
             * measured) */
            int alias = json_is_false(json_object_get(json_object_get(r, "vs_none"), "swing_measurable")) && !facility(r);
            if (m < MAXM && !disturbed && !alias)
                sw[k][m] = removed(r);
            if (m < MAXM)
                grid[m] |= facility(r);
            json_t *e = json_pack("{s:s, s:o, s:o, s:o, s:o}", "mitigation", lbl, "swing_w", json_num(agg_swing(r)),
                                  "swing_reduction_pct", json_num(vs(r, "swing_reduction_pct")),
                                  "energy_overhead_pct", json_num(vs(r, "energy_overhead_pct")),
                                  "iteration_overhead_pct", json_num(vs(r, "iteration_overhead_pct")));
            if (facility(r))   /* the figure it is ranked by */
                json_object_set_new(e, "grid_swing_reduction_pct", json_num(removed(r)));
            if (disturbed)
                json_object_set_new(e, "disturbed", json_true());
            if (alias)
                json_object_set_new(e, "swing_measurable", json_false());
            json_t *w = json_object_get(json_object_get(r, "vs_none"), "warning");
            if (json_is_string(w))
                json_object_set(e, "warning", w);
            json_array_append_new(list, e);
        }
        json_t *rank = json_array(), *rank_pct = json_array();   /* most swing removed first; unmeasured not in it */
        int used[MAXM] = { 0 };
        for (int pos = 0; pos < nm; pos++) {
            int best = -1;
            for (int m = 0; m < nm; m++)
                if (!used[m] && !isnan(sw[k][m]) && (best < 0 || sw[k][m] > sw[k][best]))
                    best = m;
            if (best < 0)
                break;
            used[best] = 1;
            json_array_append_new(rank, json_string(names[best]));
            json_array_append_new(rank_pct, json_real(sw[k][best]));
        }
        json_array_append_new(per, json_pack("{s:s, s:o, s:o, s:o}", "shape", shape[k], "ranking", rank,
                                             "ranking_removed_pct", rank_pct, "runs", list));
    }
    /* every pair of mitigations ordered one way on one shape and the other way on another, each by more than one
     * scenario's run-to-run spread (2 points: docs/power.md): a smaller difference is a tie, not an order */
    json_t *changes = json_array();
    for (int a = 0; a < nm; a++)
        for (int b = a + 1; b < nm; b++) {
            int hi = -1, lo = -1;   /* a shape where a ranks above b, and one where below */
            for (int k = 0; k < ns; k++) {
                if (isnan(sw[k][a]) || isnan(sw[k][b]) || fabs(sw[k][a] - sw[k][b]) <= SHAPES_TIE_PCT)
                    continue;
                if (sw[k][a] > sw[k][b] && hi < 0)
                    hi = k;
                if (sw[k][a] < sw[k][b] && lo < 0)
                    lo = k;
            }
            if (hi < 0 || lo < 0)
                continue;
            char text[400], v[4][24];
            snprintf(text, sizeof text, "%s removes more swing than %s on %s (%s vs %s), less on %s (%s vs %s)",
                     names[a], names[b], shape[hi], pct_text(v[0], sizeof v[0], sw[hi][a], grid[a]),
                     pct_text(v[1], sizeof v[1], sw[hi][b], grid[b]), shape[lo],
                     pct_text(v[2], sizeof v[2], sw[lo][a], grid[a]), pct_text(v[3], sizeof v[3], sw[lo][b], grid[b]));
            json_array_append_new(changes, json_string(text));
        }
    return json_pack("{s:s, s:s, s:o, s:o, s:b}", "metric", "swing_reduction_pct", "facility_metric",
                     "grid_swing_reduction_pct", "per_shape", per, "ranking_changes", changes, "ranking_changes_with_shape",
                     json_array_size(changes) > 0);
}

void shapes_compare_print(json_t *shapes, FILE *f)
{
    if (!json_is_object(shapes))
        return;
    json_t *p, *c;
    size_t i;
    fprintf(f, "  by shape (ranked by swing removed against the shape's own none; bess by the grid's, behind its "
               "battery):\n");
    json_array_foreach(json_object_get(shapes, "per_shape"), i, p) {
        fprintf(f, "    %-14s", json_string_value(json_object_get(p, "shape")));
        json_t *m;
        size_t k;
        json_t *pct = json_object_get(p, "ranking_removed_pct");
        json_array_foreach(json_object_get(p, "ranking"), k, m) {   /* within the run-to-run spread: a tie, "=" */
            double d = json_number_value(json_array_get(pct, k - 1)) - json_number_value(json_array_get(pct, k));
            fprintf(f, "%s%s", !k ? "" : json_array_size(pct) > k && d <= SHAPES_TIE_PCT ? " = " : " > ",
                    json_string_value(m));
        }
        size_t left = 0;   /* listed, not ranked: disturbed by hand, or a swing the readings cannot show */
        json_array_foreach(json_object_get(p, "runs"), k, m)
            left += json_is_true(json_object_get(m, "disturbed")) || json_is_false(json_object_get(m, "swing_measurable"));
        if (left)
            fprintf(f, "  (%zu not ranked: disturbed, or its swing not measurable)", left);
        fprintf(f, "\n");
    }
    if (!json_array_size(json_object_get(shapes, "ranking_changes")))
        fprintf(f, "    no mitigation ranks above another on one shape and below it on another by more than %.0f "
                   "points (\"=\": within them, a tie)\n", SHAPES_TIE_PCT);
    json_array_foreach(json_object_get(shapes, "ranking_changes"), i, c)
        fprintf(f, "    ranking changes: %s\n", json_string_value(c));
}
