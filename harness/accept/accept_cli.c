/* harness/accept/accept_cli.c: `gauntlet accept` — finds the level's scenarios, checks them all before anything runs,
 * runs each (on every node under a launcher), judges them (accept.c) and writes the verdicts. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "accept.h"
#include "accept_int.h"
#include "analyze.h"
#include "cli.h"
#include "backend.h"
#include "cluster.h"
#include "recovery/recovery.h"
#include "metrics.h"
#include "results.h"
#include "supervisor.h"

/* How long the other nodes wait for node 0's own work between a suite's steps (judging a run, writing its verdicts,
 * draining nodes) beyond a set-up's wait, and for the slowest node's checkpoint write and read: bounded, as every
 * wait between nodes, but not by a set-up's 130 s, which a long run's judging or a slow file system can pass. */
#define ACCEPT_NODE0_WORK_S 600.0
#include "util.h"

/* ---- gauntlet accept */
static const char *accept_mlisten, *accept_mdir;   /* --metrics, --metrics-textfile */
static const struct view_link *accept_metrics;     /* node 0: one server over the suite, every scenario's run behind it */

/* The verdicts so far into the live metrics: served with every scrape, and DIR/gauntlet-accept.prom for the textfile
 * collector (a file of its own: the run's gauntlet.prom is rewritten by each run). */
static void accept_publish(const struct verdicts *vs)
{
    if (!accept_metrics)
        return;
    char *text = accept_prom(vs);
    metrics_set_extra(accept_metrics, text);
    if (accept_mdir) {
        char path[600];
        snprintf(path, sizeof path, "%s/gauntlet-accept.prom", accept_mdir);
        if (write_file_atomic(path, text, strlen(text)) != 0)
            gl_log("--metrics-textfile: cannot write %s: %s", path, strerror(errno));
    }
    free(text);
}

/* Stops the suite's metrics server. */
static void accept_unpublish(void)
{
    if (accept_metrics)
        metrics_view_close(accept_metrics);
    accept_metrics = NULL;
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The level of an acceptance scenario file: L<level>-name.yaml (others count as level 1; L0: the health check). */
static int file_level(const char *name)
{
    return name[0] == 'L' && name[1] >= '0' && name[1] <= '9' && name[2] == '-' ? name[1] - '0' : 1;
}

/* Whether a file of level fl runs at --level level: 0 runs the health check alone, N the levels 1..N. */
static int level_runs(int fl, int level) { return level == 0 ? fl == 0 : fl >= 1 && fl <= level; }

/* Finds the acceptance scenarios: $GAUNTLET_SCENARIOS, else acceptance/ of the shipped scenarios (gl_scenarios_dir:
 * installed, beside a build folder, the built-in prefix, or here). */
static int find_dir(char *out, size_t n)
{
    const char *env = getenv("GAUNTLET_SCENARIOS");
    char root[PATH_MAX];
    if (env && *env) {
        if (path_fits("GAUNTLET_SCENARIOS", env, n - 1) != 0)
            return EXIT_INPUT;
        return str_copy(out, n, env) == 0 ? EXIT_OK : EXIT_INPUT;
    }
    gl_scenarios_dir(root, sizeof root);
    if (snprintf(out, n, "%s/acceptance", root) >= (int)n) {
        gl_log("%s/acceptance: path too long (at most %zu characters)", root, n - 1);
        return EXIT_ENV;
    }
    return EXIT_OK;
}

/* Runs one acceptance scenario (every node), and on node 0 judges its results into vs. Returns the node node 0 lost in
 * the run or in the agreements after it (stalled or gone: it takes part in nothing after it, so no gather is waited
 * for), as every node learns it from node 0, -1: none. */
static int accept_run_one(struct scenario *sc, const char *file, const char *outdir, const char *exe,
                           const struct backend_ops *ops, int lead, struct verdicts *vs)
{
    char why[1024];
    char rundir[1300];
    snprintf(rundir, sizeof rundir, "%s/%s", outdir, sc->name);
    if (lead)
        printf("gauntlet accept: %s (%lld ranks x %lld iterations%s)\n", file, (long long)sc->ranks,
               (long long)sc->iterations, cluster_nodes() > 1 ? " on each node" : "");
    fflush(stdout);
    char never[640] = "";   /* a set-up that failed: why, from the run itself (a folder reused may hold another's) */
    struct run_options opt = { .out_dir = rundir, .exe = exe, .headless = 1, .metrics = accept_metrics,
                               .setup_why = never, .setup_why_n = sizeof never };
    /* its set-up waits: the scenario's own, plus node 0's judging of the scenario before (the others wait for it at
     * this one's first agreement: its end records, the summary, the verdicts) */
    cluster_set_setup_wait(sc->heartbeat.startup_s + sc->heartbeat.timeout_s + ACCEPT_NODE0_WORK_S);
    cluster_set_agree_grace(0, NULL);   /* its broadcasts and the run's set-up need every node: none is let go */
    if (cluster_same_run(EXIT_OK, sc, ops->name) != EXIT_OK) {   /* every node runs what node 0 runs (said there) */
        if (lead)
            accept_note(accept_add(vs, sc, "run", V_FAIL), "the nodes read this scenario differently (exit 2): see "
                        "the messages above; not run");
        cluster_set_agree_grace(1, supervisor_stop_signal);   /* the agreements after it, as after a run */
        return -1;
    }
    cluster_new_run();   /* every node agreed just now: none is lost, whatever the scenario before saw */
    int code = supervisor_run(sc, ops, &opt);
    /* node 0's agreements from here until the next run's set-up: a stop signal (pending, or read by the run) cuts its
     * wait for a node missing (one the launcher killed) to 0.3 s; a run's set-up needs every node */
    cluster_set_agree_grace(1, supervisor_stop_signal);
    /* every node learns here of a node node 0 lost in the run (node 0 waits for the others only), and decides on
     * node 0's word alone, whatever it saw itself (node 0 lost, to a node that then waits for it here, bounded; a
     * relay silent to it alone): until 2026-12-01 the next agreement waited for the lost node, 600 s, and the job
     * ended with exit 3 and no verdicts.json */
    /* and whether a stop signal came to any node: then no node measures its checkpoint target (one signalled alone
     * would be done at once while another measured in full, and be taken for lost after the 0.3 s) */
    int signalled = cluster_agree(supervisor_stop_signal(), "the run's end") > 0;
    int lost = cluster_lost_agreed();
    /* every node measures its own checkpoint target; node 0 gathers the figures (from every node: none if one is
     * lost), in an agreement, not a collective: a node killed meanwhile (the launcher ending the job) is taken for
     * lost, and the suite still ends judged (until 2026-12-01 node 0 waited in MPI's gather for it until the
     * launcher's SIGKILL: no verdicts.json) */
    int nn = cluster_nodes(), io_stopped = sc->checks.checkpoint_io.on && signalled;
    int io_lost = sc->checks.checkpoint_io.on && lost >= 0, lost_io = 0;
    double w = NAN, r = NAN, *io_w = NULL, *io_r = NULL;
    if (sc->checks.checkpoint_io.on && !io_lost && !io_stopped) {
        /* a stop signal (before it, or during it) cuts it short: the suite ends now, its verdicts written */
        why[0] = 0;   /* said also where a rate is not measurable there (a RAM file system, pages kept cached) */
        int io = accept_ckpt_io(sc->workload.checkpoint.path, sc->checks.checkpoint_io.bytes, &w, &r, why, sizeof why);
        if (io != 0 || why[0])
            gl_log("node %d: %s", cluster_node(), why);
        io_w = xmalloc((size_t)nn * sizeof *io_w);
        io_r = xmalloc((size_t)nn * sizeof *io_r);
        double mine[2] = { w, r }, *all = xmalloc((size_t)nn * sizeof mine);
        for (int k = 0; k < 2 * nn; k++)
            all[k] = NAN;   /* node 0's alone: the others' stay unknown here */
        /* the slowest node's write and read of the bytes asked: one held past the floors' time (a hung file system)
         * is taken for lost and fails checkpoint_write (until 2026-12-01 node 0 waited an hour for it, then ended the
         * job: exit 3, no verdicts) */
        cluster_set_setup_wait(lead ? accept_io_wait_s(&sc->checks.checkpoint_io) : 3600);   /* the others: node 0's own
                                                                                            * measurement, then its wait */
        cluster_set_late_lost(1);
        io_stopped = cluster_agree_values(io > 0, mine, 2, all, "the checkpoint rates") > 0;   /* a signal cut one */
        cluster_set_late_lost(0);
        int late = 0;
        for (int k = 0; k < nn; k++) {
            io_w[k] = all[2 * k], io_r[k] = all[2 * k + 1];
            if (cluster_lost_late(k))
                io_w[k] = io_r[k] = ACCEPT_IO_LATE, late = 1;
        }
        free(all);
        if ((lost_io = lost < 0 && cluster_lost_agreed() >= 0))   /* the suite ends after this run */
            lost = cluster_lost_agreed(), io_lost = !late;   /* late: judged, its write a FAIL */
    }
    if (!lead) {
        free(io_w);
        free(io_r);
        return lost;   /* node 0 judges: its results folder holds every node */
    }
    if (code == EXIT_ENV && (access(rundir, F_OK) != 0 || never[0])) {
        struct verdict *v = accept_add(vs, sc, "run", V_FAIL);
        char *in = strstr(never, rundir);   /* the run's own folder is the verdict's: its files named alone */
        if (in && in[strlen(rundir)] == '/')
            memmove(in, in + strlen(rundir) + 1, strlen(in + strlen(rundir) + 1) + 1);
        accept_note(v, "the run could not start (exit 3): %s", never[0] ? never : "see the messages above");
        free(io_w);
        free(io_r);
        return lost;
    }
    if (code != EXIT_OK) {
        struct verdict *v = accept_add(vs, sc, "run", V_FAIL);
        accept_note(v, "the run ended with exit %d: see %s/summary.json (stopped)", code, rundir);
    }
    int ev;
    if (io_stopped || io_lost) {   /* not measured, not judged: a figure cut short by a signal is no node's rate */
        for (const char *const *k = (const char *const[]){ "checkpoint_write", "checkpoint_read", NULL }; *k; k++)
            if (io_lost)
                accept_note(accept_skip(vs, sc, *k, ""), "not measured: node %d %s", lost,
                            lost_io ? "did not answer after the stop signal (taken for lost)" : "was lost in the run");
            else
                accept_note(accept_skip(vs, sc, *k, ""), "not measured: a stop signal ended the suite first");
        struct scenario *cut = xmalloc(sizeof *cut);
        memcpy(cut, sc, sizeof *cut);
        cut->checks.checkpoint_io.on = 0;
        ev = accept_evaluate(cut, rundir, ops->name, NULL, NULL, vs, why, sizeof why);
        free(cut);
    } else {
        ev = accept_evaluate(sc, rundir, ops->name, io_w, io_r, vs, why, sizeof why);
    }
    free(io_w);
    free(io_r);
    if (ev != 0) {
        struct verdict *v = accept_add(vs, sc, "run", V_FAIL);
        accept_note(v, "%s", why);
    }
    return lost;
}

/* Runs the suite's scenarios in order (every node), node 0 judging each into vs, until a stop signal or a node lost
 * (it takes part in nothing after its run): the scenarios after are said (node 0), not run. Returns the node lost, -1:
 * none. */
static int accept_run_all(struct scenario *sc, char **files, int nfiles, const char *outdir, const char *exe,
                          const struct backend_ops *ops, int lead, struct verdicts *vs)
{
    int lost = -1;
    const char *lost_in = NULL;
    for (int i = 0; i < nfiles; i++) {
        if (vs->stopped_by && lead)   /* a stop signal: the suite ends with its verdicts, the rest said, not run */
            accept_note(accept_add(vs, &sc[i], "run", V_SKIP), "not run: the suite was stopped by %s",
                        strsignal(vs->stopped_by));
        else if (lost >= 0 && lead)
            accept_note(accept_add(vs, &sc[i], "run", V_SKIP), "not run: node %d was lost in %s", lost, lost_in);
        if (vs->stopped_by || lost >= 0)
            continue;
        lost = accept_run_one(&sc[i], files[i], outdir, exe, ops, lead, vs);
        lost_in = sc[i].name;
        accept_publish(vs);
        cluster_set_setup_wait(ACCEPT_NODE0_WORK_S);   /* node 0 judged the scenario meanwhile */
        vs->stopped_by = cluster_agree(supervisor_stop_signal(), "whether a signal stopped the suite");
        if (lost < 0 && (lost = cluster_lost_agreed()) >= 0 && lead && !vs->stopped_by)
            vs->stopped_by = supervisor_stop_signal();   /* taken for lost as a signal came: the suite was stopped */
    }
    return lost;
}

/* The longest --out: each scenario's results folder OUT/<name> (a name has at most 63 characters) must fit
 * RESULTS_DIR_MAX. The longest --junit FILE (FILE.tmp is written first). */
#define ACCEPT_OUT_MAX (RESULTS_DIR_MAX - 64)
#define ACCEPT_JUNIT_MAX 1023

/* Whether --junit names a file at all (not empty, not too long), on every node before anything runs: 0, or -1 said. */
static int junit_named(const char *path)
{
    if (!path[0]) {
        gl_log("--junit: expected a file name (got an empty one)");
        return -1;
    }
    return path_fits("--junit", path, ACCEPT_JUNIT_MAX);
}

/* Whether --junit FILE can be written (FILE.tmp created beside it, then renamed), checked before the suite runs: an
 * hour of level 3 is not lost to a typo. 0, or -1 with the reason logged. */
static int junit_writable(const char *path)
{
    char tmp[ACCEPT_JUNIT_MAX + 8];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        gl_log("--junit %s: is a folder: give a file name", path);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        gl_log("--junit %s: cannot be written (%s: %s)", path, tmp, strerror(errno));
        return -1;
    }
    close(fd);
    if (unlink(tmp) != 0)
        gl_log("--junit: cannot remove %s: %s", tmp, strerror(errno));
    return 0;
}

/* Removes an earlier suite's verdicts from outdir (and the --junit file): a suite that is killed leaves none, never
 * another suite's. 0, or -1 with the reason logged. */
static int accept_clear(const char *outdir, const char *junit)
{
    char path[1300];
    snprintf(path, sizeof path, "%s/verdicts.json", outdir);
    const char *gone[2] = { path, junit };
    for (int i = 0; i < 2; i++)
        if (gone[i] && unlink(gone[i]) != 0 && errno != ENOENT) {
            gl_log("cannot remove the earlier suite's %s: %s", gone[i], strerror(errno));
            return -1;
        }
    return 0;
}

/* Node 0, before the suite runs: outdir created, --junit FILE writable (EXIT_INPUT), no earlier suite's verdicts
 * left (EXIT_ENV where that fails); EXIT_OK. */
static int accept_prepare(const char *outdir, const char *junit, const struct backend_ops *ops, const struct scenario *sc,
                          int n, int level)
{
    if (mkdir_p(outdir) != 0) {
        gl_log("cannot create %s: %s", outdir, strerror(errno));
        return EXIT_ENV;
    }
    /* the folder's lock first (another suite running there: not this folder); then a killed suite in this very
     * folder is set aside and judged before anything goes */
    if (accept_suite_lock(outdir) != 0 || accept_recover_self(outdir, ops) != 0)
        return EXIT_ENV;
    if (junit && junit_writable(junit) != 0)
        return EXIT_INPUT;
    return accept_clear(outdir, junit) != 0 || accept_mark_start(outdir, sc, n, level, ops->name) != 0 ? EXIT_ENV : EXIT_OK;
}

/* Every node must run the same number of ranks (global rank = node x ranks + local): EXIT_OK when every node
 * has ngpu GPUs, else EXIT_ENV with the nodes that differ from node 0 named (by node 0); collective. */
static int same_gpu_count(int ngpu)
{
    int nn = cluster_nodes(), *all = xmalloc((size_t)nn * sizeof *all), rc = EXIT_OK;
    if (cluster_gather_int(ngpu, all, "the GPU counts") != 0) {
        gl_log("node %d: the nodes' GPU counts could not be gathered", cluster_node());
        rc = EXIT_ENV;
    }
    for (int k = 1; k < nn && rc == EXIT_OK; k++)
        if (all[k] != all[0]) {
            rc = EXIT_ENV;
            if (cluster_node() == 0) {
                char list[1024] = "";
                size_t at = 0;
                for (int j = 1; j < nn && at < sizeof list - 64; j++)
                    if (all[j] != all[0])
                        at += (size_t)snprintf(list + at, sizeof list - at, "%snode %d has %d", at ? ", " : "", j, all[j]);
                gl_log("node 0 has %d GPU%s, but %s: every node must run the same number of ranks (one per "
                       "GPU; set CUDA_VISIBLE_DEVICES to the same count on every node)", all[0], all[0] == 1 ? "" : "s",
                       list);
            }
        }
    free(all);
    return rc;
}

/* The GPU counts, on every node alike (collectives): each node's against --expect-gpus (expect; 0: not judged) into
 * counts, *all_there 0 where one has not that many; then the same count on every node under a launcher (*ops NULL
 * where not). Returns rc, EXIT_ENV where the counts could not be gathered or differ. */
static int accept_gpus(const struct backend_ops **ops, int rc, int expect, int ngpu, int *counts, int *all_there)
{
    if (*ops && rc == EXIT_OK && expect && (*all_there = accept_expect_gpus(expect, ngpu, counts)) < 0)
        rc = EXIT_ENV;
    if (*ops && rc == EXIT_OK && *all_there && cluster_nodes() > 1 && (rc = same_gpu_count(ngpu)) != EXIT_OK)
        *ops = NULL;
    return rc;
}

/* Fits every scenario to the machine: one rank per GPU of the node (ngpu > 0), every node the launcher started; each
 * is then checked again (its faults' ranks, the backend's limits). EXIT_OK, or the first error (logged). */
static int accept_fit(struct scenario *sc, int nfiles, const struct backend_ops *ops, int ngpu)
{
    char why[1024];
    int rc = EXIT_OK;
    for (int i = 0; i < nfiles && rc == EXIT_OK; i++) {
        char changed[200];
        if (ngpu > 0)
            snprintf(changed, sizeof changed, "gauntlet accept runs one rank per GPU found, %d here, on each of the %d "
                     "node(s) started; the file says ranks: %lld, nodes: %lld", ngpu, cluster_nodes(), (long long)sc[i].ranks,
                     (long long)sc[i].nodes);
        else
            snprintf(changed, sizeof changed, "gauntlet accept runs on the %d node(s) started; the file says nodes: %lld",
                     cluster_nodes(), (long long)sc[i].nodes);
        if (ngpu > 0)   /* every GPU of the node */
            sc[i].ranks = ngpu;
        sc[i].nodes = cluster_nodes();   /* every node the launcher started */
        /* a fault on a rank (or node) that is no longer run would never fire: an error, not a silent no-op */
        if ((rc = scenario_check_fault_ranks(&sc[i], changed, why, sizeof why)) != 0) {
            gl_log("%s", why);
            break;
        }
        if ((rc = ops->check(&sc[i], why, sizeof why)) != 0)
            gl_log("%s%s%s", scenario_located(&sc[i], why) ? "" : sc[i].file, scenario_located(&sc[i], why) ? "" : ": ", why);
    }
    return rc;
}

const struct cli_cmd accept_cli = {
    "accept", "", 0, 0, "the acceptance suite: PASS/FAIL per check, GPU and node; verdicts.json, JUnit",
    "Runs the acceptance scenarios of levels 1..LEVEL (files L<level>-*.yaml; any other .yaml counts as level 1,\n"
    "L4-*.yaml to L9-*.yaml never run) and judges their checks: a table,\n"
    "DIR/verdicts.json and (--junit) JUnit XML. Exit 0 when no check failed (--strict: and none was skipped), 1\n"
    "otherwise. Several nodes: start it with mpirun or srun, one per node.\n",
    { { "level", "0|1|2|3", "levels 1..LEVEL (default 1); 0: the health check alone (L0-*.yaml)" },
      { "backend", "auto|cuda|sim", "where the scenarios run (default auto: cuda, and exit 3 without a usable GPU; "
                                    "sim: on the model, no GPU judged)" },
      { "out", "DIR", "the results folder (default results/accept-<UTC time>/)" },
      { "junit", "FILE", "also the verdicts as JUnit XML" },
      { "scenarios", "DIR", "the acceptance scenarios (default: $GAUNTLET_SCENARIOS, else acceptance/ of the installed "
                                 "scenarios, `gauntlet list` names them)" },
      { "strict", NULL, "a skipped check fails the suite too" },
      { "drain", NULL, "when a check fails, drain this node in Slurm (scontrol update ... State=DRAIN) naming them" },
      { "expect-gpus", "N", "every node must have N GPUs (check gpu_count); where one has not, no scenario runs and the "
                            "suite fails (exit 1): a node that lost a GPU does not pass on the ones left" },
      { "metrics", "ADDR:PORT", "serve live metrics (OpenMetrics) at http://ADDR:PORT/metrics while each scenario runs; "
                                "':PORT' is this machine only, '0.0.0.0:PORT' every address" },
      { "metrics-textfile", "DIR", "rewrite DIR/gauntlet.prom (each scenario's run) and DIR/gauntlet-accept.prom (the "
                                   "verdicts) for node_exporter's textfile collector" },
      { 0 } },
};

/* The suite's scenarios: the files of dir that level runs, in name order, each loaded and checked, no two of one
 * name (each run's results go to DIR/<name>/). EXIT_OK, or the code with the reason logged; *files and *sc are the
 * caller's to free either way. */
static int accept_load_files(const char *dir, int given, int level, char ***files, int *nfiles, struct scenario **sc)
{
    char why[1024];
    int rc = EXIT_OK;
    DIR *d = opendir(dir);
    if (!d) {
        gl_log("scenarios folder %s: %s (give --scenarios DIR)", dir, strerror(errno));
        return given ? EXIT_INPUT : EXIT_ENV;   /* the one given is bad input; the installed one missing, the machine's */
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".yaml") == 0 && file_level(e->d_name) > 3)
            gl_log("%s/%s: note: level %d: no --level runs it (levels 0-3)", dir, e->d_name, file_level(e->d_name));
        if (l > 5 && strcmp(e->d_name + l - 5, ".yaml") == 0 && level_runs(file_level(e->d_name), level)) {
            *files = xrealloc(*files, (size_t)(*nfiles + 1) * sizeof **files);
            (*files)[(*nfiles)++] = xstrdup(e->d_name);
        }
    }
    closedir(d);
    if (*nfiles)   /* qsort's array must not be NULL, even for none */
        qsort(*files, (size_t)*nfiles, sizeof **files, cmp_str);
    if (!*nfiles) {
        gl_log(level ? "no acceptance scenario of level 1..%d in %s" : "no health check (L%d-*.yaml) in %s", level, dir);
        /* as a folder not found: the one given is bad input, the installed one incomplete the machine's (until
         * 2026-11-30 exit 2 either way: a health check on an install without L0-health.yaml read as operator error) */
        return given ? EXIT_INPUT : EXIT_ENV;
    }
    /* every scenario is checked before anything runs: bad input stops the suite at once */
    struct scenario *s = *sc = xcalloc((size_t)*nfiles, sizeof **sc);
    for (int i = 0; i < *nfiles && rc == EXIT_OK; i++) {
        char path[1300];
        snprintf(path, sizeof path, "%s/%s", dir, (*files)[i]);
        if ((rc = scenario_load(path, &s[i], why, sizeof why)) != 0)
            gl_log("%s", why);
    }
    return rc == EXIT_OK ? accept_names_ok(s, *nfiles) : rc;
}

int accept_main(int argc, char **argv)
{
    const char *backend = "auto", *out = NULL, *junit = NULL, *sdir = NULL;
    int level = 1, strict = 0, drain = 0, rc = EXIT_OK, nfiles = 0, ngpu = 0, runs_go = 1, counted = 0, *counts = NULL;
    long expect = 0;
    struct cli_args a;
    char **files = NULL;
    struct scenario *sc = NULL;
    const struct backend_ops *ops = NULL;
    char dir[1024], outdir[1024], exe[PATH_MAX], why[1024];
    if (supervisor_block_signals() != 0)
        return EXIT_ENV;
    char cwhy[512];
    if (cluster_init(cwhy, sizeof cwhy) != 0) {   /* under mpirun/srun: every node of the allocation */
        gl_log("%s", cwhy);
        return EXIT_ENV;
    }
    util_set_node(cluster_node(), cluster_nodes());
    int lead = cluster_node() == 0;
    rc = cli_parse(&accept_cli, argc, argv, &a);
    if (rc == CLI_HELP) {
        cluster_fini();
        return EXIT_OK;
    }
    if (rc)
        goto early;
    const char *lv = cli_get(&accept_cli, &a, "level");
    if (lv && (strlen(lv) != 1 || lv[0] < '0' || lv[0] > '3')) {
        rc = cli_bad(&accept_cli, "level", lv, "expected 0 (the health check), 1, 2 or 3");
        goto early;
    }
    drain = cli_get(&accept_cli, &a, "drain") != NULL;
    const char *eg = cli_get(&accept_cli, &a, "expect-gpus");
    char *end = NULL;
    expect = eg ? strtol(eg, &end, 10) : 0;
    if (eg && (end == eg || *end || expect < 1 || expect > 65536)) {
        rc = cli_bad(&accept_cli, "expect-gpus", eg, "expected a count of GPUs per node, 1 to 65536");
        goto early;
    }
    if ((rc = metrics_args(&accept_cli, &a, &accept_mlisten, &accept_mdir)) != 0)
        goto early;
    if (drain && cluster_nodes() > 1) {
        gl_log("--drain drains the node it runs on: run it on each node without a launcher (a health check, a prolog)");
        rc = EXIT_INPUT;
        goto early;
    }
    level = lv ? lv[0] - '0' : 1;
    backend = cli_get(&accept_cli, &a, "backend") ? cli_get(&accept_cli, &a, "backend") : "auto";
    out = cli_get(&accept_cli, &a, "out");
    junit = cli_get(&accept_cli, &a, "junit");
    sdir = cli_get(&accept_cli, &a, "scenarios");
    strict = cli_get(&accept_cli, &a, "strict") != NULL;
    /* every path given is checked before anything runs: none is ever cut short, and an hour of level 3 is not
     * lost to a typo in --junit */
    if (out && (rc = results_out_check("--out", out, ACCEPT_OUT_MAX, NULL)) != EXIT_OK)
        goto early;
    if (junit && junit_named(junit) != 0) {
        rc = EXIT_INPUT;
        goto early;
    }
    if (sdir)
        rc = path_fits("--scenarios", sdir, sizeof dir - 1) == 0 && str_copy(dir, sizeof dir, sdir) == 0 ? EXIT_OK
                                                                                                         : EXIT_INPUT;
    else
        rc = find_dir(dir, sizeof dir);
    if (rc != EXIT_OK || (rc = accept_load_files(dir, sdir != NULL, level, &files, &nfiles, &sc)) != EXIT_OK)
        goto early;
    ops = rc ? NULL : backend_pick(backend, &rc);
    if (accept_model_refused(&ops, backend))
        rc = EXIT_ENV;
    if (ops && ops->device_count)
        ngpu = ops->device_count();
    counted = ops && ops->device_count && !ops->modelled;   /* --expect-gpus: a real backend's GPUs */
early:;
    /* under a launcher every node learns here whether one could not read its arguments, scenarios or backend: the
     * GPU counts are collectives a node gone to its agreement never joins (until 2026-12-01 node 0 waited there for
     * the set-up wait, 130 s, then ended the job: exit 3, `not every node reached set-up step 'the GPU counts'`) */
    int all_there = 1, early = cluster_agree(rc, "the suite's scenarios and backend");
    counts = xcalloc((size_t)cluster_nodes(), sizeof *counts);
    if (early != EXIT_OK)
        goto agree;
    rc = accept_gpus(&ops, rc, expect && counted ? (int)expect : 0, ngpu, counts, &all_there);
    if (ops && rc == EXIT_OK && all_there)
        rc = accept_fit(sc, nfiles, ops, ngpu);
    runs_go = all_there == 1;
    ssize_t k = rc == EXIT_OK ? readlink("/proc/self/exe", exe, sizeof exe - 1) : 0;
    if (k < 0) {
        SYSERR("readlink(/proc/self/exe)");
        rc = EXIT_ENV;
    }
    if (rc == EXIT_OK) {
        exe[k] = 0;
        if (lead && (accept_mlisten || accept_mdir) &&
            !(accept_metrics = metrics_view_open(NULL, accept_mlisten, accept_mdir, why, sizeof why)))
            rc = (gl_log("%s", why), EXIT_ENV);
        if (out)
            (void)str_copy(outdir, sizeof outdir, out);   /* fits: results_out_check */
        else
            results_default_dir(outdir, sizeof outdir, "results", "accept", cluster_nodes() <= 1);
        if (lead && rc == EXIT_OK)
            rc = accept_prepare(outdir, junit, ops, sc, nfiles, level);
    }
agree:;
    /* under a launcher every node stops here when any could not set up, none left waiting in a collective */
    int worst = cluster_agree(rc, "the suite's start");
    if (worst != EXIT_OK) {
        if (rc == EXIT_OK && lead)
            gl_log("another node could not start the suite (exit %d): see its messages", worst);
        accept_unpublish();
        for (int i = 0; i < nfiles; i++)
            free(files[i]);
        free(files);
        free(sc);
        free(counts);
        cluster_fini();
        return worst;
    }
    /* from here a stop signal is the suite's to read (supervisor_stop_signal): it ends the suite with its verdicts on
     * every node, through the agreement after the scenario; one that came while a node waited in an agreement (node
     * 0 judging, the checkpoint targets measured) ended the job there until 2026-12-01, no verdicts written */
    cluster_set_signals_end(0);
    if (lead) {
        accept_recover(outdir, ops);
        printf("gauntlet accept: level %d, %d scenario(s) from %s on %s, %d node(s); results in %s\n", level, nfiles,
               dir, ops->name, cluster_nodes(), outdir);
    }
    struct verdicts vs = { 0 };
    if (lead && expect)
        accept_gpu_count(&vs, (int)expect, counted ? counts : NULL, cluster_nodes(), ops->name);
    if (lead)   /* this suite's verdicts from its start: an earlier suite's in the textfile no longer served (until
                 * 2026-12-01 they were until this suite's first scenario was judged, and fired its alerts) */
        accept_publish(&vs);
    if (runs_go)
        (void)accept_run_all(sc, files, nfiles, outdir, exe, ops, lead, &vs);
    int code = lead ? accept_write(&vs, level, ops, strict, outdir, junit) : EXIT_OK;
    accept_publish(&vs);
    accept_unpublish();
    if (drain && vs.stopped_by && lead)   /* stopped, not judged whole: no node is drained */
        printf("gauntlet accept: --drain: not acted on: the suite was stopped by %s\n", strsignal(vs.stopped_by));
    else if (code == EXIT_CHECK && drain)
        accept_drain(&vs);
    cluster_set_setup_wait(ACCEPT_NODE0_WORK_S);   /* node 0's last judging, its files, a drain */
    code = cluster_agree(code, "node 0's verdict");   /* every node exits as node 0 judged (the others say 0); one lost
                                                        * is not waited for */
    cluster_fini();
    accept_free(&vs);
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    free(sc);
    free(counts);
    return code;
}
