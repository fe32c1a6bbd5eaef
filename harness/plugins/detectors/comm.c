/* harness/plugins/detectors/comm.c: communicator errors — NCCL's asynchronous errors polled on the non-blocking
 * communicator (then ncclCommAbort); on sim, the collective's failure. */
#include "detector.h"

const struct detector_ops detector_comm = {
    .version = DETECTOR_OPS_VERSION,
    .name = "comm",
    .help = "communicator errors: ncclCommGetAsyncError polled while waiting, then abort",
    .id = DET_COMM,
    .always = 1,
    .catches = "comm-error on the rank whose communicator failed, and its peers' timeouts",
    .finds = "comm-error",
    .once = 1,   /* the communicator is rebuilt */
    .point = -1,   /* no check at a point of the iteration: the backend's collective reports the failure where it
                    * meets it (worker_emit_detect), in the worker as the table in docs/faults.md says */
};
