/* harness/plugins/detectors/replay.c: every `every` iterations, recompute a fixed GEMM and compare it bit for bit
 * with its first result (as gpu-burn and DCGM's diagnostic do, here inside the training loop). */
#include <stddef.h>

#include "detector.h"

static void replay_check(const struct detector_env *env, const void *params)
{
    const struct replay_params *rp = params;
    uint64_t h;
    if (!env->replay || !rp || env->iter % rp->every != 0 || env->replay(env->ctx, &h) != 0)
        return;
    if (!*env->replay_ref) {   /* the first replay is the reference: it compares nothing */
        *env->replay_ref = h;
        return;
    }
    if (env->checked)
        env->checked(env->ctx, DET_REPLAY);
    if (h != *env->replay_ref)
        env->found(env->ctx, DET_REPLAY, 0, 0, "replayed GEMM differs from its first result");
}

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
    .sees = "weights",
    .sdc = 1,
    .window = 1,
    .point = IP_ITER_START,
    .check = replay_check,
};
