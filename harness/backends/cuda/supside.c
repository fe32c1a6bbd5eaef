/* harness/backends/cuda/supside.c: the cuda backend on the supervisor's side — whether a GPU is usable, the
 * scenario's check against the GPUs there, the communicator id, and power through NVML (readings, device settings,
 * put back on exit). The worker's side is backend.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "coll.h"
#include "cuda_check.h"
#include "cuda_int.h"
#include "devset.h"
#include "gemm.h"
#include "mitigations/mitigation.h"
#include "nvml.h"
#include "numa.h"
#include "recovery/recovery.h"
#include "util.h"

/* The slow NVML fields (energy: ~6 ms a call on an H100, driver 580; averaged power, clock, temperature,
 * throttle) change at most every ~50-100 ms there (docs/performance.md): read them at most this often. */
#define CUDA_SLOW_FIELDS_NS 100000000ull

/* Says whether a GPU is usable here: the CUDA runtime must find a driver and a device. */
int cuda_probe(char *why, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(why, n, "no usable GPU: cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
        return -1;
    }
    if (count == 0) {
        snprintf(why, n, "no usable GPU: the CUDA driver reports no device");
        return -1;
    }
    return 0;
}

int cuda_device_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

/* Checks the scenario against this node: ranks <= GPUs, a GEMM shape the dtype allows. */
int cuda_check(const struct scenario *sc, char *why, size_t n)
{
    int count = 0;
    if (cuda_probe(why, n) != 0)
        return EXIT_ENV;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
        return EXIT_ENV;
    if (sc->ranks > count) {
        snprintf(why, n, "ranks: %lld, but this node has %d GPU%s (one rank per GPU; several nodes are not supported yet)",
                 (long long)sc->ranks, count, count == 1 ? "" : "s");
        return EXIT_INPUT;
    }
    if (recovery_table[sc->recovery.index]->spares && sc->ranks + recovery_table[sc->recovery.index]->spares > count) {
        snprintf(why, n, "recovery: spare needs a GPU for the spare: ranks %lld + 1 spare, but this node has %d GPU%s",
                 (long long)sc->ranks, count, count == 1 ? "" : "s");
        return EXIT_INPUT;
    }
    return cuda_check_scenario(sc, why, n);   /* the scenario alone: cuda_rules.c */
}

/* Makes the NCCL unique id that every rank's worker joins, in the control block. */
int cuda_prepare(struct shm *shm, char *why, size_t n)
{
    return coll_make_id(shm->hdr->coll_id, why, n);
}

struct power_source {
    struct shm *shm;
    struct nvml *nv;            /* NULL: no NVML here (said once) */
    int *dev;                   /* NVML device index per rank; -1 until the rank's GPU is known */
    struct nvml_energy_rate *rate;
    uint64_t *slow_t;           /* when each rank's slow fields were last read */
    struct nvml_buf *smp;       /* each slot's GPU's driver sample buffer */
};

struct power_source *cuda_power_open(struct shm *shm, char *why, size_t n)
{
    struct power_source *ps = xcalloc(1, sizeof *ps);
    int nranks = (int)shm->hdr->nslots;   /* power is read per slot: ranks, then spares */
    ps->shm = shm;
    ps->dev = xmalloc((size_t)nranks * sizeof *ps->dev);
    ps->rate = xcalloc((size_t)nranks, sizeof *ps->rate);
    ps->slow_t = xcalloc((size_t)nranks, sizeof *ps->slow_t);
    ps->smp = xcalloc((size_t)nranks, sizeof *ps->smp);
    for (int r = 0; r < nranks; r++)
        ps->dev[r] = -1;
    ps->nv = nvml_open(why, n);
    if (!ps->nv)
        gl_log("GPU power will not be measured: %s", why);
    else if (*nvml_missing(ps->nv))
        gl_log("NVML (%s) lacks: %s; those fields stay empty", nvml_library(ps->nv), nvml_missing(ps->nv));
    return ps;
}

/* Finds the NVML device whose UUID the rank's worker published. */
static int cuda_power_device(struct power_source *ps, int rank)
{
    const char *uuid = shm_ctl(ps->shm, rank)->device;
    if (ps->dev[rank] >= 0 || !ps->nv || !uuid[0])
        return ps->dev[rank];
    for (int d = 0; d < nvml_device_count(ps->nv); d++) {
        struct gpu_info gi;
        if (nvml_device_info(ps->nv, d, &gi) == 0 && strcmp(gi.uuid, uuid) == 0)
            return ps->dev[rank] = d;
    }
    return -1;
}

/* The rank's GPU model and default power limit, from NVML. */
int cuda_power_info(struct power_source *ps, int rank, char *name, size_t n, double *tdp_w)
{
    struct gpu_info gi;
    int d = cuda_power_device(ps, rank);
    if (d < 0 || nvml_device_info(ps->nv, d, &gi) != 0)
        return -1;
    str_copy(name, n, gi.name);
    *tdp_w = gi.tdp_w;
    return 0;
}

/* Samples rank's GPU: instantaneous power every call; the averaged power, energy, clock, temperature and
 * throttle reasons at most every CUDA_SLOW_FIELDS_NS (left empty on the rows in between). */
int cuda_power_read(struct power_source *ps, int rank, uint64_t t, struct power_reading *out)
{
    struct gpu_sample s;
    *out = POWER_READING_NONE;
    int d = cuda_power_device(ps, rank);
    if (d < 0)
        return 0;
    unsigned mask = GPU_VALID(GPU_F_POWER_INSTANT);
    if (!nvml_field_available(ps->nv, d, GPU_F_POWER_INSTANT))
        mask |= GPU_VALID(GPU_F_ENERGY);   /* power then comes from the energy counter, every call */
    if (!ps->slow_t[rank] || t - ps->slow_t[rank] >= CUDA_SLOW_FIELDS_NS) {
        mask = ~0u;
        /* the GPUs' slow reads spread over the interval, each slot at its own phase: all in one tick (an energy read
         * 2.3 ms on an H100) held the sampler ~18 ms every 100 ms with 8 GPUs, their readings stamped that late */
        uint64_t nslots = ps->shm->hdr->nslots > 0 ? ps->shm->hdr->nslots : 1;
        ps->slow_t[rank] = ps->slow_t[rank] || t < CUDA_SLOW_FIELDS_NS ? t
                         : t - CUDA_SLOW_FIELDS_NS * (uint64_t)rank / nslots;
    }
    if (nvml_sample_fields(ps->nv, d, mask, &s) != 0)
        return 0;
    out->watts = s.power_instant_w;
    if (isnan(out->watts))   /* no instantaneous field: power from the energy counter */
        out->watts = nvml_energy_rate_push(&ps->rate[rank], &s);
    struct nvml_buf *sm = &ps->smp[rank];
    int k = nvml_buf_poll(ps->nv, d, sm, t);   /* the driver's buffer, where it has one, first */
    if (k > 0) {   /* every new sample, for the learning (backend.h: nbuf) */
        out->nbuf = k;
        out->buf_w = sm->new_w;
        out->buf_ns = sm->new_at;
    }
    out->unstamped = 1;   /* unless a new sample of the buffer came with this reading (those are in buf) */
    double bw;
    uint64_t bat;
    int got = nvml_buf_reading(sm, &bw, &bat);
    if (got >= 0) {   /* the buffer is the source: its newest sample, else a gap, never the instant field's value */
        out->watts = got ? bw : NAN;
        out->sample_ns = got ? bat : 0;
    }
    out->avg_w = s.power_avg_w;
    out->energy_j = (s.valid & GPU_VALID(GPU_F_ENERGY)) ? (double)s.energy_mj * 1e-3 : NAN;
    out->clock_mhz = s.sm_clock_mhz;
    out->temp_c = s.temp_c;
    out->throttle_read = (s.valid & GPU_VALID(GPU_F_THROTTLE)) != 0;
    out->throttle = out->throttle_read ? s.throttle_reasons : 0;
    return 0;
}

void cuda_sensor_source(struct power_source *ps, int slot, char *out, size_t n)
{
    int d = ps->nv ? cuda_power_device(ps, slot) : -1;
    if (d < 0)
        snprintf(out, n, "none (no NVML device for this GPU)");
    else if (nvml_buf_describe(&ps->smp[slot], out, n) == 0)
        return;   /* the driver's buffer, with what it passed over or failed */
    else if (nvml_field_available(ps->nv, d, GPU_F_POWER_INSTANT))
        snprintf(out, n, "NVML instant power field (NVML_FI_DEV_POWER_INSTANT), polled%s",
                 ps->smp[slot].first_ns ? "; the driver's sample buffer answered but gave no sample in its first second"
                                        : "");
    else
        snprintf(out, n, "NVML energy counter (no instant power field): the rate between its changes");
}

/* The slot's NVML device for a device setting; -1 with why. */
static int cuda_setting_device(struct power_source *ps, int slot, char *why, size_t n)
{
    int d = ps->nv ? cuda_power_device(ps, slot) : -1;
    if (d < 0)
        snprintf(why, n, "slot %d: %s", slot, ps->nv ? "its GPU is not among NVML's devices" : "no NVML here");
    return d;
}

int cuda_set_power_limit(struct power_source *ps, int slot, double watts, double *from_w, char *why, size_t n)
{
    int d = cuda_setting_device(ps, slot, why, n);
    return d < 0 ? -1 : devset_power_limit(ps->nv, d, watts, from_w, why, n);
}

int cuda_set_smoothing(struct power_source *ps, int slot, const struct devset_smoothing *r,
                              struct devset_smoothing_readback *out, char *why, size_t n)
{
    int d = cuda_setting_device(ps, slot, why, n);
    return d < 0 ? -1 : devset_smoothing_on(ps->nv, d, r, out, why, n);
}

int cuda_restore_settings(struct power_source *ps)
{
    (void)ps;
    return devset_restore(-1);
}

void cuda_power_close(struct power_source *ps)
{
    if (ps->nv && devset_changed() && devset_restore(-1))   /* before NVML goes: nothing left changed */
        gl_log("some device settings could not be put back: see above");
    if (ps->nv)
        nvml_close(ps->nv);
    free(ps->dev);
    free(ps->rate);
    free(ps->slow_t);
    free(ps->smp);
    free(ps);
}

