/* tests/test_report.c: `gauntlet report` on real sim runs: a swept parameter gets its trade-off curve (swing left
 * against energy and time paid, value by value) in report.svg and as a table in report.txt, with the figures of
 * summary.json; a run without a sweep gets none. Every run gets its line in the waveform panel (summary.json's
 * waveform) and in the spectrum panel (peaking at its dominant frequency); report.png is made by rsvg-convert when
 * it is on PATH, and the report says why not when it is not. On synthetic folders (summary.json, events.jsonl and
 * power.csv written by hand): odd figures never hang it, every legal label is whole, report.svg is well-formed XML
 * whatever the labels, other nodes' rows and readings that are no number are left out of the traces, an earlier
 * picture is gone before the new text is written, bess's swing bar is the grid's, and a malformed line of
 * events.jsonl or power.csv is exit 2 naming file:line (what a kill leaves is not). */
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <strings.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "e2e.h"

#define BASE                                                                                                   \
    "name: rep\nranks: 2\niterations: 8\nseed: 5\n"                                                         \
    "workload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 64}\n"                                            \
    "  allreduce: {bytes: 1GiB, emulate_busbw: 20, emulate_ranks: 1024}\npower: {sample_hz: 200}\n"
#define MAXP 32
#define RP_TEST_RUNS 8

/* One point of a curve as the report drew or printed it, or as summary.json gives it. */
struct pt {
    char value[32];
    double swing, energy, time, cx, cy;
};

/* Runs text on sim, then `gauntlet report` on it; returns the results folder. The logs lie beside it, OUT.log and
 * OUT.report.log (tests run side by side). */
static const char *run_and_report(const char *text)
{
    const char *out = e2e_outdir();
    char runlog[256], replog[256];
    snprintf(runlog, sizeof runlog, "%s.log", out);
    snprintf(replog, sizeof replog, "%s.report.log", out);
    int rc = e2e_run(runlog, (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--out", out, NULL });
    char *log = e2e_read(runlog);
    cr_assert_eq(rc, 0, "run: exit %d:\n%s", rc, log);
    free(log);
    rc = e2e_run(replog, (const char *[]){ "report", out, NULL });
    log = e2e_read(replog);
    cr_assert_eq(rc, 0, "report: exit %d:\n%s", rc, log);
    free(log);
    return out;
}

/* Returns what `gauntlet report out` printed (run_and_report's log). */
static char *report_log(const char *out)
{
    char path[256];
    snprintf(path, sizeof path, "%s.report.log", out);
    return e2e_read(path);
}

/* Reads out/name whole (the test fails if it is missing). */
static char *slurp(const char *out, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", out, name);
    char *text = e2e_read(path);
    cr_assert(text, "%s is missing", path);
    return text;
}

/* Returns the attribute name of the element starting at el as a string in buf ("" when absent). */
static const char *attr(const char *el, const char *name, char *buf, size_t n)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *end = strchr(el, '>'), *a = strstr(el, key);
    buf[0] = '\0';
    if (a && a < end) {
        a += strlen(key);
        snprintf(buf, n, "%.*s", (int)(strcspn(a, "\"")), a);
    }
    return buf;
}

/* Returns a numeric attribute (the test fails when it is absent). */
static double num(const char *el, const char *name)
{
    char buf[64], *end;
    double v = strtod(attr(el, name, buf, sizeof buf), &end);
    cr_assert(buf[0] && !*end, "attribute %s missing or not a number in %.120s", name, el);
    return v;
}

/* Returns the numeric part of a swept value ("65%" -> 65). */
static double value_of(const char *v) { return strtod(v, NULL); }

/* Fills p with the runs of summary s whose label is "MITIGATION KEY=VALUE", ordered by value; returns how many. */
static int summary_points(json_t *s, const char *prefix, struct pt *p)
{
    json_t *r;
    size_t i;
    int n = 0;
    json_array_foreach(json_object_get(s, "runs"), i, r) {
        const char *label = json_string_value(json_object_get(r, "label"));
        if (!label || strncmp(label, prefix, strlen(prefix)) != 0)
            continue;
        json_t *proj = json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "projection");
        json_t *vs = json_object_get(r, "vs_none");
        cr_assert(json_is_number(json_object_get(proj, "swing_mw")), "%s: no projected swing", label);
        cr_assert_lt(n, MAXP);
        snprintf(p[n].value, sizeof p[n].value, "%s", label + strlen(prefix));
        p[n].swing = json_number_value(json_object_get(proj, "swing_mw"));
        p[n].energy = json_number_value(json_object_get(vs, "energy_overhead_pct"));
        p[n].time = json_number_value(json_object_get(vs, "iteration_overhead_pct"));
        n++;
    }
    for (int a = 1; a < n; a++)   /* by value */
        for (int b = a; b > 0 && value_of(p[b - 1].value) > value_of(p[b].value); b--) {
            struct pt t = p[b];
            p[b] = p[b - 1];
            p[b - 1] = t;
        }
    return n;
}

/* Returns the curve group of svg for mitigation and param (NUL-terminated copy; the test fails if absent). */
static char *curve(const char *svg, const char *mitigation, const char *param)
{
    char buf[64];
    for (const char *g = svg; (g = strstr(g, "<g class=\"tradeoff\"")); g++) {
        if (strcmp(attr(g, "data-mitigation", buf, sizeof buf), mitigation) != 0 ||
            strcmp(attr(g, "data-param", buf, sizeof buf), param) != 0)
            continue;
        const char *end = strstr(g, "</g>\n</g>");   /* the curve's second panel closes, then the curve */
        cr_assert(end, "the curve's group is not closed");
        return strndup(g, (size_t)(end - g) + 9);
    }
    cr_assert_fail("no curve for %s %s in report.svg", mitigation, param);
    return NULL;
}

/* Reads the points of the panel whose x is field (circles in drawing order) into p; returns how many. Also checks
 * the panel's polyline joins them in that order and that none's point is drawn. */
static int panel_points(const char *g, const char *field, struct pt *p)
{
    char key[96], buf[64];
    snprintf(key, sizeof key, "<g class=\"tradeoff-panel\" data-x=\"%s\">", field);
    const char *panel = strstr(g, key), *end = panel ? strstr(panel, "</g>") : NULL;
    cr_assert(panel && end, "no panel for %s", field);
    int n = 0;
    for (const char *c = panel; (c = strstr(c, "<circle class=\"tradeoff-point\"")) && c < end; c++, n++) {
        cr_assert_lt(n, MAXP);
        snprintf(p[n].value, sizeof p[n].value, "%s", attr(c, "data-value", buf, sizeof buf));
        p[n].swing = num(c, "data-swing");
        p[n].energy = p[n].time = num(c, "data-x");
        p[n].cx = num(c, "cx");
        p[n].cy = num(c, "cy");
    }
    const char *line = strstr(panel, "<polyline class=\"tradeoff-curve\"");
    cr_assert(line && line < end, "%s: no curve line", field);
    const char *pts = strstr(line, "points=\"") + 8;
    for (int k = 0; k < n; k++) {
        double x, y;
        int used;
        cr_assert_eq(sscanf(pts, "%lf,%lf %n", &x, &y, &used), 2, "%s: the line has fewer points than the curve", field);
        cr_assert(fabs(x - p[k].cx) < 0.06 && fabs(y - p[k].cy) < 0.06, "%s: the line's point %d is not %s's", field, k,
                  p[k].value);
        pts += used;
    }
    cr_assert_eq(*pts, '"', "%s: the line has more points than the curve", field);
    const char *none = strstr(panel, "class=\"tradeoff-none\"");
    cr_assert(none && none < end, "%s: none's point is missing", field);
    return n;
}

/* Checks a panel against summary.json: same values in order, same figures, and positions that follow them. */
static void check_panel(const char *g, const char *field, const struct pt *want, int n)
{
    struct pt got[MAXP];
    cr_assert_eq(panel_points(g, field, got), n, "%s: one point per swept value", field);
    for (int k = 0; k < n; k++) {
        double x = strcmp(field, "energy_overhead_pct") == 0 ? want[k].energy : want[k].time;
        cr_assert_str_eq(got[k].value, want[k].value, "%s: point %d", field, k);
        cr_assert(fabs(got[k].swing - want[k].swing) <= 1e-6 * fabs(want[k].swing), "%s %s: swing %g, summary %g", field,
                  want[k].value, got[k].swing, want[k].swing);
        cr_assert(fabs(got[k].energy - x) <= 1e-6 * fmax(1, fabs(x)), "%s %s: %g, summary %g", field, want[k].value,
                  got[k].energy, x);
        for (int j = 0; j < k; j++) {   /* left is cheaper, higher is more swing */
            double xj = strcmp(field, "energy_overhead_pct") == 0 ? want[j].energy : want[j].time;
            if (fabs(x - xj) > 0.5)
                cr_assert((got[k].cx - got[j].cx) * (x - xj) > 0, "%s: %s and %s out of place", field, want[j].value,
                          want[k].value);
            if (fabs(want[k].swing - want[j].swing) > 0.5)
                cr_assert((got[k].cy - got[j].cy) * (want[k].swing - want[j].swing) < 0, "%s: %s and %s out of place",
                          field, want[j].value, want[k].value);
        }
    }
}

/* Checks report.txt's table of the curve: a none row, then one row per value in order with summary's figures. */
static void check_table(const char *txt, const char *title, const struct pt *want, int n, json_t *none)
{
    const char *t = strstr(txt, title);
    cr_assert(t, "report.txt has no \"%s\":\n%s", title, txt);
    t = strchr(t, '\n') + 1;
    t = strchr(t, '\n') + 1;   /* the column heads */
    for (int k = -1; k < n; k++) {
        char value[32];
        double swing, cut, energy, time;
        cr_assert_eq(sscanf(t, "%31s %lf %lf %lf %lf", value, &swing, &cut, &energy, &time), 5, "row %d: %.80s", k, t);
        if (k < 0) {
            json_t *proj = json_object_get(json_object_get(json_object_get(none, "power"), "aggregate"), "projection");
            cr_assert_str_eq(value, "none");
            cr_assert_leq(fabs(swing - json_number_value(json_object_get(proj, "swing_mw"))), 0.0051);
        } else {
            cr_assert_str_eq(value, want[k].value, "row %d", k);
            cr_assert_leq(fabs(swing - want[k].swing), 0.0051, "%s: swing %g, summary %g", value, swing, want[k].swing);
            cr_assert_leq(fabs(energy - want[k].energy), 0.051, "%s: energy %g, summary %g", value, energy, want[k].energy);
            cr_assert_leq(fabs(time - want[k].time), 0.051, "%s: time %g, summary %g", value, time, want[k].time);
        }
        t = strchr(t, '\n') + 1;
    }
    cr_assert(*t == '\n' || *t == '\0' || strncmp(t, "trade-off", 9) == 0 || strncmp(t, "  by shape", 10) == 0,
              "more rows than values: %.80s", t);
}

/* Returns how many times needle occurs in hay. */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

Test(report, a_sweep_gets_its_trade_off_curve, .timeout = 180)
{
    /* the values out of order: the curve joins them in order of the value */
    const char *out = run_and_report(BASE "mitigations: [none, {filler: {floor: [80%, 50%, 90%, 65%]}}]\n");
    json_t *s = e2e_summary(out);
    struct pt want[MAXP];
    cr_assert_eq(summary_points(s, "filler floor=", want), 4, "summary.json labels the sweep's runs");
    char *svg = slurp(out, "report.svg"), *txt = slurp(out, "report.txt");
    cr_assert_eq(count(svg, "<g class=\"tradeoff\""), 1, "one swept parameter, one curve");
    char *g = curve(svg, "filler", "floor");
    cr_assert(strstr(g, "data-unit=\"MW\""), "the swing is the projected cluster's, in MW");
    check_panel(g, "energy_overhead_pct", want, 4);
    check_panel(g, "iteration_overhead_pct", want, 4);
    check_table(txt, "trade-off: filler floor, 4 values", want, 4, json_array_get(json_object_get(s, "runs"), 0));
    char *log = report_log(out);
    cr_assert(log && strstr(log, "trade-off: filler floor, 4 values"), "stdout prints the curve's table too");
    free(log);
    free(g);
    free(svg);
    free(txt);
    json_decref(s);
}

Test(report, no_sweep_no_curve, .timeout = 120)
{
    const char *out = run_and_report(BASE "mitigations: [none, {filler: {floor: 80%}}, {ramp: {ramp_w_s: 5000}}]\n");
    char *svg = slurp(out, "report.svg"), *txt = slurp(out, "report.txt");
    cr_assert_eq(count(svg, "tradeoff"), 0, "no sweep, no curve");
    cr_assert_eq(count(svg, "<polyline"), 3, "one trace per run, nothing else");
    cr_assert_eq(count(svg, "class=\"trace\""), 3, "one trace per run");
    cr_assert_eq(count(svg, "<path"), 2 * 3, "a waveform and a spectrum per run, nothing else");
    cr_assert_eq(count(txt, "trade-off"), 0, "no curve table:\n%s", txt);
    free(svg);
    free(txt);
}

Test(report, runs_differing_in_more_than_the_value_are_separate_curves, .timeout = 180)
{
    /* two sweeps of smoothing's floor at different ramps; filler at two floors listed apart is a sweep too */
    const char *out = run_and_report("name: rep\nranks: 2\niterations: 4\nseed: 5\n"
                                     "workload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 64}\n"
                                     "  allreduce: {bytes: 1GiB, emulate_busbw: 20, emulate_ranks: 1024}\n"
                                     "mitigations:\n  - none\n"
                                     "  - smoothing: {floor: [50%, 80%], ramp_up_w_s: 2000}\n"
                                     "  - smoothing: {floor: [65%, 90%], ramp_up_w_s: 8000}\n"
                                     "  - filler: {floor: 70%}\n  - cap: {cap: 70%}\n  - filler: {floor: 40%}\n");
    char *svg = slurp(out, "report.svg");
    cr_assert_eq(count(svg, "<g class=\"tradeoff\""), 3, "two smoothing curves and one filler curve");
    static const char *const expect[3][3] = { { "smoothing", "50%", "80%" }, { "smoothing", "65%", "90%" },
                                              { "filler", "40%", "70%" } };
    const char *g = svg;
    char buf[64];
    for (int c = 0; c < 3; c++) {
        g = strstr(g + 1, "<g class=\"tradeoff\"");
        cr_assert_str_eq(attr(g, "data-mitigation", buf, sizeof buf), expect[c][0]);
        cr_assert_str_eq(attr(g, "data-param", buf, sizeof buf), "floor");
        char *one = curve(g, expect[c][0], "floor");
        struct pt p[MAXP];
        cr_assert_eq(panel_points(one, "energy_overhead_pct", p), 2, "curve %d: two points", c);
        cr_assert_str_eq(p[0].value, expect[c][1], "curve %d", c);
        cr_assert_str_eq(p[1].value, expect[c][2], "curve %d", c);
        free(one);
    }
    free(svg);
}

/* Under workload.shapes a sweep is one curve per shape, each against its own shape's none: no row, point or slope of
 * one shape sits on another's curve, and no value carries a shape's name. */
Test(report, a_sweep_over_shapes_is_one_curve_per_shape_against_its_own_none, .timeout = 180)
{
    const char *out = run_and_report("name: rep\nranks: 2\niterations: 8\nseed: 5\nworkload:\n  shapes: [dp-overlap, moe]\n"
                                     "power: {sample_hz: 200}\nprojection: {gpus: 10000}\n"
                                     "mitigations: [none, {filler: {floor: [80%, 40%]}}]\n");
    json_t *s = e2e_summary(out), *r;
    char *svg = slurp(out, "report.svg"), *txt = slurp(out, "report.txt");
    cr_assert_eq(count(svg, "<g class=\"tradeoff\""), 2, "one curve per shape");
    cr_assert_eq(count(txt, "trade-off:"), 2, "one table per shape:\n%s", txt);
    static const char *const shape[2] = { "dp-overlap", "moe" };
    for (int k = 0; k < 2; k++) {
        struct pt want[MAXP];
        json_t *none = NULL;
        int n = 0;
        size_t i;
        json_array_foreach(json_object_get(s, "runs"), i, r) {
            if (strcmp(json_string_value(json_object_get(r, "shape")), shape[k]) != 0)
                continue;
            if (strcmp(json_string_value(json_object_get(r, "mitigation")), "none") == 0) {
                none = r;
                continue;
            }
            const char *label = json_string_value(json_object_get(r, "label")), *eq = strchr(label, '=');
            json_t *proj = json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "projection");
            json_t *vs = json_object_get(r, "vs_none");
            cr_assert(eq && strstr(eq, " ["), "%s", label);
            snprintf(want[n].value, sizeof want[n].value, "%.*s", (int)(strstr(eq, " [") - eq - 1), eq + 1);
            want[n].swing = json_number_value(json_object_get(proj, "swing_mw"));
            want[n].energy = json_number_value(json_object_get(vs, "energy_overhead_pct"));
            want[n].time = json_number_value(json_object_get(vs, "iteration_overhead_pct"));
            n++;
        }
        cr_assert(none && n == 2);
        if (value_of(want[0].value) > value_of(want[1].value)) {
            struct pt t = want[0];
            want[0] = want[1];
            want[1] = t;
        }
        char title[96], buf[64];
        snprintf(title, sizeof title, "trade-off: filler floor [%s], 2 values", shape[k]);
        check_table(txt, title, want, 2, none);   /* the none row is the shape's own */
        const char *g = svg;
        while ((g = strstr(g + 1, "<g class=\"tradeoff\"")) && strcmp(attr(g, "data-shape", buf, sizeof buf), shape[k]) != 0)
            ;
        cr_assert(g, "no curve for %s in report.svg", shape[k]);
        char *one = curve(g, "filler", "floor");
        check_panel(one, "energy_overhead_pct", want, 2);
        check_panel(one, "iteration_overhead_pct", want, 2);
        const char *sq = strstr(one, "class=\"tradeoff-none\"");   /* none's square: the shape's own none */
        cr_assert(sq, "no none in the %s curve", shape[k]);
        free(one);
    }
    free(svg);
    free(txt);
    json_decref(s);
}

Test(report, a_search_rings_its_pick, .timeout = 240)
{
    /* none and four filler floors, then two refined floors between the cheapest passing and the next cheaper one */
    const char *out = run_and_report(BASE "projection: {gpus: 100000, spec: {dynamic_range_mw: 20}}\nsearch_budget: 5\n"
                                          "mitigations: auto\n");
    json_t *s = e2e_summary(out);
    const char *best = json_string_value(json_object_get(json_object_get(json_object_get(s, "search"), "cheapest_passing"),
                                                         "label"));
    cr_assert(best && strncmp(best, "filler floor=", 13) == 0, "the search picks a filler floor: %s", best);
    struct pt want[MAXP];
    int n = summary_points(s, "filler floor=", want);
    cr_assert_eq(n, 6, "4 coarse and 2 refined floors, got %d", n);
    char *svg = slurp(out, "report.svg"), *txt = slurp(out, "report.txt");
    char *g = curve(svg, "filler", "floor");
    check_panel(g, "energy_overhead_pct", want, n);
    const char *ring = strstr(g, "class=\"tradeoff-cheapest\"");
    cr_assert(ring, "the pick is ringed");
    struct pt got[MAXP];
    panel_points(g, "energy_overhead_pct", got);
    int k = 0;
    while (k < n && strcmp(got[k].value, best + 13) != 0)
        k++;
    cr_assert_lt(k, n);
    cr_assert(fabs(num(ring, "cx") - got[k].cx) < 0.06 && fabs(num(ring, "cy") - got[k].cy) < 0.06,
              "the ring is on %s", best);
    check_table(txt, "trade-off: filler floor, 6 values", want, n, json_array_get(json_object_get(s, "runs"), 0));
    char row[64];
    snprintf(row, sizeof row, "\n  %-12s", best + 13);
    const char *r = strstr(txt, row);
    cr_assert(r && strstr(r, "cheapest passing") && strstr(r, "cheapest passing") < strchr(r + 1, '\n'),
              "the table names the pick");
    free(g);
    free(svg);
    free(txt);
    json_decref(s);
}

/* Returns the label the report gives run r of summary.json: its label, else its mitigation. */
static const char *run_name(json_t *r)
{
    json_t *label = json_object_get(r, "label");
    return json_is_string(label) ? json_string_value(label) : json_string_value(json_object_get(r, "mitigation"));
}

/* Reads the points of the path starting at el ("M x,y L x,y ...") into x, y (at most max); returns how many, and
 * fails unless the path is one stretch (a single move). */
static int points(const char *el, double *x, double *y, int max)
{
    const char *p = strstr(el, " d=\"");
    cr_assert(p && p < strchr(el, '>'), "a path without points: %.80s", el);
    p += 4;
    cr_assert_eq(*p, 'M', "a path starts with a move: %.40s", p);
    int n = 0, used;
    while (n < max && (*p == (n ? 'L' : 'M')) && sscanf(p + 1, "%lf,%lf %n", &x[n], &y[n], &used) == 2) {
        p += 1 + used;
        n++;
    }
    cr_assert_eq(*p, '"', "not one stretch, or unreadable: %.40s", p);
    return n;
}

/* Returns the element of svg that starts with head (the test fails if it is missing). */
static const char *element(const char *svg, const char *head)
{
    const char *e = strstr(svg, head);
    cr_assert(e, "report.svg has no %s", head);
    return e;
}

/* Returns the one path of class cls in the group of class group for run k (the k-th group), checking that the group
 * names the run and holds that line alone; its stroke in stroke. */
static const char *run_line(const char *panel, const char *group, const char *cls, int k, const char *name,
                            char *stroke, size_t n)
{
    char head[64], key[64], buf[64];
    snprintf(head, sizeof head, "<g class=\"%s\"", group);
    snprintf(key, sizeof key, "class=\"%s\"", cls);
    const char *g = panel;
    for (int i = 0; i <= k; i++) {
        g = strstr(g + 1, head);
        cr_assert(g, "%s: no group for run %d", group, i);
    }
    cr_assert_str_eq(attr(g, "data-label", buf, sizeof buf), name, "%s %d", group, k);
    const char *end = strstr(g, "</g>"), *line = strstr(g, key);
    cr_assert(line && line < end, "%s: no line for %s", group, name);
    cr_assert(!strstr(line + 1, key) || strstr(line + 1, key) > end, "%s: one line for %s", group, name);
    while (line > g && *line != '<')   /* back to the start of its element */
        line--;
    cr_assert(strncmp(line, "<path", 5) == 0, "%s: the line is a path", group);
    attr(line, "stroke", stroke, n);
    return line;
}

Test(report, waveform_and_spectrum_per_run, .timeout = 120)
{
    const char *out = run_and_report(BASE "mitigations: [none, {filler: {floor: 80%}}, {ramp: {ramp_w_s: 5000}}]\n");
    json_t *s = e2e_summary(out), *runs = json_object_get(s, "runs");
    char *svg = slurp(out, "report.svg");
    int n = (int)json_array_size(runs);
    cr_assert_eq(n, 3);
    cr_assert_eq(count(svg, "<g class=\"waveform\""), 1, "one waveform panel");
    cr_assert_eq(count(svg, "<g class=\"spectrum\""), 1, "one spectrum panel");
    cr_assert_eq(count(svg, "<g class=\"waveform-run\""), n, "a waveform per run");
    cr_assert_eq(count(svg, "<g class=\"spectrum-run\""), n, "a spectrum per run");
    const char *wp = element(svg, "<g class=\"waveform\""), *sp = element(svg, "<g class=\"spectrum\"");
    double wl = num(wp, "data-left"), wt = num(wp, "data-top"), ww = num(wp, "data-width"), wh = num(wp, "data-height");
    double lo = num(wp, "data-w-lo"), hi = num(wp, "data-w-hi");
    double sl = num(sp, "data-left"), sw = num(sp, "data-width"), hz = num(sp, "data-hz-max");
    cr_assert(hi > lo && ww > 0 && wh > 0 && sw > 0);
    cr_assert_float_eq(hz, 20, 1e-9, "200 Hz sampling: the spectrum shows 0-20 Hz");
    cr_assert_eq(count(sp, "class=\"band\""), 4, "the four grid bands are shaded");
    for (int b = 0; b < 4; b++) {
        static const char *const label[4] = { ">0.1-1<", ">1-2.5<", ">2.5-7<", ">7-20<" };
        cr_assert(strstr(sp, label[b]), "band %s is labelled", label[b]);
    }
    char trace_stroke[RP_TEST_RUNS][64];
    const char *t = svg;
    for (int i = 0; i < n; i++) {
        t = element(t + 1, "<polyline fill=\"none\" class=\"trace\"");
        attr(t, "stroke", trace_stroke[i], sizeof trace_stroke[i]);
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(trace_stroke[i], trace_stroke[j], "runs %d and %d share a colour", i, j);
    }
    for (int i = 0; i < n; i++) {
        json_t *r = json_array_get(runs, (size_t)i), *agg = json_object_get(json_object_get(r, "power"), "aggregate");
        json_t *wave = json_object_get(agg, "waveform_per_gpu_w");
        const char *name = run_name(r);
        char stroke[64];
        double x[256], y[256];
        /* the waveform: each bin of summary.json at its middle, on the panel's scale */
        const char *line = run_line(wp, "waveform-run", "waveform-line", i, name, stroke, sizeof stroke);
        cr_assert_str_eq(stroke, trace_stroke[i], "%s: the waveform has its trace's colour", name);
        int m = points(line, x, y, 256), nb = (int)json_array_size(wave), k = 0;
        cr_assert_eq(nb, 50, "%s: summary.json has 50 bins", name);
        for (int b = 0; b < nb; b++) {   /* a bin without samples (null) is left out */
            if (!json_is_number(json_array_get(wave, (size_t)b)))
                continue;
            double w = json_number_value(json_array_get(wave, (size_t)b));
            cr_assert_lt(k, m, "%s: fewer points than bins with samples", name);
            cr_assert_float_eq(x[k], wl + ww * (b + 0.5) / nb, 0.06, "%s: bin %d at x %g", name, b, x[k]);
            cr_assert_float_eq(lo + (wt + wh - y[k]) / wh * (hi - lo), w, 0.06 * (hi - lo) / wh + 1e-9,
                               "%s: bin %d drawn at %g, summary %g W", name, b, lo + (wt + wh - y[k]) / wh * (hi - lo), w);
            k++;
        }
        cr_assert_eq(k, m, "%s: one point per bin with samples", name);
        cr_assert_geq(m, 40, "%s: 200 Hz sampling leaves few bins empty (%d drawn)", name, m);
        /* the spectrum: bins from 1 / duration up to 20 Hz, the highest at summary.json's dominant frequency */
        line = run_line(sp, "spectrum-run", "spectrum-line", i, name, stroke, sizeof stroke);
        cr_assert_str_eq(stroke, trace_stroke[i], "%s: the spectrum has its trace's colour", name);
        m = points(line, x, y, 256);
        cr_assert_geq(m, 10, "%s: %d bins up to 20 Hz", name, m);
        double df = (x[1] - x[0]) / sw * hz, dom = json_number_value(json_object_get(agg, "dominant_hz"));
        cr_assert_float_eq((x[0] - sl) / sw * hz, df, 0.01, "%s: the first bin is one step above 0 Hz", name);
        cr_assert_leq((x[m - 1] - sl) / sw * hz, hz + 1e-6, "%s: nothing past 20 Hz", name);
        int peak = 0;
        for (int k = 1; k < m; k++)
            if (y[k] < y[peak])
                peak = k;
        double at = (x[peak] - sl) / sw * hz;
        /* 1 / the analysed span (its grid's points at 5 ms): not the samples taken, which a busy machine leaves
         * fewer (276 of 290 in a bare Debian beside other work) */
        double span = json_number_value(json_object_get(agg, "span_s"));
        cr_assert_float_eq(df * (span + 0.005), 1, 0.02, "%s: bins %.4f Hz apart: 1 / (%.3f s + 5 ms) expected", name, df,
                           span);
        cr_assert(json_is_number(json_object_get(agg, "dominant_hz")), "%s: no dominant_hz", name);
        cr_assert_leq(fabs(at - dom), 0.25 * df, "%s: the spectrum peaks at %.3f Hz, dominant_hz %.3f (bins %.3f Hz apart)",
                      name, at, dom, df);
    }
    free(svg);
    json_decref(s);
}

/* Writes an executable script named rsvg-convert into a new folder; returns the folder. */
static const char *fake_rsvg(const char *body)
{
    static char dirs[4][64];
    static int next;
    char *d = dirs[next++ % 4], path[128];
    snprintf(d, 64, "/tmp/gauntlet-bin-XXXXXX");
    cr_assert(mkdtemp(d));
    e2e_own(d);
    snprintf(path, sizeof path, "%s/rsvg-convert", d);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    cr_assert_geq(fprintf(f, "#!/bin/sh\n%s", body), 0);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(path, 0755), 0);
    return d;
}

/* Runs `gauntlet report out` with PATH set to path (NULL: as it is); returns its output (exit 0 asserted). */
static char *report_with_path(const char *out, const char *path)
{
    char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL, logpath[256];
    snprintf(logpath, sizeof logpath, "%s.report.log", out);
    e2e_own(logpath);   /* beside out: outside its folder where out is a syn_dir */
    if (path)
        cr_assert_eq(setenv("PATH", path, 1), 0);
    int rc = e2e_run(logpath, (const char *[]){ "report", out, NULL });
    if (saved)
        cr_assert_eq(setenv("PATH", saved, 1), 0);
    free(saved);
    char *log = e2e_read(logpath);
    cr_assert_eq(rc, 0, "report: exit %d (the PNG never changes it):\n%s", rc, log);
    return log;
}

/* Returns 1 when out/name exists. */
static int exists(const char *out, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", out, name);
    return access(path, F_OK) == 0;
}

/* Returns how many entries of out begin with prefix. */
static int entries_with(const char *out, const char *prefix)
{
    DIR *d = opendir(out);
    cr_assert(d, "%s", out);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

Test(report, png_says_why_it_was_not_made, .timeout = 120)
{
    const char *out = run_and_report(BASE "mitigations: [none]\n");
    const char *failing = fake_rsvg("printf 'half a png' > \"$4\"\necho 'rsvg-convert: cannot' >&2\nexit 3\n");
    const char *writing = fake_rsvg("[ \"$1\" = --format ] && [ \"$2\" = png ] && [ \"$3\" = --output ] && [ -f \"$5\" ] "
                                    "|| exit 9\nprintf 'fake png' > \"$4\"\n");
    char bare[] = "/tmp/gauntlet-bin-XXXXXX", path[512];
    cr_assert(mkdtemp(bare), "an empty folder for PATH");
    e2e_own(bare);
    snprintf(path, sizeof path, "%s/report.png", out);
    cr_assert(unlink(path) == 0 || !exists(out, "report.png"));
    /* not on PATH: one line says why, nothing is made */
    char *log = report_with_path(out, bare);
    cr_assert(strstr(log, "png: none (no rsvg-convert: apt-get install librsvg2-bin)"), "the report says why:\n%s", log);
    cr_assert(!exists(out, "report.png"));
    cr_assert(exists(out, "report.svg"), "the SVG is made all the same");
    free(log);
    /* there but failing: says so, leaves nothing behind */
    log = report_with_path(out, failing);
    cr_assert(strstr(log, "png: none (") && strstr(log, "exited 3)"), "the report says rsvg-convert failed:\n%s", log);
    cr_assert(!exists(out, "report.png") && !entries_with(out, "report.png."), "nothing left of a failed conversion");
    free(log);
    /* a killed report's temp file (its pid gone) is swept by the next (a fixed report.png.part stayed for good) */
    pid_t gone = fork();
    cr_assert_geq(gone, 0);
    if (gone == 0)
        _exit(0);
    cr_assert_eq(waitpid(gone, NULL, 0), gone);
    char left[600];
    snprintf(left, sizeof left, "%s/report.png.tmp.%d", out, (int)gone);
    FILE *lf = fopen(left, "w");
    cr_assert(lf && fclose(lf) == 0);
    log = report_with_path(out, failing);
    cr_assert(!exists(out, strrchr(left, '/') + 1), "a killed report's temp file stays:\n%s", log);
    free(log);
    /* there and working: called as rsvg-convert --format png --output PART SVG, its output renamed into place */
    log = report_with_path(out, writing);
    char *png = slurp(out, "report.png");
    cr_assert_str_eq(png, "fake png", "report.png is what rsvg-convert wrote:\n%s", log);
    cr_assert(strstr(log, "png: ") && strstr(log, "/report.png\n"), "the report names it:\n%s", log);
    cr_assert_eq(entries_with(out, "report.png."), 0, "the temp file renamed into place");
    free(png);
    free(log);
}

/* A picture the new report does not make is not left from an earlier report beside the new report.txt: no
 * rsvg-convert or a failing one removes an earlier report.png; no power trace to draw removes an earlier report.svg
 * and report.png. Each removal is said. */
Test(report, an_earlier_picture_is_not_left_as_if_current, .timeout = 120)
{
    const char *out = run_and_report(BASE "mitigations: [none]\n");
    const char *failing = fake_rsvg("printf 'half a png' > \"$4\"\nexit 3\n");
    const char *writing = fake_rsvg("printf 'fake png' > \"$4\"\n");
    char bare[] = "/tmp/gauntlet-bin-XXXXXX", from[512], to[512];
    cr_assert(mkdtemp(bare), "an empty folder for PATH");
    e2e_own(bare);
    const char *no_png[] = { bare, failing };
    for (int k = 0; k < 2; k++) {
        free(report_with_path(out, writing));
        cr_assert(exists(out, "report.png"), "an earlier report.png");
        char *log = report_with_path(out, no_png[k]);
        cr_assert(strstr(log, "png: none ("), "%s", log);
        cr_assert(!exists(out, "report.png"), "case %d: an earlier report.png is left beside the new report.txt:\n%s", k, log);
        cr_assert(strstr(log, "an earlier ") && strstr(log, "/report.png was removed"), "the report says so:\n%s", log);
        cr_assert(exists(out, "report.svg"), "this report's SVG stays");
        free(log);
    }
    free(report_with_path(out, writing));
    cr_assert(exists(out, "report.svg") && exists(out, "report.png"));
    snprintf(from, sizeof from, "%s/power.csv", out);   /* no power trace: nothing to draw */
    snprintf(to, sizeof to, "%s/power.csv.away", out);
    cr_assert_eq(rename(from, to), 0);
    char *log = report_with_path(out, writing);
    cr_assert(strstr(log, "plots: none (no power trace to draw)"), "%s", log);
    cr_assert(!exists(out, "report.svg") && !exists(out, "report.png"), "an earlier picture is left:\n%s", log);
    cr_assert(strstr(log, "/report.svg was removed") && strstr(log, "/report.png was removed"), "%s", log);
    cr_assert(exists(out, "report.txt"));
    free(log);
    cr_assert_eq(rename(to, from), 0);
}

Test(report, png_from_rsvg_convert, .timeout = 120)
{
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL, *dir, *save = NULL;
    int found = 0;
    for (dir = path ? strtok_r(path, ":", &save) : NULL; dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char exe[512];
        snprintf(exe, sizeof exe, "%s/rsvg-convert", dir);
        found = access(exe, X_OK) == 0;
    }
    free(path);
    if (!found)
        cr_skip_test("no rsvg-convert on PATH (apt-get install librsvg2-bin): report.png is not made here");
    const char *out = run_and_report(BASE "mitigations: [none]\n");
    char *png = slurp(out, "report.png"), *log = report_log(out);
    cr_assert(memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "report.png is a PNG");
    cr_assert(log && strstr(log, "png: ") && strstr(log, "/report.png\n"), "the report names it:\n%s", log);
    free(png);
    free(log);
}

/* Runs without a none have no comparison: their bars are not drawn and read "–", never "+0 %". Each trace panel
 * starts after its run's warm-up (warmup_s, what the analysis leaves out). A summary rebuilt by `gauntlet summarize`
 * has no battery: bess's grid figure is not known, never the GPUs' cluster swing. */
Test(report, what_is_not_known_is_not_drawn, .timeout = 180)
{
    const char *out = run_and_report(BASE "projection: {gpus: 10000}\n"
                                          "mitigations: [{filler: {floor: 80%}}, {bess: {capacity_mwh: 1, power_mw: 2, window: 2s}}]\n");
    json_t *s = e2e_summary(out), *runs = json_object_get(s, "runs");
    char *svg = slurp(out, "report.svg");
    cr_assert_eq(count(svg, "height=\"7\" fill="), 0, "no bar for a comparison that is not known");
    cr_assert_eq(count(svg, ">\xe2\x80\x93 / \xe2\x80\x93 / \xe2\x80\x93<"), 2, "each run's bars read - / - / -");
    cr_assert_null(strstr(svg, "+0% / +0%"));
    const char *p = svg;
    for (size_t i = 0; i < json_array_size(runs); i++) {
        p = element(p + 1, "<rect class=\"trace-panel\"");
        double from = num(p, "data-from-s"), warm = json_number_value(json_object_get(json_array_get(runs, i), "warmup_s"));
        cr_assert(from >= warm - 1e-6, "run %zu: the panel starts %.3f s in, its warm-up ends at %.3f s", i, from, warm);
    }
    free(svg);
    json_decref(s);
    char path[512], log[300];
    snprintf(path, sizeof path, "%s/summary.json", out);
    cr_assert_eq(unlink(path), 0);
    snprintf(log, sizeof log, "%s.sum.log", out);
    cr_assert_eq(e2e_run(log, (const char *[]){ "summarize", out, NULL }), 0);
    cr_assert_eq(e2e_run(log, (const char *[]){ "report", out, NULL }), 0);
    char *txt = slurp(out, "report.txt"), *row = strstr(txt, "\nbess");
    cr_assert(row, "%s", txt);
    char name[32], swing[32], range[32], samples[32], grid[32];
    cr_assert_eq(sscanf(row, "%31s %31s %31s %31s %31s", name, swing, range, samples, grid), 5);
    cr_assert_str_eq(grid, "-", "bess's grid swing is not in a rebuilt summary: %s", row);
    cr_assert(strstr(txt, "battery is not in this summary"), "%s", txt);
    free(txt);
}

/* Writes text to the file path. */
static void put_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    cr_assert_geq(fputs(text, f), 0);
    cr_assert_eq(fclose(f), 0);
}

/* Runs `gauntlet report dir` (at most 20 s: a FIFO must not hang it); the exit code, what it said in *log. */
static int report_of(const char *dir, char **log)
{
    const char *lp = e2e_log("report-bad.log");
    pid_t p = e2e_start(lp, (const char *[]){ "report", dir, NULL });
    int rc = e2e_wait(p, 20);
    if (rc < 0)
        kill(p, SIGKILL), waitpid(p, NULL, 0);
    *log = e2e_read(lp);
    return rc;
}

/* A FIFO or a folder where report expects a file of the run is exit 2 at once naming it, never a hang or a
 * misleading JSON error. */
Test(report, a_fifo_or_folder_in_rundir_is_exit_2_at_once, .timeout = 120)
{
    const char *files[] = { "summary.json", "events.jsonl", "power.csv", "scenario.yaml" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        for (int fifo = 0; fifo < 2; fifo++) {
            char dir[64] = "/tmp/gauntlet-report-bad-XXXXXX", path[200], *log;
            cr_assert_not_null(mkdtemp(dir));
            e2e_own(dir);
            for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
                snprintf(path, sizeof path, "%s/%s", dir, files[k]);
                if (k == i)
                    cr_assert_eq(fifo ? mkfifo(path, 0644) : mkdir(path, 0755), 0, "%s", path);
                else if (k == 0)
                    put_text(path, "{\"scenario\": \"x\", \"runs\": []}\n");
                else
                    put_text(path, "");
            }
            int rc = report_of(dir, &log);
            char want[200];
            snprintf(want, sizeof want, "%s/%s: not a regular file", dir, files[i]);
            cr_expect_eq(rc, 2, "%s a %s: exit %d:\n%s", files[i], fifo ? "FIFO" : "folder", rc, log);
            cr_expect(log && strstr(log, want), "'%s' not in:\n%s", want, log);
            free(log);
        }
}

/* A run stopped early (summary.json's complete: false, stop: signal) is marked "*" and its cost against none left
 * out ("-"), the record's stop is said; a rebuilt summary says the record is incomplete. Both were ordinary rows,
 * filler's +10.1 % energy and +1.9 % time a comparison. */
Test(report, a_run_that_ended_early_is_marked_and_not_compared, .timeout = 60)
{
    static const char *const sums[2] = {
        "{\"scenario\": \"x\", \"exit\": 1, \"stop\": \"signal\", \"stopped\": \"stopped by Terminated\", \"runs\": [",
        "{\"scenario\": \"x\", \"incomplete\": true, \"rebuilt_by\": \"gauntlet summarize\", \"stopped\": \"killed before "
        "its end: no end event\", \"runs\": [",
    };
    for (int k = 0; k < 2; k++) {
        char dir[64] = "/tmp/gauntlet-report-cut-XXXXXX", path[200], text[1024], *log;
        cr_assert_not_null(mkdtemp(dir));
        e2e_own(dir);
        snprintf(path, sizeof path, "%s/summary.json", dir);
        snprintf(text, sizeof text, "%s{\"run\": 0, \"mitigation\": \"none\", \"label\": \"none\", \"complete\": true, "
                 "\"vs_none\": {\"energy_overhead_pct\": 0, \"iteration_overhead_pct\": 0}}, "
                 "{\"run\": 1, \"mitigation\": \"filler\", \"label\": \"filler\", \"complete\": false, "
                 "\"vs_none\": {\"energy_overhead_pct\": 10.125, \"iteration_overhead_pct\": 1.875}}]}\n", sums[k]);
        put_text(path, text);
        int rc = report_of(dir, &log);
        cr_expect_eq(rc, 0, "%s", log);
        const char *row = log ? strstr(log, "\nfiller*") : NULL;
        cr_expect(row, "the run that ended early is not marked:\n%s", log);
        const char *eol = row ? strchr(row + 1, '\n') : NULL;
        cr_expect(row && eol && !memmem(row, (size_t)(eol - row), "10.1", 4) && !memmem(row, (size_t)(eol - row), "1.9", 3),
                  "its cost against none is shown:\n%s", log);
        cr_expect(log && strstr(log, "(*: ended early"), "%s", log);
        cr_expect(log && strstr(log, k ? "record incomplete: killed before its end" : "run stopped early (stop: signal, exit 1)"),
                  "%s", log);
        char *txt = NULL;
        snprintf(path, sizeof path, "%s/report.txt", dir);
        txt = e2e_read(path);
        cr_expect(txt && strstr(txt, "filler*") && strstr(txt, k ? "record incomplete" : "run stopped early"), "%s", txt);
        free(txt);
        free(log);
    }
}

/* What a row's figures hold that a reader would not take them to is said under the table: a run unsettled (its
 * warm-up in its figures), one compared with an unsettled none, one compared with a none disturbed by hand; a run
 * whose sample count is not said shows "-", never "(0)" (it printed 0 samples). A settled run against a settled,
 * undisturbed none gets no such line. */
Test(report, what_a_rows_figures_hold_is_said_under_the_table, .timeout = 60)
{
    char dir[64] = "/tmp/gauntlet-report-marks-XXXXXX", path[200], *log;
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    put_text(path, "{\"scenario\": \"x\", \"runs\": ["
             "{\"run\": 0, \"mitigation\": \"none\", \"label\": \"none\", \"complete\": true, \"unsettled\": true, "
             "\"power\": {\"aggregate\": {\"samples\": 180, \"range_w\": 500}}, "
             "\"vs_none\": {\"unsettled\": true, \"baseline_disturbed\": true}}, "
             "{\"run\": 1, \"mitigation\": \"filler\", \"label\": \"filler\", \"complete\": true, "
             "\"power\": {\"aggregate\": {\"range_w\": 400}}, "
             "\"vs_none\": {\"energy_overhead_pct\": 10.125, \"unsettled\": true, \"baseline_disturbed\": true}}, "
             "{\"run\": 2, \"mitigation\": \"cap\", \"label\": \"cap\", \"complete\": true, "
             "\"power\": {\"aggregate\": {\"samples\": 175, \"range_w\": 450}}, "
             "\"vs_none\": {\"energy_overhead_pct\": 3.5}}]}\n");
    cr_assert_eq(report_of(dir, &log), 0, "%s", log);
    cr_expect(strstr(log, "(none: unsettled: its figures include its warm-up"), "%s", log);
    cr_expect(strstr(log, "(filler: against an unsettled none"), "%s", log);
    cr_expect(strstr(log, "(filler: against a none disturbed by hand"), "%s", log);
    cr_expect(!strstr(log, "(cap:"), "a settled run against an undisturbed none is marked:\n%s", log);
    cr_expect(!strstr(log, "(none: against"), "none against itself:\n%s", log);
    cr_expect(strstr(log, "500 (180)") && strstr(log, "400 (-)") && strstr(log, "450 (175)") && !strstr(log, "(0)"),
              "the samples column:\n%s", log);
    free(log);
}

/* A killed run's folder without summary.json (events.jsonl there) is told to run `gauntlet summarize` first, exit 2
 * (it asked whether the folder was a results folder at all). */
Test(report, a_killed_folder_without_a_summary_says_summarize_first, .timeout = 60)
{
    char dir[64] = "/tmp/gauntlet-report-cut-XXXXXX", path[200], *log;
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    put_text(path, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":1}\n");
    cr_expect_eq(report_of(dir, &log), 2, "%s", log);
    char want[200];
    snprintf(want, sizeof want, "run `gauntlet summarize %s` first", dir);
    cr_expect(log && strstr(log, want), "'%s' not in:\n%s", want, log);
    free(log);
}

/* A summary.json of another shape (not an object, no scenario, runs not a list of objects, faults not a list) is
 * exit 2 naming what it expected, and the folder's earlier report stays (it printed "(null)" and replaced the report
 * with an empty table); a fault row of odd types prints "?", its run never overflows */
Test(report, a_summary_of_another_shape_is_exit_2_and_leaves_the_report, .timeout = 60)
{
    static const struct { const char *text, *want; } cases[] = {
        { "[]\n", "expected a JSON object" },
        { "{}\n", "scenario: expected a string" },
        { "{\"scenario\": \"x\", \"runs\": \"x\"}\n", "runs: expected a list of runs" },
        { "{\"scenario\": \"x\", \"runs\": [\"a\", \"b\"]}\n", "runs: expected each run an object" },
        { "{\"scenario\": \"x\", \"runs\": [], \"faults\": 5}\n", "faults: expected a list of faults" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[64] = "/tmp/gauntlet-report-shape-XXXXXX", path[200], *log;
        cr_assert_not_null(mkdtemp(dir));
        e2e_own(dir);
        snprintf(path, sizeof path, "%s/summary.json", dir);
        put_text(path, cases[i].text);
        snprintf(path, sizeof path, "%s/report.txt", dir);
        put_text(path, "an earlier report\n");
        int rc = report_of(dir, &log);
        cr_expect_eq(rc, 2, "%s: exit %d:\n%s", cases[i].text, rc, log);
        cr_expect(log && strstr(log, "not a gauntlet summary") && strstr(log, cases[i].want), "%s", log);
        free(log);
        char *kept = e2e_read(path);
        cr_expect(kept && strcmp(kept, "an earlier report\n") == 0, "the earlier report stays: %s", kept ? kept : "(gone)");
        free(kept);
    }
    char dir[64] = "/tmp/gauntlet-report-shape-XXXXXX", path[200], *log;
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    put_text(path, "{\"scenario\": \"x\", \"runs\": [], \"faults\": [{\"id\": 0, \"kind\": 5, \"origin\": null, "
                   "\"run\": 9223372036854775807, \"rank\": 0, \"outcome\": [1]}]}\n");
    int rc = report_of(dir, &log);
    cr_expect_eq(rc, 0, "%s", log);
    cr_expect(log && !strstr(log, "(null)") && strstr(log, " ?  "), "%s", log);
    free(log);
}

/* ---- synthetic results folders: the report's inputs written by hand, each figure chosen ---- */

#define SYN_RUNS 8

/* The figures of one run of a synthetic summary.json (NAN: left out). */
enum { F_SWING_W, F_RANGE_W, F_DOM_HZ, F_UP, F_DOWN, F_SWING_MW, F_GRID_MW, F_LIMIT, F_ENERGY, F_TIME, F_SWING_RED,
       F_GRID_RED, F_EFF, F_P50, F_WARM, F_WAVE, F_WAVE_END = F_WAVE + 5, F_N = F_WAVE_END };

/* One run of a synthetic summary.json. */
struct syn_run {
    const char *mitigation, *label, *shape;   /* label: JSON text (escapes allowed); NULL: none */
    int no_battery;                           /* bess without projection.bess (a rebuilt summary) */
    double f[F_N];
};

/* Fills r with a run of mitigation and label whose figures are ordinary ones. */
static void syn_default(struct syn_run *r, const char *mitigation, const char *label)
{
    static const double f[F_N] = { 1200, 1300, 4, 20000, 21000, 40, 2, 30, 10, 1, 50, 60, 0.9, 0.25, 0.3,
                                   400, 500, 300, 450, 350 };
    memset(r, 0, sizeof *r);
    r->mitigation = mitigation;
    r->label = label;
    memcpy(r->f, f, sizeof f);
}

/* Writes x to f as a JSON number, or null when it is NAN. */
static void syn_num(FILE *f, double x)
{
    cr_assert_geq(isnan(x) ? fprintf(f, "null") : fprintf(f, "%.17g", x), 0);
}

/* Writes summary.json of runs r (n of them) into dir, with extra JSON members (e.g. a search) when not NULL. */
static void syn_summary(const char *dir, const struct syn_run *r, int n, const char *extra)
{
    char *s = NULL, path[256];
    size_t len = 0;
    FILE *m = open_memstream(&s, &len);
    cr_assert(m);
    fprintf(m, "{\"scenario\": \"syn\"%s%s, \"runs\": [", extra ? ", " : "", extra ? extra : "");
    for (int i = 0; i < n; i++) {
        const double *f = r[i].f;
        int bess = strcmp(r[i].mitigation, "bess") == 0;
        fprintf(m, "%s{\"run\": %d, \"mitigation\": \"%s\", \"complete\": true", i ? ", " : "", i, r[i].mitigation);
        if (r[i].label)
            fprintf(m, ", \"label\": \"%s\"", r[i].label);
        if (r[i].shape)
            fprintf(m, ", \"shape\": \"%s\"", r[i].shape);
        fprintf(m, ", \"iteration_s\": {\"p50\": "), syn_num(m, f[F_P50]);
        fprintf(m, "}, \"warmup_s\": "), syn_num(m, f[F_WARM]);
        fprintf(m, ", \"power\": {\"aggregate\": {\"samples\": 180, \"swing_w\": "), syn_num(m, f[F_SWING_W]);
        fprintf(m, ", \"range_w\": "), syn_num(m, f[F_RANGE_W]);
        fprintf(m, ", \"dominant_hz\": "), syn_num(m, f[F_DOM_HZ]);
        fprintf(m, ", \"ramp_up_w_s\": {\"100ms\": "), syn_num(m, f[F_UP]);
        fprintf(m, "}, \"ramp_down_w_s\": {\"100ms\": "), syn_num(m, f[F_DOWN]);
        fprintf(m, "}, \"waveform_per_gpu_w\": [");
        for (int b = F_WAVE; b < F_WAVE_END; b++)
            fprintf(m, "%s", b > F_WAVE ? ", " : ""), syn_num(m, f[b]);
        fprintf(m, "], \"projection\": {\"gpus\": 10000, \"swing_mw\": "), syn_num(m, f[F_SWING_MW]);
        fprintf(m, ", \"spec\": {\"pass\": true, \"clauses\": [{\"clause\": \"dynamic_range_mw\", \"limit\": "),
            syn_num(m, f[F_LIMIT]);
        fprintf(m, "}]}");
        if (bess && !r[i].no_battery)
            fprintf(m, ", \"bess\": {\"grid_swing_mw\": "), syn_num(m, f[F_GRID_MW]), fprintf(m, "}");
        fprintf(m, "}}}, \"vs_none\": {\"energy_overhead_pct\": "), syn_num(m, i ? f[F_ENERGY] : 0);
        fprintf(m, ", \"iteration_overhead_pct\": "), syn_num(m, i ? f[F_TIME] : 0);
        fprintf(m, ", \"swing_reduction_pct\": "), syn_num(m, i ? f[F_SWING_RED] : 0);
        if (!(bess && r[i].no_battery))
            fprintf(m, ", \"grid_swing_reduction_pct\": "), syn_num(m, i ? f[F_GRID_RED] : 0);
        fprintf(m, ", \"energy_efficiency\": "), syn_num(m, i ? f[F_EFF] : NAN);
        fprintf(m, "}}");
    }
    fprintf(m, "]}\n");
    cr_assert(!ferror(m));
    cr_assert_eq(fclose(m), 0);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    put_text(path, s);
    free(s);
}

/* How power.csv of a synthetic folder is written. */
struct syn_power {
    int nodes;          /* 2: node 1's rows too (ranks 2 and 3), at its own ticks 3.7 ms later, interleaved */
    int shuffle;        /* node 0's rows of some ticks written before the tick before them */
    const char *odd;    /* the watts field of rank 0's rows of run 1 from 2.5 s to 2.7 s (NULL: a number) */
};

/* Writes events.jsonl and power.csv of n runs into dir: run i from 2i + 0.05 s to 2i + 1.95 s, its first iteration
 * ending 0.25 s in; 2 ranks of node 0 sampled every 10 ms, a 4 Hz wave, each run a little lower than the last. */
static void syn_record(const char *dir, int n, const struct syn_power *pw)
{
    char path[256];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    cr_assert_geq(fprintf(f, "{\"t_s\":0.001,\"event\":\"start\",\"ranks\":2,\"nodes\":%d}\n", pw->nodes), 0);
    for (int i = 0; i < n; i++)
        cr_assert_geq(fprintf(f, "{\"t_s\":%.3f,\"event\":\"run_begin\",\"run\":%d}\n{\"t_s\":%.3f,\"event\":\"iteration\","
                                 "\"rank\":0,\"run\":%d,\"iter\":0}\n{\"t_s\":%.3f,\"event\":\"run_end\",\"run\":%d}\n",
                              2.0 * i + 0.05, i, 2.0 * i + 0.3, i, 2.0 * i + 1.95, i), 0);
    cr_assert_eq(fclose(f), 0);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    f = fopen(path, "w");
    cr_assert(f);
    cr_assert_geq(fprintf(f, "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n"), 0);
    int ticks = n * 200;
    for (int j = 0; j < ticks; j++) {
        int tick = pw->shuffle && j % 7 == 3 && j + 1 < ticks ? j + 1 : pw->shuffle && j % 7 == 4 ? j - 1 : j;
        double t = 0.01 * tick + 0.005;
        for (int node = 0; node < pw->nodes; node++)
            for (int r = 0; r < 2; r++) {
                double tt = node ? 0.01 * j + 0.0087 : t;
                double w = (node ? 900 : 300) + 200 * sin(2 * M_PI * 4 * tt) + 50 * r - 20 * floor(tt / 2);
                if (!node && r == 0 && pw->odd && tt >= 2.5 && tt < 2.7)
                    cr_assert_geq(fprintf(f, "%.6f,%d,%s,compute,,,,,,%d,,\n", tt, r, pw->odd, node), 0);
                else
                    cr_assert_geq(fprintf(f, "%.6f,%d,%.3f,compute,,,,,,%d,,\n", tt, 2 * node + r, w, node), 0);
            }
    }
    cr_assert_eq(fclose(f), 0);
}

/* Makes a new folder with n runs' record as syn_record writes it; returns it (static storage, a few at a time). */
static const char *syn_dir(int n, const struct syn_power *pw)
{
    static char dirs[4][64];
    static int next;
    char *d = dirs[next++ % 4];
    snprintf(d, 64, "/tmp/gauntlet-report-syn-XXXXXX");
    cr_assert(mkdtemp(d));
    e2e_own(d);
    syn_record(d, n, pw);
    return d;
}

/* Runs `gauntlet report dir`, at most 20 s (a hang is killed and fails the caller's check); the exit code (-1: it
 * hung), what it said in *log. */
static int syn_report(const char *dir, char **log)
{
    char lp[128];
    snprintf(lp, sizeof lp, "%s.log", dir);
    e2e_own(lp);   /* beside dir, not in it */
    int rc = e2e_wait(e2e_start(lp, (const char *[]){ "report", dir, NULL }), 20);
    *log = e2e_read(lp);
    return rc;
}

/* Returns the length of the UTF-8 character at s and its code point in *cp; 0 when it is none. */
static size_t utf8_at(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len)
        return 0;
    unsigned v = len == 1 ? c : c & (0x7Fu >> len);
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[k] & 0x3Fu);
    }
    static const unsigned least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* Returns 1 when s[0, n) holds a word (letters, after no letter or digit) that reads as a number that is not finite:
 * nan, inf, infinity. */
static int nonfinite_word(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isalpha((unsigned char)s[i]) || (i && isalnum((unsigned char)s[i - 1])))
            continue;
        size_t k = i;
        while (k < n && isalpha((unsigned char)s[k]))
            k++;
        if ((k - i == 3 && (strncasecmp(s + i, "nan", 3) == 0 || strncasecmp(s + i, "inf", 3) == 0)) ||
            (k - i == 8 && strncasecmp(s + i, "infinity", 8) == 0))
            return 1;
        i = k;
    }
    return 0;
}

/* Returns the length of the entity at s ("&lt;", "&#10;"...), 0 when it is none XML knows. */
static size_t xml_entity(const char *s)
{
    static const char *const named[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&apos;" };
    for (size_t i = 0; i < 5; i++)
        if (strncmp(s, named[i], strlen(named[i])) == 0)
            return strlen(named[i]);
    size_t k = 2, hex = s[1] == '#' && s[2] == 'x';
    if (s[1] != '#')
        return 0;
    k += hex;
    size_t d = k;
    while (hex ? isxdigit((unsigned char)s[k]) : isdigit((unsigned char)s[k]))
        k++;
    return k > d && s[k] == ';' ? k + 1 : 0;
}

/* Returns NULL when svg is a well-formed XML document — only characters XML 1.0 allows, one root element, every
 * element closed in order, attributes quoted and unique, entities known — with no number that is not finite in an
 * attribute or a text; else what is wrong, in why. */
static const char *xml_bad(const char *svg, char *why, size_t n)
{
    for (const unsigned char *p = (const unsigned char *)svg; *p;) {
        unsigned cp = 0;
        size_t len = utf8_at(p, &cp);
        if (!len || !(cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
                      cp >= 0x10000))
            return snprintf(why, n, "byte %zu: not a character XML allows (0x%02x)", (size_t)(p - (const unsigned char *)svg),
                            *p), why;
        p += len;
    }
    char stack[64][32];
    int depth = 0, roots = 0;
    for (const char *p = svg; *p;) {
        if (*p != '<') {   /* text */
            const char *e = p + strcspn(p, "<");
            for (const char *a = p; a < e; a++)
                if (*a == '&' && !xml_entity(a))
                    return snprintf(why, n, "an unknown entity: %.20s", a), why;
            if (!depth && strspn(p, " \t\r\n") < (size_t)(e - p))
                return snprintf(why, n, "text outside the root: %.20s", p), why;
            if (nonfinite_word(p, (size_t)(e - p)))
                return snprintf(why, n, "a number that is not finite in a text: %.*s", (int)(e - p > 60 ? 60 : e - p), p), why;
            p = e;
            continue;
        }
        int end = p[1] == '/';
        const char *nm = p + 1 + end;
        size_t nl = strspn(nm, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:.");
        if (!nl || nl >= sizeof stack[0])
            return snprintf(why, n, "a tag without a name: %.20s", p), why;
        p = nm + nl;
        if (end) {
            if (!depth || strncmp(stack[depth - 1], nm, nl) != 0 || stack[depth - 1][nl])
                return snprintf(why, n, "</%.*s> closes no open element", (int)nl, nm), why;
            depth--;
            p += strspn(p, " \t\r\n");
            if (*p++ != '>')
                return snprintf(why, n, "an end tag not closed: %.20s", p - 1), why;
            continue;
        }
        if (!depth && roots++)
            return snprintf(why, n, "a second root element"), why;
        char names[64][32];
        int na = 0;
        for (;;) {
            size_t ws = strspn(p, " \t\r\n");
            p += ws;
            if (*p == '>' || (p[0] == '/' && p[1] == '>'))
                break;
            size_t al = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:.");
            if (!ws || !al || al >= sizeof names[0] || na == 64 || p[al] != '=' || (p[al + 1] != '"' && p[al + 1] != '\''))
                return snprintf(why, n, "a broken attribute: %.30s", p), why;
            for (int k = 0; k < na; k++)
                if (strncmp(names[k], p, al) == 0 && !names[k][al])
                    return snprintf(why, n, "attribute %.*s twice", (int)al, p), why;
            snprintf(names[na++], sizeof names[0], "%.*s", (int)al, p);
            char q = p[al + 1];
            const char *v = p + al + 2, *ve = strchr(v, q);
            if (!ve)
                return snprintf(why, n, "an attribute not closed: %.30s", p), why;
            for (const char *a = v; a < ve; a++)
                if (*a == '<' || (*a == '&' && !xml_entity(a)))
                    return snprintf(why, n, "%c in attribute %.*s", *a, (int)al, p), why;
            if (nonfinite_word(v, (size_t)(ve - v)))
                return snprintf(why, n, "a number that is not finite: %.*s=%.40s", (int)al, p, v), why;
            p = ve + 1;
        }
        if (*p == '/')
            p += 2;
        else {
            if (depth == 64)
                return snprintf(why, n, "nested too deep"), why;
            snprintf(stack[depth++], sizeof stack[0], "%.*s", (int)nl, nm);
            p++;
        }
    }
    if (depth || roots != 1)
        return snprintf(why, n, "%d element(s) left open, %d root(s)", depth, roots), why;
    return NULL;
}

/* Checks that dir/report.svg is there and well-formed. */
static void svg_well_formed(const char *dir, const char *what)
{
    char *svg = slurp(dir, "report.svg"), why[200];
    const char *bad = xml_bad(svg, why, sizeof why);
    cr_assert_null(bad, "%s: report.svg is not well-formed XML: %s", what, bad);
    free(svg);
}

/* Returns a figure from the pool of odd ones: zeros, tiny, subnormal, at and past the report's bound, past what a
 * step can move, near the largest double, of both signs. */
static double odd_figure(unsigned *seed)
{
    static const double pool[] = { 0, -0.0, 1, -1, 0.5, 100, -100, 1e-300, 4.9406564584124654e-324, 1e11, 1e12,
                                   1.0000001e12, -1e12, 1e15, 1e16, -1e16, 1e17, 1e300, 1.75e308, -1.7e308,
                                   1.7976931348623157e308, 9007199254740993.0, 123456.789, 2.5e-9 };
    return pool[rand_r(seed) % (sizeof pool / sizeof *pool)];
}

/* Odd numbers in summary.json — the three a review found each hang the report (every waveform bin 1e16; a swing of
 * 1.75e308 on a curve; an energy of 1.7e308), then random draws of zeros, subnormals, 1e16, 1e300, the largest
 * doubles over every figure the report reads — end within 20 s, exit 0, with a well-formed report.svg that holds no
 * number that is not finite, and name on stderr each figure read as missing. They looped forever growing memory. */
Test(report, odd_figures_in_the_summary_never_hang_the_report, .timeout = 900)
{
    struct syn_power pw = { .nodes = 1 };
    const char *dir = syn_dir(4, &pw);
    unsigned seed = 20261130;
    int drawn = 0;
    for (int it = 0; it < 60; it++) {
        struct syn_run r[4];
        syn_default(&r[0], "none", NULL);
        syn_default(&r[1], "filler", "filler floor=50%");
        syn_default(&r[2], "filler", "filler floor=80%");
        syn_default(&r[3], "bess", NULL);
        int past = 0;
        if (it == 0)   /* the review's three */
            for (int i = 0; i < 4; i++)
                for (int b = F_WAVE; b < F_WAVE_END; b++)
                    r[i].f[b] = 1e16;
        else if (it == 1)
            r[2].f[F_SWING_MW] = 1.75e308;
        else if (it == 2)
            r[2].f[F_ENERGY] = 1.7e308;
        else
            for (int i = 0; i < 4; i++) {
                double same = odd_figure(&seed);
                int flat = rand_r(&seed) % 3 == 0;   /* every bin the same: the waveform's range is 0 */
                for (int k = 0; k < F_N; k++)
                    if (rand_r(&seed) % 3 == 0 || (flat && k >= F_WAVE))
                        r[i].f[k] = flat && k >= F_WAVE ? same : odd_figure(&seed);
            }
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < F_N; k++)
                past |= fabs(r[i].f[k]) > 1e12 && (k != F_GRID_MW || i == 3) &&   /* bess's alone is written */
                        (i || (k != F_ENERGY && k != F_TIME && k != F_SWING_RED && k != F_GRID_RED && k != F_EFF));
        syn_summary(dir, r, 4, NULL);
        char *log = NULL;
        int rc = syn_report(dir, &log);
        cr_assert_neq(rc, -1, "draw %d: the report hung (killed after 20 s):\n%s", it, log);
        cr_assert_eq(rc, 0, "draw %d: exit %d:\n%s", it, rc, log);
        char what[32];
        snprintf(what, sizeof what, "draw %d", it);
        if (it < 3 || !strstr(log, "plots: none (no power trace to draw)"))   /* an iteration of 1e-300 s: none */
            svg_well_formed(dir, what);
        drawn += it >= 3 && exists(dir, "report.svg");
        cr_assert(!past || strstr(log, "read as missing"), "draw %d: a figure past 1e12 is not said:\n%s", it, log);
        free(log);
    }
    cr_assert_geq(drawn, 30, "most draws make a picture: %d of 57", drawn);
}

/* Every label a run can have (up to 47 bytes: a sweep's entry and its " [shape]") is whole in the table, the
 * picture and the curve, and still matches the search's picks; one longer is exit 2 naming it. Labels were cut at
 * 45 bytes: "smoothing ramp_down_w_s=100000 [pipeline-1f1b]" lost its "]", its curve value read
 * "100000 [pipeline-1f1b" and it was never the search's pick. */
Test(report, every_legal_label_is_whole, .timeout = 300)
{
    struct syn_power pw = { .nodes = 1 };
    const char *dir = syn_dir(3, &pw);
    for (int digits = 1; digits <= 8; digits++) {
        char value[16], label[64], search[256], *log = NULL;
        snprintf(value, sizeof value, "%.*s", digits, "98765432");
        snprintf(label, sizeof label, "smoothing ramp_down_w_s=%s [pipeline-1f1b]", value);   /* 40 + digits bytes */
        struct syn_run r[3];
        syn_default(&r[0], "none", "none [pipeline-1f1b]");
        syn_default(&r[1], "smoothing", "smoothing ramp_down_w_s=1 [pipeline-1f1b]");
        syn_default(&r[2], "smoothing", label);
        for (int i = 0; i < 3; i++)
            r[i].shape = "pipeline-1f1b";
        snprintf(search, sizeof search, "\"search\": {\"pareto\": [{\"label\": \"%s\"}], \"cheapest_passing\": "
                                        "{\"label\": \"%s\"}}", label, label);
        syn_summary(dir, r, 3, search);
        int rc = syn_report(dir, &log);
        if (strlen(label) > 47) {
            cr_assert_eq(rc, 2, "a %zu-byte label: exit %d:\n%s", strlen(label), rc, log);
            cr_assert(strstr(log, "runs[2].label: expected at most 47 bytes"), "%s", log);
            free(log);
            continue;
        }
        cr_assert_eq(rc, 0, "%s", log);
        char *txt = slurp(dir, "report.txt"), *svg = slurp(dir, "report.svg"), row[128], attrv[64];
        snprintf(row, sizeof row, "\n%s ", label);
        cr_assert(strstr(txt, row), "a %zu-byte label is not whole in the table:\n%s", strlen(label), txt);
        snprintf(row, sizeof row, "\n  %-12s ", value);
        const char *cr = strstr(txt, row);
        cr_assert(cr, "the curve's row is not %s:\n%s", value, txt);
        cr_assert(strstr(cr, "pareto, cheapest passing") && strstr(cr, "pareto, cheapest passing") < strchr(cr + 1, '\n'),
                  "the search's pick is not named:\n%s", txt);
        snprintf(attrv, sizeof attrv, "data-value=\"%s\"", value);
        cr_assert(strstr(svg, attrv), "the point is not %s", value);
        snprintf(row, sizeof row, "data-label=\"%s\"", label);
        cr_assert(strstr(svg, row), "the legend does not hold the whole label %s", label);
        cr_assert(strstr(svg, "class=\"tradeoff-cheapest\""), "the pick is not ringed");
        free(txt);
        free(svg);
        free(log);
    }
}

/* Appends the JSON text of a random label's character to json and its UTF-8 bytes to raw; returns the bytes. */
static size_t odd_char(unsigned *seed, char *json, char *raw)
{
    static const char *const pieces[][2] = {
        { "a", "a" }, { "Z", "Z" }, { " ", " " }, { "=", "=" }, { "%", "%" }, { "<", "<" }, { ">", ">" }, { "&", "&" },
        { "\\\"", "\"" }, { "'", "'" }, { "\\u0001", "\x01" }, { "\\u001f", "\x1f" }, { "\\t", "\t" }, { "\\n", "\n" },
        { "\\u007f", "\x7f" }, { "\\u0085", "\xc2\x85" }, { "\xc3\xa9", "\xc3\xa9" }, { "\xe2\x82\xac", "\xe2\x82\xac" },
        { "\xf0\x9d\x84\x9e", "\xf0\x9d\x84\x9e" }, { "\\ufffe", "\xef\xbf\xbe" }, { "\\uffff", "\xef\xbf\xbf" },
        { "\\ud834\\udd1e", "\xf0\x9d\x84\x9e" }, { "]", "]" }, { "[", "[" },
    };
    size_t k = (size_t)rand_r(seed) % (sizeof pieces / sizeof *pieces);
    strcat(json, pieces[k][0]);
    strcat(raw, pieces[k][1]);
    return strlen(pieces[k][1]);
}

/* Returns label as rp_xml must write it: each control character and non-character U+FFFD, <>&" escaped. */
static void xml_expect(const char *label, char *out)
{
    out[0] = '\0';
    for (const unsigned char *p = (const unsigned char *)label; *p;) {
        unsigned cp = 0;
        size_t len = utf8_at(p, &cp);
        cr_assert(len, "the test's label is UTF-8");
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF)
            strcat(out, "\xef\xbf\xbd");
        else if (strchr("<>&\"", (int)cp) && cp)
            strcat(out, cp == '<' ? "&lt;" : cp == '>' ? "&gt;" : cp == '&' ? "&amp;" : "&quot;");
        else
            strncat(out, (const char *)p, len);
        p += len;
    }
}

/* Labels of random characters up to 47 bytes — controls (\u0001, tab, newline, DEL, U+0085), <>&"', 2-, 3- and
 * 4-byte characters ending the label, U+FFFE and U+FFFF — give a well-formed report.svg in which each label reads as
 * it is, each character XML cannot hold as U+FFFD. A control character was written as is, and a cut could split a
 * character: XML parsers rejected the file. */
Test(report, the_picture_is_well_formed_xml_whatever_the_labels, .timeout = 300)
{
    struct syn_power pw = { .nodes = 1 };
    const char *dir = syn_dir(3, &pw);
    unsigned seed = 1130;
    for (int it = 0; it < 40; it++) {
        char json[3][400], raw[3][64];
        struct syn_run r[3];
        static const char *const mit[3] = { "none", "filler", "cap" };
        for (int i = 0; i < 3; i++) {
            size_t len = 0;
            json[i][0] = raw[i][0] = '\0';
            while (len < 40)
                len += odd_char(&seed, json[i], raw[i]);
            syn_default(&r[i], mit[i], json[i]);
        }
        syn_summary(dir, r, 3, NULL);
        char *log = NULL;
        int rc = syn_report(dir, &log);
        cr_assert_eq(rc, 0, "draw %d: exit %d:\n%s", it, rc, log);
        svg_well_formed(dir, "random labels");
        char *svg = slurp(dir, "report.svg");
        for (int i = 0; i < 3; i++) {
            char want[512], attrv[600];
            xml_expect(raw[i], want);
            snprintf(attrv, sizeof attrv, "data-label=\"%s\"", want);
            cr_assert(strstr(svg, attrv), "draw %d: label %d (%s) does not read %s", it, i, json[i], want);
        }
        free(svg);
        free(log);
    }
}

/* Returns the trace polylines and spectrum paths of dir/report.svg, one after another (malloc'd). */
static char *trace_lines(const char *dir)
{
    char *svg = slurp(dir, "report.svg"), *out = calloc(1, strlen(svg) + 1);
    cr_assert(out);
    for (const char *p = svg; (p = strstr(p, "<")); p++)
        if (strncmp(p, "<polyline fill=\"none\" class=\"trace\"", 35) == 0 ||
            strncmp(p, "<path fill=\"none\" class=\"spectrum-line\"", 39) == 0)
            strncat(out, p, strcspn(p, ">") + 1);
    free(svg);
    return out;
}

/* With `forward: ranks` node 0's power.csv holds every node's rows, each node at its own ticks, interleaved: the
 * picture draws node 0's power (the node of the table's figures), in time order, and says so — its traces and
 * spectra are those of power.csv without the other nodes' rows, even with node 0's rows out of order. They were
 * merged into a zig-zag of node 0's and node 1's sums going back in time. */
Test(report, other_nodes_rows_are_left_out_and_the_trace_is_in_time_order, .timeout = 120)
{
    struct syn_power one = { .nodes = 1 }, two = { .nodes = 2, .shuffle = 1 };
    const char *a = syn_dir(3, &one), *b = syn_dir(3, &two);
    struct syn_run r[3];
    syn_default(&r[0], "none", NULL);
    syn_default(&r[1], "filler", NULL);
    syn_default(&r[2], "cap", NULL);
    syn_summary(a, r, 3, NULL);
    syn_summary(b, r, 3, NULL);
    char *la = NULL, *lb = NULL;
    cr_assert_eq(syn_report(a, &la), 0, "%s", la);
    cr_assert_eq(syn_report(b, &lb), 0, "%s", lb);
    char *ta = trace_lines(a), *tb = trace_lines(b), *txt = slurp(b, "report.txt");
    cr_assert(strlen(ta) > 1000, "node 0's traces are drawn");
    cr_assert_str_eq(tb, ta, "the traces and spectra are not node 0's alone, in time order");
    cr_assert(strstr(txt, "node 0's") && strstr(txt, "other nodes' rows"), "the report does not say whose power it draws:\n%s",
              txt);
    cr_assert(!strstr(la, "other nodes' rows"), "one node's report says nothing of other nodes:\n%s", la);
    for (const char *p = tb; (p = strstr(p, "class=\"trace\"")); p++) {   /* every trace goes forward in time */
        const char *pts = strstr(p, "points=\"") + 8;
        double x, y, last = -1;
        int used;
        while (sscanf(pts, "%lf,%lf %n", &x, &y, &used) == 2) {
            cr_assert_gt(x, last, "a trace goes back in time");
            last = x;
            pts += used;
        }
    }
    free(ta);
    free(tb);
    free(txt);
    free(la);
    free(lb);
}

/* A reading of power.csv that is no finite number — inf, -inf, nan, 1e999, infinity, a reading past 1e12 W, a
 * number followed by garbage — is a missing reading: the picture is the one an empty field gives. One inf made
 * every trace's scale "inf W" and flattened every trace. */
Test(report, a_reading_that_is_no_number_is_missing, .timeout = 180)
{
    static const char *const odd[] = { "inf", "-inf", "nan", "NAN", "1e999", "-1e999", "infinity", "1e13", "12abc" };
    struct syn_power empty = { .nodes = 1, .odd = "" };
    struct syn_run r[2];
    syn_default(&r[0], "none", NULL);
    syn_default(&r[1], "filler", NULL);
    const char *a = syn_dir(2, &empty);
    syn_summary(a, r, 2, NULL);
    char *log = NULL;
    cr_assert_eq(syn_report(a, &log), 0, "%s", log);
    free(log);
    char *want = trace_lines(a);
    cr_assert(strlen(want) > 1000 && !strstr(want, "nan"), "the traces are drawn");
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        struct syn_power pw = { .nodes = 1, .odd = odd[i] };
        const char *b = syn_dir(2, &pw);
        syn_summary(b, r, 2, NULL);
        cr_assert_eq(syn_report(b, &log), 0, "%s", log);
        char *got = trace_lines(b), *svg = slurp(b, "report.svg");
        cr_assert_str_eq(got, want, "a reading of %s is not a missing one", odd[i]);
        cr_assert(!strstr(svg, "inf W") && !strstr(svg, "nan W"), "a reading of %s: a scale that is not finite", odd[i]);
        svg_well_formed(b, odd[i]);
        free(got);
        free(svg);
        free(log);
    }
    free(want);
}

/* One event of a folder watched by inotify: what happened and to which name. */
struct dir_event {
    uint32_t mask;
    char name[64];
};

/* Returns the index of the first event of mask on name after from, -1 when there is none. */
static int event_at(const struct dir_event *e, int n, int from, uint32_t mask, const char *name)
{
    for (int i = from; i < n; i++)
        if ((e[i].mask & mask) && strcmp(e[i].name, name) == 0)
            return i;
    return -1;
}

/* A report killed between its text and its picture must not leave the earlier picture beside the new text: watched
 * by inotify (whose events keep their order), the earlier report.svg and report.png are removed before the new
 * report.txt is renamed into place, and the new picture follows it. They were replaced after it: a kill between left
 * the earlier picture beside the new text. When report.txt cannot be written, no new picture is written beside the
 * earlier text either. */
Test(report, a_killed_report_never_leaves_an_earlier_picture_beside_new_text, .timeout = 120)
{
    struct syn_power pw = { .nodes = 1 };
    const char *dir = syn_dir(2, &pw), *writing = fake_rsvg("printf 'fake png' > \"$4\"\n");
    struct syn_run r[2];
    syn_default(&r[0], "none", NULL);
    syn_default(&r[1], "filler", NULL);
    syn_summary(dir, r, 2, NULL);
    free(report_with_path(dir, writing));
    cr_assert(exists(dir, "report.svg") && exists(dir, "report.png"), "an earlier picture");
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    cr_assert_geq(fd, 0);
    cr_assert_geq(inotify_add_watch(fd, dir, IN_DELETE | IN_MOVED_TO), 0);
    free(report_with_path(dir, writing));
    struct dir_event ev[256];
    int n = 0;
    char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0)
        for (char *p = buf; p < buf + got && n < 256; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            ev[n].mask = e->mask;
            snprintf(ev[n++].name, sizeof ev[0].name, "%s", e->len ? e->name : "");
        }
    cr_assert_eq(close(fd), 0);
    int txt = event_at(ev, n, 0, IN_MOVED_TO, "report.txt");
    cr_assert_geq(txt, 0, "report.txt was not renamed into place");
    int svg_gone = event_at(ev, n, 0, IN_DELETE, "report.svg"), png_gone = event_at(ev, n, 0, IN_DELETE, "report.png");
    cr_assert(svg_gone >= 0 && svg_gone < txt, "the earlier report.svg is there when the new report.txt is");
    cr_assert(png_gone >= 0 && png_gone < txt, "the earlier report.png is there when the new report.txt is");
    cr_assert_gt(event_at(ev, n, txt, IN_MOVED_TO, "report.svg"), txt, "the new report.svg follows the text");
    cr_assert_gt(event_at(ev, n, txt, IN_MOVED_TO, "report.png"), txt, "the new report.png follows the picture");
    /* report.txt that cannot be written (a folder in its place): no new picture beside the earlier text */
    char path[256], *log = NULL;
    snprintf(path, sizeof path, "%s/report.txt", dir);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkdir(path, 0755), 0);
    int rc = syn_report(dir, &log);
    cr_assert(rc != 0 && rc != -1, "exit %d:\n%s", rc, log);
    cr_assert(!exists(dir, "report.svg") && !exists(dir, "report.png"), "a picture without its text:\n%s", log);
    cr_assert(strstr(log, "plots: none (") && strstr(log, "/report.svg was removed"), "%s", log);
    cr_assert_eq(rmdir(path), 0);
    free(log);
}

/* Returns the width of run name's bar of colour fill in svg (green: swing removed), -1 when it has none; its data-bar
 * in what (n bytes). */
static double bar_width(const char *svg, const char *name, const char *fill, char *what, size_t n)
{
    char head[64], key[64];
    snprintf(head, sizeof head, "<text x=\"10\" y=\"");
    snprintf(key, sizeof key, "fill=\"%s\"", fill);
    const char *bars = strstr(svg, "Against none:");
    cr_assert(bars);
    for (const char *t = bars; (t = strstr(t + 1, head));) {
        const char *gt = strchr(t, '>');
        if (strncmp(gt + 1, name, strlen(name)) != 0 || gt[1 + strlen(name)] != '<')
            continue;
        const char *next = strstr(gt, head), *b = strstr(gt, key);
        if (!b || (next && b > next))
            return -1;
        while (*b != '<')   /* back to the start of its element */
            b--;
        attr(b, "data-bar", what, n);
        return num(b, "width");
    }
    cr_assert_fail("no bars of %s", name);
    return -1;
}

/* bess's swing-removed bar is the grid's (behind the battery: the figure of the table's grid_MW and of the curves),
 * never the node's (alignment noise, the battery leaves the node's trace alone), and says so; with its battery not
 * in the summary it draws no bar and reads "–". The bar showed the node's +27 % where the grid's was -99 %. */
Test(report, the_bess_bar_is_the_grid_figure, .timeout = 120)
{
    static const double pairs[][2] = { { 27, 99 }, { -15, 40 }, { 5, -12 }, { 80, 0.5 }, { 0, 73 } };
    struct syn_power pw = { .nodes = 1 };
    const char *dir = syn_dir(3, &pw);
    for (size_t k = 0; k <= sizeof pairs / sizeof *pairs; k++) {
        int unknown = k == sizeof pairs / sizeof *pairs;
        struct syn_run r[3];
        syn_default(&r[0], "none", NULL);
        syn_default(&r[1], "filler", NULL);
        syn_default(&r[2], "bess", NULL);
        r[2].f[F_SWING_RED] = unknown ? 27 : pairs[k][0];
        r[2].f[F_GRID_RED] = unknown ? 99 : pairs[k][1];
        r[2].no_battery = unknown;
        syn_summary(dir, r, 3, NULL);
        char *log = NULL;
        cr_assert_eq(syn_report(dir, &log), 0, "%s", log);
        char *svg = slurp(dir, "report.svg"), want[64];
        char what[64];
        cr_assert_float_eq(bar_width(svg, "filler", "#2ca02c", what, sizeof what), 2 * 50, 0.06, "filler's bar is the node's");
        double w = bar_width(svg, "bess", "#2ca02c", what, sizeof what);
        if (unknown) {
            cr_assert_eq(w, -1, "a battery not known draws a bar of %g", w);
            cr_assert(strstr(svg, ">\xe2\x80\x93 / +10% / +1%<"), "bess's swing reads -");
        } else {
            cr_assert_float_eq(w, 2 * fabs(pairs[k][1]), 0.06, "bess's bar is %g wide: not the grid's %g %%", w, pairs[k][1]);
            cr_assert_str_eq(what, "grid_swing_reduction_pct");
            snprintf(want, sizeof want, ">%+.0f%% grid / +10%% / +1%%<", pairs[k][1]);
            cr_assert(strstr(svg, want), "bess's figure does not read %s", want);
        }
        free(svg);
        free(log);
    }
}

/* The spectrum is drawn over the stretch the run's figures were taken over (run_end's analysed_s), so that its bins
 * are those of summary.json's dominant_hz and bands: not to the run's end, past the first rank's last iteration (the
 * others' drop to idle, 35 ms of it under load, once drew bins 0.683 Hz apart against the summary's 0.699); a run
 * whose run_end says no stretch (an older record) is drawn from its warm-up to its end. Node 0's run_begin and
 * run_end are the run's: another node's, forwarded after them, are not (until 2026-12-01 the last line's were). */
Test(report, the_spectrum_is_over_the_stretch_the_run_analysed, .timeout = 60)
{
    struct syn_power pw = { .nodes = 1 };
    const char *dir = syn_dir(2, &pw);
    char path[256];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);   /* syn_record's, run 0's end saying its stretch */
    put_text(path, "{\"t_s\":0.050,\"event\":\"run_begin\",\"run\":0}\n"
                   "{\"t_s\":0.300,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":0}\n"
                   "{\"t_s\":1.950,\"event\":\"run_end\",\"run\":0,\"figures\":{\"analysed_s\":[0.355,1.555]}}\n"
                   "{\"t_s\":0.060,\"event\":\"run_begin\",\"run\":0,\"node\":1}\n"   /* node 1's, after node 0's */
                   "{\"t_s\":1.990,\"event\":\"run_end\",\"run\":0,\"node\":1,\"figures\":{\"analysed_s\":[0.455,1.855]}}\n"
                   "{\"t_s\":2.050,\"event\":\"run_begin\",\"run\":1}\n"
                   "{\"t_s\":2.300,\"event\":\"iteration\",\"rank\":0,\"run\":1,\"iter\":0}\n"
                   "{\"t_s\":3.950,\"event\":\"run_end\",\"run\":1}\n");
    struct syn_run r[2];
    syn_default(&r[0], "none", NULL);
    syn_default(&r[1], "filler", NULL);
    syn_summary(dir, r, 2, NULL);   /* warmup_s 0.3: samples from 0.355 s (2.355 s) on, every 10 ms */
    char *log = NULL;
    cr_assert_eq(syn_report(dir, &log), 0, "%s", log);
    char *svg = slurp(dir, "report.svg"), stroke[64];
    const char *sp = element(svg, "<g class=\"spectrum\"");
    double sl = num(sp, "data-left"), sw = num(sp, "data-width"), hz = num(sp, "data-hz-max");
    static const char *const names[2] = { "none", "filler" };
    static const double span[2] = { 1.2, 1.59 };   /* 0.355-1.555 s as run 0 said; 2.355-3.945 s, its last sample */
    for (int i = 0; i < 2; i++) {
        double x[256], y[256];
        const char *line = run_line(sp, "spectrum-run", "spectrum-line", i, names[i], stroke, sizeof stroke);
        int m = points(line, x, y, 256);
        cr_assert_geq(m, 10, "%s: %d bins", names[i], m);
        double df = (x[1] - x[0]) / sw * hz;
        cr_assert_float_eq((x[0] - sl) / sw * hz, df, 0.01, "%s: the first bin is one step above 0 Hz", names[i]);
        cr_assert_float_eq(df * (span[i] + 0.01), 1, 0.005, "%s: bins %.4f Hz apart: 1 / (%.2f s + 10 ms) expected",
                           names[i], df, span[i]);
    }
    free(svg);
    free(log);
}

/* Writes dir/name with text inserted before its line at (1-based; past its last line: at its end). */
static void insert_line(const char *dir, const char *name, int at, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *old = e2e_read(path), *p = old;
    cr_assert(old, "%s", path);
    for (int k = 1; k < at && p && *p; k++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    cr_assert_eq(fwrite(old, 1, (size_t)(p - old), f), (size_t)(p - old));
    cr_assert_geq(fputs(text, f), 0);
    cr_assert_geq(fputs(p, f), 0);
    cr_assert_eq(fclose(f), 0);
    free(old);
}

/* A line of events.jsonl or power.csv that is none of the file's (no JSON event; no t_s,rank row) is exit 2 naming
 * file:line and what was expected, before anything is written (an earlier report stays): it was passed over, exit 0,
 * the picture drawn without it. What a killed run leaves — a last line without its newline, NUL bytes after it — is
 * no such line: the report is the one of the whole lines (docs/power.md, `gauntlet report RUNDIR`). */
Test(report, a_malformed_line_of_the_record_is_exit_2_naming_file_and_line, .timeout = 120)
{
    static const struct { const char *file; int at; const char *line, *want; } cases[] = {
        { "events.jsonl", 3, "not json\n", "events.jsonl:3: expected a JSON object with t_s and event" },
        { "events.jsonl", 2, "{\"t_s\": 1.0}\n", "events.jsonl:2: expected a JSON object with t_s and event" },
        { "events.jsonl", 5, "[1, 2]\n", "events.jsonl:5: expected a JSON object with t_s and event" },
        { "power.csv", 40, "1.5;0;300\n", "power.csv:40: expected t_s,rank,watts" },
        { "power.csv", 2, "nan,0,300,compute,,,,,,0,,\n", "power.csv:2: expected t_s,rank,watts" },
        /* a row of no GPU of the run (2 ranks in all) was summed into node 0's power */
        { "power.csv", 7, "0.055,2,300,compute,,,,,,0,,\n", "power.csv:7: rank 2, but the start event gives 2 rank(s)" },
        { "power.csv", 9, "0.055,-1,300,compute,,,,,,0,,\n", "power.csv:9: rank -1, but the start event gives 2" },
        { "power.csv", 11, NULL, "power.csv:11: a line longer than 1048576 bytes: no row a run writes" },
        { "events.jsonl", 3, NULL, "events.jsonl:3: a line longer than 1048576 bytes: no event a run writes" },
    };
    /* NULL: a line of 2 MiB, whole (a number's digits, a JSON object's padding): until 2026-12-02 held whole */
    size_t big_n = 2u << 20;
    char *big_csv = malloc(big_n + 64), *big_ev = malloc(big_n + 64);
    cr_assert(big_csv && big_ev);
    memcpy(big_csv, "0.055,0,", 8);
    memset(big_csv + 8, '3', big_n);
    memcpy(big_csv + 8 + big_n, "\n", 2);
    int at = snprintf(big_ev, 64, "{\"t_s\":0.5,\"event\":\"x\",\"pad\":\"");
    memset(big_ev + at, 'x', big_n);
    memcpy(big_ev + at + big_n, "\"}\n", 4);
    struct syn_power pw = { .nodes = 1 };
    struct syn_run r[2];
    syn_default(&r[0], "none", NULL);
    syn_default(&r[1], "filler", NULL);
    const char *whole = syn_dir(2, &pw);
    syn_summary(whole, r, 2, NULL);
    char *log = NULL, path[256];
    cr_assert_eq(syn_report(whole, &log), 0, "%s", log);
    free(log);
    char *want = trace_lines(whole);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *dir = syn_dir(2, &pw);
        syn_summary(dir, r, 2, NULL);
        insert_line(dir, cases[i].file, cases[i].at,
                    cases[i].line ? cases[i].line : strcmp(cases[i].file, "power.csv") == 0 ? big_csv : big_ev);
        snprintf(path, sizeof path, "%s/report.txt", dir);
        put_text(path, "an earlier report\n");
        int rc = syn_report(dir, &log);
        char msg[300];
        snprintf(msg, sizeof msg, "%s/%s", dir, cases[i].want);
        cr_expect_eq(rc, 2, "%s: %.100s: exit %d:\n%s", cases[i].file, cases[i].line ? cases[i].line : "(2 MiB)", rc, log);
        cr_expect(log && strstr(log, msg), "'%s' not in:\n%s", msg, log);
        char *kept = e2e_read(path);
        cr_expect(kept && strcmp(kept, "an earlier report\n") == 0, "report.txt was replaced:\n%s", kept);
        free(kept);
        free(log);
    }
    /* a killed run's tails: a row cut short, then a crash's NUL padding */
    const char *dir = syn_dir(2, &pw);
    syn_summary(dir, r, 2, NULL);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "a");
    cr_assert(f);
    cr_assert_eq(fwrite("{\"t_s\":3.97,\"ev\0\0\0\0", 1, 20, f), 20);
    cr_assert_eq(fclose(f), 0);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    f = fopen(path, "a");
    cr_assert(f);
    cr_assert_eq(fwrite("3.505,1,31\0\0\0\0\0\0", 1, 16, f), 16);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(syn_report(dir, &log), 0, "a killed run's tails:\n%s", log);
    char *got = trace_lines(dir);
    cr_expect_str_eq(got, want, "a killed run's tails change the picture");
    free(got);
    free(want);
    free(log);
    free(big_csv);
    free(big_ev);
}
