/* harness/results/cluster_rebuild.h: a several-node record's cluster power rebuilt from power-nodes.csv, for
 * `gauntlet summarize` (cluster_rebuild.c; the summarize_cluster_fn of analyze.h). */
#ifndef GAUNTLET_CLUSTER_REBUILD_H
#define GAUNTLET_CLUSTER_REBUILD_H

#include <jansson.h>

/* Adds power.cluster to each run of summary's runs[] that has a window, summed from dir/power-nodes.csv on cells of
 * 1 / the start event's forward_hz, over the run's window; or power_cluster_note saying why not (forward: ranks, no
 * file, no rows in the runs' time). Rows out of range are left out and counted on stderr. */
void results_cluster_rebuild(const char *dir, const json_t *start, double clock_uncert_s, const json_t *faults,
                             const json_t *windows, json_t *summary);

#endif
