/* harness/scenario/scenario_yaml.h: the YAML composer scenario.c parses through (scenario_yaml.c). */
#ifndef GAUNTLET_SCENARIO_YAML_H
#define GAUNTLET_SCENARIO_YAML_H

#include <stddef.h>
#include <yaml.h>

/* Builds doc from parser's events (yaml_parser_load's job, with three more rules): one document only, nothing
 * after it, and at most SC_MAX_DEPTH nested collections. Parsing stops at the first event that breaks a rule, so a
 * deep or long tail costs nothing (libyaml's scanner is quadratic in the depth of flow nesting). Returns 0, or
 * EXIT_INPUT / EXIT_ENV with err set; doc is initialised either way. */
int sc_compose(yaml_parser_t *parser, const char *file, yaml_document_t *doc, char *err, size_t errlen);

#endif
