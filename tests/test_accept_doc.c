/* tests/test_accept_doc.c: docs/acceptance.md's tables and lists held against the code that they describe, in process
 * (no run): the checks table names every check the code emits and no other, and each default it gives is the
 * scenario parser's (and the shipped scenario's it names); the expected GEMM rates are the ones the checks use; the
 * fields it lists for verdicts.json are the ones written; the scenarios of its levels table are the shipped files. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"
#include "accept_int.h"
#include "backend.h"
#include "dtype.h"
#include "e2e.h"
#include "param.h"
#include "util.h"

#define MAX_ROWS 32
#define MAX_CELLS 8

struct row { char cell[MAX_CELLS][4096]; int n; };

/* The rows of the doc's table whose header line starts with head (the header and its rule left out): how many. */
static int doc_table(const char *head, struct row *rows)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/docs/acceptance.md", e2e_src());
    char *doc = e2e_read(path);
    cr_assert(doc, "%s cannot be read", path);
    char *at = strstr(doc, head);
    cr_assert(at && (at == doc || at[-1] == '\n'), "docs/acceptance.md: no table headed '%s'", head);
    int n = 0;
    at = strchr(at, '\n');
    at = at ? strchr(at + 1, '\n') : NULL;   /* past the rule */
    for (char *line = at ? at + 1 : NULL; line && *line == '|'; n++) {
        char *end = strchr(line, '\n');
        cr_assert(end && n < MAX_ROWS);
        *end = 0;
        struct row *r = &rows[n];
        r->n = 0;
        for (char *c = line + 1, *bar; (bar = strchr(c, '|')) && r->n < MAX_CELLS; c = bar + 1) {
            *bar = 0;
            while (*c == ' ')
                c++;
            size_t l = strlen(c);
            while (l && c[l - 1] == ' ')
                c[--l] = 0;
            str_copy(r->cell[r->n++], sizeof r->cell[0], c);
        }
        line = end + 1;
    }
    free(doc);
    cr_assert(n > 0, "docs/acceptance.md: table '%s' has no rows", head);
    return n;
}

/* The first `name` of a cell ("`gpu_count` (`--expect-gpus N`)": gpu_count) into out. */
static void first_code(const char *cell, char *out, size_t n)
{
    const char *a = strchr(cell, '`'), *b = a ? strchr(a + 1, '`') : NULL;
    cr_assert(b, "no `name` in '%s'", cell);
    snprintf(out, n, "%.*s", (int)(b - a - 1), a + 1);
}

/* The check keys of a scenario's checks: section (the one table the parser reads). */
static const struct param *check_table(void)
{
    const struct param *p = param_find(scenario_params, "checks");
    cr_assert(p && p->sub, "scenario_params has no checks section");
    return p->sub;
}

/* Every check the code emits on a run of 3 nodes x 2 GPUs with every check of the table on, a failure nobody
 * injected, and --expect-gpus (gpu_count) into vs. */
static void emit_all(struct verdicts *vs)
{
    char dir[64] = "/tmp/gauntlet-accept-doc-XXXXXX", sc[4096], sum[4096], ev[4096], err[1024], path[700];
    cr_assert(mkdtemp(dir));
    e2e_own(dir);
    size_t l = (size_t)snprintf(sc, sizeof sc, "name: s\nranks: 2\nnodes: 3\niterations: 5\n"
                                               "workload: {gemm: {m: 64, n: 64, k: 64}, allreduce: {bytes: 1MiB}}\n"
                                               "heartbeat: {interval: 50ms, timeout: 2s}\nrecovery: restart\n"
                                               "faults:\n  - {kind: hang, at: 3, rank: 0}\nchecks:\n");
    for (const struct param *p = check_table(); p->name; p++)
        l += (size_t)snprintf(sc + l, sizeof sc - l, "  %s:\n", p->name);
    snprintf(sum, sizeof sum, "{\"scenario\": \"s\", \"backend\": \"cuda\", \"ranks\": 2, \"ranks_total\": 6, "
                              "\"faults\": [{\"origin\": \"observed\", \"kind\": \"crash\", \"node\": 0, \"rank\": 1, "
                              "\"detected_by\": \"exit\", \"what\": \"died\"}], "
                              "\"runs\": [{\"iterations\": 5, \"ranks\": [{\"rank\": 0}, {\"rank\": 1}]}], "
                              "\"nodes\": [{\"node\": 1, \"runs\": [{\"ranks\": []}], "
                              "\"gpus\": []}, {\"node\": 2, \"runs\": [{\"ranks\": []}], \"gpus\": []}]}\n");
    l = 0;
    for (int r = 0; r < 6; r++)
        l += (size_t)snprintf(ev + l, sizeof ev - l, "{\"t_s\": 0, \"event\": \"gpu\", \"rank\": %d, \"name\": "
                                                     "\"NVIDIA H100 80GB HBM3\", \"tdp_w\": 700}\n", r);
    e2e_put(dir, "scenario.yaml", sc);
    e2e_put(dir, "summary.json", sum);
    e2e_put(dir, "events.jsonl", ev);
    struct scenario *s = xcalloc(1, sizeof *s);
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);
    cr_assert_eq(scenario_load(path, s, err, sizeof err), 0, "%s", err);
    const double io[3] = { 1, 2, NAN };
    cr_assert_eq(accept_evaluate(s, dir, "cuda", io, io, vs, err, sizeof err), 0, "%s", err);
    const int counts[3] = { 2, 2, 1 };
    accept_gpu_count(vs, 2, counts, 3, "cuda");
    free(s);
}

/* The table's name of a check the code emits: checkpoint_io's two figures are its row's. */
static const char *row_of(const char *check)
{
    return strcmp(check, "checkpoint_write") == 0 || strcmp(check, "checkpoint_read") == 0 ? "checkpoint_io" : check;
}

/* The checks table lists every check a verdict can name (but `run`, said apart) and only those: a check an operator
 * reads in verdicts.json is explained there, and a row there is a check that can be judged. */
Test(accept_doc, the_checks_table_lists_every_check_the_code_emits_and_no_other)
{
    static struct row rows[MAX_ROWS];
    int n = doc_table("| check | per | passes when | default |", rows);
    char names[MAX_ROWS][64];
    for (int i = 0; i < n; i++) {
        cr_assert_eq(rows[i].n, 5, "checks table row %d has %d cells", i, rows[i].n);
        first_code(rows[i].cell[0], names[i], sizeof names[i]);
    }
    struct verdicts vs = { 0 };
    emit_all(&vs);
    for (int k = 0; k < vs.n; k++) {
        if (strcmp(vs.v[k].check, "run") == 0)
            continue;
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = strcmp(names[i], row_of(vs.v[k].check)) == 0;
        cr_assert(found, "check %s (%s: %s) has no row in docs/acceptance.md's checks table", vs.v[k].check,
                  vs.v[k].subject, vs.v[k].note);
    }
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int k = 0; k < vs.n && !found; k++)
            found = strcmp(row_of(vs.v[k].check), names[i]) == 0;
        cr_assert(found, "docs/acceptance.md's checks table has `%s`, which no verdict names", names[i]);
        if (strcmp(names[i], "checkpoint_io") == 0)   /* both of its figures */
            for (const char *const *c = (const char *const[]){ "checkpoint_write", "checkpoint_read", NULL }; *c; c++) {
                int has = 0;
                for (int k = 0; k < vs.n; k++)
                    has |= strcmp(vs.v[k].check, *c) == 0;
                cr_assert(has, "checkpoint_io: no %s verdict", *c);
            }
    }
    for (const struct param *p = check_table(); p->name; p++) {   /* and every key of the checks: section */
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = strcmp(names[i], p->name) == 0;
        cr_assert(found, "checks.%s has no row in docs/acceptance.md's checks table", p->name);
    }
    accept_free(&vs);
}

/* A number of a doc cell with its kind: a duration (s, ms: seconds), a size (KiB, MiB, GiB: bytes), or plain. */
struct docnum { double v; int type; };

/* The numbers of text (each with its unit read as a param type would), up to max; how many. */
static int doc_numbers(const char *text, struct docnum *out, int max)
{
    int n = 0;
    for (const char *s = text; *s && n < max;) {
        if (!isdigit((unsigned char)*s) || (s > text && (isalnum((unsigned char)s[-1]) || s[-1] == '.'))) {
            s++;
            continue;
        }
        char *end;
        double v = strtod(s, &end);
        const char *u = end;
        while (*u == ' ')
            u++;
        char unit[8] = "";
        size_t k = 0;
        while (isalpha((unsigned char)u[k]) && k < sizeof unit - 1) {
            unit[k] = u[k];
            k++;
        }
        unit[k] = 0;
        out[n] = (struct docnum){ v, PT_DOUBLE };
        char text2[64];
        snprintf(text2, sizeof text2, "%.*s%s", (int)(end - s), s, unit);
        uint64_t bytes;
        if ((strcmp(unit, "s") == 0 || strcmp(unit, "ms") == 0) && parse_duration(text2, &out[n].v) == 0)
            out[n].type = PT_DURATION;
        else if (strstr(unit, "iB") && parse_size(text2, &bytes) == 0)
            out[n] = (struct docnum){ (double)bytes, PT_SIZE };
        n++;
        s = end;
    }
    return n;
}

/* p's default as a number of its type. */
static struct docnum param_default(const struct param *p)
{
    struct docnum d = { NAN, (int)p->type };
    uint64_t bytes;
    if (p->type == PT_DURATION)
        cr_assert_eq(parse_duration(p->def, &d.v), 0, "%s: %s", p->name, p->def);
    else if (p->type == PT_SIZE && parse_size(p->def, &bytes) == 0)
        d.v = (double)bytes;
    else
        cr_assert_eq(parse_double(p->def, &d.v), 0, "%s: %s", p->name, p->def);
    return d;
}

static int has_number(const struct docnum *x, int n, struct docnum want)
{
    for (int i = 0; i < n; i++)
        if (x[i].type == want.type && fabs(x[i].v - want.v) <= 1e-9 * fabs(want.v))
            return 1;
    return 0;
}

/* Each default the checks table gives is the parser's (param table): every number of its default column (outside
 * parentheses) is one of the check's defaults, and every default of the check (but a 0 that means "by GPU model")
 * is given there or in the row's last column; a parenthesis "(L1: ...)" gives the shipped level-1 scenario's values
 * of the check, in the order of its keys. */
Test(accept_doc, the_checks_tables_defaults_are_the_parsers_and_the_shipped_scenarios)
{
    static struct row rows[MAX_ROWS];
    int n = doc_table("| check | per | passes when | default |", rows);
    for (int i = 0; i < n; i++) {
        char name[64], stated[512], *paren;
        first_code(rows[i].cell[0], name, sizeof name);
        const struct param *c = param_find(check_table(), name);
        if (!c || !c->sub[0].name)
            continue;   /* not a key of checks:, or one without a threshold of its own */
        str_copy(stated, sizeof stated, rows[i].cell[3]);
        char level[8] = "";
        if ((paren = strchr(stated, '('))) {
            if (sscanf(paren, "(L%1[0-9]:", level + 1) == 1)
                level[0] = 'L';
            *paren = 0;
        }
        struct docnum said[16], where[64];
        int ns = doc_numbers(stated, said, 16), nw = doc_numbers(rows[i].cell[4], where, 64);
        for (int k = 0; k < ns; k++) {
            int found = 0;
            for (const struct param *p = c->sub; p->name && !found; p++)
                found = p->def && has_number(&said[k], 1, param_default(p));
            cr_assert(found, "checks table, %s: the default %g (in '%s') is none of checks.%s's defaults", name,
                      said[k].v, rows[i].cell[3], name);
        }
        for (const struct param *p = c->sub; p->name; p++) {
            struct docnum d = param_default(p);
            if (d.v == 0)   /* 0: by GPU model (expected), said in the last column */
                continue;
            cr_assert(has_number(said, ns, d) || has_number(where, nw, d),
                      "checks table, %s: checks.%s.%s's default %s is not given (default column: '%s')", name, name,
                      p->name, p->def, rows[i].cell[3]);
        }
        if (!level[0])
            continue;
        /* "(L1: 5 s, 60 s)": the level's shipped scenario that turns the check on sets those */
        struct docnum lv[16];
        int nl = doc_numbers(strchr(rows[i].cell[3], '(') + 4, lv, 16), files = 0;
        char dir[1200];
        snprintf(dir, sizeof dir, "%s/scenarios/acceptance", e2e_src());
        DIR *d = opendir(dir);
        cr_assert(d, "%s", dir);
        for (struct dirent *e; (e = readdir(d));) {
            if (strncmp(e->d_name, level, 2) != 0 || e->d_name[2] != '-')
                continue;
            char path[1500], err[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct scenario *sc = xcalloc(1, sizeof *sc);
            cr_assert_eq(scenario_load(path, sc, err, sizeof err), 0, "%s", err);
            const char *base = (const char *)&sc->checks + c->off;
            if (*(const int *)base) {
                files++;
                int k = 0;
                for (const struct param *p = c->sub; p->name && k < nl; p++, k++) {
                    double v = p->type == PT_SIZE ? (double)*(const uint64_t *)(base + p->off)
                                                  : *(const double *)(base + p->off);
                    cr_assert(fabs(v - lv[k].v) <= 1e-9 * fabs(v), "checks table, %s: '%s' says %g, but %s sets %s %g",
                              name, rows[i].cell[3], lv[k].v, e->d_name, p->name, v);
                }
            }
            free(sc);
        }
        closedir(d);
        cr_assert(files > 0, "checks table, %s: no %s-*.yaml turns it on", name, level);
    }
}

/* The expected GEMM rates table is the code's (accept_expected_tflops), rounded to the whole TFLOP/s it shows: each
 * model of a row, each dtype; "anything else" has none (SKIP). */
Test(accept_doc, the_expected_gemm_rates_are_the_codes)
{
    static struct row rows[MAX_ROWS];
    int n = doc_table("| GPU (NVML name contains) |", rows), checked = 0;
    for (int i = 0; i < n; i++) {
        cr_assert_eq(rows[i].n, 6, "GEMM rates row %d has %d cells", i, rows[i].n);
        char models[256];
        str_copy(models, sizeof models, rows[i].cell[0]);
        int other = strcmp(models, "anything else") == 0;
        for (char *save = NULL, *m = strtok_r(models, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
            char name[128], *p;
            while (*m == ' ')
                m++;
            if ((p = strstr(m, " (SXM)")))
                *p = 0;
            snprintf(name, sizeof name, other ? "NVIDIA A100-SXM4-80GB" : "NVIDIA %s", m);
            for (int t = 0; t < DT_COUNT; t++) {
                double code = accept_expected_tflops(name, t);
                const char *doc = rows[i].cell[1 + t];
                if (strcmp(doc, "—") == 0)
                    cr_assert(isnan(code), "'%s' %s: the doc has none, the code %g", name, dtype_name((enum dtype)t),
                              code);
                else
                    cr_assert(fabs(round(code) - atof(doc)) < 1e-9, "'%s' %s: the doc says %s TFLOP/s, the code %g",
                              name, dtype_name((enum dtype)t), doc, code);
                checked++;
            }
        }
    }
    cr_assert_geq(checked, 7 * DT_COUNT);
}

/* The "quoted" names of text, in order, into names; how many. */
static int quoted(const char *text, char names[][32], int max)
{
    int n = 0;
    for (const char *q = strchr(text, '"'); q && n < max; q = strchr(q + 1, '"')) {
        const char *e = strchr(q + 1, '"');
        cr_assert(e);
        snprintf(names[n++], 32, "%.*s", (int)(e - q - 1), q + 1);
        q = e;
    }
    return n;
}

/* The keys of o, in order; how many. */
static int keys_of(json_t *o, char names[][32], int max)
{
    const char *k;
    json_t *v;
    int n = 0;
    json_object_foreach(o, k, v) {
        cr_assert(n < max);
        snprintf(names[n++], 32, "%s", k);
    }
    return n;
}

static void same_keys(char a[][32], int na, char b[][32], int nb, const char *what)
{
    for (int i = 0; i < na; i++) {
        int found = 0;
        for (int k = 0; k < nb && !found; k++)
            found = strcmp(a[i], b[k]) == 0;
        cr_assert(found, "%s: the doc lists \"%s\", verdicts.json has no such field", what, a[i]);
    }
    for (int k = 0; k < nb; k++) {
        int found = 0;
        for (int i = 0; i < na && !found; i++)
            found = strcmp(a[i], b[k]) == 0;
        cr_assert(found, "%s: verdicts.json has \"%s\", which the doc does not list", what, b[k]);
    }
}

/* verdicts.json holds the fields docs/acceptance.md lists, and no other: at its top (a suite a signal stopped adds
 * "incomplete" and "stopped_by", as the doc says) and in each verdict. */
Test(accept_doc, verdicts_json_has_the_fields_the_doc_lists)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/docs/acceptance.md", e2e_src());
    char *doc = e2e_read(path);
    cr_assert(doc);
    const char *at = strstr(doc, "`verdicts.json`: `{");
    cr_assert(at, "docs/acceptance.md: no \"`verdicts.json`: `{...}`\"");
    at += strlen("`verdicts.json`: `");
    const char *end = strchr(at, '`'), *open = strchr(at, '['), *close = strchr(at, ']');
    cr_assert(end && open && close && open < close && close < end);
    char outer[1024], inner[1024], top[24][32], field[24][32], got[24][32];
    snprintf(outer, sizeof outer, "%.*s%.*s", (int)(open - at), at, (int)(end - close), close);
    snprintf(inner, sizeof inner, "%.*s", (int)(close - open), open);
    int nt = quoted(outer, top, 24), nf = quoted(inner, field, 24);
    const char *stop = strstr(end, "adds `\"incomplete\": true, \"stopped_by\":");
    cr_assert(stop, "docs/acceptance.md: what a stopped suite adds to verdicts.json is not said after the list");
    free(doc);
    for (int stopped = 0; stopped < 2; stopped++) {
        struct verdicts vs = { 0 };
        struct scenario *sc = xcalloc(1, sizeof *sc);
        str_copy(sc->name, sizeof sc->name, "a");
        accept_judge(&vs, sc, "gemm_tflops", 0, 1, 1, 600, ">=", 595, "TFLOP/s");
        accept_skip(&vs, sc, "throttle", "the sim backend is a model");
        vs.stopped_by = stopped ? SIGTERM : 0;
        char dir[64] = "/tmp/gauntlet-accept-doc-XXXXXX", file[128];
        cr_assert(mkdtemp(dir));
        e2e_own(dir);
        accept_write(&vs, 1, backend_find("sim"), 0, dir, NULL);
        snprintf(file, sizeof file, "%s/verdicts.json", dir);
        json_error_t err;
        json_t *j = json_load_file(file, 0, &err);
        cr_assert(j, "%s: %s", file, err.text);
        int ng = keys_of(j, got, 24);
        if (stopped) {
            cr_assert(json_is_true(json_object_get(j, "incomplete")) &&
                          json_is_string(json_object_get(j, "stopped_by")),
                      "a stopped suite's verdicts.json without incomplete and stopped_by");
            snprintf(top[nt], 32, "incomplete");
            snprintf(top[nt + 1], 32, "stopped_by");
        }
        same_keys(top, nt + 2 * stopped, got, ng, "verdicts.json");
        for (size_t i = 0; i < json_array_size(json_object_get(j, "verdicts")); i++) {
            ng = keys_of(json_array_get(json_object_get(j, "verdicts"), i), got, 24);
            same_keys(field, nf, got, ng, "verdicts.json's verdicts[]");
        }
        json_decref(j);
        accept_free(&vs);
        free(sc);
    }
}

/* The scenarios the levels table names are the shipped ones, each under its level's row: `Lk-name` in row k (or a
 * later one, which runs it too) is scenarios/acceptance/Lk-name.yaml, and every file there is named. */
Test(accept_doc, the_levels_table_names_the_shipped_scenarios)
{
    static struct row rows[MAX_ROWS];
    int n = doc_table("| level | scenarios", rows), named = 0;
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/scenarios/acceptance", e2e_src());
    for (int i = 0; i < n; i++)
        for (const char *a = strchr(rows[i].cell[1], '`'); a; a = strchr(a + 1, '`')) {
            const char *b = strchr(a + 1, '`');
            cr_assert(b);
            if (a[1] == 'L' && isdigit((unsigned char)a[2]) && a[3] == '-') {
                char path[1400];
                snprintf(path, sizeof path, "%s/%.*s.yaml", dir, (int)(b - a - 1), a + 1);
                cr_assert_eq(access(path, R_OK), 0, "levels table, level %s: `%.*s` is no shipped scenario (%s)",
                             rows[i].cell[0], (int)(b - a - 1), a + 1, path);
                cr_assert_eq(a[2] - '0', atoi(rows[i].cell[0]), "`%.*s` is in the row of level %s", (int)(b - a - 1),
                             a + 1, rows[i].cell[0]);
                named++;
            }
            a = b;
        }
    DIR *d = opendir(dir);
    cr_assert(d, "%s", dir);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));)
        files += strlen(e->d_name) > 5 && strcmp(e->d_name + strlen(e->d_name) - 5, ".yaml") == 0;
    closedir(d);
    cr_assert_eq(named, files, "the levels table names %d scenarios, scenarios/acceptance/ holds %d", named, files);
}
