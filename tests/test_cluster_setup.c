/* tests/test_cluster_setup.c: how several nodes start and end together, under `mpirun --oversubscribe -np 2` on one
 * machine (docs/cluster.md, "All start or none does"). Two nodes given different scenarios stop at set-up with exit
 * 2, node 0 naming the key; a node stalled in its set-up ends the job within the set-up wait (exit 3, naming the step
 * and the node), and a SIGTERM meanwhile ends it at once; a node 0 stalled there is ended by the others after their
 * longer wait (exit 3); a node whose end record never comes fails the run (exit 1, stop node_failed); `accept` on
 * nodes that read one of its scenarios differently fails that one unrun and goes on; a node 0 of another build is
 * refused before any other message (exit 3, both builds named). A node stalls by stopping itself (SIGSTOP) at a
 * chosen call: tests/stall_preload.c, preloaded into that node's supervisor only, through a wrapper that picks by
 * OMPI_COMM_WORLD_RANK. Skips without MPI. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#include "e2e.h"

static const char base[] = "name: setup\nnodes: 2\nranks: 2\niterations: 30\nseed: 7\n"
                           "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: %s}\n"
                           "sim: {tflops: 0.005}\npower: {sample_hz: 100}\n"
                           "heartbeat: {interval: 100ms, timeout: 2s, startup: %s}\n";

/* Writes a wrapper next to out that runs node 0 with the command cmd0 and node 1 with cmd1, and node 0's pid (its
 * shell's, kept by exec) into out.pid; returns its path (static storage). */
static const char *wrapper_cmds(const char *out, const char *cmd0, const char *cmd1)
{
    static char path[600];
    snprintf(path, sizeof path, "%s.sh", out);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "#!/bin/sh\nif [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then exec %s; fi\necho $$ > %s.pid\nexec %s\n",
            cmd1, out, cmd0);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(chmod(path, 0755), 0);
    return path;
}

/* The same with node 0 running gauntlet with args0 (words after `gauntlet`) and node 1 the command args1. */
static const char *wrapper(const char *out, const char *args0, const char *args1)
{
    char cmd0[2048];
    int w = snprintf(cmd0, sizeof cmd0, "%s %s", e2e_bin(), args0);
    cr_assert(w > 0 && (size_t)w < sizeof cmd0);
    return wrapper_cmds(out, cmd0, args1);
}

/* Writes into buf the command that runs gauntlet with args (words after `gauntlet`) and tests/stall_preload.c
 * preloaded under the environment env (NAME=VALUE). Under AddressSanitizer the preload comes before ASan's runtime,
 * which ASan refuses unless told not to check the order: the test's own ASAN_OPTIONS, and that. */
static void preloaded(char *buf, size_t n, const char *env, const char *args)
{
    const char *asan = getenv("ASAN_OPTIONS");
    int w = snprintf(buf, n, "env %s LD_PRELOAD=%s ASAN_OPTIONS='%s%sverify_asan_link_order=0' %s %s", env,
                     STALL_PRELOAD, asan ? asan : "", asan && *asan ? ":" : "", e2e_bin(), args);
    cr_assert(w > 0 && (size_t)w < n && !strchr(asan ? asan : "", '\''), "the preloaded node's command");
}

/* The command that runs this node stalled at the call `at`, with args. */
static void stalled(char *buf, size_t n, const char *at, const char *args)
{
    char env[96];
    snprintf(env, sizeof env, "GAUNTLET_TEST_STALL_AT=%s", at);
    preloaded(buf, n, env, args);
}

/* Starts mpirun -np 2 on the wrapper in the background (output into out.log); its pid. */
static pid_t launch(const char *out, const char *wrap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "exec timeout 100 mpirun --oversubscribe --allow-run-as-root -np 2 %s > %s.log 2>&1", wrap,
             out);
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return p;
}

/* Waits for the launcher; its exit code (-1: not an exit), *took the seconds since t0. */
static int finish(pid_t launcher, uint64_t t0, double *took)
{
    int st = 0;
    waitpid(launcher, &st, 0);
    *took = (double)(mono_ns() - t0) * 1e-9;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *log_of(const char *out)
{
    char path[600];
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    return log ? log : strdup("");
}

/* Node 1 reads a scenario whose all-reduce is 1 MiB where node 0's is 4 MiB: every node stops at set-up with exit 2,
 * and node 0 names node 1 and the key (as the resolved scenario spells it), not a run with false figures. */
Test(cluster_setup, different_scenarios_stop_every_node_naming_the_key, .timeout = 120)
{
    e2e_need_mpi();
    char t0[512], t1[512], a0[1024], a1[1024];
    snprintf(t0, sizeof t0, base, "4MiB", "120s");
    snprintf(t1, sizeof t1, base, "1MiB", "120s");
    const char *s0 = e2e_scenario(t0), *s1 = e2e_scenario(t1), *out = e2e_outdir();
    snprintf(a0, sizeof a0, "run %s --out %s --backend sim --headless", s0, out);
    snprintf(a1, sizeof a1, "%s run %s --out %s --backend sim --headless", e2e_bin(), s1, out);
    double took;
    int rc = finish(launch(out, wrapper(out, a0, a1)), mono_ns(), &took);
    char *log = log_of(out);
    cr_assert_eq(rc, 2, "exit %d after %.1f s:\n%s", rc, took, log);
    cr_assert(strstr(log, "gauntlet[node 0/2] run: node 1: its scenario differs from node 0's at "
                          "workload.allreduce.bytes: '1MiB' on node 1, '4MiB' on node 0"), "%s", log);
    cr_assert_null(strstr(log, "iter "), "no run started:\n%s", log);
    free(log);
}

/* Node 0 runs another build (tests/stall_preload.c: its build record says another wire and version): node 1 ends the
 * job at once, before any other message, with exit 3, saying both builds; no message of another size is ever sent
 * (until 2026-12-01 the first agreement whose message had changed failed as an MPI error, or was misread). */
Test(cluster_setup, a_node_of_another_build_ends_the_job_naming_both, .timeout = 120)
{
    e2e_need_mpi();
    char t[512], a0[1024], c0[2048], a1[1024];
    snprintf(t, sizeof t, base, "4MiB", "120s");
    const char *sc = e2e_scenario(t), *out = e2e_outdir();
    snprintf(a0, sizeof a0, "run %s --out %s --backend sim --headless", sc, out);
    snprintf(a1, sizeof a1, "%s %s", e2e_bin(), a0);
    preloaded(c0, sizeof c0, "GAUNTLET_TEST_OTHER_BUILD=1", a0);
    double took;
    int rc = finish(launch(out, wrapper_cmds(out, c0, a1)), mono_ns(), &took);
    char *log = log_of(out);
    cr_assert_eq(rc, 3, "exit %d after %.1f s:\n%s", rc, took, log);
    cr_assert(strstr(log, "node 1: this node runs gauntlet " GAUNTLET_VERSION " (wire "), "%s", log);
    cr_assert(strstr(log, "node 0 gauntlet 0.0.9-other (wire "), "%s", log);
    cr_assert(strstr(log, "install one build on every node: the job ends (exit 3)"), "%s", log);
    cr_assert_null(strstr(log, "iter "), "no run started:\n%s", log);
    cr_assert_lt(took, 60, "ended after %.1f s: at once, not after a set-up wait (120 s)", took);
    free(log);
}

/* Node 1 stops (SIGSTOP) at its control block, after the start's agreement: node 0 waits at the next agreement for
 * the set-up wait (heartbeat.startup 1 s + timeout 2 s), says which node did not reach which step, and ends the job
 * with exit 3; nothing waits forever. The bounds allow mpirun's start and teardown on a loaded machine. */
Test(cluster_setup, a_node_stalled_in_its_set_up_ends_the_job_within_the_set_up_wait, .timeout = 120)
{
    e2e_need_mpi();
    char t[512], a0[1024], a1[2048];
    snprintf(t, sizeof t, base, "4MiB", "1s");
    const char *sc = e2e_scenario(t), *out = e2e_outdir();
    snprintf(a0, sizeof a0, "run %s --out %s --backend sim --headless", sc, out);
    stalled(a1, sizeof a1, "memfd_create", a0);
    double took;
    int rc = finish(launch(out, wrapper(out, a0, a1)), mono_ns(), &took);
    char *log = log_of(out);
    cr_assert_eq(rc, 3, "exit %d after %.1f s (124: a hang):\n%s", rc, took, log);
    cr_assert(strstr(log, "node 0: node(s) 1 did not reach set-up step 'the control block' within 3 s"), "%s", log);
    cr_assert_gt(took, 3, "ended after %.1f s: before the set-up wait was over", took);
    cr_assert_lt(took, 3 + 30, "ended after %.1f s (set-up wait 3 s)", took);
    free(log);
}

/* Node 0 stops (SIGSTOP) at its control block: nobody is left to speak first, so node 1 ends the job itself once its
 * own wait is over — the set-up wait and some more, so that a node 0 that is there names the missing node first — with
 * exit 3, saying node 0 did not answer which step; the stopped node 0 is taken down by the launcher. */
Test(cluster_setup, a_node_0_stalled_in_its_set_up_is_ended_by_the_others, .timeout = 120)
{
    e2e_need_mpi();
    char t[512], a0[2048], a1[1024];
    snprintf(t, sizeof t, base, "4MiB", "1s");
    const char *sc = e2e_scenario(t), *out = e2e_outdir();
    snprintf(a1, sizeof a1, "run %s --out %s --backend sim --headless", sc, out);
    stalled(a0, sizeof a0, "memfd_create", a1);
    char cmd1[2048];
    snprintf(cmd1, sizeof cmd1, "%s %s", e2e_bin(), a1);
    double took;
    int rc = finish(launch(out, wrapper_cmds(out, a0, cmd1)), mono_ns(), &took);
    char *log = log_of(out);
    cr_assert_eq(rc, 3, "exit %d after %.1f s (124: a hang):\n%s", rc, took, log);
    static const char said[] = "node 1: node 0 did not answer set-up step 'the control block' within ";
    const char *at = strstr(log, said);
    cr_assert(at, "%s", log);
    double bound = strtod(at + strlen(said), NULL);
    /* longer than the set-up wait (heartbeat.startup 1 s + timeout 2 s), and waited out: not ended early */
    cr_assert_gt(bound, 3, "node 1 waited %g s, no longer than node 0 would have (3 s)", bound);
    cr_assert_geq(took, bound, "ended after %.1f s: before node 1's wait of %g s was over", took, bound);
    cr_assert_lt(took, bound + 30, "ended after %.1f s (node 1's wait %g s)", took, bound);
    free(log);
}

/* The same stall with a long set-up wait (61 s), and SIGTERM to node 0's supervisor while it waits: it reads the
 * signal in the wait, says so and ends the job at once (exit 1), rather than holding it for the wait. */
Test(cluster_setup, a_signal_ends_a_set_up_that_waits_for_a_node, .timeout = 120)
{
    e2e_need_mpi();
    char t[512], a0[1024], a1[2048], pidf[620];
    snprintf(t, sizeof t, base, "4MiB", "59s");
    const char *sc = e2e_scenario(t), *out = e2e_outdir();
    snprintf(a0, sizeof a0, "run %s --out %s --backend sim --headless", sc, out);
    stalled(a1, sizeof a1, "memfd_create", a0);
    pid_t launcher = launch(out, wrapper(out, a0, a1));
    snprintf(pidf, sizeof pidf, "%s.pid", out);
    char *log = NULL;
    uint64_t t0 = mono_ns();
    for (; !(log && strstr(log, "results in ")) && mono_ns() - t0 < 60000000000ull; sleep_ns(50000000)) {
        free(log);   /* node 0 printed its start line: it is past the start's agreement, at the next */
        log = log_of(out);
    }
    free(log);
    sleep_ns(500000000);
    char *pid = e2e_read(pidf);
    cr_assert(pid, "node 0 never started");
    uint64_t sent = mono_ns();
    cr_assert_eq(kill((pid_t)atol(pid), SIGTERM), 0);
    free(pid);
    double took;
    int rc = finish(launcher, sent, &took);
    log = log_of(out);
    cr_assert_eq(rc, 1, "exit %d %.1f s after the signal:\n%s", rc, took, log);
    cr_assert(strstr(log, "node 0: stopped by SIGTERM during the set-up (at step 'the control block'"), "%s", log);
    cr_assert_lt(took, 20, "ended %.1f s after the signal (set-up wait 61 s)", took);
    free(log);
}

/* Node 1 stops (SIGSTOP) at the end of its run, before it sends its end record: node 0 stops waiting for it once it
 * is silent for the heartbeat timeout and writes a summary that says the run is incomplete (exit 1, stop node_failed),
 * never exit 0 with a node missing; and it leaves without waiting for node 1 in MPI's finalize. */
Test(cluster_setup, a_node_whose_end_record_never_comes_fails_the_run, .timeout = 120)
{
    e2e_need_mpi();
    char t[512], a0[1024], a1[2048];
    snprintf(t, sizeof t, base, "4MiB", "120s");
    const char *sc = e2e_scenario(t), *out = e2e_outdir();
    snprintf(a0, sizeof a0, "run %s --out %s --backend sim --headless", sc, out);
    stalled(a1, sizeof a1, "getrusage", a0);
    double took;
    int rc = finish(launch(out, wrapper(out, a0, a1)), mono_ns(), &took);
    char *log = log_of(out);
    cr_assert_eq(rc, 1, "exit %d after %.1f s (124: a hang):\n%s", rc, took, log);
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 1, "%s", log);
    cr_assert_str_eq(json_string_value(json_object_get(s, "stop")), "node_failed");
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "node 1: no end record came"), "stopped: %s", why);
    json_t *n1 = json_array_get(json_object_get(s, "nodes"), 1);
    cr_assert(strstr(json_string_value(json_object_get(n1, "stopped")), "no end record"));
    cr_assert_lt(took, 60, "ended after %.1f s", took);
    json_decref(s);
    free(log);
}

/* A suite of two scenarios on two nodes runs both: a node done with the first agrees on the second while node 0 still
 * reads the first's records (until a later 2026-11-29 change node 0's reading took that agreement's message and
 * dropped it, and the suite ended at its second scenario with exit 3 after 130 s). */
Test(cluster_setup, an_accept_suite_of_two_scenarios_runs_both_on_two_nodes, .timeout = 120)
{
    e2e_need_mpi();
    const char *sdir = e2e_outdir(), *out = e2e_outdir();
    cr_assert_eq(mkdir(sdir, 0755), 0);
    for (int i = 0; i < 2; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/L1-%c.yaml", sdir, 'a' + i);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "name: suite-%c\nnodes: 2\nranks: 1\niterations: 10\nseed: %d\n"
                   "workload: {gemm: {m: 128, n: 128, k: 128, count: 1}, allreduce: {bytes: 64KiB}}\n"
                   "power: {sample_hz: 50}\nsim: {tflops: 0.005}\nchecks:\n  sdc_screen:\n", 'a' + i, 5 + i);
        cr_assert_eq(fclose(f), 0);
    }
    char cmd[2048], path[700];
    snprintf(cmd, sizeof cmd, "timeout 100 mpirun --oversubscribe --allow-run-as-root -np 2 %s accept --backend sim "
             "--scenarios %s --out %s > %s.log 2>&1", e2e_bin(), sdir, out, out);
    uint64_t t0 = mono_ns();
    int st = system(cmd);
    double took = (double)(mono_ns() - t0) * 1e-9;
    char *log = log_of(out);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit %d after %.1f s (124: a hang):\n%s", WEXITSTATUS(st), took,
              log);
    snprintf(path, sizeof path, "%s/verdicts.json", out);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err), *v;
    cr_assert(j, "%s: %s\n%s", path, err.text, log);
    int seen[2] = { 0 };
    size_t i;
    json_array_foreach(json_object_get(j, "verdicts"), i, v) {
        const char *sc = json_string_value(json_object_get(v, "scenario"));
        for (int k = 0; k < 2; k++)
            if (sc && !strncmp(sc, k ? "suite-b" : "suite-a", 7))
                seen[k]++;
    }
    cr_assert(seen[0] > 0 && seen[1] > 0, "verdicts of both scenarios (%d, %d):\n%s", seen[0], seen[1], log);
    json_decref(j);
    free(log);
}

/* Writes a suite of two scenarios into the new folder dir: L1-a.yaml with an all-reduce of bytes_a, L1-b.yaml the same
 * on every call. */
static void suite_in(const char *dir, const char *bytes_a)
{
    cr_assert_eq(mkdir(dir, 0755), 0);
    for (int i = 0; i < 2; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/L1-%c.yaml", dir, 'a' + i);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "name: differ-%c\nnodes: 2\nranks: 1\niterations: 10\nseed: 5\n"
                   "workload: {gemm: {m: 128, n: 128, k: 128, count: 1}, allreduce: {bytes: %s}}\n"
                   "power: {sample_hz: 50}\nsim: {tflops: 0.005}\nchecks:\n  sdc_screen:\n", 'a' + i,
                i ? "64KiB" : bytes_a);
        cr_assert_eq(fclose(f), 0);
    }
}

/* accept on two nodes whose copies of a suite's scenario differ (node 1's all-reduce 1 MiB, node 0's 64 KiB): that
 * scenario is not run and fails the suite (its `run` verdict FAIL, saying the nodes read it differently), node 0
 * names the key, and the suite goes on to the next scenario, which both read alike. */
Test(cluster_setup, accept_fails_a_scenario_the_nodes_read_differently_and_goes_on, .timeout = 120)
{
    e2e_need_mpi();
    const char *d0 = e2e_outdir(), *d1 = e2e_outdir(), *out = e2e_outdir();
    suite_in(d0, "64KiB");
    suite_in(d1, "1MiB");
    char a0[1024], a1[1024], path[700];
    snprintf(a0, sizeof a0, "accept --backend sim --scenarios %s --out %s", d0, out);
    snprintf(a1, sizeof a1, "%s accept --backend sim --scenarios %s --out %s", e2e_bin(), d1, out);
    double took;
    int rc = finish(launch(out, wrapper(out, a0, a1)), mono_ns(), &took);
    char *log = log_of(out);
    cr_assert_eq(rc, 1, "exit %d after %.1f s (1: the suite failed; 124: a hang):\n%s", rc, took, log);
    cr_assert(strstr(log, "node 1: its scenario differs from node 0's at workload.allreduce.bytes: '1MiB' on node 1, "
                          "'64KiB' on node 0"), "%s", log);
    snprintf(path, sizeof path, "%s/verdicts.json", out);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err), *v;
    cr_assert(j, "%s: %s\n%s", path, err.text, log);
    int a_run_fail = 0, a_other = 0, b = 0;
    size_t i;
    json_array_foreach(json_object_get(j, "verdicts"), i, v) {
        const char *sc = json_string_value(json_object_get(v, "scenario"));
        const char *chk = json_string_value(json_object_get(v, "check"));
        const char *st = json_string_value(json_object_get(v, "status"));
        const char *note = json_string_value(json_object_get(v, "note"));
        if (sc && !strncmp(sc, "differ-a", 8)) {
            int fail = chk && !strcmp(chk, "run") && st && !strcmp(st, "FAIL") && note &&
                       strstr(note, "the nodes read this scenario differently (exit 2)");
            a_run_fail += fail;
            a_other += !fail;
        }
        b += sc && !strncmp(sc, "differ-b", 8);
    }
    cr_assert_eq(a_run_fail, 1, "differ-a: one run FAIL saying why\n%s", log);
    cr_assert_eq(a_other, 0, "differ-a was not run, so nothing else of it is judged\n%s", log);
    cr_assert_gt(b, 0, "the suite went on to differ-b\n%s", log);
    cr_assert_gt(json_integer_value(json_object_get(j, "failed")), 0);
    json_decref(j);
    free(log);
}
