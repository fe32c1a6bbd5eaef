/* harness/report/report_int.h: the state `gauntlet report` shares between its files (report.c: the runs, the table and
 * the picture; report_plots.c: the waveform and spectrum panels; report_curve.c: the trade-off curves of swept
 * parameters). Not a public API. */
#ifndef GAUNTLET_REPORT_INT_H
#define GAUNTLET_REPORT_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define RP_MAX_RUNS 64
#define RP_W 900        /* svg width */
#define RP_CURVE_H 270  /* one trade-off curve: two panels side by side */
#define RP_PARAMS 512   /* a run's parameters as scenario.yaml gives them: "key=value\n" each */
#define RP_LABEL_MAX 47 /* the longest label a run has (scenario.h's label[48]: a sweep's entry and its " [shape]") */
#define RP_FIG_MAX 1e12 /* a figure of summary.json or a power reading past this (either sign) is none: missing */
#define RP_TICKS_MAX 64 /* the most ticks on one axis */

/* One run of the results folder: its summary, its parameters, what it sweeps and its power trace. */
struct rp_run {
    char name[RP_LABEL_MAX + 3];   /* its label ("filler floor=65%") or its mitigation, whole; "*" after it when it
                                    * ended early, "~" when disturbed */
    int disturbed;           /* by hand in the live view (summary's runs[].disturbed): on no curve, never the base */
    int cut;                 /* ended early (runs[].complete false): "*" after its name, no comparison, no curve */
    const char *mitigation;  /* borrowed from summary */
    char shape[32];          /* its workload shape under workload.shapes (summary's runs[].shape), else "" */
    json_int_t index;        /* its place in the scenario's mitigations, as events.jsonl names it */
    char params[RP_PARAMS];  /* from scenario.yaml */
    int params_known;
    char key[32], value[64]; /* what it sweeps, when it does: the parameter and its value here */
    double t0, t1;           /* the run's window in power.csv's time */
    double warm;             /* where its first iteration ends (the warm-up), INFINITY if unknown */
    double a0, a1;           /* the stretch its figures were taken over (run_end's analysed_s), NAN if not said */
    double *t, *w;           /* the aggregate power: node 0's sum over its ranks per sample time, in time order, NAN
                              * when a rank's is missing */
    size_t n, cap;
    json_t *summary;         /* borrowed */
};

/* One swept parameter of one mitigation on one workload shape: its runs differ in that parameter only. */
struct rp_curve {
    const char *mitigation;
    const char *shape;       /* its runs' shape ("" without workload.shapes): a curve never joins two shapes */
    int base;                /* the none it is compared with: the first none of its shape left alone, else the first
                              * none of its shape; -1 when there is none */
    char key[32];
    char others[RP_PARAMS];  /* the parameters not swept, when scenario.yaml gives them */
    int others_known;
    int n, run[RP_MAX_RUNS];
    const char *value[RP_MAX_RUNS];   /* in order of the value when the values compare, else in run order */
};

/* report.c */
/* Opens dir/name for reading; NULL with a message (and what the report does without it) on failure. */
FILE *rp_open(const char *dir, const char *name, const char *without);
/* Closes a file that was read; complains when reading it failed. */
void rp_done(FILE *f, const char *dir, const char *name);
/* Returns run's swing left: the cluster's as the grid sees it (MW) when mw, else the node's (W); NAN if none. */
double rp_swing(json_t *run, int mw);
/* Returns x formatted with fmt, or "-" when it is not a number. */
const char *rp_fmt(char *buf, size_t n, const char *fmt, double x);

/* report_figs.c */
/* Returns the figure v holds: NAN when it is no number, or one past RP_FIG_MAX (either sign): missing, never drawn. */
double rp_fig(const json_t *v);
/* Says on stderr which numbers of summary.json's runs (path) are past RP_FIG_MAX, read as missing. */
void rp_figs_check(const char *path, json_t *runs);
/* Returns how many ticks step apart lie from first to last (both included), at most max; 0 when the axis cannot be
 * ticked (a bound or the step not finite, a step too small to move first, more than max ticks). */
int rp_ticks(double first, double last, double step, int max);
/* Writes s to f as XML text: its special characters escaped, each control character, each byte that is not UTF-8
 * and each character XML 1.0 forbids written as U+FFFD. */
void rp_xml(FILE *f, const char *s);

/* report_files.c */
/* Opens an in-memory stream; NULL with a message on failure. */
FILE *rp_mem(char **buf, size_t *len, const char *path);
/* Closes an in-memory stream (its text then in the buffer); 0, or -1 with a message. */
int rp_mem_close(FILE *mem, const char *path);
/* Writes dir's report.txt (txt, NULL when it could not be made) and report.svg (svg, when drawn is 0; drawn 1: no
 * trace to draw, -1: it could not be made), then report.png from it: an earlier picture is removed before the new
 * text is written, so that no picture beside report.txt is ever another report's. Returns EXIT_OK or EXIT_ENV. */
int rp_files(const char *dir, const char *txt, size_t tlen, const char *svg, size_t slen, int drawn);

/* report_record.c */
/* Returns 1 when a run of summary.json ended early (stopped or killed: its `complete` is false). */
int rp_cut(json_t *run);
/* Writes to f what summary.json says of a record that is not whole: rebuilt after a kill, or stopped early (nothing
 * for a run that completed). */
void rp_record_note(FILE *f, json_t *summary);
/* Writes to f the legend of the "*" of runs that ended early, when one of runs did. */
void rp_cut_legend(FILE *f, const struct rp_run *runs, int n);
/* Says under the table what a row's figures hold that a reader would not take them to: a run unsettled (its warm-up
 * in its figures), one compared with an unsettled none or with a none disturbed by hand (no note on a none row, nor
 * on a run that ended early: no comparison is shown for them). */
void rp_held_notes(FILE *f, const struct rp_run *runs, int n);
/* Says why dir's summary.json at path could not be opened (errno): a killed run's folder (events.jsonl there) is
 * told to run `gauntlet summarize` first. Returns EXIT_INPUT. */
int rp_no_summary(const char *dir, const char *path);
/* Reads run windows and the end of each run's first iteration from dir/events.jsonl into the first n runs, and into
 * *world (0 when not said) the ranks in all its start event gives: 0, or EXIT_INPUT, said, at a line that is no
 * event (a last line without its newline, a killed run's, is left out). */
#define RP_LINE_MAX (1 << 20)   /* the longest line of events.jsonl or power.csv read (1 MiB, as summarize reads) */
#define RP_WORLD_MAX 10000000   /* the most ranks a start event may give (a projection's gpus are as many) */
int rp_windows(const char *dir, struct rp_run *runs, int n, long long *world);

/* report_plots.c */
/* A line with the given attributes, a gap where a point is not finite: one polyline per stretch of finite points,
 * or with path one <path> whose stretches each start with a move. */
struct rp_pen {
    FILE *f;
    const char *attrs;
    int path;
    int open, drawing;   /* an element is open; a stretch is under way */
};
/* Returns the colour of run i (its trace, its lines). */
const char *rp_color(int i);
/* Returns the dash of run i's lines (an SVG attribute with a leading space, or ""): dashed once colours repeat. */
const char *rp_dash(int i);
/* Extends the pen's line to (x, y); a point that is not finite ends the stretch. */
void rp_pen_to(struct rp_pen *p, double x, double y);
/* Ends the pen's line: closes its element. */
void rp_pen_end(struct rp_pen *p);
/* Returns the height of the waveform and spectrum panels of n runs. */
double rp_plots_height(const struct rp_run *runs, int n);
/* Draws at y0 the waveform panel (each run's per-GPU power over the phase within the iteration, summary.json's)
 * and the spectrum panel (each run's amplitude spectrum after its warm-up, 0-20 Hz, log scale, the bands shaded). */
void rp_plots_svg(FILE *f, double y0, const struct rp_run *runs, int n);

/* report_curve.c */
/* Returns a step of 1, 2 or 5 times a power of ten near raw (for axis ticks). */
double rp_step(double raw);
/* Reads each run's parameters from scenario.yaml's mitigations; a run it does not list keeps them unknown. */
void rp_params(const char *dir, struct rp_run *runs, int n);
/* Finds the sweeps among the runs, one curve per shape, each with its shape's none, and fills cv (zeroed, RP_MAX_RUNS
 * long) with them; returns how many. */
int rp_curves(struct rp_run *runs, int n, struct rp_curve *cv);
/* Writes each curve as a table to f, against its own none, naming the search's picks. */
void rp_curve_table(FILE *f, const struct rp_run *runs, const struct rp_curve *cv, int nc, json_t *search);
/* Draws curve c at y0 of the picture (RP_CURVE_H high): swing left against energy and time paid. */
void rp_curve_svg(FILE *f, double y0, const struct rp_run *runs, const struct rp_curve *c, int id, json_t *search);

#endif
