/* harness/worker/worker.c: a rank's process. It attaches to the control block the supervisor made, starts its
 * backend, then runs the commands it is sent: each run is `iterations` of compute → all-reduce →
 * (checkpoint, replica), every phase edge and iteration reported as an event (worker_events.c). Faults are carried
 * out and worker-side detectors run at the points of the iteration the backend reaches (worker_point). It never
 * writes results files. */
#include "worker.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "backend.h"
#include "checkpoint.h"
#include "ckpt_async.h"
#include "deathnote.h"
#include "detectors/detector.h"
#include "recovery/recovery.h"
#include "util.h"
#include "worker_env.h"

void worker_beat(struct worker_ctx *w) { atomic_store_explicit(&w->ctl->heartbeat_ns, mono_ns(), memory_order_release); }

/* The same, as a callback for a wait on storage (worker_ckpt_waiting set at its start): beats for as long as a
 * checkpoint write may take (heartbeat.checkpoint, at least the timeout), then no more, so that a write or read
 * stuck on storage is a hang (until 2026-11-30 an async wait beat for ever and the run froze); never gives up. */
int worker_beat_bounded(void *p)
{
    struct worker_ctx *w = p;
    double limit = w->sc->heartbeat.checkpoint_s > w->sc->heartbeat.timeout_s ? w->sc->heartbeat.checkpoint_s
                                                                               : w->sc->heartbeat.timeout_s;
    if ((double)(mono_ns() - w->ckpt_wait_t0) * 1e-9 <= limit)
        worker_beat(w);
    return 0;
}

/* The same, but -1 (give the wait up) on an abort: a recovery or a stop must be able to stop a rank waiting for a
 * free checkpoint buffer. */
int worker_beat_arg(void *p)
{
    struct worker_ctx *w = p;
    return shm_aborted(w->shm) ? -1 : worker_beat_bounded(p);
}

double worker_slowdown(struct worker_ctx *w)
{
    return w->slow_factor > 1 && mono_ns() < w->slow_until_ns ? w->slow_factor : 1.0;
}

/* Carries out fault i of the scenario here and now. */
static void worker_inject(struct worker_ctx *w, int i)
{
    const struct fault_spec *f = &w->sc->faults[i];
    const struct fault_ops *ops = fault_table[f->kind];
    char what[128] = "";
    w->fault_now = i;
    w->fdet = (struct fault_detail){ .target = -1, .where = -1, .format = -1, .element = -1, .old_v = NAN, .new_v = NAN,
                                     .scale = NAN };
    uint64_t seed = (uint64_t)w->sc->seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)i << 32) ^ (uint64_t)w->iter;
    /* a random process (rate_per_hour) draws anew each time it fires: the timeline's epoch in its seed (the same
     * seed after a recovery hit the restored iteration with the same corruption, a Poisson process read as a failure
     * that repeats and the run given up); a scheduled one repeats on the new timeline as it fired */
    if (f->rate_per_hour > 0)
        seed ^= (uint64_t)w->epoch * 0xD1B54A32D192ED03ull;
    struct fault_env env;
    worker_fault_env(w, &env);
    if (ops->inject(&env, f->params, seed, what, sizeof what, &w->fdet) != 0) {
        gl_log("fault %s (scenario line %d) not carried out: %s", ops->name, f->line, what);
        worker_emit_fault(w, i, -1, what);
        return;
    }
    worker_fault_done(w, what);
}

/* Runs the worker-side detectors that check at point (each detector's file says where and how), timing each. */
static void worker_detect(struct worker_ctx *w, int point)
{
    const struct scenario *sc = w->sc;
    struct detector_env env;
    worker_detector_env(w, &env);
    for (int d = 0; detector_table[d]; d++) {
        const struct detector_ops *dt = detector_table[d];
        if (dt->point != point || !dt->check || !scenario_detector_on(sc, dt->id))
            continue;
        uint64_t t0 = mono_ns();
        w->detect_skip_ns = 0;
        dt->check(&env, scenario_detector_params(sc, dt->id));
        uint64_t spent = mono_ns() - t0;
        w->detect_cost_s[dt->id] += (double)(spent > w->detect_skip_ns ? spent - w->detect_skip_ns : 0) * 1e-9;
    }
}

void worker_point(struct worker_ctx *w, int point)
{
    const struct scenario *sc = w->sc;
    for (int i = 0; i < sc->n_faults; i++) {   /* faults scheduled at this iteration, on this rank */
        const struct fault_spec *f = &sc->faults[i];
        if (f->at == w->iter && f->rank == w->rank && fault_table[f->kind]->point(f->params) == point &&
            !atomic_exchange(&w->shm->hdr->fault_fired[i], 1))
            worker_inject(w, i);
    }
    for (int k = 0; k < w->n_pending; k++) {   /* faults the supervisor sent (at_s, rate_per_hour, by hand) */
        int i = w->pending[k];
        const struct fault_spec *f = &sc->faults[i];
        if (fault_table[f->kind]->point(f->params) != point)
            continue;
        w->pending[k--] = w->pending[--w->n_pending];
        worker_inject(w, i);
    }
    worker_detect(w, point);
}

/* Reports a fatal error to the supervisor and exits with code. */
static _Noreturn void worker_fail(struct worker_ctx *w, int code, const char *why)
{
    str_copy(w->ctl->error, sizeof w->ctl->error, why);
    atomic_store(&w->ctl->state, WS_FAILED);
    worker_emit(w, WEV_ERROR, PH_IDLE, mono_ns(), code, 0, NULL);
    gl_log("%s", why);
    deathnote_exit(code);
    exit(code);
}

/* Reports the async checkpoints the writer thread has finished. */
static void worker_ckpt_poll(struct worker_ctx *w)
{
    struct ckpt_done d;
    while (w->ckpt && ckpt_async_poll(w->ckpt, &d)) {
        if (d.failed)
            worker_fail(w, EXIT_ENV, d.why);
        int64_t it = w->iter;
        w->iter = d.iter - 1;
        worker_emit(w, WEV_CKPT_WRITTEN, PH_CKPT, mono_ns(), (double)d.bytes, d.seconds, NULL);
        w->iter = it;
    }
}

/* Waits until this node's supervisor has checked `need` iterations of every rank (shm checked_done), and until the
 * event ring has `room` free slots, beating meanwhile: a supervisor behind its ranks (a loaded machine) holds them
 * back rather than lose a check, an event or the state a recovery needs; it costs nothing when it keeps up. A fault
 * sent meanwhile (at_s, rate_per_hour, by hand) is queued and the wait goes on: until 2026-11-30 it ended the wait as a
 * stop does, and the checkpoint or replica waiting was skipped without a word (later that day still, for a fault that
 * came between the take and the look at the ring). 0, or -1 at a stop or another command (left in the ring: the loop
 * takes it). */
static int worker_hold(struct worker_ctx *w, int64_t need, uint64_t room)
{
    for (unsigned spins = 0; (need > 0 && atomic_load(&w->shm->hdr->checked_done) < need) ||
                             EVT_CAP - ring_count(&w->ctl->evt) < room;
         spins++) {
        worker_take_injects(w);
        struct wcmd c;   /* only a command that is not a fault ends the wait: one sent since the take waits its turn */
        if (shm_aborted(w->shm) || w->exit_asked ||
            (ring_peek(&w->ctl->cmd, &c) && c.type != CMD_INJECT))
            return -1;
        worker_beat(w);
        sleep_ns(spins < 64 ? 20000 : 200000);
    }
    return 0;
}

/* Writes a checkpoint of the backend's state (sync), or hands it to the writer thread (async); the phase
 * is the time the rank stalls. */
static int worker_checkpoint(struct worker_ctx *w)
{
    const struct scenario *sc = w->sc;
    const void *state;
    size_t len;
    double secs;
    char why[256];
    int64_t done = w->iter + 1, every = sc->workload.checkpoint.every;
    int gens = scenario_ckpt_gens(sc), gen = (int)((done / every) % gens);
    /* under restart this one takes the place of the oldest: the oldest that stays must be one a later finding can
     * roll back to, from before any corruption not yet found (the SDC lag) and before an asynchronous fingerprint's
     * report (one more); a stop or a command meanwhile: no checkpoint this time (a recovery may need this very one) */
    if (scenario_ckpt_hold(sc) && worker_hold(w, done - every * (gens - 1) + scenario_sdc_lag(sc) + 1, 0) != 0)
        return 0;
    uint64_t t0 = mono_ns();
    worker_phase(w, PH_CKPT, 1, t0, 0);
    if (sc->workload.checkpoint.mode == CKPT_ASYNC) {
        if (!w->ckpt)
            w->ckpt = ckpt_async_start(sc->workload.checkpoint.path, w->shm->hdr->ckpt_tag, w->rank, sc->workload.checkpoint.bytes);
        worker_ckpt_poll(w);
        w->ckpt_wait_t0 = mono_ns();
        if (!w->ckpt || w->ops->snapshot(w->b, &state, &len) != 0) {
            snprintf(w->err, sizeof w->err, "async checkpoint at iteration %lld failed", (long long)w->iter);
            return -1;
        }
        if (ckpt_async_submit(w->ckpt, state, len, gen, done, worker_beat_arg, w) != 0) {
            worker_phase(w, PH_CKPT, 0, mono_ns(), 0);   /* stopped while it waited for a buffer: no checkpoint this
                                                          * time, the loop takes the stop (no failure of its own) */
            return 0;
        }
        worker_phase(w, PH_CKPT, 0, mono_ns(), 0);
        return 0;
    }
    if (w->ops->snapshot(w->b, &state, &len) != 0 ||
        checkpoint_write(sc->workload.checkpoint.path, w->shm->hdr->ckpt_tag, w->rank, gen, done, state, len,
                         sc->workload.checkpoint.bytes, &secs, why, sizeof why) != 0) {
        snprintf(w->err, sizeof w->err, "checkpoint at iteration %lld: %s", (long long)w->iter, why);
        utf8_trim(w->err);   /* a path cut inside a character */
        return -1;
    }
    worker_phase(w, PH_CKPT, 0, t0 + (uint64_t)(secs * 1e9), (double)checkpoint_file_bytes(len, sc->workload.checkpoint.bytes));
    return 0;
}

/* Copies the state into this rank's in-memory replica ring (recovery inprocess, spare, shrink). */
static void worker_replicate(struct worker_ctx *w, int64_t done)
{
    const void *state;
    size_t len;
    if (w->ops->snapshot(w->b, &state, &len) != 0)
        return;
    if (len > w->shm->hdr->replica_bytes) {   /* a cut replica would restore a wrong state: refuse, say why */
        char why[160];
        snprintf(why, sizeof why, "the model state (%zu bytes) does not fit a replica slot (%llu bytes)", len,
                 (unsigned long long)w->shm->hdr->replica_bytes);
        worker_fail(w, EXIT_ENV, why);
    }
    int64_t every = ((const struct replica_params *)w->sc->recovery.params)->replicate_every;
    /* this replica takes the place of the oldest of the ring's: whatever a later check finds must still have one
     * before it, so the supervisor must have checked every iteration up to the oldest that stays, and the one after
     * (an asynchronous fingerprint finds a flip an iteration late) */
    if (worker_hold(w, done - every * (REPLICA_SLOTS - 1) + scenario_sdc_lag(w->sc) + 1, 0) != 0)
        return;   /* a stop (a recovery may need the very replica this one would replace) or another command: no
                   * replica this time, the loop takes it */
    struct replica *r = shm_replica(w->shm, w->rank, (int)((done / every) % REPLICA_SLOTS));
    uint64_t seq = atomic_load(&r->seq);
    seq += seq & 1;   /* a writer killed mid-write left it odd: even again here, or the slot stayed unusable */
    atomic_store(&r->seq, seq + 1);
    atomic_thread_fence(memory_order_release);   /* odd before any byte of the state changes, on any memory order */
    r->iter = done;
    r->len = len;
    r->hash = fnv1a64(state, len);
    memcpy(r + 1, state, len);
    atomic_store(&r->seq, seq + 2);
}

/* Reads the commands waiting; returns 1 when the run in progress must stop (STOP, EXIT or abort). An EXIT is kept
 * (exit_asked): the supervisor sends it once, at its end, and waits for the worker to leave. */
static int worker_commands(struct worker_ctx *w)
{
    struct wcmd c;
    int stop = shm_aborted(w->shm);
    while (!w->exit_asked && ring_pop(&w->ctl->cmd, &c)) {
        if (c.type == CMD_EXIT)
            w->exit_asked = 1;
        if (c.type == CMD_STOP || c.type == CMD_EXIT)
            stop = 1;
        else if (c.type == CMD_INJECT)
            worker_queue_fault(w, &c);
    }
    return stop || w->exit_asked;
}

/* The live view's `m` and `p` act at an iteration boundary the supervisor picks, the same for every rank, so
 * that no rank is left waiting in a collective. Returns 0 to go on, STOP_ABORT when the run must stop (STOP,
 * EXIT, abort), STOP_SKIP when it ends here for the next mitigation. While paused the rank beats and runs
 * nothing: its power falls to idle. */
enum { STOP_ABORT = 1, STOP_SKIP = 2 };

/* Reads a boundary, waiting out the few microseconds the supervisor takes to pick one (shm.h). */
static int64_t boundary_load(struct worker_ctx *w, _Atomic int64_t *at)
{
    int64_t v;
    for (unsigned spins = 0; (v = atomic_load(at)) == SHM_BOUNDARY_PENDING; spins++) {
        if (shm_aborted(w->shm))   /* the run is being stopped (a node lost while the boundary was agreed) */
            return -1;
        if (spins % 1024 == 0)
            worker_beat(w);
        sleep_ns(1000);
    }
    return v;
}

static int worker_boundary(struct worker_ctx *w)
{
    struct shm_hdr *h = w->shm->hdr;
    int64_t stop = boundary_load(w, &h->stop_at), pause = stop < 0 ? -1 : boundary_load(w, &h->pause_at);
    if (stop < 0 || pause < 0)
        return STOP_ABORT;
    if (w->iter >= stop)
        return STOP_SKIP;
    if (w->iter < pause)
        return 0;
    atomic_store(&w->ctl->state, WS_PAUSED);
    if (w->ops->idle)
        w->ops->idle(w->b);   /* paused: idle power, no filler */
    for (;;) {
        if ((pause = boundary_load(w, &h->pause_at)) < 0 || (stop = boundary_load(w, &h->stop_at)) < 0)
            return STOP_ABORT;
        if (w->iter < pause)
            break;
        if (worker_commands(w))
            return STOP_ABORT;
        if (w->iter >= stop)
            return STOP_SKIP;
        worker_beat(w);
        sleep_ns(1000000);
    }
    atomic_store(&w->ctl->state, WS_RUNNING);
    return 0;
}

/* The async checkpoint writes in flight finish and are reported (a failure too: a full disk is never a silent loss)
 * before the rank says a run ended or stopped, or exits: waited for beating as long as a write may take, an abort not
 * giving the wait up (until 2026-11-30 a stopped run's write could land after a recovery forgot the checkpoints past
 * its restore point, or after the next run cleared the folder, and be counted in that run; until 2026-12-02 so could
 * an aborted run's at its end, and the exit dropped a failure no poll had taken). */
static void worker_ckpt_settle(struct worker_ctx *w)
{
    if (!w->ckpt)
        return;
    w->ckpt_wait_t0 = mono_ns();
    (void)ckpt_async_drain(w->ckpt, worker_beat_bounded, w);
    worker_ckpt_poll(w);
}

/* Ends a run early: the rank reports where it stopped (a = 1: at the skip boundary) and waits for the next
 * command. */
static void worker_stopped(struct worker_ctx *w, int skip)
{
    worker_ckpt_settle(w);
    worker_fp_take(w);
    if (w->ops->idle)
        w->ops->idle(w->b);
    worker_emit(w, WEV_STOPPED, PH_IDLE, mono_ns(), skip, 0, NULL);
    atomic_store(&w->ctl->state, WS_IDLE);
}

/* One iteration, in the scenario's form: the simple one (compute, all-reduce), its phases, or a pass of a trace. */
static int worker_iteration(struct worker_ctx *w)
{
    if (w->sc->workload.n_steps > 0)
        return w->ops->steps(w->b, w);
    if (w->sc->workload.replay.on)
        return w->ops->replay_iter(w->b, w);
    return w->ops->compute(w->b, w) != 0 || w->ops->allreduce(w->b, w) != 0 ? -1 : 0;
}

/* Runs one mitigation run (or its continuation after a recovery): compute, all-reduce, checkpoint, replica. */
static void worker_run(struct worker_ctx *w, const struct wcmd *cmd)
{
    const struct scenario *sc = w->sc;
    w->slow_factor = 1;   /* a recovery's continuation too: a straggler still slowing the rank is cut short by it (the
                           * fault ledger says so, faultlog_rollback) */
    w->run = cmd->run;
    w->epoch = cmd->epoch;
    w->n_pending = 0;
    atomic_store(&w->ctl->state, WS_RUNNING);
    if (w->ops->begin_run && w->ops->begin_run(w->b, w) != 0)
        worker_fail(w, EXIT_ENV, w->err[0] ? w->err : "the run's mitigation could not start");
    if (cmd->reconnect && w->ops->reconnect && w->ops->reconnect(w->b, w) != 0)
        worker_fail(w, EXIT_ENV, w->err[0] ? w->err : "cannot join the new communicator");
    w->iter = cmd->start_iter;   /* the state_restored event's iteration: the one restored (until 2026-12-02 a new
                                  * process's 0, a survivor's where it stopped) */
    if (cmd->restore != RESTORE_NONE && worker_restore(w, cmd) != 0)
        worker_fail(w, EXIT_CHECK, w->err);
    /* a run's start: a survivor's rollback to iteration 0 keeps what it checked before (its sdc_checks, and its
     * detectors' cost over the iterations it ran; until 2026-12-01 both were cleared) */
    if (cmd->start_iter == 0 && cmd->restore == RESTORE_NONE) {
        memset(w->detect_cost_s, 0, sizeof w->detect_cost_s);
        memset(w->detect_checks, 0, sizeof w->detect_checks);
        w->detect_iters = 0;
        for (int d = 0; d < DET_COUNT; d++)
            w->detect_dev0_s[d] = w->ops->detector_device_s ? w->ops->detector_device_s(w->b, d) : NAN;
    }
    int replicas = recovery_table[sc->recovery.index]->replicas;
    if (replicas && cmd->start_iter == 0 && cmd->restore == RESTORE_NONE)
        worker_replicate(w, 0);   /* the starting state: a recovery before the first replica rolls back to it (not
                                   * written again by a recovery to it: a replacement may be reading it right now) */
    atomic_store(&w->ctl->iter, cmd->start_iter);
    /* room in the event ring for a whole iteration's events before each begins: none of its edges is lost however
     * late the supervisor drains (shm.h EVT_CAP) */
    uint64_t room = (uint64_t)scenario_iter_events(sc) < EVT_CAP ? (uint64_t)scenario_iter_events(sc) : EVT_CAP;
    worker_hold(w, 0, room);   /* a stop or a command meanwhile: the loop takes it */
    for (w->iter = cmd->start_iter; w->iter < cmd->iterations; w->iter++) {
        if (worker_commands(w))
            return worker_stopped(w, 0);
        int b = worker_boundary(w);
        if (b)
            return worker_stopped(w, b == STOP_SKIP);
        w->iter_t0 = 0;
        worker_point(w, IP_ITER_START);
        if (worker_iteration(w) != 0) {
            if (shm_aborted(w->shm))
                return worker_stopped(w, 0);
            worker_fail(w, EXIT_CHECK, w->err[0] ? w->err : "backend phase failed");
        }
        uint64_t done = mono_ns();   /* the checks after the last phase (a synchronous fingerprint) are the iteration's
                                      * time too: a cost outside every span would read as none */
        if (done > w->last_end)
            w->last_end = done;
        int64_t every = sc->workload.checkpoint.every;
        if (every > 0 && (w->iter + 1) % every == 0 && worker_checkpoint(w) != 0)
            worker_fail(w, EXIT_ENV, w->err);
        if (replicas && (w->iter + 1) % ((const struct replica_params *)sc->recovery.params)->replicate_every == 0)
            worker_replicate(w, w->iter + 1);
        worker_emit(w, WEV_ITER, PH_IDLE, w->last_end, (double)(w->last_end - w->iter_t0) * 1e-9, 0, NULL);
        w->detect_iters++;
        atomic_store(&w->ctl->iter, w->iter + 1);
        worker_ckpt_poll(w);
        /* the next iteration ends at most RUNAHEAD_MAX past the supervisor's checks (shm.h; until 2026-11-30 one more:
         * the wait was for this one's end) */
        worker_hold(w, w->iter + 2 - RUNAHEAD_MAX, room);
    }
    worker_ckpt_settle(w);   /* the run's checkpoints on storage before it is reported done */
    worker_fp_take(w);   /* the last iteration's asynchronous fingerprint */
    if (w->ops->idle)
        w->ops->idle(w->b);
    for (int d = 0; d < DET_COUNT; d++) {   /* b: the detector's own device time this run (NAN: not measured) */
        /* its checks reported here, not taken again at its death: cleared first (killed between the two: none
         * counted, never twice) */
        atomic_store(&w->ctl->checks[d], 0);
        double dev = w->ops->detector_device_s ? w->ops->detector_device_s(w->b, d) - w->detect_dev0_s[d] : NAN;
        /* c: the iterations they cover (a restarted process: its own); d: the checks that compared something */
        if (w->detect_cost_s[d] > 0 || dev > 0 || w->detect_checks[d] > 0) {
            struct wevent ev = { .type = WEV_DETCOST, .rank = w->rank, .run = w->run, .phase = d, .iter = w->iter,
                                 .t_ns = mono_ns(), .a = w->detect_cost_s[d], .b = dev, .epoch = w->epoch, .elem = -1,
                                 .c = (double)w->detect_iters, .d = (double)w->detect_checks[d], .target = -1,
                                 .where = -1, .format = -1 };
            worker_push(w, &ev);
        }
    }
    const void *state;
    size_t len;
    uint64_t h = w->ops->snapshot(w->b, &state, &len) == 0 ? fnv1a64(state, len) : 0;
    worker_emit(w, WEV_RUN_DONE, PH_IDLE, mono_ns(), (double)(h >> 32), (double)(h & 0xffffffffu), NULL);
    atomic_store(&w->ctl->state, WS_IDLE);
}

int worker_main(int argc, char **argv)
{
    char role[32], why[512];
    struct shm shm = { .fd = -1 };
    util_set_role("worker");   /* "rank N" once its slot is known */
    if (argc != 3 && argc != 5)
        gl_die(EXIT_INPUT, "usage: gauntlet __worker FD SLOT [DEATHFD DEATHFD] (started by the supervisor only)");
    int fd = atoi(argv[1]), slot = atoi(argv[2]);
    int dfd[2] = { argc == 5 ? atoi(argv[3]) : -1, argc == 5 ? atoi(argv[4]) : -1 };
    if (shm_attach(&shm, fd) != 0)
        return EXIT_ENV;
    /* die with the supervisor, also if it died before prctl took effect */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        return SYSERR("prctl(PR_SET_PDEATHSIG)"), EXIT_ENV;
    if (getppid() != shm.hdr->supervisor_pid)
        return EXIT_ENV;
    if (slot < 0 || slot >= (int)shm.hdr->nslots)
        gl_die(EXIT_INPUT, "slot %d out of range [0, %u)", slot, shm.hdr->nslots);
    struct worker_ctx w = { .sc = &shm.hdr->sc, .shm = &shm, .ctl = shm_ctl(&shm, slot), .step_kind = ST_ALLREDUCE,
                            .rank = atomic_load(&shm_ctl(&shm, slot)->rank), .nranks = (int)shm.hdr->nranks };
    if (w.rank >= 0)
        snprintf(role, sizeof role, "rank %d", w.rank);
    else
        snprintf(role, sizeof role, "spare %d", slot - (int)shm.hdr->nranks);
    util_set_role(role);
    w.ctl->pid = (int32_t)getpid();
    w.ops = backend_find(shm.hdr->backend);
    if (!w.ops)
        worker_fail(&w, EXIT_INPUT, "unknown backend in the control block");
    /* the last word to the supervisor; on sim a death may take sim.teardown to end, as a GPU context's does */
    if (dfd[0] >= 0 && deathnote_init(dfd, w.ops->modelled ? w.sc->sim.teardown_s : 0) != 0)
        worker_fail(&w, EXIT_ENV, "the death pipe: cannot set it up");
    worker_beat(&w);
    w.b = w.ops->init(&w, why, sizeof why);
    if (!w.b)
        worker_fail(&w, EXIT_ENV, why);
    worker_emit(&w, WEV_READY, PH_IDLE, mono_ns(), w.ops->device_bytes ? w.ops->device_bytes(w.b) : 0,
                w.ops->clock_error ? w.ops->clock_error(w.b) : 0, NULL);
    atomic_store(&w.ctl->state, WS_READY);
    uint64_t step = (uint64_t)(w.sc->heartbeat.interval_s * 1e9);
    for (;;) {
        struct wcmd c;
        if (!ring_pop(&w.ctl->cmd, &c)) {
            worker_beat(&w);
            sleep_ns(step < 1000000 ? step : 1000000);
            continue;
        }
        if (c.type == CMD_EXIT)
            break;
        if (c.type == CMD_ADOPT) {   /* a spare takes over a failed rank */
            w.rank = c.arg;
            atomic_store(&w.ctl->rank, c.arg);
            snprintf(role, sizeof role, "rank %d", w.rank);
            util_set_role(role);
        }
        if (c.type == CMD_RUN)
            worker_run(&w, &c);
        if (w.exit_asked)   /* the run loop read it: no second one comes */
            break;
    }
    worker_ckpt_settle(&w);
    ckpt_async_stop(w.ckpt);
    w.ops->fini(w.b);
    atomic_store(&w.ctl->state, WS_EXITED);
    shm_close(&shm);
    deathnote_exit(EXIT_OK);
    return EXIT_OK;
}
