/* tui/model_power.c: the live view's power: each rank's readings and the node's sum per tick, binned for the chart
 * (see model.h). */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "util.h"

static int64_t bin_of(double t) { return (int64_t)floor(t / VM_BIN_S); }

/* Adds w to bin number b of a ring of n slots; a slot still holding an older bin starts over. */
static void bin_add(struct vm_bin *ring, int n, int64_t b, double w)
{
    struct vm_bin *x = &ring[((b % n) + n) % n];
    if (x->no != b || !x->n)
        *x = (struct vm_bin){ .no = b, .min = (float)w, .max = (float)w };
    else if (w < x->min)
        x->min = (float)w;
    else if (w > x->max)
        x->max = (float)w;
    x->sum += (float)w;
    x->n++;
}

static int bin_get(const struct vm_bin *ring, int n, double t, struct vm_bin *out)
{
    int64_t b = bin_of(t);
    const struct vm_bin *x = &ring[((b % n) + n) % n];
    if (x->no != b || !x->n)
        return 0;
    *out = *x;
    return 1;
}

int vm_agg_bin(const struct vm *m, double t, struct vm_bin *out) { return bin_get(m->bin, VM_BINS, t, out); }

int vm_rank_bin(const struct vm *m, int rank, double t, struct vm_bin *out)
{
    return rank >= 0 && rank < m->nranks && bin_get(m->rank[rank].bin, VM_RANK_BINS, t, out);
}

/* Closes the sample tick: the node's power at that time is the sum of every rank's latest reading, when each
 * rank has one from the last two periods its rows come at (fresh_s) (a rank without is a missing aggregate, as in the summary; a
 * GPU shrink dropped is still on the node and still sampled, and counts as in the summary). On one node every rank is sampled at the same tick; over several nodes the ticks of
 * different nodes interleave, and the latest reading of each counts. */
static void vm_tick_close(struct vm *m)
{
    if (isnan(m->tick_t) || m->cluster_fed)
        return;
    double fresh = m->fresh_s > 0 ? m->fresh_s : m->sample_hz > 0 ? 2.0 / m->sample_hz : 0.05, sum = 0;
    int ok = m->nranks > 0 && !(m->gpus > m->nranks);   /* GPUs past those held: no sum rather than a part of it */
    for (int r = 0; r < m->nranks && ok; r++) {
        const struct vm_rank *k = &m->rank[r];
        if (isnan(k->watts) || m->tick_t - k->watts_t > fresh || k->watts_t > m->tick_t + 1e-9)
            ok = 0;
        else
            sum += k->watts;
    }
    if (ok) {
        bin_add(m->bin, VM_BINS, bin_of(m->tick_t), sum);
        m->raw_t[m->nraw % VM_RAW] = m->tick_t;
        m->raw_w[m->nraw % VM_RAW] = sum;
        m->nraw++;
    }
    m->tick_t = NAN;
}

void vm_power(struct vm *m, double t_s, int rank, double watts, double clock_mhz, double temp_c, uint64_t throttle)
{
    /* a rank past the run's GPUs (as its start says) is none of them, inf no reading (until 2026-12-02 one such row
     * held ranks that never ran, halved the swing, blanked the chart) */
    if (rank < 0 || rank >= VM_MAX_RANKS || !isfinite(t_s) || (m->gpus > 0 && rank >= m->gpus))
        return;
    watts = isfinite(watts) ? watts : NAN;
    vm_ranks(m, rank + 1);
    if (t_s != m->tick_t)
        vm_tick_close(m);
    m->tick_t = t_s;
    struct vm_rank *r = &m->rank[rank];
    r->watts = watts;
    r->watts_t = t_s;
    r->clock_mhz = clock_mhz;
    r->temp_c = temp_c;
    r->throttle = throttle;
    if (!isnan(watts))
        bin_add(r->bin, VM_RANK_BINS, bin_of(t_s), watts);
    m->samples++;
    if (t_s > m->t_now)
        m->t_now = t_s;
}

void vm_power_stamp(struct vm *m, int rank, int64_t sample_ns)
{
    if (rank >= 0 && rank < m->nranks && sample_ns != 0)
        an_stamp_note(&m->rank[rank].stamps, sample_ns);
}

void vm_node_power(struct vm *m, double t_s, int node, double watts, int gpus)
{
    int per = m->per_node > 0 ? m->per_node : m->nodes > 0 ? m->nranks / m->nodes : 0;
    if (node < 0 || node >= m->nodes || per < 1 || gpus < 1 || !isfinite(t_s) || !isfinite(watts))
        return;
    for (int k = node * per; k < (node + 1) * per && k < m->nranks && k < VM_MAX_RANKS; k++) {
        struct vm_rank *r = &m->rank[k];
        r->watts = watts / gpus;   /* the node's mean GPU: what node 0 hears of it */
        r->watts_t = t_s;
        bin_add(r->bin, VM_RANK_BINS, bin_of(t_s), r->watts);
    }
    m->samples++;
    if (t_s > m->t_now)
        m->t_now = t_s;
}

void vm_cluster_power(struct vm *m, double t_s, double watts, int whole)
{
    m->cluster_fed = 1;
    if (!whole || !isfinite(t_s) || !isfinite(watts))
        return;   /* a node missing from the cell: no sum rather than a wrong one */
    bin_add(m->bin, VM_BINS, bin_of(t_s), watts);
    m->raw_t[m->nraw % VM_RAW] = t_s;
    m->raw_w[m->nraw % VM_RAW] = watts;
    m->nraw++;
}

const char *vm_power_title(const struct vm *m, int gpus, char *buf, size_t n)
{
    if (m->nodes > 1)
        snprintf(buf, n, "cluster (%d GPUs on %d nodes%s)", gpus, m->nodes, m->cluster_fed ? ", nodes' sums" : "");
    else
        snprintf(buf, n, "node (%d GPUs)", gpus);
    return buf;
}

