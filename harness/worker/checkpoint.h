/* harness/worker/checkpoint.h: a rank's checkpoint file: a header, then the model state repeated up to the
 * scenario's size; written whole (temp file, fsync, rename). */
#ifndef GAUNTLET_CHECKPOINT_H
#define GAUNTLET_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#define CKPT_MAGIC "GNTLCKP1"
#define CKPT_GENS_MAX 16   /* checkpoint generations a rank keeps at most (scenario_ckpt_gens) */
#define CKPT_VERSION 3   /* 3: the hash covers the header's iteration, rank and sizes with the state (2 the state
                            alone: a damaged iteration in the header restored another's state unnoticed); 2: the
                            whole state, then the state repeated to the file's size (1 repeated only its first MiB:
                            a larger state could not be restored). Older versions are not read. */

struct ckpt_header {
    char magic[8];
    uint32_t rank, version;
    int64_t iter;
    uint64_t state_len;     /* bytes of real state; the rest of the file repeats it */
    uint64_t total_len;     /* bytes of the file, header included */
    uint64_t state_hash;    /* FNV-1a of the state, mixed with the header's iter, rank and sizes */
    uint64_t reserved;
};

/* FNV-1a 64 of len bytes: the fingerprint of a model state. */
uint64_t fnv1a64(const void *p, size_t len);
/* Generations 0 .. scenario_ckpt_gens - 1 are written in turn, so that a failure while one is written still leaves a
 * whole, older one that every rank has (and under restart one from before a finding not yet made). */

/* Returns the file name of rank's checkpoint generation gen of scenario name in dir. */
void checkpoint_path(char *out, size_t n, const char *dir, const char *name, int rank, int gen);
/* The bytes a checkpoint of a state of len bytes takes on disk when the scenario asks bytes: the header and the
 * whole state, at least (what checkpoint_write writes, and what the phase's bytes and checkpoint_gbs count). */
uint64_t checkpoint_file_bytes(size_t len, uint64_t bytes);
/* Writes the checkpoint; fills seconds with the time it took (write + fsync + rename). 0, or -1 with why. */
int checkpoint_write(const char *dir, const char *name, int rank, int gen, int64_t iter, const void *state, size_t len,
                     uint64_t bytes, double *seconds, char *why, size_t n);
/* Reads the header of a checkpoint: its iteration; 0, or -1 when there is none (or it is not whole). */
int checkpoint_peek(const char *dir, const char *name, int rank, int gen, int64_t *iter);
/* Reads rank's generation gen as its restore will check it (magic, version, sizes, its rank, iteration iter, the hash
 * of the state and the header), then drops it from the page cache, so that a restore after it reads the disk as it
 * would have. 0, or -1 with why (the file and what is wrong with it). */
int checkpoint_verify(const char *dir, const char *name, int rank, int gen, int64_t iter, char *why, size_t n);
/* Reads back rank's state into a new buffer (*out, len bytes: free it) sized from the header, reading the whole
 * file as a restore would, and checks magic, version, size and hash; bytes gets the file's size. 0, or -1 with
 * why (the file and what is wrong with it). */
int checkpoint_read(const char *dir, const char *name, int rank, int gen, int64_t *iter, void **out, size_t *len,
                    uint64_t *bytes, char *why, size_t n);
/* The same, calling beat(arg) after each MiB read (NULL: none): a restore reading a large file is alive (its heartbeat
 * says so); beat's -1 gives the read up (an abort), said in why. */
int checkpoint_read_beat(const char *dir, const char *name, int rank, int gen, int64_t *iter, void **out, size_t *len,
                         uint64_t *bytes, char *why, size_t n, int (*beat)(void *), void *arg);
/* Removes the checkpoint files (and temp files) in dir of runs that are gone: every run holds an flock on
 * <dir>/<tag>.lock while it lives (checkpoint_lock); the files <tag>-rank<R>-<G>.ckpt[.tmp] of a tag whose lock
 * nobody holds are removed, then its lock file. Host names and pids play no part: a live run in another container
 * or pid namespace, or on another host of a shared folder whose locks work, holds its lock; files without a lock
 * file (an older version's) are left alone. Returns how many files were removed (said on stderr), or -1 when dir
 * cannot be read. */
int checkpoint_sweep(const char *dir);
/* The tag a run's checkpoint files carry: "<name>-<host>-<pid>-<8 random hex>" (several nodes: "-n<node>" after
 * it): unique even for two runs with the same host name and pid. */
void checkpoint_tag(char *out, size_t n, const char *name, int node, int nodes);
/* Creates dir (when needed) and <dir>/<tag>.lock, and holds an exclusive flock on it for as long as the returned
 * descriptor is open (the process's life at most): this run is alive. A folder without working locks is said on
 * stderr and the descriptor still returned. -1 with errno when the file cannot be created. */
int checkpoint_lock(const char *dir, const char *tag);
/* Removes <dir>/<tag>.lock and closes fd (after this run's checkpoint files are gone); fd < 0: nothing. */
void checkpoint_unlock(const char *dir, const char *tag, int fd);
/* The tag of a checkpoint file's name ("<tag>-rank<R>-<G>.ckpt[.tmp]", G a generation 0 .. CKPT_GENS_MAX - 1) into
 * tag; 0, or -1 when it is not one. */
int checkpoint_file_tag(const char *file, char *tag, size_t n);
/* Removes both generations of rank's checkpoints and their temp files (a new run must not restore an older
 * run's state). */
void checkpoint_remove(const char *dir, const char *name, int rank);

#endif
