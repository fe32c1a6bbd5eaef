/* harness/backends/sim/sim.c: the sim backend. Real small data — a CPU GEMM, a shared-memory all-reduce of real
 * fp32 gradients, an optimizer step — with durations and power from a model (scenario key `sim:`), timed
 * on the wall clock so the supervisor sees what it would see on GPUs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "checkpoint.h"
#include "detectors/detector.h"
#include "mitigations/mitigation.h"
#include "simcoll.h"
#include "simmodel.h"
#include "util.h"

struct sim {
    const struct scenario *sc;
    struct shm *shm;
    int rank, nranks;
    struct rng jitter;
    long dm, dn, dk;          /* real GEMM dimensions (capped by sim.max_dim) */
    float *a, *c;             /* A (dm x dk) and C (dm x dn); B is a view of the weights */
    size_t elems;             /* real gradient length */
    float *grad, *weights;
    /* the power model's state, mirrored into the control block at each phase change */
    uint64_t pw_t0;
    double pw_p0, pw_target;
    struct mit_model mm;      /* what the run's mitigation does to the model */
    struct ctl *ctl;
    float *b0, *replay_c;     /* replay detector: the weights' first values and its output */
    int comm_broken;          /* comm-error: the next all-reduce fails */
    uint64_t fp_hash;         /* fingerprint async: hashed at start (the sim has no second stream), taken later */
    int fp_pending;
};

/* Returns the modeled power level of a phase under the mitigation's model mm. */
static double sim_level(const struct sim_params *m, const struct mit_model *mm, int phase)
{
    double p = phase == PH_COMPUTE ? m->compute_w : phase == PH_COMM ? m->comm_w : phase == PH_CKPT ? m->ckpt_w : m->idle_w;
    if (phase == PH_COMPUTE && mm->cap_w > 0 && p > mm->cap_w)
        p = mm->cap_w;
    return p < mm->floor_w ? mm->floor_w : p;
}

/* Evaluates the model: power at t after a change to target at t0 from p0 — the natural first-order response
 * (time constant tau) bounded by the ramp limits (simmodel.h). The worker and the supervisor's reading both
 * come here. */
static double sim_power_at(const struct power_state *ps, uint64_t t, double tau)
{
    double dt = t > ps->t0_ns ? (double)(t - ps->t0_ns) * 1e-9 : 0;
    return simmodel_power(ps->p0_w, ps->target_w, dt, tau, ps->up_w_s, ps->down_w_s);
}

/* The model's state now: the last change, under the run's ramp limits. */
static struct power_state sim_state(const struct sim *s, int phase)
{
    return (struct power_state){ .phase = phase, .t0_ns = s->pw_t0, .p0_w = s->pw_p0, .target_w = s->pw_target,
                                 .up_w_s = s->mm.ramp_up_w_s, .down_w_s = s->mm.ramp_down_w_s };
}

/* Publishes the model's state: a change to target at t0 from p0. */
static void sim_publish(struct sim *s, int phase)
{
    struct power_state ps = sim_state(s, phase);
    ctl_set_power(s->ctl, &ps);
}

/* Reads the run's mitigation into s->mm. */
static void sim_mitigation(struct sim *s, struct worker_ctx *w)
{
    const struct plugin_spec *spec = &s->sc->mitigations[w->run];
    const struct mitigation_ops *ops = mitigation_table[spec->index];
    memset(&s->mm, 0, sizeof s->mm);
    if (ops->model)
        ops->model(spec->params, &s->sc->sim, w->rank + (int)w->shm->hdr->rank_offset, (int)w->shm->hdr->world, &s->mm);
}

/* Draws a phase duration: nominal seconds, jittered, stretched while straggling, divided by the speed-up. */
static uint64_t sim_duration_ns(struct sim *s, struct worker_ctx *w, double nominal_s)
{
    double f = 1.0 + s->sc->sim.jitter * rng_normal(&s->jitter);
    if (f < 0.5)
        f = 0.5;
    return (uint64_t)(nominal_s * f * worker_slowdown(w) / s->sc->sim.speedup * 1e9);
}

/* Sleeps until t_ns, beating the heartbeat: modeled GPU work is progress, not a hang. */
static void sim_wait_until(struct worker_ctx *w, uint64_t t_ns)
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
    for (size_t i = 0; i < s->elems; i++)
        s->weights[i] = (float)(0.1 * rng_normal(&data));
    s->b0 = xmalloc((size_t)(s->dk * s->dn) * sizeof(float));
    s->replay_c = xmalloc((size_t)(s->dm * s->dn) * sizeof(float));
    memcpy(s->b0, s->weights, (size_t)(s->dk * s->dn) * sizeof(float));
    s->pw_t0 = mono_ns();
    s->pw_p0 = s->pw_target = sc->sim.idle_w;
    sim_publish(s, PH_IDLE);
    return s;
}

/* Moves the power model to phase at t: the level reached so far becomes the new start. */
static void sim_on_phase(void *b, int phase, uint64_t t)
{
    struct sim *s = b;
    struct power_state now = sim_state(s, 0);
    double p = sim_power_at(&now, t, s->sc->sim.ramp_s);
    s->pw_t0 = t;
    s->pw_p0 = p;
    s->pw_target = sim_level(&s->sc->sim, &s->mm, phase);
    sim_publish(s, phase);
}

/* Computes C = A x B on the CPU (row-major; A is dm x dk, B dk x dn). */
static void sim_gemm(const struct sim *s, const float *bm, float *c)
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
    sim_mitigation(s, w);
    sim_on_phase(s, PH_IDLE, mono_ns());
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
    double bytes = (double)sc->workload.allreduce.bytes;
    int n = sc->workload.allreduce.emulate_ranks > 0 ? (int)sc->workload.allreduce.emulate_ranks : world;
    double busbw = sc->workload.allreduce.emulate_busbw_gbs > 0 ? sc->workload.allreduce.emulate_busbw_gbs : sc->sim.busbw_gbs;
    return sc->sim.latency_s + bytes * 2.0 * (n - 1) / n / (busbw * 1e9);
}

/* An iteration's seconds on the model, as the workers draw them without jitter or mitigation (check's estimate). */
static double sim_estimate_iter_s(const struct scenario *sc)
{
    return (sim_compute_s(sc) + sim_comm_s(sc, (int)(sc->ranks * sc->nodes))) / sc->sim.speedup;
}

/* The compute phase: one real GEMM C = A x B (B = weights), gradients from C, then the modeled duration. */
static int sim_compute(void *b, struct worker_ctx *w)
{
    struct sim *s = b;
    const struct scenario *sc = s->sc;
    sim_mitigation(s, w);
    if (s->mm.delay_s > 0)   /* stagger: this rank's group starts later */
        sim_wait_until(w, mono_ns() + (uint64_t)(s->mm.delay_s / sc->sim.speedup * 1e9));
    double nominal = sim_compute_s(sc);
    if (s->mm.cap_w > 0 && s->mm.cap_w < sc->sim.compute_w)   /* throughput ~ clock, power ~ clock^2.5 */
        nominal *= pow(sc->sim.compute_w / s->mm.cap_w, 0.4);
    /* A ramp-up limit releases the GEMM chain gradually: compute pays only what the limit costs beyond the natural
     * rise, the area between the natural and the limited curve over the step (simmodel.h) — nothing where the
     * limit never binds. The ramp-down limit (the filler fading out in communication) costs energy, no time. */
    if (s->mm.ramp_up_w_s > 0) {
        struct power_state now = sim_state(s, 0);
        double from = sim_power_at(&now, mono_ns(), sc->sim.ramp_s);   /* where power is as compute starts */
        nominal += simmodel_release_extra_s(nominal, from, sim_level(&sc->sim, &s->mm, PH_COMPUTE), sc->sim.ramp_s,
                                            s->mm.ramp_up_w_s);
    }
    uint64_t t0 = mono_ns();
    uint64_t end = t0 + sim_duration_ns(s, w, nominal);
    worker_phase(w, PH_COMPUTE, 1, t0, 0);
    sim_gemm(s, s->weights, s->c);
    worker_point(w, IP_AFTER_GEMM);
    struct rng g;   /* per rank and iteration: the same seed gives the same gradients */
    rng_seed(&g, (uint64_t)sc->seed ^ ((uint64_t)w->iter * 0x9E3779B97F4A7C15ull),
             7 + (uint64_t)w->rank + s->shm->hdr->rank_offset);   /* the global rank: 2 nodes x 2 = 1 node x 4 */
    size_t csize = (size_t)(s->dm * s->dn);
    for (size_t i = 0; i < s->elems; i++)
        s->grad[i] = 0.01f * tanhf(s->c[i % csize]) + 0.001f * (float)(rng_uniform(&g) - 0.5);
    sim_wait_until(w, end);
    worker_phase(w, PH_COMPUTE, 0, mono_ns(), sim_flops(sc));
    return shm_aborted(s->shm) ? -1 : 0;
}

/* Lets the all-reduce's barrier waits beat the heartbeat. */
static void sim_beat(void *arg) { worker_beat(arg); }

/* The communication phase: the real shared-memory all-reduce, the modeled duration, the optimizer step. */
static int sim_allreduce(void *b, struct worker_ctx *w)
{
    struct sim *s = b;
    const struct scenario *sc = s->sc;
    double bytes = (double)sc->workload.allreduce.bytes;
    double nominal = sim_comm_s(sc, (int)s->shm->hdr->world);
    uint64_t t0 = mono_ns();
    uint64_t end = t0 + sim_duration_ns(s, w, nominal);
    worker_point(w, IP_BEFORE_ALLREDUCE);
    worker_phase(w, PH_COMM, 1, t0, 0);
    if (s->comm_broken) {   /* as a peer of an aborted NCCL communicator would, the others stop waiting */
        worker_emit_detect(w, DET_COMM, "the rank's communicator failed");
        shm_abort(s->shm);
        snprintf(w->err, sizeof w->err, "communicator failed (comm-error)");
        return -1;
    }
    if (simcoll_allreduce(s->shm, w->rank, s->grad, s->grad, s->elems, sim_beat, w) != 0) {
        snprintf(w->err, sizeof w->err, "all-reduce aborted (a peer failed or the run was stopped)");
        return -1;
    }
    sim_wait_until(w, end);
    worker_point(w, IP_AFTER_ALLREDUCE);
    uint32_t summed = s->shm->hdr->nodes > 1 ? atomic_load(&s->shm->hdr->xn.world_active) : atomic_load(&s->shm->hdr->nactive);
    float scale = 0.1f / (float)summed;   /* the mean of the ranks' gradients */
    for (size_t i = 0; i < s->elems; i++)
        s->weights[i] -= scale * s->grad[i];
    worker_phase(w, PH_COMM, 0, mono_ns(), bytes);
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

/* Flips bits of one element (or perturbs its value) in the target buffer. */
static int sim_corrupt(void *b, struct corruption *c, char *what, size_t n)
{
    struct sim *s = b;
    float *buf = c->target == TGT_GEMM_OUTPUT ? s->c : c->target == TGT_WEIGHTS ? s->weights : s->grad;
    size_t len = c->target == TGT_GEMM_OUTPUT ? (size_t)(s->dm * s->dn) : s->elems;
    struct rng r;
    rng_seed(&r, c->seed, 0xb17);
    size_t i = (size_t)(rng_next(&r) % len);
    float old = buf[i];
    if (c->where == FLIP_VALUE) {
        buf[i] = (float)((double)old * (1.0 + c->value));
    } else {
        uint32_t u;
        memcpy(&u, &buf[i], 4);
        for (int k = 0; k < c->bits; k++) {   /* fp32: sign bit 31, exponent 30..23, mantissa 22..0 */
            int bit = c->where == FLIP_SIGN ? 31 : c->where == FLIP_EXPONENT ? 23 + (int)(rng_next(&r) % 8)
                    : c->where == FLIP_MANTISSA ? (int)(rng_next(&r) % 23) : (int)(rng_next(&r) % 32);
            u ^= 1u << bit;
        }
        memcpy(&buf[i], &u, 4);
    }
    uint32_t ob, nb;
    memcpy(&ob, &old, 4);
    memcpy(&nb, &buf[i], 4);
    c->out.format = FMT_FP32;
    c->out.element = (int64_t)i;
    c->out.mask = ob ^ nb;
    c->out.old_v = old;
    c->out.new_v = buf[i];
    if (c->target == TGT_GEMM_OUTPUT) {   /* what abft weighs a change of this element against: its column */
        double mag = 0;
        for (long r = 0; r < s->dm; r++)
            mag += fabs(s->c[r * s->dn + (long)i % s->dn]);
        c->out.scale = mag;
    }
    snprintf(what, n, "element %zu: %.9g -> %.9g", i, old, buf[i]);
    return 0;
}

/* Makes the next all-reduce of this rank fail. */
static int sim_break_comm(void *b, char *what, size_t n)
{
    ((struct sim *)b)->comm_broken = 1;
    snprintf(what, n, "the shared-memory collective of this rank gives up");
    return 0;
}

/* Huang-Abraham: the column sums of C against (column sums of A) x B, in double. 1 when they disagree. */
static int sim_abft(void *b, double *err, double *tol)
{
    struct sim *s = b;
    double worst = 0;
    for (long j = 0; j < s->dn; j++) {
        double sum_c = 0, mag = 0, ref = 0;
        for (long i = 0; i < s->dm; i++) {
            sum_c += s->c[i * s->dn + j];
            mag += fabs(s->c[i * s->dn + j]);
        }
        for (long k = 0; k < s->dk; k++) {
            double col_a = 0;
            for (long i = 0; i < s->dm; i++)
                col_a += s->a[i * s->dk + k];
            ref += col_a * s->weights[k * s->dn + j];
        }
        double e = isfinite(sum_c) ? fabs(sum_c - ref) / (mag + 1e-30) : INFINITY;
        if (!(e <= worst))
            worst = e;
    }
    /* fp32 products summed over dk terms: |error| <~ dk * 2^-24 * sum|a||b|; 1e-4 leaves a 100x margin at
     * dk = 64 and still sees any flip that changes an element by more than 1e-4 of its column's magnitude */
    *err = worst;
    *tol = 1e-4;
    return worst > *tol;
}

/* Hashes the reduced buffer (the gradients after the all-reduce) and the weights. */
static int sim_fingerprint(void *b, uint64_t *h)
{
    struct sim *s = b;
    *h = fnv1a64(s->grad, s->elems * sizeof(float)) * 0x100000001b3ull ^ fnv1a64(s->weights, s->elems * sizeof(float));
    return 0;
}

/* The asynchronous form: the hash is taken now, handed over at take (the worker's deferral is what is tested). */
static int sim_fingerprint_start(void *b)
{
    struct sim *s = b;
    s->fp_pending = sim_fingerprint(b, &s->fp_hash) == 0;
    return s->fp_pending ? 0 : -1;
}

static int sim_fingerprint_take(void *b, uint64_t *h)
{
    struct sim *s = b;
    if (!s->fp_pending)
        return 0;
    s->fp_pending = 0;
    *h = s->fp_hash;
    return 1;
}

/* Recomputes the GEMM on the weights' first values and hashes the output. */
static int sim_replay(void *b, uint64_t *h)
{
    struct sim *s = b;
    sim_gemm(s, s->b0, s->replay_c);
    *h = fnv1a64(s->replay_c, (size_t)(s->dm * s->dn) * sizeof(float));
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

static int sim_check(const struct scenario *sc, char *why, size_t n)
{
    if (sc->ranks > 256) {
        snprintf(why, n, "%s:%d:%d: ranks: %lld worker processes on one machine is more than the sim backend allows (256)",
                 sc->file, sc->ranks_line, sc->ranks_col, (long long)sc->ranks);
        return EXIT_INPUT;
    }
    return 0;
}

struct power_source {
    struct shm *shm;
    struct rng noise;
};

static struct power_source *sim_power_open(struct shm *shm, char *why, size_t n)
{
    (void)why;
    (void)n;
    struct power_source *ps = xcalloc(1, sizeof *ps);
    ps->shm = shm;
    rng_seed(&ps->noise, (uint64_t)shm->hdr->sc.seed, 99);
    return ps;
}

/* Reads the modeled power of rank at t from the state its worker published. */
static int sim_power_read(struct power_source *ps, int rank, uint64_t t, struct power_reading *out)
{
    const struct sim_params *m = &ps->shm->hdr->sc.sim;
    struct power_state st;
    ctl_get_power(shm_ctl(ps->shm, rank), &st);
    if (!st.t0_ns) {   /* the worker has not started its model yet: nothing to report */
        *out = (struct power_reading){ NAN, NAN, NAN, NAN, NAN, 0 };
        return 0;
    }
    double p = sim_power_at(&st, t, m->ramp_s) + m->noise_w * rng_normal(&ps->noise);
    *out = (struct power_reading){ .watts = p > 0 ? p : 0, .avg_w = NAN, .energy_j = NAN, .clock_mhz = NAN,
                                   .temp_c = NAN, .throttle = 0 };
    return 0;
}

static void sim_power_close(struct power_source *ps) { free(ps); }

/* The sim's GPU has no model name (the view then says "ranks"); its TDP is the model's. */
static int sim_power_info(struct power_source *ps, int slot, char *name, size_t n, double *tdp_w)
{
    (void)slot;
    if (n)
        name[0] = 0;
    *tdp_w = ps->shm->hdr->sc.sim.tdp_w;
    return 0;
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
    .max_nodes = SHM_MAX_NODES,   /* its cross-node all-reduce chain */
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
    .init = sim_init,
    .on_phase = sim_on_phase,
    .begin_run = sim_begin_run,
    .compute = sim_compute,
    .allreduce = sim_allreduce,
    .snapshot = sim_snapshot,
    .device_bytes = sim_device_bytes,
    .corrupt = sim_corrupt,
    .break_comm = sim_break_comm,
    .abft = sim_abft,
    .fingerprint = sim_fingerprint,
    .fingerprint_start = sim_fingerprint_start,
    .fingerprint_take = sim_fingerprint_take,
    .replay = sim_replay,
    .restore = sim_restore,
    .fini = sim_fini,
};
