/* harness/bench/bench.c: `gauntlet bench` dispatch, and the NVML sampling probe. The GPU benchmarks live beside the
 * code they measure (harness/backends/cuda/bench_*.c); without CUDA each says why it cannot run and exits 3. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "nvml.h"
#include "param.h"
#include "util.h"

#ifdef GAUNTLET_HAVE_CUDA
#include "coll.h"
#include "gemm.h"
#endif

static const struct cli_cmd bench_sampling_cli = {
    "bench sampling", "", 0, 0, "how often each NVML value (power, energy, clocks, temperature) really changes here",
    NULL,
    { { "seconds", "DURATION", "how long each field is watched, at most 1 h (default 2 s)" },
      { "device", "N", "the GPU (default 0)" },
      { 0 } },
};

/* `bench sampling [--seconds S] [--device D]`: how often each NVML value really changes on this GPU. */
static int bench_sampling(int argc, char **argv)
{
    double seconds = 2;
    int64_t dev = 0;
    struct cli_args a;
    const char *v;
    int rc0 = cli_parse(&bench_sampling_cli, argc, argv, &a);
    if (rc0)
        return rc0 == CLI_HELP ? EXIT_OK : rc0;
    if ((v = cli_get(&bench_sampling_cli, &a, "seconds")) && (parse_duration(v, &seconds) != 0 || !(seconds > 0) || seconds > 3600))
        return cli_bad(&bench_sampling_cli, "seconds", v, "expected a duration > 0 and at most 1 h");
    if ((v = cli_get(&bench_sampling_cli, &a, "device")) && (parse_int(v, &dev) != 0 || dev < 0))
        return cli_bad(&bench_sampling_cli, "device", v, "expected a GPU index >= 0");
    char why[512];
    struct nvml *nv = nvml_open(why, sizeof why);
    if (!nv) {
        fprintf(stderr, "gauntlet bench sampling: %s\n", why);
        return EXIT_ENV;
    }
    if (dev >= nvml_device_count(nv)) {
        fprintf(stderr, "gauntlet bench sampling: --device %lld: NVML sees %d device(s)\n", (long long)dev,
                nvml_device_count(nv));
        nvml_close(nv);
        return EXIT_INPUT;
    }
    struct gpu_info gi;
    struct nvml_rate rates[GPU_F_COUNT];
    nvml_device_info(nv, (int)dev, &gi);
    printf("# NVML sampling probe: %s, device %lld (%s), %.1f s per field\n", nvml_library(nv), (long long)dev,
           gi.name[0] ? gi.name : "?", seconds);
    if (*nvml_missing(nv))
        printf("# missing: %s\n", nvml_missing(nv));
    int rc = nvml_probe_rates(nv, (int)dev, seconds, rates) >= 0 && nvml_probe_print(stdout, rates) == 0 ? EXIT_OK : EXIT_ENV;
    nvml_close(nv);
    return rc;
}

const struct cli_cmd bench_cli = {
    "bench", "gemm|allreduce|sampling|analysis", 1, 1,
    "the harness's phases against the bare libraries on this GPU; the analysis's speed",
    "  bench gemm        the harness's GEMM chain against bare cuBLASLt (cuda builds)\n"
    "  bench allreduce   the harness's all-reduce against bare NCCL, nccl-tests' figures (cuda builds)\n"
    "  bench sampling    how often each NVML value really changes on this GPU\n"
    "  bench analysis    the power analysis's speed on a synthetic trace (and against numpy)\n"
    "`gauntlet bench WHAT --help` gives each one's options.\n",
    { { 0 } },
};

int bench_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (argc < 2) {
            gl_log("expected gemm, allreduce, sampling or analysis");
            fputc('\n', stderr);
        }
        cli_usage(&bench_cli, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_INPUT : EXIT_OK;
    }
    const char *what = argv[1];
    if (strcmp(what, "analysis") == 0)
        return bench_analysis_main(argc - 1, argv + 1);
    if (strcmp(what, "gemm") != 0 && strcmp(what, "allreduce") != 0 && strcmp(what, "sampling") != 0) {
        gl_log(what[0] == '-' ? "unknown option '%s' (a benchmark first: gemm, allreduce, sampling or analysis)"
                              : "unknown benchmark '%s' (expected gemm, allreduce, sampling or analysis)", what);
        fputc('\n', stderr);
        cli_usage(&bench_cli, stderr);
        return EXIT_INPUT;
    }
#ifdef GAUNTLET_HAVE_CUDA
    if (strcmp(what, "gemm") == 0)
        return bench_gemm_main(argc - 1, argv + 1);
    if (strcmp(what, "allreduce") == 0)
        return bench_allreduce_main(argc - 1, argv + 1);
#endif
    if (strcmp(what, "sampling") == 0)
        return bench_sampling(argc - 1, argv + 1);
    gl_log("%s: this build has no cuda backend (nvcc or NCCL was not found at configure time)", what);
    return EXIT_ENV;
}
