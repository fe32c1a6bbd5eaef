/* harness/run/viewcmd.c: what the live view asks of the supervisor — quit, pause, skip, a fault by hand — carried
 * out through the same mechanisms as the run's own (the stop flag, iteration boundaries every rank shares, a
 * fault spec and CMD_INJECT). */
#include <stdint.h>
#include <stdio.h>

#include "faults/fault.h"
#include "param.h"
#include "plugin.h"
#include "run.h"
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
    else if (!fo || cmd->rank < 0 || cmd->rank >= s->nranks)
        snprintf(why, sizeof why, "no such fault or rank");
    else if (s->dropped[cmd->rank])
        snprintf(why, sizeof why, "rank %d was dropped from the run (shrink)", cmd->rank);
    else if (!s->running || s->recovering)
        snprintf(why, sizeof why, s->recovering ? "a recovery is in progress: ask again once it is over" : "no run in progress");
    else if (cmd->run >= 0 && cmd->run != s->run)   /* chosen in a run that ended before it came (the view checks too) */
        snprintf(why, sizeof why, "run %d ended before the fault reached it", cmd->run + 1);
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
            s->disturbed |= SUP_DISTURBED_FAULT;
            results_event(&s->res, mono_ns(), "fault_requested",
                          json_pack("{s:s, s:i, s:i, s:s, s:s}", "kind", fo->name, "rank", cmd->rank, "fault", spec,
                                    "target", cmd->target, "by", "view"));
            faultlog_send(s, spec, cmd->rank);
            return;
        }
    }
    results_event(&s->res, mono_ns(), "view_refused", json_pack("{s:s, s:s}", "command", "fault", "why", why));
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
            if (!s->stop)
                s->stop = SUP_STOP_VIEW;
            s->stopping = 1;
            shm_abort(&s->shm);
            supc_fail(s, "stopped from the live view");
        }
        break;
    case VIEW_PAUSE:
        if (s->stopping) {   /* the run is ending: a pause would hold it (and the view would read paused) */
            results_event(&s->res, now, "view_refused", json_pack("{s:s, s:s}", "command", "pause", "why",
                                                                 "the run is stopping"));
        } else if (s->ln->bnd_kind) {
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
    case VIEW_SKIP: {
        int other = cmd->run >= 0 && cmd->run != s->run;   /* asked in a run that ended before it came */
        if (!s->running || s->skipping || s->recovering || s->stopping || s->ln->bnd_kind || other) {
            char ended[64];
            snprintf(ended, sizeof ended, "run %d ended before the skip reached it", cmd->run + 1);
            results_event(&s->res, now, "view_refused",
                          json_pack("{s:s, s:s}", "command", "skip", "why",
                                    other ? ended
                                    : s->recovering ? "a recovery is in progress"
                                    : s->ln->bnd_kind ? "the nodes are still agreeing on the last command"
                                    : s->skipping ? "the run is already being skipped"
                                    : s->stopping ? "the run is stopping"
                                                  : "no run in progress"));
            break;
        }
        if (s->nodes > 1)
            supc_boundary(s, SUP_BND_SKIP);
        else if (s->paused)   /* every rank waits at (or runs up to) the pause: the run ends there, no rank must move
                               * first (a skip one past it waited for a resume that never came) */
            sup_set_skip(s, atomic_load(&s->shm.hdr->pause_at));
        else
            sup_set_skip(s, sup_pending_top(s, &s->shm.hdr->stop_at) + 1);
        break;
    }
    case VIEW_FAULT:
        sup_view_fault(s, cmd);
        break;
    default:
        break;
    }
}

/* Every wake of the core: the view's commands waiting. */
static void run_poll(struct sup *s)
{
    struct view_cmd vc;
    while (s->rn->view && s->rn->view->command(s->rn->view->ctx, &vc))
        sup_view_command(s, &vc);
}

const struct sup_hooks run_hooks = { .poll = run_poll };
