/* harness/analysis/analyze_fields.h: the fields of a power trace's row (`gauntlet analyze`): times and watts, parsed
 * exactly and refused with a reason. */
#ifndef GAUNTLET_ANALYZE_FIELDS_H
#define GAUNTLET_ANALYZE_FIELDS_H

#include <stdint.h>

/* Parses a time into ns: a timestamp "YYYY/MM/DD HH:MM:SS.fff" (nvidia-smi) or "YYYY-MM-DDTHH:MM:SS.fff[Z]"
 * (since the epoch, *absolute = 1; a trailing Z is cut off s), or seconds "12.5" (*absolute = 0). 0, or -1 with
 * what is wrong in *why. */
int analyze_time(char *s, int64_t *out, int *absolute, const char **why);
/* Parses a power field: watts, a unit W after the number allowed. 1: a reading in *w; 0: not measured (empty,
 * [N/A], N/A, nan, [Not Supported], [Unknown Error]); -1: not a power. */
int analyze_power(const char *s, double *w);

#endif
