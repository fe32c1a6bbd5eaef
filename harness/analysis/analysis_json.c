/* harness/analysis/analysis_json.c: the power analysis as JSON objects, the same for summary.json and
 * `gauntlet analyze --json`. */
#include "analysis_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

json_t *json_num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

double json_num_value(const json_t *j) { return json_is_number(j) ? json_number_value(j) : NAN; }

json_t *analysis_spec_json(const struct an_spec *spec)
{
    return json_pack("{s:f, s:f, s:f, s:[f, f], s:f}", "max_ramp_up_mw_s", spec->max_ramp_up_mw_s, "max_ramp_down_mw_s",
                     spec->max_ramp_down_mw_s, "dynamic_range_mw", spec->dynamic_range_mw, "band", spec->band_lo_hz,
                     spec->band_hi_hz, "max_band_share", spec->max_band_share);
}

int analysis_spec_from_json(const json_t *j, struct an_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    const json_t *band = json_object_get(j, "band");
    struct an_spec s = { 0 };
    double *f[] = { &s.max_ramp_up_mw_s, &s.max_ramp_down_mw_s, &s.dynamic_range_mw, &s.max_band_share };
    const char *k[] = { "max_ramp_up_mw_s", "max_ramp_down_mw_s", "dynamic_range_mw", "max_band_share" };
    for (int i = 0; i < 4; i++) {
        *f[i] = json_num_value(json_object_get(j, k[i]));
        if (!(*f[i] >= 0 && *f[i] <= 1e9))   /* as the scenario bounds them; NaN: absent or not a number */
            return -1;
    }
    s.band_lo_hz = json_num_value(json_array_get(band, 0));
    s.band_hi_hz = json_num_value(json_array_get(band, 1));
    if (json_array_size(band) != 2 || !(s.band_lo_hz >= 0 && s.band_hi_hz > s.band_lo_hz && s.band_hi_hz <= 1e6) ||
        s.max_band_share > 1)
        return -1;
    *spec = s;
    return 0;
}

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
    json_object_set_new(o, "sensor", json_pack("{s:o, s:b, s:I}", "update_ms", json_num(r->update_s * 1e3), "held",
                                               r->held, "distinct", (json_int_t)r->distinct));
    json_object_set_new(o, "unresolved", analysis_unresolved_json(r->unresolved, r->update_s, r->held, r->band_nyq_hz,
                                                                  r->peak_nyq_hz, r->bands, r->n_bands));
    return o;
}

/* " (x Hz)" of a half rate into buf (n bytes), or "" where it is not known: never "nan Hz". Returns buf. */
static const char *hz_note(char *buf, size_t n, double hz)
{
    if (isfinite(hz) && hz > 0)
        snprintf(buf, n, " (%.3g Hz)", hz);
    else
        buf[0] = 0;
    return buf;
}

json_t *analysis_unresolved_json(unsigned bits, double update_s, int held, double band_nyq_hz, double peak_nyq_hz,
                                 const struct an_band *bands, int n_bands)
{
    json_t *a = json_array();
    char fig[64], why[256], hz[32], ms[32];
    double u = update_s * 1e3;
    if (isfinite(u) && u > 0)
        snprintf(ms, sizeof ms, " (%.0f ms)", u);
    else
        ms[0] = 0;
    for (int w = 0; w < AN_RAMP_WINDOWS; w++)
        if (bits & AN_UNRES_RAMP(w)) {
            snprintf(fig, sizeof fig, "ramp_w_s.%s", an_ramp_window_names[w]);
            snprintf(why, sizeof why, "a %s window is shorter than twice the sensor's update interval%s",
                     an_ramp_window_names[w], ms);
            json_array_append_new(a, json_pack("{s:s, s:s}", "figure", fig, "why", why));
        }
    for (int w = 0; w < AN_RAMP_WINDOWS; w++)
        if (bits & AN_UNRES_RAMP_SAMPLE(w)) {
            snprintf(fig, sizeof fig, "ramp_w_s.%s", an_ramp_window_names[w]);
            snprintf(why, sizeof why, "a %s window is shorter than one sample of the series", an_ramp_window_names[w]);
            json_array_append_new(a, json_pack("{s:s, s:s}", "figure", fig, "why", why));
        }
    for (int b = 0; b < n_bands; b++)
        if (bits & AN_UNRES_BAND(b)) {
            snprintf(fig, sizeof fig, "bands.%g-%g Hz", bands[b].lo_hz, bands[b].hi_hz);
            if (held)
                snprintf(why, sizeof why, "reaches above half the sensor's update rate%s",
                         hz_note(hz, sizeof hz, band_nyq_hz));
            else   /* a series that changes every sample: its grid has no bin there */
                snprintf(why, sizeof why, "reaches above half the grid's rate%s: no bin of the spectrum is there",
                         hz_note(hz, sizeof hz, band_nyq_hz));
            json_array_append_new(a, json_pack("{s:s, s:s}", "figure", fig, "why", why));
        }
    for (int b = 0; b < n_bands; b++)
        if (bits & AN_UNRES_BAND_SHORT(b)) {
            snprintf(fig, sizeof fig, "bands.%g-%g Hz", bands[b].lo_hz, bands[b].hi_hz);
            json_array_append_new(a, json_pack("{s:s, s:s}", "figure", fig, "why", "no bin of the spectrum lies in the "
                                               "band: the trace is too short for it (its bins are 1 / its span apart)"));
        }
    if (bits & AN_UNRES_DOMINANT) {
        if (held)
            snprintf(why, sizeof why, "readings held%s: a peak below half their rate%s may be the alias of one above it "
                     "(the iteration is not known to be slower)", ms, hz_note(hz, sizeof hz, peak_nyq_hz));
        else
            snprintf(why, sizeof why, "the peak, or the iteration's rate, is not below half the rate the series changes "
                     "at%s: it may be a step's harmonic or an alias", hz_note(hz, sizeof hz, peak_nyq_hz));
        json_array_append_new(a, json_pack("{s:s, s:s}", "figure", "dominant_hz", "why", why));
    }
    for (int w = 0; w < AN_RAMP_WINDOWS; w++)
        if (bits & AN_UNRES_RAMP_SPAN(w)) {
            snprintf(fig, sizeof fig, "ramp_w_s.%s", an_ramp_window_names[w]);
            snprintf(why, sizeof why, "the trace is not longer than a %s window", an_ramp_window_names[w]);
            json_array_append_new(a, json_pack("{s:s, s:s}", "figure", fig, "why", why));
        }
    if (bits & (AN_UNRES_SPECTRUM_SHORT | AN_UNRES_SPECTRUM_FLAT))
        json_array_append_new(a, json_pack("{s:s, s:s}", "figure", "bands, dominant_hz", "why",
                                           bits & AN_UNRES_SPECTRUM_SHORT ? "a spectrum needs 4 samples at least"
                                                                          : "the power never changes: no fluctuation"));
    if (bits & AN_UNRES_DOMINANT_SPAN)
        json_array_append_new(a, json_pack("{s:s, s:s}", "figure", "dominant_hz", "why",
                                           "the strongest component has fewer than two cycles in the trace: a trend, "
                                           "not an oscillation"));
    return a;
}

/* Builds the projection object: the cluster's swing, ramps, bands and the spec's verdicts. */
json_t *analysis_projection_json(const struct an_projection *p, const struct an_spec *spec)
{
    if (p->why)   /* failed: no figures, so no verdict (zeros once passed every ramp and range clause) */
        return json_null();
    struct an_verdict v;
    analysis_check_spec(p, spec, &v);
    json_t *clauses = json_array();
    int all = 1, any = 0, open = 0;
    for (int c = 0; c < 4; c++) {
        if (!v.checked[c])
            continue;
        any = 1;
        int unres = isnan(v.value[c]);   /* a figure the sensor cannot resolve: no verdict either way */
        open |= unres;
        all &= unres || v.pass[c];
        json_array_append_new(clauses, json_pack("{s:s, s:o, s:f, s:o}", "clause", an_clause_names[c], "value",
                                                 json_num(v.value[c]), "limit", v.limit[c], "pass",
                                                 unres ? json_null() : json_boolean(v.pass[c])));
    }
    json_t *verdict = !any ? json_null() : !all ? json_false() : open ? json_null() : json_true();
    return json_pack("{s:I, s:I, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}, s:o}", "gpus", (json_int_t)p->gpus, "groups",
                     (json_int_t)p->groups, "jitter_s", p->jitter_s, "mean_mw", json_num(p->mean_mw), "swing_mw",
                     json_num(p->swing_mw), "range_mw", json_num(p->range_mw), "ramp_mw_s", json_num(fmax(p->ramp_up_mw_s, p->ramp_down_mw_s)),
                     "ramp_up_mw_s", json_num(p->ramp_up_mw_s), "dominant_hz", json_num(p->dominant_hz), "bands",
                     analysis_bands_json(p->bands, p->n_bands), "spec", "pass", verdict, "clauses", clauses, "unresolved",
                     analysis_unresolved_json(p->unresolved, p->update_s, p->held, p->band_nyq_hz,
                                              p->peak_nyq_hz, p->bands, p->n_bands));
}


json_t *analysis_bess_json(const struct an_bess *b)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "capacity_mwh", b->capacity_mwh,
                     "power_mw", b->power_mw, "efficiency", b->efficiency, "window_s", b->window_s, "grid_swing_mw",
                     json_num(b->grid_swing_mw), "grid_ramp_up_mw_s", json_num(b->grid_ramp_up_mw_s),
                     "grid_ramp_down_mw_s", json_num(b->grid_ramp_down_mw_s), "throughput_mwh",
                     json_num(b->throughput_mwh), "losses_mwh", json_num(b->losses_mwh), "energy_mwh",
                     json_num(b->energy_mwh), "losses_pct", json_num(b->losses_pct), "soc_min", json_num(b->soc_min),
                     "soc_max", json_num(b->soc_max), "battery_max_mw", json_num(b->battery_max_mw));
}
