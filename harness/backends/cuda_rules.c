/* harness/backends/cuda_rules.c: what the cuda backend refuses of a scenario whatever the node (cuda_rules.h). */
#include "cuda_rules.h"

#include <stdio.h>

#include "backend.h"
#include "mitigations/mitigation.h"
#include "scenario.h"
#include "util.h"

#define GEMM_MAX_DIM (1L << 24)

int gemm_shape_ok(enum dtype t, long m, long n, long k, char *err, size_t errlen)
{
    char msg[256] = "";
    if ((unsigned)t >= DT_COUNT)
        snprintf(msg, sizeof msg, "unknown GEMM dtype %d", (int)t);
    else if (m < 1 || n < 1 || k < 1 || m > GEMM_MAX_DIM || n > GEMM_MAX_DIM || k > GEMM_MAX_DIM)
        snprintf(msg, sizeof msg, "GEMM %s %ldx%ldx%ld: m, n and k must be in 1..%ld", dtype_name(t), m, n, k,
                 GEMM_MAX_DIM);
    /* cuBLASLt fp8 needs 16-byte aligned columns: k (rows of A and B) and m, n multiples of 16. */
    else if (t == DT_FP8 && (m % 16 || n % 16 || k % 16))
        snprintf(msg, sizeof msg, "GEMM fp8 %ldx%ldx%ld: m, n and k must be multiples of 16", m, n, k);
    if (!msg[0])
        return 0;
    if (err && errlen)
        str_copy(err, errlen, msg);
    return -1;
}

int cuda_check_scenario(const struct scenario *sc, char *why, size_t n)
{
    for (int i = 0; i < sc->n_mitigations; i++)
        if (mitigation_table[sc->mitigations[i].index]->device == MIT_DEV_CAP && !sc->allow_device_settings) {
            snprintf(why, n, "%s:%d: mitigation '%s' changes the GPUs' power limit: run with --allow-device-settings "
                             "(the limit is put back after the run and on every exit)", sc->file,
                     sc->mitigations[i].line, sc->mitigations[i].name);
            return EXIT_INPUT;
        }
    char err[256];
    if (gemm_shape_ok(sc->workload.gemm.dtype, sc->workload.gemm.m, sc->workload.gemm.n, sc->workload.gemm.k, err,
                      sizeof err) != 0) {
        snprintf(why, n, "workload.gemm: %s", err);
        return EXIT_INPUT;
    }
    for (int i = 0; i < sc->workload.n_steps; i++) {
        const struct step *st = &sc->workload.steps[i];
        if (st->kind == ST_GEMM && gemm_shape_ok(st->dtype, st->m, st->n, st->k, err, sizeof err) != 0) {
            snprintf(why, n, "%s:%d: workload.phases[%d].gemm: %s", sc->file, st->line, i, err);
            return EXIT_INPUT;
        }
    }
    for (int i = 0; i < sc->n_mitigations && (sc->workload.n_steps > 0 || sc->workload.replay.on); i++) {
        const struct mitigation_ops *mo = mitigation_table[sc->mitigations[i].index];
        if (mo->model && mo->device != MIT_DEV_CAP) {
            snprintf(why, n, "%s:%d: mitigation '%s' acts on the GPU between the phases of the simple iteration; with "
                             "workload.%s it is built on the sim backend only (cap and none run on cuda)", sc->file,
                     sc->mitigations[i].line, sc->mitigations[i].name, sc->workload.replay.on ? "replay" : "phases");
            return EXIT_INPUT;
        }
    }
    return 0;
}
