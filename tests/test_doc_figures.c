/* tests/test_doc_figures.c: the sim figures that docs/faults.md and docs/performance.md give, measured again.
 *
 * Each documented figure has a record in the doc beside it, in an HTML comment after its paragraph or table:
 *
 *   <!-- figures
 *   drill.restart.recover_ms.crash 51 row="crash → exit" col=3
 *   drill.inprocess.lost.abft 0 max=5 row="→ abft" col=4
 *   -->
 *
 * one figure a line: its id, its value as documented (a number, `<X` for a bound, or a word that must match
 * exactly), then keys: `row` names the line of the paragraph or table above that shows the value (the value
 * must appear there as written, or as `shown` gives it; `col=N`: in the table's Nth cell), `max` is the bound
 * for a figure documented as 0, and `check=no` with `why` marks a figure this test does not re-measure (a run
 * too long for a unit test).
 *
 * The tests here run the documented commands again, short ones only (about 35 s in all on a 2-core VM). A figure
 * that is no timing (iterations lost, a state, false positives, page faults, memory, a word) fails the test when it
 * differs: more than a factor of 3 either way, over its `max` where documented as 0, 3 times over a bound `<X`. A
 * timing (a duration in ms or s, a rate in GB/s) depends on the machine and what else runs on it: its drift is
 * reported (a warning naming each figure), and fails the test only as a benchmark, with GAUNTLET_DOC_FIGURES=strict
 * on a machine like the documented one with nothing else running (docs/performance.md). */
#include <criterion/criterion.h>
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "util.h"

#define DRIFT 3.0   /* a fresh value may differ from the documented one by this factor either way */

static const char *const docs[] = { "docs/faults.md", "docs/performance.md" };

/* Every id this file measures; a record of any other id must say check=no. */
static const char *const measured[] = {
    "latency.detect_ms.fingerprint", "latency.detect_ms.abft", "latency.detect_ms.crash", "latency.detect_ms.comm",
    "drill.detect_ms.hang", "drill.detect_ms.straggler",
    "drill.restart.recover_ms.fingerprint", "drill.restart.recover_ms.abft", "drill.restart.recover_ms.crash",
    "drill.restart.recover_ms.hang", "drill.restart.recover_ms.comm",
    "drill.restart.lost.fingerprint", "drill.restart.lost.abft", "drill.restart.lost.crash",
    "drill.restart.lost.hang", "drill.restart.lost.comm",
    "drill.inprocess.recover_ms.fingerprint", "drill.inprocess.recover_ms.abft", "drill.inprocess.recover_ms.crash",
    "drill.inprocess.recover_ms.hang", "drill.inprocess.recover_ms.comm",
    "drill.inprocess.lost.fingerprint", "drill.inprocess.lost.abft", "drill.inprocess.lost.crash",
    "drill.inprocess.lost.hang", "drill.inprocess.lost.comm",
    "drill.spare.recover_ms.fingerprint", "drill.spare.recover_ms.abft", "drill.spare.recover_ms.crash",
    "drill.spare.recover_ms.hang", "drill.spare.recover_ms.comm",
    "drill.spare.lost.fingerprint", "drill.spare.lost.abft", "drill.spare.lost.crash",
    "drill.spare.lost.hang", "drill.spare.lost.comm",
    "drill.state", "drill.false_positives", "drill.restore_gbs",
    "drill.cost_ms.fingerprint", "drill.cost_ms.abft", "drill.cost_ms.replay",
    "ckpt.async_stall_ms", "ckpt.async_write_s", "ckpt.async_gbs",
    "fp.sync_detect_ms", "fp.async_detect_ms",
    "start.version_ms", "start.version_minflt", "start.version_rss_mb",
    "analysis.gpus_s", "analysis.projection_s",
};

enum kind { K_NUM, K_BOUND, K_WORD };

struct record {
    char doc[32];
    int line;
    char id[96];
    char text[64];   /* the value as documented */
    enum kind kind;
    double value;    /* K_NUM: the value; K_BOUND: the bound */
    double max;      /* a figure documented as 0: the largest fresh value allowed (NAN: none given) */
    int check;
    int col;         /* a table's column (1: the first cell) that shows it; 0: anywhere in the line */
    char row[160], shown[64], why[160];
};

static struct record recs[256];
static int nrecs;
static char failures[8192];
static size_t nfail;

static int is_measured(const char *id)
{
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++)
        if (strcmp(measured[i], id) == 0)
            return 1;
    return 0;
}

/* Reads key=value (value in double quotes or up to the next blank) from s; returns the rest, or NULL. */
static const char *parse_kv(const char *s, char *key, size_t nk, char *val, size_t nv)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return NULL;
    size_t k = 0;
    while (*s && *s != '=' && *s != ' ' && k + 1 < nk)
        key[k++] = *s++;
    key[k] = 0;
    cr_assert_eq(*s, '=', "a figure record's key '%s' lacks '=value'", key);
    s++;
    size_t v = 0;
    if (*s == '"') {
        for (s++; *s && *s != '"' && v + 1 < nv; s++)
            val[v++] = *s;
        cr_assert_eq(*s, '"', "a figure record's \"%s\" is not closed", key);
        s++;
    } else {
        while (*s && *s != ' ' && *s != '\t' && v + 1 < nv)
            val[v++] = *s++;
    }
    val[v] = 0;
    return s;
}

/* Returns 1 when word occurs in line as a number of its own (not part of a longer number). */
static int has_number(const char *line, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(line, word); p; p = strstr(p + 1, word)) {
        int before = p > line && (isdigit((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == ',');
        int after = isdigit((unsigned char)p[n]) || ((p[n] == '.' || p[n] == ',') && isdigit((unsigned char)p[n + 1]));
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* Parses one record line of doc (line number ln); block[0..nblock) is the paragraph or table above it. */
static void parse_record(const char *doc, int ln, char *text, char **block, int nblock)
{
    struct record *r = &recs[nrecs];
    cr_assert_lt(nrecs, (int)(sizeof recs / sizeof *recs), "too many figure records");
    memset(r, 0, sizeof *r);
    str_copy(r->doc, sizeof r->doc, doc);
    r->line = ln;
    r->check = 1;
    r->max = NAN;
    int used = 0;
    cr_assert_eq(sscanf(text, " %95s %63s%n", r->id, r->text, &used), 2, "%s:%d: a figure record needs an id and a value",
                 doc, ln);
    char key[32], val[256];
    for (const char *s = text + used; (s = parse_kv(s, key, sizeof key, val, sizeof val));) {
        if (strcmp(key, "row") == 0)
            str_copy(r->row, sizeof r->row, val);
        else if (strcmp(key, "shown") == 0)
            str_copy(r->shown, sizeof r->shown, val);
        else if (strcmp(key, "why") == 0)
            str_copy(r->why, sizeof r->why, val);
        else if (strcmp(key, "col") == 0)
            r->col = atoi(val);
        else if (strcmp(key, "max") == 0)
            r->max = strtod(val, NULL);
        else if (strcmp(key, "check") == 0)
            r->check = strcmp(val, "no") != 0;
        else
            cr_assert_fail("%s:%d: figure %s: unknown key '%s'", doc, ln, r->id, key);
    }
    char *end;
    if (r->text[0] == '<') {
        r->kind = K_BOUND;
        r->value = strtod(r->text + 1, &end);
        cr_assert(end != r->text + 1 && !*end && r->value > 0, "%s:%d: figure %s: bad bound '%s'", doc, ln, r->id, r->text);
    } else {
        r->value = strtod(r->text, &end);
        r->kind = end != r->text && !*end ? K_NUM : K_WORD;
    }
    if (r->kind == K_NUM)
        cr_assert(r->value > 0 || isfinite(r->max), "%s:%d: figure %s is documented as 0: it needs max=", doc, ln, r->id);
    cr_assert(r->check || r->why[0], "%s:%d: figure %s: check=no needs why=\"...\"", doc, ln, r->id);
    /* the value is the one the doc shows: in the line named by row, else anywhere in the block above */
    const char *want = r->shown[0] ? r->shown : r->kind == K_BOUND ? r->text + 1 : r->text;
    int found = 0;
    for (int i = 0; i < nblock && !found; i++) {
        if (r->row[0] && !strstr(block[i], r->row))
            continue;
        char cell[1024];
        str_copy(cell, sizeof cell, block[i]);
        if (r->col > 0) {   /* a table row "| a | b |": cell 1 is a */
            char *c = cell;
            for (int k = 0; k < r->col && c; k++)
                c = strchr(c + (k > 0), '|');
            cr_assert(c, "%s:%d: figure %s: the line has no column %d:\n  %s", doc, ln, r->id, r->col, block[i]);
            char *e = strchr(c + 1, '|');
            if (e)
                *e = 0;
            memmove(cell, c + 1, strlen(c + 1) + 1);
        }
        int shows = r->kind == K_WORD ? strstr(cell, want) != NULL : has_number(cell, want);
        cr_assert(shows || !r->row[0], "%s:%d: figure %s is %s, but the line it names does not show it there:\n  %s", doc,
                  ln, r->id, want, block[i]);
        found = shows;
    }
    cr_assert(found, "%s:%d: figure %s: %s not found in the %s above", doc, ln, r->id, want,
              r->row[0] ? "line named by row" : "paragraph or table");
    nrecs++;
}

/* Loads every record of both docs. */
static void load_records(void)
{
    nrecs = 0;
    for (size_t d = 0; d < sizeof docs / sizeof *docs; d++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", GAUNTLET_SRC, docs[d]);
        char *text = e2e_read(path);
        cr_assert(text, "cannot read %s", path);
        char *lines[4096];
        int n = 0;
        for (char *p = text; *p && n < 4096;) {
            lines[n++] = p;
            char *nl = strchr(p, '\n');
            if (!nl)
                break;
            *nl = 0;
            p = nl + 1;
        }
        int bstart = -1, bend = -1;   /* the last block of text: lines [bstart, bend) */
        for (int i = 0; i < n; i++) {
            if (strncmp(lines[i], "<!-- figures", 12) == 0) {
                cr_assert_geq(bstart, 0, "%s:%d: a figures record with no text above it", docs[d], i + 1);
                int j = i + 1;
                for (; j < n && !strstr(lines[j], "-->"); j++)
                    if (lines[j][strspn(lines[j], " \t")])
                        parse_record(docs[d], j + 1, lines[j], lines + bstart, bend - bstart);
                cr_assert_lt(j, n, "%s:%d: a figures record is not closed", docs[d], i + 1);
                i = j;
                continue;
            }
            if (!lines[i][0])
                continue;
            if (i == 0 || !lines[i - 1][0] || strncmp(lines[i - 1], "-->", 3) == 0)
                bstart = i;
            bend = i + 1;
        }
        free(text);
    }
}

static char drifts[4096];   /* timing figures off by more than the factor: reported, not judged, unless strict */
static size_t ndrift;

/* Whether id is a timing figure: one of its dot-separated parts is a duration (_ms, _s) or a rate (_gbs), as in
 * drill.restart.recover_ms.crash or ckpt.async_gbs. */
static int timing(const char *id)
{
    static const char *const units[] = { "_ms", "_s", "_gbs" };
    for (const char *p = id; *p;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        for (size_t u = 0; u < 3; u++) {
            size_t k = strlen(units[u]);
            if (n > k && strncmp(p + n - k, units[u], k) == 0)
                return 1;
        }
        p += n + (dot != NULL);
    }
    return 0;
}

/* Compares a fresh value with every record of id; a difference is kept for the test's end. */
static void compare(const char *id, double fresh)
{
    int seen = 0;
    for (int i = 0; i < nrecs; i++) {
        struct record *r = &recs[i];
        if (strcmp(r->id, id) != 0)
            continue;
        seen = 1;
        cr_assert(r->kind != K_WORD, "%s:%d: figure %s is a word, measured as a number", r->doc, r->line, id);
        const char *bad = NULL;
        char rule[96];
        if (!isfinite(fresh)) {
            bad = "not measured";
            snprintf(rule, sizeof rule, "a number");
        } else if (r->kind == K_BOUND) {
            snprintf(rule, sizeof rule, "< %g x %g", r->value, DRIFT);
            bad = fresh >= r->value * DRIFT ? "over its bound" : NULL;
        } else if (r->value == 0) {
            snprintf(rule, sizeof rule, "<= %g", r->max);
            bad = fresh > r->max ? "over its bound" : NULL;
        } else {
            snprintf(rule, sizeof rule, "%g .. %g", r->value / DRIFT, r->value * DRIFT);
            bad = fresh < r->value / DRIFT || fresh > r->value * DRIFT ? "drifted" : NULL;
        }
        cr_log_info("%-40s documented %-8s fresh %-10.4g (%s)%s", id, r->text, fresh, rule, bad ? "  DRIFTED" : "");
        const char *strict = getenv("GAUNTLET_DOC_FIGURES");
        if (bad && isfinite(fresh) && timing(id) && !(strict && strcmp(strict, "strict") == 0)) {
            if (ndrift < sizeof drifts - 1)
                ndrift += (size_t)snprintf(drifts + ndrift, sizeof drifts - ndrift,
                                           "\n  %s:%d: %s documented %s, fresh run %.4g (%s: allowed %s)", r->doc,
                                           r->line, id, r->text, fresh, bad, rule);
            continue;
        }
        if (bad && nfail < sizeof failures - 1)
            nfail += (size_t)snprintf(failures + nfail, sizeof failures - nfail,
                                      "\n  %s:%d: %s documented %s, fresh run %.4g (%s: allowed %s)", r->doc, r->line,
                                      id, r->text, fresh, bad, rule);
    }
    cr_assert(seen, "%s is measured here but no doc records it (docs/faults.md, docs/performance.md)", id);
}

/* The same for a word (exact). */
static void compare_word(const char *id, const char *fresh)
{
    int seen = 0;
    for (int i = 0; i < nrecs; i++) {
        struct record *r = &recs[i];
        if (strcmp(r->id, id) != 0)
            continue;
        seen = 1;
        cr_log_info("%-40s documented %s fresh %s", id, r->text, fresh ? fresh : "(none)");
        if ((!fresh || strcmp(fresh, r->text) != 0) && nfail < sizeof failures - 1)
            nfail += (size_t)snprintf(failures + nfail, sizeof failures - nfail, "\n  %s:%d: %s documented %s, fresh run %s",
                                      r->doc, r->line, id, r->text, fresh ? fresh : "(none)");
    }
    cr_assert(seen, "%s is measured here but no doc records it", id);
}

static void report(void)
{
    if (ndrift)   /* on stderr, not as criterion's warning: that would make the test's exit status a failure */
        fprintf(stderr, "doc_figures: timings off the documented machine's by more than %g x (reported, not judged: "
                        "GAUNTLET_DOC_FIGURES=strict judges them):%s\n", DRIFT, drifts);
#ifdef __SANITIZE_ADDRESS__   /* tests/sanitize-all.sh: every figure was still measured and recorded; only the timing
                               * comparison is moot, a sanitized build being several times slower by design */
    if (nfail)
        cr_skip_test("timings under AddressSanitizer are not the documented machine's:%s", failures);
#endif
    cr_assert_eq(nfail, 0, "documented figures that a fresh run here does not bear out (factor %g):%s", DRIFT, failures);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (NAN when empty); v is sorted. */
static double median(double *v, int n)
{
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Reads a shipped scenario, replaces each line starting with from[i] by to[i], and writes it to a temp file. */
static const char *scenario_with(const char *name, const char *const *from, const char *const *to, int n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenarios/%s", GAUNTLET_SRC, name);
    char *text = e2e_read(path);
    cr_assert(text, "cannot read %s", path);
    static char out[16384];
    size_t len = 0;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t ll = nl ? (size_t)(nl - line) : strlen(line);
        const char *put = NULL;
        for (int i = 0; i < n; i++)
            if (strncmp(line, from[i], strlen(from[i])) == 0)
                put = to[i];
        len += (size_t)snprintf(out + len, sizeof out - len, "%.*s\n", put ? (int)strlen(put) : (int)ll, put ? put : line);
        cr_assert_lt(len, sizeof out - 1);
        line = nl ? nl + 1 : line + ll;
    }
    free(text);
    return e2e_scenario(out);
}

/* Runs scenario on sim; returns its summary (the test fails unless it exits 0). */
static json_t *run_sim(const char *scenario)
{
    const char *out = e2e_outdir();
    const char *log = e2e_log("doc-figures.log");
    int rc = e2e_run(log, (const char *[]){ "run", scenario, "--backend", "sim", "--headless", "--out", out, NULL });
    char *text = e2e_read(log);
    cr_assert_eq(rc, 0, "%s: exit %d:\n%s", scenario, rc, text ? text : "");
    free(text);
    return e2e_summary(out);
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

Test(doc_figures, every_record_is_whole_and_shown)
{
    load_records();
    cr_assert_gt(nrecs, 0, "no figure records in the docs");
    for (int i = 0; i < nrecs; i++) {
        struct record *r = &recs[i];
        if (r->check)
            cr_assert(is_measured(r->id), "%s:%d: figure %s: no test here measures it (check=no with why=, or add it)",
                      r->doc, r->line, r->id);
        for (int j = 0; j < i; j++)
            cr_assert(strcmp(recs[j].id, r->id) != 0, "%s:%d: figure %s is recorded twice", r->doc, r->line, r->id);
    }
    for (size_t k = 0; k < sizeof measured / sizeof *measured; k++) {
        int seen = 0;
        for (int i = 0; i < nrecs && !seen; i++)
            seen = strcmp(recs[i].id, measured[k]) == 0;
        cr_assert(seen, "%s is measured here but no doc records it", measured[k]);
    }
}

/* scenarios/fault-drill.yaml under restart, inprocess and spare, as docs/faults.md ("Measured") ran it. */
Test(doc_figures, fault_drill, .timeout = 150)
{
    static const char *const strategies[] = { "restart", "inprocess", "spare" };
    static const char *const lines[] = { "recovery: restart", "recovery: { inprocess: { replicate_every: 5 } }",
                                         "recovery: { spare: { replicate_every: 5 } }" };
    static const char *const faults[] = { "fingerprint", "abft", "crash", "hang", "comm", "straggler" };
    static const char *const detectors[] = { "fingerprint", "abft", "replay" };
    double detect[6][3], cost[3][3], gbs[8];
    int ngbs = 0, fp = 0;
    load_records();
    for (int s = 0; s < 3; s++) {
        const char *from[] = { "recovery:" }, *to[] = { lines[s] };
        json_t *sum = run_sim(scenario_with("fault-drill.yaml", from, to, 1));
        json_t *run0 = json_array_get(json_object_get(sum, "runs"), 0);
        compare_word("drill.state", json_string_value(json_object_get(run0, "state_fingerprint")));
        fp += (int)json_integer_value(json_object_get(json_object_get(run0, "faults"), "false_positives"));
        for (int d = 0; d < 3; d++)
            cost[d][s] = 1e3 * num(json_object_get(json_object_get(json_object_get(run0, "faults"), "detector_cost"),
                                                    detectors[d]), "per_iter_s");
        for (int f = 0; f < 6; f++)
            detect[f][s] = NAN;
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(sum, "faults"), i, f) {
            const char *kind = json_string_value(json_object_get(f, "kind"));
            const char *target = json_string_value(json_object_get(f, "target"));
            int k = strcmp(kind, "crash") == 0           ? 2
                    : strcmp(kind, "hang") == 0          ? 3
                    : strcmp(kind, "comm-error") == 0    ? 4
                    : strcmp(kind, "straggler") == 0     ? 5
                    : target && strcmp(target, "allreduce-buffer") == 0 ? 0
                    : target && strcmp(target, "gemm-output") == 0      ? 1
                                                                        : -1;
            cr_assert_geq(k, 0, "fault-drill: an unexpected fault %s", json_dumps(f, 0));
            detect[k][s] = 1e3 * num(f, "detect_s");
            if (k == 5)
                continue;   /* a straggler is detected, not recovered */
            char id[96];
            snprintf(id, sizeof id, "drill.%s.recover_ms.%s", strategies[s], faults[k]);
            compare(id, 1e3 * num(f, "recover_s"));
            snprintf(id, sizeof id, "drill.%s.lost.%s", strategies[s], faults[k]);
            compare(id, num(f, "iterations_lost"));
            if (s == 0 && json_is_number(json_object_get(f, "restore_gbs")) && ngbs < 8)
                gbs[ngbs++] = num(f, "restore_gbs");
        }
        json_decref(sum);
    }
    compare("drill.detect_ms.hang", median(detect[3], 3));   /* the same fault in each of the three runs */
    compare("drill.detect_ms.straggler", median(detect[5], 3));
    for (int d = 0; d < 3; d++) {
        char id[96];
        snprintf(id, sizeof id, "drill.cost_ms.%s", detectors[d]);
        compare(id, median(cost[d], 3));
    }
    compare("drill.restore_gbs", median(gbs, ngbs));
    compare("drill.false_positives", fp);
    report();
}

/* scenarios/fault-latency.yaml: 8 each of the faults detected within milliseconds; the median per detector. */
Test(doc_figures, fault_latency, .timeout = 60)
{
    static const char *const detectors[] = { "fingerprint", "abft", "exit", "comm" };
    static const char *const ids[] = { "latency.detect_ms.fingerprint", "latency.detect_ms.abft",
                                       "latency.detect_ms.crash", "latency.detect_ms.comm" };
    load_records();
    json_t *sum = run_sim(scenario_with("fault-latency.yaml", NULL, NULL, 0));
    for (int d = 0; d < 4; d++) {
        double v[64];
        int n = 0;
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(sum, "faults"), i, f) {
            const char *by = json_string_value(json_object_get(f, "detected_by"));
            if (by && strcmp(by, detectors[d]) == 0 && n < 64 && json_is_number(json_object_get(f, "detect_s")))
                v[n++] = 1e3 * num(f, "detect_s");
        }
        cr_assert_geq(n, 4, "fault-latency: only %d faults detected by %s", n, detectors[d]);
        compare(ids[d], median(v, n));
    }
    json_decref(sum);
    report();
}

/* scenarios/checkpoint-async.yaml: what an async checkpoint stalls the rank, and the write it hides. */
Test(doc_figures, async_checkpoint, .timeout = 60)
{
    load_records();
    json_t *sum = run_sim(scenario_with("checkpoint-async.yaml", NULL, NULL, 0));
    json_t *run0 = json_array_get(json_object_get(sum, "runs"), 0);
    double gbs = num(run0, "checkpoint_gbs");
    compare("ckpt.async_stall_ms", 1e3 * num(run0, "checkpoint_stall_s"));
    compare("ckpt.async_gbs", gbs);
    compare("ckpt.async_write_s", 64.0 * 1048576 / (gbs * 1e9));
    json_decref(sum);
    report();
}

/* scenarios/fingerprint-async.yaml and its sync twin: when the same 5 flips are seen (the median). */
Test(doc_figures, fingerprint_sync_and_async, .timeout = 60)
{
    load_records();
    const char *from[] = { "detectors:" }, *to[] = { "detectors: [fingerprint]" };
    json_t *sync = run_sim(scenario_with("fingerprint-async.yaml", from, to, 1));
    json_t *async = run_sim(scenario_with("fingerprint-async.yaml", NULL, NULL, 0));
    json_t *runs[2] = { sync, async };
    static const char *const ids[2] = { "fp.sync_detect_ms", "fp.async_detect_ms" };
    for (int k = 0; k < 2; k++) {
        double v[16];
        int n = 0;
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(runs[k], "faults"), i, f) {
            const char *by = json_string_value(json_object_get(f, "detected_by"));
            if (by && strcmp(by, "fingerprint") == 0 && n < 16)
                v[n++] = 1e3 * num(f, "detect_s");
        }
        cr_assert_eq(n, 5, "%s: %d of the 5 flips caught by fingerprint", ids[k], n);
        compare(ids[k], median(v, n));
    }
    json_decref(sync);
    json_decref(async);
    report();
}

/* `gauntlet --version` 20 times: wall time, minor page faults and resident memory of one exec. */
Test(doc_figures, process_start, .timeout = 30)
{
    load_records();
    double ms[20], flt[20], rss = 0;
    for (int i = 0; i < 20; i++) {
        uint64_t t0 = mono_ns();
        pid_t p = fork();
        cr_assert_geq(p, 0);
        if (p == 0) {
            int fd = open("/dev/null", O_WRONLY);
            dup2(fd, 1);
            execl(GAUNTLET_BIN, GAUNTLET_BIN, "--version", (char *)NULL);
            _exit(127);
        }
        int st;
        struct rusage ru;
        cr_assert_eq(wait4(p, &st, 0, &ru), p);
        ms[i] = (double)(mono_ns() - t0) * 1e-6;
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "gauntlet --version failed");
        flt[i] = (double)ru.ru_minflt;
        rss = fmax(rss, (double)ru.ru_maxrss / 1024.0);
    }
    compare("start.version_ms", median(ms, 20));
    compare("start.version_minflt", median(flt, 20));
    compare("start.version_rss_mb", rss);
    report();
}

/* `gauntlet bench analysis`: the 8-GPU analysis and the 100,000-GPU projection of a 1 h trace at 1 kHz. */
Test(doc_figures, power_analysis, .timeout = 60)
{
    load_records();
    const char *log = e2e_log("doc-figures-analysis.log");
    /* two threads, as documented: a machine with more cores must not read as a drift */
    int rc = e2e_run(log, (const char *[]){ "bench", "analysis", "--threads", "2", NULL });
    char *text = e2e_read(log);
    cr_assert_eq(rc, 0, "bench analysis: exit %d:\n%s", rc, text ? text : "");
    double gpus = NAN, proj = NAN;
    const char *p = strstr(text, "analysis of 8 GPUs and their sum: ");
    if (p)
        gpus = strtod(p + strlen("analysis of 8 GPUs and their sum: "), NULL);
    p = strstr(text, "projection to 100000 GPUs");
    if (p && (p = strstr(p, "): ")))
        proj = strtod(p + 3, NULL);
    free(text);
    compare("analysis.gpus_s", gpus);
    compare("analysis.projection_s", proj);
    report();
}
