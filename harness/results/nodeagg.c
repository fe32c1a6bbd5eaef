/* harness/results/nodeagg.c: a node's per-iteration events folded into node_iteration lines and its GPUs' power
 * summed on node 0's time grid (nodeagg.h). */
#include "nodeagg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_json.h"
#include "phasecov.h"
#include "stats.h"
#include "util.h"

const char nodeagg_power_header[] = "t_s,node,watts,gpus\n";

struct ph_sum {
    double s, flops, bytes;   /* time in the phase, flops done, bytes moved (per rank: summed over the iteration's
                               * phases of the kind) */
    double bus;               /* the steps' own bus bytes (workload.phases: a step that ran alone says them) */
};

struct rank_state {
    int64_t run, iter;                 /* the iteration its phases belong to (-1: none yet) */
    double begin[NODEAGG_PHASES];      /* the open phase's start (NaN: none open) */
    struct ph_sum ph[NODEAGG_PHASES];
    double cell_w;                     /* watts summed over the cell being filled */
    int cell_n;                        /* readings in it */
    double held_w;                     /* the last reading (NaN: none yet) */
    int64_t held_cell;                 /* the cell it came in */
    uint64_t throttle;
    int throttle_rows;
};

struct entry {
    int used;
    int64_t run, iter;
    int ranks;                         /* ranks whose iteration event came */
    double t_s, dur_max, dur_min;
    int slowest;                       /* global rank of dur_max */
    struct ph_sum ph[NODEAGG_PHASES];  /* s and bytes: the largest of the ranks'; flops: their sum */
    unsigned ph_seen;                  /* bit p: a rank had phase p */
};

struct nodeagg {
    int node, ranks, first_rank, expected;
    double cell_s;
    double hold_s;                     /* how long a GPU's last reading stands in for the ones it lacks (nodeagg_hold) */
    nodeagg_emit emit;
    void *ctx;
    char names[NODEAGG_PHASES][16];
    int nnames;
    struct rank_state *rk;
    struct phasecov *cov;              /* the readings that are a phase's, for the acceptance figures */
    struct entry pend[NODEAGG_PENDING];
    int64_t top_run, top_iter;         /* the newest iteration ended by any rank */
    int64_t cell;                      /* the power cell being filled (INT64_MIN: none) */
    int compact;                       /* cells to a compact line (0: a row per cell) */
    int64_t run_first;                 /* the compact line being filled: its first cell, GPUs, watts */
    int run_gpus, run_n;
    double *run_w;
    uint64_t lines[2], bytes[2];
};

static void rank_reset(struct rank_state *r, int64_t run, int64_t iter)
{
    r->run = run;
    r->iter = iter;
    for (int p = 0; p < NODEAGG_PHASES; p++) {
        r->begin[p] = NAN;
        r->ph[p] = (struct ph_sum){ 0, 0, 0, 0 };
    }
}

struct nodeagg *nodeagg_new(int node, int ranks, int first_rank, double cell_s, nodeagg_emit emit, void *ctx)
{
    if (ranks < 1 || !emit)
        return NULL;
    struct nodeagg *a = xcalloc(1, sizeof *a);
    a->node = node;
    a->ranks = a->expected = ranks;
    a->first_rank = first_rank;
    a->cell_s = isfinite(cell_s) && cell_s > 0 ? cell_s : 0;
    a->hold_s = INFINITY;
    a->emit = emit;
    a->ctx = ctx;
    a->rk = xcalloc((size_t)ranks, sizeof *a->rk);
    a->cov = phasecov_new(ranks);
    for (int i = 0; i < ranks; i++) {
        rank_reset(&a->rk[i], -1, -1);
        a->rk[i].held_w = NAN;
    }
    a->top_run = a->top_iter = -1;
    a->cell = INT64_MIN;
    return a;
}

void nodeagg_free(struct nodeagg *a)
{
    if (!a)
        return;
    free(a->run_w);
    phasecov_free(a->cov);
    free(a->rk);
    free(a);
}

static void put(struct nodeagg *a, int stream, const char *text, size_t len)
{
    a->lines[stream]++;
    a->bytes[stream] += len;
    a->emit(a->ctx, stream, text, len);
}

/* Returns the index of phase name (new names take the next slot; past the last, the last). */
static int phase_index(struct nodeagg *a, const char *name)
{
    for (int p = 0; p < a->nnames; p++)
        if (strcmp(a->names[p], name) == 0)
            return p;
    if (a->nnames == NODEAGG_PHASES)
        return NODEAGG_PHASES - 1;
    str_copy(a->names[a->nnames], sizeof a->names[0], name);
    return a->nnames++;
}

static void entry_emit(struct nodeagg *a, struct entry *e)
{
    json_t *phases = json_object();
    for (int p = 0; p < a->nnames; p++) {
        if (!(e->ph_seen & (1u << p)))
            continue;
        json_t *o = json_pack("{s:f}", "s", e->ph[p].s);
        if (e->ph[p].flops > 0)
            json_object_set_new(o, "flops", json_real(e->ph[p].flops));
        if (e->ph[p].bytes > 0)
            json_object_set_new(o, "bytes", json_real(e->ph[p].bytes));
        if (e->ph[p].bus > 0)   /* the live metrics' bus bandwidth of another node's steps */
            json_object_set_new(o, "bus_bytes", json_real(e->ph[p].bus));
        json_object_set_new(phases, a->names[p], o);
    }
    int said = isfinite(e->dur_max);   /* no rank said its duration: null (until 2026-12-01 0, read live as 0 s) */
    json_t *line = json_pack("{s:f, s:s, s:i, s:I, s:I, s:i, s:o, s:o, s:o, s:o}", "t_s", round(e->t_s * 1e6) / 1e6,
                             "event", "node_iteration", "node", a->node, "run", (json_int_t)e->run, "iter",
                             (json_int_t)e->iter, "ranks", e->ranks, "dur_s", said ? json_real(e->dur_max) : json_null(),
                             "dur_min_s", said ? json_real(e->dur_min) : json_null(), "slowest",
                             said ? json_integer(e->slowest) : json_null(), "phases", phases);   /* (rank 0 once) */
    e->used = 0;
    /* 15 digits as every event line: t_s keeps its µs (until 2026-11-30 7 digits: 10 ms after 2.8 hours) */
    char *text = line ? json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(line);
    if (!text)
        return;
    size_t len = strlen(text);
    text[len] = '\n';   /* json_dumps leaves room: the terminator becomes the newline */
    put(a, 0, text, len + 1);
    free(text);
}

/* Returns whether (run, iter) comes before (run2, iter2). */
static int before(int64_t run, int64_t iter, int64_t run2, int64_t iter2)
{
    return run < run2 || (run == run2 && iter < iter2);
}

/* Ends the pending iterations in order, all of them or those NODEAGG_LAG behind the newest. */
static void pending_end(struct nodeagg *a, int all)
{
    for (;;) {
        struct entry *old = NULL;
        for (int i = 0; i < NODEAGG_PENDING; i++) {
            struct entry *e = &a->pend[i];
            if (e->used && (!old || before(e->run, e->iter, old->run, old->iter)))
                old = e;
        }
        if (!old || (!all && old->run == a->top_run && old->iter > a->top_iter - NODEAGG_LAG))
            return;
        entry_emit(a, old);
    }
}

static struct entry *entry_for(struct nodeagg *a, int64_t run, int64_t iter)
{
    struct entry *free_slot = NULL, *old = NULL;
    for (int i = 0; i < NODEAGG_PENDING; i++) {
        struct entry *e = &a->pend[i];
        if (e->used && e->run == run && e->iter == iter)
            return e;
        if (!e->used && !free_slot)
            free_slot = e;
        if (e->used && (!old || before(e->run, e->iter, old->run, old->iter)))
            old = e;
    }
    if (!free_slot) {   /* more iterations under way than slots: the oldest ends with the ranks it has */
        entry_emit(a, old);
        free_slot = old;
    }
    memset(free_slot, 0, sizeof *free_slot);
    free_slot->used = 1;
    free_slot->run = run;
    free_slot->iter = iter;
    free_slot->dur_min = INFINITY;
    free_slot->dur_max = -INFINITY;
    return free_slot;
}

static void fold_iteration(struct nodeagg *a, double t_s, int local, int64_t run, int64_t iter, double dur)
{
    struct rank_state *r = &a->rk[local];
    struct entry *e = entry_for(a, run, iter);
    e->ranks++;
    e->t_s = e->ranks == 1 || t_s > e->t_s ? t_s : e->t_s;
    if (isfinite(dur)) {
        if (dur > e->dur_max) {
            e->dur_max = dur;
            e->slowest = local + a->first_rank;
        }
        if (dur < e->dur_min)
            e->dur_min = dur;
    }
    if (r->run == run && r->iter == iter)
        for (int p = 0; p < a->nnames; p++) {
            const struct ph_sum *q = &r->ph[p];
            if (q->s <= 0 && q->flops <= 0 && q->bytes <= 0)
                continue;
            e->ph_seen |= 1u << p;
            e->ph[p].s = fmax(e->ph[p].s, q->s);
            e->ph[p].bytes = fmax(e->ph[p].bytes, q->bytes);
            e->ph[p].bus = fmax(e->ph[p].bus, q->bus);
            e->ph[p].flops += q->flops;
        }
    rank_reset(r, -1, -1);
    if (before(a->top_run, a->top_iter, run, iter))
        a->top_run = run, a->top_iter = iter;
    if (e->ranks >= a->expected)
        entry_emit(a, e);
    pending_end(a, 0);
}

int nodeagg_event(struct nodeagg *a, double t_s, const char *type, const json_t *line)
{
    if (!a || !type)
        return 0;
    int begin = strcmp(type, "phase_begin") == 0, end = strcmp(type, "phase_end") == 0,
        iter_ev = strcmp(type, "iteration") == 0;
    int resets = phasecov_resets(type);   /* a phase a worker's death or a recovery ended without its phase_end */
    json_t *rr = json_object_get(line, "rank");
    if (resets == 2)
        phasecov_reset(a->cov, -1, t_s);
    else if (resets == 1 && json_is_integer(rr) && json_integer_value(rr) >= a->first_rank &&
             json_integer_value(rr) < a->first_rank + a->ranks)
        phasecov_reset(a->cov, (int)(json_integer_value(rr) - a->first_rank), t_s);
    if (!begin && !end && !iter_ev) {
        if (strcmp(type, "run_end") == 0 || strcmp(type, "recovery_begin") == 0 || strcmp(type, "end") == 0 ||
            strcmp(type, "rank_dropped") == 0 || strcmp(type, "run_begin") == 0)
            pending_end(a, 1);
        json_t *dr = json_object_get(line, "rank");   /* shrink goes on without a rank of this node */
        if (strcmp(type, "rank_dropped") == 0 && json_is_integer(dr) && json_integer_value(dr) >= a->first_rank &&
            json_integer_value(dr) < a->first_rank + a->ranks && a->expected > 1)
            a->expected--;   /* for good: the rest of the run goes on without it */
        return 0;
    }
    json_t *rk = json_object_get(line, "rank"), *run = json_object_get(line, "run"), *it = json_object_get(line, "iter");
    if (!json_is_integer(rk) || !json_is_integer(run) || !json_is_integer(it))
        return 0;   /* not one of a rank's: goes on as it is */
    json_int_t local = json_integer_value(rk) - a->first_rank;
    if (local < 0 || local >= a->ranks)
        return 0;
    int64_t rn = json_integer_value(run), in = json_integer_value(it);
    struct rank_state *r = &a->rk[local];
    if (iter_ev) {
        fold_iteration(a, t_s, (int)local, rn, in, json_num_value(json_object_get(line, "dur_s")));   /* none: NAN */
        return 1;
    }
    const char *ph = json_string_value(json_object_get(line, "phase"));
    if (!ph)
        return 0;
    phasecov_edge(a->cov, (int)local, t_s, ph, begin);
    if (r->run != rn || r->iter != in)   /* a new iteration for this rank: what an unfinished one held is dropped */
        rank_reset(r, rn, in);
    int p = phase_index(a, ph);
    if (begin) {
        r->begin[p] = t_s;
        return 1;
    }
    if (isfinite(r->begin[p]) && t_s >= r->begin[p])
        r->ph[p].s += t_s - r->begin[p];
    r->begin[p] = NAN;
    double flops = json_number_value(json_object_get(line, "flops")), bytes = json_number_value(json_object_get(line, "bytes"));
    if (isfinite(flops) && flops > 0)
        r->ph[p].flops += flops;
    if (isfinite(bytes) && bytes > 0)
        r->ph[p].bytes += bytes;
    double bus = json_number_value(json_object_get(line, "bus_bytes"));
    if (isfinite(bus) && bus > 0)
        r->ph[p].bus += bus;
    return 1;
}

void nodeagg_compact(struct nodeagg *a, int max_cells)
{
    if (!a || max_cells < 1)
        return;
    a->compact = max_cells;
    a->run_w = xrealloc(a->run_w, (size_t)max_cells * sizeof *a->run_w);
    a->run_n = 0;
}

/* Sends the compact line being filled. */
static void run_end(struct nodeagg *a)
{
    if (!a->run_n)
        return;
    size_t cap = 48 + (size_t)a->run_n * 16, at = 0;
    char *line = xmalloc(cap);
    at += (size_t)snprintf(line, cap, "%d,%lld,%d", a->node, (long long)a->run_first, a->run_gpus);
    for (int i = 0; i < a->run_n && at < cap; i++)
        at += (size_t)snprintf(line + at, cap - at, ",%.1f", a->run_w[i]);
    if (at + 1 < cap) {
        line[at++] = '\n';
        put(a, 1, line, at);
    }
    free(line);
    a->run_n = 0;
}

/* Reads a compact line's cell values from q (",W,W,...", up to nl) into w (at most max); their count, or -1 when one
 * is not a number in range (empty, "nan", beyond 10^9 W: until 2026-11-30 read as 0 W, or formatted past the
 * buffer) or the line does not end after them. */
static long line_cells(const char *q, const char *nl, double *w, long max)
{
    long n = 0;
    while (q < nl && *q == ',') {
        char *e;
        double x = strtod(q + 1, &e);
        if (e == q + 1 || e > nl || !isfinite(x) || fabs(x) > 1e9 || n == max)
            return -1;
        w[n++] = x;
        q = e;
    }
    return q == nl ? n : -1;
}

int nodeagg_rows(const char *text, size_t len, double cell_s,
                 void (*row)(void *ctx, double t_s, int node, double watts, int gpus), void *ctx)
{
    int cells = 0, bad = 0;
    long max = 0;
    double *w = NULL;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            bad = 1;
            break;
        }
        char *q;
        long node = strtol(p, &q, 10);
        int has_first = q < nl && *q == ',';
        long long first = has_first ? strtoll(q + 1, &q, 10) : 0;
        long gpus = q < nl && *q == ',' ? strtol(q + 1, &q, 10) : -1;
        long n = (long)(nl - q);   /* at most this many cells: each takes a comma */
        if (n > max) {
            w = xrealloc(w, (size_t)n * sizeof *w);
            max = n;
        }
        /* a line read whole before any of its rows is taken: a bad one is left out entirely, the next read on */
        if (q >= nl || *q != ',' || node < 0 || node > 1000000 || !has_first || llabs(first) > 1LL << 50 || gpus < 0 ||
            gpus > 1 << 20 || (n = line_cells(q, nl, w, max)) < 0) {
            bad = 1;
            p = nl + 1;
            continue;
        }
        for (long i = 0; i < n; i++, cells++)
            row(ctx, (double)(first + i) * cell_s, (int)node, w[i], (int)gpus);
        p = nl + 1;
    }
    free(w);
    return bad ? -1 : cells;
}

/* Emits the cell being filled: the sum over the node's GPUs of each one's mean reading in it (a GPU without a
 * reading in the cell counts with its last one, for hold_s at most: past it, as one never read, it is not counted
 * and gpus says so; until 2026-12-02 a GPU whose readings stopped stood in the sum at its last one for good). */
static void cell_end(struct nodeagg *a)
{
    if (a->cell == INT64_MIN)
        return;
    double w = 0;
    int gpus = 0;
    for (int i = 0; i < a->ranks; i++) {
        struct rank_state *r = &a->rk[i];
        double x = r->cell_n ? r->cell_w / r->cell_n
                 : (double)(a->cell - r->held_cell) * a->cell_s <= a->hold_s ? r->held_w : NAN;
        if (isfinite(x)) {
            w += x;
            gpus++;
        }
        r->cell_w = 0;
        r->cell_n = 0;
    }
    if (gpus && a->compact) {   /* onto the compact line, or a new one where the cells break off */
        if (a->run_n && (a->cell != a->run_first + a->run_n || gpus != a->run_gpus || a->run_n == a->compact))
            run_end(a);
        if (!a->run_n) {
            a->run_first = a->cell;
            a->run_gpus = gpus;
        }
        a->run_w[a->run_n++] = w;
    } else if (gpus) {
        char row[96];
        int len = snprintf(row, sizeof row, "%.6f,%d,%.2f,%d\n", (double)a->cell * a->cell_s, a->node, w, gpus);
        if (len > 0 && (size_t)len < sizeof row)
            put(a, 1, row, (size_t)len);
    }
    a->cell = INT64_MIN;
}

void nodeagg_power(struct nodeagg *a, double t_s, int rank, double watts)
{
    if (!a || a->cell_s <= 0 || rank < 0 || rank >= a->ranks || !isfinite(t_s))
        return;
    double c = floor(t_s / a->cell_s);
    if (!(fabs(c) < 9e15))
        return;
    int64_t cell = (int64_t)c;
    if (a->cell != INT64_MIN && cell > a->cell)   /* the supervisor samples every GPU at once: the cell before is whole */
        cell_end(a);
    if (a->cell == INT64_MIN)
        a->cell = cell;
    struct rank_state *r = &a->rk[rank];
    if (isfinite(watts)) {   /* a late reading (an earlier cell) counts in this one */
        r->cell_w += watts;
        r->cell_n++;
        r->held_w = watts;
        r->held_cell = cell;
    }
}

void nodeagg_hold(struct nodeagg *a, double hold_s)
{
    if (a && hold_s > 0)
        a->hold_s = hold_s;
}

void nodeagg_flush(struct nodeagg *a)
{
    if (!a)
        return;
    pending_end(a, 1);
    cell_end(a);
    run_end(a);
}

void nodeagg_flush_power(struct nodeagg *a)
{
    if (!a)
        return;
    cell_end(a);
    run_end(a);
}

void nodeagg_sample(struct nodeagg *a, int rank, double t_s, double stamp_s, double watts, uint64_t throttle, int read)
{
    if (!a || rank < 0 || rank >= a->ranks)
        return;
    struct rank_state *r = &a->rk[rank];
    phasecov_reading(a->cov, rank, t_s, stamp_s, watts);
    if (read) {
        r->throttle |= throttle;
        r->throttle_rows++;
    }
}

json_t *nodeagg_gpus_json(struct nodeagg *a)
{
    if (!a)
        return NULL;
    json_t *out = json_array();
    phasecov_settle(a->cov);
    for (int i = 0; i < a->ranks; i++) {
        struct rank_state *r = &a->rk[i];
        char thr[24];   /* no row read the reasons: null, never "0x0", none (accept skips it either way) */
        snprintf(thr, sizeof thr, "0x%llx", (unsigned long long)r->throttle);
        struct series *cw = phasecov_series(a->cov, i, PHC_COMPUTE), *mw = phasecov_series(a->cov, i, PHC_COMM);
        double hi = series_pct(cw, 90), lo = series_pct(mw, 10), span = phasecov_span_s(a->cov, i);
        json_array_append_new(out, json_pack("{s:i, s:o, s:I, s:o, s:I, s:o, s:o, s:i}", "rank", a->first_rank + i,
                                             "compute_p90_w", isfinite(hi) ? json_real(hi) : json_null(), "compute_n",
                                             (json_int_t)cw->n, "comm_p10_w", isfinite(lo) ? json_real(lo) : json_null(),
                                             "comm_n", (json_int_t)mw->n, "span_s",
                                             isfinite(span) ? json_real(span) : json_null(), "throttle",
                                             r->throttle_rows ? json_string(thr) : json_null(),
                                             "throttle_rows", r->throttle_rows));
    }
    return out;
}

void nodeagg_stats(const struct nodeagg *a, uint64_t lines[2], uint64_t bytes[2])
{
    for (int s = 0; s < 2; s++) {
        lines[s] = a ? a->lines[s] : 0;
        bytes[s] = a ? a->bytes[s] : 0;
    }
}
