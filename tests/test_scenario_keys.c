/* tests/test_scenario_keys.c: the key tables against docs/scenarios.md and against the parser, key by key. Every key
 * of the table has its row in the docs (and every row a key), with the table's default, type and any range the row
 * states; every numeric parameter (the scenario's keys, each plug-in's and each step kind's) refuses a value past
 * either end of its range with file:line:column, the key and what was expected (in-process and through `gauntlet
 * check`, exit 2), and keeps a value inside it as given, through the echo into scenario.yaml too. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detectors/detector.h"
#include "e2e.h"
#include "faults/fault.h"
#include "mitigations/mitigation.h"
#include "recovery/recovery.h"
#include "scenario.h"
#include "scenario_int.h"
#include "util.h"

/* ---- the keys: every parameter of every table, with where its value lands ---- */

enum where { W_SCENARIO, W_MITIGATION, W_FAULT, W_DETECTOR, W_RECOVERY, W_STEP };

struct key {
    char name[160];           /* as an error names it: sim.sensor.update, mitigations[0].filler.floor */
    const struct param *p;
    enum where where;
    size_t off;               /* W_SCENARIO: of p's struct inside struct scenario */
    int owner;                /* the plug-in's index in its table, or the step kind */
    char yaml[1024];          /* a scenario with @V@ where the value goes */
};

static struct key keys[512];
static int n_keys;

static const char head[] = "name: t\nranks: 2\niterations: 5\n";
static const char simple[] = "workload:\n  gemm: {m: 64, n: 64, k: 64}\n  allreduce: {bytes: 1MiB}\n";

/* The scenario holding the scenario-table key path (dotted) at @V@, nested in block mappings beside the minimal
 * scenario's own keys (replacing one of them where it is one). */
static void scenario_yaml_for(const char *path, char *out, size_t n)
{
    static const char *const base[] = { "name", "ranks", "iterations", "workload.gemm.m", "workload.gemm.n",
                                        "workload.gemm.k", "workload.allreduce.bytes" };
    static const char *const base_v[] = { "t", "2", "5", "64", "64", "64", "1MiB" };
    const char *pairs[16], *vals[16];
    int np = 0, at = -1, best = -1;
    for (size_t i = 0; i < sizeof base / sizeof *base; i++) {
        pairs[np] = base[i];
        vals[np++] = base_v[i];
        if (strcmp(base[i], path) == 0)
            at = (int)i;
        int common = 0;   /* sections shared: "workload." */
        for (const char *a = base[i], *b = path; *a && *a == *b; a++, b++)
            if (*a == '.')
                common++;
        if (common > 0 && common >= best && at < 0)
            best = common, at = -2 - (int)i;
    }
    if (at >= 0)
        vals[at] = "@V@";
    else {
        int after = at <= -2 ? -2 - at : np - 1;
        for (int i = np; i > after + 1; i--)
            pairs[i] = pairs[i - 1], vals[i] = vals[i - 1];
        pairs[after + 1] = path;
        vals[after + 1] = "@V@";
        np++;
    }
    size_t used = 0;
    const char *prev = "";
    for (int i = 0; i < np; i++) {
        const char *s = pairs[i];
        int depth = 0, same = 1;   /* sections of s shared with prev are not written again */
        for (const char *dot; (dot = strchr(s, '.')); s = dot + 1, depth++) {
            size_t len = (size_t)(dot - s);
            const char *q = prev;
            for (int d = 0; d < depth && q; d++)
                q = strchr(q, '.') ? strchr(q, '.') + 1 : NULL;
            same = same && q && strncmp(q, s, len) == 0 && q[len] == '.';
            if (!same)
                used += (size_t)snprintf(out + used, n - used, "%*s%.*s:\n", 2 * depth, "", (int)len, s);
        }
        used += (size_t)snprintf(out + used, n - used, "%*s%s: %s\n", 2 * depth, "", s, vals[i]);
        prev = pairs[i];
    }
}

/* Adds one key. */
static struct key *key_add(const char *name, const struct param *p, enum where where, size_t off, int owner)
{
    cr_assert(n_keys < (int)(sizeof keys / sizeof *keys));
    struct key *k = &keys[n_keys++];
    snprintf(k->name, sizeof k->name, "%s", name);
    k->p = p;
    k->where = where;
    k->off = off;
    k->owner = owner;
    return k;
}

/* Adds every key of the scenario table under prefix (base: table's struct inside struct scenario). */
static void collect_scenario(const struct param *table, const char *prefix, size_t base)
{
    for (const struct param *p = table; p->name; p++) {
        char name[160];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", p->name);
        if (p->type == PT_SECTION) {
            collect_scenario(p->sub, name, base + p->off);
            continue;
        }
        struct key *k = key_add(name, p, W_SCENARIO, base, -1);
        scenario_yaml_for(name, k->yaml, sizeof k->yaml);
    }
}

/* Fills keys[] once: the scenario's, each plug-in's and each step kind's parameters. */
static void collect(void)
{
    if (n_keys)
        return;
    collect_scenario(scenario_params, "", 0);
    char name[160];
    for (int i = 0; mitigation_table[i]; i++)
        for (const struct param *p = mitigation_table[i]->params; p && p->name; p++) {
            snprintf(name, sizeof name, "mitigations[0].%s.%s", mitigation_table[i]->name, p->name);
            struct key *k = key_add(name, p, W_MITIGATION, 0, i);
            snprintf(k->yaml, sizeof k->yaml, "%s%smitigations:\n  - %s:\n      %s: @V@\n", head, simple,
                     mitigation_table[i]->name, p->name);
        }
    for (int i = 0; fault_table[i]; i++)
        for (const struct param *p = fault_table[i]->params; p && p->name; p++) {
            snprintf(name, sizeof name, "faults[0].%s", p->name);
            struct key *k = key_add(name, p, W_FAULT, 0, i);
            snprintf(k->yaml, sizeof k->yaml, "%s%sfaults:\n  - kind: %s\n    at: 0\n    %s: @V@\n", head, simple,
                     fault_table[i]->name, p->name);
        }
    for (int i = 0; detector_table[i]; i++)
        for (const struct param *p = detector_table[i]->params; p && p->name; p++) {
            snprintf(name, sizeof name, "detectors[0].%s.%s", detector_table[i]->name, p->name);
            struct key *k = key_add(name, p, W_DETECTOR, 0, i);
            snprintf(k->yaml, sizeof k->yaml, "%s%sdetectors:\n  - %s:\n      %s: @V@\n", head, simple,
                     detector_table[i]->name, p->name);
        }
    for (int i = 0; recovery_table[i]; i++)
        for (const struct param *p = recovery_table[i]->params; p && p->name; p++) {
            snprintf(name, sizeof name, "recovery.%s.%s", recovery_table[i]->name, p->name);
            struct key *k = key_add(name, p, W_RECOVERY, 0, i);
            snprintf(k->yaml, sizeof k->yaml, "%s%srecovery:\n  %s:\n    %s: @V@\n", head, simple,
                     recovery_table[i]->name, p->name);
        }
    for (int s = 0; s < ST_COUNT; s++)
        for (const struct param *p = step_params(s); p && p->name; p++) {
            snprintf(name, sizeof name, "workload.phases[0].%s.%s", step_kind_name(s), p->name);
            struct key *k = key_add(name, p, W_STEP, 0, s);
            size_t used = (size_t)snprintf(k->yaml, sizeof k->yaml, "%sworkload:\n  phases:\n    - %s:\n        %s: @V@\n",
                                           head, step_kind_name(s), p->name);
            for (const struct param *q = step_params(s); q->name; q++)   /* its other required parameters */
                if (q != p && (q->flags & PF_REQUIRED))
                    used += (size_t)snprintf(k->yaml + used, sizeof k->yaml - used, "        %s: %s\n", q->name,
                                             q->type == PT_DURATION ? "1ms" : "1MiB");
            snprintf(k->yaml + used, sizeof k->yaml - used,
                     "    - gemm: {m: 64, n: 64, k: 64}\n    - allreduce: {bytes: 1MiB}\n");
        }
}

static int numeric(const struct param *p)
{
    return p->type == PT_INT || p->type == PT_SIZE || p->type == PT_DURATION || p->type == PT_DOUBLE ||
           p->type == PT_POWER || p->type == PT_PAIR;
}

/* The text with @V@ replaced by value; *line and *col get where the value stands. */
static char *with_value(const char *yaml, const char *value, int *line, int *col)
{
    const char *at = strstr(yaml, "@V@");
    cr_assert(at, "no @V@ in\n%s", yaml);
    *line = 1;
    const char *bol = yaml;
    for (const char *q = yaml; q < at; q++)
        if (*q == '\n')
            (*line)++, bol = q + 1;
    *col = (int)(at - bol) + 1;
    size_t n = strlen(yaml) + strlen(value) + 1;
    char *out = malloc(n);
    cr_assert(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - yaml), yaml, value, at + 3);
    return out;
}

/* Where key's value lies in sc. */
static const void *value_base(const struct key *k, const struct scenario *sc)
{
    switch (k->where) {
    case W_SCENARIO: return (const char *)sc + k->off;
    case W_MITIGATION: return sc->mitigations[0].params;
    case W_FAULT: return sc->faults[0].params;
    case W_DETECTOR: return sc->detectors[0].params;
    case W_RECOVERY: return sc->recovery.params;
    case W_STEP: return &sc->workload.steps[0];
    }
    return NULL;
}

/* Whether p's values at a and b are the same, bit for bit where it matters (never through their text). */
static int same_value(const struct param *p, const void *a, const void *b)
{
    a = (const char *)a + p->off;
    b = (const char *)b + p->off;
    switch (p->type) {
    case PT_INT: return *(const int64_t *)a == *(const int64_t *)b;
    case PT_SIZE: return *(const uint64_t *)a == *(const uint64_t *)b;
    case PT_DURATION:
    case PT_DOUBLE: return *(const double *)a == *(const double *)b;
    case PT_PAIR: return ((const double *)a)[0] == ((const double *)b)[0] && ((const double *)a)[1] == ((const double *)b)[1];
    case PT_POWER: {
        const struct power_value *x = a, *y = b;
        return x->value == y->value && x->percent == y->percent;
    }
    default: return 1;
    }
}

/* The texts just past each end of p's range into lo and hi (lo empty where the type can write nothing below). */
static void outside(const struct param *p, char *lo, char *hi, size_t n)
{
    lo[0] = hi[0] = 0;
    switch (p->type) {
    case PT_INT:
        snprintf(lo, n, "%.0f", p->min - 1);
        snprintf(hi, n, "%.0f", p->max + 1);
        return;
    case PT_SIZE:
        if (p->min > 0)
            snprintf(lo, n, "%.0f", p->min - 1);
        snprintf(hi, n, "%.0f", p->max + 1);
        return;
    case PT_DURATION:
        if (p->min > 0)
            snprintf(lo, n, "%.17gs", p->min / 2);
        else
            snprintf(lo, n, "-1s");
        snprintf(hi, n, "%.17gs", p->max * 2);
        return;
    case PT_DOUBLE:
        format_number(p->min > 0 ? p->min / 2 : p->min < 0 ? p->min * 2 : -1, lo, n);
        format_number(p->max * 2, hi, n);
        return;
    case PT_POWER:
        snprintf(lo, n, "-1%%");
        snprintf(hi, n, "%s", "5001W");
        return;
    case PT_PAIR:
        snprintf(lo, n, "[%.17g, 20]", p->min > 0 ? p->min / 2 : -1.0);
        snprintf(hi, n, "[0.5, %.17g]", p->max * 2);
        return;
    default:
        return;
    }
}

/* Inside p's range: its ends and a value between them written with every digit it has. */
static int inside(const struct param *p, char out[3][64])
{
    double mid = p->min + (p->max - p->min) * 0.1234567890123456789;
    switch (p->type) {
    case PT_INT:
    case PT_SIZE:
        snprintf(out[0], 64, "%.0f", p->min);
        snprintf(out[1], 64, "%.0f", p->max);
        snprintf(out[2], 64, "%.0f", floor(mid));
        return 3;
    case PT_DURATION:
        snprintf(out[0], 64, "%.17gs", p->min);
        snprintf(out[1], 64, "%.17gs", p->max);
        snprintf(out[2], 64, "%.17gs", mid);
        return 3;
    case PT_DOUBLE:
        snprintf(out[0], 64, "%.17g", p->min);
        snprintf(out[1], 64, "%.17g", p->max);
        snprintf(out[2], 64, "%.17g", mid);
        return 3;
    case PT_POWER:
        snprintf(out[0], 64, "0%%");
        snprintf(out[1], 64, "100%%");
        snprintf(out[2], 64, "81.234567890123457%%");
        return 3;
    case PT_PAIR:
        snprintf(out[0], 64, "[%.17g, %.17g]", p->min, p->max);
        snprintf(out[1], 64, "[0.12345678901234568, 19.876543210987654]");
        return 2;
    default:
        return 0;
    }
}

/* For every numeric parameter, a value past either end of its range is exit 2 naming the value's place, the key,
 * what was expected and what was given (not clamped, not taken). */
Test(scenario_keys, a_value_past_either_end_of_its_range_is_named)
{
    collect();
    int tried = 0;
    struct scenario *sc = malloc(sizeof *sc);
    cr_assert(sc);
    for (int i = 0; i < n_keys; i++) {
        const struct key *k = &keys[i];
        if (!numeric(k->p))
            continue;
        cr_assert(k->p->type == PT_POWER || k->p->min < k->p->max, "%s has no range", k->name);
        char lo[64], hi[64], exp[256];
        outside(k->p, lo, hi, sizeof lo);
        param_expect(k->p, exp, sizeof exp);
        const char *texts[2] = { lo, hi };
        for (int j = 0; j < 2; j++) {
            if (!*texts[j])
                continue;
            int line, col;
            char *text = with_value(k->yaml, texts[j], &line, &col), err[1024] = "", want[1024];
            int rc = scenario_load_string(text, "t.yaml", sc, err, sizeof err);
            const char *q = k->p->type == PT_PAIR ? "" : "'";   /* a pair is quoted as [lo, hi] */
            snprintf(want, sizeof want, "t.yaml:%d:%d: %s: expected %s, got %s%s%s", line, col, k->name, exp, q,
                     texts[j], q);
            cr_expect_eq(rc, EXIT_INPUT, "%s: %s: exit %d (%s)\n%s", k->name, texts[j], rc, err, text);
            cr_expect_str_eq(err, want, "%s: %s", k->name, texts[j]);
            free(text);
            tried++;
        }
    }
    free(sc);
    cr_assert_gt(tried, 100, "only %d values tried", tried);
}

/* For every numeric parameter, its range's ends and a value between them with every digit are taken as given, or
 * refused by a rule across keys at a named place (exit 2, never a crash); taken, the value is the one written, and
 * the echo into scenario.yaml reads back the very same value. */
Test(scenario_keys, a_value_inside_its_range_is_kept_as_given)
{
    collect();
    int kept = 0;
    struct scenario *sc = malloc(sizeof *sc), *back = malloc(sizeof *back);
    cr_assert(sc && back);
    _Alignas(max_align_t) unsigned char direct[64];
    for (int i = 0; i < n_keys; i++) {
        const struct key *k = &keys[i];
        char vals[3][64];
        int nv = numeric(k->p) ? inside(k->p, vals) : 0;
        for (int j = 0; j < nv; j++) {
            int line, col;
            char *text = with_value(k->yaml, vals[j], &line, &col), err[1024] = "";
            int rc = scenario_load_string(text, "t.yaml", sc, err, sizeof err);
            if (rc != 0) {   /* a rule across keys (heartbeat.timeout under heartbeat.interval, a node past nodes) */
                cr_expect_eq(rc, EXIT_INPUT, "%s: %s: exit %d (%s)", k->name, vals[j], rc, err);
                char exp[256];
                param_expect(k->p, exp, sizeof exp);
                cr_expect(strncmp(err, "t.yaml:", 7) == 0 && !strstr(err, exp),
                          "%s: %s is inside its range, refused as: %s", k->name, vals[j], err);
                free(text);
                continue;
            }
            /* the value parsed alone, to compare with what the scenario holds */
            struct param alone = *k->p;
            alone.off = 0;
            char why[256];
            memset(direct, 0, sizeof direct);
            if (k->p->type == PT_PAIR) {
                char a[32], b[32];
                cr_assert_eq(sscanf(vals[j], "[%31[^,], %31[^]]]", a, b), 2);
                cr_assert_eq(param_parse_pair(&alone, a, b, direct, why, sizeof why), 0, "%s", why);
            } else
                cr_assert_eq(param_parse(&alone, vals[j], direct, why, sizeof why), 0, "%s: %s", k->name, why);
            const unsigned char *held = (const unsigned char *)value_base(k, sc) + k->p->off;
            cr_expect(same_value(&alone, direct, held), "%s: %s is not held as given", k->name, vals[j]);
            char *echo = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&echo, &len);
            cr_assert(f);
            cr_assert_eq(scenario_write(sc, f), 0);
            cr_assert_eq(fclose(f), 0);
            rc = scenario_load_string(echo, "echo.yaml", back, err, sizeof err);
            cr_expect_eq(rc, 0, "%s: %s: its echo does not load: %s\n%s", k->name, vals[j], err, echo);
            if (rc == 0)
                cr_expect(same_value(k->p, value_base(k, sc), value_base(k, back)),
                          "%s: %s reads back from scenario.yaml as another value", k->name, vals[j]);
            free(echo);
            free(text);
            kept++;
        }
    }
    free(sc);
    free(back);
    cr_assert_gt(kept, 150, "only %d values kept", kept);
}

/* A scenario that gives none of the optional keys holds, once loaded, each key's table default (the docs' rows are
 * checked against the same table below): nothing after the parse puts another value in its place. */
Test(scenario_keys, a_key_not_given_holds_its_default)
{
    collect();
    struct scenario *sc = malloc(sizeof *sc);
    cr_assert(sc);
    char err[1024] = "", text[512];
    snprintf(text, sizeof text, "%s%s", head, simple);
    cr_assert_eq(scenario_load_string(text, "t.yaml", sc, err, sizeof err), 0, "%s", err);
    int checked = 0;
    for (int i = 0; i < n_keys; i++) {
        const struct key *k = &keys[i];
        if (k->where != W_SCENARIO || !k->p->def || k->p->type == PT_LIST)
            continue;
        _Alignas(max_align_t) unsigned char want[512] = { 0 };
        struct param alone = *k->p;
        alone.off = 0;
        char why[256];
        if (k->p->type == PT_PAIR)
            cr_assert_eq(sscanf(k->p->def, "[%lf, %lf]", (double *)want, (double *)want + 1), 2);
        else
            cr_assert_eq(param_parse(&alone, k->p->def, want, why, sizeof why), 0, "%s: %s", k->name, why);
        const unsigned char *held = (const unsigned char *)value_base(k, sc) + k->p->off;
        if (k->p->type == PT_STRING || k->p->type == PT_ENUM || k->p->type == PT_BOOL)
            cr_expect(k->p->type == PT_STRING ? strcmp((const char *)held, (const char *)want) == 0
                                              : *(const int *)held == *(const int *)want,
                      "%s: not its default %s once loaded", k->name, k->p->def);
        else
            cr_expect(same_value(&alone, want, held), "%s: not its default %s once loaded", k->name, k->p->def);
        checked++;
    }
    free(sc);
    cr_assert_gt(checked, 60);
}

/* Through the executable: every numeric key of the scenario table past its range is one line on stderr naming the
 * file's place and the key, and exit 2. */
Test(scenario_keys, gauntlet_check_refuses_each_key_out_of_range, .timeout = 240)
{
    collect();
    int tried = 0;
    for (int i = 0; i < n_keys; i++) {
        const struct key *k = &keys[i];
        if (k->where != W_SCENARIO || !numeric(k->p))
            continue;
        char lo[64], hi[64], exp[256], want[2048];
        outside(k->p, lo, hi, sizeof lo);
        param_expect(k->p, exp, sizeof exp);
        int line, col;
        char *text = with_value(k->yaml, hi, &line, &col);
        const char *path = e2e_scenario(text);
        free(text);
        const char *log = e2e_log("check.log");
        const char *args[] = { "check", path, NULL };
        int rc = e2e_run(log, args);
        char *out = e2e_read(log);
        cr_assert(out);
        const char *q = k->p->type == PT_PAIR ? "" : "'";
        snprintf(want, sizeof want, "gauntlet check: %s:%d:%d: %s: expected %s, got %s%s%s\n", path, line, col, k->name,
                 exp, q, hi, q);
        cr_expect_eq(rc, EXIT_INPUT, "%s: exit %d: %s", k->name, rc, out);
        cr_expect_str_eq(out, want, "%s", k->name);
        free(out);
        tried++;
    }
    cr_assert_gt(tried, 60);
}

/* ---- docs/scenarios.md: its tables of keys ---- */

struct row {
    char key[160], type[512], def[512];
    int line;
    int used;
};

/* Reads every row of the docs' "| key | type | default | meaning |" tables. */
static int doc_rows(struct row *rows, int max)
{
    char path[1024], buf[8192];
    snprintf(path, sizeof path, "%s/docs/scenarios.md", e2e_src());
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s is missing", path);
    int n = 0, in = 0, no = 0;
    while (fgets(buf, sizeof buf, f)) {
        no++;
        if (strncmp(buf, "| key | type | default | meaning |", 34) == 0) {
            in = 1;
            continue;
        }
        if (buf[0] != '|') {
            in = 0;
            continue;
        }
        if (!in || strncmp(buf, "|---", 4) == 0)
            continue;
        char *cell[4] = { 0 }, *s = buf + 1;
        for (int c = 0; c < 4; c++) {   /* no cell of the first three holds a '|' */
            char *bar = strchr(s, '|');
            cr_assert(bar, "docs/scenarios.md:%d: a row of fewer than 4 cells", no);
            *bar = 0;
            cell[c] = s;
            s = bar + 1;
        }
        cr_assert(n < max);
        struct row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->line = no;
        cr_assert_eq(sscanf(cell[0], " `%159[^`]`", r->key), 1, "docs/scenarios.md:%d: no `key` in '%s'", no, cell[0]);
        snprintf(r->type, sizeof r->type, "%s", cell[1]);
        snprintf(r->def, sizeof r->def, "%s", cell[2]);
    }
    fclose(f);
    return n;
}

/* Copies s without backquotes, cut at " (" and trimmed. */
static void plain(const char *s, char *out, size_t n)
{
    size_t u = 0;
    for (; *s && u + 1 < n; s++) {
        if (*s == '`')
            continue;
        if (s[0] == ' ' && s[1] == '(')
            break;
        out[u++] = *s;
    }
    out[u] = 0;
    char *b = out;
    while (*b == ' ')
        b++;
    memmove(out, b, strlen(b) + 1);
    for (u = strlen(out); u && out[u - 1] == ' '; u--)
        out[u - 1] = 0;
}

/* Checks the type cell of a row against p: its kind, an enum's words, and a range where it states one. */
static void check_type(const struct row *r, const struct param *p)
{
    const char *t = r->type;
    while (*t == ' ')
        t++;
    switch (p->type) {
    case PT_INT: cr_expect(strncmp(t, "integer", 7) == 0, "docs:%d: %s: an integer, documented as '%s'", r->line, r->key, t); break;
    case PT_SIZE: cr_expect(strncmp(t, "size", 4) == 0, "docs:%d: %s: a size, documented as '%s'", r->line, r->key, t); break;
    case PT_DURATION: cr_expect(strncmp(t, "duration", 8) == 0, "docs:%d: %s: a duration, documented as '%s'", r->line, r->key, t); break;
    case PT_DOUBLE:
        cr_expect(strncmp(t, "number", 6) == 0 || (p->unit && strncmp(t, p->unit, strlen(p->unit)) == 0),
                  "docs:%d: %s: a number, documented as '%s'", r->line, r->key, t);
        break;
    case PT_BOOL: cr_expect(strncmp(t, "bool", 4) == 0, "docs:%d: %s: a bool, documented as '%s'", r->line, r->key, t); break;
    case PT_STRING:
        cr_expect(strncmp(t, "string", 6) == 0 || strncmp(t, "name", 4) == 0 || strncmp(t, "path", 4) == 0,
                  "docs:%d: %s: a string, documented as '%s'", r->line, r->key, t);
        break;
    case PT_SECTION:
        cr_expect(strncmp(t, "mapping", 7) == 0 || strncmp(t, "section", 7) == 0,
                  "docs:%d: %s: a mapping, documented as '%s'", r->line, r->key, t);
        break;
    case PT_LIST: cr_expect(strstr(t, "list") || strstr(t, "name"), "docs:%d: %s: a list, documented as '%s'", r->line, r->key, t); break;
    case PT_PAIR: cr_expect(strstr(t, "[lo, hi]"), "docs:%d: %s: a pair, documented as '%s'", r->line, r->key, t); break;
    case PT_ENUM: {   /* its words, backquoted, are the choices */
        char words[256] = "", w[64];
        size_t used = 0;
        for (const char *q = t; (q = strchr(q, '`')) && sscanf(q, "`%63[^`]`", w) == 1; q = strchr(q + 1, '`') + 1)
            used += (size_t)snprintf(words + used, sizeof words - used, "%s%s", used ? "," : "", w);
        char *a = strdup(words), *b = strdup(p->choices);   /* the same set: sorted comparison by length and members */
        int same = strlen(a) == strlen(b);
        for (char *save = NULL, *tok = strtok_r(b, ",", &save); tok && same; tok = strtok_r(NULL, ",", &save)) {
            char pat[80];
            snprintf(pat, sizeof pat, ",%s,", tok);
            char wrapped[300];
            snprintf(wrapped, sizeof wrapped, ",%s,", a);
            same = strstr(wrapped, pat) != NULL;
        }
        cr_expect(same, "docs:%d: %s: one of %s, documented as '%s'", r->line, r->key, p->choices, t);
        free(a);
        free(b);
        return;
    }
    default: break;
    }
    /* a range stated: "1–4096", "in [0, 9e15]", "0 or 1–10000" (the lower end 0), "≤ 63" (a string's length) */
    const char *dash = strstr(t, "\xe2\x80\x93"), *br = strstr(t, "in ["), *le = strstr(t, "\xe2\x89\xa4"),
               *ge = strstr(t, "\xe2\x89\xa5");
    double lo, hi;
    if (p->type == PT_STRING) {
        if (le)
            cr_expect_eq(atoi(le + 3), (int)p->size - 1, "docs:%d: %s: at most %zu characters, documented as '%s'",
                         r->line, r->key, p->size - 1, t);
        return;
    }
    if (p->type == PT_LIST || p->type == PT_PAIR)
        return;
    cr_expect(!ge, "docs:%d: %s: '%s' states no upper end: it is %g", r->line, r->key, t, p->max);
    if (br) {
        cr_assert_eq(sscanf(br, "in [%lf, %lf]", &lo, &hi), 2, "docs:%d: %s: '%s'", r->line, r->key, t);
    } else if (dash) {
        const char *s = dash;
        while (s > t && s[-1] != ' ')
            s--;
        lo = strtod(s, NULL);
        hi = strtod(dash + 3, NULL);
        const char *or = strstr(t, " or ");
        if (or && or < s)   /* "0 or 1–10000": the range's low end is the lone value */
            lo = strtod(or - 1, NULL);
    } else
        return;
    cr_expect(lo == p->min && hi == p->max, "docs:%d: %s: documented range '%s', the parser's is [%g, %g]", r->line,
              r->key, t, p->min, p->max);
}

/* Checks the default cell of a row against p. */
static void check_default(const struct row *r, const struct param *p)
{
    char d[512];
    plain(r->def, d, sizeof d);
    if (p->flags & PF_REQUIRED) {
        cr_expect_str_eq(d, "required", "docs:%d: %s is required", r->line, r->key);
        return;
    }
    if (p->type == PT_SECTION) {   /* workload.gemm: required in the simple form, which the row says */
        cr_expect(!*d || strcmp(d, "\xe2\x80\x94") == 0 || strcmp(d, "required") == 0, "docs:%d: %s: '%s'", r->line,
                  r->key, d);
        return;
    }
    if (!p->def) {
        cr_expect(!*d || strcmp(d, "\xe2\x80\x94") == 0, "docs:%d: %s has no default, documented as '%s'", r->line,
                  r->key, d);
        return;
    }
    if (p->type == PT_LIST) {
        cr_expect(strcmp(d, p->def) == 0 || (strcmp(p->def, "[]") == 0 && strcmp(d, "\xe2\x80\x94") == 0),
                  "docs:%d: %s: the parser's default is %s, documented as '%s'", r->line, r->key, p->def, d);
        return;
    }
    _Alignas(max_align_t) unsigned char a[512] = { 0 }, b[512] = { 0 };
    struct param alone = *p;
    alone.off = 0;
    char why[256];
    if (p->type == PT_PAIR) {
        double *x = (double *)a, *y = (double *)b;
        cr_expect(sscanf(d, "[%lf, %lf]", &x[0], &x[1]) == 2 && sscanf(p->def, "[%lf, %lf]", &y[0], &y[1]) == 2 &&
                      x[0] == y[0] && x[1] == y[1],
                  "docs:%d: %s: default %s, documented as '%s'", r->line, r->key, p->def, d);
        return;
    }
    cr_assert_eq(param_parse(&alone, p->def, b, why, sizeof why), 0, "%s", why);
    int ok = param_parse(&alone, d, a, why, sizeof why) == 0;
    cr_expect(ok && same_value(&alone, a, b), "docs:%d: %s: the parser's default is %s, documented as '%s'", r->line,
              r->key, p->def, d);
}

/* Every key of the scenario table has its row in docs/scenarios.md (a section may be named in the prose instead), and
 * every row is a key; each row gives the key's type, default (or "required") and, where it states one, its range. */
Test(scenario_keys, every_key_has_its_row_and_every_row_a_key)
{
    static struct row rows[256];
    int n = doc_rows(rows, 256);
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/scenarios.md", e2e_src());
    char *doc = e2e_read(path);
    cr_assert(doc);
    cr_assert_gt(n, 80);
    /* every parameter, sections too, by its dotted name */
    struct { char name[160]; const struct param *p; } all[256];
    int na = 0;
    const struct param *stack[8] = { scenario_params };
    int idx[8] = { 0 }, depth = 0;
    char prefix[8][160] = { "" };
    for (;;) {
        const struct param *p = &stack[depth][idx[depth]];
        if (!p->name) {
            if (!depth--)
                break;
            idx[depth]++;
            continue;
        }
        cr_assert(na < 256);
        snprintf(all[na].name, sizeof all[na].name, "%s%s%s", prefix[depth], *prefix[depth] ? "." : "", p->name);
        all[na].p = p;
        if (p->type == PT_SECTION) {
            snprintf(prefix[depth + 1], sizeof prefix[depth + 1], "%s", all[na].name);
            stack[++depth] = p->sub;
            idx[depth] = 0;
            na++;
            continue;
        }
        na++;
        idx[depth]++;
    }
    for (int i = 0; i < na; i++) {
        int found = 0;
        for (int j = 0; j < n; j++)
            if (strcmp(rows[j].key, all[i].name) == 0) {
                cr_expect(!rows[j].used, "docs:%d: %s has two rows", rows[j].line, rows[j].key);
                rows[j].used = found = 1;
                check_type(&rows[j], all[i].p);
                check_default(&rows[j], all[i].p);
            }
        char quoted[170];   /* a section without a row of its own: named in the prose at least */
        snprintf(quoted, sizeof quoted, "`%s`", all[i].name);
        cr_expect(found || (all[i].p->type == PT_SECTION && strstr(doc, quoted)), "docs/scenarios.md has no row for %s",
                  all[i].name);
    }
    for (int j = 0; j < n; j++)
        cr_expect(rows[j].used, "docs/scenarios.md:%d: `%s` is no key the parser takes", rows[j].line, rows[j].key);
    free(doc);
}

/* The plug-ins' parameters in docs/scenarios.md: the `mitigations` row names each mitigation with its parameters
 * ("filler {floor}"), and each fault's, detector's and recovery's row names its own. */
Test(scenario_keys, every_plugin_parameter_is_documented)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/scenarios.md", e2e_src());
    char *doc = e2e_read(path);
    cr_assert(doc);
    for (int i = 0; mitigation_table[i]; i++) {
        const struct mitigation_ops *m = mitigation_table[i];
        char want[256];
        size_t used = (size_t)snprintf(want, sizeof want, "`%s", m->name);
        for (const struct param *p = m->params; p && p->name; p++)
            used += (size_t)snprintf(want + used, sizeof want - used, "%s%s", p == m->params ? " {" : ", ", p->name);
        snprintf(want + used, sizeof want - used, "%s`", m->params && m->params->name ? "}" : "");
        cr_expect(strstr(doc, want), "docs/scenarios.md's mitigations row does not show %s", want);
    }
    const struct { const struct plugin_kind *kind; const char *header; } kinds[] = {
        { &plugin_faults, "\n| fault `kind` |" }, { &plugin_detectors, "\n| `detectors` entry |" },
        { &plugin_recoveries, "\n| `recovery` | parameters" } };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (int i = 0; kinds[k].kind->table[i]; i++) {
            const struct plugin_ops *o = kinds[k].kind->table[i];
            char start[80];
            snprintf(start, sizeof start, "\n| `%s` |", o->name);
            const char *table = strstr(doc, kinds[k].header), *row = table ? strstr(table, start) : NULL;
            cr_assert(table, "docs/scenarios.md has no table%s", kinds[k].header);
            const char *table_end = strstr(table + 1, "\n\n");
            if (row && table_end && row > table_end)
                row = NULL;
            cr_expect(row, "docs/scenarios.md has no row for the %s %s", kinds[k].kind->what, o->name);
            if (!row)
                continue;
            const char *end = strchr(row + 1, '\n');
            for (const struct param *p = o->params; p && p->name; p++) {
                char name[80];
                snprintf(name, sizeof name, "`%s`", p->name);
                const char *at = strstr(row, name), *brace = NULL;
                if (!at || at > end) {   /* or inside an example: {heartbeat: {factor: 2, ...}} */
                    snprintf(name, sizeof name, "%s: ", p->name);
                    brace = strstr(row, name);
                }
                cr_expect((at && at < end) || (brace && brace < end), "docs/scenarios.md: the %s %s's row does not name %s",
                          kinds[k].kind->what, o->name, p->name);
            }
        }
    free(doc);
}
