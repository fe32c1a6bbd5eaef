/* tests/test_analysis_math.c: invariants of the power analysis over many generated traces (the review of
 * harness/analysis, 2026-11-30): a square wave's dominant frequency is its fundamental at any duty and length, never a
 * harmonic; a noiseless square wave is a signal, not a held sensor, whatever its duty; a band that no bin of the
 * spectrum lies in is unresolved, never a share of 0; the projected cluster never ramps faster than its GPUs each
 * ramping as fast as one does; a trace that never falls has a fall of 0, not -0; a facility battery pays the root of
 * its efficiency each way and its grid follows the average of its window; the groups' jitter keeps the normal law's
 * share of a sine. Every case is drawn from a seeded generator: the same cases each run. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_json.h"
#include "util.h"

/* x[i], i < n: a square wave of period T s and duty d (hi over the first d T of each period), sampled every dt from t0 s. */
static void square_duty(double *x, size_t n, double dt, double t0, double T, double d, double lo, double hi)
{
    for (size_t i = 0; i < n; i++)
        x[i] = fmod(t0 + (double)i * dt, T) < d * T ? hi : lo;
}

/* The largest rise (up) or fall (!up) of x[0..n) over exactly k steps of dt, per second: a ramp's definition. */
static double brute_ramp(const double *x, size_t n, size_t k, double dt, int up)
{
    double m = 0;
    for (size_t i = 0; i + k < n; i++)
        m = fmax(m, (up ? x[i + k] - x[i] : x[i] - x[i + k]) / ((double)k * dt));
    return m;
}

/* A square wave of any duty from 5 % to 95 %, any period from 0.1 to 1 s and any length from 3 to 40 periods (not a
 * whole number of them), noiseless at 1 kHz, its period known or not: its dominant frequency is its fundamental, within
 * a bin of the spectrum, never a harmonic (a trace of 10.43 s of a 1 s iteration at 80 % duty read 2.015 Hz: the
 * fundamental between two bins lost up to 36 % of its power to the rectangular window, under the 2nd harmonic's); it
 * is a signal, not a held sensor (the 94/21 ms iteration read as a sensor updated every 21 ms: its 10 ms ramp null, its
 * 100 ms ramp 3,571 W/s of 5,000), so every ramp is the trace's own; and knowing the period keeps the figure (a 50 %
 * wave of known period changes every half period, and read null). */
Test(analysis_math, a_square_waves_dominant_frequency_is_its_fundamental_at_any_duty)
{
    struct rng r;
    rng_seed(&r, 20261130, 1);
    double dt = 1e-3;
    double *x = xmalloc(40000 * sizeof *x);
    size_t cases = 0;
    for (int pct = 5; pct <= 95; pct += 5) {
        double d = pct / 100.0;
        for (int c = 0; c < 12; c++) {
            double T = 0.1 * pow(10, rng_uniform(&r)), cycles = 3 + 37 * rng_uniform(&r);
            size_t n = (size_t)(cycles * T / dt);
            if (fabs(cycles - round(cycles)) < 0.05)
                n += (size_t)(0.3 * T / dt);   /* never a whole number of periods */
            square_duty(x, n, dt, T * rng_uniform(&r), T, d, 180, 720);
            for (int known = 0; known < 2; known++, cases++) {
                struct an_series s = { x, n, dt, 0, known ? T : 0 };
                struct an_result res;
                cr_assert_eq(analysis_run(&s, an_default_bands, 4, &res), 0);
                double df = 1 / ((double)n * dt);
                cr_assert(!res.held, "duty %d %%, %.3f s period, %zu samples: read as a held sensor (every %.1f ms)",
                          pct, T, n, res.update_s * 1e3);
                cr_assert(fabs(res.dominant_hz - 1 / T) <= 1.01 * df,
                          "duty %d %%, %.4f s period (%.3f Hz), %zu samples (%.2f periods), period %s: dominant %.4f Hz "
                          "(a bin is %.4f Hz)", pct, T, 1 / T, n, (double)n * dt / T, known ? "known" : "unknown",
                          res.dominant_hz, df);
                for (int w = 0; w < AN_RAMP_WINDOWS; w++) {
                    size_t k = (size_t)llround(an_ramp_windows_s[w] / dt);
                    if (k >= n)
                        continue;
                    double up = brute_ramp(x, n, k, dt, 1), down = brute_ramp(x, n, k, dt, 0);
                    cr_assert_float_eq(res.ramp_up_w_s[w], up, 1e-9 * up + 1e-9, "duty %d %%, %.3f s: %s ramp %g, the "
                                       "trace's %g W/s", pct, T, an_ramp_window_names[w], res.ramp_up_w_s[w], up);
                    cr_assert_float_eq(res.ramp_down_w_s[w], down, 1e-9 * down + 1e-9);
                }
            }
        }
    }
    cr_log_info("%zu square waves: every one its fundamental, none held", cases);
    free(x);
}

/* The same through a 20 ms averaging sensor with noise, as a run reads a GPU (its update interval given or measured,
 * the iteration's period known): the fundamental at every duty whose phases the sensor sees (two updates or more),
 * whatever the trace's length (a 0.2 s iteration at 80 % read 9.995 Hz in 10 of 101 lengths). */
Test(analysis_math, a_sensors_square_wave_is_read_at_its_fundamental)
{
    struct rng r;
    rng_seed(&r, 7, 2);
    double dt = 1e-3, u = 0.02;
    double *x = xmalloc(12000 * sizeof *x);
    static const double periods[] = { 0.2, 0.5, 1.0 };
    for (int pi = 0; pi < 3; pi++) {
        double T = periods[pi];
        for (int pct = 5; pct <= 95; pct += 5) {
            double d = pct / 100.0;
            if (fmin(d, 1 - d) * T < 2 * u)
                continue;
            for (int c = 0; c < 6; c++) {
                size_t n = (size_t)((10 + rng_uniform(&r)) * T / dt);
                double t0 = T * rng_uniform(&r), held = 0;
                for (size_t i = 0; i < n; i++) {
                    if (i % 20 == 0) {   /* a reading: the mean over the update before it, and up to 2 W of noise */
                        double m = 0;
                        for (int j = 0; j < 200; j++)
                            m += fmod(t0 + ((double)i - 20) * dt + j * 1e-4 + 10 * T, T) < d * T ? 700 : 200;
                        held = m / 200 + 2 * rng_uniform(&r);
                    }
                    x[i] = held;
                }
                for (int given = 0; given < 2; given++) {
                    struct an_series s = { x, n, dt, given ? u : 0, T };
                    struct an_result res;
                    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &res), 0);
                    double df = 1 / ((double)n * dt);
                    cr_assert(fabs(res.dominant_hz - 1 / T) <= 1.01 * df,
                              "period %.1f s, duty %d %%, %zu samples, interval %s: dominant %.4f Hz (bin %.4f Hz)", T, pct,
                              n, given ? "given" : "measured", res.dominant_hz, df);
                }
            }
        }
    }
    free(x);
}

/* Whether a bin of the spectrum of n points dt apart (k / (n dt), k = 1 .. n / 2) lies in [lo, hi). */
static int has_bin(size_t n, double dt, double lo, double hi)
{
    for (size_t k = 1; k <= n / 2; k++) {
        double f = (double)k / ((double)n * dt);
        if (f >= lo && f < hi)
            return 1;
    }
    return 0;
}

/* A band that no bin of the spectrum lies in (a trace shorter than a cycle of its top, or a band narrower than a bin)
 * has no measured share: null and named, never 0, over random traces of 0.1 to 5 s and random bands; every band with
 * a bin has a share. An 0.8 s trace of a 0.6 Hz swing read a share of 0 in 0.1-1 Hz, and a spec's clause capping it
 * at 5 % passed. */
Test(analysis_math, a_band_no_bin_lies_in_is_unresolved_never_0)
{
    struct rng r;
    rng_seed(&r, 11, 3);
    double dt = 1e-3;
    double *x = xmalloc(5000 * sizeof *x);
    size_t without = 0, with = 0;
    for (int c = 0; c < 300; c++) {
        size_t n = 100 + (size_t)(4900 * rng_uniform(&r));
        double f = 0.2 + 10 * rng_uniform(&r), ph = 6.3 * rng_uniform(&r);
        for (size_t i = 0; i < n; i++)
            x[i] = 450 + 250 * sin(2 * M_PI * f * (double)i * dt + ph) + rng_uniform(&r);
        struct an_band bands[4];
        for (int b = 0; b < 4; b++) {
            double lo = 0.05 * pow(300, rng_uniform(&r));
            bands[b] = (struct an_band){ lo, fmin(lo * (1.02 + 2 * rng_uniform(&r)), 20), 0 };
        }
        struct an_series s = { x, n, dt, 0, 0 };
        struct an_result res;
        cr_assert_eq(analysis_run(&s, bands, 4, &res), 0);
        json_t *u = analysis_unresolved_json(res.unresolved, res.update_s, res.held, res.band_nyq_hz, res.peak_nyq_hz,
                                             res.bands, res.n_bands);
        char *text = json_dumps(u, 0);
        for (int b = 0; b < 4; b++) {
            char fig[64];
            snprintf(fig, sizeof fig, "bands.%g-%g Hz", bands[b].lo_hz, bands[b].hi_hz);
            if (has_bin(n, dt, bands[b].lo_hz, bands[b].hi_hz)) {
                with++;
                cr_assert(isfinite(res.bands[b].share), "%zu samples, %s: a bin lies in it, no share", n, fig);
                continue;
            }
            without++;
            cr_assert(isnan(res.bands[b].share), "%zu samples (bins %.3f Hz apart), %s: a share of %g where no bin is",
                      n, 1 / ((double)n * dt), fig, res.bands[b].share);
            cr_assert(res.unresolved & AN_UNRES_BAND_SHORT(b));
            cr_assert(strstr(text, fig), "%s is not named: %s", fig, text);
        }
        free(text);
        json_decref(u);
    }
    cr_log_info("%zu bands without a bin, %zu with", without, with);
    cr_assert_gt(without, 50);
    cr_assert_gt(with, 50);

    /* the review's case, through the projection and a spec on the band: no verdict, never a pass */
    size_t n = 800;
    for (size_t i = 0; i < n; i++)
        x[i] = 450 + 250 * sin(2 * M_PI * 0.6 * (double)i * dt);
    struct an_spec spec = { .band_lo_hz = 0.1, .band_hi_hz = 1, .max_band_share = 0.05 };
    struct an_band bands[AN_MAX_BANDS];
    int nb = analysis_bands_with_spec(&spec, bands);
    struct an_series s = { x, n, dt, 0, 0 };
    struct an_projection p;
    cr_assert_eq(analysis_project(&s, 100000, 1, 0, 1, bands, nb, &p), 0);
    cr_assert(isnan(p.bands[0].share), "0.1-1 Hz over 0.8 s: %g", p.bands[0].share);
    json_t *pj = analysis_projection_json(&p, &spec), *sp = json_object_get(pj, "spec");
    cr_assert(json_is_null(json_object_get(sp, "pass")), "%s", json_dumps(sp, 0));
    cr_assert(json_is_null(json_object_get(json_array_get(json_object_get(sp, "clauses"), 0), "pass")));
    json_decref(pj);
    free(x);
}

/* The cluster is the sum of shifted copies of one GPU's trace: a copy that wraps at a whole number of the trace's
 * periods ramps over 1 s no faster than the GPU does, save its noise, so the cluster never ramps faster than N GPUs
 * each as fast as one (plus N times the noise's range a second). Over square waves whose periods divide 1 s (one
 * GPU's 1 s ramp is its noise alone), read directly or through a 20 ms averaging sensor (its interval given or
 * measured), with noise, of lengths that are no whole number of periods, the period known or not, 2 to 200 groups and
 * jitters of 10 to 100 ms. The wrap was once chosen on an overlap of one sample that matched by chance: a 200 ms
 * iteration read by a 20 ms sensor projected to 100,000 GPUs in 10 groups ramped 16.9 MW/s where the bound is 0.38. */
Test(analysis_math, the_projection_never_ramps_faster_than_n_gpus)
{
    struct rng r;
    rng_seed(&r, 5, 4);
    double dt = 1e-3;
    static const double periods[] = { 0.1, 0.125, 0.2, 0.25, 0.5 };
    double *x = xmalloc(12000 * sizeof *x);
    for (int c = 0; c < 48; c++) {
        double T = periods[c % 5], d = 0.2 + 0.6 * rng_uniform(&r), a = 0.5 + 2.5 * rng_uniform(&r);
        int sensor = (c / 5) % 3;   /* 0: none; 1: 20 ms, given; 2: 20 ms, measured (a period of whole updates) */
        if (fabs(remainder(T, 0.02)) > 1e-9)
            sensor = 0;
        size_t n = (size_t)((6 + 5 * rng_uniform(&r)) * 1000);
        if (n % (size_t)llround(T / dt) == 0)
            n += 37;
        double t0 = T * rng_uniform(&r), held = 0;
        for (size_t i = 0; i < n; i++) {
            if (!sensor) {
                x[i] = (fmod(t0 + (double)i * dt, T) < d * T ? 700 : 200) + a * rng_uniform(&r);
                continue;
            }
            if (i % 20 == 0) {
                double m = 0;
                for (int j = 0; j < 200; j++)
                    m += fmod(t0 + ((double)i - 20) * dt + j * 1e-4 + 10 * T, T) < d * T ? 700 : 200;
                held = m / 200 + a * rng_uniform(&r);
            }
            x[i] = held;
        }
        long groups = 2 + (long)(198 * rng_uniform(&r) * rng_uniform(&r)), gpus = 100000;
        double jitter = 0.01 + 0.09 * rng_uniform(&r);
        struct an_series s = { x, n, dt, sensor == 1 ? 0.02 : 0, c % 2 ? T : 0 };
        struct an_result one;
        cr_assert_eq(analysis_run(&s, an_default_bands, 4, &one), 0);
        struct an_projection p;
        cr_assert_eq(analysis_project(&s, gpus, groups, jitter, 100 + (unsigned)c, an_default_bands, 4, &p), 0,
                     "case %d: %s", c, p.why ? p.why : "");
        double bound_up = (double)gpus * 1e-6 * (one.ramp_up_w_s[2] + a), bound_down = (double)gpus * 1e-6 * (one.ramp_down_w_s[2] + a);
        cr_assert_leq(p.ramp_up_mw_s, bound_up * (1 + 1e-9),
                      "case %d: period %.3f s (%s), duty %.2f, sensor %d, %zu samples, %ld groups, jitter %.0f ms: the "
                      "cluster ramps up %.4f MW/s, N GPUs each as one %.4f", c, T, c % 2 ? "known" : "unknown", d, sensor,
                      n, groups, jitter * 1e3, p.ramp_up_mw_s, bound_up);
        cr_assert_leq(p.ramp_down_mw_s, bound_down * (1 + 1e-9), "case %d: down %.4f MW/s, bound %.4f", c,
                      p.ramp_down_mw_s, bound_down);
    }
    /* the review's case: 8 s of a 200 ms iteration (120 ms at 700 W) through a 20 ms averaging sensor, 0-2 W noise */
    size_t n = 8000;
    double held = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % 20 == 0) {
            double m = 0;
            for (int j = 0; j < 200; j++)
                m += fmod(((double)i - 20) * dt + j * 1e-4 + 1.0, 0.2) < 0.12 ? 700 : 200;
            held = m / 200 + 2 * rng_uniform(&r);
        }
        x[i] = held;
    }
    struct an_series s = { x, n, dt, 0.02, 0.2 };
    struct an_result one;
    cr_assert_eq(analysis_run(&s, an_default_bands, 4, &one), 0);
    for (long groups = 10; groups <= 100; groups *= 10) {
        struct an_projection p;
        cr_assert_eq(analysis_project(&s, 100000, groups, 0.03, 7, an_default_bands, 4, &p), 0);
        cr_assert_leq(p.ramp_up_mw_s, 0.1 * (one.ramp_up_w_s[2] + 2), "%ld groups: %.3f MW/s (one GPU %.2f W/s)",
                      groups, p.ramp_up_mw_s, one.ramp_up_w_s[2]);
    }
    free(x);
}

/* A trace that never falls has a fall of 0 over every window, the same with a gap or without (it read -0.0 in JSON
 * without one and 0 with one). */
Test(analysis_math, a_trace_that_never_falls_falls_0_not_minus_0)
{
    size_t n = 2000;
    double *x = xmalloc(n * sizeof *x);
    for (int gap = 0; gap < 2; gap++) {
        for (size_t i = 0; i < n; i++)
            x[i] = 100 + 0.1 * (double)i;
        if (gap)
            x[777] = NAN;
        struct an_series s = { x, n, 1e-3, 0, 0 };
        struct an_result res;
        cr_assert_eq(analysis_run(&s, an_default_bands, 4, &res), 0);
        for (int w = 0; w < AN_RAMP_WINDOWS; w++)
            cr_assert(res.ramp_down_w_s[w] == 0 && !signbit(res.ramp_down_w_s[w]), "gap %d, %s: %g", gap,
                      an_ramp_window_names[w], res.ramp_down_w_s[w]);
        json_t *j = analysis_power_json(&res, 700);
        char *text = json_dumps(json_object_get(j, "ramp_down_w_s"), JSON_REAL_PRECISION(17));
        cr_assert(!strstr(text, "-0"), "gap %d: %s", gap, text);
        free(text);
        json_decref(j);
    }
    free(x);
}

/* A facility battery as docs/power.md states it, over random cluster traces, ratings that bind and ratings that do
 * not: it starts half full; energy goes in and out through the root of its round-trip efficiency each way (grid-side
 * charge E_in stores E_in sqrt(eff), grid-side discharge E_out takes E_out / sqrt(eff) out of storage), so the charge
 * it ends with, its throughput (E_in + E_out), its losses and losses_pct follow from the grid side it hands out; its
 * power never passes its rating, its charge never leaves [0, capacity]; and where neither binds the grid is the
 * draw's exponential moving average of time constant `window`, started at the first window's mean: a step of the
 * draw is 1 - 1/e of the way through after one window. The energy balance alone (tests/test_analysis.c) holds
 * whatever the efficiency's split, the average's time constant or the throughput's count. */
Test(analysis_math, a_battery_pays_the_root_of_its_efficiency_each_way_and_follows_its_window)
{
    struct rng r;
    rng_seed(&r, 11, 6);
    size_t nmax = 20000;
    double *p = xmalloc(nmax * sizeof *p), *g = xmalloc(nmax * sizeof *g);
    for (int c = 0; c < 60; c++) {
        double dt = c % 3 ? 1e-3 : 0.02, T = 0.2 + 2 * rng_uniform(&r), duty = 0.2 + 0.6 * rng_uniform(&r);
        double lo = 20 + 40 * rng_uniform(&r), hi = lo + 10 + 60 * rng_uniform(&r);
        size_t n = (size_t)((5 + 10 * rng_uniform(&r)) / dt);
        for (size_t i = 0; i < n; i++)
            p[i] = (fmod((double)i * dt, T) < duty * T ? hi : lo) + 2 * rng_uniform(&r);
        struct an_bess b = { .capacity_mwh = c % 4 == 0 ? 1e-4 : 0.5 + 5 * rng_uniform(&r),   /* every 4th fills up */
                             .power_mw = c % 5 == 0 ? 0.2 * (hi - lo) : 2 * (hi - lo),          /* every 5th binds */
                             .efficiency = 0.5 + 0.5 * rng_uniform(&r), .window_s = 0.5 + 5 * rng_uniform(&r) };
        cr_assert_eq(analysis_bess(p, n, dt, &b, g), 0);
        double leg = sqrt(b.efficiency), in = 0, out = 0, load = 0, cap = b.capacity_mwh * 3600;
        for (size_t i = 0; i < n; i++) {
            in += fmax(0, g[i] - p[i]) * dt;   /* the grid gives more than the draw: the battery charges */
            out += fmax(0, p[i] - g[i]) * dt;
            load += p[i] * dt;
            cr_assert_leq(fabs(p[i] - g[i]), b.power_mw * (1 + 1e-12), "case %d: %.3f MW from a %.3f MW battery", c,
                          fabs(p[i] - g[i]), b.power_mw);
        }
        double tol = 1e-9 * (in + out + cap);
        cr_assert_float_eq((b.soc_end - 0.5) * cap, in * leg - out / leg, tol,
                           "case %d (efficiency %.3f): stored %.6f MJ, in %.6f x sqrt(eff) - out %.6f / sqrt(eff) = %.6f",
                           c, b.efficiency, (b.soc_end - 0.5) * cap, in, out, in * leg - out / leg);
        cr_assert_float_eq(b.throughput_mwh * 3600, in + out, tol, "case %d: throughput", c);
        cr_assert_float_eq(b.losses_mwh * 3600, in * (1 - leg) + out * (1 / leg - 1), tol, "case %d: losses", c);
        cr_assert_float_eq(b.energy_mwh * 3600, load, 1e-9 * load, "case %d: the cluster's energy", c);
        cr_assert_float_eq(b.losses_pct, 100 * b.losses_mwh / b.energy_mwh, 1e-9, "case %d", c);
        cr_assert(b.soc_min >= -1e-12 && b.soc_max <= 1 + 1e-12 && b.soc_min <= 0.5 && b.soc_max >= 0.5,
                  "case %d: charge %.4f to %.4f of capacity, from half", c, b.soc_min, b.soc_max);
    }
    /* a step, with a battery that never binds: the grid starts at the first window's mean, then follows the average */
    for (int c = 0; c < 6; c++) {
        double dt = c % 2 ? 1e-3 : 0.01, w = 0.5 + 0.5 * c, step_at = 2 * w;
        size_t n = (size_t)(5 * w / dt), k = (size_t)llround(w / dt), at = (size_t)llround(step_at / dt);
        for (size_t i = 0; i < n; i++)
            p[i] = (i < at ? 40 : 100) + (i % 2 ? 5 : -5);   /* a ripple of +-5 MW around each level */
        struct an_bess b = { .capacity_mwh = 1e6, .power_mw = 1e6, .efficiency = 0.9, .window_s = w };
        cr_assert_eq(analysis_bess(p, n, dt, &b, g), 0);
        cr_assert_float_eq(g[0], 40, 0.5, "window %.1f s, dt %g: the grid starts at %.3f MW, the first window's "
                           "mean is 40", w, dt, g[0]);
        double moved = (g[at - 1 + k] - 40) / 60;
        cr_assert_float_eq(moved, 1 - exp(-1), 0.01, "window %.1f s, dt %g: %.4f of the step through after one window "
                           "(1 - 1/e: %.4f)", w, dt, moved, 1 - exp(-1));
    }
    free(p);
    free(g);
}

/* The projection scatters its groups by shifts drawn from a normal law of the jitter's standard deviation: summed
 * over many groups a sine of frequency f keeps exp(-2 pi^2 f^2 sigma^2) of its amplitude (the normal law's
 * characteristic function), so its swing shrinks by that factor while its mean stays N times one GPU's. Over 20,000
 * groups the draw's own scatter is under 1 %. A jitter read as its square, its double or half (the spread's root
 * forgotten, a variance over n) moves the factor by far more than that: at sigma 0.2 s, 0.45 against 0.04 or 0.82. */
Test(analysis_math, the_groups_jitter_keeps_its_characteristic_share_of_a_sine)
{
    size_t n = 10000;
    double dt = 1e-3, f = 1.0, *x = xmalloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = 400 + 200 * sin(2 * M_PI * f * (double)i * dt);
    struct an_series s = { x, n, dt, AN_NOT_HELD, 1 / f };
    struct an_projection aligned;
    long gpus = 20000;
    cr_assert_eq(analysis_project(&s, gpus, 1, 0, 1, an_default_bands, 4, &aligned), 0);
    cr_assert_float_eq(aligned.swing_mw, gpus * 1e-6 * (2 * 200 * sin(M_PI / 2 * 0.98)), 1e-3, "%f MW", aligned.swing_mw);
    static const double sigmas[] = { 0.03, 0.1, 0.15, 0.2, 0.3 };
    for (size_t c = 0; c < sizeof sigmas / sizeof *sigmas; c++) {
        struct an_projection p;
        cr_assert_eq(analysis_project(&s, gpus, gpus, sigmas[c], 3 + c, an_default_bands, 4, &p), 0, "%s",
                     p.why ? p.why : "");
        double kept = p.swing_mw / aligned.swing_mw, want = exp(-2 * M_PI * M_PI * f * f * sigmas[c] * sigmas[c]);
        cr_log_info("jitter %.0f ms: %.4f of the swing kept, the normal law's %.4f", sigmas[c] * 1e3, kept, want);
        cr_assert_float_eq(kept, want, 0.015, "jitter %.0f ms: %.4f of the aligned swing kept, the normal law's %.4f",
                           sigmas[c] * 1e3, kept, want);
        cr_assert_float_eq(p.mean_mw, aligned.mean_mw, 1e-3 * aligned.mean_mw, "jitter %.0f ms: mean %f MW",
                           sigmas[c] * 1e3, p.mean_mw);
    }
    free(x);
}

/* The update interval as its definition gives it (analysis.h: the most intervals within +-20 % + half a sample of
 * one, then the mean of those from 0.4 to 1.6 times it), computed here by a comparison sort over the intervals. */
static double update_by_definition(const double *x, size_t n, double dt)
{
    double *iv = xmalloc(n * sizeof *iv);
    size_t k = 0, last = SIZE_MAX;
    for (size_t i = 1; i < n; i++) {
        if (isnan(x[i]) || isnan(x[i - 1])) {
            last = SIZE_MAX;
            continue;
        }
        if (x[i] == x[i - 1])
            continue;
        if (last != SIZE_MAX)
            iv[k++] = (double)(i - last);
        last = i;
    }
    double u = NAN;
    if (k >= 2) {
        for (size_t i = 1; i < k; i++)   /* insertion sort: a few hundred intervals */
            for (size_t j = i; j > 0 && iv[j - 1] > iv[j]; j--) {
                double t = iv[j];
                iv[j] = iv[j - 1];
                iv[j - 1] = t;
            }
        size_t best = 0, at = 0;
        for (size_t a = 0, b = 0; a < k; a++) {
            if (b < a)
                b = a;
            while (b < k && iv[b] <= 1.2 * iv[a] + 0.5)
                b++;
            if (b - a > best)
                best = b - a, at = a + (b - a) / 2;
        }
        double mode = iv[at], sum = 0;
        size_t m = 0;
        for (size_t i = 0; i < k; i++)
            if (iv[i] > 0.4 * mode && iv[i] <= 1.6 * mode + 0.5)
                sum += iv[i], m++;
        if (best >= 2 && m)
            u = sum / (double)m * dt;
    }
    free(iv);
    return u;
}

/* The measured update interval is the definition's over held series of every scale: intervals of a few samples to
 * far past the 65,536 below which they are counted rather than compared (a sensor read at 1 kHz holding for minutes),
 * mixed with gaps, repeats and jitter; 300 series. */
Test(analysis_math, the_update_interval_is_its_definitions_at_every_scale)
{
    struct rng r;
    rng_seed(&r, 20261130, 7);
    for (int c = 0; c < 300; c++) {
        double base = pow(10, 0.3 + 5.2 * rng_uniform(&r));   /* 2 to 300,000 samples */
        size_t steps = 3 + (size_t)(60 * rng_uniform(&r)), n = 0, cap = 1 << 20;
        double *x = xmalloc(cap * sizeof *x), v = 100;
        for (size_t s = 0; s < steps; s++) {
            double u = rng_uniform(&r);
            size_t len = (size_t)fmax(1, base * (u < 0.1 ? 2 + u * 10 : 0.8 + 0.4 * rng_uniform(&r)));
            if (n + len > cap)
                x = xrealloc(x, (cap = 2 * (n + len)) * sizeof *x);
            int gap = rng_uniform(&r) < 0.05, same = rng_uniform(&r) < 0.1;
            v = same ? v : 100 + 600 * rng_uniform(&r);
            for (size_t i = 0; i < len; i++)
                x[n++] = gap ? NAN : v;
        }
        double u, want = update_by_definition(x, n, 1e-3);
        size_t distinct;
        an_sensor_measure(x, n, 1e-3, &u, &distinct);
        cr_assert((isnan(u) && isnan(want)) || fabs(u - want) <= 1e-12 * want,
                  "case %d (about %.0f samples an update, %zu samples): %.9g s measured, %.9g s by the definition", c,
                  base, n, u, want);
        free(x);
    }
}

/* A band's share is its part of the fluctuation's variance (Parseval), the Nyquist bin's too: of an even trace it
 * stands once in the two-sided spectrum where every other bin stands twice, and counted at their weight it read a
 * 50/50 mix of a sine and the alternation at half the rate as 2/3 alternation (until 2026-12-02). Random lengths,
 * bins and amplitudes. */
Test(analysis_math, a_bands_share_is_its_share_of_the_variance_at_nyquist_too)
{
    struct rng r;
    rng_seed(&r, 23, 1);
    double dt = 1e-3, *x = xmalloc(6000 * sizeof *x);
    for (int c = 0; c < 200; c++) {
        size_t n = 2 * (50 + (size_t)(2900 * rng_uniform(&r))), m = n / 2;
        size_t j0 = 1 + (size_t)((double)(m - 2) * rng_uniform(&r));   /* a bin below Nyquist's */
        double a = 1 + 300 * rng_uniform(&r), b = 1 + 300 * rng_uniform(&r), df = 1 / ((double)n * dt);
        for (size_t i = 0; i < n; i++)
            x[i] = 500 + (i % 2 ? -a : a) + b * cos(2 * M_PI * (double)(j0 * i) / (double)n);
        struct an_band bands[2] = { { 0.5 * df, ((double)m - 0.5) * df, 0 }, { ((double)m - 0.5) * df, 0.5 / dt * (1 + 5e-10), 0 } };   /* to the last bin */
        struct an_series s = { x, n, dt, AN_NOT_HELD, 0 };
        struct an_result res;
        cr_assert_eq(analysis_run(&s, bands, 2, &res), 0);
        double want = a * a / (a * a + b * b / 2);   /* the alternation's variance a^2, the cosine's b^2 / 2 */
        cr_assert(fabs(res.bands[1].share - want) <= 1e-9, "%zu samples, bin %zu, a %g, b %g: Nyquist's share %.12g, "
                  "its variance's %.12g", n, j0, a, b, res.bands[1].share, want);
        cr_assert(fabs(res.bands[0].share - (1 - want)) <= 1e-9, "%zu samples: the rest's share %.12g, not %.12g", n,
                  res.bands[0].share, 1 - want);
    }
    free(x);
}

/* The fold takes the iterations of the median length: a recovery's long gap (10 s among 1 s iterations) is left out,
 * never the iterations themselves (against the mean length, 2.8 s here, every 1 s iteration was under half of it:
 * nothing folded, until 2026-12-02). A triangle wave of 1 s, sampled every 10 ms, folds back into its own shape. */
Test(analysis_math, a_long_recovery_leaves_the_iterations_in_the_fold)
{
    static const double starts[] = { 0, 1, 2, 3, 13, 14, 15 };
    enum { N = 1500, BINS = 10 };
    static double x[N];
    for (int i = 0; i < N; i++) {
        double ph = fmod(i * 0.01, 1.0);
        x[i] = 100 + 100 * ph;   /* a ramp within each iteration */
    }
    double sum[BINS] = { 0 }, cnt[BINS] = { 0 };
    size_t used = analysis_fold(x, N, 0.01, 0, 0, 0, starts, sizeof starts / sizeof *starts, sum, cnt, BINS);
    /* the iterations 0-1, 1-2, 2-3, 13-14 and 14-15 (the last one's end is not known; 3-13 is the gap): 500 samples */
    cr_assert_eq(used, 500, "%zu samples folded", used);
    for (int b = 0; b < BINS; b++) {
        /* 50 a bin, give or take a sample on a bin's edge (the grid's times in binary) */
        cr_assert(cnt[b] >= 48 && cnt[b] <= 52, "bin %d: %g", b, cnt[b]);
        cr_assert_float_eq(sum[b] / cnt[b], 100 + 100 * (b + 0.45) / BINS, 2, "bin %d: %g W", b, sum[b] / cnt[b]);
    }
}
