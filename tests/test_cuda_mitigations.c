/* tests/test_cuda_mitigations.c: the software mitigations acting on this machine's GPU — the filler holds the
 * power up during communication (its levels tuned against the GPU's own readings), the ramp releases the GEMM
 * chain gradually, smoothing runs as the emulation on a GPU without firmware smoothing (and says so), and `cap`
 * is refused without --allow-device-settings. No device setting is changed here. Without a usable GPU every
 * test skips, saying why. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "e2e.h"

static json_t *run_of(json_t *s, int i) { return json_array_get(json_object_get(s, "runs"), (size_t)i); }

static double agg(json_t *run, const char *key)
{
    return json_number_value(json_object_get(json_object_get(json_object_get(run, "power"), "aggregate"), key));
}

Test(cuda_mitigations, filler_ramp_and_emulated_smoothing_act_on_the_gpu, .timeout = 300)
{
    e2e_need_gpu();
    const char *sc = e2e_scenario("name: gpu-mitigations\nranks: 1\niterations: 30\nseed: 5\nworkload:\n"
                                  "  gemm: {m: 8192, n: 8192, k: 8192, count: 64}\n"
                                  "  allreduce: {bytes: 1GiB, emulate_busbw: 20, emulate_ranks: 1024}\n"
                                  "power: {sample_hz: 500}\nheartbeat: {timeout: 30s}\n"
                                  "mitigations:\n  - none\n  - filler: {floor: 80%}\n  - ramp: {ramp_w_s: 3000}\n"
                                  "  - smoothing: {floor: 60%, ramp_up_w_s: 3000, ramp_down_w_s: 3000}\n");
    const char *out = e2e_outdir();
    int rc = e2e_run("/tmp/gauntlet-cuda-mit.log", (const char *[]){ "run", sc, "--backend", "cuda", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see /tmp/gauntlet-cuda-mit.log", rc);
    json_t *s = e2e_summary(out);
    json_t *none = run_of(s, 0), *fill = run_of(s, 1), *ramp = run_of(s, 2), *smooth = run_of(s, 3);
    cr_assert_geq(e2e_count_events(out, "mitigation_tuned"), 1, "the filler measured its levels on the GPU");
    double sw0 = agg(none, "swing_w"), sw1 = agg(fill, "swing_w");
    double p1_0 = agg(none, "p1_w"), p1_1 = agg(fill, "p1_w");
    cr_log_info("none: swing %.0f W, p1 %.0f W; filler 80%%: swing %.0f W, p1 %.0f W; ramp: swing %.0f W; smoothing: "
                "swing %.0f W", sw0, p1_0, sw1, p1_1, agg(ramp, "swing_w"), agg(smooth, "swing_w"));
    cr_assert_gt(p1_1, p1_0 + 0.3 * sw0, "the filler raises the low level: p1 %.0f W vs %.0f W", p1_1, p1_0);
    cr_assert_lt(sw1, 0.75 * sw0, "the filler cuts the swing: %.0f W vs %.0f W", sw1, sw0);
    double up0 = json_number_value(json_object_get(json_object_get(json_object_get(json_object_get(none, "power"),
                                                                                   "aggregate"), "ramp_up_w_s"), "100ms"));
    double up2 = json_number_value(json_object_get(json_object_get(json_object_get(json_object_get(ramp, "power"),
                                                                                   "aggregate"), "ramp_up_w_s"), "100ms"));
    cr_assert_lt(up2, up0, "the gradual release slows the rise: %.0f W/s vs %.0f W/s", up2, up0);
    json_t *dev = json_object_get(smooth, "device");
    cr_assert_str_eq(json_string_value(json_object_get(dev, "smoothing")), "emulated", "no --allow-device-settings here");
    json_decref(s);
}

Test(cuda_mitigations, cap_needs_allow_device_settings, .timeout = 60)
{
    e2e_need_gpu();
    const char *sc = e2e_scenario("name: gpu-cap\nranks: 1\niterations: 3\nmitigations:\n  - cap: {cap: 70%}\n");
    int rc = e2e_run("/tmp/gauntlet-cuda-cap.log", (const char *[]){ "run", sc, "--backend", "cuda", "--out", e2e_outdir(), NULL });
    char *log = e2e_read("/tmp/gauntlet-cuda-cap.log");
    cr_assert_eq(rc, 2, "exit %d\n%s", rc, log);
    cr_assert(strstr(log, ":5: mitigation 'cap' changes the GPUs' power limit: run with --allow-device-settings"), "%s", log);
    free(log);
}
