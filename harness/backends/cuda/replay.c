/* harness/backends/cuda/replay.c: workload.replay on the GPU. One pass of the trace: at each of its samples the
 * filler (fillwork.c: bf16 GEMMs at a duty) runs at the duty whose level, measured at start-up against this GPU's own power
 * readings (shaper.c), is the trace's next value corrected by a closed loop on those readings: an integral of
 * the error between what the GPU draws (the supervisor's latest reading of the slot) and what the trace asked
 * one reading interval before, so a level the filler's curve misses is pulled in over a few samples. What the
 * filler cannot draw (above its level at 100 %, below idle) is clipped: the run's fidelity shows it. The real
 * data path runs once a pass: the GEMM chain before, the all-reduce after, with their faults and checks. */
#include <math.h>
#include <stdio.h>

#include "cuda_check.h"
#include "cuda_rank.h"
#include "util.h"

#define REPLAY_GAIN 0.3   /* of the error, per trace sample, added to the correction */

int cuda_replay_iter(void *b, struct worker_ctx *w)
{
    struct cuda_rank *c = b;
    const struct scenario *sc = w->sc;
    const float *tr = sc->workload.replay.w;
    int n = sc->workload.replay.n;
    if (!c->shaper)
        return snprintf(w->err, sizeof w->err, "replay: the filler was not prepared on GPU %d", c->device), -1;
    double top, idle = shaper_range_w(c->shaper, &top), mid = backend_replay_mid(sc), corr = 0;
    uint64_t step = (uint64_t)(sc->workload.replay.dt_s * 1e9), seq = atomic_load(&w->ctl->power_seq);
    if (mono_ns() - c->anchor_ns > CUDA_REANCHOR_NS && cuda_anchor(c) != 0)
        return snprintf(w->err, sizeof w->err, "cannot re-anchor the GPU clock"), -1;
    /* the data path first: the GEMM chain (abft, faults after the GEMM) */
    uint64_t t0 = mono_ns();
    worker_phase(w, PH_COMPUTE, 1, t0, 0);
    if (gemm_chain_run(c->gemm, c->stream) != 0 || CUDA_CHECK(cudaStreamSynchronize(c->stream)))
        return snprintf(w->err, sizeof w->err, "GEMM chain failed on GPU %d", c->device), -1;
    worker_point(w, IP_AFTER_GEMM);
    t0 = mono_ns();
    int phase = PH_COMPUTE;
    float duty = -1;
    for (int i = 0; i < n && !shm_aborted(w->shm); i++) {
        uint64_t t = t0 + (uint64_t)i * step;
        phase = worker_replay_phase(w, phase, tr[i], mid, t);
        uint64_t s = atomic_load(&w->ctl->power_seq);
        if (s != seq && i > 0) {   /* a new reading: the error against the trace one sample back */
            seq = s;
            double got = (double)atomic_load(&w->ctl->power_mw) * 1e-3, asked = tr[i - 1];
            corr += REPLAY_GAIN * (asked - got);
            double span = isfinite(top) && isfinite(idle) && top > idle ? top - idle : 0;   /* never negative */
            corr = fmax(-span, fmin(span, corr));   /* bounded: a level out of reach cannot wind it up */
        }
        double next = (i + 1 < n ? tr[i + 1] : tr[i]) + corr;
        if (shaper_replay(c->shaper, next, &duty) != 0)
            return snprintf(w->err, sizeof w->err, "replay: the filler kernel failed on GPU %d", c->device), -1;
        worker_beat(w);
        sleep_until_ns(t + step);
    }
    shaper_stop(c->shaper);
    worker_phase(w, phase, 0, t0 + (uint64_t)n * step, 0);
    /* the data path's exchange: the all-reduce, its faults and checks */
    worker_point(w, IP_BEFORE_ALLREDUCE);
    if (coll_allreduce(c->coll, c->stream) != 0 || coll_wait(c->coll, c->stream, c->timeout_s) != 0)
        return snprintf(w->err, sizeof w->err, "all-reduce failed on GPU %d: %s", c->device, coll_error(c->coll)), -1;
    worker_point(w, IP_AFTER_ALLREDUCE);
    worker_point(w, IP_AFTER_STEP);
    return 0;
}
