/* harness/analysis/analyze_run.c: `gauntlet analyze`'s command line, and a results folder read run by run: the times
 * events.jsonl gives each mitigation run cut its power.csv into one trace per run (analyze.c analyses each). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "analyze.h"
#include "analyze_int.h"
#include "param.h"
#include "stats.h"
#include "util.h"

const struct cli_cmd analyze_cli = {
    "analyze", "TRACE.csv|RUNDIR", 1, 1, "power-swing analysis of a trace (power.csv, nvidia-smi or DCGM CSV), or of a "
                                         "results folder run by run",
    "Prints the trace's swing (p99 - p1), ramps, spectrum and the projection to a cluster (docs/power.md). Given a\n"
    "results folder, it reads its power.csv and analyses each mitigation run on its own (the times events.jsonl\n"
    "gives each run). With --align RUNDIR, an outside trace (a PDU's or a shunt meter's CSV, UTC timestamps) is laid\n"
    "on that folder's runs by the wall clock its events.jsonl started at, and analysed run by run.\n",
    { { "run", "N", "of a results folder, run N only (1 is the first, as the console counts)" },
      { "gpus", "N", "the projection: N GPUs (default 10000)" },
      { "groups", "G", "... in G groups (default 1)" },
      { "jitter", "DURATION", "... each group offset by a deviation of DURATION (default 0)" },
      { "hz", "HZ", "the grid's rate (default: a results folder's, the rate its run sampled at; a trace's, its samples' own step)" },
      { "max-w", "W", "the most one GPU can draw (default 4000); readings outside [0, W] are left out" },
      { "strict", NULL, "every warning (rows out of order, repeated rows, readings out of range) is an error" },
      { "threads", "N", "GPUs analysed at once (default: the machine's cores)" },
      { "json", NULL, "the same objects as summary.json (a results folder: an array, one per run)" },
      { "align", "RUNDIR", "cut TRACE.csv by the runs of the results folder RUNDIR (its timestamps read as UTC, laid on the "
                           "run's clock by the wall time its start event gives)" },
      { "clock-offset", "SECONDS", "with --align: the trace's clock minus the run's host's (default 0; may be negative)" },
      { 0 } },
};

/* An option's value as a positive integer (hi: the largest allowed), or the usage error. */
static int az_int(const struct cli_args *a, const char *name, int64_t *out)
{
    const char *v = cli_get(&analyze_cli, a, name);
    if (v && (parse_int(v, out) != 0 || *out <= 0))
        return cli_bad(&analyze_cli, name, v, "expected a positive integer");
    return 0;
}

/* Parses the command line into o and *path; 0, CLI_HELP after --help, or EXIT_INPUT. */
static int az_args(int argc, char **argv, struct az_opts *o, const char **path)
{
    *o = (struct az_opts){ .gpus = 10000, .groups = 1, .max_w = 4000 };
    struct cli_args a;
    int rc = cli_parse(&analyze_cli, argc, argv, &a);
    if (rc)
        return rc;
    *path = a.operand[0];
    o->json = cli_get(&analyze_cli, &a, "json") != NULL;
    o->strict = cli_get(&analyze_cli, &a, "strict") != NULL;
    if ((rc = az_int(&a, "run", &o->run)) || (rc = az_int(&a, "gpus", &o->gpus)) ||
        (rc = az_int(&a, "groups", &o->groups)) || (rc = az_int(&a, "threads", &o->threads)))
        return rc;
    const char *v;
    if ((v = cli_get(&analyze_cli, &a, "jitter")) && parse_duration(v, &o->jitter) != 0)
        return cli_bad(&analyze_cli, "jitter", v, "expected a duration (20ms, 1.5s)");
    if ((v = cli_get(&analyze_cli, &a, "hz")) && (parse_double(v, &o->hz) != 0 || !(o->hz > 0 && o->hz <= 1e6)))
        return cli_bad(&analyze_cli, "hz", v, "expected a rate in (0, 1e6] Hz");
    if ((v = cli_get(&analyze_cli, &a, "max-w")) && (parse_double(v, &o->max_w) != 0 || !(o->max_w > 0)))
        return cli_bad(&analyze_cli, "max-w", v, "expected watts > 0");
    o->align = cli_get(&analyze_cli, &a, "align");
    if ((v = cli_get(&analyze_cli, &a, "clock-offset")) &&
        (!o->align || parse_double(v, &o->clock_offset) != 0 || !(fabs(o->clock_offset) < 86400)))
        return cli_bad(&analyze_cli, "clock-offset", v,
                       o->align ? "expected seconds within a day" : "only with --align RUNDIR");
    return 0;
}

#define AZ_LINE_MAX (1 << 20)   /* the longest line of events.jsonl read (as summarize reads it) */

/* One mitigation run of a results folder: its label and when it ran (node 0's run_begin and run_end). */
struct az_run {
    char label[64];
    double t0_s, t1_s;   /* t1_s: +inf for a run without its end (an interrupted one) */
    double period_s;     /* the iteration's period (its run_end's figures: period_s, the run's analysis's, or before
                          * 2026-12-02 iteration_p50_s; else its iterations': az_periods; 0: none) */
    int period_said;     /* its run_end said it had none (period_s null: fewer than 3 iterations): none taken */
    int analysed;        /* t0_s..t1_s is the stretch the run analysed (run_end's analysed_s: its warm-up left out) */
};

/* The period of each of the n runs whose run_end did not say it (a run killed before): the median of every rank's
 * iterations in the record (path: its events.jsonl), as summarize takes it, so that both read the trace alike (until
 * 2026-12-01 analyze took none there: a held sensor's readings were then read as a signal). A second pass, only for
 * such a record. */
static void az_periods(const char *path, struct az_run *runs, int n)
{
    int need = 0;
    for (int i = 0; i < n; i++)
        need |= !(runs[i].period_s > 0) && !runs[i].period_said;
    FILE *f = need ? fopen_regular(path, "r") : NULL;
    if (!f)
        return;
    struct series *its = xcalloc((size_t)n, sizeof *its);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline_cap(&line, &cap, f, AZ_LINE_MAX)) != -1) {
        if (got < 0 || !strstr(line, "\"iteration\"") || line[got - 1] != '\n')
            continue;   /* -2: too long, said by az_runs's pass */
        json_t *ev = json_loads(line, 0, NULL);
        json_t *run = json_object_get(ev, "run"), *dur = json_object_get(ev, "dur_s"), *rank = json_object_get(ev, "rank");
        const char *type = json_string_value(json_object_get(ev, "event"));
        if (type && strcmp(type, "iteration") == 0 && json_is_integer(run) && json_integer_value(run) >= 0 &&
            json_integer_value(run) < n && json_is_number(dur) && json_is_integer(rank) && json_integer_value(rank) >= 0)
            series_add(&its[json_integer_value(run)], json_number_value(dur));
        json_decref(ev);
    }
    free(line);
    fclose(f);
    for (int i = 0; i < n; i++) {
        double p50 = its[i].n >= 2 ? series_pct(&its[i], 50) : 0;
        if (!(runs[i].period_s > 0) && !runs[i].period_said && p50 > 0 && p50 < 1e6)
            runs[i].period_s = p50;
        series_free(&its[i]);
    }
    free(its);
}

/* Reads the runs from dir/events.jsonl: how many (at most max), or -1 (said why); *utc_ns: the wall clock (ns since
 * the epoch) at the run's t_s 0 (-1: a folder written before it was recorded); *hz: the rate the run sampled at, the
 * grid its own figures were computed on (0: its start event does not say). */
static int az_runs(const char *dir, struct az_run *runs, int max, int64_t *utc_ns, double *hz)
{
    char path[PATH_MAX + 32], *line = NULL;
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/events.jsonl", dir);   /* dir fits: analyze_main checked it */
    FILE *f = fopen_regular(path, "r");   /* a FIFO or device would block or never end */
    if (!f) {
        fprintf(stderr, "gauntlet analyze: %s: %s (a results folder has events.jsonl and power.csv)\n", path,
                errno == EINVAL ? "not a regular file" : strerror(errno));
        return -1;
    }
    int n = 0, bad_line = 0;
    long lineno = 0;
    char never[640] = "";   /* the reason of an end line alone in the record (a set-up that failed) */
    int started = 0;        /* a start event came: the run began, whatever it did next */
    ssize_t got;
    while ((got = getline_cap(&line, &cap, f, AZ_LINE_MAX)) != -1) {   /* a run_end carries its figures: far under it */
        lineno++;
        if (got == -2) {   /* a run writes none: held whole, one such line took the memory it was long */
            fprintf(stderr, "gauntlet analyze: %s:%ld: a line longer than %d bytes (1 MiB): no line a run writes\n",
                    path, lineno, AZ_LINE_MAX);
            bad_line = 1;
            break;
        }
        if (!strstr(line, "\"run_begin\"") && !strstr(line, "\"run_end\"") && !strstr(line, "\"start\"") &&
            !strstr(line, "\"end\""))
            continue;
        if (line[got - 1] != '\n')
            break;   /* a torn last line: what a killed run leaves */
        json_error_t jerr;
        json_t *ev = json_loads(line, 0, &jerr);
        if (!ev || !json_is_object(ev)) {   /* as summarize and view say it: never a run silently gone */
            if (ev)
                fprintf(stderr, "gauntlet analyze: %s:%ld: not a JSON event (not an object)\n", path, lineno);
            else
                fprintf(stderr, "gauntlet analyze: %s:%ld: not a JSON event (column %d: %s)\n", path, lineno,
                        jerr.column, jerr.text);
            json_decref(ev);
            bad_line = 1;
            break;
        }
        const char *type = json_string_value(json_object_get(ev, "event"));
        json_int_t run = json_integer_value(json_object_get(ev, "run")), node = json_integer_value(json_object_get(ev, "node"));
        double t = json_number_value(json_object_get(ev, "t_s"));
        json_t *u = json_object_get(ev, "utc_ns");
        /* times bounded before they become nanoseconds: a run's t_s within 4.2e9 s, a start's wall clock before
         * 2103 (so that the clock offset added to it cannot overflow) */
        if (type && (!(fabs(t) <= 4.2e9) || (json_is_integer(u) && (json_integer_value(u) < 0 ||
                                                                     json_integer_value(u) > (json_int_t)4200000000000000000)))) {
            fprintf(stderr, "gauntlet analyze: %s:%ld: %s: a time out of range (t_s within 4.2e9 s, utc_ns within "
                    "0..4.2e18 ns)\n", path, lineno, type);
            bad_line = 1;
            json_decref(ev);
            break;
        }
        if (type && node == 0 && strcmp(type, "end") == 0 && !n && !started) {   /* a set-up that failed: why */
            const char *why = json_string_value(json_object_get(ev, "reason"));
            str_copy(never, sizeof never, why ? why : "");
        } else if (type && node == 0 && strcmp(type, "start") == 0) {
            started = 1;
            *utc_ns = json_is_integer(u) ? json_integer_value(u) : -1;
            *hz = az_start_hz(ev);
        } else if (type && node == 0 && (strcmp(type, "run_begin") == 0 || strcmp(type, "run_end") == 0) &&
                   !(json_is_integer(json_object_get(ev, "run")) && run >= 0 && run < max)) {
            fprintf(stderr, "gauntlet analyze: %s:%ld: %s: run: expected an integer from 0 to %d\n", path, lineno, type,
                    max - 1);
            bad_line = 1;
            json_decref(ev);
            break;
        } else if (type && node == 0 && (strcmp(type, "run_begin") == 0 || strcmp(type, "run_end") == 0) &&
                   !json_is_number(json_object_get(ev, "t_s"))) {   /* as summarize: not read as 0 (until 2026-12-01 a
                                                                      * run from the record's start, or one of no time) */
            fprintf(stderr, "gauntlet analyze: %s:%ld: %s: t_s: expected a number (seconds since the run began)\n", path,
                    lineno, type);
            bad_line = 1;
            json_decref(ev);
            break;
        } else if (type && node == 0 && run >= 0 && run < max) {
            if (strcmp(type, "run_begin") == 0) {
                json_t *l = json_object_get(ev, "label");
                const char *name = json_string_value(l ? l : json_object_get(ev, "mitigation"));
                str_copy(runs[run].label, sizeof runs[run].label, name ? name : "?");
                runs[run].t0_s = t;
                runs[run].t1_s = INFINITY;
                n = (int)run + 1 > n ? (int)run + 1 : n;
            } else if (strcmp(type, "run_end") == 0) {
                runs[run].t1_s = t;
                json_t *fig = json_object_get(ev, "figures"), *st = json_object_get(fig, "analysed_s");
                json_t *pv = json_object_get(fig, "period_s");   /* the run's analysis's (summarize's rule) */
                double p = json_number_value(json_is_number(pv) ? pv : json_object_get(fig, "iteration_p50_s"));
                runs[run].period_s = p > 0 && p < 1e6 ? p : 0;
                runs[run].period_said = json_is_null(pv);   /* the run had none: not guessed from its events */
                double a = json_number_value(json_array_get(st, 0)), b = json_number_value(json_array_get(st, 1));
                if (json_is_number(json_array_get(st, 0)) && json_is_number(json_array_get(st, 1)) && a < b &&
                    a >= runs[run].t0_s && a >= -4.2e9 && b <= 4.2e9) {   /* the run's own figures' stretch */
                    runs[run].t0_s = a;
                    runs[run].t1_s = b;
                    runs[run].analysed = 1;
                }
            }
        }
        json_decref(ev);
    }
    int bad = ferror(f);
    free(line);
    fclose(f);
    if (bad_line)
        return -1;
    if (bad || !n) {
        if (!bad && never[0])
            fprintf(stderr, "gauntlet analyze: %s: the run never began: %s\n", path, never);
        else
            fprintf(stderr, "gauntlet analyze: %s: %s\n", path, bad ? "read error" : "no run began (no run_begin event)");
        return -1;
    }
    az_periods(path, runs, n);
    return n;
}

/* A results folder: each run of its power.csv on its own (o->run: that one only); with trace, each run of that
 * outside trace instead, laid on the run's clock (o->align). */
static int az_rundir(const struct az_opts *o, const char *dir, const char *trace)
{
    enum { MAX_RUNS = 256 };
    struct az_run *runs = xcalloc(MAX_RUNS, sizeof *runs);
    int64_t utc = -1;
    double run_hz = 0;
    int n = az_runs(dir, runs, MAX_RUNS, &utc, &run_hz), rc = 0;
    if (n < 0) {
        free(runs);
        return EXIT_INPUT;
    }
    if (o->run > n) {
        fprintf(stderr, "gauntlet analyze: --run %lld: %s has runs 1..%d\n", (long long)o->run, dir, n);
        free(runs);
        return EXIT_INPUT;
    }
    char csv[PATH_MAX + 32];
    snprintf(csv, sizeof csv, "%s", trace ? trace : dir);   /* each fits: analyze_main checked them */
    if (!trace)
        snprintf(csv, sizeof csv, "%s/power.csv", dir);
    /* read once: each run is a window of it; a results folder's own power.csv is read to its last whole row (a kill or
     * a crash may leave a row cut short, NUL bytes at the end: said, ignored), an outside trace whole */
    struct az_trace *tr = trace ? analyze_load(o, csv, &rc) : analyze_load_rows(o, csv, &rc);
    if (!tr) {
        free(runs);
        return rc;
    }
    if (trace && utc < 0) {
        fprintf(stderr, "gauntlet analyze: --align %s: its start event has no utc_ns (written by an older gauntlet): "
                "no wall clock to lay %s on\n", dir, trace);
        rc = EXIT_INPUT;
    } else if (trace && !analyze_shift(tr, utc + (int64_t)llround(o->clock_offset * 1e9))) {
        fprintf(stderr, "gauntlet analyze: --align: %s's times are seconds, taken as seconds since the run's start\n",
                trace);
    }
    json_t *all = o->json && !rc ? json_array() : NULL;
    int done = 0, cut = 0, lost_ended = 0;   /* runs analysed; runs without power that did not end, that ended */
    for (int i = 0; i < n && !rc; i++) {
        if (o->run && i != o->run - 1)
            continue;
        char title[PATH_MAX + 300], why[256] = "";
        snprintf(title, sizeof title, "%s run %d/%d (%s; %s)", csv, i + 1, n, runs[i].label,
                 runs[i].analysed ? "the stretch the run analysed, its warm-up left out"
                                  : "from its start: the run did not say where its analysis began");
        int64_t edge = runs[i].analysed ? AZ_CSV_STAMP_NS : 0;   /* the stretch's end ticks, as power.csv rounds them */
        int64_t lo = (int64_t)llround(runs[i].t0_s * 1e9) - edge;
        int64_t hi = isfinite(runs[i].t1_s) ? (int64_t)llround(runs[i].t1_s * 1e9) + edge : INT64_MAX;
        json_t *one = NULL;
        struct az_opts ro = *o;
        ro.period_s = runs[i].period_s;   /* the run's iterations, whichever meter read them */
        if (!trace && !(o->hz > 0) && run_hz > 0) {
            ro.hz = run_hz;   /* its own power.csv on the grid the run used: its own figures, however late its ticks */
            ro.hz_run = 1;
        }
        ro.why = why;
        ro.why_n = sizeof why;
        /* a run whose window cannot be analysed (no row yet: killed as it began) is said and the others still are */
        int wrc = analyze_window(&ro, tr, title, lo, hi, all ? &one : NULL);
        if (wrc && !why[0]) {
            rc = wrc;   /* not the window's data: the options (said on stderr) */
            break;
        }
        if (wrc) {
            if (isfinite(runs[i].t1_s))
                lost_ended++;
            else
                cut++;
            if (!all)
                printf("%s\n  power: none (%s)\n", title, why);
            else
                one = json_pack("{s:n, s:o}", "power", "power_note", az_json_string(why));
        } else {
            done++;
        }
        if (one) {
            json_object_set_new(one, "run", json_integer(i + 1));
            json_object_set_new(one, "label", az_json_string(runs[i].label));
            json_object_set_new(one, "stretch", json_pack("{s:f, s:o, s:s}", "from_s", runs[i].t0_s, "to_s",
                                                          isfinite(runs[i].t1_s) ? json_real(runs[i].t1_s) : json_null(),
                                                          "of", runs[i].analysed ? "analysed" : "run"));
            json_array_append_new(all, one);
        }
        if (!all && !o->run && i + 1 < n)
            putchar('\n');
    }
    if (!rc && (lost_ended || !done)) {
        fprintf(stderr, "gauntlet analyze: %s: %s: exit 2\n", dir, lost_ended ? "a run that ended has no power to "
                "analyse (said above)" : "no run has power to analyse");
        rc = EXIT_INPUT;
    } else if (!rc && cut) {
        fprintf(stderr, "gauntlet analyze: %s: warning: %d run(s) killed before their end have no power to analyse "
                "(said above, power null): the other run(s) are analysed\n", dir, cut);
    }
    if (all && (!rc || done)) {   /* the runs analysed are printed whatever became of the others */
        char *text = json_dumps(all, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if (!text || puts(text) == EOF || fflush(stdout) != 0)
            rc = EXIT_ENV;
        free(text);
    }
    json_decref(all);
    analyze_free(tr);
    free(runs);
    return rc;
}

int analyze_main(int argc, char **argv)
{
    struct az_opts o;
    const char *path;
    int rc = az_args(argc, argv, &o, &path);
    if (rc)
        return rc == CLI_HELP ? EXIT_OK : rc;
    /* a path is never cut short: one too long for a file name built on it is refused */
    if (path_fits("TRACE.csv|RUNDIR", path, PATH_MAX - 32) != 0 || (o.align && path_fits("--align", o.align, PATH_MAX - 32)))
        return EXIT_INPUT;
    struct stat st;
    if (o.align && (stat(o.align, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "gauntlet analyze: --align %s: not a results folder\n", o.align);
        return EXIT_INPUT;
    }
    if (o.align)
        rc = az_rundir(&o, o.align, path);
    else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        rc = az_rundir(&o, path, NULL);
    else if (o.run)
        rc = (fprintf(stderr, "gauntlet analyze: --run: %s is a trace, not a results folder\n", path), EXIT_INPUT);
    else
        rc = analyze_file(&o, path, NULL);
    int out = stdout_done();   /* the analysis is the output: one lost to stdout is said, not only exit 3 */
    return rc ? rc : out;
}
