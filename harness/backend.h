/* harness/backend.h: a backend (sim, cuda) is one const struct of hooks, listed in harness/backends/table.c.
 * Supervisor-side hooks run in the supervisor; worker-side hooks run in each rank's process. */
#ifndef GAUNTLET_BACKEND_H
#define GAUNTLET_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "scenario.h"
#include "shm.h"

#define BACKEND_OPS_VERSION 1

/* What a rank's worker hands its backend. */
struct backend_ops;

struct worker_ctx {
    const struct scenario *sc;
    const struct backend_ops *ops;
    void *b;            /* the backend's state, from init */
    struct shm *shm;
    struct ctl *ctl;
    int rank, nranks;
    int run;            /* index of the mitigation run in progress */
    int64_t iter;       /* iteration in progress */
    uint64_t iter_t0;   /* first phase begin of the iteration in progress */
    uint64_t last_end;  /* last phase end */
    char err[256];      /* a hook that fails writes why here */
};

/* Reports a phase edge at t_ns (the backend calls it, since only it knows when its work really ran). */
void worker_phase(struct worker_ctx *w, int phase, int begin, uint64_t t_ns, double a);
/* Proves the worker is alive (called by backends inside long waits that are progress, not hangs). */
void worker_beat(struct worker_ctx *w);

/* One power reading of a rank. NAN where not measured. */
struct power_reading {
    double watts;        /* instantaneous where the source has it */
    double avg_w;        /* the source's averaged power */
    double energy_j;     /* cumulative energy counter */
    double clock_mhz, temp_c;
    uint64_t throttle;   /* source-specific reason bits; 0 when none or unknown */
};

struct power_source;     /* a backend's private sampler state */

struct backend_ops {
    int version;         /* BACKEND_OPS_VERSION */
    const char *name;
    const char *help;

    /* supervisor side */
    int (*probe)(char *why, size_t n);                          /* 0: usable here; else why not */
    int (*check)(const struct scenario *sc, char *why, size_t n); /* 0, or EXIT_INPUT with why */
    int (*prepare)(struct shm *shm, char *why, size_t n);        /* before workers start; may be NULL */
    struct power_source *(*power_open)(struct shm *shm, char *why, size_t n);
    int (*power_read)(struct power_source *ps, int rank, uint64_t t_ns, struct power_reading *out);
    void (*power_close)(struct power_source *ps);

    /* worker side */
    void *(*init)(struct worker_ctx *w, char *why, size_t n);
    void (*on_phase)(void *b, int phase, uint64_t t_ns);         /* phase changed (sim: power model); may be NULL */
    int (*compute)(void *b, struct worker_ctx *w);               /* the GEMM chain; reports its phase edges */
    int (*allreduce)(void *b, struct worker_ctx *w);             /* the all-reduce; reports its phase edges */
    int (*snapshot)(void *b, const void **state, size_t *len);   /* host copy of the model state (checkpoints) */
    double (*device_bytes)(void *b);                             /* device memory this rank holds */
    double (*clock_error)(void *b);   /* seconds: how far its phase times may sit from the host clock; may be NULL */
    void (*fini)(void *b);
};

/* Every backend, NULL-terminated. */
extern const struct backend_ops *const backend_table[];

/* Returns the backend named name, or NULL. */
const struct backend_ops *backend_find(const char *name);
/* Checks the table (version, required hooks, unique names); 0, or -1 with why. */
int backend_table_check(char *why, size_t n);

#endif
