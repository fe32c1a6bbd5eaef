/* tests/test_campaign.c: the fault record's truth on sim, through the real executable: one timeline across
 * rollbacks (the same detections on every repetition and under every strategy), real failures recorded as
 * faults, faults named in full, the fault table on the console, and `gauntlet campaign` (random schedules
 * against the invariants; its checker shown to catch a broken one). */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accept.h"
#include "campaign_int.h"
#include "e2e.h"
#include "util.h"

/* The scenario that showed a detection no fault explained after a rollback (5 of 30 runs before). Its straggler
 * check wants 100 ms of excess: runs here share 2 cores several at once, and a rank stalled 20 ms twice by the
 * host is a real straggler (an observed fault), not this test's subject. */
#define REPRO                                                                                                  \
    "name: repro\nranks: 4\niterations: 50\nseed: 7\n"                                                         \
    "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 4}\n  allreduce: {bytes: 1MiB}\n"                       \
    "  checkpoint: {every: 10, bytes: 256KiB, path: @TMPDIR@}\n"                            \
    "detectors: [fingerprint, abft, {heartbeat: {min_excess: 100ms}}]\nrecovery: %s\n"                          \
    "faults:\n"                                                                                                \
    "  - {kind: bitflip, at: 13, rank: 2, target: gemm-output}\n"                                              \
    "  - {kind: bitflip, at: 17, rank: 1, target: allreduce-buffer, where: value, value: 1000}\n"              \
    "  - {kind: crash, at: 25, rank: 3}\n"

/* The detections of a summary as one line: kind/origin/detector/rank/iteration of every fault (but a straggler nobody
 * injected: the host's), and the false positives. */
static void detections_of(json_t *s, char *out, size_t n)
{
    size_t i, len = 0;
    json_t *f;
    out[0] = 0;
    json_array_foreach(json_object_get(s, "faults"), i, f) {
        const char *origin = json_string_value(json_object_get(f, "origin")), *kind = json_string_value(json_object_get(f, "kind"));
        if (origin && strcmp(origin, "observed") == 0 && kind && strcmp(kind, "straggler") == 0)
            continue;   /* a rank a busy host ran slowly (seen beside other work, 2026-11-27): the host's, not the repro's */
        json_t *d = json_object_get(f, "detection");
        len += (size_t)snprintf(out + len, n - len, "%s/%s/%s/%lld/%lld ", json_string_value(json_object_get(f, "kind")),
                                json_string_value(json_object_get(f, "origin")),
                                json_string_value(json_object_get(d, "detector")) ?: "-",
                                (long long)json_integer_value(json_object_get(d, "rank")),
                                (long long)json_integer_value(json_object_get(d, "iter_seen")));
    }
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    snprintf(out + len, n - len, "fp=%lld", (long long)json_integer_value(json_object_get(json_object_get(run, "faults"),
                                                                                         "false_positives")));
}

/* Runs text `reps` times, `par` at once; every repetition must give the detections want (or the first's). */
static void same_every_time(const char *text, int reps, int par, char *want, size_t n)
{
    const char *path = e2e_scenario(text);
    char outs[128][1024];
    pid_t pid[128];
    cr_assert(reps <= 128);
    for (int done = 0, started = 0; done < reps;) {
        while (started < reps && started - done < par) {
            str_copy(outs[started], sizeof outs[0], e2e_outdir());
            pid[started] = e2e_start("/dev/null", (const char *[]){ "run", path, "--backend", "sim", "--headless", "--out",
                                                                    outs[started], NULL });
            started++;
        }
        int rc = e2e_wait(pid[done], 120);
        cr_assert_eq(rc, 0, "repetition %d exited %d", done, rc);
        json_t *s = e2e_summary(outs[done]);
        char got[1024];
        detections_of(s, got, sizeof got);
        json_decref(s);
        if (!want[0])
            str_copy(want, n, got);
        cr_assert_str_eq(got, want, "repetition %d differs (%s)", done, outs[done]);
        done++;
    }
}

Test(timeline, the_rollback_repro_gives_the_same_detections_every_time, .timeout = 300)
{
    char text[2048], want[1024] = "";
    snprintf(text, sizeof text, REPRO, "restart");
#if defined(__SANITIZE_ADDRESS__)
    /* the sanitized pass (tests/sanitize-all.sh) looks for memory errors: each repetition runs the same scenario on
     * the same paths, and 10 of them take ~17 s there where 100 took ~170 s of CI's 30 minutes (20 until
     * 2026-11-30); the plain suite runs 20 (100 until a later 2026-11-29 change: ~61 s of the suite's time
     * alone, both slots held; 50, then 30 until the end of 2026-11-30, when CI reached 30.8 minutes; the 200
     * schedules of two_hundred_schedules_keep_every_invariant hold the same invariant on every other path) */
    same_every_time(text, 10, 4, want, sizeof want);
#else
    same_every_time(text, 20, 4, want, sizeof want);
#endif
    /* the flip of 17 by fingerprint, the crash by exit, the silent flip of 13 (a low bit under abft's tolerance)
     * missed; nothing else */
    cr_expect(strstr(want, "bitflip/injected/fingerprint/1/17"), "%s", want);
    cr_expect(strstr(want, "crash/injected/exit/3/25"), "%s", want);
    cr_expect(strstr(want, "fp=0"), "%s", want);
}

Test(timeline, every_strategy_gives_the_repro_the_same_detections, .timeout = 300)
{
    const char *strats[] = { "restart", "{inprocess: {replicate_every: 2}}", "{spare: {replicate_every: 2}}",
                             "{shrink: {replicate_every: 2}}" };
    char first[1024] = "";
    for (size_t i = 0; i < 4; i++) {
        char text[2048], want[1024] = "";
        snprintf(text, sizeof text, REPRO, strats[i]);
        same_every_time(text, 4, 4, want, sizeof want);
        char *crash = strstr(want, "crash/");   /* shrink drops the crashed rank: the rest is the same */
        if (!first[0])
            str_copy(first, sizeof first, want);
        cr_expect(crash && strstr(first, "bitflip/injected/fingerprint/1/17"), "%s: %s", strats[i], want);
        cr_expect_str_eq(want, first, "%s detects differently", strats[i]);
    }
}

/* A fault record names what it did in fields: the buffer, the element, the bit and its class, the values. */
Test(record, a_flip_is_named_in_full_in_summary_and_events, .timeout = 60)
{
    char text[2048];
    snprintf(text, sizeof text, REPRO, "restart");
    const char *out = e2e_outdir();
    char run_log[1100], report_log[1100];   /* beside the run, in its test's folder */
    snprintf(run_log, sizeof run_log, "%s.log", out);
    snprintf(report_log, sizeof report_log, "%s-report.log", out);
    cr_assert_eq(e2e_run(run_log, (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--headless", "--out",
                                                     out, NULL }),
                 0);
    json_t *s = e2e_summary(out), *f = e2e_injected_fault(s, 1);
    cr_assert(f, "the second injected fault is in faults[]");
    cr_assert_str_eq(json_string_value(json_object_get(f, "target")), "allreduce-buffer");
    cr_assert_str_eq(json_string_value(json_object_get(f, "where")), "value");
    cr_assert_str_eq(json_string_value(json_object_get(f, "format")), "fp32");
    cr_assert(json_is_integer(json_object_get(f, "element")));
    double o = json_number_value(json_object_get(f, "old")), nv = json_number_value(json_object_get(f, "new"));
    cr_expect_float_eq(nv, o * 1001, fabs(nv) * 1e-6, "value 1000: new %g = old %g x 1001", nv, o);
    cr_expect_float_eq(json_number_value(json_object_get(f, "rel_error")), 1000, 1e-2);
    cr_expect(json_array_size(json_object_get(f, "bits")) > 0);
    cr_expect_str_eq(json_string_value(json_object_get(f, "origin")), "injected");
    json_t *d = json_object_get(f, "detection");
    cr_expect_str_eq(json_string_value(json_object_get(d, "detector")), "fingerprint");
    cr_expect_eq(json_integer_value(json_object_get(d, "iter_seen")), 17);
    cr_expect_eq(json_integer_value(json_object_get(d, "latency_iters")), 0);
    cr_expect(json_number_value(json_object_get(d, "latency_s")) > 0);
    size_t nfaults = json_array_size(json_object_get(s, "faults"));   /* 3, and any straggler a busy machine made */
    json_decref(s);
    char path[1100], said[64];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    cr_assert(ev && strstr(ev, "\"event\":\"fault_injected\"") && strstr(ev, "\"bit_class\":"), "events.jsonl names the bits");
    free(ev);
    /* the console tells the fault story, at the run's end and in report */
    char *log = e2e_read(run_log);
    snprintf(said, sizeof said, "faults: %zu", nfaults);
    cr_expect(log && strstr(log, said) && strstr(log, "allreduce-buffer") && strstr(log, "recovered by restart"),
              "%s", log);
    free(log);
    cr_assert_eq(e2e_run(report_log, (const char *[]){ "report", out, NULL }), 0);
    log = e2e_read(report_log);
    snprintf(said, sizeof said, "faults (%zu)", nfaults);
    cr_expect(log && strstr(log, said) && strstr(log, "mantissa"), "%s", log);
    free(log);
}

/* Returns the pid of rank `rank`'s worker now serving run pid p (slot = rank without spares). */
static pid_t worker_of(pid_t p, int rank)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "pgrep -P %d -f '__worker [0-9]+ %d( [0-9]+)*$'", (int)p, rank);
    FILE *f = popen(cmd, "r");
    int pid = -1;
    if (f && fscanf(f, "%d", &pid) != 1)
        pid = -1;
    if (f)
        pclose(f);
    return pid;
}

/* A worker killed by someone else is a fault (observed), recovered and measured; not a false positive; and not a
 * repeat of the crash injected into the same rank before it (each death is a new failure). */
Test(record, a_real_crash_is_an_observed_fault, .timeout = 180)
{
    const char *out = e2e_outdir();
    const char *path = e2e_scenario("name: real\nranks: 3\niterations: 400\nseed: 3\n"
                                    "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 4}\n  allreduce: {bytes: 1MiB}\n"
                                    "  checkpoint: {every: 10, bytes: 64KiB, path: @TMPDIR@}\n"
                                    "recovery: restart\nfaults:\n  - {kind: crash, at: 20, rank: 1}\n");
    char log[1100];
    snprintf(log, sizeof log, "%s.log", out);
    pid_t p = e2e_start(log, (const char *[]){ "run", path, "--backend", "sim", "--headless", "--out", out, NULL });
    cr_assert_eq(e2e_wait_started(out, 1, 30), 0, "the run did not start");
    cr_assert_eq(e2e_wait_events(out, "recovered", 1, 30), 0);
    cr_assert_eq(e2e_wait_events(out, "iteration", 300, 30), 0);
    pid_t victim = worker_of(p, 1);
    cr_assert(victim > 0, "rank 1's worker not found");
    cr_assert_eq(kill(victim, SIGKILL), 0);
    cr_assert_eq(e2e_wait(p, 60), 0);
    /* the injected crash and the real one; beside them only stragglers a busy machine made (observed too) */
    json_t *s = e2e_summary(out), *f = NULL, *g;
    size_t at, injected = 0, stragglers = 0;
    json_array_foreach(json_object_get(s, "faults"), at, g) {
        const char *origin = json_string_value(json_object_get(g, "origin")), *kind = json_string_value(json_object_get(g, "kind"));
        injected += origin && strcmp(origin, "injected") == 0;
        if (origin && strcmp(origin, "observed") == 0 && kind && strcmp(kind, "straggler") == 0)
            stragglers++;
        else if (origin && strcmp(origin, "observed") == 0) {
            cr_assert(!f, "a second observed %s", kind ? kind : "fault");
            f = g;
        }
    }
    cr_expect_eq(injected, 1);
    cr_assert(f, "the death is in faults[]");
    cr_expect_str_eq(json_string_value(json_object_get(f, "kind")), "crash");
    cr_expect_str_eq(json_string_value(json_object_get(f, "detected_by")), "exit");
    cr_expect(json_is_number(json_object_get(f, "recover_s")), "observed faults are recovered and measured");
    json_t *fl = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults");
    cr_expect_eq(json_integer_value(json_object_get(fl, "false_positives")), 0);
    cr_expect_eq(json_integer_value(json_object_get(fl, "observed")), 1 + (json_int_t)stragglers);
    json_decref(s);
    /* accept fails the GPU it hit, with the fault as evidence (whatever checks the scenario asks for) */
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[512];
    cr_assert_eq(scenario_load(path, sc, err, sizeof err), 0, "%s", err);
    struct verdicts vs = { 0 };
    cr_assert_eq(accept_evaluate(sc, out, "sim", NULL, NULL, &vs, err, sizeof err), 0, "%s", err);
    int found = 0;
    for (int i = 0; i < vs.n; i++)
        if (strcmp(vs.v[i].check, "observed_fault") == 0 && !strstr(vs.v[i].note, "straggler")) {
            found++;
            cr_expect_eq(vs.v[i].status, V_FAIL);
            cr_expect_eq(vs.v[i].rank, 1, "the killed worker is rank 1");   /* the injected crash is not judged here */
            cr_expect(strstr(vs.v[i].note, "crash nobody injected, seen by exit"), "%s", vs.v[i].note);
        }
    cr_expect_eq(found, 1);
    accept_free(&vs);
    free(sc);
}

/* What the campaign run into dir printed (its log, dir.log). */
static char *campaign_log(const char *dir)
{
    char path[1100];
    snprintf(path, sizeof path, "%s.log", dir);
    return e2e_read(path);
}

/* Runs `gauntlet campaign` with args into a new folder; returns campaign.json (exit code in *rc). */
static json_t *campaign(const char *const *args, int *rc, char *dir, size_t n)
{
    const char *argv[32] = { "campaign", "--out" };
    str_copy(dir, n, e2e_outdir());   /* the log's place too */
    argv[2] = dir;
    int k = *args && strcmp(*args, "--out") == 0 ? 1 : 3;   /* an --out of the test's own: given once */
    for (; *args && k < 31; args++)
        argv[k++] = *args;
    argv[k] = NULL;
    char log[1100];
    snprintf(log, sizeof log, "%s.log", dir);   /* its own: criterion runs the tests side by side */
    *rc = e2e_run(log, argv);
    char path[1100];
    snprintf(path, sizeof path, "%s/campaign.json", dir);
    json_error_t err;
    return json_load_file(path, 0, &err);
}

Test(campaign, two_hundred_schedules_keep_every_invariant, .timeout = 300)
{
    char dir[1024];
    int rc;
    uint64_t t0 = mono_ns();
#if defined(__SANITIZE_ADDRESS__)
    /* the sanitized pass: 40 schedules (each kind fires in a share of them; 200 took ~48 s of its 30 minutes there,
     * both slots held; 60 until 2026-11-30); the plain suite runs 200. The schedules are drawn from the default seed:
     * the same each run */
    const char *schedules = "40";
#else
    const char *schedules = "200";
#endif
    json_t *j = campaign((const char *[]){ "--schedules", schedules, "--recovery", "inprocess", "--jobs", "8", NULL }, &rc,
                         dir, sizeof dir);
    double wall = (double)(mono_ns() - t0) * 1e-9;
    char *log = campaign_log(dir);
    cr_assert_eq(rc, 0, "campaign exited %d:\n%s", rc, log);
    cr_log_info("%s schedules under inprocess: %.1f s", schedules, wall);
    free(log);
    cr_assert(j);
    cr_expect_eq(json_integer_value(json_object_get(j, "broken")), 0);
    json_t *k;
    const char *kind;
    json_object_foreach(json_object_get(j, "by_kind"), kind, k) {
        cr_expect(json_integer_value(json_object_get(k, "fired")) > atoi(schedules) / 20, "%s fired in too few schedules",
                  kind);
        cr_expect(json_integer_value(json_object_get(k, "caught")) >= json_integer_value(json_object_get(k, "visible")),
                  "%s: visible faults missed", kind);
    }
    json_decref(j);
}

Test(campaign, every_strategy_detects_alike, .timeout = 300)
{
    char dir[1024];
    int rc;
    json_t *j = campaign((const char *[]){ "--schedules", "16", "--seed", "7", "--jobs", "8", NULL }, &rc, dir, sizeof dir);
    char *log = campaign_log(dir);
    cr_assert_eq(rc, 0, "campaign exited %d:\n%s", rc, log);
    free(log);
    cr_expect_eq(json_integer_value(json_object_get(j, "strategies")), 4);
    json_decref(j);
}

/* The same invariants on two nodes: one supervisor a node under mpirun, faults on ranks of either node, the
 * recovery agreed across both (a failure on one node while the other recovers its own joins it, rolled back to
 * before the older one). */
Test(campaign, two_nodes_under_mpirun_keep_every_invariant, .timeout = 300)
{
    e2e_need_mpi();
    char dir[1024];
    int rc;
#if defined(__SANITIZE_ADDRESS__)
    /* the sanitized pass: 2 schedules (6 took ~50 s of its 30 minutes there, both slots held; 3 until 2026-11-30;
     * the multi-node fault paths are test_cluster's too, sanitized); the plain suite runs 3 (6, then 4 until the end
     * of 2026-11-30: ~47 s of CI's 30 minutes for 6) */
    const char *schedules = "2";
#else
    const char *schedules = "3";
#endif
    json_t *j = campaign((const char *[]){ "--schedules", schedules, "--nodes", "2", "--ranks", "2", "--seed", "3", "--jobs",
                                           "2", NULL },
                         &rc, dir, sizeof dir);
    char *log = campaign_log(dir);
    cr_assert_eq(rc, 0, "campaign exited %d:\n%s", rc, log);
    free(log);
    cr_assert(j);
    cr_expect_eq(json_integer_value(json_object_get(j, "broken")), 0);
    cr_expect_eq(json_integer_value(json_object_get(j, "strategies")), 4);
    json_decref(j);
}

/* Puts a stand-in `mpirun` first on PATH, in a folder of its own; launch n (numbered by mkdir, atomic under --jobs)
 * does what character n of acts says, and a launch past its end runs the real one: 'b' fails as an mpirun that
 * could not start does (a banner, exit 1); 's' makes the set-up fail after node 0 began the record (its --out an
 * earlier run's folder whose power.csv is a folder), then runs the real one; 't' ends as a job whose node stalled
 * in the set-up does (node 0 ended it inside an agreement: its record emptied, no end line, exit 3); 'k' dies by
 * SIGSEGV before anything began, as a harness that crashed in its set-up does. acts NULL: every launch 'b'. */
static void mpirun_that_fails(const char *acts)
{
    char real[1024] = "", bin[1100], path[1200];
    FILE *p = popen("command -v mpirun", "r");
    cr_assert(p);
    if (!fgets(real, sizeof real, p))
        real[0] = 0;
    pclose(p);
    real[strcspn(real, "\n")] = 0;
    cr_assert(real[0], "no mpirun on PATH");
    snprintf(bin, sizeof bin, "%s-bin", e2e_outdir());
    cr_assert_eq(mkdir(bin, 0755), 0, "%s: %s", bin, strerror(errno));
    snprintf(path, sizeof path, "%s/mpirun", bin);
    char act[256] = "act=b";
    if (acts)
        snprintf(act, sizeof act, "act=$(printf '%%s' '%s' | cut -c$((n + 1)))", acts);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "#!/bin/sh\n"
               "n=0; while ! mkdir '%s/launch.'$n 2>/dev/null; do n=$((n + 1)); done\n"
               "%s\n"
               "prev=; for a in \"$@\"; do [ \"$prev\" = --out ] && out=$a; prev=$a; done\n"
               "case $act in\n"
               "b) echo 'An ORTE daemon has unexpectedly failed after launch (stand-in)'; exit 1;;\n"
               "s) mkdir -p \"$out/power.csv\" && : > \"$out/events.jsonl\" || exit 9;;\n"
               "t) mkdir -p \"$out\" && : > \"$out/events.jsonl\" || exit 9\n"
               "   echo 'node 0: node(s) 1 did not reach set-up step (stand-in)'; exit 3;;\n"
               "k) echo 'set-up crash (stand-in)'; kill -SEGV $$;;\n"
               "esac\n"
               "exec '%s' \"$@\"\n", bin, act, real);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(path, 0755), 0);
    snprintf(path, sizeof path, "%s:%s", bin, getenv("PATH") ?: "/usr/bin:/bin");
    cr_assert_eq(setenv("PATH", path, 1), 0);   /* this test's own process: criterion runs each test in one */
}

/* A run mpirun could not start never began its record: it is started again, the failed launch's log kept, and
 * the campaign judged on the runs that ran (once counted as a broken invariant: a banner under load in CI). So is
 * one whose set-up failed after node 0 began the record (its end line says why), and one whose node stalled in the
 * set-up (its record emptied, nothing in it: the log says why); until 2026-11-29 both were judged as runs. */
Test(campaign, a_run_mpirun_could_not_start_is_started_again, .timeout = 300)
{
    e2e_need_mpi();
    mpirun_that_fails("bs-t");   /* the fault-free run's first launch, its second's set-up; the next run's stall */
    char dir[1024], path[1200];
    int rc;
    json_t *j = campaign((const char *[]){ "--schedules", "2", "--nodes", "2", "--ranks", "2", "--recovery", "restart",
                                           "--seed", "3", "--jobs", "2", NULL },
                         &rc, dir, sizeof dir);
    char *log = campaign_log(dir);
    cr_assert_eq(rc, 0, "campaign exited %d:\n%s", rc, log);
    cr_expect(strstr(log, "fault-free did not begin (exit 1: An ORTE daemon"), "%s", log);
    cr_expect(strstr(log, "fault-free did not begin (exit 3: its set-up failed: cannot write ") &&
              strstr(log, "power.csv: Is a directory); starting it again"), "%s", log);
    cr_expect(strstr(log, "did not begin (exit 3: node 0: node(s) 1 did not reach set-up step (stand-in)); starting "
                          "it again"), "%s", log);
    cr_expect(strstr(log, "invariants: all held"), "%s", log);
    free(log);
    cr_assert(j);
    cr_expect_eq(json_integer_value(json_object_get(j, "broken")), 0);
    json_t *rel = json_object_get(j, "relaunched");
    cr_expect_eq(json_array_size(rel), 3);
    for (size_t i = 0; i < 2; i++)
        cr_expect_str_eq(json_string_value(json_object_get(json_array_get(rel, i), "run")), "fault-free");
    for (size_t i = 1; i < 3; i++)
        cr_expect_eq(json_integer_value(json_object_get(json_array_get(rel, i), "exit")), 3);
    cr_expect_eq(json_array_size(json_object_get(j, "not_started")), 0);
    snprintf(path, sizeof path, "%s/runs/fault-free.log.1", dir);
    char *first = e2e_read(path);
    cr_expect(first && strstr(first, "stand-in"), "%s: %s", path, first ? first : "missing");
    free(first);
    json_decref(j);
}

/* Runs that never begin in any launch leave the campaign not all tested: exit 3, each listed, none broken. */
Test(campaign, runs_that_never_start_are_not_tested_never_passed_nor_broken, .timeout = 120)
{
    e2e_need_mpi();
    mpirun_that_fails(NULL);
    char dir[1024];
    int rc;
    json_t *j = campaign((const char *[]){ "--schedules", "1", "--nodes", "2", "--ranks", "2", "--recovery", "restart",
                                           "--jobs", "2", NULL },
                         &rc, dir, sizeof dir);
    char *log = campaign_log(dir);
    cr_expect_eq(rc, 3, "campaign exited %d:\n%s", rc, log);
    cr_expect(strstr(log, "invariants: NOT ALL TESTED (2 runs never started"), "%s", log);
    cr_expect(!strstr(log, "all held"), "%s", log);
    free(log);
    cr_assert(j);
    cr_expect_eq(json_integer_value(json_object_get(j, "broken")), 0);
    cr_expect_eq(json_array_size(json_object_get(j, "not_started")), 2);
    cr_expect_eq(json_array_size(json_object_get(j, "relaunched")), 2 * (CP_LAUNCH_TRIES - 1));
    json_decref(j);
}

/* --heartbeat-timeout reaches every run: schedule 5 of the default seed is one hang (rank 2 at iteration 18); under
 * 1.5 s it is caught no sooner than 1.5 s after it fired (under the default 0.5 s: ~0.5 s), and campaign.json says the
 * timeout. A loaded machine only makes the detection later (the heartbeat takes the supervisor's own stalls off). */
Test(campaign, the_heartbeat_timeout_reaches_every_run, .timeout = 120)
{
    char dir[1024], path[1200];
    int rc;
    json_t *j = campaign((const char *[]){ "--schedules", "1", "--first", "5", "--recovery", "restart",
                                           "--heartbeat-timeout", "1500", "--keep", "--jobs", "2", NULL },
                         &rc, dir, sizeof dir);
    char *log = campaign_log(dir);
    cr_assert_eq(rc, 0, "campaign exited %d:\n%s", rc, log);
    free(log);
    cr_assert(j);
    cr_expect_float_eq(json_number_value(json_object_get(j, "heartbeat_timeout_s")), 1.5, 1e-9);
    json_t *hang = json_object_get(json_object_get(j, "by_kind"), "hang");
    cr_expect_eq(json_integer_value(json_object_get(hang, "fired")), 1, "schedule 5 of seed 1 is no longer one hang");
    cr_expect_eq(json_integer_value(json_object_get(hang, "caught")), 1);
    json_decref(j);
    snprintf(path, sizeof path, "%s/runs/s00005-restart", dir);
    json_t *ev = e2e_first_event(path, "hang");
    cr_assert(ev, "%s: no hang event", path);
    cr_expect_float_eq(json_number_value(json_object_get(ev, "timeout_s")), 1.5, 1e-9);
    cr_expect_geq(json_number_value(json_object_get(ev, "silent_s")), 1.5);
    json_decref(ev);
}

Test(campaign, bad_arguments_are_exit_2)
{
    char dir[1024];
    int rc;
    json_decref(campaign((const char *[]){ "--schedules", "0", NULL }, &rc, dir, sizeof dir));
    cr_expect_eq(rc, 2);
    json_decref(campaign((const char *[]){ "--recovery", "restart,bogus", NULL }, &rc, dir, sizeof dir));
    cr_expect_eq(rc, 2);
    json_decref(campaign((const char *[]){ "--jobs", "x", NULL }, &rc, dir, sizeof dir));
    cr_expect_eq(rc, 2);
    json_decref(campaign((const char *[]){ "--heartbeat-timeout", "99", NULL }, &rc, dir, sizeof dir));
    cr_expect_eq(rc, 2);
    char *log = campaign_log(dir);
    cr_expect(log && strstr(log, "--heartbeat-timeout 99: expected an integer from 100 to 60000"), "%s", log ? log : "");
    free(log);
}

/* A strategy named twice, an integer past int64 or with a space before it, --schedules over its bound, and an --out
 * that is empty, a file or too long are exit 2 naming what is expected, before any run. */
Test(campaign, repeats_out_of_range_integers_and_a_bad_out_are_exit_2)
{
    char lng[1100];
    snprintf(lng, sizeof lng, "/tmp/gauntlet-camp-long/%01000d", 0);
    const char *file = e2e_scenario("name: x\n");
    char foreign[] = "/tmp/gauntlet-camp-foreign-XXXXXX", fp[128];   /* a user's folder: its campaign.json no campaign's */
    cr_assert(mkdtemp(foreign));
    e2e_own(foreign);
    snprintf(fp, sizeof fp, "%s/campaign.json", foreign);
    FILE *ff = fopen(fp, "w");
    cr_assert(ff && fputs("{\"mine\": 1}\n", ff) >= 0 && fclose(ff) == 0);
    struct { const char *args[4]; const char *want; } bad[] = {
        { { "--recovery", "restart,restart", NULL }, "each strategy once" },
        { { "--seed", "99999999999999999999", NULL }, "expected an integer from 0 to 9223372036854775807" },
        { { "--seed", " 7", NULL }, "expected an integer from 0" },
        { { "--jobs", " -1", NULL }, "expected an integer from 1" },
        { { "--schedules", "100001", NULL }, "expected an integer from 1 to 100000" },
        { { "--out", "", NULL }, "--out: expected a folder name" },
        { { "--out", file, NULL }, "expected a folder" },
        { { "--out", lng, NULL }, "--out: path too long (1024 characters; at most 991)" },
        { { "--out", foreign, NULL }, "the folder holds files that are not an earlier campaign's" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char dir[1024], log[1100];
        int rc;
        json_t *j = campaign(bad[i].args, &rc, dir, sizeof dir);
        snprintf(log, sizeof log, "%s.log", dir);
        char *text = e2e_read(log);
        cr_expect_eq(rc, 2, "%s '%s': exit %d:\n%s", bad[i].args[0], bad[i].args[1], rc, text);
        cr_expect(text && strstr(text, bad[i].want), "%s '%s': '%s' not in:\n%s", bad[i].args[0], bad[i].args[1],
                  bad[i].want, text);
        cr_expect_null(j, "%s '%s': a campaign ran", bad[i].args[0], bad[i].args[1]);
        json_decref(j);
        free(text);
    }
    cr_expect_neq(access("/tmp/gauntlet-camp-long", F_OK), 0, "a shortened path was created");
    char *kept = e2e_read(fp);
    cr_expect(kept && strcmp(kept, "{\"mine\": 1}\n") == 0, "the folder's own campaign.json stays: %s", kept);
    free(kept);
}

/* The checker itself: a run whose fingerprint detector is off misses a weights flip; the check says so. */
Test(campaign, the_checker_catches_a_missed_visible_fault, .timeout = 60)
{
    const char *out = e2e_outdir();
    const char *path = e2e_scenario("name: miss\nranks: 4\niterations: 20\nseed: 3\n"
                                    "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                                    "recovery: restart\n"
                                    "faults:\n  - {kind: bitflip, at: 5, rank: 1, target: weights, where: exponent}\n");
    int rc = e2e_run("/dev/null", (const char *[]){ "run", path, "--backend", "sim", "--headless", "--out", out, NULL });
    struct cp_sched sc = { .n = 1, .f = { { .kind = CK_BITFLIP, .rank = 1, .at = 5, .target = 2, .where = 2 } } };
    struct cp_shape sh = { .ranks = 4, .iterations = 20, .ckpt_every = 4, .hb_timeout_s = 1, .persist = 3 };
    struct cp_result res = { 0 };
    struct cp_stats st = { .missed = json_array() };
    cp_check_run(out, rc, &sc, &sh, 0, "restart", &res, &st);
    cr_expect_eq(res.broken, 1, "broken %d: %s", res.broken, res.why);
    cr_expect(strstr(res.why, "missed, expected by fingerprint"), "%s", res.why);
    cr_expect_eq(st.visible[CK_BITFLIP], 1);
    cr_expect_eq(st.caught[CK_BITFLIP], 0);
    json_decref(st.missed);
    free(st.detect_s[0]);
    free(st.recover_s[0]);
}

/* A campaign on a machine whose /dev/shm is full: every run ends exit 3 before any fault fires, and a campaign that
 * counted that as "shrink ran out of ranks" (its reason, "No space left on device", has "left" in it) passed with
 * nothing tested. A private mount namespace gives the campaign a full /dev/shm of its own. */
Test(campaign, a_full_dev_shm_is_broken_never_a_pass, .timeout = 300)
{
    char dir[1024], log_path[1100];
    str_copy(dir, sizeof dir, e2e_outdir());
    snprintf(log_path, sizeof log_path, "%s.log", dir);
    int pfd[2];
    cr_assert_eq(pipe(pfd), 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        char why[200] = "";
        if (unshare(CLONE_NEWNS) != 0)
            snprintf(why, sizeof why, "unshare(CLONE_NEWNS): %s", strerror(errno));
        else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
            snprintf(why, sizeof why, "mount --make-rprivate /: %s", strerror(errno));
        else if (mount("gauntlet-full", "/dev/shm", "tmpfs", 0, "size=64k") != 0)
            snprintf(why, sizeof why, "mount tmpfs on /dev/shm: %s", strerror(errno));
        if (why[0]) {   /* no mount namespace here (not root, or a container without CAP_SYS_ADMIN) */
            if (write(pfd[1], why, strlen(why)) < 0)
                _exit(98);
            _exit(99);
        }
        close(pfd[1]);
        int fd = open("/dev/shm/filler", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char block[4096] = { 1 };
        while (fd >= 0 && write(fd, block, sizeof block) > 0)
            ;
        const char *argv[] = { "campaign", "--out", dir, "--schedules", "4", "--recovery", "shrink,restart", "--jobs",
                               "2", "--seed", "5", NULL };
        _exit(e2e_run(log_path, argv));
    }
    close(pfd[1]);
    char why[200] = "";
    ssize_t got = read(pfd[0], why, sizeof why - 1);
    close(pfd[0]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 99)
        cr_skip_test("no private mount namespace for a full /dev/shm: %s", got > 0 ? why : "?");
    char *log = e2e_read(log_path);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 0, "a campaign on a full /dev/shm passed:\n%s", log);
    cr_expect(strstr(log, "invariants: BROKEN"), "%s", log);
    cr_expect(!strstr(log, "all held"), "%s", log);
    char path[1100];
    snprintf(path, sizeof path, "%s/campaign.json", dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    cr_assert(j, "%s: %s", path, err.text);
    cr_expect_gt(json_integer_value(json_object_get(j, "broken")), 0);
    /* the count is the list's: every broken invariant of every run (it once said 18 and listed 5, a run's first) */
    cr_expect_eq(json_integer_value(json_object_get(j, "broken")),
                 (json_int_t)json_array_size(json_object_get(j, "broken_invariants")));
    json_decref(j);
    free(log);
}

/* A run's summary names why it stopped as a code the checker reads: completed, shrink_exhausted, ... */
Test(campaign, the_summary_says_why_a_run_stopped, .timeout = 60)
{
    const char *out = e2e_outdir();
    const char *ok = e2e_scenario("name: ok\nranks: 2\niterations: 4\nseed: 3\n"
                                  "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n");
    int rc = e2e_run("/dev/null", (const char *[]){ "run", ok, "--backend", "sim", "--headless", "--out", out, NULL });
    cr_assert_eq(rc, 0);
    json_t *s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "completed");
    json_decref(s);
    const char *gone = e2e_scenario("name: gone\nranks: 2\niterations: 40\nseed: 3\n"
                                    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                                    "recovery: shrink\n"
                                    "faults:\n  - {kind: crash, at: 5, rank: 1}\n  - {kind: crash, at: 10, rank: 0}\n");
    rc = e2e_run("/dev/null", (const char *[]){ "run", gone, "--backend", "sim", "--headless", "--out", out, NULL });
    cr_expect_eq(rc, 1);
    s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "shrink_exhausted", "stopped: %s",
                     json_string_value(json_object_get(s, "stopped")));
    json_decref(s);
    const char *none = e2e_scenario("name: none\nranks: 2\niterations: 40\nseed: 3\n"
                                    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                                    "recovery: none\nfaults:\n  - {kind: crash, at: 5, rank: 1}\n");
    rc = e2e_run("/dev/null", (const char *[]){ "run", none, "--backend", "sim", "--headless", "--out", out, NULL });
    cr_expect_eq(rc, 1);
    s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "fault");
    json_decref(s);
}

/* A x10 straggler on rank 1 of 4 at iteration 4 for duration_ms, on the campaign's sim shape, with a detector that
 * wants run_persist slow phases in a row, run (exit 0) and checked as the campaign would (which expects 3). */
static void straggler_checked(const char *name, int run_persist, int duration_ms, struct cp_result *res, struct cp_stats *st)
{
    char text[1024], log[1100];
    snprintf(text, sizeof text, "name: %s\nranks: 4\niterations: 12\nseed: 7\n"
             "workload:\n  gemm: { m: 1024, n: 1024, k: 1024, count: 2 }\n  allreduce: { bytes: 64KiB }\n"
             "sim: { tflops: 1, max_elems: 4096, max_dim: 32 }\n"
             "detectors: [{ heartbeat: { factor: 2, min_excess: 25ms, persist: %d } }]\n"
             "faults:\n  - { kind: straggler, at: 4, rank: 1, factor: 10, duration: %dms }\n", name, run_persist, duration_ms);
    const char *out = e2e_outdir(), *yaml = e2e_scenario(text);
    snprintf(log, sizeof log, "%s.log", out);
    int rc = e2e_run(log, (const char *[]){ "run", yaml, "--backend", "sim", "--headless", "--out", out, NULL });
    cr_assert_eq(rc, 0, "see %s", log);
    struct cp_sched sc = { 1, { { .kind = CK_STRAGGLER, .rank = 1, .at = 4 } } };
    struct cp_shape sh = { .ranks = 4, .iterations = 12, .nodes = 1, .hb_timeout_s = 10, .straggler_factor = 10,
                           .straggler_s = duration_ms * 1e-3, .persist = 3 };
    *res = (struct cp_result){ 0 };
    *st = (struct cp_stats){ 0 };
    st->missed = json_array();
    cp_check_run(out, 0, &sc, &sh, 0, "restart", res, st);
}

/* A straggler the heartbeat missed is reported with what it takes to read why: the rank's compute phases from the
 * injection's iteration on against its peers' median, and when each began after the injection (a phase past the
 * fault's duration runs at full speed; a peer the host slowed lifts the median). Here the miss is real: the run's
 * detector wants 30 slow phases in a row, more than a 600 ms straggler makes, while the check expects 3. */
Test(campaign, a_missed_straggler_is_reported_with_its_phases, .timeout = 120)
{
    struct cp_result res;
    struct cp_stats st;
    straggler_checked("missed", 30, 600, &res, &st);
    cr_log_info("%s", res.why);
    cr_assert_eq(res.broken, 1, "one invariant broken: %s", res.why);
    cr_assert(strstr(res.why, "(straggler on rank 1 at 4) missed, expected by heartbeat; rank 1's compute phases"),
              "%s", res.why);
    const char *first = strstr(res.why, " 4: ");
    double mine, median, at;
    cr_assert(first && sscanf(first, " 4: %lf/%lf @%lf", &mine, &median, &at) == 3, "%s", res.why);
    cr_assert_gt(mine, 5 * median, "the slowed phase against its peers': %s", res.why);
    cr_assert(at > -0.05 && at < 0.05, "the first slowed phase begins at the injection: %s", res.why);
    json_decref(st.missed);
}

/* The check judges a straggler by what the record shows the detector could see: the heartbeat's rule replayed on the
 * record's compute phases. A 60 ms straggler at x10 slows two 43 ms phases at most, one short of the three in a row
 * the detector wants (a loaded host can cut a 600 ms one as short): borderline, named in the misses with why, not a
 * broken invariant; while the 600 ms one above, whose record shows the three, is broken when the detector misses it. */
Test(campaign, a_straggler_whose_record_shows_too_few_slow_phases_is_borderline, .timeout = 120)
{
    struct cp_result res;
    struct cp_stats st;
    straggler_checked("short", 3, 60, &res, &st);
    cr_assert_eq(res.broken, 0, "%s", res.why);
    cr_expect_eq(st.fired[CK_STRAGGLER], 1);
    cr_expect_eq(st.visible[CK_STRAGGLER], 0);
    cr_expect_eq(st.borderline[CK_STRAGGLER], 1);
    cr_expect_eq(st.caught[CK_STRAGGLER], 0, "the detector saw what the record does not show");
    cr_expect(res.det[0].borderline);
    cr_assert_eq(json_array_size(st.missed), 1);
    const char *why = json_string_value(json_object_get(json_array_get(st.missed, 0), "why"));
    int longest = -1;
    cr_expect(json_is_true(json_object_get(json_array_get(st.missed, 0), "borderline")));
    cr_assert(why && sscanf(why, "the record shows %d slow compute phase", &longest) == 1, "%s", why ? why : "(none)");
    cr_log_info("%s", why);
    cr_expect(longest >= 1 && longest < 3, "%s", why);
    json_decref(st.missed);
}

/* On several nodes a straggler is judged on its own node's record (events-node<N>.jsonl: node 0's events.jsonl holds
 * only the node's fold of its lines) against that node's ranks, as its node's supervisor judged it: a 2 s x10
 * straggler on node 1 is visible and caught. Read from node 0's file it would show no phase at all: borderline, and
 * a miss there would pass. */
Test(campaign, a_straggler_on_another_node_is_judged_on_that_nodes_record, .timeout = 180)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    const char *yaml = e2e_scenario("name: remote\nranks: 2\nnodes: 2\niterations: 16\nseed: 7\n"
                                    "workload:\n  gemm: { m: 1024, n: 1024, k: 1024, count: 2 }\n  allreduce: { bytes: 64KiB }\n"
                                    "sim: { tflops: 1, max_elems: 4096, max_dim: 32 }\n"
                                    "detectors: [{ heartbeat: { factor: 2, min_excess: 25ms, persist: 3 } }]\n"
                                    "faults:\n  - { kind: straggler, at: 4, rank: 3, factor: 10, duration: 2s }\n");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "timeout 150 mpirun --oversubscribe --allow-run-as-root -np 2 %s run %s --out %s --backend sim "
                              "--headless > %s.log 2>&1", GAUNTLET_BIN, yaml, out, out);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x: see %s.log", st, out);
    struct cp_sched sc = { 1, { { .kind = CK_STRAGGLER, .rank = 3, .at = 4 } } };
    struct cp_shape sh = { .ranks = 2, .iterations = 16, .nodes = 2, .hb_timeout_s = 10, .straggler_factor = 10,
                           .straggler_s = 2, .persist = 3 };
    struct cp_result res = { 0 };
    struct cp_stats st2 = { 0 };
    st2.missed = json_array();
    cp_check_run(out, 0, &sc, &sh, 0, "restart", &res, &st2);
    cr_assert_eq(res.broken, 0, "%s", res.why);
    cr_expect_eq(st2.fired[CK_STRAGGLER], 1);
    cr_expect_eq(st2.visible[CK_STRAGGLER], 1, "judged on node 1's record");
    cr_expect_eq(st2.borderline[CK_STRAGGLER], 0);
    cr_expect_eq(st2.caught[CK_STRAGGLER], 1);
    json_decref(st2.missed);
}

/* ---- the checker on hand-made records (campaign_check.c's functions on files written here) ---- */

#define FAKE_EVENTS "{\"t_s\":0.0,\"event\":\"start\"}\n{\"t_s\":0.01,\"event\":\"worker_start\",\"rank\":0,\"pid\":1}\n"
#define FAKE_POWER "t_s,rank,watts\n0.1,0,100\n"
/* A crash of rank RANK at ITER (a JSON number or null) recorded as KIND, caught by exit in its iteration. */
#define FAKE_CRASH(kind, rank, iter)                                                                                   \
    "{\"origin\":\"injected\",\"fault_spec\":0,\"kind\":\"" kind "\",\"rank\":" rank ",\"injected_iter\":" iter       \
    ",\"injected_t_s\":0.5,\"detected_by\":\"exit\",\"detection\":{\"detector\":\"exit\",\"rank\":" rank                \
    ",\"iter_seen\":5},\"detect_iters\":0,\"detect_s\":0.01,\"recover_s\":0.02}"

/* Writes name into dir with text (NULL: left out). */
static void fake_file(const char *dir, const char *name, const char *text)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!text)
        return;
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s: %s", path, strerror(errno));
    cr_assert(fputs(text, f) >= 0 && fclose(f) == 0);
}

/* A run folder made here: events.jsonl, power.csv, and summary.json of a run that completed with faults (the inside
 * of its array) and fingerprints_agree agree. */
static const char *fake_run(const char *events, const char *power, const char *faults, int agree)
{
    const char *dir = e2e_outdir();
    char sum[4096];
    cr_assert_eq(mkdir(dir, 0755), 0, "%s: %s", dir, strerror(errno));
    snprintf(sum, sizeof sum, "{\"stop\":\"completed\",\"stopped\":\"completed\",\"runs\":[{\"state_fingerprint\":"
             "\"00ab\",\"fingerprints_agree\":%s,\"faults\":{\"stale_reports\":0,\"false_positive_detections\":[]}}],"
             "\"faults\":[%s]}\n", agree ? "true" : "false", faults);
    fake_file(dir, "events.jsonl", events);
    fake_file(dir, "power.csv", power);
    fake_file(dir, "summary.json", sum);
    return dir;
}

/* Checks dir (exit 0) as a campaign run of schedule sc on nodes nodes of 4 ranks; the count of broken invariants is
 * always the list's. */
static void fake_check(const char *dir, const struct cp_sched *sc, int nodes, struct cp_result *res)
{
    struct cp_shape sh = { .ranks = 4, .nodes = nodes, .iterations = 32, .ckpt_every = 4, .hb_timeout_s = 0.5,
                           .straggler_factor = 10, .straggler_s = 0.6, .persist = 3 };
    struct cp_stats st = { .missed = json_array() };
    *res = (struct cp_result){ 0 };
    cp_check_run(dir, 0, sc, &sh, 0, "restart", res, &st);
    cr_assert_eq(res->broken, (int)json_array_size(res->whys), "%s: %d broken, %zu listed", dir, res->broken,
                 json_array_size(res->whys));
    json_decref(st.missed);
    free(st.detect_s[0]);
    free(st.recover_s[0]);
}

/* Whether one of res's broken invariants says want. */
static int fake_says(const struct cp_result *res, const char *want)
{
    size_t i;
    json_t *w;
    json_array_foreach(res->whys, i, w)
        if (strstr(json_string_value(w), want))
            return 1;
    return 0;
}

static const struct cp_sched fake_crash_sched = { 1, { { .kind = CK_CRASH, .rank = 1, .at = 5 } } };

/* An injected fault caught with no detection time recorded breaks an invariant (every injected fault's detection has
 * its times); until 2026-12-02 the missing times read as 0: caught at once, within every bound. */
Test(checker, a_detection_without_its_times_is_broken)
{
    struct cp_result res;
    const char *dir = fake_run(FAKE_EVENTS, FAKE_POWER,
                               "{\"origin\":\"injected\",\"fault_spec\":0,\"kind\":\"crash\",\"rank\":1,"
                               "\"injected_iter\":5,\"injected_t_s\":0.5,\"detected_by\":\"exit\",\"detection\":"
                               "{\"detector\":\"exit\",\"rank\":1,\"iter_seen\":5},\"detect_iters\":null,"
                               "\"detect_s\":null,\"recover_s\":0.02}", 1);
    fake_check(dir, &fake_crash_sched, 1, &res);
    cr_expect(fake_says(&res, "caught by exit with no detection time recorded"), "%s", res.why);
    json_decref(res.whys);
}

/* A fault of a rank shrink dropped is excused for never firing only from where the run went on without it (the
 * recovery's from_iter: a fault of the timeline abandoned there was undone with it); one scheduled before, which the
 * surviving timeline should hold, never fired: broken (until 2026-12-02 any fault of a rank dropped at any time was
 * excused). */
Test(checker, a_dropped_ranks_fault_is_excused_only_from_where_the_run_went_on)
{
    static const struct cp_sched sched = { 3, { { .kind = CK_CRASH, .rank = 1, .at = 20 },
                                                { .kind = CK_BITFLIP, .rank = 1, .at = 5 },
                                                { .kind = CK_BITFLIP, .rank = 1, .at = 17 } } };
    struct cp_result res;
    const char *dir = fake_run(FAKE_EVENTS "{\"t_s\":1.0,\"event\":\"recovery_begin\",\"rank\":1,\"iter\":20}\n"
                               "{\"t_s\":1.1,\"event\":\"rank_dropped\",\"rank\":1,\"ranks_left\":3}\n"
                               "{\"t_s\":1.2,\"event\":\"recovery_end\",\"from_iter\":15}\n",
                               FAKE_POWER, FAKE_CRASH("crash", "1", "20"), 1);
    fake_check(dir, &sched, 1, &res);
    cr_expect(fake_says(&res, "fault 1 (bitflip on rank 1 at 5) never fired"), "%s", res.why);
    cr_expect(!fake_says(&res, "fault 2 (bitflip on rank 1 at 17) never fired"), "%s", res.why);
    json_decref(res.whys);
}

/* Every broken invariant of a run is kept, in order, and moved whole into the campaign's list: the count printed and
 * written is the list's (it once counted 18 and listed 5: only a run's first reason was kept). */
Test(checker, every_broken_invariant_of_a_run_is_kept_and_listed)
{
    struct cp_result res;
    fake_check(fake_run(FAKE_EVENTS, FAKE_POWER, FAKE_CRASH("crash", "1", "5"), 1), &fake_crash_sched, 1, &res);
    cr_expect_eq(res.broken, 0, "a record as scheduled, caught in time: %s", res.why);
    json_decref(res.whys);
    /* a torn power.csv, a detection no fault explains, a scheduled fault that never fired (and so none fired): four */
    const char *dir = fake_run(FAKE_EVENTS, FAKE_POWER "0.2,0",
                               "{\"origin\":\"observed\",\"kind\":\"straggler\",\"rank\":2,\"detected_by\":\"heartbeat\"}", 1);
    fake_check(dir, &fake_crash_sched, 1, &res);
    char *all = json_dumps(res.whys, 0);
    cr_assert_eq(res.broken, 4, "%s", all);
    free(all);
    cr_expect(fake_says(&res, "power.csv line 3"));
    cr_expect(fake_says(&res, "a detection no fault explains"));
    cr_expect(fake_says(&res, "fault 0 (crash on rank 1 at 5) never fired"));
    cr_expect(fake_says(&res, "none of the 1 scheduled faults fired"));
    cr_expect_str_eq(res.why, json_string_value(json_array_get(res.whys, 0)), "why is the first");
    json_t *breaks = json_array();
    cr_expect_eq(cp_broke_run(breaks, "s00007-restart", &res), 4);
    cr_expect_eq(json_array_size(breaks), 4, "every one listed");
    for (size_t i = 0; i < json_array_size(breaks); i++)
        cr_expect_str_eq(json_string_value(json_object_get(json_array_get(breaks, i), "run")), "s00007-restart");
    cr_expect_null(res.whys, "moved, not copied");
    json_decref(breaks);
}

/* A fault's record is compared with the fault its schedule placed: its kind, its rank and its iteration (on one node
 * exactly; on several, the scheduled one or the next: a fault sent to another node may land an iteration later). A
 * record that differs in any is a broken invariant; one that matches breaks nothing. */
Test(checker, a_record_not_as_the_schedule_placed_it_is_broken)
{
    const char *kinds[] = { "crash", "hang" }, *ranks[] = { "1", "2" }, *iters[] = { "4", "5", "6", "7", "null" };
    for (int nodes = 1; nodes <= 2; nodes++)
        for (size_t k = 0; k < 2; k++)
            for (size_t r = 0; r < 2; r++)
                for (size_t i = 0; i < 5; i++) {
                    char fault[512];
                    snprintf(fault, sizeof fault, FAKE_CRASH("%s", "%s", "%s"), kinds[k], ranks[r], iters[i], ranks[r]);
                    int iter = strcmp(iters[i], "null") ? atoi(iters[i]) : -1;
                    int as = k == 0 && r == 0 && iter >= 5 && iter <= 5 + (nodes > 1);
                    struct cp_result res;
                    fake_check(fake_run(FAKE_EVENTS, FAKE_POWER, fault, 1), &fake_crash_sched, nodes, &res);
                    int said = fake_says(&res, "fault 0's record is not the fault scheduled");
                    cr_expect_eq(said, !as, "nodes %d, %s on rank %s at %s: %s", nodes, kinds[k], ranks[r], iters[i],
                                 res.broken ? res.why : "nothing broken");
                    cr_expect_eq(res.broken, !as, "nodes %d, %s on rank %s at %s: %d broken (%s)", nodes, kinds[k],
                                 ranks[r], iters[i], res.broken, res.why);
                    json_decref(res.whys);
                }
}

/* A flip no detector saw whose state a later recovery rolled back is missed by design, and the run's final state is
 * still judged: it once set "a fault that changed the state went undetected", which turned off the comparison with
 * the fault-free run and the check that every rank ended alike. */
Test(checker, a_rolled_back_unseen_flip_keeps_the_final_state_checks)
{
    static const struct cp_sched sc = { 1, { { .kind = CK_BITFLIP, .rank = 1, .at = 5, .target = 2, .where = 2 } } };
#define FLIP(extra)                                                                                                    \
    "{\"origin\":\"injected\",\"fault_spec\":0,\"kind\":\"bitflip\",\"rank\":1,\"injected_iter\":5,\"injected_t_s\":0.5," \
    "\"target\":\"weights\",\"bits\":[30],\"bit_class\":\"exponent\",\"detected_by\":null" extra "}"
    struct cp_result res;
    fake_check(fake_run(FAKE_EVENTS, FAKE_POWER, FLIP(",\"rolled_back\":true"), 1), &sc, 1, &res);
    cr_expect_eq(res.broken, 0, "%s", res.why);
    cr_expect_eq(res.effect_missed, 0, "its effect went with the state: the final state is compared");
    json_decref(res.whys);
    fake_check(fake_run(FAKE_EVENTS, FAKE_POWER, FLIP(",\"rolled_back\":true"), 0), &sc, 1, &res);
    cr_expect(fake_says(&res, "a corruption outlived its recovery"), "ranks that end apart are broken: %s", res.why);
    json_decref(res.whys);
    fake_check(fake_run(FAKE_EVENTS, FAKE_POWER, FLIP(""), 1), &sc, 1, &res);   /* not rolled back: carried to the end */
    cr_expect_eq(res.effect_missed, 1);
    cr_expect(fake_says(&res, "missed, expected by fingerprint"), "%s", res.why);
    json_decref(res.whys);
#undef FLIP
}

/* "Every results file whole" holds only of a record that holds something: an empty or header-only power.csv, and an
 * events.jsonl without worker_start lines (whose workers nobody then checks), are broken. */
Test(checker, an_empty_record_is_not_whole)
{
    struct {
        const char *events, *power, *want;
    } bad[] = {
        { FAKE_EVENTS, "", "power.csv has nothing in it" },
        { FAKE_EVENTS, "t_s,rank,watts\n", "power.csv has only its header" },
        { "", FAKE_POWER, "names no worker" },
        { "{\"t_s\":0.0,\"event\":\"start\"}\n", FAKE_POWER, "names no worker" },
        { FAKE_EVENTS "{\"t_s\":0.2,\n{\n", FAKE_POWER, "events.jsonl: 2 lines of 4 do not parse, the first line 3" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct cp_result res;
        fake_check(fake_run(bad[i].events, bad[i].power, FAKE_CRASH("crash", "1", "5"), 1), &fake_crash_sched, 1, &res);
        cr_expect_eq(res.broken, 1, "case %zu: %d broken: %s", i, res.broken, res.why);
        cr_expect(fake_says(&res, bad[i].want), "case %zu: '%s' not in: %s", i, bad[i].want, res.why);
        json_decref(res.whys);
    }
}

/* Every worker a record names is checked for outliving its supervisor, however many (64 ranks over 6 generations
 * under restart are 384; a list of 256 once dropped the rest unchecked): here the 300th is a live `__worker` whose
 * parent is no `gauntlet run`. */
Test(checker, every_worker_of_a_record_is_checked, .timeout = 30)
{
    pid_t orphan = fork();
    cr_assert(orphan >= 0);
    if (orphan == 0) {
        execl("/bin/sleep", "__worker", "30", (char *)NULL);
        _exit(127);
    }
    char *events = malloc(300 * 80 + 64), *p = events;
    cr_assert(events);
    p += sprintf(p, "{\"t_s\":0.0,\"event\":\"start\"}\n");
    for (int i = 0; i < 300; i++)
        p += sprintf(p, "{\"t_s\":0.01,\"event\":\"worker_start\",\"rank\":%d,\"pid\":%d}\n", i % 64,
                     i == 299 ? (int)orphan : 1);
    for (int tries = 0; tries < 200; tries++) {   /* until the child is sleep (its cmdline says __worker) */
        char path[64], buf[64] = "";
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)orphan);
        if (read_small(path, buf, sizeof buf) > 0 && strcmp(buf, "__worker") == 0)
            break;
        sleep_ns(10000000);
    }
    struct cp_result res;
    fake_check(fake_run(events, FAKE_POWER, FAKE_CRASH("crash", "1", "5"), 1), &fake_crash_sched, 1, &res);
    kill(orphan, SIGKILL);
    waitpid(orphan, NULL, 0);
    free(events);
    char want[64];
    snprintf(want, sizeof want, "1 worker outlived its supervisor: pid %d", (int)orphan);
    cr_expect_eq(res.broken, 1, "%s", res.why);
    cr_expect(fake_says(&res, want), "'%s' not in: %s", want, res.why);
    json_decref(res.whys);
}

/* Writes rank's compute phase of iteration it, [t, t + dur] s, into f. */
static void fake_phase(FILE *f, int rank, int it, double t, double dur)
{
    fprintf(f, "{\"t_s\":%.6f,\"event\":\"phase_begin\",\"rank\":%d,\"run\":0,\"iter\":%d,\"phase\":\"compute\"}\n", t,
            rank, it);
    fprintf(f, "{\"t_s\":%.6f,\"event\":\"phase_end\",\"rank\":%d,\"run\":0,\"iter\":%d,\"phase\":\"compute\"}\n",
            t + dur, rank, it);
}

/* One iteration of 4 ranks from *t: the peers first (rank 0's ms, and ranks 2 and 3's; -1: none), then rank 1's. */
static void fake_iter(FILE *f, int it, double *t, double r0, double r23, double r1)
{
    fake_phase(f, 0, it, *t, r0 * 1e-3);
    for (int r = 2; r < 4 && r23 >= 0; r++)
        fake_phase(f, r, it, *t, r23 * 1e-3);
    fake_phase(f, 1, it, *t + 1e-4, r1 * 1e-3);
    *t += 0.4;
}

/* The straggler rule replayed on a record follows the supervisor's (faultlog.c): a recovery's new epoch, this node's
 * recovery_begin, starts the count and the peers' iterations again (faultlog_clear_windows), another node's does not,
 * and a rank shrink dropped is no peer. Before, the replay carried the count across the recovery (it "completed" at
 * 4 where the supervisor saw 2 slow phases, then 1) and took the dropped ranks' last phases into the median (seen at
 * 8 where the supervisor saw it at 6). */
Test(checker, the_straggler_replay_follows_recoveries_and_dropped_ranks)
{
    for (int other_node = 0; other_node < 2; other_node++) {
        const char *dir = e2e_outdir();
        char path[1100];
        cr_assert_eq(mkdir(dir, 0755), 0);
        snprintf(path, sizeof path, "%s/events.jsonl", dir);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        double t = 0, inj;
        for (int it = 0; it < 4; it++)
            fake_iter(f, it, &t, 5, 5, 5);
        inj = t;
        fake_iter(f, 4, &t, 5, 5, 100);
        fake_iter(f, 5, &t, 5, 5, 100);
        fprintf(f, "{\"t_s\":%.6f,\"event\":\"recovery_begin\",%s\"recovery\":\"restart\",\"rank\":2,\"iter\":5,"
                "\"epoch\":2}\n", t, other_node ? "\"node\":1," : "");
        t += 0.1;
        fake_iter(f, 4, &t, 5, 5, 100);   /* rolled back: the straggler's last slow phase */
        for (int it = 5; it < 12; it++)
            fake_iter(f, it, &t, 5, 5, 5);
        cr_assert_eq(fclose(f), 0);
        int longest = -1;
        int64_t seen = cp_straggler_rule(dir, 1, 4, inj, 3, &longest);
        if (other_node) {   /* node 1's recovery_begin in node 0's file: not this node's epoch */
            cr_expect_eq(seen, 4, "seen %lld, longest %d", (long long)seen, longest);
        } else {
            cr_expect_eq(seen, -1, "the supervisor saw 2 slow phases, then 1: seen %lld", (long long)seen);
            cr_expect_eq(longest, 2);
        }
    }
    const char *dir = e2e_outdir();
    char path[1100];
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    double t = 0, inj;
    for (int it = 0; it < 4; it++)
        fake_iter(f, it, &t, 5, 5, 5);
    inj = t;
    fake_phase(f, 0, 4, t, 5e-3);   /* ranks 2 and 3 end iteration 4 slowly and are dropped; rank 1 is slow on */
    fake_phase(f, 2, 4, t, 0.3);
    fake_phase(f, 3, 4, t, 0.3);
    fprintf(f, "{\"t_s\":%.6f,\"event\":\"rank_dropped\",\"rank\":2,\"ranks_left\":3}\n", t + 0.31);
    fprintf(f, "{\"t_s\":%.6f,\"event\":\"rank_dropped\",\"rank\":3,\"ranks_left\":2}\n", t + 0.31);
    fake_phase(f, 1, 4, t + 0.32, 0.1);
    t += 0.5;
    for (int it = 5; it < 12; it++)
        fake_iter(f, it, &t, 5, -1, 100);
    cr_assert_eq(fclose(f), 0);
    int longest = -1;
    int64_t seen = cp_straggler_rule(dir, 1, 4, inj, 3, &longest);
    cr_expect_eq(seen, 6, "slow against rank 0 alone from 4 on: seen %lld (longest %d)", (long long)seen, longest);
}

/* The campaign's quantiles sort each strategy's figures once (qsort: 400,000 detections in completion order took
 * an insertion sort ~1e10 steps), and a strategy without a detection shows "-" in the table, null in the file. */
Test(checker, quantiles_are_sorted_and_none_is_a_dash, .timeout = 60)
{
    enum { N = 400000 };
    struct cp_opts o = { .schedules = 1, .seed = 1, .nstrat = 2, .strat = { "restart", "shrink" }, .out = "/tmp/x" };
    struct cp_stats st = { .missed = json_array(), .relaunched = json_array(), .not_started = json_array() };
    st.detect_s[0] = malloc(N * sizeof(double));
    cr_assert(st.detect_s[0]);
    for (int i = 0; i < N; i++)
        st.detect_s[0][i] = (N - i) * 1e-6;   /* descending: 0.4 s ... 1 us */
    st.n_detect[0] = st.cap_detect[0] = N;
    char out[] = "/tmp/gauntlet-camp-report-XXXXXX";
    int fd = mkstemp(out), saved = dup(1);
    cr_assert(fd >= 0 && saved >= 0);
    e2e_own(out);
    fflush(stdout);
    cr_assert(dup2(fd, 1) >= 0);
    uint64_t t0 = mono_ns();
    json_t *breaks = json_array(), *j = cp_report(&o, &st, 1.0, breaks);
    double took = (double)(mono_ns() - t0) * 1e-9;
    fflush(stdout);
    cr_assert(dup2(saved, 1) >= 0);
    close(saved);
    close(fd);
    char *text = e2e_read(out);
    unlink(out);
    cr_assert(text && j);
    cr_expect_lt(took, 10.0, "%.1f s to report", took);
    json_t *f0 = json_object_get(json_object_get(j, "strategies_figures"), "restart");
    json_t *f1 = json_object_get(json_object_get(j, "strategies_figures"), "shrink");
    cr_expect_float_eq(json_number_value(json_object_get(f0, "detect_p50_s")), 0.2, 1e-9);
    cr_expect_float_eq(json_number_value(json_object_get(f0, "detect_p99_s")), 0.396, 1e-9);
    for (int i = 1; i < N; i++)
        cr_assert_leq(st.detect_s[0][i - 1], st.detect_s[0][i], "sorted at %d", i);
    cr_expect(json_is_null(json_object_get(f1, "detect_p50_s")));
    cr_expect(!strstr(text, "nan"), "%s", text);
    const char *row = strstr(text, "  shrink ");
    cr_assert(row, "%s", text);
    char a[16], b[16], c[16], d[16];
    cr_expect_eq(sscanf(row, "  shrink %15s %15s %15s %15s", a, b, c, d), 4, "%s", row);
    cr_expect(!strcmp(a, "-") && !strcmp(b, "-") && !strcmp(c, "-") && !strcmp(d, "-"), "%s", row);
    row = strstr(text, "  restart ");
    cr_assert(row && sscanf(row, "  restart %15s %15s", a, b) == 2, "%s", text);
    cr_expect(!strcmp(a, "200.0ms") && !strcmp(b, "396.0ms"), "%s", row);
    free(text);
    json_decref(j);
    json_decref(breaks);
    json_decref(st.missed);
    json_decref(st.relaunched);
    json_decref(st.not_started);
    free(st.detect_s[0]);
}

/* campaign.json is written whole (temp file, fsync, rename): a write that fails leaves the earlier file as it was
 * and no temp file, and says the OS's error; a temp file a killed campaign left is swept once its writer is gone. */
Test(checker, campaign_json_is_written_whole)
{
    char dir[] = "/tmp/gauntlet-camp-json-XXXXXX", path[128], why[512], tmp[160];
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/campaign.json", dir);
    pid_t gone = fork();   /* a pid whose process is gone: a killed campaign's */
    cr_assert(gone >= 0);
    if (gone == 0)
        _exit(0);
    cr_assert_eq(waitpid(gone, NULL, 0), gone);
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)gone);
    fake_file(dir, strrchr(tmp, '/') + 1, "{\"schedu");
    json_t *j = json_pack("{s:i, s:i}", "schedules", 3, "broken", 0);
    cr_assert_eq(cp_write_json(path, j, why, sizeof why), 0, "%s", why);
    json_t *back = json_load_file(path, 0, NULL);
    cr_expect(json_equal(back, j));
    json_decref(back);
    cr_expect_neq(access(tmp, F_OK), 0, "the killed writer's temp file is swept");
    char *text = e2e_read(path);
    cr_expect(text && text[strlen(text) - 1] == '\n', "ends with a whole line");
    free(text);
    char missing[200];
    snprintf(missing, sizeof missing, "%s/no-such-folder/campaign.json", dir);
    cr_expect_eq(cp_write_json(missing, j, why, sizeof why), -1);
    cr_expect(strstr(why, "No such file or directory") && strstr(why, missing), "%s", why);
    char sub[160], subjson[200];   /* a folder where campaign.json goes: the rename fails, nothing is left */
    snprintf(sub, sizeof sub, "%s/d", dir);
    snprintf(subjson, sizeof subjson, "%s/campaign.json", sub);
    cr_assert_eq(mkdir(sub, 0755), 0);
    cr_assert_eq(mkdir(subjson, 0755), 0);
    cr_expect_eq(cp_write_json(subjson, j, why, sizeof why), -1);
    cr_expect(strstr(why, "Is a directory"), "%s", why);
    int left = 0;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "ls -a %s", sub);
    FILE *ls = popen(cmd, "r");
    char name[256];
    while (ls && fgets(name, sizeof name, ls))
        left += strstr(name, ".tmp.") != NULL;
    if (ls)
        pclose(ls);
    cr_expect_eq(left, 0, "no temp file left by a failed write");
    json_decref(j);
}

/* A folder an earlier campaign was killed in while it wrote campaign.json (its temp file beside the last one) is an
 * earlier campaign's: a campaign runs in it again and sweeps the temp file. */
Test(campaign, a_killed_campaigns_temp_file_does_not_lock_its_folder, .timeout = 120)
{
    char dir[1024], tmp[1100];
    int rc;
    json_decref(campaign((const char *[]){ "--schedules", "1", "--recovery", "restart", "--jobs", "2", NULL }, &rc, dir,
                         sizeof dir));
    cr_assert_eq(rc, 0);
    pid_t gone = fork();
    cr_assert(gone >= 0);
    if (gone == 0)
        _exit(0);
    cr_assert_eq(waitpid(gone, NULL, 0), gone);
    snprintf(tmp, sizeof tmp, "campaign.json.tmp.%d", (int)gone);
    fake_file(dir, tmp, "{\"sched");
    const char *argv[] = { "campaign", "--out", dir, "--schedules", "1", "--recovery", "restart", "--jobs", "2", NULL };
    char log[1100];
    snprintf(log, sizeof log, "%s.again.log", dir);
    rc = e2e_run(log, argv);
    char *text = e2e_read(log);
    cr_expect_eq(rc, 0, "%s", text);
    free(text);
    snprintf(tmp, sizeof tmp, "%s/campaign.json.tmp.%d", dir, (int)gone);
    cr_expect_neq(access(tmp, F_OK), 0, "swept");
}

/* A harness that dies in its set-up (by a signal, mpirun's 128 + n too, or with a sanitizer's report in its log)
 * crashed: that is a broken invariant, as a crash of the harness anywhere is (docs/architecture.md), never "not
 * started"; a launch that failed (mpirun's banner, a set-up that said why with exit 3, no log at all) is not. */
Test(checker, a_set_up_crash_is_told_from_a_failed_launch)
{
    struct {
        int code;
        const char *log, *want;   /* want NULL: a failed launch */
    } cases[] = {
        { 139, "", "died by signal 11" },
        { 134, NULL, "died by signal 6" },
        { 137, "a banner\n", "died by signal 9" },
        { 1, "x\n==77==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\nmore\n",
          "ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1" },
        { 1, "setup.c:12:3: runtime error: signed integer overflow\n", "runtime error: signed integer overflow" },
        { 1, "An ORTE daemon has unexpectedly failed after launch\n", NULL },
        { 3, "gauntlet: its set-up failed: cannot write power.csv: Is a directory\n", NULL },
        { 3, NULL, NULL },
        { 128, "", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *dir = e2e_outdir();
        char log[1100], why[400] = "";
        snprintf(log, sizeof log, "%s.log", dir);
        FILE *f = cases[i].log ? fopen(log, "w") : NULL;   /* the run's log, DIR.log (NULL: none) */
        cr_assert(!cases[i].log || (f && fputs(cases[i].log, f) >= 0 && fclose(f) == 0));
        int got = cp_setup_crashed(dir, cases[i].code, why, sizeof why);
        cr_expect_eq(got, cases[i].want != NULL, "case %zu (exit %d): %s", i, cases[i].code, why);
        if (cases[i].want)
            cr_expect(strstr(why, cases[i].want), "case %zu: '%s' not in '%s'", i, cases[i].want, why);
    }
}

/* End to end: the fault-free run's harness dies by SIGSEGV before its record begins; the campaign says BROKEN and
 * exits 1 (it was "not started", started again, and never reported as broken). */
Test(campaign, a_harness_that_dies_in_its_set_up_is_broken_not_unstarted, .timeout = 120)
{
    e2e_need_mpi();
    mpirun_that_fails("k");
    char dir[1024];
    int rc;
    json_t *j = campaign((const char *[]){ "--schedules", "1", "--nodes", "2", "--ranks", "2", "--recovery", "restart",
                                           "--seed", "3", "--jobs", "2", NULL },
                         &rc, dir, sizeof dir);
    char *log = campaign_log(dir);
    cr_expect_eq(rc, 1, "campaign exited %d:\n%s", rc, log);
    cr_expect(strstr(log, "BROKEN fault-free: the harness crashed in its set-up, before its record began: died by "
                          "signal 11"), "%s", log);
    cr_expect(!strstr(log, "starting it again"), "%s", log);
    free(log);
    cr_assert(j);
    cr_expect_eq(json_integer_value(json_object_get(j, "broken")), (json_int_t)json_array_size(json_object_get(j, "broken_invariants")));
    cr_expect_eq(json_array_size(json_object_get(j, "relaunched")), 0);
    cr_expect_eq(json_array_size(json_object_get(j, "not_started")), 0);
    json_decref(j);
}

/* A schedule's run whose harness died in its set-up has no detections: it is broken for that, and compared with no
 * other strategy's run (its detections read as detector 0, rank 0, iteration 0, and broke "detect differently" with
 * every other strategy, until 2026-12-02). */
Test(campaign, a_run_that_died_in_its_set_up_is_compared_with_none, .timeout = 120)
{
    e2e_need_mpi();
    mpirun_that_fails("-k");   /* the fault-free run as it is; the schedule's first run dies by SIGSEGV */
    char dir[1024];
    int rc;
    json_t *j = campaign((const char *[]){ "--schedules", "1", "--nodes", "2", "--ranks", "2", "--recovery",
                                           "restart,inprocess", "--seed", "3", "--jobs", "1", NULL },
                         &rc, dir, sizeof dir);
    char *log = campaign_log(dir);
    cr_expect_eq(rc, 1, "campaign exited %d:\n%s", rc, log);
    cr_expect(strstr(log, "the harness crashed in its set-up, before its record began: died by signal 11"), "%s", log);
    cr_expect(!strstr(log, "detect differently"), "a run with no record compared:\n%s", log);
    free(log);
    cr_assert(j);
    cr_expect_eq(json_integer_value(json_object_get(j, "broken")), 1, "the crash alone");
    json_decref(j);
}

/* ---- injections that changed nothing, and the comparison across strategies ---- */

/* Checks dir (exit 0) as a campaign run of schedule sc on one node of 4 ranks, the counts into *st (its missed list
 * made here; the caller frees it). */
static void fake_check_stats(const char *dir, const struct cp_sched *sc, struct cp_result *res, struct cp_stats *st)
{
    struct cp_shape sh = { .ranks = 4, .nodes = 1, .iterations = 32, .ckpt_every = 4, .hb_timeout_s = 0.5,
                           .straggler_factor = 10, .straggler_s = 0.6, .persist = 3 };
    *st = (struct cp_stats){ .missed = json_array() };
    *res = (struct cp_result){ 0 };
    cp_check_run(dir, 0, sc, &sh, 0, "restart", res, st);
    cr_assert_eq(res->broken, (int)json_array_size(res->whys));
}

/* A flip of a bit (random, sign, exponent, mantissa) always changes that bit: a record whose mask is empty, which no
 * detector saw, is an injection that did nothing — broken, counted as ineffective (before, "missed by design: no bit
 * changed", and a campaign whose flips had all turned into no-ops passed). A perturbation of the value may round to
 * the same value: that stays missed by design. */
Test(checker, a_flip_that_changed_no_bit_is_an_ineffective_injection)
{
#define NOFLIP(where)                                                                                                  \
    "{\"origin\":\"injected\",\"fault_spec\":0,\"kind\":\"bitflip\",\"rank\":1,\"injected_iter\":5,\"injected_t_s\":0.5," \
    "\"target\":\"weights\",\"where\":\"" where "\",\"bits\":[],\"bit_class\":null,\"detected_by\":null}"
    static const struct cp_sched exp_sc = { 1, { { .kind = CK_BITFLIP, .rank = 1, .at = 5, .target = 2, .where = 2 } } };
    static const struct cp_sched val_sc = { 1, { { .kind = CK_BITFLIP, .rank = 1, .at = 5, .target = 2, .where = 4,
                                                   .value = 1e-7 } } };
    struct cp_result res;
    struct cp_stats st;
    fake_check_stats(fake_run(FAKE_EVENTS, FAKE_POWER, NOFLIP("exponent"), 1), &exp_sc, &res, &st);
    cr_expect_eq(res.broken, 1, "%s", res.why);
    cr_expect(strstr(res.why, "fault 0 (bitflip on rank 1 at 5): injection ineffective: a flip (where exponent) whose "
                              "record changed no bit"), "%s", res.why);
    cr_expect_eq(res.ineffective, 1);
    cr_expect_eq(st.ineffective[CK_BITFLIP], 1);
    cr_expect_eq(st.by_design[CK_BITFLIP], 0, "not missed by design");
    cr_expect_eq(st.borderline[CK_BITFLIP], 0);
    cr_expect_eq(json_array_size(st.missed), 0);
    json_decref(res.whys);
    json_decref(st.missed);
    fake_check_stats(fake_run(FAKE_EVENTS, FAKE_POWER, NOFLIP("value"), 1), &val_sc, &res, &st);
    cr_expect_eq(res.broken, 0, "a value that rounds to itself: %s", res.why);
    cr_expect_eq(st.ineffective[CK_BITFLIP], 0);
    cr_expect_eq(st.by_design[CK_BITFLIP], 1);
    json_decref(res.whys);
    json_decref(st.missed);
#undef NOFLIP
}

/* A straggler whose record shows no slow compute phase at all after it, and that nothing saw, slowed nothing: an
 * injection that did nothing, broken and counted apart (before, borderline: "a loaded host's stretched peers", and a
 * straggler turned into a no-op passed). One that shows slow phases, too few in a row, stays borderline. */
Test(checker, a_straggler_that_slowed_nothing_is_an_ineffective_injection)
{
    static const struct cp_sched sc = { 1, { { .kind = CK_STRAGGLER, .rank = 1, .at = 4 } } };
    for (int slow = 0; slow <= 2; slow += 2) {   /* rank 1's slow phases after the injection: none, or two */
        const char *dir = e2e_outdir();
        char path[1100], fault[512];
        cr_assert_eq(mkdir(dir, 0755), 0);
        snprintf(path, sizeof path, "%s/events.jsonl", dir);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fputs(FAKE_EVENTS, f);
        double t = 0.1, inj = 0;
        for (int it = 0; it < 12; it++) {
            if (it == 4)
                inj = t;
            fake_iter(f, it, &t, 5, 5, it >= 4 && it < 4 + slow ? 100 : 5);
        }
        cr_assert_eq(fclose(f), 0);
        fake_file(dir, "power.csv", FAKE_POWER);
        snprintf(fault, sizeof fault, "{\"origin\":\"injected\",\"fault_spec\":0,\"kind\":\"straggler\",\"rank\":1,"
                 "\"injected_iter\":4,\"injected_t_s\":%.6f,\"detected_by\":null}", inj);
        char sum[2048];
        snprintf(sum, sizeof sum, "{\"stop\":\"completed\",\"stopped\":\"completed\",\"runs\":[{\"state_fingerprint\":"
                 "\"00ab\",\"fingerprints_agree\":true,\"faults\":{\"stale_reports\":0,\"false_positive_detections\":[]}}],"
                 "\"faults\":[%s]}\n", fault);
        fake_file(dir, "summary.json", sum);
        struct cp_result res;
        struct cp_stats st;
        fake_check_stats(dir, &sc, &res, &st);
        if (slow == 0) {
            cr_expect_eq(res.broken, 1, "%s", res.why);
            cr_expect(strstr(res.why, "fault 0 (straggler on rank 1 at 4): injection ineffective: the record shows no "
                                      "slow compute phase"), "%s", res.why);
            cr_expect_eq(st.ineffective[CK_STRAGGLER], 1);
            cr_expect_eq(st.borderline[CK_STRAGGLER], 0);
        } else {
            cr_expect_eq(res.broken, 0, "two slow phases of three: borderline, %s", res.why);
            cr_expect_eq(st.ineffective[CK_STRAGGLER], 0);
            cr_expect_eq(st.borderline[CK_STRAGGLER], 1);
        }
        json_decref(res.whys);
        json_decref(st.missed);
    }
}

/* The campaign's verdict on injections that changed nothing: counted in the table and campaign.json (by kind and in
 * all), each a broken invariant (exit 1), and said as such — "INJECTION INEFFECTIVE" when nothing else broke. */
Test(checker, a_campaign_whose_injections_changed_nothing_says_so)
{
    for (int others = 0; others <= 1; others++) {
        struct cp_opts o = { .schedules = 1, .seed = 1, .nstrat = 1, .strat = { "restart" }, .out = "/tmp/x" };
        struct cp_stats st = { .missed = json_array(), .relaunched = json_array(), .not_started = json_array() };
        st.ineffective[CK_STRAGGLER] = 1;
        json_t *breaks = json_array();
        json_array_append_new(breaks, json_pack("{s:s, s:s}", "run", "s00000-restart", "why",
                                                "fault 0 (straggler on rank 1 at 4): injection ineffective: ..."));
        if (others)
            json_array_append_new(breaks, json_pack("{s:s, s:s}", "run", "s00000-restart", "why", "something else"));
        char out[] = "/tmp/gauntlet-camp-inef-XXXXXX";
        int fd = mkstemp(out), saved = dup(1);
        cr_assert(fd >= 0 && saved >= 0);
        e2e_own(out);
        fflush(stdout);
        cr_assert(dup2(fd, 1) >= 0);
        json_t *j = cp_report(&o, &st, 1.0, breaks);
        fflush(stdout);
        cr_assert(dup2(saved, 1) >= 0);
        close(saved);
        close(fd);
        char *text = e2e_read(out);
        unlink(out);
        cr_assert(text && j);
        cr_expect_eq(json_integer_value(json_object_get(j, "ineffective")), 1);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_object_get(j, "by_kind"), "straggler"),
                                                        "ineffective")), 1);
        cr_expect_eq(json_integer_value(json_object_get(j, "broken")), 1 + others);
        if (others)
            cr_expect(strstr(text, "invariants: BROKEN (2 broken, 1 of them injection that changed nothing)"), "%s", text);
        else
            cr_expect(strstr(text, "invariants: INJECTION INEFFECTIVE (1 injection changed nothing, nothing else broke)"),
                      "%s", text);
        cr_expect(!strstr(text, "all held"), "%s", text);
        free(text);
        json_decref(j);
        json_decref(breaks);
        json_decref(st.missed);
        json_decref(st.relaunched);
        json_decref(st.not_started);
    }
}

/* The same detections under every strategy, checked pair by pair: with shrink first, a rank it dropped (or a run that
 * ran out of ranks) excuses the faults it touched for shrink's pairs only; restart and inprocess are still compared
 * with each other (before, each strategy was compared with the first alone, and their disagreement went unseen). */
Test(checker, every_pair_of_strategies_is_compared)
{
    static struct cp_opts o = { .schedules = 1, .nstrat = 3, .strat = { "shrink", "restart", "inprocess" } };
    static const struct cp_sched sc = { 2, { { .kind = CK_CRASH, .rank = 1, .at = 5 }, { .kind = CK_CRASH, .rank = 2,
                                                                                          .at = 9 } } };
    struct cp_result res[3] = { 0 };
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 2; k++)
            res[s].det[k] = (struct cp_det){ .spec = k, .detector = CD_EXIT, .rank = sc.f[k].rank,
                                             .iter_seen = sc.f[k].at, .iter_fired = sc.f[k].at };
    res[0].dropped = 1ull << 1 | 1ull << 2;   /* shrink dropped both ranks: nothing of it is compared */
    res[0].det[1].detector = -1;
    json_t *breaks = json_array();
    cr_expect_eq(cp_compare(&o, res, &sc, "s00000", breaks), 0, "alike");
    res[2].det[1] = (struct cp_det){ .spec = 1, .detector = CD_HEARTBEAT, .rank = 2, .iter_seen = 10, .iter_fired = 9 };
    cr_expect_eq(cp_compare(&o, res, &sc, "s00000", breaks), 1);
    cr_assert_eq(json_array_size(breaks), 1);
    const char *why = json_string_value(json_object_get(json_array_get(breaks, 0), "why"));
    cr_expect(strstr(why, "restart and inprocess detect differently: fault 1 (crash on rank 2 at 9)"), "%s", why);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(breaks, 0), "run")), "s00000");
    res[1].not_started = 1;   /* a run that never began is compared with nothing */
    cr_expect_eq(cp_compare(&o, res, &sc, "s00000", breaks), 0);
    json_decref(breaks);
}

/* A campaign stopped by SIGTERM (a job's time limit, an operator) tells its runs to stop, waits for them and removes
 * its checkpoint folder in /dev/shm, then dies of the signal as before: until 2026-11-30 it died at once and each
 * stopped campaign left /dev/shm/gauntlet-campaign-<pid> (and the checkpoints of its runs) behind. */
Test(campaign, a_stopped_campaign_leaves_nothing_in_dev_shm, .timeout = 120)
{
    struct stat st;
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode) || access("/dev/shm", W_OK) != 0)
        cr_skip_test("no writable /dev/shm: the campaign checkpoints elsewhere");
    char dir[1024], log[1100], shm[128];
    str_copy(dir, sizeof dir, e2e_outdir());
    snprintf(log, sizeof log, "%s.log", dir);
    pid_t p = e2e_start(log, (const char *[]){ "campaign", "--out", dir, "--schedules", "50", "--recovery", "restart",
                                               "--jobs", "2", NULL });
    snprintf(shm, sizeof shm, "/dev/shm/gauntlet-campaign-%d", (int)p);
    /* runs under way: the first schedule's run has begun its record (after the fault-free run, two at once) */
    int started = 0;
    for (int i = 0; i < 3000 && !started; i++) {
        char ev[1200];
        snprintf(ev, sizeof ev, "%s/runs/s00000-restart/events.jsonl", dir);
        started = access(ev, F_OK) == 0 && access(shm, F_OK) == 0;
        if (!started)
            usleep(10000);
    }
    cr_assert(started, "no run of the campaign began within 30 s");
    cr_assert_eq(kill(p, SIGTERM), 0);
    int rc = e2e_wait(p, 60);
    char *text = e2e_read(log);
    cr_expect_eq(rc, 128 + SIGTERM, "the campaign did not die of its SIGTERM (%d):\n%s", rc, text ? text : "");
    free(text);
    cr_expect_neq(access(shm, F_OK), 0, "%s is still there", shm);
}
