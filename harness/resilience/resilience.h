/* harness/resilience/resilience.h: what the run knows of its faults and does about them, on one node: the fault ledger
 * (faultlog.c: the faults carried out, every detection matched to one, the failures queued; faultcheck.c: the
 * supervisor-side checks; faultsend.c: the faults it sends) and the recovery machine (recover.c, recover.h). It plugs into the supervisor's core through
 * `resilience_hooks` (struct sup_hooks) and keeps its state in `struct resilience` (s->fl); the layers above
 * (cluster/, run/) read it and call it directly. */
#ifndef GAUNTLET_RESILIENCE_H
#define GAUNTLET_RESILIENCE_H

#include <jansson.h>
#include <stdint.h>

#include "recover.h"
#include "sup.h"

#define FP_WINDOW 64   /* iterations of fingerprints kept for the cross-rank comparison */

/* One fault carried out by a worker, and what became of it. */
/* Whether a fault's detail says its injection changed nothing: an element named whose every bit it kept (the record's
 * `ineffective`, and its fault_injected event's). */
static inline int fault_detail_ineffective(const struct fault_detail *d) { return d->element >= 0 && d->mask == 0; }

struct fault_rec {
    int spec, kind, rank, run;     /* spec: index in the scenario's faults, -1 for an observed one */
    int observed;                  /* 1: nothing injected it (a real death, hang, straggler, corruption) */
    int undone;                    /* 1: injected on a timeline a rollback abandoned; it fires again on the new one */
    int rolled_back;               /* 1: fired between the restore point and the failure, unseen: the rollback took
                                    * its effect away before any detector could see it (not in the coverage) */
    int left;                      /* 1: its rank left the run (shrink dropped it) before any detector saw it: its
                                    * effect went with the rank (not in the coverage) */
    int ineffective;               /* 1: the injection changed nothing (a flip whose element kept every bit: a
                                    * value perturbation of an element that was 0, or smaller than its rounding):
                                    * no detector could see it; no finding is matched to it; not in the coverage */
    int abandoned;                 /* 1: its detection was given up for an earlier failure's rollback, which undoes
                                    * it (faultlog_take): what the old timeline still shows of it is no finding */
    int64_t iter;
    uint64_t t_ns;                 /* injected (observed: when it was seen) */
    uint64_t rollback_ns;          /* rolled_back: when the recovery that took its effect away began; left: when its
                                    * rank was dropped */
    char note[64];
    struct fault_detail d;         /* buffer, element, bits, old and new value (bitflip) */
    int det_rank;                  /* the rank the detection named (-1: none, or no single rank) */
    int detector;              /* enum detector_id that caught it first, or -1 */
    uint64_t detect_ns;
    int64_t detect_iter;
    int recovery;              /* 1 once a recovery started for it */
    int joined_to;             /* the fault whose recovery it joined (its figures of work are that one's), -1: none */
    uint64_t recovered_ns;     /* the first good iteration after the recovery, 0 until then */
    int64_t restore_iter, lost;
    int64_t redone;                /* iterations done again: from the restore to where the ranks had got (-1: none) */
    double restore_bytes, restore_s;
    char restore_from[64];
    char outcome[96];          /* what the run did about it */
};

/* One detection, matched to a fault or counted as a false positive. */
struct detection {
    int detector, rank, run, fault;   /* fault: index in faults, -1 (false positive) or -2 (the same fault again) */
    int64_t iter;
    uint64_t t_ns;
};

/* A fatal failure detected, waiting for the top of the loop to act on it (faultlog_act). */
struct failure {
    int fault, rank, kill, sdc;   /* fault: index in faults; kill: the rank's process must be killed (a hang) */
    int det;                      /* its detection: index in dets */
    int64_t iter;
    int lag;                      /* a corruption: how many iterations before iter it may have entered the state */
};
#define SUP_MAX_PENDING 64

struct resilience {
    uint64_t *fault_due;           /* per fault spec: when the supervisor sends it (at_s, rate), 0: not timed */
    int sent_rank[SC_MAX_FAULTS];  /* per fault spec sent by CMD_INJECT (the view's, a timer's): the rank it went to
                                    * until its fault_injected comes; -1: none waiting (faultlog_send) */
    struct rng fault_rng;
    struct rng *rate_rng;          /* per fault, its own stream: a rate fault's times and random ranks, the same on
                                    * every node (each node draws the same sequence; only the rank's node injects) */
    struct fault_rec *faults;
    int n_faults, cap_faults;
    struct detection *dets;
    int n_dets, cap_dets;
    int64_t *fp_iter;              /* [FP_WINDOW] iteration of each fingerprint row */
    uint64_t *fp;                  /* [FP_WINDOW][nranks] */
    unsigned char *fp_have;
    double *compute_s;             /* per rank: the last compute phase's duration (straggler check) */
    int64_t *compute_iter;
    double *compute_sum;           /* per rank, workload.phases: the GEMM steps' time so far this iteration */
    int *slow_count;               /* per rank: compute phases in a row over the straggler limit */
    struct rec_machine rm;         /* the recovery under way (recover.h): one step per turn of the loop */
    const struct rec_host *host;   /* this node's worker processes (the core's sup_host) */
    const struct rec_coord *coord; /* the other nodes: rec_coord_local, or rec_coord_cluster over MPI */
    int rec_wait;                  /* this node asked the coordinator for a recovery and waits for its go */
    int rec_wait_fault;            /* ... for this fault (-1: none named): what a fault found meanwhile joins */
    uint64_t rec_wait_since;       /* ... since then (a deadline: node 0 answers within the heartbeat timeout) */
    int awaiting_fault;            /* the fault whose recovery waits for its first good iteration, or -1 */
    int restore_fault;             /* the fault of the newest recovery, whose ranks' restores are counted (-1: none): a
                                    * rank's restore may be read after another rank's first good iteration ended it */
    int64_t awaiting_iter;
    int superseded[SUP_MAX_PENDING];   /* faults whose recovery another one followed before their first good
                                        * iteration: recovered when that one is */
    int n_superseded;
    int joined[SUP_MAX_PENDING];   /* faults another fault's recovery covered (found while it stopped the ranks, or
                                    * taken in with it): recovered when that one is */
    int n_joined;
    int recoveries;
    int futile;                    /* recoveries in a row begun with no iteration completed since the last restore */
    int restored;                  /* a recovery has ended: restored_from is where it started the ranks again */
    int64_t restored_from;
    int repeat_rank, repeats;      /* the last failure's rank and iteration, and how many in a row were the same */
    int64_t repeat_iter;
    int64_t stale_reports;         /* worker reports of an abandoned epoch, dropped (this run) */
    uint64_t *gone_ns;             /* per rank: since when its process has been gone with no recovery to take it (0:
                                    * it is not; faultlog_gone) */
    struct failure pending[SUP_MAX_PENDING];   /* fatal failures detected since the loop last acted */
    int n_pending;
    int64_t fail_iter;             /* the recovery under way: the failure's iteration (faults at or after it that
                                      fired on the abandoned timeline fire again on the new one) */
    double detcost[8];             /* per detector: worker-side seconds spent this run */
    double detdev[8];              /* per detector: its own work's device seconds this run (detdev_ranks: reporting) */
    int detdev_ranks[8];
    double detcost_iters[8];       /* per detector: the iterations detcost covers, over the ranks that reported it
                                    * (a process a recovery killed never reports: neither its cost nor its iterations) */
    double detdev_iters[8];        /* the same for detdev */
};

extern const struct sup_hooks resilience_hooks;

/* Makes s->fl for the scenario (its random fault ranks drawn once from the seed, into the control block's copy:
 * world is the ranks over every node); resilience_free frees it. */
void resilience_new(struct sup *s, int world);
void resilience_free(struct sup *s);

void faultlog_injected(struct sup *s, const struct wevent *ev);
/* Adds a fault's detail to o: target, where, format, element, bits, bit, bit_class, old, new, rel_error (null
 * where it does not apply). */
void faultlog_detail(json_t *o, const struct fault_detail *d);
/* Records a detection; returns the matched fault's index or -1. Fatal detections start the recovery. */
int faultlog_detect(struct sup *s, int detector, int rank, int64_t iter, uint64_t t_ns, const char *note, int fatal);
void faultlog_fingerprint(struct sup *s, const struct wevent *ev);
/* Returns whether a finding of detector det at iter that names no rank would be a fault of this node not yet
 * detected (a fingerprint tie across nodes: the node whose fault explains it records it). */
int faultlog_explains(struct sup *s, int det, int64_t iter);
void faultlog_compute(struct sup *s, const struct wevent *ev, double dur_s);
void faultlog_iteration(struct sup *s, const struct wevent *ev);
/* Fault fault is recovered at t (its first good iteration): its record and the `recovered` event (note: NULL, or why
 * it is said now). */
void faultlog_recovered(struct sup *s, int fault, uint64_t t, const char *note);
/* A fault that joined another's recovery (joined_to) and has no figures of work of its own takes that one's, as
 * docs/results.md says, whichever path recovers it or writes it (until 2026-12-01 some under shrink gave null). */
void faultlog_joined_figures(struct sup *s, struct fault_rec *f);
void faultlog_restored(struct sup *s, const struct wevent *ev);
/* The faults another fault's recovery covered are recovered with it, at t (note: said in their recovered events). */
void faultlog_joined_recovered(struct sup *s, uint64_t t, const char *note);
/* Sends each timed fault (at_s, rate_per_hour) that has come due; a rate fault draws its next time. */
void faultlog_timers(struct sup *s, uint64_t now);
/* A run begins: each timed fault's first time (faultsend.c). */
void faultlog_timers_begin(struct sup *s);
#define FAULT_NEVER UINT64_MAX   /* a timed fault's time when it does not come in this run */
/* When a timed fault comes due: gap_s seconds after from (ns), in double seconds; a gap that is NaN, negative,
 * infinite or past any run (100 years) is FAULT_NEVER, never a sum that wraps nor a conversion past uint64_t (which
 * gave 0: due at once). */
uint64_t faultlog_due(uint64_t from, double gap_s);
/* A rate fault's gap to its next firing in seconds: an exponential draw of u (uniform in [0, 1)) at rate_per_hour
 * (a Poisson process); INFINITY where there is none. */
double faultlog_rate_gap_s(double u, double rate_per_hour);
/* The backstop for a rank left behind (faultcheck.c): a rank still in the run whose process has been gone for longer
 * than the heartbeat timeout, no failure queued and no recovery under way — the ranks left wait for it in their
 * collective, beating, for ever — is reported as hung (heartbeat, fatal): the recovery replaces it, or shrink drops
 * it. Called each turn of the loop while the run goes on and no recovery is under way. */
void faultlog_gone(struct sup *s, uint64_t now);
/* Fault i is recovered by the recovery under way (or about to begin): its recover_s ends with that one's. */
void faultlog_join(struct sup *s, int i);
/* rank leaves the run with the recovery of fault cause (shrink: its process gone too): a fault of it no detector
 * reported (its death seen as the recovery began) is recovered with that one, never "not detected". */
void faultlog_left_with_rank(struct sup *s, int rank, int cause);
/* Sends fault spec `spec` to rank's worker (CMD_INJECT: the view's `f`, a timed fault) and keeps it as waiting until
 * its fault_injected comes: a worker restarted or continued by a recovery has forgotten what it was sent (a killed one
 * with its process), so the recovery sends it again (faultlog_resend), and a run that ends first says so
 * (faultlog_run_end), never a fault asked and silently gone. */
void faultlog_send(struct sup *s, int spec, int rank);
/* A recovery's new timeline: every fault still waiting sent again to its rank (not one shrink dropped). */
void faultlog_resend(struct sup *s);
/* The run's end: each fault still waiting is a fault_not_injected event (and said on stderr), no longer waiting.
 * Returns how many. */
int faultlog_run_end(struct sup *s);
void faultlog_run_begin(struct sup *s);
/* A mitigation run begins: the give-up counts of recover_begin (futile and repeated failures, the last restore
 * point) start again, since every run fires its faults anew (an earlier run's restore point is no other run's). */
void recover_run_reset(struct resilience *fl);
enum { REC_GO_ON = 0, REC_GIVE_UP_FUTILE, REC_GIVE_UP_REPEAT };
/* Counts a failure of rank at iteration iter toward the give-up rules, done the most iterations a live rank has
 * completed: futile when none was completed since the last restore, repeated when the same rank fails again never
 * past its first failure's iteration. Returns REC_GO_ON, or why the run gives up. */
int recover_tally(struct resilience *fl, int rank, int64_t iter, int64_t done);
/* A recovery begins: a new epoch (reports of the old one are dropped from now on), every per-iteration window
 * cleared (fingerprints, the straggler check, the start spread, open phases). fail_iter: the failure's
 * iteration. Returns the new epoch. */
uint32_t faultlog_new_epoch(struct sup *s, int64_t fail_iter);
/* The recovery rolls back to start_iter: the iteration faults that fired at or after the failure's iteration
 * on the abandoned timeline (other than cause, the fault being recovered, and any already detected) are undone
 * and fire again when the new timeline reaches them; those that fired from start_iter to before the failure's
 * iteration and were not seen yet are rolled back: their effect is gone with the state, and they are not counted
 * as injected faults the detectors missed. */
void faultlog_rollback(struct sup *s, int cause, int64_t start_iter);
/* Acts on the fatal failures detected since the last call (the supervisor's loop calls it once every ring is
 * drained): the one of the earliest iteration is recovered; a failure another one's rollback undoes (a fault
 * at or after that iteration) loses its detection and fires again on the new timeline. */
void faultlog_act(struct sup *s);
/* What faultlog_act recovers, without beginning it: the failure of the earliest iteration on the queue (the others
 * folded in as faultlog_act folds them), the queue emptied. 1 with *out, 0 when the queue is empty. For a recovery
 * another node began: this node's own failures, found meanwhile, go into it rather than into a second one. */
struct rec_failure;
int faultlog_take(struct sup *s, struct rec_failure *out);
/* Whether a worker report belongs to the epoch in progress; one that does not is counted and dropped. */
int faultlog_current(struct sup *s, const struct wevent *ev);

json_t *faultlog_json(struct sup *s);
json_t *faultlog_run_json(struct sup *s, double iter_p50);
/* Adds to each entry of a run's ranks[] (runstats_json) its sdc_checks: per silent-corruption detector on, the checks
 * of that rank that compared something this run (fingerprint: votes that held its value against another's; abft:
 * GEMM outputs verified; replay: replays compared with the first). A process a restart killed reports none of its
 * abft or replay checks. */
void faultlog_ranks_json(struct sup *s, json_t *ranks);

#endif
