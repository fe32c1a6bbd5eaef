/* harness/backends/cuda/gemm.h: the compute phase on a GPU: a chain of cuBLASLt GEMMs on fixed random operands.
 *
 * Layout (every dtype, "TN" as cuBLASLt requires for fp8): D = op(A) * op(B), column-major, with
 *   A stored k x m (lda = k), used transposed:   host_a[i * k + p] = A(i, p),  i < m, p < k
 *   B stored k x n (ldb = k), used as is:         host_b[j * k + p] = B(p, j),  p < k, j < n
 *   D stored m x n (ldd = m):                     host_c[j * m + i] = D(i, j) = sum_p A(i, p) * B(p, j)
 * so each output element is the dot product of a row of host_a with a row of host_b.
 * Types: bf16 / fp16 inputs and output with fp32 accumulation; tf32: fp32 data, CUBLAS_COMPUTE_32F_FAST_TF32;
 * fp8: e4m3 inputs (unit scales), bf16 output, fp32 accumulation; m, n, k multiples of 16 for fp8. */
#ifndef GAUNTLET_GEMM_H
#define GAUNTLET_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "dtype.h"

/* Workspace offered to cuBLASLt (cudaMalloc'd once per chain). */
#define GEMM_WORKSPACE_BYTES (32ull << 20)
/* fp8 scale factors sit 256 bytes apart: cuBLASLt 13.1 on an H100 answers CUBLAS_STATUS_NOT_SUPPORTED for
 * every algorithm when the B scale pointer is the A scale pointer + 4 bytes (measured 2026-11-23). */
#define GEMM_SCALE_STRIDE 64   /* floats */

/* Opaque: cuBLASLt handle, matmul descriptor, layouts, chosen algorithm, workspace, A/B/D buffers. */
struct gemm_chain;

#include "cuda_rules.h"   /* gemm_shape_ok: the shape rules, built with or without CUDA */

/* Returns the device memory a chain of this shape needs (A, B, D, workspace, abft's scratch), saturating at
 * SIZE_MAX. */
size_t gemm_chain_bytes(enum dtype t, long m, long n, long k, int count);

/* Returns the floating-point operations of one GEMM: 2mnk. */
double gemm_flops(long m, long n, long k);

/* Builds a chain of count GEMMs of m x n x k in dtype t on the current device: checks free memory first,
 * allocates with cudaMalloc, fills A and B from seed on s, picks cuBLASLt's best heuristic algorithm and waits
 * for s. Returns NULL with a one-line reason in err (also logged) on any failure. */
struct gemm_chain *gemm_chain_create(enum dtype t, long m, long n, long k, int count, unsigned long long seed,
                                     cudaStream_t s, char *err, size_t errlen);

/* The same, its GEMMs confined to about sm_target SMs (CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET; 0: every SM), so that
 * work beside it (NCCL's kernels) keeps SMs of its own. */
struct gemm_chain *gemm_chain_create_sm(enum dtype t, long m, long n, long k, int count, unsigned long long seed,
                                        int sm_target, cudaStream_t s, char *err, size_t errlen);

/* The same as gemm_chain_create, A filled from seed_a and B from seed_b (a rank's chain: rankplan_seeds gives every
 * rank the same weights B). */
struct gemm_chain *gemm_chain_create_ab(enum dtype t, long m, long n, long k, int count, unsigned long long seed_a,
                                        unsigned long long seed_b, cudaStream_t s, char *err, size_t errlen);

/* Issues the chain's count GEMMs back to back on s: no synchronisation, no allocation. 0, or -1 (logged). */
int gemm_chain_run(struct gemm_chain *g, cudaStream_t s);

/* Issues GEMMs first .. first + count - 1 of the chain on s (the gradual release issues them one by one). */
int gemm_chain_run_range(struct gemm_chain *g, int first, int count, cudaStream_t s);
/* Gives the chain's device operands A and B (layout above), for a reference that must read the same data. */
void gemm_chain_operands(const struct gemm_chain *g, const void **a, const void **b);

/* Gives the chain's device output D: m x n, column-major (ldd = m), stored as bf16 for bf16 and fp8, fp16 for
 * fp16, fp32 for tf32. It holds the last GEMM's result once the stream has run gemm_chain_run. */
void *gemm_chain_output(const struct gemm_chain *g);

/* Gives the chain's shape and dtype through the non-NULL pointers; 0, or -1 when g is NULL. */
int gemm_chain_dims(const struct gemm_chain *g, long *m, long *n, long *k, enum dtype *t);

/* Waits for the device, then copies the output D (m x n floats, layout above) to host_c. 0 or -1. */
int gemm_chain_copy_c(struct gemm_chain *g, float *host_c);

/* Waits for the device, then copies A (m * k floats) and B (k * n floats) to the host, layout above. 0 or -1. */
int gemm_chain_copy_ab(struct gemm_chain *g, float *host_a, float *host_b);

/* Waits for the streams the chain was filled and last run on (they must still exist), then frees everything it
 * holds; NULL is a no-op. */
void gemm_chain_destroy(struct gemm_chain *g);

/* How the chain's algorithm was chosen: of the candidates that ran, the fastest on the chain's own operands
 * (harness/core/autotune.h). The candidates: cuBLASLt's heuristic's (up to 16 within the workspace; heuristic of
 * them) and, when it gives fewer than asked (8), its algorithms' other configurations up to asked (gemm_algos.h);
 * candidates is how many ran (below asked: the shortfall, said by gemm_algo and bench gemm; an added one more than
 * twice as slow as the first in one call ran, and is not timed on). chosen is the choice's
 * place among them (0: the heuristic's own first; heuristic or more: an added configuration), chosen_s and first_s
 * the seconds per GEMM of it and of that first (one candidate: its one timed call; first_s NAN: that first could not
 * run; both NAN: the timing could not run). */
struct gemm_tuning {
    int candidates, heuristic, asked, chosen;
    double chosen_s, first_s;
};
void gemm_chain_tuning(const struct gemm_chain *g, struct gemm_tuning *out);
/* How many times the chosen algorithm rounds an output element to the output type (gemm_out_roundings of its split-K
 * count and reduction scheme). abft's tolerance takes it (kernels/abft.cu's model assumes one). */
int gemm_chain_out_roundings(const struct gemm_chain *g);
/* The roundings to the output type of an element of an algorithm that splits k in split parts and adds them by scheme
 * (cublasLtReductionScheme_t): split in place (each part added into the output), split + 1 through a workspace of
 * the output type (each part stored there, then their sum) and for a scheme not known, 1 for no split or a sum in the
 * compute type. At most 1025. */
int gemm_out_roundings(uint32_t split, uint32_t scheme);
/* Describes the chain's algorithm in one line, from its configuration (cublasLt.h's enums: algorithm id, tile,
 * stages, split-K, reduction scheme, CTA swizzling, custom option, cluster shape), e.g. "id 66 tile 40 stages 32
 * splitk 1 reduction 0 swizzle 0 custom 0 cluster 2": what a profiler's kernel name can be compared with. */
void gemm_chain_algo_text(const struct gemm_chain *g, char *buf, size_t len);
/* The same for any algorithm (a cublasLtMatmulAlgo_t *; void here to keep cublasLt.h out of this header). */
void gemm_algo_text(const void *algo, char *buf, size_t len);

/* `gauntlet bench gemm`: harness compute phase vs a bare cuBLASLt loop. argv[0] is the subcommand's name
 * ("gemm"), options follow. Returns an exit code: 0, 1 (harness/bare below 0.995, BENCH_GEMM_MIN_RATIO, or
 * harness/PyTorch below BENCH_GEMM_TORCH_AIM where PyTorch ran: each below its aim by its whole 95 % interval), 2
 * (bad argument), 3 (no GPU). */
int bench_gemm_main(int argc, char **argv);

#endif
