/* harness/analysis/shapes_compare.h: the mitigations compared across iteration shapes (workload.shapes). */
#ifndef GAUNTLET_SHAPES_COMPARE_H
#define GAUNTLET_SHAPES_COMPARE_H

#include <jansson.h>
#include <stdio.h>

/* Points of swing removed within which two mitigations tie on a shape (one scenario run twice repeats within them,
 * docs/power.md): a ranking change needs an order beyond it on both shapes. */
#define SHAPES_TIE_PCT 2.0

/* From a summary's runs (each with `shape`, `mitigation`, `label`, `vs_none` against its shape's own none): each
 * shape's mitigations ranked by swing removed, with their swing, energy and time paid, and every pair whose order
 * changes from one shape to another (`shapes` of summary.json); null when the runs span fewer than 2 shapes. */
json_t *shapes_compare_json(json_t *runs);
/* Prints that comparison to f (nothing for null). */
void shapes_compare_print(json_t *shapes, FILE *f);

#endif
