/* harness/analysis/analysis_json.h: the power analysis as JSON objects (summary.json, `gauntlet analyze --json`). */
#ifndef GAUNTLET_ANALYSIS_JSON_H
#define GAUNTLET_ANALYSIS_JSON_H

#include <jansson.h>

#include "analysis.h"

/* Returns a JSON number, or null for NAN (missing is not zero). */
json_t *json_num(double x);
/* A spec as the start event records it: {max_ramp_up_mw_s, max_ramp_down_mw_s, dynamic_range_mw, band: [lo, hi],
 * max_band_share} (0: a clause not checked). */
json_t *analysis_spec_json(const struct an_spec *spec);
/* Reads j (analysis_spec_json's) into spec: 0, or -1 where j is no such object (spec then checks nothing). */
int analysis_spec_from_json(const json_t *j, struct an_spec *spec);
/* The number j holds, NaN where it is none (null, absent): never the 0 json_number_value gives those. */
double json_num_value(const json_t *j);
/* The string of v, or "" when v is not a string. */
static inline const char *json_str_or(json_t *v) { return json_is_string(v) ? json_string_value(v) : ""; }

/* Returns [{lo_hz, hi_hz, share}...]. */
json_t *analysis_bands_json(const struct an_band *b, int n);
/* Returns a power object: mean_w, min_w, max_w, swing_w, samples, p1_w, p99_w, swing_p99_p1_w, swing_pct_tdp,
 * swing_pct_mean, ramp_up_w_s, ramp_down_w_s, dominant_hz, bands. tdp_w NAN: unknown. */
json_t *analysis_power_json(const struct an_result *r, double tdp_w);
/* Returns the projection object with the spec's verdicts; null for a failed projection (p->why set). */
json_t *analysis_projection_json(const struct an_projection *p, const struct an_spec *spec);

/* Returns the battery's ratings and results. */
json_t *analysis_bess_json(const struct an_bess *b);

/* Returns [{figure, why}] for every figure its sensor could not resolve (bits: AN_UNRES_*, update_s the sensor's
 * update interval, held whether its readings were held, band_nyq_hz and peak_nyq_hz the half rates the bands and the
 * dominant frequency were bounded by (an_result's), bands the figures' bands; [] when none). A figure not known (a
 * NAN interval or rate) is left out of the reason, never printed as nan. */
json_t *analysis_unresolved_json(unsigned bits, double update_s, int held, double band_nyq_hz, double peak_nyq_hz,
                                 const struct an_band *bands, int n_bands);

#endif
