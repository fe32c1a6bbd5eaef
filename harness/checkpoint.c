/* harness/checkpoint.c: writing and reading a rank's checkpoint file (see checkpoint.h). */
#include "checkpoint.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

uint64_t fnv1a64(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
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
    int ok = r == (ssize_t)sizeof h && memcmp(h.magic, CKPT_MAGIC, 8) == 0 && fstat(fd, &st) == 0 &&
             (uint64_t)st.st_size == h.total_len;
    close(fd);
    if (!ok)
        return -1;
    *iter = h.iter;
    return 0;
}

void checkpoint_remove(const char *dir, const char *name, int rank)
{
    char path[1024];
    for (int gen = 0; gen < 2; gen++) {
        checkpoint_path(path, sizeof path, dir, name, rank, gen);
        if (unlink(path) != 0 && errno != ENOENT)
            SYSERR("unlink(checkpoint)");
    }
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
    struct ckpt_header h = { .rank = (uint32_t)rank, .version = 1, .iter = iter, .state_len = len,
                             .total_len = bytes > sizeof h + len ? bytes : sizeof h + len,
                             .state_hash = fnv1a64(state, len) };
    memcpy(h.magic, CKPT_MAGIC, 8);
    enum { CHUNK = 1 << 20 };
    char *buf = xmalloc(CHUNK);
    size_t fill = 0;   /* a chunk of the state repeated */
    while (len && fill < CHUNK) {
        size_t k = len < CHUNK - fill ? len : CHUNK - fill;
        memcpy(buf + fill, state, k);
        fill += k;
    }
    int rc = write_all(fd, &h, sizeof h);
    for (uint64_t left = h.total_len - sizeof h; rc == 0 && left > 0;) {
        size_t k = left < CHUNK ? (size_t)left : CHUNK;
        rc = write_all(fd, buf, k);
        left -= k;
    }
    free(buf);
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
    *seconds = (double)(mono_ns() - t0) * 1e-9;
    return 0;
}

int checkpoint_read(const char *dir, const char *name, int rank, int gen, int64_t *iter, void *buf, size_t cap,
                    size_t *len, uint64_t *bytes, char *why, size_t n)
{
    char path[1024];
    struct ckpt_header h;
    checkpoint_path(path, sizeof path, dir, name, rank, gen);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, n, "open %s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t r = read(fd, &h, sizeof h);
    if (r != (ssize_t)sizeof h || memcmp(h.magic, CKPT_MAGIC, 8) != 0 || h.state_len > cap) {
        snprintf(why, n, "%s: not a gauntlet checkpoint, or its state (%llu bytes) exceeds %zu", path,
                 (unsigned long long)h.state_len, cap);
        close(fd);
        return -1;
    }
    r = read(fd, buf, h.state_len);
    uint64_t total = sizeof h + (r > 0 ? (uint64_t)r : 0);
    enum { CHUNK = 1 << 20 };
    char *sink = xmalloc(CHUNK);   /* a restore reads all it wrote: the read bandwidth is measured on it */
    ssize_t k;
    while ((k = read(fd, sink, CHUNK)) > 0)
        total += (uint64_t)k;
    free(sink);
    close(fd);
    if (r != (ssize_t)h.state_len || fnv1a64(buf, h.state_len) != h.state_hash || total != h.total_len) {
        snprintf(why, n, "%s: truncated, or its state's hash does not match", path);
        return -1;
    }
    *iter = h.iter;
    *len = h.state_len;
    *bytes = total;
    return 0;
}
