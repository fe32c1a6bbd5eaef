/* harness/backends/cuda/detect.c: the cuda backend's detector hooks: abft's verification of the GEMM output, the
 * fingerprint of the reduced buffer and the weights (synchronous, or on a stream of its own beside the next compute
 * phase), the replayed GEMM, and the device time each one's work takes (CUDA events around it). */
#include <math.h>
#include <stdint.h>

#include "abft.h"
#include "backend.h"
#include "coll.h"
#include "cuda_check.h"
#include "detectors/detector.h"
#include "faults.h"
#include "gemm.h"
#include "shaper.h"
#include "cuda_int.h"
#include "cuda_rank.h"
#include "util.h"

/* Makes the two events that time a synchronous detector's work (on first use); 0, or -1 when it cannot be timed
 * (the check still runs, its device time not counted). */
static int cuda_det_events(struct cuda_rank *c)
{
    if (!c->det_e0 && (CUDA_CHECK(cudaEventCreate(&c->det_e0)) || CUDA_CHECK(cudaEventCreate(&c->det_e1)))) {
        if (c->det_e0)
            CUDA_CHECK(cudaEventDestroy(c->det_e0));
        c->det_e0 = NULL;
        return -1;
    }
    return 0;
}

/* Records the event before a synchronous detector's work on the rank's stream; 0, or -1 when it cannot be timed. */
static int cuda_det_begin(struct cuda_rank *c)
{
    return cuda_det_events(c) == 0 ? CUDA_CHECK(cudaEventRecord(c->det_e0, c->stream)) : -1;
}

/* The event that ends a timed detector's work (began: cuda_det_begin's result), for the kernel's wrapper to record
 * on the stream once its work is enqueued and before the host waits: its device time is the work's alone, not the
 * host's wake-up and the launch gap after it (they were counted until 2026-11-29); NULL when not timed. */
static cudaEvent_t cuda_det_done(struct cuda_rank *c, int began) { return began == 0 ? c->det_e1 : NULL; }

/* After the work that cuda_det_begin opened, whose wrapper recorded cuda_det_done's event (rc 0: it did): adds the
 * device time between them to det's. */
static void cuda_det_end(struct cuda_rank *c, int det, int began, int rc)
{
    float ms = 0;
    if (began == 0 && rc == 0 && CUDA_CHECK(cudaEventSynchronize(c->det_e1)) == 0 &&
        CUDA_CHECK(cudaEventElapsedTime(&ms, c->det_e0, c->det_e1)) == 0)
        c->det_dev_s[det] += (double)ms * 1e-3;
}

/* The device time of each detector's own work (backend_ops.detector_device_s). */
double cuda_detector_device_s(void *b, int det)
{
    struct cuda_rank *c = b;
    return det == DET_ABFT || det == DET_FINGERPRINT || det == DET_REPLAY ? c->det_dev_s[det] : NAN;
}

/* Huang-Abraham check of the output of the chain the run executes on the device: the checksum rows its A carries
 * (abft.h). Under workload.phases with several shapes, the chain of the run's first GEMM step (until 2026-11-30 the
 * first shape's, which another shape's runs never ran: a stale output checked, none of theirs). */
int cuda_abft(void *b, double *err, double *tol)
{
    struct cuda_rank *c = b;
    long m, n, k, col;
    enum dtype t;
    gemm_chain_dims(c->out, &m, &n, &k, &t);
    struct abft_model md = abft_model_of(t);
    /* an algorithm that adds split-K parts in the output type rounds each element that many times: the bound on
     * the checksum outputs' rounding and the tolerance take each (a split of 8 in bf16 reached 0.56 of the
     * one-rounding tolerance, emulated) */
    md.u_out *= gemm_chain_out_roundings(c->out);
    *tol = abft_tol(&md, m, k);
    /* the check records both events around its kernel (after its scratch is allocated, before its copy back) */
    int began = cuda_det_events(c);
    int rc = kernel_abft_check(c->out, err, &col, began == 0 ? c->det_e0 : NULL, cuda_det_done(c, began), c->stream);
    cuda_det_end(c, DET_ABFT, began, rc);
    if (rc != 0) {   /* the check could not run: no verdict, and no iteration taken for checked and clean */
        snprintf(c->broken, sizeof c->broken, "the abft check could not run on GPU %d (see the message above)",
                 c->device);
        return -1;
    }
    return !(*err <= *tol);
}

/* The two buffers the fingerprint hashes, slice `slice` of `slices` of each (fingerprint_slice, 16-byte aligned:
 * the kernel's vector loads stay aligned): the reduced buffer and the weights. */
static void cuda_fp_parts(struct cuda_rank *c, int slice, int slices, const void *bufs[2], size_t bytes[2])
{
    long m, n, k;
    enum dtype t;
    const void *a, *wts;
    gemm_chain_dims(c->gemm, &m, &n, &k, &t);
    gemm_chain_operands(c->gemm, &a, &wts);
    const void *whole[2] = { coll_buffer(c->coll), wts };
    size_t len[2] = { coll_count(c->coll) * coll_type_size(coll_type(c->coll)), (size_t)k * (size_t)n * dtype_size(t) };
    for (int i = 0; i < 2; i++) {
        size_t off;
        fingerprint_slice(len[i], slice, slices, 16, &off, &bytes[i]);
        bufs[i] = (const char *)whole[i] + off;
    }
}

/* Hashes the reduced buffer and the weights (slice `slice` of `slices` of each) on the device. */
int cuda_fingerprint(void *b, int slice, int slices, uint64_t *h)
{
    struct cuda_rank *c = b;
    unsigned long long h1, h2;
    const void *bufs[2];
    size_t bytes[2];
    if (!c->coll)
        return -1;
    /* each made where it is not (one that failed once is asked again: until 2026-12-02 the host sums were made only
     * with the device's, and one failure of theirs failed every fingerprint after) */
    if ((!c->fps_acc && CUDA_CHECK(cudaMalloc((void **)&c->fps_acc, 2 * sizeof *c->fps_acc))) ||
        (!c->fps_sums && CUDA_CHECK(cudaMallocHost((void **)&c->fps_sums, 2 * sizeof *c->fps_sums))))
        return -1;
    cuda_fp_parts(c, slice, slices, bufs, bytes);
    /* both hashes enqueued, then one wait: no host round trip between them inside the timed work */
    cudaEvent_t done = cuda_det_done(c, cuda_det_begin(c));
    int rc = kernel_fingerprint_async(bufs, bytes, 2, c->fps_acc, c->fps_sums, 0, c->stream) != 0 ||
             (done && CUDA_CHECK(cudaEventRecord(done, c->stream)) != 0);
    cuda_det_end(c, DET_FINGERPRINT, done ? 0 : -1, rc);
    if (CUDA_CHECK(cudaStreamSynchronize(c->stream)) || rc)   /* the sums are in */
        return -1;
    h1 = fingerprint_of_sum(c->fps_sums[0], bytes[0]);
    h2 = fingerprint_of_sum(c->fps_sums[1], bytes[1]);
    *h = (uint64_t)h1 * 0x100000001b3ull ^ (uint64_t)h2;
    return 0;
}

/* Starts the fingerprint of the reduced buffer and the weights on the fingerprint stream, after the all-reduce
 * on the rank's stream: it runs beside the next compute phase; the next all-reduce waits for it. */
int cuda_fingerprint_start(void *b, int slice, int slices)
{
    struct cuda_rank *c = b;
    if (!c->coll || c->fp_pending)
        return -1;
    /* the first use: a stream, two events, 2 words on each side; each made once, whatever failed before (a set-up
     * that failed half-way is tried again where it stopped, never taken for done) */
    if ((!c->fp_stream && CUDA_CHECK(cudaStreamCreateWithFlags(&c->fp_stream, cudaStreamNonBlocking))) ||
        (!c->fp_after && CUDA_CHECK(cudaEventCreateWithFlags(&c->fp_after, cudaEventDisableTiming))) ||
        (!c->fp_done && CUDA_CHECK(cudaEventCreate(&c->fp_done))) || (!c->fp_t0 && CUDA_CHECK(cudaEventCreate(&c->fp_t0))) ||
        (!c->fp_acc && CUDA_CHECK(cudaMalloc((void **)&c->fp_acc, 2 * sizeof *c->fp_acc))) ||
        (!c->fp_sums && CUDA_CHECK(cudaMallocHost((void **)&c->fp_sums, 2 * sizeof *c->fp_sums))) ||
        (!c->fp_wave && kernel_fingerprint_wave(&c->fp_wave)))   /* once, not inside each hash's span */
        return -1;
    const void *bufs[2];
    cuda_fp_parts(c, slice, slices, bufs, c->fp_bytes);
    if (CUDA_CHECK(cudaEventRecord(c->fp_after, c->stream)) || CUDA_CHECK(cudaStreamWaitEvent(c->fp_stream, c->fp_after, 0)))
        return -1;   /* nothing of it on the fingerprint stream yet */
    if (CUDA_CHECK(cudaEventRecord(c->fp_t0, c->fp_stream)) ||
        kernel_fingerprint_async(bufs, c->fp_bytes, 2, c->fp_acc, c->fp_sums, c->fp_wave, c->fp_stream) != 0 ||
        CUDA_CHECK(cudaEventRecord(c->fp_done, c->fp_stream))) {
        /* what was enqueued may still read the buffers, and nothing (no fp_done) would order the next exchange, a
         * corruption or a restore after it: waited for here (until 2026-11-30 it was not) */
        CUDA_CHECK(cudaStreamSynchronize(c->fp_stream));
        return -1;
    }
    c->fp_pending = 1;
    return 0;
}

/* Waits for the fingerprint in flight and gives its hash (the same as cuda_fingerprint's). */
int cuda_fingerprint_take(void *b, uint64_t *h)
{
    struct cuda_rank *c = b;
    if (!c->fp_pending)
        return 0;
    c->fp_pending = 0;
    float ms = 0;
    if (CUDA_CHECK(cudaEventSynchronize(c->fp_done)))
        return -1;
    if (CUDA_CHECK(cudaEventElapsedTime(&ms, c->fp_t0, c->fp_done)) == 0)   /* beside the compute phase */
        c->det_dev_s[DET_FINGERPRINT] += (double)ms * 1e-3;
    uint64_t h1 = fingerprint_of_sum(c->fp_sums[0], c->fp_bytes[0]), h2 = fingerprint_of_sum(c->fp_sums[1], c->fp_bytes[1]);
    *h = h1 * 0x100000001b3ull ^ h2;
    return 1;
}

void cuda_detectors_warm(struct cuda_rank *c, const struct scenario *sc)
{
    /* CUDA 13 loads each kernel at its first launch (CUDA_MODULE_LOADING=LAZY, the default since 12.2), on the host,
     * after the begin event of an idle stream: until 2026-11-30 that load (tens of us to ~1 ms) counted as the first
     * check's device time. abft's verification (one per output type among the run's chains: workload.phases' steps
     * may have dtypes of their own) and the hash (the fingerprint's and the replay's) run once here; their results
     * are not used. */
    double err;
    long col, m, n;
    enum dtype t;
    unsigned long long h;
    unsigned warmed = 0;   /* a bit per output type whose verification ran */
    struct gemm_chain *own[1] = { c->gemm }, **chains = own;
    int nc = c->steps ? cuda_steps_chains(c->steps, &chains) : 1;
    for (int i = 0; i < nc && scenario_detector_on(sc, DET_ABFT); i++) {
        gemm_chain_dims(chains[i], &m, NULL, NULL, &t);
        if (m < 3 || (warmed & (1u << elem_of_output(t))))   /* no room for checksum rows: never checked */
            continue;
        warmed |= 1u << elem_of_output(t);
        if (kernel_abft_check(chains[i], &err, &col, NULL, NULL, c->stream) != 0)
            gl_log("GPU %d: abft's warm-up failed (see the message above): its first check's time holds its load",
                   c->device);
    }
    gemm_chain_dims(c->gemm, &m, &n, NULL, &t);
    size_t d_bytes = (size_t)m * (size_t)n * elem_size(elem_of_output(t));
    if ((scenario_detector_on(sc, DET_FINGERPRINT) || scenario_detector_on(sc, DET_REPLAY)) &&
        kernel_fingerprint(gemm_chain_output(c->gemm), d_bytes < 64 ? d_bytes : 64, &h, NULL, c->stream) != 0)
        gl_log("GPU %d: the hash's warm-up failed (see the message above): its first check's time holds its load",
               c->device);
}

/* Recomputes the chain on its fixed operands and hashes the output (the weights do not change on cuda). */
int cuda_replay(void *b, uint64_t *h)
{
    struct cuda_rank *c = b;
    if (c->shaper)
        shaper_stop(c->shaper);   /* the replayed GEMMs get the whole GPU, as the compute phase does */
    long m, n, k;
    enum dtype t;
    unsigned long long hh;
    gemm_chain_dims(c->gemm, &m, &n, &k, &t);
    int began = cuda_det_begin(c);
    int rc = gemm_chain_run(c->gemm, c->stream) != 0 ||
             kernel_fingerprint(gemm_chain_output(c->gemm), (size_t)m * (size_t)n * elem_size(elem_of_output(t)), &hh,
                                cuda_det_done(c, began), c->stream) != 0;
    cuda_det_end(c, DET_REPLAY, began, rc);
    if (rc)
        return -1;
    *h = hh;
    return 0;
}
