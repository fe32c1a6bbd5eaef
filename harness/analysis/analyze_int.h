/* harness/analysis/analyze_int.h: a trace read whole, shared by analyze.c and analyze_series.c. */
#ifndef GAUNTLET_ANALYZE_INT_H
#define GAUNTLET_ANALYZE_INT_H

#include <stddef.h>
#include <stdint.h>

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
};

/* The grid of a trace: hz when > 0, else its median interval (a whole number of hertz within 1 %). 0, or EXIT_INPUT. */
int az_grid(const struct az_trace *tr, double hz, int64_t t0, struct an_grid *g, double *median_hz);

#endif
