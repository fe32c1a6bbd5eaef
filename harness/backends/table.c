/* harness/backends/table.c: the one list of backends. */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "util.h"

extern const struct backend_ops backend_cuda;
extern const struct backend_ops backend_sim;

const struct backend_ops *const backend_table[] = {
    &backend_cuda,
    &backend_sim,
    NULL,
};

const struct backend_ops *backend_find(const char *name)
{
    for (int i = 0; backend_table[i]; i++)
        if (strcmp(backend_table[i]->name, name) == 0)
            return backend_table[i];
    return NULL;
}

const struct backend_ops *backend_pick(const char *name, int *code)
{
    char why[512];
    *code = 0;
    if (strcmp(name, "auto") == 0) {
        const struct backend_ops *cuda = backend_find("cuda");
        if (cuda && cuda->probe(why, sizeof why) == 0) {
            printf("%s: backend cuda (auto: a usable GPU was found)\n", gl_tag());
            return cuda;
        }
        printf("%s: backend sim (auto: cuda unavailable: %s)\n", gl_tag(), why);
        return backend_find("sim");
    }
    const struct backend_ops *b = backend_find(name);
    if (!b) {
        gl_log("--backend: unknown backend '%s' (expected auto, cuda or sim)", name);
        *code = EXIT_INPUT;
        return NULL;
    }
    if (b->probe(why, sizeof why) != 0) {
        gl_log("--backend %s: cannot run here: %s", name, why);
        *code = EXIT_ENV;
        return NULL;
    }
    printf("%s: backend %s\n", gl_tag(), name);
    return b;
}

int backend_table_check(char *why, size_t n)
{
    for (int i = 0; backend_table[i]; i++) {
        const struct backend_ops *b = backend_table[i];
        if (b->version != BACKEND_OPS_VERSION) {
            snprintf(why, n, "backend %d has version %d, expected %d", i, b->version, BACKEND_OPS_VERSION);
            return -1;
        }
        if (!b->name || !b->help || !b->probe || !b->check || !b->power_open || !b->power_read || !b->power_close ||
            !b->init || !b->compute || !b->allreduce || !b->snapshot || !b->fini) {
            snprintf(why, n, "backend '%s' lacks a required hook", b->name ? b->name : "?");
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(backend_table[j]->name, b->name) == 0) {
                snprintf(why, n, "backend name '%s' appears twice", b->name);
                return -1;
            }
    }
    return 0;
}

double backend_bus_bytes(int kind, double bytes, int ranks)
{
    double n = ranks >= 1 ? ranks : 1;
    return bytes * (kind == ST_ALLREDUCE ? 2.0 * (n - 1) / n : kind == ST_SEND_RECV ? 1.0 : (n - 1) / n);
}

double backend_replay_mid(const struct scenario *sc)
{
    const float *tr = sc->workload.replay.w;
    double lo = tr[0], hi = tr[0];
    for (int i = 1; i < sc->workload.replay.n; i++) {
        lo = tr[i] < lo ? tr[i] : lo;
        hi = tr[i] > hi ? tr[i] : hi;
    }
    return (lo + hi) / 2;
}
