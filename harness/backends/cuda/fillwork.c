/* harness/backends/cuda/fillwork.c: filler work on a GPU (fillwork.h). */
#include "fillwork.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "cuda_check.h"
#include "filler.h"
#include "gemm.h"
#include "rankplan.h"
#include "util.h"

#define FILLWORK_RESERVED_SMS 32     /* NCCL's default CTA limit: a real collective keeps these */
#define FILLWORK_AHEAD_GAP_S 200e-6  /* a gap shorter than this cannot hide the thread's wake-up and the next launch:
                                      * keep one GEMM queued ahead */
#define FILLWORK_SETTLE_S 0.15       /* the correction reads a held level this long after it was reached */
#define FILLWORK_IDLE_POLL_NS 200000 /* at duty 0 the thread looks again this often */
#define FILLWORK_DUTY_MIN 0.002      /* a duty at or below this is none: the filler issues nothing */

enum { FW_OFF, FW_HOLD, FW_FOLLOW };

struct fillwork {
    struct ctl *ctl;
    struct gemm_chain *g;
    cudaStream_t stream;
    cudaEvent_t ev[3];               /* 0, 1: after the GEMMs, in turn; 2: before a gap's second and later waits */
    volatile unsigned *stop_host;    /* mapped: a gap kernel of generation gen ends once it reaches gen */
    unsigned *stop_dev;
    double gemm_s;
    int device;
    pthread_t thr;
    int thr_on;
    pthread_mutex_t mu;
    pthread_cond_t cv, idle_cv;
    /* under mu */
    int mode, quit, failed, busy;
    unsigned gen;
    double duty;
    struct fill_plan plan;
    struct fill_curve curve;
    struct fill_corr *corr;
    const struct fill_learn *learn;  /* the gap's first part, learned (NULL: none: a gap not after compute) */
    uint64_t t0_ns;
    /* the correction's window: energy counter readings while the plan holds its floor (thread only) */
    int win;
    uint64_t win_seq, e0_mj, e1_mj, w0_ns, w1_ns;
};

/* Closes the correction's window: what the GPU drew while the floor was held goes to the correction. Under mu. */
static void fillwork_window_close(struct fillwork *f)
{
    if (f->win && f->corr && f->w1_ns > f->w0_ns && f->e1_mj >= f->e0_mj)
        fill_corr_add(f->corr, (double)(f->e1_mj - f->e0_mj) * 1e-3, (double)(f->w1_ns - f->w0_ns) * 1e-9,
                      f->plan.floor_w);
    f->win = 0;
}

/* Takes the supervisor's newest energy reading into the window while the plan holds its floor (from hold_ns on).
 * Under mu. */
static void fillwork_window_read(struct fillwork *f, uint64_t hold_ns)
{
    uint64_t seq = atomic_load(&f->ctl->power_seq);
    if (seq == f->win_seq && f->win)
        return;
    uint64_t e, t;
    ctl_read_energy(f->ctl, &e, &t);
    if (!e || t < hold_ns)
        return;   /* no energy counter (no correction), or a reading from before the level held */
    if (!f->win) {
        f->win = 1;
        f->e0_mj = f->e1_mj = e;
        f->w0_ns = f->w1_ns = t;
    } else if (t > f->w1_ns) {
        f->e1_mj = e;
        f->w1_ns = t;
    }
    f->win_seq = seq;
}

/* Returns the duty the filler runs at now. Under mu. */
static double fillwork_duty_now(struct fillwork *f)
{
    if (f->mode == FW_HOLD)
        return f->duty;
    double t = (double)(mono_ns() - f->t0_ns) * 1e-9, w = fill_plan_watts(&f->plan, t);
    int holding = f->plan.floor_w > 0 && t >= f->plan.down_s + FILLWORK_SETTLE_S &&
                  (f->plan.rise_at_s < 0 || t < f->plan.rise_at_s);
    if (holding)
        fillwork_window_read(f, f->t0_ns + (uint64_t)((f->plan.down_s + FILLWORK_SETTLE_S) * 1e9));
    else
        fillwork_window_close(f);
    if (!(w > 0))
        return 0;
    /* the learned boost where the plan asks for the filler (above idle): where it has let the power fall to idle
     * (a ramp without a floor) the filler stays off */
    double level = w + (f->corr ? f->corr->offset_w : 0);
    double boost = f->learn && w > f->curve.w[0] ? fill_learn_boost(f->learn, t) : 0;
    if (!(boost > 0))
        return fill_curve_duty(&f->curve, level + boost);
    /* a learned boost may carry the duty past the curve's top (the clocks still low after compute), the level
     * without it never */
    return fill_curve_duty_boost(&f->curve, fmin(level, fill_curve_top(&f->curve)) + boost);
}

/* Waits for event e to complete, giving up early when the filler was stopped meanwhile; 0, or -1 on an error. */
static int fillwork_wait_event(struct fillwork *f, cudaEvent_t e, unsigned gen)
{
    for (;;) {
        cudaError_t r = cudaEventQuery(e);
        if (r == cudaSuccess)
            return 0;
        if (r != cudaErrorNotReady)
            return CUDA_CHECK(r);
        if (*f->stop_host >= gen)
            return 0;
        sleep_ns(20000);
    }
}

/* Queues the rest of a period's gap, whose waits of queued_s are queued and the last of them running: one wait of
 * at most RANKPLAN_FILL_SLICE_S at a time, each decided as the one before it starts, at the duty of that moment
 * (until 2026-11-30 the gap was one wait, up to 87 ms at a duty just above 0.2 %, that a climb of the plan could
 * not shorten: it ran late and left a step when compute began). Returns when the gap is done (the next GEMM is then
 * queued behind the wait running) or the filler stopped; 0, or -1 on an error. */
static int fillwork_gap_rest(struct fillwork *f, double queued_s, unsigned gen)
{
    for (;;) {
        pthread_mutex_lock(&f->mu);
        double d = f->mode != FW_OFF && f->gen == gen ? fillwork_duty_now(f) : 0;
        pthread_mutex_unlock(&f->mu);
        double s = d > FILLWORK_DUTY_MIN ? rankplan_fill_slice(f->gemm_s, d, queued_s, RANKPLAN_FILL_SLICE_S) : 0;
        if (!(s > 0) || *f->stop_host >= gen)
            return 0;
        if (CUDA_CHECK(cudaEventRecord(f->ev[2], f->stream)) ||
            CUDA_CHECK(filler_gap(s, f->stop_dev, gen, f->stream)) || fillwork_wait_event(f, f->ev[2], gen) != 0)
            return -1;
        queued_s += s;
    }
}

/* The filler's thread: issues GEMM + gap pairs at the duty of the moment until stopped. */
static void *fillwork_main(void *arg)
{
    struct fillwork *f = arg;
    int bad = CUDA_CHECK(cudaSetDevice(f->device)), issued = 0;
    if (prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) != 0)   /* wake within 1 us of a sleep's end, not 50 us */
        gl_log("filler: prctl(PR_SET_TIMERSLACK) failed: %s (its duty may run low)", strerror(errno));
    pthread_mutex_lock(&f->mu);
    f->failed |= bad;
    while (!f->quit) {
        if (f->mode == FW_OFF || f->failed) {
            fillwork_window_close(f);
            f->busy = 0;
            pthread_cond_broadcast(&f->idle_cv);
            pthread_cond_wait(&f->cv, &f->mu);
            continue;
        }
        f->busy = 1;
        double d = fillwork_duty_now(f);
        unsigned gen = f->gen;
        pthread_mutex_unlock(&f->mu);
        if (d <= FILLWORK_DUTY_MIN) {
            sleep_ns(FILLWORK_IDLE_POLL_NS);
        } else {
            int k = issued & 1;
            double gap = f->gemm_s * (1 - d) / d, first = rankplan_fill_slice(f->gemm_s, d, 0, RANKPLAN_FILL_SLICE_S);
            if (*f->stop_host >= gen) {   /* stopped since the duty was read: issue nothing more */
                pthread_mutex_lock(&f->mu);
                continue;
            }
            bad = gemm_chain_run(f->g, f->stream) != 0 || CUDA_CHECK(cudaEventRecord(f->ev[k], f->stream)) ||
                  (first > 0 && CUDA_CHECK(filler_gap(first, f->stop_dev, gen, f->stream)));
            issued++;
            /* at most one GEMM in flight: wait for this one, unless its gap is too short to hide the next launch
             * (then for the one before it) */
            if (!bad && (gap >= FILLWORK_AHEAD_GAP_S || issued >= 2))
                bad = fillwork_wait_event(f, gap >= FILLWORK_AHEAD_GAP_S ? f->ev[k] : f->ev[k ^ 1], gen) != 0;
            if (!bad && first > 0 && first < gap - 2e-6)   /* a gap of more than one wait: its first runs now */
                bad = fillwork_gap_rest(f, first, gen) != 0;
        }
        pthread_mutex_lock(&f->mu);
        if (bad) {
            f->failed = 1;
            gl_log("filler: issuing its GEMMs failed on GPU %d (see above): the filler stops", f->device);
        }
    }
    f->busy = 0;
    pthread_cond_broadcast(&f->idle_cv);
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* Measures one filler GEMM's time on the stream (warm, then 10 timed). 0 or -1. */
static int fillwork_time(struct fillwork *f)
{
    float ms = 0;
    int bad = 0;
    for (int i = 0; i < 3 && !bad; i++)
        bad = gemm_chain_run(f->g, f->stream);
    bad = bad || CUDA_CHECK(cudaEventRecord(f->ev[0], f->stream));
    for (int i = 0; i < 10 && !bad; i++)
        bad = gemm_chain_run(f->g, f->stream);
    bad = bad || CUDA_CHECK(cudaEventRecord(f->ev[1], f->stream)) || CUDA_CHECK(cudaEventSynchronize(f->ev[1])) ||
          CUDA_CHECK(cudaEventElapsedTime(&ms, f->ev[0], f->ev[1]));
    f->gemm_s = ms * 1e-3 / 10;
    return bad || !(f->gemm_s > 0) ? -1 : 0;
}

struct fillwork *fillwork_create(struct ctl *c, int beside_nccl, char *why, size_t n)
{
    struct fillwork *f = xcalloc(1, sizeof *f);
    int lo = 0, hi = 0, sms = 0;
    f->ctl = c;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    pthread_cond_init(&f->idle_cv, NULL);
    if (CUDA_CHECK(cudaGetDevice(&f->device)) ||
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, f->device)) ||
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi)) ||
        CUDA_CHECK(cudaStreamCreateWithPriority(&f->stream, cudaStreamNonBlocking, lo)) ||   /* lo: the lowest */
        CUDA_CHECK(cudaEventCreateWithFlags(&f->ev[0], cudaEventDefault)) ||
        CUDA_CHECK(cudaEventCreateWithFlags(&f->ev[1], cudaEventDefault)) ||
        CUDA_CHECK(cudaEventCreateWithFlags(&f->ev[2], cudaEventDisableTiming)) ||
        CUDA_CHECK(cudaHostAlloc((void **)&f->stop_host, sizeof(unsigned), cudaHostAllocMapped)) ||
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&f->stop_dev, (void *)f->stop_host, 0))) {
        snprintf(why, n, "filler: cannot set up its stream, events and stop word (see the message above)");
        fillwork_destroy(f);
        return NULL;
    }
    *f->stop_host = 0;
    const char *env = getenv("NCCL_MAX_CTAS");
    int reserve = env && atoi(env) > 0 ? atoi(env) : FILLWORK_RESERVED_SMS;
    int target = beside_nccl ? (sms - reserve > sms / 2 ? sms - reserve : sms / 2) : 0;
    char err[256];
    if (!(f->g = gemm_chain_create_sm(DT_BF16, FILLWORK_DIM, FILLWORK_DIM, FILLWORK_DIM, 1, 0xF111E5ull, target, f->stream,
                                      err, sizeof err)) ||
        fillwork_time(f) != 0) {
        snprintf(why, n, "filler: its GEMM (bf16 %dx%dx%d) cannot run: %s", FILLWORK_DIM, FILLWORK_DIM, FILLWORK_DIM,
                 f->g ? "timing it failed" : err);
        fillwork_destroy(f);
        return NULL;
    }
    if (pthread_create(&f->thr, NULL, fillwork_main, f) != 0) {
        snprintf(why, n, "filler: cannot start its thread");
        fillwork_destroy(f);
        return NULL;
    }
    f->thr_on = 1;
    return f;
}

double fillwork_gemm_s(const struct fillwork *f) { return f->gemm_s; }

/* Starts a new generation in mode m (under mu, then wakes the thread): the gap of the generation before ends now.
 * 0, or -1 when the thread has failed. */
static int fillwork_start(struct fillwork *f, int m)
{
    int failed = f->failed;
    *f->stop_host = f->gen;   /* the word only rises, and the new generation is above it */
    __sync_synchronize();
    f->gen++;
    f->mode = m;
    fillwork_window_close(f);
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return failed ? -1 : 0;
}

int fillwork_hold(struct fillwork *f, double duty)
{
    if (!(duty > 0)) {
        fillwork_stop(f);
        return 0;
    }
    pthread_mutex_lock(&f->mu);
    if (f->mode == FW_HOLD && fabs(f->duty - duty) < 1e-6) {
        pthread_mutex_unlock(&f->mu);
        return f->failed ? -1 : 0;
    }
    f->duty = duty < 1 ? duty : 1;
    return fillwork_start(f, FW_HOLD);
}

int fillwork_follow(struct fillwork *f, const struct fill_plan *plan, const struct fill_curve *curve,
                    struct fill_corr *corr, const struct fill_learn *learn, uint64_t t0_ns)
{
    pthread_mutex_lock(&f->mu);
    fillwork_window_close(f);   /* the window of the plan before, against that plan's floor */
    f->plan = *plan;
    f->curve = *curve;
    f->corr = corr;
    f->learn = learn;
    f->t0_ns = t0_ns;
    return fillwork_start(f, fill_plan_active(plan) ? FW_FOLLOW : FW_OFF);
}

void fillwork_stop(struct fillwork *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    *f->stop_host = f->gen;   /* the gap in progress ends; the thread issues nothing more */
    __sync_synchronize();
    fillwork_window_close(f);   /* what the floor drew goes to this plan's correction, none later */
    f->corr = NULL;
    f->learn = NULL;
    if (f->mode != FW_OFF) {
        f->mode = FW_OFF;
        pthread_cond_signal(&f->cv);
    }
    pthread_mutex_unlock(&f->mu);
}

static_assert(FILL_LEARN_BINS == CTL_BOOST_BINS, "the boost's bins in the control block");

int fillwork_learn(struct fillwork *f, struct fill_learn *l, uint64_t t_end_ns, double idle_w)
{
    static struct ctl_sample_copy cs[CTL_SAMPLES];   /* the worker's thread only */
    static struct fill_sample fs[CTL_SAMPLES];
    if (!f || !l)
        return 0;
    pthread_mutex_lock(&f->mu);   /* the plan and the boosts the filler's thread reads */
    int moved = 0;
    if (fill_plan_active(&f->plan) && t_end_ns > f->t0_ns) {
        int n = ctl_read_samples(f->ctl, f->t0_ns, t_end_ns, cs, CTL_SAMPLES);
        for (int i = 0; i < n; i++)
            fs[i] = (struct fill_sample){ (double)(cs[i].t_ns - f->t0_ns) * 1e-9, cs[i].w };
        moved = fill_learn_gap(l, &f->plan, idle_w, (double)(t_end_ns - f->t0_ns) * 1e-9, fs, n, 0);
    }
    pthread_mutex_unlock(&f->mu);
    return moved;
}

int fillwork_wait(struct fillwork *f)
{
    if (!f)
        return 0;
    fillwork_stop(f);
    pthread_mutex_lock(&f->mu);
    while (f->busy && f->thr_on)
        pthread_cond_wait(&f->idle_cv, &f->mu);
    int failed = f->failed;
    pthread_mutex_unlock(&f->mu);
    int rc = f->stream ? CUDA_CHECK(cudaStreamSynchronize(f->stream)) : 0;
    return failed ? -1 : rc;
}

void fillwork_destroy(struct fillwork *f)
{
    if (!f)
        return;
    if (f->thr_on) {
        pthread_mutex_lock(&f->mu);
        f->quit = 1;
        f->mode = FW_OFF;
        if (f->stop_host)
            *f->stop_host = f->gen;
        pthread_cond_signal(&f->cv);
        pthread_mutex_unlock(&f->mu);
        pthread_join(f->thr, NULL);
    }
    if (f->stream)
        CUDA_CHECK(cudaStreamSynchronize(f->stream));
    gemm_chain_destroy(f->g);
    for (int i = 0; i < 3; i++)
        if (f->ev[i])
            CUDA_CHECK(cudaEventDestroy(f->ev[i]));
    if (f->stream)
        CUDA_CHECK(cudaStreamDestroy(f->stream));
    if (f->stop_host)
        CUDA_CHECK(cudaFreeHost((void *)f->stop_host));
    pthread_cond_destroy(&f->cv);
    pthread_cond_destroy(&f->idle_cv);
    pthread_mutex_destroy(&f->mu);
    free(f);
}
