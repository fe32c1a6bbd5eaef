/* harness/power/devset.h: the device settings a mitigation may change through NVML — the power limit (`cap`) and
 * the firmware's power smoothing (`smoothing`, where the GPU and driver offer it) — only when the user passed
 * --allow-device-settings. Every change is recorded with the value it replaced, and put back at the end of the
 * run, at exit() (atexit), on SIGINT/SIGTERM/SIGHUP (the supervisor stops in order) and on a crash of the
 * harness (a handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT, SIGXCPU, SIGTRAP, SIGSYS, SIGUSR1 and
 * SIGUSR2, which first writes what to put back by hand, and again when the undo does not end within 5 s). Only
 * SIGKILL of the harness leaves a change in place: the `device_setting` event names the value to put back by hand
 * (nvidia-smi -pl). A change that could not be put back (what it replaces is not reported) is refused. */
#ifndef GAUNTLET_DEVSET_H
#define GAUNTLET_DEVSET_H

#include <stddef.h>

#include "nvml.h"

/* What the firmware's power smoothing is asked for, and what it reads back. */
struct devset_smoothing {
    double floor_pct;      /* minimum power, % of TDP */
    double ramp_up_w_s, ramp_down_w_s;
    double hysteresis_ms;  /* ramp-down hysteresis */
};
struct devset_smoothing_readback {
    int enabled;
    double floor_pct, ramp_up_w_s, ramp_down_w_s, hysteresis_ms;
    double lifetime_left_pct;   /* the smoothing circuitry's remaining lifetime (NAN: not reported) */
    int profile;
};

/* Sets device dev's power limit to watts (clamped to nothing: outside the device's range is an error naming
 * it). The first change of a device records its limit then. 0, or -1 with why. from_w gets the limit before. */
int devset_power_limit(struct nvml *nv, int dev, double watts, double *from_w, char *why, size_t n);
/* Turns the firmware's power smoothing on with r (preset profile 0) and reads it back. 0 applied; 1 the GPU
 * or driver has no power smoothing, or does not report what the change would replace (the active profile, profile
 * 0's parameters) so that it could not be put back (why says which: the caller emulates it); -1 an error with why. */
int devset_smoothing_on(struct nvml *nv, int dev, const struct devset_smoothing *r, struct devset_smoothing_readback *out,
                        char *why, size_t n);
/* Puts back every setting changed on device dev (dev < 0: on every device), newest first; safe to repeat.
 * Returns the number of settings that could not be put back (each logged). */
int devset_restore(int dev);
/* How many settings are changed now. */
int devset_changed(void);

#endif
