/* harness/analysis/analyze.c: `gauntlet analyze TRACE.csv` — the power analysis of summary.json on any power trace:
 * gauntlet's power.csv, nvidia-smi's CSV, or any CSV with a time, a GPU and a power column. The trace is checked
 * like a scenario (a bad row is exit 2 naming the file, line and column; a row the analysis can do without is a
 * counted warning, an error with --strict), each GPU is put on one time grid by its timestamps, and the GPUs are
 * summed over the time they all cover. */
#include "analyze.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "analysis.h"
#include "analysis_int.h"
#include "analysis_json.h"
#include "analyze_fields.h"
#include "analyze_int.h"
#include "param.h"
#include "summarize_int.h"
#include "util.h"

const char *const az_warn_names[AZW_N] = { "out_of_order", "duplicates", "out_of_range" };
static const char *const az_warn_text[AZW_N] = {
    "rows out of time order (sorted by time)",
    "repeated rows (same GPU, time and power; kept once)",
    "power readings outside [0, max] W (left out as not measured)",
};

/* Returns the column of the header named one of names (case-insensitive), or -1. */
static int az_column(char **cols, int n, const char *const *names)
{
    for (const char *const *nm = names; *nm; nm++)
        for (int i = 0; i < n; i++)
            if (strcasecmp(cols[i], *nm) == 0)
                return i;
    return -1;
}

/* The slot of id in tr's index of GPUs: where it is, or the empty one where it goes. */
static size_t az_slot(const struct az_trace *tr, long id)
{
    size_t h = (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 17) & (tr->hcap - 1);
    while (tr->hidx[h] && tr->g[tr->hidx[h] - 1].id != id)
        h = (h + 1) & (tr->hcap - 1);
    return h;
}

/* Returns the series of GPU id, made when new: found by a hash of the ids (until 2026-11-30 a search of every GPU
 * made so far: 150,000 GPUs took 47 s). */
static struct az_gpu *az_gpu(struct az_trace *tr, long id)
{
    if (tr->ng && tr->g[tr->ng - 1].id == id)   /* rows often come GPU by GPU */
        return &tr->g[tr->ng - 1];
    if (2 * ((size_t)tr->ng + 1) > tr->hcap) {   /* at most half full: rebuilt twice as large */
        free(tr->hidx);
        tr->hcap = tr->hcap ? 2 * tr->hcap : 64;
        tr->hidx = xcalloc(tr->hcap, sizeof *tr->hidx);
        for (int k = 0; k < tr->ng; k++)
            tr->hidx[az_slot(tr, tr->g[k].id)] = k + 1;
    }
    size_t h = az_slot(tr, id);
    if (tr->hidx[h])
        return &tr->g[tr->hidx[h] - 1];
    tr->hidx[h] = tr->ng + 1;
    if (tr->ng == tr->cap) {
        tr->cap = tr->cap ? 2 * tr->cap : 16;
        tr->g = xrealloc(tr->g, (size_t)tr->cap * sizeof *tr->g);
    }
    tr->g[tr->ng] = (struct az_gpu){ .id = id };
    return &tr->g[tr->ng++];
}

/* Counts a warning of kind k at line. */
static void az_warn(struct az_trace *tr, int k, long line)
{
    if (!tr->warn[k]++)
        tr->warn_line[k] = line;
}

/* Reads the trace into per-GPU series. 0, or EXIT_INPUT with a message naming the file and line. */
static int az_read(struct az_trace *tr)
{
    static const char *const tnames[] = { "t_s", "time", "timestamp", "time_s", NULL };
    static const char *const gnames[] = { "rank", "gpu", "index", "gpuid", "gpu_id", "entity", "entityid", NULL };
    /* the instantaneous columns before the averaged ones where a file has both: on Ampere and newer GPUs
     * nvidia-smi's power.draw and DCGM's field 155 are 1 s averages (power.draw.instant, field 157 are not) */
    static const char *const wnames[] = { "watts", "power.draw.instant [w]", "power.draw.instant",
                                          "dcgm_fi_dev_power_usage_instant", "power.draw [w]", "power.draw", "power_w",
                                          "power", "power_usage", "dcgm_fi_dev_power_usage", NULL };
    static const char *const averaged[] = { "power.draw [w]", "power.draw", "dcgm_fi_dev_power_usage", NULL };
    const char *path = tr->path;
    FILE *f = fopen_regular(path, "r");   /* a FIFO or a device would block or never end: refused at once */
    if (!f) {
        fprintf(stderr, "gauntlet analyze: %s: %s\n", path,
                errno == EINVAL ? "not a regular file (a trace is read from a file)" : strerror(errno));
        return EXIT_INPUT;
    }
    static const char *const snames[] = { "sample_t_s", NULL };   /* gauntlet's power.csv: the sensor's stamps */
    char line[4096], *cols[64];
    int nc = 0, ct = -1, cg = -1, cw = -1, cs = -1, rc = 0;
    long lineno = 0;
    tr->absolute = -1;
    while (!rc && fgets(line, sizeof line, f)) {
        if (tr->whole > 0 && ftello(f) > tr->whole)
            break;   /* past the last whole row (analyze_load_rows) */
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {   /* a NUL byte ends the text fgets gave: said as what it is */
            fprintf(stderr, strlen(line) < sizeof line - 1 ? "gauntlet analyze: %s:%ld: a NUL byte in the line (a trace "
                            "is text)\n" : "gauntlet analyze: %s:%ld: a line longer than 4094 characters\n", path, lineno);
            rc = EXIT_INPUT;
            break;
        }
        char *text = line;
        if (lineno == 1 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
            text += 3;   /* a UTF-8 byte-order mark, as spreadsheets and Windows tools write */
        if (text[0] == '#' || text[strspn(text, " \t\r\n")] == 0)
            continue;
        const char *why;
        int n = analyze_split(text, cols, 64, &why);   /* a quoted field keeps its commas */
        if (n < 0) {
            fprintf(stderr, "gauntlet analyze: %s:%ld: %s\n", path, lineno, why);
            rc = EXIT_INPUT;
            break;
        }
        if (n > 64) {   /* a 65th column: never dropped without a word (its time or power column unseen) */
            fprintf(stderr, "gauntlet analyze: %s:%ld: more than 64 columns (a trace has a time, a GPU and a power "
                            "column, and a few more)\n", path, lineno);
            rc = EXIT_INPUT;
            break;
        }
        if (ct < 0 && cw < 0) {   /* the header */
            nc = n;
            ct = az_column(cols, n, tnames);
            cg = az_column(cols, n, gnames);
            cw = az_column(cols, n, wnames);
            cs = az_column(cols, n, snames);
            if (cw >= 0) {
                str_copy(tr->column, sizeof tr->column, cols[cw]);
                tr->averaged = az_column(cols + cw, 1, averaged) == 0;
            }
            if (ct < 0 || cw < 0) {
                fprintf(stderr,
                        "gauntlet analyze: %s:%ld: expected a header with a time column (t_s, time, timestamp) and a "
                        "power column (watts, power.draw [W], power_usage, DCGM_FI_DEV_POWER_USAGE)\n",
                        path, lineno);
                rc = EXIT_INPUT;
            }
            continue;
        }
        if (n != nc) {   /* more: a field holding an unquoted comma (a decimal comma, a time's milliseconds) shifts
                          * the columns after it, and its row read another column's figures (until 2026-11-30) */
            fprintf(stderr, "gauntlet analyze: %s:%ld: expected %d columns as the header has, got %d%s\n", path, lineno,
                    nc, n, n > nc ? " (a field that holds a comma must be in double quotes)" : "");
            rc = EXIT_INPUT;
            break;
        }
        int64_t t;
        int absolute;
        if (analyze_time(cols[ct], &t, &absolute, &why) != 0) {
            fprintf(stderr, "gauntlet analyze: %s:%ld: column %d (time): %s, got '%s'\n", path, lineno, ct + 1, why,
                    cols[ct]);
            rc = EXIT_INPUT;
            break;
        }
        if (tr->absolute >= 0 && absolute != tr->absolute) {
            fprintf(stderr, "gauntlet analyze: %s:%ld: column %d (time): '%s' is %s, but the rows before give %s\n", path,
                    lineno, ct + 1, cols[ct], absolute ? "a timestamp" : "seconds", absolute ? "seconds" : "timestamps");
            rc = EXIT_INPUT;
            break;
        }
        tr->absolute = absolute;
        long id = 0;
        if (cg >= 0) {
            char *end;
            errno = 0;
            long v = strtol(cols[cg], &end, 10);
            if (end == cols[cg] || *end || errno || v < 0 || v > INT_MAX) {
                fprintf(stderr, "gauntlet analyze: %s:%ld: column %d (GPU): expected a GPU index (an integer >= 0), got "
                                "'%s'\n", path, lineno, cg + 1, cols[cg]);
                rc = EXIT_INPUT;
                break;
            }
            id = v;
        }
        double w = NAN;
        int got = analyze_power(cols[cw], &w);
        if (got < 0) {
            fprintf(stderr, "gauntlet analyze: %s:%ld: column %d (power): expected watts (a decimal number, 'W' after "
                            "it allowed) or an empty field / [N/A] for no reading, got '%s'\n", path, lineno, cw + 1,
                    cols[cw]);
            rc = EXIT_INPUT;
            break;
        }
        if (!got)
            tr->missing++;
        else if (w < 0 || w > tr->max_w) {
            az_warn(tr, AZW_RANGE, lineno);
            w = NAN;
        }
        struct az_gpu *g = az_gpu(tr, id);
        if (cs >= 0 && cols[cs][0]) {   /* the sample's own time: an empty field is a source that stamps none */
            int64_t st;
            int st_abs;
            if (analyze_time(cols[cs], &st, &st_abs, &why) != 0) {
                fprintf(stderr, "gauntlet analyze: %s:%ld: column %d (sample_t_s): %s, got '%s'\n", path, lineno,
                        cs + 1, why, cols[cs]);
                rc = EXIT_INPUT;
                break;
            }
            if (!g->stamps)   /* a stamp of 0 s is a stamp here (an_stamp_note takes 0 for none) */
                g->stamps = xcalloc(1, sizeof *g->stamps);
            an_stamp_add(g->stamps, st);
        }
        if (g->n == g->cap) {
            g->cap = g->cap ? 2 * g->cap : 4096;
            g->s = xrealloc(g->s, g->cap * sizeof *g->s);
        }
        g->s[g->n++] = (struct az_sample){ t, w, lineno };
        g->valid += !isnan(w);
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "gauntlet analyze: %s: read error: %s\n", path, strerror(errno));
        rc = EXIT_INPUT;
    }
    fclose(f);
    if (!rc && !tr->ng) {
        fprintf(stderr, "gauntlet analyze: %s: no samples (a header and no rows after it)\n", path);
        rc = EXIT_INPUT;
    }
    return rc;
}

/* Orders samples by time, then by line (a stable sort). */
static int az_by_time(const void *a, const void *b)
{
    const struct az_sample *x = a, *y = b;
    return x->t != y->t ? (x->t > y->t) - (x->t < y->t) : (x->line > y->line) - (x->line < y->line);
}

/* Sorts each GPU's samples by time (counted), keeps one of repeated rows (counted), and refuses two different
 * readings of one GPU at one time. 0, or EXIT_INPUT. */
static int az_order(struct az_trace *tr)
{
    for (int k = 0; k < tr->ng; k++) {
        struct az_gpu *g = &tr->g[k];
        long late = 0, first = 0;
        for (size_t i = 1; i < g->n; i++)
            if (g->s[i].t < g->s[i - 1].t && !late++)
                first = g->s[i].line;
        if (late) {
            qsort(g->s, g->n, sizeof *g->s, az_by_time);
            tr->warn[AZW_ORDER] += late;
            if (!tr->warn_line[AZW_ORDER] || first < tr->warn_line[AZW_ORDER])
                tr->warn_line[AZW_ORDER] = first;
        }
        size_t out = 0;
        for (size_t i = 0; i < g->n; i++) {
            if (out && g->s[i].t == g->s[out - 1].t) {
                const struct az_sample *a = &g->s[out - 1], *b = &g->s[i];
                if (a->w == b->w || (isnan(a->w) && isnan(b->w))) {
                    az_warn(tr, AZW_DUPLICATE, b->line);
                    g->valid -= !isnan(b->w);
                    continue;
                }
                fprintf(stderr, "gauntlet analyze: %s:%ld: GPU %ld has two different readings at one time: %.6g W "
                                "here and %.6g W at line %ld\n", tr->path, b->line, g->id, b->w, a->w, a->line);
                return EXIT_INPUT;
            }
            g->s[out++] = g->s[i];
        }
        g->n = out;
        if (!g->valid) {
            fprintf(stderr, "gauntlet analyze: %s:%ld: GPU %ld has no valid power reading in the whole trace\n", tr->path,
                    g->s[0].line, g->id);
            return EXIT_INPUT;
        }
    }
    return 0;
}

void analyze_free(struct az_trace *tr)
{
    for (int k = 0; tr && !tr->view && k < tr->ng; k++) {
        free(tr->g[k].s);
        free(tr->g[k].stamps);
    }
    if (tr)
        free(tr->g);
    free(tr);
}

/* Checks the options against their stated ranges (docs/power.md; 0 is "not given" where the command line cannot
 * give it: a caller that projects nothing, the machine's cores, the median interval): 0, or EXIT_INPUT naming the
 * option. */
static int az_check_opts(const struct az_opts *o)
{
    const struct { const char *name; double v, lo, hi; const char *unit, *want; } r[] = {
        { "gpus", o->gpus ? (double)o->gpus : 1, 1, 1e7, "", "an integer from 1 to 10000000" },
        { "groups", o->groups ? (double)o->groups : 1, 1, o->gpus ? (double)o->gpus : 1, "",
          "an integer from 1 to --gpus" },
        { "threads", (double)o->threads, 0, 1024, "", "an integer from 1 to 1024" },
        { "jitter", o->jitter, 0, 3600, " s", "a duration from 0 to 1h" },
        { "hz", o->hz ? o->hz : 1, 0.001, 1e6, "", "a rate from 0.001 to 1e6 Hz" },
        { "max-w", o->max_w, 1e-9, 1e9, "", "watts above 0, at most 1e9" },
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (!(r[i].v >= r[i].lo && r[i].v <= r[i].hi)) {
            fprintf(stderr, "gauntlet analyze: --%s %.15g%s: expected %s\n", r[i].name, r[i].v, r[i].unit, r[i].want);
            return EXIT_INPUT;
        }
    return 0;
}

/* analyze_load of the rows that end within the first whole bytes (0: all). */
static struct az_trace *az_load(const struct az_opts *o, const char *path, int64_t whole, int *rc)
{
    if ((*rc = az_check_opts(o)) != 0)
        return NULL;
    struct az_trace *tr = xcalloc(1, sizeof *tr);
    *tr = (struct az_trace){ .path = path, .max_w = o->max_w, .whole = whole };
    *rc = az_read(tr);
    free(tr->hidx);   /* the index is the reading's: views share the rest */
    tr->hidx = NULL;
    if (!*rc)
        *rc = az_order(tr);
    for (int k = 0; !*rc && o->strict && k < AZW_N; k++)
        if (tr->warn[k]) {
            fprintf(stderr, "gauntlet analyze: %s:%ld: %ld %s, first here (--strict)\n", path, tr->warn_line[k],
                    tr->warn[k], az_warn_text[k]);
            *rc = EXIT_INPUT;
        }
    if (*rc) {
        analyze_free(tr);
        return NULL;
    }
    for (int k = 0; k < AZW_N; k++)
        if (tr->warn[k])
            fprintf(stderr, "gauntlet analyze: %s:%ld: warning: %ld %s, first here\n", path, tr->warn_line[k],
                    tr->warn[k], az_warn_text[k]);
    if (tr->averaged)
        fprintf(stderr, "gauntlet analyze: %s: warning: %s\n", path, AZ_AVERAGED_NOTE);
    return tr;
}

struct az_trace *analyze_load(const struct az_opts *o, const char *path, int *rc) { return az_load(o, path, 0, rc); }

struct az_trace *analyze_load_rows(const struct az_opts *o, const char *path, int *rc)
{
    FILE *f = fopen_regular(path, "r");
    if (!f) {
        fprintf(stderr, "gauntlet analyze: %s: %s\n", path,
                errno == EINVAL ? "not a regular file (a trace is read from a file)" : strerror(errno));
        *rc = EXIT_INPUT;
        return NULL;
    }
    int64_t size, whole, content;
    int e = sz_tail(fileno(f), &size, &whole, &content) != 0 ? errno : 0;
    fclose(f);
    if (e) {
        fprintf(stderr, "gauntlet analyze: %s: cannot read: %s\n", path, strerror(e));
        *rc = EXIT_ENV;
        return NULL;
    }
    if (whole == 0) {
        fprintf(stderr, "gauntlet analyze: %s: no whole row (no newline%s)\n", path,
                size > content ? "; NUL bytes at its end" : "");
        *rc = EXIT_INPUT;
        return NULL;
    }
    if (content > whole)
        fprintf(stderr, "gauntlet analyze: %s: its last row has no newline (cut short when the run was killed): "
                        "ignored\n", path);
    if (size > content)
        fprintf(stderr, "gauntlet analyze: %s: %lld NUL byte(s) at its end (what a crash leaves): ignored\n", path,
                (long long)(size - content));
    struct az_trace *tr = az_load(o, path, whole < size ? whole : 0, rc);
    if (tr)
        tr->own = 1;
    return tr;
}

/* The update interval of GPU g's readings at its own rate (as an_sensor_measure measures it), where they are held
 * there; 0 where not, or too few. For a GPU filtered onto a slower grid (--hz): the filter mixes neighbouring
 * readings, and the grid's trace no longer shows them held (a 100 ms sensor logged at 100 Hz, analysed at 20 Hz, read
 * as a signal: its 100 ms ramp and its 7-20 Hz band, null on its own grid, got numbers). */
static double az_raw_update_s(const struct az_gpu *g, double period_s)
{
    double gh = az_gpu_hz(g);
    if (g->n < 16 || !(gh > 0))
        return 0;
    struct an_grid gr = an_grid_of_hz(g->s[0].t, gh);
    double span = (double)(g->s[g->n - 1].t - g->s[0].t) * 1e-9 * gh;
    if (!(span >= 0) || span > 4.0 * (double)g->n + 16)   /* samples far apart: no rate of their own to measure at */
        return 0;
    size_t m = (size_t)span + 2;
    int64_t *t = xmalloc(g->n * sizeof *t);
    double *w = xmalloc(g->n * sizeof *w), *x = xmalloc(m * sizeof *x), u = 0;
    for (size_t i = 0; i < g->n; i++) {
        t[i] = g->s[i].t;
        w[i] = g->s[i].w;
    }
    size_t distinct = 0, lo, hi;
    analysis_place(&gr, t, w, g->n, x, m, NULL);
    an_sensor_measure(x, m, 1 / gh, &u, &distinct);
    /* held as analysis_run judges a series: over 1.5 samples, and more than four levels or three changes a cycle
     * (a noiseless square wave at 1 kHz, flat in each phase, read as a 250 ms sensor here until 2026-11-30) */
    an_span(x, m, &lo, &hi);
    double mean = 0;
    size_t nv = 0;
    for (size_t i = lo; i < hi; i++)
        if (!isnan(x[i])) {
            mean += x[i];
            nv++;
        }
    struct an_series rs = { x, m, 1 / gh, 0, period_s };
    int held = nv && an_series_held(&rs, lo, hi, mean / (double)nv, u);
    free(t);
    free(w);
    free(x);
    return held ? u : 0;
}

int analyze_window(const struct az_opts *o, const struct az_trace *all, const char *title, int64_t lo, int64_t hi,
                   json_t **json_out)
{
    int json = o->json;
    int64_t gpus = o->gpus, groups = o->groups;
    int threads = (int)o->threads;   /* 0..1024 (az_check_opts) */
    double jitter = o->jitter, hz = o->hz;
    const char *path = title;
    int rc = az_check_opts(o);
    if (rc)
        return rc;
    struct az_trace tr;
    char why[256] = "";
    rc = az_window(all, lo, hi, title, &tr, why, sizeof why);
    tr.decimated = 0;
    double median_hz = NAN;
    struct an_grid grid = { 0 };
    int64_t t0 = INT64_MAX, t1 = INT64_MIN, common0 = INT64_MIN, common1 = INT64_MAX;
    for (int k = 0; !rc && k < tr.ng; k++) {
        const struct az_gpu *g = &tr.g[k];
        t0 = g->s[0].t < t0 ? g->s[0].t : t0;
        t1 = g->s[g->n - 1].t > t1 ? g->s[g->n - 1].t : t1;
        common0 = g->s[0].t > common0 ? g->s[0].t : common0;
        common1 = g->s[g->n - 1].t < common1 ? g->s[g->n - 1].t : common1;
    }
    if (!rc && common0 > common1) {
        snprintf(why, sizeof why, "the GPUs' traces share no time (the latest start is %.3f s after the earliest end): "
                 "nothing to sum", ((double)common0 - (double)common1) * 1e-9);
        fprintf(stderr, "gauntlet analyze: %s: %s\n", path, why);
        rc = EXIT_INPUT;
    }
    if (!rc && (rc = az_grid(&tr, hz, t0, &grid, &median_hz)) != 0)
        snprintf(why, sizeof why, "too few samples: fewer than two at distinct times, no grid to analyse them on");
    size_t m = 0;
    if (!rc && (rc = az_points(&tr, &grid, t0, t1, &threads, &m)) != 0)   /* bounded: a row far from the rest is refused */
        snprintf(why, sizeof why, "its samples make too large a grid (a gap or a span too long: said on stderr)");
    if (rc) {
        if (o->why)
            snprintf(o->why, o->why_n, "%s", why[0] ? why : "the options given cannot analyse it (said on stderr)");
        free(tr.g);
        return rc;
    }
    double dt = an_grid_dt(&grid);
    /* a grid slower than a GPU's samples: that GPU's filtered onto it. Each GPU by its own rate: a forwarded
     * cluster's node 0 logs faster than the others, and outnumbered by them it was placed unfiltered */
    double fastest = 0, grid_hz = dt > 0 ? 1 / dt : 0;
    char *lowpass = xcalloc((size_t)tr.ng, 1);
    double *own = xcalloc((size_t)tr.ng, sizeof *own);   /* each GPU's own rate */
    /* the grid given (--hz, a run's) or taken from the samples: a grid of the pooled intervals is the slower GPUs'
     * where they outnumber a faster one, which until 2026-11-30 was left point-sampled without --hz (its ripple
     * aliased, unsaid) */
    for (int k = 0; k < tr.ng && grid_hz > 0; k++) {
        own[k] = az_gpu_hz(&tr.g[k]);
        if ((lowpass[k] = own[k] > 1.5 * grid_hz)) {
            tr.decimated++;
            fastest = fmax(fastest, own[k]);
        }
    }
    if (tr.decimated)
        fprintf(stderr, "gauntlet analyze: %s: warning: %s%.6g%s is slower than %s%.4g Hz: each grid point is "
                        "the mean of the samples within a step of it, weighted by their distance (a low-pass: power "
                        "above %g Hz is weakened, to 40%% at %g Hz and 5%% at %g Hz, not removed; what is left of it "
                        "aliases into the spectrum: dominant_hz, bands)\n", path,
                o->hz_run ? "the run's grid (its other nodes' rows come at its forward_hz), " : hz > 0 ? "--hz "
                          : "the grid (the samples' median interval, no --hz), ", grid_hz,
                o->hz_run || !(hz > 0) ? " Hz," : "", tr.decimated == tr.ng ? "the trace's " : "the samples of some GPUs, up to ",
                fastest, grid_hz / 2, grid_hz / 2, 0.8 * grid_hz);
    double *grids = xmalloc((size_t)tr.ng * m * sizeof *grids);
    size_t merged = 0;
    for (int k = 0; k < tr.ng; k++) {
        const struct az_gpu *g = &tr.g[k];
        int64_t *t = xmalloc(g->n * sizeof *t);
        double *w = xmalloc(g->n * sizeof *w);
        for (size_t i = 0; i < g->n; i++) {
            t[i] = g->s[i].t;
            w[i] = g->s[i].w;
        }
        size_t mk = 0;
        if (lowpass[k])
            analysis_place_lowpass(&grid, t, w, g->n, grids + (size_t)k * m, m, 1e9 / own[k], &mk);
        else
            analysis_place(&grid, t, w, g->n, grids + (size_t)k * m, m, &mk);
        merged += mk;
        free(t);
        free(w);
    }
    /* the sum over the time every GPU covers: a point where any GPU has no sample is a gap of the sum */
    double *agg = xmalloc(m * sizeof *agg), *per = xmalloc(m * sizeof *per);
    for (size_t i = 0; i < m; i++) {
        double sum = 0;
        for (int k = 0; k < tr.ng; k++)
            sum += grids[(size_t)k * m + i];
        agg[i] = sum;
        per[i] = sum / tr.ng;
    }
    struct an_series *ser = xmalloc((size_t)(tr.ng + 1) * sizeof *ser);
    struct an_result *res = xmalloc((size_t)(tr.ng + 1) * sizeof *res);
    double period = o->period_s > 0 ? o->period_s : 0;
    for (int k = 0; k < tr.ng; k++) {   /* a GPU whose sensor stamps its samples: its update interval from them */
        double u = an_stamp_update_s(tr.g[k].stamps);
        if (!(u > 0) && lowpass[k])   /* filtered onto the grid: its readings held as they came, measured there */
            u = az_raw_update_s(&tr.g[k], period);
        ser[k] = (struct an_series){ grids + (size_t)k * m, m, dt, u, period };
    }
    struct an_band bands[AN_MAX_BANDS];   /* the default bands, and a spec's own band where it is none of them */
    int nb = analysis_bands_with_spec(o->spec, bands);
    analysis_run_many(ser, (size_t)tr.ng, bands, nb, res, threads);
    double update = an_sum_update_s(res, (size_t)tr.ng);   /* the sum's sensor: the slowest held, or none */
    ser[tr.ng] = (struct an_series){ agg, m, dt, update, period };
    analysis_run(&ser[tr.ng], bands, nb, &res[tr.ng]);
    const struct an_result *ares = &res[tr.ng];
    rc = EXIT_OK;
    if (!ares->samples) {
        if (o->why)
            snprintf(o->why, o->why_n, "no time at which every GPU has a valid reading: nothing to sum");
        fprintf(stderr, "gauntlet analyze: %s: no time at which every GPU has a valid reading: nothing to sum\n", path);
        rc = EXIT_INPUT;
    }
    struct an_projection proj;
    struct an_series ps = { per, m, dt, update, period };
    if (!rc)   /* failed: proj.why says why, its figures NAN (az_print: null, never zeros) */
        analysis_project(&ps, (long)gpus, (long)groups, jitter, o->seed_set || o->seed ? o->seed : 1, bands, nb,
                         &proj);
    if (!rc)
        rc = az_print(title, &tr, res, &proj, m, dt, median_hz, merged, json, gpus, o->spec, json_out);
    free(tr.g);
    free(grids);
    free(lowpass);
    free(own);
    free(ser);
    free(res);
    free(agg);
    free(per);
    return rc;
}

int analyze_file(const struct az_opts *o, const char *path, json_t **json_out)
{
    int rc;
    struct az_trace *tr = analyze_load(o, path, &rc);
    if (tr) {
        rc = analyze_window(o, tr, path, INT64_MIN, INT64_MAX, json_out);
        analyze_free(tr);
    }
    return rc;
}

int analyze_shift(struct az_trace *tr, int64_t by_ns)
{
    if (tr->absolute != 1)
        return 0;
    for (int k = 0; k < tr->ng; k++)   /* held at the ends of int64 for a shift no clock gives (the order kept) */
        for (size_t i = 0; i < tr->g[k].n; i++)
            tr->g[k].s[i].t = az_sub_sat(tr->g[k].s[i].t, by_ns);
    return 1;
}
