/* harness/run/supdev.c: the device settings of a run's mitigation, on the supervisor's side — `cap` sets every
 * rank's GPU power limit, `smoothing` turns the firmware's power smoothing on where every GPU has it — only with
 * --allow-device-settings, each put back when the run ends (and on every exit: devset.h). Without permission,
 * on a GPU without smoothing, or on sim, smoothing is the workers' software emulation, and the `smoothing`
 * event and the run's summary say which ran and why. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "mitigations/mitigation.h"
#include "run.h"

/* Smoothing runs as the emulation: says so, and why. */
static void supdev_emulated(struct sup *s, int m, json_t *o, const char *why)
{
    json_object_set_new(o, "smoothing", json_string("emulated"));
    json_object_set_new(o, "smoothing_why", json_string(why));
    results_event(&s->res, mono_ns(), "smoothing", json_pack("{s:i, s:s, s:s}", "run", m, "mode", "emulated", "why", why));
}

/* The rank's GPU power limit in watts (NAN: not known). */
static double supdev_tdp(struct sup *s, int r)
{
    uint64_t mw = atomic_load(&shm_ctl(&s->shm, s->slot_of[r])->tdp_mw);
    return mw ? (double)mw * 1e-3 : NAN;
}

json_t *supdev_run_begin(struct sup *s, int m)
{
    const struct plugin_spec *spec = &s->sc->mitigations[m];
    const struct mitigation_ops *mo = mitigation_table[spec->index];
    json_t *o = json_object();
    char why[512];
    atomic_store(&s->shm.hdr->fw_smoothing, 0);
    if (mo->device == MIT_DEV_NONE)
        return o;
    if (!s->ops->set_power_limit) {   /* sim: the model caps and smooths */
        if (mo->device == MIT_DEV_SMOOTHING)
            supdev_emulated(s, m, o, "the sim backend models smoothing (floor and ramps)");
        return o;
    }
    if (!s->sc->allow_device_settings) {   /* cap was refused before the run (exit 2) */
        supdev_emulated(s, m, o, "firmware smoothing is a device setting: not without --allow-device-settings");
        return o;
    }
    json_t *per = json_array();
    int changed = 0, emulate = 0;
    for (int r = 0; r < s->nranks && !emulate; r++) {
        if (s->dropped[r])
            continue;
        double tdp = supdev_tdp(s, r), from = NAN;
        int rc;
        if (mo->device == MIT_DEV_CAP) {
            double w = mitigation_watts(&((const struct cap_params *)spec->params)->cap, tdp);
            if (!isfinite(w)) {
                snprintf(why, sizeof why, "rank %d: cap in %% of TDP, but its GPU's TDP is not known (no NVML)", r);
                rc = -1;
            } else if ((rc = s->ops->set_power_limit(s->ps, s->slot_of[r], w, &from, why, sizeof why)) == 0) {
                char hand[192];
                snprintf(hand, sizeof hand, "nvidia-smi -i %s -pl %.0f", shm_ctl(&s->shm, s->slot_of[r])->device, from);
                results_event(&s->res, mono_ns(), "device_setting",
                              json_pack("{s:i, s:i, s:s, s:o, s:f, s:s}", "run", m, "rank", r, "setting", "power_limit",
                                        "from_w", json_num(from), "to_w", w, "put_back_by_hand", hand));
                json_array_append_new(per, json_pack("{s:i, s:o, s:f}", "rank", r, "from_w", json_num(from), "to_w", w));
            }
        } else {
            const struct smoothing_params *p = (const struct smoothing_params *)spec->params;
            double floor_w = mitigation_watts(&p->floor, tdp);
            struct devset_smoothing req = { .floor_pct = p->floor.percent ? p->floor.value : 100 * floor_w / tdp,
                                            .ramp_up_w_s = p->ramp_up_w_s, .ramp_down_w_s = p->ramp_down_w_s,
                                            .hysteresis_ms = p->hysteresis_s * 1e3 };
            struct devset_smoothing_readback rb;
            rc = isfinite(req.floor_pct) ? s->ops->set_smoothing(s->ps, s->slot_of[r], &req, &rb, why, sizeof why) : 1;
            if (rc == 1 && !isfinite(req.floor_pct))
                snprintf(why, sizeof why, "rank %d: a floor in W, but its GPU's TDP is not known", r);
            if (rc == 1)
                emulate = 1;
            else if (rc == 0)
                json_array_append_new(per, json_pack("{s:i, s:b, s:i, s:o, s:o, s:o, s:o, s:o}", "rank", r, "enabled",
                                                     rb.enabled, "profile", rb.profile, "floor_pct", json_num(rb.floor_pct),
                                                     "ramp_up_w_s", json_num(rb.ramp_up_w_s), "ramp_down_w_s",
                                                     json_num(rb.ramp_down_w_s), "hysteresis_ms",
                                                     json_num(rb.hysteresis_ms), "lifetime_left_pct",
                                                     json_num(rb.lifetime_left_pct)));
        }
        if (rc < 0) {
            char msg[700];
            snprintf(msg, sizeof msg, "mitigation %s: %s", spec->name, why);
            json_decref(per);
            if (changed && s->ops->restore_settings)
                s->ops->restore_settings(s->ps);
            sup_fail(s, SUP_STOP_MITIGATION, msg);
            return o;
        }
        changed += rc == 0;
    }
    if (emulate) {   /* one GPU without it: every GPU emulates, the same mitigation everywhere */
        if (changed && s->ops->restore_settings)
            s->ops->restore_settings(s->ps);
        json_decref(per);
        supdev_emulated(s, m, o, why);
        return o;
    }
    if (mo->device == MIT_DEV_SMOOTHING) {
        atomic_store(&s->shm.hdr->fw_smoothing, 1);
        json_object_set_new(o, "smoothing", json_string("firmware"));
        results_event(&s->res, mono_ns(), "smoothing", json_pack("{s:i, s:s, s:O}", "run", m, "mode", "firmware", "gpus", per));
    }
    json_object_set_new(o, "settings", per);
    json_object_set_new(o, "changed", json_integer(changed));
    return o;
}

void supdev_run_end(struct sup *s, int m, json_t *o)
{
    if (!json_integer_value(json_object_get(o, "changed")) || !s->ops->restore_settings)
        return;
    int failed = s->ops->restore_settings(s->ps);
    results_event(&s->res, mono_ns(), "device_settings_restored", json_pack("{s:i, s:i}", "run", m, "failed", failed));
    if (failed)
        json_object_set_new(o, "not_restored", json_integer(failed));
    atomic_store(&s->shm.hdr->fw_smoothing, 0);
}
