/* harness/plugins/detectors/fingerprint.c: a 64-bit hash of the reduced buffer on every rank after each all-reduce,
 * compared across ranks by the supervisor. With `async` the backend hashes on a stream of its own while the
 * next iteration computes (cuda), and the worker reports the hash one iteration later. */
#include <stddef.h>

#include "detector.h"

static void fingerprint_check(const struct detector_env *env, const void *params)
{
    const struct fingerprint_params *fp = params;
    uint64_t h;
    if (!env->fingerprint)
        return;
    if (fp && fp->async && env->fingerprint_start) {   /* the last one is done by now: report it, start this */
        env->fingerprint_take(env->ctx);
        if (env->fingerprint_start(env->ctx) == 0)
            env->fingerprint_pending(env->ctx);
    } else if (env->fingerprint(env->ctx, &h) == 0) {
        env->fingerprint_out(env->ctx, h);
    }
}

static const struct param fingerprint_params[] = {
    { "async", PT_BOOL, offsetof(struct fingerprint_params, async), .def = "false",
      .help = "hash beside the next compute phase (no wait in the loop; seen one iteration later)" },
    { 0 },
};

const struct detector_ops detector_fingerprint = {
    .version = DETECTOR_OPS_VERSION,
    .name = "fingerprint",
    .help = "64-bit hash of the reduced buffer on every rank, compared across ranks",
    .params = fingerprint_params,
    .params_size = sizeof(struct fingerprint_params),
    .id = DET_FINGERPRINT,
    .catches = "corruption of one rank's copy after the reduction (allreduce-buffer, and weights since the "
               "state is then hashed too); cannot see a gradient corrupted before the all-reduce: the "
               "reduction carries it to every rank identically",
    .finds = "bitflip",
    .point = IP_AFTER_STEP,
    .check = fingerprint_check,
};
