/* tests/stall_preload.c: a node that stalls, for tests/test_cluster_setup.c (LD_PRELOAD into one node's supervisor).
 * The process stops itself with SIGSTOP, as a frozen host or a debugger holds it, at its first call of the function
 * GAUNTLET_TEST_STALL_AT names: memfd_create (the control block: the set-up's first step after the start's
 * agreement) or getrusage (in supc_end, just before the node sends node 0 its end record). Nothing else changes; the
 * workers it starts do not inherit it. Built for the tests only, never installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct rusage;
int memfd_create(const char *name, unsigned int flags);
int getrusage(int who, struct rusage *ru);

static char stall_at[64];

__attribute__((constructor)) static void stall_init(void)
{
    const char *at = getenv("GAUNTLET_TEST_STALL_AT");
    if (at)
        strncpy(stall_at, at, sizeof stall_at - 1);
    unsetenv("LD_PRELOAD");   /* the workers it starts run as they are */
    unsetenv("GAUNTLET_TEST_STALL_AT");
}

/* Stops this process at the first call of fn, when fn is the one named. */
static void stall_maybe(const char *fn)
{
    if (stall_at[0] && strcmp(stall_at, fn) == 0) {
        stall_at[0] = 0;
        raise(SIGSTOP);
    }
}

int memfd_create(const char *name, unsigned int flags)
{
    stall_maybe("memfd_create");
    int (*real)(const char *, unsigned int) = (int (*)(const char *, unsigned int))dlsym(RTLD_NEXT, "memfd_create");
    return real(name, flags);
}

int getrusage(int who, struct rusage *ru)
{
    stall_maybe("getrusage");
    int (*real)(int, struct rusage *) = (int (*)(int, struct rusage *))dlsym(RTLD_NEXT, "getrusage");
    return real(who, ru);
}
