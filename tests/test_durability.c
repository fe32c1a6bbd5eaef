/* tests/test_durability.c: what gauntlet writes survives what happens to it. Checkpoints of any size restore
 * (and a broken one is not picked), every background write's outcome is reported, a killed run's checkpoint files
 * are removed by the next run; a results file that cannot be written ends the run with exit 3 and leaves whole
 * lines; a results folder is held by the run writing it, and a run into a used one removes the earlier run's derived
 * files; `gauntlet summarize` reads what a kill or crash leaves and refuses a bad record by file:line and key. */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkpoint.h"
#include "ckpt_async.h"
#include "e2e.h"
#include "results.h"
#include "scenario.h"
#include "util.h"

/* A new empty folder under /tmp, removed when the test process exits. */
static const char *tmpdir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/gauntlet-durability-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    return dir;
}

/* Writes a state of len bytes (a pattern), reads it back and checks every byte. */
static void round_trip(size_t len, uint64_t file_bytes)
{
    const char *dir = tmpdir();
    unsigned char *state = xmalloc(len);
    for (size_t i = 0; i < len; i++)
        state[i] = (unsigned char)(i * 2654435761u >> 13);
    double secs;
    char why[512];
    cr_assert_eq(checkpoint_write(dir, "t-h-1", 0, 1, 42, state, len, file_bytes, &secs, why, sizeof why), 0, "%s", why);
    int64_t it = -1;
    cr_assert_eq(checkpoint_peek(dir, "t-h-1", 0, 1, &it), 0);
    cr_assert_eq(it, 42);
    void *back = NULL;
    size_t got = 0;
    uint64_t bytes = 0;
    cr_assert_eq(checkpoint_read(dir, "t-h-1", 0, 1, &it, &back, &got, &bytes, why, sizeof why), 0, "%s", why);
    cr_assert_eq(got, len);
    cr_assert_eq(bytes, file_bytes > len + sizeof(struct ckpt_header) ? file_bytes : len + sizeof(struct ckpt_header));
    cr_assert(memcmp(back, state, len) == 0, "the state read back differs");
    free(back);
    /* a file cut short is not picked, and the reader says what is wrong */
    char path[1024];
    checkpoint_path(path, sizeof path, dir, "t-h-1", 0, 1);
    cr_assert_eq(truncate(path, (off_t)(bytes - 1)), 0);
    cr_expect_eq(checkpoint_peek(dir, "t-h-1", 0, 1, &it), -1);
    cr_expect_eq(checkpoint_read(dir, "t-h-1", 0, 1, &it, &back, &got, &bytes, why, sizeof why), -1);
    cr_expect(strstr(why, "truncated"), "%s", why);
    checkpoint_remove(dir, "t-h-1", 0);
    free(state);
    cr_assert_eq(rmdir(dir), 0);
}

Test(checkpoint, a_64_mib_state_restores_whole, .timeout = 60) { round_trip(64u << 20, 64u << 20); }
Test(checkpoint, a_100_mib_state_in_a_file_of_150_restores_whole, .timeout = 60) { round_trip(100u << 20, 150u << 20); }
Test(checkpoint, a_small_state_repeated_to_the_file_size_restores, .timeout = 60) { round_trip(3000, 5u << 20); }

/* A file of the first format (its state repeated from the first MiB only) is never picked for a restore. */
Test(checkpoint, a_version_1_file_is_not_picked)
{
    const char *dir = tmpdir();
    char path[1024], why[256];
    double secs;
    char state[64] = "state";
    cr_assert_eq(checkpoint_write(dir, "v-h-1", 3, 0, 7, state, sizeof state, 0, &secs, why, sizeof why), 0);
    checkpoint_path(path, sizeof path, dir, "v-h-1", 3, 0);
    int fd = open(path, O_RDWR);
    struct ckpt_header h;
    cr_assert_eq(pread(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
    h.version = 1;
    cr_assert_eq(pwrite(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
    close(fd);
    int64_t it;
    cr_expect_eq(checkpoint_peek(dir, "v-h-1", 3, 0, &it), -1);
    checkpoint_remove(dir, "v-h-1", 3);
    rmdir(dir);
}

/* What a checkpoint's header says is checked with its state: a damaged iteration (the restore would hand over another
 * iteration's state, until 2026-11-30 unnoticed: the hash was the state's alone) fails the hash, and another rank's
 * file under this rank's name is refused, naming why. */
Test(checkpoint, a_header_that_lies_is_not_restored)
{
    const char *dir = tmpdir();
    char path[1024], other[1024], why[256];
    double secs;
    char state[4096];
    for (size_t i = 0; i < sizeof state; i++)
        state[i] = (char)(i * 31);
    cr_assert_eq(checkpoint_write(dir, "h-h-1", 0, 0, 42, state, sizeof state, 0, &secs, why, sizeof why), 0, "%s", why);
    checkpoint_path(path, sizeof path, dir, "h-h-1", 0, 0);
    int fd = open(path, O_RDWR);
    cr_assert(fd >= 0);
    struct ckpt_header h;
    cr_assert_eq(pread(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
    h.iter = 41;
    cr_assert_eq(pwrite(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
    cr_assert_eq(close(fd), 0);
    int64_t it = -1;
    void *back = NULL;
    size_t got = 0;
    uint64_t bytes = 0;
    cr_assert_eq(checkpoint_peek(dir, "h-h-1", 0, 0, &it), 0, "the header alone looks whole");
    cr_assert_eq(it, 41);
    cr_assert_eq(checkpoint_read(dir, "h-h-1", 0, 0, &it, &back, &got, &bytes, why, sizeof why), -1, "a lying iteration restored");
    cr_assert(strstr(why, "hash"), "%s", why);
    /* rank 3's whole file under rank 0's name */
    cr_assert_eq(checkpoint_write(dir, "h-h-1", 3, 0, 42, state, sizeof state, 0, &secs, why, sizeof why), 0, "%s", why);
    checkpoint_path(other, sizeof other, dir, "h-h-1", 3, 0);
    cr_assert_eq(rename(other, path), 0);
    cr_assert_eq(checkpoint_read(dir, "h-h-1", 0, 0, &it, &back, &got, &bytes, why, sizeof why), -1, "another rank's state restored");
    cr_assert(strstr(why, "another rank"), "%s", why);
    checkpoint_remove(dir, "h-h-1", 0);
    cr_assert_eq(rmdir(dir), 0);
}

/* Every background write's outcome comes back, failures included, also when several wait. */
Test(checkpoint, every_async_outcome_is_reported, .timeout = 60)
{
    const char *dir = tmpdir();
    char bad[128];
    snprintf(bad, sizeof bad, "%s/file", dir);   /* a file where the folder should be: every write fails */
    int fd = open(bad, O_CREAT | O_WRONLY, 0644);
    cr_assert(fd >= 0);
    close(fd);
    char sub[160];
    snprintf(sub, sizeof sub, "%s/x", bad);
    struct ckpt_async *a = ckpt_async_start(sub, "a-h-1", 0, 0);
    cr_assert_not_null(a);
    char state[256] = { 0 };
    for (int i = 0; i < 5; i++)
        cr_assert_eq(ckpt_async_submit(a, state, sizeof state, i % 2, 10 * (i + 1), NULL, NULL), 0);
    ckpt_async_drain(a, NULL, NULL);
    struct ckpt_done d;
    int n = 0;
    while (ckpt_async_poll(a, &d)) {
        cr_expect(d.failed, "write %d succeeded into a path under a file", n);
        cr_expect(strstr(d.why, "checkpoint folder"), "%s", d.why);
        cr_expect_eq(d.iter, 10 * (n + 1), "outcomes in order");
        n++;
    }
    cr_expect_eq(n, 5, "5 writes, %d outcomes", n);
    ckpt_async_stop(a);
    unlink(bad);
    rmdir(dir);
}

/* A run killed outright leaves its checkpoint files; the next run removes them, and leaves a live run's. */
Test(checkpoint, a_killed_runs_files_are_removed_by_the_next, .timeout = 240)
{
    const char *dir = tmpdir();
    char text[1024];
    snprintf(text, sizeof text, "name: sweep\nranks: 2\niterations: 100000\nseed: 1\n"
                                "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                                "  checkpoint: {every: 5, bytes: 64KiB, path: %s}\nrecovery: restart\n", dir);
    const char *path = e2e_scenario(text);
    const char *out1 = e2e_outdir();
    pid_t p = e2e_start("/dev/null", (const char *[]){ "run", path, "--backend", "sim", "--headless", "--out", out1, NULL });
    cr_assert_eq(e2e_wait_started(out1, 40, 30), 0, "the run did not start");
    pid_t w[4];
    int nw = e2e_worker_pids(out1, w, 4);
    cr_assert_eq(kill(p, SIGKILL), 0);
    cr_assert_eq(e2e_wait(p, 10), 128 + SIGKILL);
    for (int i = 0; i < nw; i++)   /* the workers die with it (PDEATHSIG) */
        for (int k = 0; k < 200 && !e2e_gone(w[i]); k++)
            usleep(10000);
    /* the killed run left no summary: summarize rebuilds one, marked incomplete, from its record */
    char sum[600];
    snprintf(sum, sizeof sum, "%s/summary.json", out1);
    cr_assert_neq(access(sum, F_OK), 0, "a SIGKILLed run wrote a summary");
    cr_assert_eq(e2e_run(e2e_log("summarize.log"), (const char *[]){ "summarize", out1, NULL }), 0);
    json_t *s = e2e_summary(out1), *r0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(s, "incomplete")));
    cr_assert(json_is_false(json_object_get(r0, "complete")));
    json_int_t iters = json_integer_value(json_object_get(r0, "iterations"));
    cr_assert(iters >= 15 && iters * 2 <= e2e_count_events(out1, "iteration"), "%lld iterations rebuilt", (long long)iters);
    cr_assert_gt(json_number_value(json_object_get(json_object_get(r0, "iteration_s"), "p50")), 0);
    cr_assert(json_is_number(json_object_get(json_object_get(json_object_get(r0, "power"), "aggregate"), "swing_w")),
              "the run's power, from power.csv");
    json_decref(s);
    int count = e2e_count_entries(dir, "ckpt");
    cr_assert_geq(count, 2, "the killed run left %d checkpoint files", count);
    /* a live run's files stay; the dead one's go */
    const char *out2 = e2e_outdir();
    pid_t q = e2e_start(e2e_log("sweep.log"), (const char *[]){ "run", path, "--backend", "sim", "--headless", "--out", out2, NULL });
    cr_assert_eq(e2e_wait_started(out2, 40, 30), 0, "the run did not start");
    char *log = e2e_read(e2e_log("sweep.log"));
    cr_expect(log && strstr(log, "left by runs that are gone"), "%s", log);
    free(log);
    cr_expect_eq(checkpoint_sweep(dir), 0, "the live run's files were taken for a dead run's");
    kill(q, SIGINT);
    cr_expect_eq(e2e_wait(q, 30), 1, "a run stopped by SIGINT ends early (exit 1)");
    cr_expect_eq(e2e_run(e2e_log("summarize.log"), (const char *[]){ "summarize", out2, NULL }), 2,
                 "a summary the run wrote itself is kept");
    cr_expect_leq(e2e_count_entries(dir, NULL), 0, "a run that ends removes its own checkpoint files");
    rmdir(dir);
}

/* A run whose events.jsonl reaches the file-size limit ends at once with exit 3, the file and the OS error
 * named, its files whole and its summary written. */
Test(results_io, a_file_size_limit_ends_the_run_with_exit_3, .timeout = 180)
{
    const char *out = e2e_outdir();
    const char *path = e2e_scenario("name: fsize\nranks: 2\niterations: 1000000\nseed: 1\npower: {sample_hz: 1000}\n"
                                    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    pid_t p = fork();
    cr_assert(p >= 0);
    if (p == 0) {
        struct rlimit rl = { 5000u << 10, 5000u << 10 };   /* the control block fits; events.jsonl does not */
        int fd = open(e2e_log("fsize.log"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(99);
        execl(GAUNTLET_BIN, "gauntlet", "run", path, "--backend", "sim", "--headless", "--out", out, (char *)NULL);
        _exit(98);
    }
    int rc = e2e_wait(p, 170);
    char *log = e2e_read(e2e_log("fsize.log"));
    cr_assert_eq(rc, 3, "exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, "cannot write") && strstr(log, "File too large"), "%s", log);
    free(log);
    json_t *s = e2e_summary(out);   /* written, though events.jsonl is full */
    cr_expect_eq(json_integer_value(json_object_get(s, "exit")), 3);
    json_decref(s);
    cr_expect(e2e_count_events(out, "start") == 1, "every line of events.jsonl parses");   /* fails on a torn line */
    char pth[1100];
    snprintf(pth, sizeof pth, "%s/power.csv", out);
    char *csv = e2e_read(pth);
    cr_assert(csv);
    size_t len = strlen(csv);
    cr_expect(len && csv[len - 1] == '\n', "power.csv ends with a whole row");
    free(csv);
}

/* A write that fails (a full disk) is said once, with the file and the error; what was written stays. */
Test(results_io, a_full_disk_fails_the_write_and_keeps_the_lines_before)
{
    const char *dir = tmpdir();
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[512];
    cr_assert_eq(scenario_load_string("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
                                      "  allreduce: {bytes: 1MiB}\n", "x.yaml", sc, err, sizeof err), 0, "%s", err);
    struct results r;
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    cr_assert_eq(results_event(&r, mono_ns(), "first", NULL), 0);
    int full = open("/dev/full", O_WRONLY);
    cr_assert(full >= 0);
    int saved = dup(r.events_fd);
    cr_assert_eq(dup2(full, r.events_fd), r.events_fd);
    cr_expect_eq(results_event(&r, mono_ns(), "second", NULL), -1);
    cr_assert_not_null(results_failed(&r));
    cr_expect(strstr(results_failed(&r), "events.jsonl: No space left on device"), "%s", results_failed(&r));
    cr_expect_eq(results_event(&r, mono_ns(), "third", NULL), -1, "no write is tried after a failure");
    dup2(saved, r.events_fd);
    close(saved);
    close(full);
    /* a second run into the same folder while this one holds it */
    struct results r2;
    cr_expect_eq(results_open(&r2, dir, sc, mono_ns(), err, sizeof err), -1);
    cr_expect(strstr(err, "is in use by another run (pid"), "%s", err);
    results_close(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *ev = e2e_read(path);
    cr_expect(ev && strstr(ev, "\"first\"") && !strstr(ev, "\"second\""), "%s", ev);
    free(ev);
    cr_expect_eq(results_open(&r2, dir, sc, mono_ns(), err, sizeof err), 0, "free again once the run closed it: %s", err);
    results_close(&r2);
    free(sc);
}

/* The scenario the issue named: sim.max_elems 1000000 (a 4 MB state) restarted from a 64 MiB checkpoint ends in
 * the fault-free run's state. */
Test(checkpoint, a_large_state_restarts_into_the_fault_free_state, .timeout = 120)
{
    const char *dir = tmpdir();
    char text[1024], faulty[1200];
    snprintf(text, sizeof text, "name: large\nranks: 2\niterations: 25\nseed: 4\nsim: {max_elems: 1000000}\n"
                                "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 1MiB}\n"
                                "  checkpoint: {every: 10, bytes: 64MiB, path: %s}\nrecovery: restart\n", dir);
    snprintf(faulty, sizeof faulty, "%sfaults:\n  - {kind: crash, at: 15, rank: 1}\n", text);
    const char *o1 = e2e_outdir(), *o2 = e2e_outdir();
    cr_assert_eq(e2e_run("/dev/null", (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--headless", "--out", o1, NULL }), 0);
    int rc = e2e_run(e2e_log("large.log"),
                     (const char *[]){ "run", e2e_scenario(faulty), "--backend", "sim", "--headless", "--out", o2, NULL });
    char *log = e2e_read(e2e_log("large.log"));
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    json_t *a = e2e_summary(o1), *b = e2e_summary(o2);
    const char *sa = json_string_value(json_object_get(json_array_get(json_object_get(a, "runs"), 0), "state_fingerprint"));
    const char *sb = json_string_value(json_object_get(json_array_get(json_object_get(b, "runs"), 0), "state_fingerprint"));
    cr_expect_str_eq(sb, sa);
    json_t *f = e2e_injected_fault(b, 0);
    cr_expect_str_eq(json_string_value(json_object_get(f, "restore_from")), "checkpoint of iteration 10");
    json_decref(a);
    json_decref(b);
    rmdir(dir);
}

/* `gauntlet summarize` over a record a run left, or one written here: what a kill or crash leaves is read, a bad
 * record is exit 2 naming file:line and key, and nothing waits on a FIFO. */

/* Writes text into dir/name. */
static void put(const char *dir, const char *name, const char *text, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* Appends len bytes of text to dir/name. */
static void append(const char *dir, const char *name, const char *text, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* A new results folder holding a whole run's record of 400 iterations on 2 ranks, its summary.json removed (as
 * a killed run leaves it). */
static const char *killed_run(void)
{
    const char *out = e2e_outdir();
    const char *sc = e2e_scenario("name: alpha\nranks: 2\niterations: 400\nseed: 1\n"
                                  "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    cr_assert_eq(e2e_run(e2e_log("sz-run.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL }), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/summary.json", out);
    cr_assert_eq(unlink(path), 0);
    return out;
}

/* A new folder with events.jsonl holding text. */
static const char *record(const char *text)
{
    const char *dir = tmpdir();
    put(dir, "events.jsonl", text, strlen(text));
    return dir;
}

/* Runs summarize on dir: its exit code, its output in *log (freed by the caller). */
static int summarize(const char *dir, char **log)
{
    int rc = e2e_run(e2e_log("sz.log"), (const char *[]){ "summarize", dir, NULL });
    *log = e2e_read(e2e_log("sz.log"));
    return rc;
}

/* Checks that summarize rebuilt dir's summary with every iteration and the run's power. */
static void expect_power_kept(const char *dir)
{
    char *log;
    int rc = summarize(dir, &log);
    cr_assert_eq(rc, 0, "%s", log);
    json_t *s = e2e_summary(dir), *r0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect_eq(json_integer_value(json_object_get(r0, "iterations")), 400);
    cr_expect(json_is_number(json_object_get(json_object_get(json_object_get(r0, "power"), "aggregate"), "swing_w")),
              "the run's power was dropped: %s", log);
    cr_expect(!json_object_get(s, "power_note"), "%s", json_string_value(json_object_get(s, "power_note")));
    json_decref(s);
    cr_expect(strstr(log, "/power.csv: ") && strstr(log, "ignored"), "what was ignored is said, naming the file:\n%s", log);
    cr_expect(!strstr(log, "gauntlet-summarize-"), "read in place, never from a copy:\n%s", log);
    free(log);
    /* analyze reads the folder as summarize does (until 2026-11-29: exit 2, "expected 12 columns, got 11") */
    char alog[700];
    snprintf(alog, sizeof alog, "%s.analyze.log", dir);
    rc = e2e_run(alog, (const char *[]){ "analyze", dir, NULL });
    char *text = e2e_read(alog);
    cr_expect_eq(rc, 0, "analyze of a folder a kill left: exit %d\n%s", rc, text);
    cr_expect(text && strstr(text, "ignored"), "%s", text);
    free(text);
}

/* A run that ended said which stretch it analysed (run_end's analysed_s: its warm-up left out): summarize's power
 * for it is over that stretch, and its figures are the run's own. Before 2026-11-29 it took the run from its start,
 * the climb from idle in its ramps. Its bus bandwidth is the run's own too: n the start's bus_ranks (emulate_ranks
 * here), where summarize took the record's 2 ranks (a quarter of the figure lost); and so is its projection: the
 * scenario's GPUs, groups and spec, the run's jitter and seed (until 2026-11-30 10,000 GPUs in one group, no spec: a
 * tenth of the cluster's swing here, and its failing spec gone). */
Test(summarize, an_ended_runs_power_is_over_the_stretch_it_analysed, .timeout = 120)
{
    const char *out = e2e_outdir();
    const char *sc = e2e_scenario("name: stretch\nranks: 2\niterations: 60\nseed: 1\n"
                                  "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n"
                                  "  allreduce: {bytes: 32MiB, emulate_busbw: 1, emulate_ranks: 64}\n"
                                  "power: {sample_hz: 200}\nsim: {tflops: 0.002}\n"
                                  "projection: {gpus: 100000, groups: 4, spec: {dynamic_range_mw: 30}}\n");
    cr_assert_eq(e2e_run(e2e_log("sz-run.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL }), 0);
    json_t *live = e2e_summary(out);
    json_t *la = json_object_get(json_object_get(json_array_get(json_object_get(live, "runs"), 0), "power"), "aggregate");
    double swing = json_number_value(json_object_get(la, "swing_w"));
    double ramp = json_number_value(json_object_get(json_object_get(la, "ramp_up_w_s"), "100ms"));
    double bus = json_number_value(json_object_get(json_array_get(json_object_get(live, "runs"), 0), "busbw_gbs"));
    json_t *lp = json_object_get(la, "projection");
    cr_assert_eq(json_integer_value(json_object_get(lp, "groups")), 4);
    cr_assert(json_is_false(json_object_get(json_object_get(lp, "spec"), "pass")), "100000 GPUs swing more than 30 MW");
    char path[600];
    snprintf(path, sizeof path, "%s/summary.json", out);
    cr_assert_eq(unlink(path), 0);
    char *log;
    cr_assert_eq(summarize(out, &log), 0, "%s", log);
    free(log);
    json_t *s = e2e_summary(out), *pw = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power");
    const char *stretch = json_string_value(json_object_get(pw, "stretch"));
    cr_assert(stretch && strncmp(stretch, "analysed", 8) == 0, "stretch: %s", stretch ? stretch : "(none)");
    json_t *ra = json_object_get(pw, "aggregate");
    double swing2 = json_number_value(json_object_get(ra, "swing_w"));
    double ramp2 = json_number_value(json_object_get(json_object_get(ra, "ramp_up_w_s"), "100ms"));
    cr_expect(fabs(swing2 - swing) <= 0.02 * swing + 1, "swing: summarize %.1f W, the run's own %.1f W", swing2, swing);
    cr_expect(fabs(ramp2 - ramp) <= 0.02 * ramp + 1, "100 ms ramp: summarize %.1f W/s, the run's own %.1f W/s", ramp2, ramp);
    double bus2 = json_number_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "busbw_gbs"));
    /* the bytes over the median phase time, as the run's own (the median of each phase's rate differed by 1 % where
     * the middle two of an even count differed, until 2026-12-02); t_s's microseconds on 33 ms phases: 1e-4 */
    cr_expect(bus > 0.9 && fabs(bus2 - bus) <= 1e-3 * bus, "busbw: summarize %.6f GB/s, the run's own %.6f", bus2, bus);
    /* four all-reduces of 20 MB taking 10, 10, 30 and 30 ms: the bytes over their median time, 1 GB/s, as the run
     * figures it (the median of their rates read 1.33) */
    char rec[2048];
    size_t at = (size_t)snprintf(rec, sizeof rec, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\","
                                 "\"ranks\":2,\"bus_ranks\":2}\n{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,"
                                 "\"mitigation\":\"none\",\"iterations\":2}\n");
    const double dur[2][2] = { { 0.01, 0.03 }, { 0.01, 0.03 } };
    for (int i = 0; i < 2; i++)
        for (int r = 0; r < 2; r++)
            at += (size_t)snprintf(rec + at, sizeof rec - at, "{\"t_s\":%.3f,\"event\":\"phase_begin\",\"rank\":%d,\"run\":0,"
                                   "\"phase\":\"comm\"}\n{\"t_s\":%.3f,\"event\":\"phase_end\",\"rank\":%d,\"run\":0,"
                                   "\"phase\":\"comm\",\"bytes\":20000000}\n", 0.2 + i * 0.1, r, 0.2 + i * 0.1 + dur[r][i], r);
    const char *hand = record(rec);
    cr_assert_eq(summarize(hand, &log), 0, "%s", log);
    free(log);
    json_t *h = e2e_summary(hand);
    double hb = json_number_value(json_object_get(json_array_get(json_object_get(h, "runs"), 0), "busbw_gbs"));
    cr_expect(fabs(hb - 1.0) <= 1e-9, "busbw %.6f GB/s: 20 MB over the median 20 ms is 1", hb);
    json_decref(h);
    json_t *rp = json_object_get(ra, "projection");
    cr_expect_eq(json_integer_value(json_object_get(rp, "gpus")), 100000);
    cr_expect_eq(json_integer_value(json_object_get(rp, "groups")), 4);
    double j = json_number_value(json_object_get(lp, "jitter_s")), j2 = json_number_value(json_object_get(rp, "jitter_s"));
    cr_expect(j > 0 && fabs(j2 - j) <= 1e-6 * j, "the run's jitter: %g s, summarize's %g s", j, j2);
    double mw = json_number_value(json_object_get(lp, "swing_mw")), mw2 = json_number_value(json_object_get(rp, "swing_mw"));
    cr_expect(mw > 10 && fabs(mw2 - mw) <= 0.03 * mw, "cluster swing: summarize %.2f MW, the run's own %.2f MW", mw2, mw);
    cr_expect(json_is_false(json_object_get(json_object_get(rp, "spec"), "pass")), "the run's failing spec is kept");
    json_decref(s);
    json_decref(live);
}

/* The record is on disk before the summary of it: an fsync of events.jsonl that fails (a disk that lost what it was
 * given: tests/stall_preload.c) fails the run, exit 3, its summary naming the file (until 2026-11-30 the record was
 * fsynced only after summary.json, a failure there logged and the run's exit 0). */
Test(summarize, a_record_that_cannot_be_made_durable_fails_the_run, .timeout = 120)
{
    const char *out = e2e_outdir();
    const char *sc = e2e_scenario("name: eio\nranks: 2\niterations: 20\nseed: 1\n"
                                  "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_FSYNC_EIO=/events.jsonl", NULL });
    int rc = e2e_run(e2e_log("sz-eio.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL });
    e2e_preload_end();
    char *log = e2e_read(e2e_log("sz-eio.log"));
    cr_assert_eq(rc, 3, "exit %d:\n%s", rc, log);
    free(log);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "events.jsonl") && strstr(why, "Input/output error"), "stopped: %s", why ? why : "(none)");
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 3);
    json_decref(s);
}

/* The last line of dir/events.jsonl, parsed (the test fails when there is none, or it does not parse). */
static json_t *last_line(const char *dir)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path);
    cr_assert_not_null(text, "no %s", path);
    size_t len = strlen(text);
    cr_assert(len && text[len - 1] == '\n', "events.jsonl does not end in a whole line");
    text[len - 1] = 0;
    char *last = strrchr(text, '\n');
    json_error_t err;
    json_t *o = json_loads(last ? last + 1 : text, 0, &err);
    cr_assert_not_null(o, "the last line does not parse (%s): %s", err.text, last ? last + 1 : text);
    free(text);
    return o;
}

/* Runs the small scenario name into out with the fsync shim (tests/stall_preload.c) set by env; its exit code, its
 * output in *log. */
static int run_eio(const char *name, const char *out, const char *const *env, char **log)
{
    char text[256], logn[64];
    snprintf(text, sizeof text, "name: %s\nranks: 2\niterations: 20\nseed: 1\n"
                                "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n", name);
    snprintf(logn, sizeof logn, "sz-%s.log", name);
    const char *sc = e2e_scenario(text), *logp = e2e_log(logn);
    e2e_preload(STALL_PRELOAD, env);
    int rc = e2e_run(logp, (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL });
    e2e_preload_end();
    *log = e2e_read(logp);
    return rc;
}

/* summary.json in place whose folder's fsync fails (the folder's second fsync: the first is scenario.yaml's) is the
 * run's failure, exit 3, and what is in place says so: summary.json with exit 3 and stopped naming it, the end line
 * exit 3 (until 2026-11-30 the run took it for "not written": exit 3, while the summary.json in place said exit 0). */
Test(record, a_summary_whose_folder_cannot_be_synced_says_exit_3, .timeout = 120)
{
    const char *out = e2e_outdir();
    char *log;
    int rc = run_eio("direio", out, (const char *[]){ "GAUNTLET_TEST_FSYNC_EIO=/run", "GAUNTLET_TEST_FSYNC_EIO_AFTER=1", NULL },
                     &log);
    cr_assert_eq(rc, 3, "exit %d:\n%s", rc, log);
    cr_expect(strstr(log, "summary.json is written, but its folder could not be synced: Input/output error"), "%s", log);
    free(log);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_expect_eq(json_integer_value(json_object_get(s, "exit")), 3, "summary.json says exit %lld",
                 (long long)json_integer_value(json_object_get(s, "exit")));
    cr_expect(why && strstr(why, "summary.json") && strstr(why, "could not be synced"), "stopped: %s", why ? why : "null");
    json_decref(s);
    json_t *end = last_line(out);
    cr_expect_str_eq(json_string_value(json_object_get(end, "event")), "end");
    cr_expect_eq(json_integer_value(json_object_get(end, "exit")), 3);
    json_decref(end);
}

/* A results folder whose fsync fails at set-up (scenario.yaml's: its first) refuses the run before its record is
 * begun, exit 3, saying the file is in place but not durable: no summary written there could be made durable. */
Test(record, a_folder_that_cannot_be_synced_at_set_up_refuses_the_run, .timeout = 120)
{
    const char *out = e2e_outdir();
    char *log;
    int rc = run_eio("setupeio", out, (const char *[]){ "GAUNTLET_TEST_FSYNC_EIO=/run", NULL }, &log);
    cr_assert_eq(rc, 3, "exit %d:\n%s", rc, log);
    cr_expect(strstr(log, "scenario.yaml is written, but its folder could not be synced: Input/output error"), "%s", log);
    free(log);
    char path[600];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    cr_expect_neq(access(path, F_OK), 0, "no record begun: the run never began");
}

/* The end line is fsynced before the run ends: where that fails (the second fsync of events.jsonl: the first is the
 * record's before the summary) the run is exit 3 naming the file, the end line says 3 (one end line: the one that said
 * 0 is taken back), and summary.json is written again saying 3 (until 2026-11-30 the end line was fsynced at the
 * close only, a failure there said on stderr, and the run exited 0). */
Test(record, an_end_line_that_cannot_be_made_durable_is_exit_3, .timeout = 120)
{
    const char *out = e2e_outdir();
    char *log;
    int rc = run_eio("endeio", out, (const char *[]){ "GAUNTLET_TEST_FSYNC_EIO=/events.jsonl", "GAUNTLET_TEST_FSYNC_EIO_AFTER=1",
                                                      NULL }, &log);
    cr_assert_eq(rc, 3, "exit %d:\n%s", rc, log);
    cr_expect(strstr(log, "events.jsonl: Input/output error"), "%s", log);
    free(log);
    cr_expect_eq(e2e_count_events(out, "end"), 1, "one end line");
    json_t *end = last_line(out);
    const char *why = json_string_value(json_object_get(end, "reason"));
    cr_expect_str_eq(json_string_value(json_object_get(end, "event")), "end");
    cr_expect_eq(json_integer_value(json_object_get(end, "exit")), 3, "the end line says exit %lld",
                 (long long)json_integer_value(json_object_get(end, "exit")));
    cr_expect(why && strstr(why, "events.jsonl: Input/output error"), "reason: %s", why ? why : "null");
    json_decref(end);
    json_t *s = e2e_summary(out);
    cr_expect_eq(json_integer_value(json_object_get(s, "exit")), 3, "summary.json says exit %lld",
                 (long long)json_integer_value(json_object_get(s, "exit")));
    json_decref(s);
}

/* A failure's text in a folder with a long UTF-8 name keeps the file and the OS error, and whatever cut it leaves
 * text JSON takes: summary.json's stopped and the end line's reason name them (until 2026-11-30 the text was cut at
 * 320 bytes inside an é, and the end line lost its exit and reason). */
Test(record, a_failure_in_a_long_utf8_folder_is_recorded_whole, .timeout = 120)
{
    char out[1024], seg[256];
    int n = snprintf(out, sizeof out, "%s/", e2e_outdir());
    if ((319 - (13 + n)) % 2 == 0)   /* "cannot write " and the folder: the 320th byte falls inside an é */
        n += snprintf(out + n, sizeof out - (size_t)n, "x");
    for (int i = 0; i < 100; i++)
        memcpy(seg + 2 * i, "\xc3\xa9", 2);
    seg[200] = 0;
    snprintf(out + n, sizeof out - (size_t)n, "%s/%s", seg, seg);
    char *log;
    int rc = run_eio("longeio", out, (const char *[]){ "GAUNTLET_TEST_FSYNC_EIO=/events.jsonl", NULL }, &log);
    cr_assert_eq(rc, 3, "exit %d:\n%s", rc, log);
    free(log);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_expect(why && strstr(why, seg) && strstr(why, "/events.jsonl: Input/output error"), "stopped: %s", why ? why : "null");
    json_decref(s);
    json_t *end = last_line(out);
    why = json_string_value(json_object_get(end, "reason"));
    cr_expect_eq(json_integer_value(json_object_get(end, "exit")), 3);
    cr_expect(why && strstr(why, "/events.jsonl: Input/output error"), "reason: %s", why ? why : "null");
    json_decref(end);
}

/* On several nodes node 0 writes an early summary before it waits for the others' records: its record is fsynced
 * before it, as before the last one (until 2026-11-30 the early summary was made durable first: a power loss during
 * the wait could keep a summary of a record shorter than it says). The order of node 0's fsyncs, from the shim. */
Test(record, the_early_summary_on_several_nodes_follows_its_record_to_disk, .timeout = 180)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    const char *sc = e2e_scenario("name: early\nnodes: 2\nranks: 1\niterations: 20\nseed: 5\npower: {sample_hz: 100}\n"
                                  "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    char flog[160], logp[160], cmd[2048];
    snprintf(flog, sizeof flog, "%s.fsyncs", out);
    snprintf(logp, sizeof logp, "%s.log", out);
    const char *asan = getenv("ASAN_OPTIONS");
    snprintf(cmd, sizeof cmd, "timeout 150 mpirun --oversubscribe --allow-run-as-root -np 2 env LD_PRELOAD=%s "
             "GAUNTLET_TEST_FSYNC_LOG=%s ASAN_OPTIONS='%s%sverify_asan_link_order=0' %s run %s --out %s --backend sim "
             "--headless > %s 2>&1", STALL_PRELOAD, flog, asan ? asan : "", asan && *asan ? ":" : "", e2e_bin(), sc, out,
             logp);
    int st = system(cmd);
    char *log = e2e_read(logp);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d:\n%s", st, log ? log : "");
    free(log);
    char *fs = e2e_read(flog);
    cr_assert_not_null(fs, "no fsync was logged");
    char events[160], summary[160];
    snprintf(events, sizeof events, "%s/events.jsonl\n", out);
    snprintf(summary, sizeof summary, "%s/summary.json.tmp.", out);
    const char *e = strstr(fs, events), *m = strstr(fs, summary);
    cr_assert_not_null(m, "summary.json's temp file was never fsynced:\n%s", fs);
    cr_expect(e && e < m, "events.jsonl is fsynced %s the first summary.json:\n%s", e ? "after" : "never before", fs);
    free(fs);
}

/* A rebuilt summary counts as the run did, whatever the shape and the recovery: the iterations (shrink's dropped rank
 * left out, as live; until 2026-11-30 it held the count down to where the rank left), whether it completed, and the
 * bus bandwidth (null where every all-reduce overlapped: until 2026-11-30 an optimizer's bytes after an overlapped
 * all-reduce read as one, 316 GB/s). Cut right after a restart's recovery_end (killed there), the count is where
 * the ranks went back to, not the abandoned timeline's furthest. */
#define SZ_SMALL "ranks: 4\niterations: 30\nseed: 3\nheartbeat: {interval: 50ms, timeout: 800ms}\n"
#define SZ_CKPT "  checkpoint: {every: 5, bytes: 64KiB, path: %s}\n"   /* each case: a folder of its own */
#define SZ_GEMM "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n" SZ_CKPT
Test(summarize, a_rebuilt_summary_counts_as_the_run_did, .timeout = 300)
{
    static const char *const cases[] = {
        "name: overlap\n" SZ_SMALL "workload:\n  shape: dp-overlap\n" SZ_CKPT,
        "name: shrink\n" SZ_SMALL SZ_GEMM "faults: [{kind: crash, at: 12, rank: 3}]\nrecovery: {shrink: {replicate_every: 5}}\n",
        "name: restart\n" SZ_SMALL SZ_GEMM "faults: [{kind: crash, at: 17, rank: 2}]\nrecovery: restart\n",
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char text[1024];
        snprintf(text, sizeof text, cases[c], tmpdir());
        const char *out = e2e_outdir(), *sc = e2e_scenario(text);
        cr_assert_eq(e2e_run(e2e_log("sz-run.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL }), 0,
                     "case %zu", c);
        json_t *live = e2e_summary(out);
        char path[600], *log;
        snprintf(path, sizeof path, "%s/summary.json", out);
        cr_assert_eq(unlink(path), 0);
        cr_assert_eq(summarize(out, &log), 0, "%s", log);
        free(log);
        json_t *s = e2e_summary(out), *lr = json_array_get(json_object_get(live, "runs"), 0),
               *rr = json_array_get(json_object_get(s, "runs"), 0);
        json_int_t li = json_integer_value(json_object_get(lr, "iterations")), ri = json_integer_value(json_object_get(rr, "iterations"));
        cr_expect_eq(ri, li, "case %zu: %lld iterations rebuilt, %lld live", c, (long long)ri, (long long)li);
        cr_expect_eq(json_is_true(json_object_get(rr, "complete")), json_is_true(json_object_get(lr, "complete")), "case %zu", c);
        json_t *lb = json_object_get(lr, "busbw_gbs"), *rb = json_object_get(rr, "busbw_gbs");
        cr_expect_eq(json_is_null(rb), json_is_null(lb), "case %zu: bus bandwidth %s rebuilt, %s live", c,
                     json_is_null(rb) ? "null" : "a number", json_is_null(lb) ? "null" : "a number");
        if (json_is_number(lb) && json_is_number(rb))
            cr_expect(fabs(json_number_value(rb) - json_number_value(lb)) <= 0.05 * json_number_value(lb),
                      "case %zu: %g GB/s rebuilt, %g live", c, json_number_value(rb), json_number_value(lb));
        json_decref(s);
        json_decref(live);
        if (c != 2)
            continue;
        /* the restart's record cut right after its recovery_end, as a kill there leaves it */
        snprintf(path, sizeof path, "%s/events.jsonl", out);
        char *ev = e2e_read(path), *at = ev ? strstr(ev, "\"event\":\"recovery_end\"") : NULL;
        cr_assert(at, "the restart's recovery_end");
        char *eol = strchr(at, '\n');
        cr_assert(eol);
        FILE *f = fopen(path, "w");
        cr_assert(f && fwrite(ev, 1, (size_t)(eol + 1 - ev), f) == (size_t)(eol + 1 - ev) && fclose(f) == 0);
        char *from = strstr(at, "\"from_iter\":");
        cr_assert(from && from < eol);
        long back = strtol(from + 12, NULL, 10), want = LONG_MAX, redone[4] = { -1, -1, -1, -1 };
        /* what the ranks got to: back where no rank redid an iteration yet, else each rank's last line of the new
         * timeline (after the recovery_begin: a restored rank may redo some before the recovery_end is written) */
        for (char *l = strstr(ev, "\"event\":\"recovery_begin\""); l && l < eol; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            int rank = -1, it = -1;
            if (sscanf(l, "{\"t_s\":%*[0-9.],\"event\":\"iteration\",\"rank\":%d,\"run\":0,\"iter\":%d", &rank, &it) == 2 &&
                rank >= 0 && rank < 4)
                redone[rank] = it + 1;
        }
        for (int r = 0; r < 4; r++)
            want = (redone[r] >= 0 ? redone[r] : back) < want ? (redone[r] >= 0 ? redone[r] : back) : want;
        free(ev);
        cr_assert_eq(summarize(out, &log), 0, "%s", log);
        free(log);
        s = e2e_summary(out);
        ri = json_integer_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "iterations"));
        cr_expect_eq(ri, want, "killed after its recovery_end: %lld iterations rebuilt, the ranks had done %ld (back to %ld)",
                     (long long)ri, want, back);
        json_decref(s);
    }
}

/* A run into a folder an earlier run used removes the files derived from the earlier record (summary.json, the
 * report) before anything else; files of other names stay. Killed, the second run is summarized as itself. */
Test(summarize, a_reused_folder_keeps_no_earlier_summary_or_report, .timeout = 120)
{
    const char *out = killed_run();
    char path[600];
    cr_assert_eq(e2e_run(e2e_log("sz-run.log"), (const char *[]){ "summarize", out, NULL }), 0);
    cr_assert_eq(e2e_run(e2e_log("sz-report.log"), (const char *[]){ "report", out, NULL }), 0);
    put(out, "notes.txt", "mine\n", 5);
    put(out, "report.svg", "<svg/>\n", 7);
    const char *sc = e2e_scenario("name: beta\nranks: 2\niterations: 1000000\nseed: 2\n"
                                  "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    pid_t p = e2e_start(e2e_log("sz-run2.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL });
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    int ours = 0;   /* the earlier record is there until this run replaces it */
    for (int i = 0; i < 600 && !ours; i++) {
        char *ev = e2e_read(path);
        ours = ev && strstr(ev, "\"scenario\":\"beta\"") && e2e_count_events(out, "iteration") >= 20;
        free(ev);
        if (!ours)
            usleep(100000);
    }
    cr_assert(ours, "the second run wrote no 20 iterations in 60 s");
    cr_assert_eq(kill(p, SIGKILL), 0);
    cr_assert_eq(e2e_wait(p, 10), 128 + SIGKILL);
    const char *gone[] = { "summary.json", "report.txt", "report.svg" };
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) {
        snprintf(path, sizeof path, "%s/%s", out, gone[i]);
        cr_expect_neq(access(path, F_OK), 0, "%s of the earlier run is still there", gone[i]);
    }
    snprintf(path, sizeof path, "%s/notes.txt", out);
    cr_expect_eq(access(path, F_OK), 0, "a file of another name was removed");
    char *log;
    int rc = summarize(out, &log);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    json_t *s = e2e_summary(out);
    cr_expect_str_eq(json_string_value(json_object_get(s, "scenario")), "beta");
    json_decref(s);
}

/* results_open removes only the derived files it knows. */
Test(results_io, a_reused_folder_loses_only_its_derived_files)
{
    const char *dir = tmpdir();
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[512], path[600];
    cr_assert_eq(scenario_load_string("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
                                      "  allreduce: {bytes: 1MiB}\n", "x.yaml", sc, err, sizeof err), 0, "%s", err);
    for (const char *const *d = results_derived; *d; d++)
        put(dir, *d, "old\n", 4);
    put(dir, "summary.json.bak", "keep\n", 5);
    struct results r;
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    results_close(&r);
    for (const char *const *d = results_derived; *d; d++) {
        snprintf(path, sizeof path, "%s/%s", dir, *d);
        cr_expect_neq(access(path, F_OK), 0, "%s stayed", *d);
    }
    snprintf(path, sizeof path, "%s/summary.json.bak", dir);
    cr_expect_eq(access(path, F_OK), 0, "a file of another name was removed");
    free(sc);
}

/* Whether dir/name exists. */
static int there(const char *dir, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Node 0 taking an earlier cluster run's folder removes the node files its own run does not write (they would be
 * read as its own: `gauntlet view` showed the earlier run's cluster power), except those of a node whose lock a live
 * process holds; a 2-node run with forward: nodes keeps node 1's (its node 1 writes them) and files of other names.
 * Until 2026-11-29 every one stayed. */
Test(results_io, a_reused_folder_loses_the_node_files_the_run_does_not_write)
{
    const char *dir = tmpdir();
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[512], path[600];
    static const char *const nodefiles[] = { "power-nodes.csv", "power-node1.csv", "events-node1.jsonl", ".lock-node1",
                                             "power-node12.csv", "events-node12.jsonl", ".lock-node12" };
    static const char *const others[] = { "power-node1.csv.bak", "events-node.jsonl", "power-nodeX.csv", "notes.txt" };
    for (size_t i = 0; i < sizeof nodefiles / sizeof *nodefiles; i++)
        put(dir, nodefiles[i], "old\n", 4);
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        put(dir, others[i], "keep\n", 5);
    put(dir, "power-node3.csv", "live\n", 5);   /* a node whose lock is held */
    snprintf(path, sizeof path, "%s/.lock-node3", dir);
    int held = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    cr_assert(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0);
    cr_assert_eq(scenario_load_string("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
                                      "  allreduce: {bytes: 1MiB}\n", "x.yaml", sc, err, sizeof err), 0, "%s", err);
    struct results r;
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    results_close(&r);
    for (size_t i = 0; i < sizeof nodefiles / sizeof *nodefiles; i++)
        cr_expect(!there(dir, nodefiles[i]), "%s of the earlier run stayed beside a one-node run", nodefiles[i]);
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        cr_expect(there(dir, others[i]), "%s, a file of another name, was removed", others[i]);
    cr_expect(there(dir, "power-node3.csv") && there(dir, ".lock-node3"), "a held node's files were removed");
    close(held);
    for (size_t i = 0; i < sizeof nodefiles / sizeof *nodefiles; i++)
        put(dir, nodefiles[i], "old\n", 4);
    cr_assert_eq(scenario_load_string("name: x\nnodes: 2\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
                                      "  allreduce: {bytes: 1MiB}\n", "x.yaml", sc, err, sizeof err), 0, "%s", err);
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    results_close(&r);
    cr_expect(there(dir, "power-nodes.csv"), "this run's own power-nodes.csv");
    cr_expect(there(dir, "power-node1.csv") && there(dir, "events-node1.jsonl") && there(dir, ".lock-node1"),
              "node 1's files, which this run's node 1 replaces");
    cr_expect(!there(dir, "power-node12.csv") && !there(dir, "events-node12.jsonl") && !there(dir, ".lock-node12"),
              "a node this run does not have");
    cr_expect(!there(dir, "power-node3.csv") && !there(dir, ".lock-node3"), "node 3's, its lock no longer held");
    free(sc);
}

/* A last line without its newline (the kill came mid-write) is ignored in both files; the rest stands. */
Test(summarize, a_last_line_cut_short_is_ignored, .timeout = 120)
{
    const char *out = killed_run();
    append(out, "power.csv", "1.234567,0,25", 13);
    append(out, "events.jsonl", "{\"t_s\": 5.0, \"event\": \"itera", 28);
    expect_power_kept(out);
}

/* NUL bytes at the end of both files (a crash's padding) are ignored, also after a row cut short. */
Test(summarize, nul_padding_at_the_end_is_ignored, .timeout = 120)
{
    const char *out = killed_run();
    char zeros[8192] = { 0 };
    append(out, "events.jsonl", zeros, sizeof zeros);
    append(out, "power.csv", "9.9,1,2", 7);
    append(out, "power.csv", zeros, sizeof zeros);
    expect_power_kept(out);
}

/* The middle of the stretch dir's run analysed (its run_end's analysed_s), in the events' seconds. */
static double analysed_middle(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path), *line = text ? strstr(text, "\"run_end\"") : NULL;
    cr_assert(line, "%s: no run_end", path);
    while (line > text && line[-1] != '\n')
        line--;
    line[strcspn(line, "\n")] = 0;
    json_t *ev = json_loads(line, 0, NULL), *st = json_object_get(json_object_get(ev, "figures"), "analysed_s");
    cr_assert(json_is_number(json_array_get(st, 0)) && json_is_number(json_array_get(st, 1)), "%s", line);
    double mid = (json_number_value(json_array_get(st, 0)) + json_number_value(json_array_get(st, 1))) / 2;
    json_decref(ev);
    free(text);
    return mid;
}

/* Keeps of dir/power.csv its header and the two rows of one tick (both ranks at one time): the tick nearest the
 * middle of the stretch the run analysed (the middle of the rows fell in a short run's warm-up, outside it, now and
 * then: no row of the run's, not one tick). */
static void keep_one_tick(const char *dir)
{
    char path[600];
    double mid = analysed_middle(dir);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    char *csv = e2e_read(path), *best = NULL;
    cr_assert_not_null(csv, "%s", path);
    char *head_end = strchr(csv, '\n') + 1;
    double best_d = INFINITY;
    for (char *p = head_end; *p; p = strchr(p, '\n') + 1) {
        char *q = strchr(p, '\n');
        if (!q || !q[1])
            break;
        /* a tick: two rows of one time, rank 0 then rank 1 */
        double t0 = strtod(p, NULL), t1 = strtod(q + 1, NULL);
        if (t0 == t1 && strncmp(strchr(p, ',') + 1, "0,", 2) == 0 && strncmp(strchr(q + 1, ',') + 1, "1,", 2) == 0 &&
            fabs(t0 - mid) < best_d) {
            best_d = fabs(t0 - mid);
            best = p;
        }
    }
    cr_assert(best, "%s: no tick of two rows", path);
    char *end = strchr(strchr(best, '\n') + 1, '\n') + 1;   /* past the second row */
    size_t head = (size_t)(head_end - csv), body = (size_t)(end - best);
    memmove(csv + head, best, body);
    put(dir, "power.csv", csv, head + body);
    free(csv);
}

/* What the analysis says about power.csv after summarize_read has returned the trace names the file whole. Until
 * 2026-11-29 the trace kept a pointer to a path on sz_power's stack, and the message printed the bytes of a frame gone
 * (`\xff\xff\xff\xffower.csv: the time column does not advance`; ASan: stack-use-after-return). */
Test(summarize, a_message_about_power_csv_names_it_whole, .timeout = 120)
{
    const char *out = killed_run();
    keep_one_tick(out);   /* each GPU one sample: the grid cannot be found (analyze_grid) */
    char *log;
    int rc = summarize(out, &log);
    char want[700];
    snprintf(want, sizeof want, "gauntlet analyze: %s/power.csv: the time column does not advance", out);
    cr_expect_eq(rc, 0, "%s", log);
    cr_expect(log && strstr(log, want), "'%s' not in:\n%s", want, log);
    free(log);
    json_t *s = e2e_summary(out), *r0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect(json_is_null(json_object_get(r0, "power")), "a run's power from one tick");
    json_decref(s);
}

/* 5000 ranks (past what fixed arrays held) are each counted. */
Test(summarize, every_rank_of_5000_is_counted, .timeout = 60)
{
    size_t cap = 5000 * 100 + 1024, len = 0;
    char *text = xmalloc(cap);
    len += (size_t)snprintf(text + len, cap - len,
                            "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"big\",\"backend\":\"sim\",\"ranks\":5000,\"nodes\":1}\n"
                            "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":2}\n");
    for (int r = 0; r < 5000; r++)
        len += (size_t)snprintf(text + len, cap - len,
                                "{\"t_s\":0.2,\"event\":\"iteration\",\"rank\":%d,\"run\":0,\"iter\":%d,\"dur_s\":0.01}\n", r,
                                r == 4999 ? 0 : 1);
    const char *dir = record(text);
    free(text);
    char *log;
    int rc = summarize(dir, &log);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    json_t *s = e2e_summary(dir), *r0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect_eq(json_integer_value(json_object_get(s, "ranks")), 5000);
    cr_expect_eq(json_array_size(json_object_get(r0, "ranks")), 5000);
    cr_expect_eq(json_integer_value(json_object_get(r0, "iterations")), 1, "rank 4999 completed one");
    json_decref(s);
}

/* A record that declares the most ranks a scenario can ask (4096 on 1024 nodes) and holds one rank's event: the
 * summary lists the ranks that spoke (a list of 4 million took 3 GB to build), the world stays as declared. */
Test(summarize, a_declared_world_costs_only_what_spoke, .timeout = 60)
{
    const char *dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"huge\",\"backend\":\"sim\",\"ranks\":4096,"
                             "\"nodes\":1024}\n"
                             "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":2}\n"
                             "{\"t_s\":0.2,\"event\":\"iteration\",\"rank\":3,\"run\":0,\"iter\":0,\"dur_s\":0.01}\n");
    char *log;
    int rc = summarize(dir, &log);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    json_t *s = e2e_summary(dir), *r0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_expect_eq(json_integer_value(json_object_get(s, "ranks")), 4096, "per node, as a live summary");
    cr_expect_eq(json_integer_value(json_object_get(s, "ranks_total")), 4096 * 1024);
    cr_expect_eq(json_array_size(json_object_get(r0, "ranks")), 4, "ranks 0 to 3: up to the one that spoke");
    cr_expect_eq(json_integer_value(json_object_get(r0, "iterations")), 0, "ranks that never spoke completed none");
    json_decref(s);
    /* one event of the last rank, and no other: the per-rank records would take 4 million entries per run (3.9 GB and
     * a 548 MB summary from 335 bytes): a rank far past every rank shown is exit 2 naming its line */
    dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"huge\",\"backend\":\"sim\",\"ranks\":4096,\"nodes\":1024}\n"
                 "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":2}\n"
                 "{\"t_s\":0.2,\"event\":\"iteration\",\"rank\":4194303,\"run\":0,\"iter\":0,\"dur_s\":0.01}\n");
    rc = summarize(dir, &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "events.jsonl:3: \"rank\": 4194303, far past the ranks the record has shown"), "%s", log);
    free(log);
    /* so is a node's count of a node the start does not have: it made every run walk the 4 million ranks (6,000
     * runs: 54 s from 754 KB, until 2026-12-02); a rank dropped anywhere in the world is a real record's (node 0's
     * record of a 1024-node run holds other nodes' drops before any of their counts) */
    dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":4096}\n"
                 "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":2}\n"
                 "{\"t_s\":0.2,\"event\":\"node_iteration\",\"node\":5,\"run\":0,\"iter\":0}\n");
    rc = summarize(dir, &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "events.jsonl:3: \"node\": expected an integer in [0, 0], got 5"), "%s", log);
    free(log);
    /* 32 runs of that world (a scenario's most), one rank speaking and the last one dropped: each run's count walks
     * only the ranks that spoke (until 2026-12-01 every rank of every run: 8.4e10 steps, minutes; 65,536 runs took
     * tens of minutes from 2 MB; a drop of the last rank walked them all again until 2026-12-02: 2,001 runs took
     * 19 s); a 33rd run is no run a scenario can have: exit 2 naming its line (until 2026-12-02 runs up to 65535 were
     * taken, and each was walked) */
    for (int over = 0; over < 2; over++) {
        size_t cap = 512 + 33 * 96, at = 0;
        char *text = xmalloc(cap);
        at += (size_t)snprintf(text, cap, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"huge\",\"backend\":\"sim\","
                                          "\"ranks\":4096,\"nodes\":1024}\n{\"t_s\":0.01,\"event\":\"run_begin\",\"run\":0,"
                                          "\"mitigation\":\"none\",\"iterations\":2}\n{\"t_s\":0.02,\"event\":\"rank_dropped\","
                                          "\"rank\":4194303,\"ranks_left\":4194303}\n");
        for (int i = 1; i < 32 + over; i++)
            at += (size_t)snprintf(text + at, cap - at, "{\"t_s\":%d.5,\"event\":\"run_begin\",\"run\":%d,"
                                                        "\"mitigation\":\"none\",\"iterations\":2}\n", i, i);
        dir = record(text);
        free(text);
        uint64_t t0 = mono_ns();
        rc = summarize(dir, &log);
        if (over) {
            cr_expect_eq(rc, 2, "%s", log);
            cr_expect(log && strstr(log, "events.jsonl:35: \"run\": expected an integer in [0, 31], got 32"), "%s", log);
            free(log);
            continue;
        }
        cr_expect_eq(rc, 0, "%s", log);
        cr_log_info("32 runs of 4,194,304 ranks summarized in %.2f s", (double)(mono_ns() - t0) * 1e-9);
        free(log);
        s = e2e_summary(dir);
        cr_expect_eq(json_array_size(json_object_get(s, "runs")), 32);
        cr_expect_eq(json_integer_value(json_object_get(json_array_get(json_object_get(s, "runs"), 31), "iterations")), 0);
        json_decref(s);
    }
    /* the ranks past those that spoke count: silent, 0; dropped, not at all (4 ranks, 0 and 1 at 3 iterations) */
    for (int both = 0; both < 2; both++) {
        char rec[1024];
        snprintf(rec, sizeof rec, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":4}\n"
                 "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":3}\n"
                 "{\"t_s\":0.2,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":2,\"dur_s\":0.01}\n"
                 "{\"t_s\":0.2,\"event\":\"iteration\",\"rank\":1,\"run\":0,\"iter\":2,\"dur_s\":0.01}\n"
                 "{\"t_s\":0.3,\"event\":\"rank_dropped\",\"rank\":3,\"ranks_left\":3}\n%s",
                 both ? "{\"t_s\":0.3,\"event\":\"rank_dropped\",\"rank\":2,\"ranks_left\":2}\n" : "");
        const char *d = record(rec);
        cr_assert_eq(summarize(d, &log), 0, "%s", log);
        free(log);
        s = e2e_summary(d);
        cr_expect_eq(json_integer_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "iterations")),
                     both ? 3 : 0, "ranks 2 and 3 %s", both ? "dropped: 3" : "2 silent, in the run: 0");
        json_decref(s);
    }
}

/* A record without a start event is bad input, said so (no stale errno, no exit 3). */
Test(summarize, no_start_event_is_exit_2)
{
    const char *dir = record("{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n");
    char *log;
    int rc = summarize(dir, &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "events.jsonl: no start event") && !strstr(log, "Success"), "%s", log);
    free(log);
}

/* A line over 1 MiB is not taken: exit 2 naming file:line. */
Test(summarize, a_line_over_1_mib_is_exit_2, .timeout = 60)
{
    size_t big = 2u << 20;
    char *text = xmalloc(big + 256);
    int k = snprintf(text, 256, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":1}\n"
                                "{\"t_s\":1,\"event\":\"note\",\"pad\":\"");
    memset(text + k, 'a', big);
    strcpy(text + k + big, "\"}\n");
    const char *dir = record(text);
    free(text);
    char *log;
    int rc = summarize(dir, &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "events.jsonl:2: a line longer than"), "%s", log);
    free(log);
}

/* A line that is no JSON event before the end is exit 2 naming it (a kill cuts only the last line). */
Test(summarize, a_bad_line_before_the_end_is_exit_2)
{
    const char *dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":1}\n"
                             "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n"
                             "{\"t_s\":0.2,\"event\n"
                             "{\"t_s\":0.3,\"event\":\"end\"}\n");
    char *log;
    int rc = summarize(dir, &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "events.jsonl:3: not a JSON event"), "%s", log);
    free(log);
}

/* Runs summarize on dir and expects exit 2 within 20 s (it used to block for ever), the log naming what. */
static void expect_refused_at_once(const char *dir, const char *what)
{
    pid_t p = e2e_start(e2e_log("sz.log"), (const char *[]){ "summarize", dir, NULL });
    int rc = e2e_wait(p, 20);
    char *log = e2e_read(e2e_log("sz.log"));
    cr_expect_eq(rc, 2, "exit %d (-1: still reading after 20 s): %s", rc, log);
    cr_expect(log && strstr(log, what) && strstr(log, "not a regular file"), "%s", log);
    free(log);
}

/* A FIFO or a device in place of events.jsonl or power.csv is exit 2 at once. */
Test(summarize, a_fifo_or_device_is_exit_2_at_once, .timeout = 90)
{
    const char *dir = tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    cr_assert_eq(mkfifo(path, 0644), 0);
    expect_refused_at_once(dir, "events.jsonl");
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(symlink("/dev/zero", path), 0);
    expect_refused_at_once(dir, "events.jsonl");
    cr_assert_eq(unlink(path), 0);
    const char *ev = "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":1}\n"
                     "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n";
    put(dir, "events.jsonl", ev, strlen(ev));
    snprintf(path, sizeof path, "%s/power.csv", dir);
    cr_assert_eq(mkfifo(path, 0644), 0);
    expect_refused_at_once(dir, "power.csv");
}

/* A folder whose .lock another live process holds (a run still going) is exit 3 naming that pid, and no
 * summary.json is written (it would call the run killed); once the holder is gone it is summarized. */
Test(summarize, a_folder_a_run_still_holds_is_exit_3_and_left_alone, .timeout = 60)
{
    const char *dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":1}\n"
                             "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n");
    char path[600];
    snprintf(path, sizeof path, "%s/.lock", dir);
    int up[2];
    cr_assert_eq(pipe(up), 0);
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {   /* holds the lock as a run does, until killed */
        int fd = open(path, O_RDWR | O_CREAT, 0644);
        char pid[32];
        int len = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
        int ok = fd >= 0 && flock(fd, LOCK_EX) == 0 && write(fd, pid, (size_t)len) == len;
        if (write(up[1], ok ? "y" : "n", 1) != 1 || !ok)
            _exit(1);
        for (;;)
            pause();
    }
    close(up[1]);
    char c = 0;
    cr_assert_eq(read(up[0], &c, 1), 1);
    close(up[0]);
    cr_assert_eq(c, 'y');
    char *log, want[200];
    int rc = summarize(dir, &log);
    snprintf(want, sizeof want, "is in use by a run still going (pid %d)", (int)p);
    cr_expect_eq(rc, 3, "exit %d: %s", rc, log);
    cr_expect(log && strstr(log, want), "'%s' not in: %s", want, log);
    free(log);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    cr_expect_neq(access(path, F_OK), 0, "a summary was written over a run still going");
    /* report too: it holds the folder's shared lock while it writes, as summarize does (a run started beside one
     * cleared the folder, and the report wrote the old run's files beside the new record, until 2026-12-02) */
    char rlog[700];
    snprintf(rlog, sizeof rlog, "%s.report.log", dir);
    rc = e2e_run(rlog, (const char *[]){ "report", dir, NULL });
    log = e2e_read(rlog);
    cr_expect_eq(rc, 3, "report: exit %d: %s", rc, log);
    cr_expect(log && strstr(log, want), "'%s' not in: %s", want, log);
    free(log);
    cr_assert_eq(kill(p, SIGKILL), 0);
    cr_assert_eq(waitpid(p, NULL, 0), p);
    rc = summarize(dir, &log);
    cr_expect_eq(rc, 0, "the holder is gone: %s", log);
    free(log);
}

/* A summary the run wrote itself is kept (exit 2: a script reads "kept"); --force rebuilds it from the record, and the
 * rebuilt one says the run had written its own (it read "the run ended, but its summary was not written" until
 * 2026-12-02). */
Test(summarize, a_runs_own_summary_is_kept_and_force_says_it_was_written, .timeout = 60)
{
    const char *out = e2e_outdir();
    const char *sc = e2e_scenario("name: own\nranks: 1\niterations: 5\nseed: 1\n"
                                  "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    cr_assert_eq(e2e_run(e2e_log("own-run.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out,
                                                                   NULL }), 0);
    char *log;
    int rc = summarize(out, &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "the run wrote its own summary: kept"), "%s", log);
    free(log);
    json_t *s = e2e_summary(out);
    cr_expect(!json_object_get(s, "rebuilt_by"), "kept as the run wrote it");
    json_decref(s);
    rc = e2e_run(e2e_log("sz.log"), (const char *[]){ "summarize", out, "--force", NULL });
    log = e2e_read(e2e_log("sz.log"));
    cr_expect_eq(rc, 0, "%s", log);
    free(log);
    s = e2e_summary(out);
    const char *stopped = json_string_value(json_object_get(s, "stopped"));
    cr_expect(stopped && strstr(stopped, "wrote its summary; rebuilt from the record"), "stopped: %s",
              stopped ? stopped : "(none)");
    json_decref(s);
}

/* Values past what arithmetic on them (or an array) can hold are exit 2 naming file:line and key. */
Test(summarize, values_that_would_overflow_are_exit_2)
{
    const char *start = "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":2}\n"
                        "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n";
    char text[1024];
    snprintf(text, sizeof text, "%s{\"t_s\":1,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":9223372036854775807,"
                                "\"dur_s\":0.01}\n", start);
    char *log;
    int rc = summarize(record(text), &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "events.jsonl:3: \"iter\": expected an integer"), "%s", log);
    free(log);
    rc = summarize(record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":9223372036854775807,"
                          "\"nodes\":2}\n"), &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "events.jsonl:1: \"ranks\": expected an integer"), "%s", log);
    free(log);
    snprintf(text, sizeof text, "%s{\"t_s\":1,\"event\":\"iteration\",\"rank\":7,\"run\":0,\"iter\":0,\"dur_s\":0.01}\n", start);
    rc = summarize(record(text), &log);
    cr_expect_eq(rc, 2, "%s", log);
    cr_expect(log && strstr(log, "events.jsonl:3: \"rank\": 7, but the start event gives 2"), "%s", log);
    free(log);
}

/* What no run writes is exit 2 naming its line, never a figure (each read back as one until 2026-12-02): a
 * projection of gpus 5000.0, 0 groups or a band upside down (taken for 10,000 GPUs in one group: half the cluster's
 * MW, twice over); a negative iteration duration (the run's p50 read -5 s); a compute phase that ends before it
 * began (its time summed as negative: 0.178 TFLOP/s for 0.097); a run that ends before it begins (its power
 * null, no word why); and power.csv rows of a rank the run does not have
 * (added into its power: 2008 W for 1342). */
Test(summarize, what_no_run_writes_is_exit_2_naming_it)
{
    static const struct { const char *start, *more, *want; } cases[] = {
        { "\"projection\":{\"gpus\":5000.0,\"groups\":1}", "", "events.jsonl:1: \"projection.gpus\": expected an integer" },
        { "\"projection\":{\"gpus\":5000,\"groups\":0}", "", "events.jsonl:1: \"projection.groups\": expected an integer" },
        { "\"projection\":{\"gpus\":5000,\"groups\":1,\"spec\":{\"max_ramp_up_mw_s\":0,\"max_ramp_down_mw_s\":0,"
          "\"dynamic_range_mw\":0,\"max_band_share\":0,\"band\":[20,0.1]}}", "", "events.jsonl:1: \"projection.spec\": expected" },
        { "\"projection\":[]", "", "events.jsonl:1: \"projection\": expected an object" },
        { "\"seed\":1", "{\"t_s\":1,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":0,\"dur_s\":-5}\n",
          "events.jsonl:3: \"dur_s\": expected a number in [0," },
        { "\"seed\":1", "{\"t_s\":1,\"event\":\"phase_begin\",\"rank\":0,\"run\":0,\"phase\":\"compute\"}\n"
          "{\"t_s\":0.9,\"event\":\"phase_end\",\"rank\":0,\"run\":0,\"phase\":\"compute\",\"flops\":1e12}\n",
          "events.jsonl:4: \"t_s\": 0.9, before its compute phase began (1)" },
        { "\"seed\":1", "{\"t_s\":0.05,\"event\":\"run_end\",\"run\":0,\"mitigation\":\"none\",\"complete\":true}\n",
          "events.jsonl:3: \"t_s\": 0.05, before the run's run_begin (0.1)" },
    };
    /* what real records hold is read: another node's run_end before node 0's begin by its own clock (a short run), a
     * projection written before the start said its spec (the run's GPUs and groups kept, not 10,000 in 1) */
    {
        char *log;
        const char *dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":2,"
                                 "\"projection\":{\"gpus\":500,\"groups\":1}}\n"
                                 "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n"
                                 "{\"t_s\":0.09,\"event\":\"run_end\",\"node\":1,\"run\":0,\"mitigation\":\"none\","
                                 "\"complete\":true}\n"
                                 "{\"t_s\":0.8,\"event\":\"run_end\",\"run\":0,\"mitigation\":\"none\",\"complete\":true}\n");
        char csv[2048];
        size_t at = (size_t)snprintf(csv, sizeof csv, "t_s,rank,watts\n");
        for (int k = 0; k < 60; k++)
            for (int r = 0; r < 2; r++)
                at += (size_t)snprintf(csv + at, sizeof csv - at, "%.3f,%d,%d\n", 0.1 + 0.01 * k, r, k % 10 < 5 ? 300 : 700);
        put(dir, "power.csv", csv, at);
        int rc = summarize(dir, &log);
        cr_expect_eq(rc, 0, "exit %d\n%s", rc, log);
        free(log);
        json_t *sum = e2e_summary(dir);
        json_t *pj = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(sum, "runs"), 0),
                                                                     "power"), "aggregate"), "projection");
        cr_expect_eq(json_integer_value(json_object_get(pj, "gpus")), 500, "%s", json_dumps(pj, JSON_COMPACT));
        json_decref(sum);
    }
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024], *log;
        snprintf(text, sizeof text, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":2,%s}\n"
                 "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n%s",
                 cases[i].start, cases[i].more);
        int rc = summarize(record(text), &log);
        cr_expect_eq(rc, 2, "case %zu: exit %d\n%s", i, rc, log);
        cr_expect(log && strstr(log, cases[i].want), "case %zu: not '%s':\n%s", i, cases[i].want, log);
        free(log);
    }
    /* power.csv: rank 7's rows in a run of 2 ranks */
    const char *dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":2}\n"
                             "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n");
    char csv[4096];
    size_t at = (size_t)snprintf(csv, sizeof csv, "t_s,rank,watts\n");
    for (int k = 0; k < 20; k++)
        for (int r = 0; r < 3; r++)
            at += (size_t)snprintf(csv + at, sizeof csv - at, "%.3f,%d,%d\n", 0.1 + 0.01 * k, r ? r == 1 ? 1 : 7 : 0, 500);
    put(dir, "power.csv", csv, at);
    char *log;
    int rc = summarize(dir, &log);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, log);
    cr_expect(log && strstr(log, "/power.csv:4: rank 7, but the start event gives 2 rank(s) in all"), "%s", log);
    free(log);
}

/* A run whose run_begin has no label is kept, under its mitigation's name, else "run N". */
Test(summarize, a_run_without_a_label_is_kept)
{
    const char *dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"x\",\"backend\":\"sim\",\"ranks\":1}\n"
                             "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":1}\n"
                             "{\"t_s\":0.2,\"event\":\"run_begin\",\"run\":1,\"iterations\":1}\n");
    char *log;
    int rc = summarize(dir, &log);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    json_t *s = e2e_summary(dir), *runs = json_object_get(s, "runs");
    cr_assert_eq(json_array_size(runs), 2);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(runs, 0), "label")), "none");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(runs, 1), "label")), "run 2");
    json_decref(s);
}

/* A killed run on 2 nodes: its summary rebuilt sums the nodes' power (power-nodes.csv) as node 0 did live, up to
 * the last row; rows that are none (a time a billion seconds on, a node the run does not have, words, NaN, a line
 * too long) are left out and counted, never waited on. */
Test(summarize, a_killed_cluster_run_gets_its_summed_power_back, .timeout = 60)
{
    const char *dir = record("{\"t_s\":0,\"event\":\"start\",\"node\":0,\"scenario\":\"c\",\"backend\":\"sim\",\"ranks\":1,"
                             "\"nodes\":2,\"tdp_w\":700,\"forward\":\"nodes\",\"forward_hz\":100,\"clock_uncertainty_s\":0}\n"
                             "{\"t_s\":0,\"event\":\"start\",\"node\":1,\"scenario\":\"c\",\"backend\":\"sim\",\"ranks\":1,"
                             "\"nodes\":2,\"forward\":\"nodes\",\"forward_hz\":100,\"clock_uncertainty_s\":0.0005}\n"
                             "{\"t_s\":0.0,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":50}\n"
                             "{\"t_s\":0.2,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":0,\"dur_s\":0.2}\n");
    size_t cap = 1 << 16, len = 0;
    char *csv = xmalloc(cap);
    len += (size_t)snprintf(csv, cap, "t_s,node,watts,gpus\n");
    for (int i = 1; i <= 200; i++)   /* 2 s: both nodes 100 W and 300 W by turns, 0.1 s each: the sum 200..600 W */
        for (int k = 0; k < 2; k++) {
            len += (size_t)snprintf(csv + len, cap - len, "%.6f,%d,%.2f,1\n", i * 0.01, k, (i / 10) % 2 ? 300.0 : 100.0);
            if (i == 100 && k == 1)
                len += (size_t)snprintf(csv + len, cap - len, "1000000000,0,300,1\n0.5,7,300,1\nwatts\n1.0,1,nan,1\n"
                                                              "%0200d\n", 1);
        }
    put(dir, "power-nodes.csv", csv, len);
    len = (size_t)snprintf(csv, cap, "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n");
    for (int i = 1; i <= 200; i++)   /* node 0's own GPU, as every run writes it */
        len += (size_t)snprintf(csv + len, cap - len, "%.6f,0,%.2f,compute,,,,,,0,,\n", i * 0.01, (i / 10) % 2 ? 300.0 : 100.0);
    put(dir, "power.csv", csv, len);
    free(csv);
    char *log;
    int rc = summarize(dir, &log);
    cr_assert_eq(rc, 0, "%s", log);
    cr_expect(strstr(log, "power-nodes.csv: 4 line(s) not taken"), "%s", log);
    free(log);
    json_t *s = e2e_summary(dir);
    json_t *c = json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"), "cluster");
    cr_assert(json_is_object(c), "%s", json_string_value(json_object_get(s, "power_cluster_note")));
    cr_expect_eq(json_integer_value(json_object_get(c, "nodes")), 2);
    cr_expect_eq(json_integer_value(json_object_get(c, "gpus")), 2);
    cr_expect_geq(json_integer_value(json_object_get(c, "whole_cells")), 190, "the run's 2 s, to the last row");
    double sw = json_number_value(json_object_get(c, "swing_w"));
    cr_expect(sw > 350 && sw < 450, "the sum swings 200..600 W: %g", sw);
    cr_expect_eq(json_number_value(json_object_get(json_object_get(c, "error"), "clock_uncertainty_s")), 0.0005,
                 "the largest node's");
    cr_expect(strstr(json_string_value(json_object_get(c, "rebuilt")), "last row"));
    cr_expect(strstr(json_string_value(json_object_get(s, "power_cluster_note")), "(1 rows later left out)"),
              "the row a billion seconds on is said");
    json_decref(s);
}

/* A record of two runs on one rank, killed just after the second began: the first (none) ended with a second of
 * power rows, the second (filler) has a run_begin and no power row yet. */
static const char *killed_as_run_2_began(void)
{
    const char *dir = record("{\"t_s\":0,\"event\":\"start\",\"scenario\":\"k\",\"backend\":\"sim\",\"ranks\":1}\n"
                             "{\"t_s\":0.0,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":5}\n"
                             "{\"t_s\":1.0,\"event\":\"run_end\",\"run\":0,\"mitigation\":\"none\",\"complete\":true}\n"
                             "{\"t_s\":1.0,\"event\":\"run_begin\",\"run\":1,\"mitigation\":\"filler\",\"iterations\":5}\n");
    size_t cap = 1 << 16, len = 0;
    char *csv = xmalloc(cap);
    len = (size_t)snprintf(csv, cap, "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n");
    for (int i = 1; i < 100; i++)   /* up to 0.99 s: none in the second run's time */
        len += (size_t)snprintf(csv + len, cap - len, "%.6f,0,%.2f,compute,,,,,,0,,\n", i * 0.01, (i / 10) % 2 ? 300.0 : 100.0);
    put(dir, "power.csv", csv, len);
    free(csv);
    return dir;
}

/* A run killed before its first power row: summarize leaves its power null with power_note saying why (it was
 * null without a word); the run before it keeps its power. */
Test(killed, a_run_without_power_rows_gets_a_power_note_in_summarize, .timeout = 60)
{
    const char *dir = killed_as_run_2_began();
    char *log;
    int rc = summarize(dir, &log);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    json_t *s = e2e_summary(dir), *runs = json_object_get(s, "runs");
    cr_assert_eq(json_array_size(runs), 2);
    cr_expect(json_is_object(json_object_get(json_array_get(runs, 0), "power")), "the ended run's power");
    json_t *r1 = json_array_get(runs, 1);
    cr_expect(json_is_null(json_object_get(r1, "power")));
    const char *note = json_string_value(json_object_get(r1, "power_note"));
    cr_expect(note && strstr(note, "no power row"), "power_note: %s", note ? note : "(none)");
    json_decref(s);
}

/* `analyze RUNDIR` of that record analyses the run that ended and says the killed one has no power (power null and
 * power_note in --json; a line in text), exit 0 with a warning. It was exit 2 with nothing printed under --json. */
Test(killed, analyze_reports_a_run_without_power_rows_and_analyses_the_rest, .timeout = 60)
{
    const char *dir = killed_as_run_2_began();
    char out[600];
    snprintf(out, sizeof out, "%s/az.json", dir);
    int rc = e2e_wait(e2e_start_to(out, e2e_log("az-killed.log"), (const char *[]){ "analyze", dir, "--json", NULL }), 60);
    char *log = e2e_read(e2e_log("az-killed.log"));
    cr_expect_eq(rc, 0, "%s", log);
    cr_expect(log && strstr(log, "warning: 1 run(s) killed before their end"), "%s", log);
    free(log);
    json_error_t err;
    json_t *a = json_load_file(out, 0, &err);
    cr_assert(json_is_array(a), "--json printed no array: %s", err.text);
    cr_assert_eq(json_array_size(a), 2);
    cr_expect(json_is_object(json_object_get(json_array_get(a, 0), "aggregate")), "run 1 analysed");
    json_t *r2 = json_array_get(a, 1);
    cr_expect_eq(json_integer_value(json_object_get(r2, "run")), 2);
    cr_expect(json_is_null(json_object_get(r2, "power")));
    const char *note = json_string_value(json_object_get(r2, "power_note"));
    cr_expect(note && strstr(note, "no power row"), "power_note: %s", note ? note : "(none)");
    json_decref(a);
    rc = e2e_run(e2e_log("az-killed.log"), (const char *[]){ "analyze", dir, NULL });
    log = e2e_read(e2e_log("az-killed.log"));
    cr_expect_eq(rc, 0, "%s", log);
    cr_expect(log && strstr(log, "power: none (no samples (no power row"), "%s", log);
    free(log);
    /* the killed run alone has nothing to analyse: exit 2 */
    cr_expect_eq(e2e_run(e2e_log("az-killed.log"), (const char *[]){ "analyze", dir, "--run", "2", NULL }), 2);
}

/* A run killed before its run_end (no period said), read through a held 20 ms sensor (sample_t_s stamps) with 200 ms
 * iterations: `analyze RUNDIR --json` takes the iteration's period from the record's iterations as summarize does,
 * and both give the run one power (until 2026-12-01 analyze took none there, summarize the median: docs/results.md
 * says summarize's power is what analyze gives). */
Test(killed, analyze_and_summarize_read_a_killed_runs_power_alike, .timeout = 60)
{
    size_t cap = 1 << 20, len = 0;
    char *text = xmalloc(cap), *csv = xmalloc(cap);
    len = (size_t)snprintf(text, cap, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"k\",\"backend\":\"sim\","
                                      "\"ranks\":1,\"sample_hz\":100.0}\n"
                                      "{\"t_s\":0.0,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\","
                                      "\"iterations\":40}\n");
    for (int i = 0; i < 30; i++)
        len += (size_t)snprintf(text + len, cap - len, "{\"t_s\":%.3f,\"event\":\"iteration\",\"rank\":0,\"run\":0,"
                                                     "\"iter\":%d,\"dur_s\":0.2}\n", 0.2 * (i + 1), i);
    const char *dir = record(text);
    len = (size_t)snprintf(csv, cap, "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n");
    for (int i = 1; i <= 600; i++) {   /* 100 Hz for 6 s; the sensor updates every 20 ms and holds between */
        double t = i * 0.01, stamp = floor(t / 0.02 + 1e-9) * 0.02;
        double w = fmod(stamp, 0.2) < 0.1 - 1e-9 ? 700.0 : 200.0;
        len += (size_t)snprintf(csv + len, cap - len, "%.6f,0,%.2f,compute,,,,,,0,,%.6f\n", t, w, stamp);
    }
    put(dir, "power.csv", csv, len);
    free(csv);
    free(text);
    char out[600], *log;
    snprintf(out, sizeof out, "%s/az.json", dir);
    int rc = e2e_wait(e2e_start_to(out, e2e_log("az-held.log"), (const char *[]){ "analyze", dir, "--json", NULL }), 60);
    log = e2e_read(e2e_log("az-held.log"));
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    json_t *a = json_load_file(out, 0, NULL);
    cr_assert(json_is_array(a));
    rc = summarize(dir, &log);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    json_t *s = e2e_summary(dir);
    json_t *az = json_object_get(json_array_get(a, 0), "aggregate");
    json_t *sz = json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"), "aggregate");
    cr_assert(az && sz);
    static const char *const keys[] = { "dominant_hz", "swing_w", "mean_w" };
    for (int k = 0; k < 3; k++) {
        json_t *x = json_object_get(az, keys[k]), *y = json_object_get(sz, keys[k]);
        cr_expect(json_is_null(x) == json_is_null(y) &&
                  (json_is_null(x) || fabs(json_number_value(x) - json_number_value(y)) <= 1e-9 * fabs(json_number_value(y))),
                  "%s: analyze %s, summarize %s", keys[k], json_dumps(x, JSON_ENCODE_ANY), json_dumps(y, JSON_ENCODE_ANY));
    }
    cr_expect(json_is_number(json_object_get(az, "dominant_hz")), "a 5 Hz wave read at its period: %s",
              json_dumps(json_object_get(az, "dominant_hz"), JSON_ENCODE_ANY));
    json_decref(s);
    json_decref(a);
}

/* The pid of a child that has exited and been reaped: a writer that is gone. */
static pid_t dead_pid(void)
{
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0)
        _exit(0);
    cr_assert_eq(waitpid(p, NULL, 0), p);
    return p;
}

/* A kill during the summary's write leaves summary.json.tmp.PID (write_file_atomic's temp file): a run into the
 * folder (once it holds the lock) and summarize remove it when its writer is gone, and keep one whose writer is
 * alive and files of other names. It stayed for good. */
Test(killed, a_dead_writers_summary_temp_file_is_removed, .timeout = 60)
{
    char dead[64], live[64];
    snprintf(dead, sizeof dead, "summary.json.tmp.%d", (int)dead_pid());
    snprintf(live, sizeof live, "summary.json.tmp.%d", (int)getppid());   /* alive: whoever started this test */
    const char *dir = killed_as_run_2_began();
    put(dir, dead, "{\"partial", 9);
    put(dir, live, "{\"partial", 9);
    put(dir, "summary.json.tmp.x1", "keep\n", 5);
    char *log;
    cr_assert_eq(summarize(dir, &log), 0, "%s", log);
    cr_expect(strstr(log, "removed the summary.json.tmp.PID"), "%s", log);
    free(log);
    cr_expect(!there(dir, dead), "%s stayed after summarize", dead);
    cr_expect(there(dir, live), "a live writer's temp file was removed");
    cr_expect(there(dir, "summary.json.tmp.x1"), "a file of another name was removed");

    const char *dir2 = tmpdir();
    snprintf(dead, sizeof dead, "report.svg.tmp.%d", (int)dead_pid());
    put(dir2, "summary.json.tmp.1", "{\"partial", 9);   /* pid 1 is alive: kept */
    put(dir2, dead, "<svg", 4);
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[512];
    cr_assert_eq(scenario_load_string("name: x\nranks: 1\niterations: 1\nworkload:\n  gemm: {m: 1, n: 1, k: 1}\n"
                                      "  allreduce: {bytes: 1MiB}\n", "x.yaml", sc, err, sizeof err), 0, "%s", err);
    struct results r;
    cr_assert_eq(results_open(&r, dir2, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    results_close(&r);
    cr_expect(!there(dir2, dead), "%s stayed after a run took the folder", dead);
    cr_expect(there(dir2, "summary.json.tmp.1"), "a live writer's temp file was removed");
    free(sc);
}

/* A checkpoint folder the run cannot write (a file in its place) ends the run at its set-up, exit 3 naming the key,
 * before the results folder is touched: an earlier run's record there stays whole (it failed at its first
 * checkpoint, the earlier record replaced, and said "unlink(checkpoint) failed" 64 times) */
Test(results_io, a_checkpoint_folder_that_cannot_be_written_fails_before_the_results, .timeout = 60)
{
    char file[] = "/tmp/gauntlet-ckpt-file-XXXXXX";
    int fd = mkstemp(file);
    cr_assert_geq(fd, 0);
    e2e_own(file);
    close(fd);
    char text[600];
    snprintf(text, sizeof text, "name: ckfile\nranks: 2\niterations: 8\nworkload:\n  gemm: {m: 64, n: 64, k: 64}\n"
                                "  allreduce: {bytes: 64KiB}\n  checkpoint: {every: 2, bytes: 64KiB, path: %s}\n", file);
    const char *sc = e2e_scenario(text), *out = e2e_outdir();
    int rc = e2e_run(e2e_log("ckfile.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL });
    char *log = e2e_read(e2e_log("ckfile.log"));
    cr_assert_eq(rc, 3, "%s", log);
    cr_assert(log && strstr(log, "workload.checkpoint.path: cannot create this run's lock file") &&
                  strstr(log, "Not a directory") && !strstr(log, "unlink(checkpoint)"), "%s", log);
    cr_assert_neq(access(out, F_OK), 0, "the results folder was not begun");
    free(log);
    unlink(file);
}
