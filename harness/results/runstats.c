/* harness/results/runstats.c: folding worker events and power samples into a run's figures (see runstats.h). */
#include "runstats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_json.h"
#include "mitigations/mitigation.h"
#include "replayfit.h"
#include "results.h"
#include "scenario.h"
#include "util.h"

void runstats_init(struct run_stats *rs, int mitigation, int nranks, int64_t planned, uint64_t t_begin, double sample_hz,
                   double settle_s)
{
    *rs = (struct run_stats){ .mitigation = mitigation, .nranks = nranks, .planned = planned, .t_begin = t_begin,
                              .sample_hz = sample_hz, .settle_ns = settle_s > 0 ? (uint64_t)(settle_s * 1e9) : 0 };
    rs->e_first = xmalloc((size_t)nranks * sizeof *rs->e_first);
    rs->e_last = xmalloc((size_t)nranks * sizeof *rs->e_last);
    rs->e_first_ns = xcalloc((size_t)nranks, sizeof *rs->e_first_ns);
    rs->e_last_ns = xcalloc((size_t)nranks, sizeof *rs->e_last_ns);
    rs->e_changes = xcalloc((size_t)nranks, sizeof *rs->e_changes);
    for (int r = 0; r < nranks; r++)
        rs->e_first[r] = rs->e_last[r] = NAN;
    acc_reset(&rs->power);
    rs->rank = xcalloc((size_t)nranks, sizeof *rs->rank);
    for (int r = 0; r < nranks; r++)
        acc_reset(&rs->rank[r].power);
    rs->tick_w = xcalloc((size_t)nranks, sizeof *rs->tick_w);
    rs->spread_t = xcalloc((size_t)RS_SPREAD_ROWS * (size_t)nranks, sizeof *rs->spread_t);
    rs->spread_n = xcalloc(RS_SPREAD_ROWS, sizeof *rs->spread_n);
    for (int i = 0; i < RS_SPREAD_ROWS; i++)
        rs->spread_iter[i] = -1;
}

void runstats_new_epoch(struct run_stats *rs)
{
    for (int i = 0; i < RS_SPREAD_ROWS; i++) {
        rs->spread_iter[i] = -1;
        rs->spread_n[i] = 0;
    }
    for (int r = 0; r < rs->nranks; r++) {
        memset(rs->rank[r].open_t, 0, sizeof rs->rank[r].open_t);
        rs->rank[r].begun_iter = 0;
        rs->rank[r].cend_t = 0;   /* the recovery's wait is no gap of the workload's */
        if (!rs->rank[r].dropped) {   /* the old timeline's end is none: the run ends when the new one does (a fault
                                       * found after every rank was done once ended the run on the abandoned timeline,
                                       * its state and iterations reported, "recovered") */
            rs->rank[r].done = 0;
            rs->rank[r].fingerprint = 0;
        }
    }
}

/* Records a compute phase's start for the spread across ranks and rank 0's iteration starts. */
static void runstats_compute_begin(struct run_stats *rs, const struct wevent *ev)
{
    struct rank_stats *r = &rs->rank[ev->rank];
    if (r->begun_iter == ev->iter + 1)
        return;   /* workload.phases: only an iteration's first GEMM step starts it */
    r->begun_iter = ev->iter + 1;
    int row = (int)(ev->iter % RS_SPREAD_ROWS);
    if (rs->spread_iter[row] != ev->iter) {
        rs->spread_iter[row] = ev->iter;
        rs->spread_n[row] = 0;
    }
    rs->spread_t[(size_t)row * (size_t)rs->nranks + (size_t)ev->rank] = ev->t_ns;   /* by rank: its delay is its own */
    rs->spread_n[row]++;
    if (ev->rank == 0)
        series_add(&rs->iter_begin, (double)(ev->t_ns - rs->t_begin) * 1e-9);
    series_add(&r->cbegin, (double)(ev->t_ns - rs->t_begin) * 1e-9);
    if (rs->spread_n[row] < rs->nranks)
        return;
    double mean = 0, var = 0;
    const uint64_t *t = rs->spread_t + (size_t)row * (size_t)rs->nranks;
    /* each start less the rank's deliberate delay: a stagger's offsets are in the per-GPU trace already, and counted
     * again as jitter they would scatter the projected groups twice */
    for (int r = 0; r < rs->nranks; r++)
        mean += (double)(int64_t)(t[r] - t[0]) * 1e-9 - (rs->delay_s ? rs->delay_s[r] - rs->delay_s[0] : 0);
    mean /= rs->nranks;
    for (int r = 0; r < rs->nranks; r++) {
        double d = (double)(int64_t)(t[r] - t[0]) * 1e-9 - (rs->delay_s ? rs->delay_s[r] - rs->delay_s[0] : 0) - mean;
        var += d * d;
    }
    if (rs->nranks > 1)   /* n - 1: the ranks' own mean is estimated from them (over n, 2 ranks read 0.56 of sigma) */
        series_add(&rs->spread_s, var / (rs->nranks - 1));
    rs->spread_iter[row] = -1;
}

void runstats_set_delays(struct run_stats *rs, const double *delay_s)
{
    free(rs->delay_s);
    rs->delay_s = NULL;
    if (!delay_s)
        return;
    rs->delay_s = xmalloc((size_t)rs->nranks * sizeof *rs->delay_s);
    memcpy(rs->delay_s, delay_s, (size_t)rs->nranks * sizeof *rs->delay_s);
}

double runstats_phase_spread(const struct run_stats *rs)
{
    return rs->spread_s.n ? sqrt(series_mean(&rs->spread_s)) : NAN;
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
        if (ev->phase == PH_COMPUTE) {
            if (r->cend_t && ev->t_ns > r->cend_t)
                series_add(&r->gap_s, (double)(ev->t_ns - r->cend_t) * 1e-9);
            r->cend_t = 0;
            runstats_compute_begin(rs, ev);
        }
        break;
    case WEV_PHASE_END: {
        if (ev->phase < 0 || ev->phase >= PH_COUNT || !r->open_t[ev->phase])
            break;
        double d = (double)(ev->t_ns - r->open_t[ev->phase]) * 1e-9;
        r->open_t[ev->phase] = 0;
        if (ev->phase == PH_COMPUTE) {
            r->compute_s += d;
            r->flops += ev->a;
            if (d > 0 && ev->a > 0)
                series_add(&r->rate, ev->a / d / 1e12);
            r->cend_t = ev->t_ns;
        } else if (ev->phase == PH_COMM && ev->b > 0) {   /* a step of phases: its own bus bytes */
            if (d > 0)
                series_add(&r->bus_gbs, ev->b / d / 1e9);
        } else if (ev->phase == PH_COMM && ev->a > 0) {
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
        if (!rs->first_ns)
            rs->first_ns = ev->t_ns;
        if (!rs->warm_ns && ev->t_ns >= rs->t_begin + rs->settle_ns) {   /* the power has settled */
            rs->warm_ns = ev->t_ns;
            rs->warm_iter = ev->iter + 1;
        }
        series_add(&rs->iter_s, ev->a);
        r->iters = ev->iter + 1;
        r->iter_end = ev->t_ns;
        break;
    case WEV_STOPPED:   /* at the skip boundary; a stop for a recovery is not the run's end */
        if (ev->a == 1)
            r->stopped = 1;
        break;
    case WEV_RUN_DONE:
        r->done = 1;
        r->fingerprint = ((uint64_t)ev->a << 32) | (uint64_t)ev->b;
        rs->t_end = ev->t_ns > rs->t_end ? ev->t_ns : rs->t_end;
        break;
    default:
        break;
    }
}

void runstats_power(struct run_stats *rs, uint64_t t_ns, const double *watts, const double *energy_j,
                    const double *true_w, const uint64_t *sample_ns)
{
    for (int r = 0; sample_ns && r < rs->nranks; r++)
        an_stamp_note(&rs->rank[r].stamps, (int64_t)sample_ns[r]);
    int grow = rs->nticks == rs->cap_ticks;
    if (grow) {
        rs->cap_ticks = rs->cap_ticks ? 2 * rs->cap_ticks : 4096;
        rs->tick_ns = xrealloc(rs->tick_ns, rs->cap_ticks * sizeof *rs->tick_ns);
        for (int r = 0; r < rs->nranks; r++)
            rs->tick_w[r] = xrealloc(rs->tick_w[r], rs->cap_ticks * sizeof **rs->tick_w);
    }
    if (true_w && !rs->tick_true) {   /* the first tick with a truth: the earlier ones had none */
        rs->tick_true = xcalloc((size_t)rs->nranks, sizeof *rs->tick_true);
        for (int r = 0; r < rs->nranks; r++) {
            rs->tick_true[r] = xmalloc(rs->cap_ticks * sizeof **rs->tick_true);
            for (size_t i = 0; i < rs->nticks; i++)
                rs->tick_true[r][i] = NAN;
        }
    } else if (grow && rs->tick_true)
        for (int r = 0; r < rs->nranks; r++)
            rs->tick_true[r] = xrealloc(rs->tick_true[r], rs->cap_ticks * sizeof **rs->tick_true);
    for (int r = 0; rs->tick_true && r < rs->nranks; r++)
        rs->tick_true[r][rs->nticks] = true_w ? true_w[r] : NAN;
    int64_t rel = results_stamp_ns(t_ns, rs->stamp_t0_ns) - (int64_t)(rs->t_begin - rs->stamp_t0_ns);   /* power.csv's */
    rs->tick_ns[rs->nticks] = rel;
    for (int r = 0; energy_j && rs->warm_ns && t_ns >= rs->warm_ns && r < rs->nranks; r++)
        if (isfinite(energy_j[r]) && energy_j[r] != rs->e_last[r]) {   /* the counter's changes over the analysed stretch */
            if (!isnan(rs->e_last[r]) && isnan(rs->e_first[r]))   /* its first change: its updates count from here */
                rs->e_first[r] = energy_j[r], rs->e_first_ns[r] = rel;
            else if (!isnan(rs->e_last[r]))
                rs->e_changes[r]++, rs->e_last_ns[r] = rel;
            rs->e_last[r] = energy_j[r];
        }
    for (int r = 0; r < rs->nranks; r++)
        rs->tick_w[r][rs->nticks] = watts[r];
    rs->nticks++;
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

int runstats_settled(const struct run_stats *rs)
{
    for (int r = 0; r < rs->nranks; r++)
        if (!rs->rank[r].done && !rs->rank[r].stopped)
            return 0;
    return 1;
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
    /* the ranks still in the run (shrink's dropped ones stopped counting where they left); where shrink left none,
     * the collective went as far as its last rank did */
    int64_t n = rs->planned, most = 0;
    int kept = 0;
    for (int r = 0; r < rs->nranks; r++) {
        if (rs->rank[r].iters > most)
            most = rs->rank[r].iters;
        if (rs->rank[r].dropped)
            continue;
        kept++;
        if (rs->rank[r].iters < n)
            n = rs->rank[r].iters;
    }
    return kept || !rs->nranks ? n : most < n ? most : n;
}

int runstats_first_kept(const struct run_stats *rs)
{
    for (int r = 0; r < rs->nranks; r++)
        if (!rs->rank[r].dropped)
            return r;
    return 0;
}

/* Analyses the run's trace: per rank, the aggregate (sum), its projection and the alignment. */
static json_t *runstats_power_json(struct run_stats *rs, const struct scenario *sc, double tdp_w)
{
    double dt = sc->power.sample_hz > 0 ? 1.0 / sc->power.sample_hz : 0;
    struct an_band bands[AN_MAX_BANDS];
    const struct an_spec *spec = &sc->projection.spec;
    int nb = analysis_bands_with_spec(spec, bands);
    json_t *per_rank = json_array();
    double **grid = xcalloc((size_t)rs->nranks, sizeof *grid);
    size_t m = 0, skip, end;   /* the warm-up left out (power climbing from idle, a mitigation settling), and the drop
                                * to idle after the run's last iteration, which is no run's */
    runstats_stretch(rs, &skip, &end);
    /* every rank on one grid of the asked rate from the first tick analysed: each tick on its nearest point, a
     * point no tick reached (the sampler late) is a gap, never a held value */
    struct an_grid g = an_grid_of_hz(skip < rs->nticks ? rs->tick_ns[skip] : 0, rs->sample_hz);
    size_t merged = 0;
    if (dt > 0 && skip < end) {
        int64_t last = an_grid_nearest(&g, rs->tick_ns[end - 1]);
        m = last >= 0 ? (size_t)last + 1 : 0;
    }
    struct an_series *ser = xmalloc((size_t)rs->nranks * sizeof *ser);
    struct an_result *res = xmalloc((size_t)rs->nranks * sizeof *res);
    double period = runsensor_period_s(rs);
    for (int r = 0; r < rs->nranks; r++) {
        grid[r] = xmalloc((m ? m : 1) * sizeof **grid);
        if (m)
            analysis_place(&g, rs->tick_ns + skip, rs->tick_w[r] + skip, end - skip, grid[r], m, &merged);
        /* a sensor that stamps its samples says how often it updates: its readings are then read as held whatever
         * the iteration (an iteration shorter than three updates, read as a signal, can peak at its alias) */
        ser[r] = (struct an_series){ grid[r], m, dt, an_stamp_update_s(rs->rank[r].stamps), period };
    }
    analysis_run_many(ser, (size_t)rs->nranks, bands, nb, res, 0);   /* the ranks at once, on the machine's cores */
    double update = an_sum_update_s(res, (size_t)rs->nranks);   /* the sum's sensor: the slowest held, or none */
    double *lags = xmalloc((size_t)rs->nranks * sizeof *lags);
    for (int r = 0; r < rs->nranks; r++) {
        json_t *pj = analysis_power_json(&res[r], tdp_w);
        json_object_set_new(pj, "rank", json_integer(r));
        double lag = m ? runsensor_lag_s(grid[r], m, dt, (double)an_grid_time(&g, 0) * 1e-9, &rs->rank[r].cbegin, &res[r])
                       : NAN;
        lags[r] = lag;
        json_object_set_new(json_object_get(pj, "sensor"), "lag_ms", json_num(lag * 1e3));
        json_array_append_new(per_rank, pj);
    }
    json_t *folded = m ? runsensor_fold_json(rs, grid, m, dt, (double)an_grid_time(&g, 0) * 1e-9, res, lags, period) : json_null();
    free(lags);
    free(ser);
    free(res);
    double *agg = xcalloc(m ? m : 1, sizeof *agg), *per_gpu = xcalloc(m ? m : 1, sizeof *per_gpu);
    for (size_t i = 0; i < m; i++) {
        for (int r = 0; r < rs->nranks; r++)
            agg[i] += grid[r][i];   /* a missing rank makes the point missing (NAN) */
        per_gpu[i] = agg[i] / rs->nranks;
    }
    size_t ticks = end > skip ? end - skip : 0;
    double span = ticks > 1 ? (double)(rs->tick_ns[end - 1] - rs->tick_ns[skip]) * 1e-9 : NAN;
    json_t *sampling = json_pack("{s:o, s:o, s:I, s:I, s:I}", "asked_hz", json_num(rs->sample_hz > 0 ? rs->sample_hz : NAN),
                                 "achieved_hz", json_num(span > 0 ? (double)(ticks - 1) / span : NAN), "ticks",
                                 (json_int_t)ticks, "points", (json_int_t)m, "merged", (json_int_t)merged);
    struct an_result ares;
    struct an_series as = { agg, m, dt, update, period }, ps = { per_gpu, m, dt, update, period };
    analysis_run(&as, bands, nb, &ares);
    json_t *aggj = analysis_power_json(&ares, tdp_w > 0 ? tdp_w * rs->nranks : NAN);
    double jitter = rs->spread_s.n ? runstats_phase_spread(rs) : 0;
    struct an_projection proj;
    double *cluster = NULL, *held = NULL;
    size_t cn_pts = 0;
    const struct mitigation_ops *mit = mitigation_table[sc->mitigations[rs->mitigation].index];
    if (m && analysis_project_trace(&ps, (long)sc->projection.gpus, (long)sc->projection.groups, jitter,
                                    (unsigned long long)sc->seed, bands, nb, &proj, &cluster, &held, &cn_pts) == 0) {
        json_t *pj = analysis_projection_json(&proj, spec);
        struct an_bess b;
        if (mit->facility) {   /* a facility battery on the cluster's trace: the utility's spec is the grid's */
            mit->facility(sc->mitigations[rs->mitigation].params, &b);
            struct an_projection gp;
            int sides = analysis_bess_grid(cluster, held, cn_pts, dt, bands, nb, &proj, &b, &gp);
            if (sides >= 0)
                json_object_set_new(pj, "bess", analysis_bess_json(&b));
            if (sides > 0) {   /* the grid's range as none's cluster range is taken: on the readings */
                json_t *gj = analysis_projection_json(&gp, spec);
                json_object_set(pj, "spec", json_object_get(gj, "spec"));
                json_object_set_new(pj, "spec_side", json_string("grid, after the battery"));
                json_decref(gj);
            }
        }
        json_object_set_new(aggj, "projection", pj);
    } else {
        json_object_set_new(aggj, "projection", json_null());
    }
    free(cluster);
    free(held);
    double cmin = NAN, csum = 0;
    int cn = 0;
    for (int r = 1; r < rs->nranks && m; r++) {
        double c = analysis_correlation(grid[0], grid[r], m);
        if (isnan(c))
            continue;
        cmin = isnan(cmin) || c < cmin ? c : cmin;
        csum += c;
        cn++;
    }
    json_object_set_new(aggj, "alignment",
                        json_pack("{s:o, s:o, s:o}", "correlation_min", json_num(cmin), "correlation_mean",
                                  json_num(cn ? csum / cn : NAN), "phase_spread_s",
                                  json_num(runstats_phase_spread(rs))));
    enum { BINS = 50 };
    double wave[BINS];
    size_t used = m ? analysis_waveform(&ps, (double)rs->tick_ns[skip] * 1e-9, rs->iter_begin.v, rs->iter_begin.n, wave, BINS)
                    : 0;
    json_t *wj = json_array();
    for (int b = 0; b < BINS && used; b++)
        json_array_append_new(wj, json_num(wave[b]));
    json_object_set_new(aggj, "waveform_per_gpu_w", wj);
    json_object_set_new(aggj, "waveform_folded", folded);
    struct replayfit_in rin = { per_gpu, m, dt, m ? (double)an_grid_time(&g, 0) * 1e-9 : 0,   /* ticks count from the run's start */
                                rs->iter_begin.v, rs->iter_begin.n, bands, nb, update > 0 ? 2 * update : 0 };
    json_object_set_new(aggj, "replay", replayfit_json(sc, &rin));
    json_object_set_new(aggj, "sampling", sampling);
    for (int r = 0; r < rs->nranks; r++)
        free(grid[r]);
    free(grid);
    free(agg);
    free(per_gpu);
    return json_pack("{s:o, s:o}", "aggregate", aggj, "per_rank", per_rank);
}

double runstats_counter_w(const struct run_stats *rs)
{
    double w = rs->nranks > 0 ? 0 : NAN;
    for (int r = 0; r < rs->nranks; r++) {   /* from its first change to its last: each read as soon after its update */
        double d = (double)(rs->e_last_ns[r] - rs->e_first_ns[r]) * 1e-9;
        if (isnan(rs->e_first[r]) || rs->e_changes[r] < RS_COUNTER_UPDATES || !(d > 0) || rs->e_last[r] < rs->e_first[r])
            return NAN;   /* no counter, too few of its updates to read it to 5 %, or it went back */
        w += (rs->e_last[r] - rs->e_first[r]) / d;
    }
    return w;
}

/* The run's throughput and energy, waits included: over the stretch the power analysis covers, from the end of the
 * first iteration (the warm-up left out) to the end of the run; the energy from every rank's energy counter when
 * each has one, else the aggregate's mean power over that time. Sets throughput_it_s, energy_per_iter_j, energy. */
static void runstats_cost_json(const struct run_stats *rs, json_t *run)
{
    int64_t iters = runstats_iterations(rs);
    double wall = rs->t_end > rs->t_begin ? (double)(rs->t_end - rs->t_begin) * 1e-9 : NAN;
    double steady = rs->warm_ns && rs->t_end > rs->warm_ns ? (double)(rs->t_end - rs->warm_ns) * 1e-9 : NAN;
    int64_t after = iters - rs->warm_iter;   /* iterations completed after the warm-up */
    double thr = after >= 1 && steady > 0 ? (double)after / steady : iters > 0 && wall > 0 ? (double)iters / wall : NAN;
    double span = after >= 1 && steady > 0 ? steady : wall;
    double counter_w = runstats_counter_w(rs);
    int counters = !isnan(counter_w);
    json_t *agg_mean = json_object_get(json_object_get(json_object_get(run, "power"), "aggregate"), "mean_w");
    double mean_w = counters ? counter_w : json_is_number(agg_mean) ? json_number_value(agg_mean) : NAN;
    json_object_set_new(run, "throughput_it_s", json_num(thr));
    json_object_set_new(run, "energy_per_iter_j", json_num(thr > 0 ? mean_w / thr : NAN));
    json_t *en = json_pack("{s:o, s:o, s:o, s:s}", "j", json_num(mean_w * span), "mean_w", json_num(mean_w), "span_s",
                           json_num(span), "source", counters ? "energy counter" : "power samples");
    /* the cross-check: what the readings add up to against what the counter counted over the same stretch */
    double sampled_w = json_number_value(agg_mean);
    int both = counters && sampled_w > 0 && counter_w > 0;
    double dis = both ? 100 * (sampled_w - counter_w) / counter_w : NAN;
    json_object_set_new(en, "cross_check",
                        json_pack("{s:o, s:o, s:o, s:o}", "sampled_j", json_num(sampled_w > 0 ? sampled_w * span : NAN),
                                  "counter_j", json_num(counters ? counter_w * span : NAN), "disagreement_pct", json_num(dis),
                                  "flagged", both ? json_boolean(fabs(dis) > 5) : json_null()));
    json_object_set_new(run, "energy", en);
}

json_t *runstats_json(struct run_stats *rs, const struct scenario *sc, const char *mitigation, int bus_ranks, double tdp_w)
{
    double flops = 0, compute_s = 0, ckpt_b = 0, ckpt_s = 0, stall = 0;
    int ckpts = 0;
    struct series comm = { 0 }, bus = { 0 };
    double comm_bytes = 0;
    runstats_settle_stretch(rs);
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
        for (size_t k = 0; k < r->bus_gbs.n; k++)
            series_add(&bus, r->bus_gbs.v[k]);
        if (r->comm_bytes > 0)
            comm_bytes = r->comm_bytes;
    }
    /* per-GPU compute rate, the all-reduce's bus bandwidth as nccl-tests defines it: algbw x 2(n-1)/n (one rank: no bus, null) */
    double tflops = compute_s > 0 && flops > 0 ? flops / compute_s / 1e12 : NAN;   /* replay: no GEMM to count */
    double comm_p50 = series_pct(&comm, 50);
    double busbw = comm_p50 > 0 && bus_ranks > 1 ? comm_bytes / comm_p50 * 2.0 * (bus_ranks - 1) / bus_ranks / 1e9 : NAN;
    if (bus.n && bus_ranks > 1)   /* phases: the median over the communication steps that ran alone (an overlapped one has no time of its own) */
        busbw = series_pct(&bus, 50);
    double ckpt_gbs = ckpt_s > 0 ? ckpt_b / ckpt_s / 1e9 : NAN;
    int agree = 1, r0 = runstats_first_kept(rs);   /* the ranks still in the run: shrink's dropped ones hold none */
    int hashed = runstats_done(rs);   /* 0: a rank whose snapshot failed sent no hash (0, which FNV-1a never gives
                                       * in practice): nothing to compare (until 2026-12-02 a fingerprint of 0, and
                                       * every rank failing agreed) */
    for (int i = r0; i < rs->nranks && r0 >= 0; i++)
        hashed &= rs->rank[i].dropped || rs->rank[i].fingerprint != 0;
    for (int i = r0 + 1; i < rs->nranks; i++)
        if (!rs->rank[i].dropped && rs->rank[i].fingerprint != rs->rank[r0].fingerprint)
            agree = 0;
    char fp[24];
    snprintf(fp, sizeof fp, "%016llx", (unsigned long long)rs->rank[r0].fingerprint);
    json_t *run = json_pack(
        "{s:s, s:I, s:I, s:b, s:o, s:{s:o, s:o, s:o}, s:o, s:o, s:o, s:i, s:o, s:o, s:o}", "mitigation",
        mitigation, "iterations", (json_int_t)runstats_iterations(rs), "iterations_planned", (json_int_t)rs->planned,
        "complete", runstats_done(rs), "wall_s",
        json_num(rs->t_end > rs->t_begin ? (double)(rs->t_end - rs->t_begin) * 1e-9 : NAN), "iteration_s", "p50",
        json_num(series_pct(&rs->iter_s, 50)), "p99", json_num(series_pct(&rs->iter_s, 99)), "mean",
        json_num(series_mean(&rs->iter_s)), "tflops", json_num(tflops), "busbw_gbs", json_num(busbw),
        "checkpoint_gbs", json_num(ckpt_gbs), "checkpoints", ckpts / (rs->nranks ? rs->nranks : 1),
        "state_fingerprint", hashed ? json_string(fp) : json_null(), "fingerprints_agree",
        hashed ? json_boolean(agree) : json_null(), "power", runstats_power_json(rs, sc, tdp_w));
    json_object_set_new(run, "checkpoint_stall_s", json_num(ckpts ? stall / ckpts : NAN));
    /* where the analysed stretch starts: the warm-up (power climbing from idle, a mitigation settling) left out */
    int64_t warmup = rs->warm_ns && rs->warm_ns >= rs->t_begin ? (int64_t)(rs->warm_ns - rs->t_begin) : -1;
    json_object_set_new(run, "warmup_s", json_num(warmup >= 0 ? (double)warmup * 1e-9 : NAN));
    if (rs->unsettled)
        json_object_set_new(run, "unsettled", json_true());
    runstats_cost_json(rs, run);
    json_object_set_new(run, "gap_s", runstats_gap_json(rs));
    json_t *truth = runtruth_json(rs, json_number_value(json_object_get(run, "throughput_it_s")));
    if (truth)
        json_object_set_new(run, "truth", truth);
    json_t *ranks = json_array();   /* per GPU: what the fleet-outlier check compares */
    for (int i = 0; i < rs->nranks; i++) {
        struct rank_stats *r = &rs->rank[i];
        json_array_append_new(ranks, json_pack("{s:i, s:o, s:o, s:I}", "rank", i,
                                               "tflops", json_num(r->rate.n ? series_pct(&r->rate, 50) : NAN),
                                               "tflops_mean", json_num(r->compute_s > 0 ? r->flops / r->compute_s / 1e12 : NAN),
                                               "iterations", (json_int_t)r->iters));
    }
    json_object_set_new(run, "ranks", ranks);
    series_free(&comm);
    series_free(&bus);
    return run;
}

void runstats_free(struct run_stats *rs)
{
    for (int r = 0; r < rs->nranks; r++) {
        series_free(&rs->rank[r].comm_s);
        series_free(&rs->rank[r].rate);
        series_free(&rs->rank[r].cbegin);
        series_free(&rs->rank[r].bus_gbs);
        series_free(&rs->rank[r].gap_s);
        if (rs->tick_true)
            free(rs->tick_true[r]);
        free(rs->tick_w[r]);
        free(rs->rank[r].stamps);
    }
    free(rs->tick_true);
    series_free(&rs->iter_s);
    series_free(&rs->spread_s);
    series_free(&rs->iter_begin);
    free(rs->tick_w);
    free(rs->tick_ns);
    free(rs->e_first);
    free(rs->e_last);
    free(rs->e_first_ns);
    free(rs->e_last_ns);
    free(rs->e_changes);
    free(rs->spread_t);
    free(rs->delay_s);
    rs->delay_s = NULL;
    free(rs->spread_n);
    free(rs->rank);
    rs->rank = NULL;
}
