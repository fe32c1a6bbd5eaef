/* harness/campaign/campaign.c: `gauntlet campaign` (see campaign.h): a seeded generator of random fault schedules,
 * each run as a real `gauntlet run` under every recovery strategy named, checked run by run
 * (campaign_check.c) and across runs: the same detections under every strategy, pair by pair (campaign_across.c),
 * the final state of the fault-free run wherever no fault that changed the state went unseen. One table at the end; campaign.json. */
#include "campaign.h"

#include <errno.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "campaign_int.h"
#include "faults/fault.h"
#include "param.h"
#include "recovery/recovery.h"
#include "results.h"
#include "stats.h"
#include "util.h"

const struct cli_cmd campaign_cli = {
    "campaign", "", 0, 0, "random fault schedules under each recovery strategy, checked against the fault record's "
                          "invariants",
    "N random fault schedules (1-5 faults each: bitflip, crash, hang, straggler, comm-error on random ranks,\n"
    "iterations, buffers and bits), each run on sim under every recovery strategy of LIST, and checked: every\n"
    "visible fault caught by the detector built for it within its bound, no detection that no fault explains, the\n"
    "same detections under every strategy (every pair), the fault-free run's final state, no worker left behind,\n"
    "every results file whole, no injection that changed nothing (\"injection ineffective\": one broke). Prints one\n"
    "table; writes DIR/campaign.json; keeps the folders of runs that broke an invariant (and the fault-free\n"
    "reference's).\n"
    "Exit 0: every invariant held; 1: one broke; 3: none broke, but runs never started (not all tested).\n",
    { { "schedules", "N", "how many schedules, 1-100000 (default 200)" },
      { "seed", "S", "the schedules' seed (default 1)" },
      { "recovery", "LIST", "the strategies, comma-separated (default restart,inprocess,spare,shrink)" },
      { "jobs", "J", "runs at once (default 2 x CPUs)" },
      { "out", "DIR", "where campaign.json goes (default results/campaign-<UTC time>)" },
      { "ranks", "R", "ranks of each run, 2-16 (default 4)" },
      { "nodes", "N", "every run on N nodes of R ranks each, started by mpirun --oversubscribe on this machine" },
      { "iterations", "I", "iterations of each run, 16-100000 (default 32)" },
      { "timeout", "SECONDS", "a run still going after this is killed and counted as broken (default 120)" },
      { "heartbeat-timeout", "MS", "each run's hang timeout, 100-60000 (default 500; longer on a busy machine)" },
      { "keep", NULL, "keep every run's folder, not only the broken ones'" },
      { "first", "K", "begin at schedule K (with --schedules 1: one broken schedule again, by its number)" },
      { 0 } },
};

/* One `gauntlet run` in flight. */
struct cp_job {
    pid_t pid;
    int sched, strat;   /* sched -1: the fault-free run */
    uint64_t t0;
    int killed;
    int tries;          /* launches before this one that never began their record */
};

static const int cp_stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static volatile sig_atomic_t cp_signal;   /* the stop signal the campaign received; 0: none */

/* Notes a stop signal for the campaign's loop (cp_stop acts on it). */
static void cp_on_signal(int sig) { cp_signal = sig; }

/* Gives each stop signal the handler h (cp_on_signal, or SIG_DFL). */
static void cp_handle(void (*h)(int))
{
    struct sigaction sa = { .sa_handler = h };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < ARRAY_LEN(cp_stop_signals); i++)
        sigaction(cp_stop_signals[i], &sa, NULL);
}

/* Sets the campaign's signals up: SIGPIPE ignored, and the stop signals noted (a stopped campaign waits for its runs
 * and removes its folder: cp_stop). */
static void cp_catch(void)
{
    signal(SIGPIPE, SIG_IGN);
    cp_handle(cp_on_signal);
}

/* Stops the campaign when a stop signal sig came (0: none, nothing done): its running runs are told to stop (SIGTERM:
 * each ends cleanly, removing its checkpoint files; SIGKILL after 30 s), waited for, its checkpoint folder removed,
 * and the campaign dies of sig as it did before (until 2026-11-30 it died at once: its runs ended after it, and its
 * folder stayed in /dev/shm). */
static void cp_stop(const struct cp_opts *o, struct cp_job *jobs, int sig)
{
    if (!sig)
        return;
    for (int j = 0; j < o->jobs; j++)
        if (jobs[j].pid)
            kill(jobs[j].pid, SIGTERM);
    uint64_t end = mono_ns() + 30000000000ull;
    for (int j = 0; j < o->jobs; j++) {
        while (jobs[j].pid && waitpid(jobs[j].pid, NULL, WNOHANG) == 0) {
            if (mono_ns() > end) {
                kill(jobs[j].pid, SIGKILL);
                waitpid(jobs[j].pid, NULL, 0);
                break;
            }
            sleep_ns(2000000);
        }
        jobs[j].pid = 0;
    }
    if (rmdir(o->ckpt) != 0 && errno != ENOENT)
        gl_log("%s: %s", o->ckpt, strerror(errno));
    cp_handle(SIG_DFL);
    raise(sig);
}

/* Ends the campaign's loop: the stop signals get their default action back, and one that came since the loop last
 * looked stops the campaign (cp_stop). */
static void cp_loop_end(const struct cp_opts *o, struct cp_job *jobs)
{
    cp_handle(SIG_DFL);
    cp_stop(o, jobs, cp_signal);
}

/* Draws schedule k: 1-5 faults at distinct iterations at least 2 apart (a straggler: long enough apart for its
 * slow iterations to be seen before the next fault), every kind, target and bit. */
static void cp_schedule(const struct cp_opts *o, int k, struct cp_sched *s)
{
    struct rng r;
    rng_seed(&r, o->seed, 0xca3a16 + (uint64_t)(k + o->first));
    static const int weight[CK_COUNT] = { 45, 15, 10, 10, 20 };   /* of 100 */
    static const double values[] = { -2, -0.5, 1e-7, 0.01, 10, 1000 };
    int last = -10, hi = o->shape.iterations - 4;
    s->n = 1 + (int)(rng_next(&r) % CP_MAX_FAULTS);
    for (int i = 0; i < s->n; i++) {
        int room = hi - (last + 2), left = s->n - i;
        if (room < 2 * left) {   /* no room for the rest: fewer faults */
            s->n = i;
            break;
        }
        int lo = last + 2 < 2 ? 2 : last + 2;
        int at = lo + (int)(rng_next(&r) % (uint64_t)((hi - lo) / left + 1));
        int w = (int)(rng_next(&r) % 100), kind = 0;
        while (w >= weight[kind])
            w -= weight[kind++];
        /* a straggler needs its bound after it (persist slow phases, and room for a loaded host to break one run of
         * them): one drawn too late for that in the run goes earlier, or becomes a crash where nothing earlier is free */
        int latest = o->shape.iterations - o->shape.persist - 3;
        if (kind == CK_STRAGGLER && at > latest)
            at = latest >= lo ? latest : at, kind = latest >= lo ? kind : CK_CRASH;
        s->f[i] = (struct cp_fault){ .kind = kind, .rank = (int)(rng_next(&r) % (uint64_t)(o->shape.ranks * o->shape.nodes)),
                                     .at = at,
                                     .target = (int)(rng_next(&r) % 4), .where = (int)(rng_next(&r) % 5),
                                     .value = values[rng_next(&r) % 6] };
        last = kind == CK_STRAGGLER ? at + o->shape.persist + 1 : at;
    }
}

/* Writes the scenario of schedule sc (NULL: none) under strategy strat to path. 0 or -1. */
static int cp_write(const struct cp_opts *o, const char *path, const char *name, const struct cp_sched *sc, const char *strat)
{
    static const char *const targets[] = { "gemm-output", "gradients", "weights", "allreduce-buffer" };
    static const char *const wheres[] = { "random", "sign", "exponent", "mantissa", "value" };
    FILE *f = fopen(path, "w");
    if (!f)
        return SYSERR(path);
    const struct cp_shape *sh = &o->shape;
    fprintf(f, "name: %s\nranks: %d\niterations: %d\nseed: %llu\n", name, sh->ranks, sh->iterations,
            (unsigned long long)(o->seed % 1000000007u));
    if (sh->nodes > 1)
        fprintf(f, "nodes: %d\n", sh->nodes);
    fprintf(f, "workload:\n  gemm: { m: 1024, n: 1024, k: 1024, count: 2 }\n  allreduce: { bytes: 64KiB }\n"
               "  checkpoint: { every: %d, bytes: 64KiB, path: %s }\n", sh->ckpt_every, o->ckpt);
    fprintf(f, "sim: { tflops: 1, max_elems: 4096, max_dim: %d }\npower: { sample_hz: 50 }\n"
               "heartbeat: { interval: 10ms, timeout: %gms }\n", CP_SIM_DIM, sh->hb_timeout_s * 1e3);
    fprintf(f, "detectors: [fingerprint, abft, { heartbeat: { factor: %g, min_excess: %gms, persist: %d } }]\n",
            (double)CP_HB_FACTOR, CP_HB_EXCESS_S * 1e3, sh->persist);
    fprintf(f, strcmp(strat, "restart") == 0 || strcmp(strat, "none") == 0 ? "recovery: %s\n"
                                                                            : "recovery: { %s: { replicate_every: 2 } }\n",
            strat);
    for (int i = 0; sc && i < sc->n; i++) {
        const struct cp_fault *x = &sc->f[i];
        if (i == 0)
            fprintf(f, "faults:\n");
        fprintf(f, "  - { kind: %s, at: %d, rank: %d", cp_kind_names[x->kind], x->at, x->rank);
        if (x->kind == CK_BITFLIP) {
            fprintf(f, ", target: %s, where: %s", targets[x->target], wheres[x->where]);
            if (x->where == FLIP_VALUE)
                fprintf(f, ", value: %g", x->value);
        } else if (x->kind == CK_STRAGGLER) {
            fprintf(f, ", factor: %g, duration: %gms", sh->straggler_factor, sh->straggler_s * 1e3);
        }
        fprintf(f, " }\n");
    }
    if (fclose(f) != 0)
        return SYSERR(path);
    return 0;
}

/* The run folder of schedule k (-1: the fault-free run) under strategy s. */
static void cp_dir(const struct cp_opts *o, int k, int s, char *out, size_t n)
{
    if (k < 0)
        snprintf(out, n, "%s/runs/fault-free", o->out);
    else
        snprintf(out, n, "%s/runs/s%05d-%s", o->out, k + o->first, o->strat[s]);
}

/* Starts `gauntlet run` of schedule k under strategy s (k -1: the fault-free run); its output goes to
 * DIR.log. */
static pid_t cp_start(const struct cp_opts *o, int k, int s)
{
    char dir[PATH_MAX], yaml[PATH_MAX + 8], log[PATH_MAX + 8], name[64];
    struct cp_sched sc;
    cp_dir(o, k, s, dir, sizeof dir);
    snprintf(yaml, sizeof yaml, "%s.yaml", dir);
    snprintf(log, sizeof log, "%s.log", dir);
    snprintf(name, sizeof name, k < 0 ? "fault-free" : "s%05d-%s", k + o->first, o->strat[s]);
    if (k >= 0)
        cp_schedule(o, k, &sc);
    if (cp_write(o, yaml, name, k < 0 ? NULL : &sc, k < 0 ? "restart" : o->strat[s]) != 0)
        return -1;
    pid_t p = fork();
    if (p < 0)
        return SYSERR("fork");
    if (p == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)   /* a campaign stopped stops its runs (each ends cleanly) */
            _exit(EXIT_ENV);
        FILE *l = freopen(log, "w", stdout);
        if (!l || dup2(fileno(stdout), 2) < 0)
            _exit(EXIT_ENV);
        if (o->shape.nodes > 1) {   /* one supervisor a node, as a cluster's launcher starts them */
            char np[16];
            snprintf(np, sizeof np, "%d", o->shape.nodes);
            if (geteuid() == 0 && (setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1) != 0 ||
                                   setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1) != 0))
                _exit(EXIT_ENV);
            execlp("mpirun", "mpirun", "--oversubscribe", "-np", np, o->exe, "run", yaml, "--headless", "--backend",
                   "sim", "--out", dir, (char *)NULL);
            fprintf(stderr, "gauntlet campaign: cannot start mpirun: %s\n", strerror(errno));
            _exit(EXIT_ENV);
        }
        execl(o->exe, "gauntlet", "run", yaml, "--headless", "--backend", "sim", "--out", dir, (char *)NULL);
        _exit(EXIT_ENV);
    }
    return p;
}

static int cp_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    if (remove(path) != 0)
        SYSERR(path);
    return 0;
}

/* A run that never began its record (no events.jsonl, or one without a start event: a set-up that failed, said in
 * its end line, or that stalled, ending the job inside an agreement: results.h) and did not end on a usage error or a
 * timeout: either the harness crashed in its set-up (died by a signal, or a sanitizer's report in its log:
 * cp_setup_crashed), a broken invariant like any crash of the harness, or its launch failed (mpirun under load exits
 * 1 after a banner; a fork refused; a node's set-up that failed, exit 3 with its reason, or timed out), which says
 * nothing of the invariants. Such a launch is started again up to CP_LAUNCH_TRIES launches in all, each failed
 * launch's log kept as DIR.log.<launch>; one that never begins is not started, listed, and leaves the campaign not
 * all tested (exit 3) rather than broken. Returns 0 when the run began (or is judged as it is), 1 when it was
 * started again (job updated), 2 when it counts as not started (r filled), 3 when it crashed in its set-up (r
 * broken, the run counted), -1 when it could not be started again. */
static int cp_launch_failed(const struct cp_opts *o, struct cp_job *job, int code, const char *dir, const char *name,
                            struct cp_stats *st, struct cp_result *r)
{
    char path[PATH_MAX + 16], kept[PATH_MAX + 24], tail[640] = "";
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    if (job->killed || code == 0 || code == EXIT_INPUT)
        return 0;
    int record = access(path, F_OK) == 0 || errno != ENOENT;
    if (record && results_never_began(dir, tail, sizeof tail) != 1)
        return 0;   /* a record with its start event: the run began */
    if (!tail[0])   /* no record, or no reason in it: what the run's log ends with */
        cp_log_tail(dir, tail, sizeof tail);
    char crash[300];
    if (cp_setup_crashed(dir, code, crash, sizeof crash)) {
        r->ran = 1;
        r->not_started = 1;   /* no record: no detections to compare (its zeros read as detector 0, rank 0, iteration
                               * 0, and broke "detect differently" with every other strategy's run) */
        st->runs++, st->runs_failed++;
        cp_break(r, "the harness crashed in its set-up, before its record began: %s; its log ends: %s", crash, tail);
        return 3;
    }
    int launch = job->tries + 1;
    snprintf(path, sizeof path, "%s.log", dir);
    snprintf(kept, sizeof kept, "%s.log.%d", dir, launch);
    if (rename(path, kept) != 0 && errno != ENOENT)
        SYSERR(path);
    json_t *rec = json_pack("{s:s, s:i, s:i, s:s}", "run", name, "launch", launch, "exit", code, "log_ends", tail);
    if (launch >= CP_LAUNCH_TRIES) {
        r->ran = 1;
        r->not_started = 1;
        json_array_append_new(st->not_started, rec);
        printf("campaign: %s never began its record in %d launches (the last exited %d: %s)\n", name, launch, code, tail);
        fflush(stdout);
        return 2;
    }
    json_array_append_new(st->relaunched, rec);
    printf("campaign: %s did not begin (exit %d: %s); starting it again\n", name, code, tail);
    fflush(stdout);
    if (nftw(dir, cp_rm, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
        SYSERR(dir);
    pid_t p = cp_start(o, job->sched, job->strat);
    if (p < 0)
        return -1;
    *job = (struct cp_job){ p, job->sched, job->strat, mono_ns(), 0, launch };
    return 1;
}

/* The longest --out: each run's folder DIR/runs/s<schedule>-<strategy> must fit a results folder's path. */
#define CP_OUT_MAX (RESULTS_DIR_MAX - 32)

/* One integer option in [lo, hi] into *out (left as it is when not given); 0, or the usage error. */
static int cp_int(const struct cli_args *a, const char *name, long lo, long hi, long *out)
{
    const char *v = cli_get(&campaign_cli, a, name);
    int64_t x;
    if (!v)
        return 0;
    /* parse_int: digits only (no leading space), and a value past int64 is an error, never clamped */
    if (parse_int(v, &x) != 0 || x < lo || x > hi) {
        char why[96];
        snprintf(why, sizeof why, "expected an integer from %ld to %ld", lo, hi);
        return cli_bad(&campaign_cli, name, v, why);
    }
    *out = (long)x;
    return 0;
}

/* Parses the options; 0, CLI_HELP, or EXIT_INPUT having said why. */
static int cp_options(int argc, char **argv, struct cp_opts *o)
{
    const char *strats = "restart,inprocess,spare,shrink";
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    *o = (struct cp_opts){ .schedules = 200, .seed = 1, .jobs = n > 0 ? (int)(2 * n) : 2, .timeout_s = 120,
                           .shape = { .ranks = 4, .nodes = 1, .iterations = 32, .ckpt_every = 4, .hb_timeout_s = 0.5,
                                      .straggler_factor = 10, .straggler_s = 0.6, .persist = 3 } };
    struct cli_args a;
    int rc = cli_parse(&campaign_cli, argc, argv, &a);
    if (rc)
        return rc;
    long sch = o->schedules, seed = 1, jobs = o->jobs, ranks = o->shape.ranks, nodes = 1, iters = o->shape.iterations;
    long timeout = 120, first = 0, hb_ms = lround(o->shape.hb_timeout_s * 1e3);
    if ((rc = cp_int(&a, "schedules", 1, CP_MAX_SCHEDULES, &sch)) || (rc = cp_int(&a, "seed", 0, LONG_MAX, &seed)) ||
        (rc = cp_int(&a, "jobs", 1, 256, &jobs)) || (rc = cp_int(&a, "ranks", 2, 16, &ranks)) ||
        (rc = cp_int(&a, "nodes", 1, 8, &nodes)) || (rc = cp_int(&a, "iterations", 16, 100000, &iters)) ||
        (rc = cp_int(&a, "timeout", 1, 86400, &timeout)) || (rc = cp_int(&a, "first", 0, 10000000, &first)) ||
        (rc = cp_int(&a, "heartbeat-timeout", 100, 60000, &hb_ms)))
        return rc;
    o->schedules = (int)sch, o->seed = (uint64_t)seed, o->jobs = (int)jobs, o->shape.ranks = (int)ranks;
    o->shape.nodes = (int)nodes, o->shape.iterations = (int)iters, o->timeout_s = (double)timeout, o->first = (int)first;
    o->shape.hb_timeout_s = (double)hb_ms * 1e-3;
    o->keep = cli_get(&campaign_cli, &a, "keep") != NULL;
    const char *v;
    if ((v = cli_get(&campaign_cli, &a, "recovery")))
        strats = v;
    if ((v = cli_get(&campaign_cli, &a, "out"))) {   /* each run's folder DIR/runs/<schedule>-<strategy> fits run's */
        if ((rc = results_out_check("--out", v, CP_OUT_MAX, NULL)) != EXIT_OK || (rc = cp_out_ok(v)) != EXIT_OK)
            return rc;
        (void)str_copy(o->out, sizeof o->out, v);   /* fits: CP_OUT_MAX */
    }
    if (o->shape.ranks * o->shape.nodes > 64) {
        fprintf(stderr, "gauntlet campaign: --ranks %d x --nodes %d: at most 64 ranks in all\n", o->shape.ranks,
                o->shape.nodes);
        return EXIT_INPUT;
    }
    char list[256];
    if (str_copy(list, sizeof list, strats) != 0) {
        fprintf(stderr, "gauntlet campaign: --recovery: too long (at most %zu characters)\n", sizeof list - 1);
        return EXIT_INPUT;
    }
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int known = 0;
        for (int i = 0; recovery_table[i]; i++)
            known |= strcmp(recovery_table[i]->name, t) == 0 && strcmp(t, "none") != 0;
        for (int i = 0; i < o->nstrat && known; i++)
            if (strcmp(o->strat[i], t) == 0) {   /* the runs of one strategy share a folder: each once */
                fprintf(stderr, "gauntlet campaign: --recovery %s: each strategy once (%s is named twice)\n", strats, t);
                return EXIT_INPUT;
            }
        if (!known || o->nstrat == CP_MAX_STRATS) {
            fprintf(stderr, "gauntlet campaign: --recovery %s: expected up to %d of restart, inprocess, spare, shrink\n",
                    strats, CP_MAX_STRATS);
            return EXIT_INPUT;
        }
        str_copy(o->strat[o->nstrat++], sizeof o->strat[0], t);
    }
    if (!o->nstrat) {
        fprintf(stderr, "gauntlet campaign: --recovery: no strategy named\n");
        return EXIT_INPUT;
    }
    return 0;
}

/* Records a broken invariant of a schedule, across its runs (a run's own: cp_broke_run). */
static void cp_broke(json_t *breaks, const char *run, const char *why)
{
    json_array_append_new(breaks, json_pack("{s:s, s:s}", "run", run, "why", why));
}

/* Checks schedule k across its strategies' runs, once they all ran. */
static int cp_across(const struct cp_opts *o, int k, struct cp_result *res, const char *state0, json_t *breaks)
{
    struct cp_sched sc;
    char why[CP_NOTE * 2], name[64];
    int broken = 0;
    cp_schedule(o, k, &sc);
    snprintf(name, sizeof name, "s%05d", k + o->first);
    broken += cp_compare(o, res, &sc, name, breaks);   /* every pair of strategies whose runs began */
    for (int s = 0; s < o->nstrat; s++)
        if (!res[s].not_started && !res[s].effect_missed && !res[s].dropped && !res[s].exhausted && !res[s].broken && state0[0] &&
            strcmp(res[s].state, state0) != 0) {
            snprintf(why, sizeof why, "final state %s, the fault-free run's %s, with every fault that changed it caught",
                     res[s].state, state0);
            char run[80];
            snprintf(run, sizeof run, "%s-%s", name, o->strat[s]);
            cp_broke(breaks, run, why);
            broken++;
        }
    return broken;
}

int campaign_main(int argc, char **argv)
{
    struct cp_opts o;
    int rc = cp_options(argc, argv, &o);
    if (rc)
        return rc == CLI_HELP ? EXIT_OK : rc;
    ssize_t n = readlink("/proc/self/exe", o.exe, sizeof o.exe - 1);
    if (n <= 0)
        return SYSERR("readlink(/proc/self/exe)"), EXIT_ENV;
    o.exe[n] = 0;
    if (!o.out[0]) {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(o.out, sizeof o.out, "results/campaign-%s", stamp);
    }
    char path[PATH_MAX];
    struct stat st;
    /* checkpoints in memory where the host has it: the campaign tests the fault record, not the disk, and an fsync
     * on a loaded disk can stall a run for longer than a straggler lasts */
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        snprintf(o.ckpt, sizeof o.ckpt, "/dev/shm/gauntlet-campaign-%d", (int)getpid());
    else
        snprintf(o.ckpt, sizeof o.ckpt, "%s/ckpt", o.out);
    snprintf(path, sizeof path, "%s/runs", o.out);
    if (mkdir_p(path) != 0) {
        fprintf(stderr, "gauntlet campaign: cannot create %s: %s\n", path, strerror(errno));
        return EXIT_ENV;
    }
    struct cp_stats stats = { .missed = json_array(), .relaunched = json_array(), .not_started = json_array() };
    struct cp_result *res = xcalloc((size_t)o.schedules * (size_t)o.nstrat, sizeof *res), base = { 0 };
    struct cp_job *jobs = xcalloc((size_t)o.jobs, sizeof *jobs);
    int *left = xcalloc((size_t)o.schedules, sizeof *left);   /* per schedule: runs not yet checked */
    json_t *breaks = json_array();
    int broken = 0, running = 0, total = o.schedules * o.nstrat, next = -1, done_sched = 0;
    uint64_t t0 = mono_ns();
    for (int k = 0; k < o.schedules; k++)
        left[k] = o.nstrat;
    cp_catch();
    printf("campaign: %d schedules x %d strategies (%s", o.schedules, o.nstrat, o.strat[0]);
    for (int s = 1; s < o.nstrat; s++)
        printf(",%s", o.strat[s]);
    printf("), %d runs at once, into %s\n", o.jobs, o.out);
    fflush(stdout);
    /* the fault-free run first: its final state is every schedule's reference */
    while (next < total || running) {
        cp_stop(&o, jobs, cp_signal);
        while (running < o.jobs && next < total && !(next == 0 && !base.ran && running)) {
            int k = next < 0 ? -1 : next / o.nstrat, s = next < 0 ? 0 : next % o.nstrat, slot = 0;
            while (jobs[slot].pid)
                slot++;
            pid_t p = cp_start(&o, k, s);
            if (p < 0)
                return EXIT_ENV;
            jobs[slot] = (struct cp_job){ p, k, s, mono_ns(), 0, 0 };
            running++;
            next++;
        }
        int status;
        pid_t p = waitpid(-1, &status, WNOHANG);
        if (p == 0) {
            for (int j = 0; j < o.jobs; j++) {
                double age = (double)(mono_ns() - jobs[j].t0) * 1e-9;
                if (!jobs[j].pid || jobs[j].killed == 2 || age <= o.timeout_s)
                    continue;
                /* one node: SIGKILL (its workers die with it, PDEATHSIG); mpirun: SIGTERM first, so that it takes
                 * its supervisors down, then SIGKILL 5 s later */
                if (o.shape.nodes > 1 && !jobs[j].killed) {
                    kill(jobs[j].pid, SIGTERM);
                    jobs[j].killed = 1;
                } else if (o.shape.nodes == 1 || age > o.timeout_s + 5) {
                    kill(jobs[j].pid, SIGKILL);
                    jobs[j].killed = 2;
                }
            }
            sleep_ns(2000000);
            continue;
        }
        if (p < 0)
            return SYSERR("waitpid"), EXIT_ENV;
        int j = 0;
        while (j < o.jobs && jobs[j].pid != p)
            j++;
        if (j == o.jobs)
            continue;
        struct cp_job job = jobs[j];
        jobs[j].pid = 0;
        running--;
        char dir[PATH_MAX], name[96];
        cp_dir(&o, job.sched, job.strat, dir, sizeof dir);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        struct cp_sched sc = { 0 };
        if (job.sched >= 0)
            cp_schedule(&o, job.sched, &sc);
        struct cp_result *r = job.sched < 0 ? &base : &res[job.sched * o.nstrat + job.strat];
        snprintf(name, sizeof name, "%s", strrchr(dir, '/') + 1);
        int launch = cp_launch_failed(&o, &job, code, dir, name, &stats, r);
        if (launch < 0)
            return EXIT_ENV;
        if (launch == 1) {   /* started again in the same slot */
            jobs[j] = job;
            running++;
            continue;
        }
        if (launch == 0)
            cp_check_run(dir, code, &sc, &o.shape, job.strat, job.sched < 0 ? "restart" : o.strat[job.strat], r, &stats);
        if (job.killed)
            cp_break(r, "did not end within %.0f s (killed)", o.timeout_s);
        broken += cp_broke_run(breaks, name, r);   /* every one it broke, listed */
        if (job.sched >= 0 && --left[job.sched] == 0) {
            int across = cp_across(&o, job.sched, &res[job.sched * o.nstrat], base.state, breaks);
            broken += across;
            for (int s = 0; s < o.nstrat && !o.keep && !across; s++) {   /* the evidence of a broken one stays */
                cp_dir(&o, job.sched, s, dir, sizeof dir);
                if (!res[job.sched * o.nstrat + s].broken && nftw(dir, cp_rm, 16, FTW_DEPTH | FTW_PHYS) != 0 &&
                    errno != ENOENT)   /* a run that never started may have no folder */
                    SYSERR(dir);
            }
            if (++done_sched % 50 == 0) {
                printf("campaign: %d/%d schedules, %d broken, %.0f s\n", done_sched, o.schedules, broken,
                       (double)(mono_ns() - t0) * 1e-9);
                fflush(stdout);
            }
        }
    }
    cp_loop_end(&o, jobs);
    if (rmdir(o.ckpt) != 0 && errno != ENOENT)   /* each run removed its own files */
        gl_log("%s: %s", o.ckpt, strerror(errno));
    broken = (int)json_array_size(breaks);   /* the count is the list's */
    json_t *j = cp_report(&o, &stats, (double)(mono_ns() - t0) * 1e-9, breaks);
    char why[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/campaign.json", o.out);
    if (cp_write_json(path, j, why, sizeof why) != 0) {   /* whole: a campaign killed while it writes leaves the last */
        fprintf(stderr, "gauntlet campaign: %s\n", why);
        rc = EXIT_ENV;
    }
    json_decref(j);
    json_decref(breaks);
    size_t not_started = json_array_size(stats.not_started);
    json_decref(stats.missed);
    json_decref(stats.relaunched);
    json_decref(stats.not_started);
    for (int s = 0; s < CP_MAX_STRATS; s++) {
        free(stats.detect_s[s]);
        free(stats.recover_s[s]);
    }
    free(res);
    free(jobs);
    free(left);
    return rc ? rc : broken ? EXIT_CHECK : not_started ? EXIT_ENV : EXIT_OK;
}
