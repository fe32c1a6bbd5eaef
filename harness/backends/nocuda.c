/* harness/backends/nocuda.c: the cuda backend — cuBLASLt GEMM chain, NCCL all-reduce, NVML power. Built
 * without CUDA, it still exists and says why it cannot run (as `gauntlet list` shows). */
#include <stdio.h>

#include "backend.h"
#include "cuda_rules.h"
#include "util.h"

#ifndef GAUNTLET_HAVE_CUDA

/* Says why this build has no cuda backend. */
static int cuda_probe(char *why, size_t n)
{
    snprintf(why, n, "built without CUDA (nvcc or NCCL was not found when CMake configured this build)");
    return -1;
}

static int cuda_check(const struct scenario *sc, char *why, size_t n)
{
    (void)sc;
    return cuda_probe(why, n) ? EXIT_ENV : 0;
}

static struct power_source *cuda_power_open(struct shm *shm, char *why, size_t n)
{
    (void)shm;
    cuda_probe(why, n);
    return NULL;
}

static int cuda_power_read(struct power_source *ps, int rank, uint64_t t, struct power_reading *out)
{
    (void)ps, (void)rank, (void)t, (void)out;
    return -1;
}

static void cuda_power_close(struct power_source *ps) { (void)ps; }

static void *cuda_init(struct worker_ctx *w, char *why, size_t n)
{
    (void)w;
    cuda_probe(why, n);
    return NULL;
}

static int cuda_phase(void *b, struct worker_ctx *w)
{
    (void)b, (void)w;
    return -1;
}

static int cuda_snapshot(void *b, const void **state, size_t *len)
{
    (void)b, (void)state, (void)len;
    return -1;
}

static void cuda_fini(void *b) { (void)b; }

static size_t cuda_state_bytes(const struct scenario *sc)
{
    (void)sc;
    return CUDA_STATE_BYTES;
}

const struct backend_ops backend_cuda = {
    .version = BACKEND_OPS_VERSION,
    .name = "cuda",
    .absent = 1,
    .state_bytes = cuda_state_bytes,
    .help = "NVIDIA GPUs: cuBLASLt GEMM, NCCL all-reduce, NVML power",
    .probe = cuda_probe,
    .check = cuda_check,
    .check_scenario = cuda_check_scenario,
    .power_open = cuda_power_open,
    .power_read = cuda_power_read,
    .power_close = cuda_power_close,
    .init = cuda_init,
    .compute = cuda_phase,
    .allreduce = cuda_phase,
    .snapshot = cuda_snapshot,
    .fini = cuda_fini,
};

#endif
