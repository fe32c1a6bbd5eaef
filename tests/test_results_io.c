/* tests/test_results_io.c: a results file that cannot be written (a full disk, a file-size limit) is a clean error
 * naming the file and the OS error, said once and never tried again, with every line written before still whole;
 * a results folder is held by the run writing it (a second run into it is refused, and touches nothing). */
#include <criterion/criterion.h>
#include <math.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "e2e.h"
#include "nodeagg.h"
#include "results.h"
#include "scenario.h"
#include "shm.h"
#include "util.h"

/* A new empty folder under /tmp. */
static const char *tmpdir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/gauntlet-resio-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    return dir;
}

/* A resolved scenario named name (sample_hz 100, forward_hz 10: a forwarding node keeps its own power file). */
static struct scenario *scenario(const char *name)
{
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char text[512], err[512];
    snprintf(text, sizeof text, "name: %s\nranks: 1\niterations: 1\npower: {sample_hz: 100, forward_hz: 10}\n"
                                "workload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n", name);
    cr_assert_eq(scenario_load_string(text, "x.yaml", sc, err, sizeof err), 0, "%s", err);
    return sc;
}

/* dir/name's size, or -1. */
static long long file_size(const char *dir, const char *name)
{
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* dir/name's text (the test fails when it cannot be read). */
static char *read_in(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = e2e_read(path);
    cr_assert_not_null(text, "cannot read %s", path);
    return text;
}

/* Checks that a power CSV is the header and whole rows (11 fields, newline-terminated); returns the rows. */
static int whole_rows(const char *csv)
{
    size_t len = strlen(csv);
    cr_assert(len > 0 && csv[len - 1] == '\n', "the file ends with a whole row: ...%s", csv + (len > 80 ? len - 80 : 0));
    int rows = -1;
    for (const char *p = csv; *p;) {
        const char *nl = strchr(p, '\n');
        int commas = 0;
        for (const char *q = p; q < nl; q++)
            commas += *q == ',';
        cr_assert_eq(commas, 11, "a torn row: %.*s", (int)(nl - p), p);
        rows++;
        p = nl + 1;
    }
    return rows;
}

/* Open descriptors of this process. */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1;   /* opendir's own */
}

/* The forwarding node's link to node 0: these tests look at the node's own files only. */
static void fwd_none(int stream, const char *line, size_t len) { (void)stream; (void)line; (void)len; }

static const struct power_reading reading = { .watts = 250.5, .avg_w = 249.0, .energy_j = 1234.5, .clock_mhz = 1410,
                                              .temp_c = 61, .true_w = NAN };

/* What the child of the file-size test saw, sent through a pipe. */
struct fsize_report {
    int step;            /* 0: every check passed; else the first that did not */
    int rows_ok;         /* rows in flushes that succeeded */
    long long events_before, events_after;
    char why[320];
};

/* ulimit -f with SIGXFSZ ignored (as gauntlet does at start-up): a flush that reaches the limit is -1 with the file
 * and "File too large", the process lives, the short write is cut back to the last whole row, and nothing is
 * written after it (not a later row, not an event). */
Test(results_write, a_file_size_limit_is_a_clean_error_and_leaves_whole_rows, .timeout = 30)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("fsize");
    int pfd[2];
    cr_assert_eq(pipe(pfd), 0);
    pid_t p = fork();
    cr_assert(p >= 0);
    if (p == 0) {
        struct fsize_report rep = { 0 };
        struct results r;
        char err[512];
        struct rlimit rl = { 20000, 20000 };
        close(pfd[0]);
        if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR || results_open(&r, dir, sc, mono_ns(), err, sizeof err) != 0 ||
            results_event(&r, mono_ns(), "first", NULL) != 0)
            rep.step = 1;
        else if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            rep.step = 2;
        else {
            int rc = 0;
            for (int i = 0; i < 100000 && rc == 0; i++) {   /* rows of ~60 bytes, 7 to a flush: one is cut short */
                if (results_power(&r, mono_ns(), i % 7, &reading, PH_COMPUTE) != 0)
                    rep.step = 3;
                if (i % 7 == 6 && (rc = results_flush(&r)) == 0)
                    rep.rows_ok = i + 1;
            }
            rep.events_before = file_size(dir, "events.jsonl");
            if (rc == 0)
                rep.step = 4;   /* never reached the limit */
            else if (!results_failed(&r))
                rep.step = 5;
            else if (results_power(&r, mono_ns(), 0, &reading, PH_COMPUTE) != -1 || results_flush(&r) != -1 ||
                     results_event(&r, mono_ns(), "after", NULL) != -1 || results_append(&r, 0, "{}\n", 3) != -1 ||
                     results_append(&r, 1, "x\n", 2) != -1)
                rep.step = 6;   /* a write tried, or said to succeed, after the failure */
            if (results_failed(&r))
                str_copy(rep.why, sizeof rep.why, results_failed(&r));
            rep.events_after = file_size(dir, "events.jsonl");
            results_close(&r);
        }
        _exit(write(pfd[1], &rep, sizeof rep) == (ssize_t)sizeof rep ? 0 : 1);
    }
    close(pfd[1]);
    struct fsize_report rep;
    ssize_t k = read(pfd[0], &rep, sizeof rep);
    close(pfd[0]);
    int status;
    cr_assert_eq(waitpid(p, &status, 0), p);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child ended by %s %d (SIGXFSZ is %d)",
              WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), SIGXFSZ);
    cr_assert_eq(k, (ssize_t)sizeof rep);
    cr_assert_eq(rep.step, 0, "check %d failed: %s", rep.step, rep.why);
    char want[300];
    snprintf(want, sizeof want, "%s/power.csv: File too large", dir);
    cr_expect(strstr(rep.why, want), "'%s' does not name %s", rep.why, want);
    cr_expect_eq(rep.events_after, rep.events_before, "events.jsonl written after the failure");
    cr_expect(file_size(dir, "power.csv") <= 20000);
    char *csv = read_in(dir, "power.csv");
    cr_expect_eq(whole_rows(csv), rep.rows_ok, "power.csv holds exactly the rows whose flush succeeded");
    free(csv);
    char *ev = read_in(dir, "events.jsonl");
    cr_expect(strstr(ev, "\"first\"") && !strstr(ev, "\"after\""), "%s", ev);
    free(ev);
    free(sc);
}

/* A full disk (/dev/full) under power.csv: the flush is -1 naming power.csv and "No space left on device"; every
 * results_* write after it is -1 without a write (events.jsonl too); the rows before stay. */
Test(results_write, a_full_disk_under_power_csv_stops_every_write_and_keeps_the_rows_before)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("full");
    struct results r;
    char err[512];
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    cr_assert_null(results_failed(&r));
    for (int i = 0; i < 3; i++)
        cr_assert_eq(results_power(&r, mono_ns(), i, &reading, PH_COMM), 0);
    cr_assert_eq(results_flush(&r), 0);
    cr_assert_eq(results_event(&r, mono_ns(), "first", NULL), 0);
    long long ev_size = file_size(dir, "events.jsonl");
    int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
    cr_assert(full >= 0);
    int saved = dup(r.power_fd);
    cr_assert(saved >= 0);
    cr_assert_eq(dup2(full, r.power_fd), r.power_fd);
    cr_assert_eq(results_power(&r, mono_ns(), 0, &reading, PH_COMM), 0, "buffered: nothing written yet");
    cr_expect_eq(results_flush(&r), -1);
    cr_assert_eq(dup2(saved, r.power_fd), r.power_fd);   /* the real file again: any later write would show */
    close(saved);
    close(full);
    const char *why = results_failed(&r);
    cr_assert_not_null(why);
    char want[300];
    snprintf(want, sizeof want, "cannot write %s/power.csv: No space left on device", dir);
    cr_expect_str_eq(why, want);
    cr_expect_eq(results_power(&r, mono_ns(), 1, &reading, PH_COMM), -1);
    cr_expect_eq(results_flush(&r), -1);
    cr_expect_eq(results_event(&r, mono_ns(), "second", NULL), -1);
    cr_expect_eq(results_append(&r, 0, "{\"event\":\"x\"}\n", 14), -1);
    cr_expect_eq(results_append(&r, 1, "1,0,1,compute,,,,,,0\n", 21), -1);
    cr_expect_str_eq(results_failed(&r), want, "the first failure is the one kept");
    results_close(&r);
    cr_expect_eq(file_size(dir, "events.jsonl"), ev_size, "no write is tried after a failure");
    char *csv = read_in(dir, "power.csv");
    cr_expect_eq(whole_rows(csv), 3);
    free(csv);
    free(sc);
}

/* A folder another process's run holds: results_open is -1 naming the folder and that run's pid, scenario.yaml and
 * events.jsonl stay the holder's, no descriptor is left open; once the holder is killed (never closed) the folder
 * is free. */
Test(results_lock, a_folder_in_use_is_refused_naming_the_run_and_left_untouched, .timeout = 30)
{
    const char *dir = tmpdir();
    struct scenario *a = scenario("holder"), *b = scenario("second");
    int up[2], hold[2];
    cr_assert_eq(pipe(up), 0);
    cr_assert_eq(pipe(hold), 0);
    pid_t p = fork();
    cr_assert(p >= 0);
    if (p == 0) {
        struct results r;
        char err[512], c = 0;
        close(up[0]);
        close(hold[1]);
        int ok = results_open(&r, dir, a, mono_ns(), err, sizeof err) == 0 && results_event(&r, mono_ns(), "held", NULL) == 0;
        if (write(up[1], ok ? "y" : "n", 1) != 1 || !ok)
            _exit(1);
        if (read(hold[0], &c, 1) < 0)   /* until killed */
            _exit(2);
        _exit(0);
    }
    close(up[1]);
    close(hold[0]);
    char c = 0;
    cr_assert_eq(read(up[0], &c, 1), 1);
    cr_assert_eq(c, 'y', "the holder could not open the folder");
    char *yaml = read_in(dir, "scenario.yaml"), *ev = read_in(dir, "events.jsonl");
    struct results r;
    char err[512], want[300];
    int fds = open_fds();
    cr_expect_eq(results_open(&r, dir, b, mono_ns(), err, sizeof err), -1);
    snprintf(want, sizeof want, "results folder %s is in use by another run (pid %d)", dir, (int)p);
    cr_expect(strstr(err, want), "'%s' does not say '%s'", err, want);
    cr_expect_eq(open_fds(), fds, "a failed open leaves a descriptor open");
    char *yaml2 = read_in(dir, "scenario.yaml"), *ev2 = read_in(dir, "events.jsonl");
    cr_expect_str_eq(yaml2, yaml, "the refused run wrote scenario.yaml");
    cr_expect_str_eq(ev2, ev, "the refused run touched events.jsonl");
    cr_expect(strstr(ev2, "\"held\""), "%s", ev2);
    free(yaml);
    free(ev);
    free(yaml2);
    free(ev2);
    cr_assert_eq(kill(p, SIGKILL), 0);
    int status;
    cr_assert_eq(waitpid(p, &status, 0), p);
    close(up[0]);
    close(hold[1]);
    cr_expect_eq(results_open(&r, dir, b, mono_ns(), err, sizeof err), 0, "a killed run's lock is gone: %s", err);
    results_close(&r);
    free(a);
    free(b);
}

/* A forwarding node keeping its own power-node<N>.csv holds it the same way: a second run's node N is refused and
 * leaves the first one's rows. */
Test(results_lock, a_forwarding_node_holds_its_power_file)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("fwd");
    struct results r, r2;
    char err[512];
    cr_assert_eq(results_open_forward(&r, dir, sc, 1, 2, mono_ns(), fwd_none, err, sizeof err), 0, "%s", err);
    cr_assert_eq(results_append(&r, 1, "0.010000,2,250.00,compute,,,,,,1,,\n", 35), 0);
    cr_expect_eq(results_open_forward(&r2, dir, sc, 1, 2, mono_ns(), fwd_none, err, sizeof err), -1);
    cr_expect(strstr(err, "is in use by another run (pid"), "%s", err);
    cr_expect_eq(results_open_forward(&r2, dir, sc, 2, 2, mono_ns(), fwd_none, err, sizeof err), 0, "another node's file: %s", err);
    results_close(&r2);
    char *csv = read_in(dir, "power-node1.csv");
    cr_expect_eq(whole_rows(csv), 1, "the refused node truncated the holder's file:\n%s", csv);
    free(csv);
    results_close(&r);
    free(sc);
}

/* Two runs into one --out: the second stops at once with exit 3 naming the run that holds the folder; the first goes
 * on and leaves one run's files (one start, one end, whole power rows, its own scenario.yaml). */
Test(results_run, a_second_run_into_a_folder_in_use_is_exit_3, .timeout = 240)
{
    const char *out = e2e_outdir();
    const char *first = e2e_scenario("name: first\nranks: 2\niterations: 1000000\nseed: 1\npower: {sample_hz: 200}\n"
                                     "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    const char *second = e2e_scenario("name: second\nranks: 2\niterations: 100\nseed: 2\n"
                                      "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    pid_t p = e2e_start(e2e_log("resio-first.log"),
                        (const char *[]){ "run", first, "--backend", "sim", "--headless", "--out", out, NULL });
    cr_assert_eq(e2e_wait_started(out, 20, 30), 0, "the first run did not start");
    int rc = e2e_run(e2e_log("resio-second.log"),
                     (const char *[]){ "run", second, "--backend", "sim", "--headless", "--out", out, NULL });
    char *log = e2e_read(e2e_log("resio-second.log")), want[1200];
    cr_expect_eq(rc, 3, "exit %d:\n%s", rc, log);
    snprintf(want, sizeof want, "results folder %s is in use by another run (pid %d)", out, (int)p);
    cr_expect(log && strstr(log, want), "'%s' not in:\n%s", want, log);
    free(log);
    cr_expect(!e2e_gone(p), "the first run stopped");
    kill(p, SIGINT);
    cr_expect_eq(e2e_wait(p, 30), 1, "the first run, stopped by SIGINT, ends early (exit 1)");
    cr_expect_eq(e2e_count_events(out, "start"), 1);
    cr_expect_eq(e2e_count_events(out, "end"), 1);
    char *yaml = read_in(out, "scenario.yaml");
    cr_expect(strstr(yaml, "name: first"), "%s", yaml);
    free(yaml);
    char *csv = read_in(out, "power.csv");
    cr_expect_gt(whole_rows(csv), 0);
    free(csv);
    json_t *s = e2e_summary(out);
    cr_expect_eq(json_integer_value(json_object_get(s, "exit")), 1);
    json_decref(s);
}

/* ulimit -f at sample_hz 1000 (the case): not SIGXFSZ (153) but exit 3, the failure said once with the
 * file and "File too large", every line and row written before whole, summary.json written. */
Test(results_run, a_file_size_limit_at_1000_hz_is_exit_3_said_once, .timeout = 180)
{
    const char *out = e2e_outdir();
    const char *path = e2e_scenario("name: fsize1k\nranks: 2\niterations: 1000000\nseed: 3\npower: {sample_hz: 1000}\n"
                                    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    const char *logp = e2e_log("resio-fsize.log");
    pid_t p = fork();
    cr_assert(p >= 0);
    if (p == 0) {
        struct rlimit rl = { 6000u << 10, 6000u << 10 };   /* ulimit -f 6000 (KiB blocks); the control block fits */
        int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(99);
        execl(GAUNTLET_BIN, "gauntlet", "run", path, "--backend", "sim", "--headless", "--out", out, (char *)NULL);
        _exit(98);
    }
    int rc = e2e_wait(p, 170);
    char *log = e2e_read(logp);
    cr_assert_eq(rc, 3, "exit %d (153: killed by SIGXFSZ):\n%s", rc, log);
    int said = 0;
    for (const char *q = log; (q = strstr(q, "File too large")); q++)
        said++;
    /* the supervisor's message and the end-of-run line (its reason) */
    cr_expect(said >= 1 && said <= 2, "'File too large' said %d times:\n%s", said, log);
    cr_expect(strstr(log, "cannot write ") && strstr(log, out), "the file is not named:\n%s", log);
    free(log);
    json_t *s = e2e_summary(out);
    cr_expect_eq(json_integer_value(json_object_get(s, "exit")), 3);
    json_decref(s);
    cr_expect_eq(e2e_count_events(out, "start"), 1, "every line of events.jsonl parses");
    char *csv = read_in(out, "power.csv");
    cr_expect_gt(whole_rows(csv), 0);
    free(csv);
}

/* Makes dir an earlier run's results folder as `run --out` takes one (its events.jsonl; a folder holding other files
 * is refused, never overwritten). */
static void mark_earlier_results(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    cr_assert_eq(fclose(f), 0);
}

/* summary.json that cannot be written (a folder is in its place): exit 3, naming summary.json and the OS error.
 * DEPENDS ON supervisor.c: the exit code holds today; the message needs the supervisor to say results_failed()
 * after results_summary fails (until then the run ends "exit 3" with no reason). */
Test(results_run, a_summary_that_cannot_be_written_is_exit_3_naming_it, .timeout = 60)
{
    const char *out = e2e_outdir();
    char blocker[1200];
    snprintf(blocker, sizeof blocker, "%s/summary.json/x", out);
    cr_assert_eq(mkdir_p(blocker), 0);   /* rename(2) onto a folder that is not empty fails */
    mark_earlier_results(out);
    const char *path = e2e_scenario("name: nosummary\nranks: 2\niterations: 20\nseed: 4\n"
                                    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    int rc = e2e_run(e2e_log("resio-summary.log"),
                     (const char *[]){ "run", path, "--backend", "sim", "--headless", "--out", out, NULL });
    char *log = e2e_read(e2e_log("resio-summary.log")), want[1200];
    cr_expect_eq(rc, 3, "exit %d:\n%s", rc, log);
    snprintf(want, sizeof want, "cannot write %s/summary.json: ", out);
    cr_expect(log && strstr(log, want), "'%s' not in (needs the supervisor change):\n%s", want, log);   /* DEPENDS */
    free(log);
    cr_expect_eq(e2e_count_events(out, "start"), 1);
    cr_expect_leq(e2e_count_entries(out, "summary.json.tmp"), 0, "a temporary summary file left behind");
}

/* The last line of dir/events.jsonl, parsed (the test fails when there is none or it does not parse). */
static json_t *last_event(const char *dir)
{
    char *text = read_in(dir, "events.jsonl");
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

/* The record agrees with the exit code: where summary.json cannot be written (here a folder in its place; a full
 * disk alike) the run ends with exit 3, and so does the end line, its reason naming summary.json. Until 2026-11-29 the
 * end line was written first and said "exit": 0, and `gauntlet view` showed the run as ended well. */
Test(results_run, a_summary_that_cannot_be_written_ends_the_record_with_exit_3, .timeout = 60)
{
    const char *out = e2e_outdir();
    char blocker[1200];
    snprintf(blocker, sizeof blocker, "%s/summary.json/x", out);
    cr_assert_eq(mkdir_p(blocker), 0);   /* rename(2) onto a folder that is not empty fails */
    mark_earlier_results(out);
    const char *path = e2e_scenario("name: noend\nranks: 2\niterations: 20\nseed: 4\n"
                                    "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
    int rc = e2e_run(e2e_log("resio-noend.log"),
                     (const char *[]){ "run", path, "--backend", "sim", "--headless", "--out", out, NULL });
    char *log = e2e_read(e2e_log("resio-noend.log"));
    cr_expect_eq(rc, 3, "exit %d:\n%s", rc, log);
    free(log);
    cr_expect_eq(e2e_count_events(out, "end"), 1);
    json_t *end = last_event(out);
    const char *ev = json_string_value(json_object_get(end, "event")), *why = json_string_value(json_object_get(end, "reason"));
    cr_expect(ev && strcmp(ev, "end") == 0, "the record does not end with its end line: %s", ev ? ev : "(no event)");
    cr_expect_eq(json_integer_value(json_object_get(end, "exit")), 3, "the end line says exit %lld; the run's is 3",
                 (long long)json_integer_value(json_object_get(end, "exit")));
    cr_expect(why && strstr(why, "summary.json"), "the end line's reason: %s", why ? why : "null");
    json_decref(end);
}

/* A summary.json that cannot be written is a failure (results_failed) but stops no append: the end line that follows
 * it can say so. An append that fails still stops every later one. */
Test(results_write, a_failed_summary_stops_no_append)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("nosum");
    struct results r;
    char err[512], blocker[600];
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    snprintf(blocker, sizeof blocker, "%s/summary.json/x", dir);
    cr_assert_eq(mkdir_p(blocker), 0);
    json_t *sum = json_pack("{s:i}", "exit", 0);
    cr_expect_eq(results_summary(&r, sum), -1);
    json_decref(sum);
    cr_assert_not_null(results_failed(&r));
    cr_expect(strstr(results_failed(&r), "summary.json"), "%s", results_failed(&r));
    cr_expect_eq(results_event(&r, mono_ns(), "end", json_pack("{s:i}", "exit", 3)), 0, "the end line after it");
    int full = open("/dev/full", O_WRONLY);
    cr_assert(full >= 0);
    cr_assert_eq(dup2(full, r.events_fd), r.events_fd);
    close(full);
    cr_expect_eq(results_event(&r, mono_ns(), "lost", NULL), -1);
    cr_expect_eq(results_event(&r, mono_ns(), "after", NULL), -1, "no append after a failed one");
    cr_expect(strstr(results_failed(&r), "summary.json"), "the first failure stays the one said: %s", results_failed(&r));
    results_close(&r);
    char *ev = read_in(dir, "events.jsonl");
    cr_expect(strstr(ev, "\"event\":\"end\",\"exit\":3"), "%s", ev);
    free(ev);
    free(sc);
}

/* A reading whose source stamps it (the driver's sample buffer, a modelled sensor's update) carries that time on the
 * run's clock in sample_t_s, the last column; one that is not stamped leaves it empty. */
Test(results_write, a_stamped_reading_carries_its_own_time)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("stamp");
    struct results r;
    char err[512];
    uint64_t t0 = mono_ns();
    cr_assert_eq(results_open(&r, dir, sc, t0, err, sizeof err), 0, "%s", err);
    struct power_reading p = reading;
    p.sample_ns = t0 + 1500000000ull;   /* 1.5 s into the run, read 0.25 s later */
    cr_assert_eq(results_power(&r, t0 + 1750000000ull, 0, &p, PH_COMM), 0);
    cr_assert_eq(results_power(&r, t0 + 1760000000ull, 1, &reading, PH_COMM), 0);
    cr_assert_eq(results_flush(&r), 0);
    results_close(&r);
    char *csv = read_in(dir, "power.csv");
    cr_assert(strstr(csv, "node,true_w,sample_t_s\n"), "%s", csv);
    cr_assert(strstr(csv, "\n1.750000,0,250.50,comm,249.00,1234.500,1410,61,,0,,1.500000\n"), "%s", csv);
    cr_assert(strstr(csv, "\n1.760000,1,250.50,comm,249.00,1234.500,1410,61,,0,,\n"), "%s", csv);
    free(csv);
}

/* The throttle column: the reason bits where they were read (0x0: read, no reason), empty where they were not, so
 * that "no reason" and "never read" differ (the acceptance check SKIPs a GPU never read). */
Test(results_write, throttle_read_with_no_reason_is_0x0_and_not_read_is_empty)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("thr");
    struct results r;
    char err[512];
    uint64_t t0 = mono_ns();
    cr_assert_eq(results_open(&r, dir, sc, t0, err, sizeof err), 0, "%s", err);
    struct power_reading p = reading;
    p.throttle = 0;
    p.throttle_read = 1;
    cr_assert_eq(results_power(&r, t0 + 1000000000ull, 0, &p, PH_COMM), 0);
    p.throttle_read = 0;
    cr_assert_eq(results_power(&r, t0 + 2000000000ull, 0, &p, PH_COMM), 0);
    cr_assert_eq(results_flush(&r), 0);
    results_close(&r);
    char *csv = read_in(dir, "power.csv");
    cr_assert(strstr(csv, "\n1.000000,0,250.50,comm,249.00,1234.500,1410,61,0x0,0,,\n"), "%s", csv);
    cr_assert(strstr(csv, "\n2.000000,0,250.50,comm,249.00,1234.500,1410,61,,0,,\n"), "%s", csv);
    free(csv);
}

/* A folder a summarize reads (the shared lock it keeps on a killed run's .lock) is refused to a run, which would
 * clear it under the rebuild; once the reader lets go, the run takes it. A run's own lock is seen as held. */
Test(results_lock, a_folder_being_summarized_is_refused_to_a_run, .timeout = 30)
{
    const char *dir = tmpdir();
    struct scenario *a = scenario("killed"), *b = scenario("next");
    struct results r;
    char err[512], pid[32];
    cr_assert_eq(results_open(&r, dir, a, mono_ns(), err, sizeof err), 0, "%s", err);
    int keep = 7;
    cr_assert_eq(dir_lock_share(dir, pid, sizeof pid, &keep), 1, "a run's own folder is held");
    cr_assert_eq(keep, -1, "nothing kept where the folder is held");
    results_close(&r);   /* as a killed run: its lock gone */
    cr_assert_eq(dir_lock_share(dir, pid, sizeof pid, &keep), 0);
    cr_assert_geq(keep, 0, "the shared lock is kept");
    cr_assert_eq(results_open(&r, dir, b, mono_ns(), err, sizeof err), -1, "a run takes a folder being read");
    cr_assert(strstr(err, "or by a summarize or report reading it"), "%s", err);
    close(keep);
    cr_assert_eq(results_open(&r, dir, b, mono_ns(), err, sizeof err), 0, "%s", err);
    results_close(&r);
    free(a);
    free(b);
}

/* Text is cut where a UTF-8 character ends, never inside one (until 2026-11-30 str_copy cut at a byte count, and
 * JSON refused what it left: the summary or event carrying it was lost); a long text kept whole at both ends loses
 * its middle; bytes that are not UTF-8 become U+FFFD. */
Test(utf8, a_cut_text_ends_on_a_character)
{
    char buf[64];
    cr_expect_eq(str_copy(buf, 5, "a\xc3\xa9\xc3\xa9\xc3\xa9"), -1);
    cr_expect_str_eq(buf, "a\xc3\xa9", "cut inside the second é");
    cr_expect_eq(str_copy(buf, 4, "ab\xe2\x82\xac"), -1);
    cr_expect_str_eq(buf, "ab", "cut inside €");
    cr_expect_eq(str_copy(buf, 6, "ab\xe2\x82\xac"), 0);
    cr_expect_str_eq(buf, "ab\xe2\x82\xac");
    char cut[] = "x\xf0\x9f\x98";   /* what a truncating snprintf leaves of an emoji */
    cr_expect_str_eq(utf8_trim(cut), "x");
    char whole[] = "x\xf0\x9f\x98\x80";
    cr_expect_str_eq(utf8_trim(whole), "x\xf0\x9f\x98\x80");
    char *fixed = utf8_lossy("a\xff" "b\xc3" "c\xed\xa0\x80" "d\xc3\xa9");
    cr_expect_str_eq(fixed, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "d\xc3\xa9");
    json_t *j = json_string(fixed);
    cr_expect_not_null(j, "JSON takes it");
    json_decref(j);
    free(fixed);
    const char *path = "cannot write /tmp/\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                       "\xc3\xa9\xc3\xa9/events.jsonl: File too large";
    cr_expect_eq(str_copy_mid(buf, 64, path), -1);
    cr_expect(strncmp(buf, "cannot write /tmp/", 18) == 0 && strstr(buf, "\xe2\x80\xa6") &&
              strstr(buf, "/events.jsonl: File too large"), "%s", buf);
    cr_expect_lt(strlen(buf), 64);
    j = json_string(buf);
    cr_expect_not_null(j, "valid UTF-8: %s", buf);
    json_decref(j);
}

/* A set-up failure whose text was cut inside a character (a why buffer shorter than a UTF-8 path) still ends the
 * record with its exit code and reason (until 2026-11-30 json_pack refused it: a line with t_s and event only). */
Test(results_write, a_cut_reason_keeps_the_end_line_whole)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("cutreason");
    struct results r;
    char err[512];
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    cr_assert_eq(results_setup_failed(&r, "cannot write /tmp/\xc3\xa9\xc3\xa9\xc3"), 0);
    results_close(&r);
    char *ev = read_in(dir, "events.jsonl");
    cr_expect(strstr(ev, "\"event\":\"end\",\"exit\":3,\"reason\":\"its set-up failed: cannot write /tmp/\xc3\xa9\xc3\xa9"),
              "%s", ev);
    free(ev);
    free(sc);
}

/* A summary that could not be built (NULL) is said as such, never as "Cannot allocate memory" (until 2026-11-30 a
 * json_pack refusing a text read as an allocation failure). */
Test(results_write, a_summary_not_built_is_not_called_out_of_memory)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("nobuild");
    struct results r;
    char err[512];
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    cr_expect_eq(results_summary(&r, NULL), -1);
    cr_assert_not_null(results_failed(&r));
    cr_expect(strstr(results_failed(&r), "summary.json: the summary could not be built"), "%s", results_failed(&r));
    cr_expect(!strstr(results_failed(&r), "Cannot allocate memory"), "%s", results_failed(&r));
    results_close(&r);
    cr_expect_eq(file_size(dir, "summary.json"), -1, "nothing written");
    free(sc);
}

/* The longest --out keeps the file and the OS error in the first failure's text (until 2026-11-30 it was cut at 320
 * bytes, inside the folder's path: both lost, and a cut inside a character lost the summary too). */
Test(results_write, a_long_folder_keeps_the_file_and_the_os_error)
{
    char dir[1100], seg[256];
    int n = snprintf(dir, sizeof dir, "%s", tmpdir());
    for (int i = 0; i < 100; i++)
        memcpy(seg + 2 * i, "\xc3\xa9", 2);   /* 200 bytes of é: a name the file system takes */
    seg[200] = 0;
    while (n + 201 <= RESULTS_DIR_MAX)
        n += snprintf(dir + n, sizeof dir - (size_t)n, "/%s", seg);
    n += snprintf(dir + n, sizeof dir - (size_t)n, "/%.*s", (RESULTS_DIR_MAX - n - 1) & ~1, seg);
    cr_assert_leq(n, RESULTS_DIR_MAX);
    struct scenario *sc = scenario("longdir");
    struct results r;
    char err[2048];
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    int full = open("/dev/full", O_WRONLY);
    cr_assert(full >= 0);
    cr_assert_eq(dup2(full, r.events_fd), r.events_fd);
    close(full);
    cr_expect_eq(results_event(&r, mono_ns(), "lost", NULL), -1);
    const char *why = results_failed(&r);
    cr_assert_not_null(why);
    char want[1200];
    snprintf(want, sizeof want, "cannot write %s/events.jsonl: No space left on device", dir);
    cr_expect_str_eq(why, want);
    json_t *j = json_string(why);
    cr_expect_not_null(j, "the failure's text is valid UTF-8");
    json_decref(j);
    results_close(&r);
    free(sc);
}

/* Numbers keep their digits: summary.json's every double reads back as written (until 2026-11-30 8 digits: an fp32
 * fault's old and new values, 10.0000095 and 10.0000105, both read 10.00001), and an event's t_s keeps its µs after
 * 28 hours (until then 10 digits: 0.1 ms). */
Test(results_write, numbers_keep_their_digits)
{
    const char *dir = tmpdir();
    struct scenario *sc = scenario("digits");
    struct results r;
    char err[512];
    uint64_t t0 = mono_ns();
    cr_assert_eq(results_open(&r, dir, sc, t0, err, sizeof err), 0, "%s", err);
    double old = (double)10.0000095f, nw = (double)10.0000105f, sum = 0.1 + 0.2;
    json_t *s = json_pack("{s:f, s:f, s:f}", "old", old, "new", nw, "sum", sum);
    cr_assert_eq(results_summary(&r, s), 0);
    json_decref(s);
    cr_assert_eq(results_event(&r, t0 + 100000123456000ull, "late", NULL), 0);
    results_close(&r);
    char path[600];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_error_t je;
    json_t *back = json_load_file(path, 0, &je);
    cr_assert_not_null(back, "%s", je.text);
    cr_expect(json_real_value(json_object_get(back, "old")) == old, "old %.17g read back %.17g", old,
              json_real_value(json_object_get(back, "old")));
    cr_expect(json_real_value(json_object_get(back, "new")) == nw, "new %.17g read back %.17g", nw,
              json_real_value(json_object_get(back, "new")));
    cr_expect(json_real_value(json_object_get(back, "sum")) == sum);
    json_decref(back);
    char *ev = read_in(dir, "events.jsonl");
    cr_expect(strstr(ev, "{\"t_s\":100000.123456,\"event\":\"late\"}"), "%s", ev);
    free(ev);
    free(sc);
}

static char agg_line[1024];

/* Keeps the last node_iteration line a fold gives. */
static void agg_keep(void *ctx, int stream, const char *line, size_t len)
{
    (void)ctx;
    if (stream == 0 && len < sizeof agg_line)
        snprintf(agg_line, sizeof agg_line, "%.*s", (int)len, line);
}

/* A node_iteration line's t_s keeps its µs after 28 hours, as power.csv's (until 2026-11-30 7 digits: 0.1 s). */
Test(results_write, a_node_iteration_keeps_its_microseconds)
{
    struct nodeagg *a = nodeagg_new(1, 1, 1, 0.01, agg_keep, NULL);
    double t = 100000.123456;
    const char *types[] = { "phase_begin", "phase_end", "iteration" };
    agg_line[0] = 0;
    for (int i = 0; i < 3; i++) {
        json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:s, s:f}", "event", types[i], "rank", 1, "run", 0, "iter", 0,
                              "phase", "compute", "dur_s", 0.25);
        cr_assert_eq(nodeagg_event(a, i ? t : t - 0.25, types[i], o), 1, "%s folded", types[i]);
        json_decref(o);
    }
    nodeagg_flush(a);
    nodeagg_free(a);
    json_t *o = json_loads(agg_line, 0, NULL);
    cr_assert_not_null(o, "a node_iteration line: %s", agg_line);
    cr_expect_str_eq(json_string_value(json_object_get(o, "event")), "node_iteration");
    cr_expect(fabs(json_number_value(json_object_get(o, "t_s")) - t) < 1e-7, "%s", agg_line);
    json_decref(o);
}

/* Node 0 reads another node's compact power lines whole before taking any of their rows: a line with a value that is
 * not a number, or one that no row could hold (1e300 W: until 2026-11-30 formatted past the buffer it went to, and a
 * field that was no number read as 0 W), is left out whole; the lines around it are taken. */
Test(results_write, a_bad_power_line_from_another_node_is_left_out_whole)
{
    const char *dir = tmpdir();
    struct scenario *sc = xcalloc(1, sizeof *sc);
    char err[512];
    cr_assert_eq(scenario_load_string("name: agg\nnodes: 2\nranks: 1\niterations: 1\nforward: nodes\n"
                                      "power: {sample_hz: 100, forward_hz: 10}\n"
                                      "workload:\n  gemm: {m: 1, n: 1, k: 1}\n  allreduce: {bytes: 1MiB}\n",
                                      "x.yaml", sc, err, sizeof err), 0, "%s", err);
    struct results r;
    cr_assert_eq(results_open(&r, dir, sc, mono_ns(), err, sizeof err), 0, "%s", err);
    cr_assert_geq(r.nodes_fd, 0, "power-nodes.csv is written");
    char text[16384];
    int n = snprintf(text, sizeof text, "1,0,4,250.5,251.5\n1,2,4");
    for (int i = 0; i < 40; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, ",1e300");
    n += snprintf(text + n, sizeof text - (size_t)n, "\n1,42,4,260.0,abc,261.0\n1,50,4,,270.0\n1,60,4,nan\n1,3,4,252.5\n");
    cr_expect_eq(results_append(&r, 1, text, (size_t)n), 0);
    results_close(&r);
    char *csv = read_in(dir, "power-nodes.csv");
    const char *rows = strchr(csv, '\n');
    cr_assert_not_null(rows);
    cr_expect_str_eq(rows + 1, "0.000000,1,250.5,4\n0.100000,1,251.5,4\n0.300000,1,252.5,4\n", "%s", csv);
    free(csv);
    free(sc);
}

/* Exits with 0 when write_file_atomic in dir (a folder its caller may write and enter, not read: 0300) refuses to
 * replace dir/f, 1 when it wrote it (unsynced), 2 when it failed another way. */
static int write_in_unreadable(const char *dir)
{
    errno = 0;
    char path[600];
    snprintf(path, sizeof path, "%s/f", dir);
    int rc = write_file_durable(path, "new\n", 4);
    if (rc == 0)
        return 1;
    return rc == WRITE_UNSYNCED && errno == EACCES && access(path, F_OK) == 0 ? 0 : 2;
}

/* A folder that cannot be opened cannot be synced: the file is put in place (a folder one may write but not read
 * still takes --junit's or a textfile's file), and the caller is told it is unsynced (until 2026-11-30 it was renamed
 * into place and 0 returned, the folder's fsync skipped unsaid). */
Test(write_file, a_folder_that_cannot_be_synced_is_said_unsynced)
{
    const char *dir = tmpdir();
    int rc;
    if (geteuid() == 0) {   /* root reads any folder: the test runs as nobody */
        cr_assert_eq(chown(dir, 65534, 65534), 0);
        cr_assert_eq(chmod(dir, 0300), 0);
        pid_t p = fork();
        cr_assert_geq(p, 0);
        if (p == 0)
            _exit(setgid(65534) == 0 && setuid(65534) == 0 ? write_in_unreadable(dir) : 3);
        int st = 0;
        cr_assert_eq(waitpid(p, &st, 0), p);
        rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    } else {
        cr_assert_eq(chmod(dir, 0300), 0);
        rc = write_in_unreadable(dir);
    }
    chmod(dir, 0700);
    cr_expect_eq(rc, 0, "%s", rc == 1 ? "written as durable without its folder's fsync" : rc == 3 ? "cannot become nobody"
                                                                              : "not in place, or not said unsynced");
}
