/* tests/test_numa.c: a GPU's NUMA node from sysfs and pinning a worker to it, on a sysfs tree made here
 * ($GAUNTLET_SYSFS), with the CPUs this machine really has. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "numa.h"
#include "util.h"

static char root[128];

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    *strrchr(path, '/') = 0;
    cr_assert_eq(mkdir_p(path), 0, "%s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

static void fake_sysfs(void)
{
    snprintf(root, sizeof root, "/tmp/gauntlet-sysfs-%d", (int)getpid());
    e2e_own(root);
    put("bus/pci/devices/0000:1b:00.0/numa_node", "1\n");
    put("bus/pci/devices/0000:9a:00.0/numa_node", "-1\n");
    put("devices/system/node/node1/cpulist", "0\n");    /* a CPU every machine has */
    put("devices/system/node/node2/cpulist", "1-3\n");
    setenv("GAUNTLET_SYSFS", root, 1);
}

Test(numa, cpulists_parse_and_bad_ones_are_refused)
{
    cpu_set_t s;
    cr_assert_eq(numa_parse_cpulist("0-3,8,10-11", &s), 0);
    cr_assert_eq(CPU_COUNT(&s), 7);
    cr_assert(CPU_ISSET(8, &s) && CPU_ISSET(11, &s) && !CPU_ISSET(9, &s));
    cr_assert_eq(numa_parse_cpulist("3-1", &s), -1);
    cr_assert_eq(numa_parse_cpulist("a", &s), -1);
    cr_assert_eq(numa_parse_cpulist("", &s), -1);
    cr_assert_eq(numa_parse_cpulist("0,,1", &s), -1);
}

Test(numa, the_node_of_a_gpu_as_cuda_names_its_bus)
{
    fake_sysfs();
    cr_assert_eq(numa_node_of_pci("00000000:1B:00.0"), 1, "CUDA's 8-digit domain, upper case");
    cr_assert_eq(numa_node_of_pci("0000:1b:00.0"), 1);
    cr_assert_eq(numa_node_of_pci("0000:9a:00.0"), -1, "sysfs says -1: one socket");
    cr_assert_eq(numa_node_of_pci("0000:ff:00.0"), -1, "no such device");
}

Test(numa, pinning_confines_the_worker_to_the_node)
{
    fake_sysfs();
    char why[256];
    cr_assert_eq(numa_pin(1, why, sizeof why), 0, "%s", why);
    cpu_set_t have;
    cr_assert_eq(sched_getaffinity(0, sizeof have, &have), 0);
    cr_assert_eq(CPU_COUNT(&have), 1);
    cr_assert(CPU_ISSET(0, &have));
    cr_assert_eq(numa_pinned(1), 1);
    cr_assert_eq(numa_pinned(2), 0, "CPU 0 is not node 2's");
    cr_assert_eq(numa_pinned(7), -1, "no such node");
    cr_assert_eq(numa_pin(7, why, sizeof why), -1);
    cr_assert(strstr(why, "NUMA node 7"), "%s", why);
}

/* A launcher's binding (taskset, mpirun --bind-to core, Slurm's --cpu-bind) is narrowed to the node, never widened to
 * it; where none of the node's CPUs is allowed the affinity stays as it was. */
Test(numa, pinning_narrows_the_launchers_binding_and_never_widens_it)
{
    cpu_set_t have;
    cr_assert_eq(sched_getaffinity(0, sizeof have, &have), 0);
    int a = -1, b = -1;
    for (int c = 0; c < CPU_SETSIZE && b < 0; c++)
        if (CPU_ISSET(c, &have)) {
            if (a < 0)
                a = c;
            else
                b = c;
        }
    if (b < 0)
        cr_skip_test("this process may run on one CPU only");
    fake_sysfs();
    char list[64], why[256];
    snprintf(list, sizeof list, "%d,%d\n", a, b);
    put("devices/system/node/node3/cpulist", list);
    snprintf(list, sizeof list, "%d\n", a);
    put("devices/system/node/node4/cpulist", list);
    cpu_set_t bound;
    CPU_ZERO(&bound);
    CPU_SET(b, &bound);   /* the launcher gave this rank CPU b alone */
    cr_assert_eq(sched_setaffinity(0, sizeof bound, &bound), 0);
    cr_assert_eq(numa_pin(3, why, sizeof why), 0, "%s", why);
    cr_assert_eq(sched_getaffinity(0, sizeof have, &have), 0);
    cr_assert(CPU_COUNT(&have) == 1 && CPU_ISSET(b, &have), "still CPU %d alone, not node 3's %d,%d", b, a, b);
    cr_assert_eq(numa_pinned(3), 1);
    cr_assert_eq(numa_pin(4, why, sizeof why), -1, "node 4's CPU %d is not among those allowed", a);
    cr_assert(strstr(why, "NUMA node 4") && strstr(why, "left as it was"), "%s", why);
    cr_assert_eq(sched_getaffinity(0, sizeof have, &have), 0);
    cr_assert(CPU_COUNT(&have) == 1 && CPU_ISSET(b, &have), "the affinity is as it was");
    cr_assert_eq(numa_pinned(4), 0);
}
