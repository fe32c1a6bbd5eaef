/* harness/report/report.h: `gauntlet report RUNDIR`. */
#ifndef GAUNTLET_REPORT_H
#define GAUNTLET_REPORT_H

#include "cli.h"

/* Prints the comparison table and writes RUNDIR/report.txt and RUNDIR/report.svg; returns the exit code. */
int report_main(int argc, char **argv);
extern const struct cli_cmd report_cli;

#endif
