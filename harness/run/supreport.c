/* harness/run/supreport.c: what the supervisor writes at the end: summary.json's object and the table on stdout,
 * both from the records the run filled. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis_json.h"
#include "faulttable.h"
#include "run.h"
#include "mitigations/fillplan.h"
#include "mitigations/mitigation.h"
#include "results.h"
#include "shapes_compare.h"
#include "util.h"

/* Returns a run's energy per iteration (J): its mean power (energy counters, else samples) over its throughput
 * (runstats.c). */
double sup_energy_per_iter(json_t *run)
{
    json_t *e = json_object_get(run, "energy_per_iter_j");
    return json_is_number(e) ? json_number_value(e) : NAN;
}

/* Returns the mean of a run's per-GPU swings (p99 - p1): what a mitigation does to each GPU, whatever the ranks'
 * alignment does to their sum; NAN when none is known. */
static double sup_per_gpu_swing(json_t *run)
{
    json_t *pr = json_object_get(json_object_get(run, "power"), "per_rank"), *o;
    size_t i;
    double sum = 0;
    int n = 0;
    json_array_foreach(pr, i, o)
        if (json_is_number(json_object_get(o, "swing_w"))) {
            sum += json_number_value(json_object_get(o, "swing_w"));
            n++;
        }
    return n ? sum / n : NAN;
}

/* Returns 100 * (x / base - 1), or NAN. */
static double sup_pct(double x, double base) { return base > 0 && isfinite(x) ? 100 * (x / base - 1) : NAN; }

/* Whether run r was disturbed by hand (paused, a fault from the view, skipped): its figures are not the mitigation's
 * alone. */
static int sup_disturbed(json_t *r) { return json_array_size(json_object_get(r, "disturbed")) > 0; }

int sup_ranked(const struct sup *s, json_t *r) { return s->sc->rank_disturbed || !sup_disturbed(r); }

/* Whether runs a and b ran the same shape (no shape: the same). */
static int sup_same_shape(json_t *a, json_t *b)
{
    const char *x = json_string_value(json_object_get(a, "shape")), *y = json_string_value(json_object_get(b, "shape"));
    return x == y || (x && y && strcmp(x, y) == 0);
}

/* The none run r is compared with: the first of its shape left alone; else the first of its shape, disturbed. */
static json_t *sup_base(struct sup *s, json_t *r, int *disturbed)
{
    json_t *q, *base = NULL;
    size_t i;
    *disturbed = 0;
    json_array_foreach(s->rn->runs, i, q)
        if (!base && strcmp(json_string_value(json_object_get(q, "mitigation")), "none") == 0 && sup_ranked(s, q) &&
            sup_same_shape(q, r))
            base = q;
    json_array_foreach(s->rn->runs, i, q)
        if (!base && strcmp(json_string_value(json_object_get(q, "mitigation")), "none") == 0 && sup_same_shape(q, r)) {
            base = q;
            *disturbed = 1;
        }
    return base;
}

/* Whether run r's mitigation acts on the facility (bess), not on the GPUs: their trace is the workload's own. */
static int sup_facility(json_t *r)
{
    int k = plugin_find(&plugin_mitigations, json_str_or(json_object_get(r, "mitigation")));
    return k >= 0 && mitigation_table[k]->facility;
}

/* The levels rank r's filler plans its gaps with (fill_plan_make): the model's on a modelled backend, else its GPU's
 * curve measured at start-up; 0 where its GPU measured none. */
static int sup_rank_levels(struct sup *s, int r, double *idle, double *compute, double *top)
{
    if (s->ops->modelled) {
        *idle = s->sc->sim.idle_w;
        *compute = s->sc->sim.compute_w;
        *top = s->sc->sim.filler_w;
        return 1;
    }
    const struct ctl *c = shm_ctl(&s->shm, s->slot_of[r]);
    if (!atomic_load(&c->tuned))
        return 0;
    struct fill_curve fc = fill_curve_of(c->tune_w, c->tune_compute_w);
    *idle = fc.w[0];
    *compute = fc.compute_w;
    *top = fill_curve_top(&fc);
    return 1;
}

/* What run r's mitigation had to act on (mitigation_inert): rank 0's TDP and idle level as its worker had them, the
 * power trace's sample period, and the ranks a stagger draws its groups from: every node's, on every backend (cuda's
 * shaper.c too; until 2026-12-01 this took the node's own there, and warned that a stagger of 1 rank a node on 2
 * nodes did nothing while node 1's GPU waited each iteration). */
static struct mit_run sup_mit_run(struct sup *s)
{
    struct mit_run run = { .tdp_w = NAN, .idle_w = NAN,
                           .sample_s = s->sc->power.sample_hz > 0 ? 1 / s->sc->power.sample_hz : 0,
                           .world = (int)s->shm.hdr->world };
    double compute, top;
    if (s->ops && s->ops->modelled) {
        run.tdp_w = s->sc->sim.tdp_w;
        run.idle_w = s->sc->sim.idle_w;
    } else if (s->nranks > 0) {
        run.tdp_w = mitigation_tdp_w(0, &s->sc->sim, atomic_load(&shm_ctl(&s->shm, s->slot_of[0])->tdp_mw));
        if (!sup_rank_levels(s, 0, &run.idle_w, &compute, &top))
            run.idle_w = NAN;
    }
    return run;
}

/* A mitigation that can do nothing as given (a stagger of one group, a floor at idle, a battery's window within a
 * sample: said since 2026-11-30), made the swing worse, or had no swing to act on at this time scale, says so:
 * vs_none.warning (summary.json, the table, the report), never a plain row. A facility one leaves the GPUs' trace as
 * it is: what their swing does against none is run-to-run noise, never its doing. */
static void sup_warn_worse(struct sup *s, json_t *r, double cut_pct)
{
    json_int_t m = json_integer_value(json_object_get(r, "run"));
    if (m < 0 || m >= s->sc->n_mitigations || strcmp(json_string_value(json_object_get(r, "mitigation")), "none") == 0)
        return;
    const struct plugin_spec *spec = &s->sc->mitigations[m];
    char why[1200] = "", ts[600], inert[300] = "";
    struct mit_run run = sup_mit_run(s);
    int idle = mitigation_inert(spec->index, spec->params, &run, inert, sizeof inert);
    double it = json_number_value(json_object_get(json_object_get(r, "iteration_s"), "p50"));
    double window = sup_sensor_max_s(r, "update_ms");   /* the readings' update interval: the slowest GPU's */
    int facility = sup_facility(r);
    int at_scale = facility || !mitigation_acts_on_swing(spec->index, spec->params, &s->sc->sim)
                       ? 0 : mitigation_timescale_warning(spec->name, it, s->sc->sim.ramp_s, window, ts, sizeof ts);
    if (!facility && cut_pct < -5)   /* beyond the spread of one scenario run twice (2 points, docs/power.md) */
        snprintf(why, sizeof why, "%s%s%s raised the swing by %.1f %% instead of removing it%s%s", inert,
                 idle ? "; " : "", spec->name, -cut_pct, at_scale ? ": " : "", at_scale ? ts : "");
    else if (at_scale)
        snprintf(why, sizeof why, "%s%s%s", inert, idle ? "; " : "", ts);
    else if (idle)
        snprintf(why, sizeof why, "%s", inert);
    else
        return;
    why[0] = (char)toupper((unsigned char)why[0]);
    json_object_set_new(json_object_get(r, "vs_none"), "warning", json_string(why));
    if (at_scale == 2)   /* the readings cannot follow the iteration: the swing it removed is an alias's, never ranked */
        json_object_set_new(json_object_get(r, "vs_none"), "swing_measurable", json_false());
}

_Static_assert(sizeof ((struct ctl *)0)->tune_w == (FILL_DUTIES + 1) * sizeof(double),
               "the control block holds the filler's curve: idle and each duty of fillplan.h");

/* Returns the most the filler draws on a GPU of this run: the model's (sim.filler_w) on a modelled backend, else
 * the mean over the GPUs that measured theirs at start-up (the top of the curve's rising part); NAN when none did. */
static double sup_filler_top_w(struct sup *s)
{
    if (s->ops->modelled)
        return s->sc->sim.filler_w;
    double sum = 0;
    int n = 0;
    for (int k = 0; k < s->nslots; k++) {
        struct ctl *c = shm_ctl(&s->shm, k);
        if (!atomic_load(&c->tuned))
            continue;
        struct fill_curve fc = fill_curve_of(c->tune_w, c->tune_compute_w);
        double top = fill_curve_top(&fc);   /* the top of its rising part: past it more duty draws no more */
        if (isfinite(top)) {
            sum += top;
            n++;
        }
    }
    return n ? sum / n : NAN;
}

/* A run with a filler (a floor or a ramp) says what the filler can draw in vs_none (filler_top_w; on a GPU the curve
 * measured at start-up, filler_curve_w and compute_level_w), and a floor the plan holds lower than asked says so
 * (floor_unreachable, naming the limit: the filler's top, or the compute level a gap never draws more than; until
 * 2026-11-30 the latter was unsaid), whatever else the run shows. Each rank's floor is read against its own TDP. */
static void sup_floor_reach(struct sup *s, json_t *r, json_t *vs)
{
    json_int_t m = json_integer_value(json_object_get(r, "run"));
    if (m < 0 || m >= s->sc->n_mitigations)
        return;
    const struct plugin_spec *spec = &s->sc->mitigations[m];
    const struct mitigation_ops *ops = mitigation_table[spec->index];
    struct mit_model mm = { 0 };
    if (!ops->model || ops->facility)
        return;
    ops->model(spec->params, &s->sc->sim, 0, s->nranks, &mm);   /* whether it fills: the same at any TDP */
    if (!(mm.floor_w > 0 || mm.ramp_up_w_s > 0 || mm.ramp_down_w_s > 0))
        return;   /* no filler in this run */
    double top = sup_filler_top_w(s);
    json_object_set_new(vs, "filler_top_w", json_num(top));
    if (!s->ops->modelled) {   /* the curve the GPUs measured at start-up: idle, the filler at 25..100 %, compute */
        double w[FILL_DUTIES + 2] = { 0 };   /* the curve, then the compute level */
        int n = 0;
        for (int k = 0; k < s->nslots; k++) {
            struct ctl *c = shm_ctl(&s->shm, k);
            if (!atomic_load(&c->tuned))
                continue;
            for (int i = 0; i <= FILL_DUTIES; i++)
                w[i] += c->tune_w[i];
            w[FILL_DUTIES + 1] += c->tune_compute_w;
            n++;
        }
        if (n) {
            json_t *a = json_array();
            for (int i = 0; i <= FILL_DUTIES; i++)
                json_array_append_new(a, json_num(w[i] / n));
            json_object_set_new(vs, "filler_curve_w", a);
            json_object_set_new(vs, "compute_level_w", json_num(w[FILL_DUTIES + 1] / n));
        }
    }
    for (int g = 0; g < s->nranks; g++) {   /* the first rank whose plan holds less than its floor asked */
        double idle, compute, ttop;
        uint64_t mw = s->ops->modelled ? 0 : atomic_load(&shm_ctl(&s->shm, s->slot_of[g])->tdp_mw);
        mitigation_model_tdp(spec->index, spec->params, &s->sc->sim, mitigation_tdp_w(s->ops->modelled, &s->sc->sim, mw),
                             g, s->nranks, &mm);
        if (!(mm.floor_w > 0) || !sup_rank_levels(s, g, &idle, &compute, &ttop))
            continue;
        struct fill_plan p;
        char why[160];
        fill_plan_make(&p, mm.floor_w, 0, 0, idle, compute, ttop, NAN);
        if (fill_plan_floor_why(&p, why, sizeof why)) {
            json_object_set_new(vs, "floor_unreachable", json_string(why));
            return;
        }
    }
}

double sup_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Returns 100 * (1 - x / base): the share of base removed; NAN when either is unknown. */
static double sup_cut(double x, double base) { return base > 0 && isfinite(x) ? 100 * (1 - x / base) : NAN; }

/* Run r against its shape's none (base, disturbed or not): summary.json's `vs_none` (the grid's swing, the GPUs',
 * energy and time paid, the energy efficiency, whether the floor was reached). */
static json_t *sup_vs_none(struct sup *s, json_t *r, json_t *base, int base_disturbed)
{
    double e = sup_energy_per_iter(r);
    json_t *a = json_object_get(json_object_get(r, "power"), "aggregate");
    json_t *b = json_object_get(json_object_get(base, "power"), "aggregate");
    double sw = sup_num(a, "swing_w"), sw0 = sup_num(b, "swing_w");
    double rg = sup_num(a, "range_w"), rg0 = sup_num(b, "range_w");
    double pg = sup_per_gpu_swing(r), pg0 = sup_per_gpu_swing(base);
    /* time paid: the change of throughput, every wait of the mitigation included (a stagger's offsets too) */
    double thr = sup_num(r, "throughput_it_s"), thr0 = sup_num(base, "throughput_it_s");
    /* the cluster as the grid sees it: behind the battery when there is one */
    json_t *pr = json_object_get(a, "projection"), *pr0 = json_object_get(b, "projection");
    json_t *bess = json_object_get(pr, "bess");
    int facility = sup_facility(r);
    /* a facility battery whose figures were not computed (a summary rebuilt without them): the grid side is
     * unknown, not the GPUs' cluster swing */
    double cl = facility && !bess ? NAN : sup_num(bess ? bess : pr, bess ? "grid_swing_mw" : "swing_mw");
    double cl0 = sup_num(pr0, "swing_mw");
    /* energy paid: the GPUs' per iteration; a facility battery leaves the GPUs' work as it is (their difference
     * is run-to-run noise) and pays in its own losses, over the cluster's energy in the same span; time it
     * pays none (the GPUs' own difference against none is that run's noise too) */
    double energy = facility ? sup_num(bess, "losses_pct") : sup_pct(e, sup_energy_per_iter(base));
    json_t *vs = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "grid_swing_reduction_pct",
                           json_num(pr ? sup_cut(cl, cl0) : NAN), "swing_reduction_pct", json_num(sup_cut(sw, sw0)),
                           "range_reduction_pct", json_num(sup_cut(rg, rg0)), "per_gpu_swing_reduction_pct",
                           json_num(sup_cut(pg, pg0)), "energy_overhead_pct", json_num(energy), "iteration_overhead_pct",
                           json_num(!(thr > 0) ? NAN : facility ? 0 : sup_pct(thr0 / thr, 1)));
    if (base_disturbed)
        json_object_set_new(vs, "baseline_disturbed", json_true());
    if (json_is_true(json_object_get(r, "unsettled")) || json_is_true(json_object_get(base, "unsettled")))
        json_object_set_new(vs, "unsettled", json_true());
    sup_efficiency(s, r, base, vs);
    sup_floor_reach(s, r, vs);
    return vs;
}

json_t *sup_live_vs_none(struct sup *s, json_t *run)
{
    int disturbed;
    json_t *base = sup_base(s, run, &disturbed);
    return base && base != run ? sup_vs_none(s, run, base, disturbed) : NULL;
}

void sup_compare_runs(struct sup *s)
{
    json_t *r;
    size_t i;
    int base_disturbed = 0;
    json_array_foreach(s->rn->runs, i, r) {
        json_t *base = sup_base(s, r, &base_disturbed);   /* workload.shapes: the none of the run's own shape */
        if (!base)
            continue;
        json_t *vs = sup_vs_none(s, r, base, base_disturbed);
        json_object_set_new(r, "vs_none", vs);
        sup_warn_worse(s, r, sup_num(vs, "swing_reduction_pct"));
    }
}

/* Relabels a sized battery with the ratings it was sized to: its name, the given label's other parameters while they
 * fit (a given capacity_mwh or power_mw was replaced: left out), "3.29MW/0.0548MWh", then its shape's " [name]".
 * Until 2026-11-30 it kept the label of its given ratings, which another run could carry too. */
static void sup_bess_label(struct plugin_spec *spec, double power_mw, double capacity_mwh)
{
    char label[sizeof spec->label], given[sizeof spec->label], shape[sizeof spec->label] = "";
    str_copy(given, sizeof given, spec->label);
    char *at = strstr(given, " [");
    if (at) {   /* the shape's suffix, kept whole */
        str_copy(shape, sizeof shape, at);
        *at = '\0';
    }
    char rated[64];
    snprintf(rated, sizeof rated, " %.3gMW/%.3gMWh", power_mw, capacity_mwh);
    size_t used = (size_t)snprintf(label, sizeof label, "%s", spec->name), tail = strlen(rated) + strlen(shape);
    char *save = NULL;
    for (char *tok = strtok_r(given, " ", &save); tok && used < sizeof label; tok = strtok_r(NULL, " ", &save)) {
        if (!strchr(tok, '=') || strncmp(tok, "capacity_mwh=", 13) == 0 || strncmp(tok, "power_mw=", 9) == 0)
            continue;   /* the name, or a rating the sizing replaced */
        if (used + 1 + strlen(tok) + tail < sizeof label)
            used += (size_t)snprintf(label + used, sizeof label - used, " %s", tok);
    }
    if (used < sizeof label)
        snprintf(label + used, sizeof label - used, "%s%s", rated, shape);
    str_copy(spec->label, sizeof spec->label, label);
}

void sup_size_bess(struct sup *s, int m)
{
    struct plugin_spec *spec = &s->shm.hdr->sc.mitigations[m];
    const struct mitigation_ops *mo = mitigation_table[spec->index];
    double share = mo->size_share ? mo->size_share(spec->params) : 0, power_mw, capacity_mwh;
    if (!(share > 0))
        return;
    json_t *r;
    size_t i;
    double swing = NAN;
    const char *shape = s->sc->workload.n_shapes > 1 ? s->sc->workload.shapes[spec->shape].name : NULL;
    json_array_foreach(s->rn->runs, i, r)   /* the none of the run's own shape */
        if (strcmp(json_string_value(json_object_get(r, "mitigation")), "none") == 0 && isnan(swing) &&
            (!shape || strcmp(json_str_or(json_object_get(r, "shape")), shape) == 0))
            swing = json_number_value(json_object_get(json_object_get(json_object_get(json_object_get(r, "power"),
                                                                                      "aggregate"), "projection"), "swing_mw"));
    mo->size(spec->params, swing, &power_mw, &capacity_mwh);
    if (!(swing > 0)) {
        results_event(&s->res, mono_ns(), "bess_sized", json_pack("{s:i, s:s, s:f, s:f}", "run", m, "why",
                                                                  "no none run measured a projected swing: the given size stays",
                                                                  "power_mw", power_mw, "capacity_mwh", capacity_mwh));
        return;
    }
    sup_bess_label(spec, power_mw, capacity_mwh);
    results_event(&s->res, mono_ns(), "bess_sized", json_pack("{s:i, s:f, s:f, s:f, s:f, s:s}", "run", m, "from_swing_mw",
                                                              swing, "size_pct", share, "power_mw", power_mw,
                                                              "capacity_mwh", capacity_mwh, "label", spec->label));
}

/* Sets key of j to v, or to null where v could not be made. */
static void sup_set(json_t *j, const char *key, json_t *v) { json_object_set_new(j, key, v ? v : json_null()); }

/* Builds summary.json from the runs and the run's outcome. */
json_t *sup_summary(struct sup *s, int code, const char *started)
{
    uint64_t dropped = s->evt_dropped_gone;   /* replaced processes' too */
    for (int k = 0; k < s->nslots; k++)
        dropped += atomic_load(&shm_ctl(&s->shm, k)->evt.dropped);
    /* field by field, not one json_pack: a value that cannot be made is null and the summary is still written (until
     * 2026-11-30 one text that was not UTF-8 lost the whole summary.json); free text goes in through results_text,
     * its bad bytes U+FFFD */
    json_t *j = json_object();
    sup_set(j, "scenario", results_text(s->sc->name));
    sup_set(j, "backend", json_string(s->ops->name));
    sup_set(j, "seed", json_integer((json_int_t)s->sc->seed));
    sup_set(j, "started_utc", json_string(started));
    sup_set(j, "exit", json_integer(code));
    sup_set(j, "gauntlet_version", json_string(GAUNTLET_VERSION));
    sup_set(j, "ranks", json_integer(s->nranks));
    sup_set(j, "stopped", s->reason[0] ? results_text(s->reason) : json_null());
    sup_set(j, "runs", json_incref(s->rn->runs));
    sup_set(j, "faults", faultlog_json(s));
    sup_set(j, "wall_s", json_real((double)(mono_ns() - s->t0) * 1e-9));
    sup_set(j, "events_dropped", json_integer((json_int_t)dropped));
    sup_set(j, "power_samples", json_integer((json_int_t)s->samples));
    json_object_set_new(j, "stop", json_string(sup_stop_code(s, code)));
    json_object_set_new(j, "sensor", sup_sensor_json(s));
    if (s->sc->auto_search)
        json_object_set_new(j, "search", sup_search(s));
    if (s->sc->workload.n_shapes > 1)
        json_object_set_new(j, "shapes", shapes_compare_json(s->rn->runs));
    return j;
}

/* Returns the signals the supervisor takes through its signalfd. */
/* Prints x with fmt, or "-" when it was not measured. */
static void sup_cell(char *out, size_t n, const char *fmt, json_t *v, double scale)
{
    if (json_is_number(v))
        snprintf(out, n, fmt, json_number_value(v) * scale);
    else
        snprintf(out, n, "-");
}

/* Prints the end-of-run table: one row per mitigation run, from the records summary.json is made of. */
void sup_print_table(struct sup *s, int code, json_t *summary)
{
    printf("%s: %s: exit %d after %.1f s%s%s; results in %s\n", gl_tag(), s->sc->name, code,
           (double)(mono_ns() - s->t0) * 1e-9, s->reason[0] ? ": " : "", s->reason, s->rn->opt->out_dir);
    size_t i;
    json_t *r;
    int wl = 18;   /* the label column: as wide as the longest label ("smoothing [pipeline-1f1b]") */
    json_array_foreach(s->rn->runs, i, r)
        if ((int)strlen(sup_label(r)) + 1 > wl)
            wl = (int)strlen(sup_label(r)) + 1;
    printf("  %-3s %-*s %7s %10s %10s %8s %8s %8s %8s %8s %8s %9s\n", "run", wl, "mitigation", "iters", "iter_p50",
           "iter_p99", "TFLOP/s", "busbw", "ckpt", "mean_W", "min_W", "max_W", "swing_W");
    json_array_foreach(s->rn->runs, i, r) {
        char c[10][32];
        json_t *it = json_object_get(r, "iteration_s"), *agg = json_object_get(json_object_get(r, "power"), "aggregate");
        sup_cell(c[0], 32, "%.2fms", json_object_get(it, "p50"), 1e3);
        sup_cell(c[1], 32, "%.2fms", json_object_get(it, "p99"), 1e3);
        sup_cell(c[2], 32, "%.1f", json_object_get(r, "tflops"), 1);
        sup_cell(c[3], 32, "%.1f", json_object_get(r, "busbw_gbs"), 1);
        sup_cell(c[4], 32, "%.2f", json_object_get(r, "checkpoint_gbs"), 1);
        sup_cell(c[5], 32, "%.0f", json_object_get(agg, "mean_w"), 1);
        sup_cell(c[6], 32, "%.0f", json_object_get(agg, "min_w"), 1);
        sup_cell(c[7], 32, "%.0f", json_object_get(agg, "max_w"), 1);
        sup_cell(c[8], 32, "%.0f", json_object_get(agg, "swing_w"), 1);
        snprintf(c[9], 32, "%lld%s%s", (long long)json_integer_value(json_object_get(r, "iterations")),
                 json_is_true(json_object_get(r, "complete")) ? "" : "*", sup_disturbed(r) ? "~" : "");
        json_t *label = json_object_get(r, "label");
        printf("  %-3zu %-*s %7s %10s %10s %8s %8s %8s %8s %8s %8s %9s\n", i + 1, wl,
               json_string_value(label ? label : json_object_get(r, "mitigation")), c[9], c[0], c[1], c[2], c[3], c[4], c[5], c[6],
               c[7], c[8]);
    }
    printf("  (busbw and ckpt in GB/s; power is the sum over ranks; swing = p99 - p1; * = run ended early; ~ = disturbed "
           "by hand: paused, a fault from the view or skipped, left out of the comparisons)\n");
    json_array_foreach(s->rn->runs, i, r) {   /* a sampler that fell behind: its real rate, beside the asked one */
        json_t *sm = json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "sampling");
        double asked = json_number_value(json_object_get(sm, "asked_hz")), got = json_number_value(json_object_get(sm, "achieved_hz"));
        if (asked > 0 && got > 0 && got < 0.98 * asked)
            printf("  run %zu: power sampled at %.1f Hz of the %.0f Hz asked (%lld grid points without a sample)\n", i + 1,
                   got, asked, (long long)json_integer_value(json_object_get(json_object_get(json_object_get(r, "power"),
                                                                                             "aggregate"), "gaps")));
    }
    sup_sensor_print(s);
    if (s->sc->auto_search)
        sup_search_print(s);
    int any = 0;
    json_array_foreach(s->rn->runs, i, r) {
        json_t *v = json_object_get(r, "vs_none");
        if (!v || strcmp(json_string_value(json_object_get(r, "mitigation")), "none") == 0)
            continue;
        if (!any++)
            printf("  against none: %-*s %10s %10s %10s %10s %10s\n", wl, "mitigation", "swing -%", "grid -%", "energy +%",
                   "time +%", "energy eff");
        char c[5][32], lbl[64];
        sup_cell(c[0], 32, "%.1f", json_object_get(v, "swing_reduction_pct"), 1);
        sup_cell(c[1], 32, "%.1f", json_object_get(v, "energy_overhead_pct"), 1);
        sup_cell(c[2], 32, "%.1f", json_object_get(v, "iteration_overhead_pct"), 1);
        sup_cell(c[3], 32, "%.1f", json_object_get(v, "grid_swing_reduction_pct"), 1);
        sup_cell(c[4], 32, "%.2f", json_object_get(v, "energy_efficiency"), 1);
        snprintf(lbl, sizeof lbl, "%s%s", sup_label(r), sup_disturbed(r) ? "~" : "");
        printf("  %-3zu           %-*s %10s %10s %10s %10s %10s%s%s%s\n", i + 1, wl, lbl, c[0], c[3], c[1], c[2], c[4],
               json_is_true(json_object_get(v, "baseline_disturbed")) ? "  (against a disturbed none)" : "",
               json_is_true(json_object_get(v, "unsettled")) ? "  (unsettled: warm-up included)" : "",
               json_object_get(v, "warning") ? "  !" : "");
    }
    json_array_foreach(s->rn->runs, i, r) {   /* what a row cannot say: it made things worse, or had nothing to act on */
        const char *w = json_string_value(json_object_get(json_object_get(r, "vs_none"), "warning"));
        if (w)
            printf("  ! run %zu %s: %s\n", i + 1, sup_label(r), w);
    }
    shapes_compare_print(json_object_get(summary, "shapes"), stdout);
    json_t *faults = json_object_get(summary, "faults");
    if (json_array_size(faults)) {
        json_int_t stale = 0;
        json_array_foreach(s->rn->runs, i, r)
            stale += json_integer_value(json_object_get(json_object_get(r, "faults"), "stale_reports"));
        printf("  faults: %zu (%lld reports of rolled-back timelines dropped)\n", json_array_size(faults), (long long)stale);
        fault_table_print(faults, stdout);
    }
    fflush(stdout);
}

/* Says in run's object what its figures take from a model rather than a measurement: `modelled`, one sentence per
 * assumption (a modelled backend's power; the mitigation's own; a facility battery on every backend). */
void sup_modelled(struct sup *s, int m, json_t *run)
{
    const struct mitigation_ops *mit = mitigation_table[s->sc->mitigations[m].index];
    json_t *a = json_array();
    if (s->ops->model_note)
        json_array_append_new(a, json_string(s->ops->model_note));
    if (mit->model_note && (s->ops->modelled || mit->facility))
        json_array_append_new(a, json_pack("s++", mit->name, ": ", mit->model_note));
    if (json_array_size(a))
        json_object_set_new(run, "modelled", a);
    else
        json_decref(a);
}
