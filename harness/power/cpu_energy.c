/* harness/power/cpu_energy.c: CPU package and DRAM energy through PAPI's RAPL components: "powercap"
 * (sysfs, no root needed) first, then "rapl" (MSRs). Open, read and close from one thread. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cpu_energy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#ifndef GAUNTLET_HAVE_PAPI

struct cpu_energy { int unused; };

struct cpu_energy *cpu_energy_open(char *why, size_t n)
{
    if (why && n)
        str_copy(why, n, "gauntlet was built without PAPI (libpapi not found at build time): "
                         "CPU package and DRAM energy are not measured");
    return NULL;
}

int cpu_energy_read(struct cpu_energy *ce, struct cpu_energy_sample *out)
{
    (void)ce;
    out->t_ns = mono_ns();
    out->package_j = out->dram_j = NAN;
    return -1;
}

const char *cpu_energy_source(const struct cpu_energy *ce) { (void)ce; return "none (built without PAPI)"; }
void cpu_energy_close(struct cpu_energy *ce) { (void)ce; }

#else

#include <papi.h>

#define CE_MAX_EVENTS 64

enum ce_kind { CE_PACKAGE, CE_DRAM };

struct cpu_energy {
    int eventset;
    int nev;
    int code[CE_MAX_EVENTS];
    enum ce_kind kind[CE_MAX_EVENTS];
    double scale_j[CE_MAX_EVENTS];   /* joules per count */
    int npkg, ndram;
    int we_inited;                   /* this handle initialised PAPI, so it shuts it down */
    char source[256];
};

/* Returns PAPI's text for error r. */
static const char *ce_err(int r)
{
    const char *s = PAPI_strerror(r);
    return s ? s : "unknown PAPI error";
}

/* Appends formatted text to buf (of size n), separated by "; " (truncation is acceptable). */
static void ce_append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ce_append(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    if (len + 3 >= n)
        return;
    if (len) {
        memcpy(buf + len, "; ", 3);
        len += 2;
    }
    va_start(ap, fmt);
    if (vsnprintf(buf + len, n - len, fmt, ap) < 0)
        buf[len] = 0;
    va_end(ap);
}

/* Writes a reason into why (truncation is acceptable for a message). */
static void ce_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ce_why(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(why, n, fmt, ap) < 0)
        str_copy(why, n, "CPU energy: (message could not be formatted)");
    va_end(ap);
}

/* Returns joules per count for a PAPI unit string; NAN when it is not an energy unit. */
static double ce_unit_scale(const char *units)
{
    if (strcmp(units, "nJ") == 0)
        return 1e-9;
    if (strcmp(units, "uJ") == 0)
        return 1e-6;
    if (strcmp(units, "mJ") == 0)
        return 1e-3;
    if (strcmp(units, "J") == 0)
        return 1.0;
    return NAN;
}

/* Fetches the long description of event `name`; "" when PAPI does not know it. */
static void ce_describe(const char *name, char *out, size_t n)
{
    PAPI_event_info_t info;
    int code = 0;
    out[0] = 0;
    if (PAPI_event_name_to_code(name, &code) != PAPI_OK)
        return;
    if (PAPI_get_event_info(code, &info) != PAPI_OK)
        return;
    str_copy(out, n, info.long_descr);
}

/* Decides whether powercap event `base` (name without "powercap:::") is package or DRAM energy,
 * from the zone name PAPI exposes as the NAME event's description. */
static int ce_powercap_kind(const char *prefix, const char *base, enum ce_kind *kind)
{
    char other[PAPI_MAX_STR_LEN * 2], descr[PAPI_HUGE_STR_LEN];
    int zone = -1, sub = -1, end = 0;
    if (sscanf(base, "ENERGY_UJ:ZONE%d_SUBZONE%d%n", &zone, &sub, &end) == 2 && base[end] == 0) {
        if (snprintf(other, sizeof other, "%sNAME:ZONE%d_SUBZONE%d", prefix, zone, sub) < 0)
            return 0;
        ce_describe(other, descr, sizeof descr);
        *kind = CE_DRAM;
        return strncmp(descr, "dram", 4) == 0;
    }
    end = 0;
    if (sscanf(base, "ENERGY_UJ:ZONE%d%n", &zone, &end) == 1 && base[end] == 0) {
        if (snprintf(other, sizeof other, "%sNAME:ZONE%d", prefix, zone) < 0)
            return 0;
        ce_describe(other, descr, sizeof descr);
        *kind = CE_PACKAGE;
        return descr[0] == 0 || strncmp(descr, "package", 7) == 0;   /* not "psys" */
    }
    return 0;
}

/* Classifies event code of component comp: 1 and kind/scale when it is package or DRAM energy. */
static int ce_classify(const char *comp, int code, enum ce_kind *kind, double *scale, char *note, size_t nn)
{
    char name[PAPI_MAX_STR_LEN * 2], prefix[PAPI_MAX_STR_LEN * 2];
    PAPI_event_info_t info;
    int r = PAPI_event_code_to_name(code, name), pkg = -1, end = 0;
    if (r != PAPI_OK) {
        ce_append(note, nn, "PAPI_event_code_to_name(%#x): %s", (unsigned)code, ce_err(r));
        return 0;
    }
    const char *sep = strstr(name, ":::");
    const char *base = sep ? sep + 3 : name;
    str_copy(prefix, sizeof prefix, name);
    prefix[base - name] = 0;
    if (strcmp(comp, "powercap") == 0) {
        *scale = 1e-6;
        return ce_powercap_kind(prefix, base, kind);
    }
    if (sscanf(base, "PACKAGE_ENERGY:PACKAGE%d%n", &pkg, &end) == 1 && base[end] == 0)
        *kind = CE_PACKAGE;
    else if ((end = 0, sscanf(base, "DRAM_ENERGY:PACKAGE%d%n", &pkg, &end)) == 1 && base[end] == 0)
        *kind = CE_DRAM;
    else
        return 0;
    if ((r = PAPI_get_event_info(code, &info)) != PAPI_OK) {
        ce_append(note, nn, "PAPI_get_event_info(%s): %s", name, ce_err(r));
        return 0;
    }
    *scale = ce_unit_scale(info.units);
    if (isnan(*scale)) {
        ce_append(note, nn, "%s has unknown units '%s'", name, info.units);
        return 0;
    }
    return 1;
}

/* Lists the package and DRAM energy events of component cid into ce; returns how many. */
static int ce_collect(struct cpu_energy *ce, int cid, const char *comp, char *note, size_t nn)
{
    int code = PAPI_NATIVE_MASK;
    int r = PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cid);
    ce->nev = ce->npkg = ce->ndram = 0;
    while (r == PAPI_OK && ce->nev < CE_MAX_EVENTS) {
        enum ce_kind kind;
        double scale;
        if (ce_classify(comp, code, &kind, &scale, note, nn)) {
            ce->code[ce->nev] = code;
            ce->kind[ce->nev] = kind;
            ce->scale_j[ce->nev] = scale;
            ce->nev++;
            *(kind == CE_PACKAGE ? &ce->npkg : &ce->ndram) += 1;
        }
        r = PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cid);
    }
    if (r != PAPI_OK && r != PAPI_ENOEVNT)
        ce_append(note, nn, "%s: PAPI_enum_cmp_event: %s", comp, ce_err(r));
    return ce->npkg ? ce->nev : 0;
}

/* Releases the event set, reporting failures. */
static void ce_release(struct cpu_energy *ce)
{
    int r;
    if (ce->eventset == PAPI_NULL)
        return;
    if ((r = PAPI_cleanup_eventset(ce->eventset)) != PAPI_OK)
        gl_log("PAPI_cleanup_eventset failed: %s", ce_err(r));
    if ((r = PAPI_destroy_eventset(&ce->eventset)) != PAPI_OK)
        gl_log("PAPI_destroy_eventset failed: %s", ce_err(r));
    ce->eventset = PAPI_NULL;
}

/* Adds the collected events to a new event set and starts it; 0, or -1 with a note. */
static int ce_start(struct cpu_energy *ce, const char *comp, char *note, size_t nn)
{
    int r = PAPI_create_eventset(&ce->eventset);
    if (r != PAPI_OK) {
        ce->eventset = PAPI_NULL;
        ce_append(note, nn, "%s: PAPI_create_eventset: %s", comp, ce_err(r));
        return -1;
    }
    for (int i = 0; i < ce->nev; i++) {
        if ((r = PAPI_add_event(ce->eventset, ce->code[i])) != PAPI_OK) {
            ce_append(note, nn, "%s: PAPI_add_event: %s", comp, ce_err(r));
            ce_release(ce);
            return -1;
        }
    }
    if ((r = PAPI_start(ce->eventset)) != PAPI_OK) {
        ce_append(note, nn, "%s: PAPI_start: %s", comp, ce_err(r));
        ce_release(ce);
        return -1;
    }
    if (snprintf(ce->source, sizeof ce->source, "PAPI %s: %d package%s, %d DRAM", comp, ce->npkg,
                 ce->npkg == 1 ? "" : "s", ce->ndram) < 0)
        str_copy(ce->source, sizeof ce->source, comp);
    return 0;
}

/* Initialises PAPI unless someone did; 0, or -1 with the reason in why. */
static int ce_papi_init(struct cpu_energy *ce, char *why, size_t n)
{
    if (PAPI_is_initialized() != PAPI_NOT_INITED)
        return 0;
    int r = PAPI_library_init(PAPI_VER_CURRENT);
    if (r == PAPI_VER_CURRENT) {
        ce->we_inited = 1;
        return 0;
    }
    if (r > 0)
        ce_why(why, n, "PAPI library version %d.%d does not match the header gauntlet was built with (%d.%d)",
                 PAPI_VERSION_MAJOR(r), PAPI_VERSION_MINOR(r), PAPI_VERSION_MAJOR(PAPI_VERSION),
                 PAPI_VERSION_MINOR(PAPI_VERSION));
    else
        ce_why(why, n, "PAPI_library_init failed: %s", ce_err(r));
    return -1;
}

/* Tries component comp (if present): 0 when it counts, -1 with a note. */
static int ce_try(struct cpu_energy *ce, int ncomp, const char *comp, char *note, size_t nn)
{
    for (int cid = 0; cid < ncomp; cid++) {
        const PAPI_component_info_t *info = PAPI_get_component_info(cid);
        if (!info || strcmp(info->name, comp) != 0)
            continue;
        if (info->disabled) {
            ce_append(note, nn, "%s disabled: %s", comp, info->disabled_reason[0] ? info->disabled_reason : "no reason given");
            return -1;
        }
        if (ce_collect(ce, cid, comp, note, nn) == 0) {
            ce_append(note, nn, "%s has no package energy event", comp);
            return -1;
        }
        return ce_start(ce, comp, note, nn);
    }
    return -1;
}

struct cpu_energy *cpu_energy_open(char *why, size_t n)
{
    static const char *const comps[] = { "powercap", "rapl" };
    char note[1024] = "", names[512] = "", scratch[512];
    struct cpu_energy *ce = xcalloc(1, sizeof *ce);
    ce->eventset = PAPI_NULL;
    if (!why || n == 0) {
        why = scratch;
        n = sizeof scratch;
    }
    if (ce_papi_init(ce, why, n) != 0) {
        free(ce);
        return NULL;
    }
    int ncomp = PAPI_num_components();
    for (size_t i = 0; i < ARRAY_LEN(comps); i++)
        if (ce_try(ce, ncomp, comps[i], note, sizeof note) == 0)
            return ce;
    for (int cid = 0; cid < ncomp; cid++) {
        const PAPI_component_info_t *info = PAPI_get_component_info(cid);
        if (info)
            ce_append(names, sizeof names, "%s", info->name);
    }
    ce_why(why, n, "no usable RAPL component in PAPI %d.%d (%s%sPAPI has: %s): CPU package and DRAM energy "
             "are not measured", PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION), note,
             note[0] ? "; " : "", names[0] ? names : "no components");
    cpu_energy_close(ce);
    return NULL;
}

int cpu_energy_read(struct cpu_energy *ce, struct cpu_energy_sample *out)
{
    long long v[CE_MAX_EVENTS];
    out->t_ns = mono_ns();
    out->package_j = out->dram_j = NAN;
    if (!ce || ce->eventset == PAPI_NULL)
        return -1;
    int r = PAPI_read(ce->eventset, v);
    if (r != PAPI_OK) {
        gl_log("PAPI_read (%s) failed: %s", ce->source, ce_err(r));
        return -1;
    }
    double pkg = 0, dram = 0;
    for (int i = 0; i < ce->nev; i++)
        *(ce->kind[i] == CE_PACKAGE ? &pkg : &dram) += (double)v[i] * ce->scale_j[i];
    out->package_j = pkg;
    out->dram_j = ce->ndram ? dram : NAN;
    return 0;
}

const char *cpu_energy_source(const struct cpu_energy *ce) { return ce ? ce->source : "none"; }

void cpu_energy_close(struct cpu_energy *ce)
{
    long long v[CE_MAX_EVENTS];
    if (!ce)
        return;
    if (ce->eventset != PAPI_NULL) {
        int r = PAPI_stop(ce->eventset, v);
        if (r != PAPI_OK)
            gl_log("PAPI_stop (%s) failed: %s", ce->source, ce_err(r));
        ce_release(ce);
    }
    if (ce->we_inited)
        PAPI_shutdown();
    free(ce);
}

#endif
