/* harness/core/util.c: errors, exit codes, clocks and allocation shared by every part of gauntlet. */

#include "util.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char util_role_buf[32];
static char util_command[32];
static char util_host[64];

static int util_node = -1, util_nodes;

void util_set_role(const char *role) { str_copy(util_role_buf, sizeof util_role_buf, role); }
void util_set_node(int node, int nodes)
{
    util_node = nodes > 1 ? node : -1;
    util_nodes = nodes;
}
const char *gl_tag(void)
{
    static char buf[48];
    if (util_node < 0)
        return "gauntlet";
    snprintf(buf, sizeof buf, "gauntlet[node %d/%d]", util_node, util_nodes);
    return buf;
}
void util_set_command(const char *command) { str_copy(util_command, sizeof util_command, command); }
const char *util_role(void) { return util_role_buf; }

const char *gl_where(const char *file, int line)
{
    static _Thread_local char buf[320];
    const char *d = getenv("GAUNTLET_DEBUG");
    if (!d || !*d || strcmp(d, "0") == 0)
        return "";
    snprintf(buf, sizeof buf, " at %s:%d", file, line);
    return buf;
}

/* Formats the prefix once per message: "gauntlet[role@host]: ", "gauntlet COMMAND: " or "gauntlet: ". */
static void vlog(const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* One fprintf so that lines of several processes do not interleave mid-line. */
    char node[32] = "";
    if (util_node >= 0)
        snprintf(node, sizeof node, " node %d/%d", util_node, util_nodes);
    if (util_role_buf[0]) {
        if (!util_host[0] && gethostname(util_host, sizeof util_host - 1) != 0)
            str_copy(util_host, sizeof util_host, "?");
        fprintf(stderr, "gauntlet[%s%s@%s]: %s\n", util_role_buf, node, util_host, msg);
    } else if (util_node >= 0) {   /* "gauntlet[node 1/2] accept: ..." */
        fprintf(stderr, "gauntlet[%s]%s%s: %s\n", node + 1, util_command[0] ? " " : "", util_command, msg);
    } else if (util_command[0]) {
        fprintf(stderr, "gauntlet %s: %s\n", util_command, msg);
    } else {
        fprintf(stderr, "gauntlet: %s\n", msg);
    }
}

void gl_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void gl_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
    exit(code);
}

int gl_syserr(const char *call, const char *file, int line)
{
    int e = errno;
    gl_log("%s failed%s: %s", call, gl_where(file, line), strerror(e));
    errno = e;
    return -1;
}

uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);   /* cannot fail with a valid clock id */
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sleep_until_ns(uint64_t t_ns)
{
    struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000ull), .tv_nsec = (long)(t_ns % 1000000000ull) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

void sleep_ns(uint64_t ns) { sleep_until_ns(mono_ns() + ns); }

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        gl_die(EXIT_ENV, "out of memory allocating %zu bytes", n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        gl_die(EXIT_ENV, "out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        gl_die(EXIT_ENV, "out of memory reallocating %zu bytes", n);
    return q;
}

char *xstrdup(const char *s) { size_t n = strlen(s) + 1; return memcpy(xmalloc(n), s, n); }

size_t utf8_fit(const char *s, size_t n)
{
    size_t k = n;
    while (k > 0 && n - k < 3 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    return ((unsigned char)s[k] & 0xC0) == 0x80 ? n : k;   /* more than 3 continuation bytes: no character to keep */
}

char *utf8_trim(char *s)
{
    size_t len = strlen(s), i = len;
    while (i > 0 && len - i < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i > 0) {   /* s[i - 1] begins the last character: does it have the bytes it announces? */
        unsigned char c = (unsigned char)s[i - 1];
        size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (need > len - (i - 1))
            s[i - 1] = 0;
    }
    return s;
}

/* The length of the valid UTF-8 character s begins with (1 to 4), or 0 when it begins with none: by JSON's rules
 * (jansson's), no overlong form, no surrogate, nothing past U+10FFFF. */
static size_t utf8_char(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!n)
        return 0;
    unsigned cp = c & (0x3Fu >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)   /* the terminator too */
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

char *utf8_lossy(const char *s)
{
    size_t len = strlen(s), at = 0;
    char *out = xmalloc(3 * len + 1);   /* each byte at most one U+FFFD */
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t k = utf8_char(p);
        if (k) {
            memcpy(out + at, p, k);
            at += k;
            p += k;
        } else {
            memcpy(out + at, "\xEF\xBF\xBD", 3);
            at += 3;
            p++;
        }
    }
    out[at] = 0;
    return out;
}

int str_copy(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (n == 0)
        return -1;
    if (len >= n) {   /* cut where a character ends: what is kept stays valid UTF-8 (JSON takes nothing else) */
        size_t k = utf8_fit(src, n - 1);
        memcpy(dst, src, k);
        dst[k] = 0;
        return -1;
    }
    memcpy(dst, src, len + 1);
    return 0;
}

int str_copy_mid(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len < n || n < 16)
        return str_copy(dst, n, src);
    size_t room = n - 1 - 3, t = room - room / 3, h = utf8_fit(src, room - t);   /* the end (file, error) the larger */
    const char *tail = src + len - t;
    for (int i = 0; i < 3 && ((unsigned char)*tail & 0xC0) == 0x80; i++)   /* the tail begins on a character */
        tail++;
    size_t tl = strlen(tail);
    memcpy(dst, src, h);
    memcpy(dst + h, "\xE2\x80\xA6", 3);   /* U+2026, the ellipsis */
    memcpy(dst + h + 3, tail, tl + 1);
    return -1;
}

int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int write_file_durable(const char *path, const void *buf, size_t len)
{
    char tmp[PATH_MAX], dir[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    str_copy(dir, sizeof dir, path);   /* fits: shorter than tmp */
    /* the folder first, to sync the rename; one that cannot be opened (no read permission, a process out of
     * descriptors) still takes the file, said unsynced (until 2026-11-30 it was left unsynced unsaid) */
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC), dir_errno = errno;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        if (dfd >= 0)
            close(dfd);
        errno = e;
        return -1;
    }
    if (write_all(fd, buf, len) != 0 || fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        if (dfd >= 0)
            close(dfd);
        errno = e;
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        if (dfd >= 0)
            close(dfd);
        errno = e;
        return -1;
    }
    if (dfd < 0) {
        errno = dir_errno;
        return WRITE_UNSYNCED;
    }
    /* in place: the rename is durable once the folder is synced (EINVAL, ENOTSUP: a file system that syncs no
     * folder, as PostgreSQL takes it, has nothing more to do) */
    int rc = fsync(dfd) != 0 && errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP ? WRITE_UNSYNCED : 0;
    int e = errno;
    close(dfd);
    errno = e;
    return rc;
}

int write_file_atomic(const char *path, const void *buf, size_t len)
{
    int rc = write_file_durable(path, buf, len);
    if (rc == WRITE_UNSYNCED)   /* in place: the caller says it is written, and this says how far */
        gl_log("%s is written, but its folder could not be synced (fsync: %s): a power loss may still lose it", path,
               strerror(errno));
    return rc < 0 ? -1 : 0;
}

/* Whether a dir entry is NAME.tmp.PID for one of names: that pid, else 0. */
static long util_tmp_pid(const char *entry, const char *const *names)
{
    for (const char *const *nm = names; *nm; nm++) {
        size_t l = strlen(*nm);
        if (strncmp(entry, *nm, l) != 0 || strncmp(entry + l, ".tmp.", 5) != 0)
            continue;
        const char *p = entry + l + 5;
        char *end;
        errno = 0;
        long pid = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;
        return pid > 0 && pid <= INT_MAX && errno == 0 && *end == '\0' ? pid : 0;
    }
    return 0;
}

int dir_sweep_tmp(const char *dir, const char *const *names, int *removed, char *why, size_t n)
{
    *removed = 0;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, n, "cannot read the folder %s: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    for (errno = 0; (e = readdir(d)) != NULL; errno = 0) {
        long pid = util_tmp_pid(e->d_name, names);
        struct stat st;
        if (!pid || pid == (long)getpid() || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;   /* not a temp file of write_file_atomic's (or gone meanwhile) */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;   /* its writer may be alive (EPERM: another user's live process): it may still rename it */
        if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT) {
            snprintf(why, n, "cannot remove %s/%s, a temp file its killed writer left: %s", dir, e->d_name, strerror(errno));
            rc = -1;
            break;
        }
        (*removed)++;
    }
    if (!rc && errno != 0) {
        snprintf(why, n, "cannot read the folder %s: %s", dir, strerror(errno));
        rc = -1;
    }
    if (closedir(d) != 0 && !rc) {
        snprintf(why, n, "cannot read the folder %s: %s", dir, strerror(errno));
        rc = -1;
    }
    return rc;
}

int mkdir_p(const char *path)
{
    char buf[PATH_MAX];
    if (str_copy(buf, sizeof buf, path) != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
    r->s = seed ^ (stream * 0x9E3779B97F4A7C15ull) ^ 0xD1B54A32D192ED03ull;
    rng_next(r);
}

uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double rng_uniform(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

double rng_normal(struct rng *r)
{
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

int run_wait(const char *const *argv)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        sigset_t none;   /* a supervisor blocks its signals for its signalfd: the child gets them back */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    pid_t r;
    while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (r < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int path_fits(const char *what, const char *path, size_t max)
{
    size_t len = strlen(path);
    if (len <= max)
        return 0;
    gl_log("%s: path too long (%zu characters; at most %zu)", what, len, max);
    return -1;
}

int dir_lock_held(const char *dir, char *pid, size_t n) { return dir_lock_share(dir, pid, n, NULL); }

int dir_lock_share(const char *dir, char *pid, size_t n, int *keep)
{
    if (keep)
        *keep = -1;
    char path[PATH_MAX + 8];
    if (snprintf(path, sizeof path, "%s/.lock", dir) >= (int)sizeof path)
        return errno = ENAMETOOLONG, -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {   /* a .lock that is no file is no run's */
        close(fd);
        return 0;
    }
    int held = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        char buf[32];
        ssize_t k = read(fd, buf, sizeof buf - 1);
        buf[k > 0 ? k : 0] = 0;
        buf[strcspn(buf, "\n")] = 0;
        snprintf(pid, n, "%s", buf[0] ? buf : "unknown");
        held = 1;
    }
    if (keep && !held)
        *keep = fd;   /* the shared lock stays with the caller's descriptor */
    else
        close(fd);   /* a shared lock taken here goes with the descriptor */
    return held;
}

int stdout_done(void)
{
    int bad = ferror(stdout), e = fflush(stdout) != 0 ? errno : 0;
    if (e || bad) {
        gl_log("stdout: %s", e ? strerror(e) : "a write failed: the output is not whole");
        return EXIT_ENV;
    }
    return EXIT_OK;
}

FILE *fopen_regular(const char *path, const char *mode)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before fstat could see it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    FILE *f = fdopen(fd, mode);
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

/* Starts file with argv, its stdout a pipe (read end into *out_fd) and, where in_fd is given, its stdin one too
 * (write end into *in_fd); both ends kept here close-on-exec. The child's pid, or -1 with errno (nothing open). */
static pid_t spawn_piped(const char *file, char *const argv[], int *in_fd, int *out_fd)
{
    int to[2] = { -1, -1 }, from[2];
    if (in_fd && pipe2(to, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(from, O_CLOEXEC) != 0) {
        int e = errno;
        if (in_fd) {
            close(to[0]);
            close(to[1]);
        }
        errno = e;
        return -1;
    }
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int e = posix_spawn_file_actions_init(&fa);
    if (!e && in_fd)
        e = posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    if (!e)
        e = posix_spawn_file_actions_adddup2(&fa, from[1], 1);   /* dup2 clears O_CLOEXEC on the child's copy */
    fflush(stdout);
    if (!e)
        e = posix_spawnp(&pid, file, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (in_fd)
        close(to[0]);
    close(from[1]);
    if (e) {
        if (in_fd)
            close(to[1]);
        close(from[0]);
        errno = e;
        return -1;
    }
    if (in_fd)
        *in_fd = to[1];
    *out_fd = from[0];
    return pid;
}

pid_t spawn_reader(const char *file, char *const argv[], int *out_fd) { return spawn_piped(file, argv, NULL, out_fd); }

pid_t spawn_duplex(const char *file, char *const argv[], int *in_fd, int *out_fd)
{
    return spawn_piped(file, argv, in_fd, out_fd);
}

long read_small(const char *path, char *buf, size_t n)
{
    FILE *f = n ? fopen(path, "re") : NULL;
    if (!f)
        return -1;
    size_t got = fread(buf, 1, n - 1, f);
    fclose(f);
    buf[got] = 0;
    return (long)got;
}
