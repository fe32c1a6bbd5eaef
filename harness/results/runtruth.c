/* harness/results/runtruth.c: on a modelled backend, the figures of the electrical power itself beside what the
 * modelled sensor reported (docs/power.md, "What a GPU's sensor lets you see"), and the gaps between compute phases
 * that say whether a sensor could resolve them. */
#include <math.h>

#include "analysis_json.h"
#include "runstats.h"
#include "util.h"

json_t *runtruth_json(const struct run_stats *rs, double thr)
{
    if (!rs->tick_true || !rs->warm_ns)
        return NULL;
    size_t a, b;   /* the stretch the readings' figures take */
    runstats_stretch(rs, &a, &b);
    struct series *per = xcalloc((size_t)rs->nranks, sizeof *per);
    double sum = 0;
    size_t n = 0;
    for (size_t i = a; i < b; i++) {
        double agg = 0;
        int all = 1;
        for (int r = 0; r < rs->nranks; r++) {
            double w = rs->tick_true[r][i];
            if (isfinite(w)) {
                series_add(&per[r], w);
                agg += w;
            } else {
                all = 0;
            }
        }
        if (all) {
            sum += agg;
            n++;
        }
    }
    json_t *swing = json_array(), *p1 = json_array();
    for (int r = 0; r < rs->nranks; r++) {
        /* one reading has no swing (as the analysis: 0 W until 2026-12-02) */
        json_array_append_new(swing, json_num(per[r].n >= 2 ? series_pct(&per[r], 99) - series_pct(&per[r], 1) : NAN));
        json_array_append_new(p1, json_num(per[r].n ? series_pct(&per[r], 1) : NAN));
        series_free(&per[r]);
    }
    free(per);
    double mean = n ? sum / (double)n : NAN;
    return json_pack("{s:s, s:o, s:o, s:o, s:o}", "source",
                     "the model's electrical power behind the readings (power.csv true_w), not what a sensor reports",
                     "mean_w", json_num(mean), "energy_per_iter_j", json_num(thr > 0 ? mean / thr : NAN),
                     "per_rank_swing_w", swing, "per_rank_p1_w", p1);
}

json_t *runstats_gap_json(const struct run_stats *rs)
{
    struct series all = { 0 };
    for (int r = 0; r < rs->nranks; r++)
        for (size_t k = 0; k < rs->rank[r].gap_s.n; k++)
            series_add(&all, rs->rank[r].gap_s.v[k]);
    json_t *o = json_pack("{s:o, s:o}", "p50", json_num(series_pct(&all, 50)), "min", json_num(series_pct(&all, 0)));
    series_free(&all);
    return o;
}
