/* harness/scenario/scenario_limits.c: what one node must hold for a scenario — the events one iteration reports (a
 * rank's event ring takes a whole iteration's: scenario_iter_events) and the memory of the shared state
 * (scenario_node_bytes, on the sim backend) — and the refusal, at check time, of a scenario that needs more than
 * there is (the sim backend's check: scenario_mem_check). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recovery/recovery.h"
#include "scenario.h"
#include "scenario_int.h"
#include "util.h"

/* The changes of phase in one pass of a replayed trace: a sample at or above the middle of its range is compute, one
 * below is communication (as backend_replay_mid and worker_replay_phase, which the backends report by); *mid: it. */
static int64_t sc_replay_changes(const struct scenario *sc, double *mid)
{
    const float *tr = sc->workload.replay.w;
    int n = sc->workload.replay.n;
    double lo = n > 0 ? tr[0] : 0, hi = lo;
    for (int i = 1; i < n; i++) {
        lo = tr[i] < lo ? tr[i] : lo;
        hi = tr[i] > hi ? tr[i] : hi;
    }
    *mid = (lo + hi) / 2;
    int64_t changes = 0;
    for (int i = 1; i < n; i++)
        changes += (tr[i] >= *mid) != (tr[i - 1] >= *mid);
    return changes;
}

int scenario_iter_events(const struct scenario *sc)
{
    int64_t edges = 4;   /* the simple iteration: compute, then the all-reduce */
    double mid;
    if (sc->workload.n_steps > 0)   /* each step, and the exposed wait for an overlapped one before it; the last's */
        edges = 4 * (int64_t)sc->workload.n_steps + 2;
    else if (sc->workload.replay.on)   /* the pass's first edges, each change, its end; the data path's GEMM after */
        edges = 8 + 2 * sc_replay_changes(sc, &mid);
    edges += 2;   /* a checkpoint */
    return (int)(edges + SC_ITER_EVENTS_SLACK);
}

uint64_t scenario_node_bytes(const struct scenario *sc, uint64_t *coll_bytes)
{
    const struct recovery_ops *ro = recovery_table[sc->recovery.index];
    uint64_t dim = (uint64_t)sc->sim.max_dim, most = (uint64_t)sc->sim.max_elems;
    uint64_t dk = (uint64_t)sc->workload.gemm.k < dim ? (uint64_t)sc->workload.gemm.k : dim;
    uint64_t dn = (uint64_t)sc->workload.gemm.n < dim ? (uint64_t)sc->workload.gemm.n : dim;
    uint64_t elems = sc->workload.allreduce.bytes / sizeof(float);   /* the sim's state, as its init sizes it */
    if (elems > most)
        elems = most;
    if (elems < dk * dn)
        elems = dk * dn;
    if (elems > (most > dim * dim ? most : dim * dim))   /* the collective's slot: the larger of the two caps */
        elems = most > dim * dim ? most : dim * dim;
    uint64_t e = elems * sizeof(float), ranks = (uint64_t)sc->ranks, slots = ranks + (uint64_t)ro->spares;
    /* each slot's rings; the all-reduce's slots (and its result); each worker's weights and gradient */
    uint64_t bytes = slots * SC_CTL_SLOT_BYTES + (ranks + 1) * e + 2 * ranks * e;
    if (ro->replicas)
        bytes += ranks * RECOVERY_REPLICA_SLOTS * (e + 64);
    *coll_bytes = e;
    return bytes;
}

/* The lowest memory limit of the cgroup at path (under root: "/sys/fs/cgroup" and file "memory.max" for version 2,
 * "/sys/fs/cgroup/memory" and "memory.limit_in_bytes" for version 1) and of its parents; 0: none found. */
static uint64_t sc_cgroup_limit(const char *root, const char *path, const char *file)
{
    char dir[512], f[600], buf[64];
    uint64_t least = 0;
    snprintf(dir, sizeof dir, "%s%s", root, strcmp(path, "/") == 0 ? "" : path);
    for (;;) {
        snprintf(f, sizeof f, "%s/%s", dir, file);
        if (read_small(f, buf, sizeof buf) > 0 && buf[0] >= '0' && buf[0] <= '9') {   /* "max": no limit */
            uint64_t v = strtoull(buf, NULL, 10);
            if (v > 0 && (!least || v < least))
                least = v;
        }
        char *slash = strrchr(dir, '/');
        if (strlen(dir) <= strlen(root) || !slash)
            return least;
        *slash = 0;
    }
}

uint64_t scenario_mem_limit(char *what, size_t n)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    uint64_t limit = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
    snprintf(what, n, "this machine's memory");
    char cg[4096], *save = NULL;
    if (read_small("/proc/self/cgroup", cg, sizeof cg) <= 0)
        return limit;
    for (char *line = strtok_r(cg, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;   /* "ID:CONTROLLERS:PATH" */
        if (!b)
            continue;
        *b = 0;
        uint64_t v = 0;
        if (strcmp(a + 1, "") == 0)   /* version 2 */
            v = sc_cgroup_limit("/sys/fs/cgroup", b + 1, "memory.max");
        else if (strstr(a + 1, "memory"))   /* version 1 */
            v = sc_cgroup_limit("/sys/fs/cgroup/memory", b + 1, "memory.limit_in_bytes");
        if (v && (!limit || v < limit)) {
            limit = v;
            snprintf(what, n, "its memory cgroup's limit");
        }
    }
    return limit;
}

/* Says a size in GiB or MiB. */
static void sc_bytes_text(uint64_t b, char *out, size_t n)
{
    if (b >= (1ull << 30))
        snprintf(out, n, "%.1f GiB", (double)b / (1ull << 30));
    else
        snprintf(out, n, "%.1f MiB", (double)b / (1ull << 20));
}

int sc_limit_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc)
{
    double mid = 0;
    int events = scenario_iter_events(sc);
    if (events > SC_ITER_EVENTS_MAX) {   /* only a trace gets there: 512 steps report at most 2,180 */
        int64_t changes = sc_replay_changes(sc, &mid);
        return sc_error(c, sc_key_node(c, root, "workload.replay.trace"), "workload.replay.trace",
                        "the trace changes phase %" PRId64 " times in a pass (its samples cross the middle of its range, "
                        "%.1f W): a pass would report %d events, more than a rank's event ring holds for one iteration "
                        "(%d): smooth the trace, or replay a shorter part of it", changes, mid, events, SC_ITER_EVENTS_MAX);
    }
    return 0;
}

int scenario_mem_check(const struct scenario *sc, char *why, size_t n)
{
    char what[64], need_s[32], have_s[32], one_s[32];
    uint64_t one, need = scenario_node_bytes(sc, &one), have = scenario_mem_limit(what, sizeof what);
    if (!have || need <= have)
        return 0;
    const struct recovery_ops *ro = recovery_table[sc->recovery.index];
    int line = sc->ranks_line, col = sc->ranks_col;
    const char *key = scenario_key_at(sc, "sim.max_elems", &line, &col) ? "sim.max_elems" : "ranks";
    char rep[96] = "";
    if (ro->replicas)
        snprintf(rep, sizeof rep, ", and in the %d in-memory replicas recovery %s keeps", RECOVERY_REPLICA_SLOTS, ro->name);
    sc_bytes_text(need, need_s, sizeof need_s);
    sc_bytes_text(have, have_s, sizeof have_s);
    sc_bytes_text(one, one_s, sizeof one_s);
    snprintf(why, n,
             "%s:%d:%d: %s: one node's run needs %s of memory for its ranks' state, more than %s (%s): ranks %lld, each "
             "with a state of %s (sim.max_elems fp32, at most workload.allreduce.bytes) in the all-reduce's shared slots "
             "and in its worker's weights and gradient%s; lower ranks or sim.max_elems%s",
             sc->file, line, col, key, need_s, what, have_s, (long long)sc->ranks, one_s, rep,
             ro->replicas ? ", or use a recovery that keeps no replicas (restart)" : "");
    return EXIT_INPUT;
}
