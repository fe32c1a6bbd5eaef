/* tests/test_cuda_mitigations.c: the software mitigations acting on this machine's GPU, judged by issue 28's figures
 * on communication phases of >= 500 ms (tests/scenarios/gpu/mitigations.yaml, 30 iterations per mitigation): the
 * filler at 80 % holds the median communication-phase power at >= 0.95 x the floor asked (its levels tuned on the
 * GPU: the mitigation_tuned event) and removes >= 50 % of none's swing at <= 3 % time; the ramp costs <= 5 % time and
 * does not raise the swing; smoothing (the emulation: no device setting here) never raises it. "Raises" is more
 * than 5 % above none's swing, the summary's own warning (docs/results.md, vs_none.warning). `cap` is refused
 * without --allow-device-settings (tests/scenarios/gpu/cap.yaml). A stagger whose delay is past heartbeat.timeout
 * beats through it (two GPUs: rank 0 is never delayed). No device setting is changed here. Without a usable GPU
 * every test skips, saying why. */
#include <criterion/criterion.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

static json_t *run_of(json_t *s, int i) { return json_array_get(json_object_get(s, "runs"), (size_t)i); }

/* Returns power.aggregate.key of a run (NAN when missing). */
static double agg(json_t *run, const char *key)
{
    json_t *v = json_object_get(json_object_get(json_object_get(run, "power"), "aggregate"), key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Returns vs_none.key of a run (NAN when missing). */
static double vs(json_t *run, const char *key)
{
    json_t *v = json_object_get(json_object_get(run, "vs_none"), key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Returns the run's iteration_s.p50 (NAN when missing). */
static double p50(json_t *run)
{
    json_t *v = json_object_get(json_object_get(run, "iteration_s"), "p50");
    return json_is_number(v) ? json_number_value(v) : NAN;
}

Test(cuda_mitigations, filler_ramp_and_emulated_smoothing_meet_issue_28, .timeout = 300)
{
    e2e_need_gpu();
    const char *sc = e2e_gpu_scenario("mitigations.yaml"), *out = e2e_outdir();
    int rc = e2e_run(e2e_log("cuda-mit.log"), (const char *[]){ "run", sc, "--backend", "cuda", "--headless", "--out",
                                                                      out, NULL });
    e2e_keep(out, "mitigations.yaml");
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("cuda-mit.log"));
    json_t *s = e2e_summary(out);
    json_t *none = run_of(s, 0), *fill = run_of(s, 1), *ramp = run_of(s, 2), *smooth = run_of(s, 3);
    cr_assert_str_eq(json_string_value(json_object_get(fill, "mitigation")), "filler");
    int tuned = e2e_count_events(out, "mitigation_tuned");
    cr_log_info("mitigation_tuned events: %d (want >= 1: the filler measured its levels on the GPU)", tuned);
    cr_assert_geq(tuned, 1, "the filler measured its levels on the GPU: %d mitigation_tuned events", tuned);

    double sw0 = agg(none, "swing_w"), t0 = p50(none);
    cr_log_info("none: swing %.0f W (p1 %.0f, p99 %.0f), iteration p50 %.4f s", sw0, agg(none, "p1_w"),
                agg(none, "p99_w"), t0);
    cr_assert(sw0 > 100 && t0 > 0, "none shows no swing to act on: %.0f W, p50 %g s", sw0, t0);

    /* the filler: the communication phases held at the floor, half the swing gone, little time paid */
    int n = 0;
    double comm = e2e_phase_median_w(out, 1, "comm", &n), asked = vs(fill, "floor_asked_w");
    double sw1 = agg(fill, "swing_w"), t1 = p50(fill);
    cr_log_info("filler 80%%: median communication power %.0f W over %d samples, want >= 0.95 x %.0f W asked = %.0f W "
                "(floor_reached_w, the mean p1: %.0f W)", comm, n, asked, 0.95 * asked, vs(fill, "floor_reached_w"));
    cr_assert(comm >= 0.95 * asked, "filler: median communication power %.0f W < 0.95 x the floor asked %.0f W", comm,
              asked);
    double sh[128];   /* the limiter's dip after compute, as the filler learns it (a figure to read, not judged) */
    char all[700], path[512];
    int ng = e2e_gap_shortfalls(out, 1, asked, sh, 128), at = 0;
    for (int g = 0; g < ng && at < 650; g++)
        at += snprintf(all + at, sizeof all - (size_t)at, " %.0f", sh[g]);
    cr_log_info("filler 80%%: the floor's shortfall over the first 120 ms of each gap, W (learned from the first on):%s",
                all);
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    for (const char *p = ev ? strstr(ev, "\"levels\":\"learned") : NULL; p; p = strstr(p + 1, "\"levels\":\"learned"))
        cr_log_info("filler: %.*s", (int)strcspn(p + 10, "\""), p + 10);
    free(ev);
    cr_log_info("filler 80%%: a filler holding its floor exactly from the gap's first ms would remove %.1f %% "
                "((floor - none's p1) / none's swing; none's p99 is the compute phase's burst above the power limit, "
                "which no work in the gaps lowers)", 100 * (asked - agg(none, "p1_w")) / sw0);
    cr_log_info("filler 80%%: swing %.0f W, want <= 0.5 x none's %.0f W = %.0f W (%.1f %% removed)", sw1, sw0, 0.5 * sw0,
                vs(fill, "swing_reduction_pct"));
    cr_assert_leq(sw1, 0.5 * sw0, "filler: swing %.0f W, more than half of none's %.0f W", sw1, sw0);
    cr_log_info("filler 80%%: iteration p50 %.4f s, want <= 1.03 x none's %.4f s (%+.2f %%)", t1, t0, 100 * (t1 / t0 - 1));
    cr_assert_leq(t1, 1.03 * t0, "filler: iteration p50 %.4f s, more than 3 %% above none's %.4f s", t1, t0);

    /* the ramp: a limited rate costs little time and makes nothing worse */
    double sw2 = agg(ramp, "swing_w"), t2 = p50(ramp);
    cr_log_info("ramp: iteration p50 %.4f s, want <= 1.05 x none's %.4f s (%+.2f %%)", t2, t0, 100 * (t2 / t0 - 1));
    cr_assert_leq(t2, 1.05 * t0, "ramp: iteration p50 %.4f s, more than 5 %% above none's %.4f s", t2, t0);
    cr_log_info("ramp: swing %.0f W, want <= 1.05 x none's %.0f W = %.0f W", sw2, sw0, 1.05 * sw0);
    cr_assert_leq(sw2, 1.05 * sw0, "ramp raised the swing: %.0f W vs none's %.0f W", sw2, sw0);

    /* smoothing, emulated: never raises the swing */
    double sw3 = agg(smooth, "swing_w");
    cr_log_info("smoothing (emulated): swing %.0f W, want <= 1.05 x none's %.0f W = %.0f W; iteration p50 %.4f s "
                "(%+.2f %%)", sw3, sw0, 1.05 * sw0, p50(smooth), 100 * (p50(smooth) / t0 - 1));
    cr_assert_leq(sw3, 1.05 * sw0, "smoothing raised the swing: %.0f W vs none's %.0f W", sw3, sw0);
    json_t *dev = json_object_get(smooth, "device");
    cr_assert_str_eq(json_string_value(json_object_get(dev, "smoothing")), "emulated", "no --allow-device-settings here");
    json_decref(s);
}

Test(cuda_mitigations, cap_needs_allow_device_settings, .timeout = 60)
{
    e2e_need_gpu();
    const char *sc = e2e_gpu_scenario("cap.yaml");
    int rc = e2e_run(e2e_log("cuda-cap.log"), (const char *[]){ "run", sc, "--backend", "cuda", "--headless", "--out",
                                                                      e2e_outdir(), NULL });
    char *log = e2e_read(e2e_log("cuda-cap.log"));
    cr_assert_eq(rc, 2, "exit %d\n%s", rc, log);
    cr_assert(strstr(log, sc) && strstr(log, ": mitigation 'cap' changes the GPUs' power limit: run with "
                                             "--allow-device-settings"), "%s", log);
    free(log);
}

/* A stagger's delay past heartbeat.timeout is no hang: rank 1 waits 1.5 s before each compute phase with a 1 s
 * timeout, beating meanwhile (until 2026-11-30 a plain sleep: the heartbeat detector stopped the run as a hang). */
Test(cuda_mitigations, a_stagger_longer_than_the_heartbeat_timeout_is_no_hang, .timeout = 180)
{
    e2e_need_gpu();
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 2)
        cr_skip_test("a stagger delays rank 1 only: it needs 2 GPUs, this machine has %d", gpus);
    const char *sc = e2e_scenario("name: gpu-stagger-beats\nranks: 2\niterations: 4\nseed: 5\n"
                                  "workload:\n  gemm: { m: 4096, n: 4096, k: 4096, dtype: bf16, count: 8 }\n"
                                  "  allreduce: { bytes: 64MiB }\n"
                                  "heartbeat: { interval: 100ms, timeout: 1s }\n"
                                  "mitigations:\n  - none\n  - stagger: { groups: 2, offset: 1500ms }\n");
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("cuda-stagger.log"), (const char *[]){ "run", sc, "--backend", "cuda", "--headless",
                                                                          "--out", out, NULL });
    e2e_keep(out, "stagger-beats.yaml");
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("cuda-stagger.log"));
    int hangs = e2e_count_events(out, "hang");
    cr_assert_eq(hangs, 0, "%d hang events: the stagger's wait did not beat", hangs);
    json_t *s = e2e_summary(out), *st = run_of(s, 1);
    cr_assert_str_eq(json_string_value(json_object_get(st, "mitigation")), "stagger");
    cr_log_info("stagger 2 x 1.5 s: iteration p50 %.3f s (none's %.3f s)", p50(st), p50(run_of(s, 0)));
    cr_assert_geq(p50(st), 1.5, "the delay was not waited: iteration p50 %.3f s", p50(st));
    json_decref(s);
}
