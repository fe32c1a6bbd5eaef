/* harness/backends/cuda/bench_torch.h: PyTorch's matmul timed on the same GPU, as a co-process that `bench gemm`
 * asks for one sample at a time, in turn with the harness and the bare loop (bench_torch.c). */
#ifndef GAUNTLET_BENCH_TORCH_H
#define GAUNTLET_BENCH_TORCH_H

#include <stddef.h>

#include "dtype.h"

struct torch_peer;

/* Starts interpreter python (an argument vector, no shell) on the co-process's script for PyTorch's m x n x k matmul
 * of dtype t (fp8: torch._scaled_mm, e4m3 in, bf16 out, unit scales, as the harness's fp8 GEMM), operands drawn from
 * N(0, 1) as the harness's are, and waits up to timeout_s for it to be ready (PyTorch imported, operands made, three
 * matmuls run). The peer, or NULL with why (PyTorch not installed, no GPU, no fp8, no answer in time, exited). */
struct torch_peer *torch_peer_open(const char *python, enum dtype t, long m, long n, long k, double timeout_s,
                                   char *why, size_t wn);

/* One sample: one untimed matmul so that the GPU is busy when the start event is recorded, then count matmuls back
 * to back between two CUDA events; seconds per matmul into *sec. 0, or -1 with why; after a failure the peer is
 * stopped (further calls fail at once) and only torch_peer_close remains to call. */
int torch_peer_time(struct torch_peer *p, long count, double *sec, char *why, size_t wn);

/* The names of the CUDA kernels one matmul launches (torch.profiler), "; "-separated into buf: what the harness's
 * choice can be compared with. 0, or -1 with why (the profiler unavailable). Run after the timing: the profiler is
 * not in any timed sample. */
int torch_peer_kernels(struct torch_peer *p, char *buf, size_t len, char *why, size_t wn);

/* Sets how long each later request may wait for its answer (default 120 s): a peer silent longer is stopped. */
void torch_peer_set_timeout(struct torch_peer *p, double timeout_s);

/* The PyTorch version the peer reported ("" before it is ready). */
const char *torch_peer_version(const struct torch_peer *p);

/* Asks the peer to end, waits for it a few seconds, then kills it; frees p (NULL: nothing). Never blocks longer. */
void torch_peer_close(struct torch_peer *p);

#endif
