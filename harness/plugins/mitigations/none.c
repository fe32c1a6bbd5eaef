/* harness/plugins/mitigations/none.c: the baseline — the workload as it is, nothing damped. */
#include "mitigation.h"

const struct mitigation_ops mitigation_none = {
    .version = MITIGATION_OPS_VERSION,
    .name = "none",
    .help = "baseline: the workload unchanged, nothing damped",
    .params = NULL,
    .params_size = 0,
    .model_note = NULL,   /* the baseline assumes nothing beyond the backend's own model */
};
