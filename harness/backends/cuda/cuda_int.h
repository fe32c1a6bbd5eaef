/* harness/backends/cuda/cuda_int.h: the cuda backend's supervisor side (supside.c), which backend.c's ops table
 * names. Not a public API. */
#ifndef GAUNTLET_CUDA_INT_H
#define GAUNTLET_CUDA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "devset.h"

int cuda_probe(char *why, size_t n);
int cuda_device_count(void);
int cuda_check(const struct scenario *sc, char *why, size_t n);
int cuda_prepare(struct shm *shm, char *why, size_t n);
struct power_source *cuda_power_open(struct shm *shm, char *why, size_t n);
int cuda_power_info(struct power_source *ps, int rank, char *name, size_t n, double *tdp_w);
int cuda_power_read(struct power_source *ps, int rank, uint64_t t, struct power_reading *out);
void cuda_sensor_source(struct power_source *ps, int slot, char *out, size_t n);
int cuda_set_power_limit(struct power_source *ps, int slot, double watts, double *from_w, char *why, size_t n);
int cuda_set_smoothing(struct power_source *ps, int slot, const struct devset_smoothing *r,
                              struct devset_smoothing_readback *out, char *why, size_t n);
int cuda_restore_settings(struct power_source *ps);
void cuda_power_close(struct power_source *ps);

#endif
