/* harness/core/util.h: errors, exit codes, clocks and allocation shared by every part of gauntlet. */
#ifndef GAUNTLET_UTIL_H
#define GAUNTLET_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define GAUNTLET_VERSION "0.1.0"

#ifdef __cplusplus   /* CUDA sources in kernels/ include this header through nvcc (C++) */
#define _Noreturn __attribute__((noreturn))
extern "C" {
#endif

/* Exit codes: the only ones gauntlet uses (docs/architecture.md). */
enum exit_code {
    EXIT_OK = 0,        /* success; every check passed */
    EXIT_CHECK = 1,     /* a check failed, or the run ended early (a worker died, hung) */
    EXIT_INPUT = 2,     /* bad input: scenario, arguments */
    EXIT_ENV = 3,       /* environment: no GPU for --backend cuda, missing library, I/O */
};

/* Which process is speaking, for error messages: "supervisor" or "rank N" (with its host: "gauntlet[rank 3@node7]:").
 * A command without processes of its own says its name instead (util_set_command: "gauntlet check:"); with neither,
 * "gauntlet:". */
void util_set_role(const char *role);
void util_set_command(const char *command);
const char *util_role(void);
/* On several nodes (a launcher's tasks sharing one stdout): this process is node `node` of `nodes`; every line it
 * prints then names it ("gauntlet[node 1/2]: ...", "gauntlet[supervisor node 1/2@host]: ..."). */
void util_set_node(int node, int nodes);
/* Runs argv[0] (looked up in PATH) with argv, its signals unblocked, and waits: its exit code, 127 when it could
 * not be started, 128 + the signal that killed it, -1 when fork failed. */
int run_wait(const char *const *argv);
/* Finds the shipped scenarios' folder: PREFIX/share/gauntlet/scenarios beside an installed binary, SRC/scenarios
 * beside a build folder, the install prefix built in, or ./scenarios. 0, or -1 when none is there (out: the last
 * tried). */
int gl_scenarios_dir(char *out, size_t n);
/* The tag that begins a line printed on stdout: "gauntlet", or "gauntlet[node N/M]" on several nodes. */
const char *gl_tag(void);

/* " at FILE:LINE" when the environment sets GAUNTLET_DEBUG (for whoever reads the source), else "": a message for users
 * names what failed and why, not where in the source. */
const char *gl_where(const char *file, int line);

/* Prints "PREFIX message" on stderr (the prefix above). */
void gl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints like gl_log, then exits with code. */
_Noreturn void gl_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A libc call failed: names the call and strerror(errno) (and file:line under GAUNTLET_DEBUG). Returns -1. */
int gl_syserr(const char *call, const char *file, int line);
#define SYSERR(call) gl_syserr(call, __FILE__, __LINE__)

/* Monotonic clock in nanoseconds: the one timeline for events and samples. */
uint64_t mono_ns(void);
/* Sleeps until the monotonic clock reaches t_ns (returns early never; EINTR retried). */
void sleep_until_ns(uint64_t t_ns);
/* Sleeps for ns nanoseconds. */
void sleep_ns(uint64_t ns);

/* Allocation that never returns NULL: on failure, a message and exit 3. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* Copies src into dst of size n, always terminated; returns 0, or -1 when truncated (cut where a UTF-8 character
 * ends: until 2026-11-30 a cut inside one left text JSON refuses, and the summary or event carrying it was lost). */
int str_copy(char *dst, size_t n, const char *src);
/* The same, but where src does not fit its middle gives way to "…": its first third and its last two thirds are kept
 * (a long path's file name and the OS error after it). */
int str_copy_mid(char *dst, size_t n, const char *src);
/* The length of the longest prefix of s, at most n bytes (s holds at least n), that does not end inside a UTF-8
 * character: where text is cut, it is cut there. */
size_t utf8_fit(const char *s, size_t n);
/* Removes from the end of s a UTF-8 character cut short (what a truncating snprintf leaves); returns s. */
char *utf8_trim(char *s);
/* A new copy of s (xmalloc; free() it) in which every byte that is not part of a valid UTF-8 character (by JSON's
 * rules) is U+FFFD: text from outside made fit for JSON, which holds UTF-8 only. */
char *utf8_lossy(const char *s);

/* Whether path (what names it in the message: "--out") has at most max characters: 0, or -1 after saying
 * "WHAT: path too long (N characters; at most MAX)" on stderr (a path is never used cut short). */
int path_fits(const char *what, const char *path, size_t max);
/* Whether another live process holds dir/.lock (the flock a run takes on its results folder, results.h): 1 with its
 * pid (as recorded in the file, "unknown" when it is not) in pid, 0 when none does (no .lock, or its holder is gone),
 * -1 with errno when it cannot be told. */
int dir_lock_held(const char *dir, char *pid, size_t n);
/* The same, and where none does, keeps the shared lock it took on dir/.lock in *keep (close() gives it up; -1: no
 * .lock to lock): no run can take the folder (and clear it) while the caller reads it. */
int dir_lock_share(const char *dir, char *pid, size_t n, int *keep);
/* Ends a command's output on stdout: flushes it and checks that every write succeeded (a full disk, a closed pipe).
 * EXIT_OK, or EXIT_ENV after saying "stdout: <error>" on stderr. */
int stdout_done(void);

/* Writes all of buf to fd (retrying short writes and EINTR); 0 or -1 with errno. */
int write_all(int fd, const void *buf, size_t len);
/* write_file_durable's outcome when the file is in place but the rename may not survive a power loss. */
#define WRITE_UNSYNCED 1
/* Writes a file whole: the folder opened, a temp file in it, fsync, rename, fsync of the folder. 0: in place and
 * durable; WRITE_UNSYNCED (errno: why): in place (the new content is what a reader sees), but the folder's fsync
 * failed, or the folder could not be opened to sync it (EINVAL or ENOTSUP from a file system that syncs no folder
 * count as synced); -1 with errno: not in place (a file of that name is as it was). */
int write_file_durable(const char *path, const void *buf, size_t len);
/* The same for a caller that only tells written from not: WRITE_UNSYNCED is said on stderr here ("PATH is written,
 * but its folder could not be synced ...") and returns 0, the file being in place. 0, or -1 with errno. */
int write_file_atomic(const char *path, const void *buf, size_t len);
/* Removes from dir the temp files write_file_atomic leaves when its writer is killed mid-write (NAME.tmp.PID, for
 * each NAME of the NULL-terminated names) whose writer is gone: a pid that is alive on this host may still be
 * writing it (another `gauntlet summarize` or `report` of the folder: the folder's lock holds off runs only), and
 * its file stays. *removed: how many went. 0, or -1 with why. */
int dir_sweep_tmp(const char *dir, const char *const *names, int *removed, char *why, size_t n);
/* Reads at most n - 1 bytes of the file at path into buf, NUL-terminated (a /proc file): the bytes read, or -1. */
long read_small(const char *path, char *buf, size_t n);
/* linecap.c: reads a line of f into *line (grown as getline grows it, *cap its size) but never more than max bytes of
 * it: its length (its newline included, where it has one: a last line may not), -1 at the end of the file or on a read
 * error (ferror tells), -2 for a line longer than max bytes (read past to its end, none of it kept). For outside files
 * whose lines are bounded by what writes them: one line of gigabytes no longer takes the memory to hold it. */
ssize_t getline_cap(char **line, size_t *cap, FILE *f, size_t max);
/* Opens a file to read (mode "r"/"rb"; close-on-exec added) only when it is a regular file: a FIFO, device, socket or
 * folder is refused at once without blocking (errno EINVAL for "not a regular file", else open's or fstat's). */
FILE *fopen_regular(const char *path, const char *mode);
/* Starts file (found on PATH) with the argument vector argv — no shell — its stdout a pipe whose read end goes to
 * *out_fd (close-on-exec). Returns the child's pid, or -1 with errno (nothing left open). */
pid_t spawn_reader(const char *file, char *const argv[], int *out_fd);
/* The same with the child's stdin a pipe too, its write end in *in_fd (close-on-exec): a co-process driven line by
 * line. Returns the child's pid, or -1 with errno (nothing left open). Writing after the child has gone raises
 * SIGPIPE: the caller ignores it (main does). */
pid_t spawn_duplex(const char *file, char *const argv[], int *in_fd, int *out_fd);
/* Creates a directory and its parents (mode 0755); 0 or -1 with errno. */
int mkdir_p(const char *path);

/* SplitMix64: the seeded generator used for every random choice (same seed, same run). */
struct rng { uint64_t s; };
void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
double rng_uniform(struct rng *r);   /* [0, 1) */
double rng_normal(struct rng *r);    /* N(0, 1), Box-Muller */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#ifdef __cplusplus
}
#endif

#endif
