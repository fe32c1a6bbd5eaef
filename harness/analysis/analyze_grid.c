/* harness/analysis/analyze_grid.c: the grid a trace is analysed on (`gauntlet analyze`): its rate from the samples'
 * intervals, and its size bounded by a stated cap and by the memory this process may use, so that a row far from
 * the rest is refused, naming the gap, instead of a grid over the whole span. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "analyze.h"
#include "analyze_int.h"
#include "util.h"

#define AZ_MAX_GAP_NS 3600000000000LL   /* the longest a GPU may go without a sample: an hour */

/* Returns a - b, held at the ends of int64 rather than overflowing. */
int64_t az_sub_sat(int64_t a, int64_t b)
{
    int64_t d;
    if (__builtin_sub_overflow(a, b, &d))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return d;
}

/* Orders int64 for qsort. */
static int az_cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Moves g's start to the samples' mean phase on it (the circular mean over up to 100,000 samples a GPU), at or
 * before its first sample: a logger's samples jitter around its step, and a grid begun at the first of them put the
 * rest off their points by that one's jitter too (+-4 ms at 100 Hz merged 12 % of the samples into a neighbour's
 * point). A trace on its step is where it was. */
static void az_grid_phase(const struct az_trace *tr, struct an_grid *g)
{
    double step = an_grid_dt(g) * 1e9, c = 0, s = 0;
    if (!(step > 0))
        return;
    for (int k = 0; k < tr->ng; k++)
        for (size_t i = 0; i < tr->g[k].n && i < 100000; i++) {
            double a = 2 * M_PI * fmod((double)az_sub_sat(tr->g[k].s[i].t, g->t0_ns), step) / step;
            c += cos(a);
            s += sin(a);
        }
    if (!(hypot(c, s) > 0))
        return;
    int64_t phi = llround(atan2(s, c) / (2 * M_PI) * step);   /* (-step/2, step/2] */
    if (phi > 0)
        phi -= llround(step);   /* the grid begins at or before the first sample */
    int64_t t0;
    if (!__builtin_add_overflow(g->t0_ns, phi, &t0))   /* a time at int64's end: the grid stays where it was */
        g->t0_ns = t0;
}

/* The grid: --hz when given, else the mean of the intervals between a GPU's successive samples from half to 1.5 times
 * their median, taken as a whole number of hertz when it is within 1 % of one (10 ms: 100 Hz exactly). 0, or
 * EXIT_INPUT. */
/* The step of the ng GPUs' samples together (ns; 0: none): the mean of their intervals around the median. */
static int64_t az_step(const struct az_gpu *gs, int ng)
{
    size_t cap = 0;
    for (int k = 0; k < ng; k++)
        cap += gs[k].n;
    int64_t *d = xmalloc((cap ? cap : 1) * sizeof *d);
    size_t nd = 0;
    for (int k = 0; k < ng; k++)
        for (size_t i = 1; i < gs[k].n; i++)
            d[nd++] = az_sub_sat(gs[k].s[i].t, gs[k].s[i - 1].t);
    if (nd)
        qsort(d, nd, sizeof *d, az_cmp64);
    int64_t med = nd ? d[nd / 2] : 0;
    /* the step: the mean of the intervals around the median (half to 1.5 times it: gaps and doubled samples left
     * out); a logger's timing jitter spreads the intervals evenly around its step, and their median alone moved with
     * it (a 100 Hz trace with +-4 ms of jitter read 99 Hz and lost 13 % of its samples to the grid) */
    if (med > 0) {
        double sum = 0;
        size_t k = 0;
        for (size_t i = 0; i < nd; i++)
            if (d[i] >= med / 2 && d[i] <= med + med / 2) {
                sum += (double)d[i];
                k++;
            }
        if (k)
            med = (int64_t)llround(sum / (double)k);
    }
    free(d);
    return med;
}

double az_gpu_hz(const struct az_gpu *g)
{
    int64_t step = az_step(g, 1);
    return step > 0 ? 1e9 / (double)step : NAN;
}

int az_grid(const struct az_trace *tr, double hz, int64_t t0, struct an_grid *g, double *median_hz)
{
    int64_t med = az_step(tr->g, tr->ng);
    *median_hz = med > 0 ? 1e9 / (double)med : NAN;
    if (med <= 0) {   /* whatever the grid's rate: one reading a GPU is no trace (a run killed at its first tick) */
        fprintf(stderr, "gauntlet analyze: %s: the time column does not advance (every GPU has one sample, or all at "
                        "one time)\n", tr->path);
        return EXIT_INPUT;
    }
    double est = 1e9 / (double)med, whole = round(est);
    if (hz > 0)
        *g = an_grid_of_hz(t0, hz);
    else
        *g = whole >= 1 && fabs(est - whole) <= 0.01 * est ? an_grid_of_hz(t0, whole) : an_grid_of_step(t0, med);
    if (!tr->own)   /* --hz too: begun at the first sample, its jitter put the rest off their points (merged 12 %) */
        az_grid_phase(tr, g);
    return 0;
}

struct az_gap az_widest_gap(const struct az_trace *tr)
{
    struct az_gap w = { 0 };
    for (int k = 0; k < tr->ng; k++)
        for (size_t i = 1; i < tr->g[k].n; i++) {
            int64_t d = az_sub_sat(tr->g[k].s[i].t, tr->g[k].s[i - 1].t);
            if (d > w.ns)
                w = (struct az_gap){ d, tr->g[k].s[i - 1].line, tr->g[k].s[i].line, tr->g[k].id };
        }
    return w;
}

/* Lowers *lim to the number in the file at path (a cgroup's limit; "max" or no file: no limit there). */
static void az_limit_file(const char *path, double *lim)
{
    char buf[64];
    if (read_small(path, buf, sizeof buf) <= 0)
        return;
    char *end;
    double v = strtod(buf, &end);
    if (end != buf && v > 0 && v < *lim)
        *lim = v;
}

/* Returns the bytes this process may use: the least of the machine's memory, its cgroup's limit and its address-
 * space and data limits (ulimit -v, -d); a limit that cannot be read is no limit. */
double analyze_memory_bytes(void)
{
    double lim = INFINITY;
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0)
        lim = (double)pages * (double)size;
    az_limit_file("/sys/fs/cgroup/memory.max", &lim);                     /* cgroup v2 */
    az_limit_file("/sys/fs/cgroup/memory/memory.limit_in_bytes", &lim);   /* cgroup v1 */
    const int res[] = { RLIMIT_AS, RLIMIT_DATA };
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++) {
        struct rlimit rl;
        if (getrlimit(res[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (double)rl.rlim_cur < lim)
            lim = (double)rl.rlim_cur;
    }
    return lim;
}

/* Says why the grid is too large: the gap that makes it so when there is one (more than half the span), else the
 * span. */
static void az_too_many(const struct az_trace *tr, const struct an_grid *g, int64_t t0, int64_t t1, double points,
                        const char *limit)
{
    double span_s = ((double)t1 - (double)t0) * 1e-9, hz = 1 / an_grid_dt(g);
    struct az_gap w = az_widest_gap(tr);
    if ((double)w.ns * 1e-9 > 0.5 * span_s)
        fprintf(stderr, "gauntlet analyze: %s:%ld: a gap of %.6g s after line %ld (GPU %ld) makes a grid of %.4g points "
                        "at %.6g Hz, %s; cut the trace at the gap (or choose a slower --hz)\n", tr->path, w.line_b,
                (double)w.ns * 1e-9, w.line_a, w.gpu, points, hz, limit);
    else
        fprintf(stderr, "gauntlet analyze: %s: the trace spans %.6g s: a grid of %.4g points at %.6g Hz, %s; cut the "
                        "trace (or choose a slower --hz)\n", tr->path, span_s, points, hz, limit);
}

int az_points(const struct az_trace *tr, const struct an_grid *g, int64_t t0, int64_t t1, int *threads, size_t *m)
{
    /* a GPU without a sample for over an hour: no recording is analysed across that (a clock that jumped, a stray
     * date, two logs run together); refused before its span is sized */
    struct az_gap w = az_widest_gap(tr);
    if (w.ns > AZ_MAX_GAP_NS) {
        fprintf(stderr, "gauntlet analyze: %s:%ld: a gap of %.6g s after line %ld (GPU %ld): over an hour without a "
                        "sample, the trace is not one recording; cut it at the gap\n", tr->path, w.line_b,
                (double)w.ns * 1e-9, w.line_a, w.gpu);
        return EXIT_INPUT;
    }
    int64_t last = an_grid_nearest(g, t1);
    double points = (double)last + 1;
    if (last < 0 || points > AZ_MAX_POINTS) {
        az_too_many(tr, g, t0, t1, points, "more than the 1e9 a GPU may have");
        return EXIT_INPUT;
    }
    /* the bytes a point costs (analyze.c, analysis.c): the GPUs' grids, the sum and its mean, and the larger of
     * analysis_run's working copies (the series held, filled, its transform: 4) on each thread and the projection's
     * (its trace filled, shifted and summed, then analysed: 7) */
    int t = *threads > 0 ? *threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    t = t < 1 ? 1 : t > tr->ng + 1 ? tr->ng + 1 : t;
    double budget = 0.5 * analyze_memory_bytes(), fixed = 8 * points * (tr->ng + 2);
    while (t > 1 && fixed + 8 * points * fmax(4.0 * t, 7) > budget)
        t--;   /* fewer threads at once before no analysis at all: the same figures, later */
    double need = fixed + 8 * points * fmax(4.0 * t, 7);
    if (need > budget) {
        char limit[160];
        snprintf(limit, sizeof limit, "which for %d GPU(s) needs about %.3g GiB, more than half the memory this process "
                 "may use (%.3g GiB)", tr->ng, need / 1073741824.0, 2 * budget / 1073741824.0);
        az_too_many(tr, g, t0, t1, points, limit);
        return EXIT_INPUT;
    }
    *threads = t;
    *m = (size_t)last + 1;
    return 0;
}

int az_window(const struct az_trace *all, int64_t lo, int64_t hi, const char *title, struct az_trace *out, char *why,
              size_t wn)
{
    *out = *all;
    out->view = 1;
    out->ng = 0;
    out->g = xcalloc((size_t)all->ng + 1, sizeof *out->g);
    for (int k = 0; k < all->ng; k++) {
        const struct az_gpu *g = &all->g[k];
        size_t a = 0, b = g->n;   /* [a, b): the first sample >= lo, the first > hi */
        for (size_t l = 0, h = g->n; l < h;) {
            size_t mid = l + (h - l) / 2;
            g->s[mid].t < lo ? (l = mid + 1) : (h = mid);
            a = l;
        }
        for (size_t l = a, h = g->n; l < h;) {
            size_t mid = l + (h - l) / 2;
            g->s[mid].t <= hi ? (l = mid + 1) : (h = mid);
            b = l;
        }
        if (b <= a)
            continue;   /* no row of this GPU in the window */
        struct az_gpu *v = &out->g[out->ng++];
        /* its sensor's stamps are the whole trace's: the update interval is the device's, not the window's */
        *v = (struct az_gpu){ .id = g->id, .s = g->s + a, .n = b - a, .stamps = g->stamps };
        for (size_t i = 0; i < v->n; i++)
            v->valid += !isnan(v->s[i].w);
        if (!v->valid) {
            snprintf(why, wn, "GPU %ld has no valid power reading in the run's time", g->id);
            fprintf(stderr, "gauntlet analyze: %s: %s\n", title, why);
            return EXIT_INPUT;
        }
    }
    if (!out->ng) {
        snprintf(why, wn, "no samples (no power row in the run's time)");
        fprintf(stderr, "gauntlet analyze: %s: %s\n", title, why);
        return EXIT_INPUT;
    }
    return 0;
}
