/* harness/plugins/detectors/table.c: the one list of detectors, in enum detector_id order. */
#include "detector.h"

extern const struct detector_ops detector_exit, detector_heartbeat, detector_fingerprint, detector_abft,
    detector_replay, detector_comm;

const struct detector_ops *const detector_table[] = {
    &detector_exit, &detector_heartbeat, &detector_fingerprint, &detector_abft, &detector_replay, &detector_comm, NULL,
};

const struct plugin_kind plugin_detectors = { "detector", (const struct plugin_ops *const *)detector_table,
                                              DETECTOR_OPS_VERSION };
