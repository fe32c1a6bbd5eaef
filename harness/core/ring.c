/* harness/core/ring.c: the lock-free single-producer single-consumer ring (see ring.h). The producer publishes a
 * record by a release store of head after writing it; the consumer acquires head before reading. */
#include "ring.h"

#include <stdlib.h>
#include <string.h>

/* Returns the first record's address. */
static unsigned char *ring_data(struct ring *r) { return (unsigned char *)(r + 1); }

size_t ring_bytes(uint32_t cap, uint32_t esize) { return sizeof(struct ring) + (size_t)cap * esize; }

struct ring *ring_new(uint32_t cap, uint32_t esize)
{
    size_t a = _Alignof(struct ring), bytes = ring_bytes(cap, esize);
    struct ring *r = aligned_alloc(a, (bytes + a - 1) / a * a);   /* C11: the size a multiple of the alignment */
    if (r && ring_init(r, cap, esize) != 0) {
        free(r);
        r = NULL;
    }
    return r;
}

int ring_init(struct ring *r, uint32_t cap, uint32_t esize)
{
    if (cap == 0 || (cap & (cap - 1)) || esize == 0)
        return -1;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->dropped, 0);
    r->cap = cap;
    r->esize = esize;
    return 0;
}

int ring_push(struct ring *r, const void *rec)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (head - tail >= r->cap) {
        atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
        return -1;
    }
    memcpy(ring_data(r) + (head & (r->cap - 1)) * r->esize, rec, r->esize);
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
    return 0;
}

int ring_pop(struct ring *r, void *rec)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    if (tail == head)
        return 0;
    memcpy(rec, ring_data(r) + (tail & (r->cap - 1)) * r->esize, r->esize);
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
    return 1;
}

int ring_peek(struct ring *r, void *rec)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    if (tail == head)
        return 0;
    memcpy(rec, ring_data(r) + (tail & (r->cap - 1)) * r->esize, r->esize);
    return 1;
}

uint64_t ring_count(struct ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_acquire) - atomic_load_explicit(&r->tail, memory_order_acquire);
}
