/* harness/worker/ckpt_async.h: asynchronous checkpoints: the rank copies its state into one of two buffers (the
 * stall it pays) and a background thread writes it (temp file, fsync, rename) while training goes on. */
#ifndef GAUNTLET_CKPT_ASYNC_H
#define GAUNTLET_CKPT_ASYNC_H

#include <stddef.h>
#include <stdint.h>

struct ckpt_async;

/* A finished background write. */
struct ckpt_done {
    int64_t iter;
    uint64_t bytes;
    double seconds;      /* write + fsync + rename, in the background */
    int failed;
    char why[256];
};

/* Starts the writer thread for rank's checkpoints of scenario name in dir, bytes each. NULL on failure. */
struct ckpt_async *ckpt_async_start(const char *dir, const char *name, int rank, uint64_t bytes);
/* Hands a state to the writer: waits for a free buffer (double-buffered), copies. 0, or -1 (beat said to give up).
 * beat (NULL: none) is called with arg at least every 20 ms of any wait, as in ckpt_async_drain. */
int ckpt_async_submit(struct ckpt_async *a, const void *state, size_t len, int gen, int64_t iter, int (*beat)(void *),
                      void *arg);
/* Takes one finished write, if any: 1 and fills d, else 0. */
int ckpt_async_poll(struct ckpt_async *a, struct ckpt_done *d);
/* Waits until every handed state is written; beat (NULL: none) is called with arg at least every 20 ms meanwhile (a
 * worker's heartbeat: waiting on storage is no hang, for as long as a write may take: the worker's beat stops past
 * that, and returns -1 to give up the wait, on an abort). 0, or -1 (given up). */
int ckpt_async_drain(struct ckpt_async *a, int (*beat)(void *), void *arg);
/* Drains, stops the thread and frees everything. */
void ckpt_async_stop(struct ckpt_async *a);

#endif
