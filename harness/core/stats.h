/* harness/core/stats.h: growable series with percentiles, and running min/max/mean accumulators. */
#ifndef GAUNTLET_STATS_H
#define GAUNTLET_STATS_H

#include <stddef.h>
#include <stdint.h>

struct series {
    double *v;
    size_t n, cap;
    int sorted;
};

struct acc {
    double sum, min, max;
    uint64_t n;
};

/* Appends x (NAN is skipped: missing values are not data). */
void series_add(struct series *s, double x);
/* Returns the p-th percentile (0..100, linear interpolation), NAN when empty. Sorts s in place. */
double series_pct(struct series *s, double p);
/* Returns the mean, NAN when empty. */
double series_mean(const struct series *s);
void series_free(struct series *s);

/* The paired ratios num[i] / den[i] of n pairs (a pair with a member not finite and positive is skipped): their
 * median into *median and a distribution-free confidence interval of that median at level conf (e.g. 0.95) into
 * [*lo, *hi] — the order statistics x_(k) and x_(m+1-k) of the m ratios, k the largest with P(Binomial(m, 1/2) < k)
 * <= (1 - conf) / 2, so the interval holds the true median with probability >= conf whatever the noise's
 * distribution, as long as the pairs are independent. With too few pairs for the level (under 6 at 0.95) no such
 * k exists and the interval is the whole range [min, max]. Returns m, the pairs used (0: all NAN). */
size_t ratio_median_ci(const double *num, const double *den, size_t n, double conf, double *median, double *lo,
                       double *hi);
/* A ratio judged against an aim from its median and interval: 1 when the median reaches it, -1 when even the
 * interval's top stays under it (below, resolved), 0 when the median is under it but the interval reaches it (the
 * measurement cannot tell). */
int ratio_verdict(double median, double hi, double aim);

void acc_reset(struct acc *a);
/* Adds x (NAN skipped). */
void acc_add(struct acc *a, double x);
/* Returns the mean, or NAN when nothing was added. */
double acc_mean(const struct acc *a);
/* Returns min, max, max − min, each NAN when empty. */
double acc_min(const struct acc *a);
double acc_max(const struct acc *a);
double acc_swing(const struct acc *a);

#endif
