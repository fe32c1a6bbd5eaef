/* harness/power/devset.c: device settings through NVML, each change recorded and put back (see devset.h).
 *
 * The calls are resolved from the loaded library by name (nvml_symbol), as the sampler's are: a driver without
 * power smoothing lacks its symbols, and that is an answer (emulate), not an error. Structures and field ids as
 * in NVIDIA's nvml.h of API version 13 (nvmlPowerSmoothingProfile_v1_t, nvmlPowerSmoothingState_v1_t,
 * NVML_FI_PWR_SMOOTHING_*). */
#include "devset.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define DEVSET_MAX 64

typedef struct {
    unsigned int version, profileId, paramId;
    double value;
} ds_profile_t;
typedef struct {
    unsigned int version;
    unsigned int state;   /* nvmlEnableState_t: 0 disabled, 1 enabled */
} ds_state_t;
#define DS_VERSION(type, v) ((unsigned)sizeof(type) | ((unsigned)(v) << 24))

enum { FI_SMOOTH_ENABLED = 256, FI_SMOOTH_LIFETIME = 263, FI_SMOOTH_PROFILE_FLOOR = 265, FI_SMOOTH_PROFILE_UP = 266,
       FI_SMOOTH_PROFILE_DOWN = 267, FI_SMOOTH_PROFILE_HYST = 268, FI_SMOOTH_ACTIVE_PROFILE = 269 };
enum { PARAM_FLOOR = 0, PARAM_UP = 1, PARAM_DOWN = 2, PARAM_HYST = 3 };

enum ds_kind { DS_LIMIT = 1, DS_SMOOTHING };
struct ds_change {
    struct nvml *nv;
    int dev;
    enum ds_kind kind;
    unsigned limit_mw;          /* DS_LIMIT: the limit before */
    unsigned enabled;           /* DS_SMOOTHING: the state before */
    int profile;                /* DS_SMOOTHING: the preset profile active before */
    double params[4];           /* DS_SMOOTHING: profile 0's parameters before */
    char hint[200];             /* what to put back by hand, written when it was recorded (the crash path formats nothing) */
};

/* The fatal signals whose default action skips atexit. SIGINT, SIGTERM and SIGHUP are the supervisor's (it stops in
 * order); SIGXFSZ is ignored in main. Until 2026-11-30 SIGXCPU, SIGTRAP, SIGSYS, SIGUSR1 and SIGUSR2 were not watched
 * and left the settings changed; until 2026-12-02 the timers' (SIGALRM, SIGVTALRM, SIGPROF), SIGIO, SIGPWR and
 * SIGSTKFLT, whose default action ends the process too. */
#define DS_NSIG 17
static struct ds_change changes[DEVSET_MAX];
static int nchanges;
static struct sigaction old_act[DS_NSIG];
static const int crash_sigs[DS_NSIG] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGQUIT, SIGXCPU,
                                         SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT };
#define DS_NSYNC 7   /* the first DS_NSYNC of crash_sigs: the code's own faults, always watched (their handler's return
                      * ends the process all the same: devset_die) */
static volatile sig_atomic_t in_crash;   /* the crash path: no stdio (write(2) only), no second entry */
static volatile sig_atomic_t crash_sig;  /* the signal the crash path is handling */

static int devset_undo(const struct ds_change *c);

/* Writes s to stderr with write(2) alone (async-signal-safe). */
static void devset_say(const char *s)
{
    for (size_t left = strlen(s); left > 0;) {
        ssize_t w = write(STDERR_FILENO, s, left);
        if (w <= 0)
            return;
        s += w;
        left -= (size_t)w;
    }
}

/* Writes every recorded change's hint, one a line, after head. */
static void devset_say_hints(const char *head)
{
    devset_say(head);
    for (int i = nchanges - 1; i >= 0; i--) {
        devset_say("gauntlet:   ");
        devset_say(changes[i].hint);
        devset_say("\n");
    }
}

/* Ends the process with sig as it would have ended without the crash path: the handler before, else the default. */
static void devset_die(int sig)
{
    sigset_t s;
    for (int i = 0; i < DS_NSIG; i++)
        if (crash_sigs[i] == sig)
            sigaction(sig, &old_act[i], NULL);
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(SIG_UNBLOCK, &s, NULL);   /* inside its own handler sig is blocked: it would wait for ever */
    raise(sig);
    signal(sig, SIG_DFL);   /* the handler before returned */
    raise(sig);
    _exit(128 + sig);
}

/* The undo of a crash did not end within 5 s (NVML or the heap's lock is held by the code that crashed): says what
 * to put back by hand, then ends with the crash's own signal (its core dump), not SIGALRM's. Until 2026-11-30 the
 * alarm's default action ended the process silently, the settings changed. */
static void devset_alarm(int sig)
{
    (void)sig;
    devset_say_hints("gauntlet: putting the device settings back after a crash did not finish within 5 s: they may "
                     "still be changed; put them back by hand:\n");
    devset_die(crash_sig);
}

/* A crash of the harness: says what it changed, puts the settings back, then lets the handler before (or the default)
 * run. NVML is not async-signal-safe: if the crash was inside it (or the heap's lock is held), the alarm ends the undo
 * after 5 s (devset_alarm) rather than leaving it hung. */
static void devset_crash(int sig)
{
    if (!in_crash && nchanges > 0) {
        in_crash = 1;
        crash_sig = sig;
        devset_say_hints("gauntlet: a crash with device settings changed: putting them back; if that fails, put them "
                         "back by hand:\n");
        struct sigaction sa = { .sa_handler = devset_alarm };
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGALRM, &sa, NULL) == 0)
            alarm(5);
        for (int i = nchanges - 1; i >= 0; i--)
            devset_undo(&changes[i]);
        nchanges = 0;
        alarm(0);
    }
    devset_die(sig);
}
static void devset_atexit(void) { devset_restore(-1); }

/* The first change arms the exit and crash paths. */
static void devset_arm(void)
{
    static int armed;
    if (armed++)
        return;
    if (atexit(devset_atexit) != 0)
        gl_log("devset: atexit failed: settings are put back at the end of each run only");
    struct sigaction sa = { .sa_handler = devset_crash };
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < DS_NSIG; i++) {
        if (sigaction(crash_sigs[i], &sa, &old_act[i]) != 0) {
            gl_log("devset: cannot watch signal %d: a crash would leave the settings changed", crash_sigs[i]);
            continue;
        }
        /* a signal sent from outside (not a fault of the code: from SIGQUIT on in crash_sigs) that the process
         * ignores or handles does not end it: left as it was (until 2026-12-02 it put the settings back mid-run and
         * ended the process) */
        int sync = i < DS_NSYNC;
        if (!sync && (old_act[i].sa_handler != SIG_DFL || (old_act[i].sa_flags & SA_SIGINFO)) &&
            sigaction(crash_sigs[i], &old_act[i], NULL) != 0)
            gl_log("devset: cannot leave signal %d as it was", crash_sigs[i]);
    }
}

static struct ds_change *devset_find(struct nvml *nv, int dev, enum ds_kind kind)
{
    for (int i = 0; i < nchanges; i++)
        if (changes[i].nv == nv && changes[i].dev == dev && changes[i].kind == kind)
            return &changes[i];
    return NULL;
}

/* Records c, whole, before the change it stands for is made (a crash during the change then puts it back); NULL with
 * why when the table is full. */
static struct ds_change *devset_record(const struct ds_change *c, char *why, size_t n)
{
    if (nchanges == DEVSET_MAX) {
        snprintf(why, n, "devset: more than %d device settings changed at once", DEVSET_MAX);
        return NULL;
    }
    devset_arm();
    changes[nchanges] = *c;
    return &changes[nchanges++];
}

int devset_changed(void) { return nchanges; }

int devset_power_limit(struct nvml *nv, int dev, double watts, double *from_w, char *why, size_t n)
{
    nvmlReturn_t (*get)(nvmlDevice_t, unsigned *) = (nvmlReturn_t(*)(nvmlDevice_t, unsigned *))nvml_symbol(nv, "nvmlDeviceGetPowerManagementLimit");
    nvmlReturn_t (*range)(nvmlDevice_t, unsigned *, unsigned *) =
        (nvmlReturn_t(*)(nvmlDevice_t, unsigned *, unsigned *))nvml_symbol(nv, "nvmlDeviceGetPowerManagementLimitConstraints");
    nvmlReturn_t (*set)(nvmlDevice_t, unsigned) = (nvmlReturn_t(*)(nvmlDevice_t, unsigned))nvml_symbol(nv, "nvmlDeviceSetPowerManagementLimit");
    nvmlDevice_t h = nvml_handle(nv, dev);
    char eb[128];
    unsigned cur = 0, lo = 0, hi = 0;
    nvmlReturn_t r;
    if (!h || !get || !range || !set) {
        snprintf(why, n, "GPU %d: NVML (%s) cannot set the power limit here (%s)", dev, nvml_library(nv),
                 !h ? "no device handle" : "nvmlDevice{Get,Set}PowerManagementLimit[Constraints] missing");
        return -1;
    }
    if ((r = get(h, &cur)) != NVML_SUCCESS || (r = range(h, &lo, &hi)) != NVML_SUCCESS) {
        snprintf(why, n, "GPU %d: reading the power limit and its range: %s", dev, nvml_error_text(nv, r, eb, sizeof eb));
        return -1;
    }
    if (from_w)
        *from_w = cur * 1e-3;
    if (!(watts * 1e3 >= lo && watts * 1e3 <= hi)) {
        snprintf(why, n, "GPU %d: a power limit of %.0f W is outside what it takes: %.0f..%.0f W", dev, watts, lo * 1e-3,
                 hi * 1e-3);
        return -1;
    }
    int first = devset_find(nv, dev, DS_LIMIT) == NULL;
    struct ds_change rec = { .nv = nv, .dev = dev, .kind = DS_LIMIT, .limit_mw = cur };
    snprintf(rec.hint, sizeof rec.hint, "GPU %d: power limit %.0f W: nvidia-smi -i %d -pl %.0f", dev, cur * 1e-3, dev,
             cur * 1e-3);
    if (first && !devset_record(&rec, why, n))
        return -1;
    if ((r = set(h, (unsigned)(watts * 1e3 + 0.5))) != NVML_SUCCESS) {
        snprintf(why, n, "GPU %d: nvmlDeviceSetPowerManagementLimit(%.0f W): %s%s", dev, watts,
                 nvml_error_text(nv, r, eb, sizeof eb),
                 r == NVML_ERROR_NO_PERMISSION ? " (root, or an administrator's permission, is needed)" : "");
        if (first)   /* a failed first attempt leaves nothing to put back */
            nchanges--;
        return -1;
    }
    return 0;
}

/* Reads field fid (scope: a profile) as a double; NAN when not reported. */
static double devset_field(struct nvml *nv, nvmlDevice_t h, unsigned fid, unsigned scope)
{
    nvmlReturn_t (*fv)(nvmlDevice_t, int, nvmlFieldValue_t *) =
        (nvmlReturn_t(*)(nvmlDevice_t, int, nvmlFieldValue_t *))nvml_symbol(nv, "nvmlDeviceGetFieldValues");
    nvmlFieldValue_t v = { .fieldId = fid, .scopeId = scope };
    if (!fv || fv(h, 1, &v) != NVML_SUCCESS || v.nvmlReturn != NVML_SUCCESS)
        return NAN;
    switch (v.valueType) {
    case NVML_VALUE_TYPE_DOUBLE: return v.value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return v.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return (double)v.value.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return (double)v.value.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return (double)v.value.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT: return v.value.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return v.value.usVal;
    default: return NAN;
    }
}

typedef nvmlReturn_t (*ds_state_fn)(nvmlDevice_t, ds_state_t *);
typedef nvmlReturn_t (*ds_profile_fn)(nvmlDevice_t, ds_profile_t *);

/* Reads what a smoothing change would replace (the active profile, profile 0's four parameters) into c with its hint;
 * 0, or 1 with why where one is not reported: a change that could not be put back is refused (the caller emulates).
 * Until 2026-11-30 the change went ahead and profile 0's parameters, or the profile active before, stayed as
 * gauntlet set them. */
static int devset_smoothing_before(struct nvml *nv, nvmlDevice_t h, struct ds_change *c, char *why, size_t n)
{
    static const char *const names[4] = { "floor", "ramp-up rate", "ramp-down rate", "ramp-down hysteresis" };
    double prof = devset_field(nv, h, FI_SMOOTH_ACTIVE_PROFILE, 0);
    if (!(isfinite(prof) && prof >= 0 && prof < 64 && prof == floor(prof))) {
        snprintf(why, n, "GPU %d: the active power smoothing profile is not reported (NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_"
                 "PROFILE): it could not be made active again, so power smoothing is not changed", c->dev);
        return 1;
    }
    c->profile = (int)prof;
    for (unsigned p = 0; p < 4; p++)
        if (!isfinite(c->params[p] = devset_field(nv, h, FI_SMOOTH_PROFILE_FLOOR + p, 0))) {
            snprintf(why, n, "GPU %d: power smoothing profile 0's %s is not reported (NVML_FI_PWR_SMOOTHING_PROFILE_*): "
                     "it could not be put back, so power smoothing is not changed", c->dev, names[p]);
            return 1;
        }
    snprintf(c->hint, sizeof c->hint, "GPU %d: power smoothing %s, preset profile %d active, profile 0: floor %g %%, "
             "ramp up %g W/s, down %g W/s, hysteresis %g ms (nvidia-smi -q -d POWER)", c->dev, c->enabled ? "on" : "off",
             c->profile, c->params[0], c->params[1], c->params[2], c->params[3]);
    return 0;
}

int devset_smoothing_on(struct nvml *nv, int dev, const struct devset_smoothing *req, struct devset_smoothing_readback *out,
                        char *why, size_t n)
{
    ds_state_fn set_state = (ds_state_fn)nvml_symbol(nv, "nvmlDevicePowerSmoothingSetState");
    ds_profile_fn update = (ds_profile_fn)nvml_symbol(nv, "nvmlDevicePowerSmoothingUpdatePresetProfileParam");
    ds_profile_fn activate = (ds_profile_fn)nvml_symbol(nv, "nvmlDevicePowerSmoothingActivatePresetProfile");
    nvmlDevice_t h = nvml_handle(nv, dev);
    char eb[128];
    if (!h || !set_state || !update || !activate) {
        snprintf(why, n, "NVML (%s) has no power smoothing calls (a driver before R570, or no handle for GPU %d)",
                 nvml_library(nv), dev);
        return 1;
    }
    double before_enabled = devset_field(nv, h, FI_SMOOTH_ENABLED, 0);
    if (isnan(before_enabled)) {
        snprintf(why, n, "GPU %d has no firmware power smoothing (NVML_FI_PWR_SMOOTHING_ENABLED not reported)", dev);
        return 1;
    }
    struct ds_change *c = devset_find(nv, dev, DS_SMOOTHING);
    int fresh = c == NULL;
    if (fresh) {   /* what is there now, to put back; dropped again if the change does not take */
        struct ds_change rec = { .nv = nv, .dev = dev, .kind = DS_SMOOTHING, .enabled = before_enabled > 0 };
        if (devset_smoothing_before(nv, h, &rec, why, n) != 0)
            return 1;
        if (!(c = devset_record(&rec, why, n)))
            return -1;
    }
    const double want[4] = { req->floor_pct, req->ramp_up_w_s, req->ramp_down_w_s, req->hysteresis_ms };
    nvmlReturn_t r = NVML_SUCCESS;
    unsigned p = 0;
    for (; p < 4 && r == NVML_SUCCESS; p++) {
        ds_profile_t pr = { DS_VERSION(ds_profile_t, 1), 0, p, want[p] };
        if ((r = update(h, &pr)) != NVML_SUCCESS)
            snprintf(why, n, "GPU %d: power smoothing profile 0 parameter %u = %g: %s", dev, p, want[p],
                     nvml_error_text(nv, r, eb, sizeof eb));
    }
    ds_profile_t pr = { DS_VERSION(ds_profile_t, 1), 0, 0, 0 };
    ds_state_t st = { DS_VERSION(ds_state_t, 1), 1 };
    if (r == NVML_SUCCESS && ((r = activate(h, &pr)) != NVML_SUCCESS || (r = set_state(h, &st)) != NVML_SUCCESS))
        snprintf(why, n, "GPU %d: turning power smoothing on: %s", dev, nvml_error_text(nv, r, eb, sizeof eb));
    if (r != NVML_SUCCESS) {
        if (fresh) {   /* put back what took (the parameters before the failing one), forget the record */
            if (p > 1 && devset_undo(c) != 0 && strlen(why) + 1 < n)
                snprintf(why + strlen(why), n - strlen(why), "; what took could NOT be put back (logged)");
            nchanges--;
        }
        return r == NVML_ERROR_NOT_SUPPORTED ? 1 : -1;
    }
    if (out) {
        out->enabled = devset_field(nv, h, FI_SMOOTH_ENABLED, 0) > 0;
        double prof = devset_field(nv, h, FI_SMOOTH_ACTIVE_PROFILE, 0);
        out->profile = isfinite(prof) ? (int)prof : -1;
        out->floor_pct = devset_field(nv, h, FI_SMOOTH_PROFILE_FLOOR, 0);
        out->ramp_up_w_s = devset_field(nv, h, FI_SMOOTH_PROFILE_UP, 0);
        out->ramp_down_w_s = devset_field(nv, h, FI_SMOOTH_PROFILE_DOWN, 0);
        out->hysteresis_ms = devset_field(nv, h, FI_SMOOTH_PROFILE_HYST, 0);
        out->lifetime_left_pct = devset_field(nv, h, FI_SMOOTH_LIFETIME, 0);
    }
    return 0;
}

/* Says, after a crash, that change c could NOT be put back and what to put back by hand (write(2) alone). */
static void devset_crash_failed(const struct ds_change *c)
{
    devset_say("gauntlet: after a crash a device setting could NOT be put back: ");
    devset_say(c->hint);
    devset_say("\n");
}

/* Puts one change back; 0 or -1 (logged, with the call that failed and what to put back by hand). */
static int devset_undo(const struct ds_change *c)
{
    nvmlDevice_t h = nvml_handle(c->nv, c->dev);
    char eb[128];
    nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
    if (c->kind == DS_LIMIT) {
        nvmlReturn_t (*set)(nvmlDevice_t, unsigned) =
            (nvmlReturn_t(*)(nvmlDevice_t, unsigned))nvml_symbol(c->nv, "nvmlDeviceSetPowerManagementLimit");
        if (h && set && (r = set(h, c->limit_mw)) == NVML_SUCCESS)
            return 0;
        if (in_crash)   /* no stdio in a signal handler */
            devset_crash_failed(c);
        else
            gl_log("devset: GPU %d: the power limit could NOT be put back to %.0f W: %s (nvidia-smi -i %d -pl %.0f)", c->dev,
                   c->limit_mw * 1e-3, h ? nvml_error_text(c->nv, r, eb, sizeof eb) : "no device handle", c->dev,
                   c->limit_mw * 1e-3);
        return -1;
    }
    ds_state_fn set_state = (ds_state_fn)nvml_symbol(c->nv, "nvmlDevicePowerSmoothingSetState");
    ds_profile_fn update = (ds_profile_fn)nvml_symbol(c->nv, "nvmlDevicePowerSmoothingUpdatePresetProfileParam");
    ds_profile_fn activate = (ds_profile_fn)nvml_symbol(c->nv, "nvmlDevicePowerSmoothingActivatePresetProfile");
    const char *step = !h ? "no device handle" : !update || !activate || !set_state ? "its calls are gone" : NULL;
    for (unsigned p = 0; !step && p < 4; p++) {
        ds_profile_t pr = { DS_VERSION(ds_profile_t, 1), 0, p, c->params[p] };
        if ((r = update(h, &pr)) != NVML_SUCCESS)
            step = "profile 0's parameters";
    }
    if (!step && c->profile > 0) {   /* the administrator's profile, active again */
        ds_profile_t pr = { DS_VERSION(ds_profile_t, 1), (unsigned)c->profile, 0, 0 };
        if ((r = activate(h, &pr)) != NVML_SUCCESS)
            step = "activating its profile";
    }
    ds_state_t st = { DS_VERSION(ds_state_t, 1), c->enabled };
    if (!step && (r = set_state(h, &st)) != NVML_SUCCESS)
        step = "setting its state";
    if (!step)
        return 0;
    if (in_crash)
        devset_crash_failed(c);
    else   /* an NVML error text only where a call failed */
        gl_log("devset: %s: could NOT be put back (%s%s%s)", c->hint, step, h && update && activate && set_state ? ": " : "",
               h && update && activate && set_state ? nvml_error_text(c->nv, r, eb, sizeof eb) : "");
    return -1;
}

int devset_restore(int dev)
{
    int failed = 0, keep = 0;
    for (int i = nchanges - 1; i >= 0; i--)
        if (dev < 0 || changes[i].dev == dev)
            failed += devset_undo(&changes[i]) != 0;
    for (int i = 0; i < nchanges; i++)   /* what was put back (or tried) is forgotten */
        if (!(dev < 0 || changes[i].dev == dev))
            changes[keep++] = changes[i];
    nchanges = keep;
    return failed;
}
