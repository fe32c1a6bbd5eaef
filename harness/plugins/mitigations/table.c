/* harness/plugins/mitigations/table.c: the one list of mitigation strategies. */
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
