/* harness/results/results_int.h: what results.c and results_end.c share inside harness/results/. */
#ifndef GAUNTLET_RESULTS_INT_H
#define GAUNTLET_RESULTS_INT_H

#include "results.h"

/* Records text as the run's first write failure (said once, by the run: results_failed); returns -1. */
int results_fail_text(struct results *r, const char *text);
/* The same for "cannot write DIR/FILE: OS error" (err: the errno); returns -1. */
int results_fail(struct results *r, const char *file, int err);

#endif
