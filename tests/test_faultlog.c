/* tests/test_faultlog.c: how the fault ledger (harness/resilience/faultlog.c) names a silent-corruption finding, in
 * process, on a supervisor made here whose backend is not modelled (a GPU's: a finding no injected fault explains is a
 * corruption of its own, fault_observed) or is (sim's: a false positive). A finding of a corruption still in the state
 * is its repeat; once its recovery is over (a good iteration after it) a later finding on that rank is another
 * corruption. Until 2026-12-01 it was the first one's repeat for the rest of the run: no recovery, and on a GPU no
 * fault_observed, so gauntlet accept judged no observed_fault. The stop flag keeps each finding from acting (no
 * recovery is started here): what is judged is the record's lines. A fault a recovery took in has that recovery's
 * figures of work, and joins, while its node waits for node 0's go, the recovery it asked for. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "detector.h"
#include "fault.h"
#include "resilience.h"
#include "shm.h"
#include "sup.h"
#include "util.h"

static struct scenario sc;
static struct shm_hdr hdr;
static struct backend_ops ops;
static int dropped[2];
static struct sup s;
static char lines[16384];   /* the lines the record got, one after the other */

static void keep_line(int stream, const char *line, size_t len)
{
    size_t have = strlen(lines);
    cr_assert_eq(stream, 0);
    cr_assert_lt(have + len, sizeof lines);
    memcpy(lines + have, line, len);
    lines[have + len] = 0;
}

/* One node of 2 ranks running run 0; modelled: sim's backend as it is, else the same marked not modelled. */
static void make(int modelled)
{
    memset(&sc, 0, sizeof sc);
    memset(&hdr, 0, sizeof hdr);
    memset(&s, 0, sizeof s);
    lines[0] = 0;
    const struct backend_ops *sim = backend_find("sim");
    cr_assert(sim && sim->modelled);
    ops = *sim;
    ops.modelled = modelled;
    s.sc = &sc;
    s.ops = &ops;
    s.shm.hdr = &hdr;
    s.shm.fd = -1;
    s.nranks = 2;
    s.dropped = dropped;
    s.nodes = 1;
    s.running = 1;
    s.stopping = 1;   /* findings are recorded, none acted on */
    s.res.forward = 1;
    s.res.send = keep_line;
    s.res.node = -1;
    resilience_new(&s, 1);
    s.fl->fail_iter = -1;
}

static void teardown(void) { resilience_free(&s); }

/* A bit flip of the weights (what the fingerprint sees) injected on rank at iter (time t_ns), as the worker's
 * fault_injected report records it; its index. */
static int injected(int rank, int64_t iter, uint64_t t_ns)
{
    int kind = -1;
    for (int k = 0; fault_table[k]; k++)
        if (strcmp(fault_table[k]->name, "bitflip") == 0)
            kind = k;
    cr_assert_geq(kind, 0);
    if (s.fl->n_faults == s.fl->cap_faults) {
        s.fl->cap_faults = s.fl->cap_faults ? 2 * s.fl->cap_faults : 16;
        s.fl->faults = xrealloc(s.fl->faults, (size_t)s.fl->cap_faults * sizeof *s.fl->faults);
    }
    s.fl->faults[s.fl->n_faults] = (struct fault_rec){ .spec = 0, .kind = kind, .rank = rank, .iter = iter,
                                                       .t_ns = t_ns, .detector = -1, .restore_iter = -1, .lost = -1,
                                                       .redone = -1, .det_rank = -1, .joined_to = -1,
                                                       .d = { .target = TGT_WEIGHTS, .where = -1, .format = -1,
                                                              .element = -1 } };
    return s.fl->n_faults++;
}

/* The fingerprint's finding on rank at iter (time t_ns); the fault it was matched to (-1: none). */
static int finds(int rank, int64_t iter, uint64_t t_ns)
{
    return faultlog_detect(&s, DET_FINGERPRINT, rank, iter, t_ns, "differs from the other ranks", 1);
}

/* How many lines of event type name the record got. */
static int count(const char *name)
{
    char want[64];
    snprintf(want, sizeof want, "\"event\":\"%s\"", name);
    int n = 0;
    for (const char *p = lines; (p = strstr(p, want)); p++)
        n++;
    return n;
}

TestSuite(faultlog, .fini = teardown);

/* On a GPU: the flip at 10 found at 10 and 11 (still in the state: one fault, its repeat), recovered; a finding at 20
 * on that rank is a corruption nobody injected, and so is one on the other rank. */
Test(faultlog, a_corruption_after_a_recovery_is_another_not_the_first_ones_repeat)
{
    make(0);
    int f = injected(1, 10, 1000);
    cr_assert_eq(finds(1, 10, 2000), f);
    cr_assert_eq(finds(1, 11, 2500), f);
    cr_assert_eq(count("detection"), 1, "%s", lines);
    cr_assert_eq(count("detection_repeat"), 1, "the finding of 11, while the flip is still in the state:\n%s", lines);
    faultlog_recovered(&s, f, 3000, NULL);
    int g = finds(1, 20, 5000);
    cr_assert(g >= 0 && g != f, "the finding of 20 was taken for fault %d's repeat:\n%s", f, lines);
    cr_assert(s.fl->faults[g].observed, "fault %d is not observed", g);
    cr_assert_eq(count("fault_observed"), 1, "%s", lines);
    cr_assert_eq(count("detection_repeat"), 1, "%s", lines);
    cr_assert_eq(finds(1, 21, 5500), g, "the new corruption's own repeat");
    cr_assert_eq(count("detection_repeat"), 2, "%s", lines);
}

/* On sim (modelled: nothing corrupts by itself) the same finding after the recovery is a false positive, never the
 * repeat of a fault whose effect the recovery took away. */
Test(faultlog, on_a_modelled_device_it_is_a_false_positive)
{
    make(1);
    int f = injected(0, 4, 1000);
    cr_assert_eq(finds(0, 4, 2000), f);
    faultlog_recovered(&s, f, 3000, NULL);
    cr_assert_eq(finds(0, 9, 4000), -1, "%s", lines);
    cr_assert(strstr(lines, "\"false_positive\":true"), "%s", lines);
    cr_assert_eq(count("detection_repeat"), 0, "%s", lines);
}

/* A fault a recovery took in has that recovery's work lost and redone, the fault it joined (docs/results.md): when a
 * failure followed before that recovery's first good iteration, the joined fault took the following recovery's
 * figures (0 and 0 for 2 and 2, seen on sim with shrink, 2026-12-02). Fault a's recovery covered b; c's recovery
 * superseded a's; c's first good iteration ends all three. */
Test(faultlog, a_joined_fault_has_the_figures_of_the_recovery_it_joined)
{
    make(0);
    int a = injected(0, 7, 1000), b = injected(1, 7, 1100), c = injected(0, 9, 3000);
    s.fl->faults[a].lost = s.fl->faults[a].redone = 2;
    s.fl->faults[b].joined_to = a;
    faultlog_join(&s, b);
    s.fl->superseded[s.fl->n_superseded++] = a;   /* a's recovery followed by c's before its first good iteration */
    s.fl->faults[c].lost = s.fl->faults[c].redone = 0;
    s.fl->awaiting_fault = c;
    s.fl->awaiting_iter = 5;
    struct wevent ev = { .run = 0, .iter = 5, .t_ns = 9000 };
    faultlog_iteration(&s, &ev);
    cr_assert(s.fl->faults[b].recovered_ns, "b is recovered with the rest:\n%s", lines);
    cr_assert_eq(s.fl->faults[b].lost, 2, "b joined a (lost 2), not c (0): lost %lld\n%s",
                 (long long)s.fl->faults[b].lost, lines);
    cr_assert_eq(s.fl->faults[b].redone, 2, "redone %lld", (long long)s.fl->faults[b].redone);
    /* one that joined no named fault (its joined_to -1) takes the recovery's under way, as before */
    int d = injected(1, 12, 10000), e = injected(0, 12, 10100);
    s.fl->faults[e].lost = 3;
    s.fl->faults[e].redone = 1;
    faultlog_join(&s, d);
    s.fl->awaiting_fault = e;
    s.fl->awaiting_iter = 13;
    ev.iter = 13;
    faultlog_iteration(&s, &ev);
    cr_assert_eq(s.fl->faults[d].lost, 3, "lost %lld", (long long)s.fl->faults[d].lost);
}

/* A fault found while this node waits for node 0's go joins the recovery it asked for: the machine's own record is
 * still the last recovery's (before any, all zero), and the fault read as joined to fault 0 of the run. */
Test(faultlog, a_fault_found_while_waiting_for_the_go_joins_the_one_asked_for)
{
    make(0);
    int a = injected(1, 3, 1000), w = injected(1, 10, 5000), x = injected(0, 10, 5100);
    cr_assert_eq(a, 0);
    s.stopping = 0;   /* the finding acts: it joins the recovery this node waits for */
    s.recovering = 1;
    s.fl->rec_wait = 1;
    s.fl->rec_wait_fault = w;
    cr_assert_eq(finds(0, 10, 6000), x, "%s", lines);
    cr_assert_eq(s.fl->faults[x].joined_to, w, "joined to fault %d, not %d (the one asked for)\n%s",
                 s.fl->faults[x].joined_to, w, lines);
    s.stopping = 1;
}

/* Two ranks hung at once, one check finding both: the recovery holds both failures, kills the cause's rank, and finds
 * the other hung as it stops the ranks. That is the failure it holds, not another: it read as an observed fault
 * beside the injected one (4 runs of 8 on sim, 2026-12-02; on a GPU node whose 8 ranks hang, 7 extra faults). */
Test(faultlog, a_rank_found_hung_again_in_its_recovery_is_the_failure_held)
{
    make(0);
    int kind = -1;
    for (int k = 0; fault_table[k]; k++)
        if (strcmp(fault_table[k]->name, "hang") == 0)
            kind = k;
    cr_assert_geq(kind, 0);
    int a = injected(1, 10, 1000), b = injected(2, 10, 1000);
    s.fl->faults[a].kind = s.fl->faults[b].kind = kind;
    for (int f = a; f <= b; f++) {   /* both found by the heartbeat, b joined to a's recovery */
        s.fl->faults[f].detector = DET_HEARTBEAT;
        s.fl->faults[f].detect_ns = 4000;
        s.fl->faults[f].detect_iter = 10;
    }
    s.fl->faults[b].joined_to = a;
    faultlog_join(&s, b);
    s.stopping = 0;
    s.recovering = 1;
    s.fl->fail_iter = 10;
    int n = s.fl->n_faults;
    cr_assert_eq(faultlog_detect(&s, DET_HEARTBEAT, 2, 10, 7000, "rank 2 hung in recovery", 2), b, "%s", lines);
    cr_assert_eq(s.fl->n_faults, n, "a second fault of one hang:\n%s", lines);
    cr_assert_eq(count("fault_observed"), 0, "%s", lines);
    s.stopping = 1;
}
