/* kernels/kernels.h: C-callable launchers for the CUDA kernels in kernels/ (usable from C11 and CUDA C++). */
#ifndef GAUNTLET_KERNELS_H
#define GAUNTLET_KERNELS_H

#include <stddef.h>

#include <cuda_runtime.h>

#include "dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills n elements of dst (stored as t: bf16, fp16, fp32 for tf32, fp8 e4m3) with normal values of mean 0 and
 * standard deviation scale, from a counter-based hash of (seed, index): the same seed gives the same bytes on
 * every run and in any launch configuration. No element is zero (values that would round to 0 are pushed to the
 * smallest normal magnitude of t, keeping their sign); fp8 saturates to +-448, fp16 to +-65504. Asynchronous on
 * s; returns 0, or -1 (logged) when the arguments are bad or the launch fails. */
int kernel_fill_normal(void *dst, size_t n, enum dtype t, unsigned long long seed, float scale, cudaStream_t s);

/* Multiplies n elements of buf (stored as t, as kernel_fill_normal writes them) by f in place on s, rounding to
 * nearest (fp8: saturating to +-448); data-parallel training's division of its gradients by the ranks before their
 * sum. 0, or -1 (logged) when the arguments are bad or the launch fails. */
int kernel_scale(void *buf, size_t n, enum dtype t, float f, cudaStream_t s);

/* Enqueues one AdamW update (lr 1e-4, betas 0.9 / 0.999, eps 1e-8, weight decay 0.01, bias correction of step
 * >= 1) of the n fp32 parameters p from gradients g and moments m, v, in place on s. 0, or -1 (logged). */
int kernel_adamw(float *p, const float *g, float *m, float *v, size_t n, int step, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
