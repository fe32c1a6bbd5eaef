/* harness/supervisor/supevents.c: what comes back from the workers — their events, drained from each ring into
 * events.jsonl and the run's figures, each handed to the hooks (the fault ledger) — and their exits, reaped. */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "detectors/detector.h"
#include "plugin.h"
#include "sup.h"
#include "util.h"

/* Writes one worker event (from slot) into events.jsonl and the run's figures. */
static void sup_event(struct sup *s, int slot, const struct wevent *ev)
{
    json_t *o = NULL;
    const char *type = NULL;
    struct ctl *c = shm_ctl(&s->shm, slot);
    int rank = ev->rank;
    for (int h = 0; h < s->n_hooks; h++)   /* a report of a timeline a recovery abandoned */
        if (s->hooks[h]->stale && s->hooks[h]->stale(s, ev))
            return;
    switch (ev->type) {
    case WEV_READY:
        s->ready[slot] = 1;
        s->ready_of[slot] = s->spawn_ns[slot];
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
        if (ev->type == WEV_PHASE_END && ev->phase == PH_COMM && ev->b > 0)   /* a step of phases: its bus bytes */
            json_object_set_new(o, "bus_bytes", json_real(ev->b));
        if (ev->phase == PH_COMM && ev->elem >= 0 && ev->elem < ST_COUNT)   /* which collective */
            json_object_set_new(o, "kind", json_string(step_kind_name((int)ev->elem)));
        break;
    case WEV_ITER:
        if (ev->run == s->run)
            sup_checked(s, rank, ev->iter);
        type = "iteration";
        o = json_pack("{s:i, s:i, s:I, s:f}", "rank", rank, "run", ev->run, "iter", (json_int_t)ev->iter, "dur_s",
                      ev->a);
        break;
    case WEV_RUN_DONE:
        type = "rank_done";
        o = json_pack("{s:i, s:i}", "rank", rank, "run", ev->run);
        break;
    case WEV_STOPPED:
        type = "rank_stopped";
        o = json_pack("{s:i, s:i, s:I}", "rank", rank, "run", ev->run, "iter", (json_int_t)ev->iter);
        break;
    case WEV_FAULT:     /* the fault ledger's to record (fault_injected), and a detector's finding, */
    case WEV_DETECT:    /* a fingerprint, a detector's cost */
    case WEV_FPRINT:
    case WEV_DETCOST:
        SUP_HOOKS(s, report, (s, slot, ev, NULL));
        return;
    case WEV_RESTORED:
        type = "state_restored";
        o = json_pack("{s:i, s:I, s:f, s:f, s:s}", "rank", rank, "iter", (json_int_t)ev->iter, "bytes", ev->a,
                      "seconds", ev->b, "from", ev->note);
        break;
    case WEV_GEMM_ALGO:
        type = "gemm_algo";
        o = json_pack("{s:i, s:s, s:I, s:i, s:o, s:o}", "rank", rank, "gemm", ev->note, "candidates", (json_int_t)ev->iter,
                      "chosen", ev->phase, "tflops", isfinite(ev->a) ? json_real(ev->a) : json_null(), "heuristic_tflops",
                      isfinite(ev->b) ? json_real(ev->b) : json_null());
        break;
    case WEV_TUNED:
        type = "mitigation_tuned";
        o = json_pack("{s:i, s:i, s:f, s:f, s:s}", "rank", rank, "run", ev->run, "floor_w", ev->a, "duty", ev->b,
                      "levels", ev->note);
        if (strstr(ev->note, "unreachable") || strstr(ev->note, "raised") || strstr(ev->note, "does not rise") ||
            strstr(ev->note, "no filler"))
            gl_log("rank %d, run %d: %s", rank, ev->run + 1, ev->note);   /* what the mitigation cannot do, said at once */
        break;
    case WEV_CKPT_WRITTEN:
        type = "checkpoint_written";
        o = json_pack("{s:i, s:I, s:f, s:f}", "rank", rank, "iter", (json_int_t)ev->iter, "bytes", ev->a, "seconds", ev->b);
        break;
    case WEV_ERROR: {
        char msg[400];
        type = "worker_error";
        o = json_pack("{s:i, s:o}", "rank", rank, "error", results_text(c->error));   /* the worker's text: any bytes */
        snprintf(msg, sizeof msg, "rank %d failed: %s", rank, c->error);
        results_event(&s->res, ev->t_ns, type, o);
        s->expect_exit[slot] = 1;   /* its exit follows; the failure is this */
        if ((int)ev->a == EXIT_ENV)   /* the machine's fault (a checkpoint write failed, no device): exit 3 */
            s->io_failed = 1;
        sup_fail(s, (int)ev->a == EXIT_ENV ? SUP_STOP_ENVIRONMENT : SUP_STOP_WORKER_ERROR, msg);
        return;
    }
    default:
        return;
    }
    SUP_HOOKS(s, report, (s, slot, ev, o));   /* before the record: what the hooks find is written after it */
    if (s->running && ev->run == s->run)
        runstats_event(&s->rs, ev);
    results_event(&s->res, ev->t_ns, type, o);
}

/* Drains every slot's event ring, and says the records a ring dropped (a worker drops only a phase edge, and only
 * where its room for an iteration fell short: worker_events.c): the first drop of a worker at once, then each time
 * the count has doubled; summary.json's events_dropped counts them all. */
void sup_drain(struct sup *s)
{
    struct wevent ev;
    for (int k = 0; k < s->nslots; k++) {
        struct ctl *c = shm_ctl(&s->shm, k);
        while (ring_pop(&c->evt, &ev))
            sup_event(s, k, &ev);
        uint64_t dropped = atomic_load_explicit(&c->evt.dropped, memory_order_relaxed), said = s->evt_dropped_said[k];
        if (dropped > said && (said == 0 || dropped >= 2 * said)) {
            gl_log("rank %d (slot %d): %llu event(s) lost to a full event ring so far: its timeline and figures miss "
                   "them (summary.json events_dropped)", atomic_load(&c->rank), k, (unsigned long long)dropped);
            s->evt_dropped_said[k] = dropped;
        }
    }
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

/* Worker k died at now, as status text st says (exited: it ended by exit with code 0; sig: the signal that killed it,
 * or 0); an end nobody asked for is a failure (detector exit), one by the signal that is ending the job (a worker
 * ignores it, but a library may have taken it back) is the job's. via: how it was seen ("pipe": its death pipe,
 * before the reap; "reap"). */
static int sup_died(struct sup *s, int k, pid_t pid, uint64_t now, const char *st, int exited_ok, int sig,
                    const char *via)
{
    char msg[256];
    sup_drain(s);   /* its last events first */
    int rank = atomic_load(&shm_ctl(&s->shm, k)->rank);
    for (int d = 0; d < DET_COUNT; d++) {   /* the checks it made in this run and never reported (killed mid-run) */
        int64_t n = atomic_exchange(&shm_ctl(&s->shm, k)->checks[d], 0);
        if (n > 0 && s->running && rank >= 0 && rank < s->nranks)
            s->rs.rank[rank].sdc_checks[d] += n;
    }
    int expected = s->expect_exit[k] || (s->stopping && exited_ok) || (sig > 0 && sig == s->stop_signo);
    int64_t iter = atomic_load(&shm_ctl(&s->shm, k)->iter);
    results_event(&s->res, now, expected ? "worker_exit" : "worker_died",
                  json_pack("{s:i, s:i, s:i, s:s, s:I, s:s}", "rank", rank, "slot", k, "pid", (int)pid, "status", st,
                            "iter", (json_int_t)iter, "seen_by", via));
    s->expect_exit[k] = 0;
    if (expected || s->stopping)
        return !expected;
    if (s->running && rank >= 0 && !s->failed) {
        snprintf(msg, sizeof msg, "process died: %s", st);
        SUP_HOOKS(s, failure, (s, DET_EXIT, rank, iter, now, msg, 1));
    } else if (rank < 0 && s->running) {   /* a spare that dies is a spare less (a node crash takes it too) */
        results_event(&s->res, now, "spare_lost", json_pack("{s:i, s:s}", "slot", k, "status", st));
    } else if (!s->failed) {
        snprintf(msg, sizeof msg, "%s %d (pid %d) died: %s", rank >= 0 ? "rank" : "spare slot", rank >= 0 ? rank : k,
                 (int)pid, st);
        sup_fail(s, SUP_STOP_WORKER_DIED, msg);
    }
    return 1;
}

/* Field `field` of /proc/PID/stat (1-based, as proc(5) counts) into *v: 1, or 0 when it cannot be read. */
static int sup_proc_field(pid_t pid, int field, unsigned long long *v)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_small(path, buf, sizeof buf) < 0)
        return 0;
    char *p = strrchr(buf, ')'), *save = NULL;   /* past the command's name, which may hold spaces */
    int at = 2;
    for (char *tok = p ? strtok_r(p + 1, " \n", &save) : NULL; tok; tok = strtok_r(NULL, " \n", &save))
        if (++at == field) {
            *v = strtoull(tok, NULL, 10);
            return 1;
        }
    return 0;
}

/* The wait status of pid while it is still ending (/proc/PID/stat's exit_code, set when its exit begins): 1 with
 * *status, or 0 when it cannot be read or is not set yet. */
static int sup_proc_status(pid_t pid, int *status)
{
    unsigned long long v = 0;
    if (!sup_proc_field(pid, 52, &v) || v == 0)
        return 0;
    *status = (int)v;
    return 1;
}

int sup_proc_exiting(pid_t pid)
{
    unsigned long long flags = 0;   /* field 9: the kernel's PF_* word */
    return sup_proc_field(pid, 9, &flags) && (flags & SUP_PF_EXITING) != 0;
}

void sup_proc_describe(pid_t pid, char *buf, size_t n)
{
    char path[64], stat[1024], wchan[128] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    const char *p = read_small(path, stat, sizeof stat) < 0 ? NULL : strrchr(stat, ')');
    if (!p || p[1] != ' ' || !p[2]) {
        snprintf(buf, n, "no /proc entry (it has ended)");
        return;
    }
    static const struct { char c; const char *what; } states[] = {
        { 'R', "running" }, { 'S', "sleeping" }, { 'D', "uninterruptible sleep: it ends only when the kernel call returns" },
        { 'Z', "zombie: ended, not yet reaped" }, { 'T', "stopped" }, { 't', "stopped by a tracer" }, { 'X', "dead" },
        { 'I', "idle" }, { 'P', "parked" },
    };
    const char *what = "unknown state";
    for (size_t i = 0; i < ARRAY_LEN(states); i++)
        if (states[i].c == p[2])
            what = states[i].what;
    snprintf(path, sizeof path, "/proc/%d/wchan", (int)pid);
    if (read_small(path, wchan, sizeof wchan) <= 0 || strcmp(wchan, "0") == 0)
        wchan[0] = 0;
    snprintf(buf, n, "state %c (%s)%s%s%s", p[2], what, wchan[0] ? ", waiting in " : "", wchan,
             sup_proc_exiting(pid) ? "; it is exiting (the kernel is taking its memory down)" : "");
}

/* sup_death_pipe; reaped: the wait status when the process is already reaped (its /proc entry gone), else NULL. */
static void sup_death_word(struct sup *s, int k, const int *reaped)
{
    unsigned char note[2] = { 0 };
    ssize_t got = 0;
    int ended = 0;
    for (int j = 0; j < 2; j++) {   /* either pipe: a word read, or its end (the worker's files closing) */
        int fd = s->deathfd[2 * k + j];
        unsigned char buf[2];
        ssize_t r;
        while (fd >= 0 && (r = read(fd, buf, sizeof buf)) < 0 && errno == EINTR)
            ;
        if (fd < 0 || (r < 0 && errno == EAGAIN))
            continue;   /* nothing yet (the two bytes of a word come together: they fit one pipe write) */
        ended = 1;
        if (r == 2 && !got) {
            memcpy(note, buf, 2);
            got = 2;
        }
    }
    if (!ended)
        return;
    uint64_t now = mono_ns();
    for (int j = 0; j < 2; j++) {
        if (s->deathfd[2 * k + j] >= 0)
            close(s->deathfd[2 * k + j]);
        s->deathfd[2 * k + j] = -1;
    }
    if (!s->alive[k])
        return;
    char st[96];
    int exited_ok = 0, sig = 0;
    if (got == 2 && note[0] == 'S') {
        snprintf(st, sizeof st, "signal %d (%s)", note[1], strsignal(note[1]));
        sig = note[1];
    } else if (got == 2 && note[0] == 'E') {
        snprintf(st, sizeof st, "exit code %d", note[1]);
        exited_ok = note[1] == 0;
    } else {   /* no word: SIGKILL, or a signal it does not catch; the kernel knows which once the exit began */
        int status;
        if (reaped || sup_proc_status(s->pid[k], &status)) {
            if (reaped)
                status = *reaped;
            sup_status_text(status, st, sizeof st);
            sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        } else
            snprintf(st, sizeof st, "killed (no last word: SIGKILL or an uncaught signal)");
    }
    pid_t pid = s->pid[k];
    int unasked = sup_died(s, k, pid, now, st, exited_ok, sig, "pipe");
    if (s->pid[k] != pid || s->deathfd[2 * k] >= 0)
        return;   /* the slot already has a new worker (its process is another) */
    s->death_ns[k] = now;
    s->death_unasked[k] = unasked;
    s->expect_exit[k] = 1;   /* the reap that follows only records the status and how long the ending took */
}

void sup_death_pipe(struct sup *s, int k) { sup_death_word(s, k, NULL); }

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
        uint64_t now = mono_ns();
        char st[96];
        sup_status_text(status, st, sizeof st);
        if (s->deathfd[2 * k] >= 0 || s->deathfd[2 * k + 1] >= 0) {   /* the pipes not yet read: their word first */
            sup_death_word(s, k, &status);
            for (int j = 0; j < 2; j++)
                if (s->deathfd[2 * k + j] >= 0) {
                    close(s->deathfd[2 * k + j]);
                    s->deathfd[2 * k + j] = -1;
                }
        }
        int piped = s->death_ns[k] != 0;
        if (piped && s->death_unasked[k])   /* a failure seen through its pipe: the real status, how long it took to end */
            results_event(&s->res, now, "worker_reaped",
                          json_pack("{s:i, s:i, s:s, s:f}", "slot", k, "pid", (int)p, "status", st, "ending_s",
                                    (double)(now - s->death_ns[k]) * 1e-9));
        if (piped) {
            s->death_ns[k] = 0;
            s->expect_exit[k] = 0;
        }
        s->pid[k] = 0;
        s->alive[k] = 0;
        s->ready[k] = 0;
        if (!piped)
            sup_died(s, k, p, now, st, WIFEXITED(status) && WEXITSTATUS(status) == 0,
                     WIFSIGNALED(status) ? WTERMSIG(status) : 0, "reap");
    }
}

