/* tests/test_analysis.c: the power analysis on signals whose answers are known: a square wave (swing,
 * dominant frequency, band shares), a sine's amplitude spectrum, a linear ramp, projections of aligned and of
 * scattered GPUs; the fields of an analysed trace's rows (times and watts) at the ends of their ranges. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "e2e.h"
#include "analyze_fields.h"

/* Fills a square wave lo/hi of frequency f (50 % duty) sampled every dt for n samples. */
static double *square(size_t n, double dt, double f, double lo, double hi)
{
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = fmod((double)i * dt * f, 1.0) < 0.5 ? hi : lo;
    return x;
}

Test(analysis, square_wave_swing_frequency_bands)
{
    size_t n = 10000;   /* 10 s at 1 kHz: 20 whole periods of 2 Hz */
    double *x = square(n, 1e-3, 2.0, 100, 700);
    struct an_series s = { x, n, 1e-3, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    cr_assert_float_eq(r.swing_w, 600, 1e-9);
    cr_assert_float_eq(r.range_w, 600, 1e-9);
    cr_assert_float_eq(r.mean_w, 400, 1e-9);
    cr_assert_float_eq(r.dominant_hz, 2.0, 0.02, "dominant %f Hz", r.dominant_hz);
    /* a square wave's energy: 8/pi^2 in the fundamental, 1/k^2 of that in odd harmonic k */
    double fund = 8 / (M_PI * M_PI);
    cr_assert_float_eq(r.bands[1].share, fund, 0.01, "1-2.5 Hz share %f", r.bands[1].share);
    cr_assert_float_eq(r.bands[2].share, fund / 9, 0.01, "2.5-7 Hz share %f", r.bands[2].share);
    cr_assert_float_eq(r.bands[3].share, fund * (1.0 / 25 + 1.0 / 49 + 1.0 / 81), 0.01, "7-20 Hz %f", r.bands[3].share);
    cr_assert_float_eq(r.bands[0].share, 0, 0.01);
    /* an ideal edge: the whole step inside one 10 ms window */
    cr_assert_float_eq(r.ramp_up_w_s[0], 600 / 0.01, 1e-6);
    free(x);
}

Test(analysis, linear_ramp_rates)
{
    size_t n = 5000;
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) {   /* 100 W, then +600 W/s for 1 s, then 700 W */
        double t = (double)i * 1e-3;
        x[i] = t < 1 ? 100 : t < 2 ? 100 + 600 * (t - 1) : 700;
    }
    struct an_series s = { x, n, 1e-3, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    for (int w = 0; w < AN_RAMP_WINDOWS; w++) {
        cr_assert_float_eq(r.ramp_up_w_s[w], 600, 6, "window %s: %f W/s", an_ramp_window_names[w], r.ramp_up_w_s[w]);
        cr_assert_float_eq(r.ramp_down_w_s[w], 0, 1e-9);
    }
    free(x);
}

Test(analysis, missing_samples_are_not_zero)
{
    double x[] = { NAN, 200, 200, NAN, 400, 400 };
    struct an_series s = { x, 6, 0.01, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    cr_assert_eq(r.samples, 4);
    cr_assert_float_eq(r.min_w, 200, 1e-12, "a missing sample must not read as 0 W");
    /* measured from the first valid sample to the last: 4 steps of 10 ms, one gap inside them, none counted outside */
    cr_assert_float_eq(r.span_s, 0.04, 1e-15, "span %.17g s", r.span_s);
    cr_assert_eq(r.gaps, 1);
}

Test(analysis, projection_aligned_is_n_times_one)
{
    size_t n = 10000;
    double *x = square(n, 1e-3, 2.0, 100, 700);
    struct an_series s = { x, n, 1e-3, 0, 0 };
    struct an_projection p;
    cr_assert_eq(analysis_project(&s, 10000, 1, 0, 1, an_default_bands, 4, &p), 0);
    cr_assert_float_eq(p.swing_mw, 10000 * 600e-6, 1e-9, "aligned: %f MW", p.swing_mw);
    cr_assert_float_eq(p.mean_mw, 10000 * 400e-6, 1e-9);
    cr_assert_float_eq(p.dominant_hz, 2, 0.02);
    free(x);
}

Test(analysis, projection_scattered_phases_shrink)
{
    size_t n = 10000;
    double *x = square(n, 1e-3, 2.0, 100, 700);
    struct an_series s = { x, n, 1e-3, 0, 0 };
    struct an_projection aligned, scattered;
    analysis_project(&s, 100000, 1, 0, 1, an_default_bands, 4, &aligned);
    /* 1000 groups with a jitter of 10 periods: phases all over the period */
    cr_assert_eq(analysis_project(&s, 100000, 1000, 5.0, 7, an_default_bands, 4, &scattered), 0);
    cr_assert_float_eq(scattered.mean_mw, aligned.mean_mw, 1e-6);
    /* 1000 random phases of a +-1 square: the sum's spread ~ sqrt(1000)/1000 of the aligned swing */
    cr_assert_lt(scattered.swing_mw, 0.2 * aligned.swing_mw, "scattered %f MW vs aligned %f MW", scattered.swing_mw,
                 aligned.swing_mw);
    free(x);
}

Test(analysis, spec_verdicts)
{
    struct an_projection p = { .swing_mw = 5, .ramp_up_mw_s = 20, .ramp_down_mw_s = 8, .n_bands = 1,
                               .bands = { { 0.1, 20, 0.3 } } };
    struct an_spec spec = { .max_ramp_up_mw_s = 10, .max_ramp_down_mw_s = 10, .dynamic_range_mw = 6,
                            .band_lo_hz = 0.1, .band_hi_hz = 20, .max_band_share = 0.2 };
    struct an_verdict v;
    analysis_check_spec(&p, &spec, &v);
    cr_assert(v.checked[0] && !v.pass[0], "ramp up 20 > 10 fails");
    cr_assert(v.checked[1] && v.pass[1]);
    cr_assert(v.checked[2] && v.pass[2]);
    cr_assert(v.checked[3] && !v.pass[3], "band share 0.3 > 0.2 fails");
    spec.max_ramp_up_mw_s = 0;
    analysis_check_spec(&p, &spec, &v);
    cr_assert(!v.checked[0], "a clause not given is not checked");
}

Test(analysis, waveform_and_correlation)
{
    size_t n = 4000;
    double *x = square(n, 1e-3, 1.0, 100, 700), *inv = malloc(n * sizeof *inv);
    for (size_t i = 0; i < n; i++)
        inv[i] = 800 - x[i];
    double starts[5] = { 0, 1, 2, 3, 4 }, bins[10];
    struct an_series s = { x, n, 1e-3, 0, 0 };
    cr_assert_eq(analysis_waveform(&s, 0, starts, 5, bins, 10), 4);
    cr_assert_float_eq(bins[0], 700, 1e-9);
    cr_assert_float_eq(bins[9], 100, 1e-9);
    cr_assert_float_eq(analysis_correlation(x, x, n), 1, 1e-12);
    cr_assert_float_eq(analysis_correlation(x, inv, n), -1, 1e-12);
    double t[] = { 0, 0.25, 1.0 }, v[] = { 1, 2, 3 }, *y;
    size_t m = analysis_resample(t, v, 3, 0.25, &y);
    cr_assert_eq(m, 5);
    cr_assert(y[0] == 1 && y[1] == 2 && isnan(y[2]) && isnan(y[3]) && y[4] == 3, "a gap stays a gap, never held");
    free(y);
    free(x);
    free(inv);
}

/* Returns the index of the largest of a[0..n). */
static size_t argmax(const double *a, size_t n)
{
    size_t k = 0;
    for (size_t i = 1; i < n; i++)
        if (a[i] > a[k])
            k = i;
    return k;
}

Test(analysis, spectrum_of_a_sine_peaks_at_its_frequency_and_amplitude)
{
    size_t n = 2000;   /* 2 s at 1 kHz: bins 0.5 Hz apart; 5 Hz is bin 10 */
    double dt = 1e-3, *x = malloc(n * sizeof *x), freq[1000], amp[1000];
    for (size_t i = 0; i < n; i++)
        x[i] = 400 + 150 * sin(2 * M_PI * 5.0 * (double)i * dt + 0.3);
    struct an_series s = { x, n, dt, 0, 0 };
    size_t m;
    cr_assert_eq(analysis_spectrum(&s, freq, amp, 1000, &m), 0);
    cr_assert_eq(m, n / 2, "every bin above DC up to Nyquist");
    cr_assert_float_eq(freq[0], 0.5, 1e-12, "the first bin is 1 / (n dt)");
    cr_assert_float_eq(freq[m - 1], 500, 1e-9, "the last is Nyquist");
    size_t k = argmax(amp, m);
    cr_assert_float_eq(freq[k], 5.0, 0.05, "peak at %f Hz", freq[k]);
    cr_assert_float_eq(amp[k], 150, 1.5, "peak amplitude %f W", amp[k]);
    for (size_t j = 0; j < m; j++)
        if (j != k)
            cr_assert_lt(amp[j], 1e-6, "bin %f Hz: %g W (the mean is removed, nothing leaks)", freq[j], amp[j]);
    /* a square wave's peak is the dominant frequency analysis_run reports */
    double *sq = square(n, dt, 3.0, 100, 700);
    struct an_series q = { sq, n, dt, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&q, an_default_bands, 4, &r), 0);
    cr_assert_eq(analysis_spectrum(&q, freq, amp, 1000, &m), 0);
    k = argmax(amp, m);
    cr_assert_float_eq(freq[k], r.dominant_hz, 1e-9, "peak %f Hz, dominant %f Hz", freq[k], r.dominant_hz);
    cr_assert_float_eq(amp[k], 4 / M_PI * 300, 3, "a square's fundamental: 4/pi of its half swing, %f W", amp[k]);
    free(sq);
    free(x);
}

Test(analysis, spectrum_holds_missing_samples_and_stops_at_max)
{
    size_t n = 2000;
    double dt = 1e-3, *x = malloc(n * sizeof *x), freq[1000], amp[1000];
    for (size_t i = 0; i < n; i++)   /* a large mean, a small swing: a missing sample read as 0 W would swamp it */
        x[i] = i % 100 == 7 ? NAN : 5000 + 100 * sin(2 * M_PI * 5.0 * (double)i * dt);
    struct an_series s = { x, n, dt, 0, 0 };
    size_t m;
    cr_assert_eq(analysis_spectrum(&s, freq, amp, 1000, &m), 0);
    size_t k = argmax(amp, m);
    cr_assert_float_eq(freq[k], 5.0, 0.05);
    cr_assert_float_eq(amp[k], 100, 1, "peak amplitude %f W", amp[k]);
    for (size_t j = 0; j < m; j++)
        if (j != k)
            cr_assert_lt(amp[j], 1, "bin %f Hz: %g W", freq[j], amp[j]);
    cr_assert_eq(analysis_spectrum(&s, freq, amp, 40, &m), 0);
    cr_assert_eq(m, 40, "at most max bins, the lowest");
    cr_assert_float_eq(freq[39], 20, 1e-9);
    struct an_series tiny = { x + 8, 3, dt, 0, 0 };
    cr_assert_eq(analysis_spectrum(&tiny, freq, amp, 1000, &m), -1, "too short");
    cr_assert_eq(m, 0);
    double none[8] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    struct an_series empty = { none, 8, dt, 0, 0 };
    cr_assert_eq(analysis_spectrum(&empty, freq, amp, 1000, &m), -1, "nothing valid");
    free(x);
}

/* Orders doubles for qsort. */
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

Test(analysis, percentiles_equal_a_full_sort)
{
    size_t n = 1001;
    double *x = malloc(n * sizeof *x), *sorted = malloc(n * sizeof *x);
    unsigned long long z = 42;
    for (size_t i = 0; i < n; i++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = sorted[i] = (double)(z >> 11) / 9007199254740992.0 * 1000;
    }
    qsort(sorted, n, sizeof *sorted, cmp);
    struct an_series s = { x, n, 0.001, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    double pos1 = 0.01 * (double)(n - 1), pos99 = 0.99 * (double)(n - 1);
    size_t i1 = (size_t)pos1, i99 = (size_t)pos99;
    double p1 = sorted[i1] + (pos1 - (double)i1) * (sorted[i1 + 1] - sorted[i1]);
    double p99 = sorted[i99] + (pos99 - (double)i99) * (sorted[i99 + 1] - sorted[i99]);
    cr_assert_float_eq(r.p1_w, p1, 1e-9);
    cr_assert_float_eq(r.p99_w, p99, 1e-9);
    cr_assert_float_eq(r.min_w, sorted[0], 1e-12);
    free(x);
    free(sorted);
}

Test(analysis, bess_serves_the_fast_part_within_its_ratings)
{
    size_t n = 60000;   /* 60 s at 1 kHz: a 100 MW cluster swinging +-50 MW at 1 Hz */
    double dt = 1e-3, *p = malloc(n * sizeof *p), *g = malloc(n * sizeof *g);
    for (size_t i = 0; i < n; i++)
        p[i] = fmod((double)i * dt, 1.0) < 0.5 ? 150 : 50;
    struct an_bess b = { .capacity_mwh = 5, .power_mw = 60, .efficiency = 0.9, .window_s = 10 };
    cr_assert_eq(analysis_bess(p, n, dt, &b, g), 0);
    cr_assert_lt(b.grid_swing_mw, 0.4 * 100, "the grid still sees %.1f MW of a 100 MW swing", b.grid_swing_mw);
    cr_assert_leq(b.battery_max_mw, 60 + 1e-9, "the power rating is never exceeded");
    cr_assert(b.soc_min >= 0 && b.soc_max <= 1);
    /* energy: what the grid gave beyond the load went into storage or was lost */
    double load = 0, from_grid = 0;
    for (size_t i = 0; i < n; i++) {
        load += p[i] * dt;
        from_grid += g[i] * dt;
    }
    double stored = (b.soc_end - 0.5) * b.capacity_mwh * 3600;
    cr_assert_float_eq(from_grid - load, stored + b.losses_mwh * 3600, 1e-6, "energy is conserved within the losses");
    cr_assert_gt(b.losses_mwh, 0);

    struct an_bess tiny = { .capacity_mwh = 0.001, .power_mw = 60, .efficiency = 0.9, .window_s = 10 };
    cr_assert_eq(analysis_bess(p, n, dt, &tiny, NULL), 0);
    cr_assert(tiny.soc_min >= 0 && tiny.soc_max <= 1 + 1e-12, "a small battery stays within its capacity");
    cr_assert_gt(tiny.grid_swing_mw, b.grid_swing_mw, "and helps less");
    free(p);
    free(g);
}

/* The least fill: a brute-force check of its definition over random traces — Q is the lowest trace above p, the
 * floor and the ramp limits. For each: with no floor and no limits it is 0; with a floor alone it is the sum of
 * max(0, floor - p) dt exactly; its Q (rebuilt from the definition, both passes) holds every constraint; and
 * loosening any limit never costs more. On a square wave its value is known in closed form. */
static double least_brute(const double *t, const double *p, size_t n, double floor, double up, double down)
{
    double *q = malloc(n * sizeof *q), e = 0;
    for (size_t i = 0; i < n; i++) {   /* Q(t_i) = max over j of p'(t_j) - limit * |t_i - t_j| (p' = max(p, floor)) */
        q[i] = -INFINITY;
        for (size_t j = 0; j < n; j++) {
            double pj = floor > 0 && floor > p[j] ? floor : p[j], d = t[i] - t[j];
            double lim = d >= 0 ? down : up;   /* j before i: i may not have fallen faster; j after: risen faster */
            double v = lim > 0 ? pj - lim * fabs(d) : (d == 0 ? pj : -INFINITY);
            q[i] = v > q[i] ? v : q[i];
        }
    }
    for (size_t i = 0; i + 1 < n; i++)
        e += (q[i] - p[i]) * (t[i + 1] - t[i]);
    free(q);
    return e;
}

Test(analysis, least_fill_matches_its_definition_on_random_traces)
{
    srand(7);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 20 + (size_t)(rand() % 60);
        double *t = malloc(n * sizeof *t), *p = malloc(n * sizeof *p), at = 0;
        for (size_t i = 0; i < n; i++) {
            at += 0.001 + (rand() % 100) * 1e-4;   /* uneven steps, as a late sampler makes them */
            t[i] = at;
            p[i] = 100 + rand() % 700;
        }
        double floor = rand() % 2 ? 200 + rand() % 500 : 0;
        double up = rand() % 2 ? 1000 + rand() % 50000 : 0, down = rand() % 2 ? 1000 + rand() % 50000 : 0;
        cr_assert_float_eq(an_least_fill_j(t, p, n, 0, 0, 0), 0, 1e-9);
        double only = 0;
        for (size_t i = 0; i + 1 < n; i++)
            only += (floor > p[i] ? floor - p[i] : 0) * (t[i + 1] - t[i]);
        cr_assert_float_eq(an_least_fill_j(t, p, n, floor, 0, 0), only, 1e-9 * (1 + only), "trial %d", trial);
        double e = an_least_fill_j(t, p, n, floor, up, down), b = least_brute(t, p, n, floor, up, down);
        cr_assert_float_eq(e, b, 1e-6 * (1 + b), "trial %d: %g against the definition's %g (floor %g, up %g, down %g)",
                           trial, e, b, floor, up, down);
        if (down > 0)
            cr_assert_leq(an_least_fill_j(t, p, n, floor, up, 2 * down), e + 1e-9, "trial %d: a looser fall costs more", trial);
        if (up > 0)
            cr_assert_leq(an_least_fill_j(t, p, n, floor, 2 * up, down), e + 1e-9, "trial %d: a looser rise costs more", trial);
        free(t);
        free(p);
    }
    /* a 1 Hz square 100/500 W at 1 kHz, 10 periods, falls limited to 4000 W/s: each fall takes 0.1 s, a triangle of
     * 400 W x 0.1 s / 2 = 20 J above the trace (sampled: within one step's worth) */
    size_t n = 10000;
    double *t = malloc(n * sizeof *t), *x = square(n, 1e-3, 1.0, 100, 500);
    for (size_t i = 0; i < n; i++)
        t[i] = (double)i * 1e-3;
    double e = an_least_fill_j(t, x, n, 0, 0, 4000);
    cr_assert_float_eq(e, 10 * 20, 10 * 0.5, "%.3f J", e);
    /* and a floor of 300 W on it: half of every period 200 W below it, 100 J per 1 s x 10 less the falls' share */
    cr_assert_float_eq(an_least_fill_j(t, x, n, 300, 0, 0), 10 * 0.5 * 200, 10 * 0.5, "%.3f J",
                       an_least_fill_j(t, x, n, 300, 0, 0));
    free(t);
    free(x);
}

/* Parses s as analyze_time does; returns its return, the time in *t. */
static int at(const char *s, int64_t *t)
{
    char buf[128];
    int absolute;
    const char *why;
    snprintf(buf, sizeof buf, "%s", s);
    return analyze_time(buf, t, &absolute, &why);
}

/* The times of a trace's rows: every year in the range held is exact at its ends, any year outside it (and seconds
 * past +-4.2e9) is refused without an overflow (the sanitizers' build runs this), and a year of any length too. */
Test(analysis, times_at_the_ends_of_the_range_held_and_past_them)
{
    int64_t t;
    cr_assert_eq(at("1970-01-01T00:00:00Z", &t), 0);
    cr_assert_eq(t, 0);
    cr_assert_eq(at("1900/01/01 00:00:00.000", &t), 0);
    cr_assert_eq(t, -2208988800LL * 1000000000);
    cr_assert_eq(at("2099-12-31T23:59:59.999999999", &t), 0);
    cr_assert_eq(t, 4102444799LL * 1000000000 + 999999999);
    const char *refused[] = { "1899/12/31 23:59:59", "2100/01/01 00:00:00", "9999/01/01 00:00:00.000",
                              "2262/04/12 00:00:00", "1677/09/21 00:00:00", "99999999999999999999/01/01 00:00:00",
                              "4200000000.000000001", "-4200000001", "9223372036.854775807", "9.3e9", "-1e300",
                              "0x12c", "inf", "nan", "1e999" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        cr_assert_eq(at(refused[i], &t), -1, "'%s' accepted as %lld ns", refused[i], (long long)t);
    cr_assert_eq(at("4200000000", &t), 0);
    cr_assert_eq(t, 4200000000LL * 1000000000);
    cr_assert_eq(at("-4.2e9", &t), 0);
    cr_assert_eq(t, -4200000000LL * 1000000000);
    double w;
    cr_assert_eq(analyze_power("300", &w), 1);
    cr_assert_eq(analyze_power("1.5e2 W", &w), 1);
    cr_assert_float_eq(w, 150, 1e-12);
    cr_assert_eq(analyze_power("1e-400", &w), 1, "an underflow reads about 0 W");
    const char *not_watts[] = { "0x12c", "0X12C W", "inf", "-infinity", "1e999", "nan(1)", "12 kW", "+", "." };
    for (size_t i = 0; i < sizeof not_watts / sizeof not_watts[0]; i++)
        cr_assert_eq(analyze_power(not_watts[i], &w), -1, "'%s' read as %g W", not_watts[i], w);
}

/* A held sensor's readings are counted whether its update interval is measured or given by its stamps (before
 * 2026-11-29 a given interval left `distinct` 0 beside hundreds of readings). */
Test(analysis, readings_are_counted_with_a_given_update_interval)
{
    size_t n = 1000;   /* 10 s at 100 Hz; a sensor updated every 20 ms: each reading held 2 samples, 500 of them */
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = 300 + 200 * sin(2 * M_PI * 0.7 * (double)(i / 2) * 0.02) + (double)(i / 2 % 7);
    struct an_result measured, given;
    struct an_series s = { x, n, 0.01, 0, 0 };
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &measured), 0);
    s.update_s = 0.02;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &given), 0);
    cr_assert_eq(given.distinct, measured.distinct);
    cr_assert(given.distinct >= 495 && given.distinct <= 500, "%zu readings", given.distinct);
    free(x);
}

/* A ramp window shorter than one sample is not measured: at 50 Hz the 10 ms ramp was once a 20 ms one, labelled
 * 10 ms, read half the rate of a fast edge. The 100 ms window is measured over 5 samples. */
Test(analysis, a_ramp_window_shorter_than_a_sample_is_unresolved)
{
    size_t n = 500;   /* 10 s at 50 Hz of a 1 Hz square wave 100/700 W */
    double *x = square(n, 0.02, 1.0, 100, 700);
    for (size_t i = 0; i < n; i++)
        x[i] += (double)(i % 3);   /* noise: every sample a reading of its own (not a held sensor) */
    struct an_series s = { x, n, 0.02, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    cr_assert(isnan(r.ramp_up_w_s[0]) && isnan(r.ramp_down_w_s[0]), "10 ms at 50 Hz: %f", r.ramp_up_w_s[0]);
    cr_assert(r.unresolved & AN_UNRES_RAMP_SAMPLE(0));
    cr_assert_float_eq(r.ramp_up_w_s[1], (700 - 100 + 2) / 0.1, 30, "100 ms: %f W/s", r.ramp_up_w_s[1]);
    cr_assert(!(r.unresolved & AN_UNRES_RAMP(1)));
    free(x);
}

/* A held sensor's trace ends on a reading held flat (there is no next one to draw the line to): the ramps end where
 * that reading appeared. A 200 ms iteration read every 20 ms has no rise over 1 s, wherever the trace ends; the flat
 * end against the lines elsewhere once read 521 W/s at some ends. */
Test(analysis, a_held_traces_end_makes_no_ramp)
{
    for (size_t n = 1000; n < 1020; n++) {   /* 10 s at 100 Hz, ending at 20 different points */
        double *x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++) {
            size_t k = i / 2;   /* the reading: 20 ms, held 2 samples; the wave: 200 ms, 10 readings a period */
            x[i] = (k % 10 < 5 ? 700 : 150) + (double)(k % 3);
        }
        struct an_series s = { x, n, 0.01, 0.02, 0.2 };
        struct an_result r;
        cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
        cr_assert(r.held);
        cr_assert(fabs(r.ramp_up_w_s[2]) < 10 && fabs(r.ramp_down_w_s[2]) < 10, "ending at %zu: 1 s ramps %.1f / %.1f W/s",
                  n, r.ramp_up_w_s[2], r.ramp_down_w_s[2]);
        free(x);
    }
}


/* `analyze RUNDIR` reads a results folder at a path of 1,200 characters whole (it was cut short at 1,199), refuses
 * one too long for its files' names with exit 2, and says so when its output is lost (stdout a full disk: exit 3). */
Test(analyze_cli, a_long_path_is_read_whole_and_lost_output_is_said, .timeout = 120)
{
    /* ~0.2 s of iterations at any load (10 iterations of 64^3 end before the sampler has two readings on an idle
     * machine: no power to analyse) */
    const char *sc = e2e_scenario("name: azlong\nranks: 2\niterations: 60\nseed: 1\npower: {sample_hz: 200}\n"
                                  "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                                  "sim: {tflops: 0.01}\n");
    const char *out = e2e_outdir();
    char run_log[1100], long_log[1100], full_log[1100];   /* beside the run, in its test's folder */
    snprintf(run_log, sizeof run_log, "%s.log", out);
    snprintf(long_log, sizeof long_log, "%s-long.log", out);
    snprintf(full_log, sizeof full_log, "%s-full.log", out);
    cr_assert_eq(e2e_run(run_log,
                         (const char *[]){ "run", sc, "--out", out, "--backend", "sim", "--headless", NULL }), 0);
    char lng[1400] = "/tmp/gauntlet-az-long-XXXXXX";
    cr_assert_not_null(mkdtemp(lng));
    e2e_own(lng);
    for (int i = 0; i < 6; i++) {   /* six folders of 200 characters, then a link to the run */
        size_t len = strlen(lng);
        snprintf(lng + len, sizeof lng - len, "/%0200d", i);
        cr_assert_eq(mkdir(lng, 0755), 0, "%s", lng);
    }
    strcat(lng, "/run");
    cr_assert_eq(symlink(out, lng), 0);
    cr_assert_gt(strlen(lng), 1200);
    int rc = e2e_run(long_log, (const char *[]){ "analyze", lng, NULL });
    char *log = e2e_read(long_log);
    cr_expect_eq(rc, 0, "exit %d:\n%s", rc, log);
    free(log);
    char huge[4200];
    memset(huge, 'a', sizeof huge - 1);
    huge[0] = '/';
    huge[sizeof huge - 1] = 0;
    rc = e2e_run(long_log, (const char *[]){ "analyze", huge, NULL });
    log = e2e_read(long_log);
    cr_expect_eq(rc, 2, "exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, "path too long (4199 characters"), "%s", log);
    free(log);
    rc = e2e_wait(e2e_start_to("/dev/full", full_log, (const char *[]){ "analyze", out, NULL }), 60);
    log = e2e_read(full_log);
    cr_expect_eq(rc, 3, "exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, "stdout:"), "no message:\n%s", log);
    free(log);
}

/* ---- `gauntlet analyze` on traces whose answers are known (review 3b, 2026-11-30) ---- */

#include "analysis_json.h"
#include "analyze.h"

/* A reproducible generator: xorshift64*, uniform in [0, 1). */
static double az_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* analyze_file of path with --hz hz (0: none), gpus/groups/jitter as given, into a JSON object (NULL: it failed, its
 * exit code in *rc). */
static json_t *az_json(const char *path, double hz, int64_t gpus, int64_t groups, double jitter, int *rc)
{
    struct az_opts o = { .json = 1, .gpus = gpus, .groups = groups, .threads = 1, .jitter = jitter, .hz = hz,
                         .max_w = 4000 };
    json_t *out = NULL;
    *rc = analyze_file(&o, path, &out);
    return *rc ? (json_decref(out), NULL) : out;
}

/* A number at a path of keys in o (NAN where null or absent). */
static double az_num(json_t *o, const char *a, const char *b, const char *c)
{
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    return json_num_value(v);
}

/* A square wave of random levels and period, sampled at a random whole multiple of a random grid rate, with random
 * stretches lost (rows dropped or N/A), filtered onto that grid (--hz): its swing is its levels' difference and, its
 * period dividing 1 s, its 1 s ramps are 0. Until 2026-11-30 the points at the trace's ends and beside each gap were
 * the means of half windows, other times' levels: a 2 Hz 200/700 W wave read a 1 s ramp of 252 W/s (--hz 10). */
Test(analyze_lowpass, a_filtered_square_wave_keeps_its_swing_and_no_1s_ramp, .timeout = 300)
{
    uint64_t seed = 0x5eed3b;
    const double grids[] = { 10, 20, 40, 50 };
    char path[] = "/tmp/gauntlet-az-sq-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    close(fd);
    for (int trial = 0; trial < 16; trial++) {
        double G = grids[(int)(az_rand(&seed) * 4)];
        int r = 2 + (int)(az_rand(&seed) * 11);   /* samples a step: 2-12 */
        int mf;                                    /* 1 / period, dividing G, half a period >= 3 steps */
        do
            mf = 1 + (int)(az_rand(&seed) * 5);
        while ((int)G % mf || G / mf < 6);
        double R = r * G, lo = 50 + 250 * az_rand(&seed), hi = lo + 100 + 500 * az_rand(&seed);
        long spp = lround(R / mf), n = lround((6 + 6 * az_rand(&seed)) * R);
        double t0 = 100 + az_rand(&seed);
        long gap_at[3], gap_len[3];
        int na = az_rand(&seed) < 0.5;   /* lost rows: N/A, or dropped */
        for (int k = 0; k < 3; k++) {     /* each at least a step long: a gap, never bridged */
            gap_at[k] = (long)(az_rand(&seed) * (double)n);
            gap_len[k] = (long)(r * (1 + 10 * az_rand(&seed)));
        }
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fprintf(f, "t_s,watts\n");
        for (long i = 0; i < n; i++) {
            int lost = 0;
            for (int k = 0; k < 3; k++)
                lost |= i >= gap_at[k] && i < gap_at[k] + gap_len[k];
            if (lost && !na)
                continue;
            long ph = i % spp;   /* noise that repeats with the period: every sample a reading of its own */
            double w = (ph < spp / 2 ? hi : lo) + 0.3 * (double)((ph * 37) % 11);
            if (lost)
                fprintf(f, "%.9f,N/A\n", t0 + (double)i / R);
            else
                fprintf(f, "%.9f,%.4f\n", t0 + (double)i / R, w);
        }
        cr_assert_eq(fclose(f), 0);
        int rc;
        json_t *j = az_json(path, G, 10000, 1, 0, &rc);
        cr_assert_not_null(j, "trial %d: exit %d", trial, rc);
        json_t *a = json_object_get(j, "aggregate");
        double amp = hi - lo, up = az_num(a, "ramp_up_w_s", "1s", NULL), down = az_num(a, "ramp_down_w_s", "1s", NULL);
        char label[160];
        snprintf(label, sizeof label, "trial %d: %.0f Hz samples of a %.3g s wave %.1f/%.1f W at --hz %.0f%s", trial,
                 R, 1.0 / mf, lo, hi, G, "");
        cr_assert(json_is_true(json_object_get(json_object_get(j, "warnings"), "decimated")), "%s", label);
        cr_assert_float_eq(az_num(a, "swing_w", NULL, NULL), amp, 4, "%s: swing %.2f W", label,
                           az_num(a, "swing_w", NULL, NULL));
        cr_assert(fabs(up) < 1e-3 * amp && fabs(down) < 1e-3 * amp, "%s: 1 s ramps %.3f / %.3f W/s (true: 0)", label,
                  up, down);
        json_decref(j);
    }
    unlink(path);
}

/* A noiseless square wave logged at 1 kHz and filtered onto 10 Hz is a signal, as it is on its own grid: flat in each
 * phase, it takes two levels (until 2026-11-30 the filtered GPU's held test left out the levels and cycles rule and
 * read it as a 250 ms sensor: no dominant frequency, no 100 ms ramp). */
Test(analyze_lowpass, a_filtered_noiseless_square_wave_is_no_held_sensor)
{
    char path[] = "/tmp/gauntlet-az-sqh-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "t_s,watts\n");
    for (int i = 0; i < 10000; i++)
        fprintf(f, "%.3f,%d\n", i * 1e-3, fmod(i * 1e-3, 0.5) < 0.25 ? 700 : 200);
    cr_assert_eq(fclose(f), 0);
    int rc;
    json_t *j = az_json(path, 10, 10000, 1, 0, &rc);
    cr_assert_not_null(j, "exit %d", rc);
    json_t *g = json_array_get(json_object_get(j, "per_gpu"), 0);
    cr_assert(json_is_false(json_object_get(json_object_get(g, "sensor"), "held")), "read as a held sensor");
    cr_assert_float_eq(az_num(g, "dominant_hz", NULL, NULL), 2, 0.1, "dominant %f Hz", az_num(g, "dominant_hz", NULL, NULL));
    cr_assert(isfinite(az_num(g, "ramp_up_w_s", "100ms", NULL)));
    json_decref(j);
    unlink(path);
}

/* Without --hz, the grid is the pooled samples' (the slower GPUs' where they outnumber a faster one), and a GPU faster
 * than it is filtered onto it as under --hz, and said (until 2026-11-30 it was point-sampled: a 37 Hz ripple aliased
 * into its swing, 496 W for the wave's 300). */
Test(analyze_lowpass, a_faster_gpu_on_an_inferred_grid_is_filtered)
{
    char path[] = "/tmp/gauntlet-az-mixed-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "t_s,gpu,watts\n");
    for (int i = 0; i < 3000; i++) {   /* 30 s: GPU 0 at 100 Hz, the wave and a 100 W ripple at 37 Hz */
        double t = i * 0.01, sq = fmod(t, 1.0) < 0.5 ? 500 : 200;
        fprintf(f, "%.3f,0,%.3f\n", t, sq + 100 * sin(2 * M_PI * 37 * t));
        for (int g = 1; g <= 20 && i % 10 == 0; g++)   /* 20 GPUs at 10 Hz */
            fprintf(f, "%.3f,%d,%.1f\n", t, g, sq);
    }
    cr_assert_eq(fclose(f), 0);
    int rc;
    json_t *j = az_json(path, 0, 10000, 1, 0, &rc);
    cr_assert_not_null(j, "exit %d", rc);
    cr_assert_float_eq(az_num(j, "grid_hz", NULL, NULL), 10, 1e-9);
    cr_assert(json_is_true(json_object_get(json_object_get(j, "warnings"), "decimated")));
    json_t *g0 = json_array_get(json_object_get(j, "per_gpu"), 0);
    cr_assert_float_eq(az_num(g0, "swing_w", NULL, NULL), 300, 15, "GPU 0's swing %.1f W (the wave's: 300)",
                       az_num(g0, "swing_w", NULL, NULL));
    json_decref(j);
    unlink(path);
}

/* Returns whether text holds "nan" as a word of its own (a figure printed that was never measured). */
static int has_nan(const char *text)
{
    for (const char *p = text; (p = strcasestr(p, "nan")) != NULL; p++)
        if ((p == text || !isalpha((unsigned char)p[-1])) && !isalpha((unsigned char)p[3]))
            return 1;
    return 0;
}

/* No reason for an unresolved figure prints a figure not known: a 10 Hz log's bands past 5 Hz say the grid's 5 Hz
 * (until 2026-11-30: "half the sensor's update rate (nan Hz)"), over series of random rates, held or not, summed,
 * and projected. */
Test(analysis, no_unresolved_reason_says_nan)
{
    uint64_t seed = 0x8a8;
    for (int trial = 0; trial < 40; trial++) {
        double hz = trial == 0 ? 10 : 2 + 200 * az_rand(&seed), f = 0.2 + 8 * az_rand(&seed);
        int hold = trial % 3 == 1 ? 2 + (int)(6 * az_rand(&seed)) : 1;   /* a sensor held this many samples */
        size_t n = (size_t)(hz * (4 + 20 * az_rand(&seed)));
        double *x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++) {
            size_t k = i / (size_t)hold;
            x[i] = 300 + 200 * (fmod((double)k * hold / hz * f, 1) < 0.5) + (double)(k % 5);
        }
        double upd = trial % 3 == 2 ? AN_NOT_HELD : 0;   /* a sum, as the aggregate is taken */
        struct an_series s = { x, n, 1 / hz, upd, trial % 4 == 0 ? 1 / f : 0 };
        struct an_result r;
        cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
        json_t *pj = analysis_power_json(&r, NAN);
        char *text = json_dumps(pj, 0);
        cr_assert(!has_nan(text), "trial %d (%.1f Hz, held %d): %s", trial, hz, hold, text);
        if (trial == 0)
            cr_assert(strstr(text, "half the grid's rate (5 Hz)"), "%s", text);
        free(text);
        json_decref(pj);
        struct an_projection p;
        struct an_spec spec = { .max_ramp_up_mw_s = 1, .band_lo_hz = 7, .band_hi_hz = 20, .max_band_share = 0.5 };
        if (analysis_project(&s, 10000, 10, 0.05, 1, an_default_bands, 4, &p) == 0) {
            json_t *jj = analysis_projection_json(&p, &spec);
            text = json_dumps(jj, 0);
            cr_assert(!has_nan(text), "trial %d, projected: %s", trial, text);
            free(text);
            json_decref(jj);
        }
        free(x);
    }
}

/* A projection that fails (the groups' spread longer than a trace that does not repeat, too few points) has no
 * figures: every one NAN, the JSON null, no spec clause passed; one that succeeds has them all. Until 2026-11-30 it
 * came out as zeros, and a spec judged on them passed every ramp and dynamic-range clause. */
Test(analysis, a_failed_projection_is_no_figures_and_passes_nothing)
{
    uint64_t seed = 0x9f1;
    int failed = 0, made = 0;
    for (int trial = 0; trial < 60; trial++) {
        double hz = 10 + 500 * az_rand(&seed), span = 0.01 + 20 * az_rand(&seed);
        size_t n = (size_t)(span * hz) + 1;
        double *x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++)   /* a rise: never repeats */
            x[i] = 200 + 50 * (double)i / hz + (double)(i % 3);
        struct an_series s = { x, n, 1 / hz, 0, 0 };
        long groups = 1 + (long)(50 * az_rand(&seed));
        struct an_projection p;
        struct an_spec spec = { .max_ramp_up_mw_s = 1, .max_ramp_down_mw_s = 1, .dynamic_range_mw = 1 };
        struct an_verdict v;
        int rc = analysis_project(&s, 10000, groups, 30 * az_rand(&seed), 1, an_default_bands, 4, &p);
        analysis_check_spec(&p, &spec, &v);
        json_t *pj = analysis_projection_json(&p, &spec);
        if (rc) {
            failed++;
            cr_assert_not_null(p.why, "trial %d: failed without a reason", trial);
            cr_assert(isnan(p.mean_mw) && isnan(p.swing_mw) && isnan(p.range_mw) && isnan(p.ramp_up_mw_s) &&
                      isnan(p.ramp_down_mw_s), "trial %d: a failed projection has figures (%g MW ...)", trial, p.mean_mw);
            for (int c = 0; c < 3; c++)
                cr_assert(!v.pass[c], "trial %d: clause %d passed on no figure", trial, c);
            cr_assert(json_is_null(pj), "trial %d: a failed projection's JSON is an object", trial);
        } else {
            made++;
            cr_assert_null(p.why);
            cr_assert(isfinite(p.mean_mw) && isfinite(p.range_mw) && json_is_object(pj), "trial %d", trial);
        }
        json_decref(pj);
        free(x);
    }
    cr_assert(failed > 5 && made > 5, "%d failed, %d made: the trials cover both", failed, made);
}

/* Writes a results folder at dir: events.jsonl (start with a projection of 10 groups and a spec, one run that ended
 * with jitter_s) and a power.csv of 2 ranks at 100 Hz rising 50 W/s for 10 s. */
static void az_rundir(const char *dir, double jitter_s)
{
    char p[1024];
    cr_assert(mkdir(dir, 0755) == 0, "%s", dir);
    snprintf(p, sizeof p, "%s/events.jsonl", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"event\": \"start\", \"t_s\": 0.0, \"node\": 0, \"sample_hz\": 100, \"utc_ns\": 1764000000000000000, "
               "\"seed\": 1, \"ranks\": 2, \"projection\": {\"gpus\": 10000, \"groups\": 10, \"spec\": {"
               "\"max_ramp_up_mw_s\": 1, \"max_ramp_down_mw_s\": 1, \"dynamic_range_mw\": 1, \"band\": [0.1, 1], "
               "\"max_band_share\": 0}}}\n"
               "{\"event\": \"run_begin\", \"t_s\": 0.0, \"node\": 0, \"run\": 0, \"mitigation\": \"none\", \"label\": "
               "\"none\"}\n"
               "{\"event\": \"run_end\", \"t_s\": 10.0, \"node\": 0, \"run\": 0, \"figures\": {\"analysed_s\": [1.0, 9.0], "
               "\"jitter_s\": %g}}\n{\"event\": \"end\", \"t_s\": 20.0, \"node\": 0, \"exit\": 0}\n", jitter_s);
    cr_assert_eq(fclose(f), 0);
    snprintf(p, sizeof p, "%s/power.csv", dir);
    f = fopen(p, "w");
    cr_assert_not_null(f);
    fprintf(f, "t_s,rank,watts\n");
    for (int i = 0; i < 1000; i++)
        for (int r = 0; r < 2; r++)
            fprintf(f, "%.6f,%d,%.2f\n", i * 0.01, r, 200 + 50 * i * 0.01 + (i % 3) * 0.5);
    cr_assert_eq(fclose(f), 0);
}

/* Through `analyze --json` and `gauntlet summarize`: a projection that cannot be made is null with a note, and no spec
 * clause passes (summarize once judged the dynamic range, truly 4 MW against 1 MW, on a 0: pass). */
Test(analyze_cli, a_failed_projection_is_null_in_analyze_and_summarize, .timeout = 120)
{
    char dir[] = "/tmp/gauntlet-az-proj-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    char run[1100], csv[1200], log[1200];
    snprintf(run, sizeof run, "%s/run", dir);
    az_rundir(run, 3000);
    snprintf(csv, sizeof csv, "%s/power.csv", run);
    int rc;
    json_t *j = az_json(csv, 0, 10000, 10, 3000, &rc);
    cr_assert_not_null(j, "exit %d", rc);
    json_t *a = json_object_get(j, "aggregate");
    cr_assert(json_is_null(json_object_get(a, "projection")), "a failed projection: %s",
              json_dumps(json_object_get(a, "projection"), 0));
    cr_assert(json_is_string(json_object_get(a, "projection_note")));
    json_decref(j);
    snprintf(log, sizeof log, "%s/summarize.log", dir);
    rc = e2e_run(log, (const char *[]){ "summarize", run, NULL });
    char *text = e2e_read(log);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, text);
    free(text);
    json_t *s = e2e_summary(run);
    json_t *ag = json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"), "aggregate");
    cr_assert_not_null(ag);
    json_t *pj = json_object_get(ag, "projection");
    text = json_dumps(pj, 0);
    cr_assert(json_is_null(pj), "summary.json's projection: %s", text);
    free(text);
    json_decref(s);
}

/* A path that is not UTF-8 (a file name in another encoding) is written with U+FFFD in --json, its analysis whole:
 * until 2026-11-30 a trace's output was nothing (exit 3, unsaid), a results folder's an empty [] with exit 0. */
Test(analyze_cli, a_path_not_in_utf8_keeps_the_json, .timeout = 120)
{
    char dir[] = "/tmp/gauntlet-az-utf-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    char run[1100], csv[1200], out[1200], log[1200];
    snprintf(run, sizeof run, "%s/r\xff\xfeun", dir);
    az_rundir(run, 0.01);
    snprintf(csv, sizeof csv, "%s/power.csv", run);
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(log, sizeof log, "%s/err.log", dir);
    for (int k = 0; k < 2; k++) {
        const char *what = k ? run : csv;
        int rc = e2e_wait(e2e_start_to(out, log, (const char *[]){ "analyze", what, "--json", NULL }), 60);
        char *err = e2e_read(log);
        cr_assert_eq(rc, 0, "%s: exit %d: %s", k ? "RUNDIR" : "TRACE", rc, err);
        free(err);
        json_error_t e;
        json_t *j = json_load_file(out, 0, &e);
        cr_assert_not_null(j, "%s: no JSON: %s", k ? "RUNDIR" : "TRACE", e.text);
        if (k) {
            cr_assert_eq(json_array_size(j), 1, "the run lost: %zu", json_array_size(j));
            cr_assert(json_is_object(json_object_get(json_array_get(j, 0), "aggregate")));
        } else {
            const char *t = json_string_value(json_object_get(j, "trace"));
            cr_assert(t && strstr(t, "r\xEF\xBF\xBD\xEF\xBF\xBDun/power.csv"), "trace: %s", t ? t : "(none)");
        }
        json_decref(j);
    }
}

/* A CSV's quoted field keeps its commas; a row with more fields than the header is exit 2 naming the line (until
 * 2026-11-30 "700,5" read 700 W, and a time's milliseconds after a comma became the GPU index). The splitter gives
 * back any fields written as RFC 4180 quotes them. */
Test(analyze_cli, csv_quotes_and_extra_fields, .timeout = 120)
{
    uint64_t seed = 0xc5;
    for (int trial = 0; trial < 200; trial++) {   /* fields of commas, quotes, spaces and letters, round-tripped */
        char fields[6][16], line[512] = "", *cols[8];
        int nf = 1 + (int)(6 * az_rand(&seed));
        for (int k = 0; k < nf; k++) {
            int len = (int)(10 * az_rand(&seed));
            for (int c = 0; c < len; c++)
                fields[k][c] = ",\"ab1. "[(int)(7 * az_rand(&seed))];
            fields[k][len] = 0;
            while (len && fields[k][len - 1] == ' ')   /* spaces at a field's ends are trimmed: none here */
                fields[k][--len] = 0;
            char *f0 = fields[k] + strspn(fields[k], " ");
            memmove(fields[k], f0, strlen(f0) + 1);
            size_t o = strlen(line);
            if (k)
                line[o++] = ',';
            line[o++] = '"';
            for (const char *p = fields[k]; *p; p++) {
                if (*p == '"')
                    line[o++] = '"';   /* "" in a quoted field: one quote */
                line[o++] = *p;
            }
            line[o++] = '"';
            line[o] = 0;
        }
        strcat(line, "\r\n");
        const char *why = NULL;
        int n = analyze_split(line, cols, 8, &why);
        cr_assert_eq(n, nf, "trial %d: %d fields for %d", trial, n, nf);
        for (int k = 0; k < nf; k++)
            cr_assert_str_eq(cols[k], fields[k], "trial %d field %d", trial, k);
    }
    char dir[] = "/tmp/gauntlet-az-csv-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    char path[1200], log[1200];
    snprintf(path, sizeof path, "%s/note.csv", dir);   /* a note column holding a comma, quoted: read whole */
    FILE *f = fopen(path, "w");
    fprintf(f, "t_s,note,watts\n");
    for (int i = 0; i < 100; i++)
        fprintf(f, "%.2f,\"a, b\",%d\n", i * 0.01, i % 2 ? 300 : 301);
    cr_assert_eq(fclose(f), 0);
    int rc;
    json_t *j = az_json(path, 0, 1, 1, 0, &rc);
    cr_assert_not_null(j, "exit %d", rc);
    cr_assert_float_eq(az_num(j, "aggregate", "mean_w", NULL), 300.5, 1e-9);
    json_decref(j);
    const char *bad[] = { "t_s,gpu,watts\n0.00,0,\"700,5\"\n0.01,0,\"700,5\"\n",
                          "timestamp,index,power\n2026-11-24 10:00:00,123,0,700\n2026-11-24 10:00:01,123,0,700\n",
                          "t_s,watts\n0.00,\"300\n0.01,300\n" };
    const char *said[] = { "bad0.csv:2: column 3 (power)", "bad1.csv:2: expected 3 columns as the header has, got 4",
                           "bad2.csv:2: a quoted field has no closing quote" };
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/bad%d.csv", dir, k);
        snprintf(log, sizeof log, "%s/bad%d.log", dir, k);
        f = fopen(path, "w");
        fputs(bad[k], f);
        cr_assert_eq(fclose(f), 0);
        rc = e2e_run(log, (const char *[]){ "analyze", path, NULL });
        char *text = e2e_read(log);
        cr_assert_eq(rc, 2, "bad%d: exit %d: %s", k, rc, text);
        cr_assert(text && strstr(text, said[k]), "bad%d: %s", k, text);
        free(text);
    }
}
