/* harness/backends/cuda/steps.c: workload.phases on the GPU. The whole iteration is enqueued at once — each GEMM
 * step a cuBLASLt chain (one chain per distinct shape, run for the step's count), each communication an NCCL call
 * on the rank's communicator, the optimizer a fused AdamW kernel, idle a one-thread wait kernel — between CUDA
 * events, and waited for once at its end (polling NCCL's errors): no host synchronisation inside the iteration.
 * An overlapped communication runs on a second stream: it waits (by event) for what the main stream has issued
 * before it, and the next step of another kind (and the iteration's end) waits for it by event. After the wait,
 * every step's edges are reported at the GPU's own times (docs/scenarios.md "Phases").
 *
 * The gradient exchange step runs on the communicator's own buffer (the data the fingerprint hashes and the faults
 * corrupt) and leaves every rank the ranks' mean of it, as sim's all-reduce does: a reduce_scatter exchange is
 * followed, inside its step, by the all-gather of the shares (FSDP's pair; rankplan_grad_colls). The other
 * collectives run on a buffer of their own. The faults due before the exchange (gradients, comm-error) are carried
 * out before the iteration is enqueued, so its exchange carries them, as on sim (until 2026-11-30 they came after
 * it, and that iteration's fingerprint saw a gradient flip on one rank only); the other faults and the checks run
 * after the iteration (the steps are enqueued together), on the output of the run's first GEMM step's chain. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_rank.h"
#include "detectors/detector.h"
#include "kernels.h"
#include "rankplan.h"
#include "util.h"
#include "wait.h"

#define STEPS_OPT_ELEMS (64u << 20)   /* fp32 elements of each optimizer buffer (256 MiB): larger updates loop */

struct cuda_steps {
    struct gemm_chain *chain[RANKPLAN_MAX_CHAINS];   /* chain[0] is the rank's own (c->gemm): not freed here */
    int n_chains;
    int which[SC_MAX_STEPS];           /* a GEMM step's chain (rankplan_chains) */
    char *send, *recv;                 /* the other collectives' buffers */
    double straggle_carry[RANKPLAN_MAX_CHAINS];   /* per chain: a straggler's fraction of a GEMM not yet run */
    size_t comm_bytes;
    float *opt[4];                     /* p, g, m, v */
    size_t opt_elems;
    unsigned long long *stamp;         /* the idle step's wait kernel */
    cudaStream_t side;                 /* overlapped communication */
    cudaEvent_t begin[SC_MAX_STEPS], end[SC_MAX_STEPS], fork[SC_MAX_STEPS], join[SC_MAX_STEPS];
    int opt_step;
};

int cuda_steps_chains(struct cuda_steps *st, struct gemm_chain ***chains)
{
    *chains = st->chain;
    return st->n_chains;
}

int cuda_steps_gemm_count(const struct scenario *sc)
{
    int64_t count = 1;
    for (int j = 0; j < sc->workload.n_steps; j++) {
        const struct step *q = &sc->workload.steps[j];
        if (q->kind == ST_GEMM && q->m == sc->workload.gemm.m && q->n == sc->workload.gemm.n &&
            q->k == sc->workload.gemm.k && q->dtype == sc->workload.gemm.dtype && q->count > count)
            count = q->count;
    }
    return (int)count;
}

struct cuda_steps *cuda_steps_create(struct cuda_rank *c, struct worker_ctx *w, char *why, size_t n)
{
    const struct scenario *sc = w->sc;
    struct cuda_steps *st = xcalloc(1, sizeof *st);
    size_t opt = 0;
    int make[RANKPLAN_MAX_CHAINS];
    int64_t count[RANKPLAN_MAX_CHAINS];
    int chains = rankplan_chains(sc, st->which, make, count);
    if (chains < 1) {
        if (chains < 0)
            snprintf(why, n, "workload.phases: more than %d GEMM shapes", RANKPLAN_MAX_CHAINS);
        else
            snprintf(why, n, "workload.phases: no GEMM step");
        goto fail;
    }
    st->chain[st->n_chains++] = c->gemm;   /* the first GEMM step's shape, made with cuda_steps_gemm_count GEMMs */
    for (int k = 1; k < chains; k++) {     /* each other shape's, its weights the same on every rank (rankplan.h) */
        const struct step *p = &sc->workload.steps[make[k]];
        uint64_t seed_a, seed_b;
        rankplan_seeds((uint64_t)sc->seed, w->rank, make[k] + 1, &seed_a, &seed_b);
        if (!(st->chain[st->n_chains] = gemm_chain_create_ab(p->dtype, p->m, p->n, p->k, (int)count[k], seed_a, seed_b,
                                                             c->stream, why, n)))
            goto fail;
        st->n_chains++;
    }
    for (int i = 0; i < sc->workload.n_steps; i++) {
        const struct step *p = &sc->workload.steps[i];
        if (step_class_of(p->kind) == SCL_COMM && p->bytes > st->comm_bytes)
            st->comm_bytes = p->bytes;
        if (p->kind == ST_OPTIMIZER && p->bytes / 4 > opt)
            opt = p->bytes / 4;
    }
    for (int k = 1; k < st->n_chains; k++)   /* every other shape's tuning too (cuda_init said the first's) */
        cuda_emit_gemm_algo(w, st->chain[k]);
    st->opt_elems = opt < STEPS_OPT_ELEMS ? opt : STEPS_OPT_ELEMS;
    int prio_lo = 0, prio_hi = 0;   /* the overlapped collective's stream as high as the compute's: at the lowest
                                     * (until 2026-12-02) its blocks waited behind the whole GEMM chain, no overlap */
    if (CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&prio_lo, &prio_hi)) ||
        CUDA_CHECK(cudaStreamCreateWithPriority(&st->side, cudaStreamNonBlocking, prio_hi)) ||
        CUDA_CHECK(cudaMalloc((void **)&st->stamp, sizeof *st->stamp)) ||
        (st->comm_bytes && (CUDA_CHECK(cudaMalloc((void **)&st->send, st->comm_bytes)) ||
                            CUDA_CHECK(cudaMalloc((void **)&st->recv, st->comm_bytes)) ||
                            CUDA_CHECK(cudaMemsetAsync(st->recv, 0, st->comm_bytes, c->stream)))))
        goto cuda_fail;
    /* the other collectives' data and the optimizer's parameters and gradients random, as the GEMMs' are: zeros move
     * and toggle no bits, and their phases read idle-like power (until 2026-12-02 all were zero, and AdamW with g = 0
     * wrote zeros for ever); the moments start at 0, as an optimizer's do */
    if (st->comm_bytes && c->coll &&   /* a spare has no communicator yet: its buffer stays 0 until it takes a rank */
        kernel_fill_normal(st->send, st->comm_bytes / coll_type_size(coll_type(c->coll)), coll_fill_dtype(c->coll),
                           (unsigned long long)sc->seed * 31 + 7 + (unsigned long long)w->rank, 1.0f, c->stream) != 0)
        goto cuda_fail;
    if (st->comm_bytes && !c->coll && CUDA_CHECK(cudaMemsetAsync(st->send, 0, st->comm_bytes, c->stream)))
        goto cuda_fail;
    for (int k = 0; k < 4 && st->opt_elems; k++)
        if (CUDA_CHECK(cudaMalloc((void **)&st->opt[k], st->opt_elems * sizeof(float))) ||
            (k < 2 ? kernel_fill_normal(st->opt[k], st->opt_elems, DT_TF32, (unsigned long long)sc->seed * 131 + 11 +
                                        (unsigned long long)(4 * w->rank + k), k == 0 ? 1.0f : 0.01f, c->stream) != 0
                   : CUDA_CHECK(cudaMemsetAsync(st->opt[k], 0, st->opt_elems * sizeof(float), c->stream))))
            goto cuda_fail;
    for (int i = 0; i < sc->workload.n_steps; i++) {
        cudaEvent_t *ev[] = { &st->begin[i], &st->end[i], &st->fork[i], &st->join[i] };
        for (size_t k = 0; k < ARRAY_LEN(ev); k++)
            if (CUDA_CHECK(cudaEventCreate(ev[k])))
                goto cuda_fail;
    }
    if (CUDA_CHECK(cudaStreamSynchronize(c->stream)))
        goto cuda_fail;
    return st;
cuda_fail:
    snprintf(why, n, "rank %d: cannot set up workload.phases on GPU %d (see the message above)", w->rank, c->device);
fail:
    cuda_steps_destroy(st);
    return NULL;
}

void cuda_steps_destroy(struct cuda_steps *st)
{
    if (!st)
        return;
    if (st->side)
        CUDA_CHECK(cudaStreamSynchronize(st->side));
    for (int i = 1; i < st->n_chains; i++)
        gemm_chain_destroy(st->chain[i]);
    for (int i = 0; i < SC_MAX_STEPS; i++) {
        cudaEvent_t ev[] = { st->begin[i], st->end[i], st->fork[i], st->join[i] };
        for (size_t k = 0; k < ARRAY_LEN(ev); k++)
            if (ev[k])
                CUDA_CHECK(cudaEventDestroy(ev[k]));
    }
    void *bufs[] = { st->send, st->recv, st->stamp, st->opt[0], st->opt[1], st->opt[2], st->opt[3] };
    for (size_t k = 0; k < ARRAY_LEN(bufs); k++)
        if (bufs[k])
            CUDA_CHECK(cudaFree(bufs[k]));
    if (st->side)
        CUDA_CHECK(cudaStreamDestroy(st->side));
    free(st);
}

static const enum coll_op steps_ops[ST_COUNT] = {
    [ST_ALLREDUCE] = COLL_ALLREDUCE, [ST_REDUCE_SCATTER] = COLL_REDUCE_SCATTER, [ST_ALL_GATHER] = COLL_ALL_GATHER,
    [ST_ALL_TO_ALL] = COLL_ALL_TO_ALL, [ST_SEND_RECV] = COLL_SEND_RECV,
};

/* Whether step i is the run's gradient exchange (grad) on the communicator's buffer: it is when it is that size
 * (shape 0's; another shape's exchange of another size runs on the steps' buffer). */
static int steps_on_coll(const struct scenario *sc, int i, int grad)
{
    return i == grad && sc->workload.steps[i].bytes == sc->workload.allreduce.bytes;
}

/* Enqueues communication step i on s: the run's gradient exchange on the communicator's buffer (steps_on_coll), as
 * rankplan_grad_colls says, the rest on the steps' buffers. 0 or -1. */
static int steps_comm(struct cuda_rank *c, struct cuda_steps *st, const struct scenario *sc, int i, int grad,
                      cudaStream_t s)
{
    const struct step *p = &sc->workload.steps[i];
    if (!steps_on_coll(sc, i, grad))
        return coll_step(c->coll, steps_ops[p->kind], st->send, st->recv, p->bytes, s);
    struct rankplan_coll part[3];
    size_t es = coll_type_size(coll_type(c->coll));
    int n = rankplan_grad_colls(p->kind, coll_count(c->coll), coll_nranks(c->coll), part);
    if (n == 1 && part[0].op == COLL_ALLREDUCE)
        return coll_allreduce(c->coll, s);
    for (int k = 0; k < n; k++)
        if (coll_step(c->coll, part[k].op, (char *)coll_buffer(c->coll) + part[k].first * es, NULL, part[k].count * es,
                      s) != 0)
            return -1;
    return 0;
}

/* Enqueues the optimizer step i: AdamW over the buffers, as many passes as its bytes need. 0 or -1. */
static int steps_optimizer(struct cuda_steps *st, const struct step *p, cudaStream_t s)
{
    size_t elems = p->bytes / 4;
    st->opt_step++;
    for (size_t done = 0; done < elems; done += st->opt_elems) {
        size_t len = elems - done < st->opt_elems ? elems - done : st->opt_elems;
        if (kernel_adamw(st->opt[0], st->opt[1], st->opt[2], st->opt[3], len, st->opt_step, s) != 0)
            return -1;
    }
    return 0;
}

/* Enqueues a compute step's count GEMMs on s, slow x as many (a straggler's: its step lasts slow x longer at compute
 * power, as the sim's does; until 2026-12-02 a straggler changed nothing in workload.phases on a GPU): the chain's
 * GEMMs again, the same D; the fraction of a GEMM carried to the next step (*carry), so that the mean is slow x.
 * 0 or -1. */
static int steps_gemms(struct gemm_chain *g, long count, double slow, double *carry, cudaStream_t s)
{
    double want = slow > 1 ? (double)count * (slow - 1) + *carry : 0;
    long total = count + (long)floor(want);
    *carry = slow > 1 ? want - floor(want) : 0;
    for (long done = 0; done < total; done += count)
        if (gemm_chain_run_range(g, 0, (int)(total - done < count ? total - done : count), s) != 0)
            return -1;
    return 0;
}

/* Enqueues the iteration: steps first .. last - 1, grad the gradient exchange among them, compute steps slow x as
 * long. exposed[i]: step i waited for overlapped communication (join[i] marks its end). */
static int steps_enqueue(struct cuda_rank *c, struct cuda_steps *st, const struct scenario *sc, int first, int last,
                         int grad, cudaEvent_t fp_wait, int *exposed, double slow)
{
    int pending = 0;
    for (int i = first; i < last; i++) {
        const struct step *p = &sc->workload.steps[i];
        enum step_class cls = step_class_of(p->kind);
        exposed[i] = 0;
        if (cls == SCL_COMM && p->overlap) {   /* after what the main stream issued, on the side stream */
            if (CUDA_CHECK(cudaEventRecord(st->fork[i], c->stream)) ||
                CUDA_CHECK(cudaStreamWaitEvent(st->side, st->fork[i], 0)) ||
                (i == grad && fp_wait && CUDA_CHECK(cudaStreamWaitEvent(st->side, fp_wait, 0))) ||
                CUDA_CHECK(cudaEventRecord(st->begin[i], st->side)) || steps_comm(c, st, sc, i, grad, st->side) != 0 ||
                CUDA_CHECK(cudaEventRecord(st->end[i], st->side)))
                return -1;
            pending = 1;
            continue;
        }
        if (pending && cls != SCL_COMPUTE) {   /* this step waits for the overlapped communication */
            if (CUDA_CHECK(cudaEventRecord(st->fork[i], c->stream)) || CUDA_CHECK(cudaEventRecord(st->join[i], st->side)) ||
                CUDA_CHECK(cudaStreamWaitEvent(c->stream, st->join[i], 0)))
                return -1;
            exposed[i] = 1;
            pending = 0;
        }
        /* the exchange writes the buffer an asynchronous fingerprint may still read: it alone waits for the hash,
         * which runs beside the steps before it (the GEMMs) */
        if ((i == grad && fp_wait && CUDA_CHECK(cudaStreamWaitEvent(c->stream, fp_wait, 0))) ||
            CUDA_CHECK(cudaEventRecord(st->begin[i], c->stream)))
            return -1;
        int rc = 0;
        if (cls == SCL_COMPUTE)
            rc = steps_gemms(st->chain[st->which[i]], (long)p->count, slow, &st->straggle_carry[st->which[i]], c->stream);
        else if (cls == SCL_COMM)
            rc = steps_comm(c, st, sc, i, grad, c->stream);
        else if (cls == SCL_MEMORY)
            rc = steps_optimizer(st, p, c->stream);
        else
            rc = CUDA_CHECK(wait_stamp(st->stamp, c->stream)) ||   /* its error said, as every launch's */
                 CUDA_CHECK(wait_until(st->stamp, (unsigned long long)(p->duration_s * 1e9), c->stream));
        if (rc != 0 || CUDA_CHECK(cudaEventRecord(st->end[i], c->stream)))
            return -1;
    }
    if (pending) {   /* the iteration's end waits for it: recorded on the last step's slot */
        int l = last - 1;
        if (CUDA_CHECK(cudaEventRecord(st->fork[l], c->stream)) || CUDA_CHECK(cudaEventRecord(st->join[l], st->side)) ||
            CUDA_CHECK(cudaStreamWaitEvent(c->stream, st->join[l], 0)))
            return -1;
        exposed[l] |= 2;
    }
    return 0;
}

/* Reports an exposed wait between the main stream's fork event and the communication's join event. */
static void steps_exposed(struct cuda_rank *c, struct cuda_steps *st, struct worker_ctx *w, int i)
{
    uint64_t a = cuda_event_ns(c, st->fork[i]), b = cuda_event_ns(c, st->join[i]);
    if (b > a) {
        worker_phase(w, PH_COMM, 1, a, 0);
        worker_phase_bus(w, b, 0, 0);
    }
}

int cuda_steps_iter(void *b, struct worker_ctx *w)
{
    struct cuda_rank *c = b;
    if (c->broken[0])
        return snprintf(w->err, sizeof w->err, "%s", c->broken), -1;
    struct cuda_steps *st = c->steps;
    const struct scenario *sc = w->sc;
    int exposed[SC_MAX_STEPS], n, grad;
    const struct step *steps = scenario_run_steps(sc, w->run, &n, &grad);
    int first = (int)(steps - sc->workload.steps), last = first + n;
    if (mono_ns() - c->anchor_ns > CUDA_REANCHOR_NS && cuda_anchor(c) != 0)
        return snprintf(w->err, sizeof w->err, "cannot re-anchor the GPU clock"), -1;
    int out = rankplan_out_step(sc, w->run);   /* the chain abft checks and gemm-output corrupts: one this run runs */
    c->out = out >= 0 ? st->chain[st->which[out]] : c->gemm;
    worker_point(w, IP_BEFORE_ALLREDUCE);   /* before the enqueue: this iteration's exchange carries its faults */
    if (c->comm_broken) {   /* comm-error: this rank's communicator was aborted */
        worker_emit_detect(w, DET_COMM, "the rank's NCCL communicator was aborted");
        shm_abort(w->shm);
        return snprintf(w->err, sizeof w->err, "communicator aborted (comm-error)"), -1;
    }
    atomic_store_explicit(&w->ctl->phase, PH_COMPUTE, memory_order_relaxed);   /* the sampler: the iteration runs */
    if (steps_enqueue(c, st, sc, first, last, first + grad, c->fp_pending ? c->fp_done : NULL, exposed,
                      worker_slowdown(w)) != 0 ||
        coll_wait(c->coll, c->stream, c->timeout_s) != 0) {
        snprintf(w->err, sizeof w->err, "the iteration's steps failed on GPU %d: %s", c->device, coll_error(c->coll));
        return -1;
    }
    int world = coll_nranks(c->coll), overlapped = ST_ALLREDUCE;
    for (int i = first; i < last; i++) {
        const struct step *p = &sc->workload.steps[i];
        enum step_class cls = step_class_of(p->kind);
        if (exposed[i] & 1) {
            w->step_kind = overlapped;   /* the exposed part of the overlapped communication */
            steps_exposed(c, st, w, i);
        }
        if (cls == SCL_COMM && p->overlap) {
            overlapped = p->kind;
            continue;   /* beside the GEMMs: no time of its own (its exposed part is reported where it is waited for) */
        }
        if (cls == SCL_COMM)
            w->step_kind = p->kind;
        int phase = cls == SCL_COMPUTE ? PH_COMPUTE : cls == SCL_COMM ? PH_COMM : cls == SCL_MEMORY ? PH_OPT : PH_IDLE;
        uint64_t t0 = cuda_event_ns(c, st->begin[i]), t1 = cuda_event_ns(c, st->end[i]);
        worker_phase(w, phase, 1, t0, 0);
        if (cls == SCL_COMM) {   /* a reduce-scatter exchange on the buffer: the all-gather's bus bytes too; the
                                  * ranks that take part (a step's ranks is the sim model's alone, docs/scenarios.md:
                                  * until 2026-12-02 the bus bytes of that n on a GPU) */
            int r = world;
            double bus = backend_bus_bytes(p->kind, (double)p->bytes, r);
            if (p->kind == ST_REDUCE_SCATTER && steps_on_coll(sc, i, first + grad))
                bus += backend_bus_bytes(ST_ALL_GATHER, (double)p->bytes, r);
            worker_phase_bus(w, t1, (double)p->bytes, bus);
        } else {
            worker_phase(w, phase, 0, t1,
                         cls == SCL_COMPUTE ? gemm_flops(p->m, p->n, p->k) * (double)p->count : (double)p->bytes);
        }
    }
    if (exposed[last - 1] & 2) {
        w->step_kind = overlapped;
        steps_exposed(c, st, w, last - 1);
    }
    w->step_kind = ST_ALLREDUCE;
    /* the other faults and checks after the iteration: the data of the first GEMM and of the exchange are still
     * there */
    worker_point(w, IP_AFTER_GEMM);
    worker_point(w, IP_AFTER_ALLREDUCE);
    worker_point(w, IP_AFTER_STEP);
    return 0;
}
