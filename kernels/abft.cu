/* kernels/abft.cu: the Huang-Abraham checksum the GEMM chain carries (harness/core/abft.h has the algebra): A's
 * last two rows made the checksum rows of its column sums, and one pass over the output that compares each
 * column's checksum with the sum of its data rows. */
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
#include "faults_dev.cuh"
extern "C" {           /* gemm.h is a C header without its own guard; cuda_runtime.h is already included above */
#include "gemm.h"
}

#define ABFT_ROWS 64                            /* rows of A one block sums before its atomic add */
#define ABFT_MAX_GRID_Y 65535L
#define ABFT_UNROLL 4                           /* 16-byte loads in flight per thread in the check */

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
        long nvec = data / V, x = threadIdx.x;
        /* ABFT_UNROLL loads in flight per thread before any is summed: a column's block lives a few loads long,
         * and one load at a time left it waiting on memory for each in turn */
        for (; x + (ABFT_UNROLL - 1) * (long)blockDim.x < nvec; x += ABFT_UNROLL * (long)blockDim.x) {
            uint4 w[ABFT_UNROLL];
#pragma unroll
            for (int r = 0; r < ABFT_UNROLL; r++)
                w[r] = __ldg((const uint4 *)col + x + r * (long)blockDim.x);
#pragma unroll
            for (int r = 0; r < ABFT_UNROLL; r++) {
                const T *e = (const T *)&w[r];
#pragma unroll
                for (int u = 0; u < V; u++) {
                    double y = abft_val(e[u]);
                    s += y;
                    q += y * y;
                }
            }
        }
        for (; x < nvec; x += blockDim.x) {
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

extern "C" int kernel_abft_check(const struct gemm_chain *g, double *max_rel_err, long *bad_col, cudaEvent_t begin,
                                 cudaEvent_t done, cudaStream_t s)
{
    long m = 0, n = 0, k = 0;
    enum dtype t = DT_BF16;
    if (!g || !max_rel_err || !bad_col || gemm_chain_dims(g, &m, &n, &k, &t) != 0 || m < 3) {
        gl_log("kernel_abft_check: bad arguments (chain %p, %ld rows: abft needs at least 3)", (const void *)g, m);
        return -1;
    }
    const void *d = gemm_chain_output(g);
    struct abft_model md = abft_model_of(t);
    md.u_out *= gemm_chain_out_roundings(g);   /* split-K parts added in the output type: each a rounding */
    double S = abft_scale(m), *err = NULL, *host = (double *)xmalloc((size_t)n * sizeof *host);
    int rc = -1;
    /* begin after the allocation: the host's call is no device work (on an idle stream the gap counted) */
    if (CUDA_CHECK(cudaMallocAsync((void **)&err, (size_t)n * sizeof *err, s)) == 0 &&
        (!begin || CUDA_CHECK(cudaEventRecord(begin, s)) == 0)) {
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
        /* the work's end, recorded before the copy: a copy to pageable memory returns only once it is done, and
         * an event recorded after it stamped the host's wake-up (until 2026-11-29) */
        if (CUDA_CHECK(cudaGetLastError()) == 0 && (!done || CUDA_CHECK(cudaEventRecord(done, s)) == 0) &&
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

