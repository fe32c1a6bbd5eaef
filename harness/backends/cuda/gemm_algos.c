/* harness/backends/cuda/gemm_algos.c: more GEMM candidates than cuBLASLt's heuristic gives (on an H200 it gave one
 * for tf32 8192^3, 2026-11-28): its algorithms' other configurations that cuBLASLt accepts, for the tuning to time
 * beside the heuristic's (gemm.c). */
#include "gemm_algos.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "util.h"

#define GEMM_ALGO_IDS 64        /* algorithm ids asked of cuBLASLt */
#define GEMM_ALGO_CHECKS 1024   /* configurations checked at most (host calls, no GPU work) */

int gemm_algos_same(const cublasLtMatmulAlgo_t *a, const cublasLtMatmulAlgo_t *b)
{
    char ta[256], tb[256];
    gemm_algo_text(a, ta, sizeof ta);
    gemm_algo_text(b, tb, sizeof tb);
    return strcmp(ta, tb) == 0;
}

/* Orders descending (the larger tiles and deeper pipelines first, which large GEMMs favour). */
static int gemm_algos_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Gives algo's array capability attr (uint32_t values, xmalloc'd, *n of them), descending, first (if among them) at
 * the front; one value `none` when it lists none. */
static uint32_t *gemm_algos_cap(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoCapAttributes_t attr,
                                uint32_t none, uint32_t first, int *n)
{
    size_t bytes = 0, got = 0;
    uint32_t *v = NULL;
    if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, NULL, 0, &bytes) == CUBLAS_STATUS_SUCCESS && bytes >= sizeof *v) {
        v = xmalloc(bytes);
        if (cublasLtMatmulAlgoCapGetAttribute(algo, attr, v, bytes, &got) != CUBLAS_STATUS_SUCCESS || got < sizeof *v) {
            free(v);
            v = NULL;
        }
    }
    if (!v) {
        v = xmalloc(sizeof *v);
        v[0] = none;
        *n = 1;
        return v;
    }
    *n = (int)(got / sizeof *v);
    qsort(v, (size_t)*n, sizeof *v, gemm_algos_desc);
    for (int i = 1; i < *n; i++)
        if (v[i] == first) {
            memmove(v + 1, v, (size_t)i * sizeof *v);
            v[0] = first;
            break;
        }
    return v;
}

/* Whether algo is one of res[0..found). */
static int gemm_algos_known(const cublasLtMatmulHeuristicResult_t *res, int found, const cublasLtMatmulAlgo_t *algo)
{
    for (int i = 0; i < found; i++)
        if (gemm_algos_same(&res[i].algo, algo))
            return 1;
    return 0;
}

/* Appends algo's configurations (its tiles, stages, CTA swizzling; tile0 and stages0 first) that cuBLASLt accepts
 * for o to res, up to want; *checks counts the checks. Returns the new count. */
static int gemm_algos_configs(const struct gemm_algos_op *o, cublasLtMatmulAlgo_t algo, uint32_t tile0, uint32_t stages0,
                              cublasLtMatmulHeuristicResult_t *res, int found, int want, int *checks)
{
    int nt, ns;
    size_t got = 0;
    uint32_t swizzle = 0;
    uint32_t *tiles = gemm_algos_cap(&algo, CUBLASLT_ALGO_CAP_TILE_IDS, CUBLASLT_MATMUL_TILE_UNDEFINED, tile0, &nt);
    uint32_t *stages = gemm_algos_cap(&algo, CUBLASLT_ALGO_CAP_STAGES_IDS, CUBLASLT_MATMUL_STAGES_UNDEFINED, stages0, &ns);
    if (cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swizzle, sizeof swizzle,
                                          &got) != CUBLAS_STATUS_SUCCESS || got != sizeof swizzle)
        swizzle = 0;
    for (int t = 0; t < nt && found < want && *checks < GEMM_ALGO_CHECKS; t++)
        for (int s = 0; s < ns && found < want && *checks < GEMM_ALGO_CHECKS; s++)
            for (uint32_t w = 0; w <= (swizzle ? 1u : 0u) && found < want && *checks < GEMM_ALGO_CHECKS; w++) {
                cublasLtMatmulHeuristicResult_t r;
                memset(&r, 0, sizeof r);
                if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tiles[t], sizeof tiles[t]) ||
                    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages[s],
                                                         sizeof stages[s]) ||
                    cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &w, sizeof w))
                    continue;
                ++*checks;
                /* a configuration the check refuses cannot run; one it accepts may still fail at its first call,
                 * which the tuning's timing leaves out */
                if (cublasLtMatmulAlgoCheck(o->lt, o->op, o->la, o->lb, o->ld, o->ld, &algo, &r) != CUBLAS_STATUS_SUCCESS ||
                    r.workspaceSize > o->workspace || gemm_algos_known(res, found, &algo))
                    continue;
                r.algo = algo;   /* the check never writes it */
                r.state = CUBLAS_STATUS_SUCCESS;
                res[found++] = r;
            }
    free(tiles);
    free(stages);
    return found;
}

int gemm_algos_more(const struct gemm_algos_op *o, cublasLtMatmulHeuristicResult_t *res, int found, int want)
{
    int ids[GEMM_ALGO_IDS], nids = 0, checks = 0;
    int32_t id0 = -1;
    uint32_t tile0 = UINT32_MAX, stages0 = UINT32_MAX;
    size_t got = 0;
    if (found >= want ||
        cublasLtMatmulAlgoGetIds(o->lt, o->ct, CUDA_R_32F, o->in, o->in, o->out, o->out, GEMM_ALGO_IDS, ids, &nids) !=
            CUBLAS_STATUS_SUCCESS)
        return found;
    if (found > 0 &&   /* the heuristic's first: its algorithm first, from its own configuration (cluster shape, options) */
        (cublasLtMatmulAlgoConfigGetAttribute(&res[0].algo, CUBLASLT_ALGO_CONFIG_ID, &id0, sizeof id0, &got) ||
         cublasLtMatmulAlgoConfigGetAttribute(&res[0].algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile0, sizeof tile0, &got) ||
         cublasLtMatmulAlgoConfigGetAttribute(&res[0].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages0, sizeof stages0, &got)))
        id0 = -1;
    for (int i = 1; i < nids && i < GEMM_ALGO_IDS; i++)
        if (ids[i] == id0) {
            ids[i] = ids[0];
            ids[0] = id0;
        }
    for (int i = 0; i < nids && i < GEMM_ALGO_IDS && found < want && checks < GEMM_ALGO_CHECKS; i++) {
        cublasLtMatmulAlgo_t algo;
        if (ids[i] == id0)
            algo = res[0].algo;
        else if (cublasLtMatmulAlgoInit(o->lt, o->ct, CUDA_R_32F, o->in, o->in, o->out, o->out, ids[i], &algo) !=
                 CUBLAS_STATUS_SUCCESS)
            continue;
        found = gemm_algos_configs(o, algo, ids[i] == id0 ? tile0 : UINT32_MAX, ids[i] == id0 ? stages0 : UINT32_MAX, res,
                                   found, want, &checks);
    }
    return found;
}
