/* harness/run/progress.c: the headless progress lines, a view like the live one: it reads the same event
 * lines and power rows (struct view_link) and prints, at most every 2 s, the run, the slowest rank's iteration,
 * the rate since the last line of this run, a bar of the run's progress and the time left (every run's remaining
 * iterations at this run's rate so far), the power summed over ranks with its range so far, and the events. */
#include "progress.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define PROGRESS_EVERY_NS 2000000000ull

struct progress {
    struct view_link link;
    int ranks, runs, run;          /* ranks over every node; the run in progress (-1 before the first) */
    char label[64];
    int64_t iterations;
    int64_t *done;                 /* per rank: iterations done (-1: dropped by shrink) */
    double *w;                     /* per rank: the last power reading */
    double lo, hi;                 /* the summed power's range this run */
    unsigned long long events;
    uint64_t last_ns;              /* when the last line was printed (0: none yet this run) */
    uint64_t run_ns;               /* when this run began (its rate so far gives the time left) */
    int64_t last_done;
    int per_node;                  /* ranks per node (from the start event) */
    int cluster_fed;               /* forward: nodes: the sum is the cluster's on node 0's grid, not the ranks' */
    double cluster_w;              /* its last whole cell */
    int powered;                   /* a power reading came (none with power.sample_hz: 0) */
};

static int64_t slowest(const struct progress *p)
{
    int64_t it = INT64_MAX;
    for (int r = 0; r < p->ranks; r++)
        if (p->done[r] >= 0 && p->done[r] < it)
            it = p->done[r];
    return it == INT64_MAX ? 0 : it;
}

static void grow(struct progress *p, int ranks)
{
    if (ranks <= p->ranks)
        return;
    p->done = xrealloc(p->done, (size_t)ranks * sizeof *p->done);
    p->w = xrealloc(p->w, (size_t)ranks * sizeof *p->w);
    for (int r = p->ranks; r < ranks; r++) {
        p->done[r] = 0;
        p->w[r] = NAN;
    }
    p->ranks = ranks;
}

/* The node's power now: every rank's reading summed; NAN where a rank has none (a failed poll, none yet), never a
 * sum that reads it as 0 W. */
static double node_sum(const struct progress *p)
{
    double sum = 0;
    for (int r = 0; r < p->ranks; r++)
        sum += p->w[r];
    return sum;
}

static void print_line(struct progress *p, uint64_t now)
{
    int64_t it = slowest(p);
    double dt = (double)(now - p->last_ns) * 1e-9, sum = node_sum(p);
    if (p->cluster_fed)
        sum = p->cluster_w;
    /* the time left: this run's iterations and the later runs' at this run's rate so far (as the live view's header) */
    double run_s = (double)(now - p->run_ns) * 1e-9, rate = run_s > 0 ? (double)it / run_s : 0;
    double left = (double)(p->iterations - it) + (double)(p->runs - p->run - 1) * (double)p->iterations;
    char bar[16], eta[32] = "eta -";
    int fill = p->iterations > 0 ? (int)(10 * it / p->iterations) : 0;
    for (int i = 0; i < 10; i++)
        bar[i] = i < fill ? '#' : '-';
    bar[10] = 0;
    if (rate > 0 && it > 0) {
        long s = lround(left / rate);
        snprintf(eta, sizeof eta, "eta %02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    }
    /* the rate counts this run's iterations only: the first line of a run has no earlier one to count from, and
     * after a rollback (the slowest rank went back) the count since the last line is not the iterations run: "-" */
    char rs[24] = "-";
    if (p->last_ns && dt > 0 && it >= p->last_done)
        snprintf(rs, sizeof rs, "%.1f", (double)(it - p->last_done) / dt);
    char pw[64] = "power -";   /* no reading yet, or sampling off (power.sample_hz: 0) */
    if (p->powered && isfinite(sum))
        snprintf(pw, sizeof pw, "power %.0f W [%.0f, %.0f]", sum, isfinite(p->lo) ? p->lo : sum,
                 isfinite(p->hi) ? p->hi : sum);
    else if (p->powered && isfinite(p->lo))
        snprintf(pw, sizeof pw, "power - W [%.0f, %.0f]", p->lo, p->hi);   /* a rank's reading missing now */
    printf("%s: run %d/%d %-8s iter %lld/%lld  %s it/s  [%s] %3d%%  %s  %s  events %llu\n", gl_tag(), p->run + 1,
           p->runs, p->label, (long long)it, (long long)p->iterations, rs, bar,
           p->iterations > 0 ? (int)(100 * it / p->iterations) : 0, eta, pw, p->events);
    fflush(stdout);
    p->last_done = it;
    p->last_ns = now;
}

static void pv_event(void *ctx, const char *line, size_t len)
{
    struct progress *p = ctx;
    p->events++;
    /* most lines are phase edges: only these four are read (parsing every line would cost the loop) */
    if (!memmem(line, len, "\"event\":\"iteration\"", 19) && !memmem(line, len, "\"event\":\"run_begin\"", 19) &&
        !memmem(line, len, "\"event\":\"start\"", 15) && !memmem(line, len, "\"event\":\"rank_dropped\"", 22) &&
        !memmem(line, len, "\"event\":\"node_iteration\"", 24))
        return;
    json_error_t err;
    json_t *e = json_loadb(line, len, 0, &err);
    const char *type = e ? json_string_value(json_object_get(e, "event")) : NULL;
    int rank = (int)json_integer_value(json_object_get(e, "rank"));
    int node = (int)json_integer_value(json_object_get(e, "node"));
    if (!type) {
        json_decref(e);
        return;
    }
    if (strcmp(type, "start") == 0 && node == 0) {
        json_int_t nodes = json_integer_value(json_object_get(e, "nodes"));
        p->per_node = (int)json_integer_value(json_object_get(e, "ranks"));
        const char *fw = json_string_value(json_object_get(e, "forward"));
        p->cluster_fed = fw && strcmp(fw, "nodes") == 0;
        grow(p, p->per_node * (int)(nodes > 0 ? nodes : 1));
        p->runs = (int)json_integer_value(json_object_get(e, "runs"));
    } else if (strcmp(type, "run_begin") == 0 && node == 0) {
        p->run = (int)json_integer_value(json_object_get(e, "run"));
        if (p->run + 1 > p->runs)   /* a search's second pass adds runs */
            p->runs = p->run + 1;
        const char *l = json_string_value(json_object_get(e, "label"));
        str_copy(p->label, sizeof p->label, l ? l : "");
        p->iterations = json_integer_value(json_object_get(e, "iterations"));
        for (int r = 0; r < p->ranks; r++)
            p->done[r] = p->done[r] < 0 ? -1 : 0;
        p->lo = INFINITY;
        p->hi = -INFINITY;
        p->last_ns = 0;
        p->last_done = 0;
        p->run_ns = mono_ns();
    } else if (strcmp(type, "iteration") == 0 && rank >= 0) {
        grow(p, rank + 1);
        if (p->done[rank] >= 0)
            p->done[rank] = json_integer_value(json_object_get(e, "iter")) + 1;
    } else if (strcmp(type, "node_iteration") == 0 && node >= 0 && node < 1 << 16 && p->per_node > 0) {   /* forward: nodes */
        grow(p, (node + 1) * p->per_node);
        for (int r = node * p->per_node; r < (node + 1) * p->per_node; r++)
            if (p->done[r] >= 0)
                p->done[r] = json_integer_value(json_object_get(e, "iter")) + 1;
    } else if (strcmp(type, "rank_dropped") == 0 && rank >= 0) {
        grow(p, rank + 1);
        p->done[rank] = -1;
    }
    int iter = strcmp(type, "iteration") == 0 || strcmp(type, "node_iteration") == 0;
    json_decref(e);
    /* the line every 2 s also without power rows (sampling off: until 2026-11-30 no line came before the end) */
    uint64_t now = mono_ns();
    if (iter && p->run >= 0 && (!p->last_ns || now - p->last_ns >= PROGRESS_EVERY_NS))
        print_line(p, now);
}

static void pv_power(void *ctx, double t_s, int rank, const struct power_reading *pr, int phase)
{
    (void)t_s, (void)phase;
    struct progress *p = ctx;
    if (rank < 0)
        return;
    grow(p, rank + 1);
    p->w[rank] = pr->watts;
    p->powered = 1;
    if (rank == p->ranks - 1 && !p->cluster_fed) {   /* a tick's rows are in: the sum's range (a tick a rank is
                                                      * missing from is no sum: until 2026-12-01 a dip to its 0 W) */
        double sum = node_sum(p);
        if (isfinite(sum)) {
            p->lo = fmin(p->lo, sum);
            p->hi = fmax(p->hi, sum);
        }
    }
    uint64_t now = mono_ns();
    if (p->run >= 0 && (!p->last_ns || now - p->last_ns >= PROGRESS_EVERY_NS))
        print_line(p, now);
}

/* forward: nodes: the cluster's sum on node 0's grid is the sum (a cell a node is missing from is no sum). */
static void pv_cluster_power(void *ctx, double t_s, double watts, int whole)
{
    (void)t_s;
    struct progress *p = ctx;
    p->cluster_fed = 1;
    if (!whole)
        return;
    p->cluster_w = watts;
    p->powered = 1;
    p->lo = fmin(p->lo, watts);
    p->hi = fmax(p->hi, watts);
}

static int pv_command(void *ctx, struct view_cmd *out)
{
    (void)ctx, (void)out;
    return 0;   /* no keys: a headless run is stopped by a signal */
}

static void pv_stop(void *ctx) { (void)ctx; }

const struct view_link *progress_view_open(void)
{
    struct progress *p = xcalloc(1, sizeof *p);
    p->run = -1;
    p->lo = INFINITY;
    p->hi = -INFINITY;
    p->link = (struct view_link){ .ctx = p, .event = pv_event, .power = pv_power, .command = pv_command, .stop = pv_stop,
                                  .cluster_power = pv_cluster_power };
    return &p->link;
}

void progress_view_close(const struct view_link *v)
{
    struct progress *p = v ? v->ctx : NULL;
    if (!p)
        return;
    free(p->done);
    free(p->w);
    free(p);
}
