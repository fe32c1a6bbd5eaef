/* tests/stall_preload.c: a node that stalls, for tests/test_cluster_setup.c (LD_PRELOAD into one node's supervisor).
 * The process stops itself with SIGSTOP, as a frozen host or a debugger holds it, at its first call of the function
 * GAUNTLET_TEST_STALL_AT names: memfd_create (the control block: the set-up's first step after the start's
 * agreement) or getrusage (in supc_end, just before the node sends node 0 its end record). Nothing else changes; the
 * workers it starts do not inherit it.
 *
 * A damaged disk, for tests/test_faults.c: with GAUNTLET_TEST_DAMAGE_CKPT set to a part of a checkpoint's file name
 * (`-rank1-`), every checkpoint file renamed into place whose name holds it has one byte of its state flipped (at
 * offset 64: past the 56-byte header), its size kept: what only the state's hash can tell. The workers inherit it
 * (they write the checkpoints).
 *
 * A disk that loses what it was given, for tests/test_durability.c: with GAUNTLET_TEST_FSYNC_EIO set to the end of a
 * file name (`/events.jsonl`), every fsync of a descriptor of such a file fails with EIO. Built for the tests only,
 * never installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rusage;
int memfd_create(const char *name, unsigned int flags);
int getrusage(int who, struct rusage *ru);

static char stall_at[64], damage[64], fsync_eio[64];

__attribute__((constructor)) static void stall_init(void)
{
    const char *at = getenv("GAUNTLET_TEST_STALL_AT"), *dm = getenv("GAUNTLET_TEST_DAMAGE_CKPT");
    if (at)
        strncpy(stall_at, at, sizeof stall_at - 1);
    const char *eio = getenv("GAUNTLET_TEST_FSYNC_EIO");
    if (eio)
        strncpy(fsync_eio, eio, sizeof fsync_eio - 1);
    if (dm)
        strncpy(damage, dm, sizeof damage - 1);
    else
        unsetenv("LD_PRELOAD");   /* the workers it starts run as they are */
    unsetenv("GAUNTLET_TEST_STALL_AT");
}

int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    int rc = real(from, to);
    if (rc == 0 && damage[0] && strstr(to, damage) && strstr(to, ".ckpt")) {
        int fd = open(to, O_RDWR | O_CLOEXEC);
        unsigned char b;
        if (fd < 0 || pread(fd, &b, 1, 64) != 1 || (b ^= 0x10, pwrite(fd, &b, 1, 64)) != 1 || close(fd) != 0) {
            perror("stall_preload: damaging a checkpoint");
            abort();
        }
    }
    return rc;
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

int fsync(int fd)
{
    if (fsync_eio[0]) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t k = readlink(link, path, sizeof path - 1);
        size_t m = strlen(fsync_eio);
        if (k >= (ssize_t)m && memcmp(path + k - m, fsync_eio, m) == 0) {
            errno = EIO;
            return -1;
        }
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real(fd);
}
