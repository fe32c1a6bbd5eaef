/* harness/accept/accept_io.c: the checkpoint target measured by `gauntlet accept` itself (and judged: checkpoint_io) —
 * bytes written and fsynced, their pages dropped from the page cache (and checked gone), read back. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "accept.h"
#include "accept_int.h"
#include "supervisor.h"
#include "util.h"

/* The share of the file open at fd (bytes long) whose pages are in the page cache, or NAN (errno) when it cannot be
 * told: a read that finds them there measures memory, not the device. */
static double io_resident(int fd, uint64_t bytes)
{
    long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0 || bytes == 0)
        return errno = EINVAL, NAN;
    void *m = mmap(NULL, (size_t)bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return NAN;
    size_t pages = (size_t)((bytes + (uint64_t)ps - 1) / (uint64_t)ps), in = 0;
    unsigned char *vec = xmalloc(pages);
    int rc = mincore(m, (size_t)bytes, vec);
    int e = errno;
    for (size_t i = 0; rc == 0 && i < pages; i++)
        in += vec[i] & 1;
    free(vec);
    if (munmap(m, (size_t)bytes) != 0 && rc == 0)
        return NAN;
    errno = e;
    return rc == 0 ? (double)in / (double)pages : NAN;
}

/* Writes bytes to the open fd in chunks of buf, stopping at a stop signal: 0, -1 (errno), or the signal. */
static int io_write(int fd, const char *buf, size_t chunk, uint64_t bytes)
{
    uint64_t left = bytes;
    int stop = 0;
    while (left > 0 && !(stop = supervisor_stop_signal())) {
        size_t k = left < chunk ? (size_t)left : chunk;
        if (write_all(fd, buf, k) != 0)
            return -1;
        left -= k;
    }
    return stop;
}

/* Reads path back into buf (chunk bytes at a time) and times it: GB/s in *rd_gbs, or ACCEPT_IO_CACHED where its
 * pages could not be dropped (why says so). 0, -1 with why, or the stop signal that cut it short. */
static int io_read(const char *path, char *buf, size_t chunk, uint64_t bytes, double *rd_gbs, char *why, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, n, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    /* the pages are clean after fsync: dropping them makes the read come from the device. A file system may refuse
     * or ignore it (until 2026-11-30 neither was looked at, and such a read measured memory): checked, not assumed */
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    double in = rc == 0 ? io_resident(fd, bytes) : NAN;
    if (rc != 0 || !(in < 0.01)) {
        if (rc != 0)
            snprintf(why, n, "%s: its pages could not be dropped from the page cache (posix_fadvise: %s): the read "
                             "would measure memory, not the device", path, strerror(rc));
        else if (isnan(in))
            snprintf(why, n, "%s: whether its pages left the page cache cannot be told (mincore: %s): the read "
                             "would measure memory, not the device", path, strerror(errno));
        else
            snprintf(why, n, "%s: %.0f%% of its pages stayed in the page cache after it was told to drop them: the "
                             "read would measure memory, not the device", path, 100 * in);
        *rd_gbs = ACCEPT_IO_CACHED;
        close(fd);
        return 0;
    }
    uint64_t t0 = mono_ns(), got = 0;
    ssize_t k = 0;
    int stop = 0;
    while (!(stop = supervisor_stop_signal()) && (k = read(fd, buf, chunk)) > 0)
        got += (uint64_t)k;
    int e = errno;
    close(fd);
    if (stop)
        return stop;
    if (k < 0 || got != bytes) {
        snprintf(why, n, "reading %s: %s", path, k < 0 ? strerror(e) : "short read");
        return -1;
    }
    *rd_gbs = (double)bytes / ((double)(mono_ns() - t0) * 1e-9) / 1e9;
    return 0;
}

int accept_ckpt_io(const char *dir, uint64_t bytes, double *wr_gbs, double *rd_gbs, char *why, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/gauntlet-accept-io-%d.tmp", dir, (int)getpid());
    int sig = supervisor_stop_signal();
    if (sig) {
        snprintf(why, n, "stopped by %s before it was measured", strsignal(sig));
        return 1;
    }
    if (mkdir_p(dir) != 0) {
        snprintf(why, n, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    /* a RAM file system (tmpfs is /tmp on many distributions) holds no checkpoint across a reboot, and its fsync and
     * dropped pages do nothing: both rates would be memory's (until 2026-11-30 they were judged as the storage's) */
    struct statfs fs;
    if (statfs(dir, &fs) != 0) {
        snprintf(why, n, "cannot tell the file system of %s: %s", dir, strerror(errno));
        return -1;
    }
    if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
        snprintf(why, n, "%s is on a RAM file system (%s): no checkpoint target, and its rates would be memory's; give "
                         "workload.checkpoint.path on storage", dir, fs.f_type == TMPFS_MAGIC ? "tmpfs" : "ramfs");
        *wr_gbs = *rd_gbs = ACCEPT_IO_RAMFS;
        return 0;
    }
    size_t chunk = 8u << 20;
    char *buf = xmalloc(chunk);
    for (size_t i = 0; i < chunk; i++)
        buf[i] = (char)(i * 131 + 7);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, n, "cannot write %s: %s", path, strerror(errno));
        free(buf);
        return -1;
    }
    uint64_t t0 = mono_ns();
    int rc = io_write(fd, buf, chunk, bytes);   /* a stop signal: the suite ends now, not after up to 64 GiB more */
    if (rc == 0 && fsync(fd) != 0)
        rc = -1;
    int e = errno;
    if (close(fd) != 0 && rc == 0) {   /* a write-back error (NFS) may come only here */
        rc = -1;
        e = errno;
    }
    if (rc > 0)
        snprintf(why, n, "stopped by %s before it was measured", strsignal(rc));
    else if (rc < 0)
        snprintf(why, n, "writing %s: %s", path, strerror(e));
    else
        *wr_gbs = (double)bytes / ((double)(mono_ns() - t0) * 1e-9) / 1e9;
    if (rc == 0 && (rc = io_read(path, buf, chunk, bytes, rd_gbs, why, n)) > 0)
        snprintf(why, n, "stopped by %s before it was measured", strsignal(rc));
    if (unlink(path) != 0 && errno != ENOENT)   /* said: up to 64 GiB left on the target */
        gl_log("cannot remove %s: %s", path, strerror(errno));
    free(buf);
    return rc > 0 ? 1 : rc;
}

double accept_io_wait_s(const struct check_io *c)
{
    double gb = (double)c->bytes * 1e-9;
    double floors = (c->min_write_gbs > 0 ? gb / c->min_write_gbs : INFINITY) + (c->min_read_gbs > 0 ? gb / c->min_read_gbs
                                                                                                     : INFINITY);
    double w = 20 + 2 * floors;
    return w < 3600 ? w : 3600;
}

/* Each node's checkpoint target as it measured it (accept_ckpt_io): a rate against its floor; a rate that cannot be
 * measured there (a RAM file system, pages that stayed in the page cache) SKIP saying why. */
void accept_check_ckpt(const struct scenario *sc, const struct rundata *d, const double *io_w, const double *io_r,
                       struct verdicts *vs)
{
    const struct check_io *c = &sc->checks.checkpoint_io;
    const char *path = sc->workload.checkpoint.path;
    for (int k = 0; k < d->nodes; k++) {
        struct verdict *v;
        if (io_w[k] == ACCEPT_IO_RAMFS) {
            for (const char *const *ck = (const char *const[]){ "checkpoint_write", "checkpoint_read", NULL }; *ck; ck++) {
                v = accept_skip(vs, sc, *ck, "");
                accept_place(v, k, -1, d->per_node);
                accept_note(v, "not measured: %s is on a RAM file system (tmpfs) on node %d: no checkpoint target, and "
                               "its rates would be memory's; give workload.checkpoint.path on storage", path, k);
            }
            continue;
        }
        if (io_w[k] == ACCEPT_IO_LATE) {   /* held past the wait: below a floor, whichever of the two held it */
            v = accept_judge(vs, sc, "checkpoint_write", k, -1, -1, NAN, ">=", c->min_write_gbs, "GB/s");
            accept_note(v, "node %d did not finish writing and reading %llu MiB to %s within %g s of node 0 (the "
                           "floors' time twice over, and 20 s): a hung or slow checkpoint target; node %d was taken for "
                           "lost", k, (unsigned long long)(c->bytes >> 20), path, accept_io_wait_s(c), k);
            v = accept_skip(vs, sc, "checkpoint_read", "");
            accept_place(v, k, -1, d->per_node);
            accept_note(v, "not measured: node %d's measurement did not end (checkpoint_write)", k);
            continue;
        }
        v = accept_judge(vs, sc, "checkpoint_write", k, -1, -1, io_w[k], ">=", c->min_write_gbs, "GB/s");
        if (isfinite(io_w[k]))
            accept_note(v, "write + fsync of %llu MiB to %s", (unsigned long long)(c->bytes >> 20), path);
        else
            accept_note(v, "could not write to %s on node %d (see its messages)", path, k);
        if (io_r[k] == ACCEPT_IO_CACHED) {
            v = accept_skip(vs, sc, "checkpoint_read", "");
            accept_place(v, k, -1, d->per_node);
            accept_note(v, "not measured: the file's pages stayed in the page cache on node %d (the file system refused "
                           "or ignored the drop): the read would measure memory (see its messages)", k);
            continue;
        }
        v = accept_judge(vs, sc, "checkpoint_read", k, -1, -1, io_r[k], ">=", c->min_read_gbs, "GB/s");
        accept_note(v, isfinite(io_r[k]) ? "read back after its pages were dropped from the cache (checked gone)"
                                         : isfinite(io_w[k]) ? "could not read back (see its messages)"
                                                             : "not read: the write failed");
    }
}
