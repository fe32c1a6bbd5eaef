/* harness/run/metrics.c: live metrics for Prometheus while a run goes (docs/results.md "Live metrics"). A view of
 * the run (struct view_link) wrapped around the live view or the progress lines: it reads the same events.jsonl
 * lines and power rows, keeps the figures an operator watches (per GPU: power, phase, iteration time, GEMM rate,
 * bus bandwidth; the node's swing, ramp and dominant frequency over the last 30 s of the summed power; faults by
 * kind, detections by detector, recoveries; the run and its mitigation), and exposes them as OpenMetrics over HTTP
 * (libmicrohttpd, --metrics ADDR:PORT: metrics_http.c) and as a node_exporter textfile (--metrics-textfile DIR,
 * rewritten whole every second by a thread of the view's own, never by the sampler that hands it the power rows). */
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "analysis_json.h"
#include "backend.h"
#include "cli.h"
#include "metrics_int.h"
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
        m->r[k] = (struct mx_rank){ .watts = NAN, .watts_t = NAN, .iter_s = NAN, .tflops = NAN, .busbw = NAN };
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

/* Adds a point of the summed power to the window (none before a start sized it). */
static void mx_push(struct metrics *m, double watts)
{
    if (m->win_cap <= 0)
        return;
    m->win[m->win_at] = watts;
    m->win_at = (m->win_at + 1) % m->win_cap;
    m->win_n = m->win_n < m->win_cap ? m->win_n + 1 : m->win_cap;
}

/* Sizes the window for points every dt_s: its last MX_WINDOW_S, within MX_WINDOW_MIN and MX_WINDOW_MAX points. */
static void mx_window(struct metrics *m, double dt_s)
{
    double want = dt_s > 0 ? ceil(MX_WINDOW_S / dt_s - 1e-9) : MX_WINDOW_MIN;
    int cap = want < MX_WINDOW_MIN ? MX_WINDOW_MIN : want > MX_WINDOW_MAX ? MX_WINDOW_MAX : (int)want;
    if (cap != m->win_cap) {
        free(m->win);
        m->win = xmalloc((size_t)cap * sizeof *m->win);
        m->win_cap = cap;
    }
    m->dt_s = dt_s > 0 ? dt_s : 0;
    m->win_n = m->win_at = 0;
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

static double mx_num(json_t *e, const char *k)
{
    json_t *v = json_object_get(e, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
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
    } else if (strcmp(type, "run_begin") == 0) {
        m->run = (int)json_integer_value(json_object_get(e, "run"));
        str_copy(m->mitigation, sizeof m->mitigation, json_str_or(json_object_get(e, "mitigation")));
        str_copy(m->label, sizeof m->label, json_str_or(json_object_get(e, "label")));
        for (int k = 0; k < m->ranks; k++)
            m->r[k].iters = 0;
        m->win_n = 0;
        m->iter_n = 0;
        m->nundone = 0;
    } else if (r && strcmp(type, "ready") == 0) {   /* its GPU's UUID (cuda; "" on sim) */
        str_copy(r->gpu, sizeof r->gpu, json_str_or(json_object_get(e, "device")));
    } else if (r && strcmp(type, "iteration") == 0) {
        r->iter_s = mx_num(e, "dur_s");
        r->iters++;   /* counted, not the iteration's number: that goes back on a rollback */
        mx_iteration(m, r->iter_s);
    } else if (strcmp(type, "node_iteration") == 0 && m->per_node > 0) {   /* forward: nodes: a node's ranks, folded */
        json_t *ph = json_object_get(e, "phases"), *c = json_object_get(ph, "compute"), *x = json_object_get(ph, "comm");
        double cs = mx_num(c, "s"), xs = mx_num(x, "s"), n = m->bus_ranks, k = mx_num(e, "ranks");
        json_int_t node = json_integer_value(json_object_get(e, "node"));
        mx_iteration(m, mx_num(e, "dur_s"));
        for (int q = node >= 0 && node < m->ranks / m->per_node ? (int)node * m->per_node : m->ranks, end = q + m->per_node; q < end && q < m->ranks; q++) {
            m->r[q].iter_s = mx_num(e, "dur_s");
            m->r[q].iters++;
            if (cs > 0 && k > 0 && mx_num(c, "flops") > 0)   /* per GPU: the node's flops over its slowest's time */
                m->r[q].tflops = mx_num(c, "flops") / k / cs / 1e12;
            if (xs > 0 && mx_num(x, "bytes") > 0 && n > 1)
                m->r[q].busbw = mx_num(x, "bytes") / xs * 2 * (n - 1) / n;
        }
    } else if (r && strcmp(type, "phase_begin") == 0) {   /* compute and comm: what the rates are of */
        const char *ph = json_str_or(json_object_get(e, "phase"));
        r->open_phase = strcmp(ph, "compute") == 0 ? 1 : strcmp(ph, "comm") == 0 ? 2 : 0;
        r->open_t = r->open_phase ? t : 0;
    } else if (r && strcmp(type, "phase_end") == 0 && r->open_t > 0 && t > r->open_t) {
        double d = t - r->open_t, n = m->bus_ranks;   /* n as summary.json's busbw */
        if (r->open_phase == 1 && json_is_number(json_object_get(e, "flops")) && mx_num(e, "flops") > 0)
            r->tflops = mx_num(e, "flops") / d / 1e12;
        else if (r->open_phase == 2 && strcmp(json_str_or(json_object_get(e, "phase")), "comm") == 0 &&
                 mx_num(e, "bytes") > 0 && n > 1)   /* a checkpoint's bytes are no communication */
            r->busbw = mx_num(e, "bytes") / d * 2 * (n - 1) / n;   /* bytes/s: base units */
        r->open_t = 0;
    } else if (strcmp(type, "fault_undone") == 0) {   /* it fires again on the new timeline: one fault, as summary.json */
        if (m->nundone < MX_KINDS)
            m->undone[m->nundone++] = (int)json_integer_value(json_object_get(e, "fault_spec"));
    } else if (strcmp(type, "fault_injected") == 0) {
        int spec = (int)json_integer_value(json_object_get(e, "fault_spec")), again = 0;
        for (int i = 0; i < m->nundone && !again; i++)
            if (m->undone[i] == spec)
                again = 1, m->undone[i] = m->undone[--m->nundone];
        if (!again)
            mx_bump(m->faults, json_string_value(json_object_get(e, "kind")));
    } else if (strcmp(type, "detection") == 0) {   /* a worker's detector_fired is followed by its detection: once */
        mx_bump(m->dets, json_string_value(json_object_get(e, "detector")));
    } else if (strcmp(type, "recovered") == 0) {
        mx_bump(m->recs, json_string_value(json_object_get(e, "recovery")));
    }
    m->changed++;
    pthread_mutex_unlock(&m->mu);
    json_decref(e);
}

/* Rewrites DIR/gauntlet.prom whole (node_exporter reads *.prom; never a half-written file). */
static void mx_textfile(struct metrics *m)
{
    struct mx_buf b = { xmalloc(4096), 0, 4096 };
    pthread_mutex_lock(&m->text_mu);
    mx_render_now(m, &b, 0, 0);
    char path[600];
    snprintf(path, sizeof path, "%s/gauntlet.prom", m->textdir);
    if (write_file_atomic(path, b.s, b.len) != 0)
        gl_log("--metrics-textfile: cannot write %s: %s", path, strerror(errno));
    pthread_mutex_unlock(&m->text_mu);
    free(b.s);
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
    struct metrics *m = ctx;
    return m->inner ? m->inner->command(m->inner->ctx, out) : 0;
}

static void mx_stop(void *ctx)
{
    struct metrics *m = ctx;
    if (m->textdir[0])
        mx_textfile(m);   /* the run's last figures */
    if (m->inner)
        m->inner->stop(m->inner->ctx);
}

int metrics_parse_addr(const char *text, struct sockaddr_in *out, char *why, size_t n)
{
    const char *colon = text ? strrchr(text, ':') : NULL;
    char host[64];
    long port = 0;
    int digits = colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) && strlen(colon + 1) <= 5;
    if (digits)
        port = strtol(colon + 1, NULL, 10);
    if (!colon || !digits || port < 1 || port > 65535 || (size_t)(colon - text) >= sizeof host) {
        snprintf(why, n, "expected ADDR:PORT with a port of 1 to 65535 in decimal (127.0.0.1:9400 or :9400 on this "
                 "machine only, 0.0.0.0:9400 on every address), got '%s'", text ? text : "");
        return -1;
    }
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = 0;
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons((uint16_t)port);
    if (!host[0])   /* loopback unless every address is asked for by name */
        out->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else if (strcmp(host, "*") == 0)
        out->sin_addr.s_addr = htonl(INADDR_ANY);
    else if (inet_pton(AF_INET, host, &out->sin_addr) != 1) {
        snprintf(why, n, "'%s' is not an IPv4 address (127.0.0.1, 0.0.0.0 for every address, or nothing before ':' "
                 "for this machine only)", host);
        return -1;
    }
    return 0;
}

/* forward: nodes: a node's sum (its ranks show its mean GPU) and the cluster's (the window's sum). */
static void mx_node_power(void *ctx, double t_s, int node, double watts, int gpus)
{
    struct metrics *m = ctx;
    if (m->inner && m->inner->node_power)
        m->inner->node_power(m->inner->ctx, t_s, node, watts, gpus);
    pthread_mutex_lock(&m->mu);
    for (int q = node * m->per_node; gpus > 0 && node >= 0 && q < (node + 1) * m->per_node && q < m->ranks; q++)
        m->r[q].watts = watts / gpus;
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
    mx_http_stop(m);
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

