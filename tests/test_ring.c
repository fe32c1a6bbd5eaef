/* tests/test_ring.c: the single-producer single-consumer ring and the control block, with the producer and
 * the consumer in two real processes, as worker and supervisor use them. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring.h"
#include "shm.h"
#include "util.h"

struct rec {
    uint64_t seq;
    uint64_t check;
    char pad[16];
};

Test(ring, rejects_bad_geometry)
{
    struct ring r;
    cr_assert_eq(ring_init(&r, 3, 8), -1);
    cr_assert_eq(ring_init(&r, 0, 8), -1);
    cr_assert_eq(ring_init(&r, 4, 0), -1);
}

Test(ring, heap_ring_is_aligned_and_checks_its_size)
{
    struct ring *r = ring_new(16, 3);   /* an odd record size: the allocation rounds up, never the ring */
    cr_assert_not_null(r);
    cr_assert_eq((uintptr_t)r % _Alignof(struct ring), 0, "the ring is aligned for its cache-line fields");
    unsigned char in[3] = { 1, 2, 3 }, out[3];
    cr_assert_eq(ring_push(r, in), 0);
    cr_assert_eq(ring_pop(r, out), 1);
    cr_assert_eq(memcmp(in, out, 3), 0);
    free(r);
    cr_assert_null(ring_new(12, 8), "a capacity that is not a power of two is refused");
}

Test(ring, full_ring_counts_drops_and_keeps_order)
{
    struct ring *r = ring_new(8, sizeof(struct rec));
    cr_assert_not_null(r);
    struct rec x = { 0 };
    for (uint64_t i = 0; i < 10; i++) {
        x.seq = i;
        int rc = ring_push(r, &x);
        cr_assert_eq(rc, i < 8 ? 0 : -1);
    }
    cr_assert_eq(atomic_load(&r->dropped), 2);
    cr_assert_eq(ring_count(r), 8);
    for (uint64_t i = 0; i < 8; i++) {
        cr_assert_eq(ring_pop(r, &x), 1);
        cr_assert_eq(x.seq, i);
    }
    cr_assert_eq(ring_pop(r, &x), 0);
    free(r);
}

/* A peek shows the record a pop would take, and takes nothing: order and count are kept. */
Test(ring, peek_shows_the_next_record_and_takes_nothing)
{
    struct ring *r = ring_new(4, sizeof(struct rec));
    cr_assert_not_null(r);
    struct rec x = { 0 };
    cr_assert_eq(ring_peek(r, &x), 0, "an empty ring has nothing to peek");
    for (uint64_t i = 0; i < 6; i++) {   /* past the capacity: the index wraps */
        x.seq = i;
        cr_assert_eq(ring_push(r, &x), 0);
        cr_assert_eq(ring_peek(r, &x), 1);
        cr_assert_eq(x.seq, i);
        cr_assert_eq(ring_count(r), 1);
        cr_assert_eq(ring_pop(r, &x), 1);
        cr_assert_eq(x.seq, i);
    }
    cr_assert_eq(ring_peek(r, &x), 0);
    free(r);
}

/* Producer in a child process, consumer here: every record arrives once, in order, intact. */
Test(ring, concurrent_processes_lose_nothing, .timeout = 60)
{
    enum { N = 2000000, CAP = 1024 };
    size_t bytes = ring_bytes(CAP, sizeof(struct rec));
    struct ring *r = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(r, MAP_FAILED);
    cr_assert_eq(ring_init(r, CAP, sizeof(struct rec)), 0);
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        struct rec x = { 0 };
        for (uint64_t i = 0; i < N; i++) {
            x.seq = i;
            x.check = i * 0x9E3779B97F4A7C15ull;
            while (ring_push(r, &x) != 0)   /* the test's producer retries; the worker's never does */
                ;
        }
        _exit(0);
    }
    struct rec x;
    uint64_t next = 0;
    while (next < N) {
        if (!ring_pop(r, &x))
            continue;
        cr_assert_eq(x.seq, next, "record %llu arrived as %llu", (unsigned long long)next, (unsigned long long)x.seq);
        cr_assert_eq(x.check, next * 0x9E3779B97F4A7C15ull, "record %llu torn", (unsigned long long)next);
        next++;
    }
    int st;
    cr_assert_eq(waitpid(p, &st, 0), p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    cr_assert_eq(ring_pop(r, &x), 0);
    munmap(r, bytes);
}

/* The control block: commands in and events out of 4 worker processes at once. */
Test(ring, control_block_four_ranks, .timeout = 60)
{
    enum { RANKS = 4, EVENTS = 100000 };
    struct shm s;
    cr_assert_eq(shm_create(&s, RANKS, 0, 16, 0), 0);
    pid_t pids[RANKS];
    for (int rank = 0; rank < RANKS; rank++) {
        struct wcmd c = { .type = CMD_RUN, .run = rank, .iterations = EVENTS };
        cr_assert_eq(ring_push(&shm_ctl(&s, rank)->cmd, &c), 0);
        pids[rank] = fork();
        if (pids[rank] == 0) {
            struct ctl *ctl = shm_ctl(&s, rank);
            struct wcmd got;
            while (!ring_pop(&ctl->cmd, &got))
                ;
            if (got.type != CMD_RUN || got.run != rank)
                _exit(3);
            for (int64_t i = 0; i < got.iterations; i++) {
                struct wevent ev = { .type = WEV_ITER, .rank = rank, .iter = i, .a = (double)i * 0.5 };
                while (ring_push(&ctl->evt, &ev) != 0)
                    ;
                atomic_store(&ctl->heartbeat_ns, mono_ns());
            }
            _exit(0);
        }
    }
    int64_t next[RANKS] = { 0 };
    int64_t total = 0;
    while (total < (int64_t)RANKS * EVENTS) {
        for (int rank = 0; rank < RANKS; rank++) {
            struct wevent ev;
            while (ring_pop(&shm_ctl(&s, rank)->evt, &ev)) {
                cr_assert_eq(ev.rank, rank);
                cr_assert_eq(ev.iter, next[rank]);
                cr_assert_float_eq(ev.a, (double)next[rank] * 0.5, 0);
                next[rank]++;
                total++;
            }
        }
    }
    for (int rank = 0; rank < RANKS; rank++) {
        int st;
        cr_assert_eq(waitpid(pids[rank], &st, 0), pids[rank]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        cr_assert_gt(atomic_load(&shm_ctl(&s, rank)->heartbeat_ns), 0);
    }
    shm_close(&s);
}

/* The slot's power samples (ctl_publish_sample / ctl_read_samples) across processes: a child publishes 200,000
 * samples, each value derived from its time, every one twice (a driver's buffer gives its newest sample to several
 * readings); the parent reads ranges meanwhile. Every copy is whole (its value is its time's), in order, within the
 * range asked, repeated never; at the end the newest CTL_SAMPLES - 1 are there, the last one last. */
Test(ring, power_samples_are_whole_in_order_and_the_newest_kept, .timeout = 60)
{
    struct shm s;
    cr_assert_eq(shm_create(&s, 1, 0, 16, 0), 0);
    struct ctl *c = shm_ctl(&s, 0);
    enum { N = 200000 };
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        for (uint64_t i = 1; i <= N; i++) {
            ctl_publish_sample(c, 1000 * i, (double)(i % 1000));
            ctl_publish_sample(c, 1000 * i, (double)(i % 1000));   /* the same sample again: not a new one */
        }
        _exit(0);
    }
    static struct ctl_sample_copy out[CTL_SAMPLES];
    long reads = 0, copies = 0;
    for (;;) {
        int done = waitpid(pid, NULL, WNOHANG) == pid;
        uint64_t after = 1000 * (uint64_t)(reads % 50);
        int n = ctl_read_samples(c, after, UINT64_MAX, out, CTL_SAMPLES);
        for (int i = 0; i < n; i++) {
            uint64_t k = out[i].t_ns / 1000;
            cr_assert(out[i].t_ns % 1000 == 0 && out[i].w == (double)(k % 1000), "a torn copy: %llu ns, %g W",
                      (unsigned long long)out[i].t_ns, out[i].w);
            cr_assert_gt(out[i].t_ns, after);
            if (i)
                cr_assert_gt(out[i].t_ns, out[i - 1].t_ns, "out of order or repeated");
        }
        reads++;
        copies += n;
        if (done)
            break;
    }
    cr_assert_eq(atomic_load(&c->samples_n), N, "each sample once: %llu", (unsigned long long)atomic_load(&c->samples_n));
    int n = ctl_read_samples(c, 0, UINT64_MAX, out, CTL_SAMPLES);
    cr_assert_eq(n, CTL_SAMPLES - 1, "%d", n);   /* the oldest slot is the one the next sample takes: left out */
    cr_assert_eq(out[n - 1].t_ns, 1000ull * N);
    cr_assert_eq(out[0].t_ns, 1000ull * (N - CTL_SAMPLES + 2));
    /* a range, and a smaller out: the newest of the range */
    n = ctl_read_samples(c, 1000ull * (N - 10), 1000ull * (N - 2), out, 4);
    cr_assert_eq(n, 4);
    cr_assert_eq(out[0].t_ns, 1000ull * (N - 5));
    cr_assert_eq(out[3].t_ns, 1000ull * (N - 2));
    cr_log_info("%ld reads, %ld copies checked", reads, copies);
    shm_close(&s);
}

/* A worker killed in the middle of ctl_set_power leaves the power state's count odd. The supervisor's read must not
 * spin on it (it would hang, and a restart is just when workers are killed): it gives up, and the slot's next
 * worker's first write makes the count whole again. */
Test(ring, a_power_state_left_half_written_neither_hangs_the_reader_nor_the_next_writer, .timeout = 30)
{
    struct shm s;
    cr_assert_eq(shm_create(&s, 1, 0, 16, 0), 0);
    struct ctl *c = shm_ctl(&s, 0);
    struct power_state st = { .phase = 1, .t0_ns = 100, .p0_w = 50, .target_w = 700 }, got;
    ctl_set_power(c, &st);
    cr_assert_eq(ctl_get_power(c, &got), 0);
    cr_assert_eq(got.target_w, 700);
    atomic_fetch_add(&c->pw.seq, 1);   /* the writer's first step, and then it died */
    uint64_t t0 = mono_ns();
    cr_assert_eq(ctl_get_power(c, &got), -1, "no whole copy to be had");
    cr_log_info("gave up after %.2f ms", (double)(mono_ns() - t0) * 1e-6);
    cr_assert_lt(mono_ns() - t0, 2000000000ull, "it gives up, within 2 s even on a loaded machine");
    st.target_w = 300;
    ctl_set_power(c, &st);   /* the slot's next worker */
    cr_assert_eq(atomic_load(&c->pw.seq) % 2, 0, "whole again");
    cr_assert_eq(ctl_get_power(c, &got), 0);
    cr_assert_eq(got.target_w, 300);
    shm_close(&s);
}
