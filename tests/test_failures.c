/* tests/test_failures.c: what the engine does when things go wrong — the supervisor killed with -9, SIGINT,
 * a worker that dies, a worker that hangs — with real processes and signals. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkpoint.h"
#include "e2e.h"
#include "shm.h"
#include "sup.h"
#include "util.h"

/* A long run: about 25 ms per iteration for 4000 iterations, far longer than any test waits. */
#define LONG_RUN(heartbeat)                                                                                    \
    "name: long\nranks: 3\niterations: 4000\n"                                                                 \
    "workload:\n"                                                                                              \
    "  gemm: {m: 1000, n: 1000, k: 1000, count: 10}\n"                                                         \
    "  allreduce: {bytes: 1MiB}\n"                                                                             \
    "heartbeat: " heartbeat "\n"                                                                               \
    "sim: {tflops: 1}\n"
static const char long_run[] = LONG_RUN("{interval: 50ms, timeout: 600ms}");
/* The same for a test about a stop, not a detection: a 5 s timeout and a straggler check deaf to what a loaded
 * machine does to 25 ms phases (a rank woken 20 ms late twice is a true straggler, an observed fault). */
static const char long_run_calm[] = LONG_RUN("{interval: 50ms, timeout: 5s}\ndetectors: [{heartbeat: {factor: 4, min_excess: 300ms}}]");

/* Starts the long run text and waits until every rank has done a few iterations; returns the supervisor pid. */
static pid_t start_long_text(const char *text, const char *out, const char *log, pid_t *workers)
{
    const char *args[] = { "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL };
    pid_t sup = e2e_start(log, args);
    cr_assert_eq(e2e_wait_started(out, 3 * 5, 30), 0, "the run did not start; see %s", log);
    cr_assert_eq(e2e_worker_pids(out, workers, 3), 3);
    return sup;
}

/* Starts the long run (long_run); as start_long_text. */
static pid_t start_long(const char *out, const char *log, pid_t *workers) { return start_long_text(long_run, out, log, workers); }

Test(failures, kill9_of_the_supervisor_leaves_no_worker_and_no_broken_line, .timeout = 180)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long(out, e2e_log("fail-kill9.log"), w);
    cr_assert_eq(kill(sup, SIGKILL), 0);
    cr_assert_eq(e2e_wait(sup, 10), 128 + SIGKILL);
    uint64_t end = mono_ns() + 5000000000ull;
    for (int r = 0; r < 3; r++) {
        while (!e2e_gone(w[r]) && mono_ns() < end)
            sleep_ns(10000000);
        cr_assert(e2e_gone(w[r]), "worker %d (pid %d) outlived its supervisor", r, (int)w[r]);
    }
    /* every line written parses (e2e_count_events fails the test otherwise) and none is cut */
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *text = e2e_read(path);
    cr_assert(text && *text && text[strlen(text) - 1] == '\n', "events.jsonl ends in a half line");
    free(text);
    cr_assert_gt(e2e_count_events(out, "iteration"), 0);
}

Test(failures, sigint_stops_in_order_and_writes_the_summary, .timeout = 180)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long(out, e2e_log("fail-int.log"), w);
    cr_assert_eq(kill(sup, SIGINT), 0);
    int rc = e2e_wait(sup, 20);
    cr_assert_eq(rc, 1, "exit %d after SIGINT", rc);
    for (int r = 0; r < 3; r++)
        cr_assert(e2e_gone(w[r]), "worker %d still running after SIGINT", r);
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 1);
    cr_assert(strstr(json_string_value(json_object_get(s, "stopped")), "Interrupt"));
    cr_assert_str_eq(json_string_value(json_object_get(s, "stop")), "signal");
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_false(json_object_get(run, "complete")));
    cr_assert_gt(json_integer_value(json_object_get(run, "iterations")), 0);
    cr_assert(json_is_number(json_object_get(json_object_get(run, "iteration_s"), "p50")));
    json_decref(s);
    cr_assert_eq(e2e_count_events(out, "interrupted"), 1);
    cr_assert_eq(e2e_count_events(out, "worker_died"), 0, "workers stopped on request are not failures");
    cr_assert_eq(e2e_count_events(out, "worker_exit"), 3);
}

/* The long run (long_run_calm) as the leader of a process group of its own (as `timeout`, systemd and Slurm start a
 * job); its pid. */
static pid_t start_long_group(const char *out, const char *log)
{
    const char *sc = e2e_scenario(long_run_calm);
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        execl(e2e_bin(), "gauntlet", "run", sc, "--out", out, "--backend", "sim", "--headless", (char *)NULL);
        _exit(127);
    }
    setpgid(p, p);   /* either side may come first */
    return p;
}

static int stop_record(const char *dir, double *stop_s, double *exit_s, char *why, size_t n);

/* A SIGTERM to the whole job (`kill -TERM -- -PGID`, as timeout, systemd and scancel send it; mpirun ending a job
 * does the same) reaches every worker too: the run is stopped by that signal, each worker leaves when told, and no
 * fault is observed. Until 2026-11-29 the workers died of the signal and were counted crashes: `stop: fault`,
 * "rank 0: exit: process died: signal 15", a fault observed. (Until 2026-11-30 it ran long_run, whose 600 ms timeout
 * and default straggler check a loaded machine can trip: an observed fault of the host's.) */
Test(failures, a_sigterm_to_the_whole_process_group_is_a_stop_not_a_crash, .timeout = 120)
{
    const char *out = e2e_outdir(), *log = e2e_log("fail-pgterm.log");
    pid_t sup = start_long_group(out, log);
    cr_assert_eq(e2e_wait_started(out, 3 * 5, 30), 0, "the run did not start; see %s", log);
    cr_assert_eq(kill(-sup, SIGTERM), 0);
    int rc = e2e_wait(sup, 20);
    cr_assert_eq(rc, 1, "exit %d after the group's SIGTERM (see %s)", rc, log);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "signal", "stopped: %s", why);
    cr_expect(why && strstr(why, "stopped by Terminated"), "stopped: %s", why);
    cr_expect_eq(e2e_fault_count(s, NULL), 0, "a fault observed: %s", json_dumps(json_object_get(s, "faults"), JSON_COMPACT));
    json_decref(s);
    cr_expect_eq(e2e_count_events(out, "worker_died"), 0, "workers stopped with the job are not failures");
    cr_expect_eq(e2e_count_events(out, "worker_exit"), 3);
    double stop_s, exit_s;
    char why_exit[160];
    stop_record(out, &stop_s, &exit_s, why_exit, sizeof why_exit);
    cr_expect_eq(why_exit[0], 0, "%s: each worker leaves on its EXIT, the signal ignored (see %s)", why_exit, log);
}

/* From dir/events.jsonl: the t_s of the first `interrupted` event (*stop_s, -1: none) and of the last `worker_exit`
 * (*exit_s); the number of worker_died events; in why, the status of a worker_exit that was not its own exit 0. */
static int stop_record(const char *dir, double *stop_s, double *exit_s, char *why, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path);
    cr_assert_not_null(text, "%s", path);
    int died = 0;
    *stop_s = *exit_s = -1;
    why[0] = 0;
    for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        cr_assert_not_null(o, "%s: a line does not parse: %s", path, line);
        const char *ev = json_string_value(json_object_get(o, "event")), *st = json_string_value(json_object_get(o, "status"));
        double t = json_number_value(json_object_get(o, "t_s"));
        if (strcmp(ev, "interrupted") == 0 && *stop_s < 0)
            *stop_s = t;
        if (strcmp(ev, "worker_exit") == 0) {
            *exit_s = t;
            if (!st || strcmp(st, "exit code 0") != 0)
                snprintf(why, n, "rank %lld's worker ended by %s", (long long)json_integer_value(json_object_get(o, "rank")),
                         st ? st : "(no status)");
        }
        died += strcmp(ev, "worker_died") == 0;
        json_decref(o);
    }
    free(text);
    return died;
}

/* SIGTERM at random moments of a short run with long modelled phases and checkpoints: every time, each worker leaves
 * on the EXIT the supervisor sends at its end, at once, and the record says so. Until 2026-11-29, a worker that read
 * that EXIT inside its run loop (it had not yet seen the stop) took it for a STOP and waited for a command that never
 * came: about one stop in three took over 2 s, ended the healthy workers by SIGTERM and recorded them as
 * `worker_died`, their clean-up skipped. The 15 stops fall one in each fifteenth of the 0.6 s after the first
 * iteration, at random within it: on an idle machine the first run's 16 iterations of 20 ms and 8 checkpoints, its end
 * and the next run's start (beside other work fewer of them). With that bug put back it is a stop during a checkpoint's
 * write that shows it: in 19 of 90 stops with a checkpoint every 2 iterations (15 stops miss it one time in 35); with
 * one every 10 of 120 iterations and the stops anywhere in 2.5 s (until 2026-11-30; 21 s in all), in 8 of 60, and 15
 * stops missed it one time in eight. */
Test(failures, a_stop_at_any_moment_lets_every_worker_leave_on_its_exit, .timeout = 300)
{
    char ckpt[] = "/tmp/gauntlet-stop-ckpt-XXXXXX", text[1024];
    cr_assert_not_null(mkdtemp(ckpt));
    e2e_own(ckpt);
    snprintf(text, sizeof text, "name: stops\nranks: 2\niterations: 16\nseed: 7\n"
                                "workload:\n  gemm: {m: 4096, n: 4096, k: 4096, count: 64}\n"
                                "  allreduce: {bytes: 256MiB, emulate_busbw: 100, emulate_ranks: 1024}\n"
                                "  checkpoint: {every: 2, bytes: 4MiB, path: %s}\n"
                                "power: {sample_hz: 100}\nmitigations:\n  - none\n  - filler: {floor: 80%%}\n", ckpt);
    const char *sc = e2e_scenario(text);
    unsigned seed = (unsigned)time(NULL);
    srand(seed);
    double slowest = 0;
    for (int i = 0; i < 15; i++) {
        const char *out = e2e_outdir();
        pid_t p = e2e_start(e2e_log("fail-stops.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL });
        cr_assert_eq(e2e_wait_started(out, 1, 60), 0, "the run did not start; see %s", e2e_log("fail-stops.log"));
        double delay = 0.6 * (i + (double)rand() / RAND_MAX) / 15;
        sleep_ns((uint64_t)(delay * 1e9));
        cr_assert_eq(kill(p, SIGTERM), 0);
        int rc = e2e_wait(p, 60);
        cr_assert(rc == 1 || rc == 0, "stop %d (seed %u, SIGTERM %.2f s in): exit %d", i, seed, delay, rc);
        double stop_s, exit_s;
        char why[160];
        int died = stop_record(out, &stop_s, &exit_s, why, sizeof why);
        cr_expect_eq(died, 0, "stop %d (seed %u, SIGTERM %.2f s in): %d worker_died, workers stopped on request", i,
                     seed, delay, died);
        cr_expect_eq(why[0], 0, "stop %d (seed %u, SIGTERM %.2f s in): %s, not its own exit", i, seed, delay, why);
        /* judged by how each worker ended, not by how soon: a worker that misses its EXIT is SIGKILLed 2 s after it
         * and its worker_exit says so (why above). Until 2026-11-30 also "within 1.5 s of the signal", which one
         * fsync of a 4 MiB checkpoint on a disk busy with another test could outlast with correct code (a stop takes
         * a few tens of ms alone; the slowest is logged) */
        if (stop_s >= 0 && exit_s - stop_s > slowest)
            slowest = exit_s - stop_s;
        char top[256];
        snprintf(top, sizeof top, "%.*s", (int)(strlen(out) - 4), out);   /* the folder above run/ */
        e2e_remove(top);
        cr_assert_neq(access(top, F_OK), 0, "%s was not removed", top);
    }
    cr_log_info("the slowest of 15 stops: %.3f s from the signal to the last worker's exit", slowest);
    cr_expect_eq(rmdir(ckpt), 0, "a stopped run leaves its checkpoint files: %s", strerror(errno));
}

Test(failures, a_dead_worker_ends_the_run_with_exit_1, .timeout = 180)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long(out, e2e_log("fail-dead.log"), w);
    uint64_t t = mono_ns();
    cr_assert_eq(kill(w[1], SIGKILL), 0);
    int rc = e2e_wait(sup, 20);
    double took = (double)(mono_ns() - t) * 1e-9;
    cr_assert_eq(rc, 1, "exit %d", rc);
    cr_assert_lt(took, 5.0, "the supervisor took %.2f s to end the run", took);
    cr_assert_eq(e2e_count_events(out, "worker_died"), 1);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "rank 1") && strstr(why, "died: signal 9"), "stopped: %s", why);
    json_decref(s);
    for (int r = 0; r < 3; r++)
        cr_assert(e2e_gone(w[r]));
}

/* A worker stopped alone (SIGSTOP: alive, making no progress) is found by its heartbeat: the hang is judged by its own
 * event, silent past the 600 ms timeout and found within a second after, not by the wall clock from the stop to the
 * run's end, which adds the kill, the other workers' exit and the summary's fsyncs (until 2026-11-30 "under 3 s":
 * about 2.3 s of margin for a loaded disk and a descheduled supervisor). */
Test(failures, a_hung_worker_is_found_by_its_heartbeat, .timeout = 180)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long(out, e2e_log("fail-hang.log"), w);
    uint64_t t = mono_ns();
    cr_assert_eq(kill(w[2], SIGSTOP), 0);   /* alive, making no progress */
    int rc = e2e_wait(sup, 20);
    double took = (double)(mono_ns() - t) * 1e-9;
    cr_assert_eq(rc, 1, "exit %d", rc);
    cr_log_info("the run ended %.2f s after the stop", took);
    cr_assert_eq(e2e_count_events(out, "hang"), 1);
    json_t *h = e2e_first_event(out, "hang");
    cr_assert(h, "no hang event");
    cr_assert_eq(json_integer_value(json_object_get(h, "rank")), 2);
    cr_assert_float_eq(json_number_value(json_object_get(h, "timeout_s")), 0.6, 1e-9);
    /* past the timeout, and soon after it: the supervisor looks every 10 ms; what it was itself kept from the CPU
     * meanwhile is added by design (excused), a second of it is a machine that stood still */
    double silent = json_number_value(json_object_get(h, "silent_s"));
    cr_assert(silent > 0.6 && silent < 0.6 + 1.0, "found after %.2f s of silence (timeout 0.6 s)", silent);
    json_decref(h);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "rank 2 is hung"), "stopped: %s", why);
    json_decref(s);
    for (int r = 0; r < 3; r++)
        cr_assert(e2e_gone(w[r]));
}

/* The voluntary context switches of pid's main thread so far (/proc: each time it waited, or was stopped); -1: none. */
static long voluntary_switches(pid_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long n = -1;
    while (f && fgets(buf, sizeof buf, f))
        if (sscanf(buf, "voluntary_ctxt_switches: %ld", &n) == 1)
            break;
    if (f)
        fclose(f);
    return n;
}

/* A machine that stops everything for 3 s (another job, a VM paused): the supervisor and its workers alike. The
 * supervisor resumes first and finds every heartbeat 3 s old against a 2 s timeout; that silence was its own too, so
 * it declares no hang, and once the workers run again the run goes on. A worker stopped alone is still found
 * (a_hung_worker_is_found_by_its_heartbeat). The workers are resumed once the supervisor has run a step of its loop
 * (it waited again: its poll) after its own resume. Until 2026-11-30 a 2 s stop against a 600 ms timeout and a fixed
 * 150 ms before the workers' resume: the silence the supervisor does not share (the workers stopped before it, and
 * woken after) had about 400 ms beside other work before it was a true hang. */
Test(failures, a_supervisor_that_was_itself_stopped_declares_no_hang, .timeout = 180)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long_text(LONG_RUN("{interval: 50ms, timeout: 2s}"), out, e2e_log("fail-stall.log"), w);
    for (int r = 0; r < 3; r++)
        cr_assert_eq(kill(w[r], SIGSTOP), 0);
    cr_assert_eq(kill(sup, SIGSTOP), 0);
    sleep_ns(3000000000ull);
    long waits = voluntary_switches(sup);
    cr_assert_eq(kill(sup, SIGCONT), 0);   /* the supervisor first: it looks at the heartbeats before any worker beats */
    uint64_t end = mono_ns() + 10000000000ull;
    while (voluntary_switches(sup) == waits && mono_ns() < end)
        sleep_ns(1000000);
    cr_assert_neq(voluntary_switches(sup), waits, "the supervisor did not run within 10 s of its resume");
    for (int r = 0; r < 3; r++)
        cr_assert_eq(kill(w[r], SIGCONT), 0);
    int before = e2e_count_events(out, "iteration");
    cr_assert_eq(e2e_wait_events(out, "iteration", before + 3 * 5, 20), 0, "the run went on after the stop");
    cr_assert_eq(e2e_count_events(out, "hang"), 0, "no hang declared for a stop the supervisor shared");
    cr_assert_eq(kill(sup, SIGINT), 0);
    cr_assert_eq(e2e_wait(sup, 30), 1, "stopped by SIGINT, as sigint_stops_in_order_and_writes_the_summary");
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "Interrupt"), "stopped by the interrupt, not a hang: %s", why);
    json_decref(s);
}

/* A supervisor stopped alone for 2 s (a loaded machine, a debugger) while its ranks run on, a flip injected meanwhile:
 * the ranks wait RUNAHEAD_MAX iterations past its checks (shm.h) and write no checkpoint that would leave none from
 * before a finding not yet made. Once it runs again the flip is found at its own iteration and restart rolls back
 * to a checkpoint from before it, nothing else found; sync and under a sliced fingerprint (3 iterations of lag).
 * Until 2026-11-29 the ranks ran on ~160 iterations: rank 0's fingerprints, drained first, took the comparison's 64
 * rows before rank 1's came, the flip went unseen, a finding 12 iterations later counted as a false positive, and
 * every checkpoint from before it had been overwritten: restart from iteration 0. One such run: its detector, the lag
 * it finds a flip with, where it writes, its supervisor and when that was stopped (0: not yet). */
struct lag_run {
    const char *detector;
    int lag;
    const char *log;
    char ckpt[32];
    const char *out;
    pid_t sup;
    uint64_t stopped_ns;
    int resumed;
};

/* Starts run r: 200 iterations, the flip at 150 (400 until 2026-11-30: the flip is found by 153, and the 200 more
 * only lengthened the replay after it). */
static void lag_start(struct lag_run *r)
{
    char text[1024];
    str_copy(r->ckpt, sizeof r->ckpt, "/tmp/gauntlet-fail-lag-XXXXXX");
    cr_assert(mkdtemp(r->ckpt));
    e2e_own(r->ckpt);
    snprintf(text, sizeof text,
             "name: lag\nranks: 2\niterations: 200\nseed: 3\n"
             "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n"
             "  checkpoint: {every: 1, bytes: 1MiB, path: %s}\n"
             "faults:\n  - {kind: bitflip, at: 150, rank: 1, target: weights, where: exponent}\n"
             "detectors: [%s]\nrecovery: restart\n", r->ckpt, r->detector);
    r->out = e2e_outdir();
    const char *args[] = { "run", e2e_scenario(text), "--out", r->out, "--backend", "sim", "--headless", NULL };
    r->sup = e2e_start(r->log, args);
}

/* Stops each run's supervisor once its ranks have done 120 iterations (~30 short of the flip, or past it on a busy
 * machine) and lets it go on 2 s later: the runs side by side, each stopped as it would be alone, the 2 s shared. */
static void lag_stop_each(struct lag_run *runs, int n)
{
    uint64_t end = mono_ns() + (uint64_t)((E2E_SETUP_S + 90) * 1e9);
    for (int left = n; left > 0; sleep_ns(20000000)) {
        left = 0;
        for (int i = 0; i < n; i++) {
            struct lag_run *r = &runs[i];
            if (r->resumed)
                continue;
            left++;
            if (r->stopped_ns) {
                if (mono_ns() - r->stopped_ns >= 2000000000ull) {
                    cr_assert_eq(kill(r->sup, SIGCONT), 0);
                    r->resumed = 1;
                }
                continue;
            }
            if (e2e_count_events(r->out, "iteration") >= 2 * 120) {
                cr_assert_eq(kill(r->sup, SIGSTOP), 0);
                r->stopped_ns = mono_ns();
                continue;
            }
            if (!e2e_gone(r->sup) && mono_ns() < end)
                continue;
            for (int k = 0; k < n; k++)   /* a supervisor left stopped would not take the SIGTERM that ends it */
                if (runs[k].stopped_ns && !runs[k].resumed)
                    kill(runs[k].sup, SIGCONT);
            const char *what = e2e_count_events(r->out, "worker_start") ? "reach 120" : "start";
            cr_assert_fail("the run did not %s; see %s", what, r->log);
        }
    }
}

/* Judges run r once it has ended. */
static void lag_judge(struct lag_run *r)
{
    const char *log = r->log;
    int lag = r->lag, rc = e2e_wait(r->sup, 120);
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, log);
    json_t *s = e2e_summary(r->out), *f = e2e_injected_fault(s, 0);
    cr_assert(f, "no injected fault in the summary; see %s", log);
    cr_expect_str_eq(json_string_value(json_object_get(f, "detected_by")), "fingerprint", "see %s", log);
    json_int_t seen = json_integer_value(json_object_get(json_object_get(f, "detection"), "iter_seen"));
    cr_expect(seen >= 150 && seen <= 150 + lag, "found at %lld, the flip at 150 with %d of lag; see %s", (long long)seen,
              lag, log);
    cr_expect_eq(e2e_count_events(r->out, "recovery_end"), 1, "one recovery; see %s", log);
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", r->out);
    char *ev = e2e_read(path), *end = ev ? strstr(ev, "\"event\":\"recovery_end\"") : NULL;
    const char *from = end ? strstr(end, "\"from_iter\":") : NULL;
    long long at = from ? atoll(from + strlen("\"from_iter\":")) : -1;
    cr_expect(at >= 150 - lag - 1 && at <= 150, "restarted from %lld: a checkpoint from before the flip at 150, at most "
              "%d + 1 before it, was to be kept; see %s", at, lag, log);
    cr_expect(!strstr(ev ? ev : "", "\"false_positive\":true"), "a finding counted as a false positive; see %s", log);
    free(ev);
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect(json_is_true(json_object_get(run, "fingerprints_agree")), "the ranks ended in different states");
    cr_expect_eq(json_integer_value(json_object_get(s, "events_dropped")), 0, "events dropped; see %s", log);
    json_decref(s);
    rmdir(r->ckpt);
}

/* The sync and the sliced run side by side (until 2026-11-30 one after the other: their 2 s stops apart). */
Test(failures, ranks_wait_for_a_stopped_supervisor_and_restart_from_before_the_flip, .timeout = 240)
{
    struct lag_run runs[] = {
        { .detector = "fingerprint", .lag = 0, .log = e2e_log("fail-lag.log") },
        { .detector = "{fingerprint: {slices: 4}}", .lag = 3, .log = e2e_log("fail-lagsliced.log") },
    };
    for (int i = 0; i < 2; i++)
        lag_start(&runs[i]);
    lag_stop_each(runs, 2);
    for (int i = 0; i < 2; i++)
        lag_judge(&runs[i]);
}

/* A long iteration (255 GEMM and idle steps and an all-reduce: 1,022 phase edges) under a supervisor stopped for 3 s
 * once the ranks have begun: each rank's event ring would take 8 such iterations, fewer than the 32 it may run past
 * the supervisor's checks. Started with `extra` (a fault, detectors) and `iters` iterations; returns the summary, the
 * exit code in *rc. Until 2026-11-30 a full ring dropped whatever came next: the rank_done of a run that ended within
 * the stop (the run then waited for it for ever), or the fault carried out and its finding (exit 0, faults: []). */
static json_t *long_iterations_over_a_stop(const char *name, int iters, const char *extra, const char *log, int *rc)
{
    char text[1024];
    snprintf(text, sizeof text,
             "name: %s\nranks: 2\niterations: %d\nseed: 1\n"
             "workload:\n  phases:\n    - repeat: 255\n      steps:\n        - gemm: {m: 64, n: 64, k: 64, count: 1}\n"
             "        - idle: {duration: 1us}\n    - allreduce: {bytes: 4KiB}\n"
             "power: {sample_hz: 50}\nheartbeat: {timeout: 60s}\n%s", name, iters, extra);
    const char *out = e2e_outdir();
    const char *args[] = { "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL };
    pid_t sup = e2e_start(log, args);
    cr_assert_eq(e2e_wait_started(out, 2 * 3, 60), 0, "the run did not start; see %s", log);
    cr_assert_eq(kill(sup, SIGSTOP), 0);
    sleep_ns(3000000000ull);
    cr_assert_eq(kill(sup, SIGCONT), 0);
    *rc = e2e_wait(sup, 150);
    cr_assert_neq(*rc, -1, "the run did not end within 150 s of the stop; see %s", log);
    json_t *s = e2e_summary(out);
    cr_expect_eq(json_integer_value(json_object_get(s, "events_dropped")), 0, "events dropped; see %s", log);
    if (*rc == 0) {   /* every edge, iteration and end of both ranks is in the record */
        cr_expect_eq(e2e_count_events(out, "rank_done"), 2, "see %s", log);
        cr_expect_eq(e2e_count_events(out, "iteration"), 2 * iters, "see %s", log);
        cr_expect_eq(e2e_count_events(out, "phase_end"), 2 * iters * 511, "see %s", log);
    }
    return s;
}

Test(failures, a_stopped_supervisor_loses_no_end_of_a_long_iterations_run, .timeout = 240)
{
    int rc;
    const char *log = e2e_log("fail-ring-end.log");
    json_t *s = long_iterations_over_a_stop("ring-end", 30, "", log, &rc);
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, log);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "completed", "see %s", log);
    json_decref(s);
}

Test(failures, a_stopped_supervisor_loses_no_fault_nor_its_finding, .timeout = 240)
{
    int rc;
    const char *log = e2e_log("fail-ring-fault.log");
    json_t *s = long_iterations_over_a_stop("ring-fault", 60, "detectors: [abft]\nfaults:\n  - {kind: bitflip, at: 24, "
                                            "rank: 1, target: gemm-output, where: exponent}\n", log, &rc);
    cr_assert_eq(rc, 1, "exit %d: the flip is found (recovery none); see %s", rc, log);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "fault", "see %s", log);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert(f, "no injected fault in the summary; see %s", log);
    cr_expect_str_eq(json_string_value(json_object_get(f, "detected_by")), "abft", "see %s", log);
    json_decref(s);
}

/* The least and the most iterations the ranks of the control block have ended. */
static void ranks_iter(struct shm *shm, int64_t *least, int64_t *most)
{
    *least = INT64_MAX, *most = 0;
    for (uint32_t r = 0; r < shm->hdr->nranks; r++) {
        int64_t it = atomic_load(&shm_ctl(shm, (int)r)->iter);
        *least = it < *least ? it : *least;
        *most = it > *most ? it : *most;
    }
}

/* The bound itself (RUNAHEAD_MAX, shm.h), read in the control block: the supervisor stopped, its checks
 * (checked_done) stay where they are, and the ranks of short iterations (~1 ms; nothing else holds them: no
 * checkpoint, no replica, an event ring with room for hundreds of them) go on until they have ended RUNAHEAD_MAX past
 * the checks, then wait there, beating: as long again as they took to get there (1 s at least) they end none more.
 * Resumed, the supervisor checks again and the ranks go on: the run ends whole. Without the bound they would run on
 * to the ring's end. */
Test(failures, ranks_end_at_most_runahead_max_past_a_stopped_supervisors_checks, .timeout = 180)
{
    static const char text[] = "name: runahead\nranks: 2\niterations: 500\nseed: 1\n"
                               "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                               "sim: {tflops: 0.01}\nheartbeat: {interval: 50ms, timeout: 60s}\n";
    const char *out = e2e_outdir(), *log = e2e_log("fail-runahead.log");
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless",
                                                 NULL });
    cr_assert_eq(e2e_wait_started(out, 2 * 3, 60), 0, "the run did not start; see %s", log);
    struct shm shm = { .fd = -1 };
    cr_assert_eq(e2e_control_block(sup, &shm), 0, "no control block in /proc/%d/fd", (int)sup);
    cr_assert_eq(kill(sup, SIGSTOP), 0);
    uint64_t t0 = mono_ns(), end = t0 + 60000000000ull;
    while (!e2e_stopped(sup) && mono_ns() < end)
        sleep_ns(1000000);
    int64_t checked = atomic_load(&shm.hdr->checked_done), least, most;
    ranks_iter(&shm, &least, &most);
    cr_assert_lt(least, 500 - 2 * RUNAHEAD_MAX, "the run was near its end before the stop; see %s", log);
    while (least < checked + RUNAHEAD_MAX && mono_ns() < end) {   /* the ranks catch up with the bound */
        sleep_ns(2000000);
        ranks_iter(&shm, &least, &most);
    }
    uint64_t took = mono_ns() - t0, until = mono_ns() + (took > 1000000000ull ? took : 1000000000ull);
    while (mono_ns() < until && most <= checked + RUNAHEAD_MAX) {   /* and end none more past the checks */
        sleep_ns(10000000);
        ranks_iter(&shm, &least, &most);
    }
    int64_t checked_end = atomic_load(&shm.hdr->checked_done);
    cr_assert_eq(kill(sup, SIGCONT), 0);
    cr_assert_eq(checked_end, checked, "the checks moved while the supervisor was stopped");
    cr_assert_geq(least, checked + RUNAHEAD_MAX, "the ranks stopped at %lld, short of the bound (%lld checked); see %s",
                  (long long)least, (long long)checked, log);
    cr_assert_leq(most, checked + RUNAHEAD_MAX, "a rank ended %lld iterations past the %lld checked (at most %d)",
                  (long long)(most - checked), (long long)checked, RUNAHEAD_MAX);
    int rc = e2e_wait(sup, 120);
    shm_close(&shm);
    cr_assert_eq(rc, 0, "exit %d after the resume; see %s", rc, log);
    json_t *s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "completed", "see %s", log);
    cr_expect_eq(e2e_count_events(out, "iteration"), 2 * 500, "see %s", log);
    json_decref(s);
}

/* One run whose ranks a stopped supervisor holds back by what a recovery keeps: checkpoints under restart (`ckpt`), or
 * replicas in the control block, every `every` iterations, with a detector's lag (a sliced fingerprint's N - 1). */
struct keep_run {
    int ckpt, every, lag;
    const char *detector, *log;
    char dir[32];
    const char *out;
    pid_t sup;
    struct shm shm;
    int64_t checked, stall;
};

/* Starts run k, waits for its first iterations and stops its supervisor there. */
static void keep_start(struct keep_run *k)
{
    char text[1024], rec[160];
    str_copy(k->dir, sizeof k->dir, "/tmp/gauntlet-fail-keep-XXXXXX");
    cr_assert(mkdtemp(k->dir));
    e2e_own(k->dir);
    if (k->ckpt)
        snprintf(rec, sizeof rec, "  checkpoint: {every: %d, bytes: 64KiB, path: %s}\nrecovery: restart\n", k->every,
                 k->dir);
    else
        snprintf(rec, sizeof rec, "recovery: {inprocess: {replicate_every: %d}}\n", k->every);
    snprintf(text, sizeof text, "name: keep\nranks: 2\niterations: 300\nseed: 1\n"
             "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n%s"
             "detectors: [%s]\nsim: {tflops: 0.01}\nheartbeat: {interval: 50ms, timeout: 60s}\n", rec, k->detector);
    k->out = e2e_outdir();
    k->sup = e2e_start(k->log, (const char *[]){ "run", e2e_scenario(text), "--out", k->out, "--backend", "sim",
                                                 "--headless", NULL });
    cr_assert_eq(e2e_wait_started(k->out, 2 * 24, 60), 0, "the run did not start; see %s", k->log);
    k->shm.fd = -1;
    cr_assert_eq(e2e_control_block(k->sup, &k->shm), 0, "no control block in /proc/%d/fd", (int)k->sup);
    cr_assert_eq(kill(k->sup, SIGSTOP), 0);
    for (uint64_t end = mono_ns() + 60000000000ull; !e2e_stopped(k->sup) && mono_ns() < end;)
        sleep_ns(1000000);
    k->checked = atomic_load(&k->shm.hdr->checked_done);
    /* a rank writes the keep of iteration d (a multiple of every) over its oldest only once the supervisor has checked
     * what the oldest that stays is for: d - every * (kept - 1) + lag + 1 <= checked; it stops before the first d
     * that is not so, its iteration d - 1, or RUNAHEAD_MAX past the checks if that comes first */
    int64_t kept = k->ckpt ? 3 + (k->lag + k->every - 1) / k->every : REPLICA_SLOTS;
    int64_t d = (k->checked + k->every * (kept - 1) - k->lag - 1) / k->every * k->every + k->every;
    k->stall = d - 1 < k->checked + RUNAHEAD_MAX ? d - 1 : k->checked + RUNAHEAD_MAX;
}

/* Whether rank r of run k holds, whole, what a recovery from a finding at iteration `at` rolls back to: the newest
 * checkpoint or replica at or before at - lag (before the first checkpoint: the start, none needed). */
static int keep_holds(struct keep_run *k, int r, int64_t at)
{
    int64_t limit = at - k->lag;
    char why[400];
    for (int g = 0; k->ckpt && g < 16; g++) {
        int64_t it;
        if (checkpoint_peek(k->dir, k->shm.hdr->ckpt_tag, r, g, &it) == 0 && it <= limit &&
            it + k->every > limit && checkpoint_verify(k->dir, k->shm.hdr->ckpt_tag, r, g, it, why, sizeof why) == 0)
            return 1;
    }
    for (int s = 0; !k->ckpt && s < REPLICA_SLOTS; s++) {
        struct replica *x = shm_replica(&k->shm, r, s);
        uint64_t seq = atomic_load(&x->seq);
        if (seq && !(seq & 1) && x->iter <= limit && x->iter + k->every > limit &&
            x->len <= k->shm.hdr->replica_bytes && fnv1a64(x + 1, x->len) == x->hash)
            return 1;
    }
    return k->ckpt && limit < k->every;
}

/* What a recovery keeps under a stopped supervisor, read where it is kept (the checkpoint files, the control block's
 * replicas): the ranks go on until the next checkpoint or replica would overwrite the last one from before a finding
 * the supervisor may still make (the iteration it has checked up to, and one more for an asynchronous fingerprint's
 * report; a sliced fingerprint's lag before that), and wait there, beating, ending none more as long again as they
 * took to get there (1 s at least); each rank then holds, whole, the newest one at or before the earliest such finding
 * less the lag (what restart and inprocess roll back to). Resumed, the runs end whole. Restart and inprocess, each
 * keeping every iteration with no lag (one too many written fails it every time) and every 2 or 3 iterations under
 * a fingerprint of 4 or 2 slices. */
Test(failures, a_stopped_supervisor_leaves_every_rank_the_restore_point_of_a_finding_still_to_come, .timeout = 240)
{
    struct keep_run runs[] = {
        { .ckpt = 1, .every = 1, .detector = "fingerprint", .log = e2e_log("fail-keep-ckpt.log") },
        { .ckpt = 1, .every = 2, .lag = 3, .detector = "{fingerprint: {slices: 4}}",
          .log = e2e_log("fail-keep-ckpt4.log") },
        { .ckpt = 0, .every = 1, .detector = "fingerprint", .log = e2e_log("fail-keep-rep.log") },
        { .ckpt = 0, .every = 3, .lag = 1, .detector = "{fingerprint: {slices: 2}}",
          .log = e2e_log("fail-keep-rep2.log") },
    };
    int n = (int)(sizeof runs / sizeof runs[0]);
    uint64_t t0 = mono_ns(), end = t0 + 120000000000ull;
    for (int i = 0; i < n; i++)
        keep_start(&runs[i]);
    int64_t least[4], most[4];
    for (int i = 0; i < n; i++)   /* the ranks catch up with what holds them */
        for (ranks_iter(&runs[i].shm, &least[i], &most[i]); least[i] < runs[i].stall && mono_ns() < end;)
            sleep_ns(2000000), ranks_iter(&runs[i].shm, &least[i], &most[i]);
    uint64_t took = mono_ns() - t0, until = mono_ns() + (took > 1000000000ull ? took : 1000000000ull);
    for (int i = 0; i < n; i++)   /* and end none more */
        while (mono_ns() < until && most[i] <= runs[i].stall)
            sleep_ns(10000000), ranks_iter(&runs[i].shm, &least[i], &most[i]);
    for (int i = 0; i < n; i++) {
        struct keep_run *k = &runs[i];
        int holds[2] = { keep_holds(k, 0, k->checked - 1), keep_holds(k, 1, k->checked - 1) };
        int64_t checked = atomic_load(&k->shm.hdr->checked_done);
        cr_assert_eq(kill(k->sup, SIGCONT), 0);
        cr_assert_eq(checked, k->checked, "the checks moved while the supervisor was stopped");
        cr_expect_geq(least[i], k->stall, "%s: the ranks stopped at %lld, %lld past the %lld checked, short of %lld; "
                      "see %s", k->log, (long long)least[i], (long long)(least[i] - k->checked), (long long)k->checked,
                      (long long)k->stall, k->log);
        cr_expect_leq(most[i], k->stall, "%s: a rank ended %lld, %lld past the %lld checked (at most %lld)", k->log,
                      (long long)most[i], (long long)(most[i] - k->checked), (long long)k->checked,
                      (long long)k->stall);
        if (!k->ckpt)   /* docs/faults.md: never more than 4 x replicate_every - 2 ahead of the checks, less the lag */
            cr_expect_leq(most[i] - k->checked, 4 * k->every - 2 - k->lag, "%s", k->log);
        for (int r = 0; r < 2; r++)
            cr_expect(holds[r], "%s: rank %d holds no whole %s at or before %lld (a finding at %lld, %d of lag; %lld "
                      "checked, the rank at %lld)", k->log, r, k->ckpt ? "checkpoint" : "replica",
                      (long long)(k->checked - 1 - k->lag), (long long)(k->checked - 1), k->lag, (long long)k->checked,
                      (long long)most[i]);
    }
    for (int i = 0; i < n; i++) {
        int rc = e2e_wait(runs[i].sup, 120);
        shm_close(&runs[i].shm);
        cr_expect_eq(rc, 0, "exit %d after the resume; see %s", rc, runs[i].log);
        cr_expect_eq(e2e_count_events(runs[i].out, "iteration"), 2 * 300, "see %s", runs[i].log);
    }
}

/* A replacement that cannot start (here every worker started after the run began exits at once) fails its recovery
 * at once: the run ends exit 1 naming it, instead of recovering forever (297 recoveries in 20 s before, each death of
 * a replacement taken for a new crash). (Until 2026-11-30 this test removed the program while the run went on; the
 * supervisor now starts workers from its own image, /proc/self/exe, which that no longer stops.) */
Test(failures, a_replacement_that_cannot_start_ends_the_run, .timeout = 210)
{
    char flag[] = "/tmp/gauntlet-fail-start-XXXXXX";
    int ffd = mkstemp(flag);
    cr_assert(ffd >= 0);
    e2e_own(flag);
    close(ffd);
    cr_assert_eq(unlink(flag), 0);   /* made once the run's own workers are up */
    char text[512];
    snprintf(text, sizeof text, "%srecovery: restart\n", long_run);
    const char *out = e2e_outdir();
    const char *args[] = { "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL };
    char env[160];
    snprintf(env, sizeof env, "GAUNTLET_TEST_WORKER_FAIL_FILE=%s", flag);
    e2e_preload(STALL_PRELOAD, (const char *[]){ env, NULL });
    pid_t sup = e2e_start(e2e_log("fail-bin.log"), args);
    e2e_preload_end();
    cr_assert_eq(e2e_wait_started(out, 3 * 5, 30), 0, "the run did not start");
    pid_t w[3];
    cr_assert_eq(e2e_worker_pids(out, w, 3), 3);
    FILE *ff = fopen(flag, "w");
    cr_assert(ff);
    fclose(ff);
    cr_assert_eq(kill(w[1], SIGKILL), 0);
    int rc = e2e_wait(sup, 60);
    cr_assert_eq(rc, 1, "exit %d; see %s", rc, e2e_log("fail-bin.log"));
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "replacement died before it was ready"), "stopped: %s", why ? why : "(none)");
    json_decref(s);
    cr_assert_eq(e2e_count_events(out, "recovery_end"), 0, "no recovery is called done");
    cr_assert_leq(e2e_count_events(out, "worker_start"), 6, "the 3 workers, then at most one replacement each");
    unlink(flag);
}

/* Two workers killed at once, a third while the recovery they started is under way: every dead rank is replaced
 * (the second and third deaths are folded into the recovery, or recovered after it), and the run ends whole. The
 * deaths come at about iteration 10, the recovery restores from a replica of 10 or before: 100 iterations (400 until
 * 2026-11-30, 10 s of 25 ms iterations after the recovery) leave it 90 to end whole in. */
Test(failures, deaths_during_a_recovery_are_all_recovered, .timeout = 210)
{
    /* the straggler check deaf to what a loaded machine does to 20 ms sim phases (it saw a fourth fault under ASan
     * beside other tests), and a 5 s timeout (600 ms until 2026-11-30: a worker kept off the CPU that long beside
     * other work was a fourth fault, a true hang): this test is about deaths, which are seen through their pipes */
    static const char text[] = "name: deaths\nranks: 3\niterations: 100\n"
                               "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 10}\n  allreduce: {bytes: 1MiB}\n"
                               "heartbeat: {interval: 50ms, timeout: 5s}\n"
                               "detectors: [{heartbeat: {factor: 4, min_excess: 300ms}}]\n"
                               "sim: {tflops: 1}\nrecovery: {inprocess: {replicate_every: 5}}\n";
    const char *out = e2e_outdir(), *log = e2e_log("fail-deaths.log");
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless",
                                                 NULL });
    pid_t w[3];
    cr_assert_eq(e2e_wait_started(out, 3 * 10, 30), 0, "the run did not start; see %s", log);
    cr_assert_eq(e2e_worker_pids(out, w, 3), 3);
    cr_assert_eq(kill(w[0], SIGKILL), 0);
    cr_assert_eq(kill(w[2], SIGKILL), 0);
    cr_assert_eq(e2e_wait_events(out, "recovery_begin", 1, 10), 0, "no recovery began; see %s", log);
    kill(w[1], SIGKILL);   /* the survivor, while the recovery stops it or restores it */
    int rc = e2e_wait(sup, 60);
    char *text_log = e2e_read(log);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, text_log);
    free(text_log);
    json_t *s = e2e_summary(out);
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(run, "complete")), "the run ended whole");
    cr_assert_eq(json_integer_value(json_object_get(run, "iterations")), 100);
    cr_assert_eq(e2e_count_events(out, "worker_died"), 3);
    cr_assert_eq(json_array_size(json_object_get(s, "faults")), 3, "each death is an observed fault: %s",
                 json_dumps(json_object_get(s, "faults"), JSON_COMPACT));
    cr_assert_eq(e2e_count_events(out, "recovery_begin"), e2e_count_events(out, "recovery_end"),
                 "every recovery that began ended");
    json_decref(s);
}

/* A worker's process takes its time to end after a fatal signal (sim.teardown: as a GPU context's teardown makes it,
 * about 100 ms on an H100): the supervisor knows of the death from the worker's last word on its death pipe, not
 * from the reap that comes 300 ms later. */
Test(failures, a_crash_is_seen_before_its_process_ends, .timeout = 60)
{
    static const char text[] = "name: ending\nranks: 2\niterations: 200\n"
                               "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 10}\n  allreduce: {bytes: 1MiB}\n"
                               "sim: {tflops: 1, teardown: 300ms}\n"
                               "faults:\n  - {kind: crash, at: 5, rank: 1, signal: SEGV}\nrecovery: none\n";
    const char *out = e2e_outdir(), *log = e2e_log("fail-ending.log");
    int rc = e2e_run(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL });
    cr_assert_eq(rc, 1, "exit %d", rc);
    json_t *s = e2e_summary(out), *f = e2e_injected_fault(s, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "exit");
    /* seen through its pipe (seen_by, below) and before its process ended: sooner than the 300 ms teardown (until
     * 2026-11-30 "under 50 ms", one sample, which a supervisor woken late beside other work could exceed; a reap
     * after the teardown is 300 ms or more) */
    double detect = json_number_value(json_object_get(f, "detect_s"));
    cr_assert_lt(detect, 0.25, "the death was seen %.1f ms after the crash: not through its pipe", detect * 1e3);
    json_decref(s);
    /* the events: the death through the pipe with its signal, the reap 300 ms later with the same status */
    char path[600];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    const char *died = strstr(ev, "\"event\":\"worker_died\""), *reaped = strstr(ev, "\"event\":\"worker_reaped\"");
    cr_assert(died && reaped, "worker_died and worker_reaped in events.jsonl");
    cr_assert(strstr(died, "\"status\":\"signal 11 (Segmentation fault)\"") < strchr(died, '\n'), "%.200s", died);
    cr_assert(strstr(died, "\"seen_by\":\"pipe\"") < strchr(died, '\n'), "%.200s", died);
    cr_assert(strstr(reaped, "\"status\":\"signal 11") < strchr(reaped, '\n'), "%.200s", reaped);
    double ending = strtod(strstr(reaped, "\"ending_s\":") + 11, NULL);
    cr_assert_geq(ending, 0.25, "the process ended %.3f s after its death was seen (teardown 300 ms)", ending);
    free(ev);
}

/* Crashes by every signal the crash fault knows (SIGKILL: no last word, the pipe just ends; SEGV, ABRT: the
 * handler's word), at random iterations and ranks: each is seen by `exit` through the pipe (about a millisecond
 * alone, median; the bounds here, 20 ms median and 200 ms worst, are a loaded machine's: docs/faults.md). The sim's
 * state is 4,096 values (sim.max_elems; the 1 MiB all-reduce alone made it 65,536, whose gradients (tanhf) cost
 * each rank 1.5 ms of CPU an iteration, half this test's time, as every restart goes back to iteration 0): what a
 * crash is and how it is seen does not depend on it. */
Test(failures, crashes_by_any_signal_are_seen_at_once, .timeout = 210)
{
    static const char *const sigs[] = { "KILL", "SEGV", "ABRT" };
    unsigned seed = (unsigned)time(NULL);
    srand(seed);
    char text[4096];
    int at = 4, n = 0, len = snprintf(text, sizeof text, "name: crashes\nranks: 3\niterations: 160\nseed: %u\n"
                                      "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 4}\n  allreduce: {bytes: 1MiB}\n"
                                      "sim: {tflops: 4, max_elems: 4096}\nrecovery: restart\nfaults:\n", seed);
    for (; n < 9; n++) {
        at += 4 + rand() % 12;
        len += snprintf(text + len, sizeof text - (size_t)len, "  - {kind: crash, at: %d, rank: %d, signal: %s}\n", at,
                        rand() % 3, sigs[rand() % 3]);
    }
    const char *out = e2e_outdir(), *log = e2e_log("fail-crashes.log");
    int rc = e2e_run(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL });
    char *l = e2e_read(log);
    cr_assert_eq(rc, 0, "seed %u: exit %d\n%s\n%s", seed, rc, text, l);
    free(l);
    json_t *s = e2e_summary(out), *f;
    size_t i;
    double d[16], worst = 0;
    int k = 0;
    json_array_foreach(json_object_get(s, "faults"), i, f) {
        const char *origin = json_string_value(json_object_get(f, "origin")), *kind = json_string_value(json_object_get(f, "kind"));
        if (origin && strcmp(origin, "observed") == 0 && kind && strcmp(kind, "straggler") == 0)
            continue;   /* a rank a busy host ran slowly, which the heartbeat saw (CI, 2026-11-26): not a crash's record */
        cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "exit", "seed %u: fault %zu (%s, %s)", seed, i,
                         kind ? kind : "?", origin ? origin : "?");
        d[k] = json_number_value(json_object_get(f, "detect_s"));
        worst = d[k] > worst ? d[k] : worst;
        k++;
    }
    cr_assert_eq(k, n, "seed %u: %d faults recorded of %d", seed, k, n);
    cr_assert_eq(e2e_count_events(out, "worker_died"), n);
    for (int a = 1; a < k; a++)   /* the median */
        for (int b = a; b > 0 && d[b] < d[b - 1]; b--) {
            double t = d[b];
            d[b] = d[b - 1];
            d[b - 1] = t;
        }
    cr_log_info("seed %u: %d crashes seen in %.2f ms (median), %.2f ms (worst)", seed, k, d[k / 2] * 1e3, worst * 1e3);
    /* at once means through the death pipe, before the reap: judged by the mechanism, which load does not change
     * (a median of 2.67 ms was seen in a bare Debian beside other work; about 1 ms alone: docs/faults.md) */
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    int piped = 0;
    for (char *line = ev; line && *line;) {
        char *eol = strchr(line, '\n');
        if (eol)
            *eol = 0;
        piped += strstr(line, "\"event\":\"worker_died\"") && strstr(line, "\"seen_by\":\"pipe\"");
        line = eol ? eol + 1 : line + strlen(line);
    }
    free(ev);
    cr_assert_eq(piped, n, "seed %u: %d of %d deaths seen through the death pipe", seed, piped, n);
    cr_assert_leq(d[k / 2], 0.02, "seed %u: median %.2f ms", seed, d[k / 2] * 1e3);
    /* the worst is the machine's: under ASan beside other tests it reached 20.1 ms; what it must beat by far is the
     * heartbeat timeout (10 s) that would catch a death nothing reported */
    cr_assert_leq(worst, 0.2, "seed %u: worst %.2f ms", seed, worst * 1e3);
    json_decref(s);
}

/* Reads events.jsonl: the pid of rank's newest worker (-1 when none) and rank's furthest iteration since that
 * worker started (-1 when none yet); how many recovery_begin events, and their backoff_s in order. */
static void rank_state(const char *dir, int rank, pid_t *pid, int64_t *iter, int *begins, double *backoff, int max,
                       int *ends)
{
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path);
    *pid = -1;
    *iter = -1;
    *begins = 0;
    *ends = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        const char *ev = json_string_value(json_object_get(o, "event"));
        int r = (int)json_integer_value(json_object_get(o, "rank"));
        if (ev && strcmp(ev, "worker_start") == 0 && r == rank) {
            *pid = (pid_t)json_integer_value(json_object_get(o, "pid"));
            *iter = -1;
        } else if (ev && strcmp(ev, "iteration") == 0 && r == rank) {
            int64_t it = json_integer_value(json_object_get(o, "iter"));
            *iter = it > *iter ? it : *iter;
        } else if (ev && strcmp(ev, "recovery_end") == 0) {
            (*ends)++;
        } else if (ev && strcmp(ev, "recovery_begin") == 0) {
            if (*begins < max)
                backoff[*begins] = json_number_value(json_object_get(o, "backoff_s"));
            (*begins)++;
        }
        json_decref(o);
        line = nl + 1;
    }
    free(text);
}

/* Kills rank 1's worker, each new one as well, once it has reached iteration `at` (-1: as soon as the recovery
 * that brought it back has ended — it is ready and restored — before it completes an iteration), until the run
 * ends; returns its exit. */
static int kill_rank1_forever(pid_t sup, const char *out, int64_t at, int *begins, double *backoff, int max)
{
    pid_t killed = -1;
    int kills = 0;
    for (int k = 0; k < 9000; k++) {   /* at most 90 s */
        int st;
        if (waitpid(sup, &st, WNOHANG) == sup)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        pid_t pid;
        int64_t iter;
        int ends;
        rank_state(out, 1, &pid, &iter, begins, backoff, max, &ends);
        /* a replacement is killed only once its recovery has ended: one that dies before it is ready ends the run
         * at once, another cause */
        if (pid > 0 && pid != killed && (at < 0 ? ends >= kills : iter >= at)) {
            kill(pid, SIGKILL);
            killed = pid;
            kills++;
        }
        usleep(5000);
    }
    kill(sup, SIGKILL);
    return e2e_wait(sup, 10);
}

/* Runs text, killing rank 1's worker as kill_rank1_forever does (at), until the run ends; asserts exit 1 and
 * returns its summary, with the recoveries' back-offs in backoff (their count in *begins). */
static json_t *run_killing_rank1(const char *text, const char *log, int64_t at, int *begins, double *backoff, int max)
{
    const char *out = e2e_outdir();
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless",
                                                 NULL });
    cr_assert_eq(e2e_wait_started(out, 3 * 4, 30), 0, "the run did not start; see %s", log);
    int rc = kill_rank1_forever(sup, out, at, begins, backoff, max);
    char *t = e2e_read(log);
    cr_assert_eq(rc, 1, "exit %d:\n%s", rc, t);
    free(t);
    return e2e_summary(out);
}

/* A worker that always dies as soon as it is back: each recovery gets no iteration done. The recoveries back off
 * (0.1 s doubling) and the sixth failure in a row ends the run, exit 1, stop recovery_futile. */
Test(failures, a_worker_that_always_dies_ends_the_run_after_backing_off, .timeout = 120)
{
    static const char text[] = "name: futile\nranks: 3\niterations: 100000\n"
                               "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 200}\n  allreduce: {bytes: 1MiB}\n"
                               "heartbeat: {interval: 50ms, timeout: 2s}\n"
                               "sim: {tflops: 1}\nrecovery: {inprocess: {replicate_every: 2}}\n";
    int begins;
    double backoff[64];
    json_t *s = run_killing_rank1(text, e2e_log("fail-futile.log"), -1, &begins, backoff, 64);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "recovery_futile", "stopped: %s",
                     json_string_value(json_object_get(s, "stopped")));
    json_decref(s);
    cr_assert_geq(begins, 5, "%d recoveries", begins);
    /* the last five recoveries: the streak that ended the run, each waiting twice as long as the one before */
    for (int i = begins - 4; i < begins && i < 64; i++)
        cr_expect(backoff[i] > backoff[i - 1] * 1.9 && backoff[i] <= 2.0, "recovery %d waited %.3f s after %.3f s", i,
                  backoff[i], backoff[i - 1]);
}

/* A rank that fails at the same point every time, after its restore has got work done: no recovery is futile,
 * yet the run never gets past that point. The sixth failure in a row ends it, naming the rank. */
Test(failures, a_rank_that_always_fails_at_one_point_ends_the_run, .timeout = 120)
{
    static const char text[] = "name: repeat\nranks: 3\niterations: 100000\n"
                               "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 20}\n  allreduce: {bytes: 1MiB}\n"
                               "heartbeat: {interval: 50ms, timeout: 2s}\n"
                               "sim: {tflops: 1}\nrecovery: {inprocess: {replicate_every: 10}}\n";
    int begins;
    double backoff[64];
    json_t *s = run_killing_rank1(text, e2e_log("fail-repeat.log"), 25, &begins, backoff, 64);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "recovery_futile", "stopped: %s", why);
    cr_expect(why && strstr(why, "rank 1 failed 6 times in a row"), "stopped: %s", why ? why : "(none)");
    json_decref(s);
}

/* Freezes pid in a cgroup-v1 freezer of its own (a frozen process is in uninterruptible sleep: SIGKILL waits for
 * the thaw, as it waits for a stuck filesystem or a driver call); the cgroup's folder into dir. Skips the test where
 * there is none to write to (cgroup v2 only: there a frozen process dies of SIGKILL; not root). */
static void freeze(pid_t pid, char *dir, size_t n)
{
    snprintf(dir, n, "/sys/fs/cgroup/freezer/gauntlet-test-%d", (int)getpid());
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        cr_skip_test("no cgroup v1 freezer to write to here (%s: %s): a process that cannot end is not made", dir,
                     strerror(errno));
    e2e_own(dir);   /* removed at exit where a failed assert skipped thaw's rmdir (its control files stay: the
                     * kernel's) */
    char path[600], pids[32], state[32] = "";
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    snprintf(pids, sizeof pids, "%d", (int)pid);
    FILE *f = fopen(path, "w");
    cr_assert(f && fputs(pids, f) >= 0 && fclose(f) == 0, "cannot move pid %d into %s", (int)pid, dir);
    snprintf(path, sizeof path, "%s/freezer.state", dir);
    f = fopen(path, "w");
    cr_assert(f && fputs("FROZEN", f) >= 0 && fclose(f) == 0, "cannot freeze %s", dir);
    for (int i = 0; i < 1500 && strncmp(state, "FROZEN", 6) != 0; i++) {   /* 15 s: a task in a system call
                                                                            * freezes when it leaves it */
        sleep_ns(10000000);
        read_small(path, state, sizeof state);
    }
    cr_assert(strncmp(state, "FROZEN", 6) == 0, "%s: %s", path, state);
}

/* Thaws the cgroup of freeze and removes it once its process has gone. */
static void thaw(const char *dir, pid_t pid)
{
    char path[600];
    snprintf(path, sizeof path, "%s/freezer.state", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("THAWED", f);
        fclose(f);
    }
    uint64_t end = mono_ns() + 10000000000ull;
    while (!e2e_gone(pid) && mono_ns() < end)
        sleep_ns(10000000);
    while (rmdir(dir) != 0 && errno == EBUSY && mono_ns() < end)
        sleep_ns(10000000);
}

/* What tells a killed worker that will end (it has begun to exit: the kernel is taking its memory down, slow beside
 * other work) from one that cannot (stuck in a kernel call, the signal not yet taken): PF_EXITING, read from
 * /proc. A process asleep has not begun; one that has ended and is not yet reaped (a zombie) has; a reaped one is
 * not there. */
Test(failures, a_process_that_has_begun_to_exit_is_told_from_one_that_has_not)
{
    pid_t asleep = fork(), ended = asleep > 0 ? fork() : -1;
    if (asleep == 0) {
        pause();
        _exit(0);
    }
    if (ended == 0)
        _exit(0);
    cr_assert(asleep > 0 && ended > 0);
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)ended);
    uint64_t end = mono_ns() + 10000000000ull;
    while (mono_ns() < end && !(read_small(path, buf, sizeof buf) > 0 && strstr(buf, ") Z ")))
        sleep_ns(1000000);   /* until it is a zombie */
    cr_assert(strstr(buf, ") Z "), "%s", buf);
    cr_expect_eq(sup_proc_exiting(asleep), 0, "a sleeping process has not begun to exit");
    cr_expect_eq(sup_proc_exiting(ended), 1, "a zombie has");
    char what[256];
    sup_proc_describe(ended, what, sizeof what);
    cr_expect(strstr(what, "it is exiting"), "%s", what);
    sup_proc_describe(asleep, what, sizeof what);
    cr_expect(!strstr(what, "it is exiting"), "%s", what);
    kill(asleep, SIGKILL);
    cr_assert_eq(waitpid(asleep, NULL, 0), asleep);
    cr_assert_eq(waitpid(ended, NULL, 0), ended);
    cr_expect_eq(sup_proc_exiting(ended), 0, "a reaped process is not there");
}

/* A worker that cannot end (SIGKILL does not take it: a process in uninterruptible sleep) neither holds a recovery
 * nor the run's end for ever: the recovery fails after its deadline naming the process and its kernel state, the
 * supervisor leaves it behind SUP_KILL_WAIT_S (10 s) after its SIGKILL, says so, and writes the summary. A frozen
 * process has not taken its SIGKILL: it has not begun to exit, and is not waited for as one that has. */
Test(failures, a_worker_that_cannot_end_is_left_behind_and_said, .timeout = 240)
{
    static const char text[] = "name: unended\nranks: 3\niterations: 4000\n"
                               "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 10}\n  allreduce: {bytes: 1MiB}\n"
                               "heartbeat: {interval: 50ms, timeout: 600ms}\nsim: {tflops: 1}\nrecovery: restart\n";
    const char *out = e2e_outdir(), *log = e2e_log("fail-unended.log");
    const char *args[] = { "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL };
    pid_t sup = e2e_start(log, args), w[3];
    cr_assert_eq(e2e_wait_started(out, 3 * 5, 30), 0, "the run did not start; see %s", log);
    cr_assert_eq(e2e_worker_pids(out, w, 3), 3);
    char dir[256];
    freeze(w[2], dir, sizeof dir);
    uint64_t t = mono_ns();
    int rc = e2e_wait(sup, 90);
    double took = (double)(mono_ns() - t) * 1e-9;
    int gone_before_thaw = e2e_gone(w[2]);
    thaw(dir, w[2]);
    cr_assert_eq(rc, 1, "exit %d; see %s", rc, log);
    cr_assert_not(gone_before_thaw, "the frozen worker ended: the test made nothing that cannot end");
    cr_assert(e2e_gone(w[2]), "the frozen worker (pid %d) did not end once thawed", (int)w[2]);
    /* heartbeat 0.6 s, the recovery's deadline (timeout + 5 s), then 10 s after the SIGKILL: far less than 60 s */
    cr_assert(took > 10 && took < 60, "the run ended %.1f s after the freeze", took);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "recovery_failed", "stopped: %s", why);
    char pid[64];
    snprintf(pid, sizeof pid, "(slot 2, pid %d) has not ended", (int)w[2]);
    cr_expect(why && strstr(why, "recovery: the ranks did not stop: rank 2's worker") && strstr(why, pid) &&
                  strstr(why, "state D (uninterruptible sleep"),
              "stopped: %s", why ? why : "(none)");
    json_decref(s);
    cr_assert_eq(e2e_count_events(out, "worker_not_ended"), 1);
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path), *line = ev ? strstr(ev, "\"worker_not_ended\"") : NULL;
    cr_assert(line);
    while (line > ev && line[-1] != '\n')
        line--;
    json_t *o = json_loadb(line, strcspn(line, "\n"), 0, NULL);
    cr_assert(o, "%.200s", line);
    cr_expect_eq(json_integer_value(json_object_get(o, "pid")), w[2]);
    cr_expect_gt(json_number_value(json_object_get(o, "killed_s")), 10);
    const char *proc = json_string_value(json_object_get(o, "proc"));
    cr_expect(proc && strncmp(proc, "state D", 7) == 0 && !strstr(proc, "it is exiting"), "proc: %s",
              proc ? proc : "(none)");
    json_decref(o);
    free(ev);
    for (int r = 0; r < 2; r++)
        cr_assert(e2e_gone(w[r]), "worker %d (pid %d) was not stopped", r, (int)w[r]);
}

/* A synchronous checkpoint's write and fsync block, and a rank cannot beat meanwhile: its silence there is judged
 * against heartbeat.checkpoint, not heartbeat.timeout (a slow disk is no hang), and past that it is still a hang.
 * Rank 1's disk is slow by design (tests/stall_preload.c): its first checkpoint's fsync takes 2.5 s against a 1 s
 * timeout and an 8 s checkpoint limit (no hang), the next two are quick, the fourth never returns (a hang, found past
 * 8 s and said to be in a checkpoint). Until 2026-11-30 the rank was frozen (cgroup freezer) at a moment it was seen
 * in a write or fsync: under load the freeze could land after the checkpoint's end, a true hang of 300 ms, and CI
 * failed twice with "the run did not go on". Until 2026-11-30 also a 300 ms timeout against a 1.2 s fsync: outside its
 * checkpoints a rank kept off the CPU for 300 ms beside other work was a true hang before the stuck fsync. */
Test(failures, a_slow_checkpoint_write_is_no_hang_until_its_own_limit, .timeout = 240)
{
    char text[1024], flog[300];
    const char *out = e2e_outdir();
    snprintf(text, sizeof text,
             "name: slowckpt\nranks: 2\niterations: 100000\n"
             "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
             "  checkpoint: {every: 4, bytes: 1MiB, path: %s-ckpt}\n"
             "heartbeat: {interval: 50ms, timeout: 1s, checkpoint: 8s}\n",
             out);
    snprintf(flog, sizeof flog, "%s-fsync.log", out);
    char logenv[400];
    snprintf(logenv, sizeof logenv, "GAUNTLET_TEST_FSYNC_LOG=%s", flog);
    const char *log = e2e_log("fail-slowckpt.log");
    const char *args[] = { "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL };
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_FSYNC_SLOW=-rank1-",
                                                 "GAUNTLET_TEST_FSYNC_SLOW_MS=2500,0,0,600000", logenv, NULL });
    pid_t sup = e2e_start(log, args);
    e2e_preload_end();
    int rc = e2e_wait(sup, 180);
    cr_assert_eq(rc, 1, "exit %d (1: a rank hung); see %s", rc, log);
    char *fs = e2e_read(flog);
    int n1 = 0;
    for (const char *p = fs; p && (p = strstr(p, "-rank1-")); p++)
        n1++;
    free(fs);
    cr_assert_eq(n1, 4, "rank 1's checkpoint fsyncs: %d, expected 4 (2.5 s, two quick, one stuck); see %s", n1, flog);
    cr_assert_eq(e2e_count_events(out, "hang"), 1, "the 2.5 s fsync was called a hang, or the stuck one was not; see %s",
                 log);
    json_t *h = e2e_first_event(out, "hang");
    cr_assert(h, "no hang event");
    cr_assert_eq(json_integer_value(json_object_get(h, "rank")), 1);
    cr_assert_float_eq(json_number_value(json_object_get(h, "timeout_s")), 8.0, 1e-9);
    double silent = json_number_value(json_object_get(h, "silent_s"));
    cr_assert(silent > 8.0, "found after %.2f s of silence, before the checkpoint's 8 s limit", silent);
    json_decref(h);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_expect(why && strstr(why, "rank 1 is hung") && strstr(why, "timeout 8.00 s, writing a checkpoint"), "stopped: %s",
              why ? why : "(none)");
    json_decref(s);
}

/* An asynchronous checkpoint's write stuck on storage (a dead mount: here its temp files are FIFOs nobody opens, so
 * the writer thread blocks in open) is a hang, found: the rank beats while it waits for a free buffer only as long as
 * a write may take (heartbeat.checkpoint), then no more (until 2026-11-30 it beat for ever and the run froze, no
 * detector firing). The hang is found twice heartbeat.checkpoint after the write stuck (beating that long, then silent
 * that long): 1.5 s (3 s until 2026-11-30, 6 s to the hang; a 1 MiB write takes milliseconds), above the 1 s timeout
 * as it must be. */
Test(failures, a_stuck_async_checkpoint_write_is_a_hang, .timeout = 240)
{
    char text[1024], ck[300], path[700];
    const char *out = e2e_outdir();
    snprintf(ck, sizeof ck, "%s-ckpt", out);
    snprintf(text, sizeof text,
             "name: stuckasync\nranks: 2\niterations: 100000\nseed: 3\n"
             "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
             "  checkpoint: {every: 5, bytes: 1MiB, path: %s, mode: async}\n"
             "heartbeat: {interval: 50ms, timeout: 1s, checkpoint: 1500ms}\n", ck);
    const char *log = e2e_log("fail-stuckasync.log");
    const char *args[] = { "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL };
    pid_t sup = e2e_start(log, args);
    cr_assert_eq(e2e_wait_started(out, 2 * 4, 30), 0, "the run did not start; see %s", log);
    char tag[256] = "";   /* the run's checkpoint tag: its lock file's name */
    DIR *d = opendir(ck);
    cr_assert(d, "%s", ck);
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".lock") == 0 && l - 5 < sizeof tag)
            memcpy(tag, e->d_name, l - 5), tag[l - 5] = 0;
    }
    closedir(d);
    cr_assert(tag[0], "no checkpoint lock in %s", ck);
    for (int g = 0; g < 4; g++) {
        snprintf(path, sizeof path, "%s/%s-rank0-%d.ckpt.tmp", ck, tag, g);
        cr_assert(mkfifo(path, 0644) == 0 || errno == EEXIST, "%s: %s", path, strerror(errno));
    }
    uint64_t t = mono_ns();
    int found = e2e_wait_events(out, "hang", 1, 60);
    double took = (double)(mono_ns() - t) * 1e-9;
    int rc = e2e_wait(sup, 60);
    for (int g = 0; g < 4; g++) {
        snprintf(path, sizeof path, "%s/%s-rank0-%d.ckpt.tmp", ck, tag, g);
        unlink(path);
    }
    cr_assert_eq(found, 0, "no hang found in 60 s (the run froze); see %s", log);
    cr_log_info("the stuck write was found a hang %.1f s after its files were made FIFOs", took);
    cr_assert_eq(rc, 1, "exit %d; see %s", rc, log);
}

/* A restore that reads a checkpoint for longer than heartbeat.timeout is alive (the rank beats between the reads, as
 * long as a write may take): one recovery, the run completes (until 2026-11-30 the read was silent, every rank "hung"
 * while it restored, again after each restart: 24 observed hangs, exit 1, recovery_futile). Rank 1's disk reads slowly
 * by design (tests/stall_preload.c): 200 ms per MiB, its 16 MiB restore ~3.2 s against a 1 s timeout, each 1 MiB
 * read 0.2 s. Until 2026-11-30 the restore was long by its size (192 MiB, 1.1 GB written in all) against a 60 ms
 * timeout: a worker off the CPU for 40 ms beside other work was a true hang. */
Test(failures, a_long_restore_is_no_hang, .timeout = 240)
{
    char text[1024];
    const char *out = e2e_outdir();
    snprintf(text, sizeof text,
             "name: longrestore\nranks: 2\niterations: 16\nseed: 7\n"
             "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
             "  checkpoint: {every: 5, bytes: 16MiB, path: %s-ckpt}\n"
             "heartbeat: {interval: 50ms, timeout: 1s, checkpoint: 60s}\n"
             "faults:\n  - {kind: crash, at: 12, rank: 1}\nrecovery: restart\n", out);
    const char *log = e2e_log("fail-longrestore.log");
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_READ_SLOW=-rank1-", "GAUNTLET_TEST_READ_SLOW_MS=200", NULL });
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless",
                                                 NULL });
    e2e_preload_end();
    int rc = e2e_wait(sup, 180);
    char *l = e2e_read(log);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, l);
    free(l);
    cr_assert_eq(e2e_count_events(out, "hang"), 0, "a restore taken for a hang");
    cr_assert_eq(e2e_count_events(out, "recovery_begin"), 1, "one recovery, for the crash");
    /* the restore did outlast the timeout: what is judged here */
    char path[600];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    double took = -1;
    for (char *line = ev; line && *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(o, "event"));
        if (type && strcmp(type, "state_restored") == 0 && json_integer_value(json_object_get(o, "rank")) == 1)
            took = json_number_value(json_object_get(o, "seconds"));
        json_decref(o);
        line = nl + 1;
    }
    free(ev);
    cr_assert_gt(took, 2.0, "rank 1's restore took %.2f s: the slow disk did not hold it past the 1 s timeout", took);
    json_t *s = e2e_summary(out);
    json_t *r = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(r, "complete")));
    json_decref(s);
}

/* A replacement starts from the supervisor's own image (/proc/self/exe), whatever became of the file it was started
 * from: the program is removed while the run goes on, a worker killed, and the recovery ends with its replacement
 * running (until 2026-11-30 the path was started again: a removed or rebuilt program failed every restart, or ran
 * another build's worker). */
Test(failures, a_replacement_starts_though_the_program_was_removed, .timeout = 210)
{
    char dir[] = "/tmp/gauntlet-fail-bin-XXXXXX", bin[128];
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    snprintf(bin, sizeof bin, "%s/gauntlet", dir);
    FILE *in = fopen(e2e_bin(), "rb"), *outf = fopen(bin, "wb");
    cr_assert(in && outf);
    char buf[1 << 16];
    for (size_t k; (k = fread(buf, 1, sizeof buf, in)) > 0;)
        cr_assert_eq(fwrite(buf, 1, k, outf), k);
    fclose(in);
    cr_assert_eq(fclose(outf), 0);
    cr_assert_eq(chmod(bin, 0755), 0);
    char *was = getenv("GAUNTLET_BIN") ? strdup(getenv("GAUNTLET_BIN")) : NULL;
    cr_assert_eq(setenv("GAUNTLET_BIN", bin, 1), 0);   /* this test's own process: e2e_start runs the copy */
    char text[512];
    snprintf(text, sizeof text, "%srecovery: restart\n", long_run);
    const char *out = e2e_outdir();
    const char *args[] = { "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless", NULL };
    pid_t sup = e2e_start(e2e_log("fail-bin.log"), args);
    was ? setenv("GAUNTLET_BIN", was, 1) : unsetenv("GAUNTLET_BIN");
    free(was);
    cr_assert_eq(e2e_wait_started(out, 3 * 5, 30), 0, "the run did not start");
    pid_t w[3];
    cr_assert_eq(e2e_worker_pids(out, w, 3), 3);
    cr_assert_eq(unlink(bin), 0);
    cr_assert_eq(kill(w[1], SIGKILL), 0);
    cr_assert_eq(e2e_wait_events(out, "recovery_end", 1, 90), 0, "the recovery ended: see %s", e2e_log("fail-bin.log"));
    cr_assert_eq(kill(sup, SIGTERM), 0);
    int rc = e2e_wait(sup, 60);
    cr_assert_eq(rc, 1, "stopped by a signal: exit %d", rc);
    cr_assert_geq(e2e_count_events(out, "worker_start"), 4, "the 3 workers, then their replacements (restart: all 3)");
    char *log = e2e_read(e2e_log("fail-bin.log"));
    cr_assert(log && !strstr(log, "exec "), "no worker failed to start: %s", log ? log : "");
    free(log);
    rmdir(dir);
}
