/* tests/test_failures.c: what the engine does when things go wrong — the supervisor killed with -9, SIGINT,
 * a worker that dies, a worker that hangs — with real processes and signals. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "util.h"

/* A long run: about 25 ms per iteration for 4000 iterations, far longer than any test waits. */
static const char long_run[] =
    "name: long\nranks: 3\niterations: 4000\n"
    "workload:\n"
    "  gemm: {m: 1000, n: 1000, k: 1000, count: 10}\n"
    "  allreduce: {bytes: 1MiB}\n"
    "heartbeat: {interval: 50ms, timeout: 600ms}\n"
    "sim: {tflops: 1}\n";

/* Starts the long run and waits until every rank has done a few iterations; returns the supervisor pid. */
static pid_t start_long(const char *out, const char *log, pid_t *workers)
{
    const char *args[] = { "run", e2e_scenario(long_run), "--out", out, "--backend", "sim", "--headless", NULL };
    pid_t sup = e2e_start(log, args);
    cr_assert_eq(e2e_wait_events(out, "iteration", 3 * 5, 30), 0, "the run did not start; see %s", log);
    cr_assert_eq(e2e_worker_pids(out, workers, 3), 3);
    return sup;
}

Test(failures, kill9_of_the_supervisor_leaves_no_worker_and_no_broken_line, .timeout = 60)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long(out, "/tmp/gauntlet-fail-kill9.log", w);
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

Test(failures, sigint_stops_in_order_and_writes_the_summary, .timeout = 60)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long(out, "/tmp/gauntlet-fail-int.log", w);
    cr_assert_eq(kill(sup, SIGINT), 0);
    int rc = e2e_wait(sup, 20);
    cr_assert_eq(rc, 1, "exit %d after SIGINT", rc);
    for (int r = 0; r < 3; r++)
        cr_assert(e2e_gone(w[r]), "worker %d still running after SIGINT", r);
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 1);
    cr_assert(strstr(json_string_value(json_object_get(s, "stopped")), "Interrupt"));
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_false(json_object_get(run, "complete")));
    cr_assert_gt(json_integer_value(json_object_get(run, "iterations")), 0);
    cr_assert(json_is_number(json_object_get(json_object_get(run, "iteration_s"), "p50")));
    json_decref(s);
    cr_assert_eq(e2e_count_events(out, "interrupted"), 1);
    cr_assert_eq(e2e_count_events(out, "worker_died"), 0, "workers stopped on request are not failures");
    cr_assert_eq(e2e_count_events(out, "worker_exit"), 3);
}

Test(failures, a_dead_worker_ends_the_run_with_exit_1, .timeout = 60)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long(out, "/tmp/gauntlet-fail-dead.log", w);
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

Test(failures, a_hung_worker_is_found_by_its_heartbeat, .timeout = 60)
{
    const char *out = e2e_outdir();
    pid_t w[3];
    pid_t sup = start_long(out, "/tmp/gauntlet-fail-hang.log", w);
    uint64_t t = mono_ns();
    cr_assert_eq(kill(w[2], SIGSTOP), 0);   /* alive, making no progress */
    int rc = e2e_wait(sup, 20);
    double took = (double)(mono_ns() - t) * 1e-9;
    cr_assert_eq(rc, 1, "exit %d", rc);
    /* timeout 600 ms + one heartbeat interval, plus the time the test takes to look */
    cr_assert(took >= 0.5 && took < 3.0, "hang ended the run after %.2f s", took);
    cr_assert_eq(e2e_count_events(out, "hang"), 1);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "rank 2 is hung"), "stopped: %s", why);
    json_decref(s);
    for (int r = 0; r < 3; r++)
        cr_assert(e2e_gone(w[r]));
}

/* Two workers killed at once, a third while the recovery they started is under way: every dead rank is replaced
 * (the second and third deaths are folded into the recovery, or recovered after it), and the run ends whole. */
Test(failures, deaths_during_a_recovery_are_all_recovered, .timeout = 90)
{
    static const char text[] = "name: deaths\nranks: 3\niterations: 400\n"
                               "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 10}\n  allreduce: {bytes: 1MiB}\n"
                               "heartbeat: {interval: 50ms, timeout: 600ms}\n"
                               "sim: {tflops: 1}\nrecovery: {inprocess: {replicate_every: 5}}\n";
    const char *out = e2e_outdir(), *log = "/tmp/gauntlet-fail-deaths.log";
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless",
                                                 NULL });
    pid_t w[3];
    cr_assert_eq(e2e_wait_events(out, "iteration", 3 * 10, 30), 0, "the run did not start; see %s", log);
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
    cr_assert_eq(json_integer_value(json_object_get(run, "iterations")), 400);
    cr_assert_eq(e2e_count_events(out, "worker_died"), 3);
    cr_assert_eq(json_array_size(json_object_get(s, "faults")), 3, "each death is an observed fault");
    cr_assert_eq(e2e_count_events(out, "recovery_begin"), e2e_count_events(out, "recovery_end"),
                 "every recovery that began ended");
    json_decref(s);
}
