/* harness/backends/cuda/bench_gemm.c: `gauntlet bench gemm`: the harness's compute phase against a bare cuBLASLt loop
 * and PyTorch's matmul.
 *
 * The harness and the bare loop run in one process on the same operands (the bare loop reads the chain's A and B);
 * PyTorch's matmul runs in a co-process kept for the dtype (bench_torch.c) on operands of the same distribution.
 * The three take turns within every repetition, their order rotating through every permutation, after a warm-up
 * of at least --warmup-s seconds: a GPU under a power limit runs the first tens of milliseconds after an idle
 * spell above it (measured on an H200: 920-980 W for 60-80 ms against a 700 W limit), so a side timed alone
 * right after a pause would be timed at clocks the others never see. Each sample starts behind one untimed GEMM of
 * its side, so the GPU is busy when the start event is recorded, and lasts about --sample-ms. The bare side is
 * written here independently of gemm.c, from the cuBLASLt documentation: its own handle, descriptors, heuristic
 * query, workspace and output, and a tight loop of cublasLtMatmul calls. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gemm.h"
#include "bench_torch.h"
#include "stats.h"
#include "util.h"

#define BENCH_GEMM_MIN_RATIO 0.995   /* the harness's chain against the bare loop */
#define BENCH_GEMM_TORCH_AIM 0.99    /* against PyTorch's matmul of the same shape and dtype */
#define BENCH_GEMM_SEED 1ull

/* The command line, resolved. */
struct bench_gemm_opts {
    long m, n, k, count, iters, warmup;
    double warmup_s, sample_ms;            /* warm-up at least this long; each sample about this long */
    int want[DT_COUNT];                    /* which dtypes to run */
    char python[256];                      /* the interpreter PyTorch is timed under ("": not timed) */
};

/* One measured dtype: medians in seconds per GEMM, or the reason it could not run. */
struct bench_gemm_row {
    enum dtype t;
    int ok;
    double harness_s, bare_s;
    /* throughput ratios, each the median of the repetitions' paired ratios (the sides of one repetition run
     * back to back) with its 95 % interval (stats.h, ratio_median_ci): harness / bare, harness / PyTorch */
    double ratio, ratio_lo, ratio_hi, vs_torch, vs_torch_lo, vs_torch_hi;
    char err[256];
    double torch_s;                        /* PyTorch's matmul on the same GPU (NAN: not timed, torch_why says why) */
    char torch_why[256];
    char torch_version[64];
    char torch_kernels[512];               /* the kernels one PyTorch matmul launched ("": not known) */
    char algo[160], bare_algo[160];        /* the harness's and the bare loop's algorithms (gemm_algo_text) */
    struct gemm_tuning tuning;
    long reps, rounds;                     /* a sample: reps x count GEMMs; warm-up rounds run */
    double warm_s;                         /* the warm-up's length */
};

/* The reference: a bare cuBLASLt GEMM on borrowed A and B. */
struct bench_bare {
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, ld;
    cublasLtMatmulAlgo_t algo;
    const void *a, *b;
    void *d, *ws;
    float *scales;
    float alpha, beta;
};

/* Prints the usage on f. */
static void bench_gemm_usage(FILE *f)
{
    fprintf(f, "usage: gauntlet bench gemm [--m N] [--n N] [--k N] [--dtype bf16|fp16|tf32|fp8|all]\n"
               "                           [--count N] [--iters N] [--warmup N] [--warmup-s S] [--sample-ms MS]\n"
               "                           [--python PATH|none]\n"
               "Times the harness's compute phase (a chain of --count cuBLASLt GEMMs) against a bare\n"
               "cublasLtMatmul loop on the same data, and PyTorch's matmul of the same shape and dtype on the\n"
               "same GPU (in a co-process, where --python has PyTorch; none: skipped), the three in turn, their\n"
               "order rotating, after at least --warmup rounds and --warmup-s seconds of warm-up; a sample is\n"
               "about --sample-ms of GEMMs. Prints median time and TFLOP/s per GEMM, the ratios (the median of\n"
               "each repetition's pair, with a 95%% interval: a ratio under its aim is LOW only when the whole\n"
               "interval is), each side's algorithm (cuBLASLt's configuration; PyTorch's kernel names).\n"
               "defaults: --m 8192 --n 8192 --k 8192 --dtype bf16 --count 8 --iters 50 --warmup 10 --warmup-s 1\n"
               "          --sample-ms 20 --python python3\n");
}

/* Parses val as an integer in lo..hi for option name; 0, or -1 with a message naming the option. */
static int bench_gemm_long(const char *name, const char *val, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (errno || end == val || *end || v < lo || v > hi) {
        gl_log("bench gemm: %s: '%s' is not an integer in %ld..%ld", name, val, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* Parses val as a number in lo..hi for option name; 0, or -1 with a message naming the option. */
static int bench_gemm_double(const char *name, const char *val, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (errno || end == val || *end || !(v >= lo && v <= hi)) {
        gl_log("bench gemm: %s: '%s' is not a number in %g..%g", name, val, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* Fills o from argv; returns -1 (done, exit 0) for --help, 0 to go on, or EXIT_INPUT after a message. */
static int bench_gemm_parse(int argc, char **argv, struct bench_gemm_opts *o)
{
    struct { const char *name; long *dst; long lo, hi; } nums[] = {
        { "--m", &o->m, 1, 1L << 24 }, { "--n", &o->n, 1, 1L << 24 }, { "--k", &o->k, 1, 1L << 24 },
        { "--count", &o->count, 1, 100000 }, { "--iters", &o->iters, 1, 1000000 },
        { "--warmup", &o->warmup, 0, 1000000 },
    };
    *o = (struct bench_gemm_opts){ .m = 8192, .n = 8192, .k = 8192, .count = 8, .iters = 50, .warmup = 10,
                                   .warmup_s = 1.0, .sample_ms = 20.0, .python = "python3" };
    o->want[DT_BF16] = 1;
    for (int i = 1; i < argc; i++) {
        char name[32];
        const char *arg = argv[i], *eq = strchr(arg, '='), *val;
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            bench_gemm_usage(stdout);
            return -1;
        }
        if (strncmp(arg, "--", 2) != 0 || nlen >= sizeof name) {
            gl_log("bench gemm: unknown argument '%s' (see --help)", arg);
            return EXIT_INPUT;
        }
        memcpy(name, arg, nlen);
        name[nlen] = 0;
        int known = !strcmp(name, "--dtype") || !strcmp(name, "--python") || !strcmp(name, "--warmup-s") ||
                    !strcmp(name, "--sample-ms");
        for (size_t j = 0; j < ARRAY_LEN(nums); j++)
            known |= !strcmp(name, nums[j].name);
        if (!known) {
            gl_log("bench gemm: unknown argument '%s' (see --help)", name);
            return EXIT_INPUT;
        }
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else {
            gl_log("bench gemm: %s needs a value (see --help)", name);
            return EXIT_INPUT;
        }
        for (size_t j = 0; j < ARRAY_LEN(nums); j++)
            if (!strcmp(name, nums[j].name) && bench_gemm_long(name, val, nums[j].lo, nums[j].hi, nums[j].dst))
                return EXIT_INPUT;
        if (!strcmp(name, "--warmup-s") && bench_gemm_double(name, val, 0, 600, &o->warmup_s))
            return EXIT_INPUT;
        if (!strcmp(name, "--sample-ms") && bench_gemm_double(name, val, 0.001, 10000, &o->sample_ms))
            return EXIT_INPUT;
        if (!strcmp(name, "--python")) {
            if (!*val || strlen(val) >= sizeof o->python) {
                gl_log("bench gemm: --python: expected an interpreter's name or path, or none");
                return EXIT_INPUT;
            }
            str_copy(o->python, sizeof o->python, strcmp(val, "none") == 0 ? "" : val);
        }
        if (!strcmp(name, "--dtype")) {
            int any = 0;
            for (int t = 0; t < DT_COUNT; t++)
                any |= o->want[t] = !strcmp(val, "all") || !strcmp(val, dtype_name((enum dtype)t));
            if (!any) {
                gl_log("bench gemm: --dtype: '%s' is not one of %s,all", val, DTYPE_CHOICES);
                return EXIT_INPUT;
            }
        }
    }
    for (int t = 0; t < DT_COUNT; t++) {
        char err[256];
        if (o->want[t] && gemm_shape_ok((enum dtype)t, o->m, o->n, o->k, err, sizeof err) != 0) {
            gl_log("bench gemm: --m/--n/--k: %s", err);
            return EXIT_INPUT;
        }
    }
    return 0;
}

/* Frees what b holds (not the borrowed A and B). */
static void bench_bare_destroy(struct bench_bare *b)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    if (b->ld)
        CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(b->ld));
    if (b->lb)
        CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(b->lb));
    if (b->la)
        CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(b->la));
    if (b->op)
        CUBLAS_CHECK(cublasLtMatmulDescDestroy(b->op));
    if (b->lt)
        CUBLAS_CHECK(cublasLtDestroy(b->lt));
    if (b->d)
        CUDA_CHECK(cudaFree(b->d));
    if (b->ws)
        CUDA_CHECK(cudaFree(b->ws));
    if (b->scales)
        CUDA_CHECK(cudaFree(b->scales));
    memset(b, 0, sizeof *b);
}

/* Sets up the reference GEMM D = A^T B (TN, column-major) on the given A and B, following the cuBLASLt
 * samples (LtSgemm, LtFp8Matmul): best heuristic algorithm within the same 32 MiB workspace. 0 or -1. */
static int bench_bare_create(struct bench_bare *b, enum dtype t, long m, long n, long k, const void *a,
                             const void *bm)
{
    static const float ones[GEMM_SCALE_STRIDE + 1] = { [0] = 1.0f, [GEMM_SCALE_STRIDE] = 1.0f };
    cudaDataType_t in = t == DT_BF16 ? CUDA_R_16BF : t == DT_FP16 ? CUDA_R_16F : t == DT_TF32 ? CUDA_R_32F
                                                                                              : CUDA_R_8F_E4M3;
    cudaDataType_t out = t == DT_FP16 ? CUDA_R_16F : t == DT_TF32 ? CUDA_R_32F : CUDA_R_16BF;
    size_t out_size = t == DT_TF32 ? 4 : 2;
    cublasComputeType_t ct = t == DT_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    uint64_t ws_bytes = GEMM_WORKSPACE_BYTES;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    size_t free_b = 0, total_b = 0, need = (size_t)m * (size_t)n * out_size + GEMM_WORKSPACE_BYTES;

    memset(b, 0, sizeof *b);
    memset(&res, 0, sizeof res);
    b->a = a;
    b->b = bm;
    b->alpha = 1.0f;
    b->beta = 0.0f;
    if (CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b)))
        return -1;
    if (need + (64ull << 20) > free_b) {
        gl_log("bench gemm: the bare reference needs %.1f MiB more device memory, %.1f MiB free",
               (double)need / 1048576.0, (double)free_b / 1048576.0);
        return -1;
    }
    if (CUBLAS_CHECK(cublasLtCreate(&b->lt)) || CUDA_CHECK(cudaMalloc(&b->d, (size_t)m * (size_t)n * out_size)) ||
        CUDA_CHECK(cudaMalloc(&b->ws, GEMM_WORKSPACE_BYTES)) ||
        CUBLAS_CHECK(cublasLtMatmulDescCreate(&b->op, ct, CUDA_R_32F)) ||
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(b->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta)) ||
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(b->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb)))
        return -1;
    if (t == DT_FP8) {
        const float *sa, *sb;
        if (CUDA_CHECK(cudaMalloc((void **)&b->scales, sizeof ones)) ||
            CUDA_CHECK(cudaMemcpy(b->scales, ones, sizeof ones, cudaMemcpyHostToDevice)))
            return -1;
        sa = b->scales;
        sb = b->scales + GEMM_SCALE_STRIDE;
        if (CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(b->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa,
                                                        sizeof sa)) ||
            CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(b->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb,
                                                        sizeof sb)))
            return -1;
    }
    if (CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b->la, in, (uint64_t)k, (uint64_t)m, k)) ||
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b->lb, in, (uint64_t)k, (uint64_t)n, k)) ||
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b->ld, out, (uint64_t)m, (uint64_t)n, m)) ||
        CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref)))
        return -1;
    int rc = CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                               &ws_bytes, sizeof ws_bytes));
    if (rc == 0)
        rc = CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(b->lt, b->op, b->la, b->lb, b->ld, b->ld, pref, 1, &res,
                                                         &found));
    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    if (rc != 0 || found < 1 || res.state != CUBLAS_STATUS_SUCCESS) {
        gl_log("bench gemm: the bare reference found no cuBLASLt algorithm");
        return -1;
    }
    b->algo = res.algo;
    return 0;
}

/* Issues count bare GEMMs back to back on s. 0 or -1. */
static int bench_bare_run(struct bench_bare *b, long count, cudaStream_t s)
{
    for (long i = 0; i < count; i++)
        if (CUBLAS_CHECK(cublasLtMatmul(b->lt, b->op, &b->alpha, b->a, b->la, b->b, b->lb, &b->beta, b->d, b->ld,
                                        b->d, b->ld, &b->algo, b->ws, GEMM_WORKSPACE_BYTES, s)))
            return -1;
    return 0;
}

/* Compares doubles for qsort. */
static int bench_gemm_cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Returns the median of v[0..n) (sorts v). */
static double bench_gemm_median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, bench_gemm_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The sides a repetition times, in an order that rotates through every permutation. */
enum bench_side { SIDE_HARNESS, SIDE_BARE, SIDE_TORCH };
static const char *const bench_side_names[] = { "harness", "bare loop", "PyTorch" };

/* What one dtype's samples run on. */
struct bench_ctx {
    struct gemm_chain *g;
    struct bench_bare *bare;
    struct torch_peer *torch;              /* NULL: PyTorch not timed */
    cudaStream_t s;
    cudaEvent_t e0, e1;
    long count, reps;                      /* a sample: reps chains of count GEMMs (or as many bare / PyTorch) */
};

/* One sample of side: one untimed GEMM of that side (the GPU busy when the start event is recorded), then
 * reps x count GEMMs between events; seconds per GEMM into *out. 0, or -1 with why. */
static int bench_sample(struct bench_ctx *c, int side, double *out, char *why, size_t wn)
{
    long gemms = c->count * c->reps;
    if (side == SIDE_TORCH)
        return torch_peer_time(c->torch, gemms, out, why, wn);
    float ms = 0;
    int rc = side == SIDE_HARNESS ? gemm_chain_run_range(c->g, 0, 1, c->s) : bench_bare_run(c->bare, 1, c->s);
    rc = rc || CUDA_CHECK(cudaEventRecord(c->e0, c->s));
    for (long r = 0; r < c->reps && !rc; r++)
        rc = side == SIDE_HARNESS ? gemm_chain_run(c->g, c->s) : bench_bare_run(c->bare, c->count, c->s);
    if (rc || CUDA_CHECK(cudaEventRecord(c->e1, c->s)) || CUDA_CHECK(cudaEventSynchronize(c->e1)) ||
        CUDA_CHECK(cudaEventElapsedTime(&ms, c->e0, c->e1))) {
        snprintf(why, wn, "a timed %s GEMM failed", bench_side_names[side]);
        return -1;
    }
    *out = (double)ms * 1e-3 / (double)gemms;
    return 0;
}

/* The order of the sides in repetition r: every permutation of the nsides in turn (2 sides: 2, 3 sides: 6). */
static void bench_order(long r, int nsides, int order[3])
{
    static const int perm3[6][3] = { { 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 }, { 1, 0, 2 }, { 0, 2, 1 } };
    for (int i = 0; i < nsides; i++)
        order[i] = nsides == 3 ? perm3[r % 6][i] : (int)((r + i) % nsides);
}

/* One repetition: every side once in the order of repetition r; samples into t[side]. A PyTorch failure ends
 * PyTorch's part (the peer closed, why kept in row) and the repetition goes on without it. 0, or -1 (row->err). */
static int bench_round(struct bench_ctx *c, long r, double t[3], struct bench_gemm_row *row)
{
    int order[3], nsides = c->torch ? 3 : 2;
    bench_order(r, nsides, order);
    for (int i = 0; i < nsides; i++) {
        char why[256];
        t[order[i]] = NAN;
        if (order[i] == SIDE_TORCH && !c->torch)
            continue;
        if (bench_sample(c, order[i], &t[order[i]], why, sizeof why) == 0)
            continue;
        if (order[i] != SIDE_TORCH) {
            str_copy(row->err, sizeof row->err, why);
            return -1;
        }
        snprintf(row->torch_why, sizeof row->torch_why, "%s", why);
        torch_peer_close(c->torch);
        c->torch = NULL;
    }
    return 0;
}

/* Measures dtype t: PyTorch's peer started, the chain and the bare loop set up, the warm-up (at least o->warmup
 * rounds and o->warmup_s seconds; after its first round a sample is sized to about o->sample_ms), then o->iters
 * rounds timed; fills row. */
static void bench_gemm_measure(const struct bench_gemm_opts *o, enum dtype t, struct bench_gemm_row *row)
{
    struct bench_ctx c = { .count = o->count, .reps = 1 };
    struct bench_bare bare;
    const void *a, *b;
    double *ts[3];
    for (int i = 0; i < 3; i++)
        ts[i] = xcalloc((size_t)o->iters, sizeof *ts[i]);

    memset(&bare, 0, sizeof bare);
    c.bare = &bare;
    *row = (struct bench_gemm_row){ .t = t, .torch_s = NAN, .vs_torch = NAN, .vs_torch_lo = NAN, .vs_torch_hi = NAN };
    if (o->python[0]) {   /* first: its import and its operands are made while the GPU is still free */
        c.torch = torch_peer_open(o->python, t, o->m, o->n, o->k, 600.0, row->torch_why, sizeof row->torch_why);
        if (c.torch)
            str_copy(row->torch_version, sizeof row->torch_version, torch_peer_version(c.torch));
    }
    if (CUDA_CHECK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking)) || CUDA_CHECK(cudaEventCreate(&c.e0)) ||
        CUDA_CHECK(cudaEventCreate(&c.e1))) {
        str_copy(row->err, sizeof row->err, "creating a stream or events failed");
        goto out;
    }
    c.g = gemm_chain_create(t, o->m, o->n, o->k, (int)o->count, BENCH_GEMM_SEED, c.s, row->err, sizeof row->err);
    if (!c.g)
        goto out;
    gemm_chain_operands(c.g, &a, &b);
    if (bench_bare_create(&bare, t, o->m, o->n, o->k, a, b) != 0) {
        str_copy(row->err, sizeof row->err, "setting up the bare cuBLASLt reference failed");
        goto out;
    }
    gemm_chain_algo_text(c.g, row->algo, sizeof row->algo);
    gemm_chain_tuning(c.g, &row->tuning);
    gemm_algo_text(&bare.algo, row->bare_algo, sizeof row->bare_algo);
    uint64_t t0 = mono_ns();
    for (long w = 0; w < o->warmup || (double)(mono_ns() - t0) * 1e-9 < o->warmup_s; w++) {
        double t3[3];
        if (bench_round(&c, w, t3, row) != 0)
            goto out;
        if (w == 0 && t3[SIDE_HARNESS] > 0) {
            double reps = ceil(o->sample_ms * 1e-3 / (t3[SIDE_HARNESS] * (double)o->count));
            c.reps = reps < 1 ? 1 : reps > 100000 ? 100000 : (long)reps;
        }
        row->rounds = w + 1;
    }
    row->warm_s = (double)(mono_ns() - t0) * 1e-9;
    row->reps = c.reps;
    long nt = 0;
    for (long r = 0; r < o->iters; r++) {
        double t3[3];
        if (bench_round(&c, r, t3, row) != 0)
            goto out;
        ts[SIDE_HARNESS][r] = t3[SIDE_HARNESS];
        ts[SIDE_BARE][r] = t3[SIDE_BARE];
        if (c.torch)
            ts[SIDE_TORCH][nt++] = t3[SIDE_TORCH];
    }
    /* paired first: the medians below sort the samples */
    ratio_median_ci(ts[SIDE_BARE], ts[SIDE_HARNESS], (size_t)o->iters, 0.95, &row->ratio, &row->ratio_lo, &row->ratio_hi);
    if (c.torch && nt == o->iters)
        ratio_median_ci(ts[SIDE_TORCH], ts[SIDE_HARNESS], (size_t)nt, 0.95, &row->vs_torch, &row->vs_torch_lo,
                        &row->vs_torch_hi);
    row->harness_s = bench_gemm_median(ts[SIDE_HARNESS], o->iters);
    row->bare_s = bench_gemm_median(ts[SIDE_BARE], o->iters);
    if (c.torch && nt == o->iters) {
        row->torch_s = bench_gemm_median(ts[SIDE_TORCH], nt);
        char why[256];
        if (torch_peer_kernels(c.torch, row->torch_kernels, sizeof row->torch_kernels, why, sizeof why) != 0)
            snprintf(row->torch_kernels, sizeof row->torch_kernels, "not known: %s", why);
    }
    row->ok = 1;
out:
    torch_peer_close(c.torch);
    bench_bare_destroy(&bare);
    gemm_chain_destroy(c.g);
    if (c.e0)
        CUDA_CHECK(cudaEventDestroy(c.e0));
    if (c.e1)
        CUDA_CHECK(cudaEventDestroy(c.e1));
    if (c.s)
        CUDA_CHECK(cudaStreamDestroy(c.s));
    for (int i = 0; i < 3; i++)
        free(ts[i]);
}

/* Copies the NVIDIA kernel module's version (e.g. 570.124.06) from /proc into buf, or "n/a". */
static void bench_gemm_driver(char *buf, size_t len)
{
    char line[512];
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    str_copy(buf, len, "n/a");
    if (!f)
        return;
    if (fgets(line, sizeof line, f)) {
        for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
            if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.') && strspn(tok, "0123456789.") == strlen(tok)) {
                str_copy(buf, len, tok);
                break;
            }
    }
    fclose(f);
}

/* Prints the GPU, driver and library lines that head the table. 0, or -1 when the device cannot be read. */
static int bench_gemm_header(const struct bench_gemm_opts *o)
{
    struct cudaDeviceProp p;
    int dev = 0, drv = 0, rt = 0;
    char kmod[64];
    size_t lt = cublasLtGetVersion();
    if (CUDA_CHECK(cudaGetDevice(&dev)) || CUDA_CHECK(cudaGetDeviceProperties(&p, dev)) ||
        CUDA_CHECK(cudaDriverGetVersion(&drv)) || CUDA_CHECK(cudaRuntimeGetVersion(&rt)))
        return -1;
    bench_gemm_driver(kmod, sizeof kmod);
    printf("# gauntlet bench gemm: harness compute phase vs bare cuBLASLt loop, same process, same data\n");
    printf("# GPU %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", dev, p.name, p.major, p.minor, p.multiProcessorCount,
           (double)p.totalGlobalMem / 1073741824.0);
    printf("# driver: %s, CUDA driver API %d.%d, runtime %d.%d\n", kmod, drv / 1000, drv % 1000 / 10, rt / 1000,
           rt % 1000 / 10);
    printf("# cuBLASLt: %zu.%zu.%zu (built against %d.%d.%d)\n", lt / 10000, lt / 100 % 100, lt % 100,
           CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH);
    printf("# m=%ld n=%ld k=%ld count=%ld iters=%ld warmup=%ld warmup-s=%g sample-ms=%g workspace=%llu MiB; per GEMM,"
           " medians\n", o->m, o->n, o->k, o->count, o->iters, o->warmup, o->warmup_s, o->sample_ms,
           GEMM_WORKSPACE_BYTES >> 20);
    printf("# the sides take turns in every repetition, their order rotating; PyTorch in a co-process on operands of the"
           " same distribution\n");
    printf("# ratio = harness TFLOP/s / bare TFLOP/s, the median of each repetition's pair, with its 95 %% interval\n"
           "# (distribution-free); check: ok when the median is >= %.3f, LOW when the whole interval is below, low?\n"
           "# when the median is below but the interval reaches it (not resolved: two identical loops differ by ~1 %%\n"
           "# in one call on an H200); vs_torch = harness / PyTorch's matmul (%s) alike, aim >= %.2f\n",
           BENCH_GEMM_MIN_RATIO, o->python[0] ? o->python : "not run", BENCH_GEMM_TORCH_AIM);
    printf("#\n");
    return 0;
}

/* Prints the table of rows; returns the exit code they call for. */
static int bench_gemm_print(const struct bench_gemm_opts *o, const struct bench_gemm_row *rows, int nrows)
{
    int code = EXIT_OK;
    double fl = gemm_flops(o->m, o->n, o->k);
    printf("# %5s %7s %7s %7s %6s %12s %15s %12s %12s %7s %13s %6s %13s %8s %13s %6s\n", "dtype", "m", "n", "k", "count",
           "harness_us", "harness_TFLOP/s", "bare_us", "bare_TFLOP/s", "ratio", "ratio_95%", "check", "torch_TFLOP/s",
           "vs_torch", "vs_torch_95%", "check");
    for (int i = 0; i < nrows; i++) {
        const struct bench_gemm_row *r = &rows[i];
        if (!r->ok) {
            printf("  %5s %7ld %7ld %7ld %6ld %12s %15s %12s %12s %7s %13s %6s %13s %8s %13s %6s\n", dtype_name(r->t), o->m,
                   o->n, o->k, o->count, "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "error", "n/a", "n/a", "n/a", "-");
            gl_log("bench gemm: %s: %s", dtype_name(r->t), r->err);
            code = EXIT_ENV;
            continue;
        }
        static const char *const said[] = { "LOW", "low?", "ok" };   /* ratio_verdict + 1 */
        int v = ratio_verdict(r->ratio, r->ratio_hi, BENCH_GEMM_MIN_RATIO), vtv = 1;
        char ci[32], tf[32] = "-", vt[32] = "-", vci[32] = "-";
        snprintf(ci, sizeof ci, "%.3f-%.3f", r->ratio_lo, r->ratio_hi);
        if (r->torch_s > 0) {
            vtv = ratio_verdict(r->vs_torch, r->vs_torch_hi, BENCH_GEMM_TORCH_AIM);
            snprintf(tf, sizeof tf, "%.1f", fl / r->torch_s * 1e-12);
            snprintf(vt, sizeof vt, "%.3f", r->vs_torch);
            snprintf(vci, sizeof vci, "%.3f-%.3f", r->vs_torch_lo, r->vs_torch_hi);
        }
        printf("  %5s %7ld %7ld %7ld %6ld %12.1f %15.1f %12.1f %12.1f %7.3f %13s %6s %13s %8s %13s %6s\n", dtype_name(r->t),
               o->m, o->n, o->k, o->count, r->harness_s * 1e6, fl / r->harness_s * 1e-12, r->bare_s * 1e6,
               fl / r->bare_s * 1e-12, r->ratio, ci, said[v + 1], tf, vt, vci, r->torch_s > 0 ? said[vtv + 1] : "-");
        printf("#   %s: samples of %ld x %ld GEMMs after %ld rounds (%.1f s) of warm-up\n", dtype_name(r->t), r->reps,
               o->count, r->rounds, r->warm_s);
        char first[32] = "could not run", from[48], lack[40] = "";   /* the heuristic's #1 that cannot run here */
        if (isfinite(r->tuning.first_s))
            snprintf(first, sizeof first, "%.1f us", r->tuning.first_s * 1e6);
        if (r->tuning.chosen < r->tuning.heuristic)
            snprintf(from, sizeof from, "the heuristic's #%d", r->tuning.chosen + 1);
        else   /* a configuration of cuBLASLt's algorithms added to the heuristic's few (gemm_algos.h) */
            snprintf(from, sizeof from, "added configuration #%d", r->tuning.chosen - r->tuning.heuristic + 1);
        if (r->tuning.candidates < r->tuning.asked)   /* fewer ran than the tuning asks: the row is not the aim's */
            snprintf(lack, sizeof lack, "; %d < %d candidates", r->tuning.candidates, r->tuning.asked);
        if (r->tuning.candidates > 1 && isfinite(r->tuning.chosen_s))
            printf("#   %s: harness: %s (%s, of %d candidates timed, %d the heuristic's; its #1 %s, this %.1f us%s)\n",
                   dtype_name(r->t), r->algo, from, r->tuning.candidates, r->tuning.heuristic, first,
                   r->tuning.chosen_s * 1e6, lack);
        else if (r->tuning.candidates > 1)   /* the timing could not run: the heuristic's first, nothing measured */
            printf("#   %s: harness: %s (the heuristic's #1 of %d: the candidates could not be timed%s)\n",
                   dtype_name(r->t), r->algo, r->tuning.candidates, lack);
        else
            printf("#   %s: harness: %s (the only candidate%s)\n", dtype_name(r->t), r->algo, lack);
        printf("#   %s: bare loop: %s (the heuristic's first)\n", dtype_name(r->t), r->bare_algo);
        if (r->torch_s > 0)
            printf("#   %s: PyTorch %s: kernels: %s\n", dtype_name(r->t), r->torch_version,
                   r->torch_kernels[0] ? r->torch_kernels : "none seen");
        if (!(r->torch_s > 0) && r->torch_why[0])
            printf("#   %s: PyTorch not timed: %s\n", dtype_name(r->t), r->torch_why);
        /* below the aim and resolved so: the check fails; below within the interval: said, not failed */
        if (r->torch_s > 0 && vtv < 1)
            gl_log("bench gemm: %s: harness/PyTorch throughput %.3f (95 %% interval %s) is below %.2f%s", dtype_name(r->t),
                   r->vs_torch, vci, BENCH_GEMM_TORCH_AIM, vtv < 0 ? "" : ": not resolved, the interval reaches it");
        if (v < 1)
            gl_log("bench gemm: %s: harness/bare throughput %.3f (95 %% interval %s) is below %.3f%s", dtype_name(r->t),
                   r->ratio, ci, BENCH_GEMM_MIN_RATIO, v < 0 ? "" : ": not resolved, the interval reaches it");
        if ((v < 0 || (r->torch_s > 0 && vtv < 0)) && code == EXIT_OK)
            code = EXIT_CHECK;
    }
    fflush(stdout);
    return code;
}

int bench_gemm_main(int argc, char **argv)
{
    struct bench_gemm_opts o;
    struct bench_gemm_row rows[DT_COUNT];
    int ndev = 0, nrows = 0;
    int rc = bench_gemm_parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev < 1) {
        gl_log("bench gemm: no usable GPU: %s", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found");
        return EXIT_ENV;
    }
    if (bench_gemm_header(&o) != 0)
        return EXIT_ENV;
    for (int t = 0; t < DT_COUNT; t++)
        if (o.want[t]) {
            bench_gemm_measure(&o, (enum dtype)t, &rows[nrows++]);
        }
    return bench_gemm_print(&o, rows, nrows);
}
