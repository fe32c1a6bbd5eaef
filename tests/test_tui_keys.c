/* tests/test_tui_keys.c: docs/tui.md's keys against the product's. The keys are parsed from the page (the first
 * column of its Keys table, the replay's keys, the aliases); every one must have a check here that holds (it does
 * what its line says), every alias must do what its key does, and every key the product acts on must be named
 * there: a key added to either side alone, or one whose effect changes, fails here. */
#define NCURSES_WIDECHAR 1
#include <criterion/criterion.h>
#include <curses.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "e2e.h"
#include "tui.h"

enum { LIVE = 1, REPLAY = 2 };
#define PLAYBACK 100   /* press(): a replay's playback key acted */
#define T_END 100.0
#define T_MID 50.0

static SCREEN *scr;
static FILE *fout, *fin;

static void screen_open(void)
{
    fout = fopen("/dev/null", "w");
    fin = fopen("/dev/null", "r");
    cr_assert(fout && fin);
    scr = newterm("xterm", fout, fin);
    cr_assert(scr, "no terminfo for xterm (ncurses-base)");
    resize_term(40, 120);
}

static void screen_close(void)
{
    endwin();
    delscreen(scr);
    fclose(fout);
    fclose(fin);
}

static void ev(struct vm *m, const char *s) { cr_assert_eq(vm_event_line(m, s, strlen(s)), 0, "%s", s); }

/* A run going on: 4 GPUs, run 1 of 2 begun. */
static struct vm *running(void)
{
    struct vm *m = vm_new();
    ev(m, "{\"t_s\":0,\"event\":\"start\",\"scenario\":\"keys\",\"backend\":\"sim\",\"ranks\":4,\"runs\":2,\"iterations\":100}");
    ev(m, "{\"t_s\":0.1,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":100}");
    ev(m, "{\"t_s\":1,\"event\":\"iteration\",\"rank\":0,\"run\":0,\"iter\":0,\"dur_s\":0.4}");
    return m;
}

static void fresh(struct tui_ui *ui, int mode)
{
    tui_ui_init(ui);
    ui->unicode = ui->color = 0;
    ui->replay = mode == REPLAY;
    ui->t_end = T_END;
    ui->sel = 1;
}

/* One key as the view takes it: tui_key, and in a replay the playback keys it leaves (PLAYBACK when one acted). */
static int press(int mode, struct tui_ui *ui, const struct vm *m, int key, struct view_cmd *cmd, double *t)
{
    int a = tui_key(ui, m, key, cmd);
    if (mode == REPLAY && a == TA_UNHANDLED && tui_replay_key(ui, key, t))
        return PLAYBACK;
    return a;
}

/* ---- the page's keys */
static const struct { const char *name; int code; } names[] = {
    { "←", KEY_LEFT }, { "→", KEY_RIGHT }, { "space", ' ' }, { "Home", KEY_HOME }, { "End", KEY_END },
    { "Ctrl-C", 3 }, { "Ctrl-\\\\", 0x1c }, { "Ctrl-S", 0x13 },
};

static int code_of(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(names[i].name, name) == 0)
            return names[i].code;
    cr_assert_eq(strlen(name), 1, "docs/tui.md names a key '%s' this test cannot type: add it to names[]", name);
    return (unsigned char)name[0];
}

struct doc {
    int keys[2][64], nkeys[2];                 /* [0] live, [1] replay: the keys named */
    int alias[2][32][2], nalias[2];            /* an alias and its key */
    char windows[128];                         /* the + / - row's list of windows */
};

static void add_key(struct doc *d, int mode, int code)
{
    int k = mode == REPLAY;
    for (int i = 0; i < d->nkeys[k]; i++)
        if (d->keys[k][i] == code)
            return;
    cr_assert_lt(d->nkeys[k], 64);
    d->keys[k][d->nkeys[k]++] = code;
}

static int documented(const struct doc *d, int mode, int code)
{
    for (int i = 0; i < d->nkeys[mode == REPLAY]; i++)
        if (d->keys[mode == REPLAY][i] == code)
            return 1;
    for (int i = 0; i < d->nalias[mode == REPLAY]; i++)
        if (d->alias[mode == REPLAY][i][0] == code)
            return 1;
    return 0;
}

/* Each `token` in s up to end, as a key of mode (both: LIVE | REPLAY). */
static void backticked(struct doc *d, const char *s, const char *end, int modes)
{
    for (const char *p = strchr(s, '`'); p && p < end; p = strchr(p + 1, '`')) {
        const char *q = strchr(p + 1, '`');
        cr_assert(q && q < end, "an unclosed ` in docs/tui.md's keys");
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(q - p - 1), p + 1);
        if (strcmp(name, "gauntlet view") != 0)
            for (int mode = LIVE; mode <= REPLAY; mode++)
                if (modes & mode)
                    add_key(d, mode, code_of(name));
        p = q;
    }
}

static char *read_doc(void)
{
    char *s = e2e_read(GAUNTLET_SRC "/docs/tui.md");
    cr_assert(s, "cannot read docs/tui.md");
    return s;
}

/* The Keys table (one line a row: a row broken over lines ends a Markdown table there), the aliases and the
 * replay's keys. */
static void parse_doc(struct doc *d)
{
    memset(d, 0, sizeof *d);
    char *s = read_doc();
    char *p = strstr(s, "## Keys\n\n| key | what it does |\n|---|---|\n");
    cr_assert(p, "docs/tui.md: no Keys table");
    p = strstr(p, "|---|---|\n") + 10;
    int rows = 0;
    while (*p != '\n') {
        char *nl = strchr(p, '\n');
        cr_assert(nl && p[0] == '|' && nl[-1] == '|', "docs/tui.md: a Keys row on more than one line: '%.60s'", p);
        char *c1 = strchr(p + 1, '|');
        char col[64];
        snprintf(col, sizeof col, "%.*s", (int)(c1 - p - 1), p + 1);
        if (strchr(col, '`'))
            backticked(d, col, col + strlen(col), LIVE | REPLAY);   /* a replay takes the live view's keys too */
        else if (strspn(col, " ") != strlen(col)) {
            char name[32];
            cr_assert_eq(sscanf(col, " %31s", name), 1);
            add_key(d, LIVE, code_of(name));
            add_key(d, REPLAY, code_of(name));
        }
        if (strstr(col, "`+`")) {   /* "(5 s, 10 s, ...)" */
            char *o = strchr(c1, '('), *e = o ? strchr(o, ')') : NULL;
            cr_assert(o && e, "the + - row names no windows");
            snprintf(d->windows, sizeof d->windows, "%.*s", (int)(e - o - 1), o + 1);
        }
        rows++;
        p = nl + 1;
    }
    cr_assert_gt(rows, 8);
    char *a = strstr(p, "\nAliases: "), *ae = a ? strstr(a, ". ") : NULL, *ar = a ? strstr(a, "; in a replay") : NULL;
    cr_assert(a && ae && ar && ar < ae, "docs/tui.md: no 'Aliases: ...; in a replay ....' after the Keys table");
    for (char *q = strchr(a, '`'); q && q < ae; q = strchr(q, '`')) {
        char x[32], y[32];
        int n = 0;
        cr_assert_eq(sscanf(q, "`%31[^`]` as `%31[^`]`%n", x, y, &n), 2, "an alias is '`X` as `Y`': '%.30s'", q);
        for (int mode = LIVE; mode <= REPLAY; mode++) {
            if (q > ar && mode == LIVE)
                continue;
            int k = mode == REPLAY;
            cr_assert_lt(d->nalias[k], 32);
            d->alias[k][d->nalias[k]][0] = code_of(x);
            d->alias[k][d->nalias[k]++][1] = code_of(y);
        }
        q += n;
    }
    char *r = strstr(s, "In a replay (`gauntlet view`): "), *re = r ? strstr(r, " say that a replay takes no commands") : NULL;
    cr_assert(r && re, "docs/tui.md: no 'In a replay (`gauntlet view`): ...' sentence");
    backticked(d, r, re, REPLAY);
    free(s);
}

/* ---- what each key does, as its line says */
typedef void check_fn(int mode, struct tui_ui *ui, struct vm *m);

static void k_quit(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = T_MID;
    if (mode == REPLAY) {
        cr_assert_eq(press(mode, ui, m, 'q', &cmd, &t), TA_QUIT, "q leaves a replay at once");
        return;
    }
    cr_assert_eq(press(mode, ui, m, 'q', &cmd, &t), TA_REDRAW);
    cr_assert_eq(ui->confirm_quit, 1, "q asks while the run is going");
    memset(&cmd, 0, sizeof cmd);
    cr_assert_eq(press(mode, ui, m, 'y', &cmd, &t), TA_COMMAND);
    cr_assert_eq(cmd.type, VIEW_QUIT, "y quits through the supervisor");
}

/* p, f and m: commands to the supervisor; a replay says it takes none */
static void no_command(int mode, struct tui_ui *ui, struct vm *m, int key)
{
    struct view_cmd cmd;
    double t = T_MID;
    memset(&cmd, 0, sizeof cmd);
    cr_assert_eq(mode, REPLAY);
    cr_assert_eq(press(mode, ui, m, key, &cmd, &t), TA_UNHANDLED);
    cr_assert_eq(cmd.type, 0);
    cr_assert_float_eq(t, T_MID, 1e-9);
    cr_assert(strstr(ui->status, "a replay shows a finished run"), "'%c' in a replay: '%s'", key, ui->status);
}

static void k_pause(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = 0;
    if (mode == REPLAY)
        return no_command(mode, ui, m, 'p');
    cr_assert_eq(press(mode, ui, m, 'p', &cmd, &t), TA_COMMAND);
    cr_assert_eq(cmd.type, VIEW_PAUSE);
}

static void k_skip(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = 0;
    if (mode == REPLAY)
        return no_command(mode, ui, m, 'm');
    cr_assert_eq(press(mode, ui, m, 'm', &cmd, &t), TA_COMMAND);
    cr_assert_eq(cmd.type, VIEW_SKIP);
    cr_assert_eq(cmd.run, m->run, "the run it was pressed in: the supervisor refuses it in another");
    int over = m->run_over;   /* between runs: nothing to skip (it skipped the next run before it began) */
    m->run_over = 1;
    cr_assert_eq(press(mode, ui, m, 'm', &cmd, &t), TA_REDRAW);
    cr_assert(strstr(ui->status, "between runs"), "%s", ui->status);
    m->run_over = over;
}

static void k_fault(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = 0;
    if (mode == REPLAY)
        return no_command(mode, ui, m, 'f');
    cr_assert_eq(press(mode, ui, m, 'f', &cmd, &t), TA_REDRAW);
    cr_assert_eq(ui->dialog, 1, "f opens the dialog at its kind");
    cr_assert_eq(ui->d_run, m->run, "for the run going on");
    cr_assert_eq(ui->d_rank, ui->sel, "the selected GPU first");
    cr_assert_eq(press(mode, ui, m, 27, &cmd, &t), TA_REDRAW);
    cr_assert_eq(ui->dialog, 0, "Esc cancels");
}

static void k_left(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = T_MID;
    press(mode, ui, m, KEY_LEFT, &cmd, &t);
    cr_assert_eq(ui->sel, 0, "from GPU 1");
    press(mode, ui, m, KEY_LEFT, &cmd, &t);
    cr_assert_eq(ui->sel, m->nranks - 1, "from GPU 0: the last");
}

static void k_right(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = T_MID;
    press(mode, ui, m, KEY_RIGHT, &cmd, &t);
    cr_assert_eq(ui->sel, 2, "from GPU 1");
}

static const struct doc *the_doc;

/* The windows the row names ("5 s, 10 s, 30 s, 1 min, ..."), in seconds; n of them. */
static int doc_windows(double *w, int cap)
{
    int n = 0;
    char copy[128];
    snprintf(copy, sizeof copy, "%s", the_doc->windows);
    for (char *save, *tok = strtok_r(copy, ",", &save); tok && n < cap; tok = strtok_r(NULL, ",", &save)) {
        double v;
        char unit[8];
        cr_assert_eq(sscanf(tok, " %lf %7s", &v, unit), 2, "a window is 'N s' or 'N min': '%s'", tok);
        cr_assert(!strcmp(unit, "s") || !strcmp(unit, "min"), "'%s'", tok);
        w[n++] = v * (strcmp(unit, "min") == 0 ? 60 : 1);
    }
    return n;
}

/* + from the shortest, then - to the longest: every window the row names, in order, and none past its ends */
static void k_zoom(int mode, struct tui_ui *ui, struct vm *m, int key)
{
    struct view_cmd cmd;
    double t = T_MID, want[16];
    int n = doc_windows(want, 16);
    cr_assert_geq(n, 2);
    cr_assert_float_eq(ui->window_s, 30, 1e-9, "30 s to begin with");
    for (int i = 0; i < 20; i++)
        press(mode, ui, m, '+', &cmd, &t);
    cr_assert_float_eq(ui->window_s, want[0], 1e-9, "+ stops at the shortest: %g", ui->window_s);
    for (int i = 1; i < n + 2; i++) {
        press(mode, ui, m, '-', &cmd, &t);
        cr_assert_float_eq(ui->window_s, want[i < n ? i : n - 1], 1e-9, "- step %d: %g", i, ui->window_s);
    }
    if (key == '+') {
        press(mode, ui, m, '+', &cmd, &t);
        cr_assert_float_eq(ui->window_s, want[n - 2], 1e-9);
    }
}
static void k_plus(int mode, struct tui_ui *ui, struct vm *m) { k_zoom(mode, ui, m, '+'); }
static void k_minus(int mode, struct tui_ui *ui, struct vm *m) { k_zoom(mode, ui, m, '-'); }

static void k_log(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = T_MID;
    press(mode, ui, m, 'l', &cmd, &t);
    cr_assert_eq(ui->logscale, 1);
    tui_draw(m, ui);
    char text[120 * 41 * 4];
    tui_screen_text(text, sizeof text);
    cr_assert(strstr(text, ", log scale: now"), "the chart says so:\n%s", text);
    press(mode, ui, m, 'l', &cmd, &t);
    cr_assert_eq(ui->logscale, 0);
}

static void k_help(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = T_MID;
    press(mode, ui, m, '?', &cmd, &t);
    cr_assert_eq(ui->help, 1);
    cr_assert_eq(press(mode, ui, m, 'p', &cmd, &t), TA_REDRAW, "a key closes the help and does nothing else");
    cr_assert_eq(ui->help, 0);
    cr_assert_eq(ui->status[0], 0);
}

/* The terminal's modes the view sets (tui_term_modes), on a pseudo-terminal: Ctrl-C still SIGINT, Ctrl-\ and Ctrl-S
 * keys (no quit character, no flow control). */
static void term_modes(struct termios *after)
{
    int mfd = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert_geq(mfd, 0);
    cr_assert(grantpt(mfd) == 0 && unlockpt(mfd) == 0);
    int sfd = open(ptsname(mfd), O_RDWR | O_NOCTTY);
    cr_assert_geq(sfd, 0);
    struct termios before;
    cr_assert_eq(tcgetattr(sfd, &before), 0);
    cr_assert((before.c_iflag & IXON) && before.c_cc[VQUIT] == 0x1c, "a pseudo-terminal's defaults");
    tui_term_modes(sfd);
    cr_assert_eq(tcgetattr(sfd, after), 0);
    close(sfd);
    close(mfd);
}

static void k_ctrl_c(int mode, struct tui_ui *ui, struct vm *m)
{
    (void)mode, (void)ui, (void)m;
    struct termios t;
    term_modes(&t);
    cr_assert((t.c_lflag & ISIG) && t.c_cc[VINTR] == 3, "Ctrl-C is SIGINT: the supervisor stops in order");
}

static void k_ctrl_bs(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = T_MID;
    struct termios tio;
    term_modes(&tio);
    cr_assert_eq(tio.c_cc[VQUIT], _POSIX_VDISABLE, "no quit character: Ctrl-\\ reaches the view as a key");
    cr_assert_eq(press(mode, ui, m, 0x1c, &cmd, &t), mode == LIVE ? TA_INTERRUPT : TA_QUIT);
}

static void k_ctrl_s(int mode, struct tui_ui *ui, struct vm *m)
{
    struct view_cmd cmd;
    double t = T_MID;
    struct termios tio;
    term_modes(&tio);
    cr_assert_eq(tio.c_iflag & (IXON | IXOFF), 0, "no flow control: Ctrl-S is a key");
    cr_assert_eq(press(mode, ui, m, 0x13, &cmd, &t), TA_UNHANDLED, "a key that does nothing");
}

/* the replay's playback: the time cursor and the speed */
static void playback(int mode, struct tui_ui *ui, struct vm *m, int key, double from, double want_t)
{
    struct view_cmd cmd;
    double t = from;
    cr_assert_eq(press(mode, ui, m, key, &cmd, &t), PLAYBACK, "'%c'", key);
    cr_assert_float_eq(t, want_t, 1e-9, "'%c' from %g: %g", key, from, t);
}

static void k_space(int mode, struct tui_ui *ui, struct vm *m)
{
    cr_assert_eq(ui->playing, 1);
    playback(mode, ui, m, ' ', T_MID, T_MID);
    cr_assert_eq(ui->playing, 0, "space pauses");
    playback(mode, ui, m, ' ', T_MID, T_MID);
    cr_assert_eq(ui->playing, 1, "and plays");
    ui->playing = 0;
    playback(mode, ui, m, ' ', T_END, 0);   /* at the end: from the start */
    cr_assert_eq(ui->playing, 1);
}

static void k_speed(int mode, struct tui_ui *ui, struct vm *m, int key)
{
    char *s = read_doc();
    cr_assert(strstr(s, "`<` `>` slower / faster (1/64× to 1000×)"), "the bounds checked here are the page's");
    free(s);
    for (int i = 0; i < 20; i++)
        playback(mode, ui, m, key, T_MID, T_MID);
    cr_assert_float_eq(ui->speed, key == '>' ? 1000 : 1.0 / 64, 1e-12, "'%c' 20 times: %g", key, ui->speed);
    playback(mode, ui, m, key == '>' ? '<' : '>', T_MID, T_MID);
    cr_assert_float_eq(ui->speed, key == '>' ? 500 : 1.0 / 32, 1e-12, "%g", ui->speed);
}
static void k_slower(int mode, struct tui_ui *ui, struct vm *m) { k_speed(mode, ui, m, '<'); }
static void k_faster(int mode, struct tui_ui *ui, struct vm *m) { k_speed(mode, ui, m, '>'); }
static void k_back10(int mode, struct tui_ui *ui, struct vm *m) { playback(mode, ui, m, '[', T_MID, T_MID - 10); }
static void k_on10(int mode, struct tui_ui *ui, struct vm *m) { playback(mode, ui, m, ']', T_MID, T_MID + 10); }
static void k_back60(int mode, struct tui_ui *ui, struct vm *m) { playback(mode, ui, m, '{', 70, 10); }
static void k_on60(int mode, struct tui_ui *ui, struct vm *m) { playback(mode, ui, m, '}', 10, 70); }
static void k_start(int mode, struct tui_ui *ui, struct vm *m) { playback(mode, ui, m, 'g', T_MID, 0); }
static void k_end(int mode, struct tui_ui *ui, struct vm *m) { playback(mode, ui, m, 'G', T_MID, T_END); }

static const struct { int modes, code; check_fn *check; } checks[] = {
    { LIVE | REPLAY, 'q', k_quit },       { LIVE | REPLAY, 'p', k_pause },     { LIVE | REPLAY, 'f', k_fault },
    { LIVE | REPLAY, 'm', k_skip },       { LIVE | REPLAY, KEY_LEFT, k_left }, { LIVE | REPLAY, KEY_RIGHT, k_right },
    { LIVE | REPLAY, '+', k_plus },       { LIVE | REPLAY, '-', k_minus },     { LIVE | REPLAY, 'l', k_log },
    { LIVE | REPLAY, '?', k_help },       { LIVE | REPLAY, 3, k_ctrl_c },      { LIVE | REPLAY, 0x1c, k_ctrl_bs },
    { LIVE | REPLAY, 0x13, k_ctrl_s },    { REPLAY, ' ', k_space },            { REPLAY, '<', k_slower },
    { REPLAY, '>', k_faster },            { REPLAY, '[', k_back10 },           { REPLAY, ']', k_on10 },
    { REPLAY, '{', k_back60 },            { REPLAY, '}', k_on60 },             { REPLAY, 'g', k_start },
    { REPLAY, 'G', k_end },
};

Test(tui_keys, every_documented_key_does_what_its_line_says)
{
    struct doc d;
    parse_doc(&d);
    the_doc = &d;
    screen_open();
    for (int mode = LIVE; mode <= REPLAY; mode++) {
        for (int i = 0; i < d.nkeys[mode == REPLAY]; i++) {
            int code = d.keys[mode == REPLAY][i], found = 0;
            for (size_t c = 0; c < sizeof checks / sizeof *checks; c++) {
                if (checks[c].code != code || !(checks[c].modes & mode))
                    continue;
                struct vm *m = running();
                struct tui_ui ui;
                fresh(&ui, mode);
                checks[c].check(mode, &ui, m);
                vm_free(m);
                found = 1;
            }
            cr_assert(found, "docs/tui.md names key %d (%s) with no check here: add one", code,
                      mode == LIVE ? "live" : "replay");
        }
    }
    for (size_t c = 0; c < sizeof checks / sizeof *checks; c++)   /* and nothing checked here that the page lost */
        for (int mode = LIVE; mode <= REPLAY; mode++)
            if (checks[c].modes & mode) {
                int named = 0;
                for (int i = 0; i < d.nkeys[mode == REPLAY]; i++)
                    named |= d.keys[mode == REPLAY][i] == checks[c].code;
                cr_assert(named, "key %d (%s) is checked here but docs/tui.md does not name it", checks[c].code,
                          mode == LIVE ? "live" : "replay");
            }
    screen_close();
}

/* Two views in the same state after a key: the same action, command, cursor and choices. */
static void same_effect(int mode, int a, int b)
{
    struct tui_ui ua, ub;
    struct view_cmd ca, cb;
    struct vm *m = running();
    fresh(&ua, mode);
    memcpy(&ub, &ua, sizeof ua);
    memset(&ca, 0, sizeof ca);
    memset(&cb, 0, sizeof cb);
    double ta = T_MID, tb = T_MID;
    int ra = press(mode, &ua, m, a, &ca, &ta), rb = press(mode, &ub, m, b, &cb, &tb);
    cr_assert_eq(ra, rb, "%s: alias %d acts as %d (%d), not as its key (%d)", mode == LIVE ? "live" : "replay", a, ra,
                 b, rb);
    cr_assert_eq(memcmp(&ca, &cb, sizeof ca), 0, "alias %d: the command differs from key %d's", a, b);
    cr_assert_eq(memcmp(&ua, &ub, sizeof ua), 0, "alias %d: the view differs from key %d's", a, b);
    cr_assert_float_eq(ta, tb, 1e-12, "alias %d: the time differs from key %d's", a, b);
    vm_free(m);
}

Test(tui_keys, an_alias_does_what_its_key_does)
{
    struct doc d;
    parse_doc(&d);
    screen_open();
    for (int mode = LIVE; mode <= REPLAY; mode++)
        for (int i = 0; i < d.nalias[mode == REPLAY]; i++)
            same_effect(mode, d.alias[mode == REPLAY][i][0], d.alias[mode == REPLAY][i][1]);
    screen_close();
}

/* Whether a key does anything on a fresh view: an action, or a change of the view's state or the time. */
static int acts(int mode, int key)
{
    struct tui_ui ui, before;
    struct view_cmd cmd;
    struct vm *m = running();
    fresh(&ui, mode);
    memcpy(&before, &ui, sizeof ui);
    double t = T_MID;
    int a = press(mode, &ui, m, key, &cmd, &t);
    vm_free(m);
    return (a != TA_UNHANDLED && a != TA_NONE) || memcmp(&ui, &before, sizeof ui) != 0 || t != T_MID;
}

/* Every key the product acts on is named by the page (a key or an alias), in the live view and in a replay. */
Test(tui_keys, no_key_acts_that_the_page_does_not_name)
{
    struct doc d;
    parse_doc(&d);
    screen_open();
    for (int mode = LIVE; mode <= REPLAY; mode++)
        for (int key = 1; key <= KEY_MAX; key++) {
            if (key == KEY_RESIZE || (key > 255 && key < KEY_MIN))
                continue;   /* a new size is no key */
            if (acts(mode, key))
                cr_assert(documented(&d, mode, key), "%s: key %d (%s) acts but docs/tui.md does not name it",
                          mode == LIVE ? "live" : "replay", key, keyname(key) ? keyname(key) : "?");
        }
    screen_close();
}

/* The help (?) lists the keys of its view as the page names them: its lines' keys are the page's, and every key the
 * page names there but ?, the Ctrl- ones (the terminal's) and the aliases is in it. */
Test(tui_keys, the_help_lists_the_documented_keys)
{
    struct doc d;
    parse_doc(&d);
    for (int mode = LIVE; mode <= REPLAY; mode++) {
        struct tui_ui ui;
        fresh(&ui, mode);
        int n, listed[64], nl = 0;
        const char *const *help = tui_help(&ui, &n);
        for (int i = 1; i < n - 1; i++) {   /* the title, the keys, "any key closes this help" */
            char keys[32], *save;
            const char *gap = strstr(help[i], "  ");
            cr_assert(gap, "'%s'", help[i]);
            snprintf(keys, sizeof keys, "%.*s", (int)(gap - help[i]), help[i]);
            for (char *tok = strtok_r(keys, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                if (strcmp(tok, "/") == 0)
                    continue;
                if (strcmp(tok, "arrows") == 0) {
                    listed[nl++] = KEY_LEFT;
                    listed[nl++] = KEY_RIGHT;
                    continue;
                }
                int code = code_of(tok);
                cr_assert(documented(&d, mode, code), "the help lists '%s', docs/tui.md does not", tok);
                listed[nl++] = code;
            }
        }
        for (int i = 0; i < d.nkeys[mode == REPLAY]; i++) {
            int code = d.keys[mode == REPLAY][i], in = 0;
            if (code == '?' || code < 32)
                continue;
            if (mode == REPLAY && (code == 'p' || code == 'f' || code == 'm'))
                continue;   /* a replay's: "takes no commands" */
            for (int k = 0; k < nl; k++)
                in |= listed[k] == code;
            cr_assert(in, "%s: docs/tui.md names key %d, the help does not list it", mode == LIVE ? "live" : "replay",
                      code);
        }
    }
}
