/* harness/plugins/mitigations/filler.c: a power floor — during communication and idle gaps, filler work keeps the
 * GPU's power near `floor`, stopped the moment compute resumes (the harness knows when phases start, so it
 * acts ahead of telemetry). Sim: no phase's level is below the floor. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "mitigation.h"
#include "machine.h"

static const struct param filler_params[] = {
    { "floor", PT_POWER, offsetof(struct filler_params, floor), .def = "80%",
      .help = "power kept during communication and idle: % of TDP or watts" },
    { 0 },
};

/* Holds every phase at the floor at least (the sim's response falls to it, then holds it: simmodel_power_floor). */
static void filler_model(const void *params, const struct sim_params *m, int rank, int nranks, struct mit_model *out)
{
    (void)rank, (void)nranks;
    out->floor_w = mitigation_watts(&((const struct filler_params *)params)->floor, m->tdp_w);
}

/* Says when the floor holds nothing up: 0, or at or below the GPU's idle level (no gap draws less). */
static int filler_inert(const void *params, const struct mit_run *run, char *why, size_t n)
{
    const struct power_value *v = &((const struct filler_params *)params)->floor;
    double w = mitigation_watts(v, run->tdp_w);
    if (!(v->value > 0))
        snprintf(why, n, "filler with a floor of 0 holds nothing up: it does nothing");
    else if (isfinite(w) && isfinite(run->idle_w) && w <= run->idle_w)
        snprintf(why, n, "filler's floor (%.0f W) is at or below the GPU's idle level (%.0f W): no gap draws less, so "
                 "it does nothing", w, run->idle_w);
    else
        return 0;
    return 1;
}

const struct mitigation_ops mitigation_filler = {
    .version = MITIGATION_OPS_VERSION,
    .name = "filler",
    .help = "power floor: filler work during communication and idle keeps power near `floor`",
    .params = filler_params,
    .params_size = sizeof(struct filler_params),
    .model = filler_model,
    .inert = filler_inert,
    .model_note = "energy from the model: filler work is assumed to start when the power has fallen to the floor and"
                  " to draw exactly the floor (at most sim.filler_w), at no cost in time; not measured",
};
