/* harness/report/report_record.c: what `gauntlet report` says of a record that is not whole: a run stopped early or
 * killed (summary.json's `stopped`, `stop`, `incomplete`, `rebuilt_by`, each run's `complete`), and a killed run's
 * folder that has no summary.json yet; and what it reads of events.jsonl (each run's window), every line an event. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_int.h"
#include "util.h"

int rp_cut(json_t *run)
{
    return json_is_false(json_object_get(run, "complete"));   /* a summary older than `complete`: taken as whole */
}

void rp_record_note(FILE *f, json_t *summary)
{
    const char *stopped = json_string_value(json_object_get(summary, "stopped"));
    const char *stop = json_string_value(json_object_get(summary, "stop"));
    const char *by = json_string_value(json_object_get(summary, "rebuilt_by"));
    if (json_is_true(json_object_get(summary, "incomplete")))
        fprintf(f, "record incomplete: %s; summary rebuilt by %s (its figures are the record's, not the run's own)\n",
                stopped ? stopped : "the run wrote no summary", by ? by : "gauntlet summarize");
    else if (stop && strcmp(stop, "completed") != 0)
        fprintf(f, "run stopped early (stop: %s, exit %lld): %s\n", stop,
                (long long)json_integer_value(json_object_get(summary, "exit")), stopped ? stopped : "no reason given");
    else if (stopped)
        fprintf(f, "run stopped early: %s\n", stopped);
}

void rp_cut_legend(FILE *f, const struct rp_run *runs, int n)
{
    for (int i = 0; i < n; i++)
        if (runs[i].cut) {
            fprintf(f, "(*: ended early (stopped or killed; summary.json's complete: false): its figures cover only "
                       "the part it ran; energy+%%, time+%% and eff against none are a whole run's, left out (-); on "
                       "no curve, never the baseline)\n");
            return;
        }
}

void rp_held_notes(FILE *f, const struct rp_run *runs, int n)
{
    for (int i = 0; i < n; i++) {
        json_t *vs = json_object_get(runs[i].summary, "vs_none");
        if (json_is_true(json_object_get(runs[i].summary, "unsettled")))
            fprintf(f, "(%s: unsettled: its figures include its warm-up (it ended before its power settled, or too few "
                       "samples came after power.settle))\n", runs[i].name);
        if (strcmp(runs[i].mitigation, "none") == 0 || runs[i].cut)
            continue;   /* a none against itself, a part of a run against none: no comparison is shown */
        if (!json_is_true(json_object_get(runs[i].summary, "unsettled")) && json_is_true(json_object_get(vs, "unsettled")))
            fprintf(f, "(%s: against an unsettled none: none's figures include its warm-up)\n", runs[i].name);
        if (json_is_true(json_object_get(vs, "baseline_disturbed")))
            fprintf(f, "(%s: against a none disturbed by hand in the live view (every none was): its figures against "
                       "none are not the mitigation's alone)\n", runs[i].name);
    }
}

int rp_no_summary(const char *dir, const char *path)
{
    int e = errno;
    char ev[PATH_MAX];
    if (e == ENOENT && snprintf(ev, sizeof ev, "%s/events.jsonl", dir) < (int)sizeof ev && access(ev, F_OK) == 0)
        fprintf(stderr, "gauntlet report: %s: no summary: the run was killed before it wrote one; run `gauntlet "
                        "summarize %s` first (it rebuilds one from events.jsonl and power.csv)\n", path, dir);
    else
        fprintf(stderr, "gauntlet report: %s: %s (is %s a results folder?)\n", path,
                e == EINVAL ? "not a regular file" : strerror(e), dir);
    return EXIT_INPUT;
}

/* Keeps the stretch a run's figures were taken over (run_end's analysed_s: [from, to] in power.csv's time, from the
 * first tick past the warm-up to the end of the first rank's last iteration), when st says one inside the run. */
static void rp_analysed(struct rp_run *r, const json_t *st)
{
    double a = json_number_value(json_array_get(st, 0)), b = json_number_value(json_array_get(st, 1));
    if (json_is_number(json_array_get(st, 0)) && json_is_number(json_array_get(st, 1)) && a < b && a >= r->t0 &&
        fabs(a) <= RP_FIG_MAX && fabs(b) <= RP_FIG_MAX) {
        r->a0 = a;
        r->a1 = b;
    }
}

/* The ranks of the run in all (the start event's ranks x nodes) from node 0's first start event, when it gives them
 * within what a scenario can ask; *world is left as it was otherwise. */
static void rp_start_world(json_t *o, long long *world)
{
    json_t *node = json_object_get(o, "node"), *rk = json_object_get(o, "ranks"), *nd = json_object_get(o, "nodes");
    if (*world || (node && !(json_is_integer(node) && json_integer_value(node) == 0)) || !json_is_integer(rk))
        return;   /* a later start, another node's: node 0's first describes the run */
    long long ranks = json_integer_value(rk), nodes = json_is_integer(nd) ? json_integer_value(nd) : nd ? 0 : 1;
    if (ranks >= 1 && ranks <= RP_WORLD_MAX && nodes >= 1 && nodes <= RP_WORLD_MAX && ranks * nodes <= RP_WORLD_MAX)
        *world = ranks * nodes;
}

int rp_windows(const char *dir, struct rp_run *runs, int n, long long *world)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    FILE *f = rp_open(dir, "events.jsonl", "no power traces drawn");
    if (!f)
        return 0;
    while ((len = getline_cap(&line, &cap, f, RP_LINE_MAX)) != -1 && (len == -2 || line[len - 1] == '\n')) {
        json_t *o = len > 0 ? json_loadb(line, (size_t)len, 0, NULL) : NULL;   /* -2: too long, said below */
        const char *ev = json_string_value(json_object_get(o, "event"));
        json_int_t run = json_integer_value(json_object_get(o, "run"));
        double t = rp_fig(json_object_get(o, "t_s"));   /* none: the run's window unknown, no trace */
        lineno++;
        if (!ev || !json_is_number(json_object_get(o, "t_s"))) {
            if (len == -2)
                fprintf(stderr, "gauntlet report: %s/events.jsonl:%ld: a line longer than %d bytes: no event a run "
                                "writes\n", dir, lineno, RP_LINE_MAX);
            else
                fprintf(stderr, "gauntlet report: %s/events.jsonl:%ld: expected a JSON object with t_s and event\n",
                        dir, lineno);
            json_decref(o);
            free(line);
            fclose(f);
            return EXIT_INPUT;
        }
        if (strcmp(ev, "start") == 0)
            rp_start_world(o, world);
        int kind = strcmp(ev, "run_begin") == 0 ? 1 : strcmp(ev, "run_end") == 0 ? 2
                   : strcmp(ev, "iteration") == 0 ? 3 : 0;   /* 3: the first one ends the warm-up (a summary
                                                              * without warmup_s) */
        json_t *node = json_object_get(o, "node");
        if (kind != 3 && json_is_integer(node) && json_integer_value(node) != 0)
            kind = 0;   /* another node's run_begin and run_end (its own stretch, its end after node 0's): node 0's
                         * are the run's, as summarize takes them (until 2026-12-01 the last line's: node 1's) */
        for (int i = 0; kind && i < n; i++) {
            if (runs[i].index != run)
                continue;
            if (kind == 3)
                runs[i].warm = fmin(runs[i].warm, t);
            else
                runs[i].t1 = kind == 1 ? INFINITY : t;
            if (kind == 2)
                rp_analysed(&runs[i], json_object_get(json_object_get(o, "figures"), "analysed_s"));
            if (kind == 1)
                runs[i].t0 = t;
        }
        json_decref(o);
    }
    free(line);
    rp_done(f, dir, "events.jsonl");
    for (int i = 0; i < n; i++) {   /* the warm-up as the summary's analysis left it out (power.settle) */
        double w = rp_fig(json_object_get(runs[i].summary, "warmup_s"));
        if (isfinite(w) && isfinite(runs[i].t0))
            runs[i].warm = runs[i].t0 + w;
    }
    return 0;
}
