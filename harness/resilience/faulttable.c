/* harness/resilience/faulttable.c: the fault table (see faulttable.h). */
#include "faulttable.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Writes a duration in seconds as "12.3ms" or "1.20s" into out, "-" when x is not a number. */
static const char *ft_time(json_t *x, char *out, size_t n)
{
    if (!json_is_number(x))
        return "-";
    double v = json_number_value(x);
    snprintf(out, n, v < 1 ? "%.1fms" : "%.2fs", v < 1 ? v * 1e3 : v);
    return out;
}

/* Which bits it hit: "exponent bit 27", "value" (a perturbation), "no change" or "-". */
static const char *ft_hit(json_t *f, char *out, size_t n)
{
    const char *where = json_string_value(json_object_get(f, "where"));
    json_t *bit = json_object_get(f, "bit");
    if (!json_string_value(json_object_get(f, "target")))
        return "-";
    if (where && strcmp(where, "value") == 0)
        snprintf(out, n, "value");
    else if (json_is_integer(bit))
        snprintf(out, n, "%s bit %lld", json_string_value(json_object_get(f, "bit_class")), (long long)json_integer_value(bit));
    else
        snprintf(out, n, "no change");
    return out;
}

/* The corrupted element's relative error: "2.8e-05", "inf" or "-". */
static const char *ft_err(json_t *f, char *out, size_t n)
{
    json_t *e = json_object_get(f, "rel_error");
    if (json_is_string(e))   /* inf or nan */
        return json_string_value(e);
    if (!json_is_number(e))
        return "-";
    snprintf(out, n, "%.2g", json_number_value(e));
    return out;
}

int fault_table_print(json_t *faults, FILE *out)
{
    size_t i;
    json_t *f;
    if (!json_is_array(faults) || json_array_size(faults) == 0)
        return 0;
    fprintf(out, "  %-3s %-4s %-11s %-9s %5s %6s  %-17s %-22s %8s  %-12s %9s %9s %5s  %s\n", "id", "run", "fault", "origin",
            "rank", "iter", "target", "bits", "error", "detector", "detect", "recover", "lost", "outcome");
    json_array_foreach(faults, i, f) {
        char t1[32], t2[32], hit[64], err[32], iter[24] = "-", lost[24] = "-";
        json_t *it = json_object_get(f, "injected_iter"), *ls = json_object_get(f, "iterations_lost");
        json_t *det = json_object_get(f, "detection");
        if (json_is_integer(it))
            snprintf(iter, sizeof iter, "%lld", (long long)json_integer_value(it));
        else if (json_is_object(det))   /* observed: when it was seen */
            snprintf(iter, sizeof iter, "@%lld", (long long)json_integer_value(json_object_get(det, "iter_seen")));
        if (json_is_integer(ls))
            snprintf(lost, sizeof lost, "%lld", (long long)json_integer_value(ls));
        const char *by = json_string_value(json_object_get(f, "detected_by"));
        const char *target = json_string_value(json_object_get(f, "target"));
        const char *kind = json_string_value(json_object_get(f, "kind")), *origin = json_string_value(json_object_get(f, "origin"));
        const char *outcome = json_string_value(json_object_get(f, "outcome"));
        json_int_t run = json_integer_value(json_object_get(f, "run"));
        fprintf(out, "  %-3lld %-4lld %-11s %-9s %5lld %6s  %-17s %-22s %8s  %-12s %9s %9s %5s  %s\n",
                (long long)json_integer_value(json_object_get(f, "id")), (long long)(run < 0 || run >= INT32_MAX ? -1 : run + 1),
                kind ? kind : "?", origin ? origin : "?",
                (long long)json_integer_value(json_object_get(f, "rank")), iter, target ? target : "-",
                ft_hit(f, hit, sizeof hit), ft_err(f, err, sizeof err),
                by ? by : "-", ft_time(json_object_get(f, "detect_s"), t1, sizeof t1),
                ft_time(json_object_get(f, "recover_s"), t2, sizeof t2), lost, outcome ? outcome : "?");
    }
    fprintf(out, "  (detect: injection to detection; recover: detection to the first good iteration; iter @N: an observed\n"
                 "   fault, seen at iteration N; error: the corrupted element's relative error)\n");
    return (int)json_array_size(faults);
}
