/* harness/results/cluster_rebuild.c: `gauntlet summarize` on a several-node record (forward: nodes): the cluster's
 * summed power of each run rebuilt from node 0's power-nodes.csv as node 0 sums it live (runcluster.h), so a killed
 * run's rebuilt summary still carries power.cluster. What cannot be rebuilt is said (power_cluster_note), never
 * guessed: no projection beside the sum (node 0's trace as a run analyses it is not at hand). */
#include "cluster_rebuild.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nodeagg.h"
#include "runcluster.h"
#include "util.h"

/* The most cells of the grid a rebuild takes (about 21 bytes each: 210 MB; 28 hours at 100 Hz): rows past them are
 * left out, and said. */
#define CR_CELLS_MAX 10000000.0
/* The cells before the first run's stretch a rebuild takes (2.8 hours at 100 Hz: every row of a real record's set-up
 * and warm-up): rows before them are left out, and said. */
#define CR_LEAD_CELLS 1000000.0

static void note(json_t *summary, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(json_t *summary, const char *fmt, ...)
{
    char text[1536];   /* a path of the folder (1023 bytes at most) and the words around it */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *fixed = utf8_lossy(utf8_trim(text));   /* JSON holds UTF-8 only: a cut or foreign byte never loses the note */
    json_object_set_new(summary, "power_cluster_note", json_string(fixed));
    free(fixed);
}

struct feed { long taken, bad, beyond, before; double last_s; };

/* A node that left the cluster's sum (node_lost, or node_left: shrink left it no rank): where among the rows of
 * power-nodes.csv node 0 let it go (at: the file's bytes then; -1 in a record from before it was written), and at
 * node 0's time. */
struct leave { double at, t_s; int node; };

static int leave_cmp_t(const void *x, const void *y)
{
    double a = ((const struct leave *)x)->t_s, b = ((const struct leave *)y)->t_s;
    return (a > b) - (a < b);
}

static int leave_cmp_at(const void *x, const void *y)
{
    double a = ((const struct leave *)x)->at, b = ((const struct leave *)y)->at;
    return (a > b) - (a < b);
}

/* Every row of f into c whose time lies in [lo_s, hi_s] and whose node, watts and GPUs are in range; the others
 * counted in d: earlier than lo_s (before), later than hi_s (beyond), or no row at all (a cut last line, a line too
 * long, a value out of range).
 * The nodes that left (lv[0..nlv), in order) leave the sum where node 0 let them go live: before the row that begins
 * at their byte of the file (every leave with one: by_at), else before the first row at or after their time (the
 * rows come as node 0 received them, so a row of an earlier time may follow: a leave by time may fall a few rows
 * off); the rest after the last row. at0: the bytes before the first row (the header). */
static void feed(struct runcluster *c, FILE *f, int nodes, double lo_s, double hi_s, const struct leave *lv, size_t nlv,
                 int by_at, double at0, struct feed *d)
{
    size_t gone = 0;
    char line[160];
    int whole = 1;
    double at = at0;
    d->last_s = -INFINITY;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        double start = at;
        at += (double)len;
        for (; by_at && gone < nlv && lv[gone].at <= start; gone++)
            runcluster_leave(c, lv[gone].node);
        int ends = len > 0 && line[len - 1] == '\n';
        if (!whole || !ends) {   /* part of a line longer than any row, or a last line cut short: not a row */
            if (whole)
                d->bad++;
            whole = ends;
            continue;
        }
        double t, w;
        int node, gpus, used = 0;
        if (sscanf(line, "%lf,%d,%lf,%d%n", &t, &node, &w, &gpus, &used) != 4 || line[used] != '\n' || !isfinite(t) ||
            node < 0 || node >= nodes || !isfinite(w) || fabs(w) > 1e9 || gpus < 0 || gpus > 1 << 20) {
            d->bad++;
            continue;
        }
        if (t > hi_s)
            d->beyond++;
        if (t < lo_s)
            d->before++;
        if (!(t >= lo_s && t <= hi_s))
            continue;
        for (; !by_at && gone < nlv && lv[gone].t_s <= t; gone++)
            runcluster_leave(c, lv[gone].node);
        runcluster_row(c, t, node, w, gpus);
        d->taken++;
        d->last_s = fmax(d->last_s, t);
    }
    for (; gone < nlv; gone++)
        runcluster_leave(c, lv[gone].node);
}

void results_cluster_rebuild(const char *dir, const json_t *start, double clock_uncert_s, const json_t *faults,
                             const json_t *windows, json_t *summary)
{
    int nodes = (int)json_integer_value(json_object_get(start, "nodes"));
    const char *fwd = json_string_value(json_object_get(start, "forward"));
    double hz = json_number_value(json_object_get(start, "forward_hz"));
    if (nodes < 2)
        return;
    if (!fwd || strcmp(fwd, "nodes") != 0)
        return note(summary, "forward: %s: the nodes' summed power is not in the record (each node's rows are)",
                    fwd ? fwd : "not said");
    if (!(hz > 0 && hz <= 1e4))
        return note(summary, "the start event has no forward_hz in (0, 10000] Hz: the cluster's power is not rebuilt");
    if (!(json_array_size(windows) > 0))
        return note(summary, "no run began: no cluster power to rebuild");
    double lo = INFINITY, hi = -INFINITY;   /* the runs' span; an unended run's ends with the last row */
    size_t i;
    json_t *w;
    json_array_foreach(windows, i, w) {
        lo = fmin(lo, json_number_value(json_object_get(w, "from_s")));
        json_t *to = json_object_get(w, "to_s");
        hi = fmax(hi, json_is_number(to) ? json_number_value(to) : INFINITY);
    }
    double cell_s = 1.0 / hz;
    if (!isfinite(lo))
        return note(summary, "no run's start time: the cluster's power is not rebuilt");
    double cap_s = lo + CR_CELLS_MAX * cell_s;   /* bounded: a grid of at most CR_CELLS_MAX cells */
    int capped = hi > cap_s;
    hi = fmin(hi, cap_s);
    char path[1200];
    snprintf(path, sizeof path, "%s/power-nodes.csv", dir);
    struct stat stt;
    errno = 0;
    FILE *f = stat(path, &stt) == 0 && S_ISREG(stt.st_mode) ? fopen(path, "r") : NULL;
    if (!f)
        return note(summary, "%s: %s: the cluster's power is not rebuilt", path,
                    errno ? strerror(errno) : "not a regular file");
    char head[64] = "";
    if (!fgets(head, sizeof head, f) || strcmp(head, nodeagg_power_header) != 0) {
        fclose(f);
        return note(summary, "%s: its first line is not \"%.*s\": not the nodes' summed power", path,
                    (int)strlen(nodeagg_power_header) - 1, nodeagg_power_header);
    }
    size_t nlv = 0;
    struct leave *lv = xcalloc(json_array_size(faults) + 1, sizeof *lv);
    json_array_foreach(faults, i, w) {   /* a lost node, or one shrink left no rank, holds no cell back: as live */
        const char *type = json_string_value(json_object_get(w, "event"));
        json_int_t k = json_integer_value(json_object_get(w, "node"));
        double t = json_number_value(json_object_get(w, "t_s"));
        json_t *a = json_object_get(w, "nodes_csv_at");
        if (type && (strcmp(type, "node_lost") == 0 || strcmp(type, "node_left") == 0) && k > 0 && k < nodes)
            lv[nlv++] = (struct leave){ json_is_integer(a) && json_integer_value(a) >= 0 ? (double)json_integer_value(a) : -1,
                                        json_is_number(json_object_get(w, "t_s")) && isfinite(t) ? t : INFINITY, (int)k };
    }
    int by_at = nlv > 0;   /* every leave says where among the rows it fell: the same row as live */
    for (size_t j = 0; j < nlv; j++)
        by_at &= lv[j].at >= 0;
    qsort(lv, nlv, sizeof *lv, by_at ? leave_cmp_at : leave_cmp_t);
    struct runcluster *c = runcluster_new(nodes, cell_s);
    runcluster_expect(c, (int)json_integer_value(json_object_get(start, "ranks")));   /* as live */
    struct feed d = { 0 };
    /* every row node 0 summed live, not only the stretches' own: a node's row before a stretch, or after it, holds
     * its value over the cells it skipped inside (until 2026-11-30 only rows within a cell of the runs' span were
     * read, and a node that skipped cells across a stretch's edge left them short: fewer whole cells rebuilt) */
    feed(c, f, nodes, lo - CR_LEAD_CELLS * cell_s, cap_s, lv, nlv, by_at, (double)strlen(head), &d);
    free(lv);
    int rerr = ferror(f);
    fclose(f);
    if (rerr)
        gl_log("%s: a read failed part way: the cluster's power is rebuilt from the rows before it", path);
    if (d.bad)
        gl_log("%s: %ld line(s) not taken (no row, or a node, watts or GPU count out of range)", path, d.bad);
    if (d.before)
        gl_log("%s: %ld row(s) more than %.0f cells before the first run's stretch not taken", path, d.before,
               CR_LEAD_CELLS);
    json_array_foreach(windows, i, w) {
        json_t *to = json_object_get(w, "to_s");
        runcluster_span(c, (int)json_integer_value(json_object_get(w, "run")),
                        json_number_value(json_object_get(w, "from_s")),
                        fmin(json_is_number(to) ? json_number_value(to) : d.last_s, hi));
    }
    runcluster_json(c, summary, NULL, json_number_value(json_object_get(start, "tdp_w")), clock_uncert_s);
    runcluster_free(c);
    json_t *run;
    json_array_foreach(json_object_get(summary, "runs"), i, run) {   /* which stretch each sum is of, said */
        json_t *cl = json_object_get(json_object_get(run, "power"), "cluster");
        size_t j;
        json_array_foreach(windows, j, w)
            if (json_is_object(cl) && json_integer_value(json_object_get(w, "run")) == json_integer_value(json_object_get(run, "run")))
                json_object_set_new(cl, "rebuilt", json_string(json_is_true(json_object_get(w, "analysed"))
                                                                   ? "from power-nodes.csv, over the stretch the run analysed (its warm-up left out: run_end's analysed_s)"
                                                                   : "from power-nodes.csv, from the run's start to its end, or its last row (node 0's run_end says no analysed_s)"));
    }
    if (!d.taken)
        note(summary, "%s: no row in the runs' time: the cluster's power is not rebuilt", path);
    else if (capped && d.beyond)   /* (rows after the last run's end, within the cap: not a run's, not analysed) */
        note(summary, "the record spans more than %.0f cells of %g s: the cluster's power is rebuilt over the first "
                      "of them only (%ld rows later left out)", CR_CELLS_MAX, cell_s, d.beyond);
}
