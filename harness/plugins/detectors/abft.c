/* harness/plugins/detectors/abft.c: Huang-Abraham checksums on the GEMM: the column sums of C against the column sums
 * of A times B, with a tolerance from the dtype and k. */
#include "detector.h"

const struct detector_ops detector_abft = {
    .version = DETECTOR_OPS_VERSION,
    .name = "abft",
    .help = "Huang-Abraham checksum of each compute phase's GEMM output",
    .id = DET_ABFT,
    .catches = "a corrupted GEMM output on the rank where it happens, in the same iteration; cannot see an "
               "error smaller than the rounding tolerance (a low mantissa bit) or corruption outside the GEMM",
    .finds = "bitflip",
};
