#!/usr/bin/env bash
# tests/bench-cluster.sh [--ranks R] [--iterations I] [--forward nodes|ranks] [--fanout F] [--sample-hz HZ]
# [--bytes SIZE] [--heartbeat INTERVAL,TIMEOUT] [GAUNTLET] [NODES...]: what gathering the nodes' telemetry costs node 0
# as nodes are added.
# Runs one sim scenario (R ranks per node, default 1; I iterations, default 200, of 256^3 GEMMs and a SIZE all-reduce,
# default 4MiB; power at HZ, default 100; the nodes' heartbeat every INTERVAL, silence TIMEOUT, default 100ms,60s:
# low rates let hundreds of supervisors share a few cores) under `mpirun --oversubscribe -np N` for each N (default 2 4 8 16 32) on this one machine, and
# prints per N: the wall time, the bytes node 0 received (summary.json nodes[0].telemetry_received_bytes: telemetry,
# control and heartbeats) per second and per other node and iteration, node 0's supervisor CPU seconds and share of
# one core, its largest resident memory, the mean CPU of the other nodes' supervisors, and the most bytes one of them
# relayed per second for the nodes below it in the tree (gather_fanout F, default 8). Then a least-squares
# line through each of node 0's figures against N, and what the lines say at 4,096 nodes. Every "node" shares this
# machine's cores, so CPU and wall time are upper bounds; bytes are what they are. Needs python3.
set -euo pipefail
RANKS=1 ITERS=200 FORWARD=nodes FANOUT=8 HZ=100 BYTES=4MiB HB_INTERVAL=100ms HB_TIMEOUT=60s
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) RANKS=$2; shift 2 ;;
    --iterations) ITERS=$2; shift 2 ;;
    --forward) FORWARD=$2; shift 2 ;;
    --fanout) FANOUT=$2; shift 2 ;;
    --sample-hz) HZ=$2; shift 2 ;;
    --bytes) BYTES=$2; shift 2 ;;
    --heartbeat) HB_INTERVAL=${2%,*} HB_TIMEOUT=${2#*,}; shift 2 ;;
    *) break ;;
  esac
done
BIN=$(realpath "${1:-build/gauntlet}")
shift || true
NODES=${*:-2 4 8 16 32}
OUT=$(mktemp -d /tmp/gauntlet-bench-cluster.XXXXXX)
echo "ranks per node $RANKS, $ITERS iterations, all-reduce $BYTES, power at $HZ Hz, heartbeat $HB_INTERVAL (timeout" \
  "$HB_TIMEOUT), forward: $FORWARD, gather_fanout $FANOUT, $(nproc) cores; results in $OUT"
printf '%-6s %8s %12s %16s %12s %10s %12s %14s %14s\n' nodes wall_s node0_recv_B/s B/node/iter node0_cpu_s node0_core \
  node0_rss_MB others_cpu_s relay_max_B/s
for n in $NODES; do
  cat > "$OUT/s$n.yaml" <<EOT
name: bench-cluster
nodes: $n
ranks: $RANKS
iterations: $ITERS
seed: 1
forward: $FORWARD
gather_fanout: $FANOUT
workload:
  gemm: { m: 256, n: 256, k: 256 }
  allreduce: { bytes: $BYTES }
power: { sample_hz: $HZ }
heartbeat: { interval: $HB_INTERVAL, timeout: $HB_TIMEOUT }
EOT
  rc=0
  mpirun --oversubscribe --allow-run-as-root -np "$n" "$BIN" run "$OUT/s$n.yaml" --out "$OUT/r$n" --backend sim \
    --headless > "$OUT/r$n.log" 2>&1 || rc=$?
  # each node's own last line: "node K of N: exit 0", node 0's "NAME: exit 0 after S s; results in DIR"
  ended=$(grep -cE "of $n: exit 0\$|^gauntlet\[node 0/$n\]: .*: exit 0 after " "$OUT/r$n.log" || true)
  if [ "$rc" != 0 ] && [ "$ended" = "$n" ] && [ -s "$OUT/r$n/summary.json" ]; then
    # Open MPI 4.1 at 512 processes on 2 cores: mpirun reported a process "exiting improperly" after every node had
    # ended 0 and node 0 had written its summary (2026-11-28): the run's figures stand, mpirun's code is said
    echo "$n nodes: every node ended 0 and node 0 wrote its summary, but mpirun exited $rc after them: see $OUT/r$n.log"
  elif [ "$rc" != 0 ]; then
    echo "$n nodes: the run failed (mpirun exit $rc, $ended of $n nodes ended 0): see $OUT/r$n.log"
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
      sum(others) / max(1, len(others)),
      max([nodes[k].get("telemetry_relayed_bytes", 0) for k in nodes if k != 0] + [0]) / z["wall_s"])
PY
  tail -1 "$OUT/table" | awk '{printf "%-6d %8.1f %12.0f %16.0f %12.2f %9.1f%% %12.1f %14.2f %14.0f\n", $1, $2, $3, $4, $5, 100*$6, $7, $8, $9}'
done
python3 - "$OUT/table" "$ITERS" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
it = float(sys.argv[2])
if len(rows) < 3:
    sys.exit(0)
def lsq(xs, ys):   # y = p x1 + q x2 over the rows, by the normal equations
    s11 = sum(a * a for a, _ in xs); s12 = sum(a * b for a, b in xs); s22 = sum(b * b for _, b in xs)
    t1 = sum(a * y for (a, _), y in zip(xs, ys)); t2 = sum(b * y for (_, b), y in zip(xs, ys))
    det = s11 * s22 - s12 * s12
    return ((t1 * s22 - t2 * s12) / det, (s11 * t2 - s12 * t1) / det) if det else (float("nan"),) * 2
# what one other node sends: a part per iteration (its node_iteration line) and a part per second (its summed power,
# heartbeats); node 0's CPU: a part per second (its own loop) and a part per other node and iteration; its memory
a, b = lsq([(it, r[1]) for r in rows], [r[3] * it for r in rows])
c, d = lsq([(r[1], (r[0] - 1) * it) for r in rows], [r[4] for r in rows])
e, f = lsq([(1, r[0]) for r in rows], [r[6] for r in rows])
print("fit: each other node sends %.0f B per iteration + %.0f B/s" % (a, b))
print("fit: node 0's supervisor: %.1f%% of a core + %.0f us per other node and iteration" % (100 * c, 1e6 * d))
print("fit: node 0's memory: %.1f MB + %.3f MB per node" % (e, f))
for rate in (1.0, 0.2):
    n = 4096
    print("at %d nodes, %.1f iterations/s: node 0 receives %.2f MB/s, its supervisor %.0f%% of a core, %.0f MB" %
          (n, rate, (n - 1) * (a * rate + b) / 1e6, 100 * (c + d * (n - 1) * rate), e + f * n))
PY
