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
    /* every rank hashes the same slice at the same iteration (a restart repeats an iteration, and its slice) */
    int slices = fp && fp->slices > 1 ? (int)fp->slices : 1, slice = (int)((env->iter % slices + slices) % slices);
    if (fp && fp->async && env->fingerprint_start) {   /* the last one is done by now: report it, start this */
        env->fingerprint_take(env->ctx);
        if (env->fingerprint_start(env->ctx, slice, slices) == 0)
            env->fingerprint_pending(env->ctx);
    } else if (env->fingerprint(env->ctx, slice, slices, &h) == 0) {
        env->fingerprint_out(env->ctx, h);
    }
}

void fingerprint_slice(size_t bytes, int slice, int slices, size_t align, size_t *off, size_t *len)
{
    if (slices < 1 || slice < 0 || slice >= slices || align < 1) {
        *off = 0;
        *len = bytes;
        return;
    }
    /* bytes * slice / slices without overflow (bytes < 2^64, slices <= 2^31) */
    size_t q = bytes / (size_t)slices, r = bytes % (size_t)slices;
    size_t lo = q * (size_t)slice + r * (size_t)slice / (size_t)slices;
    size_t hi = slice + 1 == slices ? bytes : q * (size_t)(slice + 1) + r * (size_t)(slice + 1) / (size_t)slices;
    lo -= lo % align;
    if (slice + 1 < slices)
        hi -= hi % align;
    *off = lo;   /* slice 0 starts at 0 */
    *len = hi > lo ? hi - lo : 0;
}

/* The supervisor's side: the value most ranks hold is taken as right; another held as often is a tie. */
static void fingerprint_vote(const uint64_t *h, const int *dropped, int n, uint64_t *best_out, int *tie_out)
{
    uint64_t best = 0;
    int best_n = 0, tie = 0;
    for (int r = 0; r < n; r++) {
        if (dropped[r])
            continue;
        int k = 0;
        for (int q = 0; q < n; q++)
            k += !dropped[q] && h[q] == h[r];
        if (k > best_n) {
            best_n = k;
            best = h[r];
            tie = 0;
        } else if (k == best_n && h[r] != best) {
            tie = 1;
        }
    }
    *best_out = best;
    *tie_out = tie;
}

/* A corruption is found in its iteration or the next (a flip of the weights after the check's point; an async
 * fingerprint names the iteration it hashed); with slices, one that lasts is hashed up to slices - 1 iterations
 * after that. */
static int fingerprint_window(const void *params)
{
    const struct fingerprint_params *fp = params;
    return fp && fp->slices > 1 ? (int)fp->slices : 1;
}

static const struct param fingerprint_params[] = {
    { "async", PT_BOOL, offsetof(struct fingerprint_params, async), .def = "false",
      .help = "hash beside the next compute phase (no wait in the loop; seen one iteration later)" },
    { "slices", PT_INT, offsetof(struct fingerprint_params, slices), .def = "1", .min = 1, .max = 1024,
      .help = "hash 1/slices of the reduced buffer and of the weights each iteration, the next slice the next "
              "iteration (every byte once in `slices` iterations): a corruption that lasts (the weights) is seen "
              "within `slices` iterations, one the next all-reduce overwrites with probability 1/slices" },
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
    .sees = "weights,allreduce-buffer",
    .point = IP_AFTER_STEP,
    .check = fingerprint_check,
    .sdc = 1,
    .window = 1,   /* an async fingerprint is reported one iteration later */
    .window_of = fingerprint_window,
    .vote = fingerprint_vote,
};
