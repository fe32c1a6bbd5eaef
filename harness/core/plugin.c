/* harness/core/plugin.c: lookups and checks shared by every plug-in table (see plugin.h). */
#include "plugin.h"

#include <stdio.h>
#include <string.h>

#include "param.h"

int plugin_find(const struct plugin_kind *k, const char *name)
{
    for (int i = 0; k->table[i]; i++)
        if (strcmp(k->table[i]->name, name) == 0)
            return i;
    return -1;
}

int plugin_count(const struct plugin_kind *k)
{
    int n = 0;
    while (k->table[n])
        n++;
    return n;
}

int plugin_table_check(const struct plugin_kind *k, char *why, size_t n)
{
    for (int i = 0; k->table[i]; i++) {
        const struct plugin_ops *p = k->table[i];
        if (p->version != k->version) {
            snprintf(why, n, "%s %d ('%s') has version %d, expected %d", k->what, i, p->name ? p->name : "?",
                     p->version, k->version);
            return -1;
        }
        if (!p->name || !*p->name || !p->help) {
            snprintf(why, n, "%s %d lacks a name or help", k->what, i);
            return -1;
        }
        if (p->params_size > SC_PARAM_BYTES || (p->params && !p->params_size)) {
            snprintf(why, n, "%s '%s' params do not fit (%zu bytes)", k->what, p->name, p->params_size);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(k->table[j]->name, p->name) == 0) {
                snprintf(why, n, "%s name '%s' appears twice", k->what, p->name);
                return -1;
            }
    }
    return 0;
}

void plugin_names(const struct plugin_kind *k, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; k->table[i] && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", i ? ", " : "", k->table[i]->name);
}
