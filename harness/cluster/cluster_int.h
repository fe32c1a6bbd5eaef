/* harness/cluster/cluster_int.h: the MPI side's state, shared by cluster.c (the supervisors' channel) and
 * cluster_proxy.c (the sim all-reduce's proxy thread). Built with MPI only. Not a public API. */
#ifndef GAUNTLET_CLUSTER_INT_H
#define GAUNTLET_CLUSTER_INT_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "shm.h"
#include "uprec.h"

/* TAG_UP: a batch of records climbing the tree to node 0 (uprec.h); TAG_JSON: a control message straight to its
 * node (node 0's to the others, and every heartbeat); TAG_AGREE: a set-up agreement (cluster_setup.c) */
enum { TAG_UP = 1, TAG_BYE, TAG_FAIL, TAG_JSON, TAG_CLOCK, TAG_CHAIN, TAG_RESULT, TAG_AGREE };   /* TAG_BYE: up_leave_lost */
#define BATCH (256u << 10)   /* bytes of records per message */
/* sends in flight at most: 64, and 4 per node (node 0 sends each node its heartbeat, a go, a boundary at once) */
#define MAX_INFLIGHT(nodes) (64 + 4 * (nodes))

struct cluster_state {
    int on, node, nodes;
    MPI_Comm comm, xcomm, scomm;   /* scomm: the set-up's agreements (cluster_setup.c), never drained by cluster_poll */
    /* the batch being filled for the parent (cluster_up.c), and sends in flight (their buffers live until done) */
    struct up_batch up;
    uint32_t up_seq;           /* this node's records so far */
    struct up_ring *ring;      /* its recent control records */
    int fanout, up_to;         /* the tree's fan-out; where the last batch went */
    int resend;                /* a node further up this node's path was lost: its recent control records go again */
    struct up_seen *seen;      /* node 0: per origin, the records taken */
    unsigned char *ended;      /* per node: its end record passed here */
    unsigned char *run_ended;  /* per node: its run's end record (CLUSTER_TAG_RUN_END) passed here, this run (cluster_new_run) */
    int run_no;                /* runs begun in this process (cluster_new_run): an end record names its own */
    uint64_t relayed;          /* bytes of other nodes' records passed on */
    struct cl_send { MPI_Request req; char *buf; int dest; uint64_t t_ns; } *fly;   /* MAX_INFLIGHT(nodes); t_ns: posted */
    int nfly;
    MPI_Request barrier;
    int barrier_on;
    uint64_t sent, received;   /* telemetry and control bytes on the main communicator */
    double send_wait_s;        /* the longest a send waits for a free slot (then its message is dropped) */
    uint64_t dropped;          /* messages dropped so: the peer took nothing for send_wait_s */
    int stalled_dest;          /* the last peer a message was dropped for, or a relay that took nothing for
                                * send_wait_s (reap_sends); -1: none */
    int lost_node;             /* a node known stalled or gone (cluster_mark_lost), -1: none */
    int bye;                   /* node 0's TAG_BYE came (taken while relaying on the way out: not waited for again) */
    int no_barrier;            /* not node 0: node 0 said it ends with a bye to each node, not in the barrier */
    unsigned char lost[SHM_MAX_NODES];   /* per node: marked lost; nothing is sent to it any more */
    double setup_extra_s;      /* the next set-up agreement waits at least this long (the clock exchange's bound) */
    /* the proxy thread */
    pthread_t proxy;
    int proxy_on;
    _Atomic int proxy_stop;
    struct shm *shm;
};

extern struct cluster_state cl;   /* cluster.c */

/* cluster.c */
void send_owned(char *buf, size_t len, int dest, int tag);
void reap_sends(int all);

/* cluster_up.c */
void up_init(void);
void up_free(void);
void up_flush(void);
void up_line(int st, const char *line, size_t len);
void up_json(int32_t tag, const char *text, size_t len);
struct cluster_sink;
void up_take(const char *buf, size_t len, const struct cluster_sink *sink);
/* A node leaving: its end record, then it relays until every node below it has left (or the send wait passed). */
void up_leave(void);
uint64_t up_missing(int node);
/* Leaving with a node lost (no barrier would end): this node's sends delivered, then node 0 tells every node still
 * there it is done and the others wait for that, so that none leaves before node 0 has its records and summary. */
void up_leave_lost(void);
/* cluster_setup.c, in cluster_init: node 0's build record to every node; one built otherwise ends the job (exit 3),
 * saying both builds (cluster.h, struct cluster_build). */
void cluster_same_build(void);

#endif
