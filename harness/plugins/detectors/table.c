/* harness/plugins/detectors/table.c: the one list of detectors, in enum detector_id order. */
#include <stdio.h>
#include <string.h>

#include "detector.h"

extern const struct detector_ops detector_exit, detector_heartbeat, detector_fingerprint, detector_abft,
    detector_replay, detector_comm;

const struct detector_ops *const detector_table[] = {
    &detector_exit, &detector_heartbeat, &detector_fingerprint, &detector_abft, &detector_replay, &detector_comm, NULL,
};

const struct plugin_kind plugin_detectors = { "detector", (const struct plugin_ops *const *)detector_table,
                                              DETECTOR_OPS_VERSION };

int detector_finds(int det, int slow, const char *kind)
{
    const struct detector_ops *d = det >= 0 && det < DET_COUNT ? detector_table[det] : NULL;
    const char *list = d ? (slow && d->finds_slow ? d->finds_slow : d->finds) : NULL;
    size_t k = strlen(kind);
    for (const char *p = list; p && *p;) {
        size_t l = strcspn(p, ",");
        if (l == k && strncmp(p, kind, k) == 0)
            return 1;
        p += l + (p[l] == ',');
    }
    return 0;
}

void detector_observed_kind(int det, int slow, char *out, size_t n)
{
    const struct detector_ops *d = det >= 0 && det < DET_COUNT ? detector_table[det] : NULL;
    const char *list = d ? (slow && d->finds_slow ? d->finds_slow : d->finds) : "";
    size_t l = strcspn(list ? list : "", ",");
    snprintf(out, n, "%.*s", (int)l, list ? list : "");
}
