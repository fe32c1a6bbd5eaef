/* tests/nvml_standin.c: a scripted stand-in for libnvidia-ml.so.1, loaded by the tests through
 * GAUNTLET_NVML_LIB. It serves known values and exports a deliberate subset of NVML:
 *   - nvmlDeviceGetCurrentClocksEventReasons and ...ThrottleReasons are left out, so the loader
 *     must turn off throttle_reasons alone;
 *   - only the legacy nvmlDeviceGetTemperature is exported (no nvmlDeviceGetTemperatureV), so the
 *     loader's newest-first resolution must fall back to it.
 * Environment, read at nvmlInit:
 *   GAUNTLET_STANDIN_DEVICES=N             number of GPUs (default 2, at most 8; 0 = no GPU)
 *   GAUNTLET_STANDIN_INIT_FAIL=1           nvmlInit fails with NVML_ERROR_DRIVER_NOT_LOADED
 *   GAUNTLET_STANDIN_INSTANT_UNSUPPORTED=1 field NVML_FI_DEV_POWER_INSTANT answers NOT_SUPPORTED
 *   GAUNTLET_STANDIN_TIMED=1               values follow the clock instead of the call count
 *   GAUNTLET_STANDIN_NO_PERMISSION=1       setting the power limit answers NVML_ERROR_NO_PERMISSION
 *   GAUNTLET_STANDIN_SMOOTHING=1           the GPUs have firmware power smoothing (else NOT_SUPPORTED)
 *   GAUNTLET_STANDIN_PROFILE=N             the smoothing preset profile active at start (default 0)
 *   GAUNTLET_STANDIN_SAMPLES=1             nvmlDeviceGetSamples(NVML_TOTAL_POWER_SAMPLES) serves a sample every 20 ms
 *                                          of the clock (100, 400, 700 W ...; the last 100 kept), else NOT_SUPPORTED;
 *                                          its timestamps count microseconds from 1 s at nvmlInit
 *   GAUNTLET_STANDIN_SAMPLES=wall          the same, each sample stamped as the H100's and H200's drivers stamp
 *                                          theirs: microseconds of the wall clock (CLOCK_REALTIME) it was taken at
 *   GAUNTLET_STANDIN_SAMPLES_BACKLOG=N     the buffer holds N samples taken before nvmlInit (at most 100 kept)
 *   GAUNTLET_STANDIN_SAMPLES_FAIL=F,C,E    calls F to F+C-1 of nvmlDeviceGetSamples (counted from 1 at nvmlInit) answer
 *                                          NVML error E (999: NVML_ERROR_UNKNOWN, 3: NOT_SUPPORTED ...)
 *   GAUNTLET_STANDIN_SAMPLES_STEP=A,B      the wall clock stepped back by B ms A ms after nvmlInit: the samples taken
 *                                          before are stamped B ms later than those after (the host's clock reads the
 *                                          stepped time all along)
 *   GAUNTLET_STANDIN_SAMPLES_PAUSE=A,B     the driver takes no sample for B ms from A ms after nvmlInit (a busy
 *                                          driver: the polls meanwhile find nothing new)
 *   GAUNTLET_STANDIN_NO_PARAM_FIELDS=1     smoothing profile 0's parameters (fields 265-268) are not reported
 *   GAUNTLET_STANDIN_NO_PROFILE_FIELD=1    the active smoothing profile (field 269) is not reported
 *   GAUNTLET_STANDIN_HANG_LIMIT=MW         setting the power limit to MW milliwatts hangs for 30 s (NVML unresponsive)
 *   GAUNTLET_STANDIN_STATE=FILE            every setting change rewrites FILE: one line per device,
 *                                          "dev limit_mw smoothing_on floor up down hysteresis profile", so a test can
 *                                          see what a process left behind after it exited or crashed
 * Script, per device:
 *   power instant: 100 W, 400 W, 700 W, 100 W ... one step per call (timed: one step per 5 ms)
 *   energy: starts at 1,000,000 mJ, +250 mJ per call (timed: 300 W, counter updated every 10 ms)
 *   power usage 350 W; SM clock 1980 MHz; temperature 45 C; default limit 700 W; enforced 650 W;
 *   power limit 650 W, settable within 200..700 W; smoothing off, profile 0 = 50 %, 1000, 500 W/s, 100 ms. */
#define _POSIX_C_SOURCE 200809L
#include "../harness/power/nvml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STANDIN_MAX_DEVICES 8
#define STANDIN_NAME "Gauntlet Standin GPU"
#define STANDIN_ENERGY0_MJ 1000000ull
#define STANDIN_ENERGY_STEP_MJ 250ull
#define STANDIN_TIMED_STEP_MS 5
#define STANDIN_TIMED_ENERGY_PERIOD_MS 10
#define STANDIN_TIMED_WATTS 300

struct nvmlDevice_st {
    unsigned index;
    unsigned long instant_calls;
    unsigned long long energy_mj;
    unsigned limit_mw;
    unsigned smooth_on;
    double smooth[4];   /* profile 0: floor %, ramp up, ramp down, hysteresis */
    unsigned profile;   /* the active preset profile */
};

static struct nvmlDevice_st standin_dev[STANDIN_MAX_DEVICES];
static const unsigned standin_script_mw[] = { 100000, 400000, 700000 };
static unsigned standin_count;
static int standin_refs;
static int standin_timed;
static int standin_instant_unsupported;
static unsigned long long standin_t0_ns, standin_t0_wall_ns;   /* nvmlInit's time on the monotonic and wall clocks */
static unsigned long standin_samples_calls;   /* calls of nvmlDeviceGetSamples since nvmlInit */

/* Reads the monotonic clock in ns (0 if it cannot be read). */
static unsigned long long standin_now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Says whether environment variable name is set to a value starting with '1'. */
static int standin_flag(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] == '1';
}

/* Checks that NVML is initialised and h is one of the stand-in's devices. */
static nvmlReturn_t standin_check(nvmlDevice_t h)
{
    if (standin_refs <= 0)
        return NVML_ERROR_UNINITIALIZED;
    if (!h || h < standin_dev || h >= standin_dev + standin_count)
        return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void)
{
    if (standin_flag("GAUNTLET_STANDIN_INIT_FAIL"))
        return NVML_ERROR_DRIVER_NOT_LOADED;
    if (standin_refs++ > 0)
        return NVML_SUCCESS;
    const char *n = getenv("GAUNTLET_STANDIN_DEVICES");
    long count = n && *n ? strtol(n, NULL, 10) : 2;
    standin_count = count < 0 ? 0 : count > STANDIN_MAX_DEVICES ? STANDIN_MAX_DEVICES : (unsigned)count;
    standin_timed = standin_flag("GAUNTLET_STANDIN_TIMED");
    standin_instant_unsupported = standin_flag("GAUNTLET_STANDIN_INSTANT_UNSUPPORTED");
    standin_t0_ns = standin_now_ns();
    standin_samples_calls = 0;
    struct timespec wall;
    standin_t0_wall_ns = clock_gettime(CLOCK_REALTIME, &wall) == 0
                             ? (unsigned long long)wall.tv_sec * 1000000000ull + (unsigned long long)wall.tv_nsec : 0;
    for (unsigned i = 0; i < STANDIN_MAX_DEVICES; i++)
        standin_dev[i] = (struct nvmlDevice_st){ .index = i, .energy_mj = STANDIN_ENERGY0_MJ, .limit_mw = 650000,
                                                 .smooth = { 50, 1000, 500, 100 },
                                                 .profile = getenv("GAUNTLET_STANDIN_PROFILE")
                                                                ? (unsigned)atoi(getenv("GAUNTLET_STANDIN_PROFILE")) : 0 };
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void) { return nvmlInit_v2(); }

nvmlReturn_t nvmlShutdown(void)
{
    if (standin_refs <= 0)
        return NVML_ERROR_UNINITIALIZED;
    standin_refs--;
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (standin_refs <= 0)
        return NVML_ERROR_UNINITIALIZED;
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = standin_count;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    if (standin_refs <= 0)
        return NVML_ERROR_UNINITIALIZED;
    if (!device || index >= standin_count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = &standin_dev[index];
    return NVML_SUCCESS;
}

/* Copies s into buf of len bytes, NVML style. */
static nvmlReturn_t standin_string(const char *s, char *buf, unsigned int len)
{
    size_t n = strlen(s);
    if (!buf)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (len < n + 1)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, s, n + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    nvmlReturn_t r = standin_check(device);
    return r != NVML_SUCCESS ? r : standin_string(STANDIN_NAME, name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    static const char *const uuids[STANDIN_MAX_DEVICES] = {
        "GPU-5a17e000-0000-4000-8000-000000000000", "GPU-5a17e000-0000-4000-8000-000000000001",
        "GPU-5a17e000-0000-4000-8000-000000000002", "GPU-5a17e000-0000-4000-8000-000000000003",
        "GPU-5a17e000-0000-4000-8000-000000000004", "GPU-5a17e000-0000-4000-8000-000000000005",
        "GPU-5a17e000-0000-4000-8000-000000000006", "GPU-5a17e000-0000-4000-8000-000000000007",
    };
    nvmlReturn_t r = standin_check(device);
    return r != NVML_SUCCESS ? r : standin_string(uuids[device->index], uuid, length);
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *limit)
{
    nvmlReturn_t r = standin_check(device);
    if (r == NVML_SUCCESS && !limit)
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS)
        *limit = 700000;
    return r;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
    nvmlReturn_t r = standin_check(device);
    if (r == NVML_SUCCESS && !limit)
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS)
        *limit = 650000;
    return r;
}

/* Returns the next scripted instant power of device d in mW. */
static unsigned standin_instant_mw(struct nvmlDevice_st *d)
{
    unsigned long step = standin_timed
        ? (unsigned long)((standin_now_ns() - standin_t0_ns) / (STANDIN_TIMED_STEP_MS * 1000000ull))
        : d->instant_calls++;
    return standin_script_mw[step % (sizeof standin_script_mw / sizeof standin_script_mw[0])];
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
    nvmlReturn_t r = standin_check(device);
    if (r != NVML_SUCCESS)
        return r;
    if (!values || valuesCount < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < valuesCount; i++) {
        nvmlFieldValue_t *v = &values[i];
        v->timestamp = (long long)(standin_now_ns() / 1000);
        v->latencyUsec = 0;
        if (v->fieldId >= 256 && v->fieldId <= 269 && standin_flag("GAUNTLET_STANDIN_SMOOTHING")) {
            if ((v->fieldId >= 265 && v->fieldId <= 268 && standin_flag("GAUNTLET_STANDIN_NO_PARAM_FIELDS")) ||
                (v->fieldId == 269 && standin_flag("GAUNTLET_STANDIN_NO_PROFILE_FIELD"))) {
                v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
                continue;
            }
            v->valueType = NVML_VALUE_TYPE_DOUBLE;   /* enabled, lifetime left, profile 0's four, active profile */
            v->value.dVal = v->fieldId == 256 ? device->smooth_on : v->fieldId == 263 ? 87.5
                          : v->fieldId >= 265 && v->fieldId <= 268 ? device->smooth[v->fieldId - 265]
                          : v->fieldId == 269 ? device->profile : 0;
            v->nvmlReturn = v->fieldId == 256 || v->fieldId == 263 || v->fieldId >= 265 ? NVML_SUCCESS
                                                                                           : NVML_ERROR_NOT_SUPPORTED;
            continue;
        }
        if (v->fieldId != NVML_FI_DEV_POWER_INSTANT || standin_instant_unsupported) {
            v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            continue;
        }
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        v->value.uiVal = standin_instant_mw(device);
        v->nvmlReturn = NVML_SUCCESS;
    }
    return NVML_SUCCESS;
}

/* Writes every device's settings to $GAUNTLET_STANDIN_STATE (when set). */
static void standin_save(void)
{
    const char *path = getenv("GAUNTLET_STANDIN_STATE");
    FILE *f = path && *path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    for (unsigned i = 0; i < standin_count; i++)
        fprintf(f, "%u %u %u %g %g %g %g %u\n", i, standin_dev[i].limit_mw, standin_dev[i].smooth_on,
                standin_dev[i].smooth[0], standin_dev[i].smooth[1], standin_dev[i].smooth[2], standin_dev[i].smooth[3],
                standin_dev[i].profile);
    fclose(f);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
    nvmlReturn_t r = standin_check(device);
    if (r == NVML_SUCCESS && !limit)
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS)
        *limit = device->limit_mw;
    return r;
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *min, unsigned int *max)
{
    nvmlReturn_t r = standin_check(device);
    if (r == NVML_SUCCESS && (!min || !max))
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS)
        *min = 200000, *max = 700000;
    return r;
}

nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device, unsigned int limit)
{
    nvmlReturn_t r = standin_check(device);
    if (r != NVML_SUCCESS)
        return r;
    if (standin_flag("GAUNTLET_STANDIN_NO_PERMISSION"))
        return NVML_ERROR_NO_PERMISSION;
    if (limit < 200000 || limit > 700000)
        return NVML_ERROR_INVALID_ARGUMENT;
    const char *hang = getenv("GAUNTLET_STANDIN_HANG_LIMIT");
    if (hang && strtoul(hang, NULL, 10) == limit)
        sleep(30);
    device->limit_mw = limit;
    standin_save();
    return NVML_SUCCESS;
}

/* nvmlPowerSmoothingProfile_v1_t and nvmlPowerSmoothingState_v1_t, as in nvml.h (API 13). */
typedef struct { unsigned int version, profileId, paramId; double value; } standin_profile_t;
typedef struct { unsigned int version, state; } standin_state_t;

static nvmlReturn_t standin_smoothing(nvmlDevice_t device, const void *arg, unsigned version)
{
    nvmlReturn_t r = standin_check(device);
    if (r != NVML_SUCCESS)
        return r;
    if (!standin_flag("GAUNTLET_STANDIN_SMOOTHING"))
        return NVML_ERROR_NOT_SUPPORTED;
    if (!arg)
        return NVML_ERROR_INVALID_ARGUMENT;
    return *(const unsigned *)arg == version ? NVML_SUCCESS : NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

nvmlReturn_t nvmlDevicePowerSmoothingUpdatePresetProfileParam(nvmlDevice_t device, standin_profile_t *p)
{
    nvmlReturn_t r = standin_smoothing(device, p, (unsigned)sizeof *p | 1u << 24);
    if (r == NVML_SUCCESS && (p->profileId != 0 || p->paramId > 3))
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        device->smooth[p->paramId] = p->value;
        standin_save();
    }
    return r;
}

nvmlReturn_t nvmlDevicePowerSmoothingActivatePresetProfile(nvmlDevice_t device, standin_profile_t *p)
{
    nvmlReturn_t r = standin_smoothing(device, p, (unsigned)sizeof *p | 1u << 24);
    if (r == NVML_SUCCESS && p->profileId >= 5)   /* NVML_POWER_SMOOTHING_MAX_NUM_PROFILES */
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        device->profile = p->profileId;
        standin_save();
    }
    return r;
}

nvmlReturn_t nvmlDevicePowerSmoothingSetState(nvmlDevice_t device, standin_state_t *s)
{
    nvmlReturn_t r = standin_smoothing(device, s, (unsigned)sizeof *s | 1u << 24);
    if (r == NVML_SUCCESS) {
        device->smooth_on = s->state != 0;
        standin_save();
    }
    return r;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    nvmlReturn_t r = standin_check(device);
    if (r == NVML_SUCCESS && !power)
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS)
        *power = 350000;
    return r;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    nvmlReturn_t r = standin_check(device);
    if (r == NVML_SUCCESS && !energy)
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r != NVML_SUCCESS)
        return r;
    if (standin_timed) {
        unsigned long long ms = (standin_now_ns() - standin_t0_ns) / 1000000ull;
        ms -= ms % STANDIN_TIMED_ENERGY_PERIOD_MS;
        *energy = STANDIN_ENERGY0_MJ + STANDIN_TIMED_WATTS * ms;   /* W x ms = mJ */
    } else {
        device->energy_mj += STANDIN_ENERGY_STEP_MJ;
        *energy = device->energy_mj;
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock)
{
    nvmlReturn_t r = standin_check(device);
    if (r == NVML_SUCCESS && (!clock || type < 0 || type > 3))
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS)
        *clock = type == 2 ? 2619 : 1980;   /* NVML_CLOCK_MEM : graphics, SM, video */
    return r;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int *temp)
{
    nvmlReturn_t r = standin_check(device);
    if (r == NVML_SUCCESS && (!temp || sensor != NVML_TEMPERATURE_GPU))
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS)
        *temp = 45;
    return r;
}

nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, int type, unsigned long long lastSeenTimeStamp,
                                  nvmlValueType_t *sampleValType, unsigned int *sampleCount, nvmlSample_t *samples)
{
    nvmlReturn_t r = standin_check(device);
    if (r != NVML_SUCCESS)
        return r;
    const char *mode = getenv("GAUNTLET_STANDIN_SAMPLES");
    int wall = mode && strcmp(mode, "wall") == 0;
    if ((!standin_flag("GAUNTLET_STANDIN_SAMPLES") && !wall) || type != NVML_TOTAL_POWER_SAMPLES)
        return NVML_ERROR_NOT_SUPPORTED;
    if (!sampleValType || !sampleCount)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned from = 0, count = 0, err = 0, at_ms = 0, back_ms = 0;
    const char *fail = getenv("GAUNTLET_STANDIN_SAMPLES_FAIL"), *step = getenv("GAUNTLET_STANDIN_SAMPLES_STEP");
    standin_samples_calls++;
    if (fail && sscanf(fail, "%u,%u,%u", &from, &count, &err) == 3 &&
        standin_samples_calls >= from && standin_samples_calls < (unsigned long)from + count)
        return (nvmlReturn_t)err;
    if (!(step && sscanf(step, "%u,%u", &at_ms, &back_ms) == 2))
        at_ms = back_ms = 0;
    const char *bl = getenv("GAUNTLET_STANDIN_SAMPLES_BACKLOG");
    unsigned long long backlog = bl ? strtoull(bl, NULL, 10) : 0;   /* sample k was taken (k - backlog) periods after init */
    unsigned long long now_us = (standin_now_ns() - standin_t0_ns) / 1000, period = 20000;
    unsigned long long last = now_us / period + backlog, first = last >= 100 ? last - 99 : 0;   /* the buffer keeps 100 */
    *sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
    unsigned int n = 0;
    unsigned pause_at = 0, pause_ms = 0;
    const char *pause = getenv("GAUNTLET_STANDIN_SAMPLES_PAUSE");
    if (!(pause && sscanf(pause, "%u,%u", &pause_at, &pause_ms) == 2))
        pause_at = pause_ms = 0;
    for (unsigned long long k = first; k <= last; k++) {
        unsigned long long taken_us = k >= backlog ? (k - backlog) * period : 0;
        if (pause_ms && k >= backlog && taken_us >= pause_at * 1000ull && taken_us < (pause_at + pause_ms) * 1000ull)
            continue;
        unsigned long long ts = wall ? standin_t0_wall_ns / 1000 + k * period - backlog * period : 1000000 + k * period;   /* us */
        if (back_ms && !(k >= backlog && (k - backlog) * period >= at_ms * 1000ull))
            ts += back_ms * 1000ull;
        if (ts <= lastSeenTimeStamp)
            continue;
        if (samples && n < *sampleCount)
            samples[n] = (nvmlSample_t){ .timeStamp = ts, .sampleValue.uiVal = standin_script_mw[k % 3] };
        n++;
    }
    if (!n)
        return NVML_ERROR_NOT_FOUND;
    if (samples && n > *sampleCount)
        n = *sampleCount;
    *sampleCount = n;
    return NVML_SUCCESS;
}
