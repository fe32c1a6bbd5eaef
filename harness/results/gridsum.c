/* harness/results/gridsum.c: the nodes' summed power aligned on node 0's grid (gridsum.h). A ring of the cells not
 * yet given out: per cell, the nodes that have reached it (a row at or past it), the nodes that gave it a value, and
 * the sum of those values. */
#include "gridsum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define RING (GRIDSUM_LAG + 1)

struct node_state {
    int64_t last;     /* the cell of its last row (INT64_MIN: none yet) */
    int64_t first;    /* the cell of its first row: it reached the cells before it, valued those from it */
    int64_t from;     /* the first cell it reached */
    double w;
    int g;
    int left;         /* lost: out of the cluster, no cell waits for it or needs it */
    int ended;        /* its rows are over (its run ended): no cell waits for it, a cell it did not reach is no
                       * whole sum */
};

struct gridsum {
    int nodes, live;  /* live: the nodes not lost (a whole cell has a value of each) */
    int waiting;      /* the nodes neither lost nor ended (a cell waits for each to reach it) */
    double cell_s;
    gridsum_emit emit;
    void *ctx;
    int64_t next;     /* the next cell to give out (INT64_MIN: no row yet) */
    int64_t top;      /* the newest cell any row reached */
    double w[RING];
    int reached[RING], valued[RING], gpus[RING];   /* reached: by the nodes still in the run only */
    int valued_live[RING];                         /* valued by the nodes still in the run */
    int shy[RING];                                 /* valued by a node with fewer GPUs than expect: no whole sum */
    int expect;                                    /* each node's GPUs (gridsum_expect; 0: not known) */
    struct node_state *nd;
    uint64_t late;
    int given;        /* a cell went out: the grid's start is fixed */
};

struct gridsum *gridsum_new(int nodes, double cell_s, gridsum_emit emit, void *ctx)
{
    if (nodes < 1 || !(cell_s > 0) || !emit)
        return NULL;
    struct gridsum *g = xcalloc(1, sizeof *g);
    g->nodes = g->live = g->waiting = nodes;
    g->cell_s = cell_s;
    g->emit = emit;
    g->ctx = ctx;
    g->next = g->top = INT64_MIN;
    g->nd = xcalloc((size_t)nodes, sizeof *g->nd);
    for (int i = 0; i < nodes; i++)
        g->nd[i].last = INT64_MIN;
    return g;
}

void gridsum_expect(struct gridsum *g, int gpus)
{
    if (g && gpus > 0)
        g->expect = gpus;
}

void gridsum_free(struct gridsum *g)
{
    if (!g)
        return;
    free(g->nd);
    free(g);
}

struct gridsum *gridsum_copy(const struct gridsum *g)
{
    if (!g)
        return NULL;
    struct gridsum *c = xmalloc(sizeof *c);
    *c = *g;
    c->nd = xmalloc((size_t)g->nodes * sizeof *c->nd);
    memcpy(c->nd, g->nd, (size_t)g->nodes * sizeof *c->nd);
    return c;
}

/* Gives out cell next (whole or not) and moves on. */
static void give(struct gridsum *g)
{
    int k = (int)(((g->next % RING) + RING) % RING);
    struct gridsum_cell c = { (double)g->next * g->cell_s, g->w[k], g->valued[k], g->gpus[k],
                              g->valued_live[k] >= g->live && !g->shy[k] };
    if (c.nodes > 0)
        g->emit(g->ctx, &c);
    g->given = 1;
    g->w[k] = 0;
    g->reached[k] = g->valued[k] = g->valued_live[k] = g->gpus[k] = g->shy[k] = 0;
    g->next++;
}

/* Gives out every cell every node still in the run has reached. */
static void give_whole(struct gridsum *g)
{
    while (g->next != INT64_MIN && g->next <= g->top) {
        int k = (int)(((g->next % RING) + RING) % RING);
        if (g->reached[k] < g->waiting)
            return;
        give(g);
    }
}

void gridsum_row(struct gridsum *g, double t_s, int node, double watts, int gpus)
{
    if (!g || node < 0 || node >= g->nodes || !isfinite(t_s) || !isfinite(watts))
        return;
    double x = round(t_s / g->cell_s);
    if (!(fabs(x) < 9e15))
        return;
    int64_t c = (int64_t)x;
    struct node_state *n = &g->nd[node];
    if (n->left)
        return;
    if (g->next == INT64_MIN)
        g->next = c;
    if (c < g->next && !g->given && g->top != INT64_MIN && g->top - c < GRIDSUM_LAG)   /* nothing out yet: the grid starts earlier */
        g->next = c;
    if (c < g->next || c <= n->last) {   /* its cell is out already (or a row out of order) */
        g->late++;
        return;
    }
    while (c - g->next >= GRIDSUM_LAG && g->next <= g->top)   /* a node far behind: the cells it holds back go out */
        give(g);                                                /* without it */
    if (c - g->next >= GRIDSUM_LAG) {   /* the cells past top no row reached: empty, none given out; passed over at
                                         * once (one at a time, a row 4e11 cells on hung `gauntlet view`) */
        g->next = c - GRIDSUM_LAG + 1;
        g->given = 1;
    }
    if (c > g->top)
        g->top = c;
    int64_t from = n->last == INT64_MIN || n->last + 1 < g->next ? g->next : n->last + 1;
    if (n->last == INT64_MIN) {
        n->first = c;
        n->from = from;
    }
    for (int64_t i = from; i <= c; i++) {   /* the cells it skipped hold its last value */
        int k = (int)(((i % RING) + RING) % RING);
        g->reached[k] += !n->ended;
        if (i == c || n->last != INT64_MIN) {
            g->valued[k]++;
            g->valued_live[k]++;
            g->w[k] += i == c ? watts : n->w;
            g->gpus[k] += i == c ? gpus : n->g;
            g->shy[k] += g->expect > 0 && (i == c ? gpus : n->g) < g->expect;
        }
    }
    n->last = c;
    n->w = watts;
    n->g = gpus;
    give_whole(g);
}

/* The cells still out that node reached wait for it no more (its rows are over). */
static void unwait(struct gridsum *g, struct node_state *n)
{
    for (int64_t i = n->from > g->next ? n->from : g->next; n->last != INT64_MIN && g->next != INT64_MIN && i <= n->last;
         i++)
        g->reached[((i % RING) + RING) % RING]--;
    g->waiting--;
}

void gridsum_end(struct gridsum *g, int node)
{
    if (!g || node < 0 || node >= g->nodes || g->nd[node].left || g->nd[node].ended)
        return;
    g->nd[node].ended = 1;
    unwait(g, &g->nd[node]);
    give_whole(g);
}

void gridsum_leave(struct gridsum *g, int node)
{
    if (!g || node < 0 || node >= g->nodes || g->nd[node].left)
        return;
    struct node_state *n = &g->nd[node];
    if (!n->ended)
        unwait(g, n);
    n->left = 1;
    g->live--;
    /* the cells still out need its value no more: each is whole once every node still in the cluster gave one
     * (what it gave them stays in their sum: its power until it left) */
    for (int64_t i = n->first > g->next ? n->first : g->next; n->last != INT64_MIN && g->next != INT64_MIN && i <= n->last;
         i++)
        g->valued_live[((i % RING) + RING) % RING]--;
    give_whole(g);
}

void gridsum_flush(struct gridsum *g)
{
    if (!g || g->next == INT64_MIN)
        return;
    while (g->next <= g->top)
        give(g);
}

uint64_t gridsum_late(const struct gridsum *g) { return g ? g->late : 0; }
