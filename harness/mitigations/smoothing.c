/* harness/mitigations/smoothing.c: the GPU firmware's power smoothing (a floor and ramp rates) where the GPU
 * has it (Blackwell-class, not built yet); here always its software emulation from filler and ramp, and the
 * run's report says so. */
#include <stddef.h>

#include "mitigation.h"
#include "scenario.h"

#define P(f) offsetof(struct smoothing_params, f)
static const struct param smoothing_params[] = {
    { "floor", PT_POWER, P(floor), .def = "65%", .help = "minimum power: % of TDP or watts" },
    { "ramp_up_w_s", PT_DOUBLE, P(ramp_up_w_s), .def = "2000", .min = 1, .max = 1e7, .unit = "W/s",
      .help = "largest rise per second" },
    { "ramp_down_w_s", PT_DOUBLE, P(ramp_down_w_s), .def = "2000", .min = 1, .max = 1e7, .unit = "W/s",
      .help = "largest fall per second" },
    { 0 },
};

static void smoothing_model(const void *params, const struct sim_params *m, int rank, int nranks, struct mit_model *out)
{
    const struct smoothing_params *p = params;
    (void)rank, (void)nranks;
    out->floor_w = mitigation_watts(&p->floor, m->tdp_w);
    out->ramp_up_w_s = p->ramp_up_w_s;
    out->ramp_down_w_s = p->ramp_down_w_s;
}

const struct mitigation_ops mitigation_smoothing = {
    .version = MITIGATION_OPS_VERSION,
    .name = "smoothing",
    .help = "power smoothing: a floor and ramp rates (emulated with filler and ramp: no firmware path yet)",
    .params = smoothing_params,
    .params_size = sizeof(struct smoothing_params),
    .model = smoothing_model,
    .sim_only = 1,
};
