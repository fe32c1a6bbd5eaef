/* harness/scenario/scenario_int.h: the parser's state and helpers, shared by the files of the scenario folder. */
#ifndef GAUNTLET_SCENARIO_INT_H
#define GAUNTLET_SCENARIO_INT_H

#include <yaml.h>

#include "plugin.h"
#include "scenario.h"

/* An alias used in the document: where it stands (its key, its place) and the span of the node it names. */
struct sc_alias {
    char *path, *name;
    yaml_mark_t at, from, to;
};

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
    struct sc_alias *aliases;      /* the aliases used (sc_compose): an error inside one's node names its place */
    int n_aliases;
    yaml_mark_t budget;            /* where search_budget was given (budget_given) */
    int budget_given;
};

enum { WL_GEMM = 1, WL_ALLREDUCE = 2, WL_PHASES = 4, WL_SHAPE = 8, WL_REPLAY = 16, WL_SHAPES = 32 };

/* The node of dotted key path (a.b.c) under map, or map itself when a part is not there (scenario_checks.c). */
yaml_node_t *sc_key_node(struct sc_ctx *c, yaml_node_t *map, const char *path);
/* Refuses what one node cannot hold: an iteration reporting more events than a rank's ring takes, a shared state
 * larger than the machine's memory (scenario_limits.c). 0, or EXIT_INPUT naming the key. */
int sc_limit_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc);
/* Formats "file:line:col: key: message" into c->err and returns EXIT_INPUT. */
__attribute__((format(printf, 4, 5))) int sc_error_at(struct sc_ctx *c, yaml_mark_t mark, const char *key,
                                                      const char *fmt, ...);
__attribute__((format(printf, 4, 5))) int sc_error(struct sc_ctx *c, const yaml_node_t *node, const char *key,
                                                   const char *fmt, ...);
/* Checks that the scalar node is written as p's type may be: a quoted or !!str scalar is a string, never a number,
 * bool, size, duration or power; !!float is no integer (scenario_yaml.c). 0, or EXIT_INPUT naming key; a node that
 * is not a scalar passes (its caller says what it expected). */
int sc_typed(struct sc_ctx *c, const yaml_node_t *node, const struct param *p, const char *key);
/* Checks that a scalar naming something (a plug-in, a fault's kind, a shape, `auto`, `random`) is plain, quoted or
 * !!str: any other tag is refused as for a value (until 2026-11-30 taken and ignored). 0, or EXIT_INPUT naming key
 * and saying what was expected; a node that is not a scalar passes. */
int sc_named(struct sc_ctx *c, const yaml_node_t *node, const char *key, const char *what);
/* The scalar text of node, or NULL when it is not a scalar. */
const char *sc_scalar(const yaml_node_t *node);
/* Walks one YAML mapping against table into base (prefix names it in messages). */
int sc_mapping(struct sc_ctx *c, const struct param *table, yaml_node_t *map, void *base, const char *prefix,
               struct scenario *sc);

/* The place an error about node at key names: the alias's where node is reached through one (sc_alias_at), else
 * node's own. */
yaml_mark_t sc_place(const struct sc_ctx *c, const yaml_node_t *node, const char *key);
/* Reports the first required key of table missing from the keys seen (seen[i]: table[i] given) at node; 0 when
 * none is. */
int sc_missing(struct sc_ctx *c, const struct param *table, const unsigned char *seen, const yaml_node_t *node,
               const char *prefix);

/* scenario_plugins.c: the plug-in lists. Each returns 0, or EXIT_INPUT naming key. */
/* Parses one plug-in entry of kind: "name" or {name: {param: value}}, into spec. */
int sc_plugin(struct sc_ctx *c, const struct plugin_kind *kind, yaml_node_t *item, struct plugin_spec *spec,
              const char *key, struct scenario *sc);
/* Expands `mitigations: auto` into the coarse search's candidates. */
int sc_auto(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc);
/* Parses a list of plug-ins of kind (a single entry is accepted too) into specs; *count gets their number. */
int sc_plugins(struct sc_ctx *c, const struct plugin_kind *kind, yaml_node_t *node, struct plugin_spec *specs, int max,
               int *count, const char *key, int allow_empty, struct scenario *sc);

/* scenario_phases.c: workload.phases, the presets, the workload's forms. */
const struct param *step_params(int kind);   /* a step kind's keys */
void sc_workload_key(struct sc_ctx *c, const char *name, const yaml_node_t *key);
int sc_phases(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc);
int sc_shapes(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc);
int sc_workload_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc);
/* Appends one step; -1 when the list is full. */
int sc_step_add(struct scenario *sc, const struct step *st);

/* scenario_shapes.c: the presets. */
/* Appends the steps of the preset named name to sc's; -1 when there is none of that name, -2 when they do not fit. */
int shape_expand(const char *name, struct scenario *sc);
/* Every mitigation once on each shape, shape after shape: "filler floor=80% [fsdp]". 0, or EXIT_INPUT. */
int sc_runs_per_shape(struct sc_ctx *c, struct scenario *sc);

/* scenario_checks.c: the rules that span keys. 0, or EXIT_INPUT. */
int sc_cross_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc);
/* Labels the entries of one mitigation listed more than once (a sweep's included) with the parameters they differ
 * in ("filler floor=10%"), then numbers those still alike ("filler floor=10% #2"), so that every run has its own
 * label; the labels depend on the list's names and parameters alone, so the scenario written back labels alike. */
void sc_label_repeats(struct scenario *sc);

#endif
