/* harness/analysis/summarize_int.h: what `gauntlet summarize` reads from a run's record (summarize_read.c) and
 * writes as its summary (summarize.c). */
#ifndef GAUNTLET_SUMMARIZE_INT_H
#define GAUNTLET_SUMMARIZE_INT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze.h"
#include "stats.h"

#define SZ_LINE_MAX (1 << 20)            /* the longest line of events.jsonl read: a run's lines are far shorter */
#define SZ_WORLD_MAX (4096 * 1024)       /* ranks x nodes: the most a scenario can ask (4096 ranks on 1024 nodes) */
#define SZ_RANKS_FREE 4096               /* ranks below this may speak in any order */
#define SZ_RANKS_PER_EVENT 16            /* past it, a rank at most this many times the ranks' events read so far */
#define SZ_NODES_MAX 8192                /* a scenario's most nodes (ranks x nodes within SZ_WORLD_MAX all the same) */
#define SZ_RUN_MAX 31                    /* the highest run index taken ("run"): a scenario holds at most 32 runs
                                         * (SC_MAX_MITIGATIONS; until 2026-12-02 65535 were taken, and 65,536 runs of
                                         * 4,194,304 ranks were walked for minutes) */
#define SZ_ITER_MAX 1000000000           /* the highest iteration index taken ("iter"): scenario's iterations */
#define SZ_TIME_MAX 1e9                  /* |t_s| at most (s): 31 years; as ns, an int64 */

/* One rank in one mitigation run. */
struct sz_rank {
    int64_t done;          /* iterations completed (the last iter + 1: a rollback's redone ones count again) */
    int spoke;             /* an iteration event of its own (forward: ranks, or node 0's) */
    int since;             /* an iteration line since its node's last recovery_begin (the new timeline's) */
    double flops, compute_s;
    struct series rate;    /* each compute phase's FLOPs over its time (TFLOP/s): their median is ranks[].tflops */
    double comm_t;         /* the open communication phase's start (NAN: none open) */
};

/* What one mitigation run left in events.jsonl. */
struct sz_run {
    json_t *begin, *end;       /* its run_begin and run_end events (end NULL: it did not end; node 0's where it has
                                * one: end_zero) */
    int end_zero;
    struct series iter_s;      /* every rank's iteration durations */
    struct series comm_s;      /* each communication phase's time (s), and the bytes of the last (as live: the bus */
    double comm_bytes;         /* bandwidth is the bytes over the median time, not the median of each one's rate) */
    struct series bus_gbs;     /* each step of phases that ran alone: its bus bytes over its time (GB/s), as live */
    struct sz_rank *rk;        /* per rank, as far as the highest rank seen (allocated: nrk; seen: top) */
    size_t nrk, top;
    int64_t *node_done;        /* per node: its node_iteration lines' last iter + 1 (forward: nodes; nnode of them) */
    unsigned char *node_since; /* and a node_iteration line since the node's last recovery_begin */
    size_t nnode, node_top;    /* allocated; the highest node that said its count + 1 */
    double flops, compute_s;   /* summed over ranks */
    double t0_s, t1_s;
};

/* The record of a run as events.jsonl gives it. */
struct sz_record {
    struct sz_run *runs;       /* runs[0..nruns): run i's; begin NULL where none began */
    size_t nruns;
    json_t *start, *faults;    /* node 0's start event; the fault, detection and recovery events */
    double clock_uncert_s;     /* the largest clock_uncertainty_s of any node's start event (NAN: none said) */
    int ended;                 /* node 0's end event */
    int64_t *drop_run;         /* per rank: the run shrink dropped it in (INT64_MAX: never; ndrop of them) */
    size_t ndrop;              /* allocated */
    size_t ndropped;           /* the ranks dropped (each once) */
    char end_reason[640];      /* node 0's end line's reason ("" where none): a run that never began says why there */
    int64_t world;             /* ranks x nodes of the start event (0: no start event) */
    double *open_t;            /* per rank: the open compute phase's start (NAN: none open) */
    size_t nopen;
    int64_t rank_events;       /* the ranks' events read so far (what the per-rank records may grow with) */
    int64_t max_rank;          /* the highest rank an event named, and its line */
    long max_rank_line;
    long orphans, orphan_line; /* events of a run that never began (no run_begin), and the first one's line */
};

/* Opens path to read when it is a regular file. NULL with *missing set when it does not exist; NULL with msg (the
 * exit code in *rc) when it cannot be read or is no regular file (a FIFO would block, a device never end). */
FILE *sz_open(const char *path, int *missing, int *rc, char *msg, size_t n);
/* Finds where the whole lines of fd end: *size its bytes, *content past its last byte that is not NUL (what follows:
 * a crash's padding), *whole past the last newline up to there (what follows: a line cut short by a kill). 0, or -1
 * with errno. */
int sz_tail(int fd, int64_t *size, int64_t *whole, int64_t *content);
/* Reads dir/events.jsonl into z. 0, or the exit code with msg saying why (file:line and key for a bad line). */
int sz_events(const char *dir, struct sz_record *z, char *msg, size_t n);
void sz_record_free(struct sz_record *z);
/* Loads dir/power.csv as a trace, its whole rows only (a row cut short and NUL bytes at its end are left out, and
 * said); *tr NULL with note saying why when there is no usable power. 0, or the exit code with msg. */
int sz_power(const char *dir, struct az_trace **tr, char *note, size_t noten, char *msg, size_t n);

#endif
