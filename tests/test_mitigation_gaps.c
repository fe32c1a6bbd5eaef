/* tests/test_mitigation_gaps.c: the mitigations that shape a GPU's power only ever add power between compute phases
 * (plugins/mitigations/fillplan.h), run end to end on the sim backend with scenarios/mitigation-long-gaps.yaml
 * (compute and communication phases of about 0.5 s each, the power falling to idle between them): the filler at
 * 80 % removes at least half of the swing and holds the floor, ramp and smoothing never raise the swing, and none of
 * them costs more than 5 % of an iteration's time. The sim runs the same plan the GPU's shaper runs, so this fails
 * where the GPU's schedule would cut compute or lower the minimum. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "e2e.h"

static json_t *vs_none(json_t *s, int run)
{
    json_t *r = json_array_get(json_object_get(s, "runs"), (size_t)run);
    return json_object_get(r, "vs_none");
}

static double num(json_t *o, const char *key) { return json_number_value(json_object_get(o, key)); }

Test(mitigation_gaps, mitigations_add_power_and_never_cut_compute, .timeout = 240)
{
    char sc[1024];
    snprintf(sc, sizeof sc, "%s/scenarios/mitigation-long-gaps.yaml", e2e_src());
    const char *out = e2e_outdir();
    int rc = e2e_run("/tmp/gauntlet-mit-gaps.log", (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out",
                                                                       out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see /tmp/gauntlet-mit-gaps.log", rc);
    json_t *s = e2e_summary(out);
    const char *names[] = { "filler", "ramp", "smoothing" };
    for (int m = 1; m <= 3; m++) {
        json_t *v = vs_none(s, m);
        double cut = num(v, "swing_reduction_pct"), time = num(v, "iteration_overhead_pct");
        cr_log_info("%s: swing -%.1f %%, time %+.1f %%, energy %+.1f %%, efficiency %.2f", names[m - 1], cut, time,
                    num(v, "energy_overhead_pct"), num(v, "energy_efficiency"));
        cr_assert_geq(cut, 0, "%s never raises the swing: %.1f %% removed", names[m - 1], cut);
        cr_assert_leq(time, 5, "%s costs at most 5 %% time: %+.1f %%", names[m - 1], time);
    }
    json_t *fill = vs_none(s, 1);
    cr_assert_geq(num(fill, "swing_reduction_pct"), 50, "the filler at 80 %% removes half the swing at least: %.1f %%",
                  num(fill, "swing_reduction_pct"));
    int n = 0;
    double comm = e2e_phase_median_w(out, 1, "comm", &n), asked = num(fill, "floor_asked_w");
    cr_log_info("filler: median communication power %.0f W over %d readings, floor asked %.0f W", comm, n, asked);
    cr_assert_geq(comm, 0.95 * asked, "the filler holds the floor: median %.0f W against %.0f W asked", comm, asked);
    cr_assert_null(json_object_get(fill, "floor_unreachable"), "80 %% of 700 W is within the filler's 725 W");
    char *ev = e2e_read(strcat(strcpy(sc, out), "/events.jsonl"));
    cr_assert(strstr(ev, "ramps do not fit the"), "ramp at 2000 W/s does not fit a 0.5 s gap: the run says so");
    free(ev);
    json_decref(s);
}

Test(mitigation_gaps, a_floor_above_the_filler_is_said_before_the_run_and_in_the_summary, .timeout = 60)
{
    const char *sc = e2e_scenario("name: unreachable\nranks: 1\niterations: 4\nseed: 1\n"
                                  "workload:\n  gemm: {m: 4096, n: 4096, k: 4096, count: 8}\n"
                                  "  allreduce: {bytes: 64MiB}\n"
                                  "sim: {filler_w: 480}\nmitigations:\n  - none\n  - filler: {floor: 560W}\n");
    const char *out = e2e_outdir();
    int rc = e2e_run("/tmp/gauntlet-mit-unreach.log", (const char *[]){ "run", sc, "--backend", "sim", "--headless",
                                                                         "--out", out, NULL });
    char *log = e2e_read("/tmp/gauntlet-mit-unreach.log");
    cr_assert_eq(rc, 0, "exit %d\n%s", rc, log);
    cr_assert(strstr(log, "floor 560 W unreachable: the filler reaches 480 W"), "%s", log);
    free(log);
    json_t *s = e2e_summary(out);
    json_t *v = vs_none(s, 1);
    cr_assert_str_eq(json_string_value(json_object_get(v, "floor_unreachable")),
                     "floor 560 W unreachable: the filler reaches 480 W");
    cr_assert_float_eq(num(v, "filler_top_w"), 480, 1e-9);
    json_decref(s);
}
