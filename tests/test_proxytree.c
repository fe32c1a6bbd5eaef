/* tests/test_proxytree.c: the paths of the sim's cross-node all-reduce (harness/cluster/proxytree.h), over random
 * sets of live nodes up to the most a run spans: the sum runs through every live node once in node order, the total
 * reaches every live node from the last one down a tree of fan-out 8 whose depth grows as log_8 of the nodes, and the
 * chunks cover a collective exactly. */
#include <criterion/criterion.h>

#include "proxytree.h"
#include "shm.h"
#include "util.h"

static struct proxy_plan plans[SHM_MAX_NODES];
static unsigned char live[SHM_MAX_NODES];

/* Checks every invariant for the nodes and live set above. */
static void check(int nodes)
{
    int nlive = 0, first = -1, last = -1;
    for (int k = 0; k < nodes; k++)
        if (live[k]) {
            nlive++;
            last = k;
            if (first < 0)
                first = k;
        }
    for (int k = 0; k < nodes; k++)
        cr_assert_eq(proxy_plan(live, nodes, k, &plans[k]), live[k] ? 0 : -1, "node %d", k);
    if (!nlive)
        return;
    /* the chain: from the first live node to the last, each live node once, in node order */
    int seen = 0, at = first, prev = -1;
    while (at >= 0) {
        cr_assert(live[at]);
        cr_assert_eq(plans[at].prev, prev, "node %d's prev", at);
        cr_assert(prev < at);
        seen++;
        prev = at;
        at = plans[at].next;
    }
    cr_assert_eq(seen, nlive);
    cr_assert_eq(prev, last);
    /* the tree: rooted at the last; every other live node has one parent that lists it; at most 8 children;
     * every live node reached; depth within ceil(log_8(nlive)) */
    int depth_bound = 0;
    for (long span = 1; span < nlive; span *= PROXY_FANOUT)
        depth_bound++;
    int edges = 0;
    for (int k = 0; k < nodes; k++) {
        if (!live[k])
            continue;
        const struct proxy_plan *p = &plans[k];
        cr_assert_leq(p->nchildren, PROXY_FANOUT);
        edges += p->nchildren;
        cr_assert_leq(p->depth, depth_bound, "node %d at depth %d of %d live", k, p->depth, nlive);
        if (k == last) {
            cr_assert_eq(p->parent, -1);
            cr_assert_eq(p->depth, 0);
            continue;
        }
        cr_assert(p->parent >= 0 && live[p->parent], "node %d's parent %d", k, p->parent);
        const struct proxy_plan *q = &plans[p->parent];
        int listed = 0;
        for (int i = 0; i < q->nchildren; i++)
            listed += q->children[i] == k;
        cr_assert_eq(listed, 1, "node %d is its parent's child once", k);
        cr_assert_eq(p->depth, q->depth + 1);
    }
    cr_assert_eq(edges, nlive - 1, "a tree: one edge per live node but the root");
}

Test(proxytree, the_chain_and_the_tree_reach_every_live_node_once)
{
    struct rng r;
    rng_seed(&r, 11, 1);
    const int sizes[] = { 1, 2, 3, 8, 9, 10, 64, 65, 73, 512, 4096, SHM_MAX_NODES };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int nodes = sizes[i];
        for (int trial = 0; trial < (nodes > 1000 ? 2 : 20); trial++) {
            double keep = trial == 0 ? 1.0 : rng_uniform(&r);   /* all live, then random shrinks */
            for (int k = 0; k < nodes; k++)
                live[k] = trial == 0 || rng_uniform(&r) < keep;
            check(nodes);
        }
    }
}

Test(proxytree, a_node_that_is_not_live_has_no_plan)
{
    for (int k = 0; k < 4; k++)
        live[k] = k != 2;
    struct proxy_plan p;
    cr_assert_eq(proxy_plan(live, 4, 2, &p), -1);
    cr_assert_eq(proxy_plan(live, 4, 4, &p), -1);
    cr_assert_eq(proxy_plan(live, 4, 1, &p), 0);
    cr_assert_eq(p.next, 3, "node 2 is skipped");
}

Test(proxytree, the_chunks_cover_a_collective_exactly)
{
    const size_t ns[] = { 0, 1, PROXY_CHUNK_ELEMS - 1, PROXY_CHUNK_ELEMS, PROXY_CHUNK_ELEMS + 1, 1u << 20, 3000001 };
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        size_t n = ns[i], chunks = proxy_chunks(n), next = 0;
        cr_assert_geq(chunks, 1);
        for (size_t c = 0; c < chunks; c++) {
            size_t first, len;
            proxy_chunk(n, c, &first, &len);
            cr_assert_eq(first, next, "n %zu chunk %zu", n, c);
            cr_assert_leq(len, PROXY_CHUNK_ELEMS);
            cr_assert(len > 0 || n == 0);
            next = first + len;
        }
        cr_assert_eq(next, n);
    }
}
