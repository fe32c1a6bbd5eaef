/* harness/run/metrics.c: live metrics for Prometheus while a run goes (docs/results.md "Live metrics"). A view of
 * the run (struct view_link) wrapped around the live view or the progress lines: it reads the same events.jsonl
 * lines and power rows, keeps the figures an operator watches (per GPU: power, phase, iteration time, GEMM rate,
 * bus bandwidth; the node's swing, ramp and dominant frequency over the last 30 s of the summed power; faults by
 * kind, detections by detector, recoveries; the run and its mitigation), and exposes them as OpenMetrics over HTTP
 * (libmicrohttpd, --metrics ADDR:PORT: metrics_http.c) and as a node_exporter textfile (--metrics-textfile DIR,
 * rewritten whole every second by a thread of the view's own, never by the sampler that hands it the power rows; one
 * run per folder; at the run's end it says the run ended). */
#include "metrics.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "analysis.h"
#include "analysis_json.h"
#include "backend.h"
#include "cli.h"
#include "metrics_int.h"
#include "plugin.h"
#include "util.h"
#include <sys/stat.h>
/* Frees the ranks (a new scenario of accept's may have fewer): none until the next start names them. */
static void mx_reset_ranks(struct metrics *m)
{
    for (int k = 0; k < m->ranks; k++)
        free(m->r[k].stamps);
    free(m->r);
    m->r = NULL;
    m->ranks = 0;
    m->tick_t = NAN;
    m->win_n = 0;
}

static void mx_grow(struct metrics *m, int ranks)
{
    if (ranks <= m->ranks)
        return;
    m->r = xrealloc(m->r, (size_t)ranks * sizeof *m->r);
    for (int k = m->ranks; k < ranks; k++)
        m->r[k] = (struct mx_rank){ .watts = NAN, .watts_t = NAN, .iter_s = NAN, .tflops = NAN, .busbw = NAN,
                                    .phase = -1, .node_w = NAN };   /* not known: no gauntlet_gpu_phase (another node's, forward:
                                                      * nodes) rather than a false idle */
    m->ranks = ranks;
}

/* Keeps an iteration's duration for the window's period (the analysis resolves a dominant frequency only where the
 * iteration is known to be slower than the sensor can follow). */
static void mx_iteration(struct metrics *m, double dur_s)
{
    if (!(dur_s > 0) || !isfinite(dur_s))
        return;
    m->iter_ring[m->iter_at] = dur_s;
    m->iter_at = (m->iter_at + 1) % MX_ITERS;
    m->iter_n = m->iter_n < MX_ITERS ? m->iter_n + 1 : MX_ITERS;
}

static void mx_bump(struct mx_count *c, const char *name)
{
    for (int i = 0; name && i < MX_KINDS; i++) {
        if (!c[i].name[0])
            str_copy(c[i].name, sizeof c[i].name, name);
        if (strcmp(c[i].name, name) == 0) {
            c[i].n++;
            return;
        }
    }
}

/* ---- the view: every event line and power row, then the inner view's turn */

/* Adds name to c at 0 where it is not there yet (a series a first increment would otherwise begin at 1). */
static void mx_zero(struct mx_count *c, const char *name)
{
    for (int i = 0; name && name[0] && i < MX_KINDS; i++) {
        if (strcmp(c[i].name, name) == 0)
            return;
        if (!c[i].name[0]) {
            str_copy(c[i].name, sizeof c[i].name, name);
            return;
        }
    }
}

/* Exports every counter the run can move at 0 from its start, so that increase() counts its first event: each fault
 * kind and detector of the plug-in tables, and the run's recovery (the one its recoveries are by). */
static void mx_seed(struct metrics *m, const char *recovery)
{
    for (int i = 0; plugin_faults.table[i]; i++)
        mx_zero(m->faults, plugin_faults.table[i]->name);
    for (int i = 0; plugin_detectors.table[i]; i++)
        mx_zero(m->dets, plugin_detectors.table[i]->name);
    mx_zero(m->recs, recovery);
}

static double mx_num(json_t *e, const char *k)
{
    json_t *v = json_object_get(e, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A communication phase's bus bandwidth (bytes/s over d s), as summary.json's busbw_gbs: a step of workload.phases
 * carries its own bus bytes (its collective's factor and ranks: 2(n-1)/n all-reduce, (n-1)/n reduce-scatter,
 * all-gather and all-to-all, 1 send/recv), the plain all-reduce its bytes, x 2(n-1)/n with the start's n. NAN where
 * there is no such figure: a stepped run's phase without bus bytes (an exposed wait, a step of one rank), another
 * collective without them, n 1. */
static double mx_busbw(struct metrics *m, json_t *e, double d)
{
    double bus = mx_num(e, "bus_bytes"), bytes = mx_num(e, "bytes"), n = m->bus_ranks;
    const char *kind = json_string_value(json_object_get(e, "kind"));
    if (bus > 0 && d > 0) {
        m->stepped = 1;
        return bus / d;
    }
    if (!(bytes > 0) || !(d > 0) || m->stepped || (kind && strcmp(kind, "allreduce") != 0))
        return NAN;
    m->plain = 1;
    return n > 1 ? bytes / d * 2 * (n - 1) / n : NAN;
}

/* forward: nodes: a node's iteration, its ranks folded (a dropped rank left out). Its comm is every comm step's
 * bytes summed: a bandwidth only where they are the plain all-reduce's (node 0's own ranks showed it) or carry their
 * bus bytes; a stepped run's mix of collectives has none (NaN), never one factor over all of them. */
static void mx_node_iteration(struct metrics *m, json_t *e)
{
    json_t *ph = json_object_get(e, "phases"), *c = json_object_get(ph, "compute"), *x = json_object_get(ph, "comm");
    double cs = mx_num(c, "s"), xs = mx_num(x, "s"), n = m->bus_ranks, k = mx_num(e, "ranks");
    double bus = mx_num(x, "bus_bytes"), bytes = mx_num(x, "bytes");
    json_int_t node = json_integer_value(json_object_get(e, "node"));
    int set = 1;
    double bw = NAN;
    if (xs > 0 && bus > 0)
        bw = bus / xs;
    else if (m->plain && !m->stepped && xs > 0 && bytes > 0 && n > 1)
        bw = bytes / xs * 2 * (n - 1) / n;
    else
        set = m->stepped;   /* a mix: no figure; not known yet: left as it is */
    mx_iteration(m, mx_num(e, "dur_s"));
    int q = node >= 0 && node < m->ranks / m->per_node ? (int)node * m->per_node : m->ranks;
    for (int end = q + m->per_node; q < end && q < m->ranks; q++) {
        if (m->r[q].dropped)
            continue;
        m->r[q].iter_s = mx_num(e, "dur_s");
        m->r[q].iters++;
        if (cs > 0 && k > 0 && mx_num(c, "flops") > 0)   /* per GPU: the node's flops over its slowest's time */
            m->r[q].tflops = mx_num(c, "flops") / k / cs / 1e12;
        if (set)
            m->r[q].busbw = bw;
    }
}

static void mx_event(void *ctx, const char *line, size_t len)
{
    struct metrics *m = ctx;
    if (m->inner)
        m->inner->event(m->inner->ctx, line, len);
    json_t *e = json_loadb(line, len, 0, NULL);
    const char *type = json_string_value(json_object_get(e, "event"));
    if (!type) {
        json_decref(e);
        return;
    }
    json_int_t rank = json_is_integer(json_object_get(e, "rank")) ? json_integer_value(json_object_get(e, "rank")) : -1;
    double t = mx_num(e, "t_s");
    pthread_mutex_lock(&m->mu);
    if (rank >= 0 && rank < 1 << 20)
        mx_grow(m, (int)rank + 1);
    struct mx_rank *r = rank >= 0 && rank < m->ranks ? &m->r[rank] : NULL;
    int live = r && !r->dropped;   /* shrink dropped it: its iterations and phases count no more (its power does) */
    if (strcmp(type, "start") == 0 && json_integer_value(json_object_get(e, "node")) == 0) {   /* node 0's speaks for the run */
        json_int_t nodes = json_integer_value(json_object_get(e, "nodes"));
        m->per_node = (int)json_integer_value(json_object_get(e, "ranks"));
        m->cluster_fed = json_string_value(json_object_get(e, "forward")) &&
                         strcmp(json_string_value(json_object_get(e, "forward")), "nodes") == 0;
        m->world = m->per_node * (int)(nodes > 0 ? nodes : 1);
        json_t *br = json_object_get(e, "bus_ranks");
        m->bus_ranks = json_is_integer(br) ? (int)json_integer_value(br) : m->world;
        m->runs = (int)json_integer_value(json_object_get(e, "runs"));
        /* the window's points: a tick of the sampler, or a cell of the cluster's sum (forward: nodes; forward: ranks
         * on several nodes, whose rows come at their samplers' own ticks, the others' at power.forward_hz) */
        double hz = m->cluster_fed && mx_num(e, "forward_hz") > 0 ? mx_num(e, "forward_hz") : mx_num(e, "sample_hz");
        m->cell_s = 0;
        m->cell = INT64_MIN;
        if (!m->cluster_fed && nodes > 1 && hz > 0) {
            if (mx_num(e, "forward_hz") > 0 && mx_num(e, "forward_hz") < hz)
                hz = mx_num(e, "forward_hz");
            m->cell_s = 1 / hz;
        }
        mx_window(m, hz > 0 ? 1 / hz : 0);
        mx_reset_ranks(m);   /* this scenario's ranks only: none left over from an earlier one */
        mx_grow(m, m->world);
        m->nundone = 0;
        m->stepped = m->plain = m->ended = 0;
        mx_seed(m, json_string_value(json_object_get(e, "recovery")));
    } else if (strcmp(type, "run_begin") == 0 && json_integer_value(json_object_get(e, "node")) == 0) {   /* node 0's:
        * until 2026-12-02 another node's, forwarded late, zeroed every rank's count and the power window mid-run */
        m->run = (int)json_integer_value(json_object_get(e, "run"));
        str_copy(m->mitigation, sizeof m->mitigation, json_str_or(json_object_get(e, "mitigation")));
        str_copy(m->label, sizeof m->label, json_str_or(json_object_get(e, "label")));
        for (int k = 0; k < m->ranks; k++) {   /* this run's figures only: none of the run before under this label
                                                * (until 2026-12-02 a cap showed none's last rate until its first
                                                * compute phase ended) */
            m->r[k].iters = 0;
            m->r[k].iter_s = m->r[k].tflops = m->r[k].busbw = NAN;
            m->r[k].open_t = 0;
        }
        m->win_n = 0;
        m->iter_n = 0;
        m->nundone = 0;
    } else if (r && strcmp(type, "rank_dropped") == 0) {   /* recovery: shrink: it no longer iterates */
        r->dropped = 1;
        r->iter_s = r->tflops = r->busbw = NAN;
    } else if (r && strcmp(type, "ready") == 0) {   /* its GPU's UUID (cuda; "" on sim) */
        str_copy(r->gpu, sizeof r->gpu, json_str_or(json_object_get(e, "device")));
    } else if (live && strcmp(type, "iteration") == 0) {
        r->iter_s = mx_num(e, "dur_s");
        r->iters++;   /* counted, not the iteration's number: that goes back on a rollback */
        mx_iteration(m, r->iter_s);
    } else if (strcmp(type, "node_iteration") == 0 && m->per_node > 0) {   /* forward: nodes: a node's ranks, folded */
        mx_node_iteration(m, e);
    } else if (live && strcmp(type, "phase_begin") == 0) {   /* compute and comm: what the rates are of */
        const char *ph = json_str_or(json_object_get(e, "phase"));
        r->open_phase = strcmp(ph, "compute") == 0 ? 1 : strcmp(ph, "comm") == 0 ? 2 : 0;
        r->open_t = r->open_phase ? t : 0;
    } else if (live && strcmp(type, "phase_end") == 0 && r->open_t > 0 && t > r->open_t) {
        double d = t - r->open_t, bw = NAN;
        if (r->open_phase == 1 && json_is_number(json_object_get(e, "flops")) && mx_num(e, "flops") > 0)
            r->tflops = mx_num(e, "flops") / d / 1e12;
        else if (r->open_phase == 2 && strcmp(json_str_or(json_object_get(e, "phase")), "comm") == 0)
            bw = mx_busbw(m, e, d);   /* bytes/s: base units; a checkpoint's bytes are no communication */
        if (isfinite(bw))
            r->busbw = bw;
        r->open_t = 0;
    } else if (strcmp(type, "fault_undone") == 0 && json_is_integer(json_object_get(e, "id"))) {   /* it fires again
                                * on the new timeline: one fault, as summary.json (id null: a report dropped as stale,
                                * never counted, whose re-fire then counts) */
        if (m->nundone < MX_KINDS)
            m->undone[m->nundone++] = (int)json_integer_value(json_object_get(e, "fault_spec"));
    } else if (strcmp(type, "fault_injected") == 0 && json_is_true(json_object_get(e, "done")) &&
               json_is_integer(json_object_get(e, "id"))) {   /* one the fault table counts, as summary.json: not one
                                                              * that failed (done: false), nor one between runs */
        int spec = (int)json_integer_value(json_object_get(e, "fault_spec")), again = 0;
        for (int i = 0; i < m->nundone && !again; i++)
            if (m->undone[i] == spec)
                again = 1, m->undone[i] = m->undone[--m->nundone];
        if (!again)
            mx_bump(m->faults, json_string_value(json_object_get(e, "kind")));
    } else if (strcmp(type, "detection") == 0) {   /* a worker's detector_fired is followed by its detection: once */
        mx_bump(m->dets, json_string_value(json_object_get(e, "detector")));
    } else if (strcmp(type, "recovery_end") == 0 && !(json_integer_value(json_object_get(e, "node")) > 0)) {
        /* a recovery completed, once (node 0's: several nodes each write theirs); until 2026-12-01 each `recovered`
         * record, one per fault it recovered (two crashes at one iteration counted two) */
        mx_bump(m->recs, json_string_value(json_object_get(e, "recovery")));
    }
    m->changed++;
    pthread_mutex_unlock(&m->mu);
    json_decref(e);
}

/* Says a failed write of the textfile once per distinct error (errno e; 0: it was written): a folder lost for an
 * hour is one line, not one a second; the first write after a failure says so, once per error said. */
static void mx_text_said(struct metrics *m, const char *path, int e)
{
    if (!e) {
        if (m->text_failing)
            gl_log("--metrics-textfile: %s written again", path);
        m->text_failing = 0;
        return;
    }
    for (int i = 0; i < m->text_nerr; i++)
        if (m->text_err[i] == e)
            return;
    if (m->text_nerr < (int)ARRAY_LEN(m->text_err))
        m->text_err[m->text_nerr++] = e;
    m->text_failing = 1;
    gl_log("--metrics-textfile: cannot write %s: %s (said once: it is tried again every second, and this error is not "
           "said again)", path, strerror(e));
}

/* Rewrites DIR/gauntlet.prom whole (node_exporter reads *.prom; never a half-written file). */
static void mx_textfile(struct metrics *m)
{
    struct mx_buf b = { xmalloc(4096), 0, 4096 };
    pthread_mutex_lock(&m->text_mu);
    mx_render_now(m, &b, 0, 0);
    char path[600];
    snprintf(path, sizeof path, "%s/gauntlet.prom", m->textdir);
    /* in place is written: a file rewritten every second for a scraper needs no power loss survived, and its folder's
     * fsync failing is not said every second */
    int e = write_file_durable(path, b.s, b.len) < 0 ? (errno ? errno : EIO) : 0;
    m->text_wrote |= !e;
    mx_text_said(m, path, e);
    pthread_mutex_unlock(&m->text_mu);
    free(b.s);
}

/* Takes DIR/gauntlet.prom.lock (flock, held while the view is open; node_exporter reads *.prom only) with this
 * process's id in it: 0, or -1 with why when another run holds it (two runs would overwrite each other's file
 * every second) or it cannot be made. A folder without locks (flock unsupported) is said and goes on. */
static int mx_text_lock(struct metrics *m, char *why, size_t n)
{
    char path[600], pid[32];
    snprintf(path, sizeof path, "%s/gauntlet.prom.lock", m->textdir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, n, "--metrics-textfile: cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            ssize_t k = pread(fd, pid, sizeof pid - 1, 0);
            pid[k > 0 ? k : 0] = 0;
            pid[strcspn(pid, "\n")] = 0;
            snprintf(why, n, "--metrics-textfile %s: another gauntlet (process %s) writes its gauntlet.prom there: "
                     "give each run a folder of its own", m->textdir, pid[0] ? pid : "?");
            close(fd);
            return -1;
        }
        gl_log("--metrics-textfile: flock %s: %s: a second run given this folder would not be refused", path,
               strerror(errno));
    }
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len)   /* only what the refusal names */
        gl_log("--metrics-textfile: cannot write %s: %s", path, strerror(errno));
    m->text_lock = fd;
    return 0;
}

/* The view's own thread: every second, the textfile where something changed, and the server's connections that took
 * too long dropped. */
static void *mx_chores(void *arg)
{
    struct metrics *m = arg;
    unsigned long long written = 0;
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    pthread_mutex_lock(&m->chores_mu);
    while (!m->chores_stop) {
        at.tv_sec += (time_t)(MX_TEXT_EVERY_NS / 1000000000ull);
        while (!m->chores_stop && pthread_cond_timedwait(&m->chores_cv, &m->chores_mu, &at) == 0) {
        }
        if (m->chores_stop)
            break;
        pthread_mutex_unlock(&m->chores_mu);
        pthread_mutex_lock(&m->mu);
        unsigned long long changed = m->changed;
        pthread_mutex_unlock(&m->mu);
        if (m->textdir[0] && changed != written) {
            written = changed;
            mx_textfile(m);
        }
        mx_http_sweep(m);
        pthread_mutex_lock(&m->chores_mu);
    }
    pthread_mutex_unlock(&m->chores_mu);
    return NULL;
}

static void mx_power(void *ctx, double t_s, int rank, const struct power_reading *pr, int phase)
{
    struct metrics *m = ctx;
    if (m->inner)
        m->inner->power(m->inner->ctx, t_s, rank, pr, phase);
    if (rank < 0)
        return;
    pthread_mutex_lock(&m->mu);
    mx_grow(m, rank + 1);
    if (m->cell_s > 0 && !m->cluster_fed) {   /* forward: ranks, several nodes: node 0's own rows set the cells */
        double c_f = isfinite(t_s) ? floor(t_s / m->cell_s) : NAN;
        int64_t cell = fabs(c_f) < 9e15 ? (int64_t)c_f : INT64_MIN;
        if (rank < m->per_node && cell > m->cell) {
            /* the cells that ended, one a point (a cell with no tick of node 0's own, its jitter at the cell's edge, is
             * a point too): each GPU's latest row, no older than two cells before (rows reach node 0 late) */
            int64_t c = m->cell == INT64_MIN ? cell : cell - m->cell > m->win_cap ? cell - m->win_cap : m->cell;
            for (; c < cell; c++) {
                double sum = 0, from = (double)(c - 2) * m->cell_s;
                for (int k = 0; k < m->ranks; k++)
                    sum += m->r[k].watts_t >= from ? m->r[k].watts : NAN;
                mx_push(m, sum);
            }
            m->cell = cell;
        }
    } else if (t_s != m->tick_t && !isnan(m->tick_t) && !m->cluster_fed) {   /* a new tick: the last one's sum joins */
        double sum = 0;
        for (int k = 0; k < m->ranks; k++)   /* every rank's reading of that tick: one missing makes the point missing */
            sum += m->r[k].watts_t == m->tick_t ? m->r[k].watts : NAN;
        mx_push(m, sum);
        mx_push_missed(m, m->tick_t, t_s);
    }
    m->tick_t = t_s;
    m->r[rank].watts = pr->watts;
    m->r[rank].watts_t = t_s;
    m->r[rank].phase = phase;
    an_stamp_note(&m->r[rank].stamps, (int64_t)pr->sample_ns);   /* the sensor's own sample time, where it gives one */
    m->changed++;
    pthread_mutex_unlock(&m->mu);
}

static int mx_command(void *ctx, struct view_cmd *out)
{
    const struct view_link *in = ((struct metrics *)ctx)->inner;
    return in ? in->command(in->ctx, out) : 0;
}

/* Marks the run ended: until the next start, a scrape and the textfile say so (gauntlet_run_info 0, when it ended, the
 * counters' totals) and hold none of its gauges, which would read as a run in progress while the file stays. */
static void mx_end(struct metrics *m)
{
    struct timespec now;
    int ok = clock_gettime(CLOCK_REALTIME, &now) == 0;
    pthread_mutex_lock(&m->mu);
    m->ended = 1;
    m->end_utc_s = ok ? (double)now.tv_sec + now.tv_nsec * 1e-9 : NAN;
    m->changed++;
    pthread_mutex_unlock(&m->mu);
    mx_http_stale(m);
}

static void mx_stop(void *ctx)
{
    struct metrics *m = ctx;
    mx_end(m);
    if (m->textdir[0])
        mx_textfile(m);   /* the run's end */
    if (m->inner)
        m->inner->stop(m->inner->ctx);
}

/* forward: nodes: a node's sum (gauntlet_node_power_watts, never as its GPUs' own readings: a GPU with none read the
 * others' mean until 2026-12-02) and the cluster's (the window's sum). */
static void mx_node_power(void *ctx, double t_s, int node, double watts, int gpus)
{
    struct metrics *m = ctx;
    if (m->inner && m->inner->node_power)
        m->inner->node_power(m->inner->ctx, t_s, node, watts, gpus);
    pthread_mutex_lock(&m->mu);
    for (int q = node * m->per_node; node >= 0 && q < (node + 1) * m->per_node && q < m->ranks; q++) {
        m->r[q].node_w = gpus > 0 ? watts : NAN;
        m->r[q].node_gpus = gpus;
    }
    m->changed++;
    pthread_mutex_unlock(&m->mu);
}

static void mx_cluster_power(void *ctx, double t_s, double watts, int whole)
{
    struct metrics *m = ctx;
    if (m->inner && m->inner->cluster_power)
        m->inner->cluster_power(m->inner->ctx, t_s, watts, whole);
    pthread_mutex_lock(&m->mu);
    m->cluster_fed = 1;
    mx_push(m, whole ? watts : NAN);   /* a cell a node is missing from is a missing point */
    m->changed++;
    pthread_mutex_unlock(&m->mu);
}

const struct view_link *metrics_view_open(const struct view_link *inner, const char *listen, const char *textdir,
                                          char *why, size_t n)
{
    struct metrics *m = xcalloc(1, sizeof *m);
    m->text_lock = -1;   /* before any failure below: metrics_view_close closes it where it is taken */
    pthread_condattr_t ca;
    int made = 0;   /* how many of the locks and the condition were made: what metrics_view_close undoes */
    if (pthread_mutex_init(&m->mu, NULL) == 0 && ++made && pthread_mutex_init(&m->text_mu, NULL) == 0 && ++made &&
        pthread_mutex_init(&m->chores_mu, NULL) == 0 && ++made && pthread_condattr_init(&ca) == 0) {
        if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&m->chores_cv, &ca) == 0)
            made++;
        pthread_condattr_destroy(&ca);
    }
    m->made = made;
    if (made < 4) {
        snprintf(why, n, "metrics: cannot create a lock");
        metrics_view_close(&m->link);
        return NULL;
    }
    m->inner = inner;
    m->run = -1;
    m->tick_t = NAN;
    m->link = (struct view_link){ .ctx = m, .event = mx_event, .power = mx_power, .command = mx_command, .stop = mx_stop,
                                  .node_power = mx_node_power, .cluster_power = mx_cluster_power };
    if (textdir && str_copy(m->textdir, sizeof m->textdir, textdir) != 0) {   /* metrics_args refused it first */
        snprintf(why, n, "--metrics-textfile: path too long (at most %zu characters)", sizeof m->textdir - 1);
        metrics_view_close(&m->link);
        return NULL;
    }
    if (m->textdir[0] && mx_text_lock(m, why, n) != 0) {
        metrics_view_close(&m->link);
        return NULL;
    }
    if (listen && mx_http_start(m, listen, why, n) != 0) {
        metrics_view_close(&m->link);
        return NULL;
    }
    int e = pthread_create(&m->chores, NULL, mx_chores, m);
    if (e != 0) {
        snprintf(why, n, "metrics: cannot start its thread: %s", strerror(e));
        metrics_view_close(&m->link);
        return NULL;
    }
    m->chores_on = 1;
    return &m->link;
}

void metrics_view_close(const struct view_link *v)
{
    struct metrics *m = v ? v->ctx : NULL;
    if (!m)
        return;
    if (m->chores_on) {
        pthread_mutex_lock(&m->chores_mu);
        m->chores_stop = 1;
        pthread_cond_signal(&m->chores_cv);
        pthread_mutex_unlock(&m->chores_mu);
        pthread_join(m->chores, NULL);
    }
    if (m->made >= 4 && m->text_wrote && !m->ended) {   /* a run that never stopped its view: its file ends too */
        mx_end(m);
        mx_textfile(m);
    }
    mx_http_stop(m);
    if (m->text_lock >= 0 && close(m->text_lock) != 0)   /* lets the lock go */
        gl_log("--metrics-textfile: close %s/gauntlet.prom.lock: %s", m->textdir, strerror(errno));
    if (m->made >= 4)
        pthread_cond_destroy(&m->chores_cv);
    if (m->made >= 3)
        pthread_mutex_destroy(&m->chores_mu);
    if (m->made >= 2)
        pthread_mutex_destroy(&m->text_mu);
    if (m->made >= 1)
        pthread_mutex_destroy(&m->mu);
    free(m->extra);
    for (int k = 0; m->r && k < m->ranks; k++)
        free(m->r[k].stamps);
    free(m->r);
    free(m->win);
    free(m);
}

void metrics_view_attach(const struct view_link *v, const struct view_link *inner)
{
    struct metrics *m = v->ctx;
    pthread_mutex_lock(&m->mu);
    m->inner = inner;
    pthread_mutex_unlock(&m->mu);
}

void metrics_set_extra(const struct view_link *v, const char *text)
{
    struct metrics *m = v->ctx;
    pthread_mutex_lock(&m->mu);
    free(m->extra);
    m->extra = text ? xstrdup(text) : NULL;
    pthread_mutex_unlock(&m->mu);
    mx_http_stale(m);   /* the next scrape carries them */
}

/* Checks --metrics ADDR:PORT and --metrics-textfile DIR of cmd; 0, or the usage error (exit 2). */
int metrics_args(const struct cli_cmd *cmd, const struct cli_args *a, const char **listen, const char **dir)
{
    char why[256];
    struct sockaddr_in sa;
    struct stat st;
    *listen = cli_get(cmd, a, "metrics");
    *dir = cli_get(cmd, a, "metrics-textfile");
    if (*listen && metrics_parse_addr(*listen, &sa, why, sizeof why) != 0)
        return cli_bad(cmd, "metrics", *listen, why);
    if (*dir && path_fits("--metrics-textfile", *dir, sizeof ((struct metrics *)0)->textdir - 1) != 0)
        return EXIT_INPUT;   /* never written into a folder cut short */
    if (*dir && (stat(*dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return cli_bad(cmd, "metrics-textfile", *dir, "expected an existing folder (node_exporter's textfile folder)");
    return 0;
}

