/* harness/accept/accept_recover.c: suites killed before their verdicts (a health check's timeout, a launcher's
 * SIGKILL), judged by the next `gauntlet accept`: each run without a summary gets one rebuilt from its record
 * (gauntlet summarize), and the suite is judged on what it ran, with the backend it ran on; its verdicts.json says
 * it is incomplete. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "accept.h"
#include "accept_int.h"
#include "analyze.h"
#include "backend.h"
#include "util.h"

/* Whether path was written in the last 30 s (a suite that may still be running). */
static int recent(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && time(NULL) - st.st_mtime < 30;
}

/* Judges the killed suite in path (its runs: folders with an events.jsonl) into path/verdicts.json, unless one of
 * them was written in the last 30 s. */
static void recover_dir(const char *path, const struct backend_ops *ops)
{
    char run[PATH_MAX * 3], file[PATH_MAX * 4], why[1400];
    DIR *sd = opendir(path);
    struct verdicts vs = { 0 };
    int runs = 0, rebuilt = 0, live = 0;
    char backend[32] = "";   /* the killed suite's own: it decides what a figure is judged against */
    for (struct dirent *r; sd && (r = readdir(sd));) {
        snprintf(run, sizeof run, "%s/%s", path, r->d_name);
        snprintf(file, sizeof file, "%s/events.jsonl", run);
        if (r->d_name[0] == '.' || access(file, F_OK) != 0)
            continue;
        live |= recent(file);
        runs++;
        snprintf(file, sizeof file, "%s/summary.json", run);
        if (!live && access(file, F_OK) != 0 && summarize_dir(run, 0, why, sizeof why) == 0)
            rebuilt++;
        json_t *sum = live ? NULL : json_load_file(file, 0, NULL);
        const char *bk = json_string_value(json_object_get(sum, "backend"));
        int known = bk && backend_find(bk);
        if (known)
            str_copy(backend, sizeof backend, bk);
        struct scenario *sc = xcalloc(1, sizeof *sc);
        snprintf(file, sizeof file, "%s/scenario.yaml", run);
        if (!live && scenario_load(file, sc, why, sizeof why) == 0 &&
            accept_evaluate(sc, run, known ? bk : ops->name, NULL, NULL, &vs, why, sizeof why) != 0)
            gl_log("%s: %s", run, why);
        json_decref(sum);
        free(sc);
    }
    if (sd)
        closedir(sd);
    if (runs && !live) {
        json_t *j = accept_json(&vs);
        /* the level it was asked, from its suite.json (null where it left none); it never exited: null, not a code
         * it did not give */
        snprintf(file, sizeof file, "%s/" ACCEPT_SUITE_FILE, path);
        json_t *mark = json_load_file(file, 0, NULL), *lv = json_object_get(mark, "level");
        json_object_set_new(j, "level", json_is_integer(lv) ? json_integer(json_integer_value(lv)) : json_null());
        json_decref(mark);
        json_object_set_new(j, "backend", backend[0] ? json_string(backend) : json_null());
        json_object_set_new(j, "exit", json_null());
        json_object_set_new(j, "incomplete", json_true());
        json_object_set_new(j, "recovered", json_string("judged by a later gauntlet accept: the suite was killed "
                                                        "before its verdicts; only the scenarios it ran are here"));
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(8));
        snprintf(file, sizeof file, "%s/verdicts.json", path);
        if (text && write_file_atomic(file, text, strlen(text)) == 0)
            printf("gauntlet accept: %s was killed before its verdicts: %d run(s) there, %d summar%s rebuilt; "
                   "judged into its verdicts.json (incomplete)\n", path, runs, rebuilt, rebuilt == 1 ? "y" : "ies");
        else
            gl_log("cannot write %s: %s", file, strerror(errno));
        free(text);
        json_decref(j);
    }
    accept_free(&vs);
}

void accept_recover(const char *outdir, const struct backend_ops *ops)
{
    char parent[PATH_MAX], path[PATH_MAX * 2], file[PATH_MAX * 3];
    str_copy(parent, sizeof parent, outdir);
    char *slash = strrchr(parent, '/');
    const char *self = slash ? outdir + (slash - parent) + 1 : outdir;
    if (slash)
        *slash = 0;
    else
        str_copy(parent, sizeof parent, ".");
    DIR *d = opendir(parent);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, "accept-", 7) != 0 || strcmp(e->d_name, self) == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        snprintf(file, sizeof file, "%s/verdicts.json", path);
        if (access(file, F_OK) != 0)
            recover_dir(path, ops);
    }
    if (d)
        closedir(d);
}

int accept_mark_start(const char *outdir, const struct scenario *sc, int n, int level, const char *backend)
{
    json_t *names = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(names, json_string(sc[i].name));
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32], path[PATH_MAX + 32];
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    json_t *j = json_pack("{s:i, s:s, s:s, s:o}", "level", level, "backend", backend, "started_utc", stamp, "scenarios",
                          names);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    snprintf(path, sizeof path, "%s/" ACCEPT_SUITE_FILE, outdir);
    int rc = text && write_file_atomic(path, text, strlen(text)) == 0 ? 0 : -1;
    if (rc)
        gl_log("cannot write %s: %s", path, strerror(errno));
    free(text);
    json_decref(j);
    return rc;
}

void accept_mark_end(const char *outdir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/" ACCEPT_SUITE_FILE, outdir);
    if (unlink(path) != 0 && errno != ENOENT)
        gl_log("cannot remove %s: %s", path, strerror(errno));
}

void accept_recover_self(const char *outdir, const struct backend_ops *ops)
{
    char file[PATH_MAX * 3], from[PATH_MAX * 2], to[PATH_MAX * 3], aside[PATH_MAX * 2], stamp[32];
    snprintf(file, sizeof file, "%s/verdicts.json", outdir);
    if (access(file, F_OK) == 0)
        return;   /* the suite before ended: it wrote its verdicts */
    snprintf(file, sizeof file, "%s/" ACCEPT_SUITE_FILE, outdir);
    json_t *mark = json_load_file(file, 0, NULL), *name, *names = json_object_get(mark, "scenarios");
    size_t i;
    int live = 0, runs = 0;
    json_array_foreach(names, i, name) {   /* its runs: the scenarios it was to run that left a record */
        snprintf(file, sizeof file, "%s/%s/events.jsonl", outdir, json_string_value(name));
        if (json_is_string(name) && access(file, F_OK) == 0) {
            runs++;
            live |= recent(file);
        }
    }
    if (runs && !live) {   /* moved aside whole, so that the new suite's runs do not overwrite the evidence */
        time_t now = time(NULL);
        struct tm tm;
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
        snprintf(aside, sizeof aside, "%s/killed-%s", outdir, stamp);
        int ok = mkdir(aside, 0755) == 0;
        if (!ok)
            gl_log("cannot create %s: %s", aside, strerror(errno));
        json_array_foreach(names, i, name) {
            snprintf(from, sizeof from, "%s/%s", outdir, json_string_value(name));
            snprintf(to, sizeof to, "%s/%s", aside, json_string_value(name));
            if (ok && json_is_string(name) && access(from, F_OK) == 0 && rename(from, to) != 0) {
                gl_log("cannot move %s to %s: %s", from, to, strerror(errno));
                ok = 0;
            }
        }
        snprintf(from, sizeof from, "%s/" ACCEPT_SUITE_FILE, outdir);
        snprintf(to, sizeof to, "%s/" ACCEPT_SUITE_FILE, aside);
        if (ok && rename(from, to) != 0) {
            gl_log("cannot move %s to %s: %s", from, to, strerror(errno));
            ok = 0;
        }
        if (ok) {
            printf("gauntlet accept: %s holds a suite killed before its verdicts: its runs moved to %s\n", outdir, aside);
            recover_dir(aside, ops);
        }
    }
    json_decref(mark);
}
