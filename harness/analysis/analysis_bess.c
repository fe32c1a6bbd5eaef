/* harness/analysis/analysis_bess.c: a facility battery on the projected cluster's trace, and a utility's spec checked
 * against a projection (analysis.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "util.h"

int analysis_bess(const double *p, size_t n, double dt, struct an_bess *b, double *grid)
{
    if (!n || !(dt > 0) || !(b->capacity_mwh > 0) || !(b->power_mw > 0) || !(b->efficiency > 0 && b->efficiency <= 1))
        return -1;
    double cap = b->capacity_mwh * 3600;   /* MJ (MW s) */
    double soc = cap / 2, leg = sqrt(b->efficiency), alpha = dt / (b->window_s > dt ? b->window_s : dt);
    double avg = 0, thr = 0, loss = 0, energy = 0;
    size_t warm = (size_t)(b->window_s / dt);   /* the setpoint starts at the first window's mean (a warm start) */
    if (warm < 1 || warm > n)
        warm = n < 1 ? 1 : (warm > n ? n : 1);
    for (size_t i = 0; i < warm; i++)
        avg += p[i] / (double)warm;
    double *g = grid ? grid : xmalloc(n * sizeof *g);
    b->soc_min = b->soc_max = 0.5;
    b->battery_max_mw = 0;
    for (size_t i = 0; i < n; i++) {
        avg += alpha * (p[i] - avg);   /* the grid's setpoint: an exponential moving average */
        double want = p[i] - avg;      /* > 0: the battery discharges, < 0: it charges */
        double batt = fmax(-b->power_mw, fmin(b->power_mw, want));
        if (batt > 0) {   /* energy out of storage: batt / leg */
            double e = fmin(batt * dt / leg, soc);
            batt = e * leg / dt;
            soc -= e;
            loss += e - batt * dt;
        } else if (batt < 0) {   /* energy into storage: -batt * leg */
            double e = fmin(-batt * dt * leg, cap - soc);
            batt = -e / leg / dt;
            soc += e;
            loss += -batt * dt - e;
        }
        g[i] = p[i] - batt;
        energy += p[i] * dt;
        thr += fabs(batt) * dt;
        b->battery_max_mw = fmax(b->battery_max_mw, fabs(batt));
        b->soc_min = fmin(b->soc_min, soc / cap);
        b->soc_max = fmax(b->soc_max, soc / cap);
    }
    struct an_series gs = { g, n, dt, 0, 0 };
    struct an_result r;
    analysis_run(&gs, NULL, 0, &r);
    b->grid_swing_mw = r.swing_w;
    b->grid_range_mw = r.range_w;
    b->grid_ramp_up_mw_s = r.ramp_up_w_s[AN_RAMP_WINDOWS - 1];
    b->grid_ramp_down_mw_s = r.ramp_down_w_s[AN_RAMP_WINDOWS - 1];
    b->soc_end = soc / cap;
    b->throughput_mwh = thr / 3600;
    b->losses_mwh = loss / 3600;
    b->energy_mwh = energy / 3600;
    b->losses_pct = energy > 0 ? 100 * loss / energy : NAN;
    if (!grid)
        free(g);
    return 0;
}

int analysis_bess_grid(const double *trace, const double *held, size_t n, double dt, const struct an_band *bands,
                       int n_bands, const struct an_projection *base, struct an_bess *b, struct an_projection *gp)
{
    struct an_bess bh = *b;
    double *grid = xmalloc((n ? n : 1) * sizeof *grid);
    int rc = analysis_bess(trace, n, dt, b, grid);
    if (rc == 0 && held && analysis_bess(held, n, dt, &bh, NULL) == 0) {
        b->grid_swing_mw = bh.grid_swing_mw;   /* as none's cluster swing and range are taken: on the readings */
        b->grid_range_mw = bh.grid_range_mw;
    }
    if (rc == 0 && analysis_project_series(grid, n, dt, bands, n_bands, base, gp) == 0) {
        gp->swing_mw = b->grid_swing_mw;   /* its ramps and spectrum stay the line's, as the cluster's do */
        gp->range_mw = b->grid_range_mw;
        b->grid_ramp_up_mw_s = gp->ramp_up_mw_s;   /* with what the sensor cannot resolve left unmeasured, as the */
        b->grid_ramp_down_mw_s = gp->ramp_down_mw_s;   /* spec's clauses take them: never a figure beside a null */
        rc = 1;
    } else if (rc == 0) {   /* the line's ramps without the sensor's limits: not given */
        b->grid_ramp_up_mw_s = NAN;
        b->grid_ramp_down_mw_s = NAN;
    }
    free(grid);
    return rc;
}

int analysis_bands_with_spec(const struct an_spec *spec, struct an_band bands[AN_MAX_BANDS])
{
    int nb = 4;
    memcpy(bands, an_default_bands, 4 * sizeof *bands);
    if (!spec || !(spec->band_hi_hz > spec->band_lo_hz))
        return nb;
    for (int b = 0; b < nb; b++)
        if (bands[b].lo_hz == spec->band_lo_hz && bands[b].hi_hz == spec->band_hi_hz)
            return nb;
    bands[nb++] = (struct an_band){ spec->band_lo_hz, spec->band_hi_hz, 0 };
    return nb;
}

void analysis_check_spec(const struct an_projection *p, const struct an_spec *spec, struct an_verdict *v)
{
    memset(v, 0, sizeof *v);
    double limits[4] = { spec->max_ramp_up_mw_s, spec->max_ramp_down_mw_s, spec->dynamic_range_mw, spec->max_band_share };
    double band = NAN;
    for (int b = 0; b < p->n_bands; b++)
        if (p->bands[b].lo_hz == spec->band_lo_hz && p->bands[b].hi_hz == spec->band_hi_hz)
            band = p->bands[b].share;
    double values[4] = { p->ramp_up_mw_s, p->ramp_down_mw_s, p->range_mw, band };   /* dynamic range: max - min */
    for (int c = 0; c < 4; c++) {
        v->limit[c] = limits[c];
        v->value[c] = values[c];
        v->checked[c] = limits[c] > 0 && isfinite(limits[c]);
        v->pass[c] = v->checked[c] && isfinite(values[c]) && values[c] <= limits[c];   /* no figure: no pass */
    }
}
