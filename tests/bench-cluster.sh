#!/usr/bin/env bash
# tests/bench-cluster.sh [--ranks R] [--iterations I] [--forward nodes|ranks] [GAUNTLET] [NODES...]: what gathering the
# nodes' telemetry costs node 0 as nodes are added.
# Runs one sim scenario (R ranks per node, default 1; I iterations, default 200, of 256^3 GEMMs and a 4 MiB all-reduce;
# power at 100 Hz) under `mpirun --oversubscribe -np N` for each N (default 2 4 8 16 32) on this one machine, and
# prints per N: the wall time, the bytes node 0 received (summary.json nodes[0].telemetry_received_bytes: telemetry,
# control and heartbeats) per second and per other node and iteration, node 0's supervisor CPU seconds and share of
# one core, its largest resident memory, and the mean CPU of the other nodes' supervisors. Then a least-squares
# line through each of node 0's figures against N, and what the lines say at 4,096 nodes. Every "node" shares this
# machine's cores, so CPU and wall time are upper bounds; bytes are what they are. Needs python3.
set -euo pipefail
RANKS=1 ITERS=200 FORWARD=nodes
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) RANKS=$2; shift 2 ;;
    --iterations) ITERS=$2; shift 2 ;;
    --forward) FORWARD=$2; shift 2 ;;
    *) break ;;
  esac
done
BIN=$(realpath "${1:-build/gauntlet}")
shift || true
NODES=${*:-2 4 8 16 32}
OUT=$(mktemp -d /tmp/gauntlet-bench-cluster.XXXXXX)
echo "ranks per node $RANKS, $ITERS iterations, forward: $FORWARD, $(nproc) cores; results in $OUT"
printf '%-6s %8s %12s %16s %12s %10s %12s %14s\n' nodes wall_s node0_recv_B/s B/node/iter node0_cpu_s node0_core \
  node0_rss_MB others_cpu_s
for n in $NODES; do
  cat > "$OUT/s$n.yaml" <<EOT
name: bench-cluster
nodes: $n
ranks: $RANKS
iterations: $ITERS
seed: 1
forward: $FORWARD
workload:
  gemm: { m: 256, n: 256, k: 256 }
  allreduce: { bytes: 4MiB }
power: { sample_hz: 100 }
heartbeat: { timeout: 60s }
EOT
  if ! mpirun --oversubscribe --allow-run-as-root -np "$n" "$BIN" run "$OUT/s$n.yaml" --out "$OUT/r$n" --backend sim \
      --headless > "$OUT/r$n.log" 2>&1; then
    echo "$n nodes: the run failed (exit $?): see $OUT/r$n.log"
    continue
  fi
  python3 - "$OUT/r$n/summary.json" "$n" "$ITERS" >> "$OUT/table" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); n = int(sys.argv[2]); it = int(sys.argv[3])
nodes = {x["node"]: x for x in s["nodes"]}
z = nodes[0]; others = [nodes[k]["supervisor_cpu_s"] for k in nodes if k != 0 and "supervisor_cpu_s" in nodes[k]]
recv = z["telemetry_received_bytes"]
print(n, z["wall_s"], recv / z["wall_s"], recv / max(1, n - 1) / it, z["supervisor_cpu_s"],
      z["supervisor_cpu_s"] / z["wall_s"], z.get("supervisor_max_rss_mb", float("nan")),
      sum(others) / max(1, len(others)))
PY
  tail -1 "$OUT/table" | awk '{printf "%-6d %8.1f %12.0f %16.0f %12.2f %9.1f%% %12.1f %14.2f\n", $1, $2, $3, $4, $5, 100*$6, $7, $8}'
done
python3 - "$OUT/table" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
if len(rows) < 2:
    sys.exit(0)
def fit(col):
    xs = [r[0] for r in rows]; ys = [r[col] for r in rows]
    mx = sum(xs) / len(xs); my = sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
    return my - b * mx, b
for name, col, unit, scale in (("node 0 received", 2, "B/s", 1), ("bytes per other node and iteration", 3, "B", 1),
                               ("node 0's CPU", 5, "% of a core", 100), ("node 0's memory", 6, "MB", 1)):
    a, b = fit(col)
    print("fit %-36s %12.4g + %10.4g x nodes %-12s -> at 4096 nodes: %.4g %s" % (name + ":", a * scale, b * scale,
          unit, (a + b * 4096) * scale, unit))
PY
