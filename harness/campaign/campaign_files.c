/* harness/campaign/campaign_files.c: the campaign's files: the folder it may write into, campaign.json written whole,
 * and what a run's log says of a run that never began its record (its last line; a crash in its set-up). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign_int.h"
#include "results.h"
#include "util.h"

/* Whether nm is a temp file write_file_atomic leaves of campaign.json when its writer is killed (campaign.json.tmp.PID). */
static int cp_json_tmp(const char *nm)
{
    const char *p = nm + sizeof "campaign.json.tmp." - 1;
    if (strncmp(nm, "campaign.json.tmp.", sizeof "campaign.json.tmp." - 1) != 0 || !*p)
        return 0;
    return strspn(p, "0123456789") == strlen(p);
}

/* A campaign's folder: new, empty, or an earlier campaign's (campaign.json with its schedules, runs/, ckpt/, and the
 * temp file of a campaign.json whose writer was killed): EXIT_OK; a folder of other files, which a campaign would
 * write among and whose campaign.json it would replace, is refused (as run refuses a folder that is not an earlier
 * run's). */
int cp_out_ok(const char *out)
{
    DIR *d = opendir(out);
    if (!d)
        return EXIT_OK;   /* a new folder (results_out_check said any other reason) */
    int other = 0, has = 0;
    struct dirent *e;
    for (errno = 0; (e = readdir(d)); errno = 0) {
        const char *nm = e->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, ".."))
            continue;
        if (!strcmp(nm, "campaign.json"))
            has = 1;
        else if (strcmp(nm, "runs") && strcmp(nm, "ckpt") && !cp_json_tmp(nm))
            other = 1;
    }
    int err = errno;
    closedir(d);
    if (err) {
        fprintf(stderr, "gauntlet campaign: --out %s: cannot read the folder: %s\n", out, strerror(err));
        return EXIT_INPUT;
    }
    if (has && !other) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/campaign.json", out);
        json_t *j = json_load_file(path, 0, NULL);
        other = !json_is_integer(json_object_get(j, "schedules"));
        json_decref(j);
    }
    if (other) {
        fprintf(stderr, "gauntlet campaign: --out %s: the folder holds files that are not an earlier campaign's "
                "(campaign.json, runs/, ckpt/): a campaign would write among them and replace any campaign.json; "
                "expected an empty or new folder, or an earlier campaign's\n", out);
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

int cp_write_json(const char *path, const json_t *j, char *why, size_t n)
{
    static const char *const names[] = { "campaign.json", NULL };
    char dir[PATH_MAX];
    int removed = 0;
    if (str_copy(dir, sizeof dir, path) != 0) {
        snprintf(why, n, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
        return -1;
    }
    /* an earlier campaign killed while it wrote leaves its temp file: gone once its writer is (one that cannot go
     * is said and left: it harms nothing, and the write below says its own error) */
    if (dir_sweep_tmp(dirname(dir), names, &removed, why, n) != 0 && errno != ENOENT)
        gl_log("%s", why);
    char *text = json_dumps(j, JSON_INDENT(2));
    if (!text) {
        snprintf(why, n, "cannot write %s: its JSON could not be formed (out of memory)", path);
        return -1;
    }
    size_t len = strlen(text);
    text[len] = '\n';   /* json_dumps' NUL: the file ends with a whole line */
    int rc = write_file_atomic(path, text, len + 1);
    int err = errno;
    free(text);
    if (rc != 0)
        snprintf(why, n, "cannot write %s: %s", path, strerror(err));
    return rc;
}

/* The last non-empty line of the run's log (DIR.log: what the run and mpirun printed), or why there is none. */
void cp_log_tail(const char *dir, char *out, size_t n)
{
    char path[1100], buf[4096];
    snprintf(path, sizeof path, "%s.log", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(out, n, "(no log: %s)", strerror(errno));
        return;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
    ssize_t got = size >= 0 ? pread(fd, buf, sizeof buf - 1, from) : -1;
    close(fd);
    if (got <= 0) {
        snprintf(out, n, "(an empty log)");
        return;
    }
    buf[got] = 0;
    while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r' || buf[got - 1] == ' '))
        buf[--got] = 0;
    const char *last = strrchr(buf, '\n');
    snprintf(out, n, "%s", last ? last + 1 : buf);
}

/* The sanitizers' reports, as they begin on stderr (a build with -DGAUNTLET_SANITIZE=ON not told log_path). */
static const char *const cp_sanitizer_marks[] = { "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                                  "runtime error:", "ERROR: ThreadSanitizer", "WARNING: ThreadSanitizer",
                                                  "ERROR: MemorySanitizer", NULL };

int cp_setup_crashed(const char *dir, int code, char *why, size_t n)
{
    if (code > 128 && code < 128 + 65) {   /* WTERMSIG as the campaign writes it, or mpirun's 128 + a process's signal */
        snprintf(why, n, "died by signal %d (%s)", code - 128, strsignal(code - 128));
        return 1;
    }
    char path[PATH_MAX + 8], buf[65536];
    snprintf(path, sizeof path, "%s.log", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;   /* no log: nothing says it crashed (a fork refused writes none) */
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
    ssize_t got = size > 0 ? pread(fd, buf, sizeof buf - 1, from) : 0;
    if (close(fd) != 0 || got <= 0)
        return 0;
    buf[got] = 0;
    for (int i = 0; cp_sanitizer_marks[i]; i++) {
        const char *m = memmem(buf, (size_t)got, cp_sanitizer_marks[i], strlen(cp_sanitizer_marks[i]));
        if (m) {   /* its first line names the error */
            int len = (int)strcspn(m, "\n");
            snprintf(why, n, "a sanitizer's report (exit %d): %.*s", code, len > 200 ? 200 : len, m);
            return 1;
        }
    }
    return 0;
}
