/* harness/backends/cuda/bench_torch.c: PyTorch's matmul on the same GPU, for `gauntlet bench gemm` to time in turn
 * with the harness and the bare cuBLASLt loop. The interpreter is started once per dtype with an argument vector
 * (posix_spawnp, no shell) and kept: a request line on its stdin ("time N", "kernels", "quit"), one JSON line back
 * on its stdout. Every wait for it is bounded; a peer that exits, hangs or answers nonsense is stopped and said. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "bench_torch.h"
#include "util.h"

/* argv: dtype m n k. Answers {"ready": 1, "torch": version} or {"error": why} first, then one line per request. */
static const char bench_torch_py[] =
    "import json, sys\n"
    "def say(**o):\n"
    "    sys.stdout.write(json.dumps(o) + '\\n'); sys.stdout.flush()\n"
    "def fail(msg):\n"
    "    say(error=msg); sys.exit(0)\n"
    "try:\n"
    "    import torch\n"
    "except Exception as e:\n"
    "    fail(f'PyTorch is not installed for {sys.executable} ({e})')\n"
    "if not torch.cuda.is_available():\n"
    "    fail('PyTorch sees no GPU')\n"
    "dt, m, n, k = sys.argv[1], *map(int, sys.argv[2:5])\n"
    "torch.backends.cuda.matmul.allow_tf32 = dt == 'tf32'\n"
    "try:\n"
    /* the harness's problem as cuBLAS sees it: TN, A k-contiguous (m, k), B k-contiguous (n, k), D m x n column-
     * major. Row-major b @ a.t() is an (n, m) row-major result, which ATen runs as exactly that (a @ b of (m, k) and
     * (k, n) ran NN with m and n swapped) */
    "    if dt == 'fp8':\n"
    "        if not hasattr(torch, '_scaled_mm') or not hasattr(torch, 'float8_e4m3fn'):\n"
    "            fail(f'PyTorch {torch.__version__} has no fp8 matmul (torch._scaled_mm)')\n"
    "        a = torch.randn(m, k, device='cuda').to(torch.float8_e4m3fn)\n"
    "        b = torch.randn(n, k, device='cuda').to(torch.float8_e4m3fn)\n"
    "        one = torch.ones((), device='cuda')\n"
    "        f = lambda: torch._scaled_mm(b, a.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)\n"
    "    else:\n"
    "        ty = {'bf16': torch.bfloat16, 'fp16': torch.float16, 'tf32': torch.float32}[dt]\n"
    "        a = torch.randn(m, k, device='cuda', dtype=ty)\n"
    "        b = torch.randn(n, k, device='cuda', dtype=ty)\n"
    "        f = lambda: b @ a.t()\n"
    "    for _ in range(3):\n"
    "        f()\n"
    "    torch.cuda.synchronize()\n"
    "    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)\n"
    "except Exception as e:\n"
    "    fail(f'PyTorch {torch.__version__}: {dt} matmul failed: {e}')\n"
    "say(ready=1, torch=torch.__version__)\n"
    "for line in sys.stdin:\n"
    "    w = line.split()\n"
    "    if not w:\n"
    "        continue\n"
    "    try:\n"
    "        if w[0] == 'time':\n"
    "            c = int(w[1])\n"
    "            f()\n"
    "            e0.record()\n"
    "            for _ in range(c):\n"
    "                f()\n"
    "            e1.record()\n"
    "            e1.synchronize()\n"
    "            say(s=e0.elapsed_time(e1) / 1e3 / c)\n"
    "        elif w[0] == 'kernels':\n"
    "            from torch.profiler import profile, ProfilerActivity\n"
    "            with profile(activities=[ProfilerActivity.CUDA]) as prof:\n"
    "                f()\n"
    "                torch.cuda.synchronize()\n"
    "            names = []\n"
    "            for e in prof.events():\n"
    "                if str(getattr(e, 'device_type', '')).endswith('CUDA') and e.name not in names:\n"
    "                    names.append(e.name)\n"
    "            say(kernels=names)\n"
    "        elif w[0] == 'quit':\n"
    "            break\n"
    "        else:\n"
    "            say(error=f'unknown request {w[0]!r}')\n"
    "    except Exception as e:\n"
    "        say(error=f'PyTorch {torch.__version__}: {w[0]} failed: {e}')\n";

#define TORCH_PEER_LINE 16384
#define TORCH_PEER_SAMPLE_S 120.0   /* one sample, or the kernel names: a stopped peer is said after this */
#define TORCH_PEER_QUIT_S 5.0

struct torch_peer {
    pid_t pid;
    int in_fd, out_fd;
    int dead;                       /* stopped after a failure: every request fails at once */
    double timeout_s;               /* each request's answer within this */
    size_t have;
    char buf[TORCH_PEER_LINE];
    char version[64];
};

/* Waits up to timeout_s for the peer's process to end; 0 with its status in *st (the pid forgotten), or -1. */
static int torch_peer_reap(struct torch_peer *p, double timeout_s, int *st)
{
    uint64_t end = mono_ns() + (uint64_t)(timeout_s * 1e9);
    while (p->pid > 0) {
        pid_t w = waitpid(p->pid, st, WNOHANG);
        if (w == p->pid) {
            p->pid = -1;
            return 0;
        }
        if (w < 0 && errno != EINTR)
            return -1;
        if (mono_ns() >= end)
            return -1;
        sleep_ns(5 * 1000000ull);
    }
    return -1;
}

/* Kills and reaps the peer's process and closes its pipes (idempotent). */
static void torch_peer_stop(struct torch_peer *p)
{
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        p->pid = -1;
    }
    if (p->in_fd >= 0)
        close(p->in_fd);
    if (p->out_fd >= 0)
        close(p->out_fd);
    p->in_fd = p->out_fd = -1;
    p->dead = 1;
}

/* Reads the peer's next JSON object line within timeout_s into *out (lines that are not an object, e.g. a library's
 * banner, are skipped). 0, or -1 with why: the peer exited, said nothing in time, or wrote a line too long. */
static int torch_peer_read(struct torch_peer *p, double timeout_s, json_t **out, char *why, size_t wn)
{
    uint64_t end = mono_ns() + (uint64_t)(timeout_s * 1e9);
    *out = NULL;
    for (;;) {
        char *nl;
        while ((nl = memchr(p->buf, '\n', p->have)) != NULL) {
            size_t len = (size_t)(nl - p->buf);
            json_error_t jerr;
            json_t *o = p->buf[0] == '{' ? json_loadb(p->buf, len, 0, &jerr) : NULL;
            p->have -= len + 1;
            memmove(p->buf, nl + 1, p->have);
            if (json_is_object(o)) {
                *out = o;
                return 0;
            }
            json_decref(o);
        }
        if (p->have == sizeof p->buf) {
            snprintf(why, wn, "the PyTorch peer wrote a line longer than %d bytes", TORCH_PEER_LINE);
            return -1;
        }
        uint64_t now = mono_ns();
        if (now >= end) {
            snprintf(why, wn, "the PyTorch peer did not answer within %.0f s", timeout_s);
            return -1;
        }
        struct pollfd pf = { .fd = p->out_fd, .events = POLLIN };
        uint64_t left_ms = (end - now + 999999) / 1000000;
        int r = poll(&pf, 1, left_ms > 60000 ? 60000 : (int)left_ms);
        if (r < 0 && errno != EINTR) {
            snprintf(why, wn, "waiting for the PyTorch peer: poll: %s", strerror(errno));
            return -1;
        }
        if (r <= 0)
            continue;
        ssize_t got = read(p->out_fd, p->buf + p->have, sizeof p->buf - p->have);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0) {
            int st = 0;
            if (torch_peer_reap(p, 2.0, &st) != 0)
                snprintf(why, wn, "the PyTorch peer closed its output without answering");
            else if (WIFSIGNALED(st))
                snprintf(why, wn, "the PyTorch peer was killed by signal %d", WTERMSIG(st));
            else
                snprintf(why, wn, "the PyTorch peer exited (status %d) without answering", WEXITSTATUS(st));
            return -1;
        }
        p->have += (size_t)got;
    }
}

/* Sends one request line and reads the answer within timeout_s; an {"error"} answer is a failure with its text.
 * On any failure the peer is stopped. 0 or -1. */
static int torch_peer_ask(struct torch_peer *p, const char *req, double timeout_s, json_t **out, char *why, size_t wn)
{
    *out = NULL;
    if (p->dead) {
        snprintf(why, wn, "the PyTorch peer was stopped after an earlier failure");
        return -1;
    }
    if (req && write_all(p->in_fd, req, strlen(req)) != 0) {
        snprintf(why, wn, "the PyTorch peer does not read its requests: %s", strerror(errno));
        torch_peer_stop(p);
        return -1;
    }
    if (torch_peer_read(p, timeout_s, out, why, wn) != 0) {
        torch_peer_stop(p);
        return -1;
    }
    const char *err = json_string_value(json_object_get(*out, "error"));
    if (err) {
        snprintf(why, wn, "%s", err);
        json_decref(*out);
        *out = NULL;
        torch_peer_stop(p);
        return -1;
    }
    return 0;
}

struct torch_peer *torch_peer_open(const char *python, enum dtype t, long m, long n, long k, double timeout_s,
                                   char *why, size_t wn)
{
    char a[4][32];
    long v[3] = { m, n, k };
    snprintf(a[0], sizeof a[0], "%s", dtype_name(t));
    for (int i = 0; i < 3; i++)
        snprintf(a[i + 1], sizeof a[i + 1], "%ld", v[i]);
    char *argv[] = { (char *)python, "-c", (char *)bench_torch_py, a[0], a[1], a[2], a[3], NULL };
    struct torch_peer *p = xcalloc(1, sizeof *p);
    p->in_fd = p->out_fd = -1;
    p->timeout_s = TORCH_PEER_SAMPLE_S;
    p->pid = spawn_duplex(python, argv, &p->in_fd, &p->out_fd);
    if (p->pid < 0) {
        snprintf(why, wn, "cannot start %s: %s", python, strerror(errno));
        free(p);
        return NULL;
    }
    json_t *o = NULL;
    if (torch_peer_ask(p, NULL, timeout_s, &o, why, wn) != 0) {
        torch_peer_close(p);
        return NULL;
    }
    const char *ver = json_string_value(json_object_get(o, "torch"));
    if (!json_object_get(o, "ready") || !ver) {
        snprintf(why, wn, "%s: the PyTorch peer's first line is not its ready line", python);
        json_decref(o);
        torch_peer_close(p);
        return NULL;
    }
    str_copy(p->version, sizeof p->version, ver);
    json_decref(o);
    return p;
}

int torch_peer_time(struct torch_peer *p, long count, double *sec, char *why, size_t wn)
{
    char req[48];
    json_t *o = NULL;
    snprintf(req, sizeof req, "time %ld\n", count);
    if (torch_peer_ask(p, req, p->timeout_s, &o, why, wn) != 0)
        return -1;
    double s = json_number_value(json_object_get(o, "s"));
    json_decref(o);
    if (!(s > 0) || !isfinite(s)) {
        snprintf(why, wn, "the PyTorch peer answered no time for its sample");
        torch_peer_stop(p);
        return -1;
    }
    *sec = s;
    return 0;
}

int torch_peer_kernels(struct torch_peer *p, char *buf, size_t len, char *why, size_t wn)
{
    json_t *o = NULL;
    if (len)
        buf[0] = 0;
    if (torch_peer_ask(p, "kernels\n", p->timeout_s, &o, why, wn) != 0)
        return -1;
    json_t *ks = json_object_get(o, "kernels");
    size_t i, used = 0;
    json_t *kv;
    int rc = json_is_array(ks) ? 0 : -1;
    if (rc)
        snprintf(why, wn, "the PyTorch peer answered no kernel list");
    json_array_foreach(ks, i, kv) {
        const char *name = json_string_value(kv);
        if (!name || used >= len)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "; " : "", name);
        used = w < 0 ? len : used + (size_t)w;
    }
    json_decref(o);
    return rc;
}

void torch_peer_set_timeout(struct torch_peer *p, double timeout_s) { p->timeout_s = timeout_s; }

const char *torch_peer_version(const struct torch_peer *p) { return p ? p->version : ""; }

void torch_peer_close(struct torch_peer *p)
{
    if (!p)
        return;
    if (!p->dead && p->pid > 0) {
        (void)write_all(p->in_fd, "quit\n", 5);
        close(p->in_fd);
        p->in_fd = -1;
        int st;
        (void)torch_peer_reap(p, TORCH_PEER_QUIT_S, &st);
    }
    torch_peer_stop(p);
    free(p);
}
