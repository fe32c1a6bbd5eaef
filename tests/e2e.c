/* tests/e2e.c: the helpers of e2e.h, linked into every test executable. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "e2e.h"
#include "shm.h"
#include "util.h"

const char *e2e_bin(void)
{
    const char *e = getenv("GAUNTLET_BIN");
    return e && *e ? e : GAUNTLET_BIN;
}

const char *e2e_src(void)
{
    const char *e = getenv("GAUNTLET_SRC");
    return e && *e ? e : GAUNTLET_SRC;
}

const char *e2e_gpu_scenario(const char *name)
{
    static char paths[16][1024];
    static int next;
    char *p = paths[next++ % 16];
    snprintf(p, sizeof paths[0], "%s/tests/scenarios/gpu/%s", e2e_src(), name);
    cr_assert_eq(access(p, R_OK), 0, "%s: %s", p, strerror(errno));
    return p;
}

/* Orders doubles for qsort. */
static int e2e_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double e2e_phase_median_w(const char *dir, int run, const char *phase, int *n)
{
    char path[1024];
    double t0 = NAN, t1 = NAN;
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *ev = e2e_read(path);
    cr_assert_not_null(ev, "%s: missing", path);
    for (char *line = ev, *nl; *line && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        const char *what = json_string_value(json_object_get(o, "event"));
        if (what && json_integer_value(json_object_get(o, "run")) == run) {
            if (strcmp(what, "run_begin") == 0)
                t0 = json_number_value(json_object_get(o, "t_s"));
            else if (strcmp(what, "run_end") == 0)
                t1 = json_number_value(json_object_get(o, "t_s"));
        }
        json_decref(o);
    }
    free(ev);
    cr_assert(t0 <= t1, "%s: no run_begin and run_end of run %d", path, run);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    char *csv = e2e_read(path);
    cr_assert_not_null(csv, "%s: missing", path);
    size_t cap = 1024, k = 0;
    double *v = malloc(cap * sizeof *v);
    /* past the header, each row ended before it is read (sscanf measures the whole rest of the file otherwise) */
    for (char *line = strchr(csv, '\n'), *nl; line && *++line; line = nl) {
        if ((nl = strchr(line, '\n')))
            *nl = 0;
        double t, w;
        int rank;
        char ph[32];
        if (sscanf(line, "%lf,%d,%lf,%31[a-z]", &t, &rank, &w, ph) != 4 || strcmp(ph, phase) != 0 || t < t0 || t > t1)
            continue;   /* an empty watts field does not scan: not measured is not a sample */
        if (k == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[k++] = w;
    }
    free(csv);
    qsort(v, k, sizeof *v, e2e_cmp_double);
    double med = k ? (k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2) : NAN;
    free(v);
    if (n)
        *n = (int)k;
    return med;
}

/* What this test process made under /tmp, removed when it exits (exit() or a return from its test: criterion's
 * worker runs destructors; a test killed for its timeout leaves its files). Only the process that made a path removes
 * it: a forked child that exits must not take its parent's folders. GAUNTLET_TEST_KEEP=1 keeps everything. */
static struct {
    char *path;
    pid_t pid;
} *owned;
static size_t n_owned, cap_owned;

void e2e_own(const char *path)
{
    if (n_owned == cap_owned) {
        size_t cap = cap_owned ? cap_owned * 2 : 16;
        void *p = realloc(owned, cap * sizeof *owned);
        cr_assert(p, "out of memory");
        owned = p;
        cap_owned = cap;
    }
    owned[n_owned].path = strdup(path);
    cr_assert(owned[n_owned].path, "out of memory");
    owned[n_owned++].pid = getpid();
}

static int e2e_open_up(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)f;
    if (type == FTW_D || type == FTW_DNR)
        (void)chmod(path, (st->st_mode & 07777) | S_IRWXU);   /* a test's read-only folder: its files can go */
    return 0;
}

static int e2e_remove_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st;
    (void)f;
    (void)(type == FTW_DP ? rmdir(path) : unlink(path));
    return 0;
}

void e2e_remove(const char *path)
{
    (void)nftw(path, e2e_open_up, 16, FTW_PHYS);
    (void)nftw(path, e2e_remove_one, 16, FTW_PHYS | FTW_DEPTH);
}

/* Says whether GAUNTLET_TEST_KEEP asks for every temporary path to stay (set, not empty, not "0"). */
static int e2e_keep_all(void)
{
    const char *keep = getenv("GAUNTLET_TEST_KEEP");
    return keep && *keep && strcmp(keep, "0") != 0;
}

static void __attribute__((destructor)) e2e_remove_owned(void)
{
    for (size_t i = 0; i < n_owned; i++) {
        if (owned[i].pid == getpid() && !e2e_keep_all())
            e2e_remove(owned[i].path);
        free(owned[i].path);
    }
    free(owned);
    owned = NULL;
    n_owned = cap_owned = 0;
}

/* The logs' folder of this executable's run, made by the runner before any test starts (criterion's report hook
 * PRE_ALL) and named to the workers it forks in the environment; each test's logs go in a subfolder named after the
 * test, which the runner removes when the test has passed or was skipped (POST_TEST) and keeps when it failed: a
 * failed assertion, a crash or a timeout. The folder itself goes at the end (POST_ALL) when nothing is left in it. */
#define E2E_LOG_ROOT "GAUNTLET_TEST_LOG_ROOT"
static char log_root[512];
static pid_t log_root_pid;

/* The logs' folder named in the environment; else (fresh: always, as the runner does) makes one under $TMPDIR (else
 * /tmp) and names it there for the processes started after. */
static const char *e2e_log_root(int fresh)
{
    const char *root = getenv(E2E_LOG_ROOT);
    if (root && *root && !fresh)
        return root;
    const char *tmp = getenv("TMPDIR");
    snprintf(log_root, sizeof log_root, "%s/gauntlet-test-logs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(log_root)) {
        fprintf(stderr, "tests: cannot make %s: %s\n", log_root, strerror(errno));
        snprintf(log_root, sizeof log_root, "%s", tmp && *tmp ? tmp : "/tmp");
        return log_root;
    }
    log_root_pid = getpid();
    setenv(E2E_LOG_ROOT, log_root, 1);
    return log_root;
}

/* Writes into buf the folder of test t's logs under root. */
static void e2e_log_dir(char *buf, size_t size, const char *root, const struct criterion_test *t)
{
    snprintf(buf, size, "%s/%s.%s", root, t ? t->category : "none", t ? t->name : "none");
}

const char *e2e_log(const char *name)
{
    static char paths[64][1024];
    static int next;
    char dir[768];
    e2e_log_dir(dir, sizeof dir, e2e_log_root(0), criterion_current_test);
    cr_assert(mkdir(dir, 0755) == 0 || errno == EEXIST, "%s: %s", dir, strerror(errno));
    char *p = paths[next++ % 64];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    (void)e2e_log_root(1);   /* never one inherited: another executable's, maybe gone */
}

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
    const char *root = getenv(E2E_LOG_ROOT);
    char dir[768];
    if (!root || !*root || stats->test_status == CR_STATUS_FAILED || e2e_keep_all())
        return;
    e2e_log_dir(dir, sizeof dir, root, stats->test);
    e2e_remove(dir);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    if (log_root_pid != getpid())
        return;
    if (rmdir(log_root) != 0 && errno != ENOENT)
        fprintf(stderr, "tests: the logs of the failed tests (or all, GAUNTLET_TEST_KEEP) are kept in %s\n", log_root);
}

const char *e2e_tmpdir(void)
{
    static char dirs[16][64];
    static int next;
    char *d = dirs[next++ % 16];
    snprintf(d, 64, "/tmp/gauntlet-tmp-XXXXXX");
    cr_assert(mkdtemp(d), "mkdtemp %s: %s", d, strerror(errno));
    e2e_own(d);
    return d;
}

const char *e2e_scenario(const char *text)
{
    static char paths[16][64];
    static int next;
    char *p = paths[next++ % 16];
    snprintf(p, 64, "/tmp/gauntlet-test-XXXXXX");
    int fd = mkstemp(p);
    cr_assert_geq(fd, 0);
    e2e_own(p);
    const char *tmp = strstr(text, "@TMPDIR@") ? e2e_tmpdir() : NULL;
    for (const char *at; tmp && (at = strstr(text, "@TMPDIR@")); text = at + strlen("@TMPDIR@")) {
        cr_assert_eq(write_all(fd, text, (size_t)(at - text)), 0);
        cr_assert_eq(write_all(fd, tmp, strlen(tmp)), 0);
    }
    cr_assert_eq(write_all(fd, text, strlen(text)), 0);
    close(fd);
    return p;
}

const char *e2e_outdir(void)
{
    static char dirs[16][96];
    static int next;
    char *d = dirs[next++ % 16];
    char tmpl[] = "/tmp/gauntlet-out-XXXXXX";
    cr_assert(mkdtemp(tmpl));
    e2e_own(tmpl);
    snprintf(d, 96, "%s/run", tmpl);
    return d;
}

pid_t e2e_start(const char *log, const char *const *args)
{
    return e2e_start_to(NULL, log, args);
}

pid_t e2e_start_to(const char *out, const char *log, const char *const *args)
{
    const char *argv[32] = { e2e_bin() };
    int n = 1;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);   /* a test that ends (a timeout, a failed assert) stops its run with it */
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(126);
        int ofd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) : fd;
        if (ofd < 0)
            _exit(126);
        dup2(ofd, 1);
        dup2(fd, 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return p;
}

int e2e_wait(pid_t pid, double timeout_s)
{
    uint64_t end = mono_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (mono_ns() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        sleep_ns(5000000);
    }
}

int e2e_run(const char *log, const char *const *args) { return e2e_wait(e2e_start(log, args), 120); }

int e2e_count_entries(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && (!part || strstr(e->d_name, part));
    closedir(d);
    return n;
}

char *e2e_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t k;
    while ((k = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += k;
        if (cap - len < 2)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[len] = 0;
    return buf;
}

int e2e_count_events(const char *dir, const char *type)
{
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path);
    if (!text)
        return 0;
    int n = 0;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;   /* a line still being written is not counted; a finished file never ends so */
        *nl = 0;
        json_error_t err;
        json_t *o = json_loads(line, 0, &err);
        cr_assert(o, "events.jsonl: a line does not parse (%s): %s", err.text, line);
        const char *ev = json_string_value(json_object_get(o, "event"));
        cr_assert(ev && json_is_number(json_object_get(o, "t_s")), "events.jsonl: line lacks t_s or event: %s", line);
        n += strcmp(ev, type) == 0;
        json_decref(o);
        line = nl + 1;
    }
    free(text);
    return n;
}

void e2e_put(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    cr_assert_geq(fputs(text, f), 0);
    cr_assert_eq(fclose(f), 0);
}

json_t *e2e_first_event(const char *dir, const char *type)
{
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path);
    json_t *found = NULL;
    for (char *line = text; line && *line && !found;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        const char *ev = o ? json_string_value(json_object_get(o, "event")) : NULL;
        if (ev && strcmp(ev, type) == 0)
            found = o;
        else
            json_decref(o);
        line = nl + 1;
    }
    free(text);
    return found;
}

json_t *e2e_events_of(const char *dir, const char *type)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path);
    cr_assert(text, "%s: no events.jsonl", dir);
    json_t *a = json_array();
    for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        cr_assert(o, "%s: a line that does not parse: %s", dir, line);
        if (strcmp(json_string_value(json_object_get(o, "event")) ?: "", type) == 0)
            json_array_append(a, o);
        json_decref(o);
    }
    free(text);
    return a;
}

int e2e_wait_events(const char *dir, const char *type, int n, double timeout_s)
{
    uint64_t end = mono_ns() + (uint64_t)(timeout_s * 1e9);
    while (mono_ns() < end) {
        if (e2e_count_events(dir, type) >= n)
            return 0;
        sleep_ns(20000000);
    }
    return -1;
}

int e2e_wait_started(const char *dir, int n, double timeout_s)
{
    if (e2e_wait_events(dir, "worker_start", 1, E2E_SETUP_S) != 0)
        return -1;
    return e2e_wait_events(dir, "iteration", n, timeout_s);
}

int e2e_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0, "socket: %s", strerror(errno));
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = 0 };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0, "bind 127.0.0.1:0: %s", strerror(errno));
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0, "getsockname: %s", strerror(errno));
    close(fd);
    return ntohs(sa.sin_port);
}

void e2e_keep(const char *dir, const char *name)
{
    const char *keep = getenv("GAUNTLET_TEST_KEEP");
    if (!keep || !*keep)
        return;
    char to[1024], path[1200];
    snprintf(to, sizeof to, "%s/%s", keep, name);
    if ((mkdir(keep, 0755) != 0 && errno != EEXIST) || (mkdir(to, 0755) != 0 && errno != EEXIST)) {
        cr_log_warn("cannot keep the run in %s: %s", to, strerror(errno));
        return;
    }
    static const char *const files[] = { "summary.json", "power.csv", "events.jsonl", "scenario.yaml" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *in = fopen(path, "rb");
        if (!in)
            continue;
        snprintf(path, sizeof path, "%s/%s", to, files[i]);
        FILE *out = fopen(path, "wb");
        char buf[1 << 16];
        size_t k;
        int bad = !out;
        while (out && (k = fread(buf, 1, sizeof buf, in)) > 0)
            bad |= fwrite(buf, 1, k, out) != k;
        fclose(in);
        if (out && fclose(out) != 0)
            bad = 1;
        if (bad)
            cr_log_warn("cannot keep %s: %s", path, strerror(errno));
    }
    cr_log_info("the run kept in %s", to);
}

int e2e_worker_pids(const char *dir, pid_t *pids, int max)
{
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    char *text = e2e_read(path);
    int n = 0;
    for (char *line = text; line && *line && n < max;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = 0;
        json_t *o = json_loads(line, 0, NULL);
        if (o && strcmp(json_string_value(json_object_get(o, "event")), "worker_start") == 0)
            pids[n++] = (pid_t)json_integer_value(json_object_get(o, "pid"));
        json_decref(o);
        line = nl + 1;
    }
    free(text);
    return n;
}

int e2e_gone(pid_t pid)
{
    char path[64], buf[512];
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 1;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    return rp && (rp[2] == 'Z' || rp[2] == 'X');
}

json_t *e2e_summary(const char *dir)
{
    char path[512];
    json_error_t err;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *j = json_load_file(path, 0, &err);
    cr_assert(j, "summary.json: %s (line %d)", err.text, err.line);
    return j;
}

json_t *e2e_injected_fault(json_t *s, size_t i)
{
    size_t at;
    json_t *f;
    json_array_foreach(json_object_get(s, "faults"), at, f) {
        const char *origin = json_string_value(json_object_get(f, "origin"));
        if (origin && strcmp(origin, "injected") == 0 && i-- == 0)
            return f;
    }
    return NULL;
}

int e2e_fault_count(json_t *s, const char *origin)
{
    size_t at;
    json_t *f;
    int n = 0;
    json_array_foreach(json_object_get(s, "faults"), at, f) {
        const char *o = json_string_value(json_object_get(f, "origin")), *kind = json_string_value(json_object_get(f, "kind"));
        if (o && strcmp(o, "observed") == 0 && kind && strcmp(kind, "straggler") == 0)
            continue;
        n += !origin || (o && strcmp(o, origin) == 0);
    }
    return n;
}

void e2e_need_gpu(void)
{
    char why[256];
    if (backend_find("cuda")->probe(why, sizeof why) != 0)
        cr_skip_test("%s", why);
}

static char *pre_asan, pre_names[8][64];
static int pre_n, pre_had_asan;

void e2e_preload(const char *lib, const char *const *env)
{
    const char *asan = getenv("ASAN_OPTIONS");
    char opts[1024];
    pre_had_asan = asan != NULL;
    free(pre_asan);
    pre_asan = asan ? strdup(asan) : NULL;
    snprintf(opts, sizeof opts, "%s%sverify_asan_link_order=0", asan ? asan : "", asan && *asan ? ":" : "");
    cr_assert_eq(setenv("ASAN_OPTIONS", opts, 1), 0);
    cr_assert_eq(setenv("LD_PRELOAD", lib, 1), 0);
    pre_n = 0;
    for (const char *const *e = env; e && *e && pre_n < 8; e++) {
        const char *eq = strchr(*e, '=');
        cr_assert(eq && (size_t)(eq - *e) < sizeof pre_names[0], "%s: NAME=VALUE", *e);
        snprintf(pre_names[pre_n], sizeof pre_names[0], "%.*s", (int)(eq - *e), *e);
        cr_assert_eq(setenv(pre_names[pre_n++], eq + 1, 1), 0);
    }
}

void e2e_preload_end(void)
{
    unsetenv("LD_PRELOAD");
    for (int i = 0; i < pre_n; i++)
        unsetenv(pre_names[i]);
    pre_n = 0;
    if (pre_had_asan && pre_asan)
        setenv("ASAN_OPTIONS", pre_asan, 1);
    else
        unsetenv("ASAN_OPTIONS");
}

void e2e_need_mpi(void)
{
#ifndef GAUNTLET_HAVE_MPI
    cr_skip_test("built without MPI (install libopenmpi-dev): multi-node runs are not in this build");
#endif
    if (system("mpirun --version >/dev/null 2>&1") != 0)
        cr_skip_test("mpirun not found (apt-get install openmpi-bin)");
    /* mpirun's PMIx tries munge first for its credentials: where munged has stopped and left its socket behind (as
     * tests/slurm.sh's may), libmunge retries the refused connect ten times, 2.25 s at every launch before anything
     * starts; the launches of a test all stay on this host, where PMIx's native (uid) credentials are what it falls
     * back to anyway. A value already set is kept. */
    setenv("PMIX_MCA_psec", "native", 0);
    /* and hwloc's GL component, in mpirun, opens X displays :0, :1, ... each by TCP to "localhost" too: where
     * /etc/hosts lacks it (a bare Debian chroot, CI's) each is a DNS query, and a lost answer 5 s of the resolver's
     * timeout — 3 launches of 5 took 5-10 s there. The tests need no GPU's display. */
    setenv("HWLOC_COMPONENTS", "-gl", 0);
}

int e2e_gap_shortfalls(const char *dir, int run, double floor_w, double *short_w, int max)
{
    char path[512], line[1024];
    static double st[200000], sw[200000], ends[4096];
    char tag[32];
    int ns = 0, ne = 0;
    snprintf(tag, sizeof tag, "\"run\":%d,", run);
    snprintf(path, sizeof path, "%s/power.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    while (fgets(line, sizeof line, f) && ns < 200000) {
        char *col[16];
        int k = 0;
        for (char *p = line, *q; k < 16 && p; p = q ? q + 1 : NULL, k++) {
            q = strchr(p, ',');
            col[k] = p;
            if (q)
                *q = 0;
        }
        if (k < 12 || strcmp(col[1], "0") != 0 || !*col[2] || !*col[11] || col[11][0] == '\n')
            continue;
        double t = atof(col[11]);
        if (ns && t <= st[ns - 1])
            continue;   /* the same sample read again */
        st[ns] = t;
        sw[ns++] = atof(col[2]);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    while (fgets(line, sizeof line, f) && ne < 4096)
        if (strstr(line, "\"event\":\"phase_end\"") && strstr(line, "\"phase\":\"compute\"") &&
            strstr(line, "\"rank\":0,") && strstr(line, tag))
            ends[ne++] = atof(strchr(line, ':') + 1);
    fclose(f);
    int n = 0;
    for (int g = 0; g < ne && n < max; g++, n++) {
        double sum = 0;
        int c = 0;
        for (int i = 0; i < ns; i++)
            if (st[i] - 0.020 >= ends[g] && st[i] <= ends[g] + 0.120) {
                sum += floor_w - sw[i];
                c++;
            }
        short_w[n] = c ? sum / c : NAN;
    }
    return n;
}

int e2e_control_block(pid_t pid, struct shm *shm)
{
    char dir[64], path[600], link[256];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    struct dirent *e;
    int fd = -1;
    while (d && fd < 0 && (e = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0 && (link[n] = 0, strncmp(link, "/memfd:gauntlet-ctl", 19) == 0))
            fd = open(path, O_RDWR | O_CLOEXEC);
    }
    if (d)
        closedir(d);
    if (fd < 0)
        return -1;
    if (shm_attach(shm, fd) != 0) {
        close(fd);
        return -1;
    }
    return 0;
}

int e2e_stopped(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    char *p = f && fgets(buf, sizeof buf, f) ? strrchr(buf, ')') : NULL;
    if (f)
        fclose(f);
    return p && p[1] == ' ' && p[2] == 'T';
}

/* Integrates the summed power of dir/power.csv over [a, b] s (each tick's sum held to the next tick); J. */
double e2e_csv_energy(const char *dir, double a, double b)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/power.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    double e = 0, t_prev = NAN, sum = 0, t_cur = NAN;
    while (fgets(line, sizeof line, f)) {
        double t, w;
        int rank, at = 0;
        if (sscanf(line, "%lf,%d,%n", &t, &rank, &at) != 2 || !at)
            continue;
        w = strtod(line + at, NULL);
        if (t != t_cur) {   /* a new tick: the last one's sum held until now */
            if (!isnan(t_prev) && t_prev >= a && t_cur <= b)
                e += sum * (t_cur - t_prev);
            t_prev = t_cur;
            t_cur = t;
            sum = 0;
        }
        sum += w;
    }
    fclose(f);
    return e;
}
