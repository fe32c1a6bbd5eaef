/* harness/accept/accept_load.c: a run's results folder read for the acceptance checks — its summary, each rank's
 * GPU, GEMM rate, power samples per phase, throttle reasons, silent corruption found, NUMA placement. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accept_int.h"
#include "detectors/detector.h"
#include "phasecov.h"
#include "scenario.h"
#include "util.h"

void rundata_free(struct rundata *d)
{
    for (int i = 0; d->r && i < d->nranks; i++) {
        series_free(&d->r[i].compute_w);
        series_free(&d->r[i].comm_w);
    }
    free(d->r);
    free(d->node_busbw);
    json_decref(d->summary);
}

/* forward: nodes: the GPUs of the other nodes have no rows in node 0's power.csv; each node's end record has their
 * figures (nodes[].gpus[], computed there from every reading). */
static void load_node_gpus(struct rundata *d)
{
    json_t *nd, *g;
    size_t j, q;
    json_array_foreach(json_object_get(d->summary, "nodes"), j, nd)
        json_array_foreach(json_object_get(nd, "gpus"), q, g) {
            json_int_t rank = json_integer_value(json_object_get(g, "rank"));
            if (rank < 0 || rank >= d->nranks || d->r[rank].compute_n || d->r[rank].comm_n)
                continue;
            struct rankdata *r = &d->r[rank];
            r->end_record = 1;
            json_t *hi = json_object_get(g, "compute_p90_w"), *lo = json_object_get(g, "comm_p10_w");
            r->compute_p90_w = json_is_number(hi) ? json_number_value(hi) : NAN;
            r->comm_p10_w = json_is_number(lo) ? json_number_value(lo) : NAN;
            r->compute_n = (size_t)json_integer_value(json_object_get(g, "compute_n"));
            r->comm_n = (size_t)json_integer_value(json_object_get(g, "comm_n"));
            json_t *sp = json_object_get(g, "span_s");
            r->span_s = json_is_number(sp) ? json_number_value(sp) : NAN;
            /* reasons not there (or not a number) were not read: no pass (until 2026-11-30 they read as none) */
            const char *thr = json_string_value(json_object_get(g, "throttle"));
            char *end = NULL;
            unsigned long long bits = thr ? strtoull(thr, &end, 0) : 0;
            if (thr && end != thr && !*end) {
                r->throttle |= bits;
                r->throttle_rows += (int)json_integer_value(json_object_get(g, "throttle_rows"));
            }
        }
}

/* What each GPU's silent-corruption detectors compared, over every run: runs[].ranks[].sdc_checks of its node's
 * runs (node 0's the summary's own, another node's its nodes[] entry's). */
static void load_sdc_checks(struct rundata *d)
{
    json_t *nodes = json_object_get(d->summary, "nodes"), *nd, *run, *rk;
    for (int k = 0; k < d->nodes; k++) {
        json_t *runs = k == 0 ? json_object_get(d->summary, "runs") : NULL;
        size_t j, q, x;
        json_array_foreach(nodes, j, nd)
            if (k > 0 && json_is_integer(json_object_get(nd, "node")) && json_integer_value(json_object_get(nd, "node")) == k)
                runs = json_object_get(nd, "runs");
        json_array_foreach(runs, q, run)
            json_array_foreach(json_object_get(run, "ranks"), x, rk) {
                json_t *c = json_object_get(rk, "sdc_checks"), *rr = json_object_get(rk, "rank");
                int g = k * d->per_node + (int)json_integer_value(rr);
                if (!json_is_object(c) || !json_is_integer(rr) || json_integer_value(rr) < 0 ||
                    json_integer_value(rr) >= d->per_node)
                    continue;
                d->r[g].sdc_recorded = 1;
                for (int det = 0; det < DET_COUNT; det++) {
                    json_t *n = json_object_get(c, detector_table[det]->name);
                    if (json_is_integer(n) && json_integer_value(n) > 0)
                        d->r[g].sdc_checks[det] += json_integer_value(n);
                }
            }
    }
}

/* Whether detection event o is a silent-corruption detector's finding that nobody injected: the drill's own
 * corruption (matched to its injected fault: "origin": "injected") is fault_drill's to judge, not the screen's (until
 * 2026-11-30 it failed the GPU it was injected into). */
static int sdc_finding(json_t *o)
{
    const char *det = jstr(o, "detector", "");
    if (strcmp(det, "fingerprint") != 0 && strcmp(det, "abft") != 0 && strcmp(det, "replay") != 0)
        return 0;
    return strcmp(jstr(o, "origin", ""), "injected") != 0;
}

/* A corruption the detector found but could not pin on one GPU ("ranks disagree with no majority": 2 ranks, or 2 per
 * node): it counts against every GPU of its node, each note saying so. */
static void load_unnamed_sdc(struct rundata *d, json_t *o)
{
    const char *det = jstr(o, "detector", "");
    if (!sdc_finding(o))
        return;
    int node = (int)json_integer_value(json_object_get(o, "node"));   /* absent: node 0 */
    if (node < 0 || node >= d->nodes)
        node = 0;
    for (int g = node * d->per_node; g < (node + 1) * d->per_node && g < d->nranks; g++)
        if (!d->r[g].sdc++)
            snprintf(d->r[g].sdc_note, sizeof d->r[g].sdc_note, "%s at iteration %lld: %s (the detector could not name "
                     "one GPU: counted against every GPU of node %d)", det,
                     (long long)json_integer_value(json_object_get(o, "iter")), jstr(o, "note", ""), node);
}

/* power.csv's readings into cov, and each GPU's throttle reasons: 0, or -1 with why (a read error: what follows it
 * would be missing unsaid). A power.csv that cannot be opened is said in d->power_why: the power checks say so. */
static int load_power(const char *dir, struct rundata *d, struct phasecov *cov, char *why, size_t n)
{
    /* power.csv: t_s,rank,watts,phase,avg_w,energy_j,clock_mhz,temp_c,throttle,node,true_w,sample_t_s; a reading
     * is a phase's when the rank was in it over all the reading covers (the tick's phase column is not) */
    char path[1200], *line = NULL;
    size_t cap = 0;
    ssize_t len;
    snprintf(path, sizeof path, "%s/power.csv", dir);
    FILE *f = fopen(path, "re");
    if (!f) {   /* every run writes one: none is no reading, never "too few in the phases" */
        snprintf(d->power_why, sizeof d->power_why, "power.csv could not be read: %s", strerror(errno));
        return 0;
    }
    int first = 1;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (first || line[len - 1] != '\n') {   /* the header; a last row a kill cut short */
            first = 0;
            continue;
        }
        char *fld[12] = { 0 }, *p = line;
        int k = 0;
        for (; k < 12 && p; k++) {
            fld[k] = p;
            p = strchr(p, ',');
            if (p)
                *p++ = 0;
        }
        if (k < 9)
            continue;
        int rank = atoi(fld[1]);
        if (rank < 0 || rank >= d->nranks)
            continue;
        if (!*fld[2]) {   /* no reading: a gap, after which the next reading's span is not known */
            phasecov_reading(cov, rank, strtod(fld[0], NULL), NAN, NAN);
            continue;
        }
        struct rankdata *r = &d->r[rank];
        r->readings++;
        char *end;
        double stamp = k == 12 ? strtod(fld[11], &end) : NAN;
        if (k == 12 && end == fld[11])   /* empty: the source gives no stamp */
            stamp = NAN;
        phasecov_reading(cov, rank, strtod(fld[0], NULL), stamp, strtod(fld[2], NULL));
        fld[8][strcspn(fld[8], "\r\n")] = 0;
        char *tend;
        unsigned long long bits = strtoull(fld[8], &tend, 0);
        if (*fld[8] && !*tend) {   /* a field that is no number is no reading of the reasons */
            r->throttle |= bits;
            r->throttle_rows++;
        }
    }
    int bad = ferror(f), e = errno;   /* an error is no end of file (until 2026-11-30 the readings after it were lost) */
    fclose(f);
    free(line);
    if (bad)
        snprintf(why, n, "%s: read error: %s", path, strerror(e));
    return bad ? -1 : 0;
}

int load_run(const char *dir, struct rundata *d, char *why, size_t n)
{
    char path[1200];
    json_error_t err;
    memset(d, 0, sizeof *d);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    d->summary = json_load_file(path, 0, &err);
    if (!d->summary) {
        snprintf(why, n, "%s: %s", path, err.text);
        return -1;
    }
    d->per_node = (int)json_integer_value(json_object_get(d->summary, "ranks"));
    d->nranks = json_is_integer(json_object_get(d->summary, "ranks_total"))
                    ? (int)json_integer_value(json_object_get(d->summary, "ranks_total")) : d->per_node;
    d->run = json_array_get(json_object_get(d->summary, "runs"), 0);
    if (d->per_node <= 0 || d->nranks <= 0 || d->nranks > 65536) {
        snprintf(why, n, "%s: no ranks", path);
        return -1;
    }
    if (d->nranks % d->per_node != 0) {   /* whole nodes: a damaged summary's last GPUs would belong to none */
        snprintf(why, n, "%s: ranks_total %d is not a multiple of ranks %d (ranks per node): not a whole number of nodes",
                 path, d->nranks, d->per_node);
        return -1;
    }
    d->nodes = d->nranks / d->per_node;
    d->r = xcalloc((size_t)d->nranks, sizeof *d->r);
    d->node_busbw = xcalloc((size_t)d->nodes, sizeof *d->node_busbw);
    for (int i = 0; i < d->nranks; i++) {
        d->r[i].tdp_w = d->r[i].tflops = d->r[i].tflops_mean = d->r[i].h2d_gbs = d->r[i].span_s = NAN;
        d->r[i].node = i / d->per_node;
        d->r[i].idx = i % d->per_node;
        d->r[i].numa_node = -2;
        d->r[i].numa_pinned = -1;
    }
    /* each GPU's GEMM rate and each node's bus bandwidth: node 0's run, and (several nodes) every node's */
    json_t *nodes = json_object_get(d->summary, "nodes");
    for (int k = 0; k < d->nodes; k++) {
        json_t *run = k == 0 ? d->run : NULL, *nd;
        size_t j;
        json_array_foreach(nodes, j, nd)   /* an entry without its node is none's (it read as node 0's) */
            if (json_is_integer(json_object_get(nd, "node")) && json_integer_value(json_object_get(nd, "node")) == k)
                run = json_array_get(json_object_get(nd, "runs"), 0);
        json_t *bw = json_object_get(run, "busbw_gbs");
        d->node_busbw[k] = json_is_number(bw) ? json_number_value(bw) : NAN;
        json_t *rk, *ranks = json_object_get(run, "ranks");
        json_array_foreach(ranks, j, rk) {
            int g = k * d->per_node + (int)json_integer_value(json_object_get(rk, "rank"));
            json_t *t = json_object_get(rk, "tflops"), *tm = json_object_get(rk, "tflops_mean");
            if (g >= 0 && g < d->nranks && json_is_number(t))
                d->r[g].tflops = json_number_value(t);
            if (g >= 0 && g < d->nranks && json_is_number(tm))
                d->r[g].tflops_mean = json_number_value(tm);
        }
    }
    /* events: each GPU's model and TDP, and the silent-corruption detections */
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    struct phasecov *cov = phasecov_new(d->nranks);
    while (getline(&line, &cap, f) > 0) {
        json_t *o = json_loads(line, 0, &err);
        const char *ev = json_string_value(json_object_get(o, "event"));
        int rank = (int)json_integer_value(json_object_get(o, "rank"));
        if (ev && rank < 0 && strcmp(ev, "detection") == 0)
            load_unnamed_sdc(d, o);
        /* a phase a worker's death or a recovery ended without its phase_end: the rank's, or every rank of the
         * event's node (another node's lines come in as they arrive, not in time order with this node's) */
        int resets = phasecov_resets(ev);
        json_t *ts = json_object_get(o, "t_s");
        if (json_is_number(ts) && resets == 1 && json_is_integer(json_object_get(o, "rank")) && rank >= 0)
            phasecov_reset(cov, rank, json_number_value(ts));
        else if (json_is_number(ts) && resets == 2) {
            json_int_t node = json_integer_value(json_object_get(o, "node"));   /* absent: node 0 */
            for (json_int_t g = node * d->per_node; node >= 0 && node < d->nodes && g < (node + 1) * d->per_node; g++)
                phasecov_reset(cov, (int)g, json_number_value(ts));
        }
        if (ev && rank >= 0 && rank < d->nranks) {
            struct rankdata *r = &d->r[rank];
            int begin = strcmp(ev, "phase_begin") == 0;
            if (begin || strcmp(ev, "phase_end") == 0) {
                json_t *t = json_object_get(o, "t_s");
                phasecov_edge(cov, rank, json_is_number(t) ? json_number_value(t) : NAN, jstr(o, "phase", ""), begin);
            } else if (strcmp(ev, "ready") == 0) {   /* the host side: NUMA placement, the copy test */
                json_t *nn = json_object_get(o, "numa_node"), *np = json_object_get(o, "numa_pinned"),
                       *h = json_object_get(o, "h2d_gbs");
                if (json_is_integer(nn))
                    r->numa_node = (int)json_integer_value(nn);
                if (json_is_boolean(np))
                    r->numa_pinned = json_is_true(np);
                if (json_is_number(h))
                    r->h2d_gbs = json_number_value(h);
            } else if (strcmp(ev, "gpu") == 0) {
                str_copy(r->gpu, sizeof r->gpu, jstr(o, "name", ""));
                json_t *t = json_object_get(o, "tdp_w");
                r->tdp_w = json_is_number(t) ? json_number_value(t) : NAN;
            } else if (strcmp(ev, "detection") == 0) {
                const char *det = jstr(o, "detector", "");
                if (sdc_finding(o)) {
                    if (!r->sdc++)
                        snprintf(r->sdc_note, sizeof r->sdc_note, "%s at iteration %lld: %s", det,
                                 (long long)json_integer_value(json_object_get(o, "iter")),
                                 jstr(o, "note", ""));
                }
            }
        }
        json_decref(o);
    }
    int bad = ferror(f), e = errno;   /* an error is no end of file: a detection after it would go unseen */
    fclose(f);
    free(line);
    if (bad)
        snprintf(why, n, "%s: read error: %s", path, strerror(e));
    if (bad || load_power(dir, d, cov, why, n) != 0) {
        phasecov_free(cov);
        return -1;
    }
    phasecov_settle(cov);
    for (int i = 0; i < d->nranks; i++) {   /* the figures the checks judge, from the readings where power.csv has them */
        struct rankdata *r = &d->r[i];
        r->compute_w = *phasecov_series(cov, i, PHC_COMPUTE);   /* taken over: the coverage keeps none */
        r->comm_w = *phasecov_series(cov, i, PHC_COMM);
        *phasecov_series(cov, i, PHC_COMPUTE) = (struct series){ 0 };
        *phasecov_series(cov, i, PHC_COMM) = (struct series){ 0 };
        r->span_s = phasecov_span_s(cov, i);
        r->compute_n = r->compute_w.n;
        r->comm_n = r->comm_w.n;
        r->compute_p90_w = series_pct(&r->compute_w, 90);
        r->comm_p10_w = series_pct(&r->comm_w, 10);
    }
    phasecov_free(cov);
    load_node_gpus(d);
    load_sdc_checks(d);
    return 0;
}

int accept_names_ok(const struct scenario *s, int n)
{
    for (int i = 0; i < n; i++) {   /* each run's results go to DIR/<name>/: one name, one run */
        const char *nm = s[i].name;
        /* a name the suite's own files or folders take (until 2026-12-02 `name: verdicts.json` made a folder there:
         * no verdicts, and every later suite in that --out exit 3), or one a killed suite's recovery passes over */
        if (nm[0] == '.' || !strcmp(nm, "verdicts.json") || !strcmp(nm, "suite.json") || !strncmp(nm, "killed-", 7)) {
            gl_log("%s:%d:%d: name: '%s' is a name the suite's own files take (verdicts.json, suite.json, .suite.lock, "
                   "killed-*; or starts with '.'): expected another (the scenario's results folder)", s[i].file,
                   s[i].name_line, s[i].name_col, nm);
            return EXIT_INPUT;
        }
        for (int k = 0; k < i; k++)
            if (strcmp(nm, s[k].name) == 0) {
                gl_log("%s:%d:%d: name: '%s' is also the name of %s:%d:%d: each scenario of a suite needs a name of its "
                       "own (its results folder)", s[i].file, s[i].name_line, s[i].name_col, nm, s[k].file,
                       s[k].name_line, s[k].name_col);
                return EXIT_INPUT;
            }
    }
    return EXIT_OK;
}
