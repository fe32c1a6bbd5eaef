/* kernels/filler.cu: the filler's gap kernel (see filler.h). */
#include "filler.h"

__device__ static inline unsigned long long filler_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Sleeps ns on the GPU in steps of 2 us, ending early once the stop word reaches gen. */
__global__ static void filler_gap_kernel(unsigned long long ns, const volatile unsigned *stop, unsigned gen)
{
    unsigned long long end = filler_globaltimer() + ns;
    while (filler_globaltimer() < end && *stop < gen)
        __nanosleep(2000);
}

extern "C" cudaError_t filler_gap(double seconds, const volatile unsigned *stop, unsigned gen, cudaStream_t s)
{
    if (!(seconds > 0))
        return cudaSuccess;
    filler_gap_kernel<<<1, 1, 0, s>>>((unsigned long long)(seconds * 1e9), stop, gen);
    return cudaGetLastError();
}
