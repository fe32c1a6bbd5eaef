/* harness/core/abft.c: the host side of the GEMM checksum (abft.h): the error model and its tolerance, the rounding
 * of each storage format, and the checksum rows and the check on float matrices (the sim's GEMM and the tests). */
#include "abft.h"

#include <math.h>

/* Per dtype (enum dtype order: bf16, fp16, tf32, fp8):
 *   u_out: the output's rounding — bf16 2^-8 (fp8's output is bf16 too), fp16 2^-11, fp32 2^-24 (tf32);
 *   u_in: tf32 only — A and B rounded to 10 explicit mantissa bits inside the product. abft_embed stores A's data
 *     rows already rounded to tf32, and B's rounding is the same for the data rows and the checksum rows, so the
 *     check should not see it (tests/test_abft.c: clean errors ~0.001 of the tolerance): kept in the model, as a
 *     margin, until a GPU has measured the tf32 check;
 *   u_acc: the accumulator per term — fp32 (2^-24); for fp8 2^-14, the precision Hopper's fp8 tensor cores are
 *     reported to keep between promotions to fp32 (deliberately pessimistic);
 *   u_split: what hi + lo leaves of c: lo is rounded to A's type, so u_in(A)^2 of c — bf16 2^-16, fp16 and tf32
 *     2^-22; e4m3 (3 explicit bits) 2^-8, taken as 2^-7 for lo's subnormals (below 2^-6 its quantum is 2^-9). */
static const struct abft_model abft_models[DT_COUNT] = {
    { 0x1p-8, 0, 0x1p-24, 0x1p-16 },
    { 0x1p-11, 0, 0x1p-24, 0x1p-22 },
    { 0x1p-24, 0x1p-11, 0x1p-24, 0x1p-22 },
    { 0x1p-8, 0, 0x1p-14, 0x1p-7 },
};

const struct abft_model abft_model_fp32 = { 0x1p-24, 0, 0x1p-24, 0x1p-48 };

struct abft_model abft_model_of(enum dtype t)
{
    return (unsigned)t < DT_COUNT ? abft_models[t] : abft_models[DT_BF16];
}

enum abft_fmt abft_input_fmt(enum dtype t)
{
    return t == DT_FP16 ? ABFT_FMT_FP16 : t == DT_TF32 ? ABFT_FMT_TF32 : t == DT_FP8 ? ABFT_FMT_E4M3 : ABFT_FMT_BF16;
}

enum abft_fmt abft_output_fmt(enum dtype t)
{
    return t == DT_FP16 ? ABFT_FMT_FP16 : t == DT_TF32 ? ABFT_FMT_FP32 : ABFT_FMT_BF16;
}

/* The model: every element's rounding errors are independent and zero-mean, each a fraction u of the element (or
 * of the partial sum), of variance <= u^2 x^2 / 3. Over a column's data rows they add: s_j - r_j - (the checksum
 * outputs' rounding, b_j) has a standard deviation of at most sigma sqrt(q_j), with
 *   sigma^2 = (u_out^2 [the data rows' outputs] + 2 u_in^2 + 2 k u_acc^2 [the data rows' sums and the checksum
 *              rows'] + u_split^2 [c's split, carried through B]) / 3,
 * so err_j is (central limit) normal with deviation <= sigma, free of scale and of m. The bound sits about 1.4 times
 * above the rounding error measured on an H100 for the column-sum form of this check (bf16 1.6e-3 vs 2.3e-3, fp16
 * 2.1e-4 vs 2.8e-4); tol = 8 sigma: a clean column exceeds it with probability below 1e-15, never in practice. The
 * double sums over m rows add at most m sqrt(m) 2^-53 of err. Tolerances: bf16 0.018, fp16 0.0023, tf32 0.0032,
 * fp8 0.041 (k 512) to 0.054 (k 8192); the sim's fp32 3.1e-6 (k 64). */
double abft_tol(const struct abft_model *md, long m, long k)
{
    if (!md || k < 1 || m < 3)
        return NAN;
    double var = (md->u_out * md->u_out + 2 * md->u_in * md->u_in + 2.0 * (double)k * md->u_acc * md->u_acc +
                  md->u_split * md->u_split) / 3.0;
    return 8.0 * sqrt(var) + (double)m * sqrt((double)m) * 0x1p-53;
}

double abft_round(enum abft_fmt f, double x)
{
    /* significant bits (the implicit one included), the least normal exponent, the largest finite value */
    static const struct { int p, emin; double max; } fm[] = {
        [ABFT_FMT_BF16] = { 8, -126, 0x1.fep127 },  [ABFT_FMT_FP16] = { 11, -14, 65504.0 },
        [ABFT_FMT_TF32] = { 11, -126, 0x1.ffcp127 }, [ABFT_FMT_E4M3] = { 4, -6, 448.0 },
    };
    if (f == ABFT_FMT_FP32)
        return (double)(float)x;
    if ((unsigned)f > ABFT_FMT_E4M3 || x == 0 || !isfinite(x))
        return f == ABFT_FMT_E4M3 && isinf(x) ? copysign(fm[f].max, x) : x;
    int e;
    frexp(x, &e);   /* |x| in [2^(e-1), 2^e) */
    int lead = e - 1 < fm[f].emin ? fm[f].emin : e - 1;
    double q = ldexp(1.0, lead - (fm[f].p - 1));   /* the quantum at x */
    double y = nearbyint(x / q) * q;               /* ties to even (the default rounding mode) */
    if (fabs(y) > fm[f].max)
        return f == ABFT_FMT_E4M3 ? copysign(fm[f].max, x) : copysign(INFINITY, x);
    return y;
}

int abft_embed(float *a, long m, long k, enum abft_fmt f)
{
    if (!a || m < 3 || k < 1)
        return -1;
    double inv = 1.0 / abft_scale(m);
    for (long i = 0; i < (m - 2) * k; i++)   /* tf32: stored fp32, multiplied as tf32; else a no-op */
        a[i] = (float)abft_round(f, a[i]);
    for (long p = 0; p < k; p++) {
        double c = 0;
        for (long i = 0; i < m - 2; i++)
            c += a[i * k + p];
        c *= inv;
        double hi = abft_round(f, c), lo = abft_round(f, c - hi);
        a[(m - 2) * k + p] = (float)hi;
        a[(m - 1) * k + p] = (float)lo;
    }
    return 0;
}

int abft_check(const float *d, long m, long n, ptrdiff_t si, ptrdiff_t sj, const struct abft_model *md, long k,
               double *worst, long *col)
{
    double tol = abft_tol(md, m, k), S = abft_scale(m);
    *worst = 0;
    *col = -1;
    if (!(tol > 0))
        return 0;
    for (long j = 0; j < n; j++) {
        double s = 0, q = 0;
        for (long i = 0; i < m - 2; i++) {
            double x = d[i * si + j * sj];
            s += x;
            q += x * x;
        }
        double hi = d[(m - 2) * si + j * sj], lo = d[(m - 1) * si + j * sj];
        double e = abft_col_err(s, S * (hi + lo), q, md->u_out * S * (fabs(hi) + fabs(lo)));
        if (!(e <= *worst) || *col < 0) {
            *worst = e;
            *col = j;
        }
    }
    return *worst > tol;
}
