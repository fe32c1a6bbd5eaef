/* harness/mitigations/table.c: the one list of mitigation strategies. */
#include "mitigation.h"

extern const struct mitigation_ops mitigation_none;

const struct mitigation_ops *const mitigation_table[] = {
    &mitigation_none,
    NULL,
};

const struct plugin_kind plugin_mitigations = { "mitigation", (const struct plugin_ops *const *)mitigation_table,
                                                MITIGATION_OPS_VERSION };
