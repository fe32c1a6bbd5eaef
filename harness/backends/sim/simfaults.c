/* harness/backends/sim/simfaults.c: the sim rank's hooks for faults and detectors — bit flips in its real
 * buffers, a broken collective, abft over its CPU GEMM, fingerprints and the replayed GEMM. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "detectors/detector.h"
#include "abft.h"
#include "checkpoint.h"
#include "simint.h"

/* Flips bits of one element (or perturbs its value) in the target buffer. */
int sim_corrupt(void *b, struct corruption *c, char *what, size_t n)
{
    struct sim *s = b;
    float *buf = c->target == TGT_GEMM_OUTPUT ? s->c : c->target == TGT_WEIGHTS ? s->weights : s->grad;
    size_t len = c->target == TGT_GEMM_OUTPUT ? (size_t)(s->dm * s->dn) : s->elems;
    struct rng r;
    rng_seed(&r, c->seed, 0xb17);
    size_t i = (size_t)(rng_next(&r) % len);
    float old = buf[i];
    if (c->where == FLIP_VALUE) {
        buf[i] = (float)((double)old * (1.0 + c->value));
    } else {
        uint32_t u;
        memcpy(&u, &buf[i], 4);
        /* fp32: sign bit 31, exponent 30..23, mantissa 22..0; bits distinct positions of the field, as the GPU's
         * kernel draws them (kernels/faults.cu flip_mask: until 2026-12-02 drawn with repeats here, and two flips of
         * one bit changed nothing) */
        int lo = c->where == FLIP_SIGN ? 31 : c->where == FLIP_EXPONENT ? 23 : 0;
        int width = c->where == FLIP_SIGN ? 1 : c->where == FLIP_EXPONENT ? 8 : c->where == FLIP_MANTISSA ? 23 : 32;
        int pos[32];
        for (int k = 0; k < width; k++)
            pos[k] = lo + k;
        for (int k = 0; k < c->bits && k < width; k++) {   /* partial Fisher-Yates */
            int j = k + (int)(rng_next(&r) % (uint64_t)(width - k)), t = pos[k];
            pos[k] = pos[j];
            pos[j] = t;
            u ^= 1u << pos[k];
        }
        memcpy(&buf[i], &u, 4);
    }
    uint32_t ob, nb;
    memcpy(&ob, &old, 4);
    memcpy(&nb, &buf[i], 4);
    c->out.format = FMT_FP32;
    c->out.element = (int64_t)i;
    c->out.mask = ob ^ nb;
    c->out.old_v = old;
    c->out.new_v = buf[i];
    if (c->target == TGT_GEMM_OUTPUT) {   /* what abft weighs a change of this element against: its column's norm
                                           * (over the data rows; a checksum row's change counts S times) */
        double q = 0;
        for (long r = 0; r < s->dm - 2; r++)
            q += (double)s->c[r * s->dn + (long)i % s->dn] * s->c[r * s->dn + (long)i % s->dn];
        c->out.scale = sqrt(q) / ((long)i / s->dn >= s->dm - 2 ? abft_scale(s->dm) : 1.0);
    }
    snprintf(what, n, "element %zu: %.9g -> %.9g", i, old, buf[i]);
    return 0;
}

/* Makes the next all-reduce of this rank fail. */
int sim_break_comm(void *b, char *what, size_t n)
{
    ((struct sim *)b)->comm_broken = 1;
    snprintf(what, n, "the shared-memory collective of this rank gives up");
    return 0;
}

/* Huang-Abraham, carried through the GEMM (abft.h): A's last two rows hold the checksum of the others (sim.c), so
 * C's last two rows hold the column sums of its others; one pass over C checks them, as on the GPU. 1 when a
 * column disagrees beyond the tolerance of an fp32 product of dk terms. */
int sim_abft(void *b, double *err, double *tol)
{
    struct sim *s = b;
    long col;
    uint64_t t0 = mono_ns();
    *tol = abft_tol(&abft_model_fp32, s->dm, s->dk);
    int rc = abft_check(s->c, s->dm, s->dn, s->dn, 1, &abft_model_fp32, s->dk, err, &col);
    s->det_dev_s[DET_ABFT] += (double)(mono_ns() - t0) * 1e-9;
    return rc;
}

/* Hashes slice `slice` of `slices` of the reduced buffer (the gradients after the all-reduce) and of the weights,
 * cut as the cuda backend cuts its buffers (fingerprint_slice, 16-byte aligned). */
int sim_fingerprint(void *b, int slice, int slices, uint64_t *h)
{
    struct sim *s = b;
    uint64_t t0 = mono_ns();
    size_t off, len;
    fingerprint_slice(s->elems * sizeof(float), slice, slices, 16, &off, &len);
    *h = fnv1a64((const char *)s->grad + off, len) * 0x100000001b3ull ^ fnv1a64((const char *)s->weights + off, len);
    s->det_dev_s[DET_FINGERPRINT] += (double)(mono_ns() - t0) * 1e-9;
    return 0;
}

/* The asynchronous form: the hash is taken now, handed over at take (the worker's deferral is what is tested). */
int sim_fingerprint_start(void *b, int slice, int slices)
{
    struct sim *s = b;
    s->fp_pending = sim_fingerprint(b, slice, slices, &s->fp_hash) == 0;
    return s->fp_pending ? 0 : -1;
}

int sim_fingerprint_take(void *b, uint64_t *h)
{
    struct sim *s = b;
    if (!s->fp_pending)
        return 0;
    s->fp_pending = 0;
    *h = s->fp_hash;
    return 1;
}

/* Recomputes the GEMM on the weights' first values and hashes the output. */
int sim_replay(void *b, uint64_t *h)
{
    struct sim *s = b;
    uint64_t t0 = mono_ns();
    sim_gemm(s, s->b0, s->replay_c);
    *h = fnv1a64(s->replay_c, (size_t)(s->dm * s->dn) * sizeof(float));
    s->det_dev_s[DET_REPLAY] += (double)(mono_ns() - t0) * 1e-9;
    return 0;
}

/* The sim's device is the host: a detector's device time is the host time of its check (abft, fingerprint,
 * replay; the others run no work on a device). */
double sim_detector_device_s(void *b, int det)
{
    struct sim *s = b;
    return det == DET_ABFT || det == DET_FINGERPRINT || det == DET_REPLAY ? s->det_dev_s[det] : NAN;
}
