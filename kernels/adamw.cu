/* kernels/adamw.cu: a fused AdamW update over fp32 buffers — the optimizer step of workload.phases, memory-bound:
 * it reads p, g, m, v and writes p, m, v (7 x 4 bytes an element). */
#include <math.h>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "kernels.h"
#include "util.h"

#define ADAMW_THREADS 256
#define ADAMW_MAX_BLOCKS 65535u

__global__ static void adamw_kernel(float *p, const float *g, float *m, float *v, size_t n, float lr, float b1,
                                    float b2, float eps, float wd, float c1, float c2)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float gi = g[i];
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] -= lr * ((mi / c1) / (sqrtf(vi / c2) + eps) + wd * p[i]);
    }
}

extern "C" int kernel_adamw(float *p, const float *g, float *m, float *v, size_t n, int step, cudaStream_t s)
{
    if (!p || !g || !m || !v || n == 0 || step < 1) {
        gl_log("kernel_adamw: bad arguments (n %zu, step %d)", n, step);
        return -1;
    }
    const float b1 = 0.9f, b2 = 0.999f;
    float c1 = 1.0f - powf(b1, (float)step), c2 = 1.0f - powf(b2, (float)step);
    size_t blocks = (n + ADAMW_THREADS - 1) / ADAMW_THREADS;
    unsigned grid = blocks > ADAMW_MAX_BLOCKS ? ADAMW_MAX_BLOCKS : (unsigned)blocks;
    adamw_kernel<<<grid, ADAMW_THREADS, 0, s>>>(p, g, m, v, n, 1e-4f, b1, b2, 1e-8f, 0.01f, c1, c2);
    return CUDA_CHECK(cudaGetLastError()) ? -1 : 0;
}
