/* kernels/filler.h: filler work that holds a GPU's power up while it would otherwise fall (communication,
 * checkpoints, idle gaps), and the gap kernel that releases a GEMM chain gradually (usable from C11 and CUDA C++).
 *
 * The filler is one resident block on each SM it takes (all but the SMs NCCL keeps: NCCL_MAX_CTAS, default 32),
 * on the lowest-priority stream: each block alternates tensor-core work on fresh random tiles and __nanosleep
 * over a 20 us period, the busy part being the duty. The duty may fade linearly from a start level to a floor
 * over a set time (a ramp down). The host stops it by raising a generation word in mapped host memory, without
 * waiting: every block sees it within one period. A filler never outlives its lifetime bound, so a lost stop
 * cannot hold the GPU. */
#ifndef GAUNTLET_FILLER_H
#define GAUNTLET_FILLER_H

#include <stddef.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

struct filler;

/* Prepares a filler for the current device: a lowest-priority stream, the mapped stop word. NULL with why. */
struct filler *filler_create(char *why, size_t n);
/* Starts filler work on share (0..1] of the SMs it may take, at duty duty_start, fading linearly to duty_floor over fade_s
 * (0: no fade: duty_start throughout), for at most life_s. Any filler still running is stopped first.
 * Returns 0, or -1 (logged) when the launch fails. */
int filler_start(struct filler *f, float share, float duty_start, float duty_floor, double fade_s, double life_s);
/* Says whether a filler was started and not stopped since. */
int filler_running(const struct filler *f);
/* Stops the running filler (no wait: it ends within one 20 us period); a no-op when none runs. */
void filler_stop(struct filler *f);
/* Waits until the filler's blocks are gone (for measurements). 0 or -1. */
int filler_wait(struct filler *f);
/* Frees the filler (stops it and waits first); NULL is a no-op. */
void filler_destroy(struct filler *f);

/* Enqueues on s a one-thread kernel that sleeps seconds on the GPU: the next kernel on s starts that much
 * later (the gradual release of a GEMM chain). Returns the launch error. */
cudaError_t filler_gap(double seconds, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
