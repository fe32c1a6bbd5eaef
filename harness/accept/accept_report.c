/* harness/accept/accept_report.c: the acceptance verdicts written out — a table, verdicts.json, JUnit XML. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"
#include "results.h"
#include "util.h"

/* ---- text: every string written is UTF-8 (JSON, XML and Prometheus need it), cut on a character boundary */
size_t accept_utf8_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] < 0x80)
        return u[0] ? 1 : 0;
    size_t n = u[0] >= 0xC2 && u[0] <= 0xDF ? 2 : u[0] >= 0xE0 && u[0] <= 0xEF ? 3 : u[0] >= 0xF0 && u[0] <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((u[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && u[0] == 0xE0 && u[1] < 0xA0) || (n == 3 && u[0] == 0xED && u[1] >= 0xA0) ||   /* overlong; surrogate */
        (n == 4 && u[0] == 0xF0 && u[1] < 0x90) || (n == 4 && u[0] == 0xF4 && u[1] >= 0x90))     /* overlong; > U+10FFFF */
        return 0;
    return n;
}

size_t accept_utf8_copy(char *dst, size_t n, const char *src)
{
    size_t at = 0;
    if (!n)
        return 0;
    for (const char *s = src; *s && at + 1 < n;) {
        size_t k = accept_utf8_len(s);
        if (!k) {   /* a byte that starts no character */
            dst[at++] = '?';
            s++;
            continue;
        }
        if (at + k >= n)   /* the character does not fit whole: cut before it */
            break;
        memcpy(dst + at, s, k);
        at += k;
        s += k;
    }
    dst[at] = 0;
    return at;
}

/* ---- output */

/* Appends label value v escaped (backslash, quote, newline) to the text at *s; a byte that starts no UTF-8
 * character becomes '?'. */
static void prom_label(char **s, size_t *len, size_t *cap, const char *v)
{
    while (*v) {
        if (*len + 6 >= *cap)
            *s = xrealloc(*s, *cap *= 2);
        size_t k = accept_utf8_len(v);
        if (k > 1) {
            memcpy(*s + *len, v, k);
            *len += k;
            v += k;
            continue;
        }
        if (*v == '\\' || *v == '"' || *v == '\n')
            (*s)[(*len)++] = '\\';
        (*s)[(*len)++] = !k ? '?' : *v == '\n' ? 'n' : *v;
        v++;
    }
    (*s)[*len] = 0;
}

char *accept_prom(const struct verdicts *vs)
{
    static const char *const st[] = { "pass", "fail", "skip" };
    size_t cap = 1024, len = 0;
    char *s = xmalloc(cap);
    int count[3] = { 0 };
    s[0] = 0;
#define PUT(...)                                                                                                  \
    do {                                                                                                          \
        int k_ = snprintf(s + len, cap - len, __VA_ARGS__);                                                       \
        if (k_ >= 0 && (size_t)k_ >= cap - len) {                                                                 \
            s = xrealloc(s, cap = cap * 2 + (size_t)k_);                                                          \
            k_ = snprintf(s + len, cap - len, __VA_ARGS__);                                                       \
        }                                                                                                         \
        len += k_ > 0 ? (size_t)k_ : 0;                                                                           \
    } while (0)
    PUT("# HELP gauntlet_accept_check an acceptance check judged so far: 1, its status in the label\n"
        "# TYPE gauntlet_accept_check gauge\n");
    for (int i = 0; i < vs->n; i++) {
        const struct verdict *v = &vs->v[i];
        int k = v->status >= 0 && v->status <= V_SKIP ? v->status : V_FAIL;
        count[k]++;
        PUT("gauntlet_accept_check{scenario=\"");
        prom_label(&s, &len, &cap, v->scenario);
        PUT("\",check=\"");
        prom_label(&s, &len, &cap, v->check);
        PUT("\",subject=\"");
        prom_label(&s, &len, &cap, v->subject);
        char node[16] = "";   /* "" where the verdict is not about one node */
        if (v->node >= 0)
            snprintf(node, sizeof node, "%d", v->node);
        PUT("\",node=\"%s\",status=\"%s\"} 1\n", node, st[k]);
    }
    PUT("# HELP gauntlet_accept_checks acceptance checks judged so far, by status\n"
        "# TYPE gauntlet_accept_checks gauge\n");
    for (int k = 0; k < 3; k++)
        PUT("gauntlet_accept_checks{status=\"%s\"} %d\n", st[k], count[k]);
#undef PUT
    return s;
}
static const char *status_name(int s) { return s == V_PASS ? "PASS" : s == V_FAIL ? "FAIL" : "SKIP"; }

/* Writes a verdict's value and limit each with prec significant digits, and more (up to 17, all a double has) where
 * they differ but would print alike: a FAIL never reads "606.9 >= 606.9" (until 2026-11-30 it could). */
static void report_pair(const struct verdict *v, int prec, char *val, size_t vn, char *lim, size_t ln)
{
    for (int p = prec;; p++) {
        snprintf(val, vn, "%.*g", p, v->value);
        snprintf(lim, ln, "%.*g", p, v->limit);
        if (p >= 17 || v->value == v->limit || !isfinite(v->value) || !isfinite(v->limit) || strcmp(val, lim) != 0)
            return;
    }
}

void accept_print(FILE *f, const struct verdicts *vs)
{
    fprintf(f, "%-14s %-18s %-34s %-6s %12s %14s  %s\n", "scenario", "check", "subject", "status", "value", "threshold",
            "note");
    for (int i = 0; i < vs->n; i++) {
        const struct verdict *v = &vs->v[i];
        char val[32] = "-", lim[64] = "-", num[32];
        report_pair(v, 4, val, sizeof val, num, sizeof num);
        if (!isfinite(v->value))
            str_copy(val, sizeof val, "-");
        if (isfinite(v->limit))
            snprintf(lim, sizeof lim, "%s %s %s", v->cmp, num, v->unit);
        fprintf(f, "%-14.14s %-18s %-34.34s %-6s %12s %14s  %s\n", v->scenario, v->check, v->subject,
                status_name(v->status), val, lim, v->note);
    }
    int c[3] = { 0 };
    for (int i = 0; i < vs->n; i++)
        c[vs->v[i].status]++;
    fprintf(f, "%d checks: %d passed, %d failed, %d skipped\n", vs->n, c[V_PASS], c[V_FAIL], c[V_SKIP]);
}

json_t *accept_json(const struct verdicts *vs)
{
    json_t *a = json_array();
    int c[3] = { 0 };
    for (int i = 0; i < vs->n; i++) {
        const struct verdict *v = &vs->v[i];
        c[v->status]++;
        /* valid UTF-8 whatever a note carries (a path, a fault's text): json_pack refuses anything else, and a verdict
         * the counts include would be missing from the array */
        char scn[sizeof v->scenario], chk[sizeof v->check], sub[sizeof v->subject], cmp[sizeof v->cmp],
            unit[sizeof v->unit], note[sizeof v->note];
        accept_utf8_copy(scn, sizeof scn, v->scenario);
        accept_utf8_copy(chk, sizeof chk, v->check);
        accept_utf8_copy(sub, sizeof sub, v->subject);
        accept_utf8_copy(cmp, sizeof cmp, v->cmp);
        accept_utf8_copy(unit, sizeof unit, v->unit);
        accept_utf8_copy(note, sizeof note, v->note);
        /* gpu: its index on its node (the device an operator finds there); rank: its global rank (until 2026-11-30
         * gpu held the global rank, and there was no rank) */
        json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:s, s:o, s:o, s:s, s:s, s:s}", "scenario", scn, "check",
                              chk, "subject", sub, "node", v->node >= 0 ? json_integer(v->node) : json_null(), "gpu",
                              v->gpu >= 0 ? json_integer(v->gpu) : json_null(), "rank",
                              v->rank >= 0 ? json_integer(v->rank) : json_null(), "status", status_name(v->status), "value",
                              json_num(v->value), "threshold", json_num(v->limit), "compare", cmp, "unit", unit, "note", note);
        if (!o)   /* out of memory: the verdict still listed, as far as it can be */
            o = json_pack("{s:s, s:s}", "check", chk, "status", status_name(v->status));
        if (json_array_append_new(a, o) != 0)
            gl_log("verdicts.json: verdict %d (%s %s) could not be listed", i, chk, sub);
    }
    return json_pack("{s:i, s:i, s:i, s:o}", "passed", c[V_PASS], "failed", c[V_FAIL], "skipped", c[V_SKIP], "verdicts", a);
}

/* Writes s with XML's five escapes; control characters become spaces, a byte that starts no UTF-8 character and the
 * two that XML forbids (U+FFFE, U+FFFF) '?'. */
static void xml_text(FILE *f, const char *s)
{
    while (*s) {
        size_t k = accept_utf8_len(s);
        const unsigned char *u = (const unsigned char *)s;
        if (k == 3 && u[0] == 0xEF && u[1] == 0xBF && u[2] >= 0xBE)
            k = 0;
        if (k > 1)
            fwrite(s, 1, k, f);
        else if (!k)
            fputc('?', f);
        switch (k == 1 ? *s : 0) {
        case 0: break;
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc((unsigned char)*s < 0x20 ? ' ' : *s, f); break;
        }
        s += k ? k : 1;
    }
}

int accept_junit(const struct verdicts *vs, const char *path)
{
    /* made in memory, then put in place as verdicts.json is (write_file_atomic: a temp file synced, renamed, the
     * folder synced, the temp file removed on failure; until 2026-12-02 the folder was not synced, and a failed
     * write left FILE.tmp behind) */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return SYSERR("open_memstream(junit)");
    int c[3] = { 0 };
    for (int i = 0; i < vs->n; i++)
        c[vs->v[i].status]++;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gauntlet accept\" tests=\"%d\" "
               "failures=\"%d\" errors=\"0\" skipped=\"%d\">\n",
            vs->n, c[V_FAIL], c[V_SKIP]);
    for (int i = 0; i < vs->n;) {   /* one testsuite per scenario */
        int j = i, f_ = 0, s_ = 0;
        for (; j < vs->n && strcmp(vs->v[j].scenario, vs->v[i].scenario) == 0; j++) {
            f_ += vs->v[j].status == V_FAIL;
            s_ += vs->v[j].status == V_SKIP;
        }
        fputs("  <testsuite name=\"", f);
        xml_text(f, vs->v[i].scenario);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n", j - i, f_, s_);
        for (int k = i; k < j; k++) {
            const struct verdict *v = &vs->v[k];
            char val[128] = "", a[32], b[32];
            report_pair(v, 6, a, sizeof a, b, sizeof b);
            if (isfinite(v->value))
                snprintf(val, sizeof val, "%s %s (threshold %s %s)", a, v->unit, v->cmp, b);
            int seen = 0;   /* the same check of the same subject again in this scenario (a second fault of a GPU) */
            for (int m = i; m < k; m++)
                seen += strcmp(vs->v[m].check, v->check) == 0 && strcmp(vs->v[m].subject, v->subject) == 0;
            fputs("    <testcase classname=\"gauntlet.", f);   /* gauntlet.SCENARIO.CHECK: unique across scenarios */
            xml_text(f, v->scenario);
            fputs(".", f);
            xml_text(f, v->check);
            fputs("\" name=\"", f);
            xml_text(f, v->subject);
            if (seen)
                fprintf(f, " #%d", seen + 1);
            fputs("\" time=\"0\"", f);
            if (v->status == V_PASS) {
                fputs(">\n      <system-out>", f);
                xml_text(f, val);
                fputs(" ", f);
                xml_text(f, v->note);
                fputs("</system-out>\n    </testcase>\n", f);
                continue;
            }
            fputs(v->status == V_FAIL ? ">\n      <failure message=\"" : ">\n      <skipped message=\"", f);
            xml_text(f, v->note);
            if (v->status == V_FAIL) {
                fputs("\" type=\"threshold\">", f);
                xml_text(f, val);
                fputs("</failure>\n    </testcase>\n", f);
            } else {
                fputs("\"/>\n    </testcase>\n", f);
            }
        }
        fputs("  </testsuite>\n", f);
        i = j;
    }
    fputs("</testsuites>\n", f);
    if (fclose(f) != 0) {
        free(text);
        return SYSERR("write(junit)");
    }
    int rc = write_file_atomic(path, text, len);
    free(text);
    return rc != 0 ? SYSERR(path) : 0;
}

