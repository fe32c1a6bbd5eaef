/* harness/detectors/fingerprint.c: a 64-bit hash of the reduced buffer on every rank after each all-reduce,
 * compared across ranks by the supervisor. */
#include "detector.h"

const struct detector_ops detector_fingerprint = {
    .version = DETECTOR_OPS_VERSION,
    .name = "fingerprint",
    .help = "64-bit hash of the reduced buffer on every rank, compared across ranks",
    .id = DET_FINGERPRINT,
    .catches = "corruption of one rank's copy after the reduction (allreduce-buffer, and weights since the "
               "state is then hashed too); cannot see a gradient corrupted before the all-reduce: the "
               "reduction carries it to every rank identically",
};
