/* harness/backends/cuda/lt_load.c: cuBLASLt, loaded the first time a GEMM needs it rather than when the program starts.
 * Loading libcublasLt costs about 0.1 s and 200 MB of page faults per process (its relocations); every worker,
 * on sim too, and every `gauntlet` command paid it at exec. The functions the harness calls are defined here
 * with cuBLASLt's own prototypes (from cublasLt.h, so the compiler checks them) and forward to the library,
 * opened with dlopen on first use: by soname, then at the path the build found. */
#include <cublasLt.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#ifndef GAUNTLET_CUBLASLT_PATH
#define GAUNTLET_CUBLASLT_PATH ""
#endif
#define LT_STR2(x) #x
#define LT_STR(x) LT_STR2(x)

static void *lt_lib;
static pthread_once_t lt_once = PTHREAD_ONCE_INIT;

static void lt_open(void)
{
    const char *names[] = { "libcublasLt.so." LT_STR(CUBLAS_VER_MAJOR), GAUNTLET_CUBLASLT_PATH };
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lt_lib; i++)
        if (names[i][0])
            lt_lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lt_lib)
        fprintf(stderr, "gauntlet: cannot load cuBLASLt (%s): %s\n", names[0], dlerror());
}

/* Returns the library's symbol name, or NULL (said once, by lt_open or here). */
static void *lt_sym(const char *name)
{
    if (pthread_once(&lt_once, lt_open) != 0 || !lt_lib)
        return NULL;
    void *p = dlsym(lt_lib, name);
    if (!p)
        fprintf(stderr, "gauntlet: cuBLASLt has no %s: %s\n", name, dlerror());
    return p;
}

/* Defines f with cuBLASLt's prototype, forwarding to the library's f; fail is returned when it cannot be had. */
#define LT_FWD(ret, f, fail, params, args)                                                                        \
    ret CUBLASWINAPI f params                                                                                     \
    {                                                                                                             \
        static __typeof__(&f) fn_;                                                                                \
        __typeof__(&f) q_ = __atomic_load_n(&fn_, __ATOMIC_ACQUIRE);                                                \
        if (!q_) {                                                                                                \
            q_ = (__typeof__(&f))lt_sym(#f);                                                                     \
            if (!q_)                                                                                              \
                return fail;                                                                                      \
            __atomic_store_n(&fn_, q_, __ATOMIC_RELEASE);                                                         \
        }                                                                                                         \
        return q_ args;                                                                                           \
    }

#define LT_NI CUBLAS_STATUS_NOT_INITIALIZED
LT_FWD(cublasStatus_t, cublasLtCreate, LT_NI, (cublasLtHandle_t *h), (h))
LT_FWD(cublasStatus_t, cublasLtDestroy, LT_NI, (cublasLtHandle_t h), (h))
LT_FWD(const char *, cublasLtGetStatusName, "CUBLAS_STATUS_NOT_INITIALIZED (cuBLASLt not loaded)", (cublasStatus_t s), (s))
LT_FWD(const char *, cublasLtGetStatusString, "cuBLASLt could not be loaded", (cublasStatus_t s), (s))
LT_FWD(size_t, cublasLtGetVersion, 0, (void), ())
LT_FWD(cublasStatus_t, cublasLtMatmul, LT_NI,
       (cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha, const void *A, cublasLtMatrixLayout_t Ad,
        const void *B, cublasLtMatrixLayout_t Bd, const void *beta, const void *C, cublasLtMatrixLayout_t Cd, void *D,
        cublasLtMatrixLayout_t Dd, const cublasLtMatmulAlgo_t *algo, void *ws, size_t wsb, cudaStream_t st),
       (h, d, alpha, A, Ad, B, Bd, beta, C, Cd, D, Dd, algo, ws, wsb, st))
LT_FWD(cublasStatus_t, cublasLtMatmulAlgoGetHeuristic, LT_NI,
       (cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t Ad, cublasLtMatrixLayout_t Bd,
        cublasLtMatrixLayout_t Cd, cublasLtMatrixLayout_t Dd, cublasLtMatmulPreference_t pref, int req,
        cublasLtMatmulHeuristicResult_t res[], int *ret),
       (h, d, Ad, Bd, Cd, Dd, pref, req, res, ret))
LT_FWD(cublasStatus_t, cublasLtMatmulAlgoConfigGetAttribute, LT_NI,
       (const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoConfigAttributes_t a, void *buf, size_t n, size_t *written),
       (algo, a, buf, n, written))
LT_FWD(cublasStatus_t, cublasLtMatmulDescCreate, LT_NI,
       (cublasLtMatmulDesc_t *d, cublasComputeType_t ct, cudaDataType_t st), (d, ct, st))
LT_FWD(cublasStatus_t, cublasLtMatmulDescDestroy, LT_NI, (cublasLtMatmulDesc_t d), (d))
LT_FWD(cublasStatus_t, cublasLtMatmulDescSetAttribute, LT_NI,
       (cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, const void *buf, size_t n), (d, a, buf, n))
LT_FWD(cublasStatus_t, cublasLtMatmulPreferenceCreate, LT_NI, (cublasLtMatmulPreference_t *p), (p))
LT_FWD(cublasStatus_t, cublasLtMatmulPreferenceDestroy, LT_NI, (cublasLtMatmulPreference_t p), (p))
LT_FWD(cublasStatus_t, cublasLtMatmulPreferenceSetAttribute, LT_NI,
       (cublasLtMatmulPreference_t p, cublasLtMatmulPreferenceAttributes_t a, const void *buf, size_t n), (p, a, buf, n))
LT_FWD(cublasStatus_t, cublasLtMatrixLayoutCreate, LT_NI,
       (cublasLtMatrixLayout_t *l, cudaDataType t, uint64_t rows, uint64_t cols, int64_t ld), (l, t, rows, cols, ld))
LT_FWD(cublasStatus_t, cublasLtMatrixLayoutDestroy, LT_NI, (cublasLtMatrixLayout_t l), (l))
/* the tuning's further candidates (gemm_algos.c) */
LT_FWD(cublasStatus_t, cublasLtMatmulAlgoGetIds, LT_NI,
       (cublasLtHandle_t h, cublasComputeType_t ct, cudaDataType_t st, cudaDataType_t at, cudaDataType_t bt,
        cudaDataType_t ctp, cudaDataType_t dt, int req, int ids[], int *ret),
       (h, ct, st, at, bt, ctp, dt, req, ids, ret))
LT_FWD(cublasStatus_t, cublasLtMatmulAlgoInit, LT_NI,
       (cublasLtHandle_t h, cublasComputeType_t ct, cudaDataType_t st, cudaDataType_t at, cudaDataType_t bt,
        cudaDataType_t ctp, cudaDataType_t dt, int id, cublasLtMatmulAlgo_t *algo),
       (h, ct, st, at, bt, ctp, dt, id, algo))
LT_FWD(cublasStatus_t, cublasLtMatmulAlgoCheck, LT_NI,
       (cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t Ad, cublasLtMatrixLayout_t Bd,
        cublasLtMatrixLayout_t Cd, cublasLtMatrixLayout_t Dd, const cublasLtMatmulAlgo_t *algo,
        cublasLtMatmulHeuristicResult_t *res),
       (h, d, Ad, Bd, Cd, Dd, algo, res))
LT_FWD(cublasStatus_t, cublasLtMatmulAlgoCapGetAttribute, LT_NI,
       (const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoCapAttributes_t a, void *buf, size_t n, size_t *written),
       (algo, a, buf, n, written))
LT_FWD(cublasStatus_t, cublasLtMatmulAlgoConfigSetAttribute, LT_NI,
       (cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoConfigAttributes_t a, const void *buf, size_t n),
       (algo, a, buf, n))
