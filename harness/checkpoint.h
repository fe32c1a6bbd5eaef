/* harness/checkpoint.h: a rank's checkpoint file: a header, then the model state repeated up to the
 * scenario's size; written whole (temp file, fsync, rename). */
#ifndef GAUNTLET_CHECKPOINT_H
#define GAUNTLET_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#define CKPT_MAGIC "GNTLCKP1"

struct ckpt_header {
    char magic[8];
    uint32_t rank, version;
    int64_t iter;
    uint64_t state_len;     /* bytes of real state; the rest of the file repeats it */
    uint64_t total_len;     /* bytes of the file, header included */
    uint64_t state_hash;    /* FNV-1a of the state */
    uint64_t reserved;
};

/* FNV-1a 64 of len bytes: the fingerprint of a model state. */
uint64_t fnv1a64(const void *p, size_t len);
/* Returns the file name of rank's checkpoint of scenario name in dir. */
void checkpoint_path(char *out, size_t n, const char *dir, const char *name, int rank);
/* Writes the checkpoint; fills seconds with the time it took (write + fsync + rename). 0, or -1 with why. */
int checkpoint_write(const char *dir, const char *name, int rank, int64_t iter, const void *state, size_t len,
                     uint64_t bytes, double *seconds, char *why, size_t n);
/* Reads back rank's state into buf (up to cap bytes) and checks magic and hash; 0, or -1 with why. */
int checkpoint_read(const char *dir, const char *name, int rank, int64_t *iter, void *buf, size_t cap, size_t *len,
                    char *why, size_t n);

#endif
