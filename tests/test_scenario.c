/* tests/test_scenario.c: scenario parsing — every key, defaults, the echo round trip, and each kind of
 * bad input with its exact message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "detectors/detector.h"
#include "e2e.h"
#include "faults/fault.h"
#include "mitigations/mitigation.h"
#include "recovery/recovery.h"
#include "scenario.h"
#include "util.h"

static const char full[] =
    "name: full-test\n"
    "ranks: 3\n"
    "iterations: 25\n"
    "seed: 42\n"
    "workload:\n"
    "  gemm: { m: 1024, n: 2048, k: 512, dtype: fp16, count: 4 }\n"
    "  allreduce: { bytes: 8MiB, emulate_busbw: 50.5, emulate_ranks: 4096 }\n"
    "  checkpoint: { every: 10, bytes: 1GiB, path: /tmp/x-ckpt, mode: async }\n"
    "power: { sample_hz: 250 }\n"
    "heartbeat: { interval: 50ms, timeout: 2s, startup: 1min }\n"
    "sim:\n"
    "  tflops: 500\n"
    "  busbw: 100\n"
    "  latency: 20us\n"
    "  idle_w: 60\n"
    "  comm_w: 150\n"
    "  compute_w: 650\n"
    "  checkpoint_w: 110\n"
    "  tdp_w: 700\n"
    "  ramp: 5ms\n"
    "  jitter: 0.1\n"
    "  noise_w: 2\n"
    "  speedup: 10\n"
    "  max_dim: 32\n"
    "  max_elems: 1000\n"
    "mitigations:\n"
    "  - none\n"
    "  - none: {}\n";

static const char minimal[] = "name: m\nranks: 2\niterations: 5\n"
                              "workload:\n  gemm: {m: 64, n: 64, k: 64}\n  allreduce: {bytes: 1MiB}\n";

/* Loads text, expecting success. */
static void load_ok(const char *text, struct scenario *sc)
{
    char err[1024] = "";
    int rc = scenario_load_string(text, "t.yaml", sc, err, sizeof err);
    cr_assert_eq(rc, 0, "unexpected error: %s", err);
}

/* Loads text, expecting EXIT_INPUT and exactly the message want. */
static void load_err(const char *text, const char *want)
{
    struct scenario *sc = malloc(sizeof *sc);
    char err[1024] = "";
    int rc = scenario_load_string(text, "t.yaml", sc, err, sizeof err);
    free(sc);
    cr_assert_eq(rc, EXIT_INPUT, "expected exit 2 for:\n%s\ngot %d (%s)", text, rc, err);
    cr_assert_str_eq(err, want);
}

Test(scenario, every_key_parses_to_its_value)
{
    struct scenario sc;
    load_ok(full, &sc);
    cr_assert_str_eq(sc.name, "full-test");
    cr_assert_eq(sc.ranks, 3);
    cr_assert_eq(sc.iterations, 25);
    cr_assert_eq(sc.seed, 42);
    cr_assert_eq(sc.workload.gemm.m, 1024);
    cr_assert_eq(sc.workload.gemm.n, 2048);
    cr_assert_eq(sc.workload.gemm.k, 512);
    cr_assert_eq(sc.workload.gemm.dtype, DT_FP16);
    cr_assert_eq(sc.workload.gemm.count, 4);
    cr_assert_eq(sc.workload.allreduce.bytes, 8u << 20);
    cr_assert_float_eq(sc.workload.allreduce.emulate_busbw_gbs, 50.5, 1e-12);
    cr_assert_eq(sc.workload.allreduce.emulate_ranks, 4096);
    cr_assert_eq(sc.workload.checkpoint.every, 10);
    cr_assert_eq(sc.workload.checkpoint.bytes, 1ull << 30);
    cr_assert_str_eq(sc.workload.checkpoint.path, "/tmp/x-ckpt");
    cr_assert_eq(sc.workload.checkpoint.mode, CKPT_ASYNC);
    cr_assert_float_eq(sc.power.sample_hz, 250, 1e-12);
    cr_assert_float_eq(sc.heartbeat.interval_s, 0.05, 1e-12);
    cr_assert_float_eq(sc.heartbeat.timeout_s, 2, 1e-12);
    cr_assert_float_eq(sc.heartbeat.startup_s, 60, 1e-12);
    cr_assert_float_eq(sc.sim.tflops, 500, 1e-12);
    cr_assert_float_eq(sc.sim.busbw_gbs, 100, 1e-12);
    cr_assert_float_eq(sc.sim.latency_s, 20e-6, 1e-15);
    cr_assert_float_eq(sc.sim.idle_w, 60, 1e-12);
    cr_assert_float_eq(sc.sim.comm_w, 150, 1e-12);
    cr_assert_float_eq(sc.sim.compute_w, 650, 1e-12);
    cr_assert_float_eq(sc.sim.ckpt_w, 110, 1e-12);
    cr_assert_float_eq(sc.sim.tdp_w, 700, 1e-12);
    cr_assert_float_eq(sc.sim.ramp_s, 0.005, 1e-12);
    cr_assert_float_eq(sc.sim.jitter, 0.1, 1e-12);
    cr_assert_float_eq(sc.sim.noise_w, 2, 1e-12);
    cr_assert_float_eq(sc.sim.speedup, 10, 1e-12);
    cr_assert_eq(sc.sim.max_dim, 32);
    cr_assert_eq(sc.sim.max_elems, 1000);
    cr_assert_eq(sc.n_mitigations, 2);
    cr_assert_str_eq(sc.mitigations[0].name, "none");
    cr_assert_str_eq(sc.mitigations[1].name, "none");
    cr_assert_eq(sc.mitigations[1].line, 28);
}

Test(scenario, defaults_fill_what_is_not_given)
{
    struct scenario sc;
    load_ok(minimal, &sc);
    cr_assert_eq(sc.seed, 1);
    cr_assert_eq(sc.workload.gemm.dtype, DT_BF16);
    cr_assert_eq(sc.workload.gemm.count, 1);
    cr_assert_eq(sc.workload.checkpoint.every, 0);
    cr_assert_eq(sc.workload.checkpoint.bytes, 64u << 20);
    cr_assert_float_eq(sc.power.sample_hz, 100, 1e-12);
    cr_assert_float_eq(sc.heartbeat.interval_s, 0.1, 1e-12);
    cr_assert_float_eq(sc.sim.compute_w, 780, 1e-12);
    cr_assert_eq(sc.n_mitigations, 1);
    cr_assert_str_eq(sc.mitigations[0].name, "none");
}

Test(scenario, resolved_echo_reads_back_identical)
{
    struct scenario a, b;
    load_ok(full, &a);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(scenario_write(&a, f), 0);
    fclose(f);
    load_ok(text, &b);
    free(text);
    str_copy(b.file, sizeof b.file, a.file);
    for (int i = 0; i < a.n_mitigations; i++)
        b.mitigations[i].line = a.mitigations[i].line;   /* positions differ, values must not */
    for (int i = 0; i < a.n_detectors; i++)
        b.detectors[i].line = a.detectors[i].line;
    for (int i = 0; i < a.n_faults; i++)
        b.faults[i].line = a.faults[i].line;
    b.recovery.line = a.recovery.line;
    b.nodes_line = a.nodes_line;
    b.ranks_line = a.ranks_line;
    b.ranks_col = a.ranks_col;
    memcpy(b.keypos, a.keypos, sizeof b.keypos);
    cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "the echo of the resolved scenario does not read back the same");
}

Test(scenario, shipped_scenarios_are_valid)
{
    static const char *const names[] = { "demo", "gpu-single", "fault-drill", "sdc-burnin", "mitigation-compare",
                                         "fault-latency", "checkpoint-async", "fingerprint-async",
                                         "acceptance/L1-drill", "acceptance/L1-perf", "acceptance/L1-swing",
                                         "acceptance/L2-soak", "acceptance/L3-burnin" };
    struct scenario sc;
    char err[1024], path[1024];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/scenarios/%s.yaml", GAUNTLET_SRC, names[i]);
        cr_assert_eq(scenario_load(path, &sc, err, sizeof err), 0, "%s", err);
    }
}

Test(scenario_errors, unknown_key)
{
    load_err("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1, dtpye: bf16}\n",
             "t.yaml:5:28: workload.gemm.dtpye: unknown key (expected one of: m, n, k, dtype, count)");
}

Test(scenario_errors, missing_required_key)
{
    load_err("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1}\n  allreduce: {bytes: 1MiB}\n",
             "t.yaml:5:9: workload.gemm.k: missing required key (an integer in [1, 1048576]: inner dimension)");
    load_err("name: x\nranks: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n",
             "t.yaml:1:1: iterations: missing required key (an integer in [1, 1000000000]: training iterations per mitigation)");
}

Test(scenario_errors, duplicate_key)
{
    load_err("name: x\nranks: 1\nranks: 2\n", "t.yaml:3:1: ranks: duplicate key (first given at line 2)");
}

Test(scenario_errors, wrong_type)
{
    load_err("name: x\nranks: four\n", "t.yaml:2:8: ranks: expected an integer in [1, 4096], got 'four'");
    load_err("name: x\nranks: [1, 2]\n", "t.yaml:2:8: ranks: expected an integer in [1, 4096], got a list");
    load_err("name: x\nranks: 1\niterations: 1\nworkload: 5\n", "t.yaml:4:11: workload: expected a mapping of keys");
}

#define HEAD "name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n"

Test(scenario_errors, out_of_range)
{
    load_err("name: x\nranks: 0\n", "t.yaml:2:8: ranks: expected an integer in [1, 4096], got '0'");
    load_err(HEAD "sim: {jitter: 2}\n", "t.yaml:7:15: sim.jitter: expected a number in [0, 1], got '2'");
    load_err(HEAD "power: {sample_hz: 20000}\n", "t.yaml:7:20: power.sample_hz: expected a number in [0, 10000], got '20000'");
}

/* Values each in range whose meaning is not: a sampler once an hour, a heartbeat timeout inside one interval. */
Test(scenario_errors, values_that_cannot_work_together)
{
    load_err(HEAD "power: {sample_hz: 1e-12}\n",
             "t.yaml:7:9: power.sample_hz: expected 0 (no sampling) or at least 1 Hz, got 1e-12");
    /* keys that did nothing or judged wrongly as given (until 2026-12-02): a checkpoint's silence shorter than the
     * timeout (the longer is taken), a forwarding rate of a row a day, a power check without power readings (every
     * GPU a FAIL as sensorless) */
    load_err(HEAD "heartbeat: {timeout: 30s, checkpoint: 5s}\n",
             "t.yaml:7:27: heartbeat.checkpoint: expected at least heartbeat.timeout (30 s): a rank writing a checkpoint "
             "is never judged on less, got 5 s");
    load_err(HEAD "power: {forward_hz: 0.5}\n", "t.yaml:7:9: power.forward_hz: expected 0 or at least 1 Hz, got 0.5");
    load_err(HEAD "power: {sample_hz: 0}\nchecks: {throttle: {}}\n",
             "t.yaml:8:10: checks.throttle: needs power readings, and power.sample_hz is 0 (no sampling): give "
             "power.sample_hz, or leave the check out");
    load_err(HEAD "heartbeat: {interval: 60s, timeout: 10ms}\n",
             "t.yaml:7:28: heartbeat.timeout: expected longer than heartbeat.interval (60 s), got 0.01 s: every rank "
             "would be hung between two beats");
    /* the interval alone past the default timeout: the interval's line (it named heartbeat.timeout at 1:1, a key the
     * file does not have, until 2026-12-02) */
    load_err(HEAD "heartbeat: {interval: 20s}\n",
             "t.yaml:7:13: heartbeat.interval: expected shorter than heartbeat.timeout (10 s, the default), got 20 s: "
             "every rank would be hung between two beats");
    /* a step's GEMM too small for abft: the steps' line (workload.gemm.m at 1:1 once) */
    load_err("name: m\nranks: 1\niterations: 5\nworkload:\n  phases:\n    - gemm: {m: 2, n: 64, k: 64}\n"
             "    - allreduce: {bytes: 1MiB}\ndetectors: [abft]\n",
             "t.yaml:5:3: workload.phases: abft needs at least 3 rows in the GEMM (its last 2 carry the checksum), got 2");
    /* abft's checksum takes the GEMM's last two rows: fewer than 3, and nothing is left to check */
    load_err("name: m\nranks: 1\niterations: 5\nworkload:\n  gemm: {m: 2, n: 64, k: 64}\n  allreduce: {bytes: 1MiB}\n"
             "detectors: [abft]\n",
             "t.yaml:5:10: workload.gemm.m: abft needs at least 3 rows in the GEMM (its last 2 carry the checksum), got 2");
    load_err("name: m\nranks: 1\niterations: 5\nworkload:\n  gemm: {m: 64, n: 64, k: 64}\n  allreduce: {bytes: 1MiB}\n"
             "sim: {max_dim: 2}\ndetectors: [abft]\n",
             "t.yaml:7:7: sim.max_dim: abft needs at least 3 rows in the GEMM (its last 2 carry the checksum), got 2");
    /* a fault's keys that would do nothing as given (taken and ignored until 2026-12-02) */
    load_err(HEAD "faults: [{kind: bitflip, at: 1, where: exponent, value: 0.5}]\n",
             "t.yaml:7:57: faults[0].value: expected only with where: value (the element multiplied by 1 + value); "
             "where: exponent flips bits");
    load_err(HEAD "faults: [{kind: bitflip, at: 1, where: value, bits: 3}]\n",
             "t.yaml:7:53: faults[0].bits: expected only where bits are flipped; where: value multiplies the element by "
             "1 + value");
    load_err(HEAD "faults: [{kind: bitflip, at: 1, where: sign, bits: 2}]\n",
             "t.yaml:7:52: faults[0].bits: expected 1 with where: sign (the sign is one bit), got 2");
    load_err(HEAD "faults: [{kind: node-crash, at: 1, node: 0, rank: 0}]\n",
             "t.yaml:7:51: faults[0].rank: expected node, not rank: a node-crash takes every rank of its node");
    /* faults that would change nothing (run, and counted as misses, until 2026-12-02) */
    load_err(HEAD "faults: [{kind: straggler, at: 1, factor: 1}]\n",
             "t.yaml:7:43: faults[0].factor: expected more than 1: a factor of 1 slows nothing");
    load_err(HEAD "faults: [{kind: bitflip, at: 1, where: value, value: 0}]\n",
             "t.yaml:7:54: faults[0].value: expected a value other than 0: the element times 1 + 0 is left as it was");
    /* what the resolved scenario.yaml held for every fault until 2026-12-02, each key at its default, still loads */
    static struct scenario old;
    load_ok(HEAD "faults:\n  - {kind: bitflip, at: 0, rank: 0, target: weights, where: exponent, bits: 1, value: 0.01}\n"
                 "  - {kind: bitflip, at: 0, rank: 0, target: weights, where: value, bits: 1, value: 0.5}\n"
                 "  - {kind: node-crash, at: 0, rank: random, node: 0}\n", &old);
    /* a cap a GPU would refuse: 0, or under its idle power */
    load_err(HEAD "mitigations: [none, {cap: {cap: 0%}}]\n",
             "t.yaml:7:1: mitigations[1].cap: expected a power limit above 0 (a GPU refuses a limit of 0; `none` runs "
             "without one), got 0%");
    /* the modelled sensor: sub-samples 0.1 ms apart, its last 64 updates kept for a lagged reading */
    load_err(HEAD "sim: {sensor: {update: 0.5ms}}\n",
             "t.yaml:7:16: sim.sensor.update: expected 0 (no sensor: the electrical power itself) or at least 1ms, got 0.5ms");
    load_err(HEAD "sim: {sensor: {update: 10ms, lag: 400ms}}\n",
             "t.yaml:7:30: sim.sensor.lag: expected at most 32 updates (320ms), got 400ms");
    load_err(HEAD "sim: {sensor: {update: 0, mode: point}}\n",
             "t.yaml:7:27: sim.sensor.mode: expected mean with sim.sensor.update 0 (no sensor: the electrical power "
             "itself, read as it is), got point");
    load_err(HEAD "sim: {sensor: {update: 0, lag: 50ms}}\n",   /* no sensor: a lag did nothing, said nothing */
             "t.yaml:7:27: sim.sensor.lag: expected 0 with sim.sensor.update 0 (no sensor: the electrical power itself, "
             "read as it is), got 50ms");
    /* shrink drops ranks: one rank in all leaves nothing; one per node on several nodes is a cluster it can shrink */
    load_err(HEAD "recovery: shrink\n", "t.yaml:7:1: recovery: shrink needs at least 2 ranks in all (ranks x nodes), got 1");
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[512];
    cr_assert_eq(scenario_load_string(HEAD "recovery: shrink\nnodes: 3\n", "t.yaml", sc, err, sizeof err), 0, "%s", err);
    free(sc);
}

Test(scenario_errors, bad_units)
{
    load_err("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 8 MeB}\n",
             "t.yaml:6:22: workload.allreduce.bytes: expected a size such as 8MiB or 1GiB, in [4B, 64GiB], got '8 MeB'");
    load_err(HEAD "heartbeat: {timeout: 5 parsecs}\n",
             "t.yaml:7:22: heartbeat.timeout: expected a duration such as 500ms or 2s, in [10ms, 86400s], got '5 parsecs'");
    load_err(HEAD "heartbeat: {interval: -1s}\n",
             "t.yaml:7:23: heartbeat.interval: expected a duration such as 500ms or 2s, in [1ms, 60s], got '-1s'");
}

Test(scenario_errors, bad_enum)
{
    load_err("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1, dtype: fp64}\n",
             "t.yaml:5:35: workload.gemm.dtype: expected one of: bf16,fp16,tf32,fp8, got 'fp64'");
}

Test(scenario_errors, yaml_syntax)
{
    load_err("name: x\nranks: [1, 2\n",
             "t.yaml:3:1: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence");
}

Test(scenario_errors, empty_and_missing_file)
{
    load_err("", "t.yaml:1:1: the file is empty (expected a scenario mapping with name, ranks, iterations, workload)");
    struct scenario sc;
    char err[512];
    cr_assert_eq(scenario_load("/nonexistent/s.yaml", &sc, err, sizeof err), EXIT_INPUT);
    cr_assert_str_eq(err, "/nonexistent/s.yaml: cannot open scenario: No such file or directory");
}

Test(scenario_errors, mitigations)
{
    load_err(HEAD "mitigations: [none, fillr]\n",
             "t.yaml:7:21: mitigations[1]: unknown mitigation 'fillr' (expected one of: none, filler, ramp, stagger, cap, smoothing, bess)");
    load_err(HEAD "mitigations: []\n", "t.yaml:7:14: mitigations: expected at least one mitigation (e.g. [none])");
    load_err(HEAD "mitigations:\n  - none: {floor: 80%}\n", "t.yaml:8:11: mitigations[0]: mitigation 'none' takes no parameters");
    load_err(HEAD "mitigations:\n  - [none]\n", "t.yaml:8:5: mitigations[0]: expected a mitigation name or {name: {parameters}}");
    load_err(HEAD "mitigations:\n  - filler: {floor: 80}\n",
             "t.yaml:8:21: mitigations[0].filler.floor: expected a power as % of TDP in [0%, 100%] (80%) or watts in [0W, 5000W] (560W), got '80'");
    load_err(HEAD "mitigations:\n  - stagger: {groups: 0}\n",
             "t.yaml:8:23: mitigations[0].stagger.groups: expected an integer in [1, 4096], got '0'");
}

Test(scenario, faults_detectors_recovery_parse)
{
    struct scenario sc;
    load_ok("name: x\nranks: 1\niterations: 6\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n"
            "faults:\n  - {kind: bitflip, at: 5, rank: 0, target: weights, where: value, value: 0.5}\n"
                 "  - {kind: crash, at_s: 2s}\n  - {kind: straggler, rate_per_hour: 3, factor: 2, duration: 1s}\n"
                 "detectors: [fingerprint, {replay: {every: 7}}]\nrecovery: {inprocess: {replicate_every: 4}}\n", &sc);
    cr_assert_eq(sc.n_faults, 3);
    cr_assert_eq(sc.faults[0].at, 5);
    cr_assert_eq(sc.faults[0].rank, 0);
    cr_assert_float_eq(sc.faults[1].at_s, 2, 1e-12);
    cr_assert_eq(sc.faults[1].rank, -1, "rank defaults to random");
    cr_assert_float_eq(sc.faults[2].rate_per_hour, 3, 1e-12);
    cr_assert_eq(sc.n_detectors, 2);
    cr_assert_str_eq(sc.recovery.name, "inprocess");
    cr_assert_eq(*(const int64_t *)sc.recovery.params, 4);
}

Test(scenario, a_list_of_values_sweeps_a_mitigation)
{
    struct scenario sc;
    load_ok(HEAD "mitigations:\n  - none\n  - filler: {floor: [50%, 65%, 560W]}\n  - ramp\n", &sc);
    cr_assert_eq(sc.n_mitigations, 5);
    cr_assert_str_eq(sc.mitigations[1].label, "filler floor=50%");
    cr_assert_str_eq(sc.mitigations[2].label, "filler floor=65%");
    cr_assert_str_eq(sc.mitigations[3].label, "filler floor=560W");
    cr_assert_str_eq(sc.mitigations[4].name, "ramp");
    load_err(HEAD "mitigations:\n  - smoothing: {floor: [50%, 60%], ramp_up_w_s: [1, 2]}\n",
             "t.yaml:8:49: mitigations[0].smoothing.ramp_up_w_s: only one parameter of a mitigation can be swept");
    load_err(HEAD "mitigations:\n  - filler: {floor: [50%, 9000W]}\n",
             "t.yaml:8:27: mitigations[0]: floor: expected a power as % of TDP in [0%, 100%] (80%) or watts in [0W, 5000W] (560W), got '9000W'");
}

Test(scenario, mitigations_auto_expands_the_search)
{
    struct scenario sc;
    load_ok(HEAD "mitigations: auto\n", &sc);
    cr_assert(sc.auto_search);
    cr_assert_eq(sc.n_mitigations, 15);
    cr_assert_str_eq(sc.mitigations[0].name, "none");
    cr_assert_str_eq(sc.mitigations[3].label, "filler floor=80%");
    cr_assert_str_eq(sc.mitigations[10].label, "stagger groups=2 offset=20ms");
    cr_assert_str_eq(sc.mitigations[13].label, "bess size=50 window=2s", "storage, sized from the measured swing");
    load_ok(HEAD "search_budget: 4\nmitigations: auto\n", &sc);
    cr_assert_eq(sc.n_mitigations, 4, "the budget bounds the search");
}

Test(scenario, projection_spec_parses)
{
    struct scenario sc;
    load_ok(HEAD "projection: {gpus: 100000, groups: 8, spec: {max_ramp_up_mw_s: 10, band: [0.2, 3], max_band_share: 0.25}}\n",
            &sc);
    cr_assert_eq(sc.projection.gpus, 100000);
    cr_assert_eq(sc.projection.groups, 8);
    cr_assert_float_eq(sc.projection.spec.max_ramp_up_mw_s, 10, 1e-12);
    cr_assert_float_eq(sc.projection.spec.band_lo_hz, 0.2, 1e-12);
    cr_assert_float_eq(sc.projection.spec.band_hi_hz, 3, 1e-12);
    cr_assert_float_eq(sc.projection.spec.max_band_share, 0.25, 1e-12);
    load_err(HEAD "projection: {spec: {band: [3, 0.2]}}\n",
             "t.yaml:7:27: projection.spec.band: expected a pair [lo, hi] of numbers in [0, 1e+06], lo < hi, got [3, 0.2]");
    load_err(HEAD "projection: {spec: {band: 5}}\n",
             "t.yaml:7:27: projection.spec.band: expected a pair [lo, hi] of numbers in [0, 1e+06], lo < hi");
}

Test(scenario_errors, bad_faults)
{
    load_err(HEAD "faults: [{kind: meteor, at: 5}]\n",
             "t.yaml:7:17: faults[0].kind: unknown fault 'meteor' (expected one of: bitflip, crash, hang, straggler, comm-error, node-crash)");
    load_err(HEAD "faults: [{kind: crash, at: 5, rank: 3}]\n",
             "t.yaml:7:37: faults[0].rank: rank 3 is out of range: the scenario has ranks 0..0");
    load_err(HEAD "faults: [{kind: crash, rank: 0}]\n",
             "t.yaml:7:10: faults[0]: expected exactly one of at (iteration), at_s (seconds) or rate_per_hour, got 0");
    load_err(HEAD "faults: [{at: 3}]\n", "t.yaml:7:10: faults[0]: missing required key 'kind' (one of: bitflip, crash, hang, straggler, comm-error, node-crash)");
    load_err(HEAD "faults: [{kind: crash, at: 3, target: weights}]\n",
             "t.yaml:7:31: faults[0].target: unknown key for a crash fault (expected one of: kind, at, at_s, rate_per_hour, rank, signal)");
    load_err(HEAD "detectors: [fingerprint, xray]\n",
             "t.yaml:7:26: detectors[1]: unknown detector 'xray' (expected one of: exit, heartbeat, fingerprint, abft, replay, comm)");
    load_err(HEAD "recovery: reboot\n",
             "t.yaml:7:11: recovery: unknown recovery 'reboot' (expected one of: none, restart, inprocess, spare, shrink)");
}

Test(scenario_errors, a_fault_that_can_never_fire)
{
    struct scenario sc;
    load_err(HEAD "faults: [{kind: crash, at: 1}]\n",
             "t.yaml:7:28: faults[0].at: iteration 1 is never reached: each run has iterations 0..0");
    load_err("name: x\nranks: 1\niterations: 5\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n"
             "faults:\n  - {kind: bitflip, at: 4, rank: 0}\n  - {kind: hang, rank: 0, at: 10}\n",
             "t.yaml:9:31: faults[1].at: iteration 10 is never reached: each run has iterations 0..4");
    load_err(HEAD "faults: [{kind: node-crash, at: 0, node: 5}]\n",
             "t.yaml:7:42: faults[0].node: node 5 is out of range: the scenario has nodes 0..0");
    load_err(HEAD "nodes: 2\nfaults: [{kind: node-crash, at: 0, node: 2}]\n",
             "t.yaml:8:42: faults[0].node: node 2 is out of range: the scenario has nodes 0..1");
    load_err(HEAD "nodes: 3\nfaults: [{kind: crash, at: 0, rank: 3}]\n",
             "t.yaml:8:37: faults[0].rank: rank 3 is out of range: the scenario has ranks 0..2 (global: node x ranks + "
             "local rank)");
    /* the last iteration, the last node and the last global rank are reachable; so is node 0 by default */
    load_ok(HEAD "nodes: 3\nfaults:\n  - {kind: crash, at: 0, rank: 2}\n  - {kind: node-crash, at: 0, node: 2}\n"
                 "  - {kind: node-crash, at: 0}\n  - {kind: hang, at_s: 1h}\n", &sc);
    cr_assert_eq(sc.faults[0].rank, 2);
    cr_assert_eq(((const struct node_crash_params *)sc.faults[1].params)->node, 2);
    /* a global rank past one node's 4096 ranks */
    load_ok("name: x\nranks: 8\nnodes: 1000\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
            "  allreduce: {bytes: 1MiB}\nfaults: [{kind: crash, at: 0, rank: 7999}]\n", &sc);
    cr_assert_eq(sc.faults[0].rank, 7999);
}

Test(scenario_errors, one_yaml_document_only)
{
    struct scenario sc;
    load_err(HEAD "---\nname: y\n", "t.yaml:7:1: a second YAML document ('---'): a scenario file is one YAML document");
    load_err(HEAD "---\n", "t.yaml:7:1: a second YAML document ('---'): a scenario file is one YAML document");
    load_err(HEAD "...\ngarbage: 1\n",
             "t.yaml:8:1: content after the end of the document ('...'): a scenario file is one YAML document");
    load_err(HEAD "...\n  ]]\n",
             "t.yaml:8:3: content after the end of the document ('...'): a scenario file is one YAML document");
    load_ok("---\n" HEAD "...\n# only a comment after the end\n", &sc);
    cr_assert_eq(sc.ranks, 1);
}

Test(scenario_errors, nesting_deeper_than_the_cap)
{
    /* 64 levels (the top mapping and 63 lists) parse, and the walker names the unknown key; 65 do not */
    char text[512];
    snprintf(text, sizeof text, "name: x\ndeep: %.*s%.*s\n", SC_MAX_DEPTH - 1,
             "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", SC_MAX_DEPTH - 1,
             "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
    struct scenario *sc = malloc(sizeof *sc);
    char err[1024];
    cr_assert_eq(scenario_load_string(text, "t.yaml", sc, err, sizeof err), EXIT_INPUT);
    cr_assert(strstr(err, "t.yaml:2:1: deep: unknown key"), "%s", err);
    free(sc);
    snprintf(text, sizeof text, "name: x\ndeep: %.*s%.*s\n", SC_MAX_DEPTH,
             "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", SC_MAX_DEPTH,
             "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
    load_err(text, "t.yaml:2:70: YAML nesting deeper than 64 levels (the most a scenario may nest)");
    load_err("name: x\ndeep:\n"
             " a:\n  a:\n   a:\n    a:\n     a:\n      a:\n       a:\n        a:\n         a:\n          a:\n"
             "           a:\n            a:\n             a:\n              a:\n               a:\n                a:\n"
             "                 - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - 1\n",
             "t.yaml:19:112: YAML nesting deeper than 64 levels (the most a scenario may nest)");
}

/* Loads head, open x depth, close x depth and expects the nesting error want, within a second. */
static void deep_rejected_fast(const char *head, const char *open, const char *close, int depth, const char *want)
{
    size_t lo = strlen(open), lc = strlen(close);
    char *text = malloc((lo + lc) * (size_t)depth + strlen(head) + 2), *p = text;
    p += sprintf(p, "%s", head);
    for (int i = 0; i < depth; i++, p += lo)
        memcpy(p, open, lo);
    for (int i = 0; i < depth; i++, p += lc)
        memcpy(p, close, lc);
    strcpy(p, "\n");
    struct scenario *sc = malloc(sizeof *sc);
    char err[1024];
    uint64_t t0 = mono_ns();
    int rc = scenario_load_string(text, "t.yaml", sc, err, sizeof err);
    double s = (double)(mono_ns() - t0) * 1e-9;
    free(sc);
    free(text);
    cr_assert_eq(rc, EXIT_INPUT);
    cr_assert_str_eq(err, want);
    cr_assert_lt(s, 1.0, "%d-deep nesting of '%s' took %.3f s to reject", depth, open, s);
}

Test(scenario_errors, deep_nesting_is_rejected_fast, .timeout = 60)
{
    /* libyaml's scanner is quadratic in flow depth: 200k levels took over 10 s before the cap */
    deep_rejected_fast("name: x\ndeep: ", "[", "]", 200000,
                       "t.yaml:2:70: YAML nesting deeper than 64 levels (the most a scenario may nest)");
    deep_rejected_fast("name: x\ndeep: ", "{a: ", "}", 200000,
                       "t.yaml:2:259: YAML nesting deeper than 64 levels (the most a scenario may nest)");
    deep_rejected_fast("name: x\ndeep:\n", "- ", "", 200000,
                       "t.yaml:3:127: YAML nesting deeper than 64 levels (the most a scenario may nest)");
}

Test(scenario, anchors_and_aliases_still_work)
{
    struct scenario sc;
    load_ok("name: x\nranks: &r 2\niterations: *r\nworkload:\n  gemm: &g {m: 8, n: 8, k: 8}\n"
            "  allreduce: {bytes: 1MiB}\nprojection: {gpus: *r}\n", &sc);
    cr_assert_eq(sc.iterations, 2);
    cr_assert_eq(sc.projection.gpus, 2);
    load_err("name: x\nranks: 2\niterations: 2\nworkload: &w\n  gemm: *w\n",
             "t.yaml:5:9: YAML: alias '*w' names no anchor given before it");
}

/* Anchors are bounded (each alias looks its anchor up among them: 60,000 once took 36 s to refuse), and an error
 * whose key is none names none (it read ": expected a plain key") */
Test(scenario, anchors_are_bounded_and_an_empty_key_is_named_by_its_place)
{
    size_t cap = 1 << 16;
    char *t = malloc(cap), err[1024] = "";
    int n = snprintf(t, cap, "name: x\nx: [");
    for (int i = 0; i < 1025; i++)
        n += snprintf(t + n, cap - (size_t)n, "&a%d 1, ", i);
    snprintf(t + n, cap - (size_t)n, "*a0]\n");
    struct scenario *sc = malloc(sizeof *sc);
    cr_assert_eq(scenario_load_string(t, "t.yaml", sc, err, sizeof err), EXIT_INPUT);
    cr_assert(strstr(err, "t.yaml:2:") && strstr(err, "YAML: more than 1024 anchors"), "%s", err);
    free(sc);
    free(t);
    load_err("name: x\nranks: 1\niterations: 4\n? [a, b]\n: 1\n", "t.yaml:4:3: expected a plain key");
    /* a value quoted from the file is shown, never sent to the terminal: an escape sequence as \x1b */
    sc = malloc(sizeof *sc);
    cr_assert_eq(scenario_load_string("name: \"\\e[31mRED\"\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
                                      "  allreduce: {bytes: 1MiB}\n", "t.yaml", sc, err, sizeof err), EXIT_INPUT);
    free(sc);
    cr_assert(!strchr(err, 0x1b) && strstr(err, "got '\\x1b[31mRED'"), "%s", err);
}

/* What a run would silently change or never judge is refused: more groups than GPUs (clamped before), and a spec's
 * band past half the sampling rate (its share has no bin on the grid) */
Test(scenario_errors, groups_past_gpus_and_a_band_past_the_sampling)
{
    load_err(HEAD "projection: {gpus: 10, groups: 11}\n",
             "t.yaml:7:24: projection.groups: expected at most projection.gpus (10) groups, got 11");
    load_err(HEAD "power: {sample_hz: 10}\nprojection: {spec: {max_band_share: 0.1}}\n",
             "t.yaml:8:21: projection.spec.band: expected a band whose top is at most half power.sample_hz (5 Hz) for "
             "max_band_share to be judged, got [0.1, 20] Hz: raise power.sample_hz to at least 40, or lower the band");
    struct scenario sc;   /* the band within half the rate, or no clause on it: judged, or nothing to judge */
    load_ok(HEAD "power: {sample_hz: 10}\nprojection: {spec: {band: [0.1, 5], max_band_share: 0.1}}\n", &sc);
    load_ok(HEAD "power: {sample_hz: 10}\nprojection: {spec: {dynamic_range_mw: 3}}\n", &sc);
}

/* The sim's "more than a day" names the key where the file gives it (its line and column, the step's line in the
 * text), else the step's line and says the key is at its default (it named no line, or the step's with another key) */
Test(scenario, the_sims_longest_step_names_the_key_where_it_is_given)
{
    struct scenario sc;
    char why[512];
    load_ok("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1048576, n: 1048576, k: 1048576}\n"
            "  allreduce: {bytes: 1MiB}\nsim: {tflops: 0.000001}\n", &sc);
    cr_assert_eq(backend_find("sim")->check(&sc, why, sizeof why), EXIT_INPUT);
    cr_expect(strstr(why, "t.yaml:7:15: sim.tflops: an iteration takes") == why, "%s", why);
    load_ok("name: x\nranks: 1\niterations: 1\nworkload:\n  phases:\n    - gemm: {m: 1048576, n: 1048576, k: 1048576, "
            "count: 100000}\n    - allreduce: {bytes: 1MiB}\n", &sc);
    cr_assert_eq(backend_find("sim")->check(&sc, why, sizeof why), EXIT_INPUT);
    cr_expect(strstr(why, "t.yaml:6:1: sim.tflops: the gemm step given here takes") == why && strstr(why, ", its default)"),
              "%s", why);
}

Test(scenario, ranks_position_is_kept_for_a_backends_limit)
{
    struct scenario sc;
    load_ok("name: x\niterations: 1\nranks:   257\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n", &sc);
    cr_assert_eq(sc.ranks_line, 3);
    cr_assert_eq(sc.ranks_col, 10);
    char why[512];   /* the sim backend's limit names the place */
    cr_assert_eq(backend_find("sim")->check(&sc, why, sizeof why), EXIT_INPUT);
    cr_expect_str_eq(why, "t.yaml:3:10: ranks: 257 worker processes on one machine is more than the sim backend allows (256)");
    cr_expect(scenario_located(&sc, why));
}

Test(scenario_errors, name_must_be_a_folder_name)
{
    load_err("name: ../etc\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n",
             "t.yaml:1:1: name: expected letters, digits, '-', '_' or '.' (it names a folder), got '../etc'");
    const char *dots[] = { ".", ".." };
    for (int i = 0; i < 2; i++) {
        char text[256], want[256];
        snprintf(text, sizeof text, "ranks: 1\nname: '%s'\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
                                    "  allreduce: {bytes: 1MiB}\n", dots[i]);
        snprintf(want, sizeof want, "t.yaml:2:1: name: expected a folder name other than '.' and '..' (the run's files "
                                    "would land in the results folder itself or its parent), got '%s'", dots[i]);
        load_err(text, want);
    }
}

Test(scenario_errors, top_level_not_a_mapping)
{
    load_err("- a\n- b\n", "t.yaml:1:1: expected a mapping of keys");
}

/* Detectors say, as data, which fault kinds a finding of theirs can be: every kind named exists, every fault kind is
 * found by some detector, and the straggler/hang split of the heartbeat is the detector's own. */
Test(plugins, detectors_name_the_fault_kinds_they_find)
{
    int found[64] = { 0 };
    for (int d = 0; detector_table[d]; d++) {
        cr_assert(detector_table[d]->finds && *detector_table[d]->finds, "%s finds nothing", detector_table[d]->name);
        for (int slow = 0; slow < 2; slow++) {
            char kind[32];
            detector_observed_kind(d, slow, kind, sizeof kind);
            int known = 0;
            for (int k = 0; fault_table[k]; k++) {
                if (detector_finds(d, slow, fault_table[k]->name))
                    found[k] = 1;
                known |= strcmp(fault_table[k]->name, kind) == 0;
            }
            cr_assert(known, "%s: an observed finding is recorded as '%s', which is no fault kind", detector_table[d]->name,
                      kind);
        }
    }
    for (int k = 0; fault_table[k]; k++)
        cr_expect(found[k], "no detector finds a %s", fault_table[k]->name);
    cr_assert(detector_finds(DET_HEARTBEAT, 1, "straggler") && detector_finds(DET_HEARTBEAT, 0, "hang"));
    cr_assert(!detector_finds(DET_HEARTBEAT, 0, "straggler") && !detector_finds(DET_EXIT, 0, "hang"));
    cr_assert(detector_finds(DET_EXIT, 0, "node-crash") && !detector_finds(DET_ABFT, 0, "crash"));
    for (int d = 0; detector_table[d]; d++) {   /* where it checks is its own: a worker point with a check, or the supervisor */
        const struct detector_ops *dt = detector_table[d];
        cr_expect(dt->point == -1 ? dt->check == NULL : dt->point >= 0 && dt->point < IP_COUNT && dt->check != NULL,
                  "%s: point %d", dt->name, dt->point);
    }
}

/* The fingerprint's slices (what each iteration hashes with `slices`): over random buffer sizes, counts and
 * alignments, the slices of a buffer cover it exactly, in order, without overlap, every start but the first a
 * multiple of the alignment and each slice within one alignment of bytes / slices; one slice is the whole buffer.
 * The window the fault ledger gives a finding grows with the slices (and the async fingerprint's iteration). */
Test(plugins, fingerprint_slices_cover_each_buffer_once)
{
    struct rng g;
    rng_seed(&g, 29, 0);
    for (int trial = 0; trial < 20000; trial++) {
        size_t bytes = trial < 10 ? (size_t)trial : (size_t)(rng_next(&g) >> (rng_next(&g) % 60));
        int slices = 1 + (int)(rng_next(&g) % (trial % 3 ? 16 : 1024));
        size_t align = (size_t)1 << (rng_next(&g) % 7), at = 0;
        for (int k = 0; k < slices; k++) {
            size_t off, len;
            fingerprint_slice(bytes, k, slices, align, &off, &len);
            cr_assert_eq(off, at, "trial %d: %zu bytes, slice %d of %d starts at %zu, the last ended at %zu", trial,
                         bytes, k, slices, off, at);
            cr_assert(k == 0 || off % align == 0, "trial %d: slice %d starts at %zu (align %zu)", trial, k, off, align);
            size_t even = bytes / (size_t)slices;   /* within an alignment (and a byte of rounding) of it */
            cr_assert(len + align + 1 >= even && len <= even + align + 1, "trial %d: slice %d of %d is %zu bytes, "
                      "%zu even (align %zu)", trial, k, slices, len, even, align);
            at = off + len;
        }
        cr_assert_eq(at, bytes, "trial %d: the slices end at %zu of %zu", trial, at, bytes);
        size_t off, len;
        fingerprint_slice(bytes, 0, 1, align, &off, &len);
        cr_assert(off == 0 && len == bytes);
    }
    const struct detector_ops *fp = detector_table[DET_FINGERPRINT];
    struct fingerprint_params sync1 = { 0, 1 }, async1 = { 1, 1 }, sync4 = { 0, 4 }, async4 = { 1, 4 };
    cr_assert(fp->window_of);
    cr_assert_eq(fp->window_of(&sync1), 1);
    cr_assert_eq(fp->window_of(&async1), 1);
    cr_assert_eq(fp->window_of(&sync4), 4);
    cr_assert_eq(fp->window_of(&async4), 4);
    cr_assert_eq(fp->window_of(NULL), fp->window);
}

/* Checkpoint generations over every interval and fingerprint slicing, under each recovery: restart keeps enough that
 * the oldest a rank keeps once it writes the next (done - every * (gens - 1)) is at most the SDC lag before what
 * the supervisor has checked, and a rank's wait for that (worker.c: need = that + lag + 1) never waits for the very
 * iteration it is writing (need <= done - 1: its end is reported after the write); the others keep 2 and never
 * wait. A scenario whose restart needs more than 16 is refused, naming the interval that would do. */
Test(scenario, checkpoint_generations_cover_the_sdc_lag_without_a_wait_on_the_write)
{
    struct scenario *sc = xcalloc(1, sizeof *sc);
    const char *recs[] = { "restart", "none", "{inprocess: {replicate_every: 2}}" };
    for (int r = 0; r < 3; r++)
        for (int slices = 1; slices <= 64; slices += slices < 8 ? 1 : 7)
            for (int every = 1; every <= 40; every += every < 6 ? 1 : 9) {
                char text[512], err[512] = "";
                snprintf(text, sizeof text, "name: m\nranks: 2\niterations: 50\nworkload:\n  gemm: {m: 64, n: 64, k: 64}\n"
                         "  allreduce: {bytes: 1MiB}\n  checkpoint: {every: %d, bytes: 1MiB}\n"
                         "detectors: [{fingerprint: {slices: %d}}]\nrecovery: %s\n", every, slices, recs[r]);
                int lag = slices - 1, rc = scenario_load_string(text, "t.yaml", sc, err, sizeof err);
                int64_t want = r == 0 ? 3 + (lag + every - 1) / every : 2;
                if (r == 2 && 2 * 3 < lag + 2) {   /* 4 replicas 2 apart: one from before a finding 5+ late cannot stay */
                    cr_assert_eq(rc, EXIT_INPUT, "%d slices, inprocess every 2: loaded", slices);
                    cr_assert(strstr(err, "t.yaml:9:1: recovery: inprocess keeps 4 replicas 2 iteration(s) apart") &&
                                  strstr(err, "expected replicate_every >= "), "%s", err);
                    continue;
                }
                if (r == 2) {   /* the replica a rank writes never waits for its own iteration's check (worker.c) */
                    for (int64_t done = 2; done <= 100; done += 2)
                        cr_assert_leq(done - 2 * 3 + lag + 1, done - 1, "%d slices: the replica of %lld waits for itself",
                                      slices, (long long)done);
                }
                if (want > 16) {
                    cr_assert_eq(rc, EXIT_INPUT, "every %d, %d slices, %s: loaded", every, slices, recs[r]);
                    char msg[512];
                    snprintf(msg, sizeof msg, "t.yaml:7:16: workload.checkpoint.every: restart under a fingerprint of %d "
                             "slices needs a checkpoint from %d iterations before each finding: every %d keeps %lld "
                             "generations per rank, more than 16; expected every >= %d", slices, lag, every,
                             (long long)want, (lag + 12) / 13);
                    cr_assert_str_eq(err, msg);
                    continue;
                }
                cr_assert_eq(rc, 0, "%s", err);
                cr_assert_eq(scenario_sdc_lag(sc), lag);
                cr_assert_eq(scenario_ckpt_gens(sc), want, "every %d, %d slices, %s", every, slices, recs[r]);
                cr_assert_eq(scenario_ckpt_hold(sc), r == 0);
                if (r != 0)
                    continue;
                for (int64_t done = every; done <= 50L * every; done += every) {
                    int64_t oldest = done - (int64_t)every * (want - 1), need = oldest + lag + 1;
                    cr_assert_leq(need, done - 1, "every %d, lag %d: the write of %lld waits for itself", every, lag,
                                  (long long)done);
                    /* a later finding's limit is at least need - 1 - lag (a late async report): the oldest is below */
                    cr_assert_leq(oldest, need - 1 - lag);
                }
                /* the interval the message names is one that loads */
                int min_every = (lag + 12) / 13;
                cr_assert_leq(3 + (lag + min_every - 1) / (min_every ? min_every : 1), 16);
            }
    free(sc);
}

/* The supervisor-side checks are the detectors' own: fingerprint's vote over random fingerprints (few distinct values,
 * some ranks out) against a count done here; heartbeat's slow judgement against its parameters. */
Test(plugins, supervisor_side_checks_live_in_the_detectors)
{
    const struct detector_ops *fp = detector_table[DET_FINGERPRINT], *hb = detector_table[DET_HEARTBEAT];
    cr_assert(fp->vote && hb->slow, "fingerprint votes, heartbeat judges slowness");
    cr_assert(fp->sdc && detector_table[DET_ABFT]->sdc && detector_table[DET_REPLAY]->sdc && !hb->sdc);
    cr_assert_eq(detector_table[DET_ABFT]->window, 0);
    cr_assert(detector_table[DET_EXIT]->once && detector_table[DET_COMM]->once && hb->once && !fp->once);
    struct rng g;
    rng_seed(&g, 11, 0);
    for (int trial = 0; trial < 2000; trial++) {
        int n = 1 + (int)(rng_next(&g) % 12), dropped[12], in = 0;
        uint64_t h[12];
        for (int r = 0; r < n; r++) {
            h[r] = rng_next(&g) % 3;
            dropped[r] = rng_next(&g) % 5 == 0;
            in += !dropped[r];
        }
        if (!in)
            continue;
        uint64_t best;
        int tie;
        fp->vote(h, dropped, n, &best, &tie);
        int count[3] = { 0 }, top = 0, at_top = 0;
        for (int r = 0; r < n; r++)
            count[h[r]] += !dropped[r];
        for (int v = 0; v < 3; v++)
            top = count[v] > top ? count[v] : top;
        for (int v = 0; v < 3; v++)
            at_top += count[v] == top;
        cr_assert(best < 3 && count[best] == top, "trial %d: %llu held by %d, the most by %d", trial,
                  (unsigned long long)best, count[best], top);
        cr_assert_eq(tie, at_top > 1, "trial %d: tie %d, %d values held by %d ranks", trial, tie, at_top, top);
    }
    struct heartbeat_params p = { .factor = 2, .min_excess_s = 0.02, .persist = 2 };
    double peers[3] = { 0.10, 0.11, 0.09 };
    char note[96];
    int count = 0;
    cr_assert_eq(hb->slow(&p, 0.30, peers, 3, &count, note, sizeof note), 0, "one slow phase is not yet a finding");
    cr_assert_eq(count, 1);
    double again[3] = { 0.10, 0.11, 0.09 };
    cr_assert_eq(hb->slow(&p, 0.30, again, 3, &count, note, sizeof note), 1, "two in a row are");
    cr_assert(strstr(note, "the peers' median 0.1000 s"), "%s", note);
    double third[3] = { 0.10, 0.11, 0.09 };
    cr_assert_eq(hb->slow(&p, 0.115, third, 3, &count, note, sizeof note), 0, "within min_excess of the median");
    cr_assert_eq(count, 0, "a normal phase resets the count");
}

/* A recovery's plan is data: none recovers nothing; exactly one of restart's, shrink's and the replica strategies'
 * ways; replica strategies keep replicas. */
Test(plugins, recoveries_hold_their_plan)
{
    for (int i = 0; recovery_table[i]; i++) {
        const struct recovery_ops *r = recovery_table[i];
        if (!r->recovers) {
            cr_expect(!r->restarts_all && !r->drops_failed && !r->spares && !r->replicas, "%s", r->name);
            continue;
        }
        cr_expect(!(r->restarts_all && r->drops_failed), "%s: restart and drop at once", r->name);
        cr_expect(r->restarts_all || r->replicas, "%s: a rollback needs a checkpoint or a replica", r->name);
    }
}

/* The schema types a scalar: a quoted, block or !!str scalar is a string, never a number, bool, size, duration or
 * power; !!float is no integer. Plain values keep their units (60s, 50%, 8MiB), and keys that take strings take
 * quoted ones. */
Test(scenario_errors, quoted_or_tagged_scalars_are_strings)
{
    static const char body[] = "workload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n";
    char text[512];
    snprintf(text, sizeof text, "name: x\nranks: 1\niterations: '3'\n%s", body);
    load_err(text, "t.yaml:3:13: iterations: expected an integer in [1, 1000000000], got a quoted string ('3'): a "
                   "quoted or !!str value is a string");
    snprintf(text, sizeof text, "name: x\nranks: 1\niterations: !!str 3\n%s", body);
    load_err(text, "t.yaml:3:13: iterations: expected an integer in [1, 1000000000], got a value tagged !!str ('3'): "
                   "a quoted or !!str value is a string");
    snprintf(text, sizeof text, "name: x\nranks: 1\niterations: !!float 3\n%s", body);
    load_err(text, "t.yaml:3:13: iterations: expected an integer in [1, 1000000000], got a value tagged !!float ('3')");
    load_err(HEAD "heartbeat: {interval: \"60ms\"}\n", "t.yaml:7:23: heartbeat.interval: expected a duration such as "
             "500ms or 2s, in [1ms, 60s], got a quoted string ('60ms'): a quoted or !!str value is a string");
    load_err(HEAD "rank_disturbed: 'true'\n", "t.yaml:7:17: rank_disturbed: expected true or false, got a quoted "
             "string ('true'): a quoted or !!str value is a string");
    load_err(HEAD "sim:\n  tflops: |\n    5\n", "t.yaml:8:11: sim.tflops: expected a number in [1e-06, 1e+06], got a "
             "block string ('5\\n'): a quoted or !!str value is a string");
    load_err(HEAD "mitigations: [{filler: {floor: [50%, '60%']}}]\n", "t.yaml:7:38: mitigations[0].filler.floor: "
             "expected a power as % of TDP in [0%, 100%] (80%) or watts in [0W, 5000W] (560W), got a quoted string "
             "('60%'): a quoted or !!str value is a string");
    load_err(HEAD "faults: [{kind: crash, at: 0, rank: '0'}]\n", "t.yaml:7:37: faults[0].rank: expected an integer in "
             "[0, 409599999], got a quoted string ('0'): a quoted or !!str value is a string");
    load_err(HEAD "projection: {spec: {band: [0.1, '20']}}\n", "t.yaml:7:33: projection.spec.band: expected a pair "
             "[lo, hi] of numbers in [0, 1e+06], lo < hi, got a quoted string ('20'): a quoted or !!str value is a string");
    load_err("name: x\nranks: 1\niterations: 1\nworkload:\n  phases:\n    - repeat: \"2\"\n      steps: [gemm: ]\n",
             "t.yaml:6:15: workload.phases[0].repeat: expected an integer in [1, 512], got a quoted string ('2'): a "
             "quoted or !!str value is a string");
    /* plain units, tags that fit, and strings quoted where the key takes a string or a name */
    struct scenario *sc = malloc(sizeof *sc);
    load_ok("name: 'q-1'\nranks: !!int 2\niterations: 3\nseed: !!int 9\nworkload:\n"
            "  gemm: {m: 1, n: 1, k: 1, dtype: \"fp16\"}\n  allreduce: {bytes: 8MiB}\n"
            "  checkpoint: {path: '/tmp/q ckpt', mode: !!str async}\n"
            "heartbeat: {interval: 60ms, timeout: !!float 2.5}\nsim: {tflops: !!float 1e3, busbw: !!int 50}\n"
            "rank_disturbed: !!bool true\nchecks: {sdc_screen: }\nfaults: [{kind: crash, at: 1, rank: 'random'}]\n"
            "mitigations: ['none', {filler: {floor: [50%, 560W]}}]\n", sc);
    cr_assert_str_eq(sc->name, "q-1");
    cr_assert_eq(sc->ranks, 2);
    cr_assert_eq(sc->workload.gemm.dtype, DT_FP16);
    cr_assert_str_eq(sc->workload.checkpoint.path, "/tmp/q ckpt");
    cr_assert_float_eq(sc->heartbeat.interval_s, 0.06, 1e-12);
    cr_assert_float_eq(sc->heartbeat.timeout_s, 2.5, 1e-12);
    cr_assert_float_eq(sc->sim.tflops, 1000, 1e-9);
    cr_assert_eq(sc->n_mitigations, 3);
    cr_assert_eq(sc->faults[0].rank, -1);
    free(sc);
}

/* A NUL inside a quoted string would cut the value where it is ("/tmp/ck\0/../../etc" read as "/tmp/ck"). */
Test(scenario_errors, nul_inside_a_string)
{
    load_err("name: \"a\\0b\"\nranks: 1\n", "t.yaml:1:7: name: a NUL character (\\0) inside a string: not allowed in a "
                                           "scenario");
    load_err("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n"
             "  checkpoint: {every: 1, path: \"/tmp/ck\\0/../../etc\"}\n",
             "t.yaml:7:32: workload.checkpoint.path: a NUL character (\\0) inside a string: not allowed in a scenario");
    load_err(HEAD "mitigations: [{filler: {floor: \"5\\0%\"}}]\n",
             "t.yaml:7:32: mitigations[0].filler.floor: a NUL character (\\0) inside a string: not allowed in a scenario");
    load_err(HEAD "detectors: [\"fin\\0gerprint\"]\n",
             "t.yaml:7:13: detectors[0]: a NUL character (\\0) inside a string: not allowed in a scenario");
    load_err(HEAD "sim: {\"tflops\\0x\": 5}\n", "t.yaml:7:7: sim: a NUL character (\\0) inside a key: not allowed in a "
                                              "scenario");
}

/* Numbers are decimal as the docs write them: hex (which strtod reads), inf and nan are refused. */
Test(scenario_errors, hex_inf_nan_refused)
{
    double d;
    uint64_t b;
    cr_assert_eq(parse_double("0x10", &d), -1);
    cr_assert_eq(parse_double("0X1p4", &d), -1);
    cr_assert_eq(parse_double("1e3", &d), 0);
    cr_assert_float_eq(d, 1000, 1e-9);
    cr_assert_eq(parse_size("0x10MiB", &b), -1);
    cr_assert_eq(parse_duration("0x1p-4s", &d), -1);
    load_err(HEAD "sim: {tflops: 0x10}\n", "t.yaml:7:15: sim.tflops: expected a number in [1e-06, 1e+06], got '0x10'");
    load_err(HEAD "sim: {tflops: inf}\n", "t.yaml:7:15: sim.tflops: expected a number in [1e-06, 1e+06], got 'inf'");
    load_err(HEAD "sim: {tflops: .nan}\n", "t.yaml:7:15: sim.tflops: expected a number in [1e-06, 1e+06], got '.nan'");
    load_err(HEAD "sim: {latency: 0x1p-12s}\n",
             "t.yaml:7:16: sim.latency: expected a duration such as 500ms or 2s, in [0s, 10s], got '0x1p-12s'");
    load_err(HEAD "seed: 0x10\n",
             "t.yaml:7:7: seed: expected an integer in [0, 9000000000000000], got '0x10'");
    load_err(HEAD "mitigations: [{filler: {floor: 0x50%}}]\n", "t.yaml:7:32: mitigations[0].filler.floor: expected a "
             "power as % of TDP in [0%, 100%] (80%) or watts in [0W, 5000W] (560W), got '0x50%'");
}

/* A power's share of TDP is at most the TDP (docs/power.md: floor and cap are % of TDP or watts). */
Test(scenario_errors, power_share_above_tdp)
{
    load_err(HEAD "mitigations: [{filler: {floor: 200%}}]\n", "t.yaml:7:32: mitigations[0].filler.floor: expected a "
             "power as % of TDP in [0%, 100%] (80%) or watts in [0W, 5000W] (560W), got '200%'");
    load_err(HEAD "mitigations: [{cap: {cap: 100.5%}}]\n", "t.yaml:7:27: mitigations[0].cap.cap: expected a power as "
             "% of TDP in [0%, 100%] (80%) or watts in [0W, 5000W] (560W), got '100.5%'");
    struct scenario *sc = malloc(sizeof *sc);
    load_ok(HEAD "mitigations: [{filler: {floor: 100%}}, {cap: {cap: 900W}}]\n", sc);
    free(sc);
}

/* A scenario file that is not a regular file is refused at once (a FIFO would block the parser). */
Test(scenario_errors, scenario_not_a_regular_file, .timeout = 20)
{
    char path[64] = "/tmp/gauntlet-fifo-XXXXXX", err[512] = "";
    cr_assert(mkdtemp(path));
    e2e_own(path);
    strcat(path, "/s.yaml");
    cr_assert_eq(mkfifo(path, 0600), 0);
    struct scenario *sc = malloc(sizeof *sc);
    cr_assert_eq(scenario_load(path, sc, err, sizeof err), EXIT_INPUT);
    cr_assert(strstr(err, "cannot open scenario: not a regular file"), "%s", err);
    free(sc);
    unlink(path);
    *strrchr(path, '/') = 0;
    rmdir(path);
}

/* Runs gauntlet with args (NULL-terminated), bounded generously; returns its exit code, log gets its output. */
static int run_bounded(char *log, size_t n, const char *const *args)
{
    char path[64] = "/tmp/gauntlet-log-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    close(fd);
    int rc = e2e_wait(e2e_start(path, args), 60);
    char *text = e2e_read(path);
    snprintf(log, n, "%s", text ? text : "");
    free(text);
    unlink(path);
    return rc;
}

/* A modelled step or iteration is bounded before it becomes a count of ns: sim.tflops 1e-6 with GEMMs of 2^20 was
 * accepted, ran with wrapped durations (reporting 5.5e13 TFLOP/s) and the estimate read "-2562047788015215h". */
Test(scenario_errors, modelled_time_is_bounded, .timeout = 200)
{
    static const char huge[] = "name: huge\nranks: 1\niterations: 2\nworkload:\n"
                               "  gemm: {m: 1048576, n: 1048576, k: 1048576}\n  allreduce: {bytes: 1MiB}\n";
    char text[512], log[4096];
    snprintf(text, sizeof text, "%ssim: {tflops: 1e-6}\n", huge);
    const char *f = e2e_scenario(text);
    cr_assert_eq(run_bounded(log, sizeof log, (const char *[]){ "check", f, NULL }), EXIT_INPUT, "%s", log);
    cr_assert(strstr(log, ": sim.tflops: an iteration takes 2.31e+12 s on the model, more than a day (86400 s)"), "%s", log);
    const char *out = e2e_outdir();
    cr_assert_eq(run_bounded(log, sizeof log, (const char *[]){ "run", f, "--backend", "sim", "--headless", "--out", out,
                                                                NULL }), EXIT_INPUT, "%s", log);
    cr_assert(strstr(log, "sim.tflops: an iteration takes 2.31e+12 s"), "%s", log);
    cr_assert(access(out, F_OK) != 0, "a refused run left %s", out);
    char parent[128];
    snprintf(parent, sizeof parent, "%s", out);
    *strrchr(parent, '/') = 0;
    rmdir(parent);
    unlink(f);
    /* a step: named where it was given; a preset's bubble: by the rate that sizes it */
    f = e2e_scenario("name: s\nranks: 1\niterations: 2\nworkload:\n  phases:\n"
                     "    - gemm: {m: 1048576, n: 1048576, k: 1048576}\n    - allreduce: {bytes: 1MiB}\n"
                     "sim: {tflops: 1e-6}\n");
    cr_assert_eq(run_bounded(log, sizeof log, (const char *[]){ "check", f, NULL }), EXIT_INPUT, "%s", log);
    cr_assert(strstr(log, ":8:15: sim.tflops: the gemm step given here (line 6) takes 2.31e+12 s"), "%s", log);
    unlink(f);
    f = e2e_scenario("name: p\nranks: 2\niterations: 2\nworkload: {shape: pipeline-1f1b}\nsim: {tflops: 1e-6}\n");
    cr_assert_eq(run_bounded(log, sizeof log, (const char *[]){ "check", f, NULL }), EXIT_INPUT, "%s", log);
    cr_assert(strstr(log, ": sim.tflops: the idle step of the preset takes"), "%s", log);
    unlink(f);
    /* the estimate: never negative or wrapped; past 100 years it says so */
    f = e2e_scenario("name: long\nranks: 1\niterations: 1000000000\nworkload:\n"
                     "  gemm: {m: 1048576, n: 1048576, k: 1048576}\n  allreduce: {bytes: 1MiB}\n");
    cr_assert_eq(run_bounded(log, sizeof log, (const char *[]){ "check", f, "--tflops", "1e-6", NULL }), 0, "%s", log);
    cr_assert(strstr(log, "estimated: more than 100 years at the rates given"), "%s", log);
    cr_assert(!strstr(log, "about -"), "%s", log);
    unlink(f);
}

/* Writes a (loaded from name) back as YAML, loads that into b, and checks that b is a: the run's scenario.yaml is a
 * valid scenario that reproduces the run. The text written is returned (the caller frees it). */
static char *round_trip(const struct scenario *a, const char *name)
{
    struct scenario *b = xcalloc(1, sizeof *b);
    char *text = NULL, err[1024] = "";
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(scenario_write(a, f), 0, "%s", name);
    fclose(f);
    cr_assert_eq(scenario_load_string(text, a->file, b, err, sizeof err), 0, "%s written back does not load: %s\n%s",
                 name, err, text);
    for (int i = 0; i < SC_MAX_MITIGATIONS; i++)   /* positions differ (an auto search's past its budget too) */
        b->mitigations[i].line = a->mitigations[i].line;
    for (int i = 0; i < a->n_detectors; i++)
        b->detectors[i].line = a->detectors[i].line;
    for (int i = 0; i < a->n_faults; i++) {
        struct fault_spec *g = &b->faults[i];
        const struct fault_spec *o = &a->faults[i];
        g->line = o->line, g->rank_line = o->rank_line, g->rank_col = o->rank_col;
        g->node_line = o->node_line, g->node_col = o->node_col;
    }
    for (int i = 0; i < a->workload.n_steps; i++)
        b->workload.steps[i].line = a->workload.steps[i].line;
    b->recovery.line = a->recovery.line;
    b->nodes_line = a->nodes_line;
    b->name_line = a->name_line, b->name_col = a->name_col;
    b->ranks_line = a->ranks_line, b->ranks_col = a->ranks_col;
    memcpy(b->keypos, a->keypos, sizeof b->keypos);
    for (int i = 0; i < a->n_mitigations; i++)
        cr_assert_str_eq(b->mitigations[i].label, a->mitigations[i].label, "%s: run %d", name, i);
    cr_assert_eq(memcmp(a, b, sizeof *a), 0, "%s does not read back the same:\n%s", name, text);
    free(b);
    return text;
}

/* Loads text and checks its round trip; returns the text written (the caller frees it). */
static char *round_trip_text(const char *text, struct scenario *a)
{
    load_ok(text, a);
    return round_trip(a, "t.yaml");
}

/* Every shipped scenario, and the awkward ones below, written back as the run writes RUNDIR/scenario.yaml, loads the
 * same. */
Test(scenario, every_scenario_reads_back_the_same)
{
    static const char *const names[] = { "demo", "gpu-single", "fault-drill", "sdc-burnin", "mitigation-compare",
                                         "fault-latency", "checkpoint-async", "fingerprint-async",
                                         "acceptance/L1-drill", "acceptance/L1-perf", "acceptance/L1-swing",
                                         "acceptance/L2-soak", "acceptance/L3-burnin" };
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[1024], path[1024];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/scenarios/%s.yaml", GAUNTLET_SRC, names[i]);
        cr_assert_eq(scenario_load(path, sc, err, sizeof err), 0, "%s", err);
        free(round_trip(sc, path));
    }
    static const char *const texts[] = {
        HEAD "mitigations: auto\nsearch_budget: 3\n",
        HEAD "mitigations: [none, {filler: {floor: 80.1234567%}}, {cap: {cap: 1234.5678W}}]\n",
        HEAD "mitigations: [none, {filler: {floor: [50%, 65%]}}, {filler: {floor: 50%}}]\n",
        HEAD "mitigations: [none, none, {filler: {floor: [50%]}}]\n",
        HEAD "mitigations:\n  - none\n  - bess: { size: 50, window: 2s }\n"
             "  - bess: { capacity_mwh: 0.000001, power_mw: 20, window: 2s }\n"
             "  - bess: { capacity_mwh: 10, power_mw: 20, window: 1ms }\n"
             "  - bess: { capacity_mwh: 10, power_mw: 20, efficiency: 1, window: 2s }\n",
        "name: p\nranks: 2\niterations: 5\nworkload: {shape: pipeline-1f1b}\nsim: {tflops: 0.01}\n",
        "name: s\nranks: 2\niterations: 5\nworkload: {shapes: [dp-overlap, moe]}\n"
        "mitigations: [none, {filler: {floor: [50%, 60%]}}, {filler: {floor: 50%}}]\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        free(round_trip_text(texts[i], sc));
    free(sc);
}

/* `mitigations: auto` is written back as auto (with its budget): loading the run's scenario.yaml searches again, its
 * refinement and summary included (until 2026-11-30 its candidates were written as a list). */
Test(scenario, mitigations_auto_is_written_back_as_auto)
{
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char *text = round_trip_text(HEAD "search_budget: 3\nmitigations: auto\n", sc);
    cr_assert(strstr(text, "\nmitigations: auto\n") && strstr(text, "\nsearch_budget: 3\n"), "%s", text);
    cr_assert(!strstr(text, "floor"), "%s", text);
    free(text);
    load_ok(HEAD "mitigations: [none, filler]\n", sc);   /* a list: every entry runs, no budget written */
    text = round_trip(sc, "t.yaml");
    cr_assert(!strstr(text, "search_budget"), "%s", text);
    free(text);
    free(sc);
}

/* A budget bounds only the search: with a list it would be ignored (until 2026-11-30 it was, without a word). */
Test(scenario_errors, search_budget_without_auto)
{
    load_err(HEAD "mitigations: [none, filler, ramp]\nsearch_budget: 2\n",
             "t.yaml:8:16: search_budget: expected only with mitigations: auto (it bounds the search's candidates), got "
             "it with a list of mitigations, each of which runs");
    load_err(HEAD "search_budget: 2\n", "t.yaml:7:16: search_budget: expected only with mitigations: auto (it bounds "
             "the search's candidates), got it with a list of mitigations, each of which runs");
}

/* `replay:` with nothing after it still needs its trace (until 2026-11-30 it went on without one: "trace: : No such
 * file or directory"); a section without a required key still turns on empty. */
Test(scenario_errors, an_empty_section_still_needs_its_required_keys)
{
    static const char want[] = "t.yaml:5:3: workload.replay.trace: missing required key (a string of at most 255 "
                               "characters: a power trace gauntlet analyze reads (power.csv, nvidia-smi, DCGM))";
    load_err("name: t\nranks: 2\niterations: 5\nworkload:\n  replay:\n", want);
    load_err("name: t\nranks: 2\niterations: 5\nworkload:\n  replay:\nsim: {tflops: 5}\n", want);
    load_err("name: t\nranks: 2\niterations: 5\nworkload: {replay: {}}\n", "t.yaml:4:20: workload.replay.trace: missing "
             "required key (a string of at most 255 characters: a power trace gauntlet analyze reads (power.csv, "
             "nvidia-smi, DCGM))");
    struct scenario *sc = xcalloc(1, sizeof *sc);
    load_ok(HEAD "checks: {sdc_screen: , gemm_tflops: }\n", sc);
    cr_assert(sc->checks.sdc_screen.on && sc->checks.gemm_tflops.on);
    free(sc);
}

/* A byte that is not UTF-8, or a control character, is named at its line and column with its value (until
 * 2026-11-30 always at 1:1, without the byte). */
Test(scenario_errors, a_byte_that_is_not_utf8_is_named_where_it_is)
{
    load_err(HEAD "sim: {tflops: 1\xff}\n", "t.yaml:7:16: YAML syntax error: invalid leading UTF-8 octet: expected UTF-8 "
             "text without control characters, got #xFF (at byte offset 110)");
    load_err(HEAD "\n# caf\xc3\xa9 \x01\n", "t.yaml:8:8: YAML syntax error: control characters are not allowed: "
             "expected UTF-8 text without control characters, got #x01 (at byte offset 104)");
    load_err("name: x\r\nranks: 1\r\n\xc3(\n", "t.yaml:3:2: YAML syntax error: invalid trailing UTF-8 octet: expected "
             "UTF-8 text without control characters, got #x28 (at byte offset 20)");
    char path[] = "/tmp/gauntlet-utf8-XXXXXX", err[512] = "";   /* from a file: the same */
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    const char text[] = HEAD "sim: {tflops: 1\xff}\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    struct scenario *sc = xcalloc(1, sizeof *sc);
    cr_assert_eq(scenario_load(path, sc, err, sizeof err), EXIT_INPUT);
    cr_assert(strstr(err, ":7:16: YAML syntax error: invalid leading UTF-8 octet: expected UTF-8 text without control "
                          "characters, got #xFF (at byte offset 110)"), "%s", err);
    unlink(path);
    free(sc);
}

/* A preset whose generated steps its own reload would refuse is refused when loaded: the pipeline's bubble, sized by
 * sim.tflops, past an idle step's hour (until 2026-11-30 accepted, and the run's scenario.yaml did not load). */
Test(scenario_errors, a_preset_step_out_of_its_range)
{
    load_err("name: t\nranks: 2\niterations: 5\nworkload: {shape: pipeline-1f1b}\nsim: {tflops: 0.000001, speedup: 1000000}\n",
             "t.yaml:5:15: sim.tflops: the idle step of the preset takes 3.34e+07 s (the pipeline-1f1b bubble, sized by "
             "sim.tflops), more than an idle step may (3600 s): raise sim.tflops (now 1e-06)");
    load_err("name: t\nranks: 2\niterations: 5\nworkload: {shapes: [moe, pipeline-1f1b]}\nsim: {speedup: 1000000, "
             "tflops: 0.000001}\n", "t.yaml:5:33: sim.tflops: the idle step of the preset takes 3.34e+07 s (the "
             "pipeline-1f1b bubble, sized by sim.tflops), more than an idle step may (3600 s): raise sim.tflops (now 1e-06)");
}

/* An error in a value reached through an alias names the alias's place and the anchor's (until 2026-11-30 the
 * anchor's alone, under the alias's key). */
Test(scenario_errors, an_error_through_an_alias_names_the_alias)
{
    load_err("name: t\nranks: 2\nseed: &v 2000000000\niterations: *v\nworkload:\n  gemm: {m: 64, n: 64, k: 64}\n"
             "  allreduce: {bytes: 1MiB}\n",
             "t.yaml:4:13: iterations: expected an integer in [1, 1000000000], got '2000000000' (the value of alias *v, "
             "anchored at 3:7)");
    load_err(HEAD "sim: &s {tflops: 5}\npower: *s\n", "t.yaml:8:8: power.tflops: unknown key (expected one of: "
             "sample_hz, tdp_w, settle, forward_hz) (the value of alias *s, anchored at 7:6)");
    load_err(HEAD "seed: &r 1\nfaults: [{kind: crash, at: 0, rank: *r}]\n",
             "t.yaml:8:37: faults[0].rank: rank 1 is out of range: the scenario has ranks 0..0");
    struct scenario *sc = xcalloc(1, sizeof *sc);   /* the anchor's own use names its own place */
    load_ok(HEAD "seed: &v 7\nprojection: {gpus: *v}\n", sc);
    cr_assert_eq(sc->projection.gpus, 7);
    free(sc);
}

/* A tag nothing reads is refused: on a list or mapping other than its own, on a key, on a name (until 2026-11-30
 * taken and ignored). */
Test(scenario_errors, tags_on_collections_keys_and_names)
{
    load_err("name: t\nranks: 2\niterations: 5\nworkload: !!seq\n  gemm: {m: 64, n: 64, k: 64}\n",
             "t.yaml:4:11: workload: expected a mapping, untagged or tagged !!map, got a mapping tagged !!seq");
    load_err(HEAD "sim: !!str {tflops: 10}\n",
             "t.yaml:7:6: sim: expected a mapping, untagged or tagged !!map, got a mapping tagged !!str");
    load_err(HEAD "mitigations: !!map [none]\n",
             "t.yaml:7:14: mitigations: expected a list, untagged or tagged !!seq, got a list tagged !!map");
    load_err(HEAD "mitigations: [none, !x {filler: {floor: 50%}}]\n",
             "t.yaml:7:21: mitigations[1]: expected a mapping, untagged or tagged !!map, got a mapping tagged !x");
    load_err(HEAD "sim: {!!int tflops: 5}\n", "t.yaml:7:7: sim: expected a key (a name, plain or quoted), got a key tagged !!int");
    load_err(HEAD "mitigations: [!!int none]\n",
             "t.yaml:7:15: mitigations[0]: expected a mitigation name, got a value tagged !!int ('none')");
    load_err(HEAD "recovery: !foo none\n", "t.yaml:7:11: recovery: expected a recovery name, got a value tagged !foo ('none')");
    load_err(HEAD "mitigations: !!int auto\n",
             "t.yaml:7:14: mitigations: expected auto or a list of mitigations, got a value tagged !!int ('auto')");
    load_err(HEAD "faults: [{kind: !!int crash, at: 0}]\n",
             "t.yaml:7:17: faults[0].kind: expected a fault's name, got a value tagged !!int ('crash')");
    load_err(HEAD "faults: [{kind: crash, at: 0, rank: !!int random}]\n",
             "t.yaml:7:37: faults[0].rank: expected a rank or random, got a value tagged !!int ('random')");
    load_err("name: s\nranks: 2\niterations: 5\nworkload: {shapes: [moe, !!int fsdp]}\n",
             "t.yaml:4:26: workload.shapes[1]: expected a shape's name, got a value tagged !!int ('fsdp')");
    struct scenario *sc = xcalloc(1, sizeof *sc);   /* their own tags, and strings, are what they are */
    load_ok(HEAD "sim: !!map {!!str tflops: 10}\nmitigations: !!seq ['none', !!str filler]\nrecovery: \"none\"\n", sc);
    cr_assert_eq(sc->n_mitigations, 2);
    free(sc);
}

/* The document is bounded before it is composed: a file over 1MiB is refused unread, and parsing stops at the
 * 100,001st node (until 2026-11-30 a 6 MB list took 490 MB to refuse). */
Test(scenario_errors, a_document_is_bounded, .timeout = 30)
{
    size_t cap = 300000;
    char *t = malloc(cap), err[1024] = "";
    int n = snprintf(t, cap, "name: x\nfaults: [");
    for (int i = 0; i < 100005; i++)
        n += snprintf(t + n, cap - (size_t)n, "1,");
    snprintf(t + n, cap - (size_t)n, "1]\n");
    load_err(t, "t.yaml:2:200000: YAML: more than 100000 nodes (values, keys, lists, mappings, aliases): a scenario "
                "needs a few thousand");
    free(t);
    t = malloc(SC_MAX_FILE_BYTES + 16);
    memset(t, '#', SC_MAX_FILE_BYTES + 1);
    t[SC_MAX_FILE_BYTES + 1] = 0;
    load_err(t, "t.yaml: expected a scenario of at most 1048576 bytes (1MiB), got 1048577 bytes");
    char path[] = "/tmp/gauntlet-big-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(write(fd, t, SC_MAX_FILE_BYTES + 1), (ssize_t)SC_MAX_FILE_BYTES + 1);
    close(fd);
    free(t);
    struct scenario *sc = xcalloc(1, sizeof *sc);
    cr_assert_eq(scenario_load(path, sc, err, sizeof err), EXIT_INPUT);
    char want[256];
    snprintf(want, sizeof want, "%s: expected a scenario of at most 1048576 bytes (1MiB), got 3145731 bytes", path);
    cr_assert_str_eq(err, want);
    unlink(path);
    free(sc);
}

/* Sizes take the units the docs list; a bare K, M, G or T is refused, saying which two it could mean. */
Test(scenario_errors, a_bare_size_letter)
{
    load_err("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1M}\n",
             "t.yaml:6:22: workload.allreduce.bytes: expected a size such as 8MiB or 1GiB, in [4B, 64GiB], got '1M' (M "
             "alone is ambiguous: write MiB, a power of 1024, or MB, of 1000)");
    struct scenario *sc = xcalloc(1, sizeof *sc);
    load_ok("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MB}\n"
            "  checkpoint: {bytes: 1TB}\n", sc);
    cr_assert_eq(sc->workload.allreduce.bytes, 1000000);
    cr_assert_eq(sc->workload.checkpoint.bytes, 1000000000000ull);
    free(sc);
}

/* Every run has its own label, from the list's names and parameters alone: an entry repeating a sweep's value, entries
 * alike, entries a full label cannot tell apart (until 2026-11-30 these shared one, or changed once written back). */
Test(scenario, every_run_has_its_own_label)
{
    struct scenario *sc = xcalloc(1, sizeof *sc);
    free(round_trip_text(HEAD "mitigations: [none, {filler: {floor: [50%, 65%]}}, {filler: {floor: 50%}}]\n", sc));
    cr_assert_str_eq(sc->mitigations[1].label, "filler floor=50%");
    cr_assert_str_eq(sc->mitigations[2].label, "filler floor=65%");
    cr_assert_str_eq(sc->mitigations[3].label, "filler floor=50% #2");
    load_ok(HEAD "mitigations:\n  - none\n  - bess: { size: 50, window: 2s }\n"
            "  - bess: { capacity_mwh: 0.000001, power_mw: 20, window: 2s }\n"
            "  - bess: { capacity_mwh: 10, power_mw: 20, window: 1ms }\n"
            "  - bess: { capacity_mwh: 10, power_mw: 20, efficiency: 1, window: 2s }\n", sc);
    for (int a = 0; a < sc->n_mitigations; a++)
        for (int b = 0; b < a; b++)
            cr_assert(strcmp(sc->mitigations[a].label[0] ? sc->mitigations[a].label : sc->mitigations[a].name,
                             sc->mitigations[b].label[0] ? sc->mitigations[b].label : sc->mitigations[b].name) != 0,
                      "runs %d and %d: '%s'", b, a, sc->mitigations[a].label);
    cr_assert_str_eq(sc->mitigations[4].label, "bess capacity_mwh=10 #2", "a parameter less, for the number");
    load_ok(HEAD "mitigations: [none, none, {filler: {floor: [50%]}}]\n", sc);
    cr_assert_str_eq(sc->mitigations[0].label, "");
    cr_assert_str_eq(sc->mitigations[1].label, "none #2");
    cr_assert_str_eq(sc->mitigations[2].label, "", "one entry of its mitigation: its name");
    free(sc);
}

/* Writes a trace of n samples 10 ms apart alternating between 300 and 700 W every `every` samples into a new file;
 * returns its path (static storage). */
static const char *trace_alternating(int n, int every)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gauntlet-trace-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fprintf(f, "t_s,watts\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "%.3f,%d\n", i * 0.01, (i / every) % 2 ? 300 : 700);
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* A rank makes room in its event ring for a whole iteration's events before it begins one (control/shm.h EVT_CAP):
 * every form of the iteration fits, 512 steps included, but a replayed trace whose every pass changes phase more often
 * than the ring holds the edges of is refused, naming the key (until 2026-11-30 such a pass, or a stopped supervisor
 * behind 8 iterations of 512 steps, lost whatever came next, its end included). */
Test(scenario_errors, an_iteration_with_more_events_than_the_ring_holds)
{
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char text[512], err[1024] = "";
    load_ok("name: s\nranks: 2\niterations: 3\nworkload:\n  phases:\n    - repeat: 256\n      steps:\n"
            "        - gemm: {m: 64, n: 64, k: 64}\n        - allreduce: {bytes: 4KiB}\n", sc);
    cr_assert_eq(sc->workload.n_steps, 512);
    cr_assert_leq(scenario_iter_events(sc), SC_ITER_EVENTS_MAX);
    const char *calm = trace_alternating(8192, 4);   /* 2047 changes: 4,230 events a pass */
    snprintf(text, sizeof text, "name: r\nranks: 2\niterations: 3\nworkload:\n  replay: {trace: %s}\n", calm);
    load_ok(text, sc);
    cr_assert_leq(scenario_iter_events(sc), SC_ITER_EVENTS_MAX);
    unlink(calm);
    const char *busy = trace_alternating(8192, 1);   /* 8191 changes */
    snprintf(text, sizeof text, "name: r\nranks: 2\niterations: 3\nworkload:\n  replay: {trace: %s}\n", busy);
    cr_assert_eq(scenario_load_string(text, "t.yaml", sc, err, sizeof err), EXIT_INPUT, "loaded: a pass of %d events",
                 scenario_iter_events(sc));
    cr_assert(strstr(err, "t.yaml:5:12: workload.replay.trace: the trace changes phase 8191 times in a pass (its samples cross the "
                             "middle of its range, 500.0 W)") &&
              strstr(err, "more than a rank's event ring holds for one iteration (8192)"), "%s", err);
    unlink(busy);
    free(sc);
}

/* A replay's gpu past the trace's GPUs is the gpu key's error, at its line, saying which the trace has; exit 2 (until
 * 2026-11-30 it named the `replay:` line and the trace key, as if the file were at fault). A GPU the trace has loads;
 * a trace that cannot be read stays the trace key's. */
Test(scenario_errors, a_replays_gpu_past_the_traces_gpus_names_the_gpu_key)
{
    char path[] = "/tmp/gauntlet-smi-XXXXXX", text[512], want[640];
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fprintf(f, "timestamp, index, power.draw.instant [W]\n");   /* nvidia-smi, two GPUs */
    for (int i = 0; i < 200; i++)
        for (int g = 0; g < 2; g++)
            fprintf(f, "2026/11/23 07:00:%06.3f, %d, %.2f W\n", i * 0.01, g, (i / 25) % 2 ? 120.0 : 690.0);
    cr_assert_eq(fclose(f), 0);
    static const char form[] = "name: r\nranks: 2\niterations: 3\nworkload:\n  replay:\n    trace: %s\n    gpu: %d\n";
    struct scenario *sc = xcalloc(1, sizeof *sc);
    snprintf(text, sizeof text, form, path, 1);
    load_ok(text, sc);
    cr_assert_eq(sc->workload.replay.gpu, 1);
    free(sc);
    snprintf(text, sizeof text, form, path, 2);
    snprintf(want, sizeof want, "t.yaml:7:5: workload.replay.gpu: %s: the trace has 2 GPUs: 0..1; expected one of "
                                "them, got 2", path);
    load_err(text, want);
    /* the command: exit 2, the file named */
    const char *file = e2e_scenario(text), *log = e2e_log("replay-gpu.log");
    int rc = e2e_run(log, (const char *[]){ "check", file, NULL });
    char *said = e2e_read(log);
    snprintf(want, sizeof want, "gauntlet check: %s:7:5: workload.replay.gpu: %s: the trace has 2 GPUs: 0..1; "
                                "expected one of them, got 2\n", file, path);
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, said);
    cr_assert(said && strstr(said, want), "expected '%s', got:\n%s", want, said);
    free(said);
    snprintf(text, sizeof text, "name: r\nranks: 2\niterations: 3\nworkload:\n  replay: {trace: %s.none, gpu: 2}\n",
             path);
    snprintf(want, sizeof want, "t.yaml:5:3: workload.replay.trace: %s.none: No such file or directory", path);
    load_err(text, want);
}

/* The shared state one node's run needs (the all-reduce's slots, each rank's replicas and its worker's own copies) is
 * refused at check time when the machine cannot hold it, naming the keys that make it big: 256 ranks of a 64 MiB state
 * with in-memory replicas need 112 GiB, 4096 of them 1.75 TiB (until 2026-11-30 accepted, to end in a worker killed
 * for memory). On a machine that holds it, it loads. */
Test(scenario_errors, a_shared_state_larger_than_the_memory)
{
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[1024] = "", text[512], what[64];
    uint64_t have = scenario_mem_limit(what, sizeof what), one = 0;
    cr_assert_gt(have, 0, "the memory of this machine cannot be read");
    for (int big = 0; big < 2; big++) {
        int ranks = big ? 4096 : 256;
        snprintf(text, sizeof text, "name: big\nranks: %d\niterations: 10\nworkload:\n  gemm: {m: 256, n: 256, k: 256}\n"
                 "  allreduce: {bytes: 64MiB}\nsim: {max_elems: 16777216}\nrecovery: {inprocess: {replicate_every: 1}}\n",
                 ranks);
        /* it loads (another backend sizes nothing from sim.*), and the sim backend's check refuses it */
        cr_assert_eq(scenario_load_string(text, "t.yaml", sc, err, sizeof err), 0, "%s", err);
        int rc = scenario_mem_check(sc, err, sizeof err);
        if (rc == 0) {   /* a machine this large holds it */
            uint64_t need = scenario_node_bytes(sc, &one);
            cr_assert_leq(need, have, "%d ranks: %.1f GiB needed, %.1f GiB here, and it passed", ranks,
                          (double)need / (1ull << 30), (double)have / (1ull << 30));
            continue;
        }
        cr_assert_eq(rc, EXIT_INPUT, "%s", err);
        if (ranks == 256) {   /* through the sim backend's own check, as check and run call it */
            char why[1024];
            cr_assert_eq(backend_find("sim")->check(sc, why, sizeof why), EXIT_INPUT);
            cr_assert_str_eq(why, err);
        }
        cr_assert(strstr(err, "t.yaml:7:18: sim.max_elems: one node's run needs ") &&
                  strstr(err, "GiB of memory for its ranks' state, more than ") && strstr(err, what) &&
                  strstr(err, ", each with a state of 64.0 MiB") &&
                  strstr(err, "the 4 in-memory replicas recovery inprocess keeps") &&
                  strstr(err, "lower ranks or sim.max_elems"), "%s", err);
    }
    /* the defaults (sim.max_elems 65536) on 64 ranks: their rings, a 256 KiB state */
    load_ok("name: many\nranks: 64\niterations: 10\nworkload:\n  gemm: {m: 256, n: 256, k: 256}\n"
            "  allreduce: {bytes: 64MiB}\nrecovery: {inprocess: {replicate_every: 1}}\n", sc);
    cr_assert_lt(scenario_node_bytes(sc, &one), 256ull << 20);
    cr_assert_eq(one, 65536u * 4);
    free(sc);
}

/* Where ranks is given through an alias, its place is the alias's (what the memory and backend errors name), not
 * its anchor's on another key's line (until 2026-12-02 the nodes: line). */
Test(scenario, ranks_given_by_an_alias_is_placed_where_it_stands)
{
    static struct scenario sc;
    load_ok("name: a\nnodes: &n 2\nranks: *n\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
            "  allreduce: {bytes: 1MiB}\n", &sc);
    cr_assert_eq(sc.ranks, 2);
    cr_assert_eq(sc.ranks_line, 3, "ranks at line %d", sc.ranks_line);
    cr_assert_eq(sc.ranks_col, 8, "ranks at column %d", sc.ranks_col);
}
