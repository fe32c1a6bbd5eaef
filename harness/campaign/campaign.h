/* harness/campaign/campaign.h: `gauntlet campaign`: random fault schedules, each run under every recovery strategy
 * named, every run checked against the invariants a fault record must keep (docs/faults.md, "Fault
 * campaigns"). */
#ifndef GAUNTLET_CAMPAIGN_H
#define GAUNTLET_CAMPAIGN_H

#include "cli.h"

/* Entry of `gauntlet campaign [OPTIONS]`; exit 0 when every invariant held, 1 when one broke, 2 bad
 * arguments, 3 environment. */
int campaign_main(int argc, char **argv);
extern const struct cli_cmd campaign_cli;

#endif
