/* tests/test_gridsum.c: the cluster's summed power from the nodes' rows (harness/results/gridsum.h), against a sum
 * computed directly from every node's rows, over random clusters: nodes that start late, sample slower than the grid,
 * deliver in bursts, stall or leave; and the sum `gauntlet summarize` rebuilds from power-nodes.csv against the
 * run's own (cluster_rebuild.h). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cluster_rebuild.h"
#include "e2e.h"
#include "gridsum.h"
#include "nodeagg.h"
#include "runcluster.h"
#include "util.h"

#define MAXC 20000

struct out {
    struct gridsum_cell c[MAXC];
    int n;
};

static void take(void *ctx, const struct gridsum_cell *c)
{
    struct out *o = ctx;
    cr_assert(o->n < MAXC);
    o->c[o->n++] = *c;
}

/* N nodes, C cells of 10 ms; node k starts at cell s[k] and has a row every m[k] cells; rows reach the sum in random
 * bursts per node (in order within a node). Every cell from the first row to the last comes out once, in order; a
 * cell every node has reached is whole and its watts are the sum of each node's last row at or before it. */
Test(gridsum, every_cell_once_in_order_and_whole_cells_sum_every_node)
{
    struct rng r;
    rng_seed(&r, 3, 1);
    for (int trial = 0; trial < 100; trial++) {
        int N = 1 + (int)(rng_uniform(&r) * 12), C = 50 + (int)(rng_uniform(&r) * 400);
        int s[12], m[12], at[12];
        double w[12][500];
        for (int k = 0; k < N; k++) {
            s[k] = (int)(rng_uniform(&r) * 4);
            m[k] = rng_uniform(&r) < 0.7 ? 1 : 1 + (int)(rng_uniform(&r) * 5);
            at[k] = s[k];
            for (int i = 0; i < C; i++)
                w[k][i] = 200 + (int)(rng_uniform(&r) * 600);
        }
        struct out *o = xcalloc(1, sizeof *o);
        struct gridsum *g = gridsum_new(N, 0.01, take, o);
        for (;;) {   /* a random node delivers a burst of 1-20 of its rows, never more than 120 cells ahead of the last */
            int k = (int)(rng_uniform(&r) * N), burst = 1 + (int)(rng_uniform(&r) * 20), left = 0, low = C;
            for (int j = 0; j < N; j++)
                low = at[j] < C && at[j] < low ? at[j] : low;
            for (int b = 0; b < burst && at[k] < C && at[k] <= low + 20; b++, at[k] += m[k])
                gridsum_row(g, at[k] * 0.01, k, w[k][at[k]], 8);
            for (int j = 0; j < N; j++)
                left += at[j] < C;
            if (!left)
                break;
        }
        gridsum_flush(g);
        cr_assert_eq(gridsum_late(g), 0);
        int first = C, last = 0;
        for (int k = 0; k < N; k++) {
            first = s[k] < first ? s[k] : first;
            int lk = s[k] + (C - 1 - s[k]) / m[k] * m[k];
            last = lk > last ? lk : last;
        }
        cr_assert_eq(o->n, last - first + 1, "cells %d..%d: %d given out", first, last, o->n);
        for (int i = 0; i < o->n; i++) {
            int cell = first + i;
            cr_assert(fabs(o->c[i].t_s - cell * 0.01) < 1e-9, "in order, none twice");
            double want = 0;
            int have = 0;
            for (int k = 0; k < N; k++) {
                if (cell < s[k])
                    continue;
                int lastrow = s[k] + (cell - s[k]) / m[k] * m[k];
                want += w[k][lastrow];
                have++;
            }
            if (o->c[i].whole) {
                cr_assert_eq(have, N, "whole: every node has a row at or before cell %d", cell);
                cr_assert_eq(o->c[i].gpus, 8 * N);
                cr_assert(fabs(o->c[i].watts - want) < 1e-6, "cell %d: %g, want %g", cell, o->c[i].watts, want);
            } else {
                cr_assert(have < N || cell > last - 6, "not whole only where a node had not started (or at the end)");
            }
        }
        /* every cell where every node has started and that every node reached before its rows ended is whole */
        int all_from = 0, all_to = C;
        for (int k = 0; k < N; k++) {
            all_from = s[k] > all_from ? s[k] : all_from;
            int lk = s[k] + (C - 1 - s[k]) / m[k] * m[k];
            all_to = lk < all_to ? lk : all_to;
        }
        for (int cell = all_from; cell <= all_to; cell++)
            cr_assert(o->c[cell - first].whole, "cell %d: every node there, so whole", cell);
        gridsum_free(g);
        free(o);
    }
}

/* Rows of watts w for cells [from, to) of nodes [0, nodes), but none from node `quiet` past cell `quiet_from`. */
static void rows(struct gridsum *g, int from, int to, int nodes, double w, int quiet, int quiet_from)
{
    for (int i = from; i < to; i++)
        for (int k = 0; k < nodes; k++)
            if (k != quiet || i < quiet_from)
                gridsum_row(g, i * 0.01, k, w, 1);
}

/* Node 2 of 4 stalls at cell 100: the others' cells wait at most GRIDSUM_LAG cells for it, then go out without it
 * (not whole); its rows when it wakes are late, counted and dropped. */
Test(gridsum, a_stalled_node_holds_the_sum_back_a_bounded_time)
{
    struct out *o = xcalloc(1, sizeof *o);
    struct gridsum *g = gridsum_new(4, 0.01, take, o);
    rows(g, 0, 1000, 4, 100, 2, 100);
    cr_assert_eq(o->n, 1000 - GRIDSUM_LAG, "held back no more than the lag: %d out", o->n);
    for (int i = 0; i < o->n; i++) {
        cr_assert_eq(o->c[i].whole, i < 100);
        cr_assert_float_eq(o->c[i].watts, i < 100 ? 400 : 300, 1e-9);
    }
    gridsum_row(g, 101 * 0.01, 2, 100, 1);
    cr_assert_eq(gridsum_late(g), 1);
    gridsum_free(g);
    free(o);
}

/* A node whose sum holds fewer GPUs than it has (one without a reading past its hold, nodeagg_hold) makes its cells no
 * whole sum: a step of one GPU's power in the cluster's figures otherwise (2026-12-02) */
Test(gridsum, a_cell_of_a_node_short_of_gpus_is_not_whole)
{
    struct out *o = xcalloc(1, sizeof *o);
    struct gridsum *g = gridsum_new(2, 0.01, take, o);
    gridsum_expect(g, 2);
    for (int i = 0; i < 10; i++)
        for (int k = 0; k < 2; k++)
            gridsum_row(g, i * 0.01, k, k == 1 && i >= 5 ? 300 : 600, k == 1 && i >= 5 ? 1 : 2);
    gridsum_row(g, 10 * 0.01, 0, 600, 2);   /* node 0 on: cells up to 9 out */
    gridsum_row(g, 10 * 0.01, 1, 600, 2);
    cr_assert_geq(o->n, 10);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(o->c[i].whole, i < 5, "cell %d: whole %d (node 1 holds %d GPU(s))", i, o->c[i].whole, i < 5 ? 2 : 1);
    gridsum_free(g);
    free(o);
}

/* A row 1e13 cells past the others (a damaged power-nodes.csv, a node's clock far off): the empty cells between are
 * passed over, not given out one by one (until 2026-12-01 `gauntlet view` of a record with such a row hung: 4e11 cells
 * of 10 ms, one at a time; this test ran past its timeout). Out: the cells before it, then the lag's cells up to it,
 * which hold node 0's last row until the new one, without node 1 (its next row is late). */
Test(gridsum, a_row_far_ahead_passes_over_the_empty_cells, .timeout = 60)
{
    struct out *o = xcalloc(1, sizeof *o);
    struct gridsum *g = gridsum_new(2, 0.01, take, o);
    for (int i = 0; i < 10; i++)
        for (int k = 0; k < 2; k++)
            gridsum_row(g, i * 0.01, k, 100.0 * (k + 1), 1);
    cr_assert_eq(o->n, 10);
    gridsum_row(g, 1e13 * 0.01, 0, 500, 1);
    gridsum_row(g, 10 * 0.01, 1, 200, 1);
    cr_assert_eq(gridsum_late(g), 1, "node 1's row for a cell passed over is late");
    gridsum_flush(g);
    cr_assert_eq(o->n, 10 + GRIDSUM_LAG, "%d cells out", o->n);
    for (int i = 10; i < o->n; i++) {
        cr_assert_eq(o->c[i].nodes, 1);
        cr_assert(!o->c[i].whole);
        cr_assert_float_eq(o->c[i].watts, i + 1 < o->n ? 100 : 500, 1e-9, "cell %d: %g", i, o->c[i].watts);
    }
    cr_assert_float_eq(o->c[o->n - 1].t_s, 1e13 * 0.01, 1e-3);
    gridsum_free(g);
    free(o);
}

/* A node that leaves is not waited for: the cells go out as the others reach them, whole. */
Test(gridsum, a_node_that_left_is_not_waited_for)
{
    struct out *o = xcalloc(1, sizeof *o);
    struct gridsum *g = gridsum_new(3, 0.01, take, o);
    rows(g, 0, 10, 3, 10, -1, 0);
    gridsum_leave(g, 1);
    rows(g, 10, 20, 3, 10, 1, 0);
    cr_assert_eq(o->n, 20, "nothing waits for the node that left");
    cr_assert(o->c[19].whole);
    cr_assert_float_eq(o->c[19].watts, 20, 1e-9);
    cr_assert_eq(o->c[19].nodes, 2);
    gridsum_free(g);
    free(o);
}

/* Node 2 of 3 gives cells 0..9 (300 W), node 1 cells 0..4 (200 W), node 0 cells 0..9 (100 W); then node 2 goes
 * (gone: lost, else its run ended) while node 1 is at cell 4, and nodes 0 and 1 go on to cell 11. Cells 5..9 wait
 * for node 1 either way and keep node 2's power; what differs is whether a cell node 2 did not reach is whole. */
static void node_2_goes_early(int lost)
{
    struct out *o = xcalloc(1, sizeof *o);
    struct gridsum *g = gridsum_new(3, 0.01, take, o);
    for (int i = 0; i < 10; i++)
        for (int k = 0; k < 3; k++)
            if (k != 1 || i < 5)
                gridsum_row(g, i * 0.01, k, 100.0 * (k + 1), 1);
    cr_assert_eq(o->n, 5);
    if (lost)
        gridsum_leave(g, 2);
    else
        gridsum_end(g, 2);
    cr_assert_eq(o->n, 5, "cells 5..9 wait for node 1, still in the run (%d out)", o->n);
    for (int i = 5; i < 12; i++)
        for (int k = 0; k < 2; k++)
            gridsum_row(g, i * 0.01, k, 100.0 * (k + 1), 1);
    cr_assert_eq(o->n, 12, "nothing waits for node 2");
    for (int i = 0; i < 12; i++) {
        cr_assert_eq(o->c[i].whole, lost || i < 10, "cell %d: whole %d", i, o->c[i].whole);
        cr_assert_float_eq(o->c[i].watts, i < 10 ? 600 : 300, 1e-9, "cell %d: %g", i, o->c[i].watts);
        cr_assert_eq(o->c[i].nodes, i < 10 ? 3 : 2);
    }
    gridsum_free(g);
    free(o);
}

/* A node lost takes nothing from the nodes still in the run: a cell waits for every one of those, and is whole
 * without the lost node after it left. */
Test(gridsum, a_node_that_leaves_first_leaves_the_others_cells_waiting) { node_2_goes_early(1); }

/* A node whose run ended holds no cell back, but a cell it did not reach is no whole sum. */
Test(gridsum, a_node_that_ended_holds_nothing_back_and_leaves_no_whole_cell_short) { node_2_goes_early(0); }

/* Random clusters where nodes are lost or end at random points (each after its first row): a whole cell holds the
 * last row at or before it of every node still in the cluster, and of every node that left at or after it; no
 * whole cell lacks a node that ended before it. */
Test(gridsum, whole_cells_sum_every_node_when_nodes_leave)
{
    struct rng r;
    rng_seed(&r, 5, 1);
    for (int trial = 0; trial < 200; trial++) {
        int N = 2 + (int)(rng_uniform(&r) * 8), C = 40 + (int)(rng_uniform(&r) * 200);
        int at[10], end[10], lost[10];   /* end: the node leaves (lost) or ends once its rows reach it (C: never) */
        double w[10][240];
        for (int k = 0; k < N; k++) {
            at[k] = 0;
            end[k] = rng_uniform(&r) < 0.4 ? 1 + (int)(rng_uniform(&r) * (C - 1)) : C;
            lost[k] = rng_uniform(&r) < 0.5;
            for (int i = 0; i < C; i++)
                w[k][i] = 200 + (int)(rng_uniform(&r) * 600);
        }
        struct out *o = xcalloc(1, sizeof *o);
        struct gridsum *g = gridsum_new(N, 0.01, take, o);
        for (;;) {
            int k = (int)(rng_uniform(&r) * N), burst = 1 + (int)(rng_uniform(&r) * 20), more = 0, low = C;
            for (int j = 0; j < N; j++)
                low = at[j] < end[j] && at[j] < low ? at[j] : low;
            for (int b = 0; b < burst && at[k] < end[k] && at[k] <= low + 20; b++, at[k]++) {
                gridsum_row(g, at[k] * 0.01, k, w[k][at[k]], 1);
                if (at[k] + 1 == end[k] && end[k] < C && lost[k])
                    gridsum_leave(g, k);
                else if (at[k] + 1 == end[k] && end[k] < C)
                    gridsum_end(g, k);
            }
            for (int j = 0; j < N; j++)
                more += at[j] < end[j];
            if (!more)
                break;
        }
        gridsum_flush(g);
        for (int i = 0; i < o->n; i++) {
            int cell = (int)lround(o->c[i].t_s / 0.01);
            if (!o->c[i].whole)
                continue;
            double want = 0;
            for (int k = 0; k < N; k++) {
                cr_assert(lost[k] || cell < end[k], "trial %d cell %d: whole without node %d, which ended before it",
                          trial, cell, k);
                if (cell < end[k])
                    want += w[k][cell];
            }
            cr_assert(fabs(o->c[i].watts - want) < 1e-6, "trial %d cell %d: %g, want %g (every node there)", trial, cell,
                      o->c[i].watts, want);
        }
        gridsum_free(g);
        free(o);
    }
}

/* Node 1 of 3 skips cells on both sides of a run's stretch [0.5, 1.0] s (cells 50..100): no row from cell 40 to 55
 * nor from 96 to 105 (a supervisor descheduled on a busy host). Live, node 0 sums every row it wrote to
 * power-nodes.csv, and the cells node 1 skipped hold its last row (cell 39's, cell 95's): every cell of the stretch
 * is whole. `gauntlet summarize` sums the same file: the same whole cells and the same mean. Until 2026-11-30 the
 * rebuild read only the rows within a cell of the stretch, so node 1's rows at cells 39 and 106 were not in it and
 * cells 50..55 and 96..100 lacked node 1: 40 whole cells rebuilt against 51 live (seen on a loaded machine as
 * "rebuilt: 105 whole cells, live 109"). */
Test(gridsum, a_rebuilt_sum_holds_the_rows_the_run_held)
{
    char dir[] = "/tmp/gauntlet-gridsum-XXXXXX", path[128];
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/power-nodes.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(nodeagg_power_header, f);
    struct runcluster *live = runcluster_new(3, 0.01);
    for (int i = 0; i < 150; i++)
        for (int k = 0; k < 3; k++) {
            if (k == 1 && ((i >= 40 && i <= 55) || (i >= 96 && i <= 105)))
                continue;
            char row[64];   /* as node 0 writes a row and sums it (results.c nodes_row) */
            double t = i * 0.01, w = 100.0 * (k + 1) + (i % 7) * 10.5;
            snprintf(row, sizeof row, "%.6f,%d,%.1f,%d\n", t, k, w, 2);
            fputs(row, f);
            runcluster_row(live, t, k, w, 2);
        }
    cr_assert_eq(fclose(f), 0);
    runcluster_span(live, 0, 0.5, 1.0);
    json_t *ls = json_pack("{s:[{s:i, s:{s:{}}}]}", "runs", "run", 0, "power", "aggregate");
    runcluster_json(live, ls, NULL, NAN, 0);
    runcluster_free(live);
    json_t *rs = json_pack("{s:[{s:i, s:{s:{}}}]}", "runs", "run", 0, "power", "aggregate");
    json_t *start = json_pack("{s:i, s:s, s:f}", "nodes", 3, "forward", "nodes", "forward_hz", 100.0);
    json_t *faults = json_array(), *windows = json_pack("[{s:i, s:f, s:f, s:b}]", "run", 0, "from_s", 0.5, "to_s", 1.0,
                                                       "analysed", 1);
    results_cluster_rebuild(dir, start, 0, faults, windows, rs);
    json_t *lc = json_object_get(json_object_get(json_array_get(json_object_get(ls, "runs"), 0), "power"), "cluster");
    json_t *rc = json_object_get(json_object_get(json_array_get(json_object_get(rs, "runs"), 0), "power"), "cluster");
    cr_assert(json_is_object(lc) && json_is_object(rc), "%s",
              json_string_value(json_object_get(rs, "power_cluster_note")));
    json_int_t lw = json_integer_value(json_object_get(lc, "whole_cells")),
               rw = json_integer_value(json_object_get(rc, "whole_cells"));
    cr_assert_eq(json_integer_value(json_object_get(lc, "cells")), 51);
    cr_assert_eq(lw, 51, "live: the skipped cells hold node 1's last row");
    cr_assert_eq(rw, lw, "rebuilt %lld whole cells, live %lld", (long long)rw, (long long)lw);
    static const char *const fig[] = { "mean_w", "swing_w" };
    for (int i = 0; i < 2; i++)
        cr_assert_float_eq(json_number_value(json_object_get(rc, fig[i])), json_number_value(json_object_get(lc, fig[i])),
                           1e-9, "%s", fig[i]);
    json_decref(ls), json_decref(rs), json_decref(start), json_decref(faults), json_decref(windows);
}
