/* tui/live.c: the live view beside a running supervisor. It owns a thread of its own: the supervisor only
 * pushes into lock-free rings (event lines, power rows) and pops commands, so neither a slow terminal nor a
 * redraw can stall it. The view thread drains the rings into its model, reads keys, and redraws at most ten
 * times a second; it writes a frame only when the terminal can take it, and the run's end waits for it a bounded
 * time (a terminal that does not drain, a stalled ssh, never holds the harness). The terminal is given back on every
 * way out: the run's end, a quit, SIGINT/SIGTERM/SIGHUP (through the supervisor), exit() from any thread, and a
 * crash of the harness or a SIGQUIT sent to it (a signal handler). */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "ring.h"
#include "tui.h"
#include "util.h"

#define EV_CAP 16384     /* event lines waiting for the view */
#define PW_CAP 65536     /* power rows waiting (8 GPUs at 1 kHz: 8 s) */
#define CMD_RING 64
#define FRAME_NS 100000000ull   /* redraw at most every 100 ms */
#define JOIN_WAIT_S 2           /* how long the run's end waits for the view's thread (a frame stuck in a write) */

struct prow {
    double t, w, clk, temp;
    uint64_t thr;
    int rank;
    int kind;   /* PROW_RANK: a GPU's reading; PROW_NODE: a node's sum (rank: the node, thr: its GPUs);
                 * PROW_CLUSTER: the cluster's sum (thr: whole) */
    uint64_t sample_ns;   /* PROW_RANK: the time the reading stands for, where stamped (0: none) */
};
enum { PROW_RANK = 0, PROW_NODE, PROW_CLUSTER };

static struct live {
    int active;
    struct ring *ev, *pw, *cmd;
    pthread_t th;
    _Atomic int stop;
    SCREEN *scr;
    int saved_stderr, logfd;
    int tty_fd, out_fd;        /* the terminal's modes and size / where the screen goes: stdin and stdout, or
                                * /dev/tty under a launcher (mpirun hands rank 0 a pipe for stdin and forwards
                                * the keys it reads from the terminal into it) */
    FILE *tty_out;
    char logpath[1100];
    off_t log_start;           /* messages.log's size when the view took stderr: what is new is shown after */
    struct termios tio;
    int have_tio;
    _Atomic uint64_t dropped;
    uint64_t frames;
    double cpu_s, wall_s;      /* the view thread's CPU time and lifetime: its cost, reported at the end */
    struct view_link link;
} L = { .saved_stderr = -1, .logfd = -1, .tty_fd = STDIN_FILENO, .out_fd = STDOUT_FILENO };

/* Closes the terminal opened for a launcher's rank 0 (no-op otherwise). */
static void live_close_tty(void)
{
    if (L.tty_out)
        fclose(L.tty_out);
    if (L.tty_fd != STDIN_FILENO && L.tty_fd >= 0)
        close(L.tty_fd);
    L.tty_out = NULL;
    L.tty_fd = STDIN_FILENO;
    L.out_fd = STDOUT_FILENO;
}

/* Restores the terminal with async-signal-safe calls only: the crash and exit paths. */
static void live_restore_raw(void)
{
    static const char seq[] = "\033[0m\033[?25h\033[?1049l\r\n";
    if (L.have_tio)
        tcsetattr(L.tty_fd, TCSANOW, &L.tio);
    int fl = fcntl(L.out_fd, F_GETFL);   /* a terminal that does not drain: the sequence is lost, nothing waits */
    if (fl >= 0)
        fcntl(L.out_fd, F_SETFL, fl | O_NONBLOCK);
    ssize_t rc = write(L.out_fd, seq, sizeof seq - 1);
    (void)rc;
    if (fl >= 0)
        fcntl(L.out_fd, F_SETFL, fl);
}

/* The signals that end the harness without its atexit: a crash, and a SIGQUIT sent to it (the terminal's Ctrl-\ is
 * a key while the view holds it: tui_term_modes). Until 2026-11-30 SIGQUIT left the terminal in the view's modes. */
static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT };
static struct sigaction crash_old[ARRAY_LEN(crash_sigs)];

/* The terminal back, then what was there before (another module's crash path, or the default) ends the process. */
static void live_crash(int sig)
{
    if (L.active)
        live_restore_raw();
    L.active = 0;
    for (size_t i = 0; i < ARRAY_LEN(crash_sigs); i++)
        if (crash_sigs[i] == sig)
            sigaction(sig, &crash_old[i], NULL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
    signal(sig, SIG_DFL);   /* the handler before returned */
    raise(sig);
}

void tui_term_modes(int fd)
{
    struct termios t;
    if (tcgetattr(fd, &t) != 0)
        return;
    t.c_iflag &= ~(tcflag_t)(IXON | IXOFF);
    t.c_cc[VQUIT] = _POSIX_VDISABLE;
    if (tcsetattr(fd, TCSANOW, &t) == 0)
        def_prog_mode();   /* ncurses' own copy: a suspend and resume (Ctrl-Z, fg) puts these back, not cbreak's */
}

/* Puts stderr back on the terminal and shows what was written to messages.log since the view took it
 * (the reason of an exit while the view was up included). Plain system calls: also safe at exit(). */
static void live_give_back_stderr(void)
{
    if (L.saved_stderr < 0)
        return;
    if (dup2(L.saved_stderr, STDERR_FILENO) < 0)
        return;
    close(L.saved_stderr);
    L.saved_stderr = -1;
    char buf[4096];
    ssize_t k;
    int fd = open(L.logpath, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (lseek(fd, L.log_start, SEEK_SET) == L.log_start)
        while ((k = read(fd, buf, sizeof buf)) > 0)
            if (write_all(STDERR_FILENO, buf, (size_t)k) != 0)
                break;
    close(fd);
}

static void live_atexit(void)
{
    if (L.active) {   /* an exit while the view is up (gl_die): the terminal back, then the reason on it */
        L.active = 0;
        live_restore_raw();
        live_give_back_stderr();
    }
}

static struct ring *live_ring(uint32_t cap, uint32_t size)
{
    struct ring *r = ring_new(cap, size);
    if (!r)
        gl_die(EXIT_ENV, "view: out of memory for a ring of %u records", cap);
    return r;
}

/* ---- the supervisor's side: never blocks */
static void link_event(void *ctx, const char *line, size_t len)
{
    (void)ctx;
    char *copy = malloc(len + 1);
    if (!copy) {
        atomic_fetch_add(&L.dropped, 1);
        return;
    }
    memcpy(copy, line, len);
    copy[len] = 0;
    if (ring_push(L.ev, &copy) != 0) {
        free(copy);
        atomic_fetch_add(&L.dropped, 1);
    }
}

static void link_power(void *ctx, double t_s, int rank, const struct power_reading *p, int phase)
{
    (void)ctx, (void)phase;
    struct prow r = { t_s, p->watts, p->clock_mhz, p->temp_c, p->throttle, rank, PROW_RANK, p->sample_ns };
    if (ring_push(L.pw, &r) != 0)
        atomic_fetch_add(&L.dropped, 1);
}

static void link_node_power(void *ctx, double t_s, int node, double watts, int gpus)
{
    (void)ctx;
    struct prow r = { t_s, watts, NAN, NAN, (uint64_t)(gpus > 0 ? gpus : 0), node, PROW_NODE, 0 };
    if (ring_push(L.pw, &r) != 0)
        atomic_fetch_add(&L.dropped, 1);
}

static void link_cluster_power(void *ctx, double t_s, double watts, int whole)
{
    (void)ctx;
    struct prow r = { t_s, watts, NAN, NAN, (uint64_t)(whole != 0), -1, PROW_CLUSTER, 0 };
    if (ring_push(L.pw, &r) != 0)
        atomic_fetch_add(&L.dropped, 1);
}

static int link_command(void *ctx, struct view_cmd *out)
{
    (void)ctx;
    return ring_pop(L.cmd, out);
}

static void link_stop(void *ctx);

/* ---- the view's thread */
static void drain(struct vm *m)
{
    char *line;
    struct prow r;
    while (ring_pop(L.ev, &line)) {
        vm_event_line(m, line, strlen(line));
        free(line);
    }
    while (ring_pop(L.pw, &r)) {
        if (r.kind == PROW_NODE)
            vm_node_power(m, r.t, r.rank, r.w, (int)r.thr);
        else if (r.kind == PROW_CLUSTER)
            vm_cluster_power(m, r.t, r.w, (int)r.thr);
        else {
            vm_power(m, r.t, r.rank, r.w, r.clk, r.temp, r.thr);
            vm_power_stamp(m, r.rank, (int64_t)r.sample_ns);
        }
    }
    m->dropped = atomic_load(&L.dropped);
}

/* The harness's and the workers' messages (stderr goes to messages.log while the view is up). */
static void read_messages(struct vm *m, char *buf, size_t cap, size_t *have)
{
    for (;;) {
        ssize_t k = read(L.logfd, buf + *have, cap - 1 - *have);
        if (k <= 0)
            break;
        *have += (size_t)k;
        char *nl;
        while ((nl = memchr(buf, '\n', *have))) {
            *nl = 0;
            vm_log(m, m->t_now, LOG_WARN, "%s", buf);
            size_t used = (size_t)(nl - buf) + 1;
            memmove(buf, nl + 1, *have - used);
            *have -= used;
        }
        if (*have == cap - 1) {   /* a line longer than the buffer: shown in pieces */
            buf[*have] = 0;
            vm_log(m, m->t_now, LOG_WARN, "%s", buf);
            *have = 0;
        }
    }
}

/* Whether the terminal takes a frame now (a frame is not written into a terminal that does not drain: the thread
 * would block in the write, and the run's end with it; until 2026-11-30 it did, and Ctrl-S held the harness). */
static int live_writable(void)
{
    struct pollfd p = { .fd = L.out_fd, .events = POLLOUT };
    return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT);
}

/* One key: to the view, and a command it makes to the supervisor. A fault is sent only into the run it was chosen
 * in: the newest lines are read first, and a run that ended meanwhile takes none. */
static void live_key(struct vm *m, struct tui_ui *ui, int key, struct view_cmd *cmd)
{
    int a = tui_key(ui, m, key, cmd);
    if (a == TA_INTERRUPT) {   /* Ctrl-\: as Ctrl-C, the run stops in order (the supervisor takes SIGINT) */
        kill(getpid(), SIGINT);
        snprintf(ui->status, sizeof ui->status, "Ctrl-\\: stopping as for Ctrl-C, the summary is written");
        return;
    }
    if (a != TA_COMMAND)
        return;
    if (cmd->type == VIEW_FAULT) {
        drain(m);
        if (!tui_run_open(m, ui->d_run)) {
            snprintf(ui->status, sizeof ui->status, "fault not sent: run %d (%s) ended before it was", ui->d_run + 1,
                     ui->d_label);
            return;
        }
    }
    if (ring_push(L.cmd, cmd) != 0)
        snprintf(ui->status, sizeof ui->status, "the supervisor is busy: command not taken");
}

/* Waits for a key up to 20 ms. A stdin at its end (mpirun < /dev/null, srun --input=none, a closed pipe), or one that
 * cannot be read, brings no key: from then on the thread only sleeps (until 2026-11-30 poll returned at once, every
 * time, and the thread spun). */
static void live_wait_keys(struct tui_ui *ui)
{
    struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
    if (ui->no_keys || poll(&p, 1, 20) <= 0)
        goto sleep;
    int avail = 0;
    if ((p.revents & (POLLERR | POLLNVAL)) || ((p.revents & POLLHUP) && !(p.revents & POLLIN)) ||
        ((p.revents & POLLIN) && (ioctl(STDIN_FILENO, FIONREAD, &avail) != 0 || avail <= 0)))
        ui->no_keys = 1;
    if (!ui->no_keys)
        return;
sleep:
    if (ui->no_keys)
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
}

static void *live_thread(void *arg)
{
    (void)arg;
    struct vm *m = vm_new();
    struct tui_ui ui;
    tui_ui_init(&ui);
    tui_colors(&ui);
    char msg[4096];
    size_t have = 0;
    uint64_t last_draw = 0, last_measure = 0, mono_start = 0, born = mono_ns(), drawn = 0;
    int rows = LINES, cols = COLS;
    while (!atomic_load(&L.stop)) {
        drain(m);
        read_messages(m, msg, sizeof msg, &have);
        uint64_t now = mono_ns();
        if (!mono_start && m->events)
            mono_start = now - (uint64_t)(m->t_now * 1e9);   /* the run's t = 0 on this clock */
        struct winsize ws;
        if (ioctl(L.out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && (ws.ws_row != rows || ws.ws_col != cols)) {
            rows = ws.ws_row;
            cols = ws.ws_col;
            resize_term(rows, cols);
            clearok(curscr, TRUE);
            last_draw = 0;
            struct view_cmd none;
            (void)tui_key(&ui, m, KEY_RESIZE, &none);   /* too small now: what was open is closed */
        }
        if (tui_sync(&ui, m))   /* the fault dialog's run ended: it closes with no key pressed */
            last_draw = 0;
        int key;
        struct view_cmd cmd;
        while (!ui.no_keys && (key = getch()) != ERR) {
            live_key(m, &ui, key, &cmd);
            last_draw = 0;
        }
        ui.now = mono_start ? fmax(m->t_now, (double)(now - mono_start) * 1e-9) : m->t_now;
        if (now - last_measure >= FRAME_NS * 5) {
            m->t_now = fmax(m->t_now, ui.now);
            vm_measure(m, 10);
            last_measure = now;
        }
        /* redraw when something arrived or a key was pressed (last_draw = 0), else once a second (the clock) */
        uint64_t seen = m->events + m->samples + m->nlog;
        if (now - last_draw >= FRAME_NS && (seen != drawn || now - last_draw >= 10 * FRAME_NS) && live_writable()) {
            drawn = seen;
            tui_draw(m, &ui);
            refresh();
            last_draw = now;
            L.frames++;
        }
        live_wait_keys(&ui);
    }
    drain(m);   /* free what is left */
    vm_free(m);
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        L.cpu_s = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    L.wall_s = (double)(mono_ns() - born) * 1e-9;
    return NULL;
}

const struct view_link *tui_live_start(const char *out_dir, char *why, size_t n)
{
    setlocale(LC_CTYPE, "");   /* UTF-8 glyphs where the terminal's locale has them; numbers stay C */
    const char *term = getenv("TERM");
    if (!term || !*term || strcmp(term, "dumb") == 0) {
        snprintf(why, n, "TERM is %s: no live view", term && *term ? term : "unset");
        return NULL;
    }
    if (mkdir_p(out_dir) != 0) {
        snprintf(why, n, "cannot create %s: %s", out_dir, strerror(errno));
        return NULL;
    }
    snprintf(L.logpath, sizeof L.logpath, "%s/messages.log", out_dir);
    int wfd = open(L.logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    L.logfd = open(L.logpath, O_RDONLY | O_CLOEXEC | O_CREAT, 0644);
    if (wfd < 0 || L.logfd < 0) {
        snprintf(why, n, "cannot open %s: %s", L.logpath, strerror(errno));
        if (wfd >= 0)
            close(wfd);
        return NULL;
    }
    L.log_start = lseek(L.logfd, 0, SEEK_END);
    if (L.log_start < 0)
        L.log_start = 0;
    FILE *out = stdout;
    L.tty_fd = STDIN_FILENO;
    L.out_fd = STDOUT_FILENO;
    if (!isatty(STDIN_FILENO)) {   /* under mpirun: draw on the terminal itself, read the keys mpirun forwards */
        /* the launcher put this process in a process group of its own, in the terminal's background: setting
         * its modes would stop us (SIGTTOU) unless that signal is blocked (POSIX: then the change is made) */
        sigset_t tt;
        sigemptyset(&tt);
        sigaddset(&tt, SIGTTOU);
        pthread_sigmask(SIG_BLOCK, &tt, NULL);
        int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
        int dfd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;   /* dup() would drop close-on-exec: every worker had it */
        if (fd < 0 || dfd < 0 || !(L.tty_out = fdopen(dfd, "w"))) {
            snprintf(why, n, "stdin is not a terminal and /dev/tty cannot be opened: no live view");
            if (dfd >= 0)
                close(dfd);
            if (fd >= 0)
                close(fd);
            close(wfd);
            return NULL;
        }
        L.tty_fd = L.out_fd = fd;
        out = L.tty_out;
    }
    L.have_tio = tcgetattr(L.tty_fd, &L.tio) == 0;
    L.scr = newterm(NULL, out, stdin);
    if (!L.scr) {
        snprintf(why, n, "ncurses cannot drive TERM=%s", term);
        close(wfd);
        live_close_tty();
        return NULL;
    }
    /* from here the screen is ours: messages go to the log (and into the view) */
    L.saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);   /* as the terminal's: a dup() is open across an exec */
    if (L.saved_stderr < 0 || dup2(wfd, STDERR_FILENO) < 0) {
        endwin();
        delscreen(L.scr);
        L.scr = NULL;
        live_close_tty();
        snprintf(why, n, "cannot redirect stderr: %s", strerror(errno));
        close(wfd);
        return NULL;
    }
    close(wfd);
    cbreak();   /* Ctrl-C still stops the run, through the supervisor's signalfd */
    tui_term_modes(L.tty_fd);   /* no flow control, Ctrl-\ a key (until 2026-11-30: Ctrl-S held the harness at its
                                 * end, Ctrl-\ killed it without a summary) */
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    L.active = 1;
    static int once;
    if (!once++) {
        atexit(live_atexit);
        struct sigaction sa = { .sa_handler = live_crash };
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < ARRAY_LEN(crash_sigs); i++)
            sigaction(crash_sigs[i], &sa, &crash_old[i]);
    }
    /* no thread takes SIGWINCH: the view polls the size every frame (ncurses' handler would interrupt calls) */
    sigset_t w;
    sigemptyset(&w);
    sigaddset(&w, SIGWINCH);
    pthread_sigmask(SIG_BLOCK, &w, NULL);
    L.ev = live_ring(EV_CAP, sizeof(char *));
    L.pw = live_ring(PW_CAP, sizeof(struct prow));
    L.cmd = live_ring(CMD_RING, sizeof(struct view_cmd));
    atomic_store(&L.stop, 0);
    if (pthread_create(&L.th, NULL, live_thread, NULL) != 0) {
        snprintf(why, n, "cannot start the view's thread");
        link_stop(NULL);
        return NULL;
    }
    L.link = (struct view_link){ .ctx = &L, .event = link_event, .power = link_power, .command = link_command,
                                 .stop = link_stop, .node_power = link_node_power, .cluster_power = link_cluster_power };
    return &L.link;
}

/* Waits for the view's thread to end, JOIN_WAIT_S at most: 0, or -1 when it has not. */
static int live_join(void)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += JOIN_WAIT_S;
    int rc = pthread_timedjoin_np(L.th, NULL, &dl);
    while (rc == EINTR)
        rc = pthread_timedjoin_np(L.th, NULL, &dl);
    return rc == 0 ? 0 : -1;
}

static void link_stop(void *ctx)
{
    (void)ctx;
    if (!L.active)
        return;
    atomic_store(&L.stop, 1);
    if (L.th && live_join() != 0) {
        /* the thread is stuck writing a frame into a terminal that does not drain: the terminal's modes back and the
         * harness goes on (its end must not wait on the terminal); the thread keeps what it uses, the exit ends it */
        L.active = 0;
        L.th = 0;
        live_restore_raw();
        if (L.saved_stderr >= 0 && dup2(L.saved_stderr, STDERR_FILENO) >= 0)   /* its messages: in messages.log */
            close(L.saved_stderr);
        L.saved_stderr = -1;
        return;
    }
    L.th = 0;
    endwin();
    delscreen(L.scr);
    L.scr = NULL;
    L.active = 0;
    live_close_tty();
    live_give_back_stderr();   /* stderr is the terminal's again; what was said meanwhile is shown now */
    if (L.wall_s > 0)
        gl_log("live view: %llu frames in %.1f s, %.2f s of CPU (%.2f%% of one core)", (unsigned long long)L.frames,
               L.wall_s, L.cpu_s, 100 * L.cpu_s / L.wall_s);
    if (L.logfd >= 0)
        close(L.logfd);
    L.logfd = -1;
    free(L.ev);
    free(L.pw);
    free(L.cmd);
    L.ev = L.pw = L.cmd = NULL;
}

void tui_live_end(void) { link_stop(NULL); }
