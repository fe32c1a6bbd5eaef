/* harness/accept/accept.c: the acceptance suite (see accept.h). Every check reads the run's results files, so a
 * verdict can be traced to the rows it came from; only checkpoint_io measures something itself. */
#include "accept.h"
#include "accept_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cluster.h"
#include "recovery/recovery.h"
#include "detectors/detector.h"
#include "results.h"
#include "stats.h"
#include "supervisor.h"
#include "util.h"

/* ---- verdicts */
struct verdict *accept_add(struct verdicts *vs, const struct scenario *sc, const char *check, int status)
{
    if (vs->n == vs->cap) {
        vs->cap = vs->cap ? 2 * vs->cap : 64;
        vs->v = xrealloc(vs->v, (size_t)vs->cap * sizeof *vs->v);
    }
    struct verdict *v = &vs->v[vs->n++];
    memset(v, 0, sizeof *v);
    str_copy(v->scenario, sizeof v->scenario, sc ? sc->name : "");
    str_copy(v->check, sizeof v->check, check);
    str_copy(v->subject, sizeof v->subject, "run");
    v->node = v->gpu = v->rank = -1;
    v->status = status;
    v->value = v->limit = NAN;
    return v;
}

void accept_note(struct verdict *v, const char *fmt, ...)
{
    char text[4 * sizeof v->note];   /* cut below on a character's boundary, never inside one */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    accept_utf8_copy(v->note, sizeof v->note, text);
}

struct verdict *accept_skip(struct verdicts *vs, const struct scenario *sc, const char *check, const char *why)
{
    struct verdict *v = accept_add(vs, sc, check, V_SKIP);
    accept_note(v, "%s", why);
    return v;
}

void accept_place(struct verdict *v, int node, int rank, int per_node)
{
    /* gpu is the index an operator finds the device by on its node (nvidia-smi, CUDA_VISIBLE_DEVICES); until
     * 2026-11-30 subjects and verdicts.json's gpu gave the global rank ("node 1 gpu 3" on 2 GPUs per node) */
    v->node = node;
    v->rank = rank;
    v->gpu = rank >= 0 && per_node > 0 ? rank % per_node : -1;
    if (v->gpu >= 0)
        snprintf(v->subject, sizeof v->subject, "node %d gpu %d", node, v->gpu);
    else
        snprintf(v->subject, sizeof v->subject, "node %d", node);
}

/* A SKIP about one GPU: subject "node N gpu I", and its node, gpu and rank set as a judged verdict's (verdicts.json). */
static struct verdict *skip_gpu(struct verdicts *vs, const struct scenario *sc, const char *check,
                                const struct rundata *d, int rank)
{
    struct verdict *v = accept_skip(vs, sc, check, "");
    accept_place(v, d->r[rank].node, rank, d->per_node);
    return v;
}

/* A figure against a threshold: PASS when value cmp limit holds. */
struct verdict *accept_judge(struct verdicts *vs, const struct scenario *sc, const char *check, int node, int gpu,
                             int rank, double value, const char *cmp, double limit, const char *unit)
{
    int ok = isfinite(value) && (cmp[0] == '>' ? value >= limit : value <= limit);
    struct verdict *v = accept_add(vs, sc, check, ok ? V_PASS : V_FAIL);
    v->node = node;
    v->gpu = rank >= 0 ? gpu : -1;
    v->rank = rank;
    if (rank >= 0)
        snprintf(v->subject, sizeof v->subject, "node %d gpu %d", node, gpu);
    else
        snprintf(v->subject, sizeof v->subject, "node %d", node);
    v->value = value;
    v->limit = limit;
    str_copy(v->cmp, sizeof v->cmp, cmp);
    str_copy(v->unit, sizeof v->unit, unit);
    if (!isfinite(value))
        accept_note(v, "not measured");
    return v;
}

/* accept_judge for the GPU of global rank i. */
static struct verdict *judge_gpu(struct verdicts *vs, const struct scenario *sc, const char *check,
                                 const struct rundata *d, int i, double value, const char *cmp, double limit,
                                 const char *unit)
{
    return accept_judge(vs, sc, check, d->r[i].node, d->r[i].idx, i, value, cmp, limit, unit);
}

void accept_free(struct verdicts *v)
{
    free(v->v);
    memset(v, 0, sizeof *v);
}

/* ---- expectations by GPU model */
double accept_expected_tflops(const char *gpu, int dtype)
{
    /* Hopper SXM (H100 SXM, H200): what the harness's GEMM chain sustains at 8192^3, measured on an H100 80GB
     * HBM3 (bf16 710, fp8 1304 TFLOP/s; docs/performance.md), rounded down; fp16 runs as bf16; tf32 at half
     * the bf16 rate (its dense peak is half). H100 PCIe: its peak is 756/989 of the SXM's; H100 NVL and H200 NVL (PCIe
     * cards, NVLink bridged in pairs, a lower power limit) 835/989. */
    static const double hopper[] = { [DT_BF16] = 700, [DT_FP16] = 700, [DT_TF32] = 350, [DT_FP8] = 1280 };
    double scale = 0;
    if (strstr(gpu, "H100") || strstr(gpu, "H200") || strstr(gpu, "H800") || strstr(gpu, "H20 "))
        scale = strstr(gpu, "PCIe") ? 756.0 / 989.0 : strstr(gpu, "NVL") ? 835.0 / 989.0 : strstr(gpu, "H20 ") ? 0 : 1;
    if (scale <= 0 || dtype < 0 || dtype >= (int)ARRAY_LEN(hopper) || hopper[dtype] <= 0)
        return NAN;
    return hopper[dtype] * scale;
}

/* 8 Hopper SXM GPUs over NVLink 4: nccl-tests all_reduce_perf busbw at large sizes is 360-480 GB/s; the
 * lower end is the expectation. PCIe cards (PCIe, and NVL: NVLink bridged in pairs only) have none. */
double accept_expected_busbw(const char *gpu)
{
    if (!strstr(gpu, "H100") && !strstr(gpu, "H200"))
        return NAN;
    return strstr(gpu, "PCIe") || strstr(gpu, "NVL") ? NAN : 360;
}

static double median_of(const double *x, int n)
{
    struct series s = { 0 };
    for (int i = 0; i < n; i++)
        series_add(&s, x[i]);
    double m = series_pct(&s, 50);
    series_free(&s);
    return m;
}

/* ---- the checks */
static void check_gemm(const struct scenario *sc, const struct rundata *d, const char *backend,
                       struct verdicts *vs)
{
    const struct backend_ops *bk = backend_find(backend);   /* a model's rate is its scenario's, a GPU's its table's */
    for (int i = 0; i < d->nranks; i++) {
        double exp = sc->checks.gemm_tflops.expected;
        if (!(exp > 0))
            exp = bk && bk->model_tflops ? bk->model_tflops(sc) : accept_expected_tflops(d->r[i].gpu, sc->workload.gemm.dtype);
        if (!isfinite(exp)) {
            struct verdict *v = skip_gpu(vs, sc, "gemm_tflops", d, i);
            accept_note(v, "no expected rate for '%s' in %s: give checks.gemm_tflops.expected", d->r[i].gpu,
                  dtype_name((enum dtype)sc->workload.gemm.dtype));
            continue;
        }
        double x = d->r[i].tflops_mean;   /* FLOPs over compute-phase time: a GPU slow in some phases pays for them */
        struct verdict *v = judge_gpu(vs, sc, "gemm_tflops", d, i, x, ">=", sc->checks.gemm_tflops.min_share * exp,
                                  "TFLOP/s");
        if (isfinite(x))
            accept_note(v, "%.0f%% of the expected %.4g TFLOP/s: FLOPs over compute-phase time (median phase %.4g)",
                        100 * x / exp, exp, d->r[i].tflops);
    }
}

static void check_busbw(const struct scenario *sc, const struct rundata *d, const char *backend,
                        struct verdicts *vs)
{
    const struct backend_ops *bk = backend_find(backend);
    if (sc->workload.allreduce.emulate_busbw_gbs > 0) {
        accept_skip(vs, sc, "busbw", "the all-reduce is emulated (workload.allreduce.emulate_busbw): nothing to measure");
        return;
    }
    if (d->nranks < 2) {
        accept_skip(vs, sc, "busbw", "one rank: no all-reduce between GPUs");
        return;
    }
    double exp = sc->checks.busbw.expected;
    if (!(exp > 0))
        exp = bk && bk->model_busbw_gbs ? bk->model_busbw_gbs(sc) : accept_expected_busbw(d->r[0].gpu);
    if (!isfinite(exp)) {
        struct verdict *v = accept_skip(vs, sc, "busbw", "");
        accept_note(v, "no expected bus bandwidth for '%s': give checks.busbw.expected", d->r[0].gpu);
        return;
    }
    for (int k = 0; k < d->nodes; k++)   /* as each node measured the collective */
        accept_judge(vs, sc, "busbw", k, -1, -1, d->node_busbw[k], ">=", sc->checks.busbw.min_share * exp, "GB/s");
}

/* Why a GPU has too few readings of one phase: a reading is the phase's only when the phase lasted over all it
 * covers (the time since the reading before it: the sensor's update). */
static void few_readings(struct verdict *v, const struct rankdata *r, const char *phase, size_t have)
{
    char span[64] = "";
    if (isfinite(r->span_s))
        snprintf(span, sizeof span, " (each covers %.3g ms)", r->span_s * 1e3);
    accept_note(v, "%zu power readings lie wholly in %s phases, 5 needed%s: a reading that spans two phases "
                   "measures neither; lengthen the phases past the readings' span (where it is the sampler's, not the "
                   "sensor's, raise power.sample_hz)", have, phase, span);
}

/* A GPU with no power reading at all is said as such, never as phases too short (until 2026-11-30 it was, and the
 * operator was sent to the scenario for a sensor that gave nothing): a FAIL on a GPU (its power reading is what is
 * checked), a SKIP on a model. 1 when it judged check for GPU i, else 0. */
static int no_readings(const struct scenario *sc, const struct rundata *d, int i, int modelled, const char *check,
                       struct verdicts *vs)
{
    const struct rankdata *r = &d->r[i];
    if (r->readings > 0 || r->end_record)
        return 0;
    struct verdict *v = accept_add(vs, sc, check, modelled ? V_SKIP : V_FAIL);
    accept_place(v, r->node, i, d->per_node);
    char why[300];
    if (d->power_why[0])
        snprintf(why, sizeof why, "%s", d->power_why);
    else if (r->node > 0)
        snprintf(why, sizeof why, "power.csv has no row of it, and node %d's end record no figures for it", r->node);
    else
        snprintf(why, sizeof why, "power.csv has no reading of rank %d: its sensor gave none", i);
    accept_note(v, "no power reading of this GPU in the whole run (%s)", why);
    return 1;
}

static void check_power(const struct scenario *sc, struct rundata *d, int modelled, struct verdicts *vs)
{
    for (int i = 0; i < d->nranks; i++) {
        struct rankdata *r = &d->r[i];
        /* no reading at all is said first, whatever is known of the TDP (until 2026-12-02 a GPU whose TDP was not
         * known either, NVML gone, was a SKIP: a GPU with no power reading on real hardware is a FAIL) */
        if (no_readings(sc, d, i, modelled, "power_under_load", vs))
            continue;
        if (r->compute_n < 5 || !(r->tdp_w > 0)) {
            struct verdict *v = skip_gpu(vs, sc, "power_under_load", d, i);
            if (r->tdp_w > 0)
                few_readings(v, r, "compute", r->compute_n);
            else
                accept_note(v, "the GPU's TDP is not known (give power.tdp_w)");
            continue;
        }
        double p90 = r->compute_p90_w;
        struct verdict *v = judge_gpu(vs, sc, "power_under_load", d, i, p90, ">=",
                                      sc->checks.power_under_load.min_share_tdp * r->tdp_w, "W");
        accept_note(v, "p90 of %zu readings wholly in compute phases; TDP %.0f W", r->compute_n, r->tdp_w);
    }
}

static void check_swing(const struct scenario *sc, struct rundata *d, int modelled, struct verdicts *vs)
{
    for (int i = 0; i < d->nranks; i++) {
        struct rankdata *r = &d->r[i];
        if (no_readings(sc, d, i, modelled, "power_swing", vs))
            continue;
        if (r->compute_n < 5 || r->comm_n < 5) {
            struct verdict *v = skip_gpu(vs, sc, "power_swing", d, i);
            few_readings(v, r, r->compute_n < 5 ? "compute" : "communication",
                         r->compute_n < 5 ? r->compute_n : r->comm_n);
            continue;
        }
        double hi = r->compute_p90_w, lo = r->comm_p10_w;
        struct verdict *v = judge_gpu(vs, sc, "power_swing", d, i, hi > 0 ? 1 - lo / hi : NAN, ">=",
                                      sc->checks.power_swing.min_drop, "share");
        accept_note(v, "communication p10 %.0f W, compute p90 %.0f W", lo, hi);
    }
}

/* NVML clock-event reasons that are not about power: anything but idle (0x1), application clocks (0x2) and
 * the software power cap (0x4). A hardware power brake (0x80) fails: it is the board's supply saying stop. */
#define THROTTLE_ALLOWED 0x7ull

static void check_throttle(const struct scenario *sc, struct rundata *d, const char *backend,
                           struct verdicts *vs)
{
    const struct backend_ops *bk = backend_find(backend);
    if (bk && bk->modelled) {
        struct verdict *v = accept_skip(vs, sc, "throttle", "");
        accept_note(v, "the %s backend is a model: it has no throttle reasons", bk->name);
        return;
    }
    for (int i = 0; i < d->nranks; i++) {
        struct rankdata *r = &d->r[i];
        if (!r->throttle_rows) {   /* never read is not "no reason": no pass */
            struct verdict *v = skip_gpu(vs, sc, "throttle", d, i);
            if (r->readings > 0 || r->end_record)
                accept_note(v, "NVML gave power but never the clock-event reasons for this GPU");
            else
                accept_note(v, "no NVML readings for this GPU%s%s", d->power_why[0] ? ": " : "", d->power_why);
            continue;
        }
        uint64_t bad = r->throttle & ~THROTTLE_ALLOWED;
        struct verdict *v = judge_gpu(vs, sc, "throttle", d, i, (double)bad, "<=", 0, "reason bits");
        accept_note(v, "reasons seen 0x%llx in %d readings (allowed 0x%llx: idle, application clocks, software power cap)",
                    (unsigned long long)r->throttle, r->throttle_rows, THROTTLE_ALLOWED);
    }
}

/* Fleet outliers: a GPU more than k scaled MADs below the median of its peers, and more than min_rel below
 * it, on a figure where more is better (GEMM rate; power under load). */
static void check_outliers(const struct scenario *sc, struct rundata *d, struct verdicts *vs)
{
    if (d->nranks < 3) {
        accept_skip(vs, sc, "outliers", "fewer than 3 GPUs: no peers to compare");
        return;
    }
    double *x = xmalloc((size_t)d->nranks * sizeof *x), *dev = xmalloc((size_t)d->nranks * sizeof *dev);
    const char *figs[2] = { "GEMM TFLOP/s", "compute-phase power p90 (W)" };
    int worst_rank = -1, far_rank = -1, compared = 0;
    double worst = 0, far = 0, min_rel = sc->checks.outliers.min_rel;
    char note[240] = "", far_note[200] = "";
    for (int f = 0; f < 2; f++) {
        int have = 0;
        for (int i = 0; i < d->nranks; i++) {   /* every GPU of every node: the fleet */
            x[i] = f == 0 ? d->r[i].tflops : (d->r[i].compute_n >= 5 ? d->r[i].compute_p90_w : NAN);
            have += isfinite(x[i]);
        }
        if (have < 3)
            continue;
        compared++;
        double med = median_of(x, d->nranks);
        for (int i = 0; i < d->nranks; i++)
            dev[i] = fabs(x[i] - med);
        double mad = 1.4826 * median_of(dev, d->nranks);
        for (int i = 0; i < d->nranks; i++) {
            double below = med - x[i];
            double score = below / fmax(mad, 1e-9 * fabs(med));
            int beyond = isfinite(x[i]) && below > min_rel * med;   /* past min_rel: judged by its MADs */
            if (beyond && score > sc->checks.outliers.k) {
                struct verdict *v = accept_add(vs, sc, "outliers", V_FAIL);
                accept_place(v, d->r[i].node, i, d->per_node);
                v->value = score;
                v->limit = sc->checks.outliers.k;
                str_copy(v->cmp, sizeof v->cmp, "<=");
                str_copy(v->unit, sizeof v->unit, "MADs");
                accept_note(v, "%s %.4g is %.1f%% below its peers' median %.4g", figs[f], x[i], 100 * below / med, med);
            }
            /* the PASS's figure is the MADs of the furthest GPU past min_rel, the test a FAIL fails: one within
             * min_rel is no outlier however many MADs (peers that agree to the digit), and until 2026-11-30 its MADs
             * made a PASS whose value was over its threshold */
            if (beyond && isfinite(score) && score > worst) {
                worst = score;
                worst_rank = i;
                snprintf(note, sizeof note, "furthest below: node %d gpu %d, %s %.1f%% under the median", d->r[i].node,
                         d->r[i].idx, figs[f], 100 * below / med);
            }
            if (isfinite(x[i]) && med > 0 && below / med > far) {
                far = below / med;
                far_rank = i;
                snprintf(far_note, sizeof far_note, "node %d gpu %d, %s %.2g%% under the median", d->r[i].node,
                         d->r[i].idx, figs[f], 100 * far);
            }
        }
    }
    int failed = 0;
    for (int i = 0; i < vs->n; i++)
        failed += strcmp(vs->v[i].check, "outliers") == 0 && vs->v[i].status == V_FAIL &&
                  strcmp(vs->v[i].scenario, sc->name) == 0;
    if (!compared)   /* nothing was compared: no pass */
        accept_skip(vs, sc, "outliers", "fewer than 3 GPUs had a GEMM rate or a compute-phase power figure (5 "
                                        "readings wholly in compute phases) to compare");
    else if (!failed) {
        struct verdict *v = accept_add(vs, sc, "outliers", V_PASS);
        if (d->nodes > 1)
            snprintf(v->subject, sizeof v->subject, "%d GPUs of %d nodes", d->nranks, d->nodes);
        else
            snprintf(v->subject, sizeof v->subject, "node 0");
        v->node = d->nodes > 1 ? -1 : 0;
        v->value = worst;
        v->limit = sc->checks.outliers.k;
        str_copy(v->cmp, sizeof v->cmp, "<=");
        str_copy(v->unit, sizeof v->unit, "MADs");
        if (worst_rank >= 0)
            accept_note(v, "%s", note);
        else if (far_rank >= 0)
            accept_note(v, "every GPU within %g%% (min_rel) of its peers' median; furthest below: %s", 100 * min_rel,
                        far_note);
        else
            accept_note(v, "every GPU at its peers' median");
    }
    free(x);
    free(dev);
}

/* Node-level outliers over several nodes: bus bandwidth as each node measured it, checkpoint write and read. */
static void check_node_outliers(const struct scenario *sc, struct rundata *d, const double *io_w, const double *io_r,
                                struct verdicts *vs)
{
    const double *figs[3] = { d->node_busbw, io_w, io_r };
    const char *names[3] = { "all-reduce bus bandwidth (GB/s)", "checkpoint write (GB/s)", "checkpoint read (GB/s)" };
    double *dev = xmalloc((size_t)d->nodes * sizeof *dev), worst = 0;
    int compared = 0, failed = 0;
    for (int f = 0; f < 3; f++) {
        const double *x = figs[f];
        int have = 0;
        for (int k = 0; x && k < d->nodes; k++)
            have += isfinite(x[k]);
        if (have < 3)
            continue;
        compared++;
        double med = median_of(x, d->nodes);
        for (int k = 0; k < d->nodes; k++)
            dev[k] = fabs(x[k] - med);
        double mad = 1.4826 * median_of(dev, d->nodes);
        for (int k = 0; k < d->nodes; k++) {
            double below = med - x[k], score = below / fmax(mad, 1e-9 * fabs(med));
            if (isfinite(x[k]) && below > sc->checks.outliers.min_rel * med && isfinite(score) && score > worst)
                worst = score;   /* past min_rel only, as outliers' PASS: its value never over its threshold */
            if (!isfinite(x[k]) || below <= sc->checks.outliers.min_rel * med || score <= sc->checks.outliers.k)
                continue;
            failed++;
            struct verdict *v = accept_add(vs, sc, "node_outliers", V_FAIL);
            v->node = k;
            snprintf(v->subject, sizeof v->subject, "node %d", k);
            v->value = score;
            v->limit = sc->checks.outliers.k;
            str_copy(v->cmp, sizeof v->cmp, "<=");
            str_copy(v->unit, sizeof v->unit, "MADs");
            accept_note(v, "%s %.4g is %.1f%% below the nodes' median %.4g", names[f], x[k], 100 * below / med, med);
        }
    }
    free(dev);
    if (!compared)   /* said, not left out: a check the table never shows passes nothing (until 2026-11-30) */
        accept_skip(vs, sc, "node_outliers", "fewer than 3 nodes had a bus bandwidth or a checkpoint rate to compare");
    else if (!failed) {
        struct verdict *v = accept_add(vs, sc, "node_outliers", V_PASS);
        snprintf(v->subject, sizeof v->subject, "%d nodes", d->nodes);
        v->node = -1;
        v->value = worst;
        v->limit = sc->checks.outliers.k;
        str_copy(v->cmp, sizeof v->cmp, "<=");
        str_copy(v->unit, sizeof v->unit, "MADs");
        accept_note(v, "%d figure(s) compared; the furthest below its peers' median at %.1f MADs", compared, worst);
    }
}

/* Each worker on the CPUs of its GPU's NUMA node (the cuda backend pins it there at start). */
static void check_numa(const struct scenario *sc, struct rundata *d, struct verdicts *vs)
{
    for (int i = 0; i < d->nranks; i++) {
        struct rankdata *r = &d->r[i];
        if (r->numa_node < 0 || r->numa_pinned < 0) {
            struct verdict *v = skip_gpu(vs, sc, "numa", d, i);
            accept_note(v, r->numa_node == -1 ? "the GPU reports no NUMA node (one socket, or sysfs without numa_node)"
                                              : "the worker did not report its NUMA placement");
            continue;
        }
        struct verdict *v = judge_gpu(vs, sc, "numa", d, i, r->numa_pinned, ">=", 1, "pinned");
        accept_note(v, r->numa_pinned ? "the worker runs on NUMA node %d's CPUs only"
                                      : "the worker may run on CPUs outside its GPU's NUMA node %d (GAUNTLET_NO_PIN, or a "
                                        "cpuset that forbids that node's CPUs)",
                    r->numa_node);
    }
}

/* Host-to-device copies from pinned memory, measured by each cuda worker at start. */
static void check_h2d(const struct scenario *sc, struct rundata *d, struct verdicts *vs)
{
    for (int i = 0; i < d->nranks; i++) {
        struct rankdata *r = &d->r[i];
        if (!isfinite(r->h2d_gbs)) {
            struct verdict *v = skip_gpu(vs, sc, "h2d_bandwidth", d, i);
            accept_note(v, "the copy test did not run or failed (see the run's messages)");
            continue;
        }
        struct verdict *v = judge_gpu(vs, sc, "h2d_bandwidth", d, i, r->h2d_gbs, ">=", sc->checks.h2d_bandwidth.min_gbs,
                                  "GB/s");
        accept_note(v, "the best of 5 copies of %llu MiB from pinned memory",
                    (unsigned long long)(sc->checks.h2d_bandwidth.bytes >> 20));
    }
}

/* Whether vs already holds a `run` verdict of sc before index n0 (the suite's own, from the run's exit). */
static int accept_has_run_verdict(const struct verdicts *vs, const struct scenario *sc, int n0)
{
    for (int i = 0; i < n0 && i < vs->n; i++)
        if (!strcmp(vs->v[i].check, "run") && !strcmp(vs->v[i].scenario, sc->name))
            return 1;
    return 0;
}

int accept_evaluate(const struct scenario *sc, const char *rundir, const char *backend, const double *io_w,
                    const double *io_r, struct verdicts *vs, char *why, size_t n)
{
    const struct backend_ops *bk = backend_find(backend);
    struct rundata d;
    int n0 = vs->n;
    if (load_run(rundir, &d, why, n) != 0) {
        rundata_free(&d);
        return -1;
    }
    const struct checks *c = &sc->checks;
    if (!d.run) {
        struct verdict *v = accept_add(vs, sc, "run", V_FAIL);
        accept_note(v, "no run in summary.json");
    } else if (json_is_string(json_object_get(d.summary, "rebuilt_by"))) {   /* a killed suite's run, judged later */
        struct verdict *v = accept_add(vs, sc, "run", V_FAIL);
        accept_note(v, "it did not end: %s (the summary rebuilt from its record; the rest judged on what it ran)",
                    jstr(d.summary, "stopped", "killed"));
    } else if (!accept_has_run_verdict(vs, sc, n0) && (!json_is_integer(json_object_get(d.summary, "exit")) ||
                                                       json_integer_value(json_object_get(d.summary, "exit")) != 0 ||
                                                       json_is_string(json_object_get(d.summary, "stopped")))) {
        /* a run that ended early, its summary whole (a killed suite's, judged by the next: until 2026-12-02 judged
         * as if it had finished; the suite that ran it said so itself, once) */
        struct verdict *v = accept_add(vs, sc, "run", V_FAIL);
        json_t *e = json_object_get(d.summary, "exit");
        accept_note(v, "it ended early (exit %s%lld): %s (the rest judged on what it ran)", json_is_integer(e) ? "" : "?",
                    json_is_integer(e) ? (long long)json_integer_value(e) : 0LL, jstr(d.summary, "stopped", "no reason"));
    }
    if (c->gemm_tflops.on && d.run)
        check_gemm(sc, &d, backend, vs);
    if (c->busbw.on && d.run)
        check_busbw(sc, &d, backend, vs);
    if (c->power_under_load.on)
        check_power(sc, &d, bk && bk->modelled, vs);
    if (c->power_swing.on)
        check_swing(sc, &d, bk && bk->modelled, vs);
    if (c->sdc_screen.on)
        accept_check_sdc(sc, &d, vs);
    if (c->fault_drill.on)
        accept_check_drill(sc, &d, vs);
    accept_check_observed(sc, &d, vs);
    if (c->throttle.on)
        check_throttle(sc, &d, backend, vs);
    if (c->numa.on) {
        if (bk && bk->modelled)
            accept_note(accept_skip(vs, sc, "numa", ""), "the %s backend is a model: no GPU, so no NUMA node to match",
                        bk->name);
        else
            check_numa(sc, &d, vs);
    }
    if (c->h2d_bandwidth.on) {
        if (bk && bk->modelled)
            accept_note(accept_skip(vs, sc, "h2d_bandwidth", ""), "the %s backend is a model: no host-to-device link",
                        bk->name);
        else
            check_h2d(sc, &d, vs);
    }
    double *ow = NULL, *orr = NULL;   /* the rates node_outliers compares: a rate not measurable there is none */
    if (c->checkpoint_io.on && io_w && io_r) {
        accept_check_ckpt(sc, &d, io_w, io_r, vs);
        ow = xmalloc((size_t)d.nodes * sizeof *ow);
        orr = xmalloc((size_t)d.nodes * sizeof *orr);
        for (int k = 0; k < d.nodes; k++) {
            ow[k] = io_w[k] >= 0 ? io_w[k] : NAN;
            orr[k] = io_r[k] >= 0 ? io_r[k] : NAN;
        }
    }
    if (c->checkpoint_io.on && !(io_w && io_r))   /* measured after the run by the suite, which was killed */
        for (const char *const *k = (const char *const[]){ "checkpoint_write", "checkpoint_read", NULL }; *k; k++)
            accept_note(accept_skip(vs, sc, *k, ""), "not measured: the suite was killed before it measured its "
                                                     "checkpoint target (after each scenario's run)");
    if (c->outliers.on && d.run) {
        check_outliers(sc, &d, vs);
        if (d.nodes >= 2)   /* a slow node: its own view of the all-reduce, its checkpoint target (3 to compare) */
            check_node_outliers(sc, &d, ow, orr, vs);
    }
    /* a scenario that judged nothing is said, not left out (and fails --strict); a verdict of it the caller added just
     * before (a run FAIL, the checkpoint SKIPs of a suite stopped) is one (not the suite's gpu_count) */
    const struct verdict *before = n0 > 0 ? &vs->v[n0 - 1] : NULL;
    if (vs->n == n0 && !(before && strcmp(before->scenario, sc->name) == 0 && strcmp(before->check, "gpu_count") != 0))
        accept_skip(vs, sc, "run", "nothing judged: the scenario turns no check on (its checks: section), and the run "
                                   "showed no failure nobody injected");
    free(ow);
    free(orr);
    rundata_free(&d);
    return 0;
}
