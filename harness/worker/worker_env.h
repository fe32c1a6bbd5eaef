/* harness/worker/worker_env.h: the environments the worker hands its plug-ins (worker_env.c), the worker calls they
 * are built on, and what the worker's files share (worker_events.c: its reports). Not a public API. */
#ifndef GAUNTLET_WORKER_ENV_H
#define GAUNTLET_WORKER_ENV_H

#include <stdint.h>

struct worker_ctx;
struct fault_env;
struct detector_env;

/* This rank's environment for a fault (faults/fault.h) and for a worker-side detector (detectors/detector.h). */
void worker_fault_env(struct worker_ctx *w, struct fault_env *env);
void worker_detector_env(struct worker_ctx *w, struct detector_env *env);

struct wevent;
struct wcmd;
/* worker_events.c: one event about the iteration in progress; the asynchronous fingerprint in flight reported; the
 * record of fault i carried out (done: 0, or -1 when it could not be: what says why). */
void worker_emit(struct worker_ctx *w, uint32_t type, int phase, uint64_t t, double a, double b, const char *note);
void worker_fp_take(struct worker_ctx *w);
void worker_emit_fault(struct worker_ctx *w, int i, double done, const char *what);
/* worker_events.c: pushes a record into the event ring; only a phase edge may be dropped (counted) when it is full,
 * any other waits for a slot, beating (it gives up only long after an abort). */
void worker_push(struct worker_ctx *w, const struct wevent *ev);
/* worker_events.c: queues fault c (CMD_INJECT) to be carried out at its point (a spec already waiting here is carried
 * out once); takes every CMD_INJECT at the head of the command ring so (a wait goes on past them, not past a stop). */
void worker_queue_fault(struct worker_ctx *w, const struct wcmd *c);
void worker_take_injects(struct worker_ctx *w);
/* worker.c: the heartbeat of a wait on storage (w, its ckpt_wait_t0 set at the wait's start): beats for as long as a
 * checkpoint write may take, then no more; worker_beat_arg also gives the wait up (-1) once the run is aborted. */
int worker_beat_bounded(void *w);
int worker_beat_arg(void *w);

/* worker_restore.c: loads the state a recovery starts from (cmd: a checkpoint of its start_iter, or rank arg's
 * replica of it). 0, or -1 with w->err. */
int worker_restore(struct worker_ctx *w, const struct wcmd *cmd);

#endif
