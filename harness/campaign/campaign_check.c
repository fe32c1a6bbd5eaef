/* harness/campaign/campaign_check.c: one campaign run's results against the invariants (docs/faults.md, "Fault
 * campaigns"): every results file parses, no worker outlived its supervisor, every visible fault was caught
 * by the detector built for it within its bound, nothing was detected that no fault explains, every fault
 * scheduled fired once. */
#include <errno.h>
#include <fcntl.h>
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
    if (!res->broken++) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(res->why, sizeof res->why, fmt, ap);
        va_end(ap);
    }
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

/* Every line of events.jsonl parses; collects the workers' pids and the ranks shrink dropped. */
static void cp_events(const char *dir, struct cp_result *res, int *pids, int *npids, int cap)
{
    char path[1100], *line = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        cp_break(res, "events.jsonl: %s", strerror(errno));
        return;
    }
    int no = 0;
    while (getline(&line, &n, f) > 0) {
        json_error_t err;
        json_t *o = json_loads(line, 0, &err);
        no++;
        if (!o) {
            cp_break(res, "events.jsonl line %d does not parse: %s", no, err.text);
            continue;
        }
        const char *ev = json_string_value(json_object_get(o, "event"));
        if (ev && strcmp(ev, "worker_start") == 0 && *npids < cap)
            pids[(*npids)++] = (int)json_integer_value(json_object_get(o, "pid"));
        if (ev && strcmp(ev, "rank_dropped") == 0) {
            res->dropped |= 1ull << (json_integer_value(json_object_get(o, "rank")) & 63);   /* global: node 0's
                                                                                                   * events.jsonl */
            double t = json_number_value(json_object_get(o, "t_s"));
            if (t < res->first_drop_s)
                res->first_drop_s = t;
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
}

/* Every row of power.csv has the header's columns and the file ends with a whole line. */
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
    int cols = -1, no = 0;
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
            break;
        }
    }
    free(line);
    fclose(f);
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

/* The detector built for a fault, its bound, and whether the fault is visible to it (1), missed by design
 * (0, with why) or borderline (-1). */
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
        snprintf(why, n, "no bit changed (the perturbation rounds to the same value)");
        return 0;
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

/* The record of rank's compute phases, opened: node 0's events.jsonl, or on several nodes the rank's node's own
 * events-node<N>.jsonl (every line of its GPUs; node 0's holds only its fold of them), NULL when there is none. A
 * straggler is judged on its node, against that node's ranks (the node's supervisor takes the median). */
static FILE *cp_events_of(const char *dir, int rank, int node_ranks)
{
    char path[1100];
    int node = node_ranks > 0 ? rank / node_ranks : 0;
    FILE *f = NULL;
    if (node > 0) {
        snprintf(path, sizeof path, "%s/events-node%d.jsonl", dir, node);
        f = fopen(path, "r");
    }
    if (!f) {   /* one node, or forward: ranks (node 0 holds every line) */
        snprintf(path, sizeof path, "%s/events.jsonl", dir);
        f = fopen(path, "r");
    }
    return f;
}

/* For a straggler missed or caught late: the rank's compute phases from the injection's iteration on, each as
 * "iteration: its ms / the peers' median ms @ seconds after the injection" (a phase that begins past the fault's
 * duration runs at full speed; a peer slowed by the host lifts the median): what such a broken invariant needs to be
 * read. Later lines of a rank's iteration replace earlier ones (a rollback's rerun is the timeline that survived). */
static void cp_straggler_trace(const char *dir, int rank, int node_ranks, int from, double inj_s, char *out, size_t n)
{
    enum { W = 8, R = 64 };
    double beg[W][R], dur[W][R];
    node_ranks = node_ranks > 0 ? node_ranks : R;
    for (int i = 0; i < W; i++)
        for (int r = 0; r < R; r++)
            beg[i][r] = dur[i][r] = NAN;
    char *line = NULL;
    size_t cap = 0;
    FILE *f = cp_events_of(dir, rank, node_ranks);
    out[0] = 0;
    if (!f || rank < 0 || rank >= R) {
        if (f)
            fclose(f);
        return;
    }
    while (getline(&line, &cap, f) > 0) {
        if (!strstr(line, "\"compute\""))
            continue;
        json_t *o = json_loads(line, 0, NULL);
        const char *ev = json_string_value(json_object_get(o, "event"));
        long long it = json_integer_value(json_object_get(o, "iter")) - from, r = json_integer_value(json_object_get(o, "rank"));
        double t = json_number_value(json_object_get(o, "t_s"));
        if (ev && it >= 0 && it < W && r >= 0 && r < R) {
            if (strcmp(ev, "phase_begin") == 0)
                beg[it][r] = t, dur[it][r] = NAN;
            else if (strcmp(ev, "phase_end") == 0 && !isnan(beg[it][r]))
                dur[it][r] = t - beg[it][r];
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
    size_t k = (size_t)snprintf(out, n, "; rank %d's compute phases (ms / peers' median @ s after injection):", rank);
    for (int i = 0; i < W && k < n; i++) {
        if (isnan(dur[i][rank]))
            continue;
        struct series peers = { 0 };   /* a NAN (no phase of that peer) is skipped */
        for (int r = 0; r < R; r++)
            if (r != rank && r / node_ranks == rank / node_ranks)
                series_add(&peers, dur[i][r]);
        k += (size_t)snprintf(out + k, n - k, " %d: %.0f/%.0f @%.2f", from + i, dur[i][rank] * 1e3,
                              series_pct(&peers, 50) * 1e3, beg[i][rank] - inj_s);
        series_free(&peers);
    }
}

/* The heartbeat's straggler rule (its own function, heartbeat.c: slower than CP_HB_FACTOR x the peers' median and
 * by CP_HB_EXCESS_S, persist times in a row) replayed on the record as the supervisor applied it (faultlog_compute):
 * every compute phase in the order the supervisor wrote it, of the run it was on, against the latest phase of each
 * peer of its node no more than an iteration behind. For rank's phases that end after inj_s: the iteration whose
 * phase completes the first run of persist slow ones (-1: none did), and *longest, the longest run of slow phases. A
 * loaded host that stretched a peer's phase (lifting the median) or made the fault's window end early breaks the
 * run: no detector can see what the record does not show. */
static int64_t cp_straggler_rule(const char *dir, int rank, int node_ranks, double inj_s, int persist, int *longest)
{
    enum { R = 64 };
    double open[R], last[R];
    node_ranks = node_ranks > 0 ? node_ranks : R;
    int64_t last_iter[R];
    int cur_run = 0, count = 0;
    int64_t found = -1;
    const struct heartbeat_params hp = { CP_HB_FACTOR, CP_HB_EXCESS_S, persist };
    for (int r = 0; r < R; r++)
        open[r] = last[r] = NAN, last_iter[r] = INT64_MIN / 2;
    *longest = 0;
    char *line = NULL;
    size_t cap = 0;
    FILE *f = cp_events_of(dir, rank, node_ranks);
    if (!f || rank < 0 || rank >= R) {
        if (f)
            fclose(f);
        return -1;
    }
    while (found < 0 && getline(&line, &cap, f) > 0) {
        if (!strstr(line, "\"compute\""))
            continue;
        json_t *o = json_loads(line, 0, NULL);
        const char *ev = json_string_value(json_object_get(o, "event"));
        json_int_t it = json_integer_value(json_object_get(o, "iter")), r = json_integer_value(json_object_get(o, "rank"));
        int run = (int)json_integer_value(json_object_get(o, "run"));
        double t = json_number_value(json_object_get(o, "t_s"));
        if (run > cur_run)   /* a recovery's new run: the old run's reports are stale */
            cur_run = run;
        if (ev && r >= 0 && r < R && run == cur_run) {
            if (strcmp(ev, "phase_begin") == 0) {
                open[r] = t;
            } else if (strcmp(ev, "phase_end") == 0 && !isnan(open[r])) {
                double dur = t - open[r], v[R];
                int n = 0;
                for (int p = 0; p < R; p++)
                    if (p != r && p / node_ranks == r / node_ranks && last_iter[p] >= it - 1)
                        v[n++] = last[p];
                last[r] = dur, last_iter[r] = it;
                if (r == rank && n > 0 && t > inj_s) {   /* the detector's own judgement (heartbeat.c) */
                    char note[96];
                    if (detector_table[DET_HEARTBEAT]->slow(&hp, dur, v, n, &count, note, sizeof note))
                        found = it;
                    *longest = count > *longest ? count : *longest;
                }
            }
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
    return found;
}

/* The last non-empty line of the run's log (DIR.log: what the run and mpirun printed), or why there is none. */
void cp_log_tail(const char *dir, char *out, size_t n)
{
    char path[1100], buf[4096];
    snprintf(path, sizeof path, "%s.log", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(out, n, "(no log: %s)", strerror(errno));
        return;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
    ssize_t got = size >= 0 ? pread(fd, buf, sizeof buf - 1, from) : -1;
    close(fd);
    if (got <= 0) {
        snprintf(out, n, "(an empty log)");
        return;
    }
    buf[got] = 0;
    while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r' || buf[got - 1] == ' '))
        buf[--got] = 0;
    const char *last = strrchr(buf, '\n');
    snprintf(out, n, "%s", last ? last + 1 : buf);
}

void cp_check_run(const char *dir, int rc, const struct cp_sched *sc, const struct cp_shape *sh, int si,
                  const char *strat, struct cp_result *res, struct cp_stats *st)
{
    char path[1100];
    int pids[256], npids = 0, fired[CP_MAX_FAULTS] = { 0 };
    res->ran = 1;
    res->first_drop_s = INFINITY;
    for (int i = 0; i < CP_MAX_FAULTS; i++)
        res->det[i] = (struct cp_det){ .spec = i, .detector = -1, .rank = -1, .iter_seen = -1, .iter_fired = -1 };
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    if (access(path, F_OK) != 0) {   /* the run never began its record: what it said is in its log */
        char tail[300];
        cp_log_tail(dir, tail, sizeof tail);
        cp_break(res, "no events.jsonl (%s): the run exited %d; its log ends: %s", strerror(errno), rc, tail);
    }
    cp_events(dir, res, pids, &npids, 256);
    cp_power(dir, res);
    for (int i = 0; i < npids; i++)
        if (cp_orphan(pids[i]))
            cp_break(res, "worker pid %d outlived its supervisor", pids[i]);
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
        const char *kname = json_string_value(json_object_get(f, "kind"));
        if (strcmp(json_string_value(json_object_get(f, "origin")) ?: "", "observed") == 0) {
            st->observed++;
            cp_break(res, "a detection no fault explains: %s seen by %s on rank %lld", kname,
                     json_string_value(json_object_get(f, "detected_by")), (long long)json_integer_value(json_object_get(f, "rank")));
            continue;
        }
        int spec = (int)json_integer_value(json_object_get(f, "fault_spec")), kind = 0;
        if (spec < 0 || spec >= sc->n) {
            cp_break(res, "a fault record names fault %d of %d", spec, sc->n);
            continue;
        }
        if (fired[spec]++) {
            cp_break(res, "fault %d fired twice on the timeline that survived", spec);
            continue;
        }
        kind = sc->f[spec].kind;
        int det = -1, biters, got = cp_detector(json_string_value(json_object_get(f, "detected_by")));
        double bound;
        char why[160] = "";
        int vis = cp_visible(sh, kind, f, &det, &bound, &biters, why, sizeof why);
        if (json_is_true(json_object_get(f, "rolled_back")) && got < 0) {   /* its effect went with the state */
            vis = 0;
            snprintf(why, sizeof why, "rolled back before it was seen: a later fault's recovery restored a state from "
                                      "before it");
        }
        int left = json_is_true(json_object_get(f, "left_with_rank")) && got < 0;
        if (left) {   /* its effect went with its rank */
            vis = 0;
            snprintf(why, sizeof why, "its rank left the run (shrink dropped it) before a detector saw it");
        }
        int shrunk = json_number_value(json_object_get(f, "injected_t_s")) > res->first_drop_s;
        res->det[spec].shrunk = shrunk;
        if (shrunk && vis == 1 && (det == CD_FINGERPRINT || kind == CK_STRAGGLER)) {
            /* fewer ranks after shrink: a fingerprint vote or a peers' median may no longer name a rank */
            vis = 0;
            snprintf(why, sizeof why, "after shrink removed a rank: fewer peers to compare with");
        }
        if (kind == CK_STRAGGLER && vis == 1) {   /* what the record shows the detector could see */
            int longest, from = json_is_integer(json_object_get(f, "injected_iter"))
                                    ? (int)json_integer_value(json_object_get(f, "injected_iter")) : sc->f[spec].at;
            int64_t seen = cp_straggler_rule(dir, sc->f[spec].rank, sh->ranks, json_number_value(json_object_get(f, "injected_t_s")),
                                             sh->persist, &longest);
            if (seen < 0) {
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
                                              json_is_integer(json_object_get(f, "injected_iter"))
                                                  ? json_integer_value(json_object_get(f, "injected_iter")) : -1, 0 };
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
            if (got < 0 && c != CB_NONE && !left)
                res->effect_missed = 1;   /* the state carries it to the end (not a dropped rank's) */
        }
        if (vis == 1) {
            st->visible[kind]++;
            int64_t li = json_integer_value(json_object_get(f, "detect_iters"));
            double ls = json_number_value(json_object_get(f, "detect_s"));
            char trace[240] = "";
            if (kind == CK_STRAGGLER && (got != det || li > biters))
                cp_straggler_trace(dir, sc->f[spec].rank, sh->ranks, sc->f[spec].at,
                                   json_number_value(json_object_get(f, "injected_t_s")), trace, sizeof trace);
            if (got != det)
                cp_break(res, "fault %d (%s on rank %d at %d) %s%s, expected by %s%s", spec, kname, sc->f[spec].rank,
                         sc->f[spec].at, got < 0 ? "missed" : "caught by ", got < 0 ? "" : json_string_value(json_object_get(f, "detected_by")),
                         det == CD_FINGERPRINT ? "fingerprint" : det == CD_ABFT ? "abft" : det == CD_EXIT ? "exit"
                                                : det == CD_COMM ? "comm" : "heartbeat", trace);
            else if (li > biters || !(ls <= bound))
                cp_break(res, "fault %d (%s) caught after %lld iterations / %.3f s, bound %d / %.3f s%s", spec, kname,
                         (long long)li, ls, biters, bound, trace);
            else
                st->caught[kind]++;
        } else {
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
    }
    int nfired = 0;
    for (int k = 0; k < sc->n; k++)
        nfired += fired[k] > 0;
    if (sc->n > 0 && nfired == 0)   /* whatever the exit: a run that fired none of its faults tested nothing */
        cp_break(res, "none of the %d scheduled faults fired", sc->n);
    for (int k = 0; k < sc->n; k++)   /* a fault on a rank shrink removed, or after shrink ran out, never fires */
        if (!fired[k] && !(res->dropped >> sc->f[k].rank & 1) && !res->exhausted)
            cp_break(res, "fault %d (%s on rank %d at %d) never fired", k, cp_kind_names[sc->f[k].kind], sc->f[k].rank,
                     sc->f[k].at);
    /* the final state compared across runs is one rank's: ranks that end apart, with every fault that changed the
     * state caught and nothing else broken, had a corruption outlive its recovery (a restart that restored it) */
    if (rc == 0 && !res->broken && !res->effect_missed && json_is_false(json_object_get(run, "fingerprints_agree")))
        cp_break(res, "the ranks still in the run ended in different states (fingerprints_agree false) with every fault "
                      "that changed the state caught: a corruption outlived its recovery");
    json_decref(sum);
}
