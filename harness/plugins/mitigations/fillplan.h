/* harness/plugins/mitigations/fillplan.h: what the filler does between two compute phases, as pure functions shared
 * by the sim's model (backends/sim) and the GPU's shaper (backends/cuda), so a sim test of a mitigation tests the
 * schedule the GPU runs.
 *
 * The mitigations that shape a GPU's power (filler, ramp, smoothing) only ever ADD power: between the end of one
 * compute phase and the start of the next (the gap: communication, checkpoints, idle) filler work — GEMMs of the
 * compute phase's own kind, at a duty — holds the power up. Nothing ever removes compute: the compute phase runs at
 * full rate, always.
 *
 *   - floor: the filler holds the gap at the floor (at most what the filler can draw: `top`).
 *   - ramp down: the fall after compute is held up by the filler and released at the rate asked, from the compute
 *     level (at most top) down to the floor (or to idle without a floor).
 *   - ramp up: where the gap's length is expected (the last gaps' lengths), the filler climbs at the rate asked so
 *     that it reaches the compute level (at most top) when the next compute phase begins.
 *   - where the fall and the climb at their rates do not fit in the gap, the floor is raised until they do (energy
 *     is paid, never time).
 *
 * The filler's level comes from a curve measured on the GPU (its power at duties 0, 25, 50, 75, 100 %); the part
 * of it that rises with duty (up to the power limit, where it flattens or falls) is what `fill_curve_duty` inverts.
 * A slow correction (`fill_corr`, at least FILL_CORR_S of readings at a time, as DCGM's targeted power does) trims
 * the level against the energy counter while it runs. */
#ifndef GAUNTLET_FILLPLAN_H
#define GAUNTLET_FILLPLAN_H

#include <stddef.h>

#define FILL_DUTIES 4           /* the curve: idle (duty 0), then the filler at 25, 50, 75 and 100 % */
#define FILL_RISE_MIN 0.02      /* each step of the curve rises by at least this share of compute - idle */
#define FILL_HISTORY 5          /* the gap's expected length: the median of the last this many */
#define FILL_CORR_S 1.0         /* the correction moves once per this many seconds of readings at the level */
#define FILL_CORR_GAIN 0.5      /* of the error, per move */

/* The filler's measured power at each duty i / FILL_DUTIES (w[0]: idle, nothing running), and the compute level. */
struct fill_curve {
    double w[FILL_DUTIES + 1];
    double compute_w;
};

/* A curve from the levels measured at duties 0..100 % (w: FILL_DUTIES + 1 of them) and the compute level. */
struct fill_curve fill_curve_of(const double *w, double compute_w);
/* The curve's rising part: the highest i such that each point up to i rises above the one before by at least
 * FILL_RISE_MIN of (compute - idle). Past it the filler's power no longer rises with its duty: on an H200 at its
 * 700 W limit the filler drew 712 W at 75 % and 664 W at 100 % (the power limiter pulls the clocks down under a
 * sustained full load), on an H100 704 and 705 W. The filler runs only within the rising part; 0: it does not rise
 * at all. */
int fill_curve_top_index(const struct fill_curve *c);
/* Checks that the curve is usable: every level finite (measured), compute above idle, and a rising part that
 * reaches past idle (fill_curve_top_index >= 1). 0, or -1 with why ("the filler's power does not rise with its
 * duty: 25 % 121 W, ..."). */
int fill_curve_check(const struct fill_curve *c, char *why, size_t n);
/* Writes the curve's levels ("0 % 140 W, 25 % 309 W, ...") into out. */
void fill_curve_levels(const struct fill_curve *c, char *out, size_t n);
/* Returns the duty (0..top) at which the filler draws watts: linear between the points of the curve's rising part,
 * 0 at or below idle, the top's duty (fill_curve_top_index / FILL_DUTIES) at or above the top's level. The curve must
 * have passed fill_curve_check. */
double fill_curve_duty(const struct fill_curve *c, double watts);
/* Returns the filler's most: its power at the top of the curve's rising part. */
double fill_curve_top(const struct fill_curve *c);
/* Past the top of the rising part, the duty still rises to 100 %: at the power limit more duty draws no more (the
 * limiter lowers the clocks), but where the clocks are already low — the gap's first ~100 ms after a compute phase
 * at the limit — it does. Returns the rising part's last step carried on to 100 % duty (the top itself when the
 * curve rises all the way): the most a learned boost may ask (fill_learn.most_w). */
double fill_curve_reach(const struct fill_curve *c);
/* fill_curve_duty, carried past the top along the rising part's last step up to 100 % duty at fill_curve_reach:
 * for a level asked through a learned boost only (a steady level past the top would draw less, not more). */
double fill_curve_duty_boost(const struct fill_curve *c, double watts);

/* One gap's plan (times in seconds from the gap's start, the end of compute). */
struct fill_plan {
    double asked_w;      /* the floor asked (0: none) */
    double floor_w;      /* the level held through the gap: the floor asked, at most top, raised where the ramps do
                          * not fit; 0: no filler once the fall is over */
    double low_w;        /* where the fall ends: floor_w, or idle without a floor */
    double top_w;        /* the filler's most */
    double high_w;       /* the level the fall starts from and the climb ends at: min(compute, top) */
    double down_w_s, up_w_s;   /* the rates asked (0: none) */
    double down_s, up_s; /* how long the fall and the climb last */
    double rise_at_s;    /* the climb starts then (negative: no climb: no up rate, or the gap's length unknown) */
    int raised;          /* the floor was raised above what was asked so that the fall and climb fit the gap (or, the
                          * gap's length unknown, held at high_w) */
    int unreachable;     /* the floor asked is above what the filler can draw */
    int clipped;         /* the floor asked is above high_w, where the plan holds it: the filler's top (unreachable) or
                          * the compute level (a gap never draws more than compute) */
};

/* Plans a gap expected to last gap_s for a floor asked (W, 0: none), the ramp rates (W/s, 0: none), and the GPU's
 * idle, compute and filler-at-100 % levels. A gap of unknown length (gap_s NAN or <= 0: the first of a run) under a
 * rise limit holds the compute level throughout (raised): the next compute phase may begin at any moment. */
void fill_plan_make(struct fill_plan *p, double floor_asked_w, double down_w_s, double up_w_s, double idle_w,
                    double compute_w, double top_w, double gap_s);
/* Returns the power the filler holds t seconds into the gap (at or below idle: duty 0; 0 when the plan runs no
 * filler at all). */
double fill_plan_watts(const struct fill_plan *p, double t);
/* Whether the plan runs the filler at all (a floor or a ramp). */
int fill_plan_active(const struct fill_plan *p);
/* Says in why when the plan holds less than the floor asked (clipped), naming the limit that binds: "floor 900 W
 * unreachable: the filler reaches 725 W" or "floor 560 W unreachable: compute draws 300 W" (at most 64 characters,
 * a worker event's note); 1 when said, else 0. */
int fill_plan_floor_why(const struct fill_plan *p, char *why, size_t n);

/* The last gaps' lengths. */
struct fill_history {
    double gap_s[FILL_HISTORY];
    int n, next;
};
/* Adds a gap's length (ignored unless finite and > 0). */
void fill_history_add(struct fill_history *h, double gap_s);
/* Returns the expected length of the next gap: the median of the last ones; NAN when there are none yet. */
double fill_history_expect(const struct fill_history *h);

/* The slow correction: an offset in watts added to the level asked of the curve. */
struct fill_corr {
    double sum_j, sum_s;   /* energy and time at the level since the last move */
    double sum_target_js;  /* the level asked, integrated over the same time */
    double offset_w;
    double span_w;         /* the offset stays within +-span (the curve's top - idle) */
    double lo_w, hi_w;     /* the curve's idle and top (both 0: not given): the level asked plus the offset stays
                            * within them, past which the duty no longer moves (at 0 % or 100 %: nothing to gain,
                            * a wound-up offset to unwind) */
    int moves;
};
/* Adds a stretch of dt seconds in which the GPU drew de joules while the filler was asked to hold target_w. Once
 * FILL_CORR_S of stretches have gathered, moves the offset by FILL_CORR_GAIN x (asked - drawn), bounded, and starts
 * again; returns 1 when it moved, 0 otherwise (a stretch that is not finite, or not positive, is ignored). */
int fill_corr_add(struct fill_corr *c, double de, double dt, double target_w);

/* Learning the gap's first part (an iterative learning control, as the gaps repeat): at a GPU's power limit the
 * compute phase runs at clocks the limiter lowered, and they come back over the first ~100-200 ms of the gap after it,
 * so a filler at the duty of its measured level draws less there (H200, 2026-11-28, filler 80 %: 408 W of 560 asked
 * 40 ms into the gap, its level only after ~100 ms). The driver's samples of each gap (their own times: the window
 * each one averages) give the error against the plan in bins of FILL_LEARN_BIN_S from the gap's start; after the gap
 * each bin's boost moves by FILL_LEARN_GAIN of its error, and the next gaps ask the curve for the plan's level plus the
 * bin's boost. A boost never asks past the filler's most nor under idle (what the filler cannot draw there stays a
 * shortfall, not a wound-up integral). Only gaps that follow a compute phase learn and use it; past the bins, the
 * slow correction (fill_corr) alone trims the level. */
#define FILL_LEARN_BIN_S 0.02   /* one bin: the driver's sample period on an H100 or H200 */
#define FILL_LEARN_BINS 24      /* the gap's first 0.48 s */
#define FILL_LEARN_GAIN 0.5     /* of a bin's error, per gap */

struct fill_learn {
    double boost_w[FILL_LEARN_BINS];
    double most_w;  /* the most a boost may ask (fill_curve_reach); 0 or less than the plan's top: the plan's top */
    int gaps;       /* gaps learned from */
    int updates;    /* bin updates made */
};

/* One of the driver's samples: its time (the end of the window it averages), seconds from the gap's start, and
 * its value. */
struct fill_sample {
    double t_s, w;
};

/* Returns the boost to ask t seconds into a gap that follows a compute phase (0 past the bins). */
double fill_learn_boost(const struct fill_learn *l, double t);
/* Learns from one gap of gap_s seconds under plan p (the curve from idle_w to the plan's top): the samples (times
 * from the gap's start, ascending) whose window (window_s before their time; <= 0: the median spacing of the
 * samples, 20 ms without two) lies inside the gap and whose middle falls in a bin, where the plan asks more than
 * idle, each against the plan's mean level over its window; each bin with samples moves by FILL_LEARN_GAIN of its
 * mean error, bounded: no more than takes the plan's lowest level in the bin to the filler's most (l->most_w, at
 * least the plan's top), no less than takes its highest to idle (the bin's other levels may ask past them: the duty
 * stops at 100 % or 0). Returns the number of bins moved. */
int fill_learn_gap(struct fill_learn *l, const struct fill_plan *p, double idle_w, double gap_s,
                   const struct fill_sample *s, int n, double window_s);
/* Writes a one-line account of the boosts ("+92 W at 20-40 ms, ...": the largest, where) into out. */
void fill_learn_describe(const struct fill_learn *l, char *out, size_t n);

/* A replay's closed loop (workload.replay on a GPU): the level asked of the curve is the trace's next value plus a
 * correction for that level, learned from the GPU's readings against the trace. The curve was measured at five
 * duties and is read between them on straight lines; where the GPU draws otherwise the error depends on the level
 * (a curve off by +20 W at 200 W and -5 W at 450 W), so the correction is a line through REPLAY_KNOTS knots from
 * idle to the top, each moved by the readings at levels near it: a level the trace comes back to is corrected from
 * its first sample on (one offset for all levels had to travel between their errors after every edge: the H200's
 * 1 Hz square wave read correlation 0.885, 2026-11-28). The readings trail the power by a lag and an update (10-15
 * ms and 20 ms on an H100 or H200), so at an edge of the trace the error is the sensor's, not the curve's: a reading
 * moves the correction only where the trace held one level (within REPLAY_STEADY_FRAC of its span) over the
 * REPLAY_STEADY_S before it. Unbounded by edges, the integral wound up at every edge of a 1 Hz square wave and
 * overshot after it (H200 2026-11-28: correlation 0.887 against the trace). */
#define REPLAY_GAIN 0.3          /* of the error, per reading */
#define REPLAY_STEADY_S 0.06     /* the trace held one level this long before a reading that counts */
#define REPLAY_STEADY_FRAC 0.05  /* one level: within this share of the trace's span (at least 5 W) */
#define REPLAY_KNOTS 9           /* the correction's knots, evenly from idle to the curve's top */

struct replay_corr {
    double knot_w[REPLAY_KNOTS];   /* the correction at each knot */
    double lo_w, hi_w;   /* the knots span idle .. the curve's top */
    double span_w;       /* each knot stays within +-span (the curve's top - idle) */
    double tol_w;        /* the trace's "one level" */
    int steady_n;        /* samples of the trace that must hold it */
    int moves;
};
/* Sets up the loop for a trace of n samples dt_s apart and a curve from idle_w to top_w. */
void replay_corr_init(struct replay_corr *c, const float *tr, int n, double dt_s, double idle_w, double top_w);
/* Returns the correction for the level level_w: the line through the knots (the end knots' values beyond them).
 * Each knot's correction keeps its own level within idle .. the top (past them the duty is at 0 % or 100 %: a level
 * out of the filler's reach, a trace's peak above its top, cannot wind the knots up for the levels near it). */
double replay_corr_at(const struct replay_corr *c, double level_w);
/* A new reading got_w while the pass is at trace sample i: where the trace was steady over the samples before i,
 * moves the two knots around its level by REPLAY_GAIN x (the trace's level - got_w), shared by their nearness (the
 * correction at that level moves by 1/2 to 1 of that), each bounded; returns 1 when it moved, else 0 (an edge too
 * recent, a reading that is not finite). */
int replay_corr_add(struct replay_corr *c, const float *tr, int n, int i, double got_w);

#endif
