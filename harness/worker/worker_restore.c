/* harness/worker/worker_restore.c: a rank's state loaded where a recovery starts it (worker_env.h): its own
 * checkpoint of the agreed iteration, or a peer's replica of it. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "checkpoint.h"
#include "recovery/recovery.h"
#include "util.h"
#include "worker.h"
#include "worker_env.h"

/* Loads the state a recovery starts from: rank's checkpoint, or a peer's replica of iteration start_iter. */
int worker_restore(struct worker_ctx *w, const struct wcmd *cmd)
{
    const struct scenario *sc = w->sc;
    uint64_t t0 = mono_ns();
    char note[64], why[256];
    if (!w->ops->restore) {
        snprintf(w->err, sizeof w->err, "the %s backend cannot restore a state", w->ops->name);
        return -1;
    }
    if (cmd->restore == RESTORE_CHECKPOINT) {
        size_t len = 0;
        uint64_t bytes = 0;
        void *buf = NULL;
        int64_t iter = -1;
        int ok = -1;
        str_copy(why, sizeof why, "no file holds it whole");
        w->ckpt_wait_t0 = t0;   /* alive while it reads, as long as a checkpoint write may take (until 2026-11-30
                                 * silent: a read past heartbeat.timeout was a hang of every rank, again and again);
                                 * an abort meanwhile (a new failure) is seen once it has read: a read cut short
                                 * would be this rank's failure */
        for (int gen = 0; gen < scenario_ckpt_gens(sc) && ok != 0; gen++) {
            int64_t it;
            if (checkpoint_peek(sc->workload.checkpoint.path, w->shm->hdr->ckpt_tag, w->rank, gen, &it) == 0 && it == cmd->start_iter)
                ok = checkpoint_read_beat(sc->workload.checkpoint.path, w->shm->hdr->ckpt_tag, w->rank, gen, &iter, &buf,
                                          &len, &bytes, why, sizeof why, worker_beat_bounded, w);
            if (ok == 0 && iter != cmd->start_iter) {   /* the file read whole is of another iteration than the peek
                                                          * saw (replaced between the two): not this restore's state */
                snprintf(why, sizeof why, "generation %d holds iteration %lld once read", gen, (long long)iter);
                free(buf);
                buf = NULL;
                ok = -1;
            }
        }
        if (ok == 0 && w->ops->restore(w->b, buf, len) != 0) {
            snprintf(why, sizeof why, "the backend refused a state of %zu bytes", len);
            ok = -1;
        }
        free(buf);
        if (ok != 0) {   /* the reader's own words: which file, and what is wrong with it */
            snprintf(w->err, sizeof w->err, "checkpoint of iteration %lld cannot be restored: %s", (long long)cmd->start_iter,
                     why);
            return -1;
        }
        snprintf(note, sizeof note, "checkpoint of iteration %lld", (long long)iter);
        worker_emit(w, WEV_RESTORED, PH_IDLE, mono_ns(), (double)bytes, (double)(mono_ns() - t0) * 1e-9, note);
        return 0;
    }
    for (int k = 0; k < REPLICA_SLOTS; k++) {
        struct replica *r = shm_replica(w->shm, cmd->arg, k);
        uint64_t seq = atomic_load_explicit(&r->seq, memory_order_acquire);
        size_t len = r->len;
        /* a length past the slot is no state (read as it is, the copy ran past the slot's end) */
        if ((seq & 1) || r->iter != cmd->start_iter || len > w->shm->hdr->replica_bytes)
            continue;
        void *buf = xmalloc(len ? len : 1);
        memcpy(buf, r + 1, len);
        atomic_thread_fence(memory_order_acquire);   /* the copy is done before seq is read again (a weak memory
                                                      * order, an Arm host's, may take the reads in any order) */
        int same = atomic_load_explicit(&r->seq, memory_order_relaxed) == seq && fnv1a64(buf, len) == r->hash;
        int rc = same ? w->ops->restore(w->b, buf, len) : -1;
        free(buf);
        if (rc == 0) {
            snprintf(note, sizeof note, "replica of rank %d, iteration %lld", cmd->arg, (long long)r->iter);
            worker_emit(w, WEV_RESTORED, PH_IDLE, mono_ns(), (double)len, (double)(mono_ns() - t0) * 1e-9, note);
            return 0;
        }
    }
    snprintf(w->err, sizeof w->err, "rank %d holds no replica of iteration %lld", cmd->arg, (long long)cmd->start_iter);
    return -1;
}

