/* harness/worker/worker_events.c: what a rank reports to its supervisor — phase edges, iterations, faults carried out,
 * findings, its run's end — each record pushed into the event ring of its control block. Only a phase edge may be lost
 * to a full ring: the rank made room for every edge of an iteration before it began it (worker.c: worker_hold,
 * scenario_iter_events), so one is dropped only where that bound was wrong, and the drop is counted (the ring's
 * `dropped`) and said by the supervisor. Every other record — an iteration, a fault, a finding, an error, the run's end
 * — waits for a free slot, beating: a supervisor behind (descheduled, stopped) is not this rank's hang, and until
 * 2026-11-30 such a record was dropped like an edge: a lost RUN_DONE held the run for ever, a lost FAULT or DETECT
 * let an injected fault go unrecorded and the run exit 0. */
#include "backend.h"
#include "detectors/detector.h"
#include "util.h"
#include "worker_env.h"

/* A record that must not be lost, waiting for room, gives up only once the run is aborted and the supervisor has
 * taken nothing for this long (its loop drains every 10 ms while it ends the run: it is gone or stopped). */
#define WORKER_ABORT_GRACE_S 10.0

void worker_queue_fault(struct worker_ctx *w, const struct wcmd *c)
{
    if (c->arg < 0 || c->arg >= w->sc->n_faults || w->n_pending >= SC_MAX_FAULTS)
        return;
    for (int k = 0; k < w->n_pending; k++)
        if (w->pending[k] == c->arg)
            return;
    w->pending[w->n_pending++] = c->arg;
}

void worker_take_injects(struct worker_ctx *w)
{
    struct wcmd c;
    while (!w->exit_asked && ring_peek(&w->ctl->cmd, &c) && c.type == CMD_INJECT && ring_pop(&w->ctl->cmd, &c))
        worker_queue_fault(w, &c);
}

/* Waits for a free slot of the event ring, beating; a fault sent meanwhile is queued (a stop is left in the command
 * ring for the loop: the record is pushed first). 0, or -1 when it gave up (the run aborted, the supervisor silent
 * for WORKER_ABORT_GRACE_S or heartbeat.timeout, the longer). */
static int worker_wait_slot(struct worker_ctx *w)
{
    uint64_t aborted_at = 0;
    double grace = w->sc->heartbeat.timeout_s > WORKER_ABORT_GRACE_S ? w->sc->heartbeat.timeout_s : WORKER_ABORT_GRACE_S;
    for (unsigned spins = 0; ring_count(&w->ctl->evt) >= EVT_CAP; spins++) {
        worker_take_injects(w);
        if (shm_aborted(w->shm)) {
            uint64_t now = mono_ns();
            if (!aborted_at)
                aborted_at = now;
            else if ((double)(now - aborted_at) * 1e-9 > grace)
                return -1;
        }
        worker_beat(w);
        sleep_ns(spins < 64 ? 20000 : 200000);
    }
    return 0;
}

/* A record's type in words, for the message of a lost one. */
static const char *worker_event_name(uint32_t type)
{
    static const char *const names[] = { "?", "ready", "phase begin", "phase end", "iteration", "run done", "error",
                                         "stopped", "fault", "finding", "fingerprint", "restored", "detector cost",
                                         "checkpoint written", "mitigation tuned", "GEMM algorithm" };
    return type < ARRAY_LEN(names) ? names[type] : "?";
}

void worker_push(struct worker_ctx *w, const struct wevent *ev)
{
    /* the producer is this thread alone: a slot seen free stays free until this push takes it */
    if (ev->type != WEV_PHASE_BEGIN && ev->type != WEV_PHASE_END && ring_count(&w->ctl->evt) >= EVT_CAP &&
        worker_wait_slot(w) != 0)
        gl_log("a worker report (%s) was lost: the event ring stayed full after the run was aborted", worker_event_name(ev->type));
    ring_push(&w->ctl->evt, ev);   /* full: a drop, counted in the ring (summary.json events_dropped) */
}

/* Pushes one event about iteration iter to the supervisor. */
static void worker_emit_at(struct worker_ctx *w, int64_t iter, uint32_t type, int phase, uint64_t t, double a, double b,
                           const char *note)
{
    int comm_edge = (type == WEV_PHASE_BEGIN || type == WEV_PHASE_END) && phase == PH_COMM;
    struct wevent ev = { .type = type, .rank = w->rank, .run = w->run, .phase = phase, .iter = iter,
                         .t_ns = t, .a = a, .b = b, .epoch = w->epoch, .elem = comm_edge ? w->step_kind : -1,
                         .target = -1, .where = -1, .format = -1 };   /* a communication edge: elem is its kind */
    if (note)
        str_copy(ev.note, sizeof ev.note, note);
    worker_push(w, &ev);
}

/* Pushes one event about the iteration in progress. */
void worker_emit(struct worker_ctx *w, uint32_t type, int phase, uint64_t t, double a, double b, const char *note)
{
    worker_emit_at(w, w->iter, type, phase, t, a, b, note);
}

/* Reports the asynchronous fingerprint in flight, if any (for the iteration it was started at). */
void worker_fp_take(struct worker_ctx *w)
{
    uint64_t h, t0 = mono_ns();
    if (!w->fp_pending)
        return;
    w->fp_pending = 0;
    if (w->ops->fingerprint_take(w->b, &h) == 1)
        worker_emit_at(w, w->fp_iter, WEV_FPRINT, PH_IDLE, mono_ns(), (double)(h >> 32), (double)(h & 0xffffffffu), NULL);
    w->detect_cost_s[DET_FINGERPRINT] += (double)(mono_ns() - t0) * 1e-9;
}

static void worker_edge(struct worker_ctx *w, int phase, int begin, uint64_t t, double a, double b);

void worker_phase(struct worker_ctx *w, int phase, int begin, uint64_t t, double a) { worker_edge(w, phase, begin, t, a, 0); }

void worker_phase_bus(struct worker_ctx *w, uint64_t t, double bytes, double bus_bytes)
{
    worker_edge(w, PH_COMM, 0, t, bytes, bus_bytes);
}

/* A phase edge: the control block's phase (the sampler reads it), the backend's model, the event. */
static void worker_edge(struct worker_ctx *w, int phase, int begin, uint64_t t, double a, double b)
{
    /* a beat before the phase changes (release): the supervisor reads the phase first (acquire), so a rank it finds
     * out of a long checkpoint has beaten since; until 2026-11-30 the phase went IDLE before the beat, and a check
     * between the two judged the checkpoint's whole silence against heartbeat.timeout: a hang that was none */
    worker_beat(w);
    if (begin) {
        if (!w->iter_t0)
            w->iter_t0 = t;
        atomic_store_explicit(&w->ctl->phase, phase, memory_order_release);
    } else {
        w->last_end = t;
        atomic_store_explicit(&w->ctl->phase, PH_IDLE, memory_order_release);
    }
    if (w->ops->on_phase)
        w->ops->on_phase(w->b, begin ? phase : PH_IDLE, t);
    worker_emit(w, begin ? WEV_PHASE_BEGIN : WEV_PHASE_END, phase, t, a, b, NULL);
    worker_beat(w);
}

int worker_replay_phase(struct worker_ctx *w, int phase, double level, double mid, uint64_t t)
{
    int want = level >= mid ? PH_COMPUTE : PH_COMM;
    if (want != phase) {
        worker_phase(w, phase, 0, t, 0);
        worker_phase(w, want, 1, t, 0);
    }
    return want;
}

void worker_emit_tuned(struct worker_ctx *w, double floor_w, double duty, const char *note)
{
    worker_emit(w, WEV_TUNED, PH_IDLE, mono_ns(), floor_w, duty, note);
}

void worker_emit_gemm_algo(struct worker_ctx *w, int chosen, int candidates, double tflops, double first_tflops,
                           const char *note)
{
    worker_emit_at(w, candidates, WEV_GEMM_ALGO, chosen, mono_ns(), tflops, first_tflops, note);   /* iter: the count */
}

void worker_emit_detect(struct worker_ctx *w, int det, const char *note)
{
    worker_emit(w, WEV_DETECT, det, mono_ns(), 0, 0, note);
}

void worker_emit_fault(struct worker_ctx *w, int i, double done, const char *what)
{
    const struct fault_detail *d = &w->fdet;
    struct wevent ev = { .type = WEV_FAULT, .rank = w->rank, .run = w->run, .phase = i, .iter = w->iter,
                         .t_ns = mono_ns(), .a = (double)w->iter, .b = done, .epoch = w->epoch, .mask = d->mask,
                         .elem = d->element, .c = d->old_v, .d = d->new_v, .scale = d->scale, .target = (int8_t)d->target,
                         .where = (int8_t)d->where, .format = (int8_t)d->format };
    if (what)
        str_copy(ev.note, sizeof ev.note, what);
    worker_push(w, &ev);
}

void worker_fault_done(struct worker_ctx *w, const char *what) { worker_emit_fault(w, w->fault_now, 0, what); }
