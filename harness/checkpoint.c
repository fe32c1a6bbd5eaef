/* harness/checkpoint.c: writing and reading a rank's checkpoint file (see checkpoint.h). */
#include "checkpoint.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

void checkpoint_path(char *out, size_t n, const char *dir, const char *name, int rank)
{
    snprintf(out, n, "%s/%s-rank%d.ckpt", dir, name, rank);
}

int checkpoint_write(const char *dir, const char *name, int rank, int64_t iter, const void *state, size_t len,
                     uint64_t bytes, double *seconds, char *why, size_t n)
{
    char path[1024], tmp[1100];
    uint64_t t0 = mono_ns();
    if (mkdir_p(dir) != 0) {
        snprintf(why, n, "checkpoint folder %s: %s", dir, strerror(errno));
        return -1;
    }
    checkpoint_path(path, sizeof path, dir, name, rank);
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

int checkpoint_read(const char *dir, const char *name, int rank, int64_t *iter, void *buf, size_t cap, size_t *len,
                    char *why, size_t n)
{
    char path[1024];
    struct ckpt_header h;
    checkpoint_path(path, sizeof path, dir, name, rank);
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
    close(fd);
    if (r != (ssize_t)h.state_len || fnv1a64(buf, h.state_len) != h.state_hash) {
        snprintf(why, n, "%s: state truncated or its hash does not match", path);
        return -1;
    }
    *iter = h.iter;
    *len = h.state_len;
    return 0;
}
