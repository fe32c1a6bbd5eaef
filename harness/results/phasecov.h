/* harness/results/phasecov.h: which phase a GPU's power reading speaks for. A reading covers the time since the
 * reading before it (a sensor's averaging window, an instant field's update: the driver's buffer every 20 ms on the
 * H100, the instant field every ~100 ms, sim.sensor's update); it counts for a compute or a communication phase only
 * when the rank was in that one phase, without an edge, over all of that time. A tick's phase says nothing of a
 * reading that began in the phase before: with phases shorter than the readings, no reading is a phase's, and the
 * figures the acceptance checks judge (compute p90, communication p10) are then not measured rather than mixed.
 * Streams in: the rank's phase edges and readings in time order; a reading is judged once an edge past it came (or
 * at phasecov_settle). Pure; no I/O. */
#ifndef GAUNTLET_PHASECOV_H
#define GAUNTLET_PHASECOV_H

#include "stats.h"

enum { PHC_OTHER = 0, PHC_COMPUTE = 1, PHC_COMM = 2 };

#define PHASECOV_PENDING 4096   /* readings waiting for their phase's end; past it the oldest is judged on what is known */
#define PHASECOV_EDGES 65536     /* edges a rank keeps with no reading waiting for them (none counts: no sampler) */

struct phasecov;

/* For ranks 0..ranks-1; NULL when ranks < 1. */
struct phasecov *phasecov_new(int ranks);
void phasecov_free(struct phasecov *c);
/* A phase edge of rank at t_s: phase ("compute", "comm", any other is neither) begins (begin 1) or ends. An edge
 * earlier than the rank's last is taken at the last's time. */
void phasecov_edge(struct phasecov *c, int rank, double t_s, const char *phase, int begin);
/* What ends whatever phase rank (-1: every rank) was in at t_s without its phase_end: a worker that died or
 * started, a run or a recovery that began or ended. */
void phasecov_reset(struct phasecov *c, int rank, double t_s);
/* Whether an event (its "event" name) is one phasecov_reset must hear: 1 of a rank (its "rank"), 2 of every rank. */
int phasecov_resets(const char *event);
/* A reading of rank's power seen at tick t_s (every tick, repeats included): stamp_s the time its source gave it (the
 * end of what it covers, which begins at the stamp before); NaN: unstamped, the reading then covers from the tick
 * before the reading before it was first seen (that one was made after it) to the tick it is first seen at. A
 * reading with the stamp (stamped) or the value (unstamped) of the one before it is that one again and counts once;
 * NaN watts is a gap (the next reading's span is unknown: it does not count). */
void phasecov_reading(struct phasecov *c, int rank, double t_s, double stamp_s, double watts);
/* Judges every reading still waiting, on the edges known (the end of a record). */
void phasecov_settle(struct phasecov *c);
/* The readings judged to be rank's phase (PHC_COMPUTE or PHC_COMM) so far; NULL for another phase or rank. */
struct series *phasecov_series(struct phasecov *c, int rank, int phase);
/* The mean time rank's readings covered (s; NaN: none yet): what a phase must outlast for a reading of its own. */
double phasecov_span_s(const struct phasecov *c, int rank);

#endif
