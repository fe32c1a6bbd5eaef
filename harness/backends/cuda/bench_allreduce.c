/* harness/backends/cuda/bench_allreduce.c: `gauntlet bench allreduce`: nccl-tests-style all-reduce rows over the local
 * GPUs from one process (nccl-tests' single-process mode, -g N).
 *
 * Method, as nccl-tests' all_reduce_perf: communicators from ncclCommInitAll; each row runs --warmup untimed
 * then --iters timed ncclAllReduce (sum) calls, one ncclGroupStart/End over the GPUs per call, out-of-place
 * (sendbuff != recvbuff, nccl-tests' first column set); time per all-reduce = the slowest GPU's CUDA-event time
 * across the timed calls / iters; algbw = bytes / time; busbw = algbw * 2(n-1)/n. #wrong is counted after the
 * timed calls: every rank's send buffer holds small integers (rank-dependent) whose sums are exact in the type;
 * the receive buffers are cleared, reduced once more and compared on the host with the exact sums. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll.h"
#include "cuda_check.h"
#include "util.h"

#define BENCH_VALUE_MAX 1024   /* largest value a rank sends; sums stay exact below the type's limit */

/* A --dtype choice: its NCCL type and the largest integer up to which every sum is exact in it. */
struct bench_type {
    const char *name;
    ncclDataType_t nccl;
    long exact;
};

static const struct bench_type bench_types[] = {
    { "bf16", ncclBfloat16, 256 },
    { "fp16", ncclFloat16, 2048 },
    { "tf32", ncclFloat32, 1l << 24 },   /* tf32 is a GEMM mode: its all-reduce moves fp32 */
    { "fp8", ncclFloat8e4m3, 16 },
    { "float", ncclFloat32, 1l << 24 },
};

struct bench_args {
    size_t minbytes, maxbytes;
    long factor, iters, warmup, ngpus;   /* ngpus 0: all visible */
    double timeout_s;
    const struct bench_type *type;
};

/* The one option table: parsing, defaults and --help all read it. */
enum bench_key { B_MINBYTES, B_MAXBYTES, B_FACTOR, B_ITERS, B_WARMUP, B_DTYPE, B_NGPUS, B_TIMEOUT, B_NKEYS };
static const struct bench_opt {
    const char *name, *arg, *def, *help;
} bench_opts[B_NKEYS] = {
    [B_MINBYTES] = { "--minbytes", "SIZE", "8", "smallest message in bytes (K, M, G suffixes are binary)" },
    [B_MAXBYTES] = { "--maxbytes", "SIZE", "128M", "largest message in bytes" },
    [B_FACTOR] = { "--factor", "N", "2", "size multiplier from one row to the next (>= 2)" },
    [B_ITERS] = { "--iters", "N", "20", "timed all-reduces per row" },
    [B_WARMUP] = { "--warmup", "N", "5", "untimed all-reduces per row before the timed ones" },
    [B_DTYPE] = { "--dtype", "T", "float", "bf16, fp16, tf32 (moved as fp32), fp8 (e4m3, sm_90+), float" },
    [B_NGPUS] = { "--ngpus", "N", "0", "GPUs to use, the first N visible (0: all)" },
    [B_TIMEOUT] = { "--timeout", "S", "120", "seconds one row may take before the communicators are aborted" },
};

/* One measured row. */
struct bench_row {
    size_t bytes, count;
    double time_us, algbw, busbw;
    long wrong;   /* -1: the sums are not exact in this type at this GPU count */
};

/* The GPUs, their communicators and buffers. */
struct bench {
    int n;
    ncclComm_t *comms;
    cudaStream_t *streams;
    cudaEvent_t *start, *stop;
    void **send, **recv;
    unsigned char *host;   /* one buffer of maxbytes for fills and checks */
    int aborted;
};

/* Parses a size: digits with an optional binary K/M/G/T suffix (KB, KiB also); -1 when malformed. */
static int bench_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || !isdigit((unsigned char)*s))   /* strtoull skips spaces and negates: " -1" is no size */
        return -1;
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    default: break;
    }
    if (shift && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
        end += strlen(end);
    if (*end || (shift && v > (SIZE_MAX >> shift)))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

/* Parses a whole decimal integer in [lo, hi]; -1 otherwise. */
static int bench_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Sets option k from its text; names the option and the value on stderr and returns -1 when it is bad. */
static int bench_set(struct bench_args *a, enum bench_key k, const char *v)
{
    const char *want = NULL;
    double d;
    char *end;
    switch (k) {
    case B_MINBYTES: if (bench_parse_size(v, &a->minbytes) || !a->minbytes) want = "a size >= 1"; break;
    case B_MAXBYTES: if (bench_parse_size(v, &a->maxbytes) || !a->maxbytes) want = "a size >= 1"; break;
    case B_FACTOR: if (bench_parse_long(v, 2, 1 << 20, &a->factor)) want = "an integer >= 2"; break;
    case B_ITERS: if (bench_parse_long(v, 1, 1l << 30, &a->iters)) want = "an integer >= 1"; break;
    case B_WARMUP: if (bench_parse_long(v, 0, 1l << 30, &a->warmup)) want = "an integer >= 0"; break;
    case B_NGPUS: if (bench_parse_long(v, 0, 1 << 16, &a->ngpus)) want = "an integer >= 0"; break;
    case B_TIMEOUT:
        errno = 0;
        d = strtod(v, &end);
        if (end == v || *end || errno || !(d > 0) || !isfinite(d))
            want = "a number of seconds > 0";
        else
            a->timeout_s = d;
        break;
    case B_DTYPE:
        a->type = NULL;
        for (size_t i = 0; i < ARRAY_LEN(bench_types); i++)
            if (!strcmp(v, bench_types[i].name))
                a->type = &bench_types[i];
        if (!a->type)
            want = "one of bf16, fp16, tf32, fp8, float";
        break;
    default: want = "a known option"; break;
    }
    if (want) {
        gl_log("bench allreduce: %s '%s': expected %s", bench_opts[k].name, v, want);
        return -1;
    }
    return 0;
}

/* Prints the usage from the option table. */
static void bench_usage(void)
{
    printf("usage: gauntlet bench allreduce [options]\n"
           "nccl-tests-style all-reduce rows (out-of-place, sum) over this node's GPUs from one process.\n");
    for (int k = 0; k < B_NKEYS; k++)
        printf("  %-10s %-5s %s (default %s)\n", bench_opts[k].name, bench_opts[k].arg, bench_opts[k].help,
               bench_opts[k].def);
}

/* Fills a from the defaults, then from argv ("--name value" or "--name=value"); 1 after --help, -1 when bad. */
static int bench_parse(int argc, char **argv, struct bench_args *a)
{
    memset(a, 0, sizeof *a);
    for (int k = 0; k < B_NKEYS; k++)
        if (bench_set(a, (enum bench_key)k, bench_opts[k].def))
            return -1;   /* a default that does not parse: a bug, said loudly */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            bench_usage();
            return 1;
        }
        const char *eq = strchr(argv[i], '=');
        size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        int k = 0;
        while (k < B_NKEYS && (strlen(bench_opts[k].name) != len || strncmp(argv[i], bench_opts[k].name, len)))
            k++;
        if (k == B_NKEYS) {
            gl_log("bench allreduce: unknown argument '%s' (--help lists the options)", argv[i]);
            return -1;
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) {
            gl_log("bench allreduce: %s needs a value (%s)", bench_opts[k].name, bench_opts[k].arg);
            return -1;
        }
        if (bench_set(a, (enum bench_key)k, v))
            return -1;
    }
    if (a->minbytes > a->maxbytes) {
        gl_log("bench allreduce: --minbytes %zu is larger than --maxbytes %zu", a->minbytes, a->maxbytes);
        return -1;
    }
    return 0;
}

/* Returns rank r's value at element i: 1..m, so that n ranks sum to at most n*m. */
static long bench_value(size_t i, int r, long m)
{
    return 1 + (long)((i + 3u * (size_t)r) % (size_t)m);
}

/* Checks the GPUs can run the type and hold both buffers; a message and -1 when not. */
static int bench_check_gpus(const struct bench_args *a, int n, size_t bytes)
{
    int version = 0;
    if (NCCL_CHECK(ncclGetVersion(&version)))
        return -1;
    for (int g = 0; g < n; g++) {
        int major = 0;
        size_t free_b = 0, total_b = 0;
        if (CUDA_CHECK(cudaSetDevice(g)) || CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, g)) ||
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b)))
            return -1;
        if (a->type->nccl == ncclFloat8e4m3 && (major < 9 || version < 22403)) {
            gl_log("bench allreduce: --dtype fp8 needs sm_90+ GPUs and NCCL >= 2.24.3 (GPU %d is sm_%d0, NCCL %d)",
                   g, major, version);
            return -1;
        }
        if (bytes > free_b / 2) {
            gl_log("bench allreduce: GPU %d: send and receive buffers need 2 x %zu bytes but %zu of %zu bytes are "
                   "free: lower --maxbytes", g, bytes, free_b, total_b);
            return -1;
        }
    }
    return 0;
}

/* Aborts every communicator (after an error: nothing may wait on a peer that is gone). */
static void bench_abort(struct bench *b)
{
    for (int g = 0; g < b->n && !b->aborted; g++)
        if (b->comms[g])
            NCCL_CHECK(ncclCommAbort(b->comms[g]));   /* said where it fails: the others are aborted all the same */
    b->aborted = 1;
}

/* Waits for every stream, polling each comm's asynchronous error; aborts all comms on error or timeout. */
static int bench_sync(struct bench *b, double timeout_s)
{
    uint64_t t0 = mono_ns();
    int g = 0;
    while (g < b->n) {
        cudaError_t q = cudaStreamQuery(b->streams[g]);
        if (q == cudaSuccess) {
            g++;
            continue;
        }
        if (q != cudaErrorNotReady) {
            CUDA_CHECK(q);
            break;
        }
        ncclResult_t state = ncclSuccess;
        if (NCCL_CHECK(ncclCommGetAsyncError(b->comms[g], &state)))
            break;
        if (state != ncclSuccess && state != ncclInProgress) {
            gl_log("bench allreduce: GPU %d: asynchronous NCCL error: %s (%s)", g, ncclGetErrorString(state),
                   ncclGetLastError(b->comms[g]));
            break;
        }
        if ((double)(mono_ns() - t0) > timeout_s * 1e9) {
            gl_log("bench allreduce: GPU %d did not finish within --timeout %g s", g, timeout_s);
            break;
        }
        sched_yield();
    }
    if (g == b->n)
        return 0;
    bench_abort(b);
    return -1;
}

/* Enqueues one all-reduce of count elements on every GPU, as one group. */
static int bench_launch(struct bench *b, const struct bench_args *a, size_t count)
{
    if (NCCL_CHECK(ncclGroupStart()))
        return -1;
    int rc = 0;
    for (int g = 0; g < b->n && !rc; g++)
        rc = NCCL_CHECK(ncclAllReduce(b->send[g], b->recv[g], count, a->type->nccl, ncclSum, b->comms[g],
                                      b->streams[g]));
    if (NCCL_CHECK(ncclGroupEnd()) || rc) {
        bench_abort(b);
        return -1;
    }
    return 0;
}

/* Fills every GPU's send buffer with its rank's values over maxcount elements. */
static int bench_fill(struct bench *b, const struct bench_args *a, size_t maxcount, long m)
{
    size_t esize = coll_type_size(a->type->nccl);
    for (int g = 0; g < b->n; g++) {
        for (size_t i = 0; i < maxcount; i++)
            if (coll_put_int(a->type->nccl, b->host + i * esize, bench_value(i, g, m)))
                return -1;   /* m keeps every value exact: cannot happen */
        if (CUDA_CHECK(cudaSetDevice(g)) || CUDA_CHECK(cudaMemcpy(b->send[g], b->host, maxcount * esize, cudaMemcpyHostToDevice)))
            return -1;
    }
    return 0;
}

/* Counts the elements of every GPU's receive buffer that differ from the exact sums (-1: not checkable). */
static int bench_count_wrong(struct bench *b, const struct bench_args *a, size_t count, long m, long *wrong)
{
    size_t esize = coll_type_size(a->type->nccl);
    unsigned char *want = xmalloc((size_t)m * esize);
    int exact = 1;
    for (long j = 0; j < m && exact; j++) {
        long sum = 0;
        for (int r = 0; r < b->n; r++)
            sum += bench_value((size_t)j, r, m);
        exact = coll_put_int(a->type->nccl, want + j * esize, sum) == 0;
    }
    *wrong = exact ? 0 : -1;
    for (int g = 0; g < b->n && exact; g++) {
        if (CUDA_CHECK(cudaSetDevice(g)) || CUDA_CHECK(cudaMemcpy(b->host, b->recv[g], count * esize, cudaMemcpyDeviceToHost))) {
            free(want);
            return -1;
        }
        for (size_t i = 0; i < count; i++)
            *wrong += memcmp(b->host + i * esize, want + (i % (size_t)m) * esize, esize) != 0;
    }
    free(want);
    return 0;
}

/* Measures one row of count elements: warm-up, timed calls between events, then the check. */
static int bench_row(struct bench *b, const struct bench_args *a, size_t count, long m, struct bench_row *row)
{
    size_t esize = coll_type_size(a->type->nccl);
    memset(row, 0, sizeof *row);
    row->count = count;
    row->bytes = count * esize;
    for (long i = 0; i < a->warmup; i++)
        if (bench_launch(b, a, count))
            return -1;
    if (bench_sync(b, a->timeout_s))
        return -1;
    for (int g = 0; g < b->n; g++)
        if (CUDA_CHECK(cudaSetDevice(g)) || CUDA_CHECK(cudaEventRecord(b->start[g], b->streams[g])))
            return -1;
    for (long i = 0; i < a->iters; i++)
        if (bench_launch(b, a, count))
            return -1;
    for (int g = 0; g < b->n; g++)
        if (CUDA_CHECK(cudaSetDevice(g)) || CUDA_CHECK(cudaEventRecord(b->stop[g], b->streams[g])))
            return -1;
    if (bench_sync(b, a->timeout_s))
        return -1;
    float worst_ms = 0;
    for (int g = 0; g < b->n; g++) {
        float ms = 0;
        if (CUDA_CHECK(cudaSetDevice(g)) || CUDA_CHECK(cudaEventElapsedTime(&ms, b->start[g], b->stop[g])))
            return -1;
        worst_ms = ms > worst_ms ? ms : worst_ms;
    }
    row->time_us = worst_ms * 1e3 / (double)a->iters;
    row->algbw = row->time_us > 0 ? (double)row->bytes / 1e9 / (row->time_us * 1e-6) : 0;
    row->busbw = row->algbw * coll_busbw_factor(b->n);
    /* The check, outside the timed calls: cleared receive buffers, one more all-reduce, exact comparison. */
    for (int g = 0; g < b->n; g++)
        if (CUDA_CHECK(cudaSetDevice(g)) || CUDA_CHECK(cudaMemsetAsync(b->recv[g], 0, row->bytes, b->streams[g])))
            return -1;
    if (bench_launch(b, a, count) || bench_sync(b, a->timeout_s))
        return -1;
    return bench_count_wrong(b, a, count, m, &row->wrong);
}

/* Prints the header: versions, method, GPUs, column titles. */
static void bench_print_header(const struct bench *b, const struct bench_args *a)
{
    int version = 0;
    if (ncclGetVersion(&version) != ncclSuccess)
        version = 0;   /* printed as 0.0.0; bench_check_gpus already read it once */
    printf("# gauntlet bench allreduce: NCCL %d.%d.%d, %d GPU%s in one process, out-of-place, sum, %s (%s)\n",
           version / 10000, version / 100 % 100, version % 100, b->n, b->n == 1 ? "" : "s", a->type->name,
           coll_type_name(a->type->nccl));
    printf("#  minbytes %zu, maxbytes %zu, factor %ld, warmup %ld, iters %ld; time: the slowest GPU's CUDA-event "
           "time per all-reduce\n", a->minbytes, a->maxbytes, a->factor, a->warmup, a->iters);
    for (int g = 0; g < b->n; g++) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, g) == cudaSuccess)
            printf("#  rank %d: GPU %d %s (sm_%d%d)\n", g, g, p.name, p.major, p.minor);
    }
    printf("#\n# %10s  %12s  %8s  %10s  %8s  %8s  %6s\n", "size", "count", "type", "time", "algbw", "busbw", "#wrong");
    printf("# %10s  %12s  %8s  %10s  %8s  %8s  %6s\n", "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

/* Prints one row. */
static void bench_print_row(const struct bench_row *r, const struct bench_args *a)
{
    char wrong[24];
    if (r->wrong < 0)
        snprintf(wrong, sizeof wrong, "n/a");
    else
        snprintf(wrong, sizeof wrong, "%ld", r->wrong);
    printf("  %10zu  %12zu  %8s  %10.2f  %8.2f  %8.2f  %6s\n", r->bytes, r->count, coll_type_name(a->type->nccl),
           r->time_us, r->algbw, r->busbw, wrong);
    fflush(stdout);
}

/* Sets up streams, events, buffers and communicators for n GPUs (maxbytes each way). */
static int bench_setup(struct bench *b, int n, size_t maxbytes)
{
    b->n = n;
    b->comms = xcalloc((size_t)n, sizeof *b->comms);
    b->streams = xcalloc((size_t)n, sizeof *b->streams);
    b->start = xcalloc((size_t)n, sizeof *b->start);
    b->stop = xcalloc((size_t)n, sizeof *b->stop);
    b->send = xcalloc((size_t)n, sizeof *b->send);
    b->recv = xcalloc((size_t)n, sizeof *b->recv);
    b->host = xmalloc(maxbytes);
    for (int g = 0; g < n; g++)
        if (CUDA_CHECK(cudaSetDevice(g)) || CUDA_CHECK(cudaStreamCreateWithFlags(&b->streams[g], cudaStreamNonBlocking)) ||
            CUDA_CHECK(cudaEventCreate(&b->start[g])) || CUDA_CHECK(cudaEventCreate(&b->stop[g])) ||
            CUDA_CHECK(cudaMalloc(&b->send[g], maxbytes)) || CUDA_CHECK(cudaMalloc(&b->recv[g], maxbytes)))
            return -1;
    int *devs = xcalloc((size_t)n, sizeof *devs);
    for (int g = 0; g < n; g++)
        devs[g] = g;
    int rc = NCCL_CHECK(ncclCommInitAll(b->comms, n, devs));   /* blocking: local GPUs only */
    free(devs);
    if (rc)
        memset(b->comms, 0, (size_t)n * sizeof *b->comms);
    return rc;
}

/* Frees what bench_setup made; communicators are destroyed, or were aborted after an error. */
static void bench_teardown(struct bench *b)
{
    for (int g = 0; g < b->n; g++) {
        if (b->comms && b->comms[g] && !b->aborted)
            NCCL_CHECK(ncclCommDestroy(b->comms[g]));
        if (cudaSetDevice(g) != cudaSuccess)
            continue;
        if (b->streams && b->streams[g])
            CUDA_CHECK(cudaStreamDestroy(b->streams[g]));
        if (b->start && b->start[g])
            CUDA_CHECK(cudaEventDestroy(b->start[g]));
        if (b->stop && b->stop[g])
            CUDA_CHECK(cudaEventDestroy(b->stop[g]));
        if (b->send && b->send[g])
            CUDA_CHECK(cudaFree(b->send[g]));
        if (b->recv && b->recv[g])
            CUDA_CHECK(cudaFree(b->recv[g]));
    }
    free(b->comms);
    free(b->streams);
    free(b->start);
    free(b->stop);
    free(b->send);
    free(b->recv);
    free(b->host);
}

int bench_allreduce_main(int argc, char **argv)
{
    struct bench_args a;
    int parsed = bench_parse(argc, argv, &a);
    if (parsed)
        return parsed > 0 ? EXIT_OK : EXIT_INPUT;
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev < 1) {
        gl_log("bench allreduce: no usable GPU: %s%s", e != cudaSuccess ? "cudaGetDeviceCount: " : "",
               e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device is visible");
        return EXIT_ENV;
    }
    if (a.ngpus > ndev) {
        gl_log("bench allreduce: --ngpus %ld but only %d GPU%s visible", a.ngpus, ndev, ndev == 1 ? " is" : "s are");
        return EXIT_INPUT;
    }
    int n = a.ngpus ? (int)a.ngpus : ndev;
    size_t esize = coll_type_size(a.type->nccl);
    size_t maxcount = a.maxbytes / esize;
    if (maxcount == 0) {
        gl_log("bench allreduce: --maxbytes %zu holds no %s element (%zu bytes)", a.maxbytes, a.type->name, esize);
        return EXIT_INPUT;
    }
    if (bench_check_gpus(&a, n, maxcount * esize))
        return EXIT_ENV;
    long m = a.type->exact / n;
    m = m < 1 ? 1 : m > BENCH_VALUE_MAX ? BENCH_VALUE_MAX : m;

    struct bench b = { 0 };
    int code = EXIT_OK;
    if (bench_setup(&b, n, maxcount * esize) || bench_fill(&b, &a, maxcount, m)) {
        gl_log("bench allreduce: setting up %d GPU%s failed (see above)", n, n == 1 ? "" : "s");
        bench_teardown(&b);
        return EXIT_ENV;
    }
    bench_print_header(&b, &a);
    double busbw_sum = 0;
    int rows = 0;
    for (size_t size = a.minbytes; size <= a.maxbytes; size *= (size_t)a.factor) {
        size_t count = size / esize;
        struct bench_row row;
        if (count && bench_row(&b, &a, count, m, &row)) {
            gl_log("bench allreduce: the %zu-byte row failed (see above)", count * esize);
            code = EXIT_ENV;
            break;
        }
        if (count) {
            bench_print_row(&row, &a);
            busbw_sum += row.busbw;
            rows++;
            if (row.wrong > 0)
                code = EXIT_CHECK;
        }
        if (size > SIZE_MAX / (size_t)a.factor)
            break;
    }
    if (code != EXIT_ENV) {
        printf("# Out of bounds values : %s\n", code == EXIT_CHECK ? "some #wrong > 0 (FAILED)" : "0 OK");
        printf("# Avg bus bandwidth    : %.3f GB/s over %d rows\n", rows ? busbw_sum / rows : 0.0, rows);
        if (n == 1)
            printf("# busbw needs >= 2 GPUs: the all-reduce bus-bandwidth factor 2(n-1)/n is 0 for n = 1\n");
    }
    bench_teardown(&b);
    return code;
}
