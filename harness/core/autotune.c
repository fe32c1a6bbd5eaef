/* harness/core/autotune.c: the fastest of n candidates, timed in rotated rounds (autotune.h). */
#include "autotune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

/* The median of the n values at v (sorted in place). */
static double median(double *v, size_t n)
{
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && v[b] < v[b - 1]; b--) {
            double x = v[b];
            v[b] = v[b - 1];
            v[b - 1] = x;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int autotune_pick(int n, autotune_time_fn time_one, void *ctx, int calls, int rounds, double tie_rel, double *per_call)
{
    if (n < 1 || !time_one || calls < 1 || rounds < 1)
        return -1;
    int pairs = (rounds + 1) / 2;   /* a forward round and a backward one: a linear drift cancels in their mean */
    double *t = xcalloc((size_t)n * (size_t)(2 * pairs), sizeof *t);
    int *out = xcalloc((size_t)n, sizeof *out);
    for (int r = 0; r < 2 * pairs; r++)
        for (int j = 0; j < n; j++) {
            int i = r % 2 ? n - 1 - j : j;
            if (out[i])
                continue;
            double s = time_one(ctx, i, calls);
            if (!(s >= 0) || !isfinite(s))
                out[i] = 1;
            else
                t[(size_t)i * (size_t)(2 * pairs) + (size_t)r] = s / calls;
        }
    /* per pair, each candidate's mean against the pair's median candidate: what drifts between pairs (the whole
     * device getting slower) is common to the pair and divides out; the score is the median of those ratios */
    double *pm = xcalloc((size_t)n * (size_t)pairs, sizeof *pm), *col = xcalloc((size_t)n, sizeof *col);
    double *med = xcalloc((size_t)n, sizeof *med), *score = xcalloc((size_t)n, sizeof *score);
    double *ratio = xcalloc((size_t)pairs, sizeof *ratio), best = INFINITY;
    int active = 0;
    for (int i = 0; i < n; i++) {
        const double *ti = t + (size_t)i * (size_t)(2 * pairs);
        for (int k = 0; k < pairs; k++)
            pm[(size_t)i * (size_t)pairs + (size_t)k] = 0.5 * (ti[2 * k] + ti[2 * k + 1]);
        active += !out[i];
    }
    for (int k = 0; k < pairs && active; k++) {
        int c = 0;
        for (int i = 0; i < n; i++)
            if (!out[i])
                col[c++] = pm[(size_t)i * (size_t)pairs + (size_t)k];
        double ref = median(col, (size_t)c);
        for (int i = 0; i < n; i++)   /* score holds ratios per candidate in pm's stead */
            if (!out[i])
                pm[(size_t)i * (size_t)pairs + (size_t)k] /= ref > 0 ? ref : 1;
    }
    for (int i = 0; i < n; i++) {
        if (out[i]) {
            med[i] = score[i] = NAN;
            continue;
        }
        const double *ti = t + (size_t)i * (size_t)(2 * pairs);
        for (int k = 0; k < pairs; k++)
            ratio[k] = 0.5 * (ti[2 * k] + ti[2 * k + 1]);
        med[i] = median(ratio, (size_t)pairs);   /* seconds per call, for the record */
        for (int k = 0; k < pairs; k++)
            ratio[k] = pm[(size_t)i * (size_t)pairs + (size_t)k];
        score[i] = median(ratio, (size_t)pairs);   /* a one-off spike spoils one pair only */
        if (score[i] < best)
            best = score[i];
    }
    int pick = -1;
    for (int i = 0; i < n && pick < 0; i++)   /* the first within tie_rel of the fastest: the list's order decides */
        if (!out[i] && score[i] <= best * (1 + (tie_rel > 0 ? tie_rel : 0)))
            pick = i;
    for (int i = 0; per_call && i < n; i++)
        per_call[i] = med[i];
    free(t);
    free(out);
    free(med);
    free(pm);
    free(col);
    free(score);
    free(ratio);
    return pick;
}

int autotune_timing_parse(const char *text, double *call_s, double *warm_s, char *why, size_t n)
{
    char *end = (char *)text;
    double ms = text ? strtod(text, &end) : NAN, w = 0;
    if (text && end != text && *end == ',') {
        const char *p = end + 1;
        w = strtod(p, &end);
        if (end == p)
            end = (char *)text;   /* nothing after the comma */
    }
    if (!text || end == text || *end || !(ms >= 0.1 && ms <= 200) || !(w >= 0 && w <= 5)) {
        snprintf(why, n, "'%s': expected CALL_MS[,WARM_S] with 0.1 <= CALL_MS <= 200 (ms) and 0 <= WARM_S <= 5 (s)",
                 text ? text : "");
        return -1;
    }
    *call_s = ms * 1e-3;
    *warm_s = w;
    return 0;
}
