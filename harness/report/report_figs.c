/* harness/report/report_figs.c: what `gauntlet report` takes for a figure and how it writes text into its picture: a
 * number of summary.json that is none or lies past RP_FIG_MAX is missing (a "-", no point, no bar; said on stderr), an
 * axis has a bounded number of ticks however odd its bounds, and text is escaped into well-formed XML. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

double rp_fig(const json_t *v)
{
    if (!json_is_number(v))
        return NAN;
    double x = json_number_value(v);
    return isfinite(x) && fabs(x) <= RP_FIG_MAX ? x : NAN;
}

/* Says on stderr where under v (named at) a number lies past RP_FIG_MAX; counts them in *seen, naming the first 8. */
static void rp_figs_walk(const char *path, json_t *v, char *at, size_t n, int *seen)
{
    size_t len = strlen(at), i;
    const char *key;
    json_t *e;
    if (json_is_number(v) && !isfinite(rp_fig(v)) && (*seen)++ < 8)
        fprintf(stderr, "gauntlet report: %s: %s: %.9g is past what a run's figure can be (+-%g): read as missing (-, not "
                        "drawn)\n", path, at, json_number_value(v), RP_FIG_MAX);
    json_object_foreach(v, key, e) {
        snprintf(at + len, n - len, ".%s", key);
        rp_figs_walk(path, e, at, n, seen);
    }
    json_array_foreach(v, i, e) {
        snprintf(at + len, n - len, "[%zu]", i);
        rp_figs_walk(path, e, at, n, seen);
    }
    at[len] = '\0';
}

void rp_figs_check(const char *path, json_t *runs)
{
    char at[512] = "runs";
    int seen = 0;
    rp_figs_walk(path, runs, at, sizeof at, &seen);
    if (seen > 8)
        fprintf(stderr, "gauntlet report: %s: %d more such numbers, read as missing too\n", path, seen - 8);
}

int rp_ticks(double first, double last, double step, int max)
{
    if (!isfinite(first) || !isfinite(last) || !isfinite(step) || !(step > 0) || first + step == first)
        return 0;
    double k = floor((last - first) / step + 1e-6) + 1;   /* a millionth of a step of slack for rounding */
    return k >= 1 && k <= max ? (int)k : 0;
}

/* Returns the length of the UTF-8 character at s (its code point in *cp), 0 when s does not start one (a stray or
 * overlong byte, a surrogate, past U+10FFFF, a sequence cut short). */
static size_t rp_utf8(const unsigned char *s, unsigned *cp)
{
    static const unsigned least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len <= 1) {
        *cp = c;
        return len;
    }
    unsigned v = c & (0x7Fu >> len);
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)   /* the string's NUL ends a cut sequence here */
            return 0;
        v = v << 6 | (s[k] & 0x3Fu);
    }
    if (v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

void rp_xml(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        unsigned cp = 0;
        size_t len = rp_utf8(p, &cp);
        if (!len || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF)
            fputs("\xef\xbf\xbd", f);   /* U+FFFD: a control character, a byte that is no UTF-8, a non-character */
        else if (cp == '<' || cp == '>' || cp == '&' || cp == '"')
            fputs(cp == '<' ? "&lt;" : cp == '>' ? "&gt;" : cp == '&' ? "&amp;" : "&quot;", f);
        else
            fwrite(p, 1, len, f);
        p += len ? len : 1;
    }
}
