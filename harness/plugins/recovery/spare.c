/* harness/plugins/recovery/spare.c: a spare worker, started and initialised ahead of time, takes the failed rank's
 * place; the state comes from a peer's in-memory replica. */
#include <stddef.h>

#include "recovery.h"

static const struct param spare_params[] = {
    { "replicate_every", PT_INT, offsetof(struct replica_params, replicate_every), .def = "10", .min = 1,
      .max = 1000000, .help = "iterations between in-memory replicas of the state" },
    { 0 },
};

const struct recovery_ops recovery_spare = {
    .version = RECOVERY_OPS_VERSION,
    .name = "spare",
    .help = "a spare worker started ahead of time takes the failed rank's place",
    .params = spare_params,
    .params_size = sizeof(struct replica_params),
    .recovers = 1,
    .spares = 1,
    .replicas = 1,
};
