/* tui/text.h: the drawing's shared pieces (text.c): colour roles, a line cut to the screen's width by display
 * columns, and the overlays drawn over the view. */
#ifndef GAUNTLET_TUI_TEXT_H
#define GAUNTLET_TUI_TEXT_H

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include "tui.h"

enum pair { P_COMPUTE = 1, P_COMM, P_CKPT, P_FILLER, P_CHART, P_BAND, P_FAULT, P_DETECT, P_RECOVER, P_WARN, P_HEAD,
            P_LINE, P_SEL };

/* Sets the attributes for a colour role (pair 0: none) and extra attributes; colours only when ui->color. */
void tui_on(const struct tui_ui *ui, int pair, attr_t extra);
/* Writes s at (y, x), cut to the screen's width in display columns, never inside a character. */
void tui_put(int y, int x, const char *s);
/* Formats, then tui_put. */
void tui_putf(int y, int x, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The footer: the last key's answer, else the keys. */
void tui_draw_footer(const struct tui_ui *ui);
/* The help, the quit question or the fault dialog, when open. */
void tui_draw_overlays(const struct vm *m, const struct tui_ui *ui);

#endif
