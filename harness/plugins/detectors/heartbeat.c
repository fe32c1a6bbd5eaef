/* harness/plugins/detectors/heartbeat.c: a rank silent for heartbeat.timeout is hung; a rank whose compute phase takes
 * more than `factor` times the median of its peers' (and at least `min_excess` more) is a straggler. */
#include <stddef.h>
#include <stdio.h>

#include "detector.h"

/* The supervisor's side: a straggler is slower than factor x its peers' median and by min_excess, persist times in a
 * row. */
static int heartbeat_slow(const void *params, double dur, double *v, int n, int *count, char *note, size_t len)
{
    const struct heartbeat_params *hp = params;
    if (n == 0)
        return 0;
    for (int i = 1; i < n; i++)   /* insertion sort: few ranks */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    double median = v[n / 2];
    int slow = median > 0 && dur > hp->factor * median && dur - median > hp->min_excess_s;
    *count = slow ? *count + 1 : 0;
    if (!slow || *count < hp->persist)
        return 0;
    snprintf(note, len, "compute phase %.4f s, %.1fx the peers' median %.4f s", dur, dur / median, median);
    return 1;
}

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
    .catches = "hang (after heartbeat.timeout), straggler (after `persist` slow compute phases in a row, default 2)",
    .finds = "hang",
    .finds_slow = "straggler",
    .point = -1,   /* the supervisor's side */
    .once = 1,     /* a hang: its process is killed and replaced */
    .slow = heartbeat_slow,
};
