/* harness/worker/checkpoint.c: writing and reading a rank's checkpoint file (see checkpoint.h). */
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* FNV-1a 64 carried on from h over len more bytes. */
static uint64_t fnv1a64_more(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

uint64_t fnv1a64(const void *p, size_t len) { return fnv1a64_more(0xcbf29ce484222325ull, p, len); }

/* Reads len bytes (fewer only at the end of the file); the count, or -1 with errno. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

void checkpoint_path(char *out, size_t n, const char *dir, const char *name, int rank, int gen)
{
    snprintf(out, n, "%s/%s-rank%d-%d.ckpt", dir, name, rank, gen);
}

int checkpoint_peek(const char *dir, const char *name, int rank, int gen, int64_t *iter)
{
    char path[1024];
    struct ckpt_header h;
    struct stat st;
    checkpoint_path(path, sizeof path, dir, name, rank, gen);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, &h, sizeof h);
    int ok = r == (ssize_t)sizeof h && memcmp(h.magic, CKPT_MAGIC, 8) == 0 && h.version == CKPT_VERSION &&
             fstat(fd, &st) == 0 && (uint64_t)st.st_size == h.total_len && h.state_len <= h.total_len - sizeof h;
    close(fd);
    if (!ok)
        return -1;
    *iter = h.iter;
    return 0;
}

void checkpoint_remove(const char *dir, const char *name, int rank)
{
    char path[1024], tmp[1100];
    for (int gen = 0; gen < CKPT_GENS_MAX; gen++) {   /* whatever generations the run kept */
        checkpoint_path(path, sizeof path, dir, name, rank, gen);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);   /* a writer killed mid-write leaves its temp file */
        if (unlink(path) != 0 && errno != ENOENT)   /* each on its own: one that fails leaves the other removed */
            SYSERR(path);
        if (unlink(tmp) != 0 && errno != ENOENT)
            SYSERR(tmp);
    }
}

/* Makes a rename in dir durable: the directory entry itself is fsynced. 0, or -1 with errno. */
static int checkpoint_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* The hash a checkpoint carries: its state's (state_hash: fnv1a64 of the state), mixed with what the header says of
 * it (iteration, rank, sizes). */
static uint64_t ckpt_mix(const struct ckpt_header *h, uint64_t state_hash)
{
    struct { int64_t iter; uint64_t rank, state_len, total_len; } m = { h->iter, h->rank, h->state_len, h->total_len };
    return state_hash * 0x100000001b3ull ^ fnv1a64(&m, sizeof m);
}

static uint64_t ckpt_hash(const struct ckpt_header *h, const void *state) { return ckpt_mix(h, fnv1a64(state, h->state_len)); }

/* Opens rank's generation gen (its path into path) and reads its header into h, checked for this format: the
 * descriptor, or -1 with why (the file and what is wrong with it). */
static int ckpt_open(const char *dir, const char *name, int rank, int gen, char *path, size_t pn, struct ckpt_header *h,
                     char *why, size_t n)
{
    checkpoint_path(path, pn, dir, name, rank, gen);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, n, "open %s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t r = read_full(fd, h, sizeof *h);
    if (r != (ssize_t)sizeof *h || memcmp(h->magic, CKPT_MAGIC, 8) != 0 || h->version != CKPT_VERSION ||
        h->total_len < sizeof *h || h->state_len > h->total_len - sizeof *h) {
        snprintf(why, n, "%s: not a gauntlet checkpoint of version %d (or its header is broken)", path, CKPT_VERSION);
        close(fd);
        return -1;
    }
    return fd;
}

int checkpoint_verify(const char *dir, const char *name, int rank, int gen, int64_t iter, char *why, size_t n)
{
    char path[1024];
    struct ckpt_header h;
    struct stat st;
    int fd = ckpt_open(dir, name, rank, gen, path, sizeof path, &h, why, n);
    if (fd < 0)
        return -1;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != h.total_len)
        bad = "truncated";
    else if (h.rank != (uint32_t)rank || h.iter != iter)
        bad = "it holds another rank's or iteration's state";
    enum { CHUNK = 1 << 20 };
    char *buf = bad ? NULL : xmalloc(CHUNK);
    uint64_t hs = 0xcbf29ce484222325ull, left = bad ? 0 : h.state_len;
    while (left > 0 && !bad) {
        ssize_t k = read_full(fd, buf, left < CHUNK ? (size_t)left : CHUNK);
        if (k <= 0)
            bad = k < 0 ? strerror(errno) : "truncated";
        else {
            hs = fnv1a64_more(hs, buf, (size_t)k);
            left -= (uint64_t)k;
        }
    }
    free(buf);
    if (!bad && ckpt_mix(&h, hs) != h.state_hash)
        bad = "its hash (of the state and the header) does not match";
    /* advice only: where the kernel keeps the pages anyway, the restore after reads them faster than a disk */
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (close(fd) != 0 && !bad)
        bad = strerror(errno);
    if (bad)
        snprintf(why, n, "%s: %s", path, bad);
    return bad ? -1 : 0;
}

uint64_t checkpoint_file_bytes(size_t len, uint64_t bytes)
{
    return bytes > sizeof(struct ckpt_header) + len ? bytes : sizeof(struct ckpt_header) + len;
}

int checkpoint_write(const char *dir, const char *name, int rank, int gen, int64_t iter, const void *state, size_t len,
                     uint64_t bytes, double *seconds, char *why, size_t n)
{
    char path[1024], tmp[1100];
    uint64_t t0 = mono_ns();
    if (mkdir_p(dir) != 0) {
        snprintf(why, n, "checkpoint folder %s: %s", dir, strerror(errno));
        return -1;
    }
    checkpoint_path(path, sizeof path, dir, name, rank, gen);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, n, "open %s: %s", tmp, strerror(errno));
        return -1;
    }
    struct ckpt_header h = { .rank = (uint32_t)rank, .version = CKPT_VERSION, .iter = iter, .state_len = len,
                             .total_len = checkpoint_file_bytes(len, bytes) };
    h.state_hash = ckpt_hash(&h, state);
    memcpy(h.magic, CKPT_MAGIC, 8);
    /* the header, the whole state, then the state again (from its start) until the file has its size */
    static const char zeros[4096];
    int rc = write_all(fd, &h, sizeof h);
    uint64_t left = h.total_len - sizeof h;
    for (size_t off = 0; rc == 0 && left > 0;) {
        size_t k = len ? len - off : sizeof zeros;
        if (k > (1u << 24))
            k = 1u << 24;
        if (k > left)
            k = (size_t)left;
        rc = write_all(fd, len ? (const char *)state + off : zeros, k);
        left -= k;
        off = len ? (off + k) % len : 0;
    }
    if (rc != 0 || fsync(fd) != 0) {
        snprintf(why, n, "write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        snprintf(why, n, "close/rename %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (checkpoint_sync_dir(dir) != 0) {   /* else a power loss can leave the old name, or none */
        snprintf(why, n, "fsync of folder %s: %s", dir, strerror(errno));
        return -1;
    }
    *seconds = (double)(mono_ns() - t0) * 1e-9;
    return 0;
}

int checkpoint_read(const char *dir, const char *name, int rank, int gen, int64_t *iter, void **out, size_t *len,
                    uint64_t *bytes, char *why, size_t n)
{
    return checkpoint_read_beat(dir, name, rank, gen, iter, out, len, bytes, why, n, NULL, NULL);
}

int checkpoint_read_beat(const char *dir, const char *name, int rank, int gen, int64_t *iter, void **out, size_t *len,
                         uint64_t *bytes, char *why, size_t n, int (*beat)(void *), void *arg)
{
    void *buf = NULL;
    char path[1024];
    struct ckpt_header h;
    int fd = ckpt_open(dir, name, rank, gen, path, sizeof path, &h, why, n);
    if (fd < 0)
        return -1;
    buf = xmalloc(h.state_len ? (size_t)h.state_len : 1);
    ssize_t r = read_full(fd, buf, (size_t)h.state_len);
    int rerr = errno;   /* read_full's reason, before close and free may change errno */
    uint64_t total = sizeof h + (r > 0 ? (uint64_t)r : 0);
    enum { CHUNK = 1 << 20 };
    char *sink = xmalloc(CHUNK);   /* a restore reads all it wrote: the read bandwidth is measured on it */
    ssize_t k;
    int stopped = 0;
    while (!(stopped = beat && beat(arg) != 0) && ((k = read(fd, sink, CHUNK)) > 0 || (k < 0 && errno == EINTR)))
        total += k > 0 ? (uint64_t)k : 0;   /* a signal meanwhile is no end of the file */
    free(sink);
    close(fd);
    if (stopped) {
        snprintf(why, n, "%s: the read was stopped (the run is being stopped)", path);
        free(buf);
        return -1;
    }
    if (r != (ssize_t)h.state_len || ckpt_hash(&h, buf) != h.state_hash || total != h.total_len || h.rank != (uint32_t)rank) {
        snprintf(why, n, "%s: %s", path, r < 0 ? strerror(rerr) : r != (ssize_t)h.state_len || total != h.total_len
                                                                ? "truncated"
                                                                : ckpt_hash(&h, buf) != h.state_hash
                                                                ? "its hash (of the state and the header) does not match"
                                                                : "it holds another rank's state");
        free(buf);
        return -1;
    }
    *iter = h.iter;
    *len = h.state_len;
    *bytes = total;
    *out = buf;
    return 0;
}

/* This host's name as a file name may carry it. */
static void checkpoint_host(char *host, size_t n)
{
    if (gethostname(host, n) != 0)
        str_copy(host, n, "host");
    host[n - 1] = 0;
    for (char *c = host; *c; c++)
        if (*c == '/' || *c == ' ')
            *c = '_';
}

void checkpoint_tag(char *out, size_t n, const char *name, int node, int nodes)
{
    char host[65];
    checkpoint_host(host, sizeof host);
    /* a random part: two runs with the same name, host name and pid (two containers, two pid namespaces) never
     * share a tag, so never each other's files */
    uint32_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (uint32_t)(mono_ns() ^ (uint64_t)getpid() << 20);
    if (nodes > 1)
        snprintf(out, n, "%s-%s-%d-%08x-n%d", name, host, (int)getpid(), (unsigned)r, node);
    else
        snprintf(out, n, "%s-%s-%d-%08x", name, host, (int)getpid(), (unsigned)r);
}

int checkpoint_lock(const char *dir, const char *tag)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s.lock", dir, tag);
    if (mkdir_p(dir) != 0)
        return -1;
    /* the lock held is the file that bears the name: another run's sweep may take the lock of a file just made,
     * before this run's flock, and remove it (until 2026-12-02 the run then held a lock without a name, and its
     * files, were it killed, were never swept); made again then, a few times at most */
    for (int tries = 0;; tries++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
            return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {   /* a folder without locks: nothing a sweep could tell, said once */
            gl_log("checkpoint folder %s: flock: %s: a run killed outright leaves its files there (no sweep can tell "
                   "that it is gone)", dir, strerror(errno));
            return fd;
        }
        struct stat held, named;
        if (tries >= 8 || (fstat(fd, &held) == 0 && held.st_nlink > 0 && stat(path, &named) == 0 &&
                           named.st_ino == held.st_ino && named.st_dev == held.st_dev))
            return fd;
        close(fd);
    }
}

void checkpoint_unlock(const char *dir, const char *tag, int fd)
{
    char path[1100];
    if (fd < 0)
        return;
    snprintf(path, sizeof path, "%s/%s.lock", dir, tag);
    if (unlink(path) != 0 && errno != ENOENT)
        SYSERR(path);
    close(fd);
}

/* Whether file (len bytes) ends with suffix. */
static int ends_with(const char *file, size_t len, const char *suffix)
{
    size_t k = strlen(suffix);
    return len >= k && memcmp(file + (len - k), suffix, k) == 0;
}

int checkpoint_file_tag(const char *file, char *tag, size_t n)
{
    size_t len = strlen(file);
    size_t suf = ends_with(file, len, ".ckpt.tmp") ? 9 : ends_with(file, len, ".ckpt") ? 5 : 0;
    if (!suf || len - suf < 3)
        return -1;
    const char *g = file + len - suf;   /* the generation: 0 .. CKPT_GENS_MAX - 1, no leading zero */
    while (g > file && g[-1] >= '0' && g[-1] <= '9')
        g--;
    int gen = atoi(g), digits = (int)(file + len - suf - g);
    if (digits < 1 || digits > 2 || (digits == 2 && *g == '0') || gen >= CKPT_GENS_MAX || g == file || g[-1] != '-')
        return -1;
    const char *p = g - 1;   /* "-rank<R>" ends here */
    const char *d = p;
    while (d > file && d[-1] >= '0' && d[-1] <= '9')
        d--;
    if (d == p || d - file < 6 || strncmp(d - 5, "-rank", 5) != 0)
        return -1;
    size_t tl = (size_t)(d - 5 - file);
    if (tl >= n)
        return -1;
    memcpy(tag, file, tl);
    tag[tl] = 0;
    return 0;
}

/* Removes the files of the run whose lock file is dir/lockname, when nobody holds its lock; how many, or 0. */
static int checkpoint_sweep_tag(const char *dir, const char *lockname, char *const *names, int nnames, long *gone)
{
    char path[1400], tag[512], ft[512];
    size_t ll = strlen(lockname);
    if (ll <= 5 || ll - 5 >= sizeof tag)
        return 0;
    memcpy(tag, lockname, ll - 5);
    tag[ll - 5] = 0;
    snprintf(path, sizeof path, "%s/%s", dir, lockname);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;   /* gone meanwhile (another run swept it), or not ours to open */
    struct stat st;
    int removed = 0;
    /* held: a live run, in whatever pid namespace or container; an error (no locks here): left alone too */
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 0) {
        for (int i = 0; i < nnames; i++)
            if (checkpoint_file_tag(names[i], ft, sizeof ft) == 0 && strcmp(ft, tag) == 0) {
                snprintf(path, sizeof path, "%s/%s", dir, names[i]);
                if (unlink(path) == 0)
                    removed++;
                else if (errno != ENOENT)
                    SYSERR(path);
            }
        snprintf(path, sizeof path, "%s/%s", dir, lockname);   /* last: a sweep cut short is finished by the next */
        if (unlink(path) != 0 && errno != ENOENT)
            SYSERR(path);
        (*gone)++;
    }
    close(fd);
    return removed;
}

int checkpoint_sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    char **names = NULL;
    int nnames = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (nnames == cap) {
            cap = cap ? 2 * cap : 64;
            names = xrealloc(names, (size_t)cap * sizeof *names);
        }
        names[nnames++] = xstrdup(e->d_name);
    }
    closedir(d);
    int removed = 0;
    long runs = 0;
    for (int i = 0; i < nnames; i++) {
        size_t l = strlen(names[i]);
        if (l > 5 && strcmp(names[i] + l - 5, ".lock") == 0)
            removed += checkpoint_sweep_tag(dir, names[i], names, nnames, &runs);
    }
    for (int i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    if (removed)
        gl_log("%s: removed %d checkpoint file%s left by runs that are gone (%ld run%s whose lock nobody holds)", dir,
               removed, removed == 1 ? "" : "s", runs, runs == 1 ? "" : "s");
    return removed;
}
