/* harness/backends/cuda_rules.h: what the cuda backend refuses of a scenario whatever the node: built with or
 * without CUDA, so that `gauntlet check --backend cuda` says it where no GPU is (a login node). */
#ifndef GAUNTLET_CUDA_RULES_H
#define GAUNTLET_CUDA_RULES_H

#include <stddef.h>

#include "dtype.h"

struct scenario;

/* Checks that the shape is legal for dtype t (positive, not absurd, fp8 multiples of 16); 0, or -1 with err. */
int gemm_shape_ok(enum dtype t, long m, long n, long k, char *err, size_t errlen);

/* The scenario alone, against the cuda backend: a cap without --allow-device-settings, a GEMM shape cuBLASLt cannot
 * run, a mitigation built on sim only with workload.phases or replay. 0, or EXIT_INPUT with why (file:line). */
int cuda_check_scenario(const struct scenario *sc, char *why, size_t n);

#endif
