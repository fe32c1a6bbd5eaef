/* harness/accept/accept_end.c: the end of `gauntlet accept` on node 0 — its exit code, its verdicts printed and
 * written (JUnit, verdicts.json), and --drain. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept.h"
#include "accept_int.h"
#include "backend.h"
#include "cli.h"
#include "util.h"

/* --drain: marks this node DRAIN in Slurm with the failed checks as the reason (scontrol update); the line is
 * printed first. 0, or -1 when scontrol could not be run or refused. */
int accept_drain(const struct verdicts *vs)
{
    char node[256], reason[200] = "gauntlet:", cmd[600];
    const char *env = getenv("SLURMD_NODENAME");
    if (env && *env)
        str_copy(node, sizeof node, env);
    else if (gethostname(node, sizeof node - 1) == 0)
        node[strcspn(node, ".")] = 0;   /* Slurm's NodeName is the short host name */
    else
        str_copy(node, sizeof node, "?");
    size_t used = strlen(reason);
    int fails = 0;
    for (int i = 0; i < vs->n; i++)
        fails += vs->v[i].status == V_FAIL;
    /* the failed checks; none failed (--strict): the skipped ones, which failed the suite */
    for (int i = 0; i < vs->n && used + 4 < sizeof reason; i++)
        if (vs->v[i].status == (fails ? V_FAIL : V_SKIP))
            used += (size_t)snprintf(reason + used, sizeof reason - used, "%s %s %s%s", used > 9 ? ";" : "",
                                     vs->v[i].check, vs->v[i].subject, fails ? "" : " (skipped, --strict)");
    for (char *c = reason; *c; c++)
        if (*c == '"' || *c == '\n')
            *c = '\'';
    snprintf(cmd, sizeof cmd, "scontrol update NodeName=%s State=DRAIN Reason=\"%s\"", node, reason);
    printf("gauntlet accept: drain: %s\n", cmd);
    fflush(stdout);
    char nodearg[300], reasonarg[256];
    snprintf(nodearg, sizeof nodearg, "NodeName=%s", node);
    snprintf(reasonarg, sizeof reasonarg, "Reason=%s", reason);
    int rc = run_wait((const char *[]){ "scontrol", "update", nodearg, "State=DRAIN", reasonarg, NULL });
    if (rc != 0) {
        gl_log("--drain: scontrol %s (exit %d): the node is not drained", rc == 127 ? "was not found" : "failed", rc);
        return -1;
    }
    return 0;
}

int accept_exit_code(int fails, int skips, int strict, int stopped_by)
{
    return fails || (strict && skips) || stopped_by ? EXIT_CHECK : EXIT_OK;
}

/* Node 0: the verdicts printed and written (JUnit, then verdicts.json with the exit code the suite ends with);
 * returns that code: 1 when a check failed or a signal stopped the suite (whatever could not be written: --drain acts
 * on a failed check), 3 when neither but the verdicts could not all be written, else 0. */
int accept_write(struct verdicts *vs, int level, const struct backend_ops *ops, int strict, const char *outdir,
                 const char *junit)
{
    printf("\n");
    accept_print(stdout, vs);
    json_t *j = accept_json(vs);
    json_object_set_new(j, "level", json_integer(level));
    json_object_set_new(j, "backend", json_string(ops->name));
    if (vs->stopped_by) {   /* a stop signal ended it: what ran is judged, the rest SKIP (not run) */
        json_object_set_new(j, "incomplete", json_true());
        json_object_set_new(j, "stopped_by", json_string(strsignal(vs->stopped_by)));
    }
    int fails = (int)json_integer_value(json_object_get(j, "failed")), skips = (int)json_integer_value(json_object_get(j, "skipped"));
    int code = accept_exit_code(fails, skips, strict, vs->stopped_by);
    int junit_ok = !junit || accept_junit(vs, junit) == 0;
    if (!junit_ok) {
        gl_log("--junit %s could not be written (see above)", junit);
        if (code == EXIT_OK)
            code = EXIT_ENV;
    }
    json_object_set_new(j, "exit", json_integer(code));
    char path[1300];
    snprintf(path, sizeof path, "%s/verdicts.json", outdir);
    /* 17 digits, as a run's files: a value a hair under its threshold must not read as equal to it, the opposite of
     * its status (8 until 2026-11-30) */
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    int json_ok = text && write_file_atomic(path, text, strlen(text)) == 0;
    if (!json_ok) {
        gl_log("cannot write %s: %s", path, strerror(errno));
        if (code == EXIT_OK)
            code = EXIT_ENV;
    }
    free(text);
    json_decref(j);
    if (json_ok)
        accept_mark_end(outdir);   /* ended: its verdicts say so (suite.json stays beside none: a killed suite) */
    if (code == EXIT_ENV)
        printf("gauntlet accept: no check failed, but the verdicts could not all be written (exit 3): see above\n");
    else {
        char stop[96] = "";   /* never a PASS: the suite was not judged whole */
        if (vs->stopped_by)
            snprintf(stop, sizeof stop, " (incomplete: the suite was stopped by %s)", strsignal(vs->stopped_by));
        printf("gauntlet accept: %s%s; verdicts in %s%s%s\n", code == EXIT_OK ? "PASS" : "FAIL", stop,
               json_ok ? path : "(not written)", junit_ok && junit ? ", " : "", junit_ok && junit ? junit : "");
    }
    return code;
}

