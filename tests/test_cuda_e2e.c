/* tests/test_cuda_e2e.c: the real NVML and a one-rank cuda run end to end, on this machine's GPU; each run's
 * scenario is a file of tests/scenarios/gpu/ (tests/test_gpu_scenarios.c checks them where no GPU is), or text here
 * for the runs of several shapes and of two ranks. Without a usable GPU every test here skips, saying why; the
 * two-rank runs skip with fewer than 2 GPUs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "backend.h"
#include "e2e.h"
#include "nvml.h"
#include "util.h"

Test(nvml_gpu, plausible_watts_and_a_rising_energy_counter, .timeout = 30)
{
    e2e_need_gpu();
    char why[256];
    struct nvml *nv = nvml_open(why, sizeof why);
    cr_assert(nv, "a GPU is usable but NVML is not: %s", why);
    cr_assert_gt(nvml_device_count(nv), 0);
    struct gpu_sample a, b;
    cr_assert_eq(nvml_sample(nv, 0, &a), 0);
    sleep_ns(500000000);   /* the counter updates every ~100 ms on an H100 */
    cr_assert_eq(nvml_sample(nv, 0, &b), 0);
    cr_assert(a.valid & GPU_VALID(GPU_F_POWER_INSTANT), "no instantaneous power: %s", nvml_missing(nv));
    cr_log_info("NVML instantaneous power %.1f W (want 20-2000 W)", a.power_instant_w);
    cr_assert(a.power_instant_w > 20 && a.power_instant_w < 2000, "instantaneous power %.1f W, outside 20-2000 W",
              a.power_instant_w);
    cr_assert(b.valid & GPU_VALID(GPU_F_ENERGY), "no energy counter: %s", nvml_missing(nv));
    cr_log_info("NVML energy counter %llu -> %llu mJ in 0.5 s (want a rise)", (unsigned long long)a.energy_mj,
                (unsigned long long)b.energy_mj);
    cr_assert_gt(b.energy_mj, a.energy_mj, "the energy counter did not rise in 0.5 s: %llu -> %llu mJ",
                 (unsigned long long)a.energy_mj, (unsigned long long)b.energy_mj);
    double w = nvml_energy_watts(&a, &b);
    cr_log_info("power from the energy counter %.1f W (want 20-2000 W)", w);
    cr_assert(w > 20 && w < 2000, "power from the energy counter %.1f W, outside 20-2000 W", w);
    nvml_close(nv);
}

Test(cuda_run, one_rank_shows_the_compute_comm_swing, .timeout = 120)
{
    e2e_need_gpu();
    const char *sc = e2e_gpu_scenario("e2e-swing.yaml"), *out = e2e_outdir();
    int rc = e2e_run(e2e_log("cuda-e2e.log"), (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("cuda-e2e.log"));
    json_t *s = e2e_summary(out);
    json_t *r = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert_eq(json_integer_value(json_object_get(r, "iterations")), 4);
    double tflops = json_number_value(json_object_get(r, "tflops"));
    cr_log_info("bf16 8192^3 GEMM chain: %.1f TFLOP/s (want > 100)", tflops);
    cr_assert_gt(tflops, 100, "a bf16 GEMM chain at %.1f TFLOP/s, below 100", tflops);
    json_decref(s);
    int nc = 0, nm = 0;
    double compute = e2e_phase_median_w(out, 0, "compute", &nc), comm = e2e_phase_median_w(out, 0, "comm", &nm);
    cr_log_info("median power: compute %.0f W (%d samples), communication %.0f W (%d samples); want compute > comm + "
                "100 W", compute, nc, comm, nm);
    cr_assert(nc > 10 && nm > 10, "too few samples: %d compute, %d communication", nc, nm);
    cr_assert_gt(compute, comm + 100, "compute %.0f W vs comm %.0f W: no swing", compute, comm);
    cr_assert_eq(e2e_count_events(out, "phase_begin"), 8);
}

Test(cuda_run, faults_detected_and_recovered_on_the_gpu, .timeout = 180)
{
    e2e_need_gpu();
    const char *sc = e2e_gpu_scenario("e2e-faults.yaml"), *out = e2e_outdir();
    int rc = e2e_run(e2e_log("cuda-faults.log"), (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("cuda-faults.log"));
    json_t *s = e2e_summary(out);
    json_t *faults = json_object_get(s, "faults");
    cr_assert_eq(json_array_size(faults), 2, "%zu faults in the summary, 2 injected", json_array_size(faults));
    json_t *flip = json_array_get(faults, 0), *crash = json_array_get(faults, 1);
    cr_assert_str_eq(json_string_value(json_object_get(flip, "detected_by")), "abft");
    cr_assert_str_eq(json_string_value(json_object_get(crash, "detected_by")), "exit");
    cr_assert(json_is_number(json_object_get(flip, "recover_s")) && json_is_number(json_object_get(crash, "recover_s")));
    /* what abft weighs the flip against, as on sim (until 2026-11-30 null on cuda): its column's norm, read back */
    double scale = json_number_value(json_object_get(flip, "scale"));
    cr_log_info("gemm-output flip: scale %g (want > 0: D's column norm over 4094 rows of ~sqrt(4096) each)", scale);
    cr_assert(json_is_number(json_object_get(flip, "scale")) && scale > 0, "%s", json_dumps(flip, JSON_COMPACT));
    json_t *r = json_array_get(json_object_get(s, "runs"), 0);
    cr_log_info("GPU fault figures: %s", json_dumps(faults, JSON_COMPACT));
    cr_log_info("GPU detector cost: %s", json_dumps(json_object_get(json_object_get(r, "faults"), "detector_cost"), JSON_COMPACT));
    cr_assert(json_is_true(json_object_get(r, "complete")));
    /* each detector's device work is enqueued work, timed by events on its stream recorded before the host waits:
     * never longer than the rank's wait for it (an end event recorded after the wait, as until 2026-11-29, could be) */
    json_t *cost = json_object_get(json_object_get(r, "faults"), "detector_cost");
    const char *dets[] = { "abft", "fingerprint", "replay" };
    for (size_t i = 0; i < sizeof dets / sizeof dets[0]; i++) {
        json_t *c = json_object_get(cost, dets[i]);
        double dev = json_number_value(json_object_get(c, "device_s_per_iter")),
               wait = json_number_value(json_object_get(c, "per_iter_s"));
        cr_expect(dev > 0 && dev <= wait * 1.05, "%s: device %g s per iteration, the rank's wait %g s", dets[i], dev,
                  wait);
    }
    json_int_t fp = json_integer_value(json_object_get(json_object_get(r, "faults"), "false_positives"));
    cr_log_info("false positives: %lld (want 0)", (long long)fp);
    cr_assert_eq(fp, 0, "%lld false positives", (long long)fp);
    json_decref(s);
}

/* Counts the phase_begin events of phase in dir's events.jsonl. */
static int phase_begins(const char *dir, const char *phase)
{
    char path[512], want[64];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    snprintf(want, sizeof want, "\"phase\":\"%s\"", phase);
    char *ev = e2e_read(path);
    int n = 0;
    char *save = NULL;
    for (char *line = ev ? strtok_r(ev, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
        n += strstr(line, "\"event\":\"phase_begin\"") && strstr(line, want);
    free(ev);
    return n;
}

Test(cuda_run, every_step_kind_of_phases_runs_with_overlap, .timeout = 180)
{
    e2e_need_gpu();
    const char *sc = e2e_gpu_scenario("e2e-phases.yaml"), *out = e2e_outdir();
    int rc = e2e_run(e2e_log("cuda-phases.log"), (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("cuda-phases.log"));
    json_t *s = e2e_summary(out);
    json_t *r = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert_eq(json_integer_value(json_object_get(r, "iterations")), 4);
    double tflops = json_number_value(json_object_get(r, "tflops"));
    cr_log_info("GPU phases: iteration p50 %g s, %.1f TFLOP/s (want > 100), busbw %g GB/s",
                json_number_value(json_object_get(json_object_get(r, "iteration_s"), "p50")), tflops,
                json_number_value(json_object_get(r, "busbw_gbs")));
    cr_assert_gt(tflops, 100, "the GEMM steps at %.1f TFLOP/s, below 100", tflops);
    json_t *fr = json_object_get(r, "faults");   /* the hash beside the steps, the exchange ordered after it */
    cr_assert(json_is_true(json_object_get(r, "complete")));
    cr_assert_eq(json_integer_value(json_object_get(fr, "false_positives")), 0, "%s", json_dumps(fr, JSON_COMPACT));
    json_t *fpc = json_object_get(json_object_get(fr, "detector_cost"), "fingerprint");
    cr_assert(fpc, "%s", json_dumps(fr, JSON_COMPACT));
    /* its span beside the steps over the iteration: the async hash's cost bounded from above in every run */
    cr_assert(json_is_number(json_object_get(fpc, "beside_share")), "%s", json_dumps(fpc, JSON_COMPACT));
    cr_log_info("async fingerprint beside the steps: %s", json_dumps(fpc, JSON_COMPACT));
    json_decref(s);
    cr_assert_eq(phase_begins(out, "compute"), 4 * 3);
    cr_assert_eq(phase_begins(out, "optimizer"), 4);
    cr_assert_eq(phase_begins(out, "idle"), 4);
    cr_assert_geq(phase_begins(out, "comm"), 4 * 3, "reduce_scatter, all_to_all, send_recv (and exposed waits)");
    cr_assert_eq(e2e_count_events(out, "gemm_algo"), 2, "each distinct GEMM shape's tuning (8192^3 and 4096x8192x4096)");
}

/* Runs a replay scenario of tests/scenarios/gpu on the GPU and returns its fidelity's correlation (logged). */
static double replay_correlation(const char *file, const char *what)
{
    /* the trace's path in the file is the source tree's (tests/scenarios/gpu/): run from there */
    cr_assert_eq(chdir(e2e_src()), 0, "%s", e2e_src());
    const char *sc = e2e_gpu_scenario(file), *out = e2e_outdir();
    int rc = e2e_run(e2e_log("cuda-replay.log"), (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    e2e_keep(out, file);
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("cuda-replay.log"));
    json_t *s = e2e_summary(out);
    json_t *fit = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"),
                                                  "aggregate"), "replay");
    cr_assert(json_is_object(fit), "no replay fidelity");
    double corr = json_number_value(json_object_get(fit, "correlation"));
    cr_log_info("GPU replay of %s: correlation %g (want >= 0.9), rms %g W, band shares within %g points", what, corr,
                json_number_value(json_object_get(fit, "rms_error_w")),
                json_number_value(json_object_get(fit, "band_share_max_diff_points")));
    char *all = json_dumps(fit, JSON_COMPACT | JSON_REAL_PRECISION(6));
    cr_log_info("the fidelity in full: %s", all ? all : "?");
    free(all);
    json_decref(s);
    return corr;
}

Test(cuda_run, replay_follows_a_slow_trace_with_the_filler, .timeout = 120)
{
    e2e_need_gpu();
    double corr = replay_correlation("e2e-replay.yaml", "a 1 Hz square wave");
    cr_assert_geq(corr, 0.9, "the GPU's power does not follow a 1 Hz square wave (correlation %g)", corr);
}

Test(cuda_run, replay_follows_an_irregular_trace, .timeout = 120)
{
    e2e_need_gpu();
    double corr = replay_correlation("e2e-replay-irregular.yaml", "an irregular trace (bubbles, a data stall)");
    cr_assert_geq(corr, 0.9, "the GPU's power does not follow an irregular trace (correlation %g)", corr);
}

/* Runs text on cuda into a new folder (its log at log), wants exit want; the summary. */
static json_t *run_text(const char *text, const char *log, int want)
{
    const char *out = e2e_outdir();
    int rc = e2e_run(log, (const char *[]){ "run", e2e_scenario(text), "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, want, "exit %d (want %d), see %s", rc, want, log);
    return e2e_summary(out);
}

/* With several workload.shapes, abft checks and gemm-output corrupts the output of the chain the run executes: the
 * flip in each shape's run is caught by abft in its iteration, once, and nothing else is (until 2026-11-30 the other
 * shapes' runs checked and corrupted the first shape's chain, which they never ran: a stale output, a flip it
 * carried seen again at every later check). */
Test(cuda_run, each_shape_checks_the_gemms_it_runs, .timeout = 180)
{
    e2e_need_gpu();
    json_t *s = run_text("name: gpu-shapes-abft\nranks: 1\niterations: 6\nworkload:\n  shapes: [dp-overlap, moe]\n"
                         "  checkpoint: { every: 2, bytes: 16MiB, path: @TMPDIR@ }\n"
                         "heartbeat: { timeout: 30s }\n"
                         "faults:\n  - { kind: bitflip, at: 3, rank: 0, target: gemm-output, where: value, value: 1000 }\n"
                         "detectors: [abft]\nrecovery: restart\n",
                         e2e_log("cuda-shapes.log"), 0);
    json_t *faults = json_object_get(s, "faults");
    cr_log_info("faults: %s", json_dumps(faults, JSON_COMPACT));
    cr_assert_eq(json_array_size(faults), 2, "one flip in each shape's run, nothing observed: %zu faults",
                 json_array_size(faults));
    for (size_t i = 0; i < 2; i++) {
        json_t *f = json_array_get(faults, i);
        cr_assert_eq(json_integer_value(json_object_get(f, "run")), (json_int_t)i);
        cr_assert_str_eq(json_string_value(json_object_get(f, "origin")), "injected");
        cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "abft", "run %zu's flip", i);
        cr_assert_eq(json_integer_value(json_object_get(f, "detect_iters")), 0, "run %zu's flip", i);
        json_t *r = json_array_get(json_object_get(s, "runs"), i);
        cr_assert(json_is_true(json_object_get(r, "complete")), "run %zu", i);
        /* sdc_checks across the restart, as on sim (tests/test_faults.c): the killed process verified 0..3 (3 is
         * its detection), the new one from..5 */
        const char *outcome = json_string_value(json_object_get(f, "outcome"));
        long long from = -1;
        cr_assert(outcome && sscanf(outcome, "recovered by restart from iteration %lld", &from) == 1, "run %zu: %s", i,
                  outcome ? outcome : "(no outcome)");
        json_t *rk = json_array_get(json_object_get(r, "ranks"), 0);
        json_t *n = json_object_get(json_object_get(rk, "sdc_checks"), "abft");
        cr_assert(json_is_integer(n), "run %zu: no runs[].ranks[0].sdc_checks.abft", i);
        cr_assert_eq(json_integer_value(n), 4 + 6 - from, "run %zu, restored from %lld: abft %lld outputs, not %lld", i,
                     from, (long long)json_integer_value(n), 4 + 6 - from);
    }
    json_decref(s);
}

/* Two ranks hold the same weights and, after each gradient exchange, the same buffer: a fingerprint run with no
 * fault detects nothing and ends with the ranks' states equal, in the simple form and under workload.phases with a
 * reduce_scatter exchange (FSDP's pair, overlapped); a gradients flip before that exchange reaches both ranks and
 * escapes the fingerprint, as on sim (until 2026-11-30 each rank's weights differed, every check disagreed; the
 * reduce-scatter alone left the ranks' buffers apart; the flip came after the exchange and was caught). */
Test(cuda_run, two_ranks_agree_and_a_gradient_flip_escapes_the_fingerprint, .timeout = 240)
{
    e2e_need_gpu();
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 2)
        cr_skip_test("two ranks need 2 GPUs; %d here", gpus);
    static const char simple[] = "name: two-simple\nranks: 2\niterations: 8\n"
                                 "workload:\n  gemm: { m: 4096, n: 4096, k: 4096, count: 4 }\n  allreduce: { bytes: 64MiB }\n"
                                 "heartbeat: { timeout: 30s }\ndetectors: [fingerprint]\n";
    static const char fsdp[] = "name: two-fsdp\nranks: 2\niterations: 8\nworkload:\n  phases:\n"
                               "    - all_gather: { bytes: 32MiB }\n"
                               "    - gemm: { m: 4096, n: 4096, k: 4096, count: 4 }\n"
                               "    - reduce_scatter: { bytes: 64MiB, overlap: true }\n"
                               "    - gemm: { m: 4096, n: 4096, k: 4096, count: 4 }\n"
                               "    - optimizer: { bytes: 256MiB }\n"
                               "heartbeat: { timeout: 30s }\ndetectors: [{ fingerprint: { async: true } }]\n";
    const char *clean[] = { simple, fsdp };
    for (int i = 0; i < 2; i++) {
        json_t *s = run_text(clean[i], e2e_log("cuda-two.log"), 0);
        json_t *r = json_array_get(json_object_get(s, "runs"), 0);
        cr_assert_eq(json_array_size(json_object_get(s, "faults")), 0, "%s: %s", i ? "phases" : "simple",
                     json_dumps(json_object_get(s, "faults"), JSON_COMPACT));
        cr_assert(json_is_true(json_object_get(r, "complete")));
        cr_assert(json_is_true(json_object_get(r, "fingerprints_agree")), "%s: the ranks' states differ",
                  i ? "phases" : "simple");
        json_decref(s);
    }
    char text[2048];
    snprintf(text, sizeof text, "%sfaults:\n  - { kind: bitflip, at: 4, rank: 1, target: gradients, where: value, "
                                "value: 1000 }\n", fsdp);
    json_t *s = run_text(text, e2e_log("cuda-two.log"), 0);
    json_t *faults = json_object_get(s, "faults"), *f = json_array_get(faults, 0);
    cr_assert_eq(json_array_size(faults), 1, "%s", json_dumps(faults, JSON_COMPACT));
    cr_assert_str_eq(json_string_value(json_object_get(f, "target")), "gradients");
    cr_assert(json_is_null(json_object_get(f, "detected_by")), "a gradient flip before the exchange was caught: %s",
              json_dumps(f, JSON_COMPACT));
    json_decref(s);
}
