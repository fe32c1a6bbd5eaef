/* harness/scenario/scenario_keys.c: the table of every scenario key — name, type, offset, default, range, unit, help.
 * The parser (scenario.c), the echo (scenario_emit.c), `gauntlet list --keys` and the docs test read it. */
#include <stddef.h>

#include "analysis.h"
#include "scenario.h"

#define SC(field) offsetof(struct scenario, field)
#define GEMM(field) offsetof(__typeof__(((struct scenario *)0)->workload.gemm), field)
#define AR(field) offsetof(__typeof__(((struct scenario *)0)->workload.allreduce), field)
#define CK(field) offsetof(__typeof__(((struct scenario *)0)->workload.checkpoint), field)
#define HB(field) offsetof(__typeof__(((struct scenario *)0)->heartbeat), field)
#define SIM(field) offsetof(struct sim_params, field)
#define TIB (1099511627776.0)

static const struct param gemm_params[] = {
    { "m", PT_INT, GEMM(m), .min = 1, .max = 1 << 20, .flags = PF_REQUIRED, .help = "rows of A and C" },
    { "n", PT_INT, GEMM(n), .min = 1, .max = 1 << 20, .flags = PF_REQUIRED, .help = "columns of B and C" },
    { "k", PT_INT, GEMM(k), .min = 1, .max = 1 << 20, .flags = PF_REQUIRED, .help = "inner dimension" },
    { "dtype", PT_ENUM, GEMM(dtype), .def = "bf16", .choices = DTYPE_CHOICES, .help = "GEMM input type (fp8 is e4m3)" },
    { "count", PT_INT, GEMM(count), .def = "1", .min = 1, .max = 100000, .help = "GEMMs per compute phase, back to back" },
    { 0 },
};

static const struct param allreduce_params[] = {
    { "bytes", PT_SIZE, AR(bytes), .min = 4, .max = 64 * TIB / 1024, .unit = "bytes", .flags = PF_REQUIRED,
      .help = "all-reduce size per iteration (the gradient)" },
    { "emulate_busbw", PT_DOUBLE, AR(emulate_busbw_gbs), .def = "0", .min = 0, .max = 100000, .unit = "GB/s",
      .help = "stretch the phase to the time this bus bandwidth would take (0: off)" },
    { "emulate_ranks", PT_INT, AR(emulate_ranks), .def = "0", .min = 0, .max = 10000000,
      .help = "rank count for emulate_busbw's 2(n-1)/n (0: the scenario's ranks)" },
    { 0 },
};

static const struct param checkpoint_params[] = {
    { "every", PT_INT, CK(every), .def = "0", .min = 0, .max = 100000000, .unit = "iterations",
      .help = "write a checkpoint every this many iterations (0: never)" },
    { "bytes", PT_SIZE, CK(bytes), .def = "64MiB", .min = 4096, .max = 64 * TIB, .unit = "bytes",
      .help = "model state written per rank per checkpoint" },
    { "path", PT_STRING, CK(path), sizeof(((struct scenario *)0)->workload.checkpoint.path),
      .def = "/tmp/gauntlet-ckpt", .help = "folder for checkpoint files" },
    { "mode", PT_ENUM, CK(mode), .def = "sync", .choices = "sync,async",
      .help = "sync: the rank stops, writes, fsyncs, continues; async: it copies its state aside and a "
              "background thread writes it (double-buffered)" },
    { 0 },
};

#define WL(field) offsetof(__typeof__(((struct scenario *)0)->workload), field)
#define RP(field) offsetof(__typeof__(((struct scenario *)0)->workload.replay), field)
static const struct param replay_params[] = {
    { "trace", PT_STRING, RP(trace), sizeof(((struct scenario *)0)->workload.replay.trace), .flags = PF_REQUIRED,
      .help = "a power trace gauntlet analyze reads (power.csv, nvidia-smi, DCGM)" },
    { "gpu", PT_INT, RP(gpu), .def = "0", .min = 0, .max = 1 << 20,
      .help = "the trace's GPU every rank follows (its index in the file)" },
    { 0 },
};

static const struct param workload_params[] = {
    { "gemm", PT_SECTION, WL(gemm), .sub = gemm_params,
      .help = "compute phase of the simple iteration (required unless phases, shape or replay)" },
    { "allreduce", PT_SECTION, WL(allreduce), .sub = allreduce_params,
      .help = "communication phase of the simple iteration (required unless phases, shape or replay)" },
    { "checkpoint", PT_SECTION, WL(checkpoint), .sub = checkpoint_params, .help = "periodic checkpoint" },
    { "phases", PT_LIST, 0, 0, .def = "[]",
      .help = "the iteration as steps: gemm, allreduce, reduce_scatter, all_gather, all_to_all, send_recv, optimizer, "
              "idle, and {repeat: N, steps: [...]} (docs/scenarios.md)" },
    { "shape", PT_STRING, WL(shape), sizeof(((struct scenario *)0)->workload.shape),
      .help = "a preset iteration, expanded into phases (`gauntlet list`)" },
    { "shapes", PT_LIST, 0, 0, .def = "[]",
      .help = "compare 2-4 presets: every mitigation runs on each (runs = shapes x mitigations)" },
    { "expanded_from", PT_STRING, WL(expanded_from), sizeof(((struct scenario *)0)->workload.expanded_from),
      .help = "the preset the phases were expanded from (written into results; informational)" },
    { "replay", PT_SECTION, WL(replay), .sub = replay_params, .flags = PF_ON,
      .help = "drive each GPU's power along a recorded trace (docs/scenarios.md \"Replay\")" },
    { 0 },
};

#define PW(field) offsetof(__typeof__(((struct scenario *)0)->power), field)
static const struct param power_params[] = {
    { "sample_hz", PT_DOUBLE, PW(sample_hz), .def = "100", .min = 0, .max = 10000, .unit = "Hz",
      .help = "power samples per second per rank (0: no sampling)" },
    { "tdp_w", PT_DOUBLE, PW(tdp_w), .def = "0", .min = 0, .max = 5000, .unit = "W",
      .help = "the GPU's TDP for swings in % (0: sim.tdp_w on sim, unknown on cuda)" },
    { "settle", PT_DURATION, PW(settle_s), .def = "0", .min = 0, .max = 600,
      .help = "time the power takes to settle after a run begins; each run's analysis, energy and throughput start "
              "at the first iteration end past it (0: 5 x sim.ramp, the power response's time constant, plus 200 ms, two "
              "updates of the slowest sensor gauntlet reads: 210 ms)" },
    { "forward_hz", PT_DOUBLE, PW(forward_hz), .def = "100", .min = 0, .max = 10000, .unit = "Hz",
      .help = "several nodes: power rows per rank a node sends node 0 (0: every row); above it each node keeps "
              "its full-rate rows in power-node<N>.csv" },
    { 0 },
};

#define SPEC(field) offsetof(struct an_spec, field)
static const struct param spec_params[] = {
    { "max_ramp_up_mw_s", PT_DOUBLE, SPEC(max_ramp_up_mw_s), .def = "0", .min = 0, .max = 1e9, .unit = "MW/s",
      .help = "ramp-up limit over 1 s (0: not checked)" },
    { "max_ramp_down_mw_s", PT_DOUBLE, SPEC(max_ramp_down_mw_s), .def = "0", .min = 0, .max = 1e9, .unit = "MW/s",
      .help = "ramp-down limit over 1 s (0: not checked)" },
    { "dynamic_range_mw", PT_DOUBLE, SPEC(dynamic_range_mw), .def = "0", .min = 0, .max = 1e9, .unit = "MW",
      .help = "short-term range: max - min (0: not checked)" },
    { "band", PT_PAIR, SPEC(band_lo_hz), .def = "[0.1, 20]", .min = 0, .max = 1e6, .unit = "Hz",
      .help = "the critical band" },
    { "max_band_share", PT_DOUBLE, SPEC(max_band_share), .def = "0", .min = 0, .max = 1,
      .help = "cap on the fluctuation energy's share inside the band (0: not checked)" },
    { 0 },
};

#define PJ(field) offsetof(__typeof__(((struct scenario *)0)->projection), field)
static const struct param projection_params[] = {
    { "gpus", PT_INT, PJ(gpus), .def = "10000", .min = 1, .max = 10000000, .help = "GPUs of the projected cluster" },
    { "groups", PT_INT, PJ(groups), .def = "1", .min = 1, .max = 10000000,
      .help = "synchronised groups, each shifted by the measured jitter" },
    { "spec", PT_SECTION, PJ(spec), .sub = spec_params, .help = "the utility's limits, as utilities state them" },
    { 0 },
};

static const struct param heartbeat_params[] = {
    { "interval", PT_DURATION, HB(interval_s), .def = "100ms", .min = 0.001, .max = 60,
      .help = "how often a worker proves it is alive" },
    { "timeout", PT_DURATION, HB(timeout_s), .def = "10s", .min = 0.01, .max = 86400,
      .help = "no heartbeat for this long: the rank is hung" },
    { "startup", PT_DURATION, HB(startup_s), .def = "120s", .min = 0.1, .max = 86400,
      .help = "time a worker may take to start (CUDA, NCCL init)" },
    { "checkpoint", PT_DURATION, HB(checkpoint_s), .def = "120s", .min = 0.01, .max = 86400,
      .help = "no heartbeat for this long while a rank writes a synchronous checkpoint (its write and fsync block: "
              "it cannot beat meanwhile; never less than timeout): the rank is hung" },
    { 0 },
};

#define SS(field) offsetof(struct sim_sensor, field)
static const struct param sim_sensor_params[] = {
    { "update", PT_DURATION, SS(update_s), .def = "20ms", .min = 0, .max = 10,
      .help = "a reading every this long (0, or at least 1ms), held until the next (0: every reading is the power at "
              "that moment); default the H100's driver sample buffer, what gauntlet reads there (20ms; its instant "
              "field: ~100ms with mode point)" },
    { "mode", PT_ENUM, SS(mode), .def = "mean", .choices = "mean,point",
      .help = "mean: a reading is the mean of the electrical power over its update (an averaging sensor); point: the "
              "power at its update (an H100's instant field reads so: on a 0.3 s square wave polled every 10 ms, none "
              "of its 39 readings between its levels)" },
    { "lag", PT_DURATION, SS(lag_s), .def = "0", .min = 0, .max = 10,
      .help = "a reading becomes visible this long after its update (at most 32 updates)" },
    { 0 },
};

#define SL(field) offsetof(struct sim_limiter, field)
static const struct param sim_limiter_params[] = {
    { "burst_w", PT_DOUBLE, SL(burst_w), .def = "0", .min = 0, .max = 5000, .unit = "W",
      .help = "a compute phase begun after a gap runs this far above compute_w at first (an H200: ~240 W above its "
              "steady compute power, an H100: ~180 W; 0: no burst)" },
    { "burst_s", PT_DURATION, SL(burst_s), .def = "70ms", .min = 0, .max = 10,
      .help = "for this long, before the limiter lowers the clocks (an H200: 60-80 ms, an H100: 20-40 ms)" },
    { "dip_w", PT_DOUBLE, SL(dip_w), .def = "0", .min = 0, .max = 5000, .unit = "W",
      .help = "after a compute phase, the work that holds the gap's power up (a filler, a ramp's hold) draws up to "
              "this much less, never below the gap's own level (an H200: ~90 W; 0: no dip)" },
    { "dip_s", PT_DURATION, SL(dip_s), .def = "100ms", .min = 0.001, .max = 10,
      .help = "the dip's time constant: the clocks the limiter lowered come back" },
    { 0 },
};

static const struct param sim_params[] = {
    { "tflops", PT_DOUBLE, SIM(tflops), .def = "714", .min = 1e-6, .max = 1e6, .unit = "TFLOP/s",
      .help = "achieved dense GEMM rate" },
    { "busbw", PT_DOUBLE, SIM(busbw_gbs), .def = "360", .min = 1e-6, .max = 1e6, .unit = "GB/s",
      .help = "all-reduce bus bandwidth" },
    { "latency", PT_DURATION, SIM(latency_s), .def = "50us", .min = 0, .max = 10, .help = "fixed cost per all-reduce" },
    { "idle_w", PT_DOUBLE, SIM(idle_w), .def = "131", .min = 0, .max = 5000, .unit = "W", .help = "power when idle" },
    { "comm_w", PT_DOUBLE, SIM(comm_w), .def = "132", .min = 0, .max = 5000, .unit = "W",
      .help = "power during the all-reduce" },
    { "compute_w", PT_DOUBLE, SIM(compute_w), .def = "780", .min = 0, .max = 5000, .unit = "W",
      .help = "power during the GEMM chain" },
    { "checkpoint_w", PT_DOUBLE, SIM(ckpt_w), .def = "131", .min = 0, .max = 5000, .unit = "W",
      .help = "power while checkpointing" },
    { "optimizer_w", PT_DOUBLE, SIM(optimizer_w), .def = "420", .min = 0, .max = 5000, .unit = "W",
      .help = "power during an optimizer step (memory-bound; an estimate until measured on a GPU)" },
    { "mem_bw", PT_DOUBLE, SIM(mem_gbs), .def = "2600", .min = 1e-6, .max = 1e6, .unit = "GB/s",
      .help = "achieved memory bandwidth of an optimizer step (7 x its bytes moved)" },
    { "filler_w", PT_DOUBLE, SIM(filler_w), .def = "725", .min = 0, .max = 5000, .unit = "W",
      .help = "the most filler work draws (bf16 GEMMs at full duty; on an H100 4096^3 GEMMs drew 705 W against 759 W "
              "for the compute phase: idle + 0.915 x (compute - idle)); a floor above it is not reached" },
    { "tdp_w", PT_DOUBLE, SIM(tdp_w), .def = "700", .min = 1, .max = 5000, .unit = "W", .help = "board power limit" },
    { "ramp", PT_DURATION, SIM(ramp_s), .def = "2ms", .min = 0, .max = 10,
      .help = "first-order time constant of the electrical power's response to a change of work (assumed: the "
              "H100's 20 ms driver samples show each GEMM edge within one or two samples, so it is well under 20 ms; "
              "the 70 ms NVML shows is its sensor, sim.sensor)" },
    { "sensor", PT_SECTION, SIM(sensor), .sub = sim_sensor_params,
      .help = "the sensor the model's power is read through (docs/power.md, what a GPU's sensor lets you see)" },
    { "limiter", PT_SECTION, SIM(limiter), .sub = sim_limiter_params,
      .help = "the power limiter's burst at each compute phase's start and the filler's dip after it (docs/power.md; "
              "off by default)" },
    { "jitter", PT_DOUBLE, SIM(jitter), .def = "0.02", .min = 0, .max = 1,
      .help = "relative std-dev of each phase's duration" },
    { "noise_w", PT_DOUBLE, SIM(noise_w), .def = "4", .min = 0, .max = 1000, .unit = "W",
      .help = "std-dev of each power sample" },
    { "speedup", PT_DOUBLE, SIM(speedup), .def = "1", .min = 0.001, .max = 1e6,
      .help = "modeled durations are divided by this" },
    { "teardown", PT_DURATION, SIM(teardown_s), .def = "0", .min = 0, .max = 10,
      .help = "a dead worker's process ends this long after it died (fatal signal or exit), as a GPU context's "
              "teardown makes it on a GPU; SIGKILL ends at once" },
    { "max_dim", PT_INT, SIM(max_dim), .def = "64", .min = 1, .max = 1024,
      .help = "cap on each dimension of the real CPU GEMM" },
    { "max_elems", PT_INT, SIM(max_elems), .def = "65536", .min = 1, .max = 16 << 20, .unit = "fp32 elements",
      .help = "cap on the real all-reduce buffer" },
    { 0 },
};

/* The acceptance checks: each section turns its check on when given (PF_ON); docs/acceptance.md. */
#define CR(field) offsetof(struct check_rate, field)
static const struct param check_gemm_params[] = {
    { "min_share", PT_DOUBLE, CR(min_share), .def = "0.85", .min = 0.01, .max = 2,
      .help = "each GPU's GEMM rate must reach this share of the expected" },
    { "expected", PT_DOUBLE, CR(expected), .def = "0", .min = 0, .max = 1e6, .unit = "TFLOP/s",
      .help = "the expected rate per GPU (0: by GPU model and dtype, docs/acceptance.md)" },
    { 0 },
};
static const struct param check_busbw_params[] = {
    { "min_share", PT_DOUBLE, CR(min_share), .def = "0.8", .min = 0.01, .max = 2,
      .help = "the all-reduce bus bandwidth must reach this share of the expected" },
    { "expected", PT_DOUBLE, CR(expected), .def = "0", .min = 0, .max = 1e6, .unit = "GB/s",
      .help = "expected bus bandwidth (0: by GPU model; SKIP when workload.allreduce.emulate_busbw is set)" },
    { 0 },
};
static const struct param check_power_params[] = {
    { "min_share_tdp", PT_DOUBLE, offsetof(struct check_power, min_share_tdp), .def = "0.8", .min = 0.01, .max = 2,
      .help = "each GPU's power under the GEMM chain (p90 of its readings that lie wholly in compute phases) must reach "
              "this share of TDP" },
    { 0 },
};
static const struct param check_swing_params[] = {
    { "min_drop", PT_DOUBLE, offsetof(struct check_swing, min_drop), .def = "0.3", .min = 0, .max = 1,
      .help = "communication-phase power (p10) must lie this share below compute-phase power (p90)" },
    { 0 },
};
static const struct param check_flag_params[] = { { 0 } };
static const struct param check_drill_params[] = {
    { "max_detect", PT_DURATION, offsetof(struct check_drill, max_detect_s), .def = "15s", .min = 0.001, .max = 86400,
      .help = "each injected fault must be detected within this" },
    { "max_recover", PT_DURATION, offsetof(struct check_drill, max_recover_s), .def = "60s", .min = 0.001, .max = 86400,
      .help = "and recovered (first good iteration) within this after its detection" },
    { 0 },
};
static const struct param check_h2d_params[] = {
    { "min_gbs", PT_DOUBLE, offsetof(struct check_bw, min_gbs), .def = "20", .min = 0.001, .max = 10000, .unit = "GB/s",
      .help = "host-to-device copy bandwidth from pinned memory, per GPU" },
    { "bytes", PT_SIZE, offsetof(struct check_bw, bytes), .def = "256MiB", .min = 1048576, .max = 64 * TIB / 1024,
      .unit = "bytes", .help = "size of each copy" },
    { 0 },
};
static const struct param check_io_params[] = {
    { "min_write_gbs", PT_DOUBLE, offsetof(struct check_io, min_write_gbs), .def = "0.5", .min = 0, .max = 10000,
      .unit = "GB/s", .help = "checkpoint write bandwidth to workload.checkpoint.path (write + fsync)" },
    { "min_read_gbs", PT_DOUBLE, offsetof(struct check_io, min_read_gbs), .def = "0.5", .min = 0, .max = 10000,
      .unit = "GB/s", .help = "read bandwidth of the same file, its pages dropped from the cache first" },
    { "bytes", PT_SIZE, offsetof(struct check_io, bytes), .def = "256MiB", .min = 1048576, .max = 64 * TIB / 1024,
      .unit = "bytes", .help = "file written and read once per node, by gauntlet accept after the run" },
    { 0 },
};
static const struct param check_outlier_params[] = {
    { "k", PT_DOUBLE, offsetof(struct check_outliers, k), .def = "4", .min = 0.5, .max = 100,
      .help = "a GPU more than k scaled median absolute deviations below its peers fails" },
    { "min_rel", PT_DOUBLE, offsetof(struct check_outliers, min_rel), .def = "0.03", .min = 0, .max = 1,
      .help = "and more than this share below the median (peers that agree to the digit do not flag noise)" },
    { 0 },
};

#define CH(field) offsetof(struct checks, field)
static const struct param checks_params[] = {
    { "gemm_tflops", PT_SECTION, CH(gemm_tflops), .sub = check_gemm_params, .flags = PF_ON,
      .help = "GEMM TFLOP/s per GPU against the expected rate" },
    { "busbw", PT_SECTION, CH(busbw), .sub = check_busbw_params, .flags = PF_ON,
      .help = "all-reduce bus bandwidth against the expected" },
    { "power_under_load", PT_SECTION, CH(power_under_load), .sub = check_power_params, .flags = PF_ON,
      .help = "each GPU reaches a share of its TDP under the GEMM chain" },
    { "power_swing", PT_SECTION, CH(power_swing), .sub = check_swing_params, .flags = PF_ON,
      .help = "power drops in communication: the swing is real" },
    { "sdc_screen", PT_SECTION, CH(sdc_screen), .sub = check_flag_params, .flags = PF_ON,
      .help = "no mismatch from the fingerprint, abft or replay detectors over the run" },
    { "fault_drill", PT_SECTION, CH(fault_drill), .sub = check_drill_params, .flags = PF_ON,
      .help = "each injected fault detected and recovered within its limits" },
    { "throttle", PT_SECTION, CH(throttle), .sub = check_flag_params, .flags = PF_ON,
      .help = "no throttle reason other than power (NVML clock-event reasons)" },
    { "numa", PT_SECTION, CH(numa), .sub = check_flag_params, .flags = PF_ON,
      .help = "each worker runs on the CPUs of its GPU's NUMA node" },
    { "h2d_bandwidth", PT_SECTION, CH(h2d_bandwidth), .sub = check_h2d_params, .flags = PF_ON,
      .help = "host-to-device copy bandwidth per GPU from pinned memory" },
    { "checkpoint_io", PT_SECTION, CH(checkpoint_io), .sub = check_io_params, .flags = PF_ON,
      .help = "checkpoint write and read bandwidth to the checkpoint path" },
    { "outliers", PT_SECTION, CH(outliers), .sub = check_outlier_params, .flags = PF_ON,
      .help = "no GPU far below its peers on GEMM rate or power under load" },
    { 0 },
};

/* mitigations is a list, parsed by scenario_mitigations(); its entry here documents it and gives the default. */
const struct param scenario_params[] = {
    { "name", PT_STRING, SC(name), sizeof(((struct scenario *)0)->name), .flags = PF_REQUIRED,
      .help = "names the run and its results folder" },
    { "ranks", PT_INT, SC(ranks), .min = 1, .max = 4096, .flags = PF_REQUIRED,
      .help = "worker processes on each node; on cuda, GPUs of the node" },
    { "nodes", PT_INT, SC(nodes), .def = "1", .min = 1, .max = 8192,   /* SHM_MAX_NODES */
      .help = "nodes, one supervisor each, started by mpirun or srun: must match the launcher's count" },
    { "forward", PT_ENUM, SC(forward), .def = "nodes", .choices = "ranks,nodes",
      .help = "several nodes: what the others send node 0: ranks, every line of every rank (power rows at "
              "power.forward_hz per GPU); nodes, one line per node and iteration, the node's summed power at "
              "power.forward_hz, and every other event whole (each node keeps all of it in its own files)" },
    { "gather_fanout", PT_INT, SC(gather_fanout), .def = "8", .min = 2, .max = 8192,
      .help = "several nodes: what the others send node 0 climbs a tree in which each node relays for at most this "
              "many (node k sends to node (k - 1) / gather_fanout); node 0 hears from at most this many" },
    { "iterations", PT_INT, SC(iterations), .min = 1, .max = 1000000000, .flags = PF_REQUIRED,
      .help = "training iterations per mitigation" },
    { "seed", PT_INT, SC(seed), .def = "1", .min = 0, .max = 9.0e15, .help = "seeds every random choice (--seed overrides)" },
    { "workload", PT_SECTION, SC(workload), .sub = workload_params, .flags = PF_REQUIRED, .help = "the iteration" },
    { "power", PT_SECTION, SC(power), .sub = power_params, .help = "power sampling" },
    { "projection", PT_SECTION, SC(projection), .sub = projection_params,
      .help = "the cluster the measured swing is projected to" },
    { "heartbeat", PT_SECTION, SC(heartbeat), .sub = heartbeat_params, .help = "liveness of workers" },
    { "sim", PT_SECTION, SC(sim), .sub = sim_params, .help = "the sim backend's model" },
    { "mitigations", PT_LIST, 0, 0, .def = "[none]",
      .help = "list of mitigations, each run in turn: a name or {name: {params}}; or auto: search them against the spec" },
    { "search_budget", PT_INT, SC(search_budget), .def = "15", .min = 2, .max = SC_MAX_MITIGATIONS,
      .help = "mitigations: auto runs at most this many candidates (none first)" },
    { "rank_disturbed", PT_BOOL, SC(rank_disturbed), .def = "false",
      .help = "runs disturbed by hand in the live view (paused, a fault injected, skipped) count as the baseline and in "
              "the search too (default: left out: their figures are not the mitigation's alone)" },
    { "faults", PT_LIST, 0, 0, .def = "[]", .help = "faults to inject: {kind, at|at_s|rate_per_hour, rank, params}" },
    { "detectors", PT_LIST, 0, 0, .def = "[]", .help = "detectors to run besides exit, heartbeat and comm (always on)" },
    { "recovery", PT_LIST, 0, 0, .def = "none", .help = "what happens after a failure: a name or {name: {params}}" },
    { "checks", PT_SECTION, SC(checks), .sub = checks_params,
      .help = "acceptance checks (gauntlet accept): each given key turns one on" },
    { 0 },
};

