/* harness/cluster/supcluster_int.h: what supcluster.c (the multi-node run, liveness) and supcoord.c (the recovery
 * coordinator over MPI) share: the supervisors' message tags and a few calls. Not a public API. */
#ifndef GAUNTLET_SUPCLUSTER_INT_H
#define GAUNTLET_SUPCLUSTER_INT_H

#include <stdint.h>

#include "cluster.h"
#include "recover.h"
#include "resilience.h"
#include "supcluster.h"

/* Run-start handshake tags (json channel): node k -> 0 "ready for run m", 0 -> all "go". */
#define TAG_READY 100000
#define TAG_GO 200000
#define TAG_END CLUSTER_TAG_RUN_END
#define TAG_REC_REQ 300000    /* node k -> 0: a failure here, restart the cluster from iteration limit */
#define TAG_REC_GO 400000     /* 0 -> all: stop, and say your newest checkpoint <= limit */
#define TAG_REC_CKPT 500000   /* k -> 0: my newest checkpoint */
#define TAG_REC_START 600000  /* 0 -> all: start from this iteration */
#define TAG_HB 700000         /* k -> 0 and 0 -> all, every heartbeat interval: this supervisor is alive */
#define TAG_BND_REQ (-100)    /* 0 -> all (minus the kind): mark the boundary pending, say your furthest iteration */
#define TAG_BND_TOP (-200)    /* k -> 0 (minus the kind): my furthest iteration */
#define TAG_BND_SET (-300)    /* 0 -> all (minus the kind): the boundary */
#define TAG_FP (-400)         /* k -> 0: the node's fingerprint of an iteration, and how many of its ranks agree on it */
#define TAG_FP_VERDICT (-401) /* 0 -> k: the vote across nodes found the node's ranks differ (or tie) at an iteration */

/* Whether node was lost: what it still says is not heard (it woke after the others went on without it). */
int supc_gone(const struct sup *s, int node);
/* Whether node has been silent past the heartbeat timeout (node 0, for the others; the others, for node 0). */
int supc_silent(const struct sup *s, int node);
/* How often the nodes beat to each other: max(heartbeat interval, heartbeat timeout / 10) (supliveness.c). */
double supc_node_beat_s(const struct scenario *sc);
/* Heartbeats out, silent nodes lost (supliveness.c). */
void supc_liveness(struct sup *s, uint64_t now);
/* This supervisor's heartbeat, when one is due (supliveness.c). */
void supc_beat(struct sup *s, uint64_t now);
/* Not node 0: waits until this node has relayed its subtree's run-end records (node 0 silent or gone: no more). */
void supc_relay_ends(struct sup *s);
/* A heartbeat's message from another node (TAG_HB): node 0's lost nodes, its no-barrier and ends_done; to node 0, a
 * node that went around its relay. */
void supc_hb_in(struct sup *s, json_t *o);
/* Node 0, its wait for the end records over: tells every node (supc_relay_ends waits no more). */
void supc_ends_done(struct sup *s);
/* Node 0: every node stops and enters the recovery of failure f (this node's own, or none here). */
void coord_go(struct sup *s, const struct rec_failure *f);
/* Node 0: node asks for a recovery from iteration it: begun now, in the one under way already, or queued. */
void coord_request_in(struct sup *s, int node, int64_t it);
/* Node 0: a queued request, begun once the recovery under way has ended. */
void coord_queued(struct sup *s);
/* Node 0's go arrived (limit: the failure's iteration it was sent for): this node enters the machine. */
void coord_enter(struct sup *s, int64_t limit);
/* Node 0: a node's proposal (its own, or one received), once per node and recovery. */
void coord_fold(struct sup *s, int node, int64_t start, int active);
/* The fingerprint vote across nodes (supfp.c): this node's value of an iteration (rec_coord_cluster.fingerprint);
 * a TAG_FP or TAG_FP_VERDICT message; node 0, a run's end: runs[].fingerprints_agree over every node's final state
 * (a difference fails the run where the fingerprint detector is on); the state's end. */
void supfp_node(struct sup *s, int64_t iter, uint64_t h, int n);
void supfp_message(struct sup *s, int node, int tag, json_t *o);
void supfp_run_end(struct sup *s, int m, json_t *run);
void supfp_free(struct sup *s);
/* Node 0: a node no longer takes part (lost, or ended): the rows begun while it did wait for it no more, and are voted
 * on what the others said (until 2026-11-30 such a row was never voted). */
void supfp_recount(struct sup *s);

#endif
