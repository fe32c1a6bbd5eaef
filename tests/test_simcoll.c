/* tests/test_simcoll.c: the sim backend's shared-memory all-reduce across 4 real processes: exact sums on
 * random data, every rank the same bits, and no rank left waiting when the run is aborted. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simcoll.h"
#include "shm.h"
#include "util.h"

enum { RANKS = 4, ELEMS = 10007, ROUNDS = 50 };

/* Fills rank's input of round with seeded random values. */
static void fill(float *x, int rank, int round)
{
    struct rng r;
    rng_seed(&r, 1234 + (uint64_t)round, (uint64_t)rank);
    for (int i = 0; i < ELEMS; i++)
        x[i] = (float)(rng_normal(&r) * 1000.0);
}

/* Runs ROUNDS all-reduces in RANKS child processes; each writes its outputs into out[round][rank][...]. */
static void run_ranks(struct shm *s, float *out)
{
    pid_t pids[RANKS];
    for (int rank = 0; rank < RANKS; rank++) {
        pids[rank] = fork();
        cr_assert_geq(pids[rank], 0);
        if (pids[rank] == 0) {
            float *x = malloc(ELEMS * sizeof(float));
            for (int round = 0; round < ROUNDS; round++) {
                fill(x, rank, round);
                if (simcoll_allreduce(s, rank, x, x, ELEMS, NULL, NULL) != 0)
                    _exit(2);
                memcpy(out + ((size_t)round * RANKS + (size_t)rank) * ELEMS, x, ELEMS * sizeof(float));
            }
            _exit(0);
        }
    }
    for (int rank = 0; rank < RANKS; rank++) {
        int st;
        cr_assert_eq(waitpid(pids[rank], &st, 0), pids[rank]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "rank %d failed", rank);
    }
}

Test(simcoll, four_processes_exact_sums, .timeout = 120)
{
    struct shm s;
    cr_assert_eq(shm_create(&s, RANKS, 0, ELEMS, 0), 0);
    size_t bytes = (size_t)ROUNDS * RANKS * ELEMS * sizeof(float);
    float *out = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(out, MAP_FAILED);
    run_ranks(&s, out);
    float *in[RANKS];
    for (int r = 0; r < RANKS; r++)
        in[r] = malloc(ELEMS * sizeof(float));
    for (int round = 0; round < ROUNDS; round++) {
        for (int r = 0; r < RANKS; r++)
            fill(in[r], r, round);
        for (int i = 0; i < ELEMS; i++) {
            float want = in[0][i];   /* the serial sum in rank order: the contract */
            for (int r = 1; r < RANKS; r++)
                want += in[r][i];
            for (int r = 0; r < RANKS; r++) {
                float got = out[((size_t)round * RANKS + (size_t)r) * ELEMS + (size_t)i];
                cr_assert(memcmp(&got, &want, sizeof got) == 0, "round %d rank %d elem %d: %.9g != %.9g", round, r,
                          i, got, want);
            }
        }
    }
    for (int r = 0; r < RANKS; r++)
        free(in[r]);
    munmap(out, bytes);
    shm_close(&s);
}

Test(simcoll, abort_releases_a_waiting_rank, .timeout = 30)
{
    struct shm s;
    cr_assert_eq(shm_create(&s, RANKS, 0, ELEMS, 0), 0);
    pid_t p = fork();
    if (p == 0) {   /* one rank arrives; its peers never do */
        float x[ELEMS] = { 1 };
        _exit(simcoll_allreduce(&s, 0, x, x, ELEMS, NULL, NULL) == -1 ? 0 : 1);
    }
    sleep_ns(200000000);
    shm_abort(&s);
    int st;
    cr_assert_eq(waitpid(p, &st, 0), p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a rank waiting on a dead peer must give up on abort");
    shm_close(&s);
}

Test(simcoll, rejects_more_than_the_slot_holds)
{
    struct shm s;
    cr_assert_eq(shm_create(&s, 1, 0, 8, 0), 0);
    float x[16] = { 0 };
    cr_assert_eq(simcoll_allreduce(&s, 0, x, x, 16, NULL, NULL), -1);
    cr_assert_eq(simcoll_allreduce(&s, 0, x, x, 8, NULL, NULL), 0);
    shm_close(&s);
}
