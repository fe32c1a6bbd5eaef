/* harness/results/phasecov.c: which phase a power reading speaks for (phasecov.h). Per rank: its phase edges since
 * the oldest reading still waiting (older ones folded into the phase they left), and the readings waiting for an
 * edge past their end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phasecov.h"
#include "util.h"

struct pending {
    double a, b, w;   /* the reading covers (a, b] */
};

struct rank_cov {
    double *et;              /* edge times, non-decreasing */
    int *es;                 /* the phase from that edge on */
    size_t n, head, cap;     /* edges [head, n) kept */
    int base;                /* the phase before et[head] */
    double fold_t;           /* the latest edge folded into base (-inf: none) */
    int cur;                 /* the phase after the last edge */
    double last_t;           /* the last edge's time (-inf: none) */
    int have_prev, prev_stamped;
    double prev_t, prev_stamp, prev_w;   /* the reading before: the time it reaches, its stamp, its value */
    double last_tick;        /* the latest tick a reading was seen at (-inf: none) */
    double before_prev;      /* unstamped: the tick before the reading before was first seen (where this one's span
                              * may begin: that reading was made after it) */
    struct pending *pq;      /* ring of waiting readings (PHASECOV_PENDING, made at the first) */
    size_t pq_head, pq_n;
    double span_sum;
    size_t span_n;
    struct series compute_w, comm_w;
};

struct phasecov {
    int ranks;
    struct rank_cov *rk;
};

struct phasecov *phasecov_new(int ranks)
{
    if (ranks < 1)
        return NULL;
    struct phasecov *c = xcalloc(1, sizeof *c);
    c->ranks = ranks;
    c->rk = xcalloc((size_t)ranks, sizeof *c->rk);
    for (int i = 0; i < ranks; i++) {
        struct rank_cov *r = &c->rk[i];
        r->fold_t = r->last_t = -INFINITY;
        r->base = r->cur = PHC_OTHER;
        r->last_tick = r->before_prev = -INFINITY;
    }
    return c;
}

void phasecov_free(struct phasecov *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ranks; i++) {
        free(c->rk[i].et);
        free(c->rk[i].es);
        free(c->rk[i].pq);
        series_free(&c->rk[i].compute_w);
        series_free(&c->rk[i].comm_w);
    }
    free(c->rk);
    free(c);
}

/* Folds the edges at or before t into the phase before the rest. */
static void fold_to(struct rank_cov *r, double t)
{
    while (r->head < r->n && r->et[r->head] <= t) {
        r->base = r->es[r->head];
        r->fold_t = r->et[r->head++];
    }
    if (r->head > 1024 && r->head * 2 > r->n) {   /* keep the array to what is still needed */
        memmove(r->et, r->et + r->head, (r->n - r->head) * sizeof *r->et);
        memmove(r->es, r->es + r->head, (r->n - r->head) * sizeof *r->es);
        r->n -= r->head;
        r->head = 0;
    }
}

/* Judges the oldest waiting reading on the edges known: it is its phase's when no edge lies inside (a, b) and the
 * phase at a is compute or communication. Readings are judged in the order of a, so edges up to a fold away. */
static void judge_oldest(struct rank_cov *r)
{
    struct pending p = r->pq[r->pq_head];
    r->pq_head = (r->pq_head + 1) % PHASECOV_PENDING;
    r->pq_n--;
    fold_to(r, p.a);
    if (p.a < r->fold_t)   /* began before an edge already folded away: its phase is not known */
        return;
    if (r->head < r->n && r->et[r->head] < p.b)   /* an edge inside: two phases in one reading */
        return;
    if (r->base == PHC_COMPUTE)
        series_add(&r->compute_w, p.w);
    else if (r->base == PHC_COMM)
        series_add(&r->comm_w, p.w);
}

static void judge_ready(struct rank_cov *r)
{
    while (r->pq_n && r->last_t >= r->pq[r->pq_head].b)
        judge_oldest(r);
}

static struct rank_cov *rank_of(struct phasecov *c, int rank)
{
    return c && rank >= 0 && rank < c->ranks ? &c->rk[rank] : NULL;
}

void phasecov_edge(struct phasecov *c, int rank, double t_s, const char *phase, int begin)
{
    struct rank_cov *r = rank_of(c, rank);
    if (!r || !phase || !isfinite(t_s))
        return;
    int p = strcmp(phase, "compute") == 0 ? PHC_COMPUTE : strcmp(phase, "comm") == 0 ? PHC_COMM : PHC_OTHER;
    /* a begin starts its phase whatever was open (a rank restarted leaves one open); an end closes its own only */
    int next = begin ? p : (r->cur == p ? PHC_OTHER : r->cur);
    if (t_s < r->last_t)
        t_s = r->last_t;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->et = xrealloc(r->et, r->cap * sizeof *r->et);
        r->es = xrealloc(r->es, r->cap * sizeof *r->es);
    }
    r->et[r->n] = t_s;
    r->es[r->n++] = next;
    r->cur = next;
    r->last_t = t_s;
    judge_ready(r);
    /* nothing waiting: an edge before where the next reading's span can begin is needed no more; and a rank whose
     * readings never count (no sampler, no valid reading) keeps at most PHASECOV_EDGES of them */
    if (!r->pq_n && r->have_prev)
        fold_to(r, r->prev_stamped ? r->prev_t : r->before_prev);
    if (r->n - r->head > PHASECOV_EDGES)
        fold_to(r, r->et[r->head]);
}

void phasecov_reset(struct phasecov *c, int rank, double t_s)
{
    if (!c || rank >= c->ranks)
        return;
    for (int i = rank < 0 ? 0 : rank; i < (rank < 0 ? c->ranks : rank + 1); i++)
        phasecov_edge(c, i, t_s, "", 1);   /* a begin of no phase of its: the rank is in none from t_s */
}

int phasecov_resets(const char *event)
{
    static const char *const of_rank[] = { "worker_start", "worker_died", "worker_error", "worker_exit", "rank_done",
                                           "rank_stopped", "rank_dropped" };
    static const char *const of_all[] = { "run_begin", "run_end", "recovery_begin", "recovery_end", "end" };
    for (size_t i = 0; event && i < sizeof of_rank / sizeof *of_rank; i++)
        if (strcmp(event, of_rank[i]) == 0)
            return 1;
    for (size_t i = 0; event && i < sizeof of_all / sizeof *of_all; i++)
        if (strcmp(event, of_all[i]) == 0)
            return 2;
    return 0;
}

void phasecov_reading(struct phasecov *c, int rank, double t_s, double stamp_s, double watts)
{
    struct rank_cov *r = rank_of(c, rank);
    if (!r)
        return;
    if (!isfinite(t_s))
        return;
    double tick_before = r->last_tick;
    r->last_tick = t_s;
    if (!isfinite(watts)) {   /* a gap: what the next reading covers is not known */
        r->have_prev = 0;
        return;
    }
    int stamped = isfinite(stamp_s);
    double t = stamped ? stamp_s : t_s;
    if (r->have_prev && stamped == r->prev_stamped &&
        (stamped ? stamp_s == r->prev_stamp : watts == r->prev_w))
        return;   /* the same reading again */
    int counts = r->have_prev && stamped == r->prev_stamped && t > r->prev_t;
    /* stamped: from the stamp before; unstamped: from the tick before the reading before was first seen (it was made
     * after that tick, and this one may average from when it was made) */
    double a = stamped ? r->prev_t : r->before_prev;
    r->have_prev = 1;
    r->prev_stamped = stamped;
    r->prev_stamp = stamp_s;
    r->prev_w = watts;
    r->prev_t = t;
    r->before_prev = tick_before;
    if (!counts || !(a > -INFINITY))   /* the first, after a gap, or a stamp that went back: its span is not known */
        return;
    r->span_sum += t - a;
    r->span_n++;
    if (!r->pq)
        r->pq = xmalloc(PHASECOV_PENDING * sizeof *r->pq);
    if (r->pq_n == PHASECOV_PENDING)   /* a phase that will not end (a hang): the oldest on what is known */
        judge_oldest(r);
    r->pq[(r->pq_head + r->pq_n++) % PHASECOV_PENDING] = (struct pending){ a, t, watts };
    judge_ready(r);
}

void phasecov_settle(struct phasecov *c)
{
    for (int i = 0; c && i < c->ranks; i++)
        while (c->rk[i].pq_n)
            judge_oldest(&c->rk[i]);
}

struct series *phasecov_series(struct phasecov *c, int rank, int phase)
{
    struct rank_cov *r = rank_of(c, rank);
    if (!r)
        return NULL;
    return phase == PHC_COMPUTE ? &r->compute_w : phase == PHC_COMM ? &r->comm_w : NULL;
}

double phasecov_span_s(const struct phasecov *c, int rank)
{
    if (!c || rank < 0 || rank >= c->ranks || !c->rk[rank].span_n)
        return NAN;
    return c->rk[rank].span_sum / (double)c->rk[rank].span_n;
}
