/* tests/test_cuda_gemm.c: the cuBLASLt compute phase and the seeded fill against CPU references.
 * GPU tests skip with the runtime's reason when no GPU is usable. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "e2e.h"
#include "bench_torch.h"
#include "gemm.h"
#include "kernels.h"
#include "rankplan.h"
#include "util.h"

/* Returns the float value of a bf16, fp16, fp32 or fp8 e4m3 element i of raw data of dtype t. */
static float elem_to_f32(const unsigned char *raw, size_t i, enum dtype t)
{
    uint16_t h;
    uint32_t u;
    float f;
    switch (t) {
    case DT_BF16:
        memcpy(&h, raw + 2 * i, 2);
        u = (uint32_t)h << 16;
        memcpy(&f, &u, 4);
        return f;
    case DT_FP16: {
        memcpy(&h, raw + 2 * i, 2);
        int e = (h >> 10) & 0x1f, mant = h & 0x3ff;
        f = e == 0 ? ldexpf((float)mant, -24)
                   : e == 31 ? (mant ? NAN : INFINITY) : ldexpf((float)(mant | 0x400), e - 25);
        return h >> 15 ? -f : f;
    }
    case DT_TF32:
        memcpy(&f, raw + 4 * i, 4);
        return f;
    default: {
        unsigned char x = raw[i];
        int e = (x >> 3) & 0xf, mant = x & 7;
        f = (e == 15 && mant == 7) ? NAN : e == 0 ? ldexpf((float)mant, -9) : ldexpf((float)(mant | 8), e - 10);
        return x >> 7 ? -f : f;
    }
    }
}

/* Returns 1 when element i of raw data of dtype t is +0 or -0. */
static int elem_is_zero(const unsigned char *raw, size_t i, enum dtype t)
{
    size_t sz = dtype_size(t);
    uint32_t bits = 0;
    memcpy(&bits, raw + sz * i, sz);
    uint32_t sign = 1u << (8 * sz - 1);
    return (bits & ~sign) == 0;
}

/* Fills a device buffer of n elements of t from seed and copies the bytes back (caller frees). */
static unsigned char *fill_and_copy(enum dtype t, size_t n, unsigned long long seed, float scale)
{
    void *d = NULL;
    unsigned char *h = malloc(n * dtype_size(t));
    cr_assert_not_null(h);
    cr_assert_eq(cudaMalloc(&d, n * dtype_size(t)), cudaSuccess);
    cr_assert_eq(kernel_fill_normal(d, n, t, seed, scale, 0), 0);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert_eq(cudaMemcpy(h, d, n * dtype_size(t), cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(cudaFree(d), cudaSuccess);
    return h;
}

/* Checks fill of dtype t: deterministic per seed, different across seeds, no zero, no NaN, N(0, scale^2). */
static void check_fill(enum dtype t, float scale)
{
    const size_t n = (1u << 16) + 3;   /* not a multiple of the block size */
    unsigned char *a = fill_and_copy(t, n, 42, scale), *b = fill_and_copy(t, n, 42, scale);
    unsigned char *c = fill_and_copy(t, n, 43, scale);
    size_t differ = 0;
    double sum = 0, sum2 = 0;
    cr_assert_eq(memcmp(a, b, n * dtype_size(t)), 0, "%s: the same seed gave different data", dtype_name(t));
    for (size_t i = 0; i < n; i++) {
        float x = elem_to_f32(a, i, t);
        cr_assert(!elem_is_zero(a, i, t), "%s: element %zu is zero", dtype_name(t), i);
        cr_assert(isfinite(x), "%s: element %zu is not finite", dtype_name(t), i);
        differ += memcmp(a + i * dtype_size(t), c + i * dtype_size(t), dtype_size(t)) != 0;
        sum += x;
        sum2 += (double)x * x;
    }
    double mean = sum / (double)n, sd = sqrt(sum2 / (double)n - mean * mean);
    cr_log_info("%s fill (scale %g): seeds 42 and 43 differ on %zu of %zu elements (want > half); mean %.4g (want |mean| "
                "< %.4g); std %.4g (want within 5 %% of %g)", dtype_name(t), (double)scale, differ, n, mean, 0.02 * scale,
                sd, (double)scale);
    cr_assert_gt(differ, n / 2, "%s: seeds 42 and 43 agree on %zu of %zu elements", dtype_name(t), n - differ, n);
    cr_assert_lt(fabs(mean), 0.02 * scale, "%s: mean %g, want |mean| < %g", dtype_name(t), mean, 0.02 * scale);
    cr_assert_lt(fabs(sd / scale - 1.0), 0.05, "%s: std %g, want within 5 %% of %g", dtype_name(t), sd, (double)scale);
    free(a);
    free(b);
    free(c);
}

/* Runs a chain of 2 GEMMs of dtype t and compares D with a double-precision CPU product of the copied A, B. */
static void check_gemm(enum dtype t, long m, long n, long k, double tol)
{
    char err[256] = "";
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    struct gemm_chain *g = gemm_chain_create(t, m, n, k, 2, 7, s, err, sizeof err);
    cr_assert_not_null(g, "%s %ldx%ldx%ld: %s", dtype_name(t), m, n, k, err);
    cr_assert_eq(gemm_chain_run(g, s), 0);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n));
    float *c = malloc(sizeof(float) * (size_t)(m * n));
    cr_assert(a && b && c);
    cr_assert_eq(gemm_chain_copy_ab(g, a, b), 0);
    cr_assert_eq(gemm_chain_copy_c(g, c), 0);
    double num = 0, den = 0;
    for (long j = 0; j < n; j++)
        for (long i = 0; i < m; i++) {
            double ref = 0;
            for (long p = 0; p < k; p++)
                ref += (double)a[i * k + p] * (double)b[j * k + p];
            double got = c[j * m + i];
            cr_assert(isfinite(got), "%s: D(%ld,%ld) = %g", dtype_name(t), i, j, got);
            num += (got - ref) * (got - ref);
            den += ref * ref;
        }
    double rel = sqrt(num / den);
    cr_assert_gt(den, 0.0);
    cr_log_info("%s %ldx%ldx%ld: relative Frobenius error %.3g (want < %g)", dtype_name(t), m, n, k, rel, tol);
    cr_assert_lt(rel, tol, "%s %ldx%ldx%ld: relative Frobenius error %g >= %g", dtype_name(t), m, n, k, rel, tol);
    free(a);
    free(b);
    free(c);
    gemm_chain_destroy(g);
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
}

static const double gemm_tol[DT_COUNT] = { 1e-2, 5e-3, 2e-3, 6e-2 };

/* Two ranks' chains, made from their seeds as cuda_init makes them (rankplan_seeds): the same weights B, bit for
 * bit (the fingerprint hashes them and the supervisor compares the ranks), their own activations A. */
Test(gemm, every_rank_fills_the_same_weights)
{
    e2e_need_gpu();
    const long m = 256, n = 128, k = 512;
    char err[256] = "";
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    float *a[2], *b[2];
    for (int r = 0; r < 2; r++) {
        uint64_t sa, sb;
        rankplan_seeds(42, r, 0, &sa, &sb);
        struct gemm_chain *g = gemm_chain_create_ab(DT_BF16, m, n, k, 1, sa, sb, s, err, sizeof err);
        cr_assert_not_null(g, "rank %d: %s", r, err);
        a[r] = xmalloc(sizeof(float) * (size_t)(m * k));
        b[r] = xmalloc(sizeof(float) * (size_t)(k * n));
        cr_assert_eq(gemm_chain_copy_ab(g, a[r], b[r]), 0);
        gemm_chain_destroy(g);
    }
    cr_assert_eq(memcmp(b[0], b[1], sizeof(float) * (size_t)(k * n)), 0, "ranks 0 and 1 hold different weights");
    cr_assert_neq(memcmp(a[0], a[1], sizeof(float) * (size_t)(m * k)), 0, "ranks 0 and 1 share their activations");
    for (int r = 0; r < 2; r++) {
        free(a[r]);
        free(b[r]);
    }
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
}

Test(gemm, bf16_square) { e2e_need_gpu(); check_gemm(DT_BF16, 256, 256, 256, gemm_tol[DT_BF16]); }
Test(gemm, bf16_rect) { e2e_need_gpu(); check_gemm(DT_BF16, 384, 128, 512, gemm_tol[DT_BF16]); }
Test(gemm, fp16_square) { e2e_need_gpu(); check_gemm(DT_FP16, 256, 256, 256, gemm_tol[DT_FP16]); }
Test(gemm, fp16_rect) { e2e_need_gpu(); check_gemm(DT_FP16, 384, 128, 512, gemm_tol[DT_FP16]); }
Test(gemm, tf32_square) { e2e_need_gpu(); check_gemm(DT_TF32, 256, 256, 256, gemm_tol[DT_TF32]); }
Test(gemm, tf32_rect) { e2e_need_gpu(); check_gemm(DT_TF32, 384, 128, 512, gemm_tol[DT_TF32]); }
Test(gemm, fp8_square) { e2e_need_gpu(); check_gemm(DT_FP8, 256, 256, 256, gemm_tol[DT_FP8]); }
Test(gemm, fp8_rect) { e2e_need_gpu(); check_gemm(DT_FP8, 384, 128, 512, gemm_tol[DT_FP8]); }

Test(fill, deterministic_nonzero_normal)
{
    e2e_need_gpu();
    for (int t = 0; t < DT_COUNT; t++)
        check_fill((enum dtype)t, 1.0f);
    check_fill(DT_BF16, 0.25f);
}

Test(gemm, absurd_size_fails_with_message)
{
    e2e_need_gpu();
    char err[256] = "";
    struct gemm_chain *g = gemm_chain_create(DT_BF16, 1L << 20, 1L << 20, 1L << 20, 8, 1, 0, err, sizeof err);
    cr_assert_null(g);
    cr_assert(strstr(err, "does not fit") && strstr(err, "MiB free"), "message: '%s'", err);
    err[0] = 0;
    g = gemm_chain_create(DT_FP8, 100, 128, 128, 8, 1, 0, err, sizeof err);
    cr_assert_null(g);
    cr_assert(strstr(err, "multiples of 16"), "message: '%s'", err);
}

/* Needs no GPU: the shape rules and the arithmetic of sizes. */
Test(gemm, host_helpers)
{
    char err[256];
    cr_assert_eq(gemm_flops(2, 3, 4), 48.0);
    /* A, B, D, the workspace, the scales and abft's scratch (a double per column of the larger of A and D) */
    cr_assert_eq(gemm_chain_bytes(DT_BF16, 8192, 8192, 8192, 8),
                 3 * (128ull << 20) + GEMM_WORKSPACE_BYTES + 256 + 8 * 8192);
    cr_assert_eq(gemm_chain_bytes(DT_FP8, 8192, 8192, 8192, 8),
                 2 * (64ull << 20) + (128ull << 20) + GEMM_WORKSPACE_BYTES + 256 + 8 * 8192);
    cr_assert_eq(gemm_chain_bytes(DT_TF32, 1024, 1024, 1024, 1), 3 * (4ull << 20) + GEMM_WORKSPACE_BYTES + 256 + 8 * 1024);
    cr_assert_eq(gemm_chain_bytes(DT_BF16, 16, 16, 1L << 24, 1),
                 2 * ((16ull << 24) * 2) + 16 * 16 * 2 + GEMM_WORKSPACE_BYTES + 256 + (128ull << 20),
                 "k = 2^24: 128 MiB of abft scratch");
    cr_assert_eq(gemm_chain_bytes(DT_BF16, 16, 1L << 20, 16, 1),
                 16 * 16 * 2 + 2 * ((16ull << 20) * 2) + GEMM_WORKSPACE_BYTES + 256 + (8ull << 20));
    cr_assert_eq(gemm_chain_bytes(DT_BF16, -1, 8, 8, 1), SIZE_MAX);
    cr_assert_eq(gemm_chain_bytes(DT_BF16, 1L << 62, 1L << 62, 8, 1), SIZE_MAX);
    cr_assert_eq(gemm_shape_ok(DT_BF16, 1000, 7, 3, err, sizeof err), 0);
    cr_assert_eq(gemm_shape_ok(DT_FP8, 384, 128, 512, err, sizeof err), 0);
    cr_assert_eq(gemm_shape_ok(DT_FP8, 384, 128, 520, err, sizeof err), -1);
    cr_assert(strstr(err, "multiples of 16"), "message: '%s'", err);
    cr_assert_eq(gemm_shape_ok(DT_BF16, 0, 8, 8, err, sizeof err), -1);
    cr_assert_eq(gemm_shape_ok(DT_BF16, 8, 8, 8, NULL, 0), 0);
    cr_assert_eq(gemm_shape_ok(DT_COUNT, 8, 8, 8, NULL, 0), -1);
    /* split-K roundings to the output type (cublasLtReductionScheme_t: none 0, in place 1, compute type 2, output
     * type 4, mask 7) */
    cr_assert_eq(gemm_out_roundings(1, 4), 1);
    cr_assert_eq(gemm_out_roundings(8, 0), 1);
    cr_assert_eq(gemm_out_roundings(8, 2), 1);
    cr_assert_eq(gemm_out_roundings(8, 1), 8);
    cr_assert_eq(gemm_out_roundings(8, 4), 9, "each part stored in the output type, then their sum rounded");
    cr_assert_eq(gemm_out_roundings(8, 7), 9, "not known: the worst");
    cr_assert_eq(gemm_out_roundings(5000, 4), 1025);
}

/* Needs no GPU (skips when there is one): without a device, create fails with a message, not a crash. */
Test(gemm, create_without_gpu_fails_cleanly)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0)
        cr_skip_test("a GPU is usable: %s", "the no-GPU path is not reachable");
    char err[256] = "";
    cr_assert_null(gemm_chain_create(DT_BF16, 256, 256, 256, 1, 1, 0, err, sizeof err));
    cr_assert_neq(err[0], 0);
    cr_log_info("without a GPU: %s", err);
}

/* cuBLASLt is opened on first use (harness/backends/cuda/lt_load.c), not at exec: the forwarders reach the real library
 * (its version) and the program does not load it before. Needs no GPU. */
#include <cublasLt.h>
Test(lt_load, cublaslt_is_loaded_on_first_use_and_reached)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    cr_assert_not_null(maps);
    char line[512];
    int loaded = 0;
    while (fgets(line, sizeof line, maps))
        loaded |= strstr(line, "libcublasLt") != NULL;
    fclose(maps);
    cr_expect(!loaded, "libcublasLt is mapped before its first use");
    size_t v = cublasLtGetVersion();
    cr_expect(v / 10000 == CUBLAS_VER_MAJOR, "cublasLtGetVersion() = %zu through the forwarder, header major %d", v,
              CUBLAS_VER_MAJOR);
    cr_expect_str_neq(cublasLtGetStatusName(CUBLAS_STATUS_SUCCESS), "");
}

/* PyTorch's side of `bench gemm`, driven against the stand-in in tests/fake-torch (a virtual clock: 2mnk / 1e12 s per
 * matmul), without a GPU: the co-process's protocol, its arithmetic (the untimed lead matmul left out, the time per
 * matmul), and every way it can fail said without a hang. With PyTorch and a GPU its timing is gpu-check.sh's gemm
 * section. */
static int fake_torch(const char *mode)
{
    if (access("/usr/bin/python3", X_OK) != 0)
        return 0;
    char path[1024];   /* the tree where the tests run (gpu-check.sh's $GAUNTLET_SRC), not where they were built */
    cr_assert(snprintf(path, sizeof path, "%s/tests/fake-torch", e2e_src()) < (int)sizeof path);
    cr_assert_eq(setenv("PYTHONPATH", path, 1), 0);
    cr_assert_eq(setenv("GAUNTLET_FAKE_TORCH", mode, 1), 0);
    signal(SIGPIPE, SIG_IGN);   /* as main does: a write to a peer that has gone is an error, not a death */
    return 1;
}

Test(bench, torch_peer_times_each_matmul_without_its_lead)
{
    if (!fake_torch("ok"))
        cr_skip_test("no /usr/bin/python3");
    const enum dtype ts[] = { DT_BF16, DT_FP16, DT_TF32, DT_FP8 };
    for (size_t i = 0; i < ARRAY_LEN(ts); i++) {
        char why[256] = "", ks[512];
        long m = 256, n = 128 + 16 * (long)i, k = 64;
        struct torch_peer *p = torch_peer_open("/usr/bin/python3", ts[i], m, n, k, 60, why, sizeof why);
        cr_assert_not_null(p, "%s: %s", dtype_name(ts[i]), why);
        cr_expect_str_eq(torch_peer_version(p), "0.0-stand-in");
        for (long count = 1; count <= 7; count += 3) {
            double s = -1;
            cr_assert_eq(torch_peer_time(p, count, &s, why, sizeof why), 0, "%s", why);
            double want = 2.0 * (double)m * (double)n * (double)k / 1e12;
            cr_expect(fabs(s - want) <= 1e-9 * want, "%s count %ld: %.12g s per matmul, want %.12g", dtype_name(ts[i]),
                      count, s, want);
        }
        cr_assert_eq(torch_peer_kernels(p, ks, sizeof ks, why, sizeof why), 0, "%s", why);
        char want_k[64];
        /* the harness's GEMM as cuBLAS runs it: TN, m x n x k (a @ b of (m, k) and (k, n) ran NN as n x m) */
        snprintf(want_k, sizeof want_k, "fake_gemm_TN_%ldx%ldx%ld", m, n, k);
        cr_expect_str_eq(ks, want_k, "%s: the CUDA kernels of one matmul, once each, no CPU event", dtype_name(ts[i]));
        torch_peer_close(p);
    }
    /* a line on its stdout that is not an answer (a library's banner) is skipped */
    fake_torch("noise");
    char why[256] = "";
    double s = -1;
    struct torch_peer *p = torch_peer_open("/usr/bin/python3", DT_BF16, 64, 64, 64, 60, why, sizeof why);
    cr_assert_not_null(p, "%s", why);
    cr_expect_eq(torch_peer_time(p, 2, &s, why, sizeof why), 0, "%s", why);
    torch_peer_close(p);
}

/* Every failure is a sentence and -1, never a hang or a crash; after one, the peer answers nothing more. */
Test(bench, torch_peer_failures_are_said)
{
    if (!fake_torch("ok"))
        cr_skip_test("no /usr/bin/python3");
    char why[256] = "";
    double s = -1;
    cr_assert_null(torch_peer_open("/nonexistent/python3", DT_BF16, 64, 64, 64, 60, why, sizeof why));
    cr_expect(strstr(why, "cannot start /nonexistent/python3"), "%s", why);
    if (system("/usr/bin/python3 -c 'import sys' 2>/dev/null") == 0) {
        cr_assert_eq(setenv("PYTHONPATH", "/nonexistent", 1), 0);
        if (system("/usr/bin/python3 -c 'import torch' 2>/dev/null") != 0) {
            cr_assert_null(torch_peer_open("/usr/bin/python3", DT_BF16, 64, 64, 64, 60, why, sizeof why));
            cr_expect(strstr(why, "PyTorch is not installed"), "%s", why);
        }
    }
    const struct { const char *mode, *said; } cases[] = {
        { "nogpu", "PyTorch sees no GPU" }, { "matmul-fails", "bf16 matmul failed: CUBLAS_STATUS_NOT_SUPPORTED" },
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        fake_torch(cases[i].mode);
        why[0] = 0;
        cr_assert_null(torch_peer_open("/usr/bin/python3", DT_BF16, 64, 64, 64, 60, why, sizeof why));
        cr_expect(strstr(why, cases[i].said), "%s: %s", cases[i].mode, why);
    }
    fake_torch("die:2");
    struct torch_peer *p = torch_peer_open("/usr/bin/python3", DT_BF16, 64, 64, 64, 60, why, sizeof why);
    cr_assert_not_null(p, "%s", why);
    cr_expect_eq(torch_peer_time(p, 1, &s, why, sizeof why), 0, "%s", why);
    cr_expect_eq(torch_peer_time(p, 1, &s, why, sizeof why), -1);
    cr_expect(strstr(why, "exited (status 3) without answering"), "%s", why);
    cr_expect_eq(torch_peer_time(p, 1, &s, why, sizeof why), -1);
    cr_expect(strstr(why, "stopped after an earlier failure"), "%s", why);
    torch_peer_close(p);

    fake_torch("hang:1");
    p = torch_peer_open("/usr/bin/python3", DT_BF16, 64, 64, 64, 60, why, sizeof why);
    cr_assert_not_null(p, "%s", why);
    torch_peer_set_timeout(p, 1.0);
    uint64_t t0 = mono_ns();
    cr_expect_eq(torch_peer_time(p, 1, &s, why, sizeof why), -1);
    cr_expect(strstr(why, "did not answer within 1 s"), "%s", why);
    torch_peer_close(p);
    cr_expect_lt((double)(mono_ns() - t0) * 1e-9, 30.0, "a hung peer is killed, not waited for");
}
