/* tests/test_cuda_plan.c: what a cuda rank decides on the host alone (harness/backends/cuda/rankplan.h): the seeds of
 * its operands, the chains of workload.phases and the one a run's abft targets, the collectives of the gradient
 * exchange, a stagger's group and its wait, the filler's waits. Needs no GPU: nothing here skips. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "mitigations/mitigation.h"
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

/* A stagger's group is the rank's place among every node's ranks, as on sim: one GPU per node staggers across the
 * nodes (until 2026-11-30 every cuda rank was local rank 0 of 1 there, in group 0, and the stagger did nothing), and
 * 3 ranks on each of 2 nodes alternate over all 6. */
Test(rankplan, a_stagger_groups_ranks_over_every_node)
{
    cr_assert_eq(scenario_load_string("name: st\nranks: 1\niterations: 3\nworkload:\n  gemm: {m: 4096, n: 4096, k: "
                                      "4096, count: 8}\n  allreduce: {bytes: 64MiB}\nmitigations: [none, {stagger: "
                                      "{groups: 2, offset: 20ms}}]\n",
                                      "st.yaml", &sc, err, sizeof err),
                 0, "%s", err);
    const struct plugin_spec *st = &sc.mitigations[1];
    cr_assert_str_eq(st->name, "stagger");
    struct mit_model mm;
    for (int node = 0; node < 4; node++) {   /* nodes: 4, ranks: 1 */
        rankplan_mit_model(st, &sc.sim, 700, 0, (uint32_t)node, 4, &mm);
        cr_assert_float_eq(mm.delay_s, node % 2 ? 0.020 : 0, 1e-12, "node %d's only GPU waits %g s", node, mm.delay_s);
    }
    for (int node = 0; node < 2; node++)   /* nodes: 2, ranks: 3 */
        for (int r = 0; r < 3; r++) {
            int global = 3 * node + r;
            rankplan_mit_model(st, &sc.sim, 700, r, (uint32_t)(3 * node), 6, &mm);
            cr_assert_float_eq(mm.delay_s, global % 2 ? 0.020 : 0, 1e-12, "node %d rank %d (rank %d of 6) waits %g s",
                               node, r, global, mm.delay_s);
        }
    rankplan_mit_model(&sc.mitigations[0], &sc.sim, 700, 1, 0, 2, &mm);   /* none: no model, all zero */
    cr_assert(mm.delay_s == 0 && mm.floor_w == 0 && mm.ramp_up_w_s == 0);
}

struct beats {
    uint64_t t[4096];
    int n, stop_at;   /* stop_at: the beat that answers "stop" (0: none) */
};

/* Records a beat's time; nonzero from beat stop_at on. */
static int beat_record(void *p)
{
    struct beats *b = p;
    if (b->n < (int)ARRAY_LEN(b->t))
        b->t[b->n] = mono_ns();
    b->n++;
    return b->stop_at && b->n >= b->stop_at;
}

/* A stagger's wait beats at least every step (heartbeat.interval) however long the delay, so a delay past
 * heartbeat.timeout is no hang (until 2026-11-30 a plain sleep: one beat before, none for the whole delay), and it is
 * given up at the first beat that says stop. */
Test(rankplan, a_stagger_wait_beats_and_stops)
{
    static struct beats b;
    uint64_t t0 = mono_ns(), step = 10000000;   /* 10 ms beats over a 300 ms delay */
    cr_assert_eq(rankplan_wait_until(t0 + 300000000, step, beat_record, &b), 0);
    uint64_t t1 = mono_ns(), most = b.t[0] - t0;
    cr_assert_geq(t1 - t0, 300000000, "it waited %.1f ms of 300", (double)(t1 - t0) * 1e-6);
    for (int i = 1; i < b.n && i < (int)ARRAY_LEN(b.t); i++)
        most = b.t[i] - b.t[i - 1] > most ? b.t[i] - b.t[i - 1] : most;
    cr_log_info("300 ms waited in 10 ms steps: %d beats, at most %.1f ms apart", b.n, (double)most * 1e-6);
    cr_assert_geq(b.n, 2);
    cr_assert_lt(most, 150000000, "%.1f ms without a beat in a 300 ms wait of 10 ms steps", (double)most * 1e-6);
    cr_assert_geq(b.t[b.n - 1], t0 + 300000000, "the wait ends with a beat: its last %.1f ms before the end",
                  (double)(t0 + 300000000 - b.t[b.n - 1]) * 1e-6);

    memset(&b, 0, sizeof b);   /* the run stops at the third beat: the 10 s delay is given up there */
    b.stop_at = 3;
    t0 = mono_ns();
    cr_assert_eq(rankplan_wait_until(t0 + 10000000000ull, step, beat_record, &b), -1);
    cr_assert_eq(b.n, 3);
    cr_assert_lt(mono_ns() - t0, 2000000000ull, "a stop was waited out: %.1f ms", (double)(mono_ns() - t0) * 1e-6);

    memset(&b, 0, sizeof b);   /* stopped already: no sleep at all */
    b.stop_at = 1;
    cr_assert_eq(rankplan_wait_until(mono_ns() + 10000000000ull, 0, beat_record, &b), -1);
    cr_assert_eq(b.n, 1);
}

#define GEMM_S 0.175e-3   /* the filler's GEMM on an H100 */

/* A period's waits: each at most the slice, together the gap t_g (1 - d) / d, none left over; no wait at duty 1 or
 * none, and a gap one wait long where it fits in one. */
Test(rankplan, a_filler_gap_is_cut_into_short_waits)
{
    static const double duties[] = { 0.0021, 0.01, 0.05, 0.0875, 0.25, 0.5, 0.9 };
    for (size_t i = 0; i < ARRAY_LEN(duties); i++) {
        double d = duties[i], gap = GEMM_S * (1 - d) / d, q = 0, s;
        int n = 0;
        while ((s = rankplan_fill_slice(GEMM_S, d, q, RANKPLAN_FILL_SLICE_S)) > 0) {
            cr_assert_leq(s, RANKPLAN_FILL_SLICE_S, "duty %g: a wait of %g s", d, s);
            q += s;
            cr_assert_lt(++n, 1000);
        }
        cr_assert_float_eq(q, gap, 2e-6, "duty %g: waits of %g s for a gap of %g s", d, q, gap);
        cr_assert_eq(n, (int)ceil((gap - 2e-6) / RANKPLAN_FILL_SLICE_S), "duty %g: %d waits", d, n);
    }
    cr_assert_eq(rankplan_fill_slice(GEMM_S, 1, 0, RANKPLAN_FILL_SLICE_S), 0);
    cr_assert_eq(rankplan_fill_slice(GEMM_S, 0, 0, RANKPLAN_FILL_SLICE_S), 0);
    cr_assert_eq(rankplan_fill_slice(GEMM_S, NAN, 0, RANKPLAN_FILL_SLICE_S), 0);
    cr_assert_eq(rankplan_fill_slice(0, 0.5, 0, RANKPLAN_FILL_SLICE_S), 0);
    /* a duty that rises meanwhile: 5 ms of an 83 ms gap queued, and 5 % asks 3.3 ms in all: the gap is done */
    cr_assert_eq(rankplan_fill_slice(GEMM_S, 0.05, 5e-3, RANKPLAN_FILL_SLICE_S), 0);
}

/* The duty a plan asks at t (s): a climb from idle, 0.2 % at 2 ms to 50 % at 102 ms. */
static double climb(double t) { return t < 2e-3 ? 0 : fmin(0.5, 0.002 + (t - 2e-3) * 4.98); }

/* Runs the filler's thread as fillwork.c issues its work, over a duty climbing from idle (times the GPU's, launches
 * and the thread's wake-ups left out): a GEMM at the duty read when it is issued, its first wait behind it, then each
 * further wait decided as the one before it starts, the next GEMM queued behind the wait running once the duty of
 * that moment asks no more; at duty 0.2 % or less, a look every 0.2 ms. Returns the longest time a GEMM started
 * after the plan had it due: the first moment t after the GEMM before ended at e with
 * t - e >= t_g (1 - d(t)) / d(t). */
static double filler_lag(double slice_s)
{
    double t = 0, most = 0;
    while (t < 0.2) {
        double d = climb(t);
        if (d <= 0.002) {
            t += 200e-6;
            continue;
        }
        double e = t + GEMM_S, q = rankplan_fill_slice(GEMM_S, d, 0, slice_s), start = e, run_end = e + q;
        if (q > 0)   /* the thread waits for the GEMM: the first wait runs */
            for (double s; (s = rankplan_fill_slice(GEMM_S, climb(start), q, slice_s)) > 0; q += s) {
                start = run_end;   /* queued behind the wait running; decided again when it starts */
                run_end += s;
            }
        double next = q > 0 ? run_end : e;   /* the next GEMM starts behind the last wait */
        for (double u = e; u < next; u += 1e-6)   /* when the plan had it due */
            if (climb(u) > 0.002 && u - e >= GEMM_S * (1 - climb(u)) / climb(u)) {
                most = fmax(most, next - u);
                break;
            }
        t = next;
    }
    return most;
}

/* A climb from near idle: the filler's GEMMs start within two waits (2 ms) of when the plan has them due. A gap as
 * one wait (until 2026-11-30) made the first GEMM's 83 ms gap at 0.2 % run out whole: ~75 ms late. */
Test(rankplan, a_filler_follows_a_climb_from_idle_within_two_waits)
{
    double lag = filler_lag(RANKPLAN_FILL_SLICE_S), whole = filler_lag(INFINITY);
    cr_log_info("climb from idle: GEMMs at most %.2f ms late in waits of %.0f ms, %.1f ms as one wait", lag * 1e3,
                RANKPLAN_FILL_SLICE_S * 1e3, whole * 1e3);
    cr_assert_leq(lag, 2 * RANKPLAN_FILL_SLICE_S + 1e-6, "%.3f ms late", lag * 1e3);
    cr_assert_gt(whole, 50e-3, "as one wait the climb should run late: %.3f ms", whole * 1e3);
}
