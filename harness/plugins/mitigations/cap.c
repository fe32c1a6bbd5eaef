/* harness/plugins/mitigations/cap.c: a power cap. On a GPU the supervisor sets the power limit through NVML, only with
 * --allow-device-settings, and puts it back after the run and on every exit (devset.c); on sim
 * the compute level is capped and the GEMM chain slows as (compute_w / cap)^0.4 — throughput follows the
 * clock, power about the clock to the 2.5th. */
#include <stddef.h>
#include <stdio.h>

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

/* Refuses a cap a GPU refuses: 0 (until 2026-11-30 it meant no cap at all, silently) and one under the idle level
 * (the model capped compute under it, drawing less than idle; NVML's minimum limit lies far above idle). */
static int cap_check(const void *params, const struct sim_params *m, const char **key, char *why, size_t n)
{
    const struct power_value *v = &((const struct cap_params *)params)->cap;
    double w = mitigation_watts(v, m->tdp_w);
    *key = "cap";
    if (!(v->value > 0)) {
        snprintf(why, n, "expected a power limit above 0 (a GPU refuses a limit of 0; `none` runs without one), got "
                 "0%s", v->percent ? "%" : "W");
        return -1;
    }
    if (w < m->idle_w) {
        snprintf(why, n, "expected a power limit at or above the idle level (sim.idle_w: %.0f W), got %g%s (%.0f W): a "
                 "GPU refuses a limit under its minimum, which lies above idle", m->idle_w, v->value, v->percent ? "%" : "W",
                 w);
        return -1;
    }
    return 0;
}

const struct mitigation_ops mitigation_cap = {
    .version = MITIGATION_OPS_VERSION,
    .name = "cap",
    .help = "power cap: the GPU's power limit through NVML (needs --allow-device-settings; sim: modeled)",
    .params = cap_params,
    .params_size = sizeof(struct cap_params),
    .model = cap_model,
    .device = MIT_DEV_CAP,
    .check = cap_check,
    .model_note = "energy and time from the model: throughput follows the clock, power about its 2.5th power "
                  "(clock^2.5); not measured",
};
