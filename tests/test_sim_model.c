/* tests/test_sim_model.c: the sim backend's model — phase durations from the configured rates, power levels
 * and the first-order ramp between them — through its real hooks, in one rank. */
#include <criterion/criterion.h>
#include <math.h>

#include "backend.h"
#include "util.h"

extern const struct backend_ops backend_sim;

static const char text[] =
    "name: model\nranks: 1\niterations: 1\n"
    "workload:\n"
    "  gemm: {m: 1000, n: 1000, k: 1000, count: 25}\n"        /* 5e10 flops at 1 TFLOP/s: 50 ms */
    "  allreduce: {bytes: 200MB, emulate_busbw: 10, emulate_ranks: 2}\n"   /* 200 MB x 2(1)/2 / 10 GB/s: 20 ms */
    "sim: {tflops: 1, latency: 0s, jitter: 0, noise_w: 0, idle_w: 100, comm_w: 250, compute_w: 650, ramp: 10ms}\n";

struct fixture {
    struct shm shm;
    struct worker_ctx w;
};

/* Builds a one-rank control block and context around the scenario. */
static void setup(struct fixture *f)
{
    char err[512];
    cr_assert_eq(shm_create(&f->shm, 1, 0, 65536, 0), 0);
    cr_assert_eq(scenario_load_string(text, "model.yaml", &f->shm.hdr->sc, err, sizeof err), 0, "%s", err);
    str_copy(f->shm.hdr->backend, sizeof f->shm.hdr->backend, "sim");
    f->w = (struct worker_ctx){ .sc = &f->shm.hdr->sc, .ops = &backend_sim, .shm = &f->shm,
                                .ctl = shm_ctl(&f->shm, 0), .rank = 0, .nranks = 1 };
    f->w.b = backend_sim.init(&f->w, err, sizeof err);
    cr_assert(f->w.b, "%s", err);
}

/* Returns the duration of the last begin/end pair of phase in the event ring. */
static double phase_seconds(struct fixture *f, int phase)
{
    struct wevent ev;
    uint64_t t0 = 0, t1 = 0;
    while (ring_pop(&f->w.ctl->evt, &ev)) {
        if (ev.phase != phase)
            continue;
        if (ev.type == WEV_PHASE_BEGIN)
            t0 = ev.t_ns;
        if (ev.type == WEV_PHASE_END)
            t1 = ev.t_ns;
    }
    cr_assert(t0 && t1 > t0);
    return (double)(t1 - t0) * 1e-9;
}

Test(sim_model, phase_durations_follow_the_rates)
{
    struct fixture f;
    setup(&f);
    cr_assert_eq(backend_sim.compute(f.w.b, &f.w), 0);
    double c = phase_seconds(&f, PH_COMPUTE);
    cr_assert(c >= 0.050 && c < 0.050 + 0.010, "compute phase %.4f s, model says 0.050 s", c);
    cr_assert_eq(backend_sim.allreduce(f.w.b, &f.w), 0);
    double a = phase_seconds(&f, PH_COMM);
    cr_assert(a >= 0.020 && a < 0.020 + 0.010, "all-reduce phase %.4f s, model says 0.020 s", a);
    backend_sim.fini(f.w.b);
    shm_close(&f.shm);
}

Test(sim_model, power_levels_and_first_order_ramp)
{
    struct fixture f;
    char why[256];
    setup(&f);
    struct power_source *ps = backend_sim.power_open(&f.shm, why, sizeof why);
    cr_assert(ps);
    struct power_reading r;
    cr_assert_eq(backend_sim.power_read(ps, 0, mono_ns(), &r), 0);
    cr_assert_float_eq(r.watts, 100, 1e-6, "idle level: %f", r.watts);
    cr_assert(isnan(r.energy_j) && isnan(r.clock_mhz), "the model does not invent what it does not model");

    uint64_t t0 = mono_ns();
    backend_sim.on_phase(f.w.b, PH_COMPUTE, t0);
    cr_assert_eq(backend_sim.power_read(ps, 0, t0, &r), 0);
    cr_assert_float_eq(r.watts, 100, 1e-6);
    cr_assert_eq(backend_sim.power_read(ps, 0, t0 + 10000000, &r), 0);   /* one time constant */
    cr_assert_float_eq(r.watts, 650 - 550 * exp(-1), 1e-6, "after tau: %f", r.watts);
    cr_assert_eq(backend_sim.power_read(ps, 0, t0 + 200000000, &r), 0);  /* twenty */
    cr_assert_float_eq(r.watts, 650, 1e-3, "compute level: %f", r.watts);

    uint64_t t1 = t0 + 200000000;
    backend_sim.on_phase(f.w.b, PH_COMM, t1);   /* the ramp down starts from where the ramp up got */
    cr_assert_eq(backend_sim.power_read(ps, 0, t1 + 10000000, &r), 0);
    cr_assert_float_eq(r.watts, 250 + 400 * exp(-1), 1e-2, "ramp down after tau: %f", r.watts);
    backend_sim.power_close(ps);
    backend_sim.fini(f.w.b);
    shm_close(&f.shm);
}

Test(sim_model, same_seed_same_gradients)
{
    struct fixture a, b;
    setup(&a);
    setup(&b);
    const void *sa, *sb;
    size_t la, lb;
    for (int i = 0; i < 3; i++) {
        a.w.iter = b.w.iter = i;
        cr_assert_eq(backend_sim.compute(a.w.b, &a.w), 0);
        cr_assert_eq(backend_sim.allreduce(a.w.b, &a.w), 0);
        cr_assert_eq(backend_sim.compute(b.w.b, &b.w), 0);
        cr_assert_eq(backend_sim.allreduce(b.w.b, &b.w), 0);
    }
    cr_assert_eq(backend_sim.snapshot(a.w.b, &sa, &la), 0);
    cr_assert_eq(backend_sim.snapshot(b.w.b, &sb, &lb), 0);
    cr_assert_eq(la, lb);
    cr_assert_eq(memcmp(sa, sb, la), 0, "the same seed must give the same model state");
    backend_sim.fini(a.w.b);
    backend_sim.fini(b.w.b);
    shm_close(&a.shm);
    shm_close(&b.shm);
}
