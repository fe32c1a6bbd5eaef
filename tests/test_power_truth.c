/* tests/test_power_truth.c: the power numbers against answers known exactly. The time grid (integer arithmetic,
 * no drift, each sample on its nearest point, gaps never held or counted); ramps over exact windows and band shares on
 * analytic traces, every window and band, with the tolerance each is held to; the threaded analysis equal to the
 * serial one; and `gauntlet analyze` on traces these tests write: GPUs joined by time, rows out of order, repeated
 * and conflicting rows, readings out of range or not numbers, bad GPU ids, dates across a month, absent rows, 1100
 * GPUs, nothing valid; and input that would overflow, exhaust or block it: dates and seconds out of range, a row far
 * from the rest, a grid past the memory allowed, a FIFO, options out of range, hexadecimal and infinite numbers. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "analysis_int.h"
#include "util.h"
#include "e2e.h"

/* ---- the grid */

Test(grid, integer_steps_never_drift)
{
    struct an_grid g = an_grid_of_hz(123, 1000);
    cr_assert_eq(an_grid_dt(&g), 0.001, "1000 Hz is exactly 1 ms: %.17g", an_grid_dt(&g));
    for (int64_t i = 0; i < 4000000000LL; i = i * 3 + 1)
        cr_assert_eq(an_grid_time(&g, i), 123 + i * 1000000, "point %lld", (long long)i);
    struct an_grid odd = an_grid_of_hz(0, 972.7);   /* a step of 1028071.347... ns: floor of the exact value */
    for (int64_t i = 0; i < 1000000000LL; i = i * 7 + 3) {
        __int128 exact = (__int128)i * 1000000000000LL / 972700;
        cr_assert_eq(an_grid_time(&odd, i), (int64_t)exact, "point %lld", (long long)i);
        cr_assert_eq(an_grid_nearest(&odd, an_grid_time(&odd, i)), i);
    }
    /* the nearest point: up to half a step either way, a tie to the later */
    cr_assert_eq(an_grid_nearest(&g, 123 + 5 * 1000000 + 499999), 5);
    cr_assert_eq(an_grid_nearest(&g, 123 + 5 * 1000000 + 500000), 6);
    cr_assert_eq(an_grid_nearest(&g, 123 + 5 * 1000000 - 500000), 5);
    cr_assert_lt(an_grid_nearest(&g, 123 - 500001), 0, "before the grid");
}

Test(grid, jittered_samples_each_keep_their_own_point)
{
    srand(7);
    size_t n = 100000;
    int64_t *t = malloc(n * sizeof *t);
    double *v = malloc(n * sizeof *v), *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) {   /* 1 kHz, each tick up to 0.4 ms early or late */
        t[i] = (int64_t)i * 1000000 + (rand() % 800001) - 400000;
        v[i] = (double)i;
    }
    t[0] = 0;
    struct an_grid g = an_grid_of_hz(0, 1000);
    size_t merged = 99;
    cr_assert_eq(analysis_place(&g, t, v, n, out, n, &merged), n);
    cr_assert_eq(merged, 0);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(out[i], (double)i);
    free(t);
    free(v);
    free(out);
}

Test(grid, a_slow_sampler_leaves_gaps_never_held_never_counted)
{
    /* a 1 kHz sampler that reached 972.7 Hz for 60 s: 58,362 readings, not 60,000 */
    double hz = 972.7;
    size_t n = (size_t)(60 * hz);
    int64_t *t = malloc(n * sizeof *t);
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        t[i] = llround((double)i * 1e9 / hz);
        v[i] = i % 2 ? 700 : 150;
    }
    struct an_grid g = an_grid_of_hz(0, 1000);
    size_t m = (size_t)an_grid_nearest(&g, t[n - 1]) + 1, merged;
    double *out = malloc(m * sizeof *out);
    cr_assert_eq(analysis_place(&g, t, v, n, out, m, &merged), n, "every reading once, none twice");
    cr_assert_eq(merged, 0);
    size_t gaps = 0;
    for (size_t i = 0; i < m; i++)
        gaps += isnan(out[i]);
    cr_assert_eq(gaps, m - n, "the points no reading reached are gaps");
    struct an_series s = { out, m, an_grid_dt(&g), 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    cr_assert_eq(r.samples, n, "samples: %zu, readings %zu", r.samples, n);
    cr_assert_eq(r.gaps, m - n);
    cr_assert_float_eq(r.mean_w, 425, 0.01, "the readings' mean, no held value in it: %f", r.mean_w);
    free(t);
    free(v);
    free(out);
}

/* ---- ramps over exact windows: tolerance 1e-9 relative (the arithmetic is exact up to rounding) */

/* A square wave lo/hi of frequency f (50 % duty) at n points of dt. */
static double *square(size_t n, double dt, double f, double lo, double hi)
{
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = fmod((double)i * dt * f + 1e-9, 1.0) < 0.5 ? hi : lo;
    return x;
}

Test(ramps, a_square_wave_over_every_window)
{
    /* 2 Hz, 150 <-> 700 W, 60 s at 1 kHz: a window of 1 s spans two whole periods (ramp 0); 100 ms and 10 ms
     * windows see the whole 550 W edge */
    size_t n = 60000;
    double *x = square(n, 1e-3, 2, 150, 700);
    struct an_series s = { x, n, 1e-3, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    double want[AN_RAMP_WINDOWS] = { 550 / 0.01, 550 / 0.1, 0 };
    for (int w = 0; w < AN_RAMP_WINDOWS; w++) {
        cr_assert_float_eq(r.ramp_up_w_s[w], want[w], 1e-9 * 55000, "up over %s: %.17g", an_ramp_window_names[w],
                           r.ramp_up_w_s[w]);
        cr_assert_float_eq(r.ramp_down_w_s[w], want[w], 1e-9 * 55000, "down over %s", an_ramp_window_names[w]);
    }
    cr_assert_eq(r.samples, n, "the last sample kept");
    free(x);
}

Test(ramps, linear_ramps_and_steps_at_every_window_and_rate)
{
    double rates[] = { 100, 1000 };
    for (int ri = 0; ri < 2; ri++) {
        double hz = rates[ri], dt = 1 / hz;
        size_t n = (size_t)(6 * hz);
        double *x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++) {   /* 100 W; +600 W/s for 1.5 s from t = 1 s; hold; a 300 W step down at 4 s */
            double t = (double)i * dt;
            x[i] = t < 1 ? 100 : t < 2.5 ? 100 + 600 * (t - 1) : t < 4 ? 1000 : 700;
        }
        struct an_series s = { x, n, dt, 0, 0 };
        struct an_result r;
        cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
        for (int w = 0; w < AN_RAMP_WINDOWS; w++) {
            double win = an_ramp_windows_s[w];
            if (win < dt)
                continue;
            cr_assert_float_eq(r.ramp_up_w_s[w], 600, 1e-6, "%g Hz, %s: %.17g", hz, an_ramp_window_names[w],
                               r.ramp_up_w_s[w]);
            cr_assert_float_eq(r.ramp_down_w_s[w], 300 / win, 1e-6 * 300 / win, "%g Hz, %s down", hz,
                               an_ramp_window_names[w]);
        }
        free(x);
    }
}

Test(ramps, a_pair_across_a_gap_is_never_used)
{
    size_t n = 3000;
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)   /* 1 kHz; flat 400 W, but a 900 W spike inside a gap that hides its edges */
        x[i] = 400;
    for (size_t i = 1000; i < 1200; i++)
        x[i] = NAN;
    struct an_series s = { x, n, 1e-3, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    for (int w = 0; w < AN_RAMP_WINDOWS; w++)
        cr_assert_eq(r.ramp_up_w_s[w], 0, "a gap is not a ramp");
    cr_assert_eq(r.samples, n - 200);
    cr_assert_eq(r.gaps, 200);
    free(x);
}

/* ---- bands: a sine on a bin puts all its energy in its band (tolerance 1e-9); two sines share by A^2 */

Test(bands, a_sine_in_each_band_and_two_sines_by_their_energy)
{
    double dt = 1e-3;
    size_t n = 100000;   /* 100 s: bins every 0.01 Hz */
    double freqs[4] = { 0.5, 2, 5, 12 };
    double *x = malloc(n * sizeof *x);
    for (int b = 0; b < 4; b++) {
        for (size_t i = 0; i < n; i++)
            x[i] = 500 + 200 * sin(2 * M_PI * freqs[b] * (double)i * dt);
        struct an_series s = { x, n, dt, 0, 0 };
        struct an_result r;
        cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
        for (int k = 0; k < 4; k++)
            cr_assert_float_eq(r.bands[k].share, k == b ? 1 : 0, 1e-9, "%g Hz in band %d: %.12f", freqs[b], k,
                               r.bands[k].share);
        cr_assert_float_eq(r.dominant_hz, freqs[b], 1e-9);
        cr_assert_float_eq(r.swing_w, 400, 1, "p99 - p1 of a sine of amplitude 200 W: %f", r.swing_w);
    }
    for (size_t i = 0; i < n; i++)   /* 300 W at 2 Hz and 100 W at 12 Hz: shares 0.9 and 0.1 */
        x[i] = 500 + 300 * sin(2 * M_PI * 2 * (double)i * dt) + 100 * sin(2 * M_PI * 12 * (double)i * dt);
    struct an_series s = { x, n, dt, 0, 0 };
    struct an_result r;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
    cr_assert_float_eq(r.bands[1].share, 0.9, 1e-9);
    cr_assert_float_eq(r.bands[3].share, 0.1, 1e-9);
    free(x);
}

/* A series logged slower than twice a band's top has no bin there: the band is null and named, never a share of 0;
 * and an iteration at or past half the log's rate is no dominant frequency (its alias would be), whatever the
 * frequency: sines of 0.3 to 40 Hz logged at 4 to 100 Hz, noisy (a signal, not a held sensor) */
Test(bands, a_band_past_half_the_logging_rate_is_null_never_zero)
{
    const double rates[] = { 4, 10, 25, 40, 100 }, freqs[] = { 0.3, 1.7, 3.1, 8.27, 13, 40 };
    unsigned seed = 11;
    for (int ri = 0; ri < 5; ri++)
        for (int fi = 0; fi < 6; fi++) {
            double dt = 1 / rates[ri], nyq = rates[ri] / 2;
            size_t n = (size_t)(60 / dt);
            double *x = malloc(n * sizeof *x);
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                x[i] = 500 + 200 * sin(2 * M_PI * freqs[fi] * (double)i * dt + 0.3) + 4.0 * (seed >> 8) / 16777216.0;
            }
            struct an_series s = { x, n, dt, 0, 1 / freqs[fi] };
            struct an_result r;
            cr_assert_eq(analysis_run(&s, an_default_bands, 4, &r), 0);
            cr_assert(!r.held, "%g Hz at %g Hz: a noisy signal", freqs[fi], rates[ri]);
            for (int k = 0; k < 4; k++) {
                int past = an_default_bands[k].hi_hz > nyq;
                cr_assert_eq(isnan(r.bands[k].share), past, "%g Hz at %g Hz, band %g-%g: %g", freqs[fi], rates[ri],
                             an_default_bands[k].lo_hz, an_default_bands[k].hi_hz, r.bands[k].share);
                cr_assert_eq(!!(r.unresolved & AN_UNRES_BAND(k)), past);
            }
            if (freqs[fi] >= 0.95 * nyq)
                cr_assert(isnan(r.dominant_hz), "%g Hz at %g Hz: %g Hz is an alias", freqs[fi], rates[ri], r.dominant_hz);
            else
                cr_assert_float_eq(r.dominant_hz, freqs[fi], 1 / 60.0, "%g Hz at %g Hz: %g", freqs[fi], rates[ri],
                                   r.dominant_hz);
            free(x);
        }
}

Test(threads, the_threaded_analysis_equals_the_serial_one)
{
    enum { K = 9 };
    size_t n = 20000;
    struct an_series s[K];
    struct an_result a[K], b[K];
    srand(3);
    for (int k = 0; k < K; k++) {
        double *x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++)
            x[i] = (rand() % 10 == 0) ? NAN : 300 + 100 * sin((double)i * 0.01 * (k + 1)) + rand() % 50;
        s[k] = (struct an_series){ x, n, 1e-3, 0, 0 };
        cr_assert_eq(analysis_run(&s[k], an_default_bands, 4, &a[k]), 0);
    }
    cr_assert_eq(analysis_run_many(s, K, an_default_bands, 4, b, 4), 0);
    for (int k = 0; k < K; k++) {
        cr_assert_eq(memcmp(&a[k], &b[k], sizeof a[k]), 0, "series %d", k);
        free((double *)s[k].x);
    }
}

Test(projection, a_trace_with_gaps_at_both_ends_projects_its_span)
{
    size_t n = 5000;
    double *x = malloc(n * sizeof *x), *trace = NULL;
    for (size_t i = 0; i < n; i++)
        x[i] = i < 700 || i >= 4500 ? NAN : ((i / 250) % 2 ? 700 : 150);
    struct an_series s = { x, n, 1e-3, 0, 0 };
    struct an_projection p;
    size_t tn = 0;
    cr_assert_eq(analysis_project_trace(&s, 1000, 1, 0, 1, an_default_bands, 4, &p, &trace, NULL, &tn), 0);
    cr_assert_eq(tn, 3800, "from the first valid sample to the last: %zu", tn);
    cr_assert_float_eq(p.swing_mw, 1000 * 550e-6, 1e-9);
    cr_assert_float_eq(p.range_mw, 1000 * 550e-6, 1e-9);
    free(trace);
    free(x);
}

/* Many groups apart over a long trace are added by FFT: the same cluster trace, held trace, gaps and figures as the
 * direct sum, within 1e-9 of the trace's largest value, with a wrap (a known period) and without (a drift that never
 * repeats), gaps and all; and a jitter too wide for the trace is refused alike. */
Test(projection, the_groups_added_by_fft_are_the_direct_sum)
{
    size_t n = 30000;
    double *x = malloc(n * sizeof *x);
    for (int wrap = 0; wrap < 2; wrap++) {
        unsigned seed = 7;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            x[i] = ((i / 37) % 3 ? 700 : 150) + (wrap ? 0 : (double)i * 0.004) + 20.0 * (seed >> 8) / 16777216.0;
            if (i % 5003 == 17 || (i > 12000 && i < 12010))
                x[i] = NAN;
        }
        struct an_series s = { x, n, 1e-3, AN_NOT_HELD, wrap ? 0.111 : 0 };
        struct an_projection p[2];
        double *tr[2], *hd[2];
        size_t tn[2];
        for (int k = 0; k < 2; k++) {
            an_project_fft_min = k ? 0 : 1e300;   /* direct, then FFT */
            cr_assert_eq(analysis_project_trace(&s, 100000, 4000, 0.3, 11, an_default_bands, 4, &p[k], &tr[k], &hd[k],
                                                &tn[k]), 0, "%s", p[k].why ? p[k].why : "");
        }
        an_project_fft_min = 2e7;
        cr_assert_eq(tn[0], tn[1]);
        cr_assert_geq(tn[0], 1000);
        double most = 0, worst = 0;
        for (size_t i = 0; i < tn[0]; i++)
            most = fmax(most, fabs(tr[0][i]));
        for (size_t i = 0; i < tn[0]; i++) {
            cr_assert_eq(isnan(tr[0][i]), isnan(tr[1][i]), "point %zu: a gap in one only", i);
            if (!isnan(tr[0][i]))
                worst = fmax(worst, fmax(fabs(tr[0][i] - tr[1][i]), hd[0] && hd[1] ? fabs(hd[0][i] - hd[1][i]) : 0));
        }
        cr_log_info("wrap %d: %zu points, largest %.3f MW, worst difference %.3g MW", wrap, tn[0], most, worst);
        cr_assert_leq(worst, 1e-9 * most);
        cr_assert_float_eq(p[0].swing_mw, p[1].swing_mw, 1e-9 * most);
        cr_assert_float_eq(p[0].mean_mw, p[1].mean_mw, 1e-9 * most);
        cr_assert_float_eq(p[0].ramp_up_mw_s, p[1].ramp_up_mw_s, 1e-6 * fabs(p[0].ramp_up_mw_s) + 1e-9);
        for (int k = 0; k < 2; k++)
            free(tr[k]), free(hd[k]);
    }
    free(x);
}

/* A 1 kHz log of an averaging sensor (each reading the mean of the last update_ms of a square wave of gap_ms at
 * 150 W, compute_ms at 700 W, plus up to +-noise W, shown until the next), from t0_ms on for n samples. */
static double *sensor_log(size_t n, int update_ms, int gap_ms, int compute_ms, double noise, unsigned seed)
{
    double *x = malloc(n * sizeof *x), shown = 150;
    int period = gap_ms + compute_ms;
    for (size_t i = 0; i < n; i++) {
        if (i % (size_t)update_ms == 0) {
            double sum = 0;
            for (int k = 0; k < update_ms; k++) {
                long t = (long)i - k + 5 * period;
                sum += t % period < gap_ms ? 150 : 700;
            }
            seed = seed * 1103515245u + 12345u;
            shown = sum / update_ms + noise * (2.0 * (seed >> 8) / 16777216.0 - 1);
        }
        x[i] = shown;
    }
    return x;
}

/* One group in lock-step is N times one GPU: the cluster's mean, swing and range are those of the readings scaled,
 * whatever the phases against the sensor's update (until 2026-11-29 they were taken on the line through the readings,
 * which reaches a reading only at its time: 21 ms gaps read every 20 ms projected a swing 9 % under), noisy or not;
 * and a battery too small to act leaves the grid's swing as the cluster's (its reduction is 0, not the difference
 * of two ways of reading one trace) */
#define WHAT "update %d ms, %d ms gaps, %d ms compute, noise %d: %s %.9g MW against %.9g"
Test(projection, one_group_is_n_times_one_gpu_and_an_idle_battery_removes_nothing)
{
    const int updates[] = { 20, 100 }, phases[][2] = { { 21, 60 }, { 13, 13 }, { 45, 205 }, { 250, 500 }, { 7, 33 } };
    for (int u = 0; u < 2; u++)
        for (int ph = 0; ph < 5; ph++)
            for (int noisy = 0; noisy < 2; noisy++) {
                size_t n = 8000;
                double *x = sensor_log(n, updates[u], phases[ph][0], phases[ph][1], noisy ? 3 : 0, 7u + (unsigned)ph);
                struct an_series s = { x, n, 1e-3, updates[u] * 1e-3, (phases[ph][0] + phases[ph][1]) * 1e-3 };
                struct an_result r;
                struct an_projection p;
                double *trace = NULL, *held = NULL, *line = an_dehold(x, n, updates[u]);
                size_t tn = 0, a, e;
                an_span(line, n, &a, &e);   /* the readings the cluster's trace covers: the first's age is unknown */
                free(line);
                struct an_series span = { x + a, e - a, 1e-3, s.update_s, s.period_s };
                cr_assert_eq(analysis_run(&span, an_default_bands, 4, &r), 0);
                cr_assert_eq(analysis_project_trace(&s, 10000, 1, 0, 1, an_default_bands, 4, &p, &trace, &held, &tn), 0);
                cr_assert(held, "a held sensor's readings are handed out");
                cr_assert(fabs(p.swing_mw - 1e-2 * r.swing_w) <= 1e-9 * p.swing_mw + 1e-12, WHAT, updates[u],
                          phases[ph][0], phases[ph][1], noisy, "swing", p.swing_mw, 1e-2 * r.swing_w);
                cr_assert(fabs(p.mean_mw - 1e-2 * r.mean_w) <= 2e-3 * p.mean_mw, WHAT, updates[u], phases[ph][0],
                          phases[ph][1], noisy, "mean", p.mean_mw, 1e-2 * r.mean_w);   /* the span: its first reading on */
                cr_assert(fabs(p.range_mw - 1e-2 * r.range_w) <= 1e-9 * p.range_mw + 1e-12, WHAT, updates[u],
                          phases[ph][0], phases[ph][1], noisy, "range", p.range_mw, 1e-2 * r.range_w);
                struct an_result whole;   /* the ramps: on the line through the readings, once (twice smeared it) */
                cr_assert_eq(analysis_run(&s, an_default_bands, 4, &whole), 0);
                double ramp = whole.ramp_up_w_s[AN_RAMP_WINDOWS - 1];
                cr_assert(fabs(p.ramp_up_mw_s - 1e-2 * ramp) <= 1e-9 * fabs(p.ramp_up_mw_s) + 1e-12, WHAT, updates[u],
                          phases[ph][0], phases[ph][1], noisy, "1 s ramp", p.ramp_up_mw_s, 1e-2 * ramp);
                struct an_bess b = { .capacity_mwh = 10, .power_mw = 1e-9, .efficiency = 0.9, .window_s = 1 }, bh = b;
                cr_assert_eq(analysis_bess(trace, tn, 1e-3, &b, NULL), 0);
                cr_assert_eq(analysis_bess(held, tn, 1e-3, &bh, NULL), 0);
                cr_assert(fabs(bh.grid_swing_mw - p.swing_mw) <= 1e-6 * p.swing_mw, WHAT, updates[u], phases[ph][0],
                          phases[ph][1], noisy, "an idle battery's grid swing", bh.grid_swing_mw, p.swing_mw);
                free(trace);
                free(held);
                free(x);
            }
}
#undef WHAT

/* A battery's grid ramps are the grid side's projection's, with what the sensor cannot resolve left unmeasured as
 * the spec's clauses leave it: never a figure in the battery's block beside a null clause on the same line (a 600 ms
 * sensor's 1 s ramp read 0.027 MW/s there until 2026-12-02, the clause null) */
Test(projection, a_battery_s_grid_ramps_are_the_grid_projection_s)
{
    const int updates[] = { 20, 100, 600 };
    for (int u = 0; u < 3; u++) {
        size_t n = 20000;
        double *x = sensor_log(n, updates[u], 45, 205, 3, 5u);
        struct an_series s = { x, n, 1e-3, updates[u] * 1e-3, 0.25 };
        struct an_projection p, gp;
        double *trace = NULL, *held = NULL;
        size_t tn = 0;
        cr_assert_eq(analysis_project_trace(&s, 10000, 1, 0, 1, an_default_bands, 4, &p, &trace, &held, &tn), 0);
        struct an_bess b = { .capacity_mwh = 10, .power_mw = 0.5, .efficiency = 0.9, .window_s = 2 };
        cr_assert_eq(analysis_bess_grid(trace, held, tn, 1e-3, an_default_bands, 4, &p, &b, &gp), 1);
        cr_assert(isnan(gp.ramp_up_mw_s) == (updates[u] == 600), "update %d ms: the grid's 1 s ramp %g", updates[u],
                  gp.ramp_up_mw_s);
        cr_assert(isnan(b.grid_ramp_up_mw_s) ? isnan(gp.ramp_up_mw_s) : b.grid_ramp_up_mw_s == gp.ramp_up_mw_s,
                  "update %d ms: the battery's grid ramp up %g, the projection's %g", updates[u], b.grid_ramp_up_mw_s,
                  gp.ramp_up_mw_s);
        cr_assert(isnan(b.grid_ramp_down_mw_s) ? isnan(gp.ramp_down_mw_s) : b.grid_ramp_down_mw_s == gp.ramp_down_mw_s,
                  "update %d ms: the battery's grid ramp down %g, the projection's %g", updates[u],
                  b.grid_ramp_down_mw_s, gp.ramp_down_mw_s);
        free(trace);
        free(held);
        free(x);
    }
}

/* ---- gauntlet analyze on traces written here */

static const char *az_log;

/* Names the log of this test's analyze runs, <kind>.log in its own folder of logs (e2e_log). */
static void az_log_name(const char *kind)
{
    char name[32];
    snprintf(name, sizeof name, "%s.log", kind);
    az_log = e2e_log(name);
}

/* Runs `gauntlet analyze path args...`; returns the exit code, the output in *out (malloc'd). */
static int az_run(const char *path, const char *a1, const char *a2, char **out)
{
    az_log_name("az");
    const char *args[] = { "analyze", path, "--json", a1, a2, NULL };
    int rc = e2e_run(az_log, args);
    *out = e2e_read(az_log);
    cr_assert(*out);
    return rc;
}

/* Runs analyze --json and returns its JSON (the test fails unless it exits 0); warnings may precede it. */
static json_t *az_json(const char *path, const char *a1, char **text)
{
    char *out;
    int rc = az_run(path, a1, NULL, &out);
    cr_assert_eq(rc, 0, "analyze exit %d:\n%s", rc, out);
    char *brace = out[0] == '{' || out[0] == '[' ? out : strstr(out, "\n{");   /* a results folder's: an array */
    brace = brace ? brace : strstr(out, "\n[");
    cr_assert(brace, "%s", out);
    json_error_t err;
    json_t *j = json_loads(brace, 0, &err);
    cr_assert(j, "not JSON: %s\n%s", err.text, out);
    if (text)
        *text = out;
    else
        free(out);
    return j;
}

/* A new temporary CSV file open for writing; its path in path. */
static FILE *az_file(char *path)
{
    strcpy(path, "/tmp/gauntlet-trace-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    FILE *f = fdopen(fd, "w");
    cr_assert(f);
    return f;
}

/* The 2 Hz square wave, 150 <-> 700 W, at time t (s). */
static double sq(double t) { return fmod(t * 2 + 1e-9, 1.0) < 0.5 ? 700 : 150; }

static double agg_num(json_t *j, const char *key) { return json_number_value(json_object_get(json_object_get(j, "aggregate"), key)); }

Test(analyze_input, gpus_are_summed_by_time_not_by_row)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "t_s,gpu,watts\n");
    for (int g = 0; g < 2; g++)   /* the same wave in time; GPU 1's log starts 250 ms later */
        for (int i = g ? 250 : 0; i < 60000; i++)
            fprintf(f, "%.3f,%d,%g\n", i * 1e-3, g, sq(i * 1e-3));
    fclose(f);
    json_t *j = az_json(path, NULL, NULL);
    cr_assert_float_eq(agg_num(j, "swing_w"), 1100, 1e-9, "in phase: 300 <-> 1400 W, got %f", agg_num(j, "swing_w"));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 59750,
                 "the sum over the time both cover");
    cr_assert_float_eq(json_number_value(json_object_get(json_object_get(json_object_get(j, "aggregate"), "ramp_up_w_s"),
                                                         "1s")), 0, 1e-9, "two whole periods in a second");
    json_decref(j);
    unlink(path);
}

/* nvidia-smi's power.draw is a 1 s average on Ampere and newer GPUs, power.draw.instant is not: a file with both is
 * read from the instant column; one with only the averaged column is read, and says what its figures miss. */
Test(analyze_input, the_instant_column_is_read_before_the_averaged_one)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "timestamp, index, power.draw [W], power.draw.instant [W]\n");
    for (int i = 0; i < 400; i++)   /* the instant column swings 100 <-> 700 W at 2 Hz; the averaged one holds 400 */
        fprintf(f, "2026/11/26 10:00:%02d.%03d, 0, 400.00 W, %.2f W\n", i / 100, i % 100 * 10, sq(i * 1e-2) > 400 ? 700.0 : 100.0);
    fclose(f);
    char *text;
    json_t *j = az_json(path, NULL, &text);
    cr_assert_float_eq(agg_num(j, "swing_w"), 600, 1e-6, "read from power.draw.instant: %f", agg_num(j, "swing_w"));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "power_column"), "name")), "power.draw.instant [W]");
    cr_assert(json_is_null(json_object_get(json_object_get(j, "power_column"), "note")));
    cr_assert(!strstr(text, "average over 1 s"), "%s", text);
    free(text);
    json_decref(j);
    f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "timestamp, index, power.draw [W]\n");
    for (int i = 0; i < 400; i++)
        fprintf(f, "2026/11/26 10:00:%02d.%03d, 0, %.2f W\n", i / 100, i % 100 * 10, 400.0 + (i % 2));
    fclose(f);
    j = az_json(path, NULL, &text);
    cr_assert(json_is_true(json_object_get(json_object_get(j, "warnings"), "averaged_column")));
    cr_assert(strstr(json_string_value(json_object_get(json_object_get(j, "power_column"), "note")) ?: "", "over 1 s"));
    cr_assert(strstr(text, "warning: the power column is one that Ampere and newer GPUs average over 1 s"), "%s", text);
    free(text);
    json_decref(j);
    unlink(path);
}

/* A CSV that begins with a UTF-8 byte-order mark (as spreadsheets and Windows tools write it) is read as the same
 * CSV without one: the same figures, not "expected a header". */
Test(analyze_input, a_byte_order_mark_is_no_part_of_the_header)
{
    char plain[64], bom[64];
    FILE *f = az_file(plain), *g = az_file(bom);
    fprintf(f, "t_s,gpu,watts\n");
    fprintf(g, "\xEF\xBB\xBFt_s,gpu,watts\n");
    for (int i = 0; i < 4000; i++) {
        fprintf(f, "%.3f,0,%g\n", i * 1e-3, sq(i * 1e-3));
        fprintf(g, "%.3f,0,%g\n", i * 1e-3, sq(i * 1e-3));
    }
    fclose(f);
    fclose(g);
    json_t *a = az_json(plain, NULL, NULL), *b = az_json(bom, NULL, NULL);
    cr_assert_float_eq(agg_num(b, "swing_w"), agg_num(a, "swing_w"), 1e-9);
    cr_assert_float_eq(agg_num(b, "mean_w"), agg_num(a, "mean_w"), 1e-9);
    cr_assert_float_eq(agg_num(b, "swing_w"), 550, 1e-9, "150 <-> 700 W");
    json_decref(a);
    json_decref(b);
    unlink(plain);
    unlink(bom);
}

Test(analyze_input, a_late_row_is_sorted_in_and_counted)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "t_s,watts\n");
    for (int i = 0; i < 60000; i++)
        if (i != 5000)
            fprintf(f, "%.3f,%g\n", i * 1e-3, sq(i * 1e-3));
    fprintf(f, "%.3f,%g\n", 5.0, sq(5.0));   /* the row of t = 5 s arrived last */
    fclose(f);
    char *text;
    json_t *j = az_json(path, NULL, &text);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 60000);
    cr_assert_float_eq(agg_num(j, "mean_w"), 425, 1e-9);
    cr_assert_float_eq(agg_num(j, "swing_w"), 550, 1e-9);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "warnings"), "out_of_order")), 1);
    cr_assert(strstr(text, ":60001: warning: 1 rows out of time order"), "%s", text);
    free(text);
    json_decref(j);
    char *out;
    cr_assert_eq(az_run(path, "--strict", NULL, &out), 2);
    cr_assert(strstr(out, ":60001: 1 rows out of time order (sorted by time), first here (--strict)"), "%s", out);
    free(out);
    unlink(path);
}

Test(analyze_input, conflicting_duplicates_are_an_error_naming_both_lines)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "t_s,gpu,watts\n0.000,0,100\n0.001,0,200\n0.001,0,900\n0.002,0,300\n");
    fclose(f);
    char *out;
    cr_assert_eq(az_run(path, NULL, NULL, &out), 2);
    cr_assert(strstr(out, ":4: GPU 0 has two different readings at one time: 900 W here and 200 W at line 3"), "%s", out);
    free(out);
    f = fopen(path, "w");   /* the same row twice: kept once, counted */
    fprintf(f, "t_s,gpu,watts\n0.000,0,100\n0.001,0,200\n0.001,0,200\n0.002,0,300\n0.003,0,300\n");
    fclose(f);
    json_t *j = az_json(path, NULL, NULL);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "warnings"), "duplicates")), 1);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 4);
    json_decref(j);
    unlink(path);
}

Test(analyze_input, timestamps_across_a_month_and_a_year)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "timestamp, index, power.draw [W]\n");
    /* nvidia-smi every 10 ms from 2025/12/31 23:59:58 for 4 s: across a day, a month and a year */
    for (int i = 0; i < 400; i++) {
        int ms = i * 10, sec = 58 + ms / 1000;
        const char *day = sec < 60 ? "2025/12/31 23:59" : "2026/01/01 00:00";
        fprintf(f, "%s:%06.3f, 0, %.2f W\n", day, (sec % 60) + (ms % 1000) / 1000.0, sq(ms / 1000.0));
    }
    fclose(f);
    json_t *j = az_json(path, NULL, NULL);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 400, "every sample, the "
                 "last one too");
    cr_assert_float_eq(json_number_value(json_object_get(j, "grid_hz")), 100, 1e-9);
    cr_assert_float_eq(agg_num(j, "dominant_hz"), 2, 1e-9);
    json_decref(j);
    f = fopen(path, "w");
    fprintf(f, "timestamp,index,power.draw [W]\n2026/02/29 10:00:00.000,0,100\n");
    fclose(f);
    char *out;
    cr_assert_eq(az_run(path, NULL, NULL, &out), 2);
    cr_assert(strstr(out, ":2: column 1 (time): a timestamp with no such date or time of day, got '2026/02/29"), "%s", out);
    free(out);
    unlink(path);
}

Test(analyze_input, impossible_readings_are_left_out_and_counted)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "t_s,gpu,watts\n");
    for (int i = 0; i < 2000; i++)
        fprintf(f, "%.3f,0,%g\n", i * 1e-3, i == 700 ? -5000 : i == 1300 ? 1e12 : sq(i * 1e-3));
    fclose(f);
    json_t *j = az_json(path, NULL, NULL);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "warnings"), "out_of_range")), 2);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 1998);
    cr_assert_float_eq(agg_num(j, "max_w"), 700, 1e-9);
    cr_assert_float_eq(agg_num(j, "min_w"), 150, 1e-9);
    json_decref(j);
    char *out;
    cr_assert_eq(az_run(path, "--strict", NULL, &out), 2);
    cr_assert(strstr(out, ":702: 2 power readings outside [0, max] W"), "%s", out);
    free(out);
    cr_assert_eq(az_run(path, "--max-w", "500", &out), 0, "a stated bound: %s", out);
    cr_assert(strstr(out, "warning: 1001 power readings outside [0, max] W"), "%s", out);
    free(out);
    unlink(path);
}

Test(analyze_input, bad_fields_are_errors_naming_line_and_column)
{
    struct { const char *csv, *want; } cases[] = {
        { "t_s,gpu,watts\n0,0,100\n0.001,0,abc\n", ":3: column 3 (power): expected watts" },
        { "t_s,gpu,watts\n0,0,100\n0.001,x,100\n", ":3: column 2 (GPU): expected a GPU index (an integer >= 0), got 'x'" },
        { "t_s,gpu,watts\n0,-1,100\n", ":2: column 2 (GPU): expected a GPU index" },
        { "t_s,gpu,watts\n0,0,100\nsoon,0,100\n", ":3: column 1 (time): expected a time" },
        { "t_s,gpu,watts\n0,0,inf\n", ":2: column 3 (power): expected watts" },
        { "t_s,gpu,watts\n0,0,\n0.001,0,[N/A]\n", ":2: GPU 0 has no valid power reading in the whole trace" },
        { "t_s,gpu,watts\n0,0,100\n2026/01/01 00:00:00,0,100\n", ":3: column 1 (time): '2026/01/01 00:00:00' is a timestamp, "
                                                             "but the rows before give seconds" },
        { "t_s,gpu,watts\n0,0,100\n0.001,0,100\n5,1,100\n5.001,1,100\n", "the GPUs' traces share no time" },
        { "t_s,gpu,watts\n", "no samples" },
        { "t_s,gpu,watts,sample_t_s\n0,0,100,\n0.001,0,100,later\n", ":3: column 4 (sample_t_s): expected a time" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[64], *out;
        FILE *f = az_file(path);
        fputs(cases[c].csv, f);
        fclose(f);
        cr_assert_eq(az_run(path, NULL, NULL, &out), 2, "case %zu:\n%s", c, out);
        cr_assert(strstr(out, path) && strstr(out, cases[c].want), "case %zu: want '%s' in:\n%s", c, cases[c].want, out);
        free(out);
        unlink(path);
    }
}

Test(analyze_input, absent_rows_are_not_samples_and_1100_gpus_all_count)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "t_s,gpu,watts\n");
    long rows = 0;
    for (int i = 0; i < 10000; i++)   /* every 7th row absent: the mean is the rows' mean, samples the rows' count */
        if (i % 7 != 3) {
            fprintf(f, "%.3f,0,%d\n", i * 1e-3, 100 + i % 50);
            rows++;
        }
    fclose(f);
    json_t *j = az_json(path, NULL, NULL);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), rows);
    double sum = 0;
    for (int i = 0; i < 10000; i++)
        if (i % 7 != 3)
            sum += 100 + i % 50;
    cr_assert_float_eq(agg_num(j, "mean_w"), sum / (double)rows, 1e-5, "(JSON keeps 8 digits)");
    json_decref(j);
    f = fopen(path, "w");
    fprintf(f, "t_s,gpu,watts\n");
    for (int i = 0; i < 20; i++)   /* 1100 GPUs, 20 samples each at 10 Hz: GPU g draws 100 + g % 10 W */
        for (int g = 0; g < 1100; g++)
            fprintf(f, "%.1f,%d,%d\n", i * 0.1, g, 100 + g % 10);
    fclose(f);
    j = az_json(path, NULL, NULL);
    cr_assert_eq(json_array_size(json_object_get(j, "per_gpu")), 1100);
    cr_assert_float_eq(agg_num(j, "mean_w"), 1100 * 104.5, 1e-6, "every GPU in the sum: %f", agg_num(j, "mean_w"));
    json_decref(j);
    unlink(path);
}

/* GPUs whose rows come in no order, their ids large and scattered (a hash finds each: a search of every GPU made so
 * far took 47 s for 150,000): each GPU's series is its own, every one in the sum. */
Test(analyze_input, gpus_in_no_order_each_keep_their_own_series, .timeout = 60)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "t_s,gpu,watts\n");
    enum { G = 20000 };
    for (int i = 0; i < 4; i++)
        for (long g = 0; g < G; g++) {
            long k = (g * 7919 + i * 104729) % G;   /* another order at every time */
            fprintf(f, "%.1f,%ld,%ld\n", i * 0.1, 97L * k + 17, 100 + k % 13);
        }
    fclose(f);
    json_t *j = az_json(path, NULL, NULL);
    json_t *per = json_object_get(j, "per_gpu"), *e;
    cr_assert_eq(json_array_size(per), G);
    double want = 0;
    for (long k = 0; k < G; k++)
        want += 100 + k % 13;
    cr_assert_float_eq(agg_num(j, "mean_w"), want, 1e-6 * want, "every GPU in the sum: %f", agg_num(j, "mean_w"));
    size_t i;
    json_array_foreach(per, i, e) {   /* a GPU's rows are its own: its mean is its one level */
        long id = (long)json_integer_value(json_object_get(e, "gpu"));
        double m = json_number_value(json_object_get(e, "mean_w"));
        cr_assert_float_eq(m, 100 + ((id - 17) / 97L) % 13, 1e-9, "GPU %ld: %f", id, m);
    }
    json_decref(j);
    unlink(path);
}

/* ---- against numpy: the same metrics on the same trace, computed by numpy in the same run */

Test(numpy, the_analysis_agrees_with_numpy_on_one_trace, .timeout = 120)
{
    const char *pythons[] = { "python3", "/usr/bin/python3" }, *python = NULL;
    for (size_t i = 0; i < 2 && !python; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", pythons[i]);
        if (system(cmd) == 0)
            python = pythons[i];
    }
    if (!python)
        cr_skip_test("no python3 with numpy here (apt-get install python3-numpy): nothing to compare against");
    char *out;
    az_log_name("np");
    int rc = e2e_run(az_log, (const char *[]){ "bench", "analysis", "--seconds", "60", "--gpus", "3", "--reference", "numpy",
                                               "--python", python, NULL });
    out = e2e_read(az_log);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "ratio numpy / gauntlet:"), "%s", out);
    cr_log_info("%s", out);
    free(out);
}

/* A reference that gives fewer figures than it was asked for agrees on nothing: a numpy side answering with no
 * results at all read "largest difference 0" and exit 0 until 2026-12-02 (fmax passes over what is not there). */
Test(numpy, a_reference_that_answers_nothing_is_no_agreement, .timeout = 60)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "#!/bin/sh\necho '{\"seconds\": 0.1, \"numpy\": \"none\", \"results\": []}'\n");
    fclose(f);
    cr_assert_eq(chmod(path, 0700), 0);
    az_log_name("np-none");
    int rc = e2e_run(az_log, (const char *[]){ "bench", "analysis", "--seconds", "2s", "--gpus", "2", "--reference",
                                               "numpy", "--python", path, NULL });
    char *out = e2e_read(az_log);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "gauntlet and numpy disagree by inf"), "%s", out);
    free(out);
    unlink(path);
}

/* A results folder is read run by run: each mitigation run's rows of power.csv (cut by the times events.jsonl gives)
 * analysed on its own, agreeing with the run's own figures in summary.json; --run picks one. */
Test(analyze_input, a_results_folder_is_split_by_mitigation_run, .timeout = 120)
{
    const char *sc = e2e_scenario("name: split\nranks: 2\niterations: 40\nseed: 3\n"
                                  "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n"
                                  "  allreduce: {bytes: 32MiB, emulate_busbw: 1}\n"   /* ~34 ms of communication, as long
                                                                                      * as the compute: filler shows */
                                  "power: {sample_hz: 200}\nsim: {tflops: 0.002}\n"
                                  "mitigations: [none, {filler: {floor: 80%}}]\n");
    const char *out = e2e_outdir();
    char log[96];
    snprintf(log, sizeof log, "%s.log", out);
    cr_assert_eq(e2e_run(log, (const char *[]){ "run", sc, "--out", out, "--backend", "sim", "--headless", NULL }), 0);
    json_t *s = e2e_summary(out);
    char *text;
    json_t *all = NULL;
    int rc = az_run(out, NULL, NULL, &text);
    cr_assert_eq(rc, 0, "%s", text);
    all = json_loads(text, 0, NULL);
    cr_assert(json_is_array(all) && json_array_size(all) == 2, "one object per run:\n%s", text);
    for (size_t i = 0; i < 2; i++) {
        json_t *a = json_array_get(all, i);
        double mine = agg_num(a, "mean_w");
        double theirs = json_number_value(json_object_get(
            json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), i), "power"), "aggregate"), "mean_w"));
        cr_assert_eq(json_integer_value(json_object_get(a, "run")), (json_int_t)i + 1);
        cr_assert(fabs(mine - theirs) <= 0.03 * theirs, "run %zu: analyze %.1f W, the run's own %.1f W", i + 1, mine, theirs);
        /* over the stretch the run analysed (its warm-up left out), every figure of the aggregate is the run's own:
         * before 2026-11-29 analyze took the run from its start, and its 100 ms ramp read up to 2.8x the run's */
        cr_assert_str_eq(json_string_value(json_object_get(json_object_get(a, "stretch"), "of")), "analysed");
        json_t *ours = json_object_get(a, "aggregate"), *run_agg = json_object_get(
            json_object_get(json_array_get(json_object_get(s, "runs"), i), "power"), "aggregate");
        const char *key;
        json_t *v;
        int compared = 0;
        json_object_foreach(run_agg, key, v) {
            json_t *w = json_object_get(ours, key);
            if (!json_is_real(v) || !json_is_number(w))
                continue;
            double x = json_number_value(w), y = json_real_value(v);
            cr_expect(fabs(x - y) <= 0.01 * fabs(y) + 0.05, "run %zu: %s: analyze %.9g, the run's own %.9g", i + 1, key, x, y);
            compared++;
        }
        for (int up = 0; up <= 1; up++) {   /* the ramps over each window */
            const char *name = up ? "ramp_up_w_s" : "ramp_down_w_s";
            json_object_foreach(json_object_get(run_agg, name), key, v) {
                json_t *w = json_object_get(json_object_get(ours, name), key);
                if (!json_is_number(v) || !json_is_number(w))
                    continue;
                double x = json_number_value(w), y = json_number_value(v);
                cr_expect(fabs(x - y) <= 0.02 * fabs(y) + 1, "run %zu: %s %s: analyze %.6g, the run's own %.6g", i + 1,
                          name, key, x, y);
                compared++;
            }
        }
        cr_assert_geq(compared, 10, "run %zu: figures compared: %d", i + 1, compared);
    }
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(all, 1), "label")), "filler");
    double m0 = json_number_value(json_object_get(
        json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"), "aggregate"), "mean_w"));
    double m1 = json_number_value(json_object_get(
        json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 1), "power"), "aggregate"), "mean_w"));
    cr_assert_gt(m1, m0 * 1.10, "the workload must set the runs apart (filler raises the mean): %.1f vs %.1f W", m1, m0);
    cr_assert_gt(agg_num(json_array_get(all, 1), "mean_w"), agg_num(json_array_get(all, 0), "mean_w") * 1.07,
                 "filler's run above none's: the runs are not mixed");
    free(text);
    rc = az_run(out, "--run", "2", &text);   /* the filler run alone */
    cr_assert_eq(rc, 0, "%s", text);
    json_t *one = json_loads(text, 0, NULL);
    cr_assert(json_array_size(one) == 1 && json_integer_value(json_object_get(json_array_get(one, 0), "run")) == 2, "%s",
              text);
    json_decref(one);
    free(text);
    rc = az_run(out, "--run", "3", &text);
    cr_assert_eq(rc, 2, "no run 3: %s", text);
    cr_assert(strstr(text, "has runs 1..2"), "%s", text);
    free(text);
    json_decref(all);
    json_decref(s);
}

/* Makes dir (a mkdtemp template) a results folder of one run analysed over [0.1 s, end_s]: its events.jsonl (a start
 * event with start's fields, node 0's run_begin and run_end); returns its power.csv, open, its header written. */
static FILE *az_rundir(char *dir, const char *start, double end_s)
{
    char path[96];
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "{\"t_s\":0.0,\"event\":\"start\",\"node\":0,\"scenario\":\"rate\",\"backend\":\"sim\",\"ranks\":2,"
               "\"runs\":1,\"iterations\":6,%s}\n"
               "{\"t_s\":0.05,\"event\":\"run_begin\",\"node\":0,\"run\":0,\"mitigation\":\"none\",\"label\":\"none\","
               "\"iterations\":6}\n"
               "{\"t_s\":3.2,\"event\":\"run_end\",\"node\":0,\"run\":0,\"mitigation\":\"none\",\"label\":\"none\","
               "\"iterations\":6,\"complete\":true,\"figures\":{\"iteration_p50_s\":0.5,\"analysed_s\":[0.1,%g]}}\n",
            start, end_s);
    cr_assert_eq(fclose(f), 0);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "t_s,rank,watts,phase\n");
    return f;
}

/* A results folder's own power.csv is analysed on the grid of the rate its run sampled at (its start event's
 * sample_hz), as the run analysed it, never on a rate read off the rows: a sampler that kept only every other tick of
 * its 200 Hz (a loaded machine) leaves a gap at every other point, in analyze and summarize as in the run. Before
 * 2026-11-29 the grid was the rows' own (here 100 Hz, no gaps), and on 2 busy cores ticks late enough read 202 Hz and
 * a 1 s ramp 9 % off the run's own. --hz still chooses. */
Test(analyze_input, a_results_folder_is_gridded_at_the_rate_its_run_sampled)
{
    char dir[] = "/tmp/gauntlet-rate-XXXXXX";
    FILE *f = az_rundir(dir, "\"sample_hz\":200.0,\"nodes\":1", 3.09);
    for (int k = 0; k < 300; k++)   /* every other tick of 200 Hz: 100 rows a second */
        for (int r = 0; r < 2; r++)
            fprintf(f, "%.6f,%d,%.2f,compute\n", 0.1 + k * 0.01, r, sq(0.1 + k * 0.01));
    cr_assert_eq(fclose(f), 0);
    json_t *all = az_json(dir, NULL, NULL), *one = json_array_get(all, 0);
    cr_assert_float_eq(json_number_value(json_object_get(one, "grid_hz")), 200, 1e-9, "grid %g Hz",
                       json_number_value(json_object_get(one, "grid_hz")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(one, "aggregate"), "samples")), 300);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(one, "aggregate"), "gaps")), 299,
                 "a gap at every other point of the run's grid");
    json_decref(all);
    all = az_json(dir, "--hz=100", NULL);
    one = json_array_get(all, 0);
    cr_assert_float_eq(json_number_value(json_object_get(one, "grid_hz")), 100, 1e-9);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(one, "aggregate"), "gaps")), 0);
    json_decref(all);
    /* summarize (a run without its summary.json: killed) reads it on the same grid */
    char log[128];
    snprintf(log, sizeof log, "%s/summarize.log", dir);
    cr_assert_eq(e2e_run(log, (const char *[]){ "summarize", dir, NULL }), 0, "%s", e2e_read(log));
    json_t *s = e2e_summary(dir);
    json_t *agg = json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"), "aggregate");
    cr_assert_eq(json_integer_value(json_object_get(agg, "gaps")), 299, "summarize: %s",
                 json_dumps(agg, JSON_COMPACT));
    json_decref(s);
}

/* "The run never began: <why>" is said of an end line alone in the record (a set-up that failed), never of a run
 * that began and ended before its first run (the workers did not start in time): that one has no run to analyse,
 * and says so. Until 2026-11-29 analyze took that end line's reason for a set-up's (summarize did not). */
Test(analyze_input, only_a_record_without_a_start_never_began)
{
    char dir[] = "/tmp/gauntlet-never-XXXXXX", path[96], log[96];
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    snprintf(log, sizeof log, "%s/analyze.log", dir);
    for (int began = 0; began < 2; began++) {
        FILE *f = fopen(path, "w");
        cr_assert(f);
        if (began)
            fprintf(f, "{\"t_s\":0.0,\"event\":\"start\",\"scenario\":\"w\",\"backend\":\"sim\",\"ranks\":2,"
                       "\"runs\":1,\"iterations\":6,\"sample_hz\":100.0,\"nodes\":1}\n");
        fprintf(f, "{\"t_s\":1.0,\"event\":\"end\",\"exit\":%d,\"reason\":\"%s\"}\n", began ? 1 : 3,
                began ? "the workers did not start in time" : "its set-up failed: power source: none");
        cr_assert_eq(fclose(f), 0);
        cr_assert_eq(e2e_run(log, (const char *[]){ "analyze", dir, NULL }), 2);
        char *said = e2e_read(log);
        if (began)
            cr_assert(strstr(said, "no run began (no run_begin event)") && !strstr(said, "never began"), "%s", said);
        else
            cr_assert(strstr(said, "the run never began: its set-up failed: power source: none"), "%s", said);
        free(said);
    }
}

/* A line of the record analyze reads that is no JSON event, a run_begin whose run is out of range, or a run's begin or
 * end without a time, is exit 2 naming the line, as summarize and view say it (a garbled run_begin once made its run
 * vanish, exit 0; until 2026-12-01 a missing t_s read as 0: the run from the record's start, or one of no time) */
Test(analyze_input, a_garbled_line_of_the_record_is_an_error_naming_it)
{
    /* and a line of 2 MiB, whole JSON: no line a run writes, read past (until 2026-12-02 held whole, whatever its
     * length) */
    size_t big_n = 2u << 20;
    char *big = malloc(big_n + 128);
    cr_assert(big);
    int at = snprintf(big, 128, "{\"t_s\":0.05,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"pad\":\"");
    memset(big + at, 'x', big_n);
    snprintf(big + at + big_n, 8, "\"}\n");
    const char *const lines[] = {
        "{\"t_s\" :0.05,\"event\" :::\"run_begin\",\"run\":0,\"mitigation\":\"none\"}\n",
        "[\"run_begin\"]\n",
        "{\"t_s\":0.05,\"event\":\"run_begin\",\"run\":-1,\"mitigation\":\"none\"}\n",
        "{\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\"}\n",
        "{\"t_s\":0.05,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\"}\n{\"t_s\":null,\"event\":\"run_end\",\"run\":0}\n",
        big,
    };
    static const char *const want[] = { "events.jsonl:2: not a JSON event (column", "events.jsonl:2: not a JSON event (not an object)",
                                        "events.jsonl:2: run_begin: run: expected an integer from 0 to",
                                        "events.jsonl:2: run_begin: t_s: expected a number",
                                        "events.jsonl:3: run_end: t_s: expected a number",
                                        "events.jsonl:2: a line longer than 1048576 bytes (1 MiB)" };
    for (int i = 0; i < 6; i++) {
        char dir[] = "/tmp/gauntlet-garbled-XXXXXX", path[96], log[96];
        cr_assert(mkdtemp(dir));
        e2e_own(dir);
        snprintf(path, sizeof path, "%s/events.jsonl", dir);
        snprintf(log, sizeof log, "%s/analyze.log", dir);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "{\"t_s\":0.0,\"event\":\"start\",\"scenario\":\"w\",\"backend\":\"sim\",\"ranks\":1,\"runs\":1,"
                   "\"iterations\":6,\"sample_hz\":100.0,\"nodes\":1}\n%s", lines[i]);
        cr_assert_eq(fclose(f), 0);
        snprintf(path, sizeof path, "%s/power.csv", dir);
        f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "t_s,rank,watts,phase\n");
        for (int k = 0; k < 300; k++)
            fprintf(f, "%.2f,0,%d,compute\n", 0.01 * k, 300 + k % 7);
        cr_assert_eq(fclose(f), 0);
        cr_assert_eq(e2e_run(log, (const char *[]){ "analyze", dir, NULL }), 2, "%.200s", lines[i]);
        char *said = e2e_read(log);
        cr_assert(said && strstr(said, want[i]), "%s", said);
        free(said);
    }
    free(big);
}

/* A held sensor's GPU filtered onto a slower grid (--hz) keeps its update interval, measured on its own samples: a
 * 100 ms averaging sensor of a 2 Hz square wave logged at 100 Hz reads the same null 100 ms ramp and null 2.5-7 and
 * 7-20 Hz bands at 20 Hz as on its own grid (the filter mixed its readings: it read as a signal, 5598 W/s and a 7-20
 * Hz share where its own grid has none) */
Test(analyze_input, a_slow_sensor_filtered_onto_a_slower_grid_stays_held)
{
    char path[] = "/tmp/gauntlet-held-XXXXXX.csv";
    int fd = mkstemps(path, 4);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    FILE *f = fdopen(fd, "w");
    cr_assert(f);
    fprintf(f, "t_s,gpu,watts\n");
    double shown = 150;
    for (int k = 0; k < 3000; k++) {   /* 30 s at 100 Hz */
        if (k % 10 == 0) {
            double sum = 0;
            for (int j = 0; j < 100; j++)   /* the last 100 ms at 1 kHz */
                sum += fmod((k * 10 - j) * 1e-3 + 10, 0.5) < 0.25 ? 700 : 150;
            shown = sum / 100 + (k / 10 % 5) * 0.4;
        }
        fprintf(f, "%.2f,0,%.1f\n", k * 0.01, shown);
    }
    cr_assert_eq(fclose(f), 0);
    for (int slow = 0; slow < 2; slow++) {
        char *out;
        cr_assert_eq(az_run(path, slow ? "--hz" : NULL, slow ? "20" : NULL, &out), 0, "%s", out);
        json_t *j = json_loads(strchr(out, '{'), JSON_DISABLE_EOF_CHECK, NULL);
        cr_assert(j, "%s", out);
        json_t *a = json_object_get(j, "aggregate"), *bands = json_object_get(a, "bands");
        cr_assert(json_is_null(json_object_get(json_object_get(a, "ramp_up_w_s"), "100ms")), "%s grid:\n%s",
                  slow ? "20 Hz" : "its own", out);
        for (int b = 2; b < 4; b++)
            cr_assert(json_is_null(json_object_get(json_array_get(bands, (size_t)b), "share")), "band %d, %s grid:\n%s", b,
                      slow ? "20 Hz" : "its own", out);
        json_decref(j);
        free(out);
    }
    unlink(path);
}

/* Several nodes with forward: ranks and a forward_hz under sample_hz: node 0's power.csv holds its own GPUs' rows at
 * sample_hz and the other nodes' at forward_hz; the run's grid is then forward_hz (as the live view's window), node
 * 0's rows filtered onto it, so that every point has every GPU: on sample_hz's grid the sum was a gap at 7 points of
 * 8 (and on the rows' own rate, their median, too). */
Test(analyze_input, a_forwarded_clusters_folder_is_gridded_at_its_forward_rate)
{
    char dir[] = "/tmp/gauntlet-fwd-XXXXXX";
    FILE *f = az_rundir(dir, "\"sample_hz\":400.0,\"nodes\":2,\"forward\":\"ranks\",\"forward_hz\":50.0", 3.1);
    for (int k = 0; k <= 1200; k++) {   /* node 0's two GPUs at 400 Hz, node 1's two at every eighth tick */
        double t = 0.1 + k * 0.0025;
        for (int r = 0; r < (k % 8 ? 2 : 4); r++)
            fprintf(f, "%.6f,%d,%.2f,compute\n", t, r, sq(t));
    }
    cr_assert_eq(fclose(f), 0);
    char *text;
    json_t *all = az_json(dir, NULL, &text), *one = json_array_get(all, 0);
    cr_assert_float_eq(json_number_value(json_object_get(one, "grid_hz")), 50, 1e-9, "grid %g Hz",
                       json_number_value(json_object_get(one, "grid_hz")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(one, "aggregate"), "gaps")), 0, "%s", text);
    cr_assert(strstr(text, "warning: the run's grid (its other nodes' rows come at its forward_hz), 50 Hz, is slower"), "%s", text);
    free(text);
    json_decref(all);
    /* node 0 outnumbered: 1 GPU at 400 Hz, 9 nodes' at 50 Hz (the intervals' median is the others'); node 0's 100 Hz
     * ripple, which every 50 Hz point would read at its crest, is filtered out of its GPU all the same (each GPU by
     * its own rate: until 2026-11-29 the choice was the pooled median's, and it was point-sampled, 100 W high) */
    char dir2[] = "/tmp/gauntlet-fwd-XXXXXX";
    f = az_rundir(dir2, "\"sample_hz\":400.0,\"nodes\":10,\"forward\":\"ranks\",\"forward_hz\":50.0", 3.1);
    for (int k = 0; k <= 1200; k++) {
        double t = 0.1 + k * 0.0025;
        fprintf(f, "%.6f,0,%.2f,compute\n", t, 300 + 100 * cos(2 * M_PI * 100 * (t - 0.1)));
        for (int r = 1; r < 10 && k % 8 == 0; r++)
            fprintf(f, "%.6f,%d,300.00,compute\n", t, r);
    }
    cr_assert_eq(fclose(f), 0);
    all = az_json(dir2, NULL, &text);
    one = json_array_get(all, 0);
    json_t *g0 = json_array_get(json_object_get(one, "per_gpu"), 0);
    cr_assert_eq(json_integer_value(json_object_get(g0, "gpu")), 0);
    cr_assert_float_eq(json_number_value(json_object_get(g0, "mean_w")), 300, 5, "GPU 0 filtered: %s", text);
    cr_assert(json_is_true(json_object_get(json_object_get(one, "warnings"), "decimated")), "%s", text);
    cr_assert(strstr(text, "is slower than the samples of some GPUs, up to 400 Hz"), "%s", text);
    free(text);
    json_decref(all);
}

/* ---- gauntlet analyze on input that would overflow, exhaust or block */

/* Runs gauntlet args... (NULL-terminated) with an address-space limit of as_bytes (0: none), killed after timeout_s;
 * returns the exit code (-1: still running at the timeout), the output in *out (malloc'd). */
static int az_run_args(const char *const *args, long long as_bytes, double timeout_s, char **out)
{
    az_log_name("az");
    const char *argv[16] = { e2e_bin() };
    int n = 1;
    for (; args[n - 1] && n < 15; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        int fd = open(az_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        struct rlimit rl = { (rlim_t)as_bytes, (rlim_t)as_bytes };
        if (fd < 0 || (as_bytes > 0 && setrlimit(RLIMIT_AS, &rl) != 0))
            _exit(126);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int rc = e2e_wait(p, timeout_s);
    *out = e2e_read(az_log);
    cr_assert(*out);
    return rc;
}

/* Writes text into a new temporary CSV file; its path in path. */
static void az_write(char *path, const char *text)
{
    FILE *f = az_file(path);
    cr_assert_geq(fputs(text, f), 0);
    cr_assert_eq(fclose(f), 0);
}

/* A timestamp in a year a trace cannot hold (9999: past int64 nanoseconds since 1970) is an error naming the line,
 * never a time wrapped around; the first and last days of the years held are read exactly. */
Test(analyze_input, a_date_outside_the_years_held_is_an_error_naming_the_line)
{
    char path[64], *out;
    az_write(path, "timestamp,index,power.draw [W]\n9999/01/01 00:00:00.000,0,100\n9999/01/01 00:00:00.010,0,200\n"
                   "9999/01/01 00:00:00.020,0,100\n");
    cr_assert_eq(az_run(path, NULL, NULL, &out), 2, "%s", out);
    cr_assert(strstr(out, ":2: column 1 (time): a timestamp outside the years 1900 to 2099 (the dates a trace can "
                          "hold), got '9999/01/01 00:00:00.000'"), "%s", out);
    free(out);
    unlink(path);
    az_write(path, "timestamp,index,power.draw [W]\n2099/12/31 23:59:59.980,0,100\n2099/12/31 23:59:59.990,0,200\n"
                   "2099/12/31 23:59:60.000,0,100\n2099/12/31 23:59:60.010,0,200\n");
    json_t *j = az_json(path, NULL, NULL);   /* the last second of 2099, its leap second too */
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 4);
    json_decref(j);
    unlink(path);
}

/* Seconds near the ends of int64 nanoseconds (+-9.2e9 s) are an error naming the line; a trace from -4.2e9 s to
 * +4.2e9 s (the most a trace holds) is measured without overflow: its span is 8.4e9 s, never a negative one. */
Test(analyze_input, seconds_out_of_range_are_an_error_and_the_widest_span_never_overflows)
{
    char path[64], *out;
    az_write(path, "t_s,watts\n-9200000000,100\n-9199999999.99,200\n-9199999999.98,100\n9200000000,100\n");
    cr_assert_eq(az_run(path, NULL, NULL, &out), 2, "%s", out);
    cr_assert(strstr(out, ":2: column 1 (time): a time more than 4.2e9 s either side of 0"), "%s", out);
    cr_assert(!strstr(out, "spans -"), "%s", out);
    free(out);
    unlink(path);
    az_write(path, "t_s,watts\n0,100\n0.01,200\n9.2e9,100\n");
    cr_assert_eq(az_run(path, NULL, NULL, &out), 2, "%s", out);
    cr_assert(strstr(out, ":4: column 1 (time): a time more than 4.2e9 s"), "%s", out);
    free(out);
    unlink(path);
    az_write(path, "t_s,watts\n-4200000000,100\n-4199999999.99,200\n-4199999999.98,100\n4200000000,100\n");
    cr_assert_eq(az_run(path, NULL, NULL, &out), 2, "%s", out);
    cr_assert(strstr(out, ":5: a gap of 8.4e+09 s after line 4 (GPU 0)"), "%s", out);
    free(out);
    unlink(path);
}

/* One row far from the rest (a clock that jumped, a stray date) would make a grid of 1.9e9 points at 100 Hz: refused
 * at once, naming the two rows of the gap, instead of filling the machine's memory. */
Test(analyze_input, a_row_far_from_the_rest_is_refused_naming_the_gap, .timeout = 60)
{
    char path[64], *out;
    az_write(path, "t_s,watts\n0,300\n0.01,400\n0.02,300\n19000000,300\n");
    int rc = az_run_args((const char *[]){ "analyze", path, NULL }, 0, 20, &out);
    cr_assert_eq(rc, 2, "exit %d (-1: still running after 20 s):\n%s", rc, out);
    cr_assert(strstr(out, ":5: a gap of 1.9e+07 s after line 4 (GPU 0): over an hour without a sample, the trace is "
                          "not one recording; cut it at the gap"), "%s", out);
    free(out);
    rc = az_run_args((const char *[]){ "analyze", path, "--hz", "1", NULL }, 0, 20, &out);   /* 1.9e7 points would fit */
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, ":5: a gap of 1.9e+07 s after line 4 (GPU 0): over an hour"), "%s", out);
    free(out);
    unlink(path);
    /* under an hour, a grid past 1e9 points is refused by its size, naming the gap */
    az_write(path, "t_s,watts\n0,300\n0.01,400\n0.02,300\n2000,300\n");
    rc = az_run_args((const char *[]){ "analyze", path, "--hz", "1000000", NULL }, 0, 20, &out);
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, ":5: a gap of 1999.98 s after line 4 (GPU 0) makes a grid of 2e+09 points at 1e+06 Hz, more "
                          "than the 1e9 a GPU may have; cut the trace at the gap"), "%s", out);
    free(out);
    unlink(path);
    FILE *f = az_file(path);   /* a DCGM export with one stray date among its rows */
    fprintf(f, "timestamp,entity,DCGM_FI_DEV_POWER_USAGE\n");
    for (int i = 0; i < 2000; i++) {
        fprintf(f, "2026/03/01 10:%02d:%06.3f,0,%d\n", i / 6000, (i % 6000) * 0.01, 300 + 100 * (i % 2));
        if (i == 1000)
            fprintf(f, "2031/03/01 10:00:00.000,0,300\n");
    }
    fclose(f);
    rc = az_run_args((const char *[]){ "analyze", path, NULL }, 0, 20, &out);
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, ":1003: a gap of 1.57766e+08 s after line 2002 (GPU 0): over an hour"), "%s", out);
    free(out);
    unlink(path);
}

/* The grid must fit in half the memory the process may use: with an address-space limit of 2 GiB, a grid of 2e7
 * points (1.5 GiB to analyse) is refused naming the gap, not ended by the allocator. */
Test(analyze_input, a_grid_past_the_memory_allowed_is_refused_naming_the_gap, .timeout = 60)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not run under an address-space limit");
#endif
    char path[64], *out;
    az_write(path, "t_s,watts\n0,300\n0.01,400\n0.02,300\n2000,300\n");
    int rc = az_run_args((const char *[]){ "analyze", path, "--hz", "10000", NULL }, 2LL << 30, 20, &out);
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, ":5: a gap of 1999.98 s after line 4 (GPU 0) makes a grid of 2e+07 points at 10000 Hz, which for "
                          "1 GPU(s) needs about 1.49 GiB, more than half the memory this process may use (2 GiB)"),
              "%s", out);
    free(out);
    unlink(path);
}

/* A FIFO would block the reader forever (no writer) or feed it without end: refused at once as not a regular file,
 * given to analyze, as a results folder's power.csv, and as the trace a scenario replays (gauntlet check). */
Test(analyze_input, a_fifo_is_refused_at_once, .timeout = 90)
{
    char dir[] = "/tmp/gauntlet-fifo-XXXXXX", fifo[96], events[96], yaml[96], text[256], *out;
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    snprintf(fifo, sizeof fifo, "%s/power.csv", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    int rc = az_run_args((const char *[]){ "analyze", fifo, NULL }, 0, 20, &out);
    cr_assert_eq(rc, 2, "exit %d (-1: blocked for 20 s):\n%s", rc, out);
    cr_assert(strstr(out, "power.csv: not a regular file"), "%s", out);
    free(out);
    snprintf(events, sizeof events, "%s/events.jsonl", dir);
    FILE *f = fopen(events, "w");
    cr_assert(f);
    fprintf(f, "{\"event\":\"run_begin\",\"t_s\":0,\"run\":0,\"node\":0,\"label\":\"none\"}\n");
    cr_assert_eq(fclose(f), 0);
    rc = az_run_args((const char *[]){ "analyze", dir, NULL }, 0, 20, &out);
    cr_assert_eq(rc, 2, "exit %d (-1: blocked for 20 s):\n%s", rc, out);
    cr_assert(strstr(out, "power.csv: not a regular file"), "%s", out);
    free(out);
    snprintf(yaml, sizeof yaml, "%s/replay.yaml", dir);
    snprintf(text, sizeof text, "name: replay\nranks: 2\niterations: 3\nworkload:\n  replay: {trace: %s}\n", fifo);
    f = fopen(yaml, "w");
    cr_assert(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
    rc = az_run_args((const char *[]){ "check", yaml, NULL }, 0, 20, &out);
    cr_assert_eq(rc, 2, "exit %d (-1: blocked for 20 s):\n%s", rc, out);
    cr_assert(strstr(out, "power.csv: not a regular file") && strstr(out, "replay.yaml:5:3: workload.replay.trace"), "%s",
              out);
    free(out);
    /* the folder's events.jsonl a FIFO, its power.csv a file: refused at once too */
    unlink(events);
    cr_assert_eq(mkfifo(events, 0600), 0);
    unlink(fifo);
    f = fopen(fifo, "w");
    cr_assert(f);
    fprintf(f, "t_s,rank,watts\n0,0,300\n");
    cr_assert_eq(fclose(f), 0);
    rc = az_run_args((const char *[]){ "analyze", dir, NULL }, 0, 20, &out);
    cr_assert_eq(rc, 2, "exit %d (-1: blocked for 20 s):\n%s", rc, out);
    cr_assert(strstr(out, "events.jsonl: not a regular file"), "%s", out);
    free(out);
    /* a run's time past what nanoseconds hold: exit 2 naming the line */
    unlink(events);
    f = fopen(events, "w");
    cr_assert(f);
    fprintf(f, "{\"event\":\"start\",\"t_s\":0,\"node\":0,\"utc_ns\":1}\n"
               "{\"event\":\"run_begin\",\"t_s\":1e300,\"run\":0,\"node\":0,\"label\":\"none\"}\n");
    cr_assert_eq(fclose(f), 0);
    rc = az_run_args((const char *[]){ "analyze", dir, NULL }, 0, 20, &out);
    cr_assert_eq(rc, 2, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "events.jsonl:2: run_begin: a time out of range"), "%s", out);
    free(out);
    unlink(yaml);
    unlink(events);
    unlink(fifo);
    rmdir(dir);
}

/* Every option has a stated range; a value outside it is exit 2 naming the option, and the ends are accepted. */
Test(analyze_input, every_option_is_bounded)
{
    char path[64], *out;
    FILE *f = az_file(path);
    fprintf(f, "t_s,watts\n");
    for (int i = 0; i < 400; i++)
        fprintf(f, "%.2f,%g\n", i * 0.01, sq(i * 0.01));
    fclose(f);
    struct { const char *a[5], *want; } bad[] = {
        { { "--gpus", "3000000000", "--groups", "3000000000" }, "--gpus 3000000000: expected an integer from 1 to 10000000" },
        { { "--groups", "20000" }, "--groups 20000: expected an integer from 1 to --gpus" },
        { { "--jitter", "1e308h" }, "--jitter 1e308h: expected a duration" },
        { { "--jitter", "2h" }, "--jitter 7200 s: expected a duration from 0 to 1h" },
        { { "--threads", "3000000000" }, "--threads 3000000000: expected an integer from 1 to 1024" },
        { { "--max-w", "1e300" }, "--max-w 1e+300: expected watts above 0, at most 1e9" },
        { { "--hz", "0.0001" }, "--hz 0.0001: expected a rate from 0.001 to 1e6 Hz" },
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        const char *args[8] = { "analyze", path };
        for (int k = 0; k < 4 && bad[c].a[k]; k++)
            args[2 + k] = bad[c].a[k];
        int rc = az_run_args(args, 0, 20, &out);
        cr_assert_eq(rc, 2, "case %zu: exit %d:\n%s", c, rc, out);
        cr_assert(strstr(out, bad[c].want), "case %zu: want '%s' in:\n%s", c, bad[c].want, out);
        free(out);
    }
    int rc = az_run_args((const char *[]){ "analyze", path, "--json", "--gpus", "10000000", "--groups", "10000000",
                                           "--jitter", "1h", "--threads", "1024", NULL }, 0, 60, &out);
    cr_assert_eq(rc, 0, "the ends of the ranges: exit %d:\n%s", rc, out);
    free(out);
    unlink(path);
}

/* The documented form of times and watts is decimal: hexadecimal (0x12c W, 0x3 s), inf and nan-like words are errors
 * naming the line and column; a UTF-8 byte-order mark before the header is still accepted. */
Test(analyze_input, hexadecimal_and_infinite_numbers_are_errors_naming_line_and_column)
{
    struct { const char *csv, *want; } cases[] = {
        { "t_s,watts\n0,0x12c\n0.01,300\n", ":2: column 2 (power): expected watts (a decimal number" },
        { "t_s,watts\n0,300\n0.01,0x12C W\n", ":3: column 2 (power): expected watts" },
        { "t_s,watts\n0,300\n0.01,infinity\n", ":3: column 2 (power): expected watts" },
        { "t_s,watts\n0,300\n0.01,-inf\n", ":3: column 2 (power): expected watts" },
        { "t_s,watts\n0,300\n0x3,300\n", ":3: column 1 (time): expected a time in decimal seconds (12.5) or a timestamp, "
                                         "not hexadecimal, got '0x3'" },
        { "t_s,watts\n0,300\n0x1p3,300\n", ":3: column 1 (time): expected a time in decimal seconds" },
        { "t_s,watts\n0,300\ninf,300\n", ":3: column 1 (time): expected a time" },
        { "t_s,watts\n0,300\nnan,300\n", ":3: column 1 (time): expected a time" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[64], *out;
        az_write(path, cases[c].csv);
        cr_assert_eq(az_run(path, NULL, NULL, &out), 2, "case %zu:\n%s", c, out);
        cr_assert(strstr(out, path) && strstr(out, cases[c].want), "case %zu: want '%s' in:\n%s", c, cases[c].want, out);
        free(out);
        unlink(path);
    }
    char path[64];
    az_write(path, "\xEF\xBB\xBFt_s,watts\n0,300\n0.01,400 W\n0.02,1.5e2\n0.03,[N/A]\n0.04,300\n");
    json_t *j = az_json(path, NULL, NULL);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 4);
    cr_assert_float_eq(agg_num(j, "max_w"), 400, 1e-9);
    cr_assert_float_eq(agg_num(j, "min_w"), 150, 1e-9);
    json_decref(j);
    unlink(path);
}

/* A logger's timing jitter spreads the intervals evenly around its step: the grid takes their mean around the
 * median, not the median alone (a 100 Hz trace with +-4 ms of jitter read 99 Hz and lost 13 % of its samples to the
 * grid), and lies at the samples' mean phase, not the first one's (begun there, 12 % merged into a neighbour's point);
 * a --hz slower than the samples says that it decimates them, unfiltered. */
Test(analyze_input, a_jittered_loggers_rate_is_its_step_and_decimation_is_named)
{
    char path[64];
    FILE *f = az_file(path);
    struct rng r;
    rng_seed(&r, 17, 0);
    fprintf(f, "t_s,watts\n");
    for (int i = 0; i < 3000; i++)   /* 30 s at 100 Hz, each time +-4 ms off its step */
        fprintf(f, "%.6f,%.2f\n", 1 + i * 0.01 + (i ? 0.008 * (rng_uniform(&r) - 0.5) : 0.0039),   /* the first late */
                300 + 100 * sin(i * 0.05));
    fclose(f);
    json_t *j = az_json(path, NULL, NULL);
    cr_assert_float_eq(json_number_value(json_object_get(j, "grid_hz")), 100, 1e-9, "grid %g Hz",
                       json_number_value(json_object_get(j, "grid_hz")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 3000, "every sample");
    cr_assert(json_is_false(json_object_get(json_object_get(j, "warnings"), "decimated")));
    json_decref(j);
    j = az_json(path, "--hz=100", NULL);   /* the trace's own rate asked: the same grid, at the samples' phase too (begun
                                             * at the first sample until 2026-12-02: 365 of the 3000 merged) */
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "aggregate"), "samples")), 3000,
                 "every sample at --hz 100: %lld", (long long)json_integer_value(json_object_get(json_object_get(j,
                 "aggregate"), "samples")));
    json_decref(j);
    char *text;
    j = az_json(path, "--hz=10", &text);
    cr_assert(json_is_true(json_object_get(json_object_get(j, "warnings"), "decimated")));
    cr_assert(strstr(text, "warning: --hz 10 is slower than the trace's"), "%s", text);
    free(text);
    json_decref(j);
    unlink(path);
}

/* A --hz slower than the samples filters them onto its grid: a 2 Hz square wave (500 <-> 700 W) under a 95 Hz ripple
 * of 300 W, logged at 1 kHz and analysed at 100 Hz, peaks at 2 Hz; keeping one sample a point (until 2026-11-29)
 * folded the ripple whole to 5 Hz, over twice the wave's own peak (127 W). */
Test(analyze_input, a_slower_grid_filters_the_samples_onto_it)
{
    char path[64];
    FILE *f = az_file(path);
    fprintf(f, "t_s,watts\n");
    for (int i = 0; i < 30000; i++)   /* 30 s at 1 kHz */
        fprintf(f, "%.4f,%.3f\n", i * 1e-3,
                (fmod(i * 2e-3 + 1e-9, 1.0) < 0.5 ? 700 : 500) + 300 * sin(2 * M_PI * 95 * i * 1e-3));
    fclose(f);
    json_t *j = az_json(path, "--hz=100", NULL);
    cr_assert(json_is_true(json_object_get(json_object_get(j, "warnings"), "decimated")));
    cr_assert_float_eq(agg_num(j, "dominant_hz"), 2, 0.1, "dominant %g Hz", agg_num(j, "dominant_hz"));
    /* the ripple kept by sinc^2(0.95) (0.3 %): the swing is the wave's, 200 W, give or take its 0.8 W */
    cr_assert_float_eq(agg_num(j, "swing_w"), 200, 5, "swing %g W", agg_num(j, "swing_w"));
    json_decref(j);
    j = az_json(path, NULL, NULL);   /* at its own rate the ripple is all there */
    cr_assert_float_eq(agg_num(j, "dominant_hz"), 95, 0.5, "dominant %g Hz", agg_num(j, "dominant_hz"));
    json_decref(j);
    unlink(path);
}

/* Every null says why, and the table prints no "nan" nor "-0.00": a trace of two samples (no ramp window fits, no
 * spectrum), a constant one (nothing fluctuates). */
Test(analyze_input, every_null_says_why_and_the_table_prints_no_nan)
{
    const char *traces[] = { "t_s,watts\n0,300\n0.01,310\n", "t_s,watts\n0,300\n0.01,300\n0.02,300\n0.03,300\n0.04,300\n" };
    const char *whys[] = { "a spectrum needs 4 samples at least", "the power never changes" };
    for (int c = 0; c < 2; c++) {
        char path[64];
        az_write(path, traces[c]);
        json_t *j = az_json(path, NULL, NULL);
        json_t *a = json_object_get(j, "aggregate"), *u = json_object_get(a, "unresolved"), *e;
        size_t i;
        int said = 0;
        json_array_foreach(u, i, e)
            said |= strstr(json_string_value(json_object_get(e, "why")), whys[c]) != NULL;
        cr_assert(said, "case %d: the bands' null says why (%s)", c, whys[c]);
        cr_assert(json_is_null(json_object_get(json_object_get(a, "ramp_up_w_s"), "1s")));
        if (c == 0) {
            said = 0;
            json_array_foreach(u, i, e)
                said |= strcmp(json_string_value(json_object_get(e, "figure")), "ramp_w_s.1s") == 0;
            cr_assert(said, "the 1 s ramp's null says why");
        }
        json_decref(j);
        char *out;
        cr_assert_eq(az_run_args((const char *[]){ "analyze", path, NULL }, 0, 20, &out), 0, "%s", out);
        cr_assert(!strstr(out, " nan") && !strstr(out, "nan%") && !strstr(out, "-0.00"), "case %d:\n%s", c, out);
        cr_assert(strstr(out, "not resolved: "), "case %d: the table names what is not resolved:\n%s", c, out);
        free(out);
        unlink(path);
    }
}

/* A late sample and the next on time land on one point: the earlier goes to the empty point before it (a sampler held
 * up at a phase edge, then caught up, dropped a reading there, and the sum's mean leaned by up to 0.6 %); where the
 * point before holds a sample, the later of the two is kept and the other counted. */
Test(grid, a_late_sample_takes_the_empty_point_before)
{
    struct an_grid g = an_grid_of_hz(0, 1000);
    const int64_t t[] = { 0, 1000000, 2600000, 3000000, 4000000 };
    const double v[] = { 10, 11, 12, 13, 14 };
    double out[5];
    size_t merged = 99;
    cr_assert_eq(analysis_place(&g, t, v, 5, out, 5, &merged), 5, "every reading kept");
    cr_assert_eq(merged, 0);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(out[i], v[i], "point %d: %g", i, out[i]);
    const int64_t u[] = { 0, 1000000, 2400000, 2600000, 3000000 };   /* point 2 taken: 2.6 ms and 3 ms share point 3 */
    cr_assert_eq(analysis_place(&g, u, v, 5, out, 5, &merged), 4);
    cr_assert_eq(merged, 1);
    cr_assert_eq(out[2], 12);
    cr_assert_eq(out[3], 14, "the later kept");
    cr_assert(isnan(out[4]));
}

/* A NUL byte inside a line is said as one (it read "a line longer than 4094 characters"), and a header past 64 columns
 * is an error saying so (its time and power columns past the 64th were dropped: "expected a header with a time
 * column") */
Test(analyze_input, a_nul_byte_and_a_65th_column_are_said_as_what_they_are)
{
    char path[64], *out;
    FILE *f = az_file(path);
    cr_assert(fwrite("t_s,watts\n0.00,100\n0.01,1\0" "01\n0.02,100\n", 1, 38, f) == 38);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(az_run(path, NULL, NULL, &out), 2, "%s", out);
    cr_assert(strstr(out, ":3: a NUL byte in the line"), "%s", out);
    free(out);
    unlink(path);
    char text[1024] = "";
    for (int i = 0; i < 70; i++)
        strcat(text, "x,");
    strcat(text, "t_s,watts\n");
    az_write(path, text);
    cr_assert_eq(az_run(path, NULL, NULL, &out), 2, "%s", out);
    cr_assert(strstr(out, "gauntlet analyze: ") && strstr(out, ":1: more than 64 columns"), "%s", out);
    free(out);
    unlink(path);
}
