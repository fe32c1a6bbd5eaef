/* harness/analysis/analysis_grid.c: the time grid every power trace is put on before it is measured (see analysis.h):
 * integer nanoseconds, each sample on its nearest point, gaps left as gaps. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Marks in whole[0..m) the points of g whose window (one step either side) the valid samples of (t_ns, v) cover with
 * no gap: from a valid sample at or before its start to one at or after its end, no two successive valid samples more
 * than `join` ns apart (a NAN sample between two is a hole). */
static void an_lowpass_whole(const struct an_grid *g, const int64_t *t_ns, const double *v, size_t n, size_t m,
                             double step, double join, unsigned char *whole)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && !isfinite(v[i]))
            i++;
        if (i == n)
            break;
        size_t j = i, k = i + 1;   /* [t_ns[i], t_ns[j]]: a covered stretch */
        for (; k < n && (!isfinite(v[k]) || (double)(t_ns[k] - t_ns[j]) <= join); k++)
            if (isfinite(v[k]))
                j = k;
        int64_t q = an_grid_nearest(g, t_ns[i]);
        for (q = q < 0 ? 0 : q; (uint64_t)q < m; q++) {
            int64_t tq = an_grid_time(g, q);
            if ((double)(tq - t_ns[i]) < step - 0.5)
                continue;   /* its window begins before the stretch */
            if ((double)(t_ns[j] - tq) < step - 0.5)
                break;      /* ... ends after it */
            whole[q] = 1;
        }
        i = j + 1;
    }
}

/* Adds the sample (t, x) to the points of g either side of it, weighted by 1 - distance / step; 1 where it reached
 * one. */
static int an_lowpass_add(const struct an_grid *g, double step, int64_t t, double x, double *out, double *wsum,
                          size_t m)
{
    int64_t k = an_grid_nearest(g, t);
    int64_t lo = t >= an_grid_time(g, k) ? k : k - 1;
    int used = 0;
    for (int64_t q = lo; q <= lo + 1; q++) {
        if (q < 0 || (uint64_t)q >= m)
            continue;
        double w = 1 - fabs((double)(t - an_grid_time(g, q))) / step;
        if (w > 0) {
            out[q] += w * x;
            wsum[q] += w;
            used = 1;
        }
    }
    return used;
}

size_t analysis_place_lowpass(const struct an_grid *g, const int64_t *t_ns, const double *v, size_t n, double *out,
                              size_t m, double own_step_ns, size_t *merged)
{
    double *wsum = xcalloc(m ? m : 1, sizeof *wsum), step = an_grid_dt(g) * 1e9;
    size_t placed = 0, valid = 0, reached = 0, prev = SIZE_MAX;
    unsigned char *whole = xcalloc(m ? m : 1, 1);
    /* a hole of up to half a step (and 64 of the GPU's own samples) is bridged by the line between the samples
     * around it, at the GPU's own rate: the window stays whole and weighted as it would have been (normalised by
     * the weights present, a 10 ms hole in a 200 ms window moved the point towards the samples left) */
    int own = own_step_ns > 0 && step > 0;
    double bridge = own ? fmin(0.5 * step, 64 * own_step_ns) : 0;
    if (own)
        an_lowpass_whole(g, t_ns, v, n, m, step, fmax(1.5 * own_step_ns, bridge), whole);
    else
        memset(whole, 1, m);
    for (size_t i = 0; i < m; i++)
        out[i] = 0;
    for (size_t i = 0; i < n && step > 0; i++) {
        if (!isfinite(v[i]))
            continue;
        double d = prev == SIZE_MAX ? 0 : (double)(t_ns[i] - t_ns[prev]);
        if (own && d > 1.5 * own_step_ns && d <= bridge) {
            long nv = lround(d / own_step_ns) - 1;
            for (long j = 1; j <= nv; j++) {
                double f = (double)j / (double)(nv + 1);
                an_lowpass_add(g, step, t_ns[prev] + llround(f * d), v[prev] + f * (v[i] - v[prev]), out, wsum, m);
            }
        }
        placed += an_lowpass_add(g, step, t_ns[i], v[i], out, wsum, m);
        prev = i;
    }
    for (size_t i = 0; i < m; i++) {
        reached += wsum[i] > 0;
        /* a window the samples do not cover whole is the mean of a part of it: another time's level, a gap here */
        out[i] = wsum[i] > 0 && whole[i] ? out[i] / wsum[i] : NAN;
        valid += !isnan(out[i]);
    }
    free(wsum);
    free(whole);
    if (merged)
        *merged = placed > reached ? placed - reached : 0;
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
