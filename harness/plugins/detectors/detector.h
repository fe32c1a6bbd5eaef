/* harness/plugins/detectors/detector.h: a detector is one const struct in a file of its own, listed once in
 * harness/plugins/detectors/table.c. Worker-side detectors check the rank's own data at a point of the iteration;
 * supervisor-side ones watch all ranks (their processes, heartbeats, fingerprints). */
#ifndef GAUNTLET_DETECTOR_H
#define GAUNTLET_DETECTOR_H

#include <stddef.h>

#include "plugin.h"

#define DETECTOR_OPS_VERSION 1

/* The engine's handle on each detector; detector_table lists them in this order (checked at start). */
enum detector_id { DET_EXIT = 0, DET_HEARTBEAT, DET_FINGERPRINT, DET_ABFT, DET_REPLAY, DET_COMM, DET_COUNT };

struct detector_ops {
    PLUGIN_HEAD;
    int id;               /* enum detector_id */
    int always;           /* on whether or not the scenario lists it (the supervisor cannot miss a death) */
    const char *catches;  /* what it catches, and what it cannot: for `gauntlet list` */
    /* The fault kinds a finding of it can be (comma list; the first is what a finding no injected fault explains is
     * recorded as: an observed fault), and for a slow-rank finding, if it has those (heartbeat: stragglers). */
    const char *finds, *finds_slow;
};

/* Whether a finding of detector det (slow: a slow-rank finding) can be a fault of kind. */
int detector_finds(int det, int slow, const char *kind);
/* The fault kind a finding of det means when no injected fault explains it, as a name, in out. */
void detector_observed_kind(int det, int slow, char *out, size_t n);

extern const struct detector_ops *const detector_table[];

struct replay_params { int64_t every; };
struct fingerprint_params { int async; };
struct heartbeat_params { double factor, min_excess_s; int64_t persist; };

#endif
