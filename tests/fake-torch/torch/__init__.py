# tests/fake-torch/torch/__init__.py: a stand-in for PyTorch with only what `gauntlet bench gemm`'s co-process
# (harness/backends/cuda/bench_torch.c) calls, for tests without a GPU. Its "GPU" is a virtual clock: a matmul of
# m x n x k advances it by 2mnk / 1e12 s, and an event records the clock, so a sample's time per matmul is known
# exactly. GAUNTLET_FAKE_TORCH picks a behaviour: ok, nogpu, matmul-fails, noise (a banner line on stdout first),
# die:N (exits 3 at the N-th timed sample), hang:N (sleeps at the N-th timed sample).
import os
import sys
import time
import types

__version__ = "0.0-stand-in"
RATE = 1e12
_mode = os.environ.get("GAUNTLET_FAKE_TORCH", "ok")
_clock = [0.0]
_samples = [0]
_launched = []

if _mode == "noise":
    print("a banner some library prints on import")
    sys.stdout.flush()


class dtype:
    def __init__(self, name):
        self.name = name


bfloat16, float16, float32, float8_e4m3fn = dtype("bf16"), dtype("fp16"), dtype("fp32"), dtype("e4m3")
backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)))


class Tensor:
    """A row-major tensor, or (tr) the transposed view of one."""
    def __init__(self, shape, tr=False):
        self.shape = tuple(shape)
        self.tr = tr

    def to(self, _dt):
        return self

    def t(self):
        return Tensor((self.shape[1], self.shape[0]), not self.tr)

    def __matmul__(self, other):
        if _mode == "matmul-fails":
            raise RuntimeError("CUBLAS_STATUS_NOT_SUPPORTED (stand-in)")
        (p, q), (q2, r) = self.shape, other.shape
        if q != q2:
            raise RuntimeError(f"shapes {self.shape} and {other.shape} cannot be multiplied")
        _clock[0] += 2.0 * p * r * q / RATE
        # the GEMM as column-major cuBLAS runs it (ATen's mapping of a row-major product): C^T = other^T self^T, its
        # first operand other's storage (T where other is a transposed view), m = r, n = p, k = q
        _launched.append(f"fake_gemm_{'T' if other.tr else 'N'}{'T' if self.tr else 'N'}_{r}x{p}x{q}")
        return Tensor((p, r))


def randn(*shape, device=None, dtype=None):
    return Tensor(shape)


def ones(shape, device=None):
    return Tensor(shape)


def _scaled_mm(a, b, scale_a=None, scale_b=None, out_dtype=None):
    return a @ b


class _Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        self.t = _clock[0]

    def synchronize(self):
        _samples[0] += 1
        kind, _, at = _mode.partition(":")
        if kind in ("die", "hang") and _samples[0] == int(at):
            if kind == "die":
                os._exit(3)
            time.sleep(3600)

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


cuda = types.SimpleNamespace(is_available=lambda: _mode != "nogpu", synchronize=lambda: None, Event=_Event)
