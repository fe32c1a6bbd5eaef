/* harness/bench.c: `gauntlet bench` dispatch. The benchmarks themselves live beside the code they measure
 * (harness/cuda/bench_*.c); without CUDA each says why it cannot run and exits 3. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

#ifdef GAUNTLET_HAVE_CUDA
#include "coll.h"
#include "gemm.h"
#endif

int bench_main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "gauntlet: bench: expected gemm, allreduce or sampling\n");
        return EXIT_INPUT;
    }
    const char *what = argv[1];
    if (strcmp(what, "gemm") != 0 && strcmp(what, "allreduce") != 0 && strcmp(what, "sampling") != 0) {
        fprintf(stderr, "gauntlet: bench: unknown benchmark '%s' (expected gemm, allreduce or sampling)\n", what);
        return EXIT_INPUT;
    }
#ifdef GAUNTLET_HAVE_CUDA
    if (strcmp(what, "gemm") == 0)
        return bench_gemm_main(argc - 1, argv + 1);
    if (strcmp(what, "allreduce") == 0)
        return bench_allreduce_main(argc - 1, argv + 1);
#endif
    if (strcmp(what, "sampling") == 0) {
        fprintf(stderr, "gauntlet: bench sampling: not yet wired\n");
        return EXIT_ENV;
    }
    fprintf(stderr, "gauntlet: bench %s: this build has no cuda backend (nvcc or NCCL was not found at configure time)\n", what);
    return EXIT_ENV;
}
