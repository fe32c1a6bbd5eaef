/* harness/run/supsearch.c: `mitigations: auto`: the search over the runs' comparisons with none (the Pareto front,
 * the cheapest candidate meeting projection.spec, or the closest miss), its refinement, and its lines in the end
 * table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis_json.h"
#include "run.h"
#include "mitigations/mitigation.h"
#include "results.h"
#include "util.h"


/* Returns run r's label (a sweep's or a search's candidate) or its mitigation. */
const char *sup_label(json_t *r)
{
    json_t *l = json_object_get(r, "label");
    return json_string_value(l ? l : json_object_get(r, "mitigation"));
}

/* Returns one overhead of run r against none (NAN when unknown). */
double sup_vs(json_t *r, const char *key) { return sup_num(json_object_get(r, "vs_none"), key); }

/* The battery of run r (its power rating, MW) when it is a `bess` run, else 0: storage is a cost of its own,
 * counted apart from the energy and time a GPU-side mitigation pays. */
static double sup_storage_mw(json_t *r)
{
    json_t *b = json_object_get(json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "projection"), "bess");
    return strcmp(json_string_value(json_object_get(r, "mitigation")), "bess") == 0 && json_is_object(b)
               ? json_number_value(json_object_get(b, "power_mw")) : 0;
}

/* Pareto dominance with the noise of the comparison: energy and time paid within SUP_NOISE_PCT points of each other
 * are taken as equal (docs/power.md: the time paid repeats within about 0.7 %, and energy per iteration is power over
 * throughput), so that a candidate is never on the front for being faster or cheaper by noise alone; the grid swing
 * and the storage are compared as they are. */
#define SUP_NOISE_PCT 1.0

/* Whether cost x2 is no worse than x (tolerance tol), and better by more than tol. */
static int sup_no_worse(double x2, double x, double tol) { return x2 <= x + tol; }
static int sup_better(double x2, double x, double tol) { return x2 < x - tol; }

/* Whether run r's readings follow its iteration: one they cannot (vs_none.swing_measurable false) removed a swing
 * that is an alias's, never ranked (as the shapes comparison does; until 2026-12-02 the search could name it). */
static int sup_measurable(json_t *r) { return !json_is_false(json_object_get(json_object_get(r, "vs_none"), "swing_measurable")); }

/* Whether run r is a GPU-side candidate that meets the spec. */
static int sup_passes_gpu_side(struct sup *s, json_t *r)
{
    json_t *pass = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(r, "power"),
                                                                                      "aggregate"), "projection"), "spec"), "pass");
    return sup_ranked(s, r) && sup_measurable(r) && json_is_true(pass) && sup_storage_mw(r) == 0;
}

/* The cheapest GPU-side candidate meeting the spec: the least energy, energies within SUP_NOISE_PCT of it taken as
 * equal, and of those the least time (until 2026-12-02 the least energy alone: 0.2 points cheaper beat 5 % faster),
 * *e and *t its figures; NULL where none passes. */
static json_t *sup_cheapest(struct sup *s, double *e, double *t)
{
    json_t *r, *best = NULL;
    size_t i;
    double emin = INFINITY;
    json_array_foreach(s->rn->runs, i, r)
        if (sup_passes_gpu_side(s, r) && sup_vs(r, "energy_overhead_pct") < emin)
            emin = sup_vs(r, "energy_overhead_pct");
    *e = *t = INFINITY;
    json_array_foreach(s->rn->runs, i, r) {   /* a time not known is the last choice, not none (NAN compares false) */
        double ei = sup_vs(r, "energy_overhead_pct"), ti = sup_vs(r, "iteration_overhead_pct"), tk = isnan(ti) ? INFINITY : ti;
        if (sup_passes_gpu_side(s, r) && ei <= emin + SUP_NOISE_PCT &&
            (!best || tk < (isnan(*t) ? INFINITY : *t) || (tk == (isnan(*t) ? INFINITY : *t) && ei < *e))) {
            best = r;
            *e = ei;
            *t = ti;
        }
    }
    return best;
}

/* sup_search, and the cheapest passing candidate's run object in *best_run (NULL: none). */
static json_t *sup_search_best(struct sup *s, json_t **best_run)
{
    json_t *r, *pareto = json_array(), *best = NULL, *closest = NULL, *store = NULL;
    size_t i, j;
    double best_e = INFINITY, best_t = INFINITY, closest_ratio = INFINITY, store_mw = INFINITY;
    const char *closest_clause = NULL;
    int spec_given = 0, judged = 0, candidates = 0;
    json_t *left_out = json_array(), *unresolved = json_array(), *unmeasurable = json_array();
    json_array_foreach(s->rn->runs, i, r) {
        if (!sup_ranked(s, r)) {   /* disturbed by hand: not ranked (rank_disturbed: true to count it) */
            json_array_append_new(left_out, json_string(sup_label(r)));
            continue;
        }
        if (!sup_measurable(r)) {
            json_array_append_new(unmeasurable, json_string(sup_label(r)));
            continue;
        }
        candidates++;
        json_t *spec = json_object_get(json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"),
                                                       "projection"), "spec");
        json_t *pass = json_object_get(spec, "pass"), *cl;
        size_t k;
        double e = sup_vs(r, "energy_overhead_pct"), t = sup_vs(r, "iteration_overhead_pct");
        double g = -sup_vs(r, "grid_swing_reduction_pct"), mw = sup_storage_mw(r);
        if (json_array_size(json_object_get(spec, "clauses")))
            spec_given = 1;
        if (json_is_boolean(pass))
            judged = 1;
        json_array_foreach(json_object_get(spec, "clauses"), k, cl) {   /* the clauses no verdict could be given on */
            json_t *name = json_object_get(cl, "clause"), *u;
            size_t n;
            int seen = 0;
            json_array_foreach(unresolved, n, u)
                seen |= json_equal(u, name);
            if (json_is_null(json_object_get(cl, "pass")) && json_is_string(name) && !seen)
                json_array_append(unresolved, name);
        }
        if (json_is_true(pass) && mw > 0 && mw < store_mw) {   /* the smallest battery that meets the spec */
            store = r;
            store_mw = mw;
        }
        if (json_is_false(pass) && mw == 0) {   /* how far a GPU-side one misses: its worst clause, value over limit */
            double worst = 0;
            const char *which = NULL;
            json_array_foreach(json_object_get(spec, "clauses"), k, cl) {
                double ratio = json_number_value(json_object_get(cl, "value")) / json_number_value(json_object_get(cl, "limit"));
                if (json_is_false(json_object_get(cl, "pass")) && ratio > worst) {
                    worst = ratio;
                    which = json_string_value(json_object_get(cl, "clause"));
                }
            }
            if (which && worst < closest_ratio) {
                closest_ratio = worst;
                closest = r;
                closest_clause = which;
            }
        }
        /* dominated: by a run no costlier in energy, time (both within the noise), storage and grid swing, and
         * cheaper in one (energy or time beyond the noise) */
        int dominated = 0;
        json_t *q;
        json_array_foreach(s->rn->runs, j, q) {
            double e2 = sup_vs(q, "energy_overhead_pct"), t2 = sup_vs(q, "iteration_overhead_pct");
            double g2 = -sup_vs(q, "grid_swing_reduction_pct"), mw2 = sup_storage_mw(q);
            if (j != i && sup_ranked(s, q) && sup_measurable(q) && sup_no_worse(e2, e, SUP_NOISE_PCT) && sup_no_worse(t2, t, SUP_NOISE_PCT) &&
                g2 <= g && mw2 <= mw &&
                (sup_better(e2, e, SUP_NOISE_PCT) || sup_better(t2, t, SUP_NOISE_PCT) || g2 < g || mw2 < mw))
                dominated = 1;
        }
        if (!dominated && isfinite(e) && isfinite(t) && isfinite(g))
            json_array_append_new(pareto, json_pack("{s:s, s:f, s:f, s:f, s:f}", "label", sup_label(r), "grid_swing_reduction_pct",
                                                    -g, "energy_overhead_pct", e, "iteration_overhead_pct", t, "storage_mw", mw));
    }
    json_t *out = json_pack("{s:i, s:o, s:f, s:b, s:b, s:o, s:o}", "candidates", candidates, "pareto", pareto,
                            "pareto_noise_pct", SUP_NOISE_PCT, "spec_given", spec_given, "spec_judged", judged,
                            "spec_unresolved", unresolved, "left_out_disturbed", left_out);
    json_object_set_new(out, "left_out_unmeasurable", unmeasurable);
    best = sup_cheapest(s, &best_e, &best_t);
    json_object_set_new(out, "cheapest_passing",
                        best ? json_pack("{s:s, s:f, s:f}", "label", sup_label(best), "energy_overhead_pct", best_e,
                                         "iteration_overhead_pct", best_t)
                             : json_null());
    json_t *sb = store ? json_object_get(json_object_get(json_object_get(json_object_get(store, "power"), "aggregate"),
                                                         "projection"), "bess") : NULL;
    json_object_set_new(out, "cheapest_storage_passing",
                        store ? json_pack("{s:s, s:f, s:o, s:o}", "label", sup_label(store), "power_mw", store_mw,
                                          "capacity_mwh", json_copy(json_object_get(sb, "capacity_mwh")),
                                          "energy_overhead_pct", json_num(sup_vs(store, "energy_overhead_pct")))
                              : json_null());
    json_object_set_new(out, "closest_failure",
                        !best && closest ? json_pack("{s:s, s:s, s:f}", "label", sup_label(closest), "clause",
                                                     closest_clause, "value_over_limit", closest_ratio)
                                         : json_null());
    *best_run = best;
    return out;
}

json_t *sup_search(struct sup *s)
{
    json_t *best;
    return sup_search_best(s, &best);
}

/* Reads parameter p of params as a number into x (a power's unit into percent: 1 for %, 0 for W); -1 when it is not one. */
static int sup_param_value(const struct param *p, const void *params, double *x, int *percent)
{
    if (p->type == PT_POWER) {
        const struct power_value *v = (const void *)((const char *)params + p->off);
        *x = v->value;
        *percent = v->percent;
        return 0;
    }
    if (p->type == PT_DOUBLE) {
        *x = *(const double *)(const void *)((const char *)params + p->off);
        *percent = 0;
        return 0;
    }
    return -1;
}

/* Returns the run of candidate m (runs[].run), or NULL. */
static json_t *sup_run_of(struct sup *s, int m)
{
    json_t *r;
    size_t i;
    json_array_foreach(s->rn->runs, i, r)
        if (json_is_integer(json_object_get(r, "run")) && json_integer_value(json_object_get(r, "run")) == m)
            return r;
    return NULL;
}

int sup_refine(struct sup *s)
{
    struct scenario *sc = &s->shm.hdr->sc;   /* the workers read the candidates from here */
    sup_compare_runs(s);
    json_t *best, *sr = sup_search_best(s, &best);
    /* the candidate by its run, never by its label (until 2026-11-30: two runs of one label took the last of them) */
    json_int_t run = best && json_is_integer(json_object_get(best, "run")) ? json_integer_value(json_object_get(best, "run"))
                                                                          : -1;
    int bi = run >= 0 && run < sc->n_mitigations ? (int)run : -1, added = 0;
    json_decref(sr);
    if (bi <= 0)
        return 0;
    const struct plugin_spec *b = &sc->mitigations[bi];
    const struct param *p = plugin_mitigations.table[b->index]->params;
    char text[64], key[32];
    double xb, x, eb = sup_vs(sup_run_of(s, bi), "energy_overhead_pct");
    int unit, u;
    if (!p || sscanf(b->label, "%*s %31[^=]=", key) != 1 || !(p = param_find(p, key)) ||
        sup_param_value(p, b->params, &xb, &unit) != 0 || !isfinite(eb))
        return 0;
    /* its neighbours of the same mitigation and unit in the coarse pass, below and above its value; the cheaper
     * side is the one whose neighbour was measured cheaper (it failed the spec): a lower filler floor, a higher ramp
     * rate. None cheaper: nothing between them can cost less. */
    int lo = -1, hi = -1, ni = -1;
    double xlo = -INFINITY, xhi = INFINITY;
    for (int i = 0; i < sc->n_mitigations; i++)
        if (i != bi && sc->mitigations[i].index == b->index &&
            sup_param_value(p, sc->mitigations[i].params, &x, &u) == 0 && u == unit) {
            if (x < xb && x > xlo) {
                lo = i;
                xlo = x;
            } else if (x > xb && x < xhi) {
                hi = i;
                xhi = x;
            }
        }
    double elo = lo >= 0 ? sup_vs(sup_run_of(s, lo), "energy_overhead_pct") : NAN;
    double ehi = hi >= 0 ? sup_vs(sup_run_of(s, hi), "energy_overhead_pct") : NAN;
    if (elo < eb && !(ehi < elo))
        ni = lo;
    else if (ehi < eb)
        ni = hi;
    double xn;
    if (ni < 0 || sup_param_value(p, sc->mitigations[ni].params, &xn, &u) != 0)
        return 0;
    for (int k = 1; k <= 2 && sc->n_mitigations < SC_MAX_MITIGATIONS; k++) {   /* from the cheaper one towards the best */
        x = xn + (xb - xn) * k / 3.0;
        if (p->type == PT_POWER)
            snprintf(text, sizeof text, "%.4g%s", x, unit ? "%" : "W");
        else
            snprintf(text, sizeof text, "%.6g", x);
        struct plugin_spec *m = &sc->mitigations[sc->n_mitigations];
        char why[256];
        *m = *b;
        if (param_parse(p, text, m->params, why, sizeof why) != 0)
            break;
        char label[sizeof m->label];
        snprintf(label, sizeof label, "%s %s=%s", b->name, p->name, text);
        str_copy(m->label, sizeof m->label, label);
        sc->n_mitigations++;
        added++;
    }
    if (added)
        results_event(&s->res, mono_ns(), "search_refine",
                      json_pack("{s:s, s:s, s:i}", "around", b->label, "towards", sc->mitigations[ni].label, "candidates",
                                added));
    return added;
}

void sup_search_print(struct sup *s)
{
    json_t *sr = sup_search(s), *b = json_object_get(sr, "cheapest_passing"), *c = json_object_get(sr, "closest_failure");
    json_t *st = json_object_get(sr, "cheapest_storage_passing"), *u;
    size_t i, front = json_array_size(json_object_get(sr, "pareto"));
    if (!json_is_true(json_object_get(sr, "spec_given"))) {
        printf("  search: no projection.spec given: nothing to meet; %zu candidates on the Pareto front\n", front);
    } else if (!json_is_true(json_object_get(sr, "spec_judged"))) {
        printf("  search: spec given, not judged: unresolved");
        json_array_foreach(json_object_get(sr, "spec_unresolved"), i, u)
            printf("%s %s", i ? "," : "", json_string_value(u));
        printf(" (projection.unresolved says why); %zu candidates on the Pareto front\n", front);
    } else if (json_is_object(b)) {
        printf("  search: cheapest meeting the spec (least energy, within 1 point, then least time): %s (%+.1f %% energy, %+.1f %% time)\n",
               json_string_value(json_object_get(b, "label")), json_number_value(json_object_get(b, "energy_overhead_pct")),
               json_number_value(json_object_get(b, "iteration_overhead_pct")));
    } else if (json_is_object(c)) {
        printf("  search: no GPU-side candidate meets the spec; closest: %s, %s at %.2f x its limit\n",
               json_string_value(json_object_get(c, "label")), json_string_value(json_object_get(c, "clause")),
               json_number_value(json_object_get(c, "value_over_limit")));
    } else {
        printf("  search: no GPU-side candidate meets the spec\n");
    }
    if (json_is_true(json_object_get(sr, "spec_given")) && json_is_object(st)) {
        char e[32];
        json_t *v = json_object_get(st, "energy_overhead_pct");
        if (json_is_number(v))
            snprintf(e, sizeof e, "%+.1f %%", json_number_value(v));
        else
            snprintf(e, sizeof e, "unknown");
        printf("  search: or facility storage: %s, %.1f MW / %.2f MWh (%s energy in its losses)\n",
               json_string_value(json_object_get(st, "label")), json_number_value(json_object_get(st, "power_mw")),
               json_number_value(json_object_get(st, "capacity_mwh")), e);
    }
    json_decref(sr);
}
