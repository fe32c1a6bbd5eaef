/* tui/model.c: the live view's model, filled from events.jsonl records and power rows (see model.h). */
#include "model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "util.h"

struct vm *vm_new(void)
{
    struct vm *m = xcalloc(1, sizeof *m);
    m->run = -1;
    m->exit_code = -1;
    m->tdp_w = NAN;
    m->tick_t = NAN;
    m->m.t = -1;
    return m;
}

void vm_free(struct vm *m)
{
    for (int r = 0; m && r < m->nranks; r++)
        free(m->rank[r].stamps);
    if (m)
        free(m->rank);
    free(m);
}

const char *vm_state_name(int state)
{
    static const char *const names[] = { "starting", "running", "paused", "recovering", "stopping", "finished" };
    return state >= 0 && state <= VS_FINISHED ? names[state] : "?";
}

const char *vm_state_label(const struct vm *m)
{
    return m->state == VS_PAUSED && vm_iter(m) < m->pause_before ? "pausing" : vm_state_name(m->state);
}

/* Drops a UTF-8 character a cut left incomplete at the end of s (a cut is never inside a character). */
static void utf8_cut(char *s)
{
    size_t k = strlen(s), j = k;
    while (j > 0 && ((unsigned char)s[j - 1] & 0xc0) == 0x80)
        j--;
    if (j == 0)
        return;
    unsigned char c = (unsigned char)s[j - 1];
    size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    if (k - (j - 1) < need)
        s[j - 1] = 0;
}

void vm_log(struct vm *m, double t, int sev, const char *fmt, ...)
{
    struct vm_log *l = &m->log[m->nlog++ % VM_LOG];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->text, sizeof l->text, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof l->text)
        utf8_cut(l->text);
    l->t = t;
    l->sev = sev;
}

/* Allocates the ranks once the start event says how many (a replay may lack it: then on first sight). */
void vm_ranks(struct vm *m, int n)
{
    n = n > VM_MAX_RANKS ? VM_MAX_RANKS : n;   /* the first VM_MAX_RANKS: the run's count is m->gpus */
    if (n <= m->nranks)
        return;
    m->rank = xrealloc(m->rank, (size_t)n * sizeof *m->rank);
    for (int r = m->nranks; r < n; r++) {
        memset(&m->rank[r], 0, sizeof m->rank[r]);
        m->rank[r].watts = m->rank[r].clock_mhz = m->rank[r].temp_c = NAN;
    }
    m->nranks = n;
}

int64_t vm_iter(const struct vm *m)
{
    int64_t it = -1;
    for (int r = 0; r < m->nranks; r++)
        if (!m->rank[r].dropped && (it < 0 || m->rank[r].iter < it))
            it = m->rank[r].iter;
    return it < 0 ? 0 : it;
}

/* The phase spans: a ring per rank; a span is open (t1 < 0) until its phase_end. */
static void span_open(struct vm_rank *r, double t, int phase)
{
    struct vm_span *sp = &r->span[r->nspan++ % VM_SPANS];
    *sp = (struct vm_span){ t, -1, phase };
    r->phase = phase;
}

static double span_close(struct vm_rank *r, double t, int phase)
{
    for (unsigned k = 0; k < r->nspan && k < VM_SPANS; k++) {
        struct vm_span *sp = &r->span[(r->nspan - 1 - k) % VM_SPANS];
        if (sp->phase == phase && sp->t1 < 0) {
            sp->t1 = t;
            r->phase = VP_IDLE;
            return t - sp->t0;
        }
    }
    return NAN;
}

int vm_phase_at(const struct vm *m, int rank, double t)
{
    if (rank < 0 || rank >= m->nranks)
        return VP_IDLE;
    const struct vm_rank *r = &m->rank[rank];
    int ph = VP_IDLE;
    for (unsigned k = 0; k < r->nspan && k < VM_SPANS; k++) {
        const struct vm_span *sp = &r->span[(r->nspan - 1 - k) % VM_SPANS];
        if (sp->t0 <= t && (sp->t1 < 0 ? m->t_now : sp->t1) >= t) {
            ph = sp->phase;
            break;
        }
        if (sp->t1 >= 0 && sp->t1 < t && sp->phase != VP_CKPT)
            break;   /* spans are in time order: nothing older covers t (a checkpoint may overlap) */
    }
    /* the run keeps a floor: the gaps are filled, on a rank whose phases are known (another node's, under forward:
     * nodes, has none: no strip, as the docs say; until 2026-11-30 it read as filler all the time) */
    if (ph != VP_COMPUTE && ph != VP_CKPT && r->nspan > 0 && m->floor_w > 0 &&
        (m->state == VS_RUNNING || m->state == VS_RECOVERING))
        return VP_FILLER;
    return ph;
}

static int phase_of(const char *name)
{
    if (!name)
        return VP_IDLE;
    if (strcmp(name, "compute") == 0 || strcmp(name, "optimizer") == 0)   /* the GPU at work (memory-bound) */
        return VP_COMPUTE;
    if (strcmp(name, "comm") == 0)
        return VP_COMM;
    if (strcmp(name, "checkpoint") == 0)
        return VP_CKPT;
    return VP_IDLE;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int64_t inum(json_t *o, const char *k, int64_t def)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

/* An integer field that indexes something: def when missing or outside [lo, hi] (a file may say anything). */
static int ibound(json_t *o, const char *k, int64_t lo, int64_t hi, int def)
{
    int64_t v = inum(o, k, def);
    return v >= lo && v <= hi ? (int)v : def;
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* The run's `start` event: what it runs, on what, how many ranks and nodes. */
static void vm_start(struct vm *m, json_t *ev, double t)
{
    str_copy(m->scenario, sizeof m->scenario, str(ev, "scenario"));
    str_copy(m->backend, sizeof m->backend, str(ev, "backend"));
    str_copy(m->results, sizeof m->results, str(ev, "results"));
    str_copy(m->recovery, sizeof m->recovery, str(ev, "recovery"));
    m->per_node = ibound(ev, "ranks", 0, 4096, 0);
    vm_ranks(m, m->per_node);
    m->runs = ibound(ev, "runs", 0, 1 << 20, 1);
    m->iterations = inum(ev, "iterations", 0);
    m->tdp_w = num(ev, "tdp_w");
    m->sample_hz = num(ev, "sample_hz");   /* what a scenario may ask (a damaged 5e7: 1.6 GB a frame, until 2026-12-02) */
    m->sample_hz = m->sample_hz > 0 && m->sample_hz <= 10000 ? m->sample_hz : NAN;
    m->bus_ranks = ibound(ev, "bus_ranks", 0, INT32_MAX, m->nranks);
    m->nodes = ibound(ev, "nodes", 1, 8192, 1);
    m->gpus = (int64_t)m->per_node * m->nodes;
    m->cluster_fed = strcmp(str(ev, "forward"), "nodes") == 0;   /* the aggregate: the cluster's sum on node 0's grid */
    double hz = m->sample_hz, fwd = num(ev, "forward_hz");   /* forward: ranks: the other nodes' rows at forward_hz */
    if (m->nodes > 1 && !m->cluster_fed && fwd > 0 && !(hz <= fwd))
        hz = fwd;
    m->fresh_s = hz > 0 ? 2.0 / hz : 0;
    vm_ranks(m, (int)(m->gpus < VM_MAX_RANKS ? m->gpus : VM_MAX_RANKS));
    if (m->nodes > 1)
        vm_log(m, t, LOG_INFO, "%s on %s: %d nodes x %d ranks, recovery %s", m->scenario, m->backend, m->nodes,
               m->per_node, m->recovery);
    if (m->gpus > VM_MAX_RANKS)
        vm_log(m, t, LOG_WARN, "%lld GPUs: the view lists the first %d (the cluster's figures are of all of them)",
               (long long)m->gpus, VM_MAX_RANKS);
    else
        vm_log(m, t, LOG_INFO, "%s on %s: %d ranks, recovery %s", m->scenario, m->backend, m->nranks, m->recovery);
}

/* "0.106 s" / "12 ms" */
static void fmt_s(char *out, size_t n, double s)
{
    if (!isfinite(s))
        snprintf(out, n, "?");
    else if (s < 1)
        snprintf(out, n, "%.0f ms", s * 1e3);
    else
        snprintf(out, n, "%.2f s", s);
}

/* A mitigation run begins: its label, its levels, and every figure that is the run's own started afresh. */
static void vm_run_begin(struct vm *m, json_t *ev, double t)
{
    m->run = ibound(ev, "run", 0, 1 << 20, 0);
    str_copy(m->run_label, sizeof m->run_label, *str(ev, "label") ? str(ev, "label") : str(ev, "mitigation"));
    m->run_t0 = t;
    m->run_over = 0;
    m->floor_w = isfinite(num(ev, "floor_w")) ? num(ev, "floor_w") : 0;
    m->cap_w = isfinite(num(ev, "cap_w")) ? num(ev, "cap_w") : 0;
    if (m->run + 1 > m->runs)
        m->runs = m->run + 1;
    m->state = m->paused ? VS_PAUSED : VS_RUNNING;
    if (m->paused)
        m->pause_before = 0;   /* a paused run waits before its first iteration */
    for (int k = 0; k < m->nranks; k++)
        m->rank[k].iter = 0;
    memset(m->rate_bin, 0, sizeof m->rate_bin);   /* the rate is this run's */
    m->run_iters = 0;
    m->niter = m->nflops = m->nbus = 0;   /* and so are the iteration's percentiles, GEMM and busbw (until 2026-12-02
                                           * 4 s into a cap its p50 read the run before's 0.123 s for 0.141, and
                                           * set the analysis's period and the phase strip with it) */
    vm_log(m, t, LOG_INFO, "run %d/%d: %s", m->run + 1, m->runs, m->run_label);
}

static void vm_run_end(struct vm *m, json_t *ev, double t)
{
    json_t *f = json_object_get(ev, "figures");
    m->run_over = 1;
    if (m->nruns < VM_RUNS) {
        struct vm_run *r = &m->runrow[m->nruns++];
        str_copy(r->label, sizeof r->label, *str(ev, "label") ? str(ev, "label") : str(ev, "mitigation"));
        str_copy(r->shape, sizeof r->shape, str(ev, "shape"));
        r->none = strcmp(str(ev, "mitigation"), "none") == 0;
        r->complete = json_is_true(json_object_get(ev, "complete"));
        r->skipped = json_is_true(json_object_get(ev, "skipped"));
        r->disturbed = json_array_size(json_object_get(ev, "disturbed")) > 0;
        r->iterations = inum(ev, "iterations", 0);
        r->iter_p50_s = num(f, "iteration_p50_s");
        r->mean_w = num(f, "mean_w");
        r->swing_w = num(f, "swing_w");
        r->ramp_w_s = num(f, "ramp_w_s");
        r->energy_j = num(f, "energy_per_iter_j");
        r->efficiency = num(f, "energy_efficiency");
        r->tflops = num(f, "tflops");
        r->throughput_it_s = num(f, "throughput_it_s");
        json_t *vs = json_object_get(f, "vs_none");
        r->vs_swing_pct = -num(vs, "swing_reduction_pct");
        r->vs_energy_pct = num(vs, "energy_overhead_pct");
        r->vs_time_pct = num(vs, "iteration_overhead_pct");
    }
    else if (!m->runs_past++)   /* said once: the table ends there (silently until 2026-12-02); the summary holds all */
        vm_log(m, t, LOG_WARN, "the comparison table holds the first %d runs: run %d on are in summary.json and "
               "gauntlet report", VM_RUNS, VM_RUNS + 1);
    vm_log(m, t, LOG_INFO, "run %d ended: %s, %lld iterations", (int)inum(ev, "run", 0) + 1,
           json_is_true(json_object_get(ev, "skipped")) ? "skipped" : json_is_true(json_object_get(ev, "complete")) ? "complete" : "incomplete",
           (long long)inum(ev, "iterations", 0));
}

/* n rank-iterations completed at t: the rate counts them by time (any number of ranks at any rate) */
static void rate_add(struct vm *m, double t, int n)
{
    int64_t b = (int64_t)floor(t / VM_BIN_S);   /* the chart's bins' (model_power.c) */
    int i = (int)(((b % VM_RATE_BINS) + VM_RATE_BINS) % VM_RATE_BINS);
    if (m->rate_bin[i].no != b)
        m->rate_bin[i].no = b, m->rate_bin[i].n = 0;
    m->rate_bin[i].n += n;
    m->run_iters++;
}

/* A communication phase's bus bandwidth (bytes/s over d s), as summary.json's busbw_gbs and the metrics' (mx_busbw):
 * a step of workload.phases carries its own bus bytes (its collective's factor and ranks); the plain all-reduce its
 * bytes x 2(n-1)/n with the start's n; NAN for a stepped run's phase without bus bytes (an exposed wait) or another
 * collective (until 2026-12-02 every comm phase's bytes x 2(n-1)/n: a reduce-scatter read twice its figure). */
static double vm_busbw(struct vm *m, json_t *ev, double bytes, double d)
{
    double bus = num(ev, "bus_bytes");
    const char *kind = str(ev, "kind");
    if (bus > 0 && d > 0) {
        m->stepped = 1;
        return bus / d;
    }
    if (!(bytes > 0) || !(d > 0) || m->stepped || (*kind && strcmp(kind, "allreduce") != 0) || m->bus_ranks < 2)
        return NAN;
    return bytes / d * 2.0 * (m->bus_ranks - 1) / m->bus_ranks;
}

/* forward: nodes: a node's ranks' iteration, folded into one line: each of its ranks reaches it; the rates are
 * per GPU, the node's flops over its slowest GPU's time. */
static void vm_node_iteration(struct vm *m, json_t *ev, double t)
{
    int per = m->per_node > 0 ? m->per_node : m->nodes > 0 ? m->nranks / m->nodes : 0;
    int node = ibound(ev, "node", 0, m->nodes - 1, -1), n = 0;
    int ranks = ibound(ev, "ranks", 1, VM_MAX_RANKS, 0);
    if (node < 0 || per < 1)
        return;   /* a node the start event did not name: nothing of it to show */
    for (int k = node * per; k < (node + 1) * per && k < m->nranks; k++)
        if (!m->rank[k].dropped) {
            m->rank[k].iter = inum(ev, "iter", 0) + 1;
            n++;
        }
    rate_add(m, t, n);   /* each of its ranks completed it */
    m->iter_s[m->niter++ % VM_ITERS] = num(ev, "dur_s");
    json_t *ph = json_object_get(ev, "phases"), *c = json_object_get(ph, "compute"), *x = json_object_get(ph, "comm");
    double cs = num(c, "s"), fl = num(c, "flops"), xs = num(x, "s"), by = num(x, "bytes");
    if (isfinite(fl) && cs > 0 && ranks > 0) {   /* per GPU: the node's flops over its GPUs' time (each the slowest's) */
        m->flops[m->nflops % 64] = fl;
        m->flops_s[m->nflops++ % 64] = ranks * cs;
    }
    double bus = num(x, "bus_bytes");   /* the node's comm steps' bus bytes, where they carry them */
    double bw = xs > 0 && bus > 0 ? bus / xs
              : !m->stepped && isfinite(by) && xs > 0 && m->bus_ranks > 1 ? by / xs * 2.0 * (m->bus_ranks - 1) / m->bus_ranks
                                                                            : NAN;   /* a stepped run's mix: none */
    if (isfinite(bw))
        m->bus_rate[m->nbus++ % 64] = bw;
}

/* A fault_injected record's log line: a flip named in full (which buffer, which bit, how large an error). */
static void vm_fault_injected(struct vm *m, json_t *ev, double t, int rank)
{
    json_t *bit = json_object_get(ev, "bit"), *err = json_object_get(ev, "rel_error");
    char e[32];
    if (json_is_number(err))
        snprintf(e, sizeof e, "%.2g", json_number_value(err));
    else
        str_copy(e, sizeof e, json_is_string(err) ? json_string_value(err) : "?");
    if (*str(ev, "target") && json_is_integer(bit))   /* a flip: which buffer, which bit, how large an error */
        vm_log(m, t, LOG_FAULT, "FAULT %s on rank %d at iter %lld: %s element %lld, %s bit %lld, error %s: %s",
               str(ev, "kind"), rank, (long long)inum(ev, "iter", -1), str(ev, "target"),
               (long long)inum(ev, "element", -1), str(ev, "bit_class"), (long long)json_integer_value(bit), e,
               str(ev, "what"));
    else
        vm_log(m, t, LOG_FAULT, "FAULT %s on rank %d at iter %lld: %s%s%s", str(ev, "kind"), rank,
               (long long)inum(ev, "iter", -1), *str(ev, "target") ? str(ev, "target") : "",
               *str(ev, "target") ? " " : "", str(ev, "what"));
}

int vm_event(struct vm *m, json_t *ev)
{
    const char *type = json_string_value(json_object_get(ev, "event"));
    double t = num(ev, "t_s");
    if (!type || !isfinite(t))
        return -1;
    m->events++;
    if (t > m->t_now)
        m->t_now = t;
    int rank = ibound(ev, "rank", 0, VM_MAX_RANKS - 1, -1);
    if (rank >= 0 && m->gpus > 0 && rank >= m->gpus)
        return 0;   /* no rank of the run (vm_power) */
    if (rank >= 0)
        vm_ranks(m, rank + 1);
    if (inum(ev, "node", 0) > 0 && (!strcmp(type, "start") || !strcmp(type, "run_begin") || !strcmp(type, "run_end") ||
                                     !strcmp(type, "end") || !strcmp(type, "paused") || !strcmp(type, "resumed")))
        return 0;   /* several nodes: each node says these; node 0 speaks for the run */
    struct vm_rank *r = rank >= 0 && rank < m->nranks ? &m->rank[rank] : NULL;
    char a[32], b[32];
    if (strcmp(type, "phase_begin") == 0) {
        if (r)
            span_open(r, t, phase_of(str(ev, "phase")));
    } else if (strcmp(type, "phase_end") == 0) {
        double d = r ? span_close(r, t, phase_of(str(ev, "phase"))) : NAN;
        double flops = num(ev, "flops"), bytes = num(ev, "bytes");
        if (isfinite(flops) && d > 0) {
            m->flops[m->nflops % 64] = flops;
            m->flops_s[m->nflops++ % 64] = d;
        }
        if (phase_of(str(ev, "phase")) == VP_COMM && d > 0) {   /* not a checkpoint's */
            double bw = vm_busbw(m, ev, bytes, d);
            if (isfinite(bw))
                m->bus_rate[m->nbus++ % 64] = bw;
        }
    } else if (strcmp(type, "iteration") == 0) {
        if (r) {
            r->iter = inum(ev, "iter", 0) + 1;
            rate_add(m, t, 1);
        }
        m->iter_s[m->niter++ % VM_ITERS] = num(ev, "dur_s");
    } else if (strcmp(type, "node_iteration") == 0) {
        vm_node_iteration(m, ev, t);
    } else if (strcmp(type, "start") == 0) {
        vm_start(m, ev, t);
    } else if (strcmp(type, "gpu") == 0) {   /* the model's name (ready's `device` is a UUID on cuda) */
        if (r)
            str_copy(r->device, sizeof r->device, str(ev, "name"));
        if (!(m->tdp_w > 0) && isfinite(num(ev, "tdp_w")))
            m->tdp_w = num(ev, "tdp_w");
    } else if (strcmp(type, "run_begin") == 0) {
        vm_run_begin(m, ev, t);
    } else if (strcmp(type, "run_end") == 0) {
        vm_run_end(m, ev, t);
    } else if (strcmp(type, "fault_injected") == 0) {
        /* one the fault table counts, as summary.json and the metrics: not one that failed (done: false), nor one
         * between runs (no id); until 2026-12-02 every one */
        m->faults += json_is_true(json_object_get(ev, "done")) && json_is_integer(json_object_get(ev, "id"));
        vm_fault_injected(m, ev, t, rank);
    } else if (strcmp(type, "fault_observed") == 0) {   /* nobody injected it: a real failure */
        m->faults++;
        vm_log(m, t, LOG_FAULT, "OBSERVED %s on rank %d at iter %lld (by %s, not injected): %s", str(ev, "kind"), rank,
               (long long)inum(ev, "iter", -1), str(ev, "detector"), str(ev, "what"));
    } else if (strcmp(type, "fault_undone") == 0) {
        /* it fires again on the new timeline: counted then (summary.json counts it once); one with no id was a report
         * dropped as stale, never counted */
        m->faults -= json_is_integer(json_object_get(ev, "id"));
        vm_log(m, t, LOG_INFO, "fault %lld on rank %d at iter %lld rolled back: it fires again on the new timeline",
               (long long)inum(ev, "fault_spec", -1), rank, (long long)inum(ev, "iter", -1));
    } else if (strcmp(type, "fault_requested") == 0) {
        vm_log(m, t, LOG_INFO, "asked: %s on rank %d%s%s", str(ev, "kind"), rank, *str(ev, "target") ? ", " : "",
               str(ev, "target"));
    } else if (strcmp(type, "fault_not_injected") == 0) {
        vm_log(m, t, LOG_WARN, "NOT INJECTED: %s on rank %d: %s", str(ev, "kind"), rank, str(ev, "why"));
    } else if (strcmp(type, "detection") == 0) {
        m->detections++;
        if (json_is_true(json_object_get(ev, "false_positive"))) {
            m->false_positives++;
            vm_log(m, t, LOG_WARN, "FALSE POSITIVE %s on rank %d: %s", str(ev, "detector"), rank, str(ev, "note"));
        } else {
            if (json_is_number(json_object_get(ev, "detect_s"))) {
                fmt_s(a, sizeof a, num(ev, "detect_s"));
                vm_log(m, t, LOG_DETECT, "DETECTED by %s on rank %d after %s (%lld it): %s", str(ev, "detector"), rank,
                       a, (long long)inum(ev, "detect_iters", 0), str(ev, "note"));
            } else {   /* a fault nobody injected: no time from an injection to tell */
                vm_log(m, t, LOG_DETECT, "DETECTED by %s on rank %d: %s", str(ev, "detector"), rank, str(ev, "note"));
            }
        }
    } else if (strcmp(type, "recovery_begin") == 0) {
        m->state = VS_RECOVERING;
        vm_log(m, t, LOG_RECOVER, "RECOVERY %s of rank %d begins", str(ev, "recovery"), rank);
    } else if (strcmp(type, "recovery_end") == 0) {
        m->state = m->paused ? VS_PAUSED : VS_RUNNING;   /* a pause asked during the recovery still holds */
        /* a recovery completed, once (node 0's), as the metrics count it; until 2026-12-02 each `recovered` record,
         * one per fault it recovered */
        m->recoveries += !(inum(ev, "node", 0) > 0);
        fmt_s(a, sizeof a, num(ev, "took_s"));
        vm_log(m, t, LOG_RECOVER, "recovery %s done in %s, from %s at iter %lld", str(ev, "recovery"), a, str(ev, "from"),
               (long long)inum(ev, "from_iter", 0));
    } else if (strcmp(type, "recovered") == 0) {
        fmt_s(a, sizeof a, num(ev, "recover_s"));
        vm_log(m, t, LOG_RECOVER, "RECOVERED rank %d by %s: %s after detection, %lld iterations lost", rank,
               str(ev, "recovery"), a, (long long)inum(ev, "iterations_lost", 0));
    } else if (strcmp(type, "spare_adopted") == 0) {
        vm_log(m, t, LOG_RECOVER, "spare (slot %lld) is now rank %d", (long long)inum(ev, "slot", -1), rank);
    } else if (strcmp(type, "rank_dropped") == 0) {
        if (r)
            r->dropped = 1;
        vm_log(m, t, LOG_RECOVER, "rank %d dropped: %lld ranks go on", rank, (long long)inum(ev, "ranks_left", 0));
    } else if (strcmp(type, "worker_died") == 0) {
        vm_log(m, t, LOG_WARN, "rank %d died: %s", rank, str(ev, "status"));
    } else if (strcmp(type, "worker_error") == 0) {
        vm_log(m, t, LOG_WARN, "rank %d failed: %s", rank, str(ev, "error"));
    } else if (strcmp(type, "hang") == 0) {
        fmt_s(a, sizeof a, num(ev, "silent_s"));
        fmt_s(b, sizeof b, num(ev, "timeout_s"));
        vm_log(m, t, LOG_WARN, "rank %d silent for %s (timeout %s)", rank, a, b);
    } else if (strcmp(type, "state_restored") == 0) {
        vm_log(m, t, LOG_RECOVER, "rank %d restored from %s", rank, str(ev, "from"));
    } else if (strcmp(type, "paused") == 0) {
        m->paused = 1;
        m->pause_answers++;
        if (m->state != VS_RECOVERING)
            m->state = VS_PAUSED;
        m->pause_before = inum(ev, "before_iter", 0);
        vm_log(m, t, LOG_INFO, "paused before iteration %lld", (long long)inum(ev, "before_iter", 0));
    } else if (strcmp(type, "resumed") == 0) {
        m->paused = 0;
        m->pause_answers++;
        if (m->state != VS_RECOVERING)
            m->state = VS_RUNNING;
        vm_log(m, t, LOG_INFO, "resumed");
    } else if (strcmp(type, "run_skip") == 0) {
        vm_log(m, t, LOG_INFO, "skipping to the next mitigation");
    } else if (strcmp(type, "view_refused") == 0) {
        m->pause_answers += strcmp(str(ev, "command"), "pause") == 0;
        vm_log(m, t, LOG_WARN, "%s refused: %s", str(ev, "command"), str(ev, "why"));
    } else if (strcmp(type, "interrupted") == 0) {
        m->state = VS_STOPPING;
        vm_log(m, t, LOG_WARN, "stopping: %s", str(ev, "signal"));
    } else if (strcmp(type, "search_refine") == 0) {
        vm_log(m, t, LOG_INFO, "search: refining around the cheapest passing candidate");
    } else if (strcmp(type, "end") == 0) {
        m->state = VS_FINISHED;
        m->exit_code = (int)inum(ev, "exit", -1);
        vm_log(m, t, m->exit_code ? LOG_WARN : LOG_INFO, "end: exit %d%s%s", m->exit_code,
               *str(ev, "reason") ? ", " : "", str(ev, "reason"));
    }
    return 0;
}
