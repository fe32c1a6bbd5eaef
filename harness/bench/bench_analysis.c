/* harness/bench/bench_analysis.c: `gauntlet bench analysis` — times the power analysis of a synthetic trace (every
 * GPU and their sum, on the machine's cores) and its projection to 100,000 GPUs; with `--reference numpy`, times the
 * same metrics computed by numpy on the same trace in the same run, prints the ratio and checks that both agree. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis.h"
#include "analyze.h"
#include "param.h"
#include "util.h"

/* The numpy side: the same definitions as analysis.c on a complete uniform series (docs/power.md). */
static const char bench_numpy[] =
    "import json, sys, time\n"
    "import numpy as np\n"
    "path, gpus, n, dt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])\n"
    "x = np.fromfile(path, dtype=np.float64).reshape(gpus, n)\n"
    "bands = [(0.1, 1), (1, 2.5), (2.5, 7), (7, 20)]\n"
    "def one(y):\n"
    "    r = {'mean_w': float(y.mean()), 'min_w': float(y.min()), 'max_w': float(y.max())}\n"
    "    p1, p99 = np.percentile(y, [1, 99])\n"
    "    r['swing_w'] = float(p99 - p1)\n"
    "    for name, w in (('10ms', 0.01), ('100ms', 0.1), ('1s', 1.0)):\n"
    "        k = int(round(w / dt))\n"
    "        d = y[k:] - y[:-k]\n"
    "        r['up_' + name] = float(max(d.max(), 0) / (k * dt))\n"
    "        r['down_' + name] = float(max(-d.min(), 0) / (k * dt))\n"
    "    p = np.abs(np.fft.rfft(y - y.mean())) ** 2\n"
    "    if y.size % 2 == 0:\n"
    "        p[-1] *= 0.5\n"
    "    f = np.arange(p.size) / (y.size * dt)\n"
    "    tot = p[1:].sum()\n"
    "    r['dominant_hz'] = float(f[1 + np.argmax(p[1:])])\n"
    "    r['bands'] = [float(p[1:][(f[1:] >= lo) & (f[1:] < hi)].sum() / tot) for lo, hi in bands]\n"
    "    return r\n"
    "t0 = time.perf_counter()\n"
    "res = [one(x[k]) for k in range(gpus)]\n"
    "res.append(one(x.sum(axis=0)))\n"
    "t = time.perf_counter() - t0\n"
    "print(json.dumps({'seconds': t, 'numpy': np.__version__, 'results': res}))\n";

/* Writes the trace (gpus series of n doubles) to a temporary file in TMPDIR, removed from its folder as soon as it is
 * made: a bench stopped by a signal (^C during the numpy side, up to GBs of trace) leaves nothing behind (until
 * 2026-11-30 the file was removed after the numpy side only). Returns its descriptor, open and inherited by the numpy
 * side, which reads it as /proc/self/fd/N; -1 with a message. */
static int bench_write(double **x, int gpus, size_t n)
{
    char path[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/gauntlet-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);   /* not close-on-exec: the numpy side inherits it */
    if (fd < 0) {
        fprintf(stderr, "gauntlet bench analysis: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (unlink(path) != 0) {
        fprintf(stderr, "gauntlet bench analysis: removing %s: %s\n", path, strerror(errno));
        close(fd);
        return -1;
    }
    for (int k = 0; k < gpus; k++)
        if (write_all(fd, x[k], n * sizeof **x) != 0) {
            fprintf(stderr, "gauntlet bench analysis: writing %s: %s\n", path, strerror(errno));
            close(fd);
            return -1;
        }
    return fd;
}

/* Runs the numpy side on the trace file at path; its JSON in *out. 0, or EXIT_ENV with a message. The interpreter is
 * started with an argument vector (posix_spawnp): no shell sees the path or the interpreter's name. */
static int bench_numpy_run(const char *python, const char *path, int gpus, size_t n, double dt, json_t **out)
{
    char dts[64], gs[32], ns[32];
    snprintf(dts, sizeof dts, "%.17g", dt);
    snprintf(gs, sizeof gs, "%d", gpus);
    snprintf(ns, sizeof ns, "%zu", n);
    char *argv[] = { (char *)python, "-c", (char *)bench_numpy, (char *)path, gs, ns, dts, NULL };
    int fd = -1;
    *out = NULL;
    pid_t pid = spawn_reader(python, argv, &fd);
    if (pid < 0) {
        fprintf(stderr, "gauntlet bench analysis: cannot start %s: %s\n", python, strerror(errno));
        return EXIT_ENV;
    }
    FILE *p = fdopen(fd, "r");
    json_error_t err;
    if (p) {
        *out = json_loadf(p, 0, &err);
        fclose(p);
    } else {
        close(fd);
    }
    int st;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (!*out || w != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "gauntlet bench analysis: the numpy reference failed: %s needs numpy (apt-get install python3-numpy, "
                        "or name another interpreter with --python)\n", python);
        json_decref(*out);
        *out = NULL;
        return EXIT_ENV;
    }
    return 0;
}

/* How far one of our figures is from numpy's v, over scale: infinite where either is not a number (a figure that
 * is not there is no agreement: fmax passes over a NAN, and a missing one once read as a difference of 0). */
static double bench_off(double ours, json_t *v, double scale)
{
    double d = json_is_number(v) ? fabs(ours - json_number_value(v)) / scale : NAN;
    return isfinite(d) ? d : INFINITY;
}

/* Returns the largest relative difference between our result r and numpy's o (its keys), scaled by scale. */
static double bench_diff(const struct an_result *r, json_t *o, double scale)
{
    double worst = 0;
    double ours[] = { r->mean_w, r->min_w, r->max_w, r->swing_w, r->ramp_up_w_s[0], r->ramp_down_w_s[0],
                      r->ramp_up_w_s[1], r->ramp_down_w_s[1], r->ramp_up_w_s[2], r->ramp_down_w_s[2] };
    const char *keys[] = { "mean_w", "min_w", "max_w", "swing_w", "up_10ms", "down_10ms", "up_100ms", "down_100ms",
                           "up_1s", "down_1s" };
    for (size_t i = 0; i < ARRAY_LEN(keys); i++)
        worst = fmax(worst, bench_off(ours[i], json_object_get(o, keys[i]), scale));
    worst = fmax(worst, bench_off(r->dominant_hz, json_object_get(o, "dominant_hz"), fmax(r->dominant_hz, 1e-9)));
    json_t *b = json_object_get(o, "bands");
    if ((int)json_array_size(b) != r->n_bands)   /* a share not given is no agreement */
        return INFINITY;
    for (int k = 0; k < r->n_bands; k++)
        worst = fmax(worst, bench_off(r->bands[k].share, json_array_get(b, (size_t)k), 1));
    return worst;
}

const struct cli_cmd bench_analysis_cli = {
    "bench analysis", "", 0, 0, "times the power analysis of a synthetic 1 kHz trace and its projection",
    "A training-like trace (0.5 s compute at 780 W, 0.2 s communication at 130 W, noise) per GPU.\n",
    { { "seconds", "DURATION", "the trace's length, 2 s to 24 h (default 1 h)" },
      { "gpus", "N", "GPUs, 1 to 4096 (default 8)" },
      { "threads", "N", "GPUs analysed at once (default: the machine's cores)" },
      { "reference", "numpy", "also the same metrics in numpy on the same trace, as a ratio" },
      { "python", "PATH", "the Python with numpy (default python3)" },
      { 0 } },
};

#define BENCH_ANALYSIS_MAX_S 86400.0   /* --seconds at most: 24 h, 86.4 M samples per GPU at 1 kHz */

int bench_analysis_main(int argc, char **argv)
{
    double seconds = 3600, hz = 1000;
    int64_t gpus = 8, threads = 0;
    const char *ref = NULL, *python = "python3", *v;
    struct cli_args a;
    int rc0 = cli_parse(&bench_analysis_cli, argc, argv, &a);
    if (rc0)
        return rc0 == CLI_HELP ? EXIT_OK : rc0;
    if ((v = cli_get(&bench_analysis_cli, &a, "seconds")) &&
        (parse_duration(v, &seconds) != 0 || seconds < 2 || seconds > BENCH_ANALYSIS_MAX_S))
        return cli_bad(&bench_analysis_cli, "seconds", v, "expected a duration from 2 s to 24 h");
    if ((v = cli_get(&bench_analysis_cli, &a, "gpus")) && (parse_int(v, &gpus) != 0 || gpus < 1 || gpus > 4096))
        return cli_bad(&bench_analysis_cli, "gpus", v, "expected 1 to 4096");
    if ((v = cli_get(&bench_analysis_cli, &a, "threads")) && (parse_int(v, &threads) != 0 || threads < 1))
        return cli_bad(&bench_analysis_cli, "threads", v, "expected a positive integer");
    if ((v = cli_get(&bench_analysis_cli, &a, "reference")) && strcmp(v, "numpy") != 0)
        return cli_bad(&bench_analysis_cli, "reference", v, "expected numpy");
    ref = v;
    if ((v = cli_get(&bench_analysis_cli, &a, "python")))
        python = v;
    size_t n = (size_t)(seconds * hz);
    double dt = 1 / hz;
    /* the GPUs' traces, the sum and its mean, and the analysis's working copies (4 a thread, 7 the projection's): sized
     * before anything is allocated, as analyze sizes its grid (24 h of 4096 GPUs once asked for 2.8 TB) */
    double t_use = threads > 0 ? (double)threads : (double)sysconf(_SC_NPROCESSORS_ONLN);
    double need = 8.0 * (double)n * ((double)gpus + 2 + fmax(4 * fmin(t_use, (double)gpus + 1), 7)),
           mem = analyze_memory_bytes();
    if (need > 0.5 * mem) {
        fprintf(stderr, "gauntlet bench: analysis: --seconds %g with --gpus %lld at 1 kHz needs about %.3g GiB, more than "
                        "half the memory this process may use (%.3g GiB): fewer GPUs or a shorter trace\n",
                seconds, (long long)gpus, need / 1073741824.0, mem / 1073741824.0);
        return EXIT_INPUT;
    }
    struct rng r;
    rng_seed(&r, 1, 2);
    double **x = xcalloc((size_t)gpus + 1, sizeof *x), *agg = xcalloc(n, sizeof *agg);
    for (int k = 0; k < gpus; k++) {   /* a training-like trace: 0.5 s compute at 780 W, 0.2 s comm at 130 W */
        x[k] = xmalloc(n * sizeof **x);
        for (size_t i = 0; i < n; i++)
            x[k][i] = (fmod((double)i * dt, 0.7) < 0.5 ? 780 : 130) + 5 * rng_normal(&r);
    }
    struct an_series *s = xmalloc(((size_t)gpus + 1) * sizeof *s);
    struct an_result *res = xmalloc(((size_t)gpus + 1) * sizeof *res);
    uint64_t t0 = mono_ns();
    for (int k = 0; k < gpus; k++) {
        for (size_t i = 0; i < n; i++)
            agg[i] += x[k][i];
        s[k] = (struct an_series){ x[k], n, dt, 0, 0 };
    }
    s[gpus] = (struct an_series){ agg, n, dt, 0, 0 };
    analysis_run_many(s, (size_t)gpus + 1, an_default_bands, 4, res, (int)threads);
    double t_an = (double)(mono_ns() - t0) * 1e-9;
    double *per = xmalloc(n * sizeof *per);
    for (size_t i = 0; i < n; i++)
        per[i] = agg[i] / (double)gpus;
    struct an_series ps = { per, n, dt, 0, 0 };
    struct an_projection p;
    uint64_t t1 = mono_ns();
    analysis_project(&ps, 100000, 1000, 0.05, 1, an_default_bands, 4, &p);
    double t_pr = (double)(mono_ns() - t1) * 1e-9;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("# gauntlet bench analysis: synthetic trace, %lld GPUs x %.0f s at %.0f Hz (%zu samples each), %ld cores\n",
           (long long)gpus, seconds, hz, n, cores);
    printf("analysis of %lld GPUs and their sum: %.3f s\n", (long long)gpus, t_an);
    printf("projection to 100000 GPUs in 1000 groups (jitter 50 ms): %.3f s (swing %.1f MW)\n", t_pr, p.swing_mw);
    int rc = EXIT_OK;
    if (ref) {
        json_t *o = NULL;
        int fd = bench_write(x, (int)gpus, n);
        if (fd < 0) {
            rc = EXIT_ENV;
        } else {
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);   /* the same number in the child */
            rc = bench_numpy_run(python, path, (int)gpus, n, dt, &o);
            close(fd);
        }
        if (!rc) {
            double t_np = json_number_value(json_object_get(o, "seconds")), worst = 0;
            json_t *list = json_object_get(o, "results");
            if (json_array_size(list) != (size_t)gpus + 1)   /* every GPU's and the sum's, or no agreement */
                worst = INFINITY;
            for (int k = 0; k <= gpus && k < (int)json_array_size(list); k++)
                worst = fmax(worst, bench_diff(&res[k], json_array_get(list, (size_t)k), k < gpus ? 780 : 780 * gpus));
            printf("numpy %s, the same metrics on the same trace: %.3f s\n",
                   json_string_value(json_object_get(o, "numpy")), t_np);
            printf("ratio numpy / gauntlet: %.2fx; largest difference %.2g (relative to the compute level; band shares "
                   "absolute)\n", t_np / t_an, worst);
            if (!(worst < 1e-6)) {
                fprintf(stderr, "gauntlet bench analysis: gauntlet and numpy disagree by %.3g\n", worst);
                rc = EXIT_CHECK;
            }
        }
        json_decref(o);
    }
    for (int k = 0; k < gpus; k++)
        free(x[k]);
    free(x);
    free(agg);
    free(per);
    free(s);
    free(res);
    return rc;
}
