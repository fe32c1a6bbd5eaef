/* harness/resilience/faulttable.h: the fault story of a run as one table on a terminal, from the `faults` array of
 * summary.json (docs/results.md): what failed, where it came from, what it hit, what caught it, how fast, what
 * it cost and how it ended. The end of `gauntlet run` and `gauntlet report` print it. */
#ifndef GAUNTLET_FAULTTABLE_H
#define GAUNTLET_FAULTTABLE_H

#include <jansson.h>
#include <stdio.h>

/* Prints the table of faults (an array of fault records) to out; nothing when there are none. Returns the
 * number of rows printed. */
int fault_table_print(json_t *faults, FILE *out);

#endif
