/* harness/analysis/analysis.h: power-swing analysis — pure functions over a power trace (no I/O): statistics, ramp
 * rates, spectrum and band shares (FFTW), the iteration-synchronous waveform, alignment between ranks, and
 * the projection to a cluster of many GPUs checked against a utility's spec. */
#ifndef GAUNTLET_ANALYSIS_H
#define GAUNTLET_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#define AN_MAX_BANDS 8
#define AN_RAMP_WINDOWS 3   /* 10 ms, 100 ms, 1 s */

extern const double an_ramp_windows_s[AN_RAMP_WINDOWS];
extern const char *const an_ramp_window_names[AN_RAMP_WINDOWS];

/* A sampling grid: point i at t0_ns + floor(i * num / den) nanoseconds. Integer arithmetic: the grid never
 * drifts, however long the trace (1000 Hz is exactly 1,000,000 ns a step). */
struct an_grid { int64_t t0_ns, num, den; };
/* The grid of hz samples a second (to a thousandth of a hertz), starting at t0_ns. */
struct an_grid an_grid_of_hz(int64_t t0_ns, double hz);
/* The grid of a step of step_ns nanoseconds, starting at t0_ns. */
struct an_grid an_grid_of_step(int64_t t0_ns, int64_t step_ns);
/* The step in seconds, correctly rounded (1000 Hz: 0.001). */
double an_grid_dt(const struct an_grid *g);
/* The time of point i, in nanoseconds. */
int64_t an_grid_time(const struct an_grid *g, int64_t i);
/* The point nearest t_ns (a tie goes to the later); negative before the grid's start. */
int64_t an_grid_nearest(const struct an_grid *g, int64_t t_ns);
/* Puts the samples (t_ns[i], v[i]), i < n, sorted by time, on points [0, m) of g: each sample on its nearest
 * point, so no sample moves by more than half a step, but one: of two samples on one point where the point before
 * has none (a late sample and the next on time), the earlier goes there (1.5 steps at most). A point no sample
 * reaches stays NAN: a gap, never held, never counted; of two samples on one point otherwise the later is kept
 * (*merged, when given, counts the others); samples outside [0, m) are left out. Returns the points that hold a
 * valid (not NAN) value. */
size_t analysis_place(const struct an_grid *g, const int64_t *t_ns, const double *v, size_t n, double *out, size_t m,
                      size_t *merged);
/* As analysis_place, for a grid slower than the samples (a decimation): each point the mean of the samples within
 * one step of it, weighted by 1 - distance / step (a triangle: the power at frequency f kept by sinc^2(f / rate) —
 * 40 % at half the grid's rate, 5 % at 0.8 of it, none at the rate and its multiples — where keeping one sample a
 * point keeps all of it and folds it below half the rate). NAN samples are left out; a point whose window (one step either
 * side) the valid samples do not cover whole is NAN, a gap: at the trace's ends and beside a gap the mean of a half
 * window is another time's level, and a 2 Hz square wave's true 1 s ramp of 0 read 252 W/s (until 2026-11-30). A
 * hole (two valid samples more than 1.5 own_step_ns apart, the samples' own interval) of up to half a step and 64
 * own intervals is bridged by the line between them at that interval; a longer one is a gap (own_step_ns <= 0: every
 * window taken as whole, nothing bridged). *merged counts the samples beyond one a point. Returns the points that
 * hold a value. */
size_t analysis_place_lowpass(const struct an_grid *g, const int64_t *t_ns, const double *v, size_t n, double *out,
                              size_t m, double own_step_ns, size_t *merged);

/* A uniformly sampled series: x[i] at t0 + i * dt. Missing samples (gaps) are NAN. */
struct an_series {
    const double *x;
    size_t n;
    double dt;
    double update_s;   /* the sensor's update interval where the caller knows it (a sum of ranks: the ranks'); 0:
                        * measured from x (an_sensor_measure); AN_NOT_HELD: the caller knows the readings are not held
                        * (a sum of series none of which is: staggered square waves add up to a staircase that
                        * would read as a sensor's) */
    double period_s;   /* the iteration's period where known (0: unknown): a held series resolves its dominant
                        * frequency only when the iteration's own frequency is below half the update rate */
};

#define AN_NOT_HELD (-1.0)

/* A sensor's stamps: the intervals between a series' distinct sample times, where its source gives them (a GPU
 * driver's sample buffer, the sim's sensor: power.csv's sample_t_s), counted on log-spaced bins 2 % wide from 100 us
 * to 100 s. Zero it to begin. */
#define AN_STAMP_BINS 700
struct an_stamps {
    int64_t last_ns;             /* the newest stamp seen */
    int seen;                    /* 0: none yet */
    uint64_t n[AN_STAMP_BINS];
    double sum_s[AN_STAMP_BINS];
};
/* Counts the interval from the newest stamp to t_ns when t_ns is a newer one (a new sample: a sensor slower than its
 * sampler repeats its newest, and an older one counts nothing). */
void an_stamp_add(struct an_stamps *st, int64_t t_ns);
/* an_stamp_add into *st, allocated (zeroed) at the first stamp; a t_ns of 0 is no stamp. Free *st when done. */
void an_stamp_note(struct an_stamps **st, int64_t t_ns);
/* Returns the sensor's update interval from its stamps, as an_sensor_measure from readings: the most common interval
 * (the most within 20 % of one), then the mean of the intervals from 0.4 to 1.6 times it; 0 (unknown) with fewer
 * than 8 intervals, or st NULL. */
double an_stamp_update_s(const struct an_stamps *st);

/* What a sensor shows. Measures the update interval of a series sampled every dt seconds from the intervals between
 * readings that differ from the one before: the most common interval (the most within 20 % of one; an update that
 * repeated its reading makes an interval of two updates, rarer than one), then the mean of the intervals from 0.4 to
 * 1.6 times it (a reading a sample early or late on the grid makes one interval short and the next long)
 * (*update_s NAN with fewer than three such readings); *distinct counts them. */
void an_sensor_measure(const double *x, size_t n, double dt, double *update_s, size_t *distinct);
/* Whether readings are held over several samples (update_s over 1.5 dt): then a held value is not a sample.
 * (analysis_run also asks of a measured hold more than four levels, or at least three changes a cycle of the trace's
 * own strongest frequency or of its iteration: a noiseless square wave, constant between its edges, changes twice a
 * cycle whatever its duty: a signal, not a held sensor.) */
int an_sensor_held(double update_s, double dt);
/* Returns a malloc'd copy of x, read by a sensor updated every update_samples samples, as the power it shows: each
 * reading at the sample where it appeared; before a new reading, the one shown before it held up to the update
 * before (update_samples earlier: updates in between repeated it) and from there the line to the new one; a segment's
 * first reading (at the trace's start or after a gap, of unknown age) as any other, its line begun before the
 * segment where the next reading comes within an update; after a segment's last reading, the reading held while an
 * update in the segment repeated it and NAN after that (the line to the next reading may have begun: unknown). Gaps
 * stay NAN. */
double *an_dehold(const double *x, size_t n, double update_samples);

/* Folds a series by its iterations (equivalent-time sampling): each valid sample of x (grid of step dt from t0 s; with
 * distinct_only, only the samples where a reading appeared), moved shift_s earlier (the sensor's lag), goes to the bin
 * of its phase within its iteration (starts[0..k): the iterations' start times, s) and adds to sum[bin] and cnt[bin]
 * (bins of them, not cleared). Iterations far from the median length (under half or over 1.5 times it) and the last one
 * are left out. Readings at a rate unrelated to the iteration's fall on every phase over many iterations, so the
 * waveform is resolved far below the update interval. Returns the samples used. */
size_t analysis_fold(const double *x, size_t n, double dt, double t0, double shift_s, int distinct_only,
                     const double *starts, size_t k, double *sum, double *cnt, size_t bins);

/* an_result.unresolved: the figures the sensor cannot resolve (NAN in the result): a ramp window shorter than twice
 * the update interval, a band reaching above half the update rate, the dominant frequency of a held series whose
 * iteration is not known to be slower than half the update rate (a peak below it may be an alias). */
#define AN_UNRES_RAMP(w) (1u << (w))
#define AN_UNRES_BAND(b) (1u << (AN_RAMP_WINDOWS + (b)))
#define AN_UNRES_DOMINANT (1u << (AN_RAMP_WINDOWS + AN_MAX_BANDS))
/* ... and, each with a reason of its own: a ramp window shorter than one sample of the series; a dominant frequency
 * with fewer than two cycles in the span (the lowest bin of a spectrum: a trend, not an oscillation) */
#define AN_UNRES_RAMP_SAMPLE(w) (1u << (AN_RAMP_WINDOWS + AN_MAX_BANDS + 1 + (w)))
#define AN_UNRES_DOMINANT_SPAN (1u << (2 * AN_RAMP_WINDOWS + AN_MAX_BANDS + 1))
/* ... a ramp window not shorter than the trace; a spectrum (bands, dominant frequency) of fewer than 4 samples, or of a
 * trace that never changes */
#define AN_UNRES_RAMP_SPAN(w) (1u << (2 * AN_RAMP_WINDOWS + AN_MAX_BANDS + 2 + (w)))
#define AN_UNRES_SPECTRUM_SHORT (1u << (3 * AN_RAMP_WINDOWS + AN_MAX_BANDS + 2))
#define AN_UNRES_SPECTRUM_FLAT (1u << (3 * AN_RAMP_WINDOWS + AN_MAX_BANDS + 3))
/* ... a band that no bin of the spectrum lies in (bins are 1 / span apart: a trace shorter than a cycle of the band's
 * top, or a band narrower than a bin): its share is not measured, never 0 */
#define AN_UNRES_BAND_SHORT(b) (1u << (3 * AN_RAMP_WINDOWS + AN_MAX_BANDS + 4 + (b)))

struct an_band { double lo_hz, hi_hz, share; };

/* Everything measured on one series. NAN where it cannot be computed (too short, nothing valid). The series is
 * measured from its first valid sample to its last (leading and trailing gaps are not its time). */
struct an_result {
    size_t samples;                        /* valid ones */
    size_t gaps;                           /* points between the first and last valid sample without one */
    double span_s;                         /* from the first valid sample to the last */
    double mean_w, min_w, max_w, p1_w, p99_w;
    double swing_w;                        /* the headline swing: p99 - p1 (repeats run to run) */
    double range_w;                        /* max - min over `samples` samples (the rarest spikes included) */
    double ramp_up_w_s[AN_RAMP_WINDOWS];   /* largest rise over each window, W/s */
    double ramp_down_w_s[AN_RAMP_WINDOWS]; /* largest fall, W/s (positive) */
    double dominant_hz;
    int n_bands;
    struct an_band bands[AN_MAX_BANDS];
    double update_s;                       /* the sensor's update interval (given or measured); NAN unknown */
    double band_nyq_hz, peak_nyq_hz;       /* the half rates past which a band (the grid's, or the held sensor's) and
                                            * the dominant frequency (the rate the series changes at) are unresolved:
                                            * the reasons' figures (NAN: not set) */
    size_t distinct;                       /* readings that differed from the one before */
    int held;                              /* readings were held: ramps and spectrum on the distinct readings */
    unsigned unresolved;                   /* AN_UNRES_* */
};

/* The update_s of a sum of the series analysed into r[0..n): the slowest update interval of the held ones (the sum
 * changes whenever any of them does), or AN_NOT_HELD when none is held. */
double an_sum_update_s(const struct an_result *r, size_t n);

/* The least energy (J) that holding a floor and ramp limits above the trace p costs: the integral of Q - p over
 * the lowest trace Q that is never below p (the work's own draw), never below floor_w, never falls faster than
 * down_w_s and never rises faster than up_w_s (<= 0: none of that one): forward, Q(t_i) = max(p_i, floor,
 * Q(t_{i-1}) - down dt); then backward, Q(t_i) = max(Q(t_i), Q(t_{i+1}) - up dt) (a rise that must not be
 * faster begins early). t_s: each sample's time; a NAN sample is left out (Q carries over it). */
double an_least_fill_j(const double *t_s, const double *p, size_t n, double floor_w, double up_w_s, double down_w_s);

/* The default bands (the utilities' concern): 0.1-1, 1-2.5, 2.5-7, 7-20 Hz. */
extern const struct an_band an_default_bands[4];

/* Analyses s: statistics over the valid samples; ramps over the three windows, each taken over the pairs of
 * valid samples exactly that many steps apart (a gap is never filled for a ramp); dominant frequency and the
 * share of the fluctuation's energy in each band, on the series with its inner gaps filled by linear
 * interpolation (a spectrum needs every point; `gaps` says how many were filled). */
int analysis_run(const struct an_series *s, const struct an_band *bands, int n_bands, struct an_result *out);

/* analysis_run on each of s[0..n) into out[0..n), on up to threads threads at once (<= 0: one per core). Returns
 * the first non-zero return of analysis_run, or 0. */
int analysis_run_many(const struct an_series *s, size_t n, const struct an_band *bands, int n_bands,
                      struct an_result *out, int threads);

/* Writes the one-sided amplitude spectrum of s into freq[k] (Hz) and amp[k] (s's unit: a sine of amplitude A on a
 * bin reads A there), k < *n: the bins above DC from the lowest, at most max, spaced 1 / (n dt) over the span
 * from the first valid sample to the last. As for analysis_run's dominant frequency, the mean of the valid samples
 * is removed and inner gaps are interpolated.
 * Returns 0, or -1 (fewer than 4 samples, none valid, dt not positive, FFTW failed). */
int analysis_spectrum(const struct an_series *s, double *freq, double *amp, size_t max, size_t *n);

/* Puts (t_i, v_i), i < n, sorted by t (seconds), on a grid of step dt from t_0 (analysis_place: nearest point,
 * gaps NAN); returns the number of points written into *out (malloc'd), or 0. */
size_t analysis_resample(const double *t, const double *v, size_t n, double dt, double **out);

/* Returns the Pearson correlation of a and b over their common valid samples (lock-step ~ 1), NAN if none. */
double analysis_correlation(const double *a, const double *b, size_t n);

/* Averages s over iterations starting at starts[0..k) (seconds, same time base as s, t0 = 0) into nbins bins
 * of the phase within the iteration; bins without samples are NAN. Returns the iterations used. */
size_t analysis_waveform(const struct an_series *s, double t0, const double *starts, size_t k, double *bins,
                         int nbins);

/* What a cluster draws: gpus GPUs in groups synchronized groups, each group the per-GPU trace shifted by a
 * random offset of standard deviation jitter_s (seeded). */
struct an_projection {
    long gpus, groups;
    double jitter_s;
    double mean_mw, swing_mw, ramp_up_mw_s, ramp_down_mw_s;   /* swing: p99 - p1; ramps over 1 s */
    double range_mw;                                          /* max - min: the spec's dynamic range */
    double dominant_hz;
    int n_bands;
    struct an_band bands[AN_MAX_BANDS];
    double update_s, period_s;  /* the per-GPU trace's sensor update interval and iteration period (an_series) */
    int held;                   /* its readings were held: the cluster's trace is built from its distinct readings */
    unsigned unresolved;        /* AN_UNRES_* of the cluster's figures */
    double band_nyq_hz, peak_nyq_hz;   /* as an_result's: the half rates in the reasons of the unresolved */
    const char *why;            /* where analysis_project failed: why (static text), every figure NAN; else NULL */
};

/* A utility's spec in the form utilities state it; NAN or 0 where a clause is not given. */
struct an_spec {
    double max_ramp_up_mw_s, max_ramp_down_mw_s, dynamic_range_mw;
    double band_lo_hz, band_hi_hz, max_band_share;
};

struct an_verdict {
    int checked[4], pass[4];   /* ramp up, ramp down, dynamic range, band share */
    double value[4], limit[4];
};

extern const char *const an_clause_names[4];

/* The bands a run analyses: an_default_bands, and spec's band after them where it is none of them (spec NULL or
 * no band: the defaults). Returns their number (4 or 5). */
int analysis_bands_with_spec(const struct an_spec *spec, struct an_band bands[AN_MAX_BANDS]);
/* Projects the per-GPU series s to the cluster. 0, or -1 with out->why saying why (fewer than two readings, the
 * groups' spread longer than the trace) and every figure of out NAN: a failed projection is no figures, never 0s. */
int analysis_project(const struct an_series *s, long gpus, long groups, double jitter_s, unsigned long long seed,
                     const struct an_band *bands, int n_bands, struct an_projection *out);
/* As analysis_project, and hands out the cluster's trace (MW, malloc'd) in *trace and its length in *trace_n: the
 * span of s from its first valid sample to its last; where s is a held sensor's, the trace is the line through its
 * readings (an_dehold), and *held (where not NULL) the same cluster of the readings each shown until the next, which
 * the projection's mean, swing and range are taken on (NULL where s is not held: *trace is its readings). */
int analysis_project_trace(const struct an_series *s, long gpus, long groups, double jitter_s, unsigned long long seed,
                           const struct an_band *bands, int n_bands, struct an_projection *out, double **trace,
                           double **held, size_t *trace_n);

/* Facility energy storage serving the fast part of a cluster's draw: the grid supplies the draw's moving
 * average over window_s, the battery the rest, within its power rating and capacity. */
struct an_bess {
    double capacity_mwh, power_mw, efficiency, window_s;     /* inputs; efficiency is round trip */
    double grid_swing_mw, grid_ramp_up_mw_s, grid_ramp_down_mw_s;   /* results (ramps over 1 s) */
    double grid_range_mw;                                    /* the grid side's max - min */
    double throughput_mwh, losses_mwh, soc_min, soc_max;     /* soc as a share of capacity, from 0.5 */
    double soc_end;
    double battery_max_mw;                                   /* the largest battery power used */
    double energy_mwh;                                       /* the cluster's energy over the same trace */
    double losses_pct;                                       /* losses_mwh over energy_mwh, %: the battery's energy cost */
};
/* Runs the battery over the cluster trace p (MW, n samples of dt); fills b's results; grid (optional, n) gets
 * the grid side. 0, or -1. */
int analysis_bess(const double *p, size_t n, double dt, struct an_bess *b, double *grid);

/* The figures of a cluster trace already in MW (the grid side of a battery): swing, ramps over 1 s, dominant
 * frequency, bands; gpus, groups and jitter are taken from base. 0, or -1. */
int analysis_project_series(const double *mw, size_t n, double dt, const struct an_band *bands, int n_bands,
                            const struct an_projection *base, struct an_projection *out);

/* A battery on a projected cluster (analysis_project_trace's trace and, of a held sensor, its readings held: NULL
 * where there are none): b's figures from the trace, its grid swing and range on the readings as the cluster's own
 * are (a battery that does nothing removes nothing), and in gp the grid side's projection from base, for the spec,
 * its range the readings' too. 1: both; 0: b only; -1: neither. */
int analysis_bess_grid(const double *trace, const double *held, size_t n, double dt, const struct an_band *bands,
                       int n_bands, const struct an_projection *base, struct an_bess *b, struct an_projection *gp);

/* Checks a projection against a spec: one verdict per clause given. */
void analysis_check_spec(const struct an_projection *p, const struct an_spec *spec, struct an_verdict *v);

#endif
