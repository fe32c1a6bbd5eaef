/* harness/control/shm.c: creating, mapping and using the shared control block (see shm.h). */
#include "shm.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *phase_name(int phase)
{
    static const char *const names[PH_COUNT] = { "idle", "compute", "comm", "checkpoint", "optimizer" };
    return phase >= 0 && phase < PH_COUNT ? names[phase] : "?";
}

int phase_parse(const char *s, size_t n)
{
    for (int k = 0; k < PH_COUNT; k++)
        if (strlen(phase_name(k)) == n && strncmp(s, phase_name(k), n) == 0)
            return k;
    return -1;
}

/* Rounds n up to a multiple of 64 bytes. */
static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

int shm_create(struct shm *s, int nranks, int nspares, uint64_t coll_elems, uint64_t replica_bytes)
{
    size_t ctl_off = align64(sizeof(struct shm_hdr));
    size_t coll_off = align64(ctl_off + (size_t)(nranks + nspares) * align64(sizeof(struct ctl)));
    size_t replica_off = align64(coll_off + (size_t)(nranks + 1) * coll_elems * sizeof(float));   /* + the result */
    size_t size = replica_off + (size_t)nranks * REPLICA_SLOTS * align64(sizeof(struct replica) + replica_bytes);
    char what[64];
    uint64_t have = scenario_mem_limit(what, sizeof what);
    if (have && size > have) {   /* the memfd is sparse: too large, it would fail later as a worker killed for memory */
        gl_log("the control block needs %.2f GiB of shared memory, more than %s (%.2f GiB): %d ranks and %d spares, an "
               "all-reduce slot of %llu fp32 for each rank and its result (sim.max_elems), and %d replicas of %llu "
               "bytes a rank (the recovery's): lower ranks or sim.max_elems", (double)size / (1ull << 30), what,
               (double)have / (1ull << 30), nranks, nspares, (unsigned long long)coll_elems, replica_bytes ? REPLICA_SLOTS : 0,
               (unsigned long long)replica_bytes);
        errno = ENOMEM;
        return -1;
    }
    int fd = memfd_create("gauntlet-ctl", 0);   /* inherited by workers: no MFD_CLOEXEC */
    if (fd < 0)
        return SYSERR("memfd_create");
    if (ftruncate(fd, (off_t)size) != 0) {
        SYSERR("ftruncate(control block)");
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        SYSERR("mmap(control block)");
        close(fd);
        return -1;
    }
    s->hdr = p;
    s->fd = fd;
    s->size = size;
    memset(p, 0, ctl_off);   /* the rest is zero already (a new memfd) */
    s->hdr->magic = SHM_MAGIC;
    s->hdr->version = SHM_VERSION;
    s->hdr->nranks = (uint32_t)nranks;
    s->hdr->size = size;
    s->hdr->ctl_off = ctl_off;
    s->hdr->coll_off = coll_off;
    s->hdr->coll_elems = coll_elems;
    s->hdr->replica_off = replica_off;
    s->hdr->replica_bytes = replica_bytes;
    s->hdr->nslots = (uint32_t)(nranks + nspares);
    atomic_store(&s->hdr->pause_at, INT64_MAX);
    atomic_store(&s->hdr->stop_at, INT64_MAX);
    s->hdr->nodes = 1;
    s->hdr->world = (uint32_t)nranks;
    atomic_store(&s->hdr->xn.world_active, (uint32_t)nranks);
    s->hdr->supervisor_pid = (int32_t)getpid();
    atomic_store(&s->hdr->nactive, (uint32_t)nranks);
    for (int r = 0; r < nranks && r < 256; r++)
        s->hdr->active[r] = (int16_t)r;
    for (int r = 0; r < nranks + nspares; r++) {
        struct ctl *c = shm_ctl(s, r);
        ring_init(&c->cmd, CMD_CAP, sizeof(struct wcmd));
        ring_init(&c->evt, EVT_CAP, sizeof(struct wevent));
        atomic_store(&c->rank, r < nranks ? r : -1);
    }
    return 0;
}

int shm_attach(struct shm *s, int fd)
{
    struct shm_hdr probe;
    if (pread(fd, &probe, sizeof probe, 0) != (ssize_t)sizeof probe)
        return SYSERR("pread(control block)");
    if (probe.magic != SHM_MAGIC || probe.version != SHM_VERSION) {
        gl_log("control block fd %d: bad magic or version (%u, expected %u)", fd, probe.version, SHM_VERSION);
        return -1;
    }
    void *p = mmap(NULL, probe.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return SYSERR("mmap(control block)");
    s->hdr = p;
    s->fd = fd;
    s->size = probe.size;
    return 0;
}

void shm_close(struct shm *s)
{
    if (s->hdr && munmap(s->hdr, s->size) != 0)
        SYSERR("munmap(control block)");
    if (s->fd >= 0)
        close(s->fd);
    s->hdr = NULL;
    s->fd = -1;
}

struct ctl *shm_ctl(struct shm *s, int slot)
{
    return (struct ctl *)((char *)s->hdr + s->hdr->ctl_off + (size_t)slot * align64(sizeof(struct ctl)));
}

struct replica *shm_replica(struct shm *s, int rank, int k)
{
    size_t one = align64(sizeof(struct replica) + s->hdr->replica_bytes);
    return (struct replica *)((char *)s->hdr + s->hdr->replica_off + ((size_t)rank * REPLICA_SLOTS + (size_t)k) * one);
}

void shm_reset_collective(struct shm *s)
{
    atomic_store(&s->hdr->barrier.count, 0);
    atomic_fetch_add(&s->hdr->barrier.gen, 1);
    atomic_store(&s->hdr->abort, 0);
}

float *shm_slot(struct shm *s, int rank)
{
    return (float *)((char *)s->hdr + s->hdr->coll_off) + (size_t)rank * s->hdr->coll_elems;
}

float *shm_result(struct shm *s) { return shm_slot(s, (int)s->hdr->nranks); }


void shm_abort(struct shm *s)
{
    atomic_store(&s->hdr->abort, 1);
    shm_seq_bump(&s->hdr->xn.want_seq);
    shm_seq_bump(&s->hdr->xn.out_seq);
}

void shm_seq_wait(_Atomic uint32_t *w, uint32_t seen, uint64_t timeout_ns)
{
    struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000u), .tv_nsec = (long)(timeout_ns % 1000000000u) };
    if (syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, seen, &ts, NULL, 0) != 0 && errno != EAGAIN &&
        errno != ETIMEDOUT && errno != EINTR)
        sleep_ns(timeout_ns < 1000000 ? timeout_ns : 1000000);   /* no futex here: a short nap, the caller looks again */
}

void shm_seq_bump(_Atomic uint32_t *w)
{
    atomic_fetch_add(w, 1);
    static int said;
    if (syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0) < 0 && !said) {
        said = 1;   /* the sleepers wake at their timeout: slower, never stuck */
        gl_log("futex wake failed (%s): the all-reduce's waits end at their timeouts", strerror(errno));
    }
}
int shm_aborted(struct shm *s) { return atomic_load_explicit(&s->hdr->abort, memory_order_relaxed) != 0; }

int shm_barrier(struct shm *s, void (*beat)(void *), void *arg)
{
    uint32_t n = atomic_load(&s->hdr->nactive);
    uint32_t gen = atomic_load(&s->hdr->barrier.gen);
    if (atomic_fetch_add(&s->hdr->barrier.count, 1) == n - 1) {
        atomic_store(&s->hdr->barrier.count, 0);
        atomic_fetch_add(&s->hdr->barrier.gen, 1);   /* releases the others */
        return shm_aborted(s) ? -1 : 0;
    }
    for (unsigned spins = 0; atomic_load(&s->hdr->barrier.gen) == gen; spins++) {
        if (shm_aborted(s))
            return -1;
        if (spins < 64)
            sched_yield();
        else
            sleep_ns(20000);
        if (beat)   /* every turn: on a loaded machine a yield or a sleep can last far longer than asked */
            beat(arg);
    }
    return 0;
}

void ctl_set_power(struct ctl *c, const struct power_state *ps)
{
    uint32_t seq = atomic_load_explicit(&c->pw.seq, memory_order_relaxed);
    seq += seq & 1;   /* odd: a worker of this slot was killed mid-write; from the next even count on */
    atomic_store_explicit(&c->pw.seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    c->pw.phase = ps->phase;
    c->pw.t0_ns = ps->t0_ns;
    c->pw.p0_w = ps->p0_w;
    c->pw.target_w = ps->target_w;
    c->pw.up_w_s = ps->up_w_s;
    c->pw.down_w_s = ps->down_w_s;
    c->pw.floor_w = ps->floor_w;
    c->pw.hold_w = ps->hold_w;
    c->pw.rise_ns = ps->rise_ns;
    c->pw.rise_w = ps->rise_w;
    c->pw.burst_t0_ns = ps->burst_t0_ns;
    c->pw.dip_t0_ns = ps->dip_t0_ns;
    c->pw.dip_floor_w = ps->dip_floor_w;
    c->pw.dip_base_w = ps->dip_base_w;
    memcpy(c->pw.boost_w, ps->boost_w, sizeof c->pw.boost_w);
    c->pw.sens = ps->sens;
    atomic_store_explicit(&c->pw.seq, seq + 2, memory_order_release);
}

int ctl_get_power(struct ctl *c, struct power_state *out)
{
    for (int tries = 0;; tries++) {
        if (tries >= CTL_POWER_TRIES)
            return -1;   /* never a whole copy: its writer was killed mid-write (or is held off the CPU that long) */
        uint32_t a = atomic_load_explicit(&c->pw.seq, memory_order_acquire);
        if (a & 1) {
            sched_yield();
            continue;
        }
        out->phase = c->pw.phase;
        out->t0_ns = c->pw.t0_ns;
        out->p0_w = c->pw.p0_w;
        out->target_w = c->pw.target_w;
        out->up_w_s = c->pw.up_w_s;
        out->down_w_s = c->pw.down_w_s;
        out->floor_w = c->pw.floor_w;
        out->hold_w = c->pw.hold_w;
        out->rise_ns = c->pw.rise_ns;
        out->rise_w = c->pw.rise_w;
        out->burst_t0_ns = c->pw.burst_t0_ns;
        out->dip_t0_ns = c->pw.dip_t0_ns;
        out->dip_floor_w = c->pw.dip_floor_w;
        out->dip_base_w = c->pw.dip_base_w;
        memcpy(out->boost_w, c->pw.boost_w, sizeof out->boost_w);
        out->sens = c->pw.sens;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&c->pw.seq, memory_order_relaxed) == a)
            return 0;
    }
}

void ctl_publish_reading(struct ctl *c, double watts, double energy_j, uint64_t t_ns)
{
    atomic_store(&c->power_mw, (uint64_t)(watts * 1e3));
    atomic_store(&c->reading_ns, t_ns);
    if (isfinite(energy_j) && energy_j >= 0) {   /* a reading without the counter keeps the last one that had it */
        atomic_fetch_add(&c->energy_seq, 1);      /* odd: being written */
        atomic_store(&c->energy_mj, (uint64_t)(energy_j * 1e3));
        atomic_store(&c->energy_ns, t_ns);
        atomic_fetch_add(&c->energy_seq, 1);
    }
    atomic_fetch_add(&c->power_seq, 1);   /* last: a worker that sees the new count reads the fields above */
}

void ctl_publish_sample(struct ctl *c, uint64_t t_ns, double watts)
{
    uint64_t n = atomic_load_explicit(&c->samples_n, memory_order_relaxed);
    if (!t_ns || !isfinite(watts) || watts < 0 ||
        (n && atomic_load_explicit(&c->samples[(n - 1) % CTL_SAMPLES].t_ns, memory_order_relaxed) == t_ns))
        return;
    struct ctl_sample *e = &c->samples[n % CTL_SAMPLES];
    /* a reader that sees the slot's new values sees the count that says it was being overwritten (ctl_read_samples) */
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&e->t_ns, t_ns, memory_order_relaxed);
    atomic_store_explicit(&e->mw, (uint64_t)(watts * 1e3), memory_order_relaxed);
    atomic_store_explicit(&c->samples_n, n + 1, memory_order_release);   /* last: the entry is whole */
}

int ctl_read_samples(struct ctl *c, uint64_t after_ns, uint64_t until_ns, struct ctl_sample_copy *out, int max)
{
    if (max <= 0)
        return 0;
    uint64_t n = atomic_load_explicit(&c->samples_n, memory_order_acquire);
    uint64_t lo = n > CTL_SAMPLES ? n - CTL_SAMPLES : 0;
    int k = 0;
    for (uint64_t i = lo; i < n; i++) {
        const struct ctl_sample *e = &c->samples[i % CTL_SAMPLES];
        uint64_t t = atomic_load_explicit(&e->t_ns, memory_order_relaxed), mw = atomic_load_explicit(&e->mw, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&c->samples_n, memory_order_relaxed) >= i + CTL_SAMPLES)
            continue;   /* overwritten, or being overwritten, while it was read */
        if (t <= after_ns || t > until_ns)
            continue;
        if (k == max) {   /* keep the newest: drop the oldest copied */
            memmove(out, out + 1, (size_t)(max - 1) * sizeof *out);
            k--;
        }
        out[k++] = (struct ctl_sample_copy){ t, (double)mw * 1e-3 };
    }
    return k;
}

void ctl_read_energy(struct ctl *c, uint64_t *mj, uint64_t *t_ns)
{
    for (;;) {   /* the pair of one publication: an even count, unchanged around both loads */
        uint64_t a = atomic_load(&c->energy_seq);
        if (a & 1) {
            sched_yield();
            continue;
        }
        *mj = atomic_load(&c->energy_mj);
        *t_ns = atomic_load(&c->energy_ns);
        if (atomic_load(&c->energy_seq) == a)
            return;
    }
}
