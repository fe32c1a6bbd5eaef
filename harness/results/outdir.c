/* harness/results/outdir.c: what a command's --out may name, checked before anything runs, and what of an earlier
 * run's record in it a run removes (results.h). */
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "util.h"

/* Whether name is one that only a run leaves in its folder: .lock (.lock-node<N>), events.jsonl
 * (events-node<N>.jsonl). */
static int results_marker(const char *name)
{
    size_t len = strlen(name);
    return strcmp(name, ".lock") == 0 || strncmp(name, ".lock-node", 10) == 0 || strcmp(name, "events.jsonl") == 0 ||
           (strncmp(name, "events-node", 11) == 0 && len > 17 && strcmp(name + len - 6, ".jsonl") == 0);
}

/* Looks into the folder dir: 1 when it holds anything and no run's marker (results_marker), 0 when it is empty or an
 * earlier results folder, -1 with errno when it cannot be read. */
static int results_foreign(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int others = 0, marked = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (results_marker(e->d_name))
            marked = 1;
        else
            others = 1;
    }
    int e2 = errno;
    if (closedir(d) != 0 && !e2)
        e2 = errno;
    if (e2)
        return errno = e2, -1;
    return others && !marked;
}

/* Whether the file scenario is dir/scenario.yaml (the file a run replaces with its resolved copy): 1 or 0. */
static int results_holds(const char *dir, const char *scenario)
{
    char path[RESULTS_DIR_MAX + 32];
    struct stat a, b;
    snprintf(path, sizeof path, "%s/scenario.yaml", dir);   /* dir: at most RESULTS_DIR_MAX, checked first */
    return stat(scenario, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int results_out_check(const char *opt, const char *out, size_t max, const char *scenario)
{
    struct stat st;
    if (!out[0]) {
        gl_log("%s: expected a folder name (got an empty one)", opt);
        return EXIT_INPUT;
    }
    if (path_fits(opt, out, max) != 0)
        return EXIT_INPUT;
    json_t *utf8 = json_string(out);   /* the record names its folder in JSON, which holds UTF-8 only (until
                                        * 2026-11-30 such a folder's start event was written empty) */
    if (!utf8) {
        gl_log("%s: expected a folder name in UTF-8 (the record names it), got bytes that are not", opt);
        return EXIT_INPUT;
    }
    json_decref(utf8);
    if (stat(out, &st) != 0) {
        if (errno == ENOENT)
            return EXIT_OK;   /* a new folder: created by the run */
        gl_log("%s %s: %s", opt, out, strerror(errno));
        return errno == ENOTDIR ? EXIT_INPUT : EXIT_ENV;
    }
    if (!S_ISDIR(st.st_mode)) {
        gl_log("%s %s: expected a folder (%s is a file, or something else that is no folder)", opt, out, out);
        return EXIT_INPUT;
    }
    if (!scenario)
        return EXIT_OK;
    if (results_holds(out, scenario)) {
        gl_log("%s %s: the folder holds the scenario being run (%s/scenario.yaml), which a run replaces with its "
               "resolved copy: give another --out, or copy the scenario elsewhere first", opt, out, out);
        return EXIT_INPUT;
    }
    int foreign = results_foreign(out);
    if (foreign < 0) {
        gl_log("%s %s: cannot look into the folder: %s", opt, out, strerror(errno));
        return EXIT_ENV;
    }
    if (foreign) {
        gl_log("%s %s: the folder holds files and is not an earlier run's results folder (it has no .lock or "
               "events.jsonl): a run would replace or remove some of them; expected an empty or new folder, or an "
               "earlier results folder", opt, out);
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

/* The N of name when it is <prefix>N<suffix> (N: decimal digits, at most 6), else -1. */
static long results_node_of(const char *name, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix), ls = strlen(suffix), len = strlen(name), digits = len - lp - ls;
    if (len <= lp + ls || digits > 6 || strncmp(name, prefix, lp) != 0 || strcmp(name + len - ls, suffix) != 0)
        return -1;
    long node = 0;
    for (size_t i = lp; i < lp + digits; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        node = node * 10 + (name[i] - '0');
    }
    return node;
}

/* Whether a live process holds dir/.lock-node<node> (results_lock's flock): 1, or 0 (free, or no such file). */
static int results_node_held(const char *dir, long node)
{
    char path[RESULTS_DIR_MAX + 32];
    snprintf(path, sizeof path, "%s/.lock-node%ld", dir, node);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    int held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);   /* a lock taken here goes with it */
    return held;
}

/* Whether the run of sc has its nodes other than 0 keep their rows in power-node<N>.csv under .lock-node<N>
 * (results_open_forward's choice). */
static int results_node_rows(const struct scenario *sc)
{
    return sc->nodes > 1 && (sc->forward == FORWARD_NODES ||
                             (sc->power.forward_hz > 0 && sc->power.sample_hz > sc->power.forward_hz));
}

/* Whether name is a node file of an earlier run that the run of sc does not write: 1, 0 (not a node file, or one
 * this run's node writes: it truncates its own), with *node its node (-1: power-nodes.csv). */
static int results_node_stale(const char *name, const struct scenario *sc, long *node)
{
    int summed = sc->nodes > 1 && sc->forward == FORWARD_NODES, keep;
    *node = -1;
    if (strcmp(name, "power-nodes.csv") == 0)
        return !summed;
    if ((*node = results_node_of(name, "power-node", ".csv")) >= 0 || (*node = results_node_of(name, ".lock-node", "")) >= 0)
        keep = results_node_rows(sc);
    else if ((*node = results_node_of(name, "events-node", ".jsonl")) >= 0)
        keep = summed;
    else
        return 0;
    return *node >= sc->nodes || *node == 0 || !keep;
}

int results_clear_nodes(const char *dir, const struct scenario *sc, char *why, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, n, "cannot look into %s: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    long node;
    while (rc == 0 && (errno = 0, e = readdir(d)) != NULL) {
        char path[RESULTS_DIR_MAX + 300];
        struct stat st;
        if (!results_node_stale(e->d_name, sc, &node))
            continue;
        /* a node of this run that takes its lock is not raced for it (it is this run's, whatever it held before) */
        int ours = node > 0 && node < sc->nodes && results_node_rows(sc);
        if (node >= 0 && !ours && results_node_held(dir, node))
            continue;   /* a live process's */
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)))
            continue;   /* gone meanwhile, or no file of ours (a folder) */
        if (unlink(path) != 0 && errno != ENOENT) {
            snprintf(why, n, "cannot remove %s, an earlier run's (it would be read as this run's): %s", path,
                     strerror(errno));
            rc = -1;
        }
    }
    if (rc == 0 && errno) {
        snprintf(why, n, "cannot read the folder %s: %s", dir, strerror(errno));
        rc = -1;
    }
    closedir(d);
    return rc;
}

int results_never_began(const char *dir, char *why, size_t n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen_regular(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    char *line = NULL;
    size_t cap = 0;
    int never = 1;   /* no start event: whatever else is there (an end line says why) */
    if (n)
        why[0] = 0;
    while (getline(&line, &cap, f) > 0) {   /* a run's record begins with its start event: read no further */
        json_t *ev = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(ev, "event"));
        const char *reason = json_string_value(json_object_get(ev, "reason"));
        int start = type && strcmp(type, "start") == 0;
        if (type && strcmp(type, "end") == 0 && reason && json_integer_value(json_object_get(ev, "node")) == 0)
            str_copy(why, n, reason);
        json_decref(ev);
        if (start) {
            never = 0;
            break;
        }
    }
    int bad = ferror(f);
    free(line);
    fclose(f);
    return bad ? -1 : never;
}
