/* harness/analysis/analyze_fields.c: the fields of a power trace's row, parsed exactly (analyze_fields.h). */
#include "analyze_fields.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Parses "SS[.fffffffff]" (seconds, at most 9 decimals kept, the rest rounded) into ns; 0, or -1. */
static int af_decimal_ns(const char *s, int64_t *out)
{
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
        return -1;
    int64_t whole = 0, frac = 0;
    int digits = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (whole > (INT64_MAX / 1000000000 - 9) / 10)
            return -1;
        whole = whole * 10 + (*s - '0');
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
    *out = (neg ? -1 : 1) * (whole * 1000000000 + frac);
    return 0;
}

/* Parses a time into ns: a timestamp "YYYY/MM/DD HH:MM:SS.fff" (nvidia-smi) or "YYYY-MM-DDTHH:MM:SS.fff[Z]"
 * (since the epoch, *absolute = 1), or seconds "12.5" (*absolute = 0). Returns 0, or -1 with what is wrong. */
int analyze_time(char *s, int64_t *out, int *absolute, const char **why)
{
    int y, mo, d, h, mi, at = 0;
    *why = "expected a time: seconds (12.5) or a timestamp (2026/11/24 10:00:00.123, 2026-11-24T10:00:00.123)";
    if (sscanf(s, "%d%*[/-]%d%*[/-]%d%*[ T]%d:%d:%n", &y, &mo, &d, &h, &mi, &at) == 5 && at) {
        static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) || h < 0 || h > 23 ||
            mi < 0 || mi > 59) {
            *why = "a timestamp with no such date or time of day";
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
        *out = ((af_days(y, mo, d) * 24 + h) * 60 + mi) * 60000000000LL + sec;
        *absolute = 1;
        return 0;
    }
    if (af_decimal_ns(s, out) == 0) {
        *absolute = 0;
        return 0;
    }
    char *end;
    double v = strtod(s, &end);   /* 1.5e3 and the like */
    if (end != s && !*end && isfinite(v) && fabs(v) < 9e9) {
        *out = llround(v * 1e9);
        *absolute = 0;
        return 0;
    }
    return -1;
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
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v))
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    if ((*end == 'W' || *end == 'w') && end[1] == 0)
        end++;
    if (*end)
        return -1;
    *w = v;
    return 1;
}
