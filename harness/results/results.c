/* harness/results/results.c: the results folder's writers (see results.h). Each reads records; none measures. */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "nodeagg.h"
#include "results_int.h"
#include "runcluster.h"
#include "shm.h"
#include "util.h"

void results_default_dir(char *out, size_t n, const char *root, const char *name, int claim)
{
    char stamp[32];
    struct stat st;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(out, n, "%s/%s-%s", root, name, stamp);
    if (claim && mkdir(root, 0755) != 0 && errno != EEXIST)
        claim = 0;   /* the run's own creation of the folder says why */
    /* claimed: made here, so two runs started in the same second never take one folder (until 2026-11-30 both saw it
     * free, and the second cleared the first's results) */
    for (int i = 2; (claim ? mkdir(out, 0755) != 0 && errno == EEXIST : stat(out, &st) == 0) && i < 1000; i++)
        snprintf(out, n, "%s/%s-%s-%d", root, name, stamp, i);
}

const char *const results_derived[] = { "summary.json", "report.txt", "report.svg", "report.png", NULL };

/* Removes what commands derived from an earlier run's record in dir (results_derived): read beside this run's
 * record, it would describe the wrong run. Only files (or links) of those names go: a folder in such a place is none
 * of ours, and the write that meets it says so. Their temp files a killed writer left (summary.json.tmp.PID) go too,
 * when that pid is gone. 0, or -1 with why. */
static int results_clear_derived(const char *dir, char *why, size_t n)
{
    char path[1200];
    int swept;
    if (dir_sweep_tmp(dir, results_derived, &swept, why, n) != 0)
        return -1;
    for (const char *const *name = results_derived; *name; name++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, *name);   /* dir fits r->dir: 1024 */
        if (lstat(path, &st) != 0) {
            if (errno == ENOENT)
                continue;
            snprintf(why, n, "cannot look at %s: %s", path, strerror(errno));
            return -1;
        }
        if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
            continue;
        if (unlink(path) != 0 && errno != ENOENT) {
            snprintf(why, n, "cannot remove %s, an earlier run's (it would describe the wrong run): %s", path,
                     strerror(errno));
            return -1;
        }
    }
    return 0;
}

static const char power_header[] = "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n";

const char *results_failed(const struct results *r) { return r->failed ? r->why : NULL; }

void results_node_left(struct results *r, int node) { runcluster_leave(r->cl, node); }

long long results_nodes_at(const struct results *r) { return r->nodes_fd >= 0 ? (long long)r->nodes_off : -1; }

void results_node_ended(struct results *r, int node) { runcluster_end(r->cl, node); }

json_t *results_gpus_json(struct results *r) { return r->forward ? nodeagg_gpus_json(r->agg) : NULL; }

void results_forward_flush(struct results *r)
{
    if (r->forward)
        nodeagg_flush(r->agg);
}

void results_cluster_flush(struct results *r)
{
    if (r->agg && !r->forward && r->cl)
        nodeagg_flush_power(r->agg);
}

int results_fail_text(struct results *r, const char *text)
{
    if (!r->failed) {
        r->failed = 1;
        str_copy_mid(r->why, sizeof r->why, text);
    }
    return -1;
}

int results_fail(struct results *r, const char *file, int err)
{
    char text[sizeof r->why];
    snprintf(text, sizeof text, "cannot write %s/%s: %s", r->dir, file, strerror(err));   /* fits: dir fits r->dir */
    return results_fail_text(r, utf8_trim(text));
}

/* Appends len bytes to fd, whole or not at all: a short write (a full disk, a file-size limit) is cut back to off,
 * the end of the last whole line, so that what was written before stays valid. 0, or -1 (the run's failure). */
static int results_write(struct results *r, int fd, off_t *off, const char *file, const void *buf, size_t len)
{
    if (fd < 0 || r->stopped)
        return -1;
    if (write_all(fd, buf, len) == 0) {
        *off += (off_t)len;
        r->synced = 0;
        return 0;
    }
    int e = errno;
    r->stopped = 1;
    if (r->failed)   /* after the run's first failure (a summary.json, an fsync): said here, or never */
        gl_log("cannot write %s/%s: %s", r->dir, file, strerror(e));
    if (ftruncate(fd, *off) != 0 && errno != EINVAL)   /* EINVAL: not a regular file (a device): nothing to cut */
        gl_log("cannot cut %s/%s back to its last whole line: %s", r->dir, file, strerror(errno));
    return results_fail(r, file, e);
}

/* Takes dir/<name> (.lock; a forwarding node its own) for this run; -1 with why when another run holds it (or it
 * cannot be taken). */
static int results_lock(struct results *r, const char *dir, const char *name, char *why, size_t n)
{
    char path[1200], pid[32] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    r->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (r->lock_fd < 0) {
        snprintf(why, n, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        ssize_t k = read(r->lock_fd, pid, sizeof pid - 1);
        pid[k > 0 ? k : 0] = 0;
        pid[strcspn(pid, "\n")] = 0;
        if (e == EWOULDBLOCK)
            snprintf(why, n, "results folder %s is in use by another run (pid %s), or by a summarize or report reading "
                     "it (the pid is then the last run's): give another --out", dir, pid[0] ? pid : "unknown");
        else
            snprintf(why, n, "cannot lock %s: %s", path, strerror(e));
        close(r->lock_fd);
        r->lock_fd = -1;
        return -1;
    }
    int len = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(r->lock_fd, 0) != 0 || pwrite(r->lock_fd, pid, (size_t)len, 0) != len)
        gl_log("%s: cannot record this run's pid: %s", path, strerror(errno));
    return 0;
}

/* forward: nodes: the summed power's cell (one row per power.forward_hz; 0 there: per sample). */
static double nodes_cell_s(const struct scenario *sc)
{
    if (sc->power.forward_hz > 0)
        return 1.0 / sc->power.forward_hz;
    return sc->power.sample_hz > 0 ? 1.0 / sc->power.sample_hz : 0;
}

/* How long a GPU's last reading stands in the node's sum for readings it lacks: two cells or two sampling ticks,
 * whichever is longer (a sampler slower than the cells leaves cells without a reading; a GPU silent longer is gone). */
static double nodes_hold_s(const struct scenario *sc)
{
    double tick = sc->power.sample_hz > 0 ? 1.0 / sc->power.sample_hz : 0;
    return fmax(2 * nodes_cell_s(sc), 2 * tick);
}

/* Node 0's own summed power: a row of power-nodes.csv. */
static void nodes_own(void *ctx, int stream, const char *line, size_t len)
{
    struct results *r = ctx;
    if (stream == 1) {
        results_write(r, r->nodes_fd, &r->nodes_off, "power-nodes.csv", line, len);
        runcluster_rows(r->cl, line, len);
    }
}

/* A cell of the cluster's sum: to the live view, where it shows one. */
static void nodes_cell(void *ctx, double t_s, double watts, int whole)
{
    struct results *r = ctx;
    if (r->view && r->view->cluster_power)
        r->view->cluster_power(r->view->ctx, t_s, watts, whole);
}

/* A node other than 0: what its aggregate makes goes to node 0. */
static void nodes_send(void *ctx, int stream, const char *line, size_t len)
{
    struct results *r = ctx;
    r->send(stream, line, len);
}

/* Opens dir/name for this run's rows (truncated) and writes header; -1 with why. */
static int results_create(struct results *r, const char *dir, const char *name, int *fd, off_t *off, const char *header,
                          char *why, size_t n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    *fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (*fd < 0 || (header && results_write(r, *fd, off, name, header, strlen(header)))) {
        snprintf(why, n, "cannot write %s: %s", path, r->failed ? r->why : strerror(errno));
        return -1;
    }
    return 0;
}

static int results_open_files(struct results *r, const char *dir, const struct scenario *sc, uint64_t t0_ns, char *why,
                              size_t n)
{
    char path[1200];
    memset(r, 0, sizeof *r);
    r->events_fd = r->power_fd = r->lock_fd = r->nodes_fd = -1;
    r->t0_ns = t0_ns;
    r->node = -1;
    str_copy(r->events_name, sizeof r->events_name, "events.jsonl");
    if (str_copy(r->dir, sizeof r->dir, dir) != 0 || mkdir_p(dir) != 0) {
        snprintf(why, n, "cannot create results folder %s: %s", dir, strerror(errno));
        return -1;
    }
    if (results_lock(r, dir, ".lock", why, n) != 0)   /* before anything in the folder is touched */
        return -1;
    /* what an earlier run's record gave, before that record is replaced */
    if (results_clear_derived(dir, why, n) != 0 || results_clear_nodes(dir, sc, why, n) != 0)
        return -1;
    char *yaml = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&yaml, &len);
    int bad = !mem || scenario_write(sc, mem) != 0;
    if ((mem && fclose(mem) != 0) || bad) {
        snprintf(why, n, "cannot render the resolved scenario");
        free(yaml);
        return -1;
    }
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    int wrote = write_file_durable(path, yaml, len);
    if (wrote != 0) {   /* a folder that cannot be synced now would lose the run's summary at its end: refused now */
        snprintf(why, n, wrote < 0 ? "cannot write %s: %s" : "%s is written, but its folder could not be synced: %s (no "
                 "record written there could be made durable)", path, strerror(errno));
        utf8_trim(why);
        free(yaml);
        return -1;
    }
    free(yaml);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    r->events_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (r->events_fd < 0) {
        snprintf(why, n, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/power.csv", dir);
    str_copy(r->power_name, sizeof r->power_name, "power.csv");
    r->power_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (r->power_fd < 0 || results_write(r, r->power_fd, &r->power_off, "power.csv", power_header, sizeof power_header - 1)) {
        snprintf(why, n, "cannot write %s: %s", path, r->failed ? r->why : strerror(errno));
        return -1;
    }
    if (sc->forward == FORWARD_NODES && sc->nodes > 1) {   /* every node's summed power, this one's included */
        if (results_create(r, dir, "power-nodes.csv", &r->nodes_fd, &r->nodes_off, nodeagg_power_header, why, n) != 0)
            return -1;
        r->cell_s = nodes_cell_s(sc);
        r->agg = nodeagg_new(0, (int)sc->ranks, 0, nodes_cell_s(sc), nodes_own, r);
        nodeagg_hold(r->agg, nodes_hold_s(sc));
        r->cl = runcluster_new((int)sc->nodes, nodes_cell_s(sc));
        runcluster_expect(r->cl, (int)sc->ranks);
        runcluster_watch(r->cl, nodes_cell, r);
    }
    return 0;
}

int results_setup_failed(struct results *r, const char *why)
{
    size_t n = strlen(why) + 32;
    char *reason = xmalloc(n);
    snprintf(reason, n, "its set-up failed: %s", why);
    int rc = results_event(r, mono_ns(), "end", json_pack("{s:i, s:o}", "exit", EXIT_ENV, "reason",
                                                          results_text(utf8_trim(reason))));
    free(reason);
    return rc;
}

/* A failed open keeps nothing open (the lock included): a process that runs again (accept) has no fd left over.
 * One that failed after events.jsonl was begun (an earlier run's record gone) ends it with why. */
int results_open(struct results *r, const char *dir, const struct scenario *sc, uint64_t t0_ns, char *why, size_t n)
{
    if (results_open_files(r, dir, sc, t0_ns, why, n) == 0)
        return 0;
    if (r->events_fd >= 0 && !r->failed)
        results_setup_failed(r, why);
    results_close(r);
    return -1;
}

static int results_open_forward_files(struct results *r, const char *dir, const struct scenario *sc, int node, int ranks,
                                      uint64_t t0_ns, void (*send)(int, const char *, size_t), char *why, size_t n)
{
    char path[1200];
    memset(r, 0, sizeof *r);
    r->events_fd = r->power_fd = r->lock_fd = r->nodes_fd = -1;
    r->t0_ns = t0_ns;
    r->node = node;
    r->forward = 1;
    str_copy(r->events_name, sizeof r->events_name, "events.jsonl");
    r->send = send;
    str_copy(r->dir, sizeof r->dir, dir);
    r->fwd_ranks = ranks;
    r->fwd_t = xcalloc((size_t)ranks, sizeof *r->fwd_t);
    for (int i = 0; i < ranks; i++)
        r->fwd_t[i] = -1e300;
    int nodes = sc->forward == FORWARD_NODES;
    if (!nodes && (sc->power.forward_hz <= 0 || sc->power.sample_hz <= sc->power.forward_hz))
        return 0;   /* every row goes to node 0 */
    r->forward_s = nodes ? 0 : 1.0 / sc->power.forward_hz;
    snprintf(path, sizeof path, "%s/power-node%d.csv", dir, node);
    snprintf(r->power_name, sizeof r->power_name, "power-node%d.csv", node);
    if (mkdir_p(dir) != 0) {
        snprintf(why, n, "cannot create results folder %s: %s", dir, strerror(errno));
        return -1;
    }
    char lock[32];
    snprintf(lock, sizeof lock, ".lock-node%d", node);
    if (results_lock(r, dir, lock, why, n) != 0)   /* another run's node <node> keeps its file */
        return -1;
    if ((r->power_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) < 0 ||
        results_write(r, r->power_fd, &r->power_off, r->power_name, power_header, sizeof power_header - 1)) {
        snprintf(why, n, "cannot write %s: %s", path, r->failed ? r->why : strerror(errno));
        return -1;
    }
    if (nodes) {   /* every line kept here; node 0 gets the node's fold of them */
        snprintf(r->events_name, sizeof r->events_name, "events-node%d.jsonl", node);
        if (results_create(r, dir, r->events_name, &r->events_fd, &r->events_off, NULL, why, n) != 0)
            return -1;
        r->cell_s = nodes_cell_s(sc);
        r->agg = nodeagg_new(node, ranks, node * ranks, nodes_cell_s(sc), nodes_send, r);
        nodeagg_hold(r->agg, nodes_hold_s(sc));
        nodeagg_compact(r->agg, 10);   /* a line per 10 cells (100 ms at the default), not a row per cell */
    }
    return 0;
}

int results_open_forward(struct results *r, const char *dir, const struct scenario *sc, int node, int ranks,
                         uint64_t t0_ns, void (*send)(int stream, const char *line, size_t len), char *why, size_t n)
{
    if (results_open_forward_files(r, dir, sc, node, ranks, t0_ns, send, why, n) == 0)
        return 0;
    results_close(r);
    return -1;
}

int results_event(struct results *r, uint64_t t_ns, const char *type, json_t *obj)
{
    json_t *line = json_object();
    double t_s = t_ns >= r->t0_ns ? (double)(t_ns - r->t0_ns) * 1e-9 : -(double)(r->t0_ns - t_ns) * 1e-9;
    json_object_set_new(line, "t_s", json_real(round(t_s * 1e6) / 1e6));
    json_object_set_new(line, "event", json_string(type));
    if (r->node >= 0)
        json_object_set_new(line, "node", json_integer(r->node));
    if (obj) {
        json_t *rk = json_object_get(obj, "rank");
        if (r->rank_offset && json_is_integer(rk) && json_integer_value(rk) >= 0)   /* local rank -> global */
            json_object_set_new(obj, "rank", json_integer(json_integer_value(rk) + r->rank_offset));
        json_object_update(line, obj);
        json_decref(obj);
    }
    /* 15 digits: t_s (rounded to µs) keeps its µs up to 10^9 s, as power.csv's; an fp32 value round-trips (until
     * 2026-11-30 10 digits: 0.1 ms after 28 hours) */
    char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    if (!text) {
        json_decref(line);
        return -1;
    }
    size_t len = strlen(text);
    text[len] = '\n';   /* json_dumps leaves room: the terminator becomes the newline */
    int rc = 0;
    if (r->forward && r->agg) {   /* forward: nodes: every line here, node 0 the fold (its lines before this one) */
        rc = results_write(r, r->events_fd, &r->events_off, r->events_name, text, len + 1);
        if (!nodeagg_event(r->agg, t_s, type, line))
            r->send(0, text, len + 1);
        if (strcmp(type, "end") == 0)
            nodeagg_flush(r->agg);
    } else if (r->forward) {
        r->send(0, text, len + 1);
    } else {
        rc = results_write(r, r->events_fd, &r->events_off, r->events_name, text, len + 1);
    }
    json_decref(line);
    if (r->view)
        r->view->event(r->view->ctx, text, len + 1);
    free(text);
    if (rc != 0)
        return -1;
    r->events++;
    return 0;
}

/* Formats x with prec decimals into buf, or "" when it was not measured. */
static const char *fmt_or_empty(char *buf, size_t n, double x, int prec)
{
    if (!isfinite(x))
        return "";
    snprintf(buf, n, "%.*f", prec, x);
    return buf;
}

int64_t results_stamp_ns(uint64_t t_ns, uint64_t t0_ns)
{
    int64_t d = (int64_t)(t_ns - t0_ns);   /* two's complement: before t0_ns is negative */
    return (d >= 0 ? (d + 500) / 1000 : -((500 - d) / 1000)) * 1000;
}

int results_power(struct results *r, uint64_t t_ns, int rank, const struct power_reading *p, int phase)
{
    char w[32], avg[32], e[32], clk[32], temp[32], thr[32] = "", tw[32], st[32] = "", ts[32], row[384];
    double t_s = (double)(t_ns - r->t0_ns) * 1e-9;
    /* t_s from the integer microsecond (results_stamp_ns), as the live analysis places the tick: until 2026-11-30
     * "%.6f" of the double, while the run analysed the tick's nanoseconds, and a tick within a microsecond of the
     * middle between two grid points went to one point live and to the other in `summarize` */
    long long us = (long long)(results_stamp_ns(t_ns, r->t0_ns) / 1000);
    snprintf(ts, sizeof ts, "%s%lld.%06lld", us < 0 ? "-" : "", llabs(us) / 1000000, llabs(us) % 1000000);
    if (r->view)
        r->view->power(r->view->ctx, t_s, rank, p, phase);
    if (p->throttle || p->throttle_read)   /* read with no reason: 0x0; empty: not read */
        snprintf(thr, sizeof thr, "0x%llx", (unsigned long long)p->throttle);
    if (p->sample_ns)   /* the reading's own time, where its source stamps it */
        snprintf(st, sizeof st, "%.6f", (double)(int64_t)(p->sample_ns - r->t0_ns) * 1e-9);
    int len = snprintf(row, sizeof row, "%s,%d,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s\n", ts, rank + r->rank_offset,
                       fmt_or_empty(w, sizeof w, p->watts, 2), phase_name(phase), fmt_or_empty(avg, sizeof avg, p->avg_w, 2),
                       fmt_or_empty(e, sizeof e, p->energy_j, 3), fmt_or_empty(clk, sizeof clk, p->clock_mhz, 0),
                       fmt_or_empty(temp, sizeof temp, p->temp_c, 0), thr, r->node > 0 ? r->node : 0,
                       fmt_or_empty(tw, sizeof tw, p->true_w, 2), st);
    if (len <= 0 || (size_t)len >= sizeof row)
        return -1;
    if (r->agg) {   /* forward: nodes: the node's sum per cell, to node 0 (node 0: to power-nodes.csv) */
        nodeagg_power(r->agg, t_s, rank, p->watts);
        if (r->forward)   /* and the figures node 0's acceptance judges this node's GPUs by */
            nodeagg_sample(r->agg, rank, t_s, p->sample_ns ? (double)(int64_t)(p->sample_ns - r->t0_ns) * 1e-9 : NAN,
                           p->watts, p->throttle, p->throttle_read || p->throttle);
    }
    else if (r->forward) {   /* node 0 gets a bounded rate; this node's own file every row */
        if (rank >= 0 && rank < r->fwd_ranks && t_s - r->fwd_t[rank] >= r->forward_s * 0.999) {
            r->fwd_t[rank] = t_s;
            r->send(1, row, (size_t)len);
        }
    }
    if (r->power_fd < 0 || r->stopped)
        return r->power_fd < 0 && r->forward ? 0 : -1;
    if (r->plen + (size_t)len > r->pcap) {
        r->pcap = r->pcap ? 2 * r->pcap : 65536;
        while (r->pcap < r->plen + (size_t)len)
            r->pcap *= 2;
        r->pbuf = xrealloc(r->pbuf, r->pcap);
    }
    memcpy(r->pbuf + r->plen, row, (size_t)len);
    r->plen += (size_t)len;
    return 0;
}

struct rows_out { struct results *r; char *buf; size_t len, cap; };

static void nodes_row(void *ctx, double t_s, int node, double watts, int gpus)
{
    struct rows_out *o = ctx;
    char row[128];
    int k = snprintf(row, sizeof row, "%.6f,%d,%.1f,%d\n", t_s, node, watts, gpus);
    if (k < 0 || (size_t)k >= sizeof row)   /* no row is this long (nodeagg_rows refuses such values): left out */
        return;
    if (o->cap - o->len < (size_t)k) {
        o->cap = o->cap * 2 + 4096;
        o->buf = xrealloc(o->buf, o->cap);
    }
    memcpy(o->buf + o->len, row, (size_t)k);
    o->len += (size_t)k;
    runcluster_row(o->r->cl, t_s, node, watts, gpus);
    if (o->r->view && o->r->view->node_power)
        o->r->view->node_power(o->r->view->ctx, t_s, node, watts, gpus);
}

/* Node 0, forward: nodes: a batch of another node's compact power lines (nodeagg_rows) into power-nodes.csv. */
static int results_nodes_append(struct results *r, const char *text, size_t len)
{
    struct rows_out o = { r, NULL, 0, 0 };
    int cells = nodeagg_rows(text, len, r->cell_s, nodes_row, &o);
    if (cells < 0)
        gl_log("power-nodes.csv: a power line from another node that is not one (left out): %.60s", text);
    int rc = o.len ? results_write(r, r->nodes_fd, &r->nodes_off, "power-nodes.csv", o.buf, o.len) : 0;
    free(o.buf);
    return rc;
}

int results_append(struct results *r, int power, const char *text, size_t len)
{
    if (power && r->nodes_fd >= 0)   /* another node's compact lines: rows of power-nodes.csv, the sum, the view */
        return results_nodes_append(r, text, len);
    if (power)
        return results_write(r, r->power_fd, &r->power_off, r->power_name, text, len);
    if (results_write(r, r->events_fd, &r->events_off, r->events_name, text, len) != 0)
        return -1;
    for (size_t i = 0; i < len; i++)
        r->events += text[i] == '\n';
    return 0;
}

int results_flush(struct results *r)
{
    if (!r->plen)
        return r->stopped ? -1 : 0;
    int rc = results_write(r, r->power_fd, &r->power_off, r->power_name, r->pbuf, r->plen);
    r->plen = 0;
    return rc;
}

void results_close(struct results *r)
{
    if (r->agg && !r->forward)   /* node 0's last cell (a forwarding node sent its own at its end event) */
        nodeagg_flush(r->agg);
    nodeagg_free(r->agg);
    r->agg = NULL;
    runcluster_free(r->cl);
    r->cl = NULL;
    results_flush(r);
    free(r->fwd_t);
    r->fwd_t = NULL;
    free(r->pbuf);
    r->pbuf = NULL;
    int *fds[] = { &r->power_fd, &r->events_fd, &r->nodes_fd };
    const char *names[] = { r->power_name, r->events_name, "power-nodes.csv" };
    for (size_t i = 0; i < ARRAY_LEN(fds); i++) {
        if (*fds[i] < 0)
            continue;
        if (!r->synced && fsync(*fds[i]) != 0 && errno != EINVAL)   /* synced: the run's end said how that went */
            gl_log("fsync(%s) failed: %s", names[i], strerror(errno));
        close(*fds[i]);
        *fds[i] = -1;
    }
    if (r->lock_fd >= 0) {   /* the folder is free for another run */
        close(r->lock_fd);
        r->lock_fd = -1;
    }
}
