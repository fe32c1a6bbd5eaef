/* harness/backends/sim/simpower.c: the sim's power: the model's level at any moment (a first-order response, shaped
 * in a gap by the filler's plan), the power limiter's burst and dip on top of it (sim.limiter), and the supervisor's
 * side that reads it through the modelled sensor (sim.sensor): each slot's past states, the mean over an update,
 * the noise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

#define SIM_STATES 64   /* per slot: the model's last states, to evaluate it at the sensor's past update times */

/* The model's states a slot went through (as the supervisor saw them), newest last. */
struct sim_hist {
    struct power_state st[SIM_STATES];
    int n, next;
};

struct power_source {
    struct shm *shm;
    struct rng noise;
    struct sim_hist *hist;   /* one per slot */
};

struct power_source *sim_power_open(struct shm *shm, char *why, size_t n)
{
    (void)why;
    (void)n;
    struct power_source *ps = xcalloc(1, sizeof *ps);
    ps->shm = shm;
    ps->hist = xcalloc(shm->hdr->nslots ? shm->hdr->nslots : 1, sizeof *ps->hist);
    rng_seed(&ps->noise, (uint64_t)shm->hdr->sc.seed, 99);
    return ps;
}

/* Keeps st in the slot's history when it is a new state. */
static void sim_hist_push(struct sim_hist *h, const struct power_state *st)
{
    const struct power_state *last = h->n ? &h->st[(h->next + SIM_STATES - 1) % SIM_STATES] : NULL;
    if (last && last->t0_ns == st->t0_ns && last->target_w == st->target_w && last->p0_w == st->p0_w)
        return;
    h->st[h->next] = *st;
    h->next = (h->next + 1) % SIM_STATES;
    if (h->n < SIM_STATES)
        h->n++;
}

/* The electrical power at t from the slot's history: the newest state begun by t (the oldest kept before that). */
static double sim_hist_power(const struct sim_hist *h, uint64_t t, const struct sim_params *m)
{
    for (int i = 1; i <= h->n; i++) {
        const struct power_state *st = &h->st[(h->next + SIM_STATES - i) % SIM_STATES];
        if (st->t0_ns <= t || i == h->n)
            return sim_power_elec(st, m, t);
    }
    return NAN;
}

/* A seeded standard normal for (seed, slot, k): the same update of the same slot reads the same noise however often
 * it is read (a held reading is one reading). */
static double sim_noise(uint64_t seed, int slot, int64_t k)
{
    struct rng r;
    rng_seed(&r, seed ^ 0x5E4503ull, ((uint64_t)slot << 40) ^ (uint64_t)k);
    return rng_normal(&r);
}

/* Reads the modeled power of rank at t from the state its worker published, through the modelled sensor
 * (sim.sensor): without one, the electrical power at t plus noise; with one, the reading of the last update visible
 * at t (update times offset per slot: GPUs' sensors are not in step), the mean of the electrical power over that
 * update, plus that update's noise. true_w: the electrical power at t. */
int sim_power_read(struct power_source *ps, int rank, uint64_t t, struct power_reading *out)
{
    const struct sim_params *m = &ps->shm->hdr->sc.sim;
    struct power_state st;
    struct sim_hist *h = &ps->hist[rank];
    if (ctl_get_power(shm_ctl(ps->shm, rank), &st) != 0) {   /* its worker died mid-write: the last state seen */
        if (!h->n) {
            *out = POWER_READING_NONE;
            return 0;
        }
        st = h->st[(h->next + SIM_STATES - 1) % SIM_STATES];
    }
    if (!st.t0_ns) {   /* the worker has not started its model yet: nothing to report */
        *out = POWER_READING_NONE;
        return 0;
    }
    sim_hist_push(h, &st);
    double truth = sim_power_elec(&st, m, t), p;
    uint64_t sample_ns = 0;   /* with a sensor: its update's time (the end of the window the reading averages) */
    uint64_t u = (uint64_t)(m->sensor.update_s * 1e9), lag = (uint64_t)(m->sensor.lag_s * 1e9);
    if (u > 0 && t > lag + u) {
        uint64_t off = (uint64_t)((double)u * (0.5 + 0.5 * sin(1.0 + 2.3999 * rank)) * 0.999);   /* per slot, fixed */
        uint64_t seen = t - lag;   /* the newest update visible at t: the last tick off + k u at or before seen */
        int64_t k = seen >= off ? (int64_t)((seen - off) / u) : -1;
        uint64_t tick = off + (uint64_t)(k > 0 ? k : 0) * u;
        double sum = 0;
        int nsub = u / 1000000 < 8 ? 8 : u / 1000000 > 64 ? 64 : (int)(u / 1000000);   /* about every ms */
        for (int i = 0; i < nsub; i++)   /* the mean over the update: [tick - u, tick] */
            sum += sim_hist_power(h, tick - u + (uint64_t)((double)u * (i + 0.5) / nsub), m);
        p = sum / nsub + m->noise_w * sim_noise((uint64_t)ps->shm->hdr->sc.seed, rank, k);
        sample_ns = tick;
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
        snprintf(out, n, "sim model through sim.sensor: a reading every %.3g ms (the mean over it), %.3g ms lag",
                 ss->update_s * 1e3, ss->lag_s * 1e3);
    else
        snprintf(out, n, "sim model, no sensor (sim.sensor.update 0): the electrical power at each reading");
}

void sim_power_close(struct power_source *ps)
{
    if (ps)
        free(ps->hist);
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
