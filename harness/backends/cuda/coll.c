/* harness/backends/cuda/coll.c: the communication phase of a cuda rank: a non-blocking NCCL communicator and the buffer
 * it all-reduces in place, with an optional device-side emulation of a slower network.
 *
 * Non-blocking protocol (NCCL user guide: api/comms.rst "ncclCommGetAsyncError", usage/communicators.rst
 * "Creating a communicator with options", "Finalizing a communicator", "Fault Tolerance", "Asynchronous errors
 * and error handling"):
 *  - the comm is made with ncclCommInitRankConfig and config.blocking = 0, so that no NCCL call can block and
 *    ncclCommAbort can be called at any point;
 *  - "If the return code of any NCCL function is ncclInProgress ... users must query the states of the
 *    communicators until all the states become ncclSuccess before calling another NCCL function. Before the
 *    states change into ncclSuccess, users are not allowed to issue CUDA kernel to the streams being used by
 *    NCCL": every call that may return ncclInProgress (init, ncclAllReduce, finalize) is followed by
 *    coll_settle, which polls ncclCommGetAsyncError until the state leaves ncclInProgress, within a timeout;
 *  - completion is awaited as in the guide's ncclStreamSynchronize: cudaStreamQuery + ncclCommGetAsyncError;
 *  - any error, or a timeout, is fatal for the comm: ncclCommAbort ("errors are fatal for the communicator");
 *  - teardown is ncclCommFinalize, polled to ncclSuccess, then ncclCommDestroy (then a purely local call).
 *
 * Emulation: see kernels/wait.cu for why the wait runs on the device. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "coll.h"

#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "kernels.h"
#include "util.h"
#include "wait.h"

_Static_assert(COLL_ID_BYTES == NCCL_UNIQUE_ID_BYTES, "coll ids are ncclUniqueIds");
_Static_assert(sizeof(ncclUniqueId) == COLL_ID_BYTES, "ncclUniqueId is 128 bytes");

#define COLL_FP8_MIN_NCCL 22403      /* ncclFloat8e4m3 appeared in NCCL 2.24.3 */
#define COLL_FP8_MIN_CC_MAJOR 9      /* "FP8 reduction support begins with sm90 capable devices" (enqueue.cc) */
#define COLL_SPIN_NS 1000000ull      /* polls yield the CPU for the first millisecond, */
#define COLL_NAP_NS 20000ull         /* then sleep 20 us between polls: a spinning host skews CPU power */
#define COLL_FILL_SEED 0x636f6c6cull /* "coll": the buffer's fill seed, plus the rank */

struct coll {
    ncclComm_t comm;              /* NULL once aborted or destroyed */
    int nranks, rank, device;
    ncclDataType_t type;
    size_t count, bytes;
    void *buf;                    /* count elements of type, reduced in place */
    unsigned long long *stamp;    /* device word: GPU clock at the start of the emulated phase */
    unsigned long long emulate_ns;
    double emulate_s;
    double timeout_s;             /* bounds every settle poll; <= 0: no limit */
    int live;                     /* created: errors are logged as they happen */
    char err[512];
};

/* Records c's error; once c is live, also logs it (coll_create hands its errors back in err instead). */
__attribute__((format(printf, 2, 3))) static void coll_seterr(struct coll *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    if (c->live)
        gl_log("%s", c->err);
}

/* Records a failed CUDA call as c's error; returns -1, or 0 when e is cudaSuccess. */
static int coll_cuda(struct coll *c, cudaError_t e, const char *call, int line)
{
    if (e == cudaSuccess)
        return 0;
    coll_seterr(c, "rank %d: %s failed%s: %s (%s)", c->rank, call, gl_where(__FILE__, line), cudaGetErrorString(e),
                cudaGetErrorName(e));
    return -1;
}
#define COLL_CUDA(c, call) coll_cuda((c), (call), #call, __LINE__)

/* Records a failed NCCL call (r an error, or ncclInProgress for a timeout) as c's error. */
static void coll_nccl(struct coll *c, ncclResult_t r, const char *what)
{
    if (r == ncclInProgress)
        coll_seterr(c, "rank %d of %d: %s did not complete within %g s", c->rank, c->nranks, what, c->timeout_s);
    else
        coll_seterr(c, "rank %d of %d: %s failed: %s (%s)", c->rank, c->nranks, what, ncclGetErrorString(r),
                    ncclGetLastError(c->comm));
}

/* Returns whether timeout_s (<= 0: none) has passed since t0_ns. */
static int coll_expired(uint64_t t0_ns, double timeout_s)
{
    return timeout_s > 0 && (double)(mono_ns() - t0_ns) > timeout_s * 1e9;
}

/* Pauses between two polls: a yield while the wait is young, a short sleep after. */
static void coll_backoff(uint64_t t0_ns)
{
    if (mono_ns() - t0_ns < COLL_SPIN_NS)
        sched_yield();
    else
        sleep_ns(COLL_NAP_NS);
}

/* Polls comm until its state leaves ncclInProgress; returns that state, the query's own failure, or
 * ncclInProgress when timeout_s (<= 0: none) passed first. */
static ncclResult_t coll_settle(ncclComm_t comm, double timeout_s)
{
    uint64_t t0 = mono_ns();
    for (;;) {
        ncclResult_t state = ncclInProgress;
        ncclResult_t r = ncclCommGetAsyncError(comm, &state);
        if (r != ncclSuccess)
            return r;
        if (state != ncclInProgress)
            return state;
        if (coll_expired(t0, timeout_s))
            return ncclInProgress;
        coll_backoff(t0);
    }
}

int coll_make_id(unsigned char id[COLL_ID_BYTES], char *err, size_t n)
{
    ncclUniqueId uid;
    ncclResult_t r = ncclGetUniqueId(&uid);
    if (r != ncclSuccess) {
        snprintf(err, n, "ncclGetUniqueId failed: %s (%s)", ncclGetErrorString(r), ncclGetLastError(NULL));
        return -1;
    }
    memcpy(id, uid.internal, COLL_ID_BYTES);
    return 0;
}

/* Picks the NCCL type for t on c's device: fp8 needs sm_90+ and NCCL >= 2.24.3, else bf16 over the same bytes. */
static int coll_pick_type(struct coll *c, enum dtype t)
{
    c->type = coll_nccl_type(t);
    if (c->type != ncclFloat8e4m3)
        return 0;
    int major = 0, version = 0;
    if (COLL_CUDA(c, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, c->device)))
        return -1;
    ncclResult_t r = ncclGetVersion(&version);
    if (r != ncclSuccess) {
        coll_nccl(c, r, "ncclGetVersion");
        return -1;
    }
    if (major < COLL_FP8_MIN_CC_MAJOR || version < COLL_FP8_MIN_NCCL) {
        /* NCCL refuses fp8 reductions there; bf16 keeps the phase's bytes, which is what drives its power. */
        gl_log("rank %d: fp8 all-reduce needs sm_90+ and NCCL >= 2.24.3 (GPU %d is sm_%d0, NCCL %d): reducing "
               "the same bytes as bf16", c->rank, c->device, major, version);
        c->type = ncclBfloat16;
    }
    return 0;
}

/* Returns the dtype whose storage matches NCCL type t, for the fill kernel. */
static enum dtype coll_storage_dtype(ncclDataType_t t)
{
    return t == ncclFloat16 ? DT_FP16 : t == ncclFloat32 ? DT_TF32 : t == ncclFloat8e4m3 ? DT_FP8 : DT_BF16;
}

enum dtype coll_fill_dtype(struct coll *c) { return coll_storage_dtype(c->type); }

/* Checks that bytes fit in the device's free memory, naming both numbers when not. */
static int coll_check_memory(struct coll *c)
{
    size_t free_b = 0, total_b = 0;
    if (COLL_CUDA(c, cudaMemGetInfo(&free_b, &total_b)))
        return -1;
    if (c->bytes + sizeof *c->stamp > free_b) {
        coll_seterr(c, "rank %d: the all-reduce buffer needs %zu bytes (%.1f MiB) but GPU %d has %zu bytes "
                    "(%.1f MiB) free of %zu (%.1f MiB): lower workload.allreduce.bytes", c->rank, c->bytes,
                    c->bytes / 1048576.0, c->device, free_b, free_b / 1048576.0, total_b, total_b / 1048576.0);
        return -1;
    }
    return 0;
}

/* Creates the non-blocking communicator and waits until its initialization settles. */
static int coll_init_comm(struct coll *c, const unsigned char id[COLL_ID_BYTES])
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclUniqueId uid;
    memcpy(uid.internal, id, COLL_ID_BYTES);
    ncclResult_t r = ncclCommInitRankConfig(&c->comm, c->nranks, uid, c->rank, &config);
    if ((r == ncclSuccess || r == ncclInProgress) && c->comm)
        r = coll_settle(c->comm, c->timeout_s);
    else if (r == ncclSuccess)
        r = ncclInternalError;   /* success without a comm: never seen, but not to be used */
    if (r != ncclSuccess) {
        coll_nccl(c, r, "ncclCommInitRankConfig (non-blocking)");
        return -1;
    }
    return 0;
}

/* Allocates the buffer and the stamp, and fills the buffer with non-zero normal values on s. */
static int coll_alloc_fill(struct coll *c, cudaStream_t s)
{
    if (COLL_CUDA(c, cudaMalloc(&c->buf, c->bytes)) || COLL_CUDA(c, cudaMalloc((void **)&c->stamp, sizeof *c->stamp)))
        return -1;
    if (COLL_CUDA(c, cudaMemsetAsync(c->stamp, 0, sizeof *c->stamp, s)))
        return -1;
    if (kernel_fill_normal(c->buf, c->count, coll_storage_dtype(c->type), COLL_FILL_SEED + (unsigned)c->rank, 1.0f,
                           s) != 0) {
        coll_seterr(c, "rank %d: filling the all-reduce buffer failed (see the message above)", c->rank);
        return -1;
    }
    return COLL_CUDA(c, cudaStreamSynchronize(s));
}

struct coll *coll_create(const unsigned char id[COLL_ID_BYTES], int nranks, int rank, enum dtype t, size_t bytes,
                         double emulate_busbw_gbs, int emulate_ranks, cudaStream_t s, double timeout_s, char *err,
                         size_t n)
{
    struct coll *c = xcalloc(1, sizeof *c);
    c->nranks = nranks;
    c->rank = rank;
    c->timeout_s = timeout_s;
    if (!id || nranks < 1 || rank < 0 || rank >= nranks) {
        coll_seterr(c, "coll_create: rank %d of %d is not a rank (or no id was given)", rank, nranks);
        goto fail;
    }
    if ((unsigned)t >= DT_COUNT || !(emulate_busbw_gbs >= 0) || !isfinite(emulate_busbw_gbs)) {
        coll_seterr(c, "coll_create: bad dtype %d or emulated bus bandwidth %g GB/s", (int)t, emulate_busbw_gbs);
        goto fail;
    }
    if (COLL_CUDA(c, cudaGetDevice(&c->device)) || coll_pick_type(c, t))
        goto fail;
    size_t esize = coll_type_size(c->type);
    c->count = bytes / esize;
    c->bytes = c->count * esize;
    if (c->count == 0) {
        coll_seterr(c, "coll_create: %zu bytes hold no %s element", bytes, coll_type_name(c->type));
        goto fail;
    }
    if (emulate_busbw_gbs > 0) {
        c->emulate_s = coll_emulated_seconds(c->bytes, emulate_busbw_gbs, emulate_ranks > 0 ? emulate_ranks : nranks);
        c->emulate_ns = (unsigned long long)llround(c->emulate_s * 1e9);
    }
    if (coll_check_memory(c) || coll_init_comm(c, id) || coll_alloc_fill(c, s))
        goto fail;
    c->live = 1;
    return c;
fail:
    snprintf(err, n, "%s", c->err);
    coll_abort(c);     /* a half-made rank is not worth a finalize that waits on its peers */
    coll_destroy(c);
    return NULL;
}

/* The reduction: the ranks' mean, as data-parallel training takes it: each rank's buffer divided by the ranks, then
 * summed (PyTorch's DDP and FSDP divide before their ncclSum). The buffer is reduced in place and never filled again,
 * so a bare sum grew it ranks-fold every iteration (bf16 to infinity within ~128 / log2(ranks) iterations, fp16
 * within ~16 / log2(ranks), fp8 saturated in a few), and a `value` fault on it then changed nothing. Not ncclAvg:
 * NCCL runs it as a pre-multiplied sum, which has no NVLS kernels, so on an NVSwitch node it fell back to ring or
 * tree — another collective, with another length and power, than training's and `bench allreduce`'s ncclSum. One
 * rank: the sum alone, no pass over the buffer. 0, or -1 with c->err. */
static int coll_prescale(struct coll *c, void *buf, size_t count, cudaStream_t s)
{
    if (c->nranks < 2 || kernel_scale(buf, count, coll_storage_dtype(c->type), 1.0f / (float)c->nranks, s) == 0)
        return 0;
    coll_seterr(c, "rank %d: dividing the buffer by the ranks before their sum failed (see the message above)", c->rank);
    return -1;
}

int coll_allreduce(struct coll *c, cudaStream_t s)
{
    if (!c->comm) {
        gl_log("rank %d: all-reduce on an aborted communicator (%s)", c->rank, c->err[0] ? c->err : "aborted");
        return -1;
    }
    if ((c->emulate_ns && COLL_CUDA(c, wait_stamp(c->stamp, s))) || coll_prescale(c, c->buf, c->count, s))
        goto fail;
    ncclResult_t r = ncclAllReduce(c->buf, c->buf, c->count, c->type, ncclSum, c->comm, s);
    if (r == ncclInProgress)
        r = coll_settle(c->comm, c->timeout_s);   /* nothing else may touch s or the comm before this */
    if (r != ncclSuccess) {
        coll_nccl(c, r, "ncclAllReduce");
        goto fail;
    }
    /* The wait ends at stamp + emulated time: the real all-reduce counts towards it, and when the real one
     * takes longer the phase is simply the real one. */
    if (c->emulate_ns && COLL_CUDA(c, wait_until(c->stamp, c->emulate_ns, s)))
        goto fail;
    return 0;
fail:
    coll_abort(c);
    return -1;
}

int coll_step(struct coll *c, enum coll_op op, void *send, void *recv, size_t bytes, cudaStream_t s)
{
    static const char *const names[] = { "ncclAllReduce", "ncclReduceScatter", "ncclAllGather", "all-to-all",
                                         "send/recv" };
    if (!c->comm) {
        gl_log("rank %d: %s on an aborted communicator (%s)", c->rank, names[op], c->err[0] ? c->err : "aborted");
        return -1;
    }
    size_t es = coll_type_size(c->type), count = bytes / es, per = count / (size_t)c->nranks;
    char *sb = send, *rb = recv;
    ncclResult_t r = ncclSuccess;
    switch (op) {
    case COLL_ALLREDUCE:
        if (coll_prescale(c, sb, count, s))
            return -1;
        r = ncclAllReduce(sb, sb, count, c->type, ncclSum, c->comm, s);
        break;
    case COLL_REDUCE_SCATTER:   /* in place: this rank's share of the result sits at its offset */
        if (coll_prescale(c, sb, per * (size_t)c->nranks, s))
            return -1;
        r = ncclReduceScatter(sb, sb + (size_t)c->rank * per * es, per, c->type, ncclSum, c->comm, s);
        break;
    case COLL_ALL_GATHER:       /* in place: this rank's part at its offset of the gathered buffer */
        r = ncclAllGather(sb + (size_t)c->rank * per * es, sb, per, c->type, c->comm, s);
        break;
    case COLL_ALL_TO_ALL:       /* a share of bytes / ranks to every rank, one from every rank */
    case COLL_SEND_RECV: {      /* the whole message to the next rank, one from the previous (pipeline neighbours) */
        int next = (c->rank + 1) % c->nranks, prev = (c->rank + c->nranks - 1) % c->nranks;
        if ((r = ncclGroupStart()) != ncclSuccess)
            break;
        for (int p = 0; op == COLL_ALL_TO_ALL && r == ncclSuccess && p < c->nranks; p++) {
            r = ncclSend(sb + (size_t)p * per * es, per, c->type, p, c->comm, s);
            if (r == ncclSuccess)
                r = ncclRecv(rb + (size_t)p * per * es, per, c->type, p, c->comm, s);
        }
        if (op == COLL_SEND_RECV && (r = ncclSend(sb, count, c->type, next, c->comm, s)) == ncclSuccess)
            r = ncclRecv(rb, count, c->type, prev, c->comm, s);
        ncclResult_t e = ncclGroupEnd();
        if (r == ncclSuccess)
            r = e;
        break;
    }
    }
    if (r == ncclInProgress)
        r = coll_settle(c->comm, c->timeout_s);   /* nothing else may touch s or the comm before this */
    if (r != ncclSuccess) {
        coll_nccl(c, r, names[op]);
        coll_abort(c);
        return -1;
    }
    return 0;
}

int coll_wait(struct coll *c, cudaStream_t s, double timeout_s)
{
    if (!c->comm) {
        gl_log("rank %d: waiting on an aborted communicator (%s)", c->rank, c->err[0] ? c->err : "aborted");
        return -1;
    }
    uint64_t t0 = mono_ns();
    for (;;) {
        cudaError_t q = cudaStreamQuery(s);
        ncclResult_t state = ncclSuccess;
        ncclResult_t r = ncclCommGetAsyncError(c->comm, &state);
        if (r != ncclSuccess) {
            coll_nccl(c, r, "ncclCommGetAsyncError");
            break;
        }
        if (state != ncclSuccess && state != ncclInProgress) {
            coll_nccl(c, state, "the all-reduce (asynchronous error)");
            break;
        }
        if (q == cudaSuccess)
            return 0;
        if (q != cudaErrorNotReady) {
            coll_cuda(c, q, "cudaStreamQuery(s)", __LINE__);
            break;
        }
        if (coll_expired(t0, timeout_s)) {
            coll_seterr(c, "rank %d of %d: the all-reduce did not complete within %g s: aborting the communicator",
                        c->rank, c->nranks, timeout_s);
            break;
        }
        coll_backoff(t0);
    }
    coll_abort(c);
    return -1;
}

int coll_abort(struct coll *c)
{
    if (!c || !c->comm)
        return 0;
    ncclComm_t comm = c->comm;
    c->comm = NULL;
    ncclResult_t r = ncclCommAbort(comm);   /* blocking even on a non-blocking comm */
    if (r != ncclSuccess && r != ncclInProgress) {
        gl_log("rank %d: ncclCommAbort failed: %s", c->rank, ncclGetErrorString(r));
        return -1;
    }
    return 0;
}

void coll_destroy(struct coll *c)
{
    if (!c)
        return;
    if (c->comm) {
        /* Finalize only from ncclSuccess; an errored comm is aborted. */
        ncclResult_t state = ncclInProgress;
        ncclResult_t r = ncclCommGetAsyncError(c->comm, &state);
        if (r == ncclSuccess && state == ncclSuccess) {
            r = ncclCommFinalize(c->comm);
            if (r == ncclSuccess || r == ncclInProgress)
                r = coll_settle(c->comm, c->timeout_s);
        } else if (r == ncclSuccess) {
            r = state;
        }
        if (r == ncclSuccess) {
            r = ncclCommDestroy(c->comm);   /* purely local after a completed finalize */
            c->comm = NULL;
            if (r != ncclSuccess && c->live)
                gl_log("rank %d: ncclCommDestroy failed: %s", c->rank, ncclGetErrorString(r));
        } else {
            if (c->live)
                coll_nccl(c, r, "ncclCommFinalize (aborting instead)");
            coll_abort(c);
        }
    }
    if (c->buf)
        CUDA_CHECK(cudaFree(c->buf));
    if (c->stamp)
        CUDA_CHECK(cudaFree(c->stamp));
    free(c);
}

double coll_busbw_factor(int nranks)
{
    return nranks <= 1 ? 0.0 : 2.0 * (nranks - 1) / nranks;
}

double coll_emulated_seconds(size_t bytes, double busbw_gbs, int ranks)
{
    if (!(busbw_gbs > 0) || !isfinite(busbw_gbs) || ranks <= 1)
        return 0.0;
    return (double)bytes * coll_busbw_factor(ranks) / (busbw_gbs * 1e9);
}

void *coll_buffer(struct coll *c) { return c->buf; }
size_t coll_count(struct coll *c) { return c->count; }
int coll_nranks(struct coll *c) { return c->nranks; }
ncclDataType_t coll_type(struct coll *c) { return c->type; }
ncclComm_t coll_comm(struct coll *c) { return c->comm; }
double coll_emulated(struct coll *c) { return c->emulate_s; }
const char *coll_error(struct coll *c) { return c->err; }

ncclDataType_t coll_nccl_type(enum dtype t)
{
    switch (t) {
    case DT_BF16: return ncclBfloat16;
    case DT_FP16: return ncclFloat16;
    case DT_TF32: return ncclFloat32;   /* tf32 is a GEMM mode; its data are fp32 */
    case DT_FP8: return ncclFloat8e4m3; /* reductions supported by NCCL >= 2.24.3 on sm_90+ */
    default: return ncclNumTypes;
    }
}

size_t coll_type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
    }
}

const char *coll_type_name(ncclDataType_t t)
{
    static const char *const names[ncclNumTypes] = { "int8", "uint8", "int32", "uint32", "int64", "uint64", "half",
                                                     "float", "double", "bfloat16", "f8e4m3", "f8e5m2" };
    return (unsigned)t < ncclNumTypes ? names[t] : "?";
}

/* Encodes integer v in a small float of ebits/mbits (IEEE-like; e4m3 has no infinity and one NaN mantissa). */
static int coll_minifloat_put(long v, int ebits, int mbits, int e4m3, unsigned *out)
{
    unsigned sign = v < 0;
    unsigned long a = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
    unsigned mmask = (1u << mbits) - 1;
    if (a == 0) {
        *out = 0;
        return 0;
    }
    int e = 0;
    while ((a >> e) > 1)
        e++;
    int bias = (1 << (ebits - 1)) - 1;
    int field = e + bias, maxfield = e4m3 ? (1 << ebits) - 1 : (1 << ebits) - 2;
    if (field > maxfield || (e > mbits && (a & ((1ul << (e - mbits)) - 1))))
        return -1;   /* too large, or more significant bits than the mantissa holds */
    unsigned mant = (unsigned)(e >= mbits ? a >> (e - mbits) : a << (mbits - e)) & mmask;
    if (e4m3 && field == maxfield && mant == mmask)
        return -1;   /* S.1111.111 is e4m3's NaN */
    *out = (sign << (ebits + mbits)) | ((unsigned)field << mbits) | mant;
    return 0;
}

/* Decodes a small float of ebits/mbits. */
static double coll_minifloat_get(unsigned bits, int ebits, int mbits, int e4m3)
{
    unsigned emask = (1u << ebits) - 1, mmask = (1u << mbits) - 1;
    unsigned field = (bits >> mbits) & emask, mant = bits & mmask;
    int bias = (int)(emask >> 1);
    double x;
    if (field == emask && (!e4m3 || mant == mmask))
        x = (e4m3 || mant) ? NAN : INFINITY;
    else if (field == 0)
        x = ldexp(mant, 1 - bias - mbits);
    else
        x = ldexp((double)((1u << mbits) | mant), (int)field - bias - mbits);
    return (bits >> (ebits + mbits)) & 1 ? -x : x;
}

int coll_put_int(ncclDataType_t t, void *dst, long v)
{
    unsigned bits;
    switch (t) {
    case ncclInt8: { if (v < INT8_MIN || v > INT8_MAX) return -1; int8_t x = (int8_t)v; memcpy(dst, &x, 1); return 0; }
    case ncclUint8: { if (v < 0 || v > UINT8_MAX) return -1; uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); return 0; }
    case ncclInt32: { if (v < INT32_MIN || v > INT32_MAX) return -1; int32_t x = (int32_t)v; memcpy(dst, &x, 4); return 0; }
    case ncclUint32: { if (v < 0 || v > (long)UINT32_MAX) return -1; uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); return 0; }
    case ncclInt64: { int64_t x = v; memcpy(dst, &x, 8); return 0; }
    case ncclUint64: { if (v < 0) return -1; uint64_t x = (uint64_t)v; memcpy(dst, &x, 8); return 0; }
    case ncclFloat32: {
        if (v < -(1l << 24) || v > (1l << 24)) return -1;
        float x = (float)v;
        memcpy(dst, &x, 4);
        return 0;
    }
    case ncclFloat64: {
        if (v < -(1l << 53) || v > (1l << 53)) return -1;
        double x = (double)v;
        memcpy(dst, &x, 8);
        return 0;
    }
    case ncclBfloat16: {
        if (coll_minifloat_put(v, 8, 7, 0, &bits)) return -1;
        uint16_t x = (uint16_t)bits;
        memcpy(dst, &x, 2);
        return 0;
    }
    case ncclFloat16: {
        if (coll_minifloat_put(v, 5, 10, 0, &bits)) return -1;
        uint16_t x = (uint16_t)bits;
        memcpy(dst, &x, 2);
        return 0;
    }
    case ncclFloat8e4m3:
    case ncclFloat8e5m2: {
        int e4m3 = t == ncclFloat8e4m3;
        if (coll_minifloat_put(v, e4m3 ? 4 : 5, e4m3 ? 3 : 2, e4m3, &bits)) return -1;
        uint8_t x = (uint8_t)bits;
        memcpy(dst, &x, 1);
        return 0;
    }
    default:
        return -1;
    }
}

double coll_get(ncclDataType_t t, const void *src)
{
    union { int8_t i8; uint8_t u8; int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; uint16_t h; float f;
            double d; } x;
    size_t size = coll_type_size(t);
    if (size == 0)
        return NAN;
    memcpy(&x, src, size);
    switch (t) {
    case ncclInt8: return x.i8;
    case ncclUint8: return x.u8;
    case ncclInt32: return x.i32;
    case ncclUint32: return x.u32;
    case ncclInt64: return (double)x.i64;
    case ncclUint64: return (double)x.u64;
    case ncclFloat32: return x.f;
    case ncclFloat64: return x.d;
    case ncclBfloat16: return coll_minifloat_get(x.h, 8, 7, 0);
    case ncclFloat16: return coll_minifloat_get(x.h, 5, 10, 0);
    case ncclFloat8e4m3: return coll_minifloat_get(x.u8, 4, 3, 1);
    case ncclFloat8e5m2: return coll_minifloat_get(x.u8, 5, 2, 0);
    default: return NAN;
    }
}
