/* kernels/fingerprint.cu: a buffer's fingerprint on the device (a sum of a bijective mix of every 64-bit word at
 * its position, exact in integers, so any grid gives the same result), synchronous or on a side stream, and its
 * host twin. */
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "util.h"
#include "cuda_check.h"
#include "faults.h"
#include "faults_dev.cuh"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fingerprint.cu hashes words as little-endian bytes"
#endif

#define FAULTS_GOLDEN 0x9E3779B97F4A7C15ull
#define FP_LENGTH_KEY 0xD6E8FEB86659FD93ull     /* mixed with the length into the fingerprint */
#define FP_UNROLL 4                             /* 16-byte loads in flight per thread */

/* Returns the SplitMix64 finaliser of z: a bijective 64-bit mix with good avalanche. */
__host__ __device__ static inline unsigned long long faults_mix(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Returns word i's term of the fingerprint sum: a bijection of the word, different at every position. */
__host__ __device__ static inline unsigned long long fp_term(unsigned long long w, unsigned long long i)
{
    return faults_mix(w + (i + 1ull) * FAULTS_GOLDEN);
}

/* Returns the fingerprint of a buffer of bytes whose terms sum to sum (a bijection of sum). */
static unsigned long long fp_final(unsigned long long sum, size_t bytes)
{
    return faults_mix(sum ^ faults_mix((unsigned long long)bytes ^ FP_LENGTH_KEY));
}

/* Returns the terms of the two 64-bit words of 16-byte vector v. */
__device__ static inline unsigned long long fp_vec_terms(uint4 x, size_t v)
{
    unsigned long long lo = x.x | ((unsigned long long)x.y << 32), hi = x.z | ((unsigned long long)x.w << 32);
    return fp_term(lo, 2 * (unsigned long long)v) + fp_term(hi, 2 * (unsigned long long)v + 1);
}

/* Returns 64-bit word w of a buffer of bytes, read byte by byte, zero-padded past the end. */
__device__ static inline unsigned long long fp_word_bytes(const unsigned char *p, size_t bytes, size_t w)
{
    unsigned long long x = 0;
    size_t at = w * 8;
    for (int b = 0; b < 8 && at + b < bytes; b++)
        x |= (unsigned long long)p[at + b] << (8 * b);
    return x;
}

/* Adds the fingerprint terms of the buffer into *acc, in chunks of FP_BLOCK_VECS 16-byte vectors ([0, nvec)):
 * block b hashes chunks b, b + gridDim.x, ... The words from first_word on (a buffer that is not 16-byte aligned,
 * or its last < 16 bytes) are read by bytes, spread over the grid. Integer sums are exact, so the grid does not
 * change the result. The grid (fp_launch): one block per chunk where the hash has the GPU to itself (blocks
 * that end after 128 KiB; 3.3 TB/s on an H200 against 2.7 for one wave of grid-striding blocks), one wave of
 * long-running blocks beside a compute phase (the async fingerprint: on the H200, 2026-11-28, short blocks
 * interleaved with the GEMMs over 7 ms and cost the iteration +4.5 %; one wave of blocks striding over single
 * vectors, this kernel's form before chunks, +2.2 %). */
#define FP_BLOCK_VECS ((size_t)FAULTS_THREADS * FP_UNROLL * 8)   /* 128 KiB a chunk */
#define FP_BLOCK_WORDS ((size_t)FAULTS_THREADS * 32)              /* words read by bytes per block, at most */
__global__ static void fp_kernel(const uint4 *vec, size_t nvec, const unsigned char *raw, size_t bytes,
                                 size_t first_word, unsigned long long *acc)
{
    size_t nwords = (bytes + 7) / 8;
    unsigned long long sum = 0;
    for (size_t base = (size_t)blockIdx.x * FP_BLOCK_VECS; base < nvec; base += (size_t)gridDim.x * FP_BLOCK_VECS) {
        size_t end = base + FP_BLOCK_VECS < nvec ? base + FP_BLOCK_VECS : nvec, v = base + threadIdx.x;
        for (; v + (FP_UNROLL - 1) * FAULTS_THREADS < end; v += FP_UNROLL * FAULTS_THREADS) {
            uint4 x[FP_UNROLL];
#pragma unroll
            for (int u = 0; u < FP_UNROLL; u++)
                x[u] = __ldcs(vec + v + u * FAULTS_THREADS);   /* streaming: a large buffer would only evict L2 */
#pragma unroll
            for (int u = 0; u < FP_UNROLL; u++)
                sum += fp_vec_terms(x[u], v + u * FAULTS_THREADS);
        }
        for (; v < end; v += FAULTS_THREADS)
            sum += fp_vec_terms(__ldcs(vec + v), v);
    }
    size_t stride = (size_t)gridDim.x * FAULTS_THREADS;
    for (size_t w = first_word + (size_t)blockIdx.x * FAULTS_THREADS + threadIdx.x; w < nwords; w += stride)
        sum += fp_term(fp_word_bytes(raw, bytes, w), w);
    sum = faults_block_sum(sum);
    if (threadIdx.x == 0 && sum)
        atomicAdd(acc, sum);
}

/* Enqueues the kernel that adds buffer buf's terms into *acc (zeroed before): one block per chunk, or (max_blocks > 0)
 * at most max_blocks. 0, or -1 (logged). */
static int fp_launch(const void *buf, size_t bytes, unsigned long long *acc, unsigned max_blocks, cudaStream_t s)
{
    if (bytes == 0)
        return 0;
    size_t nvec = (uintptr_t)buf % 16 == 0 ? bytes / 16 : 0, first_word = 2 * nvec, nwords = (bytes + 7) / 8;
    size_t blocks = (nvec + FP_BLOCK_VECS - 1) / FP_BLOCK_VECS, by_words = (nwords - first_word + FP_BLOCK_WORDS - 1) / FP_BLOCK_WORDS;
    blocks = blocks > by_words ? blocks : by_words;
    if (max_blocks > 0 && blocks > max_blocks)
        blocks = max_blocks;
    if (blocks < 1)
        blocks = 1;
    if (blocks > 0x7fffffffu)
        blocks = 0x7fffffffu;   /* the blocks stride over the chunks */
    fp_kernel<<<(unsigned)blocks, FAULTS_THREADS, 0, s>>>((const uint4 *)buf, nvec, (const unsigned char *)buf, bytes,
                                                          first_word, acc);
    return CUDA_CHECK(cudaGetLastError());
}

/* until 2026-11-30 fp_launch asked the occupancy of every one-wave launch, inside the hash's timed span: now its
 * caller asks once */
extern "C" int kernel_fingerprint_wave(unsigned *blocks)
{
    int dev = 0, sms = 0, per_sm = 0;
    if (!blocks || CUDA_CHECK(cudaGetDevice(&dev)) ||
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fp_kernel, FAULTS_THREADS, 0)))
        return -1;
    *blocks = (unsigned)(sms > 0 ? sms : 1) * (unsigned)(per_sm > 0 ? per_sm : 1);
    return 0;
}

extern "C" int kernel_fingerprint_async(const void *const *bufs, const size_t *bytes, int parts, unsigned long long *acc,
                                        unsigned long long *host_sums, unsigned max_blocks, cudaStream_t s)
{
    if (parts < 1 || !bufs || !bytes || !acc || !host_sums) {
        gl_log("kernel_fingerprint_async: bad arguments (%d parts)", parts);
        return -1;
    }
    if (CUDA_CHECK(cudaMemsetAsync(acc, 0, (size_t)parts * sizeof *acc, s)))
        return -1;
    for (int i = 0; i < parts; i++)
        if ((!bufs[i] && bytes[i]) || fp_launch(bufs[i], bytes[i], acc + i, max_blocks, s) != 0)
            return -1;
    return CUDA_CHECK(cudaMemcpyAsync(host_sums, acc, (size_t)parts * sizeof *acc, cudaMemcpyDeviceToHost, s));
}

extern "C" unsigned long long fingerprint_of_sum(unsigned long long sum, size_t bytes) { return fp_final(sum, bytes); }

extern "C" int kernel_fingerprint(const void *buf, size_t bytes, unsigned long long *out_hash, cudaEvent_t done,
                                  cudaStream_t s)
{
    if (!out_hash || (!buf && bytes)) {
        gl_log("kernel_fingerprint: bad arguments (buf %p, bytes %zu, out %p)", buf, bytes, (void *)out_hash);
        return -1;
    }
    if (bytes == 0) {
        *out_hash = fp_final(0, 0);
        return done ? CUDA_CHECK(cudaEventRecord(done, s)) : 0;
    }
    unsigned long long *acc = NULL, sum = 0;
    int rc = -1;
    if (CUDA_CHECK(cudaMallocAsync((void **)&acc, sizeof *acc, s)))
        return -1;
    /* the work's end, recorded before the copy: a copy to pageable memory (sum) returns only once it is done, and an
     * event recorded after it stamped the host's wake-up (until 2026-11-29) */
    if (CUDA_CHECK(cudaMemsetAsync(acc, 0, sizeof *acc, s)) == 0 && fp_launch(buf, bytes, acc, 0, s) == 0 &&
        (!done || CUDA_CHECK(cudaEventRecord(done, s)) == 0) &&
        CUDA_CHECK(cudaMemcpyAsync(&sum, acc, sizeof sum, cudaMemcpyDeviceToHost, s)) == 0)
        rc = 0;
    if (CUDA_CHECK(cudaFreeAsync(acc, s)) || CUDA_CHECK(cudaStreamSynchronize(s)))
        rc = -1;
    if (rc == 0)
        *out_hash = fp_final(sum, bytes);
    return rc;
}

extern "C" unsigned long long fingerprint_host(const void *buf, size_t bytes)
{
    const unsigned char *p = (const unsigned char *)buf;
    unsigned long long sum = 0;
    for (size_t i = 0, at = 0; at < bytes; i++, at += 8) {
        unsigned long long w = 0;
        memcpy(&w, p + at, bytes - at < 8 ? bytes - at : 8);
        sum += fp_term(w, i);
    }
    return fp_final(sum, bytes);
}

