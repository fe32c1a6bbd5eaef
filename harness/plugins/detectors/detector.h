/* harness/plugins/detectors/detector.h: a detector is one const struct in a file of its own, listed once in
 * harness/plugins/detectors/table.c. Worker-side detectors check the rank's own data at a point of the iteration;
 * supervisor-side ones watch all ranks (their processes, heartbeats, fingerprints). */
#ifndef GAUNTLET_DETECTOR_H
#define GAUNTLET_DETECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

#define DETECTOR_OPS_VERSION 1

/* The engine's handle on each detector; detector_table lists them in this order (checked at start). */
enum detector_id { DET_EXIT = 0, DET_HEARTBEAT, DET_FINGERPRINT, DET_ABFT, DET_REPLAY, DET_COMM, DET_COUNT };

/* All a worker-side detector may use, and what it may say: the worker hands it this (worker/worker.c). A hook the
 * backend does not have is NULL. */
struct detector_env {
    void *ctx;
    int64_t iter;                                             /* the rank's iteration */
    int (*abft)(void *ctx, double *err, double *tol);         /* 1: the GEMM's checksums disagree */
    /* 0: h, the fingerprint of slice `slice` of `slices` of the state (fingerprint_slice), now */
    int (*fingerprint)(void *ctx, int slice, int slices, uint64_t *h);
    int (*fingerprint_start)(void *ctx, int slice, int slices);   /* 0: one started in the background */
    void (*fingerprint_take)(void *ctx);                      /* the one started last is reported (if any) */
    void (*fingerprint_pending)(void *ctx);                   /* the one just started is this iteration's */
    int (*replay)(void *ctx, uint64_t *h);                    /* 0: h, the GEMM computed again */
    uint64_t *replay_ref;                                     /* the first replay's result (kept by the worker) */
    void (*fingerprint_out)(void *ctx, uint64_t h);           /* a fingerprint, for the supervisor's comparison */
    void (*found)(void *ctx, int det, double a, double b, const char *note);   /* a finding (a fatal detection) */
    /* the check compared something (abft: a GEMM output verified; replay: a replay compared with the first), counted
     * per rank into summary.json's runs[].ranks[].sdc_checks: what an sdc_screen PASS says was screened */
    void (*checked)(void *ctx, int det);
};

struct detector_ops {
    PLUGIN_HEAD;
    int id;               /* enum detector_id */
    int always;           /* on whether or not the scenario lists it (the supervisor cannot miss a death) */
    const char *catches;  /* what it catches, and what it cannot: for `gauntlet list` */
    /* The fault kinds a finding of it can be (comma list; the first is what a finding no injected fault explains is
     * recorded as: an observed fault), and for a slow-rank finding, if it has those (heartbeat: stragglers). */
    const char *finds, *finds_slow;
    /* An sdc detector: the bitflip targets (comma list, FAULT_TARGETS' spelling) whose corruption it can see; NULL:
     * any. A finding is never credited to a flip it cannot see (until 2026-12-02 a fingerprint finding went to a
     * gradients flip beside the weights flip it saw, and to a gemm-output flip after one). */
    const char *sees;
    /* Where it checks: a point of the iteration in the worker (enum inject_point, with check), or -1 on the
     * supervisor's side (exit, heartbeat, comm: the fault ledger, resilience/faultlog.c). */
    int point;
    void (*check)(const struct detector_env *env, const void *params);
    /* What a finding means when it is matched to a fault (resilience/faultlog.c reads these, never the id):
     * sdc: it finds silent corruption, at most `window` iterations after the corrupted one (0: in that iteration);
     * once: its fatal finding is a process gone or replaced, a new failure every time (never a fault seen again). */
    int sdc, window, once;
    /* The window for the detector's parameters as the scenario gives them (NULL: `window`): a fingerprint hashing
     * slices finds a lasting corruption up to slices - 1 iterations later. */
    int (*window_of)(const void *params);
    /* Supervisor-side checks over every rank's reports (NULL: none). vote: every rank's fingerprint of one iteration
     * (dropped[r]: rank r is out of the run, its value not counted) gives the value most hold, and whether another value is held as often (a tie).
     * slow: a rank's compute phase of dur seconds against its peers' (n of them); *count holds how many in a row
     * were slow; 1 when that makes a finding, described in note. */
    void (*vote)(const uint64_t *h, const int *dropped, int n, uint64_t *best, int *tie);
    int (*slow)(const void *params, double dur, double *peers, int n, int *count, char *note, size_t len);
};

/* Whether a finding of detector det (slow: a slow-rank finding) can be a fault of kind. */
int detector_finds(int det, int slow, const char *kind);
/* Whether detector det can see a corruption of the buffer target (a bitflip target's name): 1 where its `sees` names
 * it or is NULL. */
int detector_sees(int det, const char *target);
/* The fault kind a finding of det means when no injected fault explains it, as a name, in out. */
void detector_observed_kind(int det, int slow, char *out, size_t n);

extern const struct detector_ops *const detector_table[];

struct replay_params { int64_t every; };
struct fingerprint_params { int async; int64_t slices; };

/* Slice `slice` (0 .. slices - 1) of a buffer of `bytes`, as the fingerprint hashes it: [*off, *off + *len), its
 * start a multiple of align (a power of two); the slices of one buffer cover it exactly, none overlapping, in
 * order, each within align bytes of bytes / slices. With slices 1: the whole buffer. */
void fingerprint_slice(size_t bytes, int slice, int slices, size_t align, size_t *off, size_t *len);
struct heartbeat_params { double factor, min_excess_s; int64_t persist; };

#endif
