/* harness/core/autotune.h: picking the fastest of a library's candidate algorithms by timing each on the real data
 * (the GEMM's cuBLASLt candidates: backends/cuda/gemm.c). The logic is here, free of any device, so that it is
 * tested against a stand-in timer (tests/test_autotune.c). */
#ifndef GAUNTLET_AUTOTUNE_H
#define GAUNTLET_AUTOTUNE_H

#include <stddef.h>

/* Times `calls` calls of candidate i (after whatever warm-up it needs) and returns the seconds they took, or a
 * negative number or NAN when the candidate cannot run (it is then out). */
typedef double (*autotune_time_fn)(void *ctx, int i, int calls);

/* Times n candidates in `rounds` rounds (rounded up to pairs: every candidate once forward, then once backward, so
 * that a drift of the device — its clocks, its temperature — linear over the pair cancels in the pair's mean) and
 * scores each by the median over the pairs of its time against the pair's median candidate (a drift between pairs
 * divides out; a one-off spike spoils one pair). Returns the best score; a candidate within tie_rel of it that comes
 * earlier in the list wins (the list is the library's own ranking: a tie goes to its choice). -1 when none ran.
 * per_call (n entries, may be NULL) gets each candidate's median time per call (NAN: it failed). */
int autotune_pick(int n, autotune_time_fn time_one, void *ctx, int calls, int rounds, double tie_rel, double *per_call);

/* Parses "CALL_MS[,WARM_S]" (the GAUNTLET_GEMM_TUNE setting: each measurement about CALL_MS long, 0.1-200, after
 * WARM_S seconds of warm-up, 0-5, default 0) into seconds. 0, or -1 with what was expected in why (n bytes). */
int autotune_timing_parse(const char *text, double *call_s, double *warm_s, char *why, size_t n);

#endif
