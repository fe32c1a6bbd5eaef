/* harness/cluster/cluster_same.c: every node runs what node 0 runs (see cluster.h). Each supervisor reads the scenario
 * from its own file system (or from a shared one edited between starts), so two nodes may read two scenarios: other
 * ranks, another all-reduce size, other iterations. Run so, the nodes' figures are false or the run hangs. Node 0's
 * scenario as scenario.yaml holds it (every default resolved), headed by the gauntlet version and the backend, goes
 * to every node; a node whose own differs stops the set-up on every node (exit 2), and node 0 names it and the first
 * key that differs. docs/cluster.md, "All start or none does". */
#include "cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "uprec.h"
#include "util.h"

/* The most of node 0's text that goes to the other nodes; past it only the length and the hash are compared. */
#define SAME_TEXT_MAX (1u << 20)

/* FNV-1a, 64 bits. */
static uint64_t same_hash(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h;
}

/* This node's run as text: the version, the backend, the resolved scenario; NULL when it cannot be written. */
static char *same_text(const struct scenario *sc, const char *backend, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    fprintf(f, "gauntlet: %s\nbackend: %s\n", GAUNTLET_VERSION, backend ? backend : "?");
    int bad = scenario_write(sc, f) != 0;
    if (fclose(f) != 0 || bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* The line of t (length n) that begins at off, trimmed of its indent and cut to fit out. */
static void same_line(const char *t, size_t n, size_t off, char *out, size_t m)
{
    size_t e = off;
    while (e < n && t[e] != '\n')
        e++;
    while (off < e && t[off] == ' ')
        off++;
    snprintf(out, m, "%.*s", (int)(e - off), t + off);
    if (off == e && off >= n)
        snprintf(out, m, "(the end)");
}

static int same_indent(const char *l)
{
    int i = 0;
    while (l[i] == ' ')
        i++;
    return i;
}

/* The key path of the line at off in t ("workload.allreduce.bytes"), from the lines above it by their indent. */
static void same_key(const char *t, size_t off, char *out, size_t m)
{
    char path[256] = "";
    const char *l = t + off;
    int ind = same_indent(l) + (strncmp(l + same_indent(l), "- ", 2) == 0);   /* a list item: the key above is its own */
    const char *colon = memchr(l, ':', strcspn(l, "\n"));
    if (colon && strncmp(l + same_indent(l), "- ", 2) != 0)
        snprintf(path, sizeof path, "%.*s", (int)(colon - l - same_indent(l)), l + same_indent(l));
    while (off > 0 && ind > 0) {
        size_t b = off - 1;   /* the line before: back to its start */
        while (b > 0 && t[b - 1] != '\n')
            b--;
        off = b;
        const char *p = t + b;
        int pi = same_indent(p);
        const char *c = memchr(p, ':', strcspn(p, "\n"));
        if (pi >= ind || !c || strncmp(p + pi, "- ", 2) == 0)
            continue;
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%.*s%s%s", (int)(c - p - pi), p + pi, path[0] ? "." : "", path);
        str_copy(path, sizeof path, tmp);
        ind = pi;
    }
    str_copy(out, m, path[0] ? path : "the scenario");
}

/* Says where mine (this node's) first differs from node 0's text, into note. */
static void same_diff(const char *mine, size_t mlen, const char *theirs, size_t tlen, size_t tfull, char *note, size_t n)
{
    size_t i = 0, lim = mlen < tlen ? mlen : tlen;
    while (i < lim && mine[i] == theirs[i])
        i++;
    if (i == lim && tlen < tfull && mlen >= tlen) {
        snprintf(note, n, "node %d: its scenario differs from node 0's past the first %u bytes of the resolved scenario",
                 cluster_node(), SAME_TEXT_MAX);
        return;
    }
    size_t ls = i, line = 1;
    while (ls > 0 && mine[ls - 1] != '\n')
        ls--;
    for (size_t k = 0; k < ls; k++)
        line += mine[k] == '\n';
    char key[96], a[72], b[72];
    same_key(mine, ls, key, sizeof key);
    same_line(mine, mlen, ls, a, sizeof a);
    same_line(theirs, tlen, ls, b, sizeof b);
    size_t kl = strcspn(a, ":");   /* one key both sides ("ranks: 6", "ranks: 2"): its values alone */
    int one_key = a[kl] == ':' && a[kl + 1] == ' ' && strncmp(a, b, kl + 2) == 0 && a[0] != '-';
    snprintf(note, n, "node %d: its scenario differs from node 0's at %s: '%s' on node %d, '%s' on node 0 (line %zu of "
                      "the resolved scenario)", cluster_node(), key, one_key ? a + kl + 2 : a, cluster_node(),
             one_key ? b + kl + 2 : b, line);
}

void cluster_build_of(struct cluster_build *b)
{
    memset(b, 0, sizeof *b);
    memcpy(b->magic, "gauntlet", sizeof b->magic);
    str_copy(b->version, sizeof b->version, GAUNTLET_VERSION);
    char w[160];
    const uint32_t order = 0x01020304u;   /* the byte order: a node of another reads every figure wrong */
    int len = snprintf(w, sizeof w, "%s|%d|%zu|%zu|%zu|%zu|%02x", GAUNTLET_VERSION, CLUSTER_PROTOCOL,
                       cluster_agree_bytes(), sizeof(struct up_hdr), sizeof(long), sizeof(double),
                       ((const unsigned char *)&order)[0]);
    b->wire = same_hash(w, len <= 0 ? 0 : (size_t)len < sizeof w ? (size_t)len : sizeof w - 1);
}

int cluster_build_differs(const struct cluster_build *mine, const struct cluster_build *theirs, char *why, size_t n)
{
    if (memcmp(theirs->magic, "gauntlet", sizeof theirs->magic) != 0) {
        snprintf(why, n, "node 0 sent no gauntlet build record: it runs an older or another build (this node: "
                         "gauntlet %s, wire %016llx)", mine->version, (unsigned long long)mine->wire);
        return 1;
    }
    if (theirs->wire == mine->wire)
        return 0;
    char v[sizeof theirs->version + 1];
    memcpy(v, theirs->version, sizeof theirs->version);
    v[sizeof theirs->version] = 0;
    for (char *c = v; *c; c++)
        if ((unsigned char)*c < 32 || (unsigned char)*c > 126)
            *c = '?';
    snprintf(why, n, "this node runs gauntlet %s (wire %016llx), node 0 gauntlet %s (wire %016llx): their messages "
                     "differ; install one build on every node", mine->version, (unsigned long long)mine->wire, v,
             (unsigned long long)theirs->wire);
    return 1;
}

int cluster_same_run(int rc, const struct scenario *sc, const char *backend)
{
    if (cluster_nodes() < 2)
        return rc;
    size_t len = 0;
    char *mine = rc ? NULL : same_text(sc, backend, &len), note[248] = "";
    if (!rc && !mine) {
        rc = EXIT_ENV;
        snprintf(note, sizeof note, "node %d: cannot write its scenario out to compare it with node 0's", cluster_node());
    }
    uint64_t head[2] = { mine ? len : 0, mine ? same_hash(mine, len) : 0 };   /* node 0's: 0 bytes, nothing to compare */
    cluster_bcast(head, sizeof head, "the scenario's digest");
    size_t sent = head[0] < SAME_TEXT_MAX ? (size_t)head[0] : SAME_TEXT_MAX;
    char *theirs = xmalloc(sent + 1);
    if (cluster_node() == 0 && sent)
        memcpy(theirs, mine, sent);
    if (sent)
        cluster_bcast(theirs, sent, "the scenario's text");
    if (cluster_node() != 0 && mine && head[0] && (head[0] != len || head[1] != same_hash(mine, len))) {
        same_diff(mine, len, theirs, sent, (size_t)head[0], note, sizeof note);
        gl_log("%s: every node stops (exit 2)", note);
        rc = EXIT_INPUT;
    }
    free(theirs);
    free(mine);
    char first[248];
    int worst = cluster_agree_note(rc, note[0] ? note : NULL, "the scenario", first, sizeof first);
    if (cluster_node() == 0 && first[0])
        gl_log("%s", first);
    return worst;
}
