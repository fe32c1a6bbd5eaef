/* tests/test_supfp.c: node 0's fingerprint vote across nodes (harness/cluster/supfp.c) in-process, on a supervisor
 * of three nodes made here: each node's value of an iteration comes as it would over MPI (node 0's own through
 * supfp_node, the others' through supfp_message), and what the vote tells node 0 is read from the lines its record
 * gets. A node that no longer takes part (lost, or ended) is taken off the rows begun while it did (supfp_recount):
 * they are voted on what the others said, no sooner and no later. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "resilience.h"
#include "shm.h"
#include "sup.h"
#include "supcluster.h"
#include "supcluster_int.h"
#include "util.h"

#define NODES 3
#define FP_A 0x1111222233334444ull
#define FP_B 0x5555666677778888ull

static struct scenario sc;
static struct shm_hdr hdr;
static struct sup_link ln;
static int dropped[1];
static struct sup s;
static char lines[16384];   /* the lines node 0's record got, one after the other */

/* Keeps a line node 0's record would have written (results.forward hands every line here). */
static void keep_line(int stream, const char *line, size_t len)
{
    size_t have = strlen(lines);
    cr_assert_eq(stream, 0);
    cr_assert_lt(have + len, sizeof lines);
    memcpy(lines + have, line, len);
    lines[have + len] = 0;
}

/* Node 0 of NODES nodes of one rank each, running run 0 on the sim backend (modelled: a tie is recorded as a
 * fingerprint_tie line, the rest of the run being nobody's here), no fault injected. */
static void setup(void)
{
    memset(&sc, 0, sizeof sc);
    memset(&hdr, 0, sizeof hdr);
    memset(&ln, 0, sizeof ln);
    memset(&s, 0, sizeof s);
    lines[0] = 0;
    for (int k = 0; k < NODES; k++)
        hdr.xn.live[k] = 1;
    s.sc = &sc;
    s.ops = backend_find("sim");
    s.shm.hdr = &hdr;
    s.shm.fd = -1;
    s.ln = &ln;
    s.nranks = 1;
    s.dropped = dropped;
    s.node = 0;
    s.nodes = NODES;
    s.running = 1;
    s.res.forward = 1;
    s.res.send = keep_line;
    s.res.node = -1;
    cr_assert(s.ops && s.ops->modelled);
    resilience_new(&s, NODES);
}

static void teardown(void)
{
    supfp_free(&s);
    resilience_free(&s);
}

/* Node k's value h of iteration iter (its one rank agreeing with itself). */
static void says(int k, int64_t iter, uint64_t h)
{
    if (k == 0) {
        supfp_node(&s, iter, h, 1);
        return;
    }
    char hex[20];
    snprintf(hex, sizeof hex, "%016" PRIx64, h);
    json_t *o = json_pack("{s:i, s:i, s:I, s:i, s:s}", "run", 0, "ep", 0, "iter", (json_int_t)iter, "n", 1, "fp", hex);
    supfp_message(&s, k, TAG_FP, o);
    json_decref(o);
}

/* Node k no longer takes part: lost (as supliveness.c's supc_node_lost marks it). */
static void leaves(int k)
{
    ln.node_gone[k] = 1;
    supfp_recount(&s);
}

/* How many fingerprint_tie lines name iteration iter. */
static int ties_at(int64_t iter)
{
    char want[64];
    snprintf(want, sizeof want, "\"iter\":%" PRId64 ",", iter);
    int n = 0;
    for (const char *p = lines; (p = strstr(p, "\"event\":\"fingerprint_tie\"")); p++) {
        const char *end = strchr(p, '\n'), *at = strstr(p, want);
        n += at && (!end || at < end);
    }
    return n;
}

TestSuite(supfp, .init = setup, .fini = teardown);

/* A row nodes 0 and 1 disagree on waits for node 2; node 2 lost, it is voted on the two that said (a tie: one rank
 * each), once. Without the recount the row waited for node 2 for ever and the disagreement went unseen. */
Test(supfp, a_row_a_lost_node_never_filled_is_voted_without_it)
{
    says(0, 5, FP_A);
    says(1, 5, FP_B);
    cr_assert_eq(ties_at(5), 0, "voted before node 2 said or left:\n%s", lines);
    leaves(2);
    cr_assert_eq(ties_at(5), 1, "the row was not voted once node 2 was lost:\n%s", lines);
    supfp_recount(&s);   /* a second recount (another node ending) votes no row twice */
    cr_assert_eq(ties_at(5), 1, "%s", lines);
}

/* The rows in flight when node 2 leaves: one the two left agree on tells nothing (no false mismatch); one only node 0
 * has said waits for node 1 and is voted when it comes, neither sooner nor never; a row begun after the leave waits
 * for the two nodes left only. */
Test(supfp, the_rows_in_flight_at_a_leave_wait_for_the_nodes_left_only)
{
    says(0, 6, FP_A);
    says(1, 6, FP_A);
    says(0, 8, FP_A);
    leaves(2);
    cr_assert_str_eq(lines, "", "an agreement or a half row told something");
    says(1, 8, FP_B);
    cr_assert_eq(ties_at(8), 1, "the row node 1 completed after the leave was not voted:\n%s", lines);
    says(0, 9, FP_B);
    says(1, 9, FP_A);
    cr_assert_eq(ties_at(9), 1, "a row begun after the leave waited for node 2:\n%s", lines);
    cr_assert_eq(ties_at(6), 0, "%s", lines);
}

/* A node that ended its run (its end record came) is taken off the rows as a lost one is. */
Test(supfp, a_node_that_ended_is_not_waited_for)
{
    says(0, 11, FP_A);
    says(2, 11, FP_B);
    cr_assert_eq(ties_at(11), 0, "%s", lines);
    ln.node_ended[1] = 1;
    supfp_recount(&s);
    cr_assert_eq(ties_at(11), 1, "the row was not voted once node 1 had ended:\n%s", lines);
}
