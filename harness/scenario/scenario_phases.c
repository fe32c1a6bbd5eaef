/* harness/scenario/scenario_phases.c: the workload's forms — the simple iteration (gemm, allreduce), a list of
 * steps (workload.phases), a preset (workload.shape; scenario_shapes.c) expanded into steps, a power trace to
 * replay — their keys, their checks, and what the rest of the harness reads from them (workload.gemm and
 * workload.allreduce always hold the iteration's first GEMM and its gradient exchange, so the real data path and the
 * checks work on every form). */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "scenario_int.h"
#include "scenario_yaml.h"
#include "util.h"

#define ST(field) offsetof(struct step, field)
#define TIB (1099511627776.0)

static const struct param step_gemm_params[] = {
    { "m", PT_INT, ST(m), .def = "4096", .min = 1, .max = 1 << 20, .help = "rows of A and C (the tokens)" },
    { "n", PT_INT, ST(n), .def = "4096", .min = 1, .max = 1 << 20, .help = "columns of B and C" },
    { "k", PT_INT, ST(k), .def = "4096", .min = 1, .max = 1 << 20, .help = "inner dimension" },
    { "dtype", PT_ENUM, ST(dtype), .def = "bf16", .choices = DTYPE_CHOICES, .help = "GEMM input type (fp8 is e4m3)" },
    { "count", PT_INT, ST(count), .def = "1", .min = 1, .max = 100000, .help = "GEMMs of this step, back to back" },
    { 0 },
};
static const struct param step_comm_params[] = {
    { "bytes", PT_SIZE, ST(bytes), .min = 4, .max = 64 * TIB / 1024, .unit = "bytes", .flags = PF_REQUIRED,
      .help = "the message: the whole buffer, as nccl-tests sizes it (all_gather: the gathered result)" },
    { "overlap", PT_BOOL, ST(overlap), .def = "false",
      .help = "run beside the gemm steps that follow; the next step of another kind, and the iteration's end, "
              "wait for it" },
    { "ranks", PT_INT, ST(ranks), .def = "0", .min = 0, .max = 10000000,
      .help = "ranks it spans in the sim model's time (0: the run's)" },
    { 0 },
};
static const struct param step_optimizer_params[] = {
    { "bytes", PT_SIZE, ST(bytes), .min = 4, .max = 64 * TIB / 1024, .unit = "bytes", .flags = PF_REQUIRED,
      .help = "fp32 parameter bytes the update covers (AdamW moves 7x this: p, g, m, v read; p, m, v written)" },
    { 0 },
};
static const struct param step_idle_params[] = {
    { "duration", PT_DURATION, ST(duration_s), .min = 0, .max = 3600, .flags = PF_REQUIRED,
      .help = "the GPU has nothing to do (data loading, host work)" },
    { 0 },
};

static const struct {
    const char *name;
    enum step_class cls;
    const struct param *params;
} step_kinds[ST_COUNT] = {
    [ST_GEMM] = { "gemm", SCL_COMPUTE, step_gemm_params },
    [ST_ALLREDUCE] = { "allreduce", SCL_COMM, step_comm_params },
    [ST_REDUCE_SCATTER] = { "reduce_scatter", SCL_COMM, step_comm_params },
    [ST_ALL_GATHER] = { "all_gather", SCL_COMM, step_comm_params },
    [ST_ALL_TO_ALL] = { "all_to_all", SCL_COMM, step_comm_params },
    [ST_SEND_RECV] = { "send_recv", SCL_COMM, step_comm_params },
    [ST_OPTIMIZER] = { "optimizer", SCL_MEMORY, step_optimizer_params },
    [ST_IDLE] = { "idle", SCL_IDLE, step_idle_params },
};

const char *step_kind_name(int kind) { return kind >= 0 && kind < ST_COUNT ? step_kinds[kind].name : "?"; }
enum step_class step_class_of(int kind) { return kind >= 0 && kind < ST_COUNT ? step_kinds[kind].cls : SCL_IDLE; }
const struct param *step_params(int kind) { return kind >= 0 && kind < ST_COUNT ? step_kinds[kind].params : NULL; }

/* Writes the step kinds' names, comma-separated. */
static void step_names(char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int k = 0; k < ST_COUNT && used < n; k++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", k ? ", " : "", step_kinds[k].name);
}

void sc_workload_key(struct sc_ctx *c, const char *name, const yaml_node_t *key)
{
    static const struct { const char *name; int bit; size_t off; } forms[] = {
        { "gemm", WL_GEMM, offsetof(struct sc_ctx, wl_gemm) },
        { "allreduce", WL_ALLREDUCE, offsetof(struct sc_ctx, wl_allreduce) },
        { "phases", WL_PHASES, offsetof(struct sc_ctx, wl_phases) },
        { "shape", WL_SHAPE, offsetof(struct sc_ctx, wl_shape) },
        { "replay", WL_REPLAY, offsetof(struct sc_ctx, wl_replay) },
        { "shapes", WL_SHAPES, offsetof(struct sc_ctx, wl_shapes) },
    };
    for (size_t i = 0; i < ARRAY_LEN(forms); i++)
        if (strcmp(name, forms[i].name) == 0) {
            c->wl_given |= forms[i].bit;
            *(yaml_mark_t *)((char *)c + forms[i].off) = key->start_mark;
        }
}

int sc_step_add(struct scenario *sc, const struct step *st)
{
    if (sc->workload.n_steps >= SC_MAX_STEPS)
        return -1;
    sc->workload.steps[sc->workload.n_steps++] = *st;
    return 0;
}

static int sc_steps(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc, const char *key, int depth);

/* Parses {repeat: N, steps: [...]}: the steps once, then copied N - 1 more times. */
static int sc_repeat(struct sc_ctx *c, yaml_node_t *item, struct scenario *sc, const char *key, int depth)
{
    yaml_node_t *times = NULL, *steps = NULL;
    char sub[160], why[256];
    for (yaml_node_pair_t *pair = item->data.mapping.pairs.start; pair < item->data.mapping.pairs.top; pair++) {
        yaml_node_t *kn = yaml_document_get_node(c->doc, pair->key), *vn = yaml_document_get_node(c->doc, pair->value);
        const char *name = sc_scalar(kn);
        if (name && strcmp(name, "repeat") == 0 && !times)
            times = vn;
        else if (name && strcmp(name, "steps") == 0 && !steps)
            steps = vn;
        else
            return sc_error(c, kn, key, "a repeat group takes the keys repeat and steps, got '%s'", name ? name : "?");
    }
    snprintf(sub, sizeof sub, "%s.repeat", key);
    static const struct param rep = { "repeat", PT_INT, 0, .min = 1, .max = SC_MAX_STEPS, .help = "times" };
    int64_t n = 0;
    int rc = sc_typed(c, times, &rep, sub);
    if (rc || !sc_scalar(times) || param_parse(&rep, sc_scalar(times), &n, why, sizeof why) != 0)
        return rc ? rc : sc_error(c, times, sub, "%s", sc_scalar(times) ? why : "expected an integer in [1, 512]");
    if (!steps)
        return sc_error(c, item, key, "a repeat group needs steps: [a list of steps]");
    int first = sc->workload.n_steps;
    snprintf(sub, sizeof sub, "%s.steps", key);
    if ((rc = sc_steps(c, steps, sc, sub, depth + 1)) != 0)
        return rc;
    int len = sc->workload.n_steps - first;
    for (int64_t r = 1; r < n; r++)
        for (int i = 0; i < len; i++)
            if (sc_step_add(sc, &sc->workload.steps[first + i]) != 0)
                return sc_error(c, item, key, "repeat %" PRId64 " x %d steps makes the iteration longer than %d steps",
                                n, len, SC_MAX_STEPS);
    return 0;
}

/* Parses one item: {KIND: {params}} or a repeat group. */
static int sc_step(struct sc_ctx *c, yaml_node_t *item, struct scenario *sc, const char *key, int depth)
{
    char known[256], sub[160];
    if (item->type != YAML_MAPPING_NODE || item->data.mapping.pairs.top == item->data.mapping.pairs.start)
        return sc_error(c, item, key, "expected a step such as {gemm: {m: 4096, n: 4096, k: 4096}} or "
                                      "{repeat: 4, steps: [...]}");
    for (yaml_node_pair_t *pair = item->data.mapping.pairs.start; pair < item->data.mapping.pairs.top; pair++) {
        const char *name = sc_scalar(yaml_document_get_node(c->doc, pair->key));
        if (name && strcmp(name, "repeat") == 0)
            return sc_repeat(c, item, sc, key, depth);
    }
    yaml_node_pair_t *pair = item->data.mapping.pairs.start;
    yaml_node_t *kn = yaml_document_get_node(c->doc, pair->key), *vn = yaml_document_get_node(c->doc, pair->value);
    const char *name = sc_scalar(kn);
    int kind = -1;
    for (int k = 0; name && k < ST_COUNT; k++)
        if (strcmp(name, step_kinds[k].name) == 0)
            kind = k;
    step_names(known, sizeof known);
    if (kind < 0)
        return sc_error(c, kn, key, "unknown step '%s' (expected one of: %s, or repeat)", name ? name : "?", known);
    if (item->data.mapping.pairs.top - item->data.mapping.pairs.start != 1)
        return sc_error(c, item, key, "one step per list item: {%s: {...}} (its parameters go inside)", name);
    struct step st = { .kind = kind, .line = (int32_t)kn->start_mark.line + 1 };
    if (param_defaults(step_kinds[kind].params, &st) != 0)
        return sc_error(c, kn, key, "internal: defaults of step '%s' do not parse", name);
    snprintf(sub, sizeof sub, "%s.%s", key, name);
    if (sc_empty(vn)) {   /* `- gemm:` with nothing: every parameter at its default, when none is required */
        for (const struct param *p = step_kinds[kind].params; p->name; p++)
            if (p->flags & PF_REQUIRED)
                return sc_error(c, vn, sub, "missing required key '%s' (%s)", p->name, p->help);
    } else {
        int rc = sc_mapping(c, step_kinds[kind].params, vn, &st, sub, sc);
        if (rc)
            return rc;
    }
    if (sc_step_add(sc, &st) != 0)
        return sc_error(c, item, key, "the iteration has more than %d steps", SC_MAX_STEPS);
    return 0;
}

static int sc_steps(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc, const char *key, int depth)
{
    if (node->type != YAML_SEQUENCE_NODE || node->data.sequence.items.top == node->data.sequence.items.start)
        return sc_error(c, node, key, "expected a list of steps");
    if (depth > 8)
        return sc_error(c, node, key, "repeat groups nested deeper than 8");
    int i = 0;
    for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++, i++) {
        char sub[160];
        snprintf(sub, sizeof sub, "%s[%d]", key, i);
        int rc = sc_step(c, yaml_document_get_node(c->doc, *it), sc, sub, depth);
        if (rc)
            return rc;
    }
    return 0;
}

int sc_phases(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc)
{
    sc->workload.n_steps = 0;
    return sc_steps(c, node, sc, "workload.phases", 0);
}

/* ---- the workload's forms, checked together ---- */

/* Finds shape k's first GEMM and gradient exchange (errors at where the shape was given); fills workload.gemm and
 * workload.allreduce from shape 0's (the real data path and the checks read them). */
static int sc_primary(struct sc_ctx *c, struct scenario *sc, int k)
{
    int gemm = -1, grad = -1, first = sc->workload.shapes[k].first;
    for (int i = first; i < first + sc->workload.shapes[k].n; i++) {
        const struct step *st = &sc->workload.steps[i];
        if (st->kind == ST_GEMM && gemm < 0)
            gemm = i;
        if ((st->kind == ST_ALLREDUCE || st->kind == ST_REDUCE_SCATTER) && grad < 0)
            grad = i;
    }
    if (gemm < 0)
        return sc_error_at(c, c->wl_phases, "workload.phases", "needs at least one gemm step (the iteration's compute)");
    if (grad < 0)
        return sc_error_at(c, c->wl_phases, "workload.phases",
                           "needs an allreduce or reduce_scatter step (the gradient exchange every data-parallel "
                           "iteration has; the real data and the corruption checks ride on it)");
    sc->workload.shapes[k].grad = grad - first;
    if (k > 0)
        return 0;
    const struct step *g = &sc->workload.steps[gemm];
    sc->workload.gemm.m = g->m;
    sc->workload.gemm.n = g->n;
    sc->workload.gemm.k = g->k;
    sc->workload.gemm.count = g->count;
    sc->workload.gemm.dtype = g->dtype;
    sc->workload.allreduce.bytes = sc->workload.steps[grad].bytes;
    sc->workload.allreduce.emulate_busbw_gbs = 0;
    sc->workload.allreduce.emulate_ranks = sc->workload.steps[grad].ranks;
    sc->workload.grad_step = grad;
    return 0;
}

/* Checks the steps shape k expanded into against their kinds' keys, as the phases written back for the run are read
 * again (until 2026-11-30 the pipeline's bubble, sized by sim.tflops, could pass an idle step's hour and the run's
 * scenario.yaml did not load). 0, or EXIT_INPUT: the bubble at sim.tflops (where given, else at key), any other
 * step at key. */
static int sc_preset_steps(struct sc_ctx *c, struct scenario *sc, int k, yaml_mark_t at, const char *key)
{
    char text[64], why[320];
    const __typeof__(sc->workload.shapes[0]) *r = &sc->workload.shapes[k];
    for (int i = r->first; i < r->first + r->n; i++) {
        const struct step *st = &sc->workload.steps[i];
        struct step back;
        for (const struct param *p = step_params(st->kind); p->name; p++) {
            param_format(p, st, text, sizeof text);
            if (param_parse(p, text, &back, why, sizeof why) == 0)
                continue;
            int line, col, given = scenario_key_at(sc, "sim.tflops", &line, &col);
            if (st->kind != ST_IDLE)
                return sc_error_at(c, at, key, "the %s step %d of the preset %s: %s: %s", step_kind_name(st->kind),
                                   i - r->first, r->name, p->name, why);
            yaml_mark_t m = at;
            if (given)   /* its place, through an alias already */
                m = (yaml_mark_t){ .index = (size_t)-1, .line = (size_t)line - 1, .column = (size_t)col - 1 };
            return sc_error_at(c, m, "sim.tflops", "the idle step of the preset takes %.3g s (the %s bubble, sized by "
                               "sim.tflops), more than an idle step may (%g s): raise sim.tflops (now %g%s)",
                               st->duration_s, r->name, p->max, sc->sim.tflops, given ? "" : ", its default");
        }
    }
    return 0;
}

/* Expands every shape of workload.shapes (or the one of workload.shape) into the steps, one range each. */
static int sc_expand_shapes(struct sc_ctx *c, struct scenario *sc, yaml_mark_t at, const char *key)
{
    char known[256];
    shape_names(known, sizeof known);
    sc->workload.n_steps = 0;
    for (int k = 0; k < sc->workload.n_shapes; k++) {
        const char *name = sc->workload.shapes[k].name;
        sc->workload.shapes[k].first = sc->workload.n_steps;
        int rc = shape_expand(name, sc);
        if (rc == -1)
            return sc_error_at(c, at, key, "unknown shape '%s' (expected one of: %s)", name, known);
        if (rc == -2)
            return sc_error_at(c, at, key, "the shapes' steps together are more than %d", SC_MAX_STEPS);
        sc->workload.shapes[k].n = sc->workload.n_steps - sc->workload.shapes[k].first;
        if ((rc = sc_preset_steps(c, sc, k, at, key)) != 0 || (rc = sc_primary(c, sc, k)) != 0)
            return rc;
    }
    if (sc->workload.n_shapes == 1)
        str_copy(sc->workload.expanded_from, sizeof sc->workload.expanded_from, sc->workload.shapes[0].name);
    memset(sc->workload.shape, 0, sizeof sc->workload.shape);   /* whole: the scenario written back reads alike */
    return 0;
}

/* Reads the trace to replay into the scenario; the real data path runs a fixed GEMM and all-reduce beside it. */
static int sc_replay_check(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc)
{
    char why[512];
    int ng;
    if (analyze_series(sc->workload.replay.trace, (long)sc->workload.replay.gpu, sc->workload.replay.w, SC_MAX_TRACE,
                       &sc->workload.replay.n, &sc->workload.replay.dt_s, &ng, why, sizeof why) != 0) {
        if (ng > 0 && sc->workload.replay.gpu >= ng)   /* the GPU is not in the trace: the gpu key's fault, its line */
            return sc_error(c, sc_key_node(c, root, "workload.replay.gpu"), "workload.replay.gpu", "%s: %s",
                            sc->workload.replay.trace, why);
        return sc_error_at(c, c->wl_replay, "workload.replay.trace", "%s: %s", sc->workload.replay.trace, why);
    }
    /* the path as an absolute one: the results' scenario.yaml reproduces the run from any folder (a relative one
     * named a file relative to where the run was started) */
    char *abs = realpath(sc->workload.replay.trace, NULL);
    if (abs && strlen(abs) < sizeof sc->workload.replay.trace)
        str_copy(sc->workload.replay.trace, sizeof sc->workload.replay.trace, abs);
    free(abs);
    sc->workload.gemm.m = sc->workload.gemm.n = sc->workload.gemm.k = 4096;
    sc->workload.gemm.count = 1;
    sc->workload.gemm.dtype = DT_BF16;
    sc->workload.allreduce.bytes = 64u << 20;
    sc->workload.n_steps = 0;
    return 0;
}

int sc_workload_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc)
{
    int given = c->wl_given;
    const int simple = WL_GEMM | WL_ALLREDUCE;
    static const struct { int bits; const char *name; } forms[] = {
        { WL_GEMM | WL_ALLREDUCE, "gemm/allreduce" }, { WL_PHASES, "phases" }, { WL_SHAPE, "shape" },
        { WL_SHAPES, "shapes" }, { WL_REPLAY, "replay" },
    };
    int first = -1, second = -1;
    for (int i = 0; i < 5; i++)
        if (given & forms[i].bits)
            first < 0 ? (first = i) : second < 0 ? (second = i) : 0;
    if (first < 0)
        return sc_error_at(c, c->wl, "workload", "expected gemm and allreduce (the simple iteration), or one of "
                                                 "phases, shape, shapes, replay");
    if (second >= 0) {
        yaml_mark_t marks[] = { c->wl_gemm, c->wl_phases, c->wl_shape, c->wl_shapes, c->wl_replay };
        char key[48];
        snprintf(key, sizeof key, "workload.%s", second ? forms[second].name : "gemm");
        return sc_error_at(c, marks[second], key, "give one form of the iteration: gemm and allreduce, phases, shape, "
                                                  "shapes or replay (%s is given too)", forms[first].name);
    }
    if (given & simple) {
        if (!(given & WL_GEMM))
            return sc_error_at(c, c->wl, "workload.gemm", "missing required key (the compute phase: {m, n, k})");
        if (!(given & WL_ALLREDUCE))
            return sc_error_at(c, c->wl, "workload.allreduce", "missing required key (the communication phase: {bytes})");
        sc->workload.n_steps = 0;
        sc->workload.n_shapes = 0;
        return 0;
    }
    if (given & WL_REPLAY) {
        sc->workload.n_shapes = 0;
        return sc_replay_check(c, root, sc);
    }
    if (given & WL_SHAPE) {
        sc->workload.n_shapes = 1;
        str_copy(sc->workload.shapes[0].name, sizeof sc->workload.shapes[0].name, sc->workload.shape);
        c->wl_phases = c->wl_shape;
        return sc_expand_shapes(c, sc, c->wl_shape, "workload.shape");
    }
    if (given & WL_SHAPES) {
        c->wl_phases = c->wl_shapes;
        int rc = sc_expand_shapes(c, sc, c->wl_shapes, "workload.shapes");
        return rc ? rc : sc_runs_per_shape(c, sc);
    }
    sc->workload.n_shapes = 1;   /* phases: one range, named after the preset they were expanded from, if any */
    str_copy(sc->workload.shapes[0].name, sizeof sc->workload.shapes[0].name, sc->workload.expanded_from);
    sc->workload.shapes[0].first = 0;
    sc->workload.shapes[0].n = sc->workload.n_steps;
    return sc_primary(c, sc, 0);
}
