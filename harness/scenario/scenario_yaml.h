/* harness/scenario/scenario_yaml.h: the YAML composer scenario.c parses through, and what a scalar is by its tag and
 * style (scenario_yaml.c). */
#ifndef GAUNTLET_SCENARIO_YAML_H
#define GAUNTLET_SCENARIO_YAML_H

#include <stddef.h>
#include <yaml.h>

/* Builds doc from parser's events (yaml_parser_load's job, with four more rules): one document only, nothing
 * after it, at most SC_MAX_DEPTH nested collections, and no NUL character in a scalar (named by its key). Parsing
 * stops at the first event that breaks a rule, so a deep or long tail costs nothing (libyaml's scanner is quadratic
 * in the depth of flow nesting). An untagged scalar gets YAML's non-specific tag: "?" plain, "!" quoted or block.
 * Returns 0, or EXIT_INPUT / EXIT_ENV with err set; doc is initialised either way. */
int sc_compose(yaml_parser_t *parser, const char *file, yaml_document_t *doc, char *err, size_t errlen);

/* What a scalar of the composed document is: plain (typed by its key's schema), a string (quoted, block, !!str or
 * !), or tagged as another type. */
enum sc_kind { SK_PLAIN, SK_STRING, SK_INT, SK_FLOAT, SK_BOOL, SK_NULL, SK_OTHER };
enum sc_kind sc_kind_of(const yaml_node_t *node);
/* Whether node is an empty plain (or !!null) scalar: `key:` with nothing after it. */
int sc_empty(const yaml_node_t *node);

#endif
