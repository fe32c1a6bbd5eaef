/* harness/backends/cuda/coll.h: the communication phase of a cuda rank: a non-blocking NCCL communicator, the gradient
 * buffer it all-reduces in place, and an optional emulation of a slower network. Also the `gauntlet bench
 * allreduce` subcommand (bench_allreduce.c). */
#ifndef GAUNTLET_COLL_H
#define GAUNTLET_COLL_H

#include <stddef.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "dtype.h"

#define COLL_ID_BYTES 128   /* == NCCL_UNIQUE_ID_BYTES */

/* Opaque: the ncclComm_t (non-blocking), the device buffer, its NCCL type and element count, the emulation
 * settings and the last error. One per rank process; all calls from one thread (NCCL forbids any NCCL call
 * during ncclCommAbort); one communication phase in flight at a time, on one stream. */
struct coll;

/* Makes the 128-byte ncclUniqueId on rank 0's side (or the supervisor's); the caller hands the same bytes to
 * every rank's coll_create. Starts NCCL's bootstrap listener in this process. 0, or -1 with err. */
int coll_make_id(unsigned char id[COLL_ID_BYTES], char *err, size_t n);

/* Creates rank `rank` of `nranks` on the current CUDA device: ncclCommInitRankConfig with config.blocking = 0,
 * polled with ncclCommGetAsyncError until it leaves ncclInProgress (at most timeout_s; <= 0: no limit), then a
 * buffer of `bytes` (rounded down to whole elements of t) filled on s with non-zero data. fp8 uses
 * ncclFloat8e4m3 (NCCL >= 2.24 on sm_90+); elsewhere it falls back to ncclBfloat16 over the same bytes.
 * emulate_busbw_gbs > 0 stretches every communication phase to coll_emulated_seconds(bytes, emulate_busbw_gbs,
 * emulate_ranks) on the GPU clock (emulate_ranks <= 0: nranks). timeout_s also bounds every later poll of an
 * in-progress NCCL call and the finalize in coll_destroy. NULL with err on failure (the comm is aborted). */
struct coll *coll_create(const unsigned char id[COLL_ID_BYTES], int nranks, int rank, enum dtype t, size_t bytes,
                         double emulate_busbw_gbs, int emulate_ranks, cudaStream_t s, double timeout_s, char *err,
                         size_t n);

/* Enqueues the communication phase on s: ncclAllReduce in place on the buffer (the ranks' mean: the buffer divided
 * by the ranks, kernel_scale, then ncclSum, as PyTorch's DDP does; one rank: ncclSum, no pass over it), polled until
 * enqueued; with
 * emulation, framed by the device-side stamp and wait (kernels/wait.h). Does not wait for completion.
 * 0, or -1 (logged, coll_error) after which the comm is aborted. */
int coll_allreduce(struct coll *c, cudaStream_t s);

/* The collectives of workload.phases. */
enum coll_op { COLL_ALLREDUCE = 0, COLL_REDUCE_SCATTER, COLL_ALL_GATHER, COLL_ALL_TO_ALL, COLL_SEND_RECV };

/* Enqueues one collective of bytes (the whole buffer, as nccl-tests sizes it) in the communicator's type on s:
 * all-reduce, reduce-scatter and all-gather in place on send; all-to-all (bytes / ranks to each rank) and
 * send/recv (the whole message to the next rank, from the previous) from send into recv. Polled until enqueued;
 * does not wait for completion. 0, or -1 (logged, coll_error) after which the comm is aborted. */
int coll_step(struct coll *c, enum coll_op op, void *send, void *recv, size_t bytes, cudaStream_t s);

/* Waits until s has drained, polling cudaStreamQuery and ncclCommGetAsyncError (the NCCL user guide's
 * replacement for cudaStreamSynchronize). On an asynchronous NCCL error, a CUDA error or after timeout_s
 * (<= 0: no limit) it aborts the comm and returns -1 (logged, coll_error); else 0. */
int coll_wait(struct coll *c, cudaStream_t s, double timeout_s);

/* Aborts the communicator now (idempotent): for fault handling from the rank's own thread. 0, or -1 when
 * ncclCommAbort itself failed. Later coll_allreduce/coll_wait calls return -1. */
int coll_abort(struct coll *c);

/* Finalizes and destroys the comm (abort instead when it failed, or when finalize errs or outlasts the timeout),
 * then frees the buffers. NULL is a no-op. */
void coll_destroy(struct coll *c);

/* Returns the all-reduce bus-bandwidth factor of nccl-tests, 2(n-1)/n (0 for n <= 1). */
double coll_busbw_factor(int nranks);
/* Returns the seconds an all-reduce of bytes takes at busbw_gbs (1e9 B/s) across ranks:
 * bytes * 2(r-1)/r / busbw; 0 when busbw_gbs <= 0 or ranks <= 1. */
double coll_emulated_seconds(size_t bytes, double busbw_gbs, int ranks);

void *coll_buffer(struct coll *c);        /* the device buffer reduced in place */
size_t coll_count(struct coll *c);        /* its element count */
int coll_nranks(struct coll *c);          /* the ranks it spans */
ncclDataType_t coll_type(struct coll *c); /* its NCCL type (after any fp8 fallback) */
enum dtype coll_fill_dtype(struct coll *c); /* the dtype whose storage is its type's (kernel_fill_normal's) */
ncclComm_t coll_comm(struct coll *c);     /* the communicator; NULL once aborted or destroyed */
double coll_emulated(struct coll *c);     /* the emulated phase length in seconds; 0 without emulation */
const char *coll_error(struct coll *c);   /* the last error, "" when none */

/* Returns the NCCL type that carries dtype t (tf32 moves as fp32; fp8 as e4m3). */
ncclDataType_t coll_nccl_type(enum dtype t);
/* Returns the size in bytes of NCCL type t (0 for an unknown type). */
size_t coll_type_size(ncclDataType_t t);
/* Returns the nccl-tests spelling of t ("bfloat16", "half", "float", "f8e4m3", ...). */
const char *coll_type_name(ncclDataType_t t);
/* Stores the integer v as one element of t at dst; 0, or -1 (dst untouched) when t cannot hold v exactly. */
int coll_put_int(ncclDataType_t t, void *dst, long v);
/* Returns the element of t at src as a double (NAN for NaN encodings and unknown types). */
double coll_get(ncclDataType_t t, const void *src);

/* Runs `gauntlet bench allreduce`: argv[0] is the subcommand's name, options follow (--help lists them). One
 * process over the local GPUs, nccl-tests-style rows on stdout. Returns the exit code: 0, 1 (#wrong > 0),
 * 2 (bad argument, named), 3 (no usable GPU, CUDA or NCCL failure). */
int bench_allreduce_main(int argc, char **argv);

#endif
