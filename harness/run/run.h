/* harness/run/run.h: what run/'s files share (run.c: supervisor_run, the mitigations in turn, the end; supreport.c:
 * the summary and the end tables; supdev.c: device settings; viewcmd.c: the view's commands). The run sits on top
 * of the engine: it assembles the supervisor's core with resilience/ and cluster/ (their hooks) and may call them
 * all. Not a public API: supervisor.h is. */
#ifndef GAUNTLET_RUN_H
#define GAUNTLET_RUN_H

#include <jansson.h>

#include "resilience.h"
#include "sup.h"
#include "supcluster.h"
#include "supervisor.h"

/* The run's own state (s->rn). */
struct sup_run {
    const struct run_options *opt;
    const struct view_link *view;  /* node 0: what the results writer hands its lines to: base, or metrics around it */
    const struct view_link *base;  /* node 0: the live view or the progress lines (progress.c); NULL elsewhere */
    json_t *runs;                  /* every run's figures, in order */
    struct rs_trace **base_trace;  /* per mitigation run: a none run's analysed power, kept for the least energy of
                                    * the mitigations compared with it (NULL for the others) */
};

extern const struct sup_hooks run_hooks;

/* run.c: the n of the collective's bus bytes: emulate_ranks where the model draws its time (modelled) or
 * emulate_busbw stretches the phase to it, else every rank of every node. */
int64_t run_bus_ranks(const struct scenario *sc, int modelled);

/* viewcmd.c: carries out a command of the live view (quit, pause, skip, fault). */
void sup_view_command(struct sup *s, const struct view_cmd *cmd);

/* supdev.c: the run's device settings (cap, firmware smoothing) before it starts, and put back after it; the
 * object goes into the run's summary as `device`. */
json_t *supdev_run_begin(struct sup *s, int m);
void supdev_run_end(struct sup *s, int m, json_t *o);

/* supreport.c */
/* Says in run's object what its figures take from a model rather than a measurement: `modelled`. */
void sup_modelled(struct sup *s, int m, json_t *run);
/* Returns a run's energy per iteration (J): the aggregate's mean power over the run's wall time; NAN if none. */
double sup_energy_per_iter(json_t *run);
json_t *sup_summary(struct sup *s, int code, const char *started);
/* Returns summary.json's `sensor`: per rank, the median over the runs of its sensor's update interval and lag, and
 * what its readings come from. */
json_t *sup_sensor_json(struct sup *s);
/* The largest of run's per-rank sensor figure key (update_ms, lag_ms), in s; 0 where no rank has it. */
double sup_sensor_max_s(json_t *run, const char *key);
/* Prints the sensor under the end table: its update interval and lag, what the readings come from, and the figures of
 * the first run it could not resolve. */
void sup_sensor_print(struct sup *s);
/* Prints the end-of-run tables: runs, the search, the comparison against none, and the faults (summary's). */
void sup_print_table(struct sup *s, int code, json_t *summary);
/* Adds to every run its energy per iteration and, against the first `none` run, the swing removed and the
 * energy and time paid. */
void sup_compare_runs(struct sup *s);
/* Run (not yet in the runs) against its shape's none finished before it, as sup_compare_runs will give it
 * (summary.json's vs_none), or NULL (none yet): what the live view shows as each run ends. */
json_t *sup_live_vs_none(struct sup *s, json_t *run);
/* supeff.c: how well run r spends its energy against base, a none run whose power was kept (sup->rn->base_trace):
 * vs gets energy_added_j, energy_least_j, energy_efficiency (null, named in vs.unresolved, where the none run's gaps
 * are shorter than its sensor resolves), floor_asked_w, floor_reached_w, and on a modelled backend vs.truth: the same
 * against the electrical power, and the per-GPU swing removed. */
void sup_efficiency(struct sup *s, json_t *r, json_t *base, json_t *vs);

/* Whether run r takes part in the comparisons: undisturbed, or the scenario counts disturbed runs too. */
int sup_ranked(const struct sup *s, json_t *r);

/* supsearch.c */
/* Returns run r's label (a sweep's or a search's candidate) or its mitigation. */
const char *sup_label(json_t *r);
/* Returns one figure of run r's vs_none (NAN when unknown). */
double sup_vs(json_t *r, const char *key);
/* (supreport.c) Returns o's number key; NAN when missing or null (json_number_value reads those as 0: a swing of 0). */
double sup_num(json_t *o, const char *key);
/* Prints the search's lines under the end table. */
void sup_search_print(struct sup *s);
/* For mitigations: auto: the Pareto front (energy, time, grid swing), the cheapest candidate meeting the
 * spec, or the one that misses it least and by which clause. */
json_t *sup_search(struct sup *s);
/* A `bess` run with `size`: its battery sized from the first `none` run's projected swing, before it starts. */
void sup_size_bess(struct sup *s, int m);
/* After the coarse search: appends up to two candidates between the cheapest passing one and the next
 * cheaper value of the same parameter to the scenario; returns how many. */
int sup_refine(struct sup *s);

#endif
