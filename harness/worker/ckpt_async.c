/* harness/worker/ckpt_async.c: the background checkpoint writer (see ckpt_async.h). Two buffers: while one is
 * written, the next checkpoint fills the other; a third checkpoint waits (that wait is part of its stall). */
#include "ckpt_async.h"

#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "util.h"

enum { SLOT_FREE = 0, SLOT_QUEUED, SLOT_WRITING };

struct ckpt_slot {
    int state;
    void *buf;
    size_t len, cap;
    int gen;
    int64_t iter;
    uint64_t seq;            /* submission order: written oldest first */
};

struct ckpt_async {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int quit;
    uint64_t next_seq;
    struct ckpt_slot slot[2];
    char dir[1024], name[192];
    int rank;
    uint64_t bytes;
    struct ckpt_done *done;  /* every finished write's outcome, oldest first, until ckpt_async_poll takes it */
    size_t n_done, cap_done, first_done;
};

/* Returns the queued slot submitted first, or -1 (mu held). */
static int ckpt_async_oldest(struct ckpt_async *a)
{
    int k = -1;
    for (int i = 0; i < 2; i++)
        if (a->slot[i].state == SLOT_QUEUED && (k < 0 || a->slot[i].seq < a->slot[k].seq))
            k = i;
    return k;
}

/* The writer thread: takes queued buffers in order and writes them whole. */
static void *ckpt_async_main(void *arg)
{
    struct ckpt_async *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        int k;
        while ((k = ckpt_async_oldest(a)) < 0 && !a->quit)
            pthread_cond_wait(&a->cv, &a->mu);
        if (k < 0)
            break;
        struct ckpt_slot *s = &a->slot[k];
        s->state = SLOT_WRITING;
        pthread_mutex_unlock(&a->mu);
        struct ckpt_done d = { .iter = s->iter, .bytes = checkpoint_file_bytes(s->len, a->bytes) };
        if (checkpoint_write(a->dir, a->name, a->rank, s->gen, s->iter, s->buf, s->len, a->bytes, &d.seconds, d.why,
                             sizeof d.why) != 0)
            d.failed = 1;
        pthread_mutex_lock(&a->mu);
        if (a->n_done == a->cap_done) {   /* kept until polled, failures too: no outcome is ever dropped */
            if (a->first_done) {
                memmove(a->done, a->done + a->first_done, (a->n_done - a->first_done) * sizeof *a->done);
                a->n_done -= a->first_done;
                a->first_done = 0;
            }
            if (a->n_done == a->cap_done) {
                a->cap_done = a->cap_done ? 2 * a->cap_done : 8;
                a->done = xrealloc(a->done, a->cap_done * sizeof *a->done);
            }
        }
        a->done[a->n_done++] = d;
        s->state = SLOT_FREE;   /* the buffer is free again; its outcome is in the queue */
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

struct ckpt_async *ckpt_async_start(const char *dir, const char *name, int rank, uint64_t bytes)
{
    struct ckpt_async *a = xcalloc(1, sizeof *a);
    str_copy(a->dir, sizeof a->dir, dir);
    str_copy(a->name, sizeof a->name, name);
    a->rank = rank;
    a->bytes = bytes;
    int e;
    pthread_condattr_t ca;   /* the monotonic clock: a step of the wall clock must not stretch a timed wait (a wait
                              * 20 ms long on CLOCK_REALTIME lasted as long as a step back, beatless: until 2026-11-30) */
    if ((e = pthread_condattr_init(&ca)) != 0 || (e = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)) != 0 ||
        (e = pthread_mutex_init(&a->mu, NULL)) != 0 || (e = pthread_cond_init(&a->cv, &ca)) != 0 ||
        (e = pthread_create(&a->thread, NULL, ckpt_async_main, a)) != 0) {
        gl_log("cannot start the checkpoint writer thread: %s", strerror(e));
        free(a);
        return NULL;
    }
    pthread_condattr_destroy(&ca);
    return a;
}

/* Waits (a->mu held) for the writer to change something; with beat, at most 20 ms at a time, calling beat(arg) after
 * each wait: a worker waiting on storage is alive, and its heartbeat says so. */
static int ckpt_wait(struct ckpt_async *a, int (*beat)(void *), void *arg)
{
    struct timespec until;   /* the condition's clock (CLOCK_MONOTONIC: ckpt_async_start) */
    if (!beat || clock_gettime(CLOCK_MONOTONIC, &until) != 0) {
        pthread_cond_wait(&a->cv, &a->mu);
        return 0;
    }
    until.tv_nsec += 20000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&a->cv, &a->mu, &until);   /* ETIMEDOUT as good as a wake-up: the caller looks again */
    pthread_mutex_unlock(&a->mu);
    int rc = beat(arg);
    pthread_mutex_lock(&a->mu);
    return rc;
}

int ckpt_async_submit(struct ckpt_async *a, const void *state, size_t len, int gen, int64_t iter, int (*beat)(void *),
                      void *arg)
{
    pthread_mutex_lock(&a->mu);
    int k;
    for (;;) {   /* a buffer never used or whose write is finished (its outcome waits in the queue) */
        for (k = 0; k < 2 && a->slot[k].state != SLOT_FREE; k++)
            ;
        if (k < 2)
            break;
        if (ckpt_wait(a, beat, arg) != 0) {
            pthread_mutex_unlock(&a->mu);
            return -1;
        }
    }
    struct ckpt_slot *s = &a->slot[k];
    if (s->cap < len) {
        free(s->buf);
        s->buf = xmalloc(len);
        s->cap = len;
    }
    memcpy(s->buf, state, len);
    s->len = len;
    s->gen = gen;
    s->iter = iter;
    s->seq = a->next_seq++;
    s->state = SLOT_QUEUED;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

int ckpt_async_poll(struct ckpt_async *a, struct ckpt_done *d)
{
    int got = 0;
    pthread_mutex_lock(&a->mu);
    if (a->first_done < a->n_done) {
        *d = a->done[a->first_done++];
        got = 1;
        if (a->first_done == a->n_done)
            a->first_done = a->n_done = 0;
    }
    pthread_mutex_unlock(&a->mu);
    return got;
}

int ckpt_async_drain(struct ckpt_async *a, int (*beat)(void *), void *arg)
{
    int rc = 0;
    pthread_mutex_lock(&a->mu);
    while (rc == 0 && (a->slot[0].state == SLOT_QUEUED || a->slot[0].state == SLOT_WRITING ||
                       a->slot[1].state == SLOT_QUEUED || a->slot[1].state == SLOT_WRITING))
        rc = ckpt_wait(a, beat, arg);
    pthread_mutex_unlock(&a->mu);
    return rc;
}
void ckpt_async_stop(struct ckpt_async *a)
{
    if (!a)
        return;
    ckpt_async_drain(a, NULL, NULL);
    pthread_mutex_lock(&a->mu);
    a->quit = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    free(a->slot[0].buf);
    free(a->slot[1].buf);
    free(a->done);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a);
}
