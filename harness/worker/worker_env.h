/* harness/worker/worker_env.h: the environments the worker hands its plug-ins (worker_env.c), and the two worker
 * calls they are built on. Not a public API. */
#ifndef GAUNTLET_WORKER_ENV_H
#define GAUNTLET_WORKER_ENV_H

#include <stdint.h>

struct worker_ctx;
struct fault_env;
struct detector_env;

/* This rank's environment for a fault (faults/fault.h) and for a worker-side detector (detectors/detector.h). */
void worker_fault_env(struct worker_ctx *w, struct fault_env *env);
void worker_detector_env(struct worker_ctx *w, struct detector_env *env);

/* worker.c: one event about the iteration in progress; the asynchronous fingerprint in flight reported. */
void worker_emit(struct worker_ctx *w, uint32_t type, int phase, uint64_t t, double a, double b, const char *note);
void worker_fp_take(struct worker_ctx *w);
/* worker.c: the heartbeat of a wait on storage (w, its ckpt_wait_t0 set at the wait's start): beats for as long as a
 * checkpoint write may take, then no more; worker_beat_arg also gives the wait up (-1) once the run is aborted. */
int worker_beat_bounded(void *w);
int worker_beat_arg(void *w);

struct wcmd;
/* worker_restore.c: loads the state a recovery starts from (cmd: a checkpoint of its start_iter, or rank arg's
 * replica of it). 0, or -1 with w->err. */
int worker_restore(struct worker_ctx *w, const struct wcmd *cmd);

#endif
