/* harness/results/runstretch.c: the one stretch of a run its figures are taken over (see runstats.h,
 * runstats_stretch). */
#include <stdlib.h>

#include "runstats.h"
#include "util.h"

/* The ticks from ns (absolute) to the end of the analysed stretch (runstats_power_end): the run's own, not the drop to
 * idle after it. */
static size_t runstats_ticks_from(const struct run_stats *rs, uint64_t ns)
{
    int64_t from = ns > rs->t_begin ? (int64_t)(ns - rs->t_begin) : 0, done = runstats_power_end(rs);
    size_t n = 0;
    for (size_t i = 0; i < rs->nticks; i++)
        n += rs->tick_ns[i] >= from && rs->tick_ns[i] <= done;
    return n;
}

/* Whether the figures cannot start at the warm-up: too few ticks of the run after it, or no iteration. */
static int runstats_too_short(const struct run_stats *rs)
{
    return runstats_ticks_from(rs, rs->warm_ns) < RS_STRETCH_MIN || rs->warm_iter >= runstats_iterations(rs);
}

/* Where the figures start (power, energy, throughput, truth; runstats_stretch): past the power's settling; a run
 * that ended before it settled, or with too few ticks or no iteration after, from its first iteration's end; too
 * few from there, from its start; either says unsettled: true (the warm-up in its figures). A run not sampled
 * (power.sample_hz 0: no ticks) is moved only where it never settled. */
void runstats_settle_stretch(struct run_stats *rs)
{
    if (!rs->first_ns)
        return;   /* no iteration: nothing to analyse from */
    if (!rs->warm_ns || (rs->nticks && rs->warm_ns > rs->first_ns && runstats_too_short(rs))) {
        rs->warm_ns = rs->first_ns;
        rs->warm_iter = 1;
        rs->unsettled = 1;
    }
    if (rs->nticks && rs->warm_ns > rs->t_begin && runstats_too_short(rs)) {
        rs->warm_ns = rs->t_begin;   /* runstats_stretch takes every tick from the start */
        rs->warm_iter = 0;
        rs->unsettled = 1;
    }
}

void runstats_stretch(const struct run_stats *rs, size_t *a, size_t *b)
{
    int64_t warm = rs->warm_ns > rs->t_begin ? (int64_t)(rs->warm_ns - rs->t_begin) : 0;
    int64_t done = runstats_power_end(rs);
    size_t i = 0, j = rs->nticks;
    while (i < rs->nticks && rs->tick_ns[i] < warm)
        i++;
    while (j > 0 && rs->tick_ns[j - 1] > done)
        j--;
    if (j < i + RS_STRETCH_MIN)
        i = 0;   /* too short a run to leave anything out */
    if (j < i + RS_STRETCH_MIN)
        j = rs->nticks;   /* nor its end */
    *a = i;
    *b = j;
}

struct rs_trace *runstats_trace(const struct run_stats *rs)
{
    size_t a, b;
    runstats_stretch(rs, &a, &b);
    int64_t iters = runstats_iterations(rs) - rs->warm_iter;
    if (b - a < 2 || iters < 1)
        return NULL;
    struct rs_trace *t = xcalloc(1, sizeof *t);
    t->n = b - a;
    t->nranks = rs->nranks;
    t->iters = iters;
    t->t_s = xmalloc(t->n * sizeof *t->t_s);
    t->w = xmalloc(t->n * (size_t)rs->nranks * sizeof *t->w);
    if (rs->tick_true)
        t->truth = xmalloc(t->n * (size_t)rs->nranks * sizeof *t->truth);
    for (size_t i = 0; i < t->n; i++) {
        t->t_s[i] = (double)rs->tick_ns[a + i] * 1e-9;
        for (int r = 0; r < rs->nranks; r++) {
            t->w[(size_t)r * t->n + i] = rs->tick_w[r][a + i];
            if (t->truth)
                t->truth[(size_t)r * t->n + i] = rs->tick_true[r][a + i];
        }
    }
    return t;
}

void rs_trace_free(struct rs_trace *t)
{
    if (!t)
        return;
    free(t->t_s);
    free(t->w);
    free(t->truth);
    free(t);
}
