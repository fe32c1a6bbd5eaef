/* harness/core/ring.h: a lock-free single-producer single-consumer ring of fixed-size records, living in
 * shared memory between two processes. The producer never blocks: a full ring counts a drop. */
#ifndef GAUNTLET_RING_H
#define GAUNTLET_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
    _Alignas(64) _Atomic uint64_t head;   /* next slot the producer writes; only the producer stores */
    _Alignas(64) _Atomic uint64_t tail;   /* next slot the consumer reads; only the consumer stores */
    _Alignas(64) _Atomic uint64_t dropped;/* records the producer could not place */
    uint32_t cap;                         /* slots, a power of two */
    uint32_t esize;                       /* bytes per record */
    /* cap * esize bytes of records follow, at ring_data() */
};

/* Returns the bytes a ring of cap records of esize bytes needs (header included). */
size_t ring_bytes(uint32_t cap, uint32_t esize);
/* Allocates and initialises a ring on the heap, aligned as struct ring needs (free() it); NULL when out of
 * memory or cap is not a power of two. */
struct ring *ring_new(uint32_t cap, uint32_t esize);
/* Initialises a ring in memory of ring_bytes(cap, esize); cap must be a power of two. Returns 0 or -1. */
int ring_init(struct ring *r, uint32_t cap, uint32_t esize);
/* Copies one record in (producer side); 0, or -1 when full (the drop is counted). */
int ring_push(struct ring *r, const void *rec);
/* Copies one record out (consumer side); 1 when a record was read, 0 when empty. */
int ring_pop(struct ring *r, void *rec);
/* Copies the first record out without taking it (consumer side); 1 when there is one, 0 when empty. */
int ring_peek(struct ring *r, void *rec);
/* Returns the number of records waiting. */
uint64_t ring_count(struct ring *r);

#endif
