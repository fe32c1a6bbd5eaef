/* harness/accept/accept_int.h: what accept.c (the checks) and accept_load.c (a results folder read) share. Not a
 * public API. */
#ifndef GAUNTLET_ACCEPT_INT_H
#define GAUNTLET_ACCEPT_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* The string at key k of o, or def. */
static inline const char *jstr(json_t *o, const char *k, const char *def)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : def;
}

/* ---- what a results folder holds, per rank */
struct rankdata {
    int node, idx;                     /* its node, and its GPU's index on that node (the global rank is the index
                                        * into rundata's r) */
    double tflops;                     /* its GEMM rate, the median of its compute phases' (outliers; NAN: not measured) */
    double tflops_mean;                /* its FLOPs over its compute-phase time (gemm_tflops; NAN: not measured) */
    char gpu[96];
    double tdp_w;
    struct series compute_w, comm_w;   /* power readings that are each phase's: the rank in that one phase over all
                                        * the reading covers (harness/results/phasecov.h; power.csv: node 0's, or
                                        * forward: ranks) */
    double compute_p90_w, comm_p10_w;  /* their p90 and p10, from the readings or (forward: nodes) the node's end
                                        * record (summary.json nodes[].gpus[]) */
    size_t compute_n, comm_n;          /* readings behind them */
    int readings;                      /* power.csv rows with a reading of it (node 0's, or forward: ranks) */
    int end_record;                    /* forward: nodes: its node's end record gave its power figures */
    double span_s;                     /* the mean time a reading covered (NAN: not known) */
    uint64_t throttle;
    int throttle_rows;                 /* rows with the column filled: readings of the reasons (0x0: read, none) */
    int sdc;                           /* detections by fingerprint, abft, replay */
    long long sdc_checks[8];           /* per detector (enum detector_id): what it compared of this GPU over the runs
                                        * (summary.json runs[].ranks[].sdc_checks; fingerprint: votes, abft: GEMM
                                        * outputs verified, replay: replays compared with the first) */
    int sdc_recorded;                  /* the summary says so for it (a rebuilt or older one does not) */
    int numa_node, numa_pinned;        /* from its ready event: -2 / -1 where not said */
    double h2d_gbs;
    char sdc_note[240];
};

struct rundata {
    json_t *summary, *run;
    int nranks, per_node, nodes;
    double *node_busbw;                /* [nodes] */
    struct rankdata *r;
    char power_why[240];               /* why power.csv could not be opened ("" when it was read) */
};

/* Reads the run folder dir (summary.json, events.jsonl, power.csv) into d: 0, or -1 with why. */
int load_run(const char *dir, struct rundata *d, char *why, size_t n);
void rundata_free(struct rundata *d);

struct verdicts;
struct scenario;
/* A figure against a threshold, on one GPU (rank >= 0: its global rank, gpu its index on node) or node: PASS when
 * value cmp limit holds (accept.c). */
struct verdict *accept_judge(struct verdicts *vs, const struct scenario *sc, const char *check, int node, int gpu,
                             int rank, double value, const char *cmp, double limit, const char *unit);
/* Sets v's node, gpu and rank to global rank rank's in a run of per_node ranks per node (rank < 0: none), and its
 * subject "node N gpu I" (or "node N"). */
void accept_place(struct verdict *v, int node, int rank, int per_node);
/* The checks about faults (accept_faults.c): sdc_screen, observed_fault, fault_drill. */
void accept_check_sdc(const struct scenario *sc, struct rundata *d, struct verdicts *vs);
void accept_check_observed(const struct scenario *sc, struct rundata *d, struct verdicts *vs);
void accept_check_drill(const struct scenario *sc, struct rundata *d, struct verdicts *vs);

/* checkpoint_write and checkpoint_read per node (accept_io.c), from each node's rates (accept_ckpt_io). */
void accept_check_ckpt(const struct scenario *sc, const struct rundata *d, const double *io_w, const double *io_r,
                       struct verdicts *vs);

struct backend_ops;
/* Suites killed before their verdicts (accept_recover.c), judged on what they ran with the backend they ran on,
 * into their own verdicts.json (incomplete): the accept-* folders beside outdir with runs but no verdicts.json,
 * untouched for 30 s; and (accept_recover_self) outdir itself when a suite's suite.json is there without its
 * verdicts.json: its runs are moved into outdir/killed-<UTC time>/ first, so that the new suite's do not overwrite
 * them. */
void accept_recover(const char *outdir, const struct backend_ops *ops);
/* Takes outdir/.suite.lock (flock, exclusive; the file is never renamed or removed), held until the verdicts are
 * written (accept_mark_end), before anything in outdir is looked at, cleared or written: 0, or -1 (said) when another
 * suite holds it (naming its pid) or it cannot be taken. What tells a running suite from a killed one. */
int accept_suite_lock(const char *outdir);
/* With outdir's lock held (accept_suite_lock): a killed suite's runs there (a suite.json without verdicts.json) moved
 * aside and judged, however recently they were written (the lock says their suite is gone). 0, or -1 (said, nothing
 * moved or overwritten: the suite must not run there) when a live process still holds a run's .lock, or the runs
 * could not be moved. */
int accept_recover_self(const char *outdir, const struct backend_ops *ops);

/* A suite under way says so in outdir/suite.json (its level, backend, pid and scenarios' names) from its start until
 * its verdicts are written (accept_mark_end): what accept_recover_self knows a killed one by. 0, or -1 (said). */
/* --expect-gpus (accept_gpus.c): every node's GPU count into counts[cluster_nodes()] (collective); 1 when every
 * node has expect, 0 when one has not (the suite then runs no scenario), -1 when they could not be gathered. */
int accept_expect_gpus(int expect, int ngpu, int *counts);
/* The gpu_count verdicts, one per node (scenario "suite"): PASS when it has expect GPUs, else FAIL; counts NULL (a
 * modelled backend, named by model): one SKIP. */
void accept_gpu_count(struct verdicts *vs, int expect, const int *counts, int nodes, const char *model);
/* Whether the backend picked (*ops) is a model that --backend auto fell back to (no usable GPU): said, *ops NULL, 1
 * (the suite exits 3: a node judged on a model passes whatever its GPUs); else 0. */
int accept_model_refused(const struct backend_ops **ops, const char *backend);
/* Whether the suite's n scenarios have names their results folders can take: each its own, none the suite's files'
 * (verdicts.json, suite.json, .suite.lock, killed-*, or starting with '.'); else said (file:line:column), EXIT_INPUT. */
int accept_names_ok(const struct scenario *s, int n);
/* The suite's exit: 1 (EXIT_CHECK) when a check failed, a SKIP under --strict, or a stop signal ended the suite
 * (stopped_by: not judged whole, never a pass); else 0. */
int accept_exit_code(int fails, int skips, int strict, int stopped_by);
/* Node 0 (accept_end.c): the verdicts printed and written (JUnit, then verdicts.json with the exit code the suite ends
 * with); returns that code: 1 when a check failed or a signal stopped the suite (whatever could not be written:
 * --drain acts on a failed check), 3 when neither but the verdicts could not all be written, else 0. */
int accept_write(struct verdicts *vs, int level, const struct backend_ops *ops, int strict, const char *outdir,
                 const char *junit);
/* --drain: marks this node DRAIN in Slurm with the failed checks as the reason (scontrol update); the line is printed
 * first. 0, or -1 when scontrol could not be run or refused. */
int accept_drain(const struct verdicts *vs);
#define ACCEPT_SUITE_FILE "suite.json"
#define ACCEPT_SUITE_LOCK ".suite.lock"
int accept_mark_start(const char *outdir, const struct scenario *sc, int n, int level, const char *backend);
void accept_mark_end(const char *outdir);

#endif
