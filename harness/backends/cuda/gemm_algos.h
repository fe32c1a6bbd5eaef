/* harness/backends/cuda/gemm_algos.h: more GEMM candidates than cuBLASLt's heuristic gives, for the tuning (gemm.c).
 * Not a public API. */
#ifndef GAUNTLET_GEMM_ALGOS_H
#define GAUNTLET_GEMM_ALGOS_H

#include <cublasLt.h>

/* The candidates the tuning wants timed: when the heuristic gives fewer, gemm_algos_more adds others. */
#define GEMM_CANDIDATES_ASKED 8

/* The operation the candidates are for: its handle, descriptor (fp8 scale pointers and SM target set), the layouts
 * of A, B and D (C is D), its compute type, input and output types (scale type fp32), the workspace it may use. */
struct gemm_algos_op {
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, ld;
    cublasComputeType_t ct;
    cudaDataType_t in, out;
    size_t workspace;
};

/* Appends to res[found..want) configurations of cuBLASLt's algorithms for op's types (cublasLtMatmulAlgoGetIds,
 * cublasLtMatmulAlgoInit, their tiles, stages and CTA swizzling from cublasLtMatmulAlgoCapGetAttribute) that
 * cublasLtMatmulAlgoCheck accepts for op within its workspace, none the same as one already in res; the ones nearest
 * the heuristic's first (its algorithm, then its tile) come first. Returns the new count (found when none). */
int gemm_algos_more(const struct gemm_algos_op *o, cublasLtMatmulHeuristicResult_t *res, int found, int want);

/* Whether two algorithms have the same configuration (gemm_algo_text's attributes). */
int gemm_algos_same(const cublasLtMatmulAlgo_t *a, const cublasLtMatmulAlgo_t *b);

#endif
