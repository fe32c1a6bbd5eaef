/* harness/backends/cuda/shaper.c: software mitigations on a real GPU (see shaper.h). */
#include "shaper.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "filler.h"
#include "mitigations/mitigation.h"
#include "shm.h"
#include "util.h"

#define SHAPER_DUTIES 4                 /* the filler measured at 25, 50, 75 and 100 % duty */
#define SHAPER_SETTLE_S 0.3             /* a level settles this long before it is measured */
#define SHAPER_MEASURE_S 0.35           /* and is averaged over this long */
#define SHAPER_FILLER_LIFE_S 30.0       /* a filler never outlives this: a lost stop cannot hold the GPU */
#define SHAPER_MIN_SHARE 0.1            /* the gradual release starts at least at a tenth of the chain's rate */

struct shaper {
    struct filler *fill;
    struct ctl *ctl;          /* the levels live there: a replacement worker of the slot reuses them */
    struct mit_model mm;
    int on;                   /* the run's mitigation acts here */
    int count;                /* GEMMs in the chain */
    /* this run's settings from the levels */
    float duty_floor, duty_top;
    double f0;                /* the chain's share the release starts at (the floor's level) */
    double up_s, down_s;      /* how long the release and the fade last */
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

/* The supervisor's readings of this slot's power, averaged over what arrives while the caller works. */
struct pacc { uint64_t seq; double sum; int n; };

static void pacc_poll(struct pacc *a, struct ctl *c)
{
    uint64_t seq = atomic_load(&c->power_seq);
    if (seq != a->seq) {
        a->seq = seq;
        a->sum += (double)atomic_load(&c->power_mw) * 1e-3;
        a->n++;
    }
}

/* Averages the power while the GPU does what was started (or idles): settle, then measure; keeps beating.
 * With keep_busy, the GEMM chain is re-issued whenever the stream empties (the compute level). NAN: no
 * readings (no NVML) or a failure. */
static double shaper_level(struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s, int keep_busy)
{
    struct pacc a = { .seq = atomic_load(&w->ctl->power_seq) };
    uint64_t t0 = mono_ns(), settle = (uint64_t)(SHAPER_SETTLE_S * 1e9), end = t0 + settle + (uint64_t)(SHAPER_MEASURE_S * 1e9);
    for (uint64_t now = t0; now < end; now = mono_ns()) {
        if (keep_busy && cudaStreamQuery(s) == cudaSuccess && gemm_chain_run(g, s) != 0)
            return NAN;
        if (now - t0 >= settle)
            pacc_poll(&a, w->ctl);
        else
            a.seq = atomic_load(&w->ctl->power_seq);   /* readings before the level settled do not count */
        worker_beat(w);
        sleep_ns(1000000);
    }
    if (keep_busy && CUDA_CHECK(cudaStreamSynchronize(s)))
        return NAN;
    return a.n ? a.sum / a.n : NAN;
}

/* Measures one GEMM's time, idle, the compute phase and the filler at each duty into the slot's control
 * block. Before the first run (at start-up): the time is not the run's. 0, or -1 with why. */
static int shaper_tune(struct shaper *sh, struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s, char *why, size_t n)
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
    c->tune_gemm_s = ms * 1e-3 / (sh->count > 0 ? sh->count : 1);
    c->tune_compute_w = shaper_level(w, g, s, 1);
    c->tune_w[0] = shaper_level(w, g, s, 0);   /* after the compute level: idle settles from there */
    for (int i = 1; i <= SHAPER_DUTIES; i++) {
        float d = (float)i / SHAPER_DUTIES;
        if (filler_start(sh->fill, 1.0f, d, d, 0, SHAPER_FILLER_LIFE_S) != 0)
            return snprintf(why, n, "mitigation tuning: the filler kernel did not start"), -1;
        c->tune_w[i] = shaper_level(w, g, s, 0);
        if (filler_wait(sh->fill) != 0)
            return snprintf(why, n, "mitigation tuning: the filler kernel failed"), -1;
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
    sh->ctl = w->ctl;
    sh->count = (int)sc->workload.gemm.count;
    if (!(sh->fill = filler_create(why, n)) ||
        (needs && !atomic_load(&w->ctl->tuned) && shaper_tune(sh, w, g, s, why, n) != 0)) {
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
    filler_destroy(sh->fill);
    free(sh);
}

/* The duty at which the filler draws watts: linear between the measured levels (0: at or below idle; 1: at
 * or above the filler's most). Without readings: watts as a share of the compute level, untuned. */
static float shaper_duty_for(const struct ctl *c, double watts)
{
    const double *lv = c->tune_w;
    if (!isfinite(lv[SHAPER_DUTIES]) || !isfinite(lv[0])) {
        double top = isfinite(c->tune_compute_w) && c->tune_compute_w > 0 ? c->tune_compute_w : watts;
        return top > 0 ? (float)fmin(1, fmax(0, watts / top)) : 0;
    }
    if (watts <= lv[0])
        return 0;
    for (int i = 1; i <= SHAPER_DUTIES; i++)
        if (watts <= lv[i] && lv[i] > lv[i - 1])
            return (float)((i - 1 + (watts - lv[i - 1]) / (lv[i] - lv[i - 1])) / SHAPER_DUTIES);
    return 1;
}

int shaper_begin_run(struct shaper *sh, struct worker_ctx *w)
{
    filler_stop(sh->fill);   /* the previous run's last filler, if it was still holding the floor */
    const struct plugin_spec *spec = &w->sc->mitigations[w->run];
    const struct mitigation_ops *mo = mitigation_table[spec->index];
    const struct ctl *c = sh->ctl;
    memset(&sh->mm, 0, sizeof sh->mm);
    sh->on = 0;
    if (!mo->model)
        return 0;
    if (mo->device == MIT_DEV_SMOOTHING && atomic_load(&w->shm->hdr->fw_smoothing))
        return 0;   /* the GPU's firmware smooths this run (the supervisor turned it on) */
    struct sim_params p = w->sc->sim;   /* the model's inputs, with this GPU's TDP */
    uint64_t tdp_mw = atomic_load(&w->ctl->tdp_mw);
    p.tdp_w = tdp_mw ? (double)tdp_mw * 1e-3 : NAN;
    mo->model(spec->params, &p, w->rank, w->nranks, &sh->mm);
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
    if (!atomic_load(&c->tuned)) {
        snprintf(w->err, sizeof w->err, "%s: the GPU's levels were not measured at start", spec->name);
        return -1;
    }
    double idle = c->tune_w[0], compute = c->tune_compute_w;
    double low = sh->mm.floor_w > 0 ? fmax(sh->mm.floor_w, idle) : idle;
    double span = isfinite(compute) && isfinite(idle) ? compute - idle : NAN;
    double step = isfinite(compute) && isfinite(low) ? fmax(0, compute - low) : 0;
    sh->duty_floor = sh->mm.floor_w > 0 ? shaper_duty_for(c, sh->mm.floor_w) : 0;
    sh->duty_top = sh->mm.ramp_down_w_s > 0 ? shaper_duty_for(c, compute) : sh->duty_floor;
    /* the release starts where the floor left the power: the chain's share that draws it */
    sh->f0 = span > 0 ? fmin(1, fmax(SHAPER_MIN_SHARE, (low - idle) / span)) : SHAPER_MIN_SHARE;
    sh->up_s = sh->mm.ramp_up_w_s > 0 ? step / sh->mm.ramp_up_w_s : 0;
    sh->down_s = sh->mm.ramp_down_w_s > 0 ? step / sh->mm.ramp_down_w_s : 0;
    char note[64];
    snprintf(note, sizeof note, "idle %.0f W, compute %.0f W, filler %.0f W at 100%%", idle, compute, c->tune_w[SHAPER_DUTIES]);
    worker_emit_tuned(w, sh->mm.floor_w > 0 ? sh->mm.floor_w : 0, sh->duty_floor, note);
    return 0;
}

void shaper_stop(struct shaper *sh) { filler_stop(sh->fill); }

int shaper_compute_prepare(struct shaper *sh)
{
    filler_stop(sh->fill);   /* compute resumes: the filler gives the SMs back within 20 us */
    if (sh->on && sh->mm.delay_s > 0)   /* stagger: this rank's compute phase starts later */
        sleep_ns((uint64_t)(sh->mm.delay_s * 1e9));
    return 0;
}

int shaper_compute(struct shaper *sh, struct gemm_chain *g, cudaStream_t s)
{
    if (!sh->on || !(sh->up_s > 0) || sh->count < 1)
        return gemm_chain_run(g, s);
    /* gradual release: the i-th GEMM runs at share f of the chain's rate, f rising linearly from f0 (the floor's
     * level) to 1 over up_s; a gap before it makes its share (one GEMM's time x (1 - f) / f) */
    double at = 0, gemm_s = sh->ctl->tune_gemm_s;
    for (int i = 0; i < sh->count; i++) {
        double f = fmin(1, sh->f0 + (1 - sh->f0) * at / sh->up_s);
        double gap = f < 1 ? gemm_s * (1 - f) / f : 0;
        if (gap > 0 && CUDA_CHECK(filler_gap(gap, s)))
            return -1;
        if (gemm_chain_run_range(g, i, 1, s) != 0)
            return -1;
        at += gap + gemm_s;
    }
    return 0;
}

int shaper_after_compute(struct shaper *sh)
{
    if (!sh->on || (sh->duty_floor <= 0 && !(sh->down_s > 0)))
        return 0;
    /* the fade starts where the compute phase left the power (duty_top) and ends on the floor */
    float start = sh->down_s > 0 ? sh->duty_top : sh->duty_floor;
    return filler_start(sh->fill, 1.0f, start, sh->duty_floor, sh->down_s, SHAPER_FILLER_LIFE_S);
}

int shaper_replay(struct shaper *sh, double watts, float *duty)
{
    float d = watts > 0 ? shaper_duty_for(sh->ctl, watts) : 0;
    if (filler_running(sh->fill) && fabsf(d - *duty) < 0.005f)
        return 0;   /* the same duty: the running filler holds it */
    *duty = d;
    if (d <= 0) {
        filler_stop(sh->fill);
        return 0;
    }
    return filler_start(sh->fill, 1.0f, d, d, 0, SHAPER_FILLER_LIFE_S);
}

double shaper_range_w(const struct shaper *sh, double *top_w)
{
    *top_w = sh->ctl->tune_w[SHAPER_DUTIES];
    return sh->ctl->tune_w[0];
}
