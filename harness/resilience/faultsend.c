/* harness/resilience/faultsend.c: the faults the supervisor sends a worker (CMD_INJECT) rather than the worker's own
 * schedule: the timed ones (at_s, rate_per_hour) when they come due, the view's, and each sent again when a recovery
 * begins a new timeline before it was carried out, or said never injected when the run ends first. */
#include <math.h>
#include <stdint.h>

#include "faults/fault.h"
#include "resilience.h"
#include "util.h"

/* No run lasts this long: a fault due later is not in this run (FAULT_NEVER). */
#define FAULT_HORIZON_S (100.0 * 365.25 * 86400.0)

uint64_t faultlog_due(uint64_t from, double gap_s)
{
    if (!(gap_s >= 0) || !(gap_s < FAULT_HORIZON_S))   /* NaN, negative, infinite, or past any run: never */
        return FAULT_NEVER;
    double ns = gap_s * 1e9;   /* < 3.2e18: fits a uint64_t, and converts exactly enough */
    uint64_t gap = (uint64_t)ns;
    if (from >= FAULT_NEVER - gap)   /* the sum would wrap (or land on the sentinel) */
        return FAULT_NEVER;
    return from + gap;
}

double faultlog_rate_gap_s(double u, double rate_per_hour)
{
    if (!(rate_per_hour > 0) || !(u >= 0) || !(u < 1))
        return INFINITY;
    return -log1p(-u) / rate_per_hour * 3600.0;   /* exponential gaps: a Poisson process */
}

void faultlog_timers_begin(struct sup *s)
{
    for (int i = 0; i < s->sc->n_faults; i++) {
        const struct fault_spec *f = &s->sc->faults[i];
        s->fl->fault_due[i] = 0;
        if (f->at_s >= 0)
            s->fl->fault_due[i] = faultlog_due(s->run_t0, f->at_s);
        else if (f->rate_per_hour > 0)   /* seeded: each fault its own stream */
            s->fl->fault_due[i] = faultlog_due(s->run_t0, faultlog_rate_gap_s(rng_uniform(&s->fl->rate_rng[i]),
                                                                              f->rate_per_hour));
    }
}

void faultlog_timers(struct sup *s, uint64_t now)
{
    for (int i = 0; i < s->sc->n_faults; i++) {
        const struct fault_spec *f = &s->sc->faults[i];
        if (!s->fl->fault_due[i] || now < s->fl->fault_due[i])
            continue;
        int rank = (int)f->rank;
        if (f->rate_per_hour > 0 && s->orig->faults[i].rank < 0) {
            /* a random rank of the whole cluster, drawn alike on every node: only its own node injects it */
            uint64_t g = rng_next(&s->fl->rate_rng[i]) % (uint64_t)(s->nodes * s->nranks);
            rank = (int)g / s->nranks == s->node ? (int)(g % (uint64_t)s->nranks) : -2;
        }
        s->fl->fault_due[i] = f->rate_per_hour > 0
                              ? faultlog_due(now, faultlog_rate_gap_s(rng_uniform(&s->fl->rate_rng[i]), f->rate_per_hour))
                              : 0;
        if (rank < 0 || rank >= s->nranks || s->dropped[rank])   /* another node's rank, or shrunk away */
            continue;
        if (s->fl->sent_rank[i] >= 0)   /* one of it still waits (sent again by a recovery): one fault, not two in an
                                         * iteration (the second flip of the same seed undid the first) */
            continue;
        faultlog_send(s, i, rank);
    }
}

void faultlog_send(struct sup *s, int spec, int rank)
{
    if (spec < 0 || spec >= SC_MAX_FAULTS || rank < 0 || rank >= s->nranks)
        return;
    s->fl->sent_rank[spec] = rank;
    struct wcmd cmd = { .type = CMD_INJECT, .arg = spec };
    sup_send(s, s->slot_of[rank], &cmd);
}

void faultlog_resend(struct sup *s)
{
    for (int i = 0; i < s->sc->n_faults && i < SC_MAX_FAULTS; i++) {
        int r = s->fl->sent_rank[i];
        if (r >= 0 && r < s->nranks && !s->dropped[r]) {
            struct wcmd cmd = { .type = CMD_INJECT, .arg = i };
            s->fl->host->send(s, s->slot_of[r], &cmd);
        }
    }
}

int faultlog_run_end(struct sup *s)
{
    int n = 0;
    unsigned char said[SC_MAX_FAULTS] = { 0 };
    if (s->fl->awaiting_fault >= 0 && !runstats_done(&s->rs))   /* the run ended inside a recovery (a restore that
                                                                   * failed): none of its faults was recovered */
        for (int i = 0; i < s->fl->n_faults; i++) {
            struct fault_rec *f = &s->fl->faults[i];
            if (f->run == s->run && f->recovery && !f->recovered_ns && !f->undone)
                snprintf(f->outcome, sizeof f->outcome, "not recovered: the run ended during its %s (from iteration %lld)",
                         s->sc->recovery.name, (long long)f->restore_iter);
        }
    for (int i = 0; i < s->sc->n_faults && i < SC_MAX_FAULTS; i++) {
        int r = s->fl->sent_rank[i];
        if (r < 0)
            continue;
        const char *why = r < s->nranks && s->dropped[r] ? "its rank was dropped (shrink) before it fired"
                                                          : "the run ended before it fired";
        results_event(&s->res, mono_ns(), "fault_not_injected",
                      json_pack("{s:i, s:s, s:i, s:s}", "fault", i, "kind", fault_table[s->sc->faults[i].kind]->name,
                                "rank", r, "why", why));
        gl_log("fault %d (%s on rank %d) was asked and never injected: %s", i, fault_table[s->sc->faults[i].kind]->name,
               r, why);
        s->fl->sent_rank[i] = -1;
        said[i] = 1;
        n++;
    }
    for (int i = 0; i < s->sc->n_faults && i < SC_MAX_FAULTS; i++) {   /* an at_s the run never reached: said (until
                                                                         * 2026-12-02 the run said nothing of it) */
        const struct fault_spec *fs = &s->sc->faults[i];
        int fired = 0;
        for (int j = 0; j < s->fl->n_faults && !fired; j++)
            fired = s->fl->faults[j].spec == i && s->fl->faults[j].run == s->run;
        if (fs->at_s < 0 || fired || said[i])
            continue;
        char why[96];
        snprintf(why, sizeof why, "the run ended before its time (at_s %.3g s)", fs->at_s);
        results_event(&s->res, mono_ns(), "fault_not_injected",
                      json_pack("{s:i, s:s, s:i, s:s}", "fault", i, "kind", fault_table[fs->kind]->name, "rank",
                                (int)fs->rank, "why", why));
        gl_log("fault %d (%s) was never injected: %s", i, fault_table[fs->kind]->name, why);
        n++;
    }
    return n;
}
