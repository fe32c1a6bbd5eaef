/* tests/test_tui_model.c: the live view's model, fed records exactly as events.jsonl and power.csv hold them:
 * header fields, the aggregate power and its bins, phases at a time, the log of faults, detections and
 * recoveries, the comparison rows, and the live measurements on a known square wave. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

static void ev(struct vm *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct vm *m, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    cr_assert_eq(vm_event_line(m, line, strlen(line)), 0, "record not taken: %s", line);
}

static const char start[] = "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"s\",\"backend\":\"sim\",\"ranks\":4,"
                            "\"runs\":2,\"iterations\":100,\"tdp_w\":700,\"sample_hz\":100,\"bus_ranks\":4,"
                            "\"recovery\":\"restart\"}";

static int log_has(const struct vm *m, const char *needle)
{
    for (uint64_t i = m->nlog > VM_LOG ? m->nlog - VM_LOG : 0; i < m->nlog; i++)
        if (strstr(m->log[i % VM_LOG].text, needle))
            return 1;
    return 0;
}

/* The comparison table holds the first VM_RUNS runs; one past them is said once in the log, never dropped without
 * a word (a scenario of 32 mitigations on 4 shapes has 128 runs) */
Test(tui_model, runs_past_the_table_are_said_once)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    for (int i = 0; i < VM_RUNS + 3; i++) {
        ev(m, "{\"t_s\":%d,\"event\":\"run_begin\",\"run\":%d,\"mitigation\":\"none\",\"iterations\":1}", i, i);
        ev(m, "{\"t_s\":%d.5,\"event\":\"run_end\",\"run\":%d,\"mitigation\":\"none\",\"complete\":true}", i, i);
    }
    cr_assert_eq(m->nruns, VM_RUNS);
    cr_assert(log_has(m, "the comparison table holds the first 64 runs: run 65 on are in summary.json"));
    int said = 0;
    for (uint64_t i = m->nlog > VM_LOG ? m->nlog - VM_LOG : 0; i < m->nlog; i++)
        said += strstr(m->log[i % VM_LOG].text, "comparison table holds") != NULL;
    cr_assert_eq(said, 1, "said once");
    vm_free(m);
}

Test(tui_model, start_and_runs_fill_the_header)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    cr_assert_str_eq(m->scenario, "s");
    cr_assert_eq(m->nranks, 4);
    cr_assert_eq(m->runs, 2);
    cr_assert_eq(m->iterations, 100);
    cr_assert_float_eq(m->tdp_w, 700, 1e-9);
    cr_assert_eq(m->state, VS_STARTING);
    ev(m, "{\"t_s\":0.5,\"event\":\"run_begin\",\"run\":1,\"mitigation\":\"filler\",\"label\":\"filler floor=60%%\","
          "\"iterations\":100,\"floor_w\":420}");
    cr_assert_eq(m->run, 1);
    cr_assert_str_eq(m->run_label, "filler floor=60%");
    cr_assert_float_eq(m->floor_w, 420, 1e-9);
    cr_assert_eq(m->state, VS_RUNNING);
    for (int r = 0; r < 4; r++)
        ev(m, "{\"t_s\":1.0,\"event\":\"iteration\",\"rank\":%d,\"run\":1,\"iter\":%d,\"dur_s\":0.1}", r, r == 2 ? 6 : 9);
    cr_assert_eq(vm_iter(m), 7, "the slowest rank's count: %lld", (long long)vm_iter(m));
    ev(m, "{\"t_s\":2,\"event\":\"paused\",\"before_iter\":11}");
    cr_assert_eq(m->state, VS_PAUSED);
    cr_assert_str_eq(vm_state_label(m), "pausing", "ranks still short of the boundary: not yet paused");
    for (int r = 0; r < 4; r++)
        ev(m, "{\"t_s\":2.5,\"event\":\"iteration\",\"rank\":%d,\"run\":1,\"iter\":10,\"dur_s\":0.1}", r);
    cr_assert_str_eq(vm_state_label(m), "paused", "every rank at the boundary");
    ev(m, "{\"t_s\":3,\"event\":\"resumed\"}");
    cr_assert_eq(m->state, VS_RUNNING);
    ev(m, "{\"t_s\":9,\"event\":\"end\",\"exit\":1,\"reason\":\"stopped\"}");
    cr_assert_eq(m->state, VS_FINISHED);
    cr_assert_eq(m->exit_code, 1);
    vm_free(m);
}

Test(tui_model, bad_records_are_refused)
{
    struct vm *m = vm_new();
    cr_assert_eq(vm_event_line(m, "not json", 8), -1);
    cr_assert_eq(vm_event_line(m, "{\"event\":\"start\"}", 17), -1, "no t_s");
    cr_assert_eq(vm_event_line(m, "[1,2]", 5), -1);
    cr_assert_eq(m->events, 0);
    vm_free(m);
}

Test(tui_model, the_aggregate_is_the_sum_of_a_complete_tick)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    for (int k = 0; k < 10; k++)   /* 0.00 .. 0.09 s: one bin */
        for (int r = 0; r < 4; r++)
            vm_power(m, k * 0.01, r, 100.0 * (r + 1) + k, NAN, NAN, 0);
    vm_power(m, 0.10, 0, 1, NAN, NAN, 0);   /* closes the tick of 0.09 */
    struct vm_bin b;
    cr_assert(vm_agg_bin(m, 0.05, &b));
    cr_assert_eq(b.n, 10);
    cr_assert_float_eq(b.min, 1000, 1e-3);       /* 100+200+300+400 */
    cr_assert_float_eq(b.max, 1000 + 4 * 9, 1e-3);
    cr_assert(vm_rank_bin(m, 2, 0.05, &b));
    cr_assert_float_eq(b.sum / b.n, 304.5, 1e-3);
    /* a tick where a rank has no reading is missing from the aggregate, not a smaller sum */
    for (int r = 0; r < 4; r++)
        vm_power(m, 0.11, r, r == 1 ? NAN : 100, NAN, NAN, 0);
    vm_power(m, 0.12, 0, 100, NAN, NAN, 0);
    /* 0.10: rank 0's new reading and the others' of 0.09 (within two sampling periods: several nodes' ticks
     * interleave); 0.11 had a missing reading, 0.12 still sees it: no aggregate */
    cr_assert(vm_agg_bin(m, 0.15, &b));
    cr_assert_eq(b.n, 1, "%u", b.n);
    cr_assert_float_eq(b.sum, 1 + 209 + 309 + 409, 1e-3);
    vm_power(m, 0.5, 0, 100, NAN, NAN, 0);   /* the others silent for 0.4 s: stale, no aggregate */
    vm_power(m, 0.51, 0, 100, NAN, NAN, 0);
    cr_assert(!vm_agg_bin(m, 0.5, &b), "a rank silent for longer than two periods leaves the aggregate missing");
    cr_assert(!vm_agg_bin(m, 5.0, &b), "no samples there");
    vm_free(m);
}

Test(tui_model, phases_at_a_time_and_filler_under_a_floor)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    ev(m, "{\"t_s\":1.0,\"event\":\"phase_begin\",\"rank\":1,\"run\":0,\"iter\":0,\"phase\":\"compute\"}");
    ev(m, "{\"t_s\":1.5,\"event\":\"phase_end\",\"rank\":1,\"run\":0,\"iter\":0,\"phase\":\"compute\",\"flops\":5e14}");
    ev(m, "{\"t_s\":1.5,\"event\":\"phase_begin\",\"rank\":1,\"run\":0,\"iter\":0,\"phase\":\"comm\"}");
    ev(m, "{\"t_s\":1.7,\"event\":\"phase_end\",\"rank\":1,\"run\":0,\"iter\":0,\"phase\":\"comm\",\"bytes\":1e9}");
    ev(m, "{\"t_s\":1.8,\"event\":\"phase_begin\",\"rank\":1,\"run\":0,\"iter\":0,\"phase\":\"checkpoint\"}");
    cr_assert_eq(vm_phase_at(m, 1, 1.2), VP_COMPUTE);
    cr_assert_eq(vm_phase_at(m, 1, 1.6), VP_COMM);
    cr_assert_eq(vm_phase_at(m, 1, 1.75), VP_IDLE);
    cr_assert_eq(vm_phase_at(m, 1, 1.8), VP_CKPT, "an open span lasts until now");
    cr_assert_eq(vm_phase_at(m, 0, 1.2), VP_IDLE, "rank 0 did nothing");
    vm_measure(m, 10);
    cr_assert_float_eq(m->m.tflops, 1000, 1e-6, "5e14 flops in 0.5 s: %g", m->m.tflops);
    cr_assert_float_eq(m->m.busbw_gbs, 1e9 / 0.2 * 2 * 3 / 4 / 1e9, 1e-6, "nccl-tests bus bandwidth");
    ev(m, "{\"t_s\":2.0,\"event\":\"run_begin\",\"run\":1,\"mitigation\":\"filler\",\"iterations\":100,\"floor_w\":500}");
    cr_assert_eq(vm_phase_at(m, 1, 1.6), VP_FILLER, "communication under a floor is filled");
    cr_assert_eq(vm_phase_at(m, 1, 1.2), VP_COMPUTE);
    cr_assert_eq(vm_phase_at(m, 0, 1.6), VP_IDLE, "a rank with no phases known (another node's) is no filler");
    vm_free(m);
}

Test(tui_model, faults_detections_and_recoveries_reach_the_log)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    ev(m, "{\"t_s\":5,\"event\":\"fault_injected\",\"kind\":\"crash\",\"rank\":2,\"fault\":0,\"iter\":40,\"what\":\"raise(9)\","
          "\"done\":true,\"id\":0}");
    ev(m, "{\"t_s\":5.1,\"event\":\"detection\",\"detector\":\"exit\",\"rank\":2,\"iter\":40,\"note\":\"died\","
          "\"false_positive\":false,\"fault\":0,\"detect_s\":0.106,\"detect_iters\":0}");
    ev(m, "{\"t_s\":5.1,\"event\":\"recovery_begin\",\"recovery\":\"restart\",\"rank\":2,\"iter\":40,\"fault\":0}");
    cr_assert_eq(m->state, VS_RECOVERING);
    ev(m, "{\"t_s\":6.9,\"event\":\"recovery_end\",\"recovery\":\"restart\",\"from_iter\":30,\"from\":\"checkpoint\","
          "\"took_s\":1.85}");
    cr_assert_eq(m->state, VS_RUNNING);
    ev(m, "{\"t_s\":7,\"event\":\"recovered\",\"fault\":0,\"rank\":2,\"recovery\":\"restart\",\"recover_s\":1.9,"
          "\"iterations_lost\":10}");
    ev(m, "{\"t_s\":8,\"event\":\"detection\",\"detector\":\"heartbeat\",\"rank\":1,\"iter\":50,\"note\":\"slow\","
          "\"false_positive\":true}");
    cr_assert(log_has(m, "FAULT crash on rank 2 at iter 40"));
    cr_assert(log_has(m, "DETECTED by exit on rank 2 after 106 ms"));
    cr_assert(log_has(m, "RECOVERY restart of rank 2 begins"));
    cr_assert(log_has(m, "done in 1.85 s, from checkpoint at iter 30"));
    cr_assert(log_has(m, "RECOVERED rank 2 by restart: 1.90 s after detection, 10 iterations lost"));
    /* a flip named in full, and a failure nobody injected */
    ev(m, "{\"t_s\":9,\"event\":\"fault_injected\",\"kind\":\"bitflip\",\"rank\":1,\"fault_spec\":1,\"iter\":55,"
          "\"what\":\"element 9: 1 -> -1\",\"done\":true,\"id\":1,\"target\":\"weights\",\"element\":9,\"bit\":31,"
          "\"bit_class\":\"sign\",\"rel_error\":2.0}");
    cr_assert(log_has(m, "FAULT bitflip on rank 1 at iter 55: weights element 9, sign bit 31, error 2"));
    ev(m, "{\"t_s\":10,\"event\":\"fault_observed\",\"id\":2,\"kind\":\"crash\",\"rank\":3,\"iter\":60,"
          "\"detector\":\"exit\",\"what\":\"process died: signal 9 (Killed)\"}");
    cr_assert(log_has(m, "OBSERVED crash on rank 3 at iter 60 (by exit, not injected)"));
    cr_assert(log_has(m, "FALSE POSITIVE heartbeat on rank 1"));
    cr_assert_eq(m->faults, 3);   /* two injected, one observed */
    cr_assert_eq(m->detections, 2);
    cr_assert_eq(m->false_positives, 1);
    cr_assert_eq(m->recoveries, 1);
    ev(m, "{\"t_s\":9,\"event\":\"rank_dropped\",\"rank\":3,\"ranks_left\":3}");
    cr_assert(m->rank[3].dropped);
    vm_free(m);
}

Test(tui_model, run_end_adds_a_comparison_row)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":20,\"event\":\"run_end\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":100,"
          "\"complete\":true,\"skipped\":false,\"figures\":{\"iteration_p50_s\":0.12,\"mean_w\":2400,\"swing_w\":2000,"
          "\"ramp_w_s\":19000,\"energy_per_iter_j\":300,\"tflops\":710}}");
    ev(m, "{\"t_s\":30,\"event\":\"run_end\",\"run\":1,\"mitigation\":\"cap\",\"label\":\"cap cap=70%%\",\"iterations\":40,"
          "\"complete\":false,\"skipped\":true,\"figures\":{\"iteration_p50_s\":null}}");
    cr_assert_eq(m->nruns, 2);
    cr_assert_str_eq(m->runrow[0].label, "none");
    cr_assert(m->runrow[0].complete);
    cr_assert_float_eq(m->runrow[0].swing_w, 2000, 1e-9);
    cr_assert_float_eq(m->runrow[0].energy_j, 300, 1e-9);
    cr_assert_str_eq(m->runrow[1].label, "cap cap=70%");
    cr_assert(m->runrow[1].skipped);
    cr_assert(isnan(m->runrow[1].iter_p50_s), "missing stays missing");
    vm_free(m);
}

Test(tui_model, measurements_of_a_known_square_wave)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);   /* 4 ranks, 100 Hz, TDP 700 W */
    ev(m, "{\"t_s\":0,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    /* every GPU: 700 W for 0.25 s, 100 W for 0.25 s: 2 Hz, aggregate swing 2400 W; read with a sensor's noise (a
     * noiseless square wave changes only at its edges: with its 0.5 s iteration known it is a held trace whose 2 Hz
     * is half its update rate, no dominant frequency, as the summary would say) */
    for (int k = 0; k <= 1000; k++) {
        double t = k * 0.01, w = fmod(t, 0.5) < 0.25 ? 700 : 100;
        for (int r = 0; r < 4; r++)
            vm_power(m, t, r, w + 0.05 * ((k * 7 + r * 3) % 5), 1980, 60, 0);
    }
    for (int i = 0; i < 20; i++)
        ev(m, "{\"t_s\":%g,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":%d,\"dur_s\":%g}", 0.5 * (i + 1), i,
           i == 19 ? 0.9 : 0.5);
    vm_measure(m, 10);
    cr_assert_float_eq(m->m.swing_w, 2400, 1, "swing %g", m->m.swing_w);
    cr_assert_float_eq(m->m.swing_pct_tdp, 100 * 2400.0 / 2800, 0.1);
    cr_assert_float_eq(m->m.dominant_hz, 2, 0.15, "dominant %g Hz", m->m.dominant_hz);
    cr_assert_float_eq(m->m.ramp_w_s, 2400 / 0.1, 1, "a step of 2400 W within 100 ms: %g W/s", m->m.ramp_w_s);
    cr_assert_float_eq(m->m.iter_p50_s, 0.5, 1e-9);
    cr_assert_gt(m->m.iter_p99_s, 0.5);
    cr_assert_float_eq(m->rank[3].clock_mhz, 1980, 1e-9);
    vm_free(m);
}

/* The iteration's percentiles, GEMM and bus bandwidth are the run's own: 4 s into the next mitigation the view read
 * the run before's iterations (its p50, also the analysis's period and the phase strip's width), until 2026-12-02 */
Test(tui_model, a_new_run_starts_its_own_iteration_figures)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    for (int i = 0; i < 100; i++)
        ev(m, "{\"t_s\":%g,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":%d,\"dur_s\":0.1}", 0.1 * (i + 1), i);
    ev(m, "{\"t_s\":10.1,\"event\":\"run_end\",\"run\":0,\"mitigation\":\"none\",\"complete\":true}");
    ev(m, "{\"t_s\":10.2,\"event\":\"run_begin\",\"run\":1,\"mitigation\":\"cap\",\"iterations\":100}");
    for (int i = 0; i < 5; i++)
        ev(m, "{\"t_s\":%g,\"event\":\"iteration\",\"rank\":0,\"run\":1,\"iter\":%d,\"dur_s\":0.3}", 10.2 + 0.3 * (i + 1), i);
    vm_measure(m, 12);
    cr_assert_float_eq(m->m.iter_p50_s, 0.3, 1e-9, "the cap run's p50 %g s, not the none run's 0.1", m->m.iter_p50_s);
    vm_free(m);
}

/* Four 20 ms sensors whose updates interleave (5 ms apart), read at 1 kHz: their sum changes every 5 ms, but the live
 * figures are analysed as the summary's are, with the slowest GPU's update interval from its stamps (20 ms, never 5 or
 * 10) and the iteration as the period, so the 1 Hz iteration is the dominant frequency, not a blank (until 2026-11-30
 * the view measured the sum as one sensor: "readings every 10 ms", and no dominant frequency all run long) */
Test(tui_model, the_sum_of_interleaved_sensors_is_analysed_with_their_own_interval)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"s\",\"backend\":\"sim\",\"ranks\":4,\"runs\":1,"
          "\"iterations\":100,\"tdp_w\":700,\"sample_hz\":1000,\"bus_ranks\":4,\"recovery\":\"none\"}");
    ev(m, "{\"t_s\":0,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    double shown[4] = { 100, 100, 100, 100 };
    int64_t stamp[4] = { 0 };
    for (int k = 0; k <= 12000; k++) {
        double t = k * 1e-3;
        for (int r = 0; r < 4; r++) {
            if ((k - 5 * r) % 20 == 0 && k >= 5 * r) {   /* rank r's sensor updates 5r ms after the others' */
                double sum = 0;
                for (int j = 0; j < 20; j++)
                    sum += fmod((k - j) * 1e-3, 1.0) < 0.6 ? 700 : 100;
                shown[r] = sum / 20 + (k % 7) * 0.5;   /* a sensor's noise: no two readings alike */
                stamp[r] = (int64_t)k * 1000000 + 1;
            }
            vm_power(m, t, r, shown[r], NAN, NAN, 0);
            vm_power_stamp(m, r, stamp[r]);
        }
    }
    for (int i = 0; i < 12; i++)
        ev(m, "{\"t_s\":%d,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":%d,\"dur_s\":1}", i + 1, i);
    vm_measure(m, 10);
    cr_assert_float_eq(m->m.sensor_ms, 20, 0.5, "the GPUs' own 20 ms: %g", m->m.sensor_ms);
    cr_assert_float_eq(m->m.dominant_hz, 1, 0.15, "the 1 s iteration: %g Hz", m->m.dominant_hz);
    vm_free(m);
}

/* forward: nodes (2 nodes x 2 ranks): a node's folded iteration reaches each of its ranks; its summed power shows as
 * its mean GPU on each; the aggregate is the cluster's sum on node 0's grid, whole cells only, and node 0's own
 * ticks no longer add to it. */
Test(tui_model, a_node_folded_and_the_cluster_sum_as_the_aggregate)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"s\",\"backend\":\"sim\",\"ranks\":2,\"nodes\":2,\"forward\":\"nodes\",\"runs\":1,"
          "\"iterations\":100,\"tdp_w\":700,\"sample_hz\":100,\"bus_ranks\":4,\"recovery\":\"none\"}");
    ev(m, "{\"t_s\":0.01,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\"}");
    ev(m, "{\"t_s\":0.2,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":6,\"dur_s\":0.02}");
    ev(m, "{\"t_s\":0.2,\"event\":\"iteration\",\"rank\":1,\"run\":0,\"iter\":6,\"dur_s\":0.02}");
    ev(m, "{\"t_s\":0.2,\"event\":\"node_iteration\",\"node\":1,\"run\":0,\"iter\":4,\"ranks\":2,\"dur_s\":0.03,"
          "\"phases\":{\"compute\":{\"s\":0.02,\"flops\":4e12},\"comm\":{\"s\":0.01,\"bytes\":4194304}}}");
    cr_assert_eq(m->rank[2].iter, 5);
    cr_assert_eq(m->rank[3].iter, 5);
    cr_assert_eq(vm_iter(m), 5, "the slowest node's");
    vm_measure(m, 10);
    cr_assert_float_eq(m->m.tflops, 100, 1e-6, "per GPU: 4e12 over 2 GPUs x 0.02 s");
    vm_node_power(m, 0.2, 1, 900, 2);
    cr_assert_float_eq(m->rank[3].watts, 450, 1e-9);
    for (int r = 0; r < 2; r++)
        vm_power(m, 0.25, r, 300, NAN, NAN, 0);
    vm_power(m, 0.26, 0, 300, NAN, NAN, 0);   /* would close node 0's tick */
    vm_cluster_power(m, 0.35, 2000, 1);
    vm_cluster_power(m, 0.36, 5000, 0);       /* a node missing: no sum */
    struct vm_bin b;
    cr_assert(!vm_agg_bin(m, 0.25, &b), "node 0's ticks are not the aggregate once the cluster's sum comes");
    cr_assert(vm_agg_bin(m, 0.35, &b));
    cr_assert_eq(b.n, 1);
    cr_assert_float_eq(b.sum, 2000, 1e-9);
    vm_free(m);
}

/* forward: ranks (2 nodes x 2 ranks): node 0's own rows at every tick (100 Hz), the other node's at forward_hz
 * (10 Hz): each tick's sum holds their latest row (until 2026-11-29 a row older than two ticks left the tick out:
 * nine in ten of them). */
Test(tui_model, forward_ranks_sums_the_other_nodes_latest_rows)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"s\",\"backend\":\"sim\",\"ranks\":2,\"nodes\":2,\"forward\":\"ranks\","
          "\"forward_hz\":10,\"runs\":1,\"iterations\":100,\"tdp_w\":700,\"sample_hz\":100,\"recovery\":\"none\"}");
    ev(m, "{\"t_s\":0.01,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\"}");
    for (int k = 0; k < 200; k++) {
        double t = 1 + k / 100.0;
        if (k % 10 == 0)
            for (int r = 2; r < 4; r++)
                vm_power(m, t - 0.004, r, 300, NAN, NAN, 0);
        for (int r = 0; r < 2; r++)
            vm_power(m, t, r, 200, NAN, NAN, 0);
    }
    vm_power(m, 3.5, 0, 200, NAN, NAN, 0);   /* closes the last tick */
    int whole = 0;
    for (uint64_t i = 0; i < m->nraw; i++)
        if (m->raw_t[i] >= 1)
            whole += fabs(m->raw_w[i] - 1000) < 1e-9;
    cr_assert_geq(whole, 199, "every tick of node 0 a whole sum: %d", whole);
    vm_free(m);
}

/* A record read from a file may say anything: a node_iteration of a node far past the run's (node * ranks per node
 * once overflowed into a negative index and crashed `gauntlet view`), a start of absurd counts: ignored, no crash. */
Test(tui_model, indexes_from_a_file_are_bounded)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":2,\"nodes\":2,\"runs\":1,\"iterations\":10}");
    ev(m, "{\"t_s\":0.5,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\"}");
    const long long bad[] = { 1073741824LL, 2147483647LL, 4294967296LL + 1, -5, 2 };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ev(m, "{\"t_s\":1,\"event\":\"node_iteration\",\"node\":%lld,\"iter\":3,\"ranks\":2,\"dur_s\":0.1}", bad[i]);
        vm_node_power(m, 1, (int)bad[i], 100, 2);
    }
    cr_assert_eq(m->rank[2].iter, 0, "node 2 of 2 nodes does not exist");
    ev(m, "{\"t_s\":1,\"event\":\"iteration\",\"rank\":4294967297,\"iter\":3,\"dur_s\":0.1}");
    cr_assert_eq(m->rank[1].iter, 0, "rank 2^32+1 is no rank 1");
    ev(m, "{\"t_s\":2,\"event\":\"start\",\"ranks\":4,\"nodes\":2147483647,\"runs\":2147483647,\"iterations\":10}");
    ev(m, "{\"t_s\":2,\"event\":\"run_begin\",\"run\":2147483647,\"mitigation\":\"none\"}");
    cr_assert_leq(m->nranks, VM_MAX_RANKS);
    vm_measure(m, 10);
    vm_free(m);
}

/* Feeds `secs` seconds of iterations at `rate` it/s to ranks ranks (as nodes x per, forward: nodes when nodes > 1:
 * node 0's ranks by their own records, the others folded) and returns the rate the model measures over 10 s. */
static double rate_of(int nodes, int per, double rate, double secs)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"s\",\"backend\":\"sim\",\"ranks\":%d,\"nodes\":%d,%s\"runs\":1,"
          "\"iterations\":1000000,\"sample_hz\":100}", per, nodes, nodes > 1 ? "\"forward\":\"nodes\"," : "");
    ev(m, "{\"t_s\":0,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\"}");
    for (int i = 0; (i + 1) / rate <= secs; i++) {
        double t = (i + 1) / rate;
        for (int r = 0; r < per; r++)
            ev(m, "{\"t_s\":%.6f,\"event\":\"iteration\",\"rank\":%d,\"run\":0,\"iter\":%d,\"dur_s\":%g}", t, r, i, 1 / rate);
        for (int n = 1; n < nodes; n++)
            ev(m, "{\"t_s\":%.6f,\"event\":\"node_iteration\",\"node\":%d,\"run\":0,\"iter\":%d,\"ranks\":%d,\"dur_s\":%g}", t,
               n, i, per, 1 / rate);
    }
    vm_measure(m, 10);
    double got = m->m.it_per_s;
    cr_assert_eq(vm_iter(m), (int64_t)floor(secs * rate + 1e-6));
    vm_free(m);
    return got;
}

/* The rate is right at any ranks x it/s (a ring of 512 iteration records capped it at 51.2 / ranks it/s), and on
 * several nodes a folded line counts for each of its node's ranks (it was counted once: (per + nodes - 1) / (nodes
 * per) of the rate). Measured from the same records the model reads: within 2 %, and one iteration at the
 * window's edge. */
Test(tui_model, the_rate_is_right_at_any_ranks_and_rate)
{
    const struct { int nodes, per; double rate; } c[] = {
        { 1, 1, 2 }, { 1, 4, 47 }, { 1, 8, 10 }, { 1, 8, 200 }, { 1, 64, 25 }, { 2, 2, 8 }, { 2, 8, 50 }, { 16, 8, 20 },
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        double got = rate_of(c[i].nodes, c[i].per, c[i].rate, 15);
        cr_assert(fabs(got / c[i].rate - 1) < 0.02 + 1 / (10 * c[i].rate), "%d nodes x %d ranks at %g it/s: the view says %g it/s", c[i].nodes,
                  c[i].per, c[i].rate, got);
    }
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    vm_measure(m, 10);
    cr_assert(isnan(m->m.it_per_s), "before the first iteration the rate is not measured: %g", m->m.it_per_s);
    vm_free(m);
}

/* busbw: communication phases only (a checkpoint's phase_end carries its bytes too), the median of the last ones as
 * summary.json's median, n = bus_ranks (emulate_ranks). */
Test(tui_model, busbw_is_communication_only)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"s\",\"backend\":\"sim\",\"ranks\":2,\"runs\":1,\"iterations\":9,"
          "\"bus_ranks\":1024}");
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\"}");
    for (int i = 0; i < 5; i++) {
        double t = 1 + i;
        ev(m, "{\"t_s\":%g,\"event\":\"phase_begin\",\"rank\":0,\"phase\":\"comm\"}", t);
        ev(m, "{\"t_s\":%g,\"event\":\"phase_end\",\"rank\":0,\"phase\":\"comm\",\"bytes\":1e9}", t + (i == 4 ? 0.5 : 0.1));
        ev(m, "{\"t_s\":%g,\"event\":\"phase_begin\",\"rank\":0,\"phase\":\"checkpoint\"}", t + 0.6);
        ev(m, "{\"t_s\":%g,\"event\":\"phase_end\",\"rank\":0,\"phase\":\"checkpoint\",\"bytes\":16777216}", t + 0.7);
    }
    vm_measure(m, 10);
    cr_assert_float_eq(m->m.busbw_gbs, 10 * 2.0 * 1023 / 1024, 1e-6, "1 GB in 0.1 s x 2(n-1)/n: %g", m->m.busbw_gbs);
    vm_free(m);
}

/* A pause asked during a recovery holds after it: the header says pausing, then paused, and the next p resumes. */
Test(tui_model, a_pause_during_a_recovery_holds)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    for (int r = 0; r < 4; r++)
        ev(m, "{\"t_s\":1,\"event\":\"iteration\",\"rank\":%d,\"iter\":37,\"dur_s\":0.1}", r);
    ev(m, "{\"t_s\":4.815,\"event\":\"recovery_begin\",\"recovery\":\"restart\",\"rank\":3}");
    ev(m, "{\"t_s\":4.849,\"event\":\"paused\",\"before_iter\":39}");
    cr_assert_eq(m->state, VS_RECOVERING);
    ev(m, "{\"t_s\":4.889,\"event\":\"recovery_end\",\"recovery\":\"restart\",\"from_iter\":20,\"from\":\"checkpoint\"}");
    for (int r = 0; r < 4; r++)
        ev(m, "{\"t_s\":5,\"event\":\"iteration\",\"rank\":%d,\"iter\":20,\"dur_s\":0.1}", r);
    cr_assert_eq(m->state, VS_PAUSED, "the pause still holds: %s", vm_state_name(m->state));
    cr_assert_str_eq(vm_state_label(m), "pausing");
    for (int r = 0; r < 4; r++)
        ev(m, "{\"t_s\":7,\"event\":\"iteration\",\"rank\":%d,\"iter\":38,\"dur_s\":0.1}", r);
    cr_assert_str_eq(vm_state_label(m), "paused");
    ev(m, "{\"t_s\":9,\"event\":\"resumed\"}");
    cr_assert_eq(m->state, VS_RUNNING);
    vm_free(m);
}

/* A fault a rollback undid fires again on the new timeline: one fault, as summary.json counts it. */
Test(tui_model, a_fault_undone_and_fired_again_counts_once)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    ev(m, "{\"t_s\":0.94,\"event\":\"fault_injected\",\"kind\":\"straggler\",\"rank\":1,\"fault_spec\":1,\"iter\":37,\"id\":0,\"done\":true}");
    ev(m, "{\"t_s\":0.95,\"event\":\"fault_injected\",\"kind\":\"crash\",\"rank\":3,\"fault_spec\":0,\"iter\":37,\"id\":1,\"done\":true}");
    ev(m, "{\"t_s\":0.96,\"event\":\"fault_undone\",\"id\":0,\"fault_spec\":1,\"rank\":1,\"iter\":37}");
    ev(m, "{\"t_s\":1.3,\"event\":\"fault_injected\",\"kind\":\"straggler\",\"rank\":1,\"fault_spec\":1,\"iter\":37,\"id\":2,\"done\":true}");
    cr_assert_eq(m->faults, 2, "summary.json: 2 injected; the view: %d", m->faults);
    vm_free(m);
}

/* After shrink the dropped GPU is still on the node and still sampled: the node's power sums it, as summary.json. */
Test(tui_model, the_node_power_after_shrink_sums_every_gpu)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    ev(m, "{\"t_s\":0.2,\"event\":\"rank_dropped\",\"rank\":3,\"ranks_left\":3}");
    for (int r = 0; r < 4; r++)
        vm_power(m, 0.5, r, r == 3 ? 130 : 500, NAN, NAN, 0);
    vm_power(m, 0.51, 0, 500, NAN, NAN, 0);
    struct vm_bin b;
    cr_assert(vm_agg_bin(m, 0.5, &b));
    cr_assert_float_eq(b.sum / b.n, 3 * 500 + 130, 1e-3, "every GPU's sample: %g", b.sum / b.n);
    vm_free(m);
}

/* More GPUs than the view lists (8 ranks on 256 nodes, valid): it holds the first 1024, and counts all of them where
 * it speaks of the cluster; a node's folded iteration reaches its own ranks, 8 a node (until 2026-11-30 the start's
 * count was dropped: "8 ranks on 256 nodes", 0 ranks a node, no iteration, % TDP of 8 GPUs) */
Test(tui_model, more_gpus_than_the_view_lists_are_counted_whole)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"big\",\"backend\":\"sim\",\"ranks\":8,\"nodes\":256,\"forward\":\"nodes\","
          "\"runs\":1,\"iterations\":100,\"tdp_w\":700,\"sample_hz\":10,\"bus_ranks\":2048,\"recovery\":\"none\"}");
    cr_assert_eq(m->gpus, 2048);
    cr_assert_eq(m->nranks, VM_MAX_RANKS);
    char buf[128];
    cr_assert(strstr(vm_power_title(m, (int)m->gpus, buf, sizeof buf), "2048 GPUs on 256 nodes"), "%s", buf);
    ev(m, "{\"t_s\":0.01,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\"}");
    ev(m, "{\"t_s\":0.2,\"event\":\"node_iteration\",\"node\":3,\"run\":0,\"iter\":4,\"ranks\":8,\"dur_s\":0.03,"
          "\"phases\":{\"compute\":{\"s\":0.02,\"flops\":4e12},\"comm\":{\"s\":0.01,\"bytes\":4194304}}}");
    for (int k = 24; k < 32; k++)
        cr_assert_eq(m->rank[k].iter, 5, "rank %d of node 3", k);
    cr_assert_eq(m->rank[32].iter, 0, "node 4's first rank");
    vm_free(m);
}

/* The GEMM rate is the last phases' flops over their time, as summary.json's tflops (flops over compute time), not
 * the mean of the phases' rates: one GPU 8x slower over four GPUs. Until 2026-11-30 the mean: 2.1x the summary's. */
Test(tui_model, the_gemm_rate_is_flops_over_time_as_the_summary)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    double t = 1, flops = 0, secs = 0;
    for (int i = 0; i < 4; i++)
        for (int r = 0; r < 4; r++) {
            double d = r == 1 ? 0.8 : 0.1;
            ev(m, "{\"t_s\":%.3f,\"event\":\"phase_begin\",\"rank\":%d,\"run\":0,\"iter\":%d,\"phase\":\"compute\"}", t, r, i);
            ev(m, "{\"t_s\":%.3f,\"event\":\"phase_end\",\"rank\":%d,\"run\":0,\"iter\":%d,\"phase\":\"compute\","
                  "\"flops\":1e12}", t + d, r, i);
            flops += 1e12, secs += d;
            t += 1;
        }
    vm_measure(m, 10);
    cr_assert_float_eq(m->m.tflops, flops / secs / 1e12, 1e-9, "%g TFLOP/s, the summary's way %g", m->m.tflops,
                       flops / secs / 1e12);
    cr_assert_float_eq(m->m.tflops, 4.0 / 1.1, 1e-9);
    vm_free(m);
}

/* A record line naming a rank past the run's GPUs (its start said 4) is none of them, and an infinite reading is no
 * reading: the view holds the run's 4 ranks and their aggregate (until 2026-12-02 one such line held 8 ranks, the
 * aggregate blank for ever after, and an inf blanked the whole chart). */
Test(tui_model, a_rank_past_the_run_and_an_infinite_reading_change_nothing)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.001,\"event\":\"worker_error\",\"rank\":7,\"what\":\"x\"}");
    for (int k = 0; k < 10; k++)
        for (int r = 0; r < 4; r++)
            vm_power(m, k * 0.01, r, r == 2 && k == 3 ? INFINITY : 100.0, NAN, NAN, 0);
    vm_power(m, 0.05, 6, 5000, NAN, NAN, 0);   /* out of order as well as out of the run: dropped whole */
    vm_power(m, 0.10, 0, 100, NAN, NAN, 0);
    cr_assert_eq(m->nranks, 4, "ranks held: %d", m->nranks);
    struct vm_bin b;
    cr_assert(vm_agg_bin(m, 0.05, &b));
    cr_assert(isfinite(b.max) && b.max <= 400 + 1e-3, "the aggregate's max %g", (double)b.max);
    cr_assert(vm_rank_bin(m, 2, 0.05, &b));
    cr_assert(isfinite(b.max) && b.max <= 100 + 1e-3, "rank 2's max %g", (double)b.max);
    vm_free(m);
}

/* The view counts as summary.json and the metrics do (until 2026-12-02 it counted otherwise): an injection that failed
 * (done: false) or came between runs (no id) is no fault; an undone report with no id (dropped as stale, never
 * counted) takes none away; a recovery is one recovery_end of node 0's, however many faults it recovered. */
Test(tui_model, faults_and_recoveries_count_as_the_summary)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    ev(m, "{\"t_s\":1,\"event\":\"fault_injected\",\"kind\":\"bitflip\",\"rank\":1,\"fault_spec\":0,\"iter\":3,"
          "\"what\":\"no such buffer\",\"done\":false}");
    ev(m, "{\"t_s\":2,\"event\":\"fault_injected\",\"kind\":\"crash\",\"rank\":2,\"fault_spec\":1,\"iter\":5,"
          "\"done\":true,\"id\":0}");
    ev(m, "{\"t_s\":2,\"event\":\"fault_injected\",\"kind\":\"crash\",\"rank\":3,\"fault_spec\":2,\"iter\":5,"
          "\"done\":true,\"id\":1}");
    ev(m, "{\"t_s\":2.1,\"event\":\"fault_undone\",\"id\":null,\"fault_spec\":3,\"rank\":0,\"iter\":5}");
    cr_assert_eq(m->faults, 2, "two injected, as summary.json; the view: %d", m->faults);
    ev(m, "{\"t_s\":2.2,\"event\":\"recovery_begin\",\"recovery\":\"restart\",\"rank\":2,\"iter\":5}");
    ev(m, "{\"t_s\":3,\"event\":\"recovery_end\",\"recovery\":\"restart\",\"from_iter\":0,\"from\":\"checkpoint\"}");
    ev(m, "{\"t_s\":3,\"event\":\"recovery_end\",\"node\":1,\"recovery\":\"restart\",\"from_iter\":0}");
    ev(m, "{\"t_s\":3.1,\"event\":\"recovered\",\"fault\":0,\"rank\":2,\"recovery\":\"restart\"}");
    ev(m, "{\"t_s\":3.1,\"event\":\"recovered\",\"fault\":1,\"rank\":3,\"recovery\":\"restart\"}");
    cr_assert_eq(m->recoveries, 1, "one recovery of two faults: %d", m->recoveries);
    vm_free(m);
}

/* A step of workload.phases carries its bus bytes: a reduce-scatter's bandwidth is its bus bytes over its time, as
 * summary.json's busbw_gbs (until 2026-12-02 the view took every comm phase as an all-reduce: twice the figure); a
 * stepped run's wait without bus bytes is none. */
Test(tui_model, a_steps_bus_bandwidth_is_its_own_bus_bytes)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"s\",\"backend\":\"sim\",\"ranks\":4,\"runs\":1,\"iterations\":9,"
          "\"bus_ranks\":4}");
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\"}");
    for (int i = 0; i < 5; i++) {
        double t = 1 + i;
        ev(m, "{\"t_s\":%g,\"event\":\"phase_begin\",\"rank\":0,\"phase\":\"comm\"}", t);
        ev(m, "{\"t_s\":%g,\"event\":\"phase_end\",\"rank\":0,\"phase\":\"comm\",\"kind\":\"reduce_scatter\","
              "\"bytes\":1e9,\"bus_bytes\":7.5e8}", t + 0.1);
        ev(m, "{\"t_s\":%g,\"event\":\"phase_begin\",\"rank\":0,\"phase\":\"comm\"}", t + 0.2);
        ev(m, "{\"t_s\":%g,\"event\":\"phase_end\",\"rank\":0,\"phase\":\"comm\",\"kind\":\"allreduce\","
              "\"bytes\":1e9}", t + 0.25);   /* an exposed wait of a stepped run: no bus bytes, no figure */
    }
    vm_measure(m, 10);
    cr_assert_float_eq(m->m.busbw_gbs, 7.5, 1e-6, "0.75 GB of bus bytes in 0.1 s: %g", m->m.busbw_gbs);
    vm_free(m);
}

/* The measurements' window is the run's own: 3 s into a flat 400 W run after a swinging one, the swing is that flat
 * run's (until 2026-12-02 the last 10 s held the run before's peaks: a cap's first 10 s read none's swing). */
Test(tui_model, the_measured_window_starts_at_the_run)
{
    struct vm *m = vm_new();
    ev(m, "%s", start);   /* 4 ranks, 100 Hz */
    ev(m, "{\"t_s\":0,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    for (int k = 0; k <= 800; k++) {
        double t = k * 0.01, w = t < 5 ? (fmod(t, 0.5) < 0.25 ? 700 : 100) : 400;
        if (k == 500)
            ev(m, "{\"t_s\":5,\"event\":\"run_begin\",\"run\":1,\"mitigation\":\"cap\",\"iterations\":100}");
        for (int r = 0; r < 4; r++)
            vm_power(m, t, r, w + 0.05 * ((k * 7 + r * 3) % 5), 1980, 60, 0);
    }
    vm_measure(m, 10);
    cr_assert_lt(m->m.swing_w, 5, "the cap run's own swing (flat): %g W", m->m.swing_w);
    vm_free(m);
}
