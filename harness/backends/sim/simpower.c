/* harness/backends/sim/simpower.c: the sim's power: the model's level at any moment (a first-order response, shaped
 * in a gap by the filler's plan), the power limiter's burst and dip on top of it (sim.limiter), and the supervisor's
 * side that reads it through the modelled sensor (sim.sensor): each slot's past states, the mean over an update,
 * the noise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simint.h"
#include "simmodel.h"

/* Evaluates the model: power at t after a change to target at t0 from p0 — the natural first-order response (time
 * constant tau); inside a gap between compute phases the filler's plan shapes it (simmodel_power_gap: the fall held
 * up to its rate below the filler's most, stopped at the floor), and from rise_ns on it climbs towards rise_w at
 * most at up_w_s (the filler preparing the next compute phase). The worker and the supervisor's reading both come
 * here. */
static double sim_power_at(const struct power_state *ps, uint64_t t, double tau)
{
    uint64_t from = ps->t0_ns;
    double p0 = ps->p0_w;
    if (ps->rise_ns && t > ps->rise_ns) {
        if (ps->rise_ns > ps->t0_ns) {
            p0 = simmodel_power_gap(ps->p0_w, ps->target_w, (double)(ps->rise_ns - ps->t0_ns) * 1e-9, tau, ps->down_w_s,
                                    ps->floor_w, ps->hold_w);
            from = ps->rise_ns;
        }
        double goal = ps->rise_w > ps->target_w ? ps->rise_w : ps->target_w;
        return simmodel_power(p0, goal, (double)(t - from) * 1e-9, tau, ps->up_w_s, 0);
    }
    double dt = t > from ? (double)(t - from) * 1e-9 : 0;
    return simmodel_power_gap(p0, ps->target_w, dt, tau, ps->down_w_s, ps->floor_w, ps->hold_w);
}
double sim_power_now(const struct sim *s, uint64_t t) { return sim_power_at(&s->pw, t, s->sc->sim.ramp_s); }

/* The filler's learned boost at t in a gap after a compute phase (power_state.boost_w, one per FILL_LEARN_BIN_S from
 * dip_t0_ns): it adds to the level the plan holds where the filler runs (above the gap's own level), never past the
 * filler's most (hold_w) nor under the gap's own level. */
static double sim_boost_w(const struct power_state *ps, uint64_t t, double base)
{
    if (ps->phase == PH_COMPUTE || !ps->dip_t0_ns || t < ps->dip_t0_ns || !(base > ps->dip_floor_w + 0.5))
        return 0;
    double j = floor((double)(t - ps->dip_t0_ns) * 1e-9 / FILL_LEARN_BIN_S);
    if (j >= CTL_BOOST_BINS)
        return 0;
    double b = ps->boost_w[(int)j], most = ps->hold_w > 0 ? ps->hold_w : base + b;
    return b >= 0 ? fmin(b, fmax(0, most - base)) : fmax(b, ps->dip_floor_w - base);
}

/* The power limiter's part at t (sim.limiter), on top of the level p the model and the filler's boost reach there:
 * a compute phase begun after a gap rises burst_w above its level with the ramp, holds for burst_s, then falls back
 * with the ramp; in the gap after a compute phase the clocks the limiter lowered come back slowly, so the filler's
 * part above the gap's own level draws the share k(t) less: k rises in with the ramp and fades with dip_s, from
 * dip_w over the level the plan starts the gap at (so a plan's own level dips dip_w at first, and a filler asked for
 * more draws more, at most its most at those clocks). Only what is read carries it: a new state starts from the
 * level (sim_power_now), so no part is counted twice. */
static double sim_limiter_w(const struct power_state *ps, const struct sim_params *m, uint64_t t, double p)
{
    const struct sim_limiter *l = &m->limiter;
    double tau = m->ramp_s;
    if (ps->phase == PH_COMPUTE && ps->burst_t0_ns && l->burst_w > 0 && t > ps->burst_t0_ns) {
        double dt = (double)(t - ps->burst_t0_ns) * 1e-9;
        double rise = tau > 0 ? 1 - exp(-dt / tau) : 1;
        double fall = dt <= l->burst_s ? 1 : tau > 0 ? exp(-(dt - l->burst_s) / tau) : 0;
        return l->burst_w * rise * fall;
    }
    /* the plan's level at first, and the gap's own level as it began: fixed over the gap, so the share does not
     * jump where the gap's phase changes (communication, optimizer, checkpoint) */
    double start = ps->down_w_s > 0 && ps->hold_w > 0 ? ps->hold_w : ps->floor_w, g = ps->dip_base_w;
    if (ps->phase != PH_COMPUTE && ps->dip_t0_ns && l->dip_w > 0 && t > ps->dip_t0_ns && p > g && start > g) {
        double dt = (double)(t - ps->dip_t0_ns) * 1e-9;
        double k = fmin(1, l->dip_w / (start - g)) * (tau > 0 ? 1 - exp(-dt / tau) : 1) * exp(-dt / l->dip_s);
        return -fmin(k * (p - g), fmax(0, p - ps->dip_floor_w));   /* never under the phase's own level */
    }
    return 0;
}

/* The electrical power a reading sees at t: the model's level, the filler's learned boost and the limiter's part. */
static double sim_power_elec(const struct power_state *ps, const struct sim_params *m, uint64_t t)
{
    double base = sim_power_at(ps, t, m->ramp_s);
    double p = base + sim_boost_w(ps, t, base);
    return p + sim_limiter_w(ps, m, t, p);
}

/* The modelled sensor (sim.sensor): a reading every update u, the mean of the electrical power over its window
 * [tick - u, tick] (mode point: the power at the window's last sub-sample, at most SENSOR_SUB_NS / 2 before the
 * tick), ticks at off + K u (off per slot: GPUs' sensors are not in step). The mean is taken over
 * sub-samples SENSOR_SUB_NS apart (8 to 1024 in an update), each from the model's state at that moment. The worker
 * works the windows out as its model moves from state to state (sim_sensor_step: every sub-sample before a new state
 * from the state before it); the supervisor carries the windows on from the newest state it reads, up to the time it
 * reads, so that a reading is the same however often it is read. */
#define SENSOR_SUB_NS 100000

struct sensor_grid {
    uint64_t off, u, nsub;
};

/* The sensor's grid for slot; 0 when the model has no sensor (sim.sensor.update 0). */
static int sensor_grid(const struct sim_params *m, int slot, struct sensor_grid *g)
{
    g->u = (uint64_t)(m->sensor.update_s * 1e9);
    if (!g->u)
        return 0;
    g->off = (uint64_t)((double)g->u * (0.5 + 0.5 * sin(1.0 + 2.3999 * slot)) * 0.999);   /* per slot, fixed */
    uint64_t n = g->u / SENSOR_SUB_NS;
    g->nsub = n < 8 ? 8 : n > 1024 ? 1024 : n;
    return 1;
}

/* The time of sub-sample j: the middle of its share of its update (window j / nsub + 1). */
static uint64_t sensor_sub_t(const struct sensor_grid *g, uint64_t j)
{
    uint64_t k = j / g->nsub, i = j % g->nsub;
    return g->off + k * g->u + (uint64_t)(((double)i + 0.5) * (double)g->u / (double)g->nsub);
}

/* Takes the sub-samples of acc before limit from state st, completing the windows they end. Windows that would
 * leave the ring before they could be read are passed over whole (a state held for longer than SENSOR_WINDOWS
 * updates: only the last ones are worked out, the cost bounded). */
static void sensor_advance(struct sensor_acc *a, const struct power_state *st, const struct sim_params *m,
                           const struct sensor_grid *g, uint64_t limit)
{
    uint64_t keep = (SENSOR_WINDOWS + 1) * g->u;
    if (limit > keep && sensor_sub_t(g, a->next_j) + keep < limit) {
        uint64_t k = (limit - keep > g->off ? limit - keep - g->off : 0) / g->u;   /* a whole window's start */
        if (k * g->nsub > a->next_j) {
            a->next_j = k * g->nsub;
            a->sum = 0;
        }
    }
    int point = m->sensor.mode == SENSOR_POINT;
    for (uint64_t t; (t = sensor_sub_t(g, a->next_j)) < limit; a->next_j++) {
        int last = (a->next_j + 1) % g->nsub == 0;
        double v = !point || last ? sim_power_elec(st, m, t) : 0;   /* a point sensor: its update's last sub-sample */
        a->sum += v;
        if (last) {
            a->k[a->done % SENSOR_WINDOWS] = (int64_t)(a->next_j / g->nsub + 1);
            a->w[a->done % SENSOR_WINDOWS] = point ? v : a->sum / (double)g->nsub;
            a->done++;
            a->sum = 0;
        }
    }
}

void sim_sensor_step(const struct sim_params *m, int slot, const struct power_state *prev, struct power_state *next)
{
    struct sensor_grid g;
    if (!sensor_grid(m, slot, &g))
        return;
    if (!prev->t0_ns) {   /* the slot's first state: from the start of the update it falls in; the update before, its
                           * level (a sensor reads from the start, the GPU idle before the worker came) */
        memset(&next->sens, 0, sizeof next->sens);
        uint64_t k = next->t0_ns > g.off ? (next->t0_ns - g.off) / g.u : 0;
        next->sens.next_j = k * g.nsub;
        if (k >= 1) {
            next->sens.k[0] = (int64_t)k;
            next->sens.w[0] = sim_power_elec(next, m, next->t0_ns);
            next->sens.done = 1;
        }
        return;
    }
    next->sens = prev->sens;
    sensor_advance(&next->sens, prev, m, &g, next->t0_ns);
}

/* A slot as the supervisor last read it: the newest state, its windows carried on to the last reading; the state's
 * own windows (from_*) tell a new state from the one carried on. */
struct sim_slot {
    struct power_state st;
    int have;
    uint64_t from_t0, from_j, from_done;
    int64_t held_k;   /* the last reading given (0: none): held while no newer window is visible */
    double held_w;
};

struct power_source {
    struct shm *shm;
    struct rng noise;
    struct sim_slot *slot;   /* one per slot */
};

struct power_source *sim_power_open(struct shm *shm, char *why, size_t n)
{
    (void)why;
    (void)n;
    struct power_source *ps = xcalloc(1, sizeof *ps);
    ps->shm = shm;
    ps->slot = xcalloc(shm->hdr->nslots ? shm->hdr->nslots : 1, sizeof *ps->slot);
    rng_seed(&ps->noise, (uint64_t)shm->hdr->sc.seed, 99);
    return ps;
}

/* A seeded standard normal for (seed, slot, k): the same update of the same slot reads the same noise however often
 * it is read (a held reading is one reading). */
static double sim_noise(uint64_t seed, int slot, int64_t k)
{
    struct rng r;
    rng_seed(&r, seed ^ 0x5E4503ull, ((uint64_t)slot << 40) ^ (uint64_t)k);
    return rng_normal(&r);
}

/* The newest window of a whose update is visible at seen (its tick at or before it): 1 with its number and mean. */
static int sensor_visible(const struct sensor_acc *a, const struct sensor_grid *g, uint64_t seen, int64_t *k, double *w)
{
    uint64_t n = a->done < SENSOR_WINDOWS ? a->done : SENSOR_WINDOWS;
    for (uint64_t i = 1; i <= n; i++) {
        uint64_t at = (a->done - i) % SENSOR_WINDOWS;
        if (g->off + (uint64_t)a->k[at] * g->u <= seen) {
            *k = a->k[at];
            *w = a->w[at];
            return 1;
        }
    }
    return 0;
}

/* Reads the modeled power of slot at t from the state its worker published, through the modelled sensor
 * (sim.sensor): without one, the electrical power at t plus noise; with one, the reading of the last update visible
 * at t (t - lag), the mean of the electrical power over that update, plus that update's noise (before the first
 * update is whole: the electrical power). true_w: the electrical power at t. */
int sim_power_read(struct power_source *ps, int rank, uint64_t t, struct power_reading *out)
{
    const struct sim_params *m = &ps->shm->hdr->sc.sim;
    struct power_state st;
    struct sim_slot *sl = &ps->slot[rank];
    if (ctl_get_power(shm_ctl(ps->shm, rank), &st) != 0) {   /* its worker died mid-write: the last state seen */
        if (!sl->have) {
            *out = POWER_READING_NONE;
            return 0;
        }
        st = sl->st;
    }
    if (!st.t0_ns) {   /* the worker has not started its model yet: nothing to report */
        *out = POWER_READING_NONE;
        return 0;
    }
    if (!sl->have || st.t0_ns != sl->from_t0 || st.sens.next_j != sl->from_j || st.sens.done != sl->from_done) {
        sl->st = st;   /* a new state: its windows as its worker worked them out */
        sl->have = 1;
        sl->from_t0 = st.t0_ns;
        sl->from_j = st.sens.next_j;
        sl->from_done = st.sens.done;
    }
    double truth = sim_power_elec(&sl->st, m, t), p;
    uint64_t sample_ns = 0;   /* with a sensor: its update's time (the end of the window the reading averages) */
    uint64_t lag = (uint64_t)(m->sensor.lag_s * 1e9);
    struct sensor_grid g = { 0 };
    int64_t k;
    double w;
    if (sensor_grid(m, rank, &g) && t > lag) {
        sensor_advance(&sl->st.sens, &sl->st, m, &g, t - lag + 1);
        if (sensor_visible(&sl->st.sens, &g, t - lag, &k, &w)) {
            sl->held_k = k;
            sl->held_w = w;
        }
    }
    if (sl->held_k > 0 && g.u) {
        p = sl->held_w + m->noise_w * sim_noise((uint64_t)ps->shm->hdr->sc.seed, rank, sl->held_k);
        sample_ns = g.off + (uint64_t)sl->held_k * g.u;
    } else {
        p = truth + m->noise_w * rng_normal(&ps->noise);
    }
    *out = (struct power_reading){ .watts = p > 0 ? p : 0, .avg_w = NAN, .energy_j = NAN, .clock_mhz = NAN,
                                   .temp_c = NAN, .throttle = 0, .true_w = truth, .sample_ns = sample_ns };
    return 0;
}

/* Says what a sim slot's readings come from. */
void sim_sensor_source(struct power_source *ps, int slot, char *out, size_t n)
{
    const struct sim_sensor *ss = &ps->shm->hdr->sc.sim.sensor;
    (void)slot;
    if (ss->update_s > 0)
        snprintf(out, n, "sim model through sim.sensor: a reading every %.3g ms (%s), %.3g ms lag",
                 ss->update_s * 1e3, ss->mode == SENSOR_POINT ? "the power at it" : "the mean over it", ss->lag_s * 1e3);
    else
        snprintf(out, n, "sim model, no sensor (sim.sensor.update 0): the electrical power at each reading");
}

void sim_power_close(struct power_source *ps)
{
    if (ps)
        free(ps->slot);
    free(ps);
}

/* The sim's GPU has no model name (the view then says "ranks"); its TDP is the model's. */
int sim_power_info(struct power_source *ps, int slot, char *name, size_t n, double *tdp_w)
{
    (void)slot;
    if (n)
        name[0] = 0;
    *tdp_w = ps->shm->hdr->sc.sim.tdp_w;
    return 0;
}
