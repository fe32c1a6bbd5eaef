/* harness/plugins/faults/node_crash.c: every worker of a node dies at once, as when the node loses power: the
 * node's first rank reports the fault, then kills its siblings (the worker's kill_node: only live ones) and itself.
 * The node's supervisor stays up and reports it, as a real node's agent would. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "fault.h"
#include "util.h"

static const struct param node_crash_params[] = {
    { "node", PT_INT, offsetof(struct node_crash_params, node), .def = "0", .min = 0, .max = 100000,
      .help = "the node whose workers all die (carried out by its first rank)" },
    { 0 },
};

static int node_crash_point(const void *params)
{
    (void)params;
    return IP_ITER_START;
}

static int node_crash_inject(const struct fault_env *env, const void *params, uint64_t seed, char *what, size_t n,
                   struct fault_detail *out)
{
    (void)out;   /* nothing to add to the record: the fault has no buffer, bit or value */
    (void)seed;
    /* the record first: the supervisor drains every ring before it judges a death, so a sibling's death finds the
     * fault it died of (reported after the kills, a descheduled injector let one die of "nothing": a real crash, and
     * the fault itself only joined the recovery that started) */
    snprintf(what, n, "node %lld: every other live worker killed, then this one",
             (long long)((const struct node_crash_params *)params)->node);
    env->done(env->ctx, what);
    (void)env->kill_node(env->ctx);   /* how many were still alive: no more than the record says */
    signal(SIGKILL, SIG_DFL);
    raise(SIGKILL);
    return -1;   /* not reached */
}

static int64_t node_crash_node(const void *params) { return ((const struct node_crash_params *)params)->node; }

const struct fault_ops fault_node_crash = {
    .version = FAULT_OPS_VERSION,
    .name = "node-crash",
    .help = "every worker of a node dies at once (the node fails; its supervisor stays)",
    .params = node_crash_params,
    .params_size = sizeof(struct node_crash_params),
    .point = node_crash_point,
    .inject = node_crash_inject,
    .node = node_crash_node,
};
