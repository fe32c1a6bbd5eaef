/* tests/test_faults.c: every fault on the sim backend with real worker processes: carried out, caught by
 * the detector meant for it, recovered by each strategy, and the run ending in the fault-free run's state. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "util.h"

#define BASE                                                                                                   \
    "name: faults\nranks: 4\niterations: 60\nseed: 3\n"                                                        \
    "workload:\n  gemm: {m: 512, n: 512, k: 512, count: 4}\n  allreduce: {bytes: 1MiB}\n"                       \
    "  checkpoint: {every: 10, bytes: 1MiB, path: @TMPDIR@}\n"                                \
    "heartbeat: {interval: 50ms, timeout: 800ms}\nsim: {tflops: 0.1}\n"

/* Iterations of a few ms (every rank can be done before the supervisor has compared the last fingerprints),
 * checkpoints every 5. */
#define SMALL                                                                                                  \
    "name: small\nranks: 4\niterations: 40\nseed: 3\n"                                                        \
    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 16KiB}\n"                         \
    "  checkpoint: {every: 5, bytes: 16KiB, path: @TMPDIR@}\n"                              \
    "sim: {max_elems: 4096}\nheartbeat: {interval: 100ms, timeout: 1s}\n"

/* The straggler is 8x slower to the run's end: on a loaded machine (ASan beside other work) the peers' own phases
 * stretch too, and a 4x straggler for 200 ms was seen slower than its peers' median by less than the detector's
 * factor in two phases in a row: caught by nothing, rightly. */
#define ALL_FAULTS                                                                                             \
    "faults:\n"                                                                                                \
    "  - {kind: bitflip, at: 15, rank: 1, target: allreduce-buffer, where: exponent}\n"                       \
    "  - {kind: bitflip, at: 20, rank: 2, target: gemm-output, where: exponent}\n"                            \
    "  - {kind: crash, at: 30, rank: 2}\n"                                                                     \
    "  - {kind: hang, at: 40, rank: 3}\n"                                                                      \
    "  - {kind: comm-error, at: 45, rank: 0}\n"                                                                \
    "  - {kind: straggler, at: 50, rank: 1, factor: 8, duration: 1s}\n"                                         \
    "detectors: [fingerprint, abft, replay]\n"

/* Runs text; returns its summary (the test fails unless the exit code is want). */
static json_t *run(const char *text, int want)
{
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("faults.log"),
                     (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--out", out, NULL });
    char *log = e2e_read(e2e_log("faults.log"));
    cr_assert_eq(rc, want, "exit %d, expected %d:\n%s", rc, want, log);
    free(log);
    return e2e_summary(out);
}

/* Returns the state fingerprint of the first run of a summary. */
static const char *state_of(json_t *s)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "state_fingerprint"));
}

/* Checks that injected fault i of summary s is of kind, caught by detector, and recovered. */
static void expect_fault(json_t *s, size_t i, const char *kind, const char *detector, int recovered)
{
    json_t *f = e2e_injected_fault(s, i);
    cr_assert(f, "fault %zu missing", i);
    cr_assert_str_eq(json_string_value(json_object_get(f, "kind")), kind);
    const char *by = json_string_value(json_object_get(f, "detected_by"));
    cr_assert(by && strcmp(by, detector) == 0, "%s caught by %s, expected %s", kind, by ? by : "nothing", detector);
    cr_assert(json_is_number(json_object_get(f, "detect_s")));
    if (recovered) {
        cr_assert(json_is_number(json_object_get(f, "recover_s")), "%s was not recovered: %s", kind,
                  json_string_value(json_object_get(f, "outcome")));
        cr_assert(json_is_integer(json_object_get(f, "iterations_lost")));
    }
}

/* Runs every fault under recovery rec and compares the end state with the fault-free run's. */
static void every_fault_with(const char *rec)
{
    char text[4096];
    snprintf(text, sizeof text, BASE "recovery: %s\n", rec);
    json_t *clean = run(text, 0);
    snprintf(text, sizeof text, BASE ALL_FAULTS "recovery: %s\n", rec);
    json_t *s = run(text, 0);
    /* the six injected; beside them only stragglers the heartbeat saw in a rank the host was slow to run (a busy
     * machine), never a corruption nobody injected */
    size_t at, injected = 0;
    json_t *f;
    json_array_foreach(json_object_get(s, "faults"), at, f) {
        const char *origin = json_string_value(json_object_get(f, "origin")), *kind = json_string_value(json_object_get(f, "kind"));
        injected += origin && strcmp(origin, "injected") == 0;
        if (origin && strcmp(origin, "observed") == 0)
            cr_assert(kind && strcmp(kind, "straggler") == 0, "an observed %s nobody injected", kind ? kind : "fault");
    }
    cr_assert_eq(injected, 6);
    expect_fault(s, 0, "bitflip", "fingerprint", 1);
    expect_fault(s, 1, "bitflip", "abft", 1);
    expect_fault(s, 2, "crash", "exit", 1);
    expect_fault(s, 3, "hang", "heartbeat", 1);
    expect_fault(s, 4, "comm-error", "comm", 1);
    expect_fault(s, 5, "straggler", "heartbeat", 0);
    json_t *run0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(run0, "complete")));
    cr_assert_eq(json_integer_value(json_object_get(run0, "iterations")), 60);
    json_t *fr = json_object_get(run0, "faults");
    cr_assert_eq(json_integer_value(json_object_get(fr, "false_positives")), 0, "false positives: %s",
                 json_dumps(json_object_get(fr, "false_positive_detections"), 0));
    cr_assert_str_eq(state_of(s), state_of(clean), "after recovery the state must equal the fault-free run's");
    json_decref(s);
    json_decref(clean);
}

Test(faults, every_fault_recovered_by_inprocess, .timeout = 120) { every_fault_with("{inprocess: {replicate_every: 5}}"); }
Test(faults, every_fault_recovered_by_restart, .timeout = 120) { every_fault_with("restart"); }
Test(faults, every_fault_recovered_by_spare, .timeout = 120) { every_fault_with("{spare: {replicate_every: 5}}"); }

/* A crash is seen at once, through its death pipe; a hang when its silence passes the timeout (800 ms), judged by the
 * hang's own event: its silence and timeout, which the supervisor's own stalls (excused by design) and a worker kept
 * off the CPU before the hang began cannot make wrong. Until 2026-11-30 judged by the wall clock from the injection,
 * 0.75-1.05 s: beside another sanitized test a quarter second of the supervisor's stalls, or 50 ms of the worker's
 * between its last beat and the hang, failed it with correct code; likewise a crash seen within 100 ms, one sample,
 * and an in-process recovery within 2 s (a sanitized replacement's start under load). */
Test(faults, crash_and_hang_are_seen_fast, .timeout = 120)
{
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("faults.log"),
                     (const char *[]){ "run", e2e_scenario(BASE "faults:\n  - {kind: crash, at: 10, rank: 1}\n"
                                                                "  - {kind: hang, at: 25, rank: 2}\n"
                                                                "recovery: {inprocess: {replicate_every: 5}}\n"),
                                       "--backend", "sim", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, e2e_log("faults.log"));
    json_t *s = e2e_summary(out);
    json_t *crash = e2e_injected_fault(s, 0), *hang = e2e_injected_fault(s, 1);
    double c = json_real_value(json_object_get(crash, "detect_s")), h = json_real_value(json_object_get(hang, "detect_s"));
    /* the crash: through the pipe (the other path, the heartbeat, would take 800 ms) */
    json_t *died = e2e_first_event(out, "worker_died");
    cr_assert(died, "no worker_died event");
    cr_assert_str_eq(json_string_value(json_object_get(died, "seen_by")), "pipe");
    json_decref(died);
    cr_assert(c >= 0 && c < 0.5, "a crash seen after %.3f s (through its pipe: well under the 800 ms timeout)", c);
    /* the hang: by the heartbeat, silent past the timeout and found soon after (the supervisor looks every 10 ms; a
     * second more is a machine that stood still); its silence began at its last beat, before the hang */
    json_t *ev = e2e_first_event(out, "hang");
    cr_assert(ev, "no hang event");
    cr_assert_eq(json_integer_value(json_object_get(ev, "rank")), 2);
    cr_assert_float_eq(json_number_value(json_object_get(ev, "timeout_s")), 0.8, 1e-9);
    double silent = json_number_value(json_object_get(ev, "silent_s"));
    json_decref(ev);
    cr_assert(silent > 0.8 && silent < 0.8 + 1.0, "a hang found after %.3f s of silence (timeout 800 ms)", silent);
    cr_assert(h > 0 && h <= silent + 0.01, "a hang seen %.3f s after it began, %.3f s after its last beat", h, silent);
    double rec = json_real_value(json_object_get(crash, "recover_s"));
    cr_log_info("crash seen in %.1f ms, hang in %.3f s (silent %.3f s), inprocess recovery %.3f s", c * 1e3, h, silent, rec);
    cr_assert(rec > 0 && rec < 10.0, "inprocess recovery of 4 ranks took %.3f s", rec);
    cr_assert_str_eq(json_string_value(json_object_get(crash, "restore_from")), "replica of rank 0, iteration 10");
    json_decref(s);
}

Test(faults, restart_reports_the_checkpoint_read, .timeout = 120)
{
    json_t *s = run(BASE "faults: [{kind: crash, at: 25, rank: 3}]\nrecovery: restart\n", 0);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert_eq(json_integer_value(json_object_get(f, "iterations_lost")), 5, "crash at 25, checkpoint at 20");
    /* redone: to where every rank had got when stopped; the crashed rank completed 25, the others cannot pass its
     * all-reduce */
    cr_assert_eq(json_integer_value(json_object_get(f, "iterations_redone")), 5, "crash at 25, checkpoint at 20");
    cr_assert_str_eq(json_string_value(json_object_get(f, "restore_from")), "checkpoint of iteration 20");
    cr_assert(json_real_value(json_object_get(f, "restore_gbs")) > 0, "the read bandwidth is reported");
    json_decref(s);
}

Test(faults, shrink_goes_on_with_the_survivors, .timeout = 120)
{
    json_t *s = run(BASE "faults: [{kind: crash, at: 12, rank: 3}]\nrecovery: {shrink: {replicate_every: 5}}\n", 0);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert(strstr(json_string_value(json_object_get(f, "outcome")), "shrunk to 3 ranks"), "%s",
              json_string_value(json_object_get(f, "outcome")));
    json_t *run0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(run0, "complete")));
    json_decref(s);
}

/* A fault no detector saw on a rank shrink then drops left with the rank: recovered with the rank's failure, out of
 * the coverage (nothing could still see it), said (left_with_rank), and no campaign miss. */
Test(faults, an_unseen_fault_leaves_with_its_dropped_rank, .timeout = 120)
{
    json_t *s = run(BASE "faults: [{kind: bitflip, at: 3, rank: 3, target: weights, where: exponent},\n"
                         "         {kind: crash, at: 14, rank: 3}]\nrecovery: {shrink: {replicate_every: 5}}\n", 0);
    json_t *flip = e2e_injected_fault(s, 0), *crash = e2e_injected_fault(s, 1);
    cr_assert(flip && crash);
    cr_assert_str_eq(json_string_value(json_object_get(flip, "kind")), "bitflip");
    cr_assert(json_is_null(json_object_get(flip, "detected_by")), "no detector runs");
    cr_assert(json_is_true(json_object_get(flip, "left_with_rank")), "%s", json_string_value(json_object_get(flip, "outcome")));
    cr_assert(json_is_false(json_object_get(crash, "left_with_rank")), "the failure that dropped it was seen");
    json_t *rf = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults");
    cr_assert_eq(json_integer_value(json_object_get(rf, "injected")), 1, "the flip is out of the count");
    cr_assert_eq(json_integer_value(json_object_get(rf, "left_with_rank")), 1);
    cr_assert_float_eq(json_number_value(json_object_get(rf, "coverage")), 1.0, 1e-9);
    json_decref(s);
}

/* Runs text with rank 1's checkpoints damaged on disk (tests/stall_preload.c: one byte of the state flipped, the size
 * kept): when "rename" (as written) or "verify" (just after the supervisor checked it whole), of iteration iter only
 * (NULL: any). Its exit code must be want; *log its output (freed by the caller); its summary. */
static json_t *run_damaged(const char *text, const char *when, const char *iter, int want, char **log)
{
    char w[64], it[64];
    snprintf(w, sizeof w, "GAUNTLET_TEST_DAMAGE_WHEN=%s", when);
    snprintf(it, sizeof it, "GAUNTLET_TEST_DAMAGE_ITER=%s", iter ? iter : "-1");
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_DAMAGE_CKPT=-rank1-", w, it, NULL });
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("faults-damage.log"),
                     (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--out", out, NULL });
    e2e_preload_end();
    *log = e2e_read(e2e_log("faults-damage.log"));
    cr_assert_eq(rc, want, "exit %d, expected %d:\n%s", rc, want, *log);
    return e2e_summary(out);
}

/* A checkpoint damaged on disk is passed over: the restart reads the newest one every rank holds whole, checked
 * byte by byte first, and says which it left (checkpoint_damaged): a crash at 13 with rank 1's checkpoint of 10
 * damaged goes back to 5 and ends in the fault-free run's state (until 2026-11-30 only the header and size were
 * looked at: the restore failed on the hash and the run ended, stop worker_error). */
Test(faults, a_damaged_checkpoint_is_passed_over_for_an_older_whole_one, .timeout = 120)
{
    json_t *clean = run(SMALL "recovery: restart\n", 0);
    char *log;
    json_t *s = run_damaged(SMALL "faults: [{kind: crash, at: 13, rank: 2}]\nrecovery: restart\n", "rename", "10", 0, &log);
    cr_assert(strstr(log, "is damaged"), "said on stderr:\n%s", log);
    free(log);
    json_t *f = e2e_injected_fault(s, 0);
    const char *outcome = json_string_value(json_object_get(f, "outcome"));
    cr_assert(outcome && strstr(outcome, "recovered by restart from iteration 5"), "outcome: %s", outcome ? outcome : "(none)");
    cr_assert_eq(json_integer_value(json_object_get(f, "iterations_lost")), 8);
    cr_assert_str_eq(state_of(s), state_of(clean), "the state after the older checkpoint is the fault-free run's");
    json_decref(s);
    json_decref(clean);
}

/* A restore that fails after the check (the file changed between: tests/stall_preload.c damages it just after the
 * supervisor read it whole) ends the run naming the file, and the fault it was recovering from is not recorded as
 * recovered (until 2026-11-30 its outcome read "recovered by restart from iteration 10" in a run that ended, stop
 * worker_error). */
Test(faults, a_restore_that_fails_is_no_recovery, .timeout = 120)
{
    char *log;
    json_t *s = run_damaged(SMALL "faults: [{kind: crash, at: 13, rank: 2}]\nrecovery: restart\n", "verify", NULL, 1, &log);
    cr_assert(strstr(log, "does not match"), "the reader names what is wrong:\n%s", log);
    free(log);
    json_t *f = e2e_injected_fault(s, 0);
    const char *outcome = json_string_value(json_object_get(f, "outcome"));
    cr_assert(outcome && strncmp(outcome, "not recovered", 13) == 0, "outcome: %s", outcome ? outcome : "(none)");
    cr_assert(json_is_null(json_object_get(f, "recover_s")));
    json_decref(s);
}

Test(faults, recovery_none_ends_the_run, .timeout = 60)
{
    json_t *s = run(BASE "faults: [{kind: crash, at: 5, rank: 2}]\n", 1);
    cr_assert(strstr(json_string_value(json_object_get(s, "stopped")), "recovery none"));
    json_decref(s);
}

/* What fingerprint cannot see: a gradient corrupted before the all-reduce reaches every rank identically. */
Test(faults, gradients_flip_escapes_fingerprint, .timeout = 60)
{
    json_t *clean = run(BASE "detectors: [fingerprint]\n", 0);
    json_t *s = run(BASE "faults: [{kind: bitflip, at: 10, rank: 1, target: gradients, where: exponent}]\n"
                         "detectors: [fingerprint]\n", 0);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert(json_is_null(json_object_get(f, "detected_by")),
              "a gradient flip before the all-reduce is invisible to fingerprint, yet it was caught");
    cr_assert_str_neq(state_of(s), state_of(clean), "the corruption really reached the model, silently");
    cr_log_info("as documented: bitflip on gradients with only fingerprint enabled is not detected");
    json_decref(s);
    json_decref(clean);
}

/* A flip of N bits changes N distinct bits of its field, as the GPU's kernel draws them (kernels/faults.cu): all 8 of
 * the exponent's, and 12 of any 32 (until 2026-12-02 the sim drew them with repeats, and two flips of a bit are none:
 * an exponent flip of 8 bits changed 5 or so). */
Test(faults, a_flip_of_n_bits_changes_n_distinct_bits, .timeout = 60)
{
    json_t *s = run(BASE "faults:\n  - {kind: bitflip, at: 5, rank: 1, target: weights, where: exponent, bits: 8}\n"
                         "  - {kind: bitflip, at: 12, rank: 0, target: weights, where: random, bits: 8}\n"
                         "  - {kind: bitflip, at: 19, rank: 1, target: weights, where: mantissa, bits: 8}\n", 0);
    for (size_t k = 0; k < 3; k++) {
        json_t *f = e2e_injected_fault(s, k), *bits = json_object_get(f, "bits"), *b;
        cr_assert(f, "fault %zu", k);
        cr_assert_eq(json_array_size(bits), 8, "fault %zu: %s", k, json_dumps(bits, JSON_COMPACT));
        size_t i;
        json_array_foreach(bits, i, b)
            if (k == 0)
                cr_assert(json_integer_value(b) >= 23 && json_integer_value(b) <= 30, "an exponent bit: %lld",
                          (long long)json_integer_value(b));
            else if (k == 2)
                cr_assert_leq(json_integer_value(b), 22, "a mantissa bit");
    }
    json_decref(s);
}

Test(faults, timed_and_random_faults_fire, .timeout = 60)
{
    json_t *s = run(BASE "faults:\n  - {kind: straggler, at_s: 200ms, factor: 4, duration: 100ms}\n"
                         "  - {kind: straggler, rate_per_hour: 36000, rank: 0, factor: 4, duration: 50ms}\n", 0);
    json_t *faults = json_object_get(s, "faults");
    cr_assert_geq(json_array_size(faults), 2, "an at_s fault and a 10/s random process in ~1 s");
    json_decref(s);
}

/* A fault sent to a rank (a timed one, as the view's f) is carried out even where a recovery restarts the workers
 * before it fires: two crashes of rank 1 due at once, the second sent to the worker the first kills, both injected
 * (until 2026-11-30 the second went with the dead worker, or a continued one forgot it: asked, never injected, never
 * said); and where the run ends first (recovery none: the first crash ends it), the second is said not injected. */
Test(faults, a_sent_fault_outlives_a_recovery_or_is_said_not_injected, .timeout = 120)
{
    const char *two = "faults:\n  - {kind: crash, at_s: 300ms, rank: 1}\n  - {kind: crash, at_s: 300ms, rank: 1}\n";
    char text[1024];
    snprintf(text, sizeof text, BASE "%srecovery: restart\n", two);
    json_t *s = run(text, 0);
    size_t n = 0;
    for (size_t i = 0; e2e_injected_fault(s, i); i++)
        n += strcmp(json_string_value(json_object_get(e2e_injected_fault(s, i), "kind")), "crash") == 0;
    cr_assert_eq(n, 2, "both crashes injected, the second after the first's recovery");
    cr_assert_null(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults_not_injected"));
    json_decref(s);
    snprintf(text, sizeof text, BASE "%srecovery: none\n", two);
    const char *out = e2e_outdir();
    cr_assert_eq(e2e_run(e2e_log("faults.log"),
                         (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--out", out, NULL }), 1);
    s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults_not_injected")),
                 1, "the second crash, sent and never carried out, is said");
    cr_assert_eq(e2e_count_events(out, "fault_not_injected"), 1);
    json_decref(s);
}

/* A corruption found after every rank has finished (the last iteration) is recovered on a timeline the run then
 * waits for: its state is the fault-free run's, every iteration counted (until 2026-11-30 the run ended on the
 * abandoned timeline: 58 of 60 iterations, its fingerprints disagreeing, exit 0, "recovered"); under restart and
 * inprocess */
Test(faults, a_fault_found_after_the_last_iteration_is_recovered_before_the_end, .timeout = 120)
{
#define FAST SMALL "detectors: [fingerprint, abft]\n"
    json_t *clean = run(FAST, 0);
    const char *rec[] = { "restart", "{inprocess: {replicate_every: 1}}" };
    for (int k = 0; k < 2; k++) {
        char text[1024];
        snprintf(text, sizeof text, FAST "recovery: %s\n"
                 "faults: [{kind: bitflip, at: 39, rank: 0, target: allreduce-buffer, where: exponent}]\n", rec[k]);
        json_t *s = run(text, 0), *r = json_array_get(json_object_get(s, "runs"), 0);
        cr_assert_eq(json_integer_value(json_object_get(r, "iterations")), 40, "%s", rec[k]);
        cr_assert(json_is_true(json_object_get(r, "fingerprints_agree")), "%s", rec[k]);
        cr_assert_str_eq(state_of(s), state_of(clean), "%s: the state is the fault-free run's", rec[k]);
        json_decref(s);
    }
#undef FAST
    json_decref(clean);
}

/* A corruption a sliced fingerprint finds 3 iterations late is rolled back from a replica of before it entered, as
 * restart's checkpoint is (until 2026-11-30 inprocess took the newest replica before the finding, which the all-reduce
 * had already handed the corruption: "recovered", 0 iterations lost, a wrong state with agreeing fingerprints); a ring
 * too short for the lag is refused up front (test_scenario.c) */
Test(faults, a_late_finding_rolls_back_to_a_replica_from_before_the_corruption, .timeout = 120)
{
#define SLICED SMALL "detectors: [{fingerprint: {slices: 4}}]\n"
    json_t *clean = run(SLICED, 0);
    json_t *s = run(SLICED "recovery: {inprocess: {replicate_every: 2}}\n"
                           "faults: [{kind: bitflip, at: 10, rank: 1, target: weights, where: exponent}]\n", 0);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "fingerprint");
    const char *from = json_string_value(json_object_get(f, "restore_from"));   /* "replica of rank R, iteration N" */
    const char *it = from ? strstr(from, "iteration ") : NULL;
    cr_assert(it && atoi(it + 10) <= 10, "restored from before iteration 10: %s", from ? from : "(none)");
    cr_assert_geq(json_integer_value(json_object_get(f, "iterations_lost")), 1);
    cr_assert_str_eq(state_of(s), state_of(clean), "the state is the fault-free run's");
    json_decref(s);
    json_decref(clean);
#undef SLICED
}

/* 2,000 iterations of 4 ranks: 8,000 rank-iterations each checked by fingerprint and abft, 80 replays, none of them
 * a finding. The sim's state is held to 4,096 values (sim.max_elems; the all-reduce's 256 KiB alone made it 65,536):
 * the GEMM's B is the weights' first 64 x 64 either way, and the gradients and the all-reduce give those values
 * bitwise what they gave before, so abft and replay check the very same numbers; the fingerprint hashes the 4,096
 * values every rank holds, through the same all-reduce (without its second barrier, false positives within 300
 * iterations). The other 61,440 values cost each rank 4.5 ms of tanhf and byte-wise hashing an iteration, 24 of this
 * test's 27 s, and were checked by nothing else. */
Test(faults, no_false_positives_over_thousands_of_iterations, .timeout = 240)
{
    json_t *s = run("name: quiet\nranks: 4\niterations: 2000\nworkload:\n  gemm: {m: 64, n: 64, k: 64}\n"
                    "  allreduce: {bytes: 256KiB}\nsim: {tflops: 1000, latency: 0s, max_elems: 4096}\n"
                    "detectors: [fingerprint, abft, {replay: {every: 100}}]\n", 0);
    json_t *fr = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults");
    cr_assert_eq(json_integer_value(json_object_get(fr, "false_positives")), 0);
    json_t *cost = json_object_get(fr, "detector_cost");
    cr_assert(json_object_get(cost, "fingerprint") && json_object_get(cost, "abft"), "detector cost is reported");
    /* each detector's own device work (on sim: the host time of its check, inside the time the rank waited for it,
     * so never above it), per iteration and as a share; the heartbeat has no device work and no device figure */
    const char *dets[] = { "fingerprint", "abft", "replay" };
    for (size_t i = 0; i < sizeof dets / sizeof dets[0]; i++) {
        json_t *c = json_object_get(cost, dets[i]);
        double dev = json_number_value(json_object_get(c, "device_s_per_iter")),
               wait = json_number_value(json_object_get(c, "per_iter_s")),
               share = json_number_value(json_object_get(c, "device_share"));
        cr_expect(json_is_real(json_object_get(c, "device_s_per_iter")) && dev > 0, "%s: device time %g", dets[i], dev);
        cr_expect(dev <= wait * (1 + 1e-9), "%s: device %g s per iteration, within the wait %g s", dets[i], dev, wait);
        cr_expect(share > 0 && share < 1, "%s: device share %g", dets[i], share);
    }
    cr_expect_null(json_object_get(cost, "heartbeat"), "the supervisor-side heartbeat costs the ranks nothing");
    json_decref(s);
}

Test(faults, async_checkpoints_stall_less_than_they_write, .timeout = 120)
{
    const char *head = "name: async\nranks: 4\niterations: 60\nseed: 3\n"
                       "workload:\n  gemm: {m: 512, n: 512, k: 512, count: 4}\n  allreduce: {bytes: 1MiB}\n"
                       "  checkpoint: {every: 10, bytes: 32MiB, path: @TMPDIR@, mode: async}\n"
                       "heartbeat: {interval: 50ms, timeout: 800ms}\nsim: {tflops: 0.1}\n";
    char text[2048];
    snprintf(text, sizeof text, "%s", head);
    json_t *clean = run(text, 0);
    json_t *r = json_array_get(json_object_get(clean, "runs"), 0);
    double stall = json_real_value(json_object_get(r, "checkpoint_stall_s"));
    double gbs = json_real_value(json_object_get(r, "checkpoint_gbs"));
    double write_s = 32.0 * 1048576 / (gbs * 1e9);
    cr_assert_eq(json_integer_value(json_object_get(r, "checkpoints")), 6);
    cr_assert(stall > 0 && stall < write_s, "async: the rank stalled %.4f s a checkpoint, the write took %.4f s", stall,
              write_s);
    snprintf(text, sizeof text, "%sfaults: [{kind: crash, at: 45, rank: 2}]\nrecovery: restart\n", head);
    json_t *s = run(text, 0);
    cr_assert_str_eq(state_of(s), state_of(clean), "a restart from async checkpoints ends in the fault-free state");
    json_decref(s);
    json_decref(clean);
}

/* Faults on three ranks at one iteration under restart: the first one found rolls back to that iteration, and a
 * crash the stopped rank had not reached yet fires in its replacement's first iteration. That replacement said it
 * was ready before it died: a new failure, recovered again, not a recovery that failed (8 in 12 such runs ended
 * "rank 3's replacement died before it was ready" before 2026-11-29). Every run ends in the fault-free state, every
 * fault recovered with its time. */
Test(faults, a_fault_in_a_replacements_first_iteration_is_a_new_failure, .timeout = 180)
{
    const char *base = "name: three\nranks: 4\niterations: 40\nseed: 3\n"
                       "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                       "  checkpoint: {every: 5, bytes: 64KiB, path: @TMPDIR@}\n"
                       "detectors: [fingerprint, abft]\nrecovery: restart\n%s";
    char text[1024];
    snprintf(text, sizeof text, base, "");
    json_t *clean = run(text, 0);
    char want[24];
    str_copy(want, sizeof want, state_of(clean));
    json_decref(clean);
    snprintf(text, sizeof text, base,
             "faults:\n  - {kind: bitflip, at: 20, rank: 1, target: weights, where: exponent}\n"
             "  - {kind: bitflip, at: 20, rank: 2, target: gemm-output, where: exponent}\n"
             "  - {kind: crash, at: 20, rank: 3}\n");
    for (int rep = 0; rep < 10; rep++) {
        json_t *s = run(text, 0);
        cr_assert_str_eq(state_of(s), want, "repetition %d", rep);
        for (size_t i = 0; i < 3; i++) {
            json_t *f = e2e_injected_fault(s, i);
            cr_assert(f, "repetition %d: fault %zu has no record", rep, i);
            cr_assert(json_is_number(json_object_get(f, "recover_s")), "repetition %d: %s (%s) has no recover_s", rep,
                      json_string_value(json_object_get(f, "kind")), json_string_value(json_object_get(f, "outcome")));
            cr_assert_str_eq(json_string_value(json_object_get(f, "recovery")), "restart");
        }
        json_decref(s);
    }
}

/* A fault nobody had seen when a later failure's recovery restored a state from before it is rolled back: its effect
 * went with that state, and it is not counted as one the detectors missed (a gemm-output flip no detector here sees,
 * then a crash, restored to the checkpoint before both: coverage 1.0, where it read 0.5). */
Test(faults, a_fault_rolled_back_before_it_was_seen_is_not_a_miss, .timeout = 60)
{
    json_t *s = run("name: rb\nranks: 4\niterations: 40\nseed: 3\n"
                    "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                    "  checkpoint: {every: 10, bytes: 64KiB, path: @TMPDIR@}\n"
                    "detectors: [fingerprint]\nrecovery: restart\n"
                    "faults:\n  - {kind: bitflip, at: 21, rank: 1, target: gemm-output, where: exponent}\n"
                    "  - {kind: crash, at: 23, rank: 2}\n", 0);
    json_t *flip = e2e_injected_fault(s, 0), *crash = e2e_injected_fault(s, 1);
    cr_assert(json_is_true(json_object_get(flip, "rolled_back")), "%s", json_string_value(json_object_get(flip, "outcome")));
    cr_assert(strstr(json_string_value(json_object_get(flip, "outcome")), "rolled back before it was seen (to iteration 20)"));
    double unseen = json_number_value(json_object_get(flip, "unseen_s")), crash_at = json_number_value(json_object_get(crash, "injected_t_s")),
           flip_at = json_number_value(json_object_get(flip, "injected_t_s"));
    cr_assert(unseen >= crash_at - flip_at, "unseen for %.3f s: from its injection past the crash (%.3f s later), to the "
              "recovery that rolled it back", unseen, crash_at - flip_at);
    cr_assert(json_is_null(json_object_get(crash, "unseen_s")));
    cr_assert(json_is_false(json_object_get(crash, "rolled_back")));
    json_t *fr = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults");
    cr_assert_eq(json_integer_value(json_object_get(fr, "injected")), 1);
    cr_assert_float_eq(json_number_value(json_object_get(fr, "coverage")), 1.0, 1e-9);
    json_decref(s);
}

/* A detector's cost per iteration is over the iterations its reports cover: after a restart, the new processes'
 * cost over their own iterations (the killed ones never report). Before, their cost was divided by every iteration of
 * the run on every rank: a restart from 40 of 60 read a third of the cost. */
Test(faults, a_detectors_cost_after_a_restart_is_over_the_iterations_it_covers, .timeout = 120)
{
    json_t *s = run("name: cost\nranks: 4\niterations: 60\nseed: 3\n"
                    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                    "  checkpoint: {every: 10, bytes: 64KiB, path: @TMPDIR@}\n"
                    "detectors: [fingerprint]\nrecovery: restart\nfaults:\n  - {kind: crash, at: 45, rank: 2}\n", 0);
    json_t *f = e2e_injected_fault(s, 0);
    long long from = -1;
    const char *outcome = json_string_value(json_object_get(f, "outcome"));
    cr_assert(outcome && sscanf(outcome, "recovered by restart from iteration %lld", &from) == 1, "%s",
              outcome ? outcome : "(no outcome)");
    json_t *c = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults"),
                                                "detector_cost"), "fingerprint");
    double total = json_number_value(json_object_get(c, "total_s")), per = json_number_value(json_object_get(c, "per_iter_s"));
    cr_assert(total > 0 && per > 0, "fingerprint cost: total %g s, per iteration %g s", total, per);
    double covered = total / per;   /* rank-iterations the reports cover: the 4 new processes', from the restore on */
    cr_assert(covered >= 4.0 * (double)(60 - from) - 0.5 && covered <= 4.0 * (double)(60 - from) + 0.5,
              "restored from %lld: the cost covers %.1f rank-iterations, expected %d", from, covered,
              4 * (int)(60 - from));
    json_decref(s);
}

/* A restart's restore is every rank's: restore_bytes is the ranks' checkpoints together, however the supervisor reads
 * the ranks' reports (once one rank's first good iteration, read before another's restore, ended the count short). */
Test(faults, a_restarts_restore_counts_every_rank, .timeout = 120)
{
    for (int rep = 0; rep < 6; rep++) {
        json_t *s = run("name: restore\nranks: 4\niterations: 30\nseed: 3\n"
                        "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                        "  checkpoint: {every: 5, bytes: 1MiB, path: @TMPDIR@}\n"
                        "recovery: restart\nfaults:\n  - {kind: crash, at: 12, rank: 2}\n", 0);
        json_t *f = e2e_injected_fault(s, 0);
        cr_assert_float_eq(json_number_value(json_object_get(f, "restore_bytes")), 4.0 * 1048576, 0.5,
                           "repetition %d: %.0f bytes restored, 4 ranks of 1 MiB", rep,
                           json_number_value(json_object_get(f, "restore_bytes")));
        json_decref(s);
    }
}

/* The ranks shrink dropped stop counting where they left: the run's iterations, throughput, goodput and state are
 * those of the ranks still in it, in the run where it dropped them and in every later one. Before, rank 0 dropped at
 * 10 of 40 made the run read 10 iterations, goodput 0.21 and state 0000000000000000, and the next run 0 iterations. */
Test(faults, shrinks_dropped_ranks_do_not_stop_the_count, .timeout = 120)
{
    json_t *s = run("name: shrink\nranks: 4\niterations: 40\nseed: 3\n"
                    "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                    "mitigations: [none, {filler: {floor: 50%}}]\nrecovery: shrink\n"
                    "faults:\n  - {kind: crash, at: 10, rank: 0}\n", 0);
    json_t *runs = json_object_get(s, "runs");
    cr_assert_eq(json_array_size(runs), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *r = json_array_get(runs, i);
        cr_expect_eq(json_integer_value(json_object_get(r, "iterations")), 40, "run %zu", i);
        cr_expect(json_is_true(json_object_get(r, "fingerprints_agree")), "run %zu", i);
        cr_expect_str_neq(json_string_value(json_object_get(r, "state_fingerprint")), "0000000000000000", "run %zu", i);
        cr_expect_gt(json_number_value(json_object_get(r, "throughput_it_s")), 0, "run %zu", i);
    }
    double goodput = json_number_value(json_object_get(json_object_get(json_array_get(runs, 0), "faults"), "goodput"));
    cr_expect_gt(goodput, 0.5, "goodput %.2f: 30 of 40 iterations were not lost", goodput);
    json_decref(s);
}

/* Under restart, a checkpoint written after a flip the sliced fingerprint had not hashed yet holds the corruption:
 * the rollback must go to one from before it could have entered (slices - 1 iterations before its finding; the
 * ranks keep that many more generations). Before, a flip at 8 found at 11 restored the checkpoint of 11: the ranks
 * ended in different states, the record said recovered. For a flip at every phase of the slices and of the
 * checkpoints, sync and async: the fault-free state on every rank, restored from no later than the flip. Each pair of
 * checkpoint interval and sync or async gets four flips in a row, each phase of the 4 slices and of its checkpoints
 * once, the pairs taking 6-9 and 10-13 in turn, so that each interval and each mode has flips early and late in its
 * ring of generations (until 2026-11-30 each pair all eight, every phase twice: 33 runs). With that rollback
 * put back (to the newest checkpoint before the finding) 13 of the 16 fail, 2 to 4 of each pair's. 24 iterations (30
 * until 2026-11-30): the last flip, at 13, is found by 17, and the ranks, held near the checks by the checkpoints they
 * must keep, are still short of the end then; the six more only lengthened the replay after it. */
Test(faults, restart_under_a_sliced_fingerprint_never_restores_the_corruption, .timeout = 240)
{
    const char *base = "name: slices\nranks: 4\niterations: 24\nseed: 3\n"
                       "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                       "  checkpoint: {every: %d, bytes: 64KiB, path: @TMPDIR@}\n"
                       "detectors: [{fingerprint: {slices: 4, async: %s}}]\nrecovery: restart\n%s";
    char text[2048], flip[200];
    snprintf(text, sizeof text, base, 1, "false", "");
    json_t *clean = run(text, 0);
    char want[24];
    str_copy(want, sizeof want, state_of(clean));
    json_decref(clean);
    for (int every = 1; every <= 2; every++)
        for (int async = 0; async <= 1; async++)
            for (int at = (every + async) % 2 ? 10 : 6, last = at + 3; at <= last; at++) {
                snprintf(flip, sizeof flip, "faults:\n  - {kind: bitflip, at: %d, rank: 1, target: weights, where: exponent}\n", at);
                snprintf(text, sizeof text, base, every, async ? "true" : "false", flip);
                json_t *s = run(text, 0);
                json_t *r0 = json_array_get(json_object_get(s, "runs"), 0);
                cr_assert(json_is_true(json_object_get(r0, "fingerprints_agree")),
                          "every %d async %d flip at %d: the ranks end in different states", every, async, at);
                cr_assert_str_eq(state_of(s), want, "every %d async %d flip at %d", every, async, at);
                json_t *f = e2e_injected_fault(s, 0);
                const char *outcome = json_string_value(json_object_get(f, "outcome"));
                long long from = -1;
                cr_assert(outcome && sscanf(outcome, "recovered by restart from iteration %lld", &from) == 1,
                          "every %d async %d flip at %d: %s", every, async, at, outcome ? outcome : "(none)");
                cr_assert_leq(from, at, "every %d async %d: restored from %lld, after the flip at %d", every, async, from, at);
                /* what the ranks completed past the failure before they stopped is done again too */
                json_int_t lost = json_integer_value(json_object_get(f, "iterations_lost"));
                json_int_t redone = json_integer_value(json_object_get(f, "iterations_redone"));
                cr_assert(redone >= lost, "every %d async %d flip at %d: %lld redone, %lld lost", every, async, at,
                          (long long)redone, (long long)lost);
                json_decref(s);
            }
}

/* A fingerprint of slices (a quarter of each buffer an iteration) still catches a flip of the weights, which
 * lasts, within 4 iterations of it, sync and async, and recovers into the fault-free state; no false positive. */
Test(faults, a_sliced_fingerprint_catches_a_lasting_flip_within_its_slices, .timeout = 180)
{
    const char *flip = "faults:\n  - {kind: bitflip, at: 15, rank: 1, target: weights, where: exponent}\n"
                       "recovery: inprocess\n";
    char text[2048];
    snprintf(text, sizeof text, BASE "detectors: [{fingerprint: {slices: 4}}]\nrecovery: inprocess\n");
    json_t *clean = run(text, 0);
    for (int async = 0; async <= 1; async++) {
        snprintf(text, sizeof text, BASE "detectors: [{fingerprint: {slices: 4, async: %s}}]\n%s", async ? "true" : "false",
                 flip);
        json_t *s = run(text, 0);
        expect_fault(s, 0, "bitflip", "fingerprint", 1);
        json_t *f = e2e_injected_fault(s, 0);
        json_int_t late = json_integer_value(json_object_get(f, "detect_iters"));
        cr_assert(late >= 0 && late <= 4, "async %d: seen %lld iterations late (slices 4: at most 4)", async, (long long)late);
        cr_assert_str_eq(state_of(s), state_of(clean), "async %d: recovered into the fault-free state", async);
        json_t *fr = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults");
        cr_assert_eq(json_integer_value(json_object_get(fr, "false_positives")), 0);
        cr_log_info("slices 4, async %d: a weights flip seen %lld iterations late", async, (long long)late);
        json_decref(s);
    }
    json_t *fr = json_object_get(json_array_get(json_object_get(clean, "runs"), 0), "faults");
    cr_assert_eq(json_integer_value(json_object_get(fr, "false_positives")), 0);
    json_decref(clean);
}

/* The asynchronous fingerprint catches the same corruption, naming the same iteration (it reports it one
 * iteration later), and the recovery still ends in the fault-free state; a clean run has no false positive. */
Test(faults, an_async_fingerprint_catches_what_the_sync_one_does, .timeout = 180)
{
    const char *flip = "faults:\n  - {kind: bitflip, at: 15, rank: 1, target: allreduce-buffer, where: exponent}\n"
                       "recovery: inprocess\n";
    char text[2048];
    snprintf(text, sizeof text, BASE "detectors: [fingerprint]\n%s", flip);
    json_t *sync = run(text, 0);
    snprintf(text, sizeof text, BASE "detectors: [{fingerprint: {async: true}}]\n%s", flip);
    json_t *async = run(text, 0);
    snprintf(text, sizeof text, BASE "detectors: [{fingerprint: {async: true}}]\nrecovery: inprocess\n");
    json_t *clean = run(text, 0);
    expect_fault(sync, 0, "bitflip", "fingerprint", 1);
    expect_fault(async, 0, "bitflip", "fingerprint", 1);
    json_t *fs = e2e_injected_fault(sync, 0), *fa = e2e_injected_fault(async, 0);
    cr_assert_eq(json_integer_value(json_object_get(fa, "detect_iters")), json_integer_value(json_object_get(fs, "detect_iters")),
                 "the same iteration is named");
    cr_assert_str_eq(state_of(async), state_of(clean), "recovered into the fault-free state");
    cr_assert_str_eq(state_of(sync), state_of(clean));
    json_t *fr = json_object_get(json_array_get(json_object_get(clean, "runs"), 0), "faults");
    cr_assert_eq(json_integer_value(json_object_get(fr, "false_positives")), 0);
    /* its span beside the compute phase is not its device work: never device_s_per_iter (nor a share of it) */
    json_t *c = json_object_get(json_object_get(fr, "detector_cost"), "fingerprint");
    cr_assert(c, "the async fingerprint's cost is reported");
    cr_expect(json_is_null(json_object_get(c, "device_s_per_iter")) && json_is_null(json_object_get(c, "device_share")),
              "%s", json_dumps(c, 0));
    cr_expect(json_object_get(c, "beside_compute_s_per_iter"), "%s", json_dumps(c, 0));
    cr_log_info("allreduce-buffer flip seen after %.1f ms (sync) and %.1f ms (async)",
                1e3 * json_number_value(json_object_get(fs, "detect_s")), 1e3 * json_number_value(json_object_get(fa, "detect_s")));
    json_decref(sync);
    json_decref(async);
    json_decref(clean);
}

/* A fault sent while a rank waits for its supervisor's checks before a checkpoint (restart keeps the generations a
 * late finding needs) is queued and the checkpoint is written: harmless stragglers (1 % slower for 1 ms) sent one
 * after another as each is carried out (about one an iteration), a checkpoint every iteration, the asynchronous
 * fingerprint's lag making every checkpoint wait for the iteration just done. Until 2026-11-30 a fault arriving during
 * that wait skipped the checkpoint without a word (25 to 72 of 2,000 missing in three runs). Every rank writes every
 * checkpoint. The supervisor looks every 2 ms (power.sample_hz 500; at its default 100 Hz every 10 ms), and its looks
 * both send the faults and end the waits: with that old wait put back, these 500 iterations lost 12 to 23 of rank 0's
 * 500 checkpoints in five runs, where 1,000 iterations at 100 Hz (until 2026-11-30, 10 s) lost 0, 0, 2, 7 and 23 of
 * the ranks' 2,000. */
Test(faults, a_fault_sent_while_a_rank_waits_to_checkpoint_skips_no_checkpoint, .timeout = 180)
{
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("faults.log"),
                     (const char *[]){ "run", e2e_scenario(
                         "name: hold\nranks: 2\niterations: 500\nseed: 5\n"
                         "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                         "  checkpoint: {every: 1, bytes: 64KiB, path: @TMPDIR@}\n"
                         "faults:\n  - {kind: straggler, rate_per_hour: 36000000, factor: 1.01, duration: 1ms}\n"
                         "recovery: restart\ndetectors: [{fingerprint: {async: true}}]\nsim: {tflops: 0.05}\n"
                         "power: {sample_hz: 500}\n"),
                       "--backend", "sim", "--out", out, NULL });
    char *log = e2e_read(e2e_log("faults.log"));
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, log);
    free(log);
    char path[4096];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    cr_assert_not_null(ev);
    int written[2] = { 0, 0 };
    for (char *line = ev; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        const char *r = strstr(line, "\"rank\":");
        if (strstr(line, "\"event\":\"phase_end\"") && strstr(line, "\"phase\":\"checkpoint\"") && r &&
            (r[7] == '0' || r[7] == '1'))
            written[r[7] - '0']++;
        if (end)
            *end = '\n';
    }
    free(ev);
    cr_assert_eq(written[0], 500, "rank 0 wrote %d checkpoints of 500", written[0]);
    cr_assert_eq(written[1], 500, "rank 1 wrote %d checkpoints of 500", written[1]);
    cr_assert_geq(e2e_count_events(out, "fault_injected"), 100, "faults arrived throughout the run");
}

/* The checks of rank r of run 0 of summary s that detector det compared something in (runs[].ranks[].sdc_checks);
 * -1 when the record has none. */
static long long sdc_checks_of(json_t *s, int r, const char *det)
{
    json_t *ranks = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "ranks");
    json_t *n = json_object_get(json_object_get(json_array_get(ranks, (size_t)r), "sdc_checks"), det);
    return json_is_integer(n) ? (long long)json_integer_value(n) : -1;
}

/* summary.json says per rank what each silent-corruption detector compared (what an sdc_screen PASS stands on):
 * the fingerprint one vote per iteration where another rank's value is there to compare (sliced or not, synchronous or
 * not; a rank alone: none), abft one GEMM output per iteration, the replay each replay after its first (the
 * reference): every E iterations of I, (I - 1) / E; after a restart from iteration R, the killed processes' (taken at
 * their death: they never report) and the new ones'; a detector not on is not listed. */
Test(faults, sdc_checks_count_what_each_detector_compared, .timeout = 120)
{
#define TINY "iterations: 7\nseed: 3\nworkload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
    static const struct {
        const char *text;
        int ranks;
        long long fp, abft, replay;   /* -1: not listed */
    } cases[] = {
        { "name: c\nranks: 3\n" TINY "detectors: [fingerprint, abft, {replay: {every: 3}}]\n", 3, 7, 7, 2 },
        { "name: c\nranks: 2\n" TINY "detectors: [{fingerprint: {slices: 4}}, {replay: {every: 10}}]\n", 2, 7, -1, 0 },
        { "name: c\nranks: 2\n" TINY "detectors: [{fingerprint: {async: true, slices: 2}}]\n", 2, 7, -1, -1 },
        { "name: c\nranks: 1\n" TINY "detectors: [fingerprint, abft]\n", 1, 0, 7, -1 },
    };
    for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
        json_t *s = run(cases[c].text, 0);
        for (int r = 0; r < cases[c].ranks; r++) {
            cr_assert_eq(sdc_checks_of(s, r, "fingerprint"), cases[c].fp, "case %zu rank %d: fingerprint", c, r);
            cr_assert_eq(sdc_checks_of(s, r, "abft"), cases[c].abft, "case %zu rank %d: abft", c, r);
            cr_assert_eq(sdc_checks_of(s, r, "replay"), cases[c].replay, "case %zu rank %d: replay", c, r);
        }
        json_decref(s);
    }
#undef TINY
    json_t *s = run("name: c\nranks: 2\niterations: 20\nseed: 3\n"
                    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
                    "  checkpoint: {every: 5, bytes: 16KiB, path: /tmp/gauntlet-test-faults-sdc}\n"
                    "detectors: [abft, {replay: {every: 4}}]\nrecovery: restart\nfaults:\n  - {kind: crash, at: 12, rank: 1}\n",
                    0);
    const char *outcome = json_string_value(json_object_get(e2e_injected_fault(s, 0), "outcome"));
    long long from = -1;
    cr_assert(outcome && sscanf(outcome, "recovered by restart from iteration %lld", &from) == 1, "%s",
              outcome ? outcome : "(no outcome)");
    for (int r = 0; r < 2; r++) {
        /* the killed processes' checks, which they never reported, and the new ones', from..19: rank 1 crashed at 12
         * having verified iterations 0..11 (its check of 12 maybe too); rank 0, killed by the restart, could not end 12
         * without rank 1's all-reduce: at least 0..11 and at most 0..12 checked. Replays every 4: a process's first
         * is its reference (the killed one's 0; the new one's first multiple of 4 from `from`) */
        long long replays = 0, abft = sdc_checks_of(s, r, "abft"), rep = sdc_checks_of(s, r, "replay");
        for (long long i = from; i < 20; i++)
            replays += i % 4 == 0;
        long long fresh = replays > 0 ? replays - 1 : 0;
        cr_log_info("rank %d, restored from %lld: abft %lld, replay %lld", r, from, abft, rep);
        cr_assert(abft >= 12 + 20 - from && abft <= 13 + 20 - from, "rank %d, restored from %lld: abft %lld, not %lld..%lld",
                  r, from, abft, 12 + 20 - from, 13 + 20 - from);
        cr_assert(rep >= 2 + fresh && rep <= 3 + fresh, "rank %d: replay %lld, not %lld..%lld (4 and 8, maybe 12, then %lld)",
                  r, rep, 2 + fresh, 3 + fresh, fresh);
    }
    json_decref(s);
    /* an in-process recovery to iteration 0 (the start's replica: none other yet) keeps every process: rank 1's crashed
     * one had verified 0..2 (taken at its death), rank 0's survivor 0..2 and maybe 3, which it keeps; each then 0..19
     * again. Until 2026-12-01 the survivor's were cleared as at a run's start: rank 0 read 20 */
    s = run("name: c\nranks: 2\niterations: 20\nseed: 3\n"
            "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 4KiB}\n"
            "detectors: [abft]\nrecovery: {inprocess: {replicate_every: 5}}\n"
            "faults:\n  - {kind: crash, at: 3, rank: 1}\n",
            0);
    outcome = json_string_value(json_object_get(e2e_injected_fault(s, 0), "outcome"));
    cr_assert(outcome && strcmp(outcome, "recovered by inprocess from iteration 0") == 0, "%s",
              outcome ? outcome : "-");
    for (int r = 0; r < 2; r++) {
        long long abft = sdc_checks_of(s, r, "abft");
        cr_assert(abft >= 3 + 20 && abft <= 4 + 20, "rank %d, rolled back to 0 in its process: abft %lld, not 23..24",
                  r, abft);
    }
    json_decref(s);
}

/* A finding is credited only to a flip its detector can see: a weights flip on rank 0 and a gradients flip on rank 1 in
 * the same iteration, the fingerprint's finding is the weights flip's (a gradients flip reaches every rank alike,
 * invisible to it); and a weights flip followed by gemm-output flips, the fingerprint's finding is never a gemm-output
 * flip's (until 2026-12-02 the newest flip of either kind took it: the weights flip was "not detected"). */
Test(faults, a_finding_goes_to_a_flip_its_detector_can_see, .timeout = 120)
{
    /* 2 ranks: the fingerprint names no rank (a tie), so only the kind of buffer tells the two flips apart */
    json_t *s = run("name: tie\nranks: 2\niterations: 40\nseed: 5\n"
                    "workload:\n  gemm: {m: 512, n: 512, k: 512, count: 4}\n  allreduce: {bytes: 1MiB}\n"
                    "heartbeat: {interval: 50ms, timeout: 800ms}\nsim: {tflops: 0.1}\n"
                    "faults:\n  - {kind: bitflip, at: 10, rank: 0, target: weights, where: exponent}\n"
                    "  - {kind: bitflip, at: 10, rank: 1, target: gradients, where: exponent}\n"
                    "detectors: [fingerprint]\nrecovery: none\n", 1);
    json_t *w = e2e_injected_fault(s, 0), *g = e2e_injected_fault(s, 1);
    cr_assert(w && g, "two faults: %s", json_dumps(json_object_get(s, "faults"), 0));
    cr_assert_str_eq(json_string_value(json_object_get(w, "detected_by")) ?: "(none)", "fingerprint", "%s",
                     json_dumps(json_object_get(s, "faults"), 0));
    cr_assert(json_is_null(json_object_get(g, "detected_by")), "a gradients flip credited: %s", json_dumps(g, 0));
    json_decref(s);
    /* a weights flip found by a sliced fingerprint a few iterations on, gemm-output flips in between */
    s = run("name: sl\nranks: 4\niterations: 40\nseed: 7\n"
            "workload:\n  gemm: {m: 512, n: 512, k: 512, count: 4}\n  allreduce: {bytes: 1MiB}\n"
            "heartbeat: {interval: 50ms, timeout: 800ms}\nsim: {tflops: 0.1}\n"
            "faults:\n  - {kind: bitflip, at: 10, rank: 1, target: weights, where: exponent}\n"
            "  - {kind: bitflip, at: 11, rank: 1, target: gemm-output, where: mantissa}\n"
            "  - {kind: bitflip, at: 12, rank: 1, target: gemm-output, where: mantissa}\n"
            "  - {kind: bitflip, at: 13, rank: 1, target: gemm-output, where: mantissa}\n"
            "detectors: [{fingerprint: {slices: 4}}]\nrecovery: none\n", 1);
    for (size_t k = 1; k < 4; k++)
        cr_assert_str_neq(json_string_value(json_object_get(e2e_injected_fault(s, k), "detected_by")) ?: "(none)",
                          "fingerprint", "fault %zu: %s", k, json_dumps(json_object_get(s, "faults"), 0));
    cr_assert_str_eq(json_string_value(json_object_get(e2e_injected_fault(s, 0), "detected_by")) ?: "(none)",
                     "fingerprint", "%s", json_dumps(json_object_get(s, "faults"), 0));
    json_decref(s);
}

/* A straggler still slowing its rank when a recovery begins is cut short by it (the recovery's continuation ends the
 * slowdown): a x20 straggler at 24 for 3 s, a crash at 25 recovered in process, and the straggler is excused as
 * rolled back, saying so (until 2026-12-02 it read "not detected", a miss charged to the heartbeat). */
Test(faults, a_straggler_cut_short_by_a_recovery_is_no_miss, .timeout = 120)
{
    json_t *s = run("name: rec2\nranks: 4\niterations: 80\nseed: 5\n"
                    "workload:\n  gemm: {m: 4096, n: 4096, k: 4096, count: 8}\n  allreduce: {bytes: 64MiB, emulate_busbw: 100}\n"
                    "heartbeat: {interval: 100ms, timeout: 1s}\n"
                    "faults:\n  - {kind: straggler, at: 24, rank: 0, factor: 20, duration: 3s}\n"
                    "  - {kind: crash, at: 25, rank: 3}\n"
                    "recovery: {inprocess: {replicate_every: 5}}\n", 0);
    json_t *st = e2e_injected_fault(s, 0);
    cr_assert_str_eq(json_string_value(json_object_get(st, "kind")), "straggler");
    cr_assert(json_is_true(json_object_get(st, "rolled_back")) &&
                  strstr(json_string_value(json_object_get(st, "outcome")) ?: "", "cut short by the recovery"),
              "%s", json_dumps(json_object_get(s, "faults"), 0));
    json_decref(s);
}

/* A fault whose time (at_s) the run never reached is said: its fault_not_injected event and the run's
 * faults_not_injected (until 2026-12-02 the run said nothing: faults [], exit 0). */
Test(faults, a_time_the_run_never_reached_is_said, .timeout = 60)
{
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("faults-late.log"),
                     (const char *[]){ "run", e2e_scenario(BASE "faults: [{kind: crash, at_s: 100, rank: 1}]\n"),
                                       "--backend", "sim", "--out", out, NULL });
    cr_assert_eq(rc, 0);
    json_t *e = e2e_first_event(out, "fault_not_injected"), *s = e2e_summary(out);
    cr_assert(e && strstr(json_string_value(json_object_get(e, "why")) ?: "", "at_s 100 s"), "%s",
              e ? json_dumps(e, 0) : "no fault_not_injected event");
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults_not_injected")), 1);
    json_decref(e);
    json_decref(s);
}

/* An injection that changed nothing — a value perturbation smaller than the element's rounding (1 + 1e-12 in fp32),
 * which leaves every bit as it was — is no miss: the record says `ineffective: true`, no bits and why in its outcome;
 * no finding is matched to it; the run counts it apart (`ineffective`), out of the coverage (until 2026-12-02 it was
 * injected and not detected: coverage 0.5 here). A flip that changed bits beside it is counted and caught as ever. */
Test(faults, an_injection_that_changed_nothing_is_no_miss, .timeout = 60)
{
    json_t *s = run(BASE "faults:\n  - {kind: bitflip, at: 5, rank: 1, target: weights, where: value, value: 1e-12}\n"
                         "  - {kind: bitflip, at: 12, rank: 0, target: weights, where: exponent}\n"
                         "detectors: [fingerprint]\n", 1);   /* recovery none: the caught flip ends the run */
    json_t *nothing = e2e_injected_fault(s, 0), *real = e2e_injected_fault(s, 1);
    cr_assert(nothing && real);
    cr_assert(json_is_true(json_object_get(nothing, "ineffective")), "%s", json_dumps(nothing, JSON_COMPACT));
    cr_assert_eq(json_array_size(json_object_get(nothing, "bits")), 0);
    cr_assert(json_is_null(json_object_get(nothing, "detected_by")));
    cr_assert(strncmp(json_string_value(json_object_get(nothing, "outcome")), "ineffective", 11) == 0, "%s",
              json_string_value(json_object_get(nothing, "outcome")));
    cr_assert(json_is_false(json_object_get(real, "ineffective")));
    cr_assert_str_eq(json_string_value(json_object_get(real, "detected_by")), "fingerprint");
    json_t *rf = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults");
    cr_assert_eq(json_integer_value(json_object_get(rf, "injected")), 1, "%s", json_dumps(rf, JSON_COMPACT));
    cr_assert_eq(json_integer_value(json_object_get(rf, "ineffective")), 1);
    cr_assert_float_eq(json_number_value(json_object_get(rf, "coverage")), 1.0, 1e-9);
    json_decref(s);
}
