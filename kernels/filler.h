/* kernels/filler.h: the device side of filler work (usable from C11 and CUDA C++). The filler itself is cuBLASLt bf16
 * GEMMs on random data, issued by a host thread (harness/backends/cuda/fillwork.c): a GPU's power follows how much
 * of its datapath toggles, and only the compute phase's own kind of work draws the compute phase's power (on an
 * H100, register-resident tensor-core tiles drew idle power at full duty; 4096^3 bf16 GEMMs drew 121 / 314 / 499 /
 * 704 W at 0 / 25 / 50 / 75 % duty). Its level is a duty: a GEMM, then a gap. The gap is this kernel: it sleeps on
 * the GPU for a set time, and ends at once when the host raises a stop word in mapped memory to its generation, so
 * a stopped filler leaves at most the GEMM in flight on the GPU. The host queues a long gap as several of these, none
 * over 1 ms (fillwork.h), so that a duty that rises meanwhile shortens it. */
#ifndef GAUNTLET_FILLER_H
#define GAUNTLET_FILLER_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues on s a one-thread kernel that sleeps seconds on the GPU, or until *stop (device view of mapped host memory)
 * reaches gen. Returns the launch error. */
cudaError_t filler_gap(double seconds, const volatile unsigned *stop, unsigned gen, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
