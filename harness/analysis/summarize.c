/* harness/analysis/summarize.c: `gauntlet summarize RUNDIR` — rebuilds the summary of a run that was killed before
 * it wrote one (a launcher's SIGKILL, a dead supervisor) from what it had written durably: events.jsonl (the runs,
 * each rank's iterations and GEMM phases, the faults) and power.csv (each run's power, analysed as `analyze` does).
 * The result is marked incomplete; a complete summary is never overwritten without --force. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "analysis_json.h"
#include "analyze.h"
#include "cli.h"
#include "stats.h"
#include "util.h"

#define SZ_MAX_RUNS 256
#define SZ_MAX_RANKS 4096

const struct cli_cmd summarize_cli = {
    "summarize", "RUNDIR", 1, 1, "rebuild a killed run's summary.json from its events.jsonl and power.csv",
    "For a run that ended before it wrote summary.json (the launcher's SIGKILL after a timeout, a supervisor that\n"
    "died): each mitigation run's iterations, iteration times, GEMM rate and power (as `analyze` computes it), the\n"
    "fault events as recorded; marked `incomplete`. A summary the run wrote itself is kept unless --force.\n",
    { { "force", NULL, "rebuild even over a summary.json the run wrote itself" }, { 0 } },
};

/* What one mitigation run left in events.jsonl. */
struct sz_run {
    json_t *begin, *end;       /* its run_begin and run_end events (end NULL: it did not end) */
    struct series iter_s;      /* every rank's iteration durations */
    int64_t *done;             /* per rank: iterations completed (the highest iter + 1) */
    double flops, compute_s;
    double *rflops, *rcompute;  /* per rank */
    struct series busbw;        /* each communication phase's bus bandwidth (GB/s) */
    double *comm_t;             /* per rank: the open communication phase's start */
    double t0_s, t1_s;
};

/* Reads events.jsonl into runs[] (per run) and the run's start event and fault events. 0, or -1 (said why). */
static int sz_events(const char *dir, struct sz_run *runs, int *nrun, json_t **start, json_t *faults, int *ended,
                     json_int_t *world)
{
    char path[1200], *line = NULL;
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        gl_log("%s: %s (a results folder has events.jsonl and power.csv)", path, strerror(errno));
        return -1;
    }
    double *open_t = xcalloc(SZ_MAX_RANKS, sizeof *open_t);
    long lineno = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        json_t *ev = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(ev, "event"));
        if (!ev || !type) {   /* a last line cut short by the kill: what came before it stands */
            json_decref(ev);
            continue;
        }
        json_int_t run = json_integer_value(json_object_get(ev, "run")), rank = json_integer_value(json_object_get(ev, "rank"));
        json_t *node = json_object_get(ev, "node");
        double t = json_number_value(json_object_get(ev, "t_s"));
        int in_run = json_is_integer(json_object_get(ev, "run")) && run >= 0 && run < SZ_MAX_RUNS;
        int of_rank = json_is_integer(json_object_get(ev, "rank")) && rank >= 0 && rank < SZ_MAX_RANKS;
        struct sz_run *r = in_run ? &runs[run] : NULL;
        if (strcmp(type, "start") == 0 && !*start && (!node || json_integer_value(node) == 0)) {
            *start = json_incref(ev);
            json_int_t nodes = json_integer_value(json_object_get(ev, "nodes"));
            *world = json_integer_value(json_object_get(ev, "ranks")) * (nodes > 0 ? nodes : 1);
        } else if (strcmp(type, "end") == 0) {
            *ended = 1;
        } else if (r && strcmp(type, "run_begin") == 0 && !r->begin) {
            r->begin = json_incref(ev);
            r->t0_s = t;
            r->t1_s = INFINITY;
            *nrun = (int)run + 1 > *nrun ? (int)run + 1 : *nrun;
        } else if (r && strcmp(type, "run_end") == 0 && !r->end) {
            r->end = json_incref(ev);
            r->t1_s = t;
        } else if (r && of_rank && strcmp(type, "iteration") == 0) {
            series_add(&r->iter_s, json_number_value(json_object_get(ev, "dur_s")));
            if (!r->done)
                r->done = xcalloc(SZ_MAX_RANKS, sizeof *r->done);
            json_int_t it = json_integer_value(json_object_get(ev, "iter"));
            r->done[rank] = it + 1 > r->done[rank] ? it + 1 : r->done[rank];
        } else if (r && of_rank && strcmp(type, "phase_begin") == 0 &&
                   strcmp(json_str_or(json_object_get(ev, "phase")), "compute") == 0) {
            open_t[rank] = t;
        } else if (r && of_rank && strcmp(type, "phase_begin") == 0 &&
                   strcmp(json_str_or(json_object_get(ev, "phase")), "comm") == 0) {
            if (!r->comm_t)
                r->comm_t = xcalloc(SZ_MAX_RANKS, sizeof *r->comm_t);
            r->comm_t[rank] = t;
        } else if (r && of_rank && strcmp(type, "phase_end") == 0 && json_is_number(json_object_get(ev, "bytes")) &&
                   r->comm_t && r->comm_t[rank] > 0 && t > r->comm_t[rank]) {
            json_int_t n = *world > 1 ? *world : 2;   /* nccl-tests' bus bandwidth: algbw x 2(n-1)/n */
            series_add(&r->busbw, json_number_value(json_object_get(ev, "bytes")) / (t - r->comm_t[rank]) / 1e9 * 2.0 *
                                      (double)(n - 1) / (double)n);
            r->comm_t[rank] = 0;
        } else if (r && of_rank && strcmp(type, "phase_end") == 0 && json_is_number(json_object_get(ev, "flops")) &&
                   open_t[rank] > 0) {
            if (!r->rflops) {
                r->rflops = xcalloc(SZ_MAX_RANKS, sizeof *r->rflops);
                r->rcompute = xcalloc(SZ_MAX_RANKS, sizeof *r->rcompute);
            }
            r->flops += json_number_value(json_object_get(ev, "flops"));
            r->compute_s += t - open_t[rank];
            r->rflops[rank] += json_number_value(json_object_get(ev, "flops"));
            r->rcompute[rank] += t - open_t[rank];
            open_t[rank] = 0;
        } else if (strstr(type, "fault") || strcmp(type, "detection") == 0 || strcmp(type, "recovered") == 0 ||
                   strcmp(type, "worker_died") == 0 || strcmp(type, "node_lost") == 0) {
            json_array_append(faults, ev);
        }
        json_decref(ev);
    }
    int bad = ferror(f);
    free(line);
    free(open_t);
    fclose(f);
    if (bad || !*nrun) {
        gl_log("%s: %s", path, bad ? "read error" : "no run began (no run_begin event): nothing to summarize");
        return -1;
    }
    return 0;
}

/* One run's record: what events.jsonl says of it, and its power from power.csv (NULL trace: none). */
static json_t *sz_run_json(struct sz_run *r, int i, int ranks, const struct az_trace *tr)
{
    int64_t iters = -1;   /* completed by every rank */
    for (int k = 0; k < ranks && r->done; k++)
        iters = iters < 0 || r->done[k] < iters ? r->done[k] : iters;
    json_t *o = json_pack("{s:i, s:s, s:o, s:I, s:O, s:b, s:{s:o, s:o, s:o}, s:o}", "run", i,
                          "mitigation", json_str_or(json_object_get(r->begin, "mitigation")), "label",
                          json_copy(json_object_get(r->begin, "label")), "iterations", (json_int_t)(iters < 0 ? 0 : iters),
                          "iterations_planned", json_object_get(r->begin, "iterations"), "complete",
                          r->end && json_is_true(json_object_get(r->end, "complete")), "iteration_s", "p50",
                          json_num(series_pct(&r->iter_s, 50)), "p99", json_num(series_pct(&r->iter_s, 99)), "mean",
                          json_num(series_mean(&r->iter_s)), "tflops",
                          json_num(r->compute_s > 0 && r->flops > 0 ? r->flops / r->compute_s / 1e12 : NAN));   /* both summed over ranks: per GPU */
    if (r->end)
        json_object_set(o, "figures_at_run_end", json_object_get(r->end, "figures"));
    json_object_set_new(o, "busbw_gbs", json_num(series_pct(&r->busbw, 50)));
    json_t *rk = json_array();   /* per GPU: what the acceptance checks read */
    for (int k = 0; k < ranks; k++)
        json_array_append_new(rk, json_pack("{s:i, s:o, s:I}", "rank", k, "tflops",
                                            json_num(r->rcompute && r->rcompute[k] > 0 && r->rflops[k] > 0
                                                         ? r->rflops[k] / r->rcompute[k] / 1e12 : NAN),
                                            "iterations", (json_int_t)(r->done ? r->done[k] : 0)));
    json_object_set_new(o, "ranks", rk);
    json_t *pw = NULL;
    if (tr) {
        struct az_opts ao = { .json = 1, .gpus = 10000, .groups = 1, .max_w = 4000 };
        char title[64];
        snprintf(title, sizeof title, "run %d", i + 1);
        int64_t lo = (int64_t)llround(r->t0_s * 1e9), hi = isfinite(r->t1_s) ? (int64_t)llround(r->t1_s * 1e9) : INT64_MAX;
        if (analyze_window(&ao, tr, title, lo, hi, &pw) != 0)
            pw = NULL;
    }
    json_object_set_new(o, "power", pw ? json_pack("{s:O, s:O}", "aggregate", json_object_get(pw, "aggregate"),
                                                   "per_rank", json_object_get(pw, "per_gpu"))
                                       : json_null());
    json_decref(pw);
    return o;
}

int summarize_main(int argc, char **argv)
{
    struct cli_args a;
    int rc = cli_parse(&summarize_cli, argc, argv, &a);
    if (rc)
        return rc == CLI_HELP ? EXIT_OK : rc;
    char why[1400];
    rc = summarize_dir(a.operand[0], cli_get(&summarize_cli, &a, "force") != NULL, why, sizeof why);
    if (rc)
        gl_log("%s", why);
    else
        printf("%s\n", why);
    return rc;
}

int summarize_dir(const char *dir, int force, char *msg, size_t msgn)
{
    int rc = 0;
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *old = json_load_file(path, 0, NULL);
    if (old && !json_is_true(json_object_get(old, "incomplete")) && !force) {
        json_decref(old);
        snprintf(msg, msgn, "%s: the run wrote its own summary: kept (--force rebuilds it from the record anyway)", path);
        return EXIT_INPUT;
    }
    json_decref(old);
    struct sz_run *runs = xcalloc(SZ_MAX_RUNS, sizeof *runs);
    json_t *start = NULL, *faults = json_array();
    int nrun = 0, ended = 0;
    json_int_t world = 0;
    if (sz_events(dir, runs, &nrun, &start, faults, &ended, &world) != 0) {
        snprintf(msg, msgn, "%s: nothing to summarize (see the message above)", dir);
        rc = EXIT_INPUT;
        goto out;
    }
    int ranks = world > 0 && world <= SZ_MAX_RANKS ? (int)world : 1;
    char csv[1300];
    snprintf(csv, sizeof csv, "%s/power.csv", dir);
    struct az_opts ao = { .max_w = 4000 };
    struct az_trace *tr = access(csv, R_OK) == 0 ? analyze_load(&ao, csv, &rc) : NULL;
    rc = 0;
    json_t *out = json_pack("{s:O, s:O, s:I, s:I, s:b, s:s, s:o, s:O}", "scenario", json_object_get(start, "scenario"),
                            "backend", json_object_get(start, "backend"), "ranks", (json_int_t)ranks, "ranks_total",
                            (json_int_t)ranks, "incomplete", 1,
                            "rebuilt_by", "gauntlet summarize, from events.jsonl and power.csv",
                            "stopped", json_string(ended ? "the run ended, but its summary was not written"
                                                         : "killed before its end: no end event"),
                            "fault_events", faults);   /* O: faults is freed below */
    json_t *rj = json_array();
    for (int i = 0; i < nrun; i++)
        if (runs[i].begin)
            json_array_append_new(rj, sz_run_json(&runs[i], i, ranks, tr));
    json_object_set_new(out, "runs", rj);
    if (!tr)
        json_object_set_new(out, "power_note", json_string("no readable power.csv: the runs' power is null"));
    char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!text || write_file_atomic(path, text, strlen(text)) != 0) {
        snprintf(msg, msgn, "cannot write %s: %s", path, strerror(errno));
        rc = EXIT_ENV;
    } else {
        snprintf(msg, msgn, "%s: rebuilt (incomplete): %d run(s), %zu fault event(s); %s", path, nrun,
                 json_array_size(faults), ended ? "the run had ended" : "the run was killed before its end");
    }
    free(text);
    json_decref(out);
    if (tr)
        analyze_free(tr);
out:
    for (int i = 0; i < SZ_MAX_RUNS; i++) {
        json_decref(runs[i].begin);
        json_decref(runs[i].end);
        series_free(&runs[i].iter_s);
        series_free(&runs[i].busbw);
        free(runs[i].done);
        free(runs[i].rflops);
        free(runs[i].rcompute);
        free(runs[i].comm_t);
    }
    free(runs);
    json_decref(start);
    json_decref(faults);
    return rc;
}
