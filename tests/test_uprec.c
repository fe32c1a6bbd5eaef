/* tests/test_uprec.c: the records the other nodes send node 0 up a tree (harness/cluster/uprec.h), relayed here
 * between nodes in memory as cluster.c relays them over MPI: small batches that fill and go at random, relays that
 * forward in random turns, and relays that lose what they hold. Whatever the tree and the turns, node 0 takes each
 * origin's lines and control records in the order they were made, each once; what a lost relay held is counted
 * missing, never taken out of order. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uprec.h"
#include "util.h"

#define NODES 40
#define CAP 600
#define MAXQ 4096

struct node {
    struct up_batch b;
    char buf[CAP];
    uint32_t seq;              /* its own records */
    char *inbox[MAXQ];         /* batches from its children, in arrival order */
    size_t inlen[MAXQ];
    int nin, head;
    int parent;                /* where it sent last */
    struct up_ring ring;       /* its recent control records */
    char rerouted_json[32];    /* its newest control record when it went around a lost relay ("": none) */
};

static struct node nd[NODES];
static unsigned char lost[NODES];
static int fanout, resumed;
/* node 0's view: per origin, every byte taken (lines and control, with a kind mark), and the ledger */
static char got[NODES][1 << 16];
static size_t gotlen[NODES];
static struct up_seen seen[NODES];
/* what each origin made */
static char made[NODES][1 << 16];
static size_t madelen[NODES];

static void send_up(int k)
{
    struct node *n = &nd[k];
    if (!n->b.fill)
        return;
    int p = up_parent(k, fanout, lost);
    if (p != n->parent) {   /* around a lost relay: the recent control records first, as cluster.c does */
        char buf[UP_RING * (UP_RING_BYTES + 64)];
        struct up_batch rb = { .buf = buf, .cap = sizeof buf };
        cr_assert_eq(up_ring_batch(&n->ring, (uint32_t)k, &rb), 0);
        if (n->ring.n)
            memcpy(n->rerouted_json, n->ring.rec[(n->ring.n - 1) % UP_RING].data, n->ring.rec[(n->ring.n - 1) % UP_RING].len);
        n->parent = p;
        if (rb.fill) {
            struct node *q = &nd[p];
            q->inbox[q->nin] = malloc(rb.fill);
            memcpy(q->inbox[q->nin], rb.buf, rb.fill);
            q->inlen[q->nin++] = rb.fill;
        }
    }
    struct node *q = &nd[p];
    cr_assert(q->nin < MAXQ);
    q->inbox[q->nin] = malloc(n->b.fill);
    memcpy(q->inbox[q->nin], n->b.buf, n->b.fill);
    q->inlen[q->nin++] = n->b.fill;
    n->b.fill = 0;
}

/* Adds a record to node k's batch, sending the batch first when it is full. */
static void add(int k, uint32_t origin, int kind, uint32_t seq, const char *data, size_t len, int coalesce, int own)
{
    struct node *n = &nd[k];
    int r = up_append(&n->b, origin, kind, seq, data, len, coalesce);
    if (r < 0) {
        send_up(k);
        r = up_append(&n->b, origin, kind, seq, data, len, coalesce);
    }
    cr_assert_geq(r, 0, "a record of %zu bytes fits an empty batch", len);
    if (own && r == 0)
        n->seq++;
}

static void at_node0(void *ctx, const struct up_hdr *h, const char *data)
{
    (void)ctx;
    cr_assert_lt(h->origin, (uint32_t)NODES);
    const char mark = h->kind == UP_EVENTS ? 'e' : h->kind == UP_POWER ? 'p' : 'J';
    for (uint32_t i = 0; i < h->len; i++)   /* every piece of a record is of its kind */
        cr_assert(i > 0 && data[i - 1] != ';' ? 1 : data[i] == mark, "a %c piece in a record of kind %d", data[i], h->kind);
    if (!up_accept(&seen[h->origin], h->seq))
        return;
    memcpy(got[h->origin] + gotlen[h->origin], data, h->len);
    gotlen[h->origin] += h->len;
}

static int relay_k;
static void at_relay(void *ctx, const struct up_hdr *h, const char *data)
{
    (void)ctx;
    add(relay_k, h->origin, h->kind, h->seq, data, h->len, 0, 0);   /* as it came: never merged with another */
}

/* Node k takes its inbox: node 0 keeps, a relay passes on (a lost relay takes nothing: it is stalled). */
static void take(int k)
{
    struct node *n = &nd[k];
    if (k != 0 && lost[k] && !resumed)
        return;
    for (; n->head < n->nin; n->head++) {
        relay_k = k;
        cr_assert_eq(up_parse(n->inbox[n->head], n->inlen[n->head], k == 0 ? at_node0 : at_relay, NULL), 0);
        free(n->inbox[n->head]);
    }
    n->head = n->nin = 0;
}

static void run(uint64_t seed, int fo, int lose, int resume)
{
    struct rng r;
    rng_seed(&r, seed, 7);
    fanout = fo;
    memset(lost, 0, sizeof lost);
    memset(gotlen, 0, sizeof gotlen);
    memset(madelen, 0, sizeof madelen);
    memset(seen, 0, sizeof seen);
    memset(nd, 0, sizeof nd);
    for (int k = 0; k < NODES; k++) {
        nd[k].b = (struct up_batch){ .buf = nd[k].buf, .cap = CAP };
        nd[k].parent = up_parent(k, fo, NULL);
    }
    resumed = 0;
    int lost_at = lose ? 1 + (int)(rng_uniform(&r) * 2000) : -1, victim = 1 + (int)(rng_uniform(&r) * (fo < 4 ? 4 : fo));
    for (int step = 0; step < 4000; step++) {
        if (step == lost_at)
            lost[victim] = 1;   /* what it holds is stuck; the others go around it */
        if (resume && step == lost_at + 500) {   /* it comes back and passes on what it held: late, dropped */
            resumed = 1;
            take(victim);
            send_up(victim);
        }
        int k = 1 + (int)(rng_uniform(&r) * (NODES - 1));
        double u = rng_uniform(&r);
        if (u < 0.6 && !lost[k]) {   /* a line of events or power */
            char line[64];
            int kind = rng_uniform(&r) < 0.5 ? UP_EVENTS : UP_POWER;
            int len = snprintf(line, sizeof line, "%c%d.%d;", kind == UP_EVENTS ? 'e' : 'p', k, step);
            add(k, (uint32_t)k, kind, nd[k].seq + 1, line, (size_t)len, 1, 1);
            memcpy(made[k] + madelen[k], line, (size_t)len);
            madelen[k] += (size_t)len;
        } else if (u < 0.65 && !lost[k]) {   /* a control message: its own record, sent at once */
            char msg[32];
            int len = snprintf(msg, sizeof msg, "J%d.%d;", k, step);
            add(k, (uint32_t)k, UP_JSON, nd[k].seq + 1, msg, (size_t)len, 0, 1);
            up_ring_add(&nd[k].ring, nd[k].seq, msg, (size_t)len);
            memcpy(made[k] + madelen[k], msg, (size_t)len);
            madelen[k] += (size_t)len;
            send_up(k);
        } else if (u < 0.85) {
            take(k);
            if (!lost[k] && rng_uniform(&r) < 0.5)
                send_up(k);
        } else {
            take(0);
        }
    }
    for (int round = 0; round < 8; round++)   /* the end: every node still there sends what it holds */
        for (int k = NODES - 1; k >= 0; k--) {
            take(k);
            if (k && !lost[k])
                send_up(k);
        }
    uint64_t dropped = 0;
    for (int k = 1; k < NODES; k++)
        dropped += seen[k].dropped;
    if (!lose)
        cr_assert_eq(dropped, 0, "nothing goes twice without a lost relay");
    for (int k = 1; k < NODES; k++) {
        if (lost[k])
            continue;
        int below_lost = 0;   /* its records passed through the lost relay before anyone routed around it */
        for (int a = (k - 1) / fo; a > 0; a = (a - 1) / fo)
            below_lost |= lost[a];
        cr_assert_eq(seen[k].taken + seen[k].dropped > 0 || madelen[k] == 0, 1);
        cr_assert_leq(seen[k].last, nd[k].seq, "node %d: no record it did not make", k);
        if (!below_lost) {
            cr_assert_eq(gotlen[k], madelen[k], "node %d: every byte, seed %llu", k, (unsigned long long)seed);
            cr_assert_eq(memcmp(got[k], made[k], madelen[k]), 0, "node %d: in order", k);
            cr_assert_eq(seen[k].last, nd[k].seq);
        } else {   /* what came is what it made with pieces missing, in order: a subsequence of whole records */
            if (nd[k].rerouted_json[0])   /* the control record the lost relay may have held came around it */
                cr_assert(memmem(got[k], gotlen[k], nd[k].rerouted_json, strlen(nd[k].rerouted_json)),
                          "node %d: %s never came", k, nd[k].rerouted_json);
            cr_assert_leq(gotlen[k], madelen[k]);
            size_t i = 0;
            for (size_t j = 0; j < gotlen[k] && i <= madelen[k]; j++) {
                while (i < madelen[k] && made[k][i] != got[k][j])
                    i++;
                cr_assert_lt(i, madelen[k], "node %d: a byte it did not make, or out of order", k);
                i++;
            }
        }
    }
}

Test(uprec, node_0_takes_every_record_once_in_order_up_any_tree)
{
    for (uint64_t seed = 1; seed <= 12; seed++)
        run(seed, seed % 3 == 0 ? 2 : seed % 3 == 1 ? 3 : 8, 0, 0);
}

Test(uprec, a_lost_relay_loses_what_it_held_and_nothing_else_arrives_out_of_order)
{
    for (uint64_t seed = 100; seed <= 112; seed++)
        run(seed, seed % 2 ? 2 : 3, 1, 0);
}

Test(uprec, a_relay_that_comes_back_late_changes_nothing_node_0_took)
{
    for (uint64_t seed = 200; seed <= 212; seed++)
        run(seed, seed % 2 ? 2 : 3, 1, 1);
}

Test(uprec, the_parent_is_the_nearest_ancestor_not_lost)
{
    unsigned char l[200] = { 0 };
    struct rng r;
    rng_seed(&r, 5, 1);
    for (int trial = 0; trial < 50; trial++) {
        int fo = 2 + trial % 9;
        for (int k = 0; k < 200; k++)
            l[k] = k > 0 && rng_uniform(&r) < 0.3;
        cr_assert_eq(up_parent(0, fo, l), -1);
        for (int k = 1; k < 200; k++) {
            int p = up_parent(k, fo, l), a = (k - 1) / fo;
            while (a > 0 && l[a])   /* every ancestor skipped is lost */
                a = (a - 1) / fo;
            cr_assert_eq(p, a);
            cr_assert(p == 0 || !l[p]);
            cr_assert_eq(up_parent(k, fo, NULL), (k - 1) / fo);
        }
    }
    cr_assert_eq(up_depth(0, 8), 0);
    cr_assert_eq(up_depth(8, 8), 1);
    cr_assert_eq(up_depth(9, 8), 2);
    cr_assert_eq(up_depth(4095, 8), 4, "4,096 nodes: node 0 is at most 4 relays away");
}

static void count(void *ctx, const struct up_hdr *h, const char *d)
{
    (void)h, (void)d;
    ++*(int *)ctx;
}

Test(uprec, a_malformed_batch_is_refused)
{
    char buf[64];
    struct up_batch b = { .buf = buf, .cap = sizeof buf };
    cr_assert_eq(up_append(&b, 3, UP_EVENTS, 1, "abc\n", 4, 1), 0);
    cr_assert_eq(up_append(&b, 3, UP_EVENTS, 2, "de\n", 3, 1), 1, "the same stream extends its record");
    cr_assert_eq(up_append(&b, 3, UP_POWER, 2, "p\n", 2, 1), 0);
    cr_assert_eq(up_append(&b, 3, UP_EVENTS, 3, "0123456789012345678901234567890123456789", 40, 1), -1, "no room");
    int n = 0;
    cr_assert_eq(up_parse(buf, b.fill, count, &n), 0);
    cr_assert_eq(n, 2);
    cr_assert_eq(up_parse(buf, b.fill - 1, count, &n), -1, "a cut record");
    struct up_hdr h = { .origin = 1, .kind = UP_END + 1, .seq = 1, .len = 0 };
    memcpy(buf, &h, sizeof h);
    cr_assert_eq(up_parse(buf, sizeof h, count, &n), -1, "an unknown kind");
}

/* A record larger than a batch (a node's end record of many faults: 432 KB of them once was logged and dropped, the
 * run failed with "no end record came") goes in a batch of its own, grown to hold it, and parses whole. */
Test(uprec, a_record_larger_than_a_batch_gets_a_batch_of_its_own)
{
    struct up_batch b = { .buf = malloc(64), .cap = 64 };
    size_t len = 1u << 20;
    char *big = malloc(len);
    cr_assert(b.buf && big);
    memset(big, 'J', len);
    cr_assert_eq(up_append(&b, 2, UP_EVENTS, 1, "e\n", 2, 1), 0);
    cr_assert_eq(up_grow(&b, len), -1, "only an empty batch grows");
    b.fill = 0;
    cr_assert_eq(up_append(&b, 2, UP_JSON, 2, big, len, 0), -1, "no room in the batch as it is");
    cr_assert_eq(up_grow(&b, len), 0);
    cr_assert_eq(up_append(&b, 2, UP_JSON, 2, big, len, 0), 0);
    int n = 0;
    cr_assert_eq(up_parse(b.buf, b.fill, count, &n), 0);
    cr_assert_eq(n, 1);
    struct up_hdr h;
    memcpy(&h, b.buf, sizeof h);
    cr_assert_eq(h.len, len);
    cr_assert_eq(memcmp(b.buf + sizeof h, big, len), 0, "the record whole");
    b.fill = 0;
    cr_assert_eq(up_grow(&b, UP_RECORD_MAX + 1), -1, "past the most a record may be");
    free(big);
    free(b.buf);
}
