/* harness/results.c: the results folder's writers (see results.h). Each reads records; none measures. */
#include "results.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cluster.h"
#include "shm.h"
#include "util.h"

json_t *json_num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

void results_default_dir(char *out, size_t n, const char *root, const char *name)
{
    char stamp[32];
    struct stat st;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(out, n, "%s/%s-%s", root, name, stamp);
    for (int i = 2; stat(out, &st) == 0 && i < 1000; i++)
        snprintf(out, n, "%s/%s-%s-%d", root, name, stamp, i);
}

int results_open(struct results *r, const char *dir, const struct scenario *sc, uint64_t t0_ns, char *why, size_t n)
{
    char path[1200];
    memset(r, 0, sizeof *r);
    r->events_fd = -1;
    r->t0_ns = t0_ns;
    r->node = -1;
    if (str_copy(r->dir, sizeof r->dir, dir) != 0 || mkdir_p(dir) != 0) {
        snprintf(why, n, "cannot create results folder %s: %s", dir, strerror(errno));
        return -1;
    }
    char *yaml = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&yaml, &len);
    if (!mem || scenario_write(sc, mem) != 0 || fclose(mem) != 0) {
        snprintf(why, n, "cannot render the resolved scenario");
        free(yaml);
        return -1;
    }
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    if (write_file_atomic(path, yaml, len) != 0) {
        snprintf(why, n, "cannot write %s: %s", path, strerror(errno));
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
    r->power = fopen(path, "we");
    if (!r->power || fputs("t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node\n", r->power) == EOF ||
        fflush(r->power) != 0) {
        snprintf(why, n, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int results_open_forward(struct results *r, const char *dir, const struct scenario *sc, int node, int ranks,
                         uint64_t t0_ns, char *why, size_t n)
{
    char path[1200];
    memset(r, 0, sizeof *r);
    r->events_fd = -1;
    r->t0_ns = t0_ns;
    r->node = node;
    r->forward = 1;
    r->fwd_ranks = ranks;
    r->fwd_t = xcalloc((size_t)ranks, sizeof *r->fwd_t);
    for (int i = 0; i < ranks; i++)
        r->fwd_t[i] = -1e300;
    if (sc->power.forward_hz <= 0 || sc->power.sample_hz <= sc->power.forward_hz)
        return 0;   /* every row goes to node 0 */
    r->forward_s = 1.0 / sc->power.forward_hz;
    snprintf(path, sizeof path, "%s/power-node%d.csv", dir, node);
    if (mkdir_p(dir) != 0 || !(r->power = fopen(path, "we")) ||
        fputs("t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node\n", r->power) == EOF) {
        snprintf(why, n, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
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
    char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(line);
    if (!text)
        return -1;
    size_t len = strlen(text);
    text[len] = '\n';   /* json_dumps leaves room: the terminator becomes the newline */
    int rc = r->forward ? (cluster_forward(CL_EVENTS, text, len + 1), 0)
                        : r->events_fd >= 0 ? write_all(r->events_fd, text, len + 1) : -1;
    if (r->view)
        r->view->event(r->view->ctx, text, len + 1);
    free(text);
    if (rc != 0)
        return SYSERR("write(events.jsonl)");
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

int results_power(struct results *r, uint64_t t_ns, int rank, const struct power_reading *p, int phase)
{
    char w[32], avg[32], e[32], clk[32], temp[32], thr[32] = "", row[384];
    double t_s = (double)(t_ns - r->t0_ns) * 1e-9;
    if (r->view)
        r->view->power(r->view->ctx, t_s, rank, p, phase);
    if (p->throttle)
        snprintf(thr, sizeof thr, "0x%llx", (unsigned long long)p->throttle);
    int len = snprintf(row, sizeof row, "%.6f,%d,%s,%s,%s,%s,%s,%s,%s,%d\n", t_s, rank + r->rank_offset,
                       fmt_or_empty(w, sizeof w, p->watts, 2), phase_name(phase), fmt_or_empty(avg, sizeof avg, p->avg_w, 2),
                       fmt_or_empty(e, sizeof e, p->energy_j, 3), fmt_or_empty(clk, sizeof clk, p->clock_mhz, 0),
                       fmt_or_empty(temp, sizeof temp, p->temp_c, 0), thr, r->node > 0 ? r->node : 0);
    if (len <= 0 || (size_t)len >= sizeof row)
        return -1;
    if (r->forward) {   /* node 0 gets a bounded rate; this node's own file every row */
        if (rank >= 0 && rank < r->fwd_ranks && t_s - r->fwd_t[rank] >= r->forward_s * 0.999) {
            r->fwd_t[rank] = t_s;
            cluster_forward(CL_POWER, row, (size_t)len);
        }
        return r->power && fputs(row, r->power) == EOF ? -1 : 0;
    }
    return r->power && fputs(row, r->power) != EOF ? 0 : -1;
}

int results_append(struct results *r, int power, const char *text, size_t len)
{
    if (power)
        return r->power && fwrite(text, 1, len, r->power) == len ? 0 : -1;
    if (r->events_fd < 0 || write_all(r->events_fd, text, len) != 0)
        return SYSERR("write(events.jsonl)");
    for (size_t i = 0; i < len; i++)
        r->events += text[i] == '\n';
    return 0;
}

int results_flush(struct results *r) { return r->power && fflush(r->power) != 0 ? SYSERR("fflush(power.csv)") : 0; }

int results_summary(struct results *r, json_t *summary)
{
    char path[1200];
    char *text = json_dumps(summary, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(8));
    if (!text)
        return -1;
    size_t len = strlen(text);
    snprintf(path, sizeof path, "%s/summary.json", r->dir);
    char *withnl = xmalloc(len + 2);
    memcpy(withnl, text, len);
    withnl[len] = '\n';
    int rc = write_file_atomic(path, withnl, len + 1);
    if (rc != 0)
        SYSERR("write summary.json");
    free(withnl);
    free(text);
    return rc;
}

void results_close(struct results *r)
{
    free(r->fwd_t);
    r->fwd_t = NULL;
    if (r->power) {
        if (fclose(r->power) != 0)
            SYSERR("fclose(power.csv)");
        r->power = NULL;
    }
    if (r->events_fd >= 0) {
        if (fsync(r->events_fd) != 0 && errno != EINVAL)
            SYSERR("fsync(events.jsonl)");
        close(r->events_fd);
        r->events_fd = -1;
    }
}
