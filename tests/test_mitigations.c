/* tests/test_mitigations.c: the mitigations on the sim backend, run side by side on the same workload:
 * what each removes of the swing and what it costs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "machine.h"
#include "mitigations/mitigation.h"
#include "util.h"

/* 2 ranks, 99 ms of GEMMs and 107 ms of an emulated all-reduce (each rank waits its own: the ranks are not kept in
 * step), n iterations */
#define BASE_N(n)                                                                                              \
    "name: mit\nranks: 2\niterations: " #n "\nseed: 3\n"                                                   \
    "workload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 64}\n"                                            \
    "  allreduce: {bytes: 1GiB, emulate_busbw: 20, emulate_ranks: 1024}\npower: {sample_hz: 200}\n"
#define BASE BASE_N(16)

/* Runs text on sim; returns its summary. */
static json_t *run(const char *text)
{
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("mit.log"), (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--out", out, NULL });
    char *log = e2e_read(e2e_log("mit.log"));
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, log);
    free(log);
    return e2e_summary(out);
}

/* Returns vs_none's field of run i. */
static double vs(json_t *s, size_t i, const char *field)
{
    json_t *v = json_object_get(json_array_get(json_object_get(s, "runs"), i), "vs_none");
    cr_assert(json_is_object(v), "run %zu has no comparison with none", i);
    return json_number_value(json_object_get(v, field));
}

/* A filler's cost in time on sim, iteration_overhead_pct (the throughputs of two runs of ~3 s one after the other),
 * is judged under 5 %: its work is modelled power in the gaps and costs nothing, so what shows is the host's, which
 * may change between the runs beside another test (0.9 % alone); a filler that held each rank 15 ms an iteration
 * shows 7.8 %. Until 2026-11-30 under 2 %, about 66 ms over 16 iterations. */
#define FILLER_TIME_PCT 5

Test(mitigations, filler_at_80pct_of_compute_halves_the_swing, .timeout = 120)
{
    /* 80 % of the compute level (780 W): 624 W */
    json_t *s = run(BASE "mitigations: [none, {filler: {floor: 624W}}]\n");
    double cut = vs(s, 1, "swing_reduction_pct"), energy = vs(s, 1, "energy_overhead_pct");
    cr_assert_geq(cut, 50, "filler removed %.1f %% of the swing (p99-p1), expected at least half", cut);
    cr_assert_gt(energy, 0, "filler's energy cost must show: %.1f %%", energy);
    /* how well it spends it: the least energy holding the floor it reached needed, over what it added */
    double eff = vs(s, 1, "energy_efficiency"), least = vs(s, 1, "energy_least_j"), added = vs(s, 1, "energy_added_j");
    cr_assert(least > 0 && added > 0, "least %.1f J, added %.1f J", least, added);
    cr_assert_float_eq(eff, least / added, 1e-6);   /* summary.json keeps 8 digits */
    /* phases of about 1.5 time constants: each rise from the floor costs what the model's response charges
     * (docs/power.md); 0.78 measured */
    cr_assert(eff > 0.65 && eff <= 1.0, "efficiency %.2f", eff);
    double asked = vs(s, 1, "floor_asked_w"), reached = vs(s, 1, "floor_reached_w");
    cr_assert_float_eq(asked, 624, 1e-9);
    cr_assert(reached > 600 && reached < 640, "the floor reached (p1): %.0f W of 624", reached);
    cr_log_info("filler 624 W: swing -%.1f %%, energy +%.1f %%, time +%.1f %%, efficiency %.2f", cut, energy,
                vs(s, 1, "iteration_overhead_pct"), eff);
    cr_assert_lt(vs(s, 1, "iteration_overhead_pct"), FILLER_TIME_PCT, "a filler costs no time");
    json_decref(s);
}

/* Iterations of 12.3 ms read through the default sensor (a reading every 20 ms, the mean over it): the readings cannot
 * follow the iteration, so what a filler does to its swing cannot be measured; `check` says so before,
 * the comparison after (never a plain row), and the climb to the floor at the run's start is not counted as swing
 * (the warm-up lasts until the power settled). */
Test(mitigations, a_filler_at_a_time_scale_it_cannot_help_says_so, .timeout = 60)
{
    const char *text = "name: short\nranks: 2\niterations: 100\n"
                       "workload:\n  gemm: {m: 4096, n: 4096, k: 4096, count: 8}\n"
                       "  allreduce: {bytes: 256MiB, emulate_busbw: 50, emulate_ranks: 512}\n"
                       "mitigations: [none, {filler: {floor: 80%}}]\n";
    const char *sc = e2e_scenario(text), *log = e2e_log("mit-short.log");
    cr_assert_eq(e2e_run(log, (const char *[]){ "check", sc, NULL }), 0);
    char *out = e2e_read(log);
    cr_assert(strstr(out, "warning: an iteration of 12.") &&
              strstr(out, "shorter than two of the power sensor's updates (a reading every 20 ms)") &&
              strstr(out, "so what filler does to the swing cannot be measured here"), "%s", out);
    free(out);
    json_t *s = run(text);
    json_t *r = json_array_get(json_object_get(s, "runs"), 1);
    const char *w = json_string_value(json_object_get(json_object_get(r, "vs_none"), "warning"));
    /* the comparison judges the iterations it measured: 12.3 ms modelled, 24.9 ms seen under ASan beside two busy
     * loops; past two updates (40 ms) a loaded machine made them long enough to follow, and no warning is owed */
    double p50 = json_number_value(json_object_get(json_object_get(r, "iteration_s"), "p50"));
    if (p50 < 0.040)   /* alone, or after "Filler raised the swing by X % instead of removing it: " where the alias
                        * read worse (seen at +12.3 % beside the rest of the suite on 2 cores) */
        cr_assert(w && (strncmp(w, "An iteration of ", 16) == 0 || strstr(w, "instead of removing it: an iteration of ")) &&
                      strstr(w, " ms is shorter than two of the power sensor's updates"),
                  "iterations of %.1f ms: the comparison warns: %s", p50 * 1e3, w ? w : "(none)");
    else   /* said, not failed: criterion's cr_log_warn makes the executable exit 1 (until 2026-11-30 it did here) */
        cr_log_info("iterations of %.1f ms measured (12.3 ms modelled): a loaded machine; the warning is not owed",
                    p50 * 1e3);
    cr_assert(json_number_value(json_object_get(r, "warmup_s")) >= 0.21, "analysed once the power settled");
    cr_assert_gt(vs(s, 1, "swing_reduction_pct"), -50, "the climb to the floor is no swing of the filler's");
    json_decref(s);
}

/* Issue 29's workload: 2 ranks, 74 ms of GEMMs (8192^3 x 48) and an all-reduce of 1 GiB at 100 GB/s over 1024 ranks
 * (22 ms): read through the default 20 ms sensor, with the GPUs' power as fast as a GPU's (sim.ramp 2 ms). The filler
 * at 80 % halves each GPU's swing, in the readings and in the electrical truth, and spends its energy on the floor
 * (efficiency >= 0.89 against the truth); the readings, which average each 22 ms gap with its compute, cannot say
 * what the least energy was, so energy_efficiency is null and named. */
Test(mitigations, a_filler_halves_each_gpus_swing_on_a_realistic_workload, .timeout = 120)
{
    json_t *s = run("name: realistic\nranks: 2\niterations: 40\nseed: 3\n"
                    "workload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 48}\n"
                    "  allreduce: {bytes: 1GiB, emulate_busbw: 100, emulate_ranks: 1024}\n"
                    "power: {sample_hz: 1000}\nmitigations: [none, {filler: {floor: 80%}}]\n");
    json_t *v = json_object_get(json_array_get(json_object_get(s, "runs"), 1), "vs_none"), *t = json_object_get(v, "truth");
    double cut = vs(s, 1, "per_gpu_swing_reduction_pct");
    double tcut = json_number_value(json_object_get(t, "per_gpu_swing_reduction_pct"));
    double teff = json_number_value(json_object_get(t, "energy_efficiency"));
    cr_log_info("realistic: per-GPU swing -%.1f %% (truth -%.1f %%), energy +%.1f %%, time +%.1f %%, efficiency against "
                "the truth %.3f (least %.2f J, added %.2f J per iteration)", cut, tcut, vs(s, 1, "energy_overhead_pct"),
                vs(s, 1, "iteration_overhead_pct"), teff, json_number_value(json_object_get(t, "energy_least_j")),
                json_number_value(json_object_get(t, "energy_added_j")));
    cr_assert_geq(cut, 50, "the readings: each GPU's swing -%.1f %%", cut);
    cr_assert_geq(tcut, 50, "the electrical power: each GPU's swing -%.1f %%", tcut);
    /* 0.913-0.925 alone and beside two busy loops, 0.902 once in the whole suite on a VM whose host took half its
     * time (2026-12-02): the filler's learning follows the gaps as the machine lets it */
    cr_assert_geq(teff, 0.89, "efficiency against the truth %.3f", teff);
    cr_assert(json_is_null(json_object_get(v, "energy_efficiency")), "the readings cannot resolve the 22 ms gaps");
    json_t *u = json_array_get(json_object_get(v, "unresolved"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(u, "figure")), "energy_efficiency");
    cr_assert(strstr(json_string_value(json_object_get(u, "why")), "shorter than the sensor resolves"));
    cr_assert_lt(vs(s, 1, "iteration_overhead_pct"), FILLER_TIME_PCT, "a filler costs no time");
    json_decref(s);
}

Test(mitigations, every_mitigation_runs_and_is_compared, .timeout = 240)
{
    /* 7 iterations (5 or 6 past the warm-up): the stagger holds the second rank back 60 ms an iteration, and as the
     * ranks are not kept in step it drifts through the iteration's 207 ms, twice in the run as 30 ms did over 16
     * iterations, where the swing it removed was 12-26 % (30 ms over fewer: 8 iterations 4-26 %, 12 2-4 %); 60 ms
     * over 7 removed 26-36 % of it at +34-40 % time (filler 66 %, ramp 76 %, cap 44 % at +9-10 % time, smoothing
     * 76 %) */
    json_t *s = run(BASE_N(7)
                         "mitigations: [none, filler, ramp, {stagger: {groups: 2, offset: 60ms}}, {cap: {cap: 70%}}, smoothing]\n");
    json_t *runs = json_object_get(s, "runs");
    cr_assert_eq(json_array_size(runs), 6);
    for (size_t i = 1; i < 6; i++) {
        cr_assert_gt(vs(s, i, "swing_reduction_pct"), 0, "%s removed no swing",
                     json_string_value(json_object_get(json_array_get(runs, i), "mitigation")));
    }
    cr_assert_gt(vs(s, 3, "iteration_overhead_pct"), 0, "stagger: the collective's waits take time back");
    cr_assert_gt(vs(s, 4, "iteration_overhead_pct"), 0, "a cap slows compute");
    json_t *dev = json_object_get(json_array_get(runs, 5), "device");
    cr_assert_str_eq(json_string_value(json_object_get(dev, "smoothing")), "emulated", "the summary says which smoothing ran");
    cr_assert(strstr(json_string_value(json_object_get(dev, "smoothing_why")), "sim"), "and why");
    cr_assert_null(json_object_get(json_array_get(runs, 0), "device"), "none changes no device setting");
    json_decref(s);
}

Test(mitigations, report_draws_each_run, .timeout = 120)
{
    const char *out = e2e_outdir();
    const char *sc = e2e_scenario(BASE "mitigations: [none, {filler: {floor: 624W}}]\n");
    cr_assert_eq(e2e_run(e2e_log("mit.log"), (const char *[]){ "run", sc, "--backend", "sim", "--out", out, NULL }), 0);
    cr_assert_eq(e2e_run(e2e_log("report.log"), (const char *[]){ "report", out, NULL }), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/report.svg", out);
    char *svg = e2e_read(path);
    cr_assert(svg && strncmp(svg, "<svg", 4) == 0, "report.svg is not an SVG");
    int lines = 0;
    for (const char *p = svg; (p = strstr(p, "<polyline")); p++)
        lines++;
    cr_assert_eq(lines, 2, "one trace per run, got %d", lines);
    cr_assert(strstr(svg, "</svg>"));
    free(svg);
    snprintf(path, sizeof path, "%s/report.txt", out);
    char *txt = e2e_read(path);
    cr_assert(txt && strstr(txt, "none") && strstr(txt, "filler"), "report.txt: %s", txt);
    free(txt);
    cr_assert_eq(e2e_run(e2e_log("report.log"), (const char *[]){ "report", "/nonexistent", NULL }), 2);
}

Test(mitigations, bess_flattens_what_the_grid_sees, .timeout = 120)
{
    json_t *s = run(BASE "projection: {gpus: 100000}\n"
                         "mitigations: [none, {bess: {capacity_mwh: 20, power_mw: 40, window: 2s}}]\n");
    json_t *b = json_object_get(json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 1),
                                                                                 "power"), "aggregate"), "projection"), "bess");
    cr_assert(json_is_object(b), "the bess run reports its battery");
    cr_assert_leq(json_number_value(json_object_get(b, "battery_max_mw")), 40 + 1e-9, "within its power rating");
    double cut = vs(s, 1, "grid_swing_reduction_pct");
    cr_assert_geq(cut, 50, "the battery removed %.1f %% of the cluster's swing from the grid", cut);
    cr_assert_lt(vs(s, 1, "iteration_overhead_pct"), 5, "a facility battery costs the GPUs no time");
    /* its energy is its losses over the cluster's energy in the same span, never the GPUs' run-to-run difference */
    double losses = json_number_value(json_object_get(b, "losses_mwh")), energy = json_number_value(json_object_get(b, "energy_mwh"));
    double pct = json_number_value(json_object_get(b, "losses_pct"));
    cr_assert(losses > 0 && energy > losses, "losses %g MWh of %g MWh", losses, energy);
    cr_assert_float_eq(pct, 100 * losses / energy, 1e-6 * pct);
    cr_assert_float_eq(vs(s, 1, "energy_overhead_pct"), pct, 1e-6 * pct, "the battery's energy paid is its losses");
    json_decref(s);
}

/* A battery that never acts (its window no longer than a sample: the grid follows the draw sample by sample) leaves
 * the grid as the cluster: the spec's dynamic range on the grid side is the cluster's range_mw, taken on the readings
 * as the cluster's is, and its grid swing the cluster's swing (within 0.1 %). Until 2026-12-01 the grid side's range
 * was taken on the line through the readings, which reaches a reading only at its time: a battery that did nothing
 * read a dynamic range under the cluster's (55.6 MW against 58.5), and passed a limit between the two. */
Test(mitigations, a_battery_that_never_acts_leaves_the_grids_range_as_the_clusters, .timeout = 120)
{
    json_t *s = run(BASE_N(10) "projection: {gpus: 100000, groups: 10, spec: {dynamic_range_mw: 1}}\n"
                               "mitigations: [{bess: {window: 1ms}}]\n");
    json_t *p = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"),
                                                "aggregate"), "projection");
    json_t *b = json_object_get(p, "bess");
    json_t *c = json_array_get(json_object_get(json_object_get(p, "spec"), "clauses"), 0);
    cr_assert(json_is_object(b) && json_is_object(c), "the battery and the spec's clause are reported");
    cr_assert_str_eq(json_string_value(json_object_get(c, "clause")), "dynamic_range_mw");
    double range = json_number_value(json_object_get(p, "range_mw"));
    double grid = json_number_value(json_object_get(c, "value"));
    double swing = json_number_value(json_object_get(p, "swing_mw"));
    cr_assert(range > 0 && fabs(grid - range) <= 1e-9 * range, "the grid's range %.9g MW, the cluster's %.9g MW", grid,
              range);
    double gs = json_number_value(json_object_get(b, "grid_swing_mw"));   /* its percentiles over the whole trace,
                                                                           * the cluster's from its first reading */
    cr_assert(fabs(gs - swing) <= 1e-3 * swing, "the grid's swing %.9g MW, the cluster's %.9g MW", gs, swing);
    json_decref(s);
}

Test(mitigations, auto_names_the_cheapest_that_meets_the_spec, .timeout = 180)
{
    /* the cluster's swing must stay under 20 MW: of none and four filler floors, 90 % meets it (~16 MW: a swing of
     * ~320 W where 400 W is 20 MW) and 80 % does not (~23 MW), and the two refined between them are tried; the
     * swing of each is the same over 6 iterations as over 16 (within a point: 4 or 5 past the warm-up, 160 grid
     * points or more) */
    json_t *s = run(BASE_N(6) "projection: {gpus: 100000, spec: {dynamic_range_mw: 20}}\nsearch_budget: 5\nmitigations: auto\n");
    json_t *sr = json_object_get(s, "search");
    cr_assert(json_is_object(sr), "a search reports its result");
    json_t *best = json_object_get(sr, "cheapest_passing");
    cr_assert(json_is_object(best), "a candidate meets a 20 MW range");
    const char *label = json_string_value(json_object_get(best, "label"));
    cr_assert(strncmp(label, "filler floor=", 13) == 0, "cheapest: %s", label);
    cr_assert_gt(json_array_size(json_object_get(sr, "pareto")), 1);
    cr_assert_eq(json_array_size(json_object_get(s, "runs")), 7, "5 coarse candidates, then 2 refined ones");
    json_decref(s);
    s = run(BASE_N(4) "projection: {gpus: 100000, spec: {dynamic_range_mw: 0.001}}\nsearch_budget: 2\nmitigations: auto\n");
    sr = json_object_get(s, "search");
    cr_assert(json_is_null(json_object_get(sr, "cheapest_passing")));
    json_t *miss = json_object_get(sr, "closest_failure");
    cr_assert_str_eq(json_string_value(json_object_get(miss, "clause")), "dynamic_range_mw");
    json_decref(s);
}

Test(mitigations, bess_is_sized_from_the_measured_swing, .timeout = 120)
{
    json_t *s = run(BASE "projection: {gpus: 100000}\nmitigations: [none, {bess: {size: 50, window: 2s}}]\n");
    json_t *runs = json_object_get(s, "runs");
    json_t *p0 = json_object_get(json_object_get(json_object_get(json_array_get(runs, 0), "power"), "aggregate"), "projection");
    json_t *b = json_object_get(json_object_get(json_object_get(json_object_get(json_array_get(runs, 1), "power"), "aggregate"),
                                                "projection"), "bess");
    double swing = json_number_value(json_object_get(p0, "swing_mw")), mw = json_number_value(json_object_get(b, "power_mw"));
    cr_assert_gt(swing, 0);
    cr_assert_float_eq(mw, swing / 2, 1e-6 * swing, "half the none run's projected swing: %.3f MW of %.3f MW", mw, swing);
    cr_assert_float_eq(json_number_value(json_object_get(b, "capacity_mwh")), mw / 60, 1e-6 * mw, "one minute at full power");
    char rated[64];   /* its label names the ratings it was sized to, never the given ones */
    snprintf(rated, sizeof rated, " %.3gMW/%.3gMWh", mw, mw / 60);
    const char *label = json_string_value(json_object_get(json_array_get(runs, 1), "label"));
    cr_assert(label && strncmp(label, "bess", 4) == 0 && strstr(label, rated), "label %s, expected bess...%s", label, rated);
    json_decref(s);
    const char *sc = e2e_scenario(BASE "mitigations: [{bess: {size: 50}}, none]\n");
    cr_assert_eq(e2e_run(e2e_log("mit.log"), (const char *[]){ "check", sc, NULL }), 2);
    char *log = e2e_read(e2e_log("mit.log"));
    cr_assert(strstr(log, ":9:1: mitigations[0]: bess size is a share of the swing a `none` run measured"), "%s", log);
    free(log);
}

/* The parameters of mitigation name, its defaults with key set to value (key NULL: none); returns its index. */
static int mit_params(const char *name, void *params, const char *key, const char *value)
{
    int k = plugin_find(&plugin_mitigations, name);
    cr_assert_geq(k, 0, "%s", name);
    const struct mitigation_ops *o = mitigation_table[k];
    char why[256];
    memset(params, 0, SC_PARAM_BYTES);
    cr_assert_eq(param_defaults(o->params, params), 0);
    if (key)
        cr_assert_eq(param_parse(param_find(o->params, key), value, params, why, sizeof why), 0, "%s=%s: %s", key, value, why);
    return k;
}

/* A % of TDP is read against the TDP the run had, as each backend's worker reads it: the model's own on sim (whatever
 * the control block holds, power.tdp_w included), the GPU's on a GPU, none where it is not known. */
Test(mitigations, a_share_of_tdp_is_read_against_the_tdp_the_worker_had)
{
    struct sim_params m = { .tdp_w = 700, .idle_w = 131 };
    _Alignas(max_align_t) unsigned char p[SC_PARAM_BYTES];
    cr_assert_float_eq(mitigation_tdp_w(1, &m, 0), 700, 1e-12);
    cr_assert_float_eq(mitigation_tdp_w(1, &m, 500000), 700, 1e-12, "sim: the model's, not power.tdp_w");
    cr_assert_float_eq(mitigation_tdp_w(0, &m, 350000), 350, 1e-12, "a GPU: its own");
    cr_assert(isnan(mitigation_tdp_w(0, &m, 0)), "a GPU whose TDP is not known: none, never sim.tdp_w");
    int k = mit_params("filler", p, "floor", "80%");
    struct mit_model mm;
    mitigation_model_tdp(k, p, &m, mitigation_tdp_w(0, &m, 350000), 0, 2, &mm);
    cr_assert_float_eq(mm.floor_w, 280, 1e-9, "80 %% of a 350 W GPU");
    mitigation_model_tdp(k, p, &m, mitigation_tdp_w(0, &m, 1000000), 1, 2, &mm);
    cr_assert_float_eq(mm.floor_w, 800, 1e-9, "80 %% of a 1000 W GPU");
    k = mit_params("filler", p, "floor", "300W");
    mitigation_model_tdp(k, p, &m, 350, 0, 2, &mm);
    cr_assert_float_eq(mm.floor_w, 300, 1e-9, "watts are watts");
}

/* A cap a GPU refuses is refused before the run, naming the key and what was expected: 0 (it meant no cap at all)
 * and one under the idle level; a cap at idle or above, and every other mitigation's defaults, pass. */
Test(mitigations, a_cap_at_zero_or_under_idle_is_refused)
{
    struct sim_params m = { .tdp_w = 700, .idle_w = 131 };
    _Alignas(max_align_t) unsigned char p[SC_PARAM_BYTES];
    const char *bad[] = { "0%", "0W", "1W", "130W", "18%" }, *good[] = { "131W", "19%", "80%", "100%" };
    char why[400];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *key = NULL;
        int k = mit_params("cap", p, "cap", bad[i]);
        why[0] = 0;
        cr_assert_eq(mitigation_check(k, p, &m, &key, why, sizeof why), -1, "cap %s passed", bad[i]);
        cr_assert_str_eq(key, "cap");
        cr_assert(strstr(why, "expected a power limit") && strstr(why, "got "), "cap %s: %s", bad[i], why);
    }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const char *key = NULL;
        int k = mit_params("cap", p, "cap", good[i]);
        cr_assert_eq(mitigation_check(k, p, &m, &key, why, sizeof why), 0, "cap %s: %s", good[i], why);
    }
    for (int k = 0; mitigation_table[k]; k++) {
        const char *key = NULL;
        mit_params(mitigation_table[k]->name, p, NULL, NULL);
        cr_assert_eq(mitigation_check(k, p, &m, &key, why, sizeof why), 0, "%s's defaults: %s", mitigation_table[k]->name, why);
    }
}

/* A mitigation that can do nothing as given says so (one sentence, its reason); one that can act says nothing. */
Test(mitigations, a_mitigation_that_can_do_nothing_says_why)
{
    struct mit_run run = { .tdp_w = 700, .idle_w = 131, .sample_s = 0.005, .world = 2 }, one = run;
    one.world = 1;
    struct {
        const char *name, *key, *value;
        const struct mit_run *run;
        const char *says;   /* NULL: nothing */
    } c[] = {
        { "stagger", "groups", "1", &run, "groups 1" },
        { "stagger", "offset", "0ms", &run, "offset 0" },
        { "stagger", NULL, NULL, &one, "1 rank in all" },
        { "stagger", NULL, NULL, &run, NULL },
        { "filler", "floor", "0%", &run, "floor of 0" },
        { "filler", "floor", "100W", &run, "at or below the GPU's idle level" },
        { "filler", "floor", "80%", &run, NULL },
        { "bess", "window", "1ms", &run, "never acts" },
        { "bess", "window", "5ms", &run, "never acts" },
        { "bess", "window", "6ms", &run, NULL },
        { "ramp", "ramp_w_s", "1", &run, NULL },
        { "smoothing", "floor", "0%", &run, NULL },
        { "cap", NULL, NULL, &run, NULL },
        { "none", NULL, NULL, &run, NULL },
    };
    _Alignas(max_align_t) unsigned char p[SC_PARAM_BYTES];
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char why[400] = "";
        int k = mit_params(c[i].name, p, c[i].key, c[i].value);
        int said = mitigation_inert(k, p, c[i].run, why, sizeof why);
        cr_assert_eq(said, c[i].says != NULL, "%s %s=%s: %s", c[i].name, c[i].key, c[i].value, why);
        if (c[i].says)
            cr_assert(strstr(why, c[i].says), "%s %s=%s: %s", c[i].name, c[i].key, c[i].value, why);
    }
}

/* On sim a % of TDP is the model's sim.tdp_w, as its worker reads it, whatever power.tdp_w says. */
Test(mitigations, a_floor_in_percent_follows_the_models_tdp, .timeout = 60)
{
    json_t *s = run("name: mit\nranks: 2\niterations: 6\nseed: 3\n"
                    "workload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 64}\n"
                    "  allreduce: {bytes: 1GiB, emulate_busbw: 20, emulate_ranks: 1024}\n"
                    "power: {sample_hz: 200, tdp_w: 700}\nsim: {tdp_w: 500}\n"
                    "mitigations: [none, {filler: {floor: 80%}}]\n");
    cr_assert_float_eq(vs(s, 1, "floor_asked_w"), 400, 1e-6, "80 %% of sim.tdp_w 500 W");
    cr_assert_null(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 1), "vs_none"),
                                   "floor_unreachable"));
    json_decref(s);
}

Test(mitigations, auto_offers_storage_apart_from_gpu_side_mitigations, .timeout = 300)
{
    /* 17 candidates of 4 iterations (2 or 3 past the warm-up): the battery takes 97 % of the swing off the grid,
     * the GPU-side ones that meet 20 MW (filler 90 %, ramp 1000 W/s at ~11 MW, smoothing) pass by as much as over 8 */
    json_t *s = run(BASE_N(4) "projection: {gpus: 100000, spec: {dynamic_range_mw: 20}}\nmitigations: auto\n");
    json_t *sr = json_object_get(s, "search"), *st = json_object_get(sr, "cheapest_storage_passing");
    cr_assert(json_is_object(st), "a battery sized from the swing meets a 20 MW range");
    cr_assert(strncmp(json_string_value(json_object_get(st, "label")), "bess size=", 10) == 0);
    cr_assert_gt(json_number_value(json_object_get(st, "power_mw")), 0);
    json_t *best = json_object_get(sr, "cheapest_passing");
    cr_assert(json_is_object(best) && strncmp(json_string_value(json_object_get(best, "label")), "bess", 4) != 0,
              "the cheapest GPU-side answer is not a battery");
    json_t *e;
    size_t i;
    int storage = 0;
    json_array_foreach(json_object_get(sr, "pareto"), i, e)
        storage += json_number_value(json_object_get(e, "storage_mw")) > 0;
    cr_assert_geq(storage, 1, "a battery is on the Pareto front: storage is a cost of its own");
    json_decref(s);
}

/* `gauntlet check` names a mitigation that can do nothing as given, before the run: a stagger of one rank in all, a
 * filler floor of 0; the ones that act are not named. */
Test(mitigations, check_warns_of_a_mitigation_that_can_do_nothing, .timeout = 60)
{
    const char *sc = e2e_scenario("name: inert\nranks: 1\niterations: 10\n"
                                  "workload:\n  gemm: {m: 512, n: 512, k: 512, count: 4}\n  allreduce: {bytes: 1MiB}\n"
                                  "mitigations: [none, stagger, {filler: {floor: 0%}}, {filler: {floor: 80%}}]\n"),
               *log = e2e_log("mit-inert.log");
    cr_assert_eq(e2e_run(log, (const char *[]){ "check", sc, NULL }), 0);
    char *out = e2e_read(log);
    cr_assert(strstr(out, "warning: mitigations[1] stagger: ") && strstr(out, "1 rank in all"), "%s", out);
    cr_assert(strstr(out, "warning: mitigations[2] ") && strstr(out, "floor of 0"), "%s", out);
    cr_assert_null(strstr(out, "mitigations[3]"), "a floor of 80 %% acts: %s", out);
    cr_assert_null(strstr(out, "mitigations[0]"), "%s", out);
    free(out);
}

/* `check`'s time estimate counts a stagger's delay in each iteration of its run (until 2026-11-30 left out: 8 groups
 * 500 ms apart read 1 s for a run of 11 s): 4 ranks in 4 groups 1 s apart, the last group waits 3 s an iteration. */
Test(mitigations, check_counts_a_staggers_delay_in_its_estimate, .timeout = 60)
{
    const char *sc = e2e_scenario("name: stag\nranks: 4\niterations: 5\n"
                                  "workload:\n  gemm: {m: 512, n: 512, k: 512, count: 4}\n  allreduce: {bytes: 1MiB}\n"
                                  "mitigations: [none, {stagger: {groups: 4, offset: 1s}}]\n"),
               *log = e2e_log("mit-stag.log");
    cr_assert_eq(e2e_run(log, (const char *[]){ "check", sc, NULL }), 0);
    char *out = e2e_read(log);
    cr_assert(strstr(out, "about 0h00m15s") && strstr(out, "+ 5 iterations x 3 s of stagger delays"), "%s", out);
    free(out);
}
