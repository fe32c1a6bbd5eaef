/* harness/analysis/analysis_spectrum.c: the power analysis's spectrum (analysis.h): FFTW's real-to-complex transform
 * under one lock for its planner, the dominant frequency and the band shares (an_spectrum), the amplitude spectrum a
 * report draws (analysis_spectrum), and the circular correlation the projection adds its groups by (an_correlate). */
#include <fftw3.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_int.h"
#include "stats.h"
#include "util.h"

static pthread_mutex_t planning = PTHREAD_MUTEX_INITIALIZER;   /* FFTW's planner is not thread-safe */

/* Makes a 1-d plan of n points under the planner's lock (dir 0: real to complex, else complex to real). */
static fftw_plan an_plan(int dir, size_t n, double *re, fftw_complex *c)
{
    pthread_mutex_lock(&planning);
    fftw_plan p = dir == 0 ? fftw_plan_dft_r2c_1d((int)n, re, c, FFTW_ESTIMATE)
                           : fftw_plan_dft_c2r_1d((int)n, c, re, FFTW_ESTIMATE);
    pthread_mutex_unlock(&planning);
    return p;
}

int an_correlate(const double *x, const double *w, size_t n, double *out)
{
    if (n < 1 || n > INT_MAX)
        return -1;
    size_t m = n / 2 + 1;
    double *re = fftw_alloc_real(n);
    fftw_complex *fx = fftw_alloc_complex(m), *fw = fftw_alloc_complex(m);
    fftw_plan fwd = re && fx && fw ? an_plan(0, n, re, fx) : NULL, fwd_w = fwd ? an_plan(0, n, re, fw) : NULL,
              back = fwd_w ? an_plan(1, n, re, fx) : NULL;
    int rc = back ? 0 : -1;
    if (back) {
        memcpy(re, x, n * sizeof *re);
        fftw_execute(fwd);   /* thread-safe */
        memcpy(re, w, n * sizeof *re);
        fftw_execute(fwd_w);
        for (size_t k = 0; k < m; k++) {   /* X conj(W): the correlation's transform */
            double a = fx[k][0], b = fx[k][1], c = fw[k][0], d = fw[k][1];
            fx[k][0] = (a * c + b * d) / (double)n;
            fx[k][1] = (b * c - a * d) / (double)n;
        }
        fftw_execute(back);
        memcpy(out, re, n * sizeof *out);
    }
    pthread_mutex_lock(&planning);
    if (fwd)
        fftw_destroy_plan(fwd);
    if (fwd_w)
        fftw_destroy_plan(fwd_w);
    if (back)
        fftw_destroy_plan(back);
    pthread_mutex_unlock(&planning);
    fftw_free(re);
    fftw_free(fx);
    fftw_free(fw);
    return rc;
}

/* Returns the transform of x[a..b) less mean, inner gaps interpolated (x[a] and x[b - 1] valid): (b - a) / 2 + 1
 * bins (fftw_free it), or NULL when FFTW cannot. */
static fftw_complex *an_fft(const double *x, size_t a, size_t b, double mean)
{
    size_t n = b - a;
    if (n > INT_MAX)
        return NULL;
    double *in = fftw_alloc_real(n);
    fftw_complex *spec = fftw_alloc_complex(n / 2 + 1);
    pthread_mutex_lock(&planning);
    fftw_plan plan = in && spec ? fftw_plan_dft_r2c_1d((int)n, in, spec, FFTW_ESTIMATE) : NULL;
    pthread_mutex_unlock(&planning);
    if (!plan) {
        fftw_free(in);
        fftw_free(spec);
        return NULL;
    }
    size_t last = a;
    for (size_t i = a; i < b; i++) {
        if (x[i] != x[i])
            continue;
        for (size_t j = last + 1; j < i; j++)   /* the gap (last, i): linear between the samples around it */
            in[j - a] = x[last] + (x[i] - x[last]) * (double)(j - last) / (double)(i - last) - mean;
        in[i - a] = x[i] - mean;
        last = i;
    }
    fftw_execute(plan);   /* thread-safe */
    pthread_mutex_lock(&planning);
    fftw_destroy_plan(plan);
    pthread_mutex_unlock(&planning);
    fftw_free(in);
    return spec;
}

/* The lobe of bin j of p[1..m] (power per bin): its own power and its neighbours' (a peak between two bins shares its
 * power with them). */
static double an_lobe(const double *p, size_t m, size_t j)
{
    return p[j] + (j > 1 ? p[j - 1] : 0) + (j < m ? p[j + 1] : 0);
}

/* The largest of p[a..b] within [lo, m]: its bin (0 where the range is empty). */
static size_t an_argmax(const double *p, long a, long b, size_t lo, size_t m)
{
    size_t best = 0;
    for (long j = a < (long)lo ? (long)lo : a; j <= b && j <= (long)m; j++)
        if (!best || p[j] > p[best])
            best = (size_t)j;
    return best;
}

/* The peak of the power spectrum p[1..m]: the strongest main lobe (three bins: a rectangular window loses up to 60 % of
 * a tone between two bins from its own bin, and a square wave's 2nd harmonic, its amplitude within 20 % of the
 * fundamental's at 80 % duty, won on the largest bin), reported at its largest bin (a tone on a bin keeps its bin);
 * then the fundamental of that peak: of its whole fractions f / k (k = 2 to 16, at least two cycles in the trace), the
 * lowest that is a peak (a bin no lower than its neighbours) whose lobe holds at least half the peak's power (near 5 %
 * duty a square wave's first harmonics have amplitudes within 4 % of its fundamental's, and any of them can win by
 * where the bins fall). 0 where p holds no power. */
static size_t an_peak(const double *p, size_t m)
{
    size_t top = 0;
    double best = 0;
    for (size_t j = 1; j <= m; j++) {
        double l = an_lobe(p, m, j);
        if (l > best) {
            best = l;
            top = j;
        }
    }
    if (!top)
        return 0;
    top = an_argmax(p, (long)top - 1, (long)top + 1, 1, m);
    size_t fund = top;
    for (size_t k = 2; k <= 16; k++) {
        double c0 = (double)top / (double)k;   /* the fundamental lies within a bin of it: top is within half a bin */
        if (c0 + 1 < 2)
            break;
        size_t c = an_argmax(p, (long)ceil(c0 - 1), (long)floor(c0 + 1), 2, m);
        double l = 0;   /* its lobe, less any bin of the peak's own */
        for (size_t i = c - 1; c && i <= c + 1 && i + 1 < top; i++)
            l += p[i];
        if (c && c < m && p[c] >= p[c - 1] && p[c] >= p[c + 1] && l >= 0.5 * best)
            fund = c;
    }
    return fund;
}

/* The spectrum of x[a..b) (mean removed, inner gaps interpolated): dominant frequency (an_peak) and band shares of the
 * fluctuation's energy; a band that no bin lies in has no share (NAN): it is not measured, and a share of 0 once
 * passed a spec's clause on a band below a short trace's first bin. */
int an_spectrum(const double *x, size_t a, size_t b, double dt, double mean, const struct an_band *bands,
                       int n_bands, double *dominant, struct an_band *out)
{
    size_t n = b - a, m = n / 2;
    fftw_complex *spec = an_fft(x, a, b, mean);
    if (!spec)
        return -1;
    /* the power of bin j into p[j], in place: p[j] lies where bins up to j / 2 were, each already read */
    double total = 0, df = 1.0 / ((double)n * dt), *p = &spec[0][0];
    int bins[AN_MAX_BANDS] = { 0 };
    for (int b = 0; b < n_bands; b++)
        out[b] = (struct an_band){ bands[b].lo_hz, bands[b].hi_hz, 0 };
    p[0] = 0;
    for (size_t j = 1; j <= m; j++) {
        double f = (double)j * df, re = p[2 * j], im = p[2 * j + 1];
        p[j] = (re * re + im * im) * (2 * j == n ? 0.5 : 1);   /* Nyquist's bin stands once in the two-sided spectrum */
        total += p[j];
        for (int b = 0; b < n_bands && b < AN_MAX_BANDS; b++)
            if (f >= bands[b].lo_hz && f < bands[b].hi_hz) {
                out[b].share += p[j];
                bins[b]++;
            }
    }
    for (int b = 0; b < n_bands; b++)
        out[b].share = total > 0 && b < AN_MAX_BANDS && bins[b] ? out[b].share / total : NAN;
    size_t peak = total > 0 ? an_peak(p, m) : 0;
    *dominant = peak ? (double)peak * df : NAN;
    fftw_free(spec);
    return 0;
}

int analysis_spectrum(const struct an_series *s, double *freq, double *amp, size_t max, size_t *n)
{
    *n = 0;
    struct acc a;
    acc_reset(&a);
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(s->x[i]))
            acc_add(&a, s->x[i]);
    size_t lo, hi;
    an_span(s->x, s->n, &lo, &hi);
    size_t len = hi - lo;
    fftw_complex *spec = len >= 4 && s->dt > 0 ? an_fft(s->x, lo, hi, acc_mean(&a)) : NULL;
    if (!spec)
        return -1;
    double df = 1.0 / ((double)len * s->dt);
    for (size_t j = 1; j <= len / 2 && *n < max; j++) {   /* one-sided: 2|X| / N, the Nyquist bin once */
        double m = hypot(spec[j][0], spec[j][1]) / (double)len;
        freq[*n] = (double)j * df;
        amp[(*n)++] = 2 * j == len ? m : 2 * m;
    }
    fftw_free(spec);
    return 0;
}
