/* harness/run/metrics_int.h: what metrics.c (the view, the server) and metrics_render.c (the text a scrape gets)
 * share. Not a public API. */
#ifndef GAUNTLET_METRICS_INT_H
#define GAUNTLET_METRICS_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "view.h"

struct MHD_Daemon;

#define MX_WINDOW 3000          /* summed power points kept for the swing (30 s at 100 Hz) */
#define MX_ITERS 64             /* iteration durations kept for the window's period */
#define MX_KINDS 16             /* fault kinds, detectors, recoveries: names kept */
#define MX_TEXT_EVERY_NS 1000000000ull

struct mx_count { char name[32]; unsigned long long n; };

struct mx_rank {
    double watts, watts_t, iter_s, tflops, busbw;   /* watts_t: its reading's t_s */
    int phase, open_phase;      /* open_phase: the phase its open_t is of (an events.jsonl name's index) */
    long long iters;            /* iteration records this run (a counter: a rollback's redone iterations count again) */
    double open_t;              /* the open compute or comm phase's start (events' t_s) */
    struct an_stamps *stamps;   /* its readings' sample times, where its sensor stamps them (NULL: none yet) */
    char gpu[48];
};

struct metrics {
    struct view_link link;
    const struct view_link *inner;
    pthread_mutex_t mu;
    int ranks, world, per_node, run, runs;
    int bus_ranks;              /* n of busbw's 2(n-1)/n: workload.allreduce.emulate_ranks where set (start event) */
    double tick_t;              /* the power tick whose rows are coming in (NAN: none) */
    int undone[MX_KINDS], nundone;   /* fault_spec of faults a rollback undid: their next injection is not a new one */
    int cluster_fed;            /* forward: nodes: the window holds the cluster's sum on node 0's grid */
    char mitigation[32], label[64];
    char *extra;                /* lines the caller adds to every scrape (accept: the verdicts so far) */
    struct mx_rank *r;
    double win[MX_WINDOW], dt_s; /* the summed power, a ring */
    int win_n, win_at;
    double iter_ring[MX_ITERS];  /* the run's latest iteration durations, any rank's: its period is their median */
    int iter_n, iter_at;
    struct mx_count faults[MX_KINDS], dets[MX_KINDS], recs[MX_KINDS];
    char textdir[512];
    uint64_t text_ns;
    struct MHD_Daemon *mhd;     /* with libmicrohttpd: the server (NULL: none) */
};

struct mx_buf { char *s; size_t len, cap; };

/* Appends to b, growing it. */
__attribute__((format(printf, 2, 3))) void mx_put(struct mx_buf *b, const char *fmt, ...);
/* The metrics as a scrape reads them: OpenMetrics (om) or Prometheus text 0.0.4; extra: the caller's lines too. */
void mx_render(struct metrics *m, struct mx_buf *b, int om, int extra);

#endif
