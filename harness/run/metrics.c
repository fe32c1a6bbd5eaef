/* harness/run/metrics.c: live metrics for Prometheus while a run goes (docs/results.md "Live metrics"). A view of
 * the run (struct view_link) wrapped around the live view or the progress lines: it reads the same events.jsonl
 * lines and power rows, keeps the figures an operator watches (per GPU: power, phase, iteration time, GEMM rate,
 * bus bandwidth; the node's swing, ramp and dominant frequency over the last 30 s of the summed power; faults by
 * kind, detections by detector, recoveries; the run and its mitigation), and exposes them as OpenMetrics over HTTP
 * (libmicrohttpd, --metrics ADDR:PORT) and as a node_exporter textfile (--metrics-textfile DIR, rewritten whole
 * every second). */
#include "metrics.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "analysis.h"
#include "analysis_json.h"
#include "backend.h"
#include "cli.h"
#include "metrics_int.h"
#include "util.h"
#include <sys/resource.h>
#include <sys/stat.h>
#ifdef GAUNTLET_HAVE_MHD
#include <dlfcn.h>
#include <microhttpd.h>

/* libmicrohttpd is opened when --metrics asks for it, not linked: it brings GnuTLS and half a dozen libraries
 * more, and every process of a run (every worker is this program again) would pay for loading them (+2.5 ms a
 * start, measured on the 2-core VM). */
static struct {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
} mhd;

/* Opens libmicrohttpd and finds what metrics.c calls. 0, or -1 with why. */
static int mhd_load(char *why, size_t n)
{
    if (mhd.start_daemon)
        return 0;
    void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libmicrohttpd.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, n, "--metrics: cannot open libmicrohttpd (%s): apt-get install libmicrohttpd12", dlerror());
        return -1;
    }
    void **fn[] = { (void **)&mhd.start_daemon, (void **)&mhd.stop_daemon, (void **)&mhd.create_response_from_buffer,
                    (void **)&mhd.add_response_header, (void **)&mhd.queue_response, (void **)&mhd.destroy_response,
                    (void **)&mhd.lookup_connection_value };
    const char *names[] = { "MHD_start_daemon", "MHD_stop_daemon", "MHD_create_response_from_buffer",
                            "MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response",
                            "MHD_lookup_connection_value" };
    for (size_t i = 0; i < ARRAY_LEN(fn); i++)
        if (!(*fn[i] = dlsym(h, names[i]))) {
            snprintf(why, n, "--metrics: libmicrohttpd lacks %s", names[i]);
            mhd.start_daemon = NULL;
            return -1;
        }
    return 0;
}
#endif

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
        double hz = mx_num(e, "sample_hz");
        m->dt_s = hz > 0 ? 1 / hz : 0;
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
    pthread_mutex_unlock(&m->mu);
    json_decref(e);
}

/* Rewrites DIR/gauntlet.prom whole (node_exporter reads *.prom; never a half-written file). */
static void mx_textfile(struct metrics *m)
{
    struct mx_buf b = { xmalloc(4096), 0, 4096 };
    pthread_mutex_lock(&m->mu);
    mx_render(m, &b, 0, 0);
    pthread_mutex_unlock(&m->mu);
    char path[600];
    snprintf(path, sizeof path, "%s/gauntlet.prom", m->textdir);
    if (write_file_atomic(path, b.s, b.len) != 0)
        gl_log("--metrics-textfile: cannot write %s: %s", path, strerror(errno));
    free(b.s);
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
    if (t_s != m->tick_t && !isnan(m->tick_t) && !m->cluster_fed) {   /* a new tick: the last one's sum joins the window */
        double sum = 0;
        for (int k = 0; k < m->ranks; k++)   /* every rank's reading of that tick: one missing makes the point missing */
            sum += m->r[k].watts_t == m->tick_t ? m->r[k].watts : NAN;
        m->win[m->win_at] = sum;
        m->win_at = (m->win_at + 1) % MX_WINDOW;
        m->win_n = m->win_n < MX_WINDOW ? m->win_n + 1 : MX_WINDOW;
    }
    m->tick_t = t_s;
    m->r[rank].watts = pr->watts;
    m->r[rank].watts_t = t_s;
    m->r[rank].phase = phase;
    an_stamp_note(&m->r[rank].stamps, (int64_t)pr->sample_ns);   /* the sensor's own sample time, where it gives one */
    pthread_mutex_unlock(&m->mu);
    uint64_t now = mono_ns();
    if (m->textdir[0] && now - m->text_ns >= MX_TEXT_EVERY_NS) {
        m->text_ns = now;
        mx_textfile(m);
    }
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

#ifdef GAUNTLET_HAVE_MHD
/* libmicrohttpd's messages (a client that closed half-way, one over the connection limit): the first few said, then
 * that the rest are not (a flood of clients would otherwise write a line each). */
static void mx_mhd_log(void *cls, const char *fmt, va_list ap)
{
    static _Atomic int said;
    (void)cls;
    int k = atomic_fetch_add(&said, 1);
    if (k < 5) {
        char msg[256];
        vsnprintf(msg, sizeof msg, fmt, ap);
        msg[strcspn(msg, "\n")] = 0;
        gl_log("--metrics: %s", msg);
    } else if (k == 5) {
        gl_log("--metrics: further messages of the HTTP server are not shown");
    }
}

static enum MHD_Result mx_http(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *data, size_t *size, void **state)
{
    (void)version, (void)data, (void)size, (void)state;
    struct metrics *m = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return MHD_NO;
    int found = strcmp(url, "/metrics") == 0;
    /* OpenMetrics to a scraper that asks for it (Prometheus does), the Prometheus text format to anyone else (curl,
     * promtool): the content negotiation of Prometheus' own client libraries */
    const char *accept = mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    int om = accept && strstr(accept, "application/openmetrics-text") != NULL;
    struct mx_buf b = { xmalloc(4096), 0, 4096 };
    if (found) {
        pthread_mutex_lock(&m->mu);
        mx_render(m, &b, om, 1);
        pthread_mutex_unlock(&m->mu);
    } else {
        mx_put(&b, "gauntlet: the metrics are at /metrics\n");
    }
    struct MHD_Response *r = mhd.create_response_from_buffer(b.len, b.s, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(b.s);
        return MHD_NO;
    }
    mhd.add_response_header(r, "Content-Type", found && om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                               : found ? "text/plain; version=0.0.4; charset=utf-8"
                                                       : "text/plain; charset=utf-8");
    enum MHD_Result ok = mhd.queue_response(c, found ? MHD_HTTP_OK : MHD_HTTP_NOT_FOUND, r);
    mhd.destroy_response(r);
    return ok;
}
#endif

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

/* How many scrapers the endpoint holds at once: what the process may open, less a reserve the run keeps for itself
 * (its results, its workers' pipes, the GPUs' handles), at most MX_CONN_MAX and at least 8. The soft limit on open
 * files is raised to the hard one first (the usual 1024 would leave little). */
#define MX_CONN_MAX 4096
#define MX_FD_RESERVE 256
static unsigned mx_conn_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 64;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        if (want > rl.rlim_cur) {
            struct rlimit up = { want, rl.rlim_max };
            if (setrlimit(RLIMIT_NOFILE, &up) == 0)
                rl.rlim_cur = want;
        }
    }
    rlim_t cur = rl.rlim_cur == RLIM_INFINITY ? 65536 : rl.rlim_cur;
    rlim_t avail = cur > 2 * MX_FD_RESERVE ? cur - 2 * MX_FD_RESERVE : 8;   /* the reserve, and room for its own growth */
    return avail > MX_CONN_MAX ? MX_CONN_MAX : avail < 8 ? 8 : (unsigned)avail;
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
    pthread_mutex_unlock(&m->mu);
}

static void mx_cluster_power(void *ctx, double t_s, double watts, int whole)
{
    struct metrics *m = ctx;
    if (m->inner && m->inner->cluster_power)
        m->inner->cluster_power(m->inner->ctx, t_s, watts, whole);
    pthread_mutex_lock(&m->mu);
    m->cluster_fed = 1;
    m->win[m->win_at] = whole ? watts : NAN;   /* a cell a node is missing from is a missing point */
    m->win_at = (m->win_at + 1) % MX_WINDOW;
    m->win_n = m->win_n < MX_WINDOW ? m->win_n + 1 : MX_WINDOW;
    pthread_mutex_unlock(&m->mu);
}

const struct view_link *metrics_view_open(const struct view_link *inner, const char *listen, const char *textdir,
                                          char *why, size_t n)
{
    struct metrics *m = xcalloc(1, sizeof *m);
    if (pthread_mutex_init(&m->mu, NULL) != 0) {
        snprintf(why, n, "metrics: cannot create a mutex");
        free(m);
        return NULL;
    }
    m->inner = inner;
    m->run = -1;
    m->tick_t = NAN;
    m->link = (struct view_link){ .ctx = m, .event = mx_event, .power = mx_power, .command = mx_command, .stop = mx_stop,
                                  .node_power = mx_node_power, .cluster_power = mx_cluster_power };
    if (textdir && str_copy(m->textdir, sizeof m->textdir, textdir) != 0) {   /* metrics_args refused it first */
        snprintf(why, n, "--metrics-textfile: path too long (at most %zu characters)", sizeof m->textdir - 1);
        pthread_mutex_destroy(&m->mu);
        free(m);
        return NULL;
    }
    if (listen) {
#ifdef GAUNTLET_HAVE_MHD
        struct sockaddr_in sa;
        if (metrics_parse_addr(listen, &sa, why, n) != 0 || mhd_load(why, n) != 0 ||
            !(m->mhd = mhd.start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, ntohs(sa.sin_port), NULL,
                                        NULL, mx_http, m, MHD_OPTION_EXTERNAL_LOGGER, mx_mhd_log, NULL,
                                        MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u,
                                        MHD_OPTION_CONNECTION_LIMIT, mx_conn_limit(), MHD_OPTION_CONNECTION_TIMEOUT,
                                        10u, MHD_OPTION_END))) {
            if (!why[0])
                snprintf(why, n, "--metrics %s: cannot listen there (in use, or not this machine's address?)", listen);
            metrics_view_close(&m->link);
            return NULL;
        }
#else
        snprintf(why, n, "--metrics: built without libmicrohttpd (install libmicrohttpd-dev and build again); "
                         "--metrics-textfile DIR works without it");
        metrics_view_close(&m->link);
        return NULL;
#endif
    }
    return &m->link;
}

void metrics_view_close(const struct view_link *v)
{
    struct metrics *m = v ? v->ctx : NULL;
    if (!m)
        return;
#ifdef GAUNTLET_HAVE_MHD
    if (m->mhd)
        mhd.stop_daemon(m->mhd);
#endif
    pthread_mutex_destroy(&m->mu);
    free(m->extra);
    for (int k = 0; m->r && k < m->ranks; k++)
        free(m->r[k].stamps);
    free(m->r);
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

