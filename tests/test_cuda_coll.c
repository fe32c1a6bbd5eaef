/* tests/test_cuda_coll.c: the communication phase (harness/backends/cuda/coll.c, bench_allreduce.c, kernels/wait.cu):
 * bus-bandwidth arithmetic, the type codec and argument errors everywhere; on a GPU, a 1-rank communicator's
 * exact all-reduce, the emulated phase length, the timeout path and a small bench sweep. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "kernels.h"
#include "util.h"

#define MiB (1024ul * 1024ul)

/* Returns why no GPU is usable here, or NULL when one is. */
static const char *test_gpu_missing(void)
{
    static char why[256];
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, sizeof why, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        return why;
    }
    return n < 1 ? "no CUDA device is visible" : NULL;
}

/* Skips the calling test with the reason when no GPU is usable. */
#define NEED_GPU()                                                                                              \
    do {                                                                                                        \
        const char *why_ = test_gpu_missing();                                                                  \
        if (why_)                                                                                               \
            cr_skip_test("no usable GPU: %s", why_);                                                            \
    } while (0)

/* Makes an id and a 1-rank coll of bytes on stream s; fails the test when it cannot. */
static struct coll *test_coll(enum dtype t, size_t bytes, double busbw, int eranks, cudaStream_t s)
{
    unsigned char id[COLL_ID_BYTES];
    char err[512] = "";
    cr_assert_eq(coll_make_id(id, err, sizeof err), 0, "coll_make_id: %s", err);
    struct coll *c = coll_create(id, 1, 0, t, bytes, busbw, eranks, s, 60.0, err, sizeof err);
    cr_assert_not_null(c, "coll_create(%s): %s", dtype_name(t), err);
    cr_assert_not_null(coll_comm(c));
    return c;
}

/* Runs the bench with the given arguments (argv[0] is the subcommand). */
static int test_bench(int argc, const char **argv)
{
    return bench_allreduce_main(argc, (char **)argv);
}

Test(coll, busbw_factor_is_nccl_tests)
{
    cr_assert_float_eq(coll_busbw_factor(1), 0.0, 1e-12);
    cr_assert_float_eq(coll_busbw_factor(0), 0.0, 1e-12);
    cr_assert_float_eq(coll_busbw_factor(2), 1.0, 1e-12);
    cr_assert_float_eq(coll_busbw_factor(4), 1.5, 1e-12);
    cr_assert_float_eq(coll_busbw_factor(8), 1.75, 1e-12);
}

Test(coll, emulated_seconds_arithmetic)
{
    /* 1 GB at 100 GB/s busbw over 8 ranks moves 1.75 GB per rank: 17.5 ms. */
    cr_assert_float_eq(coll_emulated_seconds(1000000000ul, 100.0, 8), 0.0175, 1e-12);
    cr_assert_float_eq(coll_emulated_seconds(1ul << 30, 1.0, 2), 1.073741824, 1e-12);
    cr_assert_float_eq(coll_emulated_seconds(16 * MiB, 50.0, 4), 16.0 * MiB * 1.5 / 50e9, 1e-15);
    cr_assert_eq(coll_emulated_seconds(1ul << 30, 100.0, 1), 0.0, "one rank sends nothing");
    cr_assert_eq(coll_emulated_seconds(1ul << 30, 0.0, 8), 0.0, "no bandwidth: no emulation");
    cr_assert_eq(coll_emulated_seconds(1ul << 30, -5.0, 8), 0.0);
    cr_assert_eq(coll_emulated_seconds(0, 100.0, 8), 0.0);
}

Test(coll, dtype_maps_to_nccl)
{
    cr_assert_eq(coll_nccl_type(DT_BF16), ncclBfloat16);
    cr_assert_eq(coll_nccl_type(DT_FP16), ncclFloat16);
    cr_assert_eq(coll_nccl_type(DT_TF32), ncclFloat32);
    cr_assert_eq(coll_nccl_type(DT_FP8), ncclFloat8e4m3);
    cr_assert_eq(coll_type_size(ncclFloat8e4m3), 1);
    cr_assert_eq(coll_type_size(ncclBfloat16), 2);
    cr_assert_eq(coll_type_size(ncclFloat32), 4);
    cr_assert_str_eq(coll_type_name(ncclBfloat16), "bfloat16");
    cr_assert_str_eq(coll_type_name(ncclFloat8e4m3), "f8e4m3");
}

Test(coll, codec_known_encodings)
{
    uint16_t h = 0;
    uint8_t q = 0;
    cr_assert_eq(coll_put_int(ncclBfloat16, &h, 1), 0);
    cr_assert_eq(h, 0x3F80);
    cr_assert_eq(coll_put_int(ncclFloat16, &h, 1), 0);
    cr_assert_eq(h, 0x3C00);
    cr_assert_eq(coll_put_int(ncclFloat16, &h, -2), 0);
    cr_assert_eq(h, 0xC000);
    cr_assert_eq(coll_put_int(ncclFloat16, &h, 65504), 0);
    cr_assert_eq(h, 0x7BFF);
    cr_assert_eq(coll_put_int(ncclFloat8e4m3, &q, 1), 0);
    cr_assert_eq(q, 0x38);
    cr_assert_eq(coll_put_int(ncclFloat8e4m3, &q, -2), 0);
    cr_assert_eq(q, 0xC0);
    cr_assert_eq(coll_put_int(ncclFloat8e4m3, &q, 448), 0);
    cr_assert_eq(q, 0x7E);
    cr_assert_eq(coll_put_int(ncclFloat8e4m3, &q, 480), -1, "S.1111.111 is NaN in e4m3");
    cr_assert_eq(coll_put_int(ncclFloat8e4m3, &q, 17), -1);
    cr_assert_eq(coll_put_int(ncclBfloat16, &h, 257), -1);
    cr_assert_eq(coll_put_int(ncclFloat16, &h, 2049), -1);
    h = 0x7C00;
    cr_assert(isinf(coll_get(ncclFloat16, &h)));
    q = 0x7F;
    cr_assert(isnan(coll_get(ncclFloat8e4m3, &q)));
    q = 0x01;   /* smallest e4m3 subnormal: 2^-9 */
    cr_assert_eq(coll_get(ncclFloat8e4m3, &q), ldexp(1.0, -9));
}

Test(coll, codec_round_trips_exact_integers)
{
    static const struct { ncclDataType_t t; long limit; } types[] = {
        { ncclBfloat16, 256 }, { ncclFloat16, 2048 }, { ncclFloat32, 1l << 24 }, { ncclFloat8e4m3, 16 },
        { ncclFloat8e5m2, 8 }, { ncclInt32, 100000 },
    };
    for (size_t k = 0; k < ARRAY_LEN(types); k++) {
        unsigned char buf[8];
        long step = types[k].limit > 4096 ? types[k].limit / 4096 : 1;
        for (long v = -types[k].limit; v <= types[k].limit; v += step) {
            cr_assert_eq(coll_put_int(types[k].t, buf, v), 0, "%s %ld", coll_type_name(types[k].t), v);
            cr_assert_eq(coll_get(types[k].t, buf), (double)v, "%s %ld", coll_type_name(types[k].t), v);
        }
    }
}

Test(bench, bad_arguments_exit_2)
{
    const char *factor[] = { "allreduce", "--factor", "1" };
    const char *dtype[] = { "allreduce", "--dtype", "int8" };
    const char *unknown[] = { "allreduce", "--bogus", "3" };
    const char *missing[] = { "allreduce", "--iters" };
    const char *order[] = { "allreduce", "--minbytes=1M", "--maxbytes", "1K" };
    const char *size[] = { "allreduce", "--maxbytes", "12Q" };
    cr_assert_eq(test_bench(3, factor), EXIT_INPUT);
    cr_assert_eq(test_bench(3, dtype), EXIT_INPUT);
    cr_assert_eq(test_bench(3, unknown), EXIT_INPUT);
    cr_assert_eq(test_bench(2, missing), EXIT_INPUT);
    cr_assert_eq(test_bench(4, order), EXIT_INPUT);
    cr_assert_eq(test_bench(3, size), EXIT_INPUT);
}

Test(bench, no_gpu_exits_3)
{
    if (!test_gpu_missing())
        cr_skip_test("a GPU is present: bench.small_sweep covers this machine");
    const char *argv[] = { "allreduce", "--maxbytes", "1M" };
    cr_assert_eq(test_bench(3, argv), EXIT_ENV);
}

Test(bench, small_sweep)
{
    NEED_GPU();
    const char *bf16[] = { "allreduce", "--maxbytes", "4M", "--iters", "3", "--warmup", "1", "--dtype", "bf16" };
    cr_assert_eq(test_bench(9, bf16), EXIT_OK);
    const char *fp8[] = { "allreduce", "--maxbytes=1M", "--iters=2", "--warmup=1", "--dtype=fp8" };
    int major = 0;
    cr_assert_eq(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    cr_assert_eq(test_bench(5, fp8), major >= 9 ? EXIT_OK : EXIT_ENV);
}

Test(coll_gpu, one_rank_allreduce_is_exact)
{
    NEED_GPU();
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    for (int t = 0; t < DT_COUNT; t++) {
        struct coll *c = test_coll((enum dtype)t, 1 * MiB + 3, 0.0, 0, s);
        ncclDataType_t nt = coll_type(c);
        size_t n = coll_count(c), esize = coll_type_size(nt);
        cr_assert_eq(n, (1 * MiB + 3) / esize, "bytes round down to whole elements");
        unsigned char *host = xmalloc(n * esize), *back = xmalloc(n * esize);
        cr_assert_eq(cudaMemcpy(back, coll_buffer(c), n * esize, cudaMemcpyDeviceToHost), cudaSuccess);
        for (size_t i = 0; i < n; i++)
            cr_assert(coll_get(nt, back + i * esize) != 0.0, "%s element %zu of the fill is zero", dtype_name(t), i);
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(coll_put_int(nt, host + i * esize, (long)(i % 31) - 15), 0);
        cr_assert_eq(cudaMemcpy(coll_buffer(c), host, n * esize, cudaMemcpyHostToDevice), cudaSuccess);
        cr_assert_eq(coll_allreduce(c, s), 0, "%s", coll_error(c));
        cr_assert_eq(coll_wait(c, s, 30.0), 0, "%s", coll_error(c));
        cr_assert_eq(cudaMemcpy(back, coll_buffer(c), n * esize, cudaMemcpyDeviceToHost), cudaSuccess);
        cr_assert_eq(memcmp(host, back, n * esize), 0, "%s: the sum over one rank is the data itself", dtype_name(t));
        free(host);
        free(back);
        coll_destroy(c);
    }
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
}

/* The division the ranks' mean takes before its ncclSum (coll.c): every element of every dtype times 1/4 exactly
 * (integers -15..15: exact in each type), from an aligned buffer (16 bytes a thread) and from one an element off it
 * (one at a time), with a tail that fills no 16 bytes; 1/3 within half a unit in the last place of the type. */
Test(coll_gpu, the_division_before_the_sum_rounds_every_element_of_every_dtype)
{
    NEED_GPU();
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    static const double half_ulp[DT_COUNT] = { 0x1p-8, 0x1p-11, 0x1p-24, 0x1p-4 };
    for (int t = 0; t < DT_COUNT; t++) {
        struct coll *c = test_coll((enum dtype)t, 1 * MiB + 5, 0.0, 0, s);
        ncclDataType_t nt = coll_type(c);
        size_t n = coll_count(c), es = coll_type_size(nt);
        unsigned char *host = xmalloc(n * es), *back = xmalloc(n * es), *dev = coll_buffer(c);
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(coll_put_int(nt, host + i * es, (long)(i % 31) - 15), 0);
        for (int off = 0; off < 2; off++)
            for (int third = 0; third < 2; third++) {
                float f = third ? 1.0f / 3.0f : 0.25f;
                cr_assert_eq(cudaMemcpy(dev, host, n * es, cudaMemcpyHostToDevice), cudaSuccess);
                cr_assert_eq(kernel_scale(dev + off * es, n - (size_t)off, (enum dtype)t, f, s), 0);
                cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
                cr_assert_eq(cudaMemcpy(back, dev, n * es, cudaMemcpyDeviceToHost), cudaSuccess);
                for (size_t i = 0; i < n; i++) {
                    double v = coll_get(nt, host + i * es), got = coll_get(nt, back + i * es);
                    double want = i < (size_t)off ? v : v * (double)f;
                    double tol = third && i >= (size_t)off ? fabs(want) * half_ulp[t] * 1.0001 : 0;
                    cr_assert(fabs(got - want) <= tol, "%s offset %d x %g: element %zu is %g, expected %g",
                              dtype_name(t), off, (double)f, i, got, want);
                }
            }
        free(host);
        free(back);
        coll_destroy(c);
    }
    cr_assert_eq(kernel_scale(NULL, 4, DT_BF16, 0.5f, s), -1);
    cr_assert_eq(kernel_scale(NULL, 0, DT_COUNT, 0.5f, s), -1);
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
}

Test(coll_gpu, emulation_stretches_the_phase)
{
    NEED_GPU();
    cudaStream_t s;
    cudaEvent_t e0, e1;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&e0), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&e1), cudaSuccess);
    /* 16 MiB at 1 GB/s busbw across 2 ranks: 16.8 ms, far above a 1-rank all-reduce of 16 MiB. */
    struct coll *c = test_coll(DT_BF16, 16 * MiB, 1.0, 2, s);
    double target = coll_emulated_seconds(16 * MiB, 1.0, 2);
    cr_assert_float_eq(coll_emulated(c), target, 1e-12);
    cr_assert_eq(coll_allreduce(c, s), 0, "%s", coll_error(c));   /* warm-up: module loading, first launch */
    cr_assert_eq(coll_wait(c, s, 30.0), 0, "%s", coll_error(c));
    for (int i = 0; i < 5; i++) {
        float ms = 0;
        cr_assert_eq(cudaEventRecord(e0, s), cudaSuccess);
        cr_assert_eq(coll_allreduce(c, s), 0, "%s", coll_error(c));
        cr_assert_eq(cudaEventRecord(e1, s), cudaSuccess);
        cr_assert_eq(coll_wait(c, s, 30.0), 0, "%s", coll_error(c));
        cr_assert_eq(cudaEventElapsedTime(&ms, e0, e1), cudaSuccess);
        double got = ms * 1e-3;
        cr_log_info("emulated phase %d: %.3f ms, want %.3f-%.3f ms (target %.3f ms -0.5 %%/+3 %%)", i, ms,
                    target * 0.995e3, target * 1.03e3, target * 1e3);
        cr_assert(got >= target * 0.995 && got <= target * 1.03, "phase %d took %.3f ms, outside %.3f-%.3f ms (target "
                  "%.3f ms)", i, ms, target * 0.995e3, target * 1.03e3, target * 1e3);
    }
    coll_destroy(c);
    cr_assert_eq(cudaEventDestroy(e0), cudaSuccess);
    cr_assert_eq(cudaEventDestroy(e1), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
}

Test(coll_gpu, wait_times_out_and_aborts)
{
    NEED_GPU();
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    /* 1 MiB at 0.00025 GB/s across 2 ranks: a 4.2 s phase, waited on for 0.2 s. The abort must not wait for
     * it either: ncclCommAbort syncs NCCL's own streams, not the rank's. */
    struct coll *c = test_coll(DT_BF16, 1 * MiB, 0.00025, 2, s);
    cr_assert_gt(coll_emulated(c), 4.0);
    cr_assert_eq(coll_allreduce(c, s), 0, "%s", coll_error(c));
    uint64_t t0 = mono_ns();
    int rc = coll_wait(c, s, 0.2);
    double took = (double)(mono_ns() - t0) * 1e-9;
    cr_assert_eq(rc, -1, "coll_wait must give up after its timeout");
    /* Measured on an H100 (NCCL 2.28.9): ncclCommAbort waits for the work already on the stream, the emulated
     * wait included, so the call returns when the phase would have ended; it must not hang past that. */
    cr_log_info("coll_wait with a 0.2 s timeout returned after %.3f s, want 0.2-%.3f s (the %.3f s phase + 2 s)", took,
                coll_emulated(c) + 2.0, coll_emulated(c));
    cr_assert(took >= 0.2 && took < coll_emulated(c) + 2.0, "coll_wait returned after %.3f s, outside 0.2-%.3f s", took,
              coll_emulated(c) + 2.0);
    cr_assert_null(coll_comm(c), "the communicator is aborted");
    cr_assert(strstr(coll_error(c), "did not complete"), "error: %s", coll_error(c));
    cr_assert_eq(coll_allreduce(c, s), -1, "an aborted coll refuses work");
    coll_destroy(c);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
}
