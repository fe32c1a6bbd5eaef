/* harness/scenario/scenario_int.h: the parser's state and helpers, shared by the files of the scenario folder. */
#ifndef GAUNTLET_SCENARIO_INT_H
#define GAUNTLET_SCENARIO_INT_H

#include <yaml.h>

#include "scenario.h"

struct sc_ctx {
    const char *file;
    char *err;
    size_t errlen;
    yaml_document_t *doc;
    int sweeping;                  /* parsing a mitigation's parameters: a list of values is a sweep */
    const struct param *sweep;     /* the swept parameter found, and its list */
    yaml_node_t *sweep_node;
    /* where each fault's at, rank and node values were given, for the checks that need the whole scenario */
    yaml_mark_t fault_at[SC_MAX_FAULTS], fault_rank[SC_MAX_FAULTS], fault_node[SC_MAX_FAULTS];
    /* where the workload's forms were given (line 0: not given): gemm, allreduce, phases, shape, replay */
    yaml_mark_t wl_gemm, wl_allreduce, wl_phases, wl_shape, wl_shapes, wl_replay, wl;
    int wl_given;                  /* bit i: the form i above was given */
    struct scenario *sc;           /* the scenario being filled (its keys' places: keypos) */
};

enum { WL_GEMM = 1, WL_ALLREDUCE = 2, WL_PHASES = 4, WL_SHAPE = 8, WL_REPLAY = 16, WL_SHAPES = 32 };

/* Formats "file:line:col: key: message" into c->err and returns EXIT_INPUT. */
__attribute__((format(printf, 4, 5))) int sc_error_at(struct sc_ctx *c, yaml_mark_t mark, const char *key,
                                                      const char *fmt, ...);
__attribute__((format(printf, 4, 5))) int sc_error(struct sc_ctx *c, const yaml_node_t *node, const char *key,
                                                   const char *fmt, ...);
/* Checks that the scalar node is written as p's type may be: a quoted or !!str scalar is a string, never a number,
 * bool, size, duration or power; !!float is no integer (scenario_yaml.c). 0, or EXIT_INPUT naming key; a node that
 * is not a scalar passes (its caller says what it expected). */
int sc_typed(struct sc_ctx *c, const yaml_node_t *node, const struct param *p, const char *key);
/* The scalar text of node, or NULL when it is not a scalar. */
const char *sc_scalar(const yaml_node_t *node);
/* Walks one YAML mapping against table into base (prefix names it in messages). */
int sc_mapping(struct sc_ctx *c, const struct param *table, yaml_node_t *map, void *base, const char *prefix,
               struct scenario *sc);

/* scenario_phases.c: workload.phases, the presets, the workload's forms. */
const struct param *step_params(int kind);   /* a step kind's keys */
void sc_workload_key(struct sc_ctx *c, const char *name, const yaml_node_t *key);
int sc_phases(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc);
int sc_shapes(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc);
int sc_workload_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc);

/* scenario_checks.c: the rules that span keys. 0, or EXIT_INPUT. */
int sc_cross_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc);
/* Labels the entries of one mitigation listed more than once (not a sweep's) with the parameters they differ in
 * ("filler floor=10%"), so that their runs are told apart. */
void sc_label_repeats(struct scenario *sc);

#endif
