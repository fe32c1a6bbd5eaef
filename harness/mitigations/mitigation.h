/* harness/mitigations/mitigation.h: a power-swing mitigation strategy is one const struct in a file of
 * its own, listed once in harness/mitigations/table.c. */
#ifndef GAUNTLET_MITIGATION_H
#define GAUNTLET_MITIGATION_H

#include <stddef.h>

#include "param.h"

#define MITIGATION_OPS_VERSION 1

struct mitigation_ops {
    int version;                  /* MITIGATION_OPS_VERSION */
    const char *name;             /* as the scenario spells it */
    const char *help;             /* one line for `gauntlet list` */
    const struct param *params;   /* inline parameters, offsets into the spec's params blob; may be NULL */
    size_t params_size;           /* bytes of the struct the params fill (<= SC_PARAM_BYTES) */
};

/* Every mitigation, NULL-terminated, in the order `gauntlet list` shows them. */
extern const struct mitigation_ops *const mitigation_table[];

/* Returns the index of name in mitigation_table, or -1. */
int mitigation_find(const char *name);
/* Checks the table (version, names present and unique, params fit); 0, or -1 with why. */
int mitigation_table_check(char *why, size_t n);

#endif
