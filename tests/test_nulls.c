/* tests/test_nulls.c: a figure not measured is null in every results file, never a number that looks measured.
 *
 * One table below (figures[]) says what each figure of summary.json's runs depends on: power readings (one; two,
 * for a swing), an iteration, a bus (two ranks or more in the collective), two ranks, a checkpoint, an energy
 * counter (none on sim). Short sim runs leave out one input each (no power sampling, one rank, a run that fails
 * before its first iteration ends, a sampler slower than the run); each summary is walked whole: a figure whose
 * input was not measured must be null (or absent, where docs/results.md says so), and in a run where everything is
 * measured every figure must be a finite number, or null with the `unresolved` entry that says why (a sensor, a
 * span too short to resolve it). run_end's figures in events.jsonl must be null exactly where the summary's are,
 * and power.csv's columns sim has no source for must be empty. documented[] lists every field docs/results.md's
 * summary.json tables name: a field documented later and not put here fails the test. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "e2e.h"

enum {
    N_POW = 1,      /* a power reading in the run's stretch */
    N_POW2 = 2,     /* two readings: a swing, a range, a spectrum, a ramp */
    N_ITER = 4,     /* an iteration completed */
    N_BUS = 8,      /* a collective of two ranks or more */
    N_RANKS2 = 16,  /* two ranks: their alignment, their spread */
    N_CKPT = 32,    /* a checkpoint written */
    N_COUNTER = 64, /* every rank's energy counter (none on sim) */
    N_UNRES = 128,  /* may be null where measured, when an `unresolved` list above it says so */
    N_OPT = 256,    /* may be absent (a mitigation's own figure, sim's truth where nothing was read) */
    N_STEPS = 512,  /* the sensor's lag: 3 or more compute phases that start at the low level with a reading where they
                     * start (runsensor_lag_s); a sampler a loaded machine holds back (a sanitized build beside
                     * other tests) can miss them in every run: null then, said, and what is there must be a number */
};

struct figure {
    const char *path;   /* from a run of runs[] ("/": from the summary); "[]": every element */
    unsigned needs;
    const char *unres;  /* N_UNRES: the text its `unresolved` entry holds */
};

#define PW(p, n, u) { "power.aggregate." p, n, u }, { "power.per_rank[]." p, n, u }
static const struct figure figures[] = {
    { "iteration_s.p50", N_ITER, 0 }, { "iteration_s.p99", N_ITER, 0 }, { "iteration_s.mean", N_ITER, 0 },
    { "tflops", N_ITER, 0 }, { "busbw_gbs", N_ITER | N_BUS, 0 },
    { "checkpoint_gbs", N_CKPT, 0 }, { "checkpoint_stall_s", N_CKPT, 0 },
    { "warmup_s", N_ITER, 0 }, { "throughput_it_s", N_ITER, 0 }, { "energy_per_iter_j", N_ITER | N_POW, 0 },
    { "energy.j", N_POW, 0 }, { "energy.mean_w", N_POW, 0 }, { "energy.span_s", 0, 0 },   /* the stretch: the wall time where no iteration ended */
    { "energy.cross_check.sampled_j", N_POW, 0 }, { "energy.cross_check.counter_j", N_COUNTER, 0 },
    { "energy.cross_check.disagreement_pct", N_COUNTER, 0 }, { "energy.cross_check.flagged", N_COUNTER, 0 },
    { "gap_s.p50", N_ITER, 0 }, { "gap_s.min", N_ITER, 0 },
    { "truth.mean_w", N_POW | N_ITER | N_OPT, 0 }, { "truth.energy_per_iter_j", N_POW | N_ITER | N_OPT, 0 },
    { "ranks[].tflops", N_ITER, 0 }, { "ranks[].tflops_mean", N_ITER, 0 }, { "faults.goodput", N_ITER, 0 },
    PW("mean_w", N_POW, 0), PW("min_w", N_POW, 0), PW("max_w", N_POW, 0), PW("p1_w", N_POW, 0),
    PW("p99_w", N_POW, 0), PW("span_s", N_POW, 0), PW("swing_w", N_POW2, 0), PW("range_w", N_POW2, 0),
    PW("swing_pct_tdp", N_POW2, 0), PW("swing_pct_mean", N_POW2, 0),
    PW("ramp_up_w_s.10ms", N_POW2 | N_UNRES, "ramp_w_s.10ms"), PW("ramp_up_w_s.100ms", N_POW2 | N_UNRES, "ramp_w_s.100ms"),
    PW("ramp_up_w_s.1s", N_POW2 | N_UNRES, "ramp_w_s.1s"), PW("ramp_down_w_s.10ms", N_POW2 | N_UNRES, "ramp_w_s.10ms"),
    PW("ramp_down_w_s.100ms", N_POW2 | N_UNRES, "ramp_w_s.100ms"), PW("ramp_down_w_s.1s", N_POW2 | N_UNRES, "ramp_w_s.1s"),
    PW("dominant_hz", N_POW2 | N_UNRES, "dominant_hz"), PW("bands[].share", N_POW2 | N_UNRES, "bands"),
    { "power.aggregate.alignment.correlation_min", N_POW2 | N_RANKS2, 0 },
    { "power.aggregate.alignment.correlation_mean", N_POW2 | N_RANKS2, 0 },
    { "power.aggregate.alignment.phase_spread_s", N_ITER | N_RANKS2, 0 },
    { "power.aggregate.projection.mean_mw", N_POW, 0 }, { "power.aggregate.projection.swing_mw", N_POW2, 0 },
    { "power.aggregate.projection.range_mw", N_POW2, 0 }, { "power.aggregate.sampling.achieved_hz", N_POW, 0 },
    { "vs_none.swing_reduction_pct", N_POW2, 0 }, { "vs_none.grid_swing_reduction_pct", N_POW2, 0 },
    { "vs_none.range_reduction_pct", N_POW2, 0 }, { "vs_none.per_gpu_swing_reduction_pct", N_POW2, 0 },
    { "vs_none.energy_overhead_pct", N_POW | N_ITER, 0 }, { "vs_none.iteration_overhead_pct", N_ITER, 0 },
    { "vs_none.energy_added_j", N_POW | N_ITER | N_OPT, 0 },
    { "vs_none.energy_least_j", N_POW2 | N_ITER | N_OPT | N_UNRES, "energy_efficiency" },
    { "vs_none.energy_efficiency", N_POW2 | N_ITER | N_OPT | N_UNRES, "energy_efficiency" },
    { "/sensor[].update_ms", N_POW2, 0 }, { "/sensor[].lag_ms", N_POW2 | N_ITER | N_STEPS, 0 },
};

/* Every field docs/results.md's summary.json tables name (their first cells), and the figure it is checked as
 * (a prefix of figures[]' paths), or NULL where it is no measured figure (a name, a count, a flag, a structure). */
static const struct { const char *doc, *as; } documented[] = {
    { "scenario", 0 }, { "backend", 0 }, { "seed", 0 }, { "ranks", 0 }, { "started_utc", 0 }, { "wall_s", 0 },
    { "gauntlet_version", 0 }, { "power_samples", 0 }, { "events_dropped", 0 }, { "exit", 0 }, { "stopped", 0 },
    { "stop", 0 }, { "runs[].run", 0 }, { "runs[].mitigation", 0 }, { "runs[].label", 0 },
    { "runs[].iterations_planned", 0 }, { "runs[].complete", 0 }, { "runs[].skipped", 0 }, { "runs[].wall_s", 0 },
    { "runs[].checkpoints", 0 }, { "runs[].iterations", 0 }, { "runs[].iteration_s", "iteration_s." },
    { "runs[].tflops", "tflops" }, { "runs[].busbw_gbs", "busbw_gbs" }, { "runs[].checkpoint_gbs", "checkpoint_gbs" },
    { "runs[].checkpoint_stall_s", "checkpoint_stall_s" }, { "runs[].ranks", "ranks[]." },
    { "runs[].device", 0 },   /* cap and smoothing on cuda only: settings read back, not figures of a sim run */
    { "runs[].modelled", 0 }, { "runs[].throughput_it_s", "throughput_it_s" }, { "runs[].gap_s", "gap_s." },
    { "runs[].truth", "truth." }, { "runs[].warmup_s", "warmup_s" }, { "runs[].energy", "energy." },
    { "runs[].energy_per_iter_j", "energy_per_iter_j" }, { "runs[].disturbed", 0 }, { "runs[].shape", 0 },
    { "runs[].energy.cross_check", "energy.cross_check." }, { "sensor", "/sensor[]." },
    { "runs[].power.*.sensor", 0 },   /* update_ms, held, distinct: the sensor as read, checked by test_sensor */
    { "runs[].power.*.unresolved", 0 }, { "runs[].vs_none", "vs_none." }, { "runs[].state_fingerprint", 0 },
    { "runs[].fingerprints_agree", 0 }, { "runs[].power.aggregate", "power.aggregate." },
    { "runs[].power.aggregate.replay", 0 },   /* workload.replay only: test_power_truth */
    { "search", 0 }, { "shapes", 0 },         /* mitigations: auto, workload.shapes: test_shapes, test_mitigations */
    { "runs[].power.per_rank[]", "power.per_rank[]." },
    { "runs[].power.cluster", 0 }, { "nodes[]", 0 },   /* several nodes: test_cluster */
    { "faults[]", 0 }, { "runs[].faults", "faults." },
    /* each fault's fields: a fault's own record (test_faults, test_recovery, test_failures) */
    { "id", 0 }, { "kind", 0 }, { "origin", 0 }, { "fault_spec", 0 }, { "rank", 0 }, { "run", 0 },
    { "injected_iter", 0 }, { "injected_t_s", 0 }, { "what", 0 }, { "target", 0 }, { "where", 0 }, { "format", 0 },
    { "element", 0 }, { "bits", 0 }, { "bit", 0 }, { "bit_class", 0 }, { "old", 0 }, { "new", 0 }, { "rel_error", 0 },
    { "scale", 0 }, { "detection", 0 }, { "detected_by", 0 }, { "detect_s", 0 }, { "detect_iters", 0 },
    { "recovery", 0 }, { "recover_s", 0 }, { "iterations_lost", 0 }, { "iterations_redone", 0 },
    { "restore_from", 0 }, { "restore_bytes", 0 }, { "restore_s", 0 }, { "restore_gbs", 0 }, { "outcome", 0 },
    { "rolled_back", 0 }, { "unseen_s", 0 }, { "left_with_rank", 0 }, { "ineffective", 0 },
};

#define NF (sizeof figures / sizeof figures[0])

/* Returns what run (and its summary s) measured, as N_ bits, from the run's own counts. */
static unsigned have_of(json_t *s, json_t *run, int bus_ranks)
{
    json_int_t smp = json_integer_value(json_object_get(json_object_get(json_object_get(run, "power"), "aggregate"),
                                                        "samples"));
    unsigned h = 0;
    h |= smp >= 1 ? N_POW : 0;
    h |= smp >= 2 ? N_POW2 : 0;
    h |= json_integer_value(json_object_get(run, "iterations")) >= 1 ? N_ITER : 0;
    h |= bus_ranks >= 2 ? N_BUS : 0;
    h |= json_integer_value(json_object_get(s, "ranks")) >= 2 ? N_RANKS2 : 0;
    h |= json_integer_value(json_object_get(run, "checkpoints")) >= 1 ? N_CKPT : 0;
    return h;   /* sim: no energy counter */
}

/* Returns 1 when an `unresolved` list of one of the objects on the way (up to depth d) names what. */
static int unresolved_says(json_t **way, int d, const char *what)
{
    for (int i = d; i >= 0; i--) {
        json_t *u = json_object_get(way[i], "unresolved"), *e;
        size_t k;
        json_array_foreach(u, k, e)
            if (strstr(json_string_value(json_object_get(e, "figure")), what))
                return 1;
    }
    return 0;
}

/* Checks one leaf v (NULL: absent; a null parent reads null) of figure f found under way[0..d]. */
static void check_leaf(const char *cfg, const char *where, const struct figure *f, json_t *v, int absent,
                       unsigned have, int full, json_t **way, int d)
{
    unsigned missing = f->needs & ~have & ~(N_UNRES | N_OPT | N_STEPS);
    if (absent) {
        cr_expect(f->needs & N_OPT, "%s: %s is absent (documented: null where not measured)", cfg, where);
        return;
    }
    if (v && json_is_number(v))
        cr_expect(isfinite(json_number_value(v)), "%s: %s is not finite", cfg, where);
    if (missing) {
        cr_expect(!v || json_is_null(v), "%s: %s is %s though what it needs was not measured (needs 0x%x, had 0x%x)",
                  cfg, where, v && json_is_number(v) ? "a number" : "set", f->needs, have);
        if (v && json_is_number(v))
            cr_log_error("%s: %s = %g", cfg, where, json_number_value(v));
        return;
    }
    int is_null = !v || json_is_null(v);
    if (f->unres && !is_null && strcmp(f->unres, "bands") != 0)   /* what unresolved names is null */
        cr_expect(!unresolved_says(way, d, f->unres), "%s: %s is a number, yet `unresolved` names %s", cfg, where,
                  f->unres);
    if (!full)
        return;
    if (is_null && (f->needs & N_STEPS))
        cr_log_info("%s: %s is null: fewer than 3 clean steps had a reading at their start (a loaded machine)", cfg,
                    where);
    else if (is_null && (f->needs & N_UNRES))
        cr_expect(unresolved_says(way, d, f->unres), "%s: %s is null with no `unresolved` entry saying why", cfg, where);
    else if (f->needs & N_COUNTER)
        cr_expect(is_null, "%s: %s: sim has no energy counter", cfg, where);
    else
        cr_expect(!is_null && json_is_number(v), "%s: %s is null though everything it needs was measured", cfg, where);
}

/* Walks path from o (way[d] == o), checking each leaf it reaches. */
static void walk(const char *cfg, char *where, size_t wl, const struct figure *f, const char *path, json_t *o,
                 unsigned have, int full, json_t **way, int d)
{
    char key[64];
    const char *dot = strchr(path, '.');
    size_t kl = dot ? (size_t)(dot - path) : strlen(path);
    snprintf(key, sizeof key, "%.*s", (int)kl, path);
    int arr = kl > 2 && strcmp(key + kl - 2, "[]") == 0;
    if (arr)
        key[kl - 2] = 0;
    size_t at = strlen(where);
    snprintf(where + at, wl - at, "%s%s", at ? "." : "", key);
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (!json_is_object(o) || (!v && !arr)) {   /* a null parent reads null; an absent key is absent */
        check_leaf(cfg, where, f, NULL, json_is_object(o), have, full, way, d);
    } else if (arr) {
        size_t i;
        json_t *e;
        cr_expect(json_is_array(v) && (json_array_size(v) > 0 || !full), "%s: %s is no array", cfg, where);
        json_array_foreach(v, i, e) {
            size_t a2 = strlen(where);
            snprintf(where + a2, wl - a2, "[%zu]", i);
            way[d + 1] = e;
            if (dot)
                walk(cfg, where, wl, f, dot + 1, e, have, full, way, d + 1);
            else
                check_leaf(cfg, where, f, e, 0, have, full, way, d + 1);
            where[a2] = 0;
        }
    } else if (dot) {
        way[d + 1] = v;
        walk(cfg, where, wl, f, dot + 1, v, have, full, way, d + 1);
    } else {
        check_leaf(cfg, where, f, v, 0, have, full, way, d);
    }
    where[at] = 0;
}

/* Checks every figure of every run of summary s. full: everything was measured. */
static void check_summary(const char *cfg, json_t *s, int bus_ranks, int full)
{
    json_t *runs = json_object_get(s, "runs"), *run;
    size_t i;
    cr_assert(json_array_size(runs) > 0, "%s: no runs", cfg);
    json_array_foreach(runs, i, run) {
        unsigned have = have_of(s, run, bus_ranks);
        for (size_t k = 0; k < NF; k++) {
            char where[256];
            json_t *way[16] = { 0 };
            int top = figures[k].path[0] == '/';
            if (top && i > 0)
                continue;
            snprintf(where, sizeof where, "%s", top ? "" : "runs[");
            if (!top)
                snprintf(where + 5, sizeof where - 5, "%zu]", i);
            way[0] = top ? s : run;
            walk(cfg, where, sizeof where, &figures[k], figures[k].path + top, way[0], have, full, way, 0);
        }
    }
}

/* run_end's figures in dir/events.jsonl are null exactly where summary s's same figures are. */
static void check_run_end(const char *cfg, const char *dir, json_t *s)
{
    static const char *const pairs[][2] = {
        { "throughput_it_s", "throughput_it_s" }, { "iteration_p50_s", "iteration_s.p50" },
        { "mean_w", "power.aggregate.mean_w" }, { "swing_w", "power.aggregate.swing_w" },
        { "energy_per_iter_j", "energy_per_iter_j" }, { "tflops", "tflops" }, { "warmup_s", "warmup_s" },
    };
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path), *line = text;
    cr_assert(text, "%s: no events.jsonl", cfg);
    int ends = 0;
    for (char *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (!strstr(line, "\"event\":\"run_end\""))
            continue;
        json_t *e = json_loads(line, 0, NULL), *fig = json_object_get(e, "figures");
        json_t *run = json_array_get(json_object_get(s, "runs"), (size_t)json_integer_value(json_object_get(e, "run")));
        cr_assert(fig && run, "%s: a run_end without figures, or of no run: %s", cfg, line);
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
            json_t *o = run;
            char p[64], *save = NULL;
            snprintf(p, sizeof p, "%s", pairs[k][1]);
            for (char *t = strtok_r(p, ".", &save); t && o; t = strtok_r(NULL, ".", &save))
                o = json_object_get(o, t);
            json_t *ev = json_object_get(fig, pairs[k][0]);
            cr_expect_eq(json_is_null(ev), !o || json_is_null(o), "%s: run_end's %s is %s, the summary's %s %s", cfg,
                         pairs[k][0], json_is_null(ev) ? "null" : "a number", pairs[k][1],
                         !o || json_is_null(o) ? "null" : "a number");
        }
        ends++;
        json_decref(e);
    }
    free(text);
    cr_expect_gt(ends, 0, "%s: no run_end", cfg);
}

/* power.csv: the columns sim has no source for are empty in every row, never 0. */
static void check_csv(const char *cfg, const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/power.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s: no power.csv", cfg);
    char line[1024];
    int rows = 0;
    cr_assert(fgets(line, sizeof line, f));
    cr_assert(strncmp(line, "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,", 62) == 0, "%s", line);
    while (fgets(line, sizeof line, f)) {
        char *c = line;
        for (int col = 0; col < 9 && c; col++, c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
            if (col >= 4)   /* avg_w, energy_j, clock_mhz, temp_c, throttle */
                cr_expect(*c == ',', "%s: power.csv column %d not empty on sim: %s", cfg, col + 1, line);
        rows++;
    }
    fclose(f);
    cr_log_info("%s: %d power.csv rows", cfg, rows);
}

/* Runs text on sim into a new folder (*dir); its exit must be want; returns its summary. */
static json_t *run_sim(const char *text, int want, const char **dir)
{
    *dir = e2e_outdir();
    int rc = e2e_run(e2e_log("nulls.log"),
                     (const char *[]){ "run", e2e_scenario(text), "--backend", "sim", "--out", *dir, NULL });
    char *log = e2e_read(e2e_log("nulls.log"));
    cr_assert_eq(rc, want, "exit %d (want %d):\n%s", rc, want, log);
    free(log);
    return e2e_summary(*dir);
}

#define SMALL "seed: 3\nsim: {tflops: 0.01}\n"
#define SIMPLE "workload:\n  gemm: {m: 256, n: 256, k: 256, count: 2}\n  allreduce: {bytes: 1MiB}\n"

/* The fields docs/results.md's summary.json tables name are those documented[] classifies, no more, no fewer; each
 * figure it maps to is in figures[]; each name of "The metrics, defined once" is one of figures[]. */
Test(nulls, every_documented_field_is_classified)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/results.md", e2e_src());
    char *doc = e2e_read(path);
    cr_assert(doc, "%s", path);
    char *sec = strstr(doc, "\n## `summary.json`"), *met = strstr(doc, "\n## The metrics, defined once");
    char *met_end = met ? strstr(met, "\n## `scenario.yaml`") : NULL;
    cr_assert(sec && met && met_end);
    size_t n = 0, nd = sizeof documented / sizeof documented[0];
    int seen[sizeof documented / sizeof documented[0]] = { 0 };
    for (char *l = sec; l && *l; l = strchr(l + 1, '\n')) {
        if (strncmp(l, "\n| `", 4) != 0)
            continue;
        char *end = strchr(l + 3, '|');
        for (char *b = strchr(l + 3, '`'); b && b < end; b = strchr(b + 1, '`')) {
            char *e = strchr(b + 1, '`');
            size_t k;
            for (k = 0; k < nd; k++)
                if (strlen(documented[k].doc) == (size_t)(e - b - 1) && !strncmp(b + 1, documented[k].doc, (size_t)(e - b - 1)))
                    break;
            cr_expect(k < nd, "docs/results.md documents `%.*s`: classify it in documented[] (and figures[])",
                      (int)(e - b - 1), b + 1);
            if (k < nd)
                seen[k] = 1;
            n++;
            b = e;
        }
    }
    for (size_t k = 0; k < nd; k++) {
        cr_expect(seen[k], "documented[] has `%s`, which docs/results.md no longer names", documented[k].doc);
        int found = !documented[k].as;
        for (size_t f = 0; f < NF && !found; f++)
            found = strncmp(figures[f].path, documented[k].as, strlen(documented[k].as)) == 0;
        cr_expect(found, "`%s` maps to %s, which no figure checks", documented[k].doc, documented[k].as);
    }
    for (char *l = met; l && l < met_end; l = strchr(l + 1, '\n')) {   /* the metrics table: every figure named there */
        if (strncmp(l, "\n| `", 4) != 0)
            continue;
        char *end = strchr(l + 3, '|');
        for (char *b = strchr(l + 3, '`'); b && b < end; b = strchr(strchr(b + 1, '`') + 1, '`')) {
            char name[64];
            int len = (int)(strchr(b + 1, '`') - b - 1), found = 0;
            snprintf(name, sizeof name, "%.*s", len, b + 1);
            for (size_t f = 0; f < NF && !found; f++)
                found = strstr(figures[f].path, name) != NULL;
            cr_expect(found, "the metric `%s` is no figure of figures[]", name);
        }
    }
    cr_log_info("%zu documented names", n);
    free(doc);
}

/* Everything measured: two ranks, an all-reduce, checkpoints, power at 500 Hz with no sensor model (each reading the
 * power then: every ramp window resolved), over 1 s and more (the 1 s ramp), none and a filler (its comparison). */
Test(nulls, a_run_that_measured_everything_has_every_figure, .timeout = 120)
{
    char ck[] = "/tmp/gauntlet-nulls-ckpt-XXXXXX", text[1024];
    cr_assert(mkdtemp(ck));
    e2e_own(ck);
    snprintf(text, sizeof text,
             "name: full\nranks: 2\niterations: 30\nseed: 3\nsim: {tflops: 0.01, sensor: {update: 0}}\n"
             "workload:\n  gemm: {m: 512, n: 512, k: 512, count: 2}\n  allreduce: {bytes: 4MiB}\n"
             "  checkpoint: {every: 10, bytes: 256KiB, path: %s}\n"
             "power: {sample_hz: 500}\nmitigations: [none, {filler: {floor: 80%%}}]\n", ck);
    const char *dir;
    json_t *s = run_sim(text, 0, &dir);
    check_summary("everything measured", s, 2, 1);
    check_run_end("everything measured", dir, s);
    check_csv("everything measured", dir);
    json_decref(s);
}

/* Power sampling off: every power figure, the energy and what is figured from it are null; the rest is measured. */
Test(nulls, no_power_sampling_leaves_every_power_figure_null, .timeout = 60)
{
    const char *dir;
    json_t *s = run_sim("name: nopower\nranks: 2\niterations: 8\n" SMALL SIMPLE "power: {sample_hz: 0}\n", 0, &dir);
    cr_assert_eq(json_integer_value(json_object_get(s, "power_samples")), 0);
    check_summary("no power", s, 2, 0);
    check_run_end("no power", dir, s);
    json_decref(s);
}

/* One rank: no bus (busbw_gbs null: 2(n-1)/n made it 0 until 2026-11-30), no alignment between ranks; both the
 * plain all-reduce and a step of workload.phases; and `gauntlet summarize` rebuilds it with the same nulls. */
Test(nulls, one_rank_has_no_bus_bandwidth, .timeout = 60)
{
    const char *texts[] = {
        "name: one\nranks: 1\niterations: 8\n" SMALL SIMPLE "power: {sample_hz: 200}\n",
        "name: onephases\nranks: 1\niterations: 8\n" SMALL "workload:\n  phases:\n"
        "    - gemm: {m: 256, n: 256, k: 256, count: 2}\n    - allreduce: {bytes: 1MiB}\npower: {sample_hz: 200}\n",
    };
    for (int t = 0; t < 2; t++) {
        const char *dir;
        json_t *s = run_sim(texts[t], 0, &dir);
        check_summary(t ? "one rank, phases" : "one rank", s, 1, 0);
        check_run_end("one rank", dir, s);
        int rc = e2e_run(e2e_log("nulls.log"), (const char *[]){ "summarize", dir, "--force", NULL });
        cr_assert_eq(rc, 0, "summarize exit %d", rc);
        json_t *r = e2e_summary(dir);
        cr_expect(json_is_null(json_object_get(json_array_get(json_object_get(r, "runs"), 0), "busbw_gbs")),
                  "a rebuilt one-rank summary's busbw_gbs is not null");
        json_decref(r);
        json_decref(s);
    }
}

/* A run that fails before its first iteration ends: no iteration, no figure of one. */
Test(nulls, a_run_stopped_before_its_first_iteration_has_no_figures, .timeout = 60)
{
    const char *dir;
    json_t *s = run_sim("name: early\nranks: 2\niterations: 8\n" SMALL SIMPLE "power: {sample_hz: 200}\n"
                        "faults:\n  - {kind: crash, at: 0, rank: 1}\nrecovery: none\n", 1, &dir);
    json_t *run = json_array_get(json_object_get(s, "runs"), 0);
    cr_assert_eq(json_integer_value(json_object_get(run, "iterations")), 0);
    check_summary("stopped at once", s, 2, 0);
    check_run_end("stopped at once", dir, s);
    json_decref(s);
}

/* A sampler slower than the run: none or one reading in it. A swing, a range, a ramp need two: null, never 0 W (one
 * reading gave swing_w 0 until 2026-11-30). The analysis itself is held to it on one reading, whatever the timing. */
Test(nulls, fewer_readings_than_a_swing_needs_leave_it_null, .timeout = 60)
{
    const char *dir;
    json_t *s = run_sim("name: few\nranks: 2\niterations: 3\n" SMALL SIMPLE "power: {sample_hz: 2}\n", 0, &dir);
    check_summary("few readings", s, 2, 0);
    check_run_end("few readings", dir, s);
    json_decref(s);
    double x[1] = { 812.5 };
    struct an_series one = { .x = x, .n = 1, .dt = 0.01 };
    struct an_result r;
    cr_assert_eq(analysis_run(&one, an_default_bands, 4, &r), 0);
    cr_expect_float_eq(r.mean_w, 812.5, 1e-9);
    cr_expect(isnan(r.swing_w) && isnan(r.range_w), "one reading: swing %g W, range %g W", r.swing_w, r.range_w);
}

/* energy.cross_check as docs/results.md promises it on sim (no energy counter): the readings' mean over the analysed
 * stretch x its span, the energy itself (its source the samples), within the 5 % the flag stands for of power.csv's
 * integral over that stretch; the counter's side null, and the flag null (not judged), never false. swing_pct_tdp:
 * swing_w / (TDP x ranks) x 100 for the node, swing_w / TDP per GPU, TDP from the run's gpu events. */
Test(nulls, the_cross_check_and_swing_pct_tdp_keep_their_definitions, .timeout = 60)
{
    const char *dir;
    json_t *s = run_sim("name: defs\nranks: 2\niterations: 16\n" SMALL SIMPLE "power: {sample_hz: 500}\n", 0, &dir);
    json_t *run = json_array_get(json_object_get(s, "runs"), 0), *en = json_object_get(run, "energy");
    json_t *cc = json_object_get(en, "cross_check"), *agg = json_object_get(json_object_get(run, "power"), "aggregate");
    double span = json_number_value(json_object_get(en, "span_s")), mean = json_number_value(json_object_get(agg, "mean_w"));
    double sampled = json_number_value(json_object_get(cc, "sampled_j"));
    cr_assert_str_eq(json_string_value(json_object_get(en, "source")), "power samples");
    cr_expect_float_eq(sampled, mean * span, 1e-9 * sampled, "sampled_j %g, mean_w x span_s %g", sampled, mean * span);
    cr_expect_float_eq(json_number_value(json_object_get(en, "j")), sampled, 1e-9 * sampled);
    cr_expect(json_is_null(json_object_get(cc, "counter_j")) && json_is_null(json_object_get(cc, "disagreement_pct")) &&
              json_is_null(json_object_get(cc, "flagged")), "sim has no counter: counter_j, disagreement_pct, flagged null");
    /* power.csv over the same stretch: [run_end - span, run_end], each tick's sum held to the next */
    json_t *end = e2e_first_event(dir, "run_end"), *gpu = e2e_first_event(dir, "gpu");
    double t_end = json_number_value(json_object_get(end, "t_s")), tdp = json_number_value(json_object_get(gpu, "tdp_w"));
    double e = e2e_csv_energy(dir, t_end - span, t_end);
    cr_log_info("sampled_j %.2f J, power.csv %.2f J over %.3f s", sampled, e, span);
    cr_expect(fabs(sampled - e) <= 0.05 * e, "sampled_j %.2f J against power.csv's %.2f J: beyond 5 %%", sampled, e);
    double ranks = (double)json_integer_value(json_object_get(s, "ranks"));
    double sw = json_number_value(json_object_get(agg, "swing_w"));
    cr_assert(tdp > 0 && sw > 0, "tdp %g W, swing %g W", tdp, sw);
    cr_expect_float_eq(json_number_value(json_object_get(agg, "swing_pct_tdp")), sw / (tdp * ranks) * 100, 1e-9 * sw,
                       "the node's swing_pct_tdp against swing_w / (TDP x ranks) x 100");
    json_t *pr;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(run, "power"), "per_rank"), i, pr) {
        double w = json_number_value(json_object_get(pr, "swing_w"));
        cr_expect_float_eq(json_number_value(json_object_get(pr, "swing_pct_tdp")), w / tdp * 100, 1e-9 * (w + 1),
                           "rank %zu's swing_pct_tdp against swing_w / TDP x 100", i);
    }
    json_decref(end);
    json_decref(gpu);
    json_decref(s);
}
