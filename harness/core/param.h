/* harness/core/param.h: one table entry per scenario key — name, type, unit, default, range, help.
 * The scenario parser, `gauntlet list`, the echo into scenario.yaml and the docs test all read it. */
#ifndef GAUNTLET_PARAM_H
#define GAUNTLET_PARAM_H

#include <stddef.h>
#include <stdint.h>

#define SC_PARAM_BYTES 256   /* a plug-in's parameter block in the scenario: its params_size at most this */

enum param_type {
    PT_INT,       /* int64_t */
    PT_SIZE,      /* uint64_t bytes: 1024, 8KiB, 8MiB, 1GiB, 1.5GB (never a bare K, M, G, T) */
    PT_DURATION,  /* double seconds: 500ms, 2s, 100us, 1min */
    PT_DOUBLE,    /* double */
    PT_POWER,     /* struct power_value: 80% (of TDP) or 560W */
    PT_ENUM,      /* int: index into choices */
    PT_STRING,    /* char[size] */
    PT_BOOL,      /* int: true/false */
    PT_SECTION,   /* a nested mapping described by sub */
    PT_LIST,      /* a list its owner parses itself (mitigations); def documents the default */
    PT_PAIR,      /* double[2]: [lo, hi], lo < hi */
};

/* A power level given either as a share of the GPU's TDP or in watts. */
struct power_value {
    double value;   /* percent (0..100+) when percent, else watts */
    int percent;
};

#define PF_REQUIRED 1u   /* the key must be present (a section: the mapping must be present) */
#define PF_ON 2u         /* a section whose presence turns it on: the int at its offset becomes 1 when given */

struct param {
    const char *name;
    enum param_type type;
    size_t off;              /* where the value lives in the struct being filled */
    size_t size;             /* PT_STRING: buffer size */
    const char *def;         /* default, as scenario text (NULL: none; with PF_REQUIRED the key must be given) */
    double min, max;         /* inclusive numeric range, checked when min < max */
    const char *choices;     /* PT_ENUM: comma-separated names */
    const struct param *sub; /* PT_SECTION: its keys, ending with { 0 } */
    const char *unit;        /* shown in help and docs */
    const char *help;
    unsigned flags;
};

/* Parses a PT_PAIR from its two texts; on error fills why, returns -1. */
int param_parse_pair(const struct param *p, const char *lo, const char *hi, void *base, char *why, size_t n);
/* Parses text as p's type into base + p->off; on error fills why with what was expected, returns -1. */
int param_parse(const struct param *p, const char *text, void *base, char *why, size_t n);
/* Formats the value of p at base in canonical scenario text (the echo into scenario.yaml). */
void param_format(const struct param *p, const void *base, char *out, size_t n);
/* Applies every default of table (recursing into sections) to base; returns -1 if a default fails to parse. */
int param_defaults(const struct param *table, void *base);
/* Finds name in table, or NULL. */
const struct param *param_find(const struct param *table, const char *name);
/* Describes p's type and range for messages and help: "a size (e.g. 8MiB) in [1B, 1TiB]". */
void param_expect(const struct param *p, char *out, size_t n);

/* Unit parsers, exposed for tests and for `gauntlet analyze` options. Each returns 0 or -1. */
int parse_size(const char *s, uint64_t *out);
int parse_duration(const char *s, double *out);
int parse_power(const char *s, struct power_value *out);
int parse_int(const char *s, int64_t *out);
int parse_double(const char *s, double *out);
/* Formats bytes as the largest exact binary unit (8MiB), or plain bytes. */
void format_size(uint64_t bytes, char *out, size_t n);
/* Formats seconds as ms / us / s, exactly when possible. */
void format_duration(double s, char *out, size_t n);
/* Formats a number as the shortest text that reads back the same value (integral ones without an exponent). */
void format_number(double v, char *out, size_t n);

#endif
