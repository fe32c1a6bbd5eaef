/* harness/results/runcluster.c: the cluster's summed power on node 0 and its figures per run (runcluster.h). */
#include "runcluster.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_json.h"
#include "gridsum.h"
#include "runstats.h"
#include "util.h"

struct stretch {
    int run;
    double from_s, to_s;
    int projected;
    struct an_projection proj;
};

struct runcluster {
    struct gridsum *g;
    int nodes;
    double cell_s;
    double *t, *w;            /* the cells given out, in order */
    unsigned char *whole;
    int *gpus;
    size_t n, cap;
    struct stretch *runs;
    int nruns;
    void (*watch)(void *ctx, double t_s, double watts, int whole);
    void *watch_ctx;
};

static void take_cell(void *ctx, const struct gridsum_cell *cell)
{
    struct runcluster *c = ctx;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4096;
        c->t = xrealloc(c->t, c->cap * sizeof *c->t);
        c->w = xrealloc(c->w, c->cap * sizeof *c->w);
        c->whole = xrealloc(c->whole, c->cap * sizeof *c->whole);
        c->gpus = xrealloc(c->gpus, c->cap * sizeof *c->gpus);
    }
    c->t[c->n] = cell->t_s;
    c->w[c->n] = cell->watts;
    c->whole[c->n] = (unsigned char)cell->whole;
    c->gpus[c->n++] = cell->gpus;
    if (c->watch)
        c->watch(c->watch_ctx, cell->t_s, cell->watts, cell->whole);
}

void runcluster_watch(struct runcluster *c, void (*fn)(void *ctx, double t_s, double watts, int whole), void *ctx)
{
    if (!c)
        return;
    c->watch = fn;
    c->watch_ctx = ctx;
}

struct runcluster *runcluster_new(int nodes, double cell_s)
{
    if (nodes < 2 || !(cell_s > 0))
        return NULL;
    struct runcluster *c = xcalloc(1, sizeof *c);
    c->nodes = nodes;
    c->cell_s = cell_s;
    c->g = gridsum_new(nodes, cell_s, take_cell, c);
    return c;
}

void runcluster_expect(struct runcluster *c, int gpus)
{
    if (c)
        gridsum_expect(c->g, gpus);
}

void runcluster_free(struct runcluster *c)
{
    if (!c)
        return;
    gridsum_free(c->g);
    free(c->t), free(c->w), free(c->whole), free(c->gpus), free(c->runs);
    free(c);
}

void runcluster_row(struct runcluster *c, double t_s, int node, double watts, int gpus)
{
    if (c)
        gridsum_row(c->g, t_s, node, watts, gpus);
}

void runcluster_rows(struct runcluster *c, const char *text, size_t len)
{
    if (!c)
        return;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        char row[128];
        if (l < sizeof row) {
            memcpy(row, p, l);
            row[l] = 0;
            double t, w;
            int node, g;
            if (sscanf(row, "%lf,%d,%lf,%d", &t, &node, &w, &g) == 4)
                gridsum_row(c->g, t, node, w, g);
        }
        p += l;
    }
}

void runcluster_leave(struct runcluster *c, int node)
{
    if (c)
        gridsum_leave(c->g, node);
}

void runcluster_end(struct runcluster *c, int node)
{
    if (c)
        gridsum_end(c->g, node);
}

void runcluster_run(struct runcluster *c, int run, const struct rs_trace *t, double begin_s, const struct scenario *sc,
                    long gpus, long groups, double jitter_s)
{
    if (!c || !t || t->n < 2 || t->nranks < 1)
        return;
    c->runs = xrealloc(c->runs, (size_t)(c->nruns + 1) * sizeof *c->runs);
    struct stretch *s = &c->runs[c->nruns++];
    memset(s, 0, sizeof *s);
    s->run = run;
    s->from_s = begin_s + t->t_s[0];
    s->to_s = begin_s + t->t_s[t->n - 1];
    /* node 0's mean GPU at each tick, on the sampling grid, projected as a run's projection is */
    double *tt = xmalloc(t->n * sizeof *tt), *pg = xmalloc(t->n * sizeof *pg), *x = NULL;
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        double sum = 0;
        int ok = 1;
        for (int r = 0; r < t->nranks; r++) {
            double w = t->w[(size_t)r * t->n + i];
            ok &= isfinite(w);
            sum += w;
        }
        if (ok) {
            tt[k] = t->t_s[i];
            pg[k++] = sum / t->nranks;
        }
    }
    double dt = sc->power.sample_hz > 0 ? 1.0 / sc->power.sample_hz : 0;
    size_t m = dt > 0 && k >= 2 ? analysis_resample(tt, pg, k, dt, &x) : 0;
    if (m >= 2) {
        struct an_series ps = { x, m, dt, 0, 0 };
        s->projected = analysis_project(&ps, gpus, groups, jitter_s, (unsigned long long)sc->seed, an_default_bands, 4,
                                        &s->proj) == 0;
    }
    free(x), free(tt), free(pg);
}

void runcluster_span(struct runcluster *c, int run, double from_s, double to_s)
{
    if (!c || !(to_s > from_s))
        return;
    c->runs = xrealloc(c->runs, (size_t)(c->nruns + 1) * sizeof *c->runs);
    c->runs[c->nruns++] = (struct stretch){ .run = run, .from_s = from_s, .to_s = to_s };
}

/* The figures of the sum over one run's stretch: read through the GPUs' sensors (update_s: node 0's GPUs' update
 * interval, their aggregate's; 0 unknown), so that what they cannot resolve is null and named there as in each node's
 * figures (the cells' means alone read a 20 ms sensor's sum as a 10 ms one: a 10 ms ramp it never saw); period_s:
 * the iteration's, as the run's own figures take it. */
static json_t *stretch_json(const struct runcluster *c, const struct stretch *s, double tdp_w, double uncert_s,
                            double update_s, double period_s)
{
    double i0 = ceil(s->from_s / c->cell_s - 1e-9), i1 = floor(s->to_s / c->cell_s + 1e-9);
    if (!(i1 >= i0 + 1) || i1 - i0 > 1e8)
        return json_null();
    size_t m = (size_t)(i1 - i0) + 1, whole = 0;
    double *x = xmalloc(m * sizeof *x);
    int gpus = 0;
    for (size_t i = 0; i < m; i++)
        x[i] = NAN;   /* a cell not whole (a node missing) is a gap, never a partial sum */
    for (size_t j = 0; j < c->n; j++) {
        double at = round(c->t[j] / c->cell_s) - i0;
        if (at < 0 || at >= (double)m || !c->whole[j])
            continue;
        x[(size_t)at] = c->w[j];
        whole++;
        gpus = c->gpus[j] > gpus ? c->gpus[j] : gpus;
    }
    struct an_result res;
    struct an_series ser = { x, m, c->cell_s, update_s > c->cell_s * (1 + 1e-9) ? update_s : 0, period_s > 0 ? period_s : 0 };
    json_t *o;
    if (whole >= 2 && analysis_run(&ser, an_default_bands, 4, &res) == 0)
        o = analysis_power_json(&res, tdp_w > 0 && gpus > 0 ? tdp_w * gpus : NAN);
    else
        o = json_object();
    free(x);
    json_object_set_new(o, "nodes", json_integer(c->nodes));
    json_object_set_new(o, "gpus", json_integer(gpus));
    json_object_set_new(o, "cells", json_integer((json_int_t)m));
    json_object_set_new(o, "whole_cells", json_integer((json_int_t)whole));
    json_object_set_new(o, "error", json_pack("{s:o, s:o, s:o, s:s}", "cell_s", json_num(c->cell_s), "clock_uncertainty_s",
                                              json_num(uncert_s), "highest_hz", json_num(0.5 / c->cell_s), "says",
                                              "each node's power is its mean over each cell, placed on node 0's timeline "
                                              "through its measured clock offset: changes faster than highest_hz are "
                                              "not in the sum, ramps are resolved to cell_s (and to what the GPUs' "
                                              "sensors resolve: sensor, unresolved), and a node's edges may be off by "
                                              "up to clock_uncertainty_s"));
    double measured = json_number_value(json_object_get(o, "swing_w"));
    if (s->projected) {
        json_t *p = json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "gpus", (json_int_t)s->proj.gpus, "groups",
                              (json_int_t)s->proj.groups, "jitter_s", json_num(s->proj.jitter_s), "mean_w",
                              json_num(s->proj.mean_mw * 1e6), "swing_w", json_num(s->proj.swing_mw * 1e6), "ramp_up_w_s",
                              json_num(s->proj.ramp_up_mw_s * 1e6), "ramp_down_w_s", json_num(s->proj.ramp_down_mw_s * 1e6));
        json_object_set_new(p, "swing_ratio", json_num(measured > 0 ? s->proj.swing_mw * 1e6 / measured : NAN));
        json_object_set_new(o, "projected", p);
    } else {
        json_object_set_new(o, "projected", json_null());
    }
    return o;
}

void runcluster_json(struct runcluster *c, json_t *summary, const struct scenario *sc, double tdp_w,
                     double clock_uncertainty_s)
{
    (void)sc;
    if (!c)
        return;
    gridsum_flush(c->g);
    json_t *runs = json_object_get(summary, "runs"), *run;
    size_t i;
    json_array_foreach(runs, i, run) {
        json_t *power = json_object_get(run, "power");
        int id = (int)json_integer_value(json_object_get(run, "run"));
        if (!json_is_object(power))
            continue;
        json_t *sensor = json_object_get(json_object_get(power, "aggregate"), "sensor");
        double update_s = json_number_value(json_object_get(sensor, "update_ms")) * 1e-3,
               period_s = json_number_value(json_object_get(json_object_get(run, "iteration_s"), "p50"));
        for (int k = 0; k < c->nruns; k++)
            if (c->runs[k].run == id) {
                json_object_set_new(power, "cluster",
                                    stretch_json(c, &c->runs[k], tdp_w, clock_uncertainty_s, update_s, period_s));
                break;
            }
    }
}
