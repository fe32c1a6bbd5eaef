/* tests/test_stuck_workers.c: a worker that is alive and takes nothing — a replacement that never says it is ready, a
 * worker frozen while its commands come — and what the supervisor promises for each (docs/faults.md: the recovery's
 * starting deadline; a full command ring is back-pressure, never a dropped command). Real processes, the real
 * supervisor; tests/stall_preload.c makes the worker stick. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "shm.h"
#include "sup.h"
#include "util.h"

/* Returns the "t_s" of the first event of type in dir (the test fails if there is none). */
static double first_t(const char *dir, const char *type)
{
    json_t *e = e2e_first_event(dir, type);
    cr_assert(e, "no %s event in %s", type, dir);
    double t = json_number_value(json_object_get(e, "t_s"));
    json_decref(e);
    return t;
}

/* Waits (60 s at most) until every worker the run in dir started is gone; the test fails naming one left behind. */
static void no_worker_left(const char *dir)
{
    pid_t w[16];
    int n = e2e_worker_pids(dir, w, 16);
    cr_assert_gt(n, 0, "no worker_start event in %s", dir);
    uint64_t end = mono_ns() + 60000000000ull;
    for (int i = 0; i < n; i++) {
        while (!e2e_gone(w[i]) && mono_ns() < end)
            sleep_ns(10000000);
        cr_assert(e2e_gone(w[i]), "worker pid %d (the %d-th started) was left behind", (int)w[i], i + 1);
    }
}

/* The starting state's deadline: a replacement that stays alive but never becomes ready (here every worker started
 * once the run is under way sleeps before it says ready) fails the run, exit 1, `recovery: the replacement workers
 * did not start`, no sooner than heartbeat.startup (2 s) after the recovery began; the run ends (60 s at most: no upper
 * bound in milliseconds on a loaded machine), its summary whole and saying why, no worker left behind. Until this
 * test only a replacement that died before it was ready was tested (test_failures.c). */
Test(stuck, a_replacement_that_never_becomes_ready_ends_the_run_after_startup, .timeout = 180)
{
    char flag[] = "/tmp/gauntlet-hang-start-XXXXXX";
    int ffd = mkstemp(flag);
    cr_assert(ffd >= 0);
    e2e_own(flag);
    close(ffd);
    cr_assert_eq(unlink(flag), 0);   /* made once the run's own workers are up */
    /* a 5 s timeout and a deaf straggler check: the test is about the start of a replacement, not about a loaded
     * machine's slow phases */
    static const char text[] = "name: never-ready\nranks: 3\niterations: 4000\n"
                               "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 10}\n  allreduce: {bytes: 1MiB}\n"
                               "heartbeat: {interval: 50ms, timeout: 5s, startup: 2s}\n"
                               "detectors: [{heartbeat: {factor: 4, min_excess: 300ms}}]\n"
                               "sim: {tflops: 1}\nrecovery: {inprocess: {replicate_every: 5}}\n";
    const char *out = e2e_outdir(), *log = e2e_log("stuck-ready.log");
    char env[160];
    snprintf(env, sizeof env, "GAUNTLET_TEST_WORKER_HANG_FILE=%s", flag);
    e2e_preload(STALL_PRELOAD, (const char *[]){ env, NULL });
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless",
                                                 NULL });
    e2e_preload_end();
    cr_assert_eq(e2e_wait_started(out, 3 * 5, 60), 0, "the run did not start; see %s", log);
    pid_t w[3];
    cr_assert_eq(e2e_worker_pids(out, w, 3), 3);
    FILE *ff = fopen(flag, "w");
    cr_assert(ff);
    fclose(ff);
    cr_assert_eq(kill(w[1], SIGKILL), 0);
    int rc = e2e_wait(sup, 60);
    unlink(flag);
    cr_assert_eq(rc, 1, "exit %d; see %s", rc, log);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "recovery: the replacement workers did not start"), "stopped: %s; see %s",
              why ? why : "(none)", log);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "recovery_failed", "see %s", log);
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect(!json_is_true(json_object_get(run, "complete")), "the run is not called whole");
    json_decref(s);
    cr_assert_eq(e2e_count_events(out, "recovery_begin"), 1, "see %s", log);
    cr_assert_eq(e2e_count_events(out, "recovery_end"), 0, "no recovery is called done; see %s", log);
    cr_assert_eq(e2e_count_events(out, "worker_start"), 4, "the 3 workers and rank 1's one replacement; see %s", log);
    /* not before the deadline: the run's end (the loop's turn after the failure) is at least heartbeat.startup after
     * the recovery began (its starting state, where the deadline is counted from, comes later still) */
    double begun = first_t(out, "recovery_begin"), ended = first_t(out, "run_end");
    cr_assert_geq(ended - begun, 2.0, "the run ended %.3f s after the recovery began, before heartbeat.startup (2 s)",
                  ended - begun);
    no_worker_left(out);
}

/* A scenario of n faults: each a straggler that changes next to nothing (x1.01 for 1 ms), all due at the run's start (at_s: 0),
 * all on rank 1: the supervisor sends rank 1 its run command and then n fault commands in one go. */
static const char *burst_scenario(int n, const char *heartbeat)
{
    static char text[16384];
    int k = snprintf(text, sizeof text,
                     "name: burst\nranks: 2\niterations: 20\nseed: 1\n"
                     "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                     "sim: {tflops: 0.05}\nheartbeat: %s\ndetectors: [{heartbeat: {factor: 4, min_excess: 300ms}}]\n"
                     "faults:\n", heartbeat);
    for (int i = 0; i < n; i++)
        k += snprintf(text + k, sizeof text - (size_t)k,
                      "  - {kind: straggler, at_s: 0, rank: 1, factor: 1.01, duration: 1ms}\n");
    cr_assert_lt((size_t)k, sizeof text);
    return e2e_scenario(text);
}

/* Starts a burst run whose slot 1 worker stops itself (SIGSTOP) just after it said ready, and waits until that worker
 * is stopped and its command ring full (CMD_CAP commands: the run command and CMD_CAP - 1 faults; the last fault,
 * the 65th command, waits in the supervisor). Fills *shm (the control block) and w[] (the workers). */
static pid_t burst_start(const char *heartbeat, const char *out, const char *log, struct shm *shm, pid_t *w)
{
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_WORKER_STOP_SLOT=1", NULL });
    pid_t sup = e2e_start(log, (const char *[]){ "run", burst_scenario(SC_MAX_FAULTS, heartbeat), "--out", out,
                                                 "--backend", "sim", "--headless", NULL });
    e2e_preload_end();
    uint64_t end = mono_ns() + (uint64_t)(E2E_SETUP_S * 1e9);
    while (e2e_worker_pids(out, w, 2) < 2 && mono_ns() < end)
        sleep_ns(5000000);
    cr_assert_eq(e2e_worker_pids(out, w, 2), 2, "the workers did not start; see %s", log);
    cr_assert_eq(e2e_control_block(sup, shm), 0, "no control block in /proc/%d/fd", (int)sup);
    struct ring *cmd = &shm_ctl(shm, 1)->cmd;
    while (!(e2e_stopped(w[1]) && ring_count(cmd) == CMD_CAP) && mono_ns() < end)
        sleep_ns(1000000);
    cr_assert(e2e_stopped(w[1]), "slot 1's worker did not stop itself; see %s", log);
    cr_assert_eq(ring_count(cmd), CMD_CAP, "slot 1's command ring holds %llu of %d; see %s",
                 (unsigned long long)ring_count(cmd), CMD_CAP, log);
    return sup;
}

/* A full command ring is back-pressure: the run command and SC_MAX_FAULTS (64) faults for a worker that takes none
 * meanwhile are one more than its ring holds (CMD_CAP, 64). The supervisor waits for room (the ring's failed pushes
 * count it) and, the worker resumed, places the last: every fault is carried out and recorded, none said never
 * injected, and the run completes. */
Test(stuck, a_full_command_ring_waits_and_drops_no_command, .timeout = 180)
{
    cr_assert_geq(SC_MAX_FAULTS, CMD_CAP, "the run command and every fault must be more than a ring holds");
    const char *out = e2e_outdir(), *log = e2e_log("stuck-ring.log");
    struct shm shm = { .fd = -1 };
    pid_t w[2];
    pid_t sup = burst_start("{interval: 50ms, timeout: 10s}", out, log, &shm, w);
    cr_assert_eq(kill(w[1], SIGCONT), 0);
    int rc = e2e_wait(sup, 120);
    uint64_t full = atomic_load(&shm_ctl(&shm, 1)->cmd.dropped);   /* the pushes that found the ring full */
    shm_close(&shm);
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, log);
    cr_assert_gt(full, 0, "the supervisor never found slot 1's ring full: the test did not test the wait");
    json_t *s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "completed", "see %s", log);
    cr_assert_eq(e2e_fault_count(s, "injected"), SC_MAX_FAULTS, "every fault sent was carried out; see %s", log);
    for (int i = 0; i < SC_MAX_FAULTS; i++) {
        json_t *f = e2e_injected_fault(s, (size_t)i);
        cr_assert_eq(json_integer_value(json_object_get(f, "rank")), 1, "fault %d", i);
    }
    json_decref(s);
    cr_assert_eq(e2e_count_events(out, "fault_not_injected"), 0, "no fault was left untaken; see %s", log);
    no_worker_left(out);
}

/* A worker that never takes a command from its full ring fails the run after the heartbeat timeout (3 s), exit 1,
 * `worker_stuck`, saying its command ring is full — not a hang found later, not a command dropped; no sooner than the
 * timeout after the run began, and with no worker left behind (the frozen one is killed). */
Test(stuck, a_worker_that_takes_no_command_from_its_full_ring_fails_the_run, .timeout = 180)
{
    const char *out = e2e_outdir(), *log = e2e_log("stuck-ring-never.log");
    struct shm shm = { .fd = -1 };
    pid_t w[2];
    pid_t sup = burst_start("{interval: 50ms, timeout: 3s}", out, log, &shm, w);
    int rc = e2e_wait(sup, 60);
    shm_close(&shm);
    cr_assert_eq(rc, 1, "exit %d; see %s", rc, log);
    json_t *s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "worker_stuck", "see %s", log);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "slot 1: the worker took no command for 3.0 s (its command ring is full)"),
              "stopped: %s; see %s", why ? why : "(none)", log);
    json_decref(s);
    double begun = first_t(out, "run_begin"), ended = first_t(out, "run_end");
    cr_assert_geq(ended - begun, 3.0, "the run ended %.3f s after it began, before the heartbeat timeout (3 s)",
                  ended - begun);
    no_worker_left(out);
}

/* The "t_s" of the event of type in dir whose "pid" is pid (NAN: none). */
static double event_t_of_pid(const char *dir, const char *type, pid_t pid)
{
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path), *save = NULL;
    cr_assert(text, "no %s", path);
    double t = NAN;
    for (char *line = strtok_r(text, "\n", &save); line && isnan(t); line = strtok_r(NULL, "\n", &save)) {
        json_t *o = json_loads(line, 0, NULL);
        const char *ev = o ? json_string_value(json_object_get(o, "event")) : NULL;
        if (ev && strcmp(ev, type) == 0 && json_integer_value(json_object_get(o, "pid")) == (json_int_t)pid)
            t = json_number_value(json_object_get(o, "t_s"));
        json_decref(o);
    }
    free(text);
    return t;
}

/* A second stop signal kills every worker at once (docs/architecture.md, "Failures"): without it, a worker that takes
 * no command (here slot 1's, frozen by SIGSTOP just after it said ready) is ended only SUP_EXIT_CMD_WAIT_S after the
 * stop's EXIT. Two SIGINTs, the second once the first is in the record: the frozen worker's end is recorded less than
 * that wait after the first (the record's own clock: without the second signal's kill it comes at least that long
 * after), the run exits 1 stopped by the signal, and no worker is left. */
Test(stuck, a_second_stop_signal_kills_the_workers_at_once, .timeout = 180)
{
    static const char text[] = "name: second-signal\nranks: 2\niterations: 100000\n"
                               "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                               "heartbeat: {interval: 50ms, timeout: 120s}\n";
    const char *out = e2e_outdir(), *log = e2e_log("stuck-second-signal.log");
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_WORKER_STOP_SLOT=1", NULL });
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless",
                                                 NULL });
    e2e_preload_end();
    pid_t w[2];
    uint64_t end = mono_ns() + (uint64_t)(E2E_SETUP_S * 1e9);
    while (!(e2e_worker_pids(out, w, 2) == 2 && e2e_stopped(w[1])) && mono_ns() < end)
        sleep_ns(5000000);
    cr_assert_eq(e2e_worker_pids(out, w, 2), 2, "the workers did not start; see %s", log);
    cr_assert(e2e_stopped(w[1]), "slot 1's worker did not stop itself; see %s", log);
    cr_assert_eq(kill(sup, SIGINT), 0);
    cr_assert_eq(e2e_wait_events(out, "interrupted", 1, 30), 0, "the first SIGINT is not in the record; see %s", log);
    cr_assert_eq(kill(sup, SIGINT), 0);
    int rc = e2e_wait(sup, 60);
    cr_assert_eq(rc, 1, "exit %d after two SIGINTs; see %s", rc, log);
    cr_assert_eq(e2e_count_events(out, "interrupted"), 2, "see %s", log);
    double first = first_t(out, "interrupted"), ended = event_t_of_pid(out, "worker_exit", w[1]);
    cr_assert(!isnan(ended), "no worker_exit of the frozen worker (pid %d); see %s", (int)w[1], log);
    cr_assert_lt(ended - first, SUP_EXIT_CMD_WAIT_S, "the frozen worker ended %.3f s after the first SIGINT: the second "
                 "did not kill it (it waited out the stop's %.0f s); see %s", ended - first, SUP_EXIT_CMD_WAIT_S, log);
    json_t *s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "signal", "see %s", log);
    json_decref(s);
    no_worker_left(out);
}
