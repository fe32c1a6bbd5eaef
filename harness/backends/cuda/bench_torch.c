/* harness/backends/cuda/bench_torch.c: PyTorch's matmul on the same GPU, for `gauntlet bench gemm` to print beside
 * the harness and the bare cuBLASLt loop. The interpreter is started with an argument vector (posix_spawnp, no
 * shell) and answers one JSON line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "bench_torch.h"
#include "util.h"

/* argv: dtype m n k count iters. Times `count` matmuls back to back per sample, `iters` samples, after 10 warm-ups;
 * prints {"s": median seconds per matmul, "torch": version} or {"error": why}. fp8 runs torch._scaled_mm (e4m3 in,
 * bf16 out, unit scales), as the harness's fp8 GEMM does. */
static const char bench_torch_py[] =
    "import json, sys\n"
    "def say(**o):\n"
    "    print(json.dumps(o)); sys.exit(0)\n"
    "try:\n"
    "    import torch\n"
    "except Exception as e:\n"
    "    say(error=f'PyTorch is not installed for {sys.executable} ({e})')\n"
    "if not torch.cuda.is_available():\n"
    "    say(error='PyTorch sees no GPU')\n"
    "dt, m, n, k, count, iters = sys.argv[1], *map(int, sys.argv[2:7])\n"
    "torch.backends.cuda.matmul.allow_tf32 = dt == 'tf32'\n"
    "if dt == 'fp8':\n"
    "    if not hasattr(torch, '_scaled_mm') or not hasattr(torch, 'float8_e4m3fn'):\n"
    "        say(error=f'PyTorch {torch.__version__} has no fp8 matmul (torch._scaled_mm)')\n"
    "    a = torch.randn(m, k, device='cuda').to(torch.float8_e4m3fn)\n"
    "    b = torch.randn(n, k, device='cuda').to(torch.float8_e4m3fn).t()\n"
    "    one = torch.ones((), device='cuda')\n"
    "    f = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)\n"
    "else:\n"
    "    ty = {'bf16': torch.bfloat16, 'fp16': torch.float16, 'tf32': torch.float32}[dt]\n"
    "    a = torch.randn(m, k, device='cuda', dtype=ty)\n"
    "    b = torch.randn(k, n, device='cuda', dtype=ty)\n"
    "    f = lambda: a @ b\n"
    "try:\n"
    "    for _ in range(10):\n"
    "        f()\n"
    "    torch.cuda.synchronize()\n"
    "    ts = []\n"
    "    for _ in range(iters):\n"
    "        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)\n"
    "        e0.record()\n"
    "        for _ in range(count):\n"
    "            f()\n"
    "        e1.record(); e1.synchronize()\n"
    "        ts.append(e0.elapsed_time(e1) / 1e3 / count)\n"
    "except Exception as e:\n"
    "    say(error=f'PyTorch {torch.__version__}: {dt} matmul failed: {e}')\n"
    "ts.sort()\n"
    "say(s=ts[len(ts) // 2], torch=torch.__version__)\n";

int bench_torch_time(const char *python, enum dtype t, long m, long n, long k, long count, long iters, double *sec,
                     char *why, size_t wn)
{
    char a[6][32];
    long v[5] = { m, n, k, count, iters };
    snprintf(a[0], sizeof a[0], "%s", dtype_name(t));
    for (int i = 0; i < 5; i++)
        snprintf(a[i + 1], sizeof a[i + 1], "%ld", v[i]);
    char *argv[] = { (char *)python, "-c", (char *)bench_torch_py, a[0], a[1], a[2], a[3], a[4], a[5], NULL };
    int fd = -1;
    pid_t pid = spawn_reader(python, argv, &fd);
    if (pid < 0) {
        snprintf(why, wn, "cannot start %s: %s", python, strerror(errno));
        return -1;
    }
    FILE *p = fdopen(fd, "r");
    json_t *o = NULL;
    json_error_t jerr;
    if (p) {
        o = json_loadf(p, JSON_DISABLE_EOF_CHECK, &jerr);
        fclose(p);
    } else {
        close(fd);
    }
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    const char *err = json_string_value(json_object_get(o, "error"));
    double s = json_number_value(json_object_get(o, "s"));
    int rc = 0;
    if (err)
        snprintf(why, wn, "%s", err);
    else if (!o || w != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !(s > 0))
        snprintf(why, wn, "%s gave no timing (exit status 0x%x)", python, st);
    else
        *sec = s;
    rc = err || !(s > 0) || !o ? -1 : 0;
    json_decref(o);
    return rc;
}
