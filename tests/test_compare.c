/* tests/test_compare.c: the comparisons at the end of a run (run/supreport.c) over runs as summary.json holds them:
 * a run disturbed by hand is never the baseline and never a search candidate unless the scenario counts it, and the
 * end table marks it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run.h"

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
