/* harness/analysis/analyze_fields.h: the fields of a power trace's row (`gauntlet analyze`): times and watts, parsed
 * exactly and refused with a reason. */
#ifndef GAUNTLET_ANALYZE_FIELDS_H
#define GAUNTLET_ANALYZE_FIELDS_H

#include <stdint.h>

/* The times a trace can hold: seconds within AF_T_MAX_S of 0, timestamps in the years AF_YEAR_MIN to AF_YEAR_MAX
 * (both inside AF_T_MAX_S of the epoch). Any two such times differ by less than 8.4e18 ns: their difference, and a
 * trace's span, never overflow int64. */
#define AF_T_MAX_S 4200000000LL
#define AF_YEAR_MIN 1900
#define AF_YEAR_MAX 2099

/* Parses a time into ns: a timestamp "YYYY/MM/DD HH:MM:SS.fff" (nvidia-smi) or "YYYY-MM-DDTHH:MM:SS.fff[Z]"
 * (since the epoch, *absolute = 1; a trailing Z is cut off s), or decimal seconds "12.5", "1.5e3" (*absolute = 0).
 * 0, or -1 with what is wrong in *why (hexadecimal, inf, nan and a time the trace cannot hold are refused). */
int analyze_time(char *s, int64_t *out, int *absolute, const char **why);
/* Parses a power field: decimal watts, a unit W after the number allowed. 1: a reading in *w; 0: not measured
 * (empty, [N/A], N/A, nan, [Not Supported], [Unknown Error]); -1: not a power (hexadecimal and inf too). */
int analyze_power(const char *s, double *w);

/* Splits a CSV line in place into fields (RFC 4180: a field in double quotes may hold commas, and "" in it is one
 * quote; spaces around a field, a line's end and, on an unquoted field, stray quotes are trimmed): at most max
 * pointers into cols. Returns the number of fields (max + 1: more than max, the rest not split), or -1 with why (a
 * quoted field not closed, or something after its closing quote). */
int analyze_split(char *line, char **cols, int max, const char **why);

#endif
