/* kernels/faults.cu: fault injection on the device: bit flips and value perturbations of one element, a hung
 * stream. The detectors are fingerprint.cu (a buffer's fingerprint) and abft.cu (the GEMM chain's checksum). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "util.h"
#include "cuda_check.h"
#include "faults.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "faults.cu copies elements as little-endian bytes"
#endif

/* ---- element types ---------------------------------------------------------------------------------------- */

static const struct elem_layout faults_layouts[ELEM_COUNT] = {
    { 16, 8, 7 },    /* bf16 */
    { 16, 5, 10 },   /* fp16 */
    { 32, 8, 23 },   /* fp32 (tf32 data) */
    { 8, 4, 3 },     /* fp8 e4m3 */
};

extern "C" int elem_layout(enum elem_type e, struct elem_layout *out)
{
    if ((unsigned)e >= ELEM_COUNT || !out)
        return -1;
    *out = faults_layouts[e];
    return 0;
}

extern "C" double elem_value(unsigned raw, enum elem_type e)
{
    uint32_t u;
    float f;
    int sign, ex, man;
    double v;
    switch (e) {
    case ELEM_BF16:
        u = (raw & 0xFFFFu) << 16;
        memcpy(&f, &u, sizeof f);
        return f;
    case ELEM_FP32:
        u = raw;
        memcpy(&f, &u, sizeof f);
        return f;
    case ELEM_FP16:
        sign = (raw >> 15) & 1, ex = (raw >> 10) & 0x1F, man = raw & 0x3FF;
        v = ex == 0 ? ldexp(man, -24) : ex == 31 ? (man ? NAN : INFINITY) : ldexp(man | 0x400, ex - 25);
        return sign ? -v : v;
    case ELEM_FP8:
        sign = (raw >> 7) & 1, ex = (raw >> 3) & 0xF, man = raw & 0x7;
        v = (ex == 15 && man == 7) ? NAN : ex == 0 ? ldexp(man, -9) : ldexp(man | 0x8, ex - 10);
        return sign ? -v : v;
    default:
        return NAN;
    }
}

extern "C" unsigned elem_bits(double v, enum elem_type e)
{
    switch (e) {
    case ELEM_BF16: {
        __nv_bfloat16 h = __double2bfloat16(v);
        uint16_t u;
        memcpy(&u, &h, sizeof u);
        return u;
    }
    case ELEM_FP16: {
        __half h = __double2half(v);
        uint16_t u;
        memcpy(&u, &h, sizeof u);
        return u;
    }
    case ELEM_FP32: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    case ELEM_FP8:
        return __nv_cvt_double_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
    default:
        return 0;
    }
}

extern "C" int flip_field(enum elem_type e, int where, int *lo, int *width)
{
    if ((unsigned)e >= ELEM_COUNT || !lo || !width)
        return -1;
    const struct elem_layout *l = &faults_layouts[e];
    switch (where) {
    case FIELD_ANY: *lo = 0, *width = l->bits; return 0;
    case FIELD_SIGN: *lo = l->bits - 1, *width = 1; return 0;
    case FIELD_EXPONENT: *lo = l->man_bits, *width = l->exp_bits; return 0;
    case FIELD_MANTISSA: *lo = 0, *width = l->man_bits; return 0;
    default: return -1;
    }
}

extern "C" unsigned flip_mask(enum elem_type e, int where, int bits, unsigned long long seed)
{
    int lo, width, pos[32];
    struct rng r;
    unsigned mask = 0;
    if (flip_field(e, where, &lo, &width) != 0 || bits < 1 || bits > width)
        return 0;
    for (int i = 0; i < width; i++)
        pos[i] = lo + i;
    rng_seed(&r, seed, 1);   /* stream 1: the bits; stream 0 picks the element */
    for (int i = 0; i < bits; i++) {   /* partial Fisher-Yates: bits distinct positions */
        int j = i + (int)(rng_next(&r) % (uint64_t)(width - i));
        int tmp = pos[i];
        pos[i] = pos[j];
        pos[j] = tmp;
        mask |= 1u << pos[i];
    }
    return mask;
}

extern "C" size_t flip_index(size_t n, unsigned long long seed)
{
    struct rng r;
    if (n == 0)
        return 0;
    rng_seed(&r, seed, 0);
    return (size_t)(rng_next(&r) % (uint64_t)n);
}

/* ---- bit flips and perturbations: one element read and written back by copies ordered on s ------------------- */

/* Fails (logged) unless buf, n and e describe a non-empty buffer of a known element type. */
static int faults_check_buffer(const char *who, const void *buf, size_t n, enum elem_type e)
{
    if (buf && n > 0 && (unsigned)e < ELEM_COUNT)
        return 0;
    gl_log("%s: bad arguments (buf %p, n %zu, element type %d)", who, buf, n, (int)e);
    return -1;
}

/* Copies element i (sz bytes) of buf into the low bytes of *raw, after the work already on s. */
static int faults_read(const void *buf, size_t i, size_t sz, unsigned *raw, cudaStream_t s)
{
    unsigned v = 0;
    if (CUDA_CHECK(cudaMemcpyAsync(&v, (const char *)buf + i * sz, sz, cudaMemcpyDeviceToHost, s)) ||
        CUDA_CHECK(cudaStreamSynchronize(s)))
        return -1;
    *raw = v;
    return 0;
}

/* Writes the low sz bytes of raw to element i of buf, ordered on s, and waits for it. */
static int faults_write(void *buf, size_t i, size_t sz, unsigned raw, cudaStream_t s)
{
    if (CUDA_CHECK(cudaMemcpyAsync((char *)buf + i * sz, &raw, sz, cudaMemcpyHostToDevice, s)) ||
        CUDA_CHECK(cudaStreamSynchronize(s)))
        return -1;
    return 0;
}

/* Fills *out (when given) with what happened to element i. */
static void faults_report(struct flip_report *out, size_t i, unsigned old_bits, unsigned new_bits, enum elem_type e)
{
    if (!out)
        return;
    out->index = i;
    out->old_bits = old_bits;
    out->new_bits = new_bits;
    out->old_value = elem_value(old_bits, e);
    out->new_value = elem_value(new_bits, e);
}

extern "C" int kernel_bitflip(void *buf, size_t n, enum elem_type e, int bits, int where, unsigned long long seed,
                              struct flip_report *out, cudaStream_t s)
{
    if (faults_check_buffer("kernel_bitflip", buf, n, e) != 0)
        return -1;
    unsigned mask = flip_mask(e, where, bits, seed), old_bits;
    if (!mask) {
        gl_log("kernel_bitflip: cannot flip %d bit(s) of field %d (0 any, 1 sign, 2 exponent, 3 mantissa) in a "
               "%zu-byte element", bits, where, elem_size(e));
        return -1;
    }
    size_t i = flip_index(n, seed), sz = elem_size(e);
    if (faults_read(buf, i, sz, &old_bits, s) != 0 || faults_write(buf, i, sz, old_bits ^ mask, s) != 0)
        return -1;
    faults_report(out, i, old_bits, old_bits ^ mask, e);
    return 0;
}

extern "C" int kernel_perturb(void *buf, size_t n, enum elem_type e, double rel, unsigned long long seed,
                              struct flip_report *out, cudaStream_t s)
{
    if (faults_check_buffer("kernel_perturb", buf, n, e) != 0)
        return -1;
    if (!isfinite(rel)) {
        gl_log("kernel_perturb: the relative change %g is not finite", rel);
        return -1;
    }
    size_t i = flip_index(n, seed), sz = elem_size(e);
    unsigned old_bits, new_bits;
    if (faults_read(buf, i, sz, &old_bits, s) != 0)
        return -1;
    new_bits = elem_bits(elem_value(old_bits, e) * (1.0 + rel), e);
    if (new_bits != old_bits && faults_write(buf, i, sz, new_bits, s) != 0)
        return -1;
    faults_report(out, i, old_bits, new_bits, e);
    return 0;
}

/* ---- hang ------------------------------------------------------------------------------------------------------ */

/* Spins one thread until *flag is nonzero, sleeping between reads so that the wait costs almost nothing. */
__global__ static void faults_hang_kernel(volatile int *flag)
{
    while (*flag == 0) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(1000);
#endif
    }
}

extern "C" int kernel_hang(volatile int *flag, cudaStream_t s)
{
    if (!flag) {
        gl_log("kernel_hang: no flag");
        return -1;
    }
    faults_hang_kernel<<<1, 1, 0, s>>>(flag);
    return CUDA_CHECK(cudaGetLastError());
}
