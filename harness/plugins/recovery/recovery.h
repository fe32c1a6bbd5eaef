/* harness/plugins/recovery/recovery.h: a recovery strategy is one const struct in a file of its own, listed once in
 * harness/plugins/recovery/table.c, holding its plan as data; the recovery machine carries it out
 * (harness/resilience/recover.c) and never asks which strategy it is. */
#ifndef GAUNTLET_RECOVERY_H
#define GAUNTLET_RECOVERY_H

#include <stdint.h>

#include "plugin.h"

#define RECOVERY_OPS_VERSION 1

struct recovery_ops {
    PLUGIN_HEAD;
    /* The plan: */
    int recovers;         /* 0: a failure ends the run (none) */
    int replicas;         /* keeps in-memory replicas of the state (params start with replicate_every) */
    int restarts_all;     /* every rank's process is killed and started again, from the newest checkpoint on
                           * storage, in a new communicator (restart); else the state comes from the newest whole
                           * replica of a healthy rank */
    int drops_failed;     /* the failed rank, and any whose process is gone, leave the run: nothing is replaced
                           * (shrink); else every rank whose process is gone is replaced */
    int spares;           /* workers started ahead of time, per node, that take a dead rank over first (spare) */
};

extern const struct recovery_ops *const recovery_table[];

struct replica_params { int64_t replicate_every; };
#define RECOVERY_REPLICA_SLOTS 4   /* replicas each rank keeps (control/shm.h: REPLICA_SLOTS) */

#endif
