/* harness/core/dtype.h: the GEMM / all-reduce data types a scenario can name. */
#ifndef GAUNTLET_DTYPE_H
#define GAUNTLET_DTYPE_H

#include <stddef.h>

/* Order matches dtype_names[] and the scenario's enum choices "bf16,fp16,tf32,fp8". */
enum dtype { DT_BF16 = 0, DT_FP16 = 1, DT_TF32 = 2, DT_FP8 = 3, DT_COUNT };

#define DTYPE_CHOICES "bf16,fp16,tf32,fp8"

/* Returns the element size in bytes of the GEMM inputs of dtype t (tf32 is stored as fp32). */
static inline size_t dtype_size(enum dtype t) { return t == DT_TF32 ? 4 : t == DT_FP8 ? 1 : 2; }

/* Returns the scenario spelling of t. */
static inline const char *dtype_name(enum dtype t)
{
    static const char *const names[DT_COUNT] = { "bf16", "fp16", "tf32", "fp8" };
    return (unsigned)t < DT_COUNT ? names[t] : "?";
}

#endif
