/* harness/cuda/shaper.c: software mitigations on a real GPU (see shaper.h). */
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
#define SHAPER_SETTLE_S 0.15            /* a level settles this long before it is measured */
#define SHAPER_MEASURE_S 0.35           /* and is averaged over this long */
#define SHAPER_FILLER_LIFE_S 30.0       /* a filler never outlives this: a lost stop cannot hold the GPU */
#define SHAPER_MIN_SHARE 0.1            /* the gradual release starts at a tenth of the chain's rate */

struct shaper {
    struct filler *fill;
    struct mit_model mm;
    int on;                   /* the run's mitigation acts here */
    int tuned;                /* the levels below were measured (once per worker) */
    double idle_w, compute_w; /* measured */
    double duty_w[SHAPER_DUTIES + 1];   /* power at duty 0 (idle), 0.25 .. 1 */
    double gemm_s;            /* one GEMM of the chain, measured */
    int count;                /* GEMMs in the chain */
    /* this run's settings from the levels */
    float duty_floor, duty_top;
    double up_s, down_s;      /* how long the release and the fade last */
};

struct shaper *shaper_create(char *why, size_t n)
{
    struct shaper *sh = xcalloc(1, sizeof *sh);
    if (!(sh->fill = filler_create(why, n))) {
        free(sh);
        return NULL;
    }
    return sh;
}

void shaper_destroy(struct shaper *sh)
{
    if (!sh)
        return;
    filler_destroy(sh->fill);
    free(sh);
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

static double pacc_mean(const struct pacc *a) { return a->n ? a->sum / a->n : NAN; }

/* Averages the power while the GPU does what was started (or idles): settle, then measure; keeps beating.
 * With keep_busy, the GEMM chain is re-issued whenever the stream empties (the compute level). */
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
    return pacc_mean(&a);
}

/* Measures idle, the compute phase, one GEMM's time and the filler at each duty. 0, or -1 with w->err. */
static int shaper_tune(struct shaper *sh, struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s)
{
    cudaEvent_t e0, e1;
    float ms = 0;
    if (CUDA_CHECK(cudaEventCreate(&e0)) || CUDA_CHECK(cudaEventCreate(&e1)))
        return snprintf(w->err, sizeof w->err, "mitigation tuning: cudaEventCreate failed"), -1;
    int bad = CUDA_CHECK(cudaStreamSynchronize(s)) || CUDA_CHECK(cudaEventRecord(e0, s)) || gemm_chain_run(g, s) != 0 ||
              CUDA_CHECK(cudaEventRecord(e1, s)) || CUDA_CHECK(cudaEventSynchronize(e1)) ||
              CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    if (bad)
        return snprintf(w->err, sizeof w->err, "mitigation tuning: the GEMM chain failed"), -1;
    sh->gemm_s = ms * 1e-3 / (sh->count > 0 ? sh->count : 1);
    sh->idle_w = shaper_level(w, g, s, 0);
    sh->compute_w = shaper_level(w, g, s, 1);
    sh->duty_w[0] = sh->idle_w;
    for (int i = 1; i <= SHAPER_DUTIES; i++) {
        float d = (float)i / SHAPER_DUTIES;
        if (filler_start(sh->fill, 1.0f, d, d, 0, SHAPER_FILLER_LIFE_S) != 0)
            return snprintf(w->err, sizeof w->err, "mitigation tuning: the filler kernel did not start"), -1;
        sh->duty_w[i] = shaper_level(w, g, s, 0);
        if (filler_wait(sh->fill) != 0)
            return snprintf(w->err, sizeof w->err, "mitigation tuning: the filler kernel failed"), -1;
    }
    sh->tuned = 1;
    return 0;
}

/* The duty at which the filler draws watts: linear between the measured levels (0: at or below idle; 1: at
 * or above the filler's most). Without readings: watts as a share of the compute level, untuned. */
static float shaper_duty_for(const struct shaper *sh, double watts)
{
    if (!isfinite(sh->duty_w[SHAPER_DUTIES]) || !isfinite(sh->idle_w)) {
        double top = isfinite(sh->compute_w) && sh->compute_w > 0 ? sh->compute_w : watts;
        return top > 0 ? (float)fmin(1, fmax(0, watts / top)) : 0;
    }
    if (watts <= sh->duty_w[0])
        return 0;
    for (int i = 1; i <= SHAPER_DUTIES; i++)
        if (watts <= sh->duty_w[i] && sh->duty_w[i] > sh->duty_w[i - 1])
            return (float)((i - 1 + (watts - sh->duty_w[i - 1]) / (sh->duty_w[i] - sh->duty_w[i - 1])) / SHAPER_DUTIES);
    return 1;
}

int shaper_begin_run(struct shaper *sh, struct worker_ctx *w, struct gemm_chain *g, cudaStream_t s)
{
    filler_stop(sh->fill);   /* the previous run's last filler, if it was still holding the floor */
    const struct plugin_spec *spec = &w->sc->mitigations[w->run];
    const struct mitigation_ops *mo = mitigation_table[spec->index];
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
    int needs_levels = sh->mm.floor_w > 0 || sh->mm.ramp_up_w_s > 0 || sh->mm.ramp_down_w_s > 0;
    sh->on = needs_levels || sh->mm.delay_s > 0;
    if (!needs_levels)
        return 0;
    if (!isfinite(sh->mm.floor_w)) {
        snprintf(w->err, sizeof w->err, "%s: a floor in %% of TDP, but this GPU's TDP is not known (no NVML): give it in W",
                 spec->name);
        return -1;
    }
    sh->count = (int)w->sc->workload.gemm.count;
    if (!sh->tuned && shaper_tune(sh, w, g, s) != 0)
        return -1;
    double low = sh->mm.floor_w > 0 ? fmax(sh->mm.floor_w, sh->idle_w) : sh->idle_w;
    double step = isfinite(sh->compute_w) && isfinite(low) ? fmax(0, sh->compute_w - low) : 0;
    sh->duty_floor = sh->mm.floor_w > 0 ? shaper_duty_for(sh, sh->mm.floor_w) : 0;
    sh->duty_top = sh->mm.ramp_down_w_s > 0 ? shaper_duty_for(sh, sh->compute_w) : sh->duty_floor;
    sh->up_s = sh->mm.ramp_up_w_s > 0 ? step / sh->mm.ramp_up_w_s : 0;
    sh->down_s = sh->mm.ramp_down_w_s > 0 ? step / sh->mm.ramp_down_w_s : 0;
    char note[64];
    snprintf(note, sizeof note, "idle %.0f W, compute %.0f W, filler %.0f W at 100%%", sh->idle_w, sh->compute_w,
             sh->duty_w[SHAPER_DUTIES]);
    worker_emit_tuned(w, sh->mm.floor_w > 0 ? sh->mm.floor_w : NAN, sh->duty_floor, note);
    return 0;
}

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
    /* gradual release: the i-th GEMM runs at share f of the chain's rate, f rising linearly over up_s from
     * SHAPER_MIN_SHARE; a gap before it makes its share (one GEMM's time x (1 - f) / f) */
    double at = 0;
    for (int i = 0; i < sh->count; i++) {
        double f = fmin(1, fmax(SHAPER_MIN_SHARE, at / sh->up_s));
        double gap = f < 1 ? sh->gemm_s * (1 - f) / f : 0;
        if (gap > 0 && CUDA_CHECK(filler_gap(gap, s)))
            return -1;
        if (gemm_chain_run_range(g, i, 1, s) != 0)
            return -1;
        at += gap + sh->gemm_s;
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
