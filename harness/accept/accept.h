/* harness/accept/accept.h: the acceptance suite — `gauntlet accept` runs the shipped acceptance scenarios and judges
 * each scenario's `checks:` from its results folder: a verdict per check, per GPU, per node, printed as a
 * table and written as verdicts.json and JUnit XML (docs/acceptance.md). */
#ifndef GAUNTLET_ACCEPT_H
#define GAUNTLET_ACCEPT_H

#include <jansson.h>
#include <stdio.h>

#include "cli.h"

#include "scenario.h"

enum verdict_status { V_PASS = 0, V_FAIL, V_SKIP };

struct verdict {
    char scenario[64];
    char check[32];
    char subject[48];      /* "node 0 gpu 2", "node 0", "fault 1 (crash, node 0 gpu 3)" */
    int node, gpu, rank;   /* its node, the GPU's index on that node and its global rank (node x ranks per node +
                            * gpu); -1 where the verdict is not about one node or GPU */
    int status;            /* enum verdict_status */
    double value, limit;   /* the figure and its threshold (NAN where none) */
    char cmp[3];           /* ">=" or "<=": how value must compare with limit */
    char unit[16];
    char note[240];        /* why it failed or was skipped; what was measured */
};

struct verdicts {
    struct verdict *v;
    int n, cap;
    int stopped_by;   /* the stop signal that ended the suite (SIGTERM...), 0: none */
};

/* Judges sc's checks on the results in rundir (summary.json, events.jsonl, power.csv), run on backend, with
 * each node's checkpoint write and read bandwidth (io_w, io_r: one per node, NAN where it failed; NULL when
 * not measured); appends to out. 0, or -1 with why when the folder cannot be read. */
int accept_evaluate(const struct scenario *sc, const char *rundir, const char *backend, const double *io_w,
                    const double *io_r, struct verdicts *out, char *why, size_t n);
/* A checkpoint rate that could not be measured on that target, in place of GB/s (accept_ckpt_io; the checks SKIP it
 * saying why): a RAM file system (tmpfs, ramfs: both rates), or a file whose pages stayed in the page cache (the read:
 * it would measure memory). NAN is a rate that failed. */
#define ACCEPT_IO_RAMFS (-1.0)
#define ACCEPT_IO_CACHED (-2.0)
/* A node whose measurement did not end within accept_io_wait_s (node 0 took it for lost): its write FAILs. */
#define ACCEPT_IO_LATE (-3.0)
/* How long node 0 waits for every node's checkpoint rates: 20 s and twice the time the bytes take at both floors
 * (a node not done by then has failed a floor), at most an hour. */
double accept_io_wait_s(const struct check_io *c);
/* Measures checkpoint I/O to dir: bytes written and fsynced, its pages dropped, read back (GB/s each; a rate not
 * measurable there is ACCEPT_IO_RAMFS or ACCEPT_IO_CACHED, why saying so). 0, -1 with why, or 1 when a stop signal
 * is pending (supervisor_stop_signal: before or during it; why says so): nothing measured. */
int accept_ckpt_io(const char *dir, uint64_t bytes, double *wr_gbs, double *rd_gbs, char *why, size_t n);
/* The expected dense GEMM rate (TFLOP/s) of a GPU model for a dtype; NAN when not known. */
double accept_expected_tflops(const char *gpu_name, int dtype);
/* The expected all-reduce bus bandwidth (GB/s) of a node of these GPUs (Hopper SXM over NVLink 4); NAN when not known. */
double accept_expected_busbw(const char *gpu_name);
/* Writes the verdicts as a table. */
void accept_print(FILE *f, const struct verdicts *v);
json_t *accept_json(const struct verdicts *v);
/* Writes JUnit XML (one testcase per verdict); 0 or -1. */
int accept_junit(const struct verdicts *v, const char *path);
/* The verdicts as Prometheus families (the same text in OpenMetrics and the text format): one series per check,
 * gauntlet_accept_check{scenario,check,subject,node,status} 1, and the counts by status; malloc'd. */
char *accept_prom(const struct verdicts *v);
void accept_free(struct verdicts *v);
/* Appends a verdict (subject "run", no figure) and returns it; accept_note sets its note, accept_skip adds a
 * SKIP with its reason. */
struct verdict *accept_add(struct verdicts *vs, const struct scenario *sc, const char *check, int status);
void accept_note(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct verdict *accept_skip(struct verdicts *vs, const struct scenario *sc, const char *check, const char *why);

/* The length of the UTF-8 character s starts (1-4; JSON's rules: no overlong form, no surrogate, nothing past
 * U+10FFFF), 0 where s starts none (or at its end). */
size_t accept_utf8_len(const char *s);
/* Copies src into dst (n bytes) as valid UTF-8, cut on a character's boundary: a byte that starts no character becomes
 * '?'. Returns the bytes written. */
size_t accept_utf8_copy(char *dst, size_t n, const char *src);

/* gauntlet accept [--level 0|1|2|3] [--backend auto|cuda|sim] [--out DIR] [--junit FILE] [--scenarios DIR]
 * [--strict] */
int accept_main(int argc, char **argv);
extern const struct cli_cmd accept_cli;

#endif
