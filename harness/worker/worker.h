/* harness/worker/worker.h: a rank's process: the iteration loop on a backend, driven through its control block. */
#ifndef GAUNTLET_WORKER_H
#define GAUNTLET_WORKER_H

/* Entry of `gauntlet __worker FD SLOT DEATHFD DEATHFD` (started by the supervisor, never by hand). Returns the exit
 * code. */
int worker_main(int argc, char **argv);

#endif
