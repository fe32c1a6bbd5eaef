/* harness/plugins/faults/fault.h: a fault is one const struct in a file of its own, listed once in
 * harness/plugins/faults/table.c. Every fault is carried out inside the rank's worker, at a point of the iteration
 * it names, so that the corruption, the crash or the hang is real. */
#ifndef GAUNTLET_FAULT_H
#define GAUNTLET_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

#define FAULT_OPS_VERSION 1

/* The buffers a bit flip can corrupt (scenario spelling in FAULT_TARGETS). */
enum fault_target { TGT_GEMM_OUTPUT = 0, TGT_GRADIENTS, TGT_WEIGHTS, TGT_ALLREDUCE_BUFFER };
#define FAULT_TARGETS "gemm-output,gradients,weights,allreduce-buffer"

/* How a buffer is corrupted (the backend's corrupt hook does it on its real data). */
enum flip_where { FLIP_RANDOM = 0, FLIP_SIGN, FLIP_EXPONENT, FLIP_MANTISSA, FLIP_VALUE };
#define FLIP_WHERE "random,sign,exponent,mantissa,value"

/* The number format of a corrupted element: which of its bits are sign, exponent and mantissa. */
enum num_format { FMT_FP32 = 0, FMT_BF16, FMT_FP16, FMT_FP8E4M3, FMT_COUNT };

/* What a fault did, for the record: filled by the backend's corrupt hook (and left at "none" by the other
 * faults). */
struct fault_detail {
    int target;       /* enum fault_target, -1: none */
    int where;        /* enum flip_where, -1: none */
    int format;       /* enum num_format of the element, -1: none */
    int64_t element;  /* index of the element in the buffer, -1: none */
    uint32_t mask;    /* the bits that changed (bit 0 least significant); 0: none, or the value did not change */
    double old_v, new_v;
    double scale;     /* the magnitude the detector built for this buffer weighs the change against (sim,
                         gemm-output: the sum of |c| over the element's column after the change, as abft does);
                         NAN: not known */
};

struct corruption {
    int target;      /* enum fault_target */
    int where;       /* enum flip_where */
    int bits;        /* bits flipped in one element */
    double value;    /* FLIP_VALUE: the element is multiplied by (1 + value) */
    uint64_t seed;   /* picks the element and the bits */
    struct fault_detail out;   /* filled by the backend: what it changed */
};

/* The class of bit `bit` of an element of format fmt: "sign", "exponent", "mantissa-high" (the upper half of
 * the mantissa bits, rounded up) or "mantissa-low"; "none" for a bit the format does not have. */
const char *fault_bit_class(int fmt, int bit);
/* The class of the most significant bit in mask (the one that decides the error's size), or "none". */
const char *fault_mask_class(int fmt, uint32_t mask);
/* Returns the format's name as results spell it ("fp32", "bf16", "fp16", "fp8-e4m3"), or "none". */
const char *fault_format_name(int fmt);
/* The scenario spelling of a bit flip's target (enum fault_target, FAULT_TARGETS), or NULL. */
const char *fault_target_name(int t);
/* |new - old| / |old|; INFINITY when old is 0 and new is not, or either is not finite and they differ. */
double fault_rel_error(double old_v, double new_v);

/* All a fault may do to the rank it runs in, and nothing more: the worker hands it this (worker/worker.c). A
 * fault sees no worker, backend or control block. */
struct fault_env {
    void *ctx;
    const char *backend;   /* the backend's name, for messages */
    int kernel_hang;       /* 1: hang() spins a kernel on the rank's stream (a GPU hang); 0: the loop stops */
    /* The backend corrupts one element of a buffer, saying what in c->out: 0, or -1 with why (no corrupt hook). */
    int (*corrupt)(void *ctx, struct corruption *c, char *why, size_t n);
    /* The rank's communicator fails: 0, or -1 with why (the backend cannot). */
    int (*break_link)(void *ctx, char *why, size_t n);
    /* The rank's phases take factor times longer for duration_s. */
    void (*slow)(void *ctx, double factor, double duration_s);
    /* The fault's record goes to the supervisor now (before a death or a hang takes the rank). */
    void (*done)(void *ctx, const char *what);
    /* The rank stops: no heartbeat, no progress, alive. Never returns. */
    void (*hang)(void *ctx) __attribute__((noreturn));
    /* Every other live worker of this node is killed at once; returns how many. */
    int (*kill_node)(void *ctx);
};

struct fault_ops {
    PLUGIN_HEAD;
    /* Returns the point of the iteration where this fault (with these params) acts. */
    int (*point)(const void *params);
    /* Carries the fault out in the worker through env; describes what it did in what, and for the record in out
     * (which comes initialised to "none"). 0, or -1 with what saying why. */
    int (*inject)(const struct fault_env *env, const void *params, uint64_t seed, char *what, size_t n,
                  struct fault_detail *out);
    /* A fault that takes a whole node (every rank of it shows it; the node's first rank carries it out): the node
     * its params name. NULL: a fault of one rank. */
    int64_t (*node)(const void *params);
};

extern const struct fault_ops *const fault_table[];

/* Per-kind parameters, laid out in a fault_spec's params blob. */
struct bitflip_params { int target, where; int64_t bits; double value; };
struct crash_params { int signal; };
struct straggler_params { double factor, duration_s; };
struct node_crash_params { int64_t node; };

#endif
