#!/usr/bin/env bash
# tests/gpu-check.sh OUTDIR — verifies the cuda backend on this machine's NVIDIA GPU in one call: builds for
# sm_90, runs the test suite (GPU tests included), `bench gemm` (harness vs bare cuBLASLt) beside PyTorch's
# matmul when python3 has torch, `bench allreduce`, the NVML sampling-rate probe, the sampler-overhead check,
# the reference power trace, and each training shape's step times and power levels against the sim model's
# (workload.shape); prints one table and keeps every log and the trace in OUTDIR.
#
# Environment: CMAKE_PREFIX_PATH / NCCL_ROOT as for any build; BUILD (default build-gpu); QUICK=1 for a
# shorter run. It never changes a GPU setting (clocks, power limit, modes).
set -u
out=${1:?usage: tests/gpu-check.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
build=${BUILD:-build-gpu}
log() { printf '%s\n' "$*" | tee -a "$out/gpu-check.log"; }
row() { printf '%-34s %s\n' "$1" "$2" | tee -a "$out/table.txt"; }
: >"$out/table.txt"

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv >"$out/nvidia-smi.csv" 2>&1
log "== build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGAUNTLET_WERROR=ON >"$out/cmake.log" 2>&1 &&
  cmake --build "$build" -j"$(nproc)" >>"$out/cmake.log" 2>&1 || { log "build failed: see $out/cmake.log"; tail -30 "$out/cmake.log"; exit 3; }
grep -q "building the cuda backend" "$out/cmake.log" || { log "the cuda backend was not built: see $out/cmake.log"; exit 3; }
g="$build/gauntlet"
to() { timeout --kill-after=10 "$@"; }   # nothing here may hang the check

log "== tests"
ctest --test-dir "$build" --output-on-failure -j1 --timeout 180 >"$out/tests.log" 2>&1
tests_rc=$?
for t in "$build"/tests/test_cuda_*; do to 180 "$t" --verbose >>"$out/tests-cuda-verbose.log" 2>&1; done

log "== bench gemm"
iters=50; [ "${QUICK:-0}" = 1 ] && iters=20
to 300 "$g" bench gemm --dtype all --iters $iters >"$out/bench-gemm.txt" 2>&1; gemm_rc=$?
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  python3 - >"$out/torch-matmul.txt" 2>&1 <<'PY'
import torch
n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
for _ in range(10):
    a @ b
torch.cuda.synchronize()
times = []
for _ in range(50):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); a @ b; e.record(); e.synchronize()
    times.append(s.elapsed_time(e) / 1e3)
times.sort()
med = times[len(times) // 2]
print(f"torch {torch.__version__} bf16 {n}^3 median {med*1e3:.3f} ms  {2*n**3/med/1e12:.1f} TFLOP/s")
PY
fi

log "== bench allreduce"
to 300 "$g" bench allreduce --maxbytes 1G >"$out/bench-allreduce.txt" 2>&1; ar_rc=$?

sc=scenarios/gpu-single.yaml
[ "${QUICK:-0}" = 1 ] && iters_sc=8 || iters_sc=25
log "== sampling probe (idle, then under the gpu-single load)"
to 120 "$g" bench sampling --seconds 2 >"$out/sampling-idle.txt" 2>&1
sed -e "s/^iterations: .*/iterations: $((iters_sc + 6))/" $sc >"$out/scenario-load.yaml"
to 300 "$g" run "$out/scenario-load.yaml" --backend cuda --headless --out "$out/run-load" >"$out/run-load.log" 2>&1 &
load=$!
sleep 5
to 120 "$g" bench sampling --seconds 2 >"$out/sampling.txt" 2>&1; samp_rc=$?
wait $load

log "== reference trace and sampler overhead"
hz=1000   # the top rate: the instantaneous field costs well under 1 us a read
sed -e "s/^iterations: .*/iterations: $iters_sc/" -e "s/sample_hz: [0-9.]*/sample_hz: 0/" $sc >"$out/scenario-off.yaml"
sed -e "s/^iterations: .*/iterations: $iters_sc/" -e "s/sample_hz: [0-9.]*/sample_hz: $hz/" $sc >"$out/scenario-on.yaml"
to 300 "$g" run "$out/scenario-off.yaml" --backend cuda --headless --out "$out/run-off" >"$out/run-off.log" 2>&1; off_rc=$?
to 300 "$g" run "$out/scenario-on.yaml" --backend cuda --headless --out "$out/trace" >"$out/run-on.log" 2>&1; on_rc=$?

log "== mitigations on the GPU (mitigation-compare without cap: no device setting is changed here)"
grep -v "^ *- cap:" scenarios/mitigation-compare.yaml | sed -e "s/^ranks: .*/ranks: 1/" -e "s/^iterations: .*/iterations: $((iters_sc + 15))/" >"$out/mitigation-compare.yaml"
to 600 "$g" run "$out/mitigation-compare.yaml" --backend cuda --headless --out "$out/mitigations" >"$out/mitigations.log" 2>&1; mit_rc=$?
log "== detector cost: none, fingerprint + abft, async fingerprint + abft (8192^3 bf16 x 8, 1 GiB all-reduce)"
for d in none sync async; do
  case $d in none) det="[]";; sync) det="[fingerprint, abft]";; async) det="[{fingerprint: {async: true}}, abft]";; esac
  printf 'name: det-%s\nranks: 1\niterations: %d\nworkload:\n  gemm: {m: 8192, n: 8192, k: 8192, count: 8}\n  allreduce: {bytes: 1GiB}\npower: {sample_hz: 100}\ndetectors: %s\n' \
    "$d" $((iters_sc * 4)) "$det" >"$out/det-$d.yaml"
  to 300 "$g" run "$out/det-$d.yaml" --backend cuda --headless --out "$out/det-$d" >"$out/det-$d.log" 2>&1
done
log "== training shapes (workload.shape, one rank, none): each step kind's time and power against the sim model"
for shape in dp-overlap fsdp pipeline-1f1b moe; do
  printf 'name: shape-%s\nranks: 1\niterations: %d\nworkload: {shape: %s}\npower: {sample_hz: 1000}\n' \
    "$shape" $((iters_sc / 2 + 3)) "$shape" >"$out/shape-$shape.yaml"
  to 300 "$g" run "$out/shape-$shape.yaml" --backend cuda --headless --out "$out/shape-$shape" >"$out/shape-$shape.log" 2>&1
  to 300 "$g" run "$out/shape-$shape.yaml" --backend sim --headless --out "$out/shape-$shape-sim" >"$out/shape-$shape-sim.log" 2>&1
done
log "== acceptance suite, level 1 (one node)"
to 600 "$g" accept --level 1 --backend cuda --out "$out/accept" --junit "$out/accept.xml" >"$out/accept.txt" 2>&1; acc_rc=$?

log "== table"
row "GPU" "$(tail -n +2 "$out/nvidia-smi.csv" 2>/dev/null | head -1)"
row "tests (ctest)" "$([ $tests_rc = 0 ] && echo passed || echo FAILED) ($(grep -E 'tests passed' "$out/tests.log"))"
row "GPU tests run / skipped" "$(grep -c '^\[RUN \]' "$out/tests-cuda-verbose.log" 2>/dev/null) / $(grep -c '\[SKIP\]' "$out/tests-cuda-verbose.log" 2>/dev/null)"
while read -r line; do row "bench gemm" "$line"; done < <(grep -E '^ *(bf16|fp16|tf32|fp8) ' "$out/bench-gemm.txt")
[ -s "$out/torch-matmul.txt" ] && row "PyTorch reference" "$(tail -1 "$out/torch-matmul.txt")"
row "bench allreduce (largest)" "$(grep -E '^ *[0-9]+ ' "$out/bench-allreduce.txt" | tail -1)"
row "bench allreduce note" "$(grep -iE 'busbw needs' "$out/bench-allreduce.txt" | head -1)"
while read -r line; do row "sampling, idle" "$line"; done < <(grep -E '^(power|energy|sm_clock|temp|throttle)' "$out/sampling-idle.txt")
while read -r line; do row "sampling, under load" "$line"; done < <(grep -E '^(power|energy|sm_clock|temp|throttle)' "$out/sampling.txt")
python3 - "$out" "$hz" <<'PY' | tee -a "$out/table.txt"
import csv, json, statistics, sys, os
out, hz = sys.argv[1], sys.argv[2]
def p50(d):
    try: return json.load(open(os.path.join(out, d, "summary.json")))["runs"][0]["iteration_s"]["p50"]
    except Exception as e: return None
off, on = p50("run-off"), p50("trace")
if off and on:
    print(f"{'sampler overhead':34s} iteration p50 {off*1e3:.3f} ms off, {on*1e3:.3f} ms at {hz} Hz: ratio {off/on:.4f}")
rows = list(csv.DictReader(open(os.path.join(out, "trace", "power.csv"))))
by = {}
for r in rows:
    if r["watts"]:
        by.setdefault(r["phase"], []).append(float(r["watts"]))
levels = {k: statistics.median(v) for k, v in by.items()}
print(f"{'power by phase (median W)':34s} " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(levels.items())))
s = json.load(open(os.path.join(out, "trace", "summary.json")))["runs"][0]
print(f"{'trace run':34s} {s['iterations']} it, p50 {s['iteration_s']['p50']*1e3:.2f} ms, {s['tflops']:.1f} TFLOP/s, "
      f"power mean {s['power']['aggregate']['mean_w']:.0f} W swing {s['power']['aggregate']['swing_w']:.0f} W")
PY
python3 - "$out" <<'PY' | tee -a "$out/table.txt"
import json, os, sys
try:
    s = json.load(open(os.path.join(sys.argv[1], "mitigations", "summary.json")))
except Exception as e:
    print(f"{'mitigation-compare':34s} no summary ({e}); see mitigations.log"); sys.exit(0)
for r in s["runs"]:
    a, v = r["power"]["aggregate"], r.get("vs_none", {})
    print(f"{'mitigation ' + r.get('label', r['mitigation']):34s} swing p99-p1 {a.get('swing_w') or 0:.0f} W, "
          f"mean {a['mean_w']:.0f} W, iter p50 {r['iteration_s']['p50']*1e3:.1f} ms, vs none {json.dumps(v)[:120]} "
          f"{r.get('device', {}).get('smoothing', '')}")
PY
python3 - "$out" <<'PY' | tee -a "$out/table.txt"
import json, os, sys
def p50(d):
    try: return json.load(open(os.path.join(sys.argv[1], d, "summary.json")))["runs"][0]["iteration_s"]["p50"]
    except Exception: return None
base = p50("det-none")
for d in ("sync", "async"):
    v = p50("det-" + d)
    if base and v:
        print(f"{'detector cost, fingerprint ' + d:34s} iteration p50 {v*1e3:.3f} ms vs {base*1e3:.3f} ms: +{100*(v/base-1):.2f} % (aim < 2 %)")
PY
python3 - "$out" <<'PY' | tee -a "$out/table.txt"
# Per shape and step kind: the median step time and the median power over the samples inside such steps (rank 0's
# phase edges from events.jsonl, the samples from power.csv: one clock), on the GPU and on the sim model for the
# same shape: where they differ, the model's levels and rates (sim.*) are what to recalibrate.
import csv, json, os, statistics, sys
out = sys.argv[1]
def kinds(d):
    ev = [json.loads(l) for l in open(os.path.join(d, "events.jsonl"))]
    rows = [r for r in csv.DictReader(open(os.path.join(d, "power.csv"))) if r["watts"] and r["rank"] == "0"]
    s = json.load(open(os.path.join(d, "summary.json")))["runs"][0]
    spans, open_ = {}, {}
    for e in ev:
        if e.get("rank") == 0 and e["event"] in ("phase_begin", "phase_end") and e.get("iter", 0) >= 1:
            if e["event"] == "phase_begin":
                open_[e["phase"]] = e["t_s"]
            elif e["phase"] in open_:
                spans.setdefault(e["phase"], []).append((open_.pop(e["phase"]), e["t_s"]))
    t = [float(r["t_s"]) for r in rows]
    w = [float(r["watts"]) for r in rows]
    res = {}
    for ph, iv in spans.items():
        inside = [w[i] for i in range(len(t)) if any(a <= t[i] <= b for a, b in iv)]
        res[ph] = (statistics.median(b - a for a, b in iv), len(iv), statistics.median(inside) if len(inside) >= 5 else None)
    return s, res
for shape in ("dp-overlap", "fsdp", "pipeline-1f1b", "moe"):
    try:
        s, gpu = kinds(os.path.join(out, "shape-" + shape))
        s_sim, sim = kinds(os.path.join(out, "shape-" + shape + "-sim"))
    except Exception as e:
        print(f"{'shape ' + shape:34s} no result ({e}); see shape-{shape}.log"); continue
    parts = []
    for ph in sorted(gpu):
        d, n, p = gpu[ph]
        sd, _, sp = sim.get(ph, (None, 0, None))
        f = lambda x, fmt: fmt.format(x) if x is not None else "-"
        parts.append(f"{ph} x{n} {d*1e3:.2f} ms (sim {f(sd and sd*1e3, '{:.2f}')}) {f(p, '{:.0f}')} W (sim {f(sp, '{:.0f}')})")
    print(f"{'shape ' + shape:34s} iter p50 {s['iteration_s']['p50']*1e3:.1f} ms (sim {s_sim['iteration_s']['p50']*1e3:.1f}), "
          f"{s.get('tflops') or 0:.0f} TFLOP/s; " + "; ".join(parts))
PY
row "gauntlet accept --level 1" "$(grep -E 'checks:' "$out/accept.txt" | tail -1) (exit $acc_rc; table in accept.txt)"
log "logs and trace in $out"
[ $tests_rc = 0 ] && [ $gemm_rc = 0 ] && [ $on_rc = 0 ] && [ $off_rc = 0 ] && exit 0
exit 1
