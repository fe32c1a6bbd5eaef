/* tui/draw.c: one screen, top to bottom — header, power chart, a line per GPU (sparkline, readings, phase
 * strip), measurements, the mitigation comparison, the event log, the keys. Everything is drawn from the
 * model and the ui state onto stdscr; ncurses sends only what changed. */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "faults/fault.h"
#include "plugin.h"
#include "text.h"
#include "tui.h"
#include "util.h"

void tui_colors(struct tui_ui *ui)
{
    if (!ui->color || !has_colors() || start_color() == ERR) {
        ui->color = 0;
        return;
    }
    use_default_colors();
    static const short fg[] = { 0, COLOR_RED, COLOR_BLUE, COLOR_YELLOW, COLOR_MAGENTA, COLOR_GREEN, COLOR_CYAN, COLOR_RED,
                                COLOR_YELLOW, COLOR_GREEN, COLOR_RED, COLOR_BLACK, COLOR_YELLOW, COLOR_CYAN };   /* by enum pair */
    for (int p = P_COMPUTE; p <= P_SEL; p++)
        init_pair((short)p, fg[p], p == P_HEAD ? COLOR_CYAN : -1);
}

/* The glyph for the terminal: UTF-8 where the locale has it, else ASCII. */
static const char *U(const struct tui_ui *ui, const char *uni, const char *asc) { return ui->unicode ? uni : asc; }

/* v in fmt, or "-" when it was never measured (never a 0 that reads as one). Returns out. */
static const char *fmt_v(char *out, size_t n, const char *fmt, double v)
{
    snprintf(out, n, isfinite(v) ? fmt : "-", v);
    return out;
}

/* "1234 W", "12.3 kW", "-" */
static void fmt_w(char *out, size_t n, double w)
{
    if (!isfinite(w))
        snprintf(out, n, "-");
    else if (fabs(w) >= 1e6)
        snprintf(out, n, "%.2f MW", w / 1e6);
    else if (fabs(w) >= 1e4)
        snprintf(out, n, "%.1f kW", w / 1e3);
    else
        snprintf(out, n, "%.0f W", w);
}

static void fmt_hms(char *out, size_t n, double s)
{
    long t = isfinite(s) && s >= 0 ? (long)s : -1;
    snprintf(out, n, t < 0 ? "--:--:--" : "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* ---- header */
static void draw_header(const struct vm *m, const struct tui_ui *ui, int y)
{
    char dev[96] = "", a[16], b[16], rs[16];
    int same = 1, n = 0;
    for (int r = 0; r < m->nranks; r++) {
        if (!m->rank[r].device[0])
            continue;
        if (!n++)
            str_copy(dev, sizeof dev, m->rank[r].device);
        else if (strcmp(dev, m->rank[r].device) != 0)
            same = 0;
    }
    tui_on(ui, P_HEAD, ui->color ? A_BOLD : A_REVERSE);
    move(y, 0);
    hline(' ', COLS);
    move(y + 1, 0);
    hline(' ', COLS);
    int64_t it = vm_iter(m);
    char nodes[24] = "";
    if (m->nodes > 1)
        snprintf(nodes, sizeof nodes, " on %d nodes", m->nodes);
    int cut = ui->replay && ui->no_end && ui->now >= ui->t_end && m->state != VS_FINISHED;   /* the record ends here */
    tui_putf(y, 0, " gauntlet %s  %s  %s  %d%s%s%s  run %d/%d %s  [%s]%s", ui->replay ? "view" : "run", m->scenario,
         m->backend, m->gpus > m->nranks ? (int)m->gpus : n ? n : m->nranks, *dev ? U(ui, "× ", "x ") : " ", *dev ? (same ? dev : "mixed GPUs") : "ranks", nodes,
         m->run + 1, m->runs, m->run_label, cut ? "killed: no end event" : vm_state_label(m),
         ui->replay ? (ui->playing ? U(ui, "  ▶ replay", "  > replay") : U(ui, "  ‖ replay", "  || replay")) : "");
    double elapsed = ui->now;
    double rate = m->m.it_per_s;
    double left_it = (double)(m->iterations - it) + (double)(m->runs - m->run - 1) * (double)m->iterations;
    /* paused: the rate decays towards 0 over the window and the time left would balloon; neither is the run's */
    if (m->state == VS_PAUSED)
        rate = NAN;
    double remaining = rate > 0 && m->state != VS_FINISHED && !cut ? left_it / rate : NAN;
    fmt_hms(a, sizeof a, elapsed);
    fmt_hms(b, sizeof b, remaining);
    char sp[64] = "";
    if (ui->replay)
        snprintf(sp, sizeof sp, "  speed %gx%s", ui->speed, ui->no_power ? "  no power.csv" : "");
    char sens[48];   /* held readings: what the sensor lets the figures below resolve */
    snprintf(sens, sizeof sens, isfinite(m->m.sensor_ms) ? "  readings every %.0f ms" : "", m->m.sensor_ms);
    tui_putf(y + 1, 0, " iter %lld/%lld  %s it/s  elapsed %s  remaining %s%s%s%s", (long long)it, (long long)m->iterations,
         fmt_v(rs, sizeof rs, "%.1f", rate), a, b, sp, sens, m->exit_code >= 0 ? "  (finished)" : "");
    attrset(A_NORMAL);
}

/* Reads the aggregate (rank < 0) or a rank over [t0, t1): min, max and mean of the bins there. */
static int slice(const struct vm *m, int rank, double t0, double t1, double *mn, double *mx, double *mean)
{
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    long cnt = 0;
    struct vm_bin b;
    double step = VM_BIN_S;
    if (t1 - t0 < step)
        t1 = t0 + step * 0.5;   /* finer than a bin: the bin it lies in */
    /* counted in whole steps, at most a ring's worth: at a time of ~1e15 s t + step is t again, and a loop on t
     * never ended (until 2026-12-02: a record line at t_s 2e15 froze the view) */
    double span = ceil((t1 - t0) / step);
    long steps = span > 0 ? (span < VM_BINS + 1 ? (long)span : VM_BINS + 1) : 0;
    for (long i = 0; i < steps; i++) {
        double t = t0 + (double)i * step;
        if (!(rank < 0 ? vm_agg_bin(m, t, &b) : vm_rank_bin(m, rank, t, &b)))
            continue;
        lo = fmin(lo, b.min);
        hi = fmax(hi, b.max);
        sum += b.sum;
        cnt += b.n;
    }
    if (!cnt)
        return 0;
    *mn = lo;
    *mx = hi;
    *mean = sum / (double)cnt;
    return 1;
}

static int live_ranks(const struct vm *m)
{
    int n = 0;
    for (int r = 0; r < m->nranks; r++)
        n += !m->rank[r].dropped;
    return n;
}

/* ---- the aggregate power chart: solid up to the slice's minimum, shaded up to its maximum (the swing) */
static void draw_chart(const struct vm *m, const struct tui_ui *ui, int y, int h)
{
    char a[32], b[32], c[32], who[96];
    int x0 = 8, cw = COLS - x0 - 1;
    if (cw < 4 || h < 2)
        return;
    double t1 = ui->now, t0 = t1 - ui->window_s, dt = ui->window_s / cw;
    double lo = INFINITY, hi = 0, cur = NAN;
    double *mn = xmalloc((size_t)cw * sizeof *mn), *mx = xmalloc((size_t)cw * sizeof *mx);
    for (int c = 0; c < cw; c++) {
        double mean;
        if (!slice(m, -1, t0 + c * dt, t0 + (c + 1) * dt, &mn[c], &mx[c], &mean)) {
            mn[c] = mx[c] = NAN;
            continue;
        }
        lo = fmin(lo, mn[c]);
        hi = fmax(hi, mx[c]);
        cur = mean;
    }
    int nl = live_ranks(m);
    double floor_w = m->floor_w * nl, cap_w = m->cap_w * nl;
    hi = fmax(hi, fmax(floor_w, cap_w));
    if (!(hi > 0))
        hi = isfinite(m->tdp_w) && nl ? m->tdp_w * nl : 1000;
    hi *= 1.08;
    double ylo = ui->logscale ? fmax(1, (isfinite(lo) ? lo : hi / 100) * 0.5) : 0;
    fmt_w(a, sizeof a, cur);
    fmt_w(b, sizeof b, lo);
    fmt_w(c, sizeof c, isfinite(lo) ? hi / 1.08 : NAN);
    tui_on(ui, 0, A_BOLD);
    char title[256];
    int tl = snprintf(title, sizeof title, "Power, %s, last %.0f s%s: now %s  band [%s, %s]",
                      vm_power_title(m, m->gpus > m->nranks ? (int)m->gpus : m->nranks, who, sizeof who), ui->window_s,
                      ui->logscale ? ", log scale" : "", a, b, c);
    tui_putf(y, 0, "%s", title);
    attrset(A_NORMAL);
    int lx = COLS - 24 > tl ? COLS - 24 : tl;   /* the floor's or cap's label after the title, never over it: where it
                                                 * does not fit, its line on the chart still shows it */
    if ((m->floor_w > 0 || m->cap_w > 0) && lx + 20 <= COLS) {
        fmt_w(a, sizeof a, m->floor_w > 0 ? floor_w : cap_w);
        tui_on(ui, P_LINE, 0);
        tui_putf(y, lx, "  %s %s %s", m->floor_w > 0 ? "floor" : "cap", a, U(ui, "──", "--"));
    }
    attrset(A_NORMAL);
    y++;
    h--;
    /* the value at the bottom of row i (0: the lowest) */
#define YV(i) (ui->logscale ? ylo * pow(hi / ylo, (double)(i) / h) : hi * (double)(i) / h)
    for (int i = 0; i < h; i++) {
        int row = y + h - 1 - i;
        if (i == h - 1 || i == 0 || i == h / 2) {
            fmt_w(a, sizeof a, YV(i + 1));
            tui_putf(row, 0, "%7s", a);
        }
        for (int c = 0; c < cw; c++) {
            double v0 = YV(i), v1 = YV(i + 1);
            const char *g = " ";
            int pair = P_CHART;
            if (isfinite(mn[c])) {
                if (v1 <= mn[c]) {
                    g = ui->unicode ? "█" : "#";
                } else if (v0 < mn[c]) {
                    static const char *const eighths[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
                    int k = (int)lround(8 * (mn[c] - v0) / (v1 - v0));
                    if (ui->unicode)
                        g = k > 0 ? eighths[k] : "░";
                    else
                        g = k >= 4 ? "#" : ":";
                    if (!k)
                        pair = P_BAND;
                } else if (v0 < mx[c]) {
                    g = ui->unicode ? "░" : ":";
                    pair = P_BAND;
                }
            }
            if (*g == ' ') {
                double line = floor_w > 0 ? floor_w : cap_w;
                if (line > 0 && line >= v0 && line < v1) {
                    g = ui->unicode ? "─" : "-";
                    pair = P_LINE;
                }
            }
            tui_on(ui, pair, 0);
            mvaddstr(row, x0 + c, g);
        }
        attrset(A_NORMAL);
        mvaddstr(row, x0 - 1, ui->unicode ? "│" : "|");
    }
#undef YV
    free(mn);
    free(mx);
}

static const char *phase_glyph(const struct tui_ui *ui, int ph)
{
    static const char *const uni[VP_COUNT] = { " ", "█", "░", "▓", "▒" };
    static const char *const asc[VP_COUNT] = { ".", "#", "=", "K", "+" };
    return ph >= 0 && ph < VP_COUNT ? (ui->unicode ? uni[ph] : asc[ph]) : "?";
}

static int phase_pair(int ph)
{
    static const int p[VP_COUNT] = { 0, P_COMPUTE, P_COMM, P_CKPT, P_FILLER };
    return ph >= 0 && ph < VP_COUNT ? p[ph] : 0;
}

/* ---- one line per GPU: sparkline over the chart's window, readings, and the phase strip */
static void draw_gpus(const struct vm *m, const struct tui_ui *ui, int y, int h)
{
    char a[32];
    int first = 0, n = m->nranks < h - 1 ? m->nranks : h - 1;
    if (n <= 0)
        return;
    if (ui->sel >= n)   /* keep the selected GPU in sight (one past the GPUs known now: a replay sought back to
                         * before they spoke holds fewer; the list then ends at the last) */
        first = (ui->sel < m->nranks ? ui->sel : m->nranks - 1) - n + 1;
    double strip_s = isfinite(m->m.iter_p50_s) && m->m.iter_p50_s > 0 ? 4 * m->m.iter_p50_s : 2;
    strip_s = fmin(fmax(strip_s, 0.2), 60);
    /* the detail line of the selected GPU */
    tui_on(ui, 0, A_BOLD);
    if (ui->sel >= 0 && ui->sel < m->nranks) {
        const struct vm_rank *r = &m->rank[ui->sel];
        fmt_w(a, sizeof a, r->watts);
        tui_putf(y, 0, "GPUs  %s %d %s %s: %s, %s, iter %lld%s  %s phases, last %.1f s: %scompute %scomm %sckpt %sfiller",
             U(ui, "◀", "<"), ui->sel, U(ui, "▶", ">"), r->device[0] ? r->device : m->backend, a,
             r->throttle ? "throttled" : "not throttled", (long long)r->iter, r->dropped ? ", dropped" : "",
             U(ui, "│", "|"), strip_s, phase_glyph(ui, VP_COMPUTE),
             phase_glyph(ui, VP_COMM), phase_glyph(ui, VP_CKPT), phase_glyph(ui, VP_FILLER));
    }
    attrset(A_NORMAL);
    int sw = (COLS - 36) / 2, ps = COLS - 36 - sw - 3;
    if (sw < 4) {
        sw = 0;
        ps = COLS - 36;
    }
    double hi = isfinite(m->tdp_w) ? m->tdp_w : 0;
    for (int r = 0; r < m->nranks; r++)
        hi = fmax(hi, m->rank[r].watts);
    if (!(hi > 0))
        hi = 1;
    for (int k = 0; k < n; k++) {
        int r = first + k, row = y + 1 + k;
        const struct vm_rank *g = &m->rank[r];
        tui_on(ui, r == ui->sel ? P_SEL : 0, r == ui->sel ? A_BOLD : 0);
        tui_putf(row, 0, "%s%-3d", r == ui->sel ? ">" : " ", r);
        attrset(A_NORMAL);
        double dt = ui->window_s / (sw > 0 ? sw : 1);
        for (int c = 0; c < sw; c++) {
            double mn, mx, mean;
            const char *gl = " ";
            if (slice(m, r, ui->now - ui->window_s + c * dt, ui->now - ui->window_s + (c + 1) * dt, &mn, &mx, &mean)) {
                static const char *const uni[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
                static const char *const asc[] = { "_", ".", "-", "=", "+", "*", "#", "@" };
                int lv = (int)(mean / hi * 8);
                lv = lv < 0 ? 0 : lv > 7 ? 7 : lv;
                gl = ui->unicode ? uni[lv] : asc[lv];
            }
            tui_on(ui, P_CHART, 0);
            mvaddstr(row, 4 + c, gl);
        }
        attrset(A_NORMAL);
        char w[16], clk[16], tmp[16];
        snprintf(w, sizeof w, isfinite(g->watts) ? "%5.0f W" : "    - W", g->watts);
        snprintf(clk, sizeof clk, isfinite(g->clock_mhz) ? "%5.0f MHz" : "    - MHz", g->clock_mhz);
        snprintf(tmp, sizeof tmp, isfinite(g->temp_c) ? "%3.0f C" : "  - C", g->temp_c);
        tui_putf(row, 4 + sw, " %s %s %s %s", w, clk, tmp, g->dropped ? "DROP" : g->throttle ? "THR " : "    ");
        mvaddstr(row, 4 + sw + 29, ui->unicode ? " │" : " |");
        for (int c = 0; c < ps; c++) {
            double t = ui->now - strip_s + (c + 0.5) * strip_s / ps;
            int ph = g->dropped ? VP_IDLE : vm_phase_at(m, r, t);
            tui_on(ui, phase_pair(ph), 0);
            mvaddstr(row, 4 + sw + 31 + c, phase_glyph(ui, ph));
        }
        attrset(A_NORMAL);
    }
}

/* ---- the live measurements */
static void draw_measure(const struct vm *m, const struct tui_ui *ui, int y)
{
    char a[32], b[32];
    const struct vm_measure *x = &m->m;
    fmt_w(a, sizeof a, x->swing_w);
    fmt_w(b, sizeof b, x->ramp_w_s);
    tui_on(ui, 0, A_BOLD);
    tui_put(y, 0, "Now");
    attrset(A_NORMAL);
    char pct[16], f0[16], p50[16], p99[16], tf[16], bw[16];   /* not measured (or unresolved): a dash, never a number */
    fmt_v(pct, sizeof pct, "%.0f%%", x->swing_pct_tdp), fmt_v(f0, sizeof f0, "%.2f", x->dominant_hz);
    fmt_v(p50, sizeof p50, "%.3f", x->iter_p50_s), fmt_v(p99, sizeof p99, "%.3f", x->iter_p99_s);
    fmt_v(tf, sizeof tf, "%.4g", x->tflops), fmt_v(bw, sizeof bw, "%.4g", x->busbw_gbs);
    int ok = m->detections - m->false_positives;
    if (COLS >= 110) {
        tui_putf(y, 4, "swing %s (%s TDP)  ramp %s/s  dominant %s Hz  iteration p50 %s s p99 %s s", a, pct, b, f0, p50, p99);
        tui_putf(y + 1, 4, "GEMM %s TFLOP/s/GPU  busbw %s GB/s  faults %d  detected %d  recovered %d  false+ %d  dropped %llu",
             tf, bw, m->faults, ok, m->recoveries, m->false_positives, (unsigned long long)m->dropped);
    } else {   /* the same figures, shorter */
        tui_putf(y, 4, "swing %s (%s) ramp %s/s f0 %s Hz it p50 %s p99 %s s", a, pct, b, f0, p50, p99);
        tui_putf(y + 1, 4, "%s TFLOP/s  %s GB/s  faults %d det %d rec %d fp %d drop %llu", tf, bw, m->faults, ok,
             m->recoveries, m->false_positives, (unsigned long long)m->dropped);
    }
}

/* 100 * (x / base - 1) as "+12%", or "-" */
static void fmt_pct(char *out, size_t n, double x, double base)
{
    snprintf(out, n, isfinite(x) && base > 0 ? "%+.0f%%" : "-", 100 * (x / base - 1));
}

/* The first `none` run of r's shape left alone (as summary.json's comparison: each shape against its own none; until
 * 2026-12-02 every shape was compared with the first shape's, a pipeline's none read +710 % energy); NULL: none. */
static const struct vm_run *run_base(const struct vm *m, const struct vm_run *r)
{
    for (int i = 0; i < m->nruns; i++)
        if (m->runrow[i].none && m->runrow[i].complete && !m->runrow[i].disturbed &&
            strcmp(m->runrow[i].shape, r->shape) == 0)
            return &m->runrow[i];
    return NULL;
}

/* ---- the finished runs, each against its shape's first `none` */
static void draw_runs(const struct vm *m, const struct tui_ui *ui, int y, int h)
{
    if (h < 2)
        return;
    /* under 110 columns the short form: the costs and the swing kept, the note a mark after the name (as the report's:
     * * skipped or ended early, ~ disturbed by hand), the name as wide as the rest leaves */
    int narrow = COLS < 110, nw = COLS - 57 < 8 ? 8 : COLS - 57 > 26 ? 26 : COLS - 57;
    tui_on(ui, 0, A_BOLD);
    /* several nodes: the rows are node 0's figures (its run_end), the chart above the cluster's: said in the header
     * (until 2026-11-30 nothing told them apart) */
    int one = m->nodes > 1;
    if (narrow)
        tui_putf(y, 0, "%-3s %-*.*s %9s %10s %7s %8s %7s %5s", "run", nw, nw,
                 one ? "node 0's GPUs *early ~hand" : "mitigation *early ~hand", "swing W", "ramp W/s", "swing%",
                 "energy%", "time%", "eff");
    else
        tui_putf(y, 0, "%-3s %-26s %7s %8s %9s %10s %8s %7s %8s %7s %5s", "run",
                 one ? "mitigation (node 0's GPUs)" : "mitigation", "p50 s", "mean W", "swing W", "ramp W/s", "J/iter",
                 "swing%", "energy%", "time%", "eff");
    attrset(A_NORMAL);
    int first = m->nruns > h - 1 ? m->nruns - (h - 1) : 0;
    for (int i = first; i < m->nruns; i++) {
        const struct vm_run *r = &m->runrow[i], *base = run_base(m, r);
        char mean[16], sw[16], rp[16], ds[16], de[16], dtm[16], eff[16] = "-", p50[16], ej[16];
        fmt_w(mean, sizeof mean, r->mean_w);
        fmt_w(sw, sizeof sw, r->swing_w);
        fmt_w(rp, sizeof rp - 2, r->ramp_w_s), strcat(rp, isfinite(r->ramp_w_s) ? "/s" : "");   /* a rate: W/s */
        /* as summary.json's vs_none where the record gives it (a battery's energy is its losses, its time none),
         * else from the figures: time paid is the change of throughput, every wait included (a stagger's too) */
        if (isfinite(r->vs_swing_pct) || isfinite(r->vs_energy_pct) || isfinite(r->vs_time_pct)) {
            fmt_pct(ds, sizeof ds, 1 + r->vs_swing_pct / 100, 1);
            fmt_pct(de, sizeof de, 1 + r->vs_energy_pct / 100, 1);
            fmt_pct(dtm, sizeof dtm, 1 + r->vs_time_pct / 100, 1);
        } else {
            fmt_pct(ds, sizeof ds, r->swing_w, base ? base->swing_w : NAN);
            fmt_pct(de, sizeof de, r->energy_j, base ? base->energy_j : NAN);
            fmt_pct(dtm, sizeof dtm, base ? base->throughput_it_s : NAN, r->throughput_it_s);
        }
        if (isfinite(r->efficiency))   /* least energy its result needed / energy it added (docs/power.md) */
            snprintf(eff, sizeof eff, "%.2f", r->efficiency);
        const char *note = r->skipped ? "  skipped" : r->disturbed ? "  disturbed" : r->complete ? "" : "  incomplete";
        if (narrow) {
            char name[48];
            snprintf(name, sizeof name, "%.*s%s%s", nw - 2, r->label, r->skipped || !r->complete ? "*" : "",
                     r->disturbed ? "~" : "");
            tui_putf(y + 1 + i - first, 0, "%-3d %-*s %9s %10s %7s %8s %7s %5s", i + 1, nw, name, sw, rp, ds, de, dtm, eff);
        } else {
            tui_putf(y + 1 + i - first, 0, "%-3d %-26.26s %7s %8s %9s %10s %8s %7s %8s %7s %5s%s", i + 1, r->label,
                 fmt_v(p50, sizeof p50, "%.3f", r->iter_p50_s), mean, sw, rp, fmt_v(ej, sizeof ej, "%.0f", r->energy_j),
                 ds, de, dtm, eff, note);
        }
    }
}

static int sev_pair(int sev)
{
    static const int p[] = { 0, P_FAULT, P_DETECT, P_RECOVER, P_WARN };
    return sev >= 0 && sev <= LOG_WARN ? p[sev] : 0;
}

/* ---- the event log, newest at the bottom */
static void draw_log(const struct vm *m, const struct tui_ui *ui, int y, int h)
{
    tui_on(ui, 0, A_BOLD);
    tui_putf(y, 0, "Events (%llu)", (unsigned long long)m->events);
    attrset(A_NORMAL);
    int n = h - 1;
    uint64_t have = m->nlog < VM_LOG ? m->nlog : VM_LOG;
    uint64_t first = have > (uint64_t)n ? m->nlog - (uint64_t)n : m->nlog - have;
    for (uint64_t i = first; i < m->nlog; i++) {
        const struct vm_log *l = &m->log[i % VM_LOG];
        tui_on(ui, sev_pair(l->sev), l->sev == LOG_FAULT || l->sev == LOG_WARN ? A_BOLD : 0);
        tui_putf(y + 1 + (int)(i - first), 0, "%9.3f  %s", l->t, l->text);
        attrset(A_NORMAL);
    }
}

void tui_draw(const struct vm *m, const struct tui_ui *ui)
{
    erase();
    if (tui_too_small()) {
        tui_put(0, 0, "gauntlet: too small");
        tui_put(1, 0, "needs 40x12 at least");
        tui_put(2, 0, "keys wait until it is");
        return;
    }
    int rows = LINES;
    int ch = rows / 4 + 1;   /* chart with its title */
    ch = ch < 5 ? 5 : ch > 16 ? 16 : ch;
    int gh = 1 + (m->nranks < rows / 5 ? m->nranks : rows / 5);   /* GPUs with the detail line */
    gh = gh < 2 ? 2 : gh;
    int rh = m->nruns ? 1 + (m->nruns < rows / 10 ? m->nruns : (rows / 10 > 1 ? rows / 10 : 1)) : 0;
    int room = rows - 2 - 2 - 1;   /* past the header, the two Now lines and the footer: chart, GPUs, a log line */
    if (ch + gh + 2 > room) {      /* a short screen (40x12) gives way in the chart: the Now lines stay (the
                                    * footer covered the second, its counts of faults, until 2026-12-02), and the log
                                    * keeps its title and a line (until 2026-12-02 its title alone, 12 to 15 rows) */
        gh = 2;
        ch = room - gh - 2 < ch ? room - gh - 2 : ch;
        ch = ch < 3 ? 3 : ch;
    }
    int y = 0;
    draw_header(m, ui, y);
    y += 2;
    draw_chart(m, ui, y, ch);
    y += ch;
    draw_gpus(m, ui, y, gh);
    y += gh;
    draw_measure(m, ui, y);
    y += 2;
    int lh = rows - 1 - y - rh;
    if (lh < 3) {   /* the log keeps three lines: the comparison gives way */
        rh = 0;
        lh = rows - 1 - y;
    }
    draw_runs(m, ui, y, rh);
    y += rh;
    draw_log(m, ui, y, lh);
    tui_draw_footer(ui);
    tui_draw_overlays(m, ui);
}

size_t tui_screen_text(char *out, size_t n)
{
    size_t len = 0;
    wchar_t *w = xmalloc(((size_t)COLS + 1) * sizeof *w);
    char *mb = xmalloc(((size_t)COLS + 1) * MB_CUR_MAX + 1);
    for (int y = 0; y < LINES; y++) {
        int k = mvinnwstr(y, 0, w, COLS);
        if (k < 0)
            k = 0;
        w[k] = 0;
        size_t b = wcstombs(mb, w, ((size_t)COLS + 1) * MB_CUR_MAX);
        if (b == (size_t)-1)
            b = 0;
        while (b > 0 && mb[b - 1] == ' ')
            b--;
        mb[b] = 0;
        if (len + b + 2 > n)
            break;
        memcpy(out + len, mb, b);
        len += b;
        out[len++] = '\n';
        out[len] = 0;
    }
    free(w);
    free(mb);
    return len;
}
