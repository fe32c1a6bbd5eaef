/* harness/results/results.h: the results folder: scenario.yaml (resolved), events.jsonl (one line per event,
 * written as it happens), power.csv (one row per sample), summary.json (written whole at the end). */
#ifndef GAUNTLET_RESULTS_H
#define GAUNTLET_RESULTS_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis_json.h"
#include "scenario.h"
#include "view.h"

/* The longest results folder path (struct results' dir): a longer --out is refused, never cut short. */
#define RESULTS_DIR_MAX 1023

struct results {
    char dir[RESULTS_DIR_MAX + 1];
    int events_fd;
    int power_fd;         /* power.csv (node 0) or power-node<N>.csv (a node whose forwarded rows are thinned) */
    char power_name[32];  /* its file name, for messages */
    char *pbuf;           /* power rows not yet written: whole rows, written once per sampling tick */
    size_t plen, pcap;
    off_t events_off, power_off;   /* the bytes written whole: a failed write is cut back to them */
    int lock_fd;          /* <dir>/.lock, held (flock) while the run writes the folder */
    int failed;           /* a write failed: the run must end (results_failed) */
    int stopped;          /* an append failed: later appends are not tried (a summary.json that failed stops none) */
    int synced;           /* results_sync ran, and nothing was appended since: results_close has nothing to sync */
    char why[RESULTS_DIR_MAX + 256];   /* the first failure: the file and the OS error, whatever the folder's length
                                        * (until 2026-11-30 320 bytes: a long --out cut both off) */
    uint64_t t0_ns;       /* t_s = 0 */
    uint64_t events;      /* lines written */
    const struct view_link *view;   /* also hands each line and row to a live view (NULL: none) */
    int node;             /* several nodes: this node (each line gets "node"); -1: one node */
    int rank_offset;      /* added to every "rank" written: local ranks become global */
    int forward;          /* a node other than 0: no files here, every line goes to node 0 */
    void (*send)(int stream, const char *line, size_t len);   /* forward: hands a line to node 0 (stream 0 events,
                                                               * 1 power; whole lines) */
    double forward_s;     /* forwarding power rows: at most one per rank per this many seconds (0: all) */
    double *fwd_t;        /* per rank: when its last row went to node 0 */
    int fwd_ranks;
    struct nodeagg *agg;  /* forward: nodes, several nodes: a node other than 0 folds its lines for node 0 into it;
                           * node 0 sums its own GPUs' power into power-nodes.csv with it */
    char events_name[32]; /* events.jsonl, or events-node<N>.jsonl (a node other than 0, forward: nodes) */
    int nodes_fd;         /* node 0, forward: nodes: power-nodes.csv, every node's summed power (-1: none) */
    off_t nodes_off;
    struct runcluster *cl;   /* node 0, forward: nodes: those rows summed on node 0's grid (runcluster.h) */
    double cell_s;        /* forward: nodes: the summed power's cell */
};

/* The files commands derive from a run's record and write into its folder (summary.json: the run's or `gauntlet
 * summarize`'s; report.txt, report.svg, report.png: `gauntlet report`'s), NULL-terminated. results_open removes them
 * from a folder it reuses; a command that writes another such file names it here. */
extern const char *const results_derived[];

/* Checks a command's --out (opt names it in messages: "--out") before anything runs: a name, at most max characters,
 * a folder or nothing yet; with scenario (the file `run` runs), a folder that is there must be empty or an earlier
 * results folder (it holds .lock or events.jsonl: files a run leaves), and must not hold that scenario as its
 * scenario.yaml (which a run replaces). EXIT_OK, or EXIT_INPUT (EXIT_ENV: the folder cannot be read) after saying
 * why. */
int results_out_check(const char *opt, const char *out, size_t max, const char *scenario);
/* Node 0, taking dir for the run of sc: removes the node files of an earlier run there that this run does not write
 * (power-nodes.csv; power-node<N>.csv, events-node<N>.jsonl, .lock-node<N> of a node it does not have, or of one
 * that writes no such file with sc's forward), unless a live process holds that node's .lock-node<N>: read beside
 * this run's record, they would be taken for its own. 0, or -1 with why. */
int results_clear_nodes(const char *dir, const struct scenario *sc, char *why, size_t n);
/* Picks the default folder: results/<name>-<UTC timestamp>[-N]/ under root; claim: creates it (a name no other run
 * takes; on one node: nodes sharing a file system would each take their own). */
void results_default_dir(char *out, size_t n, const char *root, const char *name, int claim);
/* Creates dir, locks it (dir/.lock: a second run into a folder in use is refused, naming the run holding it),
 * removes an earlier run's derived files (results_derived) and node files (results_clear_nodes), writes
 * scenario.yaml, opens events.jsonl and power.csv.
 * 0, or -1 with why (and nothing left open). */
int results_open(struct results *r, const char *dir, const struct scenario *sc, uint64_t t0_ns, char *why, size_t n);
/* A node other than 0: lines go to node 0; power rows at most power.forward_hz per rank, and when that drops
 * rows, every row also goes to dir/power-node<node>.csv here, held by dir/.lock-node<node> as results_open holds
 * the folder. With `forward: nodes` node 0 gets one node_iteration line per iteration instead of the ranks'
 * per-iteration events, the node's summed power per 1 / power.forward_hz (nodeagg.h), and every other event whole;
 * this node keeps every line in dir/events-node<node>.jsonl and every row in dir/power-node<node>.csv. 0, or -1 with
 * why (and nothing left open). */
int results_open_forward(struct results *r, const char *dir, const struct scenario *sc, int node, int ranks,
                         uint64_t t0_ns, void (*send)(int stream, const char *line, size_t len), char *why, size_t n);
/* Node 0, its set-up failed after results_open: ends the record with why it holds no run (an end line, exit 3,
 * reason "its set-up failed: <why>"; summarize and analyze say "the run never began: …"). As results_event. */
int results_setup_failed(struct results *r, const char *why);
/* Whether dir's events.jsonl is the record of a run that never began: it holds no start event (empty: a node's
 * set-up that stalled ended the job inside an agreement; node 0's end line: results_setup_failed). 1 with why that
 * end line gives ("" without one), 0 (no events.jsonl, or a run's record), -1 (unreadable). */
int results_never_began(const char *dir, char *why, size_t n);
/* Appends one event: sets "t_s" (from t_ns) and "event" first, writes the line in one write(2). Steals obj. */
int results_event(struct results *r, uint64_t t_ns, const char *type, json_t *obj);
struct power_reading;
/* Returns t_ns as power.csv's t_s holds it: ns since t0_ns, rounded to the microsecond it is written to (half away
 * from zero). The live analysis keeps its ticks at these times too, so that `summarize` and `analyze`, which see only
 * the record, put every tick on the grid point the run put it on. */
int64_t results_stamp_ns(uint64_t t_ns, uint64_t t0_ns);
/* Appends one power row: t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s (p's
 * sample_ns on the run's clock; 0 leaves it empty); NAN leaves a field
 * empty; rank is global (+ rank_offset). */
int results_power(struct results *r, uint64_t t_ns, int rank, const struct power_reading *p, int phase);
/* Pushes buffered power rows to the kernel (called once per sampling tick). */
int results_flush(struct results *r);
/* Flushes, then fsyncs events.jsonl, power.csv and power-nodes.csv: the record on disk before the summary that
 * sums it, and its end line before the run ends. 0, or -1 (the run's failure: results_failed says which file and
 * why; a failure after an earlier one is said here). */
int results_sync(struct results *r);
/* Node 0: appends lines another node forwarded (whole lines, newline-terminated) to events.jsonl, or its power rows to
 * power.csv (forward: ranks) or power-nodes.csv (forward: nodes). */
int results_append(struct results *r, int power, const char *text, size_t len);
/* Returns the first write failure ("cannot write DIR/FILE: OS error"; "DIR/summary.json is written, but its folder
 * could not be synced: OS error ..."), or NULL while every write succeeded. A write
 * that fails leaves its file ending at its last whole line (a short write is cut back) and stops every further write
 * to events.jsonl and power.csv (each results_* write is then -1); the run must end (exit 3). A summary.json that
 * cannot be written stops no append: the end line that follows it says so. */
const char *results_failed(const struct results *r);
/* A node other than 0, forward: nodes: sends node 0 what its fold still holds (before its end record). */
void results_forward_flush(struct results *r);
/* Node 0, forward: nodes: its own last power cell into power-nodes.csv and the cluster's sum, before the run's
 * figures are taken from the sum (else its last cells, still in the fold, are missing from them and only a rebuild
 * from the record has them). */
void results_cluster_flush(struct results *r);
/* A node other than 0, forward: nodes: its GPUs' acceptance figures (nodeagg_gpus_json); NULL otherwise. */
json_t *results_gpus_json(struct results *r);
/* Node 0, forward: nodes: the node left the run (lost, or shrink left it no rank): out of the cluster's sum. */
void results_node_left(struct results *r, int node);
/* Node 0, forward: nodes: the bytes of power-nodes.csv written so far — where a node's leaving falls among the rows
 * the sum took (its event's nodes_csv_at, for summarize to let it go at the same row); -1: no such file. */
long long results_nodes_at(const struct results *r);
/* Node 0: the node's rows are over (its end record came): no cell of the cluster's sum waits for it. */
void results_node_ended(struct results *r, int node);
/* Writes summary.json atomically (write_file_durable). Does not steal summary (NULL: a summary that could not be
 * built, a failure said as such). 0: written and durable; WRITE_UNSYNCED: written, in place, but its folder's fsync
 * failed (it may not survive a power loss); -1: not written (an earlier summary.json, if any, is as it was). Either
 * failure is results_failed's (the run says the first); after an earlier failure this one is logged here. */
int results_summary(struct results *r, json_t *summary);
/* Takes back the last line of events.jsonl, which began at off (r->events_off before it was written): a line the
 * record must not keep (an end line whose exit code the run no longer ends with). 0, or -1 (the run's failure). */
int results_events_cut(struct results *r, off_t off);
/* A JSON string of s with every byte that is not part of a valid UTF-8 character replaced by U+FFFD: text from
 * outside (a reason, an OS message, a path) that can never make the object holding it fail. Never NULL. */
json_t *results_text(const char *s);
void results_close(struct results *r);

#endif
