/* harness/backends/cuda/replay.c: workload.replay on the GPU. One pass of the trace: at each of its samples the
 * filler (fillwork.c: bf16 GEMMs at a duty) runs at the duty whose level, measured at start-up against this GPU's own power
 * readings (shaper.c), is the trace's next value corrected by a closed loop on those readings (replay_corr of
 * plugins/mitigations/fillplan.h: a correction by level, learned from the error between what the GPU draws, the
 * supervisor's latest reading of the slot, and the trace where it held one level long enough for the sensor to show
 * it, kept over the run's passes), so a level the filler's curve misses is pulled in over a few samples and met
 * from its first sample when the trace comes back to it. What the filler cannot draw (above the top of its
 * curve's rising part, below idle) is clipped: the run's fidelity shows it. The real data path runs once a pass,
 * after the trace: the GEMM chain and the all-reduce, with their faults and checks. */
#include <math.h>
#include <stdio.h>

#include "cuda_check.h"
#include "cuda_rank.h"
#include "mitigations/fillplan.h"
#include "util.h"

int cuda_replay_iter(void *b, struct worker_ctx *w)
{
    struct cuda_rank *c = b;
    if (c->broken[0])
        return snprintf(w->err, sizeof w->err, "%s", c->broken), -1;
    const struct scenario *sc = w->sc;
    const float *tr = sc->workload.replay.w;
    int n = sc->workload.replay.n;
    if (!c->shaper)
        return snprintf(w->err, sizeof w->err, "replay: the filler was not prepared on GPU %d", c->device), -1;
    double top, idle = shaper_range_w(c->shaper, &top), mid = backend_replay_mid(sc);
    struct replay_corr *rc = &c->replay_rc;   /* learned over the run's passes: a level comes back each pass */
    if (c->replay_rc_run != w->run + 1) {
        replay_corr_init(rc, tr, n, sc->workload.replay.dt_s, idle, top);
        c->replay_rc_run = w->run + 1;
        c->replay_seen_t = mono_ns();   /* samples from the run's start on */
        c->replay_last_mw = 0;
        c->replay_stamped = 0;
    }
    uint64_t step = (uint64_t)(sc->workload.replay.dt_s * 1e9), seq = atomic_load(&w->ctl->power_seq);
    if (mono_ns() - c->anchor_ns > CUDA_REANCHOR_NS && cuda_anchor(c) != 0)
        return snprintf(w->err, sizeof w->err, "cannot re-anchor the GPU clock"), -1;
    /* the trace from the iteration's start, as on sim: every pass begins with a compute edge (the iteration's start,
     * where the run's fidelity lays the trace), then the phase of its first sample */
    uint64_t t0 = mono_ns();
    int phase = tr[0] >= mid ? PH_COMPUTE : PH_COMM;
    worker_phase(w, PH_COMPUTE, 1, t0, 0);
    if (phase != PH_COMPUTE) {
        worker_phase(w, PH_COMPUTE, 0, t0, 0);
        worker_phase(w, phase, 1, t0, 0);
    }
    float duty = -1;
    for (int i = 0; i < n && !shm_aborted(w->shm); i++) {
        uint64_t t = t0 + (uint64_t)i * step;
        phase = worker_replay_phase(w, phase, tr[i], mid, t);
        /* each new sample once, at the trace sample of its own time: the loop moves where the trace was steady before
         * it (fillplan.h). Until 2026-12-02 every reading of the sampler (100 Hz) was a new one: a 20 ms buffer
         * sample counted twice, the instant field's (~100 ms) ten times, each at the gain */
        struct ctl_sample_copy cs[8];   /* since the newest taken, over the passes: one stamped late is not lost */
        int k = ctl_read_samples(w->ctl, c->replay_seen_t, mono_ns(), cs, 8);
        c->replay_stamped |= k > 0;
        for (int j = 0; j < k; j++) {   /* one stamped before this pass began measured the pass before's end: passed */
            c->replay_seen_t = cs[j].t_ns;
            uint64_t at = (cs[j].t_ns - t0) / step;
            if (cs[j].t_ns >= t0)
                replay_corr_add(rc, tr, n, at < (uint64_t)i ? (int)at : i, cs[j].w);
        }
        uint64_t s = atomic_load(&w->ctl->power_seq), mw = atomic_load(&w->ctl->power_mw);
        if (!c->replay_stamped && s != seq && mw != c->replay_last_mw)   /* a source that stamps nothing: a reading
                                                                           * that changed */
            replay_corr_add(rc, tr, n, i, (double)mw * 1e-3);
        seq = s;
        c->replay_last_mw = mw;
        double want = i + 1 < n ? tr[i + 1] : tr[i], next = want + replay_corr_at(rc, want);
        if (shaper_replay(c->shaper, next, &duty) != 0)
            return snprintf(w->err, sizeof w->err, "replay: the filler kernel failed on GPU %d", c->device), -1;
        worker_beat(w);
        sleep_until_ns(t + step);
    }
    shaper_stop(c->shaper);
    worker_phase(w, phase, 0, t0 + (uint64_t)n * step, 0);
    /* the data path after the trace: the GEMM chain (abft, faults after the GEMM), its burst at full power between
     * two passes, where the fidelity compares nothing (before the trace it was laid over the pass's first samples) */
    uint64_t tc = mono_ns();
    worker_phase(w, PH_COMPUTE, 1, tc, 0);
    if (gemm_chain_run(c->gemm, c->stream) != 0 || CUDA_CHECK(cudaStreamSynchronize(c->stream)))
        return snprintf(w->err, sizeof w->err, "GEMM chain failed on GPU %d", c->device), -1;
    worker_point(w, IP_AFTER_GEMM);
    worker_phase(w, PH_COMPUTE, 0, mono_ns(), c->flops);
    /* the data path's exchange: the all-reduce, its faults and checks */
    worker_point(w, IP_BEFORE_ALLREDUCE);
    if (c->fp_pending && CUDA_CHECK(cudaStreamWaitEvent(c->stream, c->fp_done, 0)))   /* it still reads the buffer */
        return snprintf(w->err, sizeof w->err, "cannot order the all-reduce after the fingerprint"), -1;
    if (coll_allreduce(c->coll, c->stream) != 0 || coll_wait(c->coll, c->stream, c->timeout_s) != 0)
        return snprintf(w->err, sizeof w->err, "all-reduce failed on GPU %d: %s", c->device, coll_error(c->coll)), -1;
    worker_point(w, IP_AFTER_ALLREDUCE);
    worker_point(w, IP_AFTER_STEP);
    return 0;
}
