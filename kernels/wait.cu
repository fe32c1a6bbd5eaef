/* kernels/wait.cu: one-thread kernels that hold a stream until a GPU-clock deadline (all-reduce emulation).
 *
 * Why the wait runs on the device and not as a host sleep: the emulated phase then ends on the stream exactly
 * where a real network all-reduce would, so CUDA events, the next compute kernel and the phase events the
 * worker reports all see the same boundary as with a real network; and the GPU stays "busy in communication"
 * (a resident kernel, clocks up, the power draw of waiting on the network) instead of going idle while the host
 * sleeps. One thread spinning on %globaltimer with short __nanosleep pauses keeps the wait's own power low,
 * like NCCL kernels polling for network data: the swing between compute and communication is preserved. */
#include "wait.h"

/* Returns the GPU's global nanosecond timer. */
__device__ static inline unsigned long long wait_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Records the start of the phase. */
__global__ static void wait_stamp_kernel(unsigned long long *stamp)
{
    *stamp = wait_globaltimer();
}

/* Spins one thread until min(*stamp, own start) + duration_ns. */
__global__ static void wait_until_kernel(const unsigned long long *stamp, unsigned long long duration_ns)
{
    unsigned long long now = wait_globaltimer();
    unsigned long long from = *stamp;
    if (from > now)        /* a stamp from the future is corrupt: wait from now instead */
        from = now;
    unsigned long long end = from + duration_ns;
    while (now < end) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(256);  /* yields the issue slots; the deadline is still met to about a microsecond */
#endif
        now = wait_globaltimer();
    }
}

extern "C" cudaError_t wait_stamp(unsigned long long *stamp, cudaStream_t s)
{
    if (!stamp)
        return cudaErrorInvalidValue;
    wait_stamp_kernel<<<1, 1, 0, s>>>(stamp);
    return cudaGetLastError();
}

extern "C" cudaError_t wait_until(const unsigned long long *stamp, unsigned long long duration_ns, cudaStream_t s)
{
    if (!stamp)
        return cudaErrorInvalidValue;
    wait_until_kernel<<<1, 1, 0, s>>>(stamp, duration_ns);
    return cudaGetLastError();
}
