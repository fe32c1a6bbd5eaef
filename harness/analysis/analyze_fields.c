/* harness/analysis/analyze_fields.c: the fields of a power trace's row, parsed exactly (analyze_fields.h). */
#include "analyze_fields.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define AF_T_MAX_NS (AF_T_MAX_S * 1000000000LL)
#define AF_BEYOND "a time more than 4.2e9 s either side of 0 (the times a trace can hold: about 133 years)"
#define AF_HEX "expected a time in decimal seconds (12.5) or a timestamp, not hexadecimal"

/* Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian; Howard Hinnant's algorithm). */
static int64_t af_days(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* Returns the end of the decimal number at s ([+-] digits [. digits] [e [+-] digits], or [+-] . digits ...), or
 * NULL when s does not begin with one: hexadecimal, inf and nan are no decimal numbers. */
static const char *af_decimal_end(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    size_t whole = strspn(s, "0123456789");
    s += whole;
    size_t frac = 0;
    if (*s == '.') {
        frac = strspn(s + 1, "0123456789");
        s += 1 + frac;
    }
    if (!whole && !frac)
        return NULL;
    if (*s == 'e' || *s == 'E') {
        const char *e = s + 1 + (s[1] == '-' || s[1] == '+');
        size_t exp = strspn(e, "0123456789");
        if (exp)
            s = e + exp;
    }
    return s;
}

/* Parses "SS[.fffffffff]" (seconds, at most 9 decimals kept, the rest rounded) into ns; 0, -1 (not that form) or
 * -2 (beyond AF_T_MAX_S seconds either way). */
static int af_decimal_ns(const char *s, int64_t *out)
{
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
        return -1;
    int64_t whole = 0, frac = 0;
    int digits = 0, over = 0;
    for (; isdigit((unsigned char)*s); s++) {
        whole = whole * 10 + (*s - '0');
        if (whole > AF_T_MAX_S) {   /* the digits after are still read: "not a time" is said before "too far" */
            over = 1;
            whole = AF_T_MAX_S;
        }
    }
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++) {
            if (digits < 9) {
                frac = frac * 10 + (*s - '0');
                digits++;
            } else if (digits == 9) {
                frac += *s >= '5';   /* the tenth decimal rounds the ninth */
                digits++;
            }
        }
    }
    for (int d = digits > 9 ? 9 : digits; d < 9; d++)
        frac *= 10;
    if (*s)
        return -1;
    int64_t ns = whole * 1000000000 + frac;   /* at most AF_T_MAX_NS + 1e9: far inside int64 */
    if (over || ns > AF_T_MAX_NS)
        return -2;
    *out = neg ? -ns : ns;
    return 0;
}

/* Reads 1 to max digits at *s into *v (moving *s past them; a value past 10^9 is kept as INT_MAX); 0, or -1 when
 * none. */
static int af_digits(const char **s, int max, int *v)
{
    int n = 0;
    long long x = 0;
    for (; n < max && isdigit((unsigned char)**s); (*s)++, n++)
        if (x < 1000000000)
            x = x * 10 + (**s - '0');
    *v = x > INT_MAX ? INT_MAX : (int)x;
    return n ? 0 : -1;
}

/* Matches the head of a timestamp, "Y/M/D H:M:" ('-' for '/', 'T' for the space); 1 with its fields and the offset
 * of the seconds in *at, else 0 (not a timestamp). Each field is read as written, never into an overflow. */
static int af_stamp_head(const char *s, int *y, int *mo, int *d, int *h, int *mi, int *at)
{
    const char *p = s;
    if (af_digits(&p, 64, y) != 0 || !*p || !strchr("/-", *p))
        return 0;
    p++;
    if (af_digits(&p, 2, mo) != 0 || !*p || !strchr("/-", *p))
        return 0;
    p++;
    if (af_digits(&p, 2, d) != 0 || (*p != ' ' && *p != 'T'))
        return 0;
    p += strspn(p, " T");
    if (af_digits(&p, 2, h) != 0 || *p++ != ':' || af_digits(&p, 2, mi) != 0 || *p++ != ':')
        return 0;
    *at = (int)(p - s);
    return 1;
}

/* Parses a time into ns: a timestamp "YYYY/MM/DD HH:MM:SS.fff" (nvidia-smi) or "YYYY-MM-DDTHH:MM:SS.fff[Z]"
 * (since the epoch, *absolute = 1), or seconds "12.5" (*absolute = 0). Returns 0, or -1 with what is wrong. */
int analyze_time(char *s, int64_t *out, int *absolute, const char **why)
{
    int y, mo, d, h, mi, at = 0;
    *why = "expected a time: seconds (12.5) or a timestamp (2026/11/24 10:00:00.123, 2026-11-24T10:00:00.123)";
    if (af_stamp_head(s, &y, &mo, &d, &h, &mi, &at)) {
        static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) || h < 0 || h > 23 ||
            mi < 0 || mi > 59) {
            *why = "a timestamp with no such date or time of day";
            return -1;
        }
        if (y < AF_YEAR_MIN || y > AF_YEAR_MAX) {
            *why = "a timestamp outside the years 1900 to 2099 (the dates a trace can hold)";
            return -1;
        }
        size_t n = strlen(s + at);
        if (n && (s[at + n - 1] == 'Z' || s[at + n - 1] == 'z'))
            s[at + n - 1] = 0;
        int64_t sec;
        if (af_decimal_ns(s + at, &sec) != 0 || sec < 0 || sec >= 61000000000LL) {
            *why = "a timestamp whose seconds are not a number from 0 to 60.999999999";
            return -1;
        }
        /* years AF_YEAR_MIN..AF_YEAR_MAX: within AF_T_MAX_S of the epoch, so no step below can overflow */
        *out = ((af_days(y, mo, d) * 24 + h) * 60 + mi) * 60000000000LL + sec;
        *absolute = 1;
        return 0;
    }
    const char *end = af_decimal_end(s);
    if (!end)
        return -1;
    int r = af_decimal_ns(s, out);
    if (r == -2) {
        *why = AF_BEYOND;
        return -1;
    }
    if (r == 0) {
        *absolute = 0;
        return 0;
    }
    if (*end) {   /* "0x12c" and the like stop at the x */
        if (*end == 'x' || *end == 'X')
            *why = AF_HEX;
        return -1;
    }
    char *stop;
    double v = strtod(s, &stop);   /* 1.5e3 and the like */
    if (stop != end || !isfinite(v))
        return -1;
    if (!(fabs(v) <= (double)AF_T_MAX_S)) {
        *why = AF_BEYOND;
        return -1;
    }
    *out = llround(v * 1e9);
    *absolute = 0;
    return 0;
}

/* Parses a power field: watts, a unit W after the number allowed. 1: a reading in *w; 0: not measured (empty,
 * [N/A], N/A, nan, [Not Supported], [Unknown Error]); -1: not a power. */
int analyze_power(const char *s, double *w)
{
    static const char *const none[] = { "", "[N/A]", "N/A", "NA", "nan", "-", "[Not Supported]", "[Unknown Error]",
                                        "[GPU is lost]", NULL };
    for (const char *const *n = none; *n; n++)
        if (strcasecmp(s, *n) == 0)
            return 0;
    const char *num_end = af_decimal_end(s);   /* decimal only: 0x12c, inf and infinity are no watts */
    if (!num_end)
        return -1;
    char *end;
    double v = strtod(s, &end);
    if (end != num_end || !isfinite(v))
        return -1;   /* an overflow is no reading; an underflow (1e-400) is a reading of about 0 W */
    while (isspace((unsigned char)*end))
        end++;
    if ((*end == 'W' || *end == 'w') && end[1] == 0)
        end++;
    if (*end)
        return -1;
    *w = v;
    return 1;
}

/* Trims spaces, and quotes, around an unquoted CSV field in place. */
static char *af_trim(char *s)
{
    while (isspace((unsigned char)*s) || *s == '"')
        s++;
    size_t n = strlen(s);
    while (n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == '"'))
        s[--n] = 0;
    return s;
}

int analyze_split(char *line, char **cols, int max, const char **why)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (n == max)
            return max + 1;
        if (*p == '"') {   /* quoted: to the quote not doubled, its content moved in place over the doubled ones */
            char *out = ++p, *start = p;
            for (;; p++) {
                if (!*p) {
                    *why = "a quoted field has no closing quote (a field cannot span lines)";
                    return -1;
                }
                if (*p == '"' && p[1] == '"')
                    *out++ = *p++;
                else if (*p == '"')
                    break;
                else
                    *out++ = *p;
            }
            p++;
            while (isspace((unsigned char)*p))
                p++;
            if (*p && *p != ',') {
                *why = "characters after a quoted field's closing quote";
                return -1;
            }
            *out = 0;
            cols[n++] = start;
            if (!*p)
                return n;
            p++;
            continue;
        }
        char *comma = strchr(p, ',');
        if (comma)
            *comma = 0;
        cols[n++] = af_trim(p);
        if (!comma)
            return n;
        p = comma + 1;
    }
}
