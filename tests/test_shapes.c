/* tests/test_shapes.c: the iteration's forms — workload.phases (each step kind, repeat, overlap and its
 * dependency, the bad inputs), the presets' expansion against their arithmetic, the echo round trip over random
 * step lists, and the replay of a trace the test makes, with its fidelity. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "e2e.h"
#include "scenario.h"
#include "shapes_compare.h"
#include "util.h"

static struct scenario sc, sc2;
static char err[1024];

/* Loads text; the exit code. */
static int load(const char *text) { return scenario_load_string(text, "x.yaml", &sc, err, sizeof err); }

static const char head[] = "name: s\nranks: 2\niterations: 3\n";

/* head + a workload (as YAML lines). */
static const char *with(const char *workload)
{
    static char buf[8192];
    snprintf(buf, sizeof buf, "%sworkload:\n%s", head, workload);
    return buf;
}

Test(phases, every_step_kind_and_repeat_parse)
{
    int rc = load(with("  phases:\n"
                       "    - gemm: {m: 1024, n: 2048, k: 512, dtype: fp16, count: 3}\n"
                       "    - repeat: 3\n"
                       "      steps:\n"
                       "        - all_gather: {bytes: 8MiB, overlap: true}\n"
                       "        - gemm:\n"
                       "    - reduce_scatter: {bytes: 16MiB, overlap: true}\n"
                       "    - all_to_all: {bytes: 4MiB}\n"
                       "    - send_recv: {bytes: 1MiB, ranks: 8}\n"
                       "    - allreduce: {bytes: 32MiB}\n"
                       "    - optimizer: {bytes: 1GiB}\n"
                       "    - idle: {duration: 3ms}\n"));
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert_eq(sc.workload.n_steps, 1 + 3 * 2 + 6);
    const struct step *s = sc.workload.steps;
    cr_assert_eq(s[0].kind, ST_GEMM);
    cr_assert_eq(s[0].m, 1024);
    cr_assert_eq(s[0].dtype, DT_FP16);
    for (int r = 0; r < 3; r++) {
        cr_assert_eq(s[1 + 2 * r].kind, ST_ALL_GATHER);
        cr_assert(s[1 + 2 * r].overlap);
        cr_assert_eq(s[2 + 2 * r].kind, ST_GEMM);
        cr_assert_eq(s[2 + 2 * r].m, 4096, "gemm with nothing takes the defaults");
    }
    cr_assert_eq(s[7].kind, ST_REDUCE_SCATTER);
    cr_assert_eq(s[9].ranks, 8);
    cr_assert_eq(s[10].bytes, 32u << 20);
    cr_assert_eq(s[11].bytes, 1u << 30);
    cr_assert_float_eq(s[12].duration_s, 0.003, 1e-12);
    /* what the rest reads: the first GEMM, the first gradient exchange (reduce_scatter at 7) */
    cr_assert_eq(sc.workload.gemm.m, 1024);
    cr_assert_eq(sc.workload.gemm.count, 3);
    cr_assert_eq(sc.workload.grad_step, 7);
    cr_assert_eq(sc.workload.allreduce.bytes, 16u << 20);
}

/* Each bad input: the exit code 2 and the place and key in the message. */
static void bad(const char *workload, const char *want)
{
    cr_assert_eq(load(with(workload)), EXIT_INPUT, "accepted: %s", workload);
    cr_assert(strstr(err, want), "message '%s' lacks '%s'", err, want);
}

Test(phases, bad_input_names_the_place_and_key)
{
    bad("  phases:\n    - gemm: {m: 64}\n    - allreduce: {bytes: 1MiB}\n    - conv: {x: 1}\n",
        "x.yaml:8:7: workload.phases[2]: unknown step 'conv' (expected one of: gemm, allreduce");
    bad("  phases:\n    - gemm: {m: 64, overlap: true}\n    - allreduce: {bytes: 1MiB}\n",
        "x.yaml:6:21: workload.phases[0].gemm.overlap: unknown key");
    bad("  phases:\n    - gemm:\n    - allreduce:\n", "x.yaml:7:17: workload.phases[1].allreduce: missing required key 'bytes'");
    bad("  phases:\n    - gemm:\n    - allreduce: {bytes: 8 MeB}\n", "x.yaml:7:26: workload.phases[1].allreduce.bytes");
    bad("  phases:\n    - allreduce: {bytes: 1MiB}\n", "x.yaml:5:3: workload.phases: needs at least one gemm step");
    bad("  phases:\n    - gemm:\n    - all_gather: {bytes: 1MiB}\n",
        "x.yaml:5:3: workload.phases: needs an allreduce or reduce_scatter step");
    bad("  phases: []\n", "workload.phases: expected a list of steps");
    bad("  phases:\n    - {gemm: {}, allreduce: {bytes: 1MiB}}\n", "one step per list item");
    bad("  phases:\n    - repeat: 300\n      steps: [{gemm: {}}, {allreduce: {bytes: 4KiB}}]\n",
        "makes the iteration longer than 512 steps");
    bad("  phases:\n    - repeat: 0\n      steps: [{gemm: {}}]\n", "workload.phases[0].repeat");
    bad("  gemm: {m: 64, n: 64, k: 64}\n  allreduce: {bytes: 1MiB}\n  phases:\n    - gemm:\n",
        "x.yaml:7:3: workload.phases: give one form of the iteration");
    bad("  shape: dp-overlap\n  phases:\n    - gemm:\n", "give one form of the iteration");
    bad("  gemm: {m: 64, n: 64, k: 64}\n", "workload.allreduce: missing required key");
    bad("  checkpoint: {every: 2}\n", "x.yaml:4:1: workload: expected gemm and allreduce");
    bad("  shape: resnet\n", "x.yaml:5:3: workload.shape: unknown shape 'resnet' (expected one of: dp-overlap, fsdp");
    bad("  replay: {trace: /nonexistent/trace.csv}\n", "x.yaml:5:3: workload.replay.trace: /nonexistent/trace.csv");
}

/* The steps of a preset, loaded for world ranks. */
static void preset(const char *name, int ranks)
{
    char text[512];
    snprintf(text, sizeof text, "name: s\nranks: %d\niterations: 2\nworkload: {shape: %s}\n", ranks, name);
    cr_assert_eq(load(text), 0, "%s", err);
    cr_assert_str_eq(sc.workload.expanded_from, name);
}

/* Counts steps of kind, and checks every one has the given size (bytes, or n for GEMMs when given). */
static int count_kind(int kind)
{
    int n = 0;
    for (int i = 0; i < sc.workload.n_steps; i++)
        n += sc.workload.steps[i].kind == kind;
    return n;
}

/* The presets' numbers as docs/scenarios.md "Shapes" derives them from the public configurations. */
Test(shapes, presets_expand_to_their_arithmetic)
{
    preset("dp-overlap", 2);   /* Llama-2-7B: 4h^2 + 3hf = 202,375,168 a layer */
    double pl = 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008;
    cr_assert_eq(sc.workload.n_steps, 4 + 4 * 2 + 1);
    cr_assert_eq(count_kind(ST_GEMM), 8);
    for (int i = 0; i < 8 + 4; i++)
        if (sc.workload.steps[i].kind == ST_GEMM) {
            cr_assert_eq(sc.workload.steps[i].m, 4096);
            cr_assert_eq(sc.workload.steps[i].n, 49408);
            cr_assert_eq(sc.workload.steps[i].k, 4096);
        } else {
            cr_assert_eq(sc.workload.steps[i].bytes, (uint64_t)(2 * pl));
            cr_assert_eq(sc.workload.steps[i].bytes, 404750336u);
            cr_assert(sc.workload.steps[i].overlap);
        }
    cr_assert_eq(sc.workload.steps[12].bytes, 3238002688u);

    preset("fsdp", 4);   /* Llama-2-13B, sharded over 4 ranks */
    pl = 4.0 * 5120 * 5120 + 3.0 * 5120 * 13824;
    cr_assert_eq(count_kind(ST_ALL_GATHER), 8);
    cr_assert_eq(count_kind(ST_REDUCE_SCATTER), 4);
    cr_assert_eq(sc.workload.steps[0].kind, ST_ALL_GATHER);
    cr_assert_eq(sc.workload.steps[0].overlap, 0, "the first layer's weights are waited for");
    cr_assert_eq(sc.workload.steps[0].bytes, 634388480u);
    cr_assert_eq(sc.workload.steps[sc.workload.n_steps - 1].bytes, (uint64_t)(4 * pl * 4 / 4));
    cr_assert_eq(sc.workload.gemm.n, 61952);
    cr_assert_eq(sc.workload.steps[sc.workload.grad_step].kind, ST_REDUCE_SCATTER);

    preset("pipeline-1f1b", 2);   /* GPT-3 175B, 4 stages, 8 micro-batches, the first stage */
    cr_assert_eq(sc.workload.n_steps, 36);
    cr_assert_eq(count_kind(ST_GEMM), 16);     /* 8 forward + 8 backward */
    cr_assert_eq(count_kind(ST_SEND_RECV), 16);
    cr_assert_eq(count_kind(ST_IDLE), 2);
    double fwd = 2.0 * 2048 * 147456 * 12288 / 714e12, bubble = 3 * 3 * fwd;
    cr_assert_float_eq(sc.workload.steps[0].duration_s + sc.workload.steps[34 - 1].duration_s, bubble, 1e-9,
                       "the bubble is (stages - 1) x (forward + backward)");
    cr_assert_eq(sc.workload.steps[2].bytes, 50331648u);
    cr_assert_eq(sc.workload.steps[34].bytes, 3623878656u);
    cr_assert_eq(sc.workload.steps[35].bytes, 7247757312u);

    preset("moe", 2);   /* Mixtral-8x7B */
    cr_assert_eq(count_kind(ST_ALL_TO_ALL), 16);
    cr_assert_eq(sc.workload.steps[1].bytes, 67108864u);
    cr_assert_eq(sc.workload.steps[2].m, 8192);
    cr_assert_eq(sc.workload.steps[2].n, 43008);
    cr_assert_eq(sc.workload.steps[0].n, 10240);
    cr_assert_eq(sc.workload.allreduce.bytes, 83886080u);
    cr_assert_eq(sc.workload.steps[sc.workload.n_steps - 1].bytes, (uint64_t)((41943040.0 + 176160768.0) * 4 * 4));
}

/* Writes sc, loads it back into sc2 and checks the steps are the same. */
static void round_trip(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(scenario_write(&sc, f), 0);
    fclose(f);
    cr_assert_eq(scenario_load_string(buf, "echo.yaml", &sc2, err, sizeof err), 0, "%s\n%s", err, buf);
    cr_assert_eq(sc2.workload.n_steps, sc.workload.n_steps);
    for (int i = 0; i < sc.workload.n_steps; i++) {   /* all but where each was given */
        struct step a = sc.workload.steps[i], b = sc2.workload.steps[i];
        a.line = b.line = 0;
        cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "step %d changed in the echo (kind %d/%d m %ld/%ld n %ld/%ld count "
                     "%ld/%ld bytes %lu/%lu dur %.17g/%.17g overlap %d/%d ranks %ld/%ld dtype %d/%d):\n%s", i, a.kind,
                     b.kind, (long)a.m, (long)b.m, (long)a.n, (long)b.n, (long)a.count, (long)b.count,
                     (unsigned long)a.bytes, (unsigned long)b.bytes, a.duration_s, b.duration_s, a.overlap, b.overlap,
                     (long)a.ranks, (long)b.ranks, a.dtype, b.dtype, buf);
    }
    cr_assert_eq(sc2.workload.grad_step, sc.workload.grad_step);
    free(buf);
}

Test(shapes, the_echo_reloads_to_the_same_steps_for_random_lists_and_every_preset)
{
    const char *presets[] = { "dp-overlap", "fsdp", "pipeline-1f1b", "moe" };
    for (size_t i = 0; i < ARRAY_LEN(presets); i++) {
        preset(presets[i], 2);
        round_trip();
        cr_assert_str_eq(sc2.workload.expanded_from, presets[i]);
    }
    struct rng r;
    rng_seed(&r, 2026, 11);
    static const char *const kinds[] = { "gemm", "allreduce", "reduce_scatter", "all_gather", "all_to_all",
                                         "send_recv", "optimizer", "idle" };
    for (int t = 0; t < 200; t++) {   /* random lists: every kind, random sizes, overlap, repeat groups */
        char text[8192];
        size_t used = (size_t)snprintf(text, sizeof text, "%sworkload:\n  phases:\n    - gemm: {m: %d, count: %d}\n"
                                                          "    - allreduce: {bytes: %dKiB}\n",
                                       head, 1 + (int)(rng_next(&r) % 9000), 1 + (int)(rng_next(&r) % 4),
                                       1 + (int)(rng_next(&r) % 5000));
        int n = (int)(rng_next(&r) % 12);
        for (int k = 0; k < n; k++) {
            int kind = (int)(rng_next(&r) % 8), rep = rng_next(&r) % 4 == 0;
            const char *ind = rep ? "        " : "    ";
            if (rep)
                used += (size_t)snprintf(text + used, sizeof text - used, "    - repeat: %d\n      steps:\n",
                                         1 + (int)(rng_next(&r) % 4));
            if (kind == 0)
                used += (size_t)snprintf(text + used, sizeof text - used, "%s- gemm: {n: %d, k: %d, dtype: %s}\n", ind,
                                         1 + (int)(rng_next(&r) % 20000), 16 * (1 + (int)(rng_next(&r) % 100)),
                                         rng_next(&r) % 2 ? "bf16" : "fp8");
            else if (kind == 6)
                used += (size_t)snprintf(text + used, sizeof text - used, "%s- optimizer: {bytes: %dMiB}\n", ind,
                                         1 + (int)(rng_next(&r) % 4000));
            else if (kind == 7)
                used += (size_t)snprintf(text + used, sizeof text - used, "%s- idle: {duration: %dus}\n", ind,
                                         (int)(rng_next(&r) % 100000));
            else
                used += (size_t)snprintf(text + used, sizeof text - used, "%s- %s: {bytes: %d, overlap: %s, ranks: %d}\n",
                                         ind, kinds[kind], 4 * (1 + (int)(rng_next(&r) % 1000000)),
                                         rng_next(&r) % 2 ? "true" : "false", (int)(rng_next(&r) % 64));
        }
        cr_assert_eq(load(text), 0, "%s\n%s", err, text);
        round_trip();
    }
}

/* The sim's iteration time of text (p50 over the run, seconds), with the run's summary in *sum. */
static const char *last_out;

static double run_sim(const char *text, json_t **sum)
{
    const char *path = e2e_scenario(text), *out = e2e_outdir();
    last_out = out;
    const char *args[] = { "run", path, "--backend", "sim", "--headless", "--out", out, NULL };
    cr_assert_eq(e2e_run("/dev/null", args), 0, "the run failed: %s", text);
    *sum = e2e_summary(out);
    json_t *run = json_array_get(json_object_get(*sum, "runs"), 0);
    return json_number_value(json_object_get(json_object_get(run, "iteration_s"), "p50"));
}

Test(phases_sim, each_step_has_its_time_and_level_and_overlap_waits_where_it_must, .timeout = 60)
{
    /* a 2 ms GEMM (714 TFLOP/s), a 20 ms all-reduce beside the next GEMM (7.2 GB at n = 2: 2(n-1)/n = 1, at
     * 360 GB/s), then an optimizer step that must wait for it, then 3 ms idle */
    static const char text[] =
        "name: overlap\nranks: 2\niterations: 6\nsim: {jitter: 0, noise_w: 0, speedup: 0.1}\nworkload:\n  phases:\n"
        "    - gemm: {m: 8192, n: 8192, k: 10640}\n"           /* 2 * 8192^2 * 10640 / 714e12 = 2.0 ms */
        "    - allreduce: {bytes: 7200000000, overlap: true}\n" /* 50us + 7.2e9 / 360e9 = 20.05 ms */
        "    - gemm: {m: 8192, n: 8192, k: 10640}\n"
        "    - optimizer: {bytes: 371428571}\n"                /* 7 x / 2600 GB/s = 1.0 ms */
        "    - idle: {duration: 3ms}\n";
    cr_assert_eq(load(text), 0, "%s", err);
    double est = backend_find("sim")->estimate_iter_s(&sc);
    cr_assert_float_eq(est * 0.1, 0.002 + 0.02005 + 0.001 + 0.003, 2e-4, "estimate %g: the optimizer waits for the comm", est);
    json_t *sum;
    double p50 = run_sim(text, &sum);
    cr_assert(p50 > est * 0.97 && p50 < est * 1.15, "iteration %g s, model %g s (without overlap: %g)", p50, est,
              est + 0.004);
    json_t *run = json_array_get(json_object_get(sum, "runs"), 0);
    double tflops = json_number_value(json_object_get(run, "tflops"));
    /* the model's 714 TFLOP/s, at speedup 0.1: 71.4 over 20 ms steps timed on the wall clock. Each step ten times
     * its modelled length keeps what a loaded machine oversleeps (a few ms a wake-up: 541 of 714 TFLOP/s was seen
     * over 2 ms steps with the suite two tests at a time) a small share of it */
    cr_assert(tflops > 71.4 * 0.85 && tflops < 71.4 * 1.02, "GEMM steps' rate %g", tflops);
    cr_assert(json_is_null(json_object_get(run, "busbw_gbs")), "all the communication overlapped: no bus bandwidth");
    json_decref(sum);
    char path[1024];   /* every step kind's edges are events; an overlapped step's exposed part is a comm phase */
    snprintf(path, sizeof path, "%s/events.jsonl", last_out);
    char *ev = e2e_read(path);
    cr_assert(ev);
    const char *phases[] = { "\"phase\":\"compute\"", "\"phase\":\"optimizer\"", "\"phase\":\"idle\"",
                             "\"phase\":\"comm\"" };
    for (size_t k = 0; k < ARRAY_LEN(phases); k++) {
        int count = 0;
        for (const char *p = ev; (p = strstr(p, phases[k])); p++)
            count++;
        cr_assert_eq(count, k == 0 ? 2 * 2 * 6 * 2 : 2 * 6 * 2, "%s: %d edges (2 ranks x 6 iterations)", phases[k], count);
    }
    free(ev);

    /* the iteration's end waits for an overlapped step after the last GEMM; a lone step has its bus bandwidth */
    static const char text2[] =
        "name: tail\nranks: 2\niterations: 6\nsim: {jitter: 0, noise_w: 0, speedup: 0.1}\nworkload:\n  phases:\n"
        "    - gemm: {m: 8192, n: 8192, k: 10640}\n"
        "    - reduce_scatter: {bytes: 7200000000}\n"          /* the gradient exchange: 50us + 3.6e9 / 360e9 = 10.05 ms,
                                                                * and its shares all-gathered as many (every rank
                                                                * holds the mean, as the cuda backend leaves it) */
        "    - gemm: {m: 8192, n: 8192, k: 10640}\n"
        "    - all_to_all: {bytes: 720000000}\n"               /* 50us + 360e6 / 360e9 = 1.05 ms */
        "    - send_recv: {bytes: 360000000}\n"                /* 50us + 360e6 / 360e9 = 1.05 ms */
        "    - all_gather: {bytes: 7200000000, overlap: true}\n";
    cr_assert_eq(load(text2), 0, "%s", err);
    est = backend_find("sim")->estimate_iter_s(&sc);
    cr_assert_float_eq(est * 0.1, 0.002 + 2 * 0.01005 + 0.002 + 0.00105 + 0.00105 + 0.01005, 2e-4);
    p50 = run_sim(text2, &sum);
    cr_assert(p50 > est * 0.97 && p50 < est * 1.15, "iteration %g s, model %g s", p50, est);
    run = json_array_get(json_object_get(sum, "runs"), 0);
    double bw = json_number_value(json_object_get(run, "busbw_gbs"));
    cr_assert(bw > 30 && bw < 36, "the lone steps' median bus bandwidth %g GB/s (model 360 x speedup 0.1, less the "
              "latency)", bw);
    json_decref(sum);
}

/* Writes a trace of one GPU in nvidia-smi's CSV form: 100 Hz, 1.2 s of a square wave between 200 and 650 W
 * (period 0.3 s) under a 2 Hz ripple, smoothed as a GPU's power is (20 ms). */
static const char *make_trace(void)
{
    static char path[] = "/tmp/gauntlet-trace-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    e2e_own(path);
    FILE *f = fdopen(fd, "w");
    cr_assert(f);
    fprintf(f, "timestamp, index, power.draw [W]\n");
    double p = 200;
    for (int i = 0; i < 120; i++) {
        double t = i * 0.01, target = (fmod(t, 0.3) < 0.18 ? 650 : 200) + 40 * sin(2 * M_PI * 2 * t);
        p += (target - p) * (1 - exp(-0.01 / 0.02));
        fprintf(f, "2026/11/25 10:00:%06.3f, 0, %.2f W\n", t, p);
    }
    fclose(f);
    return path;
}

Test(replay_sim, follows_the_trace_to_its_goal, .timeout = 60)
{
    const char *trace = make_trace();
    char text[1024];
    snprintf(text, sizeof text, "name: replay\nranks: 2\niterations: 3\nworkload:\n  replay: {trace: %s}\n", trace);
    cr_assert_eq(load(text), 0, "%s", err);
    cr_assert_eq(sc.workload.replay.n, 120);
    cr_assert_float_eq(sc.workload.replay.dt_s, 0.01, 1e-9);
    json_t *sum;
    run_sim(text, &sum);
    json_t *run = json_array_get(json_object_get(sum, "runs"), 0);
    json_t *fit = json_object_get(json_object_get(json_object_get(run, "power"), "aggregate"), "replay");
    cr_assert(json_is_object(fit), "no replay fidelity in the summary");
    double corr = json_number_value(json_object_get(fit, "correlation"));
    double bands = json_number_value(json_object_get(fit, "band_share_max_diff_points"));
    double rms = json_number_value(json_object_get(fit, "rms_error_w"));
    cr_assert_gt(json_integer_value(json_object_get(fit, "points")), 150);
    cr_assert_geq(corr, 0.95, "correlation %g (goal >= 0.95)", corr);
    cr_assert_leq(bands, 5.0, "band shares differ by %g points (goal <= 5)", bands);
    cr_assert_lt(rms, 60, "rms error %g W", rms);
    json_decref(sum);
    unlink(trace);
}

Test(shapes_compare, every_mitigation_on_each_shape_against_its_own_none, .timeout = 90)
{
    /* a sensor and a sampler that follow the sped-up iteration (at 20 ms or 100 Hz they could not: nothing ranked) */
    static const char text[] = "name: cmp\nranks: 2\niterations: 8\nsim: {speedup: 4, sensor: {update: 2ms}}\n"
                               "power: {sample_hz: 1000}\n"
                               "workload:\n  shapes: [dp-overlap, moe]\n"
                               "mitigations: [none, {filler: {floor: 80%}}, {ramp: {ramp_w_s: 3000}}]\n";
    cr_assert_eq(load(text), 0, "%s", err);
    cr_assert_eq(sc.n_mitigations, 6);
    cr_assert_str_eq(sc.mitigations[4].label, "filler [moe]");
    cr_assert_eq(sc.mitigations[4].shape, 1);
    int n0, g0, n1, g1;
    const struct step *s0 = scenario_run_steps(&sc, 0, &n0, &g0), *s1 = scenario_run_steps(&sc, 5, &n1, &g1);
    cr_assert_eq(n0, 13);
    cr_assert_eq(s1 - sc.workload.steps, 13, "moe's steps follow dp-overlap's");
    cr_assert_eq(s1[g1].kind, ST_ALLREDUCE);
    cr_assert_eq(s0[g0].bytes, 404750336u);
    round_trip();   /* the echo keeps the shapes and the three mitigations, and loads to the same six runs */
    cr_assert_eq(sc2.n_mitigations, 6);

    const char *path = e2e_scenario(text), *out = e2e_outdir();
    const char *args[] = { "run", path, "--backend", "sim", "--headless", "--out", out, NULL };
    cr_assert_eq(e2e_run("/dev/null", args), 0);
    json_t *sum = e2e_summary(out), *runs = json_object_get(sum, "runs"), *r;
    size_t i;
    cr_assert_eq(json_array_size(runs), 6);
    json_array_foreach(runs, i, r) {
        cr_assert_str_eq(json_string_value(json_object_get(r, "shape")), i < 3 ? "dp-overlap" : "moe");
        cr_assert(!json_is_false(json_object_get(json_object_get(r, "vs_none"), "swing_measurable")), "run %zu: %s", i,
                  json_string_value(json_object_get(json_object_get(r, "vs_none"), "warning")));
        if (i % 3 == 0)   /* each shape's none is its own baseline: nothing removed */
            cr_assert_float_eq(json_number_value(json_object_get(json_object_get(r, "vs_none"), "swing_reduction_pct")),
                               0, 1e-9, "run %zu is compared with another shape's none", i);
    }
    /* the ranking per shape, and a change named exactly where two mitigations swap order */
    json_t *shapes = json_object_get(sum, "shapes");
    cr_assert(json_is_object(shapes), "no shapes comparison in the summary");
    double red[2][2];
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 2; m++)
            red[k][m] = json_number_value(json_object_get(json_object_get(json_array_get(runs, (size_t)(3 * k + 1 + m)),
                                                                          "vs_none"), "swing_reduction_pct"));
    for (int k = 0; k < 2; k++) {
        json_t *rank = json_object_get(json_array_get(json_object_get(shapes, "per_shape"), (size_t)k), "ranking");
        cr_assert_eq(json_array_size(rank), 2);
        cr_assert_str_eq(json_string_value(json_array_get(rank, 0)), red[k][0] > red[k][1] ? "filler" : "ramp");
    }
    /* an order within SHAPES_TIE_PCT is a tie, never a change (until 2026-11-30 the test took any difference for an
     * order, and failed where the sim's noise put the two 1 point apart: -31.9 vs -30.8 on moe) */
    int swapped = fabs(red[0][0] - red[0][1]) > SHAPES_TIE_PCT && fabs(red[1][0] - red[1][1]) > SHAPES_TIE_PCT &&
                  (red[0][0] > red[0][1]) != (red[1][0] > red[1][1]);
    cr_assert_eq(json_array_size(json_object_get(shapes, "ranking_changes")), (size_t)swapped,
                 "filler %g / %g, ramp %g / %g", red[0][0], red[1][0], red[0][1], red[1][1]);
    json_decref(sum);
    const char *rargs[] = { "report", out, NULL };
    char log[512];
    snprintf(log, sizeof log, "%s.report.log", out);
    cr_assert_eq(e2e_run(log, rargs), 0);
    char *txt = e2e_read(log);
    cr_assert(txt && strstr(txt, "by shape (ranked by swing removed"), "report: %s", txt ? txt : "(none)");
    free(txt);
}

/* A run of the shapes comparison as summary.json holds it: label, shape, mitigation and the swing removed (a battery's:
 * the grid's, the node's swing it leaves alone reading a few % of noise). */
static json_t *shape_run(const char *mitigation, const char *label, const char *shape, double removed)
{
    int bess = strcmp(mitigation, "bess") == 0;
    json_t *r = json_pack("{s:s, s:s, s:s, s:{s:f, s:f, s:f}}", "mitigation", mitigation, "label", label, "shape", shape,
                          "vs_none", "swing_reduction_pct", bess ? 8.7 - removed / 3 : removed, "energy_overhead_pct", 1.0,
                          "iteration_overhead_pct", 0.0);
    if (bess)
        json_object_set_new(json_object_get(r, "vs_none"), "grid_swing_reduction_pct", json_real(removed));
    return r;
}

/* Entries of one mitigation that differ in their parameters are labelled with them, on every shape; runs that share
 * a label all the same (a summary written before) are never merged: each keeps its own figure, the k-th of one shape
 * is compared with the k-th of the other, and a ranking change between them is found. */
Test(shapes_compare, mitigations_sharing_a_name_are_not_merged)
{
    cr_assert_eq(load("name: s\nranks: 2\niterations: 3\nworkload:\n  shapes: [dp-overlap, moe]\nmitigations:\n"
                      "  - none\n  - filler: {floor: 10%}\n  - bess: {capacity_mwh: 10, power_mw: 20}\n"
                      "  - filler: {floor: 50%}\n  - filler: {floor: 90%}\n  - ramp: {ramp_w_s: 3000}\n"
                      "  - smoothing: {floor: [50%, 80%]}\n  - smoothing: {floor: 50%, ramp_up_w_s: 2000}\n"),
                 0, "%s", err);
    static const char *const want[9] = { "none", "filler floor=10%", "bess", "filler floor=50%", "filler floor=90%",
                                         "ramp", "smoothing floor=50%", "smoothing floor=80%",
                                         "smoothing floor=50% #2" };
    cr_assert_eq(sc.n_mitigations, 18);
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < 9; m++) {
            char label[64];
            snprintf(label, sizeof label, "%s [%s]", want[m], k ? "moe" : "dp-overlap");
            cr_assert_str_eq(sc.mitigations[9 * k + m].label, label);
        }
    round_trip();   /* the echo lists each entry with its parameters: every label once loaded again */
    for (int m = 0; m < 9; m++)
        cr_assert_str_eq(sc2.mitigations[9 + m].label, sc.mitigations[9 + m].label);

    /* three fillers labelled alike: 10 %, 50 %, 90 % of the swing removed on a, 40 %, 60 %, 80 % on b; bess 30 / 20 */
    static const double removed[2][4] = { { 10, 30, 50, 90 }, { 40, 20, 60, 80 } };
    static const char *const shape[2] = { "a", "b" };
    json_t *runs = json_array();
    for (int k = 0; k < 2; k++) {
        char label[32];
        snprintf(label, sizeof label, "none [%s]", shape[k]);
        json_array_append_new(runs, shape_run("none", label, shape[k], 0.0));
        for (int m = 0; m < 4; m++) {
            snprintf(label, sizeof label, "%s [%s]", m == 1 ? "bess" : "filler", shape[k]);
            json_array_append_new(runs, shape_run(m == 1 ? "bess" : "filler", label, shape[k], removed[k][m]));
        }
    }
    json_t *cmp = shapes_compare_json(runs), *p, *e;
    size_t i, j;
    cr_assert(json_is_object(cmp));
    json_array_foreach(json_object_get(cmp, "per_shape"), i, p) {
        json_t *list = json_object_get(p, "runs"), *rank = json_object_get(p, "ranking");
        cr_assert_eq(json_array_size(list), 4, "every run keeps its row: %s", json_dumps(cmp, 0));
        cr_assert_eq(json_array_size(rank), 4, "every run is ranked: %s", json_dumps(rank, 0));
        json_array_foreach(list, j, e) {
            cr_assert_float_eq(json_number_value(json_object_get(e, j == 1 ? "grid_swing_reduction_pct" : "swing_reduction_pct")),
                               removed[i][j], 1e-9);
            for (size_t q = 0; q < j; q++)
                cr_assert_str_neq(json_string_value(json_object_get(e, "mitigation")),
                                  json_string_value(json_object_get(json_array_get(list, q), "mitigation")),
                                  "two rows of one shape read alike");
        }
        cr_assert_str_eq(json_string_value(json_array_get(rank, 3)), i ? "bess" : "filler", "shape %zu: %s", i,
                         json_dumps(rank, 0));
    }
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(json_array_get(json_object_get(cmp, "per_shape"), 0),
                                                                      "ranking"), 0)), "filler #3");
    json_t *ch = json_object_get(cmp, "ranking_changes");   /* the first filler swaps with bess; nothing else does */
    cr_assert_eq(json_array_size(ch), 1, "%s", json_dumps(ch, 0));
    cr_assert_str_eq(json_string_value(json_array_get(ch, 0)),
                     "filler removes more swing than bess on b (40.0 % vs 20.0 % grid), less on a (10.0 % vs 30.0 % grid)");
    json_decref(cmp);
    json_decref(runs);

    /* orders within one run's repeat spread (2 points) are ties, not a change with the shape; a run disturbed by hand
     * is listed and never ranked */
    static const double close[2][4] = { { 50, 51, 10, 99 }, { 51.5, 50, 90, 5 } };
    static const char *const mits[4] = { "filler", "ramp", "cap", "smoothing" };
    runs = json_array();
    for (int k = 0; k < 2; k++) {
        char label[32];
        snprintf(label, sizeof label, "none [%s]", shape[k]);
        json_array_append_new(runs, shape_run("none", label, shape[k], 0.0));
        for (int m = 0; m < 4; m++) {
            snprintf(label, sizeof label, "%s [%s]", mits[m], shape[k]);
            json_t *r = shape_run(mits[m], label, shape[k], close[k][m]);
            if (k == 1 && m == 2)   /* cap on b: 90 % removed, disturbed: it would swap with both */
                json_object_set_new(r, "disturbed", json_pack("[s]", "paused"));
            if (m == 3)   /* smoothing: its readings cannot follow the iteration (99 then 5: an alias's swing) */
                json_object_set_new(json_object_get(r, "vs_none"), "swing_measurable", json_false());
            json_array_append_new(runs, r);
        }
    }
    cmp = shapes_compare_json(runs);
    cr_assert_eq(json_array_size(json_object_get(cmp, "ranking_changes")), 0, "%s", json_dumps(cmp, 0));
    cr_assert(json_is_false(json_object_get(cmp, "ranking_changes_with_shape")));
    json_t *a = json_array_get(json_object_get(cmp, "per_shape"), 0), *b = json_array_get(json_object_get(cmp, "per_shape"), 1);
    cr_assert_eq(json_array_size(json_object_get(b, "ranking")), 2, "the disturbed cap is not ranked: %s", json_dumps(b, 0));
    cr_assert(json_is_true(json_object_get(json_array_get(json_object_get(b, "runs"), 2), "disturbed")), "%s",
              json_dumps(b, 0));
    cr_assert_eq(json_array_size(json_object_get(a, "ranking")), 3, "smoothing's alias is not ranked: %s", json_dumps(a, 0));
    cr_assert(json_is_false(json_object_get(json_array_get(json_object_get(a, "runs"), 3), "swing_measurable")), "%s",
              json_dumps(a, 0));
    /* printed: a tie within 2 points is "=", an order beyond them ">"; what is not ranked is counted */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert(f);
    shapes_compare_print(cmp, f);
    cr_assert_eq(fclose(f), 0);
    cr_assert(strstr(text, "ramp = filler > cap  (1 not ranked"), "%s", text);
    cr_assert(strstr(text, "filler = ramp  (2 not ranked"), "%s", text);
    cr_assert(strstr(text, "by more than 2 points"), "%s", text);
    free(text);
    json_decref(cmp);
    json_decref(runs);
}

/* A trace named relative to where the scenario is loaded is kept as an absolute path: the results' scenario.yaml
 * replays it from any folder (it named a file relative to where the run was started) */
Test(replay_sim, a_relative_trace_is_kept_absolute)
{
    const char *trace = make_trace();   /* /tmp/...: named from /tmp by its own name */
    char here[4096], text[1024];
    cr_assert(getcwd(here, sizeof here));
    cr_assert_eq(chdir("/tmp"), 0);
    snprintf(text, sizeof text, "name: replay\nranks: 2\niterations: 3\nworkload:\n  replay: {trace: %s}\n",
             strrchr(trace, '/') + 1);
    int rc = load(text);
    cr_assert_eq(chdir(here), 0);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert_str_eq(sc.workload.replay.trace, trace);
    unlink(trace);
}
