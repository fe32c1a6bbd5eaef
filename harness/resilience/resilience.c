/* harness/resilience/resilience.c: resilience/ plugged into the supervisor's core (resilience.h): its state made and
 * freed, and its hooks — the worker reports it records (faults carried out, detectors' findings, fingerprints,
 * compute phases, iterations, restores), the failures the core saw, the timed faults, and acting on what was found
 * (the failure queue, then one step of the recovery machine). */
#include <math.h>
#include <stdlib.h>

#include "detectors/detector.h"
#include "faults/fault.h"
#include "resilience.h"
#include "util.h"

/* a rank's fingerprint of iteration i (an asynchronous one comes an iteration later) is in its row before any rank
 * can report one of i + FP_WINDOW: the ranks wait RUNAHEAD_MAX past the checks (shm.h) */
_Static_assert(FP_WINDOW > RUNAHEAD_MAX + 1, "fingerprint rows would be overwritten before they are compared");

void resilience_new(struct sup *s, int world)
{
    struct resilience *fl = xcalloc(1, sizeof *fl);
    s->fl = fl;
    fl->host = &sup_host;
    fl->coord = &rec_coord_local;
    fl->awaiting_fault = -1;
    rng_seed(&fl->fault_rng, (uint64_t)s->sc->seed, 0xfa17);
    fl->rate_rng = xcalloc(SC_MAX_FAULTS + 1, sizeof *fl->rate_rng);
    for (int i = 0; i <= SC_MAX_FAULTS; i++)
        rng_seed(&fl->rate_rng[i], (uint64_t)s->sc->seed, 0xfa170000ull + (uint64_t)i);
    for (int i = 0; i < s->sc->n_faults; i++)   /* a random rank is drawn once, from the seed: the same every run */
        if (s->shm.hdr->sc.faults[i].rank < 0)
            s->shm.hdr->sc.faults[i].rank = (int64_t)(rng_next(&fl->fault_rng) % (uint64_t)world);
    fl->fault_due = xcalloc(SC_MAX_FAULTS + 1, sizeof *fl->fault_due);   /* the view may add faults */
    fl->fp_iter = xmalloc(FP_WINDOW * sizeof *fl->fp_iter);
    fl->fp = xcalloc((size_t)FP_WINDOW * (size_t)s->nranks, sizeof *fl->fp);
    fl->fp_have = xcalloc((size_t)FP_WINDOW * (size_t)s->nranks, 1);
    fl->compute_s = xcalloc((size_t)s->nranks, sizeof *fl->compute_s);
    fl->compute_iter = xcalloc((size_t)s->nranks, sizeof *fl->compute_iter);
    fl->compute_sum = xcalloc((size_t)s->nranks, sizeof *fl->compute_sum);
    fl->slow_count = xcalloc((size_t)s->nranks, sizeof *fl->slow_count);
    fl->gone_ns = xcalloc((size_t)s->nranks, sizeof *fl->gone_ns);
    recover_run_reset(fl);
}

void resilience_free(struct sup *s)
{
    struct resilience *fl = s->fl;
    if (!fl)
        return;
    void *bufs[] = { fl->rate_rng, fl->fault_due, fl->fp_iter, fl->fp,     fl->fp_have,
                     fl->compute_s, fl->compute_iter, fl->slow_count, fl->faults, fl->dets, fl->compute_sum,
                     fl->gone_ns };
    for (size_t i = 0; i < ARRAY_LEN(bufs); i++)
        free(bufs[i]);
    free(fl);
    s->fl = NULL;
}

static int res_stale(struct sup *s, const struct wevent *ev) { return !faultlog_current(s, ev); }

/* A fault carried out: its record (fault_injected) with the id of the ledger's entry and the fault in full. */
static void res_fault(struct sup *s, const struct wevent *ev)
{
    struct fault_detail d = { .target = ev->target, .where = ev->where, .format = ev->format, .element = ev->elem,
                              .mask = ev->mask, .old_v = ev->c, .new_v = ev->d, .scale = ev->scale };
    json_t *o = json_pack("{s:s, s:i, s:i, s:I, s:s, s:b}", "kind", fault_table[s->sc->faults[ev->phase].kind]->name,
                          "rank", ev->rank, "fault_spec", ev->phase, "iter", (json_int_t)ev->iter, "what", ev->note,
                          "done", ev->b >= 0);
    if (ev->b >= 0 && s->running) {
        json_object_set_new(o, "id", json_integer(s->fl->n_faults));   /* the record faultlog_injected adds */
        faultlog_injected(s, ev);
    }
    faultlog_detail(o, &d);
    if (fault_detail_ineffective(&d))   /* the element kept every bit: as the record says (faultlog_injected) */
        json_object_set_new(o, "ineffective", json_true());
    results_event(&s->res, ev->t_ns, "fault_injected", o);
}

static void res_report(struct sup *s, int slot, const struct wevent *ev, json_t *o)
{
    (void)slot, (void)o;
    int rank = ev->rank;
    switch (ev->type) {
    case WEV_PHASE_END:
        if (ev->phase == PH_COMPUTE && s->running && ev->run == s->run && rank >= 0 && rank < s->nranks &&
            s->rs.rank[rank].open_t[PH_COMPUTE]) {
            double d = (double)(ev->t_ns - s->rs.rank[rank].open_t[PH_COMPUTE]) * 1e-9;
            if (scenario_stepped(s->sc))   /* phases, replay: the iteration's GEMM steps are judged together, at its end */
                s->fl->compute_sum[rank] += d;
            else
                faultlog_compute(s, ev, d);
        }
        break;
    case WEV_ITER:
        if (s->running && ev->run == s->run && rank >= 0 && rank < s->nranks && scenario_stepped(s->sc)) {
            if (s->fl->compute_sum[rank] > 0)
                faultlog_compute(s, ev, s->fl->compute_sum[rank]);
            s->fl->compute_sum[rank] = 0;
        }
        if (s->running)
            faultlog_iteration(s, ev);
        break;
    case WEV_FAULT:
        res_fault(s, ev);
        break;
    case WEV_DETECT:
        results_event(&s->res, ev->t_ns, "detector_fired",
                      json_pack("{s:s, s:i, s:I, s:o, s:o, s:s}", "detector", detector_table[ev->phase]->name, "rank",
                                rank, "iter", (json_int_t)ev->iter, "measure", json_num(ev->a), "limit",
                                json_num(ev->b), "note", ev->note));
        if (s->running && ev->run == s->run)
            faultlog_detect(s, ev->phase, rank, ev->iter, ev->t_ns, ev->note, 1);
        break;
    case WEV_FPRINT:
        if (s->running)
            faultlog_fingerprint(s, ev);
        break;
    case WEV_RESTORED:
        faultlog_restored(s, ev);
        break;
    case WEV_DETCOST:
        if (ev->phase >= 0 && ev->phase < DET_COUNT) {
            double covered = isfinite(ev->c) && ev->c > 0 ? ev->c : 0;
            s->fl->detcost[ev->phase] += ev->a;
            s->fl->detcost_iters[ev->phase] += covered;
            if (s->running && ev->run == s->run && rank >= 0 && rank < s->nranks && isfinite(ev->d) && ev->d > 0)
                s->rs.rank[rank].sdc_checks[ev->phase] += (int64_t)ev->d;
            if (isfinite(ev->b) && ev->b >= 0) {
                s->fl->detdev[ev->phase] += ev->b;
                s->fl->detdev_ranks[ev->phase]++;
                s->fl->detdev_iters[ev->phase] += covered;
            }
        }
        break;
    default:
        break;
    }
}

static void res_failure(struct sup *s, int det, int rank, int64_t iter, uint64_t t_ns, const char *note, int fatal)
{
    faultlog_detect(s, det, rank, iter, t_ns, note, fatal);
}

/* The run's timers, each turn while it goes on and no recovery is under way: the timed faults, and the backstop for a
 * rank whose process is gone with nothing to take it. */
static void res_tick(struct sup *s, uint64_t now)
{
    faultlog_timers(s, now);
    faultlog_gone(s, now);
}

static void res_act(struct sup *s)
{
    faultlog_act(s);   /* every ring drained: the failures detected meanwhile, in iteration order */
    recover_step(s);   /* the recovery under way, one step: it never waits here */
}

const struct sup_hooks resilience_hooks = {
    .stale = res_stale,
    .report = res_report,
    .failure = res_failure,
    .tick = res_tick,
    .act = res_act,
};
