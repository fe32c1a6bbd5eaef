/* harness/backends/cuda/gemm.c: the compute phase on a GPU: a chain of cuBLASLt GEMMs on fixed random operands.
 *
 * Memory: one A, one B and one D per chain, whatever count is. Every GEMM of the chain reads the same A and B
 * and overwrites the same D (beta = 0, C aliases D with the same layout, as cuBLASLt allows): the tensor cores
 * do the same work as on fresh operands of the same statistics, and a chain of 8 costs no more memory than one.
 * GEMMs on one stream are ordered, so sharing D and the workspace between them is safe. */
#include "gemm.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "autotune.h"
#include "cuda_check.h"
#include "faults.h"
#include "gemm_algos.h"
#include "kernels.h"
#include "util.h"

#define GEMM_MAX_DIM (1L << 24)
#define GEMM_MAX_COUNT 1000000
#define GEMM_HEADROOM_BYTES (64ull << 20)   /* left free for the context, cuBLASLt and allocation rounding */

struct gemm_chain {
    enum dtype t;
    long m, n, k;
    int count;
    float alpha, beta;                     /* host scalars: D = alpha * op(A) op(B) + beta * C, beta = 0 */
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, ld;     /* ld describes both C and D */
    cublasLtMatmulAlgo_t algo;
    struct gemm_tuning tuning;             /* how algo was chosen (gemm_tune) */
    void *a, *b, *d, *ws;
    float *scales;                         /* fp8 only: the A scale at [0], the B scale at [GEMM_SCALE_STRIDE] */
    cudaStream_t made_on, ran_on;          /* the stream that filled it, the last one that ran it: what destroy waits
                                            * for */
};

/* Returns the cuBLASLt element type of the inputs of t. */
static cudaDataType_t gemm_in_type(enum dtype t)
{
    static const cudaDataType_t in[DT_COUNT] = { CUDA_R_16BF, CUDA_R_16F, CUDA_R_32F, CUDA_R_8F_E4M3 };
    return in[t];
}

/* Returns the cuBLASLt element type of the output of t (fp8 writes bf16). */
static cudaDataType_t gemm_out_type(enum dtype t)
{
    static const cudaDataType_t out[DT_COUNT] = { CUDA_R_16BF, CUDA_R_16F, CUDA_R_32F, CUDA_R_16BF };
    return out[t];
}

/* Returns the size in bytes of one output element of t. */
static size_t gemm_out_size(enum dtype t) { return t == DT_TF32 ? 4 : 2; }

/* Formats the reason into err (when given) and logs it. */
__attribute__((format(printf, 3, 4))) static void gemm_fail(char *err, size_t errlen, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err && errlen)
        str_copy(err, errlen, msg);
    gl_log("%s", msg);
}

/* Returns rows * cols * size, or SIZE_MAX when it overflows or a factor is not positive. */
static size_t gemm_matrix_bytes(long rows, long cols, size_t size)
{
    size_t e, b;
    if (rows < 1 || cols < 1 || __builtin_mul_overflow((size_t)rows, (size_t)cols, &e) ||
        __builtin_mul_overflow(e, size, &b))
        return SIZE_MAX;
    return b;
}

size_t gemm_chain_bytes(enum dtype t, long m, long n, long k, int count)
{
    (void)count;   /* the chain reuses its operands and output: count does not change the footprint */
    if ((unsigned)t >= DT_COUNT)
        return SIZE_MAX;
    /* and abft's scratch, a double per column of A while its checksum rows are filled (k) and per column of D while
     * it is checked (n): 128 MiB at k = 2^24, which the headroom did not hold (until 2026-11-30 it was not counted) */
    size_t parts[] = { gemm_matrix_bytes(k, m, dtype_size(t)), gemm_matrix_bytes(k, n, dtype_size(t)),
                       gemm_matrix_bytes(m, n, gemm_out_size(t)), GEMM_WORKSPACE_BYTES, 256,
                       gemm_matrix_bytes(k > n ? k : n, 1, sizeof(double)) };
    size_t sum = 0;
    for (size_t i = 0; i < ARRAY_LEN(parts); i++)
        if (parts[i] == SIZE_MAX || __builtin_add_overflow(sum, parts[i], &sum))
            return SIZE_MAX;
    return sum;
}

double gemm_flops(long m, long n, long k) { return 2.0 * (double)m * (double)n * (double)k; }

/* Fails unless needed bytes (plus headroom) fit in the device's free memory now. */
static int gemm_check_fit(const char *what, size_t needed, char *err, size_t errlen)
{
    size_t free_b = 0, total_b = 0;
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess) {
        gemm_fail(err, errlen, "%s: no usable GPU: cudaMemGetInfo failed: %s (%s)", what, cudaGetErrorString(e),
                  cudaGetErrorName(e));
        return -1;
    }
    if (needed == SIZE_MAX || needed > free_b || free_b - needed < GEMM_HEADROOM_BYTES) {
        gemm_fail(err, errlen,
                  "%s does not fit: needs %.1f MiB of device memory (+%llu MiB headroom), %.1f MiB free of %.1f MiB",
                  what, (double)needed / 1048576.0, GEMM_HEADROOM_BYTES >> 20, (double)free_b / 1048576.0,
                  (double)total_b / 1048576.0);
        return -1;
    }
    return 0;
}

/* Builds the matmul descriptor and the three layouts of g (TN, column-major, C and D share one layout). */
static int gemm_describe(struct gemm_chain *g)
{
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasComputeType_t ct = g->t == DT_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    uint64_t m = (uint64_t)g->m, n = (uint64_t)g->n, k = (uint64_t)g->k;
    if (CUBLAS_CHECK(cublasLtMatmulDescCreate(&g->op, ct, CUDA_R_32F)) ||
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta)) ||
        CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb)))
        return -1;
    if (g->t == DT_FP8) {
        const float *sa = g->scales, *sb = g->scales + GEMM_SCALE_STRIDE;
        if (CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa,
                                                        sizeof sa)) ||
            CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb,
                                                        sizeof sb)))
            return -1;
    }
    if (CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g->la, gemm_in_type(g->t), k, m, (int64_t)k)) ||
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g->lb, gemm_in_type(g->t), k, n, (int64_t)k)) ||
        CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&g->ld, gemm_out_type(g->t), m, n, (int64_t)m)))
        return -1;
    return 0;
}

/* The candidates the tuning times: cuBLASLt's heuristic ranks at most this many within the workspace; under
 * GEMM_CANDIDATES_ASKED, gemm_algos_more adds its algorithms' other configurations up to that many. */
#define GEMM_CANDIDATES 16
#define GEMM_TUNE_ROUNDS 6         /* 3 forward-backward pairs (autotune.h) */
#define GEMM_TUNE_TIE 0.005        /* within 0.5 %: the heuristic's own ranking decides */
#define GEMM_TUNE_CALL_S 2e-3      /* each measurement runs the GEMM for about this long */
#define GEMM_TUNE_SCREEN 2.0       /* an added configuration slower than this x the first in one call: not timed on */

/* The tuning's timing: each measurement about call_s long, after warm_s of the heuristic's first. The defaults
 * time the candidates at once (inside a power limiter's start burst: on an H200 that ranked them better than
 * 2 ms windows at the limit did, docs/performance.md); GAUNTLET_GEMM_TUNE="CALL_MS[,WARM_S]" (0.1-200 ms,
 * 0-5 s) sets both, for measuring a ranking at the limit with longer windows. A bad value is said, and ignored. */
static void gemm_tune_timing(double *call_s, double *warm_s)
{
    char why[256];
    const char *e = getenv("GAUNTLET_GEMM_TUNE");
    *call_s = GEMM_TUNE_CALL_S;
    *warm_s = 0;
    if (e && *e && autotune_timing_parse(e, call_s, warm_s, why, sizeof why) != 0)   /* writes nothing then */
        gl_log("GAUNTLET_GEMM_TUNE=%s; the defaults (%.0f ms, no warm-up) are used", why, GEMM_TUNE_CALL_S * 1e3);
}

/* One candidate timed on the chain's own data (autotune_time_fn). */
struct gemm_tune_ctx {
    struct gemm_chain *g;
    const cublasLtMatmulHeuristicResult_t *res;
    cudaStream_t s;
    cudaEvent_t e0, e1;
};

static double gemm_time_candidate(void *ctx, int i, int calls)
{
    struct gemm_tune_ctx *c = ctx;
    struct gemm_chain *g = c->g;
    /* an untimed call first, always: it warms the candidate and keeps the GPU busy as timing starts (until
     * 2026-12-02 only a first call had one: a launch gap of a few us in 2 ms, the 0.5 % tie margin's size) */
    for (int w = 1; w >= 0; w--) {
        if (w == 0 && CUDA_CHECK(cudaEventRecord(c->e0, c->s)))
            return NAN;
        for (int r = 0; r < (w ? 1 : calls); r++)
            if (cublasLtMatmul(g->lt, g->op, &g->alpha, g->a, g->la, g->b, g->lb, &g->beta, g->d, g->ld, g->d, g->ld,
                               &c->res[i].algo, g->ws, GEMM_WORKSPACE_BYTES, c->s) != CUBLAS_STATUS_SUCCESS) {
                /* cannot run here: out (the tuning's count); a launch it failed leaves no error for the next check */
                (void)cudaGetLastError();
                return NAN;
            }
    }
    float ms = 0;
    if (CUDA_CHECK(cudaEventRecord(c->e1, c->s)) || CUDA_CHECK(cudaEventSynchronize(c->e1)) ||
        CUDA_CHECK(cudaEventElapsedTime(&ms, c->e0, c->e1)))
        return NAN;
    return (double)ms * 1e-3;
}

/* Keeps of the added configurations res[heuristic..found) those that run one call within GEMM_TUNE_SCREEN times the
 * first's (one: that first, *first, kept and moved with them): a tile far from the shape's would cost the timing
 * rounds of up to 100x the window each. Returns the new count; *slow counts the ones that ran but were left out. */
static int gemm_screen_added(struct gemm_tune_ctx *c, cublasLtMatmulHeuristicResult_t *res, int heuristic, int found,
                             double one, int *first, int *slow)
{
    int kept = heuristic;
    for (int i = heuristic; i < found; i++) {
        double t = i == *first ? one : gemm_time_candidate(c, i, 1);
        if (!(t >= 0) || (i != *first && t > GEMM_TUNE_SCREEN * (one > 1e-6 ? one : 1e-6))) {
            *slow += t >= 0;
            continue;
        }
        if (i == *first)
            *first = kept;
        res[kept] = res[i];
        kept++;
    }
    return kept;
}

/* Asks cuBLASLt's heuristic for its best GEMM_CANDIDATES algorithms within the workspace (fewer than
 * GEMM_CANDIDATES_ASKED: more from its algorithms' configurations, gemm_algos_more) and keeps the fastest on g's own
 * operands (autotune_pick); its first alone when only one comes or the timing cannot run. */
static int gemm_pick_algo(struct gemm_chain *g, cudaStream_t s)
{
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t res[GEMM_CANDIDATES];
    uint64_t ws = GEMM_WORKSPACE_BYTES;
    int found = 0, heuristic = 0, rc = -1;
    memset(res, 0, sizeof res);
    if (CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref)))
        return -1;
    if (CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                          sizeof ws)) == 0 &&
        CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(g->lt, g->op, g->la, g->lb, g->ld, g->ld, pref, GEMM_CANDIDATES,
                                                    res, &found)) == 0 &&
        found > 0 && res[0].state == CUBLAS_STATUS_SUCCESS) {
        g->algo = res[0].algo;
        rc = 0;
    }
    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
    heuristic = found;
    if (rc == 0 && found < GEMM_CANDIDATES_ASKED) {   /* until 2026-11-30 the heuristic's alone (tf32 8192^3: one) */
        struct gemm_algos_op o = { .lt = g->lt, .op = g->op, .la = g->la, .lb = g->lb, .ld = g->ld,
                                   .ct = g->t == DT_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                   .in = gemm_in_type(g->t), .out = gemm_out_type(g->t), .workspace = GEMM_WORKSPACE_BYTES };
        found = gemm_algos_more(&o, res, found, GEMM_CANDIDATES_ASKED);
        if (found < GEMM_CANDIDATES_ASKED)
            gl_log("gemm %s %ldx%ldx%ld: cuBLASLt's heuristic gave %d candidate(s), its algorithms' configurations %d more "
                   "(%d asked)", dtype_name(g->t), g->m, g->n, g->k, heuristic, found - heuristic, GEMM_CANDIDATES_ASKED);
    }
    g->tuning = (struct gemm_tuning){ .candidates = found, .heuristic = heuristic, .asked = GEMM_CANDIDATES_ASKED,
                                      .chosen = 0, .chosen_s = NAN, .first_s = NAN };
    if (rc != 0)
        return rc;   /* one candidate is run once too: one that cannot run here fails the chain's creation, not
                      * every iteration */
    struct gemm_tune_ctx c = { .g = g, .res = res, .s = s };
    if (CUDA_CHECK(cudaEventCreate(&c.e0)) == 0) {
        if (CUDA_CHECK(cudaEventCreate(&c.e1)) == 0) {
            /* the call count from the first candidate that runs: the heuristic's first where it does (one that
             * cannot run here was kept, untimed, and every iteration failed with it); a time that reads 0 (the
             * events resolve ~0.5 us) ran (until 2026-11-30 it counted as not running) */
            double one = NAN, per[GEMM_CANDIDATES];
            int first = -1, slow = 0;
            for (int i = 0; i < found && first < 0; i++)
                if ((one = gemm_time_candidate(&c, i, 1)) >= 0)   /* false for NAN: it could not run */
                    first = i;
            if (first >= 0 && found > heuristic)
                found = gemm_screen_added(&c, res, heuristic, found, one, &first, &slow);
            if (first > 0) {
                g->algo = res[first].algo;
                g->tuning.chosen = first;
            } else if (first < 0) {
                rc = -1;   /* none runs on this device */
                gl_log("gemm: none of cuBLASLt's %d candidates ran on the device", found);
            }
            double call_s, warm_s;
            gemm_tune_timing(&call_s, &warm_s);
            int calls = first >= 0 ? (int)ceil(call_s / (one > 1e-6 ? one : 1e-6)) : 1;
            calls = calls < 1 ? 1 : calls > 4096 ? 4096 : calls;
            for (double warm = 0; first >= 0 && warm < warm_s;) {   /* GAUNTLET_GEMM_TUNE's warm-up, if any */
                double t = gemm_time_candidate(&c, first, calls);
                if (!(t >= 0))
                    break;
                warm += t > 1e-6 ? t : 1e-6;
            }
            int pick = first >= 0 && found > 1
                           ? autotune_pick(found, gemm_time_candidate, &c, calls, GEMM_TUNE_ROUNDS, GEMM_TUNE_TIE, per)
                           : -1;
            if (found == 1 && first == 0) {
                g->tuning.chosen_s = g->tuning.first_s = one;
                g->tuning.candidates = 1 + slow;
            }
            if (pick >= 0) {
                int usable = 0;
                for (int i = 0; i < found; i++)
                    usable += isfinite(per[i]);
                g->algo = res[pick].algo;
                g->tuning.candidates = usable + slow;
                g->tuning.chosen = pick;
                g->tuning.chosen_s = per[pick];
                g->tuning.first_s = per[0];
            }
            CUDA_CHECK(cudaEventDestroy(c.e1));
        }
        CUDA_CHECK(cudaEventDestroy(c.e0));
    }
    return rc;
}

void gemm_chain_tuning(const struct gemm_chain *g, struct gemm_tuning *out) { *out = g->tuning; }

int gemm_out_roundings(uint32_t split, uint32_t scheme)
{
    uint32_t parts = split > 1024 ? 1024 : split;
    if (split < 2 || scheme == CUBLASLT_REDUCTION_SCHEME_NONE || scheme == CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE)
        return 1;
    /* in place: each part rounded as it is added into the output; the output type's workspace (and a scheme not
     * known, taken as the worst): each part rounded there, then their sum once more (until 2026-11-30 counted as the
     * parts alone, which the errors' adding in quadrature kept conservative) */
    return scheme == CUBLASLT_REDUCTION_SCHEME_INPLACE ? (int)parts : (int)parts + 1;
}

int gemm_chain_out_roundings(const struct gemm_chain *g)
{
    uint32_t split = 1, scheme = CUBLASLT_REDUCTION_SCHEME_MASK;
    size_t got = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&g->algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split, sizeof split, &got) !=
            CUBLAS_STATUS_SUCCESS || got != sizeof split || split < 2)
        return 1;
    if (cublasLtMatmulAlgoConfigGetAttribute(&g->algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme,
                                             &got) != CUBLAS_STATUS_SUCCESS || got != sizeof scheme)
        scheme = CUBLASLT_REDUCTION_SCHEME_MASK;   /* not known: taken as the worst */
    return gemm_out_roundings(split, scheme);
}

void gemm_algo_text(const void *algo, char *buf, size_t len)
{
    static const struct { cublasLtMatmulAlgoConfigAttributes_t a; const char *name; size_t size; } attrs[] = {
        { CUBLASLT_ALGO_CONFIG_ID, "id", 4 },          { CUBLASLT_ALGO_CONFIG_TILE_ID, "tile", 4 },
        { CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages", 4 }, { CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "splitk", 4 },
        { CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, "reduction", 4 },
        { CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, "swizzle", 4 }, { CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, "custom", 4 },
        { CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, "cluster", 2 },
    };
    size_t used = 0;
    if (len)
        buf[0] = 0;
    for (size_t i = 0; i < ARRAY_LEN(attrs) && used < len; i++) {
        union { uint32_t u32; uint16_t u16; } v = { 0 };
        size_t got = 0;
        char val[16] = "?";
        if (cublasLtMatmulAlgoConfigGetAttribute(algo, attrs[i].a, &v, attrs[i].size, &got) == CUBLAS_STATUS_SUCCESS &&
            got == attrs[i].size)
            snprintf(val, sizeof val, "%u", attrs[i].size == 2 ? (unsigned)v.u16 : (unsigned)v.u32);
        int w = snprintf(buf + used, len - used, "%s%s %s", used ? " " : "", attrs[i].name, val);
        used = w < 0 ? len : used + (size_t)w;
    }
}

void gemm_chain_algo_text(const struct gemm_chain *g, char *buf, size_t len) { gemm_algo_text(&g->algo, buf, len); }

/* Allocates A, B, D, the workspace and (fp8) the scales of g, and fills A from seed_a and B from seed_b on s. */
static int gemm_alloc_fill(struct gemm_chain *g, unsigned long long seed_a, unsigned long long seed_b, cudaStream_t s)
{
    static const float ones[GEMM_SCALE_STRIDE + 1] = { [0] = 1.0f, [GEMM_SCALE_STRIDE] = 1.0f };
    size_t na = (size_t)g->k * (size_t)g->m, nb = (size_t)g->k * (size_t)g->n, nd = (size_t)g->m * (size_t)g->n;
    if (CUDA_CHECK(cudaMalloc(&g->a, na * dtype_size(g->t))) ||
        CUDA_CHECK(cudaMalloc(&g->b, nb * dtype_size(g->t))) ||
        CUDA_CHECK(cudaMalloc(&g->d, nd * gemm_out_size(g->t))) ||
        CUDA_CHECK(cudaMalloc(&g->ws, GEMM_WORKSPACE_BYTES)))
        return -1;
    if (g->t == DT_FP8 && (CUDA_CHECK(cudaMalloc((void **)&g->scales, sizeof ones)) ||
                           CUDA_CHECK(cudaMemcpyAsync(g->scales, ones, sizeof ones, cudaMemcpyHostToDevice, s))))
        return -1;
    /* std 1 keeps fp8 well inside +-448 and every output finite (|D| ~ sqrt(k)). D starts at zero so that a copy
     * before the first run is defined. */
    /* A's last two rows: the checksum of the others, which the product carries into D's (abft.h) */
    if (kernel_fill_normal(g->a, na, g->t, seed_a, 1.0f, s) || (g->m >= 3 && kernel_abft_embed(g->a, g->m, g->k, g->t, s)) ||
        kernel_fill_normal(g->b, nb, g->t, seed_b, 1.0f, s) ||
        CUDA_CHECK(cudaMemsetAsync(g->d, 0, nd * gemm_out_size(g->t), s)))
        return -1;
    return 0;
}

struct gemm_chain *gemm_chain_create(enum dtype t, long m, long n, long k, int count, unsigned long long seed,
                                     cudaStream_t s, char *err, size_t errlen)
{
    return gemm_chain_create_sm(t, m, n, k, count, seed, 0, s, err, errlen);
}

static struct gemm_chain *gemm_chain_make(enum dtype t, long m, long n, long k, int count, unsigned long long seed_a,
                                          unsigned long long seed_b, int sm_target, cudaStream_t s, char *err,
                                          size_t errlen);

struct gemm_chain *gemm_chain_create_sm(enum dtype t, long m, long n, long k, int count, unsigned long long seed,
                                        int sm_target, cudaStream_t s, char *err, size_t errlen)
{
    struct rng r;   /* A and B get independent streams derived from seed */
    rng_seed(&r, seed, 0);
    unsigned long long seed_a = rng_next(&r), seed_b = rng_next(&r);
    return gemm_chain_make(t, m, n, k, count, seed_a, seed_b, sm_target, s, err, errlen);
}

struct gemm_chain *gemm_chain_create_ab(enum dtype t, long m, long n, long k, int count, unsigned long long seed_a,
                                        unsigned long long seed_b, cudaStream_t s, char *err, size_t errlen)
{
    return gemm_chain_make(t, m, n, k, count, seed_a, seed_b, 0, s, err, errlen);
}

/* Builds the chain (gemm.h: gemm_chain_create), A filled from seed_a and B from seed_b. */
static struct gemm_chain *gemm_chain_make(enum dtype t, long m, long n, long k, int count, unsigned long long seed_a,
                                          unsigned long long seed_b, int sm_target, cudaStream_t s, char *err,
                                          size_t errlen)
{
    char what[128], msg[256];
    if (gemm_shape_ok(t, m, n, k, msg, sizeof msg) != 0) {
        gemm_fail(err, errlen, "%s", msg);
        return NULL;
    }
    snprintf(what, sizeof what, "GEMM chain %s %ldx%ldx%ld", dtype_name(t), m, n, k);
    if (count < 1 || count > GEMM_MAX_COUNT) {
        gemm_fail(err, errlen, "%s: count %d is not in 1..%d", what, count, GEMM_MAX_COUNT);
        return NULL;
    }
    if (gemm_check_fit(what, gemm_chain_bytes(t, m, n, k, count), err, errlen) != 0)
        return NULL;

    struct gemm_chain *g = xcalloc(1, sizeof *g);
    *g = (struct gemm_chain){ .t = t, .m = m, .n = n, .k = k, .count = count, .alpha = 1.0f, .beta = 0.0f,
                              .made_on = s, .ran_on = s };
    if (CUBLAS_CHECK(cublasLtCreate(&g->lt)) != 0) {
        g->lt = NULL;
        gemm_fail(err, errlen, "%s: cublasLtCreate failed", what);
        goto fail;
    }
    if (gemm_alloc_fill(g, seed_a, seed_b, s) != 0) {
        gemm_fail(err, errlen, "%s: allocating or filling the operands failed", what);
        goto fail;
    }
    if (gemm_describe(g) != 0) {
        gemm_fail(err, errlen, "%s: building the cuBLASLt descriptors failed", what);
        goto fail;
    }
    /* before the heuristic: it picks an algorithm for that many SMs */
    if (sm_target > 0 && CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET,
                                                                     &sm_target, sizeof sm_target))) {
        gemm_fail(err, errlen, "%s: cuBLASLt refused an SM count target of %d", what, sm_target);
        goto fail;
    }
    if (CUDA_CHECK(cudaStreamSynchronize(s)) != 0) {   /* the operands filled: the tuning times on them */
        gemm_fail(err, errlen, "%s: filling the operands failed on the device", what);
        goto fail;
    }
    if (gemm_pick_algo(g, s) != 0) {
        gemm_fail(err, errlen, "%s: cuBLASLt's heuristic found no algorithm within %llu MiB of workspace that runs "
                  "on this device", what, GEMM_WORKSPACE_BYTES >> 20);
        goto fail;
    }
    return g;
fail:
    gemm_chain_destroy(g);
    return NULL;
}

int gemm_chain_run(struct gemm_chain *g, cudaStream_t s) { return gemm_chain_run_range(g, 0, g->count, s); }

int gemm_chain_run_range(struct gemm_chain *g, int first, int count, cudaStream_t s)
{
    if (first < 0 || count < 0 || first + count > g->count)
        return gl_log("gemm: GEMMs %d..%d of a chain of %d", first, first + count - 1, g->count), -1;
    g->ran_on = s;
    for (int i = first; i < first + count; i++)
        if (CUBLAS_CHECK(cublasLtMatmul(g->lt, g->op, &g->alpha, g->a, g->la, g->b, g->lb, &g->beta, g->d, g->ld,
                                        g->d, g->ld, &g->algo, g->ws, GEMM_WORKSPACE_BYTES, s)) != 0)
            return -1;
    return 0;
}

void gemm_chain_operands(const struct gemm_chain *g, const void **a, const void **b)
{
    *a = g->a;
    *b = g->b;
}

void *gemm_chain_output(const struct gemm_chain *g) { return g->d; }

int gemm_chain_dims(const struct gemm_chain *g, long *m, long *n, long *k, enum dtype *t)
{
    if (!g)
        return -1;
    if (m)
        *m = g->m;
    if (n)
        *n = g->n;
    if (k)
        *k = g->k;
    if (t)
        *t = g->t;
    return 0;
}

/* Returns the float value of a bfloat16 bit pattern. */
static float gemm_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Returns the float value of an IEEE half bit pattern. */
static float gemm_f16_to_f32(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v;
    if (e == 0)
        v = ldexpf((float)mant, -24);                              /* subnormal */
    else if (e == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexpf((float)(mant | 0x400), e - 25);
    return sign ? -v : v;
}

/* Returns the float value of an fp8 e4m3 (OCP "fn": no infinity, S.1111.111 is NaN) bit pattern. */
static float gemm_e4m3_to_f32(uint8_t x)
{
    int sign = x >> 7, e = (x >> 3) & 0xf, mant = x & 0x7;
    float v;
    if (e == 15 && mant == 7)
        v = NAN;
    else if (e == 0)
        v = ldexpf((float)mant, -9);                               /* subnormal: mant * 2^-3 * 2^-6 */
    else
        v = ldexpf((float)(mant | 0x8), e - 10);                   /* 1.mmm * 2^(e-7) */
    return sign ? -v : v;
}

/* Copies n device elements of type ty (CUDA_R_*) at src to host floats. */
static int gemm_copy_float(float *dst, const void *src, size_t n, cudaDataType_t ty)
{
    size_t size = ty == CUDA_R_32F ? 4 : ty == CUDA_R_8F_E4M3 ? 1 : 2;
    unsigned char *raw = xmalloc(n * size);
    if (CUDA_CHECK(cudaDeviceSynchronize()) || CUDA_CHECK(cudaMemcpy(raw, src, n * size, cudaMemcpyDeviceToHost))) {
        free(raw);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        switch (ty) {
        case CUDA_R_32F: memcpy(&dst[i], raw + 4 * i, 4); break;
        case CUDA_R_8F_E4M3: dst[i] = gemm_e4m3_to_f32(raw[i]); break;
        case CUDA_R_16F: memcpy(&h, raw + 2 * i, 2); dst[i] = gemm_f16_to_f32(h); break;
        default: memcpy(&h, raw + 2 * i, 2); dst[i] = gemm_bf16_to_f32(h); break;
        }
    }
    free(raw);
    return 0;
}

int gemm_chain_copy_c(struct gemm_chain *g, float *host_c)
{
    return gemm_copy_float(host_c, g->d, (size_t)g->m * (size_t)g->n, gemm_out_type(g->t));
}

int gemm_chain_copy_ab(struct gemm_chain *g, float *host_a, float *host_b)
{
    if (gemm_copy_float(host_a, g->a, (size_t)g->k * (size_t)g->m, gemm_in_type(g->t)) != 0)
        return -1;
    return gemm_copy_float(host_b, g->b, (size_t)g->k * (size_t)g->n, gemm_in_type(g->t));
}

void gemm_chain_destroy(struct gemm_chain *g)
{
    if (!g)
        return;
    /* nothing may still be reading what is freed below: the streams the chain ran on are waited for (until
     * 2026-11-30 the whole device was). cudaFree may still wait for the device: whoever holds a collective that only
     * a peer gone could complete ends its communicator first (cuda_fini) */
    CUDA_CHECK(cudaStreamSynchronize(g->made_on));
    if (g->ran_on != g->made_on)
        CUDA_CHECK(cudaStreamSynchronize(g->ran_on));
    if (g->ld)
        CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(g->ld));
    if (g->lb)
        CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(g->lb));
    if (g->la)
        CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(g->la));
    if (g->op)
        CUBLAS_CHECK(cublasLtMatmulDescDestroy(g->op));
    if (g->lt)
        CUBLAS_CHECK(cublasLtDestroy(g->lt));
    void *bufs[] = { g->a, g->b, g->d, g->ws, g->scales };
    for (size_t i = 0; i < ARRAY_LEN(bufs); i++)
        if (bufs[i])
            CUDA_CHECK(cudaFree(bufs[i]));
    free(g);
}
