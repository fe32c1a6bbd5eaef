#!/usr/bin/env bash
# tests/bench-replay.sh [GAUNTLET] [COPIES]: what `gauntlet view` takes for a long record. Runs the demo's step
# (4 ranks, ~0.12 s iterations, power sampled at 1 kHz) for 240 iterations on sim (~30 s), makes an hour-long
# record of it (COPIES, default 122, end to end: events.jsonl and power.csv with their times moved on), and prints
# the wall time and peak memory of `view --snapshot` at 60 s and at the end. Needs python3 and GNU time.
set -euo pipefail
BIN=$(realpath "${1:-build/gauntlet}")
COPIES=${2:-122}
OUT=$(mktemp -d /tmp/gauntlet-bench-replay.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
SRC=$(dirname "$(realpath "$0")")/..
sed 's/iterations: 60/iterations: 240/; s/sample_hz: 200/sample_hz: 1000/' "$SRC/scenarios/demo.yaml" > "$OUT/s.yaml"
"$BIN" run "$OUT/s.yaml" --out "$OUT/run" --backend sim --headless > /dev/null 2>&1
mkdir "$OUT/long"
python3 - "$OUT/run" "$OUT/long" "$COPIES" <<'PY'
import json, sys
src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
ev = [json.loads(l) for l in open(src + "/events.jsonl")]
T = max(e["t_s"] for e in ev) + 0.01
step = ("phase_begin", "phase_end", "iteration")
body = [e for e in ev if e["event"] in step]
head = [e for e in ev if e["t_s"] < 1 and e["event"] not in step]
tail = [e for e in ev if e["t_s"] >= 1 and e["event"] not in step]
with open(dst + "/events.jsonl", "w") as f:
    for e in head:
        f.write(json.dumps(e, separators=(",", ":")) + "\n")
    for k in range(copies):
        for e in body:
            e2 = dict(e, t_s=round(e["t_s"] + k * T, 6))
            if isinstance(e2.get("iter"), int):
                e2["iter"] += k * 240
            f.write(json.dumps(e2, separators=(",", ":")) + "\n")
    for e in tail:
        f.write(json.dumps(dict(e, t_s=round(e["t_s"] + (copies - 1) * T, 6)), separators=(",", ":")) + "\n")
lines = open(src + "/power.csv").read().splitlines()
with open(dst + "/power.csv", "w") as f:
    f.write(lines[0] + "\n")
    for k in range(copies):
        for l in lines[1:]:
            p = l.split(",")
            for i in (0, 11):
                if p[i]:
                    p[i] = "%.6f" % (float(p[i]) + k * T)
            f.write(",".join(p) + "\n")
PY
echo "record: $(wc -l < "$OUT/long/events.jsonl") events, $(($(wc -l < "$OUT/long/power.csv") - 1)) power rows, $(du -sm "$OUT/long" | cut -f1) MB"
for at in 60 end; do
  arg=(); [ "$at" = end ] || arg=(--at "$at")
  /usr/bin/time -f "view --snapshot at $at: %e s wall, %M KB peak" "$BIN" view "$OUT/long" --snapshot 120x40 "${arg[@]}" > /dev/null
done
