/* tui/replay.h: a run's record (events.jsonl, power.csv and, from several nodes, power-nodes.csv) read for `gauntlet
 * view` as a stream: each file checked once when opened, then read from disk as the cursor moves. The power rows come
 * into time order through a window as wide as the files' own disorder (measured when opened), and the model is kept
 * at points along the record, so that a move back starts from the nearest of them rather than from the start. What
 * it holds is that window and those models, not the record: a day of a node's power replays in the memory a minute
 * of it takes (until 2026-11-30 every row and event was held, 1.6 GB for an hour of 4 GPUs at 1 kHz). */
#ifndef GAUNTLET_REPLAY_H
#define GAUNTLET_REPLAY_H

#include <limits.h>
#include <stddef.h>

#include "model.h"

#define REPLAY_PATH_MAX (PATH_MAX - 1)   /* the longest RUNDIR (its files' names added to it) */

struct replay;

/* Opens dir's record and checks every line of it: the replay, or NULL with why (file:line and what was expected, or
 * why a file could not be read). A run still writing the folder: what is there now, its last line when unfinished
 * left out. */
struct replay *replay_open(const char *dir, char *why, size_t n);
void replay_free(struct replay *rp);
double replay_t_end(const struct replay *rp);   /* the record's last time (s) */
int replay_ended(const struct replay *rp);      /* it has an end event */
int replay_no_power(const struct replay *rp);   /* it has no power.csv */
/* The model at time t of the record: m (the one this replay last gave, or a new one) fed forward, or, for a time
 * behind it, m freed and a kept model (or a new one) fed from there. Every path to t gives the same model. */
struct vm *replay_seek(struct replay *rp, struct vm *m, double t);
/* Keeps a model every every_s of the record (default: one every 16 MiB of its files, at most 64, at least 0.5 s
 * apart), up to bytes of them in all (default 128 MiB; past it no more are kept); the kept ones dropped. */
void replay_keep(struct replay *rp, double every_s, size_t bytes);
/* What it holds now besides the model being shown (bytes), and the most power rows its window has held. */
size_t replay_held(const struct replay *rp, size_t *window_max);

#endif
