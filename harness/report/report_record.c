/* harness/report/report_record.c: what `gauntlet report` says of a record that is not whole: a run stopped early or
 * killed (summary.json's `stopped`, `stop`, `incomplete`, `rebuilt_by`, each run's `complete`), and a killed run's
 * folder that has no summary.json yet. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
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
