/* harness/run/progress.h: the headless progress lines as a view (progress.c), behind the same interface as
 * the live one (struct view_link): a run without a terminal, or with --headless, gets this one. */
#ifndef GAUNTLET_PROGRESS_H
#define GAUNTLET_PROGRESS_H

#include "supervisor.h"

/* A new progress view (print lines on stdout); progress_view_close frees it. */
const struct view_link *progress_view_open(void);
void progress_view_close(const struct view_link *v);

#endif
