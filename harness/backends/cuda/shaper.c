/* harness/backends/cuda/shaper.c: software mitigations on a real GPU (see shaper.h). */
#include "shaper.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "fillwork.h"
#include "mitigations/fillplan.h"
#include "mitigations/mitigation.h"
#include "rankplan.h"
#include "shm.h"
#include "util.h"

#define SHAPER_SETTLE_S 0.3             /* a level settles this long before it is measured */
#define SHAPER_MEASURE_S 1.0            /* and is read over this long (the instant field changes every ~100 ms) */

struct shaper {
    struct worker_ctx *w;     /* the worker it acts for (a stagger's wait beats for it) */
    struct fillwork *fill;
    struct ctl *ctl;          /* the levels live there: a replacement worker of the slot reuses them */
    struct mit_model mm;
    int on;                   /* the run's mitigation acts here */
    int fills;                /* it runs the filler between compute phases (a floor or a ramp, a usable curve) */
    struct fill_curve curve;
    int curve_ok;
    struct fill_history gaps;
    struct fill_corr corr;
    struct fill_learn learn;  /* the first part of the gaps after compute phases (fillplan.h) */
    struct fill_plan plan;
    int in_gap, gap_counts, raise_said, learn_said;
    uint64_t gap_t0;
    uint64_t stop_t;   /* when the gap's filler was stopped before the compute phase (a replay's GEMMs): 0, none */
};

/* Says whether mitigation spec needs the measured levels (a floor or ramp rates), whatever the TDP. */
static int shaper_needs_levels(const struct scenario *sc, const struct plugin_spec *spec)
{
    const struct mitigation_ops *mo = mitigation_table[spec->index];
    struct sim_params p = sc->sim;
    struct mit_model mm = { 0 };
    if (!mo->model)
        return 0;
    p.tdp_w = 1000;   /* any TDP: only whether a floor or a ramp is set matters here */
    mo->model(spec->params, &p, 0, 1, &mm);
    return mm.floor_w > 0 || mm.ramp_up_w_s > 0 || mm.ramp_down_w_s > 0;
}

/* Measures the power while the GPU does what was started (or idles): settles, then reads SHAPER_MEASURE_S — the
 * energy counter's difference over the time between the first and the last reading in the window, or the mean of
 * the readings where the counter is absent; keeps beating. With keep_busy, GEMM chains are kept queued on the stream
 * (the compute level): as many as keep it from running dry between two polls, doubled each time a poll found every
 * one done (a chain re-issued only once the stream was empty left the GPU idle 4-5 % of a default chain's window,
 * 85 % of a short one's, and the compute level, which caps the filler's plan, read low). NAN: no readings (no NVML)
 * or a failure. */
static double shaper_level(struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s, int keep_busy)
{
    enum { SL_MAX = 64 };
    struct ctl *c = w->ctl;
    uint64_t seq = atomic_load(&c->power_seq), e0 = 0, e1 = 0, t0e = 0, t1e = 0;
    uint64_t t0 = mono_ns(), settle = (uint64_t)(SHAPER_SETTLE_S * 1e9), end = t0 + settle + (uint64_t)(SHAPER_MEASURE_S * 1e9);
    double sum = 0, out = NAN;
    int n = 0, cap = 2, made = 0, failed = 0;
    int64_t head = 0, tail = 0;   /* chains queued, and done */
    cudaEvent_t ev[SL_MAX] = { 0 };
    for (; keep_busy && made < SL_MAX; made++)
        if (CUDA_CHECK(cudaEventCreateWithFlags(&ev[made], cudaEventDisableTiming))) {
            failed = 1;
            break;
        }
    for (uint64_t now = t0; now < end && !failed; now = mono_ns()) {
        while (keep_busy && tail < head) {   /* the chains done since the last poll */
            cudaError_t q = cudaEventQuery(ev[tail % SL_MAX]);
            if (q == cudaErrorNotReady)
                break;
            if (CUDA_CHECK(q)) {
                failed = 1;
                break;
            }
            tail++;
        }
        if (keep_busy && head > 0 && tail == head && cap < SL_MAX)
            cap *= 2;   /* it ran dry between two polls: more queued */
        while (keep_busy && !failed && head - tail < cap) {
            if (gemm_chain_run(g, s) != 0 || CUDA_CHECK(cudaEventRecord(ev[head % SL_MAX], s)))
                failed = 1;
            head++;
        }
        uint64_t sq = atomic_load(&c->power_seq);
        if (sq != seq) {
            seq = sq;
            uint64_t e, te, t = atomic_load(&c->reading_ns);
            ctl_read_energy(c, &e, &te);
            if (e && te >= t0 + settle) {   /* readings before the level settled do not count */
                if (!t0e)
                    e0 = e, t0e = te;
                else if (te > t0e)
                    e1 = e, t1e = te;
            }
            if (t >= t0 + settle) {
                sum += (double)atomic_load(&c->power_mw) * 1e-3;
                n++;
            }
        }
        worker_beat(w);
        sleep_ns(1000000);
    }
    if (keep_busy && CUDA_CHECK(cudaStreamSynchronize(s)))
        failed = 1;
    for (int i = 0; i < made; i++)
        CUDA_CHECK(cudaEventDestroy(ev[i]));
    if (failed)
        return NAN;
    if (t1e > t0e && e1 > e0)
        out = (double)(e1 - e0) * 1e-3 / ((double)(t1e - t0e) * 1e-9);
    else if (n)
        out = sum / n;
    return out;
}

/* Measures one GEMM's time, the compute phase, idle and the filler at each duty into the slot's control block.
 * Before the first run (at start-up): the time is not the run's. 0, or -1 with why. */
static int shaper_tune(struct shaper *sh, struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s, int count,
                       char *why, size_t n)
{
    struct ctl *c = w->ctl;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float ms = 0;
    int bad = CUDA_CHECK(cudaEventCreate(&e0)) || CUDA_CHECK(cudaEventCreate(&e1)) || CUDA_CHECK(cudaStreamSynchronize(s)) ||
              CUDA_CHECK(cudaEventRecord(e0, s)) || gemm_chain_run(g, s) != 0 || CUDA_CHECK(cudaEventRecord(e1, s)) ||
              CUDA_CHECK(cudaEventSynchronize(e1)) || CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    if (e0)
        CUDA_CHECK(cudaEventDestroy(e0));
    if (e1)
        CUDA_CHECK(cudaEventDestroy(e1));
    if (bad)
        return snprintf(why, n, "mitigation tuning: the GEMM chain failed"), -1;
    c->tune_gemm_s = ms * 1e-3 / (count > 0 ? count : 1);
    c->tune_compute_w = shaper_level(w, g, s, 1);
    c->tune_w[0] = shaper_level(w, g, s, 0);   /* after the compute level: idle settles from there */
    for (int i = 1; i <= FILL_DUTIES; i++) {
        if (fillwork_hold(sh->fill, (double)i / FILL_DUTIES) != 0)
            return snprintf(why, n, "mitigation tuning: the filler did not start"), -1;
        c->tune_w[i] = shaper_level(w, g, s, 0);
        if (fillwork_wait(sh->fill) != 0)
            return snprintf(why, n, "mitigation tuning: the filler failed"), -1;
    }
    atomic_store(&c->tuned, 1);
    return 0;
}

int shaper_create(struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s, struct shaper **out, char *why, size_t n)
{
    const struct scenario *sc = w->sc;
    int needs = 0, any = 0;
    for (int i = 0; i < sc->n_mitigations; i++) {
        any |= mitigation_table[sc->mitigations[i].index]->model != NULL;
        needs |= shaper_needs_levels(sc, &sc->mitigations[i]);
    }
    any |= sc->workload.replay.on;     /* a replay drives the filler along the trace from the same levels */
    needs |= sc->workload.replay.on;
    *out = NULL;
    if (!any)
        return 0;   /* nothing acts on the GPU: no shaper */
    struct shaper *sh = xcalloc(1, sizeof *sh);
    sh->w = w;
    sh->ctl = w->ctl;
    int beside_nccl = w->shm->hdr->world > 1;   /* a real collective runs beside the filler: leave NCCL its SMs */
    if (needs && !(sh->fill = fillwork_create(w->ctl, beside_nccl, why, n))) {
        shaper_destroy(sh);
        return -1;
    }
    if (needs && !atomic_load(&w->ctl->tuned) && shaper_tune(sh, w, g, s, (int)sc->workload.gemm.count, why, n) != 0) {
        shaper_destroy(sh);
        return -1;
    }
    *out = sh;
    return 0;
}

void shaper_destroy(struct shaper *sh)
{
    if (!sh)
        return;
    fillwork_destroy(sh->fill);
    free(sh);
}

/* Reads the slot's measured levels into the curve and checks it; 0, or -1 with why. */
static int shaper_curve(struct shaper *sh, char *why, size_t n)
{
    sh->curve = fill_curve_of(sh->ctl->tune_w, sh->ctl->tune_compute_w);
    sh->curve_ok = fill_curve_check(&sh->curve, why, n) == 0;
    return sh->curve_ok ? 0 : -1;
}

/* Begins a gap at t (counts: it follows a compute phase, so its length becomes history): plans it and starts the
 * filler on the plan. 0 or -1. */
static int shaper_gap_begin(struct shaper *sh, uint64_t t, int counts)
{
    double top = fill_curve_top(&sh->curve);
    sh->in_gap = 1;
    sh->gap_counts = counts;
    sh->gap_t0 = t;
    sh->stop_t = 0;
    fill_plan_make(&sh->plan, sh->mm.floor_w, sh->mm.ramp_down_w_s, sh->mm.ramp_up_w_s, sh->curve.w[0],
                   sh->curve.compute_w, top, fill_history_expect(&sh->gaps));
    return fillwork_follow(sh->fill, &sh->plan, &sh->curve, &sh->corr, counts ? &sh->learn : NULL, t);
}

int shaper_begin_run(struct shaper *sh, struct worker_ctx *w)
{
    if (sh->fill)
        fillwork_stop(sh->fill);   /* the previous run's last filler, if it was still holding the floor */
    const struct plugin_spec *spec = &w->sc->mitigations[w->run];
    const struct mitigation_ops *mo = mitigation_table[spec->index];
    const struct ctl *c = sh->ctl;
    memset(&sh->mm, 0, sizeof sh->mm);
    memset(&sh->gaps, 0, sizeof sh->gaps);
    memset(&sh->corr, 0, sizeof sh->corr);
    memset(&sh->learn, 0, sizeof sh->learn);
    sh->on = sh->fills = sh->in_gap = sh->raise_said = sh->learn_said = 0;
    if (!mo->model)
        return 0;
    if (mo->device == MIT_DEV_SMOOTHING && atomic_load(&w->shm->hdr->fw_smoothing))
        return 0;   /* the GPU's firmware smooths this run (the supervisor turned it on) */
    /* the model's inputs with this GPU's TDP, for the rank's place among every node's ranks, as on sim */
    rankplan_mit_model(spec, &w->sc->sim, mitigation_tdp_w(0, &w->sc->sim, atomic_load(&w->ctl->tdp_mw)), w->rank,
                       w->shm->hdr->rank_offset, w->shm->hdr->world, &sh->mm);
    sh->mm.cap_w = 0;   /* a cap is a device setting: the supervisor's (devset.c), never the worker's */
    if (isnan(sh->mm.floor_w)) {   /* before `> 0` tests: NAN would pass for "no floor" */
        snprintf(w->err, sizeof w->err, "%s: a floor in %% of TDP, but this GPU's TDP is not known (no NVML): give it in W",
                 spec->name);
        return -1;
    }
    int needs_levels = sh->mm.floor_w > 0 || sh->mm.ramp_up_w_s > 0 || sh->mm.ramp_down_w_s > 0;
    sh->on = needs_levels || sh->mm.delay_s > 0;
    if (!needs_levels)
        return 0;
    if (!atomic_load(&c->tuned) || !sh->fill) {
        snprintf(w->err, sizeof w->err, "%s: the GPU's levels were not measured at start", spec->name);
        return -1;
    }
    char why[256], note[64];   /* note: wevent's */
    if (shaper_curve(sh, why, sizeof why) != 0) {   /* the filler cannot hold a level: the run says so, unfilled */
        gl_log("rank %d, %s: %s", w->rank, spec->name, why);
        snprintf(note, sizeof note, "the filler's power does not rise with its duty");
        worker_emit_tuned(w, sh->mm.floor_w > 0 ? sh->mm.floor_w : 0, 0, note);
        return 0;
    }
    if (scenario_stepped(w->sc)) {   /* workload.phases and replay enqueue their steps ahead: no gap is known here */
        snprintf(note, sizeof note, "no filler between workload.phases steps on a GPU");
        worker_emit_tuned(w, sh->mm.floor_w > 0 ? sh->mm.floor_w : 0, 0, note);
        return 0;
    }
    sh->fills = 1;
    sh->corr.span_w = fill_curve_top(&sh->curve) - sh->curve.w[0];
    sh->corr.lo_w = sh->curve.w[0];
    sh->corr.hi_w = fill_curve_top(&sh->curve);
    sh->learn.most_w = fill_curve_reach(&sh->curve);   /* a boost may ask past the top: the clocks low after compute */
    if (shaper_gap_begin(sh, mono_ns(), 0) != 0) {
        snprintf(w->err, sizeof w->err, "%s: the filler failed on this GPU (see above)", spec->name);
        return -1;
    }
    if (!fill_plan_floor_why(&sh->plan, note, sizeof note))   /* a floor out of reach: the limit that binds */
        snprintf(note, sizeof note, "idle %.0f W, compute %.0f W, filler %.0f W at %d%%", sh->curve.w[0],
                 sh->curve.compute_w, fill_curve_top(&sh->curve), 100 * fill_curve_top_index(&sh->curve) / FILL_DUTIES);
    worker_emit_tuned(w, sh->mm.floor_w > 0 ? sh->mm.floor_w : 0, fill_curve_duty(&sh->curve, sh->plan.floor_w), note);
    return 0;
}

void shaper_stop(struct shaper *sh)
{
    fillwork_stop(sh->fill);
    if (sh->in_gap && !sh->stop_t)
        sh->stop_t = mono_ns();   /* the gap's filler ends here: what follows (the replay's GEMMs) is none of it */
}

/* Beats for a stagger's wait; nonzero once the run is stopping (a failure, a recovery, a stop: the abort flag). */
static int shaper_beat(void *p)
{
    struct worker_ctx *w = p;
    worker_beat(w);
    return shm_aborted(w->shm);
}

int shaper_compute_prepare(struct shaper *sh)
{
    fillwork_stop(sh->fill);   /* compute resumes: at most the filler's GEMM in flight (0.175 ms) */
    if (sh->in_gap && sh->gap_counts) {
        /* the gap as the filler saw it: to its stop where something stopped it first (a replay detector's GEMMs at
         * full power, taught to the learning as the gap's last bins, pulled them down every tenth gap) */
        uint64_t now = sh->stop_t ? sh->stop_t : mono_ns();
        fill_history_add(&sh->gaps, (double)(now - sh->gap_t0) * 1e-9);
        if (sh->fills)
            fillwork_learn(sh->fill, &sh->learn, now, sh->curve.w[0]);
    }
    sh->in_gap = 0;
    /* stagger: this rank's compute phase starts later, beating meanwhile and given up at a stop (until 2026-11-30 a
     * plain sleep: a delay past heartbeat.timeout read as a hang) */
    if (sh->on && sh->mm.delay_s > 0)
        return rankplan_wait_until(mono_ns() + (uint64_t)(sh->mm.delay_s * 1e9),
                                   (uint64_t)(sh->w->sc->heartbeat.interval_s * 1e9), shaper_beat, sh->w);
    return 0;
}

int shaper_after_compute(struct shaper *sh, struct worker_ctx *w)
{
    if (!sh->on || !sh->fills)
        return 0;
    if (shaper_gap_begin(sh, mono_ns(), 1) != 0)
        return snprintf(w->err, sizeof w->err, "the filler failed on GPU (see above)"), -1;
    if (sh->plan.raised && !sh->raise_said && isfinite(fill_history_expect(&sh->gaps))) {
        char note[64];
        snprintf(note, sizeof note, "ramps do not fit the %.0f ms gap: floor raised to %.0f W",
                 1e3 * fill_history_expect(&sh->gaps), sh->plan.floor_w);
        worker_emit_tuned(w, sh->plan.floor_w, fill_curve_duty(&sh->curve, sh->plan.floor_w), note);
        sh->raise_said = 1;
    }
    int g = sh->learn.gaps;
    if (g >= 4 && !(g & (g - 1)) && g > sh->learn_said) {   /* after 4, 8, 16, ... gaps: what was learned */
        char note[64];
        fill_learn_describe(&sh->learn, note, sizeof note);
        worker_emit_tuned(w, sh->plan.floor_w, fill_curve_duty(&sh->curve, sh->plan.floor_w), note);
        sh->learn_said = g;
    }
    return 0;
}

int shaper_replay(struct shaper *sh, double watts, float *duty)
{
    if (!sh->curve_ok) {
        char why[256];
        if (shaper_curve(sh, why, sizeof why) != 0)
            return gl_log("replay: %s", why), -1;
    }
    float d = watts > 0 ? (float)fill_curve_duty(&sh->curve, watts) : 0;
    if (fabsf(d - *duty) < 0.005f)
        return 0;   /* the same duty: the running filler holds it */
    *duty = d;
    return fillwork_hold(sh->fill, d);
}

double shaper_range_w(const struct shaper *sh, double *top_w)
{
    struct fill_curve c = fill_curve_of(sh->ctl->tune_w, sh->ctl->tune_compute_w);
    *top_w = fill_curve_top(&c);   /* the rising part's top: past it more duty draws no more */
    return c.w[0];
}
