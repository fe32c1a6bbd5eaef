/* harness/plugins/faults/table.c: the one list of faults. */
#include <math.h>

#include "fault.h"
#include "util.h"

extern const struct fault_ops fault_bitflip, fault_crash, fault_hang, fault_straggler, fault_comm_error,
    fault_node_crash;

const struct fault_ops *const fault_table[] = {
    &fault_bitflip, &fault_crash, &fault_hang, &fault_straggler, &fault_comm_error, &fault_node_crash, NULL,
};

const struct plugin_kind plugin_faults = { "fault", (const struct plugin_ops *const *)fault_table, FAULT_OPS_VERSION };

/* Sign, exponent and mantissa widths of each format (the sign is the top bit). */
static const struct { const char *name; int width, exp, mant; } fault_formats[FMT_COUNT] = {
    [FMT_FP32] = { "fp32", 32, 8, 23 },
    [FMT_BF16] = { "bf16", 16, 8, 7 },
    [FMT_FP16] = { "fp16", 16, 5, 10 },
    [FMT_FP8E4M3] = { "fp8-e4m3", 8, 4, 3 },
};

const char *fault_target_name(int t)
{
    static const char *const names[] = { "gemm-output", "gradients", "weights", "allreduce-buffer" };
    return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : NULL;
}

const char *fault_format_name(int fmt) { return fmt >= 0 && fmt < FMT_COUNT ? fault_formats[fmt].name : "none"; }

const char *fault_bit_class(int fmt, int bit)
{
    if (fmt < 0 || fmt >= FMT_COUNT || bit < 0 || bit >= fault_formats[fmt].width)
        return "none";
    int mant = fault_formats[fmt].mant;
    if (bit == fault_formats[fmt].width - 1)
        return "sign";
    if (bit >= mant)
        return "exponent";
    return bit >= mant / 2 ? "mantissa-high" : "mantissa-low";
}

const char *fault_mask_class(int fmt, uint32_t mask)
{
    if (!mask)
        return "none";
    int top = 31;
    while (!(mask & (1u << top)))
        top--;
    return fault_bit_class(fmt, top);
}

double fault_rel_error(double old_v, double new_v)
{
    if (old_v == new_v)
        return 0;
    if (!isfinite(old_v) || !isfinite(new_v) || old_v == 0)
        return INFINITY;
    return fabs(new_v - old_v) / fabs(old_v);
}
