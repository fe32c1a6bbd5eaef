/* harness/plugins/detectors/abft.c: Huang-Abraham checksums on the GEMM: the column sums of C against the column sums
 * of A times B, with a tolerance from the dtype and k. */
#include "detector.h"

static void abft_check(const struct detector_env *env, const void *params)
{
    (void)params;
    double err, tol;
    int rc = env->abft ? env->abft(env->ctx, &err, &tol) : -1;
    if (rc >= 0 && env->checked)   /* verified (clean or not); -1: the check could not run */
        env->checked(env->ctx, DET_ABFT);
    if (rc == 1)
        env->found(env->ctx, DET_ABFT, err, tol, "GEMM checksum mismatch");
}

const struct detector_ops detector_abft = {
    .version = DETECTOR_OPS_VERSION,
    .name = "abft",
    .help = "Huang-Abraham checksum of each compute phase's GEMM output",
    .id = DET_ABFT,
    .catches = "a corrupted GEMM output on the rank where it happens, in the same iteration; cannot see an "
               "error smaller than the rounding tolerance (a low mantissa bit) or corruption outside the GEMM",
    .finds = "bitflip",
    .sees = "gemm-output",
    .sdc = 1,
    .window = 0,   /* in the corrupted iteration itself */
    .point = IP_AFTER_GEMM,
    .check = abft_check,
};
