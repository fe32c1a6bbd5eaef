/* tui/replay_int.h: the replay's parts shared by opening the record (replay_open.c) and streaming it (replay_rec.c). */
#ifndef GAUNTLET_REPLAY_INT_H
#define GAUNTLET_REPLAY_INT_H

#include <stdio.h>
#include <sys/types.h>

#include "gridsum.h"
#include "replay.h"

enum { PR_RANK = 0, PR_NODE, PR_CLUSTER };   /* a GPU's row; a node's sum (rank: the node, thr: its GPUs); the
                                               * cluster's sum (thr: whole) */

struct prow {
    double t, w, clk, temp;
    uint64_t thr;
    int64_t sample_ns;
    uint64_t key;   /* the order among rows of one time: kind << 56 | its offset in its file (a cell: its number) */
    int rank, kind;
};

struct src {   /* one file, read in order */
    FILE *f;
    char path[REPLAY_PATH_MAX + 32];
    off_t start, end;   /* its first row's offset; the bytes of whole lines when opened (what the record is) */
    off_t pos;          /* the next line's */
    double maxread;     /* the latest time read since the stream's start (or its kept state) */
    double disorder;    /* the most any row's time is behind one read before it (s) */
    int done;           /* read to its end (the nodes': the cluster's sum flushed) */
};

struct keep {   /* the replay at a point of the record */
    struct vm *m;   /* NULL: none kept here */
    off_t ev_pos, pw_pos, nd_pos;
    double pw_max, nd_max;
    struct prow *heap;
    size_t nheap;
    struct gridsum *gs;
    uint64_t cells;
    int flushed;     /* the nodes' file was read to its end (the sum flushed) */
};

struct replay {
    struct src ev, pw, nd;
    double t_end;
    int ended, no_power, has_nodes;
    int scanning;   /* opening: the cells measure the cluster sum's lag rather than join the window */
    double cell;    /* the cluster sum's cell (s; 0: none) */
    int nodes;
    /* the stream */
    json_t *next;   /* the next event, read ahead (NULL: none) */
    double next_t;
    off_t next_pos;
    struct prow *heap;
    size_t nheap, hcap, hmax;
    struct gridsum *gs;
    uint64_t cells;   /* cells given out so far */
    double fed_t;     /* everything at or before it is in the model */
    char *line;
    size_t lcap;
    /* kept models: keep[k] at k * every */
    struct keep *keep;
    size_t nkeep;
    double every;
    size_t budget, kept_bytes;
};

/* Counts t, just read from s, in its disorder and its latest time. */
void replay_note_read(struct src *s, double t);
/* The cluster sum's cell: into the window (opening: its lateness counted in the nodes' file's disorder). */
void replay_take_cell(void *ctx, const struct gridsum_cell *c);
/* One power.csv line (its newline cut) into *p; one power-nodes.csv line: 0, or -1 when it is not one. */
int replay_power_row(char *line, struct prow *p);
int replay_node_row(const char *line, struct prow *p);
/* The next line of s (its length; 0 at the record's end), cut at the end it had when opened. */
size_t replay_src_line(struct replay *rp, struct src *s);
int replay_src_seek(struct src *s, off_t pos, double maxread);
/* The stream back at the record's start. */
void replay_stream_start(struct replay *rp);

#endif
