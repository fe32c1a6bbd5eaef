/* harness/accept/accept_report.c: the acceptance verdicts written out — a table, verdicts.json, JUnit XML. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"
#include "results.h"
#include "util.h"

/* ---- output */

/* Appends label value v escaped (backslash, quote, newline) to the text at *s. */
static void prom_label(char **s, size_t *len, size_t *cap, const char *v)
{
    for (; *v; v++) {
        if (*len + 3 >= *cap)
            *s = xrealloc(*s, *cap *= 2);
        if (*v == '\\' || *v == '"' || *v == '\n')
            (*s)[(*len)++] = '\\';
        (*s)[(*len)++] = *v == '\n' ? 'n' : *v;
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

void accept_print(FILE *f, const struct verdicts *vs)
{
    fprintf(f, "%-14s %-18s %-28s %-6s %12s %14s  %s\n", "scenario", "check", "subject", "status", "value", "threshold",
            "note");
    for (int i = 0; i < vs->n; i++) {
        const struct verdict *v = &vs->v[i];
        char val[32] = "-", lim[48] = "-";
        if (isfinite(v->value))
            snprintf(val, sizeof val, "%.4g", v->value);
        if (isfinite(v->limit))
            snprintf(lim, sizeof lim, "%s %.4g %s", v->cmp, v->limit, v->unit);
        fprintf(f, "%-14.14s %-18s %-28.28s %-6s %12s %14s  %s\n", v->scenario, v->check, v->subject,
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
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:s, s:o, s:o, s:s, s:o, s:o, s:s, s:s, s:s}", "scenario", v->scenario, "check",
                         v->check, "subject", v->subject, "node", v->node >= 0 ? json_integer(v->node) : json_null(), "gpu",
                         v->rank >= 0 ? json_integer(v->rank) : json_null(), "status", status_name(v->status), "value",
                         json_num(v->value), "threshold", json_num(v->limit), "compare", v->cmp, "unit", v->unit, "note",
                         v->note));
    }
    return json_pack("{s:i, s:i, s:i, s:o}", "passed", c[V_PASS], "failed", c[V_FAIL], "skipped", c[V_SKIP], "verdicts", a);
}

/* Writes s with XML's five escapes; control characters become spaces. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc((unsigned char)*s < 0x20 ? ' ' : *s, f); break;
        }
    }
}

int accept_junit(const struct verdicts *vs, const char *path)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return SYSERR("fopen(junit)");
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
            char val[96] = "";
            if (isfinite(v->value))
                snprintf(val, sizeof val, "%.6g %s (threshold %s %.6g)", v->value, v->unit, v->cmp, v->limit);
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
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fclose(f);
        return SYSERR("write(junit)");
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return SYSERR("rename(junit)");
    return 0;
}

