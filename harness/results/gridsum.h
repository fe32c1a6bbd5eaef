/* harness/results/gridsum.h: the cluster's summed power from the nodes' own sums (power-nodes.csv rows: t_s, node,
 * watts, gpus, one per cell of node 0's time grid, nodeagg.h), aligned on that grid. A node that has no row for a
 * cell counts with its last one (it samples slower than the grid); a cell is whole once every node still in the run
 * has a row at or past it, and is given up on, with the nodes it has, once the newest cell is GRIDSUM_LAG ahead (a
 * node stalled or gone). Pure: rows in, cells out in order. */
#ifndef GAUNTLET_GRIDSUM_H
#define GAUNTLET_GRIDSUM_H

#include <stdint.h>

#define GRIDSUM_LAG 256   /* cells a whole cell may wait for its last node (2.56 s at the default 100 Hz) */

struct gridsum_cell {
    double t_s;     /* the cell's start on node 0's timeline */
    double watts;   /* the sum over the nodes counted */
    int nodes;      /* nodes counted (every node still in the run: whole) */
    int gpus;       /* their GPUs */
    int whole;      /* every node still in the run is in it */
};

typedef void (*gridsum_emit)(void *ctx, const struct gridsum_cell *c);

struct gridsum;

/* A sum of `nodes` nodes on cells of cell_s seconds; NULL when nodes < 1 or cell_s <= 0. */
struct gridsum *gridsum_new(int nodes, double cell_s, gridsum_emit emit, void *ctx);
/* Each node's GPUs: a cell where a node's sum holds fewer (a GPU without a reading past its hold, nodeagg_hold) is no
 * whole sum (a step of one GPU's power in the cluster's figures otherwise). */
void gridsum_expect(struct gridsum *g, int gpus);
void gridsum_free(struct gridsum *g);
/* A copy of g in its state now (its cells still out, each node's last row), giving out to the same emit and ctx. */
struct gridsum *gridsum_copy(const struct gridsum *g);
/* One node's row. Rows of one node come in time order; a row for a cell already given out is counted late. */
void gridsum_row(struct gridsum *g, double t_s, int node, double watts, int gpus);
/* The node left the run (lost, or shrink left it no rank): no cell waits for it or needs it from now on (what it
 * gave the cells before stays in their sum). */
void gridsum_leave(struct gridsum *g, int node);
/* The node's rows are over (its run ended): no cell waits for it, but a cell it did not reach is not whole (the sum
 * lacks its GPUs). */
void gridsum_end(struct gridsum *g, int node);
/* Gives out every cell that has a row (the run ended). */
void gridsum_flush(struct gridsum *g);
/* Rows that came for a cell already given out. */
uint64_t gridsum_late(const struct gridsum *g);

#endif
