/* harness/worker.c: a rank's process. It attaches to the control block the supervisor made, starts its
 * backend, then runs the commands it is sent: each run is `iterations` of compute → all-reduce →
 * (checkpoint), every phase edge and iteration reported as an event. It never writes results files. */
#include "worker.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "backend.h"
#include "checkpoint.h"
#include "util.h"

/* Pushes one event to the supervisor. */
static void worker_emit(struct worker_ctx *w, uint32_t type, int phase, uint64_t t, double a, double b)
{
    struct wevent ev = { .type = type, .rank = w->rank, .run = w->run, .phase = phase, .iter = w->iter,
                         .t_ns = t, .a = a, .b = b };
    ring_push(&w->ctl->evt, &ev);   /* a full ring counts a drop; the worker never blocks on it */
}

void worker_beat(struct worker_ctx *w) { atomic_store_explicit(&w->ctl->heartbeat_ns, mono_ns(), memory_order_release); }

void worker_phase(struct worker_ctx *w, int phase, int begin, uint64_t t, double a)
{
    if (begin) {
        if (!w->iter_t0)
            w->iter_t0 = t;
        atomic_store_explicit(&w->ctl->phase, phase, memory_order_relaxed);
    } else {
        w->last_end = t;
        atomic_store_explicit(&w->ctl->phase, PH_IDLE, memory_order_relaxed);
    }
    if (w->ops->on_phase)
        w->ops->on_phase(w->b, begin ? phase : PH_IDLE, t);
    worker_emit(w, begin ? WEV_PHASE_BEGIN : WEV_PHASE_END, phase, t, a, 0);
    worker_beat(w);
}

/* Reports a fatal error to the supervisor and exits with code. */
static _Noreturn void worker_fail(struct worker_ctx *w, int code, const char *why)
{
    str_copy(w->ctl->error, sizeof w->ctl->error, why);
    atomic_store(&w->ctl->state, WS_FAILED);
    worker_emit(w, WEV_ERROR, PH_IDLE, mono_ns(), code, 0);
    gl_log("%s", why);
    exit(code);
}

/* Writes a checkpoint of the backend's state, reporting it as a phase. */
static int worker_checkpoint(struct worker_ctx *w)
{
    const struct scenario *sc = w->sc;
    const void *state;
    size_t len;
    double secs;
    char why[256];
    uint64_t t0 = mono_ns();
    worker_phase(w, PH_CKPT, 1, t0, 0);
    if (w->ops->snapshot(w->b, &state, &len) != 0 ||
        checkpoint_write(sc->workload.checkpoint.path, sc->name, w->rank, w->iter + 1, state, len,
                         sc->workload.checkpoint.bytes, &secs, why, sizeof why) != 0) {
        snprintf(w->err, sizeof w->err, "checkpoint at iteration %lld: %s", (long long)w->iter,
                 w->ops->snapshot ? why : "no snapshot");
        return -1;
    }
    worker_phase(w, PH_CKPT, 0, t0 + (uint64_t)(secs * 1e9), (double)sc->workload.checkpoint.bytes);
    return 0;
}

/* Returns 1 when the supervisor asked this run to stop (or the run was aborted). */
static int worker_stop_requested(struct worker_ctx *w)
{
    struct wcmd c;
    if (shm_aborted(w->shm))
        return 1;
    while (ring_pop(&w->ctl->cmd, &c))
        if (c.type == CMD_STOP || c.type == CMD_EXIT)
            return 1;
    return 0;
}

/* Runs one mitigation run: iterations of compute, all-reduce and checkpoint. */
static void worker_run(struct worker_ctx *w, const struct wcmd *cmd)
{
    const struct scenario *sc = w->sc;
    w->run = cmd->run;
    atomic_store(&w->ctl->iter, 0);
    atomic_store(&w->ctl->state, WS_RUNNING);
    for (w->iter = 0; w->iter < cmd->iterations; w->iter++) {
        if (worker_stop_requested(w)) {
            worker_emit(w, WEV_STOPPED, PH_IDLE, mono_ns(), 0, 0);
            atomic_store(&w->ctl->state, WS_IDLE);
            return;
        }
        w->iter_t0 = 0;
        if (w->ops->compute(w->b, w) != 0 || w->ops->allreduce(w->b, w) != 0) {
            if (shm_aborted(w->shm)) {
                worker_emit(w, WEV_STOPPED, PH_IDLE, mono_ns(), 0, 0);
                atomic_store(&w->ctl->state, WS_IDLE);
                return;
            }
            worker_fail(w, EXIT_CHECK, w->err[0] ? w->err : "backend phase failed");
        }
        int64_t every = sc->workload.checkpoint.every;
        if (every > 0 && (w->iter + 1) % every == 0 && worker_checkpoint(w) != 0)
            worker_fail(w, EXIT_ENV, w->err);
        worker_emit(w, WEV_ITER, PH_IDLE, w->last_end, (double)(w->last_end - w->iter_t0) * 1e-9, 0);
        atomic_store(&w->ctl->iter, w->iter + 1);
    }
    const void *state;
    size_t len;
    uint64_t h = w->ops->snapshot(w->b, &state, &len) == 0 ? fnv1a64(state, len) : 0;
    worker_emit(w, WEV_RUN_DONE, PH_IDLE, mono_ns(), (double)(h >> 32), (double)(h & 0xffffffffu));
    atomic_store(&w->ctl->state, WS_IDLE);
}

int worker_main(int argc, char **argv)
{
    char role[32], why[512];
    struct shm shm = { .fd = -1 };
    if (argc != 3)
        gl_die(EXIT_INPUT, "usage: gauntlet __worker FD RANK (started by the supervisor only)");
    int fd = atoi(argv[1]), rank = atoi(argv[2]);
    snprintf(role, sizeof role, "rank %d", rank);
    util_set_role(role);
    if (shm_attach(&shm, fd) != 0)
        return EXIT_ENV;
    /* die with the supervisor, also if it died before prctl took effect */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        return SYSERR("prctl(PR_SET_PDEATHSIG)"), EXIT_ENV;
    if (getppid() != shm.hdr->supervisor_pid)
        return EXIT_ENV;
    if (rank < 0 || rank >= (int)shm.hdr->nranks)
        gl_die(EXIT_INPUT, "rank %d out of range [0, %u)", rank, shm.hdr->nranks);
    struct worker_ctx w = { .sc = &shm.hdr->sc, .shm = &shm, .ctl = shm_ctl(&shm, rank), .rank = rank,
                            .nranks = (int)shm.hdr->nranks };
    w.ctl->pid = (int32_t)getpid();
    w.ops = backend_find(shm.hdr->backend);
    if (!w.ops)
        worker_fail(&w, EXIT_INPUT, "unknown backend in the control block");
    worker_beat(&w);
    w.b = w.ops->init(&w, why, sizeof why);
    if (!w.b)
        worker_fail(&w, EXIT_ENV, why);
    worker_emit(&w, WEV_READY, PH_IDLE, mono_ns(), w.ops->device_bytes ? w.ops->device_bytes(w.b) : 0,
                w.ops->clock_error ? w.ops->clock_error(w.b) : 0);
    atomic_store(&w.ctl->state, WS_READY);
    uint64_t step = (uint64_t)(w.sc->heartbeat.interval_s * 1e9);
    for (;;) {
        struct wcmd c;
        if (shm_aborted(&shm))
            break;
        if (!ring_pop(&w.ctl->cmd, &c)) {
            worker_beat(&w);
            sleep_ns(step < 1000000 ? step : 1000000);
            continue;
        }
        if (c.type == CMD_EXIT)
            break;
        if (c.type == CMD_RUN)
            worker_run(&w, &c);
    }
    w.ops->fini(w.b);
    atomic_store(&w.ctl->state, WS_EXITED);
    shm_close(&shm);
    return EXIT_OK;
}
