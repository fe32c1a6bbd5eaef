/* harness/run/metrics_render.c: the live metrics as text — OpenMetrics for an HTTP scrape, Prometheus text 0.0.4 for
 * node_exporter's textfile collector (metrics.c keeps the figures). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_json.h"
#include "metrics_int.h"
#include "util.h"

void mx_put(struct mx_buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < b->cap - b->len) {
            b->len += (size_t)k;
            return;
        }
        b->cap = b->cap * 2 + (size_t)(k > 0 ? k : 256);
        b->s = xrealloc(b->s, b->cap);
    }
}

/* A family's header: HELP and TYPE (and UNIT in OpenMetrics, when its name ends in it). A counter's TYPE line
 * names the family without _total in OpenMetrics, with it in the Prometheus format. */
static void mx_family(struct mx_buf *b, int om, const char *name, const char *type, const char *unit, const char *help)
{
    char fam[96];
    str_copy(fam, sizeof fam, name);
    if (om && strcmp(type, "counter") == 0 && strlen(fam) > 6 && strcmp(fam + strlen(fam) - 6, "_total") == 0)
        fam[strlen(fam) - 6] = 0;
    mx_put(b, "# HELP %s %s\n# TYPE %s %s\n", fam, help, fam, type);
    if (om && unit)
        mx_put(b, "# UNIT %s %s\n", fam, unit);
}

/* A sample's value: NaN and the infinities spelled as both formats take them (printf's inf is neither's). */
static void mx_value(struct mx_buf *b, double v)
{
    if (isnan(v))
        mx_put(b, " NaN\n");
    else if (isinf(v))
        mx_put(b, v > 0 ? " +Inf\n" : " -Inf\n");
    else
        mx_put(b, " %.9g\n", v);
}

/* Escapes a label value (backslash, quote, newline). */
static void mx_label(char *out, size_t n, const char *v)
{
    size_t o = 0;
    for (const char *c = v ? v : ""; *c && o + 3 < n; c++) {
        if (*c == '\\' || *c == '"')
            out[o++] = '\\', out[o++] = *c;
        else if (*c == '\n')
            out[o++] = '\\', out[o++] = 'n';
        else
            out[o++] = *c;
    }
    out[o] = 0;
}

/* Compares two doubles for qsort. */
static int mx_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The node of global rank k (ranks are numbered node by node, docs/cluster.md). */
static int mx_node(const struct mx_snap *s, int k) { return s->per_node > 0 ? k / s->per_node : 0; }

void mx_snap_take(struct metrics *m, struct mx_snap *s, int extra)
{
    double its[MX_ITERS];
    int iter_n;
    /* the copies' room made (and its pages touched) before the lock is taken: only the copying holds it; a start
     * in between that grew them leaves the newest that fit, and the next render has them all */
    pthread_mutex_lock(&m->mu);
    int nx = m->win_n, nr = m->ranks;
    pthread_mutex_unlock(&m->mu);
    s->r = xcalloc((size_t)(nr ? nr : 1), sizeof *s->r);
    s->x = xcalloc((size_t)(nx ? nx : 1), sizeof *s->x);
    memset(s->x, 0, (size_t)(nx ? nx : 1) * sizeof *s->x);
    pthread_mutex_lock(&m->mu);
    s->ranks = m->ranks < nr ? m->ranks : nr;
    s->win_n = m->win_n < nx ? m->win_n : nx;
    s->per_node = m->per_node, s->run = m->run, s->runs = m->runs, s->dt_s = m->dt_s;
    s->ended = m->ended, s->end_utc_s = m->end_utc_s;
    memcpy(s->mitigation, m->mitigation, sizeof s->mitigation);
    memcpy(s->label, m->label, sizeof s->label);
    if (s->ranks > 0)   /* before a run's start there are no ranks, and m->r is NULL */
        memcpy(s->r, m->r, (size_t)s->ranks * sizeof *s->r);
    for (int i = 0, at = m->win_at - s->win_n + m->win_cap; i < s->win_n; i++)   /* the newest, oldest first */
        s->x[i] = m->win[(at + i) % m->win_cap];
    /* as the summary: the sum's sensor is the slowest of the ranks' where they stamp their samples (the cluster's
     * sum on node 0's grid is measured: its cells average the nodes') */
    s->update_s = 0;
    for (int k = 0; !m->cluster_fed && k < s->ranks; k++)
        s->update_s = fmax(s->update_s, an_stamp_update_s(m->r[k].stamps));
    memcpy(its, m->iter_ring, sizeof its);
    iter_n = m->iter_n;
    memcpy(s->faults, m->faults, sizeof s->faults);
    memcpy(s->dets, m->dets, sizeof s->dets);
    memcpy(s->recs, m->recs, sizeof s->recs);
    s->extra = extra && m->extra ? xstrdup(m->extra) : NULL;
    pthread_mutex_unlock(&m->mu);
    for (int k = 0; k < s->ranks; k++)
        s->r[k].stamps = NULL;
    s->period_s = 0;   /* the median iteration lately */
    if (iter_n >= 3) {
        qsort(its, (size_t)iter_n, sizeof *its, mx_cmp_double);
        s->period_s = its[iter_n / 2];
    }
}

void mx_snap_free(struct mx_snap *s)
{
    free(s->r);
    free(s->x);
    free(s->extra);
    *s = (struct mx_snap){ 0 };
}

void mx_render_now(struct metrics *m, struct mx_buf *b, int om, int extra)
{
    struct mx_snap s;
    mx_snap_take(m, &s, extra);
    mx_render(&s, b, om);
    mx_snap_free(&s);
}

/* The per-GPU series: the gauges (none once the run ended: they would read as a run in progress), the iteration
 * counter and the phase (the gauges a shrink's dropped rank no longer has but its GPU's power). */
static void mx_render_ranks(const struct mx_snap *m, struct mx_buf *b, int om, const char *mit)
{
    static const char *const phases[] = { "idle", "compute", "comm", "checkpoint", "optimizer" };
    char gpu[128];
    const struct { const char *name, *type, *unit, *help; size_t off; int iterates; } per[] = {
        { "gauntlet_gpu_power_watts", "gauge", "watts", "the GPU's power, last reading (DCGM_FI_DEV_POWER_USAGE)",
          offsetof(struct mx_rank, watts), 0 },
        { "gauntlet_iteration_seconds", "gauge", "seconds", "the rank's last iteration", offsetof(struct mx_rank, iter_s), 1 },
        { "gauntlet_gemm_tflops", "gauge", NULL, "TFLOP/s of the rank's last compute phase",
          offsetof(struct mx_rank, tflops), 1 },
        { "gauntlet_busbw_bytes_per_second", "gauge", NULL,
          "bus bandwidth of the rank's last communication phase (nccl-tests' busbw, as summary.json's)",
          offsetof(struct mx_rank, busbw), 1 },
    };
    for (size_t f = 0; f < ARRAY_LEN(per) && !m->ended; f++) {
        mx_family(b, om, per[f].name, per[f].type, per[f].unit, per[f].help);
        for (int k = 0; k < m->ranks; k++) {
            if (per[f].iterates && m->r[k].dropped)
                continue;
            mx_label(gpu, sizeof gpu, m->r[k].gpu);
            mx_put(b, "%s{node=\"%d\",rank=\"%d\",gpu=\"%s\",mitigation=\"%s\"}", per[f].name, mx_node(m, k), k, gpu,
                   mit);
            mx_value(b, *(const double *)((const char *)&m->r[k] + per[f].off));
        }
    }
    int fed = 0;   /* forward: nodes: the other nodes' sums, each its GPUs' (their own readings stay on it) */
    for (int k = 0; k < m->ranks && m->per_node > 0; k++)
        fed |= !isnan(m->r[k].node_w);
    for (int g = 0; fed && !m->ended && g < 2; g++) {
        mx_family(b, om, g ? "gauntlet_node_power_gpus" : "gauntlet_node_power_watts", "gauge", g ? NULL : "watts",
                  g ? "the GPUs whose readings another node's last summed power holds (forward: nodes)"
                    : "another node's power summed over its GPUs, its last cell forwarded to node 0 (forward: nodes)");
        for (int k = 0; k < m->ranks; k += m->per_node)
            if (!isnan(m->r[k].node_w)) {
                mx_put(b, "%s{node=\"%d\",mitigation=\"%s\"}", g ? "gauntlet_node_power_gpus" : "gauntlet_node_power_watts",
                       mx_node(m, k), mit);
                mx_value(b, g ? (double)m->r[k].node_gpus : m->r[k].node_w);
            }
    }
    mx_family(b, om, "gauntlet_iterations_total", "counter", NULL, "iteration records of the rank in this run (a rollback's redone ones count again)");
    for (int k = 0; k < m->ranks; k++)
        if (!m->r[k].dropped)
            mx_put(b, "gauntlet_iterations_total{node=\"%d\",rank=\"%d\",mitigation=\"%s\"} %lld\n", mx_node(m, k), k,
                   mit, m->r[k].iters);
    if (m->ended)
        return;
    mx_family(b, om, "gauntlet_gpu_phase", "gauge", NULL, "1 for the phase the rank is in");
    for (int k = 0; k < m->ranks; k++)
        for (size_t p = 0; m->r[k].phase >= 0 && p < ARRAY_LEN(phases); p++)   /* a phase not known: none */
            mx_put(b, "gauntlet_gpu_phase{node=\"%d\",rank=\"%d\",phase=\"%s\"} %d\n", mx_node(m, k), k, phases[p],
                   m->r[k].phase == (int)p);
}

/* The node's summed power over the window: the same analysis as the summary's, with the snapshot's sensor update
 * interval and iteration period. */
static void mx_render_power(const struct mx_snap *m, struct mx_buf *b, int om, const char *mit)
{
    struct an_result res = { 0 };
    struct an_series ser = { m->x, (size_t)m->win_n, m->dt_s, m->update_s, m->period_s };
    int ok = m->win_n >= MX_WINDOW_MIN && m->dt_s > 0 && analysis_run(&ser, an_default_bands, 4, &res) == 0;
    /* the window's span: 30 s once a run has gone that long (less where the rate is over 2184 Hz: at most
     * MX_WINDOW_MAX points) */
    double span = m->win_n > 0 && m->dt_s > 0 ? m->win_n * m->dt_s : NAN;
    const struct { const char *name, *unit, *help; double v; } agg[] = {
        { "gauntlet_power_watts", "watts", "the node's power, summed over its GPUs (its window: mean)", ok ? res.mean_w : NAN },
        { "gauntlet_power_swing_watts", "watts", "p99 - p1 of the summed power over its window", ok ? res.swing_w : NAN },
        { "gauntlet_power_ramp_up_watts_per_second", NULL, "largest rise of the summed power over 100 ms, its window",
          ok ? res.ramp_up_w_s[1] : NAN },
        { "gauntlet_power_dominant_hertz", "hertz", "dominant frequency of the summed power, its window (NaN where the "
          "sensor cannot resolve it)", ok ? res.dominant_hz : NAN },
        { "gauntlet_power_sensor_update_seconds", "seconds", "the summed power's readings change this often (its slowest "
          "sensor's update interval: from its stamps, else measured over its window): a figure it cannot resolve is NaN",
          ok ? res.update_s : NAN },
        { "gauntlet_power_window_seconds", "seconds", "the summed power's window, which the gauntlet_power_ figures are "
          "over: its last 30 s (less at a run's start, and where the sample rate is over 2184 Hz)", span },
    };
    for (size_t f = 0; f < ARRAY_LEN(agg); f++) {
        mx_family(b, om, agg[f].name, "gauge", agg[f].unit, agg[f].help);
        mx_put(b, "%s{mitigation=\"%s\"}", agg[f].name, mit);
        mx_value(b, agg[f].v);
    }
}

/* The metrics of the run in progress, in OpenMetrics (om) or the Prometheus text format; once it ended, its end
 * (gauntlet_run_info 0, when, the counters' totals); with the caller's lines where the snapshot holds them. */
void mx_render(const struct mx_snap *m, struct mx_buf *b, int om)
{
    char mit[96], lbl[160], name[96];
    mx_label(mit, sizeof mit, m->mitigation);
    mx_label(lbl, sizeof lbl, m->label);
    mx_render_ranks(m, b, om, mit);
    if (!m->ended)
        mx_render_power(m, b, om, mit);
    const struct { const char *name, *label, *help; const struct mx_count *c; } cnt[] = {
        { "gauntlet_faults_injected_total", "kind", "faults injected, by kind", m->faults },
        { "gauntlet_detections_total", "detector", "detections, by detector", m->dets },
        { "gauntlet_recoveries_total", "recovery", "recoveries completed, by strategy", m->recs },
    };
    for (size_t f = 0; f < ARRAY_LEN(cnt); f++) {
        mx_family(b, om, cnt[f].name, "counter", NULL, cnt[f].help);
        for (int i = 0; i < MX_KINDS && cnt[f].c[i].name[0]; i++) {
            mx_label(name, sizeof name, cnt[f].c[i].name);
            mx_put(b, "%s{%s=\"%s\"} %llu\n", cnt[f].name, cnt[f].label, name, cnt[f].c[i].n);
        }
    }
    mx_family(b, om, "gauntlet_run_info", "gauge", NULL, "the mitigation run in progress (1-based) and its label: 1 while "
              "it goes, 0 once the run has ended");
    mx_put(b, "gauntlet_run_info{run=\"%d\",runs=\"%d\",mitigation=\"%s\",label=\"%s\"} %d\n", m->run + 1, m->runs, mit,
           lbl, !m->ended);
    if (m->ended) {
        mx_family(b, om, "gauntlet_run_end_timestamp_seconds", "gauge", "seconds", "when the run ended (Unix time)");
        if (isfinite(m->end_utc_s))   /* to the millisecond: %.9g would round it to 10 s */
            mx_put(b, "gauntlet_run_end_timestamp_seconds %.3f\n", m->end_utc_s);
        else
            mx_put(b, "gauntlet_run_end_timestamp_seconds NaN\n");
    }
    if (m->extra)
        mx_put(b, "%s", m->extra);
    if (om)
        mx_put(b, "# EOF\n");
}
