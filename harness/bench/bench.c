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

/* `bench sampling [--seconds S] [--device D]`: how often each NVML value really changes on this GPU. */
static int bench_sampling(int argc, char **argv)
{
    double seconds = 2;
    int64_t dev = 0;
    for (int i = 1; i < argc; i++) {
        int last = i + 1 >= argc;
        if (strcmp(argv[i], "--seconds") == 0 && !last && parse_duration(argv[i + 1], &seconds) == 0 && seconds > 0)
            i++;
        else if (strcmp(argv[i], "--device") == 0 && !last && parse_int(argv[i + 1], &dev) == 0 && dev >= 0)
            i++;
        else {
            fprintf(stderr, "gauntlet bench sampling: bad argument '%s' (expected --seconds DURATION, --device N)\n",
                    argv[i]);
            return EXIT_INPUT;
        }
    }
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

int bench_main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "gauntlet bench: expected gemm, allreduce or sampling\n");
        return EXIT_INPUT;
    }
    const char *what = argv[1];
    if (strcmp(what, "analysis") == 0)
        return bench_analysis_main(argc - 1, argv + 1);
    if (strcmp(what, "gemm") != 0 && strcmp(what, "allreduce") != 0 && strcmp(what, "sampling") != 0) {
        fprintf(stderr, "gauntlet bench: unknown benchmark '%s' (expected gemm, allreduce, sampling or analysis)\n", what);
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
    fprintf(stderr, "gauntlet: bench %s: this build has no cuda backend (nvcc or NCCL was not found at configure time)\n", what);
    return EXIT_ENV;
}
