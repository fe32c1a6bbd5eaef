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
