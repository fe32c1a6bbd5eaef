/* harness/worker/deathnote.c: a worker's last word to its supervisor (deathnote.h). */
#include "deathnote.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int dn_fd[2] = { -1, -1 };
static struct timespec dn_ending;   /* zero: the process ends as it ends */
static volatile sig_atomic_t dn_said;

static const int dn_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

/* Writes the note once (async-signal-safe: write, nanosleep). */
static void dn_say(unsigned char kind, int value)
{
    if (dn_said || dn_fd[0] < 0)
        return;
    dn_said = 1;
    unsigned char note[2] = { kind, (unsigned char)value };
    for (int i = 0; i < 2; i++)
        while (write(dn_fd[i], note, sizeof note) < 0 && errno == EINTR)
            ;
    if (dn_ending.tv_sec || dn_ending.tv_nsec) {
        struct timespec left = dn_ending;
        while (nanosleep(&left, &left) != 0 && errno == EINTR)
            ;
    }
}

/* The fatal signal's handler: the word, then the signal does what it would have done (SA_RESETHAND put the default
 * action back; SA_NODEFER lets raise deliver it here and now). */
static void dn_signal(int sig)
{
    int saved = errno;
    dn_say('S', sig);
    raise(sig);
    errno = saved;   /* not reached for a fatal signal */
}

/* Exit without deathnote_exit (a library's exit, gl_die): the word from on_exit, late but before the reap. */
static void dn_on_exit(int status, void *arg)
{
    (void)arg;
    dn_say('E', status & 0xff);
}

/* Moves fd to the lowest free descriptor at or above from, where that is lower than fd (down) or in any case
 * (!down); close-on-exec either way (no child of the worker's keeps it open). The descriptor, or -1. */
static int dn_move(int fd, int from, int down)
{
    int to = fcntl(fd, F_DUPFD_CLOEXEC, from);
    if (to < 0)
        return -1;
    if (down && to > fd) {   /* already the lowest */
        close(to);
        return fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 ? fd : -1;
    }
    close(fd);
    return to;
}

int deathnote_init(const int fd[2], double ending_s)
{
    struct rlimit rl;
    int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1024 ? (int)rl.rlim_cur : 1024;
    /* low: below anything opened later; high: near the top of the table (its default size, 1024), above what a
     * worker opens (a few dozen: CUDA, NCCL, NVML), without growing the table */
    if ((dn_fd[0] = dn_move(fd[0], 3, 1)) < 0 || (dn_fd[1] = dn_move(fd[1], top > 64 ? top - 16 : 3, 0)) < 0)
        return -1;
    if (ending_s > 0) {
        dn_ending.tv_sec = (time_t)ending_s;
        dn_ending.tv_nsec = (long)((ending_s - (double)dn_ending.tv_sec) * 1e9);
    }
    struct sigaction sa = { .sa_handler = dn_signal, .sa_flags = SA_RESETHAND | SA_NODEFER };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof dn_signals / sizeof *dn_signals; i++)
        if (sigaction(dn_signals[i], &sa, NULL) != 0)
            return -1;
    if (on_exit(dn_on_exit, NULL) != 0)
        return -1;
    return 0;
}

void deathnote_exit(int code) { dn_say('E', code); }
