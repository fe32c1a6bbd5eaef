/* kernels/wait.h: device-side waits that stand in for a network all-reduce (usable from C11 and CUDA C++).
 *
 * The emulated communication phase is two one-thread kernels on the rank's stream: wait_stamp at the start of
 * the phase records the GPU clock (%globaltimer, ns) in device memory; wait_until after the real all-reduce spins
 * until that stamp plus the emulated duration. Both return the launch error (cudaSuccess when enqueued). */
#ifndef GAUNTLET_WAIT_H
#define GAUNTLET_WAIT_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues on s a one-thread kernel that writes the GPU's %globaltimer (ns) to the device word *stamp. */
cudaError_t wait_stamp(unsigned long long *stamp, cudaStream_t s);

/* Enqueues on s a one-thread kernel that spins until %globaltimer reaches *stamp + duration_ns. It never spins
 * longer than duration_ns from its own start, so a stale or corrupt stamp cannot hang the stream. */
cudaError_t wait_until(const unsigned long long *stamp, unsigned long long duration_ns, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
