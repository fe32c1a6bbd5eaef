/* tests/test_cuda_e2e.c: the real NVML and a one-rank cuda run end to end, on this machine's GPU. Without a
 * usable GPU every test here skips, saying why. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    cr_assert(a.power_instant_w > 20 && a.power_instant_w < 2000, "watts %f", a.power_instant_w);
    cr_assert(b.valid & GPU_VALID(GPU_F_ENERGY), "no energy counter: %s", nvml_missing(nv));
    cr_assert_gt(b.energy_mj, a.energy_mj, "the energy counter did not rise in 0.5 s");
    double w = nvml_energy_watts(&a, &b);
    cr_assert(w > 20 && w < 2000, "watts from energy %f", w);
    nvml_close(nv);
}

/* Returns the median of the watts of rows of phase in a power.csv text. */
static double median_watts(char *csv, const char *phase)
{
    static double v[1 << 16];
    int n = 0;
    for (char *line = strchr(csv, '\n') + 1; *line && n < (1 << 16); line = strchr(line, '\n') + 1) {
        double t, w;
        int rank;
        char ph[32];
        if (sscanf(line, "%lf,%d,%lf,%31[a-z]", &t, &rank, &w, ph) == 4 && strcmp(ph, phase) == 0)
            v[n++] = w;
    }
    cr_assert_gt(n, 10, "too few %s samples", phase);
    for (int i = 1; i < n; i++)   /* insertion sort: a few thousand values */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return v[n / 2];
}

Test(cuda_run, one_rank_shows_the_compute_comm_swing, .timeout = 120)
{
    e2e_need_gpu();
    const char *sc = e2e_scenario("name: gpu-e2e\nranks: 1\niterations: 4\nworkload:\n"
                                  "  gemm: {m: 8192, n: 8192, k: 8192, count: 320}\n"
                                  "  allreduce: {bytes: 1GiB, emulate_busbw: 4, emulate_ranks: 1024}\n"
                                  "power: {sample_hz: 200}\nheartbeat: {timeout: 30s}\n");
    const char *out = e2e_outdir();
    int rc = e2e_run("/tmp/gauntlet-cuda-e2e.log", (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see /tmp/gauntlet-cuda-e2e.log", rc);
    json_t *s = e2e_summary(out);
    json_t *r = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert_eq(json_integer_value(json_object_get(r, "iterations")), 4);
    cr_assert_gt(json_real_value(json_object_get(r, "tflops")), 100, "a bf16 GEMM chain below 100 TFLOP/s");
    json_decref(s);
    char path[512];
    snprintf(path, sizeof path, "%s/power.csv", out);
    char *csv = e2e_read(path);
    double compute = median_watts(csv, "compute"), comm = median_watts(csv, "comm");
    free(csv);
    cr_assert_gt(compute, comm + 100, "compute %.0f W vs comm %.0f W: no swing", compute, comm);
    cr_assert_eq(e2e_count_events(out, "phase_begin"), 8);
}

Test(cuda_run, faults_detected_and_recovered_on_the_gpu, .timeout = 180)
{
    e2e_need_gpu();
    const char *sc = e2e_scenario("name: gpu-faults\nranks: 1\niterations: 12\nworkload:\n"
                                  "  gemm: {m: 4096, n: 4096, k: 4096, count: 8}\n  allreduce: {bytes: 64MiB}\n"
                                  "  checkpoint: {every: 4, bytes: 16MiB, path: /tmp/gauntlet-gpu-faults}\n"
                                  "heartbeat: {interval: 100ms, timeout: 3s}\n"
                                  "faults:\n  - {kind: bitflip, at: 5, rank: 0, target: gemm-output, where: value, value: 1000}\n"
                                  "  - {kind: crash, at: 9, rank: 0}\n"
                                  "detectors: [abft, fingerprint, {replay: {every: 3}}]\nrecovery: restart\n");
    const char *out = e2e_outdir();
    int rc = e2e_run("/tmp/gauntlet-cuda-faults.log", (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see /tmp/gauntlet-cuda-faults.log", rc);
    json_t *s = e2e_summary(out);
    json_t *faults = json_object_get(s, "faults");
    cr_assert_eq(json_array_size(faults), 2);
    json_t *flip = json_array_get(faults, 0), *crash = json_array_get(faults, 1);
    cr_assert_str_eq(json_string_value(json_object_get(flip, "detected_by")), "abft");
    cr_assert_str_eq(json_string_value(json_object_get(crash, "detected_by")), "exit");
    cr_assert(json_is_number(json_object_get(flip, "recover_s")) && json_is_number(json_object_get(crash, "recover_s")));
    json_t *r = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(r, "complete")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(r, "faults"), "false_positives")), 0);
    cr_log_info("GPU fault figures: %s", json_dumps(faults, JSON_COMPACT));
    cr_log_info("GPU detector cost: %s", json_dumps(json_object_get(json_object_get(r, "faults"), "detector_cost"), JSON_COMPACT));
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
    const char *sc = e2e_scenario("name: gpu-phases\nranks: 1\niterations: 4\nworkload:\n  phases:\n"
                                  "    - gemm: {m: 8192, n: 8192, k: 8192, count: 4}\n"
                                  "    - allreduce: {bytes: 256MiB, overlap: true}\n"
                                  "    - gemm: {m: 4096, n: 8192, k: 4096, count: 4}\n"
                                  "    - reduce_scatter: {bytes: 64MiB}\n"
                                  "    - all_gather: {bytes: 64MiB, overlap: true}\n"
                                  "    - gemm: {m: 8192, n: 8192, k: 8192, count: 2}\n"
                                  "    - all_to_all: {bytes: 32MiB}\n"
                                  "    - send_recv: {bytes: 16MiB}\n"
                                  "    - optimizer: {bytes: 512MiB}\n"
                                  "    - idle: {duration: 5ms}\n"
                                  "power: {sample_hz: 200}\nheartbeat: {timeout: 30s}\n");
    const char *out = e2e_outdir();
    int rc = e2e_run("/tmp/gauntlet-cuda-phases.log", (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see /tmp/gauntlet-cuda-phases.log", rc);
    json_t *s = e2e_summary(out);
    json_t *r = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert_eq(json_integer_value(json_object_get(r, "iterations")), 4);
    cr_assert_gt(json_real_value(json_object_get(r, "tflops")), 100, "the GEMM steps below 100 TFLOP/s");
    cr_log_info("GPU phases: iteration p50 %g s, %g TFLOP/s, busbw %g GB/s",
                json_number_value(json_object_get(json_object_get(r, "iteration_s"), "p50")),
                json_number_value(json_object_get(r, "tflops")), json_number_value(json_object_get(r, "busbw_gbs")));
    json_decref(s);
    cr_assert_eq(phase_begins(out, "compute"), 4 * 3);
    cr_assert_eq(phase_begins(out, "optimizer"), 4);
    cr_assert_eq(phase_begins(out, "idle"), 4);
    cr_assert_geq(phase_begins(out, "comm"), 4 * 3, "reduce_scatter, all_to_all, send_recv (and exposed waits)");
}

Test(cuda_run, replay_follows_a_slow_trace_with_the_filler, .timeout = 120)
{
    e2e_need_gpu();
    char trace[] = "/tmp/gauntlet-cuda-trace-XXXXXX";
    int fd = mkstemp(trace);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "timestamp, index, power.draw [W]\n");
    for (int i = 0; i < 300; i++)   /* 3 s at 100 Hz: a 1 Hz square wave between 200 and 450 W, within the filler's reach */
        fprintf(f, "2026/11/25 10:00:%06.3f, 0, %.2f W\n", i * 0.01, i % 100 < 50 ? 450.0 : 200.0);
    fclose(f);
    char text[512];
    snprintf(text, sizeof text, "name: gpu-replay\nranks: 1\niterations: 3\nworkload: {replay: {trace: %s}}\n"
                                "power: {sample_hz: 100}\nheartbeat: {timeout: 30s}\n", trace);
    const char *sc = e2e_scenario(text), *out = e2e_outdir();
    int rc = e2e_run("/tmp/gauntlet-cuda-replay.log", (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see /tmp/gauntlet-cuda-replay.log", rc);
    json_t *s = e2e_summary(out);
    json_t *fit = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"),
                                                  "aggregate"), "replay");
    cr_assert(json_is_object(fit), "no replay fidelity");
    double corr = json_number_value(json_object_get(fit, "correlation"));
    cr_log_info("GPU replay: correlation %g, rms %g W, band shares within %g points", corr,
                json_number_value(json_object_get(fit, "rms_error_w")),
                json_number_value(json_object_get(fit, "band_share_max_diff_points")));
    cr_assert_gt(corr, 0.5, "the GPU's power does not follow a 1 Hz square wave (correlation %g)", corr);
    json_decref(s);
    unlink(trace);
}
