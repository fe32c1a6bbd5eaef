/* tests/test_sim_model.c: the sim backend's model — phase durations from the configured rates, power levels
 * and the first-order ramp between them — through its real hooks, in one rank; and the ramp limits' math
 * (backends/simmodel.h) over many random cases. */
#include <criterion/criterion.h>
#include <math.h>

#include "backend.h"
#include "simmodel.h"
#include "util.h"

extern const struct backend_ops backend_sim;

static const char text[] =
    "name: model\nranks: 1\niterations: 1\n"
    "workload:\n"
    "  gemm: {m: 1000, n: 1000, k: 1000, count: 25}\n"        /* 5e10 flops at 1 TFLOP/s: 50 ms */
    "  allreduce: {bytes: 200MB, emulate_busbw: 10, emulate_ranks: 2}\n"   /* 200 MB x 2(1)/2 / 10 GB/s: 20 ms */
    "sim: {tflops: 1, latency: 0s, jitter: 0, noise_w: 0, idle_w: 100, comm_w: 250, compute_w: 650, ramp: 10ms,\n"
    "      sensor: {update: 0}}\n";   /* the electrical power itself: these tests hold the model, test_sensor its sensor */

struct fixture {
    struct shm shm;
    struct worker_ctx w;
};

/* Builds a one-rank control block and context around the whole scenario text buf. */
static void setup_text(struct fixture *f, const char *buf)
{
    char err[512];
    cr_assert_eq(shm_create(&f->shm, 1, 0, 65536, 0), 0);
    cr_assert_eq(scenario_load_string(buf, "model.yaml", &f->shm.hdr->sc, err, sizeof err), 0, "%s", err);
    str_copy(f->shm.hdr->backend, sizeof f->shm.hdr->backend, "sim");
    f->w = (struct worker_ctx){ .sc = &f->shm.hdr->sc, .ops = &backend_sim, .shm = &f->shm,
                                .ctl = shm_ctl(&f->shm, 0), .rank = 0, .nranks = 1 };
    f->w.b = backend_sim.init(&f->w, err, sizeof err);
    cr_assert(f->w.b, "%s", err);
}

/* The same around the model's text, its tail added. */
static void setup_with(struct fixture *f, const char *tail)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s%s", text, tail);
    setup_text(f, buf);
}

static void setup(struct fixture *f) { setup_with(f, ""); }

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

/* Draws one case of the ramp math: levels in [0, 1000] W, tau in [0.5, 200] ms, limits in [50, 50000] W/s. */
struct ramp_case {
    double p0, target, tau, up, down;
};

static struct ramp_case draw_case(struct rng *r)
{
    struct ramp_case c = { .p0 = 1000 * rng_uniform(r), .target = 1000 * rng_uniform(r),
                           .tau = 0.0005 + 0.2 * rng_uniform(r), .up = 50 * pow(1000, rng_uniform(r)),
                           .down = 50 * pow(1000, rng_uniform(r)) };
    return c;
}

static double natural(const struct ramp_case *c, double dt)
{
    return dt > 0 ? c->target + (c->p0 - c->target) * exp(-dt / c->tau) : c->p0;
}

Test(sim_model, a_limit_that_does_not_bind_is_the_natural_curve)
{
    struct rng r;
    rng_seed(&r, 20261125, 1);
    for (int i = 0; i < 10000; i++) {
        struct ramp_case c = draw_case(&r);
        double gap = fabs(c.target - c.p0);
        /* at or above the natural response's steepest slope, gap / tau: the limit never binds */
        double lim = gap / c.tau * (1 + 3 * rng_uniform(&r));
        cr_assert_eq(simmodel_limited_s(c.p0, c.target, c.tau, lim, lim), 0);
        for (int k = 0; k <= 50; k++) {
            double dt = k * c.tau / 5;
            double limited = simmodel_power(c.p0, c.target, dt, c.tau, lim, lim);
            cr_assert_eq(limited, simmodel_power(c.p0, c.target, dt, c.tau, 0, 0),
                         "case %d at %g s: %.17g differs from the unlimited curve", i, dt, limited);
            cr_assert_float_eq(limited, natural(&c, dt), 1e-9 * (1 + fabs(c.target)), "case %d at %g s", i, dt);
        }
    }
}

Test(sim_model, a_binding_limit_is_never_faster_than_the_limit_or_the_natural_response)
{
    struct rng r;
    rng_seed(&r, 20261125, 2);
    int bound = 0;
    for (int i = 0; i < 10000; i++) {
        struct ramp_case c = draw_case(&r);
        double gap = fabs(c.target - c.p0), dir = c.target > c.p0 ? 1 : -1, lim = dir > 0 ? c.up : c.down;
        double t1 = simmodel_limited_s(c.p0, c.target, c.tau, c.up, c.down);
        bound += t1 > 0;
        if (t1 > 0)
            cr_assert_float_eq(t1, (gap - lim * c.tau) / lim, 1e-12 * (1 + t1), "case %d: the join", i);
        else
            cr_assert_leq(gap, lim * c.tau * (1 + 1e-12), "case %d: a limit that binds says so", i);
        double end = t1 + 12 * c.tau, h = end / 400, eps = 1e-9 * (1 + gap);
        double prev = c.p0;
        for (int k = 1; k <= 400; k++) {
            double t = k * h, p = simmodel_power(c.p0, c.target, t, c.tau, c.up, c.down);
            double slope = (p - prev) / h;
            /* over [t - h, t] the slope is at most the limit and at most the natural response's from where it was */
            double most = fmin(lim, fabs(c.target - prev) / c.tau);
            cr_assert_leq(dir * slope, most * (1 + 1e-9) + eps / h, "case %d at %g s: %g W/s, at most %g", i, t, slope, most);
            cr_assert_geq(dir * slope, -eps / h, "case %d at %g s: moves away from the target", i, t);
            /* never ahead of the natural curve, never past the target */
            cr_assert_leq(dir * (p - natural(&c, t)), eps, "case %d at %g s: %.9g ahead of the natural %.9g", i, t, p,
                          natural(&c, t));
            cr_assert_leq(dir * (p - c.target), eps, "case %d at %g s: past the target", i, t);
            prev = p;
        }
        if (t1 > 0) {   /* the join: the same value and slope from both sides */
            double d = 1e-6 * c.tau, at = simmodel_power(c.p0, c.target, t1, c.tau, c.up, c.down);
            cr_assert_float_eq(at, c.p0 + dir * lim * t1, eps, "case %d: linear up to the join", i);
            cr_assert_float_eq(at, c.target - dir * lim * c.tau, eps, "case %d: joined lim * tau from the target", i);
            double left = (at - simmodel_power(c.p0, c.target, t1 - d, c.tau, c.up, c.down)) / d;
            double right = (simmodel_power(c.p0, c.target, t1 + d, c.tau, c.up, c.down) - at) / d;
            cr_assert_float_eq(left, dir * lim, 1e-6 * lim + eps / d, "case %d: slope before the join %g", i, left);
            cr_assert_float_eq(right, dir * lim, 1e-5 * lim + eps / d, "case %d: slope after the join %g", i, right);
        }
        double last = simmodel_power(c.p0, c.target, t1 + 40 * c.tau, c.tau, c.up, c.down);
        cr_assert_float_eq(last, c.target, 1e-9 * (1 + gap), "case %d: reaches the target (%.9g of %.9g)", i, last, c.target);
    }
    cr_assert_gt(bound, 5000, "most cases must bind: %d of 10000", bound);
    /* an immediate natural response (tau 0) under a limit: linear all the way, then there */
    cr_assert_float_eq(simmodel_power(100, 600, 0.05, 0, 5000, 5000), 350, 1e-9);
    cr_assert_eq(simmodel_power(100, 600, 0.1, 0, 5000, 5000), 600);
    cr_assert_eq(simmodel_power(100, 600, 0.05, 0, 0, 0), 600, "no limit, no time constant: a step");
}

Test(sim_model, a_held_fall_is_natural_above_the_filler_top_and_limited_below_it)
{
    struct rng r;
    rng_seed(&r, 20261126, 3);
    for (int i = 0; i < 3000; i++) {
        double target = 80 + 200 * rng_uniform(&r), hold = target + 50 + 400 * rng_uniform(&r);
        double p0 = hold + 150 * rng_uniform(&r), tau = 0.005 + 0.1 * rng_uniform(&r), down = 200 + 8000 * rng_uniform(&r);
        double floor = rng_uniform(&r) < 0.5 ? 0 : target + (hold - target) * rng_uniform(&r);
        double h = 1e-4, prev = p0;
        for (int k = 1; k < 20000; k++) {
            double t = k * h, p = simmodel_power_gap(p0, target, t, tau, down, floor, hold);
            double slope = (p - prev) / h, nat = simmodel_power(p0, target, t, tau, 0, 0);
            if (nat > hold + 1e-9)   /* above the filler's most: as without a filler */
                cr_assert_float_eq(p, fmax(nat, floor), 1e-6, "case %d at %g s", i, t);
            else if (prev <= hold + 1e-9)   /* a whole step below it: never faster than the rate */
                cr_assert_geq(slope, -down * (1 + 1e-6) - 1e-6, "case %d: %g W/s below the top at %g s", i, slope, t);
            cr_assert_geq(p, fmax(nat, floor) - 1e-9, "case %d: the filler only adds power", i);
            if (floor > 0)
                cr_assert_geq(p, floor - 1e-9, "case %d: never under the floor", i);
            prev = p;
        }
    }
}

Test(sim_model, ramp_limit_through_the_hooks)
{
    char why[256];
    struct power_reading r;
    /* 100 -> 650 W with tau 10 ms; the filler draws at most sim.filler_w (725 W): the ramps turn between 650 and
     * idle (100 W), 110 ms each way at 5000 W/s. A ramp never costs compute time: the GEMMs run at full rate. */
    struct fixture f;
    setup_with(&f, "mitigations: [{ramp: {ramp_w_s: 5000}}]\n");
    cr_assert_eq(backend_sim.compute(f.w.b, &f.w), 0);
    double c = phase_seconds(&f, PH_COMPUTE);
    cr_assert(c >= 0.050 && c < 0.050 + 0.010, "a ramp limit costs no compute time: %.4f s", c);
    struct power_source *ps = backend_sim.power_open(&f.shm, why, sizeof why);
    cr_assert(ps);
    /* the first gap's length is unknown: the next compute may begin at any moment, so the filler holds the top */
    uint64_t t0 = mono_ns() + 60000000000ull;
    cr_assert_eq(backend_sim.power_read(ps, 0, t0, &r), 0);
    cr_assert_float_eq(r.watts, 650, 1e-3, "an unknown gap under a rise limit holds the compute level: %f", r.watts);
    /* gaps of 400 ms: once they are history, the fall and the climb fit (220 ms of 400) */
    uint64_t t = t0, gap = 400000000ull;
    for (int i = 0; i < 3; i++) {
        backend_sim.on_phase(f.w.b, PH_COMPUTE, t);
        t += 300000000ull;   /* compute settles at 650 */
        backend_sim.on_phase(f.w.b, PH_COMM, t);
        t += gap;
    }
    backend_sim.on_phase(f.w.b, PH_COMPUTE, t);
    t += 300000000ull;
    backend_sim.on_phase(f.w.b, PH_COMM, t);   /* the gap under test: [t, t + 400 ms) */
    double prev = 650, lowest = 650;
    for (uint64_t dt = 1000000; dt < gap; dt += 1000000) {
        cr_assert_eq(backend_sim.power_read(ps, 0, t + dt, &r), 0);
        double slope = (r.watts - prev) / 1e-3;
        cr_assert(slope >= -5000 * 1.0001 && slope <= 5000 * 1.0001, "%.0f W/s at %.0f ms into the gap", slope,
                  (double)dt * 1e-6);
        lowest = fmin(lowest, r.watts);
        prev = r.watts;
    }
    cr_assert_lt(lowest, 300, "between the fall and the climb the power reaches the communication level: %.0f W", lowest);
    cr_assert_gt(prev, 600, "the climb prepares the next compute phase: %.0f W at the gap's end", prev);
    backend_sim.power_close(ps);
    backend_sim.fini(f.w.b);
    shm_close(&f.shm);
}

/* sim.limiter: the same timeline through two models, one with the power limiter's burst and dip, one without; the
 * reading's difference is the limiter's part, exactly: at a compute phase's start after a gap it rises burst_w with
 * the ramp, holds for burst_s and falls back with the ramp; after the compute phase the filler's held-up power
 * draws dip_w less (rising in with the ramp, fading over dip_s), never below the communication level; a compute
 * phase that goes on (no gap before it) keeps its burst's clock. */
Test(sim_model, the_limiter_bursts_after_a_gap_and_the_filler_dips_after_compute)
{
    static const char fmt[] =
        "name: model\nranks: 1\niterations: 1\n"
        "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 25}\n"
        "  allreduce: {bytes: 200MB, emulate_busbw: 10, emulate_ranks: 2}\n"
        "sim: {tflops: 1, latency: 0s, jitter: 0, noise_w: 0, idle_w: 100, comm_w: 250, compute_w: 650, ramp: 10ms,\n"
        "      sensor: {update: 0}%s}\n"
        "mitigations: [{filler: {floor: 80%%}}]\n";
    char on_text[1024], off_text[1024];
    snprintf(on_text, sizeof on_text, fmt, ", limiter: {burst_w: 200, burst_s: 80ms, dip_w: 90, dip_s: 100ms}");
    snprintf(off_text, sizeof off_text, fmt, "");
    struct fixture on, off;
    char why[256];
    setup_text(&on, on_text);
    setup_text(&off, off_text);
    struct power_source *pon = backend_sim.power_open(&on.shm, why, sizeof why),
                        *poff = backend_sim.power_open(&off.shm, why, sizeof why);
    cr_assert(pon && poff, "%s", why);
    cr_assert_eq(backend_sim.begin_run(on.w.b, &on.w), 0, "the run's mitigation (the filler) taken into the model");
    cr_assert_eq(backend_sim.begin_run(off.w.b, &off.w), 0);
    const double tau = 0.010, bw = 200, bs = 0.080, dw = 90, ds = 0.100, comm = 250;
    const double floor = fmin(0.8 * on.w.sc->sim.tdp_w, 650);   /* 80 %, at most the compute level */
    uint64_t t = mono_ns() + 1000000000ull;
    /* a few gaps of 300 ms after compute phases of 300 ms, so the filler's plan knows the gaps */
    for (int i = 0; i < 4; i++) {
        for (int k = 0; k < 2; k++) {
            struct fixture *f = k ? &off : &on;
            backend_sim.on_phase(f->w.b, PH_COMPUTE, t);
            backend_sim.on_phase(f->w.b, PH_COMM, t + 300000000ull);
        }
        t += 600000000ull;
    }
    /* the compute phase under test: [t, t + 300 ms), a second compute state 150 ms in (no gap: the burst's clock
     * goes on); then the gap [t + 300 ms, t + 600 ms). Each state is read before the next one is set (a reading
     * is of the state in force). */
    struct power_reading a, b;
    double top = 0, dipped = 0;
    static const int phases[3] = { PH_COMPUTE, PH_COMPUTE, PH_COMM };
    static const uint64_t at[4] = { 0, 150000000ull, 300000000ull, 600000000ull };
    for (int st = 0; st < 3; st++) {
        backend_sim.on_phase(on.w.b, phases[st], t + at[st]);
        backend_sim.on_phase(off.w.b, phases[st], t + at[st]);
        for (uint64_t dt = at[st]; dt < at[st + 1]; dt += 500000ull) {
            cr_assert_eq(backend_sim.power_read(pon, 0, t + dt, &a), 0);
            cr_assert_eq(backend_sim.power_read(poff, 0, t + dt, &b), 0);
            double x = (double)dt * 1e-9, want;
            if (phases[st] == PH_COMPUTE) {
                double fall = x <= bs ? 1 : exp(-(x - bs) / tau);
                want = bw * (1 - exp(-x / tau)) * fall;
                top = fmax(top, a.watts);
            } else {
                /* the clocks' share k of the filler's part above the gap's own level: dw of the floor's part at first */
                double y = x - 0.3, k = fmin(1, dw / (floor - comm)) * (1 - exp(-y / tau)) * exp(-y / ds);
                want = -k * fmax(b.watts - comm, 0);
                cr_assert_geq(a.watts, comm - 1e-9, "%.1f ms into the gap: %.3f W, under the communication level",
                              y * 1e3, a.watts);
                dipped = fmin(dipped, a.watts - b.watts);
            }
            cr_assert_float_eq(a.watts - b.watts, want, 1e-6, "%.1f ms: the limiter's part %.6f W, want %.6f W",
                               x * 1e3, a.watts - b.watts, want);
            cr_assert_float_eq(a.true_w, a.watts, 1e-9, "no sensor, no noise: the reading is the electrical power");
        }
    }
    cr_assert_gt(top, 650 + 0.99 * bw, "the burst reached %.1f W", top);
    cr_assert_lt(dipped, -0.4 * dw, "the filler dipped by %.1f W at most", -dipped);
    backend_sim.power_close(pon);
    backend_sim.power_close(poff);
    backend_sim.fini(on.w.b);
    backend_sim.fini(off.w.b);
    shm_close(&on.shm);
    shm_close(&off.shm);
}

/* Feeds the same phases (0.5 to 3 ms each, for dur_ns) to two copies of the model with a sensor of update u_ns, one
 * read every fast_ns, the other every slow_ns: every update both read is the same reading, and it is the mean of the
 * truth the fast one read over that update (within tol_w); at least min_windows of them judged. */
static void sensor_case(uint64_t u_ns, uint64_t fast_ns, uint64_t slow_ns, uint64_t dur_ns, double tol_w, int min_windows)
{
    char sensed[512];
    snprintf(sensed, sizeof sensed,
             "name: model\nranks: 1\niterations: 1\n"
             "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 25}\n  allreduce: {bytes: 200MB}\n"
             "sim: {tflops: 1, latency: 0s, jitter: 0, noise_w: 0, idle_w: 100, comm_w: 250, compute_w: 650, ramp: 2ms,\n"
             "      sensor: {update: %.0fms}}\n", (double)u_ns * 1e-6);
    struct fixture fast, slow;
    char why[256];
    setup_text(&fast, sensed);
    setup_text(&slow, sensed);
    struct power_source *pf = backend_sim.power_open(&fast.shm, why, sizeof why),
                        *pslow = backend_sim.power_open(&slow.shm, why, sizeof why);
    cr_assert(pf && pslow);
    size_t nmax = dur_ns / fast_ns + 16;
    uint64_t *tick_f = xcalloc(nmax, 8), *tick_s = xcalloc(nmax, 8), *truth_t = xcalloc(nmax, 8);
    double *w_f = xcalloc(nmax, 8), *w_s = xcalloc(nmax, 8), *truth_w = xcalloc(nmax, 8);
    size_t nf = 0, ns = 0, nt = 0;
    struct rng r;
    rng_seed(&r, 5, 1);
    uint64_t base = mono_ns() + 50000000, t = base, next_fast = base, next_slow = base, end = base + dur_ns;
    for (int i = 0; t < end; i++) {
        uint64_t change = t + 500000 + (uint64_t)(rng_uniform(&r) * 2500000);   /* the next phase's start */
        backend_sim.on_phase(fast.w.b, i % 2 ? PH_COMM : PH_COMPUTE, t);
        backend_sim.on_phase(slow.w.b, i % 2 ? PH_COMM : PH_COMPUTE, t);
        for (; next_fast < change && next_fast < end; next_fast += fast_ns) {
            struct power_reading pr;
            cr_assert_eq(backend_sim.power_read(pf, 0, next_fast, &pr), 0);
            truth_t[nt] = next_fast;
            truth_w[nt++] = pr.true_w;
            if (pr.sample_ns && (!nf || tick_f[nf - 1] != pr.sample_ns)) {
                tick_f[nf] = pr.sample_ns;
                w_f[nf++] = pr.watts;
            }
        }
        for (; next_slow < change && next_slow < end; next_slow += slow_ns) {
            struct power_reading pr;
            cr_assert_eq(backend_sim.power_read(pslow, 0, next_slow, &pr), 0);
            if (pr.sample_ns && (!ns || tick_s[ns - 1] != pr.sample_ns)) {
                tick_s[ns] = pr.sample_ns;
                w_s[ns++] = pr.watts;
            }
        }
        t = change;
    }
    size_t same = 0;
    for (size_t j = 0; j < ns; j++)
        for (size_t i = 0; i < nf; i++) {
            if (tick_f[i] != tick_s[j])
                continue;
            same++;
            cr_assert_float_eq(w_s[j], w_f[i], 1e-9, "update at %.4f s: %.3f W read every %.1f ms, %.3f W every %.1f ms",
                               (double)(tick_s[j] - base) * 1e-9, w_s[j], (double)slow_ns * 1e-6, w_f[i],
                               (double)fast_ns * 1e-6);
        }
    cr_assert_geq(same + 1, ns, "%zu of the slow reader's %zu updates are the fast one's too", same, ns);
    int judged = 0;
    double lo = 1e9, hi = 0;
    for (size_t i = 0, k0 = 0; i < nf; i++) {   /* each reading against the truth's mean over its update */
        if (tick_f[i] < base + u_ns)
            continue;
        double sum = 0;
        size_t n = 0;
        while (k0 < nt && truth_t[k0] <= tick_f[i] - u_ns)
            k0++;
        for (size_t k = k0; k < nt && truth_t[k] <= tick_f[i]; k++)
            sum += truth_w[k], n++;
        cr_assert_geq(n, u_ns / fast_ns - 2);
        cr_assert_float_eq(w_f[i], sum / (double)n, tol_w, "update at %.4f s: read %.2f W, the truth's mean %.2f W",
                           (double)(tick_f[i] - base) * 1e-9, w_f[i], sum / (double)n);
        lo = fmin(lo, w_f[i]), hi = fmax(hi, w_f[i]);
        judged++;
    }
    cr_log_info("update %.0f ms: %d updates judged, %.1f to %.1f W; the slow reader shared %zu", (double)u_ns * 1e-6,
                judged, lo, hi, same);
    cr_assert_geq(judged, min_windows);
    cr_assert_gt(hi - lo, 2, "the updates' means differ (%.1f to %.1f W): the phases are no constant", lo, hi);
    free(tick_f), free(tick_s), free(truth_t), free(w_f), free(w_s), free(truth_w);
    backend_sim.power_close(pf);
    backend_sim.power_close(pslow);
    backend_sim.fini(fast.w.b);
    backend_sim.fini(slow.w.b);
    shm_close(&fast.shm);
    shm_close(&slow.shm);
}

/* The modelled sensor reads the mean of the electrical power over its whole update, however often it is read: a
 * 20 ms update read every 0.1 ms and every 25 ms, a 500 ms one (the phases change thousands of times in it) every
 * 0.5 ms and every 70 ms. Until 2026-11-30 the supervisor's side averaged only the states it saw at its own readings
 * (at 25 ms a phase begun and ended between two of them was never in the mean), and kept 64 of them (a 500 ms update
 * read its older part as one held level, up to 125 W off). */
Test(sim_model, the_sensor_reads_the_mean_over_its_update_however_often_it_is_read, .timeout = 120)
{
    sensor_case(20000000, 100000, 25000000, 2000000000ull, 3.0, 90);
    sensor_case(500000000, 500000, 70000000, 6000000000ull, 3.0, 10);
}

/* A rank gone idle (its run over, or paused) draws idle power, no filler: as the cuda backend stops its shaper. A
 * filler holding 560 W from the run's start; idle, and 200 ms later the power is the idle level; the next run's
 * filler holds its floor again. Until 2026-11-30 the sim held the floor through a pause and into the next run. */
Test(sim_model, an_idle_rank_draws_idle_power_not_the_fillers)
{
    char why[256];
    struct power_reading r;
    struct fixture f;
    setup_with(&f, "mitigations: [{filler: {floor: 560W}}]\n");
    struct power_source *ps = backend_sim.power_open(&f.shm, why, sizeof why);
    cr_assert(ps);
    cr_assert_eq(backend_sim.begin_run(f.w.b, &f.w), 0);
    cr_assert_eq(backend_sim.power_read(ps, 0, mono_ns() + 300000000ull, &r), 0);
    cr_assert_float_eq(r.watts, 560, 1e-3, "the filler holds its floor from the run's start: %f", r.watts);
    cr_assert(backend_sim.idle, "the sim has the hook a rank gone idle calls");
    backend_sim.idle(f.w.b);
    cr_assert_eq(backend_sim.power_read(ps, 0, mono_ns() + 300000000ull, &r), 0);
    cr_assert_float_eq(r.watts, 100, 1e-3, "idle: the idle level, no filler: %f", r.watts);
    cr_assert_eq(backend_sim.begin_run(f.w.b, &f.w), 0);
    cr_assert_eq(backend_sim.power_read(ps, 0, mono_ns() + 300000000ull, &r), 0);
    cr_assert_float_eq(r.watts, 560, 1e-3, "the next run's filler: %f", r.watts);
    backend_sim.power_close(ps);
    backend_sim.fini(f.w.b);
    shm_close(&f.shm);
}
