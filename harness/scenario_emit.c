/* harness/scenario_emit.c: writes the resolved scenario (every default filled in) back as YAML, and prints
 * the key reference, both from the same key tables the parser uses. */
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "mitigations/mitigation.h"
#include "scenario.h"
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

/* Emits every key of table from base. */
static int em_table(yaml_emitter_t *e, const struct param *table, const void *base, int flow)
{
    char text[512];
    if (em_map_start(e, flow))
        return -1;
    for (const struct param *p = table; p && p->name; p++) {
        if (p->type == PT_SECTION) {
            if (em_scalar(e, p->name) || em_table(e, p->sub, (const char *)base + p->off, 0))
                return -1;
            continue;
        }
        if (table == scenario_params && strcmp(p->name, "mitigations") == 0)
            continue;   /* written by em_mitigations */
        param_format(p, base, text, sizeof text);
        if (em_scalar(e, p->name) || em_scalar(e, text))
            return -1;
    }
    return em_map_end(e);
}

/* Emits the mitigations list: a name, or {name: {params}} when the mitigation has parameters. */
static int em_mitigations(yaml_emitter_t *e, const struct scenario *sc)
{
    yaml_event_t ev;
    if (em_scalar(e, "mitigations"))
        return -1;
    if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) || em_event(e, &ev))
        return -1;
    for (int i = 0; i < sc->n_mitigations; i++) {
        const struct mitigation_spec *m = &sc->mitigations[i];
        const struct mitigation_ops *ops = mitigation_table[m->index];
        if (!ops->params) {
            if (em_scalar(e, m->name))
                return -1;
            continue;
        }
        if (em_map_start(e, 0) || em_scalar(e, m->name) || em_table(e, ops->params, m->params, 1) || em_map_end(e))
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
        if (strcmp(p->name, "mitigations") == 0) {
            if (em_mitigations(&e, sc))
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
    }
}
