/* harness/mitigations/mitigation.h: a power-swing mitigation strategy is one const struct in a file of
 * its own, listed once in harness/mitigations/table.c. */
#ifndef GAUNTLET_MITIGATION_H
#define GAUNTLET_MITIGATION_H

#include "plugin.h"

#define MITIGATION_OPS_VERSION 1

struct mitigation_ops {
    PLUGIN_HEAD;
};

/* Every mitigation, NULL-terminated, in the order `gauntlet list` shows them. */
extern const struct mitigation_ops *const mitigation_table[];

#endif
