/* tests/test_fillplan.c: the filler's plan between compute phases (plugins/mitigations/fillplan.h), the schedule both
 * the sim's model and the GPU's shaper run — its invariants over random levels, rates and gaps: the filler only adds
 * power (never below the floor asked where it can reach it, never above what it can draw or the compute level), the
 * fall and the climb never faster than asked, the climb done when the gap ends, the floor raised only where the
 * ramps do not fit and then exactly enough; the measured curve inverted within the part of it that rises (the power limit flattens its top) and refused when
 * nothing rises; the
 * gap's expected length; the slow correction converging on a biased GPU and staying bounded. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "mitigations/fillplan.h"
#include "util.h"

/* A random rising curve between idle and top, and a compute level above idle. */
static struct fill_curve rand_curve(struct rng *r)
{
    struct fill_curve c;
    double idle = 80 + 100 * rng_uniform(r), compute = idle + 200 + 600 * rng_uniform(r);
    double top = idle + (compute - idle) * (0.3 + 0.8 * rng_uniform(r));
    double cut[FILL_DUTIES - 1];
    for (int i = 0; i < FILL_DUTIES - 1; i++)
        cut[i] = rng_uniform(r);
    for (int i = 1; i < FILL_DUTIES - 1; i++)   /* sorted cut points: a rising curve, concave or not */
        for (int j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
            double x = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = x;
        }
    c.w[0] = idle;
    for (int i = 1; i < FILL_DUTIES; i++)
        c.w[i] = idle + (top - idle) * (0.1 * i + 0.6 * cut[i - 1]);
    c.w[FILL_DUTIES] = top;
    c.compute_w = compute;
    return c;
}

Test(fillplan, the_curve_is_inverted_and_monotone)
{
    struct rng r;
    rng_seed(&r, 11, 0);
    for (int k = 0; k < 2000; k++) {
        struct fill_curve c = rand_curve(&r);
        char why[256];
        cr_assert_eq(fill_curve_check(&c, why, sizeof why), 0, "case %d: %s", k, why);
        for (int i = 0; i <= FILL_DUTIES; i++)
            cr_assert_float_eq(fill_curve_duty(&c, c.w[i]), (double)i / FILL_DUTIES, 1e-9, "case %d point %d", k, i);
        double prev = -1;
        for (double w = c.w[0] - 50; w < c.w[FILL_DUTIES] + 50; w += 3) {
            double d = fill_curve_duty(&c, w);
            cr_assert(d >= 0 && d <= 1 && d >= prev, "case %d: duty %.4f at %.0f W after %.4f", k, d, w, prev);
            prev = d;
        }
    }
}

Test(fillplan, a_curve_that_does_not_rise_is_refused_with_its_levels)
{
    /* the H100's WMMA filler: "idle 122 W, compute 759 W, filler 121 W at 100%" */
    struct fill_curve flat = { .w = { 122, 122, 121, 122, 121 }, .compute_w = 759 };
    char why[256] = "";
    cr_assert_eq(fill_curve_check(&flat, why, sizeof why), -1);
    cr_assert(strstr(why, "does not rise") && strstr(why, "100 % 121 W"), "%s", why);
    struct fill_curve unmeasured = { .w = { 122, NAN, 300, 400, 500 }, .compute_w = 759 };
    cr_assert_eq(fill_curve_check(&unmeasured, why, sizeof why), -1);
    cr_assert(strstr(why, "25 %"), "%s", why);
    /* nothing past idle: refused too, whatever the top does */
    struct fill_curve none = { .w = { 122, 123, 500, 600, 700 }, .compute_w = 759 };
    cr_assert_eq(fill_curve_check(&none, why, sizeof why), -1, "25 %% draws what idle draws: no rising part");
}

Test(fillplan, a_top_flattened_by_the_power_limit_is_used_up_to_where_it_rises)
{
    char why[256] = "";
    /* an H200 at its 700 W limit (2026-11-28): 75 % drew 712 W, 100 % 664 W (the limiter pulls the clocks down) */
    struct fill_curve h200 = { .w = { 140, 309, 521, 712, 664 }, .compute_w = 679 };
    cr_assert_eq(fill_curve_check(&h200, why, sizeof why), 0, "%s", why);
    cr_assert_eq(fill_curve_top_index(&h200), 3);
    cr_assert_float_eq(fill_curve_top(&h200), 712, 1e-9);
    cr_assert_float_eq(fill_curve_duty(&h200, 560), (2 + (560 - 521) / (712.0 - 521)) / 4, 1e-12);
    cr_assert_float_eq(fill_curve_duty(&h200, 2000), 0.75, 1e-12, "never past the rising part: 100 %% draws less");
    /* the GEMM filler measured with PyTorch on an H100: 121 / 314 / 499 / 704 / 705 W (the top is flat) */
    struct fill_curve h100 = { .w = { 121, 314, 499, 704, 705 }, .compute_w = 759 };
    cr_assert_eq(fill_curve_check(&h100, why, sizeof why), 0, "%s", why);
    cr_assert_eq(fill_curve_top_index(&h100), 3);
    cr_assert_float_eq(fill_curve_top(&h100), 704, 1e-9);
    struct fill_curve full = { .w = { 121, 314, 499, 650, 705 }, .compute_w = 759 };
    cr_assert_eq(fill_curve_top_index(&full), FILL_DUTIES);
    cr_assert_float_eq(fill_curve_duty(&full, 705), 1, 1e-12);
    /* a dip in the middle ends the rising part there: only what was measured rising is used */
    struct fill_curve dip = { .w = { 121, 314, 300, 650, 705 }, .compute_w = 759 };
    cr_assert_eq(fill_curve_top_index(&dip), 1);
    cr_assert_float_eq(fill_curve_top(&dip), 314, 1e-9);
    cr_assert_float_eq(fill_curve_duty(&dip, 600), 0.25, 1e-12);
}

Test(fillplan, any_curve_is_inverted_monotone_within_its_rising_part)
{
    struct rng r;
    rng_seed(&r, 12, 0);
    for (int k = 0; k < 5000; k++) {
        struct fill_curve c = { .compute_w = 300 + 600 * rng_uniform(&r) };
        for (int i = 0; i <= FILL_DUTIES; i++)
            c.w[i] = 80 + 800 * rng_uniform(&r);
        char why[256];
        int top = fill_curve_top_index(&c);
        cr_assert(top >= 0 && top <= FILL_DUTIES);
        cr_assert_eq(fill_curve_check(&c, why, sizeof why) == 0, c.compute_w > c.w[0] && top >= 1, "case %d", k);
        if (top < 1)
            continue;
        double prev = -1, step = 0.02 * (c.compute_w - c.w[0]);
        for (int i = 1; i <= top; i++)
            cr_assert(c.w[i] >= c.w[i - 1] + step, "case %d: point %d is in the rising part but does not rise", k, i);
        cr_assert(top == FILL_DUTIES || c.w[top + 1] < c.w[top] + step, "case %d: the rising part ends early", k);
        for (double w = c.w[0] - 50; w < 1000; w += 3) {
            double d = fill_curve_duty(&c, w);
            cr_assert(d >= 0 && d <= (double)top / FILL_DUTIES + 1e-12 && d >= prev, "case %d: duty %.4f at %.0f W", k, d, w);
            prev = d;
        }
        for (int i = 0; i <= top; i++)
            cr_assert_float_eq(fill_curve_duty(&c, c.w[i]), (double)i / FILL_DUTIES, 1e-9, "case %d point %d", k, i);
    }
}

/* The plan's invariants for one case, checked on a fine grid over the gap. */
static void check_plan(int k, double asked, double down, double up, double idle, double compute, double top, double gap)
{
    struct fill_plan p;
    fill_plan_make(&p, asked, down, up, idle, compute, top, gap);
    double high = fmin(compute, top), known = isfinite(gap) && gap > 0;
    cr_assert_eq(p.unreachable, asked > top + 0.5, "case %d", k);
    if (asked > 0)
        cr_assert_geq(p.floor_w, fmin(asked, high) - 1e-9, "case %d: the floor held is at least what was asked", k);
    if ((down > 0 || up > 0) && known && p.raised) {
        cr_assert_float_eq(p.down_s + p.up_s, gap, 1e-6 * gap, "case %d: raised exactly enough", k);
        cr_assert_gt(p.floor_w, asked > 0 ? fmin(asked, high) : idle, "case %d", k);
    }
    if ((down > 0 || up > 0) && known)
        cr_assert_leq(p.down_s + p.up_s, gap * (1 + 1e-9), "case %d: the fall and the climb fit the gap", k);
    if (up > 0 && !known)
        cr_assert_float_eq(p.floor_w, high, 1e-9, "case %d: an unknown gap under a rise limit holds the top", k);
    if (!(asked > 0) && !(down > 0) && !(up > 0)) {
        cr_assert_eq(fill_plan_active(&p), 0, "case %d: nothing asked, nothing run", k);
        return;
    }
    double span = known ? gap : 2.0, h = span / 4000, prev = fill_plan_watts(&p, 0);
    for (int i = 1; i <= 4000; i++) {
        double t = i * h, v = fill_plan_watts(&p, t);
        cr_assert_leq(v, high + 1e-9, "case %d: the filler never holds more than it can draw or compute does", k);
        if (p.floor_w > 0)
            cr_assert_geq(v, p.floor_w - 1e-9, "case %d: never below the floor at %.4f s", k, t);
        double slope = (v - prev) / h;
        if (down > 0)
            cr_assert_geq(slope, -down * (1 + 1e-6) - 1e-6, "case %d: a fall of %.0f W/s against %.0f", k, slope, down);
        else if (p.floor_w > 0 && t > h)
            cr_assert_geq(slope, -1e-6, "case %d: without a fall rate the level is the floor", k);
        if (up > 0)
            cr_assert_leq(slope, up * (1 + 1e-6) + 1e-6, "case %d: a climb of %.0f W/s against %.0f", k, slope, up);
        prev = v;
    }
    if (up > 0 && known)
        cr_assert_float_eq(fill_plan_watts(&p, gap), high, 1e-6, "case %d: the climb is done when the gap ends", k);
    if (down > 0)
        cr_assert_float_eq(fill_plan_watts(&p, 0), high, 1e-9, "case %d: the fall starts from the compute level", k);
}

Test(fillplan, the_plan_adds_power_within_its_rates_and_fits_the_gap)
{
    struct rng r;
    rng_seed(&r, 12, 0);
    for (int k = 0; k < 3000; k++) {
        double idle = 60 + 100 * rng_uniform(&r), compute = idle + 100 + 700 * rng_uniform(&r);
        double top = idle + (compute - idle) * (0.2 + 0.9 * rng_uniform(&r));
        double asked = rng_uniform(&r) < 0.3 ? 0 : idle + (compute - idle) * 1.2 * rng_uniform(&r);
        double down = rng_uniform(&r) < 0.4 ? 0 : 200 + 20000 * rng_uniform(&r);
        double up = rng_uniform(&r) < 0.4 ? 0 : 200 + 20000 * rng_uniform(&r);
        double gap = rng_uniform(&r) < 0.15 ? NAN : 0.005 + 2 * rng_uniform(&r);
        check_plan(k, asked, down, up, idle, compute, top, gap);
    }
}

Test(fillplan, a_ramp_that_fits_is_not_raised_and_one_that_does_not_is)
{
    struct fill_plan p;
    /* 2000 W/s each way from 725 W to idle 131 W: 297 ms each; a 1 s gap fits, a 0.5 s gap does not */
    fill_plan_make(&p, 0, 2000, 2000, 131, 780, 725, 1.0);
    cr_assert_eq(p.raised, 0);
    cr_assert_float_eq(p.rise_at_s, 1.0 - 0.297, 1e-9);
    cr_assert_float_eq(fill_plan_watts(&p, 0.5), 131, 1e-9, "between the fall and the climb: nothing held");
    fill_plan_make(&p, 0, 2000, 2000, 131, 780, 725, 0.5);
    cr_assert_eq(p.raised, 1);
    cr_assert_float_eq(p.floor_w, 725 - 500, 1e-9, "the level the ramps turn at: top - gap / (1/down + 1/up)");
    /* the filler alone at 80 % of 700 W: held from the gap's start, no fall, no climb */
    fill_plan_make(&p, 560, 0, 0, 131, 780, 725, 0.5);
    cr_assert_float_eq(fill_plan_watts(&p, 0), 560, 1e-9);
    cr_assert_float_eq(fill_plan_watts(&p, 0.49), 560, 1e-9);
    /* a floor the filler cannot draw */
    fill_plan_make(&p, 760, 0, 0, 131, 780, 725, 0.5);
    cr_assert(p.unreachable);
    cr_assert_float_eq(p.floor_w, 725, 1e-9);
}

Test(fillplan, the_expected_gap_is_the_median_of_the_last_ones)
{
    struct fill_history h = { 0 };
    cr_assert(isnan(fill_history_expect(&h)));
    fill_history_add(&h, 0.5);
    cr_assert_float_eq(fill_history_expect(&h), 0.5, 1e-12);
    fill_history_add(&h, NAN);
    fill_history_add(&h, -1);
    cr_assert_eq(h.n, 1, "a length that is not one is ignored");
    fill_history_add(&h, 9.0);   /* one outlier (a checkpoint) */
    fill_history_add(&h, 0.52);
    cr_assert_float_eq(fill_history_expect(&h), 0.52, 1e-12);
    for (int i = 0; i < 10; i++)
        fill_history_add(&h, 0.3);
    cr_assert_eq(h.n, FILL_HISTORY);
    cr_assert_float_eq(fill_history_expect(&h), 0.3, 1e-12, "only the last FILL_HISTORY count");
}

Test(fillplan, the_correction_converges_on_a_biased_gpu_and_stays_bounded)
{
    struct rng r;
    rng_seed(&r, 13, 0);
    for (int k = 0; k < 200; k++) {
        double bias = -120 + 240 * rng_uniform(&r), target = 300 + 300 * rng_uniform(&r);
        struct fill_corr c = { .span_w = 600 };
        /* the GPU draws what the curve predicts for the level asked plus the correction, plus a bias; stretches of
         * 0.1-0.6 s at a time, the energy counter's read as it is */
        for (int i = 0; i < 400; i++) {
            double dt = 0.1 + 0.5 * rng_uniform(&r), drawn = target + c.offset_w + bias + 2 * rng_normal(&r);
            fill_corr_add(&c, drawn * dt, dt, target);
        }
        cr_assert_float_eq(c.offset_w, -bias, 3, "case %d: offset %.1f W against a bias of %.1f W", k, c.offset_w, bias);
        cr_assert_gt(c.moves, 50);
    }
    struct fill_corr c = { .span_w = 50 };
    for (int i = 0; i < 100; i++)
        fill_corr_add(&c, 100 * 1.0, 1.0, 500);   /* a level it never reaches */
    cr_assert_float_eq(c.offset_w, 50, 1e-9, "bounded by the span: a level out of reach cannot wind it up");
    struct fill_corr d = { .span_w = 50 };
    cr_assert_eq(fill_corr_add(&d, NAN, 1, 500), 0);
    cr_assert_eq(fill_corr_add(&d, 10, 0, 500), 0);
    cr_assert_eq(fill_corr_add(&d, 400, 0.9, 500), 0, "under FILL_CORR_S gathered: no move yet");
    cr_assert_eq(d.offset_w, 0);
}
