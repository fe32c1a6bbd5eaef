/* harness/analysis/analyze.h: `gauntlet analyze` and `gauntlet bench analysis`. */
#ifndef GAUNTLET_ANALYZE_H
#define GAUNTLET_ANALYZE_H

#include <jansson.h>
#include <stdint.h>

#include "cli.h"

/* `gauntlet analyze TRACE.csv|RUNDIR [--run N] [--gpus N] [--groups G] [--jitter DURATION] [--json] ...`
 * (analyze_run.c); returns the exit code. */
int analyze_main(int argc, char **argv);
extern const struct cli_cmd analyze_cli;

/* What the command line asked. */
struct az_opts {
    int json, strict;
    int64_t gpus, groups, threads, run;   /* run: of a results folder, 1-based (0: every run) */
    double jitter, hz, max_w;
};

/* Analyses the trace at path and prints it (title: how the output names it; windowed: only rows of time in [lo, hi]
 * ns, one run of a results folder; json_out: the JSON object goes there instead of stdout). Returns the exit code. */
int analyze_file(const struct az_opts *o, const char *path, const char *title, int windowed, int64_t lo, int64_t hi,
                 json_t **json_out);
/* `gauntlet bench analysis [--seconds DURATION] [--gpus N] [--threads N] [--reference numpy]` (bench_analysis.c);
 * returns the exit code. */
int bench_analysis_main(int argc, char **argv);
extern const struct cli_cmd bench_analysis_cli;

#endif
