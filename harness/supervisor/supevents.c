/* harness/supervisor/supevents.c: what comes back from the workers — their events, drained from each ring into
 * events.jsonl, the run's figures and the fault ledger — and their exits, reaped. */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "cluster.h"
#include "detectors/detector.h"
#include "faults/fault.h"
#include "mitigations/mitigation.h"
#include "param.h"
#include "plugin.h"
#include "recovery/recovery.h"
#include "sup.h"
#include "util.h"

/* Writes one worker event (from slot) into events.jsonl and the run's figures. */
static void sup_event(struct sup *s, int slot, const struct wevent *ev)
{
    json_t *o = NULL;
    const char *type = NULL;
    struct ctl *c = shm_ctl(&s->shm, slot);
    int rank = ev->rank;
    if (!faultlog_current(s, ev))   /* a report of a timeline a recovery abandoned */
        return;
    switch (ev->type) {
    case WEV_READY:
        s->ready[slot] = 1;
        type = "ready";
        o = json_pack("{s:i, s:i, s:i, s:f, s:f, s:s}", "rank", rank, "slot", slot, "pid", c->pid, "device_bytes", ev->a,
                      "clock_err_s", ev->b, "device", c->device);
        if (c->numa_node > -2) {   /* the host side of the GPU (cuda) */
            json_object_set_new(o, "numa_node", json_integer(c->numa_node));
            json_object_set_new(o, "numa_pinned", c->numa_pinned < 0 ? json_null() : json_boolean(c->numa_pinned));
        }
        if (isfinite(c->h2d_gbs))
            json_object_set_new(o, "h2d_gbs", json_real(c->h2d_gbs));
        break;
    case WEV_PHASE_BEGIN:
    case WEV_PHASE_END:
        type = ev->type == WEV_PHASE_BEGIN ? "phase_begin" : "phase_end";
        o = json_pack("{s:i, s:i, s:I, s:s}", "rank", rank, "run", ev->run, "iter", (json_int_t)ev->iter, "phase",
                      phase_name(ev->phase));
        if (ev->type == WEV_PHASE_END && ev->a > 0)
            json_object_set_new(o, ev->phase == PH_COMPUTE ? "flops" : "bytes", json_real(ev->a));
        if (ev->type == WEV_PHASE_END && ev->phase == PH_COMPUTE && s->running && ev->run == s->run && rank >= 0 &&
            rank < s->nranks && s->rs.rank[rank].open_t[PH_COMPUTE])
            faultlog_compute(s, ev, (double)(ev->t_ns - s->rs.rank[rank].open_t[PH_COMPUTE]) * 1e-9);
        break;
    case WEV_ITER:
        type = "iteration";
        o = json_pack("{s:i, s:i, s:I, s:f}", "rank", rank, "run", ev->run, "iter", (json_int_t)ev->iter, "dur_s",
                      ev->a);
        if (s->running)
            faultlog_iteration(s, ev);
        break;
    case WEV_RUN_DONE:
        type = "rank_done";
        o = json_pack("{s:i, s:i}", "rank", rank, "run", ev->run);
        break;
    case WEV_STOPPED:
        type = "rank_stopped";
        o = json_pack("{s:i, s:i, s:I}", "rank", rank, "run", ev->run, "iter", (json_int_t)ev->iter);
        break;
    case WEV_FAULT: {
        struct fault_detail d = { .target = ev->target, .where = ev->where, .format = ev->format, .element = ev->elem,
                                  .mask = ev->mask, .old_v = ev->c, .new_v = ev->d, .scale = ev->scale };
        o = json_pack("{s:s, s:i, s:i, s:I, s:s, s:b}", "kind", fault_table[s->sc->faults[ev->phase].kind]->name, "rank",
                      rank, "fault_spec", ev->phase, "iter", (json_int_t)ev->iter, "what", ev->note, "done", ev->b >= 0);
        if (ev->b >= 0 && s->running) {
            json_object_set_new(o, "id", json_integer(s->n_faults));   /* the record faultlog_injected adds */
            faultlog_injected(s, ev);
        }
        faultlog_detail(o, &d);
        results_event(&s->res, ev->t_ns, "fault_injected", o);
        return;
    }
    case WEV_DETECT:
        results_event(&s->res, ev->t_ns, "detector_fired",
                      json_pack("{s:s, s:i, s:I, s:o, s:o, s:s}", "detector", detector_table[ev->phase]->name, "rank", rank,
                                "iter", (json_int_t)ev->iter, "measure", json_num(ev->a), "limit", json_num(ev->b),
                                "note", ev->note));
        if (s->running && ev->run == s->run)
            faultlog_detect(s, ev->phase, rank, ev->iter, ev->t_ns, ev->note, 1);
        return;
    case WEV_FPRINT:
        if (s->running)
            faultlog_fingerprint(s, ev);
        return;
    case WEV_RESTORED:
        type = "state_restored";
        o = json_pack("{s:i, s:I, s:f, s:f, s:s}", "rank", rank, "iter", (json_int_t)ev->iter, "bytes", ev->a,
                      "seconds", ev->b, "from", ev->note);
        faultlog_restored(s, ev);
        break;
    case WEV_TUNED:
        type = "mitigation_tuned";
        o = json_pack("{s:i, s:i, s:f, s:f, s:s}", "rank", rank, "run", ev->run, "floor_w", ev->a, "duty", ev->b,
                      "levels", ev->note);
        break;
    case WEV_CKPT_WRITTEN:
        type = "checkpoint_written";
        o = json_pack("{s:i, s:I, s:f, s:f}", "rank", rank, "iter", (json_int_t)ev->iter, "bytes", ev->a, "seconds", ev->b);
        break;
    case WEV_DETCOST:
        if (ev->phase >= 0 && ev->phase < DET_COUNT)
            s->detcost[ev->phase] += ev->a;
        return;
    case WEV_ERROR: {
        char msg[400];
        type = "worker_error";
        o = json_pack("{s:i, s:s}", "rank", rank, "error", c->error);
        snprintf(msg, sizeof msg, "rank %d failed: %s", rank, c->error);
        results_event(&s->res, ev->t_ns, type, o);
        s->expect_exit[slot] = 1;   /* its exit follows; the failure is this */
        if ((int)ev->a == EXIT_ENV)   /* the machine's fault (a checkpoint write failed, no device): exit 3 */
            s->io_failed = 1;
        sup_fail(s, msg);
        return;
    }
    default:
        return;
    }
    if (s->running && ev->run == s->run)
        runstats_event(&s->rs, ev);
    results_event(&s->res, ev->t_ns, type, o);
}

/* Drains every slot's event ring. */
void sup_drain(struct sup *s)
{
    struct wevent ev;
    for (int k = 0; k < s->nslots; k++)
        while (ring_pop(&shm_ctl(&s->shm, k)->evt, &ev))
            sup_event(s, k, &ev);
}

/* Describes a wait status: "exit code 3" or "signal 9 (Killed)". */
static void sup_status_text(int status, char *out, size_t n)
{
    if (WIFEXITED(status))
        snprintf(out, n, "exit code %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(out, n, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(out, n, "status 0x%x", status);
}

/* Reaps every exited worker; an exit nobody asked for is a failure (detector exit). */
void sup_reap(struct sup *s)
{
    int status;
    pid_t p;
    for (;;) {
        siginfo_t si = { 0 };   /* look first, without reaping: the pid cannot be reused until it is reaped */
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid <= 0)
            break;
        p = si.si_pid;
        int k;
        for (k = 0; k < s->nslots && s->pid[k] != p; k++)
            ;
        if (k < s->nslots)   /* nobody signals this pid from now on (node_crash reads it) */
            __atomic_store_n(&shm_ctl(&s->shm, k)->pid, 0, __ATOMIC_RELEASE);
        if (waitpid(p, &status, 0) != p)
            continue;
        if (k == s->nslots)
            continue;
        s->pid[k] = 0;
        s->alive[k] = 0;
        s->ready[k] = 0;
        uint64_t now = mono_ns();
        sup_drain(s);   /* its last events first */
        char st[96], msg[256];
        sup_status_text(status, st, sizeof st);
        int rank = atomic_load(&shm_ctl(&s->shm, k)->rank);
        int expected = s->expect_exit[k] || (s->stopping && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        int64_t iter = atomic_load(&shm_ctl(&s->shm, k)->iter);
        results_event(&s->res, now, expected ? "worker_exit" : "worker_died",
                      json_pack("{s:i, s:i, s:i, s:s, s:I}", "rank", rank, "slot", k, "pid", (int)p, "status", st, "iter",
                                (json_int_t)iter));
        s->expect_exit[k] = 0;
        if (expected || s->stopping)
            continue;
        if (s->running && rank >= 0 && !s->failed) {
            snprintf(msg, sizeof msg, "process died: %s", st);
            faultlog_detect(s, DET_EXIT, rank, iter, now, msg, 1);
        } else if (rank < 0 && s->running) {   /* a spare that dies is a spare less (a node crash takes it too) */
            results_event(&s->res, now, "spare_lost", json_pack("{s:i, s:s}", "slot", k, "status", st));
        } else if (!s->failed) {
            snprintf(msg, sizeof msg, "%s %d (pid %d) died: %s", rank >= 0 ? "rank" : "spare slot", rank >= 0 ? rank : k,
                     (int)p, st);
            sup_fail(s, msg);
        }
    }
}

