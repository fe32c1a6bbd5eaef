/* harness/run/supsensor.c: summary.json's `sensor` — what each GPU's power readings come from, and the update
 * interval and lag its runs measured (docs/results.md). */
#include <math.h>
#include <stdio.h>

#include "analysis_json.h"
#include "run.h"

/* Returns the median of the non-null numbers at key of every run's per_rank[rank].sensor (NAN: none). */
static double sup_sensor_median(json_t *runs, int rank, const char *key)
{
    double v[SC_MAX_MITIGATIONS];
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r) {
        json_t *x = json_object_get(json_object_get(json_array_get(json_object_get(json_object_get(r, "power"), "per_rank"),
                                                                    (size_t)rank), "sensor"), key);
        if (json_is_number(x) && n < SC_MAX_MITIGATIONS)
            v[n++] = json_number_value(x);
    }
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
            double t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : NAN;
}

double sup_sensor_max_s(json_t *run, const char *key)
{
    double most = 0;
    size_t i;
    json_t *pr;
    json_array_foreach(json_object_get(json_object_get(run, "power"), "per_rank"), i, pr) {
        json_t *v = json_object_get(json_object_get(pr, "sensor"), key);
        if (json_is_number(v))
            most = fmax(most, 1e-3 * json_number_value(v));
    }
    return most;
}

json_t *sup_sensor_json(struct sup *s)
{
    json_t *a = json_array();
    for (int r = 0; r < s->nranks; r++) {
        char src[320] = "";
        if (s->ops->sensor_source)
            s->ops->sensor_source(s->ps, s->slot_of[r], src, sizeof src);
        json_array_append_new(a, json_pack("{s:i, s:o, s:o, s:s}", "rank", r, "update_ms",
                                           json_num(sup_sensor_median(s->rn->runs, r, "update_ms")), "lag_ms",
                                           json_num(sup_sensor_median(s->rn->runs, r, "lag_ms")), "source", src));
    }
    return a;
}

void sup_sensor_print(struct sup *s)
{
    size_t i;
    json_t *sens = sup_sensor_json(s);   /* what the readings come from, and what they could not resolve */
    double umin = INFINITY, umax = 0, lmin = INFINITY, lmax = 0;
    json_t *e;
    json_array_foreach(sens, i, e) {
        double u = json_number_value(json_object_get(e, "update_ms")), l = json_number_value(json_object_get(e, "lag_ms"));
        if (json_is_number(json_object_get(e, "update_ms")))
            umin = fmin(umin, u), umax = fmax(umax, u);
        if (json_is_number(json_object_get(e, "lag_ms")))
            lmin = fmin(lmin, l), lmax = fmax(lmax, l);
    }
    if (umax > 0) {
        char us[48], ls[64];
        if (umax > umin + 0.5)
            snprintf(us, sizeof us, "%.0f-%.0f ms", umin, umax);
        else
            snprintf(us, sizeof us, "%.0f ms", umin);
        if (!isfinite(lmin))
            snprintf(ls, sizeof ls, "lag not measured");
        else if (lmax > lmin + 0.5)
            snprintf(ls, sizeof ls, "lag %.0f-%.0f ms", lmin, lmax);
        else
            snprintf(ls, sizeof ls, "lag %.0f ms", lmin);
        printf("  sensor: a reading every %s, %s behind a compute phase's start; %s\n", us, ls,
               json_string_value(json_object_get(json_array_get(sens, 0), "source")));
    }
    json_decref(sens);
    json_t *r;
    json_array_foreach(s->rn->runs, i, r) {   /* the readings' energy against the counter's, where they disagree */
        json_t *cc = json_object_get(json_object_get(r, "energy"), "cross_check");
        if (json_is_true(json_object_get(cc, "flagged")))
            printf("  run %zu: the readings add up to %+.1f %% of the energy counter's count: the sensor misses part of "
                   "the swing (summary: energy.cross_check)\n", i + 1,
                   json_number_value(json_object_get(cc, "disagreement_pct")));
    }
    json_t *ur = json_object_get(json_object_get(json_object_get(json_array_get(s->rn->runs, 0), "power"), "aggregate"),
                                 "unresolved");
    if (json_array_size(ur)) {
        printf("  not resolved by the sensor (null in summary.json):");
        json_array_foreach(ur, i, e)
            printf("%s %s", i ? "," : "", json_string_value(json_object_get(e, "figure")));
        printf("\n");
    }
}
