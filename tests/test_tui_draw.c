/* tests/test_tui_draw.c: the view drawn off-screen (ncurses newterm on /dev/null, sized by resize_term) and
 * read back as text: header fields, the chart of a known power series, the phase strip of a known event
 * sequence, the event log, overlays, the keys, and the layout at 80x24, 120x40 and 200x60. */
#define NCURSES_WIDECHAR 1
#include <criterion/criterion.h>
#include <curses.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "faults/fault.h"
#include "plugin.h"
#include "tui.h"

static SCREEN *scr;
static FILE *fout, *fin;
static char text[200 * 61 * 4];
static char line[60][1024];
static int nline;

static void screen_open(int cols, int rows)
{
    fout = fopen("/dev/null", "w");
    fin = fopen("/dev/null", "r");
    cr_assert(fout && fin);
    scr = newterm("xterm", fout, fin);
    cr_assert(scr, "no terminfo for xterm (ncurses-base)");
    resize_term(rows, cols);
    cr_assert_eq(COLS, cols);
    cr_assert_eq(LINES, rows);
}

static void screen_close(void)
{
    endwin();
    delscreen(scr);
    fclose(fout);
    fclose(fin);
}

/* Draws and splits the screen's text into line[]. */
static void draw(const struct vm *m, const struct tui_ui *ui)
{
    tui_draw(m, ui);
    size_t n = tui_screen_text(text, sizeof text);
    cr_assert_gt(n, 0);
    nline = 0;
    for (char *p = text; *p && nline < 60; nline++) {
        char *nl = strchr(p, '\n');
        size_t k = nl ? (size_t)(nl - p) : strlen(p);
        cr_assert_lt(k, sizeof line[0]);
        memcpy(line[nline], p, k);
        line[nline][k] = 0;
        p += k + (nl != NULL);
    }
    cr_assert_eq(nline, LINES, "one text line per row: %d of %d", nline, LINES);
}

static int find(const char *needle)
{
    for (int i = 0; i < nline; i++)
        if (strstr(line[i], needle))
            return i;
    return -1;
}

static int count(const char *s, const char *glyph)
{
    int n = 0;
    size_t g = strlen(glyph);
    for (const char *p = strstr(s, glyph); p; p = strstr(p + g, glyph))
        n++;
    return n;
}

static void ev(struct vm *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct vm *m, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cr_assert_eq(vm_event_line(m, buf, strlen(buf)), 0, "%s", buf);
}

/* A run 30 s in: 4 GPUs at a constant 400 W; rank 1 alternating 0.3 s compute, 0.1 s communication; a crash
 * on rank 2 detected and recovered; one finished run in the table. */
static struct vm *scene(void)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"drawtest\",\"backend\":\"sim\",\"ranks\":4,\"runs\":2,"
          "\"iterations\":100,\"tdp_w\":700,\"sample_hz\":10,\"bus_ranks\":4,\"recovery\":\"restart\"}");
    for (int r = 0; r < 4; r++)
        ev(m, "{\"t_s\":0.1,\"event\":\"gpu\",\"rank\":%d,\"name\":\"NVIDIA H100 80GB HBM3\",\"tdp_w\":700}", r);
    ev(m, "{\"t_s\":0.2,\"event\":\"run_end\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":100,"
          "\"complete\":true,\"figures\":{\"iteration_p50_s\":0.4,\"mean_w\":1600,\"swing_w\":2000,\"ramp_w_s\":19000,"
          "\"energy_per_iter_j\":640,\"tflops\":700}}");
    ev(m, "{\"t_s\":0.3,\"event\":\"run_begin\",\"run\":1,\"mitigation\":\"ramp\",\"label\":\"ramp\",\"iterations\":100}");
    for (int k = 0; k <= 300; k++)
        for (int r = 0; r < 4; r++)
            vm_power(m, k * 0.1, r, 400, 1980, 61, 0);
    for (int i = 0; i < 74; i++) {
        double t0 = 0.4 + i * 0.4;
        ev(m, "{\"t_s\":%.3f,\"event\":\"phase_begin\",\"rank\":1,\"run\":1,\"iter\":%d,\"phase\":\"compute\"}", t0, i);
        ev(m, "{\"t_s\":%.3f,\"event\":\"phase_end\",\"rank\":1,\"run\":1,\"iter\":%d,\"phase\":\"compute\",\"flops\":2e14}",
           t0 + 0.3, i);
        ev(m, "{\"t_s\":%.3f,\"event\":\"phase_begin\",\"rank\":1,\"run\":1,\"iter\":%d,\"phase\":\"comm\"}", t0 + 0.3, i);
        ev(m, "{\"t_s\":%.3f,\"event\":\"phase_end\",\"rank\":1,\"run\":1,\"iter\":%d,\"phase\":\"comm\",\"bytes\":1e9}",
           t0 + 0.4, i);
        for (int r = 0; r < 4; r++)
            ev(m, "{\"t_s\":%.3f,\"event\":\"iteration\",\"rank\":%d,\"run\":1,\"iter\":%d,\"dur_s\":0.4}", t0 + 0.4, r, i);
    }
    ev(m, "{\"t_s\":12,\"event\":\"fault_injected\",\"kind\":\"crash\",\"rank\":2,\"fault\":0,\"iter\":29,\"what\":\"raise(9)\"}");
    ev(m, "{\"t_s\":12.1,\"event\":\"detection\",\"detector\":\"exit\",\"rank\":2,\"iter\":29,\"note\":\"died\","
          "\"false_positive\":false,\"fault\":0,\"detect_s\":0.1,\"detect_iters\":0}");
    ev(m, "{\"t_s\":14,\"event\":\"recovered\",\"fault\":0,\"rank\":2,\"recovery\":\"restart\",\"recover_s\":1.9,"
          "\"iterations_lost\":9}");
    vm_measure(m, 10);
    return m;
}

static void ascii_ui(struct tui_ui *ui, const struct vm *m)
{
    tui_ui_init(ui);
    ui->unicode = 0;
    ui->color = 0;
    ui->now = m->t_now;
}

Test(tui_draw, header_chart_gpus_and_log_at_120x40)
{
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    screen_open(120, 40);
    draw(m, &ui);
    cr_assert(strstr(line[0], "gauntlet run") && strstr(line[0], "drawtest") && strstr(line[0], "sim"), "%s", line[0]);
    cr_assert(strstr(line[0], "4x NVIDIA H100 80GB HBM3"), "%s", line[0]);
    cr_assert(strstr(line[0], "run 2/2 ramp") && strstr(line[0], "[running]"), "%s", line[0]);
    cr_assert(strstr(line[1], "iter 74/100"), "%s", line[1]);
    /* the chart: 1600 W steady over the whole 30 s window; the top of the scale is 1600 * 1.08 */
    int title = find("Power, node (4 GPUs), last 30 s: now 1600 W  band [1600 W, 1600 W]");
    cr_assert_geq(title, 0, "chart title missing:\n%s", text);
    int full = 0;
    for (int i = title + 1; i < title + 11; i++)
        full += count(line[i], "#") >= 100;
    cr_assert_geq(full, 8, "the chart's rows below 1600 W are solid across the window:\n%s", text);
    cr_assert_eq(count(line[title + 1], "#"), 0, "the top row (above 1600 W) is empty: '%s'", line[title + 1]);
    /* one line per GPU with its reading, and rank 1's phase strip: compute three times as long as comm */
    int g = find("GPUs  < 0 >");
    cr_assert_geq(g, 0, "GPU detail line:\n%s", text);
    cr_assert(strstr(line[g + 1], "  400 W  1980 MHz  61 C"), "%s", line[g + 1]);
    const char *strip = strchr(line[g + 2], '|');
    cr_assert(strip, "%s", line[g + 2]);
    int c = count(strip, "#"), k = count(strip, "=");
    cr_assert(k > 0 && c > 2 * k && c < 4 * k, "compute %d vs comm %d in '%s'", c, k, strip);
    cr_assert_eq(count(strchr(line[g + 3], '|'), "#"), 0, "rank 2 reported no phases: '%s'", line[g + 3]);
    /* measurements, the comparison row, the log */
    cr_assert_geq(find("GEMM 666.7 TFLOP/s/GPU"), 0, "2e14 flops in 0.3 s:\n%s", text);
    cr_assert_geq(find("iteration p50 0.400 s"), 0, "%s", text);
    int row = find("1   none");
    cr_assert_geq(row, 0, "comparison row:\n%s", text);
    cr_assert(strstr(line[row], "1600 W") && strstr(line[row], "2000 W"), "%s", line[row]);
    cr_assert_geq(find("FAULT crash on rank 2 at iter 29: raise(9)"), 0, "%s", text);
    cr_assert_geq(find("DETECTED by exit on rank 2 after 100 ms"), 0, "%s", text);
    cr_assert_geq(find("RECOVERED rank 2 by restart: 1.90 s after detection, 9 iterations lost"), 0, "%s", text);
    cr_assert(strstr(line[39], "q quit") && strstr(line[39], "f fault"), "footer: %s", line[39]);
    screen_close();
    vm_free(m);
}

Test(tui_draw, layout_holds_at_80x24_and_200x60)
{
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    screen_open(80, 24);
    draw(m, &ui);
    cr_assert(strstr(line[0], "gauntlet run"), "%s", line[0]);
    cr_assert(strstr(line[23], "q quit"), "footer on the last row: %s", line[23]);
    int log = find("Events (");
    cr_assert(log > 0 && log <= 23 - 4, "the log keeps three lines at 80x24:\n%s", text);
    cr_assert_geq(find("RECOVERED rank 2"), 0, "the newest event is shown:\n%s", text);
    cr_assert_geq(find("Now swing"), 0, "%s", text);
    /* the comparison's short form: its costs within the 80 columns, a run's note a mark (it lost them past the edge) */
    int head = find("run mitigation");
    cr_assert(head > 0 && strstr(line[head], "time%") && strstr(line[head], "eff"), "the costs at 80 columns:\n%s", text);
    screen_close();

    screen_open(200, 60);
    draw(m, &ui);
    for (int r = 0; r < 4; r++) {
        char want[16];
        snprintf(want, sizeof want, "%s%-3d", r == 0 ? ">" : " ", r);
        cr_assert_geq(find(want), 0, "GPU %d's line at 200x60:\n%s", r, text);
    }
    cr_assert_geq(find("1   none"), 0, "%s", text);
    cr_assert_geq(find("FAULT crash on rank 2"), 0, "%s", text);
    cr_assert(strstr(line[59], "q quit"), "%s", line[59]);
    screen_close();

    screen_open(30, 10);
    draw(m, &ui);
    cr_assert(strstr(line[0], "too small"), "%s", line[0]);
    screen_close();
    vm_free(m);
}

Test(tui_draw, unicode_blocks_where_the_locale_has_utf8)
{
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        cr_skip_test("no C.UTF-8 locale here");
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    ui.unicode = 1;
    screen_open(120, 40);
    draw(m, &ui);
    int title = find("Power, node");
    cr_assert_gt(count(line[title + 5], "█"), 100, "%s", line[title + 5]);
    cr_assert_geq(find("4× NVIDIA"), 0, "%s", text);
    cr_assert_geq(find("░"), 0, "communication in the strip:\n%s", text);
    screen_close();
    vm_free(m);
    setlocale(LC_CTYPE, "C");
}

Test(tui_draw, keys_drive_the_dialogs_and_commands)
{
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    struct view_cmd cmd;
    int crash = plugin_find(&plugin_faults, "crash"), bitflip = plugin_find(&plugin_faults, "bitflip");
    cr_assert(crash >= 0 && bitflip >= 0);
    screen_open(120, 40);
    /* f, the kind by its digit, two ranks to the right, Enter: a crash on rank 2 */
    cr_assert_eq(tui_key(&ui, m, 'f', &cmd), TA_REDRAW);
    draw(m, &ui);
    cr_assert_geq(find("Inject a fault"), 0, "%s", text);
    cr_assert_geq(find("comm-error"), 0, "every fault kind is offered:\n%s", text);
    cr_assert_eq(tui_key(&ui, m, '1' + crash, &cmd), TA_REDRAW);
    cr_assert_eq(tui_key(&ui, m, KEY_RIGHT, &cmd), TA_REDRAW);
    cr_assert_eq(tui_key(&ui, m, KEY_RIGHT, &cmd), TA_REDRAW);
    draw(m, &ui);
    cr_assert_geq(find("crash on rank  < 2 >"), 0, "%s", text);
    cr_assert_eq(tui_key(&ui, m, '\n', &cmd), TA_COMMAND);
    cr_assert_eq(cmd.type, VIEW_FAULT);
    cr_assert_eq(cmd.kind, crash);
    cr_assert_eq(cmd.rank, 2);
    cr_assert_eq(cmd.run, m->run, "the run it was chosen in, which the supervisor holds it to");
    cr_assert_eq(ui.dialog, 0);
    /* a bit flip asks for the target */
    tui_key(&ui, m, 'f', &cmd);
    tui_key(&ui, m, '1' + bitflip, &cmd);
    tui_key(&ui, m, '\n', &cmd);
    cr_assert_eq(ui.dialog, 3);
    cr_assert_eq(tui_key(&ui, m, '3', &cmd), TA_COMMAND);
    cr_assert_str_eq(cmd.target, "weights");
    /* Esc cancels */
    tui_key(&ui, m, 'f', &cmd);
    cr_assert_eq(tui_key(&ui, m, 27, &cmd), TA_REDRAW);
    cr_assert_eq(ui.dialog, 0);
    /* q asks while running; y quits through the supervisor */
    cr_assert_eq(tui_key(&ui, m, 'q', &cmd), TA_REDRAW);
    draw(m, &ui);
    cr_assert_geq(find("Quit? The run stops"), 0, "%s", text);
    cr_assert_eq(tui_key(&ui, m, 'n', &cmd), TA_REDRAW, "any other key goes on");
    tui_key(&ui, m, 'q', &cmd);
    cr_assert_eq(tui_key(&ui, m, 'y', &cmd), TA_COMMAND);
    cr_assert_eq(cmd.type, VIEW_QUIT);
    cr_assert_eq(tui_key(&ui, m, 'p', &cmd), TA_COMMAND);
    cr_assert_eq(cmd.type, VIEW_PAUSE);
    /* p p p before the supervisor answers: each says what it asks (the supervisor toggles on each) */
    cr_assert_str_eq(ui.status, "pausing at the next iteration");
    tui_key(&ui, m, 'p', &cmd);
    cr_assert_str_eq(ui.status, "resuming", "the second p, unanswered, undoes the first");
    tui_key(&ui, m, 'p', &cmd);
    cr_assert_str_eq(ui.status, "pausing at the next iteration");
    /* the answers arrive: paused, resumed, paused; a p after them resumes */
    static const char *const answers[] = { "{\"t_s\":1,\"event\":\"paused\",\"before_iter\":9}",
                                           "{\"t_s\":1,\"event\":\"resumed\"}",
                                           "{\"t_s\":1,\"event\":\"paused\",\"before_iter\":9}" };
    for (int i = 0; i < 3; i++)
        vm_event_line(m, answers[i], strlen(answers[i]));
    cr_assert_eq(m->paused, 1);
    tui_key(&ui, m, 'p', &cmd);
    cr_assert_str_eq(ui.status, "resuming");
    /* a refused pause toggles nothing: the next p asks the same again */
    static const char refused[] = "{\"t_s\":1,\"event\":\"view_refused\",\"command\":\"pause\",\"why\":\"the run is stopping\"}";
    vm_event_line(m, refused, strlen(refused));
    tui_key(&ui, m, 'p', &cmd);
    cr_assert_str_eq(ui.status, "resuming");
    static const char resumed[] = "{\"t_s\":1,\"event\":\"resumed\"}";
    vm_event_line(m, resumed, strlen(resumed));
    cr_assert_eq(tui_key(&ui, m, 'm', &cmd), TA_COMMAND);
    cr_assert_eq(cmd.type, VIEW_SKIP);
    /* view keys */
    tui_key(&ui, m, '+', &cmd);
    cr_assert_float_eq(ui.window_s, 10, 1e-9);
    tui_key(&ui, m, '-', &cmd);
    tui_key(&ui, m, '-', &cmd);
    cr_assert_float_eq(ui.window_s, 60, 1e-9);
    tui_key(&ui, m, KEY_LEFT, &cmd);
    cr_assert_eq(ui.sel, 3, "left from GPU 0 wraps to the last");
    tui_key(&ui, m, 'l', &cmd);
    draw(m, &ui);
    cr_assert_geq(find("log scale"), 0, "%s", text);
    tui_key(&ui, m, '?', &cmd);
    draw(m, &ui);
    cr_assert_geq(find("skip to the next mitigation"), 0, "help:\n%s", text);
    /* a replay takes no commands */
    ui.help = 0;
    ui.replay = 1;
    cr_assert_eq(tui_key(&ui, m, 'p', &cmd), TA_UNHANDLED);
    cr_assert(strstr(ui.status, "replay"), "%s", ui.status);
    cr_assert_eq(tui_key(&ui, m, 'q', &cmd), TA_QUIT);
    screen_close();
    vm_free(m);
}

/* The fault dialog's rank: the first digit typed replaces the selected GPU (on 12 ranks, GPU 1 selected and 1
 * typed was rank 11); a second digit goes on from the first. */
Test(tui_draw, typed_digits_replace_the_preselected_rank)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"r12\",\"backend\":\"sim\",\"ranks\":12,\"runs\":1,\"iterations\":100}");
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    struct tui_ui ui;
    ascii_ui(&ui, m);
    struct view_cmd cmd;
    int straggler = plugin_find(&plugin_faults, "straggler");
    cr_assert(straggler >= 0);
    screen_open(120, 40);   /* the keys act on a screen that shows them */
    tui_key(&ui, m, KEY_RIGHT, &cmd);   /* GPU 1 selected */
    tui_key(&ui, m, 'f', &cmd);
    tui_key(&ui, m, '1' + straggler, &cmd);
    cr_assert_eq(ui.d_rank, 1, "the selected GPU first");
    tui_key(&ui, m, '1', &cmd);
    cr_assert_eq(ui.d_rank, 1, "typed 1 on GPU 1: rank 1, not 11 (%d)", ui.d_rank);
    tui_key(&ui, m, '0', &cmd);
    cr_assert_eq(ui.d_rank, 10, "then 0: rank 10");
    cr_assert_eq(tui_key(&ui, m, '\n', &cmd), TA_COMMAND);
    cr_assert_eq(cmd.rank, 10);
    screen_close();
    vm_free(m);
}

/* What was never measured is a dash, not a 0 that reads as one: the rate before the first iteration, % TDP with no
 * TDP, the iteration percentiles, GEMM and busbw without their phases (bus_ranks 1: no bus bandwidth). */
Test(tui_draw, never_measured_is_a_dash)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"dash\",\"backend\":\"sim\",\"ranks\":2,\"runs\":1,\"iterations\":100,"
          "\"sample_hz\":100,\"bus_ranks\":1}");
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"iterations\":100}");
    for (int k = 0; k <= 300; k++)
        for (int r = 0; r < 2; r++)
            vm_power(m, 0.2 + k * 0.01, r, k % 50 < 25 ? 600 : 200, NAN, NAN, 0);
    vm_measure(m, 10);
    struct tui_ui ui;
    ascii_ui(&ui, m);
    screen_open(120, 40);
    draw(m, &ui);
    cr_assert_geq(find("  - it/s"), 0, "%s", text);
    cr_assert_eq(find("0.0 it/s"), -1, "%s", text);
    cr_assert_geq(find("(- TDP)"), 0, "%s", text);
    cr_assert_geq(find("p50 - s p99 - s"), 0, "%s", text);
    cr_assert_geq(find("GEMM - TFLOP/s/GPU  busbw - GB/s"), 0, "%s", text);
    /* a run ended with no figures (null, or not there): every column of its comparison row a dash */
    ev(m, "{\"t_s\":3.5,\"event\":\"run_end\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":0,"
          "\"complete\":false,\"figures\":{\"mean_w\":null,\"swing_w\":null}}");
    draw(m, &ui);
    int row = find("1   none");
    cr_assert_geq(row, 0, "%s", text);
    char cells[1024], *save;
    snprintf(cells, sizeof cells, "%s", line[row] + strlen("1   none"));
    int dashes = 0;
    for (char *tok = strtok_r(cells, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        if (strcmp(tok, "incomplete") != 0) {
            cr_assert_str_eq(tok, "-", "a figure never measured reads '%s': %s", tok, line[row]);
            dashes++;
        }
    cr_assert_eq(dashes, 9, "p50, mean, swing, ramp, J/iter, swing%%, energy%%, time%%, eff: %s", line[row]);
    screen_close();
    vm_free(m);
}

/* Each shape's runs are compared with that shape's own none, as summary.json's vs_none (until 2026-12-02 with the
 * first none of all: a pipeline's none read +710 % energy against the first shape's none) */
Test(tui_draw, each_shape_is_compared_with_its_own_none)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"shapes\",\"backend\":\"sim\",\"ranks\":2,\"runs\":4,"
          "\"iterations\":10,\"sample_hz\":100}");
    const char *runs[][3] = { { "none", "a", "100" }, { "filler", "a", "150" }, { "none", "b", "800" },
                              { "filler", "b", "1000" } };
    for (int i = 0; i < 4; i++)
        ev(m, "{\"t_s\":%d,\"event\":\"run_end\",\"run\":%d,\"mitigation\":\"%s\",\"label\":\"%s [%s]\","
              "\"shape\":\"%s\",\"iterations\":10,\"complete\":true,\"figures\":{\"swing_w\":%s,"
              "\"energy_per_iter_j\":%s,\"throughput_it_s\":10}}", i + 1, i, runs[i][0], runs[i][0], runs[i][1],
           runs[i][1], runs[i][2], runs[i][2]);
    struct tui_ui ui;
    ascii_ui(&ui, m);
    screen_open(160, 50);
    draw(m, &ui);
    const char *want[] = { "none [a]", "filler [a]", "none [b]", "filler [b]" }, *pct[] = { "+0%", "+50%", "+0%", "+25%" };
    for (int i = 0; i < 4; i++) {
        int row = find(want[i]);
        cr_assert_geq(row, 0, "%s", text);
        char cells[1024], *save;
        snprintf(cells, sizeof cells, "%s", line[row]);
        int seen = 0;   /* swing% and energy%: the same ratio here; time% +0% (a none's three columns) */
        for (char *tok = strtok_r(cells, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
            seen += strcmp(tok, pct[i]) == 0;
        cr_assert_eq(seen, i % 2 ? 2 : 3, "%s against its own none: swing%% and energy%% %s: %s", want[i], pct[i],
                     line[row]);
    }
    screen_close();
    vm_free(m);
}

/* At the smallest screen drawn, 40x12, both Now lines show: the chart gives way, never the counts of faults,
 * detections and recoveries (the footer covered them until 2026-12-02) */
Test(tui_draw, the_smallest_screen_keeps_both_now_lines)
{
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    screen_open(TUI_MIN_COLS, TUI_MIN_ROWS);
    draw(m, &ui);
    cr_assert_eq(find("too small"), -1, "%s", text);
    int swing = find("swing "), counts = find("faults ");
    cr_assert_geq(swing, 0, "%s", text);
    cr_assert_eq(counts, swing + 1, "the second Now line under the first:\n%s", text);
    cr_assert_lt(counts, TUI_MIN_ROWS - 1, "the footer's row is the last:\n%s", text);
    screen_close();
    vm_free(m);
}

/* Under 40x12 the screen shows only that it is too small: no key acts unseen (f, q then y, p and m took effect with
 * nothing shown), and a dialog or the quit question open when the terminal shrinks is closed; a replay's q leaves. */
Test(tui_draw, a_screen_too_small_takes_no_keys)
{
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    struct view_cmd cmd;
    screen_open(30, 8);
    draw(m, &ui);
    cr_assert_geq(find("too small"), 0, "%s", text);
    const int keys[] = { 'f', '2', '\n', 'q', 'y', 'p', 'm', '?', KEY_RIGHT };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        memset(&cmd, 0, sizeof cmd);
        cr_assert_eq(tui_key(&ui, m, keys[i], &cmd), TA_NONE, "key %d acted on a screen too small", keys[i]);
        cr_assert(!ui.dialog && !ui.confirm_quit && !ui.help && ui.sel == 0, "key %d opened something", keys[i]);
    }
    cr_assert_eq(tui_key(&ui, m, KEY_RESIZE, &cmd), TA_REDRAW);
    /* the fault dialog open, then the terminal shrinks: it is closed, and the keys that would finish it do nothing */
    resize_term(40, 120);
    cr_assert_eq(tui_key(&ui, m, 'f', &cmd), TA_REDRAW);
    cr_assert_eq(ui.dialog, 1);
    resize_term(8, 30);
    cr_assert_eq(tui_key(&ui, m, KEY_RESIZE, &cmd), TA_REDRAW);
    cr_assert_eq(ui.dialog, 0, "the dialog is closed on a screen too small");
    cr_assert(strstr(ui.status, "fault cancelled"), "%s", ui.status);
    cr_assert_eq(tui_key(&ui, m, '2', &cmd), TA_NONE);
    cr_assert_eq(tui_key(&ui, m, '\n', &cmd), TA_NONE);
    /* the quit question likewise */
    resize_term(40, 120);
    cr_assert_eq(tui_key(&ui, m, 'q', &cmd), TA_REDRAW);
    cr_assert_eq(ui.confirm_quit, 1);
    resize_term(8, 30);
    cr_assert_eq(tui_key(&ui, m, 'y', &cmd), TA_REDRAW, "the open question is closed, not answered");
    cr_assert_eq(ui.confirm_quit, 0);
    cr_assert_eq(tui_key(&ui, m, 'y', &cmd), TA_NONE);
    /* back to a size that shows the view: the keys act again */
    resize_term(12, 40);
    cr_assert_eq(tui_key(&ui, m, 'p', &cmd), TA_COMMAND);
    cr_assert_eq(cmd.type, VIEW_PAUSE);
    resize_term(8, 30);
    ui.replay = 1;
    cr_assert_eq(tui_key(&ui, m, 'q', &cmd), TA_QUIT, "a replay's q leaves on any screen");
    screen_close();
    vm_free(m);
}

/* A selected GPU past those the model holds (a replay sought back to before the later GPUs spoke: the model is
 * rebuilt with fewer) draws the list up to the last it holds, never past it (until 2026-11-30 it read past the
 * array and the replay died of SIGSEGV), at every height */
Test(tui_draw, a_selection_past_the_gpus_held_draws_the_last_ones)
{
    struct vm *m = scene();   /* 4 GPUs */
    struct tui_ui ui;
    ascii_ui(&ui, m);
    for (int rows = 12; rows <= 40; rows += 4) {
        ui.sel = 900;
        screen_open(120, rows);
        draw(m, &ui);
        int g = find("GPUs");
        if (g >= 0 && g + 1 < nline && strchr(line[g + 1], '|'))
            cr_assert(strstr(text, " 3 ") || strstr(text, ">3 "), "the last GPU held is listed:\n%s", text);
        screen_close();
    }
    vm_free(m);
}

/* A fault dialog belongs to the run it was opened in: it names that run, and it closes when the run ends (or a key
 * comes after it ended): nothing chosen in one run is sent into the next. Until 2026-11-30 the Enter pressed after
 * the run's end injected the fault into the next run. */
Test(tui_draw, a_fault_dialog_closes_when_its_run_ends)
{
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    struct view_cmd cmd;
    screen_open(120, 40);
    cr_assert_eq(tui_key(&ui, m, 'f', &cmd), TA_REDRAW);
    tui_key(&ui, m, '1' + plugin_find(&plugin_faults, "crash"), &cmd);
    draw(m, &ui);
    cr_assert_geq(find("Inject a fault into run 2/2 ramp"), 0, "the dialog names its run:\n%s", text);
    ev(m, "{\"t_s\":31,\"event\":\"run_end\",\"run\":1,\"mitigation\":\"ramp\",\"label\":\"ramp\",\"iterations\":100,"
          "\"complete\":true,\"figures\":{}}");
    cr_assert_eq(tui_sync(&ui, m), 1, "the live view closes it with no key pressed");
    cr_assert_eq(ui.dialog, 0);
    draw(m, &ui);
    cr_assert_lt(find("Inject a fault"), 0, "%s", text);
    cr_assert_geq(find("fault cancelled: run 2 (ramp) ended"), 0, "%s", text);
    /* the same with the key first: the Enter meant for the dialog sends nothing */
    vm_free(m);
    m = scene();
    tui_key(&ui, m, 'f', &cmd);
    tui_key(&ui, m, '1' + plugin_find(&plugin_faults, "crash"), &cmd);
    ev(m, "{\"t_s\":31,\"event\":\"run_begin\",\"run\":2,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":100}");
    cr_assert_eq(tui_key(&ui, m, '\n', &cmd), TA_REDRAW, "no command: the run it was chosen in is over");
    cr_assert_eq(ui.dialog, 0);
    cr_assert(strstr(ui.status, "run 2 (ramp) ended"), "%s", ui.status);
    cr_assert_eq(tui_run_open(m, 1), 0);
    cr_assert_eq(tui_run_open(m, 2), 1);
    screen_close();
    vm_free(m);
}

/* f while paused opens the dialog (the supervisor takes it, and it fires once the run goes on); Ctrl-\ is a key while
 * the view holds the terminal: it stops the live run as Ctrl-C does, and leaves a replay. */
Test(tui_draw, f_while_paused_and_ctrl_backslash)
{
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    struct view_cmd cmd;
    screen_open(120, 40);
    ev(m, "{\"t_s\":30,\"event\":\"paused\",\"before_iter\":80}");
    cr_assert_eq(m->state, VS_PAUSED);
    cr_assert_eq(tui_key(&ui, m, 'f', &cmd), TA_REDRAW);
    cr_assert_eq(ui.dialog, 1, "until 2026-11-30 refused: %s", ui.status);
    tui_key(&ui, m, '1' + plugin_find(&plugin_faults, "crash"), &cmd);
    cr_assert_eq(tui_key(&ui, m, '\n', &cmd), TA_COMMAND);
    cr_assert(strstr(ui.status, "sent into run 2") && strstr(ui.status, "once the run goes on"), "%s", ui.status);
    cr_assert_eq(tui_key(&ui, m, 0x1c, &cmd), TA_INTERRUPT);
    ui.replay = 1;
    cr_assert_eq(tui_key(&ui, m, 0x1c, &cmd), TA_QUIT);
    /* a stdin at its end: the footer says no key can come */
    ui.replay = 0;
    ui.status[0] = 0;
    ui.no_keys = 1;
    draw(m, &ui);
    cr_assert(strstr(line[39], "keys: stdin closed"), "%s", line[39]);
    screen_close();
    vm_free(m);
}

/* A log line is kept whole (up to 511 bytes) and cut when drawn, by the screen's width in columns and never inside
 * a character. Until 2026-11-30 it was cut at 159 bytes: 80 Cyrillic characters on a 200-column screen. */
Test(tui_draw, log_lines_are_cut_by_the_screens_width_not_by_bytes)
{
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        cr_skip_test("no C.UTF-8 locale here");
    struct vm *m = scene();
    struct tui_ui ui;
    ascii_ui(&ui, m);
    char path[600] = "", want[600] = "";
    for (int i = 0; i < 140; i++)
        strcat(path, "ж");   /* 2 bytes, 1 column: the line is 191 columns, 331 bytes */
    ev(m, "{\"t_s\":30,\"event\":\"worker_error\",\"rank\":2,\"error\":\"cannot open %s: No space left\"}", path);
    screen_open(200, 60);
    draw(m, &ui);
    int y = find("rank 2 failed: cannot open ");
    cr_assert_geq(y, 0, "%s", text);
    cr_assert_eq(count(line[y], "ж"), 140, "the whole path on 200 columns:\n%s", line[y]);
    cr_assert(strstr(line[y], ": No space left"), "%s", line[y]);
    screen_close();
    screen_open(80, 24);
    draw(m, &ui);
    y = find("rank 2 failed: cannot open ");
    cr_assert_geq(y, 0, "%s", text);
    size_t cols = mbstowcs(NULL, line[y], 0);
    cr_assert_eq(cols, 80, "cut at the screen's edge, whole characters: %zu columns\n%s", cols, line[y]);
    screen_close();
    /* a message longer than the line keeps: cut at a character's boundary */
    for (int i = 0; i < 150; i++)
        strcat(want, "ж");
    vm_log(m, 31, LOG_WARN, "x%s%s", path, want);
    const char *t = m->log[(m->nlog - 1) % VM_LOG].text;
    cr_assert_gt(strlen(t), 500);
    cr_assert_neq(mbstowcs(NULL, t, 0), (size_t)-1, "no partial character at the cut");
    vm_free(m);
    setlocale(LC_CTYPE, "C");
}

/* The comparison table shows a run's figures against its none as its run_end gives them (figures.vs_none, the
 * summary's): a battery's energy is its losses (+1 %) and its time none, whatever its GPUs' own figures say (here
 * 3 % less energy and a slower throughput, both noise); until 2026-12-02 the view read -3 % and +3 %. An older
 * record without them: worked out from the figures, as before. */
Test(tui_draw, the_table_shows_the_summarys_figures_against_none)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"bess\",\"backend\":\"sim\",\"ranks\":2,\"runs\":3,"
          "\"iterations\":10,\"sample_hz\":100}");
    ev(m, "{\"t_s\":1,\"event\":\"run_end\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":10,"
          "\"complete\":true,\"figures\":{\"swing_w\":1000,\"energy_per_iter_j\":100,\"throughput_it_s\":10}}");
    ev(m, "{\"t_s\":2,\"event\":\"run_end\",\"run\":1,\"mitigation\":\"bess\",\"label\":\"battery\",\"iterations\":10,"
          "\"complete\":true,\"figures\":{\"swing_w\":1000,\"energy_per_iter_j\":97,\"throughput_it_s\":9.7,"
          "\"vs_none\":{\"swing_reduction_pct\":0,\"energy_overhead_pct\":1.04,\"iteration_overhead_pct\":0}}}");
    ev(m, "{\"t_s\":3,\"event\":\"run_end\",\"run\":2,\"mitigation\":\"filler\",\"label\":\"old-filler\",\"iterations\":10,"
          "\"complete\":true,\"figures\":{\"swing_w\":500,\"energy_per_iter_j\":110,\"throughput_it_s\":10}}");
    struct tui_ui ui;
    ascii_ui(&ui, m);
    screen_open(160, 50);
    draw(m, &ui);
    const char *want[] = { "battery", "old-filler" };
    const char *cells[][3] = { { "+0%", "+1%", "+0%" }, { "-50%", "+10%", "+0%" } };
    for (int i = 0; i < 2; i++) {
        int row = find(want[i]);
        cr_assert_geq(row, 0, "%s", text);
        const char *p = line[row];
        for (int k = 0; k < 3; k++) {
            p = strstr(p, cells[i][k]);
            cr_assert(p, "%s: %s, %s, %s in order: %s", want[i], cells[i][0], cells[i][1], cells[i][2], line[row]);
            p += strlen(cells[i][k]);
        }
    }
    screen_close();
    vm_free(m);
}
