/* harness/scenario/scenario_plugins.c: the plug-in lists of a scenario (mitigations, detectors, recovery): each
 * entry a name or {name: {parameters}}, a mitigation's list of values swept into one entry per value, and
 * `mitigations: auto` expanded into the search's candidates. */
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "mitigations/mitigation.h"
#include "scenario.h"
#include "scenario_int.h"
#include "scenario_yaml.h"
#include "util.h"

/* Parses one plug-in entry of kind: "name" or {name: {param: value}}, into spec. */
int sc_plugin(struct sc_ctx *c, const struct plugin_kind *kind, yaml_node_t *item, struct plugin_spec *spec,
              const char *key, struct scenario *sc)
{
    char known[512];
    yaml_node_t *params = NULL;
    const char *name = sc_scalar(item);
    if (!name && item->type == YAML_MAPPING_NODE &&
        item->data.mapping.pairs.top - item->data.mapping.pairs.start == 1) {
        yaml_node_pair_t *pair = item->data.mapping.pairs.start;
        name = sc_scalar(yaml_document_get_node(c->doc, pair->key));
        params = yaml_document_get_node(c->doc, pair->value);
    }
    if (!name)
        return sc_error(c, item, key, "expected a %s name or {name: {parameters}}", kind->what);
    char what[48];
    snprintf(what, sizeof what, "a %s name", kind->what);
    int rc = sc_named(c, item, key, what);
    if (rc)
        return rc;
    int idx = plugin_find(kind, name);
    if (idx < 0) {
        plugin_names(kind, known, sizeof known);
        return sc_error(c, item, key, "unknown %s '%s' (expected one of: %s)", kind->what, name, known);
    }
    const struct plugin_ops *ops = kind->table[idx];
    memset(spec, 0, sizeof *spec);
    str_copy(spec->name, sizeof spec->name, name);
    spec->index = idx;
    spec->line = (int)sc_place(c, item, key).line + 1;   /* an alias: where it stands */
    if (ops->params && param_defaults(ops->params, spec->params) != 0)
        return sc_error(c, item, key, "internal: defaults of '%s' do not parse", name);
    if (params && !sc_empty(params)) {
        if (params->type != YAML_MAPPING_NODE)
            return sc_error(c, params, key, "expected the parameters of '%s' as a mapping", name);
        if (!ops->params)
            return params->data.mapping.pairs.top == params->data.mapping.pairs.start
                       ? 0
                       : sc_error(c, params, key, "%s '%s' takes no parameters", kind->what, name);
        char prefix[96];
        snprintf(prefix, sizeof prefix, "%s.%s", key, name);
        return sc_mapping(c, ops->params, params, spec->params, prefix, sc);
    }
    return 0;
}

/* The candidates of `mitigations: auto`, in the order they are tried (the budget keeps the first ones). */
static const struct { const char *name, *key, *value, *key2, *value2; } sc_auto_candidates[] = {
    { "none", NULL, NULL, NULL, NULL },
    { "filler", "floor", "40%", NULL, NULL },
    { "filler", "floor", "60%", NULL, NULL },
    { "filler", "floor", "80%", NULL, NULL },
    { "filler", "floor", "90%", NULL, NULL },
    { "ramp", "ramp_w_s", "1000", NULL, NULL },
    { "ramp", "ramp_w_s", "3000", NULL, NULL },
    { "ramp", "ramp_w_s", "10000", NULL, NULL },
    { "cap", "cap", "60%", NULL, NULL },
    { "cap", "cap", "80%", NULL, NULL },
    { "stagger", "groups", "2", "offset", "20ms" },
    { "stagger", "groups", "4", "offset", "10ms" },
    { "smoothing", "floor", "65%", NULL, NULL },
    { "bess", "size", "50", "window", "2s" },    /* sized from the none run's projected swing */
    { "bess", "size", "100", "window", "2s" },
};

/* Expands `mitigations: auto` into the coarse search's candidates, as many as search.budget allows. */
int sc_auto(struct sc_ctx *c, yaml_node_t *node, struct scenario *sc)
{
    char why[256];
    int n = 0;
    for (size_t i = 0; i < ARRAY_LEN(sc_auto_candidates) && n < SC_MAX_MITIGATIONS; i++) {
        struct plugin_spec *m = &sc->mitigations[n];
        int idx = plugin_find(&plugin_mitigations, sc_auto_candidates[i].name);
        const struct plugin_ops *ops = plugin_mitigations.table[idx];
        memset(m, 0, sizeof *m);
        str_copy(m->name, sizeof m->name, ops->name);
        m->index = idx;
        m->line = (int)node->start_mark.line + 1;
        if (ops->params && param_defaults(ops->params, m->params) != 0)
            return sc_error(c, node, "mitigations", "internal: defaults of '%s'", ops->name);
        const char *keys[2] = { sc_auto_candidates[i].key, sc_auto_candidates[i].key2 };
        const char *vals[2] = { sc_auto_candidates[i].value, sc_auto_candidates[i].value2 };
        size_t used = (size_t)snprintf(m->label, sizeof m->label, "%s", ops->name);
        for (int k = 0; k < 2 && keys[k]; k++) {
            const struct param *p = param_find(ops->params, keys[k]);
            if (!p || param_parse(p, vals[k], m->params, why, sizeof why) != 0)
                return sc_error(c, node, "mitigations", "internal: auto candidate %s %s", ops->name, keys[k]);
            used += (size_t)snprintf(m->label + used, sizeof m->label - used, " %s=%s", keys[k], vals[k]);
        }
        n++;
    }
    sc->n_mitigations = n;
    sc->auto_search = 1;
    return 0;
}

/* Parses a list of plug-ins of kind (a single entry is accepted too) into specs; *count gets their number. */
int sc_plugins(struct sc_ctx *c, const struct plugin_kind *kind, yaml_node_t *node, struct plugin_spec *specs, int max,
               int *count, const char *key, int allow_empty, struct scenario *sc)
{
    char k[64];
    if (node->type != YAML_SEQUENCE_NODE) {
        *count = 1;
        snprintf(k, sizeof k, "%s[0]", key);
        return sc_plugin(c, kind, node, &specs[0], k, sc);
    }
    int n = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (n == 0 && !allow_empty)
        return sc_error(c, node, key, "expected at least one %s (e.g. [none])", kind->what);
    if (n > max)
        return sc_error(c, node, key, "expected at most %d entries, got %d", max, n);
    int at = 0;
    for (int i = 0; i < n; i++) {
        yaml_node_t *item = yaml_document_get_node(c->doc, node->data.sequence.items.start[i]);
        snprintf(k, sizeof k, "%s[%d]", key, i);
        if (at >= max)
            return sc_error(c, item, k, "expected at most %d entries (sweeps included)", max);
        c->sweeping = kind == &plugin_mitigations;
        c->sweep = NULL;
        int rc = sc_plugin(c, kind, item, &specs[at], k, sc);
        c->sweeping = 0;
        if (rc)
            return rc;
        for (int j = 0; j < at && kind != &plugin_mitigations; j++)
            if (specs[j].index == specs[at].index)
                return sc_error(c, item, k, "%s '%s' is listed twice", kind->what, specs[at].name);
        int first = at++;
        if (!c->sweep)
            continue;
        /* a swept parameter: one spec per value of its list, the rest of the parameters alike */
        const struct param *p = c->sweep;
        yaml_node_t *list = c->sweep_node;
        char why[320];   /* the labels, "filler floor=65%", are sc_label_repeats' */
        for (yaml_node_item_t *it = list->data.sequence.items.start + 1; it < list->data.sequence.items.top; it++) {
            yaml_node_t *vn = yaml_document_get_node(c->doc, *it);
            const char *text = sc_scalar(vn);
            if (at >= max)
                return sc_error(c, vn, k, "expected at most %d entries (sweeps included)", max);
            specs[at] = specs[first];
            char sk[160];
            snprintf(sk, sizeof sk, "%s.%s.%s", k, specs[at].name, p->name);
            int rc = text ? sc_typed(c, vn, p, sk) : 0;
            if (rc || !text || param_parse(p, text, specs[at].params, why, sizeof why) != 0)
                return rc ? rc : sc_error(c, vn, k, "%s: %s", p->name, text ? why : "expected a value");
            at++;
        }
    }
    *count = at;
    return 0;
}
