/* harness/analysis/analysis_int.h: what analysis.c, analysis_spectrum.c and analysis_project.c share (not part of the
 * analysis's API). */
#ifndef GAUNTLET_ANALYSIS_INT_H
#define GAUNTLET_ANALYSIS_INT_H

#include <stddef.h>

#include "analysis.h"

/* The span of x from its first valid sample to its last: [*a, *b); *a == *b when nothing is valid. */
void an_span(const double *x, size_t n, size_t *a, size_t *b);
/* Returns a copy of x[a..b) (x[a] and x[b - 1] valid) with each inner gap filled by linear interpolation between
 * the valid samples around it. */
double *an_filled(const double *x, size_t a, size_t b);
/* out[i] = sum over c of w[c] x[(i + c) mod n], for i < n: the circular correlation of x with w (each n long), by FFT.
 * 0, or -1 when FFTW cannot. */
int an_correlate(const double *x, const double *w, size_t n, double *out);
/* The projection adds its groups by FFT (an_correlate) once (distinct shifts) x (points) passes this; below it, the
 * direct sum (exact to the last bit). Tests lower it to hold the two against each other. */
extern double an_project_fft_min;
/* Nulls in r (and names in its unresolved) what readings held update_s apart cannot resolve, as analysis_run does
 * for a held series: ramps over windows under two updates, bands past half the update rate, a dominant frequency
 * unless both it and the iteration (period_s) are under 0.95 of that half. For a trace built from such readings that
 * is no longer them (the cluster's sum of their lines). */
void an_null_held(struct an_result *r, double update_s, double period_s);
/* The mean, p99 - p1 and max - min of v[0..n) (no gap), as analysis_run takes them, reordering v; NAN where n is 0. */
void an_stats(double *v, size_t n, double *mean, double *swing, double *range);
/* Whether s[lo, hi) of mean `mean`, whose readings change every update_s, is a held sensor's: held over 1.5 samples
 * and more than four levels or at least three changes in each cycle of its own strongest frequency or of its
 * iteration. */
int an_series_held(const struct an_series *s, size_t lo, size_t hi, double mean, double update_s);
/* an_sensor_measure, and *pairs: the pairs of neighbouring valid samples its *distinct changes are counted over (both
 * 0 where n < 2 or dt is not positive), as analysis_run's bound on what a series that is no sensor's can resolve
 * counts them: one pass over x for both. */
void an_sensor_count(const double *x, size_t n, double dt, double *update_s, size_t *distinct, size_t *pairs);

/* The spectrum of x[a..b) (mean removed, inner gaps interpolated): *dominant (NAN where none: the bin of the strongest
 * main lobe, or the fundamental of it where a whole fraction of it holds half its power) and, for each of
 * bands[0..n_bands), the share of the fluctuation's energy in it (out; NAN where no bin lies in the band). 0, or -1
 * where FFTW cannot. */
int an_spectrum(const double *x, size_t a, size_t b, double dt, double mean, const struct an_band *bands, int n_bands,
                double *dominant, struct an_band *out);

#endif
