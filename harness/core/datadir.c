/* harness/core/datadir.c: where the shipped scenarios are — an installed tree, a build folder in the source tree,
 * the install prefix built in, or the current folder. `gauntlet list` and `gauntlet accept` look the same way. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#ifndef GAUNTLET_DATADIR
#define GAUNTLET_DATADIR "/usr/local/share/gauntlet/scenarios"
#endif

/* Whether path is a folder; if so it becomes its real path (no "bin/../"). */
static int is_dir(char *path, size_t n)
{
    struct stat st;
    char real[PATH_MAX];
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    if (realpath(path, real))
        snprintf(path, n, "%s", real);
    return 1;
}

int gl_scenarios_dir(char *out, size_t n)
{
    char exe[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        /* installed (PREFIX/bin/gauntlet), then a build folder of the source tree (SRC/build/gauntlet) */
        const char *tries[] = { "../share/gauntlet/scenarios", "../scenarios" };
        for (size_t i = 0; i < ARRAY_LEN(tries); i++) {
            snprintf(out, n, "%s/%s", exe, tries[i]);
            if (is_dir(out, n))
                return 0;
        }
    }
    snprintf(out, n, "%s", GAUNTLET_DATADIR);   /* the prefix it was built for (a copied or linked binary) */
    if (is_dir(out, n))
        return 0;
    snprintf(out, n, "scenarios");
    return is_dir(out, n) ? 0 : -1;
}
