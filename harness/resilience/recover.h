/* harness/resilience/recover.h: the recovery machine (recover.c) and the two interfaces it acts through, for one node and
 * many alike. Detectors never call it: a fatal detection is a failure record on the supervisor's queue
 * (faultlog.c), and the top of the supervisor's loop hands the earliest one to recover_begin. From there the machine
 * advances one step per turn of the loop, never waiting inside it:
 *
 *   IDLE -> (begin: every rank told to stop, what failed killed)
 *        -> STOPPING  -> (every worker of this node stopped: this node's proposal)
 *        -> AGREEING  -> (the coordinator's agreed start point)
 *        -> BACKOFF   -> (a failure after recoveries that got nothing done: it waits, 0.1 s doubling to 2 s)
 *        -> STARTING  -> (what failed replaced, every rank told where to start; every replacement ready)
 *        -> IDLE
 *
 * Each state has a deadline; past it the run fails saying which. A failure that arrives before the machine restarts
 * the ranks joins the recovery under way: every process that is gone when the machine replaces is replaced, whichever
 * failure took it. Under shrink the dead are dropped when this node proposes, so a rank that fails after the proposal
 * (agreeing, backing off) is queued, and the next recovery drops it: joined, it would be told to go on dead, and the
 * others would wait for it for ever. Behind both, a rank still in the run whose process is gone with no failure queued
 * and no recovery under way is reported hung once the heartbeat timeout has passed (faultlog_gone).
 *
 * The machine reaches this node's worker processes only through `struct rec_host` (the core's, sup.h) and the other nodes
 * only through `struct rec_coord`: rec_coord_local (one node: the proposal is the agreement) or rec_coord_cluster
 * (supcoord.c: node 0 gathers every node's proposal over MPI and answers every node). */
#ifndef GAUNTLET_RECOVER_H
#define GAUNTLET_RECOVER_H

#include <stddef.h>
#include <stdint.h>

#include "shm.h"
#include "sup.h"

/* A failure to recover from: the fault record it matched (-1: none here), the failed rank (-1: none here), whether
 * its process must be killed (a hang), whether silent corruption was found in it (its replica is not trusted), and
 * the iteration it showed at (the rollback goes to a state at or before it). */
struct rec_failure {
    int fault, rank, kill, sdc;
    int64_t iter;
    int lag;   /* silent corruption: it may have entered the state up to this many iterations before iter (a sliced
                * fingerprint hashes each byte once in `slices` iterations): a checkpoint restored is that much older */
};

/* What this node can do: start again from `start` (restart: its newest whole checkpoint <= the failure's iteration,
 * 0 for none; the others: the newest whole replica of a healthy rank; INT64_MAX: no rank of this node goes on,
 * so it holds nobody back; -1: nothing to start from), with `active` of its ranks going on. */
struct rec_proposal {
    int64_t start;
    int active;
};

/* What every node agreed: where to start, the ranks going on over every node, the ranks going on in the nodes
 * before this one (its first rank's place in the collective), and the nodes with ranks left. The coordinator also
 * made a new communicator id where the strategy needs one (restart; reconnecting backends), in the control
 * block's coll_id. */
struct rec_agreement {
    int64_t start;
    int world, before;
    unsigned char live[SHM_MAX_NODES];
};

/* The other nodes. */
struct rec_coord {
    /* A failure here asks for a recovery: 1 to begin it now, 0 when it begins later (another node's word, which
     * calls recover_enter). */
    int (*request)(struct sup *s, const struct rec_failure *f);
    /* This node's proposal, once its workers have stopped. */
    void (*propose)(struct sup *s, const struct rec_proposal *p);
    /* 1: *a holds the agreement; 0: not yet (why says what is awaited); -1: it cannot be had (why). */
    int (*agreed)(struct sup *s, struct rec_agreement *a, char *why, size_t n);
    /* Several nodes (NULL: one): this node's ranks ended iteration iter with fingerprint h, n of them agreeing (0: they
     * did not agree, and this node's own vote took it), for the vote across nodes. */
    void (*fingerprint)(struct sup *s, int64_t iter, uint64_t h, int n);
};

extern const struct rec_coord rec_coord_local, rec_coord_cluster;

/* The longest a recovery backs off (BACKOFF: 0.1 s doubling up to this). A node waiting for node 0's go allows it:
 * node 0 may be backing off the recovery before (supliveness.c). */
#define REC_BACKOFF_MAX_NS 2000000000ull

/* The state of the recovery under way on this node. */
struct rec_machine {
    enum { RM_IDLE, RM_STOPPING, RM_AGREEING, RM_BACKOFF, RM_STARTING } state;
    uint64_t t0, deadline;     /* when it began; when the state it is in gives up */
    struct rec_failure fail;   /* the local failure it is for (fault and rank -1: another node's) */
    uint32_t epoch;
    struct rec_proposal mine;  /* this node's proposal */
    int active;                /* this node's ranks going on */
    int world;                 /* the ranks going on over every node */
    int64_t from_iter;         /* the restore point chosen, and from what (RESTORE_*) */
    int64_t progress;          /* the most iterations a rank here still in the run had completed once all stopped
                                * (-1: not known): what the recovery throws away reaches that far */
    int restore;
    uint64_t backoff_ns;       /* how long it waits, once agreed, before starting anything again (REC_BACKOFF_*) */
    struct rec_agreement agreed;   /* what it waits with */
};

/* Begins the scenario's recovery for failure f: asks the coordinator, and (now, or on its word) enters the
 * machine. Returns 0 when begun or asked for, -1 when the run failed. */
int recover_begin(struct sup *s, const struct rec_failure *f);
/* Enters the machine for f (the coordinator's go): a new epoch, every rank told to stop, what failed killed. */
void recover_enter(struct sup *s, const struct rec_failure *f);
/* Advances the recovery under way by one step, never waiting. Called once per turn of the supervisor's loop. */
void recover_step(struct sup *s);
/* Ends the recovery under way: failed says why (the run fails), NULL when it succeeded. */
void recover_end(struct sup *s, const char *stop, const char *failed);

/* The newest iteration <= limit of which every rank of this node left holds a whole checkpoint, or 0. */
int64_t recover_checkpoint_iter(struct sup *s, int64_t limit);
/* Removes rank from the collective (shrink). */
void recover_shrink(struct sup *s, int rank);
/* A rollback to start: the replicas and checkpoints the abandoned timeline wrote past it are forgotten (a later
 * recovery must not restore a state of a timeline that no longer exists: a background write of the new one may not
 * have replaced it yet). Every rank is stopped when it is called. */
void recover_forget_after(struct sup *s, int64_t start);

#endif
