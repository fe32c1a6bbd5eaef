/* harness/supervisor/supview.c: what the live view asks of the supervisor — quit, pause, skip, a fault by hand — carried
 * out through the same mechanisms as the run's own (the stop flag, iteration boundaries every rank shares, a
 * fault spec and CMD_INJECT). */
#include <stdint.h>
#include <stdio.h>

#include "faults/fault.h"
#include "param.h"
#include "plugin.h"
#include "sup.h"
#include "util.h"

/* The live view's `f`: a fault like a scheduled one (a spec added to the scenario the workers read, then
 * the same CMD_INJECT), so it is recorded, detected and recovered the same way. */
static void sup_view_fault(struct sup *s, const struct view_cmd *cmd)
{
    struct scenario *sc = &s->shm.hdr->sc;
    const struct fault_ops *fo = cmd->kind >= 0 && cmd->kind < plugin_count(&plugin_faults) ? fault_table[cmd->kind] : NULL;
    char why[256] = "";
    if (fo && s->nodes > 1 && cmd->rank >= s->nranks && cmd->rank < s->nodes * s->nranks)
        snprintf(why, sizeof why, "rank %d is on node %d: faults from the view reach node 0's ranks only", cmd->rank,
                 cmd->rank / s->nranks);
    else if (!fo || cmd->rank < 0 || cmd->rank >= s->nranks || s->dropped[cmd->rank])
        snprintf(why, sizeof why, "no such fault or rank");
    else if (!s->running || s->recovering)
        snprintf(why, sizeof why, "no run in progress");
    else if (sc->n_faults >= SC_MAX_FAULTS)
        snprintf(why, sizeof why, "the scenario already holds %d faults", SC_MAX_FAULTS);
    if (!why[0]) {
        struct fault_spec f = { .kind = cmd->kind, .rank = cmd->rank, .at = -1, .at_s = -1 };
        if (fo->params && param_defaults(fo->params, f.params) != 0)
            snprintf(why, sizeof why, "the fault's defaults do not parse");
        const struct param *tp = fo->params ? param_find(fo->params, "target") : NULL;
        int bad = !why[0] && cmd->target[0] && tp && param_parse(tp, cmd->target, f.params, why, sizeof why) != 0;
        if (!why[0] && !bad) {
            sc->faults[sc->n_faults] = f;   /* written before the command that names it is pushed (release) */
            int spec = sc->n_faults++;
            results_event(&s->res, mono_ns(), "fault_requested",
                          json_pack("{s:s, s:i, s:i, s:s, s:s}", "kind", fo->name, "rank", cmd->rank, "fault", spec,
                                    "target", cmd->target, "by", "view"));
            struct wcmd w = { .type = CMD_INJECT, .arg = spec };
            sup_send(s, s->slot_of[cmd->rank], &w);
            return;
        }
    }
    results_event(&s->res, mono_ns(), "view_refused", json_pack("{s:s, s:s}", "command", "fault", "why", why));
}

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
    for (int r = 0; r < s->nranks; r++)
        s->rs.rank[r].stopped = 0;
    atomic_store(&s->shm.hdr->stop_at, at);
    results_event(&s->res, mono_ns(), "run_skip", json_pack("{s:i, s:I}", "run", s->run, "before_iter", (json_int_t)at));
}

void sup_view_command(struct sup *s, const struct view_cmd *cmd)
{
    uint64_t now = mono_ns();
    switch (cmd->type) {
    case VIEW_QUIT:
        results_event(&s->res, now, "interrupted", json_pack("{s:s, s:i}", "signal", "quit from the live view", "count", 1));
        if (!s->stopping) {
            if (!s->reason[0])
                str_copy(s->reason, sizeof s->reason, "stopped from the live view: stopping the workers, writing the summary");
            s->stopping = 1;
            shm_abort(&s->shm);
            supc_fail(s, "stopped from the live view");
        }
        break;
    case VIEW_PAUSE:
        if (s->bnd_kind) {
            results_event(&s->res, now, "view_refused", json_pack("{s:s, s:s}", "command", "pause", "why",
                                                                 "the nodes are still agreeing on the last command"));
        } else if (s->paused) {
            if (s->nodes > 1)
                supc_boundary(s, SUP_BND_RESUME);
            else
                sup_set_pause(s, INT64_MAX);
        } else if (s->nodes > 1) {
            supc_boundary(s, SUP_BND_PAUSE);
        } else {
            sup_set_pause(s, sup_pending_top(s, &s->shm.hdr->pause_at) + 1);
        }
        break;
    case VIEW_SKIP:
        if (!s->running || s->skipping || s->recovering || s->stopping || s->bnd_kind) {
            results_event(&s->res, now, "view_refused",
                          json_pack("{s:s, s:s}", "command", "skip", "why",
                                    s->recovering ? "a recovery is in progress"
                                    : s->bnd_kind ? "the nodes are still agreeing on the last command"
                                                  : "no run in progress"));
            break;
        }
        if (s->nodes > 1)
            supc_boundary(s, SUP_BND_SKIP);
        else
            sup_set_skip(s, sup_pending_top(s, &s->shm.hdr->stop_at) + 1);
        break;
    case VIEW_FAULT:
        sup_view_fault(s, cmd);
        break;
    default:
        break;
    }
}
