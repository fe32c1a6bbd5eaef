/* harness/plugins/mitigations/bess.c: facility energy storage. The workload runs unchanged; after the run a battery
 * serves the fast part of the projected cluster's draw (the grid supplies its exponential moving average, time
 * constant `window`),
 * within its power rating and capacity, and the run reports the grid-side swing, the battery's throughput,
 * its losses and its state-of-charge range. Works on every backend: it acts on the trace. With `size` the
 * battery is sized from the swing the first `none` run measured (the search's candidates are). */
#include <stddef.h>
#include <stdio.h>

#include "mitigation.h"

#define P(f) offsetof(struct bess_params, f)
static const struct param bess_params[] = {
    { "capacity_mwh", PT_DOUBLE, P(capacity_mwh), .def = "10", .min = 1e-9, .max = 1e6, .unit = "MWh",
      .help = "energy the battery holds (it starts half full)" },
    { "power_mw", PT_DOUBLE, P(power_mw), .def = "20", .min = 1e-9, .max = 1e6, .unit = "MW",
      .help = "largest charge or discharge power" },
    { "efficiency", PT_DOUBLE, P(efficiency), .def = "0.9", .min = 0.01, .max = 1, .help = "round-trip efficiency" },
    { "window", PT_DURATION, P(window_s), .def = "30s", .min = 0.001, .max = 86400,
      .help = "the grid follows the draw's exponential moving average of this time constant; the battery serves the rest" },
    { "size", PT_DOUBLE, P(size_pct), .def = "0", .min = 0, .max = 1000, .unit = "%",
      .help = "> 0: sized from the measured swing: power_mw = size % of the first none run's projected swing, "
              "capacity_mwh = one minute at that power (given power_mw and capacity_mwh are then ignored)" },
    { 0 },
};

/* Hands the battery's ratings to the analysis. */
static void bess_facility(const void *params, struct an_bess *out)
{
    const struct bess_params *p = params;
    *out = (struct an_bess){ .capacity_mwh = p->capacity_mwh, .power_mw = p->power_mw, .efficiency = p->efficiency,
                             .window_s = p->window_s };
}

static double bess_share(const void *params) { return ((const struct bess_params *)params)->size_pct; }

static void bess_size(void *params, double swing_mw, double *power_mw, double *capacity_mwh)
{
    struct bess_params *p = params;
    if (swing_mw > 0) {
        p->power_mw = swing_mw * p->size_pct / 100;
        p->capacity_mwh = p->power_mw / 60;   /* one minute at full power: far more than fluctuations below 1 Hz need */
    }
    *power_mw = p->power_mw;
    *capacity_mwh = p->capacity_mwh;
}

/* Says when the grid's average follows the draw sample by sample (window at most one sample period: its weight is
 * 1, analysis_bess): the battery never serves anything. */
static int bess_inert(const void *params, const struct mit_run *run, char *why, size_t n)
{
    const struct bess_params *p = params;
    if (!(run->sample_s > 0) || p->window_s > run->sample_s)
        return 0;
    snprintf(why, n, "bess with a window of %g ms, no longer than the power trace's sample period (%g ms): the grid's "
             "average follows the draw sample by sample and the battery never acts", p->window_s * 1e3,
             run->sample_s * 1e3);
    return 1;
}

const struct mitigation_ops mitigation_bess = {
    .version = MITIGATION_OPS_VERSION,
    .name = "bess",
    .help = "facility battery serving the projected cluster's fast swings (after the run, on the trace)",
    .params = bess_params,
    .params_size = sizeof(struct bess_params),
    .facility = bess_facility,
    .model_note = "a model on every backend: an ideal battery with the given ratings and round-trip efficiency "
                  "serves the measured trace's fast part after the run; the grid-side figures are computed, not "
                  "measured",
    .size_share = bess_share,
    .size = bess_size,
    .inert = bess_inert,
};
