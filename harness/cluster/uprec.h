/* harness/cluster/uprec.h: what the other nodes send node 0, as records relayed up a tree (pure functions,
 * unit-tested without MPI; cluster.c moves the bytes).
 *
 * Every node but node 0 sends its event lines, power rows and control messages for node 0 to its parent in a tree
 * of fan-out F over the node numbers (node k's parent is (k - 1) / F); a parent relays its children's records with
 * its own, so node 0 hears from at most F nodes, in messages that carry up to a batch of every node below. One
 * batch holds records in the order they were made: a node's lines and its control messages keep their order on the
 * way (its end record comes after its last line). Each record names its origin and carries the origin's own
 * sequence number: node 0 takes a record once and in order, drops a late or repeated one, and counts the ones that
 * never came (a relay that stalled with them). A node whose parent is lost sends to the nearest ancestor that is
 * not, resending its recent control records (node 0 drops the ones it had). Heartbeats go straight to node 0:
 * liveness is each node's own, not its relay's. */
#ifndef GAUNTLET_UPREC_H
#define GAUNTLET_UPREC_H

#include <stddef.h>
#include <stdint.h>

/* UP_END: a node's last record, empty, sent as it leaves (a relay waits for its subtree's before it leaves) */
enum up_kind { UP_EVENTS = 0, UP_POWER = 1, UP_JSON = 2, UP_END = 3 };

struct up_hdr {
    uint32_t origin;   /* the node that made it */
    uint16_t kind;     /* enum up_kind */
    uint16_t reserved;
    uint32_t seq;      /* the origin's record number, from 1 */
    uint32_t len;      /* bytes of payload after the header */
};

/* A batch being filled. */
struct up_batch {
    char *buf;
    size_t fill, cap;
    size_t last;       /* offset of the last record's header (valid when fill > 0) */
    int sealed;        /* the last record takes no more lines (another kind or a relayed record came after it) */
};

/* Appends a record of origin, kind and seq holding data[len]; when coalesce is set and the batch's last record is
 * of the same origin and kind and not sealed, the bytes extend it instead (lines of one stream, in order; seq is not
 * used). 0 (a new record), 1 (extended), or -1 when the batch has no room (the caller sends it and appends again
 * to an empty one). */
int up_append(struct up_batch *b, uint32_t origin, int kind, uint32_t seq, const void *data, size_t len, int coalesce);
/* A record larger than a batch (a node's end record of many faults): grows the empty batch b (its buf from malloc)
 * to hold one record of len bytes, up to UP_RECORD_MAX. 0, or -1 (b not empty, too large, no memory: b unchanged). */
#define UP_RECORD_MAX ((size_t)1 << 30)
int up_grow(struct up_batch *b, size_t len);
/* Ends the last record: the next append starts a new one. */
void up_seal(struct up_batch *b);
/* Calls fn for every record of buf[len] in order. 0, or -1 (a malformed batch: fn saw the records before it). */
int up_parse(const char *buf, size_t len, void (*fn)(void *ctx, const struct up_hdr *h, const char *data), void *ctx);

/* A node's recent control records, kept to send again when its parent is lost (what the lost relay held). */
#define UP_RING 32
#define UP_RING_BYTES 4096   /* a longer record is not kept (an end record: sent last, to a parent known alive) */
struct up_ring {
    struct { uint32_t seq, len; char data[UP_RING_BYTES]; } rec[UP_RING];
    unsigned n;   /* records ever kept: the last min(n, UP_RING) are here */
};
void up_ring_add(struct up_ring *r, uint32_t seq, const void *data, size_t len);
/* The parent changed: the ring's records (control, of origin, oldest first) into the empty batch b, to go on the new
 * path before anything else. 0, or -1 when b is too small for them (UP_RING records of UP_RING_BYTES fit 160 KiB). */
int up_ring_batch(const struct up_ring *r, uint32_t origin, struct up_batch *b);

/* The node node sends up to: its nearest ancestor in the tree of fan-out fanout (>= 2) that is not lost (lost may be
 * NULL; node 0 is never lost to it), or -1 for node 0. */
int up_parent(int node, int fanout, const unsigned char *lost);
/* Hops from node up to node 0 with nothing lost. */
int up_depth(int node, int fanout);

/* Node 0's ledger of one origin's records. */
struct up_seen {
    uint32_t last;       /* the highest sequence number taken */
    uint64_t taken;      /* records taken */
    uint64_t dropped;    /* late or repeated records dropped */
};
/* Whether to take a record of sequence seq (1) or drop it (0); updates the ledger. */
int up_accept(struct up_seen *s, uint32_t seq);

#endif
