/* harness/power/cpu_energy.h: CPU package and DRAM energy through PAPI's RAPL components (powercap, rapl).
 * Where the machine or the build has none (VMs, no libpapi), opening says why and the run goes on. */
#ifndef GAUNTLET_CPU_ENERGY_H
#define GAUNTLET_CPU_ENERGY_H

#include <stddef.h>
#include <stdint.h>

/* Energy since cpu_energy_open, summed over the CPU packages (sockets). NAN: not measured. */
struct cpu_energy_sample {
    uint64_t t_ns;      /* mono_ns() of the read */
    double package_j;
    double dram_j;
};

struct cpu_energy;

/* Finds a PAPI RAPL component with package energy events and starts counting. Returns NULL and a
 * reason in why when PAPI is not built in, has no usable RAPL component, or refuses to count. */
struct cpu_energy *cpu_energy_open(char *why, size_t n);
/* Reads the energy so far into out; 0, or -1 (out's energies NAN) when the read fails. */
int cpu_energy_read(struct cpu_energy *ce, struct cpu_energy_sample *out);
/* Says which component and events are counted, e.g. "powercap: 2 packages, 2 DRAM". */
const char *cpu_energy_source(const struct cpu_energy *ce);
/* Stops counting and frees ce; NULL is ignored. */
void cpu_energy_close(struct cpu_energy *ce);

#endif
