/* harness/report/report_curve.c: the trade-off curves of `gauntlet report` — which runs sweep a parameter (their labels,
 * else scenario.yaml's parameters), their values in order, and each curve as a table (swing left, swing removed,
 * energy and time paid, what the energy bought) and as two SVG panels (swing left against energy paid and against
 * time paid, value by value, with none's point, the spec's limit and the search's pick). */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "param.h"
#include "report_int.h"
#include "util.h"

/* Appends len bytes of s to the string buf of size n; -1 when they do not fit. */
static int rp_cat(char *buf, size_t n, const char *s, size_t len)
{
    size_t used = strlen(buf);
    if (used + len >= n)
        return -1;
    memcpy(buf + used, s, len);
    buf[used + len] = '\0';
    return 0;
}

/* Appends a scalar's text to buf; -1 when node is not a scalar or does not fit. */
static int rp_scalar(yaml_node_t *node, char *buf, size_t n)
{
    return node && node->type == YAML_SCALAR_NODE ? rp_cat(buf, n, (const char *)node->data.scalar.value, node->data.scalar.length) : -1;
}

/* Fills run r's parameters ("key=value\n" each) from entry e of scenario.yaml's mitigations when e names r's
 * mitigation and every value is a scalar (as every mitigation's parameters are). */
static void rp_entry(yaml_document_t *doc, yaml_node_t *e, struct rp_run *r)
{
    yaml_node_t *params = NULL;
    char name[64] = "";
    if (e->type == YAML_MAPPING_NODE && e->data.mapping.pairs.top - e->data.mapping.pairs.start == 1) {
        params = yaml_document_get_node(doc, e->data.mapping.pairs.start->value);
        e = yaml_document_get_node(doc, e->data.mapping.pairs.start->key);
    }
    if (rp_scalar(e, name, sizeof name) != 0 || strcmp(name, r->mitigation) != 0)
        return;
    int rc = params && params->type != YAML_MAPPING_NODE;
    r->params[0] = '\0';
    for (yaml_node_pair_t *p = params && !rc ? params->data.mapping.pairs.start : NULL; p && p < params->data.mapping.pairs.top; p++)
        rc |= rp_scalar(yaml_document_get_node(doc, p->key), r->params, sizeof r->params) |
              rp_cat(r->params, sizeof r->params, "=", 1) |
              rp_scalar(yaml_document_get_node(doc, p->value), r->params, sizeof r->params) |
              rp_cat(r->params, sizeof r->params, "\n", 1);
    r->params_known = rc == 0;
}

/* Reads each run's parameters from scenario.yaml's mitigations (the scenario as run, every value filled in; under
 * workload.shapes each entry once, its runs shape after shape); a run it does not list (a search's refinement, added
 * later) keeps them unknown. */
void rp_params(const char *dir, struct rp_run *runs, int n)
{
    FILE *f = rp_open(dir, "scenario.yaml", "the runs of a sweep are told apart by their labels alone");
    if (!f)
        return;
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        fprintf(stderr, "gauntlet report: libyaml: cannot start a parser (out of memory)\n");
        rp_done(f, dir, "scenario.yaml");
        return;
    }
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &doc)) {
        fprintf(stderr, "gauntlet report: %s/scenario.yaml:%zu: %s; the runs of a sweep are told apart by their "
                        "labels alone\n", dir, parser.problem_mark.line + 1, parser.problem ? parser.problem : "unreadable");
        yaml_parser_delete(&parser);
        rp_done(f, dir, "scenario.yaml");
        return;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc), *list = NULL;
    for (yaml_node_pair_t *p = root && root->type == YAML_MAPPING_NODE ? root->data.mapping.pairs.start : NULL;
         p && p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, "mitigations") == 0)
            list = yaml_document_get_node(&doc, p->value);
    }
    json_int_t entries = list && list->type == YAML_SEQUENCE_NODE ? list->data.sequence.items.top - list->data.sequence.items.start : 0;
    for (int i = 0; i < n && entries > 0; i++) {
        json_int_t e = runs[i].shape[0] ? runs[i].index % entries : runs[i].index;   /* run = shape x entries + entry */
        if (runs[i].index >= 0 && e < entries)
            rp_entry(&doc, yaml_document_get_node(&doc, list->data.sequence.items.start[e]), &runs[i]);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    rp_done(f, dir, "scenario.yaml");
}

/* Returns the value of key in params ("key=value\n" each), up to its newline; NULL when it is not there. */
static const char *rp_param(const char *params, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = params; *p; p = strchr(p, '\n') + 1)   /* every line ends with a newline */
        if (strncmp(p, key, kl) == 0 && p[kl] == '=')
            return p + kl + 1;
    return NULL;
}

/* Returns how many parameters a and b (of one mitigation, in one order) differ in, the last in key; -1 when their
 * names differ. */
static int rp_diff(const char *a, const char *b, char *key, size_t n)
{
    int d = 0;
    for (; *a && *b; a = strchr(a, '\n') + 1, b = strchr(b, '\n') + 1) {
        size_t ka = strcspn(a, "="), la = strcspn(a, "\n");
        if (ka != strcspn(b, "=") || strncmp(a, b, ka) != 0)
            return -1;
        if (la != strcspn(b, "\n") || strncmp(a, b, la) != 0)
            d++, snprintf(key, n, "%.*s", (int)ka, a);
    }
    return *a || *b ? -1 : d;
}

/* Finds what run i sweeps: its label's "MITIGATION KEY=VALUE" (without the " [SHAPE]" of its shape), else the one
 * parameter in which it alone differs from another run of its mitigation (scenario.yaml); 0, or -1 when it sweeps
 * nothing. */
static int rp_swept(struct rp_run *runs, int n, int i)
{
    struct rp_run *r = &runs[i];
    size_t m = strlen(r->mitigation), nl;
    const char *v;
    char name[sizeof r->name], tail[sizeof r->shape + 3];
    if (strcmp(r->mitigation, "none") == 0)
        return -1;
    str_copy(name, sizeof name, r->name);
    snprintf(tail, sizeof tail, " [%s]", r->shape);
    nl = strlen(name);
    if (r->shape[0] && nl > strlen(tail) && strcmp(name + nl - strlen(tail), tail) == 0)
        name[nl - strlen(tail)] = '\0';
    char *num = strrchr(name, '#');   /* entries alike are numbered (`filler floor=50% #2`): the value is before it */
    if (num && num > name && num[-1] == ' ' && num[1] && strspn(num + 1, "0123456789") == strlen(num + 1))
        num[-1] = '\0';
    if (m + 1 < sizeof name && strncmp(name, r->mitigation, m) == 0 && name[m] == ' ') {
        const char *k = name + m + 1, *eq = strchr(k, '=');
        size_t kl = eq ? (size_t)(eq - k) : 0;
        if (kl > 0 && kl < sizeof r->key && !memchr(k, ' ', kl) && !strchr(eq + 1, '=')) {
            snprintf(r->key, sizeof r->key, "%.*s", (int)kl, k);
            return str_copy(r->value, sizeof r->value, eq + 1);
        }
    }
    for (int j = 0; j < n && r->params_known; j++)
        if (j != i && runs[j].params_known && strcmp(runs[j].mitigation, r->mitigation) == 0 &&
            rp_diff(r->params, runs[j].params, r->key, sizeof r->key) == 1 && (v = rp_param(r->params, r->key)))
            return snprintf(r->value, sizeof r->value, "%.*s", (int)strcspn(v, "\n"), v) < (int)sizeof r->value ? 0 : -1;
    return -1;
}

/* Copies run r's parameters other than key into out; 0, or -1 when they are unknown. */
static int rp_others(const struct rp_run *r, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    out[0] = '\0';
    if (!r->params_known)
        return -1;
    for (const char *p = r->params, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');   /* every line of params ends with one */
        if ((strncmp(p, key, kl) != 0 || p[kl] != '=') && rp_cat(out, n, p, (size_t)(nl - p + 1)) != 0)
            return -1;
    }
    return 0;
}

/* Returns a swept value as a number and its kind in *unit (0 plain, '%', 'W', 's', 'B'); NAN when it is none. */
static double rp_number(const char *s, int *unit)
{
    double d;
    uint64_t b;
    struct power_value p;
    if (parse_double(s, &d) == 0)
        return *unit = 0, d;
    if (parse_power(s, &p) == 0)
        return *unit = p.percent ? '%' : 'W', p.value;
    if (parse_duration(s, &d) == 0)
        return *unit = 's', d;
    if (parse_size(s, &b) == 0)
        return *unit = 'B', (double)b;
    return NAN;
}

/* Orders a curve's runs by value when every value reads as a number of one kind; else keeps the run order. */
static void rp_sort(struct rp_curve *c)
{
    double v[RP_MAX_RUNS];
    int unit = 0, first = 0;
    for (int k = 0; k < c->n; k++) {
        v[k] = rp_number(c->value[k], k ? &unit : &first);
        if (isnan(v[k]) || (k && unit != first))
            return;
    }
    for (int k = 1; k < c->n; k++)   /* insertion: equal values keep their order */
        for (int j = k; j > 0 && v[j - 1] > v[j]; j--) {
            double tv = v[j];
            int tr = c->run[j];
            const char *ts = c->value[j];
            v[j] = v[j - 1], c->run[j] = c->run[j - 1], c->value[j] = c->value[j - 1];
            v[j - 1] = tv, c->run[j - 1] = tr, c->value[j - 1] = ts;
        }
}

/* Finds the sweeps: runs of one mitigation on one shape that sweep the same parameter with distinct values, their
 * other parameters alike (as far as scenario.yaml tells); fills cv with those of two runs or more, each with the none
 * of its own shape (a curve, a row or a slope never mixes two shapes). */
int rp_curves(struct rp_run *runs, int n, struct rp_curve *cv)
{
    int nc = 0, kept = 0;
    for (int i = 0; i < n; i++) {
        char others[RP_PARAMS];
        if (runs[i].disturbed || runs[i].cut || rp_swept(runs, n, i) != 0)   /* its figures are not its value's */
            continue;
        int known = rp_others(&runs[i], runs[i].key, others, sizeof others) == 0, c = 0;
        for (; c < nc; c++) {
            int fits = strcmp(cv[c].mitigation, runs[i].mitigation) == 0 && strcmp(cv[c].key, runs[i].key) == 0 &&
                       strcmp(cv[c].shape, runs[i].shape) == 0 &&
                       !(known && cv[c].others_known && strcmp(cv[c].others, others) != 0);
            for (int k = 0; fits && k < cv[c].n; k++)
                fits = strcmp(cv[c].value[k], runs[i].value) != 0;   /* a value seen again: another sweep */
            if (fits)
                break;
        }
        if (c == nc) {   /* a new curve (cv is zeroed) */
            cv[nc].mitigation = runs[i].mitigation;
            cv[nc].shape = runs[i].shape;
            str_copy(cv[nc++].key, sizeof cv[c].key, runs[i].key);
        }
        if (known && !cv[c].others_known) {
            str_copy(cv[c].others, sizeof cv[c].others, others);
            cv[c].others_known = 1;
        }
        cv[c].value[cv[c].n] = runs[i].value;
        cv[c].run[cv[c].n++] = i;
    }
    for (int c = 0; c < nc; c++)
        if (cv[c].n >= 2) {
            if (kept != c)
                cv[kept] = cv[c];
            cv[kept].base = -1;
            for (int pass = 0; pass < 2 && cv[kept].base < 0; pass++)   /* the first none left alone; else the first */
                for (int i = 0; i < n && cv[kept].base < 0; i++)
                    if (strcmp(runs[i].mitigation, "none") == 0 && strcmp(runs[i].shape, cv[kept].shape) == 0 &&
                        !runs[i].cut && (pass || !runs[i].disturbed))   /* never a part of a run */
                        cv[kept].base = i;
            rp_sort(&cv[kept++]);
        }
    return kept;
}

/* Returns a field of run's comparison with none, NAN when missing. */
static double rp_vs(json_t *run, const char *field)
{
    return rp_fig(json_object_get(json_object_get(run, "vs_none"), field));
}

/* Returns 1 when every run of the curve and the baseline have a projected cluster swing (then drawn in MW). */
static int rp_mw(const struct rp_run *runs, int base, const struct rp_curve *c)
{
    int ok = base < 0 || !isnan(rp_swing(runs[base].summary, 1));
    for (int k = 0; ok && k < c->n; k++)
        ok = !isnan(rp_swing(runs[c->run[k]].summary, 1));
    return ok;
}

/* Returns 1 when label is the search's `what`: a member of its list (pareto) or its pick (cheapest_passing). */
static int rp_search_has(json_t *search, const char *what, const char *label)
{
    json_t *v = json_object_get(search, what), *e;
    size_t i;
    const char *l = json_string_value(json_object_get(v, "label"));
    json_array_foreach(v, i, e)
        if (!l && json_is_string(json_object_get(e, "label")) && strcmp(json_string_value(json_object_get(e, "label")), label) == 0)
            l = label;
    return l && strcmp(l, label) == 0;
}

/* Writes each curve as a table: value, swing left, swing removed, energy and time paid, and what the energy bought:
 * swing removed per extra percentage point of energy against the next row cheaper by a point at least (a smaller
 * step is noise); names a search's picks. */
void rp_curve_table(FILE *f, const struct rp_run *runs, const struct rp_curve *cv, int nc, json_t *search)
{
    for (int c = 0; c < nc; c++) {
        int base = cv[c].base, mw = rp_mw(runs, base, &cv[c]), row[RP_MAX_RUNS + 1], m = 0;
        double y[RP_MAX_RUNS + 1], e[RP_MAX_RUNS + 1];
        json_t *gpus = json_object_get(json_object_get(json_object_get(json_object_get(runs[cv[c].run[0]].summary, "power"),
                                                                       "aggregate"), "projection"), "gpus");
        fprintf(f, "\ntrade-off: %s %s%s%s%s, %d values; swing left: ", cv[c].mitigation, cv[c].key,
                cv[c].shape[0] ? " [" : "", cv[c].shape, cv[c].shape[0] ? "]" : "", cv[c].n);
        if (mw)
            fprintf(f, "the projected cluster's (%" JSON_INTEGER_FORMAT " GPUs), MW\n", json_integer_value(gpus));
        else
            fprintf(f, "the node's, p99 - p1, W\n");
        fprintf(f, "  %-12s %10s %8s %9s %8s %15s\n", cv[c].key, mw ? "swing_MW" : "swing_W", "swing-%", "energy+%",
                "time+%", mw ? "MW_per_%energy" : "W_per_%energy");
        if (base >= 0)
            row[m++] = base;
        for (int k = 0; k < cv[c].n; k++)
            row[m++] = cv[c].run[k];
        for (int i = 0; i < m; i++) {
            y[i] = rp_swing(runs[row[i]].summary, mw);
            e[i] = rp_vs(runs[row[i]].summary, "energy_overhead_pct");
        }
        for (int i = 0; i < m; i++) {
            json_t *r = runs[row[i]].summary;
            int cheaper = -1, pareto = rp_search_has(search, "pareto", runs[row[i]].name);
            int best = rp_search_has(search, "cheapest_passing", runs[row[i]].name);
            for (int j = 0; j < m; j++)
                if (e[j] <= e[i] - 1 && isfinite(y[j]) && (cheaper < 0 || e[j] > e[cheaper]))
                    cheaper = j;
            char a[5][32];
            fprintf(f, "  %-12s %10s %8s %9s %8s %15s%s%s%s\n", row[i] == base ? "none" : cv[c].value[i - (base >= 0)],
                    rp_fmt(a[0], 32, mw ? "%.2f" : "%.0f", y[i]),
                    rp_fmt(a[1], 32, "%.1f", rp_vs(r, mw ? "grid_swing_reduction_pct" : "swing_reduction_pct")),
                    rp_fmt(a[2], 32, "%.1f", e[i]), rp_fmt(a[3], 32, "%.1f", rp_vs(r, "iteration_overhead_pct")),
                    rp_fmt(a[4], 32, mw ? "%.3f" : "%.1f", cheaper < 0 ? NAN : (y[cheaper] - y[i]) / (e[i] - e[cheaper])),
                    pareto || best ? "  " : "", pareto ? "pareto" : "", best ? (pareto ? ", cheapest passing" : "cheapest passing") : "");
        }
    }
}

/* Returns a step of 1, 2 or 5 times a power of ten near raw (for axis ticks). */
double rp_step(double raw)
{
    if (!(raw > 0) || !isfinite(raw))
        return 1;
    double e = pow(10, floor(log10(raw))), m = raw / e, step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * e;
    return step > 0 && isfinite(step) ? step : 1;   /* e of a subnormal raw may be 0 */
}

/* Returns the spec's limit on the projected cluster's range (MW) in run's projection, or NAN. */
static double rp_limit(json_t *run)
{
    json_t *cl, *spec = json_object_get(json_object_get(json_object_get(json_object_get(run, "power"), "aggregate"),
                                                        "projection"), "spec");
    size_t i;
    json_array_foreach(json_object_get(spec, "clauses"), i, cl)
        if (json_is_string(json_object_get(cl, "clause")) &&
            strcmp(json_string_value(json_object_get(cl, "clause")), "dynamic_range_mw") == 0)
            return rp_fig(json_object_get(cl, "limit"));
    return NAN;
}

/* What one panel of a curve draws: the points in order, the baseline, the scale of swing. */
struct rp_pts {
    int n, best;             /* best: the search's cheapest passing point, or -1 */
    const char *const *value;
    double x[RP_MAX_RUNS], y[RP_MAX_RUNS], xb, yb, top, limit;
    const char *unit;        /* of the swing: "MW" or "W" */
};

/* Draws one panel at (px, py): swing left against one overhead; points joined in order and labelled. */
static void rp_panel(FILE *f, double px, double py, const struct rp_pts *p, const char *field, const char *what)
{
    const double w = RP_W / 2.0 - 85, h = 170, x0 = px + 65;
    double lo = isfinite(p->xb) ? fmin(0, p->xb) : 0, hi = isfinite(p->xb) ? fmax(0, p->xb) : 0;
    int drawn = 0;
    for (int k = 0; k < p->n; k++)
        if (isfinite(p->x[k]) && isfinite(p->y[k])) {
            lo = fmin(lo, p->x[k]);
            hi = fmax(hi, p->x[k]);
            drawn++;
        }
    if (hi - lo < 5) {   /* a span of 5 points at least: a cost lost in noise stays near 0 */
        double mid = (lo + hi) / 2;
        lo = mid - 2.5, hi = mid + 2.5;
    }
    lo -= 0.08 * (hi - lo), hi += 0.08 * (hi - lo);
#define RP_SX(v) (x0 + ((v) - lo) / (hi - lo) * w)
#define RP_SY(v) (py + h * (1 - (v) / p->top))
    fprintf(f, "<g class=\"tradeoff-panel\" data-x=\"%s\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
               "fill=\"none\" stroke=\"#cccccc\"/>\n", field, x0, py, w, h);
    double sx = rp_step((hi - lo) / 5), sy = rp_step(p->top / 5);
    for (int k = 0, nt = rp_ticks(ceil(lo / sx) * sx, hi, sx, RP_TICKS_MAX); k < nt; k++) {   /* bounded, whatever p */
        double t = ceil(lo / sx) * sx + k * sx;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"middle\" fill=\"#888\">%g%%</text>\n", RP_SX(t), py, RP_SX(t), py + h,
                fabs(t) < sx * 1e-6 ? "#999999" : "#eeeeee", RP_SX(t), py + h + 14, fabs(t) < sx * 1e-6 ? 0 : t);
    }
    for (int k = 0, nt = rp_ticks(0, p->top, sy, RP_TICKS_MAX); k < nt; k++)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#888\">%g</text>\n", x0 - 4,
                RP_SY(k * sy) + 4, k * sy);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s, %% over none</text>\n<text x=\"%.1f\" y=\"%.1f\" "
               "text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">%s swing left, %s</text>\n", x0 + w / 2,
            py + h + 30, what, px + 12, py + h / 2, px + 12, py + h / 2, strcmp(p->unit, "MW") == 0 ? "cluster" : "node", p->unit);
    if (isfinite(p->limit) && p->limit > 0)
        fprintf(f, "<line class=\"tradeoff-spec\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                   "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"#d62728\">spec: range &lt;= %g %s</text>\n",
                x0, RP_SY(p->limit), x0 + w, RP_SY(p->limit), x0 + 4, RP_SY(p->limit) + 13,
                p->limit, p->unit);
    if (!drawn)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">no comparison with none</text>\n",
                x0 + w / 2, py + h / 2);
    fprintf(f, "<polyline class=\"tradeoff-curve\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"");
    for (int k = 0; k < p->n; k++)
        if (isfinite(p->x[k]) && isfinite(p->y[k]))
            fprintf(f, "%.1f,%.1f ", RP_SX(p->x[k]), RP_SY(p->y[k]));
    fprintf(f, "\"/>\n");
    if (isfinite(p->xb) && isfinite(p->yb))
        fprintf(f, "<rect class=\"tradeoff-none\" x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"#444444\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">none</text>\n", RP_SX(p->xb) - 4, RP_SY(p->yb) - 4, RP_SX(p->xb) + 7,
                RP_SY(p->yb) - 6);
    for (int k = 0; k < p->n; k++) {
        if (!isfinite(p->x[k]) || !isfinite(p->y[k]))
            continue;
        fprintf(f, "<circle class=\"tradeoff-point\" data-value=\"");
        rp_xml(f, p->value[k]);
        fprintf(f, "\" data-swing=\"%.9g\" data-x=\"%.9g\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#1f77b4\"/>", p->y[k],
                p->x[k], RP_SX(p->x[k]), RP_SY(p->y[k]));
        if (k == p->best)
            fprintf(f, "<circle class=\"tradeoff-cheapest\" cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"#2ca02c\" "
                       "stroke-width=\"2\"/>", RP_SX(p->x[k]), RP_SY(p->y[k]));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", RP_SX(p->x[k]) + 6, RP_SY(p->y[k]) - 6);
        rp_xml(f, p->value[k]);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</g>\n");
#undef RP_SX
#undef RP_SY
}

/* Draws curve c at y0: swing left against energy paid (left) and time paid (right), with none's point. */
void rp_curve_svg(FILE *f, double y0, const struct rp_run *runs, const struct rp_curve *c, int id, json_t *search)
{
    struct rp_pts p = { .n = c->n, .best = -1, .value = c->value, .limit = NAN };
    int base = c->base, mw = rp_mw(runs, base, c);
    json_t *b = base >= 0 ? runs[base].summary : NULL;
    p.unit = mw ? "MW" : "W";
    p.yb = rp_swing(b, mw);
    p.top = isfinite(p.yb) ? p.yb : 0;
    p.limit = mw ? rp_limit(b ? b : runs[c->run[0]].summary) : NAN;
    for (int k = 0; k < c->n; k++) {
        p.y[k] = rp_swing(runs[c->run[k]].summary, mw);
        p.top = fmax(p.top, isfinite(p.y[k]) ? p.y[k] : 0);
        if (rp_search_has(search, "cheapest_passing", runs[c->run[k]].name))
            p.best = k;
    }
    p.top = fmax(p.top, isfinite(p.limit) ? p.limit : 0);
    double sy = rp_step((p.top > 0 ? p.top : 1) / 5);
    p.top = ceil((p.top > 0 ? p.top * 1.05 : 1) / sy) * sy;
    fprintf(f, "<g class=\"tradeoff\" id=\"tradeoff-%d\" data-mitigation=\"", id);
    rp_xml(f, c->mitigation);
    fprintf(f, "\" data-param=\"");
    rp_xml(f, c->key);
    fprintf(f, "\" data-shape=\"");
    rp_xml(f, c->shape);
    fprintf(f, "\" data-unit=\"%s\">\n<text x=\"10\" y=\"%.0f\" font-size=\"15\">Trade-off, ", p.unit, y0 + 18);
    rp_xml(f, c->mitigation);
    fputc(' ', f);
    rp_xml(f, c->key);
    if (c->shape[0]) {
        fprintf(f, " [");
        rp_xml(f, c->shape);
        fputc(']', f);
    }
    fprintf(f, ": swing left against energy and time paid%s</text>\n", p.best >= 0 ? " (ring: the search's cheapest passing)" : "");
    static const char *const field[2] = { "energy_overhead_pct", "iteration_overhead_pct" };
    static const char *const what[2] = { "energy paid", "iteration time paid" };
    for (int panel = 0; panel < 2; panel++) {
        p.xb = rp_vs(b, field[panel]);
        for (int k = 0; k < c->n; k++)
            p.x[k] = rp_vs(runs[c->run[k]].summary, field[panel]);
        rp_panel(f, panel * RP_W / 2.0, y0 + 40, &p, field[panel], what[panel]);
    }
    fprintf(f, "</g>\n");
}
