/* harness/power/nvml.h: NVML loaded at run time with dlopen (no nvml.h, no link to libnvidia-ml), one
 * sample per call with a validity bit per field, and the probe that finds how often each field
 * really changes. */
#ifndef GAUNTLET_NVML_H
#define GAUNTLET_NVML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- The subset of NVIDIA's NVML ABI that gauntlet uses. Values and layouts as in NVIDIA's nvml.h
 * (checked against NVML API versions 11 to 13, the copy in NVIDIA/go-nvml gen/nvml/nvml.h). Shared
 * with tests/nvml_standin.c, which plays the library. */

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26,
    NVML_ERROR_NOT_READY = 27,
    NVML_ERROR_GPU_NOT_FOUND = 28,
    NVML_ERROR_INVALID_STATE = 29,
    NVML_ERROR_UNKNOWN = 999,
} nvmlReturn_t;

typedef enum nvmlValueType_enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
} nvmlValueType_t;

typedef union nvmlValue_st {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
    unsigned int fieldId;       /* in: an NVML_FI_* id */
    unsigned int scopeId;       /* in: for power fields, NVML_POWER_SCOPE_* */
    long long timestamp;        /* out: CPU time of the value, microseconds since 1970 */
    long long latencyUsec;      /* out: how long the value took to update inside NVML */
    nvmlValueType_t valueType;  /* out: which member of value is set */
    nvmlReturn_t nvmlReturn;    /* out: this field's own status; value is undefined unless SUCCESS */
    nvmlValue_t value;
} nvmlFieldValue_t;

_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t must match NVML's ABI");
_Static_assert(offsetof(nvmlFieldValue_t, value) == 32, "nvmlFieldValue_t must match NVML's ABI");

/* nvmlSample_t, for nvmlDeviceGetSamples: the driver's own sample buffer. */
typedef struct nvmlSample_st {
    unsigned long long timeStamp;   /* CPU time of the sample, microseconds */
    nvmlValue_t sampleValue;
} nvmlSample_t;

#define NVML_TOTAL_POWER_SAMPLES 0       /* nvmlSamplingType_t: total board power, mW */

/* nvmlTemperature_v1_t, for nvmlDeviceGetTemperatureV (NVML 12.8 and later). */
typedef struct {
    unsigned int version;       /* NVML_TEMPERATURE_V1 */
    unsigned int sensorType;    /* NVML_TEMPERATURE_GPU */
    int temperature;            /* out: degrees C */
} nvmlTemperature_v1_t;

#define NVML_TEMPERATURE_V1 ((unsigned int)(sizeof(nvmlTemperature_v1_t) | (1u << 24)))

#define NVML_FI_DEV_POWER_INSTANT 186    /* current GPU power, mW */
#define NVML_POWER_SCOPE_GPU 0u
#define NVML_CLOCK_SM 1                  /* nvmlClockType_t */
#define NVML_TEMPERATURE_GPU 0           /* nvmlTemperatureSensors_t */
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96

/* ---- gauntlet's view of a GPU */

/* The sampled fields; one validity bit each, GPU_VALID(f). */
enum gpu_field {
    GPU_F_POWER_INSTANT = 0,   /* NVML_FI_DEV_POWER_INSTANT through nvmlDeviceGetFieldValues */
    GPU_F_POWER_AVG,           /* nvmlDeviceGetPowerUsage: a 1 s average on Ampere (not GA100) and later */
    GPU_F_ENERGY,              /* nvmlDeviceGetTotalEnergyConsumption */
    GPU_F_SM_CLOCK,            /* nvmlDeviceGetClockInfo(NVML_CLOCK_SM) */
    GPU_F_TEMP,                /* nvmlDeviceGetTemperatureV, else nvmlDeviceGetTemperature */
    GPU_F_THROTTLE,            /* nvmlDeviceGetCurrentClocksEventReasons, else ...ThrottleReasons */
    GPU_F_COUNT
};
#define GPU_VALID(f) (1u << (f))

/* One sample of one GPU. A field whose bit is clear in valid was not measured: the doubles are NAN,
 * energy_mj and throttle_reasons are 0 and mean nothing. */
struct gpu_sample {
    uint64_t t_ns;              /* mono_ns() when the sample began */
    double power_instant_w;
    double power_avg_w;
    uint64_t energy_mj;         /* total since the driver loaded */
    double sm_clock_mhz;
    double temp_c;
    uint64_t throttle_reasons;  /* nvmlClocksEventReason* bits */
    unsigned valid;             /* GPU_VALID(field) bits */
};

/* What does not change while gauntlet runs. */
enum gpu_info_field { GPU_I_NAME = 0, GPU_I_UUID, GPU_I_TDP, GPU_I_POWER_LIMIT };
struct gpu_info {
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];   /* "" when missing */
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];   /* "" when missing */
    double tdp_w;            /* default power limit (the one the board boots with); NAN when missing */
    double power_limit_w;    /* limit the driver enforces now; NAN when missing */
    unsigned valid;          /* 1u << gpu_info_field */
};

struct nvml;

/* Loads NVML ($GAUNTLET_NVML_LIB, else libnvidia-ml.so.1), initialises it and takes every device's
 * handle. Returns NULL and a reason in why when the library is missing or nvmlInit fails. */
struct nvml *nvml_open(char *why, size_t n);
int nvml_device_count(const struct nvml *nv);
/* Fills out for device dev; returns 0, or -1 when dev is out of range. */
int nvml_device_info(struct nvml *nv, int dev, struct gpu_info *out);
/* Takes one sample of every available field; returns 0, or -1 when dev is out of range. A field's
 * first failure on a device is logged once; a field the device does not support is not asked again.
 * Not thread-safe for one struct nvml: one sampler thread per handle. */
int nvml_sample(struct nvml *nv, int dev, struct gpu_sample *out);
/* Samples only the fields in mask (GPU_VALID bits); the others are NAN / invalid. Same returns as nvml_sample. */
int nvml_sample_fields(struct nvml *nv, int dev, unsigned mask, struct gpu_sample *out);
/* Reads one field of dev as a double; 0, or -1 (unavailable or failed; *value is then NAN). */
int nvml_read_field(struct nvml *nv, int dev, enum gpu_field f, double *value);
/* Says whether field f of dev can still be asked for (symbol resolved, not found unsupported). */
int nvml_field_available(const struct nvml *nv, int dev, enum gpu_field f);
/* Names the fields that are unavailable and why ("" when none), for a one-time notice. */
const char *nvml_missing(const struct nvml *nv);
/* Returns the path that was loaded. */
const char *nvml_library(const struct nvml *nv);
/* Shuts NVML down and unloads it; NULL is ignored. */
void nvml_close(struct nvml *nv);
/* The NVML handle of device dev (NULL when it has none), a symbol of the loaded library (NULL when absent) and
 * NVML's text for r: for the device settings (devset.c), which resolve their own calls. */
nvmlDevice_t nvml_handle(const struct nvml *nv, int dev);
void *nvml_symbol(const struct nvml *nv, const char *name);
const char *nvml_error_text(const struct nvml *nv, nvmlReturn_t r, char *buf, size_t n);
/* The driver's power sample buffer (nvmlDeviceGetSamples(NVML_TOTAL_POWER_SAMPLES)): writes the samples newer than
 * *last_us (the driver's microsecond timestamps; 0: every one buffered), oldest first, at most max (the newest), into w
 * (W) and t_us, moves *last_us to the newest, and counts in *skipped those newer than *last_us left out past max.
 * Returns the count (0: none new); -1 where this GPU or driver has no buffer (a permanent failure: not asked again);
 * -2 where this call failed (a transient error: asked again). *err: the failure's code (NVML_SUCCESS: none). */
int nvml_power_samples(struct nvml *nv, int dev, unsigned long long *last_us, double *w, unsigned long long *t_us, int max,
                       long *skipped, nvmlReturn_t *err);
/* The same samples (at most 256), each stamped on the monotonic clock (mono_ns) in at_ns: the driver stamps them in
 * microseconds of the wall clock (CLOCK_REALTIME, as the H100's and H200's drivers do); a stamp that lands after now
 * or before the monotonic clock's start, or a value that is not a number, is not known: 0 (nvml_buf.c). */
int nvml_power_samples_mono(struct nvml *nv, int dev, unsigned long long *last_us, double *w, uint64_t *at_ns, int max,
                            long *skipped, nvmlReturn_t *err);
/* A wall-clock stamp (us) on the monotonic clock, given the wall clock minus the monotonic one (ns) and the monotonic
 * clock now: 0 where it lands after now or at or before the monotonic clock's start. */
uint64_t nvml_wall_us_to_mono(unsigned long long wall_us, int64_t wall_minus_mono_ns, uint64_t mono_now);

/* ---- the driver's sample buffer as a GPU's power source (nvml_buf.c): polled at most every NVML_BUF_POLL_NS, each
 * sample read once, its newest the reading until a newer one comes. */

#define NVML_BUF_POLL_NS 10000000ull   /* 10 ms: the H100's buffer holds a sample every 20 ms */
/* a poll is due from 8 ms on: the sampler's 10 ms tick comes a little early as often as late, and a tick 9.9 ms after
 * the last poll skipped it (until 2026-12-02 half the polls at 100 Hz were skipped: 20 ms between them) */
#define NVML_BUF_POLL_DUE_NS (NVML_BUF_POLL_NS * 8 / 10)
#define NVML_BUF_NEW 64                /* new samples one poll keeps (the newest; the rest are counted in passed) */
#define NVML_BUF_GAPS 31               /* polls whose mean interval the sample interval is the median of */
#define NVML_BUF_SEEN 256              /* stamps of the samples read last, kept (more than the driver buffers) */
enum nvml_buf_state {
    NVML_BUF_ON = 0,     /* it answers (or has not been asked yet) */
    NVML_BUF_NONE,       /* no buffer here, known before it gave a sample: another field is the source */
    NVML_BUF_FAILING,    /* its last poll failed (a transient error): a gap until one answers */
    NVML_BUF_STOPPED,    /* it failed for good after it gave samples: gaps from then on, no other sensor mixed in */
};
/* One GPU's buffer; zero-initialise. */
struct nvml_buf {
    enum nvml_buf_state state;
    int polled, have;             /* a poll was made / a sample was read */
    uint64_t poll_ns;             /* when it was last polled (mono_ns) */
    uint64_t first_ns;            /* the first poll that answered (mono_ns; 0: none yet) */
    unsigned long long last_us;   /* the newest sample's driver timestamp */
    double w;                     /* the newest sample: its power and its time on the mono clock (0: not known) */
    uint64_t at_ns;
    uint64_t new_ns;              /* when a poll last brought a new sample, or the stamps were last looked at afresh */
    unsigned long long period_us; /* the interval between its samples: the median of gaps_us (0: not yet) */
    unsigned long long gaps_us[NVML_BUF_GAPS];   /* the last polls' mean intervals (a ring; ngaps of them) */
    unsigned ngaps;
    long samples;                 /* samples read */
    long passed;                  /* samples a poll found besides its newest (polls further apart than the samples) */
    long failed;                  /* polls that failed (transient errors) */
    long reseeds;                 /* times its stamps went back (the wall clock stepped) and its newest was taken afresh */
    char err[64];                 /* the last failure's NVML text */
    int nnew;                     /* the last poll's new samples, oldest first, with their mono times (0: not known) */
    double new_w[NVML_BUF_NEW];
    uint64_t new_at[NVML_BUF_NEW];
    unsigned long long seen[NVML_BUF_SEEN];   /* stamps of the samples read last (a ring): not read twice */
    unsigned seen_next;
};
#define NVML_BUF_FIRST_NS 1000000000ull   /* a buffer that answers and holds no sample this long from its first poll
                                           * is not the source: the instant field is, from its first reading */
/* Polls dev's buffer into b when NVML_BUF_POLL_DUE_NS have passed since the last poll (now_ns: mono_ns). The first poll
 * takes the newest sample alone (what was buffered before is no reading of the run). A buffer that answers but has
 * given no sample NVML_BUF_FIRST_NS after its first answer is given up (state NONE, logged): no reading came from it,
 * so the instant field is the session's one sensor (until 2026-12-02 every reading of the run was a gap). Where no new sample came for five
 * sample intervals while polls answered, its newest is read afresh: stamps gone back (the wall clock stepped back)
 * are followed again, logged. Returns the new samples (in b->new_w, b->new_at), 0 when none or not polled. */
int nvml_buf_poll(struct nvml *nv, int dev, struct nvml_buf *b, uint64_t now_ns);
/* What a reading takes from b: 1 its newest sample (*w, *at_ns); 0 a gap (the last poll failed, it stopped, or it has
 * given no sample yet); -1 the buffer is not the source (none here, or not polled). */
int nvml_buf_reading(const struct nvml_buf *b, double *w, uint64_t *at_ns);
/* Says in out what the readings from b are (summary.json's sensor[].source): its failures, the samples passed over,
 * the stamps that went back. 0, or -1 where the buffer is not the source. */
int nvml_buf_describe(const struct nvml_buf *b, char *out, size_t n);

/* Returns the short name of field f ("power_instant", ...), "?" when out of range. */
const char *nvml_field_name(int f);

/* ---- energy counter to watts */

/* Watts between two samples from the energy counter; NAN when either lacks energy, time did not
 * advance, or the counter did not advance (or went back: driver reloaded). Right only when the two
 * samples are further apart than the counter's update period; see nvml_energy_rate otherwise. */
double nvml_energy_watts(const struct gpu_sample *prev, const struct gpu_sample *cur);

/* Differentiates the energy counter of a stream of samples taken faster than it updates: the watts
 * are averaged between the samples at which the counter was seen to change. Zero-initialise. */
struct nvml_energy_rate {
    uint64_t t_ns;      /* sample at which the counter last changed */
    uint64_t mj;        /* its value then */
    int have;
};
/* Feeds one sample; returns watts since the previous change, NAN when the counter did not move,
 * on the first reading, and when it went back (the rate restarts from this reading). */
double nvml_energy_rate_push(struct nvml_energy_rate *r, const struct gpu_sample *s);

/* ---- the update-rate probe (nvml_probe.c) */

/* What the probe found for one field. */
struct nvml_rate {
    int available;            /* 0: the field could not be read; the numbers below are NAN/0 */
    long calls;               /* successful reads */
    long changes;             /* times the value differed from the previous read */
    double update_ms;         /* the time from the first change to the last over the changes between: agrees with
                               * `changes` and the time read; NAN with fewer than two changes */
    double suggested_hz;      /* rate to sample at; NAN when unknown */
    double call_us;           /* median cost of one read */
};

/* Reads each available field of dev alone, as fast as it can, for `seconds` each (so the probe
 * takes about seconds x fields), and fills out[GPU_F_COUNT]. Returns the number of fields probed,
 * or -1 when dev is out of range or seconds is not positive. */
int nvml_probe_rates(struct nvml *nv, int dev, double seconds, struct nvml_rate out[GPU_F_COUNT]);
/* Prints one row per field: field, calls, changes, median update interval (ms), suggested rate (Hz),
 * call cost (us); "-" where a value is missing. Returns 0, or -1 on a write error. */
int nvml_probe_print(FILE *f, const struct nvml_rate r[GPU_F_COUNT]);
/* Counts the changes in v[0..n) read at t_ms[]; NAN readings are skipped. Writes the mean interval between
 * successive changes in ms (their span over their count: what the count says; NAN with fewer than two changes).
 * Returns the number of changes. */
long nvml_count_updates(const double *t_ms, const double *v, long n, double *interval_ms);
/* Rate to sample at: twice the update rate, but no more than half of what the call cost allows;
 * NAN when the update interval is unknown. */
double nvml_suggest_hz(double update_ms, double call_us);

#endif
