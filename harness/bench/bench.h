/* harness/bench/bench.h: `gauntlet bench`: the harness's phases against the bare libraries, on this GPU. */
#ifndef GAUNTLET_BENCH_H
#define GAUNTLET_BENCH_H

#include "cli.h"

/* Dispatches `bench gemm|allreduce|sampling ...`; returns the exit code. */
int bench_main(int argc, char **argv);
extern const struct cli_cmd bench_cli;

#endif
