/* harness/recover.c: carrying out a recovery strategy after a failure (the strategies' tables are in
 * harness/recovery/). Every rank stops where it is (the abort flag); the failed process is replaced (or
 * every process, for restart, or none, for shrink); all roll back to a state known good — the last
 * checkpoint on storage, or a healthy peer's in-memory replica — and the run goes on from there. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "checkpoint.h"
#include "recovery/recovery.h"
#include "sup.h"
#include "util.h"

/* Returns how many workers have not yet stopped (every live one idle or ready, every one told to die gone); a
 * worker silent for longer than its heartbeat timeout while it is being stopped is hung (a second failure): it is
 * killed, to be replaced. */
static int recover_busy(struct sup *s, uint64_t now)
{
    int busy = 0;
    for (int k = 0; k < s->nslots; k++) {
        uint32_t st = atomic_load(&shm_ctl(&s->shm, k)->state);
        int stuck = s->alive[k] && !s->expect_exit[k] && st != WS_IDLE && st != WS_READY;
        uint64_t hb = atomic_load_explicit(&shm_ctl(&s->shm, k)->heartbeat_ns, memory_order_acquire);
        if (stuck && hb && now > hb && (double)(now - hb) * 1e-9 > s->sc->heartbeat.timeout_s) {
            results_event(&s->res, now, "hung_in_recovery",
                          json_pack("{s:i, s:i, s:f}", "rank", atomic_load(&shm_ctl(&s->shm, k)->rank), "slot", k,
                                    "silent_s", (double)(now - hb) * 1e-9));
            recover_kill(s, k);
        }
        busy += s->alive[k] && (s->expect_exit[k] || (st != WS_IDLE && st != WS_READY));
    }
    return busy;
}

int recover_stopped(struct sup *s, uint64_t now)
{
    if (!recover_busy(s, now))
        return 1;
    if (now > s->rm.deadline)
        recover_end(s, "recovery: the ranks did not stop");
    return 0;
}

/* Kills the worker of slot, expecting its exit. */
void recover_kill(struct sup *s, int slot)
{
    if (!s->alive[slot])
        return;
    s->expect_exit[slot] = 1;
    if (kill(s->pid[slot], SIGKILL) != 0 && errno != ESRCH)
        SYSERR("kill(worker)");
}

/* Returns the newest iteration <= limit for which every rank left holds a whole checkpoint, or 0. */
int64_t recover_checkpoint_iter(struct sup *s, int64_t limit)
{
    int64_t best = 0;
    for (int gen = 0; gen < 2; gen++) {
        int64_t it0;
        if (checkpoint_peek(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, 0, gen, &it0) != 0 || it0 > limit)
            continue;
        int all = 1;
        for (int r = 1; r < s->nranks && all; r++) {   /* the other generation may hold it on some rank */
            int64_t a = -1, b = -1;
            checkpoint_peek(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, r, 0, &a);
            checkpoint_peek(s->sc->workload.checkpoint.path, s->shm.hdr->ckpt_tag, r, 1, &b);
            all = s->dropped[r] || a == it0 || b == it0;
        }
        if (all && it0 > best)
            best = it0;
    }
    return best;
}

/* Returns the newest replica iteration <= limit that rank src holds whole, or -1. */
static int64_t recover_replica_iter(struct sup *s, int src, int64_t limit)
{
    int64_t best = -1;
    for (int k = 0; k < REPLICA_SLOTS; k++) {
        struct replica *r = shm_replica(&s->shm, src, k);
        uint64_t seq = atomic_load(&r->seq);
        if (seq && !(seq & 1) && r->iter <= limit && r->iter > best)
            best = r->iter;
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
        for (int gen = 0; gen < 2; gen++) {
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
    int n = 0;
    for (int r = 0; r < s->nranks && r < 256; r++)
        if (!s->dropped[r])
            s->shm.hdr->active[n++] = (int16_t)r;
    atomic_store(&s->shm.hdr->nactive, (uint32_t)n);
    results_event(&s->res, mono_ns(), "rank_dropped", json_pack("{s:i, s:i}", "rank", rank, "ranks_left", n));
}

void recover_end(struct sup *s, const char *failed)
{
    s->rm.state = RM_IDLE;
    s->recovering = 0;
    if (failed && !s->stopping)
        sup_fail(s, failed);
}

int recover_begin(struct sup *s, int fault, int rank, int64_t iter, int kill_rank, int sdc)
{
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    if (s->nodes > 1)   /* several nodes: every node restarts together (supcluster.c) */
        return supc_recover_request(s, fault, rank, iter, kill_rank, sdc);
    uint64_t t0 = mono_ns();
    s->recovering = 1;
    s->recoveries++;
    uint32_t epoch = faultlog_new_epoch(s, iter);   /* from here on, reports of the old timeline are dropped */
    s->rm = (struct rec_machine){ .state = RM_STOPPING, .t0 = t0,
                                  .deadline = t0 + (uint64_t)((s->sc->heartbeat.timeout_s + 5) * 1e9), .fault = fault,
                                  .rank = rank, .kill = kill_rank, .sdc = sdc, .iter = iter, .epoch = epoch };
    results_event(&s->res, t0, "recovery_begin",
                  json_pack("{s:s, s:i, s:I, s:o, s:i}", "recovery", rec->name, "rank", rank, "iter", (json_int_t)iter,
                            "fault", fault >= 0 ? json_integer(fault) : json_null(), "epoch", (int)epoch));
    shm_abort(&s->shm);   /* every rank stops its iteration; nobody waits on the failed one */
    int slot = rank >= 0 ? s->slot_of[rank] : -1;
    if (rec->mode == REC_SHRINK && rank >= 0 && atomic_load(&s->shm.hdr->nactive) <= 1) {
        char why[128];
        snprintf(why, sizeof why, "shrink: rank %d failed and was the last one left", rank);
        recover_end(s, why);
        return -1;
    }
    if (slot >= 0 && (kill_rank || rec->mode == REC_SHRINK))
        recover_kill(s, slot);
    if (rec->mode == REC_RESTART)
        for (int k = 0; k < s->nslots; k++)
            recover_kill(s, k);
    return 0;   /* recover_step carries on from the next turn of the loop */
}

/* Every rank has stopped: chooses the state to roll back to, replaces what failed (every rank whose process is gone,
 * whatever failed meanwhile) and tells every rank to run on from there. 0, or -1 with why. */
static int recover_restart(struct sup *s, char *why, size_t n)
{
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    struct rec_machine *m = &s->rm;
    /* the state to roll back to: known good, taken before the failure showed */
    struct wcmd cmd = { .type = CMD_RUN, .run = s->run, .iterations = s->sc->iterations, .epoch = m->epoch };
    int src = -1;
    if (rec->mode == REC_RESTART) {
        cmd.start_iter = recover_checkpoint_iter(s, m->iter);
        cmd.restore = cmd.start_iter > 0 ? RESTORE_CHECKPOINT : RESTORE_NONE;
    } else {
        /* the newest whole replica of any rank whose data can be trusted (all ranks hold the same state): the
         * failed rank's own too, unless silent corruption was found in it; a replica outlives its process */
        cmd.start_iter = -1;
        for (int r = 0; r < s->nranks; r++) {
            if (s->dropped[r] || (r == m->rank && m->sdc))
                continue;
            int64_t it = recover_replica_iter(s, r, m->iter);
            if (it > cmd.start_iter) {
                cmd.start_iter = it;
                src = r;
            }
        }
        cmd.restore = RESTORE_REPLICA;
        cmd.arg = src;
        if (cmd.start_iter < 0) {
            snprintf(why, n, "recovery %s: no replica of a healthy rank to roll back to", rec->name);
            return -1;
        }
    }
    shm_reset_collective(&s->shm);
    /* replace what failed */
    if (rec->mode == REC_RESTART) {
        if (s->ops->prepare && s->ops->prepare(&s->shm, why, n) != 0)   /* a new NCCL id */
            return -1;
        for (int k = 0; k < s->nranks; k++)
            if (!s->dropped[k] && sup_spawn(s, s->slot_of[k]) != 0)
                return snprintf(why, n, "recovery: cannot start rank %d again", k), -1;
    } else if (rec->mode == REC_SHRINK) {   /* the failed rank, and any that died meanwhile, leave the run */
        for (int r = 0; r < s->nranks; r++)
            if (!s->dropped[r] && (r == m->rank || !s->alive[s->slot_of[r]]))
                recover_shrink(s, r);
        if (atomic_load(&s->shm.hdr->nactive) == 0)
            return snprintf(why, n, "shrink: no rank left"), -1;
    } else {   /* every rank whose process is gone is replaced: the failed one, and any that died meanwhile */
        for (int r = 0; r < s->nranks; r++) {
            int k = s->slot_of[r];
            if (s->dropped[r] || s->alive[k])
                continue;
            int spare = -1;
            for (int q = s->nranks; q < s->nslots && rec->mode == REC_SPARE; q++)
                if (s->alive[q] && s->ready[q] && atomic_load(&shm_ctl(&s->shm, q)->rank) < 0)
                    spare = q;
            if (spare >= 0) {   /* started and initialised ahead of time: it only takes the rank over */
                struct wcmd adopt = { .type = CMD_ADOPT, .arg = r };
                atomic_store(&shm_ctl(&s->shm, spare)->rank, r);
                sup_send(s, spare, &adopt);
                s->slot_of[r] = spare;
                results_event(&s->res, mono_ns(), "spare_adopted", json_pack("{s:i, s:i}", "rank", r, "slot", spare));
            } else if (sup_spawn(s, k) != 0) {
                return snprintf(why, n, "recovery: cannot start rank %d again", r), -1;
            }
        }
    }
    /* every rank gets its command now, a replacement still starting too (it reads it once ready): on cuda
     * they must all join the new communicator at once */
    cmd.reconnect = rec->mode != REC_RESTART && s->ops->reconnect != NULL;
    if (cmd.reconnect && s->ops->prepare && s->ops->prepare(&s->shm, why, n) != 0)   /* a new NCCL id */
        return -1;
    /* the fault's record first: the ranks' restores and first iterations may come back at once */
    if (m->fault >= 0) {
        struct fault_rec *f = &s->faults[m->fault];
        f->recovery = 1;
        f->restore_iter = cmd.start_iter;
        f->lost = m->iter > cmd.start_iter ? m->iter - cmd.start_iter : 0;
        snprintf(f->outcome, sizeof f->outcome, "recovered by %s from iteration %lld", rec->name,
                 (long long)cmd.start_iter);
        if (rec->mode == REC_SHRINK)
            snprintf(f->outcome, sizeof f->outcome, "shrunk to %u ranks from iteration %lld",
                     atomic_load(&s->shm.hdr->nactive), (long long)cmd.start_iter);
        if (rec->mode == REC_RESTART && cmd.restore == RESTORE_NONE)
            str_copy(f->restore_from, sizeof f->restore_from, "no checkpoint yet: from the start");
    }
    faultlog_rollback(s, m->fault);   /* faults the old timeline ran into after the failure fire again */
    recover_forget_after(s, cmd.start_iter);   /* its replicas and checkpoints past the restore point are gone too */
    s->awaiting_fault = m->fault >= 0 ? m->fault : -2;
    s->awaiting_iter = cmd.start_iter;
    atomic_fetch_add(&s->shm.hdr->xn.epoch, 1);   /* the restarted collectives are new ones */
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r])
            sup_send(s, s->slot_of[r], &cmd);
    m->from_iter = cmd.start_iter;
    m->restore = (int)cmd.restore;
    return 0;
}

void recover_step(struct sup *s)
{
    struct rec_machine *m = &s->rm;
    if (m->state == RM_IDLE)
        return;
    if (s->stopping || s->failed) {   /* the run ends: nothing to carry on */
        m->state = RM_IDLE;
        s->recovering = 0;
        return;
    }
    if (m->across) {   /* every node's recovery, under node 0 */
        supc_recover_step(s);
        return;
    }
    uint64_t now = mono_ns();
    if (m->state == RM_STOPPING) {
        if (!recover_stopped(s, now))
            return;
        char why[256] = "";
        if (recover_restart(s, why, sizeof why) != 0) {
            recover_end(s, why[0] ? why : "recovery failed");
            return;
        }
        m->state = RM_STARTING;
        m->deadline = now + (uint64_t)(s->sc->heartbeat.startup_s * 1e9);
    }
    recover_starting(s, now);
}

void recover_starting(struct sup *s, uint64_t now)
{
    struct rec_machine *m = &s->rm;
    int waiting = 0;   /* the replacements start and read their command */
    for (int k = 0; k < s->nslots; k++)
        waiting += s->alive[k] && !s->ready[k];
    if (waiting) {
        if (now > m->deadline)
            recover_end(s, "recovery: the replacement workers did not start");
        return;
    }
    const struct recovery_ops *rec = recovery_table[s->sc->recovery.index];
    json_t *o = json_pack("{s:s, s:I, s:s, s:f}", "recovery", rec->name, "from_iter", (json_int_t)m->from_iter, "from",
                          m->restore == RESTORE_CHECKPOINT ? "checkpoint" : m->restore == RESTORE_REPLICA ? "replica"
                                                                                                        : "start",
                          "took_s", (double)(now - m->t0) * 1e-9);
    if (m->across) {
        json_object_set_new(o, "across_nodes", json_true());
        json_object_set_new(o, "ranks_left", json_integer(s->rec_world));
    }
    results_event(&s->res, now, "recovery_end", o);
    recover_end(s, NULL);
}
