/* harness/plugins/recovery/table.c: the one list of recovery strategies. */
#include "recovery.h"

extern const struct recovery_ops recovery_none, recovery_restart, recovery_inprocess, recovery_spare, recovery_shrink;

const struct recovery_ops *const recovery_table[] = {
    &recovery_none, &recovery_restart, &recovery_inprocess, &recovery_spare, &recovery_shrink, NULL,
};

const struct plugin_kind plugin_recoveries = { "recovery", (const struct plugin_ops *const *)recovery_table,
                                               RECOVERY_OPS_VERSION };
