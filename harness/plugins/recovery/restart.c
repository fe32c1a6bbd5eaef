/* harness/plugins/recovery/restart.c: stop every rank, start them all again, load the last checkpoint from storage,
 * redo the lost iterations (what torchrun-style restarts do). */
#include "recovery.h"

const struct recovery_ops recovery_restart = {
    .version = RECOVERY_OPS_VERSION,
    .name = "restart",
    .help = "stop every rank, start all again from the last checkpoint on storage, redo lost iterations",
    .recovers = 1,
    .restarts_all = 1,
};
