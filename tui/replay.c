/* tui/replay.c: `gauntlet view RUNDIR` — a finished (or running) run's events.jsonl and power.csv played
 * back through the same model and drawing as the live view (the record read as a stream: replay_rec.c), with a time
 * cursor and a playback speed.
 * `--snapshot COLSxROWS` prints the screen at the cursor as text instead (no terminal needed). */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "param.h"
#include "replay.h"
#include "tui.h"
#include "util.h"

const struct cli_cmd view_cli = {
    "view", "RUNDIR", 1, 1, "replay a run in the live view, or print its screen at a time as text",
    "Keys while replaying: space pauses or plays, > and < double or halve the speed, ] and [ move 10 s, } and {\n"
    "60 s, g and G go to the start and the end; the live view's keys otherwise (? for help).\n",
    { { "at", "SECONDS", "start at this time of the run (30, 1.5min); with --snapshot, the screen at it" },
      { "speed", "X", "replay speed, a factor in (0, 1000] (default 1)" },
      { "snapshot", "COLSxROWS", "print the screen as text instead (40x12 to 1000x500) and exit" },
      { 0 } },
};

/* Reads COLSxROWS (digits only: no sign, space, base prefix or text after it) into *cols and *rows: 0, or -1. */
static int replay_size(const char *s, int *cols, int *rows)
{
    int v[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        int digits = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            if (++digits > 5)   /* past 99999: out of any range, and never an overflow */
                return -1;
            v[k] = v[k] * 10 + (*s - '0');
        }
        if (!digits || *s != (k == 0 ? 'x' : '\0'))
            return -1;
        s += k == 0;
    }
    *cols = v[0];
    *rows = v[1];
    return 0;
}

/* Reads --at, --speed and --snapshot (each left as it is when not given): 0, or the usage error. */
static int replay_options(const struct cli_args *a, double *at, double *speed, int *cols, int *rows)
{
    const char *v;
    if ((v = cli_get(&view_cli, a, "at")) && (parse_duration(v, at) != 0 || *at < 0))
        return cli_bad(&view_cli, "at", v, "expected seconds of the run, >= 0 (e.g. 30 or 1.5min)");
    if ((v = cli_get(&view_cli, a, "speed")) && (parse_double(v, speed) != 0 || !(*speed > 0 && *speed <= 1000)))
        return cli_bad(&view_cli, "speed", v, "expected a factor in (0, 1000] (e.g. 2 or 0.5)");
    if ((v = cli_get(&view_cli, a, "snapshot")) &&
        (replay_size(v, cols, rows) != 0 || *cols < 40 || *rows < 12 || *cols > 1000 || *rows > 500))
        return cli_bad(&view_cli, "snapshot", v, "expected COLSxROWS from 40x12 to 1000x500 (e.g. 120x40)");
    return 0;
}

/* Prints the screen at the cursor (at; < 0: the end) as text on stdout, on no terminal at all: EXIT_OK, or EXIT_ENV
 * having said why (no terminfo, or stdout could not take it). */
static int replay_snapshot(struct replay *rp, struct vm **m, struct tui_ui *ui, double at, int cols, int rows)
{
    int code = EXIT_OK;
    FILE *null_out = fopen("/dev/null", "we"), *null_in = fopen("/dev/null", "re");
    SCREEN *scr = NULL;
    const char *terms[] = { "xterm-256color", "xterm", "vt100" };
    for (size_t i = 0; i < ARRAY_LEN(terms) && !scr && null_out && null_in; i++)
        scr = newterm(terms[i], null_out, null_in);
    if (!scr) {
        gl_log("no terminfo entry for xterm or vt100 (install ncurses-base)");
        code = EXIT_ENV;
    } else {
        resize_term(rows, cols);
        ui->color = 0;
        ui->playing = 0;
        double t = at >= 0 ? fmin(at, replay_t_end(rp)) : replay_t_end(rp);
        *m = replay_seek(rp, *m, t);
        ui->now = t;
        tui_draw(*m, ui);
        size_t cap = (size_t)rows * ((size_t)cols * 4 + 1) + 1;
        char *text = xmalloc(cap);
        tui_screen_text(text, cap);
        endwin();
        delscreen(scr);
        if (fputs(text, stdout) == EOF)
            code = EXIT_ENV;
        free(text);
        if (stdout_done() != EXIT_OK)   /* the text is the whole product: one that was lost is said */
            code = EXIT_ENV;
    }
    if (null_out)
        fclose(null_out);
    if (null_in)
        fclose(null_in);
    return code;
}

/* The terminal as it was before the view took it, for a crash (async-signal-safe calls only), as the live view's. */
static struct termios replay_tio;
static volatile sig_atomic_t replay_tio_saved;

static void replay_crash(int sig)
{
    static const char seq[] = "\033[0m\033[?25h\033[?1049l\r\n";
    if (replay_tio_saved)
        tcsetattr(STDIN_FILENO, TCSANOW, &replay_tio);
    ssize_t rc = write(STDOUT_FILENO, seq, sizeof seq - 1);
    (void)rc;
    signal(sig, SIG_DFL);
    raise(sig);
}

static volatile sig_atomic_t replay_active;   /* the view is up: an exit (gl_die) gives the terminal back first */

static void replay_atexit(void)
{
    if (replay_active) {   /* until 2026-12-02 an exit 3 mid-view (out of memory) left it without echo or lines */
        replay_active = 0;
        endwin();
        if (replay_tio_saved)
            tcsetattr(STDIN_FILENO, TCSANOW, &replay_tio);
    }
}

int tui_view_main(int argc, char **argv)
{
    double at = -1, speed = 1;
    int cols = 0, rows = 0;
    struct cli_args a;
    int rc = cli_parse(&view_cli, argc, argv, &a);
    if (rc)
        return rc == CLI_HELP ? EXIT_OK : rc;
    setlocale(LC_CTYPE, "");
    if ((rc = replay_options(&a, &at, &speed, &cols, &rows)) != 0)
        return rc;
    const char *dir = a.operand[0];
    if (path_fits("RUNDIR", dir, REPLAY_PATH_MAX - 32) != 0)
        return EXIT_INPUT;
    char why[REPLAY_PATH_MAX + 200];
    struct replay *rp = replay_open(dir, why, sizeof why);
    if (!rp) {
        gl_log("%s", why);
        return EXIT_INPUT;
    }
    double t_end = replay_t_end(rp);
    struct tui_ui ui;
    tui_ui_init(&ui);
    ui.replay = 1;
    ui.speed = speed;
    ui.t_end = t_end;
    char pid[32];   /* a record without its end is cut short, unless a run still holds the folder (it goes on) */
    ui.no_end = !replay_ended(rp) && dir_lock_held(dir, pid, sizeof pid) == 0;
    ui.no_power = replay_no_power(rp);
    if (cols && ui.no_end)
        gl_log("%s/events.jsonl: no end event: the record was cut short (the run killed); it ends at %.3f s", dir, t_end);
    if (cols && ui.no_power)
        gl_log("%s/power.csv: missing: no power to show", dir);
    struct vm *m = vm_new();
    int code = EXIT_OK;
    SCREEN *scr = NULL;
    const char *term = getenv("TERM");
    if (!cols && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &replay_tio) == 0)
        replay_tio_saved = 1;
    if (cols) {
        code = replay_snapshot(rp, &m, &ui, at, cols, rows);
    } else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        gl_log("needs a terminal (or --snapshot COLSxROWS for text)");
        code = EXIT_ENV;
    } else if (!(scr = newterm(NULL, stdout, stdin))) {   /* initscr would exit(1) itself on an unknown TERM */
        gl_log("TERM=%s: ncurses has no terminfo entry for this terminal (set TERM to one it knows, e.g. xterm-256color, "
               "or use --snapshot COLSxROWS for text)", term && *term ? term : "(unset)");
        code = EXIT_ENV;
    } else {
        /* a crash, and the signals that end a viewer: the terminal back, then the signal's own end (until 2026-11-30
         * SIGHUP and SIGQUIT left the terminal in the view's modes) */
        struct sigaction sa = { .sa_handler = replay_crash, .sa_flags = SA_RESETHAND };
        sigemptyset(&sa.sa_mask);
        int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT, SIGHUP, SIGTERM, SIGINT };
        for (size_t i = 0; i < ARRAY_LEN(sigs); i++)
            sigaction(sigs[i], &sa, NULL);
        static int registered;
        if (!registered++)
            atexit(replay_atexit);
        replay_active = 1;
        cbreak();
        tui_term_modes(STDIN_FILENO);   /* Ctrl-S a key, Ctrl-\ quits as q does */
        noecho();
        keypad(stdscr, TRUE);
        nodelay(stdscr, TRUE);
        curs_set(0);
        set_escdelay(25);
        tui_colors(&ui);
        double t = at >= 0 ? fmin(at, t_end) : 0;
        uint64_t last = mono_ns();
        for (;;) {
            int key, quit = 0;
            struct view_cmd cmd;
            while ((key = getch()) != ERR) {
                int a = tui_key(&ui, m, key, &cmd);
                if (a == TA_QUIT)
                    quit = 1;
                else if (a == TA_UNHANDLED)
                    tui_replay_key(&ui, key, &t);
            }
            if (quit)
                break;
            uint64_t now = mono_ns();
            if (ui.playing)
                t += (double)(now - last) * 1e-9 * ui.speed;
            last = now;
            t = fmin(fmax(t, 0), t_end);
            if (t >= t_end)
                ui.playing = 0;
            m = replay_seek(rp, m, t);
            ui.now = t;
            tui_draw(m, &ui);
            refresh();
            struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
            poll(&p, 1, 100);
        }
        replay_active = 0;
        endwin();
        delscreen(scr);
    }
    vm_free(m);
    replay_free(rp);
    return code;
}
