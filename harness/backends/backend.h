/* harness/backends/backend.h: a backend (sim, cuda) is one const struct of hooks, listed in harness/backends/table.c.
 * Supervisor-side hooks run in the supervisor; worker-side hooks run in each rank's process. */
#ifndef GAUNTLET_BACKEND_H
#define GAUNTLET_BACKEND_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "devset.h"
#include "faults/fault.h"
#include "scenario.h"
#include "shm.h"

#define BACKEND_OPS_VERSION 1

/* What a rank's worker hands its backend. */
struct backend_ops;

struct worker_ctx {
    const struct scenario *sc;
    const struct backend_ops *ops;
    void *b;            /* the backend's state, from init */
    struct shm *shm;
    struct ctl *ctl;
    int rank, nranks;
    int run;            /* index of the mitigation run in progress */
    uint32_t epoch;     /* the recovery epoch of the run command in progress: every report carries it */
    int64_t iter;       /* iteration in progress */
    uint64_t iter_t0;   /* first phase begin of the iteration in progress */
    uint64_t last_end;  /* last phase end */
    int step_kind;      /* the kind (enum step_kind) of the communication the backend reports next: its phase events
                         * name it (all_reduce outside workload.phases) */
    char err[256];      /* a hook that fails writes why here */
    /* faults and detectors */
    double slow_factor;        /* straggler: phases take this many times longer, until slow_until_ns */
    uint64_t slow_until_ns;
    int fault_now;             /* index of the fault being carried out, for worker_fault_done */
    uint64_t detect_skip_ns;   /* a detector's check: time spent that is counted elsewhere */
    struct fault_detail fdet;  /* what it did, for the record (its buffer, element, bits, values) */
    int pending[SC_MAX_FAULTS];/* faults sent by the supervisor (at_s, rate, by hand), not yet carried out */
    int n_pending;
    uint64_t replay_ref;       /* replay detector: the hash of the first replay */
    double detect_cost_s[8];   /* time spent in each worker-side detector (enum detector_id) this run */
    double detect_dev0_s[8];   /* the backend's detector_device_s at this run's start (its own work on the device) */
    int64_t detect_iters;      /* iterations this process completed since detect_cost_s began: what it covers */
    int64_t detect_checks[8];  /* per worker-side detector: the checks that compared something since then
                                * (detector_env.checked) */
    struct ckpt_async *ckpt;   /* the background checkpoint writer (checkpoint.mode async) */
    uint64_t ckpt_wait_t0;     /* when the wait on it began (its beat stops once a write may have taken no longer) */
    int fp_pending;            /* an asynchronous fingerprint was started for iteration fp_iter */
    int64_t fp_iter;
    int exit_asked;            /* an EXIT came while a run was in progress: the worker leaves once the run is left */
};

/* Reports a phase edge at t_ns (the backend calls it, since only it knows when its work really ran). */
void worker_phase(struct worker_ctx *w, int phase, int begin, uint64_t t_ns, double a);
/* Ends a communication step of workload.phases at t: bytes its message, bus_bytes what nccl-tests' bus bandwidth
 * counts of it (its bus bandwidth is bus_bytes over the phase's time; 0: an exposed wait, no bandwidth). */
void worker_phase_bus(struct worker_ctx *w, uint64_t t, double bytes, double bus_bytes);
/* Proves the worker is alive (called by backends inside long waits that are progress, not hangs). */
void worker_beat(struct worker_ctx *w);
/* Reaches point of the iteration (enum inject_point): carries out the faults due there and runs the
 * worker-side detectors that check there. Backends call it where the data of that point is live. */
void worker_point(struct worker_ctx *w, int point);
/* Reports that worker-side detector det (enum detector_id) fired, with a note. */
void worker_emit_detect(struct worker_ctx *w, int det, const char *note);
/* Reports that the fault in progress was carried out (what: a description); before a crash or a hang too. */
void worker_fault_done(struct worker_ctx *w, const char *what);
/* Reports the levels a GPU mitigation measured for itself: the floor it holds (W), the filler's duty, a note. */
void worker_emit_tuned(struct worker_ctx *w, double floor_w, double duty, const char *note);
/* Reports the GEMM algorithm chosen by timing: its place in the library's ranking, its TFLOP/s and the ranking's
 * first's, how many candidates ran, and what GEMM (note: dtype and shape). */
void worker_emit_gemm_algo(struct worker_ctx *w, int chosen, int candidates, double tflops, double first_tflops,
                           const char *note);
/* Returns the factor by which a straggling rank stretches its phases now (1 when it is not straggling). */
double worker_slowdown(struct worker_ctx *w);

/* workload.replay, on every backend: the phase a sample of level reports (compute at or above mid, the trace's
 * middle level, communication below), switched at t from phase when it changes; returns the phase now. */
int worker_replay_phase(struct worker_ctx *w, int phase, double level, double mid, uint64_t t);

/* workload.replay's middle level: the mean of its lowest and highest sample. */
double backend_replay_mid(const struct scenario *sc);
/* What nccl-tests' bus bandwidth counts of a communication of bytes (kind: enum step_kind) over ranks ranks:
 * all-reduce 2(n-1)/n of the message, reduce-scatter, all-gather and all-to-all (n-1)/n, a send the message. */
double backend_bus_bytes(int kind, double bytes, int ranks);

/* One power reading of a rank. NAN where not measured. */
struct power_reading {
    double watts;        /* instantaneous where the source has it */
    double avg_w;        /* the source's averaged power */
    double energy_j;     /* cumulative energy counter */
    double clock_mhz, temp_c;
    uint64_t throttle;   /* source-specific reason bits; 0 when none or unknown */
    int throttle_read;   /* 1: throttle was read with this reading (0 then means no reason); 0: not read, unknown */
    double true_w;       /* a modelled backend: the electrical power itself at the reading's time (what the reading,
                          * through the modelled sensor, stands for); NAN on a real one */
    uint64_t sample_ns;  /* the time (mono_ns) the reading stands for where its source stamps it: the driver's sample
                          * buffer's own timestamp, the modelled sensor's update; 0: the time it was read */
    /* the driver buffer's samples new at this reading, oldest first, each with its own time (mono_ns; 0: not known),
     * valid until the slot's next reading: every one of them, where the reading keeps only the newest */
    int nbuf;
    const double *buf_w;
    const uint64_t *buf_ns;
    int unstamped;       /* 1: the value's time is not known (no buffer: a field the driver updates every ~100 ms, or
                          * a sample repeated since it came): not a sample to learn from */
};

/* A reading with nothing in it: every measure NAN. */
#define POWER_READING_NONE                                                                                        \
    ((struct power_reading){ .watts = NAN, .avg_w = NAN, .energy_j = NAN, .clock_mhz = NAN, .temp_c = NAN,        \
                             .true_w = NAN })

struct power_source;     /* a backend's private sampler state */

/* The model state a cuda rank snapshots for checkpoints and replicas (the leading bytes of its weights): one
 * constant for the worker's snapshot and the supervisor's replica slots. */
#define CUDA_STATE_BYTES (1u << 20)

struct backend_ops {
    int version;         /* BACKEND_OPS_VERSION */
    const char *name;
    const char *help;
    int absent;          /* 1: not built in (its toolkit was missing when the build was configured): it exists only to
                            say why it cannot run, and `--version` leaves it out */
    int modelled;        /* 1: its devices are a model (sim): nothing fails there that was not injected, so a
                            corruption detected with no fault injected is a false positive, not a real fault */
    /* What differs between backends, as data (never a compare of the name): */
    int max_nodes;       /* the most nodes one run may span (0: no limit of its own) */
    size_t (*state_bytes)(const struct scenario *sc);   /* a rank's state: the size of its replica */
    size_t (*shm_coll_elems)(const struct scenario *sc);   /* its all-reduce in shared memory: floats; NULL: none */
    /* Modelled backends: the figures the model is given (the scenario's own section), which stand where a real
     * GPU's come from its model's table or its sensors. NULL on a real backend. */
    const char *model_note;   /* what its figures take from the model, in one sentence (summary's `modelled`) */
    double (*model_tdp_w)(const struct scenario *sc);
    double (*model_tflops)(const struct scenario *sc);
    double (*model_busbw_gbs)(const struct scenario *sc);
    double (*estimate_iter_s)(const struct scenario *sc);   /* an iteration's seconds on the model (NULL: no model) */

    /* supervisor side */
    int (*probe)(char *why, size_t n);                          /* 0: usable here; else why not */
    int (*check)(const struct scenario *sc, char *why, size_t n); /* 0, or EXIT_INPUT with why */
    /* the part of check that needs no device (the scenario alone: `check` runs it where probe fails); may be NULL */
    int (*check_scenario)(const struct scenario *sc, char *why, size_t n);
    int (*prepare)(struct shm *shm, char *why, size_t n);        /* before workers start; may be NULL */
    struct power_source *(*power_open)(struct shm *shm, char *why, size_t n);
    int (*power_read)(struct power_source *ps, int slot, uint64_t t_ns, struct power_reading *out);   /* the rank's slot */
    void (*power_close)(struct power_source *ps);
    /* What does not change: the slot's GPU model ("" unknown) and its TDP (default power limit, NAN unknown);
     * 0, or -1 when the slot's GPU is not known yet. May be NULL. */
    int (*power_info)(struct power_source *ps, int slot, char *name, size_t n, double *tdp_w);
    /* Says in out what the slot's power readings come from (the sensor and its field); may be NULL. */
    void (*sensor_source)(struct power_source *ps, int slot, char *out, size_t n);
    /* The GPUs of this node (gauntlet accept runs one rank on each); NULL where it has no meaning (sim). */
    int (*device_count)(void);
    /* Device settings (devset.h), asked only with --allow-device-settings; NULL where there are none (sim).
     * The slot's GPU power limit (from_w: the limit before), its firmware power smoothing (0 on, 1 this GPU
     * has none, -1 error), and every change this process made put back (returns how many could not be). */
    int (*set_power_limit)(struct power_source *ps, int slot, double watts, double *from_w, char *why, size_t n);
    int (*set_smoothing)(struct power_source *ps, int slot, const struct devset_smoothing *r,
                         struct devset_smoothing_readback *out, char *why, size_t n);
    int (*restore_settings)(struct power_source *ps);

    /* worker side */
    void *(*init)(struct worker_ctx *w, char *why, size_t n);
    void (*on_phase)(void *b, int phase, uint64_t t_ns);         /* phase changed (sim: power model); may be NULL */
    int (*begin_run)(void *b, struct worker_ctx *w);             /* a run (mitigation) starts; 0, or -1 with w->err; may be NULL */
    void (*idle)(void *b);                                       /* the rank goes idle (run over, paused); may be NULL */
    int (*compute)(void *b, struct worker_ctx *w);               /* the GEMM chain; reports its phase edges */
    int (*allreduce)(void *b, struct worker_ctx *w);             /* the all-reduce; reports its phase edges */
    /* One iteration of workload.phases (every step's edges reported; faults and checks at the first GEMM and the
     * gradient exchange), and one pass of workload.replay's trace; NULL where the backend runs neither (check
     * then refuses such a scenario). */
    int (*steps)(void *b, struct worker_ctx *w);
    int (*replay_iter)(void *b, struct worker_ctx *w);
    int (*snapshot)(void *b, const void **state, size_t *len);   /* host copy of the model state (checkpoints) */
    double (*device_bytes)(void *b);                             /* device memory this rank holds */
    double (*clock_error)(void *b);   /* seconds: how far its phase times may sit from the host clock; may be NULL */
    /* faults and detection; each may be NULL when the backend cannot do it */
    int (*corrupt)(void *b, struct corruption *c, char *what, size_t n);  /* flip bits in a live buffer */
    void (*hang)(void *b);                                       /* stop making progress on the device */
    int (*break_comm)(void *b, char *what, size_t n);            /* make the communicator fail */
    int (*abft)(void *b, double *err, double *tol);              /* check the GEMM output; 1: corrupted */
    /* hash of slice `slice` of `slices` of the reduced buffer and of the state (fingerprint_slice, aligned to 16
     * bytes; slices 1: all of them) */
    int (*fingerprint)(void *b, int slice, int slices, uint64_t *h);
    /* The same hash, asynchronous: start it after the all-reduce (0 or -1), take it later (1 with *h, 0 when
     * none is pending, -1 error); until taken the backend keeps its buffers unchanged for it. */
    int (*fingerprint_start)(void *b, int slice, int slices);
    int (*fingerprint_take)(void *b, uint64_t *h);
    int (*replay)(void *b, uint64_t *h);                         /* recompute the fixed GEMM; hash of its output */
    /* The device time detector det's own work has taken on this rank since it started, in seconds: between
     * events around its kernels on the GPU (an asynchronous fingerprint's beside the compute phase too); on the
     * sim the host time of its check (the sim's device is the host). NAN: not measured. May be NULL. */
    double (*detector_device_s)(void *b, int det);
    int (*restore)(void *b, const void *state, size_t len);      /* load the model state (checkpoint, replica) */
    int (*reconnect)(void *b, struct worker_ctx *w);             /* join the communicator made anew among the active ranks */
    void (*fini)(void *b);
};

/* Every backend, NULL-terminated. */
extern const struct backend_ops *const backend_table[];

/* Returns the backend named name, or NULL. */
const struct backend_ops *backend_find(const char *name);
/* Resolves --backend: "auto" (cuda when a usable GPU is found, else sim, saying why) or a name that must be
 * usable here. Prints the choice on stdout; NULL with *code EXIT_INPUT (unknown) or EXIT_ENV (unusable). */
const struct backend_ops *backend_pick(const char *name, int *code);
/* Checks the table (version, required hooks, unique names); 0, or -1 with why. */
int backend_table_check(char *why, size_t n);

#endif
