/* harness/results/results_end.c: the end of a run's record (see results.h): fsyncs of the files appended to, the
 * summary written whole, an end line taken back; text from outside made fit for JSON. */
#include "results.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results_int.h"
#include "util.h"

json_t *results_text(const char *s)
{
    char *fixed = utf8_lossy(s ? s : "");
    json_t *j = json_string(fixed);
    free(fixed);
    return j ? j : json_null();   /* out of memory: null, and the object holding it stays whole */
}

int results_summary(struct results *r, json_t *summary)
{
    char path[1200], text[sizeof r->why];
    snprintf(path, sizeof path, "%s/summary.json", r->dir);
    /* no precision given: 17 digits, every double read back as written (until 2026-11-30 8: an fp32 fault's old and
     * new values could read as one) */
    char *json = summary ? json_dumps(summary, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    if (!json) {   /* not an OS error: said as what it is (until 2026-11-30 "Cannot allocate memory" for either) */
        snprintf(text, sizeof text, "cannot write %s: %s", path, summary ? "it could not be rendered as JSON"
                                                                          : "the summary could not be built");
        if (r->failed)
            gl_log("%s", text);
        return results_fail_text(r, utf8_trim(text));
    }
    size_t len = strlen(json);
    char *withnl = xmalloc(len + 2);
    memcpy(withnl, json, len);
    withnl[len] = '\n';
    int rc = write_file_durable(path, withnl, len + 1);
    if (rc != 0) {
        int e = errno;
        if (rc < 0)
            snprintf(text, sizeof text, "cannot write %s: %s", path, strerror(e));
        else   /* in place: the run must agree with what it says */
            snprintf(text, sizeof text, "%s is written, but its folder could not be synced: %s (a power loss may lose "
                     "it)", path, strerror(e));
        if (r->failed)   /* the run said its first failure; this one would go unsaid */
            gl_log("%s", text);
        results_fail_text(r, utf8_trim(text));   /* the first: the run says it (results_failed) */
    }
    free(withnl);
    free(json);
    return rc;
}

int results_sync(struct results *r)
{
    int rc = results_flush(r);
    const struct { int fd; const char *name; } f[] = { { r->events_fd, r->events_name }, { r->power_fd, r->power_name },
                                                        { r->nodes_fd, "power-nodes.csv" } };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        if (f[i].fd < 0 || fsync(f[i].fd) == 0 || errno == EINVAL)
            continue;
        int e = errno;
        if (r->failed)   /* after the run's first failure: said here, or never */
            gl_log("cannot write %s/%s: %s", r->dir, f[i].name, strerror(e));
        rc = results_fail(r, f[i].name, e);
    }
    r->synced = 1;   /* tried, and any failure said: results_close does not try again */
    return rc;
}

int results_events_cut(struct results *r, off_t off)
{
    if (r->events_fd < 0 || r->stopped || off > r->events_off)
        return -1;
    if (ftruncate(r->events_fd, off) != 0) {
        int e = errno;
        r->stopped = 1;   /* what follows would not be the record's next line */
        return results_fail(r, r->events_name, e);
    }
    if (off < r->events_off && r->events)
        r->events--;   /* the line taken back */
    r->events_off = off;
    return 0;
}
