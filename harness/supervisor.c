/* harness/supervisor.c: the supervisor's one event loop (see supervisor.h). Signals arrive through a
 * signalfd, sampling through a timerfd; worker events are drained from their rings on every wake. */
#include "supervisor.h"

#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mitigations/mitigation.h"
#include "results.h"
#include "runstats.h"
#include "util.h"

struct sup {
    const struct scenario *sc;
    const struct backend_ops *ops;
    const struct run_options *opt;
    struct shm shm;
    struct results res;
    struct power_source *ps;
    int nranks;
    pid_t *pid;
    int *alive, *ready;
    double *watts;             /* last sample per rank */
    int sigfd, timerfd;
    int run;                   /* mitigation in progress, -1 before the first */
    int running;               /* a run's CMD_RUN was sent and it has not finished */
    struct run_stats rs;
    json_t *runs;
    int failed, stopping, signals;
    char reason[512];
    uint64_t t0, last_progress, last_sample;
    uint64_t samples;
};

static sigset_t sup_oldmask;   /* the mask before supervisor_block_signals, restored in each worker */

/* Records that the run failed (first reason wins) and tells every worker to give up at once. */
static void sup_fail(struct sup *s, const char *reason)
{
    if (!s->failed) {
        s->failed = 1;
        str_copy(s->reason, sizeof s->reason, reason);
        gl_log("%s", reason);
    }
    s->stopping = 1;
    shm_abort(&s->shm);
}

/* Writes one worker event into events.jsonl and the run's figures. */
static void sup_event(struct sup *s, const struct wevent *ev)
{
    json_t *o = NULL;
    const char *type = NULL;
    struct ctl *c = shm_ctl(&s->shm, ev->rank);
    switch (ev->type) {
    case WEV_READY:
        s->ready[ev->rank] = 1;
        type = "ready";
        o = json_pack("{s:i, s:i, s:f, s:f, s:s}", "rank", ev->rank, "pid", c->pid, "device_bytes", ev->a,
                      "clock_err_s", ev->b, "device", c->device);
        break;
    case WEV_PHASE_BEGIN:
    case WEV_PHASE_END:
        type = ev->type == WEV_PHASE_BEGIN ? "phase_begin" : "phase_end";
        o = json_pack("{s:i, s:i, s:I, s:s}", "rank", ev->rank, "run", ev->run, "iter", (json_int_t)ev->iter, "phase",
                      phase_name(ev->phase));
        if (ev->type == WEV_PHASE_END && ev->a > 0)
            json_object_set_new(o, ev->phase == PH_COMPUTE ? "flops" : "bytes", json_real(ev->a));
        break;
    case WEV_ITER:
        type = "iteration";
        o = json_pack("{s:i, s:i, s:I, s:f}", "rank", ev->rank, "run", ev->run, "iter", (json_int_t)ev->iter, "dur_s",
                      ev->a);
        break;
    case WEV_RUN_DONE:
        type = "rank_done";
        o = json_pack("{s:i, s:i}", "rank", ev->rank, "run", ev->run);
        break;
    case WEV_STOPPED:
        type = "rank_stopped";
        o = json_pack("{s:i, s:i, s:I}", "rank", ev->rank, "run", ev->run, "iter", (json_int_t)ev->iter);
        break;
    case WEV_ERROR: {
        char msg[400];
        type = "worker_error";
        o = json_pack("{s:i, s:s}", "rank", ev->rank, "error", c->error);
        snprintf(msg, sizeof msg, "rank %d failed: %s", ev->rank, c->error);
        sup_fail(s, msg);
        break;
    }
    default:
        return;
    }
    if (s->running && ev->run == s->run)
        runstats_event(&s->rs, ev);
    results_event(&s->res, ev->t_ns, type, o);
}

/* Drains every rank's event ring. */
static void sup_drain(struct sup *s)
{
    struct wevent ev;
    for (int r = 0; r < s->nranks; r++)
        while (ring_pop(&shm_ctl(&s->shm, r)->evt, &ev))
            sup_event(s, &ev);
}

/* Describes a wait status: "exit code 3" or "signal 9 (Killed)". */
static void sup_status_text(int status, char *out, size_t n)
{
    if (WIFEXITED(status))
        snprintf(out, n, "exit code %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(out, n, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(out, n, "status 0x%x", status);
}

/* Reaps every exited worker; an exit nobody asked for fails the run. */
static void sup_reap(struct sup *s)
{
    int status;
    pid_t p;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
        int r;
        for (r = 0; r < s->nranks && s->pid[r] != p; r++)
            ;
        if (r == s->nranks)
            continue;
        s->alive[r] = 0;
        uint64_t now = mono_ns();
        sup_drain(s);   /* its last events first */
        char st[96], msg[256];
        sup_status_text(status, st, sizeof st);
        int expected = s->stopping && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        results_event(&s->res, now, expected ? "worker_exit" : "worker_died",
                      json_pack("{s:i, s:i, s:s, s:I}", "rank", r, "pid", (int)p, "status", st, "iter",
                                (json_int_t)atomic_load(&shm_ctl(&s->shm, r)->iter)));
        if (!expected) {
            snprintf(msg, sizeof msg, "rank %d (pid %d) died: %s", r, (int)p, st);
            sup_fail(s, msg);
        }
    }
}

/* Samples every rank's power once and appends the rows. */
static void sup_sample(struct sup *s, uint64_t now)
{
    for (int r = 0; r < s->nranks; r++) {
        struct power_reading pr;
        if (s->ops->power_read(s->ps, r, now, &pr) != 0)
            pr = (struct power_reading){ NAN, NAN, NAN, NAN, NAN, 0 };
        s->watts[r] = pr.watts;
        results_power(&s->res, now, r, &pr, atomic_load_explicit(&shm_ctl(&s->shm, r)->phase, memory_order_relaxed));
    }
    if (s->running)
        runstats_power(&s->rs, s->watts);
    results_flush(&s->res);
    s->samples++;
}

/* Fails the run when a rank's heartbeat is older than its timeout. */
static void sup_check_heartbeats(struct sup *s, uint64_t now)
{
    for (int r = 0; r < s->nranks; r++) {
        if (!s->alive[r])
            continue;
        uint64_t hb = atomic_load_explicit(&shm_ctl(&s->shm, r)->heartbeat_ns, memory_order_acquire);
        double limit = s->ready[r] ? s->sc->heartbeat.timeout_s : s->sc->heartbeat.startup_s;
        if (!hb)
            hb = s->t0;
        double age = now > hb ? (double)(now - hb) * 1e-9 : 0;
        if (age > limit) {
            char msg[256];
            snprintf(msg, sizeof msg, "rank %d is hung: no heartbeat for %.2f s (timeout %.2f s%s)", r, age, limit,
                     s->ready[r] ? "" : ", still starting");
            results_event(&s->res, now, "hang",
                          json_pack("{s:i, s:f, s:f, s:I}", "rank", r, "silent_s", age, "timeout_s", limit, "iter",
                                    (json_int_t)atomic_load(&shm_ctl(&s->shm, r)->iter)));
            sup_fail(s, msg);
            if (kill(s->pid[r], SIGKILL) != 0 && errno != ESRCH)
                SYSERR("kill(hung worker)");
        }
    }
}

/* Prints the one-line progress report (headless), at most every 2 s. */
static void sup_progress(struct sup *s, uint64_t now)
{
    if (now - s->last_progress < 2000000000ull || !s->running)
        return;
    double dt = (double)(now - s->last_progress) * 1e-9;
    static int64_t last_iter;
    int64_t it = s->nranks ? INT64_MAX : 0;
    for (int r = 0; r < s->nranks; r++) {
        int64_t x = atomic_load(&shm_ctl(&s->shm, r)->iter);
        if (x < it)
            it = x;
    }
    double sum = 0;
    for (int r = 0; r < s->nranks; r++)
        sum += isnan(s->watts[r]) ? 0 : s->watts[r];
    printf("gauntlet: run %d/%d %-8s iter %lld/%lld  %.1f it/s  power %.0f W [%.0f, %.0f]  events %llu\n",
            s->run + 1, s->sc->n_mitigations, s->sc->mitigations[s->run].name, (long long)it,
            (long long)s->sc->iterations, s->last_progress ? (double)(it - last_iter) / dt : 0.0, sum,
            acc_min(&s->rs.power), acc_max(&s->rs.power), (unsigned long long)s->res.events);
    fflush(stdout);
    last_iter = it;
    s->last_progress = now;
}

/* Handles the signals that arrived: SIGCHLD reaps, SIGINT/SIGTERM stop the run (a second one kills). */
static void sup_signals(struct sup *s)
{
    struct signalfd_siginfo si;
    while (read(s->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD) {
            sup_reap(s);
            continue;
        }
        s->signals++;
        results_event(&s->res, mono_ns(), "interrupted",
                      json_pack("{s:s, s:i}", "signal", strsignal((int)si.ssi_signo), "count", s->signals));
        if (!s->stopping) {
            char msg[128];
            snprintf(msg, sizeof msg, "stopped by %s: stopping the workers, writing the summary",
                     strsignal((int)si.ssi_signo));
            gl_log("%s", msg);
            if (!s->reason[0])
                str_copy(s->reason, sizeof s->reason, msg);
            s->stopping = 1;
            shm_abort(&s->shm);
        } else {
            for (int r = 0; r < s->nranks; r++)
                if (s->alive[r])
                    kill(s->pid[r], SIGKILL);
        }
    }
}

/* Waits for one wake (signal, sampling tick, or 10 ms to drain rings) and handles it. */
static void sup_step(struct sup *s)
{
    struct pollfd pfd[2] = { { .fd = s->sigfd, .events = POLLIN }, { .fd = s->timerfd, .events = POLLIN } };
    if (poll(pfd, 2, 10) < 0 && errno != EINTR)
        SYSERR("poll");
    if (pfd[0].revents & POLLIN)
        sup_signals(s);
    sup_reap(s);   /* also without SIGCHLD: cheap, and proof against a signal taken by a library's thread */
    sup_drain(s);
    uint64_t now = mono_ns();
    if (pfd[1].revents & POLLIN) {
        uint64_t ticks;
        if (read(s->timerfd, &ticks, sizeof ticks) == (ssize_t)sizeof ticks)
            sup_sample(s, now);
    }
    if (!s->stopping)
        sup_check_heartbeats(s, now);
    sup_progress(s, now);
}

/* Returns the number of workers still alive. */
static int sup_alive(const struct sup *s)
{
    int n = 0;
    for (int r = 0; r < s->nranks; r++)
        n += s->alive[r];
    return n;
}

/* Starts one worker: fork, then exec this program as `__worker FD RANK`; it dies with us (PDEATHSIG). */
static int sup_spawn(struct sup *s, int rank)
{
    char fd[16], rk[16];
    snprintf(fd, sizeof fd, "%d", s->shm.fd);
    snprintf(rk, sizeof rk, "%d", rank);
    pid_t p = fork();
    if (p < 0)
        return SYSERR("fork");
    if (p == 0) {
        sigprocmask(SIG_SETMASK, &sup_oldmask, NULL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != s->shm.hdr->supervisor_pid)
            _exit(EXIT_ENV);
        execl(s->opt->exe, "gauntlet", "__worker", fd, rk, (char *)NULL);
        gl_log("exec %s: %s", s->opt->exe, strerror(errno));
        _exit(EXIT_ENV);
    }
    s->pid[rank] = p;
    s->alive[rank] = 1;
    results_event(&s->res, mono_ns(), "worker_start", json_pack("{s:i, s:i}", "rank", rank, "pid", (int)p));
    return 0;
}

/* Sends cmd to every live worker. */
static void sup_command(struct sup *s, const struct wcmd *cmd)
{
    for (int r = 0; r < s->nranks; r++)
        if (s->alive[r] && ring_push(&shm_ctl(&s->shm, r)->cmd, cmd) != 0)
            gl_log("rank %d: command ring full", r);
}

/* Runs mitigation m to its end, a failure or a stop. */
static void sup_one_run(struct sup *s, int m)
{
    uint64_t now = mono_ns();
    s->run = m;
    runstats_init(&s->rs, m, s->nranks, s->sc->iterations, now);
    s->running = 1;
    s->last_progress = now;
    results_event(&s->res, now, "run_begin",
                  json_pack("{s:i, s:s, s:I}", "run", m, "mitigation", s->sc->mitigations[m].name, "iterations",
                            (json_int_t)s->sc->iterations));
    struct wcmd cmd = { .type = CMD_RUN, .run = m, .iterations = s->sc->iterations };
    sup_command(s, &cmd);
    while (!s->stopping && !runstats_done(&s->rs))
        sup_step(s);
    if (!s->rs.t_end)
        s->rs.t_end = mono_ns();
    int bus_ranks = s->sc->workload.allreduce.emulate_ranks > 0 ? (int)s->sc->workload.allreduce.emulate_ranks : s->nranks;
    json_t *run = runstats_json(&s->rs, s->sc->mitigations[m].name, bus_ranks);
    results_event(&s->res, s->rs.t_end, "run_end",
                  json_pack("{s:i, s:s, s:I, s:b}", "run", m, "mitigation", s->sc->mitigations[m].name, "iterations",
                            (json_int_t)runstats_iterations(&s->rs), "complete", runstats_done(&s->rs)));
    json_array_append_new(s->runs, run);
    runstats_free(&s->rs);
    s->running = 0;
}

/* Stops every worker: EXIT, then SIGTERM after 2 s, then SIGKILL after 2 more; reaps them all. */
static void sup_stop_workers(struct sup *s)
{
    struct wcmd cmd = { .type = CMD_EXIT };
    s->stopping = 1;
    sup_command(s, &cmd);
    uint64_t t = mono_ns();
    int sent_term = 0;
    while (sup_alive(s)) {
        sup_step(s);
        double waited = (double)(mono_ns() - t) * 1e-9;
        if (waited > 2 && !sent_term) {
            sent_term = 1;
            for (int r = 0; r < s->nranks; r++)
                if (s->alive[r])
                    kill(s->pid[r], SIGTERM);
        }
        if (waited > 4)
            for (int r = 0; r < s->nranks; r++)
                if (s->alive[r])
                    kill(s->pid[r], SIGKILL);
    }
    sup_drain(s);
}

/* Builds summary.json from the runs and the run's outcome. */
static json_t *sup_summary(struct sup *s, int code, const char *started)
{
    uint64_t dropped = 0;
    for (int r = 0; r < s->nranks; r++)
        dropped += atomic_load(&shm_ctl(&s->shm, r)->evt.dropped);
    json_t *j = json_pack("{s:s, s:s, s:I, s:s, s:i, s:s, s:i, s:o, s:o, s:o, s:o, s:I, s:I}", "scenario", s->sc->name,
                          "backend", s->ops->name, "seed", (json_int_t)s->sc->seed, "started_utc", started, "exit", code,
                          "gauntlet_version", GAUNTLET_VERSION, "ranks", s->nranks, "stopped",
                          s->reason[0] ? json_string(s->reason) : json_null(), "runs", json_incref(s->runs), "faults",
                          json_array(), "wall_s", json_real((double)(mono_ns() - s->t0) * 1e-9), "events_dropped",
                          (json_int_t)dropped, "power_samples", (json_int_t)s->samples);
    return j;
}

/* Returns the signals the supervisor takes through its signalfd. */
static sigset_t sup_sigset(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

int supervisor_block_signals(void)
{
    sigset_t set = sup_sigset();
    return sigprocmask(SIG_BLOCK, &set, &sup_oldmask) != 0 ? SYSERR("sigprocmask") : 0;
}

/* Prints x with fmt, or "-" when it was not measured. */
static void sup_cell(char *out, size_t n, const char *fmt, json_t *v, double scale)
{
    if (json_is_number(v))
        snprintf(out, n, fmt, json_number_value(v) * scale);
    else
        snprintf(out, n, "-");
}

/* Prints the end-of-run table: one row per mitigation run, from the records summary.json is made of. */
static void sup_print_table(struct sup *s, int code)
{
    printf("gauntlet: %s: exit %d after %.1f s%s%s; results in %s\n", s->sc->name, code,
           (double)(mono_ns() - s->t0) * 1e-9, s->reason[0] ? ": " : "", s->reason, s->opt->out_dir);
    printf("  %-3s %-12s %7s %10s %10s %8s %8s %8s %8s %8s %8s %9s\n", "run", "mitigation", "iters", "iter_p50", "iter_p99",
           "TFLOP/s", "busbw", "ckpt", "mean_W", "min_W", "max_W", "swing_W");
    size_t i;
    json_t *r;
    json_array_foreach(s->runs, i, r) {
        char c[10][32];
        json_t *it = json_object_get(r, "iteration_s"), *agg = json_object_get(json_object_get(r, "power"), "aggregate");
        sup_cell(c[0], 32, "%.2fms", json_object_get(it, "p50"), 1e3);
        sup_cell(c[1], 32, "%.2fms", json_object_get(it, "p99"), 1e3);
        sup_cell(c[2], 32, "%.1f", json_object_get(r, "tflops"), 1);
        sup_cell(c[3], 32, "%.1f", json_object_get(r, "busbw_gbs"), 1);
        sup_cell(c[4], 32, "%.2f", json_object_get(r, "checkpoint_gbs"), 1);
        sup_cell(c[5], 32, "%.0f", json_object_get(agg, "mean_w"), 1);
        sup_cell(c[6], 32, "%.0f", json_object_get(agg, "min_w"), 1);
        sup_cell(c[7], 32, "%.0f", json_object_get(agg, "max_w"), 1);
        sup_cell(c[8], 32, "%.0f", json_object_get(agg, "swing_w"), 1);
        snprintf(c[9], 32, "%lld%s", (long long)json_integer_value(json_object_get(r, "iterations")),
                 json_is_true(json_object_get(r, "complete")) ? "" : "*");
        printf("  %-3zu %-12s %7s %10s %10s %8s %8s %8s %8s %8s %8s %9s\n", i + 1,
               json_string_value(json_object_get(r, "mitigation")), c[9], c[0], c[1], c[2], c[3], c[4], c[5], c[6],
               c[7], c[8]);
    }
    printf("  (busbw and ckpt in GB/s; power is the sum over ranks; * = run ended early)\n");
    fflush(stdout);
}

/* Sets up the signalfd and the sampling timer. */
static int sup_fds(struct sup *s)
{
    sigset_t set = sup_sigset();
    s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (s->sigfd < 0)
        return SYSERR("signalfd");
    s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->timerfd < 0)
        return SYSERR("timerfd_create");
    if (s->sc->power.sample_hz <= 0)
        return 0;   /* sampling off: the timer stays disarmed */
    double period = 1.0 / s->sc->power.sample_hz;
    struct itimerspec its = { .it_interval = { (time_t)period, (long)((period - floor(period)) * 1e9) } };
    its.it_value = its.it_interval;
    if (timerfd_settime(s->timerfd, 0, &its, NULL) != 0)
        return SYSERR("timerfd_settime");
    return 0;
}

int supervisor_run(const struct scenario *sc, const struct backend_ops *ops, const struct run_options *opt)
{
    struct sup s = { .sc = sc, .ops = ops, .opt = opt, .nranks = (int)sc->ranks, .sigfd = -1, .timerfd = -1,
                     .run = -1 };
    char why[512], started[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    uint64_t coll = (uint64_t)sc->sim.max_elems;
    if (coll < (uint64_t)(sc->sim.max_dim * sc->sim.max_dim))
        coll = (uint64_t)(sc->sim.max_dim * sc->sim.max_dim);
    if (shm_create(&s.shm, s.nranks, strcmp(ops->name, "sim") == 0 ? coll : 0) != 0)
        return EXIT_ENV;
    s.t0 = mono_ns();
    s.shm.hdr->t0_ns = s.t0;
    s.shm.hdr->sc = *sc;
    str_copy(s.shm.hdr->backend, sizeof s.shm.hdr->backend, ops->name);
    if (results_open(&s.res, opt->out_dir, sc, s.t0, why, sizeof why) != 0) {
        gl_log("%s", why);
        shm_close(&s.shm);
        return EXIT_ENV;
    }
    if (ops->prepare && ops->prepare(&s.shm, why, sizeof why) != 0) {
        gl_log("%s", why);
        results_close(&s.res);
        shm_close(&s.shm);
        return EXIT_ENV;
    }
    s.ps = ops->power_open(&s.shm, why, sizeof why);
    if (!s.ps)
        gl_die(EXIT_ENV, "power source: %s", why);
    s.pid = xcalloc((size_t)s.nranks, sizeof *s.pid);
    s.alive = xcalloc((size_t)s.nranks, sizeof *s.alive);
    s.ready = xcalloc((size_t)s.nranks, sizeof *s.ready);
    s.watts = xcalloc((size_t)s.nranks, sizeof *s.watts);
    s.runs = json_array();
    if (sup_fds(&s) != 0)
        return EXIT_ENV;
    results_event(&s.res, s.t0, "start",
                  json_pack("{s:s, s:s, s:i, s:I, s:s}", "scenario", sc->name, "backend", ops->name, "ranks", s.nranks,
                            "seed", (json_int_t)sc->seed, "results", opt->out_dir));
    for (int r = 0; r < s.nranks && !s.failed; r++)
        if (sup_spawn(&s, r) != 0)
            sup_fail(&s, "cannot start a worker process");
    for (;;) {   /* wait for every worker's backend */
        int ready = 0;
        for (int r = 0; r < s.nranks; r++)
            ready += s.ready[r];
        if (ready == s.nranks || s.stopping)
            break;
        sup_step(&s);
    }
    for (int m = 0; m < sc->n_mitigations && !s.stopping; m++)
        sup_one_run(&s, m);
    sup_stop_workers(&s);
    int code = s.failed || s.reason[0] ? EXIT_CHECK : EXIT_OK;
    json_t *summary = sup_summary(&s, code, started);
    results_event(&s.res, mono_ns(), "end", json_pack("{s:i, s:o}", "exit", code, "reason",
                                                       s.reason[0] ? json_string(s.reason) : json_null()));
    if (results_summary(&s.res, summary) != 0)
        code = EXIT_ENV;
    sup_print_table(&s, code);
    json_decref(summary);
    json_decref(s.runs);
    ops->power_close(s.ps);
    results_close(&s.res);
    shm_close(&s.shm);
    close(s.sigfd);
    close(s.timerfd);
    sigprocmask(SIG_SETMASK, &sup_oldmask, NULL);
    free(s.pid);
    free(s.alive);
    free(s.ready);
    free(s.watts);
    return code;
}
