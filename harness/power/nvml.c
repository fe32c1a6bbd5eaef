/* harness/power/nvml.c: NVML through dlopen, resolved symbol by symbol (newest version first): a missing
 * optional symbol turns off its one field, never the whole GPU side. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nvml.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

#define NVML_DEFAULT_LIB "libnvidia-ml.so.1"
#define NVML_ALL_FIELDS ((1u << GPU_F_COUNT) - 1u)

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym results must fit a function pointer");

struct nvml_dev {
    nvmlDevice_t h;        /* NULL when the handle could not be had */
    unsigned off;          /* fields found unsupported on this device: not asked again */
    unsigned reported;     /* fields whose failure was logged already */
    nvmlReturn_t samples_off;   /* its power sample buffer's permanent failure (0: none): not asked again */
    int samples_reported;  /* a transient failure of its buffer was logged */
};

struct nvml {
    void *lib;
    char path[PATH_MAX];
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*get_count)(unsigned int *);
    nvmlReturn_t (*get_handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*get_name)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*get_uuid)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*get_default_limit)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*get_enforced_limit)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*get_field_values)(nvmlDevice_t, int, nvmlFieldValue_t *);
    nvmlReturn_t (*get_power_usage)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*get_energy)(nvmlDevice_t, unsigned long long *);
    nvmlReturn_t (*get_clock)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*get_temp_v)(nvmlDevice_t, nvmlTemperature_v1_t *);
    nvmlReturn_t (*get_temp)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*get_reasons)(nvmlDevice_t, unsigned long long *);
    nvmlReturn_t (*get_samples)(nvmlDevice_t, int, unsigned long long, nvmlValueType_t *, unsigned int *, nvmlSample_t *);
    const char *init_name;              /* the symbol versions resolved, for messages */
    const char *field_call[GPU_F_COUNT];
    const char *temp_legacy_name;
    int ndev;
    struct nvml_dev *dev;
    unsigned missing;                   /* fields with no symbol in the library */
    char missing_text[1024];
};

static const char *const nvml_field_names[GPU_F_COUNT] = {
    "power_instant", "power_avg", "energy", "sm_clock", "temp", "throttle_reasons",
};

const char *nvml_field_name(int f)
{
    return f >= 0 && f < GPU_F_COUNT ? nvml_field_names[f] : "?";
}

/* Writes a reason into why (truncation is acceptable for a message). */
static void nvml_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void nvml_why(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    if (!why || n == 0)
        return;
    va_start(ap, fmt);
    if (vsnprintf(why, n, fmt, ap) < 0)
        str_copy(why, n, "NVML: (message could not be formatted)");
    va_end(ap);
}

/* Appends "; text" to the notice of unavailable fields. */
static void nvml_note(struct nvml *nv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void nvml_note(struct nvml *nv, const char *fmt, ...)
{
    size_t len = strlen(nv->missing_text);
    va_list ap;
    if (len + 3 >= sizeof nv->missing_text)
        return;
    if (len) {
        memcpy(nv->missing_text + len, "; ", 3);
        len += 2;
    }
    va_start(ap, fmt);
    if (vsnprintf(nv->missing_text + len, sizeof nv->missing_text - len, fmt, ap) < 0)
        nv->missing_text[len] = 0;
    va_end(ap);
}

/* Formats r as NVML's own text plus the code. */
static const char *nvml_err(const struct nvml *nv, nvmlReturn_t r, char *buf, size_t n)
{
    const char *s = nv->error_string ? nv->error_string(r) : NULL;
    if (snprintf(buf, n, "%s (NVML error %d)", s ? s : "unknown error", (int)r) < 0)
        str_copy(buf, n, "NVML error");
    return buf;
}

/* Resolves the first of names that the library exports into *slot; returns that name or NULL. */
static const char *nvml_resolve(struct nvml *nv, void *slot, size_t size, const char *const *names)
{
    for (; *names; names++) {
        dlerror();
        void *p = dlsym(nv->lib, *names);
        if (p && size == sizeof p) {
            memcpy(slot, &p, sizeof p);
            return *names;
        }
    }
    return NULL;
}
#define NVML_SYM(nv, fn, ...) \
    nvml_resolve((nv), (void *)&(nv)->fn, sizeof (nv)->fn, (const char *const[]){ __VA_ARGS__, NULL })

/* Resolves the symbol of field f (first name that exists); notes the field missing otherwise. */
static void nvml_resolve_field(struct nvml *nv, enum gpu_field f, void *slot, size_t size,
                               const char *const *names)
{
    nv->field_call[f] = nvml_resolve(nv, slot, size, names);
    if (nv->field_call[f])
        return;
    nv->missing |= GPU_VALID(f);
    nvml_note(nv, "%s (%s%s not in %s)", nvml_field_name(f), names[0], names[1] ? " and older versions" : "",
              nv->path);
}
#define NVML_FIELD(nv, f, fn, ...) \
    nvml_resolve_field((nv), (f), (void *)&(nv)->fn, sizeof (nv)->fn, (const char *const[]){ __VA_ARGS__, NULL })

/* Unloads the library, reporting a failure. */
static void nvml_unload(void *lib)
{
    if (lib && dlclose(lib) != 0) {
        const char *e = dlerror();
        gl_log("dlclose of NVML failed: %s", e ? e : "unknown error");
    }
}

/* Resolves the optional symbols: each missing one turns off its field or info item only. */
static void nvml_resolve_optional(struct nvml *nv)
{
    NVML_SYM(nv, error_string, "nvmlErrorString");
    NVML_SYM(nv, get_name, "nvmlDeviceGetName");
    NVML_SYM(nv, get_uuid, "nvmlDeviceGetUUID");
    NVML_SYM(nv, get_default_limit, "nvmlDeviceGetPowerManagementDefaultLimit");
    NVML_SYM(nv, get_enforced_limit, "nvmlDeviceGetEnforcedPowerLimit");
    NVML_FIELD(nv, GPU_F_POWER_INSTANT, get_field_values, "nvmlDeviceGetFieldValues");
    NVML_FIELD(nv, GPU_F_POWER_AVG, get_power_usage, "nvmlDeviceGetPowerUsage");
    NVML_FIELD(nv, GPU_F_ENERGY, get_energy, "nvmlDeviceGetTotalEnergyConsumption");
    NVML_FIELD(nv, GPU_F_SM_CLOCK, get_clock, "nvmlDeviceGetClockInfo");
    NVML_FIELD(nv, GPU_F_THROTTLE, get_reasons, "nvmlDeviceGetCurrentClocksEventReasons",
               "nvmlDeviceGetCurrentClocksThrottleReasons");
    /* Temperature: the versioned call first, the legacy one kept as a fallback at run time. */
    nv->field_call[GPU_F_TEMP] = NVML_SYM(nv, get_temp_v, "nvmlDeviceGetTemperatureV");
    nv->temp_legacy_name = NVML_SYM(nv, get_temp, "nvmlDeviceGetTemperature");
    NVML_SYM(nv, get_samples, "nvmlDeviceGetSamples");   /* optional: the instant field stands in without it */
    if (!nv->field_call[GPU_F_TEMP])
        nv->field_call[GPU_F_TEMP] = nv->temp_legacy_name;
    if (!nv->field_call[GPU_F_TEMP]) {
        nv->missing |= GPU_VALID(GPU_F_TEMP);
        nvml_note(nv, "temp (nvmlDeviceGetTemperatureV and nvmlDeviceGetTemperature not in %s)", nv->path);
    }
}

/* Takes the handle of every device; a device without one keeps its index with every field off. */
static void nvml_take_handles(struct nvml *nv, unsigned count)
{
    char eb[128];
    nv->ndev = (int)count;
    nv->dev = xcalloc(count ? count : 1, sizeof *nv->dev);
    for (unsigned i = 0; i < count; i++) {
        nvmlReturn_t r = nv->get_handle(i, &nv->dev[i].h);
        if (r == NVML_SUCCESS)
            continue;
        nv->dev[i].h = NULL;
        nv->dev[i].off = NVML_ALL_FIELDS;
        nv->dev[i].reported = NVML_ALL_FIELDS;
        gl_log("NVML: nvmlDeviceGetHandleByIndex(%u) failed: %s; GPU %u is not sampled", i,
               nvml_err(nv, r, eb, sizeof eb), i);
        nvml_note(nv, "every field of GPU %u (no handle: %s)", i, eb);
    }
}

struct nvml *nvml_open(char *why, size_t n)
{
    const char *env = getenv("GAUNTLET_NVML_LIB");
    const char *path = env && *env ? env : NVML_DEFAULT_LIB;
    char eb[128];
    unsigned count = 0;
    struct nvml *nv = xcalloc(1, sizeof *nv);

    str_copy(nv->path, sizeof nv->path, path);
    nv->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!nv->lib) {
        const char *e = dlerror();
        nvml_why(why, n, "cannot load NVML library %s%s: %s", path,
                 env && *env ? " (from GAUNTLET_NVML_LIB)" : " (no NVIDIA driver here? GAUNTLET_NVML_LIB names another)",
                 e ? e : "dlopen failed");
        free(nv);
        return NULL;
    }
    nv->init_name = NVML_SYM(nv, init, "nvmlInit_v2", "nvmlInit");
    const char *count_name = NVML_SYM(nv, get_count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
    const char *handle_name = NVML_SYM(nv, get_handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
    const char *shutdown_name = NVML_SYM(nv, shutdown, "nvmlShutdown");
    if (!nv->init_name || !count_name || !handle_name || !shutdown_name) {
        nvml_why(why, n, "%s is not a usable NVML: it lacks %s", path,
                 !nv->init_name ? "nvmlInit_v2/nvmlInit" : !count_name ? "nvmlDeviceGetCount_v2/nvmlDeviceGetCount"
                 : !handle_name ? "nvmlDeviceGetHandleByIndex_v2/nvmlDeviceGetHandleByIndex" : "nvmlShutdown");
        nvml_unload(nv->lib);
        free(nv);
        return NULL;
    }
    nvml_resolve_optional(nv);

    nvmlReturn_t r = nv->init();
    if (r != NVML_SUCCESS) {
        nvml_why(why, n, "%s failed (%s): %s", nv->init_name, path, nvml_err(nv, r, eb, sizeof eb));
        nvml_unload(nv->lib);
        free(nv);
        return NULL;
    }
    r = nv->get_count(&count);
    if (r != NVML_SUCCESS) {
        nvml_why(why, n, "%s failed (%s): %s", count_name, path, nvml_err(nv, r, eb, sizeof eb));
        nvml_close(nv);
        return NULL;
    }
    nvml_take_handles(nv, count);
    return nv;
}

int nvml_device_count(const struct nvml *nv) { return nv ? nv->ndev : 0; }

nvmlDevice_t nvml_handle(const struct nvml *nv, int dev)
{
    return nv && dev >= 0 && dev < nv->ndev ? nv->dev[dev].h : NULL;
}

void *nvml_symbol(const struct nvml *nv, const char *name)
{
    if (!nv || !nv->lib)
        return NULL;
    dlerror();
    return dlsym(nv->lib, name);
}

const char *nvml_error_text(const struct nvml *nv, nvmlReturn_t r, char *buf, size_t n) { return nvml_err(nv, r, buf, n); }
const char *nvml_missing(const struct nvml *nv) { return nv ? nv->missing_text : ""; }
const char *nvml_library(const struct nvml *nv) { return nv ? nv->path : ""; }

int nvml_field_available(const struct nvml *nv, int dev, enum gpu_field f)
{
    if (!nv || dev < 0 || dev >= nv->ndev || (int)f < 0 || f >= GPU_F_COUNT)
        return 0;
    return !((nv->missing | nv->dev[dev].off) & GPU_VALID(f));
}

void nvml_close(struct nvml *nv)
{
    char eb[128];
    if (!nv)
        return;
    nvmlReturn_t r = nv->shutdown();
    if (r != NVML_SUCCESS)
        gl_log("NVML: nvmlShutdown failed: %s", nvml_err(nv, r, eb, sizeof eb));
    nvml_unload(nv->lib);
    free(nv->dev);
    free(nv);
}

/* Reads a field value as a double, whatever member NVML filled; NAN for an unknown type. */
static double nvml_field_value(const nvmlFieldValue_t *fv)
{
    switch (fv->valueType) {
    case NVML_VALUE_TYPE_DOUBLE: return fv->value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return (double)fv->value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return (double)fv->value.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return (double)fv->value.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return (double)fv->value.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT: return (double)fv->value.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return (double)fv->value.usVal;
    }
    return NAN;
}

/* Says whether a failure means the device will never give this field. */
static int nvml_permanent(nvmlReturn_t r)
{
    return r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND ||
           r == NVML_ERROR_INVALID_ARGUMENT || r == NVML_ERROR_DEPRECATED;
}

/* Records a failed read: logged once per device and field; an unsupported field is turned off. */
static void nvml_field_failed(struct nvml *nv, int dev, enum gpu_field f, nvmlReturn_t r)
{
    struct nvml_dev *d = &nv->dev[dev];
    int permanent = nvml_permanent(r);
    char eb[128];
    nvml_err(nv, r, eb, sizeof eb);
    if (!(d->reported & GPU_VALID(f))) {
        d->reported |= GPU_VALID(f);
        gl_log("NVML: GPU %d: %s from %s failed: %s; %s", dev, nvml_field_name(f), nv->field_call[f], eb,
               permanent ? "field turned off" : "further failures of this field are not reported");
    }
    if (permanent && !(d->off & GPU_VALID(f))) {
        d->off |= GPU_VALID(f);
        nvml_note(nv, "%s on GPU %d (%s: %s)", nvml_field_name(f), dev, nv->field_call[f], eb);
    }
}

/* Reads temperature: nvmlDeviceGetTemperatureV, falling back for good to the legacy call when the
 * versioned one is refused and the legacy one exists. */
static nvmlReturn_t nvml_read_temp(struct nvml *nv, nvmlDevice_t h, double *v)
{
    if (nv->get_temp_v) {
        nvmlTemperature_v1_t t = { .version = NVML_TEMPERATURE_V1, .sensorType = NVML_TEMPERATURE_GPU };
        nvmlReturn_t r = nv->get_temp_v(h, &t);
        if (r == NVML_SUCCESS) {
            *v = t.temperature;
            return r;
        }
        if (!nv->get_temp || !(nvml_permanent(r) || r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH))
            return r;
        char eb[128];
        gl_log("NVML: nvmlDeviceGetTemperatureV refused: %s; using %s from now on", nvml_err(nv, r, eb, sizeof eb),
               nv->temp_legacy_name);
        nv->get_temp_v = NULL;
        nv->field_call[GPU_F_TEMP] = nv->temp_legacy_name;
    }
    unsigned int c = 0;
    nvmlReturn_t r = nv->get_temp(h, NVML_TEMPERATURE_GPU, &c);
    if (r == NVML_SUCCESS)
        *v = c;
    return r;
}

/* Reads field f of dev into *dv (and the exact integer into *uv for counters and bit masks). */
static int nvml_read(struct nvml *nv, int dev, enum gpu_field f, double *dv, uint64_t *uv)
{
    *dv = NAN;
    *uv = 0;
    if (!nvml_field_available(nv, dev, f))
        return -1;
    nvmlDevice_t h = nv->dev[dev].h;
    nvmlReturn_t r = NVML_ERROR_UNKNOWN;
    unsigned int u = 0;
    unsigned long long ull = 0;
    double v = NAN;
    switch (f) {
    case GPU_F_POWER_INSTANT: {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof fv);
        fv.fieldId = NVML_FI_DEV_POWER_INSTANT;
        fv.scopeId = NVML_POWER_SCOPE_GPU;
        r = nv->get_field_values(h, 1, &fv);
        if (r == NVML_SUCCESS)
            r = fv.nvmlReturn;
        if (r == NVML_SUCCESS) {
            v = nvml_field_value(&fv) / 1000.0;   /* mW */
            if (isnan(v))
                r = NVML_ERROR_UNKNOWN;
        }
        break;
    }
    case GPU_F_POWER_AVG:
        if ((r = nv->get_power_usage(h, &u)) == NVML_SUCCESS)
            v = u / 1000.0;
        break;
    case GPU_F_ENERGY:
        if ((r = nv->get_energy(h, &ull)) == NVML_SUCCESS) {
            *uv = ull;
            v = (double)ull;
        }
        break;
    case GPU_F_SM_CLOCK:
        if ((r = nv->get_clock(h, NVML_CLOCK_SM, &u)) == NVML_SUCCESS)
            v = u;
        break;
    case GPU_F_TEMP:
        r = nvml_read_temp(nv, h, &v);
        break;
    case GPU_F_THROTTLE:
        if ((r = nv->get_reasons(h, &ull)) == NVML_SUCCESS) {
            *uv = ull;
            v = (double)ull;
        }
        break;
    case GPU_F_COUNT:
        return -1;
    }
    if (r != NVML_SUCCESS) {
        nvml_field_failed(nv, dev, f, r);
        return -1;
    }
    *dv = v;
    return 0;
}

int nvml_read_field(struct nvml *nv, int dev, enum gpu_field f, double *value)
{
    uint64_t u;
    return nvml_read(nv, dev, f, value, &u);
}

int nvml_sample(struct nvml *nv, int dev, struct gpu_sample *out) { return nvml_sample_fields(nv, dev, ~0u, out); }

int nvml_sample_fields(struct nvml *nv, int dev, unsigned mask, struct gpu_sample *out)
{
    double v[GPU_F_COUNT];
    uint64_t u[GPU_F_COUNT];
    if (!nv || dev < 0 || dev >= nv->ndev)
        return -1;
    out->t_ns = mono_ns();
    out->valid = 0;
    for (int f = 0; f < GPU_F_COUNT; f++) {
        v[f] = NAN;
        u[f] = 0;
        if ((mask & GPU_VALID(f)) && nvml_read(nv, dev, (enum gpu_field)f, &v[f], &u[f]) == 0)
            out->valid |= GPU_VALID(f);
    }
    out->power_instant_w = v[GPU_F_POWER_INSTANT];
    out->power_avg_w = v[GPU_F_POWER_AVG];
    out->energy_mj = u[GPU_F_ENERGY];
    out->sm_clock_mhz = v[GPU_F_SM_CLOCK];
    out->temp_c = v[GPU_F_TEMP];
    out->throttle_reasons = u[GPU_F_THROTTLE];
    return 0;
}

/* Reads one power limit in W; NAN (logged) when the call is missing or fails. */
static double nvml_limit_w(struct nvml *nv, int dev, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *),
                           const char *call)
{
    char eb[128];
    unsigned int mw = 0;
    if (!fn)
        return NAN;
    nvmlReturn_t r = fn(nv->dev[dev].h, &mw);
    if (r != NVML_SUCCESS) {
        gl_log("NVML: GPU %d: %s failed: %s", dev, call, nvml_err(nv, r, eb, sizeof eb));
        return NAN;
    }
    return mw / 1000.0;
}

/* Reads a string (name, UUID) into buf; "" (logged) when the call is missing or fails. */
static int nvml_string(struct nvml *nv, int dev, nvmlReturn_t (*fn)(nvmlDevice_t, char *, unsigned int),
                       const char *call, char *buf, size_t n)
{
    char eb[128];
    buf[0] = 0;
    if (!fn)
        return -1;
    nvmlReturn_t r = fn(nv->dev[dev].h, buf, (unsigned int)n);
    if (r != NVML_SUCCESS) {
        gl_log("NVML: GPU %d: %s failed: %s", dev, call, nvml_err(nv, r, eb, sizeof eb));
        buf[0] = 0;
        return -1;
    }
    buf[n - 1] = 0;
    return 0;
}

int nvml_device_info(struct nvml *nv, int dev, struct gpu_info *out)
{
    if (!nv || dev < 0 || dev >= nv->ndev)
        return -1;
    memset(out, 0, sizeof *out);
    out->tdp_w = out->power_limit_w = NAN;
    if (!nv->dev[dev].h)
        return 0;
    if (nvml_string(nv, dev, nv->get_name, "nvmlDeviceGetName", out->name, sizeof out->name) == 0)
        out->valid |= 1u << GPU_I_NAME;
    if (nvml_string(nv, dev, nv->get_uuid, "nvmlDeviceGetUUID", out->uuid, sizeof out->uuid) == 0)
        out->valid |= 1u << GPU_I_UUID;
    out->tdp_w = nvml_limit_w(nv, dev, nv->get_default_limit, "nvmlDeviceGetPowerManagementDefaultLimit");
    out->power_limit_w = nvml_limit_w(nv, dev, nv->get_enforced_limit, "nvmlDeviceGetEnforcedPowerLimit");
    if (!isnan(out->tdp_w))
        out->valid |= 1u << GPU_I_TDP;
    if (!isnan(out->power_limit_w))
        out->valid |= 1u << GPU_I_POWER_LIMIT;
    return 0;
}

double nvml_energy_watts(const struct gpu_sample *prev, const struct gpu_sample *cur)
{
    if (!prev || !cur || !(prev->valid & cur->valid & GPU_VALID(GPU_F_ENERGY)))
        return NAN;
    if (cur->t_ns <= prev->t_ns || cur->energy_mj <= prev->energy_mj)
        return NAN;
    /* mJ per ns x 1e6 = J per s */
    return (double)(cur->energy_mj - prev->energy_mj) * 1e6 / (double)(cur->t_ns - prev->t_ns);
}

double nvml_energy_rate_push(struct nvml_energy_rate *r, const struct gpu_sample *s)
{
    if (!(s->valid & GPU_VALID(GPU_F_ENERGY)))
        return NAN;
    /* have: 0 nothing yet; 1 a first reading taken mid-period; 2 aligned on an observed change */
    if (r->have == 0 || s->energy_mj < r->mj || s->t_ns < r->t_ns) {
        r->have = 1;
        r->t_ns = s->t_ns;
        r->mj = s->energy_mj;
        return NAN;
    }
    if (s->energy_mj == r->mj || s->t_ns == r->t_ns)
        return NAN;
    double w = r->have == 2 ? (double)(s->energy_mj - r->mj) * 1e6 / (double)(s->t_ns - r->t_ns) : NAN;
    r->have = 2;
    r->t_ns = s->t_ns;
    r->mj = s->energy_mj;
    return w;
}

int nvml_power_samples(struct nvml *nv, int dev, unsigned long long *last_us, double *w, unsigned long long *t_us, int max,
                       long *skipped, nvmlReturn_t *err)
{
    enum { NVML_SAMPLES_MAX = 256 };   /* the driver keeps a few seconds at 20 ms: ask at most this many at once */
    *skipped = 0;
    *err = NVML_SUCCESS;
    if (!nv || !nv->get_samples || dev < 0 || dev >= nv->ndev || !nv->dev[dev].h || nv->dev[dev].samples_off) {
        *err = nv && dev >= 0 && dev < nv->ndev && nv->dev[dev].samples_off ? nv->dev[dev].samples_off
                                                                             : NVML_ERROR_FUNCTION_NOT_FOUND;
        return -1;
    }
    nvmlSample_t buf[NVML_SAMPLES_MAX];
    nvmlValueType_t type;
    unsigned int count = NVML_SAMPLES_MAX;
    nvmlReturn_t r = nv->get_samples(nv->dev[dev].h, NVML_TOTAL_POWER_SAMPLES, *last_us, &type, &count, buf);
    if (r == NVML_ERROR_NOT_FOUND)
        return 0;   /* nothing newer than last_us */
    if (r != NVML_SUCCESS) {   /* until 2026-11-30 any failure turned the buffer off for the session */
        char e[128];
        int permanent = nvml_permanent(r);
        *err = r;
        if (permanent)
            nv->dev[dev].samples_off = r;
        if (permanent || !nv->dev[dev].samples_reported)
            gl_log("NVML: GPU %d: nvmlDeviceGetSamples(NVML_TOTAL_POWER_SAMPLES) failed: %s; %s", dev,
                   nvml_err(nv, r, e, sizeof e), permanent ? "not asked again" : "asked again (further failures counted)");
        nv->dev[dev].samples_reported |= !permanent;
        return permanent ? -1 : -2;
    }
    unsigned long long ts[NVML_SAMPLES_MAX];
    double vs[NVML_SAMPLES_MAX];
    int k = 0;
    for (unsigned int i = 0; i < count && i < NVML_SAMPLES_MAX; i++) {
        if (buf[i].timeStamp <= *last_us)
            continue;
        double v = type == NVML_VALUE_TYPE_UNSIGNED_INT ? (double)buf[i].sampleValue.uiVal
                 : type == NVML_VALUE_TYPE_UNSIGNED_LONG ? (double)buf[i].sampleValue.ulVal
                 : type == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? (double)buf[i].sampleValue.ullVal
                 : type == NVML_VALUE_TYPE_DOUBLE ? buf[i].sampleValue.dVal : NAN;
        int at = k++;
        for (; at > 0 && ts[at - 1] > buf[i].timeStamp; at--) {   /* oldest first: the driver's order is not promised */
            ts[at] = ts[at - 1];
            vs[at] = vs[at - 1];
        }
        ts[at] = buf[i].timeStamp;
        vs[at] = v * 1e-3;   /* mW */
    }
    int skip = k > max ? k - max : 0, n = k - skip;   /* more than max: the newest, the rest counted */
    for (int i = 0; i < n; i++) {
        t_us[i] = ts[skip + i];
        w[i] = vs[skip + i];
    }
    if (n > 0)
        *last_us = t_us[n - 1];
    *skipped = skip;
    return n;
}
