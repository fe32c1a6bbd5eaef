/* harness/plugins/mitigations/ramp.c: software ramp limits — going into compute the GEMM chain is released
 * gradually, going into communication filler work fades out, so dP/dt stays under `ramp_w_s`. Sim: power
 * follows its natural first-order response, never faster than that rate, and the compute phase pays only what
 * the limit costs beyond the natural rise (backends/simmodel.h). */
#include <stddef.h>

#include "mitigation.h"

static const struct param ramp_params[] = {
    { "ramp_w_s", PT_DOUBLE, offsetof(struct ramp_params, ramp_w_s), .def = "2000", .min = 1, .max = 1e7,
      .unit = "W/s", .help = "the largest rise or fall of one GPU's power per second" },
    { 0 },
};

static void ramp_model(const void *params, const struct sim_params *m, int rank, int nranks, struct mit_model *out)
{
    (void)m, (void)rank, (void)nranks;
    out->ramp_up_w_s = out->ramp_down_w_s = ((const struct ramp_params *)params)->ramp_w_s;
}

const struct mitigation_ops mitigation_ramp = {
    .version = MITIGATION_OPS_VERSION,
    .name = "ramp",
    .help = "software ramp limit: compute released gradually, filler fades out, dP/dt <= ramp_w_s",
    .params = ramp_params,
    .params_size = sizeof(struct ramp_params),
    .model = ramp_model,
    .model_note = "swing, energy and time from the model: power follows the natural first-order response (sim.ramp)"
                  " never faster than ramp_w_s, and compute is charged the area between the natural and the limited"
                  " rise divided by the step (work follows the released share of the step); not measured",
};
