/* harness/backends/cuda/cuda_rank.h: one cuda rank's state, shared by backend.c (the simple iteration, faults,
 * detectors) and steps.c (workload.phases). Not a public API. */
#ifndef GAUNTLET_CUDA_RANK_H
#define GAUNTLET_CUDA_RANK_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "backend.h"
#include "coll.h"
#include "gemm.h"
#include "mitigations/fillplan.h"
#include "shaper.h"

#define CUDA_REANCHOR_NS 10000000000ull  /* re-anchor GPU time on the host clock every 10 s */

struct cuda_steps;

struct cuda_rank {
    int device;
    char broken[160];          /* a detector's check that could not run: the rank fails at its next iteration, saying
                                * this (never an iteration counted checked and clean); "" while whole */
    cudaStream_t stream;
    struct gemm_chain *gemm;   /* the rank's own chain: its B is the weights (fingerprint, checkpoints, faults) */
    struct gemm_chain *out;    /* the chain whose output abft checks and gemm-output faults corrupt: gemm, or under
                                * workload.phases that of the run's first GEMM step (cuda_steps_iter) */
    struct coll *coll;
    cudaEvent_t anchor, c0, c1, a0, a1;
    uint64_t anchor_ns;        /* host monotonic time of the anchor event */
    double anchor_err_ns;      /* half the window in which the GPU stamped it */
    void *host_state;          /* pinned copy of the weights for checkpoints */
    size_t state_len;
    double flops, bytes;
    double timeout_s;
    int *hang_flag;            /* device word the hang kernel waits on (never set: the rank hangs) */
    int comm_broken;
    struct shaper *shaper;     /* the scenario runs a mitigation that acts on the GPU (filler, ramp, stagger) */
    /* fingerprint async: hashed on a stream of its own beside the next compute phase */
    cudaStream_t fp_stream;
    cudaEvent_t fp_after, fp_done;   /* the all-reduce is done / the hash is done */
    cudaEvent_t fp_t0;               /* the hash starts (after fp_after): fp_t0 -> fp_done is its device time */
    cudaEvent_t det_e0, det_e1;      /* around a synchronous detector's work on the rank's stream */
    double det_dev_s[8];             /* per detector (enum detector_id): its work's device seconds, summed */
    unsigned long long *fp_acc, *fp_sums;   /* device sums, pinned host copy: reduced buffer, weights */
    unsigned long long *fps_acc, *fps_sums; /* the same for the synchronous fingerprint, on the rank's stream */
    size_t fp_bytes[2];
    unsigned fp_wave;          /* the blocks of the hash's kernel the GPU holds at once (asked at its first start) */
    int fp_pending;
    struct cuda_steps *steps;  /* workload.phases: its chains, buffers, second stream and events (steps.c) */
    struct replay_corr replay_rc;   /* workload.replay: the correction by level, kept over the run's passes */
    int replay_rc_run;              /* the run it was learned in, + 1 (0: none yet) */
    uint64_t replay_seen_t;         /* the newest power sample the loop took (its own time), over the passes */
    uint64_t replay_last_mw;        /* a source that stamps nothing: the last reading taken */
    int replay_stamped;             /* the source has given stamped samples */
};

/* Records the anchor event and the host time at which the GPU stamped it. 0 or -1. */
int cuda_anchor(struct cuda_rank *c);
/* Converts a completed event to the monotonic clock. */
uint64_t cuda_event_ns(struct cuda_rank *c, cudaEvent_t e);

/* steps.c: workload.phases on the GPU. */
struct cuda_steps *cuda_steps_create(struct cuda_rank *c, struct worker_ctx *w, char *why, size_t n);
/* How g's algorithm was chosen (its tuning, gemm.h), into events.jsonl (gemm_algo): each distinct GEMM shape's. */
struct gemm_chain;
void cuda_emit_gemm_algo(struct worker_ctx *w, const struct gemm_chain *g);
int cuda_steps_iter(void *b, struct worker_ctx *w);
/* Gives the GEMM chains of workload.phases (the rank's own first, c->gemm) in *chains; returns their number. */
int cuda_steps_chains(struct cuda_steps *st, struct gemm_chain ***chains);
/* The GEMMs the rank's own chain holds in steps mode: the most any step of the first GEMM step's shape runs. */
int cuda_steps_gemm_count(const struct scenario *sc);
void cuda_steps_destroy(struct cuda_steps *st);
/* detect.c: the detector hooks (backend_ops: abft, fingerprint, fingerprint_start / take, replay,
 * detector_device_s). */
int cuda_abft(void *b, double *err, double *tol);
int cuda_fingerprint(void *b, int slice, int slices, uint64_t *h);
int cuda_fingerprint_start(void *b, int slice, int slices);
int cuda_fingerprint_take(void *b, uint64_t *h);
int cuda_replay(void *b, uint64_t *h);
double cuda_detector_device_s(void *b, int det);
/* Runs each configured detector's kernels once, before any run: their lazy load is no check's device time. */
void cuda_detectors_warm(struct cuda_rank *c, const struct scenario *sc);
/* replay.c: one pass of workload.replay's trace on the GPU. */
int cuda_replay_iter(void *b, struct worker_ctx *w);

#endif
