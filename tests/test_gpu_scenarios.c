/* tests/test_gpu_scenarios.c: the GPU tests' scenarios (tests/scenarios/gpu/) stay valid where no GPU is. Every
 * file there passes `gauntlet check FILE --backend cuda` (the common schema and what cuda refuses without a GPU;
 * with one, the cuda backend's own check too), and a device setting without --allow-device-settings is refused
 * before any GPU is probed: exit 2 naming the line, not exit 3 for a missing GPU. Needs no GPU. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

/* Returns 1 when name ends in .yaml. */
static int is_yaml(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".yaml") == 0;
}

Test(gpu_scenarios, every_file_passes_check_for_cuda, .timeout = 120)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/scenarios/gpu", e2e_src());
    cr_assert_eq(chdir(e2e_src()), 0, "%s", e2e_src());   /* paths inside the files are the source tree's */
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort), checked = 0;
    cr_assert_geq(n, 0, "%s: cannot read the folder", dir);
    for (int i = 0; i < n; i++) {
        if (is_yaml(names[i]->d_name)) {
            char file[1200];
            snprintf(file, sizeof file, "%s/%s", dir, names[i]->d_name);
            int rc = e2e_run(e2e_log("gpu-scenarios.log"), (const char *[]){ "check", file, "--backend", "cuda", NULL });
            char *log = e2e_read(e2e_log("gpu-scenarios.log"));
            cr_log_info("%s: exit %d", names[i]->d_name, rc);
            cr_assert_eq(rc, 0, "gauntlet check %s --backend cuda: exit %d\n%s", file, rc, log ? log : "");
            free(log);
            checked++;
        }
        free(names[i]);
    }
    free(names);
    cr_assert_gt(checked, 0, "%s holds no scenario: the GPU tests load theirs from there", dir);
}

/* Returns the line (1-based) that starts with needle in file, or 0. */
static int line_of(const char *file, const char *needle)
{
    char *text = e2e_read(file);
    cr_assert_not_null(text, "%s", file);
    int line = 0, no = 1;
    for (char *p = text; p && *p && !line; no++, p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        line = strncmp(p, needle, strlen(needle)) == 0 ? no : 0;
    free(text);
    return line;
}

Test(gpu_scenarios, cap_is_refused_before_the_gpu_probe, .timeout = 60)
{
    const char *sc = e2e_gpu_scenario("cap.yaml");
    const char *log = e2e_log("gpu-cap.log");
    int line = line_of(sc, "  - cap:");
    cr_assert_gt(line, 0, "%s: no `- cap:` line", sc);
    char want[1400];
    snprintf(want, sizeof want, "%s:%d: mitigation 'cap' changes the GPUs' power limit: run with --allow-device-settings",
             sc, line);
    int rc = e2e_run(log, (const char *[]){ "run", sc, "--backend", "cuda", "--headless", "--out", e2e_outdir(), NULL });
    char *text = e2e_read(log);
    cr_assert_eq(rc, 2, "exit %d (3 would be the GPU probe's answer: the refusal must come first)\n%s", rc, text);
    cr_assert(strstr(text, want), "wanted \"%s\" in:\n%s", want, text);
    cr_assert_null(strstr(text, "cannot run here"), "the GPU was probed before the refusal:\n%s", text);
    free(text);
    /* check says it too, as a note: the scenario is valid, `run` asks for the permission */
    rc = e2e_run(log, (const char *[]){ "check", sc, "--backend", "cuda", NULL });
    text = e2e_read(log);
    cr_assert_eq(rc, 0, "%s", text);
    cr_assert(strstr(text, "note: ") && strstr(text, want), "check names the refusal as a note:\n%s", text);
    free(text);
    /* sim models a cap: nothing to refuse there */
    rc = e2e_run(log, (const char *[]){ "run", sc, "--backend", "sim", "--headless", "--out", e2e_outdir(), NULL });
    text = e2e_read(log);
    cr_assert_eq(rc, 0, "on sim a cap is the model's: exit %d\n%s", rc, text);
    free(text);
}

/* What cuda refuses of the scenario alone — a mitigation built on sim only with workload.phases, a GEMM shape
 * cuBLASLt cannot run — `check --backend cuda` says with or without a GPU (a login node checks before it submits):
 * exit 2 naming the line. Until 2026-11-29 it said "ok ... for cuda" where no GPU was, and `run` refused on the GPU. */
Test(gpu_scenarios, cuda_refuses_the_scenario_alone_without_a_gpu, .timeout = 60)
{
    const char *log = e2e_log("gpu-rules.log");
    const char *phases = e2e_scenario("name: shfill\nranks: 1\niterations: 4\nworkload:\n  phases:\n"
                                      "    - gemm: {m: 256, n: 256, k: 256}\n    - allreduce: {bytes: 1MiB}\n"
                                      "mitigations: [none, filler]\n");
    int rc = e2e_run(log, (const char *[]){ "check", phases, "--backend", "cuda", NULL });
    char *text = e2e_read(log);
    cr_assert_eq(rc, 2, "exit %d\n%s", rc, text);
    cr_assert(strstr(text, ":8: mitigation 'filler' acts on the GPU between the phases of the simple iteration") &&
              strstr(text, "built on the sim backend only"), "%s", text);
    free(text);
    const char *fp8 = e2e_scenario("name: fp8\nranks: 1\niterations: 4\nworkload:\n"
                                   "  gemm: {m: 256, n: 256, k: 100, dtype: fp8}\n  allreduce: {bytes: 1MiB}\n");
    rc = e2e_run(log, (const char *[]){ "check", fp8, "--backend", "cuda", NULL });
    text = e2e_read(log);
    cr_assert_eq(rc, 2, "exit %d\n%s", rc, text);
    cr_assert(strstr(text, "workload.gemm: GEMM fp8 256x256x100: m, n and k must be multiples of 16"), "%s", text);
    free(text);
    rc = e2e_run(log, (const char *[]){ "check", fp8, "--backend", "sim", NULL });   /* sim models any shape */
    cr_assert_eq(rc, 0, "%s", e2e_read(log));
}
