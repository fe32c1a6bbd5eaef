/* harness/campaign/campaign_int.h: what campaign.c (schedules, runs, the table), campaign_check.c (one run's results
 * against the invariants) and campaign_across.c (a schedule's runs against each other) share. Not a public API. */
#ifndef GAUNTLET_CAMPAIGN_INT_H
#define GAUNTLET_CAMPAIGN_INT_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define CP_MAX_FAULTS 5
#define CP_SIM_DIM 32   /* the sim's GEMM in every campaign run: sim.max_dim */
#define CP_MAX_STRATS 4
/* --schedules at most: a result per schedule and strategy is held from the start (about 1 KB each: 400 MB at
 * this bound with every strategy) */
#define CP_MAX_SCHEDULES 100000
#define CP_NOTE 640
#define CP_LAUNCH_TRIES 3   /* launches of a run that never begins its record before it counts as not started */
#define CP_HB_FACTOR 2        /* every campaign run's heartbeat: a straggler is slower than this x the peers' median */
#define CP_HB_EXCESS_S 0.025  /* ... and by this much (its min_excess) */

/* The fault kinds a schedule draws from, and what each is for. */
enum cp_kind { CK_BITFLIP = 0, CK_CRASH, CK_HANG, CK_STRAGGLER, CK_COMM, CK_COUNT };
/* Bit classes (fault_bit_class), plus "none" for a perturbation that changed no bit. */
enum { CB_SIGN = 0, CB_EXP, CB_MHI, CB_MLO, CB_NONE, CB_COUNT };
/* Detectors a campaign counts catches of (the rest: other). */
enum { CD_FINGERPRINT = 0, CD_ABFT, CD_EXIT, CD_HEARTBEAT, CD_COMM, CD_OTHER, CD_COUNT };

struct cp_fault {
    int kind;       /* enum cp_kind */
    int rank, at;
    int target;     /* enum fault_target (bitflip) */
    int where;      /* enum flip_where (bitflip) */
    double value;   /* where value: the factor - 1 */
};

struct cp_sched {
    int n;
    struct cp_fault f[CP_MAX_FAULTS];
};

/* The campaign's fixed shape: every run has these (docs/faults.md). */
struct cp_shape {
    int ranks, iterations, ckpt_every;   /* ranks: per node */
    int nodes;                           /* > 1: each run under `mpirun -np nodes`, one supervisor a node */
    double hb_timeout_s, straggler_factor, straggler_s;
    int persist;
};

/* The campaign's options. */
struct cp_opts {
    int schedules, first, jobs, keep, nstrat;   /* first: the index of the first schedule (to run one again) */
    uint64_t seed;
    double timeout_s;
    char strat[CP_MAX_STRATS][16];
    char out[PATH_MAX - 64], exe[PATH_MAX], ckpt[PATH_MAX];   /* ckpt: the runs' checkpoint folder */
    struct cp_shape shape;
};

/* One fault's first detection, as a strategy's run recorded it (for the comparison across strategies). */
struct cp_det {
    int spec, detector, rank;   /* detector: enum CD_*, -1 not caught */
    int64_t iter_seen;
    int shrunk;                 /* fired after shrink removed a rank: the world it was seen in is another one */
    int64_t iter_fired;         /* the iteration it was carried out in (a fault sent across nodes may land one later) */
    int borderline;             /* a straggler whose record shows fewer slow phases in a row than the detector wants */
};

/* What a run's record shows a fault could do (cp_visible): seen by the detector built for it, missed by design,
 * borderline, or an injection that changed nothing (a flip of no bit, a straggler that slowed no phase: the injection
 * path is broken, counted apart and as a broken invariant). */
enum { CP_INEFFECTIVE = -2, CP_BORDERLINE = -1, CP_BY_DESIGN = 0, CP_VISIBLE = 1 };

/* What one run gave. */
struct cp_result {
    int ran;                         /* 1 once checked */
    int broken;                      /* invariants it broke: as many as whys holds */
    char why[CP_NOTE];               /* the first one, in words */
    json_t *whys;                    /* every one, in words, in the order found (NULL until one broke) */
    struct cp_det det[CP_MAX_FAULTS];
    uint64_t dropped;                /* ranks shrink removed (bit per rank) */
    int64_t drop_iter[64];           /* a dropped rank's: the iteration the recovery that dropped it went on from (its
                                      * recovery_end's from_iter; 0 where none ended): a fault of it from there on
                                      * never fires on the timeline that survived */
    uint64_t drop_pending;           /* ranks dropped by the recovery under way (rank_dropped comes before its end) */
    double first_drop_s;             /* when shrink first removed a rank (t_s), INFINITY when it never did */
    int exhausted;                   /* shrink ran out of ranks: the run ended, as it must */
    char state[24];                  /* the final state_fingerprint */
    int effect_missed;               /* a fault that changed the state went undetected: the state differs */
    int not_started;                 /* never began its record in CP_LAUNCH_TRIES launches: nothing of it was tested */
    int ineffective;                 /* its injections that changed nothing (each also a broken invariant) */
};

/* Counts over the whole campaign. */
struct cp_stats {
    int64_t fired[CK_COUNT], visible[CK_COUNT], caught[CK_COUNT], by_design[CK_COUNT], borderline[CK_COUNT];
    int64_t ineffective[CK_COUNT];   /* injections whose record shows they changed nothing, and nothing saw them */
    int64_t bits_injected[CB_COUNT], bits_caught[CB_COUNT][CD_COUNT];
    int64_t false_positives, observed, stale_reports, runs, runs_failed;
    double *detect_s[CP_MAX_STRATS], *recover_s[CP_MAX_STRATS];
    int64_t n_detect[CP_MAX_STRATS], n_recover[CP_MAX_STRATS], cap_detect[CP_MAX_STRATS], cap_recover[CP_MAX_STRATS];
    json_t *missed;                  /* examples of faults missed by design, with their magnitude */
    json_t *relaunched;              /* launches that never began their record and were started again */
    json_t *not_started;             /* runs that never began their record in CP_LAUNCH_TRIES launches */
};

extern const char *const cp_kind_names[CK_COUNT];

/* Prints the campaign's table and returns campaign.json's object (breaks: every broken invariant, {"run", "why"},
 * whose count is "broken"; wall: seconds). */
json_t *cp_report(const struct cp_opts *o, struct cp_stats *st, double wall, json_t *breaks);

/* The last line of the run's log (DIR.log) into out. */
void cp_log_tail(const char *dir, char *out, size_t n);

/* Checks the run in dir (exit status rc of `gauntlet run`) of schedule sc under strategy strat (index si)
 * against every invariant but the comparisons across runs; fills res and adds to st. */
void cp_check_run(const char *dir, int rc, const struct cp_sched *sc, const struct cp_shape *shape, int si,
                  const char *strat, struct cp_result *res, struct cp_stats *st);
/* Records a broken invariant in res: its words appended to res->whys (the first one's also in res->why). */
void cp_break(struct cp_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Moves every broken invariant of res into breaks as {"run", "why"} (res->whys emptied, res->broken kept); returns
 * how many. */
int cp_broke_run(json_t *breaks, const char *run, struct cp_result *res);

/* Compares the detections of schedule sc's runs res[0 .. o->nstrat - 1] (campaign_across.c): every pair of strategies
 * whose runs began, fault by fault where both could see it alike; each pair that differs is one broken invariant of
 * run `name` in breaks. Returns how many. */
int cp_compare(const struct cp_opts *o, const struct cp_result *res, const struct cp_sched *sc, const char *name,
               json_t *breaks);

/* The heartbeat's straggler rule replayed on rank's node's record (campaign_straggler.c): the iteration whose compute
 * phase completed the first run of persist slow ones after inj_s (-1: none did); *longest, the longest such run. */
int64_t cp_straggler_rule(const char *dir, int rank, int node_ranks, double inj_s, int persist, int *longest);
/* A straggler's compute phases from iteration from on, against its peers' median, in words (for a miss). */
void cp_straggler_trace(const char *dir, int rank, int node_ranks, int from, double inj_s, char *out, size_t n);

/* Whether a run that never began its record (exit code; its log DIR.log) crashed in its set-up rather than failed
 * to launch: died by a signal (code 128 + n, mpirun's too) or left a sanitizer's report in its log. 1 with why, or
 * 0 (campaign_files.c). */
int cp_setup_crashed(const char *dir, int code, char *why, size_t n);
/* Writes j to path whole (temp file, fsync, rename: write_file_atomic); 0, or -1 with why (the OS error named). */
int cp_write_json(const char *path, const json_t *j, char *why, size_t n);
/* A campaign's --out: new, empty, or an earlier campaign's (campaign_files.c); EXIT_OK or EXIT_INPUT having said why. */
int cp_out_ok(const char *out);

#endif
