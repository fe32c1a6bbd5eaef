/* tests/test_abft.c: the GEMM checksum's algebra (harness/core/abft.h), the one the GPU's kernels and the sim both
 * run, against GEMMs emulated in every dtype: the inputs rounded as stored, the products exact, the sum in the
 * accumulator's precision, the output rounded to its type. Over 10,000 random matrices: no clean column is ever
 * flagged, and every single-element corruption of D above the stated bound is caught. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abft.h"
#include "util.h"

/* A dtype of the GPU's, or the sim's fp32 product (DT_COUNT). */
#define SIM_FP32 DT_COUNT

static struct abft_model model_of(int t) { return t == SIM_FP32 ? abft_model_fp32 : abft_model_of((enum dtype)t); }
static enum abft_fmt in_fmt(int t) { return t == SIM_FP32 ? ABFT_FMT_FP32 : abft_input_fmt((enum dtype)t); }
static enum abft_fmt out_fmt(int t) { return t == SIM_FP32 ? ABFT_FMT_FP32 : abft_output_fmt((enum dtype)t); }
static const char *name_of(int t) { return t == SIM_FP32 ? "sim fp32" : dtype_name((enum dtype)t); }

/* Rounds x to p significant bits (an accumulator narrower than fp32: fp8's 2^-14). */
static double round_bits(double x, int p)
{
    if (x == 0 || !isfinite(x))
        return x;
    int e;
    frexp(x, &e);
    double q = ldexp(1.0, e - p);
    return nearbyint(x / q) * q;
}

/* Fills n values of N(0, scale^2) as kernels/fill.cu does: lifted to at least the format's least normal (and scale
 * 2^-12), rounded to the stored format (tf32 is stored as fp32). */
static void fill(float *x, long n, int t, double scale, struct rng *r)
{
    static const double least[] = { 0x1p-126, 0x1p-14, 0x1p-126, 0x1p-6, 0x1p-126 };
    enum abft_fmt f = in_fmt(t) == ABFT_FMT_TF32 ? ABFT_FMT_FP32 : in_fmt(t);
    double floor_mag = fmax(least[t], scale * 0x1p-12);
    for (long i = 0; i < n; i++) {
        double v = scale * rng_normal(r);
        if (fabs(v) < floor_mag)
            v = copysign(floor_mag, v);
        x[i] = (float)abft_round(f, v);
    }
}

/* D = A B as the dtype's GEMM makes it: a (m x k) row-major, b (k x n) row-major, d (m x n) row-major. */
static void gemm(int t, const float *a, const float *b, float *d, long m, long n, long k)
{
    for (long i = 0; i < m; i++)
        for (long j = 0; j < n; j++) {
            double acc = 0;
            for (long p = 0; p < k; p++) {
                double x = a[i * k + p], y = b[p * n + j];
                if (t == DT_TF32) {   /* the tensor core's tf32 inputs */
                    x = abft_round(ABFT_FMT_TF32, x);
                    y = abft_round(ABFT_FMT_TF32, y);
                }
                acc = t == DT_FP8 ? round_bits(acc + x * y, 15) : (double)(float)(acc + x * y);   /* x y: exact */
            }
            d[i * n + j] = (float)abft_round(out_fmt(t), acc);
        }
}

/* The stored bits of a value of format f (bf16, fp16, fp32), and back. */
static uint32_t to_bits(enum abft_fmt f, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    if (f == ABFT_FMT_BF16)
        return u >> 16;
    if (f == ABFT_FMT_FP32)
        return u;
    uint32_t sign = (u >> 31) << 15;   /* fp16, from a value it holds exactly */
    double x = fabs((double)v);
    if (x == 0)
        return sign;
    if (isinf(x))
        return sign | 0x7c00u;
    int e;
    frexp(x, &e);
    if (e - 1 < -14)
        return sign | (uint32_t)(x / 0x1p-24);
    return sign | (uint32_t)(e - 1 + 15) << 10 | (uint32_t)((ldexp(x, -(e - 1)) - 1) * 1024);
}

static float from_bits(enum abft_fmt f, uint32_t u)
{
    float v;
    if (f == ABFT_FMT_BF16 || f == ABFT_FMT_FP32) {
        u = f == ABFT_FMT_BF16 ? u << 16 : u;
        memcpy(&v, &u, 4);
        return v;
    }
    double s = u >> 15 ? -1 : 1;
    uint32_t ex = (u >> 10) & 31, man = u & 1023;
    if (ex == 31)
        return (float)(man ? NAN : s * INFINITY);
    return (float)(ex ? s * ldexp(1 + man / 1024.0, (int)ex - 15) : s * man * 0x1p-24);
}

enum { CLS_SIGN, CLS_EXP, CLS_MANT, CLS_COUNT };

/* A random bit of class cls in format f. */
static int pick_bit(enum abft_fmt f, int cls, struct rng *r)
{
    int width = f == ABFT_FMT_FP32 ? 32 : 16, mant = f == ABFT_FMT_BF16 ? 7 : f == ABFT_FMT_FP16 ? 10 : 23;
    if (cls == CLS_SIGN)
        return width - 1;
    if (cls == CLS_EXP)
        return mant + (int)(rng_next(r) % (uint64_t)(width - 1 - mant));
    return (int)(rng_next(r) % (uint64_t)mant);
}

struct tally {
    long flips[CLS_COUNT], caught[CLS_COUNT];
    long must, must_caught;   /* corruptions above the stated bound, and those caught */
    long clean, false_pos;
    double worst_ratio;       /* the largest clean err / tol */
};

/* One random GEMM of dtype t: checked clean, then with one element of D flipped per class. */
static void one_case(int t, long m, long n, long k, struct rng *r, struct tally *ty)
{
    double sa = ldexp(1.0, (int)(rng_next(r) % 5) - 2), sb = ldexp(1.0, (int)(rng_next(r) % 5) - 2);
    if (t == DT_FP8)
        sa = sb = 1;   /* fp8 data stays near 1, as the GPU's fill keeps it, well inside +-448 */
    float *a = malloc((size_t)(m * k) * sizeof *a), *b = malloc((size_t)(k * n) * sizeof *b);
    float *d = malloc((size_t)(m * n) * sizeof *d);
    fill(a, m * k, t, sa, r);
    fill(b, k * n, t, sb, r);
    cr_assert_eq(abft_embed(a, m, k, in_fmt(t)), 0);
    gemm(t, a, b, d, m, n, k);
    struct abft_model md = model_of(t);
    double tol = abft_tol(&md, m, k), worst;
    long col;
    ty->clean++;
    if (abft_check(d, m, n, n, 1, &md, k, &worst, &col)) {
        ty->false_pos++;
        cr_log_error("%s %ldx%ldx%ld: clean column %ld has err %.3g > tol %.3g", name_of(t), m, n, k, col, worst, tol);
    }
    if (worst / tol > ty->worst_ratio)
        ty->worst_ratio = worst / tol;
    enum abft_fmt fo = out_fmt(t);
    double S = abft_scale(m);
    for (int cls = 0; cls < CLS_COUNT; cls++) {
        long i = (long)(rng_next(r) % (uint64_t)m), j = (long)(rng_next(r) % (uint64_t)n);
        float old = d[i * n + j];
        float neu = from_bits(fo, to_bits(fo, old) ^ (1u << pick_bit(fo, cls, r)));
        /* the column's clean sums: the bound a corruption must pass to be caught for certain */
        double q = 0, hi = d[(m - 2) * n + j], lo = d[(m - 1) * n + j];
        for (long x = 0; x < m - 2; x++)
            q += (double)d[x * n + j] * d[x * n + j];
        double bnd = md.u_out * S * (fabs(hi) + fabs(lo));
        /* a data row's change delta moves s by delta (a checksum row's moves r by S delta); with the clean column
         * within tol, err > tol for certain once |delta| > 2 (tol sqrt(q) + b) / (1 - tol) */
        double delta = ((double)neu - old) * (i >= m - 2 ? S : 1);
        double must = 2 * (tol * sqrt(q) + bnd) / (1 - tol) + (i >= m - 2 ? 2 * md.u_out * S * fabs((double)neu) : 0);
        int certain = !isfinite(neu) || fabs(delta) > must;
        d[i * n + j] = neu;
        int caught = abft_check(d, m, n, n, 1, &md, k, &worst, &col);
        d[i * n + j] = old;
        ty->flips[cls]++;
        ty->caught[cls] += caught;
        if (certain) {
            ty->must++;
            ty->must_caught += caught;
            if (!caught)
                cr_log_error("%s %ldx%ldx%ld: D(%ld,%ld) %.9g -> %.9g (|delta| %.3g > bound %.3g) not caught (err %.3g, "
                             "tol %.3g)", name_of(t), m, n, k, i, j, old, neu, fabs(delta), must, worst, tol);
        }
    }
    free(a);
    free(b);
    free(d);
}

/* 10,000 random GEMMs over the five models (2,000 each), m 3..48, n 1..16, k 1..48, operands scaled by 2^-2..2^2. */
Test(abft, no_false_positive_and_every_corruption_above_the_bound_caught, .timeout = 300)
{
    struct rng r;
    rng_seed(&r, 20261127, 1);
    for (int t = 0; t <= SIM_FP32; t++) {
        struct tally ty = { 0 };
        for (int c = 0; c < 2000; c++) {
            long m = 3 + (long)(rng_next(&r) % 46), n = 1 + (long)(rng_next(&r) % 16), k = 1 + (long)(rng_next(&r) % 48);
            one_case(t, m, n, k, &r, &ty);
        }
        cr_log_info("%-8s clean %ld, false positives %ld, worst clean err/tol %.3f; above the bound %ld, caught %ld; "
                    "caught by class: sign %ld/%ld, exponent %ld/%ld, mantissa %ld/%ld",
                    name_of(t), ty.clean, ty.false_pos, ty.worst_ratio, ty.must, ty.must_caught, ty.caught[0], ty.flips[0],
                    ty.caught[1], ty.flips[1], ty.caught[2], ty.flips[2]);
        cr_expect_eq(ty.false_pos, 0, "%s: %ld of %ld clean GEMMs flagged", name_of(t), ty.false_pos, ty.clean);
        cr_expect_eq(ty.must_caught, ty.must, "%s: %ld of %ld corruptions above the bound missed", name_of(t),
                     ty.must - ty.must_caught, ty.must);
        cr_expect_gt(ty.must, 1000, "%s: too few corruptions above the bound to say anything", name_of(t));
        /* a tolerance far above what rounding does would catch little: clean errors reach a fair share of it. Not
         * tf32's: its model keeps A's rounding inside the product (2^-11) as a margin until a GPU has measured the
         * check, while abft_embed makes A exact in tf32 (clean errors are ~0.001 of it here) */
        if (t != DT_TF32)
            cr_expect_gt(ty.worst_ratio, 0.05, "%s: the worst clean err is %.3f of the tolerance", name_of(t),
                         ty.worst_ratio);
    }
}

/* The tolerance grows with k, stays useful at 8192^3, and orders the dtypes as their precisions do. */
Test(abft, tolerance_shape)
{
    for (int t = 0; t < DT_COUNT; t++) {
        struct abft_model md = abft_model_of((enum dtype)t);
        double prev = 0;
        for (long k = 16; k <= (1L << 24); k *= 2) {
            double tol = abft_tol(&md, 512, k);
            cr_assert(isfinite(tol) && tol > prev, "%s: tolerance %g at k %ld after %g", name_of(t), tol, k, prev);
            prev = tol;
        }
        cr_assert_lt(abft_tol(&md, 8192, 8192), t == DT_FP8 ? 0.06 : 0.05);
        cr_assert(isnan(abft_tol(&md, 2, 512)) && isnan(abft_tol(&md, 512, 0)));
    }
    struct abft_model b = abft_model_of(DT_BF16), h = abft_model_of(DT_FP16), f = abft_model_of(DT_TF32),
                      e = abft_model_of(DT_FP8);
    double bf16 = abft_tol(&b, 512, 512), fp16 = abft_tol(&h, 512, 512), tf32 = abft_tol(&f, 512, 512),
           fp8 = abft_tol(&e, 512, 512);
    cr_assert(bf16 > 0.01 && bf16 < 0.03, "bf16 %g", bf16);   /* about 8 * 2^-8 / sqrt(3) */
    cr_assert(fp16 > 1e-3 && fp16 < 4e-3, "fp16 %g", fp16);
    cr_assert(tf32 > fp16 && tf32 < bf16, "tf32 %g", tf32);
    cr_assert(fp8 >= bf16, "fp8 %g", fp8);
    cr_assert_gt(abft_tol(&e, 8192, 8192), fp8);
    cr_assert_lt(abft_tol(&abft_model_fp32, 64, 64), 1e-5);
}

/* The rounding the emulation rests on: nearest-even, each format's range. */
Test(abft, rounding_of_each_format)
{
    cr_assert_eq(abft_round(ABFT_FMT_BF16, 1.0 + 0x1p-8), 1.0);             /* a tie: to even */
    cr_assert_eq(abft_round(ABFT_FMT_BF16, 1.0 + 0x1p-8 + 0x1p-20), 1.0 + 0x1p-7);
    cr_assert_eq(abft_round(ABFT_FMT_FP16, 65520.0), INFINITY);             /* past the largest, by half an ulp */
    cr_assert_eq(abft_round(ABFT_FMT_FP16, 65519.0), 65504.0);
    cr_assert_eq(abft_round(ABFT_FMT_FP16, 0x1p-25 * 3), 0x1p-24 * 2);      /* subnormal: 1.5 quanta to 2 */
    cr_assert_eq(abft_round(ABFT_FMT_E4M3, 1000.0), 448.0);                 /* saturates */
    cr_assert_eq(abft_round(ABFT_FMT_E4M3, 1.0625), 1.0);                   /* 3 explicit bits: a tie to even */
    cr_assert_eq(abft_round(ABFT_FMT_E4M3, 0x1p-9 * 1.4), 0x1p-9);          /* the least subnormal */
    cr_assert_eq(abft_round(ABFT_FMT_TF32, 1.0 + 0x1p-11), 1.0);
    cr_assert_eq(abft_round(ABFT_FMT_TF32, 1.0 + 0x1p-10), 1.0 + 0x1p-10);
    cr_assert_eq(abft_round(ABFT_FMT_FP32, 1.0 + 0x1p-30), 1.0);
    cr_assert_eq(abft_scale(3), 1);   /* the scale keeps the checksum rows of the data's size */
    cr_assert_eq(abft_scale(16386), 128);
    cr_assert_eq(abft_scale(16387), 256);
    float a[6] = { 1, 2, 3, 4, 5, 6 };   /* m 3 x k 2: one data row, the checksum rows after it */
    cr_assert_eq(abft_embed(a, 2, 3, ABFT_FMT_FP32), -1);
    cr_assert_eq(abft_embed(a, 3, 2, ABFT_FMT_FP32), 0);
    cr_assert_eq(a[2] + a[4], 1);
    cr_assert_eq(a[3] + a[5], 2);
}

/* What share of the flips of each bit class is caught, at the size of the sim's GEMM and a larger one: 40 GEMMs each
 * here, GAUNTLET_ABFT_CASES of them for docs/faults.md's table (200 there). */
Test(abft, detection_by_bit_class, .timeout = 300)
{
    static const long shapes[][3] = { { 64, 64, 64 }, { 256, 32, 256 } };
    struct rng r;
    rng_seed(&r, 7, 2);
    const char *env = getenv("GAUNTLET_ABFT_CASES");
    int cases = env && atoi(env) > 0 ? atoi(env) : 40;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t <= SIM_FP32; t++) {
            struct tally ty = { 0 };
            for (int c = 0; c < cases; c++)
                one_case(t, shapes[s][0], shapes[s][1], shapes[s][2], &r, &ty);
            cr_expect_eq(ty.false_pos, 0);
            cr_expect_eq(ty.must_caught, ty.must);
            cr_log_info("%ldx%ldx%ld %-8s tol %.3g: caught sign %.0f%%, exponent %.0f%%, mantissa %.0f%%", shapes[s][0],
                        shapes[s][1], shapes[s][2], name_of(t), abft_tol((struct abft_model[]){ model_of(t) }, shapes[s][0],
                                                                           shapes[s][2]),
                        100.0 * ty.caught[0] / ty.flips[0], 100.0 * ty.caught[1] / ty.flips[1],
                        100.0 * ty.caught[2] / ty.flips[2]);
        }
}
