/* harness/plugins/detectors/replay.c: every `every` iterations, recompute a fixed GEMM and compare it bit for bit
 * with its first result (as gpu-burn and DCGM's diagnostic do, here inside the training loop). */
#include <stddef.h>

#include "detector.h"

static const struct param replay_params[] = {
    { "every", PT_INT, offsetof(struct replay_params, every), .def = "10", .min = 1, .max = 1000000,
      .help = "iterations between replays" },
    { 0 },
};

const struct detector_ops detector_replay = {
    .version = DETECTOR_OPS_VERSION,
    .name = "replay",
    .help = "recompute a fixed GEMM every `every` iterations, compare bit for bit with its first result",
    .params = replay_params,
    .params_size = sizeof(struct replay_params),
    .id = DET_REPLAY,
    .catches = "a device that computes wrong results repeatedly; cannot see a one-off flip in live data",
    .finds = "bitflip",
};
