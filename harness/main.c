/* harness/main.c: the gauntlet command line: run, check, list, bench; exit codes as docs/architecture.md. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"
#include "analyze.h"
#include "cli.h"
#include "cluster.h"
#include "cluster_rebuild.h"
#include "backend.h"
#include "bench.h"
#include "campaign.h"
#include "detectors/detector.h"
#include "faults/fault.h"
#include "mitigations/mitigation.h"
#include "report.h"
#include "recovery/recovery.h"
#include "metrics.h"
#include "results.h"
#include "scenario.h"
#include "supervisor.h"
#include "tui.h"
#include "util.h"
#include "worker.h"

/* Prints the list of commands, each with its one line (the same tables each command parses by). */
static void usage(FILE *f);

/* Says what was wrong ("gauntlet: ...") and lists the commands on stderr; returns EXIT_INPUT. */
static int usage_error(const char *fmt, const char *arg)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg);
    gl_log("%s", msg);
    fputc('\n', stderr);
    usage(stderr);
    return EXIT_INPUT;
}

/* Checks the plug-in tables once at start: a broken table fails here, not mid-run. */
static void check_tables(void)
{
    char why[256];
    const struct plugin_kind *kinds[] = { &plugin_mitigations, &plugin_faults, &plugin_detectors, &plugin_recoveries };
    if (backend_table_check(why, sizeof why) != 0)
        gl_die(EXIT_ENV, "internal: %s", why);
    for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
        if (plugin_table_check(kinds[i], why, sizeof why) != 0)
            gl_die(EXIT_ENV, "internal: %s", why);
    for (int d = 0; d < DET_COUNT; d++)
        if (!detector_table[d] || detector_table[d]->id != d)
            gl_die(EXIT_ENV, "internal: detector_table is not in enum detector_id order at %d", d);
}

/* Loads a scenario or reports its error. */
static int load(const char *path, struct scenario *sc)
{
    char err[1024];
    int rc = scenario_load(path, sc, err, sizeof err);
    if (rc)
        gl_log("%s", err);
    return rc;
}

/* Finds a mitigation of sc that changes a device setting where it runs on a real GPU and has no permission to
 * (cap: the power limit; smoothing falls back to its emulation instead): 1 with the refusal, naming the scenario's
 * file:line, in why; 0 when there is none. The cuda backend's check says the same again, once a GPU is found. */
static int device_settings_needed(const struct scenario *sc, char *why, size_t n)
{
    for (int i = 0; i < sc->n_mitigations && !sc->allow_device_settings; i++)
        if (mitigation_table[sc->mitigations[i].index]->device == MIT_DEV_CAP) {
            snprintf(why, n, "%s:%d: mitigation '%s' changes the GPUs' power limit: run with --allow-device-settings "
                             "(the limit is put back after the run and on every exit)", sc->file,
                     sc->mitigations[i].line, sc->mitigations[i].name);
            return 1;
        }
    return 0;
}

/* gauntlet run */
static const struct cli_cmd run_cli = {
    "run", "SCENARIO.yaml", 1, 1,
    "run the scenario: every mitigation in turn, power measured, faults injected and recovered",
    "Results go to DIR (default results/<name>-<UTC time>/): events.jsonl, power.csv, summary.json. On a terminal\n"
    "the live view opens (keys: ? for help); otherwise, or with --headless, progress lines. Several nodes: start\n"
    "it with mpirun or srun, one per node (docs/cluster.md).\n",
    { { "backend", "auto|cuda|sim", "where the workload runs (auto: cuda when a GPU is there, else sim)" },
      { "out", "DIR", "the results folder: new, empty, or an earlier run's (refused when another run holds it, or "
                      "when it holds other files, the scenario run among them)" },
      { "headless", NULL, "progress lines instead of the live view" },
      { "seed", "N", "the scenario's seed, overridden (an integer in [0, 9e15], as the key)" },
      { "allow-device-settings", NULL, "a mitigation may change the GPUs' power limit or firmware smoothing (put "
                                       "back after each run and on exit)" },
      { "metrics", "ADDR:PORT", "serve live metrics (OpenMetrics) at http://ADDR:PORT/metrics while it runs (node 0); "
                                "':PORT' is this machine only, '0.0.0.0:PORT' every address" },
      { "metrics-textfile", "DIR", "rewrite DIR/gauntlet.prom every second for node_exporter's textfile collector" },
      { 0 } },
};

static int cmd_run(int argc, char **argv)
{
    struct cli_args a;
    const char *mlisten, *mdir;
    int rc = cli_parse(&run_cli, argc, argv, &a);
    if (rc)
        return rc == CLI_HELP ? EXIT_OK : rc;
    if ((rc = metrics_args(&run_cli, &a, &mlisten, &mdir)) != 0)
        return rc;
    const char *backend = cli_get(&run_cli, &a, "backend"), *out = cli_get(&run_cli, &a, "out");
    const char *seed = cli_get(&run_cli, &a, "seed");
    int headless = !isatty(STDOUT_FILENO) || cli_get(&run_cli, &a, "headless");
    int allow_dev = cli_get(&run_cli, &a, "allow-device-settings") != NULL;
    if (!backend)
        backend = "auto";
    if (supervisor_block_signals() != 0)   /* before the backend probe starts any library thread */
        return EXIT_ENV;
    char cwhy[512];
    if (cluster_init(cwhy, sizeof cwhy) != 0) {   /* several nodes: join the other supervisors (MPI) */
        gl_log("%s", cwhy);
        return EXIT_ENV;
    }
    util_set_node(cluster_node(), cluster_nodes());   /* a launcher's tasks share stdout: each line names its node */
    struct scenario *sc = xcalloc(1, sizeof *sc);
    rc = load(a.operand[0], sc);
    if (!rc && sc->nodes != cluster_nodes()) {
        if (cluster_node() == 0) {
            if (!cluster_launched())
                gl_log("%s:%d: nodes: %lld, but gauntlet was started without mpirun or srun, so on one node "
                       "(docs/cluster.md)", sc->file, sc->nodes_line, (long long)sc->nodes);
            else if (sc->nodes_line)
                gl_log("%s:%d: nodes: %lld, but the launcher started %d supervisor%s (mpirun -np, srun --ntasks): "
                       "one per node", sc->file, sc->nodes_line, (long long)sc->nodes, cluster_nodes(),
                       cluster_nodes() == 1 ? "" : "s");
            else
                gl_log("%s: nodes is 1 (not given), but the launcher started %d supervisors (mpirun -np, srun --ntasks): "
                       "give nodes: %d", sc->file, cluster_nodes(), cluster_nodes());
        }
        rc = EXIT_INPUT;
    }
    sc->allow_device_settings = allow_dev;
    if (!rc && seed) {
        int64_t v;
        if (parse_int(seed, &v) != 0 || v < 0 || v > 9000000000000000LL)   /* the key's range: scenario.yaml loads */
            rc = cli_bad(&run_cli, "seed", seed, "expected an integer in [0, 9000000000000000], as the scenario's seed");
        else
            sc->seed = v;
    }
    /* a bad --out is refused before anything runs: empty, too long, a file, a folder of the user's own files, or
     * the one holding the scenario being run (a run replaces its scenario.yaml) */
    if (!rc && out)
        rc = results_out_check("--out", out, RESULTS_DIR_MAX, a.operand[0]);
    char why[512], dir[RESULTS_DIR_MAX + 1], exe[PATH_MAX];
    /* a device setting without permission is refused before any GPU is probed, so the user hears of it on any
     * machine; --backend auto keeps it for the backend it picks (a GPU there: that backend's check) */
    const struct backend_ops *named = strcmp(backend, "auto") != 0 ? backend_find(backend) : NULL;
    if (!rc && named && !named->modelled && !sc->auto_search && device_settings_needed(sc, why, sizeof why)) {
        gl_log("%s", why);
        rc = EXIT_INPUT;
    }
    const struct backend_ops *ops = rc ? NULL : backend_pick(backend, &rc);
    if (ops && ops->set_power_limit && sc->auto_search && !allow_dev) {   /* the search never changes a device on its own */
        int kept = 0, dropped = 0;
        for (int i = 0; i < sc->n_mitigations; i++)
            if (mitigation_table[sc->mitigations[i].index]->device == MIT_DEV_CAP)
                dropped++;
            else
                sc->mitigations[kept++] = sc->mitigations[i];
        sc->n_mitigations = kept;
        if (dropped && cluster_node() == 0)
            gl_log("%s: mitigations: auto: %d cap candidate%s left out: a cap changes the GPUs' power limit "
                   "(--allow-device-settings lets the search try it)", sc->file, dropped, dropped == 1 ? "" : "s");
    }
    if (ops && (rc = ops->check(sc, why, sizeof why)) != 0)
        gl_log("%s%s%s", scenario_located(sc, why) ? "" : sc->file, scenario_located(sc, why) ? "" : ": ", why);
    ssize_t n = rc ? 0 : readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0) {
        SYSERR("readlink(/proc/self/exe)");
        rc = EXIT_ENV;
    }
    /* the live metrics on node 0 (it sees every node): the address bound before any results folder exists, so a
     * busy one stops every node here and leaves nothing behind (exit 3) */
    const struct view_link *metrics = NULL;
    if (!rc && cluster_node() == 0 && (mlisten || mdir)) {
        char mwhy[512] = "";
        if (!(metrics = metrics_view_open(NULL, mlisten, mdir, mwhy, sizeof mwhy))) {
            gl_log("%s", mwhy);
            rc = EXIT_ENV;
        }
    }
    /* several nodes go on together or stop together: none may be left waiting for the others */
    if (!rc)
        cluster_set_setup_wait(sc->heartbeat.startup_s + sc->heartbeat.timeout_s);   /* each set-up wait's bound */
    int worst = cluster_same_run(rc, sc, ops ? ops->name : backend);   /* and every node runs what node 0 runs */
    if (worst) {
        if (!rc && cluster_node() == 0)
            gl_log("another node could not start the run (exit %d): see its messages above", worst);
        metrics_view_close(metrics);
        cluster_fini();
        return free(sc), worst;
    }
    exe[n] = 0;
    if (out)
        (void)str_copy(dir, sizeof dir, out);   /* fits: results_out_check */
    else
        results_default_dir(dir, sizeof dir, "results", sc->name, cluster_nodes() <= 1);
    if (cluster_node() == 0) {
        printf("%s: %s: %lld ranks x %lld iterations x %d mitigation(s)", gl_tag(), sc->name, (long long)sc->ranks,
               (long long)sc->iterations, sc->n_mitigations);
        if (cluster_nodes() > 1)
            printf(" on each of %d nodes", cluster_nodes());
        printf("; results in %s\n", dir);
    }
    fflush(stdout);
    struct run_options opt = { .out_dir = dir, .exe = exe, .headless = headless || cluster_node() != 0,
                               .metrics = metrics };
    /* the live view, or say why not and go on headless: on a terminal, or on rank 0 of a launcher that forwards
     * the terminal's keys to its stdin (mpirun) */
    if (!opt.headless && (isatty(STDIN_FILENO) || cluster_nodes() > 1)) {
        char why[256];
        opt.view = tui_live_start(dir, why, sizeof why);
        if (!opt.view)
            gl_log("%s", why);
    }
    rc = supervisor_run(sc, ops, &opt);
    if (opt.view)
        tui_live_end();
    metrics_view_close(metrics);
    cluster_fini();
    free(sc);
    return rc;
}

/* Returns the longest delay spec's model puts before a rank's compute phase, over every node's ranks (a stagger's
 * last group: the collective holds the others back as long), in the model's seconds. */
static double check_delay_s(const struct scenario *sc, const struct plugin_spec *spec)
{
    int64_t world = sc->ranks * sc->nodes;
    double most = 0;
    for (int64_t r = 0; r < world && r < 4096; r++) {   /* stagger.groups is at most 4096: its groups repeat past it */
        struct mit_model mm;
        mitigation_model_tdp(spec->index, spec->params, &sc->sim, sc->sim.tdp_w, (int)r, (int)world, &mm);
        most = mm.delay_s > most ? mm.delay_s : most;
    }
    return most;
}

/* Says how long the scenario would run on sim's model: its runs (a search's two refinements too) x iterations x the
 * model's iteration, plus a stagger's delay in each of its run's iterations (until 2026-11-30 left out: 8 groups
 * 500 ms apart read 1 s for a run of 11 s); what the model leaves out is said, and on a GPU the rates `bench gemm`
 * and `bench allreduce` measure are what counts. */
static void check_estimate(const struct scenario *sc, double tflops, double busbw)
{
    const struct backend_ops *sim = backend_find("sim");
    struct scenario *at = xmalloc(sizeof *at);   /* the rates given: the same formulas, at the GPU's own rates */
    *at = *sc;
    if (tflops > 0)
        at->sim.tflops = tflops;
    if (busbw > 0)
        at->sim.busbw_gbs = busbw;
    if (tflops > 0 || busbw > 0)
        at->sim.speedup = 1;
    double it_s = sim->estimate_iter_s ? sim->estimate_iter_s(at) : NAN;
    double speedup = at->sim.speedup > 0 ? at->sim.speedup : 1;
    free(at);
    if (!(it_s > 0))
        return;
    int runs = sc->n_mitigations + (sc->auto_search ? 2 : 0);
    double delay_s = 0;   /* every run's stagger waits, per iteration (sim waits delay / speedup, a GPU the delay) */
    for (int m = 0; m < sc->n_mitigations; m++)
        delay_s += check_delay_s(sc, &sc->mitigations[m]) / speedup;
    double total = (double)runs * (double)sc->iterations * it_s + (double)sc->iterations * delay_s;
    char about[64];   /* bounded before it becomes an integer: past 100 years it is said so, never wrapped */
    if (!(total < 100 * 365.25 * 86400)) {
        snprintf(about, sizeof about, "more than 100 years");
    } else {
        long s = lround(total);
        snprintf(about, sizeof about, "about %ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
    }
    char waits[96] = "";
    if (delay_s > 0)
        snprintf(waits, sizeof waits, ", + %lld iterations x %.3g s of stagger delays", (long long)sc->iterations,
                 delay_s);
    printf("  estimated: %s %s (%d run%s x %lld iterations x %.3g s%s); checkpoints, start-up, the mitigations' own "
           "costs and recoveries add to it\n", about,
           tflops > 0 || busbw > 0 ? "at the rates given" : "on sim's model (on GPUs: check --tflops --busbw)", runs,
           runs == 1 ? "" : "s", (long long)sc->iterations, it_s, waits);
    char names[256] = "", why[600];   /* the mitigations with no swing to act on at this time scale, named once */
    for (int m = 0; m < sc->n_mitigations; m++) {
        const char *nm = sc->mitigations[m].name;
        if (mitigation_acts_on_swing(sc->mitigations[m].index, sc->mitigations[m].params, &sc->sim) && !strstr(names, nm) &&
            strlen(names) + strlen(nm) + 3 < sizeof names)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "", nm);
    }
    if (names[0] && mitigation_timescale_warning(names, it_s, sc->sim.ramp_s, sc->sim.sensor.update_s, why, sizeof why))
        printf("  warning: %s (docs/power.md)\n", why);
    for (int m = 0; m < sc->n_mitigations; m++) {   /* a mitigation that can do nothing as given */
        struct mit_run run = { .tdp_w = sc->sim.tdp_w, .idle_w = sc->sim.idle_w,
                               .sample_s = sc->power.sample_hz > 0 ? 1 / sc->power.sample_hz : 0,
                               .world = (int)(sc->ranks * sc->nodes) };
        if (mitigation_inert(sc->mitigations[m].index, sc->mitigations[m].params, &run, why, sizeof why))
            printf("  warning: mitigations[%d] %s: %s (docs/power.md)\n", m,
                   sc->mitigations[m].label[0] ? sc->mitigations[m].label : sc->mitigations[m].name, why);
    }
}

/* gauntlet check */
static const struct cli_cmd check_cli = {
    "check", "SCENARIO.yaml", 1, 1, "validate a scenario, and say how long it would run",
    "The time is the sim model's (sim.tflops, sim.busbw); for GPUs give the rates `bench gemm` and\n"
    "`bench allreduce` measured there (per GPU, and the bus bandwidth at the scenario's all-reduce size).\n",
    { { "backend", "sim|cuda|auto", "check it for this backend (default sim; auto: cuda where a GPU is usable): cuda "
                                    "notes a device setting `run` needs --allow-device-settings for, and runs the "
                                    "GPU's own check where a GPU is usable here" },
      { "tflops", "T", "the estimate at this GEMM rate (TFLOP/s per GPU) instead of the sim model's" },
      { "busbw", "GB/S", "the estimate at this all-reduce bus bandwidth instead of the sim model's" },
      { 0 } },
};

static int cmd_check(int argc, char **argv)
{
    struct cli_args a;
    int rc = cli_parse(&check_cli, argc, argv, &a);
    if (rc)
        return rc == CLI_HELP ? EXIT_OK : rc;
    double tflops = 0, busbw = 0;
    const char *v;
    if ((v = cli_get(&check_cli, &a, "tflops")) && (parse_double(v, &tflops) != 0 || !(tflops > 0)))
        return cli_bad(&check_cli, "tflops", v, "expected TFLOP/s > 0");
    if ((v = cli_get(&check_cli, &a, "busbw")) && (parse_double(v, &busbw) != 0 || !(busbw > 0)))
        return cli_bad(&check_cli, "busbw", v, "expected GB/s > 0");
    const char *bname = cli_get(&check_cli, &a, "backend");
    const struct backend_ops *b = backend_find("sim"), *cuda = backend_find("cuda");
    char why[512], gpu_why[512] = "", note[512] = "";
    if (bname && strcmp(bname, "auto") == 0)
        b = cuda && cuda->probe(gpu_why, sizeof gpu_why) == 0 ? cuda : b;
    else if (bname && !(b = backend_find(bname)))
        return cli_bad(&check_cli, "backend", bname, "expected sim, cuda or auto");
    struct scenario *sc = xcalloc(1, sizeof *sc);
    rc = load(a.operand[0], sc);
    if (!rc) {
        /* a real backend: the permission `run` asks for is a note here; its own check needs its GPUs */
        int needs = !b->modelled && device_settings_needed(sc, note, sizeof note);
        int unchecked = !b->modelled && b->probe(gpu_why, sizeof gpu_why) != 0;
        sc->allow_device_settings = needs;
        if ((!unchecked && (rc = b->check(sc, why, sizeof why)) != 0) ||
            (unchecked && b->check_scenario && (rc = b->check_scenario(sc, why, sizeof why)) != 0))
            gl_log("%s%s%s", scenario_located(sc, why) ? "" : sc->file,
                   scenario_located(sc, why) ? "" : ": ", why);
        else
            printf("%s: ok: '%s', %lld ranks, %lld iterations, %d mitigation(s)%s%s\n", a.operand[0], sc->name,
                   (long long)sc->ranks, (long long)sc->iterations, sc->n_mitigations, b->modelled ? "" : " for ",
                   b->modelled ? "" : b->name);
        if (!rc && unchecked)
            printf("  note: the %s backend's check of this node's GPUs needs a GPU: %s (the scenario's own rules%s)\n",
                   b->name, gpu_why, b->check_scenario ? ", GEMM shapes and mitigations, are checked" : " are not checked");
        if (!rc && needs)
            printf("  note: %s\n", note);
    }
    if (!rc)
        check_estimate(sc, tflops, busbw);
    free(sc);
    int out_rc = stdout_done();   /* the verdict is the output: one that was lost is no ok */
    return rc ? rc : out_rc;
}

/* gauntlet list */
static const struct cli_cmd list_cli = {
    "list", "", 0, 0, "the backends (and whether each is available here), mitigations, faults, detectors, "
                      "recoveries, each with its parameters, and the iteration shapes",
    NULL, { { "keys", NULL, "also every scenario key, with its type, default and meaning" }, { 0 } },
};

/* Prints each scenario of dir/sub (*.yaml, in name order) with the first line of its leading comment. */
static void list_scenarios(const char *dir, const char *sub)
{
    char path[PATH_MAX];
    struct dirent **names;
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    int n = scandir(path, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        size_t len = strlen(nm);
        char line[256] = "", file[PATH_MAX * 2];
        if (len > 5 && strcmp(nm + len - 5, ".yaml") == 0) {
            snprintf(file, sizeof file, "%s/%s", path, nm);
            FILE *f = fopen_regular(file, "r");
            if (f && fgets(line, sizeof line, f) && line[0] == '#') {
                line[strcspn(line, "\n")] = 0;
                memmove(line, line + (line[1] == ' ' ? 2 : 1), strlen(line) + 1);
            } else {
                line[0] = 0;
            }
            if (f)
                fclose(f);
            char name[PATH_MAX];
            snprintf(name, sizeof name, "%s%.*s", sub, (int)(len - 5), nm);
            printf("  %-24s %s\n", name, line);
        }
        free(names[i]);
    }
    if (n >= 0)
        free(names);
}

static int cmd_list(int argc, char **argv)
{
    struct cli_args a;
    int rc = cli_parse(&list_cli, argc, argv, &a);
    if (rc)
        return rc == CLI_HELP ? EXIT_OK : rc;
    int keys = cli_get(&list_cli, &a, "keys") != NULL;
    char why[512];
    printf("backends:\n");
    for (int i = 0; backend_table[i]; i++) {
        const struct backend_ops *b = backend_table[i];
        int ok = b->probe(why, sizeof why) == 0;
        printf("  %-12s %s\n  %-12s %s%s\n", b->name, b->help, "", ok ? "available" : "unavailable: ", ok ? "" : why);
    }
    const struct plugin_kind *kinds[] = { &plugin_mitigations, &plugin_faults, &plugin_detectors, &plugin_recoveries };
    const char *titles[] = { "mitigations", "faults", "detectors", "recoveries" };
    for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
        printf("%s:\n", titles[k]);
        for (int i = 0; kinds[k]->table[i]; i++) {
            const struct plugin_ops *p = kinds[k]->table[i];
            printf("  %-12s %s\n", p->name, p->help);
            if (kinds[k] == &plugin_detectors)
                printf("  %-12s catches: %s%s\n", "", detector_table[i]->catches,
                       detector_table[i]->always ? " (always on)" : "");
            if (p->params)
                scenario_print_keys(stdout, p->params, p->name);
        }
    }
    printf("shapes (workload.shape):\n");
    shape_print(stdout);
    char dir[PATH_MAX];
    int found = gl_scenarios_dir(dir, sizeof dir) == 0;
    printf("scenarios (%s%s):\n", dir, found ? "" : ": not found");
    list_scenarios(dir, "");
    list_scenarios(dir, "acceptance/");
    if (keys) {
        printf("scenario keys:\n");
        scenario_print_keys(stdout, scenario_params, "");
    }
    return stdout_done();
}

/* Every command: its table (usage and parser) and its entry. */
static const struct command {
    const struct cli_cmd *cli;
    int (*main)(int argc, char **argv);
} commands[] = {
    { &run_cli, cmd_run },           { &check_cli, cmd_check },     { &accept_cli, accept_main },
    { &list_cli, cmd_list },         { &report_cli, report_main },  { &view_cli, tui_view_main },
    { &analyze_cli, analyze_main },  { &campaign_cli, campaign_main }, { &bench_cli, bench_main },
    { &summarize_cli, summarize_main },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gauntlet COMMAND [ARGS]   (gauntlet COMMAND --help: its options)\n\n");
    for (size_t i = 0; i < ARRAY_LEN(commands); i++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", commands[i].cli->name, commands[i].cli->operands);
        fprintf(f, "  %-40s %s\n", head, commands[i].cli->summary);
    }
    fprintf(f, "  %-40s %s\n", "--help, --version", "this list; the version and the backends built in");
    fprintf(f, "\nexit codes: 0 ok, 1 a check failed or the run ended early, 2 bad input, 3 environment\n");
}

int main(int argc, char **argv)
{
    /* a standard descriptor closed by the caller (`gauntlet run x.yaml >&-`) is /dev/null: else the next file opened
     * (the control block) took its number, and the run's progress lines were written over it (until 2026-11-30: the
     * run hung) */
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = open("/dev/null", O_RDWR);
            if (n != fd)
                return EXIT_ENV;
        }
    if (argc >= 2 && strcmp(argv[1], "__worker") == 0)
        return worker_main(argc - 1, argv + 1);
    /* `gauntlet run … | head` must not die mid-run of a write to a closed pipe (the run would stop without its
     * summary, and a changed device setting without being put back): the write fails with EPIPE instead */
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
        return SYSERR("signal(SIGPIPE)"), EXIT_ENV;
    /* a file-size limit (ulimit -f) must fail a write with EFBIG, reported like any write error, not kill the
     * run mid-row with SIGXFSZ (workers inherit it: a checkpoint write fails the same way) */
    if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR)
        return SYSERR("signal(SIGXFSZ)"), EXIT_ENV;
    check_tables();
    summarize_set_cluster(results_cluster_rebuild);   /* summarize (analysis/) rebuilds a cluster's power with results/ */
    if (argc < 2)
        return usage_error("%s", "expected a command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return stdout_done() == 0 ? EXIT_OK : EXIT_ENV;   /* a help that was not written is no success */
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("gauntlet %s (backends:", GAUNTLET_VERSION);
        for (int i = 0; backend_table[i]; i++)
            if (!backend_table[i]->absent)   /* built in: one built without its toolkit only says why (list) */
                printf(" %s", backend_table[i]->name);
        printf(")\n");
        return stdout_done() == 0 ? EXIT_OK : EXIT_ENV;
    }
    for (size_t i = 0; i < ARRAY_LEN(commands); i++)
        if (strcmp(cmd, commands[i].cli->name) == 0) {
            util_set_command(cmd);   /* its messages say "gauntlet CMD:" (a run's supervisor says its host too) */
            return commands[i].main(argc - 1, argv + 1);
        }
    return usage_error("unknown command '%s'", cmd);
}
