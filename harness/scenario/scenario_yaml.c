/* harness/scenario/scenario_yaml.c: a scenario's YAML text composed into a document, with the limits a scenario file
 * must keep (one document, bounded nesting, no NUL in a string): libyaml's loader without its quadratic corner; and
 * what each scalar is by its tag and style, so that the schema types it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "scenario_int.h"
#include "scenario_yaml.h"
#include "util.h"

struct sc_open { int id, key; char *anchor; };   /* an open collection; key: a mapping's key awaiting its value */
struct sc_anchor { char *name; int id; };
#define SC_MAX_ANCHORS 1024   /* a 60,000-anchor file once took 36 s to refuse: every alias searched them all */

/* Writes the key of the scalar about to hang under the open collections, as the parser names keys
 * ("workload.checkpoint.path", "faults[0].kind"); a scalar that is itself a mapping's key gets the mapping's. */
static void sc_open_path(const yaml_document_t *doc, const struct sc_open *stack, int depth, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int d = 0; d < depth && used < n; d++) {
        const yaml_node_t *coll = &doc->nodes.start[stack[d].id - 1];
        int last = d == depth - 1, key = stack[d].key;
        if (coll->type == YAML_SEQUENCE_NODE) {   /* the open child is its last item; the scalar comes after them */
            long items = (long)(coll->data.sequence.items.top - coll->data.sequence.items.start);
            used += (size_t)snprintf(out + used, n - used, "[%ld]", last ? items : items - 1);
            continue;
        }
        if (!last && !key && coll->data.mapping.pairs.top > coll->data.mapping.pairs.start)
            key = coll->data.mapping.pairs.top[-1].key;   /* the open child is the value of its last pair */
        else if (!last)
            key = 0;                                      /* the open child is a key: named by its mapping */
        if (!key)
            break;
        const yaml_node_t *k = &doc->nodes.start[key - 1];
        used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "." : "",
                                 k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "?");
    }
}

/* Builds doc from parser's events (yaml_parser_load's job, with four more rules): one document only, nothing
 * after it, at most SC_MAX_DEPTH nested collections, and no NUL in a scalar. Parsing stops at the first event that
 * breaks a rule, so a deep or long tail costs nothing (libyaml's scanner is quadratic in the depth of flow nesting).
 * Returns 0, or EXIT_INPUT / EXIT_ENV with err set; doc is initialised either way. */
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
        case YAML_SCALAR_EVENT: {
            char key[256];
            if (memchr(ev.data.scalar.value, 0, ev.data.scalar.length)) {   /* it would cut the value short */
                sc_open_path(doc, stack, depth, key, sizeof key);
                snprintf(err, errlen, "%s:%lu:%lu: %s%sa NUL character (\\0) inside a %s: not allowed in a scenario",
                         file, line, col, key, *key ? ": " : "", depth && !stack[depth - 1].key &&
                         doc->nodes.start[stack[depth - 1].id - 1].type == YAML_MAPPING_NODE ? "key" : "string");
                rc = EXIT_INPUT;
                break;
            }
            /* untagged: YAML's non-specific tags, "?" plain and "!" quoted or block, so that the schema can tell a
             * plain 3 from '3' and !!str 3 (sc_kind_of) */
            const char *tag = ev.data.scalar.tag ? (const char *)ev.data.scalar.tag
                            : ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "?" : "!";
            id = yaml_document_add_scalar(doc, (const yaml_char_t *)tag, ev.data.scalar.value, (int)ev.data.scalar.length,
                                          ev.data.scalar.style);
            anchor = (const char *)ev.data.scalar.anchor;
            break;
        }
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
        if (!rc && id && anchor && n_anchors >= SC_MAX_ANCHORS) {   /* each alias looks its anchor up among them */
            snprintf(err, errlen, "%s:%lu:%lu: YAML: more than %d anchors ('&name'): a scenario needs a few", file, line,
                     col, SC_MAX_ANCHORS);
            rc = EXIT_INPUT;
        } else if (!rc && id && anchor) {
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

enum sc_kind sc_kind_of(const yaml_node_t *node)
{
    static const struct { const char *tag; enum sc_kind kind; } tags[] = {
        { "?", SK_PLAIN }, { "!", SK_STRING }, { YAML_STR_TAG, SK_STRING }, { YAML_INT_TAG, SK_INT },
        { YAML_FLOAT_TAG, SK_FLOAT }, { YAML_BOOL_TAG, SK_BOOL }, { YAML_NULL_TAG, SK_NULL },
    };
    const char *tag = node && node->tag ? (const char *)node->tag : "?";
    for (size_t i = 0; i < ARRAY_LEN(tags); i++)
        if (strcmp(tag, tags[i].tag) == 0)
            return tags[i].kind;
    return SK_OTHER;
}

int sc_empty(const yaml_node_t *node)
{
    enum sc_kind k = sc_kind_of(node);
    return node && node->type == YAML_SCALAR_NODE && !node->data.scalar.length && (k == SK_PLAIN || k == SK_NULL);
}

/* The kinds of scalar a value of type may be written as: plain always; a number's tags for numbers; a string's
 * (quoted, block, !!str) only for strings and names. */
static unsigned sc_kinds_for(enum param_type type)
{
    switch (type) {
    case PT_INT:
    case PT_SIZE:
        return 1u << SK_PLAIN | 1u << SK_INT;
    case PT_DOUBLE:
    case PT_DURATION:
    case PT_PAIR:
        return 1u << SK_PLAIN | 1u << SK_INT | 1u << SK_FLOAT;
    case PT_BOOL:
        return 1u << SK_PLAIN | 1u << SK_BOOL;
    case PT_ENUM:
    case PT_STRING:
        return 1u << SK_PLAIN | 1u << SK_STRING;
    default:   /* a power (80%, 560W), a section's or a list's scalar */
        return 1u << SK_PLAIN;
    }
}

/* Writes v for a one-line message: control characters escaped (\n, \x01), cut to about 40 characters. */
static void sc_shown(const char *v, char *out, size_t n)
{
    size_t used = 0;
    for (; *v && used + 8 < n; v++) {
        if (used >= 40) {
            used += (size_t)snprintf(out + used, n - used, "...");
            break;
        }
        unsigned char ch = (unsigned char)*v;
        used += (size_t)(ch == '\n' ? snprintf(out + used, n - used, "\\n")
                         : ch < 0x20 || ch == 0x7f ? snprintf(out + used, n - used, "\\x%02x", ch)
                                                   : snprintf(out + used, n - used, "%c", ch));
    }
    out[used < n ? used : n - 1] = 0;
}

int sc_typed(struct sc_ctx *c, const yaml_node_t *node, const struct param *p, const char *key)
{
    enum sc_kind k = sc_kind_of(node);
    if (!node || node->type != YAML_SCALAR_NODE || (sc_kinds_for(p->type) & 1u << k))
        return 0;
    char exp[160], got[96], shown[64];
    const char *tag = (const char *)node->tag;
    int quoted = node->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                 node->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    if (k == SK_STRING && strcmp(tag, "!") == 0)
        snprintf(got, sizeof got, "%s", quoted ? "a quoted string" : "a block string");
    else if (strncmp(tag, "tag:yaml.org,2002:", 18) == 0)
        snprintf(got, sizeof got, "a value tagged !!%s", tag + 18);
    else
        snprintf(got, sizeof got, "a value tagged %s", tag);
    param_expect(p, exp, sizeof exp);
    sc_shown((const char *)node->data.scalar.value, shown, sizeof shown);
    return sc_error(c, node, key, "expected %s, got %s ('%s')%s", exp, got, shown,
                    k == SK_STRING ? ": a quoted or !!str value is a string" : "");
}
