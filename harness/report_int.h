/* harness/report_int.h: the state `gauntlet report` shares between its files (report.c: the runs, the table and
 * the picture; report_curve.c: the trade-off curves of swept parameters). Not a public API. */
#ifndef GAUNTLET_REPORT_INT_H
#define GAUNTLET_REPORT_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define RP_MAX_RUNS 64
#define RP_W 900        /* svg width */
#define RP_CURVE_H 270  /* one trade-off curve: two panels side by side */
#define RP_PARAMS 512   /* a run's parameters as scenario.yaml gives them: "key=value\n" each */

/* One run of the results folder: its summary, its parameters, what it sweeps and its power trace. */
struct rp_run {
    char name[48];           /* its label ("filler floor=65%") or its mitigation */
    const char *mitigation;  /* borrowed from summary */
    json_int_t index;        /* its place in the scenario's mitigations, as events.jsonl names it */
    char params[RP_PARAMS];  /* from scenario.yaml */
    int params_known;
    char key[32], value[64]; /* what it sweeps, when it does: the parameter and its value here */
    double t0, t1;           /* the run's window in power.csv's time */
    double *t, *w;           /* the aggregate power: sum over ranks per sample time */
    size_t n, cap;
    json_t *summary;         /* borrowed */
};

/* One swept parameter of one mitigation: its runs differ in that parameter only. */
struct rp_curve {
    const char *mitigation;
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
/* Writes s to f with XML's special characters escaped. */
void rp_xml(FILE *f, const char *s);
/* Returns x formatted with fmt, or "-" when it is not a number. */
const char *rp_fmt(char *buf, size_t n, const char *fmt, double x);

/* report_curve.c */
/* Reads each run's parameters from scenario.yaml's mitigations; a run it does not list keeps them unknown. */
void rp_params(const char *dir, struct rp_run *runs, int n);
/* Finds the sweeps among the runs and fills cv (zeroed, RP_MAX_RUNS long) with them; returns how many. */
int rp_curves(struct rp_run *runs, int n, struct rp_curve *cv);
/* Writes each curve as a table to f, naming the search's picks. */
void rp_curve_table(FILE *f, const struct rp_run *runs, int base, const struct rp_curve *cv, int nc, json_t *search);
/* Draws curve c at y0 of the picture (RP_CURVE_H high): swing left against energy and time paid. */
void rp_curve_svg(FILE *f, double y0, const struct rp_run *runs, int base, const struct rp_curve *c, int id,
                  json_t *search);

#endif
