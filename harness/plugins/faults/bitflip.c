/* harness/plugins/faults/bitflip.c: silent data corruption — flips bits of one element (or perturbs its value) in a
 * buffer the iteration really uses: the GEMM output, the gradients, the weights or the reduced buffer. */
#include <stddef.h>
#include <stdio.h>

#include "fault.h"
#include "util.h"

#define P(f) offsetof(struct bitflip_params, f)
static const struct param bitflip_params[] = {
    { "target", PT_ENUM, P(target), .def = "gradients", .choices = FAULT_TARGETS,
      .help = "the buffer corrupted (allreduce-buffer: after the all-reduce, on this rank only)" },
    { "where", PT_ENUM, P(where), .def = "random", .choices = FLIP_WHERE,
      .help = "which bits of the element: any, the sign, the exponent, the mantissa; value: a wrong value" },
    { "bits", PT_INT, P(bits), .def = "1", .min = 1, .max = 8, .help = "bits flipped in the element" },
    { "value", PT_DOUBLE, P(value), .def = "0.01", .min = -1e6, .max = 1e6,
      .help = "where: value — the element is multiplied by (1 + value)" },
    { 0 },
};

/* Maps the target to the point of the iteration where that buffer holds live data. */
static int bitflip_point(const void *params)
{
    static const int points[] = { [TGT_GEMM_OUTPUT] = IP_AFTER_GEMM, [TGT_GRADIENTS] = IP_BEFORE_ALLREDUCE,
                                  [TGT_WEIGHTS] = IP_AFTER_STEP, [TGT_ALLREDUCE_BUFFER] = IP_AFTER_ALLREDUCE };
    return points[((const struct bitflip_params *)params)->target];
}

/* Corrupts the target buffer through the backend, on its real data. */
static int bitflip_inject(const struct fault_env *env, const void *params, uint64_t seed, char *what, size_t n,
                          struct fault_detail *out)
{
    const struct bitflip_params *p = params;
    struct corruption c = { .target = p->target, .where = p->where, .bits = (int)p->bits, .value = p->value, .seed = seed,
                            .out = *out };
    int rc = env->corrupt(env->ctx, &c, what, n);
    *out = c.out;
    out->target = p->target;
    out->where = p->where;
    return rc;
}

const struct fault_ops fault_bitflip = {
    .version = FAULT_OPS_VERSION,
    .name = "bitflip",
    .help = "silent data corruption: bits flipped (or a value perturbed) in a live buffer",
    .params = bitflip_params,
    .params_size = sizeof(struct bitflip_params),
    .point = bitflip_point,
    .inject = bitflip_inject,
};
