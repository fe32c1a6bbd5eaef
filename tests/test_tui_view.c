/* tests/test_tui_view.c: `gauntlet view RUNDIR` on a real run's results: the text snapshot shows the run
 * as it ended (and as it was at --at), and bad input is exit 2 naming the file and line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

static const char drill[] =
    "name: viewtest\nranks: 3\niterations: 40\nseed: 2\n"
    "workload:\n"
    "  gemm: {m: 256, n: 256, k: 256, count: 2}\n"
    "  allreduce: {bytes: 4MiB}\n"
    "  checkpoint: {every: 10, bytes: 1MiB, path: /tmp/gauntlet-test-ckpt}\n"
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
    cr_assert_eq(e2e_run("/tmp/gauntlet-view.log", args), 0, "see /tmp/gauntlet-view.log");
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
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s view %s --snapshot 10x5 >/dev/null 2>&1", GAUNTLET_BIN, out);
    cr_assert_eq(WEXITSTATUS(system(cmd)), 2);
    snprintf(cmd, sizeof cmd, "%s view %s </dev/null >/dev/null 2>&1", GAUNTLET_BIN, out);
    cr_assert_eq(WEXITSTATUS(system(cmd)), 3, "no terminal and no --snapshot: the environment, not the input");
    snprintf(cmd, sizeof cmd, "printf '{\"t_s\":1,\"event\":\"x\"}\\nnot json\\n{\"t_s\":2,\"event\":\"y\"}\\n' >> %s/events.jsonl",
             out);
    cr_assert_eq(system(cmd), 0);
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
