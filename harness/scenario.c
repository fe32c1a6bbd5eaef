/* harness/scenario.c: scenario YAML → struct scenario, driven by the key tables below; every error names
 * file:line:column, the key and what was expected. */
#include "scenario.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "mitigations/mitigation.h"
#include "util.h"

#define SC(field) offsetof(struct scenario, field)
#define GEMM(field) offsetof(__typeof__(((struct scenario *)0)->workload.gemm), field)
#define AR(field) offsetof(__typeof__(((struct scenario *)0)->workload.allreduce), field)
#define CK(field) offsetof(__typeof__(((struct scenario *)0)->workload.checkpoint), field)
#define HB(field) offsetof(__typeof__(((struct scenario *)0)->heartbeat), field)
#define SIM(field) offsetof(struct sim_params, field)
#define TIB (1099511627776.0)

static const struct param gemm_params[] = {
    { "m", PT_INT, GEMM(m), .min = 1, .max = 1 << 20, .flags = PF_REQUIRED, .help = "rows of A and C" },
    { "n", PT_INT, GEMM(n), .min = 1, .max = 1 << 20, .flags = PF_REQUIRED, .help = "columns of B and C" },
    { "k", PT_INT, GEMM(k), .min = 1, .max = 1 << 20, .flags = PF_REQUIRED, .help = "inner dimension" },
    { "dtype", PT_ENUM, GEMM(dtype), .def = "bf16", .choices = DTYPE_CHOICES, .help = "GEMM input type (fp8 is e4m3)" },
    { "count", PT_INT, GEMM(count), .def = "1", .min = 1, .max = 100000, .help = "GEMMs per compute phase, back to back" },
    { 0 },
};

static const struct param allreduce_params[] = {
    { "bytes", PT_SIZE, AR(bytes), .min = 4, .max = 64 * TIB / 1024, .unit = "bytes", .flags = PF_REQUIRED,
      .help = "all-reduce size per iteration (the gradient)" },
    { "emulate_busbw", PT_DOUBLE, AR(emulate_busbw_gbs), .def = "0", .min = 0, .max = 100000, .unit = "GB/s",
      .help = "stretch the phase to the time this bus bandwidth would take (0: off)" },
    { "emulate_ranks", PT_INT, AR(emulate_ranks), .def = "0", .min = 0, .max = 10000000,
      .help = "rank count for emulate_busbw's 2(n-1)/n (0: the scenario's ranks)" },
    { 0 },
};

static const struct param checkpoint_params[] = {
    { "every", PT_INT, CK(every), .def = "0", .min = 0, .max = 100000000, .unit = "iterations",
      .help = "write a checkpoint every this many iterations (0: never)" },
    { "bytes", PT_SIZE, CK(bytes), .def = "64MiB", .min = 4096, .max = 64 * TIB, .unit = "bytes",
      .help = "model state written per rank per checkpoint" },
    { "path", PT_STRING, CK(path), sizeof(((struct scenario *)0)->workload.checkpoint.path),
      .def = "/tmp/gauntlet-ckpt", .help = "folder for checkpoint files" },
    { "mode", PT_ENUM, CK(mode), .def = "sync", .choices = "sync",
      .help = "sync: the rank stops, writes, fsyncs, continues" },
    { 0 },
};

static const struct param workload_params[] = {
    { "gemm", PT_SECTION, offsetof(__typeof__(((struct scenario *)0)->workload), gemm), .sub = gemm_params,
      .flags = PF_REQUIRED, .help = "compute phase" },
    { "allreduce", PT_SECTION, offsetof(__typeof__(((struct scenario *)0)->workload), allreduce),
      .sub = allreduce_params, .flags = PF_REQUIRED, .help = "communication phase" },
    { "checkpoint", PT_SECTION, offsetof(__typeof__(((struct scenario *)0)->workload), checkpoint),
      .sub = checkpoint_params, .help = "periodic checkpoint" },
    { 0 },
};

static const struct param power_params[] = {
    { "sample_hz", PT_DOUBLE, 0, .def = "100", .min = 0, .max = 10000, .unit = "Hz",
      .help = "power samples per second per rank (0: no sampling)" },
    { 0 },
};

static const struct param heartbeat_params[] = {
    { "interval", PT_DURATION, HB(interval_s), .def = "100ms", .min = 0.001, .max = 60,
      .help = "how often a worker proves it is alive" },
    { "timeout", PT_DURATION, HB(timeout_s), .def = "10s", .min = 0.01, .max = 86400,
      .help = "no heartbeat for this long: the rank is hung" },
    { "startup", PT_DURATION, HB(startup_s), .def = "120s", .min = 0.1, .max = 86400,
      .help = "time a worker may take to start (CUDA, NCCL init)" },
    { 0 },
};

static const struct param sim_params[] = {
    { "tflops", PT_DOUBLE, SIM(tflops), .def = "714", .min = 1e-6, .max = 1e6, .unit = "TFLOP/s",
      .help = "achieved dense GEMM rate" },
    { "busbw", PT_DOUBLE, SIM(busbw_gbs), .def = "360", .min = 1e-6, .max = 1e6, .unit = "GB/s",
      .help = "all-reduce bus bandwidth" },
    { "latency", PT_DURATION, SIM(latency_s), .def = "50us", .min = 0, .max = 10, .help = "fixed cost per all-reduce" },
    { "idle_w", PT_DOUBLE, SIM(idle_w), .def = "131", .min = 0, .max = 5000, .unit = "W", .help = "power when idle" },
    { "comm_w", PT_DOUBLE, SIM(comm_w), .def = "132", .min = 0, .max = 5000, .unit = "W",
      .help = "power during the all-reduce" },
    { "compute_w", PT_DOUBLE, SIM(compute_w), .def = "780", .min = 0, .max = 5000, .unit = "W",
      .help = "power during the GEMM chain" },
    { "checkpoint_w", PT_DOUBLE, SIM(ckpt_w), .def = "131", .min = 0, .max = 5000, .unit = "W",
      .help = "power while checkpointing" },
    { "tdp_w", PT_DOUBLE, SIM(tdp_w), .def = "700", .min = 1, .max = 5000, .unit = "W", .help = "board power limit" },
    { "ramp", PT_DURATION, SIM(ramp_s), .def = "70ms", .min = 0, .max = 10,
      .help = "first-order time constant of power changes" },
    { "jitter", PT_DOUBLE, SIM(jitter), .def = "0.02", .min = 0, .max = 1,
      .help = "relative std-dev of each phase's duration" },
    { "noise_w", PT_DOUBLE, SIM(noise_w), .def = "4", .min = 0, .max = 1000, .unit = "W",
      .help = "std-dev of each power sample" },
    { "speedup", PT_DOUBLE, SIM(speedup), .def = "1", .min = 0.001, .max = 1e6,
      .help = "modeled durations are divided by this" },
    { "max_dim", PT_INT, SIM(max_dim), .def = "64", .min = 1, .max = 1024,
      .help = "cap on each dimension of the real CPU GEMM" },
    { "max_elems", PT_INT, SIM(max_elems), .def = "65536", .min = 1, .max = 16 << 20, .unit = "fp32 elements",
      .help = "cap on the real all-reduce buffer" },
    { 0 },
};

/* mitigations is a list, parsed by scenario_mitigations(); its entry here documents it and gives the default. */
const struct param scenario_params[] = {
    { "name", PT_STRING, SC(name), sizeof(((struct scenario *)0)->name), .flags = PF_REQUIRED,
      .help = "names the run and its results folder" },
    { "ranks", PT_INT, SC(ranks), .min = 1, .max = 4096, .flags = PF_REQUIRED,
      .help = "worker processes; on cuda, GPUs of this node" },
    { "iterations", PT_INT, SC(iterations), .min = 1, .max = 1000000000, .flags = PF_REQUIRED,
      .help = "training iterations per mitigation" },
    { "seed", PT_INT, SC(seed), .def = "1", .min = 0, .max = 9.0e15, .help = "seeds every random choice (--seed overrides)" },
    { "workload", PT_SECTION, SC(workload), .sub = workload_params, .flags = PF_REQUIRED, .help = "the iteration" },
    { "power", PT_SECTION, SC(power), .sub = power_params, .help = "power sampling" },
    { "heartbeat", PT_SECTION, SC(heartbeat), .sub = heartbeat_params, .help = "liveness of workers" },
    { "sim", PT_SECTION, SC(sim), .sub = sim_params, .help = "the sim backend's model" },
    { "mitigations", PT_LIST, 0, 0, .def = "[none]", .help = "list of mitigations, each run in turn: a name or {name: {params}}" },
    { 0 },
};

struct sc_ctx {
    const char *file;
    char *err;
    size_t errlen;
    yaml_document_t *doc;
};

/* Formats an error at node's position and returns EXIT_INPUT. */
__attribute__((format(printf, 4, 5))) static int sc_error(struct sc_ctx *c, const yaml_node_t *node,
                                                          const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s:%lu:%lu: %s%s%s", c->file, (unsigned long)node->start_mark.line + 1,
             (unsigned long)node->start_mark.column + 1, key ? key : "", key ? ": " : "", msg);
    return EXIT_INPUT;
}

/* Returns the scalar text of node, or NULL when node is not a scalar. */
static const char *sc_scalar(const yaml_node_t *node)
{
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

/* Lists the key names of table for "expected one of" messages. */
static void sc_key_list(const struct param *table, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (const struct param *p = table; p->name && used < n; p++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", used ? ", " : "", p->name);
}

static int sc_mapping(struct sc_ctx *c, const struct param *table, yaml_node_t *map, void *base, const char *prefix,
                      struct scenario *sc);

/* Parses one mitigation entry: "name" or {name: {param: value}}. */
static int sc_mitigation(struct sc_ctx *c, yaml_node_t *item, struct scenario *sc, int idx)
{
    struct mitigation_spec *m = &sc->mitigations[idx];
    char key[64], known[512];
    yaml_node_t *params = NULL;
    const char *name = sc_scalar(item);
    snprintf(key, sizeof key, "mitigations[%d]", idx);
    if (!name && item->type == YAML_MAPPING_NODE &&
        item->data.mapping.pairs.top - item->data.mapping.pairs.start == 1) {
        yaml_node_pair_t *pair = item->data.mapping.pairs.start;
        name = sc_scalar(yaml_document_get_node(c->doc, pair->key));
        params = yaml_document_get_node(c->doc, pair->value);
    }
    if (!name)
        return sc_error(c, item, key, "expected a mitigation name or {name: {parameters}}");
    int mi = mitigation_find(name);
    if (mi < 0) {
        size_t used = 0;
        for (int i = 0; mitigation_table[i]; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", mitigation_table[i]->name);
        return sc_error(c, item, key, "unknown mitigation '%s' (expected one of: %s)", name, known);
    }
    const struct mitigation_ops *ops = mitigation_table[mi];
    memset(m, 0, sizeof *m);
    str_copy(m->name, sizeof m->name, name);
    m->index = mi;
    m->line = (int)item->start_mark.line + 1;
    if (ops->params && param_defaults(ops->params, m->params) != 0)
        return sc_error(c, item, key, "internal: defaults of '%s' do not parse", name);
    if (params && !(params->type == YAML_SCALAR_NODE && !*sc_scalar(params))) {
        if (params->type != YAML_MAPPING_NODE)
            return sc_error(c, params, key, "expected the parameters of '%s' as a mapping", name);
        if (!ops->params)
            return params->data.mapping.pairs.top == params->data.mapping.pairs.start
                       ? 0
                       : sc_error(c, params, key, "mitigation '%s' takes no parameters", name);
        char prefix[96];
        snprintf(prefix, sizeof prefix, "%s.%s", key, name);
        return sc_mapping(c, ops->params, params, m->params, prefix, sc);
    }
    return 0;
}

/* Parses the mitigations list (a sequence; a single name is accepted too). */
static int sc_mitigations(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc)
{
    if (node->type != YAML_SEQUENCE_NODE) {
        sc->n_mitigations = 1;
        return sc_mitigation(c, node, sc, 0);
    }
    int n = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0)
        return sc_error(c, node, "mitigations", "expected at least one mitigation (e.g. [none])");
    if (n > SC_MAX_MITIGATIONS)
        return sc_error(c, node, "mitigations", "expected at most %d mitigations, got %d", SC_MAX_MITIGATIONS, n);
    sc->n_mitigations = n;
    for (int i = 0; i < n; i++) {
        yaml_node_t *item = yaml_document_get_node(c->doc, node->data.sequence.items.start[i]);
        int rc = sc_mitigation(c, item, sc, i);
        if (rc)
            return rc;
    }
    return 0;
}

/* Walks one YAML mapping against table: unknown, duplicate, mistyped and missing keys are errors. */
static int sc_mapping(struct sc_ctx *c, const struct param *table, yaml_node_t *map, void *base, const char *prefix,
                      struct scenario *sc)
{
    char key[160], why[320], known[512];
    if (!map || map->type != YAML_MAPPING_NODE)
        return sc_error(c, map, prefix && *prefix ? prefix : NULL, "expected a mapping of keys");
    unsigned char seen[64] = { 0 };
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        yaml_node_t *kn = yaml_document_get_node(c->doc, pair->key);
        yaml_node_t *vn = yaml_document_get_node(c->doc, pair->value);
        const char *name = sc_scalar(kn);
        if (!name)
            return sc_error(c, kn, prefix, "expected a plain key");
        snprintf(key, sizeof key, "%s%s%s", prefix && *prefix ? prefix : "", prefix && *prefix ? "." : "", name);
        for (yaml_node_pair_t *prev = map->data.mapping.pairs.start; prev < pair; prev++) {
            yaml_node_t *pk = yaml_document_get_node(c->doc, prev->key);
            if (sc_scalar(pk) && strcmp(sc_scalar(pk), name) == 0)
                return sc_error(c, kn, key, "duplicate key (first given at line %lu)",
                                (unsigned long)pk->start_mark.line + 1);
        }
        const struct param *p = param_find(table, name);
        if (!p) {
            sc_key_list(table, known, sizeof known);
            return sc_error(c, kn, key, "unknown key (expected one of: %s)", known);
        }
        seen[p - table] = 1;
        if (table == scenario_params && strcmp(name, "mitigations") == 0) {
            int rc = sc_mitigations(c, vn, sc);
            if (rc)
                return rc;
            continue;
        }
        if (p->type == PT_SECTION) {
            int rc = sc_mapping(c, p->sub, vn, (char *)base + p->off, key, sc);
            if (rc)
                return rc;
            continue;
        }
        const char *text = sc_scalar(vn);
        if (!text) {
            param_expect(p, why, sizeof why);
            return sc_error(c, vn, key, "expected %s, got a %s", why,
                            vn->type == YAML_MAPPING_NODE ? "mapping" : "list");
        }
        if (param_parse(p, text, base, why, sizeof why) != 0)
            return sc_error(c, vn, key, "%s", why);
    }
    for (const struct param *p = table; p->name; p++) {
        if (seen[p - table] || !(p->flags & PF_REQUIRED))
            continue;
        snprintf(key, sizeof key, "%s%s%s", prefix && *prefix ? prefix : "", prefix && *prefix ? "." : "", p->name);
        param_expect(p, why, sizeof why);
        return sc_error(c, map, key, "missing required key (%s: %s)", why, p->help);
    }
    return 0;
}

/* Checks rules that span keys. */
static int sc_cross_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc)
{
    if (sc->workload.checkpoint.every > 0 && sc->workload.checkpoint.every > sc->iterations)
        gl_log("%s: note: workload.checkpoint.every (%" PRId64 ") exceeds iterations (%" PRId64 "): no checkpoint will be written",
               c->file, sc->workload.checkpoint.every, sc->iterations);
    for (const char *p = sc->name; *p; p++)
        if (!(((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
               *p == '_' || *p == '.')))
            return sc_error(c, root, "name", "expected letters, digits, '-', '_' or '.' (it names a folder), got '%s'",
                            sc->name);
    return 0;
}

/* Fills defaults, then parses the loaded document into sc. */
static int sc_document(struct sc_ctx *c, struct scenario *sc)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root) {
        snprintf(c->err, c->errlen, "%s:1:1: the file is empty (expected a scenario mapping with name, ranks, iterations, workload)", c->file);
        return EXIT_INPUT;
    }
    memset(sc, 0, sizeof *sc);
    if (param_defaults(scenario_params, sc) != 0)
        return EXIT_INPUT;
    sc->n_mitigations = 1;   /* the default list: [none] */
    str_copy(sc->mitigations[0].name, sizeof sc->mitigations[0].name, "none");
    sc->mitigations[0].index = mitigation_find("none");
    str_copy(sc->file, sizeof sc->file, c->file);
    int rc = sc_mapping(c, scenario_params, root, sc, "", sc);
    return rc ? rc : sc_cross_checks(c, root, sc);
}

/* Runs the libyaml parser over an initialised parser and converts its errors. */
static int sc_parse(yaml_parser_t *parser, const char *file, struct scenario *sc, char *err, size_t errlen)
{
    yaml_document_t doc;
    struct sc_ctx c = { .file = file, .err = err, .errlen = errlen, .doc = &doc };
    if (!yaml_parser_load(parser, &doc)) {
        snprintf(err, errlen, "%s:%lu:%lu: YAML syntax error: %s%s%s", file, (unsigned long)parser->problem_mark.line + 1,
                 (unsigned long)parser->problem_mark.column + 1, parser->problem ? parser->problem : "unknown",
                 parser->context ? " " : "", parser->context ? parser->context : "");
        return EXIT_INPUT;
    }
    int rc = sc_document(&c, sc);
    yaml_document_delete(&doc);
    return rc;
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open scenario: %s", path, strerror(errno));
        return EXIT_INPUT;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        snprintf(err, errlen, "%s: cannot initialise the YAML parser (out of memory)", path);
        return EXIT_ENV;
    }
    yaml_parser_set_input_file(&parser, f);
    int rc = sc_parse(&parser, path, sc, err, errlen);
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

int scenario_load_string(const char *text, const char *name, struct scenario *sc, char *err, size_t errlen)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "%s: cannot initialise the YAML parser (out of memory)", name);
        return EXIT_ENV;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
    int rc = sc_parse(&parser, name, sc, err, errlen);
    yaml_parser_delete(&parser);
    return rc;
}
