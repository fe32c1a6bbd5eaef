/* harness/report/report.c: `gauntlet report RUNDIR` — the comparison of a finished run's mitigations, as a table
 * (stdout and RUNDIR/report.txt) and a picture (RUNDIR/report.svg: each mitigation's power over the same
 * stretch of iterations on one scale, the waveforms and spectra of all of them in two panels (report_plots.c's),
 * bars of swing removed against energy and time paid, and for each swept parameter its trade-off curve: swing
 * left against energy and time paid, value by value; the curves are report_curve.c's), converted to
 * RUNDIR/report.png when rsvg-convert is installed. It reads the run's files: summary.json, scenario.yaml (each
 * run's parameters), events.jsonl (where each run begins, warms up and ends) and power.csv; it writes each file
 * whole. */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "faulttable.h"
#include "report_int.h"
#include "shapes_compare.h"
#include "util.h"

#define RP_PANEL_H 110  /* one trace panel */

/* Appends (t, w), one rank's reading, to a run's trace; rp_order sums each tick's. */
static void rp_add(struct rp_run *r, double t, double w)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->t = xrealloc(r->t, r->cap * sizeof *r->t);
        r->w = xrealloc(r->w, r->cap * sizeof *r->w);
    }
    r->t[r->n] = t;
    r->w[r->n++] = w;
}

/* One reading of a trace, for sorting. */
struct rp_tw {
    double t, w;
};

/* Orders two readings by time. */
static int rp_tw_cmp(const void *a, const void *b)
{
    double x = ((const struct rp_tw *)a)->t, y = ((const struct rp_tw *)b)->t;
    return (x > y) - (x < y);
}

/* Puts a run's readings in time order and sums the ranks' readings of each tick (within a nanosecond) into one
 * point: the node's power (NAN, a missing reading, makes the tick missing). */
static void rp_order(struct rp_run *r)
{
    if (r->n < 2)
        return;
    struct rp_tw *p = xmalloc(r->n * sizeof *p);
    for (size_t k = 0; k < r->n; k++)
        p[k] = (struct rp_tw){ r->t[k], r->w[k] };
    qsort(p, r->n, sizeof *p, rp_tw_cmp);
    size_t m = 0;
    for (size_t k = 0; k < r->n; k++) {
        if (m && fabs(p[k].t - r->t[m - 1]) < 1e-9) {
            r->w[m - 1] += p[k].w;
            continue;
        }
        r->t[m] = p[k].t;
        r->w[m++] = p[k].w;
    }
    r->n = m;
    free(p);
}

/* Opens dir/name for reading; NULL with a message (and what the report does without it) on failure. */
FILE *rp_open(const char *dir, const char *name, const char *without)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);   /* report_main checked that dir leaves room */
    FILE *f = fopen_regular(path, "r");   /* a FIFO would block: report_main refused one, this makes sure */
    if (!f)
        fprintf(stderr, "gauntlet report: %s: %s; %s\n", path, errno == EINVAL ? "not a regular file" : strerror(errno),
                without);
    return f;
}

/* Closes a file that was read; complains when reading it failed. */
void rp_done(FILE *f, const char *dir, const char *name)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        fprintf(stderr, "gauntlet report: %s/%s: read error; what was read before it is used\n", dir, name);
}

/* Returns the 0-based column named name in the header line of a CSV file, -1 when it has none. */
static int rp_column(const char *header, const char *name)
{
    size_t len = strlen(name);
    int col = 0;
    for (const char *p = header; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL, col++)
        if (strncmp(p, name, len) == 0 && strchr(",\r\n", p[len]))   /* its NUL too: the last column */
            return col;
    return -1;
}

/* Returns the node of a row of power.csv whose node column is col: 0 where there is none (one node's file) or the row
 * leaves it empty or has no such field; -1 when the field is not a node. */
static long rp_node(const char *line, int col)
{
    for (int k = 0; k < col && line; k++)
        line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
    if (col < 0 || !line || strchr(",\r\n", *line))
        return 0;
    char *end;
    long node = strtol(line, &end, 10);
    return end != line && strchr(",\r\n", *end) ? node : -1;
}

/* Reads node 0's rows of power.csv (with `forward: ranks` it holds every node's, each at its own ticks: *others says
 * it did) into each run's trace, in time order, summed over its ranks per tick; a rank's missing reading (an empty
 * field, one that is not a number, or not finite, or past RP_FIG_MAX) makes its tick missing (NAN). 0, or EXIT_INPUT,
 * said, at a row with no time and rank, or with a rank none of the run's world ranks (when world, the start event's,
 * is known: such a row summed in was a GPU the run never had), a last line without its newline, a killed run's, left
 * out. */
static int rp_power(const char *dir, struct rp_run *runs, int n, long long world, int *others)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    int col = -1;
    FILE *f = rp_open(dir, "power.csv", "no power traces drawn");
    if (!f)
        return 0;
    while ((len = getline_cap(&line, &cap, f, RP_LINE_MAX)) != -1 && (len == -2 || line[len - 1] == '\n')) {
        double t, w;
        int rank, at = 0;
        char *end;
        lineno++;
        if (len == -2) {
            fprintf(stderr, "gauntlet report: %s/power.csv:%ld: a line longer than %d bytes: no row a run writes\n", dir,
                    lineno, RP_LINE_MAX);
            free(line);
            fclose(f);
            return EXIT_INPUT;
        }
        if (strncmp(line, "t_s,", 4) == 0) {   /* the header */
            col = rp_column(line, "node");
            continue;
        }
        if (sscanf(line, "%lf,%d,%n", &t, &rank, &at) != 2 || !at || !isfinite(t)) {
            fprintf(stderr, "gauntlet report: %s/power.csv:%ld: expected t_s,rank,watts,... (a time and a rank first)\n",
                    dir, lineno);
            free(line);
            fclose(f);
            return EXIT_INPUT;
        }
        if (world && (rank < 0 || rank >= world)) {   /* as summarize refuses it */
            fprintf(stderr, "gauntlet report: %s/power.csv:%ld: rank %d, but the start event gives %lld rank(s) in all\n",
                    dir, lineno, rank, world);
            free(line);
            fclose(f);
            return EXIT_INPUT;
        }
        long node = rp_node(line, col);
        if (node != 0 || fabs(t) > RP_FIG_MAX) {   /* another node's GPUs: not the table's node */
            *others |= node > 0;
            continue;
        }
        w = strtod(line + at, &end);
        if (end == line + at || !strchr(",\r\n", *end) || !isfinite(w) || fabs(w) > RP_FIG_MAX)
            w = NAN;    /* empty, or no reading: missing, not 0 W nor a scale of inf */
        for (int i = 0; i < n; i++)
            if (t >= runs[i].t0 && t <= runs[i].t1)
                rp_add(&runs[i], t, w);
    }
    free(line);
    rp_done(f, dir, "power.csv");
    for (int i = 0; i < n; i++)
        rp_order(&runs[i]);
    return 0;
}

/* Whether run is a facility battery whose battery was not computed (a summary rebuilt by `gauntlet summarize`, which
 * has no projection.bess): what the grid sees behind it is not known. */
static int rp_battery_unknown(json_t *run)
{
    json_t *pr = json_object_get(json_object_get(json_object_get(run, "power"), "aggregate"), "projection");
    return json_is_string(json_object_get(run, "mitigation")) &&
           strcmp(json_string_value(json_object_get(run, "mitigation")), "bess") == 0 && !json_object_get(pr, "bess");
}

/* Returns run's swing left (p99 - p1): the projected cluster's as the grid sees it (MW) when mw, else the node's
 * (W); NAN when not measured, and for a battery not computed (the GPUs' cluster swing is not the grid's). */
double rp_swing(json_t *run, int mw)
{
    json_t *agg = json_object_get(json_object_get(run, "power"), "aggregate");
    json_t *pr = json_object_get(agg, "projection"), *bess = json_object_get(pr, "bess");
    if (mw && rp_battery_unknown(run))
        return NAN;
    return rp_fig(mw ? json_object_get(bess ? bess : pr, bess ? "grid_swing_mw" : "swing_mw") : json_object_get(agg, "swing_w"));
}

/* Returns x formatted with fmt, or "-" when it is not a number. */
const char *rp_fmt(char *buf, size_t n, const char *fmt, double x)
{
    if (isfinite(x))
        snprintf(buf, n, fmt, x);
    else
        snprintf(buf, n, "-");
    return buf;
}

/* Returns a JSON number formatted with fmt, or "-" when v is not one. */
static const char *rp_num(char *buf, size_t n, const char *fmt, json_t *v)
{
    return rp_fmt(buf, n, fmt, rp_fig(v));
}

/* The larger of the largest rise and the largest fall over 100 ms (a fade's limit shows in the fall), NaN where
 * neither was measured. */
static double rp_ramp100(json_t *agg)
{
    json_t *up = json_object_get(json_object_get(agg, "ramp_up_w_s"), "100ms");
    json_t *down = json_object_get(json_object_get(agg, "ramp_down_w_s"), "100ms");
    return fmax(rp_fig(up), rp_fig(down));
}

/* Writes the comparison table to f. */
static void rp_table(FILE *f, struct rp_run *runs, int n)
{
    int wl = 20;   /* as wide as the longest name */
    for (int i = 0; i < n; i++)
        if ((int)strlen(runs[i].name) + 1 > wl)
            wl = (int)strlen(runs[i].name) + 1;
    fprintf(f, "%-*s %11s %19s %11s %14s %8s %9s %9s %7s %8s\n", wl, "mitigation", "node_swing_W", "max-min_W (samples)",
            "grid_MW", "ramp100ms_W/s", "dom_Hz", "energy+%", "time+%", "eff", "spec");
    for (int i = 0; i < n; i++) {
        json_t *agg = json_object_get(json_object_get(runs[i].summary, "power"), "aggregate");
        json_t *proj = json_object_get(agg, "projection"), *vs = json_object_get(runs[i].summary, "vs_none");
        json_t *pass = json_object_get(json_object_get(proj, "spec"), "pass");
        if (runs[i].cut)   /* a part of a run against a whole none: no cost of the mitigation */
            vs = NULL;
        char a[9][32], range[48];
        json_t *ns = json_object_get(agg, "samples");   /* not said (no power analysed): -, never (0) */
        if (json_is_integer(ns) && json_integer_value(ns) >= 0)
            snprintf(a[8], 32, "%lld", (long long)json_integer_value(ns));
        else
            snprintf(a[8], 32, "-");
        snprintf(range, sizeof range, "%s (%s)", rp_num(a[1], 32, "%.0f", json_object_get(agg, "range_w")), a[8]);
        fprintf(f, "%-*s %11s %19s %11s %14s %8s %9s %9s %7s %8s\n", wl, runs[i].name,
                rp_num(a[0], 32, "%.0f", json_object_get(agg, "swing_w")), range,
                rp_fmt(a[2], 32, "%.2f", rp_swing(runs[i].summary, 1)),
                rp_fmt(a[3], 32, "%.0f", rp_ramp100(agg)),
                rp_num(a[4], 32, "%.2f", json_object_get(agg, "dominant_hz")),
                rp_num(a[5], 32, "%.1f", json_object_get(vs, "energy_overhead_pct")),
                rp_num(a[6], 32, "%.1f", json_object_get(vs, "iteration_overhead_pct")),
                rp_num(a[7], 32, "%.2f", json_object_get(vs, "energy_efficiency")),
                json_is_true(pass) ? "pass" : json_is_false(pass) ? "FAIL" : "-");
    }
    fprintf(f, "(node_swing: p99 - p1 of the sum over ranks; time+%%: the change of throughput, every wait included; eff: "
               "the least energy the run's floor and ramp limits needed over the energy it added)\n");
    for (int i = 0; i < n; i++) {   /* a mitigation that made things worse, or had no swing to act on */
        const char *w = json_string_value(json_object_get(json_object_get(runs[i].summary, "vs_none"), "warning"));
        if (w)
            fprintf(f, "! %s: %s\n", runs[i].name, w);
    }
    rp_held_notes(f, runs, n);
    for (int i = 0; i < n; i++)
        if (rp_battery_unknown(runs[i].summary)) {
            fprintf(f, "(bess: its battery is not in this summary (rebuilt by gauntlet summarize): what the grid sees "
                       "behind it is not known, grid_MW -)\n");
            break;
        }
    rp_cut_legend(f, runs, n);
    for (int i = 0; i < n; i++)
        if (runs[i].disturbed) {
            fprintf(f, "(~: disturbed by hand in the live view (paused, a fault injected, skipped): its figures are not "
                       "the mitigation's alone; on no curve, never the baseline, not in the search)\n");
            break;
        }
    int said = 0;
    for (int i = 0; i < n; i++) {   /* what is a model's, not a measurement */
        json_t *mod = json_object_get(runs[i].summary, "modelled"), *v;
        size_t k;
        json_array_foreach(mod, k, v) {
            int seen = 0;   /* the backend's own sentence once, not per run */
            for (int j = 0; j < i && !seen; j++) {
                json_t *w;
                size_t q;
                json_array_foreach(json_object_get(runs[j].summary, "modelled"), q, w)
                    seen |= json_equal(v, w);
            }
            if (seen)
                continue;
            fprintf(f, "%s %s\n", said++ ? "         " : "modelled:", json_string_value(v));
        }
    }
}

/* Returns where run's trace panel starts: the end of its warm-up (warm: power.settle, as the summary's analysis left
 * it out) where it lies inside the trace, else a tenth of the way in. */
static double rp_start(const struct rp_run *r)
{
    double t0 = r->t[0], t1 = r->t[r->n - 1];
    return isfinite(r->warm) && r->warm >= t0 && r->warm < t1 ? r->warm : t0 + 0.1 * (t1 - t0);
}

/* Draws at yb the bars of each run against none: swing removed (for bess the grid's, behind its battery: the figure
 * of the table's grid_MW and of the curves, as the node's is the trace it leaves alone), energy and time paid. */
static void rp_bars(FILE *f, double yb, const struct rp_run *runs, int n)
{
    fprintf(f, "<text x=\"10\" y=\"%.0f\" font-size=\"15\">Against none: swing removed (green; bess: the grid's, behind "
               "its battery), energy paid (red), time paid (grey), percent</text>\n", yb);
    for (int i = 0; i < n; i++) {   /* a run that ended early: no bars (a part of it against a whole none) */
        json_t *vs = runs[i].cut ? NULL : json_object_get(runs[i].summary, "vs_none");
        int grid = strcmp(runs[i].mitigation, "bess") == 0;
        const char *const key[] = { grid ? "grid_swing_reduction_pct" : "swing_reduction_pct", "energy_overhead_pct",
                                    "iteration_overhead_pct" };
        double v[3];
        char txt[3][24];
        for (int b = 0; b < 3; b++) {   /* a figure not known (no none, a null): no bar and a dash, never +0 % */
            v[b] = b == 0 && grid && rp_battery_unknown(runs[i].summary) ? NAN : rp_fig(json_object_get(vs, key[b]));
            if (isfinite(v[b]))
                snprintf(txt[b], sizeof txt[b], "%+.0f%%%s", v[b], b == 0 && grid ? " grid" : "");
            else
                snprintf(txt[b], sizeof txt[b], "\xe2\x80\x93");
        }
        static const char *const bar[] = { "#2ca02c", "#d62728", "#888888" };
        double y = yb + 14 + i * 26;
        fprintf(f, "<text x=\"10\" y=\"%.0f\">", y + 14);
        rp_xml(f, runs[i].name);
        fprintf(f, "</text>\n");
        for (int b = 0; b < 3; b++) {
            if (!isfinite(v[b]))
                continue;
            double len = fabs(v[b]) * 2, x = 320 + (v[b] < 0 ? -len : 0);
            fprintf(f, "<rect class=\"bar\" data-bar=\"%s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"7\" "
                       "fill=\"%s\"/>\n", key[b], x, y + b * 7 + 2, len, bar[b]);
        }
        fprintf(f, "<text x=\"%d\" y=\"%.0f\">%s / %s / %s</text>\n", RP_W - 200, y + 14, txt[0], txt[1], txt[2]);
    }
}

/* Writes the picture into *buf (malloc'd): one panel per run (node 0's power over the same stretch after the warm-up,
 * one power scale; others: power.csv held other nodes' rows too, left out), the waveform and spectrum panels, bars,
 * then the trade-off curves. Returns 0, 1 when there is no power trace to draw, -1 (with a message) when it cannot. */
static int rp_svg(char **buf, size_t *blen, const char *path, struct rp_run *runs, int n, const struct rp_curve *cv,
                  int nc, json_t *search, int others)
{
    double lo = INFINITY, hi = -INFINITY, span = INFINITY;
    for (int i = 0; i < n; i++) {   /* about eight iterations of each after its warm-up, or the shortest run's rest */
        if (runs[i].n < 2)
            continue;
        double p50 = rp_fig(json_object_get(json_object_get(runs[i].summary, "iteration_s"), "p50"));
        span = fmin(span, fmin(runs[i].t[runs[i].n - 1] - rp_start(&runs[i]), p50 > 0 ? 8 * p50 : INFINITY));
    }
    for (int i = 0; i < n && isfinite(span); i++) {   /* one power scale: what is drawn */
        double start = runs[i].n >= 2 ? rp_start(&runs[i]) : 0;
        for (size_t k = 0; k < runs[i].n; k++)
            if (runs[i].t[k] >= start && runs[i].t[k] <= start + span) {
                lo = fmin(lo, runs[i].w[k]);
                hi = fmax(hi, runs[i].w[k]);
            }
    }
    if (!isfinite(span) || !(span > 0) || !(hi > lo) || !isfinite(hi - lo))
        return 1;
    FILE *f = rp_mem(buf, blen, path);
    if (!f)
        return -1;
    double yp = 40 + n * RP_PANEL_H, yb = yp + rp_plots_height(runs, n) + 30, curves_y = yb + 30 + n * 26;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"10\" y=\"22\" font-size=\"15\">%s: the same %.2f s of each run, one scale</text>\n", RP_W,
            curves_y + nc * RP_CURVE_H, others ? "Node 0's power per mitigation (sum over its ranks; the other nodes' rows "
                                                "of power.csv left out)" : "Node power per mitigation (sum over ranks)", span);
    for (int i = 0; i < n; i++) {
        double y0 = 40 + i * RP_PANEL_H, start = runs[i].n >= 2 ? rp_start(&runs[i]) : 0;
        fprintf(f, "<text x=\"112\" y=\"%.0f\" text-anchor=\"end\" fill=\"#888\">%.0f W</text>\n"
                   "<text x=\"112\" y=\"%.0f\" text-anchor=\"end\" fill=\"#888\">%.0f W</text>\n<text x=\"10\" y=\"%.0f\">",
                y0 + 10, hi, y0 + RP_PANEL_H - 12, lo, y0 + RP_PANEL_H / 2);
        rp_xml(f, runs[i].name);
        fprintf(f, "</text>\n<rect class=\"trace-panel\"");
        if (runs[i].n >= 2 && isfinite(runs[i].t0))   /* where its stretch starts in the run, when it has a trace */
            fprintf(f, " data-from-s=\"%.6f\"", start - runs[i].t0);
        fprintf(f, " x=\"120\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#cccccc\"/>\n", y0,
                RP_W - 130, RP_PANEL_H - 10);
        char attrs[128];
        snprintf(attrs, sizeof attrs, "class=\"trace\" stroke=\"%s\"%s stroke-width=\"1\"", rp_color(i), rp_dash(i));
        struct rp_pen pen = { .f = f, .attrs = attrs };
        for (size_t k = 0; k < runs[i].n; k++) {   /* a missing sample is a gap */
            double x = (runs[i].t[k] - start) / span;
            if (x >= 0 && x <= 1)
                rp_pen_to(&pen, 120 + x * (RP_W - 130), y0 + (RP_PANEL_H - 10) * (1 - (runs[i].w[k] - lo) / (hi - lo)));
        }
        rp_pen_end(&pen);
    }
    rp_plots_svg(f, yp, runs, n);
    rp_bars(f, yb, runs, n);
    fprintf(f, "<line x1=\"320\" y1=\"%.0f\" x2=\"320\" y2=\"%.0f\" stroke=\"black\"/>\n", yb + 10, curves_y - 5);
    for (int c = 0; c < nc; c++)
        rp_curve_svg(f, curves_y + c * RP_CURVE_H, runs, &cv[c], c, search);
    fprintf(f, "</svg>\n");
    return rp_mem_close(f, path);
}

/* Writes the report's text to f: what the record says of itself, the table, the curves, the shapes, the faults; and
 * whose power the picture draws when power.csv held other nodes' rows too (others). */
static void rp_text(FILE *f, json_t *summary, struct rp_run *runs, int n, const struct rp_curve *cv, int nc, int others)
{
    json_t *faults = json_object_get(summary, "faults");
    rp_record_note(f, summary);
    rp_table(f, runs, n);
    if (others)
        fprintf(f, "(report.svg's traces and spectra are node 0's, as the table's figures are (summary.json's runs[]): "
                   "power.csv holds other nodes' rows too (forward: ranks), each at its own ticks, left out)\n");
    rp_curve_table(f, runs, cv, nc, json_object_get(summary, "search"));
    shapes_compare_print(json_object_get(summary, "shapes"), f);
    if (json_array_size(faults))
        fprintf(f, "\nfaults (%zu):\n", json_array_size(faults));
    fault_table_print(faults, f);
}

/* Returns what makes summary.json (its runs sr) no summary the report can read, NULL when nothing does; why holds an
 * indexed reason. */
static const char *rp_shape(json_t *summary, json_t *sr, char *why, size_t n)
{
    const char *shape = !json_is_object(summary)                                 ? "expected a JSON object"
                        : !json_is_string(json_object_get(summary, "scenario")) ? "scenario: expected a string"
                        : !json_is_array(sr)                                     ? "runs: expected a list of runs"
                        : json_is_array(json_object_get(summary, "faults")) || !json_object_get(summary, "faults")
                            ? NULL
                            : "faults: expected a list of faults";
    for (size_t i = 0; !shape && i < json_array_size(sr); i++) {
        json_t *r = json_array_get(sr, i), *label = json_object_get(r, "label"), *m = json_object_get(r, "mitigation");
        if (!json_is_object(r))
            shape = "runs: expected each run an object";
        else if ((json_is_string(label) && strlen(json_string_value(label)) > RP_LABEL_MAX) ||
                 (!json_is_string(label) && json_is_string(m) && strlen(json_string_value(m)) > RP_LABEL_MAX)) {
            snprintf(why, n, "runs[%zu].%s: expected at most %d bytes (what a run's label can be), got %zu", i,
                     json_is_string(label) ? "label" : "mitigation", RP_LABEL_MAX,
                     strlen(json_string_value(json_is_string(label) ? label : m)));
            shape = why;
        }
    }
    return shape;
}

const struct cli_cmd report_cli = {
    "report", "RUNDIR", 1, 1, "a run's mitigations compared: a table, report.txt and report.svg (traces, waveform, "
                              "spectrum, trade-off curves)",
    "Writes RUNDIR/report.txt and RUNDIR/report.svg (and report.png when rsvg-convert is installed) from the run's\n"
    "summary.json, scenario.yaml and power.csv; prints the table. A run that ended early (stopped or killed) is\n"
    "marked *, its cost against none left out; a killed run's folder needs `gauntlet summarize RUNDIR` first.\n",
    { { 0 } },
};

static int report_dir(const char *dir);

int report_main(int argc, char **argv)
{
    struct cli_args a;
    int rc0 = cli_parse(&report_cli, argc, argv, &a);
    if (rc0)
        return rc0 == CLI_HELP ? EXIT_OK : rc0;
    const char *dir = a.operand[0];
    if (strlen(dir) > PATH_MAX - 32) {
        fprintf(stderr, "gauntlet report: %.64s...: results folder path too long\n", dir);
        return EXIT_INPUT;
    }
    /* the folder's shared lock, held while it is read and the report written, as summarize holds it: a run still
     * writing the folder is refused (exit 3: its summary is not written yet), and one started meanwhile is refused
     * by it (until 2026-12-02 a run started beside a report cleared the folder, and the report then wrote the old
     * run's report.txt and report.svg beside the new run's record) */
    char pid[32];
    int keep = -1, held = dir_lock_share(dir, pid, sizeof pid, &keep);
    if (held > 0) {
        fprintf(stderr, "gauntlet report: results folder %s is in use by a run still going (pid %s): report it after "
                        "its end\n", dir, pid);
        return EXIT_ENV;
    }
    if (held < 0 && errno != ENOTDIR) {
        fprintf(stderr, "gauntlet report: cannot look at %s/.lock: %s\n", dir, strerror(errno));
        return EXIT_ENV;
    }
    int rc = report_dir(dir);
    if (keep >= 0)
        close(keep);
    return rc;
}

/* report_main's report of dir, the folder's shared lock held. */
static int report_dir(const char *dir)
{
    char path[PATH_MAX];
    json_error_t err;
    /* a FIFO would hang the report, a folder read as a file says a misleading JSON error: each file it reads that is
     * there must be a regular file */
    static const char *const inputs[] = { "events.jsonl", "power.csv", "scenario.yaml" };
    for (size_t i = 0; i < ARRAY_LEN(inputs); i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, inputs[i]);
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            fprintf(stderr, "gauntlet report: %s: not a regular file\n", path);
            return EXIT_INPUT;
        }
    }
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *sf = fopen_regular(path, "r");
    if (!sf)   /* not there: say so (a killed run's: summarize it first), not a JSON error at line -1 */
        return rp_no_summary(dir, path);
    json_t *summary = json_loadf(sf, 0, &err);
    int sf_bad = ferror(sf);
    if (fclose(sf) != 0 || sf_bad) {
        fprintf(stderr, "gauntlet report: %s: read error\n", path);
        json_decref(summary);
        return EXIT_ENV;
    }
    if (!summary) {
        fprintf(stderr, "gauntlet report: %s:%d: %s\n", path, err.line, err.text);
        return EXIT_INPUT;
    }
    json_t *sr = json_object_get(summary, "runs");
    char why[160];
    const char *shape = rp_shape(summary, sr, why, sizeof why);
    if (shape) {   /* a summary of another shape: nothing read from it, nothing written (an earlier report stays) */
        fprintf(stderr, "gauntlet report: %s: not a gauntlet summary: %s\n", path, shape);
        json_decref(summary);
        return EXIT_INPUT;
    }
    rp_figs_check(path, sr);
    int n = (int)json_array_size(sr), rc = EXIT_OK;
    if (n > RP_MAX_RUNS) {
        fprintf(stderr, "gauntlet report: %s has %d runs; the first %d are shown\n", path, n, RP_MAX_RUNS);
        n = RP_MAX_RUNS;
    }
    struct rp_run *runs = xcalloc(RP_MAX_RUNS, sizeof *runs);
    for (int i = 0; i < n; i++) {
        json_t *label = json_object_get(json_array_get(sr, (size_t)i), "label");
        runs[i].summary = json_array_get(sr, (size_t)i);
        runs[i].mitigation = json_string_value(json_object_get(runs[i].summary, "mitigation"));
        runs[i].mitigation = runs[i].mitigation ? runs[i].mitigation : "?";
        json_t *at = json_object_get(runs[i].summary, "run");
        runs[i].index = json_is_integer(at) ? json_integer_value(at) : i;
        runs[i].disturbed = json_array_size(json_object_get(runs[i].summary, "disturbed")) > 0;
        runs[i].cut = rp_cut(runs[i].summary);
        json_t *shape = json_object_get(runs[i].summary, "shape");
        str_copy(runs[i].shape, sizeof runs[i].shape, json_is_string(shape) ? json_string_value(shape) : "");
        snprintf(runs[i].name, sizeof runs[i].name, "%s%s%s", json_is_string(label) ? json_string_value(label) : runs[i].mitigation,
                 runs[i].cut ? "*" : "", runs[i].disturbed ? "~" : "");   /* whole: rp_shape kept it to RP_LABEL_MAX */
        runs[i].t0 = runs[i].warm = INFINITY;   /* no samples until events.jsonl says where the run is */
        runs[i].t1 = -INFINITY;
        runs[i].a0 = runs[i].a1 = NAN;
    }
    int others = 0;
    long long world = 0;
    rp_params(dir, runs, n);
    rc = rp_windows(dir, runs, n, &world);
    rc = rc ? rc : rp_power(dir, runs, n, world, &others);
    if (rc)   /* a malformed line: nothing written (an earlier report stays) */
        goto done;
    struct rp_curve *cv = xcalloc(RP_MAX_RUNS, sizeof *cv);
    int nc = rp_curves(runs, n, cv);
    printf("%s: %s, %d run(s)\n", dir, json_string_value(json_object_get(summary, "scenario")), n);
    rp_text(stdout, summary, runs, n, cv, nc, others);
    snprintf(path, sizeof path, "%s/report.txt", dir);
    char *txt = NULL, *svg = NULL;   /* both made in memory first: the old picture goes before the new text */
    size_t tlen = 0, slen = 0;
    FILE *f = rp_mem(&txt, &tlen, path);
    if (f) {
        rp_text(f, summary, runs, n, cv, nc, others);
        if (rp_mem_close(f, path) != 0) {
            free(txt);
            txt = NULL;
        }
    }
    snprintf(path, sizeof path, "%s/report.svg", dir);
    int drawn = rp_svg(&svg, &slen, path, runs, n, cv, nc, json_object_get(summary, "search"), others);
    rc = rp_files(dir, txt, tlen, svg, slen, drawn);
    free(txt);
    free(svg);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "gauntlet report: stdout: %s\n", strerror(errno));
        rc = EXIT_ENV;
    }
    free(cv);
done:
    for (int i = 0; i < RP_MAX_RUNS; i++) {
        free(runs[i].t);
        free(runs[i].w);
    }
    free(runs);
    json_decref(summary);
    return rc;
}
