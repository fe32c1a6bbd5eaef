/* harness/scenario/scenario_phases.c: the workload's forms — the simple iteration (gemm, allreduce), a list of
 * steps (workload.phases), a preset (workload.shape) expanded into steps, a power trace to replay — their keys,
 * their checks, and what the rest of the harness reads from them (workload.gemm and workload.allreduce always hold
 * the iteration's first GEMM and its gradient exchange, so the real data path and the checks work on every form). */
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

/* Appends one step; -1 when the list is full. */
static int sc_step_add(struct scenario *sc, const struct step *st)
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

/* ---- presets: each sized from a public model configuration (docs/scenarios.md "Shapes" shows the arithmetic) ---- */

struct shape {
    const char *name, *help;
    const char *model;            /* the public configuration it is sized from */
    int64_t hidden, ffn, layers, seq, micro_batch;
    double attn;                  /* attention parameters per layer, in hidden^2 (4: multi-head; 2.5: 32 q / 8 kv heads) */
    int ffn_mats;                 /* 3: SwiGLU (gate, up, down); 2: GELU */
    int64_t sim_layers;           /* the layers an iteration runs (of `layers`, or of a stage's): see below */
    int experts, topk, stages, micro_batches;
    void (*build)(const struct shape *sh, struct scenario *sc);
};

/* A layer's parameters (dense part: attention + one FFN). */
static double shape_layer_params(const struct shape *sh)
{
    return sh->attn * (double)sh->hidden * (double)sh->hidden + sh->ffn_mats * (double)sh->hidden * (double)sh->ffn;
}

static void add_gemm(struct scenario *sc, int64_t m, int64_t n, int64_t k, int64_t count)
{
    struct step st = { .kind = ST_GEMM, .m = m, .n = n, .k = k, .count = count, .dtype = DT_BF16 };
    sc_step_add(sc, &st);
}
static void add_comm(struct scenario *sc, int kind, double bytes, int overlap)
{
    struct step st = { .kind = kind, .bytes = (uint64_t)bytes, .overlap = overlap };
    sc_step_add(sc, &st);
}
static void add_other(struct scenario *sc, int kind, double bytes, double duration_s)
{
    struct step st = { .kind = kind, .bytes = (uint64_t)bytes, .duration_s = duration_s };
    sc_step_add(sc, &st);
}

/* Data parallel (DDP): forward, then backward with each layer's gradients (one bucket per layer) all-reduced
 * beside the next layer's backward; the last bucket is waited for; AdamW on the full model. A layer's GEMMs run
 * as one GEMM of the same FLOPs: m = tokens, k = hidden, n = the layer's parameters / hidden (backward: 2x). */
static void build_dp(const struct shape *sh, struct scenario *sc)
{
    int64_t t = sh->seq * sh->micro_batch, n = (int64_t)(shape_layer_params(sh) / (double)sh->hidden);
    for (int64_t l = 0; l < sh->sim_layers; l++)
        add_gemm(sc, t, n, sh->hidden, 1);
    for (int64_t l = 0; l < sh->sim_layers; l++) {
        add_gemm(sc, t, n, sh->hidden, 2);
        add_comm(sc, ST_ALLREDUCE, 2 * shape_layer_params(sh), 1);   /* bf16 gradients of the layer */
    }
    add_other(sc, ST_OPTIMIZER, 4 * shape_layer_params(sh) * (double)sh->sim_layers, 0);
}

/* FSDP / ZeRO-3 over the run's ranks: each layer's weights all-gathered before it is used (the next layer's
 * gather beside this layer's compute), gradients reduce-scattered after each backward; AdamW on this rank's
 * shard. */
static void build_fsdp(const struct shape *sh, struct scenario *sc)
{
    int64_t t = sh->seq * sh->micro_batch, n = (int64_t)(shape_layer_params(sh) / (double)sh->hidden);
    double layer = 2 * shape_layer_params(sh);   /* bf16 */
    int64_t world = sc->ranks * sc->nodes > 0 ? sc->ranks * sc->nodes : 1;
    for (int pass = 0; pass < 2; pass++) {
        add_comm(sc, ST_ALL_GATHER, layer, 0);
        for (int64_t l = 0; l < sh->sim_layers; l++) {
            if (l + 1 < sh->sim_layers)
                add_comm(sc, ST_ALL_GATHER, layer, 1);
            add_gemm(sc, t, n, sh->hidden, pass ? 2 : 1);
            if (pass)
                add_comm(sc, ST_REDUCE_SCATTER, layer, 1);
        }
    }
    add_other(sc, ST_OPTIMIZER, 4 * shape_layer_params(sh) * (double)sh->sim_layers / (double)world, 0);
}

/* 1F1B pipeline, the first stage: warm-up forwards, steady one-forward-one-backward, cool-down backwards, each
 * sending (or receiving) a micro-batch's activations; the bubble ((stages - 1) x a forward and a backward) half
 * before and half after; then the stage's data-parallel gradient all-reduce and AdamW. The bubble is an idle
 * step sized by the model's GEMM rate (sim.tflops). */
static void build_pipeline(const struct shape *sh, struct scenario *sc)
{
    int64_t t = sh->seq * sh->micro_batch, n = (int64_t)(shape_layer_params(sh) / (double)sh->hidden);
    double act = 2.0 * (double)t * (double)sh->hidden;   /* bf16 activations of one micro-batch */
    double fwd_s = 2.0 * (double)t * (double)n * (double)sh->hidden * (double)sh->sim_layers / (sc->sim.tflops * 1e12);
    double bubble = (double)(sh->stages - 1) * 3 * fwd_s;
    int warm = sh->stages - 1, steady = sh->micro_batches - warm;
    add_other(sc, ST_IDLE, 0, bubble / 2);
    for (int i = 0; i < warm; i++) {
        add_gemm(sc, t, n, sh->hidden, sh->sim_layers);
        add_comm(sc, ST_SEND_RECV, act, 0);
    }
    for (int i = 0; i < steady; i++) {
        add_gemm(sc, t, n, sh->hidden, sh->sim_layers);
        add_comm(sc, ST_SEND_RECV, act, 0);
        add_comm(sc, ST_SEND_RECV, act, 0);
        add_gemm(sc, t, n, sh->hidden, 2 * sh->sim_layers);
    }
    for (int i = 0; i < warm; i++) {
        add_comm(sc, ST_SEND_RECV, act, 0);
        add_gemm(sc, t, n, sh->hidden, 2 * sh->sim_layers);
    }
    add_other(sc, ST_IDLE, 0, bubble / 2);
    add_comm(sc, ST_ALLREDUCE, 2 * shape_layer_params(sh) * (double)sh->sim_layers, 0);
    add_other(sc, ST_OPTIMIZER, 4 * shape_layer_params(sh) * (double)sh->sim_layers, 0);
}

/* Mixture of experts, expert-parallel over `experts` ranks (one expert each): per layer attention, an
 * all-to-all that dispatches each token to its top-k experts, the expert FFN over the tokens routed here
 * (tokens x top-k, balanced), the all-to-all that combines; backward the same reversed, the dense (attention)
 * gradients all-reduced beside it; AdamW on this rank's parameters (attention + its expert). */
static void build_moe(const struct shape *sh, struct scenario *sc)
{
    int64_t t = sh->seq * sh->micro_batch, h = sh->hidden;
    int64_t n_attn = (int64_t)(sh->attn * (double)h), n_exp = sh->ffn_mats * sh->ffn, routed = t * sh->topk;
    double a2a = 2.0 * (double)routed * (double)h;   /* bf16 hidden states of the routed tokens */
    double dense = sh->attn * (double)h * (double)h;
    for (int64_t l = 0; l < sh->sim_layers; l++) {
        add_gemm(sc, t, n_attn, h, 1);
        add_comm(sc, ST_ALL_TO_ALL, a2a, 0);
        add_gemm(sc, routed, n_exp, h, 1);
        add_comm(sc, ST_ALL_TO_ALL, a2a, 0);
    }
    for (int64_t l = 0; l < sh->sim_layers; l++) {
        add_comm(sc, ST_ALL_TO_ALL, a2a, 0);
        add_gemm(sc, routed, n_exp, h, 2);
        add_comm(sc, ST_ALL_TO_ALL, a2a, 0);
        add_gemm(sc, t, n_attn, h, 2);
        add_comm(sc, ST_ALLREDUCE, 2 * dense, 1);
    }
    add_other(sc, ST_OPTIMIZER, 4 * (dense + (double)n_exp * (double)h) * (double)sh->sim_layers, 0);
}

static const struct shape presets[] = {
    { "dp-overlap", "data parallel, bucketed all-reduce beside the backward pass", "Llama-2-7B", 4096, 11008, 32, 4096,
      1, 4, 3, 4, 0, 0, 0, 0, build_dp },
    { "fsdp", "FSDP / ZeRO-3: weights gathered per layer, gradients reduce-scattered", "Llama-2-13B", 5120, 13824, 40,
      4096, 1, 4, 3, 4, 0, 0, 0, 0, build_fsdp },
    { "pipeline-1f1b", "1F1B pipeline of 4 stages, 8 micro-batches (the first stage)", "GPT-3 175B", 12288, 49152, 96,
      2048, 1, 4, 2, 1, 0, 0, 4, 8, build_pipeline },
    { "moe", "mixture of experts: 8 experts, top-2, expert parallel, all-to-all per layer", "Mixtral-8x7B", 4096,
      14336, 32, 4096, 1, 2.5, 3, 4, 8, 2, 0, 0, build_moe },
};

void shape_names(char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < ARRAY_LEN(presets) && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", i ? ", " : "", presets[i].name);
}

void shape_print(FILE *f)
{
    for (size_t i = 0; i < ARRAY_LEN(presets); i++) {
        const struct shape *sh = &presets[i];
        fprintf(f, "  %-14s %s\n  %-14s from %s: hidden %" PRId64 ", FFN %" PRId64 " (%s), %" PRId64 " layers, "
                   "sequence %" PRId64 ", micro-batch %" PRId64 "; runs %" PRId64 " layer%s%s\n",
                sh->name, sh->help, "", sh->model, sh->hidden, sh->ffn, sh->ffn_mats == 3 ? "SwiGLU" : "GELU",
                sh->layers, sh->seq, sh->micro_batch, sh->sim_layers, sh->sim_layers == 1 ? "" : "s",
                sh->stages ? " per stage" : "");
    }
}

/* Appends the steps of the preset named name to sc's; -1 when there is none of that name, -2 when they do not fit. */
static int shape_expand(const char *name, struct scenario *sc)
{
    for (size_t i = 0; i < ARRAY_LEN(presets); i++)
        if (strcmp(presets[i].name, name) == 0) {
            struct scenario *tmp = xmalloc(sizeof *tmp);   /* built apart, then appended when it fits */
            *tmp = *sc;
            tmp->workload.n_steps = 0;
            presets[i].build(&presets[i], tmp);
            int n = tmp->workload.n_steps, rc = 0;
            if (sc->workload.n_steps + n > SC_MAX_STEPS || n >= SC_MAX_STEPS)
                rc = -2;
            else
                memcpy(sc->workload.steps + sc->workload.n_steps, tmp->workload.steps, (size_t)n * sizeof(struct step));
            if (!rc)
                sc->workload.n_steps += n;
            free(tmp);
            return rc;
        }
    return -1;
}

int sc_shapes(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc)
{
    char known[256], key[48];
    shape_names(known, sizeof known);
    int n = node->type == YAML_SEQUENCE_NODE ? (int)(node->data.sequence.items.top - node->data.sequence.items.start) : 0;
    if (n < 2 || n > SC_MAX_SHAPES)
        return sc_error(c, node, "workload.shapes", "expected a list of 2 to %d presets (one of: %s)", SC_MAX_SHAPES,
                        known);
    for (int i = 0; i < n; i++) {
        yaml_node_t *it = yaml_document_get_node(c->doc, node->data.sequence.items.start[i]);
        const char *name = sc_scalar(it);
        int found = 0;
        for (size_t k = 0; name && k < ARRAY_LEN(presets); k++)
            found |= strcmp(presets[k].name, name) == 0;
        snprintf(key, sizeof key, "workload.shapes[%d]", i);
        if (!found)
            return sc_error(c, it, key, "unknown shape '%s' (expected one of: %s)", name ? name : "?", known);
        for (int j = 0; j < i; j++)
            if (strcmp(sc->workload.shapes[j].name, name) == 0)
                return sc_error(c, it, key, "'%s' is listed twice", name);
        str_copy(sc->workload.shapes[i].name, sizeof sc->workload.shapes[i].name, name);
    }
    sc->workload.n_shapes = n;
    return 0;
}

/* Every mitigation once on each shape, shape after shape: "filler floor=80% [fsdp]". */
static int sc_runs_per_shape(struct sc_ctx *c, struct scenario *sc)
{
    int base = sc->n_mitigations, k = sc->workload.n_shapes;
    if (sc->auto_search)
        return sc_error_at(c, c->wl_shapes, "workload.shapes", "mitigations: auto searches on one shape: list the "
                                                              "mitigations to compare across shapes");
    if (base * k > SC_MAX_MITIGATIONS)
        return sc_error_at(c, c->wl_shapes, "workload.shapes", "%d shapes x %d mitigations make %d runs: at most %d",
                           k, base, base * k, SC_MAX_MITIGATIONS);
    for (int shape = k - 1; shape >= 0; shape--)
        for (int m = base - 1; m >= 0; m--) {
            struct plugin_spec *dst = &sc->mitigations[shape * base + m];
            char label[sizeof dst->label];
            snprintf(label, sizeof label, "%s [%s]", sc->mitigations[m].label[0] ? sc->mitigations[m].label
                                                                                 : sc->mitigations[m].name,
                     sc->workload.shapes[shape].name);
            if (dst != &sc->mitigations[m])
                *dst = sc->mitigations[m];
            dst->shape = shape;
            str_copy(dst->label, sizeof dst->label, label);
        }
    sc->n_mitigations = base * k;
    return 0;
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
        if ((rc = sc_primary(c, sc, k)) != 0)
            return rc;
    }
    if (sc->workload.n_shapes == 1)
        str_copy(sc->workload.expanded_from, sizeof sc->workload.expanded_from, sc->workload.shapes[0].name);
    sc->workload.shape[0] = 0;
    return 0;
}

/* Reads the trace to replay into the scenario; the real data path runs a fixed GEMM and all-reduce beside it. */
static int sc_replay_check(struct sc_ctx *c, struct scenario *sc)
{
    char why[512];
    if (analyze_series(sc->workload.replay.trace, (long)sc->workload.replay.gpu, sc->workload.replay.w, SC_MAX_TRACE,
                       &sc->workload.replay.n, &sc->workload.replay.dt_s, why, sizeof why) != 0)
        return sc_error_at(c, c->wl_replay, "workload.replay.trace", "%s: %s", sc->workload.replay.trace, why);
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
    (void)root;
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
        return sc_replay_check(c, sc);
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
