/* harness/plugins/faults/node_crash.c: every worker of a node dies at once, as when the node loses power: the
 * node's first rank kills its siblings (their pids are in the control block) and then itself. The node's
 * supervisor stays up and reports it, as a real node's agent would. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"
#include "fault.h"
#include "shm.h"
#include "util.h"
#include "worker.h"

static const struct param node_crash_params[] = {
    { "node", PT_INT, offsetof(struct node_crash_params, node), .def = "0", .min = 0, .max = 100000,
      .help = "the node whose workers all die (carried out by its first rank)" },
    { 0 },
};

static int node_crash_point(const void *params)
{
    (void)params;
    return IP_ITER_START;
}

static int node_crash_inject(struct worker_ctx *w, const void *params, uint64_t seed, char *what, size_t n,
                   struct fault_detail *out)
{
    (void)out;   /* nothing to add to the record: the fault has no buffer, bit or value */
    (void)seed;
    int killed = 0;
    for (uint32_t k = 0; k < w->shm->hdr->nslots; k++) {
        struct ctl *c = shm_ctl(w->shm, (int)k);
        int32_t pid = __atomic_load_n(&c->pid, __ATOMIC_ACQUIRE);
        if (c == w->ctl || pid <= 0)
            continue;
        /* only a live sibling: the supervisor clears a slot's pid before it reaps the process, so a pid still
         * there after the pidfd is open was the sibling's when it was opened (never a reused one) */
#ifdef SYS_pidfd_open
        int fd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (fd >= 0) {
            if (__atomic_load_n(&c->pid, __ATOMIC_ACQUIRE) == pid && syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) == 0)
                killed++;
            close(fd);
            continue;
        }
        if (errno != ENOSYS)
            continue;   /* gone already */
#endif
        if (kill(pid, SIGKILL) == 0)   /* no pidfds in this kernel */
            killed++;
    }
    snprintf(what, n, "node %lld: %d workers killed, then this one", (long long)((const struct node_crash_params *)params)->node,
             killed);
    worker_fault_done(w, what);
    signal(SIGKILL, SIG_DFL);
    raise(SIGKILL);
    return -1;   /* not reached */
}

const struct fault_ops fault_node_crash = {
    .version = FAULT_OPS_VERSION,
    .name = "node-crash",
    .help = "every worker of a node dies at once (the node fails; its supervisor stays)",
    .params = node_crash_params,
    .params_size = sizeof(struct node_crash_params),
    .point = node_crash_point,
    .inject = node_crash_inject,
};
