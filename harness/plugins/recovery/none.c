/* harness/plugins/recovery/none.c: the baseline — the run ends at the first failure. */
#include "recovery.h"

const struct recovery_ops recovery_none = {
    .version = RECOVERY_OPS_VERSION,
    .name = "none",
    .help = "the run ends at the first failure (the baseline)",
    .recovers = 0,
};
