/* kernels/filler.cu: filler work and the gap kernel (see filler.h).
 *
 * Why resident blocks with a duty cycle rather than a stream of short kernels: the power a GPU draws follows
 * the share of time its SMs issue math, so a duty cycle over a period far below the power telemetry's (~20 us
 * against 1-100 ms) sets a steady level between idle and the compute phase's; and one launch per phase costs
 * the host nothing while the all-reduce runs. The blocks sit on the lowest-priority stream, so the NCCL kernels
 * (and the next GEMMs) are scheduled ahead of any filler block still waiting, and each block yields its issue
 * slots while it sleeps. */
#include <stdio.h>

#include "cuda_check.h"
#include "filler.h"

#define FILLER_THREADS 512
#define FILLER_PERIOD_NS 20000u

struct filler {
    cudaStream_t stream;
    volatile unsigned *stop_host;   /* mapped host memory: the generation the blocks compare with theirs */
    unsigned *stop_dev;
    unsigned gen;                   /* generation of the filler launched last */
    int running;
    int sms;
    float *sink;                    /* written only if the math were ever observed: keeps it from being dropped */
};

__device__ static inline unsigned long long filler_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One block per SM share: FMA work for duty x period, then sleep, until the stop word reaches gen. */
__global__ static void filler_kernel(const volatile unsigned *stop, unsigned gen, float duty_start, float duty_floor,
                                     unsigned long long fade_ns, unsigned long long life_ns, float *sink)
{
    __shared__ int quit;
    unsigned long long t0 = filler_globaltimer();
    float a = 1.0f + threadIdx.x * 1e-6f, b = 0.999999f, c = 1e-7f;
    for (;;) {
        unsigned long long now = filler_globaltimer();
        if (threadIdx.x == 0)
            quit = *stop >= gen || now - t0 > life_ns;
        __syncthreads();
        if (quit)
            break;
        float duty = duty_start;
        if (fade_ns > 0) {
            float x = (float)((double)(now - t0) / (double)fade_ns);
            duty = fmaxf(duty_floor, duty_start - (duty_start - duty_floor) * fminf(x, 1.0f));
        }
        unsigned long long until = now + (unsigned long long)(duty * (float)FILLER_PERIOD_NS);
        while (filler_globaltimer() < until)
#pragma unroll 16
            for (int i = 0; i < 64; i++) {
                a = fmaf(a, b, c);
                b = fmaf(b, a, -c);
            }
        unsigned rest = (unsigned)((1.0f - duty) * (float)FILLER_PERIOD_NS);
#if __CUDA_ARCH__ >= 700
        if (rest > 0)
            __nanosleep(rest);
#endif
        __syncthreads();   /* thread 0 reads quit again only after every thread has used it */
    }
    if (a == 0.0f && b == 0.0f)   /* never true for these values; the compiler cannot know */
        sink[threadIdx.x] = a + b;
}

__global__ static void filler_gap_kernel(unsigned long long ns)
{
    unsigned long long end = filler_globaltimer() + ns;
    while (filler_globaltimer() < end) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(1000);
#endif
    }
}

extern "C" struct filler *filler_create(char *why, size_t n)
{
    struct filler *f = (struct filler *)calloc(1, sizeof *f);
    int dev = 0, lo = 0, hi = 0;
    if (!f) {
        snprintf(why, n, "filler: out of memory");
        return NULL;
    }
    if (CUDA_CHECK(cudaGetDevice(&dev)) || CUDA_CHECK(cudaDeviceGetAttribute(&f->sms, cudaDevAttrMultiProcessorCount, dev)) ||
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi)) ||
        CUDA_CHECK(cudaStreamCreateWithPriority(&f->stream, cudaStreamNonBlocking, lo)) ||   /* lo: the lowest */
        CUDA_CHECK(cudaHostAlloc((void **)&f->stop_host, sizeof(unsigned), cudaHostAllocMapped)) ||
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&f->stop_dev, (void *)f->stop_host, 0)) ||
        CUDA_CHECK(cudaMalloc((void **)&f->sink, FILLER_THREADS * sizeof(float)))) {
        snprintf(why, n, "filler: cannot set up the low-priority stream and its stop word (see the message above)");
        filler_destroy(f);
        return NULL;
    }
    *f->stop_host = 0;
    return f;
}

extern "C" int filler_start(struct filler *f, float share, float duty_start, float duty_floor, double fade_s,
                            double life_s)
{
    filler_stop(f);
    share = fminf(fmaxf(share, 0.0f), 1.0f);
    duty_start = fminf(fmaxf(duty_start, 0.0f), 1.0f);
    duty_floor = fminf(fmaxf(duty_floor, 0.0f), duty_start);
    int blocks = (int)(share * (float)f->sms + 0.5f);
    if (blocks < 1 || (duty_start <= 0.0f && duty_floor <= 0.0f))
        return 0;   /* nothing to run */
    f->gen++;
    filler_kernel<<<blocks, FILLER_THREADS, 0, f->stream>>>(f->stop_dev, f->gen, duty_start, duty_floor,
                                                           (unsigned long long)(fade_s * 1e9),
                                                           (unsigned long long)(life_s * 1e9), f->sink);
    if (CUDA_CHECK(cudaGetLastError()))
        return -1;
    f->running = 1;
    return 0;
}

extern "C" void filler_stop(struct filler *f)
{
    if (!f || !f->running)
        return;
    *f->stop_host = f->gen;   /* volatile store to mapped memory: seen by the blocks over PCIe/C2C */
    __sync_synchronize();
    f->running = 0;
}

extern "C" int filler_wait(struct filler *f)
{
    filler_stop(f);
    return f ? CUDA_CHECK(cudaStreamSynchronize(f->stream)) : 0;
}

extern "C" void filler_destroy(struct filler *f)
{
    if (!f)
        return;
    if (f->stream) {
        filler_wait(f);
        CUDA_CHECK(cudaStreamDestroy(f->stream));
    }
    if (f->stop_host)
        CUDA_CHECK(cudaFreeHost((void *)f->stop_host));
    if (f->sink)
        CUDA_CHECK(cudaFree(f->sink));
    free(f);
}

extern "C" cudaError_t filler_gap(double seconds, cudaStream_t s)
{
    if (!(seconds > 0))
        return cudaSuccess;
    filler_gap_kernel<<<1, 1, 0, s>>>((unsigned long long)(seconds * 1e9));
    return cudaGetLastError();
}
