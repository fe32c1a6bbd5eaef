/* harness/report.c: `gauntlet report RUNDIR` — the comparison of a finished run's mitigations, as a table
 * (stdout and RUNDIR/report.txt) and a picture (RUNDIR/report.svg: each mitigation's power over the same
 * stretch of iterations on one scale, and bars of swing removed against energy and time paid). It reads the
 * run's files: summary.json, events.jsonl (where each run begins and ends) and power.csv. */
#include "report.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define RP_MAX_RUNS 64
#define RP_W 900        /* svg width */
#define RP_PANEL_H 110  /* one trace panel */

struct rp_run {
    char name[48];
    double t0, t1;      /* the run's window in power.csv's time */
    double *t, *w;      /* the aggregate power: sum over ranks per sample time */
    size_t n, cap;
    json_t *summary;    /* borrowed */
};

/* Appends (t, w) to a run's aggregate, adding to the last point when t is the same tick. */
static void rp_add(struct rp_run *r, double t, double w)
{
    if (r->n && fabs(r->t[r->n - 1] - t) < 1e-9) {
        r->w[r->n - 1] += w;
        return;
    }
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->t = xrealloc(r->t, r->cap * sizeof *r->t);
        r->w = xrealloc(r->w, r->cap * sizeof *r->w);
    }
    r->t[r->n] = t;
    r->w[r->n++] = w;
}

/* Reads run windows from events.jsonl. Returns the number of runs. */
static int rp_windows(const char *dir, struct rp_run *runs)
{
    char path[1100], line[8192];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "r");
    int n = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, "\"run_begin\"") && !strstr(line, "\"run_end\""))
            continue;
        json_t *o = json_loads(line, 0, NULL);
        const char *ev = json_string_value(json_object_get(o, "event"));
        int run = (int)json_integer_value(json_object_get(o, "run"));
        double t = json_number_value(json_object_get(o, "t_s"));
        if (ev && run >= 0 && run < RP_MAX_RUNS) {
            if (strcmp(ev, "run_begin") == 0) {
                runs[run].t0 = t;
                runs[run].t1 = INFINITY;
                json_t *label = json_object_get(o, "label");
                str_copy(runs[run].name, sizeof runs[run].name,
                         json_string_value(label ? label : json_object_get(o, "mitigation")));
                if (run + 1 > n)
                    n = run + 1;
            } else {
                runs[run].t1 = t;
            }
        }
        json_decref(o);
    }
    fclose(f);
    return n;
}

/* Reads power.csv into each run's aggregate trace. */
static void rp_power(const char *dir, struct rp_run *runs, int n)
{
    char path[1100], line[512];
    snprintf(path, sizeof path, "%s/power.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        double t, w;
        int rank;
        if (sscanf(line, "%lf,%d,%lf", &t, &rank, &w) != 3)
            continue;   /* the header, or a missing sample */
        for (int i = 0; i < n; i++)
            if (t >= runs[i].t0 && t <= runs[i].t1)
                rp_add(&runs[i], t, w);
    }
    fclose(f);
}

/* Returns x formatted with fmt, or "-" when it is not a number. */
static const char *rp_num(char *buf, size_t n, const char *fmt, json_t *v)
{
    if (json_is_number(v))
        snprintf(buf, n, fmt, json_number_value(v));
    else
        snprintf(buf, n, "-");
    return buf;
}

/* Writes the comparison table to f. */
static void rp_table(FILE *f, struct rp_run *runs, int n)
{
    fprintf(f, "%-20s %11s %11s %11s %10s %8s %9s %9s %8s\n", "mitigation", "node_swing_W", "p99-p1_W", "grid_MW",
            "ramp_W/s", "dom_Hz", "energy+%", "time+%", "spec");
    for (int i = 0; i < n; i++) {
        json_t *agg = json_object_get(json_object_get(runs[i].summary, "power"), "aggregate");
        json_t *proj = json_object_get(agg, "projection"), *vs = json_object_get(runs[i].summary, "vs_none");
        json_t *pass = json_object_get(json_object_get(proj, "spec"), "pass");
        char a[7][32];
        fprintf(f, "%-20s %11s %11s %11s %10s %8s %9s %9s %8s\n", runs[i].name,
                rp_num(a[0], 32, "%.0f", json_object_get(agg, "swing_w")),
                rp_num(a[1], 32, "%.0f", json_object_get(agg, "swing_p99_p1_w")),
                rp_num(a[2], 32, "%.2f", json_object_get(proj, "bess") ? json_object_get(json_object_get(proj, "bess"),
                                                                                         "grid_swing_mw")
                                                                        : json_object_get(proj, "swing_mw")),
                rp_num(a[3], 32, "%.0f", json_object_get(json_object_get(agg, "ramp_up_w_s"), "100ms")),
                rp_num(a[4], 32, "%.2f", json_object_get(agg, "dominant_hz")),
                rp_num(a[5], 32, "%.1f", json_object_get(vs, "energy_overhead_pct")),
                rp_num(a[6], 32, "%.1f", json_object_get(vs, "iteration_overhead_pct")),
                json_is_true(pass) ? "pass" : json_is_false(pass) ? "FAIL" : "-");
    }
}

/* Writes the picture: one panel per run (the same stretch after the warm-up, one power scale), then bars. */
static int rp_svg(const char *path, struct rp_run *runs, int n)
{
    double lo = INFINITY, hi = -INFINITY, span = INFINITY;
    for (int i = 0; i < n; i++) {   /* about eight iterations of each, or 80 % of the shortest run */
        if (runs[i].n < 2)
            continue;
        double p50 = json_number_value(json_object_get(json_object_get(runs[i].summary, "iteration_s"), "p50"));
        span = fmin(span, fmin((runs[i].t[runs[i].n - 1] - runs[i].t[0]) * 0.8, p50 > 0 ? 8 * p50 : INFINITY));
    }
    for (int i = 0; i < n && isfinite(span); i++) {   /* one power scale: what is drawn */
        double start = runs[i].t[0] + 0.1 * (runs[i].n ? runs[i].t[runs[i].n - 1] - runs[i].t[0] : 0);
        for (size_t k = 0; k < runs[i].n; k++)
            if (runs[i].t[k] >= start && runs[i].t[k] <= start + span) {
                lo = fmin(lo, runs[i].w[k]);
                hi = fmax(hi, runs[i].w[k]);
            }
    }
    if (!isfinite(span) || !(hi > lo))
        return -1;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int height = 40 + n * RP_PANEL_H + 60 + n * 26;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"10\" y=\"22\" font-size=\"15\">Node power per mitigation (sum over ranks): the same %.2f s of each "
               "run, one scale</text>\n", RP_W, height, span);
    static const char *const colors[] = { "#444444", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b" };
    for (int i = 0; i < n; i++) {
        double y0 = 40 + i * RP_PANEL_H, start = runs[i].t[0] + 0.1 * (runs[i].n ? runs[i].t[runs[i].n - 1] - runs[i].t[0] : 0);
        fprintf(f, "<text x=\"112\" y=\"%.0f\" text-anchor=\"end\" fill=\"#888\">%.0f W</text>\n"
                   "<text x=\"112\" y=\"%.0f\" text-anchor=\"end\" fill=\"#888\">%.0f W</text>\n",
                y0 + 10, hi, y0 + RP_PANEL_H - 12, lo);
        fprintf(f, "<text x=\"10\" y=\"%.0f\">%s</text>\n<rect x=\"120\" y=\"%.0f\" width=\"%d\" height=\"%d\" "
                   "fill=\"none\" stroke=\"#cccccc\"/>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1\" points=\"",
                y0 + RP_PANEL_H / 2, runs[i].name, y0, RP_W - 130, RP_PANEL_H - 10, colors[i % 7]);
        for (size_t k = 0; k < runs[i].n; k++) {
            double x = (runs[i].t[k] - start) / span;
            if (x < 0 || x > 1)
                continue;
            fprintf(f, "%.1f,%.1f ", 120 + x * (RP_W - 130),
                    y0 + (RP_PANEL_H - 10) * (1 - (runs[i].w[k] - lo) / (hi - lo)));
        }
        fprintf(f, "\"/>\n");
    }
    double yb = 40 + n * RP_PANEL_H + 30;
    fprintf(f, "<text x=\"10\" y=\"%.0f\" font-size=\"15\">Against none: swing removed (green), energy paid (red), time "
               "paid (grey), percent</text>\n", yb);
    for (int i = 0; i < n; i++) {
        json_t *vs = json_object_get(runs[i].summary, "vs_none");
        double v[3] = { json_number_value(json_object_get(vs, "swing_reduction_pct")),
                        json_number_value(json_object_get(vs, "energy_overhead_pct")),
                        json_number_value(json_object_get(vs, "iteration_overhead_pct")) };
        static const char *const bar[] = { "#2ca02c", "#d62728", "#888888" };
        double y = yb + 14 + i * 26;
        fprintf(f, "<text x=\"10\" y=\"%.0f\">%s</text>\n", y + 14, runs[i].name);
        for (int b = 0; b < 3; b++) {
            double len = fabs(v[b]) * 2, x = 320 + (v[b] < 0 ? -len : 0);
            fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"7\" fill=\"%s\"/>\n", x, y + b * 7 + 2, len,
                    bar[b]);
        }
        fprintf(f, "<text x=\"%d\" y=\"%.0f\">%+.0f%% / %+.0f%% / %+.0f%%</text>\n", RP_W - 200, y + 14, v[0], v[1], v[2]);
    }
    fprintf(f, "<line x1=\"320\" y1=\"%.0f\" x2=\"320\" y2=\"%d\" stroke=\"black\"/>\n</svg>\n", yb + 10, height - 5);
    return fclose(f) == 0 ? 0 : -1;
}

int report_main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "gauntlet: report: expected one results folder (usage: gauntlet report RUNDIR)\n");
        return EXIT_INPUT;
    }
    const char *dir = argv[1];
    char path[1100];
    json_error_t err;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *summary = json_load_file(path, 0, &err);
    if (!summary) {
        fprintf(stderr, "gauntlet: report: %s: %s (line %d)\n", path, err.text, err.line);
        return EXIT_INPUT;
    }
    struct rp_run *runs = xcalloc(RP_MAX_RUNS, sizeof *runs);
    int n = rp_windows(dir, runs);
    json_t *sr = json_object_get(summary, "runs");
    if (n > (int)json_array_size(sr))
        n = (int)json_array_size(sr);
    for (int i = 0; i < n; i++)
        runs[i].summary = json_array_get(sr, (size_t)i);
    rp_power(dir, runs, n);
    printf("%s: %s, %d run(s)\n", dir, json_string_value(json_object_get(summary, "scenario")), n);
    rp_table(stdout, runs, n);
    snprintf(path, sizeof path, "%s/report.txt", dir);
    FILE *f = fopen(path, "w");
    int rc = EXIT_OK;
    if (f) {
        rp_table(f, runs, n);
        if (fclose(f) != 0)
            rc = EXIT_ENV;
    } else {
        rc = EXIT_ENV;
    }
    snprintf(path, sizeof path, "%s/report.svg", dir);
    if (rp_svg(path, runs, n) == 0)
        printf("plots: %s\n", path);
    else
        printf("plots: none (no power trace to draw)\n");
    for (int i = 0; i < RP_MAX_RUNS; i++) {
        free(runs[i].t);
        free(runs[i].w);
    }
    free(runs);
    json_decref(summary);
    if (rc)
        fprintf(stderr, "gauntlet: report: cannot write %s/report.txt\n", dir);
    return rc;
}
