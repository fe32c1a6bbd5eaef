/* tests/test_recovery_events.c: the recovery events no other test makes a run write, each from a sim run of the real
 * executable whose order of events the scenario (or the test, holding a crash at its point) fixes, never the
 * scheduler: detection_abandoned and fault_undone (two findings of one fingerprint vote), hung_in_recovery (two ranks
 * hung at one iteration), seen_during_recovery (a crash held until a recovery is stopping the ranks). Each is checked
 * for the fields docs/results.md gives it and for what docs/faults.md says follows: the fault fires again on the new
 * timeline and counts once, a hung rank is replaced, the run ends whole. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

/* Small, fast iterations; replicas every 2. The flips are values times 1001: every fingerprint shows them. */
#define BASE                                                                                                       \
    "ranks: 4\niterations: 24\nseed: 1\n"                                                                          \
    "workload:\n  gemm: { m: 1024, n: 1024, k: 1024, count: 2 }\n  allreduce: { bytes: 64KiB }\n"                  \
    "sim: { tflops: 1, max_elems: 4096, max_dim: 32 }\npower: { sample_hz: 50 }\n"                                 \
    "recovery: { inprocess: { replicate_every: 2 } }\n"

static json_int_t ival(json_t *o, const char *key) { return json_integer_value(json_object_get(o, key)); }

/* The keys of event e are exactly the NULL-ended list (and t_s, event): docs/results.md's row, no more, no fewer. */
static void has_fields(json_t *e, const char *const *keys)
{
    size_t n = 0;
    for (; keys[n]; n++)
        cr_expect(json_object_get(e, keys[n]), "%s has no %s", json_dumps(e, JSON_COMPACT), keys[n]);
    cr_expect_eq(json_object_size(e), n + 2, "%s: fields not as documented", json_dumps(e, JSON_COMPACT));
}

/* The fault_injected events of fault_spec spec, in order (new reference). */
static json_t *injected_of(const char *dir, int spec)
{
    json_t *all = e2e_events_of(dir, "fault_injected"), *a = json_array(), *e;
    size_t i;
    json_array_foreach(all, i, e)
        if (ival(e, "fault_spec") == spec)
            json_array_append(a, e);
    json_decref(all);
    return a;
}

/* The detection of fault id (NULL: none; borrowed from arr). */
static json_t *detection_of(json_t *arr, json_int_t id)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
        if (json_is_integer(json_object_get(e, "fault")) && ival(e, "fault") == id)
            return e;
    return NULL;
}

/* The run's one record: complete, every iteration, the fingerprints agreeing; stop completed. */
static void ended_whole(json_t *s, int iters, const char *log)
{
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "completed", "see %s", log);
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect(json_is_true(json_object_get(run, "complete")), "the run ended whole; see %s", log);
    cr_expect_eq(ival(run, "iterations"), iters, "see %s", log);
    cr_expect(json_is_true(json_object_get(run, "fingerprints_agree")), "the ranks ended in different states");
}

static const char *run_text(const char *text, const char *log, int *rc)
{
    const char *out = e2e_outdir();
    *rc = e2e_run(log, (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--headless", "--out", out,
                                         NULL });
    return out;
}

/* ---- detection_abandoned and fault_undone ---- */

/* Ranks 1 and 2 have their reduced buffers corrupted at iteration 10: the one vote of iteration 10 (it waits for every
 * rank's fingerprint, each sent after its rank's flip) finds both in one pass. The earlier failure, rank 1's (the
 * first found of one iteration), is recovered; rank 2's is abandoned (detection_abandoned: for_iter 10) and, as it
 * fired at the failure's iteration, undone at the rollback (fault_undone); it fires again on the new timeline, is
 * detected there and recovered: summary.json has each fault once, and the run ends in the fault-free run's state. */
Test(recovery_events, two_findings_of_one_pass_abandon_the_later_and_undo_its_fault, .timeout = 120)
{
    const char *log = e2e_log("abandoned.log");
    char text[2048];
    snprintf(text, sizeof text, "name: abandoned\n" BASE "detectors: [fingerprint]\nfaults:\n"
             "  - { kind: bitflip, at: 10, rank: 1, target: allreduce-buffer, where: value, value: 1000 }\n"
             "  - { kind: bitflip, at: 10, rank: 2, target: allreduce-buffer, where: value, value: 1000 }\n");
    int rc;
    const char *out = run_text(text, log, &rc);
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, log);
    json_t *first = injected_of(out, 0), *second = injected_of(out, 1);
    cr_assert_eq(json_array_size(first), 1, "rank 1's flip caused the recovery: it does not fire again");
    cr_assert_eq(json_array_size(second), 2, "rank 2's flip fires again on the new timeline; see %s", log);
    json_int_t id1 = ival(json_array_get(first, 0), "id"), id2 = ival(json_array_get(second, 0), "id"),
               id2b = ival(json_array_get(second, 1), "id");

    json_t *ab = e2e_events_of(out, "detection_abandoned");
    cr_assert_eq(json_array_size(ab), 1, "see %s", log);
    json_t *a = json_array_get(ab, 0);
    has_fields(a, (const char *[]){ "fault", "rank", "iter", "for_iter", NULL });
    cr_expect_eq(ival(a, "fault"), id2);
    cr_expect_eq(ival(a, "rank"), 2);
    cr_expect_eq(ival(a, "iter"), 10);
    cr_expect_eq(ival(a, "for_iter"), 10);

    json_t *un = e2e_events_of(out, "fault_undone");
    cr_assert_eq(json_array_size(un), 1, "see %s", log);
    json_t *u = json_array_get(un, 0);
    has_fields(u, (const char *[]){ "id", "fault_spec", "rank", "iter", "failure_iter", NULL });
    cr_expect_eq(ival(u, "id"), id2);
    cr_expect_eq(ival(u, "fault_spec"), 1);
    cr_expect_eq(ival(u, "rank"), 2);
    cr_expect_eq(ival(u, "iter"), 10);
    cr_expect_eq(ival(u, "failure_iter"), 10);

    /* the first recovery is rank 1's; the second, on the new timeline, the new record of rank 2's flip */
    json_t *rb = e2e_events_of(out, "recovery_begin");
    cr_assert_eq(json_array_size(rb), 2, "see %s", log);
    cr_expect_eq(ival(json_array_get(rb, 0), "fault"), id1);
    cr_expect_eq(ival(json_array_get(rb, 1), "fault"), id2b);
    json_t *det = e2e_events_of(out, "detection"), *d = detection_of(det, id2b);
    cr_assert(d, "rank 2's flip was not detected again on the new timeline; see %s", log);
    cr_expect_str_eq(json_string_value(json_object_get(d, "detector")), "fingerprint");
    cr_expect_eq(ival(d, "rank"), 2);
    cr_expect_eq(ival(d, "iter_seen"), 10);

    json_t *s = e2e_summary(out);
    ended_whole(s, 24, log);
    cr_expect_eq(e2e_fault_count(s, "injected"), 2, "each flip once: %s",
                 json_dumps(json_object_get(s, "faults"), JSON_COMPACT));
    for (size_t i = 0; i < 2; i++) {
        json_t *f = e2e_injected_fault(s, i);
        cr_assert(f);
        cr_expect_eq(ival(f, "rank"), (json_int_t)i + 1);
        cr_expect_str_eq(json_string_value(json_object_get(f, "detected_by")), "fingerprint");
        cr_expect_eq(ival(json_object_get(f, "detection"), "iter_seen"), 10);
    }
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect_eq(ival(json_object_get(run, "faults"), "detected"), 2);
    cr_expect_eq(ival(json_object_get(run, "faults"), "false_positives"), 0);
    /* both flips undone by the rollbacks: the state of the same scenario without faults */
    char clean[2048];
    snprintf(clean, sizeof clean, "name: clean\n" BASE "detectors: [fingerprint]\n");
    const char *out0 = run_text(clean, log, &rc);
    cr_assert_eq(rc, 0, "the fault-free run exited %d; see %s", rc, log);
    json_t *s0 = e2e_summary(out0), *run0 = json_array_get(json_object_get(s0, "runs"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(run, "state_fingerprint")),
                     json_string_value(json_object_get(run0, "state_fingerprint")));
    json_decref(s0);
    json_decref(s);
    json_decref(det);
    json_decref(rb);
    json_decref(un);
    json_decref(ab);
    json_decref(first);
    json_decref(second);
}

/* ---- hung_in_recovery ---- */

/* Ranks 1 and 2 hang at iteration 10. Both reach it (they ended iteration 9's all-reduce together: only a rank kept off
 * the CPU for the whole heartbeat timeout, which is itself a hang, would not), and a recovery begins for the one found
 * first (rank 1: one heartbeat check finds both, or rank 1 alone). It kills rank 1; rank 2 cannot stop for it:
 * hung_in_recovery, killed and replaced. Its hang, of the failure's iteration and not the recovery's cause, is undone,
 * fires again on the new timeline and is recovered there: the run ends whole with each hang counted once. */
Test(recovery_events, a_rank_hung_as_a_recovery_stops_the_ranks_is_killed_and_replaced, .timeout = 120)
{
    const char *log = e2e_log("hung.log");
    char text[2048];
    snprintf(text, sizeof text, "name: hung\n" BASE "heartbeat: { interval: 10ms, timeout: 3s }\nfaults:\n"
             "  - { kind: hang, at: 10, rank: 1 }\n  - { kind: hang, at: 10, rank: 2 }\n");
    int rc;
    const char *out = run_text(text, log, &rc);
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, log);
    json_t *rb = e2e_events_of(out, "recovery_begin");
    cr_assert_geq(json_array_size(rb), 1, "see %s", log);
    json_int_t cause = ival(json_array_get(rb, 0), "rank");
    cr_assert(cause == 1 || cause == 2, "the first recovery is for rank %lld", (long long)cause);
    int other = cause == 1 ? 2 : 1;
    json_t *hr = e2e_events_of(out, "hung_in_recovery");
    cr_assert_eq(json_array_size(hr), 1, "see %s", log);
    json_t *h = json_array_get(hr, 0);
    has_fields(h, (const char *[]){ "rank", "slot", "silent_s", NULL });
    cr_expect_eq(ival(h, "rank"), other, "the rank not the recovery's cause is the one that cannot stop");
    cr_expect_eq(ival(h, "slot"), other, "no spares: rank r's worker is slot r");
    double silent = json_number_value(json_object_get(h, "silent_s"));
    cr_expect(silent >= 3.0 && silent < 60.0, "silent %g s: past the 3 s timeout", silent);
    /* killed (its pid's worker_exit, by signal 9) and replaced (a new worker_start of that rank) */
    json_t *starts = e2e_events_of(out, "worker_start"), *exits = e2e_events_of(out, "worker_exit"), *e;
    json_int_t pid = 0;
    size_t i, n_starts = 0;
    json_array_foreach(starts, i, e)
        if (ival(e, "rank") == other && !pid)
            pid = ival(e, "pid");
        else if (ival(e, "rank") == other)
            n_starts++;
    cr_expect_geq(n_starts, 1, "rank %d was not replaced; see %s", other, log);
    int killed = 0;
    json_array_foreach(exits, i, e)
        killed |= ival(e, "pid") == pid && strstr(json_string_value(json_object_get(e, "status")) ?: "", "signal 9");
    cr_expect(killed, "rank %d's hung worker (pid %lld) was not killed; see %s", other, (long long)pid, log);
    /* its hang is undone and fires again on the new timeline, detected there */
    json_t *un = e2e_events_of(out, "fault_undone");
    cr_assert_eq(json_array_size(un), 1, "see %s", log);
    cr_expect_eq(ival(json_array_get(un, 0), "rank"), other);
    cr_expect_eq(ival(json_array_get(un, 0), "iter"), 10);
    json_t *again = injected_of(out, other - 1);
    cr_expect_eq(json_array_size(again), 2, "the undone hang fires again; see %s", log);
    cr_expect_eq(json_array_size(rb), 2, "its own recovery on the new timeline; see %s", log);
    json_t *s = e2e_summary(out);
    ended_whole(s, 24, log);
    cr_expect_eq(e2e_fault_count(s, "injected"), 2, "each hang once: %s",
                 json_dumps(json_object_get(s, "faults"), JSON_COMPACT));
    for (size_t k = 0; k < 2; k++) {
        json_t *f = e2e_injected_fault(s, k);
        cr_assert(f);
        cr_expect_str_eq(json_string_value(json_object_get(f, "detected_by")), "heartbeat");
    }
    json_decref(s);
    json_decref(again);
    json_decref(un);
    json_decref(starts);
    json_decref(exits);
    json_decref(hr);
    json_decref(rb);
}

/* ---- seen_during_recovery ---- */

/* Rank 2 crashes at iteration 10, its death held (tests/stall_preload.c: its raise waits for a file) once its
 * fault_injected is written. Rank 1's worker is then killed: the ranks are all at iteration 10 (rank 2 stopped them
 * there), and the recovery for that death (an observed fault) begins while rank 2 is alive, silent and not stopped.
 * Released, it dies while the recovery stops the ranks: its crash, of the failure's iteration, is seen_during_recovery
 * (by exit, its fault named), not its detection; it is undone, fires again on the new timeline, is detected and
 * recovered there, and counts once. The heartbeat timeout (10 s) is only the margin for the test's own steps. */
Test(recovery_events, a_crash_seen_while_a_recovery_stops_the_ranks_fires_again, .timeout = 180)
{
    const char *log = e2e_log("seen.log");
    char text[2048], hold[600];
    snprintf(text, sizeof text, "name: seen\n" BASE "heartbeat: { interval: 10ms, timeout: 10s }\nfaults:\n"
             "  - { kind: crash, at: 10, rank: 2 }\n");
    snprintf(hold, sizeof hold, "%s/release", e2e_tmpdir());
    const char *out = e2e_outdir();
    char env[700];
    snprintf(env, sizeof env, "GAUNTLET_TEST_RAISE_HOLD_FILE=%s", hold);
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_RAISE_HOLD_SLOT=2", env, NULL });
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--headless", "--out",
                                                 out, NULL });
    e2e_preload_end();
    int held = e2e_wait_events(out, "fault_injected", 1, E2E_SETUP_S);
    pid_t w[4];
    int nw = e2e_worker_pids(out, w, 4);
    if (held != 0 || nw != 4) {
        FILE *f = fopen(hold, "w");
        if (f)
            fclose(f);
        e2e_wait(sup, 60);
        cr_assert_fail("rank 2's crash did not fire (%d workers started); see %s", nw, log);
    }
    cr_assert_eq(kill(w[1], SIGKILL), 0);
    int began = e2e_wait_events(out, "recovery_begin", 1, 30);
    FILE *f = fopen(hold, "w");   /* rank 2 dies now, while the ranks are being stopped */
    cr_assert(f);
    fclose(f);
    cr_assert_eq(began, 0, "no recovery began; see %s", log);
    int rc = e2e_wait(sup, 120);
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, log);

    json_t *inj = injected_of(out, 0);
    cr_assert_eq(json_array_size(inj), 2, "the crash fires again on the new timeline; see %s", log);
    json_int_t id = ival(json_array_get(inj, 0), "id"), id_b = ival(json_array_get(inj, 1), "id");
    cr_expect_eq(ival(json_array_get(inj, 0), "iter"), 10);
    json_t *rb = e2e_events_of(out, "recovery_begin");
    cr_assert_eq(json_array_size(rb), 2, "see %s", log);
    cr_expect_eq(ival(json_array_get(rb, 0), "rank"), 1, "the first recovery is for rank 1's death");
    cr_expect_eq(ival(json_array_get(rb, 0), "iter"), 10);
    json_t *sd = e2e_events_of(out, "seen_during_recovery");
    cr_assert_eq(json_array_size(sd), 1, "see %s", log);
    json_t *e = json_array_get(sd, 0);
    has_fields(e, (const char *[]){ "detector", "rank", "iter", "fault", "note", NULL });
    cr_expect_str_eq(json_string_value(json_object_get(e, "detector")), "exit");
    cr_expect_eq(ival(e, "rank"), 2);
    cr_expect_eq(ival(e, "iter"), 10);
    cr_expect_eq(ival(e, "fault"), id, "its own record, its report in before the recovery began");
    json_t *det = e2e_events_of(out, "detection");
    cr_expect_null(detection_of(det, id), "seen during the recovery is not its detection; see %s", log);
    json_t *d = detection_of(det, id_b);
    cr_assert(d, "the crash was not detected on the new timeline; see %s", log);
    cr_expect_str_eq(json_string_value(json_object_get(d, "detector")), "exit");
    cr_expect_eq(ival(json_array_get(rb, 1), "fault"), id_b);
    json_t *un = e2e_events_of(out, "fault_undone");
    cr_assert_eq(json_array_size(un), 1, "see %s", log);
    cr_expect_eq(ival(json_array_get(un, 0), "id"), id);
    cr_expect_eq(ival(json_array_get(un, 0), "failure_iter"), 10);
    json_t *s = e2e_summary(out);
    ended_whole(s, 24, log);
    cr_expect_eq(e2e_fault_count(s, "injected"), 1, "the crash once: %s",
                 json_dumps(json_object_get(s, "faults"), JSON_COMPACT));
    json_t *f0 = e2e_injected_fault(s, 0);
    cr_assert(f0);
    cr_expect_str_eq(json_string_value(json_object_get(f0, "detected_by")), "exit");
    json_decref(s);
    json_decref(un);
    json_decref(det);
    json_decref(sd);
    json_decref(rb);
    json_decref(inj);
}

/* ---- a hang nobody injected, while a recovery stops the ranks ---- */

/* Rank 2 hangs at iteration 10 (an injected hang): found after the heartbeat timeout, a recovery begins. Rank 1's
 * worker is stopped (SIGSTOP, as a debugger or a frozen driver holds it) once rank 2's hang has fired: it cannot stop
 * for the recovery, and is hung_in_recovery, killed and replaced. That hang is a failure no fault explains: an
 * observed fault of rank 1, found by the heartbeat and recovered with the recovery it joined (until 2026-12-02 it was
 * killed and replaced with no fault recorded). Should one heartbeat check find both silent before the recovery
 * begins, rank 1's hang is found there: the same record. */
Test(recovery_events, a_rank_hung_by_no_fault_while_a_recovery_stops_the_ranks_is_an_observed_fault, .timeout = 180)
{
    const char *log = e2e_log("hung-observed.log");
    char text[2048];
    snprintf(text, sizeof text, "name: hung-observed\n" BASE "heartbeat: { interval: 10ms, timeout: 3s }\nfaults:\n"
             "  - { kind: hang, at: 10, rank: 2 }\n");
    const char *out = e2e_outdir();
    pid_t sup = e2e_start(log, (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--headless", "--out",
                                                 out, NULL });
    int fired = e2e_wait_events(out, "fault_injected", 1, E2E_SETUP_S);
    pid_t w[4];
    int nw = e2e_worker_pids(out, w, 4);
    if (fired != 0 || nw != 4 || kill(w[1], SIGSTOP) != 0) {
        e2e_wait(sup, 60);
        cr_assert_fail("rank 2's hang did not fire (%d workers started); see %s", nw, log);
    }
    int rc = e2e_wait(sup, 120);
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, log);
    json_t *s = e2e_summary(out), *fa;
    size_t i;
    int seen = 0;
    json_array_foreach(json_object_get(s, "faults"), i, fa)
        if (ival(fa, "rank") == 1) {
            seen++;
            char *t = json_dumps(fa, JSON_COMPACT);
            cr_expect_str_eq(json_string_value(json_object_get(fa, "origin")), "observed", "%s", t);
            cr_expect_str_eq(json_string_value(json_object_get(fa, "kind")), "hang", "%s", t);
            cr_expect_str_eq(json_string_value(json_object_get(fa, "detected_by")), "heartbeat", "%s", t);
            cr_expect(json_is_number(json_object_get(fa, "recover_s")), "recovered: %s", t);
            cr_expect(strstr(json_string_value(json_object_get(fa, "what")) ?: "", "hung"), "%s", t);
            free(t);
        }
    cr_assert_eq(seen, 1, "rank 1's hang is one fault of the record: %s; see %s",
                 json_dumps(json_object_get(s, "faults"), JSON_COMPACT), log);
    ended_whole(s, 24, log);
    json_decref(s);
}
