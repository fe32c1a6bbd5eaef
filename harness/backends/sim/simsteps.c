/* harness/backends/sim/simsteps.c: the sim rank's iteration as workload.phases lists it, and the replay of a
 * recorded power trace.
 *
 * Steps. Each step has its own modelled time and level: a GEMM its FLOPs at sim.tflops (compute_w), a
 * collective its bus bytes at sim.busbw (comm_w), an optimizer step 7x its bytes at sim.mem_bw (optimizer_w),
 * idle its duration (idle_w). An overlapped communication starts when the communication before it has ended
 * (one communicator runs its operations in order) and runs beside the GEMM steps that follow; the first step of
 * another kind, and the iteration's end, wait for it, reported as communication (the time it is exposed). The
 * real data ride the first GEMM step (the CPU GEMM, the faults and checks after it) and the gradient exchange
 * step (the shared-memory all-reduce, the update of the weights, the checks after it), so every detector works
 * on every shape. Ranks meet once an iteration, at the gradient exchange.
 *
 * Replay. The rank's power follows the trace: at each of its samples the model is given the level whose
 * first-order response (sim.ramp) lands on the next sample from where the model is now — a closed loop on the
 * model's own state, so an error never accumulates. Mitigations act on it as on any load (a floor, a cap, ramp
 * limits). The phase reported is compute above the trace's middle level and communication below it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simint.h"
#include "simmodel.h"

/* The model's nominal seconds of one communication of bytes over ranks ranks: latency plus nccl-tests' bus bytes
 * at busbw — all-reduce 2(n-1)/n of the message, reduce-scatter, all-gather and all-to-all (n-1)/n, a send to a
 * pipeline neighbour the message once. */
double sim_comm_kind_s(const struct scenario *sc, int kind, double bytes, int ranks, double busbw_gbs)
{
    return sc->sim.latency_s + backend_bus_bytes(kind, bytes, ranks) / (busbw_gbs * 1e9);
}

double sim_gemm_nominal_s(struct sim *s, double flops)
{
    const struct scenario *sc = s->sc;
    double nominal = flops / (sc->sim.tflops * 1e12);
    if (s->mm.cap_w > 0 && s->mm.cap_w < sc->sim.compute_w)   /* throughput ~ clock, power ~ clock^2.5 */
        nominal *= pow(sc->sim.compute_w / s->mm.cap_w, 0.4);
    /* Ramp limits cost no compute time: the filler holds the fall up and prepares the climb in the gap before
     * (sim_gap_begin); the compute phase always runs at full rate. */
    return nominal;
}

void sim_delay(struct sim *s, struct worker_ctx *w)
{
    if (s->mm.delay_s > 0)   /* stagger: this rank's group starts later */
        sim_wait_until(w, mono_ns() + (uint64_t)(s->mm.delay_s / s->sc->sim.speedup * 1e9));
}

/* A GEMM step's floating-point operations. */
static double step_flops(const struct step *st)
{
    return 2.0 * (double)st->m * (double)st->n * (double)st->k * (double)st->count;
}

/* The modelled seconds of one step before jitter and mitigation (communication: over world ranks). */
static double sim_step_s(const struct scenario *sc, const struct step *st, int world)
{
    switch (step_class_of(st->kind)) {
    case SCL_COMPUTE:
        return step_flops(st) / (sc->sim.tflops * 1e12);
    case SCL_COMM:
        return sim_comm_kind_s(sc, st->kind, (double)st->bytes, st->ranks > 0 ? (int)st->ranks : world,
                               sc->sim.busbw_gbs);
    case SCL_MEMORY:
        return 7.0 * (double)st->bytes / (sc->sim.mem_gbs * 1e9);
    default:
        return st->duration_s;
    }
}

/* Whether step st, the run's gradient exchange, is a reduce_scatter on the exchanged buffer (its size): then its
 * shares are all-gathered inside the step, so that every rank holds the ranks' mean as an all-reduce leaves it, as
 * the cuda backend does (harness/backends/cuda/rankplan.c); its time and bus bytes hold both. */
static int sim_grad_gathers(const struct scenario *sc, const struct step *st, int grad)
{
    return grad && st->kind == ST_REDUCE_SCATTER && st->bytes == sc->workload.allreduce.bytes;
}

/* A step's nominal seconds as the run takes it (grad: it is the gradient exchange). */
static double sim_run_step_s(const struct scenario *sc, const struct step *st, int world, int grad)
{
    double d = sim_step_s(sc, st, world);
    if (sim_grad_gathers(sc, st, grad))
        d += sim_comm_kind_s(sc, ST_ALL_GATHER, (double)st->bytes, st->ranks > 0 ? (int)st->ranks : world,
                             sc->sim.busbw_gbs);
    return d;
}

/* One iteration of the n steps st (grad: the gradient exchange's index), nominal. */
static double sim_range_s(const struct scenario *sc, const struct step *steps, int n, int grad, int world)
{
    double t = 0, comm_end = 0;
    for (int i = 0; i < n; i++) {
        const struct step *st = &steps[i];
        double d = sim_run_step_s(sc, st, world, i == grad);
        if (step_class_of(st->kind) == SCL_COMM && st->overlap) {
            comm_end = (comm_end > t ? comm_end : t) + d;
            continue;
        }
        if (step_class_of(st->kind) != SCL_COMPUTE && comm_end > t)
            t = comm_end;
        t += d;
    }
    return comm_end > t ? comm_end : t;
}

double sim_steps_estimate_s(const struct scenario *sc, int world)
{
    double sum = 0;   /* workload.shapes: every shape runs as many runs, so the mean is the total's share */
    int k = sc->workload.n_shapes > 0 ? sc->workload.n_shapes : 1;
    for (int i = 0; i < k; i++)
        sum += sim_range_s(sc, sc->workload.steps + sc->workload.shapes[i].first, sc->workload.shapes[i].n,
                           sc->workload.shapes[i].grad, world);
    return sum / k;
}

/* Waits for the overlapped communication in flight, reported as a communication phase (its exposed part). */
static void sim_comm_drain(struct sim *s, struct worker_ctx *w)
{
    uint64_t now = mono_ns();
    if (s->comm_end > now) {
        w->step_kind = s->comm_kind;   /* the exposed part of the overlapped communication */
        worker_phase(w, PH_COMM, 1, now, 0);
        sim_wait_until(w, s->comm_end);
        worker_phase_bus(w, mono_ns(), 0, 0);   /* an exposed wait: no bandwidth of its own */
    }
    s->comm_end = 0;
    s->comm_bytes = 0;
}

/* One communication step; the gradient exchange carries the real all-reduce. */
static int sim_step_comm(struct sim *s, struct worker_ctx *w, const struct step *st, int grad)
{
    uint64_t now = mono_ns(), dur = sim_duration_ns(s, w, sim_run_step_s(s->sc, st, (int)s->shm->hdr->world, grad));
    if (grad)
        worker_point(w, IP_BEFORE_ALLREDUCE);
    if (st->overlap) {   /* beside the GEMMs that follow, after the communication before it */
        uint64_t start = s->comm_end > now ? s->comm_end : now;
        s->comm_end = start + dur;
        s->comm_bytes += (double)st->bytes;
        s->comm_kind = st->kind;
        if (grad && (sim_exchange(s, w, 0) != 0))
            return -1;
        if (grad)
            worker_point(w, IP_AFTER_STEP);
        return 0;
    }
    w->step_kind = st->kind;
    worker_phase(w, PH_COMM, 1, now, 0);
    if (grad && sim_exchange(s, w, now + dur) != 0)
        return -1;
    sim_wait_until(w, now + dur);
    int world = st->ranks > 0 ? (int)st->ranks : (int)s->shm->hdr->world;
    double bus = backend_bus_bytes(st->kind, (double)st->bytes, world);
    if (sim_grad_gathers(s->sc, st, grad))
        bus += backend_bus_bytes(ST_ALL_GATHER, (double)st->bytes, world);
    worker_phase_bus(w, mono_ns(), (double)st->bytes, bus);
    if (grad)
        worker_point(w, IP_AFTER_STEP);
    return 0;
}

int sim_steps(void *b, struct worker_ctx *w)
{
    struct sim *s = b;
    const struct scenario *sc = s->sc;
    int data = 0, n, grad;   /* data: the real GEMM ran this iteration */
    const struct step *steps = scenario_run_steps(sc, w->run, &n, &grad);
    sim_mitigation(s, w);
    sim_say_raise(s, w);
    sim_delay(s, w);
    s->comm_end = 0;
    s->comm_bytes = 0;
    for (int i = 0; i < n && !shm_aborted(s->shm); i++) {
        const struct step *st = &steps[i];
        enum step_class cls = step_class_of(st->kind);
        if (cls == SCL_COMM) {
            if (!st->overlap)
                sim_comm_drain(s, w);
            if (sim_step_comm(s, w, st, i == grad) != 0)
                return -1;
            continue;
        }
        if (cls != SCL_COMPUTE)
            sim_comm_drain(s, w);
        uint64_t t0 = mono_ns();
        if (cls == SCL_IDLE) {   /* reported, so that the iteration's time spans it */
            worker_phase(w, PH_IDLE, 1, t0, 0);
            sim_wait_until(w, t0 + sim_duration_ns(s, w, st->duration_s));
            worker_phase(w, PH_IDLE, 0, mono_ns(), 0);
            continue;
        }
        double flops = cls == SCL_COMPUTE ? step_flops(st) : 0;
        double nominal = cls == SCL_COMPUTE ? sim_gemm_nominal_s(s, flops) : sim_step_s(sc, st, 0);
        uint64_t end = t0 + sim_duration_ns(s, w, nominal);
        int phase = cls == SCL_COMPUTE ? PH_COMPUTE : PH_OPT;
        worker_phase(w, phase, 1, t0, 0);
        if (cls == SCL_COMPUTE && !data) {
            sim_gemm_data(s, w);
            data = 1;
        }
        sim_wait_until(w, end);
        worker_phase(w, phase, 0, mono_ns(), cls == SCL_COMPUTE ? flops : (double)st->bytes);
    }
    sim_comm_drain(s, w);
    w->step_kind = ST_ALLREDUCE;
    return shm_aborted(s->shm) ? -1 : 0;
}

/* The level to hold for h seconds so that the first-order response from p lands on target (clamped to what a
 * GPU can draw: nothing below 0, at most twice the model's compute level). */
static double sim_replay_level(double p, double target, double h, double tau, double top)
{
    double u = target;
    if (tau > 0) {
        double a = exp(-h / tau);
        u = (target - p * a) / (1 - a);
    }
    return u < 0 ? 0 : u > top ? top : u;
}

int sim_replay_iter(void *b, struct worker_ctx *w)
{
    struct sim *s = b;
    const struct scenario *sc = s->sc;
    const float *tr = sc->workload.replay.w;
    int n = sc->workload.replay.n;
    double mid = backend_replay_mid(sc), h = sc->workload.replay.dt_s / sc->sim.speedup;
    sim_mitigation(s, w);
    sim_delay(s, w);
    uint64_t t0 = mono_ns(), step = (uint64_t)(h * 1e9);
    int phase = tr[0] >= mid ? PH_COMPUTE : PH_COMM;
    worker_phase(w, PH_COMPUTE, 1, t0, 0);   /* every pass begins with a compute edge: the iteration's start */
    sim_gemm_data(s, w);
    if (phase != PH_COMPUTE) {
        worker_phase(w, PH_COMPUTE, 0, t0, 0);
        worker_phase(w, phase, 1, t0, 0);
    }
    for (int i = 0; i < n && !shm_aborted(s->shm); i++) {
        uint64_t t = t0 + (uint64_t)i * step;
        phase = worker_replay_phase(w, phase, tr[i], mid, t);
        /* the model now, then the level that reaches the next sample (the last: held at its own) */
        double p = sim_power_now(s, t);
        double next = i + 1 < n ? tr[i + 1] : tr[i];
        sim_set_level(s, t, p, sim_replay_level(p, next, h, sc->sim.ramp_s, 2 * sc->sim.compute_w),
                      phase);
        sim_wait_until(w, t + step);
    }
    uint64_t end = t0 + (uint64_t)n * step;
    worker_phase(w, phase, 0, end, 0);
    worker_point(w, IP_BEFORE_ALLREDUCE);
    if (sim_exchange(s, w, 0) != 0)
        return -1;
    worker_point(w, IP_AFTER_STEP);
    return shm_aborted(s->shm) ? -1 : 0;
}
