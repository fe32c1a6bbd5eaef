/* harness/supervisor/sup.h: the supervisor's core, one per node: its worker processes (spawn, send, kill, reap), the
 * event loop (signals, power sampling, the workers' rings: sup_step), the iteration boundaries every rank shares
 * (pause, skip) and failing the run. It sits below everything that extends it: resilience/ (the fault ledger, the
 * recovery machine), cluster/ (the other nodes) and run/ (the mitigations in turn, the summary, the view's
 * commands) each keep their own state behind a pointer of their own here, and the core reaches them only through
 * `struct sup_hooks`, at the points it names. Not a public API: run/supervisor.h is. */
#ifndef GAUNTLET_SUP_H
#define GAUNTLET_SUP_H

#include <jansson.h>
#include <signal.h>
#include <sys/types.h>

#include "backend.h"
#include "results.h"
#include "runstats.h"
#include "stats.h"
#include "util.h"

struct sup;
struct resilience;   /* resilience/resilience.h: the fault ledger and the recovery machine */
struct sup_link;     /* cluster/supcluster.h: the other nodes */
struct sup_run;      /* run/run.h: the runs, the view, the options */

/* What extends the core. supervisor_run (run/) hands the core a list of these (resilience, the cluster link, the run's
 * own); at each point the core calls every non-NULL member in list order, and knows nothing else of them. */
struct sup_hooks {
    /* A worker's report, first: 1 when it belongs to a timeline a recovery abandoned (it is dropped: nothing else,
     * the core included, sees it). */
    int (*stale)(struct sup *s, const struct wevent *ev);
    /* A worker's report, before the core writes its record o (NULL: the core writes none for it; a fault carried
     * out, a detector's finding, a fingerprint, a detector's cost are the hooks' to record). */
    void (*report)(struct sup *s, int slot, const struct wevent *ev, json_t *o);
    /* A failure the core itself saw in a rank of the run in progress: its process died (detector exit) or fell
     * silent (heartbeat; fatal 2: its process must be killed). */
    void (*failure)(struct sup *s, int detector, int rank, int64_t iter, uint64_t t_ns, const char *note, int fatal);
    /* Every wake, once the rings are drained and power sampled: messages from elsewhere, commands. */
    void (*poll)(struct sup *s);
    /* Every wake while a run goes on and no recovery or stop is under way: timers. */
    void (*tick)(struct sup *s, uint64_t now);
    /* Every wake, last: act on what was found (the failures queued, the recovery under way, one step). */
    void (*act)(struct sup *s);
    /* The run failed, or was stopped, on this node (reason): the others must hear it. */
    void (*fail)(struct sup *s, const char *reason);
};

/* This node's worker processes, as the layers above reach them (suphost.c: sup_host). */
struct rec_host {
    int (*spawn)(struct sup *s, int slot);                        /* a new worker process in slot: 0 or -1 */
    void (*send)(struct sup *s, int slot, const struct wcmd *c);  /* a command; never dropped (back-pressure) */
    void (*kill)(struct sup *s, int slot);                        /* SIGKILL a live worker, expecting its exit */
    int (*busy)(struct sup *s, uint64_t now);                     /* workers not yet stopped (0: quiescent) */
    void (*busy_why)(struct sup *s, uint64_t now, char *why, size_t n);   /* the first of those, in words */
    /* 1 when every worker not yet stopped is one killed that has begun to exit, within SUP_EXIT_WAIT_S of its kill:
     * it will end (a recovery waits for it past its own deadline) */
    int (*ending)(struct sup *s, uint64_t now);
};
extern const struct rec_host sup_host;

#define SUP_MAX_HOOKS 4

#define SUP_STALLS 256

struct sup {
    const struct scenario *sc;     /* the control block's copy (random fault ranks resolved) */
    const struct scenario *orig;   /* as given (a random rank stays random for rate_per_hour faults) */
    const struct backend_ops *ops;
    const char *exe;               /* this program, re-executed as each worker */
    const struct sup_hooks *hooks[SUP_MAX_HOOKS];
    int n_hooks;
    struct resilience *fl;         /* owned by resilience/ */
    struct sup_link *ln;           /* owned by cluster/ */
    struct sup_run *rn;            /* owned by run/ */
    struct shm shm;
    struct results res;
    struct power_source *ps;
    int nranks, nslots;
    pid_t *pid;                    /* per slot */
    int *alive, *ready, *expect_exit;
    int *deathfd;                  /* per slot, two: the read ends of two pipes only the worker writes to (-1: none;
                                    * slot k's are [2k] and [2k + 1]); one ends (or says how) the moment the worker
                                    * dies, before the process is gone (deathnote.h: why two) */
    uint64_t *death_ns;            /* per slot: when the pipe said so (0: not yet); the reap follows */
    uint64_t *spawn_ns;            /* per slot: when its worker was started */
    uint64_t *ready_of;            /* per slot: the spawn_ns of the last worker that said it was ready (kept past its
                                    * death: ready[] is cleared at the reap) */
    uint64_t *kill_ns;             /* per slot: when its worker was first sent SIGKILL (0: not yet) */
    int *cmd_stuck;                /* per slot: its worker took no command from its full ring for the heartbeat timeout
                                    * (the run failed so): nothing more is waited for there; cleared at a spawn */
    int *death_unasked;            /* per slot: that death was a failure (worker_died): the reap records its ending */
    int *slot_of;                  /* rank -> slot */
    int *dropped;                  /* per rank: removed by shrink */
    int64_t check_cap;             /* shm checked_done goes no further (a failure found, not yet acted on: the replicas
                                    * from before it must stay); INT64_MAX: no cap */
    int64_t *done_seen;            /* per rank: iterations it ended, as its drained events say (shm checked_done: the
                                      least over the ranks still in the run) */
    double *watts;                 /* last sample per rank */
    double *energy_j;              /* last energy counter reading per rank (NAN: none) */
    double *true_w;                /* a modelled backend: the electrical power behind the last reading per rank */
    uint64_t *sample_ns;           /* the last reading's own time per rank where its source stamps it (0: not) */
    /* the supervisor's own lateness: a check of the heartbeats that comes much later than its loop's 10 ms was itself
     * descheduled, and the silence a worker shows over that stall is not the worker's (sup_check_heartbeats) */
    uint64_t hb_prev_ns;           /* the previous check */
    uint64_t late_total_ns;        /* every stall so far, summed */
    uint64_t *late_t, *late_cum;   /* SUP_STALLS ring: when each stall ended, and late_total_ns after it */
    int late_n, late_next;
    int sigfd, timerfd;
    int run, running;
    struct run_stats rs;
    int failed, stopping, signals;
    int stop_signo;                /* the first SIGINT/SIGTERM/SIGHUP received (0: none): a worker that died of it was
                                    * ended with the job, not crashed */
    int io_failed;                 /* the run ended on a results file that could not be written (exit 3) */
    char reason[512];
    int ckpt_lock_fd;              /* the flock that says this run is alive to checkpoint sweeps (-1: none) */
    const char *stop;              /* why the run ended, as a code (summary.json "stop"; SUP_STOP_*): first wins */
    uint64_t t0, run_t0;
    uint64_t samples;
    uint64_t evt_dropped_gone;      /* events the rings of replaced worker processes dropped (their rings start anew) */
    uint64_t *evt_dropped_said;    /* per slot: the drops of its ring said so far (sup_drain says each new one) */
    uint64_t *end_lost_ns;         /* per rank: since when it has sat idle in the run with nothing left to read and
                                    * its end not received (0: not so; sup_check_ends) */
    int recovering;                /* a recovery is under way (set by resilience/): no heartbeat is judged */
    uint32_t epoch;                /* the recovery epoch: a new one at every run start and every recovery; every
                                    * command carries it */
    int node, nodes;
    /* the iteration boundaries every rank shares (the live view's pause and skip) */
    int paused;                    /* workers wait at shm pause_at */
    int skipping;                  /* the run in progress was told to stop: the next mitigation follows */
    unsigned disturbed;            /* SUP_DISTURBED_*: what was done by hand to the run in progress */
};

/* A run disturbed by hand: its figures are not the mitigation's alone (summary.json's runs[].disturbed). */
enum { SUP_DISTURBED_PAUSED = 1u, SUP_DISTURBED_FAULT = 2u, SUP_DISTURBED_SKIPPED = 4u };

enum { SUP_BND_PAUSE = 1, SUP_BND_RESUME, SUP_BND_SKIP };

/* Calls member with args (in parentheses, s first) of every hook that has it, in list order. */
#define SUP_HOOKS(s, member, args)                              \
    do {                                                        \
        for (int hook_i_ = 0; hook_i_ < (s)->n_hooks; hook_i_++) \
            if ((s)->hooks[hook_i_]->member)                    \
                (s)->hooks[hook_i_]->member args;               \
    } while (0)

/* supevents.c */
/* Drains every worker's event ring (events.jsonl, the run's figures; the hooks' reports). */
void sup_drain(struct sup *s);
/* Reaps every worker that exited: expected, or a failure (a detection by `exit`, through the hooks). */
void sup_reap(struct sup *s);
/* Reads the death pipe of slot (readable or hung up): the worker's last word (a fatal signal, an exit code) or its
 * silence (SIGKILL): a death seen now, before the process has finished ending, handled as the reap would. */
void sup_death_pipe(struct sup *s, int slot);
/* What the kernel says of a process that has not ended (for a worker killed and still there): its /proc state and
 * the kernel function it waits in, e.g. "state D (uninterruptible sleep: ...), waiting in __refrigerator". */
void sup_proc_describe(pid_t pid, char *buf, size_t n);
/* 1 when the process has begun to exit (the kernel's PF_EXITING in /proc/PID/stat's flags: a SIGKILL taken, its
 * memory being taken down; a zombie too), 0 when it has not or cannot be read. A killed worker that has not begun is
 * stuck in a kernel call (a driver, a filesystem); one that has will end, later on a loaded machine. */
#define SUP_PF_EXITING 0x4ul
int sup_proc_exiting(pid_t pid);
/* SIGKILLs the worker of slot, expecting its exit; the first kill's time is kept (kill_ns). */
void sup_kill(struct sup *s, int slot);
/* Why workers are not yet stopped (rec_host busy): the first of them, in words, into why. */
void sup_busy_why(struct sup *s, uint64_t now, char *why, size_t n);

/* supervisor.c */
/* Why a run ended, as summary.json's "stop" says it (docs/results.md lists them): a campaign and a script judge by
 * these, never by the words of "stopped". */
#define SUP_STOP_COMPLETED "completed"               /* every iteration of every run ran */
#define SUP_STOP_SIGNAL "signal"                     /* SIGINT/SIGTERM/SIGHUP: stopped, summary written */
#define SUP_STOP_VIEW "view"                         /* stopped from the live view */
#define SUP_STOP_START "start_failed"                /* the workers did not start */
#define SUP_STOP_WORKER_ERROR "worker_error"         /* a worker reported an error it cannot go on from */
#define SUP_STOP_WORKER_DIED "worker_died"           /* a worker or spare died outside a run's recovery */
#define SUP_STOP_HANG "hang"                         /* a worker hung outside a run's recovery */
#define SUP_STOP_WORKER_STUCK "worker_stuck"         /* a worker took no command (its ring full) */
#define SUP_STOP_FAULT "fault"                       /* a failure detected under recovery none */
#define SUP_STOP_RECOVERY_FAILED "recovery_failed"   /* a recovery could not complete */
#define SUP_STOP_RECOVERY_FUTILE "recovery_futile"   /* recoveries in a row with no iteration completed: gave up */
#define SUP_STOP_SHRINK_EXHAUSTED "shrink_exhausted" /* shrink removed the last rank there was */
#define SUP_STOP_MITIGATION "mitigation_failed"      /* a mitigation could not be applied */
#define SUP_STOP_NODE "node_failed"                  /* another node failed, or a node was lost */
#define SUP_STOP_RESULTS "results_write"             /* a results file could not be written (exit 3) */
#define SUP_STOP_ENVIRONMENT "environment"           /* the machine's fault: no device, a checkpoint write (exit 3) */

/* Records that the run failed (the first reason and code win) and tells every worker to give up at once. */
void sup_fail(struct sup *s, const char *stop, const char *reason);
/* The run's stop code for its exit code: the first recorded, else completed (exit 0), results_write (exit 3 on a
 * results file) or failed. */
const char *sup_stop_code(const struct sup *s, int code);
/* How long the worker of slot may be silent before it is hung: heartbeat.startup while it starts, heartbeat.checkpoint
 * while it writes a synchronous checkpoint (a write and an fsync cannot beat), else heartbeat.timeout. */
double sup_silence_limit(struct sup *s, int slot);
/* Waits for one wake (a signal, a sampling tick, or 10 ms to drain the rings) and handles it. */
void sup_step(struct sup *s);
int sup_spawn(struct sup *s, int slot);
void sup_send(struct sup *s, int slot, const struct wcmd *cmd);
/* Sends cmd to every rank still in the run. */
void sup_command(struct sup *s, const struct wcmd *cmd);
/* Waits until every live slot's backend is ready; 0, or -1 when the run failed or was stopped meanwhile. */
int sup_wait_ready(struct sup *s, double timeout_s);
/* Stops every worker: EXIT, then SIGKILL after SUP_EXIT_CMD_WAIT_S (a worker ignores SIGTERM: sup_spawn); reaps them
 * all. A worker still there SUP_KILL_WAIT_S after its SIGKILL (a process in uninterruptible sleep: a stuck
 * filesystem, a driver call) is left behind, said (event worker_not_ended, its /proc state) and the run fails (stop
 * "environment", exit 3): the summary is written all the same. */
#define SUP_EXIT_CMD_WAIT_S 2.0
#define SUP_KILL_WAIT_S 10.0
/* ... unless it has begun to exit (sup_proc_exiting): then up to this long, as the recovery waiting for it (taking a
 * worker's memory down took over 5 s on a 2-core machine beside other work, 2026-11-27). */
#define SUP_EXIT_WAIT_S 120.0
void sup_stop_workers(struct sup *s);
/* The signalfd and the sampling timer; 0 or -1. */
int sup_fds(struct sup *s);
/* The per-slot and per-rank arrays, for nslots and nranks. */
void sup_alloc(struct sup *s);
/* Every rank starts (again) at iteration at: what the supervisor has checked starts there (shm checked_done). */
void sup_checked_reset(struct sup *s, int64_t at);
/* Rank ended iteration iter (its event drained). */
void sup_checked(struct sup *s, int rank, int64_t iter);
/* Frees what sup_alloc made and closes the descriptors; the signals stay blocked (supervisor_block_signals). */
void sup_free(struct sup *s);

/* supview.c: an iteration boundary every rank shares (shm.h): marks *at pending and returns the furthest
 * iteration this node's ranks reached; then pause (INT64_MAX: resume) or skip before iteration at. */
int64_t sup_pending_top(struct sup *s, _Atomic int64_t *at);
void sup_set_pause(struct sup *s, int64_t at);
void sup_set_skip(struct sup *s, int64_t at);

/* The signals the supervisor reads through its signalfd (supervisor_block_signals blocks them). */
sigset_t sup_sigset(void);
extern sigset_t sup_oldmask;   /* the signal mask before supervisor_block_signals, restored in each worker */
extern int sup_first_stop_signo;   /* the first stop signal any run of this process read (0: none) */

#endif
