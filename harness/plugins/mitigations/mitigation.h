/* harness/plugins/mitigations/mitigation.h: a power-swing mitigation strategy is one const struct in a file of
 * its own, listed once in harness/plugins/mitigations/table.c. On sim each one shapes the power model and the
 * phase durations through `model`; on cuda the same model drives the GPU (harness/backends/cuda/shaper.c: filler work
 * between compute phases following fillplan.h's plan, stagger), and `device` names what the supervisor changes
 * through NVML (devset.c). */
#ifndef GAUNTLET_MITIGATION_H
#define GAUNTLET_MITIGATION_H

#include "analysis.h"
#include "param.h"
#include "plugin.h"

#define MITIGATION_OPS_VERSION 1

struct sim_params;

/* What a mitigation does to one rank, on sim and on a GPU. Zero fields change nothing. The floor and the ramp rates
 * act only between compute phases, through filler work that adds power (fillplan.h); compute always runs whole. */
struct mit_model {
    double floor_w;      /* no phase between compute phases draws less (filler work keeps the GPU busy) */
    double cap_w;        /* the compute level is at most this; compute slows as (compute_w / cap_w)^0.4 */
    double ramp_up_w_s;  /* the filler climbs at this rate ahead of the next compute phase */
    double ramp_down_w_s;/* the filler holds the fall after compute up and releases it at this rate */
    double delay_s;      /* this rank starts each compute phase this much later (stagger) */
};

/* What a run offers a mitigation to act on, for mitigation_inert: NAN or 0 where it is not known. */
struct mit_run {
    double tdp_w;      /* the TDP a % is read against (the GPU's, or the model's) */
    double idle_w;     /* the GPU's power with nothing running (measured at start-up, or the model's sim.idle_w) */
    double sample_s;   /* the power trace's sample period (1 / power.sample_hz) */
    int world;         /* the ranks a stagger's groups are drawn from */
};
struct mitigation_ops {
    PLUGIN_HEAD;
    /* Fills what the mitigation does to rank's sim model (NULL: nothing: the baseline). */
    void (*model)(const void *params, const struct sim_params *m, int rank, int nranks, struct mit_model *out);
    /* A device setting on a GPU: MIT_DEV_CAP needs --allow-device-settings; MIT_DEV_SMOOTHING uses the
     * firmware's power smoothing with it where the GPU has it, and the software emulation otherwise. */
    enum { MIT_DEV_NONE = 0, MIT_DEV_CAP, MIT_DEV_SMOOTHING } device;
    /* Facility-side: fills the battery that serves the projected cluster's draw after the run (NULL: none). */
    void (*facility)(const void *params, struct an_bess *out);
    /* One sentence: what this mitigation's figures assume rather than measure where the backend is modelled
     * (backend_ops.modelled: sim); a facility mitigation's model is a model on every backend. NULL: nothing
     * assumed (the baseline). */
    const char *model_note;
    /* Sized from the baseline's measured swing (bess with `size`): the share of the projected swing (%) its params
     * ask for, 0 when they give ratings of their own; size sets the ratings from swing_mw (when > 0) and says what
     * they are. NULL: never sized. */
    double (*size_share)(const void *params);
    void (*size)(void *params, double swing_mw, double *power_mw, double *capacity_mwh);
    /* Refuses params a GPU would refuse (m: the model's levels, its tdp_w the TDP a % is read against): -1 with the
     * parameter in *key and what was expected in why; 0 when they are fine. NULL: every value its table lets through
     * is fine. */
    int (*check)(const void *params, const struct sim_params *m, const char **key, char *why, size_t n);
    /* Says in why (one sentence) when params can do nothing in run (a stagger with one group, a floor at idle, a
     * battery whose window is no longer than a sample): 1 when said, else 0. NULL: never. */
    int (*inert)(const void *params, const struct mit_run *run, char *why, size_t n);
};

/* Every mitigation, NULL-terminated, in the order `gauntlet list` shows them. */
extern const struct mitigation_ops *const mitigation_table[];

/* Returns a power level in watts: a percentage of tdp_w, or watts. */
double mitigation_watts(const struct power_value *v, double tdp_w);
/* Returns the TDP a rank's mitigation reads its % of TDP against, as its worker does: on a modelled backend
 * (modelled 1) the model's own m->tdp_w (the sim's worker reads its model with it), else its GPU's as the supervisor
 * handed it over in the rank's control block (tdp_mw: power.tdp_w when given, else NVML's default limit); NAN when
 * that is 0 (not known). */
double mitigation_tdp_w(int modelled, const struct sim_params *m, uint64_t tdp_mw);
/* Fills out (zeroed first) as mitigation_table[index]'s model does for rank of nranks on a GPU whose TDP is tdp_w:
 * m's levels with its tdp_w replaced, as the cuda worker's shaper reads it (nothing for a mitigation without one). */
void mitigation_model_tdp(int index, const void *params, const struct sim_params *m, double tdp_w, int rank,
                          int nranks, struct mit_model *out);
/* mitigation_table[index]'s check of params (0 without one). */
int mitigation_check(int index, const void *params, const struct sim_params *m, const char **key, char *why, size_t n);
/* mitigation_table[index]'s inert (0 without one). */
int mitigation_inert(int index, const void *params, const struct mit_run *run, char *why, size_t n);

/* Whether mitigation_table[index] with params shapes the GPUs' own power over an iteration (a floor, a ramp limit, a
 * stagger: its model says so), so that it has nothing to act on when the power cannot follow the iteration's
 * phases. */
int mitigation_acts_on_swing(int index, const void *params, const struct sim_params *m);

/* The share of an iteration's phase-level difference a first-order power response (time constant tau_s) follows
 * at most, for an iteration of period_s split in two phases at the worst duty (half and half): tanh(period /
 * (4 tau)). 1: the power reaches every phase's level; 0.04 (12.5 ms against 70 ms): it hardly moves. */
double mitigation_followed_share(double period_s, double tau_s);

/* Says in why (one sentence, for `check` and the comparison with none) when a mitigation has little swing to act on
 * or none its readings can show: an iteration of period_s against the power response's time constant tau_s
 * (sim.ramp: the power follows less than a quarter of its phases' difference), or shorter than two of the power
 * sensor's updates of update_s (0: none; a reading every update_s cannot follow it: what it shows is an alias).
 * 1 when said of the power response, 2 of the sensor (the swing a mitigation removes cannot be measured), else 0. */
int mitigation_timescale_warning(const char *name, double period_s, double tau_s, double update_s, char *why, size_t n);

struct filler_params { struct power_value floor; };
struct ramp_params { double ramp_w_s; };
struct cap_params { struct power_value cap; };
struct stagger_params { int64_t groups; double offset_s; };
struct smoothing_params { struct power_value floor; double ramp_up_w_s, ramp_down_w_s, hysteresis_s; };
struct bess_params { double capacity_mwh, power_mw, efficiency, window_s, size_pct; };

#endif
