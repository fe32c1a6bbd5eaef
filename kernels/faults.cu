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
#include "abft.h"
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

/* Adds rows [y * rows, (y + 1) * rows) of A's column sums into asum[p] = sum_i A(i,p), i < m (row i of A holds its
 * k elements contiguously). */
__global__ static void abft_colsum_kernel(const void *a, long m, long k, int ea, long rows, double *asum)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x, i0 = (long)blockIdx.y * rows;
    long i1 = i0 + rows < m ? i0 + rows : m;
    if (p >= k || i0 >= m)
        return;
    double acc = 0;
    for (long i = i0; i < i1; i++)
        acc += faults_load(a, (size_t)i * (size_t)k + (size_t)p, ea);
    atomicAdd(&asum[p], acc);   /* order varies: the last bits of a double do, far below what the split keeps */
}

/* Returns x rounded to tf32 (10 explicit mantissa bits), to nearest even; infinities and NaNs as they are. */
__device__ static inline float abft_to_tf32(float x)
{
    uint32_t u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return x;
    u += 0xfffu + ((u >> 13) & 1u);
    return __uint_as_float(u & 0xffffe000u);
}

/* tf32: A is stored as fp32 and multiplied as tf32; stored already rounded, the product and the checksum see the
 * same values. */
__global__ static void abft_round_tf32_kernel(float *a, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = abft_to_tf32(a[i]);
}

/* Writes A's checksum rows m - 2 (hi) and m - 1 (lo) from c_p = asum[p] / S (abft.h). Only lo's rounding stays
 * in hi + lo, so hi need not be correctly rounded. */
__global__ static void abft_split_kernel(void *a, long m, long k, int t, double inv_s, const double *asum)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= k)
        return;
    double c = asum[p] * inv_s;
    size_t h = (size_t)(m - 2) * (size_t)k + (size_t)p, l = h + (size_t)k;
    switch (t) {
    case DT_BF16: {
        __nv_bfloat16 hi = __double2bfloat16(c);
        ((__nv_bfloat16 *)a)[h] = hi;
        ((__nv_bfloat16 *)a)[l] = __double2bfloat16(c - (double)__bfloat162float(hi));
        break;
    }
    case DT_FP16: {
        __half hi = __double2half(c);
        ((__half *)a)[h] = hi;
        ((__half *)a)[l] = __double2half(c - (double)__half2float(hi));
        break;
    }
    case DT_TF32: {
        float hi = abft_to_tf32((float)c);
        ((float *)a)[h] = hi;
        ((float *)a)[l] = abft_to_tf32((float)(c - (double)hi));
        break;
    }
    default: {
        __nv_fp8_storage_t hi = __nv_cvt_double_to_fp8(c, __NV_SATFINITE, __NV_E4M3);
        double hv = (double)__half2float(__half(__nv_cvt_fp8_to_halfraw(hi, __NV_E4M3)));
        ((__nv_fp8_storage_t *)a)[h] = hi;
        ((__nv_fp8_storage_t *)a)[l] = __nv_cvt_double_to_fp8(c - hv, __NV_SATFINITE, __NV_E4M3);
        break;
    }
    }
}

extern "C" int kernel_abft_embed(void *a, long m, long k, enum dtype t, cudaStream_t s)
{
    if (!a || m < 3 || k < 1 || (unsigned)t >= DT_COUNT) {
        gl_log("kernel_abft_embed: bad arguments (A %p, %ld x %ld, dtype %d): abft needs at least 3 rows", a, m, k, (int)t);
        return -1;
    }
    long data = m - 2;
    if (t == DT_TF32) {
        size_t n = (size_t)data * (size_t)k, blocks = (n + FAULTS_THREADS - 1) / FAULTS_THREADS;
        abft_round_tf32_kernel<<<(unsigned)(blocks < 65535 ? blocks : 65535), FAULTS_THREADS, 0, s>>>((float *)a, n);
        if (CUDA_CHECK(cudaGetLastError()))
            return -1;
    }
    long rows = ABFT_ROWS > (data + ABFT_MAX_GRID_Y - 1) / ABFT_MAX_GRID_Y ? ABFT_ROWS
                                                                          : (data + ABFT_MAX_GRID_Y - 1) / ABFT_MAX_GRID_Y;
    dim3 grid((unsigned)((k + FAULTS_THREADS - 1) / FAULTS_THREADS), (unsigned)((data + rows - 1) / rows));
    double *asum = NULL;
    int rc = -1;
    if (CUDA_CHECK(cudaMallocAsync((void **)&asum, (size_t)k * sizeof *asum, s)) == 0 &&
        CUDA_CHECK(cudaMemsetAsync(asum, 0, (size_t)k * sizeof *asum, s)) == 0) {
        abft_colsum_kernel<<<grid, FAULTS_THREADS, 0, s>>>(a, data, k, elem_of_input(t), rows, asum);
        if (CUDA_CHECK(cudaGetLastError()) == 0) {
            abft_split_kernel<<<(unsigned)((k + FAULTS_THREADS - 1) / FAULTS_THREADS), FAULTS_THREADS, 0, s>>>(
                a, m, k, (int)t, 1.0 / abft_scale(m), asum);
            rc = CUDA_CHECK(cudaGetLastError());
        }
    }
    if (asum && CUDA_CHECK(cudaFreeAsync(asum, s)))
        rc = -1;
    return rc;
}

__device__ static inline double abft_val(__nv_bfloat16 x) { return (double)__bfloat162float(x); }
__device__ static inline double abft_val(__half x) { return (double)__half2float(x); }
__device__ static inline double abft_val(float x) { return (double)x; }

/* err[j] for column j = blockIdx.x of D (m x n, column j's m elements contiguous): one pass over its data rows
 * (16-byte loads where the column is aligned to them), then its two checksum rows (abft.h). */
template <typename T> __global__ static void abft_verify_kernel(const T *d, long m, double scale, double u_out, double *err)
{
    constexpr int V = 16 / sizeof(T);
    const T *col = d + (size_t)blockIdx.x * (size_t)m;
    long data = m - 2, i = threadIdx.x;
    double s = 0, q = 0;
    if (m % V == 0) {   /* every column starts on 16 bytes (cudaMalloc aligns the buffer to 256) */
        long nvec = data / V;
        for (long x = threadIdx.x; x < nvec; x += blockDim.x) {
            uint4 w = __ldg((const uint4 *)col + x);
            const T *e = (const T *)&w;
#pragma unroll
            for (int u = 0; u < V; u++) {
                double y = abft_val(e[u]);
                s += y;
                q += y * y;
            }
        }
        i = nvec * V + threadIdx.x;
    }
    for (; i < data; i += blockDim.x) {
        double y = abft_val(col[i]);
        s += y;
        q += y * y;
    }
    s = faults_block_sum(s);
    q = faults_block_sum(q);
    if (threadIdx.x == 0) {
        double hi = abft_val(col[m - 2]), lo = abft_val(col[m - 1]);
        err[blockIdx.x] = abft_col_err(s, scale * (hi + lo), q, u_out * scale * (fabs(hi) + fabs(lo)));
    }
}

extern "C" int kernel_abft_check(const struct gemm_chain *g, double *max_rel_err, long *bad_col, cudaStream_t s)
{
    long m = 0, n = 0, k = 0;
    enum dtype t = DT_BF16;
    if (!g || !max_rel_err || !bad_col || gemm_chain_dims(g, &m, &n, &k, &t) != 0 || m < 3) {
        gl_log("kernel_abft_check: bad arguments (chain %p, %ld rows: abft needs at least 3)", (const void *)g, m);
        return -1;
    }
    const void *d = gemm_chain_output(g);
    struct abft_model md = abft_model_of(t);
    double S = abft_scale(m), *err = NULL, *host = (double *)xmalloc((size_t)n * sizeof *host);
    int rc = -1;
    if (CUDA_CHECK(cudaMallocAsync((void **)&err, (size_t)n * sizeof *err, s)) == 0) {
        switch (elem_of_output(t)) {
        case ELEM_BF16:
            abft_verify_kernel<<<(unsigned)n, FAULTS_THREADS, 0, s>>>((const __nv_bfloat16 *)d, m, S, md.u_out, err);
            break;
        case ELEM_FP16:
            abft_verify_kernel<<<(unsigned)n, FAULTS_THREADS, 0, s>>>((const __half *)d, m, S, md.u_out, err);
            break;
        default:
            abft_verify_kernel<<<(unsigned)n, FAULTS_THREADS, 0, s>>>((const float *)d, m, S, md.u_out, err);
            break;
        }
        if (CUDA_CHECK(cudaGetLastError()) == 0 &&
            CUDA_CHECK(cudaMemcpyAsync(host, err, (size_t)n * sizeof *err, cudaMemcpyDeviceToHost, s)) == 0)
            rc = 0;
    }
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
