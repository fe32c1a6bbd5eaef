/* harness/plugins/mitigations/stagger.c: ranks in `groups` start their compute phases `offset` apart, showing what
 * desynchronising buys in swing and what the collective's waits take back in time. */
#include <stddef.h>
#include <stdio.h>

#include "mitigation.h"

#define P(f) offsetof(struct stagger_params, f)
static const struct param stagger_params[] = {
    { "groups", PT_INT, P(groups), .def = "2", .min = 1, .max = 4096, .help = "groups of ranks (rank mod groups)" },
    { "offset", PT_DURATION, P(offset_s), .def = "20ms", .min = 0, .max = 60, .help = "delay between groups" },
    { 0 },
};

static void stagger_model(const void *params, const struct sim_params *m, int rank, int nranks, struct mit_model *out)
{
    const struct stagger_params *p = params;
    (void)m, (void)nranks;
    out->delay_s = (double)(rank % p->groups) * p->offset_s;
}

/* Says when no rank is ever delayed: one group, no offset, or one rank in all (rank 0 is in group 0). */
static int stagger_inert(const void *params, const struct mit_run *run, char *why, size_t n)
{
    const struct stagger_params *p = params;
    if (p->groups < 2)
        snprintf(why, n, "stagger with groups 1 puts every rank in group 0: no rank is delayed, so it does nothing");
    else if (!(p->offset_s > 0))
        snprintf(why, n, "stagger with offset 0 delays no group: it does nothing");
    else if (run->world == 1)
        snprintf(why, n, "stagger on 1 rank in all: rank 0 is in group 0 and never delayed, so it does nothing");
    else
        return 0;
    return 1;
}

const struct mitigation_ops mitigation_stagger = {
    .version = MITIGATION_OPS_VERSION,
    .name = "stagger",
    .help = "ranks in groups start compute `offset` apart",
    .params = stagger_params,
    .params_size = sizeof(struct stagger_params),
    .model = stagger_model,
    .inert = stagger_inert,
    .model_note = "power from the model: a group starts compute `offset` later at unchanged modelled levels, and "
                  "the time it costs is the collective's wait on modelled phase durations; not measured",
};
