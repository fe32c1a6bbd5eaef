/* harness/runstats.c: folding worker events and power samples into a run's figures (see runstats.h). */
#include "runstats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "results.h"
#include "util.h"

void runstats_init(struct run_stats *rs, int mitigation, int nranks, int64_t planned, uint64_t t_begin)
{
    *rs = (struct run_stats){ .mitigation = mitigation, .nranks = nranks, .planned = planned, .t_begin = t_begin };
    acc_reset(&rs->power);
    rs->rank = xcalloc((size_t)nranks, sizeof *rs->rank);
    for (int r = 0; r < nranks; r++)
        acc_reset(&rs->rank[r].power);
}

void runstats_event(struct run_stats *rs, const struct wevent *ev)
{
    if (ev->rank < 0 || ev->rank >= rs->nranks)
        return;
    struct rank_stats *r = &rs->rank[ev->rank];
    switch (ev->type) {
    case WEV_PHASE_BEGIN:
        if (ev->phase >= 0 && ev->phase < PH_COUNT)
            r->open_t[ev->phase] = ev->t_ns;
        break;
    case WEV_PHASE_END: {
        if (ev->phase < 0 || ev->phase >= PH_COUNT || !r->open_t[ev->phase])
            break;
        double d = (double)(ev->t_ns - r->open_t[ev->phase]) * 1e-9;
        r->open_t[ev->phase] = 0;
        if (ev->phase == PH_COMPUTE) {
            r->compute_s += d;
            r->flops += ev->a;
        } else if (ev->phase == PH_COMM) {
            series_add(&r->comm_s, d);
            r->comm_bytes = ev->a;
        } else if (ev->phase == PH_CKPT) {
            r->ckpt_stall_s += d;
            r->ckpts++;
            if (ev->a > 0) {   /* sync: the write is the phase */
                r->ckpt_s += d;
                r->ckpt_bytes += ev->a;
            }
        }
        break;
    }
    case WEV_CKPT_WRITTEN:   /* async: written in the background */
        r->ckpt_s += ev->b;
        r->ckpt_bytes += ev->a;
        break;
    case WEV_ITER:
        series_add(&rs->iter_s, ev->a);
        r->iters = ev->iter + 1;
        break;
    case WEV_RUN_DONE:
        r->done = 1;
        r->fingerprint = ((uint64_t)ev->a << 32) | (uint64_t)ev->b;
        if (ev->t_ns > rs->t_end)
            rs->t_end = ev->t_ns;
        break;
    default:
        break;
    }
}

void runstats_power(struct run_stats *rs, const double *watts)
{
    double sum = 0;
    int all = 1;
    for (int r = 0; r < rs->nranks; r++) {
        acc_add(&rs->rank[r].power, watts[r]);
        if (isnan(watts[r]))
            all = 0;
        else
            sum += watts[r];
    }
    if (all)   /* the aggregate of a tick with a missing rank is itself missing */
        acc_add(&rs->power, sum);
}

int runstats_done(const struct run_stats *rs)
{
    for (int r = 0; r < rs->nranks; r++)
        if (!rs->rank[r].done)
            return 0;
    return 1;
}

int64_t runstats_iterations(const struct run_stats *rs)
{
    int64_t n = rs->planned;
    for (int r = 0; r < rs->nranks; r++)
        if (rs->rank[r].iters < n)
            n = rs->rank[r].iters;
    return n;
}

/* Builds {mean_w, min_w, max_w, swing_w, samples} from an accumulator. */
static json_t *power_json(const struct acc *a)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:I}", "mean_w", json_num(acc_mean(a)), "min_w", json_num(acc_min(a)),
                     "max_w", json_num(acc_max(a)), "swing_w", json_num(acc_swing(a)), "samples", (json_int_t)a->n);
}

json_t *runstats_json(struct run_stats *rs, const char *mitigation, int bus_ranks)
{
    double flops = 0, compute_s = 0, ckpt_b = 0, ckpt_s = 0, stall = 0;
    int ckpts = 0;
    struct series comm = { 0 };
    double comm_bytes = 0;
    json_t *per_rank = json_array();
    for (int i = 0; i < rs->nranks; i++) {
        struct rank_stats *r = &rs->rank[i];
        flops += r->flops;
        compute_s += r->compute_s;
        ckpt_b += r->ckpt_bytes;
        ckpt_s += r->ckpt_s;
        stall += r->ckpt_stall_s;
        ckpts += r->ckpts;
        for (size_t k = 0; k < r->comm_s.n; k++)
            series_add(&comm, r->comm_s.v[k]);
        if (r->comm_bytes > 0)
            comm_bytes = r->comm_bytes;
        json_t *pj = power_json(&r->power);
        json_object_set_new(pj, "rank", json_integer(i));
        json_array_append_new(per_rank, pj);
    }
    /* per-GPU compute rate, the all-reduce's bus bandwidth as nccl-tests defines it: algbw x 2(n-1)/n */
    double tflops = compute_s > 0 ? flops / compute_s / 1e12 : NAN;
    double comm_p50 = series_pct(&comm, 50);
    double busbw = comm_p50 > 0 ? comm_bytes / comm_p50 * 2.0 * (bus_ranks - 1) / bus_ranks / 1e9 : NAN;
    double ckpt_gbs = ckpt_s > 0 ? ckpt_b / ckpt_s / 1e9 : NAN;
    int agree = 1;
    for (int i = 1; i < rs->nranks; i++)
        if (rs->rank[i].fingerprint != rs->rank[0].fingerprint)
            agree = 0;
    char fp[24];
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)rs->rank[0].fingerprint);
    json_t *run = json_pack(
        "{s:s, s:I, s:I, s:b, s:o, s:{s:o, s:o, s:o}, s:o, s:o, s:o, s:i, s:o, s:o, s:{s:o, s:o}}", "mitigation",
        mitigation, "iterations", (json_int_t)runstats_iterations(rs), "iterations_planned", (json_int_t)rs->planned,
        "complete", runstats_done(rs), "wall_s",
        json_num(rs->t_end > rs->t_begin ? (double)(rs->t_end - rs->t_begin) * 1e-9 : NAN), "iteration_s", "p50",
        json_num(series_pct(&rs->iter_s, 50)), "p99", json_num(series_pct(&rs->iter_s, 99)), "mean",
        json_num(series_mean(&rs->iter_s)), "tflops", json_num(tflops), "busbw_gbs", json_num(busbw),
        "checkpoint_gbs", json_num(ckpt_gbs), "checkpoints", ckpts / (rs->nranks ? rs->nranks : 1),
        "state_fingerprint", runstats_done(rs) ? json_string(fp) : json_null(), "fingerprints_agree",
        runstats_done(rs) ? json_boolean(agree) : json_null(), "power", "aggregate", power_json(&rs->power),
        "per_rank", per_rank);
    json_object_set_new(run, "checkpoint_stall_s", json_num(ckpts ? stall / ckpts : NAN));
    series_free(&comm);
    return run;
}

void runstats_free(struct run_stats *rs)
{
    for (int r = 0; r < rs->nranks; r++)
        series_free(&rs->rank[r].comm_s);
    series_free(&rs->iter_s);
    free(rs->rank);
    rs->rank = NULL;
}
