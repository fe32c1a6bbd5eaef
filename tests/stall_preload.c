/* tests/stall_preload.c: a node that stalls, for tests/test_cluster_setup.c (LD_PRELOAD into one node's supervisor).
 * The process stops itself with SIGSTOP, as a frozen host or a debugger holds it, at its first call of the function
 * GAUNTLET_TEST_STALL_AT names: memfd_create (the control block: the set-up's first step after the start's
 * agreement) or getrusage (in supc_end, just before the node sends node 0 its end record); or at its first statfs of a
 * path that holds PART, with statfs:PART (gauntlet accept's checkpoint measurement, after the run: its first call, for
 * tests/test_cluster.c; MPI's own calls name other paths); or, with agree and GAUNTLET_TEST_STALL_FILE naming a
 * file, at its first word to node 0 in an agreement (an MPI_Isend of tag 8, TAG_AGREE) once that file exists (under
 * mpirun, with MPI in this build). Nothing else changes; the workers it starts do not inherit it.
 *
 * A damaged disk, for tests/test_faults.c: with GAUNTLET_TEST_DAMAGE_CKPT set to a part of a checkpoint's file name
 * (`-rank1-`), a checkpoint file whose name holds it has one byte of its state flipped (at offset 64: past the 56-byte
 * header), its size kept: what only the hash can tell; once per file. When: as it is renamed into place (a worker's
 * write), or with GAUNTLET_TEST_DAMAGE_WHEN=verify just after the supervisor checked it whole (its POSIX_FADV_DONTNEED:
 * the restore that follows reads it damaged). GAUNTLET_TEST_DAMAGE_ITER=N: only a file of iteration N (its header's).
 * The workers inherit it.
 *
 * A disk that loses what it was given, for tests/test_durability.c: with GAUNTLET_TEST_FSYNC_EIO set to the end of a
 * file name (`/events.jsonl`; a folder's: `/run`), every fsync of a descriptor of such a file fails with EIO; with
 * GAUNTLET_TEST_FSYNC_EIO_AFTER=N the first N of them succeed (the record's sync before the summary, then the end
 * line's fails). GAUNTLET_TEST_FSYNC_LOG naming a file: the path of every descriptor fsynced is appended to it, one
 * line each, in the order of the calls (which file was made durable before which). With GAUNTLET_TEST_FSYNC_EIO the
 * workers inherit it (a rank's checkpoint file, `-rank1-1.ckpt.tmp`: tests/test_e2e.c).
 *
 * A slow disk, for tests/test_failures.c: with GAUNTLET_TEST_FSYNC_SLOW set to a part of a file name (`-rank1-`), the
 * k-th fsync of a descriptor of such a file in a process sleeps the k-th of GAUNTLET_TEST_FSYNC_SLOW_MS's
 * comma-separated milliseconds first (`2500,0,0,600000`: a 2.5 s fsync, two quick ones, then one that stays); past the
 * list, none. The process blocks in its fsync as on a disk that holds it: it does nothing else meanwhile. Logged (with
 * GAUNTLET_TEST_FSYNC_LOG) before the sleep. The workers inherit it.
 *
 * A slow disk that reads, for tests/test_failures.c: with GAUNTLET_TEST_READ_SLOW set to a part of a file name
 * (`-rank1-`), a worker's read() of a checkpoint file (`.ckpt`) whose name holds it sleeps GAUNTLET_TEST_READ_SLOW_MS
 * milliseconds per MiB it returned (a disk of that bandwidth: a restore's 1 MiB reads each take that long, its header's
 * few bytes no time); the supervisor's reads (its check of a checkpoint before a restore) run as they are. The
 * workers inherit it.
 *
 * A worker that cannot start, for tests/test_failures.c: with GAUNTLET_TEST_WORKER_FAIL_FILE naming a file, a worker
 * process started while that file exists exits 3 at once (the workers inherit it; those started before it ran on).
 *
 * A replacement that never starts, for tests/test_stuck_workers.c: with GAUNTLET_TEST_WORKER_HANG_FILE naming a file, a
 * worker process started while that file exists never says it is ready: it sleeps in this library's constructor,
 * alive and silent, until it is killed (the workers inherit it; those started before it ran on).
 *
 * A worker frozen while its commands come, for tests/test_stuck_workers.c: with GAUNTLET_TEST_WORKER_STOP_SLOT=S, the
 * worker of slot S (its command line's fourth word) stops itself with SIGSTOP, as a debugger holds it, at its first
 * clock_nanosleep: its first wait for a command, just after it said it was ready (nothing before sleeps on sim). It
 * takes no command until a SIGCONT. Once per process; the workers inherit it.
 *
 * A crash held at its point, for tests/test_recovery_events.c: with GAUNTLET_TEST_RAISE_HOLD_SLOT=S and
 * GAUNTLET_TEST_RAISE_HOLD_FILE naming a file, the worker of slot S holds each raise() of a signal other than SIGSTOP
 * (a crash fault's, after its fault_injected is in the ring) until that file exists: the fault has fired, the process
 * is alive and silent, and dies when the test says. Its replacement, started once the file exists, runs as it is.
 *
 * A relay deaf to one node, for tests/test_cluster.c: with GAUNTLET_TEST_UP_MUTE=C:R (node C, its relay R) and
 * GAUNTLET_TEST_UP_MUTE_FILE naming a file, node C's supervisor (OMPI_COMM_WORLD_RANK, else PMIX_RANK, is C) sends
 * nothing more up the tree to node R once that file exists: each MPI_Isend to R of tag 1 (TAG_UP, cluster_int.h: no
 * other message to another node has that tag) is never made, and its request is a generalized request that never completes (MPI_Test: not done; freed by
 * MPI_Request_free as any other; MPI_Wait on it would wait for good, as on a send nobody takes). Node R and every
 * other message (the heartbeats, straight to node 0; the sim all-reduce, on its own communicator and tags) run as
 * they are: R stays alive to node 0 and to its other children. Built with MPI only (a stub without).
 *
 * A node 0 of another build, for tests/test_cluster_setup.c: with GAUNTLET_TEST_OTHER_BUILD set, the supervisor's
 * build record (its first MPI_Ibcast, 64 bytes beginning "gauntlet") goes out with another wire hash and version.
 * Built with MPI only.
 *
 * Built for the tests only, never installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rusage;
struct statfs;
int memfd_create(const char *name, unsigned int flags);
int getrusage(int who, struct rusage *ru);
int statfs(const char *path, struct statfs *buf);

static char stall_file[512];   /* GAUNTLET_TEST_STALL_FILE: the file after which agree stops it */
static char stall_at[64], damage[64], fsync_eio[64], fsync_log[512], fsync_slow[64], fsync_slow_ms[256], read_slow[64];
static long read_slow_ms;            /* per MiB a worker reads of a matching checkpoint file */
static int fsync_slow_k;             /* the matching fsyncs of this process so far */
static long fsync_eio_after;         /* matching fsyncs that succeed before they fail */
static int damage_verify;            /* 1: at the supervisor's check, not at the write */
static long long damage_iter = -1;   /* only a file of this iteration (-1: any) */
static char damaged[64][512];        /* the files damaged: once each (a second flip would undo the first) */
static int ndamaged;

/* Returns the slot of this process when it is a worker (its command line: `gauntlet __worker FD SLOT ...`), -2 when
 * a worker's slot cannot be read, else -1. */
static int stall_worker_slot(void)
{
    char cmd[256] = "";
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t k = fd >= 0 ? read(fd, cmd, sizeof cmd - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (k <= 0)
        return -1;
    const char *w[4] = { cmd };
    for (int i = 1; i < 4; i++)
        w[i] = w[i - 1] + strlen(w[i - 1]) + 1 < cmd + k ? w[i - 1] + strlen(w[i - 1]) + 1 : NULL;
    if (!w[1] || strcmp(w[1], "__worker") != 0)
        return -1;
    return w[3] ? atoi(w[3]) : -2;
}

/* Returns 1 when this process is a worker. */
static int stall_is_worker(void) { return stall_worker_slot() != -1; }

static _Atomic int stop_at_sleep;   /* this worker stops itself at its next clock_nanosleep (once) */
static char raise_hold[512];        /* this worker's raise() waits until this file exists ("": it does not) */

int raise(int sig)
{
    while (sig != SIGSTOP && raise_hold[0] && access(raise_hold, F_OK) != 0) {
        struct timespec ts = { .tv_sec = 0, .tv_nsec = 5000000 };
        nanosleep(&ts, NULL);
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "raise");
    return real(sig);
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
    if (atomic_load(&stop_at_sleep) && atomic_exchange(&stop_at_sleep, 0))
        raise(SIGSTOP);
    int (*real)(clockid_t, int, const struct timespec *, struct timespec *) =
        (int (*)(clockid_t, int, const struct timespec *, struct timespec *))dlsym(RTLD_NEXT, "clock_nanosleep");
    return real(clk, flags, req, rem);
}

#ifdef STALL_HAVE_MPI
#include <mpi.h>

static int up_mute_to = -1;         /* this node's relay whose records it never gets; -1: no node is muted here */
static char up_mute_file[512];      /* muting begins once this file exists */
static _Atomic int up_muted;        /* it existed: every later send to the relay is muted */

/* Reads GAUNTLET_TEST_UP_MUTE in the supervisor of the node it names (its workers have no MPI rank). */
static void up_mute_init(void)
{
    const char *m = getenv("GAUNTLET_TEST_UP_MUTE"), *f = getenv("GAUNTLET_TEST_UP_MUTE_FILE");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK") ? getenv("OMPI_COMM_WORLD_RANK") : getenv("PMIX_RANK");
    int child = -1, relay = -1;
    if (m && f && rank && sscanf(m, "%d:%d", &child, &relay) == 2 && child == atoi(rank) && relay > 0) {
        up_mute_to = relay;
        strncpy(up_mute_file, f, sizeof up_mute_file - 1);
    }
}

static int up_query(void *extra, MPI_Status *st)
{
    (void)extra;
    st->MPI_SOURCE = st->MPI_TAG = MPI_UNDEFINED;
    st->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}
static int up_free(void *extra) { (void)extra; return MPI_SUCCESS; }
static int up_cancel(void *extra, int complete) { (void)extra, (void)complete; return MPI_SUCCESS; }

/* The library's symbols are looked up when called, never bound at load: mpirun and the workers load this too. */
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    if (tag == 8 && strcmp(stall_at, "agree") == 0 && stall_file[0] && access(stall_file, F_OK) == 0) {
        stall_at[0] = 0;
        raise(SIGSTOP);
    }
    if (up_mute_to > 0 && dest == up_mute_to && tag == 1 &&
        (atomic_load(&up_muted) || (access(up_mute_file, F_OK) == 0 && (atomic_store(&up_muted, 1), 1)))) {
        int (*start)(MPI_Grequest_query_function *, MPI_Grequest_free_function *, MPI_Grequest_cancel_function *,
                     void *, MPI_Request *) =
            (int (*)(MPI_Grequest_query_function *, MPI_Grequest_free_function *, MPI_Grequest_cancel_function *, void *,
                     MPI_Request *))dlsym(RTLD_DEFAULT, "MPI_Grequest_start");
        return start(up_query, up_free, up_cancel, NULL, req);   /* never completed: a send R never takes */
    }
    int (*real)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) =
        (int (*)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *))dlsym(RTLD_NEXT, "PMPI_Isend");
    return real(buf, count, type, dest, tag, comm, req);
}

/* A node 0 of another build (GAUNTLET_TEST_OTHER_BUILD set in its supervisor alone): its build record (the 64 bytes
 * cluster_init broadcasts first, "gauntlet" then the wire hash; harness/cluster/cluster.h) goes out with another wire
 * and version, as a binary built otherwise would send it. */
int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    /* its type is not compared: MPI_BYTE names a symbol that mpirun and timeout, which load this too, lack */
    if (getenv("GAUNTLET_TEST_OTHER_BUILD") && count == 64 && memcmp(buf, "gauntlet", 8) == 0) {
        ((unsigned char *)buf)[8] ^= 0x5a;
        memcpy((char *)buf + 16, "0.0.9-other", 12);
    }
    int (*real)(void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *) =
        (int (*)(void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *))dlsym(RTLD_NEXT, "PMPI_Ibcast");
    return real(buf, count, type, root, comm, req);
}
#else
static void up_mute_init(void) {}
#endif

__attribute__((constructor)) static void stall_init(void)
{
    const char *at = getenv("GAUNTLET_TEST_STALL_AT"), *dm = getenv("GAUNTLET_TEST_DAMAGE_CKPT");
    if (at)
        strncpy(stall_at, at, sizeof stall_at - 1);
    const char *sf = getenv("GAUNTLET_TEST_STALL_FILE");
    if (sf)
        strncpy(stall_file, sf, sizeof stall_file - 1);
    const char *eio = getenv("GAUNTLET_TEST_FSYNC_EIO");
    if (eio)
        strncpy(fsync_eio, eio, sizeof fsync_eio - 1);
    const char *after = getenv("GAUNTLET_TEST_FSYNC_EIO_AFTER"), *flog = getenv("GAUNTLET_TEST_FSYNC_LOG");
    if (after)
        fsync_eio_after = atol(after);
    if (flog)
        strncpy(fsync_log, flog, sizeof fsync_log - 1);
    const char *slow = getenv("GAUNTLET_TEST_FSYNC_SLOW"), *slow_ms = getenv("GAUNTLET_TEST_FSYNC_SLOW_MS");
    if (slow && slow_ms) {
        strncpy(fsync_slow, slow, sizeof fsync_slow - 1);
        strncpy(fsync_slow_ms, slow_ms, sizeof fsync_slow_ms - 1);
    }
    const char *when = getenv("GAUNTLET_TEST_DAMAGE_WHEN"), *it = getenv("GAUNTLET_TEST_DAMAGE_ITER");
    damage_verify = when && strcmp(when, "verify") == 0;
    if (it)
        damage_iter = atoll(it);
    if (dm)
        strncpy(damage, dm, sizeof damage - 1);
    const char *fail = getenv("GAUNTLET_TEST_WORKER_FAIL_FILE");
    if (fail && access(fail, F_OK) == 0 && stall_is_worker())   /* a worker started while it exists */
        _exit(3);
    const char *hang = getenv("GAUNTLET_TEST_WORKER_HANG_FILE");
    if (hang && access(hang, F_OK) == 0 && stall_is_worker())   /* alive, silent, never ready: until killed */
        for (;;)
            pause();
    const char *stop = getenv("GAUNTLET_TEST_WORKER_STOP_SLOT");
    if (stop && *stop && stall_worker_slot() == atoi(stop))
        atomic_store(&stop_at_sleep, 1);
    const char *hold = getenv("GAUNTLET_TEST_RAISE_HOLD_SLOT"), *hold_file = getenv("GAUNTLET_TEST_RAISE_HOLD_FILE");
    if (hold && *hold && hold_file && stall_worker_slot() == atoi(hold))
        strncpy(raise_hold, hold_file, sizeof raise_hold - 1);
    const char *rs = getenv("GAUNTLET_TEST_READ_SLOW"), *rs_ms = getenv("GAUNTLET_TEST_READ_SLOW_MS");
    if (rs && rs_ms && stall_is_worker()) {
        strncpy(read_slow, rs, sizeof read_slow - 1);
        read_slow_ms = atol(rs_ms);
    }
    /* the launcher (no MPI rank) passes it on to the supervisors; a supervisor's workers run as they are */
    int launcher = getenv("GAUNTLET_TEST_UP_MUTE") && !getenv("OMPI_COMM_WORLD_RANK") && !getenv("PMIX_RANK");
    up_mute_init();
    if (!dm && !fail && !hang && !stop && !hold && !fsync_slow[0] && !fsync_eio[0] && !rs && !launcher)
        unsetenv("LD_PRELOAD");   /* the workers it starts run as they are */
    unsetenv("GAUNTLET_TEST_STALL_AT");
}

/* Flips a byte of the state of checkpoint file path when it is one to damage (and not damaged already). */
static void damage_maybe(const char *path)
{
    if (!damage[0] || !strstr(path, damage) || !strstr(path, ".ckpt") || strstr(path, ".tmp"))
        return;
    for (int i = 0; i < ndamaged; i++)
        if (strcmp(damaged[i], path) == 0)
            return;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    long long iter = 0;
    unsigned char b;
    if (fd < 0 || pread(fd, &iter, sizeof iter, 16) != (ssize_t)sizeof iter) {
        perror("stall_preload: reading a checkpoint");
        abort();
    }
    if (damage_iter >= 0 && iter != damage_iter) {
        close(fd);
        return;
    }
    if (pread(fd, &b, 1, 64) != 1 || (b ^= 0x10, pwrite(fd, &b, 1, 64)) != 1 || close(fd) != 0) {
        perror("stall_preload: damaging a checkpoint");
        abort();
    }
    if (ndamaged < 64)
        snprintf(damaged[ndamaged++], sizeof damaged[0], "%s", path);
}

int rename(const char *from, const char *to)
{
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    int rc = real(from, to);
    if (rc == 0 && !damage_verify)
        damage_maybe(to);
    return rc;
}

int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
    int (*real)(int, off_t, off_t, int) = (int (*)(int, off_t, off_t, int))dlsym(RTLD_NEXT, "posix_fadvise");
    int rc = real(fd, off, len, advice);
    if (damage_verify && advice == POSIX_FADV_DONTNEED) {
        char link[64], path[512];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t k = readlink(link, path, sizeof path - 1);
        if (k > 0) {
            path[k] = 0;
            damage_maybe(path);
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

int statfs(const char *path, struct statfs *buf)
{
    if (strncmp(stall_at, "statfs:", 7) == 0 && stall_at[7] && path && strstr(path, stall_at + 7)) {
        stall_at[0] = 0;
        raise(SIGSTOP);
    }
    int (*real)(const char *, struct statfs *) = (int (*)(const char *, struct statfs *))dlsym(RTLD_NEXT, "statfs");
    return real(path, buf);
}

/* Sleeps ms milliseconds, resumed across signals. */
static void stall_sleep_ms(double ms)
{
    long long ns = (long long)(ms * 1e6);
    struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000) };
    while (ns > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

ssize_t read(int fd, void *buf, size_t n)
{
    static ssize_t (*real)(int, void *, size_t);
    if (!real)
        real = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    ssize_t r = real(fd, buf, n);
    if (read_slow[0] && r > 0) {
        int saved = errno;
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t k = readlink(link, path, sizeof path - 1);
        path[k > 0 ? k : 0] = 0;
        if (k > 0 && strstr(path, read_slow) && strstr(path, ".ckpt"))
            stall_sleep_ms((double)read_slow_ms * (double)r / (1024.0 * 1024.0));
        errno = saved;
    }
    return r;
}

/* The delay (ms) of this process's k-th matching fsync: the k-th figure of fsync_slow_ms (0 past its end). */
static long slow_ms_at(int k)
{
    const char *p = fsync_slow_ms;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return p ? atol(p) : 0;
}

int fsync(int fd)
{
    if (fsync_eio[0] || fsync_log[0] || fsync_slow[0]) {
        char link[64], path[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t k = readlink(link, path, sizeof path - 1);
        path[k > 0 ? k : 0] = 0;
        if (fsync_log[0] && k > 0) {   /* one write per line, O_APPEND: lines of several processes stay whole */
            int lfd = open(fsync_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            path[k] = '\n';
            if (lfd >= 0 && write(lfd, path, (size_t)k + 1) != k + 1)
                perror("stall_preload: the fsync log");
            if (lfd >= 0)
                close(lfd);
            path[k] = 0;
        }
        if (fsync_slow[0] && k > 0 && strstr(path, fsync_slow)) {
            long ms = slow_ms_at(fsync_slow_k++);
            struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
            while (ms > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR) {
            }
        }
        size_t m = strlen(fsync_eio);
        if (m && k >= (ssize_t)m && memcmp(path + k - m, fsync_eio, m) == 0 && fsync_eio_after-- <= 0) {
            errno = EIO;
            return -1;
        }
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real(fd);
}
