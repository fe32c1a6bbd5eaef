/* harness/cluster/cluster_int.h: the MPI side's state, shared by cluster.c (the supervisors' channel) and
 * cluster_proxy.c (the sim all-reduce's proxy thread). Built with MPI only. Not a public API. */
#ifndef GAUNTLET_CLUSTER_INT_H
#define GAUNTLET_CLUSTER_INT_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "shm.h"

enum { TAG_EVENTS = 1, TAG_POWER, TAG_FAIL, TAG_JSON, TAG_CLOCK, TAG_CHAIN, TAG_RESULT };
#define BATCH (256u << 10)   /* bytes of lines per message */
#define MAX_INFLIGHT 64

struct cluster_state {
    int on, node, nodes;
    MPI_Comm comm, xcomm;
    /* batches being filled, and sends in flight (their buffers live until done) */
    char *batch[2];
    size_t fill[2];
    struct { MPI_Request req; char *buf; } fly[MAX_INFLIGHT];
    int nfly;
    MPI_Request barrier;
    int barrier_on;
    uint64_t sent, received;   /* telemetry and control bytes on the main communicator */
    double send_wait_s;        /* the longest a send waits for a free slot (then its message is dropped) */
    uint64_t dropped;          /* messages dropped so: the peer took nothing for send_wait_s */
    int stalled_dest;          /* the last peer a message was dropped for, -1: none */
    int lost_node;             /* a node known stalled or gone (cluster_mark_lost), -1: none */
    unsigned char lost[SHM_MAX_NODES];   /* per node: marked lost; nothing is sent to it any more */
    /* the proxy thread */
    pthread_t proxy;
    int proxy_on;
    _Atomic int proxy_stop;
    struct shm *shm;
};

extern struct cluster_state cl;   /* cluster.c */

#endif
