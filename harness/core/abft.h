/* harness/core/abft.h: the Huang-Abraham check every GEMM carries, one algebra for the GPU (kernels/abft.cu) and
 * the sim (backends/sim/simfaults.c).
 *
 * The checksum rides through the multiplication itself. Of A's m rows (A is m x k, row i's k elements contiguous)
 * the first m - 2 hold data and the last two a checksum of them:
 *     c = (1/S) sum_{i < m-2} A(i,:),   hi = c rounded to A's type,   lo = (c - hi) rounded to A's type,
 * S a power of two at least sqrt(m - 2), so that c is of the data's size (fp8's +-448 is never reached) and the
 * scaling is exact. The GEMM D = A B then makes S (D(m-2,j) + D(m-1,j)) the sum of column j of D's data rows,
 * whatever B is (the weights may change every step): for every column j
 *     s_j = sum_{i < m-2} D(i,j)     r_j = S (D(m-2,j) + D(m-1,j))     q_j = sum_{i < m-2} D(i,j)^2
 * and one pass over D checks it — no pass over A or B, no second product, nothing carried between iterations.
 *
 * err_j = max(0, |s_j - r_j| - b_j) / sqrt(q_j), where b_j = u_out S (|D(m-2,j)| + |D(m-1,j)|) bounds the rounding
 * of the two checksum outputs themselves (to nearest: at most u_out of each). What is left is the sum of many
 * independent rounding errors, each a fraction of an element (abft_tol: the model), so err_j is free of scale and
 * of m and a clean column stays below the tolerance. A column that is not finite, or zero where it should not be,
 * has err +inf. */
#ifndef GAUNTLET_ABFT_H
#define GAUNTLET_ABFT_H

#include <math.h>
#include <stddef.h>

#include "dtype.h"

#ifdef __CUDACC__
#define ABFT_FN static inline __host__ __device__
#else
#define ABFT_FN static inline
#endif

/* The rounding a GEMM of one type does, each as a unit roundoff (|error| <= u |value| when rounding to nearest):
 * u_out its output's, u_in its inputs' inside the product (tf32 only: fp32 storage, 10 explicit mantissa bits in the
 * tensor core), u_acc its accumulator's per term, u_split what the hi/lo split of the checksum leaves. */
struct abft_model {
    double u_out, u_in, u_acc, u_split;
};

/* The storage formats the algebra emulates (abft_round): a GEMM's inputs and outputs. */
enum abft_fmt { ABFT_FMT_BF16, ABFT_FMT_FP16, ABFT_FMT_TF32, ABFT_FMT_E4M3, ABFT_FMT_FP32 };

/* Returns S for m rows (m >= 3): the least power of two whose square is at least m - 2. */
ABFT_FN double abft_scale(long m)
{
    double s = 1;
    while (s * s < (double)(m - 2))
        s *= 2;
    return s;
}

/* Returns err_j from a column's sums (above): s its data rows' sum, r the checksum rows' S-scaled sum, q the data
 * rows' sum of squares, b the bound on the checksum outputs' own rounding. */
ABFT_FN double abft_col_err(double s, double r, double q, double b)
{
    if (!isfinite(s) || !isfinite(r) || !isfinite(q) || !isfinite(b))
        return INFINITY;
    double e = fabs(s - r) - b;
    if (e <= 0)
        return 0;
    return q > 0 ? e / sqrt(q) : INFINITY;
}

#ifdef __cplusplus
extern "C" {
#endif

/* The model of a GEMM of dtype t (bf16, fp16, tf32, fp8 as kernels/ run them); abft_model_fp32 is the sim's fp32
 * product. */
struct abft_model abft_model_of(enum dtype t);
extern const struct abft_model abft_model_fp32;
/* The formats of a GEMM of dtype t: its inputs as the product sees them (tf32: stored fp32, multiplied as tf32;
 * the checksum rows are split in it, so the product takes them as they are), its output (bf16 for bf16 and fp8). */
enum abft_fmt abft_input_fmt(enum dtype t);
enum abft_fmt abft_output_fmt(enum dtype t);

/* Returns the tolerance on err_j for a correct GEMM of k terms and m rows (NAN for k < 1 or m < 3): 8 standard
 * deviations of the model's rounding (a clean column exceeds it with probability below 1e-15), plus the double sums'
 * own error. */
double abft_tol(const struct abft_model *md, long m, long k);

/* Returns x rounded to nearest-even in format f (E4M3 saturates at +-448, as the GPU's conversion does; others
 * overflow to infinity; subnormals kept). */
double abft_round(enum abft_fmt f, double x);

/* Writes the two checksum rows of A (m x k floats, row i at a + i * k) from its first m - 2 rows, rounded to f (the
 * data rows too: tf32 is stored as fp32, and the product and the checksum must see the same values). -1 when
 * m < 3. */
int abft_embed(float *a, long m, long k, enum abft_fmt f);

/* Checks D (m x n: element (i, j) at d[i * si + j * sj]) made from an A with abft_embed's rows, under model md for
 * k terms. Returns 1 when a column's err exceeds the tolerance, else 0; *worst gets the largest err (+inf for a column
 * that is not finite) and *col its column. */
int abft_check(const float *d, long m, long n, ptrdiff_t si, ptrdiff_t sj, const struct abft_model *md, long k,
               double *worst, long *col);

#ifdef __cplusplus
}
#endif

#endif
