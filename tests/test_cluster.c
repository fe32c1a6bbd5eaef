/* tests/test_cluster.c: several nodes on one machine — `mpirun --oversubscribe -np N` starts one supervisor
 * per "node", as on a cluster. The sim all-reduce crosses nodes exactly (2 x 2 and 3 x 2 ranks end in the
 * bitwise state of 1 x 4 and 1 x 6), node 0's results hold every node's events and power rows on one
 * timeline, a node crash is detected on its node and ends the run on all, and a nodes: mismatch is exit 2.
 * Skips without MPI. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faults/fault.h"
#include "util.h"

#include "e2e.h"

static const char base[] =
    "name: cluster\nnodes: %d\nranks: %d\niterations: 30\nseed: 7\n"
    "workload:\n"
    "  gemm: {m: 256, n: 256, k: 256, count: 2}\n"
    "  allreduce: {bytes: 4MiB}\n"
    "  checkpoint: {every: 10, bytes: 1MiB, path: @TMPDIR@}\n"
    "sim: {tflops: 0.005}\n"
    "%s%s";

/* Runs gauntlet under mpirun with np supervisors (np 0: no launcher); returns the exit code. */
static int run(int np, int nodes, int ranks, const char *extra, const char *out, char **log)
{
    char text[2048], cmd[4096], path[600];
    snprintf(text, sizeof text, base, nodes, ranks, strstr(extra, "power:") ? "" : "power: {sample_hz: 100}\n", extra);
    const char *sc = e2e_scenario(text);
    snprintf(path, sizeof path, "%s.log", out);
    if (np)
        snprintf(cmd, sizeof cmd, "timeout 120 mpirun --oversubscribe --allow-run-as-root -np %d %s run %s --out %s "
                                  "--backend sim --headless > %s 2>&1", np, GAUNTLET_BIN, sc, out, path);
    else
        snprintf(cmd, sizeof cmd, "timeout 120 %s run %s --out %s --backend sim --headless > %s 2>&1", GAUNTLET_BIN, sc,
                 out, path);
    int st = system(cmd);
    *log = e2e_read(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Another node's own files are made durable before its end record, a failure its exit 3 in it: a disk that fails
 * node 1's events-node1.jsonl (tests/stall_preload.c; the name is node 1's alone) fails the run, exit 3, the node's
 * record saying so (until 2026-12-02 they were fsynced at the close alone, a failure only said, exit 0). */
Test(cluster, another_nodes_record_that_cannot_be_made_durable_fails_the_run, .timeout = 180)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    char *log;
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_FSYNC_EIO=/events-node1.jsonl", NULL });
    int rc = run(2, 2, 1, "", out, &log);
    e2e_preload_end();
    cr_expect_eq(rc, 3, "exit %d:\n%s", rc, log);
    cr_expect(log && strstr(log, "events-node1.jsonl"), "the file is named:\n%s", log);
    json_t *s = e2e_summary(out);
    json_t *n1 = json_array_get(json_object_get(s, "nodes"), 1);
    const char *stop = json_string_value(json_object_get(n1, "stop")), *why = json_string_value(json_object_get(n1, "stopped"));
    cr_expect(stop && strcmp(stop, "results_write") == 0 && why && strstr(why, "events-node1.jsonl"),
              "node 1's record: stop %s, stopped %s", stop ? stop : "(none)", why ? why : "(none)");
    json_decref(s);
    free(log);
}

/* The record's summary rebuilt by summarize (as after a kill), the run's own kept aside and put back after. */
static json_t *rebuilt(const char *out)
{
    char sum[600], kept[620], path[600];
    snprintf(sum, sizeof sum, "%s/summary.json", out);
    snprintf(kept, sizeof kept, "%s.live", sum);
    cr_assert_eq(rename(sum, kept), 0);
    snprintf(path, sizeof path, "%s.summarize.log", out);
    int src = e2e_run(path, (const char *[]){ "summarize", out, NULL });
    char *slog = src ? e2e_read(path) : NULL;
    cr_assert_eq(src, 0, "%s", slog ? slog : "");
    json_t *r = e2e_summary(out);
    cr_assert_eq(rename(kept, sum), 0);
    /* what every rebuild keeps: each run's count of iterations, the ranks of every node in it (until 2026-11-30 a
     * forward: nodes record rebuilt as 0: the other nodes' ranks speak in node_iteration lines) */
    json_t *live = e2e_summary(out), *lr, *rr;
    size_t i;
    json_array_foreach(json_object_get(live, "runs"), i, lr) {
        rr = json_array_get(json_object_get(r, "runs"), i);
        cr_assert_eq(json_integer_value(json_object_get(rr, "iterations")), json_integer_value(json_object_get(lr, "iterations")),
                     "run %zu: %lld iterations rebuilt, %lld live", i, (long long)json_integer_value(json_object_get(rr, "iterations")),
                     (long long)json_integer_value(json_object_get(lr, "iterations")));
    }
    json_decref(live);
    return r;
}

static const char *fingerprint(json_t *s)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "state_fingerprint"));
}

/* Counts the rows of a CSV (after its header) whose column col (0-based) is value. */
static int rows_with(const char *path, int col, int value)
{
    char *csv = e2e_read(path);
    cr_assert(csv, "%s missing", path);
    int n = 0;
    for (char *l = strchr(csv, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        const char *c = l;
        for (int k = 0; k < col && c; k++)
            c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
        n += c && atoi(c) == value;
    }
    free(csv);
    return n;
}

/* Counts the lines of events file `name` in dir of event type (and of node, >= 0; the line's "event" and "node"
 * come first, in that order). */
static int count_in(const char *dir, const char *name, const char *type, int node)
{
    char path[600], want[80];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int at = snprintf(want, sizeof want, "\"event\":\"%s\"", type);
    if (node >= 0)
        snprintf(want + at, sizeof want - (size_t)at, ",\"node\":%d,", node);
    char *text = e2e_read(path);
    cr_assert(text, "%s missing", path);
    int n = 0;
    for (const char *p = text; (p = strstr(p, want)); p++)
        n++;
    free(text);
    return n;
}

/* forward: nodes (the default): node 0's folder has node 0's own lines and rows, one node_iteration line per other
 * node and iteration, every node's summed power (power-nodes.csv) and the cluster's figures; each other node keeps
 * its every line and row in its own files. */
static void forwarded_as_nodes(const char *out, json_t *s, int nodes, int ranks)
{
    char path[600];
    cr_assert_eq(e2e_count_events(out, "iteration"), 30 * ranks, "node 0's ranks' own");
    for (int k = 1; k < nodes; k++)
        cr_assert_eq(count_in(out, "events.jsonl", "phase_end", k) + count_in(out, "events.jsonl", "iteration", k), 0,
                      "node %d's ranks' per-iteration lines stay on node %d", k, k);
    cr_assert_gt(count_in(out, "events.jsonl", "phase_end", 0), 30 * ranks, "node 0's own are there");
    cr_assert_eq(e2e_count_events(out, "node_iteration"), 30 * (nodes - 1), "one line per other node and iteration");
    snprintf(path, sizeof path, "%s/power.csv", out);
    cr_assert_gt(rows_with(path, 9, 0), 10 * ranks, "node 0's rows");
    for (int k = 1; k < nodes; k++) {
        char name[64];
        snprintf(name, sizeof name, "events-node%d.jsonl", k);
        cr_assert_eq(count_in(out, name, "iteration", k), 30 * ranks, "node %d keeps its ranks' lines", k);
        snprintf(path, sizeof path, "%s/power-node%d.csv", out, k);
        cr_assert_gt(rows_with(path, 9, k), 10 * ranks, "node %d keeps its rows", k);
        cr_assert_eq(rows_with(path, 9, 0), 0, "node %d's file holds its own GPUs only", k);
        snprintf(path, sizeof path, "%s/power.csv", out);
        cr_assert_eq(rows_with(path, 9, k), 0, "node %d's GPUs' rows stay on node %d", k, k);
    }
    snprintf(path, sizeof path, "%s/power-nodes.csv", out);
    for (int k = 0; k < nodes; k++)
        cr_assert_gt(rows_with(path, 1, k), 10, "node %d's summed power", k);
    json_t *c = json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"), "cluster");
    cr_assert(json_is_object(c), "runs[0].power.cluster");
    cr_assert_eq(json_integer_value(json_object_get(c, "nodes")), nodes);
    cr_assert_eq(json_integer_value(json_object_get(c, "gpus")), nodes * ranks);
    cr_assert_gt(json_integer_value(json_object_get(c, "whole_cells")), 10);
    double sw = json_number_value(json_object_get(c, "swing_w")), mean = json_number_value(json_object_get(c, "mean_w"));
    double mean0 = json_number_value(json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0),
                                                                                     "power"), "aggregate"), "mean_w"));
    cr_assert(sw > 0 && mean > 0, "the sum's swing %g W, mean %g W", sw, mean);
    cr_assert(mean > 0.6 * nodes * mean0 && mean < 1.6 * nodes * mean0,
              "the cluster's mean %g W is about %d nodes of node 0's %g W", mean, nodes, mean0);
    cr_assert(json_number_value(json_object_get(json_object_get(c, "projected"), "swing_ratio")) > 0);
    /* the sum is read through the GPUs' sensors: what node 0's own figures cannot resolve, the cluster's cannot
     * either (until 2026-11-29 its 10 ms cells read as a 10 ms sensor: a 10 ms ramp of 50 kW/s none had seen) */
    json_t *agg0 = json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"), "aggregate");
    cr_assert_float_eq(json_number_value(json_object_get(json_object_get(c, "sensor"), "update_ms")),
                       json_number_value(json_object_get(json_object_get(agg0, "sensor"), "update_ms")), 1e-9);
    if (json_is_null(json_object_get(json_object_get(agg0, "ramp_up_w_s"), "10ms")))
        cr_assert(json_is_null(json_object_get(json_object_get(c, "ramp_up_w_s"), "10ms")), "%s",
                  json_dumps(c, JSON_COMPACT));
    /* a killed run's summary, rebuilt by summarize, sums the same power-nodes.csv over the same stretch */
    json_t *r = rebuilt(out);
    json_t *rc = json_object_get(json_object_get(json_array_get(json_object_get(r, "runs"), 0), "power"), "cluster");
    cr_assert(json_is_object(rc), "the rebuilt runs[0].power.cluster: %s",
              json_string_value(json_object_get(r, "power_cluster_note")));
    cr_assert_eq(json_integer_value(json_object_get(rc, "nodes")), nodes);
    cr_assert_eq(json_integer_value(json_object_get(rc, "gpus")), nodes * ranks);
    double rsw = json_number_value(json_object_get(rc, "swing_w")), rmean = json_number_value(json_object_get(rc, "mean_w"));
    json_int_t lw = json_integer_value(json_object_get(c, "whole_cells")), rw = json_integer_value(json_object_get(rc, "whole_cells"));
    cr_log_info("%d x %d: %lld of %lld cells whole live, %lld rebuilt", nodes, ranks, (long long)lw,
                (long long)json_integer_value(json_object_get(c, "cells")), (long long)rw);
    /* node 0's own last cell is in the sum before the figures are taken (results_cluster_flush), as in the file */
    cr_assert(llabs((long long)(rw - lw)) <= 1, "rebuilt: %lld whole cells, live %lld", (long long)rw, (long long)lw);
    cr_assert(fabs(rsw - sw) <= 0.01 * sw + 1 && fabs(rmean - mean) <= 0.005 * mean, "rebuilt swing %g W, mean %g W; the "
              "run's own %g W, %g W (the same rows in the same order: only their rounding in the file differs)", rsw, rmean,
              sw, mean);
    cr_assert(strstr(json_string_value(json_object_get(rc, "rebuilt")), "warm-up"), "the stretch is said");
    cr_assert(json_is_null(json_object_get(rc, "projected")), "no projection is guessed");
    cr_assert(json_number_value(json_object_get(json_object_get(rc, "error"), "clock_uncertainty_s")) >= 0);
    json_decref(r);
}

/* nodes x ranks against 1 x (nodes * ranks): the same bits, and node 0's folder holds every node (fwd: the forward
 * line of the scenario, "" for the default). */
static void exact_as(int nodes, int ranks, const char *fwd)
{
    e2e_need_mpi();
    char *log;
    const char *one = e2e_outdir();
    cr_assert_eq(run(0, 1, nodes * ranks, "", one, &log), 0, "%s", log);
    free(log);
    json_t *ref = e2e_summary(one);
    const char *out = e2e_outdir();
    cr_assert_eq(run(nodes, nodes, ranks, fwd, out, &log), 0, "%s", log);
    for (int k = 1; k < nodes; k++) {   /* the tasks share stdout: each line names its node, the last its exit code */
        char want[64];
        snprintf(want, sizeof want, "gauntlet[node %d/%d]: node %d of %d: exit 0", k, nodes, k, nodes);
        cr_assert(strstr(log, want), "no '%s' in\n%s", want, log);
    }
    for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        if (strncmp(l, "gauntlet", 8) == 0)
            cr_assert(strncmp(l, "gauntlet[node ", 14) == 0 || strncmp(l, "gauntlet[supervisor node ", 25) == 0,
                      "a line that names no node: %.80s", l);
    json_t *s = e2e_summary(out);
    cr_assert_str_eq(fingerprint(s), fingerprint(ref), "the cross-node sum is the serial sum in global rank order");
    cr_assert_eq(json_integer_value(json_object_get(s, "ranks_total")), nodes * ranks);
    json_t *ns = json_object_get(s, "nodes");
    cr_assert_eq(json_array_size(ns), (size_t)nodes);
    for (int k = 0; k < nodes; k++) {
        json_t *n = json_array_get(ns, (size_t)k);
        cr_assert_eq(json_integer_value(json_object_get(n, "node")), k);
        cr_assert_str_eq(fingerprint(n), fingerprint(ref), "node %d ends in the same state", k);
        cr_assert_lt(json_number_value(json_object_get(n, "clock_uncertainty_s")), 0.01, "one machine: a tight clock");
    }
    cr_assert_eq(e2e_count_events(out, "start"), nodes);
    if (!*fwd) {
        forwarded_as_nodes(out, s, nodes, ranks);
        json_decref(s);
        json_decref(ref);
        free(log);
        return;
    }
    /* forward: ranks: events from every node, with global ranks; power rows of every global rank, with their node */
    cr_assert_eq(e2e_count_events(out, "iteration"), 30 * nodes * ranks);
    char path[600];
    snprintf(path, sizeof path, "%s/power.csv", out);
    char *csv = e2e_read(path);
    int per_rank[16] = { 0 };
    for (char *l = strchr(csv, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        int rank = -1, node = -1;
        const char *col = l, *nl = strchr(l, '\n');
        cr_assert_eq(sscanf(l, "%*f,%d,", &rank), 1, "%.60s", l);
        for (int k = 0; k < 9 && col && col < nl; k++)   /* node is the 10th column (true_w follows it) */
            col = strchr(col, ',') + 1;
        node = atoi(col);
        cr_assert(rank >= 0 && rank < nodes * ranks, "%.60s", l);
        cr_assert_eq(node, rank / ranks, "rank %d is on node %d: %.60s", rank, rank / ranks, l);
        per_rank[rank]++;
    }
    for (int r = 0; r < nodes * ranks; r++)
        cr_assert_gt(per_rank[r], 10, "rank %d's power rows reached node 0", r);
    free(csv);
    json_decref(s);
    json_decref(ref);
    free(log);
}

static void exact(int nodes, int ranks) { exact_as(nodes, ranks, ""); }

Test(cluster, forward_ranks_brings_every_line_of_every_rank_to_node_0, .timeout = 240) { exact_as(2, 2, "forward: ranks\n"); }
Test(cluster, two_nodes_reduce_exactly_as_one, .timeout = 240) { exact(2, 2); }
Test(cluster, three_nodes_reduce_exactly_as_one, .timeout = 240) { exact(3, 2); }

/* The node crash's record goes out before any sibling dies: the supervisor drains every ring before it judges a
 * death, so each death finds the fault it died of. Killed first, a sibling whose injector was descheduled before
 * its report was a crash nobody injected, and the fault only joined the recovery that started (seen under load,
 * 2026-11-27: "joined the recovery under way"). The order, in the plugin itself: report, kill, die. */
static int order_fd = -1;
static void order_done(void *ctx, const char *what)
{
    (void)ctx, (void)what;
    cr_assert_eq(write(order_fd, "d", 1), 1);
}
static int order_kill(void *ctx)
{
    (void)ctx;
    cr_assert_eq(write(order_fd, "k", 1), 1);
    return 1;
}

Test(cluster, a_node_crash_reports_itself_before_it_kills)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    const struct fault_ops *nc = NULL;
    for (int k = 0; fault_table[k]; k++)
        if (strcmp(fault_table[k]->name, "node-crash") == 0)
            nc = fault_table[k];
    cr_assert(nc);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        order_fd = fds[1];
        struct fault_env env = { .ctx = NULL, .backend = "test", .done = order_done, .kill_node = order_kill };
        struct node_crash_params p = { .node = 1 };
        char what[128];
        nc->inject(&env, &p, 0, what, sizeof what, NULL);
        _exit(0);   /* not reached: it kills itself */
    }
    close(fds[1]);
    char seq[8] = "";
    ssize_t n = 0, r;
    while ((r = read(fds[0], seq + n, sizeof seq - 1 - (size_t)n)) > 0)
        n += r;
    close(fds[0]);
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);
    cr_expect_str_eq(seq, "dk", "the record (d) before the kills (k)");
}

Test(cluster, a_node_crash_is_detected_there_and_ends_the_run_everywhere, .timeout = 120)
{
    e2e_need_mpi();
    char *log;
    const char *out = e2e_outdir();
    int rc = run(2, 2, 2, "faults:\n  - {kind: node-crash, at: 15, node: 1}\n", out, &log);
    cr_assert_eq(rc, 1, "%s", log);
    cr_assert(strstr(log, "gauntlet[node 1/2]: node 1 of 2: exit 1: "), "node 1's last line names its exit code\n%s", log);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "node 1: rank ") && strstr(why, ": exit: process died"), "%s", why);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "kind")), "node-crash");
    cr_assert_eq(json_integer_value(json_object_get(f, "node")), 1);
    cr_assert_eq(json_integer_value(json_object_get(f, "rank")), 2);
    cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "exit");
    cr_assert_eq(e2e_count_events(out, "worker_died"), 2, "both workers of node 1");
    cr_assert_eq(e2e_count_events(out, "end"), 2, "each node's supervisor lived to write its end");
    json_decref(s);
    free(log);
}

Test(cluster, a_nodes_mismatch_is_exit_2_naming_both, .timeout = 120)
{
    e2e_need_mpi();
    char *log;
    cr_assert_eq(run(2, 3, 2, "", e2e_outdir(), &log), 2, "%s", log);
    cr_assert(strstr(log, ":2: nodes: 3, but the launcher started 2 supervisors"), "%s", log);
    free(log);
    cr_assert_eq(run(0, 2, 2, "", e2e_outdir(), &log), 2, "no launcher: one node, not two\n%s", log);
    cr_assert(strstr(log, ":2: nodes: 2, but gauntlet was started without mpirun or srun"), "%s", log);
    free(log);
}

/* Node 0 cannot create the results folder (under /proc) while the others could go on: every node stops at
 * once with exit 3, none waits in a collective for node 0 (timeout's 124 would say one did). */
Test(cluster, a_set_up_failure_on_node_0_stops_every_node, .timeout = 120)
{
    e2e_need_mpi();
    char text[1024], cmd[2048], path[600];
    /* forward: ranks: node 1 writes nothing of its own there, so only node 0 fails (with forward: nodes node 1
     * keeps its own files in the folder and fails for its own reason too) */
    snprintf(text, sizeof text, base, 2, 2, "power: {sample_hz: 100}\n", "forward: ranks\n");
    const char *sc = e2e_scenario(text), *logdir = e2e_outdir();
    snprintf(path, sizeof path, "%s.log", logdir);
    snprintf(cmd, sizeof cmd, "timeout 60 mpirun --oversubscribe --allow-run-as-root -np 2 %s run %s --out "
                              "/proc/gauntlet-cannot --backend sim --headless > %s 2>&1", GAUNTLET_BIN, sc, path);
    int st = system(cmd);
    char *log = e2e_read(path);
    cr_assert_eq(WEXITSTATUS(st), 3, "run: exit 3 on every node, no hang\n%s", log);
    cr_assert(strstr(log, "/proc/gauntlet-cannot"), "node 0 says what it could not do\n%s", log);
    cr_assert(strstr(log, "node 1: another node could not set up the run"), "node 1 says why it stops\n%s", log);
    free(log);
    snprintf(cmd, sizeof cmd, "timeout 60 mpirun --oversubscribe --allow-run-as-root -np 2 %s accept --backend sim "
                              "--out /proc/gauntlet-cannot > %s 2>&1", GAUNTLET_BIN, path);
    st = system(cmd);
    log = e2e_read(path);
    cr_assert_eq(WEXITSTATUS(st), 3, "accept: exit 3 on every node, no hang\n%s", log);
    cr_assert(strstr(log, "accept: cannot create /proc/gauntlet-cannot"), "%s", log);
    free(log);
}

/* Node 1 cannot set up (its power file in an earlier run's folder is now a folder) after node 0 opened the results
 * folder: node 0's record ends with why it holds no run (an end line, exit 3), and summarize and analyze say so (exit 2), never
 * "killed before it began". Until 2026-11-29 the folder held a header and an empty events.jsonl, and said nothing. */
Test(cluster, a_set_up_that_failed_elsewhere_is_said_in_node_0s_record, .timeout = 120)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    char path[700], *log;
    cr_assert_eq(run(2, 2, 2, "forward: nodes\n", out, &log), 0, "an earlier run in the folder\n%s", log);
    free(log);
    snprintf(path, sizeof path, "%s/power-node1.csv", out);   /* a folder where node 1 writes its file */
    cr_assert(unlink(path) == 0 && mkdir(path, 0755) == 0, "%s: %s", path, strerror(errno));
    cr_assert_eq(run(2, 2, 2, "forward: nodes\n", out, &log), 3, "exit 3 on every node\n%s", log);
    cr_assert(strstr(log, "power-node1.csv"), "node 1 says what it could not write\n%s", log);
    free(log);
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *events = e2e_read(path);
    cr_assert(events && strstr(events, "\"event\":\"end\"") && strstr(events, "\"exit\":3") &&
              strstr(events, "its set-up failed: another node could not set up the run"), "%s", events);
    free(events);
    snprintf(path, sizeof path, "%s.summarize.log", out);
    cr_assert_eq(e2e_run(path, (const char *[]){ "summarize", out, NULL }), 2);
    log = e2e_read(path);
    cr_assert(strstr(log, "events.jsonl: the run never began: its set-up failed: another node could not set up"),
              "%s", log);
    free(log);
    cr_assert_eq(e2e_run(path, (const char *[]){ "analyze", out, NULL }), 2);   /* analyze says it too */
    log = e2e_read(path);
    cr_assert(strstr(log, "events.jsonl: the run never began: its set-up failed: another node could not set up"),
              "%s", log);
    free(log);
}

Test(cluster, accept_judges_every_gpu_of_every_node_as_one_fleet, .timeout = 180)
{
    e2e_need_mpi();
    const char *sdir = e2e_outdir();   /* a fresh folder for the suite */
    char cmd[1024], path[600];
    cr_assert(mkdir(sdir, 0755) == 0 || errno == EEXIST, "%s: %s", sdir, strerror(errno));
    snprintf(path, sizeof path, "%s/L1-fleet.yaml", sdir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("name: fleet\nnodes: 2\nranks: 2\niterations: 40\nseed: 9\n"
          "workload: {gemm: {m: 256, n: 256, k: 256, count: 4}, allreduce: {bytes: 4MiB}}\n"
          "power: {sample_hz: 200}\nsim: {tflops: 0.005}\n"
          "faults:\n  - {kind: straggler, at: 0, rank: 3, factor: 1.5, duration: 1h}\n"
          "detectors: [fingerprint]\n"
          /* a GPU a third slower than its peers, judged against a 15 % margin: what a loaded machine does to a
           * healthy sim rank's rate stays under it (CI under ASan, 2026-11-27, named another GPU at 3 %) */
          "checks:\n  gemm_tflops:\n  outliers: {min_rel: 0.15}\n  sdc_screen:\n"
          "  checkpoint_io: {min_write_gbs: 0.001, min_read_gbs: 0.001, bytes: 8MiB}\n",
          f);
    fclose(f);
    const char *out = e2e_outdir();
    snprintf(cmd, sizeof cmd, "timeout 150 mpirun --oversubscribe --allow-run-as-root -np 2 %s accept --backend sim "
                              "--scenarios %s --out %s > %s.log 2>&1", GAUNTLET_BIN, sdir, out, out);
    int st = system(cmd);
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    cr_assert_eq(WEXITSTATUS(st), 1, "the slow GPU fails the suite\n%s", log);
    snprintf(path, sizeof path, "%s/verdicts.json", out);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err), *v;
    cr_assert(j, "%s: %s\n%s", path, err.text, log);
    int outliers = 0, gpus = 0, writes[2] = { 0 }, node_outliers = 0;
    size_t i;
    json_array_foreach(json_object_get(j, "verdicts"), i, v) {
        const char *check = json_string_value(json_object_get(v, "check"));
        const char *status = json_string_value(json_object_get(v, "status"));
        const char *subject = json_string_value(json_object_get(v, "subject"));
        if (!strcmp(check, "gemm_tflops"))
            gpus++;
        if (!strcmp(check, "outliers")) {
            outliers++;
            /* its index on its node, its rank beside it (until 2026-11-30 the subject named the global rank) */
            cr_assert_str_eq(subject, "node 1 gpu 1", "only node 1's slow GPU is named");
            cr_assert_eq(json_integer_value(json_object_get(v, "rank")), 3);
            cr_assert_eq(json_integer_value(json_object_get(v, "gpu")), 1);
            cr_assert_str_eq(status, "FAIL");
        }
        if (!strcmp(check, "sdc_screen"))
            cr_assert_str_eq(status, "PASS", "%s", subject);
        if (!strcmp(check, "node_outliers")) {   /* two nodes: nothing to compare, said */
            node_outliers++;
            cr_assert_str_eq(status, "SKIP", "%s", json_string_value(json_object_get(v, "note")));
        }
        if (!strcmp(check, "checkpoint_write")) {   /* each node measured its own target */
            int node = (int)json_integer_value(json_object_get(v, "node"));
            cr_assert(node == 0 || node == 1);
            writes[node]++;
            cr_assert_str_eq(status, "PASS", "%s", json_string_value(json_object_get(v, "note")));
        }
    }
    cr_assert_eq(gpus, 4, "a verdict for each GPU of both nodes");
    cr_assert_eq(outliers, 1);
    cr_assert_eq(node_outliers, 1, "node_outliers is said on two nodes too (SKIP)");
    cr_assert(writes[0] == 1 && writes[1] == 1, "a checkpoint_write verdict per node");
    json_decref(j);
    free(log);
}

/* Restart across nodes: every node stops, they agree on the newest checkpoint all hold, every node restarts
 * from it — and the run ends in the bitwise state of a run without the failure. */
static void restart_after(int nodes, const char *fault, int fault_node, int lost_lo, int lost_hi, int lost_alt)
{
    e2e_need_mpi();
    char *log, extra[256];
    const char *clean = e2e_outdir();
    cr_assert_eq(run(nodes, nodes, 2, "", clean, &log), 0, "%s", log);
    free(log);
    json_t *ref = e2e_summary(clean);
    const char *out = e2e_outdir();
    /* the straggler check made deaf to what a loaded machine does to 13 ms sim phases (under ASan beside other
     * tests, a rank's phases oversleep): this test is about the crash */
    snprintf(extra, sizeof extra,
             "recovery: restart\ndetectors: [{heartbeat: {factor: 4, min_excess: 300ms}}]\nfaults:\n  - %s\n", fault);
    cr_assert_eq(run(nodes, nodes, 2, extra, out, &log), 0, "recovered: exit 0\n%s", log);
    json_t *s = e2e_summary(out);
    json_t *f = NULL, *g;
    size_t k;
    json_array_foreach(json_object_get(s, "faults"), k, g)   /* the scheduled fault, whatever else was recorded */
        if (!f && json_is_integer(json_object_get(g, "fault_spec")))
            f = g;
    cr_assert(f, "no record of the scheduled fault:\n%s", log);
    cr_assert_eq(json_integer_value(json_object_get(f, "node")), fault_node);
    cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "exit", "%s",
                     json_dumps(json_object_get(s, "faults"), JSON_COMPACT));
    /* the rank that saw it (a node's crash: whichever of its ranks' deaths came first) by the cluster's number: one
     * of the fault's node, not its node's own number (2 ranks a node) */
    json_int_t dr = json_integer_value(json_object_get(json_object_get(f, "detection"), "rank"));
    cr_assert(dr / 2 == fault_node, "%s", json_dumps(f, JSON_COMPACT));
    cr_assert(json_is_number(json_object_get(f, "recover_s")), "the fault has a time to recover");
    json_int_t lost = json_integer_value(json_object_get(f, "iterations_lost"));
    cr_assert((lost >= lost_lo && lost <= lost_hi) || lost == lost_alt, "iterations lost %lld, expected %d..%d%s",
              (long long)lost, lost_lo, lost_hi, lost_alt >= 0 ? " or the checkpoint before" : "");
    cr_assert_eq(e2e_count_events(out, "recovery_end"), nodes, "every node restarted");
    cr_assert_eq(e2e_count_events(out, "recovered"), 1);
    cr_assert_str_eq(fingerprint(s), fingerprint(ref), "the same state as without the failure");
    json_t *n;
    size_t i;
    json_array_foreach(json_object_get(s, "nodes"), i, n)
        cr_assert_str_eq(fingerprint(n), fingerprint(ref), "node %zu", i);
    json_decref(s);
    json_decref(ref);
    free(log);
}

/* node 1 crashes at 15: back to checkpoint 10 from iteration 14 or 15 (whichever rank's death is seen first) */
Test(cluster, a_node_crash_is_recovered_by_restarting_every_node, .timeout = 240)
{
    restart_after(2, "{kind: node-crash, at: 15, node: 1}", 1, 4, 5, -1);
}
Test(cluster, a_crash_of_the_last_of_three_nodes_is_recovered, .timeout = 240)
{
    restart_after(3, "{kind: node-crash, at: 15, node: 2}", 2, 4, 5, -1);
}
/* node 0 asks itself; the crash lands on a checkpoint (20): nothing lost, and the other node's proxy meets
 * node 0's first new collective while it still waits for the abandoned one. A rank the restart stopped before its
 * checkpoint 20 was on storage (its process descheduled after the all-reduce: once under load, 2026-11-30) leaves
 * 10 the newest every rank holds: 10 lost, as the product should */
Test(cluster, a_crash_on_node_0_at_a_checkpoint_is_recovered, .timeout = 240)
{
    restart_after(2, "{kind: crash, at: 20, rank: 1}", 0, 0, 0, 10);
}

/* The other strategies across nodes. inprocess and spare replace what died and take the state from a replica
 * in the failed node's own memory (a replica outlives its process), so the run ends in the fault-free state;
 * shrink drops what died (a whole node leaves the chain) and the rest go on. */
static json_t *strategy_in(const char *recovery, const char *fault, int *rc, const char *out)
{
    char *log, extra[512];
    snprintf(extra, sizeof extra, "recovery: {%s: {replicate_every: 5}}\nfaults:\n  - %s\n", recovery, fault);
    *rc = run(2, 2, 2, extra, out, &log);
    cr_assert_eq(*rc, 0, "%s, %s: exit %d\n%s", recovery, fault, *rc, log);
    free(log);
    json_t *s = e2e_summary(out);
    int ends = e2e_count_events(out, "recovery_end"), begins = e2e_count_events(out, "recovery_begin");
    cr_assert_eq(ends, 2, "both nodes took part, in one recovery: %d recovery_begin, %d recovery_end", begins, ends);
    return s;
}

static json_t *strategy(const char *recovery, const char *fault, int *rc)
{
    return strategy_in(recovery, fault, rc, e2e_outdir());
}


/* The summary of a fault-free run of 2 x 2 ranks (the caller decrefs it). */
static json_t *clean_run(void)
{
    char *log;
    const char *clean = e2e_outdir();
    cr_assert_eq(run(2, 2, 2, "", clean, &log), 0, "%s", log);
    free(log);
    return e2e_summary(clean);
}

static void same_as_clean(json_t *s)
{
    json_t *ref = clean_run();
    cr_assert_str_eq(fingerprint(s), fingerprint(ref), "the same state as without the failure");
    json_decref(ref);
}

/* Both strategies against the one fault-free run (the sim is deterministic: until 2026-11-30 it ran once for each). */
Test(cluster, inprocess_and_spare_replace_a_crashed_node_from_its_replicas, .timeout = 300)
{
    e2e_need_mpi();
    const char *kinds[] = { "inprocess", "spare" };
    json_t *ref = clean_run();
    for (int i = 0; i < 2; i++) {
        int rc;
        json_t *s = strategy(kinds[i], "{kind: node-crash, at: 15, node: 1}", &rc);
        json_t *f = e2e_injected_fault(s, 0);
        cr_assert(strstr(json_string_value(json_object_get(f, "outcome")), "across nodes from iteration"), "%s",
                  json_string_value(json_object_get(f, "outcome")));
        cr_assert(json_is_number(json_object_get(f, "recover_s")));
        cr_assert_str_eq(fingerprint(s), fingerprint(ref), "%s: the same state as without the failure", kinds[i]);
        json_decref(s);
    }
    json_decref(ref);
}

Test(cluster, shrink_drops_a_rank_or_a_whole_node_and_goes_on, .timeout = 300)
{
    e2e_need_mpi();
    int rc;
    json_t *s = strategy("shrink", "{kind: crash, at: 15, rank: 3}", &rc);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert(strstr(json_string_value(json_object_get(f, "outcome")), "shrunk to 3 ranks"), "%s",
              json_string_value(json_object_get(f, "outcome")));
    json_decref(s);
    const char *out = e2e_outdir();
    s = strategy_in("shrink", "{kind: node-crash, at: 15, node: 1}", &rc, out);
    f = e2e_injected_fault(s, 0);
    cr_assert(strstr(json_string_value(json_object_get(f, "outcome")), "shrunk to 2 ranks"), "%s",
              json_string_value(json_object_get(f, "outcome")));
    cr_assert(json_is_number(json_object_get(f, "recover_s")), "the node that left records when the others went on");
    json_t *n0 = json_array_get(json_object_get(s, "nodes"), 0);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(n0, "runs"), 0), "iterations")), 30,
                 "node 0 finished the run alone");
    /* the node shrink left without a rank is out of the cluster's sum from then on, live and when summarize sums
     * again from the record (node_left), alike: the same cells whole, the same figures */
    cr_assert_eq(e2e_count_events(out, "node_left"), 1, "node 0 says when node 1 left the sum");
    json_t *r = rebuilt(out);
    json_t *lc = json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "power"), "cluster"),
           *rc2 = json_object_get(json_object_get(json_array_get(json_object_get(r, "runs"), 0), "power"), "cluster");
    cr_assert(json_is_object(lc) && json_is_object(rc2), "runs[0].power.cluster live and rebuilt");
    double lw = (double)json_integer_value(json_object_get(lc, "whole_cells")),
           rw = (double)json_integer_value(json_object_get(rc2, "whole_cells")),
           cells = (double)json_integer_value(json_object_get(lc, "cells"));
    cr_log_info("node 1 left: %g of %g cells whole live, %g rebuilt", lw, cells, rw);
    cr_assert(lw > 0.9 * cells, "live: %g of %g cells whole (the cells after node 1 left are whole without it)", lw, cells);
    /* the rebuild lets node 1 go at the row where node 0 let it go (node_left's nodes_csv_at); on a loaded machine
     * (CI, 2026-11-28) the two still differed once by 2 of about 35 cells (33 live, 35 rebuilt, before the leave
     * went by row): a few cells at an edge, where the figures then differ by their share */
    cr_assert(fabs(rw - lw) <= 0.02 * cells + 3, "rebuilt: %g whole cells, live %g", rw, lw);
    double ls = json_number_value(json_object_get(lc, "swing_w")), rs = json_number_value(json_object_get(rc2, "swing_w")),
           lm = json_number_value(json_object_get(lc, "mean_w")), rm = json_number_value(json_object_get(rc2, "mean_w"));
    double tol = rw == lw ? 0.01 : 0.05;
    cr_assert(fabs(rs - ls) <= tol * ls + 1 && fabs(rm - lm) <= tol * lm, "rebuilt swing %g W, mean %g W; live %g W, %g W",
              rs, rm, ls, lm);
    json_decref(r);
    json_decref(s);
    /* both of node 1's ranks crashed at once: the one that joined the other's recovery takes its figures of work,
     * as docs/results.md says (until 2026-12-01 a node shrink left without a rank gave it null iterations_lost) */
    s = strategy("shrink", "{kind: crash, at: 15, rank: 2}\n  - {kind: crash, at: 15, rank: 3}", &rc);
    json_t *a = e2e_injected_fault(s, 0), *b = e2e_injected_fault(s, 1);
    cr_assert(a && b, "two faults");
    for (json_t *const *g = (json_t *const[]){ a, b, NULL }; *g; g++)
        cr_assert(json_is_integer(json_object_get(*g, "iterations_lost")), "fault %s: iterations_lost %s (%s)",
                  json_dumps(json_object_get(*g, "id"), JSON_ENCODE_ANY),
                  json_dumps(json_object_get(*g, "iterations_lost"), JSON_ENCODE_ANY),
                  json_string_value(json_object_get(*g, "outcome")));
    cr_assert_eq(json_integer_value(json_object_get(a, "iterations_lost")),
                 json_integer_value(json_object_get(b, "iterations_lost")));
    json_decref(s);
}

/* forward: ranks: node 0 gets a bounded rate of power rows; a node whose rows were thinned keeps them all in its own
 * file. */
Test(cluster, power_rows_to_node_0_are_bounded_and_kept_whole_on_their_node, .timeout = 240)
{
    e2e_need_mpi();
    char *log, path[600];
    const char *out = e2e_outdir();
    cr_assert_eq(run(2, 2, 2, "forward: ranks\npower: {sample_hz: 400, forward_hz: 50}\n", out, &log), 0, "%s", log);
    free(log);
    /* held under load by design: what a busy machine's sampler achieves is not judged, only what was forwarded of
     * what it took: node 1's rank 2 rows reach node 0 at most 50 a second of the span they cover, each one a row
     * node 1 kept */
    snprintf(path, sizeof path, "%s/power-node1.csv", out);
    char *kept = e2e_read(path);
    cr_assert(kept, "%s missing", path);
    snprintf(path, sizeof path, "%s/power.csv", out);
    char *csv = e2e_read(path);
    int rows[2][4] = { { 0 } };
    double t0 = INFINITY, t1 = -INFINITY;
    for (int f = 0; f < 2; f++)
        for (char *l = strchr(f ? kept : csv, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
            int rank = -1;
            double t;
            cr_assert_eq(sscanf(l, "%lf,%d,", &t, &rank), 2);
            cr_assert(rank >= 0 && rank < 4);
            rows[f][rank]++;
            if (!f && rank == 2) {
                t0 = fmin(t0, t), t1 = fmax(t1, t);
                char row[64];
                snprintf(row, sizeof row, "\n%.*s", (int)(strchr(l, ',') - l), l);   /* its time, as node 1 wrote it */
                cr_assert(strstr(kept, row), "a forwarded row node 1 did not keep: %.60s", l);
            }
        }
    cr_assert_eq(rows[1][0] + rows[1][1], 0, "node 1's file holds node 1's GPUs");
    cr_assert_gt(rows[1][2], 20);
    cr_assert_gt(rows[0][2], 5, "node 1's rows reached node 0");
    cr_assert(rows[0][2] <= (t1 - t0) * 50 * 1.02 + 2, "at most 50 Hz forwarded: %d rows over %.2f s", rows[0][2], t1 - t0);
    cr_assert_gt(rows[1][2], rows[0][2], "node 1 kept more than it forwarded: %d vs %d", rows[1][2], rows[0][2]);
    free(kept);
    free(csv);
}

/* Returns the pid of node's supervisor: the parent of a worker of that node (events.jsonl's worker_start). */
static pid_t node_supervisor(const char *out, int node)
{
    char path[600], line[2048], want[48];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    snprintf(want, sizeof want, "\"node\":%d", node);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    pid_t sup = 0;
    while (!sup && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "\"pid\":");
        if (!strstr(line, "\"worker_start\"") || !strstr(line, want) || !p)
            continue;
        char stat[64], buf[512];
        snprintf(stat, sizeof stat, "/proc/%ld/stat", strtol(p + 6, NULL, 10));
        FILE *st = fopen(stat, "r");
        if (st && fgets(buf, sizeof buf, st)) {
            const char *rp = strrchr(buf, ')');   /* pid (comm) state ppid ... */
            char state;
            int ppid;
            if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2)
                sup = ppid;
        }
        if (st)
            fclose(st);
    }
    fclose(f);
    return sup;
}

/* Waits up to limit_ns from t0 for the launcher to end; returns its pid (0: still running) and its status in st. */
static pid_t wait_launcher(pid_t launcher, uint64_t t0, uint64_t limit_ns, int *st)
{
    pid_t w;
    while ((w = waitpid(launcher, st, WNOHANG)) == 0 && mono_ns() - t0 < limit_ns)
        sleep_ns(20000000);
    return w;
}

/* No worker of the run in out is left running (each given 5 s to go). */
static void expect_no_worker_left(const char *out, int expect)
{
    pid_t wp[8];
    int nw = e2e_worker_pids(out, wp, 8);
    if (expect)
        cr_assert_eq(nw, expect, "both nodes' workers");
    for (int i = 0; i < nw; i++) {
        uint64_t t = mono_ns();
        while (!e2e_gone(wp[i]) && mono_ns() - t < 5000000000ull)
            sleep_ns(50000000);
        cr_assert(e2e_gone(wp[i]), "worker %d is still running", (int)wp[i]);
    }
}

/* Starts `text` on np nodes under mpirun in the background, waits for its run to be under way (10 iteration lines on
 * node 0: every node has begun it, so node 1's worker_start is there) and returns the launcher's pid; *sup1: node 1's
 * supervisor. */
static pid_t launch_n(int np, const char *text, const char *out, pid_t *sup1)
{
    char path[600], cmd[4096];
    const char *sc = e2e_scenario(text);
    snprintf(path, sizeof path, "%s.log", out);
    snprintf(cmd, sizeof cmd, "exec timeout 100 mpirun --oversubscribe --allow-run-as-root -np %d %s run %s --out %s "
                              "--backend sim --headless > %s 2>&1", np, GAUNTLET_BIN, sc, out, path);
    pid_t launcher = fork();
    cr_assert_geq(launcher, 0);
    if (launcher == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    cr_assert_eq(e2e_wait_started(out, 10, 60), 0, "the run did not start");
    *sup1 = node_supervisor(out, 1);
    cr_assert_gt(*sup1, 0, "node 1's supervisor not found");
    return launcher;
}

static pid_t launch_two(const char *text, const char *out, pid_t *sup1) { return launch_n(2, text, out, sup1); }

/* A stalled node: node 1's supervisor stopped (SIGSTOP) mid-run. Node 0 hears nothing from it for the heartbeat
 * timeout and ends the run, saying which node and why: its node_silent event, silent past the 2 s timeout and soon
 * after it; nothing is left running. Until 2026-11-30 judged by the wall clock from the stop to the launcher's end
 * (under 8.1 s), which adds node 0's stop and summary and mpirun's teardown of a stopped process beside other work. */
Test(cluster, a_stalled_node_is_noticed_within_the_heartbeat_timeout, .timeout = 120)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    char path[600];
    static const char text[] = "name: stall\nnodes: 2\nranks: 2\niterations: 9000\nseed: 7\n"   /* minutes */
                               "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                               "sim: {tflops: 0.005}\npower: {sample_hz: 100}\n"
                               "heartbeat: {interval: 100ms, timeout: 2s}\n";
    pid_t sup1, launcher = launch_two(text, out, &sup1);
    snprintf(path, sizeof path, "%s.log", out);
    uint64_t t0 = mono_ns();
    cr_assert_eq(kill(sup1, SIGSTOP), 0);
    int st = 0;
    pid_t w = wait_launcher(launcher, t0, 30000000000ull, &st);
    double took = (double)(mono_ns() - t0) * 1e-9;
    kill(sup1, SIGCONT);
    if (w == 0) {
        kill(sup1, SIGKILL);
        waitpid(launcher, &st, 0);
    }
    char *log = e2e_read(path);
    cr_assert_neq(w, 0, "node 0 did not notice the stalled node in 30 s:\n%s", log);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d:\n%s", WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
    cr_log_info("the launcher ended %.1f s after the stop", took);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "node 1: no word from its supervisor for"), "stopped: %s", why);
    cr_assert_eq(e2e_count_events(out, "node_silent"), 1);
    json_t *ns = e2e_first_event(out, "node_silent");
    cr_assert(ns);
    double silent = json_number_value(json_object_get(ns, "silent_s"));
    cr_assert_eq(json_integer_value(json_object_get(ns, "node")), 1);
    cr_assert_float_eq(json_number_value(json_object_get(ns, "timeout_s")), 2.0, 1e-9);
    /* node 1's last word came up to a beat (100 ms) before the stop; node 0 looks every 10 ms */
    cr_assert(silent > 2.0 && silent < 2.0 + 1.0, "noticed after %.2f s of silence (timeout 2 s)", silent);
    json_decref(ns);
    expect_no_worker_left(out, 4);   /* nothing left running: the launcher took the stalled node down */
    json_decref(s);
    free(log);
}

/* Stops node 1's supervisor (sup1) for good, waits up to limit_s for node 0's summary and for the launcher to end;
 * returns the summary, *log the run's output. */
static json_t *stall_and_wait(const char *out, pid_t sup1, pid_t launcher, double limit_s, char **log)
{
    char path[600];
    cr_assert_eq(kill(sup1, SIGSTOP), 0);
    snprintf(path, sizeof path, "%s/summary.json", out);
    uint64_t t0 = mono_ns();
    while (access(path, F_OK) != 0 && (double)(mono_ns() - t0) * 1e-9 < limit_s)
        sleep_ns(50000000);
    kill(sup1, SIGKILL);   /* the stalled node never comes back */
    int st;
    waitpid(launcher, &st, 0);
    snprintf(path, sizeof path, "%s.log", out);
    *log = e2e_read(path);
    return e2e_summary(out);
}

/* With shrink, a stalled node is a failure of that node: node 0 goes on without its ranks and ends the run whole. The
 * stop comes a few iterations in (launch_two); node 0's collectives wait for node 1 from then until it is shrunk
 * away, so every iteration after the stop is one node 0 does alone: 200 leave the stop ~190 of slack on a loaded
 * machine (400 until 2026-11-30, the same claim over twice the time). */
Test(cluster, a_stalled_node_is_shrunk_away_and_the_run_goes_on, .timeout = 150)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    static const char text[] = "name: stall-shrink\nnodes: 2\nranks: 2\niterations: 200\nseed: 7\n"
                               "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                               "sim: {tflops: 0.005}\npower: {sample_hz: 100}\n"
                               "heartbeat: {interval: 100ms, timeout: 2s}\nrecovery: {shrink: {replicate_every: 5}}\n";
    pid_t sup1, launcher = launch_two(text, out, &sup1);
    char *log;
    json_t *s = stall_and_wait(out, sup1, launcher, 60, &log);
    cr_assert(s, "node 0 wrote no summary:\n%s", log);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 0, "exit %lld, stopped: %s\n%s",
                 (long long)json_integer_value(json_object_get(s, "exit")),
                 json_string_value(json_object_get(s, "stopped")), log);
    json_t *lost = json_object_get(s, "nodes_lost");
    cr_assert(json_array_size(lost) == 1 && json_integer_value(json_array_get(lost, 0)) == 1, "nodes_lost");
    cr_assert_eq(e2e_count_events(out, "node_lost"), 1);
    json_t *run0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(run0, "complete")), "node 0 finished the run without node 1");
    cr_assert_eq(json_integer_value(json_object_get(run0, "iterations")), 200);
    json_decref(s);
    free(log);
}

/* The second scenario of the suites below: tiny, named `second`. */
static void write_second(const char *sdir)
{
    e2e_put(sdir, "L1-b.yaml", "name: second\nnodes: 2\nranks: 1\niterations: 5\n"
                   "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n");
}

/* A suite of two nodes: the scenarios in sdir, results in out, mpirun's own output in out.log; node 1 with the
 * environment node1_env (a stop point of tests/stall_preload.c, which it then loads; NULL: as node 0); sigkill_s:
 * Open MPI's SIGKILL that long after its SIGTERM (0: its default, 1 s). Waits for the run of the first scenario,
 * out/run_name (into run), to start; returns the launcher's pid. */
static pid_t suite_start(const char *sdir, const char *out, const char *node1_env, int sigkill_s, const char *run_name,
                         char *run, size_t n)
{
    const char *asan = getenv("ASAN_OPTIONS");
    char cmd[4096], args[1100], mca[64] = "", node1[1600];
    cr_assert(!strchr(asan ? asan : "", '\''));
    snprintf(args, sizeof args, "accept --backend sim --scenarios %s --out %s", sdir, out);
    if (sigkill_s > 0)
        snprintf(mca, sizeof mca, "--mca odls_base_sigkill_timeout %d ", sigkill_s);
    if (node1_env)
        snprintf(node1, sizeof node1, "-np 1 %s %s : -np 1 env %s LD_PRELOAD=%s ASAN_OPTIONS='%s%sverify_asan_link_order=0' "
                 "%s %s", GAUNTLET_BIN, args, node1_env, STALL_PRELOAD, asan ? asan : "", asan && *asan ? ":" : "",
                 GAUNTLET_BIN, args);
    else
        snprintf(node1, sizeof node1, "-np 2 %s %s", GAUNTLET_BIN, args);
    snprintf(cmd, sizeof cmd, "exec timeout 100 mpirun --oversubscribe --allow-run-as-root %s%s > %s.log 2>&1", mca,
             node1, out);
    pid_t launcher = fork();
    cr_assert_geq(launcher, 0);
    if (launcher == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    snprintf(run, n, "%s/%s", out, run_name);
    cr_assert_eq(e2e_wait_started(run, 10, 60), 0, "the run did not start");
    return launcher;
}

/* Waits up to limit_s for a suite's launcher to end; then SIGKILLs stalled (a node left stopped; 0: none) and the
 * launcher if it has not ended. Its status in *st, out.log in *log; whether it ended by itself. */
static int suite_end(pid_t launcher, double limit_s, pid_t stalled, const char *out, int *st, char **log)
{
    char path[1100];
    pid_t w = wait_launcher(launcher, mono_ns(), (uint64_t)(limit_s * 1e9), st);
    if (stalled > 0)
        kill(stalled, SIGKILL);
    if (w == 0) {
        kill(launcher, SIGKILL);
        waitpid(launcher, st, 0);
    }
    snprintf(path, sizeof path, "%s.log", out);
    *log = e2e_read(path);
    return w != 0;
}

/* out/verdicts.json, which must be there (log: what the suite said, for the failure's message). */
static json_t *suite_verdicts(const char *out, const char *log)
{
    char path[1100];
    json_error_t err;
    snprintf(path, sizeof path, "%s/verdicts.json", out);
    json_t *j = json_load_file(path, 0, &err);
    cr_assert(j, "no verdicts: %s: %s\n%s", path, err.text, log);
    return j;
}

/* --drain drains the node it runs on: under a launcher it is bad input, exit 2 on every node before anything runs
 * (docs/acceptance.md, "Level 0") — no scenario run, no verdicts.json, no results folder. */
Test(cluster, accept_drain_under_a_launcher_is_exit_2_before_anything_runs, .timeout = 60)
{
    e2e_need_mpi();
    const char *sdir = e2e_outdir(), *out = e2e_outdir();
    char cmd[2048], path[600];
    cr_assert(mkdir(sdir, 0755) == 0 || errno == EEXIST, "%s: %s", sdir, strerror(errno));
    e2e_put(sdir, "L1-x.yaml", "name: x\nranks: 1\niterations: 2\nworkload: {gemm: {m: 64, n: 64, k: 64}, "
                                      "allreduce: {bytes: 1MiB}}\nchecks:\n  gemm_tflops:\n");
    snprintf(cmd, sizeof cmd, "timeout 60 mpirun --oversubscribe --allow-run-as-root -np 2 %s accept --backend sim "
                              "--scenarios %s --out %s --drain > %s.log 2>&1", GAUNTLET_BIN, sdir, out, out);
    int st = system(cmd);
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    cr_assert(log);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit %d\n%s", WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
    cr_assert(strstr(log, "--drain drains the node it runs on"), "%s", log);
    cr_assert_neq(access(out, F_OK), 0, "%s was made: the suite began\n%s", out, log);
    free(log);
}

/* Node 1 cannot read its scenarios (its --scenarios folder is not there; node 0's is): every node stops at once, exit
 * 2, node 1 naming the folder and node 0 saying another node could not start the suite. Until 2026-12-01 node 0 went
 * on to gather the GPU counts, a collective node 1 (gone to its agreement) never joined: it waited the set-up wait,
 * 130 s, then ended the job with exit 3 and `not every node reached set-up step 'the GPU counts'`. */
Test(cluster, accept_with_a_node_that_cannot_read_its_scenarios_stops_every_node_at_once, .timeout = 120)
{
    e2e_need_mpi();
    const char *sdir = e2e_tmpdir(), *out = e2e_outdir();
    char cmd[4096], path[600];
    e2e_put(sdir, "L1-a.yaml", "name: x\nnodes: 2\nranks: 1\niterations: 2\n"
                               "workload: {gemm: {m: 64, n: 64, k: 64}, allreduce: {bytes: 64KiB}}\n");
    snprintf(cmd, sizeof cmd, "timeout 100 mpirun --oversubscribe --allow-run-as-root -np 1 %s accept --backend sim "
                              "--scenarios %s --out %s : -np 1 %s accept --backend sim --scenarios %s/not-there --out %s "
                              "> %s.log 2>&1", GAUNTLET_BIN, sdir, out, GAUNTLET_BIN, sdir, out, out);
    uint64_t t0 = mono_ns();
    int st = system(cmd);
    double took = (double)(mono_ns() - t0) * 1e-9;
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    cr_assert(log);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit %d after %.1f s\n%s", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
              took, log);
    cr_assert(strstr(log, "not-there"), "node 1 names its folder:\n%s", log);
    cr_assert(strstr(log, "another node could not start the suite (exit 2): see its messages"), "%s", log);
    cr_assert_null(strstr(log, "the GPU counts"), "%s", log);
    cr_assert_lt(took, 60, "ended after %.1f s: not at once (the set-up wait is 130 s)", took);
    free(log);
}

/* `gauntlet accept` on two nodes, node 1's supervisor (its accept process) stopped mid-run under shrink: node 0
 * shrinks it away and ends the run whole (nodes_lost [1]), then the suite ends on its own, judged (docs/acceptance.md,
 * docs/cluster.md): its verdicts.json has node 1's observed_fault FAIL (unit nodes), the next scenario said as not
 * run (no node waits for the lost one), exit 1. Until 2026-12-01 node 0 waited for node 1 at the agreement after the
 * run, 600 s, then ended the job with exit 3 and no verdicts.json. */
Test(cluster, accept_fails_a_node_lost_under_shrink_as_observed_fault, .timeout = 150)
{
    e2e_need_mpi();
    const char *sdir = e2e_tmpdir(), *out = e2e_outdir();
    char run[1100];
    e2e_put(sdir, "L1-a.yaml", "name: lost\nnodes: 2\nranks: 2\niterations: 200\nseed: 7\n"
                   "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                   "sim: {tflops: 0.005}\npower: {sample_hz: 100}\n"
                   "heartbeat: {interval: 100ms, timeout: 2s}\nrecovery: {shrink: {replicate_every: 5}}\n");
    write_second(sdir);
    pid_t launcher = suite_start(sdir, out, NULL, 0, "lost", run, sizeof run);
    pid_t sup1 = node_supervisor(run, 1);
    cr_assert_gt(sup1, 0, "node 1's supervisor not found");
    cr_assert_eq(kill(sup1, SIGSTOP), 0);
    int st = 0;
    char *log;
    int ended = suite_end(launcher, 90, sup1, out, &st, &log);   /* the suite's own end: seconds; node 1 never back */
    cr_assert(ended, "the suite did not end within 90 s of the stop:\n%s", log);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d (a FAIL is 1):\n%s", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
              log);
    json_t *s = e2e_summary(run);
    json_t *lost = json_object_get(s, "nodes_lost");
    cr_assert(json_array_size(lost) == 1 && json_integer_value(json_array_get(lost, 0)) == 1, "nodes_lost:\n%s", log);
    json_decref(s);
    json_t *j = suite_verdicts(out, log), *v;
    int found = 0, after = 0;
    size_t i;
    json_array_foreach(json_object_get(j, "verdicts"), i, v) {
        const char *check = json_string_value(json_object_get(v, "check"));
        const char *note = json_string_value(json_object_get(v, "note"));
        if (strcmp(json_string_value(json_object_get(v, "scenario")), "second") == 0) {
            after++;
            cr_assert_str_eq(check, "run");
            cr_assert_str_eq(json_string_value(json_object_get(v, "status")), "SKIP");
            cr_assert_str_eq(note, "not run: node 1 was lost in lost");
            continue;
        }
        if (strcmp(check, "observed_fault") != 0)
            continue;
        found++;
        cr_assert_str_eq(json_string_value(json_object_get(v, "subject")), "node 1");
        cr_assert_str_eq(json_string_value(json_object_get(v, "status")), "FAIL");
        cr_assert_eq(json_integer_value(json_object_get(v, "node")), 1);
        cr_assert_str_eq(json_string_value(json_object_get(v, "unit")), "nodes");
        cr_assert(strstr(note, "was lost"), "%s", note);
    }
    cr_assert_eq(found, 1, "one observed_fault verdict, node 1's:\n%s", json_dumps(j, JSON_INDENT(1)));
    cr_assert_eq(after, 1, "the scenario after: one verdict, not run:\n%s", json_dumps(j, JSON_INDENT(1)));
    json_decref(j);
    free(log);
}

/* A stop signal to one node while it waits for node 0 between two scenarios of a suite (node 0 judging the first: its
 * accept process held by SIGSTOP from its summary on, node 1 in the agreement after the run): the suite ends with its
 * verdicts on every node (docs/acceptance.md) — stopped_by SIGTERM, the second scenario said, not run, exit 1. Until
 * 2026-12-01 the wait ended the job at once (MPI_Abort, exit 1) and node 0 went down before any verdict. */
Test(cluster, a_signal_while_a_node_waits_between_scenarios_ends_the_suite_judged, .timeout = 150)
{
    e2e_need_mpi();
    const char *sdir = e2e_tmpdir(), *out = e2e_outdir();
    char path[1100], run[1100];
    e2e_put(sdir, "L1-a.yaml", "name: first\nnodes: 2\nranks: 1\niterations: 150\n"   /* ~2 s: its workers */
                   "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 64KiB}\n"   /* found */
                   "sim: {tflops: 0.005}\n");
    write_second(sdir);
    pid_t launcher = suite_start(sdir, out, NULL, 0, "first", run, sizeof run);
    pid_t sup0 = node_supervisor(run, 0), sup1 = node_supervisor(run, 1);
    cr_assert(sup0 > 0 && sup1 > 0, "the nodes' supervisors not found");
    snprintf(path, sizeof path, "%s/summary.json", run);
    uint64_t t0 = mono_ns();
    while (access(path, F_OK) != 0 && mono_ns() - t0 < 60000000000ull)
        sleep_ns(2000000);
    cr_assert_eq(kill(sup0, SIGSTOP), 0);
    sleep_ns(1000000000);   /* node 1: its run over, waiting for node 0 */
    cr_assert_eq(kill(sup1, SIGTERM), 0);
    sleep_ns(1000000000);
    cr_assert_eq(kill(sup0, SIGCONT), 0);
    int st = 0;
    char *log;
    cr_assert(suite_end(launcher, 60, 0, out, &st, &log), "the suite did not end:\n%s", log);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d:\n%s", WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
    json_t *j = suite_verdicts(out, log), *v;
    cr_assert_str_eq(json_string_value(json_object_get(j, "stopped_by")), strsignal(SIGTERM), "%s", log);
    int second = 0, ran = 0;
    size_t i;
    json_array_foreach(json_object_get(j, "verdicts"), i, v) {
        if (strcmp(json_string_value(json_object_get(v, "scenario")), "second") != 0)
            continue;
        /* said, not run; or (this test descheduled past node 0's judging) begun and stopped by the signal */
        const char *note = json_string_value(json_object_get(v, "note"));
        if (strcmp(json_string_value(json_object_get(v, "status")), "SKIP") == 0 && strstr(note, "not run: the suite"))
            second++;
        else
            ran++, cr_log_warn("the second scenario began before the signal: %s", note);
    }
    cr_assert(second == 1 || (second == 0 && ran > 0), "%s", json_dumps(j, JSON_INDENT(1)));
    json_decref(j);
    free(log);
}

/* The state letter of process pid (/proc/PID/stat: R, S, T...), or 0 when it is gone. */
static char proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    const char *rp = f && fgets(buf, sizeof buf, f) ? strrchr(buf, ')') : NULL;
    char state = 0;
    if (!rp || sscanf(rp + 1, " %c", &state) != 1)
        state = 0;
    if (f)
        fclose(f);
    return state;
}

/* A suite of two scenarios on two nodes whose first measures its checkpoint target (8 MiB, both floors min_gbs) after
 * its run, node 1's supervisor held (SIGSTOP, tests/stall_preload.c) at its measurement's first call; out: its results
 * (e2e_outdir), sigkill_s as suite_start's. Returns the launcher once node 1 is held, its supervisor in *sup1. */
static pid_t suite_held_at_checkpoints(const char *min_gbs, int sigkill_s, const char **out, pid_t *sup1)
{
    const char *sdir = e2e_tmpdir(), *ck = e2e_tmpdir();
    char text[1024], env[256], run[1100];
    *out = e2e_outdir();
    snprintf(text, sizeof text, "name: first\nnodes: 2\nranks: 1\niterations: 150\n"   /* ~2 s: its workers found */
             "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 64KiB}\n"
             "  checkpoint: {path: %s}\nsim: {tflops: 0.005}\n"
             "checks:\n  checkpoint_io: {bytes: 8MiB, min_write_gbs: %s, min_read_gbs: %s}\n", ck, min_gbs, min_gbs);
    e2e_put(sdir, "L1-a.yaml", text);
    write_second(sdir);
    snprintf(env, sizeof env, "GAUNTLET_TEST_STALL_AT=statfs:%s", strrchr(ck, '/') + 1);
    pid_t launcher = suite_start(sdir, *out, env, sigkill_s, "first", run, sizeof run);
    *sup1 = node_supervisor(run, 1);
    cr_assert_gt(*sup1, 0, "node 1's supervisor not found");
    uint64_t t0 = mono_ns();
    while (proc_state(*sup1) != 'T' && proc_state(*sup1) && mono_ns() - t0 < 60000000000ull)   /* at its measurement */
        sleep_ns(5000000);
    cr_assert_eq(proc_state(*sup1), 'T', "node 1 did not stop at its checkpoint measurement");
    return launcher;
}

/* A node killed while gauntlet accept measures the checkpoint targets after a run (node 1's supervisor held at its
 * measurement's first call, tests/stall_preload.c, then SIGKILL: a host gone; node 0 waits for its figures): the
 * launcher ends the job (SIGTERM to node 0), and node 0 takes node 1 for lost 0.3 s after that signal and ends the
 * suite judged (docs/acceptance.md): verdicts.json with checkpoint_write and checkpoint_read SKIP, `not measured: node
 * 1 did not answer after the stop signal (taken for lost)`, stopped_by Terminated. Open MPI's SIGKILL is set 4 s after its SIGTERM (1 s by
 * default; mpirun waits that long twice as it ends the job), so that node 0's judging on a loaded machine is not this
 * test's race. Until 2026-12-01 node 0 waited in
 * MPI's gather for the killed node until that SIGKILL: no verdicts.json. */
Test(cluster, a_node_killed_while_accept_measures_checkpoints_ends_the_suite_judged, .timeout = 150)
{
    e2e_need_mpi();
    const char *out;
    pid_t sup1, launcher = suite_held_at_checkpoints("0.0001", 4, &out, &sup1);
    uint64_t t0 = mono_ns();
    cr_assert_eq(kill(sup1, SIGKILL), 0);
    int st = 0;
    char *log;
    uint64_t t1 = mono_ns();
    int ended = suite_end(launcher, 30, 0, out, &st, &log);
    cr_log_info("the launcher ended %.1f s after the kill (%.1f s after node 1 was held)", (double)(mono_ns() - t1) * 1e-9,
                (double)(mono_ns() - t0) * 1e-9);
    cr_assert(ended, "the job did not end:\n%s", log);
    cr_assert(!WIFEXITED(st) || WEXITSTATUS(st) != 0, "a node killed is not a success");
    json_t *j = suite_verdicts(out, log), *v;
    cr_assert_str_eq(json_string_value(json_object_get(j, "stopped_by")), strsignal(SIGTERM), "%s", log);
    int skipped = 0;
    size_t i;
    json_array_foreach(json_object_get(j, "verdicts"), i, v) {
        const char *check = json_string_value(json_object_get(v, "check"));
        if (strcmp(check, "checkpoint_write") != 0 && strcmp(check, "checkpoint_read") != 0)
            continue;
        skipped++;
        cr_assert_str_eq(json_string_value(json_object_get(v, "status")), "SKIP");
        cr_assert_str_eq(json_string_value(json_object_get(v, "note")), "not measured: node 1 did not answer after the "
                         "stop signal (taken for lost)");
    }
    cr_assert_eq(skipped, 2, "%s", json_dumps(j, JSON_INDENT(1)));
    cr_assert(strstr(log, "did not reach step 'the checkpoint rates' within 0.3 s of it: taken for lost"), "%s", log);
    json_decref(j);
    free(log);
}

/* A node held while gauntlet accept measures the checkpoint targets (node 1's supervisor stopped at its measurement's
 * first call, tests/stall_preload.c, and left so: a hung file system), no signal anywhere: node 0 waits 20 s and twice
 * the time 8 MiB takes at the floors (0.5 GB/s each), then takes node 1 for lost, fails its checkpoint_write saying
 * so (its read SKIP), says the second scenario not run, and ends the suite judged (exit 1) without the launcher ending
 * it. Until 2026-12-01 node 0 waited an hour, then ended the job: exit 3, no verdicts.json. */
Test(cluster, a_node_held_while_accept_measures_checkpoints_fails_it_and_the_suite_ends_judged, .timeout = 150)
{
    e2e_need_mpi();
    const char *out;
    pid_t sup1, launcher = suite_held_at_checkpoints("0.5", 0, &out, &sup1);
    int st = 0;
    char *log;
    uint64_t t1 = mono_ns();
    int ended = suite_end(launcher, 90, sup1, out, &st, &log);
    double took = (double)(mono_ns() - t1) * 1e-9;
    cr_assert(ended, "the job did not end:\n%s", log);
    /* node 0's wait counts from its own arrival, which may come a little before node 1 is seen stopped */
    cr_assert(took > 19, "ended %.1f s after node 1 stopped: before node 0's wait (20.07 s) was over", took);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d: the suite's FAIL, not the job ended:\n%s",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
    cr_assert_null(strstr(log, "MPI_ABORT"), "no node ended the job:\n%s", log);
    json_t *j = suite_verdicts(out, log), *v;
    cr_assert(!json_is_string(json_object_get(j, "stopped_by")), "%s", log);
    int write1 = 0, read1 = 0, second = 0;
    size_t i;
    json_array_foreach(json_object_get(j, "verdicts"), i, v) {
        const char *check = json_string_value(json_object_get(v, "check"));
        const char *status = json_string_value(json_object_get(v, "status")), *note = json_string_value(json_object_get(v, "note"));
        json_t *node = json_object_get(v, "node");
        int one = json_is_integer(node) && json_integer_value(node) == 1;
        if (!strcmp(check, "checkpoint_write") && one) {
            write1++;
            cr_assert_str_eq(status, "FAIL");
            cr_assert(note && strstr(note, "node 1 did not finish writing and reading 8 MiB to ") &&
                      strstr(note, "within 20.0671 s of node 0") && strstr(note, "node 1 was taken for lost"), "%s", note);
        } else if (!strcmp(check, "checkpoint_read") && one) {
            read1++;
            cr_assert_str_eq(status, "SKIP");
            cr_assert_str_eq(note, "not measured: node 1's measurement did not end (checkpoint_write)");
        } else if (!strcmp(check, "run") && !strcmp(json_string_value(json_object_get(v, "scenario")), "second")) {
            second++;
            cr_assert_str_eq(status, "SKIP");
            cr_assert(note && strstr(note, "not run: node 1 was lost in first"), "%s", note);
        }
    }
    cr_assert(write1 == 1 && read1 == 1 && second == 1, "%d %d %d: %s", write1, read1, second,
              json_dumps(j, JSON_INDENT(1)));
    cr_assert(strstr(log, "node 0: node(s) 1 did not reach step 'the checkpoint rates' within 20.0671 s: taken for lost"),
              "%s", log);
    json_decref(j);
    free(log);
}

/* A stop signal the run itself read (SIGTERM to node 0 mid-run: its signalfd takes it, the run stops), then node 1
 * stalled at its next word to node 0 in an agreement after its run (tests/stall_preload.c's agree stop point, armed
 * once node 0's summary is there): node 0 counts the signal its run read as pending, takes node 1 for lost 0.3 s
 * into that agreement, and ends the suite judged, stopped_by SIGTERM, the second scenario not run. Until 2026-12-01
 * only a signal still pending counted: node 0 waited for node 1 there 600 s and more, no verdicts. */
Test(cluster, a_signal_the_run_read_still_lets_node_0_go_on_without_a_stalled_node, .timeout = 150)
{
    e2e_need_mpi();
    const char *sdir = e2e_tmpdir(), *out = e2e_outdir();
    char path[1100], env[1200], arm[1100], run[1100];
    e2e_put(sdir, "L1-a.yaml", "name: first\nnodes: 2\nranks: 1\niterations: 3000\n"   /* minutes: stopped */
                   "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 64KiB}\n"
                   "sim: {tflops: 0.005}\n");
    write_second(sdir);
    snprintf(arm, sizeof arm, "%s/arm", sdir);
    snprintf(env, sizeof env, "GAUNTLET_TEST_STALL_AT=agree GAUNTLET_TEST_STALL_FILE=%s", arm);
    pid_t launcher = suite_start(sdir, out, env, 0, "first", run, sizeof run);
    pid_t sup0 = node_supervisor(run, 0), sup1 = node_supervisor(run, 1);
    cr_assert(sup0 > 0 && sup1 > 0, "the nodes' supervisors not found");
    cr_assert_eq(kill(sup0, SIGTERM), 0);   /* node 0's run reads it: the run stops, on both nodes */
    snprintf(path, sizeof path, "%s/summary.json", run);
    uint64_t t0 = mono_ns();
    while (access(path, F_OK) != 0 && mono_ns() - t0 < 60000000000ull)
        sleep_ns(2000000);
    FILE *f = fopen(arm, "w");   /* node 1 stops at its next word in an agreement */
    cr_assert(f && fclose(f) == 0);
    int st = 0;
    char *log;
    cr_assert(suite_end(launcher, 60, sup1, out, &st, &log), "the suite did not end within 60 s:\n%s", log);
    json_t *j = suite_verdicts(out, log), *v;
    cr_assert_str_eq(json_string_value(json_object_get(j, "stopped_by")), strsignal(SIGTERM), "%s", log);
    int second = 0;
    size_t i;
    json_array_foreach(json_object_get(j, "verdicts"), i, v)
        if (strcmp(json_string_value(json_object_get(v, "scenario")), "second") == 0)
            second += strcmp(json_string_value(json_object_get(v, "status")), "SKIP") == 0;
    cr_assert_eq(second, 1, "%s", json_dumps(j, JSON_INDENT(1)));
    cr_assert(strstr(log, "within 0.3 s of it: taken for lost"), "%s", log);
    json_decref(j);
    free(log);
}

/* Node 0 stalled mid-run (its supervisor stopped), under shrink: node 1 hears nothing from it for the heartbeat
 * timeout and ends the run (node 0 coordinates every recovery, shrink's too), its end record saying so with exit 1,
 * and leaves at once: a lost node is waited for nowhere, so the launcher takes the stalled node 0 down and the job
 * ends a few seconds past the timeout. Until 2026-11-30 node 1 waited 4 timeouts + 60 s for a bye from the node it had
 * just lost ("no bye from node 0 within 68 s"), holding the job that long. */
Test(cluster, a_stalled_node_0_ends_the_run_on_the_others_and_the_job, .timeout = 150)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    static const char text[] = "name: stall0\nnodes: 2\nranks: 2\niterations: 9000\nseed: 7\n"   /* minutes */
                               "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                               "sim: {tflops: 0.005}\npower: {sample_hz: 100}\n"
                               "heartbeat: {interval: 100ms, timeout: 2s}\nrecovery: {shrink: {replicate_every: 5}}\n";
    pid_t sup1, launcher = launch_two(text, out, &sup1), sup0 = node_supervisor(out, 0);
    cr_assert_gt(sup0, 0, "node 0's supervisor not found");
    uint64_t t0 = mono_ns();
    cr_assert_eq(kill(sup0, SIGSTOP), 0);
    int st = 0;
    pid_t w = wait_launcher(launcher, t0, 60000000000ull, &st);
    double took = (double)(mono_ns() - t0) * 1e-9;
    if (w == 0) {
        kill(sup0, SIGKILL);
        kill(sup1, SIGKILL);
        waitpid(launcher, &st, 0);
    }
    char path[600];
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    cr_assert(log && strstr(log, "gauntlet[node 1/2]: node 1 of 2: exit 1: node 0: no word from its supervisor for "),
              "node 1 names node 0:\n%s", log);
    cr_assert(strstr(log, "node 0 coordinates every recovery; the run ends"), "%s", log);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d:\n%s", WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
    snprintf(path, sizeof path, "%s/events-node1.jsonl", out);
    char *ev = e2e_read(path);
    const char *end = ev ? strstr(ev, "\"event\":\"end\",\"node\":1,\"exit\":1,") : NULL;
    cr_assert(end && strstr(end, "no word from its supervisor"), "node 1's end record: %s", end ? end : "none");
    const char *ns = strstr(ev, "\"event\":\"node_silent\",\"node\":0,");
    cr_assert(ns, "node 1's node_silent event for node 0");
    const char *ts = strstr(ns, "\"timeout_s\":");
    double timeout = ts ? strtod(ts + 12, NULL) : 0;
    cr_assert_float_eq(timeout, 2.0, 1e-9, "the scenario's heartbeat timeout");
    free(ev);
    /* the stop, the timeout, node 1's stop of its ranks and mpirun's teardown on a loaded machine: well inside the
     * minute the bye wait took */
    cr_log_info("the launcher ended %.1f s after node 0's stop", took);
    cr_assert_lt(took, timeout + 25, "the job ended %.1f s after node 0's stop (heartbeat timeout %.0f s):\n%s", took,
                 timeout, log);
    expect_no_worker_left(out, 4);
    free(log);
}

/* A supervisor killed outright: the launcher ends the job, node 0 says why in its summary, no worker is left. */
Test(cluster, a_killed_supervisor_ends_the_run_with_a_summary, .timeout = 150)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    static const char text[] = "name: kill-sup\nnodes: 2\nranks: 2\niterations: 9000\nseed: 7\n"
                               "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                               "sim: {tflops: 0.005}\npower: {sample_hz: 100}\n"
                               "heartbeat: {interval: 100ms, timeout: 2s}\n";
    pid_t sup1, launcher = launch_two(text, out, &sup1);
    uint64_t t0 = mono_ns();
    cr_assert_eq(kill(sup1, SIGKILL), 0);
    int st = 0;
    pid_t w = wait_launcher(launcher, t0, 30000000000ull, &st);
    double took = (double)(mono_ns() - t0) * 1e-9;
    if (w == 0) {
        kill(launcher, SIGKILL);
        waitpid(launcher, &st, 0);
    }
    char path[600];
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    cr_assert_neq(w, 0, "the run did not end in 30 s:\n%s", log);
    cr_assert(!WIFEXITED(st) || WEXITSTATUS(st) != 0, "a lost node is not a success");
    /* ended within wait_launcher's 30 s (until 2026-11-30 "under 8.1 s": mpirun's teardown beside other work is no
     * claim of this test's) */
    cr_log_info("the launcher ended %.1f s after the kill", took);
    json_t *s = e2e_summary(out);
    cr_assert(s, "node 0 wrote no summary:\n%s", log);
    cr_assert_neq(json_integer_value(json_object_get(s, "exit")), 0);
    /* the true cause: the launcher's SIGTERM ending the job, or node 1's silence seen first; never a crash of node
     * 0's own workers, whom that SIGTERM reached too (until 2026-11-29: "rank 0: exit: process died: signal 15") */
    const char *stop = json_string_value(json_object_get(s, "stop")), *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why, "the summary says why the run stopped");
    cr_expect(stop && (strcmp(stop, "signal") == 0 || strcmp(stop, "node_failed") == 0), "stop %s: %s", stop, why);
    cr_expect(strncmp(why, "rank ", 5) != 0, "node 0's own rank blamed: %s", why);
    /* a straggler a busy host made of node 0's 13 ms phases is the host's, and no word on the stop */
    cr_expect_eq(e2e_fault_count(s, "observed"), 0, "a fault observed: %s", why);
    expect_no_worker_left(out, 0);
    json_decref(s);
    free(log);
}

/* The pid of a child of parent (0: none): /proc's stat files scanned. */
static pid_t child_of(pid_t parent)
{
    DIR *d = opendir("/proc");
    cr_assert(d);
    pid_t found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(path, "r") : NULL;
        if (!f)
            continue;
        const char *rp = fgets(buf, sizeof buf, f) ? strrchr(buf, ')') : NULL;
        char state;
        int ppid;
        if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == parent)
            found = (pid_t)atoi(e->d_name);
        fclose(f);
    }
    closedir(d);
    return found;
}

/* mpirun told to end the job (SIGTERM, as `kill` of the launcher sends it; Open MPI then sends every process of the
 * job SIGTERM, and SIGKILL a second later): node 0's summary says the run was stopped by that signal, with no fault
 * observed and no worker counted dead, and nothing is left running. Until 2026-11-29 the workers died of the same
 * SIGTERM and were counted crashes: `stop: fault`, "rank 0: exit: process died: signal 15", faults observed 2.
 * (mpirun signalled twice, as `timeout` does, to it and to its process group, kills the job at once: then no node
 * writes a summary, and `gauntlet summarize` rebuilds it.) */
Test(cluster, a_sigterm_to_the_job_is_a_stop_by_signal_on_node_0, .timeout = 150)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    static const char text[] = "name: term-job\nnodes: 2\nranks: 2\niterations: 9000\nseed: 7\n"
                               "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                               "sim: {tflops: 0.005}\npower: {sample_hz: 100}\n";
    pid_t sup1, launcher = launch_two(text, out, &sup1), mpirun = child_of(launcher);   /* launcher: timeout */
    cr_assert_gt(mpirun, 0, "no mpirun under the launcher");
    uint64_t t0 = mono_ns();
    cr_assert_eq(kill(mpirun, SIGTERM), 0);
    int st = 0;
    pid_t w = wait_launcher(launcher, t0, 30000000000ull, &st);
    if (w == 0) {
        kill(launcher, SIGKILL);
        waitpid(launcher, &st, 0);
    }
    char path[600];
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    cr_assert_neq(w, 0, "the job did not end in 30 s:\n%s", log);
    json_t *s = e2e_summary(out);
    cr_assert(s, "node 0 wrote no summary:\n%s", log);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_expect_eq(json_integer_value(json_object_get(s, "exit")), 1);
    cr_expect_str_eq(json_string_value(json_object_get(s, "stop")), "signal", "stopped: %s", why);
    cr_expect(why && strstr(why, "stopped by Terminated"), "stopped: %s", why);
    /* a straggler a busy host made of the 13 ms phases is the host's, and no word on the stop */
    cr_expect_eq(e2e_fault_count(s, "observed"), 0, "a fault observed: %s", why);
    cr_expect_eq(e2e_count_events(out, "worker_died"), 0, "workers ended with the job are not failures");
    expect_no_worker_left(out, 4);
    json_decref(s);
    free(log);
}

/* Runs scenario text (its own nodes:) under mpirun -np np into out; the test fails unless it exits 0. */
static void run_whole(int np, const char *text, const char *out)
{
    char cmd[2048], path[600];
    snprintf(path, sizeof path, "%s.log", out);
    snprintf(cmd, sizeof cmd, "timeout 240 mpirun --oversubscribe --allow-run-as-root -np %d %s run %s --out %s "
                              "--backend sim --headless > %s 2>&1", np, GAUNTLET_BIN, e2e_scenario(text), out, path);
    int st = system(cmd);
    char *log = e2e_read(path);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", log ? log : "");
    free(log);
}

/* A node's end record larger than a batch (hundreds of faults: ~750 bytes each) reaches node 0 in a batch of its
 * own: every fault in the summary, the run's counts and the list alike (until 2026-11-30 node 1 logged "a record of
 * 432199 bytes is larger than a batch: not sent" and node 0 failed the run, "no end record came", faults: []). A rate
 * fault is sent at most once a turn of the supervisor's 10 ms loop (one of it in flight at a time), ~100 a second
 * whatever its rate: four of them make the hundreds in a quarter of the run one made them in (5000 iterations,
 * ~900 faults, until 2026-11-30). */
#define MANY_FAULT "  - {kind: straggler, rate_per_hour: 2000000, rank: 1, factor: 1.01, duration: 1ms}\n"
Test(cluster, a_node_with_hundreds_of_faults_reports_them_all, .timeout = 300)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    run_whole(2, "name: many\nnodes: 2\nranks: 1\niterations: 1500\nseed: 7\n"
                 "workload:\n  gemm: {m: 128, n: 128, k: 128, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                 "sim: {tflops: 0.005}\npower: {sample_hz: 50}\n"
                 "faults:\n" MANY_FAULT MANY_FAULT MANY_FAULT MANY_FAULT, out);
    json_t *s = e2e_summary(out);
    size_t n = json_array_size(json_object_get(s, "faults"));
    json_int_t inj = json_integer_value(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults"), "injected"));
    cr_log_info("%zu faults on node 1", n);
    cr_assert_gt(n, 430, "enough faults for an end record over a batch: %zu", n);
    cr_assert_eq((json_int_t)n, inj, "the list holds every fault the run counts: %zu of %lld", n, (long long)inj);
    json_decref(s);
}

/* A relay shrink empties (node 1 of 5, fan-out 2: it relays for nodes 3 and 4) ends its run early and relays for the
 * nodes below it as long as node 0 speaks: every node's lines reach node 0 to the run's end, no node is taken for
 * lost, exit 0 (until 2026-11-30 it stopped a heartbeat timeout after its own end: nodes 3 and 4 ran on into it,
 * their lines stopped at iteration ~93 of 300, node 3 was "lost" and the run failed, "no end record came"). So the
 * run goes on well past a heartbeat timeout (2 s) after node 1's end at iteration 15: 185 iterations of ~20 ms,
 * ~3.7 s, longer on a loaded machine (300 until 2026-11-30). */
Test(cluster, a_relay_shrink_empties_relays_to_the_end, .timeout = 300)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    run_whole(5, "name: relayshrink\nnodes: 5\nranks: 1\niterations: 200\nseed: 7\ngather_fanout: 2\n"
                 "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n"
                 "sim: {tflops: 0.005}\npower: {sample_hz: 100}\nheartbeat: {interval: 100ms, timeout: 2s}\n"
                 "recovery: {shrink: {replicate_every: 5}}\nfaults:\n  - {kind: node-crash, at: 15, node: 1}\n", out);
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_array_size(json_object_get(s, "nodes_lost")), 0, "no node lost");
    for (int k = 2; k < 5; k++)
        cr_assert_eq(count_in(out, "events.jsonl", "node_iteration", k), 200, "node %d's every iteration", k);
    json_t *run0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert_eq(json_integer_value(json_object_get(run0, "iterations")), 200);
    /* the final states compared are every node's still in the run (node 0 counts each node once among those it
     * waits for: its figures came, or it is silent) */
    cr_assert_eq(json_integer_value(json_object_get(run0, "fingerprints_nodes")), 4);
    json_decref(s);
}

/* A recovery near the run's end on another node, rebuilt by summarize: its recovery_end, forwarded, comes after
 * node 0's ranks (and its own) already redid iterations of the new timeline, and takes back only its own node's
 * counts from before the recovery began (until 2026-11-30 every rank's: 98 of 100 rebuilt where the run did 100). */
Test(cluster, a_recovery_at_the_end_is_counted_as_the_run_did, .timeout = 240)
{
    e2e_need_mpi();
    for (int at = 28; at <= 29; at++) {
        char *log, extra[256];
        const char *out = e2e_outdir();
        snprintf(extra, sizeof extra, "recovery: {inprocess: {replicate_every: 1}}\nfaults:\n  - {kind: crash, at: %d, rank: 2}\n", at);
        int rc = run(3, 3, 1, extra, out, &log);
        cr_assert_eq(rc, 0, "crash at %d: exit %d\n%s", at, rc, log);
        free(log);
        json_decref(rebuilt(out));   /* the count rebuilt is the run's own */
    }
}

/* The fault counts add up: in the run's and in every node's figures of every run, by_kind's injected and detected
 * sum to the totals, and the run's totals are its nodes' sums. */
static void fault_counts_add_up(json_t *s)
{
    json_t *run, *node;
    size_t r, k;
    json_array_foreach(json_object_get(s, "runs"), r, run) {
        json_int_t inj = 0;
        json_array_foreach(json_object_get(s, "nodes"), k, node) {
            json_t *nf = json_object_get(json_array_get(json_object_get(node, "runs"), r), "faults");
            inj += json_integer_value(json_object_get(nf, "injected"));
            for (int lvl = 0; lvl < 2; lvl++) {
                json_t *f = lvl ? json_object_get(run, "faults") : nf, *kv;
                const char *kind;
                json_int_t bi = 0, bd = 0;
                json_object_foreach(json_object_get(f, "by_kind"), kind, kv) {
                    bi += json_integer_value(json_object_get(kv, "injected"));
                    bd += json_integer_value(json_object_get(kv, "detected"));
                }
                cr_assert_eq(bi, json_integer_value(json_object_get(f, "injected")), "run %zu, %s: by_kind injected %lld, total %lld",
                             r, lvl ? "the run's" : "a node's", (long long)bi, (long long)json_integer_value(json_object_get(f, "injected")));
                cr_assert_eq(bd, json_integer_value(json_object_get(f, "detected")), "run %zu: by_kind detected %lld", r, (long long)bd);
            }
        }
        cr_assert_eq(inj, json_integer_value(json_object_get(json_object_get(run, "faults"), "injected")),
                     "run %zu: the nodes' injected add to %lld", r, (long long)inj);
    }
}

/* Faults of one kind on two nodes but node 0: each node's by_kind holds its own (until 2026-11-30 the first such
 * node's object was the run's, and the second node's counts were added into it). */
Test(cluster, each_nodes_fault_counts_are_its_own, .timeout = 240)
{
    e2e_need_mpi();
    char *log;
    const char *out = e2e_outdir();
    int rc = run(3, 3, 1, "recovery: {inprocess: {replicate_every: 5}}\nheartbeat: {interval: 100ms, timeout: 2s}\n"
                          "faults:\n  - {kind: crash, at: 10, rank: 1}\n  - {kind: crash, at: 20, rank: 2}\n", out, &log);
    cr_assert_eq(rc, 0, "exit %d\n%s", rc, log);
    free(log);
    json_t *s = e2e_summary(out);
    fault_counts_add_up(s);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults"), "injected")), 2);
    json_decref(s);
}

/* A rate fault with a random rank on two nodes: each firing hits one rank of the cluster, injected by that rank's
 * node only, and counted once: the run's count over both nodes equals the faults listed, none twice at one time. */
Test(cluster, a_random_rate_fault_fires_once_on_the_node_of_its_rank, .timeout = 120)
{
    e2e_need_mpi();
    char *log;
    const char *out = e2e_outdir();
    int rc = run(2, 2, 2, "faults:\n  - {kind: straggler, rate_per_hour: 36000, factor: 2, duration: 20ms}\n", out, &log);
    cr_assert_eq(rc, 0, "%s", log);
    json_t *s = e2e_summary(out), *f;
    json_t *faults = json_object_get(s, "faults");
    size_t i, n = (size_t)e2e_fault_count(s, "injected");   /* a straggler the host made is observed, not counted */
    cr_assert_gt(n, 3, "a fault ten times a second over the run: %zu", n);
    int on[2] = { 0, 0 };
    json_array_foreach(faults, i, f) {
        const char *origin = json_string_value(json_object_get(f, "origin"));
        if (!origin || strcmp(origin, "injected") != 0)
            continue;
        int rank = (int)json_integer_value(json_object_get(f, "rank")), node = (int)json_integer_value(json_object_get(f, "node"));
        cr_assert(rank >= 0 && rank < 4);
        cr_assert_eq(node, rank / 2, "fault %zu of rank %d injected on node %d", i, rank, node);
        on[node]++;
    }
    cr_assert(on[0] > 0 && on[1] > 0, "both nodes' ranks are drawn: %d and %d", on[0], on[1]);
    json_t *counts = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "faults");
    cr_assert_eq(json_integer_value(json_object_get(counts, "injected")), (json_int_t)n,
                 "the run counts every node's faults, once: %lld of %zu",
                 (long long)json_integer_value(json_object_get(counts, "injected")), n);
    fault_counts_add_up(s);
    json_decref(s);
    free(log);
}

/* Two ranks die at once on two nodes: both failures are recovered by one restart of every node (or one after the
 * other), and the run ends in the state of a run without them. */
Test(cluster, two_deaths_on_two_nodes_at_once_are_recovered, .timeout = 240)
{
    e2e_need_mpi();
    char *log;
    const char *out = e2e_outdir();
    int rc = run(2, 2, 2, "recovery: {inprocess: {replicate_every: 5}}\nfaults:\n  - {kind: crash, at: 15, rank: 0}\n"
                          "  - {kind: crash, at: 15, rank: 3}\n", out, &log);
    cr_assert_eq(rc, 0, "exit %d\n%s", rc, log);
    free(log);
    json_t *s = e2e_summary(out), *f;
    json_t *faults = json_object_get(s, "faults");
    size_t i;
    /* both deaths, and nothing else but a straggler a busy host may make of 13 ms phases (4 ranks, 2 supervisors and
     * mpirun on 2 cores) */
    cr_assert_eq(e2e_fault_count(s, "injected"), 2, "both deaths are faults: %s", json_dumps(faults, JSON_COMPACT));
    cr_assert_eq(e2e_fault_count(s, NULL), 2, "nothing else: %s", json_dumps(faults, JSON_COMPACT));
    json_array_foreach(faults, i, f) {
        if (strcmp(json_string_value(json_object_get(f, "origin")) ?: "", "injected") == 0)
            cr_assert(json_is_number(json_object_get(f, "recover_s")) ||
                          strstr(json_string_value(json_object_get(f, "outcome")), "joined"),
                      "fault %zu: %s", i, json_string_value(json_object_get(f, "outcome")));
    }
    cr_assert_eq(e2e_count_events(out, "recovery_begin"), e2e_count_events(out, "recovery_end"),
                 "every recovery that began on a node ended there");
    same_as_clean(s);
    json_decref(s);
}

/* In node 1's own record (events-node1.jsonl): how many recovery_end lines, and the pid of rank's newest worker. */
static int node1_recovery_ends(const char *out, int rank, pid_t *pid)
{
    char path[600], want[32];
    snprintf(path, sizeof path, "%s/events-node1.jsonl", out);
    snprintf(want, sizeof want, "\"rank\":%d,", rank);
    char *text = e2e_read(path);
    int ends = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;   /* a line still being written */
        *nl = 0;
        const char *p = strstr(line, "\"pid\":");
        if (strstr(line, "\"event\":\"worker_start\"") && strstr(line, want) && p)
            *pid = (pid_t)strtol(p + 6, NULL, 10);
        ends += strstr(line, "\"event\":\"recovery_end\"") != NULL;
        line = nl + 1;
    }
    free(text);
    return ends;
}

/* A failure on node 1 while node 0 is still in the recovery before: node 0 asks the recovery of rank 0's repeated crash
 * (5 crashes at iteration 14: each recovery after the first backs off on node 0, the fifth 0.8 s); under inprocess
 * node 1 has nothing to replace and ends its part at once, and a worker of node 1 killed then asks node 0 for a
 * recovery while node 0 still backs off. Node 0 queues it and begins it as soon as its own ends: the run recovers
 * (exit 0, the fault-free state). Until 2026-11-30 node 0 dropped the request and node 1 waited for a go that never
 * came until its deadline (heartbeat timeout + start-up: 25 s here) failed the run, exit 1. */
Test(cluster, a_request_while_node_0_still_recovers_is_queued_not_lost, .timeout = 300)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    char text[2048], path[600], cmd[4096];
    snprintf(text, sizeof text, base, 2, 2, "power: {sample_hz: 100}\n",
             "heartbeat: {timeout: 5s, startup: 20s}\nrecovery: {inprocess: {replicate_every: 5}}\nfaults:\n"
             "  - {kind: crash, at: 14, rank: 0}\n  - {kind: crash, at: 14, rank: 0}\n  - {kind: crash, at: 14, rank: 0}\n"
             "  - {kind: crash, at: 14, rank: 0}\n  - {kind: crash, at: 14, rank: 0}\n");
    const char *sc = e2e_scenario(text);
    snprintf(path, sizeof path, "%s.log", out);
    snprintf(cmd, sizeof cmd, "exec timeout 150 mpirun --oversubscribe --allow-run-as-root -np 2 %s run %s --out %s "
                              "--backend sim --headless > %s 2>&1", GAUNTLET_BIN, sc, out, path);
    pid_t launcher = fork();
    cr_assert_geq(launcher, 0);
    if (launcher == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    uint64_t t0 = mono_ns();
    pid_t victim = 0;
    int st = 0, killed = 0;
    while (waitpid(launcher, &st, WNOHANG) == 0 && mono_ns() - t0 < 150000000000ull) {
        if (!killed && node1_recovery_ends(out, 3, &victim) >= 5 && victim > 0) {   /* node 0 backs off 0.8 s now */
            killed = kill(victim, SIGKILL) == 0;
            cr_log_info("killed rank 3 (pid %d) %.1f s after the start", (int)victim, (double)(mono_ns() - t0) * 1e-9);
        }
        sleep_ns(killed ? 20000000 : 2000000);
    }
    char *log = e2e_read(path);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit %d after %.1f s\n%s", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
              (double)(mono_ns() - t0) * 1e-9, log ? log : "");
    free(log);
    cr_assert(killed, "node 1 never ended its fifth recovery: the kill was not made");
    /* the kill lands in node 0's 0.8 s back-off unless this test was kept from the CPU that long: then the request is
     * not queued, the run recovers all the same, and this run did not exercise the queue; said, not failed (an info:
     * criterion's warning makes the executable exit 1) */
    int queued = e2e_count_events(out, "recovery_queued");
    if (queued == 0)
        cr_log_info("node 0 queued no request: the kill came after its recovery (a late test), the queue untested");
    json_t *q = e2e_first_event(out, "recovery_queued");   /* where it was queued: node 1's, from its failure at most */
    cr_assert(queued == 0 || (q && json_integer_value(json_object_get(q, "node")) == 1 &&
                              json_integer_value(json_object_get(q, "from_iter")) <= json_integer_value(json_object_get(q, "iter"))),
              "recovery_queued: %s", q ? json_dumps(q, JSON_COMPACT) : "(none)");
    json_decref(q);
    json_t *s = e2e_summary(out), *f, *f3 = NULL;
    size_t i;
    json_array_foreach(json_object_get(s, "faults"), i, f)
        if (json_integer_value(json_object_get(f, "rank")) == 3)
            f3 = f;
    cr_assert(f3, "the death of rank 3 is a fault: %s", json_dumps(json_object_get(s, "faults"), JSON_COMPACT));
    cr_assert(json_is_number(json_object_get(f3, "recover_s")), "rank 3's death was recovered: %s",
              json_string_value(json_object_get(f3, "outcome")));
    cr_assert_eq(e2e_count_events(out, "recovery_begin"), e2e_count_events(out, "recovery_end"),
                 "every recovery that began on a node ended there");
    same_as_clean(s);
    json_decref(s);
}

/* forward: nodes: what node 0 hears of another node does not grow with its GPUs or its sampling rate — 3 nodes of 1
 * GPU sampled at 100 Hz against 3 nodes of 3 GPUs sampled at 400 Hz: in both, per other node one node_iteration line
 * of bounded length per iteration, no line of its ranks' phases or iterations, and its summed power at no more than
 * power.forward_hz cells a second of the span they cover (structural: what a busy machine cannot change). */
Test(cluster, node_0_hears_per_node_not_per_gpu_or_per_sample, .timeout = 240)
{
    e2e_need_mpi();
    const char *extra[2] = { "power: {sample_hz: 100}\n", "power: {sample_hz: 400, forward_hz: 100}\n" };
    int gpus[2] = { 1, 3 };
    for (int c = 0; c < 2; c++) {
        char *log, path[600];
        const char *out = e2e_outdir();
        cr_assert_eq(run(3, 3, gpus[c], extra[c], out, &log), 0, "%s", log);
        free(log);
        for (int k = 1; k < 3; k++) {
            cr_assert_eq(count_in(out, "events.jsonl", "node_iteration", k), 30, "%d GPUs: node %d", gpus[c], k);
            cr_assert_eq(count_in(out, "events.jsonl", "iteration", k) + count_in(out, "events.jsonl", "phase_begin", k) +
                             count_in(out, "events.jsonl", "phase_end", k), 0);
        }
        snprintf(path, sizeof path, "%s/events.jsonl", out);
        char *ev = e2e_read(path);
        for (const char *l = strstr(ev, "\"event\":\"node_iteration\""); l; l = strstr(l + 1, "\"event\":\"node_iteration\"")) {
            const char *b = l, *e = strchr(l, '\n');
            while (b > ev && b[-1] != '\n')
                b--;
            cr_assert_lt(e - b, 320, "a node_iteration line of %d bytes with %d GPUs", (int)(e - b), gpus[c]);
        }
        free(ev);
        snprintf(path, sizeof path, "%s/power-nodes.csv", out);
        char *csv = e2e_read(path);
        for (int k = 1; k < 3; k++) {
            double t0 = INFINITY, t1 = -INFINITY;
            int rows = 0;
            for (char *l = strchr(csv, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
                double t;
                int node;
                cr_assert_eq(sscanf(l, "%lf,%d,", &t, &node), 2);
                if (node == k)
                    rows++, t0 = fmin(t0, t), t1 = fmax(t1, t);
            }
            cr_assert_gt(rows, 10);
            cr_assert(rows <= (t1 - t0) * 100 * 1.001 + 1, "node %d: %d cells over %.2f s at 100 Hz", k, rows, t1 - t0);
        }
        free(csv);
    }
}

/* What the other nodes send node 0 climbs a tree (gather_fanout 2 on 5 nodes: nodes 3 and 4 send to node 1, which
 * relays them): every node's iterations and end record reach node 0, each once, none missing, and the state is the
 * one node's. */
Test(cluster, the_other_nodes_climb_a_tree_to_node_0, .timeout = 240)
{
    e2e_need_mpi();
    char *log;
    const char *one = e2e_outdir(), *out = e2e_outdir();
    cr_assert_eq(run(0, 1, 5, "", one, &log), 0, "%s", log);
    free(log);
    cr_assert_eq(run(5, 5, 1, "gather_fanout: 2\n", out, &log), 0, "%s", log);
    json_t *ref = e2e_summary(one), *s = e2e_summary(out);
    cr_assert_str_eq(fingerprint(s), fingerprint(ref));
    json_t *ns = json_object_get(s, "nodes");
    cr_assert_eq(json_array_size(ns), 5, "every node's end record came");
    for (int k = 1; k < 5; k++) {
        json_t *n = json_array_get(ns, (size_t)k);
        json_int_t relayed = json_integer_value(json_object_get(n, "telemetry_relayed_bytes"));
        cr_assert(k == 1 ? relayed > 0 : relayed == 0, "node %d relayed %lld bytes", k, (long long)relayed);
        cr_assert(json_is_integer(json_object_get(n, "telemetry_records_missing")), "node %d", k);
        cr_assert_eq(json_integer_value(json_object_get(n, "telemetry_records_missing")), 0, "node %d", k);
        cr_assert_eq(count_in(out, "events.jsonl", "node_iteration", k), 30, "node %d's iterations", k);
        /* the clock exchange climbs the same tree: on one machine (one clock) each hop's offset is within its half
         * round trip, so a node's offset within the sum of its path's; nodes 3 and 4 add node 1's hop to theirs */
        double off = json_number_value(json_object_get(n, "clock_offset_s")),
               unc = json_number_value(json_object_get(n, "clock_uncertainty_s"));
        cr_assert(unc > 0 && fabs(off) <= unc + 1e-9, "node %d: offset %.3g s, uncertainty %.3g s", k, off, unc);
        if (k >= 3)
            cr_assert_gt(unc, json_number_value(json_object_get(json_array_get(ns, 1), "clock_uncertainty_s")),
                         "node %d's uncertainty holds its parent's (node 1) and its own hop", k);
    }
    json_decref(s);
    json_decref(ref);
    free(log);
}

/* A relay that stalls: node 1 (the relay of nodes 3 and 4 with gather_fanout 2) stopped mid-run under shrink. Node 0
 * loses it by its heartbeat and names it to the others; nodes 3 and 4 send around it, and their records keep
 * reaching node 0 to the end: the run ends whole on the four nodes left. Every node's collectives wait from the stop
 * (a few iterations in) until node 1 is lost, so each iteration after it is one that nodes 3 and 4 send around it:
 * 150 leave the stop ~140 of slack (300 until 2026-11-30). */
Test(cluster, the_nodes_below_a_stalled_relay_go_around_it, .timeout = 200)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    static const char text[] = "name: relay\nnodes: 5\nranks: 1\niterations: 150\nseed: 7\ngather_fanout: 2\n"
                               "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n"
                               "sim: {tflops: 0.005}\npower: {sample_hz: 100}\n"
                               "heartbeat: {interval: 100ms, timeout: 2s}\nrecovery: {shrink: {replicate_every: 5}}\n";
    pid_t sup1, launcher = launch_n(5, text, out, &sup1);
    char *log, path[600];
    json_t *s = stall_and_wait(out, sup1, launcher, 120, &log);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 0, "exit %lld, stopped: %s\n%s",
                 (long long)json_integer_value(json_object_get(s, "exit")),
                 json_string_value(json_object_get(s, "stopped")), log);
    json_t *lost = json_object_get(s, "nodes_lost");
    cr_assert(json_array_size(lost) == 1 && json_integer_value(json_array_get(lost, 0)) == 1, "nodes_lost");
    for (int k = 3; k <= 4; k++) {   /* their last iterations came around the relay, and their end records */
        int got = 0;
        json_t *n;
        size_t i;
        json_array_foreach(json_object_get(s, "nodes"), i, n)
            if (json_integer_value(json_object_get(n, "node")) == k) {
                got = 1;
                cr_assert(json_is_integer(json_object_get(n, "telemetry_records_missing")));
            }
        cr_assert(got, "node %d's end record reached node 0:\n%s", k, log);
        char want[64];
        snprintf(want, sizeof want, "\"node\":%d,\"run\":0,\"iter\":149,", k);
        snprintf(path, sizeof path, "%s/events.jsonl", out);
        char *ev = e2e_read(path);
        cr_assert(ev && strstr(ev, want), "node %d's last iteration did not reach node 0", k);
        free(ev);
    }
    json_decref(s);
    free(log);
}

/* A relay deaf to one node alone: node 3's records up the tree to its relay, node 1 (gather_fanout 2 on 5 nodes),
 * never complete from a few iterations in (tests/stall_preload.c: its sends to node 1 are never made, their requests
 * never done), while node 1 goes on beating to node 0 and relaying node 4. Node 0 has no reason to lose node 1: node 3
 * alone can tell, and does — its relay_lost event (node 1, silent the heartbeat timeout) reaches node 0, node 3 sends
 * to node 0 from then on (its end record and its last iteration come), node 1 stays in the run and relays node 4 to
 * the end, no node is lost or silent, and the run ends whole (exit 0), node 0 saying bye to every node (node 3 leaves
 * without the closing barrier; node 1 waits for node 3's end record, which never passes it) rather than wait. Until
 * 2026-11-30 no test held this (a relay stopped whole, SIGSTOP, also goes silent to node 0, which may lose it first),
 * and node 3 judged its relay only once its sends had filled every slot and one then waited the heartbeat timeout for
 * a free one: all that time it sent no beat, and node 0 lost node 3 instead (exit 1). Nothing here holds on timing:
 * the mute starts once the run is under way and lasts; the 290 iterations left, each at least its 34 ms of sim compute,
 * leave the 2 s timeout some 8 s of slack, more on a slower machine. */
Test(cluster, a_relay_deaf_to_one_node_is_gone_around_by_that_node, .timeout = 200)
{
    e2e_need_mpi();
    const char *out = e2e_outdir();
    char mute[620], env_file[700], path[600];
    snprintf(mute, sizeof mute, "%s.mute", out);
    snprintf(env_file, sizeof env_file, "GAUNTLET_TEST_UP_MUTE_FILE=%s", mute);
    static const char text[] = "name: deaf-relay\nnodes: 5\nranks: 1\niterations: 300\nseed: 7\ngather_fanout: 2\n"
                               "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n"
                               "sim: {tflops: 0.002}\npower: {sample_hz: 100}\n"
                               "heartbeat: {interval: 100ms, timeout: 2s}\n";
    pid_t sup1;
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_UP_MUTE=3:1", env_file, NULL });
    pid_t launcher = launch_n(5, text, out, &sup1);
    e2e_preload_end();
    FILE *f = fopen(mute, "w");   /* from now on node 1 takes nothing of node 3's */
    cr_assert(f);
    fclose(f);
    int st = 0;
    pid_t w = wait_launcher(launcher, mono_ns(), 150000000000ull, &st);
    if (w == 0) {
        kill(launcher, SIGTERM);
        waitpid(launcher, &st, 0);
    }
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    cr_assert_neq(w, 0, "the run did not end within 150 s:\n%s", log);
    /* every node ends by itself, exit 0; none calls MPI_Finalize (no barrier), which mpirun's own code reports */
    cr_assert(WIFEXITED(st), "the launcher was killed:\n%s", log);
    for (int k = 0; k < 5; k++) {
        char want[64];
        snprintf(want, sizeof want, k ? "node %d of 5: exit 0\n" : "deaf-relay: exit 0 after", k);
        cr_assert(strstr(log, want), "no '%s':\n%s", want, log);
    }
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 0, "stopped: %s\n%s",
                 json_string_value(json_object_get(s, "stopped")), log);
    cr_assert_eq(json_array_size(json_object_get(s, "nodes_lost")), 0, "no node is lost:\n%s", log);
    cr_assert_eq(e2e_count_events(out, "node_silent"), 0, "no node fell silent:\n%s", log);
    /* node 3's event, in node 0's record: the relay it went around, silent for the heartbeat timeout */
    cr_assert_eq(e2e_count_events(out, "relay_lost"), 1, "node 3's relay_lost reached node 0 once:\n%s", log);
    json_t *rl = e2e_first_event(out, "relay_lost");
    cr_assert_eq(json_integer_value(json_object_get(rl, "node")), 1);
    cr_assert_float_eq(json_number_value(json_object_get(rl, "silent_s")), 2.0, 1e-9);
    json_decref(rl);
    snprintf(path, sizeof path, "%s/events-node3.jsonl", out);
    char *ev3 = e2e_read(path);
    cr_assert(ev3 && strstr(ev3, "\"event\":\"relay_lost\",\"node\":1,"), "node 3 wrote it");
    free(ev3);
    cr_assert(strstr(log, "cluster: node 3: node 1 relays nothing more: sending to node 0"), "%s", log);
    cr_assert(!strstr(log, "no bye from node 0"), "every node left on node 0's bye:\n%s", log);
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    json_t *ns = json_object_get(s, "nodes");
    cr_assert_eq(json_array_size(ns), 5, "every node's end record came (node 3's around node 1):\n%s", log);
    for (int k = 1; k < 5; k++) {
        json_t *n = json_array_get(ns, (size_t)k);
        cr_assert_eq(json_integer_value(json_object_get(n, "node")), k);
        char want[64];
        snprintf(want, sizeof want, "\"node\":%d,\"run\":0,\"iter\":299,", k);
        cr_assert(ev && strstr(ev, want), "node %d's last iteration did not reach node 0", k);
        json_int_t missing = json_integer_value(json_object_get(n, "telemetry_records_missing"));
        /* what node 3 sent node 1 after the mute never came; nothing of the others' is missing */
        cr_assert(k == 3 ? missing > 0 : missing == 0, "node %d: %lld records missing", k, (long long)missing);
    }
    cr_assert_gt(json_integer_value(json_object_get(json_array_get(ns, 1), "telemetry_relayed_bytes")), 0,
                 "node 1 still relays node 4");
    free(ev);
    json_decref(s);
    free(log);
}

/* The first line of `gauntlet view out --snapshot` at --at 0.5 that starts with "Power," (a static buffer). */
static const char *view_power_line(const char *out)
{
    static char line[512];
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "LANG=C GAUNTLET_ASCII=1 %s view %s --snapshot 140x40 --at 0.5 2>&1", GAUNTLET_BIN, out);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    line[0] = 0;
    char buf[512];
    while (fgets(buf, sizeof buf, p))
        if (!line[0] && strncmp(buf, "Power,", 6) == 0)
            snprintf(line, sizeof line, "%s", buf);
    pclose(p);
    return line;
}

/* A one-node run into an earlier 2-node run's folder: the earlier run's node files are gone, and the view shows the
 * new run's own power (one node of 2 GPUs), not the earlier cluster's. Until 2026-11-29 they stayed, and the view
 * showed the 2-node run's summed power (2750 W) as the 1-node run's (1400 W). */
Test(cluster, a_one_node_run_in_a_cluster_runs_folder_leaves_none_of_its_node_files, .timeout = 120)
{
    e2e_need_mpi();
    char *log, path[600];
    const char *out = e2e_outdir();
    int rc = run(2, 2, 2, "", out, &log);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    static const char *const files[] = { "power-nodes.csv", "power-node1.csv", "events-node1.jsonl", ".lock-node1" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        cr_assert_eq(access(path, F_OK), 0, "the 2-node run wrote %s", files[i]);
    }
    cr_expect(strstr(view_power_line(out), "nodes' sums"), "%s", view_power_line(out));
    rc = run(0, 1, 2, "", out, &log);
    cr_assert_eq(rc, 0, "%s", log);
    free(log);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        cr_expect_neq(access(path, F_OK), 0, "the 2-node run's %s stayed", files[i]);
    }
    const char *pw = view_power_line(out), *now = strstr(pw, "now ");
    cr_expect(strstr(pw, "Power, node (2 GPUs)"), "%s", pw);
    cr_expect(now && strtod(now + 4, NULL) < 2000 && !strstr(pw, "kW"), "two sim GPUs draw under 1.6 kW: %s", pw);
}

/* ---- the fingerprint vote across nodes: with one rank per node no node's own vote compares anything; node 0 votes
 * over every node's ranks and the node whose ranks differ records the detection, as its own vote would. */
static const char fp_flip[] = "detectors: [fingerprint]\n%sfaults:\n"
                              "  - {kind: bitflip, at: 10, rank: 1, target: weights, where: exponent}\n";

/* The detection event of the fingerprint on global rank `rank` (-1: none named) at iteration 10, in node 0's record. */
static void fp_detected_at_10(const char *out, int rank)
{
    char want[96];
    snprintf(want, sizeof want, "\"event\":\"detection\",\"node\":1,\"detector\":\"fingerprint\",\"rank\":%d,\"iter\":10,",
             rank);
    char path[600];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    cr_assert(ev && strstr(ev, want), "no '%s' in %s", want, path);
    free(ev);
}

/* 2 nodes x 1 rank: the two ranks disagree with no majority (as 2 ranks on one node): the node whose fault explains
 * it records it, at the flip's own iteration; recovery none ends the run. */
Test(cluster, a_flip_on_node_1_of_two_single_rank_nodes_is_found_across_nodes, .timeout = 120)
{
    e2e_need_mpi();
    char *log, extra[256];
    const char *out = e2e_outdir();
    snprintf(extra, sizeof extra, fp_flip, "");
    cr_assert_eq(run(2, 2, 1, extra, out, &log), 1, "%s", log);
    json_t *s = e2e_summary(out);
    const char *why = json_string_value(json_object_get(s, "stopped"));
    cr_assert(why && strstr(why, "node 1: node 1: fingerprint: the nodes' ranks disagree with no majority"), "%s", why);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "fingerprint");
    cr_assert_eq(json_integer_value(json_object_get(f, "node")), 1);
    cr_assert_eq(json_integer_value(json_object_get(f, "detect_iters")), 0, "found at the flip's own iteration");
    fp_detected_at_10(out, -1);
    cr_assert_geq(count_in(out, "events.jsonl", "fingerprint_tie", 0), 1, "node 0 took part, no fault of its own (an "
                  "iteration more may tie before the failure reaches it)");
    json_t *run0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(run0, "faults"), "false_positives")), 0);
    json_decref(s);
    free(log);
}

/* 3 nodes x 1 rank: two against one names node 1's rank; restart recovers it into the fault-free state (that of
 * one node of 3 ranks: the sim's sum crosses nodes exactly). */
Test(cluster, a_majority_of_three_nodes_names_the_node_and_restart_recovers, .timeout = 120)
{
    e2e_need_mpi();
    char *log, extra[256];
    const char *ref_out = e2e_outdir(), *out = e2e_outdir();
    cr_assert_eq(run(0, 1, 3, "detectors: [fingerprint]\n", ref_out, &log), 0, "%s", log);
    free(log);
    snprintf(extra, sizeof extra, fp_flip, "recovery: restart\n");
    cr_assert_eq(run(3, 3, 1, extra, out, &log), 0, "%s", log);
    json_t *s = e2e_summary(out), *ref = e2e_summary(ref_out);
    json_t *f = e2e_injected_fault(s, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f, "detected_by")), "fingerprint");
    cr_assert_eq(json_integer_value(json_object_get(f, "detect_iters")), 0);
    cr_assert(strstr(json_string_value(json_object_get(f, "outcome")), "recovered by restart"), "%s",
              json_string_value(json_object_get(f, "outcome")));
    fp_detected_at_10(out, 1);
    cr_assert_str_eq(fingerprint(s), fingerprint(ref), "recovered into the fault-free state");
    json_t *run0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(run0, "fingerprints_agree")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(run0, "faults"), "false_positives")), 0);
    json_decref(s);
    json_decref(ref);
    free(log);
}

/* No fault: the vote across nodes finds nothing, and the nodes agree. */
Test(cluster, a_clean_run_on_single_rank_nodes_agrees_across_nodes, .timeout = 120)
{
    e2e_need_mpi();
    char *log;
    const char *out = e2e_outdir();
    cr_assert_eq(run(2, 2, 1, "detectors: [fingerprint]\n", out, &log), 0, "%s", log);
    json_t *s = e2e_summary(out);
    json_t *run0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_true(json_object_get(run0, "fingerprints_agree")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(run0, "faults"), "detected")), 0);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(run0, "faults"), "false_positives")), 0);
    cr_assert_eq(e2e_count_events(out, "detection") + e2e_count_events(out, "fingerprint_tie") +
                 e2e_count_events(out, "states_differ"), 0);
    json_decref(s);
    free(log);
}

/* Without the detector nothing is detected, but node 0 compares the nodes' final states: fingerprints_agree false,
 * a states_differ event and a line on stderr (exit 0, as one node's ranks that end apart with no detector on). */
Test(cluster, the_nodes_final_states_are_compared_without_the_detector, .timeout = 120)
{
    e2e_need_mpi();
    char *log;
    const char *out = e2e_outdir();
    cr_assert_eq(run(2, 2, 1, "faults:\n  - {kind: bitflip, at: 10, rank: 1, target: weights, where: exponent}\n", out,
                     &log), 0, "%s", log);
    cr_assert(strstr(log, "run 1: the nodes ended in different states (node 1 "), "%s", log);
    json_t *s = e2e_summary(out);
    json_t *run0 = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert(json_is_false(json_object_get(run0, "fingerprints_agree")), "node 0's summary covers node 1's rank");
    json_t *n1 = json_array_get(json_object_get(s, "nodes"), 1);
    cr_assert_str_neq(fingerprint(n1), fingerprint(s));
    cr_assert_eq(e2e_count_events(out, "states_differ"), 1);
    json_decref(s);
    free(log);
}

/* `gauntlet accept` on 5 nodes with gather_fanout 2 (nodes 3 and 4 send up through node 1): each relay passes its
 * children's end records on before it leaves the run. Until 2026-12-02 a relay went from its own end to the suite's
 * agreement, where nothing is relayed: a child's end record that came a moment late sat there, node 0 took the child
 * for lost after the heartbeat timeout, and a healthy suite failed (exit 1, `no end record came`). Three scenarios:
 * three ends, every node's end record in each. */
Test(cluster, accept_through_relays_gets_every_nodes_end, .timeout = 300)
{
    e2e_need_mpi();
    const char *sdir = e2e_outdir();
    char cmd[1024], path[600];
    cr_assert(mkdir(sdir, 0755) == 0 || errno == EEXIST, "%s: %s", sdir, strerror(errno));
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/L1-relay%d.yaml", sdir, k);
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "name: relay%d\nnodes: 5\nranks: 1\niterations: 20\nseed: %d\ngather_fanout: 2\n"
                   "workload: {gemm: {m: 64, n: 64, k: 64}, allreduce: {bytes: 64KiB}}\n"
                   "checks:\n  gemm_tflops: {expected: 1e-9}\n", k, k + 1);
        cr_assert_eq(fclose(f), 0);
    }
    const char *out = e2e_outdir();
    snprintf(cmd, sizeof cmd, "timeout 250 mpirun --oversubscribe --allow-run-as-root -np 5 %s accept --backend sim "
                              "--scenarios %s --out %s > %s.log 2>&1", GAUNTLET_BIN, sdir, out, out);
    int st = system(cmd);
    snprintf(path, sizeof path, "%s.log", out);
    char *log = e2e_read(path);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a healthy suite through relays: exit %d\n%s",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/relay%d/summary.json", out, k);
        json_error_t err;
        json_t *s = json_load_file(path, 0, &err);
        cr_assert(s, "%s: %s", path, err.text);
        cr_assert_eq(json_array_size(json_object_get(s, "nodes_lost")), 0, "%s: nodes lost", path);
        json_t *nodes = json_object_get(s, "nodes"), *n;
        size_t i;
        cr_assert_eq(json_array_size(nodes), 5, "%s", path);
        json_array_foreach(nodes, i, n)   /* an end record carries the node's host; a missing one says why not */
            cr_assert(json_is_string(json_object_get(n, "host")), "%s: node %zu: %s", path, i, json_dumps(n, 0));
        json_decref(s);
    }
    free(log);
}
