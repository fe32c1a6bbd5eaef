/* harness/backends/cuda/backend.c: the cuda backend — each rank drives one GPU: the cuBLASLt GEMM chain (gemm.c), the
 * non-blocking NCCL all-reduce (coll.c), both timed with CUDA events put on the supervisor's monotonic clock;
 * the supervisor samples NVML (nvml.c). Built only when CMake finds nvcc and NCCL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abft.h"
#include "backend.h"
#include "cuda_rules.h"
#include "numa.h"
#include "coll.h"
#include "cuda_check.h"
#include "detectors/detector.h"
#include "mitigations/mitigation.h"
#include "recovery/recovery.h"
#include "faults.h"
#include "gemm.h"
#include "devset.h"
#include "nvml.h"
#include "shaper.h"
#include "cuda_int.h"
#include "cuda_rank.h"
#include "rankplan.h"
#include "util.h"



/* Waits until no asynchronous fingerprint reads the buffers (before anything writes them). 0 or -1. */
static int cuda_fp_quiet(struct cuda_rank *c)
{
    return c->fp_pending ? CUDA_CHECK(cudaEventSynchronize(c->fp_done)) : 0;
}

/* Records the anchor event and the host time at which the GPU stamped it (the middle of the window). */
int cuda_anchor(struct cuda_rank *c)
{
    uint64_t a = mono_ns();
    if (CUDA_CHECK(cudaEventRecord(c->anchor, c->stream)) || CUDA_CHECK(cudaEventSynchronize(c->anchor)))
        return -1;
    uint64_t b = mono_ns();
    c->anchor_ns = a + (b - a) / 2;
    c->anchor_err_ns = (double)(b - a) / 2;
    return 0;
}

/* Converts a completed event to the monotonic clock. */
uint64_t cuda_event_ns(struct cuda_rank *c, cudaEvent_t e)
{
    float ms = 0;
    if (CUDA_CHECK(cudaEventElapsedTime(&ms, c->anchor, e))) {   /* a time it cannot know: the rank fails next */
        snprintf(c->broken, sizeof c->broken, "cannot read a GPU event's time on GPU %d (see the message above)",
                 c->device);
        return mono_ns();
    }
    return c->anchor_ns + (uint64_t)((double)ms * 1e6);
}

static void cuda_fini(void *b);

/* Returns rank's place among the ranks in the collective, and their number (recovery shrink lowers it). */
static int cuda_active_index(struct shm *shm, int rank, int *nactive)
{
    *nactive = (int)atomic_load(&shm->hdr->nactive);
    for (int i = 0; i < *nactive; i++)
        if (shm->hdr->active[i] == rank)
            return i;
    return -1;
}

/* Joins the communicator on the control block's unique id, as this rank's place among the active ranks. */
static struct coll *cuda_join(struct worker_ctx *w, cudaStream_t s, char *why, size_t n)
{
    const struct scenario *sc = w->sc;
    int nactive, idx = cuda_active_index(w->shm, w->rank, &nactive);
    if (idx < 0) {
        snprintf(why, n, "rank %d is not among the active ranks", w->rank);
        return NULL;
    }
    if (w->shm->hdr->nodes > 1) {   /* several nodes: one communicator over every active GPU of every node, placed
                                     * after the nodes before this one's active ranks (not verified yet) */
        idx += (int)atomic_load(&w->shm->hdr->xn.active_before);
        nactive = (int)atomic_load(&w->shm->hdr->xn.world_active);
    }
    return coll_create(w->shm->hdr->coll_id, nactive, idx, sc->workload.gemm.dtype, sc->workload.allreduce.bytes,
                       sc->workload.allreduce.emulate_busbw_gbs, (int)sc->workload.allreduce.emulate_ranks, s,
                       sc->heartbeat.startup_s, why, n);
}

/* After a recovery (inprocess, spare, shrink): leaves the old communicator and joins the new one. Not yet
 * verified on GPUs (it needs two or more). */
static int cuda_reconnect(void *b, struct worker_ctx *w)
{
    struct cuda_rank *c = b;
    if (c->coll) {
        if (!c->comm_broken)
            coll_abort(c->coll);   /* the peers are gone or rebuilding: no collective finalize */
        cuda_fp_quiet(c);          /* a fingerprint may still read its buffer */
        c->fp_pending = 0;
        coll_destroy(c->coll);
    }
    c->comm_broken = 0;
    c->coll = cuda_join(w, c->stream, w->err, sizeof w->err);
    return c->coll ? 0 : -1;
}

/* Starts rank's GPU: device, stream, GEMM chain, NCCL communicator, events, anchor. */
/* Host-to-device copy bandwidth from pinned memory: the best of 5 copies of bytes (GB/s), NAN on failure. */
static double cuda_h2d_gbs(uint64_t bytes, cudaStream_t s)
{
    void *host = NULL, *dev = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double best = NAN;
    if (CUDA_CHECK(cudaMallocHost(&host, bytes)) || CUDA_CHECK(cudaMalloc(&dev, bytes)) ||
        CUDA_CHECK(cudaEventCreate(&e0)) || CUDA_CHECK(cudaEventCreate(&e1)))
        goto out;
    memset(host, 1, bytes);
    for (int i = 0; i < 6; i++) {   /* the first is a warm-up */
        float ms = 0;
        if (CUDA_CHECK(cudaEventRecord(e0, s)) || CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)) ||
            CUDA_CHECK(cudaEventRecord(e1, s)) || CUDA_CHECK(cudaEventSynchronize(e1)) ||
            CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1)))
            goto out;
        double gbs = ms > 0 ? (double)bytes / (ms * 1e-3) / 1e9 : NAN;
        if (i > 0 && (isnan(best) || gbs > best))
            best = gbs;
    }
out:
    if (e0)
        CUDA_CHECK(cudaEventDestroy(e0));
    if (e1)
        CUDA_CHECK(cudaEventDestroy(e1));
    if (dev)
        CUDA_CHECK(cudaFree(dev));
    if (host)
        CUDA_CHECK(cudaFreeHost(host));
    return best;
}

void cuda_emit_gemm_algo(struct worker_ctx *w, const struct gemm_chain *g)
{
    struct gemm_tuning tu;
    long m, n, k;
    enum dtype t;
    char note[64];
    gemm_chain_tuning(g, &tu);
    gemm_chain_dims(g, &m, &n, &k, &t);
    double fl = gemm_flops(m, n, k);
    /* fewer candidates ran than the tuning asks: said in the note (events.jsonl's gemm) since 2026-11-30 */
    int at = snprintf(note, sizeof note, "%s %ldx%ldx%ld", dtype_name(t), m, n, k);
    if (tu.candidates < tu.asked && at > 0 && (size_t)at < sizeof note)
        snprintf(note + at, sizeof note - (size_t)at, "; %d < %d candidates", tu.candidates, tu.asked);
    worker_emit_gemm_algo(w, tu.chosen, tu.candidates, fl / tu.chosen_s * 1e-12, fl / tu.first_s * 1e-12, note);
}

static void *cuda_init(struct worker_ctx *w, char *why, size_t n)
{
    const struct scenario *sc = w->sc;
    struct cuda_rank *c = xcalloc(1, sizeof *c);
    int count = 0, prio_lo = 0, prio_hi = 0;
    /* one rank per GPU of this node, in order (CUDA_VISIBLE_DEVICES applies); a spare takes the next GPU */
    c->device = w->rank >= 0 ? w->rank : (int)(w->ctl - shm_ctl(w->shm, 0));
    c->timeout_s = sc->heartbeat.timeout_s;
    struct cudaDeviceProp prop;
    if (CUDA_CHECK(cudaGetDeviceCount(&count)) || c->device >= count || CUDA_CHECK(cudaSetDevice(c->device)) ||
        CUDA_CHECK(cudaGetDeviceProperties(&prop, c->device)) ||
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&prio_lo, &prio_hi)) ||
        CUDA_CHECK(cudaStreamCreateWithPriority(&c->stream, cudaStreamNonBlocking, prio_hi))) {   /* ahead of the filler */
        snprintf(why, n, "rank %d: cannot start GPU %d of %d (see the message above)", w->rank, c->device, count);
        free(c);
        return NULL;
    }
    /* This process's stream-ordered allocator keeps up to 64 MiB of what is freed (the detectors' scratch words
     * and column sums, a few KiB each check) rather than handing it back to the driver at every synchronisation
     * (its default) and mapping it anew at the next cudaMallocAsync, inside the iteration. No device setting. */
    cudaMemPool_t pool;
    uint64_t keep = 64ull << 20;
    if (CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, c->device)) ||
        CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep))) {
        gl_log("rank %d: the allocator's release threshold is left at its default (see the message above)", w->rank);
        (void)cudaGetLastError();   /* tolerated: not the cause of the next launch's check */
    }
    /* the host side next to the GPU: pin this worker to its GPU's NUMA node (GAUNTLET_NO_PIN=1: leave it) */
    char busid[32];
    if (cudaDeviceGetPCIBusId(busid, sizeof busid, c->device) != cudaSuccess) {
        (void)cudaGetLastError();   /* no bus id: no pinning, and no error left for the next launch's check */
    } else {
        char pwhy[256];
        w->ctl->numa_node = numa_node_of_pci(busid);
        const char *nopin = getenv("GAUNTLET_NO_PIN");
        if (w->ctl->numa_node >= 0 && !(nopin && strcmp(nopin, "1") == 0) && numa_pin(w->ctl->numa_node, pwhy, sizeof pwhy) != 0)
            gl_log("rank %d: %s", w->rank, pwhy);
        w->ctl->numa_pinned = w->ctl->numa_node >= 0 ? numa_pinned(w->ctl->numa_node) : -1;
    }
    if (sc->checks.h2d_bandwidth.on)   /* asked by an acceptance scenario only */
        w->ctl->h2d_gbs = cuda_h2d_gbs(sc->checks.h2d_bandwidth.bytes, c->stream);
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(w->ctl->device, sizeof w->ctl->device,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4],
             u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    /* the weights (B) the same on every rank, as in data parallelism and on sim: the fingerprint compares them;
     * until 2026-11-30 each rank's came from its own seed and every check of 2 ranks or more disagreed */
    uint64_t seed_a, seed_b;
    rankplan_seeds((uint64_t)sc->seed, w->rank, 0, &seed_a, &seed_b);
    c->gemm = gemm_chain_create_ab(sc->workload.gemm.dtype, sc->workload.gemm.m, sc->workload.gemm.n,
                                   sc->workload.gemm.k,
                                   sc->workload.n_steps > 0 ? cuda_steps_gemm_count(sc) : (int)sc->workload.gemm.count,
                                   seed_a, seed_b, c->stream, why, n);
    if (!c->gemm) {
        cuda_fini(c);
        return NULL;
    }
    c->out = c->gemm;
    cuda_emit_gemm_algo(w, c->gemm);
    if (w->rank < 0) {   /* a spare joins a communicator when it takes a rank over (cuda_reconnect) */
        c->coll = NULL;
    } else if (!(c->coll = cuda_join(w, c->stream, why, n))) {
        cuda_fini(c);
        return NULL;
    }
    cudaEvent_t *ev[] = { &c->anchor, &c->c0, &c->c1, &c->a0, &c->a1 };
    for (size_t i = 0; i < ARRAY_LEN(ev); i++)
        if (CUDA_CHECK(cudaEventCreate(ev[i]))) {
            snprintf(why, n, "rank %d: cudaEventCreate failed", w->rank);
            cuda_fini(c);
            return NULL;
        }
    size_t b_bytes = (size_t)sc->workload.gemm.k * (size_t)sc->workload.gemm.n * dtype_size(sc->workload.gemm.dtype);
    c->state_len = b_bytes < CUDA_STATE_BYTES ? b_bytes : CUDA_STATE_BYTES;   /* the file repeats it to its size */
    if (CUDA_CHECK(cudaMallocHost(&c->host_state, c->state_len)) || cuda_anchor(c) != 0) {
        snprintf(why, n, "rank %d: cannot allocate the checkpoint staging buffer or anchor the clock", w->rank);
        cuda_fini(c);
        return NULL;
    }
    if (shaper_create(w, c->gemm, c->stream, &c->shaper, why, n) != 0) {   /* GPU mitigations: levels measured now */
        cuda_fini(c);
        return NULL;
    }
    if (sc->workload.n_steps > 0 && !(c->steps = cuda_steps_create(c, w, why, n))) {
        cuda_fini(c);
        return NULL;
    }
    cuda_detectors_warm(c, sc);   /* outside every run's timed work */
    c->flops = gemm_flops(sc->workload.gemm.m, sc->workload.gemm.n, sc->workload.gemm.k) * (double)sc->workload.gemm.count;
    c->bytes = (double)sc->workload.allreduce.bytes;
    return c;
}

/* The compute phase: the GEMM chain between two events; reports its edges at the GPU's own times. */
static int cuda_compute(void *b, struct worker_ctx *w)
{
    struct cuda_rank *c = b;
    if (c->broken[0])
        return snprintf(w->err, sizeof w->err, "%s", c->broken), -1;
    if (mono_ns() - c->anchor_ns > CUDA_REANCHOR_NS && cuda_anchor(c) != 0)
        return snprintf(w->err, sizeof w->err, "cannot re-anchor the GPU clock"), -1;
    if (c->shaper && shaper_compute_prepare(c->shaper) != 0)   /* a stagger's wait: no compute yet (until 2026-11-30
                                                                  * the sampler's rows called it compute) */
        return snprintf(w->err, sizeof w->err, "the mitigation failed before the compute phase"), -1;
    atomic_store_explicit(&w->ctl->phase, PH_COMPUTE, memory_order_relaxed);   /* for the sampler, now */
    if (CUDA_CHECK(cudaEventRecord(c->c0, c->stream)) ||
        gemm_chain_run(c->gemm, c->stream) != 0 ||   /* whole, at full rate: no mitigation removes compute */
        CUDA_CHECK(cudaEventRecord(c->c1, c->stream)) || CUDA_CHECK(cudaEventSynchronize(c->c1))) {
        snprintf(w->err, sizeof w->err, "GEMM chain failed on GPU %d (see the message above)", c->device);
        return -1;
    }
    uint64_t t0 = cuda_event_ns(c, c->c0), t1 = cuda_event_ns(c, c->c1);
    double slow = worker_slowdown(w);
    /* a straggler: the phase lasts slow x longer at compute power, as the sim's does: the chain's GEMMs again (the
     * same D, beta = 0), as many at once as the time left holds (the GPU kept busy), until it is within half a GEMM
     * (until 2026-12-02 the GPU slept through it at idle power, a gap called compute) */
    int count = (int)w->sc->workload.gemm.count;
    double extra_s = slow > 1 ? (double)(t1 - t0) * 1e-9 * (slow - 1) : 0, gemm_s = (double)(t1 - t0) * 1e-9 / count;
    for (double left; extra_s > 0 && (left = extra_s - (double)(int64_t)(mono_ns() - t1) * 1e-9) > gemm_s / 2;) {
        long n = lround(left / gemm_s) > 1 ? lround(left / gemm_s) : 1;
        for (long j = 0; j < n; j += count)
            if (gemm_chain_run_range(c->gemm, 0, (int)(n - j < count ? n - j : count), c->stream) != 0)
                return snprintf(w->err, sizeof w->err, "GEMM chain failed on GPU %d (a straggler's)", c->device), -1;
        if (CUDA_CHECK(cudaEventRecord(c->c1, c->stream)) || CUDA_CHECK(cudaEventSynchronize(c->c1)))
            return snprintf(w->err, sizeof w->err, "GEMM chain failed on GPU %d (a straggler's)", c->device), -1;
    }
    if (extra_s > 0)
        t1 = cuda_event_ns(c, c->c1);
    worker_phase(w, PH_COMPUTE, 1, t0, 0);
    /* the gap's mitigation from the compute's end, then abft and gemm-output faults (until 2026-12-02 after them:
     * the GPU idled meanwhile, a dip the filler, the ramp and smoothing exist to prevent) */
    if (c->shaper && shaper_after_compute(c->shaper, w) != 0)
        return -1;
    worker_point(w, IP_AFTER_GEMM);
    worker_phase(w, PH_COMPUTE, 0, t1, c->flops);
    return 0;
}

/* The communication phase: the NCCL all-reduce (stretched when emulating), waited for while polling errors. */
static int cuda_allreduce(void *b, struct worker_ctx *w)
{
    struct cuda_rank *c = b;
    worker_point(w, IP_BEFORE_ALLREDUCE);
    if (c->comm_broken) {   /* comm-error: this rank's communicator was aborted */
        worker_emit_detect(w, DET_COMM, "the rank's NCCL communicator was aborted");
        shm_abort(w->shm);
        snprintf(w->err, sizeof w->err, "communicator aborted (comm-error)");
        return -1;
    }
    atomic_store_explicit(&w->ctl->phase, PH_COMM, memory_order_relaxed);
    if (c->fp_pending && CUDA_CHECK(cudaStreamWaitEvent(c->stream, c->fp_done, 0)))   /* it still reads the buffer */
        return snprintf(w->err, sizeof w->err, "cannot order the all-reduce after the fingerprint"), -1;
    if (CUDA_CHECK(cudaEventRecord(c->a0, c->stream)) || coll_allreduce(c->coll, c->stream) != 0 ||
        CUDA_CHECK(cudaEventRecord(c->a1, c->stream)) || coll_wait(c->coll, c->stream, c->timeout_s) != 0 ||
        CUDA_CHECK(cudaEventSynchronize(c->a1))) {
        snprintf(w->err, sizeof w->err, "all-reduce failed on GPU %d: %s", c->device, coll_error(c->coll));
        return -1;
    }
    worker_phase(w, PH_COMM, 1, cuda_event_ns(c, c->a0), 0);
    worker_point(w, IP_AFTER_ALLREDUCE);
    worker_phase(w, PH_COMM, 0, cuda_event_ns(c, c->a1), c->bytes);
    worker_point(w, IP_AFTER_STEP);
    return 0;
}

/* Returns what abft weighs a change of element index of the chain's output D (m rows of type e, column-major: column
 * index / m, row index % m) against, as the sim does: its column's norm over the data rows, read back now (the
 * change in it), divided by abft_scale(m) for a checksum row (whose change counts S times); NAN when it cannot be
 * read. Until 2026-11-30 cuda left it NAN, and a flip abft missed read the same as one under its tolerance. */
static double cuda_out_scale(struct cuda_rank *c, const void *d, long m, enum elem_type e, size_t index)
{
    size_t es = elem_size(e), col = index / (size_t)m;
    unsigned char *host = xmalloc((size_t)m * es);
    double q = NAN;
    if (CUDA_CHECK(cudaMemcpyAsync(host, (const unsigned char *)d + col * (size_t)m * es, (size_t)m * es,
                                   cudaMemcpyDeviceToHost, c->stream)) == 0 &&
        CUDA_CHECK(cudaStreamSynchronize(c->stream)) == 0) {
        q = 0;
        for (long r = 0; r < m - 2; r++) {
            unsigned raw = 0;
            memcpy(&raw, host + (size_t)r * es, es);   /* little-endian, as the fault kernels read it */
            double v = elem_value(raw, e);
            q += v * v;
        }
    }
    free(host);
    return sqrt(q) / ((long)(index % (size_t)m) >= m - 2 ? abft_scale(m) : 1.0);
}

/* Flips bits of one element (or perturbs its value) of a live device buffer, with the fault kernels. */
static int cuda_corrupt(void *b, struct corruption *cr, char *what, size_t n)
{
    struct cuda_rank *c = b;
    if (cuda_fp_quiet(c) != 0)
        return snprintf(what, n, "the fingerprint in flight failed"), -1;
    long m, nn, k;
    enum dtype t;
    const void *a, *wts;
    void *buf;
    size_t count;
    enum elem_type e;
    gemm_chain_dims(c->gemm, &m, &nn, &k, &t);
    gemm_chain_operands(c->gemm, &a, &wts);
    if (cr->target == TGT_GEMM_OUTPUT) {   /* the output of the chain this run executes, which abft checks */
        enum dtype to;
        gemm_chain_dims(c->out, &m, &nn, NULL, &to);
        buf = gemm_chain_output(c->out);
        count = (size_t)m * (size_t)nn;
        e = elem_of_output(to);
    } else if (cr->target == TGT_WEIGHTS) {
        buf = (void *)wts;
        count = (size_t)k * (size_t)nn;
        e = elem_of_input(t);
    } else {   /* gradients (before the all-reduce) and the reduced buffer (after): the communicated buffer */
        buf = coll_buffer(c->coll);
        count = coll_count(c->coll);
        e = elem_of_input(t == DT_FP8 ? DT_BF16 : t);
        if (coll_type(c->coll) == ncclFloat8e4m3)
            e = ELEM_FP8;
        else if (coll_type(c->coll) == ncclFloat32)
            e = ELEM_FP32;
    }
    struct flip_report rep;
    int rc = cr->where == FLIP_VALUE ? kernel_perturb(buf, count, e, cr->value, cr->seed, &rep, c->stream)
                                     : kernel_bitflip(buf, count, e, cr->bits, cr->where, cr->seed, &rep, c->stream);
    if (rc != 0) {
        snprintf(what, n, "the fault kernel failed (see the message above)");
        return -1;
    }
    cr->out.format = e == ELEM_FP32 ? FMT_FP32 : e == ELEM_FP8 ? FMT_FP8E4M3 : e == ELEM_FP16 ? FMT_FP16 : FMT_BF16;
    cr->out.element = (int64_t)rep.index;
    cr->out.mask = rep.old_bits ^ rep.new_bits;
    cr->out.old_v = rep.old_value;
    cr->out.new_v = rep.new_value;
    if (cr->target == TGT_GEMM_OUTPUT)
        cr->out.scale = cuda_out_scale(c, buf, m, e, rep.index);
    snprintf(what, n, "element %zu: %.9g -> %.9g", rep.index, rep.old_value, rep.new_value);
    return 0;
}

/* Hangs the rank on the device: a kernel spins on its stream on a flag nobody sets; the host waits on it. */
static void cuda_hang(void *b)
{
    struct cuda_rank *c = b;
    /* the flag zeroed on the kernel's own stream: a memset on the legacy stream is not ordered before a non-blocking
     * stream's kernel, which could read recycled memory, find it set and not hang */
    if (CUDA_CHECK(cudaMalloc((void **)&c->hang_flag, sizeof(int))) ||
        CUDA_CHECK(cudaMemsetAsync(c->hang_flag, 0, sizeof(int), c->stream)) || kernel_hang(c->hang_flag, c->stream) != 0)
        return;
    CUDA_CHECK(cudaStreamSynchronize(c->stream));   /* never returns: the rank is alive and stuck */
}

/* Aborts this rank's NCCL communicator: its next all-reduce fails, its peers' time out. */
static int cuda_break_comm(void *b, char *what, size_t n)
{
    struct cuda_rank *c = b;
    c->comm_broken = 1;
    coll_abort(c->coll);
    snprintf(what, n, "ncclCommAbort on this rank's communicator");
    return 0;
}

/* Loads a state saved by cuda_snapshot back into the weights. */
static int cuda_restore(void *b, const void *state, size_t len)
{
    struct cuda_rank *c = b;
    const void *a, *wts;
    if (len != c->state_len || cuda_fp_quiet(c) != 0)
        return -1;
    gemm_chain_operands(c->gemm, &a, &wts);
    if (CUDA_CHECK(cudaMemcpyAsync((void *)wts, state, len, cudaMemcpyHostToDevice, c->stream)) ||
        CUDA_CHECK(cudaStreamSynchronize(c->stream)))
        return -1;
    return 0;
}

/* Copies the first MiB of the weights (the GEMM's B) to the host for a checkpoint. */
static int cuda_snapshot(void *b, const void **state, size_t *len)
{
    struct cuda_rank *c = b;
    const void *a, *wts;
    gemm_chain_operands(c->gemm, &a, &wts);
    size_t n = c->state_len;
    if (CUDA_CHECK(cudaMemcpyAsync(c->host_state, wts, n, cudaMemcpyDeviceToHost, c->stream)) ||
        CUDA_CHECK(cudaStreamSynchronize(c->stream)))
        return -1;
    *state = c->host_state;
    *len = n;
    return 0;
}

static double cuda_device_bytes(void *b)
{
    (void)b;
    size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
        (void)cudaGetLastError();   /* no figure, and no error left for the next launch's check */
        return NAN;
    }
    return (double)(total - free_b);
}

/* Returns half the window in which the GPU stamped the anchor event: the error of every phase time. */
static double cuda_clock_error(void *b) { return ((struct cuda_rank *)b)->anchor_err_ns * 1e-9; }

/* A run starts: the GPU mitigation takes the run's settings (and tunes its levels the first time). */
static int cuda_begin_run(void *b, struct worker_ctx *w)
{
    struct cuda_rank *c = b;
    return c->shaper ? shaper_begin_run(c->shaper, w) : 0;
}

/* The rank goes idle (its run ended, a pause): no filler holds the power up meanwhile. */
static void cuda_idle(void *b)
{
    struct cuda_rank *c = b;
    if (c->shaper)
        shaper_stop(c->shaper);
}

static void cuda_fini(void *b)
{
    struct cuda_rank *c = b;
    if (!c)
        return;
    cuda_fp_quiet(c);   /* nothing may still read the buffers freed below */
    /* the communicator first, bounded (finalized within its timeout, else aborted): an iteration that failed
     * half-way may have left a collective on the steps' side stream that only a peer gone could complete, and the
     * side stream's synchronisation below would otherwise wait for it for ever; then the mitigation, whose filler's
     * chain is freed (cudaFree may wait for the whole device: until 2026-11-30 it came before the communicator) */
    if (c->coll)
        coll_destroy(c->coll);
    c->coll = NULL;
    shaper_destroy(c->shaper);
    cuda_steps_destroy(c->steps);
    if (c->gemm)
        gemm_chain_destroy(c->gemm);
    cudaEvent_t ev[] = { c->anchor, c->c0, c->c1, c->a0, c->a1 };
    for (size_t i = 0; i < ARRAY_LEN(ev); i++)
        if (ev[i])
            CUDA_CHECK(cudaEventDestroy(ev[i]));
    if (c->host_state)
        CUDA_CHECK(cudaFreeHost(c->host_state));
    if (c->hang_flag)
        CUDA_CHECK(cudaFree(c->hang_flag));
    if (c->fp_stream)
        CUDA_CHECK(cudaStreamDestroy(c->fp_stream));
    if (c->fp_after)
        CUDA_CHECK(cudaEventDestroy(c->fp_after));
    if (c->fp_done)
        CUDA_CHECK(cudaEventDestroy(c->fp_done));
    if (c->fp_t0)
        CUDA_CHECK(cudaEventDestroy(c->fp_t0));
    if (c->det_e0)
        CUDA_CHECK(cudaEventDestroy(c->det_e0));
    if (c->det_e1)
        CUDA_CHECK(cudaEventDestroy(c->det_e1));
    if (c->fp_acc)
        CUDA_CHECK(cudaFree(c->fp_acc));
    if (c->fp_sums)
        CUDA_CHECK(cudaFreeHost(c->fp_sums));
    if (c->fps_acc)
        CUDA_CHECK(cudaFree(c->fps_acc));
    if (c->fps_sums)
        CUDA_CHECK(cudaFreeHost(c->fps_sums));
    if (c->stream)
        CUDA_CHECK(cudaStreamDestroy(c->stream));
    free(c);
}

static size_t cuda_state_bytes(const struct scenario *sc)
{
    (void)sc;
    return CUDA_STATE_BYTES;
}

const struct backend_ops backend_cuda = {
    .version = BACKEND_OPS_VERSION,
    .name = "cuda",
    .state_bytes = cuda_state_bytes,
    .help = "NVIDIA GPUs: cuBLASLt GEMM, NCCL all-reduce, NVML power",
    .probe = cuda_probe,
    .check = cuda_check,
    .check_scenario = cuda_check_scenario,
    .prepare = cuda_prepare,
    .power_open = cuda_power_open,
    .power_read = cuda_power_read,
    .sensor_source = cuda_sensor_source,
    .power_close = cuda_power_close,
    .power_info = cuda_power_info,
    .device_count = cuda_device_count,
    .set_power_limit = cuda_set_power_limit,
    .set_smoothing = cuda_set_smoothing,
    .restore_settings = cuda_restore_settings,
    .init = cuda_init,
    .begin_run = cuda_begin_run,
    .idle = cuda_idle,
    .compute = cuda_compute,
    .allreduce = cuda_allreduce,
    .steps = cuda_steps_iter,
    .replay_iter = cuda_replay_iter,
    .snapshot = cuda_snapshot,
    .device_bytes = cuda_device_bytes,
    .clock_error = cuda_clock_error,
    .corrupt = cuda_corrupt,
    .hang = cuda_hang,
    .break_comm = cuda_break_comm,
    .abft = cuda_abft,
    .detector_device_s = cuda_detector_device_s,
    .fingerprint = cuda_fingerprint,
    .fingerprint_start = cuda_fingerprint_start,
    .fingerprint_take = cuda_fingerprint_take,
    .replay = cuda_replay,
    .restore = cuda_restore,
    .reconnect = cuda_reconnect,
    .fini = cuda_fini,
};
