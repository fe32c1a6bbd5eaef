/* harness/resilience/recover.c: the recovery machine (recover.h), one for one node and many. Every rank stops where it is
 * (the abort flag); the failed process is replaced (or every process, for restart, or none, for shrink); all roll
 * back to a state known good — the last checkpoint on storage, or a healthy peer's in-memory replica — agreed by
 * every node, and the run goes on from there. The strategies' tables are in harness/plugins/recovery/. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "recovery/recovery.h"
#include "resilience.h"
#include "util.h"

/* The generation of rank's checkpoint of iteration it (-1: none whole by its header and size). */
static int recover_gen_of(struct sup *s, int rank, int64_t it)
{
    for (int g = 0; g < scenario_ckpt_gens(s->sc); g++) {
        int64_t at = -1;
        if (checkpoint_peek(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, rank, g, &at) == 0 && at == it)
            return g;
    }
    return -1;
}

/* Returns the newest iteration <= limit for which every rank left holds a checkpoint that checks whole, or 0. Each
 * rank's file of a candidate is read as its restore will check it (checkpoint_verify): a damaged one (a bad disk, a
 * file changed) is said (checkpoint_damaged) and passed over for an older iteration every rank holds whole (until
 * 2026-11-30 only the header and size were looked at here: one damaged state failed the restore and ended the run). */
int64_t recover_checkpoint_iter(struct sup *s, int64_t limit)
{
    int gens = scenario_ckpt_gens(s->sc), r0 = 0, nc = 0;
    while (r0 < s->nranks - 1 && s->dropped[r0])
        r0++;
    int64_t cand[CKPT_GENS_MAX];
    for (int gen = 0; gen < gens && gen < CKPT_GENS_MAX; gen++) {
        int64_t it = -1, dup = 0;
        if (checkpoint_peek(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, r0, gen, &it) != 0 || it > limit || it <= 0)
            continue;
        for (int k = 0; k < nc; k++)
            dup |= cand[k] == it;
        if (!dup)
            cand[nc++] = it;
    }
    for (int a = 0; a < nc; a++)   /* the newest first */
        for (int b = a + 1; b < nc; b++)
            if (cand[b] > cand[a]) {
                int64_t t = cand[a];
                cand[a] = cand[b];
                cand[b] = t;
            }
    for (int k = 0; k < nc; k++) {
        int whole = 1;
        for (int r = 0; r < s->nranks && whole; r++) {
            if (s->dropped[r])
                continue;
            int g = recover_gen_of(s, r, cand[k]);
            char why[400];
            if (g < 0) {
                whole = 0;
            } else if (checkpoint_verify(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, r, g, cand[k], why,
                                         sizeof why) != 0) {
                whole = 0;
                gl_log("checkpoint of iteration %lld of rank %d is damaged (%s): an older one is looked for",
                       (long long)cand[k], r, why);
                results_event(&s->res, mono_ns(), "checkpoint_damaged",
                              json_pack("{s:i, s:I, s:s}", "rank", r, "iter", (json_int_t)cand[k], "why", why));
            }
        }
        if (whole)
            return cand[k];
    }
    return 0;
}

/* Returns the newest replica iteration <= limit that rank r holds whole (only `exact`, when >= 0), or -1. */
static int64_t replica_iter(struct sup *s, int r, int64_t limit, int64_t exact)
{
    int64_t best = -1;
    for (int k = 0; k < REPLICA_SLOTS; k++) {
        struct replica *x = shm_replica(&s->shm, r, k);
        uint64_t seq = atomic_load(&x->seq);
        if (!seq || (seq & 1) || x->iter > limit || (exact >= 0 && x->iter != exact))
            continue;
        best = x->iter > best ? x->iter : best;
    }
    return best;
}

void recover_forget_after(struct sup *s, int64_t start)
{
    for (int r = 0; r < s->nranks; r++) {
        for (int k = 0; k < REPLICA_SLOTS && s->shm.hdr->replica_bytes; k++) {
            struct replica *x = shm_replica(&s->shm, r, k);
            uint64_t seq = atomic_load(&x->seq);
            if (seq && !(seq & 1) && x->iter > start) {   /* every rank is stopped: nobody writes it now */
                x->iter = -1;
                atomic_store(&x->seq, 0);
            }
        }
        for (int gen = 0; gen < scenario_ckpt_gens(s->sc); gen++) {
            int64_t it;
            char path[1024];
            if (checkpoint_peek(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, r, gen, &it) == 0 && it > start) {
                checkpoint_path(path, sizeof path, s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, r, gen);
                if (unlink(path) != 0 && errno != ENOENT)
                    SYSERR(path);
            }
        }
    }
}

/* Removes rank from the collective (shrink). */
void recover_shrink(struct sup *s, int rank)
{
    s->dropped[rank] = 1;
    s->rs.rank[rank].done = 1;
    s->rs.rank[rank].dropped = 1;
    int n = 0;
    for (int r = 0; r < s->nranks && r < 256; r++)
        if (!s->dropped[r])
            s->shm.hdr->active[n++] = (int16_t)r;
    atomic_store(&s->shm.hdr->nactive, (uint32_t)n);
    results_event(&s->res, mono_ns(), "rank_dropped", json_pack("{s:i, s:i}", "rank", rank, "ranks_left", n));
}

void recover_end(struct sup *s, const char *stop, const char *failed)
{
    s->fl->rm.state = RM_IDLE;
    s->recovering = 0;
    if (failed && !s->stopping)
        sup_fail(s, stop, failed);
}

#define REC_FUTILE_MAX 5   /* recoveries in a row that get no iteration done: the run gives up */
#define REC_REPEAT_MAX 6   /* one rank failing this often in a row, never past its first failure's iteration: the run
                            * gives up (more than a campaign schedule's 5 faults can make) */
#define REC_BACKOFF_NS 100000000ull       /* the wait before a recovery that follows a futile one, doubling up to
                                           * REC_BACKOFF_MAX_NS (recover.h) */

/* The wait before starting again after n futile or repeated failures in a row (0: none). */
static uint64_t recover_backoff_ns(int n)
{
    if (n <= 0)
        return 0;
    uint64_t b = REC_BACKOFF_NS << (n > 8 ? 8 : n - 1);
    return b < REC_BACKOFF_MAX_NS ? b : REC_BACKOFF_MAX_NS;
}

void recover_run_reset(struct resilience *fl)
{
    fl->futile = 0;
    fl->restored = 0;
    fl->restored_from = 0;
    fl->repeats = 0;
    fl->repeat_rank = -1;
    fl->repeat_iter = -1;
}

int recover_tally(struct resilience *fl, int rank, int64_t iter, int64_t done)
{
    fl->futile = fl->restored && done <= fl->restored_from ? fl->futile + 1 : 0;
    if (fl->futile >= REC_FUTILE_MAX)
        return REC_GIVE_UP_FUTILE;
    /* one rank failing again and again, each time before the run got past where it failed first: each recovery
     * gets work done, and loses it (a deterministic failure) */
    if (rank >= 0 && rank == fl->repeat_rank && iter <= fl->repeat_iter) {
        fl->repeats++;
    } else {
        fl->repeats = 1;
        fl->repeat_rank = rank;
        fl->repeat_iter = iter;
    }
    return fl->repeats >= REC_REPEAT_MAX ? REC_GIVE_UP_REPEAT : REC_GO_ON;
}

int recover_begin(struct sup *s, const struct rec_failure *f)
{
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    int64_t done = 0;   /* the most iterations a live rank here has completed (a dead one's count is its old life's) */
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r] && s->alive[s->slot_of[r]] && s->ready[s->slot_of[r]]) {
            int64_t it = atomic_load(&shm_ctl(&s->shm, s->slot_of[r])->iter);
            done = it > done ? it : done;
        }
    int verdict = recover_tally(s->fl, f->rank, f->iter, done);
    if (verdict == REC_GIVE_UP_FUTILE) {
        char why[200];
        snprintf(why, sizeof why, "recovery: rank %d failed at iteration %lld, the %dth failure in a row with no iteration "
                 "completed since the ranks were restored at %lld: the run gives up", f->rank, (long long)f->iter,
                 s->fl->futile + 1, (long long)s->fl->restored_from);
        recover_end(s, SUP_STOP_RECOVERY_FUTILE, why);
        return -1;
    }
    if (verdict == REC_GIVE_UP_REPEAT) {
        char why[240];
        snprintf(why, sizeof why, "recovery: rank %d failed %d times in a row, never past iteration %lld (each time "
                 "restored to an earlier one): the failure repeats, the run gives up", f->rank, s->fl->repeats,
                 (long long)s->fl->repeat_iter);
        recover_end(s, SUP_STOP_RECOVERY_FUTILE, why);
        return -1;
    }
    if (rec->drops_failed && s->nodes < 2 && f->rank >= 0 && atomic_load(&s->shm.hdr->nactive) <= 1) {
        char why[128];
        snprintf(why, sizeof why, "shrink: rank %d failed and was the last one left", f->rank);
        recover_end(s, SUP_STOP_SHRINK_EXHAUSTED, why);
        return -1;
    }
    if (s->fl->coord->request(s, f))
        recover_enter(s, f);
    return s->stopping ? -1 : 0;
}

void recover_enter(struct sup *s, const struct rec_failure *f)
{
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    uint64_t t0 = mono_ns();
    s->recovering = 1;
    s->fl->recoveries++;
    uint32_t epoch = faultlog_new_epoch(s, f->iter);   /* from here on, reports of the old timeline are dropped */
    int streak = s->fl->futile > s->fl->repeats - 1 ? s->fl->futile : s->fl->repeats - 1;
    s->fl->rm = (struct rec_machine){ .state = RM_STOPPING, .t0 = t0, .fail = *f, .epoch = epoch,
                                  .deadline = t0 + (uint64_t)((s->sc->heartbeat.timeout_s + 5) * 1e9),
                                  .backoff_ns = recover_backoff_ns(streak) };
    json_t *o = json_pack("{s:s, s:i, s:I, s:o, s:i, s:f}", "recovery", rec->name, "rank", f->rank, "iter",
                          (json_int_t)f->iter, "fault", f->fault >= 0 ? json_integer(f->fault) : json_null(), "epoch",
                          (int)epoch, "backoff_s", (double)s->fl->rm.backoff_ns * 1e-9);
    if (s->nodes > 1)
        json_object_set_new(o, "across_nodes", json_true());
    results_event(&s->res, t0, "recovery_begin", o);
    shm_abort(&s->shm);   /* every rank stops its iteration; nobody waits on the failed one */
    if (f->rank >= 0 && (f->kill || rec->drops_failed))
        s->fl->host->kill(s, s->slot_of[f->rank]);
    for (int k = 0; k < s->nslots && rec->restarts_all; k++)
        s->fl->host->kill(s, k);
}

/* Every worker here has stopped: drops what shrink drops (the failed rank, and any whose process is gone) and
 * says where this node can start again, with how many of its ranks go on. */
static struct rec_proposal recover_propose(struct sup *s)
{
    const struct rec_failure *f = &s->fl->rm.fail;
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    if (rec->drops_failed)
        for (int r = 0; r < s->nranks; r++)
            if (!s->dropped[r] && (r == f->rank || !s->alive[s->slot_of[r]])) {
                if (f->fault >= 0)   /* what no detector saw on it leaves with it, the failed rank's too */
                    faultlog_left_with_rank(s, r, f->fault);
                recover_shrink(s, r);
            }
    struct rec_proposal p = { .start = INT64_MAX, .active = (int)atomic_load(&s->shm.hdr->nactive) };
    if (rec->restarts_all)   /* a checkpoint from before the corruption may have entered (a checkpoint of iteration
                              * k holds what iterations before k did) */
        p.start = recover_checkpoint_iter(s, f->iter - f->lag);
    else if (p.active > 0) {
        /* the newest whole replica of any rank whose data can be trusted (all ranks hold the same state): the
         * failed rank's own too, unless silent corruption was found in it; a replica outlives its process. From
         * before the corruption may have entered, as restart's checkpoint (a finding lags it by up to its window:
         * the all-reduce had handed it to every rank's replica of the iterations between, "recovered" to a wrong
         * state) */
        p.start = -1;
        for (int r = 0; r < s->nranks; r++)
            if (!s->dropped[r] && !(r == f->rank && f->sdc)) {
                int64_t it = replica_iter(s, r, f->iter - f->lag, -1);
                p.start = it > p.start ? it : p.start;
            }
    }
    return p;
}

_Static_assert(REPLICA_SLOTS == RECOVERY_REPLICA_SLOTS, "the scenario's checks size the replica ring as the shm holds it");

/* Replaces a rank whose process is gone: a spare takes it over (started and initialised ahead of time), else a new
 * process. 0, or -1 with why. */
static int recover_replace(struct sup *s, int r, int spares, char *why, size_t n)
{
    int spare = -1;
    for (int q = s->nranks; q < s->nslots && spares; q++)
        if (s->alive[q] && s->ready[q] && atomic_load(&shm_ctl(&s->shm, q)->rank) < 0)
            spare = q;
    if (spare < 0)
        return s->fl->host->spawn(s, s->slot_of[r]) != 0 ? snprintf(why, n, "recovery: cannot start rank %d again", r), -1 : 0;
    struct wcmd adopt = { .type = CMD_ADOPT, .arg = r };
    atomic_store(&shm_ctl(&s->shm, spare)->rank, r);
    s->fl->host->send(s, spare, &adopt);
    s->slot_of[r] = spare;
    results_event(&s->res, mono_ns(), "spare_adopted", json_pack("{s:i, s:i}", "rank", r, "slot", spare));
    return 0;
}

/* The fault's record, before any rank is told: the ranks' restores and first iterations may come back at once. */
static void recover_record(struct sup *s, const struct wcmd *cmd)
{
    const struct rec_machine *m = &s->fl->rm;
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    int prev = s->fl->awaiting_fault;   /* a recovery whose first good iteration has not come: this one follows it */
    if (prev >= 0 && prev != m->fail.fault && s->fl->n_superseded < SUP_MAX_PENDING)
        s->fl->superseded[s->fl->n_superseded++] = prev;
    s->fl->awaiting_fault = m->fail.fault >= 0 ? m->fail.fault : -2;
    s->fl->restore_fault = m->fail.fault;
    s->fl->awaiting_iter = cmd->start_iter;
    if (m->fail.fault < 0)
        return;
    struct fault_rec *f = &s->fl->faults[m->fail.fault];
    const char *across = s->nodes > 1 ? " across nodes" : "";
    f->recovery = 1;
    f->restore_iter = cmd->start_iter;
    f->lost = m->fail.iter > cmd->start_iter ? m->fail.iter - cmd->start_iter : 0;
    f->redone = m->progress > cmd->start_iter ? m->progress - cmd->start_iter : 0;
    if (f->redone < f->lost)   /* what lies behind the failure is done again whatever the counts say */
        f->redone = f->lost;
    if (rec->drops_failed)
        snprintf(f->outcome, sizeof f->outcome, "shrunk to %d ranks%s from iteration %lld", m->world,
                 s->nodes > 1 ? " over every node" : "", (long long)cmd->start_iter);
    else
        snprintf(f->outcome, sizeof f->outcome, "recovered by %s%s from iteration %lld", rec->name, across,
                 (long long)cmd->start_iter);
    if (cmd->restore == RESTORE_NONE)
        str_copy(f->restore_from, sizeof f->restore_from, "no whole checkpoint yet: from the start");
    if (m->active == 0) {   /* shrink took this whole node out: the run goes on elsewhere from now */
        uint64_t now = mono_ns();
        for (int i = 0; i < s->fl->n_superseded; i++)
            faultlog_recovered(s, s->fl->superseded[i], now, "this node left the run; the others went on");
        s->fl->n_superseded = 0;
        faultlog_recovered(s, m->fail.fault, now, "this node left the run; the others went on");
        /* the faults that joined it take its figures of work (awaiting_fault still names it: until 2026-12-01 it was
         * cleared first, and theirs were null) */
        faultlog_joined_recovered(s, now, "this node left the run; the others went on");
        s->fl->awaiting_fault = -1;
    }
}

/* The start point agreed: takes every node's view, replaces what failed here (every rank whose process is gone,
 * whatever failed meanwhile) and tells every rank to run on from there. 0, or -1 with why. */
static int recover_restart(struct sup *s, const struct rec_agreement *a, char *why, size_t n)
{
    struct rec_machine *m = &s->fl->rm;
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    const char *where = s->nodes > 1 ? " across nodes" : "";
    if (a->start == INT64_MAX)
        return snprintf(why, n, "recovery %s%s: no rank is left", rec->name, where), -1;
    if (a->start < 0)
        return snprintf(why, n, "recovery %s%s: no replica of a healthy rank to roll back to", rec->name, where), -1;
    m->world = a->world;
    atomic_store(&s->shm.hdr->xn.world_active, (uint32_t)a->world);
    atomic_store(&s->shm.hdr->xn.active_before, (uint32_t)a->before);
    for (int k = 0; k < s->nodes && k < SHM_MAX_NODES; k++)
        s->shm.hdr->xn.live[k] = a->live[k];
    struct wcmd cmd = { .type = CMD_RUN, .run = s->run, .iterations = s->sc->iterations, .start_iter = a->start,
                        .epoch = m->epoch };
    shm_reset_collective(&s->shm);
    if (rec->restarts_all) {   /* every process anew, from the checkpoint (a new communicator id: agreed) */
        cmd.restore = a->start > 0 ? RESTORE_CHECKPOINT : RESTORE_NONE;
        for (int r = 0; r < s->nranks; r++)
            if (!s->dropped[r] && s->fl->host->spawn(s, s->slot_of[r]) != 0)
                return snprintf(why, n, "recovery: cannot start rank %d again", r), -1;
    } else if (m->active > 0) {
        int src = -1;   /* a healthy rank here whose replica of the start point is whole */
        for (int r = 0; r < s->nranks && src < 0; r++)
            if (!s->dropped[r] && !(r == m->fail.rank && m->fail.sdc) && replica_iter(s, r, a->start, a->start) == a->start)
                src = r;
        if (src < 0)
            return snprintf(why, n, "recovery %s: node %d holds no replica of iteration %lld (replicas are kept every "
                                    "replicate_every iterations, %d deep)", rec->name, s->node, (long long)a->start,
                            REPLICA_SLOTS), -1;
        cmd.restore = RESTORE_REPLICA;
        cmd.arg = src;
        for (int r = 0; r < s->nranks && !rec->drops_failed; r++)   /* replace the dead */
            if (!s->dropped[r] && !s->alive[s->slot_of[r]] && recover_replace(s, r, rec->spares, why, n) != 0)
                return -1;
        cmd.reconnect = s->ops->reconnect != NULL;   /* every rank joins the new communicator at once */
    }
    recover_record(s, &cmd);
    sup_checked_reset(s, a->start);   /* the new timeline is checked from its start */
    faultlog_rollback(s, m->fail.fault, a->start);   /* faults the old timeline ran into after the failure fire again */
    recover_forget_after(s, a->start);   /* its replicas and checkpoints past the restore point are gone too */
    atomic_fetch_add(&s->shm.hdr->xn.epoch, 1);   /* the restarted collectives are new ones, on every node */
    /* every rank gets its command now, a replacement still starting too (it reads it once ready) */
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r])
            s->fl->host->send(s, s->slot_of[r], &cmd);
    faultlog_resend(s);   /* after the command: a worker forgets what it was sent when it begins a timeline */
    m->from_iter = a->start;
    m->restore = (int)cmd.restore;
    return 0;
}

/* The starting state, one check: once every replacement is ready, recovery_end and done; past its deadline the run
 * fails. */
static void recover_starting(struct sup *s, uint64_t now)
{
    struct rec_machine *m = &s->fl->rm;
    for (int r = 0; r < s->nranks; r++) {   /* a replacement that died before it was ready: it cannot start (one that
                                              * said ready and then died, a fault the new timeline ran into at its
                                              * first iteration, is a new failure: the detectors take it) */
        int k = s->slot_of[r];
        if (!s->dropped[r] && !s->alive[k] && !s->ready[k] && s->spawn_ns[k] > m->t0 && s->ready_of[k] != s->spawn_ns[k]) {
            char why[200];
            snprintf(why, sizeof why, "recovery: rank %d's replacement died before it was ready (it cannot start here: "
                     "its exit is logged above)", r);
            recover_end(s, SUP_STOP_RECOVERY_FAILED, why);
            return;
        }
    }
    int waiting = 0;   /* the replacements start and read their command */
    for (int k = 0; k < s->nslots; k++)
        waiting += s->alive[k] && !s->ready[k];
    if (waiting) {
        if (now > m->deadline)
            recover_end(s, SUP_STOP_RECOVERY_FAILED, "recovery: the replacement workers did not start");
        return;
    }
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    json_t *o = json_pack("{s:s, s:I, s:s, s:f}", "recovery", rec->name, "from_iter", (json_int_t)m->from_iter, "from",
                          m->restore == RESTORE_CHECKPOINT ? "checkpoint" : m->restore == RESTORE_REPLICA ? "replica"
                                                                                                        : "start",
                          "took_s", (double)(now - m->t0) * 1e-9);
    if (s->nodes > 1) {
        json_object_set_new(o, "across_nodes", json_true());
        json_object_set_new(o, "ranks_left", json_integer(m->world));
    }
    results_event(&s->res, now, "recovery_end", o);
    s->fl->restored = 1;
    s->fl->restored_from = m->from_iter;
    recover_end(s, NULL, NULL);
}

/* The longest a recovery may take: every state's own limit in a row (stopping: the heartbeat timeout and a killed
 * worker's ending; agreeing; the longest back-off; starting), and a margin. Each state's deadline ends it sooner; this
 * is the backstop should one not. */
static double recover_limit_s(const struct sup *s)
{
    const struct scenario *sc = s->sc;
    return (sc->heartbeat.timeout_s + 5) + SUP_EXIT_WAIT_S + (sc->heartbeat.timeout_s + 30) +
           (double)REC_BACKOFF_MAX_NS * 1e-9 + sc->heartbeat.startup_s + 60;
}

void recover_step(struct sup *s)
{
    struct rec_machine *m = &s->fl->rm;
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    if (m->state == RM_IDLE)
        return;
    if (s->stopping || s->failed) {   /* the run ends: nothing to carry on */
        m->state = RM_IDLE;
        s->recovering = 0;
        return;
    }
    uint64_t now = mono_ns();
    char why[320] = "";
    double limit_s = recover_limit_s(s);
    if ((double)(now - m->t0) * 1e-9 > limit_s) {   /* the backstop: no state waits without a limit */
        static const char *const names[] = { "idle", "stopping", "agreeing", "backing off", "starting" };
        snprintf(why, sizeof why, "recovery: still %s %.0f s after it began, past the sum of every state's limit "
                 "(%.0f s)", names[m->state], (double)(now - m->t0) * 1e-9, limit_s);
        recover_end(s, SUP_STOP_RECOVERY_FAILED, why);
        return;
    }
    if (m->state == RM_STOPPING) {
        if (s->fl->host->busy(s, now)) {
            if (now > m->deadline && !s->fl->host->ending(s, now)) {   /* one exiting still will end: waited for */
                char busy[240];
                s->fl->host->busy_why(s, now, busy, sizeof busy);
                snprintf(why, sizeof why, "recovery: the ranks did not stop: %s", busy);
                recover_end(s, SUP_STOP_RECOVERY_FAILED, why);
            }
            return;
        }
        m->progress = -1;   /* every rank here has stopped: the furthest any had got (a dead one's count is its last;
                             * the ranks are within an iteration of each other, and one stopped between a collective
                             * and counting its iteration done is one short) */
        for (int r = 0; r < s->nranks; r++)
            if (!s->dropped[r]) {
                int64_t it = atomic_load(&shm_ctl(&s->shm, s->slot_of[r])->iter);
                m->progress = it > m->progress ? it : m->progress;
            }
        m->mine = recover_propose(s);
        m->active = m->mine.active;
        s->fl->coord->propose(s, &m->mine);
        m->state = RM_AGREEING;
        m->deadline = now + (uint64_t)((s->sc->heartbeat.timeout_s + 30) * 1e9);
    }
    if (m->state == RM_AGREEING) {
        now = mono_ns();   /* each state at its own time: a proposal, a restart's checks take theirs (one stamp for
                            * all once put recovery_end before the rank_dropped it follows, and cut the deadlines) */
        struct rec_agreement a;
        int r = s->fl->coord->agreed(s, &a, why, sizeof why);
        if (r < 0 || (r == 0 && now > m->deadline))
            recover_end(s, SUP_STOP_RECOVERY_FAILED, why[0] ? why : "recovery: no agreement on where to start again");
        if (r <= 0 || s->stopping)
            return;
        m->agreed = a;
        m->state = RM_BACKOFF;
        m->deadline = now + m->backoff_ns;
    }
    if (m->state == RM_BACKOFF) {
        now = mono_ns();
        if (now < m->deadline)
            return;
        struct rec_agreement a = m->agreed;
        if (recover_restart(s, &a, why, sizeof why) != 0) {
            recover_end(s, a.start == INT64_MAX && rec->drops_failed ? SUP_STOP_SHRINK_EXHAUSTED : SUP_STOP_RECOVERY_FAILED,
                        why);
            return;
        }
        m->state = RM_STARTING;
        m->deadline = mono_ns() + (uint64_t)(s->sc->heartbeat.startup_s * 1e9);   /* from the restart done */
        /* on to the next state now: a node shrink took whole has nothing to wait for, and its run may end here */
    }
    recover_starting(s, mono_ns());
}

/* ---- one node: its proposal is the agreement */
static int local_request(struct sup *s, const struct rec_failure *f)
{
    (void)s;
    (void)f;
    return 1;
}

static void local_propose(struct sup *s, const struct rec_proposal *p)
{
    (void)s;
    (void)p;   /* the machine keeps it (rm.mine) */
}

static int local_agreed(struct sup *s, struct rec_agreement *a, char *why, size_t n)
{
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    memset(a, 0, sizeof *a);
    a->start = s->fl->rm.mine.start;
    a->world = s->fl->rm.mine.active;
    a->live[0] = s->fl->rm.mine.active > 0;
    if ((rec->restarts_all || s->ops->reconnect) && s->ops->prepare &&
        a->start >= 0 && a->start != INT64_MAX && s->ops->prepare(&s->shm, why, n) != 0)   /* a new NCCL id */
        return -1;
    return 1;
}

const struct rec_coord rec_coord_local = { local_request, local_propose, local_agreed, NULL };
