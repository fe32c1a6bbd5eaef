/* harness/cluster/supcluster.h: one node's supervisor among several (supcluster.c: set-up, run start together,
 * liveness, forwarded telemetry, the pause and skip boundaries, the end; supcoord.c: the recovery coordinator over
 * MPI). It plugs into the supervisor's core through `cluster_hooks` and keeps its state in `struct sup_link` (s->ln);
 * run/ calls the rest. With one node every call is a no-op. */
#ifndef GAUNTLET_SUPCLUSTER_H
#define GAUNTLET_SUPCLUSTER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "recover.h"
#include "sup.h"

struct sup_link {
    int64_t clock_offset_ns;       /* added to this node's clock gives node 0's */
    double clock_uncert_s;
    int remote_failure;            /* the failure came from another node: not sent on */
    int sync_run, ready_nodes, go_run;
    int *ready_upto;               /* node 0: per node, the highest run it said it is ready for */
    struct rec_failure rec_asked;  /* the local failure this node asked node 0 to recover (rank -1: none) */
    int rec_have;                  /* node 0: checkpoint answers received */
    uint64_t *node_seen;           /* per node: when its supervisor was last heard from (liveness between nodes) */
    uint64_t hb_sent;              /* when this supervisor last sent its heartbeat to the others */
    int hb_armed;                  /* 1 from the first run's start to the end: silence is a failure */
    int ends_done;                 /* not node 0: node 0 has waited for the end records it waits for (supc_relay_ends) */
    int no_barrier;                /* node 0: a node went around its relay (relay_lost): its beats tell every node
                                    * that nobody ends in the closing barrier */
    int rec_active, rec_world;     /* node 0: ranks going on, summed; everyone: the cluster's total */
    int *rec_counts;               /* per node: its ranks going on (node 0 gathers them, every node gets them) */
    unsigned char rec_live[SHM_MAX_NODES];   /* nodes with ranks left */
    unsigned char rec_got[SHM_MAX_NODES];    /* node 0: nodes whose proposal this recovery has */
    unsigned char node_ended[SHM_MAX_NODES]; /* node 0: nodes whose end record came (done: not watched, not waited
                                              * for; they propose nothing) */
    unsigned char node_gone[SHM_MAX_NODES];  /* nodes lost (silent past the heartbeat timeout): nothing is sent to
                                              * them, nothing they say is heard, nobody waits for them */
    int64_t rec_min, rec_start;    /* node 0: the oldest newest checkpoint; everyone: where to start (-1: not yet) */
    int go_deferred;               /* node 0's go for a new recovery came while this node still finished the one
                                    * before (node 0 got there first): entered once that one ends */
    int64_t go_limit;              /* that go's iteration */
    int req_queued;                /* node 0: a node asked for a recovery while one was under way (after it had
                                    * proposed in it): begun once that one ends */
    int64_t req_iter;              /* the oldest iteration queued requests were for */
    unsigned char req_from[SHM_MAX_NODES];   /* node 0: the nodes whose request is queued */
    json_t *node_runs, *node_ends; /* node 0: every node's run figures and end records */
    int bnd_kind;                  /* node 0, several nodes: a pause/skip boundary being agreed */
    unsigned char bnd_answered[SHM_MAX_NODES]; /* the nodes that answered it (decided once every node still in the
                                                * run has: one lost or ended meanwhile is not waited for) */
    int64_t bnd_top;               /* the furthest iteration any node's ranks reached */
    struct supfp *fp;              /* node 0: the fingerprint vote across nodes (supfp.c; NULL until one comes) */
};

extern const struct sup_hooks cluster_hooks;

/* Makes s->ln (before supc_setup); supc_free frees it. */
void supc_new(struct sup *s);
void supc_free(struct sup *s);
int supc_setup(struct sup *s, char *why, size_t n);
void supc_poll(struct sup *s);
void supc_fail(struct sup *s, const char *reason);
/* Node 0: a pause, resume or skip on every node, at a boundary agreed from every node's ranks. */
void supc_boundary(struct sup *s, int kind);
int supc_run_begin(struct sup *s, int m);
void supc_run_end(struct sup *s, int m, json_t *run);
/* The end: every node's figures into node 0's summary; node 0 fails a run whose *code is 0 when a node's end record
 * never came (exit 1, stop node_failed). */
void supc_end(struct sup *s, json_t *summary, int *code);
/* Several nodes: what this node's start event says of the cluster: `forward`, `forward_hz` (node 0's cells of the
 * nodes' summed power), `clock_offset_s` and `clock_uncertainty_s` (what `gauntlet summarize` needs to rebuild the
 * cluster's power from power-nodes.csv). */
void supc_start_json(const struct sup *s, json_t *st);

#endif
