/* harness/results/nodeagg.h: what a node other than 0 sends node 0 when `forward: nodes` (docs/cluster.md "What
 * node 0 receives"): its ranks' per-iteration events folded into one `node_iteration` line per iteration, and its
 * GPUs' power summed into one row per `power.forward_hz` cell of node 0's timeline. Everything else (faults,
 * detections, recoveries, a rank's start and end) goes on whole, and the node keeps every line and row in its own
 * files. Node 0 folds its own rows the same way to sum the cluster. Pure: lines in, lines out; no I/O. */
#ifndef GAUNTLET_NODEAGG_H
#define GAUNTLET_NODEAGG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Receives each line the aggregate makes (stream 0: an events.jsonl line, 1: a power-nodes.csv row; whole lines,
 * newline-terminated). */
typedef void (*nodeagg_emit)(void *ctx, int stream, const char *line, size_t len);

#define NODEAGG_PENDING 16   /* iterations folded at once; a newer one past them ends the oldest with the ranks it has */
#define NODEAGG_LAG 4        /* an iteration waits for its last ranks until this many newer ones have ended */
#define NODEAGG_PHASES 8     /* phase kinds kept apart in a line (more are folded into the last) */

struct nodeagg;

/* An aggregate for a node of `ranks` local ranks (their ranks in events are global: first_rank + local), summing
 * power over cells of cell_s seconds (1 / power.forward_hz; 0: no power rows); NULL when ranks < 1. */
struct nodeagg *nodeagg_new(int node, int ranks, int first_rank, double cell_s, nodeagg_emit emit, void *ctx);
void nodeagg_free(struct nodeagg *a);
/* A GPU's last reading stands in for those it lacks for hold_s at most (default: for good); past it, the GPU is not
 * in its cells' sums (their gpus say how many are). */
void nodeagg_hold(struct nodeagg *a, double hold_s);

/* One event line of this node (t_s on node 0's timeline, type its "event", line the whole object). Returns 1 when
 * the aggregate took it (phase_begin, phase_end, iteration: folded into node_iteration), 0 when it must go on
 * whole. Events that end or change a run (run_end, recovery_begin, rank_dropped, end) end the pending iterations
 * first, so their lines precede the event's. */
int nodeagg_event(struct nodeagg *a, double t_s, const char *type, const json_t *line);
/* Sends the summed power compactly (a node other than 0): consecutive cells of the same GPU count go out as one line
 * `node,first_cell,gpus,w0,w1,...` (watts to 0.1 W; the cell's start is first_cell x cell_s), at most max_cells to
 * a line; nodeagg_rows reads them back. Without it each cell is a power-nodes.csv row. */
void nodeagg_compact(struct nodeagg *a, int max_cells);
/* Reads compact lines (whole, newline-terminated) into rows: row(ctx, t_s, node, watts, gpus) per cell. Each line is
 * read whole before any of its rows is taken: one that is not such a line (a field that is no number, a value that
 * is not finite or beyond 10^9 W) gives no row, and the lines after it are read. Returns the cells read, or -1 when
 * a line was left out. */
int nodeagg_rows(const char *text, size_t len, double cell_s,
                 void (*row)(void *ctx, double t_s, int node, double watts, int gpus), void *ctx);
/* One power reading of local rank `rank` at t_s (watts NaN: not measured, held from the last). */
void nodeagg_power(struct nodeagg *a, double t_s, int rank, double watts);
/* Ends every pending iteration and the power cell being filled (the run ends, or the node stops). */
void nodeagg_flush(struct nodeagg *a);
/* Emits the power cell in progress and the compact line it ends (the power only: the events still folding stay),
 * so a sum taken now has it; a later sample of the same cell makes a second row of it, which a sum takes as late. */
void nodeagg_flush_power(struct nodeagg *a);

/* One power reading of local rank `rank` for the acceptance figures node 0 judges this node's GPUs by, seen at t_s
 * (stamp_s: its source's own time, NaN where it gives none); it counts for a phase as phasecov.h says, against the
 * phase edges nodeagg_event took (throttle: the reason bits, 0 none; read: whether they were read with this reading,
 * counted in throttle_rows). */
void nodeagg_sample(struct nodeagg *a, int rank, double t_s, double stamp_s, double watts, uint64_t throttle, int read);
/* Those figures, per GPU, for the node's end record (every reading waiting judged first): [{rank (global),
 * compute_p90_w, compute_n, comm_p10_w, comm_n, span_s, throttle, throttle_rows}] — what `gauntlet accept` reads
 * from power.csv for node 0's own GPUs. */
json_t *nodeagg_gpus_json(struct nodeagg *a);

/* The power-nodes.csv header node 0 writes before the rows. */
extern const char nodeagg_power_header[];

/* Lines emitted and their bytes, per stream. */
void nodeagg_stats(const struct nodeagg *a, uint64_t lines[2], uint64_t bytes[2]);

#endif
