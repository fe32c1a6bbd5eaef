/* harness/scenario/scenario.h: a scenario file, parsed and validated into one plain struct (no pointers, so the
 * supervisor can copy it into the shared control block for its workers). */
#ifndef GAUNTLET_SCENARIO_H
#define GAUNTLET_SCENARIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "dtype.h"
#include "machine.h"
#include "param.h"

#define SC_MAX_MITIGATIONS 32
#define SC_MAX_FAULTS 64
#define SC_KEYPOS_N 6   /* scenario_keypos_names */
#define SC_MAX_DETECTORS 8
#define SC_MAX_DEPTH 64   /* nested YAML collections a scenario may have (it uses 5); deeper is exit 2 */
#define SC_MAX_FILE_BYTES 1048576   /* a scenario file's size (the largest shipped is under 3 KiB); larger is exit 2 */

enum ckpt_mode { CKPT_SYNC = 0, CKPT_ASYNC };

/* workload.phases: the iteration as a list of steps (docs/scenarios.md "Phases"). A `repeat` group is expanded
 * when parsed, and a preset (`shape`) expands into the same list, so backends see one flat list. */
#define SC_MAX_STEPS 512   /* after expansion, all shapes together */
#define SC_MAX_SHAPES 4
#define SC_MAX_TRACE 8192   /* samples of a replayed power trace, at its own interval */
enum step_kind { ST_GEMM = 0, ST_ALLREDUCE, ST_REDUCE_SCATTER, ST_ALL_GATHER, ST_ALL_TO_ALL, ST_SEND_RECV,
                 ST_OPTIMIZER, ST_IDLE, ST_COUNT };
/* What a step is to the power model and the phase it reports: compute (a GEMM), communication, a memory-bound
 * update (reported as compute, drawn at its own level), or nothing to do. */
enum step_class { SCL_COMPUTE = 0, SCL_COMM, SCL_MEMORY, SCL_IDLE };

struct step {
    int32_t kind;         /* enum step_kind */
    int32_t line;         /* where it was given; 0: from a preset */
    int32_t overlap;      /* communication: runs beside the GEMM steps that follow (docs: the dependency) */
    int32_t dtype;        /* gemm */
    int64_t m, n, k, count;
    uint64_t bytes;       /* communication: the message (nccl-tests' size); optimizer: fp32 parameter bytes */
    int64_t ranks;        /* communication: the ranks it spans on the model (0: the run's) */
    double duration_s;    /* idle */
};

/* The step kinds: scenario spelling and class. */
const char *step_kind_name(int kind);
enum step_class step_class_of(int kind);
/* Writes the names of the presets, comma-separated. */
void shape_names(char *out, size_t n);
/* Prints each preset: its model, what it scales and its steps' sizes (`gauntlet list`). */
void shape_print(FILE *f);


/* A plug-in named in the scenario (a mitigation, detector or recovery) with its inline parameters. */
struct plugin_spec {
    char name[32];
    char label[48];                         /* one of a mitigation's entries: "filler floor=65%"; else "" */
    int index;                              /* in its kind's table */
    int shape;                              /* mitigations under workload.shapes: the shape this run runs on */
    int line;                               /* where it was given */
    _Alignas(max_align_t) unsigned char params[SC_PARAM_BYTES];   /* filled through the plug-in's param table (aligned
                                                                   * for any parameter type: int64_t, double, structs) */
};

/* One entry of `faults:`: what, on which rank, and when (exactly one of at, at_s, rate_per_hour). */
struct fault_spec {
    int kind;                               /* index into fault_table */
    int line;
    int64_t rank;                           /* -1: a random rank, drawn from the seed */
    int rank_line, rank_col, node_line, node_col;   /* where `rank` and (node-crash) `node` were given; 0: not given */
    int64_t at;                             /* iteration (counted from 0 in each run), or -1 */
    double at_s;                            /* seconds since the run began, or -1 */
    double rate_per_hour;                   /* a Poisson process, or 0 */
    _Alignas(max_align_t) unsigned char params[SC_PARAM_BYTES];   /* filled through the fault's param table (aligned) */
};

/* The acceptance checks a scenario asks for (`checks:`); each is on when its key is given (docs/acceptance.md). */
struct check_rate { int on; double min_share, expected; };          /* gemm_tflops, busbw: 0 expected = by GPU model */
struct check_power { int on; double min_share_tdp; };               /* power_under_load */
struct check_swing { int on; double min_drop; };                    /* power_swing */
struct check_flag { int on; };                                      /* sdc_screen, throttle, numa */
struct check_drill { int on; double max_detect_s, max_recover_s; };
struct check_bw { int on; double min_gbs; uint64_t bytes; };        /* h2d_bandwidth */
struct check_io { int on; double min_write_gbs, min_read_gbs; uint64_t bytes; };
struct check_outliers { int on; double k, min_rel; };
struct checks {
    struct check_rate gemm_tflops, busbw;
    struct check_power power_under_load;
    struct check_swing power_swing;
    struct check_flag sdc_screen, throttle, numa;
    struct check_drill fault_drill;
    struct check_bw h2d_bandwidth;
    struct check_io checkpoint_io;
    struct check_outliers outliers;
};

enum { FORWARD_RANKS = 0, FORWARD_NODES };

struct scenario {
    char file[512];
    char name[64];
    int64_t ranks;          /* worker processes on each node */
    int64_t nodes;          /* supervisors (one per node) the launcher must have started */
    int nodes_line;         /* where `nodes` was given (0: default), for the mismatch message */
    int forward;            /* what the other nodes send node 0: FORWARD_RANKS or FORWARD_NODES (docs/cluster.md) */
    int64_t gather_fanout;  /* the tree the other nodes' records climb to node 0: nodes each relays for */
    int ranks_line, ranks_col;  /* where the value of `ranks` was given, for a backend's limit on it */
    int name_line, name_col;    /* where `name` was given (two scenarios of one suite with one name) */
    struct { int line, col; } keypos[SC_KEYPOS_N];   /* where the keys of scenario_keypos_names were given (0: not) */
    int64_t iterations;
    int64_t seed;
    struct {
        struct { int64_t m, n, k, count; int dtype; } gemm;
        struct { uint64_t bytes; double emulate_busbw_gbs; int64_t emulate_ranks; } allreduce;
        struct { int64_t every; uint64_t bytes; char path[256]; int mode; } checkpoint;
        char shape[32];       /* a preset's name, expanded into steps (emptied once expanded) */
        char expanded_from[32];   /* the preset the steps came from (informational) */
        struct {
            int on;
            char trace[256];
            int64_t gpu;
            int n;            /* samples read from the trace, at dt_s apart (gaps filled by the line between) */
            double dt_s;
            float w[SC_MAX_TRACE];
        } replay;
        int n_steps;          /* 0: the simple iteration (gemm, allreduce); else steps[] (every shape's) */
        int grad_step;        /* the step that carries the real gradient exchange (the first allreduce/reduce_scatter) */
        int n_shapes;         /* 1: phases or one shape; 2-4: workload.shapes, every mitigation on each */
        struct { char name[32]; int first, n, grad; } shapes[SC_MAX_SHAPES];   /* grad: from first */
        struct step steps[SC_MAX_STEPS];
    } workload;
    struct { double sample_hz, tdp_w, forward_hz, settle_s; } power;
    struct { int64_t gpus, groups; struct an_spec spec; } projection;
    struct { double interval_s, timeout_s, startup_s, checkpoint_s; } heartbeat;
    struct sim_params sim;
    int n_mitigations;
    int auto_search;        /* mitigations: auto — the candidates are the search's */
    int64_t search_budget;
    int rank_disturbed;     /* runs disturbed by hand (paused, a fault from the view, skipped) count in the search
                             * and as the baseline too (default: left out) */
    int allow_device_settings;  /* from the command line (--allow-device-settings), never from the file */
    struct plugin_spec mitigations[SC_MAX_MITIGATIONS];
    int n_faults;
    struct fault_spec faults[SC_MAX_FAULTS];
    int n_detectors;
    struct plugin_spec detectors[SC_MAX_DETECTORS];
    struct plugin_spec recovery;
    struct checks checks;
};

/* The steps run m (an index of mitigations) runs, their count and the gradient exchange's index among them. */
static inline const struct step *scenario_run_steps(const struct scenario *sc, int run, int *n, int *grad)
{
    int k = sc->workload.n_shapes > 1 && run >= 0 && run < sc->n_mitigations ? sc->mitigations[run].shape : 0;
    *n = sc->workload.shapes[k].n;
    *grad = sc->workload.shapes[k].grad;
    return sc->workload.steps + sc->workload.shapes[k].first;
}

/* Whether an iteration has several compute phases (workload.phases, replay) rather than one GEMM chain. */
static inline int scenario_stepped(const struct scenario *sc) { return sc->workload.n_steps > 0 || sc->workload.replay.on; }

/* The table of every top-level key (sections nest through PT_SECTION); mitigations, faults, detectors and
 * recovery are parsed by their own code (PT_LIST). */
extern const struct param scenario_params[];

/* Loads and validates path into sc. On failure returns EXIT_INPUT with err holding
 * "file:line:column: key: what was expected" (or the I/O error for a missing file). */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);
/* The name of fault i's kind ("crash", "hang", ...). */
const char *scenario_fault_kind(const struct scenario *sc, int i);
/* Checks again that every fault can fire with sc's ranks and nodes as they are now (a caller that changed them after
 * scenario_load: `gauntlet accept` runs one rank per GPU found). EXIT_INPUT with "file:line:column: faults[i].rank:
 * ..." (why: what changed them, for the message), else 0. */
int scenario_check_fault_ranks(const struct scenario *sc, const char *why_changed, char *err, size_t n);
/* Whether a message about sc already begins with its place in the file ("FILE:LINE:COL: ..."), as a backend's
 * check writes it where it knows the line: callers then print it as it is. */
int scenario_located(const struct scenario *sc, const char *msg);
/* The keys a backend's check may name whose place is kept (scenario.keypos, by index). */
extern const char *const scenario_keypos_names[SC_KEYPOS_N];
/* Where key (one of scenario_keypos_names) was given: 1 with *line, *col; 0 where it was not (its default). */
int scenario_key_at(const struct scenario *sc, const char *key, int *line, int *col);
/* Same, from a string (name is used as the file name in messages). */
int scenario_load_string(const char *text, const char *name, struct scenario *sc, char *err, size_t errlen);
/* The time the power takes to settle after a run begins (power.settle; 0: 5 x sim.ramp, the power response's time
 * constant, plus 200 ms: two updates of the slowest sensor gauntlet reads, the instant field's ~100 ms, so that the
 * readings have settled too): each run is analysed from the first iteration end past it. */
double scenario_settle_s(const struct scenario *sc);
/* Writes sc, every default resolved, as YAML to f; returns 0 or -1. */
int scenario_write(const struct scenario *sc, FILE *f);
/* Returns 1 when detector id (enum detector_id) is on: listed, or always on. */
int scenario_detector_on(const struct scenario *sc, int id);
/* Returns the params of detector id when listed, else its defaults (static storage), or NULL without params. */
const void *scenario_detector_params(const struct scenario *sc, int id);
/* The most iterations before a silent corruption's finding that it may have entered the state, over the scenario's
 * detectors (a fingerprint of `slices` N: N - 1; else 0): a restart goes to a checkpoint at least that much older. */
int scenario_sdc_lag(const struct scenario *sc);
/* 1 when a rank's checkpoints are what a recovery rolls back to (restart, with checkpoints): each rank then writes
 * none that would leave none from before a finding not yet made (shm checked_done). */
int scenario_ckpt_hold(const struct scenario *sc);
/* Checkpoint generations each rank keeps (written in turn): 2; under restart 3 (the oldest stays checked while the
 * supervisor is an iteration behind), and as many more as cover scenario_sdc_lag at the checkpoint interval. The
 * needed count, and the kept one (at most CKPT_GENS_MAX, 16: sc_cross_checks refuses a scenario that needs more). */
int64_t scenario_ckpt_gens_needed(const struct scenario *sc);
int scenario_ckpt_gens(const struct scenario *sc);

/* The events one iteration may report: its phase edges (2 a phase; a step of workload.phases and the exposed wait
 * before it 4; a replayed trace 2 a change of phase), its checkpoint's, and SC_ITER_EVENTS_SLACK for the rest (faults,
 * findings, a fingerprint, a checkpoint written). A rank makes that much room in its event ring before it starts an
 * iteration (control/shm.h: EVT_CAP, asserted at least SC_ITER_EVENTS_MAX), so that no edge of it is lost however
 * late the supervisor drains; a scenario that needs more is refused (a trace that changes phase too often). */
#define SC_ITER_EVENTS_MAX 8192
#define SC_ITER_EVENTS_SLACK 128
int scenario_iter_events(const struct scenario *sc);
/* What one node's control block holds per slot at most (control/shm.h: struct ctl, asserted no larger), for
 * scenario_node_bytes. */
#define SC_CTL_SLOT_BYTES (1344u << 10)
/* The memory one node's run takes for its shared state on the sim backend, which sizes it from the scenario: the
 * control block (each slot's rings; the all-reduce's slots, ranks + 1; REPLICA_SLOTS replicas a rank under a recovery
 * that keeps them) and each worker's own state and gradient; *coll_bytes: the state of one rank. */
uint64_t scenario_node_bytes(const struct scenario *sc, uint64_t *coll_bytes);
/* The memory this machine lets a run have: its physical memory, or its memory cgroup's limit where that is lower;
 * what the number is, in words, into what. 0 when neither can be read. */
uint64_t scenario_mem_limit(char *what, size_t n);
/* The sim backend's refusal of a scenario whose one node needs more than scenario_mem_limit: 0, or EXIT_INPUT with
 * why (file:line:col of sim.max_elems, else ranks). Other backends size nothing from sim.* (until 2026-11-30 every
 * backend was refused by the sim's sizing). */
int scenario_mem_check(const struct scenario *sc, char *why, size_t n);

/* Prints every key with type, default, unit and help (for `gauntlet list --keys` and docs). */
void scenario_print_keys(FILE *f, const struct param *table, const char *prefix);

#endif
