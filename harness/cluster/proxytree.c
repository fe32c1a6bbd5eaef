/* harness/cluster/proxytree.c: the sim all-reduce's paths between nodes (see proxytree.h). */
#include "proxytree.h"

/* The tree's order: the last live node first (the root), then the others in node order; position i's parent is
 * (i - 1) / F and its children F i + 1 .. F i + F. */
static int tree_node(const unsigned char *live, int nodes, int last, int i)
{
    if (i == 0)
        return last;
    for (int k = 0, at = 1; k < nodes; k++)
        if (live[k] && k != last && at++ == i)
            return k;
    return -1;
}

int proxy_plan(const unsigned char *live, int nodes, int me, struct proxy_plan *p)
{
    p->prev = p->next = p->parent = -1;
    p->nchildren = 0;
    p->depth = 0;
    if (me < 0 || me >= nodes || !live[me])
        return -1;
    int last = -1, pos = -1, nlive = 0;   /* pos: me's place in the tree's order */
    for (int k = 0; k < nodes; k++)
        if (live[k]) {
            if (k < me)
                p->prev = k;
            if (k > me && p->next < 0)
                p->next = k;
            last = k;
            nlive++;
        }
    if (me == last)
        pos = 0;
    else {
        pos = 1;
        for (int k = 0; k < me; k++)
            pos += live[k] != 0;
    }
    if (pos > 0) {
        p->parent = tree_node(live, nodes, last, (pos - 1) / PROXY_FANOUT);
        for (int i = pos; i > 0; i = (i - 1) / PROXY_FANOUT)
            p->depth++;
    }
    long i = (long)PROXY_FANOUT * pos + 1;   /* the children: the next live nodes in the tree's order, one scan */
    if (i < nlive)
        for (int k = tree_node(live, nodes, last, (int)i); k >= 0 && k < nodes && p->nchildren < PROXY_FANOUT &&
                                                           i < nlive; k++)
            if (live[k] && k != last) {
                p->children[p->nchildren++] = k;
                i++;
            }
    return 0;
}

size_t proxy_chunks(size_t n) { return n ? (n + PROXY_CHUNK_ELEMS - 1) / PROXY_CHUNK_ELEMS : 1; }

void proxy_chunk(size_t n, size_t c, size_t *first, size_t *len)
{
    *first = c * PROXY_CHUNK_ELEMS;
    *len = *first >= n ? 0 : n - *first < PROXY_CHUNK_ELEMS ? n - *first : PROXY_CHUNK_ELEMS;
}
