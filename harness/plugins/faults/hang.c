/* harness/plugins/faults/hang.c: the rank stops making progress while its process stays alive. */
#include <stdio.h>

#include "fault.h"
#include "util.h"

static int hang_point(const void *params)
{
    (void)params;
    return IP_ITER_START;
}

/* Stops the rank: on a GPU a kernel spins forever on its stream; on sim the loop stops. Never returns. */
static int hang_inject(const struct fault_env *env, const void *params, uint64_t seed, char *what, size_t n,
                   struct fault_detail *out)
{
    (void)out;   /* nothing to add to the record: the fault has no buffer, bit or value */
    (void)params, (void)seed;
    snprintf(what, n, "%s", env->kernel_hang ? "a kernel spins on the rank's stream" : "the iteration loop stops");
    env->done(env->ctx, what);
    env->hang(env->ctx);   /* alive, silent: no heartbeat, no progress */
    return -1;             /* not reached */
}

const struct fault_ops fault_hang = {
    .version = FAULT_OPS_VERSION,
    .name = "hang",
    .help = "the rank stops making progress while its process stays alive",
    .point = hang_point,
    .inject = hang_inject,
};
