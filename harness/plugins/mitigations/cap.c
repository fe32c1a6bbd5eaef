/* harness/plugins/mitigations/cap.c: a power cap. On a GPU the supervisor sets the power limit through NVML, only with
 * --allow-device-settings, and puts it back after the run and on every exit (devset.c); on sim
 * the compute level is capped and the GEMM chain slows as (compute_w / cap)^0.4 — throughput follows the
 * clock, power about the clock to the 2.5th. */
#include <stddef.h>

#include "mitigation.h"
#include "machine.h"

static const struct param cap_params[] = {
    { "cap", PT_POWER, offsetof(struct cap_params, cap), .def = "80%", .help = "power limit: % of TDP or watts" },
    { 0 },
};

static void cap_model(const void *params, const struct sim_params *m, int rank, int nranks, struct mit_model *out)
{
    (void)rank, (void)nranks;
    out->cap_w = mitigation_watts(&((const struct cap_params *)params)->cap, m->tdp_w);
}

const struct mitigation_ops mitigation_cap = {
    .version = MITIGATION_OPS_VERSION,
    .name = "cap",
    .help = "power cap: the GPU's power limit through NVML (needs --allow-device-settings; sim: modeled)",
    .params = cap_params,
    .params_size = sizeof(struct cap_params),
    .model = cap_model,
    .device = MIT_DEV_CAP,
    .model_note = "energy and time from the model: throughput follows the clock, power about its 2.5th power "
                  "(clock^2.5); not measured",
};
