/* tests/test_nodeagg.c: a node's events folded into node_iteration lines and its GPUs' power summed on node 0's time
 * grid (harness/results/nodeagg.h), against what the ranks' own lines say, over random streams; and which phase a
 * power reading speaks for (harness/results/phasecov.h), against every reading's span checked by hand. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "nodeagg.h"
#include "phasecov.h"
#include "util.h"

#define MAXL 4096

struct sink {
    json_t *lines[MAXL];   /* node_iteration lines, parsed */
    int n;
    double rows_t[MAXL * 4], rows_w[MAXL * 4];
    int rows_g[MAXL * 4], nrows;
    size_t max_len;
};

static void sink_emit(void *ctx, int stream, const char *line, size_t len)
{
    struct sink *k = ctx;
    cr_assert(len > 0 && line[len - 1] == '\n', "a whole line");
    if (stream == 0) {
        json_error_t err;
        json_t *o = json_loadb(line, len, 0, &err);
        cr_assert(o, "a JSON line: %.*s", (int)len, line);
        cr_assert(k->n < MAXL);
        k->lines[k->n++] = o;
        if (len > k->max_len)
            k->max_len = len;
    } else {
        int node, g;
        double t, w;
        cr_assert_eq(sscanf(line, "%lf,%d,%lf,%d", &t, &node, &w, &g), 4, "a power row: %.*s", (int)len, line);
        cr_assert(k->nrows < MAXL * 4);
        k->rows_t[k->nrows] = t, k->rows_w[k->nrows] = w, k->rows_g[k->nrows++] = g;
    }
}

static void sink_free(struct sink *k)
{
    for (int i = 0; i < k->n; i++)
        json_decref(k->lines[i]);
}

static int ev(struct nodeagg *a, double t, const char *type, json_t *o)
{
    json_object_set_new(o, "event", json_string(type));
    int r = nodeagg_event(a, t, type, o);
    json_decref(o);
    return r;
}

/* One random run: R ranks (global from first), I iterations, each rank's iteration a compute phase and a comm phase
 * of random lengths, the ranks' events interleaved in time. Every iteration gives one line whose ranks, longest and
 * shortest duration, per-phase longest time and summed flops equal what the ranks' lines say. */
static void random_run(struct rng *g, int R, int I, int first)
{
    struct sink k = { 0 };
    struct nodeagg *a = nodeagg_new(3, R, first, 0.01, sink_emit, &k);
    cr_assert(a);
    double *want_dur = xcalloc((size_t)I, sizeof *want_dur), *want_min = xcalloc((size_t)I, sizeof *want_min);
    double *want_c = xcalloc((size_t)I, sizeof *want_c), *want_f = xcalloc((size_t)I, sizeof *want_f);
    double *want_m = xcalloc((size_t)I, sizeof *want_m);
    double t = 0;
    for (int i = 0; i < I; i++) {
        want_min[i] = INFINITY;
        /* every rank's four phase edges, then its iteration; ranks interleaved: edge e of every rank, then e+1 */
        double c[64], m[64], f[64];
        for (int r = 0; r < R; r++) {
            c[r] = 0.001 + 0.01 * rng_uniform(g);
            m[r] = 0.001 + 0.005 * rng_uniform(g);
            f[r] = 1e12 * (1 + rng_uniform(g));
        }
        for (int r = 0; r < R; r++)
            cr_assert_eq(ev(a, t, "phase_begin", json_pack("{s:i,s:i,s:i,s:s}", "rank", first + r, "run", 0, "iter", i,
                                                           "phase", "compute")), 1);
        for (int r = 0; r < R; r++)
            cr_assert_eq(ev(a, t + c[r], "phase_end", json_pack("{s:i,s:i,s:i,s:s,s:f}", "rank", first + r, "run", 0,
                                                                "iter", i, "phase", "compute", "flops", f[r])), 1);
        for (int r = 0; r < R; r++)
            ev(a, t + c[r], "phase_begin", json_pack("{s:i,s:i,s:i,s:s}", "rank", first + r, "run", 0, "iter", i, "phase", "comm"));
        for (int r = 0; r < R; r++)
            ev(a, t + c[r] + m[r], "phase_end", json_pack("{s:i,s:i,s:i,s:s,s:f,s:f}", "rank", first + r, "run", 0, "iter", i,
                                                          "phase", "comm", "bytes", 4194304.0, "bus_bytes", 6291456.0));
        for (int r = 0; r < R; r++) {
            double d = c[r] + m[r];
            cr_assert_eq(ev(a, t + d, "iteration", json_pack("{s:i,s:i,s:i,s:f}", "rank", first + r, "run", 0, "iter", i,
                                                             "dur_s", d)), 1);
            want_dur[i] = fmax(want_dur[i], d);
            want_min[i] = fmin(want_min[i], d);
            want_c[i] = fmax(want_c[i], c[r]);
            want_m[i] = fmax(want_m[i], m[r]);
            want_f[i] += f[r];
        }
        t += want_dur[i];
    }
    cr_assert_eq(ev(a, t, "run_end", json_pack("{s:i}", "run", 0)), 0, "run_end goes on whole");
    nodeagg_flush(a);
    cr_assert_eq(k.n, I, "one line per iteration: %d for %d", k.n, I);
    for (int i = 0; i < I; i++) {
        json_t *o = k.lines[i], *ph = json_object_get(o, "phases");
        cr_assert_str_eq(json_string_value(json_object_get(o, "event")), "node_iteration");
        cr_assert_eq(json_integer_value(json_object_get(o, "iter")), i, "in order");
        cr_assert_eq(json_integer_value(json_object_get(o, "node")), 3);
        cr_assert_eq(json_integer_value(json_object_get(o, "ranks")), R);
        double rel = 1e-6;   /* the line's 7 significant digits */
        cr_assert(fabs(json_real_value(json_object_get(o, "dur_s")) - want_dur[i]) <= rel * want_dur[i]);
        cr_assert(fabs(json_real_value(json_object_get(o, "dur_min_s")) - want_min[i]) <= rel * want_min[i]);
        double cs = json_real_value(json_object_get(json_object_get(ph, "compute"), "s"));
        double ms = json_real_value(json_object_get(json_object_get(ph, "comm"), "s"));
        double fl = json_real_value(json_object_get(json_object_get(ph, "compute"), "flops"));
        double by = json_real_value(json_object_get(json_object_get(ph, "comm"), "bytes"));
        cr_assert(fabs(cs - want_c[i]) <= 1e-6 * want_c[i] + 1e-12, "compute %g want %g", cs, want_c[i]);
        cr_assert(fabs(ms - want_m[i]) <= 1e-6 * want_m[i] + 1e-12, "comm %g want %g", ms, want_m[i]);
        cr_assert(fabs(fl - want_f[i]) <= 1e-6 * want_f[i], "flops %g want %g", fl, want_f[i]);
        cr_assert_eq(by, 4194304.0);
        cr_assert_eq(json_real_value(json_object_get(json_object_get(ph, "comm"), "bus_bytes")), 6291456.0,
                     "a step's own bus bytes go to node 0 (the live bus bandwidth of another node's steps)");
    }
    cr_assert(k.max_len < 320, "a line stays short whatever the ranks: %zu B", k.max_len);
    uint64_t lines[2], bytes[2];
    nodeagg_stats(a, lines, bytes);
    cr_assert_eq(lines[0], (uint64_t)I);
    nodeagg_free(a);
    sink_free(&k);
    free(want_dur), free(want_min), free(want_c), free(want_f), free(want_m);
}

Test(nodeagg, every_iteration_one_line_that_says_what_its_ranks_said)
{
    struct rng g;
    rng_seed(&g, 42, 1);
    for (int trial = 0; trial < 200; trial++)
        random_run(&g, 1 + (int)(rng_uniform(&g) * 63), 1 + (int)(rng_uniform(&g) * 40), (int)(rng_uniform(&g) * 1000));
}

/* A rank that stops (it died, nobody dropped it): its node's iterations still go to node 0, each once the next
 * NODEAGG_LAG have ended, with the ranks that ended it; nothing is held back at the run's end. */
Test(nodeagg, a_silent_rank_holds_nothing_back)
{
    struct sink k = { 0 };
    struct nodeagg *a = nodeagg_new(1, 4, 4, 0, sink_emit, &k);
    for (int i = 0; i < 20; i++)
        for (int r = 0; r < 4; r++) {
            if (r == 2 && i >= 5)
                continue;   /* rank 6 is silent from iteration 5 on */
            ev(a, i * 0.01 + r * 1e-4, "iteration", json_pack("{s:i,s:i,s:i,s:f}", "rank", 4 + r, "run", 0, "iter", i,
                                                              "dur_s", 0.01));
        }
    cr_assert_eq(k.n, 20 - NODEAGG_LAG, "all but the last %d out before the run ends: %d", NODEAGG_LAG, k.n);
    ev(a, 0.3, "run_end", json_pack("{s:i}", "run", 0));
    cr_assert_eq(k.n, 20);
    for (int i = 0; i < 20; i++)
        cr_assert_eq(json_integer_value(json_object_get(k.lines[i], "ranks")), i < 5 ? 4 : 3);
    nodeagg_free(a);
    sink_free(&k);
}

/* An iteration none of whose ranks said its duration (no dur_s) is a line whose dur_s and dur_min_s are null: until
 * 2026-12-01 0, which the live metrics read as an iteration of 0 s. */
Test(nodeagg, a_duration_no_rank_said_is_null)
{
    struct sink k = { 0 };
    struct nodeagg *a = nodeagg_new(0, 2, 0, 0, sink_emit, &k);
    for (int r = 0; r < 2; r++)
        ev(a, 0.01, "iteration", json_pack("{s:i,s:i,s:i}", "rank", r, "run", 0, "iter", 0));
    ev(a, 0.02, "run_end", json_pack("{s:i}", "run", 0));
    cr_assert_eq(k.n, 1);
    cr_assert(json_is_null(json_object_get(k.lines[0], "dur_s")) && json_is_null(json_object_get(k.lines[0], "dur_min_s")),
              "dur_s %s", json_dumps(k.lines[0], JSON_COMPACT));
    cr_assert(json_is_null(json_object_get(k.lines[0], "slowest")), "no slowest rank where none said its time (0 once): %s",
              json_dumps(k.lines[0], JSON_COMPACT));
    nodeagg_free(a);
    sink_free(&k);
}

/* shrink drops rank 1 of the node: from then on an iteration is whole with the ranks left, at once. */
Test(nodeagg, a_dropped_rank_is_not_waited_for)
{
    struct sink k = { 0 };
    struct nodeagg *a = nodeagg_new(0, 2, 0, 0, sink_emit, &k);
    cr_assert_eq(ev(a, 0, "rank_dropped", json_pack("{s:i,s:i}", "rank", 1, "ranks_left", 1)), 0);
    ev(a, 0.01, "iteration", json_pack("{s:i,s:i,s:i,s:f}", "rank", 0, "run", 0, "iter", 0, "dur_s", 0.01));
    cr_assert_eq(k.n, 1);
    cr_assert_eq(json_integer_value(json_object_get(k.lines[0], "ranks")), 1);
    nodeagg_free(a);
    sink_free(&k);
}

/* Events that are not a rank's per-iteration ones are not taken; a malformed one is not either. */
Test(nodeagg, other_events_go_on_whole)
{
    struct sink k = { 0 };
    struct nodeagg *a = nodeagg_new(0, 2, 0, 0.01, sink_emit, &k);
    const char *whole[] = { "fault_injected", "detection", "worker_died", "recovery_begin", "recovery_end", "ready", "gpu",
                            "worker_start", "checkpoint_written", "paused" };
    for (size_t i = 0; i < ARRAY_LEN(whole); i++)
        cr_assert_eq(ev(a, 0, whole[i], json_pack("{s:i,s:i,s:i}", "rank", 0, "run", 0, "iter", 0)), 0, "%s", whole[i]);
    cr_assert_eq(ev(a, 0, "iteration", json_pack("{s:s}", "rank", "x")), 0, "no rank: as it is");
    cr_assert_eq(ev(a, 0, "iteration", json_pack("{s:i,s:i,s:i}", "rank", 9, "run", 0, "iter", 0)), 0, "not this node's");
    nodeagg_free(a);
    sink_free(&k);
}

/* Power: R GPUs read every tick_s at random watts; cells of cell_s (a multiple of tick_s). Each row is the sum over
 * the GPUs of their mean in the cell, so the rows' energy (sum of watts x cell_s) equals the readings' (sum of watts x
 * tick_s) and every row counts every GPU. */
Test(nodeagg, power_cells_keep_the_energy_and_every_gpu)
{
    struct rng g;
    rng_seed(&g, 7, 1);
    for (int trial = 0; trial < 50; trial++) {
        int R = 1 + (int)(rng_uniform(&g) * 16), per = 1 + (int)(rng_uniform(&g) * 10), ticks = per * (5 + (int)(rng_uniform(&g) * 50));
        double tick = 0.001 * (1 + (int)(rng_uniform(&g) * 5)), cell = tick * per, e_in = 0, e_out = 0;
        struct sink k = { 0 };
        struct nodeagg *a = nodeagg_new(2, R, 8, cell, sink_emit, &k);
        for (int i = 0; i < ticks; i++)
            for (int r = 0; r < R; r++) {
                double w = 100 + 600 * rng_uniform(&g);
                nodeagg_power(a, (i + 0.5) * tick, r, w);
                e_in += w * tick;
            }
        nodeagg_flush(a);
        cr_assert_eq(k.nrows, ticks / per, "one row per cell: %d for %d", k.nrows, ticks / per);
        for (int i = 0; i < k.nrows; i++) {
            cr_assert_eq(k.rows_g[i], R);
            cr_assert(fabs(k.rows_t[i] - i * cell) < 1e-6, "row %d at %g, its cell's start %g", i, k.rows_t[i], i * cell);
            e_out += k.rows_w[i] * cell;
        }
        cr_assert(fabs(e_out - e_in) <= 0.01 * k.nrows * cell + 1e-9 * e_in, "energy %g J in, %g J out", e_in, e_out);
        nodeagg_free(a);
        sink_free(&k);
    }
}

/* A GPU that misses a cell counts with its last reading; one never read is not counted (gpus says so); NaN readings
 * are not measurements. */
Test(nodeagg, a_missing_reading_is_held_and_said)
{
    struct sink k = { 0 };
    struct nodeagg *a = nodeagg_new(0, 3, 0, 0.01, sink_emit, &k);
    nodeagg_power(a, 0.001, 0, 300);
    nodeagg_power(a, 0.001, 1, 200);
    nodeagg_power(a, 0.011, 0, 310);
    nodeagg_power(a, 0.011, 1, NAN);
    nodeagg_power(a, 0.021, 0, 320);
    nodeagg_flush(a);
    cr_assert_eq(k.nrows, 3);
    cr_assert_float_eq(k.rows_w[0], 500, 1e-9);
    cr_assert_float_eq(k.rows_w[1], 510, 1e-9);
    cr_assert_float_eq(k.rows_w[2], 520, 1e-9);
    cr_assert_eq(k.rows_g[0], 2, "GPU 2 was never read");
    nodeagg_free(a);
    sink_free(&k);
    /* held for hold_s at most: a GPU whose readings stop is out of the sum after it, and gpus says so (until
     * 2026-12-02 its last reading stood in the sum for good, the cells complete) */
    k = (struct sink){ 0 };
    a = nodeagg_new(0, 2, 0, 0.01, sink_emit, &k);
    nodeagg_hold(a, 0.02);
    for (int c = 0; c < 6; c++) {
        nodeagg_power(a, 0.001 + 0.01 * c, 0, 300);
        nodeagg_power(a, 0.001 + 0.01 * c, 1, c == 0 ? 200 : NAN);   /* GPU 1: one reading, then none */
    }
    nodeagg_flush(a);
    cr_assert_eq(k.nrows, 6);
    for (int c = 0; c < 6; c++) {
        cr_assert_eq(k.rows_g[c], c <= 2 ? 2 : 1, "cell %d: %d GPUs (held 20 ms: cells 1 and 2)", c, k.rows_g[c]);
        cr_assert_float_eq(k.rows_w[c], c <= 2 ? 500 : 300, 1e-9, "cell %d: %g W", c, k.rows_w[c]);
    }
    nodeagg_free(a);
    sink_free(&k);
}

struct rows { double t[MAXL], w[MAXL]; int g[MAXL], node[MAXL], n; };

static void take_row(void *ctx, double t_s, int node, double watts, int gpus)
{
    struct rows *o = ctx;
    cr_assert(o->n < MAXL);
    o->t[o->n] = t_s, o->w[o->n] = watts, o->g[o->n] = gpus, o->node[o->n++] = node;
}

struct lines { char text[1 << 16]; size_t len; int n; };

static void take_line(void *ctx, int stream, const char *line, size_t len)
{
    struct lines *l = ctx;
    cr_assert_eq(stream, 1);
    cr_assert(l->len + len < sizeof l->text);
    memcpy(l->text + l->len, line, len);
    l->len += len;
    l->n++;
}

/* The compact lines a node sends (nodeagg_compact) read back (nodeagg_rows) into the rows the aggregate makes without
 * them, cell for cell (to the 0.1 W they carry), over random readings with gaps and a GPU that joins late; a line
 * holds at most its cells, and one that is not a line is refused. */
Test(nodeagg, compact_power_lines_read_back_as_the_rows)
{
    struct rng g;
    rng_seed(&g, 11, 1);
    for (int trial = 0; trial < 50; trial++) {
        struct sink k = { 0 };
        struct lines *l = xcalloc(1, sizeof *l);
        int R = 1 + (int)(rng_uniform(&g) * 8), max = 1 + (int)(rng_uniform(&g) * 12);
        struct nodeagg *plain = nodeagg_new(5, R, 40, 0.01, sink_emit, &k), *packed = nodeagg_new(5, R, 40, 0.01, take_line, l);
        nodeagg_compact(packed, max);
        for (int i = 0; i < 300; i++) {
            if (rng_uniform(&g) < 0.05)
                continue;   /* a tick the sampler missed: a gap in the cells */
            for (int r = 0; r < R; r++) {
                if (r == R - 1 && i < 50)
                    continue;   /* the last GPU's first reading comes late: the GPU count changes */
                double w = 50 + 600 * rng_uniform(&g);
                nodeagg_power(plain, (i + 0.5) * 0.01, r, w);
                nodeagg_power(packed, (i + 0.5) * 0.01, r, w);
            }
        }
        nodeagg_flush(plain);
        nodeagg_flush(packed);
        struct rows *o = xcalloc(1, sizeof *o);
        cr_assert_eq(nodeagg_rows(l->text, l->len, 0.01, take_row, o), k.nrows);
        cr_assert_eq(o->n, k.nrows);
        for (int i = 0; i < o->n; i++) {
            cr_assert(fabs(o->t[i] - k.rows_t[i]) < 1e-9, "cell %d: %g vs %g", i, o->t[i], k.rows_t[i]);
            cr_assert(fabs(o->w[i] - k.rows_w[i]) <= 0.051, "cell %d: %g W vs %g W", i, o->w[i], k.rows_w[i]);
            cr_assert_eq(o->g[i], k.rows_g[i]);
            cr_assert_eq(o->node[i], 5);
        }
        cr_assert(l->n >= (k.nrows + max - 1) / max, "at most %d cells a line", max);
        nodeagg_free(plain);
        nodeagg_free(packed);
        sink_free(&k);
        free(o);
        free(l);
    }
    struct rows *o = xcalloc(1, sizeof *o);
    cr_assert_eq(nodeagg_rows("1,2,3,4.5\nnot a line\n", 21, 0.01, take_row, o), -1);
    cr_assert_eq(o->n, 1, "the good line before it was read");
    cr_assert_eq(nodeagg_rows("1,2,3,4.5", 9, 0.01, take_row, o), -1, "no newline: not whole");
    free(o);
}

/* ---- which phase a reading speaks for (harness/results/phasecov.h) */

/* One rank's phases laid end to end: compute, comm, and now and then a checkpoint or an idle stretch; lengths from
 * far under to far over the readings' span. */
struct edges {
    double t[4096];
    int ph[4096];   /* the phase from t on: PHC_COMPUTE, PHC_COMM, PHC_OTHER */
    int n;
};

static int phase_at(const struct edges *e, double t)
{
    int p = PHC_OTHER;
    for (int i = 0; i < e->n && e->t[i] <= t; i++)
        p = e->ph[i];
    return p;
}

static int edge_inside(const struct edges *e, double a, double b)
{
    for (int i = 0; i < e->n; i++)
        if (e->t[i] > a && e->t[i] < b)
            return 1;
    return 0;
}

/* Random phases and readings (stamped at a sensor's own pace, or unstamped and seen at ticks), the edges arriving
 * late by a random delay: every reading the coverage counts for a phase is one the whole of whose span (from the
 * reading before it) lay in that phase, and every such reading is counted, once. */
static void random_cover(struct rng *g, int stamped)
{
    static struct edges e;
    e.n = 0;
    double t = 0.05 + 0.1 * rng_uniform(g);
    static const char *names[] = { "other", "compute", "comm" };
    while (e.n < 4000 && t < 20) {
        int p = e.n % 2 == 0 ? PHC_COMPUTE : PHC_COMM;
        if (rng_uniform(g) < 0.1)
            p = PHC_OTHER;
        double len = rng_uniform(g) < 0.5 ? 0.002 + 0.02 * rng_uniform(g) : 0.02 + 0.3 * rng_uniform(g);
        e.t[e.n] = t;
        e.ph[e.n++] = p;
        t += len;
        if (rng_uniform(g) < 0.3) {   /* an end before the next begin: a gap of no phase */
            e.t[e.n] = t;
            e.ph[e.n++] = PHC_OTHER;
            t += 0.001 + 0.01 * rng_uniform(g);
        }
    }
    double end_t = t;
    struct phasecov *c = phasecov_new(2);
    cr_assert(c);
    double want_sum[3] = { 0 }, span = stamped ? 0.005 + 0.03 * rng_uniform(g) : 0;
    int want_n[3] = { 0 }, ei = 0, open = PHC_OTHER;
    double delay = 0.05 * rng_uniform(g), prev_b = NAN, prev_w = NAN, stamp = 0, tick = 1.0 / 200;
    double last_tick = NAN, before_prev = NAN;   /* unstamped: a reading spans from the tick before the one before it */
    for (double now = 0; now < end_t + 1; now += tick) {
        /* the edges whose time has come, delay late */
        while (ei < e.n && e.t[ei] + delay <= now) {
            if (open != PHC_OTHER)
                phasecov_edge(c, 1, e.t[ei], names[open], 0);
            if (e.ph[ei] != PHC_OTHER)
                phasecov_edge(c, 1, e.t[ei], names[e.ph[ei]], 1);
            open = e.ph[ei++];
        }
        double b, w;
        if (stamped) {   /* the sensor's newest sample visible at this tick */
            while (stamp + span <= now)
                stamp += span;
            b = stamp;
            w = 100 + 1000 * (stamp / span - floor(stamp / span)) + stamp;   /* one value per sample */
        } else {
            b = now;
            w = rng_uniform(g) < 0.3 && isfinite(prev_w) ? prev_w : 100 + 600 * rng_uniform(g);
        }
        int fresh = stamped ? !(b == prev_b) : !(w == prev_w);
        double a = stamped ? prev_b : before_prev;
        if (fresh && isfinite(prev_b) && isfinite(a) && b > prev_b) {
            int p = phase_at(&e, a);
            if (!edge_inside(&e, a, b) && p != PHC_OTHER && b <= e.t[e.n - 1]) {
                want_sum[p] += w;
                want_n[p]++;
            }
        }
        if (fresh) {
            prev_b = b;
            prev_w = w;
            before_prev = last_tick;
        }
        last_tick = now;
        phasecov_reading(c, 1, now, stamped ? b : NAN, w);
        phasecov_reading(c, 0, now, NAN, NAN);   /* a rank with gaps only: nothing */
    }
    if (open != PHC_OTHER)
        phasecov_edge(c, 1, e.t[e.n - 1], names[open], 0);
    phasecov_settle(c);
    for (int p = PHC_COMPUTE; p <= PHC_COMM; p++) {
        struct series *s = phasecov_series(c, 1, p);
        double sum = 0;
        for (size_t i = 0; i < s->n; i++)
            sum += s->v[i];
        cr_assert_eq((int)s->n, want_n[p], "%s readings: %zu, want %d (stamped %d)", names[p], s->n, want_n[p], stamped);
        cr_assert(fabs(sum - want_sum[p]) <= 1e-9 * fabs(want_sum[p]), "%s: the same readings");
        cr_assert_eq(phasecov_series(c, 0, p)->n, 0u);
    }
    cr_assert_gt(want_n[PHC_COMPUTE], 10, "long phases have readings of their own");
    if (stamped)
        cr_assert(fabs(phasecov_span_s(c, 1) - span) < 1e-6, "span %g want %g", phasecov_span_s(c, 1), span);
    cr_assert(isnan(phasecov_span_s(c, 0)));
    cr_assert_null(phasecov_series(c, 2, PHC_COMPUTE));
    cr_assert_null(phasecov_series(c, 1, PHC_OTHER));
    phasecov_free(c);
}

Test(phasecov, a_reading_counts_for_a_phase_only_when_the_phase_held_over_all_it_covers)
{
    struct rng g;
    for (int k = 0; k < 6; k++) {
        rng_seed(&g, 77, (uint64_t)k);
        random_cover(&g, k % 2);
    }
}

Test(phasecov, phases_shorter_than_the_readings_have_no_readings_of_their_own)
{
    struct phasecov *c = phasecov_new(1);
    double t = 0;
    for (int i = 0; i < 200; i++, t += 0.03) {   /* 13 ms of compute, 17 of comm; a sensor sample every 20 ms */
        phasecov_edge(c, 0, t, "compute", 1);
        phasecov_edge(c, 0, t + 0.013, "compute", 0);
        phasecov_edge(c, 0, t + 0.013, "comm", 1);
        phasecov_edge(c, 0, t + 0.03, "comm", 0);
    }
    for (double s = 0.02; s < t; s += 0.02)
        phasecov_reading(c, 0, s + 0.001, s, 500 + 100 * sin(s));
    phasecov_settle(c);
    cr_assert_eq(phasecov_series(c, 0, PHC_COMPUTE)->n, 0u);
    cr_assert_eq(phasecov_series(c, 0, PHC_COMM)->n, 0u);
    cr_assert(fabs(phasecov_span_s(c, 0) - 0.02) < 1e-9);
    phasecov_free(c);
}

Test(phasecov, a_phase_that_never_ends_still_has_its_readings)
{
    /* a hang: the compute phase's end never comes; past PHASECOV_PENDING readings the oldest are judged on what is
     * known, and the rest at the end of the record */
    struct phasecov *c = phasecov_new(1);
    phasecov_edge(c, 0, 1.0, "compute", 1);
    int n = PHASECOV_PENDING + 500;
    for (int i = 0; i <= n; i++)
        phasecov_reading(c, 0, 1.0 + 0.01 * (i + 1), 1.0 + 0.01 * i, 700 + i);
    cr_assert_eq(phasecov_series(c, 0, PHC_COMPUTE)->n, 500u, "the oldest judged as the cap is passed");
    phasecov_settle(c);
    cr_assert_eq(phasecov_series(c, 0, PHC_COMPUTE)->n, (size_t)n);
    phasecov_free(c);
}

/* The node's end record for node 0's acceptance: the same judgement, from the node's own events and readings. */
Test(nodeagg, the_gpus_power_figures_count_only_readings_within_one_phase)
{
    struct sink k = { 0 };
    struct nodeagg *a = nodeagg_new(1, 2, 2, 0, sink_emit, &k);
    double t = 0;
    for (int i = 0; i < 10; i++, t += 0.3) {   /* rank 2: 200 ms compute, 100 ms comm; rank 3 the same */
        for (int r = 2; r < 4; r++) {
            ev(a, t, "phase_begin", json_pack("{s:i,s:i,s:i,s:s}", "rank", r, "run", 0, "iter", i, "phase", "compute"));
            ev(a, t + 0.2, "phase_end", json_pack("{s:i,s:i,s:i,s:s}", "rank", r, "run", 0, "iter", i, "phase", "compute"));
            ev(a, t + 0.2, "phase_begin", json_pack("{s:i,s:i,s:i,s:s}", "rank", r, "run", 0, "iter", i, "phase", "comm"));
            ev(a, t + 0.3, "phase_end", json_pack("{s:i,s:i,s:i,s:s}", "rank", r, "run", 0, "iter", i, "phase", "comm"));
        }
        for (double s = t + 0.005; s < t + 0.3; s += 0.005) {   /* ticks every 5 ms */
            double stamp = 0.02 * floor(s / 0.02 + 1e-9);      /* local rank 0: a stamped sample every 20 ms */
            nodeagg_sample(a, 0, s, stamp, fmod(stamp, 0.3) < 0.2 ? 700 + stamp : 200 + stamp, 0, 0);
            nodeagg_sample(a, 1, s, NAN, 300, 0, 0);   /* local rank 1: one unchanging reading: nothing known */
        }
    }
    json_t *gpus = nodeagg_gpus_json(a), *g0 = json_array_get(gpus, 0), *g1 = json_array_get(gpus, 1);
    cr_assert_eq(json_integer_value(json_object_get(g0, "rank")), 2);
    /* a 200 ms phase holds 9 whole 20 ms samples (the one ending at its start belongs to the phase before) */
    cr_assert_geq(json_integer_value(json_object_get(g0, "compute_n")), 80, "%s", json_dumps(g0, 0));
    cr_assert_leq(json_integer_value(json_object_get(g0, "compute_n")), 100, "%s", json_dumps(g0, 0));
    cr_assert_gt(json_real_value(json_object_get(g0, "compute_p90_w")), 700);
    cr_assert_lt(json_real_value(json_object_get(g0, "comm_p10_w")), 300, "no sample spanning compute counts for comm");
    cr_assert(fabs(json_real_value(json_object_get(g0, "span_s")) - 0.02) < 1e-6, "%s", json_dumps(g0, 0));
    cr_assert_eq(json_integer_value(json_object_get(g1, "compute_n")), 0);
    cr_assert(json_is_null(json_object_get(g1, "compute_p90_w")));
    cr_assert(json_is_null(json_object_get(g0, "throttle")), "no row read the reasons: null, not \"0x0\": %s",
              json_dumps(g0, 0));
    json_decref(gpus);
    nodeagg_free(a);
    sink_free(&k);
}

/* A worker killed in a compute phase never ends it: what its node reads after the death (the GPU idle while the
 * worker restarts) is no compute phase's. */
Test(phasecov, a_death_or_a_recovery_ends_the_open_phase)
{
    struct phasecov *c = phasecov_new(2);
    cr_assert_eq(phasecov_resets("worker_died"), 1);
    cr_assert_eq(phasecov_resets("recovery_begin"), 2);
    cr_assert_eq(phasecov_resets("iteration"), 0);
    for (int r = 0; r < 2; r++)
        phasecov_edge(c, r, 1.0, "compute", 1);
    phasecov_reset(c, 0, 1.2);    /* rank 0's worker died */
    phasecov_reset(c, -1, 1.5);   /* then every rank's recovery */
    for (int i = 0; i <= 100; i++)
        for (int r = 0; r < 2; r++)
            phasecov_reading(c, r, 1.0 + 0.01 * i + 0.001, 1.0 + 0.01 * i, 100 + i);
    phasecov_reset(c, 5, 3.0);   /* no such rank: nothing */
    phasecov_settle(c);
    cr_assert_eq(phasecov_series(c, 0, PHC_COMPUTE)->n, 20u, "1.0 to 1.2 only");
    cr_assert_eq(phasecov_series(c, 1, PHC_COMPUTE)->n, 50u, "1.0 to 1.5 only");
    phasecov_free(c);
}
