/* harness/results/outdir.c: what a command's --out may name, checked before anything runs (results.h). */
#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
