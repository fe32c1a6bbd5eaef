/* tests/test_recovery.c: the recovery machine's bookkeeping (harness/resilience/): what a mitigation run inherits from
 * the one before, when a timed fault comes due, a rank that dies while shrink's recovery backs off, and the figures a
 * fault's `recovered` event and its summary record give. Pure functions where the logic is pure; short sim runs of
 * the real executable where it takes processes. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "resilience.h"
#include "util.h"

/* Small, fast iterations; replicas every 2 (the campaign's shape). */
#define QUICK                                                                                                      \
    "ranks: 4\niterations: %d\nseed: 1\n"                                                                          \
    "workload:\n  gemm: { m: 1024, n: 1024, k: 1024, count: 2 }\n  allreduce: { bytes: 64KiB }\n"                  \
    "  checkpoint: { every: 4, bytes: 64KiB, path: @TMPDIR@ }\n"                               \
    "sim: { tflops: 1, max_elems: 4096, max_dim: 32 }\npower: { sample_hz: 50 }\n"                                 \
    "heartbeat: { interval: 10ms, timeout: 1s }\ndetectors: [fingerprint, abft]\n"

/* Runs text (--seed seed when > 0) into a new folder; returns the folder (static per call) and the exit code. */
static const char *run_text(const char *text, int seed, int *rc)
{
    const char *out = e2e_outdir();
    char sd[16];
    snprintf(sd, sizeof sd, "%d", seed);
    const char *args[] = { "run", e2e_scenario(text), "--backend", "sim", "--headless", "--out", out,
                           seed > 0 ? "--seed" : NULL, sd, NULL };
    *rc = e2e_run(e2e_log("test-recovery.log"), args);
    return out;
}

/* ---- the give-up counts are a mitigation run's own ---- */

/* Six runs, each with one crash of rank 1 at iteration 10 recovered from the replica of 10 (each run fires its faults
 * anew): a new run's counts start again, so none of them is futile nor a repeat. Within one run the same failures
 * still give up, as docs/faults.md says: the sixth in a row. */
Test(counts, a_run_begins_with_no_futile_or_repeated_failure)
{
    struct resilience fl = { 0 };
    recover_run_reset(&fl);
    for (int run = 0; run < 6; run++) {
        recover_run_reset(&fl);   /* faultlog_run_begin's */
        cr_assert_eq(recover_tally(&fl, 1, 10, 10), REC_GO_ON, "run %d", run);
        cr_expect_eq(fl.futile, 0, "run %d: the earlier run's restore point is not this run's", run);
        cr_expect_eq(fl.repeats, 1, "run %d", run);
        fl.restored = 1;   /* its recovery ended, restored at 10 */
        fl.restored_from = 10;
    }
    /* within one run: restored at 10 and failing before any iteration is done, five times, then the sixth gives up */
    recover_run_reset(&fl);
    cr_assert_eq(recover_tally(&fl, 1, 10, 10), REC_GO_ON);
    fl.restored = 1;
    fl.restored_from = 10;
    int verdict = REC_GO_ON, n = 1;
    while (verdict == REC_GO_ON && n < 20)
        verdict = recover_tally(&fl, 1, 10, 10), n++;
    cr_expect_eq(verdict, REC_GIVE_UP_FUTILE);
    cr_expect_eq(n, 6, "the sixth failure in a row gives up, not the %dth", n);
    /* a rank failing again and again at one point, each restore getting work done: the sixth gives up */
    recover_run_reset(&fl);
    verdict = REC_GO_ON, n = 0;
    while (verdict == REC_GO_ON && n < 20)
        verdict = recover_tally(&fl, 2, 25, 20 + n), n++;
    cr_expect_eq(verdict, REC_GIVE_UP_REPEAT);
    cr_expect_eq(n, 6);
}

/* The same through the real executable: seven mitigation runs, a crash of rank 1 at 10 in each. Before, run 2's crash
 * counted as futile against run 1's restore point, each run backed off twice as long as the one before (its recover_s
 * with it: 19 ms, then 129, 227, 421, 829), and the sixth run gave up: exit 1. */
Test(counts, every_mitigation_run_recovers_its_own_crash_without_backing_off, .timeout = 120)
{
    char text[2048];
    snprintf(text, sizeof text,
             "name: runs\n" QUICK "recovery: { inprocess: { replicate_every: 2 } }\n"
             "mitigations:\n  - none\n  - filler: { floor: 40%% }\n  - filler: { floor: 50%% }\n"
             "  - filler: { floor: 60%% }\n  - filler: { floor: 70%% }\n  - filler: { floor: 80%% }\n"
             "  - filler: { floor: 90%% }\nfaults:\n  - { kind: crash, at: 10, rank: 1 }\n",
             24);
    int rc;
    const char *out = run_text(text, 0, &rc);
    char *log = e2e_read(e2e_log("test-recovery.log"));
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, log);
    free(log);
    json_t *begins = e2e_events_of(out, "recovery_begin");
    cr_expect_eq(json_array_size(begins), 7, "one recovery a run");
    size_t i;
    json_t *b;
    json_array_foreach(begins, i, b)
        cr_expect_eq(json_number_value(json_object_get(b, "backoff_s")), 0.0, "run %zu's recovery backed off %g s", i,
                     json_number_value(json_object_get(b, "backoff_s")));
    json_decref(begins);
    json_t *s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "completed");
    json_decref(s);
}

/* ---- when a timed fault comes due ---- */

/* faultlog_due: a gap in double seconds, past any run (or not a number) never, and a sum that cannot wrap. */
Test(timers, a_due_time_never_wraps_and_never_comes_at_once)
{
    uint64_t now = 123456789012345ull;
    cr_expect_eq(faultlog_due(now, 0), now);
    cr_expect_eq(faultlog_due(now, 1.5), now + 1500000000ull);
    cr_expect_eq(faultlog_due(now, 3600.0 * 24 * 365), now + 31536000000000000ull, "a year fits");
    cr_expect_eq(faultlog_due(now, 1e12), FAULT_NEVER, "31,700 years: not in this run");
    cr_expect_eq(faultlog_due(now, 1.9e10), FAULT_NEVER, "past 2^64 ns: was (uint64_t) of it, 0 on x86-64: at once");
    cr_expect_eq(faultlog_due(now, INFINITY), FAULT_NEVER);
    cr_expect_eq(faultlog_due(now, NAN), FAULT_NEVER);
    cr_expect_eq(faultlog_due(now, -1), FAULT_NEVER);
    cr_expect_eq(faultlog_due(UINT64_MAX - 10, 1.0), FAULT_NEVER, "a sum that would wrap");
    cr_expect_eq(faultlog_rate_gap_s(0.5, 0), INFINITY);
    cr_expect_float_eq(faultlog_rate_gap_s(0.5, 3600), log(2.0), 1e-12, "rate 1/s: ln 2 s at the median");
}

/* The smallest rate the scenario takes (1e-9 an hour), 1e-8 and 1e-7: over the unit interval of draws (steps of 1e-5),
 * the fault comes over an hour after now, or never; never at once (before, most draws' gaps were past 2^64 ns and
 * converted to 0: due now). */
Test(timers, a_tiny_rate_never_fires_at_once)
{
    uint64_t now = 5000000000ull, hour = 3600ull * 1000000000ull;
    const double rates[] = { 1e-9, 1e-8, 1e-7 };
    for (size_t k = 0; k < sizeof rates / sizeof *rates; k++)
        for (int i = 1; i < 100000; i++) {
            double u = (double)i / 100000.0;
            uint64_t due = faultlog_due(now, faultlog_rate_gap_s(u, rates[k]));
            cr_assert(due == FAULT_NEVER || due > now + hour, "rate %g/h, u %g: due %.3g s after now", rates[k], u,
                      (double)(due - now) * 1e-9);
        }
}

/* The real executable: a crash at 1e-8 an hour on rank 2 never fires in a run of a fraction of a second (seeds 2 and 3
 * fired it 3 and 6 times: "the run gives up"). */
Test(timers, a_fault_at_a_tiny_rate_does_not_fire, .timeout = 60)
{
    char text[2048];
    snprintf(text, sizeof text, "name: rare\n" QUICK "recovery: { inprocess: { replicate_every: 2 } }\n"
             "faults:\n  - { kind: crash, rate_per_hour: 1e-8, rank: 2 }\n", 32);
    for (int seed = 2; seed <= 4; seed++) {
        int rc;
        const char *out = run_text(text, seed, &rc);
        cr_expect_eq(rc, 0, "seed %d: exit %d", seed, rc);
        json_t *inj = e2e_events_of(out, "fault_injected");
        cr_expect_eq(json_array_size(inj), 0, "seed %d: a fault of 1e-8 an hour fired %zu times", seed,
                     json_array_size(inj));
        json_decref(inj);
    }
}

/* ---- a rank that dies while shrink's recovery agrees or backs off ---- */

/* The pid of rank's first worker in dir's record (0: none). */
static pid_t pid_of(const char *dir, int rank)
{
    json_t *starts = e2e_events_of(dir, "worker_start"), *o;
    size_t i;
    pid_t pid = 0;
    json_array_foreach(starts, i, o)
        if (!pid && json_integer_value(json_object_get(o, "rank")) == rank)
            pid = (pid_t)json_integer_value(json_object_get(o, "pid"));
    json_decref(starts);
    return pid;
}

/* Under shrink the dead are dropped when the node proposes where to go on. A rank killed after that — while the
 * recovery backs off after futile failures (the kills here come each right after the recovery before ended, so the
 * waits grow: 0.1, 0.2, 0.4 s) — was joined to the recovery under way, told to go on dead, and the others waited for
 * it in their collective for ever (the run never ended). Now it has a recovery of its own, which drops it: the run
 * ends whole with the ranks left. Robust to timing: a kill that comes later than the wait is recovered as any. */
Test(shrink, a_rank_killed_while_the_recovery_backs_off_is_dropped_next, .timeout = 200)
{
    static const char text[] = "name: backoff\nranks: 8\niterations: 30\nseed: 1\n"
                               "workload:\n  gemm: { m: 1024, n: 1024, k: 1024, count: 2 }\n  allreduce: { bytes: 64KiB }\n"
                               "  checkpoint: { every: 4, bytes: 64KiB, path: @TMPDIR@ }\n"
                               "sim: { tflops: 0.04, max_elems: 4096, max_dim: 32 }\n"
                               "heartbeat: { interval: 10ms, timeout: 2s }\n"
                               "detectors: [{ heartbeat: { factor: 4, min_excess: 300ms } }]\n"
                               "recovery: { shrink: { replicate_every: 2 } }\n";
    const char *out = e2e_outdir(), *log = e2e_log("test-recovery-shrink.log");
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--out", out, "--backend", "sim", "--headless",
                                                 NULL });
    cr_assert_eq(e2e_wait_started(out, 8 * 3, 60), 0, "the run did not start; see %s", log);
    pid_t w[8];
    for (int r = 0; r < 8; r++)
        cr_assert_gt(w[r] = pid_of(out, r), 0, "rank %d's worker", r);
    cr_assert_eq(kill(w[1], SIGKILL), 0);
    for (int k = 2; k <= 4; k++) {   /* each right after the recovery before: futile, a longer wait each time */
        cr_assert_eq(e2e_wait_events(out, "recovery_end", k - 1, 60), 0, "recovery %d did not end; see %s", k - 1, log);
        cr_assert_eq(kill(w[k], SIGKILL), 0);
    }
    cr_assert_eq(e2e_wait_events(out, "rank_dropped", 4, 60), 0, "rank 4 was not dropped; see %s", log);
    kill(w[5], SIGKILL);   /* while the recovery that dropped rank 4 waits 0.4 s before it restarts the ranks */
    int rc = e2e_wait(sup, 90);
    if (rc < 0) {
        kill(sup, SIGKILL);
        e2e_wait(sup, 10);
    }
    char *text_log = e2e_read(log);
    cr_assert_eq(rc, 0, "exit %d (-1: still running after 90 s, the survivors waiting for a dead rank):\n%s", rc, text_log);
    free(text_log);
    json_t *s = e2e_summary(out), *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect(json_is_true(json_object_get(run, "complete")), "the run ended whole");
    cr_expect_eq(e2e_count_events(out, "rank_dropped"), 5, "ranks 1 to 5 dropped");
    cr_expect_eq(e2e_count_events(out, "recovery_begin"), e2e_count_events(out, "recovery_end"),
                 "every recovery that began ended");
    /* a recovery's end is stamped when it ends: never before the rank it dropped (one stamp for every state of a
     * step put recovery_end some microseconds before the rank_dropped written ahead of it, until 2026-12-02) */
    char path[1100];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *all = e2e_read(path), *save = NULL;
    double dropped_t = -1;
    int ends = 0;
    for (char *l = strtok_r(all, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        json_t *e = json_loads(l, 0, NULL);
        const char *type = json_string_value(json_object_get(e, "event"));
        double t = json_number_value(json_object_get(e, "t_s"));
        if (type && strcmp(type, "rank_dropped") == 0)
            dropped_t = t;
        if (type && strcmp(type, "recovery_end") == 0) {
            ends++;
            cr_expect_geq(t, dropped_t, "recovery_end at %.6f s, before the rank_dropped of %.6f s ahead of it", t,
                          dropped_t);
        }
        json_decref(e);
    }
    cr_expect_geq(ends, 5);
    free(all);
    json_decref(s);
}

/* ---- what a `recovered` event and the summary say of a fault no detector saw ---- */

/* A gradients flip on rank 1 (no detector sees it) and a crash of rank 1 after it, under shrink: the flip leaves with
 * its rank. Its `recovered` event said recover_s 23126.7 (seconds since boot: from a detection that never was) where
 * summary.json said null; with the flip in the iteration before the crash, restored from the replica of the flip's
 * iteration, it was also rolled back (its outcome overwritten, the run's left_with_rank 0). */
Test(record, a_fault_that_left_with_its_rank_has_no_recover_time_and_one_story, .timeout = 120)
{
    static const int at[][2] = { { 6, 10 }, { 10, 11 } };
    for (size_t c = 0; c < 2; c++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "name: left\n" QUICK "recovery: { shrink: { replicate_every: 2 } }\nfaults:\n"
                 "  - { kind: bitflip, at: %d, rank: 1, target: gradients, where: exponent }\n"
                 "  - { kind: crash, at: %d, rank: 1 }\n", 32, at[c][0], at[c][1]);
        int rc;
        const char *out = run_text(text, 0, &rc);
        cr_assert_eq(rc, 0, "flip at %d: exit %d", at[c][0], rc);
        json_t *s = e2e_summary(out), *faults = json_object_get(s, "faults"), *f;
        json_t *recs = e2e_events_of(out, "recovered"), *e;
        size_t i, j;
        int left = 0;
        json_array_foreach(faults, i, f) {
            int rb = json_is_true(json_object_get(f, "rolled_back")), lw = json_is_true(json_object_get(f, "left_with_rank"));
            cr_expect(!(rb && lw), "flip at %d: fault %lld both rolled back and left with its rank (%s)", at[c][0],
                      json_integer_value(json_object_get(f, "id")), json_string_value(json_object_get(f, "outcome")));
            left += lw;
            /* the event and the summary give the same recover_s: both null, or the same figure */
            json_array_foreach(recs, j, e) {
                if (json_integer_value(json_object_get(e, "fault")) != json_integer_value(json_object_get(f, "id")))
                    continue;
                json_t *a = json_object_get(e, "recover_s"), *b = json_object_get(f, "recover_s");
                cr_expect(json_is_null(a) == json_is_null(b), "flip at %d, fault %zu: event %s, summary %s", at[c][0], i,
                          json_dumps(a, JSON_ENCODE_ANY), json_dumps(b, JSON_ENCODE_ANY));
                if (json_is_number(a) && json_is_number(b))
                    cr_expect_float_eq(json_number_value(a), json_number_value(b), 1e-6);
                if (json_is_number(a))
                    cr_expect_lt(json_number_value(a), 60, "flip at %d, fault %zu: recover_s %g s", at[c][0], i,
                                 json_number_value(a));
            }
        }
        json_t *flip = e2e_injected_fault(s, 0);
        cr_assert(flip);
        cr_expect_str_eq(json_string_value(json_object_get(flip, "kind")), "bitflip");
        cr_expect(json_is_true(json_object_get(flip, "left_with_rank")), "flip at %d: %s", at[c][0],
                  json_string_value(json_object_get(flip, "outcome")));
        cr_expect(json_is_null(json_object_get(flip, "recover_s")));
        json_t *counts = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults");
        cr_expect_eq(json_integer_value(json_object_get(counts, "left_with_rank")), left, "flip at %d", at[c][0]);
        json_decref(recs);
        json_decref(s);
    }
}
