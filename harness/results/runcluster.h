/* harness/results/runcluster.h: node 0's view of the cluster's power with `forward: nodes`: every node's summed power
 * per cell of node 0's grid (power-nodes.csv, its own included) summed on that grid (gridsum.h), and per run the
 * figures of that sum over the run's analysed stretch beside node 0's trace projected to the cluster's GPUs — the
 * projection checked against the real sum (docs/cluster.md "The cluster's power"). */
#ifndef GAUNTLET_RUNCLUSTER_H
#define GAUNTLET_RUNCLUSTER_H

#include <jansson.h>

#include "scenario.h"

struct runcluster;
struct rs_trace;

/* For `nodes` nodes on cells of cell_s seconds; NULL when there is nothing to sum (one node, cell_s <= 0). */
struct runcluster *runcluster_new(int nodes, double cell_s);
/* Each node's GPUs (the start's ranks): a cell a node's sum holds fewer of is no whole sum (gridsum_expect). */
void runcluster_expect(struct runcluster *c, int gpus);
void runcluster_free(struct runcluster *c);
/* Each cell of the sum, as it is whole (or given up on), also goes to fn (NULL: none). */
void runcluster_watch(struct runcluster *c, void (*fn)(void *ctx, double t_s, double watts, int whole), void *ctx);
/* One power-nodes.csv row (t_s on node 0's timeline). */
void runcluster_row(struct runcluster *c, double t_s, int node, double watts, int gpus);
/* Every row of a batch of power-nodes.csv lines (whole, newline-terminated); lines that are not rows are skipped. */
void runcluster_rows(struct runcluster *c, const char *text, size_t len);
/* The node left the run (lost, or no rank left): no cell waits for it. */
void runcluster_leave(struct runcluster *c, int node);
/* The node's rows are over (it ended): no cell waits for it; one it did not reach is no whole sum. */
void runcluster_end(struct runcluster *c, int node);
/* Node 0's run `run` ended: its analysed stretch (t, node 0's GPUs' watts; t_s since the run began, which is
 * begin_s on node 0's timeline) marks the stretch of the cluster's sum analysed for it, and is projected to gpus
 * GPUs in groups (the projection's model) for the check. */
void runcluster_run(struct runcluster *c, int run, const struct rs_trace *t, double begin_s, const struct scenario *sc,
                    long gpus, long groups, double jitter_s);
/* A stretch [from_s, to_s] of node 0's timeline analysed for run `run`, with no projection beside it (`gauntlet
 * summarize`: node 0's trace is not at hand as a run has it). */
void runcluster_span(struct runcluster *c, int run, double from_s, double to_s);
/* Adds power.cluster to each run of summary's runs[] it has a stretch for: the sum's figures (swing, ramps,
 * spectrum, as a run's aggregate), how many cells were whole, the error decimation and the clocks leave in it
 * (clock_uncertainty_s: the largest node's), and the projection beside it with their ratio. */
void runcluster_json(struct runcluster *c, json_t *summary, const struct scenario *sc, double tdp_w,
                     double clock_uncertainty_s);

#endif
