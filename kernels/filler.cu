/* kernels/filler.cu: filler work and the gap kernel (see filler.h).
 *
 * Why tensor-core work on fresh random data: a GPU's power follows how much of its datapath toggles, so the
 * filler runs what the compute phase runs — WMMA matrix multiplies (fp16 in, fp32 accumulate) — on operands
 * refreshed from a per-thread xorshift every period (constant operands, or FMAs that run away to a fixed
 * point or to inf, toggle almost nothing and draw little above idle). Its level is set by a duty cycle over a
 * period far below the power telemetry's (20 us against 1-100 ms).
 *
 * Why not every SM: NCCL's kernels need SMs of their own (a CTA of 640 threads with up to 96 registers does
 * not fit beside a resident filler block, and stream priority never evicts a resident block), so the filler
 * leaves FILLER_RESERVED_SMS (NCCL_MAX_CTAS when set) free and takes more than half of each SM's shared memory
 * so that exactly one filler block sits on each of the others. The GEMM chain is issued only after the filler
 * was told to stop; its blocks leave within one period. */
#include <mma.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "filler.h"

#define FILLER_THREADS 256          /* 8 warps */
#define FILLER_WARPS (FILLER_THREADS / 32)
#define FILLER_PERIOD_NS 20000u
#define FILLER_RESERVED_SMS 32      /* NCCL's default CTA limit: its all-reduce keeps these */

using namespace nvcuda;

struct filler {
    cudaStream_t stream;
    volatile unsigned *stop_host;   /* mapped host memory: the generation the blocks compare with theirs */
    unsigned *stop_dev;
    unsigned gen;                   /* generation of the filler launched last */
    int running;
    int blocks;                     /* SMs the filler takes (one block each) */
    size_t smem;                    /* dynamic shared memory per block: over half an SM's, so one block per SM */
    float *sink;                    /* written only if the result were ever observed: keeps the work alive */
};

__device__ static inline unsigned long long filler_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ static inline unsigned filler_xorshift(unsigned x)
{
    x ^= x << 13;
    x ^= x >> 17;
    return x ^ (x << 5);
}

/* One block per SM taken: each warp multiplies 16x16x16 fp16 tiles on the tensor cores for duty x period, then
 * sleeps, until the stop word reaches gen; its tiles are refreshed with random values every period. */
__global__ static void __launch_bounds__(FILLER_THREADS)
filler_kernel(const volatile unsigned *stop, unsigned gen, float duty_start, float duty_floor, unsigned long long fade_ns,
              unsigned long long life_ns, float *sink)
{
    extern __shared__ __align__(128) unsigned char filler_smem[];   /* mostly there to hold the SM */
    __shared__ int quit;
    half *tile = (half *)filler_smem + (threadIdx.x / 32) * 512;  /* a warp's A (16x16) and B (16x16) */
    int lane = threadIdx.x % 32;
    unsigned x = 0x9E3779B9u ^ (blockIdx.x * FILLER_THREADS + threadIdx.x + 1) * 2654435761u;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    float keep = 0.0f;
    unsigned long long t0 = filler_globaltimer();
    for (;;) {
        unsigned long long now = filler_globaltimer();
        if (threadIdx.x == 0)
            quit = *stop >= gen || now - t0 > life_ns;
        __syncthreads();
        if (quit)
            break;
        float duty = duty_start;
        if (fade_ns > 0) {
            float f = (float)((double)(now - t0) / (double)fade_ns);
            duty = fmaxf(duty_floor, duty_start - (duty_start - duty_floor) * fminf(f, 1.0f));
        }
        for (int i = 0; i < 16; i++) {   /* 512 fresh values in [-1, 1) per warp: 16 per lane */
            x = filler_xorshift(x);
            tile[lane * 16 + i] = __float2half((float)(int)x * 0x1p-31f);
        }
        __syncwarp();
        wmma::load_matrix_sync(fa, tile, 16);
        wmma::load_matrix_sync(fb, tile + 256, 16);
        wmma::fill_fragment(acc, 0.0f);
        unsigned long long until = now + (unsigned long long)(duty * (float)FILLER_PERIOD_NS);
        while (filler_globaltimer() < until)
            for (int i = 0; i < 8; i++)
                wmma::mma_sync(acc, fa, fb, acc);
        keep += acc.x[0];
        unsigned rest = (unsigned)((1.0f - duty) * (float)FILLER_PERIOD_NS);
        if (rest > 0)
            __nanosleep(rest);
        __syncthreads();   /* thread 0 writes quit again only after every thread has read it */
    }
    if (keep == 1234.5f)   /* practically never: the compiler cannot drop the work */
        sink[threadIdx.x] = keep;
}

__global__ static void filler_gap_kernel(unsigned long long ns)
{
    unsigned long long end = filler_globaltimer() + ns;
    while (filler_globaltimer() < end)
        __nanosleep(1000);
}

extern "C" struct filler *filler_create(char *why, size_t n)
{
    struct filler *f = (struct filler *)calloc(1, sizeof *f);
    int dev = 0, lo = 0, hi = 0, sms = 0, smem_sm = 0, smem_max = 0;
    if (!f) {
        snprintf(why, n, "filler: out of memory");
        return NULL;
    }
    if (CUDA_CHECK(cudaGetDevice(&dev)) || CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
        CUDA_CHECK(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev)) ||
        CUDA_CHECK(cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) ||
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi)) ||
        CUDA_CHECK(cudaStreamCreateWithPriority(&f->stream, cudaStreamNonBlocking, lo)) ||   /* lo: the lowest */
        CUDA_CHECK(cudaHostAlloc((void **)&f->stop_host, sizeof(unsigned), cudaHostAllocMapped)) ||
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&f->stop_dev, (void *)f->stop_host, 0)) ||
        CUDA_CHECK(cudaMalloc((void **)&f->sink, FILLER_THREADS * sizeof(float)))) {
        snprintf(why, n, "filler: cannot set up its stream, stop word and buffers (see the message above)");
        filler_destroy(f);
        return NULL;
    }
    const char *env = getenv("NCCL_MAX_CTAS");
    int reserve = env && atoi(env) > 0 ? atoi(env) : FILLER_RESERVED_SMS;
    f->blocks = sms - reserve > sms / 2 ? sms - reserve : sms / 2;
    /* over half an SM's shared memory: never two filler blocks on one SM, so `reserve` SMs stay free */
    size_t want = (size_t)smem_sm / 2 + 1024, least = FILLER_WARPS * 512 * sizeof(half);
    f->smem = want <= (size_t)smem_max ? want : least;
    if (f->smem > 48 * 1024 &&
        CUDA_CHECK(cudaFuncSetAttribute(filler_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)f->smem)))
        f->smem = least;   /* blocks may then share SMs: fewer SMs filled, NCCL's still free */
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
    int blocks = (int)(share * (float)f->blocks + 0.5f);
    if (blocks < 1 || (duty_start <= 0.0f && duty_floor <= 0.0f))
        return 0;   /* nothing to run */
    f->gen++;
    filler_kernel<<<blocks, FILLER_THREADS, f->smem, f->stream>>>(f->stop_dev, f->gen, duty_start, duty_floor,
                                                                  (unsigned long long)(fade_s * 1e9),
                                                                  (unsigned long long)(life_s * 1e9), f->sink);
    if (CUDA_CHECK(cudaGetLastError()))
        return -1;
    f->running = 1;
    return 0;
}

extern "C" int filler_running(const struct filler *f) { return f && f->running; }

extern "C" void filler_stop(struct filler *f)
{
    if (!f || !f->running)
        return;
    *f->stop_host = f->gen;   /* volatile store to mapped memory: the blocks read it with ld.volatile */
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
