/* harness/plugins/recovery/inprocess.c: keep the healthy processes, replace the failed rank, and take the state from
 * a peer's in-memory replica instead of storage. */
#include <stddef.h>

#include "recovery.h"

static const struct param inprocess_params[] = {
    { "replicate_every", PT_INT, offsetof(struct replica_params, replicate_every), .def = "10", .min = 1,
      .max = 1000000, .help = "iterations between in-memory replicas of the state" },
    { 0 },
};

const struct recovery_ops recovery_inprocess = {
    .version = RECOVERY_OPS_VERSION,
    .name = "inprocess",
    .help = "keep healthy ranks, replace the failed one, state from a peer's in-memory replica",
    .params = inprocess_params,
    .params_size = sizeof(struct replica_params),
    .recovers = 1,
    .replicas = 1,
};
