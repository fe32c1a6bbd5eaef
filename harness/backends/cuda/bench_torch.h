/* harness/backends/cuda/bench_torch.h: PyTorch's matmul timed on the same GPU (bench_torch.c). */
#ifndef GAUNTLET_BENCH_TORCH_H
#define GAUNTLET_BENCH_TORCH_H

#include <stddef.h>

#include "dtype.h"

/* Times PyTorch's m x n x k matmul of dtype t under interpreter python: the median over iters samples of count
 * matmuls each, in seconds per matmul, into *sec. 0, or -1 with why (PyTorch not installed, no GPU, no fp8). */
int bench_torch_time(const char *python, enum dtype t, long m, long n, long k, long count, long iters, double *sec,
                     char *why, size_t wn);

#endif
