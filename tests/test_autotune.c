/* tests/test_autotune.c: picking the fastest candidate algorithm (harness/core/autotune.h) against a stand-in timer
 * with the troubles a real device has: noise, a slow drift of its clocks, a one-off spike, candidates that fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "autotune.h"
#include "stats.h"
#include "util.h"

struct standin {
    const double *cost;    /* true seconds per call; negative: the candidate cannot run */
    double noise;          /* relative, uniform +-noise per measurement */
    double drift;          /* relative slow-down per measurement taken (a device warming up) */
    int spike_at;          /* the measurement that takes 10 times as long (-1: none) */
    int taken;
    struct rng r;
};

static double standin_time(void *ctx, int i, int calls)
{
    struct standin *s = ctx;
    if (s->cost[i] < 0)
        return NAN;
    double f = (1 + s->drift * s->taken) * (1 + s->noise * (2 * rng_uniform(&s->r) - 1));
    if (s->taken++ == s->spike_at)
        f *= 10;
    return s->cost[i] * calls * f;
}

/* 1,000 random candidate lists: 2-16 candidates, the fastest 3 % or more ahead of the next, 1 % noise, a drift of
 * 0.2 % per measurement (over 6 rounds of 16: +19 %) and a spike in one measurement: the fastest is always picked. */
Test(autotune, the_fastest_wins_through_noise_drift_and_a_spike)
{
    struct rng r;
    rng_seed(&r, 11, 3);
    for (int trial = 0; trial < 1000; trial++) {
        int n = 2 + (int)(rng_next(&r) % 15), fastest = (int)(rng_next(&r) % (uint64_t)n);
        double cost[16];
        for (int i = 0; i < n; i++)
            cost[i] = 1e-3 * (1.03 + rng_uniform(&r));   /* 1.03-2.03 ms */
        cost[fastest] = 1e-3;
        if (n > 2) {   /* one that cannot run, never the fastest */
            int bad = (fastest + 1) % n;
            cost[bad] = -1;
        }
        struct standin s = { cost, 0.01, 0.002, (int)(rng_next(&r) % (uint64_t)(6 * n)), 0, { 0 } };
        rng_seed(&s.r, (uint64_t)trial, 4);
        double per[16];
        int pick = autotune_pick(n, standin_time, &s, 4, 6, 0.005, per);
        cr_assert_eq(pick, fastest, "trial %d: picked %d (%.4g ms), the fastest is %d (%.4g ms)", trial, pick,
                     per[pick] * 1e3, fastest, per[fastest] * 1e3);
        if (n > 2)
            cr_assert(isnan(per[(fastest + 1) % n]), "a failed candidate has a time");
    }
}

/* Within the tie margin the list's own order (the library's ranking) decides; outside it the time does. */
Test(autotune, a_tie_goes_to_the_library_s_choice)
{
    const double tie[] = { 1.004e-3, 1.0e-3, 1.2e-3 };
    struct standin s = { tie, 0, 0, -1, 0, { 0 } };
    cr_assert_eq(autotune_pick(3, standin_time, &s, 2, 3, 0.005, NULL), 0);
    const double apart[] = { 1.02e-3, 1.0e-3, 1.2e-3 };
    s = (struct standin){ apart, 0, 0, -1, 0, { 0 } };
    cr_assert_eq(autotune_pick(3, standin_time, &s, 2, 3, 0.005, NULL), 1);
}

Test(autotune, nothing_to_pick)
{
    const double none[] = { -1, -1 };
    struct standin s = { none, 0, 0, -1, 0, { 0 } };
    double per[2];
    cr_assert_eq(autotune_pick(2, standin_time, &s, 1, 3, 0, per), -1);
    cr_assert(isnan(per[0]) && isnan(per[1]));
    cr_assert_eq(autotune_pick(0, standin_time, &s, 1, 3, 0, NULL), -1);
    cr_assert_eq(autotune_pick(2, NULL, &s, 1, 3, 0, NULL), -1);
    /* one candidate that fails only in its second round is out: a candidate that cannot always run is none */
    const double one[] = { 1e-3 };
    s = (struct standin){ one, 0, 0, -1, 0, { 0 } };
    cr_assert_eq(autotune_pick(1, standin_time, &s, 1, 3, 0, per), 0);
    cr_assert_float_eq(per[0], 1e-3, 1e-12);
}

/* A time that reads 0 (a GEMM shorter than the events resolve, ~0.5 us) is a candidate that ran, not one that cannot:
 * the GEMM's tuning counts it so since 2026-11-30 (it took only a time above 0 for ran, and a tiny shape whose every
 * candidate read 0 failed its chain's creation); here it is in the pick, the fastest, with its time kept. */
Test(autotune, a_time_of_zero_ran)
{
    const double zeros[] = { 0, 0 };
    struct standin s = { zeros, 0, 0, -1, 0, { 0 } };
    double per[2];
    cr_assert_eq(autotune_pick(2, standin_time, &s, 1, 3, 0.005, per), 0, "all read 0: the library's first");
    cr_assert(per[0] == 0 && per[1] == 0, "%g %g: a time of 0 is a time", per[0], per[1]);
    const double one_zero[] = { 1e-3, 0, -1 };
    s = (struct standin){ one_zero, 0, 0, -1, 0, { 0 } };
    double p3[3];
    cr_assert_eq(autotune_pick(3, standin_time, &s, 4, 3, 0.005, p3), 1);
    cr_assert(p3[1] == 0 && isnan(p3[2]), "%g %g", p3[1], p3[2]);
}

/* The interval of a median of paired ratios (stats.h, ratio_median_ci), which `bench gemm` judges its ratios by:
 * the order statistics a binomial table gives (20 pairs at 95 %: the 6th and 15th), pairs with a bad member
 * skipped, the whole range for too few pairs; and over 4,000 random experiments of 20 pairs with noise of several
 * shapes (uniform, heavy-tailed, one pair in 10 disturbed one way) and the clocks drifting alike for both sides,
 * around a known median ratio, the interval holds it in at least 94 % of them (95.9 % exact at 20 pairs: the
 * margin is 4,000 draws' own spread). */
Test(autotune, the_median_ratio_interval_holds_the_true_ratio)
{
    double num[20], den[20], med, lo, hi;
    for (int i = 0; i < 20; i++) {
        num[i] = i + 1;   /* ratios 1..20, shuffled by the pairing */
        den[i] = 1;
    }
    cr_assert_eq(ratio_median_ci(num, den, 20, 0.95, &med, &lo, &hi), 20);
    cr_assert(med == 10.5 && lo == 6 && hi == 15, "median %g [%g, %g], want 10.5 [6, 15]", med, lo, hi);
    num[3] = NAN;
    den[7] = 0;
    cr_assert_eq(ratio_median_ci(num, den, 20, 0.95, &med, &lo, &hi), 18, "two pairs skipped");
    cr_assert_eq(ratio_median_ci(num, den, 5, 0.95, &med, &lo, &hi), 4);
    cr_assert(lo == 1 && hi == 5 && med == 2.5, "too few pairs: the whole range (%g [%g, %g])", med, lo, hi);
    cr_assert_eq(ratio_median_ci(num, den, 0, 0.95, &med, &lo, &hi), 0);
    cr_assert(isnan(med) && isnan(lo) && isnan(hi));
    cr_assert_eq(ratio_verdict(0.996, 1.0, 0.995), 1);
    cr_assert_eq(ratio_verdict(0.991, 0.997, 0.995), 0, "under the aim within the interval: not resolved");
    cr_assert_eq(ratio_verdict(0.991, 0.994, 0.995), -1, "the interval's top under the aim: below");

    struct rng g;
    rng_seed(&g, 41, 0);
    for (int shape = 0; shape < 3; shape++) {
        int held = 0, trials = 4000;
        for (int t = 0; t < trials; t++) {
            double truth = 0.98 + 0.04 * rng_uniform(&g);
            for (int i = 0; i < 20; i++) {
                double u = rng_uniform(&g) - 0.5, e;
                if (shape == 0)
                    e = 0.02 * u;                                    /* uniform, +-1 % */
                else if (shape == 1)
                    e = 0.002 * tan(3.1 * u);                        /* heavy tails (Cauchy-like) */
                else
                    e = 0.01 * u + (rng_uniform(&g) < 0.1 ? 0.05 : 0);   /* one pair in 10 disturbed, one way */
                den[i] = 1e-3 * (1 + 0.001 * i);                     /* the clocks drift: both sides alike */
                num[i] = den[i] * truth * exp(e);
            }
            /* the median of e: 0 for the first two; for the third, where 0.9 (100 x + 0.5) = 0.5, x = 1/1800 */
            ratio_median_ci(num, den, 20, 0.95, &med, &lo, &hi);
            cr_assert(lo <= med && med <= hi, "shape %d trial %d: %g outside [%g, %g]", shape, t, med, lo, hi);
            double want = truth * exp(shape == 2 ? 1.0 / 1800 : 0);
            held += lo <= want && want <= hi;
        }
        double cover = (double)held / trials;
        cr_log_info("shape %d: the interval held the true ratio in %.1f %% of %d experiments", shape, 100 * cover, trials);
        cr_assert(cover >= 0.94, "shape %d: coverage %.3f (the level is 0.95, 0.959 exact at 20 pairs)", shape, cover);
    }
}

/* GAUNTLET_GEMM_TUNE's text: a window in ms and an optional warm-up in s, each in its range; anything else is an
 * error that says what was expected (the GEMM then keeps its defaults). */
Test(autotune, the_tuning_timing_parses_or_says_what_was_expected)
{
    double c = -1, w = -1;
    char why[256];
    cr_assert_eq(autotune_timing_parse("30", &c, &w, why, sizeof why), 0);
    cr_assert(fabs(c - 0.030) < 1e-12 && w == 0);
    cr_assert_eq(autotune_timing_parse("2.5,0.25", &c, &w, why, sizeof why), 0);
    cr_assert(fabs(c - 0.0025) < 1e-12 && fabs(w - 0.25) < 1e-12);
    static const char *const bad[] = { "", "x", "30x", "30,", "30,x", "0.05", "201", "30,-1", "30,6", "nan", "30,0.2,1" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        c = w = -1;
        cr_assert_eq(autotune_timing_parse(bad[i], &c, &w, why, sizeof why), -1, "'%s' taken", bad[i]);
        cr_assert(strstr(why, "expected CALL_MS[,WARM_S]"), "%s", why);
        cr_assert(c == -1 && w == -1, "'%s': nothing written on an error", bad[i]);
    }
    cr_assert_eq(autotune_timing_parse(NULL, &c, &w, why, sizeof why), -1);
}
