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
#define SC_MAX_NODES 100000   /* a 6 MB list of 3,000,001 items once took 490 MB to refuse; a scenario has < 10,000 */

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

/* Writes a reader error (a byte that is not UTF-8, a control character) at its line and column: libyaml sets only
 * the byte's offset and value for these (its problem_mark stays at 1:1). Columns count characters, as its marks do. */
static void sc_reader_error(const yaml_parser_t *parser, struct sc_ctx *c, const unsigned char *text, size_t len)
{
    size_t at = parser->problem_offset < len ? parser->problem_offset : len;
    unsigned long line = 1, col = 1;
    for (size_t i = len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0; i < at; i++) {
        if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
            continue;
        if (text[i] == '\n' || text[i] == '\r')
            line++, col = 1;
        else if ((text[i] & 0xc0) != 0x80)   /* the first byte of a character */
            col++;
    }
    char got[48] = "";
    if (parser->problem_value >= 0)
        snprintf(got, sizeof got, ", got #x%02X", (unsigned)parser->problem_value);
    snprintf(c->err, c->errlen, "%s:%lu:%lu: YAML syntax error: %s: expected UTF-8 text without control characters%s "
             "(at byte offset %zu)", c->file, line, col, parser->problem ? parser->problem : "unknown", got, at);
}

/* Writes the error of a failed yaml_parser_parse: a reader's at its byte, after '...' the rule it breaks. */
static void sc_parse_error(const yaml_parser_t *parser, struct sc_ctx *c, int ended, const unsigned char *text, size_t len)
{
    unsigned long pl = (unsigned long)parser->problem_mark.line + 1, pc = (unsigned long)parser->problem_mark.column + 1;
    if (parser->error == YAML_READER_ERROR && text)   /* until 2026-11-30 always said 1:1 */
        sc_reader_error(parser, c, text, len);
    else if (ended)   /* after '...' libyaml takes only '---' or the end: the rest is not part of the scenario */
        snprintf(c->err, c->errlen, "%s:%lu:%lu: content after the end of the document ('...'): a scenario file is "
                 "one YAML document", c->file, pl, pc);
    else
        snprintf(c->err, c->errlen, "%s:%lu:%lu: YAML syntax error: %s%s%s", c->file, pl, pc,
                 parser->problem ? parser->problem : "unknown", parser->context ? " " : "",
                 parser->context ? parser->context : "");
}

/* Refuses a tag on a list or mapping other than its own (!!seq, !!map): nothing would read it. 0, or EXIT_INPUT. */
static int sc_collection_tag(struct sc_ctx *c, const yaml_event_t *ev, const struct sc_open *stack, int depth)
{
    int seq = ev->type == YAML_SEQUENCE_START_EVENT;
    const char *tag = (const char *)(seq ? ev->data.sequence_start.tag : ev->data.mapping_start.tag);
    const char *own = seq ? YAML_SEQ_TAG : YAML_MAP_TAG;
    if (!tag || strcmp(tag, own) == 0)
        return 0;
    char key[256];
    sc_open_path(c->doc, stack, depth, key, sizeof key);
    int std = strncmp(tag, "tag:yaml.org,2002:", 18) == 0;
    snprintf(c->err, c->errlen, "%s:%lu:%lu: %s%sexpected a %s, untagged or tagged !!%s, got a %s tagged %s%s", c->file,
             (unsigned long)ev->start_mark.line + 1, (unsigned long)ev->start_mark.column + 1, key, *key ? ": " : "",
             seq ? "list" : "mapping", seq ? "seq" : "map", seq ? "list" : "mapping", std ? "!!" : "", std ? tag + 18 : tag);
    return EXIT_INPUT;
}

/* Refuses a mapping's key tagged other than a string (plain, quoted or !!str): a key is a name. 0, or EXIT_INPUT. */
static int sc_key_tag(struct sc_ctx *c, const yaml_event_t *ev, const struct sc_open *stack, int depth)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    if (!tag || strcmp(tag, "!") == 0 || strcmp(tag, YAML_STR_TAG) == 0 || !depth || stack[depth - 1].key ||
        c->doc->nodes.start[stack[depth - 1].id - 1].type != YAML_MAPPING_NODE)
        return 0;
    char key[256];
    sc_open_path(c->doc, stack, depth, key, sizeof key);
    int std = strncmp(tag, "tag:yaml.org,2002:", 18) == 0;
    snprintf(c->err, c->errlen, "%s:%lu:%lu: %s%sexpected a key (a name, plain or quoted), got a key tagged %s%s",
             c->file, (unsigned long)ev->start_mark.line + 1, (unsigned long)ev->start_mark.column + 1, key,
             *key ? ": " : "", std ? "!!" : "", std ? tag + 18 : tag);
    return EXIT_INPUT;
}

/* Finds the node an alias names (the latest anchor of that name) and records where the alias stands, so that an
 * error inside the node names the alias's place (sc_error_at). 0 when no anchor of that name was given before. */
static int sc_alias_node(struct sc_ctx *c, const yaml_event_t *ev, const struct sc_anchor *anchors, int n_anchors,
                         const struct sc_open *stack, int depth)
{
    int id = 0;
    for (int i = n_anchors - 1; i >= 0 && !id; i--)
        if (strcmp(anchors[i].name, (const char *)ev->data.alias.anchor) == 0)
            id = anchors[i].id;
    if (!id)
        return 0;
    char key[256];
    sc_open_path(c->doc, stack, depth, key, sizeof key);
    const yaml_node_t *node = &c->doc->nodes.start[id - 1];
    c->aliases = xrealloc(c->aliases, (size_t)(c->n_aliases + 1) * sizeof *c->aliases);
    c->aliases[c->n_aliases++] = (struct sc_alias){ xstrdup(key), xstrdup((const char *)ev->data.alias.anchor),
                                                    ev->start_mark, node->start_mark, node->end_mark };
    return id;
}

/* Builds doc from parser's events (yaml_parser_load's job, with more rules): one document only, nothing after it, at
 * most SC_MAX_DEPTH nested collections and SC_MAX_NODES nodes, no NUL in a scalar, no foreign tag on a collection.
 * Parsing stops at the first event that breaks a rule, so a deep or long tail costs nothing (libyaml's scanner is
 * quadratic in the depth of flow nesting). Returns 0, or EXIT_INPUT / EXIT_ENV with err set; doc is initialised
 * either way. */
int sc_compose(yaml_parser_t *parser, struct sc_ctx *c, const unsigned char *text, size_t len)
{
    struct sc_open stack[SC_MAX_DEPTH];
    struct sc_anchor *anchors = NULL;
    yaml_document_t *doc = c->doc;
    const char *file = c->file;
    char *err = c->err;
    size_t errlen = c->errlen;
    int depth = 0, n_anchors = 0, docs = 0, ended = 0, done = 0, rc = 0;
    long nodes = 0;
    yaml_event_t ev;
    if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
        memset(doc, 0, sizeof *doc);
        snprintf(err, errlen, "%s: cannot build the YAML document (out of memory)", file);
        return EXIT_ENV;
    }
    while (!done && !rc) {
        if (!yaml_parser_parse(parser, &ev)) {
            sc_parse_error(parser, c, ended, text, len);
            rc = EXIT_INPUT;
            break;
        }
        unsigned long line = (unsigned long)ev.start_mark.line + 1, col = (unsigned long)ev.start_mark.column + 1;
        int id = 0;
        const char *anchor = NULL;
        int over = (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_ALIAS_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
                    ev.type == YAML_MAPPING_START_EVENT) && ++nodes > SC_MAX_NODES;
        if (over) {   /* until 2026-11-30 unbounded: the document took about 80 times the file's size */
            snprintf(err, errlen, "%s:%lu:%lu: YAML: more than %d nodes (values, keys, lists, mappings, aliases): a "
                     "scenario needs a few thousand", file, line, col, SC_MAX_NODES);
            rc = EXIT_INPUT;
        }
        switch (over ? YAML_NO_EVENT : ev.type) {
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
            if (!(id = sc_alias_node(c, &ev, anchors, n_anchors, stack, depth))) {
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
            if ((rc = sc_key_tag(c, &ev, stack, depth)) != 0)   /* until 2026-11-30 taken and ignored */
                break;
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
            if ((rc = sc_collection_tag(c, &ev, stack, depth)) != 0)   /* until 2026-11-30 taken and ignored */
                break;
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
        default:   /* stream start; an event past the node cap */
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

void sc_aliases_free(struct sc_ctx *c)
{
    for (int i = 0; i < c->n_aliases; i++)
        free(c->aliases[i].path), free(c->aliases[i].name);
    free(c->aliases);
    c->aliases = NULL;
    c->n_aliases = 0;
}

const struct sc_alias *sc_alias_at(const struct sc_ctx *c, yaml_mark_t mark, const char *key)
{
    const struct sc_alias *best = NULL;
    for (int i = 0; key && i < c->n_aliases; i++) {
        const struct sc_alias *a = &c->aliases[i];
        size_t n = strlen(a->path);
        if (!n || strncmp(key, a->path, n) != 0 || (key[n] && key[n] != '.' && key[n] != '['))
            continue;   /* the error is not about the value standing where this alias is */
        if (mark.index < a->from.index || mark.index > a->to.index)
            continue;   /* nor at the text the alias names */
        if (!best || n > strlen(best->path))
            best = a;
    }
    return best;
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

int sc_named(struct sc_ctx *c, const yaml_node_t *node, const char *key, const char *what)
{
    enum sc_kind k = sc_kind_of(node);
    if (!node || node->type != YAML_SCALAR_NODE || k == SK_PLAIN || k == SK_STRING)
        return 0;
    char shown[64];
    const char *tag = (const char *)node->tag;
    int std = strncmp(tag, "tag:yaml.org,2002:", 18) == 0;
    sc_shown((const char *)node->data.scalar.value, shown, sizeof shown);
    return sc_error(c, node, key, "expected %s, got a value tagged %s%s ('%s')", what, std ? "!!" : "", std ? tag + 18 : tag,
                    shown);
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
