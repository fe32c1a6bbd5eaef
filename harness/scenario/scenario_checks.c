/* harness/scenario/scenario_checks.c: the rules that span keys (a fault that can never fire, a shrink with one rank,
 * a heartbeat shorter than its interval), checked once the whole scenario is read; each error names the key's
 * file:line:column. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "detectors/detector.h"
#include "faults/fault.h"
#include "mitigations/mitigation.h"
#include "recovery/recovery.h"
#include "scenario.h"
#include "scenario_int.h"
#include "util.h"

/* The node of dotted key path (a.b.c) under map, or map itself when a part is not there: an error about a key
 * given points at its line. */
yaml_node_t *sc_key_node(struct sc_ctx *c, yaml_node_t *map, const char *path)
{
    yaml_node_t *at = map;
    for (const char *p = path; *p;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        yaml_node_pair_t *found = NULL;
        if (at && at->type == YAML_MAPPING_NODE)
            for (yaml_node_pair_t *pair = at->data.mapping.pairs.start; pair < at->data.mapping.pairs.top; pair++) {
                const char *k = sc_scalar(yaml_document_get_node(c->doc, pair->key));
                if (k && strlen(k) == n && strncmp(k, p, n) == 0)
                    found = pair;
            }
        if (!found)
            return map;
        if (!dot)
            return yaml_document_get_node(c->doc, found->key);
        at = yaml_document_get_node(c->doc, found->value);
        p = dot + 1;
    }
    return map;
}

/* Checks rules that span keys. */
int sc_cross_checks(struct sc_ctx *c, yaml_node_t *root, struct scenario *sc)
{
    if (sc->workload.checkpoint.every > 0 && sc->workload.checkpoint.every > sc->iterations)
        gl_log("%s: note: workload.checkpoint.every (%" PRId64 ") exceeds iterations (%" PRId64 "): no checkpoint will be written",
               c->file, sc->workload.checkpoint.every, sc->iterations);
    for (int i = 0; i < sc->n_faults; i++) {   /* a fault that can never fire is an error, not a silent no-op */
        const struct fault_spec *f = &sc->faults[i];
        char key[48];
        if (f->rank >= sc->ranks * sc->nodes) {   /* global ranks: ranks on each of the nodes */
            snprintf(key, sizeof key, "faults[%d].rank", i);
            return sc_error_at(c, c->fault_rank[i], key, "rank %lld is out of range: the scenario has ranks 0..%lld%s",
                               (long long)f->rank, (long long)(sc->ranks * sc->nodes) - 1,
                               sc->nodes > 1 ? " (global: node x ranks + local rank)" : "");
        }
        if (f->at >= sc->iterations) {   /* at_s is not checked: how long a run takes is known only when it runs */
            snprintf(key, sizeof key, "faults[%d].at", i);
            return sc_error_at(c, c->fault_at[i], key, "iteration %lld is never reached: each run has iterations 0..%lld",
                               (long long)f->at, (long long)sc->iterations - 1);
        }
        if (fault_table[f->kind]->node && fault_table[f->kind]->node(f->params) >= sc->nodes) {
            snprintf(key, sizeof key, "faults[%d].node", i);
            /* node >= 1 can only have been given, so its mark is set */
            return sc_error_at(c, c->fault_node[i], key, "node %lld is out of range: the scenario has nodes 0..%lld",
                               (long long)fault_table[f->kind]->node(f->params), (long long)sc->nodes - 1);
        }
    }
    int rc = sc_workload_checks(c, root, sc);
    if (rc || (rc = sc_limit_checks(c, root, sc)) != 0)
        return rc;
    if (sc->auto_search && sc->n_mitigations > sc->search_budget)
        sc->n_mitigations = (int)sc->search_budget;
    if (c->budget_given && !sc->auto_search)   /* until 2026-11-30 taken and ignored */
        return sc_error_at(c, c->budget, "search_budget", "expected only with mitigations: auto (it bounds the "
                           "search's candidates), got it with a list of mitigations, each of which runs");
    int have_none = 0;   /* a battery sized from the measured swing needs a `none` run before it */
    for (int i = 0; i < sc->n_mitigations; i++) {
        const struct mitigation_ops *mo = mitigation_table[sc->mitigations[i].index];
        have_none |= strcmp(mo->name, "none") == 0;
        if (mo->size_share && mo->size_share(sc->mitigations[i].params) > 0 && !have_none) {
            snprintf(c->err, c->errlen, "%s:%d:1: mitigations[%d]: %s size is a share of the swing a `none` run "
                                        "measured: put `none` before it in the list", c->file, sc->mitigations[i].line, i,
                     mo->name);
            return EXIT_INPUT;
        }
        const char *pk = NULL;   /* a value the mitigation refuses (a cap at 0, or under idle: as a GPU would) */
        char mwhy[400];
        if (mitigation_check(sc->mitigations[i].index, sc->mitigations[i].params, &sc->sim, &pk, mwhy, sizeof mwhy) != 0) {
            snprintf(c->err, c->errlen, "%s:%d:1: mitigations[%d].%s: %s", c->file, sc->mitigations[i].line, i,
                     pk ? pk : mo->name, mwhy);
            return EXIT_INPUT;
        }
    }
    const char *abft_key = sc->workload.gemm.m < 3 ? "workload.gemm.m" : "sim.max_dim";
    if (sc->workload.gemm.m < 3 && sc_key_node(c, root, abft_key) == root)   /* a step's GEMM: the steps' line */
        abft_key = sc_key_node(c, root, "workload.phases") != root ? "workload.phases" : "workload";
    if (scenario_detector_on(sc, DET_ABFT) && (sc->workload.gemm.m < 3 || sc->sim.max_dim < 3))
        return sc_error(c, sc_key_node(c, root, abft_key), abft_key,
                        "abft needs at least 3 rows in the GEMM (its last 2 carry the checksum), got %ld",
                        (long)(sc->workload.gemm.m < 3 ? sc->workload.gemm.m : sc->sim.max_dim));
    /* the modelled sensor works its updates out from sub-samples 0.1 ms apart and keeps its last SENSOR_WINDOWS
     * updates for a reading delayed by its lag (harness/backends/sim/simpower.c) */
    if (sc->sim.sensor.update_s > 0 && sc->sim.sensor.update_s < 1e-3)
        return sc_error(c, sc_key_node(c, root, "sim.sensor.update"), "sim.sensor.update",
                        "expected 0 (no sensor: the electrical power itself) or at least 1ms, got %gms",
                        sc->sim.sensor.update_s * 1e3);
    if (sc->sim.sensor.update_s == 0 && sc->sim.sensor.lag_s > 0)   /* no readings to delay: it would do nothing */
        return sc_error(c, sc_key_node(c, root, "sim.sensor.lag"), "sim.sensor.lag",
                        "expected 0 with sim.sensor.update 0 (no sensor: the electrical power itself, read as it is), "
                        "got %gms", sc->sim.sensor.lag_s * 1e3);
    if (sc->sim.sensor.update_s == 0 && sc->sim.sensor.mode == SENSOR_POINT)
        return sc_error(c, sc_key_node(c, root, "sim.sensor.mode"), "sim.sensor.mode",
                        "expected mean with sim.sensor.update 0 (no sensor: the electrical power itself, read as it is), "
                        "got point");
    if (sc->sim.sensor.update_s > 0 && sc->sim.sensor.lag_s > 32 * sc->sim.sensor.update_s)
        return sc_error(c, sc_key_node(c, root, "sim.sensor.lag"), "sim.sensor.lag",
                        "expected at most 32 updates (%gms), got %gms", 32e3 * sc->sim.sensor.update_s,
                        sc->sim.sensor.lag_s * 1e3);
    if (recovery_table[sc->recovery.index]->drops_failed && sc->ranks * sc->nodes < 2)
        return sc_error(c, sc_key_node(c, root, "recovery"), "recovery",
                        "shrink needs at least 2 ranks in all (ranks x nodes), got %lld", (long long)(sc->ranks * sc->nodes));
    const struct recovery_ops *ro = recovery_table[sc->recovery.index];
    if (ro->replicas && scenario_sdc_lag(sc) > 0) {   /* the ring must still hold one from before a corruption found late */
        int64_t every = ((const struct replica_params *)sc->recovery.params)->replicate_every, lag = scenario_sdc_lag(sc);
        /* a rank writes a replica before it reports the iteration: the oldest it keeps must be checked by then */
        if (every * (RECOVERY_REPLICA_SLOTS - 1) < lag + 2)
            return sc_error(c, sc_key_node(c, root, "recovery"), "recovery",
                            "%s keeps %d replicas %lld iteration(s) apart, and the detectors may find a corruption %lld "
                            "iterations after it entered (their window): no replica would be from before it; expected "
                            "replicate_every >= %lld", ro->name, RECOVERY_REPLICA_SLOTS, (long long)every, (long long)lag,
                            (long long)((lag + 2 + RECOVERY_REPLICA_SLOTS - 2) / (RECOVERY_REPLICA_SLOTS - 1)));
    }
    if (scenario_ckpt_gens_needed(sc) > 16)   /* CKPT_GENS_MAX: fewer would roll a corruption back to the start */
        return sc_error(c, sc_key_node(c, root, "workload.checkpoint.every"), "workload.checkpoint.every",
                        "restart under a fingerprint of %d slices needs a checkpoint from %d iterations before each "
                        "finding: every %lld keeps %lld generations per rank, more than 16; expected every >= %d",
                        scenario_sdc_lag(sc) + 1, scenario_sdc_lag(sc), (long long)sc->workload.checkpoint.every,
                        (long long)scenario_ckpt_gens_needed(sc), (scenario_sdc_lag(sc) + 12) / 13);
    if (sc->power.sample_hz > 0 && sc->power.sample_hz < 1)   /* a period of hours is no sampler's */
        return sc_error(c, sc_key_node(c, root, "power.sample_hz"), "power.sample_hz",
                        "expected 0 (no sampling) or at least 1 Hz, got %g", sc->power.sample_hz);
    if (sc->power.forward_hz > 0 && sc->power.forward_hz < 1)   /* as sample_hz: a row a day is no forwarding */
        return sc_error(c, sc_key_node(c, root, "power.forward_hz"), "power.forward_hz",
                        "expected 0 or at least 1 Hz, got %g", sc->power.forward_hz);
    if (sc->power.sample_hz == 0) {   /* a check of power without readings would FAIL every GPU as sensorless */
        static const char *const need[] = { "checks.power_under_load", "checks.power_swing", "checks.throttle" };
        const int on[] = { sc->checks.power_under_load.on, sc->checks.power_swing.on, sc->checks.throttle.on };
        for (int i = 0; i < 3; i++)
            if (on[i])
                return sc_error(c, sc_key_node(c, root, need[i]), need[i], "needs power readings, and power.sample_hz "
                                "is 0 (no sampling): give power.sample_hz, or leave the check out");
    }
    /* the longer of the two is the limit: a shorter checkpoint silence did nothing (until 2026-12-02 taken and
     * ignored); at its default, 120 s, it is what every scenario.yaml written back until then holds: read as it was */
    if (sc_key_node(c, root, "heartbeat.checkpoint") != root && sc->heartbeat.checkpoint_s < sc->heartbeat.timeout_s &&
        sc->heartbeat.checkpoint_s != 120)
        return sc_error(c, sc_key_node(c, root, "heartbeat.checkpoint"), "heartbeat.checkpoint",
                        "expected at least heartbeat.timeout (%g s): a rank writing a checkpoint is never judged on "
                        "less, got %g s", sc->heartbeat.timeout_s, sc->heartbeat.checkpoint_s);
    if (sc->heartbeat.checkpoint_s < sc->heartbeat.timeout_s)
        sc->heartbeat.checkpoint_s = sc->heartbeat.timeout_s;   /* the limit the run keeps, as scenario.yaml says it */
    if (sc->projection.groups > sc->projection.gpus)   /* as analyze's --groups: never clamped without a word */
        return sc_error(c, sc_key_node(c, root, "projection.groups"), "projection.groups",
                        "expected at most projection.gpus (%lld) groups, got %lld", (long long)sc->projection.gpus,
                        (long long)sc->projection.groups);
    /* a band past half the sampling rate has no bin on the grid: its share would never be judged */
    if (sc->projection.spec.max_band_share > 0 && sc->power.sample_hz > 0 &&
        sc->projection.spec.band_hi_hz > sc->power.sample_hz / 2) {
        yaml_node_t *at = sc_key_node(c, root, "projection.spec.band");   /* the band, or the clause of the default */
        return sc_error(c, at != root ? at : sc_key_node(c, root, "projection.spec.max_band_share"), "projection.spec.band",
                        "expected a band whose top is at most half power.sample_hz (%g Hz) for max_band_share to be "
                        "judged, got [%g, %g] Hz: raise power.sample_hz to at least %g, or lower the band",
                        sc->power.sample_hz / 2, sc->projection.spec.band_lo_hz, sc->projection.spec.band_hi_hz,
                        2 * sc->projection.spec.band_hi_hz);
    }
    if (sc->heartbeat.timeout_s <= sc->heartbeat.interval_s) {   /* named where the file gives it: an interval past
                                                                   * the default timeout is the interval's line */
        int given = sc_key_node(c, root, "heartbeat.timeout") != root;
        const char *key = given ? "heartbeat.timeout" : "heartbeat.interval";
        return sc_error(c, sc_key_node(c, root, key), key, given ? "expected longer than heartbeat.interval (%g s), got "
                        "%g s: every rank would be hung between two beats" : "expected shorter than heartbeat.timeout "
                        "(%2$g s, the default), got %1$g s: every rank would be hung between two beats",
                        sc->heartbeat.interval_s, sc->heartbeat.timeout_s);
    }
    for (const char *p = sc->name; *p; p++)
        if (!(((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
               *p == '_' || *p == '.')))
            return sc_error(c, sc_key_node(c, root, "name"), "name", "expected letters, digits, '-', '_' or '.' (it names a folder), got '%s'",
                            sc->name);
    if (strcmp(sc->name, ".") == 0 || strcmp(sc->name, "..") == 0)
        return sc_error(c, sc_key_node(c, root, "name"), "name", "expected a folder name other than '.' and '..' (the run's "
                        "files would land in the results folder itself or its parent), got '%s'", sc->name);
    return 0;
}

const char *scenario_fault_kind(const struct scenario *sc, int i)
{
    return i >= 0 && i < sc->n_faults ? fault_table[sc->faults[i].kind]->name : "?";
}

int scenario_check_fault_ranks(const struct scenario *sc, const char *why_changed, char *err, size_t n)
{
    for (int i = 0; i < sc->n_faults; i++) {
        const struct fault_spec *f = &sc->faults[i];
        const struct fault_ops *ops = fault_table[f->kind];
        if (f->rank >= sc->ranks * sc->nodes) {
            snprintf(err, n, "%s:%d:%d: faults[%d].rank: rank %lld is out of range: the run has ranks 0..%lld (%s), so "
                             "this %s would never fire", sc->file, f->rank_line ? f->rank_line : f->line, f->rank_line ? f->rank_col : 1,
                     i, (long long)f->rank, (long long)(sc->ranks * sc->nodes) - 1, why_changed, ops->name);
            return EXIT_INPUT;
        }
        if (ops->node && ops->node(f->params) >= sc->nodes) {
            snprintf(err, n, "%s:%d:%d: faults[%d].node: node %lld is out of range: the run has nodes 0..%lld (%s), so "
                             "this %s would never fire", sc->file, f->node_line ? f->node_line : f->line, f->node_line ? f->node_col : 1,
                     i, (long long)ops->node(f->params), (long long)sc->nodes - 1, why_changed, ops->name);
            return EXIT_INPUT;
        }
    }
    return 0;
}

/* Appends " key=value" for each parameter of spec a in which another entry of the same mitigation differs from it,
 * while the label stays short enough for a shape's " [name]" after it. */
static void sc_label_one(struct scenario *sc, int a, char *label, size_t n)
{
    const struct plugin_spec *m = &sc->mitigations[a];
    const struct param *table = plugin_mitigations.table[m->index]->params;
    size_t used = (size_t)snprintf(label, n, "%s", m->name);
    for (const struct param *p = table; p && p->name; p++) {
        char va[64], vb[64];
        int differs = 0;
        param_format(p, m->params, va, sizeof va);
        for (int b = 0; b < sc->n_mitigations && !differs; b++)
            if (b != a && sc->mitigations[b].index == m->index) {
                param_format(p, sc->mitigations[b].params, vb, sizeof vb);
                differs = strcmp(va, vb) != 0;
            }
        int len = differs ? snprintf(NULL, 0, " %s=%s", p->name, va) : 0;
        if (len > 0 && used + (size_t)len < n - 16)   /* room left for " [shape]" */
            used += (size_t)snprintf(label + used, n - used, " %s=%s", p->name, va);
    }
}

/* Whether entry a's label (its name when it has none) is that of an entry before it. */
static int sc_label_taken(const struct scenario *sc, char (*label)[sizeof sc->mitigations[0].label], int a)
{
    const char *mine = label[a][0] ? label[a] : sc->mitigations[a].name;
    for (int b = 0; b < a; b++)
        if (strcmp(label[b][0] ? label[b] : sc->mitigations[b].name, mine) == 0)
            return 1;
    return 0;
}

void sc_label_repeats(struct scenario *sc)
{
    /* until 2026-11-30 a sweep's entries were labelled by their swept value alone and the rest only among
     * themselves: an entry repeating a sweep's value kept no label and took the sweep's once written back, and
     * entries alike, or told apart by a parameter the label had no room for, shared one */
    char label[SC_MAX_MITIGATIONS][sizeof sc->mitigations[0].label];
    for (int a = 0; a < sc->n_mitigations; a++) {
        int repeated = 0;
        for (int b = 0; b < sc->n_mitigations && !repeated; b++)
            repeated = b != a && sc->mitigations[b].index == sc->mitigations[a].index;
        label[a][0] = '\0';
        if (repeated)
            sc_label_one(sc, a, label[a], sizeof label[a]);
        if (!strchr(label[a], '='))   /* alike in every parameter: named by the mitigation alone */
            label[a][0] = '\0';
    }
    for (int a = 0; a < sc->n_mitigations; a++) {   /* still alike: " #2", " #3" in the order given */
        char base[sizeof label[a]];
        str_copy(base, sizeof base, label[a][0] ? label[a] : sc->mitigations[a].name);
        for (int k = 2; sc_label_taken(sc, label, a) && k <= SC_MAX_MITIGATIONS + 1; k++) {
            char tail[8];
            int tl = snprintf(tail, sizeof tail, " #%d", k);
            size_t keep = strlen(base);
            while (keep + (size_t)tl >= sizeof label[a] - 16 && strrchr(base, ' '))   /* a parameter less: room */
                keep = (size_t)(strrchr(base, ' ') - base), base[keep] = '\0';
            snprintf(label[a], sizeof label[a], "%s%s", base, tail);
        }
    }
    for (int a = 0; a < sc->n_mitigations; a++)
        str_copy(sc->mitigations[a].label, sizeof sc->mitigations[a].label, label[a]);
}

const char *const scenario_keypos_names[SC_KEYPOS_N] = { "sim.tflops", "sim.busbw", "sim.mem_bw", "sim.speedup",
                                                          "workload.allreduce.emulate_busbw", "sim.max_elems" };

int scenario_key_at(const struct scenario *sc, const char *key, int *line, int *col)
{
    for (int k = 0; k < SC_KEYPOS_N; k++)
        if (strcmp(key, scenario_keypos_names[k]) == 0 && sc->keypos[k].line > 0) {
            *line = sc->keypos[k].line;
            *col = sc->keypos[k].col;
            return 1;
        }
    return 0;
}
