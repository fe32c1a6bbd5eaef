/* harness/accept/accept_recover.c: suites killed before their verdicts (a health check's timeout, a launcher's
 * SIGKILL), judged by the next `gauntlet accept`: each run without a summary gets one rebuilt from its record
 * (gauntlet summarize), and the suite is judged on what it ran, with the backend it ran on; its verdicts.json says
 * it is incomplete. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "accept.h"
#include "accept_int.h"
#include "analyze.h"
#include "backend.h"
#include "util.h"

/* The suite under way in this process holds outdir/.suite.lock (flock) from before it looks at the folder until its
 * verdicts are written: what tells a suite that is still running (quiet for a while: a hang's heartbeat timeout,
 * checkpoint I/O between scenarios) from a killed one. A file of its own, never renamed, opened to write (a lock on
 * a file opened to read only is refused on NFS), taken first: until 2026-11-30 it was suite.json, locked after the
 * folder was cleared and suite.json renamed into place: two suites started together could both run, and one whose
 * lock failed had cleared the last suite's verdicts. */
static int suite_lock_fd = -1;

/* Whether path was written in the last 30 s (a suite that may still be running). */
static int recent(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && time(NULL) - st.st_mtime < 30;
}

/* The pid a suite wrote into the lock file open at fd ("unknown" where it says none). */
static void suite_pid(int fd, char *pid, size_t n)
{
    char buf[32];
    ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
    buf[k > 0 ? k : 0] = 0;
    buf[strcspn(buf, "\n")] = 0;
    snprintf(pid, n, "%s", buf[0] ? buf : "unknown");
}

/* Whether a live process holds dir/.suite.lock (a suite running there): 1 with its pid in pid, 0 when none does or
 * there is none, -1 when it cannot be told (errno). */
static int suite_held(const char *dir, char *pid, size_t n)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/" ACCEPT_SUITE_LOCK, dir);
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    int held = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) != 0)
        held = errno == EWOULDBLOCK ? 1 : -1;
    int e = errno;
    if (held == 1)
        suite_pid(fd, pid, n);
    close(fd);
    errno = e;
    return held;
}

int accept_suite_lock(const char *outdir)
{
    char path[PATH_MAX + 32], pid[32];
    snprintf(path, sizeof path, "%s/" ACCEPT_SUITE_LOCK, outdir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd < 0) {
        gl_log("--out %s: cannot open %s: %s", outdir, path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {   /* two suites into one folder would take each other's runs and verdicts */
        int e = errno;
        if (e == EWOULDBLOCK) {
            suite_pid(fd, pid, sizeof pid);
            gl_log("--out %s: another gauntlet accept (pid %s) is running there: give another --out, or wait for it",
                   outdir, pid);
        } else {
            gl_log("--out %s: cannot lock %s: %s", outdir, path, strerror(e));
        }
        close(fd);
        return -1;
    }
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        gl_log("--out %s: cannot write %s: %s", outdir, path, strerror(errno));
        close(fd);
        return -1;
    }
    suite_lock_fd = fd;
    return 0;
}

/* Whether the run folder run may still be written: a live process holds its .lock, or its events.jsonl or power.csv
 * (written every tick, also while a hang keeps events.jsonl quiet) changed in the last 30 s. Where it cannot be told,
 * it counts as live: a running suite is never judged killed. */
static int run_live(const char *run)
{
    char file[PATH_MAX * 4], pid[32];
    if (dir_lock_held(run, pid, sizeof pid) != 0)
        return 1;
    snprintf(file, sizeof file, "%s/events.jsonl", run);
    if (recent(file))
        return 1;
    snprintf(file, sizeof file, "%s/power.csv", run);
    return recent(file);
}

/* Whether the suite in path may still be running: its suite.json held (or written in the last 30 s), or one of its
 * runs live (run_live). */
static int suite_live(const char *path)
{
    char run[PATH_MAX * 3], file[PATH_MAX * 3], pid[32];
    snprintf(file, sizeof file, "%s/" ACCEPT_SUITE_FILE, path);
    if (suite_held(path, pid, sizeof pid) != 0 || recent(file))
        return 1;
    DIR *sd = opendir(path);
    int live = !sd && errno != ENOENT;
    for (struct dirent *r; sd && !live && (r = readdir(sd));) {
        snprintf(run, sizeof run, "%s/%s", path, r->d_name);
        snprintf(file, sizeof file, "%s/events.jsonl", run);
        live = r->d_name[0] != '.' && access(file, F_OK) == 0 && run_live(run);
    }
    if (sd)
        closedir(sd);
    return live;
}

/* Judges one run of a killed suite (its folder run, named name) into vs: its summary rebuilt from its record where it
 * has none (*rebuilt counted), judged with the backend it ran on (backend: the suite's, set from its summary). A run
 * that cannot be judged is a FAIL of `run` saying why: a killed suite never passes on what could not be read. */
static void recover_run(const char *run, const char *name, const struct backend_ops *ops, struct verdicts *vs,
                        char *backend, size_t bn, int *rebuilt)
{
    char file[PATH_MAX * 4], why[1400], sumwhy[1400] = "";
    snprintf(file, sizeof file, "%s/summary.json", run);
    if (access(file, F_OK) != 0) {
        if (summarize_dir(run, 0, sumwhy, sizeof sumwhy) == 0)
            (*rebuilt)++;
        else if (!sumwhy[0])
            str_copy(sumwhy, sizeof sumwhy, "gauntlet summarize could not rebuild it");
    }
    json_t *sum = json_load_file(file, 0, NULL);
    const char *bk = json_string_value(json_object_get(sum, "backend"));
    int known = bk && backend_find(bk);
    if (known)
        str_copy(backend, bn, bk);
    struct scenario *sc = xcalloc(1, sizeof *sc);
    snprintf(file, sizeof file, "%s/scenario.yaml", run);
    int rc = scenario_load(file, sc, why, sizeof why);
    if (rc != 0) {   /* the verdict still names the run: its folder is its scenario's name */
        str_copy(sc->name, sizeof sc->name, name);
    } else if (!sum && sumwhy[0]) {
        snprintf(why, sizeof why, "%s/summary.json: none, and none could be rebuilt from its record: %s", run, sumwhy);
        rc = -1;
    } else {
        rc = accept_evaluate(sc, run, known ? bk : ops->name, NULL, NULL, vs, why, sizeof why);
    }
    if (rc != 0) {
        gl_log("%s: %s", run, why);
        accept_note(accept_add(vs, sc, "run", V_FAIL), "it did not end, and cannot be judged: %s", why);
    }
    json_decref(sum);
    free(sc);
}

/* Judges the killed suite in path (its runs: folders with an events.jsonl) into path/verdicts.json, unless it may
 * still be running (suite_live; set aside by this suite under its lock, mine: it is not, whatever its files' times). */
static void recover_dir(const char *path, const struct backend_ops *ops, int mine)
{
    char run[PATH_MAX * 3], file[PATH_MAX * 4];
    if (!mine && suite_live(path))
        return;
    DIR *sd = opendir(path);
    struct verdicts vs = { 0 };
    int runs = 0, rebuilt = 0;
    char backend[32] = "";   /* the killed suite's own: it decides what a figure is judged against */
    for (struct dirent *r; sd && (r = readdir(sd));) {
        snprintf(run, sizeof run, "%s/%s", path, r->d_name);
        snprintf(file, sizeof file, "%s/events.jsonl", run);
        if (r->d_name[0] == '.' || access(file, F_OK) != 0)
            continue;
        runs++;
        recover_run(run, r->d_name, ops, &vs, backend, sizeof backend, &rebuilt);
    }
    if (sd)
        closedir(sd);
    if (runs) {
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
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));   /* as accept_write */
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
    char parent[PATH_MAX], self[PATH_MAX], path[PATH_MAX * 2], file[PATH_MAX * 3], canon[PATH_MAX];
    /* however it is spelled (DIR/., DIR/, a link): the folder it is, where it exists */
    str_copy(parent, sizeof parent, realpath(outdir, canon) ? canon : outdir);
    size_t l = strlen(parent);
    while (l > 1 && parent[l - 1] == '/')   /* DIR/ names DIR: its parent is the one above */
        parent[--l] = 0;
    char *slash = strrchr(parent, '/');
    str_copy(self, sizeof self, slash ? slash + 1 : parent);
    if (slash == parent)
        parent[1] = 0;   /* /DIR: the root */
    else if (slash)
        *slash = 0;
    else
        str_copy(parent, sizeof parent, ".");
    struct stat me, st;
    int known = stat(outdir, &me) == 0;   /* outdir however it is spelled (DIR/., a link): never judged as a sibling */
    DIR *d = opendir(parent);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, "accept-", 7) != 0 || strcmp(e->d_name, self) == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        if (known && stat(path, &st) == 0 && st.st_dev == me.st_dev && st.st_ino == me.st_ino)
            continue;
        snprintf(file, sizeof file, "%s/verdicts.json", path);
        if (access(file, F_OK) != 0)
            recover_dir(path, ops, 0);
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
    json_t *j = json_pack("{s:i, s:s, s:s, s:I, s:o}", "level", level, "backend", backend, "started_utc", stamp, "pid",
                          (json_int_t)getpid(), "scenarios", names);
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
    if (suite_lock_fd >= 0 && close(suite_lock_fd) != 0)   /* the lock file stays: removed, a suite starting now
                                                             * could lock one and the next another */
        gl_log("close(%s/" ACCEPT_SUITE_LOCK "): %s", outdir, strerror(errno));
    suite_lock_fd = -1;
}

int accept_recover_self(const char *outdir, const struct backend_ops *ops)
{
    char file[PATH_MAX * 3], from[PATH_MAX * 2], to[PATH_MAX * 3], aside[PATH_MAX * 2], stamp[32], pid[32];
    snprintf(file, sizeof file, "%s/verdicts.json", outdir);
    if (access(file, F_OK) == 0)
        return 0;   /* the suite before ended: it wrote its verdicts */
    snprintf(file, sizeof file, "%s/" ACCEPT_SUITE_FILE, outdir);
    json_t *mark = json_load_file(file, 0, NULL), *name, *names = json_object_get(mark, "scenarios");
    size_t i;
    int runs = 0, rc = 0;
    /* this suite holds the folder's lock: the one that wrote suite.json is gone, and only a process still holding a
     * run's .lock can write there. Not the files' times (until 2026-11-30 a run written in the last 30 s counted as
     * live, and the runs of a suite killed a moment before, not moved, were overwritten by the new suite's) */
    json_array_foreach(names, i, name) {   /* its runs: the scenarios it was to run that left a record */
        snprintf(from, sizeof from, "%s/%s", outdir, json_string_value(name));
        snprintf(file, sizeof file, "%s/events.jsonl", from);
        if (!json_is_string(name) || access(file, F_OK) != 0)
            continue;
        runs++;
        int held = dir_lock_held(from, pid, sizeof pid);
        if (held != 0 && rc == 0) {
            if (held > 0)
                gl_log("--out %s: its run %s is still written by pid %s (the suite that started it is gone): give "
                       "another --out, or end that process", outdir, from, pid);
            else
                gl_log("--out %s: whether a process still writes its run %s cannot be told: %s", outdir, from,
                       strerror(errno));
            rc = -1;
        }
    }
    if (runs && rc == 0) {   /* moved aside whole, so that the new suite's runs do not overwrite the evidence */
        time_t now = time(NULL);
        struct tm tm;
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
        snprintf(aside, sizeof aside, "%s/killed-%s", outdir, stamp);
        if (mkdir(aside, 0755) != 0) {
            gl_log("cannot create %s: %s", aside, strerror(errno));
            rc = -1;
        }
        json_array_foreach(names, i, name) {
            snprintf(from, sizeof from, "%s/%s", outdir, json_string_value(name));
            snprintf(to, sizeof to, "%s/%s", aside, json_string_value(name));
            if (rc == 0 && json_is_string(name) && access(from, F_OK) == 0 && rename(from, to) != 0) {
                gl_log("cannot move %s to %s: %s", from, to, strerror(errno));
                rc = -1;
            }
        }
        snprintf(from, sizeof from, "%s/" ACCEPT_SUITE_FILE, outdir);
        snprintf(to, sizeof to, "%s/" ACCEPT_SUITE_FILE, aside);
        if (rc == 0 && rename(from, to) != 0) {
            gl_log("cannot move %s to %s: %s", from, to, strerror(errno));
            rc = -1;
        }
        if (rc == 0) {
            printf("gauntlet accept: %s holds a suite killed before its verdicts: its runs moved to %s\n", outdir, aside);
            recover_dir(aside, ops, 1);
        }
    }
    if (rc != 0)   /* the new suite would overwrite what could not be set aside: it does not run (exit 3) */
        gl_log("--out %s: a suite killed there could not be set aside (see above): nothing there was touched", outdir);
    json_decref(mark);
    return rc;
}
