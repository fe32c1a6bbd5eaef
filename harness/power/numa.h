/* harness/power/numa.h: a GPU's NUMA node from sysfs (as `nvidia-smi topo -m` shows it) and pinning a worker to that
 * node's CPUs, so that the host side feeding the GPU runs next to it. $GAUNTLET_SYSFS replaces /sys (tests). */
#ifndef GAUNTLET_NUMA_H
#define GAUNTLET_NUMA_H

#include <sched.h>
#include <stddef.h>

/* The NUMA node of the PCI device busid ("0000:1b:00.0", any case); -1 when sysfs has none (one socket). */
int numa_node_of_pci(const char *busid);
/* Fills set with the CPUs of NUMA node `node` (its cpulist); 0, or -1 when unknown. */
int numa_node_cpus(int node, cpu_set_t *set);
/* Parses a cpulist ("0-15,32-47"); 0, or -1 on a malformed list. */
int numa_parse_cpulist(const char *text, cpu_set_t *set);
/* Pins the calling process to those of node's CPUs it may already run on (new memory then comes from that node: first
 * touch); 0, or -1 with why (the affinity is then as it was: none of node's CPUs was allowed, say). */
int numa_pin(int node, char *why, size_t n);
/* 1 when the calling process may run only on CPUs of node, 0 when not, -1 when unknown. */
int numa_pinned(int node);

#endif
