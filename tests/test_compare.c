/* tests/test_compare.c: the comparisons at the end of a run (run/supreport.c) over runs as summary.json holds them:
 * a run disturbed by hand is never the baseline and never a search candidate unless the scenario counts it, and the
 * end table marks it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "backend.h"
#include "run.h"
#include "scenario.h"
#include "sup.h"

/* A run's record with what the comparisons read: its mitigation, label, energy per iteration, throughput and swing. */
static json_t *run(const char *mitigation, const char *disturbed, double energy_j, double thr, double swing_w)
{
    json_t *r = json_pack("{s:s, s:f, s:f, s:{s:{s:f, s:f, s:{s:f}}}, s:[]}", "mitigation", mitigation,
                          "energy_per_iter_j", energy_j, "throughput_it_s", thr, "power", "aggregate", "swing_w", swing_w,
                          "range_w", swing_w * 1.5, "projection", "swing_mw", swing_w / 1e3, "disturbed");
    if (disturbed)
        json_array_append_new(json_object_get(r, "disturbed"), json_string(disturbed));
    return r;
}

static double vs(json_t *r, const char *key) { return json_number_value(json_object_get(json_object_get(r, "vs_none"), key)); }

static void compare(int rank_disturbed, json_t **out_runs, json_t **out_search)
{
    static struct scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.rank_disturbed = rank_disturbed;
    struct sup_run rn = { .runs = json_array() };
    struct sup s = { .sc = &sc, .rn = &rn };
    json_array_append_new(rn.runs, run("none", "paused", 200, 5.0, 1000));   /* paused: its energy per iteration rose */
    json_array_append_new(rn.runs, run("none", NULL, 100, 10.0, 1000));
    json_array_append_new(rn.runs, run("filler", NULL, 110, 10.0, 400));
    json_array_append_new(rn.runs, run("ramp", "fault_by_hand", 90, 10.0, 100));   /* looks best; it is not comparable */
    sup_compare_runs(&s);
    *out_search = sup_search(&s);
    *out_runs = rn.runs;
}

Test(compare, a_disturbed_run_is_neither_the_baseline_nor_a_candidate)
{
    json_t *runs, *search;
    compare(0, &runs, &search);
    json_t *filler = json_array_get(runs, 2);
    cr_assert_float_eq(vs(filler, "energy_overhead_pct"), 10, 1e-9, "against the none left alone (100 J), not the paused one");
    cr_assert_float_eq(vs(filler, "swing_reduction_pct"), 60, 1e-9);
    cr_assert_null(json_object_get(json_object_get(filler, "vs_none"), "baseline_disturbed"));
    cr_assert_eq(json_integer_value(json_object_get(search, "candidates")), 2, "the clean none and filler");
    json_t *left = json_object_get(search, "left_out_disturbed");
    cr_assert_eq(json_array_size(left), 2);
    cr_assert_str_eq(json_string_value(json_array_get(left, 0)), "none");
    cr_assert_str_eq(json_string_value(json_array_get(left, 1)), "ramp");
    json_t *p;
    size_t i;
    cr_assert_gt(json_array_size(json_object_get(search, "pareto")), 0, "the clean runs make a front");
    json_array_foreach(json_object_get(search, "pareto"), i, p)
        cr_assert_str_neq(json_string_value(json_object_get(p, "label")), "ramp", "a disturbed run on the Pareto front");
    json_decref(runs);
    json_decref(search);
}

Test(compare, rank_disturbed_counts_them_as_asked)
{
    json_t *runs, *search;
    compare(1, &runs, &search);
    cr_assert_float_eq(vs(json_array_get(runs, 2), "energy_overhead_pct"), -45, 1e-9, "against the first none, paused");
    cr_assert_eq(json_integer_value(json_object_get(search, "candidates")), 4);
    cr_assert_eq(json_array_size(json_object_get(search, "left_out_disturbed")), 0);
    json_decref(runs);
    json_decref(search);
}

Test(compare, every_none_disturbed_still_compares_and_says_so)
{
    static struct scenario sc;
    memset(&sc, 0, sizeof sc);
    struct sup_run rn = { .runs = json_array() };
    struct sup s = { .sc = &sc, .rn = &rn };
    json_array_append_new(rn.runs, run("none", "skipped", 100, 10.0, 1000));
    json_array_append_new(rn.runs, run("filler", NULL, 120, 10.0, 500));
    sup_compare_runs(&s);
    json_t *v = json_object_get(json_array_get(rn.runs, 1), "vs_none");
    cr_assert_float_eq(json_number_value(json_object_get(v, "energy_overhead_pct")), 20, 1e-9);
    cr_assert(json_is_true(json_object_get(v, "baseline_disturbed")), "the comparison says its baseline was disturbed");
    json_decref(rn.runs);
}

/* A candidate of a search as summary.json holds it: run as above, with its index, label, projected range against
 * the spec's dynamic_range_mw (pass: value <= limit) and, for a battery (power_mw > 0), its figures. */
static json_t *cand(int m, const char *mitigation, const char *label, double energy_j, double swing_w, double range_mw,
                    double limit_mw, double power_mw, double losses_pct)
{
    json_t *r = run(mitigation, NULL, energy_j, 10.0, swing_w);
    json_object_set_new(r, "run", json_integer(m));
    if (label)
        json_object_set_new(r, "label", json_string(label));
    json_t *pr = json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "projection");
    json_object_set_new(pr, "spec", json_pack("{s:b, s:[{s:s, s:f, s:f, s:b}]}", "pass", range_mw <= limit_mw, "clauses",
                                              "clause", "dynamic_range_mw", "value", range_mw, "limit", limit_mw, "pass",
                                              range_mw <= limit_mw));
    if (power_mw > 0)
        json_object_set_new(pr, "bess", json_pack("{s:f, s:f, s:f, s:f}", "power_mw", power_mw, "capacity_mwh",
                                                  power_mw / 60, "grid_swing_mw", swing_w / 1e4, "losses_pct", losses_pct));
    return r;
}

/* The supervisor's state the comparisons and the search read, for the scenario text (sim's backend). */
struct fixture {
    struct shm_hdr *hdr;
    struct rs_trace *none[SC_MAX_MITIGATIONS];   /* no none run's power kept */
    struct sup_run rn;
    struct sup s;
};

static void fixture(struct fixture *f, const char *mitigations)
{
    char text[1024], err[1024] = "";
    snprintf(text, sizeof text, "name: m\nranks: 2\niterations: 5\nworkload:\n  gemm: {m: 64, n: 64, k: 64}\n"
                                "  allreduce: {bytes: 1MiB}\nmitigations: %s\n", mitigations);
    f->hdr = calloc(1, sizeof *f->hdr);
    cr_assert(f->hdr);
    cr_assert_eq(scenario_load_string(text, "t.yaml", &f->hdr->sc, err, sizeof err), 0, "%s", err);
    memset(f->none, 0, sizeof f->none);
    f->rn = (struct sup_run){ .runs = json_array(), .base_trace = f->none };
    memset(&f->s, 0, sizeof f->s);
    f->s.sc = &f->hdr->sc;
    f->s.shm.hdr = f->hdr;
    f->s.rn = &f->rn;
    f->s.ops = backend_find("sim");
    f->s.res.events_fd = -1;
    f->s.res.node = -1;
}

static void fixture_end(struct fixture *f)
{
    json_decref(f->rn.runs);
    free(f->hdr);
}

/* A battery leaves the GPUs' work as it is: its energy is its own losses over the cluster's energy (never the GPUs'
 * run-to-run difference, here 3 % less), the same in the search; what the node's swing does against none is noise,
 * never a warning; and the closest miss named for the GPU side is a GPU-side candidate, however close a battery came. */
Test(compare, a_battery_pays_its_own_losses_and_is_never_the_gpu_side_answer)
{
    struct fixture f;
    fixture(&f, "[none, {filler: {floor: 60%}}, {bess: {capacity_mwh: 1, power_mw: 1}}, "
                "{bess: {capacity_mwh: 2, power_mw: 2}}]");
    json_array_append_new(f.rn.runs, cand(0, "none", NULL, 100, 1000, 6.0, 0.5, 0, 0));
    json_array_append_new(f.rn.runs, cand(1, "filler", "filler floor=60%", 110, 500, 3.0, 0.5, 0, 0));
    json_array_append_new(f.rn.runs, cand(2, "bess", "bess small", 97, 1250, 0.6, 0.5, 1, 1.1));   /* fails, by little */
    json_array_append_new(f.rn.runs, cand(3, "bess", "bess large", 99, 900, 0.3, 0.5, 2, 0.8));
    /* its GPUs ran 3 % slower than none's, by noise alone: a battery costs no time */
    json_object_set_new(json_array_get(f.rn.runs, 3), "throughput_it_s", json_real(10.0 / 1.03));
    sup_compare_runs(&f.s);
    json_t *r, *search = sup_search(&f.s);
    size_t i;
    json_array_foreach(f.rn.runs, i, r)
        if (json_object_get(json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "projection"), "bess")) {
            json_t *v = json_object_get(r, "vs_none");
            double losses = json_number_value(json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(r,
                                                 "power"), "aggregate"), "projection"), "bess"), "losses_pct"));
            cr_assert_float_eq(vs(r, "energy_overhead_pct"), losses, 1e-9, "run %zu: its losses, not the GPUs' noise", i);
            cr_assert_float_eq(vs(r, "iteration_overhead_pct"), 0, 1e-12, "run %zu: a battery costs no time", i);
            cr_assert_null(json_object_get(v, "warning"), "run %zu: %s", i, json_string_value(json_object_get(v, "warning")));
        }
    json_t *st = json_object_get(search, "cheapest_storage_passing");
    cr_assert_str_eq(json_string_value(json_object_get(st, "label")), "bess large");
    cr_assert_float_eq(json_number_value(json_object_get(st, "energy_overhead_pct")), 0.8, 1e-9);
    json_array_foreach(json_object_get(search, "pareto"), i, r)
        if (strncmp(json_string_value(json_object_get(r, "label")), "bess", 4) == 0)
            cr_assert_gt(json_number_value(json_object_get(r, "energy_overhead_pct")), 0, "a battery's losses cost energy");
    json_t *c = json_object_get(search, "closest_failure");
    cr_assert(json_is_null(json_object_get(search, "cheapest_passing")) && json_is_object(c));
    json_array_foreach(f.rn.runs, i, r)   /* the closest GPU-side miss is GPU-side */
        if (strcmp(sup_label(r), json_string_value(json_object_get(c, "label"))) == 0)
            cr_assert_str_neq(json_string_value(json_object_get(r, "mitigation")), "bess", "closest: %s", sup_label(r));
    cr_assert_str_eq(json_string_value(json_object_get(c, "label")), "filler floor=60%");
    json_decref(search);
    fixture_end(&f);
}

/* A swing that is not known (no valid sample in the stretch) gives no reduction, never 100 %. */
Test(compare, an_unknown_swing_removes_nothing_known)
{
    struct fixture f;
    fixture(&f, "[none, {filler: {floor: 60%}}]");
    json_array_append_new(f.rn.runs, cand(0, "none", NULL, 100, 1000, 6.0, 0.5, 0, 0));
    json_t *r = cand(1, "filler", NULL, 110, 500, 3.0, 0.5, 0, 0), *agg = json_object_get(json_object_get(r, "power"), "aggregate");
    json_object_set_new(agg, "swing_w", json_null());
    json_object_set_new(agg, "range_w", json_null());
    json_object_set_new(json_object_get(agg, "projection"), "swing_mw", json_null());
    json_array_append_new(f.rn.runs, r);
    sup_compare_runs(&f.s);
    json_t *v = json_object_get(r, "vs_none");
    cr_assert(json_is_null(json_object_get(v, "swing_reduction_pct")), "swing: %s", json_dumps(v, 0));
    cr_assert(json_is_null(json_object_get(v, "range_reduction_pct")));
    cr_assert(json_is_null(json_object_get(v, "grid_swing_reduction_pct")));
    fixture_end(&f);
}

/* A spec that was given but that no candidate could be judged on is said to be so, never "no spec given". */
Test(compare, a_spec_given_but_not_judged_says_so)
{
    struct fixture f;
    fixture(&f, "[none, {filler: {floor: 60%}}]");
    for (int m = 0; m < 2; m++) {
        json_t *r = cand(m, m ? "filler" : "none", NULL, 100 + 10 * m, 1000 - 500 * m, 6.0, 0.5, 0, 0);
        json_object_set_new(json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "projection"), "spec",
                            json_pack("{s:n, s:[{s:s, s:n, s:f, s:n}]}", "pass", "clauses", "clause", "max_band_share",
                                      "value", "limit", 0.5, "pass"));
        json_array_append_new(f.rn.runs, r);
    }
    sup_compare_runs(&f.s);
    json_t *search = sup_search(&f.s);
    cr_assert(json_is_true(json_object_get(search, "spec_given")), "a spec was given");
    cr_assert(json_is_false(json_object_get(search, "spec_judged")));
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(search, "spec_unresolved"), 0)), "max_band_share");
    json_decref(search);
    fixture_end(&f);
}

/* The refinement runs between the cheapest passing candidate and its neighbour of the same parameter that was
 * measured cheaper (and failed): a higher ramp rate, a lower filler floor; never towards a dearer one. Each case: the
 * energy of the candidates in order, the spec's pass. */
Test(compare, the_refinement_goes_towards_the_cheaper_side)
{
    struct {
        const char *list;
        double energy[5];
        int pass[5];
        double lo, hi;   /* where both refined values must lie, strictly */
    } c[] = {
        { "[none, {ramp: {ramp_w_s: [1000, 3000, 10000]}}]", { 100, 118, 117, 110 }, { 0, 1, 1, 0 }, 3000, 10000 },
        { "[none, {ramp: {ramp_w_s: [1000, 3000, 10000]}}]", { 100, 118, 116, 110 }, { 0, 1, 0, 0 }, 1000, 3000 },
        { "[none, {filler: {floor: [40%, 60%, 80%, 90%]}}]", { 100, 104, 108, 112, 116 }, { 0, 0, 0, 0, 1 }, 80, 90 },
        { "[none, {filler: {floor: [40%, 60%, 80%, 90%]}}]", { 100, 104, 108, 112, 116 }, { 0, 0, 0, 1, 1 }, 60, 80 },
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        struct fixture f;
        fixture(&f, c[k].list);
        int n = f.hdr->sc.n_mitigations;
        cr_assert_leq(n, 5);
        for (int m = 0; m < n; m++)
            json_array_append_new(f.rn.runs, cand(m, m ? f.hdr->sc.mitigations[m].name : "none",
                                                  m ? f.hdr->sc.mitigations[m].label : NULL, c[k].energy[m], 500,
                                                  c[k].pass[m] ? 0.4 : 0.6, 0.5, 0, 0));
        cr_assert_eq(sup_refine(&f.s), 2, "case %zu: two refined candidates", k);
        for (int m = n; m < f.hdr->sc.n_mitigations; m++) {
            const char *label = f.hdr->sc.mitigations[m].label, *eq = strchr(label, '=');
            double x = eq ? strtod(eq + 1, NULL) : NAN;
            cr_assert(x > c[k].lo && x < c[k].hi, "case %zu: %s, expected between %g and %g", k, label, c[k].lo, c[k].hi);
        }
        fixture_end(&f);
    }
}

/* The Pareto front allows the noise of energy and time: a candidate with more grid swing and more energy than none is
 * never on it for being faster by less than that noise; any candidate on it is dominated by none of the others. */
Test(compare, the_pareto_front_is_not_made_of_noise)
{
    struct fixture f;
    fixture(&f, "[none, {filler: {floor: [40%, 80%]}}]");
    json_array_append_new(f.rn.runs, cand(0, "none", NULL, 100, 1000, 6.0, 0.5, 0, 0));
    json_t *r = cand(1, "filler", "filler floor=40%", 103.3, 1000, 6.0, 0.5, 0, 0);   /* +3.3 % energy */
    json_object_set_new(r, "throughput_it_s", json_real(10.0 / (1 - 0.0028)));   /* 0.28 % faster */
    json_object_set_new(json_object_get(json_object_get(json_object_get(r, "power"), "aggregate"), "projection"), "swing_mw",
                        json_real(1.047));   /* 4.7 % more grid swing */
    json_array_append_new(f.rn.runs, r);
    json_array_append_new(f.rn.runs, cand(2, "filler", "filler floor=80%", 112, 400, 3.0, 0.5, 0, 0));
    sup_compare_runs(&f.s);
    json_t *search = sup_search(&f.s), *p;
    size_t i;
    json_array_foreach(json_object_get(search, "pareto"), i, p)
        cr_assert_str_neq(json_string_value(json_object_get(p, "label")), "filler floor=40%", "more swing and energy, faster by noise");
    cr_assert_eq(json_array_size(json_object_get(search, "pareto")), 2, "none and filler 80 %%");
    json_decref(search);
    fixture_end(&f);
}

/* The efficiency of a filler whose floor lies below everything the none run drew: it added energy its result needed
 * none of (the least fill is 0), so its efficiency is 0, not null; null only where a run added no energy. */
Test(compare, energy_spent_for_nothing_is_an_efficiency_of_0)
{
    struct fixture f;
    fixture(&f, "[none, {filler: {floor: 10%}}, {filler: {floor: 20%}}]");
    enum { N = 50 };
    static double t[N], w[2 * N];
    for (int i = 0; i < N; i++) {   /* the none run's power: 2 GPUs, never below 600 W, far above a 10 % floor */
        t[i] = 0.01 * i;
        w[i] = w[N + i] = 600 + 100 * (i % 2);
    }
    struct rs_trace tr = { .n = N, .nranks = 2, .t_s = t, .w = w, .iters = 5 };
    f.none[0] = &tr;
    double energy[3] = { 100, 110, 99 };   /* the second filler added none */
    for (int m = 0; m < 3; m++) {
        json_t *r = cand(m, m ? "filler" : "none", NULL, energy[m], 500, 6.0, 0.5, 0, 0);
        json_object_set_new(json_object_get(r, "power"), "per_rank",
                            json_pack("[{s:f}, {s:f}]", "p1_w", 600.0, "p1_w", 600.0));
        json_array_append_new(f.rn.runs, r);
    }
    sup_compare_runs(&f.s);
    json_t *v = json_object_get(json_array_get(f.rn.runs, 1), "vs_none");
    cr_assert_float_eq(json_number_value(json_object_get(v, "energy_added_j")), 10, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(v, "energy_least_j")), 0, 1e-12);
    cr_assert(json_is_number(json_object_get(v, "energy_efficiency")), "added 10 J for nothing: %s", json_dumps(v, 0));
    cr_assert_float_eq(json_number_value(json_object_get(v, "energy_efficiency")), 0, 1e-12);
    v = json_object_get(json_array_get(f.rn.runs, 2), "vs_none");
    cr_assert(json_is_null(json_object_get(v, "energy_efficiency")), "added no energy: %s", json_dumps(v, 0));
    f.none[0] = NULL;
    fixture_end(&f);
}
