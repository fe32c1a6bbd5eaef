/* harness/mitigations/table.c: the one list of mitigation strategies. */
#include <stdio.h>
#include <string.h>

#include "mitigation.h"
#include "scenario.h"

extern const struct mitigation_ops mitigation_none;

const struct mitigation_ops *const mitigation_table[] = {
    &mitigation_none,
    NULL,
};

int mitigation_find(const char *name)
{
    for (int i = 0; mitigation_table[i]; i++)
        if (strcmp(mitigation_table[i]->name, name) == 0)
            return i;
    return -1;
}

int mitigation_table_check(char *why, size_t n)
{
    for (int i = 0; mitigation_table[i]; i++) {
        const struct mitigation_ops *m = mitigation_table[i];
        if (m->version != MITIGATION_OPS_VERSION) {
            snprintf(why, n, "mitigation %d ('%s') has version %d, expected %d", i, m->name ? m->name : "?",
                     m->version, MITIGATION_OPS_VERSION);
            return -1;
        }
        if (!m->name || !*m->name || !m->help) {
            snprintf(why, n, "mitigation %d lacks a name or help", i);
            return -1;
        }
        if (m->params_size > SC_PARAM_BYTES || (m->params && !m->params_size)) {
            snprintf(why, n, "mitigation '%s' params do not fit (%zu bytes)", m->name, m->params_size);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(mitigation_table[j]->name, m->name) == 0) {
                snprintf(why, n, "mitigation name '%s' appears twice", m->name);
                return -1;
            }
    }
    return 0;
}
