/* harness/backends/cuda/rankplan.c: what a cuda rank decides on the host alone (rankplan.h). */
#include "rankplan.h"

#include "util.h"

void rankplan_seeds(uint64_t seed, int rank, int chain, uint64_t *seed_a, uint64_t *seed_b)
{
    struct rng r;
    rng_seed(&r, seed, 2 * (uint64_t)(uint32_t)chain);   /* even streams: the weights, no rank in them */
    *seed_b = rng_next(&r);
    rng_seed(&r, seed, ((uint64_t)(uint32_t)(rank + 1) << 32) | (2 * (uint64_t)(uint32_t)chain + 1));
    *seed_a = rng_next(&r);
}

/* Whether steps p and q are GEMMs of one shape (one chain runs both). */
static int rankplan_same_shape(const struct step *p, const struct step *q)
{
    return p->kind == ST_GEMM && q->kind == ST_GEMM && p->m == q->m && p->n == q->n && p->k == q->k &&
           p->dtype == q->dtype;
}

int rankplan_chains(const struct scenario *sc, int which[SC_MAX_STEPS], int make[RANKPLAN_MAX_CHAINS],
                    int64_t count[RANKPLAN_MAX_CHAINS])
{
    int n = 0;
    for (int i = 0; i < sc->workload.n_steps && i < SC_MAX_STEPS; i++) {
        const struct step *p = &sc->workload.steps[i];
        which[i] = -1;
        if (p->kind != ST_GEMM)
            continue;
        int c = 0;
        while (c < n && !rankplan_same_shape(&sc->workload.steps[make[c]], p))
            c++;
        if (c == n) {
            if (n == RANKPLAN_MAX_CHAINS)
                return -1;
            make[n] = i;
            count[n++] = 1;
        }
        which[i] = c;
        count[c] = p->count > count[c] ? p->count : count[c];
    }
    return n;
}

int rankplan_out_step(const struct scenario *sc, int run)
{
    int n, grad;
    const struct step *steps = scenario_run_steps(sc, run, &n, &grad);
    for (int i = 0; i < n; i++)
        if (steps[i].kind == ST_GEMM)
            return (int)(steps - sc->workload.steps) + i;
    return -1;
}

int rankplan_grad_colls(int kind, size_t count, int nranks, struct rankplan_coll out[3])
{
    if (kind != ST_REDUCE_SCATTER || nranks < 1) {
        out[0] = (struct rankplan_coll){ COLL_ALLREDUCE, 0, count };
        return 1;
    }
    /* until 2026-11-30 the reduce-scatter ran alone: each rank kept its own share reduced and its own values in
     * the others, which were divided by the ranks every iteration and summed back on their owner only, so the ranks'
     * buffers differed (the fingerprint disagreed at every check on 2 ranks or more) and decayed to zero */
    size_t whole = count / (size_t)nranks * (size_t)nranks;
    int n = 0;
    if (whole) {
        out[n++] = (struct rankplan_coll){ COLL_REDUCE_SCATTER, 0, whole };
        out[n++] = (struct rankplan_coll){ COLL_ALL_GATHER, 0, whole };
    }
    if (whole < count)
        out[n++] = (struct rankplan_coll){ COLL_ALLREDUCE, whole, count - whole };
    return n;
}

#include <math.h>

#include "mitigations/mitigation.h"

void rankplan_mit_model(const struct plugin_spec *spec, const struct sim_params *m, double tdp_w, int rank,
                        uint32_t rank_offset, uint32_t world, struct mit_model *out)
{
    mitigation_model_tdp(spec->index, spec->params, m, tdp_w, rank + (int)rank_offset, (int)world, out);
}

int rankplan_wait_until(uint64_t end_ns, uint64_t step_ns, int (*beat)(void *), void *arg)
{
    if (!step_ns)
        step_ns = 1000000;
    for (;;) {
        if (beat(arg) != 0)
            return -1;
        uint64_t now = mono_ns();
        if (now >= end_ns)
            return 0;
        sleep_until_ns(end_ns - now > step_ns ? now + step_ns : end_ns);
    }
}

double rankplan_fill_slice(double gemm_s, double duty, double queued_s, double slice_s)
{
    if (!(duty > 0) || !(gemm_s > 0) || !(slice_s > 0))
        return 0;
    double left = gemm_s * (1 - fmin(duty, 1)) / duty - queued_s;
    return left > 2e-6 ? fmin(left, slice_s) : 0;
}
