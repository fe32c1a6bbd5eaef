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

size_t ratio_median_ci(const double *num, const double *den, size_t n, double conf, double *median, double *lo,
                       double *hi)
{
    double *r = xmalloc((n ? n : 1) * sizeof *r);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(num[i]) && isfinite(den[i]) && num[i] > 0 && den[i] > 0)
            r[m++] = num[i] / den[i];
    *median = *lo = *hi = NAN;
    if (m) {
        qsort(r, m, sizeof *r, cmp_double);
        *median = m % 2 ? r[m / 2] : 0.5 * (r[m / 2 - 1] + r[m / 2]);
        /* k: the most order statistics cut from each end with P(B(m, 1/2) < k) <= alpha / 2 */
        double half = (1 - conf) / 2, cdf = 0, lfull = lgamma((double)m + 1);
        size_t k = 0;
        for (size_t i = 0; i < m; i++) {
            cdf += exp(lfull - lgamma((double)i + 1) - lgamma((double)(m - i) + 1) - (double)m * log(2.0));
            if (cdf > half)
                break;
            k = i + 1;   /* P(B < i + 1) = cdf <= half */
        }
        if (k == 0 || 2 * k > m) {
            *lo = r[0];
            *hi = r[m - 1];
        } else {
            *lo = r[k - 1];
            *hi = r[m - k];
        }
    }
    free(r);
    return m;
}

int ratio_verdict(double median, double hi, double aim)
{
    if (median >= aim)
        return 1;
    return hi < aim ? -1 : 0;
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
