/* harness/control/shm.h: the shared-memory block between the supervisor and its workers: a header (the scenario,
 * the abort flag, the sim collective's barrier and buffers) and one control block per rank (commands in;
 * heartbeats, phase events and counters out, through single-producer rings). */
#ifndef GAUNTLET_SHM_H
#define GAUNTLET_SHM_H

#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"
#include "scenario.h"

#define SHM_MAGIC 0x474e544c45543031ull   /* "GNTLET01" */
#define SHM_VERSION 6
/* A rank's event ring. No record but a phase edge is ever dropped: a rank makes room for a whole iteration's events
 * before it starts one (scenario_iter_events, at most SC_ITER_EVENTS_MAX), and any other record waits, beating, for a
 * free slot (worker_events.c); the supervisor says any drop (sup_drain) and counts it (events_dropped). */
#define EVT_CAP 8192
/* Iterations a rank may end past what its supervisor has checked (shm checked_done) before it waits: a supervisor
 * behind its ranks (a loaded machine, a stop) loses no fingerprint to its comparison window (FP_WINDOW); when it keeps
 * up no rank ever waits. */
#define RUNAHEAD_MAX 32
#define CMD_CAP 64

enum phase { PH_IDLE = 0, PH_COMPUTE, PH_COMM, PH_CKPT, PH_OPT, PH_COUNT };   /* PH_OPT: an optimizer step */

/* Returns the phase's name as results files spell it. */
const char *phase_name(int phase);
/* The enum phase that s[0..n) names (phase_name's words), -1: none. */
int phase_parse(const char *s, size_t n);

/* What a worker reports. */
enum wev_type {
    WEV_READY = 1,     /* backend initialised; a = device memory used (bytes), b = clock uncertainty (s) */
    WEV_PHASE_BEGIN,   /* phase starts at t_ns */
    WEV_PHASE_END,     /* phase ends at t_ns; compute: a = flops; comm: a = bytes; checkpoint: a = bytes */
    WEV_ITER,          /* iteration iter done at t_ns; a = its duration (s) */
    WEV_RUN_DONE,      /* the run's iterations are done */
    WEV_ERROR,         /* fatal error; text in ctl.error */
    WEV_STOPPED,       /* stopped on request or abort */
    WEV_FAULT,         /* a fault was carried out: phase = its index in the scenario, note = what */
    WEV_DETECT,        /* a worker-side detector fired: phase = enum detector_id, a = measure, b = limit */
    WEV_FPRINT,        /* fingerprint of iteration iter: a = high 32 bits, b = low 32 bits */
    WEV_RESTORED,      /* state restored for a recovery: a = bytes read, b = seconds, note = from where */
    WEV_DETCOST,       /* end of run: worker-side detector phase (enum detector_id) cost a seconds in total */
    WEV_CKPT_WRITTEN,  /* an async checkpoint of iteration iter was written: a = bytes, b = seconds */
    WEV_TUNED,         /* a GPU mitigation measured its levels: a = floor W reached, b = filler duty, note = levels */
    WEV_GEMM_ALGO,     /* the GEMM's algorithm was chosen by timing: phase = its place in cuBLASLt's ranking, a = its
                        * TFLOP/s, b = the ranking's first's, iter = candidates timed, note = dtype and shape */
};

struct wevent {
    uint32_t type;
    int32_t rank;
    int32_t run;
    int32_t phase;
    int64_t iter;
    uint64_t t_ns;
    double a, b;
    char note[64];
    uint32_t epoch;    /* the recovery epoch it belongs to (the epoch of the CMD_RUN its rank runs under) */
    uint32_t mask;     /* WEV_FAULT: the bits of the element that changed (bit 0 least significant), 0: none */
    int64_t elem;      /* WEV_FAULT: the element corrupted, -1: none */
    double c, d;       /* WEV_FAULT: the element's old and new value */
    double scale;      /* WEV_FAULT: fault_detail.scale */
    int8_t target;     /* WEV_FAULT: enum fault_target, -1: none */
    int8_t where;      /* WEV_FAULT: enum flip_where, -1: none */
    int8_t format;     /* WEV_FAULT: enum num_format of the element, -1: none */
};

enum cmd_type { CMD_RUN = 1, CMD_STOP, CMD_EXIT, CMD_INJECT, CMD_ADOPT };
enum restore_from { RESTORE_NONE = 0, RESTORE_CHECKPOINT, RESTORE_REPLICA };

struct wcmd {
    uint32_t type;
    int32_t run;         /* CMD_RUN: index into the scenario's mitigations */
    int64_t iterations;  /* CMD_RUN: the run's total iterations */
    int64_t start_iter;  /* CMD_RUN: the first iteration to do (after a recovery: the restored state's) */
    int32_t restore;     /* CMD_RUN: enum restore_from */
    int32_t reconnect;   /* CMD_RUN: join a new communicator first (coll_id was remade; cuda) */
    uint32_t epoch;      /* CMD_RUN: the recovery epoch every report of this run carries (a new one at every
                            run start and every recovery: the supervisor drops reports of an abandoned one) */
    int32_t arg;         /* CMD_RUN + RESTORE_REPLICA: the rank whose replica to load; CMD_INJECT: the fault;
                            CMD_ADOPT: the rank a spare becomes */
};

/* One in-memory replica of a rank's state (recovery inprocess, spare, shrink), under a sequence lock. */
struct replica {
    _Atomic uint64_t seq;   /* odd while being written */
    int64_t iter;           /* the iterations the state has done */
    uint64_t len;
    uint64_t hash;          /* FNV-1a of the state */
};
#define REPLICA_SLOTS 4
#define SHM_BOUNDARY_PENDING (INT64_MAX - 1)
#define SHM_MAX_NODES 8192   /* the most nodes one run spans: every per-node table (which live, lost, ended) has so many */

#define CTL_BOOST_BINS 24   /* = FILL_LEARN_BINS (plugins/mitigations/fillplan.h; asserted where both are seen) */

enum worker_state { WS_STARTING = 0, WS_READY, WS_RUNNING, WS_IDLE, WS_FAILED, WS_EXITED, WS_PAUSED };

/* The modelled sensor's windows (sim.sensor), worked out by the worker as its power model moves from state to state,
 * so that a reading is the mean over its whole update however often the supervisor reads it (until 2026-11-30 the
 * supervisor averaged only the states it saw at its own readings: a phase begun and ended between two of them was
 * never in the mean, and the swing read 177 W at 1 kHz, 510 W at 100 Hz). Each update's window [tick - u, tick] is
 * sampled at SENSOR_SUB_NS steps (see harness/backends/sim/simpower.c). */
#define SENSOR_WINDOWS 64   /* the completed windows kept: the newest visible one may be up to sim.sensor.lag old */
struct sensor_acc {
    uint64_t next_j;                 /* the next sub-sample to take (counted from the slot's first update time) */
    double sum;                      /* over the window in progress */
    uint64_t done;                   /* windows completed (0 with next_j 0: not begun) */
    int64_t k[SENSOR_WINDOWS];       /* ring (index done % SENSOR_WINDOWS): each completed window's update number */
    double w[SENSOR_WINDOWS];        /* and its mean */
};

/* The modeled power of a rank, published by the worker at each phase change under a sequence lock: from p0 at
 * t0 toward target along the first-order response (time constant tau = sim.ramp) bounded by the ramp limits,
 * dP/dt = clamp((target - P) / tau, -down_w_s, +up_w_s) (backends/simmodel.h). */
struct power_state {
    _Atomic uint32_t seq;   /* odd while being written */
    int32_t phase;
    uint64_t t0_ns;
    double p0_w, target_w;
    double up_w_s, down_w_s;   /* > 0: the change is never faster than this (ramp limits); 0: no limit */
    double floor_w;            /* > 0: a fall from at or above it stops there (a filler holds it from the moment
                                * the power reaches it); 0: none */
    double hold_w;             /* > 0: the fall's limit (down_w_s) binds only below this level, the filler's most:
                                * above it the power falls as it would without a filler */
    uint64_t rise_ns;          /* > 0: from then on the power climbs towards rise_w, never faster than up_w_s (the
                                * filler prepares the next compute phase); 0: no climb */
    double rise_w;
    uint64_t burst_t0_ns;      /* > 0: the compute phase began then after a gap (sim.limiter's burst); 0: none */
    uint64_t dip_t0_ns;        /* > 0: the gap's held-up power began then after a compute phase (the dip); 0: none */
    double dip_floor_w;        /* the gap's own level: the dip never takes the power below it */
    double dip_base_w;         /* the gap's own level as it began: the dip is a share of the part above it */
    double boost_w[CTL_BOOST_BINS];    /* the filler's learned boost in each bin of the gap begun at dip_t0_ns
                                        * (plugins/mitigations/fillplan.h: fill_learn); all 0 without one */
    struct sensor_acc sens;    /* the sensor's windows up to t0 (those before, worked out with the states before) */
};

#define CTL_SAMPLES 256   /* the slot's last distinct power samples (20 ms apart on a GPU: 5 s) */

/* One power sample as its source stamps it (a GPU driver's own sample time; else the time of the reading). */
struct ctl_sample_copy {
    uint64_t t_ns;
    double w;
};
struct ctl_sample {
    _Atomic uint64_t t_ns;
    _Atomic uint64_t mw;
};

struct ctl {
    _Atomic uint64_t heartbeat_ns;  /* last proof of life, monotonic */
    _Atomic int64_t iter;           /* iterations completed in the current run */
    _Atomic uint32_t state;         /* enum worker_state */
    _Atomic int32_t phase;          /* enum phase, now */
    _Atomic int32_t rank;           /* the rank this slot serves (a spare's slot takes one over) */
    int32_t pid;
    char error[256];                /* a fatal error's text, written before WEV_ERROR */
    char device[96];                /* the device the rank runs on (cuda: its GPU's UUID), "" until known */
    int32_t numa_node;              /* its GPU's NUMA node (-1: none, -2: not known, e.g. sim) */
    int32_t numa_pinned;            /* 1: the worker runs only on that node's CPUs; 0: not; -1: unknown */
    double h2d_gbs;                 /* host-to-device copy bandwidth from pinned memory (NAN: not measured) */
    _Atomic uint64_t power_mw;      /* the supervisor's latest reading of this slot's power, mW (0: none yet) */
    _Atomic uint64_t power_seq;     /* readings so far: a worker waits for new ones while it tunes a mitigation */
    _Atomic uint64_t reading_ns;    /* when the latest reading was taken, monotonic */
    _Atomic uint64_t energy_mj;     /* the energy counter at the latest reading that had it, mJ (0: none yet) */
    _Atomic uint64_t energy_ns;     /* when that reading was taken, monotonic */
    _Atomic uint64_t energy_seq;    /* odd while the pair above is written */
    _Atomic uint64_t tdp_mw;        /* its GPU's power limit, mW (0: not known), before the first run */
    /* per worker-side detector (enum detector_id): the checks this process compared something in since it last
     * reported them (its run's WEV_DETCOST); the supervisor takes a dead process's, which never reports (a restart's
     * kill) */
    _Atomic int64_t checks[8];
    /* the GPU mitigations' levels, measured once by the slot's first worker (a replacement reuses them) */
    _Atomic uint32_t tuned;
    double tune_w[5];               /* idle, then the filler at 25, 50, 75, 100 % duty (W) */
    double tune_compute_w, tune_gemm_s;
    struct power_state pw;
    _Atomic uint64_t samples_n;     /* distinct samples published so far (the ring below: the newest CTL_SAMPLES) */
    struct ctl_sample samples[CTL_SAMPLES];
    struct ring cmd;                /* supervisor → worker */
    struct wcmd cmd_slots[CMD_CAP];
    struct ring evt;                /* worker → supervisor */
    struct wevent evt_slots[EVT_CAP];
};
static_assert(offsetof(struct ctl, cmd_slots) == offsetof(struct ctl, cmd) + sizeof(struct ring), "ring storage");
static_assert(offsetof(struct ctl, evt_slots) == offsetof(struct ctl, evt) + sizeof(struct ring), "ring storage");
static_assert(sizeof(struct ctl) <= SC_CTL_SLOT_BYTES, "scenario_node_bytes counts a slot as SC_CTL_SLOT_BYTES");
static_assert(EVT_CAP >= SC_ITER_EVENTS_MAX, "a rank's event ring holds the events of its longest iteration");

struct shm_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nranks;
    uint64_t size;
    uint64_t t0_ns;                 /* the run's time origin (t_s = 0) */
    _Atomic uint32_t abort;         /* set: every wait gives up, every worker stops */
    int32_t supervisor_pid;
    char backend[16];
    char ckpt_tag[192];             /* checkpoint files are <path>/<ckpt_tag>-rank<R>-<gen>.ckpt (checkpoint_tag) */
    struct scenario sc;
    unsigned char coll_id[128];     /* the cuda backend's NCCL unique id, made by the supervisor */
    struct { _Atomic uint32_t count; _Atomic uint32_t gen; } barrier;
    uint64_t coll_elems;            /* fp32 elements per rank slot of the sim all-reduce */
    uint64_t ctl_off, coll_off, replica_off;
    uint32_t nslots;                /* control blocks: ranks, then spares */
    uint64_t replica_bytes;         /* state bytes per replica slot (0: no replicas) */
    _Atomic uint32_t nactive;       /* ranks taking part in the collective (shrink lowers it) */
    _Atomic uint32_t fw_smoothing;  /* 1: this run's smoothing runs in the GPUs' firmware: workers do not emulate it */
    int16_t active[256];            /* the ranks taking part, in rank order (sim) */
    _Atomic uint32_t fault_fired[SC_MAX_FAULTS];   /* an iteration fault fires once a run, recoveries or not */
    _Atomic int64_t pause_at;       /* every rank waits before starting this iteration (INT64_MAX: never) */
    _Atomic int64_t stop_at;        /* every rank ends the run before this iteration (a skip; INT64_MAX: never) */
    _Atomic int64_t checked_done;   /* iterations this node's supervisor has seen every active rank end (its checks of
                                       them made): a rank runs at most RUNAHEAD_MAX iterations past it, and writes no
                                       replica or checkpoint that would leave none a later finding can roll back to */
    /* While the supervisor picks a boundary it first stores SHM_BOUNDARY_PENDING, then reads every rank's
     * iteration, then stores the boundary; a rank stores its iteration, then reads the boundary and waits
     * while it is pending. Both sides store before they load (seq_cst), so one of them sees the other: no
     * rank can start an iteration the supervisor did not count. */
    /* several nodes (harness/cluster/cluster.c): this node's place, and the sim all-reduce's step across nodes */
    uint32_t node, nodes;
    uint32_t rank_offset;           /* global rank of local rank 0: node x ranks per node */
    uint32_t world;                 /* ranks over every node */
    struct {
        _Atomic uint64_t epoch;     /* set before every CMD_RUN (run start, recovery): the same on every node */
        _Atomic uint64_t want;      /* the collective the node's ranks are in: epoch << 32 | its number in it */
        _Atomic uint64_t ready;     /* the node's active ranks' inputs for `want` are in their slots */
        _Atomic uint64_t out_ready; /* the result holds the sum over every node (the proxy thread is done with the
                                       slots) */
        _Atomic uint64_t out_failed; /* the proxy thread could not sum this collective (an MPI error, a chunk out
                                        of order: not given up): the node's ranks fail it, never wait for ever */
        uint64_t count;             /* floats in this collective */
        _Atomic uint32_t want_seq;  /* bumped after `want` moves: the proxy thread sleeps on it (shm_seq_wait) */
        _Atomic uint32_t out_seq;   /* bumped after `out_ready` moves: the node's ranks sleep on it */
        _Atomic uint32_t world_active; /* ranks taking part over every node (shrink lowers it) */
        _Atomic uint32_t active_before; /* ranks taking part on the nodes before this one: its first rank's place */
        uint8_t live[SHM_MAX_NODES];   /* nodes with ranks still taking part: the sim's sum skips the others */
    } xn;
};

struct shm {
    struct shm_hdr *hdr;
    int fd;
    size_t size;
};

/* Creates the block (memfd) for nranks ranks plus nspares spare slots, coll_elems fp32 per collective slot and
 * replica_bytes of state per replica slot (REPLICA_SLOTS per rank). 0 or -1; a block larger than the memory the
 * machine lets the run have (scenario_mem_limit) is refused, saying so, before anything is made. */
int shm_create(struct shm *s, int nranks, int nspares, uint64_t coll_elems, uint64_t replica_bytes);
/* Maps the block inherited as fd (worker side) and checks magic and version. 0 or -1. */
int shm_attach(struct shm *s, int fd);
/* Unmaps (and closes) the block. */
void shm_close(struct shm *s);
/* Returns the control block of slot (a rank's slot is its rank; spares follow). */
struct ctl *shm_ctl(struct shm *s, int slot);
/* Returns replica slot k of rank and the bytes after it. */
struct replica *shm_replica(struct shm *s, int rank, int k);
/* Resets the collective for a new start after an abort: barrier, abort flag. */
void shm_reset_collective(struct shm *s);
/* Returns rank's input slot of the sim all-reduce, and the reduced output. */
float *shm_slot(struct shm *s, int rank);
/* The running sum arriving from the previous node (several nodes only). */
float *shm_result(struct shm *s);
/* Waits until all active ranks arrive; calls beat(arg) while waiting. 0, or -1 when abort was set. */
int shm_barrier(struct shm *s, void (*beat)(void *), void *arg);
/* Sets the abort flag: every waiting rank gives up (those asleep on the all-reduce's words are woken). */
void shm_abort(struct shm *s);
int shm_aborted(struct shm *s);
/* A futex on a word of the control block, between processes: shm_seq_wait sleeps while *w still holds seen, at most
 * timeout_ns (a wake, a change of *w, the timeout or a signal ends it: the caller looks again at what it waits for);
 * shm_seq_bump changes *w and wakes every sleeper. Read *w before the condition waited for, and bump it after the
 * condition is made true, and no wake is lost. Where futexes fail, the wait is a nap of at most 1 ms. */
void shm_seq_wait(_Atomic uint32_t *w, uint32_t seen, uint64_t timeout_ns);
void shm_seq_bump(_Atomic uint32_t *w);

/* Publishes the modeled power state of a rank (worker side). */
void ctl_set_power(struct ctl *c, const struct power_state *ps);
/* Publishes the supervisor's reading of a slot taken at t_ns: watts, and the energy counter (NAN: none), for a worker
 * that tunes or corrects its mitigation against its GPU's real power. */
void ctl_publish_reading(struct ctl *c, double watts, double energy_j, uint64_t t_ns);
/* Publishes a power sample stamped t_ns into the slot's ring, unless it is the one published last (a driver's
 * buffer gives its newest sample to several readings), or its time is 0 or its value not a finite number >= 0.
 * The supervisor's only. */
void ctl_publish_sample(struct ctl *c, uint64_t t_ns, double watts);
/* Copies the slot's samples stamped in (after_ns, until_ns], oldest first, into out (at most max, the newest
 * kept) from the newest CTL_SAMPLES - 1 (the oldest slot is the one the next sample takes); a sample overwritten
 * while it was read is left out. Returns how many. */
int ctl_read_samples(struct ctl *c, uint64_t after_ns, uint64_t until_ns, struct ctl_sample_copy *out, int max);
/* Reads the latest energy counter reading published (*mj 0: none yet) and its time, consistently (worker side). */
void ctl_read_energy(struct ctl *c, uint64_t *mj, uint64_t *t_ns);
/* Reads it consistently (supervisor side): 0, or -1 when no whole copy came in CTL_POWER_TRIES tries (a worker
 * killed in the middle of ctl_set_power leaves the count odd until the slot's next worker writes: the reader must
 * not spin on it, the supervisor would hang; the caller keeps what it had). */
#define CTL_POWER_TRIES 2000
int ctl_get_power(struct ctl *c, struct power_state *out);

#endif
