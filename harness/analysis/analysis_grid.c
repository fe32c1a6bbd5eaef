/* harness/analysis/analysis_grid.c: the time grid every power trace is put on before it is measured (see analysis.h):
 * integer nanoseconds, each sample on its nearest point, gaps left as gaps. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis.h"
#include "util.h"

struct an_grid an_grid_of_hz(int64_t t0_ns, double hz)
{
    int64_t den = hz > 0 ? llround(hz * 1000) : 0;   /* a step of 1e12 / den ns: hz to a thousandth of a hertz */
    return den > 0 ? (struct an_grid){ t0_ns, 1000000000000LL, den } : (struct an_grid){ t0_ns, 0, 1 };
}

struct an_grid an_grid_of_step(int64_t t0_ns, int64_t step_ns) { return (struct an_grid){ t0_ns, step_ns, 1 }; }

double an_grid_dt(const struct an_grid *g)
{
    return g->num > 0 && g->den > 0 ? (double)((long double)g->num / ((long double)g->den * 1e9L)) : 0;
}

int64_t an_grid_time(const struct an_grid *g, int64_t i)
{
    __int128 x = (__int128)i * g->num;
    __int128 q = x / g->den;
    if (x % g->den != 0 && x < 0)
        q--;   /* floor */
    return g->t0_ns + (int64_t)q;
}

int64_t an_grid_nearest(const struct an_grid *g, int64_t t_ns)
{
    if (!(g->num > 0 && g->den > 0))
        return -1;
    __int128 x = ((__int128)t_ns - g->t0_ns) * g->den * 2 + g->num;   /* floor((t - t0) / step + 1/2) */
    __int128 d = (__int128)g->num * 2;
    __int128 q = x / d;
    if (x % d != 0 && x < 0)
        q--;
    return q > INT64_MAX ? INT64_MAX : q < INT64_MIN ? INT64_MIN : (int64_t)q;
}

size_t analysis_place(const struct an_grid *g, const int64_t *t_ns, const double *v, size_t n, double *out, size_t m,
                      size_t *merged)
{
    size_t valid = 0, dup = 0;
    unsigned char *hit = xcalloc(m ? m : 1, 1);
    for (size_t i = 0; i < m; i++)
        out[i] = NAN;
    for (size_t i = 0; i < n; i++) {
        int64_t k = an_grid_nearest(g, t_ns[i]);
        if (k < 0 || (uint64_t)k >= m)
            continue;
        if (hit[k] && k > 0 && !hit[k - 1]) {
            /* a late sample and the next, on time, on one point with the point before empty: the earlier goes there
             * (every reading kept, in order; a sampler held up at a phase edge then caught up dropped one there) */
            out[k - 1] = out[k];
            hit[k - 1] = 1;
        } else if (hit[k]) {
            dup++;
            valid -= !isnan(out[k]);
        }
        hit[k] = 1;
        out[k] = v[i];
        valid += !isnan(v[i]);
    }
    free(hit);
    if (merged)
        *merged = dup;
    return valid;
}

size_t analysis_place_lowpass(const struct an_grid *g, const int64_t *t_ns, const double *v, size_t n, double *out,
                              size_t m, size_t *merged)
{
    double *wsum = xcalloc(m ? m : 1, sizeof *wsum), step = an_grid_dt(g) * 1e9;
    size_t placed = 0, valid = 0;
    for (size_t i = 0; i < m; i++)
        out[i] = 0;
    for (size_t i = 0; i < n && step > 0; i++) {
        if (!isfinite(v[i]))
            continue;
        int64_t k = an_grid_nearest(g, t_ns[i]);
        int64_t lo = t_ns[i] >= an_grid_time(g, k) ? k : k - 1;   /* the points either side of the sample */
        int used = 0;
        for (int64_t q = lo; q <= lo + 1; q++) {
            if (q < 0 || (uint64_t)q >= m)
                continue;
            double w = 1 - fabs((double)(t_ns[i] - an_grid_time(g, q))) / step;
            if (w > 0) {
                out[q] += w * v[i];
                wsum[q] += w;
                used = 1;
            }
        }
        placed += used;
    }
    for (size_t i = 0; i < m; i++) {
        out[i] = wsum[i] > 0 ? out[i] / wsum[i] : NAN;
        valid += wsum[i] > 0;
    }
    free(wsum);
    if (merged)
        *merged = placed > valid ? placed - valid : 0;
    return valid;
}

size_t analysis_resample(const double *t, const double *v, size_t n, double dt, double **out)
{
    *out = NULL;
    if (!n || !(dt > 0) || !(t[n - 1] >= t[0]))
        return 0;
    int64_t step = dt < 1e9 ? llround(dt * 1e9) : 0;
    if (step < 1 || !((t[n - 1] - t[0]) * 1e9 < 9e18) || (t[n - 1] - t[0]) / dt > 1e9)
        return 0;   /* a span beyond int64 ns, or more than 1e9 points: no grid */
    struct an_grid g = an_grid_of_step(0, step);
    int64_t *tn = xmalloc(n * sizeof *tn);
    for (size_t i = 0; i < n; i++)
        tn[i] = llround((t[i] - t[0]) * 1e9);
    int64_t last = an_grid_nearest(&g, tn[n - 1]);
    size_t m = (size_t)(last < 0 ? 0 : last) + 1;
    double *y = xmalloc(m * sizeof *y);
    analysis_place(&g, tn, v, n, y, m, NULL);
    free(tn);
    *out = y;
    return m;
}
