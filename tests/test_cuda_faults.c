/* tests/test_cuda_faults.c: fault injection and detection kernels (kernels/faults.h). The pure helpers are
 * tested everywhere; the kernels against host references when a GPU is usable (they skip with the runtime's
 * reason otherwise). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "abft.h"
#include "detectors/detector.h"
#include "e2e.h"
#include "faults.h"
#include "gemm.h"
#include "kernels.h"
#include "util.h"

/* Returns the dtype whose GEMM inputs are stored as e (kernel_fill_normal fills by dtype). */
static enum dtype dtype_of_elem(enum elem_type e)
{
    static const enum dtype d[ELEM_COUNT] = { DT_BF16, DT_FP16, DT_TF32, DT_FP8 };
    return d[e];
}

/* Returns the bit pattern of element i of a host copy of a buffer of type e. */
static unsigned raw_at(const unsigned char *buf, size_t i, enum elem_type e)
{
    unsigned v = 0;
    memcpy(&v, buf + i * elem_size(e), elem_size(e));   /* little-endian, as faults.cu requires */
    return v;
}

/* Fills n bytes with seeded random bytes. */
static void random_bytes(unsigned char *p, size_t n, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed, 7);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(rng_next(&r) >> 56);
}

/* ---- pure helpers: no GPU needed ------------------------------------------------------------------------------ */

Test(faults, element_layouts)
{
    static const struct elem_layout want[ELEM_COUNT] = { { 16, 8, 7 }, { 16, 5, 10 }, { 32, 8, 23 }, { 8, 4, 3 } };
    for (int e = 0; e < ELEM_COUNT; e++) {
        struct elem_layout l;
        int lo, width;
        cr_assert_eq(elem_layout((enum elem_type)e, &l), 0);
        cr_assert(l.bits == want[e].bits && l.exp_bits == want[e].exp_bits && l.man_bits == want[e].man_bits,
                  "type %d: %d/%d/%d", e, l.bits, l.exp_bits, l.man_bits);
        cr_assert_eq((size_t)l.bits, 8 * elem_size((enum elem_type)e));
        cr_assert_eq(1 + l.exp_bits + l.man_bits, l.bits);
        cr_assert_eq(flip_field((enum elem_type)e, FIELD_SIGN, &lo, &width), 0);
        cr_assert(lo == l.bits - 1 && width == 1);
        cr_assert_eq(flip_field((enum elem_type)e, FIELD_EXPONENT, &lo, &width), 0);
        cr_assert(lo == l.man_bits && width == l.exp_bits);
        cr_assert_eq(flip_field((enum elem_type)e, FIELD_MANTISSA, &lo, &width), 0);
        cr_assert(lo == 0 && width == l.man_bits);
        cr_assert_eq(flip_field((enum elem_type)e, FIELD_ANY, &lo, &width), 0);
        cr_assert(lo == 0 && width == l.bits);
        cr_assert_eq(flip_field((enum elem_type)e, 4, &lo, &width), -1);
    }
    struct elem_layout l;
    cr_assert_eq(elem_layout(ELEM_COUNT, &l), -1);
    /* The sign of -1.0 and the exponent of 2.0 sit where the layout says, in every type. */
    for (int e = 0; e < ELEM_COUNT; e++) {
        elem_layout((enum elem_type)e, &l);
        cr_assert_eq(elem_bits(-1.0, (enum elem_type)e) ^ elem_bits(1.0, (enum elem_type)e), 1u << (l.bits - 1));
        unsigned d = elem_bits(2.0, (enum elem_type)e) ^ elem_bits(1.0, (enum elem_type)e);
        unsigned exponent = ((1u << l.exp_bits) - 1) << l.man_bits;
        cr_assert(d != 0 && (d & ~exponent) == 0, "type %d: 1.0 and 2.0 differ outside the exponent (0x%x)", e, d);
    }
    cr_assert_eq(elem_of_input(DT_TF32), ELEM_FP32);
    cr_assert_eq(elem_of_input(DT_FP8), ELEM_FP8);
    cr_assert_eq(elem_of_output(DT_FP8), ELEM_BF16);
    cr_assert_eq(elem_of_output(DT_FP16), ELEM_FP16);
    cr_assert_eq(elem_of_output(DT_TF32), ELEM_FP32);
    cr_assert_eq(elem_of_output(DT_BF16), ELEM_BF16);
}

Test(faults, element_values)
{
    cr_assert_eq(elem_value(0x3F80, ELEM_BF16), 1.0);
    cr_assert_eq(elem_value(0xC000, ELEM_BF16), -2.0);
    cr_assert_eq(elem_value(0x3C00, ELEM_FP16), 1.0);
    cr_assert_eq(elem_value(0x7BFF, ELEM_FP16), 65504.0);
    cr_assert_eq(elem_value(0x0001, ELEM_FP16), ldexp(1, -24));
    cr_assert(isinf(elem_value(0x7C00, ELEM_FP16)));
    cr_assert_eq(elem_value(0x3F800000u, ELEM_FP32), 1.0);
    cr_assert_eq(elem_value(0x38, ELEM_FP8), 1.0);
    cr_assert_eq(elem_value(0x7E, ELEM_FP8), 448.0);
    cr_assert_eq(elem_value(0x01, ELEM_FP8), ldexp(1, -9));
    cr_assert(isnan(elem_value(0x7F, ELEM_FP8)));
    cr_assert_eq(elem_bits(1.01, ELEM_BF16), 0x3F81u);   /* 1.0078125: the nearest bf16 */
    cr_assert_eq(elem_bits(1e6, ELEM_FP16), 0x7C00u);    /* overflow to infinity */
    cr_assert_eq(elem_bits(1000.0, ELEM_FP8), 0x7Eu);    /* saturates to 448 */
    cr_assert_eq(elem_bits(-3.0, ELEM_FP32), 0xC0400000u);
    /* Every finite 8- and 16-bit pattern survives value -> bits. */
    for (unsigned x = 0; x < 0x10000; x++) {
        if (x < 0x100 && !isnan(elem_value(x, ELEM_FP8)))
            cr_assert_eq(elem_bits(elem_value(x, ELEM_FP8), ELEM_FP8), x, "fp8 0x%02x", x);
        if (isfinite(elem_value(x, ELEM_FP16)))
            cr_assert_eq(elem_bits(elem_value(x, ELEM_FP16), ELEM_FP16), x, "fp16 0x%04x", x);
        if (isfinite(elem_value(x, ELEM_BF16)))
            cr_assert_eq(elem_bits(elem_value(x, ELEM_BF16), ELEM_BF16), x, "bf16 0x%04x", x);
    }
}

Test(faults, flip_masks)
{
    for (int e = 0; e < ELEM_COUNT; e++)
        for (int where = FIELD_ANY; where <= FIELD_MANTISSA; where++) {
            int lo, width;
            cr_assert_eq(flip_field((enum elem_type)e, where, &lo, &width), 0);
            unsigned field = (width == 32 ? ~0u : ((1u << width) - 1)) << lo;
            for (int bits = 1; bits <= width; bits++) {
                unsigned seen = 0;
                for (unsigned long long seed = 1; seed <= 40; seed++) {
                    unsigned m = flip_mask((enum elem_type)e, where, bits, seed);
                    cr_assert_eq(__builtin_popcount(m), bits, "type %d field %d: mask 0x%x", e, where, m);
                    cr_assert_eq(m & ~field, 0u, "type %d field %d: mask 0x%x outside 0x%x", e, where, m, field);
                    cr_assert_eq(m, flip_mask((enum elem_type)e, where, bits, seed));
                    seen |= m;
                }
                if (bits < width)
                    cr_assert_gt(__builtin_popcount(seen), bits, "type %d field %d: the seed never moves the bits",
                                 e, where);
            }
            cr_assert_eq(flip_mask((enum elem_type)e, where, 0, 1), 0u);
            cr_assert_eq(flip_mask((enum elem_type)e, where, width + 1, 1), 0u);
        }
    cr_assert_eq(flip_mask(ELEM_FP32, 5, 1, 1), 0u);
    size_t hits[10] = { 0 };
    for (unsigned long long seed = 0; seed < 1000; seed++) {
        size_t i = flip_index(10, seed);
        cr_assert_lt(i, 10);
        cr_assert_eq(i, flip_index(10, seed));
        hits[i]++;
    }
    for (int i = 0; i < 10; i++)
        cr_assert_gt(hits[i], 50, "element %d picked %zu times in 1000", i, hits[i]);
}

Test(faults, fingerprint_host_properties)
{
    unsigned char buf[37], zeros[32] = { 0 };
    random_bytes(buf, sizeof buf, 1);
    unsigned long long h = fingerprint_host(buf, sizeof buf), seen[8 * sizeof buf];
    cr_assert_eq(h, fingerprint_host(buf, sizeof buf));
    for (size_t bit = 0; bit < 8 * sizeof buf; bit++) {
        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        seen[bit] = fingerprint_host(buf, sizeof buf);
        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        cr_assert_neq(seen[bit], h, "flipping bit %zu left the fingerprint unchanged", bit);
        for (size_t b = 0; b < bit; b++)
            cr_assert_neq(seen[b], seen[bit], "bits %zu and %zu give the same fingerprint", b, bit);
    }
    /* The length counts: zero-padding of the last word does not hide a shorter or longer buffer. */
    unsigned long long z[5] = { fingerprint_host(zeros, 0), fingerprint_host(zeros, 8), fingerprint_host(zeros, 9),
                                fingerprint_host(zeros, 16), fingerprint_host(zeros, 32) };
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < i; j++)
            cr_assert_neq(z[i], z[j], "zero buffers of two lengths (%d, %d) hash alike", i, j);
    /* Positions count: swapping two different words changes it. */
    unsigned char sw[sizeof buf];
    memcpy(sw, buf, sizeof buf);
    memcpy(sw, buf + 8, 8);
    memcpy(sw + 8, buf, 8);
    cr_assert_neq(fingerprint_host(sw, sizeof sw), h);
}

/* Bad arguments fail before any device call, so these run without a GPU. */
Test(faults, bad_arguments_fail)
{
    unsigned long long h = 0;
    struct flip_report r;
    double err;
    long col;
    cr_assert_eq(kernel_bitflip(NULL, 10, ELEM_BF16, 1, FIELD_ANY, 1, &r, 0), -1);
    cr_assert_eq(kernel_bitflip((void *)256, 0, ELEM_BF16, 1, FIELD_ANY, 1, &r, 0), -1);
    cr_assert_eq(kernel_bitflip((void *)256, 10, ELEM_FP8, 2, FIELD_SIGN, 1, &r, 0), -1);
    cr_assert_eq(kernel_bitflip((void *)256, 10, ELEM_FP8, 4, FIELD_MANTISSA, 1, &r, 0), -1);
    cr_assert_eq(kernel_bitflip((void *)256, 10, ELEM_COUNT, 1, FIELD_ANY, 1, &r, 0), -1);
    cr_assert_eq(kernel_perturb((void *)256, 10, ELEM_FP32, NAN, 1, &r, 0), -1);
    cr_assert_eq(kernel_fingerprint(NULL, 8, &h, NULL, 0), -1);
    cr_assert_eq(kernel_fingerprint(NULL, 0, &h, NULL, 0), 0);
    cr_assert_eq(h, fingerprint_host(NULL, 0));
    cr_assert_eq(kernel_abft_check(NULL, &err, &col, NULL, NULL, 0), -1);
    cr_assert_eq(kernel_abft_embed(NULL, 8, 8, DT_BF16, 0), -1);
    cr_assert_eq(kernel_abft_embed((void *)256, 2, 8, DT_BF16, 0), -1);   /* 2 rows: no room for the checksum */
    cr_assert_eq(kernel_hang(NULL, 0), -1);
    cr_assert_eq(kernel_fingerprint_wave(NULL), -1);
}

/* ---- kernels on the GPU ---------------------------------------------------------------------------------------- */

Test(faults, fingerprint_matches_host)
{
    e2e_need_gpu();
    static const size_t sizes[] = { 1, 7, 8, 15, 16, 17, 63, 64, 1000, 4096 * 16 + 3, 1 << 20, (1 << 22) + 13 };
    static const size_t offsets[] = { 0, 1, 3, 8 };   /* 16-byte aligned loads, and the byte path */
    size_t cap = (1 << 22) + 13 + 8;
    unsigned char *host = malloc(cap), *dev = NULL;
    cr_assert_not_null(host);
    random_bytes(host, cap, 42);
    cr_assert_eq(cudaMalloc((void **)&dev, cap), cudaSuccess);
    cr_assert_eq(cudaMemcpy(dev, host, cap, cudaMemcpyHostToDevice), cudaSuccess);
    for (size_t o = 0; o < ARRAY_LEN(offsets); o++)
        for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
            size_t off = offsets[o], n = sizes[i];
            unsigned long long h = 0, again = 0;
            cr_assert_eq(kernel_fingerprint(dev + off, n, &h, NULL, 0), 0);
            cr_assert_eq(kernel_fingerprint(dev + off, n, &again, NULL, 0), 0);
            cr_assert_eq(h, again, "offset %zu, %zu bytes: two runs differ", off, n);
            cr_assert_eq(h, fingerprint_host(host + off, n), "offset %zu, %zu bytes: device %016llx, host %016llx",
                         off, n, h, fingerprint_host(host + off, n));
        }
    /* One bit flipped on the device changes the fingerprint, to what the host computes for the flipped bytes. */
    unsigned long long before = 0, after = 0;
    size_t n = (1 << 20) + 5, at = 777777;
    cr_assert_eq(kernel_fingerprint(dev, n, &before, NULL, 0), 0);
    host[at] ^= 0x10;
    cr_assert_eq(cudaMemcpy(dev + at, host + at, 1, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(kernel_fingerprint(dev, n, &after, NULL, 0), 0);
    cr_assert_neq(before, after);
    cr_assert_eq(after, fingerprint_host(host, n));
    cr_assert_eq(cudaFree(dev), cudaSuccess);
    free(host);
}

/* The slices a rank hashes (fingerprint_slice, aligned to 16 as cuda_fp_parts takes them) of a buffer whose length
 * is no multiple of 16: each slice's hash on the device, both forms, is the host's of the same bytes, and the slices
 * tile the buffer. One GPU runs one rank, whose vote compares it with nobody: only this shows a slice read wrong. */
Test(faults, every_slice_of_the_fingerprint_hashes_its_own_bytes)
{
    e2e_need_gpu();
    size_t len = (1 << 20) + 37;
    unsigned char *host = malloc(len), *dev = NULL;
    unsigned long long *acc = NULL, *sums = NULL;
    cr_assert_not_null(host);
    random_bytes(host, len, 11);
    cr_assert_eq(cudaMalloc((void **)&dev, len), cudaSuccess);
    cr_assert_eq(cudaMemcpy(dev, host, len, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&acc, 2 * sizeof *acc), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&sums, 2 * sizeof *sums), cudaSuccess);
    unsigned wave = 0;
    cr_assert_eq(kernel_fingerprint_wave(&wave), 0);
    cr_assert_gt(wave, 0);
    for (int slices = 1; slices <= 7; slices += 3) {
        size_t next = 0;
        for (int slice = 0; slice < slices; slice++) {
            size_t off = 0, b = 0;
            fingerprint_slice(len, slice, slices, 16, &off, &b);
            cr_assert_eq(off, next, "slice %d of %d begins where the one before ended", slice, slices);
            cr_assert(off % 16 == 0, "slice %d of %d at %zu: 16-byte aligned", slice, slices, off);
            next = off + b;
            const void *bufs[2] = { dev + off, dev };
            const size_t bytes[2] = { b, len };
            cr_assert_eq(kernel_fingerprint_async(bufs, bytes, 2, acc, sums, wave, 0), 0);
            cr_assert_eq(cudaStreamSynchronize(0), cudaSuccess);
            unsigned long long h = 0, want = fingerprint_host(host + off, b);
            cr_assert_eq(fingerprint_of_sum(sums[0], b), want, "slice %d of %d (%zu bytes at %zu)", slice, slices, b, off);
            cr_assert_eq(fingerprint_of_sum(sums[1], len), fingerprint_host(host, len), "the whole beside it");
            cr_assert_eq(kernel_fingerprint(dev + off, b, &h, NULL, 0), 0);
            cr_assert_eq(h, want, "slice %d of %d: the synchronous form", slice, slices);
        }
        cr_assert_eq(next, len, "%d slices tile the buffer", slices);
    }
    cr_assert_eq(cudaFreeHost(sums), cudaSuccess);
    cr_assert_eq(cudaFree(acc), cudaSuccess);
    cr_assert_eq(cudaFree(dev), cudaSuccess);
    free(host);
}

/* The asynchronous form (several buffers, no allocation, no wait) gives kernel_fingerprint's hash of each,
 * once its stream has run, on a stream of its own beside other work. */
Test(faults, async_fingerprint_matches_the_sync_one)
{
    e2e_need_gpu();
    size_t cap = (1 << 22) + 64;
    unsigned char *host = malloc(cap), *dev = NULL;
    unsigned long long *acc = NULL, *sums = NULL;
    cudaStream_t s;
    cr_assert_not_null(host);
    random_bytes(host, cap, 7);
    cr_assert_eq(cudaMalloc((void **)&dev, cap), cudaSuccess);
    cr_assert_eq(cudaMemcpy(dev, host, cap, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&acc, 3 * sizeof *acc), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&sums, 3 * sizeof *sums), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    const void *bufs[3] = { dev, dev + 3, dev + 4096 };   /* aligned, the byte path, aligned again */
    const size_t bytes[3] = { 1 << 22, 1000003, 0 };
    unsigned wave = 0;
    cr_assert_eq(kernel_fingerprint_wave(&wave), 0);
    for (int round = 0; round < 3; round++) {   /* each round reuses acc: it is zeroed each time; one wave, as many
                                                 * blocks as chunks, then one block: the same sums */
        cr_assert_eq(kernel_fingerprint_async(bufs, bytes, 3, acc, sums, round == 0 ? wave : round == 1 ? 0 : 1, s), 0);
        cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
        for (int i = 0; i < 3; i++) {
            unsigned long long h = 0;
            cr_assert_eq(kernel_fingerprint(bufs[i], bytes[i], &h, NULL, 0), 0);
            cr_assert_eq(fingerprint_of_sum(sums[i], bytes[i]), h, "round %d, part %d", round, i);
        }
    }
    cr_assert_eq(kernel_fingerprint_async(bufs, bytes, 0, acc, sums, wave, s), -1, "no parts is an error");
    /* done: recorded on the stream once the hash is enqueued, before the host waits: a time from an event before it */
    cudaEvent_t e0, e1;
    float ms = -1;
    unsigned long long h = 0;
    cr_assert_eq(cudaEventCreate(&e0), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&e1), cudaSuccess);
    cr_assert_eq(cudaEventRecord(e0, s), cudaSuccess);
    cr_assert_eq(kernel_fingerprint(bufs[0], bytes[0], &h, e1, s), 0);
    cr_assert_eq(cudaEventElapsedTime(&ms, e0, e1), cudaSuccess, "done was recorded and has completed");
    cr_assert(ms >= 0 && ms < 1000, "%g ms", ms);
    cr_assert_eq(cudaEventDestroy(e0), cudaSuccess);
    cr_assert_eq(cudaEventDestroy(e1), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
    cr_assert_eq(cudaFreeHost(sums), cudaSuccess);
    cr_assert_eq(cudaFree(acc), cudaSuccess);
    cr_assert_eq(cudaFree(dev), cudaSuccess);
    free(host);
}

/* Gives the host's fingerprint of n bf16 elements filled from seed; host (n * 2 bytes) keeps them. */
static unsigned long long fill_hash(void *scratch, unsigned char *host, size_t n, unsigned long long seed)
{
    cr_assert_eq(kernel_fill_normal(scratch, n, DT_BF16, seed, 1.0f, 0), 0);
    cr_assert_eq(cudaMemcpy(host, scratch, n * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    return fingerprint_host(host, n * 2);
}

/* Sets device word flag (a kernel_hang's) from the side stream, and waits for the copy. */
static void release(int *flag, const int *one, cudaStream_t side)
{
    cr_assert_eq(cudaMemcpyAsync(flag, one, sizeof *one, cudaMemcpyHostToDevice, side), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(side), cudaSuccess);
}

/* The order the backend keeps around the asynchronous fingerprint (cuda_fingerprint_start, and the next exchange's
 * wait on fp_done), on one GPU, where the vote compares a rank with nobody and so sees no hash read at the wrong
 * time: the rank's stream writes the buffer and records fp_after; the hash's stream waits for it, hashes 256 MiB in
 * one wave and records fp_done; the rank's stream waits for that and overwrites the buffer. The hash must be the
 * host's of the bytes between the two writes. A kernel_hang holds the rank's stream in round 0 (the hash must not run
 * before the write: fp_done stays pending) and the hash's stream in round 1 (the overwrite must not run before the
 * hash: the rank's stream stays pending, the buffer keeps the first write): without either wait, the test fails. */
Test(faults, the_async_fingerprint_hashes_the_buffer_between_its_two_writes, .timeout = 120)
{
    e2e_need_gpu();
    const size_t bytes = 256ull << 20, n = bytes / 2, head = 4096;
    unsigned char *host = malloc(bytes), want_head[4096], *seen = NULL, *dev = NULL, *scratch = NULL;
    unsigned long long *acc = NULL, *sums = NULL, got[2] = { 0, 0 };
    int *flags = NULL, *one = NULL, early = 1, waited = 0, kept = 0;
    cudaStream_t rank_s, fp_s, side;
    cudaEvent_t after, done;
    unsigned wave = 0;
    cr_assert_not_null(host);
    cr_assert_eq(cudaMalloc((void **)&dev, bytes), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&scratch, bytes), cudaSuccess);
    unsigned long long want[2] = { fill_hash(scratch, host, n, 2), fill_hash(scratch, host, n, 4) };
    memcpy(want_head, host, head);   /* seed 4's first bytes: the buffer's while round 1's hash is held */
    cr_assert_eq(cudaFree(scratch), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&acc, sizeof *acc), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&flags, 2 * sizeof *flags), cudaSuccess);
    cr_assert_eq(cudaMemset(flags, 0, 2 * sizeof *flags), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&sums, sizeof *sums), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&one, sizeof *one), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&seen, head), cudaSuccess);
    *one = 1;
    cr_assert_eq(cudaStreamCreateWithFlags(&rank_s, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&fp_s, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaEventCreateWithFlags(&after, cudaEventDisableTiming), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&done), cudaSuccess);
    cr_assert_eq(kernel_fingerprint_wave(&wave), 0);
    /* every kernel launched while a hang spins is loaded before (fill_hash's fill, the hash here): under lazy loading
     * (CUDA's default) a first launch may wait for the whole context, and so for the spinning kernel */
    unsigned long long h = 0;
    cr_assert_eq(kernel_fingerprint(dev, 64, &h, NULL, 0), 0);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);   /* nothing waits for the whole device past here */
    const void *bufs[1] = { dev };
    const size_t lens[1] = { bytes };
    for (int round = 0; round < 2; round++) {
        if (round == 0)
            cr_assert_eq(kernel_hang(flags, rank_s), 0);
        cr_assert_eq(kernel_fill_normal(dev, n, DT_BF16, 2 + 2 * (unsigned long long)round, 1.0f, rank_s), 0);
        cr_assert_eq(cudaEventRecord(after, rank_s), cudaSuccess);
        cr_assert_eq(cudaStreamWaitEvent(fp_s, after, 0), cudaSuccess);
        if (round == 1)
            cr_assert_eq(kernel_hang(flags + 1, fp_s), 0);
        cr_assert_eq(kernel_fingerprint_async(bufs, lens, 1, acc, sums, wave, fp_s), 0);
        cr_assert_eq(cudaEventRecord(done, fp_s), cudaSuccess);
        cr_assert_eq(cudaStreamWaitEvent(rank_s, done, 0), cudaSuccess);
        cr_assert_eq(kernel_fill_normal(dev, n, DT_BF16, 3 + 2 * (unsigned long long)round, 1.0f, rank_s), 0);
        sleep_ns(200000000ull);
        if (round == 0) {   /* the write is held: so is the hash */
            early = cudaEventQuery(done) != cudaErrorNotReady;
            release(flags, one, side);
        } else {            /* the hash is held: so is the overwrite, and the buffer holds the write */
            waited = cudaStreamQuery(rank_s) == cudaErrorNotReady;
            cr_assert_eq(cudaMemcpyAsync(seen, dev, head, cudaMemcpyDeviceToHost, side), cudaSuccess);
            cr_assert_eq(cudaStreamSynchronize(side), cudaSuccess);
            kept = memcmp(seen, want_head, head) == 0;
            release(flags + 1, one, side);
        }
        cr_assert_eq(cudaStreamSynchronize(fp_s), cudaSuccess);
        cr_assert_eq(cudaStreamSynchronize(rank_s), cudaSuccess);
        got[round] = fingerprint_of_sum(sums[0], bytes);
    }
    cr_log_info("async fingerprint between two writes: round 0 hash %s before the write it waits for, round 1 "
                "overwrite %s for the hash, buffer %s; hashes %016llx %016llx, host %016llx %016llx (want equal)",
                early ? "RAN" : "held", waited ? "waited" : "DID NOT WAIT", kept ? "kept" : "OVERWRITTEN", got[0],
                got[1], want[0], want[1]);
    cr_assert_not(early, "the hash ran before the write it was ordered after (fp_after)");
    cr_assert(waited && kept, "the next write ran before the hash it was ordered after (fp_done)");
    cr_assert_eq(got[0], want[0], "round 0: the hash is not the host's of the bytes written before it");
    cr_assert_eq(got[1], want[1], "round 1: the hash is not the host's of the bytes written before it");
    cr_assert_eq(cudaEventDestroy(after), cudaSuccess);
    cr_assert_eq(cudaEventDestroy(done), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(rank_s), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(fp_s), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(side), cudaSuccess);
    cr_assert_eq(cudaFreeHost(seen), cudaSuccess);
    cr_assert_eq(cudaFreeHost(one), cudaSuccess);
    cr_assert_eq(cudaFreeHost(sums), cudaSuccess);
    cr_assert_eq(cudaFree(flags), cudaSuccess);
    cr_assert_eq(cudaFree(acc), cudaSuccess);
    cr_assert_eq(cudaFree(dev), cudaSuccess);
    free(host);
}

Test(faults, fingerprint_1gib_repeatable_and_equal_to_host, .timeout = 120)
{
    e2e_need_gpu();
    const size_t bytes = 1ull << 30;
    size_t free_b = 0, total_b = 0;
    cr_assert_eq(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    if (free_b < bytes + (256ull << 20))
        cr_skip_test("needs 1.25 GiB of free device memory, %zu MiB free", free_b >> 20);
    void *dev = NULL;
    unsigned char *host = malloc(bytes);
    cr_assert_not_null(host);
    cr_assert_eq(cudaMalloc(&dev, bytes), cudaSuccess);
    cr_assert_eq(kernel_fill_normal(dev, bytes / 4, DT_TF32, 5, 1.0f, 0), 0);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    unsigned long long h = 0, first = 0;
    double best = 1e30;
    for (int rep = 0; rep < 6; rep++) {
        uint64_t t0 = mono_ns();
        cr_assert_eq(kernel_fingerprint(dev, bytes, &h, NULL, 0), 0);
        double s = (double)(mono_ns() - t0) * 1e-9;
        if (rep == 0)
            first = h;
        else if (s < best)
            best = s;
        cr_assert_eq(h, first, "run %d gave another fingerprint", rep);
    }
    double gbs = (double)bytes / best * 1e-9;
    cr_log_info("fingerprint of 1 GiB: %.3f ms, %.0f GB/s (host call, allocation and copy included)", best * 1e3, gbs);
    /* speed is measured, not asserted here: the figure goes to docs/performance.md */
    cr_log_info("fingerprint of 1 GiB at %.0f GB/s (one call, its synchronisation included)", gbs);
    cr_assert_eq(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(h, fingerprint_host(host, bytes));
    cr_assert_eq(cudaFree(dev), cudaSuccess);
    free(host);
}

Test(faults, bitflip_changes_exactly_the_bits)
{
    e2e_need_gpu();
    const size_t n = 10007;
    for (int e = 0; e < ELEM_COUNT; e++) {
        size_t bytes = n * elem_size((enum elem_type)e);
        unsigned char *before = malloc(bytes), *after = malloc(bytes);
        void *dev = NULL;
        cr_assert(before && after);
        cr_assert_eq(cudaMalloc(&dev, bytes), cudaSuccess);
        cr_assert_eq(kernel_fill_normal(dev, n, dtype_of_elem((enum elem_type)e), 3, 1.0f, 0), 0);
        for (int where = FIELD_ANY; where <= FIELD_MANTISSA; where++)
            for (int bits = 1; bits <= 3; bits++) {
                if (flip_mask((enum elem_type)e, where, bits, 1) == 0)
                    continue;   /* wider than the field */
                unsigned long long seed = 100 * (unsigned long long)where + (unsigned long long)bits;
                struct flip_report r;
                cr_assert_eq(cudaMemcpy(before, dev, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
                cr_assert_eq(kernel_bitflip(dev, n, (enum elem_type)e, bits, where, seed, &r, 0), 0);
                cr_assert_eq(cudaMemcpy(after, dev, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
                size_t changed = 0;
                for (size_t i = 0; i < n; i++)
                    if (raw_at(before, i, (enum elem_type)e) != raw_at(after, i, (enum elem_type)e)) {
                        changed++;
                        cr_assert_eq(i, r.index, "type %d: element %zu changed, the report says %zu", e, i, r.index);
                    }
                cr_assert_eq(changed, 1, "type %d field %d bits %d: %zu elements changed", e, where, bits, changed);
                unsigned diff = raw_at(before, r.index, (enum elem_type)e) ^ raw_at(after, r.index, (enum elem_type)e);
                cr_assert_eq(__builtin_popcount(diff), bits);
                cr_assert_eq(diff, flip_mask((enum elem_type)e, where, bits, seed));
                cr_assert_eq(r.index, flip_index(n, seed));
                cr_assert_eq(r.old_bits, raw_at(before, r.index, (enum elem_type)e));
                cr_assert_eq(r.new_bits, raw_at(after, r.index, (enum elem_type)e));
                double ov = elem_value(r.old_bits, (enum elem_type)e), nv = elem_value(r.new_bits, (enum elem_type)e);
                cr_assert((r.old_value == ov || isnan(ov)) && (r.new_value == nv || isnan(nv)));
            }
        cr_assert_eq(cudaFree(dev), cudaSuccess);
        free(before);
        free(after);
    }
}

Test(faults, perturb_scales_one_element)
{
    e2e_need_gpu();
    const size_t n = 4099;
    float *dev = NULL, before[4099], after[4099];
    struct flip_report r;
    cr_assert_eq(cudaMalloc((void **)&dev, sizeof before), cudaSuccess);
    cr_assert_eq(kernel_fill_normal(dev, n, DT_TF32, 9, 1.0f, 0), 0);
    cr_assert_eq(cudaMemcpy(before, dev, sizeof before, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(kernel_perturb(dev, n, ELEM_FP32, 0.5, 11, &r, 0), 0);
    cr_assert_eq(cudaMemcpy(after, dev, sizeof after, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < n; i++)
        cr_assert(i == r.index ? after[i] == (float)(before[i] * 1.5) : after[i] == before[i], "element %zu", i);
    cr_assert(r.old_value == before[r.index] && r.new_value == after[r.index]);
    /* bf16 resolves 1%; fp8 (3 mantissa bits) may not: then nothing changes and the report says so. */
    unsigned char raw[64];
    void *d8 = NULL;
    cr_assert_eq(cudaMalloc(&d8, sizeof raw), cudaSuccess);
    cr_assert_eq(kernel_fill_normal(d8, 32, DT_BF16, 9, 1.0f, 0), 0);
    cr_assert_eq(kernel_perturb(d8, 32, ELEM_BF16, 0.01, 5, &r, 0), 0);
    cr_assert_neq(r.new_bits, r.old_bits);
    cr_assert_lt(fabs(r.new_value / r.old_value - 1.01), 0x1p-7);
    cr_assert_eq(kernel_fill_normal(d8, 64, DT_FP8, 9, 1.0f, 0), 0);
    cr_assert_eq(cudaMemcpy(raw, d8, 64, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(kernel_perturb(d8, 64, ELEM_FP8, 0.01, 5, &r, 0), 0);
    cr_assert_eq(r.old_bits, raw[r.index]);
    cr_assert_eq(r.new_bits, elem_bits(r.old_value * (1.0 + 0.01), ELEM_FP8));
    cr_assert_eq(cudaFree(dev), cudaSuccess);
    cr_assert_eq(cudaFree(d8), cudaSuccess);
}

/* ABFT on a real chain: the host reference of the same algebra (abft.h), from host copies of A and D. */
struct abft_ref {
    long m, n, k;
    enum dtype t;
    float *a, *b, *d;
    int roundings;   /* gemm_chain_out_roundings: an algorithm adding split-K parts in the output type */
};

/* The model the device's check uses for the chain: its dtype's, each output rounding counted. */
static struct abft_model ref_model(const struct abft_ref *h)
{
    struct abft_model md = abft_model_of(h->t);
    md.u_out *= h->roundings;
    return md;
}

/* Copies the chain's operands and output; checks that A carries its checksum rows (their hi + lo within the split's
 * rounding of the data rows' sum / S); returns the largest err_j of D, its column in *col. */
static double abft_host(struct gemm_chain *g, struct abft_ref *h, long *col)
{
    cr_assert_eq(gemm_chain_copy_ab(g, h->a, h->b), 0);
    cr_assert_eq(gemm_chain_copy_c(g, h->d), 0);
    struct abft_model md = ref_model(h);
    double S = abft_scale(h->m);
    for (long p = 0; p < h->k; p++) {
        double c = 0;
        for (long i = 0; i < h->m - 2; i++)
            c += h->a[i * h->k + p];
        double carried = S * ((double)h->a[(h->m - 2) * h->k + p] + h->a[(h->m - 1) * h->k + p]);
        cr_assert_leq(fabs(carried - c), 2 * md.u_split * fabs(c) + S * 0x1p-9, "%s: A's checksum of column %ld is %.9g, "
                      "its rows sum to %.9g", dtype_name(h->t), p, carried, c);
    }
    double worst;
    abft_check(h->d, h->m, h->n, 1, h->m, &md, h->k, &worst, col);   /* D: column j's m elements contiguous */
    return worst;
}

/* Whether an injection (r, into the clean output h->d) moves its column past the bound above which abft.h's check
 * catches it for certain: 2 (tol ||D(:,j)|| + b_j) / (1 - tol), a checksum row's change counted S times. */
static int abft_certain(const struct abft_ref *h, const struct flip_report *r, double tol, double *shift)
{
    struct abft_model md = ref_model(h);
    long j = (long)(r->index / (size_t)h->m), i = (long)(r->index % (size_t)h->m);
    double S = abft_scale(h->m), q = 0, hi = h->d[j * h->m + h->m - 2], lo = h->d[j * h->m + h->m - 1];
    for (long x = 0; x < h->m - 2; x++)
        q += (double)h->d[j * h->m + x] * h->d[j * h->m + x];
    double b = md.u_out * S * (fabs(hi) + fabs(lo)), ck = i >= h->m - 2;
    double must = 2 * (tol * sqrt(q) + b) / (1 - tol) + (ck ? 2 * md.u_out * S * fabs(r->new_value) : 0);
    *shift = isfinite(r->new_value) ? fabs(r->new_value - r->old_value) * (ck ? S : 1) / must : INFINITY;
    return *shift > 1;
}

/* Runs the chain again (restoring D), injects with seed (bit flip of the exponent, or perturb by rel when
 * rel != 0), checks; asserts a trip whenever the injection passed the bound of certain detection. 1 if tripped. */
static int abft_inject(struct gemm_chain *g, const struct abft_ref *h, cudaStream_t s, double rel,
                       unsigned long long seed)
{
    struct flip_report r;
    struct abft_model md = ref_model(h);
    double err, tol = abft_tol(&md, h->m, h->k), shift;
    long col;
    size_t nd = (size_t)h->m * (size_t)h->n;
    void *d = gemm_chain_output(g);
    cr_assert_eq(gemm_chain_run(g, s), 0);
    if (rel != 0)
        cr_assert_eq(kernel_perturb(d, nd, elem_of_output(h->t), rel, seed, &r, s), 0);
    else
        cr_assert_eq(kernel_bitflip(d, nd, elem_of_output(h->t), 1, FIELD_EXPONENT, seed, &r, s), 0);
    cr_assert_eq(kernel_abft_check(g, &err, &col, NULL, NULL, s), 0);
    int certain = abft_certain(h, &r, tol, &shift);
    cr_log_info("%s: %s seed %llu: D %g -> %g, %.3g of the bound of certain detection, err %.3g tol (column %ld; want "
                "err > 1 tol past the bound)", dtype_name(h->t), rel != 0 ? "perturb" : "exponent flip", seed,
                r.old_value, r.new_value, shift, err / tol, col);
    if (certain) {
        cr_assert_gt(err, tol, "%s: a change of %g times the bound went unseen (err %g tol)", dtype_name(h->t), shift,
                     err / tol);
        cr_assert_eq(col, (long)(r.index / (size_t)h->m));
    }
    return err > tol;
}

/* Checks ABFT on a chain of dtype t: clean under tolerance, device == host reference, injections seen. */
static void check_abft(enum dtype t, long m, long n, long k)
{
    char msg[256] = "";
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    struct gemm_chain *g = gemm_chain_create(t, m, n, k, 1, 21, s, msg, sizeof msg);
    cr_assert_not_null(g, "%s", msg);
    struct abft_ref h = { .m = m, .n = n, .k = k, .t = t, .a = malloc(sizeof(float) * (size_t)(m * k)),
                          .b = malloc(sizeof(float) * (size_t)(k * n)), .d = malloc(sizeof(float) * (size_t)(m * n)),
                          .roundings = gemm_chain_out_roundings(g) };
    cr_assert(h.a && h.b && h.d);
    char algo[256];
    gemm_chain_algo_text(g, algo, sizeof algo);
    cr_log_info("%s %ldx%ldx%ld: algorithm %s, %d output rounding(s)", dtype_name(t), m, n, k, algo, h.roundings);
    struct abft_model md = ref_model(&h);
    double tol = abft_tol(&md, m, k), err, ref;
    long col, ref_col;

    cr_assert_eq(gemm_chain_run(g, s), 0);
    cr_assert_eq(kernel_abft_check(g, &err, &col, NULL, NULL, s), 0);
    ref = abft_host(g, &h, &ref_col);
    cr_log_info("%s %ldx%ldx%ld clean: max err %.3g = %.3f tolerance (%.3g; want < 1), column %ld; host %.17g (want "
                "the device's within 1e-9)", dtype_name(t), m, n, k, err, err / tol, tol, col, ref);
    cr_assert_lt(err, tol, "%s: a clean GEMM gives err %g >= tolerance %g", dtype_name(t), err, tol);
    cr_assert_leq(fabs(err - ref), 1e-9 * ref + 1e-15, "%s: device %.17g, host %.17g", dtype_name(t), err, ref);
    cr_assert_eq(col, ref_col, "%s: worst column %ld, host %ld", dtype_name(t), col, ref_col);

    /* 1% of one element: the device sees exactly what the host sees (and, below the noise, no trip). */
    struct flip_report r;
    cr_assert_eq(kernel_perturb(gemm_chain_output(g), (size_t)(m * n), elem_of_output(t), 0.01, 3, &r, s), 0);
    cr_assert_eq(kernel_abft_check(g, &err, &col, NULL, NULL, s), 0);
    ref = abft_host(g, &h, &ref_col);
    cr_log_info("%s: 1%% of D %g (column %zu): max err %.3f tolerance, device %.17g, host %.17g (want within 1e-9)",
                dtype_name(t), r.old_value, r.index / (size_t)m, err / tol, err, ref);
    cr_assert_leq(fabs(err - ref), 1e-9 * ref + 1e-15, "%s: device %.17g, host %.17g", dtype_name(t), err, ref);

    cr_assert_eq(gemm_chain_run(g, s), 0);   /* the clean output again: the bounds of abft_certain are its */
    abft_host(g, &h, &ref_col);
    int flips = 0, big = 0;
    for (unsigned long long seed = 1; seed <= 12; seed++)
        flips += abft_inject(g, &h, s, 0, seed);
    for (unsigned long long seed = 1; seed <= 4; seed++)
        big += abft_inject(g, &h, s, 1e4, seed);
    cr_log_info("%s: %d of 12 exponent flips and %d of 4 x10001 perturbations seen (want >= 1 of each)", dtype_name(t),
                flips, big);
    cr_assert_gt(flips, 0, "%s: none of 12 exponent flips was seen", dtype_name(t));
    cr_assert_gt(big, 0, "%s: none of 4 x10001 perturbations was seen", dtype_name(t));

    free(h.a);
    free(h.b);
    free(h.d);
    gemm_chain_destroy(g);
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
}

Test(abft, bf16) { e2e_need_gpu(); check_abft(DT_BF16, 512, 512, 512); }
Test(abft, fp16) { e2e_need_gpu(); check_abft(DT_FP16, 512, 512, 512); }
Test(abft, tf32) { e2e_need_gpu(); check_abft(DT_TF32, 512, 512, 512); }
Test(abft, fp8) { e2e_need_gpu(); check_abft(DT_FP8, 512, 512, 512); }
Test(abft, bf16_rect) { e2e_need_gpu(); check_abft(DT_BF16, 384, 128, 1024); }
/* the depth of the detectors' workload (k = 8192), where a clean GEMM's rounding is largest against the tolerance,
 * in every dtype: no false positive there (the workload's run itself is bf16 only) */
Test(abft, bf16_k8192) { e2e_need_gpu(); check_abft(DT_BF16, 1024, 256, 8192); }
Test(abft, fp16_k8192) { e2e_need_gpu(); check_abft(DT_FP16, 1024, 256, 8192); }
Test(abft, tf32_k8192) { e2e_need_gpu(); check_abft(DT_TF32, 1024, 256, 8192); }
Test(abft, fp8_k8192) { e2e_need_gpu(); check_abft(DT_FP8, 1024, 256, 8192); }

Test(faults, hang_returns_when_released, .timeout = 60)
{
    e2e_need_gpu();
    int *flag = NULL, *one = NULL;
    cudaStream_t hung, other;
    cr_assert_eq(cudaMalloc((void **)&flag, sizeof *flag), cudaSuccess);
    cr_assert_eq(cudaMemset(flag, 0, sizeof *flag), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&one, sizeof *one), cudaSuccess);
    *one = 1;
    cr_assert_eq(cudaStreamCreateWithFlags(&hung, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert_eq(kernel_hang(flag, hung), 0);
    sleep_ns(300000000ull);
    cr_assert_eq(cudaStreamQuery(hung), cudaErrorNotReady, "the hang kernel ended before its flag was set");
    uint64_t t0 = mono_ns();
    cr_assert_eq(cudaMemcpyAsync(flag, one, sizeof *one, cudaMemcpyHostToDevice, other), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(other), cudaSuccess);
    cudaError_t e;
    while ((e = cudaStreamQuery(hung)) == cudaErrorNotReady && mono_ns() - t0 < 10000000000ull)
        sleep_ns(100000);
    cr_log_info("hang released %.1f us after the flag was written (want within 10 s): %s",
                (double)(mono_ns() - t0) * 1e-3, cudaGetErrorString(e));
    cr_assert_eq(e, cudaSuccess, "the hang kernel did not end within 10 s of its flag: %s", cudaGetErrorString(e));
    cr_assert_eq(cudaStreamDestroy(hung), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(other), cudaSuccess);
    cr_assert_eq(cudaFree(flag), cudaSuccess);
    cr_assert_eq(cudaFreeHost(one), cudaSuccess);
}
