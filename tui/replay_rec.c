/* tui/replay_rec.c: the record `gauntlet view` replays, read as a stream (replay.h; opened by replay_open.c). Feeding
 * to t reads each power file until it has read past t by its disorder (measured when opened), so every row at or
 * before t is in the window (a heap by time, ties in file order), and takes the events (in their file's order) and
 * the window's rows in time order. A model is kept each time the feed crosses a multiple of the keeping interval,
 * with the streams' state there (offsets, the window, the cluster sum's cells still out); a seek back (or far
 * forward) starts from the latest kept one at or before its time. */
#include "replay_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "analysis.h"
#include "util.h"

static int row_before(const struct prow *a, const struct prow *b)
{
    return a->t < b->t || (a->t == b->t && a->key < b->key);
}

static void heap_push(struct replay *rp, struct prow p)
{
    if (rp->nheap == rp->hcap) {
        rp->hcap = rp->hcap ? 2 * rp->hcap : 256;
        rp->heap = xrealloc(rp->heap, rp->hcap * sizeof *rp->heap);
    }
    size_t i = rp->nheap++;
    for (; i > 0 && row_before(&p, &rp->heap[(i - 1) / 2]); i = (i - 1) / 2)
        rp->heap[i] = rp->heap[(i - 1) / 2];
    rp->heap[i] = p;
    if (rp->nheap > rp->hmax)
        rp->hmax = rp->nheap;
}

static struct prow heap_pop(struct replay *rp)
{
    struct prow top = rp->heap[0], last = rp->heap[--rp->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= rp->nheap)
            break;
        if (c + 1 < rp->nheap && row_before(&rp->heap[c + 1], &rp->heap[c]))
            c++;
        if (!row_before(&rp->heap[c], &last))
            break;
        rp->heap[i] = rp->heap[c];
        i = c;
    }
    if (rp->nheap)
        rp->heap[i] = last;
    return top;
}

/* The next line of s (its length; 0 at the record's end), cut at the end it had when opened: a run still writing
 * appends, and a line is what was checked. */
size_t replay_src_line(struct replay *rp, struct src *s)
{
    if (!s->f || s->pos >= s->end)
        return 0;
    ssize_t len = getline(&rp->line, &rp->lcap, s->f);
    if (len <= 0)
        return 0;   /* a file cut short since it was opened: its end */
    if ((off_t)len > s->end - s->pos)
        len = (ssize_t)(s->end - s->pos);
    s->pos += len;
    return (size_t)len;
}

int replay_src_seek(struct src *s, off_t pos, double maxread)
{
    s->pos = pos;
    s->done = 0;
    s->maxread = maxread;
    return s->f ? fseeko(s->f, pos, SEEK_SET) : 0;
}

void replay_note_read(struct src *s, double t)
{
    if (s->maxread - t > s->disorder)
        s->disorder = s->maxread - t;
    if (t > s->maxread)
        s->maxread = t;
}

void replay_take_cell(void *ctx, const struct gridsum_cell *c)
{
    struct replay *rp = ctx;
    if (rp->scanning) {   /* how late it comes after the rows read */
        replay_note_read(&rp->nd, c->t_s);
        rp->t_end = fmax(rp->t_end, c->t_s);
        return;
    }
    heap_push(rp, (struct prow){ c->t_s, c->watts, NAN, NAN, (uint64_t)c->whole, 0,
                                 ((uint64_t)PR_CLUSTER << 56) | rp->cells++, -1, PR_CLUSTER });
}

/* The stream at the record's start. */
void replay_stream_start(struct replay *rp)
{
    json_decref(rp->next);
    rp->next = NULL;
    replay_src_seek(&rp->ev, rp->ev.start, -INFINITY);
    replay_src_seek(&rp->pw, rp->pw.start, -INFINITY);
    replay_src_seek(&rp->nd, rp->nd.start, -INFINITY);
    rp->nheap = 0;
    gridsum_free(rp->gs);
    rp->gs = rp->cell > 0 ? gridsum_new(rp->nodes, rp->cell, replay_take_cell, rp) : NULL;
    rp->cells = 0;
    rp->fed_t = -INFINITY;
}

static void keep_free(struct keep *k)
{
    vm_free(k->m);
    free(k->heap);
    gridsum_free(k->gs);
    memset(k, 0, sizeof *k);
}

void replay_keep(struct replay *rp, double every_s, size_t bytes)
{
    for (size_t i = 0; i < rp->nkeep; i++)
        keep_free(&rp->keep[i]);
    /* by default one every 16 MiB of record (what a seek feeds again from the nearest is then ~0.1 s of work), at most
     * 64 */
    double bytes_all = (double)(rp->ev.end + rp->pw.end + rp->nd.end);
    rp->every = every_s > 0 ? every_s : fmax(rp->t_end * fmax(1.0 / 64, (double)(16 << 20) / fmax(bytes_all, 1)), 0.5);
    rp->budget = bytes ? bytes : (size_t)128 << 20;
    rp->kept_bytes = 0;
    double slots = floor(rp->t_end / rp->every) + 1;
    rp->nkeep = slots < 1e6 ? (size_t)slots : 1000000;
    rp->keep = xrealloc(rp->keep, rp->nkeep * sizeof *rp->keep);
    memset(rp->keep, 0, rp->nkeep * sizeof *rp->keep);
}

void replay_free(struct replay *rp)
{
    if (!rp)
        return;
    for (size_t i = 0; i < rp->nkeep; i++)
        keep_free(&rp->keep[i]);
    free(rp->keep);
    struct src *s[] = { &rp->ev, &rp->pw, &rp->nd };
    for (size_t i = 0; i < ARRAY_LEN(s); i++)
        if (s[i]->f)
            fclose(s[i]->f);
    json_decref(rp->next);
    free(rp->heap);
    gridsum_free(rp->gs);
    free(rp->line);
    free(rp);
}

double replay_t_end(const struct replay *rp) { return rp->t_end; }
int replay_ended(const struct replay *rp) { return rp->ended; }
int replay_no_power(const struct replay *rp) { return rp->no_power; }

size_t replay_held(const struct replay *rp, size_t *window_max)
{
    if (window_max)
        *window_max = rp->hmax;
    return rp->kept_bytes + rp->hcap * sizeof *rp->heap + rp->nkeep * sizeof *rp->keep + rp->lcap;
}

/* Reads the next row of s into the window (a node's row also into the cluster's sum); at s's end, s done (the nodes'
 * file: the sum's cells still out given out). */
static void read_row(struct replay *rp, struct src *s)
{
    off_t at = s->pos;
    size_t len = replay_src_line(rp, s);
    struct prow p;
    if (len == 0) {
        s->done = 1;
        if (s == &rp->nd)
            gridsum_flush(rp->gs);
        return;
    }
    rp->line[len - 1] = 0;
    if (s == &rp->pw ? replay_power_row(rp->line, &p) != 0 : replay_node_row(rp->line, &p) != 0)
        return;   /* checked when opened: only a file changed since */
    if (p.t > s->maxread)
        s->maxread = p.t;
    p.key = ((uint64_t)p.kind << 56) | (uint64_t)at;
    if (p.kind == PR_NODE)
        gridsum_row(rp->gs, p.t, p.rank, p.w, (int)p.thr);
    if (p.rank < VM_MAX_RANKS || p.kind == PR_NODE)   /* a GPU past those the view lists: not shown */
        heap_push(rp, p);
}

/* Whether every row s has not given yet (the cluster's cells included) comes after t: its disorder behind what it
 * has read is past t, or it has none left. */
static int src_past(const struct src *s, double t) { return !s->f || s->done || s->maxread - s->disorder > t; }

/* Feeds the model everything at or before t: the events in their file's order, each before the power rows of its
 * time and after the earlier ones; the rows in time order (ties in file order), each file read only as far as it
 * must be for the window's earliest row to be the earliest of all. */
static void feed(struct replay *rp, struct vm *m, double t)
{
    for (;;) {
        while (!rp->next) {
            size_t len;
            rp->next_pos = rp->ev.pos;
            if ((len = replay_src_line(rp, &rp->ev)) == 0)
                break;
            json_t *o = json_loadb(rp->line, len, 0, NULL);
            if (o && json_is_object(o) && json_is_number(json_object_get(o, "t_s"))) {
                rp->next = o;
                rp->next_t = json_number_value(json_object_get(o, "t_s"));
            } else {
                json_decref(o);   /* checked when opened: only a file changed since */
            }
        }
        for (;;) {   /* the rows that matter (those at or before the window's earliest, and t) all in the window */
            double bound = fmin(t, rp->nheap ? rp->heap[0].t : INFINITY);
            struct src *s = !src_past(&rp->pw, bound) ? &rp->pw : !src_past(&rp->nd, bound) ? &rp->nd : NULL;
            if (!s)
                break;
            read_row(rp, s);
        }
        int ev_ok = rp->next && rp->next_t <= t;
        int pw_ok = rp->nheap && rp->heap[0].t <= t;
        if (!ev_ok && !pw_ok)
            break;
        if (ev_ok && (!pw_ok || rp->next_t <= rp->heap[0].t)) {
            vm_event(m, rp->next);
            json_decref(rp->next);
            rp->next = NULL;
            continue;
        }
        struct prow p = heap_pop(rp);
        if (p.kind == PR_NODE && p.rank > 0)   /* node 0's GPUs have their own rows */
            vm_node_power(m, p.t, p.rank, p.w, (int)p.thr);
        else if (p.kind == PR_CLUSTER)
            vm_cluster_power(m, p.t, p.w, (int)p.thr);
        else if (p.kind == PR_RANK) {
            vm_power(m, p.t, p.rank, p.w, p.clk, p.temp, p.thr);
            vm_power_stamp(m, p.rank, p.sample_ns);
        }
    }
    if (t > rp->fed_t)
        rp->fed_t = t;
}

/* A deep copy of the model (its ranks and their sensors' stamps: the only memory it points to). */
static struct vm *vm_copy(const struct vm *m, size_t *bytes)
{
    struct vm *c = xmalloc(sizeof *c);
    *c = *m;
    *bytes = sizeof *c + (size_t)m->nranks * sizeof *m->rank;
    c->rank = m->nranks ? xmalloc((size_t)m->nranks * sizeof *m->rank) : NULL;
    for (int r = 0; r < m->nranks; r++) {
        c->rank[r] = m->rank[r];
        if (m->rank[r].stamps) {
            c->rank[r].stamps = xmalloc(sizeof *m->rank[r].stamps);
            *c->rank[r].stamps = *m->rank[r].stamps;
            *bytes += sizeof *m->rank[r].stamps;
        }
    }
    return c;
}

/* Keeps the replay as it is now (fed to k * every) in keep[k], within the budget. */
static void keep_now(struct replay *rp, struct vm *m, size_t k)
{
    struct keep *kp = &rp->keep[k];
    size_t bytes;
    struct vm *c = vm_copy(m, &bytes);
    bytes += rp->nheap * sizeof *rp->heap;
    if (rp->kept_bytes + bytes > rp->budget) {
        vm_free(c);
        return;
    }
    *kp = (struct keep){ c, rp->next ? rp->next_pos : rp->ev.pos, rp->pw.pos, rp->nd.pos, rp->pw.maxread,
                         rp->nd.maxread, NULL, rp->nheap, gridsum_copy(rp->gs), rp->cells, rp->nd.done };
    if (rp->nheap) {
        kp->heap = xmalloc(rp->nheap * sizeof *rp->heap);
        memcpy(kp->heap, rp->heap, rp->nheap * sizeof *rp->heap);
    }
    rp->kept_bytes += bytes;
}

/* The replay back to keep[k]: its model (a copy) in place of m. */
static struct vm *keep_restore(struct replay *rp, struct vm *m, size_t k)
{
    const struct keep *kp = &rp->keep[k];
    size_t bytes;
    vm_free(m);
    m = vm_copy(kp->m, &bytes);
    json_decref(rp->next);
    rp->next = NULL;
    replay_src_seek(&rp->ev, kp->ev_pos, -INFINITY);
    replay_src_seek(&rp->pw, kp->pw_pos, kp->pw_max);
    replay_src_seek(&rp->nd, kp->nd_pos, kp->nd_max);
    if (kp->nheap > rp->hcap) {
        rp->hcap = kp->nheap;
        rp->heap = xrealloc(rp->heap, rp->hcap * sizeof *rp->heap);
    }
    if (kp->nheap)
        memcpy(rp->heap, kp->heap, kp->nheap * sizeof *rp->heap);
    rp->nheap = kp->nheap;
    gridsum_free(rp->gs);
    rp->gs = gridsum_copy(kp->gs);
    rp->cells = kp->cells;
    rp->nd.done = kp->flushed;
    rp->fed_t = (double)k * rp->every;
    return m;
}

struct vm *replay_seek(struct replay *rp, struct vm *m, double t)
{
    size_t k = t >= 0 ? (size_t)fmin(floor(t / rp->every), (double)(rp->nkeep - 1)) : 0;
    while (k > 0 && !rp->keep[k].m)
        k--;
    /* behind the model: back to the latest kept point before t (or the start); far ahead of it, the same when one is
     * closer */
    if (!m || t < rp->fed_t || (rp->keep[k].m && (double)k * rp->every > rp->fed_t)) {
        if (rp->keep[k].m && (double)k * rp->every <= t) {
            m = keep_restore(rp, m, k);
        } else {
            vm_free(m);
            m = vm_new();
            replay_stream_start(rp);
        }
    }
    /* on the way, a model kept at each multiple of every not kept yet */
    for (double next = rp->fed_t < 0 ? 1 : floor(rp->fed_t / rp->every) + 1; next * rp->every <= t; next++) {
        size_t i = (size_t)next;
        if (i >= rp->nkeep || rp->kept_bytes >= rp->budget)
            break;
        if (rp->keep[i].m)
            continue;
        feed(rp, m, next * rp->every);
        keep_now(rp, m, i);
    }
    feed(rp, m, t);
    if (t > m->t_now && t <= rp->t_end)
        m->t_now = t;
    vm_measure(m, 10);
    return m;
}
