/* harness/analyze.c: `gauntlet analyze TRACE.csv` — the power analysis of summary.json on any power trace:
 * gauntlet's power.csv, nvidia-smi's CSV, or any CSV with a time, a GPU and a power column; and
 * `gauntlet bench analysis`, which times the analysis on a synthetic trace of a given size. */
#include "analyze.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis.h"
#include "analysis_json.h"
#include "param.h"
#include "util.h"

#define AZ_MAX_GPUS 1024

struct az_gpu {
    long id;
    double *t, *w;
    size_t n, cap;
};

/* Trims spaces and quotes around a CSV field in place. */
static char *az_trim(char *s)
{
    while (isspace((unsigned char)*s) || *s == '"')
        s++;
    size_t n = strlen(s);
    while (n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == '"'))
        s[--n] = 0;
    return s;
}

/* Returns the column of the header named one of names (case-insensitive), or -1. */
static int az_column(char **cols, int n, const char *const *names)
{
    for (const char *const *nm = names; *nm; nm++)
        for (int i = 0; i < n; i++)
            if (strcasecmp(cols[i], *nm) == 0)
                return i;
    return -1;
}

/* Parses a time: seconds ("12.5"), or a timestamp "YYYY/MM/DD HH:MM:SS.fff" / "YYYY-MM-DDTHH:MM:SS.fff". */
static double az_time(const char *s)
{
    int y, mo, d, h, mi;
    double sec;
    if (sscanf(s, "%d%*[/-]%d%*[/-]%d%*[ T]%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) == 6)
        return ((double)d * 24 + h) * 3600 + mi * 60 + sec;   /* relative times are all that matter */
    char *end;
    double v = strtod(s, &end);
    return end == s ? NAN : v;
}

/* Appends a sample to gpu id's series. */
static void az_add(struct az_gpu *g, int *ng, long id, double t, double w)
{
    int k;
    for (k = 0; k < *ng && g[k].id != id; k++)
        ;
    if (k == *ng) {
        if (*ng == AZ_MAX_GPUS)
            return;
        g[(*ng)++] = (struct az_gpu){ .id = id };
    }
    struct az_gpu *x = &g[k];
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 4096;
        x->t = xrealloc(x->t, x->cap * sizeof *x->t);
        x->w = xrealloc(x->w, x->cap * sizeof *x->w);
    }
    x->t[x->n] = t;
    x->w[x->n++] = w;
}

/* Reads the trace into per-GPU series. 0, or EXIT_INPUT with a message naming the file and line. */
static int az_read(const char *path, struct az_gpu *g, int *ng)
{
    static const char *const tnames[] = { "t_s", "time", "timestamp", "time_s", NULL };
    static const char *const gnames[] = { "rank", "gpu", "index", "gpuid", "gpu_id", "entity", "entityid", NULL };
    static const char *const wnames[] = { "watts", "power.draw [w]", "power.draw", "power_w", "power",
                                          "power_usage", "dcgm_fi_dev_power_usage", "power.draw.instant [w]", NULL };
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gauntlet: analyze: %s: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    char line[4096], *cols[64];
    int nc = 0, ct = -1, cg = -1, cw = -1;
    long lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
            continue;
        int n = 0;
        for (char *tok = line, *next; tok && n < 64; tok = next) {
            next = strchr(tok, ',');
            if (next)
                *next++ = 0;
            cols[n++] = az_trim(tok);
        }
        if (ct < 0 && cw < 0) {   /* the header */
            nc = n;
            ct = az_column(cols, n, tnames);
            cg = az_column(cols, n, gnames);
            cw = az_column(cols, n, wnames);
            if (ct < 0 || cw < 0) {
                fprintf(stderr,
                        "gauntlet: analyze: %s:%ld: expected a header with a time column (t_s, time, timestamp) and a "
                        "power column (watts, power.draw [W], power_usage, DCGM_FI_DEV_POWER_USAGE)\n",
                        path, lineno);
                fclose(f);
                return EXIT_INPUT;
            }
            continue;
        }
        if (n < nc) {
            fprintf(stderr, "gauntlet: analyze: %s:%ld: expected %d columns, got %d\n", path, lineno, nc, n);
            fclose(f);
            return EXIT_INPUT;
        }
        double t = az_time(cols[ct]);
        char *end;
        double w = strtod(cols[cw], &end);
        if (end == cols[cw])
            w = NAN;   /* empty, "[N/A]": not measured */
        long id = cg >= 0 ? strtol(cols[cg], NULL, 10) : 0;
        if (isnan(t)) {
            fprintf(stderr, "gauntlet: analyze: %s:%ld: column %d: expected a time, got '%s'\n", path, lineno, ct + 1,
                    cols[ct]);
            fclose(f);
            return EXIT_INPUT;
        }
        az_add(g, ng, id, t, w);
    }
    fclose(f);
    if (!*ng) {
        fprintf(stderr, "gauntlet: analyze: %s: no samples\n", path);
        return EXIT_INPUT;
    }
    return 0;
}

/* Orders doubles for qsort. */
static int az_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Prints one row of the text table. */
static void az_row(const char *name, const struct an_result *r)
{
    printf("  %-9s %9.1f %9.1f %9.1f %9.1f %9.1f %11.0f %11.0f %8.2f\n", name, r->mean_w, r->min_w, r->max_w, r->swing_w,
           r->swing_p99_p1_w, r->ramp_up_w_s[1], r->ramp_down_w_s[1], r->dominant_hz);
}

int analyze_main(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0;
    int64_t gpus = 10000, groups = 1;
    double jitter = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--gpus") == 0 && i + 1 < argc && parse_int(argv[i + 1], &gpus) == 0 && gpus > 0)
            i++;
        else if (strcmp(argv[i], "--groups") == 0 && i + 1 < argc && parse_int(argv[i + 1], &groups) == 0 && groups > 0)
            i++;
        else if (strcmp(argv[i], "--jitter") == 0 && i + 1 < argc && parse_duration(argv[i + 1], &jitter) == 0)
            i++;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "gauntlet: analyze: bad argument '%s' (usage: analyze TRACE.csv [--gpus N] [--groups G] "
                            "[--jitter DURATION] [--json])\n", argv[i]);
            return EXIT_INPUT;
        }
    }
    if (!path) {
        fprintf(stderr, "gauntlet: analyze: expected a trace file\n");
        return EXIT_INPUT;
    }
    struct az_gpu *g = xcalloc(AZ_MAX_GPUS, sizeof *g);
    int ng = 0, rc = az_read(path, g, &ng);
    if (rc)
        return free(g), rc;
    /* the sampling step: the median interval of the first GPU */
    double *d = xmalloc((g[0].n + 1) * sizeof *d);
    size_t nd = 0;
    for (size_t i = 1; i < g[0].n; i++)
        if (g[0].t[i] > g[0].t[i - 1])
            d[nd++] = g[0].t[i] - g[0].t[i - 1];
    qsort(d, nd, sizeof *d, az_cmp);
    double dt = nd ? d[nd / 2] : 0;
    free(d);
    if (!(dt > 0)) {
        fprintf(stderr, "gauntlet: analyze: %s: the time column does not advance\n", path);
        return EXIT_INPUT;
    }
    double **grid = xcalloc((size_t)ng, sizeof *grid);
    size_t m = SIZE_MAX;
    for (int k = 0; k < ng; k++) {
        size_t mk = analysis_resample(g[k].t, g[k].w, g[k].n, dt, &grid[k]);
        if (mk < m)
            m = mk;
    }
    double *agg = xcalloc(m, sizeof *agg), *per = xcalloc(m, sizeof *per);
    for (size_t i = 0; i < m; i++) {
        for (int k = 0; k < ng; k++)
            agg[i] += grid[k][i];
        per[i] = agg[i] / ng;
    }
    struct an_result res, ares;
    struct an_series as = { agg, m, dt }, ps = { per, m, dt };
    analysis_run(&as, an_default_bands, 4, &ares);
    struct an_projection proj;
    analysis_project(&ps, (long)gpus, (long)groups, jitter, 1, an_default_bands, 4, &proj);
    if (json) {
        json_t *pg = json_array();
        for (int k = 0; k < ng; k++) {
            struct an_series s = { grid[k], m, dt };
            analysis_run(&s, an_default_bands, 4, &res);
            json_t *o = analysis_power_json(&res, NAN);
            json_object_set_new(o, "gpu", json_integer(g[k].id));
            json_array_append_new(pg, o);
        }
        struct an_spec none = { 0 };
        json_t *a = analysis_power_json(&ares, NAN);
        json_object_set_new(a, "projection", analysis_projection_json(&proj, &none));
        json_t *out = json_pack("{s:s, s:f, s:I, s:o, s:o}", "trace", path, "dt_s", dt, "samples", (json_int_t)m,
                                "aggregate", a, "per_gpu", pg);
        char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(8));
        puts(text);
        free(text);
        json_decref(out);
    } else {
        printf("%s: %d GPU(s), %zu samples each at %.4g s\n", path, ng, m, dt);
        printf("  %-9s %9s %9s %9s %9s %9s %11s %11s %8s\n", "gpu", "mean_W", "min_W", "max_W", "swing_W", "p99-p1",
               "up_W/s", "down_W/s", "dom_Hz");
        for (int k = 0; k < ng; k++) {
            char name[32];
            struct an_series s = { grid[k], m, dt };
            analysis_run(&s, an_default_bands, 4, &res);
            snprintf(name, sizeof name, "%ld", g[k].id);
            az_row(name, &res);
        }
        az_row("sum", &ares);
        printf("  (ramps over 100 ms)\n  bands of the sum:");
        for (int b = 0; b < ares.n_bands; b++)
            printf("  %g-%g Hz %.1f%%", ares.bands[b].lo_hz, ares.bands[b].hi_hz, 100 * ares.bands[b].share);
        printf("\n  projected to %lld GPUs in %lld group(s): swing %.2f MW, ramp up %.2f MW/s, down %.2f MW/s (1 s), "
               "mean %.2f MW\n", (long long)gpus, (long long)proj.groups, proj.swing_mw, proj.ramp_up_mw_s,
               proj.ramp_down_mw_s, proj.mean_mw);
    }
    for (int k = 0; k < ng; k++) {
        free(grid[k]);
        free(g[k].t);
        free(g[k].w);
    }
    free(grid);
    free(g);
    free(agg);
    free(per);
    return EXIT_OK;
}

int bench_analysis_main(int argc, char **argv)
{
    double seconds = 3600, hz = 1000;
    int64_t gpus = 8;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc && parse_duration(argv[i + 1], &seconds) == 0)
            i++;
        else if (strcmp(argv[i], "--gpus") == 0 && i + 1 < argc && parse_int(argv[i + 1], &gpus) == 0 && gpus > 0)
            i++;
        else {
            fprintf(stderr, "gauntlet: bench analysis: bad argument '%s' (--seconds DURATION, --gpus N)\n", argv[i]);
            return EXIT_INPUT;
        }
    }
    size_t n = (size_t)(seconds * hz);
    double dt = 1 / hz;
    struct rng r;
    rng_seed(&r, 1, 2);
    double **x = xcalloc((size_t)gpus, sizeof *x), *agg = xcalloc(n, sizeof *agg);
    for (int k = 0; k < gpus; k++) {   /* a training-like trace: 0.5 s compute at 780 W, 0.2 s comm at 130 W */
        x[k] = xmalloc(n * sizeof **x);
        for (size_t i = 0; i < n; i++)
            x[k][i] = (fmod((double)i * dt, 0.7) < 0.5 ? 780 : 130) + 5 * rng_normal(&r);
    }
    uint64_t t0 = mono_ns();
    struct an_result res;
    for (int k = 0; k < gpus; k++) {
        struct an_series s = { x[k], n, dt };
        analysis_run(&s, an_default_bands, 4, &res);
        for (size_t i = 0; i < n; i++)
            agg[i] += x[k][i];
    }
    struct an_series as = { agg, n, dt };
    analysis_run(&as, an_default_bands, 4, &res);
    double t_an = (double)(mono_ns() - t0) * 1e-9;
    for (size_t i = 0; i < n; i++)
        agg[i] /= (double)gpus;
    struct an_projection p;
    uint64_t t1 = mono_ns();
    analysis_project(&as, 100000, 1000, 0.05, 1, an_default_bands, 4, &p);
    double t_pr = (double)(mono_ns() - t1) * 1e-9;
    printf("# gauntlet bench analysis: synthetic trace, %lld GPUs x %.0f s at %.0f Hz (%zu samples each)\n",
           (long long)gpus, seconds, hz, n);
    printf("analysis of %lld GPUs and their sum: %.3f s\n", (long long)gpus, t_an);
    printf("projection to 100000 GPUs in 1000 groups (jitter 50 ms): %.3f s (swing %.1f MW)\n", t_pr, p.swing_mw);
    for (int k = 0; k < gpus; k++)
        free(x[k]);
    free(x);
    free(agg);
    return EXIT_OK;
}
