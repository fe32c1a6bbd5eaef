/* tests/e2e.h: helpers for tests that run the real gauntlet executable and read what it leaves behind. */
#ifndef GAUNTLET_TESTS_E2E_H
#define GAUNTLET_TESTS_E2E_H

#include <jansson.h>
#include <sys/types.h>

/* The gauntlet executable the tests run: $GAUNTLET_BIN, else the one this build made (a build carried to another
 * machine, as tests/gpu-bundle.sh makes, names where it now lies). */
const char *e2e_bin(void);
/* The source tree: $GAUNTLET_SRC, else the one this build was configured from. */
const char *e2e_src(void);
/* Returns the path of tests/scenarios/gpu/name in the source tree (static storage per call); the test fails if it is
 * missing. Every GPU test's scenario is such a file, which tests/test_gpu_scenarios.c checks where no GPU is. */
const char *e2e_gpu_scenario(const char *name);
/* Returns the median watts of dir/power.csv's rows (one rank's sample each) of phase during run (0-based: from its
 * run_begin to its run_end in events.jsonl); *n gets how many rows; NAN when there are none. */
double e2e_phase_median_w(const char *dir, int run, const char *phase, int *n);
/* Removes path (a file, or a folder with all in it) when this process exits, unless $GAUNTLET_TEST_KEEP is set (not
 * "0"). e2e_scenario's and e2e_outdir's paths are removed so; a test's own temporary paths should be given here. */
void e2e_own(const char *path);
/* Removes path at once: a file, or a folder with all in it (read-only folders opened up first), links not followed. */
void e2e_remove(const char *path);
/* The number of entries of the folder dir whose name holds part (NULL: every entry but . and ..); -1 when dir cannot
 * be opened. */
int e2e_count_entries(const char *dir, const char *part);
/* Returns the path of a log called name (static storage per call, 64 in turn) in this test's own folder of logs:
 * $TMPDIR (else /tmp)/gauntlet-test-logs-XXXXXX/<suite>.<test>/, one such folder per run of a test executable, so
 * that two executables, or two tests of one (--jobs 2), never write into each other's logs. The rule: a test's logs
 * are removed when it passes or is skipped, and kept when it fails (a failed assertion or expectation, a crash, a
 * timeout) so that a failure message naming one can be followed; GAUNTLET_TEST_KEEP keeps them all. At its end the
 * executable says on stderr where logs were kept, and removes the folder where none were. */
const char *e2e_log(const char *name);
/* Writes text into a new temporary scenario file; returns its path (static storage per call site). Each @TMPDIR@ in
 * text becomes one new temporary folder (e2e_tmpdir) of this call: a run's checkpoint path, never shared with another
 * test's run, removed when the test ends. */
const char *e2e_scenario(const char *text);
/* Makes a new empty temporary folder (a run's checkpoint path, say), removed as e2e_own says; returns its path (static
 * storage per call, 16 in turn). */
const char *e2e_tmpdir(void);
/* Makes a new empty temporary folder for results and returns "<folder>/run". */
const char *e2e_outdir(void);
/* Starts gauntlet with args (NULL-terminated), stdout+stderr into log; returns its pid. */
pid_t e2e_start(const char *log, const char *const *args);
/* The same with stdout into the file out (/dev/full: every write fails) and stderr into log; NULL out: into log. */
pid_t e2e_start_to(const char *out, const char *log, const char *const *args);
/* Runs gauntlet to its end; returns its exit code (or 128+signal). Output goes to log. */
int e2e_run(const char *log, const char *const *args);
/* Waits for pid with a timeout in seconds; returns the exit code (128+signal), or -1 on timeout. */
int e2e_wait(pid_t pid, double timeout_s);
/* Reads a whole file into a new string (NULL if missing). */
char *e2e_read(const char *path);
/* Counts lines of dir/events.jsonl whose "event" is type (every line must parse, else the test fails). */
int e2e_count_events(const char *dir, const char *type);
/* Waits until dir/events.jsonl has at least n events of type; returns 0, or -1 on timeout. */
int e2e_wait_events(const char *dir, const char *type, int n, double timeout_s);
/* Returns the pids of the workers from the worker_start events (up to max); the count. */
int e2e_worker_pids(const char *dir, pid_t *pids, int max);
/* Returns 1 when pid is gone (no process, or a zombie nobody waits for). */
int e2e_gone(pid_t pid);
/* Skips the calling test, saying why, unless the cuda backend finds a usable GPU here. */
void e2e_need_gpu(void);
/* Sets, for the processes the test starts next, LD_PRELOAD=lib and each "NAME=VALUE" of env (NULL-ended), ASan told
 * not to check that its runtime comes first (the preload does); e2e_preload_end puts the environment back. */
void e2e_preload(const char *lib, const char *const *env);
void e2e_preload_end(void);
/* Skips the calling test, saying why, unless this build has MPI and mpirun is on PATH (multi-node runs); else sets
 * PMIX_MCA_psec=native and HWLOC_COMPONENTS=-gl (each unless set) for the launches it makes: no 2.25 s of munge
 * retries, no 5 s DNS timeouts for "localhost" at each (e2e.c). */
void e2e_need_mpi(void);
/* Waits for a run writing into dir to start — its first worker_start, after a set-up that on a busy machine may wait
 * on its disk for a while (the run says so; E2E_SETUP_S at most) — and then for n iterations within timeout_s.
 * 0, or -1. */
int e2e_wait_started(const char *dir, int n, double timeout_s);
/* A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice: bound to port 0, then closed), for a
 * run's --metrics: a port made from the pid may be one of the ephemeral ports another test's connection holds. */
int e2e_free_port(void);
/* Where the environment names a folder (GAUNTLET_TEST_KEEP: tests/gpu-check.sh sets one inside its OUTDIR), copies
 * the run in dir (summary.json, power.csv, events.jsonl, scenario.yaml; those present) to that folder's subfolder
 * name, for a GPU run's figures to come back with the check's files; else does nothing. */
void e2e_keep(const char *dir, const char *name);
#define E2E_SETUP_S 120.0
struct shm;
/* Opens the control block of the run whose supervisor is pid (its memfd, through /proc) into *shm, to read what the
 * supervisor and its workers share (shm_close it): 0, or -1. */
int e2e_control_block(pid_t pid, struct shm *shm);
/* Returns 1 when pid is stopped (state T in /proc/pid/stat: SIGSTOP). */
int e2e_stopped(pid_t pid);
/* The mean shortfall of floor_w over the first 120 ms of each gap after one of rank 0's compute phases of run run,
 * from the readings in dir (each the sensor's sample, stamped with the end of its 20 ms window: the windows wholly
 * inside [end, end + 120 ms]). Fills short_w[] per gap (NAN: no sample there), returns the number of gaps. */
int e2e_gap_shortfalls(const char *dir, int run, double floor_w, double *short_w, int max);
/* Integrates the summed power of dir/power.csv over [a, b] s (each tick's sum held to the next tick); J. */
double e2e_csv_energy(const char *dir, double a, double b);
/* The first event of type in dir/events.jsonl, its whole lines only (the caller decrefs it); NULL: none. */
/* Writes text to dir/name (the test fails where it cannot). */
void e2e_put(const char *dir, const char *name, const char *text);
json_t *e2e_first_event(const char *dir, const char *type);
/* Every event of type in dir/events.jsonl, in order, as an array (new reference; the test fails on a line that does
 * not parse, or no file). */
json_t *e2e_events_of(const char *dir, const char *type);
/* Loads dir/summary.json (test fails if it is missing or invalid). */
json_t *e2e_summary(const char *dir);
/* The i-th injected fault record of summary s (borrowed; NULL: none), passing over observed ones: a busy machine
 * may add an observed straggler anywhere in faults[], and a test about what it injected judges that only. */
json_t *e2e_injected_fault(json_t *s, size_t i);
/* The number of fault records of summary s of origin ("injected", "observed"; NULL: either), passing over observed
 * stragglers as e2e_injected_fault does: a test that is not about stragglers counts what a busy host cannot add. */
int e2e_fault_count(json_t *s, const char *origin);

#endif
