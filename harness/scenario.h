/* harness/scenario.h: a scenario file, parsed and validated into one plain struct (no pointers, so the
 * supervisor can copy it into the shared control block for its workers). */
#ifndef GAUNTLET_SCENARIO_H
#define GAUNTLET_SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include "dtype.h"
#include "param.h"

#define SC_MAX_MITIGATIONS 16
#define SC_PARAM_BYTES 256

enum ckpt_mode { CKPT_SYNC = 0 };

/* The sim backend's model: an H100/H200-like GPU, durations from rates, power from phase levels. */
struct sim_params {
    double tflops;        /* achieved dense GEMM rate, TFLOP/s */
    double busbw_gbs;     /* all-reduce bus bandwidth, GB/s */
    double latency_s;     /* fixed cost of one all-reduce */
    double idle_w, comm_w, compute_w, ckpt_w, tdp_w;
    double ramp_s;        /* first-order time constant of power changes */
    double jitter;        /* relative standard deviation of each phase's duration */
    double noise_w;       /* standard deviation of each power sample */
    double speedup;       /* modeled durations are divided by this */
    int64_t max_dim;      /* cap on each GEMM dimension of the real CPU GEMM */
    int64_t max_elems;    /* cap on the real all-reduce buffer, in fp32 elements */
};

struct mitigation_spec {
    char name[32];
    int index;                              /* in mitigation_table */
    int line;                               /* where it was given */
    unsigned char params[SC_PARAM_BYTES];   /* filled through the mitigation's param table */
};

struct scenario {
    char file[512];
    char name[64];
    int64_t ranks;
    int64_t iterations;
    int64_t seed;
    struct {
        struct { int64_t m, n, k, count; int dtype; } gemm;
        struct { uint64_t bytes; double emulate_busbw_gbs; int64_t emulate_ranks; } allreduce;
        struct { int64_t every; uint64_t bytes; char path[256]; int mode; } checkpoint;
    } workload;
    struct { double sample_hz; } power;
    struct { double interval_s, timeout_s, startup_s; } heartbeat;
    struct sim_params sim;
    int n_mitigations;
    struct mitigation_spec mitigations[SC_MAX_MITIGATIONS];
};

/* The table of every top-level key (sections nest through PT_SECTION); mitigations is a list. */
extern const struct param scenario_params[];

/* Loads and validates path into sc. On failure returns EXIT_INPUT with err holding
 * "file:line:column: key: what was expected" (or the I/O error for a missing file). */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);
/* Same, from a string (name is used as the file name in messages). */
int scenario_load_string(const char *text, const char *name, struct scenario *sc, char *err, size_t errlen);
/* Writes sc, every default resolved, as YAML to f; returns 0 or -1. */
int scenario_write(const struct scenario *sc, FILE *f);
/* Prints every key with type, default, unit and help (for `gauntlet list --keys` and docs). */
void scenario_print_keys(FILE *f, const struct param *table, const char *prefix);

#endif
