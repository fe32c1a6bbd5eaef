/* tests/test_tui_tmux.c: the real binary's live view in a real terminal (a tmux pane of 120x40): the header
 * and a rising iteration count, a crash injected with `f` and seen detected and recovered in the log, pause,
 * skip, quit with its confirmation, the exit code and summary, and the shell's screen given back — also
 * when the harness itself crashes. Skips when tmux is not installed. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "util.h"

static char sock[64];
static char pane[120 * 40 * 4 + 1];

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    cr_assert_eq(rc, 0, "'%s' failed: %d", cmd, rc);
}

static const char *capture(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "tmux -L %s capture-pane -p -t t", sock);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(pane, 1, sizeof pane - 1, p);
    pane[n] = 0;
    pclose(p);
    return pane;
}

/* Waits until the pane shows needle; returns 0, or -1 after timeout_s. */
static int wait_for(const char *needle, double timeout_s)
{
    uint64_t end = mono_ns() + (uint64_t)(timeout_s * 1e9);
    while (mono_ns() < end) {
        if (strstr(capture(), needle))
            return 0;
        usleep(100000);
    }
    return -1;
}

/* Waits until the shell has printed the run's exit code ("EXIT=" and a digit: the typed command's "EXIT=$?" shows
 * first, as soon as the view gives the screen back); returns 0, or -1 after timeout_s. */
static int wait_exit(double timeout_s)
{
    uint64_t end = mono_ns() + (uint64_t)(timeout_s * 1e9);
    while (mono_ns() < end) {
        for (const char *p = capture(); (p = strstr(p, "EXIT=")); p += 5)
            if (p[5] >= '0' && p[5] <= '9')
                return 0;
        usleep(100000);
    }
    return -1;
}

static long iter_shown(void)
{
    const char *p = strstr(capture(), " iter ");
    return p ? strtol(p + 6, NULL, 10) : -1;
}

static void keys(const char *k) { sh("tmux -L %s send-keys -t t %s", sock, k); }

/* The boundary the view's log names ("paused before iteration N"): N, or -1 when the pane shows none. */
static long pause_boundary(void)
{
    const char *p = strstr(capture(), "paused before iteration ");
    return p ? strtol(p + strlen("paused before iteration "), NULL, 10) : -1;
}

/* Once the header says [paused] (every rank has reached the boundary: [pausing] until then), the count shown is the
 * boundary the log names and stays there for a second: stopped exactly at the boundary. */
static void expect_still_at_the_boundary(void)
{
    long at = pause_boundary(), p1 = iter_shown();
    cr_assert(at > 0, "the log names the pause's boundary:\n%s", pane);
    cr_assert_eq(p1, at, "paused at the boundary, iteration %ld: shown %ld\n%s", at, p1, pane);
    usleep(1000000);
    cr_assert_eq(iter_shown(), p1, "no iteration while paused\n%s", pane);
}

static void start_pane(void)
{
    if (system("tmux -V >/dev/null 2>&1") != 0)
        cr_skip_test("tmux is not installed (apt-get install tmux): the live view's terminal test needs it");
    static char dir[64];   /* the server's socket (tmux leaves it when the server ends): in a folder of this process's */
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/gauntlet-tmux-XXXXXX");
        cr_assert(mkdtemp(dir));
        e2e_own(dir);
        cr_assert_eq(setenv("TMUX_TMPDIR", dir, 1), 0);
    }
    snprintf(sock, sizeof sock, "gauntlet-test-%d", (int)getpid());
    sh("tmux -L %s kill-server 2>/dev/null; tmux -L %s -f /dev/null new-session -d -s t -x 120 -y 40 "
       "\"env -u TMUX TERM=xterm-256color LANG=C.UTF-8 PS1='READY$ ' sh\"", sock, sock);
    cr_assert_eq(wait_for("READY$", 10), 0, "no shell in the pane:\n%s", pane);
}

static void stop_pane(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "tmux -L %s kill-server 2>/dev/null", sock);
    if (system(cmd) != 0) { /* already gone */ }
}

/* The pane's cursor and screen: "1 0" when the cursor shows and the alternate screen is left (the shell's). */
static const char *pane_modes(void)
{
    static char buf[32];
    char cmd[160];
    snprintf(cmd, sizeof cmd, "tmux -L %s display -p -t t '#{cursor_flag} #{alternate_on}'", sock);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = 0;
    pclose(p);
    buf[strcspn(buf, "\n")] = 0;
    return buf;
}

/* The terminal's modes are the shell's again: canonical input and echo (listed by stty in the pane), the cursor shown
 * and the alternate screen left. */
static void expect_terminal_back(const char *why)
{
    cr_assert_str_eq(pane_modes(), "1 0", "%s: the shell's screen and cursor back:\n%s", why, pane);
    /* the pipeline's end said (until 2026-11-30 a fixed 500 ms, which four processes and tmux's redraw on a loaded
     * machine could outlast: "not restored", falsely) */
    sh("tmux -L %s send-keys -t t 'stty -a | tr \" ;\" \"\\n\\n\" | grep -x -e icanon -e -icanon -e echo -e -echo; echo STTY-\"\"DONE' "
       "Enter", sock);
    cr_assert_eq(wait_for("\nSTTY-DONE", 20), 0, "%s: the modes were not listed:\n%s", why, pane);
    cr_assert(strstr(pane, "\nicanon") && strstr(pane, "\necho"), "%s: the terminal's modes are restored:\n%s", why, pane);
    cr_assert(!strstr(pane, "\n-icanon") && !strstr(pane, "\n-echo"), "%s: %s", why, pane);
}

/* The harness of the run writing out: the parent of its first worker. */
static pid_t harness_pid(const char *out)
{
    cr_assert_eq(e2e_wait_started(out, 1, 20), 0, "no iteration within 20 s of the set-up");
    pid_t w[8];
    int nw = e2e_worker_pids(out, w, 8);
    cr_assert_gt(nw, 0);
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)w[0]);
    FILE *f = fopen(path, "r");
    cr_assert(f && fgets(buf, sizeof buf, f));
    fclose(f);
    int ppid = 0;
    cr_assert_eq(sscanf(strrchr(buf, ')') + 2, "%*c %d", &ppid), 1);
    return ppid;
}

static const char scenario[] =
    "name: tmux\nranks: 4\niterations: 3000\nseed: 5\n"
    "workload:\n"
    "  gemm: {m: 256, n: 256, k: 256, count: 2}\n"
    "  allreduce: {bytes: 4MiB}\n"
    "  checkpoint: {every: 20, bytes: 1MiB, path: @TMPDIR@}\n"
    "power: {sample_hz: 100}\n"
    "heartbeat: {interval: 50ms, timeout: 2s}\n"
    "sim: {tflops: 0.002}\n"   /* ~34 ms of compute per iteration */
    "recovery: restart\n"
    "mitigations: [none, {filler: {floor: 60%}}]\n";

Test(tui_tmux, watch_inject_pause_skip_and_quit, .timeout = 120 + E2E_SETUP_S, .fini = stop_pane)
{
    start_pane();
    const char *sc = e2e_scenario(scenario), *out = e2e_outdir();
    sh("tmux -L %s send-keys -t t '%s run %s --out %s --backend sim; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, sc, out);
    cr_assert_eq(wait_for(" gauntlet run  tmux  sim", 20), 0, "no live view:\n%s", pane);
    cr_assert_eq(wait_for("[running]", E2E_SETUP_S), 0, "%s", pane);
    long a = iter_shown();
    usleep(1500000);
    long b = iter_shown();
    cr_assert(a >= 0 && b > a, "the iteration count rises: %ld then %ld\n%s", a, b, pane);
    cr_assert(strstr(pane, "Power, node (4 GPUs)") && strstr(pane, "Events ("), "%s", pane);

    /* f, crash (its digit in the dialog), rank 2, Enter */
    keys("f");
    cr_assert_eq(wait_for("Inject a fault", 5), 0, "%s", pane);
    const char *crash = strstr(pane, "crash");
    cr_assert(crash && crash - pane >= 3, "%s", pane);
    char digit[4] = { crash[-3], 0 };   /* "  2  crash" */
    keys(digit);
    keys("Right");
    keys("Right");
    keys("Enter");
    cr_assert_eq(wait_for("FAULT crash on rank 2", 10), 0, "%s", pane);
    cr_assert_eq(wait_for("DETECTED by exit on rank 2", 10), 0, "%s", pane);
    cr_assert_eq(wait_for("RECOVERED rank 2 by restart", 20), 0, "%s", pane);

    keys("p");
    cr_assert_eq(wait_for("[paused]", 10), 0, "%s", pane);
    expect_still_at_the_boundary();
    /* m while paused: the run ends at the pause, the next starts paused (until 2026-11-30 the skip was one past the
     * pause and waited for a resume) */
    keys("m");
    cr_assert_eq(wait_for("run 2/2 filler", 15), 0, "skip to the next mitigation while paused:\n%s", pane);
    cr_assert_eq(wait_for("[paused]", 10), 0, "the next run starts paused:\n%s", pane);
    keys("p");
    cr_assert_eq(wait_for("resumed", 10), 0, "%s", pane);
    cr_assert_eq(wait_for("[running]", 10), 0, "%s", pane);

    keys("q");
    cr_assert_eq(wait_for("Quit?", 5), 0, "%s", pane);
    keys("y");
    cr_assert_eq(wait_exit(30), 0, "%s", pane);
    cr_assert(strstr(pane, "EXIT=1"), "a run stopped before its end exits 1:\n%s", pane);
    cr_assert_eq(wait_for("READY$", 5), 0, "%s", pane);
    cr_assert(!strstr(pane, "Power, node"), "the shell's screen is back, the view gone:\n%s", pane);
    cr_assert(strstr(pane, "live view:") && strstr(pane, "% of one core"), "the view reports its cost:\n%s", pane);
    expect_terminal_back("q then y");
    stop_pane();

    json_t *s = e2e_summary(out);
    json_t *runs = json_object_get(s, "runs");
    cr_assert_eq(json_array_size(runs), 2);
    cr_assert(json_is_true(json_object_get(json_array_get(runs, 0), "skipped")), "run 1 was skipped");
    json_t *d = json_object_get(json_array_get(runs, 0), "disturbed");   /* by hand: its figures are not none's alone */
    cr_assert_eq(json_array_size(d), 3, "paused, a fault by hand, skipped");
    cr_assert_str_eq(json_string_value(json_array_get(d, 0)), "paused");
    cr_assert_str_eq(json_string_value(json_array_get(d, 1)), "fault_by_hand");
    cr_assert_str_eq(json_string_value(json_array_get(d, 2)), "skipped");
    d = json_object_get(json_array_get(runs, 1), "disturbed");   /* it began paused */
    cr_assert_eq(json_array_size(d), 1, "run 2 only began paused");
    cr_assert_str_eq(json_string_value(json_array_get(d, 0)), "paused");
    char log[600];
    snprintf(log, sizeof log, "%s.report", out);
    cr_assert_eq(e2e_run(log, (const char *[]){ "report", out, NULL }), 0);
    char *rep = e2e_read(log);
    cr_assert(rep && strstr(rep, "\nnone*~ ") && strstr(rep, "(~: disturbed by hand") && strstr(rep, "(*: ended early"),
              "the report marks run 1, skipped (ended early) and disturbed by hand:\n%s", rep);
    free(rep);
    cr_assert_eq(e2e_count_events(out, "fault_requested"), 1);
    json_t *rq = e2e_first_event(out, "fault_requested"), *in = e2e_first_event(out, "fault_injected");
    cr_assert(rq && in, "the key's fault is requested, then injected (events.jsonl)");
    cr_assert_str_eq(json_string_value(json_object_get(rq, "by")), "view");
    cr_assert_eq(json_integer_value(json_object_get(in, "rank")), 2);
    cr_assert_str_eq(json_string_value(json_object_get(in, "kind")), "crash");
    cr_assert_leq(json_number_value(json_object_get(rq, "t_s")), json_number_value(json_object_get(in, "t_s")));
    json_decref(rq);
    json_decref(in);
    cr_assert_eq(e2e_count_events(out, "recovered"), 1);
    cr_assert_eq(e2e_count_events(out, "paused"), 1);
    cr_assert_eq(e2e_count_events(out, "run_skip"), 1);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "kind")), "crash");
    cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "exit");
    json_decref(s);
}

/* Two nodes under mpirun: rank 0 draws on the terminal itself and reads the keys mpirun forwards; p pauses
 * and m skips on every node at one boundary the nodes agree on. */
Test(tui_tmux, two_nodes_under_mpirun_pause_and_skip_together, .timeout = 120 + E2E_SETUP_S, .fini = stop_pane)
{
    e2e_need_mpi();
    start_pane();
    const char *sc = e2e_scenario("name: tmux2\nnodes: 2\nranks: 2\niterations: 3000\nseed: 5\n"
                                  "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                                  "power: {sample_hz: 100}\nsim: {tflops: 0.002}\n"
                                  "mitigations: [none, {filler: {floor: 60%}}]\n");
    const char *out = e2e_outdir();
    sh("tmux -L %s send-keys -t t 'mpirun --oversubscribe --allow-run-as-root -np 2 %s run %s --out %s --backend sim "
       "> %s.stdout; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, sc, out, out);
    cr_assert_eq(wait_for("4 ranks on 2 nodes", 30), 0, "no live view under mpirun:\n%s", pane);
    cr_assert_eq(wait_for("[running]", E2E_SETUP_S), 0, "%s", pane);
    keys("p");
    cr_assert_eq(wait_for("[paused]", 10), 0, "%s", pane);
    expect_still_at_the_boundary();   /* on every node: the header's count is the least of all ranks' */
    keys("p");
    cr_assert_eq(wait_for("[running]", 10), 0, "%s", pane);
    keys("m");
    cr_assert_eq(wait_for("run 2/2 filler", 15), 0, "skip to the next mitigation on every node:\n%s", pane);
    keys("q");
    cr_assert_eq(wait_for("Quit?", 5), 0, "%s", pane);
    keys("y");
    cr_assert_eq(wait_exit(30), 0, "%s", pane);
    cr_assert_eq(wait_for("READY$", 5), 0, "the shell is back:\n%s", pane);
    stop_pane();
    cr_assert_eq(e2e_count_events(out, "paused"), 2, "paused on both nodes");
    cr_assert_eq(e2e_count_events(out, "resumed"), 2);
    cr_assert_eq(e2e_count_events(out, "run_skip"), 2, "skipped on both nodes");
    json_t *s = e2e_summary(out), *n;
    size_t i;
    int64_t at = -1;
    json_array_foreach(json_object_get(s, "nodes"), i, n) {   /* one boundary: every node ran as many iterations */
        int64_t it = json_integer_value(json_object_get(json_array_get(json_object_get(n, "runs"), 0), "iterations"));
        cr_assert(at < 0 || it == at, "node %zu ran %lld iterations, another %lld", i, (long long)it, (long long)at);
        at = it;
    }
    cr_assert(json_is_true(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "skipped")));
    cr_assert_eq(json_array_size(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "disturbed")), 2,
                 "paused and skipped on every node");
    json_decref(s);
}

Test(tui_tmux, a_crash_of_the_harness_gives_the_terminal_back, .timeout = 60 + E2E_SETUP_S, .fini = stop_pane)
{
    start_pane();
    const char *sc = e2e_scenario(scenario), *out = e2e_outdir();
    sh("tmux -L %s send-keys -t t '%s run %s --out %s --backend sim; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, sc, out);
    cr_assert_eq(wait_for("[running]", E2E_SETUP_S), 0, "%s", pane);
    pid_t ppid = harness_pid(out), w[8];   /* after its first iteration: lines to keep */
    int nw = e2e_worker_pids(out, w, 8);
    cr_assert_eq(kill(ppid, SIGSEGV), 0);
    cr_assert_eq(wait_for("EXIT=139", 10), 0, "the harness died of SIGSEGV:\n%s", pane);
    expect_terminal_back("SIGSEGV");
    stop_pane();
    cr_assert_gt(e2e_count_events(out, "iteration"), 0, "every line written so far parses");
    for (int i = 0; i < nw; i++) {   /* the workers die with it (PDEATHSIG) */
        for (int k = 0; k < 50 && !e2e_gone(w[i]); k++)
            usleep(100000);
        cr_assert(e2e_gone(w[i]), "worker %d outlived the harness", (int)w[i]);
    }
}

Test(tui_tmux, ctrl_c_stops_in_order_and_gives_the_terminal_back, .timeout = 60 + E2E_SETUP_S, .fini = stop_pane)
{
    start_pane();
    const char *sc = e2e_scenario(scenario), *out = e2e_outdir();
    sh("tmux -L %s send-keys -t t '%s run %s --out %s --backend sim; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, sc, out);
    cr_assert_eq(wait_for("[running]", E2E_SETUP_S), 0, "%s", pane);
    keys("C-c");
    cr_assert_eq(wait_exit(20), 0, "%s", pane);
    cr_assert(strstr(pane, "EXIT=1"), "SIGINT stops the run early: exit 1\n%s", pane);
    cr_assert(strstr(pane, "stopped by Interrupt"), "the end line says why:\n%s", pane);
    cr_assert(!strstr(pane, "Power, node"), "the view is gone:\n%s", pane);
    expect_terminal_back("Ctrl-C");
    stop_pane();
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 1);
    /* (a straggler a busy host made of the 34 ms phases is the host's: not counted) */
    cr_assert_eq(e2e_fault_count(s, NULL), 0,
                 "the key reached the workers too, but it is no fault of theirs: the supervisor stopped them");
    json_decref(s);
}

static const char short_run[] =
    "name: tmuxshort\nranks: 4\niterations: 150\nseed: 5\n"
    "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
    "power: {sample_hz: 100}\nsim: {tflops: 0.002}\nmitigations: [none]\n";

/* Ctrl-S is a key, not flow control: the screen's output goes on and the run ends by itself. Until 2026-11-30 it
 * stopped the terminal's output, the view's thread blocked in its write and the harness never exited (SIGTERM and
 * SIGINT ignored) until Ctrl-Q. */
Test(tui_tmux, ctrl_s_does_not_hold_the_harness, .timeout = 90 + E2E_SETUP_S, .fini = stop_pane)
{
    start_pane();
    const char *sc = e2e_scenario(short_run), *out = e2e_outdir();
    sh("tmux -L %s send-keys -t t '%s run %s --out %s --backend sim; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, sc, out);
    cr_assert_eq(wait_for("[running]", E2E_SETUP_S), 0, "%s", pane);
    keys("C-s");
    cr_assert_eq(wait_exit(60), 0, "the run ends by itself after Ctrl-S:\n%s", pane);
    cr_assert(strstr(pane, "EXIT=0"), "%s", pane);
    cr_assert_str_eq(pane_modes(), "1 0", "the shell's screen and cursor back");
    stop_pane();
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 0);
    json_decref(s);
}

/* Ctrl-\ while the view holds the terminal stops the run as Ctrl-C does: in order, the summary written, exit 1, the
 * terminal back. Until 2026-11-30 it sent SIGQUIT: exit 131, no summary.json, the terminal in the view's modes. */
Test(tui_tmux, ctrl_backslash_stops_in_order_and_gives_the_terminal_back, .timeout = 60 + E2E_SETUP_S,
     .fini = stop_pane)
{
    start_pane();
    const char *sc = e2e_scenario(scenario), *out = e2e_outdir();
    sh("tmux -L %s send-keys -t t '%s run %s --out %s --backend sim; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, sc, out);
    cr_assert_eq(wait_for("[running]", E2E_SETUP_S), 0, "%s", pane);
    keys("'C-\\'");
    cr_assert_eq(wait_exit(30), 0, "%s", pane);
    cr_assert(strstr(pane, "EXIT=1"), "stopped early, as by SIGINT: exit 1\n%s", pane);
    cr_assert_str_eq(pane_modes(), "1 0", "the shell's screen and cursor back:\n%s", pane);
    stop_pane();
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 1);
    json_decref(s);
}

/* A replay ended by SIGHUP (the ssh session closed) or SIGQUIT gives the terminal back before it dies of the
 * signal (until 2026-11-30 it left the alternate screen up and the cursor hidden). */
Test(tui_tmux, a_replay_ended_by_sighup_or_sigquit_gives_the_terminal_back, .timeout = 90 + E2E_SETUP_S,
     .fini = stop_pane)
{
    const char *sc = e2e_scenario("name: vhup\nranks: 2\niterations: 20\nworkload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n"
                                  "  allreduce: {bytes: 64KiB}\npower: {sample_hz: 100}\n");
    const char *out = e2e_outdir();
    char log[1100];
    snprintf(log, sizeof log, "%s.log", out);
    cr_assert_eq(e2e_run(log, (const char *[]){ "run", sc, "--out", out, "--backend", "sim", "--headless", NULL }), 0);
    static const struct { const char *name; int code; } sigs[] = { { "HUP", 129 }, { "QUIT", 131 } };
    for (size_t i = 0; i < 2; i++) {
        start_pane();
        sh("tmux -L %s send-keys -t t '%s view %s; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, out);
        cr_assert_eq(wait_for(" gauntlet view  vhup", 20), 0, "%s", pane);
        sh("kill -%s $(pgrep -n -f ' view %s$')", sigs[i].name, out);
        cr_assert_eq(wait_exit(20), 0, "%s", pane);
        char want[16];
        snprintf(want, sizeof want, "EXIT=%d", sigs[i].code);
        cr_assert(strstr(pane, want), "SIG%s: %s\n%s", sigs[i].name, want, pane);
        cr_assert_str_eq(pane_modes(), "1 0", "SIG%s: the shell's screen and cursor back:\n%s", sigs[i].name, pane);
        stop_pane();
    }
}

/* Under mpirun with stdin at its end no key can come: the footer says so and the view's thread sleeps (until
 * 2026-11-30 its poll on stdin returned at once, every time: 39 % of a core). */
Test(tui_tmux, a_closed_stdin_under_mpirun_costs_no_spin, .timeout = 120 + E2E_SETUP_S, .fini = stop_pane)
{
    e2e_need_mpi();
    start_pane();
    const char *sc = e2e_scenario("name: tmuxeof\nnodes: 2\nranks: 2\niterations: 200\nseed: 5\n"
                                  "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                                  "power: {sample_hz: 100}\nsim: {tflops: 0.002}\nmitigations: [none]\n");
    const char *out = e2e_outdir();
    sh("tmux -L %s send-keys -t t 'mpirun --oversubscribe --allow-run-as-root -np 2 %s run %s --out %s --backend sim "
       "< /dev/null > %s.stdout 2> %s.stderr; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, sc, out, out, out);
    cr_assert_eq(wait_for("keys: stdin closed", 30 + E2E_SETUP_S), 0, "the footer says no key can come:\n%s", pane);
    cr_assert_eq(wait_exit(90), 0, "%s", pane);
    cr_assert(strstr(pane, "EXIT=0"), "%s", pane);
    stop_pane();
    char path[600];
    snprintf(path, sizeof path, "%s.stderr", out);
    char *err = e2e_read(path);
    const char *c = err ? strstr(err, "s of CPU (") : NULL;
    cr_assert(c, "the view reports its cost:\n%s", err ? err : "(none)");
    double pct = strtod(c + 10, NULL);
    cr_assert_lt(pct, 20, "the view's thread spins: %.1f%% of one core\n%s", pct, err);   /* ~1-2 %: generous */
    free(err);
}

/* SIGTERM and SIGHUP of the harness stop the run in order through the supervisor (the summary written, exit 1); a
 * SIGQUIT sent from outside is taken as a crash (exit 131, no summary.json). Each way the terminal is given back. */
Test(tui_tmux, sigterm_sighup_and_sigquit_give_the_terminal_back, .timeout = 60 + 3 * E2E_SETUP_S, .fini = stop_pane)
{
    static const struct { const char *name; int sig, code; } sigs[] = {
        { "SIGTERM", SIGTERM, 1 }, { "SIGHUP", SIGHUP, 1 }, { "SIGQUIT", SIGQUIT, 131 } };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        start_pane();
        const char *sc = e2e_scenario(scenario), *out = e2e_outdir();
        sh("tmux -L %s send-keys -t t '%s run %s --out %s --backend sim; echo EXIT=$?' Enter", sock, GAUNTLET_BIN, sc,
           out);
        cr_assert_eq(wait_for("[running]", E2E_SETUP_S), 0, "%s", pane);
        cr_assert_eq(kill(harness_pid(out), sigs[i].sig), 0);
        cr_assert_eq(wait_exit(30), 0, "%s: %s", sigs[i].name, pane);
        char want[16];
        snprintf(want, sizeof want, "EXIT=%d", sigs[i].code);
        cr_assert(strstr(pane, want), "%s: %s\n%s", sigs[i].name, want, pane);
        expect_terminal_back(sigs[i].name);
        stop_pane();
        char path[600];
        snprintf(path, sizeof path, "%s/summary.json", out);
        if (sigs[i].code == 131) {
            cr_assert_neq(access(path, F_OK), 0, "SIGQUIT: no summary");
            continue;
        }
        json_t *s = e2e_summary(out);
        cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 1, "%s: stopped in order", sigs[i].name);
        json_decref(s);
    }
}
