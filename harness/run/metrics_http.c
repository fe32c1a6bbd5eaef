/* harness/run/metrics_http.c: the live metrics' HTTP server (--metrics ADDR:PORT; docs/results.md "Live metrics"):
 * libmicrohttpd on a thread of its own, opened when --metrics asks for it. A scrape renders at most every 200 ms
 * (a flood of scrapes costs one render per interval, none of it under the lock the sampler takes); one address may
 * hold 32 connections; a connection gets 10 s from its start, or from its last answer, to have its next answer sent
 * (an idle timer alone is reset by every byte a slow client drips). */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "metrics_int.h"
#include "util.h"

#define MX_PER_IP 32                        /* connections one address may hold */
#define MX_IDLE_S 10u                       /* libmicrohttpd's idle timeout */
#define MX_REQUEST_NS 10000000000ull        /* from a connection's start or last answer to its next answer sent */

/* Parses the server's address (metrics.h): strict, IPv4, loopback unless every address is asked for by name. */
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

#ifdef GAUNTLET_HAVE_MHD
#include <dlfcn.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>

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
    __typeof__(MHD_get_connection_info) *get_connection_info;
} mhd;

/* A connection the server holds: its socket and when its next answer's clock started. */
struct mx_conn {
    struct mx_conn *prev, *next;
    int fd, dropped;
    uint64_t since_ns;
};

struct mx_http {
    struct MHD_Daemon *d;
    pthread_mutex_t mu;         /* the connections */
    struct mx_conn *conns;
    unsigned long long dropped; /* connections dropped for taking too long */
    struct { struct mx_buf b; uint64_t ns; unsigned gen; int have; } cache[2];   /* by format: the server's thread only */
    _Atomic unsigned gen;       /* bumped when the caller's lines change: the cache is stale */
};

/* Opens libmicrohttpd and finds what metrics_http.c calls. 0, or -1 with why. */
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
                    (void **)&mhd.lookup_connection_value, (void **)&mhd.get_connection_info };
    const char *names[] = { "MHD_start_daemon", "MHD_stop_daemon", "MHD_create_response_from_buffer",
                            "MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response",
                            "MHD_lookup_connection_value", "MHD_get_connection_info" };
    for (size_t i = 0; i < ARRAY_LEN(fn); i++)
        if (!(*fn[i] = dlsym(h, names[i]))) {
            snprintf(why, n, "--metrics: libmicrohttpd lacks %s", names[i]);
            mhd.start_daemon = NULL;
            return -1;
        }
    return 0;
}

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

/* Queues an answer of status with body (taken: freed here) and a Content-Type; allow: an Allow header, or NULL. */
static enum MHD_Result mx_answer(struct MHD_Connection *c, unsigned status, char *body, size_t len, const char *type,
                                 const char *allow)
{
    struct MHD_Response *r = mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    if (mhd.add_response_header(r, "Content-Type", type) != MHD_YES ||
        (allow && mhd.add_response_header(r, "Allow", allow) != MHD_YES)) {
        mhd.destroy_response(r);
        return MHD_NO;
    }
    enum MHD_Result ok = mhd.queue_response(c, status, r);
    mhd.destroy_response(r);
    return ok;
}

/* The metrics text in format om: rendered anew once the last render is 200 ms old or the caller's lines changed,
 * else the last one's (only the server's thread comes here). A copy the caller frees. */
static char *mx_scrape_text(struct metrics *m, int om, size_t *len)
{
    struct mx_http *h = m->http;
    uint64_t now = mono_ns();
    unsigned gen = atomic_load(&h->gen);
    if (!h->cache[om].have || now - h->cache[om].ns >= MX_RENDER_EVERY_NS || h->cache[om].gen != gen) {
        h->cache[om].b.len = 0;
        mx_render_now(m, &h->cache[om].b, om, 1);
        h->cache[om].ns = now;
        h->cache[om].gen = gen;
        h->cache[om].have = 1;
        atomic_fetch_add(&m->renders, 1);
    }
    *len = h->cache[om].b.len;
    char *s = xmalloc(*len ? *len : 1);
    memcpy(s, h->cache[om].b.s, *len);
    return s;
}

static enum MHD_Result mx_http(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *data, size_t *size, void **state)
{
    (void)version, (void)data, (void)size, (void)state;
    struct metrics *m = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)   /* a scrape only reads */
        return mx_answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, xstrdup(""), 0, "text/plain; charset=utf-8", "GET, HEAD");
    if (strcmp(url, "/metrics") != 0) {
        const char *msg = "gauntlet: the metrics are at /metrics\n";
        return mx_answer(c, MHD_HTTP_NOT_FOUND, xstrdup(msg), strlen(msg), "text/plain; charset=utf-8", NULL);
    }
    /* OpenMetrics to a scraper that asks for it (Prometheus does), the Prometheus text format to anyone else (curl,
     * promtool): the content negotiation of Prometheus' own client libraries */
    const char *accept = mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    int om = accept && strstr(accept, "application/openmetrics-text") != NULL;
    size_t len;
    char *text = mx_scrape_text(m, om, &len);
    return mx_answer(c, MHD_HTTP_OK, text, len,
                     om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" : "text/plain; version=0.0.4; charset=utf-8",
                     NULL);
}

/* A connection opens (its clock starts) or closes (libmicrohttpd says so before it closes the socket). */
static void mx_notify_conn(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode code)
{
    struct mx_http *h = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct mx_conn *k = xcalloc(1, sizeof *k);
        k->fd = fd ? fd->connect_fd : -1;
        k->since_ns = mono_ns();
        pthread_mutex_lock(&h->mu);
        k->next = h->conns;
        if (h->conns)
            h->conns->prev = k;
        h->conns = k;
        pthread_mutex_unlock(&h->mu);
        *ctx = k;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *ctx) {
        struct mx_conn *k = *ctx;
        pthread_mutex_lock(&h->mu);
        if (k->prev)
            k->prev->next = k->next;
        else
            h->conns = k->next;
        if (k->next)
            k->next->prev = k->prev;
        pthread_mutex_unlock(&h->mu);
        free(k);
        *ctx = NULL;
    }
}

/* An answer was sent: the connection's clock starts again for its next request. */
static void mx_notify_done(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode code)
{
    struct mx_http *h = cls;
    (void)state, (void)code;
    const union MHD_ConnectionInfo *i = mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct mx_conn *k = i ? i->socket_context : NULL;
    if (!k)
        return;
    pthread_mutex_lock(&h->mu);
    k->since_ns = mono_ns();
    pthread_mutex_unlock(&h->mu);
}

void mx_http_sweep(struct metrics *m)
{
    struct mx_http *h = m->http;
    if (!h)
        return;
    uint64_t now = mono_ns();
    unsigned long long before = h->dropped;
    pthread_mutex_lock(&h->mu);   /* a socket in the list is open: it leaves the list before it is closed */
    for (struct mx_conn *k = h->conns; k; k = k->next)
        if (!k->dropped && k->fd >= 0 && now - k->since_ns > MX_REQUEST_NS) {
            if (shutdown(k->fd, SHUT_RDWR) != 0 && errno != ENOTCONN)
                gl_log("--metrics: cannot drop a connection that took over %llu s: %s", MX_REQUEST_NS / 1000000000ull,
                       strerror(errno));
            k->dropped = 1;   /* libmicrohttpd sees the socket end and closes it */
            h->dropped++;
        }
    pthread_mutex_unlock(&h->mu);
    if (before == 0 && h->dropped > 0)
        gl_log("--metrics: dropped a connection that took over %llu s for a request (said once)",
               MX_REQUEST_NS / 1000000000ull);
}

void mx_http_stale(struct metrics *m)
{
    if (m->http)
        atomic_fetch_add(&m->http->gen, 1);
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

int mx_http_start(struct metrics *m, const char *listen, char *why, size_t n)
{
    struct sockaddr_in sa;
    if (metrics_parse_addr(listen, &sa, why, n) != 0 || mhd_load(why, n) != 0)
        return -1;
    struct mx_http *h = xcalloc(1, sizeof *h);
    if (pthread_mutex_init(&h->mu, NULL) != 0) {
        snprintf(why, n, "--metrics: cannot create a mutex");
        free(h);
        return -1;
    }
    for (int f = 0; f < 2; f++)
        h->cache[f].b = (struct mx_buf){ xmalloc(4096), 0, 4096 };
    m->http = h;
    /* the address is this run's alone: no SO_REUSEPORT (a second run on the same port is refused, not handed half
     * of the scrapes) */
    h->d = mhd.start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, ntohs(sa.sin_port), NULL, NULL, mx_http,
                            m, MHD_OPTION_EXTERNAL_LOGGER, mx_mhd_log, NULL, MHD_OPTION_SOCK_ADDR, &sa,
                            MHD_OPTION_CONNECTION_LIMIT, mx_conn_limit(), MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                            (unsigned)MX_PER_IP, MHD_OPTION_CONNECTION_TIMEOUT, MX_IDLE_S, MHD_OPTION_NOTIFY_CONNECTION,
                            mx_notify_conn, h, MHD_OPTION_NOTIFY_COMPLETED, mx_notify_done, h, MHD_OPTION_END);
    if (!h->d) {
        snprintf(why, n, "--metrics %s: cannot listen there (in use, or not this machine's address?)", listen);
        mx_http_stop(m);
        return -1;
    }
    return 0;
}

void mx_http_stop(struct metrics *m)
{
    struct mx_http *h = m->http;
    if (!h)
        return;
    if (h->d)
        mhd.stop_daemon(h->d);   /* every connection closed, each said to mx_notify_conn */
    for (int f = 0; f < 2; f++)
        free(h->cache[f].b.s);
    pthread_mutex_destroy(&h->mu);
    free(h);
    m->http = NULL;
}
#else
int mx_http_start(struct metrics *m, const char *listen, char *why, size_t n)
{
    (void)m, (void)listen;
    snprintf(why, n, "--metrics: built without libmicrohttpd (install libmicrohttpd-dev and build again); "
                     "--metrics-textfile DIR works without it");
    return -1;
}

void mx_http_stop(struct metrics *m) { (void)m; }
void mx_http_sweep(struct metrics *m) { (void)m; }
void mx_http_stale(struct metrics *m) { (void)m; }
#endif
