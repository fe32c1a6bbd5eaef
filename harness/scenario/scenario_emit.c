/* harness/scenario/scenario_emit.c: writes the resolved scenario (every default filled in) back as YAML, and prints
 * the key reference, both from the same key tables the parser uses. */
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "faults/fault.h"
#include "mitigations/mitigation.h"
#include "scenario.h"
#include "scenario_int.h"
#include "util.h"

/* Emits one event, converting libyaml's failure into -1. */
static int em_event(yaml_emitter_t *e, yaml_event_t *ev) { return yaml_emitter_emit(e, ev) ? 0 : -1; }

/* Emits a plain scalar (quoted by the emitter when needed). */
static int em_scalar(yaml_emitter_t *e, const char *text)
{
    yaml_event_t ev;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1,
                                      YAML_ANY_SCALAR_STYLE))
        return -1;
    return em_event(e, &ev);
}

/* Opens a block or flow mapping. */
static int em_map_start(yaml_emitter_t *e, int flow)
{
    yaml_event_t ev;
    if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE))
        return -1;
    return em_event(e, &ev);
}

/* Closes a mapping. */
static int em_map_end(yaml_emitter_t *e)
{
    yaml_event_t ev;
    yaml_mapping_end_event_initialize(&ev);
    return em_event(e, &ev);
}

static const struct scenario *em_sc;   /* the scenario being written: its workload is written by its form */

static int em_table(yaml_emitter_t *e, const struct param *table, const void *base, int flow);

/* Emits workload.phases: one flow mapping a step, {kind: {its parameters}}. */
static int em_steps(yaml_emitter_t *e, const struct scenario *sc)
{
    yaml_event_t ev;
    if (em_scalar(e, "phases") || !yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
        em_event(e, &ev))
        return -1;
    for (int i = 0; i < sc->workload.n_steps; i++) {
        const struct step *st = &sc->workload.steps[i];
        if (em_map_start(e, 1) || em_scalar(e, step_kind_name(st->kind)) || em_table(e, step_params(st->kind), st, 1) ||
            em_map_end(e))
            return -1;
    }
    yaml_sequence_end_event_initialize(&ev);
    return em_event(e, &ev);
}

/* Emits every key of table from base. */
static int em_table(yaml_emitter_t *e, const struct param *table, const void *base, int flow)
{
    char text[512];
    int workload = em_sc && base == &em_sc->workload, stepped = workload && (em_sc->workload.n_steps > 0 ||
                                                                              em_sc->workload.replay.on);
    if (em_map_start(e, flow))
        return -1;
    for (const struct param *p = table; p && p->name; p++) {
        if (stepped && (strcmp(p->name, "gemm") == 0 || strcmp(p->name, "allreduce") == 0))
            continue;   /* derived from the steps (or the replay's own): written as the phases */
        if (workload && p->type == PT_LIST && strcmp(p->name, "phases") == 0 && em_sc->workload.n_steps > 0 &&
            em_sc->workload.n_shapes <= 1) {
            if (em_steps(e, em_sc))
                return -1;
            continue;
        }
        if (workload && p->type == PT_LIST && strcmp(p->name, "shapes") == 0 && em_sc->workload.n_shapes > 1) {
            yaml_event_t ev;   /* the presets by name: loading them again expands them (and the runs) the same */
            if (em_scalar(e, "shapes") ||
                !yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_FLOW_SEQUENCE_STYLE) || em_event(e, &ev))
                return -1;
            for (int k = 0; k < em_sc->workload.n_shapes; k++)
                if (em_scalar(e, em_sc->workload.shapes[k].name))
                    return -1;
            yaml_sequence_end_event_initialize(&ev);
            if (em_event(e, &ev))
                return -1;
            continue;
        }
        if (workload && strcmp(p->name, "shape") == 0)
            continue;
        if (p->type == PT_STRING && !p->def && !*((const char *)base + p->off))
            continue;   /* an optional name not given */   /* expanded: the phases stand for it, expanded_from names it */
        if (p->type == PT_SECTION) {
            if ((p->flags & PF_ON) && !*(const int *)((const char *)base + p->off))
                continue;   /* not given: stays off on reload */
            if (em_scalar(e, p->name) || em_table(e, p->sub, (const char *)base + p->off, 0))
                return -1;
            continue;
        }
        if (p->type == PT_LIST)
            continue;   /* written by em_plugins / em_faults */
        if (p->type == PT_PAIR) {
            const double *v = (const double *)((const char *)base + p->off);
            yaml_event_t ev;
            char a[32], b[32];
            snprintf(a, sizeof a, "%.17g", v[0]);
            snprintf(b, sizeof b, "%.17g", v[1]);
            if (em_scalar(e, p->name) ||
                !yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_FLOW_SEQUENCE_STYLE) ||
                em_event(e, &ev) || em_scalar(e, a) || em_scalar(e, b))
                return -1;
            yaml_sequence_end_event_initialize(&ev);
            if (em_event(e, &ev))
                return -1;
            continue;
        }
        param_format(p, base, text, sizeof text);
        if (em_scalar(e, p->name) || em_scalar(e, text))
            return -1;
    }
    return em_map_end(e);
}

/* Emits one plug-in: its name, or {name: {params}} when it has parameters. */
static int em_plugin(yaml_emitter_t *e, const struct plugin_kind *kind, const struct plugin_spec *m)
{
    const struct plugin_ops *ops = kind->table[m->index];
    if (!ops->params)
        return em_scalar(e, m->name);
    return em_map_start(e, 0) || em_scalar(e, m->name) || em_table(e, ops->params, m->params, 1) || em_map_end(e) ? -1 : 0;
}

/* Emits key: [plug-ins...]. */
static int em_plugins(yaml_emitter_t *e, const char *key, const struct plugin_kind *kind, const struct plugin_spec *specs,
                      int n)
{
    yaml_event_t ev;
    if (em_scalar(e, key) || !yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
        em_event(e, &ev))
        return -1;
    for (int i = 0; i < n; i++)
        if (em_plugin(e, kind, &specs[i]))
            return -1;
    yaml_sequence_end_event_initialize(&ev);
    return em_event(e, &ev);
}

/* Whether a fault's key does anything as given: what the loader refuses where it would not (a node-crash's rank, a
 * bitflip's value where it flips bits, its bits where it perturbs the value) is not written back either. */
static int em_fault_key(const struct fault_spec *f, const char *name)
{
    const struct fault_ops *ops = fault_table[f->kind];
    if (strcmp(name, "rank") == 0)
        return !ops->node;
    if (strcmp(ops->name, "bitflip") != 0)
        return 1;
    int value = ((const struct bitflip_params *)(const void *)f->params)->where == FLIP_VALUE;
    return strcmp(name, "value") == 0 ? value : strcmp(name, "bits") == 0 ? !value : 1;
}

/* Emits the faults list, each as a flow mapping {kind, when, rank, its parameters}. */
static int em_faults(yaml_emitter_t *e, const struct scenario *sc)
{
    yaml_event_t ev;
    char text[64];
    if (em_scalar(e, "faults") || !yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
        em_event(e, &ev))
        return -1;
    for (int i = 0; i < sc->n_faults; i++) {
        const struct fault_spec *f = &sc->faults[i];
        const struct fault_ops *ops = fault_table[f->kind];
        if (em_map_start(e, 1) || em_scalar(e, "kind") || em_scalar(e, ops->name))
            return -1;
        if (f->at >= 0)
            snprintf(text, sizeof text, "%lld", (long long)f->at);
        else if (f->at_s >= 0)
            format_duration(f->at_s, text, sizeof text);
        else
            snprintf(text, sizeof text, "%.17g", f->rate_per_hour);
        if (em_scalar(e, f->at >= 0 ? "at" : f->at_s >= 0 ? "at_s" : "rate_per_hour") || em_scalar(e, text))
            return -1;
        if (f->rank >= 0)
            snprintf(text, sizeof text, "%lld", (long long)f->rank);
        else
            snprintf(text, sizeof text, "random");
        if (em_fault_key(f, "rank") && (em_scalar(e, "rank") || em_scalar(e, text)))
            return -1;
        for (const struct param *p = ops->params; p && p->name; p++) {
            char v[256];
            if (!em_fault_key(f, p->name))
                continue;
            param_format(p, f->params, v, sizeof v);
            if (em_scalar(e, p->name) || em_scalar(e, v))
                return -1;
        }
        if (em_map_end(e))
            return -1;
    }
    yaml_sequence_end_event_initialize(&ev);
    return em_event(e, &ev);
}

/* Receives the emitter's output and writes it to the FILE. */
static int em_write(void *data, unsigned char *buf, size_t size)
{
    return fwrite(buf, 1, size, data) == size;
}

int scenario_write(const struct scenario *sc, FILE *f)
{
    yaml_emitter_t e;
    yaml_event_t ev;
    int rc = -1;
    if (!yaml_emitter_initialize(&e))
        return -1;
    yaml_emitter_set_output(&e, em_write, f);
    em_sc = sc;
    yaml_emitter_set_unicode(&e, 1);
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if (em_event(&e, &ev))
        goto out;
    if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) || em_event(&e, &ev))
        goto out;
    /* the top level by hand, so that mitigations sits in its place among the keys */
    if (em_map_start(&e, 0))
        goto out;
    char text[512];
    for (const struct param *p = scenario_params; p->name; p++) {
        if (strcmp(p->name, "mitigations") == 0 && sc->auto_search) {
            /* the search as given: loading it again runs the search, its refinement and its summary (until
             * 2026-11-30 its candidates were written as a list, and the run from it searched nothing) */
            if (em_scalar(&e, "mitigations") || em_scalar(&e, "auto"))
                goto out;
        } else if (strcmp(p->name, "mitigations") == 0) {
            int base = sc->workload.n_shapes > 1 ? sc->n_mitigations / sc->workload.n_shapes : sc->n_mitigations;
            if (em_plugins(&e, "mitigations", &plugin_mitigations, sc->mitigations, base))   /* shapes: once */
                goto out;
        } else if (strcmp(p->name, "search_budget") == 0 && !sc->auto_search) {
            continue;   /* a list runs every entry: a budget with it is refused */
        } else if (strcmp(p->name, "detectors") == 0) {
            if (em_plugins(&e, "detectors", &plugin_detectors, sc->detectors, sc->n_detectors))
                goto out;
        } else if (strcmp(p->name, "recovery") == 0) {
            if (em_scalar(&e, "recovery") || em_plugin(&e, &plugin_recoveries, &sc->recovery))
                goto out;
        } else if (strcmp(p->name, "faults") == 0) {
            if (em_faults(&e, sc))
                goto out;
        } else if (p->type == PT_SECTION) {
            if (em_scalar(&e, p->name) || em_table(&e, p->sub, (const char *)sc + p->off, 0))
                goto out;
        } else {
            param_format(p, sc, text, sizeof text);
            if (em_scalar(&e, p->name) || em_scalar(&e, text))
                goto out;
        }
    }
    if (em_map_end(&e))
        goto out;
    yaml_document_end_event_initialize(&ev, 1);
    if (em_event(&e, &ev))
        goto out;
    yaml_stream_end_event_initialize(&ev);
    if (em_event(&e, &ev) || !yaml_emitter_flush(&e))
        goto out;
    rc = 0;
out:
    if (rc)
        gl_log("cannot write the scenario as YAML: %s", e.problem ? e.problem : "write error");
    yaml_emitter_delete(&e);
    em_sc = NULL;
    return rc;
}

void scenario_print_keys(FILE *f, const struct param *table, const char *prefix)
{
    char key[160], exp[200];
    for (const struct param *p = table; p && p->name; p++) {
        snprintf(key, sizeof key, "%s%s%s", prefix && *prefix ? prefix : "", prefix && *prefix ? "." : "", p->name);
        if (p->type == PT_SECTION) {
            fprintf(f, "  %-34s %s%s\n", key, p->help, p->flags & PF_REQUIRED ? " (required)" : "");
            scenario_print_keys(f, p->sub, key);
            continue;
        }
        param_expect(p, exp, sizeof exp);
        fprintf(f, "  %-34s %s%s%s%s; %s; %s%s\n", key, p->help, p->unit ? " (" : "", p->unit ? p->unit : "",
                p->unit ? ")" : "", exp,
                p->flags & PF_REQUIRED ? "required" : "default ", p->flags & PF_REQUIRED ? "" : (p->def ? p->def : "-"));
        if (p->type == PT_LIST && strcmp(p->name, "phases") == 0)
            for (int k = 0; k < ST_COUNT; k++) {   /* each step kind's keys: workload.phases[].gemm.m */
                char sub[160];
                snprintf(sub, sizeof sub, "%s[].%s", key, step_kind_name(k));
                scenario_print_keys(f, step_params(k), sub);
            }
    }
}
