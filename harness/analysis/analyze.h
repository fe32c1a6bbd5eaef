/* harness/analysis/analyze.h: `gauntlet analyze` and `gauntlet bench analysis`. */
#ifndef GAUNTLET_ANALYZE_H
#define GAUNTLET_ANALYZE_H

#include <jansson.h>
#include <stdint.h>
#include <string.h>

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
    const char *align;                    /* a results folder whose runs cut an outside trace (--align) */
    double clock_offset;                  /* with align: the trace's clock minus the run's host's, s */
    double period_s;                      /* analyze_window: the iteration's period where known (0: not) */
    int hz_run;                           /* hz is the run's own (a results folder's start event), not --hz */
    const struct an_spec *spec;           /* analyze_window: the projection's spec (NULL: none; its band analysed too) */
    unsigned long long seed;              /* analyze_window: the groups' shifts (0: 1), as a run draws them (its seed) */
    int seed_set;                         /* seed is a run's own, 0 included (summarize): taken as it is */
    char *why;                            /* analyze_window: where set, why it gave up (why_n bytes), as stderr says */
    size_t why_n;
};

/* A power trace read whole (analyze.c): every GPU's samples, in time order, checked. */
struct az_trace;
/* Reads and checks the trace at path (its warnings said once; --strict makes them errors); NULL with *rc the exit
 * code when it cannot be used. */
struct az_trace *analyze_load(const struct az_opts *o, const char *path, int *rc);
/* As analyze_load, of a file a killed or crashed run may have left cut: the rows that end with a newline, a last row
 * without one and NUL bytes at the end (what a kill or a crash leaves) ignored and said on stderr; a file with no
 * whole row is EXIT_INPUT, said. */
struct az_trace *analyze_load_rows(const struct az_opts *o, const char *path, int *rc);
void analyze_free(struct az_trace *tr);
/* Whether tr has a GPU whose id is outside [lo, hi): 1 with its id and its first row's line, else 0. */
int analyze_gpu_outside(const struct az_trace *tr, long lo, long hi, long *id, long *line);
/* Moves every sample of tr earlier by by_ns (a trace of wall-clock timestamps onto a run's own clock). Returns 1 when
 * tr's times are timestamps with a date, 0 when they are seconds (nothing moved). */
int analyze_shift(struct az_trace *tr, int64_t by_ns);
/* Analyses the samples of tr in [lo, hi] ns (one run of a results folder; INT64_MIN..INT64_MAX: all) and prints the
 * result named title (json_out: the JSON object goes there instead of stdout). Returns the exit code. */
int analyze_window(const struct az_opts *o, const struct az_trace *tr, const char *title, int64_t lo, int64_t hi,
                   json_t **json_out);
/* analyze_load, then analyze_window over the whole trace. */
int analyze_file(const struct az_opts *o, const char *path, json_t **json_out);
/* The bytes this process may use: the least of the machine's memory, its cgroup's limit and its address-space and
 * data limits (ulimit -v, -d); what analyze sizes its grids against (INFINITY: no limit read). */
double analyze_memory_bytes(void);
/* `gauntlet summarize RUNDIR [--force]` (summarize.c): a killed run's summary.json rebuilt from its record. */
int summarize_main(int argc, char **argv);
extern const struct cli_cmd summarize_cli;
/* Rebuilds dir/summary.json (force: over one the run wrote itself). 0 with msg saying what was rebuilt, or the exit
 * code with msg saying why not. */
int summarize_dir(const char *dir, int force, char *msg, size_t msgn);
/* What rebuilds a several-node record's cluster power for summarize_dir (results/ has the grid sum; main sets it):
 * given the folder, node 0's start event, the largest clock uncertainty of any node (NAN: none said), the fault
 * events (a node_lost leaves the sum) and each run's window ([{run, from_s, to_s, analysed}]: the stretch node 0's
 * run_end says the run analysed (analysed: true), else from its start, to_s null when it did not end),
 * it adds power.cluster to each run of summary's runs[], or power_cluster_note to summary saying why not. */
typedef void (*summarize_cluster_fn)(const char *dir, const json_t *start, double clock_uncert_s, const json_t *faults,
                                     const json_t *windows, json_t *summary);
void summarize_set_cluster(summarize_cluster_fn fn);

/* Reads GPU number gpu (0: the first in the file) of the trace at path as one series on its own grid (the median
 * interval), gaps filled by the line between their neighbours: at most cap samples into w, their count in *n and
 * the interval in *dt_s; *ng gets how many GPUs the trace has (0: it could not be read). 0, or EXIT_INPUT with why
 * (gpu >= *ng: the GPU is not in the trace). */
int analyze_series(const char *path, long gpu, float *w, size_t cap, int *n, double *dt_s, int *ng, char *why,
                   size_t wn);
/* `gauntlet bench analysis [--seconds DURATION] [--gpus N] [--threads N] [--reference numpy]` (bench_analysis.c);
 * returns the exit code. */
int bench_analysis_main(int argc, char **argv);
extern const struct cli_cmd bench_analysis_cli;

/* power.csv writes its times to the microsecond: a run's analysed stretch (full precision in events.jsonl) is
 * widened by this much so that its first and last ticks are inside it (ticks are milliseconds apart). */
#define AZ_CSV_STAMP_NS 1000

/* The rate of a run's power.csv rows, as its start event says it: sample_hz, or forward_hz where it is slower and
 * the other nodes' rows come at it (several nodes, forward: ranks), as the live view's window takes it; within
 * [0.001, 1e6] Hz (what --hz accepts); 0 where it does not say. A results folder's own power.csv is analysed on that
 * grid, as the run analysed it: a grid of the samples' own rate (their intervals' mean) moves with the ticks'
 * lateness on a loaded machine, and 2026-11-29 on 2 busy cores read 202 Hz, put the samples on other points and
 * changed a 1 s ramp by 9 %. */
static inline double az_start_hz(const json_t *start)
{
    double hz = json_number_value(json_object_get(start, "sample_hz")), fwd = json_number_value(json_object_get(start, "forward_hz"));
    const char *mode = json_string_value(json_object_get(start, "forward"));
    if (json_integer_value(json_object_get(start, "nodes")) > 1 && !(mode && strcmp(mode, "nodes") == 0) && fwd > 0 &&
        fwd < hz)
        hz = fwd;
    return hz >= 0.001 && hz <= 1e6 ? hz : 0;
}

#endif
