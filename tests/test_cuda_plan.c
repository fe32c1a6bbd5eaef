/* tests/test_cuda_plan.c: what a cuda rank decides on the host alone (harness/backends/cuda/rankplan.h): the seeds of
 * its operands, the chains of workload.phases and the one a run's abft targets, the collectives of the gradient
 * exchange. Needs no GPU: nothing here skips. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "rankplan.h"
#include "util.h"

static struct scenario sc;
static char err[1024];

/* Every rank (and a spare, rank -1) fills the same weights B; each its own activations A. */
Test(rankplan, every_rank_gets_the_same_weights_and_its_own_activations)
{
    static const uint64_t seeds[] = { 0, 1, 42, 0xffffffffffffffffull };
    static const int ranks[] = { -1, 0, 1, 2, 7, 1023 };
    for (size_t s = 0; s < ARRAY_LEN(seeds); s++)
        for (int chain = 0; chain < 4; chain++) {
            uint64_t a0, b0;
            rankplan_seeds(seeds[s], ranks[0], chain, &a0, &b0);
            cr_assert_neq(a0, b0);
            for (size_t r = 1; r < ARRAY_LEN(ranks); r++) {
                uint64_t a, b;
                rankplan_seeds(seeds[s], ranks[r], chain, &a, &b);
                cr_assert_eq(b, b0, "seed %llu chain %d: rank %d's weights differ from rank %d's",
                             (unsigned long long)seeds[s], chain, ranks[r], ranks[0]);
                for (size_t q = 0; q < r; q++) {
                    uint64_t aq, bq;
                    rankplan_seeds(seeds[s], ranks[q], chain, &aq, &bq);
                    cr_assert_neq(a, aq, "ranks %d and %d share their activations", ranks[r], ranks[q]);
                }
            }
            uint64_t a1, b1, a2, b2;   /* another chain, another scenario seed: other weights */
            rankplan_seeds(seeds[s], 0, chain + 1, &a1, &b1);
            rankplan_seeds(seeds[s] + 1, 0, chain, &a2, &b2);
            cr_assert_neq(b1, b0);
            cr_assert_neq(b2, b0);
        }
}

static const char phases[] = "name: p\nranks: 2\niterations: 3\nworkload:\n  phases:\n"
                             "    - gemm: { m: 8192, n: 8192, k: 8192, count: 4 }\n"
                             "    - allreduce: { bytes: 256MiB, overlap: true }\n"
                             "    - gemm: { m: 4096, n: 8192, k: 4096, count: 3 }\n"
                             "    - reduce_scatter: { bytes: 64MiB }\n"
                             "    - gemm: { m: 8192, n: 8192, k: 8192, count: 6 }\n"
                             "    - gemm: { m: 8192, n: 8192, k: 8192, dtype: fp8, count: 1 }\n";

/* One chain per distinct GEMM shape, chain 0 the first GEMM step's, each as long as its longest step. */
Test(rankplan, one_chain_per_gemm_shape)
{
    cr_assert_eq(scenario_load_string(phases, "p.yaml", &sc, err, sizeof err), 0, "%s", err);
    int which[SC_MAX_STEPS], make[RANKPLAN_MAX_CHAINS];
    int64_t count[RANKPLAN_MAX_CHAINS];
    cr_assert_eq(rankplan_chains(&sc, which, make, count), 3);
    cr_assert_eq(which[0], 0);
    cr_assert_eq(which[1], -1);
    cr_assert_eq(which[2], 1);
    cr_assert_eq(which[3], -1);
    cr_assert_eq(which[4], 0, "the same shape as step 0: its chain");
    cr_assert_eq(which[5], 2, "another dtype: another chain");
    cr_assert_eq(make[0], 0);
    cr_assert_eq(make[1], 2);
    cr_assert_eq(make[2], 5);
    cr_assert_eq(count[0], 6);
    cr_assert_eq(count[1], 3);
    cr_assert_eq(count[2], 1);
    cr_assert_eq(rankplan_out_step(&sc, 0), 0);
}

/* With several shapes, each run's abft and gemm-output faults target a chain that run executes (until 2026-11-30
 * always chain 0, the first shape's, which the other shapes' runs never ran). */
Test(rankplan, each_run_checks_a_chain_it_runs)
{
    cr_assert_eq(scenario_load_string("name: s\nranks: 2\niterations: 3\nworkload:\n  shapes: [dp-overlap, moe]\n"
                                      "mitigations: [none, ramp]\n",
                                      "s.yaml", &sc, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(sc.n_mitigations, 4);
    int which[SC_MAX_STEPS], make[RANKPLAN_MAX_CHAINS];
    int64_t count[RANKPLAN_MAX_CHAINS];
    int chains = rankplan_chains(&sc, which, make, count);
    cr_assert_gt(chains, 1);
    int other_shape = 0;
    for (int run = 0; run < sc.n_mitigations; run++) {
        int n, grad, out = rankplan_out_step(&sc, run);
        const struct step *steps = scenario_run_steps(&sc, run, &n, &grad);
        int first = (int)(steps - sc.workload.steps), runs_it = 0, runs_chain0 = 0;
        cr_assert(out >= first && out < first + n, "run %d: step %d is not among its steps %d..%d", run, out, first,
                  first + n - 1);
        cr_assert_eq(sc.workload.steps[out].kind, ST_GEMM);
        for (int i = first; i < out; i++)
            cr_assert_neq(sc.workload.steps[i].kind, ST_GEMM, "run %d: step %d is an earlier GEMM", run, i);
        for (int i = first; i < first + n; i++) {
            runs_it += which[i] == which[out];
            runs_chain0 += which[i] == 0;
        }
        cr_assert_gt(runs_it, 0);
        other_shape += !runs_chain0;
    }
    cr_assert_gt(other_shape, 0, "every run runs chain 0: the case is not tested");
}

/* Runs one collective of the exchange on nranks float buffers as coll_step does on the device (coll.c): in place,
 * each rank's part divided by the ranks before a sum; a rank's share of a reduce-scatter or an all-gather is its
 * rank's place among count / nranks. */
static void emulate(const struct rankplan_coll *p, float **buf, int nranks)
{
    size_t per = p->count / (size_t)nranks, lo = p->first;
    if (p->op == COLL_ALLREDUCE) {
        for (size_t i = lo; i < lo + p->count; i++) {
            float sum = 0;
            for (int r = 0; r < nranks; r++)
                sum += buf[r][i] * (1.0f / (float)nranks);
            for (int r = 0; r < nranks; r++)
                buf[r][i] = sum;
        }
        return;
    }
    for (int q = 0; q < nranks; q++)
        for (size_t i = lo + (size_t)q * per; i < lo + (size_t)(q + 1) * per; i++) {
            if (p->op == COLL_REDUCE_SCATTER) {
                float sum = 0;
                for (int r = 0; r < nranks; r++) {
                    buf[r][i] *= 1.0f / (float)nranks;
                    sum += buf[r][i];
                }
                buf[q][i] = sum;
            } else {
                for (int r = 0; r < nranks; r++)
                    buf[r][i] = buf[q][i];
            }
        }
}

/* Runs iters exchanges of plan over nranks buffers of count elements from distinct values per rank; returns the
 * largest difference between two ranks' elements and the largest departure from the first fill's mean. */
static void exchange(const struct rankplan_coll *plan, int parts, int nranks, size_t count, int iters,
                     double *apart, double *drift)
{
    float *buf[8], *mean = xcalloc(count, sizeof *mean);
    for (int r = 0; r < nranks; r++) {
        buf[r] = xmalloc(count * sizeof *buf[r]);
        for (size_t i = 0; i < count; i++) {
            buf[r][i] = (float)(1 + (i * 7 + (size_t)r * 13) % 17) / 8.0f;
            mean[i] += buf[r][i] / (float)nranks;
        }
    }
    for (int it = 0; it < iters; it++)
        for (int k = 0; k < parts; k++)
            emulate(&plan[k], buf, nranks);
    *apart = *drift = 0;
    for (size_t i = 0; i < count; i++)
        for (int r = 0; r < nranks; r++) {
            *apart = fmax(*apart, fabs((double)buf[r][i] - (double)buf[0][i]));
            *drift = fmax(*drift, fabs((double)buf[r][i] - (double)mean[i]) / (double)mean[i]);
        }
    for (int r = 0; r < nranks; r++)
        free(buf[r]);
    free(mean);
}

/* The exchange leaves every rank the ranks' mean of the whole buffer, iteration after iteration, as sim's all-reduce
 * does: a reduce-scatter exchange with FSDP's all-gather after it, an all-reduce for the elements left over. */
Test(rankplan, the_gradient_exchange_leaves_every_rank_the_mean)
{
    struct rankplan_coll plan[3];
    cr_assert_eq(rankplan_grad_colls(ST_ALLREDUCE, 1000, 4, plan), 1);
    cr_assert(plan[0].op == COLL_ALLREDUCE && plan[0].first == 0 && plan[0].count == 1000);
    cr_assert_eq(rankplan_grad_colls(ST_REDUCE_SCATTER, 1000, 4, plan), 2);
    cr_assert(plan[0].op == COLL_REDUCE_SCATTER && plan[0].first == 0 && plan[0].count == 1000);
    cr_assert(plan[1].op == COLL_ALL_GATHER && plan[1].first == 0 && plan[1].count == 1000);
    cr_assert_eq(rankplan_grad_colls(ST_REDUCE_SCATTER, 1001, 3, plan), 3);
    cr_assert(plan[1].count == 999 && plan[2].op == COLL_ALLREDUCE && plan[2].first == 999 && plan[2].count == 2);
    cr_assert_eq(rankplan_grad_colls(ST_REDUCE_SCATTER, 2, 3, plan), 1, "fewer elements than ranks: all-reduced");
    cr_assert(plan[0].op == COLL_ALLREDUCE && plan[0].count == 2);
    static const struct { int kind, nranks; size_t count; } cases[] = {
        { ST_ALLREDUCE, 2, 64 }, { ST_REDUCE_SCATTER, 1, 64 }, { ST_REDUCE_SCATTER, 2, 64 },
        { ST_REDUCE_SCATTER, 3, 64 }, { ST_REDUCE_SCATTER, 4, 67 }, { ST_REDUCE_SCATTER, 8, 5 },
    };
    for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
        int parts = rankplan_grad_colls(cases[c].kind, cases[c].count, cases[c].nranks, plan);
        double apart, drift;
        exchange(plan, parts, cases[c].nranks, cases[c].count, 300, &apart, &drift);
        cr_assert_eq(apart, 0, "case %zu (%d ranks, %zu elements): the ranks' buffers differ by %g", c,
                     cases[c].nranks, cases[c].count, apart);
        cr_assert_lt(drift, 1e-4, "case %zu (%d ranks, %zu elements): %g from the mean after 300 exchanges", c,
                     cases[c].nranks, cases[c].count, drift);
    }
    /* the emulation sees what a reduce-scatter alone did: ranks apart, the buffer gone to zero */
    struct rankplan_coll alone = { COLL_REDUCE_SCATTER, 0, 64 };
    double apart, drift;
    exchange(&alone, 1, 2, 64, 3, &apart, &drift);
    cr_assert_gt(apart, 0.01);
    exchange(&alone, 1, 2, 64, 300, &apart, &drift);
    cr_assert_gt(drift, 0.99);
}
