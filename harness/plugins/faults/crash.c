/* harness/plugins/faults/crash.c: the rank's process dies at once, as on a node failure. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "fault.h"
#include "util.h"

static const struct param crash_params[] = {
    { "signal", PT_ENUM, offsetof(struct crash_params, signal), .def = "KILL", .choices = "KILL,SEGV,ABRT",
      .help = "signal the process dies of" },
    { 0 },
};

static int crash_point(const void *params)
{
    (void)params;
    return IP_ITER_START;
}

/* Kills this process with the chosen signal (the event saying so is already in the ring). SEGV and ABRT go through
 * the worker's handler for fatal signals, as a real crash does (its last word to the supervisor, deathnote.h). */
static int crash_inject(const struct fault_env *env, const void *params, uint64_t seed, char *what, size_t n,
                   struct fault_detail *out)
{
    (void)out;   /* nothing to add to the record: the fault has no buffer, bit or value */
    static const int sigs[] = { SIGKILL, SIGSEGV, SIGABRT };
    (void)seed;
    int sig = sigs[((const struct crash_params *)params)->signal];
    snprintf(what, n, "raise(%d)", sig);
    env->done(env->ctx, what);
    raise(sig);
    return -1;   /* not reached */
}

const struct fault_ops fault_crash = {
    .version = FAULT_OPS_VERSION,
    .name = "crash",
    .help = "the rank's process dies (a node failure)",
    .params = crash_params,
    .params_size = sizeof(struct crash_params),
    .point = crash_point,
    .inject = crash_inject,
};
