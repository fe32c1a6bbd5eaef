/* harness/plugins/mitigations/smoothing.c: the GPU firmware's power smoothing (a floor, ramp rates, a ramp-down
 * hysteresis) through NVML where the GPU and driver have it and --allow-device-settings was given (Blackwell
 * class); otherwise (Hopper, sim, no permission) its software emulation from filler and ramp. The run's
 * `smoothing` event and summary say which ran, and why. */
#include <stddef.h>

#include "mitigation.h"
#include "machine.h"

#define P(f) offsetof(struct smoothing_params, f)
static const struct param smoothing_params[] = {
    { "floor", PT_POWER, P(floor), .def = "65%", .help = "minimum power: % of TDP or watts" },
    { "ramp_up_w_s", PT_DOUBLE, P(ramp_up_w_s), .def = "2000", .min = 1, .max = 1e7, .unit = "W/s",
      .help = "largest rise per second" },
    { "ramp_down_w_s", PT_DOUBLE, P(ramp_down_w_s), .def = "2000", .min = 1, .max = 1e7, .unit = "W/s",
      .help = "largest fall per second" },
    { "hysteresis", PT_DURATION, P(hysteresis_s), .def = "0ms", .min = 0, .max = 60,
      .help = "firmware only: how long power stays up before it may ramp down" },
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
    .help = "power smoothing: a floor and ramp rates (the GPU firmware's where it has it, else emulated)",
    .params = smoothing_params,
    .params_size = sizeof(struct smoothing_params),
    .model = smoothing_model,
    .device = MIT_DEV_SMOOTHING,
    .model_note = "the firmware is not modelled: the floor and ramp rates act as filler and ramp do in the model "
                  "(the filler's plan between compute phases: floor, fall held up, climb prepared; compute at full"
                  " rate), the hysteresis is ignored; not measured",
};
