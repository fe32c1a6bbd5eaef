/* harness/cluster/cluster.h: several nodes. One supervisor per node, started by the cluster's own launcher
 * (`mpirun -np NODES --map-by ppr:1:node`, `srun --ntasks-per-node=1`); MPI links the supervisors, never the
 * workers. Node 0 owns the results folder and the live view: the other nodes forward every events.jsonl line
 * and power row to it. On sim the all-reduce crosses nodes too, through a proxy thread per supervisor (see
 * harness/backends/sim/simcoll.c). Built without MPI, or started without a launcher, there is one node and every
 * call here is a no-op. docs/cluster.md. */
#ifndef GAUNTLET_CLUSTER_H
#define GAUNTLET_CLUSTER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct shm;

/* Returns 1 when a launcher started this process as one of several tasks (OpenMPI, PMIx, PMI, Slurm). */
int cluster_launched(void);
/* Joins the other supervisors (MPI_Init_thread, MPI_THREAD_MULTIPLE) when launched; 0, or -1 with why
 * (launched but built without MPI; MPI without thread support). Call after the signals are blocked. */
int cluster_init(char *why, size_t n);
int cluster_node(void);
int cluster_nodes(void);
/* Leaves MPI (after every node is done). */
void cluster_fini(void);

/* Measures this node's monotonic clock against node 0's (the best of 16 round trips: offset = node 0's time
 * at the middle of the trip minus ours); collective. Fills the offset (ns to add to ours) and its
 * uncertainty (half the round trip). */
int cluster_clock(int64_t *offset_ns, double *uncert_s);
/* What the nodes agree on while they set up (cluster_setup.c): collectives, each named by its step. Every wait is
 * bounded by the set-up wait and reads SIGINT/SIGTERM/SIGHUP meanwhile: a node that does not reach the step in time,
 * or a signal, ends the job here, saying which step and which nodes (node 0: `node(s) 1 did not reach set-up step
 * 'X' within N s`), by MPI_Abort (exit 3; 1 for a signal), so that the launcher takes every node down. */
/* The set-up wait: heartbeat.startup + heartbeat.timeout of the scenario (130 s until set). */
void cluster_set_setup_wait(double seconds);
/* Whether a SIGINT, SIGTERM or SIGHUP pending during a wait ends the job there (1, the default), or stays pending for
 * the caller to read (0: gauntlet accept's suite, which ends with its verdicts; each wait is bounded all the same;
 * cluster_set_agree_grace). */
void cluster_set_signals_end(int on);
/* With signals left to the caller (cluster_set_signals_end(0)): whether node 0, a stop signal pending (or read
 * already: stopped(), the caller's record of one, may say so) while it waits in an agreement, waits for the nodes
 * missing only 0.3 s more, then takes them for lost (the launcher is ending the job). gauntlet accept has it on for
 * its own agreements between runs, off for a run's set-up (whose clock exchange and broadcasts need every node). */
void cluster_set_agree_grace(int on, int (*stopped)(void));
/* Node 0, at the agreements that follow (until set 0): a node whose word does not come within the set-up wait is
 * taken for lost, and the agreement goes on without it, rather than the job ended (exit 3). gauntlet accept has it on
 * while every node measures its checkpoint target: a node held there by a hung file system fails that check, and the
 * suite ends judged. cluster_lost_late: whether the last agreement took node for lost so (node 0; 0 elsewhere). */
void cluster_set_late_lost(int on);
int cluster_lost_late(int node);
/* The node node 0 took for lost, as it said at the last agreement (on node 0: its own at that agreement), -1: none.
 * Every node decides on it alike, whatever it took for lost itself (a relay silent to it alone). */
int cluster_lost_agreed(void);
/* Every node's worst exit code (the largest of rc over the nodes), on every node. Called where a node may fail alone
 * during set-up, so that all go on or all stop (none is left waiting in a collective). A node node 0 took for lost
 * (cluster_mark_lost) is not waited for; each other node learns of it (cluster_lost_node) and leaves, as node 0,
 * without the closing barrier. The collectives below (gather, bcast) need every node: none after a node is lost. */
int cluster_agree(int rc, const char *step);
/* The same; node 0 also gets the note (a line saying why, or NULL) of the first other node that sent one in first. */
int cluster_agree_note(int rc, const char *note, const char *step, char *first, size_t n);
/* The same, each node's word carrying nv (at most 2) figures (mine): node 0 gets every node's, all[k * nv + i], NAN for
 * a node lost (the other nodes' all is left as it was). Where a collective would wait for a node lost or killed. */
int cluster_agree_values(int rc, const double *mine, int nv, double *all, const char *step);
/* Every node's x, on every node (out[nodes]); 0 or -1. */
int cluster_gather_int(int x, int *out, const char *step);
/* Node 0's value of x, on every node. */
uint64_t cluster_bcast_u64(uint64_t x, const char *step);
/* Node 0's bytes, on every node. */
void cluster_bcast(void *buf, size_t n, const char *step);

/* What a node's build says of the messages it exchanges with the others (cluster_same.c): node 0's goes to every node
 * in cluster_init, before any other message, and a node built otherwise ends the job there (exit 3), saying both
 * builds; else a message of another size or meaning would fail later as an MPI error, or be misread. Its layout is
 * fixed: 64 bytes in every build. wire: a hash of the version, the protocol (CLUSTER_PROTOCOL, raised where a
 * message changes meaning) and the sizes of the messages. */
#define CLUSTER_PROTOCOL 1
struct cluster_build {
    char magic[8];   /* "gauntlet" */
    uint64_t wire;
    char version[40];
    uint64_t reserved;
};
_Static_assert(sizeof(struct cluster_build) == 64, "the build record is 64 bytes in every build");
void cluster_build_of(struct cluster_build *b);
/* 0 when node 0's build (theirs) speaks as this one (mine) does; else 1 and why (a sentence naming both). */
int cluster_build_differs(const struct cluster_build *mine, const struct cluster_build *theirs, char *why, size_t n);
/* The bytes of one node's word in an agreement (cluster_setup.c), for the wire hash. */
size_t cluster_agree_bytes(void);

struct scenario;
/* Whether every node runs what node 0 runs (cluster_same.c): node 0's scenario, every default resolved (as its
 * scenario.yaml holds it), with the gauntlet version and the backend, goes to every node, which compares it with its
 * own; a node that differs is EXIT_INPUT, and node 0 names it and the first key that differs. rc: this node's exit
 * code so far (sc is read only where it is 0); returns the worst over the nodes, as cluster_agree. Its waits are the
 * set-up wait the caller set (cluster_set_setup_wait). */
int cluster_same_run(int rc, const struct scenario *sc, const char *backend);

/* Telemetry towards node 0 (nodes > 0): lines are batched and sent up the tree when the batch fills or on flush. */
enum cluster_stream { CL_EVENTS = 0, CL_POWER };
void cluster_forward(int st, const char *line, size_t len);   /* st: enum cluster_stream */
void cluster_flush(void);

/* What node 0 (and every node, for control) receives; the callbacks get whole lines. */
struct cluster_sink {
    void *ctx;
    void (*lines)(void *ctx, int node, enum cluster_stream st, const char *text, size_t len);
    void (*failed)(void *ctx, int node, const char *reason);   /* another node's run failed */
    void (*json)(void *ctx, int node, int tag, json_t *o);     /* a tagged object from another node */
};
/* Takes every message waiting (never blocks). */
void cluster_poll(const struct cluster_sink *sink);
/* Tells every other node that this node's run failed. */
void cluster_fail(const char *reason);
/* Sends a JSON object to node dest with a tag the receiver's `json` callback interprets. To node 0 from another
 * node it climbs the tree after this node's lines (docs/cluster.md); _direct goes straight (heartbeats: a node's
 * liveness is its own, not its relay's). */
void cluster_send_json(int dest, int tag, json_t *o);
void cluster_send_json_direct(int dest, int tag, json_t *o);
/* The tree the other nodes' records climb to node 0: each node relays for at most fanout nodes (>= 2). */
#define CLUSTER_FANOUT 8
void cluster_set_fanout(int fanout);
/* Bytes of other nodes' records this node passed on; node 0: records of node that never came (lost with a relay). */
uint64_t cluster_relayed(void);
uint64_t cluster_records_missing(int node);

/* Bytes this node sent and received on the supervisors' channel (telemetry, control). */
void cluster_stats(uint64_t *sent, uint64_t *received);
/* A send waits at most this long for a free slot while the peer takes nothing (default 30 s); then it is dropped
 * and cluster_stalled_peer names the peer. */
void cluster_set_send_wait(double seconds);
/* Says that node is stalled or gone: nothing is sent to it from now on, and cluster_fini leaves without the barrier
 * and MPI_Finalize that would wait for it forever (the launcher ends the others when this process exits). */
void cluster_mark_lost(int node);
/* A node this node took for lost (the last marked, or one node 0's agreement named), -1: none. */
int cluster_lost_node(void);
/* Node 0: a node has taken a node for lost that node 0 has not (its relay, silent to it alone): that node leaves
 * without the closing barrier, so every node must; node 0 says bye to each at its end instead. Another node (node 0's
 * heartbeat says so): it leaves without the barrier too, once node 0's bye comes (until 2026-11-30 the relay, whose
 * wait for the node that went around it ended when node 0 fell silent, sat in the barrier until the launcher ended
 * it). */
void cluster_no_barrier(void);
/* Another run in this process (gauntlet accept's next scenario), every node known alive (its set-up's agreement
 * went through): the nodes marked lost, a stalled peer and node 0's bye of the run before are forgotten, so that
 * nothing to a node that came back is dropped. */
void cluster_new_run(void);
/* The last peer a message was dropped for (it took nothing for the send wait), or -1. */
int cluster_stalled_peer(void);
/* The tag of a node's run-end record (cluster_send_json): a relay waits for its subtree's before it leaves the run. */
#define CLUSTER_TAG_RUN_END (-1)
/* Whether every node below this one in the tree (none lost) has had its run's end record pass here since
 * cluster_new_run: a relay passes them on before it leaves the run (1 without MPI, or with no node below). */
int cluster_subtree_run_ended(void);
/* The runs begun in this process (cluster_new_run), the same on every node: a run-end record carries it. */
int cluster_run_no(void);

/* A barrier that does not block: begin, then test until it returns 1. */
void cluster_barrier_begin(void);
int cluster_barrier_test(void);

/* The sim all-reduce's step across nodes: a thread that moves the running sum from node to node and the total
 * back (shm->hdr->xn); started once the control block exists, stopped before it goes. */
int cluster_proxy_start(struct shm *shm, char *why, size_t n);
void cluster_proxy_stop(void);

#endif
