/* harness/report/report_files.c: how `gauntlet report` writes its files — report.txt, report.svg and report.png,
 * each whole (temp, fsync, rename) — so that a picture beside report.txt is always the one of its figures: the
 * earlier picture goes before the new text is written and the new picture follows it (a report killed in between
 * leaves the text without a picture, never beside an earlier one), and a picture this report does not make is never
 * left from an earlier report. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_int.h"
#include "util.h"

FILE *rp_mem(char **buf, size_t *len, const char *path)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        fprintf(stderr, "gauntlet report: %s: open_memstream: %s\n", path, strerror(errno));
    return f;
}

int rp_mem_close(FILE *mem, const char *path)
{
    int bad = ferror(mem);
    if (fclose(mem) != 0 || bad) {
        fprintf(stderr, "gauntlet report: %s: cannot build the text in memory\n", path);
        return -1;
    }
    return 0;
}

/* Finds prog in the folders of PATH (an empty entry is the current folder); its path in buf, or NULL. */
static const char *rp_which(const char *prog, char *buf, size_t n)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL) {
        int len = (int)strcspn(p, ":");
        struct stat st;
        if (snprintf(buf, n, "%.*s/%s", len ? len : 1, len ? p : ".", prog) < (int)n && stat(buf, &st) == 0 &&
            S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return buf;
    }
    return NULL;
}

/* Removes an earlier report's file path before the new report.txt is written; *was says whether there was one.
 * Returns -1 (with a message) when it is there and cannot be removed. */
static int rp_clear(const char *path, int *was)
{
    *was = 0;
    if (unlink(path) == 0) {
        *was = 1;
        return 0;
    }
    if (errno == ENOENT)
        return 0;
    fprintf(stderr, "gauntlet report: cannot remove the earlier %s: %s\n", path, strerror(errno));
    return -1;
}

/* Waits for the converter pid; 0 when it exited 0, else -1 having said why on stdout. */
static int rp_png_wait(pid_t pid, const char *exe)
{
    int st = 0;
    pid_t r;
    while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (r >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (r < 0)
        printf("png: none (waitpid: %s)\n", strerror(errno));
    else if (WIFEXITED(st))
        printf("png: none (%s exited %d)\n", exe, WEXITSTATUS(st));
    else
        printf("png: none (%s killed by signal %d)\n", exe, WTERMSIG(st));
    return -1;
}

/* Converts the picture svg to png with rsvg-convert when it is on PATH (into png.tmp.PID, then renamed, the folder
 * dir synced: until 2026-12-02 png.part, one name for every report and never swept, and the rename not made
 * durable); says on stdout what was made, or why not. The PNG is a convenience: its failure does not change the
 * exit code. Returns 0 when it was made, -1 when not. */
static int rp_png_make(const char *dir, const char *svg, const char *png)
{
    char exe[PATH_MAX], part[PATH_MAX + 32], in[PATH_MAX];
    if (!rp_which("rsvg-convert", exe, sizeof exe)) {
        printf("png: none (no rsvg-convert: apt-get install librsvg2-bin)\n");
        return -1;
    }
    snprintf(part, sizeof part, "%s.tmp.%d", png, (int)getpid());   /* a killed report's: swept as summary.json's */
    str_copy(in, sizeof in, svg);
    char *argv[] = { exe, "--format", "png", "--output", part, in, NULL };
    if (fflush(stdout) != 0)
        fprintf(stderr, "gauntlet report: stdout: %s\n", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        printf("png: none (fork: %s)\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        execv(exe, argv);
        fprintf(stderr, "gauntlet report: %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    int fd = -1, bad = 1, e = 0;
    if (rp_png_wait(pid, exe) == 0) {
        fd = open(part, O_RDONLY | O_CLOEXEC);
        bad = fd < 0 || fsync(fd) != 0, e = errno;
        if (fd >= 0 && close(fd) != 0 && !bad)
            bad = 1, e = errno;
        if (bad || (rename(part, png) != 0 && (e = errno)))   /* written whole or not at all */
            printf("png: none (%s: %s)\n", part, strerror(e));
        else {
            int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd < 0 || (fsync(dfd) != 0 && errno != EINVAL && errno != ENOTSUP))
                fprintf(stderr, "gauntlet report: %s is written, but its folder could not be synced (%s): a power loss "
                                "may still lose it\n", png, strerror(errno));
            if (dfd >= 0)
                close(dfd);
            printf("png: %s\n", png);
            return 0;
        }
    }
    if (unlink(part) != 0 && errno != ENOENT)
        fprintf(stderr, "gauntlet report: %s: %s\n", part, strerror(errno));
    return -1;
}

int rp_files(const char *dir, const char *txt, size_t tlen, const char *svg, size_t slen, int drawn)
{
    char ptxt[PATH_MAX], psvg[PATH_MAX], ppng[PATH_MAX];
    int had_svg = 0, had_png = 0, made_svg = 0, made_png = 0, rc = EXIT_OK;
    snprintf(ptxt, sizeof ptxt, "%s/report.txt", dir);   /* report_main checked that dir leaves room */
    snprintf(psvg, sizeof psvg, "%s/report.svg", dir);
    snprintf(ppng, sizeof ppng, "%s/report.png", dir);
    static const char *const tmp_of[] = { "report.txt", "report.svg", "report.png", NULL };
    int swept = 0;   /* a killed report's temp files (NAME.tmp.PID, its pid gone) */
    char sweep_why[1300];
    if (dir_sweep_tmp(dir, tmp_of, &swept, sweep_why, sizeof sweep_why) != 0)
        fprintf(stderr, "gauntlet report: warning: %s\n", sweep_why);
    char old_part[PATH_MAX + 16];   /* the one name a PNG was made under until 2026-12-02 */
    snprintf(old_part, sizeof old_part, "%s/report.png.part", dir);
    swept += unlink(old_part) == 0;
    if (swept)
        printf("  (removed %d temp file(s) a killed report left)\n", swept);
    if (rp_clear(psvg, &had_svg) != 0 || rp_clear(ppng, &had_png) != 0) {   /* it would be read as the new one's */
        fprintf(stderr, "gauntlet report: %s not written: an earlier picture would be left beside it\n", ptxt);
        return EXIT_ENV;
    }
    int wrote = txt && write_file_atomic(ptxt, txt, tlen) == 0;
    if (!wrote) {
        if (txt)
            fprintf(stderr, "gauntlet report: cannot write %s: %s\n", ptxt, strerror(errno));
        printf("plots: none (%s was not written: no picture without its text)\n", ptxt);
        rc = EXIT_ENV;
    } else if (drawn > 0) {
        printf("plots: none (no power trace to draw)\n");
    } else if (drawn < 0 || write_file_atomic(psvg, svg, slen) != 0) {
        if (drawn == 0)
            fprintf(stderr, "gauntlet report: cannot write %s: %s\n", psvg, strerror(errno));
        rc = EXIT_ENV;
    } else {
        made_svg = 1;
        printf("plots: %s\n", psvg);
        made_png = rp_png_make(dir, psvg, ppng) == 0;
    }
    if (had_svg && !made_svg)   /* no picture of this report: none of an earlier one either, and it is said */
        printf("  (an earlier %s was removed: it was not this report's)\n", psvg);
    if (had_png && !made_png)
        printf("  (an earlier %s was removed: it was not this report's)\n", ppng);
    return rc;
}
