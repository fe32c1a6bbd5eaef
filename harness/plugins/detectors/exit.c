/* harness/plugins/detectors/exit.c: a rank's process death, seen by the supervisor at once (SIGCHLD, waitpid). */
#include "detector.h"

const struct detector_ops detector_exit = {
    .version = DETECTOR_OPS_VERSION,
    .name = "exit",
    .help = "process death, seen by the supervisor at once (SIGCHLD)",
    .id = DET_EXIT,
    .always = 1,
    .catches = "crash; cannot see a rank that is alive but wrong or stuck",
    .finds = "crash,node-crash",
    .point = -1,   /* the supervisor's side */
    .once = 1,
};
