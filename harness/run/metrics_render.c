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

/* A sample's value: NaN spelled as both formats take it. */
static void mx_value(struct mx_buf *b, double v)
{
    if (isnan(v))
        mx_put(b, " NaN\n");
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

/* The node of global rank k (ranks are numbered node by node, docs/cluster.md). */
/* Compares two doubles for qsort. */
static int mx_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int mx_node(const struct metrics *m, int k) { return m->per_node > 0 ? k / m->per_node : 0; }

/* The metrics of the run in progress, in OpenMetrics (om) or the Prometheus text format; with the caller's lines
 * (extra) when asked. */
void mx_render(struct metrics *m, struct mx_buf *b, int om, int extra)
{
    static const char *const phases[] = { "idle", "compute", "comm", "checkpoint", "optimizer" };
    char mit[96], lbl[160], gpu[128];
    mx_label(mit, sizeof mit, m->mitigation);
    mx_label(lbl, sizeof lbl, m->label);
    const struct { const char *name, *type, *unit, *help; size_t off; } per[] = {
        { "gauntlet_gpu_power_watts", "gauge", "watts", "the GPU's power, last reading (DCGM_FI_DEV_POWER_USAGE)",
          offsetof(struct mx_rank, watts) },
        { "gauntlet_iteration_seconds", "gauge", "seconds", "the rank's last iteration", offsetof(struct mx_rank, iter_s) },
        { "gauntlet_gemm_tflops", "gauge", NULL, "TFLOP/s of the rank's last compute phase",
          offsetof(struct mx_rank, tflops) },
        { "gauntlet_busbw_bytes_per_second", "gauge", NULL,
          "bus bandwidth of the rank's last communication phase (nccl-tests' busbw, n as summary.json's)", offsetof(struct mx_rank, busbw) },
    };
    for (size_t f = 0; f < ARRAY_LEN(per); f++) {
        mx_family(b, om, per[f].name, per[f].type, per[f].unit, per[f].help);
        for (int k = 0; k < m->ranks; k++) {
            mx_label(gpu, sizeof gpu, m->r[k].gpu);
            mx_put(b, "%s{node=\"%d\",rank=\"%d\",gpu=\"%s\",mitigation=\"%s\"}", per[f].name, mx_node(m, k), k, gpu,
                   mit);
            mx_value(b, *(const double *)((const char *)&m->r[k] + per[f].off));
        }
    }
    mx_family(b, om, "gauntlet_iterations_total", "counter", NULL, "iteration records of the rank in this run (a rollback's redone ones count again)");
    for (int k = 0; k < m->ranks; k++)
        mx_put(b, "gauntlet_iterations_total{node=\"%d\",rank=\"%d\",mitigation=\"%s\"} %lld\n", mx_node(m, k), k, mit,
               m->r[k].iters);
    mx_family(b, om, "gauntlet_gpu_phase", "gauge", NULL, "1 for the phase the rank is in");
    for (int k = 0; k < m->ranks; k++)
        for (size_t p = 0; p < ARRAY_LEN(phases); p++)
            mx_put(b, "gauntlet_gpu_phase{node=\"%d\",rank=\"%d\",phase=\"%s\"} %d\n", mx_node(m, k), k, phases[p],
                   m->r[k].phase == (int)p);
    /* the node's summed power over the window: the same analysis as the summary's */
    struct an_result res = { 0 };
    double *x = xmalloc((size_t)(m->win_n ? m->win_n : 1) * sizeof *x);
    for (int i = 0; i < m->win_n; i++)
        x[i] = m->win[(m->win_at - m->win_n + i + MX_WINDOW) % MX_WINDOW];
    /* as the summary: the sum's sensor is the slowest of the ranks' where they stamp their samples (the cluster's
     * sum on node 0's grid is measured: its cells average the nodes'), the period the median iteration lately */
    double update = 0, period = 0, its[MX_ITERS];
    for (int k = 0; !m->cluster_fed && k < m->ranks; k++)
        update = fmax(update, an_stamp_update_s(m->r[k].stamps));
    memcpy(its, m->iter_ring, sizeof its);
    if (m->iter_n >= 3) {
        qsort(its, (size_t)m->iter_n, sizeof *its, mx_cmp_double);
        period = its[m->iter_n / 2];
    }
    struct an_series s = { x, (size_t)m->win_n, m->dt_s, update, period };
    int ok = m->win_n >= 16 && m->dt_s > 0 && analysis_run(&s, an_default_bands, 4, &res) == 0;
    free(x);
    const struct { const char *name, *unit, *help; double v; } agg[] = {
        { "gauntlet_power_watts", "watts", "the node's power, summed over its GPUs (last 30 s: mean)", ok ? res.mean_w : NAN },
        { "gauntlet_power_swing_watts", "watts", "p99 - p1 of the summed power over the last 30 s", ok ? res.swing_w : NAN },
        { "gauntlet_power_ramp_up_watts_per_second", NULL, "largest rise of the summed power over 100 ms, last 30 s",
          ok ? res.ramp_up_w_s[1] : NAN },
        { "gauntlet_power_dominant_hertz", "hertz", "dominant frequency of the summed power, last 30 s (NaN where the "
          "sensor cannot resolve it)", ok ? res.dominant_hz : NAN },
        { "gauntlet_power_sensor_update_seconds", "seconds", "the summed power's readings change this often (its slowest "
          "sensor's update interval: from its stamps, else measured over the last 30 s): a figure it cannot resolve is NaN", ok ? res.update_s : NAN },
    };
    for (size_t f = 0; f < ARRAY_LEN(agg); f++) {
        mx_family(b, om, agg[f].name, "gauge", agg[f].unit, agg[f].help);
        mx_put(b, "%s{mitigation=\"%s\"}", agg[f].name, mit);
        mx_value(b, agg[f].v);
    }
    const struct { const char *name, *label, *help; const struct mx_count *c; } cnt[] = {
        { "gauntlet_faults_injected_total", "kind", "faults injected, by kind", m->faults },
        { "gauntlet_detections_total", "detector", "detections, by detector", m->dets },
        { "gauntlet_recoveries_total", "recovery", "recoveries completed, by strategy", m->recs },
    };
    for (size_t f = 0; f < ARRAY_LEN(cnt); f++) {
        mx_family(b, om, cnt[f].name, "counter", NULL, cnt[f].help);
        for (int i = 0; i < MX_KINDS && cnt[f].c[i].name[0]; i++)
            mx_put(b, "%s{%s=\"%s\"} %llu\n", cnt[f].name, cnt[f].label, cnt[f].c[i].name, cnt[f].c[i].n);
    }
    mx_family(b, om, "gauntlet_run_info", "gauge", NULL, "the mitigation run in progress (1-based) and its label");
    mx_put(b, "gauntlet_run_info{run=\"%d\",runs=\"%d\",mitigation=\"%s\",label=\"%s\"} 1\n", m->run + 1, m->runs, mit, lbl);
    if (extra && m->extra)
        mx_put(b, "%s", m->extra);
    if (om)
        mx_put(b, "# EOF\n");
}

