#!/usr/bin/env bash
# tests/bench-cluster.sh [GAUNTLET] [NODES...]: what gathering telemetry costs node 0 as nodes are added.
# Runs the same sim scenario (2 ranks per node, 300 iterations of ~25 ms, power at 100 Hz) under
# `mpirun --oversubscribe -np N` for each N (default 2 4 8) on this one machine, and prints per N: the run's
# wall time, the bytes node 0 received, node 0's supervisor CPU seconds and share of one core, and the mean of
# the other nodes'. Every "node" shares this machine's cores, so the figures are an upper bound. Needs python3.
set -euo pipefail
BIN=$(realpath "${1:-build/gauntlet}")
shift || true
NODES=${*:-2 4 8}
OUT=$(mktemp -d /tmp/gauntlet-bench-cluster.XXXXXX)
printf '%-6s %8s %14s %12s %10s %14s\n' nodes wall_s node0_recv_MB node0_cpu_s node0_core others_cpu_s
for n in $NODES; do
  cat > "$OUT/s$n.yaml" <<EOT
name: bench-cluster
nodes: $n
ranks: 2
iterations: 300
seed: 1
workload:
  gemm: { m: 256, n: 256, k: 256, count: 2 }
  allreduce: { bytes: 4MiB }
power: { sample_hz: 100 }
sim: { tflops: 0.0015 }
EOT
  mpirun --oversubscribe --allow-run-as-root -np "$n" "$BIN" run "$OUT/s$n.yaml" --out "$OUT/r$n" --backend sim \
    --headless > "$OUT/r$n.log" 2>&1
  python3 - "$OUT/r$n/summary.json" "$n" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); n = int(sys.argv[2])
nodes = {x["node"]: x for x in s["nodes"]}
z = nodes[0]; others = [nodes[k]["supervisor_cpu_s"] for k in nodes if k != 0 and "supervisor_cpu_s" in nodes[k]]
print("%-6d %8.1f %14.2f %12.2f %9.1f%% %14.2f" % (n, z["wall_s"], z["telemetry_received_bytes"] / 1e6,
      z["supervisor_cpu_s"], 100 * z["supervisor_cpu_s"] / z["wall_s"], sum(others) / max(1, len(others))))
PY
done
echo "results in $OUT"
