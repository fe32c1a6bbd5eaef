/* harness/plugins/faults/straggler.c: the rank runs `factor` times slower for `duration`. */
#include <stddef.h>
#include <stdio.h>

#include "fault.h"
#include "util.h"

#define P(f) offsetof(struct straggler_params, f)
static const struct param straggler_params[] = {
    { "factor", PT_DOUBLE, P(factor), .def = "3", .min = 1, .max = 1000, .help = "how many times slower its phases run (more than 1: 1 slows nothing, refused)" },
    { "duration", PT_DURATION, P(duration_s), .def = "5s", .min = 0.001, .max = 86400, .help = "for how long" },
    { 0 },
};

static int straggler_point(const void *params)
{
    (void)params;
    return IP_ITER_START;
}

/* Slows every phase of this rank from now on, until the duration has passed. */
static int straggler_inject(const struct fault_env *env, const void *params, uint64_t seed, char *what, size_t n,
                   struct fault_detail *out)
{
    (void)out;   /* nothing to add to the record: the fault has no buffer, bit or value */
    const struct straggler_params *p = params;
    (void)seed;
    env->slow(env->ctx, p->factor, p->duration_s);
    snprintf(what, n, "phases x%g for %g s", p->factor, p->duration_s);
    return 0;
}

const struct fault_ops fault_straggler = {
    .version = FAULT_OPS_VERSION,
    .name = "straggler",
    .help = "the rank runs factor times slower for a while",
    .params = straggler_params,
    .params_size = sizeof(struct straggler_params),
    .point = straggler_point,
    .inject = straggler_inject,
};
