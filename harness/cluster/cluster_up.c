/* harness/cluster/cluster_up.c: what the other nodes send node 0, up the tree of uprec.h over MPI: each node's lines
 * and control messages as records in one batch (their order kept), sent to its parent; a parent relays its
 * children's records with its own; node 0 takes each origin's records once and in order. Built with MPI only. */
#ifdef GAUNTLET_HAVE_MPI
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_int.h"
#include "util.h"

#define UP_CAP (BATCH + (64u << 10))   /* a batch: room for a whole relayed record after a nearly full one */

void up_init(void)
{
    cl.fanout = cl.fanout >= 2 ? cl.fanout : CLUSTER_FANOUT;
    cl.up = (struct up_batch){ .buf = xmalloc(UP_CAP), .cap = UP_CAP };
    cl.ring = xcalloc(1, sizeof *cl.ring);
    cl.seen = xcalloc((size_t)cl.nodes, sizeof *cl.seen);
    cl.ended = xcalloc((size_t)cl.nodes, 1);
    cl.run_ended = xcalloc((size_t)cl.nodes, 1);
    cl.up_to = up_parent(cl.node, cl.fanout, NULL);
}

void up_free(void)
{
    free(cl.up.buf);
    free(cl.ring);
    free(cl.seen);
    free(cl.ended);
    free(cl.run_ended);
    cl.run_ended = NULL;
    cl.up.buf = NULL;
}

/* Sends the batch to this node's parent; a new parent (the old one lost) first gets the recent control records. */
void up_flush(void)
{
    if (!cl.up.fill || cl.node == 0)
        return;
    int p = up_parent(cl.node, cl.fanout, cl.lost);
    if (p != cl.up_to || cl.resend) {   /* what the lost relay held of this node's is sent again (node 0 drops a
                                         * record it had): a relay further up too, not only this node's parent */
        struct up_batch rb = { .buf = xmalloc(UP_CAP), .cap = UP_CAP };
        if (p != cl.up_to)
            gl_log("cluster: node %d: node %d relays nothing more: sending to node %d", cl.node, cl.up_to, p);
        cl.resend = 0;
        if (up_ring_batch(cl.ring, (uint32_t)cl.node, &rb) == 0 && rb.fill)
            send_owned(rb.buf, rb.fill, p, TAG_UP);
        else
            free(rb.buf);
        cl.up_to = p;
    }
    send_owned(cl.up.buf, cl.up.fill, p, TAG_UP);
    cl.up = (struct up_batch){ .buf = xmalloc(UP_CAP), .cap = UP_CAP };
}

/* Adds a record of this node's (coalesce: lines that may extend the last record); sends the batch when full. */
static void up_own(int kind, const void *data, size_t len, int coalesce)
{
    int r = up_append(&cl.up, (uint32_t)cl.node, kind, cl.up_seq + 1, data, len, coalesce);
    if (r < 0) {
        up_flush();
        if (up_grow(&cl.up, len) == 0)   /* larger than a batch (an end record of many faults): a batch of its own */
            r = up_append(&cl.up, (uint32_t)cl.node, kind, cl.up_seq + 1, data, len, coalesce);
    }
    if (r == 0)
        cl.up_seq++;
    else if (r < 0)
        gl_log("cluster: node %d: a record of %zu bytes cannot be sent (over %zu bytes, or no memory)", cl.node, len,
               (size_t)UP_RECORD_MAX);
}

void up_line(int st, const char *line, size_t len) { up_own(st == CL_POWER ? UP_POWER : UP_EVENTS, line, len, 1); }

void up_json(int32_t tag, const char *text, size_t len)
{
    char *buf = xmalloc(len + 4);
    memcpy(buf, &tag, 4);
    memcpy(buf + 4, text, len);
    up_own(UP_JSON, buf, len + 4, 0);
    up_ring_add(cl.ring, cl.up_seq, buf, len + 4);
    free(buf);
    up_flush();   /* control goes at once */
}

void up_end(void) { up_own(UP_END, "", 0, 0); }

struct take {
    const struct cluster_sink *sink;
    int json;   /* a relay: a control record passed: send at once */
};

/* Node 0: one record, taken once and in order. */
static void take_here(void *ctx, const struct up_hdr *h, const char *data)
{
    struct take *t = ctx;
    if (h->origin == 0 || h->origin >= (uint32_t)cl.nodes || !up_accept(&cl.seen[h->origin], h->seq))
        return;
    if (h->kind == UP_END) {
        cl.ended[h->origin] = 1;
        return;
    }
    const struct cluster_sink *sink = t->sink;
    if (h->kind == UP_JSON) {
        int32_t tag;
        json_error_t err;
        json_t *o = h->len >= 4 ? json_loadb(data + 4, h->len - 4, 0, &err) : NULL;
        if (!o)
            return;
        memcpy(&tag, data, 4);
        if (sink && sink->json)
            sink->json(sink->ctx, (int)h->origin, tag, o);
        json_decref(o);
        return;
    }
    if (!sink || !sink->lines)
        return;
    char *text = xmalloc((size_t)h->len + 1);   /* whole lines, ended by a NUL for the readers */
    memcpy(text, data, h->len);
    text[h->len] = 0;
    sink->lines(sink->ctx, (int)h->origin, h->kind == UP_POWER ? CL_POWER : CL_EVENTS, text, h->len);
    free(text);
}

/* A relay: one record passed on as it came. */
static void take_relay(void *ctx, const struct up_hdr *h, const char *data)
{
    struct take *t = ctx;
    if (up_append(&cl.up, h->origin, h->kind, h->seq, data, h->len, 0) < 0) {
        up_flush();
        if (up_grow(&cl.up, h->len) != 0 || up_append(&cl.up, h->origin, h->kind, h->seq, data, h->len, 0) < 0) {
            gl_log("cluster: node %d: node %u's record of %u bytes cannot be relayed (no memory)", cl.node, h->origin,
                   h->len);
            return;
        }
    }
    cl.relayed += sizeof *h + h->len;
    t->json |= h->kind == UP_JSON || h->kind == UP_END;
    if (h->kind == UP_END && h->origin < (uint32_t)cl.nodes)
        cl.ended[h->origin] = 1;
    int32_t tag = 0;
    if (h->origin >= (uint32_t)cl.nodes || h->kind != UP_JSON || h->len < 4 ||
        (memcpy(&tag, data, 4), tag != CLUSTER_TAG_RUN_END))
        return;
    /* this run's end record, not an earlier one's (left in the queue by a wait cut short, or sent again after a relay
     * was lost): it names its run (cluster_run_no) */
    json_t *o = json_loadb(data + 4, h->len - 4, 0, NULL);
    if (json_integer_value(json_object_get(o, "cluster_run")) == cl.run_no)
        cl.run_ended[h->origin] = 1;
    json_decref(o);
}

void up_take(const char *buf, size_t len, const struct cluster_sink *sink)
{
    struct take t = { sink, 0 };
    if (up_parse(buf, len, cl.node == 0 ? take_here : take_relay, &t) != 0)
        gl_log("cluster: node %d: a malformed batch of %zu bytes from below (its records after the fault are lost)",
               cl.node, len);
    if (t.json)
        up_flush();
}

/* Whether every node below k (in the tree, not lost) has flag set: its end record (cl.ended: it has left; cl.run_ended:
 * its run's) passed here. */
static int subtree_all(int k, const unsigned char *flag)
{
    for (long c = (long)cl.fanout * k + 1; c <= (long)cl.fanout * k + cl.fanout && c < cl.nodes; c++)
        if ((!(c < SHM_MAX_NODES && cl.lost[c]) && !flag[c]) || !subtree_all((int)c, flag))
            return 0;
    return 1;
}
static int subtree_ended(int k) { return subtree_all(k, cl.ended); }

int cluster_subtree_run_ended(void) { return !cl.on || !cl.run_ended || subtree_all(cl.node, cl.run_ended); }

/* While leaving: node 0's control message (its heartbeat) names the nodes it lost: this node waits for their end
 * records no more; and says whether it ends with a bye to each node (cluster_no_barrier). */
static void leave_lost(const char *text, size_t len)
{
    json_t *o = json_loadb(text, len, 0, NULL), *k;
    size_t i;
    if (json_is_true(json_object_get(o, "no_barrier")))
        cluster_no_barrier();
    json_array_foreach(json_object_get(o, "lost"), i, k)
        if (json_is_integer(k) && json_integer_value(k) > 0 && json_integer_value(k) < cl.nodes &&
            json_integer_value(k) != cl.node)
            cluster_mark_lost((int)json_integer_value(k));
    json_decref(o);
}

/* While leaving: takes one waiting message, if any (never blocks): what the nodes below still send is passed on,
 * node 0's control messages read for the nodes it lost, anything else dropped (control is over). Its tag (0: none waited, after a nap of the spins-th turn; -1: MPI
 * failed) and *src its sender. */
static int leave_take(unsigned spins, int *src)
{
    int flag = 0, len = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, cl.comm, &flag, &st) != MPI_SUCCESS)
        return -1;
    if (!flag || st.MPI_TAG == TAG_CLOCK) {
        up_flush();
        reap_sends(0);
        sleep_ns(spins < 100 ? 20000 : 1000000);
        return 0;
    }
    if (MPI_Get_count(&st, MPI_BYTE, &len) != MPI_SUCCESS || len < 0)
        return -1;
    char *buf = xmalloc((size_t)len + 1);
    if (MPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, cl.comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        free(buf);
        return -1;
    }
    cl.received += (uint64_t)len;
    if (st.MPI_TAG == TAG_UP)
        up_take(buf, (size_t)len, NULL);
    else if (st.MPI_TAG == TAG_JSON && st.MPI_SOURCE == 0 && len >= 4)
        leave_lost(buf + 4, (size_t)len - 4);
    free(buf);
    *src = st.MPI_SOURCE;
    return st.MPI_TAG;
}

void up_leave(void)
{
    if (cl.node == 0)
        return;
    up_end();
    up_flush();
    /* as long as node 0 still speaks (its heartbeats: the run goes on, a shrink emptied this node before its end),
     * the nodes below are relayed to their end: node 0 names any it loses; silent for the heartbeat timeout, it is
     * gone, and so is the wait (until 2026-11-30 the wait ended a timeout after this node's own end: the nodes below
     * an emptied relay ran on into a node that relayed nothing, were taken for lost, and the run failed) */
    uint64_t wait = (uint64_t)(cl.send_wait_s * 1e9), end = mono_ns() + wait;
    int src = -1, tag;
    for (unsigned spins = 0; !subtree_ended(cl.node) && mono_ns() < end; spins++) {
        if ((tag = leave_take(spins, &src)) < 0)
            break;
        if (tag == TAG_JSON && src == 0)
            end = mono_ns() + wait;
        if (tag == TAG_BYE && src == 0) {   /* node 0 is leaving without the barrier: so does this node */
            cl.bye = 1;
            break;
        }
    }
    if (!subtree_ended(cl.node) && !cl.bye)   /* a bye: node 0 has what it waits for (a node below went around) */
        gl_log("cluster: node %d: nodes below it had not left %.0f s after node 0 last spoke: what they send now is "
               "lost", cl.node, cl.send_wait_s);
    up_flush();
}

/* Waits until every send of this node's has gone (at most until end). */
static void sends_done(uint64_t end)
{
    for (reap_sends(0); cl.nfly && mono_ns() < end; reap_sends(0))
        sleep_ns(1000000);
}

void up_leave_lost(void)
{
    sends_done(mono_ns() + (uint64_t)(cl.send_wait_s * 1e9));
    if (cl.node == 0) {
        for (int k = 1; k < cl.nodes; k++)
            if (!(k < SHM_MAX_NODES && cl.lost[k]))
                send_owned(xstrdup("bye"), 4, k, TAG_BYE);
        sends_done(mono_ns() + (uint64_t)(cl.send_wait_s * 1e9));
        return;
    }
    /* node 0 lost (silent for the heartbeat timeout): no bye will come; the launcher takes it down once this exits
     * (until 2026-11-30 this waited the 4 timeouts + 60 s below for it, holding the job) */
    if (cl.lost[0])
        return;
    /* node 0 may take a while to end (its summary, the cluster's figures); gone, the launcher ends this one too */
    uint64_t end = mono_ns() + (uint64_t)((4 * cl.send_wait_s + 60) * 1e9);
    int src = -1, tag = 0;
    for (unsigned spins = 0; !cl.bye && mono_ns() < end && tag >= 0 && !(tag == TAG_BYE && src == 0); spins++)
        tag = leave_take(spins, &src);
    if (!cl.bye && !(tag == TAG_BYE && src == 0))
        gl_log("cluster: node %d: no bye from node 0 within %.0f s: leaving without it", cl.node, 4 * cl.send_wait_s + 60);
    up_flush();
    sends_done(mono_ns() + (uint64_t)(cl.send_wait_s * 1e9));
}

uint64_t up_missing(int node)
{
    if (node <= 0 || node >= cl.nodes || !cl.seen)
        return 0;
    return cl.seen[node].last - cl.seen[node].taken;
}

#endif
