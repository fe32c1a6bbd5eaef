/* tui/replay_open.c: opening a run's record for the replay (replay.h): each file read once, every line checked
 * (exit 2 naming file:line otherwise), the record's end found, and each power file's disorder measured. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"
#include "util.h"

/* Opens dir/name, a file the replay may go without (NULL, *absent set, when it is not there); NULL with why when it
 * is there but cannot be read, or is no regular file (a FIFO would block). */
static FILE *open_optional(const char *dir, const char *name, char *path, size_t pn, int *absent, char *why, size_t n)
{
    snprintf(path, pn, "%s/%s", dir, name);   /* dir fits: tui_view_main checked it */
    FILE *f = fopen_regular(path, "r");
    *absent = !f && errno == ENOENT;
    if (!f && !*absent)
        snprintf(why, n, "%s: %s", path, errno == EINVAL ? "not a regular file" : strerror(errno));
    return f;
}

/* After the opening read of s: 0, or -1 with why when reading failed (taken for its end otherwise); s back at its
 * first row. */
static int src_checked(struct src *s, char *why, size_t n)
{
    if (ferror(s->f) || replay_src_seek(s, s->start, -INFINITY) != 0) {
        snprintf(why, n, "%s: read error", s->path);
        return -1;
    }
    return 0;
}

/* Reads events.jsonl: every line an object with t_s and event, else exit 2 naming file:line. */
static int open_events(struct replay *rp, const char *dir, char *why, size_t n)
{
    struct src *s = &rp->ev;
    snprintf(s->path, sizeof s->path, "%s/events.jsonl", dir);   /* dir fits: tui_view_main checked it */
    s->f = fopen_regular(s->path, "r");   /* a FIFO would block, a folder read as empty */
    if (!s->f) {
        snprintf(why, n, "%s: %s (not a results folder of gauntlet run?)", s->path,
                 errno == EINVAL ? "not a regular file" : strerror(errno));
        return -1;
    }
    ssize_t len;
    int lineno = 0, started = 0;
    while ((len = getline(&rp->line, &rp->lcap, s->f)) > 0) {
        lineno++;
        json_error_t err;
        json_t *o = json_loadb(rp->line, (size_t)len, 0, &err);
        if (!o && rp->line[len - 1] != '\n')
            break;   /* the last line of a run still being written */
        if (!o || !json_is_object(o) || !json_is_number(json_object_get(o, "t_s")) ||
            !(fabs(json_number_value(json_object_get(o, "t_s"))) < 1e12) || !json_is_string(json_object_get(o, "event"))) {
            snprintf(why, n, "%s:%d: expected a JSON object with t_s (seconds, under 1e12) and event%s%s", s->path,
                     lineno, o ? "" : ", got: ", o ? "" : err.text);
            json_decref(o);
            return -1;
        }
        const char *ev = json_string_value(json_object_get(o, "event"));
        rp->ended |= strcmp(ev, "end") == 0;
        rp->t_end = fmax(rp->t_end, json_number_value(json_object_get(o, "t_s")));
        if (!started && strcmp(ev, "start") == 0) {   /* several nodes, forward: nodes: the nodes' sums were written */
            const char *fwd = json_string_value(json_object_get(o, "forward"));
            rp->has_nodes = json_integer_value(json_object_get(o, "nodes")) > 1 && fwd && strcmp(fwd, "nodes") == 0;
            started = 1;
        }
        json_decref(o);
        s->end += len;
    }
    return src_checked(s, why, n);
}

/* strtod, quicker for the plain decimals the run writes ([-]digits[.digits], 15 digits at most): their digits and
 * the power of ten are exact doubles, and their quotient, rounded once, is the nearest double, as strtod's is.
 * Anything else (an exponent, more digits, a sign or space before it, hex, inf, nan) goes to strtod. */
static double num(const char *s, char **end)
{
    static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
    const char *p = s + (*s == '-');
    uint64_t mant = 0;
    int digits = 0, frac = 0, dot = 0;
    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            mant = mant * 10 + (uint64_t)(*p - '0');
            frac += dot;
            digits++;
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    if (!digits || digits > 15 || isalnum((unsigned char)*p) || *p == '.')
        return strtod(s, end);
    if (end)
        *end = (char *)p;
    double v = (double)mant / p10[frac];
    return *s == '-' ? -v : v;
}

static double field(const char *s) { return *s ? num(s, NULL) : NAN; }

/* One power.csv line (t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle[,node,true_w,sample_t_s],
 * its newline cut) into *p: 0, or -1 when it is not one. */
int replay_power_row(char *line, struct prow *p)
{
    char *fld[12];
    int k = 0;
    fld[k++] = line;
    for (char *q = line; *q && k < 12; q++)   /* one pass (a strchr per field took a fifth of a replay's time) */
        if (*q == ',') {
            *q = 0;
            fld[k++] = q + 1;
        }
    char *end;
    double t = num(fld[0], &end);
    long rank = k >= 3 ? strtol(fld[1], NULL, 10) : -1;
    /* a time of nan would stop the window; one past 1e12 s (31,700 years) is no run's */
    if (k < 9 || *end || !(fabs(t) < 1e12) || rank < 0 || rank > INT32_MAX)
        return -1;
    double st = k >= 12 ? field(fld[11]) : NAN;   /* sample_t_s: the sensor's own time (the run's clock) */
    *p = (struct prow){ t, field(fld[2]), field(fld[6]), field(fld[7]), *fld[8] ? strtoull(fld[8], NULL, 0) : 0,
                        isfinite(st) && fabs(st) < 1e9 ? (int64_t)llround(st * 1e9) + (INT64_C(1) << 62) : 0, 0,
                        (int)rank, PR_RANK };
    return 0;
}

/* The next row of a CSV file being opened, into rp->line: its length, 0 at its end (an unfinished last line, a
 * run still writing it, is its end), or -1 when its first line is no header (t_s,...). The header is passed over:
 * s->start after it. */
static ssize_t csv_row(struct replay *rp, struct src *s, int *lineno)
{
    ssize_t len;
    if (*lineno == 0)
        s->maxread = -INFINITY;
    while ((len = getline(&rp->line, &rp->lcap, s->f)) > 0 && rp->line[len - 1] == '\n') {
        s->end += len;
        if (++*lineno > 1)
            return len;
        if (strncmp(rp->line, "t_s,", 4) != 0)
            return -1;
        s->start = s->end;
    }
    return 0;
}

/* Reads power.csv (t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle): each line checked. */
static int open_power(struct replay *rp, const char *dir, char *why, size_t n)
{
    struct src *s = &rp->pw;
    int absent;
    s->f = open_optional(dir, "power.csv", s->path, sizeof s->path, &absent, why, n);
    rp->no_power = !s->f && absent;   /* sampling was off, or the run was killed before it: said, no power shown */
    if (!s->f)
        return absent ? 0 : -1;
    ssize_t len;
    int lineno = 0;
    while ((len = csv_row(rp, s, &lineno)) != 0) {
        if (len < 0) {
            snprintf(why, n, "%s:1: expected the header t_s,rank,watts,... (as a run writes it)",
                     s->path);
            return -1;
        }
        rp->line[len - 1] = 0;
        struct prow p;
        if (replay_power_row(rp->line, &p) != 0) {
            snprintf(why, n, "%s:%d: expected t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle", s->path,
                     lineno);
            return -1;
        }
        replay_note_read(s, p.t);
        if (p.rank < VM_MAX_RANKS)   /* a GPU past those the view lists is not shown (the cluster's sum has its own rows) */
            rp->t_end = fmax(rp->t_end, p.t);
    }
    return src_checked(s, why, n);
}

int replay_node_row(const char *line, struct prow *p)
{
    double t, w;
    int node, g;
    if (sscanf(line, "%lf,%d,%lf,%d", &t, &node, &w, &g) != 4 || node < 0 || node >= 100000 || !isfinite(t))
        return -1;
    *p = (struct prow){ t, w, NAN, NAN, (uint64_t)(g > 0 ? g : 0), 0, 0, node, PR_NODE };
    return 0;
}

/* forward: nodes: power-nodes.csv (t_s,node,watts,gpus), each node's sum per cell; and the cluster's sum on that
 * grid, as node 0 built it live (gridsum.h; the cell from the closest rows of one node). A run that wrote none (one
 * node, forward: ranks) has it only from an earlier run in the same folder: not read. Read twice: the rows checked
 * and the cell found, then the sum's cells given out, to measure how late they come. */
static int open_nodes(struct replay *rp, const char *dir, char *why, size_t n)
{
    struct src *s = &rp->nd;
    int absent;
    if (!rp->has_nodes)
        return 0;
    s->f = open_optional(dir, "power-nodes.csv", s->path, sizeof s->path, &absent, why, n);
    if (!s->f)
        return absent ? 0 : -1;   /* absent: removed since; the GPUs' own rows are still shown */
    int lineno = 0;
    double cell = INFINITY, *last = NULL;
    for (ssize_t len; (len = csv_row(rp, s, &lineno)) != 0;) {
        struct prow p;
        if (len < 0 || replay_node_row(rp->line, &p) != 0) {
            snprintf(why, n, "%s:%d: expected %st_s,node,watts,gpus", s->path, lineno, len < 0 ? "the header " : "");
            free(last);
            return -1;
        }
        if (p.rank >= rp->nodes) {
            last = xrealloc(last, (size_t)(p.rank + 1) * sizeof *last);
            for (int i = rp->nodes; i <= p.rank; i++)
                last[i] = NAN;
            rp->nodes = p.rank + 1;
        }
        if (p.t - last[p.rank] > 1e-7)   /* the cell: the closest two rows of one node */
            cell = fmin(cell, p.t - last[p.rank]);
        last[p.rank] = p.t;
        replay_note_read(s, p.t);
        rp->t_end = fmax(rp->t_end, p.t);
    }
    free(last);
    if (src_checked(s, why, n) != 0)
        return -1;
    rp->cell = isfinite(cell) ? cell : 0;
    struct gridsum *gs = rp->cell > 0 ? gridsum_new(rp->nodes, rp->cell, replay_take_cell, rp) : NULL;
    rp->scanning = 1;
    for (size_t l; gs && (l = replay_src_line(rp, s)) > 0;) {
        struct prow p;
        if (replay_node_row(rp->line, &p) == 0) {
            if (p.t > s->maxread)
                s->maxread = p.t;
            gridsum_row(gs, p.t, p.rank, p.w, (int)p.thr);
        }
    }
    gridsum_flush(gs);
    gridsum_free(gs);
    rp->scanning = 0;
    return src_checked(s, why, n);
}

struct replay *replay_open(const char *dir, char *why, size_t n)
{
    struct replay *rp = xcalloc(1, sizeof *rp);
    if (open_events(rp, dir, why, n) != 0 || open_power(rp, dir, why, n) != 0 || open_nodes(rp, dir, why, n) != 0) {
        replay_free(rp);
        return NULL;
    }
    replay_stream_start(rp);
    replay_keep(rp, 0, 0);
    return rp;
}

