/* harness/backends/sim/simint.h: one sim rank's state and the pieces of its iteration, shared by sim.c (the model,
 * the simple iteration), simsteps.c (workload.phases and replay) and simfaults.c (faults and detectors' hooks). */
#ifndef GAUNTLET_SIMINT_H
#define GAUNTLET_SIMINT_H

#include "backend.h"
#include "mitigations/fillplan.h"
#include "mitigations/mitigation.h"
#include "util.h"

struct sim {
    const struct scenario *sc;
    struct shm *shm;
    int rank, nranks;
    int slot;                 /* its control block's (the modelled sensor's updates are offset per slot) */
    struct rng jitter;
    long dm, dn, dk;          /* real GEMM dimensions (capped by sim.max_dim) */
    float *a, *c;             /* A (dm x dk) and C (dm x dn); B is a view of the weights */
    size_t elems;             /* real gradient length */
    float *grad, *weights;
    /* the power model's state, mirrored into the control block at each phase change */
    struct power_state pw;
    struct mit_model mm;      /* what the run's mitigation does to the model */
    /* the filler between compute phases (fillplan.h): the gap in progress, its plan, the last gaps' lengths */
    struct fill_plan plan;
    struct fill_history gaps;
    struct fill_learn learn;  /* the gaps' first part, learned from the readings (fillplan.h) */
    int learn_said;           /* the gap count whose learning was last said */
    double gap_base_w;        /* the gap's own level where it began (sim.limiter's dip is a share of the part above) */
    int in_gap, gap_counts;   /* gap_counts: the gap began at a compute phase's end (its length is history) */
    uint64_t gap_t0;
    uint64_t burst_t0;        /* the compute phase in progress began then after a gap (sim.limiter's burst) */
    int raise_said;           /* this run said that a gap's floor was raised */
    struct ctl *ctl;
    struct worker_ctx *w;     /* the worker it serves (for its events) */
    float *b0, *replay_c;     /* replay detector: the weights' first values and its output */
    int comm_broken;          /* comm-error: the next all-reduce fails */
    uint64_t fp_hash;         /* fingerprint async: hashed at start (the sim has no second stream), taken later */
    int fp_pending;
    double det_dev_s[8];      /* per detector (enum detector_id): the host time of its checks (sim_detector_device_s) */
    uint64_t comm_end;        /* overlapped communication in flight until then (0: none) */
    double comm_bytes;        /* its bytes, reported when it is waited for */
    int comm_kind;            /* its kind (enum step_kind), named when it is waited for */
};

/* sim.c */
void sim_gemm(const struct sim *s, const float *bm, float *c);
void sim_mitigation(struct sim *s, struct worker_ctx *w);
uint64_t sim_duration_ns(struct sim *s, struct worker_ctx *w, double nominal_s);
void sim_wait_until(struct worker_ctx *w, uint64_t t_ns);
/* The modelled seconds of flops of GEMM under the run's mitigation (a cap slows it; nothing else does: ramps
 * and floors add power in the gaps), before jitter. */
double sim_gemm_nominal_s(struct sim *s, double flops);
/* The real data of the compute phase: the CPU GEMM, its faults and checks, the gradients. */
void sim_gemm_data(struct sim *s, struct worker_ctx *w);
/* The real gradient exchange (shared-memory all-reduce) and the optimizer step on the weights, with the fault
 * and check points around it; wait_until: the modelled end, waited for before the points after it. 0, or -1. */
int sim_exchange(struct sim *s, struct worker_ctx *w, uint64_t wait_until);
/* Sets the model's level from t on (the power there: p_w), under the run's floor and cap. */
void sim_set_level(struct sim *s, uint64_t t, double p_w, double level_w, int phase);
/* Returns the model's power at t (the electrical power, before the sensor's noise). */
double sim_power_now(const struct sim *s, uint64_t t);
/* simpower.c: the supervisor's side (backend_ops' power_open, power_read, sensor_source, power_close, power_info). */
struct power_source *sim_power_open(struct shm *shm, char *why, size_t n);
int sim_power_read(struct power_source *ps, int rank, uint64_t t, struct power_reading *out);
/* The worker's side of the modelled sensor: next takes prev's windows on, worked out from prev up to next's start
 * (the slot's first state: they begin at its update). Nothing without a sensor. */
void sim_sensor_step(const struct sim_params *m, int slot, const struct power_state *prev, struct power_state *next);
void sim_sensor_source(struct power_source *ps, int slot, char *out, size_t n);
void sim_power_close(struct power_source *ps);
int sim_power_info(struct power_source *ps, int slot, char *name, size_t n, double *tdp_w);
/* Says once per run (a mitigation_tuned event) that the gap ending now had its floor raised so that its ramps fit. */
void sim_say_raise(struct sim *s, struct worker_ctx *w);
/* The stagger's delay before the iteration's compute. */
void sim_delay(struct sim *s, struct worker_ctx *w);
/* The model's nominal seconds of one communication of bytes (kind: enum step_kind) over ranks ranks. */
double sim_comm_kind_s(const struct scenario *sc, int kind, double bytes, int ranks, double busbw_gbs);

/* simsteps.c */
int sim_steps(void *b, struct worker_ctx *w);          /* one iteration of workload.phases */
int sim_replay_iter(void *b, struct worker_ctx *w);    /* one pass of workload.replay's trace */
double sim_steps_estimate_s(const struct scenario *sc, int world);   /* nominal, without jitter or mitigation */

/* simfaults.c */
int sim_corrupt(void *b, struct corruption *c, char *what, size_t n);
int sim_break_comm(void *b, char *what, size_t n);
int sim_abft(void *b, double *err, double *tol);
int sim_fingerprint(void *b, int slice, int slices, uint64_t *h);
int sim_fingerprint_start(void *b, int slice, int slices);
int sim_fingerprint_take(void *b, uint64_t *h);
int sim_replay(void *b, uint64_t *h);
double sim_detector_device_s(void *b, int det);

#endif
