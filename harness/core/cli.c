/* harness/core/cli.c: parsing a command line against its table, and the usage from the same table (cli.h). */
#include "cli.h"

#include <string.h>

#include "util.h"

static int cli_find(const struct cli_cmd *cmd, const char *name, size_t len)
{
    for (int i = 0; i < CLI_MAX_OPTS && cmd->opts[i].name; i++)
        if (strlen(cmd->opts[i].name) == len && strncmp(cmd->opts[i].name, name, len) == 0)
            return i;
    return -1;
}

void cli_usage(const struct cli_cmd *cmd, FILE *f)
{
    fprintf(f, "usage: gauntlet %s%s%s%s\n", cmd->name, cmd->operands[0] ? " " : "", cmd->operands,
            cmd->opts[0].name ? " [OPTIONS]" : "");
    fprintf(f, "  %s\n", cmd->summary);
    if (cmd->opts[0].name)
        fprintf(f, "\noptions:\n");
    for (int i = 0; i < CLI_MAX_OPTS && cmd->opts[i].name; i++) {
        char head[64];
        snprintf(head, sizeof head, "--%s%s%s", cmd->opts[i].name, cmd->opts[i].value ? " " : "",
                 cmd->opts[i].value ? cmd->opts[i].value : "");
        fprintf(f, "  %-24s %s\n", head, cmd->opts[i].help);
    }
    fprintf(f, "  %-24s %s\n", "-h, --help", "this text");
    if (cmd->more)
        fprintf(f, "\n%s", cmd->more);
    fprintf(f, "\nexit codes: 0 ok, 1 a check failed or the run ended early, 2 bad input, 3 environment\n");
}

/* Says what was wrong and shows the usage; returns EXIT_INPUT. */
static int cli_wrong(const struct cli_cmd *cmd, const char *fmt, const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    gl_log("%s", msg);
    fputc('\n', stderr);
    cli_usage(cmd, stderr);
    return EXIT_INPUT;
}

int cli_bad(const struct cli_cmd *cmd, const char *name, const char *value, const char *why)
{
    char msg[512];
    snprintf(msg, sizeof msg, "--%s %s: %s", name, value ? value : "", why);
    return cli_wrong(cmd, "%s%s", msg, "");
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, struct cli_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {   /* help first: `gauntlet run --bogus --help` still helps (an option's value is
                                        * no help: `--run -h` is refused below, until 2026-11-30 it helped) */
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_usage(cmd, stdout);
            return stdout_done() == 0 ? CLI_HELP : EXIT_ENV;   /* not written (a closed pipe): exit 3, as `check` */
        } else if (strcmp(argv[i], "--") == 0) {
            break;
        }
        int k = argv[i][0] == '-' && argv[i][1] == '-' && !strchr(argv[i], '=') ? cli_find(cmd, argv[i] + 2, strlen(argv[i] + 2)) : -1;
        if (k >= 0 && cmd->opts[k].value)
            i++;
    }
    int options = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (options && strcmp(s, "--") == 0) {
            options = 0;
            continue;
        }
        if (options && s[0] == '-' && s[1] == '-' && s[2]) {
            const char *eq = strchr(s + 2, '=');
            size_t len = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
            int k = cli_find(cmd, s + 2, len);
            if (k < 0)
                return cli_wrong(cmd, "unknown option '%s'%s", s, "");
            if (a->val[k])   /* until 2026-11-30 the last one counted, the others silently dropped */
                return cli_wrong(cmd, "--%s given twice%s", cmd->opts[k].name, "");
            if (!cmd->opts[k].value) {
                if (eq)
                    return cli_wrong(cmd, "%s takes no value%s", cmd->opts[k].name, "");
                a->val[k] = "";
            } else if (eq) {
                a->val[k] = eq + 1;
            } else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) == 0) {
                /* `--out --headless` took the option for the folder (until 2026-11-30): a value that looks like an
                 * option is written --out=VALUE */
                char what[160];
                snprintf(what, sizeof what, "--%s: expected %s after it", cmd->opts[k].name, cmd->opts[k].value);
                return cli_wrong(cmd, "%s, got the option '%s' (a value that starts with '--': --NAME=VALUE)", what,
                                 argv[i + 1]);
            } else if (i + 1 < argc) {
                a->val[k] = argv[++i];
            } else {
                return cli_wrong(cmd, "--%s: expected %s after it", cmd->opts[k].name, cmd->opts[k].value);
            }
            continue;
        }
        if (options && s[0] == '-' && s[1])
            return cli_wrong(cmd, "unknown option '%s'%s", s, "");
        if (a->n_operands >= cmd->max_operands || a->n_operands >= CLI_MAX_OPERANDS)
            return cli_wrong(cmd, "unexpected argument '%s'%s", s, "");
        a->operand[a->n_operands++] = s;
    }
    if (a->n_operands < cmd->min_operands)
        return cli_wrong(cmd, "expected %s%s", cmd->operands, "");
    return 0;
}

const char *cli_get(const struct cli_cmd *cmd, const struct cli_args *a, const char *name)
{
    int k = cli_find(cmd, name, strlen(name));
    if (k < 0)
        gl_die(EXIT_ENV, "internal: option --%s is not in the table of %s", name, cmd->name);
    return a->val[k];
}
