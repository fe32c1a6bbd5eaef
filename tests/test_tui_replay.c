/* tests/test_tui_replay.c: the replay's stream (tui/replay_rec.c) against its invariants, on records written here
 * with rows out of order, nodes that lag, and files cut short or grown after opening: the window (a heap as wide as
 * the files' disorder) feeds what sorting every row first feeds; every path to a time (forward, back, from a kept
 * model or from the start, kept models within a budget) gives the same model; what it holds does not grow with the
 * record. */
#define NCURSES_WIDECHAR 1
#include <criterion/criterion.h>
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "e2e.h"
#include "replay_int.h"
#include "tui.h"

static uint64_t rng = 88172645463325252ull;
static double frand(void)   /* xorshift64: the same record on every run */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

struct row { double key, t; char text[160]; };
static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Writes rows (their text) in the order of their keys (when they reached the file). */
static void write_rows(const char *path, const char *header, struct row *r, size_t n)
{
    qsort(r, n, sizeof *r, cmp_row);
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    fputs(header, f);
    for (size_t i = 0; i < n; i++)
        fputs(r[i].text, f);
    cr_assert_eq(fclose(f), 0);
}

/* A record of secs seconds: ranks GPUs per node on nodes nodes (several: forward: nodes, node 0's GPUs in power.csv
 * and every node's sum in power-nodes.csv), hz rows per GPU per second, each reaching power.csv up to late seconds
 * after its time (one row in 500 up to 20 times that: a stalled drain), node 1's sums 0.8 s late and missing for a
 * second; iterations of 0.2 s with a compute and a communication phase, a fault and its detection. */
static void write_record(const char *dir, double secs, int ranks, int nodes, double hz, double late)
{
    char path[512];
    cr_assert(mkdir(dir, 0755) == 0 || access(dir, F_OK) == 0);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "{\"t_s\":0.0,\"event\":\"start\",\"scenario\":\"rt\",\"backend\":\"sim\",\"ranks\":%d,\"nodes\":%d,"
               "\"forward\":\"%s\",\"runs\":1,\"iterations\":%d,\"tdp_w\":700.0,\"sample_hz\":%g,\"seed\":1}\n",
            ranks, nodes, nodes > 1 ? "nodes" : "ranks", (int)(secs / 0.2), hz);
    fprintf(f, "{\"t_s\":0.01,\"event\":\"run_begin\",\"run\":0,\"mitigation\":\"none\",\"label\":\"none\",\"iterations\":%d}\n",
            (int)(secs / 0.2));
    for (int it = 0; (it + 1) * 0.2 < secs; it++)
        for (int r = 0; r < ranks * nodes; r++) {
            double t0 = 0.02 + it * 0.2 + r * 0.001;
            fprintf(f, "{\"t_s\":%.6f,\"event\":\"phase_begin\",\"rank\":%d,\"run\":0,\"iter\":%d,\"phase\":\"compute\"}\n", t0, r, it);
            fprintf(f, "{\"t_s\":%.6f,\"event\":\"phase_end\",\"rank\":%d,\"run\":0,\"iter\":%d,\"phase\":\"compute\",\"flops\":1e12}\n",
                    t0 + 0.12, r, it);
            fprintf(f, "{\"t_s\":%.6f,\"event\":\"iteration\",\"rank\":%d,\"run\":0,\"iter\":%d,\"dur_s\":0.2}\n", t0 + 0.19, r, it);
            if (it == 7 && r == 1)
                fprintf(f, "{\"t_s\":%.6f,\"event\":\"fault\",\"rank\":1,\"kind\":\"straggler\",\"iter\":7}\n", t0 + 0.1);
        }
    fprintf(f, "{\"t_s\":%.6f,\"event\":\"end\",\"exit\":0,\"reason\":null}\n", secs);
    cr_assert_eq(fclose(f), 0);

    size_t n = (size_t)(secs * hz) * (size_t)ranks, k = 0;
    struct row *r = calloc(n, sizeof *r);
    cr_assert(r);
    for (size_t i = 0; i < (size_t)(secs * hz); i++)
        for (int g = 0; g < ranks; g++, k++) {
            double t = 0.005 + (double)i / hz, w = fmod(t, 0.2) < 0.12 ? 650 + 30 * frand() : 120 + 10 * frand();
            double delay = late * frand() * (frand() < 0.002 ? 20 : 1);
            r[k].t = t;
            r[k].key = t + delay;
            snprintf(r[k].text, sizeof r[k].text, "%.6f,%d,%.1f,compute,,,%d,%d,0x%x,0,,%.6f\n", t, g, w,
                     1400 + g, 50 + g, g == 1 && t > 3 ? 4 : 0, t - 0.003);
        }
    snprintf(path, sizeof path, "%s/power.csv", dir);
    write_rows(path, "t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s\n", r, n);
    free(r);
    if (nodes < 2)
        return;
    n = (size_t)(secs * 100) * (size_t)nodes, k = 0;
    r = calloc(n, sizeof *r);
    cr_assert(r);
    for (size_t i = 0; i < (size_t)(secs * 100); i++)
        for (int nd = 0; nd < nodes; nd++) {
            double t = (double)i / 100;
            if (nd == 1 && t > 2 && t < 3)
                continue;   /* node 1 silent for a second: the cells go out without it */
            r[k].t = t;
            r[k].key = t + (nd == 1 ? 0.8 : 0) + 1e-4 * nd;
            snprintf(r[k].text, sizeof r[k].text, "%.6f,%d,%.1f,%d\n", t, nd, ranks * (fmod(t, 0.2) < 0.12 ? 650.0 : 120.0),
                     ranks);
            k++;
        }
    snprintf(path, sizeof path, "%s/power-nodes.csv", dir);
    write_rows(path, "t_s,node,watts,gpus\n", r, k);
    free(r);
}

/* Names a record folder of this process's (write_record makes it), removed when the process exits. */
static char *tmpdir(const char *name)
{
    static char buf[4][256];
    static int i;
    char *d = buf[i++ % 4];
    snprintf(d, sizeof buf[0], "/tmp/gauntlet-test-replay-%d-%s", (int)getpid(), name);
    e2e_own(d);
    return d;
}

static void rmrecord(const char *dir)
{
    const char *files[] = { "events.jsonl", "power.csv", "power-nodes.csv" };
    char path[512];
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Whether two models are the same, field by field (the first that is not: in why). */
static int same_model(const struct vm *a, const struct vm *b, char *why, size_t n)
{
#define SAME(x) do { if (memcmp(&a->x, &b->x, sizeof a->x) != 0) { snprintf(why, n, "%s", #x); return 0; } } while (0)
    SAME(nranks); SAME(nodes); SAME(t_now); SAME(state); SAME(run); SAME(run_over); SAME(exit_code);
    SAME(bin); SAME(tick_t); SAME(raw_t); SAME(raw_w); SAME(nraw); SAME(iter_s); SAME(niter); SAME(rate_bin);
    SAME(run_iters); SAME(flops); SAME(flops_s); SAME(bus_rate); SAME(nflops); SAME(nbus); SAME(nlog); SAME(nruns);
    SAME(faults); SAME(detections); SAME(false_positives); SAME(recoveries); SAME(events); SAME(samples);
    SAME(cluster_fed); SAME(m.swing_w); SAME(m.ramp_w_s); SAME(m.dominant_hz); SAME(m.iter_p50_s); SAME(m.tflops);
    SAME(m.sensor_ms);
    for (uint64_t i = 0; i < a->nlog && i < VM_LOG; i++)
        if (a->log[i].t != b->log[i].t || a->log[i].sev != b->log[i].sev || strcmp(a->log[i].text, b->log[i].text)) {
            snprintf(why, n, "log[%llu]: %s / %s", (unsigned long long)i, a->log[i].text, b->log[i].text);
            return 0;
        }
    for (int r = 0; r < a->nranks; r++) {
        SAME(rank[r].watts); SAME(rank[r].watts_t); SAME(rank[r].clock_mhz); SAME(rank[r].temp_c);
        SAME(rank[r].throttle); SAME(rank[r].iter); SAME(rank[r].phase); SAME(rank[r].nspan); SAME(rank[r].bin);
        for (unsigned s = 0; s < a->rank[r].nspan && s < VM_SPANS; s++)
            if (memcmp(&a->rank[r].span[s].t0, &b->rank[r].span[s].t0, 2 * sizeof(double)) ||
                a->rank[r].span[s].phase != b->rank[r].span[s].phase) {
                snprintf(why, n, "rank[%d].span[%u]", r, s);
                return 0;
            }
        if (!a->rank[r].stamps != !b->rank[r].stamps ||
            (a->rank[r].stamps && memcmp(a->rank[r].stamps, b->rank[r].stamps, sizeof *a->rank[r].stamps))) {
            snprintf(why, n, "rank[%d].stamps", r);
            return 0;
        }
    }
#undef SAME
    return 1;
}

/* The model at t from a replay of dir opened for it alone (disorder: the files' windows forced to it when >= 0). */
static struct vm *fresh_at(const char *dir, double t, double disorder, size_t *window)
{
    char why[1024];
    struct replay *rp = replay_open(dir, why, sizeof why);
    cr_assert(rp, "%s", why);
    if (disorder >= 0)
        rp->pw.disorder = rp->nd.disorder = disorder;
    struct vm *m = replay_seek(rp, vm_new(), t);
    if (window)
        replay_held(rp, window);
    replay_free(rp);
    return m;
}

/* The screen the view draws of m, as text. */
static void screen_of(const struct vm *m, char *text, size_t n)
{
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = newterm("xterm", out, in);
    cr_assert(scr, "no terminfo for xterm (ncurses-base)");
    resize_term(60, 200);
    struct tui_ui ui;
    tui_ui_init(&ui);
    ui.replay = 1;
    ui.playing = 0;
    ui.now = m->t_now;
    tui_draw(m, &ui);
    tui_screen_text(text, n);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
}

Test(replay, the_window_feeds_what_sorting_every_row_feeds, .timeout = 120)
{
    const char *dir = tmpdir("window");
    write_record(dir, 12, 3, 2, 200, 0.05);
    char why[256];
    struct replay *rp = replay_open(dir, why, sizeof why);
    cr_assert(rp, "%s", why);
    cr_assert_gt(rp->pw.disorder, 0.05, "the record is out of order: %g", rp->pw.disorder);
    cr_assert_gt(rp->nd.disorder, 0.7, "node 1's sums and the cells wait for it come late: %g", rp->nd.disorder);
    double t_end = replay_t_end(rp);
    replay_free(rp);
    for (int i = 0; i <= 24; i++) {
        double t = i == 24 ? t_end : t_end * frand();
        size_t win, all;
        struct vm *a = fresh_at(dir, t, -1, &win), *b = fresh_at(dir, t, INFINITY, &all);
        cr_assert(same_model(a, b, why, sizeof why), "at %.3f s the window's model differs from every row sorted's: %s",
                  t, why);
        cr_assert_gt(a->samples, 0);
        if (i == 24) {   /* the reference did hold every row; the window a fraction */
            cr_assert_gt(all, 12 * 3 * 200, "%zu", all);
            cr_assert_lt(win, all / 4, "window %zu of %zu rows", win, all);
            static char sa[200 * 61 * 4], sb[200 * 61 * 4];
            screen_of(a, sa, sizeof sa);
            screen_of(b, sb, sizeof sb);
            cr_assert_str_eq(sa, sb);
            cr_assert(strstr(sa, "cluster (6 GPUs on 2 nodes, nodes' sums)"), "%s", sa);
        }
        vm_free(a);
        vm_free(b);
    }
    rmrecord(dir);
}

Test(replay, every_path_to_a_time_gives_the_same_model, .timeout = 180)
{
    const char *dir = tmpdir("paths");
    write_record(dir, 10, 2, 2, 100, 0.03);
    char why[256];
    struct replay *rp = replay_open(dir, why, sizeof why);
    cr_assert(rp, "%s", why);
    double t_end = replay_t_end(rp);
    struct vm *probe = replay_seek(rp, vm_new(), 1);   /* what one kept model takes */
    size_t one = sizeof *probe + (size_t)probe->nranks * (sizeof *probe->rank + sizeof *probe->rank[0].stamps) + 4096;
    vm_free(probe);
    replay_keep(rp, 0.37, 9 * one);   /* a model every 0.37 s, nine of the 27 at most */
    struct vm *m = vm_new();
    double t = 0;
    int backs = 0, kept = 0;
    for (int step = 0; step < 160; step++) {
        double u = frand();
        t = u < 0.5 ? t + 0.05 * frand() : u < 0.7 ? t - 3 * frand() : u < 0.8 ? t_end * frand() : u < 0.85 ? 0
          : u < 0.9 ? t_end : t;
        t = fmin(fmax(t, 0), t_end);
        backs += t < rp->fed_t;
        m = replay_seek(rp, m, t);
        struct vm *ref = fresh_at(dir, t, -1, NULL);
        cr_assert(same_model(m, ref, why, sizeof why), "step %d at %.3f s: %s differs from a fresh replay's", step, t,
                  why);
        vm_free(ref);
    }
    for (size_t k = 0; k < rp->nkeep; k++)
        kept += rp->keep[k].m != NULL;
    cr_assert_gt(backs, 20, "the walk went back %d times", backs);
    cr_assert(kept >= 3 && kept <= 9, "kept %d models within the budget of nine", kept);
    cr_assert_leq(rp->kept_bytes, 9 * one);
    vm_free(m);
    replay_free(rp);
    rmrecord(dir);
}

Test(replay, holds_a_window_not_the_record, .timeout = 120)
{
    const char *a = tmpdir("short"), *b = tmpdir("long");
    write_record(a, 40, 4, 1, 200, 0.01);   /* both long enough for the 64 kept models of the default */
    write_record(b, 160, 4, 1, 200, 0.01);   /* 128,000 rows */
    size_t held[2], win[2];
    const char *dirs[] = { a, b };
    for (int i = 0; i < 2; i++) {
        char why[256];
        struct replay *rp = replay_open(dirs[i], why, sizeof why);
        cr_assert(rp, "%s", why);
        double t_end = replay_t_end(rp);
        struct vm *m = replay_seek(rp, vm_new(), t_end);
        m = replay_seek(rp, m, t_end / 2);
        m = replay_seek(rp, m, t_end);
        held[i] = replay_held(rp, &win[i]);
        cr_assert_eq(m->samples, (uint64_t)(dirs[i] == a ? 40 : 160) * 200 * 4, "every row fed once: %llu",
                     (unsigned long long)m->samples);
        vm_free(m);
        replay_free(rp);
    }
    /* a window of the rows within 0.01 s (x20 for the stalled ones) of each other: 4 GPUs x 200 Hz x 0.2 s */
    cr_assert_leq(win[1], 4 * 200 * 0.2 * 2, "window %zu rows", win[1]);
    cr_assert_leq(held[1], held[0] * 3 / 2, "4x the record held %zu bytes against %zu", held[1], held[0]);
    cr_assert_leq(held[1], (size_t)128 << 20);
    rmrecord(a);
    rmrecord(b);
}

/* A power-nodes.csv row 4,294,967,296 s in (a damaged record, found by tests/fuzz.py): the replay opens, its end that
 * row's time, and shows it. Until 2026-12-01 opening it gave out the 4e11 empty cells of the nodes' sum up to the row
 * one by one (gridsum.c): `gauntlet view` hung, and this test ran past its timeout. */
Test(replay, a_node_row_far_in_time_opens_at_once, .timeout = 60)
{
    const char *dir = tmpdir("far");
    write_record(dir, 4, 1, 2, 100, 0.01);
    char why[256], path[512];
    snprintf(path, sizeof path, "%s/power-nodes.csv", dir);
    FILE *f = fopen(path, "a");
    cr_assert(f);
    fprintf(f, "4294967296,0,500.0,1\n");
    cr_assert_eq(fclose(f), 0);
    struct replay *rp = replay_open(dir, why, sizeof why);
    cr_assert(rp, "%s", why);
    cr_assert_float_eq(replay_t_end(rp), 4294967296.0, 1e-3);
    struct vm *m = replay_seek(rp, vm_new(), replay_t_end(rp));
    cr_assert_gt(m->samples, 0);
    vm_free(m);
    replay_free(rp);
    rmrecord(dir);
}

Test(replay, a_record_cut_or_grown_after_opening_replays_what_was_opened, .timeout = 60)
{
    const char *dir = tmpdir("cut");
    write_record(dir, 6, 2, 1, 100, 0.02);
    char why[256], path[512];
    struct replay *rp = replay_open(dir, why, sizeof why);
    cr_assert(rp, "%s", why);
    double t_end = replay_t_end(rp);
    struct vm *full = fresh_at(dir, t_end, -1, NULL);
    /* grown: a run still writing appends rows and events after the view opened it; they are not shown */
    snprintf(path, sizeof path, "%s/power.csv", dir);
    FILE *f = fopen(path, "a");
    cr_assert(f);
    for (int i = 0; i < 100; i++)
        fprintf(f, "%.6f,0,500.0,compute,,,,,,0,,\n", t_end - 1 + i * 0.001);
    fprintf(f, "%.6f,1,50", t_end);   /* and a line not finished yet */
    cr_assert_eq(fclose(f), 0);
    struct vm *m = replay_seek(rp, vm_new(), t_end);
    cr_assert(same_model(m, full, why, sizeof why), "%s", why);
    /* cut: the files shortened under it; the stream ends where they do, and going back still works */
    cr_assert_eq(truncate(path, 2000), 0);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    cr_assert_eq(truncate(path, 3000), 0);
    replay_keep(rp, 0, 0);   /* the models kept hold the record as it was: from the start again */
    m = replay_seek(rp, m, 0.2);
    m = replay_seek(rp, m, t_end);
    cr_assert_lt(m->samples, full->samples);
    vm_free(m);
    vm_free(full);
    replay_free(rp);
    rmrecord(dir);
}
