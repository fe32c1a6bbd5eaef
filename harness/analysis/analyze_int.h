/* harness/analysis/analyze_int.h: a trace read whole, shared by analyze.c, analyze_grid.c and analyze_series.c. */
#ifndef GAUNTLET_ANALYZE_INT_H
#define GAUNTLET_ANALYZE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "analysis.h"

struct az_sample {
    int64_t t;     /* ns: since the epoch for timestamps, else since 0 */
    double w;      /* NAN: not measured */
    long line;
};

struct az_gpu {
    long id;
    struct az_sample *s;
    size_t n, cap, valid;
    struct an_stamps *stamps;   /* its readings' own sample times (a sample_t_s column): NULL where none */
};

/* What the reader put up with: counted, the first line named; each an error with --strict. */
enum { AZW_ORDER, AZW_DUPLICATE, AZW_RANGE, AZW_N };
struct az_trace {
    const char *path;
    struct az_gpu *g;
    int ng, cap;
    long warn[AZW_N], warn_line[AZW_N];
    long missing;              /* rows with no reading (empty, [N/A]): not measured, not an error */
    int absolute;              /* 1: timestamps with a date; 0: seconds; -1: not yet known */
    double max_w;
    int view;                  /* 1: a window of another trace (its samples borrowed, not freed here) */
    char column[48];           /* the power column's name as the header gives it */
    int averaged;              /* that column is a 1 s average on Ampere and newer GPUs (nvidia-smi's power.draw, DCGM's
                                * field 155), not an instantaneous reading */
    int64_t whole;             /* > 0: read only the rows that end within the first `whole` bytes (analyze_load_rows) */
    int own;                   /* a results folder's own power.csv (analyze_load_rows): its grid begins at its first
                                * row, as the run's own analysis (the figures agree with summary.json's) */
    int decimated;             /* GPUs whose own rate is over 1.5 x the grid's: filtered onto it (analyze.c) */
    int *hidx;                 /* while reading: the GPUs by id (open addressing, 1 + index into g; 0: empty) */
    size_t hcap;
};

/* The warnings' names in the JSON (analyze.c). */
extern const char *const az_warn_names[AZW_N];
/* Prints the analysis of tr (res: its GPUs' then the sum's, proj the projection; m points dt apart; median_hz, merged:
 * the grid's) named path: JSON (json; into *json_out where given) or the table (analyze_print.c). 0, or EXIT_ENV when
 * stdout fails. */
int az_print(const char *path, const struct az_trace *tr, const struct an_result *res, const struct an_projection *proj,
             size_t m, double dt, double median_hz, size_t merged, int json, int64_t gpus, const struct an_spec *spec,
             json_t **json_out);

/* A JSON string of s as valid UTF-8: a byte that starts no character (a file name in another encoding) becomes U+FFFD
 * (jansson refuses a string that is not UTF-8, and the output was lost; analyze_print.c). */
json_t *az_json_string(const char *s);

/* What an averaged power column means for the figures. */
#define AZ_AVERAGED_NOTE                                                                                            \
    "the power column is one that Ampere and newer GPUs average over 1 s (nvidia-smi's power.draw, DCGM's "           \
    "DCGM_FI_DEV_POWER_USAGE): swings, ramps and frequencies faster than ~1 s read smaller than the power's; "          \
    "read power.draw.instant (or DCGM_FI_DEV_POWER_USAGE_INSTANT) for them"

/* The most points a GPU's grid may have (analyze_grid.c): 11.5 days at 1 kHz, 115 days at 100 Hz. */
#define AZ_MAX_POINTS 1e9

/* The grid of a trace: hz when > 0, else the mean interval around the median (a whole number of hertz within 1 %), its
 * points at the samples' mean phase. 0, or EXIT_INPUT. */
int az_grid(const struct az_trace *tr, double hz, int64_t t0, struct an_grid *g, double *median_hz);
/* One GPU's own rate, as az_grid takes the trace's (the mean of its intervals around their median), in Hz; NAN with
 * fewer than two samples at distinct times. */
double az_gpu_hz(const struct az_gpu *g);
/* The points of grid g from t0 to t1 (ns) into *m, when at most AZ_MAX_POINTS and when the analysis of tr on them fits
 * in half the memory this process may use, on *threads threads (0: the machine's cores), lowered to fit. 0, or
 * EXIT_INPUT naming the widest gap between two rows (or the span) that makes the grid too large. */
int az_points(const struct az_trace *tr, const struct an_grid *g, int64_t t0, int64_t t1, int *threads, size_t *m);
/* The widest gap between a GPU's successive samples (ns == 0: none): the lines before and after it. */
struct az_gap {
    int64_t ns;
    long line_a, line_b, gpu;
};
struct az_gap az_widest_gap(const struct az_trace *tr);
/* The samples of all in [lo, hi] (ns), GPU by GPU, borrowed from all (sorted by az_order); a GPU with none there is
 * left out. 0, or EXIT_INPUT when nothing or a GPU without a valid reading is left: why (wn bytes) says which, and
 * stderr says it naming title. */
int az_window(const struct az_trace *all, int64_t lo, int64_t hi, const char *title, struct az_trace *out, char *why,
              size_t wn);
/* Returns a - b, held at the ends of int64 rather than overflowing. */
int64_t az_sub_sat(int64_t a, int64_t b);

#endif
