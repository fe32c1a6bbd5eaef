/* harness/results/view.h: a view of a run while it runs (the live view, tui/live.c; the progress lines,
 * run/progress.c): the results writer hands it every events.jsonl line and power row as they are written,
 * and the supervisor reads its commands. */
#ifndef GAUNTLET_VIEW_H
#define GAUNTLET_VIEW_H

#include <stddef.h>

/* What a live view asks of the supervisor (keys in the terminal UI). */
enum view_cmd_type { VIEW_QUIT = 1, VIEW_PAUSE, VIEW_SKIP, VIEW_FAULT };
struct view_cmd {
    int type;
    int kind;           /* VIEW_FAULT: index into fault_table */
    int rank;
    char target[32];    /* VIEW_FAULT, bitflip: gemm-output, gradients, weights, allreduce-buffer ("": default) */
    int run;            /* VIEW_FAULT: the run it was chosen in (-1: any) */
};

/* A live view of the run (tui/live.c). The supervisor hands it every events.jsonl line and every power row
 * as they are written, and reads its commands on every wake; none of these may block. */
struct power_reading;
struct view_link {
    void *ctx;
    void (*event)(void *ctx, const char *line, size_t len);   /* one events.jsonl line, newline included */
    void (*power)(void *ctx, double t_s, int rank, const struct power_reading *p, int phase);
    int (*command)(void *ctx, struct view_cmd *out);          /* 1 when a command was waiting */
    void (*stop)(void *ctx);   /* the run is over (summary written): close the view, restore the terminal */
    /* forward: nodes: another node's summed power over its cell from t_s (NULL: not shown) */
    void (*node_power)(void *ctx, double t_s, int node, double watts, int gpus);
    /* forward: nodes: the cluster's summed power over a cell of node 0's grid from t_s, in order; whole: every node
     * still in the run is in it (NULL: not shown) */
    void (*cluster_power)(void *ctx, double t_s, double watts, int whole);
};

#endif
