/* tests/test_report.c: `gauntlet report` on real sim runs: a swept parameter gets its trade-off curve (swing left
 * against energy and time paid, value by value) in report.svg and as a table in report.txt, with the figures of
 * summary.json; a run without a sweep gets none. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define BASE                                                                                                   \
    "name: rep\nranks: 2\niterations: 8\nseed: 5\n"                                                         \
    "workload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 64}\n"                                            \
    "  allreduce: {bytes: 1GiB, emulate_busbw: 20, emulate_ranks: 1024}\npower: {sample_hz: 200}\n"
#define MAXP 32

/* One point of a curve as the report drew or printed it, or as summary.json gives it. */
struct pt {
    char value[32];
    double swing, energy, time, cx, cy;
};

/* Runs text on sim, then `gauntlet report` on it; returns the results folder. */
static const char *run_and_report(const char *text)
{
    const char *out = e2e_outdir();
    int rc = e2e_run("/tmp/gauntlet-rep.log", (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--out", out, NULL });
    char *log = e2e_read("/tmp/gauntlet-rep.log");
    cr_assert_eq(rc, 0, "run: exit %d:\n%s", rc, log);
    free(log);
    rc = e2e_run("/tmp/gauntlet-rep-report.log", (const char *[]){ "report", out, NULL });
    log = e2e_read("/tmp/gauntlet-rep-report.log");
    cr_assert_eq(rc, 0, "report: exit %d:\n%s", rc, log);
    free(log);
    return out;
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
    cr_assert(*t == '\n' || *t == '\0' || strncmp(t, "trade-off", 9) == 0, "more rows than values: %.80s", t);
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
    char *log = e2e_read("/tmp/gauntlet-rep-report.log");
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
