/* harness/supervisor/supervisor.c: the supervisor's one event loop (see sup.h). Signals arrive through a
 * signalfd, sampling through a timerfd; worker events are drained from their rings on every wake. */
#include "sup.h"

#include <errno.h>
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
#include "util.h"

sigset_t sup_oldmask;   /* the mask before supervisor_block_signals, restored in each worker */
int sup_first_stop_signo;

void sup_fail(struct sup *s, const char *stop, const char *reason)
{
    if (!s->stop)
        s->stop = stop;
    if (!s->failed) {
        s->failed = 1;
        str_copy(s->reason, sizeof s->reason, reason);
        gl_log("%s", reason);
        SUP_HOOKS(s, fail, (s, reason));   /* several nodes: the run ends on every node */
    }
    s->stopping = 1;
    shm_abort(&s->shm);
}

const char *sup_stop_code(const struct sup *s, int code)
{
    if (s->stop)
        return s->stop;
    return code == 0 ? SUP_STOP_COMPLETED : s->io_failed ? SUP_STOP_RESULTS : "failed";
}

/* Samples every rank's power once and appends the rows. */
static void sup_sample(struct sup *s, uint64_t now)
{
    for (int r = 0; r < s->nranks; r++) {
        struct power_reading pr;
        if (s->ops->power_read(s->ps, s->slot_of[r], now, &pr) != 0)
            pr = POWER_READING_NONE;
        s->watts[r] = pr.watts;
        s->energy_j[r] = pr.energy_j;
        s->true_w[r] = pr.true_w;
        s->sample_ns[r] = pr.sample_ns;
        if (isfinite(pr.watts) && pr.watts >= 0) {   /* for a worker tuning its mitigation against real power */
            ctl_publish_reading(shm_ctl(&s->shm, s->slot_of[r]), pr.watts, pr.energy_j, now);
            struct ctl *c = shm_ctl(&s->shm, s->slot_of[r]);
            for (int i = 0; i < pr.nbuf; i++)   /* the driver's buffer: every new sample with its own time */
                if (pr.buf_ns[i])
                    ctl_publish_sample(c, pr.buf_ns[i], pr.buf_w[i]);
            if (!pr.nbuf && !pr.unstamped)   /* else the reading itself, at the time it stands for */
                ctl_publish_sample(c, pr.sample_ns ? pr.sample_ns : now, pr.watts);
        }
        results_power(&s->res, now, r, &pr,
                      atomic_load_explicit(&shm_ctl(&s->shm, s->slot_of[r])->phase, memory_order_relaxed));
    }
    int real = !s->ops->modelled;   /* a modelled spare has no power to read (and no tuning) */
    for (int k = s->nranks; real && k < s->nslots; k++) {   /* spares: not in the results; their GPU mitigation tunes */
        struct power_reading pr;
        struct ctl *c = shm_ctl(&s->shm, k);
        if (atomic_load(&c->rank) < 0 && s->ops->power_read(s->ps, k, now, &pr) == 0 && isfinite(pr.watts) && pr.watts >= 0) {
            ctl_publish_reading(c, pr.watts, pr.energy_j, now);
        }
    }
    if (s->running)
        runstats_power(&s->rs, now, s->watts, s->energy_j, s->ops->modelled ? s->true_w : NULL, s->sample_ns);
    results_flush(&s->res);
    s->samples++;
}

#define SUP_STALL_NS 50000000ull   /* a check this much later than the one before: the supervisor was descheduled */

/* The supervisor's own stalls since t (ns): what of a worker's silence since t the supervisor itself was away for. */
static uint64_t sup_late_since(const struct sup *s, uint64_t t)
{
    uint64_t before = 0;   /* late_total_ns as it stood at t: the last stall that ended by then */
    int found = 0;
    for (int i = 0; i < s->late_n; i++) {
        int j = (s->late_next - 1 - i + SUP_STALLS) % SUP_STALLS;   /* newest first */
        if (s->late_t[j] <= t) {
            before = s->late_cum[j];
            found = 1;
            break;
        }
    }
    if (!found && s->late_n == SUP_STALLS)   /* older than the ring: count from its oldest (the least excused) */
        before = s->late_cum[s->late_next];
    return s->late_total_ns - before;
}

double sup_silence_limit(struct sup *s, int slot)
{
    if (!s->ready[slot])
        return s->sc->heartbeat.startup_s;
    int ph = atomic_load_explicit(&shm_ctl(&s->shm, slot)->phase, memory_order_acquire);
    if (ph == PH_CKPT && s->sc->heartbeat.checkpoint_s > s->sc->heartbeat.timeout_s)
        return s->sc->heartbeat.checkpoint_s;
    return s->sc->heartbeat.timeout_s;
}

/* Reports a rank whose heartbeat is older than its timeout as hung (detector heartbeat). The silence is judged less
 * the supervisor's own stalls over it: on a machine busy with other work a supervisor that was descheduled for 3 s
 * finds every worker 3 s silent, and that is not their hang. */
static void sup_check_heartbeats(struct sup *s, uint64_t now)
{
    if (s->hb_prev_ns && now > s->hb_prev_ns + SUP_STALL_NS) {
        s->late_total_ns += now - s->hb_prev_ns - 10000000ull;   /* beyond the loop's own 10 ms */
        s->late_t[s->late_next] = now;
        s->late_cum[s->late_next] = s->late_total_ns;
        s->late_next = (s->late_next + 1) % SUP_STALLS;
        s->late_n += s->late_n < SUP_STALLS;
    }
    s->hb_prev_ns = now;
    for (int k = 0; k < s->nslots; k++) {
        if (!s->alive[k] || s->expect_exit[k])
            continue;
        /* the phase before the heartbeat: a worker beats before it changes its phase (worker_edge), so a phase read
         * here is never newer than the beat read after it (a rank just out of a checkpoint is not judged on the beat
         * from before it against heartbeat.timeout) */
        double limit = sup_silence_limit(s, k);
        uint64_t hb = atomic_load_explicit(&shm_ctl(&s->shm, k)->heartbeat_ns, memory_order_acquire);
        if (!hb)
            hb = s->t0;
        double age = now > hb ? (double)(now - hb) * 1e-9 : 0;
        if (age <= limit || age - (double)sup_late_since(s, hb) * 1e-9 <= limit)
            continue;
        char msg[256];
        int rank = atomic_load(&shm_ctl(&s->shm, k)->rank);
        int64_t iter = atomic_load(&shm_ctl(&s->shm, k)->iter);
        int ckpt = s->ready[k] && limit != s->sc->heartbeat.timeout_s;
        snprintf(msg, sizeof msg, "rank %d is hung: no heartbeat for %.2f s (timeout %.2f s%s)", rank, age, limit,
                 !s->ready[k] ? ", still starting" : ckpt ? ", writing a checkpoint" : "");
        results_event(&s->res, now, "hang",
                      json_pack("{s:i, s:f, s:f, s:I}", "rank", rank, "silent_s", age, "timeout_s", limit, "iter",
                                (json_int_t)iter));
        if (s->running && s->ready[k] && rank >= 0) {
            SUP_HOOKS(s, failure, (s, DET_HEARTBEAT, rank, iter, now, msg, 2));
        } else {
            sup_fail(s, SUP_STOP_HANG, msg);
            sup_kill(s, k);
        }
    }
}

#define SUP_END_LOST_MIN_S 10.0   /* sup_check_ends waits at least this long (heartbeat.timeout, when longer) */

/* A rank of the run in progress that sits idle with nothing left to read — no command for it, no event from it —
 * without its end (rank_done, or a stop at the skip boundary) received would hold the run's wait (run.c) for ever: an
 * end lost on the way. A worker never drops one (worker_events.c); this is the guard. Once so for longer than
 * heartbeat.timeout (at least SUP_END_LOST_MIN_S: a worker that has just taken its run command is still idle for a
 * moment), less the supervisor's own stalls, the run fails, saying so. */
static void sup_check_ends(struct sup *s, uint64_t now)
{
    double limit = s->sc->heartbeat.timeout_s > SUP_END_LOST_MIN_S ? s->sc->heartbeat.timeout_s : SUP_END_LOST_MIN_S;
    if (!s->running || s->stopping || s->recovering)
        return;
    for (int r = 0; r < s->nranks; r++) {
        int k = s->slot_of[r];
        struct ctl *c = shm_ctl(&s->shm, k);
        /* the state first: an end the worker pushed before it went idle is then in its ring, or already read */
        int idle = atomic_load(&c->state) == WS_IDLE;
        if (!(idle && !s->dropped[r] && s->alive[k] && s->ready[k] && !s->expect_exit[k] &&
              ring_count(&c->cmd) == 0 && ring_count(&c->evt) == 0 && !s->rs.rank[r].done && !s->rs.rank[r].stopped)) {
            s->end_lost_ns[r] = 0;
            continue;
        }
        if (!s->end_lost_ns[r])
            s->end_lost_ns[r] = now;
        double age = (double)(now - s->end_lost_ns[r]) * 1e-9 - (double)sup_late_since(s, s->end_lost_ns[r]) * 1e-9;
        if (age <= limit)
            continue;
        char msg[320];
        snprintf(msg, sizeof msg, "rank %d has been idle for %.1f s without its run's end reaching the supervisor (%llu of "
                 "its events dropped): the run cannot complete", r, age,
                 (unsigned long long)atomic_load(&c->evt.dropped));
        sup_fail(s, SUP_STOP_HANG, msg);
        return;
    }
}

/* Handles the signals that arrived: SIGINT/SIGTERM/SIGHUP stop the run (a second one kills); SIGCHLD is taken, the
 * reap is sup_step's, after the death pipes (whose word comes first, and which read a dying process's /proc). */
static void sup_signals(struct sup *s)
{
    struct signalfd_siginfo si;
    while (read(s->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD)
            continue;
        s->signals++;
        if (!s->stop_signo)
            s->stop_signo = (int)si.ssi_signo;
        if (!sup_first_stop_signo)
            sup_first_stop_signo = (int)si.ssi_signo;
        results_event(&s->res, mono_ns(), "interrupted",
                      json_pack("{s:s, s:i}", "signal", strsignal((int)si.ssi_signo), "count", s->signals));
        if (!s->stopping) {
            char msg[128];
            snprintf(msg, sizeof msg, "stopped by %s: stopping the workers, writing the summary",
                     strsignal((int)si.ssi_signo));
            gl_log("%s", msg);
            if (!s->reason[0])
                str_copy(s->reason, sizeof s->reason, msg);
            if (!s->stop)
                s->stop = SUP_STOP_SIGNAL;
            s->stopping = 1;
            shm_abort(&s->shm);
            SUP_HOOKS(s, fail, (s, msg));   /* several nodes: the others stop too */
        } else {
            for (int k = 0; k < s->nslots; k++)
                sup_kill(s, k);
        }
    }
}

void sup_step(struct sup *s)
{
    /* the signals, the sampling timer, and every worker's death pipe: a death wakes this loop the moment the worker
     * dies, not when its process has finished ending (a GPU context's teardown takes 100 ms) */
    int nd = 2 * s->nslots;
    struct pollfd stack[2 + 128], *pfd = nd <= 128 ? stack : xmalloc((size_t)(2 + nd) * sizeof *pfd);
    pfd[0] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
    pfd[1] = (struct pollfd){ .fd = s->timerfd, .events = POLLIN };
    for (int j = 0; j < nd; j++)   /* a negative fd is skipped by poll */
        pfd[2 + j] = (struct pollfd){ .fd = s->deathfd[j], .events = POLLIN };
    if (poll(pfd, (nfds_t)(2 + nd), 10) < 0 && errno != EINTR)
        SYSERR("poll");
    if (pfd[0].revents & POLLIN)   /* first: a death that came with the job's own end is judged as that */
        sup_signals(s);
    for (int j = 0; j < nd; j++)
        if (s->deathfd[j] >= 0 && (pfd[2 + j].revents & (POLLIN | POLLHUP | POLLERR)))
            sup_death_pipe(s, j / 2);
    sup_reap(s);   /* also without SIGCHLD: cheap, and proof against a signal taken by a library's thread */
    sup_drain(s);
    uint64_t now = mono_ns();
    if (pfd[1].revents & POLLIN) {
        uint64_t ticks;
        if (read(s->timerfd, &ticks, sizeof ticks) == (ssize_t)sizeof ticks)
            sup_sample(s, now);
    }
    if (pfd != stack)
        free(pfd);
    SUP_HOOKS(s, poll, (s));   /* the other nodes' messages; the view's commands */
    if (s->stopping || s->recovering)
        s->hb_prev_ns = 0;   /* no check meanwhile: the gap to the next is no stall of the supervisor's */
    else {
        sup_check_heartbeats(s, now);
        sup_check_ends(s, now);
        if (s->running)
            SUP_HOOKS(s, tick, (s, now));   /* timed faults */
    }
    SUP_HOOKS(s, act, (s));   /* every ring drained: the failures found meanwhile; the recovery under way, one step */
    if (results_failed(&s->res) && !s->failed) {   /* a results file that cannot be written ends the run at once */
        s->io_failed = 1;
        sup_fail(s, SUP_STOP_RESULTS, results_failed(&s->res));
    }
}

/* Returns the number of workers still alive. */
static int sup_alive(const struct sup *s)
{
    int n = 0;
    for (int k = 0; k < s->nslots; k++)
        n += s->alive[k];
    return n;
}

void sup_command(struct sup *s, const struct wcmd *cmd)
{
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r])
            sup_send(s, s->slot_of[r], cmd);
}

int sup_wait_ready(struct sup *s, double timeout_s)
{
    uint64_t end = mono_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        int waiting = 0;
        for (int k = 0; k < s->nslots; k++)
            waiting += s->alive[k] && !s->ready[k];
        if (!waiting)
            return 0;
        if (s->stopping || mono_ns() > end)
            return -1;
        sup_step(s);
    }
}

/* The workers still there SUP_KILL_WAIT_S after their SIGKILL (SUP_EXIT_WAIT_S where they have begun to exit): said,
 * and left behind (they end when the kernel lets them; PDEATHSIG is spent). Returns how many. */
static int sup_leave_unended(struct sup *s, uint64_t now)
{
    int left = 0;
    for (int k = 0; k < s->nslots; k++) {
        double ago = s->alive[k] && s->kill_ns[k] && now >= s->kill_ns[k] ? (double)(now - s->kill_ns[k]) * 1e-9 : 0;
        if (!s->alive[k] || !s->kill_ns[k] || ago <= SUP_KILL_WAIT_S || (ago <= SUP_EXIT_WAIT_S && sup_proc_exiting(s->pid[k])))
            continue;   /* not yet past the bound, or exiting: it will end */
        char proc[256], msg[512];
        int rank = atomic_load(&shm_ctl(&s->shm, k)->rank);
        sup_proc_describe(s->pid[k], proc, sizeof proc);
        snprintf(msg, sizeof msg, "rank %d's worker (slot %d, pid %d) has not ended %.1f s after SIGKILL: %s; left behind",
                 rank, k, (int)s->pid[k], ago, proc);
        results_event(&s->res, now, "worker_not_ended",
                      json_pack("{s:i, s:i, s:i, s:f, s:s}", "rank", rank, "slot", k, "pid", (int)s->pid[k], "killed_s",
                                ago, "proc", proc));
        if (!s->failed)
            s->io_failed = 1;   /* the machine's doing: exit 3, unless the run had already failed otherwise */
        sup_fail(s, SUP_STOP_ENVIRONMENT, msg);
        if (s->reason[0] && strcmp(s->reason, msg) != 0)
            gl_log("%s", msg);   /* sup_fail logs only the first reason */
        s->alive[k] = 0;   /* its pid stays: a reap that comes yet finds it expected (expect_exit) */
        left++;
    }
    return left;
}

void sup_stop_workers(struct sup *s)
{
    struct wcmd cmd = { .type = CMD_EXIT };
    s->stopping = 1;
    for (int k = 0; k < s->nslots; k++)
        sup_send(s, k, &cmd);
    uint64_t t = mono_ns();
    while (sup_alive(s)) {
        sup_step(s);
        uint64_t now = mono_ns();
        if ((double)(now - t) * 1e-9 <= SUP_EXIT_CMD_WAIT_S)
            continue;
        /* a worker ignores SIGTERM (sup_spawn): SIGKILL, ended by the supervisor at its end (worker_exit, not
         * worker_died); again each wake: cheap, and the first one's time is kept */
        for (int k = 0; k < s->nslots; k++)
            sup_kill(s, k);
        sup_leave_unended(s, now);   /* killed (now, or before this wait by a recovery) and still there past the bound */
    }
    sup_drain(s);
}

sigset_t sup_sigset(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

int sup_fds(struct sup *s)
{
    sigset_t set = sup_sigset();
    s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (s->sigfd < 0)
        return SYSERR("signalfd");
    s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->timerfd < 0)
        return SYSERR("timerfd_create");
    if (s->sc->power.sample_hz <= 0)
        return 0;   /* sampling off: the timer stays disarmed */
    double period = 1.0 / s->sc->power.sample_hz;
    long long period_ns = llround(period * 1e9);   /* 1 kHz: 1,000,000 ns, not 999,999 */
    struct itimerspec its = { .it_interval = { (time_t)(period_ns / 1000000000LL), (long)(period_ns % 1000000000LL) } };
    its.it_value = its.it_interval;
    if (timerfd_settime(s->timerfd, 0, &its, NULL) != 0)
        return SYSERR("timerfd_settime");
    return 0;
}

void sup_alloc(struct sup *s)
{
    s->pid = xcalloc((size_t)s->nslots, sizeof *s->pid);
    s->alive = xcalloc((size_t)s->nslots, sizeof *s->alive);
    s->ready = xcalloc((size_t)s->nslots, sizeof *s->ready);
    s->expect_exit = xcalloc((size_t)s->nslots, sizeof *s->expect_exit);
    s->deathfd = xmalloc(2 * (size_t)s->nslots * sizeof *s->deathfd);
    s->death_ns = xcalloc((size_t)s->nslots, sizeof *s->death_ns);
    s->spawn_ns = xcalloc((size_t)s->nslots, sizeof *s->spawn_ns);
    s->ready_of = xcalloc((size_t)s->nslots, sizeof *s->ready_of);
    s->kill_ns = xcalloc((size_t)s->nslots, sizeof *s->kill_ns);
    s->cmd_stuck = xcalloc((size_t)s->nslots, sizeof *s->cmd_stuck);
    s->death_unasked = xcalloc((size_t)s->nslots, sizeof *s->death_unasked);
    for (int j = 0; j < 2 * s->nslots; j++)
        s->deathfd[j] = -1;
    s->slot_of = xcalloc((size_t)s->nranks, sizeof *s->slot_of);
    s->dropped = xcalloc((size_t)s->nranks, sizeof *s->dropped);
    s->done_seen = xcalloc((size_t)s->nranks, sizeof *s->done_seen);
    s->check_cap = INT64_MAX;
    s->watts = xcalloc((size_t)s->nranks, sizeof *s->watts);
    s->energy_j = xcalloc((size_t)s->nranks, sizeof *s->energy_j);
    s->true_w = xcalloc((size_t)s->nranks, sizeof *s->true_w);
    s->sample_ns = xcalloc((size_t)s->nranks, sizeof *s->sample_ns);
    s->late_t = xcalloc(SUP_STALLS, sizeof *s->late_t);
    s->late_cum = xcalloc(SUP_STALLS, sizeof *s->late_cum);
    s->evt_dropped_said = xcalloc((size_t)s->nslots, sizeof *s->evt_dropped_said);
    s->end_lost_ns = xcalloc((size_t)s->nranks, sizeof *s->end_lost_ns);
    for (int r = 0; r < s->nranks; r++)
        s->slot_of[r] = r;
}

void sup_checked_reset(struct sup *s, int64_t at)
{
    for (int r = 0; r < s->nranks; r++)
        s->done_seen[r] = at;
    atomic_store(&s->shm.hdr->checked_done, at);
}

void sup_checked(struct sup *s, int rank, int64_t iter)
{
    if (rank < 0 || rank >= s->nranks || iter + 1 <= s->done_seen[rank])
        return;
    int64_t was = s->done_seen[rank], checked = atomic_load(&s->shm.hdr->checked_done);
    s->done_seen[rank] = iter + 1;
    if (was > checked)
        return;   /* not among the last: the least is unchanged */
    int64_t least = INT64_MAX;
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r] && s->done_seen[r] < least)
            least = s->done_seen[r];
    if (least > s->check_cap)   /* a failure waits to be acted on: the ranks' replicas of before it must stay */
        least = s->check_cap;
    if (least != INT64_MAX && least > checked)
        atomic_store(&s->shm.hdr->checked_done, least);
}

void sup_free(struct sup *s)
{
    if (s->sigfd >= 0)
        close(s->sigfd);
    if (s->timerfd >= 0)
        close(s->timerfd);
    s->sigfd = s->timerfd = -1;   /* the signals stay blocked: one that comes after the run is not a kill */
    for (int j = 0; s->deathfd && j < 2 * s->nslots; j++)
        if (s->deathfd[j] >= 0)
            close(s->deathfd[j]);
    void *bufs[] = { s->pid, s->alive, s->ready, s->expect_exit, s->deathfd, s->death_ns, s->death_unasked, s->slot_of, s->dropped, s->done_seen,
                     s->watts, s->energy_j, s->true_w, s->sample_ns, s->late_t, s->late_cum, s->spawn_ns, s->kill_ns,
                     s->cmd_stuck, s->ready_of, s->evt_dropped_said, s->end_lost_ns };
    for (size_t i = 0; i < ARRAY_LEN(bufs); i++)
        free(bufs[i]);
}
