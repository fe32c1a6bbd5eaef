/* harness/worker/deathnote.c: a worker's last word to its supervisor (deathnote.h). */
#include "deathnote.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int dn_fd = -1;
static struct timespec dn_ending;   /* zero: the process ends as it ends */
static volatile sig_atomic_t dn_said;

static const int dn_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

/* Writes the note once (async-signal-safe: write, nanosleep). */
static void dn_say(unsigned char kind, int value)
{
    if (dn_said || dn_fd < 0)
        return;
    dn_said = 1;
    unsigned char note[2] = { kind, (unsigned char)value };
    while (write(dn_fd, note, sizeof note) < 0 && errno == EINTR)
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

int deathnote_init(int fd, double ending_s)
{
    int low = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (low < 0)
        return -1;
    if (low < fd) {
        close(fd);
        fd = low;
    } else {
        close(low);
        if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)   /* no child of the worker's keeps the pipe open */
            return -1;
    }
    dn_fd = fd;
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
