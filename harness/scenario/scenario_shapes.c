/* harness/scenario/scenario_shapes.c: the presets of workload.shape and workload.shapes, each sized from a public
 * model configuration and expanded into steps, and the runs of a comparison across shapes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_int.h"
#include "scenario_yaml.h"
#include "util.h"

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

int shape_expand(const char *name, struct scenario *sc)
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
        if (sc_named(c, it, key, "a shape's name"))
            return EXIT_INPUT;
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

int sc_runs_per_shape(struct sc_ctx *c, struct scenario *sc)
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
