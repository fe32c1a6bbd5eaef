/* harness/plugins/mitigations/ramp.c: software ramp limits that add power and never remove compute — after compute
 * filler work holds the fall up and releases it at `ramp_w_s`; before the next compute phase (where its start is
 * expected from the last gaps) it climbs at that rate to the compute level; where the two do not fit the gap the
 * level they turn at is raised (fillplan.h). The same plan on sim and on a GPU. */
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
    .help = "software ramp limit: filler holds the fall up and prepares the climb, dP/dt <= ramp_w_s; no compute removed",
    .params = ramp_params,
    .params_size = sizeof(struct ramp_params),
    .model = ramp_model,
    .model_note = "swing, energy and time from the model: between compute phases the filler's plan (the fall held up"
                  " at ramp_w_s below sim.filler_w, the climb at ramp_w_s ahead of the expected next compute) through"
                  " the first-order response (sim.ramp); compute runs at full rate; not measured",
};
