/* harness/accept/accept_gpus.c: --expect-gpus N, the GPUs every node must have: a health check on a node that lost a
 * GPU (off the bus, failed, hidden by CUDA_VISIBLE_DEVICES) would otherwise run on the ones left and pass. */
#include <stdio.h>
#include <string.h>

#include "accept.h"
#include "accept_int.h"
#include "backend.h"
#include "cluster.h"
#include "util.h"

int accept_expect_gpus(int expect, int ngpu, int *counts)
{
    int nn = cluster_nodes();
    if (nn > 1 ? cluster_gather_int(ngpu, counts, "the GPU counts") != 0 : (counts[0] = ngpu, 0)) {
        gl_log("node %d: the nodes' GPU counts could not be gathered", cluster_node());
        return -1;
    }
    int all = 1;
    for (int k = 0; k < nn; k++)
        all &= counts[k] == expect;
    return all;
}

void accept_gpu_count(struct verdicts *vs, int expect, const int *counts, int nodes, const char *model)
{
    for (int k = 0; k < (counts ? nodes : 1); k++) {
        int ok = counts && counts[k] == expect;
        struct verdict *v = accept_add(vs, NULL, "gpu_count", !counts ? V_SKIP : ok ? V_PASS : V_FAIL);
        str_copy(v->scenario, sizeof v->scenario, "suite");
        snprintf(v->subject, sizeof v->subject, "node %d", k);
        v->node = k;
        v->limit = expect;
        str_copy(v->cmp, sizeof v->cmp, "==");
        str_copy(v->unit, sizeof v->unit, "GPUs");
        if (!counts) {
            accept_note(v, "the %s backend is a model: no GPUs to count", model);
            continue;
        }
        v->value = counts[k];
        if (ok)
            accept_note(v, "%d GPUs found, as --expect-gpus says", counts[k]);
        else
            accept_note(v, "%d GPU%s found, %d expected (--expect-gpus): one off the bus, failed, or hidden by "
                           "CUDA_VISIBLE_DEVICES; no scenario ran", counts[k], counts[k] == 1 ? "" : "s", expect);
    }
}

int accept_model_refused(const struct backend_ops **ops, const char *backend)
{
    if (!*ops || !(*ops)->modelled || strcmp(backend, "auto") != 0)
        return 0;
    gl_log("no usable GPU (the line above says why): an acceptance suite judges a node's GPUs, not the %s model; "
           "--backend %s runs it on the model", (*ops)->name, (*ops)->name);
    *ops = NULL;
    return 1;
}
