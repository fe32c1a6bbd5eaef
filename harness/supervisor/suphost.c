/* harness/supervisor/suphost.c: the host interface of the recovery machine (recover.h): this node's worker processes —
 * start one, send it a command, kill it, and whether every one has stopped. The supervisor's loop uses the same
 * calls to start its runs. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "detectors/detector.h"
#include "sup.h"
#include "util.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1u << 2)   /* linux/close_range.h, Linux 5.11 */
#endif

/* Marks close-on-exec every descriptor from 3 up whose number is in /proc/self/fd (read with getdents64: no
 * allocation in a child of a process with threads); 0, or -1 when it cannot be read. */
static int host_cloexec_listed(void)
{
    int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    _Alignas(8) char buf[4096];   /* records of struct linux_dirent64, each 8-aligned */
    long n;
    while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0)
        for (long at = 0; at < n;) {
            struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
                (void *)(buf + at);
            int fd = 0, digits = 0;
            for (const char *p = d->name; *p >= '0' && *p <= '9'; p++, digits++)
                fd = fd * 10 + (*p - '0');
            if (digits && fd >= 3 && fd != dfd)
                (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
            at += d->reclen;
        }
    close(dfd);
    return n < 0 ? -1 : 0;
}

/* In a new worker, before its exec: every descriptor but 0-2 and the n of keep becomes close-on-exec, so that none
 * the supervisor inherited from its caller (a lock, the write end of a pipe the caller waits on for its end) reaches a
 * worker, which may outlive the supervisor (a worker left behind); until 2026-11-30 every such one crossed the exec.
 * close_range where the kernel has it, else /proc/self/fd, else every number up to the descriptor limit. 0, or -1. */
static int host_keep_only(const int *keep, int n)
{
    int done = 0;
#ifdef SYS_close_range
    done = syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0;
#endif
    if (!done && host_cloexec_listed() != 0) {
        struct rlimit rl;
        int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
        for (int fd = 3; fd < top; fd++)
            (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    for (int i = 0; i < n; i++)
        if (fcntl(keep[i], F_SETFD, 0) != 0)
            return -1;
    return 0;
}

/* Starts the worker of slot: fork, then exec this program as `__worker FD SLOT DEATHFD DEATHFD` (the control block,
 * the slot, the write ends of its death pipes: the only descriptors beside 0-2 it gets); it dies with us
 * (PDEATHSIG). */
int sup_spawn(struct sup *s, int slot)
{
    char fd[16], sl[16];
    struct ctl *c = shm_ctl(&s->shm, slot);
    snprintf(fd, sizeof fd, "%d", s->shm.fd);
    snprintf(sl, sizeof sl, "%d", slot);
    ring_init(&c->cmd, CMD_CAP, sizeof(struct wcmd));   /* a new process: nothing of the old one's remains */
    c->numa_node = -2;
    c->numa_pinned = -1;
    c->h2d_gbs = NAN;
    s->evt_dropped_gone += atomic_load(&c->evt.dropped);   /* the old process's drops stay counted */
    ring_init(&c->evt, EVT_CAP, sizeof(struct wevent));
    s->evt_dropped_said[slot] = 0;
    atomic_store(&c->heartbeat_ns, 0);
    atomic_store(&c->state, WS_STARTING);
    s->ready[slot] = 0;
    /* the death pipes: only the worker holds their write ends (the supervisor closes its copies at once; every other
     * descriptor of the supervisor's, its own and those it inherited, is close-on-exec in the worker: host_keep_only),
     * so each ends the moment the worker's files are closed */
    int dp[4];
    if (pipe2(dp, O_CLOEXEC | O_NONBLOCK) != 0)
        return SYSERR("pipe2(death pipe)");
    if (pipe2(dp + 2, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(dp[0]);
        close(dp[1]);
        return SYSERR("pipe2(death pipe)");
    }
    char dfd[2][16];
    pid_t p = fork();
    if (p < 0) {
        for (int i = 0; i < 4; i++)
            close(dp[i]);
        return SYSERR("fork");
    }
    if (p == 0) {
        sigprocmask(SIG_SETMASK, &sup_oldmask, NULL);
        /* the signals that end a whole job reach every process of it: the terminal's ^C and ^\ the foreground
         * group, a launcher's or a batch system's SIGTERM/SIGHUP the process group (timeout, systemd, Open MPI) or
         * every process of the job's cgroup (Slurm), and a worker they killed would be counted a crash. The
         * supervisor stops its workers in order (EXIT, then SIGKILL): ignored across the exec. A worker still dies
         * with the supervisor (PDEATHSIG) */
        static const int job_sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
        for (size_t i = 0; i < ARRAY_LEN(job_sigs); i++)
            if (signal(job_sigs[i], SIG_IGN) == SIG_ERR)
                _exit(EXIT_ENV);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != s->shm.hdr->supervisor_pid)
            _exit(EXIT_ENV);
        int keep[3] = { s->shm.fd };
        for (int i = 0; i < 2; i++) {
            int w = fcntl(dp[1 + 2 * i], F_DUPFD, 3);   /* without O_CLOEXEC: it crosses the exec; blocking writes */
            if (w < 0 || fcntl(w, F_SETFL, 0) != 0)
                _exit(EXIT_ENV);
            snprintf(dfd[i], sizeof dfd[i], "%d", w);
            keep[1 + i] = w;
        }
        if (host_keep_only(keep, 3) != 0)   /* the control block and the death pipes cross the exec, nothing else */
            _exit(EXIT_ENV);
        /* the binary this process runs, even where its file was rebuilt or removed since the run began (until
         * 2026-11-30 the path: a restart then ran another build, or none); the path where there is no /proc */
        execl("/proc/self/exe", "gauntlet", "__worker", fd, sl, dfd[0], dfd[1], (char *)NULL);
        execl(s->exe, "gauntlet", "__worker", fd, sl, dfd[0], dfd[1], (char *)NULL);
        /* write(2) alone after fork: another thread (MPI's, the proxy's) may have held stdio's lock at the fork, and
         * gl_log's stdio would wait for it for ever (until 2026-12-02) */
        const char *e = strerror(errno);
        struct iovec v[] = { { "gauntlet: exec ", 15 }, { (void *)s->exe, strlen(s->exe) }, { ": ", 2 }, { (void *)e, strlen(e) },
                             { "\n", 1 } };
        ssize_t wr = writev(STDERR_FILENO, v, 5);
        (void)wr;
        _exit(EXIT_ENV);
    }
    for (int i = 0; i < 2; i++) {
        close(dp[1 + 2 * i]);
        if (s->deathfd[2 * slot + i] >= 0)   /* the slot's previous worker's, never read to its end */
            close(s->deathfd[2 * slot + i]);
        s->deathfd[2 * slot + i] = dp[2 * i];
    }
    s->death_ns[slot] = 0;
    s->spawn_ns[slot] = mono_ns();
    s->pid[slot] = p;
    s->alive[slot] = 1;
    s->expect_exit[slot] = 0;
    s->kill_ns[slot] = 0;
    s->cmd_stuck[slot] = 0;
    results_event(&s->res, mono_ns(), "worker_start",
                  json_pack("{s:i, s:i, s:i}", "rank", atomic_load(&c->rank), "slot", slot, "pid", (int)p));
    return 0;
}

/* Sends cmd to the worker of slot. */
void sup_send(struct sup *s, int slot, const struct wcmd *cmd)
{
    /* a full ring is back-pressure: wait for the worker to take commands, up to its heartbeat timeout; a command
     * is never dropped — a worker that takes none in that time fails the run, saying so. Once so, its ring is not
     * waited on again (the run's stop SIGKILLs it after its EXIT's wait; until 2026-11-30 the stop's EXIT waited
     * the heartbeat timeout once more first, the supervisor's loop held meanwhile) */
    uint64_t end = mono_ns() + (uint64_t)(s->sc->heartbeat.timeout_s * 1e9);
    while (s->alive[slot] && ring_push(&shm_ctl(&s->shm, slot)->cmd, cmd) != 0) {
        if (s->cmd_stuck[slot])
            return;
        if (mono_ns() > end) {
            s->cmd_stuck[slot] = 1;
            char why[160];
            snprintf(why, sizeof why, "slot %d: the worker took no command for %.1f s (its command ring is full)", slot,
                     s->sc->heartbeat.timeout_s);
            sup_fail(s, SUP_STOP_WORKER_STUCK, why);
            return;
        }
        sleep_ns(200000);
    }
}

void sup_kill(struct sup *s, int slot)
{
    if (!s->alive[slot])
        return;
    s->expect_exit[slot] = 1;
    if (!s->kill_ns[slot])
        s->kill_ns[slot] = mono_ns();
    if (kill(s->pid[slot], SIGKILL) != 0 && errno != ESRCH)
        SYSERR("kill(worker)");
}

/* Returns how many workers have not yet stopped (every live one idle or ready, every one told to die gone); a
 * worker silent for longer than its limit (sup_silence_limit) while it is being stopped is hung (a second
 * failure): it is killed, to be replaced. */
static int host_busy(struct sup *s, uint64_t now)
{
    int busy = 0;
    for (int k = 0; k < s->nslots; k++) {
        uint32_t st = atomic_load(&shm_ctl(&s->shm, k)->state);
        /* an idle worker with a command it has not read (a run asked before the failure, its process descheduled)
         * has not stopped: it would run that run's abandoned timeline after the recovery and drop the new one
         * (until 2026-11-30 it counted as stopped, and the run waited for it for ever) */
        int unread = s->alive[k] && !s->expect_exit[k] && ring_count(&shm_ctl(&s->shm, k)->cmd) > 0;
        int stuck = s->alive[k] && !s->expect_exit[k] && ((st != WS_IDLE && st != WS_READY) || unread);
        double limit = stuck ? sup_silence_limit(s, k) : 0;   /* the phase before the beat, as sup_check_heartbeats */
        uint64_t hb = atomic_load_explicit(&shm_ctl(&s->shm, k)->heartbeat_ns, memory_order_acquire);
        if (stuck && hb && now > hb && (double)(now - hb) * 1e-9 > limit) {
            int rank = atomic_load(&shm_ctl(&s->shm, k)->rank);
            results_event(&s->res, now, "hung_in_recovery",
                          json_pack("{s:i, s:i, s:f}", "rank", rank, "slot", k, "silent_s", (double)(now - hb) * 1e-9));
            /* a failure like any hang: the ledger joins it to the recovery (a fault nobody injected, observed) or
             * knows it for the abandoned timeline's (seen_during_recovery); until 2026-12-02 a rank hung by no
             * injected fault was killed and replaced, or dropped, with no fault recorded */
            char msg[160];
            snprintf(msg, sizeof msg, "rank %d hung in recovery: no heartbeat for %.2f s", rank, (double)(now - hb) * 1e-9);
            if (s->running && rank >= 0)
                SUP_HOOKS(s, failure, (s, DET_HEARTBEAT, rank, atomic_load(&shm_ctl(&s->shm, k)->iter), now, msg, 2));
            sup_kill(s, k);
        }
        busy += s->alive[k] && (s->expect_exit[k] || (st != WS_IDLE && st != WS_READY) || unread);
    }
    return busy;
}

void sup_busy_why(struct sup *s, uint64_t now, char *why, size_t n)
{
    static const char *const names[] = { "starting", "ready", "running", "idle", "failed", "exited", "paused" };
    snprintf(why, n, "every worker has stopped");
    for (int k = 0; k < s->nslots; k++) {
        if (!s->alive[k])
            continue;
        struct ctl *c = shm_ctl(&s->shm, k);
        uint32_t st = atomic_load(&c->state);
        int rank = atomic_load(&c->rank);
        char proc[256];
        if (s->expect_exit[k]) {
            sup_proc_describe(s->pid[k], proc, sizeof proc);
            double ago = s->kill_ns[k] && now > s->kill_ns[k] ? (double)(now - s->kill_ns[k]) * 1e-9 : 0;
            snprintf(why, n, "rank %d's worker (slot %d, pid %d) has not ended %.1f s after it was killed: %s", rank, k,
                     (int)s->pid[k], ago, proc);
            return;
        }
        if (st != WS_IDLE && st != WS_READY) {
            uint64_t hb = atomic_load_explicit(&c->heartbeat_ns, memory_order_acquire);
            snprintf(why, n, "rank %d's worker (slot %d, pid %d) is still %s, its last heartbeat %.2f s ago", rank, k,
                     (int)s->pid[k], st < ARRAY_LEN(names) ? names[st] : "in an unknown state",
                     hb && now > hb ? (double)(now - hb) * 1e-9 : 0.0);
            return;
        }
    }
}

static int host_ending(struct sup *s, uint64_t now)
{
    int ending = 0;
    for (int k = 0; k < s->nslots; k++) {
        if (!s->alive[k])
            continue;
        uint32_t st = atomic_load(&shm_ctl(&s->shm, k)->state);
        if (!s->expect_exit[k] && st != WS_IDLE && st != WS_READY)
            return 0;   /* a live worker not yet stopped: not the kernel's doing */
        if (!s->expect_exit[k])
            continue;
        if (!s->kill_ns[k] || now < s->kill_ns[k] || (double)(now - s->kill_ns[k]) * 1e-9 > SUP_EXIT_WAIT_S ||
            !sup_proc_exiting(s->pid[k]))
            return 0;
        ending++;
    }
    return ending > 0;
}

const struct rec_host sup_host = { sup_spawn, sup_send, sup_kill, host_busy, sup_busy_why, host_ending };
