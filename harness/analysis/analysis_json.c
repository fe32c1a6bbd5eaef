/* harness/analysis/analysis_json.c: the power analysis as JSON objects, the same for summary.json and
 * `gauntlet analyze --json`. */
#include "analysis_json.h"

#include <math.h>

json_t *json_num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Returns {lo_hz, hi_hz, share} objects of bands. */
json_t *analysis_bands_json(const struct an_band *b, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:f, s:f, s:o}", "lo_hz", b[i].lo_hz, "hi_hz", b[i].hi_hz, "share",
                                           json_num(b[i].share)));
    return a;
}

/* Returns {"10ms": x, "100ms": y, "1s": z}. */
static json_t *ramps_json(const double *v)
{
    json_t *o = json_object();
    for (int w = 0; w < AN_RAMP_WINDOWS; w++)
        json_object_set_new(o, an_ramp_window_names[w], json_num(v[w]));
    return o;
}

/* Builds a power object from an analysis: the contract's fields first, then the swing analysis. */
json_t *analysis_power_json(const struct an_result *r, double tdp_w)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:I}", "mean_w", json_num(r->mean_w), "min_w", json_num(r->min_w),
                          "max_w", json_num(r->max_w), "swing_w", json_num(r->swing_w), "samples", (json_int_t)r->samples);
    json_object_set_new(o, "range_w", json_num(r->range_w));
    json_object_set_new(o, "gaps", json_integer((json_int_t)r->gaps));
    json_object_set_new(o, "span_s", json_num(r->span_s));
    json_object_set_new(o, "p1_w", json_num(r->p1_w));
    json_object_set_new(o, "p99_w", json_num(r->p99_w));
    json_object_set_new(o, "swing_pct_tdp", json_num(tdp_w > 0 ? 100 * r->swing_w / tdp_w : NAN));
    json_object_set_new(o, "swing_pct_mean", json_num(r->mean_w > 0 ? 100 * r->swing_w / r->mean_w : NAN));
    json_object_set_new(o, "ramp_up_w_s", ramps_json(r->ramp_up_w_s));
    json_object_set_new(o, "ramp_down_w_s", ramps_json(r->ramp_down_w_s));
    json_object_set_new(o, "dominant_hz", json_num(r->dominant_hz));
    json_object_set_new(o, "bands", analysis_bands_json(r->bands, r->n_bands));
    return o;
}

/* Builds the projection object: the cluster's swing, ramps, bands and the spec's verdicts. */
json_t *analysis_projection_json(const struct an_projection *p, const struct an_spec *spec)
{
    struct an_verdict v;
    analysis_check_spec(p, spec, &v);
    json_t *clauses = json_array();
    int all = 1, any = 0;
    for (int c = 0; c < 4; c++) {
        if (!v.checked[c])
            continue;
        any = 1;
        all &= v.pass[c];
        json_array_append_new(clauses, json_pack("{s:s, s:o, s:f, s:b}", "clause", an_clause_names[c], "value",
                                                 json_num(v.value[c]), "limit", v.limit[c], "pass", v.pass[c]));
    }
    return json_pack("{s:I, s:I, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}}", "gpus", (json_int_t)p->gpus, "groups",
                     (json_int_t)p->groups, "jitter_s", p->jitter_s, "mean_mw", json_num(p->mean_mw), "swing_mw",
                     json_num(p->swing_mw), "range_mw", json_num(p->range_mw), "ramp_mw_s", json_num(fmax(p->ramp_up_mw_s, p->ramp_down_mw_s)),
                     "ramp_up_mw_s", json_num(p->ramp_up_mw_s), "dominant_hz", json_num(p->dominant_hz), "bands",
                     analysis_bands_json(p->bands, p->n_bands), "spec", "pass", any ? json_boolean(all) : json_null(),
                     "clauses", clauses);
}


json_t *analysis_bess_json(const struct an_bess *b)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "capacity_mwh", b->capacity_mwh,
                     "power_mw", b->power_mw, "efficiency", b->efficiency, "window_s", b->window_s, "grid_swing_mw",
                     json_num(b->grid_swing_mw), "grid_ramp_up_mw_s", json_num(b->grid_ramp_up_mw_s),
                     "grid_ramp_down_mw_s", json_num(b->grid_ramp_down_mw_s), "throughput_mwh",
                     json_num(b->throughput_mwh), "losses_mwh", json_num(b->losses_mwh), "soc_min", json_num(b->soc_min),
                     "soc_max", json_num(b->soc_max), "battery_max_mw", json_num(b->battery_max_mw));
}
