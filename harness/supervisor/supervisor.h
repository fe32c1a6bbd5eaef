/* harness/supervisor/supervisor.h: one per node: starts a worker process per rank, runs each mitigation in turn,
 * samples power, watches workers (death at once through SIGCHLD, hangs by missed heartbeats), and owns
 * every results file. */
#ifndef GAUNTLET_SUPERVISOR_H
#define GAUNTLET_SUPERVISOR_H

#include "backend.h"
#include "scenario.h"

/* What a live view asks of the supervisor (keys in the terminal UI). */
enum view_cmd_type { VIEW_QUIT = 1, VIEW_PAUSE, VIEW_SKIP, VIEW_FAULT };
struct view_cmd {
    int type;
    int kind;           /* VIEW_FAULT: index into fault_table */
    int rank;
    char target[32];    /* VIEW_FAULT, bitflip: gemm-output, gradients, weights, allreduce-buffer ("": default) */
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
};

struct run_options {
    const char *out_dir;           /* results folder (created) */
    const char *exe;               /* this program, re-executed as each worker */
    int headless;
    const struct view_link *view;  /* NULL: headless progress lines */
};

/* Blocks the signals the supervisor reads through its signalfd. Call it first, before any library (CUDA,
 * NCCL, NVML) starts a thread: threads inherit the mask, and one that did not block SIGCHLD or SIGINT would
 * take it and the supervisor would never see it. */
int supervisor_block_signals(void);

/* Runs the scenario on the backend; returns the exit code (0 ok, 1 run failed or stopped, 3 environment). */
int supervisor_run(const struct scenario *sc, const struct backend_ops *ops, const struct run_options *opt);

#endif
