/* harness/worker/worker_env.c: what a fault and a worker-side detector may do in this rank (struct fault_env,
 * struct detector_env), and nothing more: the plug-ins see these, never the worker, its backend or the control
 * block. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"
#include "detectors/detector.h"
#include "faults/fault.h"
#include "shm.h"
#include "util.h"
#include "worker_env.h"

/* ---- the environment a fault acts through (fault.h: struct fault_env): this rank, nothing more */
static int env_corrupt(void *ctx, struct corruption *c, char *why, size_t n)
{
    struct worker_ctx *w = ctx;
    if (!w->ops->corrupt)
        return snprintf(why, n, "the %s backend cannot corrupt its buffers", w->ops->name), -1;
    return w->ops->corrupt(w->b, c, why, n);
}

static int env_break_link(void *ctx, char *why, size_t n)
{
    struct worker_ctx *w = ctx;
    if (!w->ops->break_comm)
        return snprintf(why, n, "the %s backend cannot break its communicator", w->ops->name), -1;
    return w->ops->break_comm(w->b, why, n);
}

static void env_slow(void *ctx, double factor, double duration_s)
{
    struct worker_ctx *w = ctx;
    w->slow_factor = factor;
    w->slow_until_ns = mono_ns() + (uint64_t)(duration_s * 1e9);
}

static void env_done(void *ctx, const char *what) { worker_fault_done(ctx, what); }

static _Noreturn void env_hang(void *ctx)
{
    struct worker_ctx *w = ctx;
    if (w->ops->hang)
        w->ops->hang(w->b);
    for (;;)
        sleep_ns(1000000000ull);   /* alive, silent: no heartbeat, no progress */
}

/* Kills every other live worker of this node. Only a live sibling: the supervisor clears a slot's pid before it
 * reaps the process, so a pid still there after the pidfd is open was the sibling's when it was opened (never a
 * reused one). */
static int env_kill_node(void *ctx)
{
    struct worker_ctx *w = ctx;
    int killed = 0;
    for (uint32_t k = 0; k < w->shm->hdr->nslots; k++) {
        struct ctl *c = shm_ctl(w->shm, (int)k);
        int32_t pid = __atomic_load_n(&c->pid, __ATOMIC_ACQUIRE);
        if (c == w->ctl || pid <= 0)
            continue;
#ifdef SYS_pidfd_open
        int fd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (fd >= 0) {
            if (__atomic_load_n(&c->pid, __ATOMIC_ACQUIRE) == pid && syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) == 0)
                killed++;
            close(fd);
            continue;
        }
        if (errno != ENOSYS)
            continue;   /* gone already */
#endif
        if (kill(pid, SIGKILL) == 0)   /* no pidfds in this kernel */
            killed++;
    }
    return killed;
}

/* ---- the environment a worker-side detector checks through (detector.h: struct detector_env) */
static int denv_abft(void *ctx, double *err, double *tol)
{
    struct worker_ctx *w = ctx;
    return w->ops->abft(w->b, err, tol);
}

static int denv_fingerprint(void *ctx, int slice, int slices, uint64_t *h)
{
    struct worker_ctx *w = ctx;
    return w->ops->fingerprint(w->b, slice, slices, h);
}

static int denv_fingerprint_start(void *ctx, int slice, int slices)
{
    struct worker_ctx *w = ctx;
    return w->ops->fingerprint_start(w->b, slice, slices);
}

static void denv_fingerprint_take(void *ctx)
{
    struct worker_ctx *w = ctx;
    uint64_t t0 = mono_ns();
    worker_fp_take(w);   /* its own cost is counted there, not again as the check's */
    w->detect_skip_ns += mono_ns() - t0;
}

static void denv_fingerprint_pending(void *ctx)
{
    struct worker_ctx *w = ctx;
    w->fp_pending = 1;
    w->fp_iter = w->iter;
}

static int denv_replay(void *ctx, uint64_t *h)
{
    struct worker_ctx *w = ctx;
    return w->ops->replay(w->b, h);
}

static void denv_fingerprint_out(void *ctx, uint64_t h)
{
    worker_emit(ctx, WEV_FPRINT, PH_IDLE, mono_ns(), (double)(h >> 32), (double)(h & 0xffffffffu), NULL);
}

static void denv_found(void *ctx, int det, double a, double b, const char *note)
{
    worker_emit(ctx, WEV_DETECT, det, mono_ns(), a, b, note);
}

static void denv_checked(void *ctx, int det)
{
    struct worker_ctx *w = ctx;
    if (det >= 0 && det < (int)ARRAY_LEN(w->detect_checks)) {
        w->detect_checks[det]++;
        atomic_fetch_add(&w->ctl->checks[det], 1);   /* what the supervisor takes should this process die unreported */
    }
}

void worker_fault_env(struct worker_ctx *w, struct fault_env *env)
{
    *env = (struct fault_env){ w, w->ops->name, w->ops->hang != NULL, env_corrupt, env_break_link, env_slow, env_done,
                               env_hang, env_kill_node };
}

void worker_detector_env(struct worker_ctx *w, struct detector_env *env)
{
    const struct backend_ops *o = w->ops;
    *env = (struct detector_env){
        w, w->iter, o->abft ? denv_abft : NULL, o->fingerprint ? denv_fingerprint : NULL,
        o->fingerprint_start ? denv_fingerprint_start : NULL, denv_fingerprint_take, denv_fingerprint_pending,
        o->replay ? denv_replay : NULL, &w->replay_ref, denv_fingerprint_out, denv_found,
        denv_checked,
    };
}
