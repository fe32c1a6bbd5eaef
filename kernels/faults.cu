/* kernels/faults.cu: fault injection (bit flips, value perturbations, a hung stream) and detection (a buffer
 * fingerprint, the Huang-Abraham checksum of the GEMM chain's output) on the device. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "util.h"
#include "cuda_check.h"
#include "dtype.h"
#include "faults.h"
extern "C" {           /* gemm.h is a C header without its own guard; cuda_runtime.h is already included above */
#include "gemm.h"
}

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "faults.cu copies elements and hashes words as little-endian bytes"
#endif

#define FAULTS_THREADS 256                      /* every kernel here runs blocks of this many threads */
#define FAULTS_GOLDEN 0x9E3779B97F4A7C15ull
#define FP_LENGTH_KEY 0xD6E8FEB86659FD93ull     /* mixed with the length into the fingerprint */
#define FP_UNROLL 4                             /* 16-byte loads in flight per thread */
#define ABFT_ROWS 64                            /* rows of A one block sums before its atomic add */
#define ABFT_MAX_GRID_Y 65535L

/* ---- element types ---------------------------------------------------------------------------------------- */

static const struct elem_layout faults_layouts[ELEM_COUNT] = {
    { 16, 8, 7 },    /* bf16 */
    { 16, 5, 10 },   /* fp16 */
    { 32, 8, 23 },   /* fp32 (tf32 data) */
    { 8, 4, 3 },     /* fp8 e4m3 */
};

extern "C" int elem_layout(enum elem_type e, struct elem_layout *out)
{
    if ((unsigned)e >= ELEM_COUNT || !out)
        return -1;
    *out = faults_layouts[e];
    return 0;
}

extern "C" double elem_value(unsigned raw, enum elem_type e)
{
    uint32_t u;
    float f;
    int sign, ex, man;
    double v;
    switch (e) {
    case ELEM_BF16:
        u = (raw & 0xFFFFu) << 16;
        memcpy(&f, &u, sizeof f);
        return f;
    case ELEM_FP32:
        u = raw;
        memcpy(&f, &u, sizeof f);
        return f;
    case ELEM_FP16:
        sign = (raw >> 15) & 1, ex = (raw >> 10) & 0x1F, man = raw & 0x3FF;
        v = ex == 0 ? ldexp(man, -24) : ex == 31 ? (man ? NAN : INFINITY) : ldexp(man | 0x400, ex - 25);
        return sign ? -v : v;
    case ELEM_FP8:
        sign = (raw >> 7) & 1, ex = (raw >> 3) & 0xF, man = raw & 0x7;
        v = (ex == 15 && man == 7) ? NAN : ex == 0 ? ldexp(man, -9) : ldexp(man | 0x8, ex - 10);
        return sign ? -v : v;
    default:
        return NAN;
    }
}

extern "C" unsigned elem_bits(double v, enum elem_type e)
{
    switch (e) {
    case ELEM_BF16: {
        __nv_bfloat16 h = __double2bfloat16(v);
        uint16_t u;
        memcpy(&u, &h, sizeof u);
        return u;
    }
    case ELEM_FP16: {
        __half h = __double2half(v);
        uint16_t u;
        memcpy(&u, &h, sizeof u);
        return u;
    }
    case ELEM_FP32: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    case ELEM_FP8:
        return __nv_cvt_double_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
    default:
        return 0;
    }
}

extern "C" int flip_field(enum elem_type e, int where, int *lo, int *width)
{
    if ((unsigned)e >= ELEM_COUNT || !lo || !width)
        return -1;
    const struct elem_layout *l = &faults_layouts[e];
    switch (where) {
    case FIELD_ANY: *lo = 0, *width = l->bits; return 0;
    case FIELD_SIGN: *lo = l->bits - 1, *width = 1; return 0;
    case FIELD_EXPONENT: *lo = l->man_bits, *width = l->exp_bits; return 0;
    case FIELD_MANTISSA: *lo = 0, *width = l->man_bits; return 0;
    default: return -1;
    }
}

extern "C" unsigned flip_mask(enum elem_type e, int where, int bits, unsigned long long seed)
{
    int lo, width, pos[32];
    struct rng r;
    unsigned mask = 0;
    if (flip_field(e, where, &lo, &width) != 0 || bits < 1 || bits > width)
        return 0;
    for (int i = 0; i < width; i++)
        pos[i] = lo + i;
    rng_seed(&r, seed, 1);   /* stream 1: the bits; stream 0 picks the element */
    for (int i = 0; i < bits; i++) {   /* partial Fisher-Yates: bits distinct positions */
        int j = i + (int)(rng_next(&r) % (uint64_t)(width - i));
        int tmp = pos[i];
        pos[i] = pos[j];
        pos[j] = tmp;
        mask |= 1u << pos[i];
    }
    return mask;
}

extern "C" size_t flip_index(size_t n, unsigned long long seed)
{
    struct rng r;
    if (n == 0)
        return 0;
    rng_seed(&r, seed, 0);
    return (size_t)(rng_next(&r) % (uint64_t)n);
}

/* ---- bit flips and perturbations: one element read and written back by copies ordered on s ------------------- */

/* Fails (logged) unless buf, n and e describe a non-empty buffer of a known element type. */
static int faults_check_buffer(const char *who, const void *buf, size_t n, enum elem_type e)
{
    if (buf && n > 0 && (unsigned)e < ELEM_COUNT)
        return 0;
    gl_log("%s: bad arguments (buf %p, n %zu, element type %d)", who, buf, n, (int)e);
    return -1;
}

/* Copies element i (sz bytes) of buf into the low bytes of *raw, after the work already on s. */
static int faults_read(const void *buf, size_t i, size_t sz, unsigned *raw, cudaStream_t s)
{
    unsigned v = 0;
    if (CUDA_CHECK(cudaMemcpyAsync(&v, (const char *)buf + i * sz, sz, cudaMemcpyDeviceToHost, s)) ||
        CUDA_CHECK(cudaStreamSynchronize(s)))
        return -1;
    *raw = v;
    return 0;
}

/* Writes the low sz bytes of raw to element i of buf, ordered on s, and waits for it. */
static int faults_write(void *buf, size_t i, size_t sz, unsigned raw, cudaStream_t s)
{
    if (CUDA_CHECK(cudaMemcpyAsync((char *)buf + i * sz, &raw, sz, cudaMemcpyHostToDevice, s)) ||
        CUDA_CHECK(cudaStreamSynchronize(s)))
        return -1;
    return 0;
}

/* Fills *out (when given) with what happened to element i. */
static void faults_report(struct flip_report *out, size_t i, unsigned old_bits, unsigned new_bits, enum elem_type e)
{
    if (!out)
        return;
    out->index = i;
    out->old_bits = old_bits;
    out->new_bits = new_bits;
    out->old_value = elem_value(old_bits, e);
    out->new_value = elem_value(new_bits, e);
}

extern "C" int kernel_bitflip(void *buf, size_t n, enum elem_type e, int bits, int where, unsigned long long seed,
                              struct flip_report *out, cudaStream_t s)
{
    if (faults_check_buffer("kernel_bitflip", buf, n, e) != 0)
        return -1;
    unsigned mask = flip_mask(e, where, bits, seed), old_bits;
    if (!mask) {
        gl_log("kernel_bitflip: cannot flip %d bit(s) of field %d (0 any, 1 sign, 2 exponent, 3 mantissa) in a "
               "%zu-byte element", bits, where, elem_size(e));
        return -1;
    }
    size_t i = flip_index(n, seed), sz = elem_size(e);
    if (faults_read(buf, i, sz, &old_bits, s) != 0 || faults_write(buf, i, sz, old_bits ^ mask, s) != 0)
        return -1;
    faults_report(out, i, old_bits, old_bits ^ mask, e);
    return 0;
}

extern "C" int kernel_perturb(void *buf, size_t n, enum elem_type e, double rel, unsigned long long seed,
                              struct flip_report *out, cudaStream_t s)
{
    if (faults_check_buffer("kernel_perturb", buf, n, e) != 0)
        return -1;
    if (!isfinite(rel)) {
        gl_log("kernel_perturb: the relative change %g is not finite", rel);
        return -1;
    }
    size_t i = flip_index(n, seed), sz = elem_size(e);
    unsigned old_bits, new_bits;
    if (faults_read(buf, i, sz, &old_bits, s) != 0)
        return -1;
    new_bits = elem_bits(elem_value(old_bits, e) * (1.0 + rel), e);
    if (new_bits != old_bits && faults_write(buf, i, sz, new_bits, s) != 0)
        return -1;
    faults_report(out, i, old_bits, new_bits, e);
    return 0;
}

/* ---- fingerprint ---------------------------------------------------------------------------------------------- */

/* Returns the SplitMix64 finaliser of z: a bijective 64-bit mix with good avalanche. */
__host__ __device__ static inline unsigned long long faults_mix(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Returns word i's term of the fingerprint sum: a bijection of the word, different at every position. */
__host__ __device__ static inline unsigned long long fp_term(unsigned long long w, unsigned long long i)
{
    return faults_mix(w + (i + 1ull) * FAULTS_GOLDEN);
}

/* Returns the fingerprint of a buffer of bytes whose terms sum to sum (a bijection of sum). */
static unsigned long long fp_final(unsigned long long sum, size_t bytes)
{
    return faults_mix(sum ^ faults_mix((unsigned long long)bytes ^ FP_LENGTH_KEY));
}

/* Returns the terms of the two 64-bit words of 16-byte vector v. */
__device__ static inline unsigned long long fp_vec_terms(uint4 x, size_t v)
{
    unsigned long long lo = x.x | ((unsigned long long)x.y << 32), hi = x.z | ((unsigned long long)x.w << 32);
    return fp_term(lo, 2 * (unsigned long long)v) + fp_term(hi, 2 * (unsigned long long)v + 1);
}

/* Returns 64-bit word w of a buffer of bytes, read byte by byte, zero-padded past the end. */
__device__ static inline unsigned long long fp_word_bytes(const unsigned char *p, size_t bytes, size_t w)
{
    unsigned long long x = 0;
    size_t at = w * 8;
    for (int b = 0; b < 8 && at + b < bytes; b++)
        x |= (unsigned long long)p[at + b] << (8 * b);
    return x;
}

/* Returns the sum of v over the block (in thread 0; blockDim.x == FAULTS_THREADS). Every thread must call it. */
template <typename T> __device__ static T faults_block_sum(T v)
{
    __shared__ T part[FAULTS_THREADS / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();   /* a previous call's readers are done with part[] */
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xFFFFFFFFu, v, o);
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < FAULTS_THREADS / 32 ? part[lane] : (T)0;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xFFFFFFFFu, v, o);
    }
    return v;
}

/* Adds the fingerprint terms of the buffer into *acc: 16-byte vectors [0, nvec), then words from first_word on
 * by bytes. Integer sums are exact, so the grid does not change the result. */
__global__ static void fp_kernel(const uint4 *vec, size_t nvec, const unsigned char *raw, size_t bytes,
                                 size_t first_word, unsigned long long *acc)
{
    size_t stride = (size_t)gridDim.x * blockDim.x, t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t v = t, nwords = (bytes + 7) / 8;
    unsigned long long sum = 0;
    for (; v + (FP_UNROLL - 1) * stride < nvec; v += FP_UNROLL * stride) {
        uint4 x[FP_UNROLL];
#pragma unroll
        for (int u = 0; u < FP_UNROLL; u++)
            x[u] = __ldcs(vec + v + u * stride);   /* streaming: a large buffer would only evict L2 */
#pragma unroll
        for (int u = 0; u < FP_UNROLL; u++)
            sum += fp_vec_terms(x[u], v + u * stride);
    }
    for (; v < nvec; v += stride)
        sum += fp_vec_terms(__ldcs(vec + v), v);
    for (size_t w = first_word + t; w < nwords; w += stride)
        sum += fp_term(fp_word_bytes(raw, bytes, w), w);
    sum = faults_block_sum(sum);
    if (threadIdx.x == 0)
        atomicAdd(acc, sum);
}

/* Returns the number of blocks of fp_kernel for work items of one thread each: one full wave at most. */
static int fp_blocks(size_t work, unsigned *blocks)
{
    int dev = 0, sms = 0, per_sm = 0;
    if (CUDA_CHECK(cudaGetDevice(&dev)) ||
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fp_kernel, FAULTS_THREADS, 0)))
        return -1;
    size_t full = (size_t)(sms > 0 ? sms : 1) * (size_t)(per_sm > 0 ? per_sm : 1);
    size_t want = (work + FAULTS_THREADS - 1) / FAULTS_THREADS;
    *blocks = (unsigned)(want < 1 ? 1 : want < full ? want : full);
    return 0;
}

/* Enqueues the kernel that adds buffer buf's terms into *acc (zeroed before). 0, or -1 (logged). */
static int fp_launch(const void *buf, size_t bytes, unsigned long long *acc, cudaStream_t s)
{
    if (bytes == 0)
        return 0;
    size_t nvec = (uintptr_t)buf % 16 == 0 ? bytes / 16 : 0, first_word = 2 * nvec, nwords = (bytes + 7) / 8;
    size_t work = nvec / FP_UNROLL > nwords - first_word ? nvec / FP_UNROLL : nwords - first_word;
    unsigned blocks = 1;
    if (fp_blocks(work, &blocks) != 0)
        return -1;
    fp_kernel<<<blocks, FAULTS_THREADS, 0, s>>>((const uint4 *)buf, nvec, (const unsigned char *)buf, bytes, first_word,
                                                acc);
    return CUDA_CHECK(cudaGetLastError());
}

extern "C" int kernel_fingerprint_async(const void *const *bufs, const size_t *bytes, int parts, unsigned long long *acc,
                                        unsigned long long *host_sums, cudaStream_t s)
{
    if (parts < 1 || !bufs || !bytes || !acc || !host_sums) {
        gl_log("kernel_fingerprint_async: bad arguments (%d parts)", parts);
        return -1;
    }
    if (CUDA_CHECK(cudaMemsetAsync(acc, 0, (size_t)parts * sizeof *acc, s)))
        return -1;
    for (int i = 0; i < parts; i++)
        if ((!bufs[i] && bytes[i]) || fp_launch(bufs[i], bytes[i], acc + i, s) != 0)
            return -1;
    return CUDA_CHECK(cudaMemcpyAsync(host_sums, acc, (size_t)parts * sizeof *acc, cudaMemcpyDeviceToHost, s));
}

extern "C" unsigned long long fingerprint_of_sum(unsigned long long sum, size_t bytes) { return fp_final(sum, bytes); }

extern "C" int kernel_fingerprint(const void *buf, size_t bytes, unsigned long long *out_hash, cudaStream_t s)
{
    if (!out_hash || (!buf && bytes)) {
        gl_log("kernel_fingerprint: bad arguments (buf %p, bytes %zu, out %p)", buf, bytes, (void *)out_hash);
        return -1;
    }
    if (bytes == 0) {
        *out_hash = fp_final(0, 0);
        return 0;
    }
    unsigned long long *acc = NULL, sum = 0;
    int rc = -1;
    if (CUDA_CHECK(cudaMallocAsync((void **)&acc, sizeof *acc, s)))
        return -1;
    if (CUDA_CHECK(cudaMemsetAsync(acc, 0, sizeof *acc, s)) == 0 && fp_launch(buf, bytes, acc, s) == 0 &&
        CUDA_CHECK(cudaMemcpyAsync(&sum, acc, sizeof sum, cudaMemcpyDeviceToHost, s)) == 0)
        rc = 0;
    if (CUDA_CHECK(cudaFreeAsync(acc, s)) || CUDA_CHECK(cudaStreamSynchronize(s)))
        rc = -1;
    if (rc == 0)
        *out_hash = fp_final(sum, bytes);
    return rc;
}

extern "C" unsigned long long fingerprint_host(const void *buf, size_t bytes)
{
    const unsigned char *p = (const unsigned char *)buf;
    unsigned long long sum = 0;
    for (size_t i = 0, at = 0; at < bytes; i++, at += 8) {
        unsigned long long w = 0;
        memcpy(&w, p + at, bytes - at < 8 ? bytes - at : 8);
        sum += fp_term(w, i);
    }
    return fp_final(sum, bytes);
}

/* ---- ABFT ----------------------------------------------------------------------------------------------------- */

/* Returns element i of a device buffer of element type e as a double (every stored value is exact in double). */
__device__ static inline double faults_load(const void *p, size_t i, int e)
{
    switch (e) {
    case ELEM_BF16: return (double)__bfloat162float(((const __nv_bfloat16 *)p)[i]);
    case ELEM_FP16: return (double)__half2float(((const __half *)p)[i]);
    case ELEM_FP32: return (double)((const float *)p)[i];
    default: {
        __half h = __nv_cvt_fp8_to_halfraw(((const __nv_fp8_storage_t *)p)[i], __NV_E4M3);
        return (double)__half2float(h);
    }
    }
}

/* Adds rows [y * rows, (y + 1) * rows) of A's column sums into asum[p] = sum_i A(i,p) (A stored k x m, lda k). */
__global__ static void abft_colsum_kernel(const void *a, long m, long k, int ea, long rows, double *asum)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x, i0 = (long)blockIdx.y * rows;
    long i1 = i0 + rows < m ? i0 + rows : m;
    if (p >= k || i0 >= m)
        return;
    double acc = 0;
    for (long i = i0; i < i1; i++)
        acc += faults_load(a, (size_t)i * (size_t)k + (size_t)p, ea);
    atomicAdd(&asum[p], acc);   /* order varies: the last bits of a double do, far below any tolerance */
}

/* Returns |s - r| / sqrt(q), +inf when the column is not finite or is zero where it should not be. */
__device__ static inline double abft_col_err(double s, double r, double q)
{
    if (!isfinite(s) || !isfinite(q) || !isfinite(r))
        return INFINITY;
    if (q == 0)
        return s == r ? 0 : INFINITY;
    return fabs(s - r) / sqrt(q);
}

/* Writes err[j] for column j = blockIdx.x: r = sum_p asum[p] B(p,j), s = sum_i D(i,j), q = sum_i D(i,j)^2. */
__global__ static void abft_column_kernel(const void *b, const void *d, const double *asum, long m, long k,
                                          int eb, int ed, double *err)
{
    size_t j = blockIdx.x, boff = j * (size_t)k, doff = j * (size_t)m;
    double r = 0, s = 0, q = 0;
    for (long p = threadIdx.x; p < k; p += blockDim.x)
        r += asum[p] * faults_load(b, boff + (size_t)p, eb);
    for (long i = threadIdx.x; i < m; i += blockDim.x) {
        double x = faults_load(d, doff + (size_t)i, ed);
        s += x;
        q += x * x;
    }
    r = faults_block_sum(r);
    s = faults_block_sum(s);
    q = faults_block_sum(q);
    if (threadIdx.x == 0)
        err[j] = abft_col_err(s, r, q);
}

extern "C" int kernel_abft_check(const struct gemm_chain *g, double *max_rel_err, long *bad_col, cudaStream_t s)
{
    long m = 0, n = 0, k = 0;
    enum dtype t = DT_BF16;
    const void *a = NULL, *b = NULL, *d;
    if (!g || !max_rel_err || !bad_col || gemm_chain_dims(g, &m, &n, &k, &t) != 0) {
        gl_log("kernel_abft_check: bad arguments (chain %p)", (const void *)g);
        return -1;
    }
    gemm_chain_operands(g, &a, &b);
    d = gemm_chain_output(g);
    long rows = ABFT_ROWS > (m + ABFT_MAX_GRID_Y - 1) / ABFT_MAX_GRID_Y ? ABFT_ROWS
                                                                       : (m + ABFT_MAX_GRID_Y - 1) / ABFT_MAX_GRID_Y;
    dim3 grid((unsigned)((k + FAULTS_THREADS - 1) / FAULTS_THREADS), (unsigned)((m + rows - 1) / rows));
    double *asum = NULL, *err = NULL, *host = (double *)xmalloc((size_t)n * sizeof *host);
    int rc = -1;
    if (CUDA_CHECK(cudaMallocAsync((void **)&asum, (size_t)k * sizeof *asum, s)) == 0 &&
        CUDA_CHECK(cudaMallocAsync((void **)&err, (size_t)n * sizeof *err, s)) == 0 &&
        CUDA_CHECK(cudaMemsetAsync(asum, 0, (size_t)k * sizeof *asum, s)) == 0) {
        abft_colsum_kernel<<<grid, FAULTS_THREADS, 0, s>>>(a, m, k, elem_of_input(t), rows, asum);
        if (CUDA_CHECK(cudaGetLastError()) == 0) {
            abft_column_kernel<<<(unsigned)n, FAULTS_THREADS, 0, s>>>(b, d, asum, m, k, elem_of_input(t),
                                                                      elem_of_output(t), err);
            if (CUDA_CHECK(cudaGetLastError()) == 0 &&
                CUDA_CHECK(cudaMemcpyAsync(host, err, (size_t)n * sizeof *err, cudaMemcpyDeviceToHost, s)) == 0)
                rc = 0;
        }
    }
    if (asum && CUDA_CHECK(cudaFreeAsync(asum, s)))
        rc = -1;
    if (err && CUDA_CHECK(cudaFreeAsync(err, s)))
        rc = -1;
    if (CUDA_CHECK(cudaStreamSynchronize(s)))
        rc = -1;
    if (rc == 0) {
        *max_rel_err = -1;
        *bad_col = -1;
        for (long j = 0; j < n; j++)
            if (!(host[j] <= *max_rel_err)) {   /* a NaN (never written, but) counts as the worst */
                *max_rel_err = isnan(host[j]) ? INFINITY : host[j];
                *bad_col = j;
            }
    }
    free(host);
    return rc;
}

/* Tolerance on err_j for a correct GEMM. Model: every output element D(i,j) carries independent, zero-mean
 * rounding errors, each a fraction of |D(i,j)|:
 *   - its rounding to the output type (to nearest, |e| <= u_out |D|): variance <= u_out^2 D^2 / 3, with
 *     u_out = 2^-8 for bf16 (and fp8, whose output is bf16), 2^-11 for fp16, 2^-24 for fp32 (tf32);
 *   - tf32 only: A and B rounded to tf32 (10 explicit mantissa bits, u_in = 2^-11) inside the product:
 *     variance <= 2 u_in^2 D^2 / 3 for operands of random sign. Rounding, not truncation: test_cuda_gemm measured
 *     a Frobenius error of 2.9e-4 for tf32, which rounding predicts; truncation would add a 7e-4 bias;
 *   - the sum of k products: variance <= k u_acc^2 D^2 / 3 with u_acc = 2^-24 (fp32); for fp8 2^-14, the precision
 *     Hopper's fp8 tensor cores are reported to keep between promotions to fp32 (deliberately pessimistic).
 * Over the m rows of a column these variances add, so s_j - r_j has a standard deviation of at most
 * sigma ||D(:,j)||_2, sigma^2 = u_out^2/3 + 2 u_in^2/3 + k u_acc^2/3, and err_j is (by the central limit theorem)
 * normal with deviation <= sigma: dividing by the l2 norm makes it free of scale and of m. The bound sits about
 * 1.4 times above the rounding error measured on the H100 (bf16 1.6e-3 vs 2.3e-3, fp16 2.1e-4 vs 2.8e-4), so
 * tol = 8 sigma is about 11 measured deviations: a clean column exceeds it with probability below 1e-20, never
 * in practice. The fp64 reference adds (m + k) 2^-52 for its own sums: the only place m enters.
 * Resulting tolerances: bf16 0.018, fp16 0.0023, tf32 0.0032, fp8 0.019 (k 512) to 0.031 (k 8192). A corruption
 * trips it when it moves a column sum by more than tol ||D(:,j)||_2 ~ tol sqrt(m k): at 8192^3 bf16 that is 1.6
 * times the rms |D(i,j)| (fp16 0.2, tf32 0.29, fp8 2.8): exponent flips that scale a typical element up by 4 or
 * more, sign flips of larger-than-typical elements, any NaN or infinity. Not seen: mantissa flips; a 1% change
 * of one element (1.3 to 2.6 ulps of bf16, 10 to 20 of fp16, while the m roundings of a column already sum to
 * about sqrt(m) / 3 ulps: 30 at m = 8192); exponent flips that shrink an element of typical size or less. */
extern "C" double abft_tolerance(enum dtype t, long k, long m)
{
    static const double u_out[DT_COUNT] = { 0x1p-8, 0x1p-11, 0x1p-24, 0x1p-8 };
    static const double u_in[DT_COUNT] = { 0, 0, 0x1p-11, 0 };
    static const double u_acc[DT_COUNT] = { 0x1p-24, 0x1p-24, 0x1p-24, 0x1p-14 };
    if ((unsigned)t >= DT_COUNT || k < 1 || m < 1)
        return NAN;
    double var = (u_out[t] * u_out[t] + 2 * u_in[t] * u_in[t] + (double)k * u_acc[t] * u_acc[t]) / 3.0;
    return 8.0 * sqrt(var) + (double)(m + k) * 0x1p-52;
}

/* ---- hang ------------------------------------------------------------------------------------------------------ */

/* Spins one thread until *flag is nonzero, sleeping between reads so that the wait costs almost nothing. */
__global__ static void faults_hang_kernel(volatile int *flag)
{
    while (*flag == 0) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(1000);
#endif
    }
}

extern "C" int kernel_hang(volatile int *flag, cudaStream_t s)
{
    if (!flag) {
        gl_log("kernel_hang: no flag");
        return -1;
    }
    faults_hang_kernel<<<1, 1, 0, s>>>(flag);
    return CUDA_CHECK(cudaGetLastError());
}
