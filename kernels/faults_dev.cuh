/* kernels/faults_dev.cuh: what the detection kernels (fingerprint.cu, abft.cu) share: their block size and a block's
 * sum. Included by .cu files only. */
#ifndef GAUNTLET_FAULTS_DEV_CUH
#define GAUNTLET_FAULTS_DEV_CUH

#define FAULTS_THREADS 256   /* every detection kernel runs blocks of this many threads */

/* Returns the sum of v over the block (in thread 0; blockDim.x == FAULTS_THREADS). Every thread must call it. */
template <typename T> __device__ static T faults_block_sum(T v)
{
    __shared__ T part[FAULTS_THREADS / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();   /* a previous call's readers are done with part[] */
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xFFFFFFFFu, v, o);
    if (lane == 0)
        part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < FAULTS_THREADS / 32 ? part[lane] : (T)0;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xFFFFFFFFu, v, o);
    }
    return v;
}

#endif
