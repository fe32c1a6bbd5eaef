/* tests/test_power_runs.c: a run's power figures against what the run itself left behind, on sim: the time a
 * mitigation pays against the wall time (every wait included), the energy against the integral of power.csv, the
 * sampler's real rate against its ticks, one scenario run twice with one seed repeating its comparison, and the
 * ranks' phase spread the projection scatters its groups by, against its definition. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "backend.h"
#include "shm.h"
#include "e2e.h"
#include "results.h"
#include "runstats.h"
#include "scenario.h"
#include "util.h"

#define BASE                                                                                                   \
    "ranks: 2\nseed: 3\n"                                                                                  \
    "workload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 64}\n"                                            \
    "  allreduce: {bytes: 1GiB, emulate_busbw: 20, emulate_ranks: 1024}\n"

/* Runs text on sim into out; returns its summary. */
static json_t *run_into(const char *text, const char *out)
{
    int rc = e2e_run(e2e_log("pruns.log"),
                     (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--out", out, NULL });
    char *log = e2e_read(e2e_log("pruns.log"));
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, log);
    free(log);
    return e2e_summary(out);
}

static json_t *run_i(json_t *s, size_t i) { return json_array_get(json_object_get(s, "runs"), i); }
static double num(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }
static double vs(json_t *s, size_t i, const char *k) { return num(json_object_get(run_i(s, i), "vs_none"), k); }

/* Returns the time (s) of the event type of run r in dir/events.jsonl, or NAN. */
static double event_t(const char *dir, const char *type, int r)
{
    char path[512], line[4096], want[64];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    snprintf(want, sizeof want, "\"event\":\"%s\",\"run\":%d,", type, r);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    double t = NAN;
    while (fgets(line, sizeof line, f))
        if (strstr(line, want) && sscanf(line, "{\"t_s\":%lf", &t) == 1)
            break;
    fclose(f);
    return t;
}

/* The jitter the projection scatters a cluster's groups by is the ranks' natural one: a stagger's offsets are in the
 * per-GPU trace already, and taken for jitter too (before 2026-11-29: its 20 ms offsets read as ~10 ms of it) they
 * credited the stagger twice. 4 ranks, a real sim all-reduce that keeps them in step. */
Test(power_runs, a_staggers_offsets_are_not_jitter, .timeout = 120)
{
    const char *out = e2e_outdir();
    json_t *s = run_into("name: spread\nranks: 4\niterations: 40\nseed: 3\n"
                         "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n"
                         "sim: {tflops: 0.01}\nmitigations: [none, {stagger: {groups: 2, offset: 20ms}}]\n", out);
    double sp[2];
    for (size_t i = 0; i < 2; i++)
        sp[i] = num(json_object_get(json_object_get(json_object_get(run_i(s, i), "power"), "aggregate"), "alignment"),
                    "phase_spread_s");
    cr_log_info("phase spread: none %.2f ms, stagger %.2f ms", sp[0] * 1e3, sp[1] * 1e3);
    cr_assert(isfinite(sp[0]) && isfinite(sp[1]));
    cr_assert(sp[1] < 3 * sp[0] + 0.005, "stagger's phase spread %.2f ms against none's %.2f ms", sp[1] * 1e3, sp[0] * 1e3);
    json_decref(s);
}

/* alignment.phase_spread_s as docs/power.md defines it, on the run's own bookkeeping fed known compute starts: the root
 * of the mean over iterations of each iteration's variance over n - 1 of the ranks' starts, each start less the delay
 * the mitigation puts before it. 4 ranks staggered 2 x 20 ms, 40 iterations of 0.3 s, each rank a seeded scatter of
 * up to 6 ms, wider in some iterations than in others (so the root of the mean is not the mean of the roots). A
 * variance over n reads sqrt(3/4) of it; the stagger's offsets counted as jitter read over 10 ms more (they scattered
 * the projected groups twice until 2026-11-29); the e2e test above holds only that the stagger adds under 3 x. */
Test(power_runs, the_phase_spread_is_the_root_mean_variance_of_the_starts_less_their_delays)
{
    enum { RANKS = 4, ITERS = 40 };
    static const double delay[RANKS] = { 0, 0.02, 0, 0.02 };
    double e[ITERS][RANKS], var_sum = 0;
    struct rng g;
    rng_seed(&g, 17, 2);
    for (int i = 0; i < ITERS; i++) {
        double scale = i % 3 ? 1e-3 : 6e-3, mean = 0, v = 0;
        for (int r = 0; r < RANKS; r++)
            mean += (e[i][r] = scale * (2 * rng_uniform(&g) - 1)) / RANKS;
        for (int r = 0; r < RANKS; r++)
            v += (e[i][r] - mean) * (e[i][r] - mean);
        var_sum += v / (RANKS - 1);
    }
    double want = sqrt(var_sum / ITERS);
    for (int staggered = 0; staggered < 2; staggered++) {
        struct run_stats rs;
        uint64_t t0 = 1000000000ull;
        runstats_init(&rs, 0, RANKS, ITERS, t0, 100, 0);
        if (staggered)
            runstats_set_delays(&rs, delay);
        for (int i = 0; i < ITERS; i++)
            for (int r = RANKS - 1; r >= 0; r--) {   /* the ranks' events in no particular order */
                double at = 0.05 + 0.3 * i + (staggered ? delay[r] : 0) + e[i][r];
                struct wevent ev = { .type = WEV_PHASE_BEGIN, .rank = r, .phase = PH_COMPUTE, .iter = i,
                                     .t_ns = t0 + (uint64_t)llround(at * 1e9) };
                runstats_event(&rs, &ev);
            }
        double got = runstats_phase_spread(&rs);
        cr_assert_float_eq(got, want, 1e-5 * want, "%s: phase spread %.4f ms, by its definition %.4f ms",
                           staggered ? "staggered 2 x 20 ms" : "no delay", got * 1e3, want * 1e3);
        runstats_free(&rs);
    }
}

Test(power_runs, time_paid_is_the_wall_time_and_energy_the_integral_of_the_samples, .timeout = 120)
{
    const char *out = e2e_outdir();
    json_t *s = run_into("name: cost\niterations: 16\n" BASE "power: {sample_hz: 500}\n"
                         "mitigations: [none, {stagger: {groups: 2, offset: 40ms}}, {filler: {floor: 80%}}]\n", out);
    /* the stagger's own waits are time paid: the change of throughput equals the change of wall time */
    double wall0 = num(run_i(s, 0), "wall_s"), wall1 = num(run_i(s, 1), "wall_s");
    double by_wall = 100 * (wall1 / wall0 - 1), paid = vs(s, 1, "iteration_overhead_pct");
    cr_log_info("stagger: time paid %.1f %%, wall time %+.1f %%", paid, by_wall);
    cr_assert_gt(paid, 10, "a 40 ms offset on ~0.3 s iterations: %.1f %%", paid);
    cr_assert_float_eq(paid, by_wall, 4, "time paid %.1f %% against the wall time's %+.1f %%", paid, by_wall);
    /* what is a model's is labelled: on sim the power itself, and each mitigation's own assumption */
    json_t *mod0 = json_object_get(run_i(s, 0), "modelled"), *mod2 = json_object_get(run_i(s, 2), "modelled");
    cr_assert_eq(json_array_size(mod0), 1, "none on sim: the backend's model only");
    cr_assert(strstr(json_string_value(json_array_get(mod0, 0)), "sim backend's model"));
    cr_assert_eq(json_array_size(mod2), 2);
    cr_assert(strncmp(json_string_value(json_array_get(mod2, 1)), "filler: ", 8) == 0, "%s",
              json_string_value(json_array_get(mod2, 1)));
    for (int r = 0; r < 3; r++) {   /* the energy over the analysed stretch against power.csv over the same time */
        json_t *e = json_object_get(run_i(s, (size_t)r), "energy");
        cr_assert_str_eq(json_string_value(json_object_get(e, "source")), "power samples", "sim has no energy counter");
        double end = event_t(out, "run_end", r), span = num(e, "span_s");
        cr_assert(isfinite(end) && span > 1, "run %d: end %f, span %f", r, end, span);
        double csv = e2e_csv_energy(out, end - span, end), j = num(e, "j");
        cr_assert_float_eq(j, csv, 0.03 * csv, "run %d: %.1f J in the summary, %.1f J in power.csv", r, j, csv);
        double per = num(run_i(s, (size_t)r), "energy_per_iter_j"), thr = num(run_i(s, (size_t)r), "throughput_it_s");
        cr_assert_float_eq(per * thr, num(e, "mean_w"), 1e-6 * per * thr, "energy per iteration x rate = power");
        /* the sampler: its real rate beside the asked one, and never more samples than ticks */
        json_t *sm = json_object_get(json_object_get(json_object_get(json_object_get(run_i(s, (size_t)r), "power"),
                                                                     "aggregate"), "sampling"), "asked_hz");
        cr_assert_float_eq(json_number_value(sm), 500, 1e-9);
        json_t *agg = json_object_get(json_object_get(run_i(s, (size_t)r), "power"), "aggregate");
        json_t *smp = json_object_get(agg, "sampling");
        double hz = num(smp, "achieved_hz");
        cr_assert(hz > 250 && hz < 510, "achieved %.1f Hz", hz);
        cr_assert_leq(json_integer_value(json_object_get(agg, "samples")), json_integer_value(json_object_get(smp, "ticks")),
                      "a sample is a tick, never a held copy");
    }
    json_decref(s);
}

Test(power_runs, one_scenario_twice_with_one_seed_repeats_its_comparison, .timeout = 200)
{
    const char *text = "name: again\niterations: 16\n" BASE "power: {sample_hz: 1000}\n"
                       "mitigations: [none, {filler: {floor: 80%}}, {smoothing: {floor: 65%}}, "
                       "{bess: {capacity_mwh: 10, power_mw: 20, window: 2s}}]\n";
    json_t *a = run_into(text, e2e_outdir()), *b = run_into(text, e2e_outdir());
    for (size_t i = 1; i < 4; i++) {
        double x = vs(a, i, "swing_reduction_pct"), y = vs(b, i, "swing_reduction_pct");
        cr_log_info("%s: swing -%.1f %% then -%.1f %%", json_string_value(json_object_get(run_i(a, i), "mitigation")), x, y);
        cr_assert_float_eq(x, y, 2, "%s: %.1f %% then %.1f %%", json_string_value(json_object_get(run_i(a, i), "mitigation")),
                           x, y);
    }
    double bess = vs(a, 3, "swing_reduction_pct");
    cr_assert_float_eq(bess, 0, 3, "a battery leaves the node's own swing as it was: %.1f %%", bess);
    json_decref(a);
    json_decref(b);
}

/* The 100 ms ramp of the aggregate live, and of the same ticks as power.csv holds them analysed as `summarize` does
 * (analyze_window over the record, on the run's grid): *live and *rec. The aggregate of two ranks is a 100 ms square
 * wave, 20 ticks at 5 ms, so that it rises nowhere over 100 ms; every tick on time, 400 ns past a microsecond of the
 * record's clock, but the one at the rising edge (tick 50): 2.5 ms - 100 ns after the one before, by its nanoseconds
 * nearer that one's point (onto it, its own point a gap), by the record's microseconds (both written early, it by
 * 300 ns, the first tick by 400) exactly midway, on its own point. */
static void edge_tick_ramps(double *live, double *rec)
{
    struct scenario sc;
    char err[512], tmpl[] = "/tmp/gauntlet-edge-XXXXXX", dir[64], path[96];
    cr_assert_eq(scenario_load_string("name: edge\nranks: 2\niterations: 10\npower: {sample_hz: 200}\n"
                                      "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n", "edge.yaml",
                                      &sc, err, sizeof err), 0, "%s", err);
    cr_assert(mkdtemp(tmpl));
    snprintf(dir, sizeof dir, "%s/run", tmpl);
    const uint64_t t0 = 5000000000ull, begin = t0 + 1000000400ull;
    struct results res;
    cr_assert_eq(results_open(&res, dir, &sc, t0, err, sizeof err), 0, "%s", err);
    struct run_stats rs;
    runstats_init(&rs, 0, 2, 10, begin, 200, 0);
    rs.stamp_t0_ns = t0;   /* as the run sets it: the record's t_s = 0 */
    rs.warm_ns = begin;    /* no warm-up: every tick analysed */
    for (int i = 0; i < 400; i++) {
        uint64_t t = begin + (uint64_t)i * 5000000ull - (i == 50 ? 2500100ull : 0);
        double w[2];
        for (int r = 0; r < 2; r++) {
            w[r] = (i / 10) % 2 ? 700 : 200;   /* high from tick 10, 30, 50 ... */
            struct power_reading pr = POWER_READING_NONE;
            pr.watts = w[r];
            cr_assert_eq(results_power(&res, t, r, &pr, PH_COMPUTE), 0);
        }
        runstats_power(&rs, t, w, NULL, NULL, NULL);
        cr_assert_eq(results_flush(&res), 0);
    }
    results_close(&res);
    json_t *run = runstats_json(&rs, &sc, "none", 2, NAN);
    *live = json_number_value(json_object_get(json_object_get(json_object_get(json_object_get(run, "power"),
                                                                              "aggregate"), "ramp_up_w_s"), "100ms"));
    json_decref(run);
    runstats_free(&rs);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    char *csv = e2e_read(path);
    cr_assert(csv && strstr(csv, "\n1.247500,0,700.00,"), "tick 50 at the record's microsecond:\n%.300s", csv ? csv : "");
    free(csv);
    struct az_opts ao = { .json = 1, .gpus = 10000, .groups = 1, .max_w = 4000, .hz = 200, .hz_run = 1 };
    int rc = 0;
    struct az_trace *tr = analyze_load_rows(&ao, path, &rc);
    cr_assert_not_null(tr, "exit %d", rc);
    json_t *pw = NULL;
    cr_assert_eq(analyze_window(&ao, tr, "edge", INT64_MIN, INT64_MAX, &pw), 0);
    *rec = json_number_value(json_object_get(json_object_get(json_object_get(pw, "aggregate"), "ramp_up_w_s"), "100ms"));
    json_decref(pw);
    analyze_free(tr);
}

/* A tick is placed on the grid where power.csv records it (its microsecond), live as `summarize` places it from the
 * record: both read the same figure, the right one. Until 2026-11-30 the run placed a tick by its nanoseconds and the
 * rebuild by the record's microseconds; a tick within a microsecond of the middle between two grid points (a sampler
 * late by half a step, common on a busy machine) went to neighbouring points, and where it sat at a phase's edge the
 * two 100 ms ramps differed by the whole edge (here 10,000 W/s live, 0 from the record; in a test on a loaded machine
 * 1720.9 W/s live, 2355.1 W/s rebuilt). */
Test(power_runs, a_tick_is_placed_on_the_grid_where_power_csv_records_it, .timeout = 60)
{
    double live, rec;
    edge_tick_ramps(&live, &rec);
    cr_expect(fabs(live - rec) <= 1, "100 ms ramp: live %.1f W/s, from the record %.1f W/s", live, rec);
    cr_expect(live >= 0 && live <= 1, "the wave rises nowhere over 100 ms with every tick on its own point: %.1f W/s", live);
}

/* One stretch for every figure of a run: the power analysis, the trace its run_end names (analysed_s, what the
 * cluster's sum and `summarize` take) and the warm-up the throughput and energy start at, whatever the run's length
 * against its settling. Until 2026-12-01 the power analysis fell back to the whole run where fewer than 16 ticks
 * came after the settling, but the trace did not: a short run on a loaded machine said analysed_s 4 ms long while its
 * power figures spanned 222 ms from the run's start, and `summarize` rebuilt other figures from the record. */
Test(power_runs, every_figure_of_a_run_takes_one_stretch, .timeout = 60)
{
    struct scenario sc;
    char err[512];
    cr_assert_eq(scenario_load_string("name: stretch\nranks: 2\niterations: 4\npower: {sample_hz: 100}\n"
                                      "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n",
                                      "stretch.yaml", &sc, err, sizeof err), 0, "%s", err);
    const uint64_t t0 = 7000000000ull, period = 50000000ull;
    int cases = 0;
    for (int hz = 100; hz <= 200; hz += 100)   /* the idle 150 ms after the run: 15 ticks, then 30 */
    for (int iters = 1; iters <= 12; iters++)
        for (int settle_ms = 0; settle_ms <= 700; settle_ms += 35) {
            struct run_stats rs;
            const uint64_t tick = 1000000000ull / (uint64_t)hz;
            sc.power.sample_hz = hz;
            runstats_init(&rs, 0, 2, iters, t0, hz, settle_ms * 1e-3);
            uint64_t end = t0 + 20000000ull + (uint64_t)iters * period;   /* 20 ms before the first iteration */
            for (uint64_t t = t0 + 3000000ull; t < end + 150000000ull; t += tick) {   /* and idle 150 ms after */
                for (int i = 0; i < iters; i++) {
                    uint64_t at = t0 + 20000000ull + (uint64_t)(i + 1) * period;
                    for (int r = 0; at > t - tick && at <= t && r < 2; r++) {
                        struct wevent ev = { .type = WEV_ITER, .rank = r, .iter = i, .t_ns = at, .a = 0.05 };
                        runstats_event(&rs, &ev);
                        if (i == iters - 1) {
                            struct wevent d = { .type = WEV_RUN_DONE, .rank = r, .iter = i, .t_ns = at };
                            runstats_event(&rs, &d);
                        }
                    }
                }
                double w[2] = { 300 + 400 * ((t / period) % 2), 310 + 400 * ((t / period) % 2) };
                runstats_power(&rs, t, w, NULL, NULL, NULL);
            }
            json_t *run = runstats_json(&rs, &sc, "none", 2, NAN);
            struct rs_trace *tr = runstats_trace(&rs);
            json_t *agg = json_object_get(json_object_get(run, "power"), "aggregate");
            cr_assert_not_null(tr, "%d iterations, settle %d ms: a trace", iters, settle_ms);
            double from = tr->t_s[0], to = tr->t_s[tr->n - 1], warm = num(run, "warmup_s");
            int unsettled = json_is_true(json_object_get(run, "unsettled"));
            cr_expect_eq(json_integer_value(json_object_get(agg, "samples")), (json_int_t)tr->n,
                         "%d iterations, settle %d ms: the power analysed %lld samples, the trace holds %zu", iters,
                         settle_ms, (long long)json_integer_value(json_object_get(agg, "samples")), tr->n);
            cr_expect(fabs(num(agg, "span_s") - (to - from)) < 1e-6, "%d iterations, settle %d ms: span %.3f s, trace %.3f s",
                      iters, settle_ms, num(agg, "span_s"), to - from);
            cr_expect(json_is_number(json_object_get(run, "warmup_s")) && warm <= from + 1e-9 && from - warm < 0.0101,
                      "%d iterations, settle %d ms: the stretch begins at the first tick past the warm-up (%.3f s), "
                      "not at %.3f s", iters, settle_ms, warm, from);
            double due = fmax(settle_ms * 1e-3, 0.07);   /* the first iteration end past the settling, or later */
            cr_expect(unsettled == (warm < due - 1e-9), "%d iterations, settle %d ms: warm-up %.3f s, unsettled %d",
                      iters, settle_ms, warm, unsettled);
            double last = 0.02 + iters * 0.05;   /* the run's last iteration end: the idle drop after it is no run's */
            cr_expect(to <= last + 1e-9 || from < 0.004, "%d iterations, settle %d ms, %d Hz: the stretch %.3f to %.3f s "
                      "runs past the run's end (%.3f s) without taking the whole run", iters, settle_ms, hz, from, to,
                      last);
            cr_expect(tr->n >= RS_STRETCH_MIN || from < 0.004, "%d iterations, settle %d ms, %d Hz: %zu ticks from %.3f s",
                      iters, settle_ms, hz, tr->n, from);
            double span = num(json_object_get(run, "energy"), "span_s");
            cr_expect(fabs(span - ((double)(rs.t_end - t0) * 1e-9 - warm)) < 1e-9,
                      "%d iterations, settle %d ms: energy over %.3f s from the warm-up", iters, settle_ms, span);
            rs_trace_free(tr);
            json_decref(run);
            runstats_free(&rs);
            cases++;
        }
    cr_expect_eq(cases, 2 * 12 * 21);
    /* not sampled (power.sample_hz 0: no ticks): a run that settled keeps its warm-up, and is not unsettled */
    struct run_stats rs;
    sc.power.sample_hz = 0;
    runstats_init(&rs, 0, 2, 10, t0, 0, 0.2);
    for (int i = 0; i < 10; i++)
        for (int r = 0; r < 2; r++) {
            uint64_t at = t0 + 20000000ull + (uint64_t)(i + 1) * period;
            struct wevent ev = { .type = WEV_ITER, .rank = r, .iter = i, .t_ns = at, .a = 0.05 };
            runstats_event(&rs, &ev);
            struct wevent d = { .type = WEV_RUN_DONE, .rank = r, .iter = i, .t_ns = at };
            if (i == 9)
                runstats_event(&rs, &d);
        }
    json_t *run = runstats_json(&rs, &sc, "none", 2, NAN);
    cr_expect(!json_is_true(json_object_get(run, "unsettled")), "a run not sampled that settled is not unsettled");
    cr_expect(fabs(num(run, "warmup_s") - 0.22) < 1e-9, "its warm-up: the first iteration end past 200 ms, %.3f s",
              num(run, "warmup_s"));
    json_decref(run);
    runstats_free(&rs);
}

/* A facility battery's spec verdict is the grid's, behind its battery: the run gives it so (spec_side); a summary
 * rebuilt by `summarize`, which does not model the battery, gives none (spec null, spec_side saying why) where it
 * gave the GPUs' side's verdict as if the grid's (until 2026-12-02), while none's verdict is rebuilt as the run gave
 * it. */
Test(power_runs, a_rebuilt_battery_run_gives_no_spec_verdict_of_the_wrong_side, .timeout = 120)
{
    const char *out = e2e_outdir();
    json_t *live = run_into("name: grid\niterations: 10\n" BASE "power: {sample_hz: 500}\n"
                            "mitigations: [none, {bess: {capacity_mwh: 10, power_mw: 20, window: 2s}}]\n", out);
    json_t *lb = json_object_get(json_object_get(json_object_get(run_i(live, 1), "power"), "aggregate"), "projection");
    cr_assert(json_is_object(json_object_get(lb, "spec")), "the run judged the grid: %s", json_dumps(lb, JSON_COMPACT));
    char path[1200], log[1200];
    snprintf(path, sizeof path, "%s/summary.json", out);
    cr_assert_eq(unlink(path), 0);
    snprintf(log, sizeof log, "%s.summarize.log", out);
    cr_assert_eq(e2e_run(log, (const char *[]){ "summarize", out, NULL }), 0, "%s", e2e_read(log));
    json_t *re = e2e_summary(out);
    json_t *none = json_object_get(json_object_get(json_object_get(run_i(re, 0), "power"), "aggregate"), "projection");
    json_t *rb = json_object_get(json_object_get(json_object_get(run_i(re, 1), "power"), "aggregate"), "projection");
    cr_assert_str_eq(json_string_value(json_object_get(run_i(re, 1), "mitigation")), "bess");
    cr_expect(json_is_object(json_object_get(none, "spec")), "none's verdict: %s", json_dumps(none, JSON_COMPACT));
    cr_expect(json_is_object(rb) && json_is_null(json_object_get(rb, "spec")), "%s", json_dumps(rb, JSON_COMPACT));
    cr_expect(strstr(json_string_value(json_object_get(rb, "spec_side")) ?: "", "not judged"), "%s",
              json_dumps(rb, JSON_COMPACT));
    json_decref(live);
    json_decref(re);
}

/* A rank whose snapshot failed sends no hash (0): the run's state fingerprint and whether the ranks agree are not
 * known (null), never a fingerprint of 0, nor an agreement of ranks that all failed (until 2026-12-02); with every
 * rank's hash they are the first kept rank's and their comparison. */
Test(power_runs, a_failed_snapshot_leaves_the_state_fingerprint_unknown, .timeout = 30)
{
    struct scenario sc;
    char err[512];
    cr_assert_eq(scenario_load_string("name: fp\nranks: 2\niterations: 1\npower: {sample_hz: 0}\n"
                                      "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n",
                                      "fp.yaml", &sc, err, sizeof err), 0, "%s", err);
    static const double hash[3][2][2] = { { { 1, 2 }, { 0, 0 } }, { { 0, 0 }, { 0, 0 } }, { { 1, 2 }, { 1, 2 } } };
    for (int c = 0; c < 3; c++) {
        struct run_stats rs;
        runstats_init(&rs, 0, 2, 1, 1000000000ull, 0, 0);
        for (int r = 0; r < 2; r++) {
            struct wevent it = { .type = WEV_ITER, .rank = r, .iter = 0, .t_ns = 1100000000ull, .a = 0.05 };
            runstats_event(&rs, &it);
            struct wevent d = { .type = WEV_RUN_DONE, .rank = r, .iter = 0, .t_ns = 1100000000ull, .a = hash[c][r][0],
                                .b = hash[c][r][1] };
            runstats_event(&rs, &d);
        }
        json_t *run = runstats_json(&rs, &sc, "none", 2, NAN);
        json_t *fp = json_object_get(run, "state_fingerprint"), *agree = json_object_get(run, "fingerprints_agree");
        if (c < 2)
            cr_expect(json_is_null(fp) && json_is_null(agree), "case %d: %s / %s", c, json_dumps(fp, JSON_ENCODE_ANY),
                      json_dumps(agree, JSON_ENCODE_ANY));
        else
            cr_expect(json_is_true(agree) && !strcmp(json_string_value(fp) ?: "", "0000000100000002"), "%s",
                      json_dumps(fp, JSON_ENCODE_ANY));
        json_decref(run);
        runstats_free(&rs);
    }
}
