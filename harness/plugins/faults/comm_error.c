/* harness/plugins/faults/comm_error.c: the rank's communicator fails (NCCL abort on cuda; the sim collective gives up). */
#include <stdio.h>

#include "fault.h"
#include "util.h"

static int comm_error_point(const void *params)
{
    (void)params;
    return IP_BEFORE_ALLREDUCE;
}

/* Breaks the communicator: the next all-reduce of this rank fails, and its peers see it. */
static int comm_error_inject(const struct fault_env *env, const void *params, uint64_t seed, char *what, size_t n,
                   struct fault_detail *out)
{
    (void)out;   /* nothing to add to the record: the fault has no buffer, bit or value */
    (void)params, (void)seed;
    return env->break_link(env->ctx, what, n);
}

const struct fault_ops fault_comm_error = {
    .version = FAULT_OPS_VERSION,
    .name = "comm-error",
    .help = "the rank's communicator fails (NCCL abort; the sim collective's equivalent)",
    .point = comm_error_point,
    .inject = comm_error_inject,
};
