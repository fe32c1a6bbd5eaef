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
    const struct view_link *metrics;  /* node 0: the metrics view the caller opened and keeps (--metrics,
                                       * --metrics-textfile: bound before any results folder exists; accept: one
                                       * server for the whole suite): the run hands it its view (NULL: none) */
    char *setup_why;               /* where the run never began (its set-up failed, exit 3): why, into setup_why_n
                                    * bytes (set to "" first; NULL: not asked) */
    size_t setup_why_n;
};

/* Blocks the signals the supervisor reads through its signalfd. Call it first, before any library (CUDA,
 * NCCL, NVML) starts a thread: threads inherit the mask, and one that did not block SIGCHLD or SIGINT would
 * take it and the supervisor would never see it. They stay blocked after a run (a process that runs another,
 * accept, reads them through that one's signalfd; none kills it between runs). */
int supervisor_block_signals(void);

/* The first SIGINT, SIGTERM or SIGHUP a run of this process was stopped by, else one blocked and pending (it came
 * between runs), else 0: a caller that runs several (accept) stops there. */
int supervisor_stop_signal(void);

/* Runs the scenario on the backend; returns the exit code (0 ok, 1 run failed or stopped, 3 environment). */
int supervisor_run(const struct scenario *sc, const struct backend_ops *ops, const struct run_options *opt);

#endif
