/* harness/run/metrics_int.h: what metrics.c (the view, the textfile), metrics_http.c (the server) and
 * metrics_render.c (the text a scrape gets) share. Not a public API. */
#ifndef GAUNTLET_METRICS_INT_H
#define GAUNTLET_METRICS_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

struct mx_http;

#define MX_WINDOW_S 30.0        /* the summed power's window: its last 30 s */
#define MX_WINDOW_MIN 16        /* points at the least (the analysis needs 16: 16 s at 1 Hz, the lowest rate) */
#define MX_WINDOW_MAX 65536     /* points at the most: 30 s up to 2184 Hz, less above (copied under the lock) */
#define MX_ITERS 64             /* iteration durations kept for the window's period */
#define MX_KINDS 16             /* fault kinds, detectors, recoveries: names kept */
#define MX_TEXT_EVERY_NS 1000000000ull
#define MX_RENDER_EVERY_NS 200000000ull   /* a scrape within 200 ms of the last render gets its text again */

struct mx_count { char name[32]; unsigned long long n; };

struct mx_rank {
    double watts, watts_t, iter_s, tflops, busbw;   /* watts_t: its reading's t_s */
    int phase, open_phase;      /* open_phase: the phase its open_t is of (an events.jsonl name's index) */
    long long iters;            /* iteration records this run (a counter: a rollback's redone iterations count again) */
    int dropped;                /* recovery: shrink dropped it: its iteration series are no longer exported (its GPU's
                                 * power and phase still are: it is still on the node, still sampled) */
    double open_t;              /* the open compute or comm phase's start (events' t_s) */
    double node_w;              /* forward: nodes, another node's rank: its node's summed power, last cell (NAN: none) */
    int node_gpus;              /* ... over this many of its GPUs */
    struct an_stamps *stamps;   /* its readings' sample times, where its sensor stamps them (NULL: none yet) */
    char gpu[48];
};

struct metrics {
    struct view_link link;
    const struct view_link *inner;
    pthread_mutex_t mu;
    int ranks, world, per_node, run, runs;
    int bus_ranks;              /* n of busbw's 2(n-1)/n: workload.allreduce.emulate_ranks where set (start event) */
    int stepped, plain;         /* comm ends seen with bus_bytes (workload.phases' steps), and an all-reduce's without */
    int ended;                  /* the run ended (its view stopped): the end state is exported until the next start */
    double end_utc_s;           /* when it ended, Unix time */
    double tick_t;              /* the power tick whose rows are coming in (NAN: none) */
    int undone[MX_KINDS], nundone;   /* fault_spec of faults a rollback undid: their next injection is not a new one */
    int cluster_fed;            /* forward: nodes: the window holds the cluster's sum on node 0's grid */
    double cell_s;              /* forward: ranks on several nodes: the window's points are cells of cell_s (the
                                 * rate the other nodes' rows reach node 0 at), each GPU's latest row (0: ticks) */
    int64_t cell;               /* the cell node 0's own rows are in (INT64_MIN: none yet) */
    char mitigation[32], label[64];
    char *extra;                /* lines the caller adds to every scrape (accept: the verdicts so far) */
    struct mx_rank *r;
    double *win, dt_s;          /* the summed power, a ring of win_cap points, dt_s apart */
    int win_cap, win_n, win_at;
    double iter_ring[MX_ITERS];  /* the run's latest iteration durations, any rank's: its period is their median */
    int iter_n, iter_at;
    struct mx_count faults[MX_KINDS], dets[MX_KINDS], recs[MX_KINDS];
    unsigned long long changed; /* bumped by every line and row: the textfile is rewritten only after one */
    char textdir[512];
    int text_lock;              /* DIR/gauntlet.prom.lock, flock'ed while the view is open: one run per folder (-1: none) */
    int text_wrote;             /* the textfile was written (by text_mu) */
    int text_err[8], text_nerr, text_failing;   /* the write errors said (each once), and whether the last write failed */
    pthread_mutex_t text_mu;    /* one writer of the textfile at a time (its temp file is per process) */
    pthread_t chores;           /* the textfile every second and the server's overdue connections (chores_on) */
    pthread_mutex_t chores_mu;
    pthread_cond_t chores_cv;
    int chores_on, chores_stop, made;   /* made: the locks and the condition made (metrics_view_open) */
    struct mx_http *http;       /* with libmicrohttpd: the server (NULL: none) */
    _Atomic unsigned long long renders;   /* scrapes rendered anew (the others got the last render's text) */
};

/* A copy of what a render reads, taken under the lock: the analysis and the text come after it is let go (the
 * supervisor's sampler waits on that lock with every power row). */
struct mx_snap {
    int ranks, per_node, run, runs, win_n, ended;
    double end_utc_s;
    double dt_s, update_s, period_s;   /* the window's step, its sensor's update interval, the iterations' period */
    char mitigation[32], label[64];
    struct mx_rank *r;          /* stamps NULL */
    double *x;                  /* the window, oldest first */
    struct mx_count faults[MX_KINDS], dets[MX_KINDS], recs[MX_KINDS];
    char *extra;                /* NULL: none, or not asked for */
};

struct mx_buf { char *s; size_t len, cap; };

/* Appends to b, growing it. */
__attribute__((format(printf, 2, 3))) void mx_put(struct mx_buf *b, const char *fmt, ...);
/* Copies m's figures into s, under m's lock (the caller's lines too where extra); free it with mx_snap_free. */
void mx_snap_take(struct metrics *m, struct mx_snap *s, int extra);
void mx_snap_free(struct mx_snap *s);
/* The metrics as a scrape reads them: OpenMetrics (om) or Prometheus text 0.0.4, from a snapshot (no lock held). */
void mx_render(const struct mx_snap *s, struct mx_buf *b, int om);
/* Renders m into b (a snapshot, then the text): what the textfile and a scrape get. */
void mx_render_now(struct metrics *m, struct mx_buf *b, int om, int extra);

/* metrics_http.c: starts the server at listen (ADDR:PORT) serving m: 0, or -1 with why. */
int mx_http_start(struct metrics *m, const char *listen, char *why, size_t n);
/* Stops it (none: nothing). */
void mx_http_stop(struct metrics *m);
/* Drops the connections that have taken too long (the chores' thread, every second). */
void mx_http_sweep(struct metrics *m);
/* Makes the next scrape render anew (the caller's lines changed). */
void mx_http_stale(struct metrics *m);

/* metrics_window.c (m->mu held): a point of the summed power into the window (none before a start sized it); the
 * window sized for points every dt_s (its last MX_WINDOW_S), emptied; a missing point for each tick the sampler
 * missed between its ticks at from_s and to_s. */
void mx_push(struct metrics *m, double watts);
void mx_window(struct metrics *m, double dt_s);
void mx_push_missed(struct metrics *m, double from_s, double to_s);

#endif
