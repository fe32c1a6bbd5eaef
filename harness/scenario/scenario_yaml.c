/* harness/scenario/scenario_yaml.c: a scenario's YAML text composed into a document, with the limits a scenario file
 * must keep (one document, bounded nesting): libyaml's loader without its quadratic corner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "scenario.h"
#include "scenario_yaml.h"
#include "util.h"

struct sc_open { int id, key; char *anchor; };   /* an open collection; key: a mapping's key awaiting its value */
struct sc_anchor { char *name; int id; };

/* Builds doc from parser's events (yaml_parser_load's job, with three more rules): one document only, nothing
 * after it, and at most SC_MAX_DEPTH nested collections. Parsing stops at the first event that breaks a rule,
 * so a deep or long tail costs nothing (libyaml's scanner is quadratic in the depth of flow nesting). Returns 0,
 * or EXIT_INPUT / EXIT_ENV with err set; doc is initialised either way. */
int sc_compose(yaml_parser_t *parser, const char *file, yaml_document_t *doc, char *err, size_t errlen)
{
    struct sc_open stack[SC_MAX_DEPTH];
    struct sc_anchor *anchors = NULL;
    int depth = 0, n_anchors = 0, docs = 0, ended = 0, done = 0, rc = 0;
    yaml_event_t ev;
    if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
        memset(doc, 0, sizeof *doc);
        snprintf(err, errlen, "%s: cannot build the YAML document (out of memory)", file);
        return EXIT_ENV;
    }
    while (!done && !rc) {
        if (!yaml_parser_parse(parser, &ev)) {
            unsigned long pl = (unsigned long)parser->problem_mark.line + 1, pc = (unsigned long)parser->problem_mark.column + 1;
            if (ended)   /* after '...' libyaml takes only '---' or the end: the rest is not part of the scenario */
                snprintf(err, errlen, "%s:%lu:%lu: content after the end of the document ('...'): a scenario file is "
                         "one YAML document", file, pl, pc);
            else
                snprintf(err, errlen, "%s:%lu:%lu: YAML syntax error: %s%s%s", file, pl, pc,
                         parser->problem ? parser->problem : "unknown", parser->context ? " " : "",
                         parser->context ? parser->context : "");
            rc = EXIT_INPUT;
            break;
        }
        unsigned long line = (unsigned long)ev.start_mark.line + 1, col = (unsigned long)ev.start_mark.column + 1;
        int id = 0;
        const char *anchor = NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (docs++) {
                snprintf(err, errlen, "%s:%lu:%lu: a second YAML document ('---'): a scenario file is one YAML document",
                         file, line, col);
                rc = EXIT_INPUT;
            }
            break;
        case YAML_DOCUMENT_END_EVENT:
            ended = 1;
            break;
        case YAML_ALIAS_EVENT:
            for (int i = n_anchors - 1; i >= 0 && !id; i--)
                if (strcmp(anchors[i].name, (const char *)ev.data.alias.anchor) == 0)
                    id = anchors[i].id;
            if (!id) {
                snprintf(err, errlen, "%s:%lu:%lu: YAML: alias '*%s' names no anchor given before it", file, line, col,
                         (const char *)ev.data.alias.anchor);
                rc = EXIT_INPUT;
            }
            break;
        case YAML_SCALAR_EVENT:
            id = yaml_document_add_scalar(doc, ev.data.scalar.tag, ev.data.scalar.value, (int)ev.data.scalar.length,
                                          ev.data.scalar.style);
            anchor = (const char *)ev.data.scalar.anchor;
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (depth == SC_MAX_DEPTH) {
                snprintf(err, errlen, "%s:%lu:%lu: YAML nesting deeper than %d levels (the most a scenario may nest)",
                         file, line, col, SC_MAX_DEPTH);
                rc = EXIT_INPUT;
                break;
            }
            id = ev.type == YAML_SEQUENCE_START_EVENT
                     ? yaml_document_add_sequence(doc, ev.data.sequence_start.tag, ev.data.sequence_start.style)
                     : yaml_document_add_mapping(doc, ev.data.mapping_start.tag, ev.data.mapping_start.style);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            doc->nodes.start[stack[depth].id - 1].end_mark = ev.end_mark;
            id = stack[depth].id;
            anchor = stack[depth].anchor;
            break;
        default:   /* stream start */
            break;
        }
        if (!rc && (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
                    ev.type == YAML_MAPPING_START_EVENT) && !id) {
            snprintf(err, errlen, "%s:%lu:%lu: cannot build the YAML document (out of memory)", file, line, col);
            rc = EXIT_ENV;
        }
        if (!rc && id && ev.type != YAML_SEQUENCE_END_EVENT && ev.type != YAML_MAPPING_END_EVENT) {
            yaml_node_t *node = &doc->nodes.start[id - 1];
            if (ev.type != YAML_ALIAS_EVENT)
                node->start_mark = ev.start_mark, node->end_mark = ev.end_mark;
            int ok = 1;   /* hang the node under the open collection (the first node is the root) */
            if (depth && doc->nodes.start[stack[depth - 1].id - 1].type == YAML_SEQUENCE_NODE)
                ok = yaml_document_append_sequence_item(doc, stack[depth - 1].id, id);
            else if (depth && !stack[depth - 1].key)
                stack[depth - 1].key = id;
            else if (depth) {
                ok = yaml_document_append_mapping_pair(doc, stack[depth - 1].id, stack[depth - 1].key, id);
                stack[depth - 1].key = 0;
            }
            if (!ok) {
                snprintf(err, errlen, "%s:%lu:%lu: cannot build the YAML document (out of memory)", file, line, col);
                rc = EXIT_ENV;
            }
            if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
                const yaml_char_t *a = ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                                            : ev.data.mapping_start.anchor;
                stack[depth++] = (struct sc_open){ id, 0, a ? xstrdup((const char *)a) : NULL };
                id = 0;   /* its anchor is registered when it ends: an alias inside it cannot make a cycle */
            }
        }
        if (!rc && id && anchor) {
            anchors = xrealloc(anchors, (size_t)(n_anchors + 1) * sizeof *anchors);
            anchors[n_anchors++] = (struct sc_anchor){ xstrdup(anchor), id };
        }
        if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
            free(stack[depth].anchor);
        yaml_event_delete(&ev);
    }
    while (depth > 0)
        free(stack[--depth].anchor);
    for (int i = 0; i < n_anchors; i++)
        free(anchors[i].name);
    free(anchors);
    return rc;
}
