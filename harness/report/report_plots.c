/* harness/report/report_plots.c: the two overlay panels of `gauntlet report`'s picture, one line per mitigation in the
 * colours of its trace: the iteration-synchronous waveform (summary.json's per-GPU power over the phase within the
 * iteration) and the amplitude spectrum of each run's node power over the stretch its figures were taken over
 * (analysis_spectrum), 0-20 Hz on a log scale with the grid's bands shaded; and the lines they are drawn with, gaps where a value is missing. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "report_int.h"
#include "util.h"

#define RP_PLOT_H 180     /* one overlay panel's plotting area */
#define RP_LEFT 120       /* where the plotting area starts, as the traces' */
#define RP_SPEC_HZ 20.0   /* the spectrum's top frequency, when Nyquist is above it */
#define RP_DECADES 4      /* the spectrum's log scale */

static const char *const rp_colors[] = { "#444444", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                         "#e377c2", "#bcbd22", "#17becf" };
#define RP_NCOLORS (int)(sizeof rp_colors / sizeof rp_colors[0])

/* Returns the colour of run i (its trace, its lines). */
const char *rp_color(int i)
{
    return rp_colors[i % RP_NCOLORS];
}

/* Returns the dash of run i's lines: none for the first runs, dashed once the colours come round again. */
const char *rp_dash(int i)
{
    return (i / RP_NCOLORS) % 2 ? " stroke-dasharray=\"6 3\"" : "";
}

/* Extends the pen's line to (x, y); a point that is not finite ends the stretch (a gap). */
void rp_pen_to(struct rp_pen *p, double x, double y)
{
    if (!isfinite(x) || !isfinite(y)) {
        if (!p->path)
            rp_pen_end(p);
        p->drawing = 0;
        return;
    }
    if (!p->open)
        fprintf(p->f, p->path ? "<path fill=\"none\" %s d=\"" : "<polyline fill=\"none\" %s points=\"", p->attrs);
    if (p->path)
        fputs(p->drawing ? "L" : "M", p->f);
    p->open = p->drawing = 1;
    fprintf(p->f, "%.1f,%.1f ", x, y);
}

/* Ends the pen's line: closes its element. */
void rp_pen_end(struct rp_pen *p)
{
    if (p->open)
        fprintf(p->f, "\"/>\n");
    p->open = p->drawing = 0;
}

/* Returns how many rows the legend of n runs takes in a width of w. */
static int rp_legend_rows(const struct rp_run *runs, int n, double w)
{
    double x = 0;
    int rows = n > 0;
    for (int i = 0; i < n; i++) {
        double len = 30 + 7.0 * (double)strlen(runs[i].name);
        if (x > 0 && x + len > w)
            rows++, x = 0;
        x += len;
    }
    return rows;
}

/* Draws the legend (a swatch and the name of each run) from (x0, y0) in a width of w, wrapping as
 * rp_legend_rows counts. */
static void rp_legend(FILE *f, double x0, double y0, const struct rp_run *runs, int n, double w)
{
    double x = 0, y = y0;
    for (int i = 0; i < n; i++) {
        double len = 30 + 7.0 * (double)strlen(runs[i].name);
        if (x > 0 && x + len > w)
            y += 16, x = 0;
        fprintf(f, "<line class=\"legend\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s "
                   "stroke-width=\"3\"/><text x=\"%.1f\" y=\"%.1f\">", x0 + x, y - 4, x0 + x + 18, y - 4, rp_color(i),
                rp_dash(i), x0 + x + 22, y);
        rp_xml(f, runs[i].name);
        fprintf(f, "</text>\n");
        x += len;
    }
}

/* Returns the height of one overlay panel of n runs: title, legend, plotting area, axis. */
static double rp_panel_height(const struct rp_run *runs, int n)
{
    return 40 + 16.0 * rp_legend_rows(runs, n, RP_W - 20) + RP_PLOT_H + 40;
}

/* Returns the height of the waveform and spectrum panels of n runs. */
double rp_plots_height(const struct rp_run *runs, int n)
{
    return 2 * rp_panel_height(runs, n);
}

/* Draws the title and legend of a panel at y0 and its frame; returns the top of its plotting area. */
static double rp_frame(FILE *f, double y0, const struct rp_run *runs, int n, const char *title)
{
    fprintf(f, "<text x=\"10\" y=\"%.0f\" font-size=\"15\">%s</text>\n", y0 + 22, title);
    rp_legend(f, 20, y0 + 44, runs, n, RP_W - 20);
    return y0 + 40 + 16.0 * rp_legend_rows(runs, n, RP_W - 20);
}

/* Draws the waveform panel at y0: each run's per-GPU power over the phase within the iteration. */
static void rp_waveform(FILE *f, double y0, const struct rp_run *runs, int n)
{
    const double w = RP_W - 130, h = RP_PLOT_H;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        json_t *wave = json_object_get(json_object_get(json_object_get(runs[i].summary, "power"), "aggregate"),
                                       "waveform_per_gpu_w"), *v;
        size_t b;
        json_array_foreach(wave, b, v)
            if (isfinite(rp_fig(v))) {   /* a bin past RP_FIG_MAX is none: missing, as a null */
                lo = fmin(lo, rp_fig(v));
                hi = fmax(hi, rp_fig(v));
            }
    }
    double top = rp_frame(f, y0, runs, n, "Iteration-synchronous waveform: power per GPU over the iteration, averaged "
                                          "over iterations");
    if (!(hi >= lo)) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">no waveform in summary.json</text>\n",
                RP_LEFT + w / 2, top + h / 2);
        return;
    }
    double step = rp_step((hi - lo > 1 ? hi - lo : 1) / 4);
    lo = floor(lo / step) * step;
    hi = fmax(ceil(hi / step) * step, lo + step);
    fprintf(f, "<g class=\"waveform\" data-left=\"%d\" data-top=\"%.1f\" data-width=\"%.1f\" data-height=\"%.1f\" "
               "data-w-lo=\"%.9g\" data-w-hi=\"%.9g\">\n<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
               "fill=\"none\" stroke=\"#cccccc\"/>\n", RP_LEFT, top, w, h, lo, hi, RP_LEFT, top, w, h);
    for (int k = 0, nt = rp_ticks(lo, hi, step, RP_TICKS_MAX); k < nt; k++) {   /* bounded, whatever the values */
        double t = lo + k * step, y = top + h * (1 - (t - lo) / (hi - lo));
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/><text x=\"%d\" y=\"%.1f\" "
                   "text-anchor=\"end\" fill=\"#888\">%g W</text>\n", RP_LEFT, y, RP_LEFT + w, y, RP_LEFT - 6, y + 4, t);
    }
    for (int q = 0; q <= 4; q++)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">%g</text>\n", RP_LEFT + w * q / 4,
                top + h + 14, q / 4.0);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">phase within the iteration (0: rank 0's compute "
               "starts)</text>\n", RP_LEFT + w / 2, top + h + 30);
    for (int i = 0; i < n; i++) {
        json_t *wave = json_object_get(json_object_get(json_object_get(runs[i].summary, "power"), "aggregate"),
                                       "waveform_per_gpu_w"), *v;
        size_t b, nb = json_array_size(wave);
        char attrs[128];
        snprintf(attrs, sizeof attrs, "class=\"waveform-line\" stroke=\"%s\"%s stroke-width=\"1.5\"", rp_color(i),
                 rp_dash(i));
        struct rp_pen pen = { .f = f, .attrs = attrs, .path = 1 };
        fprintf(f, "<g class=\"waveform-run\" data-label=\"");
        rp_xml(f, runs[i].name);
        fprintf(f, "\">\n");
        json_array_foreach(wave, b, v)   /* each bin at its middle; one no sample fell in (null) is left out */
            if (isfinite(rp_fig(v)))
                rp_pen_to(&pen, RP_LEFT + w * ((double)b + 0.5) / (double)nb, top + h * (1 - (rp_fig(v) - lo) / (hi - lo)));
        rp_pen_end(&pen);
        fprintf(f, "</g>\n");
    }
    fprintf(f, "</g>\n");
}

/* Computes the amplitude spectrum of run r's node power over the stretch its figures were taken over (run_end's
 * analysed_s, each end within power.csv's microsecond), else after its warm-up to the run's end (all of it when
 * fewer than 16 samples follow), resampled at its mean sampling step; fills *freq and *amp (malloc'd) and returns
 * the bins, 0 if none. */
static size_t rp_run_spectrum(const struct rp_run *r, double **freq, double **amp)
{
    size_t a = 0, b = 0, m = 0;
    *freq = *amp = NULL;
    if (isfinite(r->a0) && isfinite(r->a1)) {   /* the summary's own stretch: until 2026-11-30 the run's end, which
                                                 * took in the ranks' drop to idle after the first rank was done */
        while (a < r->n && r->t[a] < r->a0 - 1e-6)
            a++;
        b = r->n;
        while (b > a && r->t[b - 1] > r->a1 + 1e-6)
            b--;
    }
    if (b - a < 4) {   /* not said, or no stretch of this trace */
        a = 0;
        b = r->n;
        while (a < r->n && isfinite(r->warm) && r->t[a] < r->warm)
            a++;
        if (r->n - a < 16)
            a = 0;
    }
    if (b - a < 4)
        return 0;
    double dt = (r->t[b - 1] - r->t[a]) / (double)(b - 1 - a), *y;
    if (!(dt > 0))
        return 0;
    size_t k = analysis_resample(r->t + a, r->w + a, b - a, dt, &y);
    struct an_series s = { y, k, dt, 0, 0 };
    *freq = xmalloc((k / 2 + 1) * sizeof **freq);
    *amp = xmalloc((k / 2 + 1) * sizeof **amp);
    if (!k || analysis_spectrum(&s, *freq, *amp, k / 2 + 1, &m) != 0)
        m = 0;
    free(y);
    return m;
}

/* Draws the spectrum panel at y0: each run's amplitude per frequency, log scale, the grid's bands shaded. */
static void rp_spectrum(FILE *f, double y0, const struct rp_run *runs, int n)
{
    const double w = RP_W - 130, h = RP_PLOT_H;
    double *freq[RP_MAX_RUNS], *amp[RP_MAX_RUNS], fmax_hz = 0, amax = 0;
    size_t m[RP_MAX_RUNS];
    for (int i = 0; i < n; i++) {
        m[i] = rp_run_spectrum(&runs[i], &freq[i], &amp[i]);
        if (m[i])
            fmax_hz = fmax(fmax_hz, fmin(RP_SPEC_HZ, freq[i][m[i] - 1]));
    }
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < m[i] && freq[i][k] <= fmax_hz; k++)
            amax = fmax(amax, amp[i][k]);
    double top = rp_frame(f, y0, runs, n, "Spectrum of the node power after the warm-up: amplitude per frequency, log "
                                          "scale; shaded: the grid's bands");
    if (!(amax > 0) || !isfinite(amax)) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">no spectrum: traces too short</text>\n",
                RP_LEFT + w / 2, top + h / 2);
    } else {
        double dhi = ceil(log10(amax)), dlo = dhi - RP_DECADES;
#define RP_FX(v) (RP_LEFT + (v) / fmax_hz * w)
#define RP_AY(v) (top + h * (dhi - fmax(log10(v), dlo)) / RP_DECADES)
        fprintf(f, "<g class=\"spectrum\" data-left=\"%d\" data-top=\"%.1f\" data-width=\"%.1f\" data-height=\"%.1f\" "
                   "data-hz-max=\"%.9g\" data-log-lo=\"%g\" data-log-hi=\"%g\">\n", RP_LEFT, top, w, h, fmax_hz, dlo, dhi);
        for (int b = 0; b < 4 && an_default_bands[b].lo_hz < fmax_hz; b++) {
            double lo = an_default_bands[b].lo_hz, hi = fmin(an_default_bands[b].hi_hz, fmax_hz);
            fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/><text "
                       "x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" fill=\"#777\">%g-%g</text>\n",
                    RP_FX(lo), top, RP_FX(hi) - RP_FX(lo), h, b % 2 ? "#eef3f9" : "#f6f1e8", (RP_FX(lo) + RP_FX(hi)) / 2,
                    top + 12, an_default_bands[b].lo_hz, an_default_bands[b].hi_hz);
        }
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#cccccc\"/>\n", RP_LEFT,
                top, w, h);
        for (double d = dlo; d <= dhi && d - dlo <= RP_DECADES; d++)   /* dhi is finite: RP_DECADES + 1 lines */
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/><text x=\"%d\" y=\"%.1f\" "
                       "text-anchor=\"end\" fill=\"#888\">%g W</text>\n", RP_LEFT, RP_AY(pow(10, d)), RP_LEFT + w,
                    RP_AY(pow(10, d)), RP_LEFT - 6, RP_AY(pow(10, d)) + 4, pow(10, d));
        double step = rp_step(fmax_hz / 10);
        for (int k = 0, nt = rp_ticks(0, fmax_hz, step, RP_TICKS_MAX); k < nt; k++)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">%g</text>\n", RP_FX(k * step),
                    top + h + 14, k * step);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">frequency, Hz (amplitude of the node's power, "
                   "sum over ranks)</text>\n", RP_LEFT + w / 2, top + h + 30);
        for (int i = 0; i < n; i++) {
            char attrs[128];
            snprintf(attrs, sizeof attrs, "class=\"spectrum-line\" stroke=\"%s\"%s stroke-width=\"1.5\"", rp_color(i),
                     rp_dash(i));
            struct rp_pen pen = { .f = f, .attrs = attrs, .path = 1 };
            fprintf(f, "<g class=\"spectrum-run\" data-label=\"");
            rp_xml(f, runs[i].name);
            fprintf(f, "\">\n");
            for (size_t k = 0; k < m[i] && freq[i][k] <= fmax_hz * (1 + 1e-9); k++)
                rp_pen_to(&pen, RP_FX(freq[i][k]), RP_AY(amp[i][k]));
            rp_pen_end(&pen);
            fprintf(f, "</g>\n");
        }
        fprintf(f, "</g>\n");
#undef RP_FX
#undef RP_AY
    }
    for (int i = 0; i < n; i++) {
        free(freq[i]);
        free(amp[i]);
    }
}

/* Draws the waveform panel at y0, the spectrum panel under it. */
void rp_plots_svg(FILE *f, double y0, const struct rp_run *runs, int n)
{
    rp_waveform(f, y0, runs, n);
    rp_spectrum(f, y0 + rp_panel_height(runs, n), runs, n);
}
