/* kernels/fill.cu: seeded normal fill of GEMM operands; the same seed gives the same bytes on every run. */
#include <math.h>
#include <stdint.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "util.h"
#include "cuda_check.h"
#include "kernels.h"

#define FILL_THREADS 256
#define FILL_MAX_BLOCKS 65535u
#define FILL_GOLDEN 0x9E3779B97F4A7C15ull

/* Returns the SplitMix64 finaliser of z: a bijective 64-bit mix with good avalanche. */
__host__ __device__ static inline unsigned long long fill_mix(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Returns element i's N(0,1) sample: Box-Muller on two 24-bit uniforms taken from one hash of (base, i). */
__device__ static inline float fill_normal_at(unsigned long long base, size_t i)
{
    unsigned long long h = fill_mix(base + ((unsigned long long)i + 1ull) * FILL_GOLDEN);
    float u1 = (float)((h >> 40) + 1ull) * 0x1p-24f;       /* (0, 1]: log is finite */
    float u2 = (float)(h & 0xFFFFFFull) * 0x1p-24f;        /* [0, 1) */
    /* fmaxf: under --use_fast_math logf(u1) for u1 just below 1 may come out a hair above 0. */
    return sqrtf(fmaxf(-2.0f * logf(u1), 0.0f)) * cospif(2.0f * u2);
}

/* Writes n samples of N(0, scale^2) as dtype t into dst, clamped to [-maxv, maxv], magnitude at least floor. */
__global__ static void fill_normal_kernel(void *dst, size_t n, int t, unsigned long long base, float scale,
                                          float floor_mag, float maxv)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float x = scale * fill_normal_at(base, i);
        if (fabsf(x) < floor_mag)
            x = copysignf(floor_mag, x);
        x = fminf(fmaxf(x, -maxv), maxv);
        switch (t) {
        case DT_BF16: ((__nv_bfloat16 *)dst)[i] = __float2bfloat16_rn(x); break;
        case DT_FP16: ((__half *)dst)[i] = __float2half_rn(x); break;
        case DT_TF32: ((float *)dst)[i] = x; break;
        default: ((__nv_fp8_storage_t *)dst)[i] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); break;
        }
    }
}

extern "C" int kernel_fill_normal(void *dst, size_t n, enum dtype t, unsigned long long seed, float scale,
                                  cudaStream_t s)
{
    /* Smallest normal magnitude and largest finite value of each stored type. */
    static const float min_normal[DT_COUNT] = { 0x1p-126f, 0x1p-14f, 0x1p-126f, 0x1p-6f };
    static const float max_finite[DT_COUNT] = { 3.3895314e38f, 65504.0f, 3.4028235e38f, 448.0f };
    if ((unsigned)t >= DT_COUNT || !(scale > 0.0f) || !isfinite(scale) || (!dst && n)) {
        gl_log("kernel_fill_normal: bad arguments (dst %p, n %zu, dtype %d, scale %g)", dst, n, (int)t,
               (double)scale);
        return -1;
    }
    if (n == 0)
        return 0;
    /* Values below scale * 2^-12 (or the type's smallest normal) are lifted to it: never a zero, barely a change. */
    float floor_mag = fmaxf(min_normal[t], scale * 0x1p-12f);
    size_t blocks = (n + FILL_THREADS - 1) / FILL_THREADS;
    if (blocks > FILL_MAX_BLOCKS)
        blocks = FILL_MAX_BLOCKS;
    fill_normal_kernel<<<(unsigned)blocks, FILL_THREADS, 0, s>>>(dst, n, (int)t, fill_mix(seed ^ FILL_GOLDEN),
                                                                 scale, floor_mag, max_finite[t]);
    return CUDA_CHECK(cudaGetLastError());
}

/* One element of buf (type T) times f, rounded to nearest in T. */
template <int T> __device__ static inline void scale_at(void *buf, size_t i, float f)
{
    if (T == DT_BF16)
        ((__nv_bfloat16 *)buf)[i] = __float2bfloat16_rn(__bfloat162float(((__nv_bfloat16 *)buf)[i]) * f);
    else if (T == DT_FP16)
        ((__half *)buf)[i] = __float2half_rn(__half2float(((__half *)buf)[i]) * f);
    else if (T == DT_TF32)
        ((float *)buf)[i] *= f;
    else {
        __nv_fp8_storage_t *b = (__nv_fp8_storage_t *)buf;
        float x = __half2float(__half(__nv_cvt_fp8_to_halfraw(b[i], __NV_E4M3)));
        b[i] = __nv_cvt_float_to_fp8(x * f, __NV_SATFINITE, __NV_E4M3);
    }
}

/* buf *= f: 16 bytes a thread where buf is 16-byte aligned (vec; a memory-bound pass), the rest one element at a
 * time. */
template <int T, int SIZE> __global__ static void scale_kernel(void *buf, size_t n, float f, int vec)
{
    const size_t per16 = 16 / SIZE, stride = (size_t)gridDim.x * blockDim.x, nvec = vec ? n / per16 : 0;
    for (size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; v < nvec; v += stride) {
        uint4 w = ((const uint4 *)buf)[v];
#pragma unroll
        for (size_t j = 0; j < per16; j++)
            scale_at<T>(&w, j, f);
        ((uint4 *)buf)[v] = w;
    }
    for (size_t i = nvec * per16 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        scale_at<T>(buf, i, f);
}

extern "C" int kernel_scale(void *buf, size_t n, enum dtype t, float f, cudaStream_t s)
{
    static const size_t size[DT_COUNT] = { 2, 2, 4, 1 };
    if ((unsigned)t >= DT_COUNT || !isfinite(f) || (!buf && n)) {
        gl_log("kernel_scale: bad arguments (buf %p, n %zu, dtype %d, f %g)", buf, n, (int)t, (double)f);
        return -1;
    }
    if (n == 0)
        return 0;
    int vec = ((uintptr_t)buf & 15) == 0;
    size_t blocks = ((vec ? n / (16 / size[t]) : n) + FILL_THREADS - 1) / FILL_THREADS;
    blocks = blocks < 1 ? 1 : blocks > FILL_MAX_BLOCKS ? FILL_MAX_BLOCKS : blocks;
    switch (t) {
    case DT_BF16: scale_kernel<DT_BF16, 2><<<(unsigned)blocks, FILL_THREADS, 0, s>>>(buf, n, f, vec); break;
    case DT_FP16: scale_kernel<DT_FP16, 2><<<(unsigned)blocks, FILL_THREADS, 0, s>>>(buf, n, f, vec); break;
    case DT_TF32: scale_kernel<DT_TF32, 4><<<(unsigned)blocks, FILL_THREADS, 0, s>>>(buf, n, f, vec); break;
    default: scale_kernel<DT_FP8, 1><<<(unsigned)blocks, FILL_THREADS, 0, s>>>(buf, n, f, vec); break;
    }
    return CUDA_CHECK(cudaGetLastError());
}
