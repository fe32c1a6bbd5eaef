/* harness/supervisor/boundary.c: the iteration boundaries every rank of this node shares (shm.h): a pause before an
 * iteration, a stop (skip to the next mitigation) before one. The view's commands (run/viewcmd.c) and, on several
 * nodes, the boundary the nodes agreed (cluster/supcluster.c) set them. */
#include <stdint.h>

#include "sup.h"
#include "util.h"

int64_t sup_pending_top(struct sup *s, _Atomic int64_t *at)
{
    atomic_store(at, SHM_BOUNDARY_PENDING);   /* before the ranks are read (shm.h) */
    int64_t top = 0;
    for (int r = 0; r < s->nranks; r++)
        if (!s->dropped[r]) {
            int64_t it = atomic_load(&shm_ctl(&s->shm, s->slot_of[r])->iter);
            top = it > top ? it : top;
        }
    return top;
}

void sup_set_pause(struct sup *s, int64_t at)
{
    atomic_store(&s->shm.hdr->pause_at, at);
    s->paused = at != INT64_MAX;
    if (s->paused && s->running)
        s->disturbed |= SUP_DISTURBED_PAUSED;
    results_event(&s->res, mono_ns(), s->paused ? "paused" : "resumed",
                  s->paused ? json_pack("{s:I}", "before_iter", (json_int_t)at) : json_object());
}

void sup_set_skip(struct sup *s, int64_t at)
{
    if (!s->running) {   /* another node's skip after this node's run ended: nothing to stop, nothing pending */
        atomic_store(&s->shm.hdr->stop_at, INT64_MAX);
        return;
    }
    s->skipping = 1;
    s->disturbed |= SUP_DISTURBED_SKIPPED;
    for (int r = 0; r < s->nranks; r++)
        s->rs.rank[r].stopped = 0;
    atomic_store(&s->shm.hdr->stop_at, at);
    results_event(&s->res, mono_ns(), "run_skip", json_pack("{s:i, s:I}", "run", s->run, "before_iter", (json_int_t)at));
}
