/* kernels/faults.h: fault injection and detection on the device (usable from C11 and CUDA C++): bit flips and
 * value perturbations of one element, a 64-bit fingerprint of a buffer, the Huang-Abraham checksum of the GEMM
 * chain's output, and a kernel that hangs a stream until released.
 *
 * Every launcher returns 0, or -1 after logging the failing call (bad arguments, launch or copy errors). */
#ifndef GAUNTLET_FAULTS_H
#define GAUNTLET_FAULTS_H

#include <stddef.h>

#include <cuda_runtime.h>

#include "dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gemm_chain;

/* How the elements of a buffer are stored. A GEMM of dtype t reads its inputs A, B as elem_of_input(t) and
 * writes its output D as elem_of_output(t) (bf16 for bf16 and fp8, fp16 for fp16, fp32 for tf32). */
enum elem_type { ELEM_BF16 = 0, ELEM_FP16, ELEM_FP32, ELEM_FP8, ELEM_COUNT };

/* Returns the storage type of the GEMM inputs of dtype t (tf32 is stored as fp32, fp8 as e4m3). */
static inline enum elem_type elem_of_input(enum dtype t)
{
    return t == DT_BF16 ? ELEM_BF16 : t == DT_FP16 ? ELEM_FP16 : t == DT_TF32 ? ELEM_FP32 : ELEM_FP8;
}

/* Returns the storage type of the GEMM output of dtype t. */
static inline enum elem_type elem_of_output(enum dtype t)
{
    return t == DT_FP16 ? ELEM_FP16 : t == DT_TF32 ? ELEM_FP32 : ELEM_BF16;
}

/* Returns the size in bytes of one element of type e. */
static inline size_t elem_size(enum elem_type e) { return e == ELEM_FP32 ? 4 : e == ELEM_FP8 ? 1 : 2; }

/* The bit layout of an element: the sign is bit (bits - 1), the exponent bits [man_bits, man_bits + exp_bits),
 * the mantissa bits [0, man_bits). bf16 1/8/7, fp16 1/5/10, fp32 1/8/23, fp8 e4m3 1/4/3. */
struct elem_layout { int bits, exp_bits, man_bits; };

/* Fills *out with the layout of e; 0, or -1 for an unknown type. */
int elem_layout(enum elem_type e, struct elem_layout *out);

/* Returns the value of the element of type e whose bit pattern is the low bits of raw (e4m3 is the OCP "fn"
 * variant: no infinity, S.1111.111 is NaN). */
double elem_value(unsigned raw, enum elem_type e);

/* Returns the bit pattern of v rounded to nearest in type e (fp16 and bf16 overflow to infinity, fp8
 * saturates to +-448). */
unsigned elem_bits(double v, enum elem_type e);

/* The fields a flip may hit: the same values as enum flip_where (harness/plugins/faults/fault.h), without "value". */
enum elem_field { FIELD_ANY = 0, FIELD_SIGN = 1, FIELD_EXPONENT = 2, FIELD_MANTISSA = 3 };

/* Gives the bit range [*lo, *lo + *width) of field where (enum elem_field) in type e; 0, or -1 when unknown. */
int flip_field(enum elem_type e, int where, int *lo, int *width);

/* Returns the mask of the bits a flip with this seed toggles: exactly `bits` distinct bits inside the field,
 * chosen by seed. 0 when the arguments are bad (bits < 1 or wider than the field). */
unsigned flip_mask(enum elem_type e, int where, int bits, unsigned long long seed);

/* Returns the element of an n-element buffer that a flip or a perturbation with this seed changes. */
size_t flip_index(size_t n, unsigned long long seed);

/* What a flip or a perturbation did: the element, its value and bit pattern before and after. */
struct flip_report {
    size_t index;
    double old_value, new_value;
    unsigned old_bits, new_bits;   /* the element's bit pattern in the low elem_size * 8 bits */
};

/* Toggles flip_mask(e, where, bits, seed) in element flip_index(n, seed) of the device buffer buf (n elements
 * of type e): a silent data corruption. The element is read and written back by copies ordered on s, and s is
 * synchronised (the work already on s completes first). Fills *out when out is not NULL. */
int kernel_bitflip(void *buf, size_t n, enum elem_type e, int bits, int where, unsigned long long seed,
                   struct flip_report *out, cudaStream_t s);

/* Multiplies element flip_index(n, seed) of the device buffer by (1 + rel), rounded to nearest in type e; the
 * same ordering on s as kernel_bitflip. A rel below the type's resolution (1% of an fp8 value) may leave the
 * element unchanged: then out->new_bits == out->old_bits. */
int kernel_perturb(void *buf, size_t n, enum elem_type e, double rel, unsigned long long seed,
                   struct flip_report *out, cudaStream_t s);

/* Hashes the bytes of a device buffer to 64 bits: the buffer is read as little-endian 64-bit words w_i (the
 * last one zero-padded), H = mix(sum_i mix(w_i + (i + 1) G) ^ mix(bytes ^ K)), sums mod 2^64, mix the
 * SplitMix64 finaliser, G the golden-ratio constant, K a fixed key. The sum is exact and order-free, so H does
 * not depend on the launch; since every term is a bijection of its word, any change confined to one 64-bit word
 * (every single-bit flip) always changes H; other changes collide with probability about 2^-64. Not
 * cryptographic. Memory-bound: 16-byte loads when buf is 16-byte aligned (cudaMalloc gives 256), byte loads
 * otherwise. Synchronises s; done (NULL: none) is recorded on s right after the kernel, before the 8-byte copy of its
 * sum to the host and that wait, so that the device time of the work ends there and not at the host's return (when
 * 0 is returned, it was recorded). */
int kernel_fingerprint(const void *buf, size_t bytes, unsigned long long *out_hash, cudaEvent_t done, cudaStream_t s);

/* The same hashes, asynchronous and without allocation: enqueues on s, for each of parts buffers, the kernel
 * that sums its terms into acc[i] (device memory of parts words, zeroed here on s), then a copy of the sums to
 * host_sums (pinned host memory of parts words). Once s has run it, fingerprint_of_sum(host_sums[i], bytes[i])
 * is kernel_fingerprint's hash of buffer i. max_blocks: at most that many blocks per buffer (beside other work,
 * kernel_fingerprint_wave's one wave: it leaves the SMs sooner); 0: as many as the buffer has chunks. 0, or -1
 * (logged). */
int kernel_fingerprint_async(const void *const *bufs, const size_t *bytes, int parts, unsigned long long *acc,
                             unsigned long long *host_sums, unsigned max_blocks, cudaStream_t s);
/* Gives the blocks of the fingerprint's kernel the current device holds at once (SMs x blocks per SM): one wave, for
 * kernel_fingerprint_async's max_blocks. Asked once, outside any timed work. 0, or -1 (logged). */
int kernel_fingerprint_wave(unsigned *blocks);
unsigned long long fingerprint_of_sum(unsigned long long sum, size_t bytes);

/* Returns the same hash as kernel_fingerprint, computed on the CPU from a host copy of the bytes. */
unsigned long long fingerprint_host(const void *buf, size_t bytes);

/* Huang-Abraham carried through the GEMM (harness/core/abft.h): writes A's checksum rows — rows m - 2 and m - 1 of
 * A (m x k, row i's k elements contiguous, as gemm.h stores it) from its first m - 2 rows, split in two in dtype
 * t's input type (tf32: the data rows are rounded to tf32 in place first). Every chain's A gets them when it is
 * filled. Enqueued on s; 0, or -1 (logged; fewer than 3 rows). */
int kernel_abft_embed(void *a, long m, long k, enum dtype t, cudaStream_t s);

/* Checks the chain's output D by the checksum its A carries: one pass over D, one block per column, err_j as
 * abft.h defines it (+inf for a column holding an infinity or a NaN). Gives the largest err_j and its column.
 * Reads D in order on s, so run it after gemm_chain_run on the same stream; synchronises s. begin and done (NULL:
 * none) are recorded on s around the verifying kernel alone: begin after its scratch is allocated, done before the
 * copy of the n column errors to the host and the wait, as kernel_fingerprint's (when 0 is returned, both were).
 * Compare *max_rel_err with abft_tol(abft_model_of(t), m, k). */
int kernel_abft_check(const struct gemm_chain *g, double *max_rel_err, long *bad_col, cudaEvent_t begin,
                      cudaEvent_t done, cudaStream_t s);

/* Enqueues on s one thread that spins (sleeping in __nanosleep) until the device word *flag becomes nonzero:
 * the stream, and everything queued after it, stops while the process stays alive and responsive -- what a
 * rank stuck in a collective looks like. Does not synchronise. Release it by writing a nonzero word to flag
 * from a stream created with cudaStreamNonBlocking (cudaMemcpyAsync from pinned memory), or end the process.
 * While it spins, whatever waits for the whole device (cudaDeviceSynchronize, cudaFree) waits too, and so does
 * the legacy default stream unless s was created with cudaStreamNonBlocking. */
int kernel_hang(volatile int *flag, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
