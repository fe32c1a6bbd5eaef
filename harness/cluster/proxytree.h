/* harness/cluster/proxytree.h: who talks to whom in the sim's cross-node all-reduce, as pure functions (unit-tested
 * without MPI; cluster_proxy.c follows them).
 *
 * The sum keeps the serial order in global rank order, bitwise: node k starts from the running sum of the live
 * nodes before it, so it runs along the live nodes in node order — a chain, but cut into chunks that follow each
 * other down it (a pipeline: the time is (nodes + chunks) chunk-hops, not nodes whole-vector hops). The last live
 * node's total comes back down a tree of fan-out PROXY_FANOUT rooted at it (the same bytes whatever the path): no
 * node sends more than PROXY_FANOUT copies, and the total is ceil(log_F(nodes)) hops from every node. */
#ifndef GAUNTLET_PROXYTREE_H
#define GAUNTLET_PROXYTREE_H

#include <stddef.h>

#define PROXY_FANOUT 8
#define PROXY_CHUNK_ELEMS ((size_t)1 << 16)   /* floats per chunk: 256 KiB */

struct proxy_plan {
    int prev, next;                 /* the live nodes before and after this one in node order; -1: none */
    int parent;                     /* where the total comes from; -1: this node is the last (it has the total) */
    int children[PROXY_FANOUT];     /* where this node sends the total */
    int nchildren;
    int depth;                      /* hops from the last node down to this one */
};

/* The plan of node me among nodes (live[k] != 0: node k takes part). 0, or -1 when me is not live or no node is. */
int proxy_plan(const unsigned char *live, int nodes, int me, struct proxy_plan *p);

/* Chunks of a collective of n floats, and chunk c's first float and length. */
size_t proxy_chunks(size_t n);
void proxy_chunk(size_t n, size_t c, size_t *first, size_t *len);

#endif
