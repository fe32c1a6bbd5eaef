/* tui/keys.c: one key at a time, turned into a change of the view or a command for the supervisor. */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "faults/fault.h"
#include "plugin.h"
#include "tui.h"
#include "util.h"

static const double windows_s[] = { 5, 10, 30, 60, 120, 300, 600 };
static const char *const targets[] = { "gemm-output", "gradients", "weights", "allreduce-buffer" };

static void zoom(struct tui_ui *ui, int dir)
{
    int n = (int)(sizeof windows_s / sizeof windows_s[0]), k = 0;
    while (k < n - 1 && windows_s[k] < ui->window_s)
        k++;
    k += dir;
    k = k < 0 ? 0 : k >= n ? n - 1 : k;
    ui->window_s = windows_s[k];
}

/* The fault dialog: kind, then rank, then (bit flips) the target; Enter on the last step sends it. */
static int dialog_key(struct tui_ui *ui, const struct vm *m, int key, struct view_cmd *cmd)
{
    int nk = plugin_count(&plugin_faults);
    if (key == 27) {   /* Esc */
        ui->dialog = 0;
        snprintf(ui->status, sizeof ui->status, "fault cancelled");
        return TA_REDRAW;
    }
    if (ui->dialog == 1) {
        if (key >= '1' && key < '1' + nk)
            ui->d_kind = key - '1';
        else if (key == KEY_UP)
            ui->d_kind = (ui->d_kind + nk - 1) % nk;
        else if (key == KEY_DOWN)
            ui->d_kind = (ui->d_kind + 1) % nk;
        if (key == '\n' || key == '\r' || key == KEY_ENTER || (key >= '1' && key < '1' + nk))
            ui->dialog = 2;
        return TA_REDRAW;
    }
    if (ui->dialog == 2) {
        if (key == KEY_LEFT || key == KEY_UP)
            ui->d_rank = (ui->d_rank + m->nranks - 1) % (m->nranks ? m->nranks : 1);
        else if (key == KEY_RIGHT || key == KEY_DOWN)
            ui->d_rank = (ui->d_rank + 1) % (m->nranks ? m->nranks : 1);
        else if (key >= '0' && key <= '9') {
            int r = ui->d_typed ? ui->d_rank * 10 + (key - '0') : key - '0';   /* the first replaces the preselection */
            ui->d_rank = r < m->nranks ? r : key - '0' < m->nranks ? key - '0' : ui->d_rank;
            ui->d_typed = 1;
        } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
            if (strcmp(fault_table[ui->d_kind]->name, "bitflip") == 0) {
                ui->dialog = 3;
                return TA_REDRAW;
            }
            goto send;
        }
        return TA_REDRAW;
    }
    if (key >= '1' && key <= '4')
        ui->d_target = key - '1';
    else if (key == KEY_UP)
        ui->d_target = (ui->d_target + 3) % 4;
    else if (key == KEY_DOWN)
        ui->d_target = (ui->d_target + 1) % 4;
    if (key == '\n' || key == '\r' || key == KEY_ENTER || (key >= '1' && key <= '4'))
        goto send;
    return TA_REDRAW;
send:
    memset(cmd, 0, sizeof *cmd);
    cmd->type = VIEW_FAULT;
    cmd->kind = ui->d_kind;
    cmd->rank = ui->d_rank;
    cmd->run = ui->d_run;   /* the supervisor refuses it in any other run */
    if (ui->dialog == 3)
        snprintf(cmd->target, sizeof cmd->target, "%s", targets[ui->d_target]);
    snprintf(ui->status, sizeof ui->status, "fault %s on rank %d sent into run %d%s%s%s", fault_table[ui->d_kind]->name,
             ui->d_rank, ui->d_run + 1, cmd->target[0] ? ": " : "", cmd->target,
             m->state == VS_PAUSED ? " (paused: it fires once the run goes on)" : "");
    ui->dialog = 0;
    return TA_COMMAND;
}

int tui_run_open(const struct vm *m, int run)
{
    return run >= 0 && m->run == run && !m->run_over && m->state != VS_STOPPING && m->state != VS_FINISHED;
}

int tui_sync(struct tui_ui *ui, const struct vm *m)
{
    if (!ui->dialog || tui_run_open(m, ui->d_run))
        return 0;
    ui->dialog = 0;
    snprintf(ui->status, sizeof ui->status, "fault cancelled: run %d (%s) ended before it was sent", ui->d_run + 1,
             ui->d_label);
    return 1;
}

int tui_too_small(void) { return COLS < TUI_MIN_COLS || LINES < TUI_MIN_ROWS; }

/* The screen shows only that it is too small: what is open is closed, and no key acts unseen (a replay's q still
 * leaves: that is seen). */
static int small_key(struct tui_ui *ui, int key)
{
    int open = ui->dialog || ui->confirm_quit || ui->help;
    if (ui->dialog)
        snprintf(ui->status, sizeof ui->status, "fault cancelled: the terminal was too small");
    else if (ui->confirm_quit)
        snprintf(ui->status, sizeof ui->status, "going on: the terminal was too small to ask");
    ui->dialog = ui->confirm_quit = ui->help = 0;
    if (ui->replay && (key == 'q' || key == 'Q'))
        return TA_QUIT;
    return open || key == KEY_RESIZE ? TA_REDRAW : TA_NONE;
}

int tui_key(struct tui_ui *ui, const struct vm *m, int key, struct view_cmd *cmd)
{
    if (key == ERR)
        return TA_NONE;
    if (key == 0x1c)   /* Ctrl-\ (no signal while the view holds the terminal: tui_term_modes) */
        return ui->replay ? TA_QUIT : TA_INTERRUPT;
    if (tui_sync(ui, m) && key != KEY_RESIZE)
        return TA_REDRAW;   /* the key was meant for the dialog of a run that is over: it does nothing else */
    if (tui_too_small())
        return small_key(ui, key);
    if (key == KEY_RESIZE)   /* a new size: redrawn, nothing open closed nor answered, the message kept */
        return TA_REDRAW;
    if (ui->help) {
        ui->help = 0;
        return TA_REDRAW;
    }
    if (ui->confirm_quit) {
        ui->confirm_quit = 0;
        if (key == 'y' || key == 'Y') {
            memset(cmd, 0, sizeof *cmd);
            cmd->type = VIEW_QUIT;
            snprintf(ui->status, sizeof ui->status, "stopping: the workers end, the summary is written");
            return TA_COMMAND;
        }
        snprintf(ui->status, sizeof ui->status, "going on");
        return TA_REDRAW;
    }
    if (ui->dialog)
        return dialog_key(ui, m, key, cmd);
    ui->status[0] = 0;
    switch (key) {
    case 'q':
    case 'Q':
        if (ui->replay || m->state == VS_FINISHED)
            return TA_QUIT;
        ui->confirm_quit = 1;
        return TA_REDRAW;
    case '?':
    case 'h':
        ui->help = 1;
        return TA_REDRAW;
    case KEY_LEFT:
        ui->sel = m->nranks ? (ui->sel + m->nranks - 1) % m->nranks : 0;
        return TA_REDRAW;
    case KEY_RIGHT:
        ui->sel = m->nranks ? (ui->sel + 1) % m->nranks : 0;
        return TA_REDRAW;
    case '+':
    case '=':
        zoom(ui, -1);
        return TA_REDRAW;
    case '-':
    case '_':
        zoom(ui, 1);
        return TA_REDRAW;
    case 'l':
    case 'L':
        ui->logscale = !ui->logscale;
        return TA_REDRAW;
    default:
        break;
    }
    if (ui->replay) {
        if (key == 'p' || key == 'f' || key == 'm' || key == 'P' || key == 'F' || key == 'M')
            snprintf(ui->status, sizeof ui->status, "a replay shows a finished run: nothing to pause, inject or skip");
        return TA_UNHANDLED;
    }
    memset(cmd, 0, sizeof *cmd);
    switch (key) {
    case 'p':
    case 'P': {   /* each p toggles what the ones before it leave, answered or not (p p p: pausing, resuming, pausing) */
        if (ui->pause_sent < m->pause_answers || m->t_now - ui->pause_t > 5)
            ui->pause_sent = m->pause_answers;   /* answered, or unanswered too long: the model's state is the base */
        int will_pause = !m->paused ^ (int)((ui->pause_sent - m->pause_answers) & 1);
        ui->pause_sent++;
        ui->pause_t = m->t_now;
        cmd->type = VIEW_PAUSE;
        snprintf(ui->status, sizeof ui->status, will_pause ? "pausing at the next iteration" : "resuming");
        return TA_COMMAND;
    }
    case 'm':
    case 'M':
        if (m->run < 0 || m->run_over) {   /* pressed between runs it skipped the next one before it began */
            snprintf(ui->status, sizeof ui->status, "a skip ends a running run (now: %s)",
                     m->run_over ? "between runs" : vm_state_label(m));
            return TA_REDRAW;
        }
        cmd->type = VIEW_SKIP;
        cmd->run = m->run;   /* the supervisor refuses it in any other run (one that began before it came) */
        snprintf(ui->status, sizeof ui->status, "skipping to the next mitigation");
        return TA_COMMAND;
    case 'f':
    case 'F':
        /* since 2026-11-30 also while paused (the supervisor takes it: it fires once the ranks go on) */
        if ((m->state != VS_RUNNING && m->state != VS_PAUSED) || m->run < 0 || m->run_over) {
            snprintf(ui->status, sizeof ui->status, "faults go into a running run (now: %s)",
                     m->run_over && m->state == VS_RUNNING ? "between runs" : vm_state_label(m));
            return TA_REDRAW;
        }
        ui->dialog = 1;
        ui->d_run = m->run;
        str_copy(ui->d_label, sizeof ui->d_label, m->run_label);
        ui->d_rank = ui->sel < m->nranks ? ui->sel : 0;
        ui->d_typed = 0;
        return TA_REDRAW;
    default:
        return TA_UNHANDLED;
    }
}

int tui_replay_key(struct tui_ui *ui, int key, double *t)
{
    switch (key) {
    case ' ':   /* at the record's end: plays it again from its start */
        if (!ui->playing && *t >= ui->t_end)
            *t = 0;
        ui->playing = !ui->playing;
        return 1;
    case '>': case '.': ui->speed = fmin(ui->speed * 2, 1000); return 1;
    case '<': case ',': ui->speed = fmax(ui->speed / 2, 1.0 / 64); return 1;
    case ']': *t += 10; return 1;
    case '[': *t -= 10; return 1;
    case '}': *t += 60; return 1;
    case '{': *t -= 60; return 1;
    case 'g': case KEY_HOME: *t = 0; return 1;
    case 'G': case KEY_END: *t = ui->t_end; return 1;
    default: return 0;
    }
}

const char *const *tui_help(const struct tui_ui *ui, int *n)
{
    static const char *const replay[] = {
        "gauntlet view (a replay)",
        "q        quit",
        "space    play / pause (at the end: from the start)",
        "< >      slower / faster",
        "[ ] { }  back / on 10 s, 60 s",
        "g G      the start / the end",
        "arrows   select a GPU for the detail line",
        "+ / -    shorter / longer chart window",
        "l        log scale",
        "any key closes this help",
    };
    static const char *const live[] = {
        "gauntlet live view",
        "q        quit (asks while running; the summary is written)",
        "p        pause / resume the workload",
        "f        inject a fault: kind, rank, target",
        "m        skip to the next mitigation",
        "arrows   select a GPU for the detail line",
        "+ / -    shorter / longer chart window",
        "l        log scale",
        "any key closes this help",
    };
    *n = ui->replay ? (int)ARRAY_LEN(replay) : (int)ARRAY_LEN(live);
    return ui->replay ? replay : live;
}

void tui_ui_init(struct tui_ui *ui)
{
    memset(ui, 0, sizeof *ui);
    ui->window_s = 30;
    ui->speed = 1;
    ui->playing = 1;
    const char *cs = nl_langinfo(CODESET);
    ui->unicode = cs && strcmp(cs, "UTF-8") == 0 && !getenv("GAUNTLET_ASCII");
    const char *nc = getenv("NO_COLOR");
    ui->color = !(nc && nc[0]);
}
