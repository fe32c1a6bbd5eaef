/* harness/core/param.c: parsing, range checks, defaults and canonical formatting of scenario values. */
#include "param.h"
#include "util.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* Returns the address of p's value inside base. */
static void *param_at(const struct param *p, const void *base) { return (char *)base + p->off; }

int parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    if (isspace((unsigned char)*s))   /* strtoll would skip it: " 7" and " -1" are no integers as typed */
        return -1;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

/* Whether [s, end) is a decimal number as scenarios write it: digits, a point, an exponent, a sign; never hex
 * (0x10), inf or nan, which strtod also reads. */
static int decimal_span(const char *s, const char *end)
{
    int digits = 0;
    for (const char *p = s; p < end; p++) {
        if (!strchr("0123456789.eE+-", *p))
            return 0;
        digits += *p >= '0' && *p <= '9';
    }
    return digits > 0;
}

int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || !decimal_span(s, end))
        return -1;
    *out = v;
    return 0;
}

/* Splits "12.5MiB" into the number and the unit suffix (leading spaces before the unit allowed). */
static int split_number(const char *s, double *num, const char **unit)
{
    char *end;
    errno = 0;
    if (!*s || isspace((unsigned char)*s))
        return -1;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0 || !decimal_span(s, end))
        return -1;
    while (*end == ' ')
        end++;
    *num = v;
    *unit = end;
    return 0;
}

int parse_size(const char *s, uint64_t *out)
{
    /* until 2026-11-30 a bare K, M or G was read as KiB, MiB, GiB (and T refused): a bare letter is binary to some
     * and decimal to others, so it is refused now, as T was (param_parse says which two it could mean) */
    static const struct { const char *u; double mult; } units[] = {
        { "", 1 }, { "B", 1 },
        { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 },
        { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
    };
    double v;
    const char *u;
    if (split_number(s, &v, &u) != 0)
        return -1;
    for (size_t i = 0; i < ARRAY_LEN(units); i++) {
        if (strcmp(u, units[i].u) != 0)
            continue;
        double b = v * units[i].mult;
        if (b != floor(b) || b > 1.8e19)   /* a fraction of a byte, or beyond uint64 */
            return -1;
        *out = (uint64_t)b;
        return 0;
    }
    return -1;
}

int parse_duration(const char *s, double *out)
{
    static const struct { const char *u; double mult; } units[] = {
        { "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 }, { "min", 60 }, { "h", 3600 },
    };
    double v;
    const char *u;
    if (split_number(s, &v, &u) != 0)
        return -1;
    for (size_t i = 0; i < ARRAY_LEN(units); i++) {
        if (strcmp(u, units[i].u) == 0) {
            if (!isfinite(v * units[i].mult))   /* 1e308h: past any double */
                return -1;
            *out = v * units[i].mult;
            return 0;
        }
    }
    return -1;
}

int parse_power(const char *s, struct power_value *out)
{
    double v;
    const char *u;
    if (split_number(s, &v, &u) != 0)
        return -1;
    if (strcmp(u, "%") == 0)
        *out = (struct power_value){ v, 1 };
    else if (strcmp(u, "W") == 0 || strcmp(u, "w") == 0)
        *out = (struct power_value){ v, 0 };
    else if (strcmp(u, "kW") == 0)
        *out = (struct power_value){ v * 1e3, 0 };
    else
        return -1;
    return 0;
}

void format_size(uint64_t b, char *out, size_t n)
{
    static const char *const names[] = { "TiB", "GiB", "MiB", "KiB" };
    for (int i = 0; i < 4; i++) {
        uint64_t unit = 1ull << (10 * (4 - i));
        if (b && b % unit == 0) {
            snprintf(out, n, "%" PRIu64 "%s", b / unit, names[i]);
            return;
        }
    }
    snprintf(out, n, "%" PRIu64 "B", b);
}

void format_duration(double s, char *out, size_t n)
{
    if (s == 0)
        snprintf(out, n, "0s");
    else if (s >= 1)
        snprintf(out, n, "%gs", s);
    else if (fabs(s * 1e3 - round(s * 1e3)) < 1e-9)
        snprintf(out, n, "%gms", round(s * 1e3));
    else
        snprintf(out, n, "%gus", s * 1e6);
    double back;
    if (parse_duration(out, &back) != 0 || back != s)   /* not exact in the short form: every digit, in seconds */
        snprintf(out, n, "%.17gs", s);
}

void format_number(double v, char *out, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15) {   /* integral: no exponent */
        snprintf(out, n, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {   /* the shortest text that reads back the same value */
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            break;
    }
}

/* Returns the index of name in the comma-separated list, or -1. */
static int enum_index(const char *choices, const char *name)
{
    int i = 0;
    size_t len = strlen(name);
    for (const char *c = choices; *c; i++) {
        const char *comma = strchr(c, ',');
        size_t l = comma ? (size_t)(comma - c) : strlen(c);
        if (l == len && strncmp(c, name, l) == 0)
            return i;
        if (!comma)
            break;
        c = comma + 1;
    }
    return -1;
}

/* Copies the i-th name of a comma-separated list into out. */
static void enum_name(const char *choices, int idx, char *out, size_t n)
{
    const char *c = choices;
    for (int i = 0; i < idx && c; i++) {
        c = strchr(c, ',');
        if (c)
            c++;
    }
    if (!c) {
        snprintf(out, n, "?");
        return;
    }
    const char *comma = strchr(c, ',');
    size_t l = comma ? (size_t)(comma - c) : strlen(c);
    snprintf(out, n, "%.*s", (int)l, c);
}

void param_expect(const struct param *p, char *out, size_t n)
{
    int ranged = p->min < p->max;
    char lo[32], hi[32];
    switch (p->type) {
    case PT_INT:
        if (ranged)
            snprintf(out, n, "an integer in [%.0f, %.0f]", p->min, p->max);
        else
            snprintf(out, n, "an integer");
        return;
    case PT_SIZE:
        format_size((uint64_t)p->min, lo, sizeof lo);
        format_size((uint64_t)p->max, hi, sizeof hi);
        if (ranged)
            snprintf(out, n, "a size such as 8MiB or 1GiB, in [%s, %s]", lo, hi);
        else
            snprintf(out, n, "a size such as 8MiB or 1GiB");
        return;
    case PT_DURATION:
        format_duration(p->min, lo, sizeof lo);
        format_duration(p->max, hi, sizeof hi);
        if (ranged)
            snprintf(out, n, "a duration such as 500ms or 2s, in [%s, %s]", lo, hi);
        else
            snprintf(out, n, "a duration such as 500ms or 2s");
        return;
    case PT_DOUBLE:
        if (ranged)
            snprintf(out, n, "a number in [%g, %g]", p->min, p->max);
        else
            snprintf(out, n, "a number");
        return;
    case PT_POWER:
        snprintf(out, n, "a power as %% of TDP in [0%%, 100%%] (80%%) or watts in [0W, 5000W] (560W)");
        return;
    case PT_ENUM:
        snprintf(out, n, "one of: %s", p->choices);
        return;
    case PT_STRING:
        snprintf(out, n, "a string of at most %zu characters", p->size ? p->size - 1 : 0);
        return;
    case PT_BOOL:
        snprintf(out, n, "true or false");
        return;
    case PT_SECTION:
        snprintf(out, n, "a mapping of keys");
        return;
    case PT_LIST:
        snprintf(out, n, "a list");
        return;
    case PT_PAIR:
        snprintf(out, n, "a pair [lo, hi] of numbers in [%g, %g], lo < hi", p->min, p->max);
        return;
    }
    snprintf(out, n, "?");
}

/* Fills why with "expected X, got 'text'" and returns -1. */
static int param_bad(const struct param *p, const char *text, char *why, size_t n)
{
    char exp[160];
    param_expect(p, exp, sizeof exp);
    snprintf(why, n, "expected %s, got '%s'", exp, text);
    return -1;
}

/* Says, after a size refused, the two units a bare K, M, G or T could have meant ("1M": 1MiB or 1MB). */
static void param_size_hint(const char *text, char *why, size_t n)
{
    size_t len = strlen(text), used = strlen(why);
    if (len < 2 || !strchr("KMGT", text[len - 1]) || !(isdigit((unsigned char)text[len - 2]) || text[len - 2] == ' '))
        return;
    snprintf(why + used, n - used, " (%c alone is ambiguous: write %ciB, a power of 1024, or %cB, of 1000)",
             text[len - 1], text[len - 1], text[len - 1]);
}

int param_parse(const struct param *p, const char *text, void *base, char *why, size_t n)
{
    void *at = param_at(p, base);
    int ranged = p->min < p->max;
    switch (p->type) {
    case PT_INT: {
        int64_t v;
        if (parse_int(text, &v) != 0 || (ranged && (v < p->min || v > p->max)))
            return param_bad(p, text, why, n);
        *(int64_t *)at = v;
        return 0;
    }
    case PT_SIZE: {
        uint64_t v;
        if (parse_size(text, &v) != 0 || (ranged && ((double)v < p->min || (double)v > p->max))) {
            param_bad(p, text, why, n);
            param_size_hint(text, why, n);
            return -1;
        }
        *(uint64_t *)at = v;
        return 0;
    }
    case PT_DURATION:
    case PT_DOUBLE: {
        double v;
        int rc = p->type == PT_DURATION ? parse_duration(text, &v) : parse_double(text, &v);
        if (rc != 0 || (ranged && (v < p->min || v > p->max)))
            return param_bad(p, text, why, n);
        *(double *)at = v;
        return 0;
    }
    case PT_POWER: {   /* a share of TDP up to the TDP itself; watts up to 5 kW */
        struct power_value v;
        if (parse_power(text, &v) != 0 || (v.percent && v.value > 100) || (!v.percent && v.value > 5000))
            return param_bad(p, text, why, n);
        struct power_value *to = at;   /* field by field: the padding stays as it was (a struct compares whole) */
        to->value = v.value;
        to->percent = v.percent;
        return 0;
    }
    case PT_ENUM: {
        int i = enum_index(p->choices, text);
        if (i < 0)
            return param_bad(p, text, why, n);
        *(int *)at = i;
        return 0;
    }
    case PT_STRING:
        if (!*text || strlen(text) >= p->size)
            return param_bad(p, text, why, n);
        str_copy(at, p->size, text);
        return 0;
    case PT_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "yes") == 0 || strcmp(text, "on") == 0)
            *(int *)at = 1;
        else if (strcmp(text, "false") == 0 || strcmp(text, "no") == 0 || strcmp(text, "off") == 0)
            *(int *)at = 0;
        else
            return param_bad(p, text, why, n);
        return 0;
    case PT_SECTION:
    case PT_LIST:
    case PT_PAIR:
        return param_bad(p, text, why, n);
    }
    return param_bad(p, text, why, n);
}

void param_format(const struct param *p, const void *base, char *out, size_t n)
{
    const void *at = param_at(p, base);
    switch (p->type) {
    case PT_INT:
        snprintf(out, n, "%" PRId64, *(const int64_t *)at);
        return;
    case PT_SIZE:
        format_size(*(const uint64_t *)at, out, n);
        return;
    case PT_DURATION:
        format_duration(*(const double *)at, out, n);
        return;
    case PT_DOUBLE:
        format_number(*(const double *)at, out, n);
        return;
    case PT_POWER: {   /* until 2026-11-30 "%g": 80.1234567% was written, and read again, as 80.1235% */
        const struct power_value *v = at;
        format_number(v->value, out, n);
        size_t used = strlen(out);
        snprintf(out + used, n > used ? n - used : 0, "%s", v->percent ? "%" : "W");
        return;
    }
    case PT_ENUM:
        enum_name(p->choices, *(const int *)at, out, n);
        return;
    case PT_STRING:
        snprintf(out, n, "%s", (const char *)at);
        return;
    case PT_BOOL:
        snprintf(out, n, "%s", *(const int *)at ? "true" : "false");
        return;
    case PT_SECTION:
        snprintf(out, n, "{}");
        return;
    case PT_LIST:
        snprintf(out, n, "%s", p->def ? p->def : "[]");
        return;
    case PT_PAIR: {
        const double *v = at;
        snprintf(out, n, "[%g, %g]", v[0], v[1]);
        return;
    }
    }
}

int param_defaults(const struct param *table, void *base)
{
    char why[256];
    for (const struct param *p = table; p && p->name; p++) {
        if (p->type == PT_SECTION) {
            if (param_defaults(p->sub, (char *)base + p->off) != 0)
                return -1;
        } else if (p->type == PT_PAIR && p->def) {
            double *v = (double *)((char *)base + p->off);
            if (sscanf(p->def, "[%lf, %lf]", &v[0], &v[1]) != 2) {
                gl_log("internal: default '%s' of key '%s' is not a pair", p->def, p->name);
                return -1;
            }
        } else if (p->def && p->type != PT_LIST && param_parse(p, p->def, base, why, sizeof why) != 0) {
            gl_log("internal: default '%s' of key '%s' does not parse: %s", p->def, p->name, why);
            return -1;
        }
    }
    return 0;
}

const struct param *param_find(const struct param *table, const char *name)
{
    for (const struct param *p = table; p && p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

int param_parse_pair(const struct param *p, const char *lo, const char *hi, void *base, char *why, size_t n)
{
    double a, b;
    char exp[160];
    if (parse_double(lo, &a) != 0 || parse_double(hi, &b) != 0 || !(a < b) || a < p->min || b > p->max) {
        param_expect(p, exp, sizeof exp);
        snprintf(why, n, "expected %s, got [%s, %s]", exp, lo, hi);
        return -1;
    }
    double *v = (double *)((char *)base + p->off);
    v[0] = a;
    v[1] = b;
    return 0;
}
