/* harness/analysis/summarize_read.c: `gauntlet summarize` reads a run's record: events.jsonl line by line (each value
 * it uses checked: a bad one is named by file:line and key) and power.csv through `analyze`, each up to its last whole
 * line. A last line without its newline (a kill mid-write) and NUL bytes at the end (a crash's padding) are left out
 * and said; only regular files are read (a FIFO would block, a device never end). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis_json.h"
#include "summarize_int.h"
#include "util.h"

FILE *sz_open(const char *path, int *missing, int *rc, char *msg, size_t n)
{
    *missing = 0;
    FILE *f = fopen_regular(path, "r");
    if (f)
        return f;
    if (errno == ENOENT) {
        *missing = 1;
        return NULL;
    }
    *rc = EXIT_INPUT;
    snprintf(msg, n, "%s: %s", path,
             errno == EINVAL ? "not a regular file (a results folder's record is plain files)" : strerror(errno));
    return NULL;
}

int sz_tail(int fd, int64_t *size, int64_t *whole, int64_t *content)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    char buf[1 << 16];
    int64_t end = st.st_size;
    *size = st.st_size;
    *content = -1;
    *whole = 0;
    while (end > 0) {   /* backwards: past the padding, then to the last newline */
        size_t k = end > (int64_t)sizeof buf ? sizeof buf : (size_t)end;
        int64_t at = end - (int64_t)k;
        ssize_t got = pread(fd, buf, k, (off_t)at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t)k) {
            if (got >= 0)
                errno = EIO;   /* cut shorter while read */
            return -1;
        }
        for (size_t i = k; i-- > 0;) {
            if (*content < 0 && buf[i] != 0)
                *content = at + (int64_t)i + 1;
            if (*content >= 0 && buf[i] == '\n') {
                *whole = at + (int64_t)i + 1;
                return 0;
            }
        }
        end = at;
    }
    if (*content < 0)
        *content = 0;
    return 0;
}

/* A file read line by line up to the end of its whole lines. */
struct sz_lines {
    FILE *f;
    int64_t pos, whole;
    char *buf;
    size_t cap;
    long lineno;
    int err;   /* a read error's errno (0: the file got shorter while read) */
};

/* Reads the next line into l->buf (its newline dropped, NUL-terminated): its length; -1 past the last whole line;
 * -2 a line longer than SZ_LINE_MAX; -3 the file ended early (l->err). */
static long sz_next(struct sz_lines *l)
{
    if (l->pos >= l->whole)
        return -1;
    l->lineno++;
    size_t len = 0;
    for (;;) {
        int c = getc_unlocked(l->f);
        if (c == EOF) {
            l->err = ferror(l->f) ? errno : 0;
            return -3;
        }
        l->pos++;
        if (c == '\n') {
            l->buf[len] = 0;
            return (long)len;
        }
        if (len == SZ_LINE_MAX)
            return -2;
        if (len + 2 > l->cap) {
            l->cap = l->cap * 2 > SZ_LINE_MAX + 2 ? SZ_LINE_MAX + 2 : l->cap * 2;
            l->buf = xrealloc(l->buf, l->cap);
        }
        l->buf[len++] = (char)c;
    }
}

/* Where a bad value is said: the file and line. */
struct sz_ctx {
    const char *path;
    long line;
    char *msg;
    size_t n;
};

/* Writes v (its first 40 characters) into buf for a message. */
static const char *sz_show(json_t *v, char *buf, size_t n)
{
    if (!v)
        return "nothing (the key is missing)";
    char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(buf, n, "%.40s%s", t ? t : "a value", t && strlen(t) > 40 ? "..." : "");
    free(t);
    return buf;
}

/* Takes key of ev as an integer in [lo, hi]: 0; 1 when it is absent and not required; -1 with c->msg otherwise. */
static int sz_int(const struct sz_ctx *c, json_t *ev, const char *key, int64_t lo, int64_t hi, int required, int64_t *v)
{
    json_t *x = json_object_get(ev, key);
    if (!x && !required)
        return 1;
    if (json_is_integer(x) && json_integer_value(x) >= lo && json_integer_value(x) <= hi) {
        *v = json_integer_value(x);
        return 0;
    }
    char got[64];
    snprintf(c->msg, c->n, "%s:%ld: \"%s\": expected an integer in [%lld, %lld], got %s", c->path, c->line, key,
             (long long)lo, (long long)hi, sz_show(x, got, sizeof got));
    return -1;
}

/* Takes key of ev as a number in [lo, hi]: 0, or -1 with c->msg. */
static int sz_num(const struct sz_ctx *c, json_t *ev, const char *key, double lo, double hi, double *v)
{
    json_t *x = json_object_get(ev, key);
    if (json_is_number(x) && json_number_value(x) >= lo && json_number_value(x) <= hi) {
        *v = json_number_value(x);
        return 0;
    }
    char got[64];
    snprintf(c->msg, c->n, "%s:%ld: \"%s\": expected a number in [%g, %g], got %s", c->path, c->line, key, lo, hi,
             sz_show(x, got, sizeof got));
    return -1;
}

/* The start's projection, where it has one, as a run writes it: GPUs, groups within them, a spec (the figures a
 * rebuilt summary projects with; until 2026-12-02 one it could not read was taken for 10,000 GPUs in 1 group, and a
 * hand-edited gpus: 5000.0 projected twice the cluster with no word). 0, or -1 with c->msg. */
static int sz_projection_check(const struct sz_ctx *c, json_t *p)
{
    struct an_spec spec;
    json_t *gpus = json_object_get(p, "gpus"), *groups = json_object_get(p, "groups");
    const char *bad = NULL, *want = NULL;
    char got[64];
    if (!p)
        return 0;
    if (!json_is_object(p))
        bad = "projection", want = "an object {gpus, groups, spec}";
    else if (!json_is_integer(gpus) || json_integer_value(gpus) < 1 || json_integer_value(gpus) > 10000000)
        bad = "projection.gpus", want = "an integer in [1, 10000000]";
    else if (!json_is_integer(groups) || json_integer_value(groups) < 1 ||
             json_integer_value(groups) > json_integer_value(gpus))
        bad = "projection.groups", want = "an integer from 1 to projection.gpus";
    else if (json_object_get(p, "spec") && analysis_spec_from_json(json_object_get(p, "spec"), &spec) != 0)
        bad = "projection.spec", want = "the limits a run writes (each from 0 to 1e9, max_band_share at most 1, band "
                                        "[lo, hi] with 0 <= lo < hi <= 1e6 Hz)";
    if (!bad)
        return 0;
    json_t *x = strcmp(bad, "projection") == 0 ? p : strcmp(bad, "projection.spec") == 0 ? json_object_get(p, "spec")
              : strcmp(bad, "projection.gpus") == 0 ? gpus : groups;
    snprintf(c->msg, c->n, "%s:%ld: \"%s\": expected %s, got %s", c->path, c->line, bad, want, sz_show(x, got, sizeof got));
    return -1;
}

/* Node 0's (first) start event: the run's size. 0, or -1 with c->msg. */
static int sz_on_start(struct sz_record *z, const struct sz_ctx *c, json_t *ev)
{
    json_t *node = json_object_get(ev, "node");
    double u = json_number_value(json_object_get(ev, "clock_uncertainty_s"));   /* every node's: the sum's error */
    if (json_is_number(json_object_get(ev, "clock_uncertainty_s")) && u >= 0 && u < 1e3 && !(u <= z->clock_uncert_s))
        z->clock_uncert_s = u;
    if (z->start || (node && !(json_is_integer(node) && json_integer_value(node) == 0)))
        return 0;   /* another node's start, or a later one: node 0's first describes the run */
    int64_t ranks = 0, nodes = 1;
    if (sz_int(c, ev, "ranks", 1, SZ_WORLD_MAX, 1, &ranks) < 0 || sz_int(c, ev, "nodes", 1, SZ_NODES_MAX, 0, &nodes) < 0)
        return -1;
    if (ranks * nodes > SZ_WORLD_MAX) {   /* both bounded: the product fits */
        snprintf(c->msg, c->n, "%s:%ld: \"ranks\" x \"nodes\": %lld x %lld ranks, more than the %d a scenario can ask",
                 c->path, c->line, (long long)ranks, (long long)nodes, SZ_WORLD_MAX);
        return -1;
    }
    z->world = ranks * nodes;
    if (sz_projection_check(c, json_object_get(ev, "projection")) < 0)
        return -1;
    z->start = json_incref(ev);
    return 0;
}

/* The run of index run when it began, else NULL (the event is counted: its run never began). */
static struct sz_run *sz_begun(struct sz_record *z, int64_t run, long line)
{
    if ((size_t)run < z->nruns && z->runs[run].begin)
        return &z->runs[run];
    if (!z->orphans++)
        z->orphan_line = line;
    return NULL;
}

/* A run_begin or run_end event. 0, or -1 with c->msg. */
static int sz_on_run(struct sz_record *z, const struct sz_ctx *c, json_t *ev, int begin)
{
    int64_t run = 0;
    double t = 0;
    if (sz_int(c, ev, "run", 0, SZ_RUN_MAX, 1, &run) < 0 || sz_num(c, ev, "t_s", -SZ_TIME_MAX, SZ_TIME_MAX, &t) < 0)
        return -1;
    if (begin) {
        if ((size_t)run >= z->nruns) {
            z->runs = xrealloc(z->runs, (size_t)(run + 1) * sizeof *z->runs);
            memset(z->runs + z->nruns, 0, ((size_t)run + 1 - z->nruns) * sizeof *z->runs);
            z->nruns = (size_t)run + 1;
        }
        struct sz_run *r = &z->runs[run];
        if (!r->begin) {   /* the first: every node says it */
            r->begin = json_incref(ev);
            r->t0_s = t;
            r->t1_s = INFINITY;
        }
        return 0;
    }
    struct sz_run *r = sz_begun(z, run, c->line);
    json_t *node = json_object_get(ev, "node");
    int zero = !node || (json_is_integer(node) && json_integer_value(node) == 0);
    if (r && zero && t < r->t0_s) {   /* node 0's, whose stretch the power is (another node's own clock may read a
                                       * short run's end before node 0's begin): of no time, null with no word why */
        snprintf(c->msg, c->n, "%s:%ld: \"t_s\": %.9g, before the run's run_begin (%.9g): a run ends after it begins",
                 c->path, c->line, t, r->t0_s);
        return -1;
    }
    if (r && (!r->end || (zero && !r->end_zero))) {   /* node 0's end, where it said one: node 0's stretch */
        json_decref(r->end);
        r->end = json_incref(ev);
        r->end_zero = zero;
        r->t1_s = t;
    }
    return 0;
}

/* Makes the per-rank records (*p, *n of them, each of size elem) reach rank; new ones are fill's copies. */
static void *sz_grow(void *p, size_t *n, int64_t rank, size_t elem, const void *fill)
{
    if ((size_t)rank < *n)
        return p;
    size_t m = *n ? *n : 64;
    while (m <= (size_t)rank)
        m *= 2;
    m = m > SZ_WORLD_MAX ? SZ_WORLD_MAX : m;   /* rank < SZ_WORLD_MAX: still reached */
    p = xrealloc(p, m * elem);
    for (size_t i = *n; i < m; i++)
        memcpy((char *)p + i * elem, fill, elem);
    *n = m;
    return p;
}

/* An iteration, phase_begin or phase_end event of a rank. 0, or -1 with c->msg. */
static int sz_on_rank(struct sz_record *z, const struct sz_ctx *c, json_t *ev, const char *type)
{
    int iteration = strcmp(type, "iteration") == 0;
    int64_t run = 0, rank = 0, iter = 0;
    double t = 0, dur = 0;
    if (sz_int(c, ev, "run", 0, SZ_RUN_MAX, 1, &run) < 0 || sz_int(c, ev, "rank", -1, SZ_WORLD_MAX - 1, 1, &rank) < 0)
        return -1;
    if (rank < 0)
        return 0;   /* a spare that has no rank yet: none of the run's ranks */
    if (z->start && rank >= z->world) {
        snprintf(c->msg, c->n, "%s:%ld: \"rank\": %lld, but the start event gives %lld rank(s) in all", c->path, c->line,
                 (long long)rank, (long long)z->world);
        return -1;
    }
    int bad = iteration ? sz_int(c, ev, "iter", 0, SZ_ITER_MAX, 1, &iter) < 0 ||
                              sz_num(c, ev, "dur_s", 0, SZ_TIME_MAX, &dur) < 0   /* a duration: -5 s once read as
                                                                                    * the run's iteration p50 */
                        : sz_num(c, ev, "t_s", -SZ_TIME_MAX, SZ_TIME_MAX, &t) < 0;
    if (bad)
        return -1;
    /* the per-rank records grow to the highest rank that spoke: a record's ranks speak in turn, so one far past every
     * rank shown so far is no run's (one event at rank 4194303 once took 3.9 GB and wrote a 548 MB summary) */
    if (++z->rank_events, rank >= SZ_RANKS_FREE && rank > SZ_RANKS_PER_EVENT * z->rank_events) {
        snprintf(c->msg, c->n, "%s:%ld: \"rank\": %lld, far past the ranks the record has shown (%lld of their events "
                 "before it): a run's ranks speak in turn", c->path, c->line, (long long)rank, (long long)z->rank_events);
        return -1;
    }
    if (rank > z->max_rank) {
        z->max_rank = rank;
        z->max_rank_line = c->line;
    }
    struct sz_run *r = sz_begun(z, run, c->line);
    if (!r)
        return 0;
    const struct sz_rank none = { .comm_t = NAN };
    const double closed = NAN;
    r->rk = sz_grow(r->rk, &r->nrk, rank, sizeof *r->rk, &none);
    r->top = (size_t)rank + 1 > r->top ? (size_t)rank + 1 : r->top;
    z->open_t = sz_grow(z->open_t, &z->nopen, rank, sizeof *z->open_t, &closed);
    struct sz_rank *k = &r->rk[rank];
    if (iteration) {
        series_add(&r->iter_s, dur);
        k->done = iter + 1;   /* the last, as live: after a rollback the redone ones count again */
        k->since = 1;
        k->spoke = 1;
        return 0;
    }
    const char *phase = json_str_or(json_object_get(ev, "phase"));
    if (strcmp(type, "phase_begin") == 0) {
        if (strcmp(phase, "compute") == 0)
            z->open_t[rank] = t;
        else if (strcmp(phase, "comm") == 0)
            k->comm_t = t;
        return 0;
    }
    double amount = 0;
    int comm = strcmp(phase, "comm") == 0;   /* an optimizer's or checkpoint's bytes are no collective's */
    if (comm && json_is_number(json_object_get(ev, "bus_bytes")) && !isnan(k->comm_t) && t > k->comm_t) {
        if (sz_num(c, ev, "bus_bytes", 0, 1e30, &amount) < 0)   /* a step of phases: its own bus bytes, as live */
            return -1;
        series_add(&r->bus_gbs, amount / (t - k->comm_t) / 1e9);
        k->comm_t = NAN;
    } else if (comm && json_is_number(json_object_get(ev, "bytes")) && !isnan(k->comm_t) && t > k->comm_t) {
        if (sz_num(c, ev, "bytes", 0, 1e30, &amount) < 0)
            return -1;
        if (amount > 0) {   /* as live: a phase of no bytes has no time of the all-reduce's */
            series_add(&r->comm_s, t - k->comm_t);
            r->comm_bytes = amount;
        }
        k->comm_t = NAN;
    } else if (comm) {
        k->comm_t = NAN;   /* an overlapped one: no time of its own (live: no bus bandwidth from it) */
    } else if (json_is_number(json_object_get(ev, "flops")) && !isnan(z->open_t[rank])) {
        if (sz_num(c, ev, "flops", 0, 1e30, &amount) < 0)
            return -1;
        if (t < z->open_t[rank]) {   /* its time added as negative: one such phase read 0.178 TFLOP/s for 0.097 */
            snprintf(c->msg, c->n, "%s:%ld: \"t_s\": %.9g, before its compute phase began (%.9g): a phase ends after "
                     "it begins", c->path, c->line, t, z->open_t[rank]);
            return -1;
        }
        r->flops += amount;
        r->compute_s += t - z->open_t[rank];
        k->flops += amount;
        k->compute_s += t - z->open_t[rank];
        if (t > z->open_t[rank])
            series_add(&k->rate, amount / (t - z->open_t[rank]) / 1e12);
        z->open_t[rank] = NAN;
    }
    return 0;
}

/* The latest run that began (NULL: none yet): where a rank_dropped or recovery_end falls. */
static struct sz_run *sz_current(struct sz_record *z)
{
    for (size_t i = z->nruns; i-- > 0;)
        if (z->runs[i].begin)
            return &z->runs[i];
    return NULL;
}

/* What the iteration count needs beside the ranks' own lines: a node's node_iteration (forward: nodes), a rank
 * shrink dropped (out of the count from its run on), a recovery's restore (every count back to its iteration, as
 * the live count goes back with the ranks). 0, or -1 with c->msg. */
static int sz_on_count(struct sz_record *z, const struct sz_ctx *c, json_t *ev, const char *type)
{
    int64_t a = 0, run = 0, iter = 0;
    if (strcmp(type, "node_iteration") == 0) {
        int64_t nodes = z->start ? json_integer_value(json_object_get(z->start, "nodes")) : 0;
        if (sz_int(c, ev, "node", 0, (nodes > 0 ? nodes : z->start ? 1 : SZ_NODES_MAX) - 1, 1, &a) < 0 ||
            sz_int(c, ev, "run", 0, SZ_RUN_MAX, 1, &run) < 0 || sz_int(c, ev, "iter", 0, SZ_ITER_MAX, 1, &iter) < 0)
            return -1;   /* a node the start does not have: node 8191 of one once made every run walk 4 M ranks */
        struct sz_run *r = sz_begun(z, run, c->line);
        if (r) {
            const int64_t none = -1;
            const unsigned char no = 0;
            size_t n = r->nnode;
            r->node_done = sz_grow(r->node_done, &r->nnode, a, sizeof *r->node_done, &none);
            r->node_since = sz_grow(r->node_since, &n, a, sizeof *r->node_since, &no);
            r->node_done[a] = iter + 1;
            r->node_since[a] = 1;
            r->node_top = (size_t)a + 1 > r->node_top ? (size_t)a + 1 : r->node_top;
        }
        return 0;
    }
    struct sz_run *r = sz_current(z);
    if (strcmp(type, "rank_dropped") == 0) {
        if (sz_int(c, ev, "rank", 0, z->start ? z->world - 1 : SZ_WORLD_MAX - 1, 1, &a) < 0)
            return -1;
        const int64_t never = INT64_MAX;
        z->drop_run = sz_grow(z->drop_run, &z->ndrop, a, sizeof *z->drop_run, &never);
        if (z->drop_run[a] == INT64_MAX) {
            z->drop_run[a] = r ? r - z->runs : 0;
            z->ndropped++;
        }
        return 0;
    }
    /* the node that says it (node 0's line has no "node"): its own ranks, and of their counts only those of the old
     * timeline, the ones no iteration line has changed since that node's recovery_begin (the supervisor writes no
     * line of the abandoned timeline after it; the new timeline's may come before the node's recovery_end, another
     * node's, forwarded, later still) */
    if (!r || sz_int(c, ev, "node", 0, SZ_NODES_MAX - 1, 0, &a) < 0)
        return r ? -1 : 0;
    int64_t per = json_integer_value(json_object_get(z->start, "ranks")), lo = per > 0 ? a * per : 0,
            hi = per > 0 ? lo + per : (int64_t)r->nrk;
    if (strcmp(type, "recovery_begin") == 0) {
        for (int64_t k = lo; k < hi && (size_t)k < r->nrk; k++)
            r->rk[k].since = 0;
        if ((size_t)a < r->nnode)
            r->node_since[a] = 0;
        return 0;
    }
    json_t *from = json_object_get(ev, "from_iter");   /* recovery_end: null where it restored nothing */
    if (!json_is_integer(from))
        return 0;
    if (sz_int(c, ev, "from_iter", 0, SZ_ITER_MAX, 1, &iter) < 0)
        return -1;
    for (int64_t k = lo; k < hi && (size_t)k < r->nrk; k++)
        if (!r->rk[k].since)
            r->rk[k].done = r->rk[k].done > iter ? iter : r->rk[k].done;
    if ((size_t)a < r->nnode && !r->node_since[a])
        r->node_done[a] = r->node_done[a] > iter ? iter : r->node_done[a];
    return 0;
}

/* One line of events.jsonl (len bytes). 0, or the exit code with c->msg. */
static int sz_line(struct sz_record *z, const struct sz_ctx *c, const char *text, size_t len)
{
    if (strspn(text, " \t\r") == len)
        return 0;   /* a blank line says nothing */
    json_error_t err;
    json_t *ev = json_loadb(text, len, 0, &err);
    const char *type = json_string_value(json_object_get(ev, "event"));
    if (!ev || !type) {
        if (ev)
            snprintf(c->msg, c->n, "%s:%ld: expected a JSON object with \"event\" (a string)", c->path, c->line);
        else
            snprintf(c->msg, c->n, "%s:%ld: not a JSON event (column %d: %s)", c->path, c->line, err.column, err.text);
        json_decref(ev);
        return EXIT_INPUT;
    }
    int rc = 0;
    if (strcmp(type, "start") == 0)
        rc = sz_on_start(z, c, ev);
    else if (strcmp(type, "end") == 0) {
        const char *why = json_string_value(json_object_get(ev, "reason"));
        if (json_integer_value(json_object_get(ev, "node")) == 0) {   /* node 0's (a node's own says "node") */
            z->ended = 1;
            str_copy(z->end_reason, sizeof z->end_reason, why ? why : "");
        }
    }
    else if (strcmp(type, "node_iteration") == 0 || strcmp(type, "rank_dropped") == 0 ||
             strcmp(type, "recovery_begin") == 0 || strcmp(type, "recovery_end") == 0)
        rc = sz_on_count(z, c, ev, type);
    else if (strcmp(type, "run_begin") == 0 || strcmp(type, "run_end") == 0)
        rc = sz_on_run(z, c, ev, strcmp(type, "run_begin") == 0);
    else if (strcmp(type, "iteration") == 0 || strcmp(type, "phase_begin") == 0 || strcmp(type, "phase_end") == 0)
        rc = sz_on_rank(z, c, ev, type);
    else if (strstr(type, "fault") || strcmp(type, "detection") == 0 || strcmp(type, "recovered") == 0 ||
             strcmp(type, "worker_died") == 0 || strcmp(type, "node_lost") == 0 || strcmp(type, "node_left") == 0)
        json_array_append(z->faults, ev);
    json_decref(ev);
    return rc ? EXIT_INPUT : 0;
}

/* After the last line: says what was left out, checks what the record must hold. 0, or EXIT_INPUT with msg. */
static int sz_after(struct sz_record *z, const char *path, long lines, int64_t size, int64_t whole, int64_t content,
                    char *msg, size_t n)
{
    if (content > whole)
        gl_log("%s:%ld: its last line has no newline (cut short when the run was killed): ignored", path, lines + 1);
    if (size > content)
        gl_log("%s: %lld NUL byte(s) at its end (what a crash leaves): ignored", path, (long long)(size - content));
    if (!z->start && z->ended && z->end_reason[0]) {   /* a set-up that failed: the folder says why it holds no run */
        snprintf(msg, n, "%s: the run never began: %s", path, z->end_reason);
        return EXIT_INPUT;
    }
    if (!z->start) {
        snprintf(msg, n, "%s: no start event (a run's record begins with one): not a run's events.jsonl, or the run "
                         "was killed before it began", path);
        return EXIT_INPUT;
    }
    if (z->max_rank >= z->world) {   /* an event of that rank came before the start event */
        snprintf(msg, n, "%s:%ld: \"rank\": %lld, but the start event gives %lld rank(s) in all", path, z->max_rank_line,
                 (long long)z->max_rank, (long long)z->world);
        return EXIT_INPUT;
    }
    size_t begun = 0;
    for (size_t i = 0; i < z->nruns; i++)
        begun += z->runs[i].begin != NULL;
    if (!begun) {
        snprintf(msg, n, "%s: no run began (no run_begin event): nothing to summarize", path);
        return EXIT_INPUT;
    }
    if (z->orphans)
        gl_log("%s:%ld: %ld event(s) of a run that has no run_begin: left out (the first here)", path, z->orphan_line,
               z->orphans);
    return 0;
}

int sz_events(const char *dir, struct sz_record *z, char *msg, size_t n)
{
    char path[1200];
    memset(z, 0, sizeof *z);
    z->faults = json_array();
    z->clock_uncert_s = NAN;
    z->max_rank = -1;
    if (snprintf(path, sizeof path, "%s/events.jsonl", dir) >= (int)sizeof path) {
        snprintf(msg, n, "%.64s...: results folder path too long", dir);
        return EXIT_INPUT;
    }
    int missing = 0, rc = 0;
    FILE *f = sz_open(path, &missing, &rc, msg, n);
    if (!f) {
        if (missing)
            snprintf(msg, n, "%s: no such file (a results folder has events.jsonl and power.csv)", path);
        return missing ? EXIT_INPUT : rc;
    }
    int64_t size, whole, content;
    if (sz_tail(fileno(f), &size, &whole, &content) != 0) {
        snprintf(msg, n, "%s: cannot read: %s", path, strerror(errno));
        fclose(f);
        return EXIT_ENV;
    }
    struct sz_lines l = { .f = f, .whole = whole, .buf = xmalloc(4096), .cap = 4096 };
    struct sz_ctx c = { path, 0, msg, n };
    long len = -1;
    while (!rc && (len = sz_next(&l)) >= 0) {
        c.line = l.lineno;
        rc = sz_line(z, &c, l.buf, (size_t)len);
    }
    if (!rc && len == -2) {
        snprintf(msg, n, "%s:%ld: a line longer than %d bytes (1 MiB): no line a run writes", path, l.lineno, SZ_LINE_MAX);
        rc = EXIT_INPUT;
    } else if (!rc && len == -3) {
        snprintf(msg, n, "%s:%ld: %s", path, l.lineno, l.err ? strerror(l.err) : "the file got shorter while it was read");
        rc = EXIT_ENV;
    }
    free(l.buf);
    fclose(f);
    return rc ? rc : sz_after(z, path, l.lineno, size, whole, content, msg, n);
}

void sz_record_free(struct sz_record *z)
{
    for (size_t i = 0; i < z->nruns; i++) {
        json_decref(z->runs[i].begin);
        json_decref(z->runs[i].end);
        series_free(&z->runs[i].iter_s);
        series_free(&z->runs[i].comm_s);
        series_free(&z->runs[i].bus_gbs);
        for (size_t k = 0; k < z->runs[i].nrk; k++)
            series_free(&z->runs[i].rk[k].rate);
        free(z->runs[i].rk);
        free(z->runs[i].node_done);
        free(z->runs[i].node_since);
    }
    free(z->runs);
    free(z->drop_run);
    free(z->open_t);
    json_decref(z->start);
    json_decref(z->faults);
    memset(z, 0, sizeof *z);
}
