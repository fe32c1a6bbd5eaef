/* harness/faults/table.c: the one list of faults. */
#include "fault.h"
#include "util.h"

extern const struct fault_ops fault_bitflip, fault_crash, fault_hang, fault_straggler, fault_comm_error,
    fault_node_crash;

const struct fault_ops *const fault_table[] = {
    &fault_bitflip, &fault_crash, &fault_hang, &fault_straggler, &fault_comm_error, &fault_node_crash, NULL,
};

const struct plugin_kind plugin_faults = { "fault", (const struct plugin_ops *const *)fault_table, FAULT_OPS_VERSION };
