/* harness/plugins/detectors/heartbeat.c: a rank silent for heartbeat.timeout is hung; a rank whose compute phase takes
 * more than `factor` times the median of its peers' (and at least `min_excess` more) is a straggler. */
#include <stddef.h>

#include "detector.h"

static const struct param heartbeat_params[] = {
    { "factor", PT_DOUBLE, offsetof(struct heartbeat_params, factor), .def = "2", .min = 1.01, .max = 1000,
      .help = "a compute phase longer than factor x the peers' median marks a straggler" },
    { "min_excess", PT_DURATION, offsetof(struct heartbeat_params, min_excess_s), .def = "20ms", .min = 0, .max = 3600,
      .help = "... and longer than that median by at least this (scheduling noise is not a straggler)" },
    { "persist", PT_INT, offsetof(struct heartbeat_params, persist), .def = "2", .min = 1, .max = 1000,
      .help = "... in this many compute phases in a row (a one-off stall is not a straggler)" },
    { 0 },
};

const struct detector_ops detector_heartbeat = {
    .version = DETECTOR_OPS_VERSION,
    .name = "heartbeat",
    .help = "hang: no heartbeat for heartbeat.timeout; straggler: compute phase > factor x the peers' median",
    .params = heartbeat_params,
    .params_size = sizeof(struct heartbeat_params),
    .id = DET_HEARTBEAT,
    .always = 1,
    .catches = "hang (after heartbeat.timeout), straggler (after one slow iteration)",
    .finds = "hang",
    .finds_slow = "straggler",
    .point = -1,   /* the supervisor's side */
};
