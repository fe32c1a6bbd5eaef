/* harness/core/stats.c: series percentiles and running accumulators (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

void series_add(struct series *s, double x)
{
    if (isnan(x))
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = x;
    s->sorted = 0;
}

/* Orders doubles for qsort. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double series_pct(struct series *s, double p)
{
    if (!s->n)
        return NAN;
    if (!s->sorted) {
        qsort(s->v, s->n, sizeof *s->v, cmp_double);
        s->sorted = 1;
    }
    double pos = p / 100.0 * (double)(s->n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= s->n)
        return s->v[s->n - 1];
    return s->v[i] + (pos - (double)i) * (s->v[i + 1] - s->v[i]);
}

double series_mean(const struct series *s)
{
    if (!s->n)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->v[i];
    return sum / (double)s->n;
}

void series_free(struct series *s)
{
    free(s->v);
    *s = (struct series){ 0 };
}

void acc_reset(struct acc *a) { *a = (struct acc){ 0, INFINITY, -INFINITY, 0 }; }

void acc_add(struct acc *a, double x)
{
    if (isnan(x))
        return;
    if (!a->n) {
        a->min = INFINITY;
        a->max = -INFINITY;
    }
    a->sum += x;
    a->n++;
    if (x < a->min)
        a->min = x;
    if (x > a->max)
        a->max = x;
}

double acc_mean(const struct acc *a) { return a->n ? a->sum / (double)a->n : NAN; }
double acc_min(const struct acc *a) { return a->n ? a->min : NAN; }
double acc_max(const struct acc *a) { return a->n ? a->max : NAN; }
double acc_swing(const struct acc *a) { return a->n ? a->max - a->min : NAN; }
