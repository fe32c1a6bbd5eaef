/* harness/scenario/scenario_yaml.h: the YAML composer scenario.c parses through, and what a scalar is by its tag and
 * style (scenario_yaml.c). */
#ifndef GAUNTLET_SCENARIO_YAML_H
#define GAUNTLET_SCENARIO_YAML_H

#include <stddef.h>
#include <yaml.h>

struct sc_ctx;
struct sc_alias;
/* Builds c->doc from parser's events (yaml_parser_load's job, with more rules): one document only, nothing after
 * it, at most SC_MAX_DEPTH nested collections and SC_MAX_NODES nodes, no NUL character in a scalar (named by its key),
 * no tag on a list or mapping but its own. Parsing stops at the first event that breaks a rule, so a deep or long
 * tail costs nothing (libyaml's scanner is quadratic in the depth of flow nesting). An untagged scalar gets YAML's
 * non-specific tag: "?" plain, "!" quoted or block. Each alias used is recorded in c->aliases. text (len bytes) is
 * the input, for the place of a byte that is not UTF-8 (NULL: not known). Returns 0, or EXIT_INPUT / EXIT_ENV with
 * c->err set; c->doc is initialised either way. */
int sc_compose(yaml_parser_t *parser, struct sc_ctx *c, const unsigned char *text, size_t len);
/* Frees the aliases sc_compose recorded. */
void sc_aliases_free(struct sc_ctx *c);
/* The alias an error at mark about key is reached through: the one standing at key (or above it) whose node holds
 * mark; NULL when none. */
const struct sc_alias *sc_alias_at(const struct sc_ctx *c, yaml_mark_t mark, const char *key);

/* What a scalar of the composed document is: plain (typed by its key's schema), a string (quoted, block, !!str or
 * !), or tagged as another type. */
enum sc_kind { SK_PLAIN, SK_STRING, SK_INT, SK_FLOAT, SK_BOOL, SK_NULL, SK_OTHER };
enum sc_kind sc_kind_of(const yaml_node_t *node);
/* Whether node is an empty plain (or !!null) scalar: `key:` with nothing after it. */
int sc_empty(const yaml_node_t *node);

#endif
