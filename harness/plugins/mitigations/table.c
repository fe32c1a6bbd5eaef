/* harness/plugins/mitigations/table.c: the one list of mitigation strategies. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "mitigation.h"

extern const struct mitigation_ops mitigation_none, mitigation_filler, mitigation_ramp, mitigation_stagger,
    mitigation_cap, mitigation_smoothing, mitigation_bess;

const struct mitigation_ops *const mitigation_table[] = {
    &mitigation_none, &mitigation_filler, &mitigation_ramp, &mitigation_stagger, &mitigation_cap, &mitigation_smoothing,
    &mitigation_bess, NULL,
};

const struct plugin_kind plugin_mitigations = { "mitigation", (const struct plugin_ops *const *)mitigation_table,
                                                MITIGATION_OPS_VERSION };

double mitigation_watts(const struct power_value *v, double tdp_w)
{
    return v->percent ? v->value / 100.0 * tdp_w : v->value;
}

double mitigation_tdp_w(int modelled, const struct sim_params *m, uint64_t tdp_mw)
{
    if (modelled)
        return m->tdp_w;
    return tdp_mw ? (double)tdp_mw * 1e-3 : NAN;
}

void mitigation_model_tdp(int index, const void *params, const struct sim_params *m, double tdp_w, int rank,
                          int nranks, struct mit_model *out)
{
    struct sim_params p = *m;
    p.tdp_w = tdp_w;
    memset(out, 0, sizeof *out);
    if (mitigation_table[index]->model)
        mitigation_table[index]->model(params, &p, rank, nranks, out);
}

int mitigation_check(int index, const void *params, const struct sim_params *m, const char **key, char *why, size_t n)
{
    const struct mitigation_ops *ops = mitigation_table[index];
    return ops->check ? ops->check(params, m, key, why, n) : 0;
}

int mitigation_inert(int index, const void *params, const struct mit_run *run, char *why, size_t n)
{
    const struct mitigation_ops *ops = mitigation_table[index];
    return ops->inert ? ops->inert(params, run, why, n) : 0;
}

int mitigation_acts_on_swing(int index, const void *params, const struct sim_params *m)
{
    const struct mitigation_ops *ops = mitigation_table[index];
    struct mit_model mm = { 0 };
    if (!ops->model || ops->facility)
        return 0;
    ops->model(params, m, 1, 2, &mm);   /* rank 1 of 2: a stagger's second group is the one delayed */
    return mm.floor_w > 0 || mm.ramp_up_w_s > 0 || mm.ramp_down_w_s > 0 || mm.delay_s > 0;
}

double mitigation_followed_share(double period_s, double tau_s)
{
    if (!(tau_s > 0))
        return 1;
    return period_s > 0 ? tanh(period_s / (4 * tau_s)) : 0;
}

int mitigation_timescale_warning(const char *name, double period_s, double tau_s, double update_s, char *why, size_t n)
{
    double power = mitigation_followed_share(period_s, tau_s);
    if (!(period_s > 0))
        return 0;
    if (power < 0.25)
        snprintf(why, n, "an iteration of %.3g ms is shorter than the GPUs' power response (time constant %.3g ms, "
                 "sim.ramp): their power follows at most %.0f %% of the difference between its phases' levels, so %s "
                 "has little swing to remove and pays its energy and time for little", period_s * 1e3, tau_s * 1e3,
                 power * 100, name);
    else if (update_s > 0 && period_s < 2 * update_s)
        snprintf(why, n, "an iteration of %.3g ms is shorter than two of the power sensor's updates (a reading every "
                 "%.3g ms): its readings cannot follow the iteration (the swing they show is an alias of it), so what "
                 "%s does to the swing cannot be measured here", period_s * 1e3, update_s * 1e3, name);
    else
        return 0;
    return power < 0.25 ? 1 : 2;
}
