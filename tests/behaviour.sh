#!/usr/bin/env bash
# tests/behaviour.sh BUILD_DIR OUT_FILE: a digest of what the engine does with every scenario in scenarios/ on sim,
# with a fixed seed and at most 120 iterations a run: per run its final state_fingerprint, iterations and whether it
# completed; every fault with the detector that caught it and where; and per rank the set of its events without
# times (event, run, iteration, phase: a set, since where the background checkpoint writer's reports fall among
# the iterations depends on timing, not on the code; with faults, without the iteration, since how far a rank got
# before a recovery stopped it does too). Two builds that behave alike give the same file: the check for a change
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
  # at most 120 iterations, every mitigation's; the scenario's own seed (or 7)
  awk '/^iterations:/ { if ($2 + 0 > 120) { print "iterations: 120"; next } } { print }' "$sc" > "$tmp/$name.yaml"
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
    print(f"   fault {f.get('kind')} rank {f.get('rank')} iter {f.get('injected_iter')} origin {f.get('origin')}: "
          f"{f.get('detected_by')} rank {det.get('rank')} iter {det.get('iter_seen')}")
import hashlib
seen = {}
for line in open(f"{d}/events.jsonl"):
    e = json.loads(line)
    if "rank" not in e or e.get("event") in ("worker_start", "worker_exit", "worker_died", "gpu", "detection_repeat",
                                             "stale_report", "rank_stopped"):
        continue   # pids, and what the timing of a stop decides, are not behaviour
    # with faults, which iterations a rank did twice, and the restored replica's age, depend on how far it got
    # before the recovery stopped it: the kinds of its events are behaviour, their iterations timing
    it = "" if s.get("faults") else e.get("iter", "")
    seen.setdefault(e["rank"], set()).add(f"{e['event']}:{e.get('run','')}:{it}:{e.get('phase','')}")
for rank in sorted(seen):
    h = hashlib.sha256("\n".join(sorted(seen[rank])).encode()).hexdigest()[:16]
    print(f"   rank {rank}: {len(seen[rank])} distinct events {h}")
PY
done
