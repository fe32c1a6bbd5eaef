/* tests/test_e2e.c: the real executable end to end on the sim backend: a complete results folder, the
 * same seed giving the same run, and the command line's exit codes and messages. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "e2e.h"
#include "results.h"
#include "scenario.h"
#include "util.h"

/* A scenario of 3 ranks, its checkpoints in a folder of its own; returns its path. */
static const char *three_ranks(void)
{
    char text[512];
    snprintf(text, sizeof text,
             "name: e2e\nranks: 3\niterations: 20\n"
             "workload:\n"
             "  gemm: {m: 256, n: 256, k: 256, count: 2}\n"
             "  allreduce: {bytes: 4MiB}\n"
             "  checkpoint: {every: 10, bytes: 1MiB, path: %s}\n"
             "power: {sample_hz: 200}\n"
             "sim: {tflops: 0.005}\n"   /* 6.7e7 flops: 13 ms of modeled compute per iteration */
             "mitigations: [none, none]\n", e2e_tmpdir());
    return e2e_scenario(text);
}

Test(e2e, three_ranks_leave_a_complete_results_folder, .timeout = 120)
{
    const char *sc = three_ranks(), *out = e2e_outdir();
    const char *args[] = { "run", sc, "--out", out, "--backend", "sim", "--headless", NULL };
    int rc = e2e_run(e2e_log("e2e.log"), args);
    cr_assert_eq(rc, 0, "exit %d; see %s", rc, e2e_log("e2e.log"));

    char path[512], err[512];
    struct scenario resolved;
    snprintf(path, sizeof path, "%s/scenario.yaml", out);
    cr_assert_eq(scenario_load(path, &resolved, err, sizeof err), 0, "resolved scenario does not load: %s", err);
    cr_assert_eq(resolved.ranks, 3);
    cr_assert_float_eq(resolved.sim.tflops, 0.005, 1e-12);

    /* events: every line parses; each phase edge of each rank and iteration is there */
    cr_assert_eq(e2e_count_events(out, "phase_begin"), 2 * 3 * (20 * 2 + 2));
    cr_assert_eq(e2e_count_events(out, "phase_end"), 2 * 3 * (20 * 2 + 2));
    cr_assert_eq(e2e_count_events(out, "iteration"), 2 * 3 * 20);
    cr_assert_eq(e2e_count_events(out, "worker_start"), 3);
    cr_assert_eq(e2e_count_events(out, "run_end"), 2);
    cr_assert_eq(e2e_count_events(out, "end"), 1);

    /* power.csv: the header, then whole rows of 3 ranks with numbers in the model's range */
    snprintf(path, sizeof path, "%s/power.csv", out);
    char *csv = e2e_read(path);
    const char *header = "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n";
    cr_assert(csv && strncmp(csv, header, strlen(header)) == 0);
    int rows = 0, per_rank[3] = { 0 };
    for (char *line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        double t, w;
        int rank;
        char phase[32];
        int got = sscanf(line, "%lf,%d,%lf,%31[a-z],,,,,\n", &t, &rank, &w, phase);
        cr_assert(got == 4 || (got == 2 && strstr(line, ",,")), "bad row: %.60s", line);
        cr_assert(got != 4 || strstr(",idle,compute,comm,checkpoint,", phase), "bad phase in: %.60s", line);
        cr_assert(rank >= 0 && rank < 3);
        if (got == 4)
            cr_assert(w > 0 && w < 1000, "watts %f out of the model's range", w);
        per_rank[rank]++;
        rows++;
    }
    cr_assert_gt(rows, 30);
    cr_assert(per_rank[0] == per_rank[1] && per_rank[1] == per_rank[2]);
    free(csv);

    /* summary.json: the contract's top-level shape */
    json_t *s = e2e_summary(out);
    cr_assert_str_eq(json_string_value(json_object_get(s, "scenario")), "e2e");
    cr_assert_str_eq(json_string_value(json_object_get(s, "backend")), "sim");
    cr_assert_eq(json_integer_value(json_object_get(s, "exit")), 0);
    cr_assert(json_is_string(json_object_get(s, "started_utc")));
    cr_assert(json_is_array(json_object_get(s, "faults")));
    json_t *runs = json_object_get(s, "runs");
    cr_assert_eq(json_array_size(runs), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *r = json_array_get(runs, i);
        cr_assert_str_eq(json_string_value(json_object_get(r, "mitigation")), "none");
        cr_assert_eq(json_integer_value(json_object_get(r, "iterations")), 20);
        cr_assert(json_is_true(json_object_get(r, "complete")));
        cr_assert(json_is_true(json_object_get(r, "fingerprints_agree")));
        json_t *it = json_object_get(r, "iteration_s");
        cr_assert(json_real_value(json_object_get(it, "p50")) > 0);
        cr_assert(json_real_value(json_object_get(it, "p99")) >= json_real_value(json_object_get(it, "p50")));
        double tflops = json_real_value(json_object_get(r, "tflops"));
        /* never faster than the model; slower by what a busy machine adds to the phases it times (0.0025 under
         * ASan beside other tests in a bare Debian, 2026-11-27) */
        cr_assert(tflops > 0.005 * 0.25 && tflops <= 0.005 * 1.1, "tflops %f: the model runs at 0.005", tflops);
        cr_assert(json_real_value(json_object_get(r, "busbw_gbs")) > 0);
        cr_assert(json_real_value(json_object_get(r, "checkpoint_gbs")) > 0);
        cr_assert_eq(json_integer_value(json_object_get(r, "checkpoints")), 2);
        json_t *agg = json_object_get(json_object_get(r, "power"), "aggregate");
        double mn = json_real_value(json_object_get(agg, "min_w")), mx = json_real_value(json_object_get(agg, "max_w"));
        cr_assert(mn > 0 && mx > mn);
        cr_assert_float_eq(json_real_value(json_object_get(agg, "range_w")), mx - mn, 0.01);   /* 8 significant digits */
        cr_assert_eq(json_array_size(json_object_get(json_object_get(r, "power"), "per_rank")), 3);
        /* the swing analysis: ramps, bands and the projection are there; the dominant frequency read through the
         * default sensor (a reading every 20 ms, sim.sensor) is a number only below 95 % of its 25 Hz (iterations
         * of 13 ms modelled, longer on a busy machine) and where the iterations are slower than that, else null and
         * named in unresolved: a peak there may be an alias */
        json_t *dom = json_object_get(agg, "dominant_hz");
        if (json_is_number(dom)) {
            double p50 = json_real_value(json_object_get(it, "p50"));
            cr_assert(json_number_value(dom) > 0 && json_number_value(dom) < 0.95 * 25 && 1 / p50 < 0.95 * 25,
                      "dominant %g Hz through a 20 ms sensor, iterations of %g ms", json_number_value(dom), p50 * 1e3);
        } else {
            json_t *u;
            size_t k;
            int named = 0;
            json_array_foreach(json_object_get(agg, "unresolved"), k, u)
                named |= strcmp(json_string_value(json_object_get(u, "figure")), "dominant_hz") == 0;
            cr_assert(json_is_null(dom) && named, "dominant_hz null and named in unresolved");
        }
        cr_assert(json_is_object(json_object_get(agg, "ramp_up_w_s")));
        cr_assert_eq(json_array_size(json_object_get(agg, "bands")), 5);
        json_t *proj = json_object_get(agg, "projection");
        cr_assert_eq(json_integer_value(json_object_get(proj, "gpus")), 10000);
        cr_assert(json_real_value(json_object_get(proj, "swing_mw")) > 0);
    }
    json_decref(s);
}

/* Runs the three-rank scenario with seed and returns the first run's state fingerprint. */
static char *fingerprint(const char *seed)
{
    const char *sc = three_ranks(), *out = e2e_outdir();
    const char *args[] = { "run", sc, "--out", out, "--seed", seed, "--backend", "sim", NULL };
    cr_assert_eq(e2e_run(e2e_log("e2e-seed.log"), args), 0);
    json_t *s = e2e_summary(out);
    char *fp = strdup(json_string_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "state_fingerprint")));
    json_decref(s);
    return fp;
}

Test(e2e, same_seed_same_state, .timeout = 180)
{
    char *a = fingerprint("5"), *b = fingerprint("5"), *c = fingerprint("6");
    cr_assert_str_eq(a, b, "the same seed must give the same model state");
    cr_assert_str_neq(a, c, "another seed must give another model state");
    free(a), free(b), free(c);
}

/* Runs gauntlet with args; checks the exit code and that the output contains want. */
static void cli(int code, const char *want, const char *const *args)
{
    const char *log = e2e_log("e2e-cli.log");
    int rc = e2e_run(log, args);
    char *text = e2e_read(log);
    cr_assert_eq(rc, code, "exit %d, expected %d; output:\n%s", rc, code, text);
    cr_assert(strstr(text, want), "output lacks '%s':\n%s", want, text);
    free(text);
}

Test(cli, exit_codes_and_messages, .timeout = 60)
{
    const char *bad = e2e_scenario("name: x\nranks: 1\niterations: lots\n");
    cli(0, "gauntlet 0.", (const char *[]){ "--version", NULL });
    cli(0, "usage: gauntlet", (const char *[]){ "--help", NULL });
    cli(2, "unknown command 'fly'", (const char *[]){ "fly", NULL });
    cli(2, ":3:13: iterations: expected an integer", (const char *[]){ "check", bad, NULL });
    cli(2, ":3:13: iterations: expected an integer", (const char *[]){ "run", bad, NULL });
    cli(2, "cannot open scenario: No such file", (const char *[]){ "run", "/nonexistent.yaml", NULL });
    cli(2, "gauntlet run: unknown option '--fast'", (const char *[]){ "run", GAUNTLET_SRC "/scenarios/demo.yaml", "--fast", NULL });
    cli(2, "gauntlet run: --seed x: expected an integer in [0, 9000000000000000]", (const char *[]){ "run", GAUNTLET_SRC "/scenarios/demo.yaml", "--seed", "x", NULL });
    /* the key's range: a seed past it wrote a scenario.yaml that its own check refused (exit 2) */
    cli(2, "--seed 9000000000000001: expected an integer in [0, 9000000000000000]",
        (const char *[]){ "run", GAUNTLET_SRC "/scenarios/demo.yaml", "--seed", "9000000000000001", NULL });
    cli(2, "unknown backend 'tpu'", (const char *[]){ "run", GAUNTLET_SRC "/scenarios/demo.yaml", "--backend", "tpu", NULL });
    cli(0, "ok: 'demo'", (const char *[]){ "check", GAUNTLET_SRC "/scenarios/demo.yaml", NULL });
    cli(0, "sim ", (const char *[]){ "list", NULL });
    cli(0, "workload.gemm.dtype", (const char *[]){ "list", "--keys", NULL });
    cli(2, "gauntlet bench: unknown benchmark 'disk'", (const char *[]){ "bench", "disk", NULL });
}

/* Whether dir/name holds text exactly. */
static int holds(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *got = e2e_read(path);
    int same = got && strcmp(got, text) == 0;
    free(got);
    return same;
}

static const char tiny[] = "# my comment\nname: tiny\nranks: 2\niterations: 10\n"
                           "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n";

/* run --out never loses what is there: a folder of the user's own files, or the one holding the scenario being run,
 * is exit 2 with nothing touched; a file, an empty name or a path too long is exit 2 before anything runs; an
 * earlier results folder is run into again. */
Test(cli, run_out_that_would_lose_files_is_exit_2_and_touches_nothing, .timeout = 120)
{
    char dir[64] = "/tmp/gauntlet-e2e-own-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    e2e_own(dir);
    e2e_put(dir, "report.txt", "my notes\n");
    e2e_put(dir, "summary.json", "{}\n");
    const char *sc = e2e_scenario(tiny);
    cli(2, "expected an empty or new folder, or an earlier results folder",
        (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", dir, NULL });
    cr_expect(holds(dir, "report.txt", "my notes\n") && holds(dir, "summary.json", "{}\n"), "a file was changed");
    char lock[128];
    snprintf(lock, sizeof lock, "%s/.lock", dir);
    cr_expect_neq(access(lock, F_OK), 0, "the refused run left .lock");

    char proj[64] = "/tmp/gauntlet-e2e-proj-XXXXXX", scp[128];
    cr_assert_not_null(mkdtemp(proj));
    e2e_own(proj);
    e2e_put(proj, "scenario.yaml", tiny);
    snprintf(scp, sizeof scp, "%s/scenario.yaml", proj);
    cli(2, "holds the scenario being run", (const char *[]){ "run", scp, "--backend", "sim", "--headless", "--out", proj, NULL });
    cr_expect(holds(proj, "scenario.yaml", tiny), "the input scenario was replaced");

    cli(2, "expected a folder", (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", sc, NULL });
    cli(2, "--out: expected a folder name", (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", "", NULL });
    char lng[1200];
    snprintf(lng, sizeof lng, "/tmp/gauntlet-e2e-long/%01100d", 0);
    cli(2, "--out: path too long (1123 characters; at most 1023)",
        (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", lng, NULL });
    cr_expect_neq(access("/tmp/gauntlet-e2e-long", F_OK), 0, "a shortened path was created");
    cli(2, "--metrics-textfile: path too long (1123 characters; at most 511)",
        (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--metrics-textfile", lng, NULL });

    const char *out = e2e_outdir();
    cli(0, "results in", (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL });
    e2e_put(out, "notes.txt", "mine\n");
    cli(0, "results in", (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL });
    cr_expect(holds(out, "notes.txt", "mine\n"), "a file of another name was removed");
}

/* A command whose output is lost (stdout a full disk) says so and exits 3, never 0. */
Test(cli, output_lost_to_a_full_stdout_is_exit_3, .timeout = 60)
{
    const char *sc = e2e_scenario(tiny), *log = e2e_log("e2e-full.log");
    const char *const *cmds[] = { (const char *[]){ "list", NULL }, (const char *[]){ "check", sc, NULL } };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        int rc = e2e_wait(e2e_start_to("/dev/full", log, cmds[i]), 60);
        char *text = e2e_read(log);
        cr_expect_eq(rc, 3, "%s: exit %d:\n%s", cmds[i][0], rc, text);
        cr_expect(text && strstr(text, "stdout: No space left on device"), "%s:\n%s", cmds[i][0], text);
        free(text);
    }
}

/* A benchmark's --seconds past its bound is exit 2 naming the range (1e30 s was cast to an integer: undefined). */
Test(cli, bench_durations_past_their_bound_are_exit_2, .timeout = 60)
{
    const char *over[] = { "1e30", "1e308h", "1e9", "25h" };
    for (size_t i = 0; i < sizeof over / sizeof *over; i++)
        cli(2, "expected a duration from 2 s to 24 h",
                (const char *[]){ "bench", "analysis", "--seconds", over[i], "--gpus", "1", NULL });
    cli(2, "expected a duration > 0 and at most 1 h", (const char *[]){ "bench", "sampling", "--seconds", "1e12", NULL });
    cli(2, "expected a duration > 0 and at most 1 h", (const char *[]){ "bench", "sampling", "--seconds", "2h", NULL });
    /* each option within its range, together past the memory: sized before anything is allocated (2.8 TB asked) */
    cli(2, "more than half the memory this process may use",
        (const char *[]){ "bench", "analysis", "--seconds", "24h", "--gpus", "4096", NULL });
}

Test(cli, cuda_without_a_gpu_exits_3_with_the_cause, .timeout = 60)
{
    char why[256];
    if (backend_find("cuda")->probe(why, sizeof why) == 0)
        cr_skip_test("a usable GPU is present: the no-GPU path cannot be checked here");
    const char *log = e2e_log("e2e-cuda.log");
    const char *out = e2e_outdir();
    int rc = e2e_run(log, (const char *[]){ "run", GAUNTLET_SRC "/scenarios/demo.yaml", "--backend", "cuda", "--out", out, NULL });
    char *text = e2e_read(log);
    cr_assert_eq(rc, 3, "exit %d:\n%s", rc, text);
    cr_assert(strstr(text, "--backend cuda: cannot run here: "), "%s", text);
    free(text);
}

Test(cli, srun_without_pmi_exits_3_naming_the_fix, .timeout = 60)
{
    /* what srun (MpiDefault=none, no --mpi) gives each of two tasks: Slurm's variables, no PMI's */
    const char *pmi[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS" };
    for (size_t i = 0; i < sizeof pmi / sizeof *pmi; i++)
        unsetenv(pmi[i]);
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_STEP_NUM_TASKS", "2", 1);
    const char *log = e2e_log("e2e-srun.log");
    const char *cmds[][8] = {
        { "run", GAUNTLET_SRC "/scenarios/demo.yaml", "--backend", "sim", "--out", e2e_outdir(), NULL },
        { "accept", "--level", "1", "--backend", "sim", "--out", e2e_outdir(), },
    };
    for (size_t c = 0; c < 2; c++) {
        int rc = e2e_run(log, cmds[c]);
        char *text = e2e_read(log);
        cr_assert_eq(rc, 3, "%s: exit %d:\n%s", cmds[c][0], rc, text);
        cr_assert(strstr(text, "started by srun as task 1 of 2 without PMI") && strstr(text, "srun --mpi=pmix") &&
                      strstr(text, "MpiDefault=pmix"), "%s", text);
        free(text);
    }
    unsetenv("SLURM_PROCID");
    unsetenv("SLURM_STEP_NUM_TASKS");
}

Test(cli, auto_says_which_backend_it_picked, .timeout = 60)
{
    const char *log = e2e_log("e2e-auto.log");
    const char *sc = e2e_scenario("name: auto\nranks: 1\niterations: 2\nworkload:\n  gemm: {m: 64, n: 64, k: 64}\n"
                                  "  allreduce: {bytes: 1MiB}\n");
    int rc = e2e_run(log, (const char *[]){ "run", sc, "--out", e2e_outdir(), NULL });
    char *text = e2e_read(log);
    cr_assert_eq(rc, 0, "%s", text);
    cr_assert(strstr(text, "gauntlet: backend sim (auto: cuda unavailable: ") || strstr(text, "gauntlet: backend cuda (auto"),
              "%s", text);
    free(text);
}

Test(cli, analyze_reads_ours_and_nvidia_smi, .timeout = 60)
{
    /* nvidia-smi --query-gpu=timestamp,index,power.draw --format=csv -lms 10, two GPUs, a 2 Hz square wave */
    char path[] = "/tmp/gauntlet-smi-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "timestamp, index, power.draw [W]\n");
    for (int i = 0; i < 1000; i++)
        for (int g = 0; g < 2; g++)
            fprintf(f, "2026/11/23 07:00:%06.3f, %d, %.2f W\n", i * 0.01, g, (i / 25) % 2 ? 120.0 : 690.0);
    fclose(f);
    const char *log = e2e_log("analyze.log");
    cr_assert_eq(e2e_run(log, (const char *[]){ "analyze", path, "--json", NULL }), 0);
    char *text = e2e_read(log);   /* power.draw: a 1 s average on Ampere and newer, said on stderr before the JSON */
    cr_assert(text && strstr(text, "warning: the power column is one that Ampere and newer GPUs average over 1 s"), "%s",
              text ? text : "");
    json_error_t err;
    json_t *j = json_loads(strchr(text, '{') ?: "", 0, &err);
    cr_assert(j, "analyze --json is not JSON: %s", err.text);
    /* its figures in 17 significant digits, as summary.json's (until 2026-11-30 8: a figure a hair from a limit read
     * as equal to it): a figure that is not round shows more than 8 */
    int most = 0;
    for (const char *p = strchr(text, '{'); p && *p; p++) {
        if (!(*p >= '0' && *p <= '9') || (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.')
            continue;
        int n = 0, lead = 1;
        for (const char *q = p; (*q >= '0' && *q <= '9') || *q == '.'; q++)
            if (*q != '.' && !(lead && *q == '0'))
                n++, lead = 0;
        most = n > most ? n : most;
    }
    cr_assert_geq(most, 15, "no figure of analyze --json has more than %d significant digits", most);
    free(text);
    json_t *agg = json_object_get(j, "aggregate");
    cr_assert_float_eq(json_real_value(json_object_get(agg, "swing_w")), 2 * 570.0, 1e-6);
    cr_assert_float_eq(json_real_value(json_object_get(agg, "dominant_hz")), 2.0, 0.05);
    cr_assert_eq(json_array_size(json_object_get(j, "per_gpu")), 2);
    cr_assert(json_is_object(json_object_get(agg, "projection")));
    json_decref(j);
    const char *bad = e2e_scenario("when,what\n1,2\n");
    cli(2, ":1: expected a header with a time column", (const char *[]){ "analyze", bad, NULL });
    cli(2, "No such file", (const char *[]){ "analyze", "/nonexistent.csv", NULL });
    unlink(path);
}

/* The headless progress lines are a view of the run's events: each run's first line has no rate yet, no rate is
 * ever negative (a run's count starts at its own first line), and every run of the scenario gets lines. */
Test(e2e, progress_lines_count_each_run_on_its_own, .timeout = 120)
{
    static const char text[] = "name: progress\nranks: 2\niterations: 30\nseed: 3\n"
                               "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n"
                               "sim: {tflops: 0.01}\npower: {sample_hz: 50}\nmitigations: [none, filler]\n";
    const char *sc = e2e_scenario(text), *out = e2e_outdir(), *log = e2e_log("e2e-progress.log");
    const char *args[] = { "run", sc, "--backend", "sim", "--headless", "--out", out, NULL };
    cr_assert_eq(e2e_run(log, args), 0);
    char *all = e2e_read(log);
    int lines = 0, runs_seen[3] = { 0 };
    for (const char *p = all; (p = strstr(p, "gauntlet: run ")); p++) {
        int run, runs;
        long long it, total;
        double rate = NAN;
        char label[32], rtext[32];
        cr_assert_eq(sscanf(p, "gauntlet: run %d/%d %31s iter %lld/%lld %31s it/s", &run, &runs, label, &it, &total, rtext), 6,
                     "%.120s", p);
        cr_assert_eq(runs, 2);
        cr_assert(strcmp(rtext, "-") == 0 || (sscanf(rtext, "%lf", &rate) == 1 && rate >= 0),
                  "a rate that is neither a figure >= 0 nor '-' (none yet): %.120s", p);
        char bar[16];
        int pct = -1;
        const char *b = strstr(p, "it/s  [");   /* the bar and the share done: this line's own count */
        cr_assert(b && sscanf(b, "it/s  [%10[#-]] %d%%", bar, &pct) == 2, "%.160s", p);
        cr_assert_eq(pct, (int)(100 * it / total), "%.160s", p);
        cr_assert_eq((long)(strchr(bar, '-') ? strchr(bar, '-') - bar : 10), (long)(10 * it / total), "%.160s", p);
        cr_assert(strstr(b, "% eta ") || strstr(b, "%  eta "), "the time left: %.160s", p);
        if (!runs_seen[run])
            cr_assert(strcmp(rtext, "-") == 0, "the first line of run %d has a rate: %.120s", run, p);
        runs_seen[run]++;
        lines++;
    }
    cr_assert(runs_seen[1] && runs_seen[2], "lines for both runs:\n%s", all);
    free(all);
}

/* Runs `gauntlet args` (words apart by single spaces, none quoted) with stdout and stderr apart, no shell between;
 * returns the exit code (128 + signal). */
static int cli_apart(const char *args, char **out, char **err)
{
    char words[1024], *argv[32];
    int n = 0;
    str_copy(words, sizeof words, args);
    char *at;
    for (char *w = strtok_r(words, " ", &at); w && n < 31; w = strtok_r(NULL, " ", &at))
        argv[n++] = w;
    argv[n] = NULL;
    const char *outp = e2e_log("cli.out"), *errp = e2e_log("cli.err");
    int rc = e2e_wait(e2e_start_to(outp, errp, (const char *const *)argv), 60);
    cr_assert_neq(rc, -1, "gauntlet %s: still running after 60 s", args);
    *out = e2e_read(outp);
    *err = e2e_read(errp);
    cr_assert(*out && *err);
    return rc;
}

/* Every command `gauntlet --help` lists (and every benchmark `bench --help` lists) answers --help and -h with its
 * usage on stdout and exit 0, names an unknown flag with its usage on stderr and exit 2, and a command that reads a
 * file or folder says which one is missing, exit 2. The list is the binary's own: a new command is walked too. */
Test(cli, every_command_answers_help_a_bad_flag_and_a_missing_file, .timeout = 120)
{
    char *out, *err, names[32][48];
    int n = 0;
    cr_assert_eq(cli_apart("--help", &out, &err), 0);
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))   /* "  run SCENARIO.yaml   one line" */
        if (line[0] == ' ' && line[1] == ' ' && line[2] != '-' && n < 32 && sscanf(line, " %47s", names[n]) == 1)
            n++;
    free(out), free(err);
    cr_assert_geq(n, 9, "the commands listed: %d", n);
    int listed = n;
    for (int i = 0; i < listed; i++)
        if (strcmp(names[i], "bench") == 0) {   /* its benchmarks, as `bench --help` lists them */
            cr_assert_eq(cli_apart("bench --help", &out, &err), 0, "%s", err);
            for (char *p = out; (p = strstr(p, "\n  bench ")) && n < 32; p++)
                if (sscanf(p + 9, "%40s", names[n] + 6) == 1)
                    memcpy(names[n++], "bench ", 6);
            free(out), free(err);
        }
    for (int i = 0; i < n; i++) {
        char args[128], usage[80];
        snprintf(usage, sizeof usage, "usage: gauntlet %s", names[i]);
        int gpu_only = strcmp(names[i], "bench gemm") == 0 || strcmp(names[i], "bench allreduce") == 0;
        for (int h = 0; h < 2; h++) {
            snprintf(args, sizeof args, "%s %s", names[i], h ? "-h" : "--help");
            int rc = cli_apart(args, &out, &err);
            if (gpu_only && rc == 3 && strstr(err, "no cuda backend")) {   /* a build without CUDA says so */
                free(out), free(err);
                continue;
            }
            cr_assert_eq(rc, 0, "%s: exit %d\n%s%s", args, rc, out, err);
            cr_assert(strncmp(out, usage, strlen(usage)) == 0, "%s: the usage on stdout:\n%s", args, out);
            free(out), free(err);
        }
        if (gpu_only)
            continue;
        snprintf(args, sizeof args, "%s --no-such-flag", names[i]);
        int rc = cli_apart(args, &out, &err);
        cr_assert_eq(rc, 2, "%s: exit %d\n%s", args, rc, err);
        cr_assert(strstr(err, "unknown option '--no-such-flag'") && strstr(err, usage), "%s:\n%s", args, err);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "gauntlet %s: ", strncmp(names[i], "bench ", 6) == 0 ? "bench" : names[i]);
        cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "%s: the message's prefix is not '%s':\n%s", args, prefix, err);
        free(out), free(err);
    }
    const char *const reads[] = { "run", "check", "report", "view", "analyze", "summarize" };   /* a missing file or folder */
    for (size_t i = 0; i < sizeof reads / sizeof *reads; i++) {
        char args[128];
        snprintf(args, sizeof args, "%s /no/such/place", reads[i]);
        int rc = cli_apart(args, &out, &err);
        cr_assert_eq(rc, 2, "%s: exit %d\n%s", args, rc, err);
        cr_assert(strstr(err, "/no/such/place") && !strstr(err, ".c:"), "%s: names the path, no source path:\n%s", args,
                  err);
        free(out), free(err);
    }
}

/* check's estimate is the model's arithmetic: 4 ranks, GEMM 1000^3 x 5 at 2 TFLOP/s = 5 ms; an all-reduce of 8 MB at
 * 4 GB/s over 4 ranks = 8e6 x 2 x 3/4 / 4e9 = 3 ms, plus 1 ms latency: 9 ms an iteration; 3 runs x 200 iterations =
 * 5.4 s. At the rates given (--tflops 1 --busbw 2): 10 + 6 + 1 = 17 ms, 10.2 s. */
Test(cli, check_estimates_the_time_from_the_model_s_arithmetic, .timeout = 30)
{
    const char *sc = e2e_scenario("name: est\nranks: 4\niterations: 200\nseed: 1\n"
                                  "workload:\n  gemm: {m: 1000, n: 1000, k: 1000, count: 5}\n  allreduce: {bytes: 8000000}\n"
                                  "sim: {tflops: 2, busbw: 4, latency: 1ms}\nmitigations: [none, filler, ramp]\n");
    char args[512], *out, *err;
    double it_s = 0;
    snprintf(args, sizeof args, "check %s", sc);
    cr_assert_eq(cli_apart(args, &out, &err), 0, "%s", err);
    const char *p = strstr(out, "3 runs x 200 iterations x ");
    cr_assert(p && sscanf(p + 26, "%lf", &it_s) == 1, "%s", out);
    cr_assert_float_eq(it_s, 0.009, 1e-9, "an iteration: %g s", it_s);
    cr_assert(strstr(out, "about 0h00m05s on sim's model"), "5.4 s in all:\n%s", out);
    free(out), free(err);
    snprintf(args, sizeof args, "check %s --tflops 1 --busbw 2", sc);
    cr_assert_eq(cli_apart(args, &out, &err), 0, "%s", err);
    p = strstr(out, "3 runs x 200 iterations x ");
    cr_assert(p && sscanf(p + 26, "%lf", &it_s) == 1, "%s", out);
    cr_assert_float_eq(it_s, 0.017, 1e-9, "at the rates given: %g s", it_s);
    cr_assert(strstr(out, "about 0h00m10s at the rates given"), "%s", out);
    free(out), free(err);
}

/* A run's supervisor says who and where on stderr (README: `gauntlet[supervisor@HOST]:`): a rank that died under
 * recovery none ends the run early, exit 1, and the line naming it starts with the supervisor's role and host. */
Test(cli, the_supervisor_names_itself_and_its_host_and_a_death_is_exit_1, .timeout = 60)
{
    const char *sc = e2e_scenario("name: died\nranks: 2\niterations: 10\n"
                                  "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                                  "faults:\n  - {kind: crash, at: 3, rank: 1}\n");
    char args[1400], host[256] = "", want[400], *out, *err;
    cr_assert_eq(gethostname(host, sizeof host - 1), 0, "gethostname: %s", strerror(errno));
    snprintf(args, sizeof args, "run %s --backend sim --headless --out %s", sc, e2e_outdir());
    cr_assert_eq(cli_apart(args, &out, &err), 1, "a rank died: exit 1\n%s", err);
    snprintf(want, sizeof want, "gauntlet[supervisor@%s]: rank 1: ", host);
    const char *line = strstr(err, want);
    cr_assert(line && (line == err || line[-1] == '\n'), "no line starts with '%s':\n%s", want, err);
    free(out), free(err);
}

/* A line that starts with prefix in text (whole lines only), or NULL. */
static const char *line_starting(const char *text, const char *prefix)
{
    for (const char *p = text; (p = strstr(p, prefix)); p++)
        if (p == text || p[-1] == '\n')
            return p;
    return NULL;
}

/* A worker says who and where on stderr as the supervisor does (README: `gauntlet[rank 3@HOST]:`): rank 1's
 * checkpoint write fails (its fsync EIO, tests/stall_preload.c), and the worker's own line names its rank and host,
 * the supervisor's line names itself and the rank that failed. */
Test(cli, a_worker_names_its_rank_and_its_host, .timeout = 60)
{
    char text[512], args[1400], host[256] = "", want[400], *out, *err;
    snprintf(text, sizeof text, "name: ckeio\nranks: 2\niterations: 10\n"
                                "workload:\n  gemm: {m: 64, n: 64, k: 64, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                                "  checkpoint: {every: 3, bytes: 64KiB, path: %s}\n", e2e_tmpdir());
    const char *sc = e2e_scenario(text);
    cr_assert_eq(gethostname(host, sizeof host - 1), 0, "gethostname: %s", strerror(errno));
    snprintf(args, sizeof args, "run %s --backend sim --headless --out %s", sc, e2e_outdir());
    /* rank 1's first checkpoint (after iteration 3: generation 1) */
    e2e_preload(STALL_PRELOAD, (const char *[]){ "GAUNTLET_TEST_FSYNC_EIO=-rank1-1.ckpt.tmp", NULL });
    int rc = cli_apart(args, &out, &err);
    e2e_preload_end();
    cr_assert_eq(rc, 3, "a checkpoint that cannot be written: exit 3, got %d\n%s", rc, err);
    snprintf(want, sizeof want, "gauntlet[rank 1@%s]: checkpoint at iteration 2: write ", host);
    const char *line = line_starting(err, want);
    cr_assert(line, "no line starts with '%s':\n%s", want, err);
    static const char tail[] = "-rank1-1.ckpt.tmp: Input/output error";   /* the file, the error */
    size_t len = strcspn(line, "\n");
    cr_assert(len > sizeof tail && memcmp(line + len - (sizeof tail - 1), tail, sizeof tail - 1) == 0,
              "the line does not end with '%s':\n%s", tail, err);
    snprintf(want, sizeof want, "gauntlet[supervisor@%s]: rank 1 failed: checkpoint at iteration 2: write ", host);
    cr_assert(line_starting(err, want), "no line starts with '%s':\n%s", want, err);
    cr_assert(!line_starting(err, "gauntlet[rank 0@"), "rank 0 had nothing to say:\n%s", err);
    free(out), free(err);
}

/* README: a failed system call is named with its error, and GAUNTLET_DEBUG=1 adds where in the source it was
 * (" at FILE:LINE"); unset, empty or 0 it does not. The call: the fflush of `bench sampling`'s table into a full
 * stdout (/dev/full), NVML the stand-in's. */
Test(cli, gauntlet_debug_adds_where_in_the_source_a_failed_call_was, .timeout = 120)
{
#ifndef NVML_STANDIN
    cr_skip_test("no NVML stand-in in this build (tests/nvml_standin.c)");
#else
    cr_assert_eq(setenv("GAUNTLET_NVML_LIB", NVML_STANDIN, 1), 0);
    const char *had = getenv("GAUNTLET_DEBUG");
    char *kept = had ? strdup(had) : NULL;
    const char *values[] = { "1", NULL, "", "0" };
    const char *log = e2e_log("debug.log");
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        if (values[i])
            cr_assert_eq(setenv("GAUNTLET_DEBUG", values[i], 1), 0);
        else
            unsetenv("GAUNTLET_DEBUG");
        int rc = e2e_wait(e2e_start_to("/dev/full", log, (const char *[]){ "bench", "sampling", "--seconds", "0.1",
                                                                          NULL }), 60);
        char *text = e2e_read(log);
        const char *v = values[i] ? values[i] : "(unset)";
        cr_assert_eq(rc, 3, "GAUNTLET_DEBUG=%s: exit %d\n%s", v, rc, text);
        const char *at = line_starting(text, "gauntlet bench: fflush failed");
        cr_assert(at, "GAUNTLET_DEBUG=%s: no line names the failed call:\n%s", v, text);
        at += strlen("gauntlet bench: fflush failed");
        if (i == 0) {
            const char *src = strstr(at, "harness/power/nvml_probe.c:");
            int line = 0, n = 0;
            cr_assert(strncmp(at, " at ", 4) == 0 && src && strchr(at, '\n') > src &&
                          sscanf(src + 27, "%d: No space left on device%n", &line, &n) == 1 && n > 0 && line > 0,
                      "GAUNTLET_DEBUG=1: no ' at FILE:LINE' before the error:\n%s", text);
        } else {
            cr_assert(strncmp(at, ": No space left on device\n", 26) == 0,
                      "GAUNTLET_DEBUG=%s: more than the error:\n%s", v, text);
        }
        free(text);
    }
    if (kept)
        setenv("GAUNTLET_DEBUG", kept, 1);
    else
        unsetenv("GAUNTLET_DEBUG");
    free(kept);
#endif
}

Test(e2e, every_communication_phase_names_its_collective, .timeout = 120)
{
    /* the GPU test's phases (every step kind, two collectives overlapped) on sim: each comm edge says which collective,
     * an exposed wait the overlapped one's; the simple iteration's all-reduce says allreduce */
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("kinds.log"), (const char *[]){ "run", e2e_gpu_scenario("e2e-phases.yaml"), "--backend",
                                                                   "sim", "--headless", "--out", out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("kinds.log"));
    char path[1024];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    int seen[8] = { 0 }, unnamed = 0;
    const char *names[] = { "allreduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv" };
    for (char *line = ev, *nl; *line && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        const char *what = json_string_value(json_object_get(o, "event")), *ph = json_string_value(json_object_get(o, "phase"));
        if (what && ph && strcmp(what, "phase_begin") == 0 && strcmp(ph, "comm") == 0) {
            const char *k = json_string_value(json_object_get(o, "kind"));
            unnamed += !k;
            for (int i = 0; k && i < 5; i++)
                seen[i] += strcmp(k, names[i]) == 0;
        }
        json_decref(o);
    }
    free(ev);
    cr_assert_eq(unnamed, 0, "every communication phase names its collective");
    for (int i = 1; i < 5; i += 2)   /* the steps of their own (allreduce and all_gather overlap: named where an exposed
                                      * part is waited for, which one rank on sim may not have) */
        cr_assert_gt(seen[i], 0, "%s named", names[i]);
    cr_assert_gt(seen[4], 0, "send_recv named");
    /* one rank has no bus: busbw null in the run's summary and in summarize's (until 2026-11-30 a number) */
    json_t *one = e2e_summary(out);
    cr_assert(json_is_null(json_object_get(json_array_get(json_object_get(one, "runs"), 0), "busbw_gbs")),
              "one rank's busbw is null");
    json_decref(one);
    /* the same phases on 2 ranks: each step that ran alone has its bus bytes in its edge: summarize's busbw (the
     * median of those steps', as the run's own) is the run's; until 2026-11-29 it took every communication phase's
     * bytes, overlapped ones too */
    char *text = e2e_read(e2e_gpu_scenario("e2e-phases.yaml")), *at = text ? strstr(text, "\nranks: 1\n") : NULL;
    cr_assert(at, "e2e-phases.yaml runs 1 rank");
    at[8] = '2';
    out = e2e_outdir();
    rc = e2e_run(e2e_log("kinds2.log"), (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--headless",
                                                          "--out", out, NULL });
    free(text);
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("kinds2.log"));
    json_t *live = e2e_summary(out);
    double bus = json_number_value(json_object_get(json_array_get(json_object_get(live, "runs"), 0), "busbw_gbs"));
    json_decref(live);
    snprintf(path, sizeof path, "%s/summary.json", out);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(e2e_run(e2e_log("kinds-sz.log"), (const char *[]){ "summarize", out, NULL }), 0);
    json_t *s = e2e_summary(out);
    double bus2 = json_number_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "busbw_gbs"));
    json_decref(s);
    cr_assert(bus > 0 && fabs(bus2 - bus) <= 0.02 * bus, "busbw: summarize %g GB/s, the run's own %g", bus2, bus);
}

/* No shell between outside input and a process: the numpy reference of `bench analysis` gets its trace (a file made
 * in TMPDIR) and the interpreter as an argument vector. A TMPDIR that a shell would run a command from leaves no trace
 * of it, whether numpy is there (exit 0) or not (exit 3). */
Test(cli, bench_analysis_runs_its_reference_without_a_shell, .timeout = 120)
{
    char dir[] = "/tmp/gauntlet-e2e-tmp-XXXXXX", tmp[256], marker[64];
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    snprintf(marker, sizeof marker, "gauntlet-pwned-%d", (int)getpid());   /* a shell would make it in this folder */
    unlink(marker);
    snprintf(tmp, sizeof tmp, "%s/t'$(touch %s)'", dir, marker);
    cr_assert_eq(mkdir(tmp, 0700), 0, "%s", tmp);
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    cr_assert_eq(setenv("TMPDIR", tmp, 1), 0);
    const char *python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    int rc = e2e_run(e2e_log("e2e-bench.log"), (const char *[]){ "bench", "analysis", "--seconds", "2s", "--gpus", "1",
                                                                        "--reference", "numpy", "--python", python, NULL });
    if (saved) {
        setenv("TMPDIR", saved, 1);
        free(saved);
    } else {
        unsetenv("TMPDIR");
    }
    char *log = e2e_read(e2e_log("e2e-bench.log"));
    cr_assert(rc == 0 || rc == 3, "exit %d:\n%s", rc, log);
    cr_assert(access(marker, F_OK) != 0, "a shell ran the command in TMPDIR:\n%s", log);
    free(log);
    rmdir(tmp);
    rmdir(dir);
}

/* An iteration's time is all of its work: a synchronous fingerprint, hashed after the all-reduce's end, is inside it
 * (it was outside every span once: on an H200 the iteration p50 with it read 1.8 % below none's while each iteration
 * started 5.6 % later). On sim the hash is the CPU's (2 x 4 MiB here, a few ms against phases of about 2 ms), so
 * each iteration's dur_s is most of the time from its start to the next one's (a ratio in one run: a busy machine
 * stretches both). */
Test(e2e, an_iteration_includes_the_checks_after_its_last_phase, .timeout = 120)
{
    const char *sc = e2e_scenario("name: fp-in-iteration\nranks: 2\niterations: 10\nworkload:\n"
                                  "  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 4MiB}\n"
                                  "sim: {max_elems: 1048576}\ndetectors: [fingerprint]\n");
    const char *out = e2e_outdir();
    int rc = e2e_run(e2e_log("fp-iter.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out",
                                                                    out, NULL });
    cr_assert_eq(rc, 0, "exit %d, see %s", rc, e2e_log("fp-iter.log"));
    char path[1024];
    snprintf(path, sizeof path, "%s/events.jsonl", out);
    char *ev = e2e_read(path);
    double begin[2][16], dur[2][16];
    int nb[2] = { 0 }, nd[2] = { 0 };
    for (char *line = ev, *nl; *line && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        const char *what = json_string_value(json_object_get(o, "event")), *ph = json_string_value(json_object_get(o, "phase"));
        int r = (int)json_integer_value(json_object_get(o, "rank"));
        if (what && r >= 0 && r < 2) {
            if (strcmp(what, "phase_begin") == 0 && ph && strcmp(ph, "compute") == 0 && nb[r] < 16)
                begin[r][nb[r]++] = json_number_value(json_object_get(o, "t_s"));
            if (strcmp(what, "iteration") == 0 && nd[r] < 16)
                dur[r][nd[r]++] = json_number_value(json_object_get(o, "dur_s"));
        }
        json_decref(o);
    }
    free(ev);
    for (int r = 0; r < 2; r++) {
        cr_assert_eq(nb[r], 10, "rank %d: %d compute phases", r, nb[r]);
        cr_assert_eq(nd[r], 10, "rank %d: %d iterations", r, nd[r]);
        double ratio[9];
        for (int k = 0; k < 9; k++)
            ratio[k] = dur[r][k] / (begin[r][k + 1] - begin[r][k]);
        for (int i = 1; i < 9; i++)   /* the median of the 9 */
            for (int j = i; j > 0 && ratio[j - 1] > ratio[j]; j--) {
                double x = ratio[j];
                ratio[j] = ratio[j - 1];
                ratio[j - 1] = x;
            }
        cr_log_info("rank %d: an iteration's dur_s over the time to the next one's start: median %.3f", r, ratio[4]);
        cr_assert_geq(ratio[4], 0.8, "rank %d: iterations cover %.0f %% of their time: the fingerprint is outside them", r,
                      100 * ratio[4]);
    }
}

/* A checkpoint's bytes are what is on disk: the header and the whole state, repeated to workload.checkpoint.bytes
 * when that is more, never the asked size when the state is larger (until 2026-11-30 a 4 KiB ask over a 256 KiB
 * state counted 4,096 bytes a checkpoint: checkpoint_gbs 64 times too low). Each checkpoint's bytes (sync: its
 * phase's; async: its checkpoint_written's) equal what a restart's restore reads back from the file (its size). The
 * crash at 16: an async checkpoint 15 waited for checkpoint 5's buffer (two buffers), so 5 at least is on storage on
 * both ranks (at 13, 1.6 ms iterations under load once restarted from 0: nothing restored, 2026-11-30). */
Test(e2e, a_checkpoints_bytes_are_what_is_on_disk, .timeout = 180)
{
    static const char *const modes[] = { "sync", "async" };
    for (int m = 0; m < 2; m++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "name: ckbytes\nranks: 2\niterations: 20\nseed: 3\n"
                 "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 1}\n  allreduce: {bytes: 64KiB}\n"
                 "  checkpoint: {every: 5, bytes: 4KiB, path: %s, mode: %s}\n"
                 "heartbeat: {interval: 50ms, timeout: 800ms}\n"
                 "faults: [{kind: crash, at: 16, rank: 1}]\nrecovery: restart\n", e2e_tmpdir(), modes[m]);
        const char *out = e2e_outdir(), *sc = e2e_scenario(text);
        cr_assert_eq(e2e_run(e2e_log("ckbytes.log"), (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", out, NULL }), 0,
                     "%s", modes[m]);
        char path[600];
        snprintf(path, sizeof path, "%s/events.jsonl", out);
        FILE *f = fopen(path, "r");
        cr_assert(f);
        char line[8192];
        double wrote = -1, read = -1;
        int phases = 0;
        while (fgets(line, sizeof line, f)) {
            json_t *ev = json_loads(line, 0, NULL);
            const char *type = json_string_value(json_object_get(ev, "event"));
            double b = json_number_value(json_object_get(ev, "bytes"));
            int sync_end = type && !strcmp(type, "phase_end") &&
                           !strcmp(json_string_value(json_object_get(ev, "phase")) ?: "", "checkpoint");
            if (((m == 0 && sync_end) || (m == 1 && type && !strcmp(type, "checkpoint_written"))) &&
                json_is_number(json_object_get(ev, "bytes")) && b > 0) {
                cr_assert(wrote < 0 || b == wrote, "%s: every checkpoint the same size: %g and %g", modes[m], b, wrote);
                wrote = b;
                phases++;
            } else if (type && !strcmp(type, "state_restored")) {
                read = b;
                /* the iteration restored, in the event as in its note: the crash at 16 rolls back to a checkpoint
                 * (15, or 10 where an async write of 15 was not yet checked; until 2026-12-02 a restarted process
                 * said iteration 0) */
                long long it = json_integer_value(json_object_get(ev, "iter")), said = -1;
                const char *from = json_string_value(json_object_get(ev, "from"));
                cr_assert(from && sscanf(from, "checkpoint of iteration %lld", &said) == 1, "%s: %s", modes[m], line);
                cr_assert(it == said && it > 0 && it % 5 == 0, "%s: %s", modes[m], line);
            }
            json_decref(ev);
        }
        fclose(f);
        cr_assert(phases > 0 && read > 0, "%s: %d checkpoint phases with bytes, a restore of %g bytes", modes[m], phases, read);
        cr_assert_eq(wrote, read, "%s: a checkpoint counts %g bytes, its file holds %g", modes[m], wrote, read);
        cr_assert_gt(wrote, 4096, "%s: the state is larger than the 4 KiB asked", modes[m]);
    }
}


/* Options: a value that looks like an option is refused (`--out --headless` made a folder named --headless), an
 * option given twice is refused (the last silently won), `-h` as an option's value is that value and no help; a
 * summarize of a file is bad input (exit 2, as report and view say); an --out that is not UTF-8 is refused before
 * anything runs (its start event was written empty). Until 2026-11-30 each of these went through. */
Test(cli, option_values_and_folders_are_what_they_look_like, .timeout = 60)
{
    const char *demo = GAUNTLET_SRC "/scenarios/demo.yaml";
    cli(2, "--out: expected DIR after it, got the option '--headless' (a value that starts with '--': --NAME=VALUE)",
        (const char *[]){ "run", demo, "--out", "--headless", NULL });
    cli(2, "--backend given twice", (const char *[]){ "run", demo, "--backend", "sim", "--backend", "sim", NULL });
    cli(2, "--seed -h: expected an integer", (const char *[]){ "run", demo, "--seed", "-h", NULL });
    cli(2, "not a results folder", (const char *[]){ "summarize", demo, NULL });
    cli(2, "--out: expected a folder name in UTF-8", (const char *[]){ "run", demo, "--out", "/tmp/gauntlet-\xff", NULL });
}

/* A run whose stdout and stderr the caller closed (`gauntlet run x.yaml >&- 2>&-`) runs to its end: the control
 * block never takes a standard descriptor's number (until 2026-11-30 the progress lines were written over it and the
 * run hung). */
Test(cli, a_run_with_its_output_closed_runs_to_its_end, .timeout = 120)
{
    const char *sc = e2e_scenario(tiny), *out = e2e_outdir();
    pid_t p = fork();
    cr_assert(p >= 0);
    if (p == 0) {
        close(1);
        close(2);
        execl(e2e_bin(), "gauntlet", "run", sc, "--backend", "sim", "--headless", "--out", out, (char *)NULL);
        _exit(127);
    }
    cr_assert_eq(e2e_wait(p, 90), 0, "the run ends with exit 0");
    json_t *s = e2e_summary(out);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "iterations")), 10);
    json_decref(s);
}

/* Runs started in the same second with no --out each take a folder of their own: the name is claimed as it is
 * picked (until 2026-11-30 both saw it free, and the second cleared the first's results). */
Test(cli, default_folders_picked_at_once_are_each_their_own)
{
    char root[] = "/tmp/gauntlet-defdir-XXXXXX", a[512], b[512], c[512];
    cr_assert(mkdtemp(root));
    e2e_own(root);
    results_default_dir(a, sizeof a, root, "x", 1);
    results_default_dir(b, sizeof b, root, "x", 1);
    results_default_dir(c, sizeof c, root, "x", 0);   /* not claimed (several nodes): the next free name */
    cr_assert_str_neq(a, b);
    cr_assert_str_neq(b, c);
    struct stat st;
    cr_assert(stat(a, &st) == 0 && S_ISDIR(st.st_mode) && stat(b, &st) == 0 && S_ISDIR(st.st_mode), "%s, %s", a, b);
    cr_assert_neq(stat(c, &st), 0, "an unclaimed name is not made: %s", c);
    rmdir(a), rmdir(b), rmdir(root);
}

/* Whether process pid has a descriptor open on path (its /proc/PID/fd links); -1 when they cannot be read. */
static int e2e_holds(pid_t pid, const char *path)
{
    char dir[64], link[PATH_MAX + 64], to[PATH_MAX];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, to, sizeof to - 1);
        if (n > 0) {
            to[n] = 0;
            found = strcmp(to, path) == 0;
        }
    }
    closedir(d);
    return found;
}

/* A descriptor the caller left open without close-on-exec (a lock, the write end of a pipe it waits on for its end)
 * stays the supervisor's and reaches no worker: a worker may outlive the supervisor (one left behind in a kernel call)
 * and would hold the caller's lock or keep its pipe open. Until 2026-11-30 every worker held every such one. */
Test(e2e, a_callers_descriptor_reaches_no_worker, .timeout = 120)
{
    char marker[] = "/tmp/gauntlet-fd-marker-XXXXXX";
    int fd = mkstemp(marker);   /* not close-on-exec: the run inherits it, as from a shell's `exec 7>lock` */
    cr_assert_geq(fd, 0);
    e2e_own(marker);
    const char *sc = e2e_scenario("name: fds\nranks: 2\niterations: 4000\n"
                                  "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n"
                                  "sim: {tflops: 0.005}\n");
    const char *out = e2e_outdir(), *log = e2e_log("e2e-fds.log");
    pid_t sup = e2e_start(log, (const char *[]){ "run", sc, "--out", out, "--backend", "sim", "--headless", NULL });
    close(fd);   /* the test's own copy: only the run's remain */
    cr_assert_eq(e2e_wait_started(out, 2 * 2, 60), 0, "the run did not start; see %s", log);
    pid_t w[2];
    cr_assert_eq(e2e_worker_pids(out, w, 2), 2, "see %s", log);
    cr_expect_eq(e2e_holds(sup, marker), 1, "the supervisor holds the descriptor it inherited (the test's premise)");
    for (int r = 0; r < 2; r++)
        cr_expect_eq(e2e_holds(w[r], marker), 0, "rank %d's worker (pid %d) holds the caller's descriptor", r, (int)w[r]);
    cr_assert_eq(kill(sup, SIGINT), 0);
    cr_expect_eq(e2e_wait(sup, 60), 1, "stopped by SIGINT; see %s", log);
    unlink(marker);
}

/* `--version` names the backends built in: every backend `gauntlet list` shows but the ones it says were built
 * without their toolkit (until 2026-11-30 a build without CUDA said "backends: cuda sim"). */
Test(cli, the_version_names_the_backends_built_in, .timeout = 60)
{
    const char *log = e2e_log("e2e-version.log");
    cr_assert_eq(e2e_run(log, (const char *[]){ "list", NULL }), 0);
    char *list = e2e_read(log), want[256] = "";
    cr_assert(list);
    const char *end = strstr(list, "\nmitigations:");
    cr_assert(end, "%s", list);
    int n = 0;
    for (char *line = strstr(list, "backends:\n"); line && line < end; line = strchr(line, '\n')) {
        line++;
        char name[64];
        if (line[0] == ' ' && line[1] == ' ' && line[2] != ' ' && sscanf(line, "  %63s", name) == 1) {
            const char *next = strchr(line, '\n');   /* its second line: available, or unavailable and why */
            cr_assert(next);
            const char *eol = strchr(next + 1, '\n');
            int without = eol && memmem(next + 1, (size_t)(eol - next - 1), "built without", 13) != NULL;
            if (!without)
                snprintf(want + strlen(want), sizeof want - strlen(want), " %s", name);
            n++;
        }
    }
    free(list);
    cr_assert_geq(n, 2, "the backends of `gauntlet list`");
    cr_assert_eq(e2e_run(log, (const char *[]){ "--version", NULL }), 0);
    char *v = e2e_read(log), line[512];
    cr_assert(v);
    snprintf(line, sizeof line, "(backends:%s)", want);
    cr_assert(strstr(v, line), "--version says '%s', `gauntlet list` shows these built in:%s", v, want);
    free(v);
}
