/* harness/core/plugin.h: what every plug-in table entry starts with (mitigations, faults, detectors, recoveries),
 * so the scenario parser, `gauntlet list` and the table checks treat them alike. */
#ifndef GAUNTLET_PLUGIN_H
#define GAUNTLET_PLUGIN_H

#include <stddef.h>

#include "param.h"

/* The common head: every *_ops struct begins with these fields, in this order. */
#define PLUGIN_HEAD                                                                                            \
    int version;                  /* the kind's *_OPS_VERSION */                                               \
    const char *name;             /* as the scenario spells it */                                              \
    const char *help;             /* one line for `gauntlet list` */                                           \
    const struct param *params;   /* inline parameters, offsets into the spec's params blob; may be NULL */    \
    size_t params_size            /* bytes the params fill (<= SC_PARAM_BYTES) */

/* Where in an iteration a fault or a worker-side detector acts. */
enum inject_point {
    IP_ITER_START = 0,     /* before the compute phase */
    IP_AFTER_GEMM,         /* the GEMM chain's output is there */
    IP_BEFORE_ALLREDUCE,   /* the gradients are there */
    IP_AFTER_ALLREDUCE,    /* the reduced buffer is there, before the optimizer step */
    IP_AFTER_STEP,         /* the weights are updated */
    IP_COUNT
};

struct plugin_ops {
    PLUGIN_HEAD;
};

/* A kind of plug-in: its table (NULL-terminated, viewed through the common head) and its version. */
struct plugin_kind {
    const char *what;                          /* "mitigation", "fault", ... for messages */
    const struct plugin_ops *const *table;
    int version;
};

extern const struct plugin_kind plugin_mitigations, plugin_faults, plugin_detectors, plugin_recoveries;

/* Returns the index of name in kind's table, or -1. */
int plugin_find(const struct plugin_kind *k, const char *name);
/* Returns the number of entries. */
int plugin_count(const struct plugin_kind *k);
/* Checks kind's table: version, names present and unique, params fit; 0, or -1 with why. */
int plugin_table_check(const struct plugin_kind *k, char *why, size_t n);
/* Writes "a, b, c": the names of kind's table. */
void plugin_names(const struct plugin_kind *k, char *out, size_t n);

#endif
