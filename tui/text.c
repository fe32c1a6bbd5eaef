/* tui/text.c: writing text onto the view's screen — a line cut to the screen's width in display columns, the
 * colour roles — and what is drawn over the view: the footer, the help, the quit question and the fault dialog. */
#define NCURSES_WIDECHAR 1
#include <curses.h>
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

void tui_on(const struct tui_ui *ui, int pair, attr_t extra)
{
    attr_t a = extra;
    if (ui->color && pair)
        a |= COLOR_PAIR(pair);
    attrset(a);
}

/* Writes s at (y, x), cut to the screen's width in display columns, never inside a character; a byte the locale
 * cannot read, or a control character, shows as '?'. Until 2026-11-30 cut at COLS - x bytes: a UTF-8 line stopped
 * short of the edge, and the cut could fall inside a character. */
void tui_put(int y, int x, const char *s)
{
    if (y < 0 || y >= LINES || x >= COLS)
        return;
    wchar_t w[1024];
    int cols = 0, room = COLS - (x > 0 ? x : 0), k = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    for (size_t left = strlen(s); left > 0 && k < (int)ARRAY_LEN(w) - 1;) {
        wchar_t c;
        size_t b = mbrtowc(&c, s, left, &st);
        if (b == (size_t)-2)
            break;   /* a character cut short at the end: dropped */
        if (b == (size_t)-1 || b == 0) {
            memset(&st, 0, sizeof st);
            c = L'?';
            b = 1;
        }
        int cw = wcwidth(c);
        if (cw < 0) {
            c = L'?';
            cw = 1;
        }
        if (cols + cw > room)
            break;
        w[k++] = c;
        cols += cw;
        s += b;
        left -= b;
    }
    w[k] = 0;
    mvaddnwstr(y, x, w, k);
}

void tui_putf(int y, int x, const char *fmt, ...)
{
    char buf[1024];   /* a log line's 512 bytes and its time */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    tui_put(y, x, buf);
}

void tui_draw_footer(const struct tui_ui *ui)
{
    tui_on(ui, P_HEAD, ui->color ? 0 : A_REVERSE);
    move(LINES - 1, 0);
    hline(' ', COLS);
    if (ui->status[0])
        tui_putf(LINES - 1, 0, " %s", ui->status);
    else if (ui->no_keys)
        tui_put(LINES - 1, 0, " keys: stdin closed, no key reaches the view (SIGINT or SIGTERM stops the run)");
    else if (ui->replay)
        tui_put(LINES - 1, 0, COLS >= 118 ? " q quit  space play/pause  </> speed  [/] -/+10 s  {/} -/+60 s  g/G start/end  "
                                        "arrows GPU  +/- window  l log  ? help"
                                      : " q quit  space play  <> speed  [] 10s  g/G ends  +/- window  ? help");
    else
        tui_put(LINES - 1, 0, COLS >= 90 ? " q quit  p pause  f fault  m next mitigation  arrows GPU  +/- window  l log  ? help"
                                     : " q quit  p pause  f fault  m skip  arrows GPU  +/- window  ? help");
    attrset(A_NORMAL);
}

/* A box in the middle of the screen holding lines. */
static void draw_box(const struct tui_ui *ui, const char *const *lines, int n)
{
    int w = 0;
    for (int i = 0; i < n; i++) {
        int l = (int)mbstowcs(NULL, lines[i], 0);
        w = l > w ? l : w;
    }
    w += 4;
    if (w > COLS)
        w = COLS;
    int h = n + 2, y = (LINES - h) / 2, x = (COLS - w) / 2;
    y = y < 0 ? 0 : y;
    x = x < 0 ? 0 : x;
    tui_on(ui, P_HEAD, ui->color ? 0 : A_REVERSE);
    for (int i = 0; i < h && y + i < LINES; i++) {
        move(y + i, x);
        hline(' ', w);
    }
    for (int i = 0; i < n; i++)
        tui_put(y + 1 + i, x + 2, lines[i]);
    attrset(A_NORMAL);
}

void tui_draw_overlays(const struct vm *m, const struct tui_ui *ui)
{
    char buf[8][96];
    const char *l[12];
    int n = 0;
    if (ui->help) {
        int nh;
        const char *const *help = tui_help(ui, &nh);
        draw_box(ui, help, nh);
        return;
    }
    if (ui->confirm_quit) {
        l[n++] = "Quit? The run stops, the summary is written.";
        l[n++] = "y: quit    any other key: go on";
        draw_box(ui, l, n);
        return;
    }
    if (!ui->dialog)
        return;
    char title[128];   /* the run it goes into: the dialog closes when that run ends */
    snprintf(title, sizeof title, "Inject a fault into run %d/%d %s (Esc cancels)", ui->d_run + 1, m->runs, ui->d_label);
    l[n++] = title;
    if (ui->dialog == 1) {
        for (int k = 0; fault_table[k] && n < 8; k++) {
            snprintf(buf[k], sizeof buf[k], "%s %d  %s", k == ui->d_kind ? ">" : " ", k + 1, fault_table[k]->name);
            l[n++] = buf[k];
        }
        l[n++] = "kind: digit or up/down, Enter";
    } else if (ui->dialog == 2) {
        snprintf(buf[0], sizeof buf[0], "%s on rank  < %d >  (of %d)", fault_table[ui->d_kind]->name, ui->d_rank, m->nranks);
        l[n++] = buf[0];
        l[n++] = "rank: left/right or digits, Enter";
    } else {
        static const char *const targets[] = { "gemm-output", "gradients", "weights", "allreduce-buffer" };
        for (int k = 0; k < 4; k++) {
            snprintf(buf[k], sizeof buf[k], "%s %d  %s", k == ui->d_target ? ">" : " ", k + 1, targets[k]);
            l[n++] = buf[k];
        }
        l[n++] = "bit flip target: digit or up/down, Enter";
    }
    draw_box(ui, l, n);
}

