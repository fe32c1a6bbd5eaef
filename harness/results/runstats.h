/* harness/results/runstats.h: what the supervisor measures during one mitigation run, filled from worker events and
 * power samples, and turned into the run's object in summary.json. */
#ifndef GAUNTLET_RUNSTATS_H
#define GAUNTLET_RUNSTATS_H

#include <jansson.h>
#include <stdint.h>

#include "shm.h"
#include "stats.h"

struct rank_stats {
    uint64_t open_t[PH_COUNT];   /* begin time of each phase in progress */
    double compute_s, flops;     /* totals over the run */
    struct series rate;          /* each compute phase's TFLOP/s (its median is the rank's rate: a phase the machine
                                  * descheduled does not make a GPU an outlier) */
    struct series comm_s;        /* all-reduce phase durations */
    int64_t begun_iter;          /* 1 + the iteration whose first compute phase was seen (0: none) */
    struct series cbegin;        /* its iterations' first compute-phase starts, s since the run's start (the sensor's
                                  * lag is measured against these known steps) */
    struct series bus_gbs;       /* workload.phases: each communication step's own bus bandwidth, GB/s */
    double comm_bytes;
    double ckpt_s, ckpt_bytes;       /* writes: sync in the phase, async in the background */
    double ckpt_stall_s;             /* time the rank stood still for its checkpoints */
    int ckpts;
    int64_t iters;               /* iterations completed */
    uint64_t cend_t;             /* the end of its last compute phase (0: none yet) */
    uint64_t iter_end;           /* the end of its last iteration (0: none yet) */
    struct series gap_s;         /* each gap: from a compute phase's end to the next compute phase's start */
    int done;
    int dropped;                 /* shrink removed it: its count and state stopped where it left */
    int stopped;                 /* ended early at the skip boundary (the live view's `m`) */
    uint64_t fingerprint;        /* hash of the model state at the end of the run */
    int64_t sdc_checks[8];       /* per silent-corruption detector (enum detector_id): the checks of this rank that
                                  * compared something this run (resilience: faultlog_ranks_json writes them) */
    struct acc power;
    struct an_stamps *stamps;    /* its readings' stamps (NULL: its source stamps none) */
};

#define RS_SPREAD_ROWS 64

struct run_stats {
    /* the power trace of the run: tick times (ns since t_begin) and each rank's watts (NAN where missing) */
    int64_t *tick_ns;
    double **tick_w;
    double **tick_true;          /* a modelled backend: each rank's electrical power at the tick (NULL: none given) */
    size_t nticks, cap_ticks;
    double sample_hz;            /* the rate asked for */
    /* each rank's energy counter over the analysed stretch (from the end of the first iteration): its first and last
     * changes seen (the readings that differ from the one before: read as soon after its update as the sampler gets)
     * and their times, and the changes after the first; NAN where the source has no counter. Until 2026-11-30 the
     * first and last readings, each up to an update (~100 ms) after the counter's, over as little as 0.1 s */
    double *e_first, *e_last;
    int64_t *e_first_ns, *e_last_ns;
    long *e_changes;
    /* spread of compute-phase starts across ranks, per iteration */
    int64_t spread_iter[RS_SPREAD_ROWS];
    uint64_t *spread_t;          /* [RS_SPREAD_ROWS][nranks] */
    int *spread_n;
    struct series spread_s;      /* each complete iteration: the variance (n - 1) of its ranks' compute-phase starts,
                                  * less each rank's deliberate delay (delay_s) */
    double *delay_s;             /* per rank: the delay the run's mitigation puts before its compute phases (a
                                  * stagger's), in wall seconds; NULL: none */
    struct series iter_begin;    /* rank 0's compute-phase starts (s since the run's start), for the waveform */
    int mitigation;
    int nranks;
    int64_t planned;
    uint64_t t_begin, t_end;
    uint64_t stamp_t0_ns;        /* the record's t_s = 0 (results' t0_ns): each tick is kept at the microsecond
                                  * power.csv writes it at (results_stamp_ns), the time `summarize` places it by */
    uint64_t settle_ns;          /* the power's settling time after the run begins (power.settle) */
    uint64_t warm_ns;            /* the end of the first iteration that ends once the power has settled: the power
                                  * analysis, the energy and the throughput start there */
    int64_t warm_iter;           /* iterations completed by then */
    uint64_t first_ns;           /* the end of the run's first iteration (the warm-up when the run never settled) */
    int unsettled;               /* the run ended before its power settled: analysed from its first iteration */
    struct series iter_s;        /* every rank's iteration durations */
    struct acc power;            /* aggregate: sum of ranks per sample */
    struct rank_stats *rank;
};

/* settle_s: the power's settling time after the run begins; the analysis starts at the first iteration end past it. */
void runstats_init(struct run_stats *rs, int mitigation, int nranks, int64_t planned, uint64_t t_begin, double sample_hz,
                   double settle_s);
/* Each rank's deliberate delay before its compute phases (a stagger; wall seconds, nranks of them, copied): the
 * phase spread the projection draws its jitter from is what is left without it. */
void runstats_set_delays(struct run_stats *rs, const double *delay_s);
/* The ranks' natural jitter: the root of the mean variance of their compute-phase starts in an iteration, each less its
 * deliberate delay (NAN: no iteration of 2 ranks or more seen). */
double runstats_phase_spread(const struct run_stats *rs);
/* Folds one worker event into the run (phase durations, iterations, end of run). */
void runstats_event(struct run_stats *rs, const struct wevent *ev);
/* Adds one sampling tick at t_ns: per-rank watts and energy counters in J (NAN where missing; energy may be
 * NULL), on a modelled backend the electrical power behind each reading (true_w; NULL: none), and each reading's own
 * time where its source stamps it (sample_ns, 0 where not; NULL: none does). */
void runstats_power(struct run_stats *rs, uint64_t t_ns, const double *watts, const double *energy_j,
                    const double *true_w, const uint64_t *sample_ns);
/* The counter's updates a figure from it needs: each read up to an update late at either end, over 20 it is right to
 * 5 % (the cross-check's bound); about 2 s of an NVML counter updated every 100 ms. */
#define RS_COUNTER_UPDATES 20
/* The ranks' summed mean power from their energy counters over the analysed stretch (between each one's first and
 * last change); NAN where a rank has none, it went back, or it changed fewer than RS_COUNTER_UPDATES times. */
double runstats_counter_w(const struct run_stats *rs);
/* Returns 1 when every rank reported the end of the run. */
int runstats_done(const struct run_stats *rs);
/* Returns 1 when every rank is done or stopped. */
int runstats_settled(const struct run_stats *rs);
/* Returns the iterations every rank still in the run completed (shrink's dropped ranks left out; where it left
 * none, the most any rank completed). */
int64_t runstats_iterations(const struct run_stats *rs);
/* The first rank still in the run (0 where shrink left none): whose state the run's state_fingerprint is. */
int runstats_first_kept(const struct run_stats *rs);
struct scenario;
/* Builds the run's summary object, the power analysis included; busbw uses 2(n-1)/n over bus_ranks ranks;
 * tdp_w (NAN: unknown) scales swings to % of TDP. */
json_t *runstats_json(struct run_stats *rs, const struct scenario *sc, const char *mitigation, int bus_ranks, double tdp_w);
void runstats_free(struct run_stats *rs);

/* The stretch of a run's power that its analysis covers (after the warm-up, to the end of its last iteration), kept
 * after the run: a none run's is the baseline a mitigation's least energy is figured against. */
struct rs_trace {
    size_t n;
    int nranks;
    double *t_s;      /* each tick's time, s since the run began */
    double *w;        /* rank r's watts at tick i: w[r * n + i] (NAN: missing) */
    double *truth;    /* a modelled backend: the electrical power behind each, laid out as w (NULL: none) */
    int64_t iters;    /* iterations completed in the stretch */
};
/* After runstats_json (which settles the warm-up): the run's analysed stretch; NULL when it has none. */
struct rs_trace *runstats_trace(const struct run_stats *rs);
void rs_trace_free(struct rs_trace *t);
/* runtruth.c, for runstats.c: on a modelled backend, the figures of the electrical power itself over the analysed
 * stretch (thr: the run's throughput), kept apart from what the sensor reported: {source, mean_w, energy_per_iter_j,
 * per_rank_swing_w, per_rank_p1_w}; NULL without a truth. */
json_t *runtruth_json(const struct run_stats *rs, double thr);
/* The gaps between compute phases of every rank: {p50, min} in s (null: none). */
json_t *runstats_gap_json(const struct run_stats *rs);
/* A recovery abandons the timeline in progress: phases it left open and compute-start rows it left
 * incomplete are forgotten (the new timeline repeats those iterations). */
void runstats_new_epoch(struct run_stats *rs);

/* runsensor.c, for runstats.c: the sensor's lag behind the rank's compute-phase starts (x: its readings on the grid of
 * step dt from t0 s; NAN with fewer than 3 clean steps); the iteration's period (rank 0's starts; 0: unknown); the
 * waveform folded from every rank's readings (summary's waveform_folded). */
double runsensor_lag_s(const double *x, size_t m, double dt, double t0, const struct series *starts,
                       const struct an_result *res);
double runsensor_period_s(const struct run_stats *rs);
json_t *runsensor_fold_json(const struct run_stats *rs, double **grid, size_t m, double dt, double t0,
                            const struct an_result *res, const double *lags, double period);

/* The end of the analysed stretch, ns since t_begin: the end of the last iteration of the first rank done with the run
 * (each rank goes idle after its own last iteration, its filler stopped: its drop is the run's end, not the run; until
 * 2026-11-30 the last rank's end, after the others had gone idle), else the run's end; INT64_MAX: not known. */
static inline int64_t runstats_power_end(const struct run_stats *rs)
{
    uint64_t first = 0;
    for (int r = 0; r < rs->nranks; r++)
        if (rs->rank[r].done && rs->rank[r].iter_end > rs->t_begin && (!first || rs->rank[r].iter_end < first))
            first = rs->rank[r].iter_end;
    uint64_t end = first ? first : rs->t_end;
    return end > rs->t_begin ? (int64_t)(end - rs->t_begin) : INT64_MAX;
}

/* The ticks the run's power figures are taken over, [*a, *b): from the first at or past the warm-up to the last at or
 * before runstats_power_end. The power analysis, the trace (run_end's analysed_s: the cluster's sum, summarize's
 * rebuild) and the truth all take this one stretch. Fewer than RS_STRETCH_MIN ticks from the warm-up to that end: from
 * the run's start; fewer still: every tick. runstats_json moves the warm-up to match first (unsettled: true), and the
 * energy and throughput start there too (they end at the run's end, the last rank's). */
enum { RS_STRETCH_MIN = 16 };
void runstats_stretch(const struct run_stats *rs, size_t *a, size_t *b);
/* Before the figures: the warm-up moved back where too little of the run came after it (runstats_stretch's rule). */
void runstats_settle_stretch(struct run_stats *rs);

#endif
