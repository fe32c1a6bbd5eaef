/* harness/plugins/recovery/recovery.h: a recovery strategy is one const struct in a file of its own, listed once in
 * harness/plugins/recovery/table.c; the supervisor carries out its mode (harness/resilience/recover.c). */
#ifndef GAUNTLET_RECOVERY_H
#define GAUNTLET_RECOVERY_H

#include <stdint.h>

#include "plugin.h"

#define RECOVERY_OPS_VERSION 1

enum recovery_mode { REC_NONE = 0, REC_RESTART, REC_INPROCESS, REC_SPARE, REC_SHRINK };

struct recovery_ops {
    PLUGIN_HEAD;
    int mode;             /* enum recovery_mode */
    int replicas;         /* keeps in-memory replicas of the state (params start with replicate_every) */
};

extern const struct recovery_ops *const recovery_table[];

struct replica_params { int64_t replicate_every; };

#endif
