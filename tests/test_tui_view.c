/* tests/test_tui_view.c: `gauntlet view RUNDIR` on a real run's results: the text snapshot shows the run
 * as it ended (and as it was at --at), and bad input is exit 2 naming the file and line. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "progress.h"
#include "tui.h"

static const char drill[] =
    "name: viewtest\nranks: 3\niterations: 40\nseed: 2\n"
    "workload:\n"
    "  gemm: {m: 256, n: 256, k: 256, count: 2}\n"
    "  allreduce: {bytes: 4MiB}\n"
    "  checkpoint: {every: 10, bytes: 1MiB, path: @TMPDIR@}\n"
    "power: {sample_hz: 100}\n"
    "sim: {tflops: 0.005}\n"
    "faults:\n  - {kind: crash, at: 25, rank: 1}\n"
    "recovery: restart\n"
    "mitigations: [none]\n";

static char *snapshot(const char *dir, const char *extra, int *rc)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "LANG=C GAUNTLET_ASCII=1 %s view %s --snapshot 120x40 %s 2>&1", GAUNTLET_BIN, dir, extra);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = 0;
    int st = pclose(p);
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

Test(tui_view, a_finished_run_replays_as_it_ended, .timeout = 120)
{
    const char *sc = e2e_scenario(drill), *out = e2e_outdir();
    const char *args[] = { "run", sc, "--out", out, "--backend", "sim", "--headless", NULL };
    cr_assert_eq(e2e_run(e2e_log("view.log"), args), 0, "see %s", e2e_log("view.log"));
    int rc;
    char *s = snapshot(out, "", &rc);
    cr_assert_eq(rc, 0, "%s", s);
    cr_assert(strstr(s, " gauntlet view  viewtest  sim  3 ranks  run 1/1 none  [finished]"), "%s", s);
    cr_assert(strstr(s, "iter 40/40"), "%s", s);
    cr_assert(strstr(s, "FAULT crash on rank 1 at iter 25"), "%s", s);
    cr_assert(strstr(s, "DETECTED by exit on rank 1"), "%s", s);
    cr_assert(strstr(s, "RECOVERED rank 1 by restart"), "%s", s);
    cr_assert(strstr(s, "end: exit 0"), "%s", s);
    cr_assert(strstr(s, "1   none"), "the comparison row:\n%s", s);
    /* at 0.2 s nothing has happened yet: no fault in the log */
    s = snapshot(out, "--at 0.2", &rc);
    cr_assert_eq(rc, 0, "%s", s);
    cr_assert(!strstr(s, "FAULT crash"), "%s", s);
    cr_assert(strstr(s, "elapsed 00:00:00"), "%s", s);

    /* bad input: exit 2 and a message naming what is wrong */
    s = snapshot("/nonexistent/run", "", &rc);
    cr_assert_eq(rc, 2, "%s", s);
    cr_assert(strstr(s, "/nonexistent/run/events.jsonl"), "%s", s);
    s = snapshot(out, "--at soon", &rc);
    cr_assert_eq(rc, 2, "%s", s);
    cr_assert(strstr(s, "--at"), "%s", s);
    cr_assert_eq(e2e_run("/dev/null", (const char *[]){ "view", out, "--snapshot", "10x5", NULL }), 2);
    cr_assert_eq(e2e_run("/dev/null", (const char *[]){ "view", out, NULL }), 3,   /* stdin /dev/null too */
                 "no terminal and no --snapshot: the environment, not the input");
    char ev[600];
    snprintf(ev, sizeof ev, "%s/events.jsonl", out);
    FILE *af = fopen(ev, "a");
    cr_assert(af, "%s: %s", ev, strerror(errno));
    fputs("{\"t_s\":1,\"event\":\"x\"}\nnot json\n{\"t_s\":2,\"event\":\"y\"}\n", af);
    cr_assert_eq(fclose(af), 0);
    int lines = 0;
    char path[600];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *text = e2e_read(path);
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    free(text);
    s = snapshot(out, "", &rc);
    cr_assert_eq(rc, 2, "%s", s);
    char want[700];
    snprintf(want, sizeof want, "%s/events.jsonl:%d: expected a JSON object", out, lines - 1);
    cr_assert(strstr(s, want), "want '%s' in:\n%s", want, s);
}

/* Runs gauntlet with args, stdout into out (NULL: the log too), stderr into the log; the exit code (-1: it did not
 * end within 20 s, killed then), what it said in *log. */
static int view_run(const char *out, const char *const *args, char **log)
{
    const char *lp = e2e_log("view-bad.log");
    pid_t p = e2e_start_to(out, lp, args);
    int rc = e2e_wait(p, 20);
    if (rc < 0) {
        kill(p, SIGKILL);
        waitpid(p, NULL, 0);
    }
    *log = e2e_read(lp);
    return rc;
}

/* Makes dir/name a FIFO (nothing ever writes it). */
static void fifo_in(const char *dir, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    cr_assert_eq(mkfifo(path, 0644), 0, "%s", path);
}

/* Malformed --at, --speed and --snapshot values are exit 2 naming what is expected; a FIFO or folder where the run's
 * file is expected is exit 2 at once naming it; a snapshot lost to a full stdout is exit 3, said. */
Test(tui_view, malformed_values_fifos_and_folders_are_refused, .timeout = 180)
{
    const char *sc = e2e_scenario("name: vbad\nranks: 2\niterations: 10\nworkload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n"
                                  "  allreduce: {bytes: 64KiB}\n");
    const char *out = e2e_outdir();
    char *log;
    cr_assert_eq(e2e_run(e2e_log("view-bad-run.log"),
                         (const char *[]){ "run", sc, "--out", out, "--backend", "sim", "--headless", NULL }), 0);
    const char *bad[][2] = { { "--at", "nan" },   { "--at", "inf" },         { "--at", "" },
                             { "--at", "0x10" },  { "--at", "1e308h" },      { "--speed", "0x10" },
                             { "--speed", "nan" }, { "--snapshot", "80x24junk" }, { "--snapshot", "80x24x9" },
                             { "--snapshot", "+80x+24" }, { "--snapshot", "4294967376x24" }, { "--snapshot", " 80x24" } };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int snap = strcmp(bad[i][0], "--snapshot") == 0;   /* given once: twice is its own usage error */
        int rc = view_run("/dev/null", (const char *[]){ "view", out, bad[i][0], bad[i][1], snap ? NULL : "--snapshot",
                                                         "80x24", NULL }, &log);
        cr_expect_eq(rc, 2, "%s '%s': exit %d:\n%s", bad[i][0], bad[i][1], rc, log);
        cr_expect(log && strstr(log, "expected"), "%s '%s':\n%s", bad[i][0], bad[i][1], log);
        free(log);
    }
    cr_expect_eq(view_run("/dev/null", (const char *[]){ "view", out, "--snapshot", "80x24", "--at", "1.5", "--speed", "2",
                                                        NULL }, &log), 0, "%s", log);
    free(log);
    int rc = view_run("/dev/full", (const char *[]){ "view", out, "--snapshot", "80x24", NULL }, &log);
    cr_expect_eq(rc, 3, "exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, "stdout: No space left on device"), "%s", log);
    free(log);

    char dir[64] = "/tmp/gauntlet-view-fifo-XXXXXX", path[700];
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    fifo_in(dir, "events.jsonl");
    rc = view_run("/dev/null", (const char *[]){ "view", dir, "--snapshot", "80x24", NULL }, &log);
    cr_expect_eq(rc, 2, "a FIFO events.jsonl: exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, "events.jsonl: not a regular file"), "%s", log);
    free(log);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkdir(path, 0755), 0);
    rc = view_run("/dev/null", (const char *[]){ "view", dir, "--snapshot", "80x24", NULL }, &log);
    cr_expect_eq(rc, 2, "a folder events.jsonl: exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, "events.jsonl: not a regular file"), "%s", log);
    free(log);
    fifo_in(out, "power.csv");
    rc = view_run("/dev/null", (const char *[]){ "view", out, "--snapshot", "80x24", NULL }, &log);
    cr_expect_eq(rc, 2, "a FIFO power.csv: exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, "power.csv: not a regular file"), "%s", log);
    free(log);
}

/* On a terminal whose TERM ncurses does not know, view says so and suggests --snapshot: exit 3 (the environment),
 * not ncurses' own exit 1 (which reads as a failed check). */
Test(tui_view, an_unknown_term_is_exit_3_suggesting_snapshot, .timeout = 60)
{
    const char *sc = e2e_scenario("name: vterm\nranks: 2\niterations: 5\nworkload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n"
                                  "  allreduce: {bytes: 64KiB}\n");
    const char *out = e2e_outdir();
    cr_assert_eq(e2e_run(e2e_log("view-term-run.log"),
                         (const char *[]){ "run", sc, "--out", out, "--backend", "sim", "--headless", NULL }), 0);
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert_geq(m, 0);
    cr_assert_eq(grantpt(m), 0);
    cr_assert_eq(unlockpt(m), 0);
    const char *slave = ptsname(m);
    cr_assert_not_null(slave);
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        setsid();
        int s = open(slave, O_RDWR);
        if (s < 0)
            _exit(126);
        dup2(s, 0);
        dup2(s, 1);
        dup2(s, 2);
        setenv("TERM", "bogus", 1);
        execl(e2e_bin(), e2e_bin(), "view", out, (char *)NULL);
        _exit(127);
    }
    char text[8192];
    size_t len = 0;
    for (;;) {   /* until the child closes its end (EIO) */
        ssize_t k = read(m, text + len, sizeof text - 1 - len);
        if (k <= 0)
            break;
        len += (size_t)k;
        if (len == sizeof text - 1)
            break;
    }
    text[len] = 0;
    int rc = e2e_wait(p, 20);
    close(m);
    cr_expect_eq(rc, 3, "exit %d:\n%s", rc, text);
    cr_expect(strstr(text, "TERM=bogus") && strstr(text, "--snapshot"), "%s", text);
}

/* A killed run's record (no end event, no power.csv): at its end the view says it was cut short, gives no time
 * remaining and says power.csv is missing (on screen and on stderr). It showed [running] with a time remaining. */
Test(tui_view, a_killed_record_shows_that_it_was_cut_short, .timeout = 60)
{
    char dir[64] = "/tmp/gauntlet-view-killed-XXXXXX", path[200];
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"k\",\"backend\":\"sim\",\"ranks\":1,\"runs\":1,\"iterations\":100}\n"
               "{\"t_s\":0.01,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":100}\n");
    for (int i = 0; i < 20; i++)
        fprintf(f, "{\"t_s\":%.2f,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":%d,\"dur_s\":0.05}\n", 0.05 * (i + 1), i);
    cr_assert_eq(fclose(f), 0);
    int rc;
    char *out = snapshot(dir, "", &rc);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "[killed: no end event]"), "%s", out);
    cr_expect(!strstr(out, "[running]"), "%s", out);
    cr_expect(strstr(out, "remaining --:--:--"), "%s", out);
    cr_expect(strstr(out, "no power.csv"), "%s", out);
    cr_expect(strstr(out, "events.jsonl: no end event"), "stderr: %s", out);
    cr_expect(strstr(out, "power.csv: missing"), "stderr: %s", out);
    /* before its end the record is what it was then: running */
    out = snapshot(dir, "--at 0.5", &rc);
    cr_expect(strstr(out, "[running]"), "%s", out);
}

/* Writes a finished one-GPU record into dir (start event: start, with its nodes and forward), 300 W a row, and a
 * power-nodes.csv of 9000 W per node (an earlier 2-node run's, in a reused folder). */
static void record_with_nodes_file(const char *dir, const char *start)
{
    char path[200];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"n\",\"backend\":\"sim\",\"ranks\":1,\"runs\":1,\"iterations\":20%s}\n"
               "{\"t_s\":0.01,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":20}\n", start);
    for (int i = 0; i < 20; i++)
        fprintf(f, "{\"t_s\":%.2f,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":%d,\"dur_s\":0.05}\n", 0.05 * (i + 1), i);
    fprintf(f, "{\"t_s\":1.01,\"event\":\"run_end\",\"run\":0}\n{\"t_s\":1.02,\"event\":\"end\",\"exit\":0,\"reason\":null}\n");
    cr_assert_eq(fclose(f), 0);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    cr_assert_not_null(f = fopen(path, "w"));
    fprintf(f, "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n");
    for (int i = 1; i <= 100; i++)
        fprintf(f, "%.2f,0,300,compute,,,,,,0,,\n", 0.01 * i);
    cr_assert_eq(fclose(f), 0);
    snprintf(path, sizeof path, "%s/power-nodes.csv", dir);
    cr_assert_not_null(f = fopen(path, "w"));
    fprintf(f, "t_s,node,watts,gpus\n");
    for (int i = 1; i <= 100; i++)
        fprintf(f, "%.2f,0,9000,2\n%.2f,1,9000,2\n", 0.01 * i, 0.01 * i);
    cr_assert_eq(fclose(f), 0);
}

/* The nodes' summed power is the run's only when its start event says it wrote it (nodes > 1, forward: nodes): a
 * power-nodes.csv beside a one-node record is an earlier run's, and is not shown as this run's. Until 2026-11-29 a
 * one-node run in an earlier 2-node run's folder showed that run's cluster power. */
Test(tui_view, a_power_nodes_file_the_run_did_not_write_is_not_shown, .timeout = 60)
{
    char dir[64] = "/tmp/gauntlet-view-nodes-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    record_with_nodes_file(dir, ",\"nodes\":1");
    int rc;
    char *out = snapshot(dir, "--at 0.5", &rc);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "Power, node (1 GPUs)") && strstr(out, "now 300 W"), "%s", out);
    cr_expect(!strstr(out, "kW") && !strstr(out, "cluster"), "%s", out);
    record_with_nodes_file(dir, ",\"nodes\":2,\"forward\":\"ranks\"");
    out = snapshot(dir, "--at 0.5", &rc);
    cr_expect(!strstr(out, "kW") && !strstr(out, "nodes' sums"), "forward: ranks writes no power-nodes.csv:\n%s", out);
    record_with_nodes_file(dir, ",\"nodes\":2,\"forward\":\"nodes\",\"forward_hz\":100");
    out = snapshot(dir, "--at 0.5", &rc);
    cr_expect(strstr(out, "nodes' sums") && strstr(out, "kW"), "the run's own power-nodes.csv is read:\n%s", out);
    out = snapshot(dir, "", &rc);   /* the run over: its row is node 0's figures, under the cluster's chart */
    cr_expect(strstr(out, "node 0's GPUs"), "the table says whose figures it holds:\n%s", out);
    record_with_nodes_file(dir, ",\"nodes\":1");
    out = snapshot(dir, "", &rc);
    cr_expect(!strstr(out, "node 0's GPUs"), "one node: the table is the run's:\n%s", out);
}

/* The view's GEMM rate agrees with summary.json's tflops (flops over compute time) with a straggler through the whole
 * run: until 2026-11-30 the view showed the mean of the phases' rates, 2.1x the summary's. */
Test(tui_view, the_gemm_rate_agrees_with_the_summary_with_a_straggler, .timeout = 180)
{
    const char *sc = e2e_scenario("name: strag\nranks: 4\niterations: 30\nseed: 5\n"
                                  "workload: {gemm: {m: 256, n: 256, k: 256, count: 2}, allreduce: {bytes: 4MiB}}\n"
                                  "power: {sample_hz: 100}\nheartbeat: {interval: 100ms, timeout: 30s}\n"
                                  "sim: {tflops: 0.002}\n"
                                  "faults: [{ kind: straggler, at: 2, rank: 1, factor: 8, duration: 600s }]\n"
                                  "mitigations: [none]\n");
    const char *out = e2e_outdir();
    const char *args[] = { "run", sc, "--out", out, "--backend", "sim", "--headless", NULL };
    cr_assert_eq(e2e_run(e2e_log("view-strag.log"), args), 0, "see %s", e2e_log("view-strag.log"));
    int rc;
    char *s = snapshot(out, "", &rc);
    cr_assert_eq(rc, 0, "%s", s);
    const char *g = strstr(s, "GEMM ");
    cr_assert(g, "%s", s);
    double view = strtod(g + 5, NULL);
    json_t *sum = e2e_summary(out);
    double want = json_number_value(json_object_get(json_array_get(json_object_get(sum, "runs"), 0), "tflops"));
    json_decref(sum);
    /* the view's last 64 phases against the whole run's (its first two iterations without the straggler) */
    cr_assert(want > 0 && fabs(view / want - 1) < 0.2, "view %g TFLOP/s/GPU, summary %g\n%s", view, want, s);
}

/* Headless, power sampling off: the progress line still comes every 2 s (until 2026-11-30 none came before the end
 * table: the line was printed only on a power row). */
Test(tui_view, headless_progress_lines_without_power_sampling, .timeout = 180)
{
    const char *sc = e2e_scenario("name: nopower\nranks: 2\niterations: 150\nseed: 3\n"
                                  "workload: {gemm: {m: 256, n: 256, k: 256, count: 2}, allreduce: {bytes: 4MiB}}\n"
                                  "power: {sample_hz: 0}\nsim: {tflops: 0.002}\nmitigations: [none]\n");
    const char *out = e2e_outdir(), *lp = e2e_log("view-nopower.out");
    const char *args[] = { "run", sc, "--out", out, "--backend", "sim", "--headless", NULL };
    pid_t p = e2e_start_to(lp, e2e_log("view-nopower.log"), args);
    cr_assert_eq(e2e_wait(p, 150), 0, "see %s", e2e_log("view-nopower.log"));
    char *text = e2e_read(lp);
    cr_assert(text);
    int lines = 0;
    for (char *q = strtok(text, "\n"); q; q = strtok(NULL, "\n"))
        lines += strstr(q, ": run 1/1 none") && strstr(q, " iter ") && strstr(q, "  power -  ");
    /* 150 iterations of ~40 ms: 6 s at least, so the first line and at least one 2 s later */
    cr_assert_geq(lines, 2, "progress lines with no power:\n%s", text);
    free(text);
}

/* A progress line's power is the sum of every rank's reading, or none: a rank without one (not read yet, a failed
 * poll) is no 0 W (until 2026-12-01 the first line read "power 500 W [500, 500]", half the node's sum, and a failed
 * poll dipped the range). */
Test(tui_view, a_progress_line_never_sums_a_missing_reading_as_0_w, .timeout = 30)
{
    char path[] = "/tmp/gauntlet-progress-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    cr_assert(saved >= 0 && dup2(fd, STDOUT_FILENO) >= 0);
    const struct view_link *v = progress_view_open();
    static const char *const ev[] = {
        "{\"t_s\":0,\"event\":\"start\",\"ranks\":2,\"nodes\":1,\"runs\":1}\n",
        "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"label\":\"none\",\"iterations\":10}\n",
    };
    for (int i = 0; i < 2; i++)
        v->event(v->ctx, ev[i], strlen(ev[i]));
    struct power_reading pr = POWER_READING_NONE;
    pr.watts = 500;
    v->power(v->ctx, 0.2, 0, &pr, 1);   /* rank 0's reading, rank 1's not yet: the first line comes now */
    fflush(stdout);
    cr_assert(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    close(fd);
    progress_view_close(v);
    char *text = e2e_read(path);
    unlink(path);
    cr_assert(text && strstr(text, "run 1/1 none"), "no progress line: %s", text ? text : "");
    cr_assert(strstr(text, "power -") && !strstr(text, "power 500 W"), "half a sum printed: %s", text);
    free(text);
}

/* Writes the descriptors from 3 up that this process has open into have[] (1: open). */
static void open_fds(unsigned char *have, int max)
{
    memset(have, 0, (size_t)max);
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        _exit(125);
    int skip = dirfd(d);
    for (struct dirent *e; (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd >= 3 && fd < max && fd != skip)
            have[fd] = 1;
    }
    closedir(d);
}

/* In a child on a new terminal (its controlling one), stdin that terminal (tty 1) or /dev/null (tty 0: as under
 * mpirun, the view opens /dev/tty): starts the live view into dir and lists into report every descriptor the view
 * opened that a process it starts would inherit (no FD_CLOEXEC). Exit 0: none; 1: some; 2: no view. */
static void live_child(const char *slave, int tty, const char *dir, const char *report)
{
    setsid();
    int s = open(slave, O_RDWR);
    if (s < 0)
        _exit(126);
    dup2(s, 1);
    dup2(s, 2);
    dup2(tty ? s : open("/dev/null", O_RDONLY), 0);
    close(s);
    setenv("TERM", "xterm", 1);
    FILE *r = fopen(report, "w");
    if (!r)
        _exit(125);
    enum { MAX = 1024 };
    static unsigned char before[MAX], after[MAX];
    open_fds(before, MAX);
    before[fileno(r)] = 1;
    char why[256];
    if (!tui_live_start(dir, why, sizeof why)) {
        fprintf(r, "no live view: %s", why);
        fclose(r);
        _exit(2);
    }
    open_fds(after, MAX);
    int bad = 0;
    for (int fd = 3; fd < MAX; fd++) {
        int fl = after[fd] && !before[fd] ? fcntl(fd, F_GETFD) : FD_CLOEXEC;
        if (!(fl & FD_CLOEXEC)) {
            char path[64], link[256] = "?";
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            ssize_t k = readlink(path, link, sizeof link - 1);
            link[k > 0 ? k : 1] = 0;
            fprintf(r, " %d -> %s", fd, link);
            bad = 1;
        }
    }
    tui_live_end();
    fclose(r);
    _exit(bad);
}

/* The live view's own descriptors (its log's reader, the duplicate of stderr it gives back at the end, /dev/tty and
 * the duplicate it draws through when stdin is not the terminal) are close-on-exec: a worker the supervisor starts
 * while the view runs inherits none of them (the supervisor also closes every other one in the worker: two locks on
 * one door). On the terminal as stdin and with stdin /dev/null. Until 2026-11-30 the duplicate of stderr was a
 * dup(): open across an exec. */
Test(tui_view, the_live_views_descriptors_are_close_on_exec, .timeout = 60)
{
    for (int tty = 0; tty < 2; tty++) {
        char dir[64] = "/tmp/gauntlet-live-fds-XXXXXX", report[128];
        cr_assert_not_null(mkdtemp(dir));
        e2e_own(dir);
        snprintf(report, sizeof report, "%s/report", dir);
        int m = posix_openpt(O_RDWR | O_NOCTTY);
        cr_assert_geq(m, 0);
        cr_assert_eq(grantpt(m), 0);
        cr_assert_eq(unlockpt(m), 0);
        const char *slave = ptsname(m);
        cr_assert_not_null(slave);
        pid_t p = fork();
        cr_assert_geq(p, 0);
        if (p == 0)
            live_child(slave, tty, dir, report);
        char buf[4096];
        while (read(m, buf, sizeof buf) > 0) {   /* the screen, until the child closes its end (EIO) */
        }
        int rc = e2e_wait(p, 20);
        close(m);
        char *text = e2e_read(report);
        cr_assert_eq(rc, 0, "stdin %s: exit %d:%s", tty ? "the terminal" : "/dev/null", rc, text ? text : "");
        free(text);
    }
}

/* A power.csv whose first line is no header (t_s,...) is exit 2 naming its line 1 and what was expected: the first
 * line was passed over unread as the header, a row of readings lost without a word. */
Test(tui_view, a_power_file_without_its_header_is_refused, .timeout = 60)
{
    const char *sc = e2e_scenario("name: vhdr\nranks: 2\niterations: 10\nworkload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n"
                                  "  allreduce: {bytes: 64KiB}\n");
    const char *out = e2e_outdir();
    char *log, path[700];
    cr_assert_eq(e2e_run(e2e_log("view-hdr-run.log"),
                         (const char *[]){ "run", sc, "--out", out, "--backend", "sim", "--headless", NULL }), 0);
    snprintf(path, sizeof path, "%s/power.csv", out);
    char *text = e2e_read(path), *rows = text ? strchr(text, '\n') : NULL;
    cr_assert(rows && strncmp(text, "t_s,", 4) == 0 && strchr(rows + 1, '\n'), "%s", text);
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    cr_assert_geq(fputs(rows + 1, f), 0);
    cr_assert_eq(fclose(f), 0);
    free(text);
    int rc = view_run("/dev/null", (const char *[]){ "view", out, "--snapshot", "80x24", NULL }, &log);
    char want[800];
    snprintf(want, sizeof want, "%s:1: expected the header t_s,", path);
    cr_expect_eq(rc, 2, "exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, want), "'%s' not in:\n%s", want, log);
    free(log);
}

/* A record line at a time far out: 2e15 s is refused naming file and line (no run's; until 2026-12-02 the view never
 * returned on it, its chart's loop stepping 0.1 s on a time 0.1 no longer changes); 9e11 s, under the bound, is drawn
 * in finite time (the slices counted in whole steps); and at 12 rows, the least it draws, the log shows a line under
 * its title (its title alone until 2026-12-02, from 12 to 15 rows). `timeout` bounds a hang. */
Test(tui_view, a_time_far_out_is_refused_or_drawn_and_a_short_screen_keeps_a_log_line, .timeout = 60)
{
    char dir[64] = "/tmp/gauntlet-view-far-XXXXXX", path[200], cmd[600];
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    static char buf[65536];
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fprintf(f, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"far\",\"backend\":\"sim\",\"ranks\":1,\"runs\":1,\"iterations\":10}\n"
                   "{\"t_s\":0.01,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":10}\n"
                   "{\"t_s\":0.5,\"event\":\"worker_error\",\"rank\":0,\"what\":\"the line under the title\"}\n"
                   "{\"t_s\":%s,\"event\":\"hang\",\"rank\":0}\n", k ? "9e11" : "2e15");
        cr_assert_eq(fclose(f), 0);
        snprintf(cmd, sizeof cmd, "LANG=C GAUNTLET_ASCII=1 timeout 30 %s view %s --snapshot 80x12 2>&1", GAUNTLET_BIN, dir);
        FILE *p = popen(cmd, "r");
        cr_assert(p);
        size_t n = fread(buf, 1, sizeof buf - 1, p);
        buf[n] = 0;
        int st = pclose(p), rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (!k) {
            cr_assert(rc == 2 && strstr(buf, "events.jsonl:4: expected a JSON object with t_s (seconds, under 1e12)"),
                      "exit %d (124: it hung)\n%s", rc, buf);
            continue;
        }
        cr_assert_eq(rc, 0, "exit %d (124: it hung)\n%s", rc, buf);
        const char *ev = strstr(buf, "Events (");
        cr_assert(ev, "%s", buf);
        const char *next = strchr(ev, '\n');
        cr_assert(next && strstr(next, "rank 0 silent"), "no log line under the title at 12 rows:\n%s", buf);
    }
}
