/* harness/core/cli.h: a command's command line, written once as a table: the parser and the usage text both come from
 * it, so they cannot drift. Every command answers --help and -h with its usage on stdout (exit 0); a wrong argument
 * is named, with the usage on stderr (exit 2). */
#ifndef GAUNTLET_CLI_H
#define GAUNTLET_CLI_H

#include <stdio.h>

#define CLI_MAX_OPTS 24
#define CLI_MAX_OPERANDS 8
#define CLI_HELP 100   /* cli_parse: the usage was asked for (and printed): exit 0 */

struct cli_opt {
    const char *name;    /* "out" for --out */
    const char *value;   /* what its value is ("DIR"); NULL: a flag, no value */
    const char *help;    /* one line */
};

struct cli_cmd {
    const char *name;        /* as typed after gauntlet: "run", "bench sampling" */
    const char *operands;    /* "SCENARIO.yaml", "RUNDIR", "" */
    int min_operands, max_operands;
    const char *summary;     /* one line, for `gauntlet --help` */
    const char *more;        /* what follows the options in its usage (NULL: nothing) */
    struct cli_opt opts[CLI_MAX_OPTS];   /* ended by one with no name */
};

struct cli_args {
    const char *val[CLI_MAX_OPTS];       /* per option of the table: its value ("" for a flag given), NULL: absent */
    const char *operand[CLI_MAX_OPERANDS];
    int n_operands;
};

/* Parses argv[1..argc-1] (argv[0] is the command) against cmd: --name VALUE, --name=VALUE, flags, operands in any
 * order; -- ends the options. Returns 0; CLI_HELP after printing the usage on stdout (--help or -h anywhere); or
 * EXIT_INPUT after naming the wrong argument and printing the usage on stderr. */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, struct cli_args *a);
/* The value of option name (NULL: not given; "" for a flag given). The name must be in the table. */
const char *cli_get(const struct cli_cmd *cmd, const struct cli_args *a, const char *name);
/* Prints cmd's usage: its synopsis, every option with its help, then `more`. */
void cli_usage(const struct cli_cmd *cmd, FILE *f);
/* Names a wrong value of an option (gauntlet CMD: --name VALUE: why) with the usage on stderr; returns EXIT_INPUT. */
int cli_bad(const struct cli_cmd *cmd, const char *name, const char *value, const char *why);

#endif
