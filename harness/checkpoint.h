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
/* Two generations are kept per rank (gen 0 and 1, alternating), so that a failure while one is written
 * still leaves a whole, older one that every rank has. */

/* Returns the file name of rank's checkpoint generation gen of scenario name in dir. */
void checkpoint_path(char *out, size_t n, const char *dir, const char *name, int rank, int gen);
/* Writes the checkpoint; fills seconds with the time it took (write + fsync + rename). 0, or -1 with why. */
int checkpoint_write(const char *dir, const char *name, int rank, int gen, int64_t iter, const void *state, size_t len,
                     uint64_t bytes, double *seconds, char *why, size_t n);
/* Reads the header of a checkpoint: its iteration; 0, or -1 when there is none (or it is not whole). */
int checkpoint_peek(const char *dir, const char *name, int rank, int gen, int64_t *iter);
/* Reads back rank's state into buf (up to cap bytes), reading the whole file as a restore would, and checks
 * magic and hash; bytes gets the file's size. 0, or -1 with why. */
int checkpoint_read(const char *dir, const char *name, int rank, int gen, int64_t *iter, void *buf, size_t cap,
                    size_t *len, uint64_t *bytes, char *why, size_t n);
/* Removes both generations of rank's checkpoints (a new run must not restore an older run's state). */
void checkpoint_remove(const char *dir, const char *name, int rank);

#endif
