/* tests/test_autotune.c: picking the fastest candidate algorithm (harness/core/autotune.h) against a stand-in timer
 * with the troubles a real device has: noise, a slow drift of its clocks, a one-off spike, candidates that fail. */
#include <criterion/criterion.h>
#include <math.h>

#include "autotune.h"
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
