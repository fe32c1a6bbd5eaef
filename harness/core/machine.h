/* harness/core/machine.h: the machine the sim backend models (scenario key `sim:`): rates, power levels, noise. The
 * mitigations' models read it too (the levels they would hold on it). */
#ifndef GAUNTLET_MACHINE_H
#define GAUNTLET_MACHINE_H

#include <stdint.h>

/* The power sensor a sim GPU reports through: a reading every update (the mean of the electrical power over that
 * update), visible lag after it, held in between; update 0: every reading is the electrical power at that moment. */
struct sim_sensor {
    double update_s, lag_s;
    int mode;   /* SENSOR_MEAN: a reading is the mean over its update; SENSOR_POINT: the power at its update */
};
enum { SENSOR_MEAN, SENSOR_POINT };

/* What a GPU's power limiter adds to the levels (sim.limiter; 0: nothing): a compute phase begun after a gap runs
 * burst_w above its level for burst_s before the limiter lowers the clocks (an H200 read 920-980 W for 60-80 ms
 * against a 700 W limit, an H100 922-971 W for 20-40 ms), and the work that holds a gap's power up (a filler) draws
 * up to dip_w less after it, the lowered clocks coming back with time constant dip_s (an H200's filler: ~90 W under
 * its level in the first ~100 ms). */
struct sim_limiter {
    double burst_w, burst_s, dip_w, dip_s;
};

/* The sim backend's model: an H100/H200-like GPU, durations from rates, power from phase levels. */
struct sim_params {
    double tflops;        /* achieved dense GEMM rate, TFLOP/s */
    double busbw_gbs;     /* all-reduce bus bandwidth, GB/s */
    double latency_s;     /* fixed cost of one all-reduce */
    double idle_w, comm_w, compute_w, ckpt_w, tdp_w;
    double filler_w;      /* the most filler work draws (its level at full duty) */
    double optimizer_w;   /* a memory-bound step (workload.phases optimizer) */
    double mem_gbs;       /* achieved memory bandwidth of a streaming update, GB/s */
    double ramp_s;        /* first-order time constant of power changes */
    struct sim_sensor sensor;   /* what reports the power: sim.sensor */
    struct sim_limiter limiter; /* the power limiter's burst and dip: sim.limiter */
    double jitter;        /* relative standard deviation of each phase's duration */
    double noise_w;       /* standard deviation of each power sample */
    double speedup;       /* modeled durations are divided by this */
    double teardown_s;    /* a worker's process ends this long after its death (a GPU context's teardown) */
    int64_t max_dim;      /* cap on each GEMM dimension of the real CPU GEMM */
    int64_t max_elems;    /* cap on the real all-reduce buffer, in fp32 elements */
};

#endif
