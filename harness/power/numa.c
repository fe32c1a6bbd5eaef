/* harness/power/numa.c: see numa.h. */
#include "numa.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *sysfs(void)
{
    const char *root = getenv("GAUNTLET_SYSFS");
    return root && *root ? root : "/sys";
}

/* Reads a small sysfs file into buf (newline stripped); 0 or -1. */
static int read_line(const char *path, char *buf, size_t n)
{
    if (read_small(path, buf, n) < 0)
        return -1;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

int numa_node_of_pci(const char *busid)
{
    char id[32], path[512], buf[32];
    size_t k = 0;
    for (; busid[k] && k < sizeof id - 1; k++)
        id[k] = (char)tolower((unsigned char)busid[k]);
    id[k] = 0;
    /* CUDA writes an 8-digit domain ("00000000:1B:00.0"); sysfs uses 4 */
    const char *dev = strlen(id) == 16 && strncmp(id, "0000", 4) == 0 ? id + 4 : id;
    snprintf(path, sizeof path, "%s/bus/pci/devices/%s/numa_node", sysfs(), dev);
    if (read_line(path, buf, sizeof buf) != 0)
        return -1;
    return atoi(buf) >= 0 ? atoi(buf) : -1;
}

int numa_parse_cpulist(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = text;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0)
            return -1;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a)
                return -1;
            p = end;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return CPU_COUNT(set) ? 0 : -1;
}

int numa_node_cpus(int node, cpu_set_t *set)
{
    char path[512], buf[4096];
    snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist", sysfs(), node);
    if (node < 0 || read_line(path, buf, sizeof buf) != 0)
        return -1;
    return numa_parse_cpulist(buf, set);
}

int numa_pin(int node, char *why, size_t n)
{
    cpu_set_t set, allowed, both;
    if (numa_node_cpus(node, &set) != 0) {
        snprintf(why, n, "NUMA node %d: no cpulist in %s/devices/system/node", node, sysfs());
        return -1;
    }
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(why, n, "sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    /* narrowed, never widened: the CPUs a launcher gave (taskset, mpirun --bind-to, Slurm's --cpu-bind) stay the
     * bound. Until 2026-11-30 the node's whole cpulist replaced them, cores bound to other jobs included. */
    CPU_AND(&both, &set, &allowed);
    if (CPU_COUNT(&both) == 0) {
        snprintf(why, n, "NUMA node %d: none of its CPUs is among the %d this process may use (the launcher's binding): "
                 "left as it was", node, CPU_COUNT(&allowed));
        return -1;
    }
    if (sched_setaffinity(0, sizeof both, &both) != 0) {
        snprintf(why, n, "sched_setaffinity(NUMA node %d): %s", node, strerror(errno));
        return -1;
    }
    return 0;
}

int numa_pinned(int node)
{
    cpu_set_t want, have, extra;
    if (numa_node_cpus(node, &want) != 0 || sched_getaffinity(0, sizeof have, &have) != 0)
        return -1;
    CPU_AND(&extra, &have, &want);
    return CPU_EQUAL(&extra, &have);   /* every CPU it may run on is the node's */
}
