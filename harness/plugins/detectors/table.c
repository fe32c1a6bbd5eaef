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

/* Whether the comma list holds name. */
static int list_has(const char *list, const char *name)
{
    size_t k = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t l = strcspn(p, ",");
        if (l == k && strncmp(p, name, k) == 0)
            return 1;
        p += l + (p[l] == ',');
    }
    return 0;
}

int detector_sees(int det, const char *target)
{
    const struct detector_ops *d = det >= 0 && det < DET_COUNT ? detector_table[det] : NULL;
    return d && (!d->sees || list_has(d->sees, target));
}

int detector_finds(int det, int slow, const char *kind)
{
    const struct detector_ops *d = det >= 0 && det < DET_COUNT ? detector_table[det] : NULL;
    const char *list = d ? (slow && d->finds_slow ? d->finds_slow : d->finds) : NULL;
    return list_has(list, kind);
}

void detector_observed_kind(int det, int slow, char *out, size_t n)
{
    const struct detector_ops *d = det >= 0 && det < DET_COUNT ? detector_table[det] : NULL;
    const char *list = d ? (slow && d->finds_slow ? d->finds_slow : d->finds) : "";
    size_t l = strcspn(list ? list : "", ",");
    snprintf(out, n, "%.*s", (int)l, list ? list : "");
}
