/* tests/test_verdicts.c: the acceptance verdict rules of docs/acceptance.md held on hand-made run folders, in
 * process (no run, no clock): a figure not measured never passes any check of the table; a figure at its threshold
 * passes; the JUnit XML says of every verdict what verdicts.json says, and its counts are verdicts.json's; throttle
 * allows idle, application clocks and the software power cap only; the power checks judge the p90 of compute and the
 * p10 of communication over 5 readings or more; outliers needs both k MADs and min_rel; sdc_screen passes only a GPU
 * its detectors compared something of; numa passes a pinned worker only; h2d_bandwidth passes at min_gbs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"
#include "accept_int.h"
#include "backend.h"
#include "e2e.h"
#include "param.h"
#include "util.h"

static char *new_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/gauntlet-verdicts-XXXXXX");
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    return dir;
}

/* Writes the run folder (scenario.yaml, summary.json, events.jsonl; power.csv unless NULL) and judges it on backend
 * with each node's checkpoint rates io (NULL: not measured) into vs. */
static void judge(const char *dir, const char *sc_text, const char *sum, const char *events, const char *power,
                  const char *backend, const double *io, struct verdicts *vs)
{
    char path[700], err[1024];
    e2e_put(dir, "scenario.yaml", sc_text);
    e2e_put(dir, "summary.json", sum);
    e2e_put(dir, "events.jsonl", events);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    unlink(path);
    if (power)
        e2e_put(dir, "power.csv", power);
    struct scenario *sc = xcalloc(1, sizeof *sc);
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    cr_assert_eq(scenario_load(path, sc, err, sizeof err), 0, "%s", err);
    cr_assert_eq(accept_evaluate(sc, dir, backend, io, io, vs, err, sizeof err), 0, "%s", err);
    free(sc);
}

static const struct verdict *verdict_of(const struct verdicts *vs, const char *check, int rank)
{
    for (int i = 0; i < vs->n; i++)
        if (strcmp(vs->v[i].check, check) == 0 && (rank < 0 || vs->v[i].rank == rank))
            return &vs->v[i];
    return NULL;
}

static const char *const st_name[] = { "PASS", "FAIL", "SKIP" };

/* Every PASS carries its figure and threshold, and the figure holds against it (a PASS without a figure is a check
 * that judged nothing). */
static void passes_have_figures(const struct verdicts *vs, const char *where)
{
    for (int i = 0; i < vs->n; i++) {
        const struct verdict *v = &vs->v[i];
        if (v->status != V_PASS)
            continue;
        cr_assert(isfinite(v->value) && isfinite(v->limit) && v->cmp[0], "%s: %s %s PASS without a figure: %s", where,
                  v->check, v->subject, v->note);
        cr_assert(v->cmp[0] == '>' ? v->value >= v->limit : v->cmp[0] == '<' ? v->value <= v->limit : v->value == v->limit,
                  "%s: %s %s PASS, but %g %s %g does not hold", where, v->check, v->subject, v->value, v->cmp, v->limit);
    }
}

/* The check keys of the scenario's checks: section (the one table the parser reads). */
static const struct param *check_table(void)
{
    const struct param *p = param_find(scenario_params, "checks");
    cr_assert(p && p->sub, "scenario_params has no checks section");
    return p->sub;
}

/* A run of nodes x per GPUs in which nothing was measured: no GEMM rate, no bus bandwidth, no power reading, no
 * throttle reading, no NUMA or copy report, no fault fired, no checkpoint rate (NaN: failed); with nulls, each figure
 * is there as null (and the other nodes' end records say each GPU has 10 readings of each phase, the figures null
 * but node 1's compute p90, 100 W: too few GPUs for outliers to compare, its communication p10 null beside it; and 2
 * throttle readings without the reasons: until 2026-11-30 those passed, read as none). Every check of the table is on, and none may pass: a missing figure is FAIL or SKIP, never PASS. */
static void nothing_measured(int nodes, int per, int nulls, const char *backend)
{
    char sc[4096], sum[16384], ev[8192], pw[4096], where[128];
    size_t l = (size_t)snprintf(sc, sizeof sc, "name: s\nranks: %d\nnodes: %d\niterations: 5\n"
                                               "workload: {gemm: {m: 64, n: 64, k: 64}, allreduce: {bytes: 1MiB}}\n"
                                               "heartbeat: {interval: 50ms, timeout: 2s}\nrecovery: restart\n"
                                               "faults:\n  - {kind: hang, at: 3, rank: 0}\nchecks:\n", per, nodes);
    for (const struct param *p = check_table(); p->name; p++)
        l += (size_t)snprintf(sc + l, sizeof sc - l, "  %s:\n", p->name);
    const char *nul = nulls ? "null" : NULL;
    l = (size_t)snprintf(sum, sizeof sum, "{\"scenario\": \"s\", \"backend\": \"%s\", \"ranks\": %d, \"ranks_total\": %d, "
                                          "\"faults\": [], \"runs\": [{\"iterations\": 5, %s%s%s\"ranks\": [",
                         backend, per, nodes * per, nul ? "\"busbw_gbs\": " : "", nul ? nul : "", nul ? ", " : "");
    for (int g = 0; g < per; g++)
        l += (size_t)snprintf(sum + l, sizeof sum - l, "%s{\"rank\": %d%s}", g ? ", " : "", g,
                              nulls ? ", \"tflops\": null, \"tflops_mean\": null" : "");
    l += (size_t)snprintf(sum + l, sizeof sum - l, "]}], \"nodes\": [");
    for (int k = 1; k < nodes; k++) {
        l += (size_t)snprintf(sum + l, sizeof sum - l, "%s{\"node\": %d, \"runs\": [{\"ranks\": []%s}], \"gpus\": [",
                              k > 1 ? ", " : "", k, nulls ? ", \"busbw_gbs\": null" : "");
        for (int g = 0; nulls && g < per; g++)
            l += (size_t)snprintf(sum + l, sizeof sum - l, "%s{\"rank\": %d, \"compute_p90_w\": %s, \"compute_n\": 10, "
                                                           "\"comm_p10_w\": null, \"comm_n\": 10, \"span_s\": null, "
                                                           "\"throttle_rows\": 2}",
                                  g ? ", " : "", k * per + g, k == 1 ? "100" : "null");
        l += (size_t)snprintf(sum + l, sizeof sum - l, "]}");
    }
    snprintf(sum + l, sizeof sum - l, "]}\n");
    l = 0;
    for (int r = 0; r < nodes * per; r++)
        l += (size_t)snprintf(ev + l, sizeof ev - l, "{\"t_s\": 0, \"event\": \"gpu\", \"rank\": %d, \"name\": "
                                                     "\"NVIDIA H100 80GB HBM3\", \"tdp_w\": 700}\n"
                                                     "{\"t_s\": 0, \"event\": \"ready\", \"rank\": %d%s}\n",
                              r, r, nulls ? ", \"numa_node\": null, \"numa_pinned\": null, \"h2d_gbs\": null" : "");
    /* node 0's rows: a tick with no reading (watts and throttle empty) */
    l = (size_t)snprintf(pw, sizeof pw, "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n");
    for (int g = 0; g < per; g++)
        l += (size_t)snprintf(pw + l, sizeof pw - l, "0.1,%d,,compute,,,,,,0,,\n", g);
    double io[8];
    for (int k = 0; k < 8; k++)
        io[k] = NAN;   /* each node's checkpoint rates: failed */
    snprintf(where, sizeof where, "%d node(s) x %d, %s, %s", nodes, per, backend, nulls ? "figures null" : "figures absent");
    struct verdicts vs = { 0 };
    judge(new_dir(), sc, sum, ev, nulls ? pw : NULL, backend, io, &vs);
    for (int i = 0; i < vs.n; i++)
        cr_assert_neq(vs.v[i].status, V_PASS, "%s: %s %s passed on no figure (value %g): %s", where, vs.v[i].check,
                      vs.v[i].subject, vs.v[i].value, vs.v[i].note);
    for (const struct param *p = check_table(); p->name; p++) {   /* and none was left out: absent is no verdict */
        const char *check = strcmp(p->name, "checkpoint_io") == 0 ? "checkpoint_write" : p->name;
        cr_assert(verdict_of(&vs, check, -1), "%s: check %s gave no verdict", where, check);
    }
    if (nodes >= 2)
        cr_assert(verdict_of(&vs, "node_outliers", -1), "%s: no node_outliers verdict", where);
    accept_free(&vs);
}

/* A missing figure must never pass: for every check of the table, on every backend, with the figure absent or null. */
Test(verdicts, a_figure_not_measured_never_passes_any_check)
{
    static const int shapes[][2] = { { 1, 1 }, { 1, 4 }, { 3, 2 } };
    for (size_t s = 0; s < ARRAY_LEN(shapes); s++)
        for (int nulls = 0; nulls < 2; nulls++)
            for (const char *const *b = (const char *const[]){ "cuda", "sim", NULL }; *b; b++)
                nothing_measured(shapes[s][0], shapes[s][1], nulls, *b);
}

/* The figure at its threshold passes ("≥ min_share × expected", "≤ max_detect"): the comparison is inclusive. */
Test(verdicts, a_figure_at_its_threshold_passes)
{
    struct verdicts vs = { 0 };
    struct scenario *sc = xcalloc(1, sizeof *sc);
    str_copy(sc->name, sizeof sc->name, "edge");
    const struct verdict *ge = accept_judge(&vs, sc, "gemm_tflops", 0, 0, 0, 0.85 * 700, ">=", 0.85 * 700, "TFLOP/s");
    cr_assert_eq(ge->status, V_PASS, "value == threshold under >=: %s", st_name[ge->status]);
    const struct verdict *le = accept_judge(&vs, sc, "throttle", 0, 1, 1, 0, "<=", 0, "reason bits");
    cr_assert_eq(le->status, V_PASS, "value == threshold under <=: %s", st_name[le->status]);
    const struct verdict *inf = accept_judge(&vs, sc, "busbw", 0, -1, -1, INFINITY, ">=", 288, "GB/s");
    cr_assert_eq(inf->status, V_FAIL, "an infinite figure is no measurement");
    accept_free(&vs);
    free(sc);
}

/* The status of each <testcase> of the JUnit text, in order: 0 PASS, 1 FAIL (<failure>), 2 SKIP (<skipped>). */
static int junit_statuses(const char *xml, int *out, int max, int totals[3])
{
    const char *t = strstr(xml, "<testsuites");
    cr_assert(t);
    const char *a[3] = { " tests=\"", " failures=\"", " skipped=\"" };
    for (int k = 0; k < 3; k++) {
        const char *p = strstr(t, a[k]);
        cr_assert(p && p < strchr(t, '>'), "<testsuites> without%s", a[k]);
        totals[k] = atoi(p + strlen(a[k]));
    }
    int n = 0;
    for (const char *p = strstr(xml, "<testcase "); p; p = strstr(p + 1, "<testcase ")) {
        const char *end = strstr(p, "</testcase>");
        cr_assert(end && n < max);
        const char *f = strstr(p, "<failure "), *s = strstr(p, "<skipped ");
        out[n++] = f && f < end ? V_FAIL : s && s < end ? V_SKIP : V_PASS;
    }
    return n;
}

/* The JUnit XML and verdicts.json say the same of each verdict, in the same order, and their counts agree: a SKIP
 * is <skipped> (never a passing testcase), a FAIL <failure>; verdicts.json's exit is the code returned, under
 * --strict too. */
Test(verdicts, junit_and_verdicts_json_agree_on_every_verdict)
{
    struct verdicts vs = { 0 };
    struct scenario *a = xcalloc(1, sizeof *a), *b = xcalloc(1, sizeof *b);
    str_copy(a->name, sizeof a->name, "a");
    str_copy(b->name, sizeof b->name, "b");
    accept_judge(&vs, a, "gemm_tflops", 0, 0, 0, 600, ">=", 595, "TFLOP/s");
    accept_judge(&vs, a, "gemm_tflops", 0, 1, 1, 500, ">=", 595, "TFLOP/s");
    accept_judge(&vs, a, "gemm_tflops", 0, 2, 2, NAN, ">=", 595, "TFLOP/s");
    accept_skip(&vs, a, "throttle", "the sim backend is a model");
    accept_judge(&vs, b, "fault_drill", 0, 1, 1, 0.5, "<=", 5, "s");
    accept_judge(&vs, b, "fault_drill", 0, 1, 1, 7, "<=", 5, "s");   /* a second fault of one GPU */
    accept_skip(&vs, b, "busbw", "one rank");
    for (int strict = 0; strict < 2; strict++)
        for (int only_skips = 0; only_skips < 2; only_skips++) {
            struct verdicts sub = vs;
            struct verdict kept[8];
            if (only_skips) {   /* the skips alone: exit 0, or 1 under --strict */
                sub.n = 0;
                sub.v = kept;
                for (int i = 0; i < vs.n; i++)
                    if (vs.v[i].status == V_SKIP)
                        kept[sub.n++] = vs.v[i];
            }
            char *out = new_dir(), junit[700], path[700];
            snprintf(junit, sizeof junit, "%s/j.xml", out);
            int code = accept_write(&sub, 1, backend_find("sim"), strict, out, junit);
            cr_assert_eq(code, only_skips && !strict ? 0 : 1, "strict %d, skips only %d: exit %d", strict, only_skips, code);
            snprintf(path, sizeof path, "%s/verdicts.json", out);
            json_error_t err;
            json_t *j = json_load_file(path, 0, &err);
            cr_assert(j, "%s: %s", path, err.text);
            cr_assert_eq(json_integer_value(json_object_get(j, "exit")), code, "verdicts.json's exit is the code returned");
            char *xml = e2e_read(junit);
            cr_assert(xml);
            int st[16], tot[3];
            int n = junit_statuses(xml, st, 16, tot);
            json_t *arr = json_object_get(j, "verdicts");
            cr_assert_eq((size_t)n, json_array_size(arr), "%d testcases, %zu verdicts", n, json_array_size(arr));
            int c[3] = { 0 };
            for (int i = 0; i < n; i++) {
                const char *s = json_string_value(json_object_get(json_array_get(arr, (size_t)i), "status"));
                cr_assert_str_eq(st_name[st[i]], s, "testcase %d is %s in JUnit, %s in verdicts.json", i, st_name[st[i]], s);
                c[st[i]]++;
            }
            cr_assert_eq(tot[0], n);
            cr_assert_eq(tot[1], c[V_FAIL], "JUnit failures=%d, <failure> %d", tot[1], c[V_FAIL]);
            cr_assert_eq(tot[2], c[V_SKIP], "JUnit skipped=%d, <skipped> %d", tot[2], c[V_SKIP]);
            cr_assert_eq(json_integer_value(json_object_get(j, "passed")), c[V_PASS]);
            cr_assert_eq(json_integer_value(json_object_get(j, "failed")), tot[1], "JUnit's failures are verdicts.json's");
            cr_assert_eq(json_integer_value(json_object_get(j, "skipped")), tot[2], "JUnit's skipped are verdicts.json's");
            free(xml);
            json_decref(j);
        }
    passes_have_figures(&vs, "constructed");
    accept_free(&vs);
    free(a);
    free(b);
}

static const char power_header[] = "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n";

/* throttle: no NVML clock-event reason besides idle (0x1), application clocks (0x2) and the software power cap (0x4);
 * a hardware slowdown (0x8) or power brake (0x80) fails; a GPU whose reasons were never read is SKIP (never read is not
 * "no reason"), on another node's end record too. */
Test(verdicts, throttle_allows_idle_application_clocks_and_the_power_cap_only)
{
    static const char *const reasons[] = { "0x0", "0x4", "0x7", "0x80", "0x8", "", "x" };   /* "x": not a number */
    static const int want[] = { V_PASS, V_PASS, V_PASS, V_FAIL, V_FAIL, V_SKIP, V_SKIP };
    const int n = (int)ARRAY_LEN(reasons);
    char sum[2048], pw[4096], ev[4096];
    size_t l = (size_t)snprintf(sum, sizeof sum, "{\"scenario\": \"t\", \"backend\": \"cuda\", \"ranks\": %d, \"ranks_total\": "
                                                 "%d, \"runs\": [{\"iterations\": 5, \"ranks\": []}], \"nodes\": [{\"node\": 1, "
                                                 "\"runs\": [{}], \"gpus\": [",
                                n, 2 * n);
    size_t lp = (size_t)snprintf(pw, sizeof pw, "%s", power_header), le = 0;
    for (int r = 0; r < n; r++) {
        /* node 0: two rows of readings per GPU, the reasons read on the second; node 1: its end record */
        lp += (size_t)snprintf(pw + lp, sizeof pw - lp, "0.1,%d,500,compute,,,,,,0,,\n0.2,%d,500,compute,,,,,%s,0,,\n", r, r,
                               reasons[r]);
        l += (size_t)snprintf(sum + l, sizeof sum - l, "%s{\"rank\": %d, \"compute_n\": 0, \"comm_n\": 0, \"throttle\": \"%s\", "
                                                       "\"throttle_rows\": %d}",
                              r ? ", " : "", n + r, *reasons[r] ? reasons[r] : "0x0", *reasons[r] ? 3 : 0);
    }
    snprintf(sum + l, sizeof sum - l, "]}]}\n");
    for (int r = 0; r < 2 * n; r++)
        le += (size_t)snprintf(ev + le, sizeof ev - le, "{\"t_s\": 0, \"event\": \"gpu\", \"rank\": %d, \"name\": \"NVIDIA H100 "
                                                        "80GB HBM3\", \"tdp_w\": 700}\n", r);
    char sc[256];
    snprintf(sc, sizeof sc, "name: t\nranks: %d\nnodes: 2\niterations: 5\nworkload: {gemm: {m: 64, n: 64, k: 64}, "
                            "allreduce: {bytes: 1MiB}}\nchecks:\n  throttle:\n", n);
    struct verdicts vs = { 0 };
    judge(new_dir(), sc, sum, ev, pw, "cuda", NULL, &vs);
    for (int r = 0; r < 2 * n; r++) {
        const struct verdict *v = verdict_of(&vs, "throttle", r);
        cr_assert(v, "no throttle verdict of rank %d", r);
        cr_assert_eq(v->status, want[r % n], "rank %d, reasons '%s': %s (%s)", r, reasons[r % n], st_name[v->status], v->note);
    }
    passes_have_figures(&vs, "throttle");
    accept_free(&vs);
}

/* Rows of one GPU's readings, each stamped by its source (sample_t_s) 0.1 s after the one before from t0: the first
 * covers an unknown span and counts for nothing, each next one the 0.1 s since. */
static size_t readings(char *out, size_t n, int rank, double t0, const char *phase, const double *w, int k)
{
    size_t l = 0;
    for (int i = 0; i < k; i++) {
        double stamp = t0 + 0.1 * i;
        l += (size_t)snprintf(out + l, n - l, "%.3f,%d,%g,%s,,,,,,0,,%.3f\n", stamp + 0.001, rank, w[i], phase, stamp);
    }
    return l;
}

/* power_under_load is the p90 of the readings wholly in compute phases against min_share_tdp x TDP, power_swing 1 -
 * the communication p10 over that p90 against min_drop; each needs 5 such readings (4 is SKIP). The readings are
 * chosen so that another percentile (the median, the mean, the least, the most) gives the other status. */
Test(verdicts, the_power_checks_judge_compute_p90_and_comm_p10_of_5_readings)
{
    /* TDP 1000 W, min_share_tdp 0.8: p90 >= 800 W. Each series' first reading counts for nothing (the 0 W one) */
    static const double hi0[] = { 0, 700, 700, 700, 810, 850 };   /* p90 834: PASS (median 700, mean 752: FAIL) */
    static const double lo0[] = { 0, 570, 700, 700, 700, 700 };   /* p10 622, 1 - 622/834 = 0.25: FAIL (least 570: 0.32) */
    static const double hi1[] = { 0, 900, 900, 900, 900 };        /* 4 readings: SKIP */
    static const double lo1[] = { 0, 100, 100, 100, 100 };
    static const double hi2[] = { 0, 700, 700, 700, 700, 850 };   /* p90 790: FAIL (the most, 850: PASS) */
    static const double lo2[] = { 0, 400, 450, 700, 700, 700 };   /* p10 420, 1 - 420/790 = 0.47: PASS (median: 0.11) */
    const double *hi[] = { hi0, hi1, hi2 }, *lo[] = { lo0, lo1, lo2 };
    const int nhi[] = { 6, 5, 6 }, nlo[] = { 6, 5, 6 };
    char pw[8192], ev[4096];
    size_t l = (size_t)snprintf(pw, sizeof pw, "%s", power_header), le = 0;
    for (int r = 0; r < 3; r++) {
        l += readings(pw + l, sizeof pw - l, r, 0.05, "compute", hi[r], nhi[r]);
        l += readings(pw + l, sizeof pw - l, r, 1.05, "comm", lo[r], nlo[r]);
        le += (size_t)snprintf(ev + le, sizeof ev - le,
                               "{\"t_s\": 0, \"event\": \"gpu\", \"rank\": %d, \"name\": \"NVIDIA H100 80GB HBM3\", \"tdp_w\": 1000}\n"
                               "{\"t_s\": 0, \"event\": \"phase_begin\", \"rank\": %d, \"phase\": \"compute\"}\n"
                               "{\"t_s\": 1, \"event\": \"phase_end\", \"rank\": %d, \"phase\": \"compute\"}\n"
                               "{\"t_s\": 1, \"event\": \"phase_begin\", \"rank\": %d, \"phase\": \"comm\"}\n"
                               "{\"t_s\": 2, \"event\": \"phase_end\", \"rank\": %d, \"phase\": \"comm\"}\n",
                               r, r, r, r, r);
    }
    static const char sum[] = "{\"scenario\": \"p\", \"backend\": \"cuda\", \"ranks\": 3, \"runs\": [{\"iterations\": 1, "
                              "\"ranks\": []}]}\n";
    struct verdicts vs = { 0 };
    judge(new_dir(), "name: p\nranks: 3\niterations: 5\nworkload: {gemm: {m: 64, n: 64, k: 64}, allreduce: {bytes: 1MiB}}\n"
                     "checks:\n  power_under_load:\n  power_swing:\n",
          sum, ev, pw, "cuda", NULL, &vs);
    static const int load[] = { V_PASS, V_SKIP, V_FAIL }, swing[] = { V_FAIL, V_SKIP, V_PASS };
    static const double p90[] = { 834, NAN, 790 }, drop[] = { 1 - 622.0 / 834, NAN, 1 - 420.0 / 790 };
    for (int r = 0; r < 3; r++) {
        const struct verdict *u = verdict_of(&vs, "power_under_load", r), *s = verdict_of(&vs, "power_swing", r);
        cr_assert(u && s, "rank %d: no power verdicts", r);
        cr_assert_eq(u->status, load[r], "rank %d power_under_load: %s %g (%s)", r, st_name[u->status], u->value, u->note);
        cr_assert_eq(s->status, swing[r], "rank %d power_swing: %s %g (%s)", r, st_name[s->status], s->value, s->note);
        if (r == 1) {
            cr_assert(strstr(u->note, "4 power readings lie wholly in compute"), "%s", u->note);
            continue;
        }
        cr_assert_float_eq(u->value, p90[r], 1e-9, "rank %d: p90 %g", r, u->value);
        cr_assert_float_eq(u->limit, 800, 1e-9, "min_share_tdp x TDP");
        cr_assert_float_eq(s->value, drop[r], 1e-9, "rank %d: drop %g", r, s->value);
        cr_assert_float_eq(s->limit, 0.3, 1e-9, "min_drop");
    }
    passes_have_figures(&vs, "power");
    accept_free(&vs);
}

/* outliers: a GPU fails only more than k scaled MADs (1.4826 x MAD) and more than min_rel below its peers' median (its
 * GEMM rate: the median of its phases, runs[].ranks[].tflops); peers that agree to the digit flag no noise (a GPU 1 %
 * under is many MADs but within min_rel: PASS, value 0); a GPU 5 % under among spread peers is past min_rel but within
 * k MADs: PASS, its MADs the value. A GPU with no rate is left out of the comparison, not judged on a hole. */
Test(verdicts, an_outlier_is_both_k_mads_and_min_rel_below)
{
    static const double rates[3][5] = { { 100, 100, 100, 100, 99 }, { 100, 101, 99, 100, 90 }, { 100, 104, 96, 100, 95 } };
    static const int fail_rank[3] = { -1, 4, -1 };
    static const double value[3] = { 0, 10 / 1.4826, 5 / (1.4826 * 4) };
    for (int c = 0; c < 3; c++)
        for (int hole = 0; hole < 2; hole++) {   /* hole: a sixth GPU without a rate */
            char sum[2048];
            size_t l = (size_t)snprintf(sum, sizeof sum, "{\"scenario\": \"o\", \"backend\": \"sim\", \"ranks\": %d, "
                                                         "\"runs\": [{\"iterations\": 5, \"ranks\": [",
                                        5 + hole);
            for (int r = 0; r < 5; r++)   /* tflops_mean far off: outliers judges the median phase's rate */
                l += (size_t)snprintf(sum + l, sizeof sum - l, "%s{\"rank\": %d, \"tflops\": %g, \"tflops_mean\": %g}",
                                      r ? ", " : "", r, rates[c][r], r == 0 ? 10.0 : 100.0);
            if (hole)
                l += (size_t)snprintf(sum + l, sizeof sum - l, ", {\"rank\": 5, \"tflops\": null}");
            snprintf(sum + l, sizeof sum - l, "]}]}\n");
            char sc[256];
            snprintf(sc, sizeof sc, "name: o\nranks: %d\niterations: 5\nworkload: {gemm: {m: 64, n: 64, k: 64}, "
                                    "allreduce: {bytes: 1MiB}}\nchecks:\n  outliers:\n",
                     5 + hole);
            struct verdicts vs = { 0 };
            judge(new_dir(), sc, sum, "{\"t_s\": 0, \"event\": \"start\"}\n", NULL, "sim", NULL, &vs);
            int fails = 0;
            const struct verdict *pass = NULL;
            for (int i = 0; i < vs.n; i++) {
                const struct verdict *v = &vs.v[i];
                if (strcmp(v->check, "outliers") != 0)
                    continue;
                if (v->status == V_FAIL) {
                    fails++;
                    cr_assert_eq(v->rank, fail_rank[c], "case %d: %s failed (%s)", c, v->subject, v->note);
                    cr_assert_float_eq(v->value, value[c], 1e-9, "case %d: %g MADs", c, v->value);
                } else {
                    cr_assert_eq(v->status, V_PASS, "case %d hole %d: %s", c, hole, v->note);
                    pass = v;
                }
            }
            cr_assert_eq(fails, fail_rank[c] >= 0, "case %d hole %d: %d FAILs", c, hole, fails);
            if (fail_rank[c] < 0) {
                cr_assert(pass, "case %d: no PASS", c);
                cr_assert_float_eq(pass->value, value[c], 1e-9, "case %d: the PASS's value %g (%s)", c, pass->value,
                                   pass->note);
                cr_assert_float_eq(pass->limit, 4, 1e-9);
            }
            passes_have_figures(&vs, "outliers");
            accept_free(&vs);
        }
}

/* sdc_screen passes a GPU only when its detectors compared something (summary.json runs[].ranks[].sdc_checks, summed
 * over the runs; another node's from its nodes[] entry): one they compared nothing of — no vote, no GEMM output
 * verified, no replay past the first, a sliced fingerprint short of one whole pass of its slices, or a record that
 * does not say — is SKIP naming what was not screened, never a PASS of 0 mismatches in nothing; one screened is PASS,
 * its note saying how much; a detection fails the GPU whatever the counts. */
Test(verdicts, sdc_screen_passes_only_a_gpu_its_detectors_compared)
{
    /* node 0: 6 GPUs over two runs; node 1 (its nodes[] entry): 2 GPUs. fingerprint of 4 slices, abft, replay */
    static const char *const run0[] = { "{\"fingerprint\": 0, \"abft\": 0, \"replay\": 0}", "{\"fingerprint\": 3}",
                                        "{\"fingerprint\": 2}", "{\"abft\": 5}", NULL, "{\"replay\": 0}" };
    static const char *const run1[] = { "{\"fingerprint\": 0, \"abft\": 0, \"replay\": 0}", "{}", "{\"fingerprint\": 2}",
                                        "{}", NULL, "{}" };
    static const char *const node1[] = { "{\"replay\": 1}", "{\"fingerprint\": 0, \"abft\": 0, \"replay\": 0}" };
    static const int want[] = { V_SKIP, V_SKIP, V_PASS, V_PASS, V_SKIP, V_FAIL, V_PASS, V_SKIP };
    static const char *const note[] = { "fingerprint 0 votes (0 whole passes of 4 slices), abft 0 GEMM outputs, replay 0",
                                        "fingerprint 3 votes (0 whole passes",
                                        "screened: fingerprint 4 votes (1 whole passes of 4 slices), abft 0",
                                        "abft 5 GEMM outputs",
                                        "summary.json does not say what its detectors compared",
                                        "replay at iteration 3",
                                        "replay 1 replays compared",
                                        "not screened" };
    char sum[4096];
    size_t l = (size_t)snprintf(sum, sizeof sum, "{\"scenario\": \"z\", \"backend\": \"sim\", \"ranks\": 6, "
                                                 "\"ranks_total\": 12, \"runs\": [");
    for (int run = 0; run < 2; run++) {
        l += (size_t)snprintf(sum + l, sizeof sum - l, "%s{\"iterations\": 5, \"ranks\": [", run ? ", " : "");
        for (int g = 0; g < 6; g++) {
            const char *c = (run ? run1 : run0)[g];
            l += (size_t)snprintf(sum + l, sizeof sum - l, "%s{\"rank\": %d%s%s}", g ? ", " : "", g,
                                  c ? ", \"sdc_checks\": " : "", c ? c : "");
        }
        l += (size_t)snprintf(sum + l, sizeof sum - l, "]}");
    }
    l += (size_t)snprintf(sum + l, sizeof sum - l, "], \"nodes\": [{\"node\": 1, \"runs\": [{\"ranks\": [");
    for (int g = 0; g < 2; g++)
        l += (size_t)snprintf(sum + l, sizeof sum - l, "%s{\"rank\": %d, \"sdc_checks\": %s}", g ? ", " : "", g, node1[g]);
    snprintf(sum + l, sizeof sum - l, "]}]}]}\n");
    static const char ev[] = "{\"t_s\": 0, \"event\": \"detection\", \"detector\": \"replay\", \"rank\": 5, \"iter\": 3, "
                             "\"note\": \"replayed GEMM differs\"}\n";
    struct verdicts vs = { 0 };
    judge(new_dir(), "name: z\nranks: 6\nnodes: 2\niterations: 5\nworkload: {gemm: {m: 64, n: 64, k: 64}, "
                     "allreduce: {bytes: 1MiB}}\ndetectors: [{fingerprint: {slices: 4}}, abft, replay]\n"
                     "checks:\n  sdc_screen:\n",
          sum, ev, NULL, "sim", NULL, &vs);
    static const int rank_of[] = { 0, 1, 2, 3, 4, 5, 6, 7 };   /* node 1's GPUs are global ranks 6 and 7 */
    for (int k = 0; k < 8; k++) {
        const struct verdict *v = verdict_of(&vs, "sdc_screen", rank_of[k]);
        cr_assert(v, "no sdc_screen verdict of rank %d", k);
        cr_assert_eq(v->status, want[k], "rank %d: %s (%s)", k, st_name[v->status], v->note);
        cr_assert(strstr(v->note, note[k]), "rank %d's note: %s", k, v->note);
    }
    passes_have_figures(&vs, "sdc_screen");
    accept_free(&vs);
}

/* The ready events of n ranks, each with extra (its NUMA and copy-test fields, as the cuda worker reports them). */
static void ready_events(char *ev, size_t cap, const char *const *extra, int n)
{
    size_t l = 0;
    ev[0] = 0;
    for (int r = 0; r < n; r++)
        l += (size_t)snprintf(ev + l, cap - l, "{\"t_s\": 0, \"event\": \"ready\", \"rank\": %d%s%s}\n", r,
                              *extra[r] ? ", " : "", extra[r]);
}

/* The summary of a cuda run of n ranks on one node, nothing else measured. */
static void plain_summary(char *sum, size_t cap, int n)
{
    snprintf(sum, cap, "{\"scenario\": \"h\", \"backend\": \"cuda\", \"ranks\": %d, \"runs\": [{\"iterations\": 5, "
                       "\"ranks\": []}]}\n", n);
}

/* numa: a worker pinned to its GPU's NUMA node passes (numa_pinned true: 1 >= 1 pinned); one that may run outside it
 * fails; a GPU with no NUMA node (-1), a placement not reported, or reported as no boolean is SKIP, never PASS. */
Test(verdicts, numa_passes_a_worker_pinned_to_its_gpus_node_only)
{
    static const char *const extra[] = { "\"numa_node\": 0, \"numa_pinned\": true", "\"numa_node\": 1, \"numa_pinned\": false",
                                         "\"numa_node\": -1, \"numa_pinned\": true", "",
                                         "\"numa_node\": 1, \"numa_pinned\": null", "\"numa_node\": 0, \"numa_pinned\": 1",
                                         "\"numa_node\": null, \"numa_pinned\": true" };
    static const int want[] = { V_PASS, V_FAIL, V_SKIP, V_SKIP, V_SKIP, V_SKIP, V_SKIP };
    static const char *const note[] = { "NUMA node 0's CPUs only", "outside its GPU's NUMA node 1", "reports no NUMA node",
                                        "did not report", "did not report", "did not report", "did not report" };
    const int n = (int)ARRAY_LEN(extra);
    char ev[2048], sum[512], sc[256];
    ready_events(ev, sizeof ev, extra, n);
    plain_summary(sum, sizeof sum, n);
    snprintf(sc, sizeof sc, "name: h\nranks: %d\niterations: 5\nworkload: {gemm: {m: 64, n: 64, k: 64}, allreduce: "
                            "{bytes: 1MiB}}\nchecks:\n  numa:\n", n);
    struct verdicts vs = { 0 };
    judge(new_dir(), sc, sum, ev, NULL, "cuda", NULL, &vs);
    for (int r = 0; r < n; r++) {
        const struct verdict *v = verdict_of(&vs, "numa", r);
        cr_assert(v, "no numa verdict of rank %d", r);
        cr_assert_eq(v->status, want[r], "rank %d (%s): %s (%s)", r, extra[r], st_name[v->status], v->note);
        cr_assert(strstr(v->note, note[r]), "rank %d's note: %s", r, v->note);
    }
    passes_have_figures(&vs, "numa");
    accept_free(&vs);
}

/* h2d_bandwidth: the copy test's rate at min_gbs passes (20 GB/s by default, or the scenario's), a hair under it fails;
 * a rate not reported, null, or no number is SKIP, never PASS. */
Test(verdicts, h2d_bandwidth_passes_at_min_gbs_and_fails_just_under)
{
    static const char *const extra[] = { "\"h2d_gbs\": %.17g", "\"h2d_gbs\": %.17g", "\"h2d_gbs\": %.17g", "",
                                         "\"h2d_gbs\": null", "\"h2d_gbs\": \"50\"" };
    static const int want[] = { V_PASS, V_FAIL, V_PASS, V_SKIP, V_SKIP, V_SKIP };
    const int n = (int)ARRAY_LEN(extra);
    for (int set = 0; set < 2; set++) {   /* the default 20 GB/s, then min_gbs: 40 */
        double min = set ? 40 : 20, rate[] = { min, nextafter(min, 0), 2 * min };
        char ex[ARRAY_LEN(extra)][64], ev[2048], sum[512], sc[256];
        const char *exs[ARRAY_LEN(extra)];
        for (int r = 0; r < n; r++) {
            snprintf(ex[r], sizeof ex[r], extra[r], r < 3 ? rate[r] : 0);
            exs[r] = ex[r];
        }
        ready_events(ev, sizeof ev, exs, n);
        plain_summary(sum, sizeof sum, n);
        snprintf(sc, sizeof sc, "name: h\nranks: %d\niterations: 5\nworkload: {gemm: {m: 64, n: 64, k: 64}, allreduce: "
                                "{bytes: 1MiB}}\nchecks:\n  h2d_bandwidth:%s\n", n, set ? " {min_gbs: 40}" : "");
        struct verdicts vs = { 0 };
        judge(new_dir(), sc, sum, ev, NULL, "cuda", NULL, &vs);
        for (int r = 0; r < n; r++) {
            const struct verdict *v = verdict_of(&vs, "h2d_bandwidth", r);
            cr_assert(v, "no h2d_bandwidth verdict of rank %d", r);
            cr_assert_eq(v->status, want[r], "min %g, rank %d (%s): %s %.17g (%s)", min, r, ex[r], st_name[v->status],
                         v->value, v->note);
            if (r < 3) {
                cr_assert_eq(v->value, rate[r], "rank %d: the rate reported is the value judged", r);
                cr_assert_eq(v->limit, min, "rank %d: the threshold is min_gbs", r);
            }
        }
        passes_have_figures(&vs, "h2d_bandwidth");
        accept_free(&vs);
    }
}
