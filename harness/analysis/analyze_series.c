/* harness/analysis/analyze_series.c: one GPU of a power trace as a uniform series (what a replay follows). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze.h"
#include "analyze_int.h"
#include "util.h"

int analyze_series(const char *path, long gpu, float *w, size_t cap, int *n, double *dt_s, int *ng, char *why,
                   size_t wn)
{
    struct az_opts o = { .gpus = 1, .groups = 1, .max_w = 5000 };
    int rc;
    *ng = 0;
    FILE *probe = fopen_regular(path, "r");   /* one that cannot be opened: its reason here, in the caller's line */
    if (!probe)
        return snprintf(why, wn, "%s", errno == EINVAL ? "not a regular file" : strerror(errno)), EXIT_INPUT;
    fclose(probe);
    struct az_trace *tr = analyze_load(&o, path, &rc);
    if (!tr)
        return snprintf(why, wn, "cannot be read as a power trace (the reason is above)"), EXIT_INPUT;
    rc = EXIT_INPUT;
    *ng = tr->ng;
    struct an_grid g;
    double hz;
    if (gpu >= tr->ng) {
        snprintf(why, wn, "the trace has %d GPU%s: 0..%d; expected one of them, got %ld", tr->ng,
                 tr->ng == 1 ? "" : "s", tr->ng - 1, gpu);
        goto out;
    }
    const struct az_gpu *gp = &tr->g[gpu];
    if (gp->n < 2 || az_grid(tr, 0, gp->s[0].t, &g, &hz) != 0) {
        snprintf(why, wn, "GPU %ld of the trace has fewer than two samples in time order", gpu);
        goto out;
    }
    int64_t last = an_grid_nearest(&g, gp->s[gp->n - 1].t);
    if (last < 0 || (uint64_t)last >= cap) {
        struct az_trace one = *tr;   /* this GPU's rows only */
        one.g = tr->g + gpu;
        one.ng = 1;
        struct az_gap gap = az_widest_gap(&one);
        char at[160] = "";
        if ((double)gap.ns > 0.5 * ((double)gp->s[gp->n - 1].t - (double)gp->s[0].t))
            snprintf(at, sizeof at, " (most of them the gap of %.6g s between lines %ld and %ld)", (double)gap.ns * 1e-9,
                     gap.line_a, gap.line_b);
        snprintf(why, wn, "%.6g samples at the trace's interval (%.6g s)%s: more than the %zu a replay takes; cut the "
                          "trace", (double)last + 1, an_grid_dt(&g), at, cap);
        goto out;
    }
    size_t m = (size_t)last + 1;
    int64_t *t = xmalloc(gp->n * sizeof *t);
    double *v = xmalloc(gp->n * sizeof *v), *x = xmalloc(m * sizeof *x);
    for (size_t i = 0; i < gp->n; i++) {
        t[i] = gp->s[i].t;
        v[i] = gp->s[i].w;
    }
    analysis_place(&g, t, v, gp->n, x, m, NULL);
    size_t prev = m;   /* the last valid point; gaps between two valid points are filled by the line between */
    for (size_t i = 0; i < m; i++) {
        if (isnan(x[i]))
            continue;
        for (size_t j = prev + 1; prev < m && j < i; j++)
            x[j] = x[prev] + (x[i] - x[prev]) * (double)(j - prev) / (double)(i - prev);
        prev = i;
    }
    size_t first = 0;
    while (first < m && isnan(x[first]))
        first++;
    *n = 0;
    for (size_t i = first; i < m && !isnan(x[i]); i++)
        w[(*n)++] = (float)x[i];
    *dt_s = an_grid_dt(&g);
    free(t);
    free(v);
    free(x);
    if (*n < 2)
        snprintf(why, wn, "GPU %ld of the trace has fewer than two valid readings", gpu);
    else
        rc = 0;
out:
    analyze_free(tr);
    return rc;
}

int analyze_gpu_outside(const struct az_trace *tr, long lo, long hi, long *id, long *line)
{
    for (int k = 0; tr && k < tr->ng; k++)
        if (tr->g[k].id < lo || tr->g[k].id >= hi) {
            *id = tr->g[k].id;
            *line = tr->g[k].n ? tr->g[k].s[0].line : 0;
            return 1;
        }
    return 0;
}
