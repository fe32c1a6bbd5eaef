/* harness/backends/sim/sim.c: the sim backend. Real small data — a CPU GEMM, a shared-memory all-reduce of real
 * fp32 gradients, an optimizer step — with durations and power from a model (scenario key `sim:`), timed
 * on the wall clock so the supervisor sees what it would see on GPUs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abft.h"
#include "checkpoint.h"
#include "detectors/detector.h"
#include "simcoll.h"
#include "simint.h"
#include "simmodel.h"

#define SIM_MAX_S 86400.0   /* the longest step or iteration the model runs (a day); sim_check refuses longer ones */

/* Returns the modeled power level of a phase under the mitigation's model mm, before its floor (sim_target). */
static double sim_level(const struct sim_params *m, const struct mit_model *mm, int phase)
{
    double p = phase == PH_COMPUTE ? m->compute_w : phase == PH_COMM ? m->comm_w : phase == PH_CKPT ? m->ckpt_w
             : phase == PH_OPT ? m->optimizer_w : m->idle_w;
    if ((phase == PH_COMPUTE || phase == PH_OPT) && mm->cap_w > 0 && p > mm->cap_w)
        p = mm->cap_w;
    return p;
}

/* The level the power heads for from p0 towards a phase's level under a floor: from at or above the floor, the
 * level itself (the fall stops at the floor: simmodel_power_floor); from below, at least the floor (the filler
 * climbs to it). */
static double sim_target(double p0, double level, double floor_w)
{
    return floor_w > 0 && p0 < floor_w && level < floor_w ? floor_w : level;
}

/* Sets and publishes the model's state: from t on, from the power p there, towards a phase's level; inside a gap
 * the filler's plan (floor, held fall, climb) applies, during compute nothing holds the power back. */
static void sim_set_state(struct sim *s, uint64_t t, double p, double level, int phase)
{
    struct power_state ps = { .phase = phase, .t0_ns = t, .p0_w = p, .target_w = level, .dip_floor_w = level };
    const struct fill_plan *fp = &s->plan;
    if (phase == PH_COMPUTE)
        ps.burst_t0_ns = s->burst_t0;   /* the limiter's burst, from the compute phase's start after a gap */
    if (s->in_gap && fill_plan_active(fp)) {
        ps.dip_t0_ns = s->gap_counts ? s->gap_t0 : 0;   /* the held-up power after a compute phase dips */
        ps.dip_base_w = s->gap_base_w;
        ps.floor_w = fp->floor_w;
        ps.target_w = sim_target(p, level, fp->floor_w);
        ps.down_w_s = fp->down_w_s;
        ps.hold_w = fp->high_w;
        ps.up_w_s = fp->up_w_s;
        ps.rise_ns = fp->rise_at_s >= 0 ? s->gap_t0 + (uint64_t)(fp->rise_at_s * 1e9) : 0;
        ps.rise_w = fp->high_w;
        if (s->gap_counts)   /* after a compute phase: the learned boost of the gap's first part */
            memcpy(ps.boost_w, s->learn.boost_w, sizeof ps.boost_w);
    }
    sim_sensor_step(&s->sc->sim, s->slot, &s->pw, &ps);
    s->pw = ps;
    ctl_set_power(s->ctl, &ps);
}

static_assert(FILL_LEARN_BINS == CTL_BOOST_BINS, "the boost's bins in the control block");

/* Ends the gap that followed a compute phase at t: its samples (the supervisor's, stamped by the modelled sensor)
 * teach the filler its first part (fill_learn_gap), as on a GPU; says the boosts learned after 4, 8, 16, ... gaps. */
static void sim_learn_gap(struct sim *s, uint64_t t)
{
    static struct ctl_sample_copy cs[CTL_SAMPLES];   /* one worker process, one rank */
    static struct fill_sample fs[CTL_SAMPLES];
    if (!fill_plan_active(&s->plan) || t <= s->gap_t0)
        return;
    int n = ctl_read_samples(s->ctl, s->gap_t0, t, cs, CTL_SAMPLES);
    for (int i = 0; i < n; i++)
        fs[i] = (struct fill_sample){ (double)(cs[i].t_ns - s->gap_t0) * 1e-9, cs[i].w };
    double u = s->sc->sim.sensor.mode == SENSOR_POINT ? 0 : s->sc->sim.sensor.update_s;   /* each sample's window: the
                                                * modelled sensor's update; none or a point sensor's: an instant */
    fill_learn_gap(&s->learn, &s->plan, s->sc->sim.idle_w, (double)(t - s->gap_t0) * 1e-9, fs, n, u > 0 ? u : 1e-4);
    int g = s->learn.gaps;
    if (s->w && g >= 4 && !(g & (g - 1)) && g > s->learn_said) {
        s->learn_said = g;
        char note[64];   /* wevent's note */
        fill_learn_describe(&s->learn, note, sizeof note);
        worker_emit_tuned(s->w, s->plan.floor_w, 0, note);
    }
}

/* Begins a gap between compute phases at t (a compute phase's end; counts: its length is history, not a run's
 * start): plans the filler for it from the last gaps' lengths, the mitigation and the model's levels. */
static void sim_gap_begin(struct sim *s, uint64_t t, int counts)
{
    const struct sim_params *m = &s->sc->sim;
    s->in_gap = 1;
    s->gap_counts = counts;
    s->gap_t0 = t;
    fill_plan_make(&s->plan, s->mm.floor_w, s->mm.ramp_down_w_s, s->mm.ramp_up_w_s, m->idle_w,
                   sim_level(m, &s->mm, PH_COMPUTE), m->filler_w, fill_history_expect(&s->gaps));
}

/* Reads the run's mitigation into s->mm. */
void sim_mitigation(struct sim *s, struct worker_ctx *w)
{
    const struct plugin_spec *spec = &s->sc->mitigations[w->run];
    const struct mitigation_ops *ops = mitigation_table[spec->index];
    memset(&s->mm, 0, sizeof s->mm);
    if (ops->model)
        ops->model(spec->params, &s->sc->sim, w->rank + (int)w->shm->hdr->rank_offset, (int)w->shm->hdr->world, &s->mm);
}

/* Draws a phase duration: nominal seconds, jittered, stretched while straggling, divided by the speed-up; bounded
 * before it becomes a count of ns (sim_check refuses a step over SIM_MAX_S, so only jitter and a straggler reach
 * past it, never 1e18 ns). */
uint64_t sim_duration_ns(struct sim *s, struct worker_ctx *w, double nominal_s)
{
    double f = 1.0 + s->sc->sim.jitter * rng_normal(&s->jitter);
    if (f < 0.5)
        f = 0.5;
    double ns = nominal_s * f * worker_slowdown(w) / s->sc->sim.speedup * 1e9;
    return ns > 0 ? ns < 1e18 ? (uint64_t)ns : (uint64_t)1e18 : 0;
}

/* Sleeps until t_ns, beating the heartbeat: modeled GPU work is progress, not a hang. */
void sim_wait_until(struct worker_ctx *w, uint64_t t_ns)
{
    uint64_t step = (uint64_t)(w->sc->heartbeat.interval_s * 1e9);
    for (uint64_t now = mono_ns(); now < t_ns; now = mono_ns()) {
        sleep_until_ns(t_ns - now > step ? now + step : t_ns);
        worker_beat(w);
        if (shm_aborted(w->shm))
            return;
    }
}

/* Allocates and seeds the real buffers of one rank. */
static void *sim_init(struct worker_ctx *w, char *why, size_t n)
{
    const struct scenario *sc = w->sc;
    struct sim *s = xcalloc(1, sizeof *s);
    struct rng data;
    (void)why;
    (void)n;
    s->sc = sc;
    s->shm = w->shm;
    s->ctl = w->ctl;
    for (uint32_t k = 0; k < w->shm->hdr->nslots; k++)
        if (shm_ctl(w->shm, (int)k) == w->ctl)
            s->slot = (int)k;
    s->w = w;
    s->rank = w->rank;
    s->nranks = w->nranks;
    rng_seed(&s->jitter, (uint64_t)sc->seed, 1000 + (uint64_t)w->rank + w->shm->hdr->rank_offset);
    rng_seed(&data, (uint64_t)sc->seed, 0);   /* weights: the same on every rank, as in data parallelism */
    s->dm = sc->workload.gemm.m < sc->sim.max_dim ? sc->workload.gemm.m : sc->sim.max_dim;
    s->dn = sc->workload.gemm.n < sc->sim.max_dim ? sc->workload.gemm.n : sc->sim.max_dim;
    s->dk = sc->workload.gemm.k < sc->sim.max_dim ? sc->workload.gemm.k : sc->sim.max_dim;
    uint64_t want = sc->workload.allreduce.bytes / sizeof(float);
    s->elems = want < (uint64_t)sc->sim.max_elems ? (size_t)want : (size_t)sc->sim.max_elems;
    if (s->elems < (size_t)(s->dk * s->dn))
        s->elems = (size_t)(s->dk * s->dn);   /* B is a view of the weights */
    if (s->elems > w->shm->hdr->coll_elems)
        s->elems = w->shm->hdr->coll_elems;
    s->a = xmalloc((size_t)(s->dm * s->dk) * sizeof(float));
    s->c = xmalloc((size_t)(s->dm * s->dn) * sizeof(float));
    s->grad = xmalloc(s->elems * sizeof(float));
    s->weights = xmalloc(s->elems * sizeof(float));
    for (long i = 0; i < s->dm * s->dk; i++)
        s->a[i] = (float)rng_normal(&data);
    abft_embed(s->a, s->dm, s->dk, ABFT_FMT_FP32);   /* checksum rows (abft.h); under 3 rows none: abft refused */
    for (size_t i = 0; i < s->elems; i++)
        s->weights[i] = (float)(0.1 * rng_normal(&data));
    s->b0 = xmalloc((size_t)(s->dk * s->dn) * sizeof(float));
    s->replay_c = xmalloc((size_t)(s->dm * s->dn) * sizeof(float));
    memcpy(s->b0, s->weights, (size_t)(s->dk * s->dn) * sizeof(float));
    sim_set_state(s, mono_ns(), sc->sim.idle_w, sc->sim.idle_w, PH_IDLE);
    return s;
}

/* Moves the power model to phase at t: the level reached so far becomes the new start. A compute phase ends the
 * gap in progress (its length becomes history); the first other phase after it begins the next gap. */
static void sim_on_phase(void *b, int phase, uint64_t t)
{
    struct sim *s = b;
    double p = sim_power_now(s, t);
    if (phase == PH_COMPUTE) {
        if (s->in_gap && s->gap_counts) {
            fill_history_add(&s->gaps, (double)(t - s->gap_t0) * 1e-9);
            sim_learn_gap(s, t);
        }
        if (s->in_gap)
            s->burst_t0 = t;   /* a compute phase after a gap: the limiter's burst begins */
        s->in_gap = 0;
    } else if (!s->in_gap) {
        sim_gap_begin(s, t, 1);
        s->gap_base_w = sim_level(&s->sc->sim, &s->mm, phase);   /* its own level as it begins */
    }
    sim_set_state(s, t, p, sim_level(&s->sc->sim, &s->mm, phase), phase);
}

/* The rank goes idle (its run over, or paused): the power heads for the idle level with no filler, as a GPU's does
 * when the cuda backend stops its shaper (until 2026-11-30 the sim held the last gap's plan: a paused rank, and the
 * next run's start, drew the filler's floor). The time idle is no gap of the run's: its length is not history, and
 * the next compute phase begins after a gap (the limiter's burst). */
static void sim_idle(void *b)
{
    struct sim *s = b;
    uint64_t t = mono_ns();
    if (t < s->pw.t0_ns)
        t = s->pw.t0_ns;   /* never before the state in force */
    double p = sim_power_now(s, t);
    memset(&s->plan, 0, sizeof s->plan);
    s->in_gap = 1;
    s->gap_counts = 0;
    sim_set_state(s, t, p, s->sc->sim.idle_w, PH_IDLE);
}

void sim_set_level(struct sim *s, uint64_t t, double p_w, double level_w, int phase)
{
    if (s->mm.cap_w > 0 && level_w > s->mm.cap_w)
        level_w = s->mm.cap_w;
    sim_set_state(s, t, p_w, level_w, phase);
}

/* Computes C = A x B on the CPU (row-major; A is dm x dk, B dk x dn). */
void sim_gemm(const struct sim *s, const float *bm, float *c)
{
    for (long i = 0; i < s->dm; i++) {
        float *ci = c + i * s->dn;
        memset(ci, 0, (size_t)s->dn * sizeof(float));
        for (long k = 0; k < s->dk; k++) {
            float aik = s->a[i * s->dk + k];
            const float *bk = bm + k * s->dn;
            for (long j = 0; j < s->dn; j++)
                ci[j] += aik * bk[j];
        }
    }
}

/* Takes the run's mitigation into the model at once: between phases the rank is idle under it too. */
static int sim_begin_run(void *b, struct worker_ctx *w)
{
    struct sim *s = b;
    uint64_t now = mono_ns();
    sim_mitigation(s, w);
    memset(&s->gaps, 0, sizeof s->gaps);   /* a new run: its own gaps, its own learning */
    memset(&s->learn, 0, sizeof s->learn);
    s->learn_said = 0;
    s->raise_said = 0;
    sim_gap_begin(s, now, 0);
    sim_on_phase(s, PH_IDLE, now);
    char note[64];   /* wevent's note: a floor out of reach, said before the run's first iteration, as a GPU's
                      * tuning says it, with the limit that binds (the filler's top or the compute level) */
    if (fill_plan_floor_why(&s->plan, note, sizeof note))
        worker_emit_tuned(w, s->plan.floor_w, 1, note);
    return 0;
}

/* The GEMM chain's flops. */
static double sim_flops(const struct scenario *sc)
{
    return 2.0 * (double)sc->workload.gemm.m * (double)sc->workload.gemm.n * (double)sc->workload.gemm.k *
           (double)sc->workload.gemm.count;
}

/* The model's nominal compute phase (s): the GEMM chain's flops at the model's rate, before any mitigation. */
static double sim_compute_s(const struct scenario *sc) { return sim_flops(sc) / (sc->sim.tflops * 1e12); }

/* The model's nominal all-reduce (s) over world ranks: latency plus nccl-tests' bus bytes at the model's bus rate. */
static double sim_comm_s(const struct scenario *sc, int world)
{
    int n = sc->workload.allreduce.emulate_ranks > 0 ? (int)sc->workload.allreduce.emulate_ranks : world;
    double busbw = sc->workload.allreduce.emulate_busbw_gbs > 0 ? sc->workload.allreduce.emulate_busbw_gbs : sc->sim.busbw_gbs;
    return sim_comm_kind_s(sc, ST_ALLREDUCE, (double)sc->workload.allreduce.bytes, n, busbw);
}

/* An iteration's seconds on the model, as the workers draw them without jitter or mitigation (check's estimate). */
static double sim_estimate_iter_s(const struct scenario *sc)
{
    int world = (int)(sc->ranks * sc->nodes);
    if (sc->workload.n_steps > 0)
        return sim_steps_estimate_s(sc, world) / sc->sim.speedup;
    if (sc->workload.replay.on)
        return sc->workload.replay.n * sc->workload.replay.dt_s / sc->sim.speedup;
    return (sim_compute_s(sc) + sim_comm_s(sc, world)) / sc->sim.speedup;
}

void sim_say_raise(struct sim *s, struct worker_ctx *w)
{
    double gap = fill_history_expect(&s->gaps);
    if (!s->in_gap || !s->plan.raised || s->raise_said || !s->gap_counts || !isfinite(gap))
        return;
    char note[64];   /* wevent's note */
    snprintf(note, sizeof note, "ramps do not fit the %.0f ms gap: floor raised to %.0f W", 1e3 * gap, s->plan.floor_w);
    worker_emit_tuned(w, s->plan.floor_w, 0, note);
    s->raise_said = 1;
}

void sim_gemm_data(struct sim *s, struct worker_ctx *w)
{
    const struct scenario *sc = s->sc;
    sim_gemm(s, s->weights, s->c);
    worker_point(w, IP_AFTER_GEMM);
    struct rng g;   /* per rank and iteration: the same seed gives the same gradients */
    rng_seed(&g, (uint64_t)sc->seed ^ ((uint64_t)w->iter * 0x9E3779B97F4A7C15ull),
             7 + (uint64_t)w->rank + s->shm->hdr->rank_offset);   /* the global rank: 2 nodes x 2 = 1 node x 4 */
    size_t csize = (size_t)(s->dm * s->dn);
    for (size_t i = 0; i < s->elems; i++)
        s->grad[i] = 0.01f * tanhf(s->c[i % csize]) + 0.001f * (float)(rng_uniform(&g) - 0.5);
}

/* The compute phase: one real GEMM C = A x B (B = weights), gradients from C, then the modeled duration. */
static int sim_compute(void *b, struct worker_ctx *w)
{
    struct sim *s = b;
    sim_mitigation(s, w);
    sim_say_raise(s, w);
    sim_delay(s, w);
    double nominal = sim_gemm_nominal_s(s, sim_flops(s->sc));
    uint64_t t0 = mono_ns();
    uint64_t end = t0 + sim_duration_ns(s, w, nominal);
    worker_phase(w, PH_COMPUTE, 1, t0, 0);
    sim_gemm_data(s, w);
    sim_wait_until(w, end);
    worker_phase(w, PH_COMPUTE, 0, mono_ns(), sim_flops(s->sc));
    return shm_aborted(s->shm) ? -1 : 0;
}

/* Lets the all-reduce's barrier waits beat the heartbeat. */
static void sim_beat(void *arg) { worker_beat(arg); }

int sim_exchange(struct sim *s, struct worker_ctx *w, uint64_t wait_until)
{
    if (s->comm_broken) {   /* as a peer of an aborted NCCL communicator would, the others stop waiting */
        worker_emit_detect(w, DET_COMM, "the rank's communicator failed");
        shm_abort(s->shm);
        snprintf(w->err, sizeof w->err, "communicator failed (comm-error)");
        return -1;
    }
    if (simcoll_allreduce(s->shm, w->rank, s->grad, s->grad, s->elems, sim_beat, w) != 0) {
        snprintf(w->err, sizeof w->err, "%s", !shm_aborted(s->shm) && atomic_load(&s->shm->hdr->xn.out_failed)
                                                 ? "the all-reduce across nodes failed (the supervisor says why)"
                                                 : "all-reduce aborted (a peer failed or the run was stopped)");
        return -1;
    }
    sim_wait_until(w, wait_until);
    worker_point(w, IP_AFTER_ALLREDUCE);
    uint32_t summed = s->shm->hdr->nodes > 1 ? atomic_load(&s->shm->hdr->xn.world_active) : atomic_load(&s->shm->hdr->nactive);
    float scale = 0.1f / (float)summed;   /* the mean of the ranks' gradients */
    for (size_t i = 0; i < s->elems; i++)
        s->weights[i] -= scale * s->grad[i];
    return 0;
}

/* The communication phase: the real shared-memory all-reduce, the modeled duration, the optimizer step. */
static int sim_allreduce(void *b, struct worker_ctx *w)
{
    struct sim *s = b;
    const struct scenario *sc = s->sc;
    double nominal = sim_comm_s(sc, (int)s->shm->hdr->world);
    uint64_t t0 = mono_ns();
    uint64_t end = t0 + sim_duration_ns(s, w, nominal);
    worker_point(w, IP_BEFORE_ALLREDUCE);
    worker_phase(w, PH_COMM, 1, t0, 0);
    if (sim_exchange(s, w, end) != 0)
        return -1;
    worker_phase(w, PH_COMM, 0, mono_ns(), (double)sc->workload.allreduce.bytes);
    worker_point(w, IP_AFTER_STEP);
    return shm_aborted(s->shm) ? -1 : 0;
}

/* Hands out the weights as the model state. */
static int sim_snapshot(void *b, const void **state, size_t *len)
{
    struct sim *s = b;
    *state = s->weights;
    *len = s->elems * sizeof(float);
    return 0;
}

/* Loads a state (weights) saved by sim_snapshot; a broken communicator is made anew. */
static int sim_restore(void *b, const void *state, size_t len)
{
    struct sim *s = b;
    if (len != s->elems * sizeof(float))
        return -1;
    memcpy(s->weights, state, len);
    s->comm_broken = 0;
    return 0;
}

static double sim_device_bytes(void *b)
{
    struct sim *s = b;
    return (double)((size_t)(s->dm * s->dk + s->dm * s->dn) + 2 * s->elems) * sizeof(float);
}

static void sim_fini(void *b)
{
    struct sim *s = b;
    if (!s)
        return;
    free(s->a);
    free(s->c);
    free(s->grad);
    free(s->weights);
    free(s->b0);
    free(s->replay_c);
    free(s);
}

/* The sim backend runs anywhere. */
static int sim_probe(char *why, size_t n)
{
    (void)why;
    (void)n;
    return 0;
}

/* Refuses a modelled step or iteration longer than SIM_MAX_S (a step alone goes through the run's own formulas),
 * naming the key that sets its time and where the step was given. */
static int sim_check_time(const struct scenario *sc, char *why, size_t n)
{
    static const char *const keys[] = { "sim.tflops", "sim.busbw", "sim.mem_bw", "sim.speedup" };   /* by class */
    const double rates[] = { sc->sim.tflops, sc->sim.busbw_gbs, sc->sim.mem_gbs, sc->sim.speedup };
    int world = (int)(sc->ranks * sc->nodes), line = 0, cls = -1;
    double d = 0;
    char what[64] = "an iteration";
    struct scenario *one = xmalloc(sizeof *one);
    *one = *sc;
    one->workload.n_shapes = 1;
    for (int i = 0; i < sc->workload.n_steps && cls < 0; i++) {
        one->workload.shapes[0].first = i, one->workload.shapes[0].n = 1;
        if (!((d = sim_estimate_iter_s(one)) <= SIM_MAX_S)) {
            cls = step_class_of(sc->workload.steps[i].kind), line = sc->workload.steps[i].line;
            cls = cls == SCL_IDLE && !line ? SCL_COMPUTE : cls;   /* a preset's idle: the bubble, sized by sim.tflops */
            snprintf(what, sizeof what, "the %s step%s", step_kind_name(sc->workload.steps[i].kind),
                     line ? " given here" : " of the preset");
        }
    }
    free(one);
    if (cls < 0 && !((d = sim_estimate_iter_s(sc)) <= SIM_MAX_S))   /* the simple form: the longer phase's rate */
        cls = scenario_stepped(sc) ? SCL_IDLE : sim_compute_s(sc) >= sim_comm_s(sc, world) ? SCL_COMPUTE : SCL_COMM;
    if (cls < 0)
        return 0;
    int emulated = cls == SCL_COMM && !scenario_stepped(sc) && sc->workload.allreduce.emulate_busbw_gbs > 0;
    const char *key = emulated ? "workload.allreduce.emulate_busbw" : keys[cls];
    /* the place of the key named where the file gives it (the step's line then said in the text), else the step's */
    char at[32] = "";
    int kl = 0, kc = 0;
    if (scenario_key_at(sc, key, &kl, &kc)) {
        snprintf(at, sizeof at, ":%d:%d", kl, kc);
        if (line)
            snprintf(what + strlen(what), sizeof what - strlen(what), " (line %d)", line);
    } else if (line) {
        snprintf(at, sizeof at, ":%d:1", line);
    }
    snprintf(why, n, "%s%s: %s: %s takes %.3g s on the model, more than a day (%.0f s), the longest step or iteration "
             "the sim backend runs: raise %s (now %g%s)%s, or make the work smaller", sc->file, at, key, what, d, SIM_MAX_S,
             key, emulated ? sc->workload.allreduce.emulate_busbw_gbs : rates[cls], kl ? "" : ", its default",
             cls == SCL_IDLE ? "" : " or sim.speedup");
    return EXIT_INPUT;
}

static int sim_check(const struct scenario *sc, char *why, size_t n)
{
    if (sc->ranks > 256) {
        snprintf(why, n, "%s:%d:%d: ranks: %lld worker processes on one machine is more than the sim backend allows (256)",
                 sc->file, sc->ranks_line, sc->ranks_col, (long long)sc->ranks);
        return EXIT_INPUT;
    }
    int rc = scenario_mem_check(sc, why, n);   /* its state, sized from the scenario, fits the machine */
    return rc ? rc : sim_check_time(sc, why, n);
}

static size_t sim_coll_elems(const struct scenario *sc)
{
    uint64_t coll = (uint64_t)sc->sim.max_elems;   /* the collective's elements: the model's state */
    if (coll < (uint64_t)(sc->sim.max_dim * sc->sim.max_dim))
        coll = (uint64_t)(sc->sim.max_dim * sc->sim.max_dim);
    return (size_t)coll;
}
static size_t sim_state_bytes(const struct scenario *sc) { return sim_coll_elems(sc) * sizeof(float); }
static double sim_model_tdp_w(const struct scenario *sc) { return sc->sim.tdp_w; }
static double sim_model_tflops(const struct scenario *sc) { return sc->sim.tflops; }
static double sim_model_busbw_gbs(const struct scenario *sc) { return sc->sim.busbw_gbs; }

const struct backend_ops backend_sim = {
    .version = BACKEND_OPS_VERSION,
    .name = "sim",
    .modelled = 1,
    .max_nodes = SHM_MAX_NODES,
    .state_bytes = sim_state_bytes,
    .shm_coll_elems = sim_coll_elems,
    .model_note = "power, energy and time: the sim backend's model (each phase's level, the first-order response "
                  "sim.ramp, noise), not a measurement",
    .model_tdp_w = sim_model_tdp_w,
    .model_tflops = sim_model_tflops,
    .model_busbw_gbs = sim_model_busbw_gbs,
    .estimate_iter_s = sim_estimate_iter_s,
    .help = "CPU model: real small data (GEMM, shared-memory all-reduce), modeled durations and power",
    .probe = sim_probe,
    .check = sim_check,
    .power_open = sim_power_open,
    .power_read = sim_power_read,
    .power_close = sim_power_close,
    .power_info = sim_power_info,
    .sensor_source = sim_sensor_source,
    .init = sim_init,
    .on_phase = sim_on_phase,
    .idle = sim_idle,
    .begin_run = sim_begin_run,
    .compute = sim_compute,
    .allreduce = sim_allreduce,
    .steps = sim_steps,
    .replay_iter = sim_replay_iter,
    .snapshot = sim_snapshot,
    .device_bytes = sim_device_bytes,
    .corrupt = sim_corrupt,
    .break_comm = sim_break_comm,
    .abft = sim_abft,
    .fingerprint = sim_fingerprint,
    .fingerprint_start = sim_fingerprint_start, .fingerprint_take = sim_fingerprint_take,
    .replay = sim_replay,
    .detector_device_s = sim_detector_device_s,
    .restore = sim_restore,
    .fini = sim_fini,
};
