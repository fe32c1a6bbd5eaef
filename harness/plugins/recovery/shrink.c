/* harness/plugins/recovery/shrink.c: continue on the surviving ranks, reporting the capacity lost. */
#include <stddef.h>

#include "recovery.h"

static const struct param shrink_params[] = {
    { "replicate_every", PT_INT, offsetof(struct replica_params, replicate_every), .def = "10", .min = 1,
      .max = 1000000, .help = "iterations between in-memory replicas the survivors roll back to" },
    { 0 },
};

const struct recovery_ops recovery_shrink = {
    .version = RECOVERY_OPS_VERSION,
    .name = "shrink",
    .help = "continue on the surviving ranks (ncclCommShrink on cuda), reporting the lost capacity",
    .params = shrink_params,
    .params_size = sizeof(struct replica_params),
    .recovers = 1,
    .drops_failed = 1,
    .replicas = 1,
};
