/* harness/cluster/uprec.c: records relayed up the nodes' tree (see uprec.h). */
#include "uprec.h"

#include <stdlib.h>
#include <string.h>

int up_append(struct up_batch *b, uint32_t origin, int kind, uint32_t seq, const void *data, size_t len, int coalesce)
{
    if (b->fill > 0 && coalesce && !b->sealed) {
        struct up_hdr h;
        memcpy(&h, b->buf + b->last, sizeof h);
        if (h.origin == origin && h.kind == kind) {
            if (len > b->cap - b->fill || h.len + len > UINT32_MAX)
                return -1;
            memcpy(b->buf + b->fill, data, len);
            b->fill += len;
            h.len += (uint32_t)len;
            memcpy(b->buf + b->last, &h, sizeof h);
            return 1;
        }
    }
    if (b->cap - b->fill < sizeof(struct up_hdr) || len > b->cap - b->fill - sizeof(struct up_hdr) || len > UINT32_MAX)
        return -1;
    struct up_hdr h = { .origin = origin, .kind = (uint16_t)kind, .seq = seq, .len = (uint32_t)len };
    b->last = b->fill;
    memcpy(b->buf + b->fill, &h, sizeof h);
    memcpy(b->buf + b->fill + sizeof h, data, len);
    b->fill += sizeof h + len;
    b->sealed = !coalesce;
    return 0;
}

int up_grow(struct up_batch *b, size_t len)
{
    if (b->fill || len > UP_RECORD_MAX)
        return -1;
    if (b->cap >= sizeof(struct up_hdr) + len)
        return 0;
    char *buf = realloc(b->buf, sizeof(struct up_hdr) + len);
    if (!buf)
        return -1;
    b->buf = buf;
    b->cap = sizeof(struct up_hdr) + len;
    return 0;
}

void up_seal(struct up_batch *b) { b->sealed = 1; }

int up_parse(const char *buf, size_t len, void (*fn)(void *ctx, const struct up_hdr *h, const char *data), void *ctx)
{
    size_t at = 0;
    while (at < len) {
        struct up_hdr h;
        if (len - at < sizeof h)
            return -1;
        memcpy(&h, buf + at, sizeof h);
        if (h.len > len - at - sizeof h || h.kind > UP_END)
            return -1;
        fn(ctx, &h, buf + at + sizeof h);
        at += sizeof h + h.len;
    }
    return 0;
}

void up_ring_add(struct up_ring *r, uint32_t seq, const void *data, size_t len)
{
    if (len > UP_RING_BYTES)
        return;
    unsigned i = r->n++ % UP_RING;
    r->rec[i].seq = seq;
    r->rec[i].len = (uint32_t)len;
    memcpy(r->rec[i].data, data, len);
}

int up_ring_batch(const struct up_ring *r, uint32_t origin, struct up_batch *b)
{
    unsigned first = r->n > UP_RING ? r->n - UP_RING : 0;
    for (unsigned k = first; k < r->n; k++)
        if (up_append(b, origin, UP_JSON, r->rec[k % UP_RING].seq, r->rec[k % UP_RING].data, r->rec[k % UP_RING].len,
                      0) < 0)
            return -1;
    return 0;
}

int up_parent(int node, int fanout, const unsigned char *lost)
{
    if (node <= 0)
        return -1;
    int p = (node - 1) / fanout;
    while (p > 0 && lost && lost[p])
        p = (p - 1) / fanout;
    return p;
}

int up_depth(int node, int fanout)
{
    int d = 0;
    for (; node > 0; node = (node - 1) / fanout)
        d++;
    return d;
}

int up_accept(struct up_seen *s, uint32_t seq)
{
    if (seq <= s->last) {
        s->dropped++;
        return 0;
    }
    s->last = seq;
    s->taken++;
    return 1;
}
