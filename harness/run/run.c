/* harness/run/run.c: a scenario's run on this node (see supervisor.h): the supervisor's core assembled with
 * resilience/ and cluster/ through their hooks, each mitigation in turn, then the end: the summary (node 0, with every
 * node's figures), the end table, everything freed. */
#include "supervisor.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "cluster.h"
#include "mitigations/mitigation.h"
#include "plugin.h"
#include "metrics.h"
#include "progress.h"
#include "recovery/recovery.h"
#include "run.h"
#include "runcluster.h"
#include "stats.h"
#include "util.h"

#include <errno.h>
#include <string.h>

/* A node's set-up longer than this is said when the run starts (seconds). */
#define RUN_SLOW_SETUP_S 5.0

/* The n of the collective's bus bytes (2(n-1)/n for an all-reduce): the ranks it emulates where the model draws its
 * time for them (sim: emulate_ranks, a step's ranks) or the phase is stretched to their time (emulate_busbw); on a
 * GPU otherwise the ranks that really take part, every rank of every node (until 2026-12-02 an emulate_ranks of 2 on
 * 8 GPUs reported the bus bandwidth of 2 ranks, 0.57 of the real one, and accept failed it). */
int64_t run_bus_ranks(const struct scenario *sc, int modelled)
{
    int64_t n = sc->workload.allreduce.emulate_ranks;
    return n > 0 && (modelled || sc->workload.allreduce.emulate_busbw_gbs > 0) ? n : sc->ranks * sc->nodes;
}

/* What was done by hand to a run (SUP_DISTURBED_*), by name: [] for a run left alone. */
static json_t *run_disturbed(unsigned d)
{
    json_t *a = json_array();
    if (d & SUP_DISTURBED_PAUSED)
        json_array_append_new(a, json_string("paused"));
    if (d & SUP_DISTURBED_FAULT)
        json_array_append_new(a, json_string("fault_by_hand"));
    if (d & SUP_DISTURBED_SKIPPED)
        json_array_append_new(a, json_string("skipped"));
    return a;
}

/* Runs mitigation m to its end, a failure or a stop. */
static void sup_one_run(struct sup *s, int m)
{
    if (supc_run_begin(s, m) != 0)   /* several nodes: every node starts the run together */
        return;
    uint64_t now = mono_ns();
    s->run = m;
    runstats_init(&s->rs, m, s->nranks, s->sc->iterations, now, s->sc->power.sample_hz, scenario_settle_s(s->sc));
    s->rs.stamp_t0_ns = s->res.t0_ns;   /* ticks on the record's microseconds: summarize's grid is the run's */
    const struct mitigation_ops *dmo = mitigation_table[s->sc->mitigations[m].index];
    if (dmo->model) {   /* a stagger's deliberate delays: not the ranks' natural jitter (runstats_set_delays) */
        double *delay = xcalloc((size_t)s->nranks, sizeof *delay);
        int any = 0;
        for (int r = 0; r < s->nranks; r++) {
            struct mit_model mm = { 0 };
            /* as every backend asks it: by the rank's place among every node's ranks (the sim's, and cuda's
             * shaper.c since 2026-11-29; until 2026-12-01 this took cuda's by the node's own: on node 1 of a stagger
             * of 2 ranks a node, ranks 2 and 3 waited 40 and 0 ms and 0 and 20 ms were taken off their spread) */
            dmo->model(s->sc->mitigations[m].params, &s->sc->sim, r + (int)s->shm.hdr->rank_offset,
                       (int)s->shm.hdr->world, &mm);
            double speed = s->ops->modelled && s->sc->sim.speedup > 0 ? s->sc->sim.speedup : 1;
            delay[r] = mm.delay_s > 0 ? mm.delay_s / speed : 0;   /* the sim waits delay / speedup */
            any |= delay[r] > 0;
        }
        if (any)
            runstats_set_delays(&s->rs, delay);
        free(delay);
    }
    for (int r = 0; r < s->nranks; r++)
        if (s->dropped[r])
            s->rs.rank[r].done = s->rs.rank[r].dropped = 1;   /* shrunk away in an earlier run */
        else
            checkpoint_remove(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, r);   /* restore only this run's */
    s->running = 1;
    s->skipping = 0;
    s->disturbed = 0;
    s->run_t0 = now;
    faultlog_run_begin(s);
    atomic_store(&s->shm.hdr->stop_at, INT64_MAX);
    if (s->paused) {   /* paused from the view: the next run waits before its first iteration */
        atomic_store(&s->shm.hdr->pause_at, 0);
        s->disturbed |= SUP_DISTURBED_PAUSED;
    }
    sup_size_bess(s, m);   /* before run_begin: its label names the ratings the battery was sized to */
    json_t *begin = json_pack("{s:i, s:s, s:s, s:I}", "run", m, "mitigation", s->sc->mitigations[m].name, "label",
                              s->sc->mitigations[m].label[0] ? s->sc->mitigations[m].label : s->sc->mitigations[m].name,
                              "iterations", (json_int_t)s->sc->iterations);
    const struct mitigation_ops *mo = mitigation_table[s->sc->mitigations[m].index];
    if (mo->model && s->ops->modelled) {   /* the levels the view draws: per GPU */
        struct mit_model mm = { 0 };
        mo->model(s->sc->mitigations[m].params, &s->sc->sim, 0, s->nranks, &mm);
        if (mm.floor_w > 0)
            json_object_set_new(begin, "floor_w", json_real(mm.floor_w));
        if (mm.cap_w > 0)
            json_object_set_new(begin, "cap_w", json_real(mm.cap_w));
    }
    if (s->sc->workload.n_shapes > 1)   /* the shape it runs on: the view compares it with its shape's none */
        json_object_set_new(begin, "shape", json_string(s->sc->workload.shapes[s->sc->mitigations[m].shape].name));
    results_event(&s->res, now, "run_begin", begin);
    json_t *dev = supdev_run_begin(s, m);   /* cap, firmware smoothing: before the first iteration */
    struct wcmd cmd = { .type = CMD_RUN, .run = m, .iterations = s->sc->iterations, .epoch = s->epoch };
    sup_checked_reset(s, 0);
    atomic_fetch_add(&s->shm.hdr->xn.epoch, 1);   /* a new name space for the run's collectives, on every node */
    sup_command(s, &cmd);
    while (!s->stopping &&
           (s->fl->rm.state != RM_IDLE || (!runstats_done(&s->rs) && !(s->skipping && runstats_settled(&s->rs)))))
        sup_step(s);   /* a recovery under way is carried to its end first */
    if (s->fl->awaiting_fault >= 0 && runstats_done(&s->rs)) {
        s->fl->awaiting_fault = -1;
        s->fl->n_superseded = 0;
    }
    if (!s->rs.t_end)
        s->rs.t_end = mono_ns();
    int not_injected = faultlog_run_end(s);   /* asked (the view, a timer) and never carried out: said */
    supdev_run_end(s, m, dev);
    /* the collective's ranks: every rank of every node (as the start event's bus_ranks, summarize's and the live
     * metrics'), or the ranks it emulates (run_bus_ranks) */
    int bus_ranks = (int)run_bus_ranks(s->sc, s->ops->modelled);
    double tdp = s->sc->power.tdp_w > 0 ? s->sc->power.tdp_w : s->ops->model_tdp_w ? s->ops->model_tdp_w(s->sc) : NAN;
    json_t *run = runstats_json(&s->rs, s->sc, s->sc->mitigations[m].name, bus_ranks, tdp);
    if (s->sc->mitigations[m].label[0])   /* one value of a sweep, or a search's candidate */
        json_object_set_new(run, "label", json_string(s->sc->mitigations[m].label));
    if (s->sc->workload.n_shapes >= 1 && s->sc->workload.shapes[s->sc->mitigations[m].shape].name[0])
        json_object_set_new(run, "shape", json_string(s->sc->workload.shapes[s->sc->mitigations[m].shape].name));
    sup_modelled(s, m, run);
    if (not_injected)
        json_object_set_new(run, "faults_not_injected", json_integer(not_injected));
    json_object_set_new(run, "faults",
                        faultlog_run_json(s, json_number_value(json_object_get(json_object_get(run, "iteration_s"), "p50"))));
    faultlog_ranks_json(s, json_object_get(run, "ranks"));   /* what each rank's sdc detectors compared */
    if (s->skipping)
        json_object_set_new(run, "skipped", json_true());
    json_object_set_new(run, "disturbed", run_disturbed(s->disturbed));   /* by hand: not the mitigation's alone */
    json_object_set_new(run, "run", json_integer(m));
    if (json_object_size(dev))
        json_object_set_new(run, "device", dev);
    else
        json_decref(dev);
    /* the figures the live view's comparison table shows, as the summary has them */
    json_t *agg = json_object_get(json_object_get(run, "power"), "aggregate");
    json_t *ramps = json_object_get(agg, "ramp_up_w_s"), *falls = json_object_get(agg, "ramp_down_w_s");
    /* the larger of the two that were measured; null where neither was (a sensor too slow for 100 ms: never 0) */
    double ramp = fmax(json_num_value(json_object_get(ramps, "100ms")),
                       json_num_value(json_object_get(falls, "100ms")));
    json_t *fig = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "throughput_it_s",
                            json_copy(json_object_get(run, "throughput_it_s")), "iteration_p50_s",
                            json_copy(json_object_get(json_object_get(run, "iteration_s"), "p50")), "mean_w",
                            json_num(json_num_value(json_object_get(agg, "mean_w"))), "swing_w",
                            json_num(json_num_value(json_object_get(agg, "swing_w"))), "ramp_w_s", json_num(ramp),
                            "energy_per_iter_j",
                            json_num(sup_energy_per_iter(run)), "tflops", json_copy(json_object_get(run, "tflops")));
    /* against its shape's none as summary.json will have it, where that none ran before: the view shows these (until
     * 2026-12-02 it worked them out from the GPUs' figures, and a battery's energy, its losses, read -0 %) */
    json_t *vs = sup_live_vs_none(s, run);
    json_object_set_new(fig, "energy_efficiency", json_num(json_num_value(json_object_get(vs, "energy_efficiency"))));
    if (vs)
        json_object_set_new(fig, "vs_none", vs);
    json_object_set(fig, "warmup_s", json_object_get(run, "warmup_s"));   /* where the analysed stretch begins */
    /* the iteration's period the power analysis took (rank 0's compute starts apart: a checkpoint's stall and the
     * waits between iterations in): summarize and analyze take it (until 2026-12-02 they took iteration_p50_s, the
     * iterations' own time, and judged a dominant frequency near the sensor's limit otherwise than the run) */
    double period = runsensor_period_s(&s->rs);
    json_object_set_new(fig, "period_s", period > 0 ? json_real(period) : json_null());
    /* the groups' jitter the projection took (summarize projects a rebuilt run's power with it) */
    json_object_set_new(fig, "jitter_s", json_real(s->rs.spread_s.n ? runstats_phase_spread(&s->rs) : 0));
    struct rs_trace *t = runstats_trace(&s->rs);   /* the stretch analysed (t_s as the events'): summarize's too */
    double begin_s = (double)(int64_t)(s->rs.t_begin - s->res.t0_ns) * 1e-9;
    if (t && t->n >= 2)
        json_object_set_new(fig, "analysed_s", json_pack("[f, f]", begin_s + t->t_s[0], begin_s + t->t_s[t->n - 1]));
    json_t *end = json_pack("{s:i, s:s, s:s, s:I, s:b, s:b, s:o, s:o}", "run", m, "mitigation", s->sc->mitigations[m].name,
                            "label", s->sc->mitigations[m].label[0] ? s->sc->mitigations[m].label : s->sc->mitigations[m].name,
                            "iterations", (json_int_t)runstats_iterations(&s->rs), "complete", runstats_done(&s->rs),
                            "skipped", s->skipping, "disturbed", run_disturbed(s->disturbed), "figures", fig);
    if (s->sc->workload.n_shapes > 1)
        json_object_set_new(end, "shape", json_string(s->sc->workload.shapes[s->sc->mitigations[m].shape].name));
    results_event(&s->res, s->rs.t_end, "run_end", end);
    supc_run_end(s, m, run);   /* several nodes: node 0 gathers every node's figures of this run */
    if (s->node == 0 && s->res.cl) {   /* forward: nodes: the stretch of the cluster's sum this run is, and node 0's
                                        * trace projected to the cluster's GPUs beside it */
        double jitter = s->rs.spread_s.n ? runstats_phase_spread(&s->rs) : 0;   /* s (until 2026-11-30 its square) */
        runcluster_run(s->res.cl, m, t, begin_s, s->sc, (long)(s->nranks * s->nodes), s->nodes, jitter);
    }
    rs_trace_free(t);
    json_array_append_new(s->rn->runs, run);
    if (strcmp(s->sc->mitigations[m].name, "none") == 0)   /* a baseline: its power kept for the least energy */
        s->rn->base_trace[m] = runstats_trace(&s->rs);
    runstats_free(&s->rs);
    s->running = 0;
}

int supervisor_block_signals(void)
{
    sigset_t set = sup_sigset();
    return sigprocmask(SIG_BLOCK, &set, &sup_oldmask) != 0 ? SYSERR("sigprocmask") : 0;
}

int supervisor_stop_signal(void)
{
    static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
    sigset_t pending;
    if (sup_first_stop_signo || sigpending(&pending) != 0)
        return sup_first_stop_signo;
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
        if (sigismember(&pending, stops[i]) == 1)
            return stops[i];
    return 0;
}

/* The run is over: stops the workers, writes the summary (node 0, with every node's figures), prints the end table
 * and frees what the run held. Returns the exit code. */
/* forward: nodes, node 0: each run's power.cluster — the nodes' sums on node 0's grid (runcluster.h), with the
 * largest clock uncertainty of any node. */
static void run_cluster_figures(struct sup *s, json_t *summary)
{
    double uncert = 0, tdp = s->sc->power.tdp_w > 0 ? s->sc->power.tdp_w : s->ops->model_tdp_w ? s->ops->model_tdp_w(s->sc) : NAN;
    json_t *nd;
    size_t i;
    json_array_foreach(json_object_get(summary, "nodes"), i, nd)
        uncert = fmax(uncert, json_number_value(json_object_get(nd, "clock_uncertainty_s")));
    results_cluster_flush(&s->res);   /* node 0's last cell: in the figures, as in the record a rebuild reads */
    runcluster_json(s->res.cl, summary, s->sc, tdp, uncert);
}

/* A results failure just recorded (had: results_failed held one before it, already said; a later one is said where
 * it happens): said where it is the first, exit 3, the reason its text where the run has none (its middle cut where
 * it is longer than the reason holds: the file and the OS error are at its end), and the summary saying so. */
static void run_failed_now(struct sup *s, json_t *summary, int *code, int had)
{
    const char *why = results_failed(&s->res) ? results_failed(&s->res) : "the record's end line could not be made";
    if (!had)
        gl_log("%s", why);
    s->io_failed = 1;
    *code = EXIT_ENV;
    json_object_set_new(summary, "exit", json_integer(*code));
    if (!s->reason[0]) {
        str_copy_mid(s->reason, sizeof s->reason, why);
        json_object_set_new(summary, "stopped", results_text(s->reason));
    }
    if (!s->stop)
        s->stop = SUP_STOP_RESULTS;
    json_object_set_new(summary, "stop", json_string(s->stop));
}

/* A results write that failed and is not yet said (after the loop's last look, the end line, or node 0's early
 * summary): said here, and exit 3 (code and summary updated). */
static void run_io_failed(struct sup *s, json_t *summary, int *code)
{
    if (results_failed(&s->res) && !s->io_failed)
        run_failed_now(s, summary, code, 0);
}

/* Writes the end line: the exit code the run ends with, and why. 0, or -1 when it could not be written. */
static int run_end_line(struct sup *s, int code)
{
    return results_event(&s->res, mono_ns(), "end", json_pack("{s:i, s:o}", "exit", code, "reason",
                                                             s->reason[0] ? results_text(s->reason) : json_null()));
}

/* Node 0: summary.json first, then the end line, which so carries the exit code the run really ends with (3 where
 * summary.json could not be written, or is in place but its folder's fsync failed: the record never says 0 for it),
 * then the end line fsynced. An end line that cannot be written, or whose fsync fails, is exit 3 too (until
 * 2026-11-30 its fsync came at the close, a failure only said, exit 0): one that said another code is taken back and
 * written again saying 3. What stays agrees with the run: summary.json in place (early: the exit code node 0's early
 * summary in place says, several nodes; -1: none) that says another code is written again, or, where even that
 * fails, removed rather than left saying the code it had (`gauntlet summarize` rebuilds one from the record). */
static void run_record_end(struct sup *s, json_t *summary, int *code, int early)
{
    results_sync(&s->res);   /* the record on disk before the summary of it (a power loss between keeps no summary
                              * of a shorter record); a record that cannot be made durable is the run's failure */
    run_io_failed(s, summary, code);   /* a failure since the loop's last look: in the summary too */
    int had = results_failed(&s->res) != NULL, rc = results_summary(&s->res, summary);
    int disk = rc >= 0 ? (int)json_integer_value(json_object_get(summary, "exit")) : early;   /* what is in place */
    if (rc != 0)   /* not written, or written but not durable (until 2026-11-30 both taken for "not written") */
        run_failed_now(s, summary, code, had);
    off_t at = s->res.events_off;
    had = results_failed(&s->res) != NULL;
    int line = run_end_line(s, *code) == 0 ? *code : -1;   /* the code the end line says; -1: none written */
    if (line < 0 || results_sync(&s->res) != 0)
        run_failed_now(s, summary, code, had);
    if (line >= 0 && line != *code && results_events_cut(&s->res, at) == 0 && run_end_line(s, *code) == 0)
        results_sync(&s->res);   /* a failure again is said there: the run's is said already */
    if (disk < 0 || disk == *code || results_summary(&s->res, summary) >= 0)
        return;   /* none in place, or one that says the run's code (again: a failure to sync it is said there) */
    char path[sizeof s->res.dir + 16];
    snprintf(path, sizeof path, "%s/summary.json", s->res.dir);
    if (unlink(path) != 0)
        gl_log("cannot remove %s, which says exit %d while the run ends with %d: %s", path, disk, *code, strerror(errno));
    else
        gl_log("%s removed: it said exit %d, and the run ends with %d (`gauntlet summarize` rebuilds one from the "
               "record)", path, disk, *code);
}

static int sup_finish(struct sup *s, const char *started)
{
    const struct backend_ops *ops = s->ops;
    const struct run_options *opt = s->rn->opt;
    const struct view_link *view = s->rn->view;
    sup_stop_workers(s);
    for (int r = 0; r < s->nranks; r++)   /* synthetic state: this run's checkpoints go with it */
        checkpoint_remove(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, r);
    checkpoint_unlock(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, s->ckpt_lock_fd);
    s->ckpt_lock_fd = -1;
    int code = s->io_failed ? EXIT_ENV : s->failed || s->reason[0] ? EXIT_CHECK : EXIT_OK;
    sup_compare_runs(s);
    json_t *summary = sup_summary(s, code, started);
    int early = -1;   /* the exit code an early summary in place says */
    if (s->node == 0 && s->nodes > 1) {   /* written now, as it stands: a launcher tearing the job down (a node died)
                                         * may kill this process before the other nodes' records come; a failed
                                         * write is said below. The record first on disk, as for the last summary
                                         * (until 2026-11-30 this one came before it: a power loss during the wait
                                         * could keep a summary of a record shorter than it says) */
        results_sync(&s->res);
        run_io_failed(s, summary, &code);
        if (results_summary(&s->res, summary) >= 0)
            early = (int)json_integer_value(json_object_get(summary, "exit"));
    }
    if (s->node != 0) {   /* its end line before its end record: node 0 may end the job once it has every record;
                           * its own files on disk, a failure its exit 3, in that record (until 2026-12-02 synced at
                           * the close alone, a failure only said, the node's exit 0) */
        results_sync(&s->res);
        run_io_failed(s, summary, &code);
        off_t at = s->res.events_off;
        int line = run_end_line(s, code) == 0 ? code : -1;   /* as node 0's (run_record_end): a line that said */
        if (line < 0 || results_sync(&s->res) != 0)          /* another code than the run ends with is taken back */
            run_io_failed(s, summary, &code);
        if (line >= 0 && line != code && results_events_cut(&s->res, at) == 0 && run_end_line(s, code) == 0)
            results_sync(&s->res);
    }
    supc_end(s, summary, &code);   /* several nodes: every node's figures into node 0's summary */
    if (s->node == 0 && s->res.cl)   /* forward: nodes: the cluster's summed power per run, once every node's is in */
        run_cluster_figures(s, summary);
    if (s->node == 0)
        run_record_end(s, summary, &code, early);
    if (view) {   /* the terminal is the table's again */
        s->res.view = NULL;
        view->stop(view->ctx);
        if (opt->metrics)
            metrics_view_attach(opt->metrics, NULL);
        if (s->rn->base && s->rn->base != opt->view)
            progress_view_close(s->rn->base);
    }
    if (s->node == 0)
        sup_print_table(s, code, summary);
    else
        printf("%s: node %d of %d: exit %d%s%s\n", gl_tag(), s->node, s->nodes, code, s->reason[0] ? ": " : "", s->reason);
    json_decref(summary);
    json_decref(s->rn->runs);
    for (int m = 0; s->rn->base_trace && m < SC_MAX_MITIGATIONS; m++)
        rs_trace_free(s->rn->base_trace[m]);
    free(s->rn->base_trace);
    cluster_proxy_stop();
    supc_free(s);
    ops->power_close(s->ps);
    results_close(&s->res);
    shm_close(&s->shm);
    sup_free(s);
    resilience_free(s);
    return code;
}

/* How long each step of a node's set-up took (seconds): a start that waits on the machine (a results folder whose
 * fsync queues behind other writes, a slow device) is said, and recorded in the start event. */
struct run_setup_times {
    double cluster_s, checkpoint_s, results_s, prepare_s, power_s;
};

static double run_since(uint64_t *t)
{
    uint64_t now = mono_ns(), was = *t;
    *t = now;
    return (double)(now - was) * 1e-9;
}

/* This node's set-up, timed into tm: the cluster's, the checkpoint folder's lock and sweep, the results folder, the
 * backend's prepare, the power source. 0, or 1 with why (set: the cluster's set-up was done; opened: the results). */
static int run_setup(struct sup *s, const struct backend_ops *ops, const struct run_options *opt, int *set, int *opened,
                     struct run_setup_times *tm, char *why, size_t n)
{
    const struct scenario *sc = s->sc;
    uint64_t t = mono_ns();
    int failed = 0;
    if (supc_setup(s, why, n) != 0)   /* several nodes: clocks, global ranks, the proxy */
        failed = 1;
    else
        *set = 1;
    if (s->nodes > 1)   /* the recovery machine reaches the other nodes over MPI */
        s->fl->coord = &rec_coord_cluster;
    tm->cluster_s = run_since(&t);
    str_copy(s->shm.hdr->backend, sizeof s->shm.hdr->backend, ops->name);
    checkpoint_tag(s->shm.hdr->ckpt_tag, sizeof s->shm.hdr->ckpt_tag, sc->name, s->node, s->nodes);
    s->ckpt_lock_fd = -1;
    if (sc->workload.checkpoint.every > 0) {   /* this run's lock first, then the files of runs nobody holds */
        if ((s->ckpt_lock_fd = checkpoint_lock(sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag)) < 0) {
            /* no checkpoint could be written there either: the run would fail at its first (after its results
             * folder was begun, an earlier run's record in it replaced); it fails here, nothing touched */
            if (!failed)
                snprintf(why, n, "%s: workload.checkpoint.path: cannot create this run's lock file in %s: %s (expected "
                         "a folder the run can write)", sc->file, sc->workload.checkpoint.path, strerror(errno));
            failed = 1;
        } else if (checkpoint_sweep(sc->workload.checkpoint.path) < 0)
            gl_log("checkpoint folder %s: %s (files a killed run left there stay)", sc->workload.checkpoint.path,
                   strerror(errno));
    }
    tm->checkpoint_s = run_since(&t);
    if (!failed && (s->node == 0 ? results_open(&s->res, opt->out_dir, sc, s->t0, why, n)
                                 : results_open_forward(&s->res, opt->out_dir, sc, s->node, s->nranks, s->t0,
                                                        cluster_forward, why, n)) != 0)
        failed = 1;
    else if (!failed)
        *opened = 1;
    if (s->nodes > 1) {
        s->res.node = s->node;
        s->res.rank_offset = s->node * s->nranks;
    }
    tm->results_s = run_since(&t);
    if (!failed && ops->prepare && s->node == 0 && ops->prepare(&s->shm, why, n) != 0)
        failed = 1;
    tm->prepare_s = run_since(&t);
    if (!failed && !(s->ps = ops->power_open(&s->shm, why, n))) {
        char *tmp = xmalloc(n + 16);
        snprintf(tmp, n + 16, "power source: %s", why);
        str_copy(why, n, tmp);
        free(tmp);
        failed = 1;
    }
    tm->power_s = run_since(&t);
    if (!failed && sup_fds(s) != 0) {   /* before the agreement: a node that cannot stops every node there */
        snprintf(why, n, "node %d: cannot make the supervisor's signal and timer descriptors: %s", s->node,
                 strerror(errno));
        failed = 1;
    }
    double total = tm->cluster_s + tm->checkpoint_s + tm->results_s + tm->prepare_s + tm->power_s;
    if (!failed && total > RUN_SLOW_SETUP_S)
        gl_log("node %d: the set-up took %.1f s before the first worker could start (cluster %.1f s, checkpoint folder "
               "%.1f s, results folder %.1f s, backend %.1f s, power source %.1f s): the machine is slow to answer",
               s->node, total, tm->cluster_s, tm->checkpoint_s, tm->results_s, tm->prepare_s, tm->power_s);
    return failed;
}

/* The projection the run makes, as the start event records it: what summarize projects a rebuilt run with. */
static json_t *run_projection_json(const struct scenario *sc)
{
    return json_pack("{s:I, s:I, s:o}", "gpus", (json_int_t)sc->projection.gpus, "groups",
                     (json_int_t)sc->projection.groups, "spec", analysis_spec_json(&sc->projection.spec));
}

/* The set-up's steps as the start event records them. */
static json_t *run_setup_json(const struct run_setup_times *tm)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "total_s",
                     tm->cluster_s + tm->checkpoint_s + tm->results_s + tm->prepare_s + tm->power_s, "cluster_s",
                     tm->cluster_s, "checkpoint_s", tm->checkpoint_s, "results_s", tm->results_s, "backend_s",
                     tm->prepare_s, "power_s", tm->power_s);
}

/* A set-up that failed (why), undone: the record ended with why where node 0 began it (summarize, analyze read
 * it), the caller told, what was made closed and the checkpoint lock let go (a process that runs again, accept,
 * keeps none). set, opened: as run_setup left them. */
static void run_setup_undo(struct sup *s, const struct run_options *opt, int set, int opened, const char *why)
{
    if (s->ps)
        s->ops->power_close(s->ps);
    if (opened && s->node == 0)
        results_setup_failed(&s->res, why);
    if (opened)
        results_close(&s->res);
    if (opt->setup_why && opt->setup_why_n)
        str_copy(opt->setup_why, opt->setup_why_n, why);
    if (set)
        cluster_proxy_stop();   /* before the control block it reads goes */
    if (s->sigfd >= 0)
        close(s->sigfd);
    if (s->timerfd >= 0)
        close(s->timerfd);
    if (s->ckpt_lock_fd >= 0)
        checkpoint_unlock(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, s->ckpt_lock_fd);
    shm_close(&s->shm);
    supc_free(s);
    resilience_free(s);
}

static int run_scenario(const struct scenario *sc, const struct backend_ops *ops, const struct run_options *opt)
{
    struct sup_run rn = { .opt = opt };
    struct sup s = { .sc = sc, .orig = sc, .ops = ops, .exe = opt->exe, .nranks = (int)sc->ranks, .sigfd = -1,
                     .timerfd = -1, .run = -1, .rn = &rn,
                     .hooks = { &resilience_hooks, &cluster_hooks, &run_hooks }, .n_hooks = 3 };
    char why[RESULTS_DIR_MAX + 1024], started[32];   /* a set-up failure names a path of the folder whole */
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const struct recovery_ops *rec = recovery_table[sc->recovery.index];
    int nspares = rec->spares;
    uint64_t replica_bytes = rec->replicas ? (uint64_t)ops->state_bytes(sc) : 0;
    /* several nodes: a node that cannot set up stops every node at the next agreement (cluster_agree), so
     * none is left waiting for it in a collective */
    int made = shm_create(&s.shm, s.nranks, nspares, ops->shm_coll_elems ? ops->shm_coll_elems(sc) : 0, replica_bytes) == 0;
    if (opt->setup_why && opt->setup_why_n)
        opt->setup_why[0] = 0;
    if (cluster_agree(made ? 0 : EXIT_ENV, "the control block") != 0) {
        if (made)
            shm_close(&s.shm);
        if (opt->setup_why && opt->setup_why_n)
            str_copy(opt->setup_why, opt->setup_why_n, made ? "another node could not make its control block (its "
                     "messages say why)" : "the shared control block could not be made (see the messages above)");
        return EXIT_ENV;
    }
    s.nslots = s.nranks + nspares;
    s.t0 = mono_ns();
    s.shm.hdr->t0_ns = s.t0;
    s.shm.hdr->sc = *sc;
    s.sc = &s.shm.hdr->sc;
    supc_new(&s);
    resilience_new(&s, (int)sc->nodes * s.nranks);   /* random fault ranks drawn once, from the seed */
    int set = 0, opened = 0;   /* how far this node's set-up went */
    struct run_setup_times setup_t = { 0 };
    int failed = run_setup(&s, ops, opt, &set, &opened, &setup_t, why, sizeof why);
    if (failed)
        gl_log("%s", why);
    if (cluster_agree(failed ? EXIT_ENV : 0, "the results folder and power source") != 0) {
        if (!failed)
            gl_log("node %d: another node could not set up the run: see its messages", s.node);
        run_setup_undo(&s, opt, set, opened, failed ? why : "another node could not set up the run (its messages say why)");
        return EXIT_ENV;
    }
    cluster_bcast(s.shm.hdr->coll_id, sizeof s.shm.hdr->coll_id, "the collective id");   /* cuda: node 0's NCCL id, for every GPU */
    sup_alloc(&s);
    rn.runs = json_array();
    rn.base_trace = xcalloc(SC_MAX_MITIGATIONS, sizeof *rn.base_trace);   /* a search adds runs */
    /* the live view, or the progress lines (a view too: node 0's, for every node) */
    rn.base = rn.view = opt->view ? opt->view : s.node == 0 ? progress_view_open() : NULL;
    if (s.node == 0 && opt->metrics) {   /* the caller's metrics view (node 0 sees every node): this run's view behind it */
        metrics_view_attach(opt->metrics, rn.base);
        rn.view = opt->metrics;
    }
    s.res.view = s.node == 0 ? rn.view : NULL;
    double tdp = sc->power.tdp_w > 0 ? sc->power.tdp_w : ops->model_tdp_w ? ops->model_tdp_w(sc) : NAN;
    struct timespec wall;   /* the wall clock at t_s 0, so that an outside trace can be laid on the run (analyze --align) */
    json_int_t utc = clock_gettime(CLOCK_REALTIME, &wall) == 0
                         ? (json_int_t)wall.tv_sec * 1000000000 + wall.tv_nsec - (json_int_t)(mono_ns() - s.t0) : -1;
    json_t *st = json_pack("{s:s, s:s, s:i, s:I, s:s, s:s, s:i, s:I, s:o, s:f, s:I, s:i, s:o}", "scenario", sc->name, "backend",
                            ops->name, "ranks", s.nranks, "seed", (json_int_t)sc->seed, "results", opt->out_dir, "recovery",
                            rec->name, "runs", sc->n_mitigations, "iterations", (json_int_t)sc->iterations, "tdp_w",
                            json_num(tdp), "sample_hz", sc->power.sample_hz, "bus_ranks",
                            (json_int_t)run_bus_ranks(sc, ops->modelled),
                            "nodes", s.nodes, "utc_ns", utc >= 0 ? json_integer(utc) : json_null());
    if (st) {
        json_object_set_new(st, "setup", run_setup_json(&setup_t));
        json_object_set_new(st, "projection", run_projection_json(sc));   /* summarize projects as the run does */
    }
    supc_start_json(&s, st);   /* several nodes: what node 0 hears of the others, this node's clock */
    results_event(&s.res, s.t0, "start", st);
    for (int k = 0; k < s.nslots && !s.failed; k++)
        if (sup_spawn(&s, k) != 0)
            sup_fail(&s, SUP_STOP_START, "cannot start a worker process");
    if (!s.stopping && sup_wait_ready(&s, sc->heartbeat.startup_s + 1) != 0 && !s.stopping)
        sup_fail(&s, SUP_STOP_START, "the workers did not start in time");
    for (int r = 0; r < s.nranks && !s.stopping && ops->power_info; r++) {   /* each rank's GPU, for readers */
        char name[96];
        double tdp_w = NAN;
        if (ops->power_info(s.ps, s.slot_of[r], name, sizeof name, &tdp_w) == 0) {
            double t = sc->power.tdp_w > 0 ? sc->power.tdp_w : tdp_w;
            atomic_store(&shm_ctl(&s.shm, s.slot_of[r])->tdp_mw, isfinite(t) && t > 0 ? (uint64_t)(t * 1e3) : 0);
            results_event(&s.res, mono_ns(), "gpu", json_pack("{s:i, s:s, s:o}", "rank", r, "name", name, "tdp_w",
                                                              json_num(t)));
        }
    }
    for (int m = 0; m < sc->n_mitigations && !s.stopping; m++)
        sup_one_run(&s, m);
    if (s.sc->auto_search && !s.stopping) {   /* the search's second pass: finer values around the best */
        int first = s.sc->n_mitigations, added = sup_refine(&s);
        for (int m = first; m < first + added && !s.stopping; m++)
            sup_one_run(&s, m);
    }
    return sup_finish(&s, started);
}

int supervisor_run(const struct scenario *sc, const struct backend_ops *ops, const struct run_options *opt)
{
    util_set_role("supervisor");   /* its messages name the host: on a cluster, which node said it */
    int rc = run_scenario(sc, ops, opt);
    util_set_role("");
    return rc;
}
