/* harness/detectors/heartbeat.c: a rank silent for heartbeat.timeout is hung; a rank whose iteration takes
 * more than `factor` times the median of its peers is a straggler. */
#include <stddef.h>

#include "detector.h"

static const struct param heartbeat_params[] = {
    { "factor", PT_DOUBLE, offsetof(struct heartbeat_params, factor), .def = "2", .min = 1.01, .max = 1000,
      .help = "an iteration longer than factor x the peers' median marks a straggler" },
    { 0 },
};

const struct detector_ops detector_heartbeat = {
    .version = DETECTOR_OPS_VERSION,
    .name = "heartbeat",
    .help = "hang: no heartbeat for heartbeat.timeout; straggler: iteration > factor x the median",
    .params = heartbeat_params,
    .params_size = sizeof(struct heartbeat_params),
    .id = DET_HEARTBEAT,
    .always = 1,
    .catches = "hang (after heartbeat.timeout), straggler (after one slow iteration)",
};
