/* harness/run/supeff.c: how well a mitigation spends its energy against the none run (vs_none.energy_efficiency,
 * docs/power.md), resolved by the sensor or null, and on a modelled backend the same against the electrical truth. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "analysis_json.h"
#include "mitigations/fillplan.h"
#include "mitigations/mitigation.h"
#include "run.h"
#include "runstats.h"
#include "util.h"

/* The floor a GPU reached: the mitigation's, or the lowest power the run reached (p1) where that is lower; 0 without
 * a floor. */
static double sup_floor_reached(double floor_w, double p1)
{
    return floor_w > 0 ? (isfinite(p1) && p1 < floor_w ? p1 : floor_w) : 0;
}

/* The mean of an array of numbers (NAN: none). */
static double sup_mean(json_t *a)
{
    double sum = 0;
    int n = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
        if (json_is_number(v)) {
            sum += json_number_value(v);
            n++;
        }
    return n ? sum / n : NAN;
}

/* Whether the none run's gaps between compute phases (their median) are shorter than its readings resolve: two
 * updates plus the lag of its slowest GPU's sensor, the rule a step's power is attributed by (docs/power.md). Says
 * why in why. A least energy figured from readings that each average over a gap and its compute reads low (the least
 * fill is convex in the power), so the efficiency would be a number that can be wrong. */
static int sup_gaps_unresolved(json_t *base, char *why, size_t n)
{
    double gap = json_number_value(json_object_get(json_object_get(base, "gap_s"), "p50"));
    double update = sup_sensor_max_s(base, "update_ms"), lag = sup_sensor_max_s(base, "lag_ms");
    double need = 2 * update + lag;
    int known = 0;   /* a GPU whose readings' update interval was measured (null: too few of them changed) */
    size_t i;
    json_t *pr;
    json_array_foreach(json_object_get(json_object_get(base, "power"), "per_rank"), i, pr)
        known |= json_is_number(json_object_get(json_object_get(pr, "sensor"), "update_ms"));
    if (gap > 0 && json_array_size(json_object_get(json_object_get(base, "power"), "per_rank")) && !known) {
        /* until 2026-12-02 read as an interval of 0: resolved */
        snprintf(why, n, "no GPU's sensor update interval was measured in the none run (too few of its readings "
                 "changed): whether they resolve its gaps between compute phases (%.3g ms) is not known", gap * 1e3);
        return 1;
    }
    if (!(gap > 0) || !(need > 0) || gap >= need)
        return 0;
    snprintf(why, n, "the gaps between compute phases (%.3g ms) are shorter than the sensor resolves (two updates of "
             "%.3g ms plus %.3g ms lag): the least energy would read low", gap * 1e3, update * 1e3, lag * 1e3);
    return 1;
}

/* What rank g's mitigation does, read as its worker reads it: a % of TDP against the TDP the run had (the GPU's on a
 * GPU; until 2026-11-30 sim.tdp_w on every backend: a 80 % floor read 560 W on a 350 W GPU). */
static void sup_rank_model(struct sup *s, const struct plugin_spec *spec, int g, int nranks, struct mit_model *mm)
{
    uint64_t mw = s->ops->modelled ? 0 : atomic_load(&shm_ctl(&s->shm, s->slot_of[g])->tdp_mw);
    mitigation_model_tdp(spec->index, spec->params, &s->sc->sim, mitigation_tdp_w(s->ops->modelled, &s->sc->sim, mw), g,
                         nranks, mm);
}

/* The level rank g's filler plan holds its gaps within (fill_plan_make's high_w: the compute level, at most the
 * filler's top): the model's on a modelled backend, else its GPU's curve measured at start-up; INFINITY where the
 * GPU's firmware smoothed the run (it ramps from the compute level itself); NAN where the GPU measured no curve. */
static double sup_high_w(struct sup *s, json_t *r, int g)
{
    struct fill_plan p;
    const struct sim_params *m = &s->sc->sim;
    if (s->ops->modelled) {
        fill_plan_make(&p, 0, 0, 0, m->idle_w, m->compute_w, m->filler_w, NAN);
        return p.high_w;
    }
    const struct ctl *c = shm_ctl(&s->shm, s->slot_of[g]);
    if (!atomic_load(&c->tuned)) {
        const char *dev = json_string_value(json_object_get(json_object_get(r, "device"), "smoothing"));
        return dev && strcmp(dev, "firmware") == 0 ? INFINITY : NAN;
    }
    struct fill_curve fc = fill_curve_of(c->tune_w, c->tune_compute_w);
    fill_plan_make(&p, 0, 0, 0, fc.w[0], fc.compute_w, fill_curve_top(&fc), NAN);
    return p.high_w;
}

/* an_least_fill_j over a trace held at most at high_w: the plan holds the fall and prepares the climb only below
 * it (fill_plan_make), so above it the power moves as the none run's does. Until 2026-11-30 the rates were applied
 * up to the compute level, a result the filler never reached: an efficiency above 1 for a ramp that paid no time. */
static double sup_least_j(const double *t_s, const double *p, size_t n, double floor, double up, double down, double high)
{
    if (isnan(high))
        return NAN;   /* the level the plan held is not known: a least energy would be a guess */
    if (!(high < INFINITY))
        return an_least_fill_j(t_s, p, n, floor, up, down);
    double *q = xmalloc((n ? n : 1) * sizeof *q);
    for (size_t i = 0; i < n; i++)
        q[i] = isfinite(p[i]) && p[i] > high ? high : p[i];   /* a missing reading stays missing */
    double e = an_least_fill_j(t_s, q, n, floor < high ? floor : high, up, down);
    free(q);
    return e;
}

/* The least energy over the energy added: 0 where the run added energy its result did not need at all (its floor lay
 * below everything the none run drew: least 0); NAN only where it added none (nothing to spend well or badly). */
static double sup_eff(double least, double added)
{
    return added > 0 && isfinite(least) && least >= 0 ? least / added : NAN;
}

/* How well run r spends its energy against base (a none run, its power kept): the least energy its achieved result
 * could have cost — holding each GPU's floor (the mitigation's, or the lowest power the run reached where that is
 * lower: its p1) and its ramp limits above the none run's power (an_least_fill_j) — per iteration, against the
 * energy it added per iteration. vs_none gets energy_added_j, energy_least_j (per iteration, every GPU) and
 * energy_efficiency (least / added: 1 spends nothing beyond what its result needs, 0 where it needed none of it;
 * null where it added none), floor_asked_w and
 * floor_reached_w (the mean over GPUs); nothing where the mitigation holds no floor and no ramp limit. */
void sup_efficiency(struct sup *s, json_t *r, json_t *base, json_t *vs)
{
    json_int_t m = json_integer_value(json_object_get(r, "run")), b = json_integer_value(json_object_get(base, "run"));
    if (m < 0 || m >= s->sc->n_mitigations || b < 0 || b >= SC_MAX_MITIGATIONS || !s->rn->base_trace[b])
        return;
    const struct rs_trace *t = s->rn->base_trace[b];
    const struct plugin_spec *spec = &s->sc->mitigations[m];
    const struct mitigation_ops *ops = mitigation_table[spec->index];
    json_t *pr = json_object_get(json_object_get(r, "power"), "per_rank");
    if (!ops->model || ops->facility || (int)json_array_size(pr) < t->nranks)
        return;
    double least = 0, least_true = 0, asked = 0, reached = 0, down = 0, up = 0;
    int floors = 0, seen = 0;
    for (int g = 0; g < t->nranks; g++) {
        struct mit_model mm;
        sup_rank_model(s, spec, g, t->nranks, &mm);
        double high = sup_high_w(s, r, g);
        /* a rank with no reading in the stretch has no p1 (null): the floor it reached is not known, and neither is
         * the least energy (until 2026-12-01 read as 0 W: a floor of 0 dropped the figures, and 0 W went into the
         * floor reached) */
        double p1 = json_num_value(json_object_get(json_array_get(pr, (size_t)g), "p1_w"));
        double floor = mm.floor_w > 0 && !isfinite(p1) ? NAN : sup_floor_reached(mm.floor_w, p1);
        if (mm.floor_w > 0) {
            floors++;
            asked += mm.floor_w;
            if (isfinite(p1))
                reached += p1, seen++;
        }
        down = mm.ramp_down_w_s;
        up = mm.ramp_up_w_s;
        if (!(mm.floor_w > 0) && !(down > 0) && !(up > 0))
            return;   /* no floor, no ramp limit: a stagger, a cap; its energy is not a fill's */
        least += isnan(floor) ? NAN : sup_least_j(t->t_s, t->w + (size_t)g * t->n, t->n, floor, up, down, high);
        if (t->truth) {   /* the same against the model's electrical power, its floor what the truth reached */
            double tp1 = json_num_value(json_array_get(json_object_get(json_object_get(r, "truth"), "per_rank_p1_w"),
                                                       (size_t)g));
            least_true += mm.floor_w > 0 && !isfinite(tp1)
                              ? NAN
                              : sup_least_j(t->t_s, t->truth + (size_t)g * t->n, t->n, sup_floor_reached(mm.floor_w, tp1),
                                            up, down, high);
        }
    }
    least /= (double)t->iters;
    double added = sup_energy_per_iter(r) - sup_energy_per_iter(base);
    json_object_set_new(vs, "energy_added_j", json_num(added));
    char why[240];
    if (sup_gaps_unresolved(base, why, sizeof why)) {   /* the readings smooth the gaps: the least would read low */
        json_object_set_new(vs, "energy_least_j", json_null());
        json_object_set_new(vs, "energy_efficiency", json_null());
        json_object_set_new(vs, "unresolved", json_pack("[{s:s, s:s}]", "figure", "energy_efficiency", "why", why));
    } else {
        json_object_set_new(vs, "energy_least_j", json_num(least));
        json_object_set_new(vs, "energy_efficiency", json_num(sup_eff(least, added)));
    }
    json_t *tr = json_object_get(r, "truth"), *tb = json_object_get(base, "truth");
    if (t->truth && tr && tb) {
        least_true /= (double)t->iters;
        double added_true = json_num_value(json_object_get(tr, "energy_per_iter_j")) -
                            json_num_value(json_object_get(tb, "energy_per_iter_j"));   /* null either side: null */
        json_object_set_new(vs, "truth",
                            json_pack("{s:s, s:o, s:o, s:o, s:o}", "source", json_string_value(json_object_get(tr, "source")),
                                      "energy_added_j", json_num(added_true), "energy_least_j", json_num(least_true),
                                      "energy_efficiency",
                                      json_num(sup_eff(least_true, added_true)),
                                      "per_gpu_swing_reduction_pct",
                                      json_num(100 * (1 - sup_mean(json_object_get(tr, "per_rank_swing_w")) /
                                                              sup_mean(json_object_get(tb, "per_rank_swing_w"))))));
    }
    if (floors) {
        json_object_set_new(vs, "floor_asked_w", json_num(asked / floors));
        json_object_set_new(vs, "floor_reached_w", json_num(seen ? reached / seen : NAN));   /* the ranks read */
    }
}

