/* harness/main.c: the gauntlet command line: run, check, list, bench; exit codes as docs/architecture.md. */
#include <getopt.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"
#include "analyze.h"
#include "cluster.h"
#include "backend.h"
#include "bench.h"
#include "campaign.h"
#include "detectors/detector.h"
#include "faults/fault.h"
#include "mitigations/mitigation.h"
#include "report.h"
#include "recovery/recovery.h"
#include "results.h"
#include "scenario.h"
#include "supervisor.h"
#include "tui.h"
#include "util.h"
#include "worker.h"

static const char usage_text[] =
    "usage: gauntlet COMMAND [ARGS]\n"
    "\n"
    "  run SCENARIO.yaml [--backend auto|cuda|sim] [--out DIR] [--headless] [--seed N]\n"
    "                    [--allow-device-settings]\n"
    "                        run the scenario: every mitigation in turn; results in DIR\n"
    "                        (default results/<name>-<UTC time>/); on a terminal the live\n"
    "                        view opens (keys: ? for help), --headless keeps progress lines;\n"
    "                        --allow-device-settings lets a mitigation change the GPUs' power\n"
    "                        limit or firmware smoothing (put back after each run and on exit)\n"
    "  check SCENARIO.yaml   validate a scenario only\n"
    "  accept [--level 1|2|3] [--backend auto|cuda|sim] [--out DIR] [--junit FILE] [--strict]\n"
    "                        the acceptance suite: PASS/FAIL per check, GPU and node; verdicts.json, JUnit\n"
    "  list [--keys]         backends, mitigations (and every scenario key with --keys)\n"
    "  report RUNDIR         comparison of a run's mitigations: table, report.txt, report.svg (.png too\n"
    "                        with rsvg-convert): traces, waveform, spectrum, trade-off curves\n"
    "  view RUNDIR [--at S] [--speed X] [--snapshot COLSxROWS]\n"
    "                        replay a run in the live view (or print the screen at S as text)\n"
    "  analyze TRACE.csv [--gpus N] [--groups G] [--jitter D] [--json]\n"
    "                        power-swing analysis of a trace: power.csv, nvidia-smi or DCGM CSV\n"
    "  campaign [--schedules N] [--seed S] [--recovery LIST] [--jobs J] [--out DIR]\n"
    "                        random fault schedules under each recovery strategy, checked against the\n"
    "                        fault record's invariants (`campaign --help`)\n"
    "  bench gemm|allreduce|sampling|analysis [OPTIONS]\n"
    "                        harness vs bare library on this GPU (cuda builds); `bench gemm --help`\n"
    "  --help, --version\n"
    "\n"
    "exit codes: 0 ok, 1 a check failed or the run ended early, 2 bad input, 3 environment\n";

/* Says what was wrong ("gauntlet COMMAND: ..."), then the usage, on stderr; returns EXIT_INPUT. */
static int usage_error(const char *fmt, const char *arg)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg);
    gl_log("%s", msg);
    fprintf(stderr, "\n%s", usage_text);
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

/* gauntlet run */
static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = { { "backend", required_argument, 0, 'b' }, { "out", required_argument, 0, 'o' },
                                          { "headless", no_argument, 0, 'H' },     { "seed", required_argument, 0, 's' },
                                          { "allow-device-settings", no_argument, 0, 'D' },
                                          { "help", no_argument, 0, 'h' },         { 0, 0, 0, 0 } };
    const char *backend = "auto", *out = NULL, *seed = NULL;
    int headless = !isatty(STDOUT_FILENO), allow_dev = 0, c;
    if (supervisor_block_signals() != 0)   /* before the backend probe starts any library thread */
        return EXIT_ENV;
    optind = 0;   /* 0: GNU getopt re-initialises, and permutes so options may follow the scenario */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'b': backend = optarg; break;
        case 'o': out = optarg; break;
        case 'H': headless = 1; break;
        case 's': seed = optarg; break;
        case 'D': allow_dev = 1; break;
        case 'h': fputs(usage_text, stdout); return EXIT_OK;
        default: return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return usage_error("expected one scenario file%s", optind < argc - 1 ? ", got several" : "");
    char cwhy[512];
    if (cluster_init(cwhy, sizeof cwhy) != 0) {   /* several nodes: join the other supervisors (MPI) */
        gl_log("%s", cwhy);
        return EXIT_ENV;
    }
    struct scenario *sc = xcalloc(1, sizeof *sc);
    int rc = load(argv[optind], sc);
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
        if (parse_int(seed, &v) != 0 || v < 0)
            rc = usage_error("--seed: expected a non-negative integer, got '%s'", seed);
        else
            sc->seed = v;
    }
    const struct backend_ops *ops = rc ? NULL : backend_pick(backend, &rc);
    char why[512], dir[1024], exe[PATH_MAX];
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
    /* several nodes go on together or stop together: none may be left waiting for the others */
    int worst = cluster_agree(rc);
    if (worst) {
        if (!rc && cluster_node() == 0)
            gl_log("another node could not start the run (exit %d): see its messages above", worst);
        cluster_fini();
        return free(sc), worst;
    }
    exe[n] = 0;
    if (out)
        str_copy(dir, sizeof dir, out);
    else
        results_default_dir(dir, sizeof dir, "results", sc->name);
    if (cluster_node() == 0) {
        printf("gauntlet: %s: %lld ranks x %lld iterations x %d mitigation(s)", sc->name, (long long)sc->ranks,
               (long long)sc->iterations, sc->n_mitigations);
        if (cluster_nodes() > 1)
            printf(" on each of %d nodes", cluster_nodes());
        printf("; results in %s\n", dir);
    }
    fflush(stdout);
    struct run_options opt = { .out_dir = dir, .exe = exe, .headless = headless || cluster_node() != 0 };
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
    cluster_fini();
    free(sc);
    return rc;
}

/* gauntlet check */
static int cmd_check(int argc, char **argv)
{
    if (argc != 2)
        return usage_error("expected one scenario file%s", "");
    struct scenario *sc = xcalloc(1, sizeof *sc);
    int rc = load(argv[1], sc);
    if (!rc) {
        char why[512];
        if ((rc = backend_find("sim")->check(sc, why, sizeof why)) != 0)
            gl_log("%s%s%s", scenario_located(sc, why) ? "" : sc->file,
                   scenario_located(sc, why) ? "" : ": ", why);
        else
            printf("%s: ok: '%s', %lld ranks, %lld iterations, %d mitigation(s)\n", argv[1], sc->name,
                   (long long)sc->ranks, (long long)sc->iterations, sc->n_mitigations);
    }
    free(sc);
    return rc;
}

/* gauntlet list */
static int cmd_list(int argc, char **argv)
{
    int keys = argc == 2 && strcmp(argv[1], "--keys") == 0;
    if (argc > 1 && !keys)
        return usage_error("unknown argument '%s' (expected --keys)", argv[1]);
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
    if (keys) {
        printf("scenario keys:\n");
        scenario_print_keys(stdout, scenario_params, "");
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
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
    if (argc < 2)
        return usage_error("%s", "expected a command");
    const char *cmd = argv[1];
    util_set_command(cmd);   /* its messages say "gauntlet CMD:" (a run's supervisor says its host too) */
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("gauntlet %s (backends:", GAUNTLET_VERSION);
        for (int i = 0; backend_table[i]; i++)
            printf(" %s", backend_table[i]->name);
        printf(")\n");
        return EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "list") == 0)
        return cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "accept") == 0)
        return accept_main(argc - 1, argv + 1);
    if (strcmp(cmd, "view") == 0)
        return tui_view_main(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return report_main(argc - 1, argv + 1);
    if (strcmp(cmd, "analyze") == 0)
        return analyze_main(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return bench_main(argc - 1, argv + 1);
    if (strcmp(cmd, "campaign") == 0)
        return campaign_main(argc - 1, argv + 1);
    return usage_error("unknown command '%s'", cmd);
}
