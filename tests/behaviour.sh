#!/usr/bin/env bash
# tests/behaviour.sh BUILD_DIR OUT_FILE: a digest of what the engine does with every scenario in scenarios/ on sim,
# with a fixed seed and at most 40 iterations a run: per run its final state_fingerprint, iterations and whether it
# completed; every fault with the detector that caught it and where; and per rank the sequence of its events
# without times (event, iteration, phase). Two builds that behave alike give the same file: the check for a change
# of structure that must change no behaviour (docs/architecture.md).
set -euo pipefail
build=${1:?usage: tests/behaviour.sh BUILD_DIR OUT_FILE}
out=${2:?usage: tests/behaviour.sh BUILD_DIR OUT_FILE}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/gauntlet-behaviour.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
: > "$out"
for sc in scenarios/*.yaml; do
  name=$(basename "$sc" .yaml)
  # at most 40 iterations, every mitigation's; the scenario's own seed (or 7)
  sed -E 's/^iterations: *([0-9]+)/iterations: 40/' "$sc" > "$tmp/$name.yaml"
  grep -q '^seed:' "$tmp/$name.yaml" || echo 'seed: 7' >> "$tmp/$name.yaml"
  rc=0
  "$build/gauntlet" run "$tmp/$name.yaml" --backend sim --headless --out "$tmp/$name" > "$tmp/$name.log" 2>&1 || rc=$?
  python3 - "$tmp/$name" "$name" "$rc" >> "$out" <<'PY'
import json, sys
d, name, rc = sys.argv[1], sys.argv[2], sys.argv[3]
print(f"== {name}: exit {rc}")
try:
    s = json.load(open(f"{d}/summary.json"))
except Exception as e:
    print(f"   no summary: {e}")
    sys.exit(0)
for r in s.get("runs", []):
    print(f"   run {r.get('run')} {r.get('mitigation')}: iterations {r.get('iterations')} complete {r.get('complete')}"
          f" state {r.get('state_fingerprint')}")
for f in s.get("faults", []):
    det = f.get("detection") or {}
    print(f"   fault {f.get('kind')} rank {f.get('rank')} iter {f.get('iter')} origin {f.get('origin')}: "
          f"{f.get('detected_by')} rank {det.get('rank')} iter {det.get('iter_seen')}")
seq = {}
for line in open(f"{d}/events.jsonl"):
    e = json.loads(line)
    if "rank" not in e or e.get("event") in ("worker_start", "worker_exit", "gpu"):
        continue   # pids and the supervisor's timing are not behaviour
    seq.setdefault(e["rank"], []).append(f"{e['event']}:{e.get('run','')}:{e.get('iter','')}:{e.get('phase','')}")
for rank in sorted(seq):
    import hashlib
    h = hashlib.sha256("\n".join(seq[rank]).encode()).hexdigest()[:16]
    print(f"   rank {rank}: {len(seq[rank])} events {h}")
PY
done
