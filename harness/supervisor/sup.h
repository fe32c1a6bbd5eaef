/* harness/supervisor/sup.h: the supervisor's state, shared by its files (supervisor.c: the loop and the run;
 * faultlog.c: faults, detections and their figures; recover.c: the recovery strategies). Not a public API. */
#ifndef GAUNTLET_SUP_H
#define GAUNTLET_SUP_H

#include <jansson.h>
#include <signal.h>
#include <sys/types.h>

#include "backend.h"
#include "recover.h"
#include "results.h"
#include "runstats.h"
#include "stats.h"
#include "supervisor.h"
#include "util.h"

#define FP_WINDOW 64   /* iterations of fingerprints kept for the cross-rank comparison */

/* One fault carried out by a worker, and what became of it. */
struct fault_rec {
    int spec, kind, rank, run;     /* spec: index in the scenario's faults, -1 for an observed one */
    int observed;                  /* 1: nothing injected it (a real death, hang, straggler, corruption) */
    int undone;                    /* 1: injected on a timeline a rollback abandoned; it fires again on the new one */
    int64_t iter;
    uint64_t t_ns;                 /* injected (observed: when it was seen) */
    char note[64];
    struct fault_detail d;         /* buffer, element, bits, old and new value (bitflip) */
    int det_rank;                  /* the rank the detection named (-1: none, or no single rank) */
    int detector;              /* enum detector_id that caught it first, or -1 */
    uint64_t detect_ns;
    int64_t detect_iter;
    int recovery;              /* 1 once a recovery started for it */
    uint64_t recovered_ns;     /* the first good iteration after the recovery, 0 until then */
    int64_t restore_iter, lost;
    double restore_bytes, restore_s;
    char restore_from[64];
    char outcome[96];          /* what the run did about it */
};

/* One detection, matched to a fault or counted as a false positive. */
struct detection {
    int detector, rank, run, fault;   /* fault: index in faults, -1 (false positive) or -2 (the same fault again) */
    int64_t iter;
    uint64_t t_ns;
};

/* A fatal failure detected, waiting for the top of the loop to act on it (faultlog_act). */
struct failure {
    int fault, rank, kill, sdc;   /* fault: index in faults; kill: the rank's process must be killed (a hang) */
    int det;                      /* its detection: index in dets */
    int64_t iter;
};
#define SUP_MAX_PENDING 64

struct sup {
    const struct scenario *sc;     /* the control block's copy (random fault ranks resolved) */
    const struct scenario *orig;   /* as given (a random rank stays random for rate_per_hour faults) */
    const struct backend_ops *ops;
    const struct run_options *opt;
    const struct view_link *view;  /* node 0: the live view or the progress lines (progress.c); NULL elsewhere */
    struct shm shm;
    struct results res;
    struct power_source *ps;
    int nranks, nslots;
    pid_t *pid;                    /* per slot */
    int *alive, *ready, *expect_exit;
    int *slot_of;                  /* rank -> slot */
    int *dropped;                  /* per rank: removed by shrink */
    double *watts;                 /* last sample per rank */
    double *energy_j;              /* last energy counter reading per rank (NAN: none) */
    int sigfd, timerfd;
    int run, running;
    struct run_stats rs;
    json_t *runs;
    int failed, stopping, signals;
    int io_failed;                 /* the run ended on a results file that could not be written (exit 3) */
    char reason[512];
    uint64_t t0, run_t0;
    uint64_t samples;
    /* faults, detection, recovery */
    uint64_t *fault_due;           /* per fault spec: when the supervisor sends it (at_s, rate), 0: not timed */
    struct rng fault_rng;
    struct rng *rate_rng;          /* per fault, its own stream: a rate fault's times and random ranks, the same on
                                    * every node (each node draws the same sequence; only the rank's node injects) */
    struct fault_rec *faults;
    int n_faults, cap_faults;
    struct detection *dets;
    int n_dets, cap_dets;
    int64_t *fp_iter;              /* [FP_WINDOW] iteration of each fingerprint row */
    uint64_t *fp;                  /* [FP_WINDOW][nranks] */
    unsigned char *fp_have;
    double *compute_s;             /* per rank: the last compute phase's duration (straggler check) */
    int64_t *compute_iter;
    int *slow_count;               /* per rank: compute phases in a row over the straggler limit */
    int recovering;
    struct rec_machine rm;         /* the recovery under way (recover.h): one step per turn of the loop */
    const struct rec_host *host;   /* this node's worker processes (suphost.c) */
    const struct rec_coord *coord; /* the other nodes: rec_coord_local, or rec_coord_cluster over MPI */
    int awaiting_fault;            /* the fault whose recovery waits for its first good iteration, or -1 */
    int64_t awaiting_iter;
    int recoveries;
    uint32_t epoch;                /* the recovery epoch: a new one at every run start and every recovery */
    int64_t stale_reports;         /* worker reports of an abandoned epoch, dropped (this run) */
    struct failure pending[SUP_MAX_PENDING];   /* fatal failures detected since the loop last acted */
    int n_pending;
    int64_t fail_iter;             /* the recovery under way: the failure's iteration (faults at or after it that
                                      fired on the abandoned timeline fire again on the new one) */
    double detcost[8];             /* per detector: worker-side seconds spent this run */
    int64_t good_iters;            /* iterations that count (after every rollback) */
    /* several nodes (supcluster.c) */
    int node, nodes;
    int64_t clock_offset_ns;       /* added to this node's clock gives node 0's */
    double clock_uncert_s;
    int remote_failure;            /* the failure came from another node: not sent on */
    int sync_run, ready_nodes, go_run;
    int *ready_upto;               /* node 0: per node, the highest run it said it is ready for */
    struct rec_failure rec_asked;  /* the local failure this node asked node 0 to recover (rank -1: none) */
    int rec_have;                  /* node 0: checkpoint answers received */
    int rec_wait;                  /* this node asked node 0 for a recovery and waits for its go */
    uint64_t rec_wait_since;       /* ... since then (a deadline: node 0 answers within the heartbeat timeout) */
    uint64_t *node_seen;           /* per node: when its supervisor was last heard from (liveness between nodes) */
    uint64_t hb_sent;              /* when this supervisor last sent its heartbeat to the others */
    int hb_armed;                  /* 1 from the first run's start to the end: silence is a failure */
    int rec_active, rec_world;     /* node 0: ranks going on, summed; everyone: the cluster's total */
    int *rec_counts;               /* per node: its ranks going on (node 0 gathers them, every node gets them) */
    unsigned char rec_live[SHM_MAX_NODES];   /* nodes with ranks left */
    unsigned char rec_got[SHM_MAX_NODES];    /* node 0: nodes whose proposal this recovery has */
    unsigned char node_ended[SHM_MAX_NODES]; /* node 0: nodes whose end record came (done: not watched, not waited
                                              * for; they propose nothing) */
    unsigned char node_gone[SHM_MAX_NODES];  /* nodes lost (silent past the heartbeat timeout): nothing is sent to
                                              * them, nothing they say is heard, nobody waits for them */
    int64_t rec_min, rec_start;    /* node 0: the oldest newest checkpoint; everyone: where to start (-1: not yet) */
    json_t *node_runs, *node_ends; /* node 0: every node's run figures and end records */
    /* the live view's commands */
    int paused;                    /* workers wait at shm pause_at */
    int skipping;                  /* the run in progress was told to stop: the next mitigation follows */
    int bnd_kind, bnd_wait;        /* node 0, several nodes: a pause/skip boundary being agreed, answers awaited */
    int64_t bnd_top;               /* the furthest iteration any node's ranks reached */
};

enum { SUP_BND_PAUSE = 1, SUP_BND_RESUME, SUP_BND_SKIP };

/* supevents.c */
/* Drains every worker's event ring (events.jsonl, the run's figures, the fault ledger). */
void sup_drain(struct sup *s);
/* Reaps every worker that exited: expected, or a failure (a detection by `exit`). */
void sup_reap(struct sup *s);

/* supervisor.c */
/* Carries out a command of the live view (quit, pause, skip, fault). */
void sup_view_command(struct sup *s, const struct view_cmd *cmd);
/* supview.c: an iteration boundary every rank shares (shm.h): marks *at pending and returns the furthest
 * iteration this node's ranks reached; then pause (INT64_MAX: resume) or skip before iteration at. */
int64_t sup_pending_top(struct sup *s, _Atomic int64_t *at);
void sup_set_pause(struct sup *s, int64_t at);
void sup_set_skip(struct sup *s, int64_t at);
void sup_fail(struct sup *s, const char *reason);
/* supdev.c: the run's device settings (cap, firmware smoothing) before it starts, and put back after it; the
 * object goes into the run's summary as `device`. */
json_t *supdev_run_begin(struct sup *s, int m);
void supdev_run_end(struct sup *s, int m, json_t *o);
void sup_step(struct sup *s);
int sup_spawn(struct sup *s, int slot);
void sup_send(struct sup *s, int slot, const struct wcmd *cmd);
int sup_wait_ready(struct sup *s, double timeout_s);

/* supreport.c */
/* Says in run's object what its figures take from a model rather than a measurement: `modelled`. */
void sup_modelled(struct sup *s, int m, json_t *run);
/* Returns a run's energy per iteration (J): the aggregate's mean power over the run's wall time; NAN if none. */
double sup_energy_per_iter(json_t *run);
json_t *sup_summary(struct sup *s, int code, const char *started);
/* Prints the end-of-run tables: runs, the search, the comparison against none, and the faults (summary's). */
void sup_print_table(struct sup *s, int code, json_t *summary);
/* Adds to every run its energy per iteration and, against the first `none` run, the swing removed and the
 * energy and time paid. */
void sup_compare_runs(struct sup *s);
/* For mitigations: auto: the Pareto front (energy, time, grid swing), the cheapest candidate meeting the
 * spec, or the one that misses it least and by which clause. */
json_t *sup_search(struct sup *s);
/* A `bess` run with `size`: its battery sized from the first `none` run's projected swing, before it starts. */
void sup_size_bess(struct sup *s, int m);
/* After the coarse search: appends up to two candidates between the cheapest passing one and the next
 * cheaper value of the same parameter to the scenario; returns how many. */
int sup_refine(struct sup *s);

/* faultlog.c */
void faultlog_injected(struct sup *s, const struct wevent *ev);
/* Adds a fault's detail to o: target, where, format, element, bits, bit, bit_class, old, new, rel_error (null
 * where it does not apply). */
void faultlog_detail(json_t *o, const struct fault_detail *d);
/* Records a detection; returns the matched fault's index or -1. Fatal detections start the recovery. */
int faultlog_detect(struct sup *s, int detector, int rank, int64_t iter, uint64_t t_ns, const char *note, int fatal);
void faultlog_fingerprint(struct sup *s, const struct wevent *ev);
void faultlog_compute(struct sup *s, const struct wevent *ev, double dur_s);
void faultlog_iteration(struct sup *s, const struct wevent *ev);
void faultlog_restored(struct sup *s, const struct wevent *ev);
void faultlog_timers(struct sup *s, uint64_t now);
void faultlog_run_begin(struct sup *s);
/* A recovery begins: a new epoch (reports of the old one are dropped from now on), every per-iteration window
 * cleared (fingerprints, the straggler check, the start spread, open phases). fail_iter: the failure's
 * iteration. Returns the new epoch. */
uint32_t faultlog_new_epoch(struct sup *s, int64_t fail_iter);
/* The recovery rolls back to start_iter: the iteration faults that fired at or after the failure's iteration
 * on the abandoned timeline (other than cause, the fault being recovered, and any already detected) are undone
 * and fire again when the new timeline reaches them. */
void faultlog_rollback(struct sup *s, int cause);
/* Acts on the fatal failures detected since the last call (the supervisor's loop calls it once every ring is
 * drained): the one of the earliest iteration is recovered; a failure another one's rollback undoes (a fault
 * at or after that iteration) loses its detection and fires again on the new timeline. */
void faultlog_act(struct sup *s);
/* Whether a worker report belongs to the epoch in progress; one that does not is counted and dropped. */
int faultlog_current(struct sup *s, const struct wevent *ev);

json_t *faultlog_json(struct sup *s);
json_t *faultlog_run_json(struct sup *s, double iter_p50);

/* supcluster.c */
int supc_setup(struct sup *s, char *why, size_t n);
void supc_poll(struct sup *s);
void supc_fail(struct sup *s, const char *reason);
/* Node 0: a pause, resume or skip on every node, at a boundary agreed from every node's ranks. */
void supc_boundary(struct sup *s, int kind);
int supc_run_begin(struct sup *s, int m);
void supc_run_end(struct sup *s, int m, json_t *run);
void supc_end(struct sup *s, json_t *summary);

/* recover.c: see recover.h */

/* suphost.c: this node's workers (the host interface, recover.h) */
extern sigset_t sup_oldmask;   /* the signal mask before supervisor_block_signals, restored in each worker */

#endif
