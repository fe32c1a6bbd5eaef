/* harness/campaign/campaign_check.c: one campaign run's results against the invariants (docs/faults.md, "Fault
 * campaigns"): every results file parses and holds something, no worker outlived its supervisor, every visible
 * fault was caught by the detector built for it within its bound, nothing was detected that no fault explains,
 * every fault scheduled fired once, as scheduled (its record's kind, rank and iteration). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abft.h"
#include "campaign_int.h"
#include "detectors/detector.h"
#include "faults/fault.h"
#include "stats.h"
#include "util.h"

const char *const cp_kind_names[CK_COUNT] = { "bitflip", "crash", "hang", "straggler", "comm-error" };

/* abft weighs a change of one GEMM output element against the l2 norm of its column (the fault's `scale`; abft.h),
 * with the tolerance of the sim's fp32 product at the campaign's CP_SIM_DIM (2.2e-6). A change past 2.5 of it is
 * caught for certain (abft.h's bound: 2 (tol + b) / (1 - tol), b the checksum outputs' rounding); one under 0.3 of
 * it stays under even with the clean column's own rounding added; between, rounding decides: "borderline" */
#define CP_ABFT_SEEN 2.5
#define CP_ABFT_UNSEEN 0.3

void cp_break(struct cp_result *res, const char *fmt, ...)
{
    char why[CP_NOTE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (!res->broken++)
        str_copy(res->why, sizeof res->why, why);
    if (!res->whys)
        res->whys = json_array();
    json_array_append_new(res->whys, json_string(why));
}

int cp_broke_run(json_t *breaks, const char *run, struct cp_result *res)
{
    size_t i, n = json_array_size(res->whys);
    json_t *w;
    json_array_foreach(res->whys, i, w)
        json_array_append_new(breaks, json_pack("{s:s, s:O}", "run", run, "why", w));
    json_decref(res->whys);
    res->whys = NULL;
    return (int)n;
}

/* Returns the enum CD_* of a detector's name. */
static int cp_detector(const char *name)
{
    static const char *const names[] = { "fingerprint", "abft", "exit", "heartbeat", "comm" };
    for (int i = 0; name && i < CD_OTHER; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return name ? CD_OTHER : -1;
}

static int cp_bit_class(const char *c)
{
    static const char *const names[] = { "sign", "exponent", "mantissa-high", "mantissa-low" };
    for (int i = 0; c && i < CB_NONE; i++)
        if (strcmp(c, names[i]) == 0)
            return i;
    return CB_NONE;
}

static void cp_push(double **v, int64_t *n, int64_t *cap, double x)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *v = xrealloc(*v, (size_t)*cap * sizeof **v);
    }
    (*v)[(*n)++] = x;
}

/* The workers' pids a record names (worker_start), every one of them. */
struct cp_pids {
    int *pid;
    size_t n, cap;
};

/* Every line of events.jsonl parses and it names its workers (a record without worker_start lines says nothing of
 * the workers it had: none is checked for outliving its supervisor); collects the workers' pids and the ranks
 * shrink dropped. rc: the run's exit, for a record that is missing. */
static void cp_events(const char *dir, int rc, struct cp_result *res, struct cp_pids *pids)
{
    char path[1100], *line = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (!f) {   /* the run never began its record: what it said is in its log */
        char tail[300];
        int err = errno;
        cp_log_tail(dir, tail, sizeof tail);
        cp_break(res, "no events.jsonl (%s): the run exited %d; its log ends: %s", strerror(err), rc, tail);
        return;
    }
    int no = 0, bad = 0, first_bad = 0;
    char first_err[JSON_ERROR_TEXT_LENGTH] = "";
    while (getline(&line, &n, f) > 0) {
        json_error_t err;
        json_t *o = json_loads(line, 0, &err);
        no++;
        if (!o) {   /* one invariant: every line parses (the first bad line named, and how many) */
            if (!bad++)
                first_bad = no, str_copy(first_err, sizeof first_err, err.text);
            continue;
        }
        const char *ev = json_string_value(json_object_get(o, "event"));
        if (ev && strcmp(ev, "worker_start") == 0) {
            if (pids->n == pids->cap) {
                pids->cap = pids->cap ? 2 * pids->cap : 64;
                pids->pid = xrealloc(pids->pid, pids->cap * sizeof *pids->pid);
            }
            pids->pid[pids->n++] = (int)json_integer_value(json_object_get(o, "pid"));
        }
        if (ev && strcmp(ev, "recovery_end") == 0 && json_is_integer(json_object_get(o, "from_iter")) &&
            !(json_integer_value(json_object_get(o, "node")) > 0)) {
            for (int r = 0; r < 64; r++)
                if (res->drop_pending >> r & 1)
                    res->drop_iter[r] = json_integer_value(json_object_get(o, "from_iter"));
            res->drop_pending = 0;
        }
        if (ev && strcmp(ev, "rank_dropped") == 0) {
            int r = (int)(json_integer_value(json_object_get(o, "rank")) & 63);   /* global: node 0's events.jsonl */
            if (!(res->dropped >> r & 1)) {
                res->drop_iter[r] = 0;   /* until its recovery says where the run went on from */
                res->drop_pending |= 1ull << r;
            }
            res->dropped |= 1ull << r;
            double t = json_number_value(json_object_get(o, "t_s"));
            if (t < res->first_drop_s)
                res->first_drop_s = t;
        }
        json_decref(o);
    }
    int err = ferror(f) ? errno : 0;
    free(line);
    if (fclose(f) != 0 && !err)
        err = errno;
    if (err)
        cp_break(res, "events.jsonl: cannot read it: %s", strerror(err));
    if (bad)
        cp_break(res, "events.jsonl: %d line%s of %d do%s not parse, the first line %d: %s", bad, bad == 1 ? "" : "s", no,
                 bad == 1 ? "es" : "", first_bad, first_err);
    if (!err && !pids->n)
        cp_break(res, "events.jsonl (%d line%s) names no worker: no worker_start line", no, no == 1 ? "" : "s");
}

/* Every row of power.csv has the header's columns, the file ends with a whole line, and it holds a row past its
 * header (a run samples from its start). */
static void cp_power(const char *dir, struct cp_result *res)
{
    char path[1100], *line = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/power.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        cp_break(res, "power.csv: %s", strerror(errno));
        return;
    }
    int cols = -1, no = 0, torn = 0;
    ssize_t len;
    while ((len = getline(&line, &n, f)) > 0) {
        int c = 0;
        no++;
        for (ssize_t i = 0; i < len; i++)
            c += line[i] == ',';
        if (cols < 0)
            cols = c;
        if (c != cols || line[len - 1] != '\n') {
            cp_break(res, "power.csv line %d: %d fields where the header has %d, or a torn line", no, c + 1, cols + 1);
            torn = 1;
            break;
        }
    }
    int err = ferror(f) ? errno : 0;
    free(line);
    if (fclose(f) != 0 && !err)
        err = errno;
    if (err)
        cp_break(res, "power.csv: cannot read it: %s", strerror(err));
    else if (!torn && no < 2)
        cp_break(res, "power.csv has %s: no power row", no ? "only its header" : "nothing in it (0 bytes)");
}

/* A worker alive after its supervisor ended: a `gauntlet __worker` whose parent is not a `gauntlet run`. */
static int cp_orphan(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    long n = read_small(path, buf, sizeof buf);
    if (n < 9 || !memmem(buf, (size_t)n, "__worker", 8))
        return 0;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int ppid = 0;
    FILE *f;
    if (!(f = fopen(path, "r")))
        return 0;
    if (fscanf(f, "%*d (%*[^)]) %*c %d", &ppid) != 1)
        ppid = 0;
    fclose(f);
    snprintf(path, sizeof path, "/proc/%d/cmdline", ppid);
    if ((n = read_small(path, buf, sizeof buf)) < 0)
        return 1;
    return !memmem(buf, (size_t)n, "run", 4);   /* "run\0" is the supervisor's argv[1] */
}

/* The detector built for a fault, its bound, and whether the fault is visible to it (CP_VISIBLE), missed by design
 * (CP_BY_DESIGN, with why), borderline (CP_BORDERLINE) or an injection that changed nothing (CP_INEFFECTIVE, with
 * why: a flip whose record changed no bit where a bit is flipped, caught by nothing). */
static int cp_visible(const struct cp_shape *sh, int kind, json_t *f, int *det, double *bound, int *bound_iters,
                      char *why, size_t n)
{
    *bound_iters = 1;
    *bound = INFINITY;
    switch (kind) {
    case CK_CRASH: *det = CD_EXIT; return 1;
    case CK_COMM: *det = CD_COMM; return 1;
    case CK_HANG:
        *det = CD_HEARTBEAT;
        *bound = sh->hb_timeout_s + 1.5;   /* the timeout, plus a loaded machine's scheduling */
        *bound_iters = 1 << 30;
        return 1;
    case CK_STRAGGLER:   /* persist slow phases in a row; a loaded host can break one run of them */
        *det = CD_HEARTBEAT;
        *bound_iters = sh->persist + 2;
        return 1;
    default: break;
    }
    const char *target = json_string_value(json_object_get(f, "target"));
    if (!json_array_size(json_object_get(f, "bits"))) {
        /* only a perturbation of the value may round to the same value; a flip of a bit changes that bit (until
         * 2026-11-30 any flip that changed nothing was "missed by design": a flip turned into a no-op passed) */
        const char *where = json_string_value(json_object_get(f, "where"));
        if (where && strcmp(where, "value") == 0) {
            snprintf(why, n, "no bit changed (the perturbation rounds to the same value)");
            return CP_BY_DESIGN;
        }
        snprintf(why, n, "a flip (where %s) whose record changed no bit, and nothing saw it: the flip did nothing",
                 where ? where : "not recorded");
        return json_is_string(json_object_get(f, "detected_by")) ? CP_BY_DESIGN : CP_INEFFECTIVE;
    }
    if (target && (strcmp(target, "weights") == 0 || strcmp(target, "allreduce-buffer") == 0)) {
        *det = CD_FINGERPRINT;   /* one rank's state differs from the others' */
        return 1;
    }
    if (target && strcmp(target, "gemm-output") == 0) {
        *det = CD_ABFT;
        *bound_iters = 0;
        json_t *nv = json_object_get(f, "new"), *ov = json_object_get(f, "old");
        double scale = json_number_value(json_object_get(f, "scale"));
        if (!json_is_number(nv) || !json_is_number(ov))
            return 1;   /* inf or nan: abft sees a non-finite sum */
        double m = fabs(json_number_value(nv) - json_number_value(ov)) / scale;
        double tol = abft_tol(&abft_model_fp32, CP_SIM_DIM, CP_SIM_DIM);
        if (!(scale > 0) || m > CP_ABFT_SEEN * tol)
            return 1;
        snprintf(why, n, "a change of %.2g of its column's norm, under abft's tolerance %.2g", m, tol);
        return m < CP_ABFT_UNSEEN * tol ? 0 : -1;
    }
    *det = -1;
    snprintf(why, n, "gradients before the all-reduce: every rank receives the corruption, fingerprints agree");
    return 0;
}

/* Whether a fault's record is the fault the schedule placed: its kind, its rank and the iteration it was carried out
 * in, which on several nodes may be one later (a fault sent to another node's rank may land an iteration later under
 * load: cp_same's slack). 1, or 0 having recorded how they differ as a broken invariant. */
static int cp_as_scheduled(const struct cp_fault *x, const struct cp_shape *sh, int spec, json_t *f, struct cp_result *res)
{
    const char *kind = json_string_value(json_object_get(f, "kind"));
    json_t *rk = json_object_get(f, "rank"), *it = json_object_get(f, "injected_iter");
    int slack = sh->nodes > 1;
    if (kind && strcmp(kind, cp_kind_names[x->kind]) == 0 && json_is_integer(rk) && json_integer_value(rk) == x->rank &&
        json_is_integer(it) && json_integer_value(it) >= x->at && json_integer_value(it) <= x->at + slack)
        return 1;
    char rank[24] = "none", iter[24] = "none";
    if (json_is_integer(rk))
        snprintf(rank, sizeof rank, "%lld", (long long)json_integer_value(rk));
    if (json_is_integer(it))
        snprintf(iter, sizeof iter, "%lld", (long long)json_integer_value(it));
    cp_break(res, "fault %d's record is not the fault scheduled: the record says %s on rank %s at %s, the schedule %s on "
             "rank %d at %d%s", spec, kind ? kind : "(no kind)", rank, iter, cp_kind_names[x->kind], x->rank, x->at,
             slack ? " (or, on several nodes, one later)" : "");
    return 0;
}

/* Judges one scheduled fault's record f (its spec, the schedule's fault x, which its record matches): caught by the
 * detector built for it within its bound, or missed by design, or borderline; adds to st. */
static void cp_check_fault(const char *dir, const struct cp_fault *x, const struct cp_shape *sh, int si, int spec,
                           json_t *f, struct cp_result *res, struct cp_stats *st)
{
    const char *kname = cp_kind_names[x->kind];
    int kind = x->kind, det = -1, biters, got = cp_detector(json_string_value(json_object_get(f, "detected_by")));
    double bound, inj_s = json_number_value(json_object_get(f, "injected_t_s"));
    int64_t from = json_integer_value(json_object_get(f, "injected_iter"));   /* the schedule's, or one later (cp_as_scheduled) */
    char why[160] = "";
    int vis = cp_visible(sh, kind, f, &det, &bound, &biters, why, sizeof why);
    int rolled = json_is_true(json_object_get(f, "rolled_back")) && got < 0;
    if (rolled) {   /* its effect went with the state */
        vis = 0;
        snprintf(why, sizeof why, "rolled back before it was seen: a later fault's recovery restored a state from "
                                  "before it");
    }
    int left = json_is_true(json_object_get(f, "left_with_rank")) && got < 0;
    if (left) {   /* its effect went with its rank */
        vis = 0;
        snprintf(why, sizeof why, "its rank left the run (shrink dropped it) before a detector saw it");
    }
    int shrunk = inj_s > res->first_drop_s;
    res->det[spec].shrunk = shrunk;
    if (shrunk && vis == 1 && (det == CD_FINGERPRINT || kind == CK_STRAGGLER)) {
        /* fewer ranks after shrink: a fingerprint vote or a peers' median may no longer name a rank */
        vis = 0;
        snprintf(why, sizeof why, "after shrink removed a rank: fewer peers to compare with");
    }
    if (kind == CK_STRAGGLER && vis == 1) {   /* what the record shows the detector could see */
        int longest;
        int64_t seen = cp_straggler_rule(dir, x->rank, sh->ranks, inj_s, sh->persist, &longest);
        if (seen < 0 && longest == 0 && got < 0) {   /* no phase slowed at all, nothing saw it: it did nothing */
            vis = CP_INEFFECTIVE;
            snprintf(why, sizeof why, "the record shows no slow compute phase of rank %d after it, and nothing saw it: "
                     "the straggler slowed nothing", x->rank);
        } else if (seen < 0) {
            vis = -1;
            snprintf(why, sizeof why, "the record shows %d slow compute phase%s in a row, the detector wants %d: "
                     "a loaded host's stretched peers lift their median, or end the fault's window early", longest, longest == 1 ? "" : "s", sh->persist);
        } else if (seen - from + 1 > biters) {
            biters = (int)(seen - from + 1);   /* the run of slow phases began late: seen when it completed */
        }
    }
    st->fired[kind]++;
    json_t *det_o = json_object_get(f, "detection");
    if (got >= 0) {
        res->det[spec] = (struct cp_det){ spec, got, (int)json_integer_value(json_object_get(det_o, "rank")),
                                          json_integer_value(json_object_get(det_o, "iter_seen")), shrunk,
                                          from, 0 };
        if (json_is_number(json_object_get(f, "detect_s")))   /* null: no time (never 0) */
            cp_push(&st->detect_s[si], &st->n_detect[si], &st->cap_detect[si],
                    json_number_value(json_object_get(f, "detect_s")));
        if (json_is_number(json_object_get(f, "recover_s")))
            cp_push(&st->recover_s[si], &st->n_recover[si], &st->cap_recover[si],
                    json_number_value(json_object_get(f, "recover_s")));
    }
    res->det[spec].borderline = kind == CK_STRAGGLER && vis < 0;
    if (kind == CK_BITFLIP) {
        int c = json_array_size(json_object_get(f, "bits")) ? cp_bit_class(json_string_value(json_object_get(f, "bit_class")))
                                                              : CB_NONE;
        st->bits_injected[c]++;
        if (got >= 0)
            st->bits_caught[c][got]++;
        if (got < 0 && c != CB_NONE && !left && !rolled)
            res->effect_missed = 1;   /* the state carries it to the end (not a dropped rank's, nor a rolled-back one's) */
    }
    if (vis == CP_INEFFECTIVE) {   /* the injection path is broken: counted apart, and the campaign fails */
        st->ineffective[kind]++;
        res->ineffective++;
        cp_break(res, "fault %d (%s on rank %d at %d): injection ineffective: %s", spec, kname, x->rank, x->at, why);
        return;
    }
    if (vis == 1) {
        st->visible[kind]++;
        int64_t li = json_integer_value(json_object_get(f, "detect_iters"));
        double ls = json_number_value(json_object_get(f, "detect_s"));
        char trace[240] = "";
        if (kind == CK_STRAGGLER && (got != det || li > biters))
            cp_straggler_trace(dir, x->rank, sh->ranks, (int)from, inj_s, trace, sizeof trace);
        if (got != det)
            cp_break(res, "fault %d (%s on rank %d at %d) %s%s, expected by %s%s", spec, kname, x->rank, x->at,
                     got < 0 ? "missed" : "caught by ", got < 0 ? "" : json_string_value(json_object_get(f, "detected_by")),
                     det == CD_FINGERPRINT ? "fingerprint" : det == CD_ABFT ? "abft" : det == CD_EXIT ? "exit"
                                            : det == CD_COMM ? "comm" : "heartbeat", trace);
        else if (!json_is_integer(json_object_get(f, "detect_iters")) || !json_is_number(json_object_get(f, "detect_s")))
            /* an injected fault's detection always has its times: none is no 0 (until 2026-12-02 read as caught at
             * once) */
            cp_break(res, "fault %d (%s) caught by %s with no detection time recorded (detect_s %s, detect_iters %s)", spec,
                     kname, json_string_value(json_object_get(f, "detected_by")),
                     json_is_number(json_object_get(f, "detect_s")) ? "given" : "missing",
                     json_is_integer(json_object_get(f, "detect_iters")) ? "given" : "missing");
        else if (li > biters || !(ls <= bound))
            cp_break(res, "fault %d (%s) caught after %lld iterations / %.3f s, bound %d / %.3f s%s", spec, kname,
                     (long long)li, ls, biters, bound, trace);
        else
            st->caught[kind]++;
        return;
    }
    st->by_design[kind] += vis == 0;
    st->borderline[kind] += vis < 0;
    if (got >= 0)
        st->caught[kind]++;
    if (got >= 0 && vis == 0)
        st->by_design[kind]--;   /* seen after all: counted as caught, not missed */
    if ((vis == 0 || (vis < 0 && kind == CK_STRAGGLER)) && got < 0 && json_array_size(st->missed) < 24) {
        json_t *m = json_pack("{s:s, s:i, s:s, s:o, s:o, s:o, s:o, s:s}", "run", dir, "fault", spec, "kind", kname,
                              "target", json_copy(json_object_get(f, "target")), "bit_class",
                              json_copy(json_object_get(f, "bit_class")), "rel_error",
                              json_copy(json_object_get(f, "rel_error")), "where", json_copy(json_object_get(f, "where")),
                              "why", why);
        if (vis < 0)
            json_object_set_new(m, "borderline", json_true());
        json_array_append_new(st->missed, m);
    }
}

/* The files of a run's record: every one whole, and no worker of it alive past its supervisor. */
static void cp_check_files(const char *dir, int rc, struct cp_result *res)
{
    struct cp_pids pids = { 0 };
    char orphans[200] = "";
    size_t k = 0;
    int n = 0;
    cp_events(dir, rc, res, &pids);
    cp_power(dir, res);
    for (size_t i = 0; i < pids.n; i++)
        if (cp_orphan(pids.pid[i]) && n++ < 8 && k < sizeof orphans)
            k += (size_t)snprintf(orphans + k, sizeof orphans - k, "%s%d", k ? ", " : "", pids.pid[i]);
    if (n)   /* one invariant: every pid that broke it named (up to 8) */
        cp_break(res, "%d worker%s outlived %s supervisor: pid %s%s", n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
                 orphans, n > 8 ? ", ..." : "");
    free(pids.pid);
}

void cp_check_run(const char *dir, int rc, const struct cp_sched *sc, const struct cp_shape *sh, int si,
                  const char *strat, struct cp_result *res, struct cp_stats *st)
{
    char path[1100];
    int fired[CP_MAX_FAULTS] = { 0 };
    res->ran = 1;
    res->first_drop_s = INFINITY;
    for (int i = 0; i < CP_MAX_FAULTS; i++)
        res->det[i] = (struct cp_det){ .spec = i, .detector = -1, .rank = -1, .iter_seen = -1, .iter_fired = -1 };
    cp_check_files(dir, rc, res);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_error_t err;
    json_t *sum = json_load_file(path, 0, &err);
    st->runs++;
    if (!sum) {
        st->runs_failed++;
        cp_break(res, "summary.json: %s (line %d)", err.text, err.line);
        return;
    }
    json_t *run = json_array_get(json_object_get(sum, "runs"), 0), *fl = json_object_get(run, "faults");
    const char *stopped = json_string_value(json_object_get(sum, "stopped"));
    const char *stop = json_string_value(json_object_get(sum, "stop"));
    if (rc != 0) {
        /* judged by the structured stop code, never by the words: only shrink that ran out of ranks (exit 1) may
         * end a run early; exit 3 is the machine's fault (a full /dev/shm, a results write), never a pass */
        st->runs_failed++;
        if (rc == 1 && strcmp(strat, "shrink") == 0 && stop && strcmp(stop, "shrink_exhausted") == 0)
            res->exhausted = 1;   /* shrink with no rank left to go on: the run must end */
        else
            cp_break(res, "the run exited %d (stop: %s): %s", rc, stop ? stop : "none", stopped ? stopped : "(no reason given)");
    } else if (!stop || strcmp(stop, "completed") != 0) {
        cp_break(res, "the run exited 0 but its summary says stop: %s", stop ? stop : "(none)");
    }
    str_copy(res->state, sizeof res->state, json_string_value(json_object_get(run, "state_fingerprint")) ?: "");
    st->stale_reports += json_integer_value(json_object_get(fl, "stale_reports"));
    size_t nfp = json_array_size(json_object_get(fl, "false_positive_detections"));
    st->false_positives += (int64_t)nfp;
    if (nfp)
        cp_break(res, "%zu false positive detection(s)", nfp);
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(sum, "faults"), i, f) {
        if (strcmp(json_string_value(json_object_get(f, "origin")) ?: "", "observed") == 0) {
            st->observed++;
            cp_break(res, "a detection no fault explains: %s seen by %s on rank %lld",
                     json_string_value(json_object_get(f, "kind")) ?: "(no kind)",
                     json_string_value(json_object_get(f, "detected_by")) ?: "(none)",
                     (long long)json_integer_value(json_object_get(f, "rank")));
            continue;
        }
        json_t *sp = json_object_get(f, "fault_spec");
        int spec = json_is_integer(sp) && json_integer_value(sp) >= 0 && json_integer_value(sp) < sc->n
                   ? (int)json_integer_value(sp) : -1;
        if (spec < 0)
            cp_break(res, "a fault record names fault %lld of %d", (long long)json_integer_value(sp), sc->n);
        else if (fired[spec]++)
            cp_break(res, "fault %d fired twice on the timeline that survived", spec);
        else if (cp_as_scheduled(&sc->f[spec], sh, spec, f, res))
            cp_check_fault(dir, &sc->f[spec], sh, si, spec, f, res, st);
    }
    int nfired = 0;
    for (int k = 0; k < sc->n; k++)
        nfired += fired[k] > 0;
    if (sc->n > 0 && nfired == 0)   /* whatever the exit: a run that fired none of its faults tested nothing */
        cp_break(res, "none of the %d scheduled faults fired", sc->n);
    for (int k = 0; k < sc->n; k++) {   /* a fault on a rank shrink removed, from where the run went on without it (a
                                         * fault of the timeline abandoned there was undone with it), or after shrink
                                         * ran out, never fires (until 2026-12-02 a fault of a rank dropped at any
                                         * time was excused: one that never fired before the drop passed) */
        int gone = (res->dropped >> (sc->f[k].rank & 63) & 1) && sc->f[k].at >= res->drop_iter[sc->f[k].rank & 63];
        if (!fired[k] && !gone && !res->exhausted)
            cp_break(res, "fault %d (%s on rank %d at %d) never fired", k, cp_kind_names[sc->f[k].kind], sc->f[k].rank,
                     sc->f[k].at);
    }
    /* the final state compared across runs is one rank's: ranks that end apart, with every fault that changed the
     * state caught and nothing else broken, had a corruption outlive its recovery (a restart that restored it) */
    if (rc == 0 && !res->broken && !res->effect_missed && json_is_false(json_object_get(run, "fingerprints_agree")))
        cp_break(res, "the ranks still in the run ended in different states (fingerprints_agree false) with every fault "
                      "that changed the state caught: a corruption outlived its recovery");
    json_decref(sum);
}
