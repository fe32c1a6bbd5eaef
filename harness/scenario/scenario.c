/* harness/scenario/scenario.c: scenario YAML → struct scenario, driven by the key tables below; every error names
 * file:line:column, the key and what was expected. */
#include "scenario.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "detectors/detector.h"
#include "faults/fault.h"
#include "mitigations/mitigation.h"
#include "recovery/recovery.h"
#include "analysis.h"
#include "scenario_int.h"
#include "scenario_yaml.h"
#include "util.h"


/* Formats an error at mark and returns EXIT_INPUT. */
int sc_error_at(struct sc_ctx *c, yaml_mark_t mark, const char *key,
                const char *fmt, ...)
{
    char msg[640], shown[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg - 128, fmt, ap);
    va_end(ap);
    /* a value reached through an alias: the alias's place, and where the value is written (until 2026-11-30 the
     * anchor's place alone, under the alias's key) */
    const struct sc_alias *a = sc_alias_at(c, mark, key);
    if (a) {
        size_t used = strlen(msg);
        snprintf(msg + used, sizeof msg - used, " (the value of alias *%s, anchored at %lu:%lu)", a->name,
                 (unsigned long)a->from.line + 1, (unsigned long)a->from.column + 1);
        mark = a->at;
    }
    /* a value quoted from the file is shown, never acted on: a control character (a terminal escape, a newline that
     * would forge a second message) as \xNN */
    size_t u = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && u + 5 < sizeof shown; p++)
        u += (size_t)(*p < 0x20 || *p == 0x7f ? snprintf(shown + u, sizeof shown - u, "\\x%02x", *p)
                                               : snprintf(shown + u, sizeof shown - u, "%c", *p));
    shown[u] = 0;
    snprintf(c->err, c->errlen, "%s:%lu:%lu: %s%s%s", c->file, (unsigned long)mark.line + 1,
             (unsigned long)mark.column + 1, key ? key : "", key && *key ? ": " : "", shown);
    return EXIT_INPUT;
}

/* Formats an error at node's position and returns EXIT_INPUT. */
int sc_error(struct sc_ctx *c, const yaml_node_t *node,
             const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sc_error_at(c, node->start_mark, key, "%s", msg);
}

yaml_mark_t sc_place(const struct sc_ctx *c, const yaml_node_t *node, const char *key)
{
    const struct sc_alias *a = sc_alias_at(c, node->start_mark, key);
    return a ? a->at : node->start_mark;
}

int sc_missing(struct sc_ctx *c, const struct param *table, const unsigned char *seen, const yaml_node_t *node,
               const char *prefix)
{
    char key[160], why[320];
    for (const struct param *p = table; p && p->name; p++) {
        if ((seen && seen[p - table]) || !(p->flags & PF_REQUIRED))
            continue;
        snprintf(key, sizeof key, "%s%s%s", prefix && *prefix ? prefix : "", prefix && *prefix ? "." : "", p->name);
        param_expect(p, why, sizeof why);
        return sc_error(c, node, key, "missing required key (%s: %s)", why, p->help);
    }
    return 0;
}

/* Returns the scalar text of node, or NULL when node is not a scalar. */
const char *sc_scalar(const yaml_node_t *node)
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


#define FS(f) offsetof(struct fault_spec, f)
/* The keys every fault takes (besides kind); the fault's own parameters follow its kind. */
static const struct param fault_common_params[] = {
    { "at", PT_INT, FS(at), .min = 0, .max = 1e15, .help = "iteration at which it fires (from 0, in each run)" },
    { "at_s", PT_DURATION, FS(at_s), .min = 0, .max = 1e9, .help = "time after the run began at which it fires" },
    { "rate_per_hour", PT_DOUBLE, FS(rate_per_hour), .min = 1e-9, .max = 1e9,
      .help = "fires as a Poisson process of this rate (seeded)" },
    { "rank", PT_INT, FS(rank), .min = 0, .max = 4096.0 * 100000 - 1,   /* a global rank: ranks x nodes at most */
      .help = "the rank it hits (global: node x ranks + local rank), or 'random' (the default)" },
    { 0 },
};

/* The value node of key name in mapping item (NULL: not given). */
static yaml_node_t *sc_given(struct sc_ctx *c, yaml_node_t *item, const char *name)
{
    for (yaml_node_pair_t *p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
        const char *k = sc_scalar(yaml_document_get_node(c->doc, p->key));
        if (k && strcmp(k, name) == 0)
            return yaml_document_get_node(c->doc, p->value);
    }
    return NULL;
}

/* A fault's keys that would do nothing as given are bad input (until 2026-12-02 taken and ignored): a bitflip's value
 * where it flips bits, its bits where it perturbs the value (each but at its default, which the resolved scenario.yaml
 * held for every fault until then), more than one bit of the sign (two flips of it are none); a node-crash's rank
 * (the node's ranks all die; on several nodes its first carries it out). So are faults that would change nothing: a
 * straggler of factor 1, a value perturbation of 0 (until 2026-12-02 run, and counted as misses). */
static int sc_fault_given(struct sc_ctx *c, yaml_node_t *item, const struct fault_spec *f, const char *key)
{
    static const char *const where[] = { "random", "sign", "exponent", "mantissa", "value" };
    char sub[96];
    yaml_node_t *n;
    if (fault_table[f->kind]->node && f->rank >= 0 && (n = sc_given(c, item, "rank"))) {   /* random: as written back
                                                                                      * until 2026-12-02, its default */
        snprintf(sub, sizeof sub, "%s.rank", key);
        return sc_error(c, n, sub, "expected node, not rank: a node-crash takes every rank of its node");
    }
    if (strcmp(fault_table[f->kind]->name, "straggler") == 0 &&
        ((const struct straggler_params *)(const void *)f->params)->factor == 1) {   /* given: the default is 3 */
        snprintf(sub, sizeof sub, "%s.factor", key);
        n = sc_given(c, item, "factor");
        return sc_error(c, n ? n : item, sub, "expected more than 1: a factor of 1 slows nothing");
    }
    if (strcmp(fault_table[f->kind]->name, "bitflip") != 0)
        return 0;
    const struct bitflip_params *p = (const void *)f->params;
    if (p->where == FLIP_VALUE && p->value == 0) {   /* given: the default is 0.01 */
        snprintf(sub, sizeof sub, "%s.value", key);
        n = sc_given(c, item, "value");
        return sc_error(c, n ? n : item, sub, "expected a value other than 0: the element times 1 + 0 is left as it "
                        "was");
    }
    const char *w = p->where >= 0 && p->where < 5 ? where[p->where] : "?";
    /* a value at its default is what every scenario.yaml written back until 2026-12-02 holds: read as it was */
    if ((n = sc_given(c, item, "value")) && p->where != FLIP_VALUE && p->value != 0.01) {
        snprintf(sub, sizeof sub, "%s.value", key);
        return sc_error(c, n, sub, "expected only with where: value (the element multiplied by 1 + value); where: %s "
                        "flips bits", w);
    }
    if ((n = sc_given(c, item, "bits")) && p->where == FLIP_VALUE && p->bits != 1) {
        snprintf(sub, sizeof sub, "%s.bits", key);
        return sc_error(c, n, sub, "expected only where bits are flipped; where: value multiplies the element by 1 + value");
    }
    if (p->where == FLIP_SIGN && p->bits > 1) {
        snprintf(sub, sizeof sub, "%s.bits", key);
        return sc_error(c, sc_given(c, item, "bits"), sub, "expected 1 with where: sign (the sign is one bit), got %lld",
                        (long long)p->bits);
    }
    return 0;
}

/* Parses one fault: {kind: K, at|at_s|rate_per_hour: ..., rank: R|random, <K's parameters>}. */
static int sc_fault(struct sc_ctx *c, yaml_node_t *item, struct scenario *sc, int idx)
{
    struct fault_spec *f = &sc->faults[idx];
    char key[64], sub[96], why[320], known[512];
    snprintf(key, sizeof key, "faults[%d]", idx);
    if (item->type != YAML_MAPPING_NODE)
        return sc_error(c, item, key, "expected a mapping such as {kind: crash, at: 120, rank: 1}");
    memset(f, 0, sizeof *f);
    *f = (struct fault_spec){ .kind = -1, .line = (int)item->start_mark.line + 1, .rank = -1, .at = -1, .at_s = -1 };
    yaml_node_pair_t *pair;
    for (pair = item->data.mapping.pairs.start; pair < item->data.mapping.pairs.top; pair++) {
        const char *k = sc_scalar(yaml_document_get_node(c->doc, pair->key));
        if (k && strcmp(k, "kind") == 0)
            break;
    }
    if (pair == item->data.mapping.pairs.top) {
        plugin_names(&plugin_faults, known, sizeof known);
        return sc_error(c, item, key, "missing required key 'kind' (one of: %s)", known);
    }
    yaml_node_t *kn = yaml_document_get_node(c->doc, pair->value);
    const char *kind = sc_scalar(kn);
    snprintf(sub, sizeof sub, "%s.kind", key);
    int rc = sc_named(c, kn, sub, "a fault's name");
    if (rc)
        return rc;
    f->kind = kind ? plugin_find(&plugin_faults, kind) : -1;
    if (f->kind < 0) {
        plugin_names(&plugin_faults, known, sizeof known);
        return sc_error(c, kn, sub, "unknown fault '%s' (expected one of: %s)", kind ? kind : "?", known);
    }
    const struct fault_ops *ops = fault_table[f->kind];
    if (ops->params && param_defaults(ops->params, f->params) != 0)
        return sc_error(c, item, key, "internal: defaults of '%s' do not parse", kind);
    int whens = 0;
    for (pair = item->data.mapping.pairs.start; pair < item->data.mapping.pairs.top; pair++) {
        yaml_node_t *pk = yaml_document_get_node(c->doc, pair->key), *pv = yaml_document_get_node(c->doc, pair->value);
        const char *name = sc_scalar(pk), *text = sc_scalar(pv);
        if (!name)
            return sc_error(c, pk, key, "expected a plain key");
        snprintf(sub, sizeof sub, "%s.%s", key, name);
        for (yaml_node_pair_t *prev = item->data.mapping.pairs.start; prev < pair; prev++) {
            const char *pn = sc_scalar(yaml_document_get_node(c->doc, prev->key));
            if (pn && strcmp(pn, name) == 0)
                return sc_error(c, pk, sub, "duplicate key");
        }
        if (strcmp(name, "kind") == 0)
            continue;
        yaml_mark_t at = sc_place(c, pv, sub);   /* an alias: where it stands */
        if (strcmp(name, "at") == 0)
            c->fault_at[idx] = at;
        else if (strcmp(name, "rank") == 0) {
            c->fault_rank[idx] = at;
            f->rank_line = (int)at.line + 1;
            f->rank_col = (int)at.column + 1;
        } else if (strcmp(name, "node") == 0) {
            c->fault_node[idx] = at;
            f->node_line = (int)at.line + 1;
            f->node_col = (int)at.column + 1;
        }
        const struct param *p = param_find(fault_common_params, name);
        void *base = f;
        if (!p) {
            p = param_find(ops->params, name);
            base = f->params;
        }
        if (!p) {
            size_t used = (size_t)snprintf(known, sizeof known, "kind, at, at_s, rate_per_hour, rank");
            for (const struct param *q = ops->params; q && q->name; q++)
                used += (size_t)snprintf(known + used, sizeof known - used, ", %s", q->name);
            return sc_error(c, pk, sub, "unknown key for a %s fault (expected one of: %s)", kind, known);
        }
        if (!text) {
            param_expect(p, why, sizeof why);
            return sc_error(c, pv, sub, "expected %s", why);
        }
        if (strcmp(name, "rank") == 0 && strcmp(text, "random") == 0 && !(rc = sc_named(c, pv, sub, "a rank or random"))) {
            f->rank = -1;
            continue;
        }
        rc = rc ? rc : sc_typed(c, pv, p, sub);
        if (rc || param_parse(p, text, base, why, sizeof why) != 0)
            return rc ? rc : sc_error(c, pv, sub, "%s", why);   /* the rank's range is checked once ranks is known */
        whens += strcmp(name, "at") == 0 || strcmp(name, "at_s") == 0 || strcmp(name, "rate_per_hour") == 0;
    }
    if (whens != 1)
        return sc_error(c, item, key, "expected exactly one of at (iteration), at_s (seconds) or rate_per_hour, got %d",
                        whens);
    return sc_fault_given(c, item, f, key);
}

/* Parses the faults list. */
static int sc_faults(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc)
{
    if (node->type != YAML_SEQUENCE_NODE)
        return sc_error(c, node, "faults", "expected a list of faults");
    int n = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n > SC_MAX_FAULTS)
        return sc_error(c, node, "faults", "expected at most %d faults, got %d", SC_MAX_FAULTS, n);
    sc->n_faults = n;
    for (int i = 0; i < n; i++) {
        int rc = sc_fault(c, yaml_document_get_node(c->doc, node->data.sequence.items.start[i]), sc, i);
        if (rc)
            return rc;
    }
    return 0;
}

/* Walks one YAML mapping against table: unknown, duplicate, mistyped and missing keys are errors. */
int sc_mapping(struct sc_ctx *c, const struct param *table, yaml_node_t *map, void *base, const char *prefix,
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
        if (table == scenario_params && strcmp(name, "nodes") == 0)
            sc->nodes_line = (int)kn->start_mark.line + 1;
        if (table == scenario_params && strcmp(name, "name") == 0) {
            sc->name_line = (int)kn->start_mark.line + 1;
            sc->name_col = (int)kn->start_mark.column + 1;
        }
        if (table == scenario_params && strcmp(name, "ranks") == 0) {   /* an alias: where it stands, not its anchor */
            yaml_mark_t at = sc_place(c, vn, name);
            sc->ranks_line = (int)at.line + 1;
            sc->ranks_col = (int)at.column + 1;
        }
        if (prefix && strcmp(prefix, "workload") == 0)
            sc_workload_key(c, name, kn);
        if (table == scenario_params && strcmp(name, "workload") == 0)
            c->wl = kn->start_mark;
        if (table == scenario_params && strcmp(name, "search_budget") == 0)   /* only with mitigations: auto */
            c->budget = sc_place(c, vn, name), c->budget_given = 1;
        if (p->type == PT_LIST) {   /* the plug-in lists; ranks is known by now (checked below otherwise) */
            int rc;
            if (strcmp(name, "phases") == 0)
                rc = sc_phases(c, vn, sc);
            else if (strcmp(name, "shapes") == 0)
                rc = sc_shapes(c, vn, sc);
            else if (strcmp(name, "mitigations") == 0 && sc_scalar(vn) && strcmp(sc_scalar(vn), "auto") == 0)
                rc = sc_named(c, vn, name, "auto or a list of mitigations") ? EXIT_INPUT : sc_auto(c, vn, sc);
            else if (strcmp(name, "mitigations") == 0) {
                rc = sc_plugins(c, &plugin_mitigations, vn, sc->mitigations, SC_MAX_MITIGATIONS, &sc->n_mitigations,
                                "mitigations", 0, sc);
                if (!rc)
                    sc_label_repeats(sc);
            }
            else if (strcmp(name, "detectors") == 0)
                rc = sc_plugins(c, &plugin_detectors, vn, sc->detectors, SC_MAX_DETECTORS, &sc->n_detectors,
                                "detectors", 1, sc);
            else if (strcmp(name, "recovery") == 0)
                rc = sc_plugin(c, &plugin_recoveries, vn, &sc->recovery, "recovery", sc);
            else
                rc = sc_faults(c, vn, sc);
            if (rc)
                return rc;
            continue;
        }
        if (p->type == PT_SECTION) {
            if (p->flags & PF_ON)
                *(int *)((char *)base + p->off) = 1;
            /* `sdc_screen:` with nothing after it: on, every threshold at its default; a required key is still
             * required (until 2026-11-30 `replay:` alone went on without its trace) */
            if ((p->flags & PF_ON) && sc_empty(vn)) {
                int rc = sc_missing(c, p->sub, NULL, kn, key);
                if (rc)
                    return rc;
                continue;
            }
            int rc = sc_mapping(c, p->sub, vn, (char *)base + p->off, key, sc);
            if (rc)
                return rc;
            continue;
        }
        if (p->type == PT_PAIR) {
            yaml_node_item_t *it = vn->type == YAML_SEQUENCE_NODE ? vn->data.sequence.items.start : NULL;
            const char *lo = it && vn->data.sequence.items.top - it == 2 ? sc_scalar(yaml_document_get_node(c->doc, it[0])) : NULL;
            const char *hi = lo ? sc_scalar(yaml_document_get_node(c->doc, it[1])) : NULL;
            if (!lo || !hi) {
                param_expect(p, why, sizeof why);
                return sc_error(c, vn, key, "expected %s", why);
            }
            int rc = sc_typed(c, yaml_document_get_node(c->doc, it[0]), p, key);
            rc = rc ? rc : sc_typed(c, yaml_document_get_node(c->doc, it[1]), p, key);
            if (rc || param_parse_pair(p, lo, hi, base, why, sizeof why) != 0)
                return rc ? rc : sc_error(c, vn, key, "%s", why);
            continue;
        }
        const char *text = sc_scalar(vn);
        yaml_node_t *tn = vn;   /* the scalar given: vn, or a sweep's first value */
        if (!text && c->sweeping && vn->type == YAML_SEQUENCE_NODE && vn->data.sequence.items.top > vn->data.sequence.items.start) {
            if (c->sweep)
                return sc_error(c, vn, key, "only one parameter of a mitigation can be swept");
            c->sweep = p;   /* a sweep: one run per value; the first value goes in this spec */
            c->sweep_node = vn;
            tn = yaml_document_get_node(c->doc, vn->data.sequence.items.start[0]);
            text = sc_scalar(tn);
        }
        if (!text) {
            param_expect(p, why, sizeof why);
            return sc_error(c, vn, key, "expected %s, got a %s", why,
                            vn->type == YAML_MAPPING_NODE ? "mapping" : "list");
        }
        int rc = sc_typed(c, tn, p, key);
        if (rc || param_parse(p, text, base, why, sizeof why) != 0)
            return rc ? rc : sc_error(c, vn, key, "%s", why);
        for (int k = 0; k < SC_KEYPOS_N && c->sc; k++)   /* a key a later check may name: its place */
            if (strcmp(key, scenario_keypos_names[k]) == 0) {
                yaml_mark_t at = sc_place(c, tn, key);
                c->sc->keypos[k].line = (int)at.line + 1;
                c->sc->keypos[k].col = (int)at.column + 1;
            }
    }
    return sc_missing(c, table, seen, map, prefix);
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
    sc->n_mitigations = 1;   /* the default list: [none]; the default recovery: none */
    str_copy(sc->mitigations[0].name, sizeof sc->mitigations[0].name, "none");
    sc->mitigations[0].index = plugin_find(&plugin_mitigations, "none");
    str_copy(sc->recovery.name, sizeof sc->recovery.name, "none");
    sc->recovery.index = plugin_find(&plugin_recoveries, "none");
    str_copy(sc->file, sizeof sc->file, c->file);
    int rc = sc_mapping(c, scenario_params, root, sc, "", sc);
    return rc ? rc : sc_cross_checks(c, root, sc);
}

/* Parses the scenario text (len bytes) named file into sc, converting the YAML parser's errors. */
static int sc_parse(const unsigned char *text, size_t len, const char *file, struct scenario *sc, char *err,
                    size_t errlen)
{
    if (len > SC_MAX_FILE_BYTES) {
        snprintf(err, errlen, "%s: expected a scenario of at most %d bytes (1MiB), got %zu bytes", file,
                 SC_MAX_FILE_BYTES, len);
        return EXIT_INPUT;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "%s: cannot initialise the YAML parser (out of memory)", file);
        return EXIT_ENV;
    }
    yaml_parser_set_input_string(&parser, text, len);
    yaml_document_t doc;
    struct sc_ctx c = { .file = file, .err = err, .errlen = errlen, .doc = &doc, .sc = sc };
    int rc = sc_compose(&parser, &c, text, len);
    if (!rc)
        rc = sc_document(&c, sc);
    yaml_document_delete(&doc);
    sc_aliases_free(&c);
    yaml_parser_delete(&parser);
    return rc;
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
    FILE *f = fopen_regular(path, "rb");   /* a FIFO or a device would block the parser, or never end */
    if (!f) {
        snprintf(err, errlen, "%s: cannot open scenario: %s", path, errno == EINVAL ? "not a regular file" : strerror(errno));
        return EXIT_INPUT;
    }
    /* read whole, at most one byte past the cap: a larger file is refused without being read (until 2026-11-30 a
     * 100 MB file took gigabytes to refuse), and an error names the line of a byte that is not UTF-8 */
    unsigned char *text = xmalloc(SC_MAX_FILE_BYTES + 2);
    size_t len = fread(text, 1, SC_MAX_FILE_BYTES + 1, f);
    int bad = ferror(f);
    struct stat st;
    if (len > SC_MAX_FILE_BYTES && fstat(fileno(f), &st) == 0 && (size_t)st.st_size > len)
        len = (size_t)st.st_size;   /* the size the message names */
    fclose(f);
    int rc;
    if (bad) {
        snprintf(err, errlen, "%s: cannot read scenario: %s", path, strerror(errno));
        rc = EXIT_INPUT;
    } else {
        text[len <= SC_MAX_FILE_BYTES ? len : 0] = 0;
        rc = sc_parse(text, len, path, sc, err, errlen);
    }
    free(text);
    return rc;
}

int scenario_load_string(const char *text, const char *name, struct scenario *sc, char *err, size_t errlen)
{
    return sc_parse((const unsigned char *)text, strlen(text), name, sc, err, errlen);
}

int scenario_detector_on(const struct scenario *sc, int id)
{
    if (detector_table[id]->always)
        return 1;
    for (int i = 0; i < sc->n_detectors; i++)
        if (detector_table[sc->detectors[i].index]->id == id)
            return 1;
    return 0;
}

const void *scenario_detector_params(const struct scenario *sc, int id)
{
    static unsigned char defaults[DET_COUNT][SC_PARAM_BYTES];
    static int filled;
    for (int i = 0; i < sc->n_detectors; i++)
        if (detector_table[sc->detectors[i].index]->id == id)
            return sc->detectors[i].params;
    if (!filled) {
        for (int d = 0; d < DET_COUNT; d++)
            if (detector_table[d]->params)
                param_defaults(detector_table[d]->params, defaults[d]);
        filled = 1;
    }
    return detector_table[id]->params ? defaults[id] : NULL;
}

int scenario_sdc_lag(const struct scenario *sc)
{
    int lag = 0;
    for (int i = 0; i < sc->n_detectors; i++) {
        const struct detector_ops *d = detector_table[sc->detectors[i].index];
        int w = d->window_of ? d->window_of(sc->detectors[i].params) : d->window;
        if (d->sdc && w > 1 && w - 1 > lag)
            lag = w - 1;
    }
    return lag;
}

int scenario_ckpt_hold(const struct scenario *sc)
{
    return sc->workload.checkpoint.every > 0 && recovery_table[sc->recovery.index]->restarts_all;
}

int64_t scenario_ckpt_gens_needed(const struct scenario *sc)
{
    int64_t every = sc->workload.checkpoint.every, lag = scenario_sdc_lag(sc);
    return scenario_ckpt_hold(sc) ? 3 + (lag + every - 1) / every : 2;
}

int scenario_ckpt_gens(const struct scenario *sc)
{
    int64_t gens = scenario_ckpt_gens_needed(sc);
    return gens > 16 ? 16 : (int)gens;   /* CKPT_GENS_MAX (worker/checkpoint.h); more is a scenario error */
}

int scenario_located(const struct scenario *sc, const char *msg)
{
    size_t n = strlen(sc->file);
    return n && strncmp(msg, sc->file, n) == 0 && msg[n] == ':';
}

double scenario_settle_s(const struct scenario *sc)
{
    return sc->power.settle_s > 0 ? sc->power.settle_s : 5 * sc->sim.ramp_s + 0.2;
}
