/* harness/analysis/summarize.c: `gauntlet summarize RUNDIR` — rebuilds the summary of a run that was killed before
 * it wrote one (a launcher's SIGKILL, a dead supervisor) from what it had written durably: events.jsonl (the runs,
 * each rank's iterations and GEMM phases, the faults) and power.csv (each run's power, analysed as `analyze` does),
 * both read by summarize_read.c. The result is marked incomplete; a complete summary is never overwritten without
 * --force. */
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
#include "summarize_int.h"
#include "util.h"

const struct cli_cmd summarize_cli = {
    "summarize", "RUNDIR", 1, 1, "rebuild a killed run's summary.json from its events.jsonl and power.csv",
    "For a run that ended before it wrote summary.json (the launcher's SIGKILL after a timeout, a supervisor that\n"
    "died): each mitigation run's iterations, iteration times, GEMM rate and power (as `analyze` computes it), the\n"
    "fault events as recorded; marked `incomplete`. A summary the run wrote itself is kept unless --force.\n"
    "A last line cut short (no newline) and NUL bytes at the end of either file are ignored, and said.\n"
    "A folder a run still holds (its .lock) is refused with exit 3: that run writes its own summary.\n",
    { { "force", NULL, "rebuild even over a summary.json the run wrote itself" }, { 0 } },
};

/* Returns a copy of key of o when it is a string, else null. */
static json_t *sz_string_or_null(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_copy(v) : json_null();
}

/* The run's label: its run_begin's, else its mitigation's name (what a run writes for a run without a label), else
 * "run N". */
static json_t *sz_label(json_t *begin, int i)
{
    json_t *label = json_object_get(begin, "label"), *mit = json_object_get(begin, "mitigation");
    if (json_is_string(label) && json_string_length(label))
        return json_copy(label);
    if (json_is_string(mit) && json_string_length(mit))
        return json_copy(mit);
    char name[32];
    snprintf(name, sizeof name, "run %d", i + 1);
    return json_string(name);
}

/* The stretch node 0's run_end says the run analysed (figures.analysed_s: from the first iteration end past the
 * power's settling to the run's end): 1 and [*a, *b], or 0 where it said none (a run killed before its end). */
static int sz_analysed(const struct sz_run *r, double *a, double *b)
{
    json_t *st = json_object_get(json_object_get(r->end, "figures"), "analysed_s");
    *a = json_number_value(json_array_get(st, 0));
    *b = json_number_value(json_array_get(st, 1));
    return r->end && r->end_zero && json_is_number(json_array_get(st, 0)) && json_is_number(json_array_get(st, 1)) &&
           *a >= -SZ_TIME_MAX && *b <= SZ_TIME_MAX && *a < *b;
}

/* The projection the run made (its start's: GPUs, groups, spec; its run_end's jitter; its seed) into ao: 1, or 0
 * where the record cannot say it (a record from before the start said it: analyze's 10,000 GPUs in one group; several
 * groups of a run that ended before it said their jitter: *proj_why says why, for no projection). */
static int sz_projection(const json_t *start, const struct sz_run *r, struct az_opts *ao, struct an_spec *spec,
                         const char **proj_why)
{
    const json_t *p = json_object_get(start, "projection"), *seed = json_object_get(start, "seed");
    json_int_t gpus = json_integer_value(json_object_get(p, "gpus")), groups = json_integer_value(json_object_get(p, "groups"));
    double jitter = json_num_value(json_object_get(json_object_get(r->end, "figures"), "jitter_s"));
    *proj_why = NULL;
    if (!p || gpus < 1 || gpus > 10000000 || groups < 1 || groups > gpus)
        return 0;
    if (!json_object_get(p, "spec"))   /* a record from before the start said its spec (2026-11-30): none to check,
                                        * the run's GPUs and groups all the same (they once read 10,000 in 1) */
        *spec = (struct an_spec){ .band_lo_hz = 0.1, .band_hi_hz = 20 };
    else if (analysis_spec_from_json(json_object_get(p, "spec"), spec))
        return 0;   /* refused where the start event was read (sz_projection_check) */
    ao->gpus = gpus;
    ao->groups = groups;
    ao->spec = spec;
    /* the run's own, 0 included (a valid seed: until 2026-12-01 read as 1 here, another projection than the run's) */
    ao->seed_set = json_is_integer(seed) && json_integer_value(seed) >= 0;
    ao->seed = ao->seed_set ? (unsigned long long)json_integer_value(seed) : 1;
    if (groups > 1 && !(jitter >= 0 && jitter <= 3600))
        *proj_why = "the run ended before it said its groups' jitter (run_end figures.jitter_s): no projection of "
                    "several groups without it";
    ao->jitter = jitter >= 0 && jitter <= 3600 ? jitter : 0;
    return 1;
}

/* The run's power from the trace: what `analyze RUNDIR --json` gives for it (null without a usable trace, and why in
 * note, note_n bytes); period_s: its iteration's (0: not known); projected as the run projected (sz_projection). */
static json_t *sz_power_json(const json_t *start, const struct sz_run *r, int i, const struct az_trace *tr,
                             double period_s, double hz, char *note, size_t note_n)
{
    json_t *pw = NULL;
    const char *proj_why = NULL;
    if (tr) {   /* hz: the run's sampling rate, the grid it analysed on (0: the samples' own) */
        struct az_opts ao = { .json = 1, .gpus = 10000, .groups = 1, .max_w = 4000, .period_s = period_s, .hz = hz,
                              .hz_run = hz > 0, .why = note, .why_n = note_n };
        struct an_spec spec;
        sz_projection(start, r, &ao, &spec, &proj_why);
        char title[64];
        snprintf(title, sizeof title, "run %d", i + 1);
        /* |t_s| <= SZ_TIME_MAX: in range of int64 ns */
        double a, b;
        int analysed = sz_analysed(r, &a, &b);   /* the run's own stretch, its warm-up left out, where it said it */
        int64_t edge = analysed ? AZ_CSV_STAMP_NS : 0;   /* the stretch's end ticks, as power.csv rounds them */
        int64_t lo = (int64_t)llround((analysed ? a : r->t0_s) * 1e9) - edge;
        int64_t hi = analysed ? (int64_t)llround(b * 1e9) + edge
                   : isfinite(r->t1_s) ? (int64_t)llround(r->t1_s * 1e9) : INT64_MAX;
        if (analyze_window(&ao, tr, title, lo, hi, &pw) != 0) {
            pw = NULL;
            if (!note[0])
                snprintf(note, note_n, "power.csv could not be analysed over the run's time (said on stderr)");
        }
        if (pw)
            json_object_set_new(pw, "stretch", json_string(analysed ? "analysed: the stretch the run analysed, its warm-up left out"
                                                                    : "run: from its start (its warm-up in): the run did not say where its analysis began"));
    }
    json_t *out = pw ? json_object() : json_null();
    if (pw) {
        json_object_set(out, "stretch", json_object_get(pw, "stretch"));
        json_object_set(out, "aggregate", json_object_get(pw, "aggregate"));
        if (proj_why) {
            json_object_set_new(json_object_get(out, "aggregate"), "projection", json_null());
            json_object_set_new(json_object_get(out, "aggregate"), "projection_note", json_string(proj_why));
        }
        json_object_set(out, "per_rank", json_object_get(pw, "per_gpu"));
        json_t *pj = json_object_get(json_object_get(out, "aggregate"), "projection");
        const char *mit = json_string_value(json_object_get(r->begin, "mitigation"));
        if (json_is_object(pj) && mit && strcmp(mit, "bess") == 0) {
            /* a facility battery's spec is the grid's, behind the battery, which is not rebuilt here: the verdict on
             * the GPUs' side would read as the grid's (until 2026-12-02 it was given, PASS live and FAIL rebuilt) */
            json_object_set_new(pj, "spec", json_null());
            json_object_set_new(pj, "spec_side", json_string("not judged: a facility battery's spec is the grid's, "
                                                             "behind the battery, which a rebuilt summary does not model"));
        }
    }
    json_decref(pw);
    return out;
}

/* One run's record: what events.jsonl says of it, and its power from the trace (NULL: none). */
static json_t *sz_run_json(const struct sz_record *z, struct sz_run *r, int i, const struct az_trace *tr)
{
    /* completed by every rank still in the run, as live: shrink's dropped ones left out (where it left none, as
     * far as the furthest went); a rank with no lines of its own (forward: nodes) counts as its node's lines say */
    int64_t iters = -1, most = 0, per_node = json_integer_value(json_object_get(z->start, "ranks"));
    /* past every rank that spoke and every node that said its count, a rank counts 0 unless dropped: those are not
     * walked one by one (a record of 4,194,304 ranks and 65,536 runs once took 2.7e11 steps: tens of minutes; one
     * drop of the last rank walked them all again, until 2026-12-02): fewer ranks dropped in all than lie past them,
     * and one of them is in the run */
    int64_t known = (int64_t)r->top, by_node = per_node > 0 ? (int64_t)r->node_top * per_node : z->world;
    known = by_node > known ? by_node : known;   /* what appeared, not what was allocated (up to twice it) */
    known = known < z->world ? known : z->world;
    int64_t past = z->world - known;   /* ranks past them still in the run (where every one might be dropped: counted) */
    for (int64_t k = known; past > 0 && past <= (int64_t)z->ndropped && k < z->world && (size_t)k < z->ndrop; k++)
        past -= z->drop_run[k] <= i;
    if (past > 0)
        iters = 0;
    for (int64_t k = 0; k < known; k++) {
        int64_t d = (size_t)k < r->nrk && r->rk[k].spoke ? r->rk[k].done : 0, node = per_node > 0 ? k / per_node : 0;
        if (!((size_t)k < r->nrk && r->rk[k].spoke) && (size_t)node < r->nnode && r->node_done[node] > 0)
            d = r->node_done[node];
        most = d > most ? d : most;
        if ((size_t)k < z->ndrop && z->drop_run[k] <= i)
            continue;
        iters = iters < 0 || d < iters ? d : iters;
    }
    if (iters < 0)
        iters = most;
    json_t *o = json_object(), *its = json_object();
    json_object_set_new(o, "run", json_integer(i));
    json_object_set_new(o, "mitigation", sz_string_or_null(r->begin, "mitigation"));
    json_object_set_new(o, "label", sz_label(r->begin, i));
    json_object_set_new(o, "iterations", json_integer(iters < 0 ? 0 : iters));
    json_t *planned = json_object_get(r->begin, "iterations");
    json_object_set_new(o, "iterations_planned", json_is_integer(planned) ? json_copy(planned) : json_null());
    json_object_set_new(o, "complete", json_boolean(r->end && json_is_true(json_object_get(r->end, "complete"))));
    json_object_set_new(its, "p50", json_num(series_pct(&r->iter_s, 50)));
    json_object_set_new(its, "p99", json_num(series_pct(&r->iter_s, 99)));
    json_object_set_new(its, "mean", json_num(series_mean(&r->iter_s)));
    json_object_set_new(o, "iteration_s", its);
    json_object_set_new(o, "tflops", json_num(r->compute_s > 0 && r->flops > 0 ? r->flops / r->compute_s / 1e12 : NAN));
    if (r->end && json_object_get(r->end, "figures"))
        json_object_set(o, "figures_at_run_end", json_object_get(r->end, "figures"));
    /* nccl-tests' bus bandwidth, as live: algbw x 2(n-1)/n with the start's bus_ranks (emulate_ranks where set, else
     * every rank of every node; one rank: null, no bus); phases: the median over the steps that ran alone, of their bus bytes */
    json_t *br = json_object_get(z->start, "bus_ranks");
    double nb = json_is_integer(br) && json_integer_value(br) > 0 ? (double)json_integer_value(br) : (double)z->world;
    json_object_set_new(o, "busbw_gbs", json_num(nb < 2 ? NAN : r->bus_gbs.n ? series_pct(&r->bus_gbs, 50)
                                                 : nb > 0 && r->comm_s.n ? r->comm_bytes / series_pct(&r->comm_s, 50) / 1e9
                                                                               * 2.0 * (nb - 1) / nb : NAN));
    json_t *rk = json_array();   /* per GPU: what the acceptance checks read; up to the highest rank that spoke (a
                                  * record that declares millions of ranks and holds none costs nothing) */
    for (int64_t k = 0; k < z->world && (size_t)k < r->top; k++) {
        struct sz_rank *s = (size_t)k < r->nrk ? &r->rk[k] : NULL;
        json_t *e = json_object();
        json_object_set_new(e, "rank", json_integer(k));
        /* as a live summary gives them: the median of its compute phases' rates, and its FLOPs over its compute time */
        json_object_set_new(e, "tflops", json_num(s && s->rate.n ? series_pct(&s->rate, 50) : NAN));
        json_object_set_new(e, "tflops_mean", json_num(s && s->compute_s > 0 && s->flops > 0 ? s->flops / s->compute_s / 1e12 : NAN));
        json_object_set_new(e, "iterations", json_integer(s ? s->done : 0));
        json_array_append_new(rk, e);
    }
    json_object_set_new(o, "ranks", rk);
    /* the iteration's period: the one node 0's run_end says its analysis took (null: none, fewer than 3
     * iterations), else (a record before 2026-12-02) its iterations' p50, else the median of every rank's */
    json_t *fig = json_object_get(r->end, "figures"), *pv = json_object_get(fig, "period_s");
    double p50 = json_number_value(json_object_get(fig, "iteration_p50_s")), pn = json_number_value(pv);
    double period = json_is_number(pv) ? (pn > 0 && pn < 1e6 ? pn : 0) : json_is_null(pv) ? 0
                  : p50 > 0 && p50 < 1e6 ? p50 : r->iter_s.n >= 2 ? series_pct(&r->iter_s, 50) : 0;
    char note[256] = "";   /* a run's own reason for no power (a trace for the others): none of its rows, too few */
    json_object_set_new(o, "power",
                        sz_power_json(z->start, r, i, tr, period > 0 ? period : 0, az_start_hz(z->start), note, sizeof note));
    if (note[0])
        json_object_set_new(o, "power_note", json_string(note));
    return o;
}

/* The rebuilt summary (power_note: why the runs' power is null, "" when it is not). */
static json_t *sz_summary_json(struct sz_record *z, const struct az_trace *tr, const char *power_note, int *nrun)
{
    json_t *out = json_object(), *rj = json_array();
    json_object_set_new(out, "scenario", sz_string_or_null(z->start, "scenario"));
    json_object_set_new(out, "backend", sz_string_or_null(z->start, "backend"));
    /* as a live summary: ranks per node, ranks_total the world (gauntlet accept places each GPU on its node so) */
    json_t *per_node = json_object_get(z->start, "ranks");
    json_object_set_new(out, "ranks", json_is_integer(per_node) ? json_integer(json_integer_value(per_node))
                                                                : json_integer(z->world));
    json_object_set_new(out, "ranks_total", json_integer(z->world));
    json_object_set_new(out, "incomplete", json_true());
    json_object_set_new(out, "rebuilt_by", json_string("gauntlet summarize, from events.jsonl and power.csv"));
    json_object_set_new(out, "stopped", json_string(z->ended ? "the run ended, but its summary was not written"
                                                             : "killed before its end: no end event"));
    json_object_set(out, "fault_events", z->faults);
    *nrun = 0;
    for (size_t i = 0; i < z->nruns; i++)
        if (z->runs[i].begin) {
            json_array_append_new(rj, sz_run_json(z, &z->runs[i], (int)i, tr));
            (*nrun)++;
        }
    json_object_set_new(out, "runs", rj);
    if (power_note[0])
        json_object_set_new(out, "power_note", json_string(power_note));
    return out;
}

static summarize_cluster_fn sz_cluster;

void summarize_set_cluster(summarize_cluster_fn fn) { sz_cluster = fn; }

/* Several nodes: the cluster's summed power of each run (sz_cluster), over the run's window. */
static void sz_cluster_power(const char *dir, const struct sz_record *z, json_t *out)
{
    if (!sz_cluster || json_integer_value(json_object_get(z->start, "nodes")) < 2)
        return;
    json_t *win = json_array();
    for (size_t i = 0; i < z->nruns; i++)
        if (z->runs[i].begin) {   /* the stretch node 0's run_end says it analysed, as the run summed it */
            json_t *st = json_object_get(json_object_get(z->runs[i].end, "figures"), "analysed_s");
            double a = json_number_value(json_array_get(st, 0)), b = json_number_value(json_array_get(st, 1));
            int said = z->runs[i].end_zero && json_is_number(json_array_get(st, 0)) && json_is_number(json_array_get(st, 1)) &&
                       a >= -SZ_TIME_MAX && b <= SZ_TIME_MAX && a < b;
            json_array_append_new(win, json_pack("{s:I, s:f, s:o, s:b}", "run", (json_int_t)i, "from_s",
                                                 said ? a : z->runs[i].t0_s, "to_s", said ? json_real(b) : json_num(z->runs[i].t1_s),
                                                 "analysed", said));
        }
    sz_cluster(dir, z->start, z->clock_uncert_s, z->faults, win, out);
    json_decref(win);
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
    else if (printf("%s\n", why) < 0 || fflush(stdout) != 0)
        rc = EXIT_ENV;
    return rc;
}

/* Checks the summary.json already in the folder: 0 when it may be (re)written, else the exit code with msg. */
static int sz_existing(const char *path, int force, int *own, char *msg, size_t msgn)
{
    *own = 0;
    int missing = 0, rc = 0;
    FILE *f = sz_open(path, &missing, &rc, msg, msgn);
    if (!f)
        return missing ? 0 : rc;
    json_error_t err;
    json_t *old = json_loadf(f, 0, &err);
    fclose(f);
    if (!old && !force) {
        snprintf(msg, msgn, "%s:%d: not JSON (%s): no summary gauntlet wrote; kept (--force replaces it)", path, err.line,
                 err.text);
        return EXIT_INPUT;
    }
    int complete = old && !json_is_true(json_object_get(old, "incomplete"));
    json_decref(old);
    *own = complete;
    if (complete && !force) {
        snprintf(msg, msgn, "%s: the run wrote its own summary: kept (--force rebuilds it from the record anyway)", path);
        return EXIT_INPUT;
    }
    return 0;
}

int sz_power(const char *dir, struct az_trace **tr, char *note, size_t noten, char *msg, size_t n)
{
    /* the trace keeps the path it was loaded from, to name it in what the analysis says later (after this returns):
     * static, not on this frame (one summarize's trace at a time: summarize_dir frees it before it returns) */
    static char path[1200];
    struct az_opts ao = { .max_w = 4000 };
    *tr = NULL;
    snprintf(path, sizeof path, "%s/power.csv", dir);   /* sz_events checked that dir leaves room */
    int missing = 0, rc = 0;
    FILE *f = sz_open(path, &missing, &rc, msg, n);
    if (!f) {
        snprintf(note, noten, "no power.csv: the runs' power is null");
        return missing ? 0 : rc;
    }
    int64_t size, whole, content;
    if (sz_tail(fileno(f), &size, &whole, &content) != 0) {
        snprintf(msg, n, "%s: cannot read: %s", path, strerror(errno));
        fclose(f);
        return EXIT_ENV;
    }
    fclose(f);
    /* its whole rows, read in place (a row cut short and NUL bytes at the end: said, ignored) */
    if (whole > 0)
        *tr = analyze_load_rows(&ao, path, &rc);
    else
        gl_log("%s: no whole row (no newline%s): ignored", path, size > content ? "; NUL bytes at its end" : "");
    if (!*tr)
        snprintf(note, noten, "%s", whole ? "power.csv could not be read as a power trace (said above): the runs' power "
                                            "is null" : "power.csv has no whole row: the runs' power is null");
    return 0;
}


static int summarize_locked(const char *dir, const char *path, int force, char *msg, size_t msgn);

int summarize_dir(const char *dir, int force, char *msg, size_t msgn)
{
    char path[1200];
    if (snprintf(path, sizeof path, "%s/summary.json", dir) >= (int)sizeof path) {
        snprintf(msg, msgn, "%.64s...: results folder path too long", dir);
        return EXIT_INPUT;
    }
    /* a run still writing the folder holds its .lock: its own summary comes at its end, and one rebuilt now would
     * call it killed (refused as `run` refuses a folder in use: exit 3; a killed run's lock is gone with it). The
     * shared lock taken to tell is kept while the folder is read: a run started meanwhile is refused (until
     * 2026-11-30 it was given up first, and a run could clear the folder under the rebuild) */
    struct stat st;   /* a file, or nothing, given for the folder: bad input (exit 2), as `report` and `view` say */
    int missing = stat(dir, &st) != 0;
    if (missing || !S_ISDIR(st.st_mode)) {
        snprintf(msg, msgn, "%s: %s", dir, missing ? strerror(errno) : "not a results folder (a folder a run wrote)");
        return EXIT_INPUT;
    }
    char pid[32];
    int keep = -1, held = dir_lock_share(dir, pid, sizeof pid, &keep);
    if (held != 0) {
        if (held > 0)
            snprintf(msg, msgn, "results folder %s is in use by a run still going (pid %s): it writes its own summary "
                     "at its end; summarize a run that was killed", dir, pid);
        else
            snprintf(msg, msgn, "cannot look at %s/.lock: %s", dir, strerror(errno));
        return EXIT_ENV;
    }
    int rc = summarize_locked(dir, path, force, msg, msgn);
    if (keep >= 0)
        close(keep);
    return rc;
}

/* summarize_dir's rebuild, the folder's shared lock held. */
static int summarize_locked(const char *dir, const char *path, int force, char *msg, size_t msgn)
{
    char note[256] = "";
    int own = 0, rc = sz_existing(path, force, &own, msg, msgn);
    if (rc)
        return rc;
    /* a kill during a summary's write leaves summary.json.tmp.PID: gone with its writer (one alive may rename it) */
    static const char *const tmp_of[] = { "summary.json", NULL };
    int swept = 0;
    char sweep_why[1300];
    if (dir_sweep_tmp(dir, tmp_of, &swept, sweep_why, sizeof sweep_why) != 0)
        gl_log("warning: %s", sweep_why);
    struct sz_record z;
    struct az_trace *tr = NULL;
    rc = sz_events(dir, &z, msg, msgn);
    if (!rc)
        rc = sz_power(dir, &tr, note, sizeof note, msg, msgn);
    long id, line;   /* a row of no rank of the run is no reading of it: added in, a stray rank 7 read 2008 W for 1342 */
    if (!rc && tr && z.start && analyze_gpu_outside(tr, 0, (long)z.world, &id, &line)) {
        snprintf(msg, msgn, "%s/power.csv:%ld: rank %ld, but the start event gives %lld rank(s) in all", dir, line, id,
                 (long long)z.world);
        rc = EXIT_INPUT;
    }
    if (rc) {
        if (tr)
            analyze_free(tr);
        sz_record_free(&z);
        return rc;
    }
    int nrun = 0;
    json_t *out = sz_summary_json(&z, tr, note, &nrun);
    if (own && z.ended)   /* --force over the run's own: it was written (it read "not written" until 2026-12-02) */
        json_object_set_new(out, "stopped", json_string("the run ended and wrote its summary; rebuilt from the record "
                                                         "(summarize --force)"));
    sz_cluster_power(dir, &z, out);
    char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));   /* as a run's own (results_end.c): every double reads back */
    if (!text) {
        snprintf(msg, msgn, "cannot write %s: %s", path, strerror(ENOMEM));
        rc = EXIT_ENV;
    } else if (write_file_atomic(path, text, strlen(text)) != 0) {
        snprintf(msg, msgn, "cannot write %s: %s", path, strerror(errno));
        rc = EXIT_ENV;
    } else {
        snprintf(msg, msgn, "%s: rebuilt (incomplete): %d run(s), %zu fault event(s); %s%s", path, nrun,
                 json_array_size(z.faults), z.ended ? "the run had ended" : "the run was killed before its end",
                 swept ? "; removed the summary.json.tmp.PID a killed writer left" : "");
    }
    free(text);
    json_decref(out);
    if (tr)
        analyze_free(tr);
    sz_record_free(&z);
    return rc;
}
