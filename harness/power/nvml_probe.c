/* harness/power/nvml_probe.c: finds how often each NVML value really changes, by reading it far faster
 * than it updates and counting distinct successive values, and what one read costs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nvml.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

/* A field probed longer than this many reads stops early: enough to see any update rate. */
#define NVML_PROBE_MAX_READS (1L << 20)
#define NVML_PROBE_GAP_NS 20000   /* at most one read of a field every 20 us (50 kHz) */

/* Orders doubles for qsort. */
static int nvml_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Returns the sum of a[0..n). */
static double nvml_span(const double *a, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* Returns the median of a[0..n) (sorted in place); NAN when n is 0. */
static double nvml_median(double *a, long n)
{
    if (n <= 0)
        return NAN;
    qsort(a, (size_t)n, sizeof *a, nvml_cmp_double);
    return n % 2 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
}

long nvml_count_updates(const double *t_ms, const double *v, long n, double *interval_ms)
{
    long changes = 0, have_last = 0;
    double last = NAN, last_change_t = NAN;
    double *gaps = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *gaps);
    long ngaps = 0;
    for (long i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (have_last && v[i] != last) {
            changes++;
            if (!isnan(last_change_t))
                gaps[ngaps++] = t_ms[i] - last_change_t;
            last_change_t = t_ms[i];
        }
        last = v[i];
        have_last = 1;
    }
    if (interval_ms)   /* the mean interval: the changes' span over their count, as the counts say */
        *interval_ms = ngaps > 0 ? nvml_span(gaps, ngaps) / (double)ngaps : NAN;
    free(gaps);
    return changes;
}

double nvml_suggest_hz(double update_ms, double call_us)
{
    if (isnan(update_ms) || update_ms <= 0)
        return NAN;
    double hz = 2.0 * 1000.0 / update_ms;
    if (!isnan(call_us) && call_us > 0 && hz > 0.5e6 / call_us)
        hz = 0.5e6 / call_us;
    return hz;
}

/* Reads field f of dev back to back for `seconds`; fills r. */
static void nvml_probe_field(struct nvml *nv, int dev, enum gpu_field f, double seconds, struct nvml_rate *r)
{
    long cap = 4096, n = 0;
    double *t = xmalloc((size_t)cap * sizeof *t), *v = xmalloc((size_t)cap * sizeof *v);
    double *cost = xmalloc((size_t)cap * sizeof *cost);
    uint64_t start = mono_ns(), end = start + (uint64_t)(seconds * 1e9);

    for (uint64_t now = start, next = start; now < end && n < NVML_PROBE_MAX_READS; now = mono_ns()) {
        double value;
        if (now < next)   /* paced: the reads cover the whole time asked, not the first half second of it */
            continue;
        next = now + NVML_PROBE_GAP_NS;
        uint64_t t0 = mono_ns();
        int rc = nvml_read_field(nv, dev, f, &value);
        uint64_t t1 = mono_ns();
        if (rc != 0) {
            if (!nvml_field_available(nv, dev, f))
                break;          /* found unsupported: the failure was logged once */
            continue;
        }
        if (n == cap) {
            cap *= 2;
            t = xrealloc(t, (size_t)cap * sizeof *t);
            v = xrealloc(v, (size_t)cap * sizeof *v);
            cost = xrealloc(cost, (size_t)cap * sizeof *cost);
        }
        t[n] = (double)(t0 - start) / 1e6;
        v[n] = value;
        cost[n] = (double)(t1 - t0) / 1e3;
        n++;
    }
    r->available = n > 0;
    r->calls = n;
    r->changes = nvml_count_updates(t, v, n, &r->update_ms);
    r->call_us = nvml_median(cost, n);
    r->suggested_hz = nvml_suggest_hz(r->update_ms, r->call_us);
    free(t);
    free(v);
    free(cost);
}

int nvml_probe_rates(struct nvml *nv, int dev, double seconds, struct nvml_rate out[GPU_F_COUNT])
{
    int probed = 0;
    if (!nv || dev < 0 || dev >= nvml_device_count(nv) || !(seconds > 0))
        return -1;
    for (int f = 0; f < GPU_F_COUNT; f++) {
        struct nvml_rate *r = &out[f];
        *r = (struct nvml_rate){ .update_ms = NAN, .suggested_hz = NAN, .call_us = NAN };
        if (!nvml_field_available(nv, dev, (enum gpu_field)f))
            continue;
        nvml_probe_field(nv, dev, (enum gpu_field)f, seconds, r);
        probed += r->available;
    }
    return probed;
}

/* Formats x with prec decimals into buf, or "-" when x is NAN. */
static const char *nvml_num(char *buf, size_t n, double x, int prec)
{
    if (isnan(x) || snprintf(buf, n, "%.*f", prec, x) < 0)
        return "-";
    return buf;
}

int nvml_probe_print(FILE *f, const struct nvml_rate r[GPU_F_COUNT])
{
    char a[32], b[32], c[32];
    if (fprintf(f, "%-17s %10s %9s %10s %11s %9s\n", "field", "calls", "changes", "update_ms", "suggest_hz",
                "call_us") < 0)
        return SYSERR("fprintf");
    for (int i = 0; i < GPU_F_COUNT; i++) {
        int rc;
        if (!r[i].available)
            rc = fprintf(f, "%-17s %10s %9s %10s %11s %9s\n", nvml_field_name(i), "-", "-", "-", "-", "-");
        else
            rc = fprintf(f, "%-17s %10ld %9ld %10s %11s %9s\n", nvml_field_name(i), r[i].calls, r[i].changes,
                         nvml_num(a, sizeof a, r[i].update_ms, 2),
                         nvml_num(b, sizeof b, r[i].suggested_hz, 1), nvml_num(c, sizeof c, r[i].call_us, 2));
        if (rc < 0)
            return SYSERR("fprintf");
    }
    if (fflush(f) != 0)
        return SYSERR("fflush");
    return 0;
}
