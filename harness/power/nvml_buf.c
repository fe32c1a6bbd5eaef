/* harness/power/nvml_buf.c: the driver's power sample buffer as a GPU's power source (see nvml.h): its samples on the
 * monotonic clock, each read once from the newest at the first poll; a failed poll is a gap, never another sensor's
 * value; stamps that went back with the wall clock are followed again. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nvml.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util.h"

uint64_t nvml_wall_us_to_mono(unsigned long long wall_us, int64_t wall_minus_mono_ns, uint64_t mono_now)
{
    if (wall_us > (unsigned long long)INT64_MAX / 1000ull)
        return 0;
    int64_t stamp = (int64_t)(wall_us * 1000ull) - wall_minus_mono_ns;
    return stamp > 0 && (uint64_t)stamp <= mono_now ? (uint64_t)stamp : 0;
}

/* Puts k driver stamps (t_us) on the monotonic clock (at_ns); 0 where not known or the value (w) is no number. */
static void nvml_buf_mono(const unsigned long long *t_us, const double *w, uint64_t *at_ns, int k)
{
    struct timespec rt;
    uint64_t mono = mono_ns();   /* the two clocks read back to back: their offset to well under a sample's 20 ms */
    int known = clock_gettime(CLOCK_REALTIME, &rt) == 0;
    int64_t off = known ? (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - (int64_t)mono : 0;
    for (int i = 0; i < k; i++)
        at_ns[i] = known && isfinite(w[i]) ? nvml_wall_us_to_mono(t_us[i], off, mono) : 0;
}

int nvml_power_samples_mono(struct nvml *nv, int dev, unsigned long long *last_us, double *w, uint64_t *at_ns, int max,
                            long *skipped, nvmlReturn_t *err)
{
    enum { MONO_MAX = 256 };
    unsigned long long t_us[MONO_MAX];
    int k = nvml_power_samples(nv, dev, last_us, w, t_us, max < MONO_MAX ? max : MONO_MAX, skipped, err);
    nvml_buf_mono(t_us, w, at_ns, k);
    return k;
}

/* Says whether a sample stamped stamp was read already (one of the last NVML_BUF_SEEN). */
static int nvml_buf_seen(const struct nvml_buf *b, unsigned long long stamp)
{
    for (int i = 0; i < NVML_BUF_SEEN; i++)
        if (b->seen[i] == stamp)
            return 1;
    return 0;
}

/* Asks for the samples stamped after since and keeps, in b->new_*, those not read before (after the wall clock stepped
 * back the driver gives those again: their stamps are later than the new ones'), at most max (the newest; the rest
 * counted in *skipped). Returns their count, or -1 / -2 with *err as nvml_power_samples; *newest: the newest kept. */
static int nvml_buf_fetch(struct nvml *nv, int dev, struct nvml_buf *b, unsigned long long since, int max, long *skipped,
                          nvmlReturn_t *err, unsigned long long *newest)
{
    enum { ALL = 256 };
    unsigned long long t[ALL];
    double w[ALL];
    int k = nvml_power_samples(nv, dev, &since, w, t, ALL, skipped, err), kept = 0;
    for (int i = 0; i < k; i++)
        if (!nvml_buf_seen(b, t[i])) {
            t[kept] = t[i];
            w[kept++] = w[i];
        }
    int skip = kept > max ? kept - max : 0;
    *skipped += skip;
    for (int i = 0; i < kept; i++)   /* the ones passed over too (the first poll's backlog from before the run): a
                                      * fresh look at the buffer took it for samples stamped back (until 2026-12-02) */
        b->seen[b->seen_next++ % NVML_BUF_SEEN] = t[i];
    kept -= skip;
    for (int i = 0; i < kept; i++)
        b->new_w[i] = w[skip + i];
    nvml_buf_mono(t + skip, w + skip, b->new_at, kept);
    if (kept > 0)
        *newest = t[skip + kept - 1];
    return k < 0 ? k : kept;
}

/* Takes the k new samples of a poll at now_ns (the newest stamp was prev before it): the newest that is a number
 * becomes the reading; the mean interval since prev narrows the sample interval. */
static void nvml_buf_take(struct nvml_buf *b, int k, long skipped, unsigned long long prev, uint64_t now_ns)
{
    for (int i = k - 1; i >= 0; i--)
        if (isfinite(b->new_w[i])) {
            b->w = b->new_w[i];
            b->at_ns = b->new_at[i];
            b->have = 1;
            break;
        }
    if (prev && b->last_us > prev) {   /* the median of the last polls' mean intervals: the shortest was one gap of
                                        * an H100's (7.8 ms among 20 ms ones up to 45) and set a fresh look at the
                                        * buffer after 39 ms; a mean over all, a pause's 150 ms in it, read 31 ms */
        b->gaps_us[b->ngaps++ % NVML_BUF_GAPS] = (b->last_us - prev) / (unsigned long long)(k + skipped);
        int n = b->ngaps < NVML_BUF_GAPS ? (int)b->ngaps : NVML_BUF_GAPS;
        unsigned long long v[NVML_BUF_GAPS];
        memcpy(v, b->gaps_us, (size_t)n * sizeof *v);
        for (int i = 1; i < n; i++)   /* at most 31: in place */
            for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
                unsigned long long x = v[j];
                v[j] = v[j - 1];
                v[j - 1] = x;
            }
        if (v[n / 2] > 0)
            b->period_us = v[n / 2];
    }
    b->samples += k;
    b->new_ns = now_ns;
}

/* No new sample for five sample intervals while the polls answer: reads what the buffer holds afresh. The driver
 * stamps its samples on the wall clock; stepped back by X (an NTP step), every sample for X is older than the newest
 * read and is never returned for it. Until 2026-11-30 the reading then stayed on its old sample, unsaid. Takes the
 * samples not read before that were taken after the last one read (on the mono clock; where not known, the newest
 * alone); returns their count. */
static int nvml_buf_reseed(struct nvml *nv, int dev, struct nvml_buf *b, uint64_t now_ns)
{
    unsigned long long newest = 0, before = b->last_us;
    long skipped = 0;
    nvmlReturn_t err;
    b->new_ns = now_ns;   /* looked at now: the next look after another five intervals */
    int k = nvml_buf_fetch(nv, dev, b, 0, NVML_BUF_NEW, &skipped, &err, &newest), kept = 0;
    if (k <= 0 || newest >= before)
        return 0;   /* nothing unread, or nothing behind: the buffer itself has nothing new */
    for (int i = 0; i < k; i++)   /* what it held before the first poll is no sample of the run */
        if (b->at_ns && b->new_at[i] ? b->new_at[i] > b->at_ns : i == k - 1) {
            b->new_w[kept] = b->new_w[i];
            b->new_at[kept++] = b->new_at[i];
        }
    if (kept == 0)
        return 0;
    b->reseeds++;
    gl_log("NVML: GPU %d: the driver's sample stamps went back %.3f s (the wall clock was stepped back): its samples are "
           "followed again from there", dev, (double)(before - newest) * 1e-6);
    b->last_us = newest;
    nvml_buf_take(b, kept, 0, 0, now_ns);
    return kept;
}

int nvml_buf_poll(struct nvml *nv, int dev, struct nvml_buf *b, uint64_t now_ns)
{
    b->nnew = 0;
    if (b->state == NVML_BUF_NONE || b->state == NVML_BUF_STOPPED || (b->polled && now_ns - b->poll_ns < NVML_BUF_POLL_DUE_NS))
        return 0;
    int first = b->last_us == 0;
    b->polled = 1;
    b->poll_ns = now_ns;
    long skipped = 0;
    nvmlReturn_t err;
    unsigned long long prev = b->last_us;
    /* the first poll: the newest sample alone. NVML answers a lastSeenTimeStamp of 0 with all it holds (120 samples,
     * 2.4 s, on the H100), taken before the run: until 2026-11-30 the newest 64 were read and 63 counted passed over */
    int k = nvml_buf_fetch(nv, dev, b, b->last_us, first ? 1 : NVML_BUF_NEW, &skipped, &err, &b->last_us);
    if (k < 0) {   /* until 2026-11-30 any failure switched the session to the instant field, another sensor */
        char eb[64];
        str_copy(b->err, sizeof b->err, nvml_error_text(nv, err, eb, sizeof eb));
        if (k == -2) {
            b->failed++;
            b->state = NVML_BUF_FAILING;
        } else if (b->have) {
            b->state = NVML_BUF_STOPPED;
            gl_log("NVML: GPU %d: the driver's power sample buffer stopped answering (%s) after %ld samples: the "
                   "readings from here are gaps, no other field's", dev, b->err, b->samples);
        } else
            b->state = NVML_BUF_NONE;
        return 0;
    }
    b->state = NVML_BUF_ON;
    if (!b->first_ns)
        b->first_ns = now_ns ? now_ns : 1;
    if (k == 0 && !b->have && now_ns - b->first_ns >= NVML_BUF_FIRST_NS) {
        b->state = NVML_BUF_NONE;
        gl_log("NVML: GPU %d: the driver's power sample buffer answered but gave no sample in %.0f s: the instant power "
               "field is the source from here (no reading came from the buffer)", dev, NVML_BUF_FIRST_NS * 1e-9);
        return 0;
    }
    if (k > 0) {
        b->passed += first ? 0 : skipped + k - 1;
        nvml_buf_take(b, k, skipped, prev, now_ns);
    } else if (b->have && now_ns - b->new_ns > 5 * (b->period_us ? b->period_us : 20000) * 1000ull)
        k = nvml_buf_reseed(nv, dev, b, now_ns);
    b->nnew = k;
    return k;
}

int nvml_buf_reading(const struct nvml_buf *b, double *w, uint64_t *at_ns)
{
    if (b->state == NVML_BUF_NONE || !b->polled)
        return -1;
    if (b->state != NVML_BUF_ON || !b->have)
        return 0;
    *w = b->w;
    *at_ns = b->at_ns;
    return 1;
}

/* Appends to out (n bytes) what fmt says; cut where it does not fit. */
static void nvml_buf_cat(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void nvml_buf_cat(char *out, size_t n, const char *fmt, ...)
{
    size_t at = strlen(out);
    va_list ap;
    if (at + 1 >= n)
        return;
    va_start(ap, fmt);
    if (vsnprintf(out + at, n - at, fmt, ap) < 0)
        out[at] = 0;
    va_end(ap);
}

int nvml_buf_describe(const struct nvml_buf *b, char *out, size_t n)
{
    if (b->state == NVML_BUF_NONE || !b->polled || n == 0)
        return -1;
    out[0] = 0;
    nvml_buf_cat(out, n, "NVML driver sample buffer (nvmlDeviceGetSamples): its newest sample at each reading, stamped "
                         "with its own time (power.csv sample_t_s)");
    if (!b->have)
        nvml_buf_cat(out, n, "; it gave no sample: no readings");
    if (b->passed)
        nvml_buf_cat(out, n, "; %ld samples passed over (polls further apart than its samples)", b->passed);
    if (b->failed)
        nvml_buf_cat(out, n, "; %ld poll%s failed (%s): gaps until one answered", b->failed, b->failed == 1 ? "" : "s",
                     b->err);
    if (b->state == NVML_BUF_STOPPED)
        nvml_buf_cat(out, n, "; it stopped answering (%s) after %ld samples: gaps since", b->err, b->samples);
    if (b->reseeds)
        nvml_buf_cat(out, n, "; its stamps went back %ld time%s (the wall clock stepped): followed again from its newest",
                     b->reseeds, b->reseeds == 1 ? "" : "s");
    return 0;
}
