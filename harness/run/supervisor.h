/* harness/run/supervisor.h: one per node: starts a worker process per rank, runs each mitigation in turn,
 * samples power, watches workers (death at once through SIGCHLD, hangs by missed heartbeats), and owns
 * every results file. */
#ifndef GAUNTLET_SUPERVISOR_H
#define GAUNTLET_SUPERVISOR_H

#include "backend.h"
#include "scenario.h"
#include "view.h"

struct run_options {
    const char *out_dir;           /* results folder (created) */
    const char *exe;               /* this program, re-executed as each worker */
    int headless;
    const struct view_link *view;  /* NULL: headless progress lines */
    const char *metrics_listen;    /* --metrics ADDR:PORT: OpenMetrics over HTTP on node 0 (NULL: none) */
    const char *metrics_dir;       /* --metrics-textfile DIR: DIR/gauntlet.prom for node_exporter (NULL: none) */
    const struct view_link *metrics;  /* a metrics view the caller opened and keeps (accept: one server for the whole
                                       * suite): the run hands it its view, in place of metrics_listen/metrics_dir */
};

/* Blocks the signals the supervisor reads through its signalfd. Call it first, before any library (CUDA,
 * NCCL, NVML) starts a thread: threads inherit the mask, and one that did not block SIGCHLD or SIGINT would
 * take it and the supervisor would never see it. */
int supervisor_block_signals(void);

/* Runs the scenario on the backend; returns the exit code (0 ok, 1 run failed or stopped, 3 environment). */
int supervisor_run(const struct scenario *sc, const struct backend_ops *ops, const struct run_options *opt);

#endif
