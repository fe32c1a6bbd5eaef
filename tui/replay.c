/* tui/replay.c: `gauntlet view RUNDIR` — a finished (or running) run's events.jsonl and power.csv played
 * back through the same model and drawing as the live view, with a time cursor and a playback speed.
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

#include "gridsum.h"
#include "param.h"
#include "tui.h"
#include "util.h"

struct replay {
    json_t **ev;
    double *ev_t;
    size_t nev, i_ev;
    struct prow { double t, w, clk, temp; uint64_t thr; int rank, kind; int64_t sample_ns; } *pw;   /* kind: PR_* */
    size_t npw, i_pw, pcap;
    double t_end;
    int ended, no_power;   /* the record has an end event; it has no power.csv */
};

#define REPLAY_PATH_MAX (PATH_MAX - 1)   /* the longest RUNDIR (its files' names added to it) */

enum { PR_RANK = 0, PR_NODE, PR_CLUSTER };   /* a GPU's row; a node's sum (rank: the node, thr: its GPUs); the
                                               * cluster's sum (thr: whole) */

static void add_prow(struct replay *rp, struct prow p)
{
    if (rp->npw == rp->pcap) {
        rp->pcap = rp->pcap ? 2 * rp->pcap : 65536;
        rp->pw = xrealloc(rp->pw, rp->pcap * sizeof *rp->pw);
    }
    rp->pw[rp->npw++] = p;
    rp->t_end = fmax(rp->t_end, p.t);
}

/* Opens dir/name, a file the replay may go without (NULL, *absent set, when it is not there); NULL with why when it
 * is there but cannot be read, or is no regular file (a FIFO would block). */
static FILE *replay_open_optional(const char *dir, const char *name, char *path, size_t pn, int *absent, char *why,
                                  size_t n)
{
    snprintf(path, pn, "%s/%s", dir, name);   /* dir fits: tui_view_main checked it */
    FILE *f = fopen_regular(path, "r");
    *absent = !f && errno == ENOENT;
    if (!f && !*absent)
        snprintf(why, n, "%s: %s", path, errno == EINVAL ? "not a regular file" : strerror(errno));
    return f;
}

/* Closes a file read to its end: 0, or -1 with why when reading it failed (taken for its end otherwise). */
static int replay_close(FILE *f, const char *path, char *why, size_t n)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(why, n, "%s: read error", path);
        return -1;
    }
    return 0;
}

/* Reads events.jsonl: every line an object with t_s and event, else exit 2 naming file:line. */
static int load_events(struct replay *rp, const char *dir, char *why, size_t n)
{
    char path[REPLAY_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);   /* dir fits: tui_view_main checked it */
    FILE *f = fopen_regular(path, "r");   /* a FIFO would block, a folder read as empty */
    if (!f) {
        snprintf(why, n, "%s: %s (not a results folder of gauntlet run?)", path,
                 errno == EINVAL ? "not a regular file" : strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, ncap = 0;
    ssize_t len;
    int lineno = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        json_error_t err;
        json_t *o = json_loadb(line, (size_t)len, 0, &err);
        if (!o && line[len - 1] != '\n')
            break;   /* the last line of a run still being written */
        if (!o || !json_is_object(o) || !json_is_number(json_object_get(o, "t_s")) ||
            !json_is_string(json_object_get(o, "event"))) {
            snprintf(why, n, "%s:%d: expected a JSON object with t_s and event%s%s", path, lineno, o ? "" : ", got: ",
                     o ? "" : err.text);
            json_decref(o);
            free(line);
            fclose(f);
            return -1;
        }
        if (rp->nev == ncap) {
            ncap = ncap ? 2 * ncap : 1024;
            rp->ev = xrealloc(rp->ev, ncap * sizeof *rp->ev);
            rp->ev_t = xrealloc(rp->ev_t, ncap * sizeof *rp->ev_t);
        }
        rp->ended |= strcmp(json_string_value(json_object_get(o, "event")), "end") == 0;
        rp->ev_t[rp->nev] = json_number_value(json_object_get(o, "t_s"));
        rp->t_end = fmax(rp->t_end, rp->ev_t[rp->nev]);
        rp->ev[rp->nev++] = o;
    }
    free(line);
    return replay_close(f, path, why, n);
}

static double field(const char *s) { return *s ? strtod(s, NULL) : NAN; }

static int cmp_prow(const void *a, const void *b)
{
    const struct prow *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void take_cell(void *ctx, const struct gridsum_cell *c)
{
    add_prow(ctx, (struct prow){ c->t_s, c->watts, NAN, NAN, (uint64_t)c->whole, -1, PR_CLUSTER, 0 });
}

/* Whether the run's (first) start event says it wrote the nodes' summed power: several nodes, forward: nodes. */
static int replay_nodes_summed(const struct replay *rp)
{
    for (size_t i = 0; i < rp->nev; i++) {
        if (strcmp(json_string_value(json_object_get(rp->ev[i], "event")), "start") != 0)
            continue;
        const char *fwd = json_string_value(json_object_get(rp->ev[i], "forward"));
        return json_integer_value(json_object_get(rp->ev[i], "nodes")) > 1 && fwd && strcmp(fwd, "nodes") == 0;
    }
    return 0;
}

/* forward: nodes: power-nodes.csv (t_s,node,watts,gpus), each node's sum per cell; and the cluster's sum on that
 * grid, as node 0 built it live (gridsum.h; the cell from the closest rows of one node). A run that wrote none (one
 * node, forward: ranks) has it only from an earlier run in the same folder: not read. */
static int load_nodes_power(struct replay *rp, const char *dir, char *why, size_t n)
{
    char path[REPLAY_PATH_MAX + 32];
    int absent;
    if (!replay_nodes_summed(rp))
        return 0;
    FILE *f = replay_open_optional(dir, "power-nodes.csv", path, sizeof path, &absent, why, n);
    if (!f)
        return absent ? 0 : -1;   /* absent: removed since; the GPUs' own rows are still shown */
    char *line = NULL;
    size_t cap = 0, first = rp->npw;
    int lineno = 0, nodes = 0;
    double cell = INFINITY;
    while (getline(&line, &cap, f) > 0) {
        double t, w;
        int node, g;
        if (++lineno == 1)
            continue;
        if (sscanf(line, "%lf,%d,%lf,%d", &t, &node, &w, &g) != 4 || node < 0 || node >= 100000 || !isfinite(t)) {
            snprintf(why, n, "%s:%d: expected t_s,node,watts,gpus", path, lineno);
            free(line);
            fclose(f);
            return -1;
        }
        for (size_t i = rp->npw; i-- > first;)   /* the cell: the closest two rows of one node */
            if (rp->pw[i].rank == node) {
                if (t - rp->pw[i].t > 1e-7)
                    cell = fmin(cell, t - rp->pw[i].t);
                break;
            }
        nodes = node + 1 > nodes ? node + 1 : nodes;
        add_prow(rp, (struct prow){ t, w, NAN, NAN, (uint64_t)(g > 0 ? g : 0), node, PR_NODE, 0 });
    }
    free(line);
    if (replay_close(f, path, why, n) != 0)
        return -1;
    size_t last = rp->npw;
    struct gridsum *gs = isfinite(cell) ? gridsum_new(nodes, cell, take_cell, rp) : NULL;
    for (size_t i = first; gs && i < last; i++)   /* each node's rows are in its own time order in the file */
        gridsum_row(gs, rp->pw[i].t, rp->pw[i].rank, rp->pw[i].w, (int)rp->pw[i].thr);
    gridsum_flush(gs);
    gridsum_free(gs);
    return 0;
}

/* Reads power.csv (t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle). */
static int load_power(struct replay *rp, const char *dir, char *why, size_t n)
{
    char path[REPLAY_PATH_MAX + 32];
    int absent;
    FILE *f = replay_open_optional(dir, "power.csv", path, sizeof path, &absent, why, n);
    rp->no_power = !f && absent;   /* sampling was off, or the run was killed before it: said, no power shown */
    if (!f)
        return absent ? 0 : -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (++lineno == 1)
            continue;   /* header */
        if (line[len - 1] != '\n')
            break;
        line[len - 1] = 0;
        char *fld[12];
        int k = 0;
        for (char *p = line; k < 12; k++) {
            fld[k] = p;
            char *c = strchr(p, ',');
            if (!c) {
                k++;
                break;
            }
            *c = 0;
            p = c + 1;
        }
        char *end;
        double t = strtod(fld[0], &end);
        long rank = k >= 3 ? strtol(fld[1], NULL, 10) : -1;
        if (k < 9 || *end || rank < 0 || rank > INT32_MAX) {
            snprintf(why, n, "%s:%d: expected t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle", path, lineno);
            free(line);
            fclose(f);
            return -1;
        }
        if (rank >= VM_MAX_RANKS)
            continue;   /* a GPU past those the view lists (the cluster's sum has its own rows) */
        double st = k >= 12 ? field(fld[11]) : NAN;   /* sample_t_s: the sensor's own time (the run's clock) */
        add_prow(rp, (struct prow){ t, field(fld[2]), field(fld[6]), field(fld[7]), *fld[8] ? strtoull(fld[8], NULL, 0) : 0,
                                    (int)rank, PR_RANK,
                                    isfinite(st) && fabs(st) < 1e9 ? (int64_t)llround(st * 1e9) + (INT64_C(1) << 62) : 0 });
    }
    free(line);
    if (replay_close(f, path, why, n) != 0)
        return -1;
    if (load_nodes_power(rp, dir, why, n) != 0)
        return -1;
    /* several nodes' rows interleave in arrival order: the replay wants time order (qsort is not stable, but
     * rows of one time are one tick of different ranks, in any order) */
    if (rp->npw)   /* none: rp->pw may be NULL, which qsort must not get */
        qsort(rp->pw, rp->npw, sizeof *rp->pw, cmp_prow);
    return 0;
}

/* Feeds the model everything up to time t, in time order. */
static void feed(struct replay *rp, struct vm *m, double t)
{
    for (;;) {
        int ev_ok = rp->i_ev < rp->nev && rp->ev_t[rp->i_ev] <= t;
        int pw_ok = rp->i_pw < rp->npw && rp->pw[rp->i_pw].t <= t;
        if (!ev_ok && !pw_ok)
            break;
        if (ev_ok && (!pw_ok || rp->ev_t[rp->i_ev] <= rp->pw[rp->i_pw].t)) {
            vm_event(m, rp->ev[rp->i_ev++]);
        } else {
            const struct prow *p = &rp->pw[rp->i_pw++];
            if (p->kind == PR_NODE && p->rank > 0)   /* node 0's GPUs have their own rows */
                vm_node_power(m, p->t, p->rank, p->w, (int)p->thr);
            else if (p->kind == PR_NODE)
                continue;
            else if (p->kind == PR_CLUSTER)
                vm_cluster_power(m, p->t, p->w, (int)p->thr);
            else {
                vm_power(m, p->t, p->rank, p->w, p->clk, p->temp, p->thr);
                vm_power_stamp(m, p->rank, p->sample_ns);
            }
        }
    }
    if (t > m->t_now && t <= rp->t_end)
        m->t_now = t;
}

/* Moves the cursor to t: forward by feeding, backward by starting over. */
static struct vm *seek(struct replay *rp, struct vm *m, double t)
{
    if (t < m->t_now - 1e-9) {
        vm_free(m);
        m = vm_new();
        rp->i_ev = rp->i_pw = 0;
    }
    feed(rp, m, t);
    vm_measure(m, 10);
    return m;
}

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
        double t = at >= 0 ? fmin(at, rp->t_end) : rp->t_end;
        *m = seek(rp, *m, t);
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

static void replay_free(struct replay *rp)
{
    for (size_t i = 0; i < rp->nev; i++)
        json_decref(rp->ev[i]);
    free(rp->ev);
    free(rp->ev_t);
    free(rp->pw);
    memset(rp, 0, sizeof *rp);
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
    struct replay rp = { 0 };
    if (load_events(&rp, dir, why, sizeof why) != 0 || load_power(&rp, dir, why, sizeof why) != 0) {
        gl_log("%s", why);
        replay_free(&rp);
        return EXIT_INPUT;
    }
    struct tui_ui ui;
    tui_ui_init(&ui);
    ui.replay = 1;
    ui.speed = speed;
    ui.t_end = rp.t_end;
    char pid[32];   /* a record without its end is cut short, unless a run still holds the folder (it goes on) */
    ui.no_end = !rp.ended && dir_lock_held(dir, pid, sizeof pid) == 0;
    ui.no_power = rp.no_power;
    if (cols && ui.no_end)
        gl_log("%s/events.jsonl: no end event: the record was cut short (the run killed); it ends at %.3f s", dir, rp.t_end);
    if (cols && ui.no_power)
        gl_log("%s/power.csv: missing: no power to show", dir);
    struct vm *m = vm_new();
    int code = EXIT_OK;
    SCREEN *scr = NULL;
    const char *term = getenv("TERM");
    if (!cols && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &replay_tio) == 0)
        replay_tio_saved = 1;
    if (cols) {
        code = replay_snapshot(&rp, &m, &ui, at, cols, rows);
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
        cbreak();
        tui_term_modes(STDIN_FILENO);   /* Ctrl-S a key, Ctrl-\ quits as q does */
        noecho();
        keypad(stdscr, TRUE);
        nodelay(stdscr, TRUE);
        curs_set(0);
        set_escdelay(25);
        tui_colors(&ui);
        double t = at >= 0 ? fmin(at, rp.t_end) : 0;
        uint64_t last = mono_ns();
        for (;;) {
            int key, quit = 0;
            struct view_cmd cmd;
            while ((key = getch()) != ERR) {
                int a = tui_key(&ui, m, key, &cmd);
                if (a == TA_QUIT)
                    quit = 1;
                else if (a == TA_UNHANDLED) {
                    switch (key) {
                    case ' ':   /* at the record's end: plays it again from its start */
                        if (!ui.playing && t >= rp.t_end)
                            t = 0;
                        ui.playing = !ui.playing;
                        break;
                    case '>': case '.': ui.speed = fmin(ui.speed * 2, 1000); break;
                    case '<': case ',': ui.speed = fmax(ui.speed / 2, 1.0 / 64); break;
                    case ']': t += 10; break;
                    case '[': t -= 10; break;
                    case '}': t += 60; break;
                    case '{': t -= 60; break;
                    case 'g': case KEY_HOME: t = 0; break;
                    case 'G': case KEY_END: t = rp.t_end; break;
                    default: break;
                    }
                }
            }
            if (quit)
                break;
            uint64_t now = mono_ns();
            if (ui.playing)
                t += (double)(now - last) * 1e-9 * ui.speed;
            last = now;
            t = fmin(fmax(t, 0), rp.t_end);
            if (t >= rp.t_end)
                ui.playing = 0;
            m = seek(&rp, m, t);
            ui.now = t;
            tui_draw(m, &ui);
            refresh();
            struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
            poll(&p, 1, 100);
        }
        endwin();
        delscreen(scr);
    }
    vm_free(m);
    replay_free(&rp);
    return code;
}
