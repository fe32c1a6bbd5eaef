/* harness/analysis/analysis_sensor.c: what the sensor behind a power series lets the analysis see (analysis.h). A
 * reading held between the sensor's updates is one sample, not many: the update interval is measured from the
 * series itself (the most common interval between readings that differ from the one before, docs/power.md), and a
 * held series is rebuilt from its distinct readings, each at the time it appeared, joined linearly. */
#include <math.h>
#include <stdlib.h>

#include "analysis.h"
#include "analysis_int.h"
#include "util.h"

/* Compares two doubles for qsort. */
static int an_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define AN_COUNTED 65536   /* intervals below this many samples are counted, not compared */

/* An interval's length in samples and how many intervals have it. */
struct an_ivcount {
    double v;
    size_t c;
};

/* The update interval (in samples, as an_sensor_measure defines it) from k >= 2 intervals: count[v] of each length v
 * in 1..top and the big[0..nbig) longer ones (reordered). The same figure as taking the k intervals sorted one by one
 * (before 2026-12-01 they were written out whole, 3.6 M doubles a series in `bench analysis`): equal lengths come
 * together, the window from the first of them is the longest of theirs, and the sums are of whole numbers below
 * 2^53, exact in any order. NAN where the definition has none. */
static double an_interval_mode(const size_t *count, size_t top, double *big, size_t nbig)
{
    struct an_ivcount *d = xmalloc((top + nbig + 1) * sizeof *d);
    size_t nd = 0;
    for (size_t v = 1; v <= top; v++)
        if (count[v])
            d[nd++] = (struct an_ivcount){ (double)v, count[v] };
    if (nbig)   /* big is NULL where no interval was that long: qsort takes no NULL, even of 0 elements */
        qsort(big, nbig, sizeof *big, an_cmp);
    for (size_t i = 0; i < nbig; i++) {
        if (nd && d[nd - 1].v == big[i])
            d[nd - 1].c++;
        else
            d[nd++] = (struct an_ivcount){ big[i], 1 };
    }
    /* the most intervals within +-20 % of one (+ half a sample): a window from each length's first interval */
    size_t best = 0, at = 0, a = 0, b = 0;   /* a, b: the ranks of d[i]'s first interval and of the one after d[j-1] */
    for (size_t i = 0, j = 0; i < nd; a += d[i++].c) {
        while (j < nd && d[j].v <= 1.2 * d[i].v + 0.5)
            b += d[j++].c;
        if (b - a > best) {
            best = b - a;
            at = a + (b - a) / 2;
        }
    }
    double mode = d[nd - 1].v, sum = 0;
    for (size_t i = 0, r = 0; i < nd; r += d[i++].c)
        if (at < r + d[i].c) {
            mode = d[i].v;   /* the interval of rank at */
            break;
        }
    size_t m = 0;
    for (size_t i = 0; i < nd; i++)
        if (d[i].v > 0.4 * mode && d[i].v <= 1.6 * mode + 0.5) {
            sum += d[i].v * (double)d[i].c;
            m += d[i].c;
        }
    free(d);
    return best >= 2 && m ? sum / (double)m : NAN;
}

void an_sensor_count(const double *x, size_t n, double dt, double *update_s, size_t *distinct, size_t *pairs)
{
    *update_s = NAN;
    *distinct = *pairs = 0;
    if (n < 2 || !(dt > 0))
        return;
    size_t *count = xcalloc(AN_COUNTED, sizeof *count), top = 0, k = 0, nbig = 0, cap = 0, last = SIZE_MAX;
    size_t dn = 0, pn = 0, rv = 0, rc = 0;   /* rv, rc: a run of rc equal intervals rv, counted where it ends (a noisy
                                              * trace's are all 1 sample: no store to one counter per sample) */
    double *big = NULL, prev = x[0];
    for (size_t i = 1; i < n; i++) {
        double cur = x[i];
        if (isnan(cur) || isnan(prev)) {
            last = SIZE_MAX;   /* a gap: the interval across it is not the sensor's */
            prev = cur;
            continue;
        }
        pn++;
        if (cur == prev)
            continue;
        prev = cur;
        dn++;
        if (last != SIZE_MAX) {
            size_t v = i - last;
            if (v == rv) {
                rc++;
            } else if (v < AN_COUNTED) {
                count[rv] += rc;
                top = rv > top ? rv : top;
                rv = v;
                rc = 1;
            } else {
                if (nbig == cap)
                    big = xrealloc(big, (cap = cap ? 2 * cap : 64) * sizeof *big);
                big[nbig++] = (double)v;
            }
            k++;
        }
        last = i;
    }
    count[rv] += rc;
    top = rv > top ? rv : top;
    *distinct = dn;
    *pairs = pn;
    /* the most common interval (the most intervals within +-20 % of one, + half a sample for the grid's own
     * rounding): readings that did not change at an update make intervals of two or three updates, rarer than
     * the sensor's own; then the mean of the intervals around it (0.4 to 1.6 times): a reading that lands a
     * tick early or late on the sampler's grid makes one interval short and the next long, and their mean is
     * the sensor's (a 20 ms sensor read at 100 Hz shows 10, 20 and 30 ms, never only 10) */
    if (k >= 2)
        *update_s = an_interval_mode(count, top, big, nbig) * dt;
    free(count);
    free(big);
}

void an_sensor_measure(const double *x, size_t n, double dt, double *update_s, size_t *distinct)
{
    size_t pairs;
    an_sensor_count(x, n, dt, update_s, distinct, &pairs);
}

double an_sum_update_s(const struct an_result *r, size_t n)
{
    double update = AN_NOT_HELD;
    for (size_t k = 0; k < n; k++)
        if (r[k].held && r[k].update_s > update)
            update = r[k].update_s;
    return update;
}

int an_sensor_held(double update_s, double dt) { return isfinite(update_s) && dt > 0 && update_s > 1.5 * dt; }

/* Dehold of one segment x[a..e) of valid samples (analysis.h, an_dehold) into y, with U the update interval in samples. */
static void an_dehold_segment(const double *x, double *y, size_t a, size_t e, long U)
{
    size_t p = a;        /* where the reading now shown appeared (a: the segment's first, of unknown age) */
    int known = 0;       /* whether p is a reading's appearance seen in the segment */
    for (size_t i = a + 1; i < e; i++) {
        if (x[i] == x[i - 1])
            continue;
        /* a new reading at i: the one before was shown up to the update before it, U samples earlier (the sensor
         * updated without a change in between), or from its own appearance when that is nearer */
        long ls = (long)i - U;
        if (known && ls < (long)p)
            ls = (long)p;
        double from = x[i - 1], to = x[i];
        for (size_t j = p; j < i; j++)
            y[j] = (long)j <= ls ? from : from + (to - from) * (double)((long)j - ls) / (double)((long)i - ls);
        p = i;
        known = 1;
    }
    /* after the last reading: shown while an update in the segment repeated it (a sample at most e - U), then
     * unknown: the line to the next reading may have begun */
    y[p] = x[p];
    for (size_t j = p + 1; j < e; j++)
        y[j] = (long)j <= (long)e - U ? x[p] : NAN;
    if (!known && e - a > 0 && (long)a > (long)e - U)
        y[a] = NAN;   /* a segment shorter than an update, its one reading of unknown time */
}

double *an_dehold(const double *x, size_t n, double update_samples)
{
    double *y = xmalloc((n ? n : 1) * sizeof *y);
    long U = isfinite(update_samples) && update_samples >= 1 ? lround(update_samples) : 1;
    for (size_t a = 0; a < n;) {
        if (isnan(x[a])) {
            y[a++] = NAN;
            continue;
        }
        size_t e = a;
        while (e < n && !isnan(x[e]))
            e++;
        an_dehold_segment(x, y, a, e, U);
        a = e;
    }
    return y;
}

size_t analysis_fold(const double *x, size_t n, double dt, double t0, double shift_s, int distinct_only,
                     const double *starts, size_t k, double *sum, double *cnt, size_t bins)
{
    size_t used = 0, it = 0;
    if (k < 2 || bins < 1 || !(dt > 0))
        return 0;
    /* the iterations' median length: a recovery's or a checkpoint's long one moves a mean (a restart longer than
     * the iterations before it left every iteration under half the mean, and every bin empty, until 2026-12-02) */
    double *len_of = xmalloc((k - 1) * sizeof *len_of);
    for (size_t j = 0; j + 1 < k; j++)
        len_of[j] = starts[j + 1] - starts[j];
    qsort(len_of, k - 1, sizeof *len_of, an_cmp);
    double period = (k - 1) % 2 ? len_of[(k - 1) / 2] : 0.5 * (len_of[(k - 1) / 2 - 1] + len_of[(k - 1) / 2]);
    free(len_of);
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]) || (distinct_only && i > 0 && !isnan(x[i - 1]) && x[i] == x[i - 1]))
            continue;   /* a held copy is no reading of its own */
        double t = t0 + (double)i * dt - shift_s;
        while (it + 1 < k && starts[it + 1] <= t)
            it++;
        if (t < starts[it] || it + 1 >= k)
            continue;   /* before the first iteration, or in the last (its end is not known) */
        double len = starts[it + 1] - starts[it];
        if (!(len > 0.5 * period && len < 1.5 * period))
            continue;   /* an iteration far from the others' length (a recovery, a checkpoint): not this waveform */
        size_t b = (size_t)((t - starts[it]) / len * (double)bins);
        if (b >= bins)
            b = bins - 1;
        sum[b] += x[i];
        cnt[b] += 1;
        used++;
    }
    return used;
}

#define AN_STAMP_LO_S 1e-4
#define AN_STAMP_STEP 1.02

void an_stamp_add(struct an_stamps *st, int64_t t_ns)
{
    if (st->seen && t_ns <= st->last_ns)
        return;   /* the sample already seen (a sensor slower than the sampler repeats its newest), or older */
    if (st->seen) {
        double iv = (double)(t_ns - st->last_ns) * 1e-9;
        double b = floor(log(iv / AN_STAMP_LO_S) / log(AN_STAMP_STEP));
        size_t k = b < 0 ? 0 : b >= AN_STAMP_BINS ? AN_STAMP_BINS - 1 : (size_t)b;
        st->n[k]++;
        st->sum_s[k] += iv;
    }
    st->last_ns = t_ns;
    st->seen = 1;
}

double an_stamp_update_s(const struct an_stamps *st)
{
    if (!st)
        return 0;
    uint64_t total = 0;
    for (size_t b = 0; b < AN_STAMP_BINS; b++)
        total += st->n[b];
    if (total < 8)
        return 0;
    /* the most intervals within 20 % of one (10 bins of 2 %): a sample the sampler missed makes an interval of two
     * updates, rarer than one update's */
    const size_t w = 10;
    uint64_t best = 0, in = 0;
    size_t from = 0;
    for (size_t b = 0; b < AN_STAMP_BINS; b++) {
        in += st->n[b];
        if (b >= w)
            in -= st->n[b - w];
        if (in > best) {
            best = in;
            from = b + 1 >= w ? b + 1 - w : 0;
        }
    }
    double wsum = 0;
    for (size_t b = from; b < from + w && b < AN_STAMP_BINS; b++)
        wsum += st->sum_s[b];
    double mode = wsum / (double)best;   /* the mean of the intervals in that window */
    double sum = 0;
    uint64_t m = 0;
    for (size_t b = 0; b < AN_STAMP_BINS; b++) {
        double mid = st->n[b] ? st->sum_s[b] / (double)st->n[b] : 0;
        if (st->n[b] && mid > 0.4 * mode && mid <= 1.6 * mode) {
            sum += st->sum_s[b];
            m += st->n[b];
        }
    }
    return m ? sum / (double)m : 0;
}

void an_stamp_note(struct an_stamps **st, int64_t t_ns)
{
    if (!t_ns)
        return;
    if (!*st)
        *st = xcalloc(1, sizeof **st);
    an_stamp_add(*st, t_ns);
}
