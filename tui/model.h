/* tui/model.h: what the live view shows, built from the run's telemetry alone — the events.jsonl lines and
 * power rows the supervisor writes — so that a live run and a replay (`gauntlet view RUNDIR`) fill it through
 * the same two calls. Pure: no I/O, no terminal; the drawing code reads it, the tests assert on it. */
#ifndef GAUNTLET_TUI_MODEL_H
#define GAUNTLET_TUI_MODEL_H

#include <jansson.h>
#include <stdint.h>

struct an_stamps;

#define VM_BIN_S 0.1        /* power history resolution */
#define VM_BINS 6000        /* 10 min of aggregate history */
#define VM_RANK_BINS 3000   /* 5 min per GPU */
#define VM_RAW 16384        /* raw aggregate samples for the live measurements (16 s at 1 kHz) */
#define VM_SPANS 128        /* phase spans kept per rank */
#define VM_LOG 512          /* event log lines */
#define VM_ITERS 512        /* iteration durations kept (their p50 and p99) */
#define VM_RATE_BINS 1024   /* iterations completed per VM_BIN_S bin, for the rate (102 s) */
#define VM_RUNS 64          /* finished runs in the comparison table */
#define VM_MAX_RANKS 1024

enum vm_phase { VP_IDLE = 0, VP_COMPUTE, VP_COMM, VP_CKPT, VP_FILLER, VP_COUNT };
enum vm_state { VS_STARTING = 0, VS_RUNNING, VS_PAUSED, VS_RECOVERING, VS_STOPPING, VS_FINISHED };
enum vm_sev { LOG_INFO = 0, LOG_FAULT, LOG_DETECT, LOG_RECOVER, LOG_WARN };

struct vm_bin { int64_t no; float min, max, sum; uint32_t n; };   /* no: the bin's number, t / VM_BIN_S */
struct vm_span { double t0, t1; int phase; };   /* t1 < 0: still open */
struct vm_log { double t; int sev; char text[512]; };   /* the whole line, cut when drawn (by the screen's width);
                                                         * until 2026-11-30 160 bytes, cut whatever the width */

struct vm_rank {
    double watts, clock_mhz, temp_c;   /* last sample (NAN: not measured) */
    double watts_t;                    /* when it was taken */
    uint64_t throttle;
    int64_t iter;                      /* iterations completed in the current run */
    int phase;                         /* enum vm_phase now */
    int dropped;
    char device[64];
    struct vm_span span[VM_SPANS];
    unsigned nspan;                    /* spans ever added (the ring holds the last VM_SPANS) */
    struct vm_bin bin[VM_RANK_BINS];   /* ring indexed by absolute bin number % VM_RANK_BINS */
    struct an_stamps *stamps;          /* its sensor's sample times (vm_power_stamp; NULL: none seen) */
};

/* One finished run, as the run_end event carries it. */
struct vm_run {
    char label[48];
    char shape[32];   /* workload.shapes: the shape it ran on ("" where the run has one) */
    int none;         /* a `none` run: its shape's baseline */
    int complete, skipped;
    int disturbed;   /* by hand: paused, a fault from the view, skipped (not the mitigation's alone) */
    int64_t iterations;
    double iter_p50_s, mean_w, swing_w, ramp_w_s, energy_j, tflops;
    double efficiency;      /* energy_efficiency against the none before it (NAN: none, or nothing to figure) */
    double throughput_it_s;   /* iterations per second over the run, waits included: what time paid compares */
    /* against its none as summary.json has it (run_end's figures.vs_none; NAN: not given, an older record):
     * -swing_reduction_pct, energy_overhead_pct, iteration_overhead_pct */
    double vs_swing_pct, vs_energy_pct, vs_time_pct;
};

struct vm_measure {
    double t;                          /* when computed (model time) */
    double swing_w, swing_pct_tdp;     /* p99 - p1 of the aggregate over the last measure window */
    double ramp_w_s;                   /* largest |rise or fall| over 100 ms in that window */
    double dominant_hz;
    double iter_p50_s, iter_p99_s, it_per_s;
    double tflops, busbw_gbs;          /* per GPU; nccl-tests bus bandwidth */
    double sensor_ms;                  /* how often the aggregate's readings change when they are held (NAN: not) */
};

struct vm {
    /* from the start event */
    char scenario[64], backend[16], results[256], recovery[32];
    int nranks, runs, bus_ranks, nodes;
    int per_node;                      /* the start's ranks (each node's; 0: not said) */
    int64_t gpus;                      /* every node's GPUs, as the start says (nranks: those the view holds, at most
                                        * VM_MAX_RANKS: the first of them) */
    int64_t iterations;
    double tdp_w, sample_hz;
    double fresh_s;                    /* how old a rank's reading may be and still join a tick's sum: two of the
                                        * periods its rows come at (forward: ranks on several nodes: the others'
                                        * come at power.forward_hz); 0: not said */
    /* now */
    double t_now;                      /* the latest time seen (s since start) */
    int state;                         /* enum vm_state */
    int paused;                        /* a pause is set (paused .. resumed), whatever the state: a recovery may run
                                        * under it and ends into it */
    int64_t pause_before;              /* paused: the iteration every rank stops before */
    long pause_answers;                /* the supervisor's answers to pauses: paused, resumed, a pause refused */
    int run;                           /* index of the current (or last) run, -1 before the first */
    int run_over;                      /* the current run has ended (its run_end, or the end): no run_begin since */
    char run_label[48];
    double run_t0, floor_w, cap_w;     /* per GPU levels of the current mitigation (0: none) */
    int exit_code;                     /* after the end event, else -1 */
    struct vm_rank *rank;              /* [nranks] */
    /* aggregate power */
    struct vm_bin bin[VM_BINS];        /* ring by bin number */
    double tick_t;                     /* the sample tick being read */
    double raw_t[VM_RAW], raw_w[VM_RAW];
    uint64_t nraw;
    /* iterations, phases */
    double iter_s[VM_ITERS];
    uint64_t niter;
    struct { int64_t no; double n; } rate_bin[VM_RATE_BINS];   /* rank-iterations completed per bin, this run: a
                                        * forward: nodes line counts once per rank of its node */
    int run_iters;                     /* iterations seen this run (0: the rate is not measured yet) */
    double flops[64], flops_s[64];     /* the last GEMM phases' flops and seconds: the rate is their sums' quotient, as
                                        * summary.json's (until 2026-11-30 the mean of their rates: a straggler's slow
                                        * phases weighed as little as a fast one's) */
    double bus_rate[64];               /* recent communication phases' bus bandwidths */
    int stepped;                       /* a phase carried its bus bytes (workload.phases): no other factor applies */
    uint64_t nflops, nbus;
    /* log and runs */
    struct vm_log log[VM_LOG];
    uint64_t nlog;
    struct vm_run runrow[VM_RUNS];
    int nruns;
    int runs_past;                     /* runs that ended past the table's VM_RUNS */
    int faults, detections, false_positives, recoveries;   /* faults: injected, less those a rollback undid (each
                                        * fires again and counts then), as summary.json's; observed ones too;
                                        * recoveries: completed (recovery_end), not faults recovered */
    uint64_t events, samples, dropped;  /* dropped: lines the view could not take (full queue) */
    int cluster_fed;                   /* forward: nodes: the aggregate is the cluster's sum on node 0's grid
                                        * (vm_cluster_power), not the ranks' readings summed per tick */
    struct vm_measure m;
};

/* A zeroed model; vm_free releases it. */
struct vm *vm_new(void);
void vm_free(struct vm *m);
/* Takes one events.jsonl record (an object with t_s and event). Returns 0, or -1 for a record it cannot read. */
int vm_event(struct vm *m, json_t *ev);
/* Parses and takes one events.jsonl line. */
int vm_event_line(struct vm *m, const char *line, size_t len);
/* model.c: makes room for the first n ranks (at most VM_MAX_RANKS), new ones with no reading yet. */
void vm_ranks(struct vm *m, int n);
/* Takes one power sample of rank at t_s (NAN: missing); phase as power.csv names it. */
void vm_power(struct vm *m, double t_s, int rank, double watts, double clock_mhz, double temp_c, uint64_t throttle);
/* The time (ns, any origin; 0: none) the rank's reading stands for, where its source stamps it (the driver's sample
 * buffer, the sim's sensor): its sensor's update interval, which the live figures are analysed with, as the summary's. */
void vm_power_stamp(struct vm *m, int rank, int64_t sample_ns);
/* forward: nodes: another node's summed power over its cell from t_s: each of its ranks shows the node's mean GPU. */
void vm_node_power(struct vm *m, double t_s, int node, double watts, int gpus);
/* forward: nodes: the cluster's summed power over the cell from t_s (every node in it: whole) — the aggregate. */
void vm_cluster_power(struct vm *m, double t_s, double watts, int whole);
/* Adds a line to the log (also used for the harness's own messages). */
void vm_log(struct vm *m, double t, int sev, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Recomputes the measurements over the last window_s seconds ending at t_now. */
void vm_measure(struct vm *m, double window_s);
/* Reads the aggregate bin covering [t, t + VM_BIN_S): 1 when it holds samples. */
int vm_agg_bin(const struct vm *m, double t, struct vm_bin *out);
/* Same for one rank. */
int vm_rank_bin(const struct vm *m, int rank, double t, struct vm_bin *out);
/* The phase rank was in at time t (VP_IDLE when unknown); filler when the run keeps a power floor. */
int vm_phase_at(const struct vm *m, int rank, double t);
/* The aggregate's name for the chart's title: "node (N GPUs)", or on several nodes "cluster (N GPUs on K nodes)"
 * (", nodes' sums" when it is the cluster's sum on node 0's grid). Returns buf. */
const char *vm_power_title(const struct vm *m, int gpus, char *buf, size_t n);
/* The smallest iteration count over the ranks still in the run. */
int64_t vm_iter(const struct vm *m);
const char *vm_state_name(int state);
/* The state as the header shows it: "pausing" while paused and a rank has not yet reached the boundary. */
const char *vm_state_label(const struct vm *m);

#endif
