/* tui/tui.h: the terminal view — drawing (draw.c), keys (keys.c), the live view beside a running supervisor
 * (live.c) and the replay of a finished run (replay.c). No engine logic: it shows telemetry and turns keys
 * into the supervisor's view commands. */
#ifndef GAUNTLET_TUI_H
#define GAUNTLET_TUI_H

#include <stddef.h>

#include "model.h"
#include "cli.h"
#include "view.h"

/* What the person at the terminal has chosen; the drawing reads it, the keys change it. */
struct tui_ui {
    int unicode, color;          /* block characters; colours (off with NO_COLOR or a monochrome terminal) */
    double window_s;             /* the power chart's time span */
    int sel;                     /* the GPU shown in the detail line */
    int logscale;
    int help;                    /* the help overlay is open */
    int confirm_quit;            /* "quit? y/n" is asked */
    int dialog;                  /* fault dialog: 0 closed, 1 kind, 2 rank, 3 target */
    int d_kind, d_rank, d_target;
    int d_typed;   /* digits typed into the rank (0: it still holds the selected GPU, the first digit replaces it) */
    int d_run;                   /* the run the dialog was opened in: its fault goes into that run or nowhere */
    char d_label[48];            /* that run's label, as the dialog names it */
    int no_keys;                 /* live: stdin is closed (EOF, or it cannot be read): no key can come */
    int replay;                  /* 1: a replay (no commands; playback keys) */
    double speed;                /* replay: playback speed */
    int playing;                 /* replay: the cursor moves */
    double t_end;                /* replay: the run's last time */
    int no_end, no_power;        /* replay: the record has no end event (killed), no power.csv */
    double now;                  /* the time at the chart's right edge (model time) */
    char status[160];            /* a one-line message in the footer */
    long pause_sent;             /* live: pauses asked (p) that m->pause_answers answers, in order */
    double pause_t;              /* live: model time of the last p (a pause unanswered 5 s later is not waited for) */
};

/* Sets ui's defaults (window 30 s) and picks unicode/colour from the locale, TERM and NO_COLOR. */
void tui_ui_init(struct tui_ui *ui);
/* Starts colours on the current screen when ui->color (call after newterm/initscr). */
void tui_colors(struct tui_ui *ui);
/* Draws the whole view onto stdscr at its current size (no refresh). */
void tui_draw(const struct vm *m, const struct tui_ui *ui);
/* Copies the screen's text (UTF-8, one line per row) into out; returns the length. For tests and --snapshot. */
size_t tui_screen_text(char *out, size_t n);

/* The smallest screen the view is drawn on; a smaller one shows only that it is too small. */
#define TUI_MIN_COLS 40
#define TUI_MIN_ROWS 12
/* Whether the current screen (COLS x LINES) is under TUI_MIN_COLS x TUI_MIN_ROWS. */
int tui_too_small(void);

enum tui_action { TA_NONE = 0, TA_REDRAW, TA_COMMAND, TA_QUIT, TA_UNHANDLED,
                  TA_INTERRUPT };   /* Ctrl-\ in the live view: stop as Ctrl-C does (a replay: TA_QUIT) */
/* Handles one key; TA_COMMAND fills cmd (live only), TA_QUIT: leave the view now. While the screen is too small to
 * show the view, every key is ignored (q too, but in a replay, where it only leaves) and an open dialog, question or
 * help is closed: nothing is done that the screen does not show. */
int tui_key(struct tui_ui *ui, const struct vm *m, int key, struct view_cmd *cmd);
/* A replay's playback key, one tui_key left unhandled: space, < >, [ ] { }, g G move the time cursor *t (the caller
 * keeps it within [0, ui->t_end]) or change ui's speed and playing. Returns 1 when the key was one of them. */
int tui_replay_key(struct tui_ui *ui, int key, double *t);
/* Closes a fault dialog whose run has ended (or another begun) since it was opened, saying so in the footer: the
 * fault would go into another run. Returns 1 when it closed one. tui_key calls it first; the live view after every
 * drain too, so that it closes with no key pressed. */
int tui_sync(struct tui_ui *ui, const struct vm *m);
/* Whether run is the model's current run and still going (not ended, the harness not stopping). */
int tui_run_open(const struct vm *m, int run);
/* Sets the view's terminal modes on fd (after cbreak): no flow control (Ctrl-S would stop the screen's output, the
 * view's thread in its write and the harness's end with it) and no quit character (Ctrl-\ is a key: SIGQUIT would
 * end the harness without its summary). */
void tui_term_modes(int fd);
/* The help box's lines (keys.c): the replay's keys or the live view's; *n of them. */
const char *const *tui_help(const struct tui_ui *ui, int *n);

/* The live view: started by `gauntlet run` on a terminal. tui_live_start takes over the terminal (stderr
 * goes to DIR/messages.log meanwhile: the workers' and the harness's messages are shown in the log) and
 * returns the link the supervisor feeds; NULL (with why) when the terminal cannot host it. */
const struct view_link *tui_live_start(const char *out_dir, char *why, size_t n);
/* Afterwards: the terminal is the shell's again; prints what was logged meanwhile to stderr. */
void tui_live_end(void);

/* `gauntlet view RUNDIR [--at S] [--speed X] [--snapshot COLSxROWS]`. */
int tui_view_main(int argc, char **argv);
extern const struct cli_cmd view_cli;

#endif
