#!/usr/bin/env bash
# tests/bench-tui.sh [GAUNTLET] [ROUNDS]: what the live view costs. Runs the same sim scenario (8 ranks,
# power sampled at 1 kHz, ~30 ms iterations) alternately --headless and with the live view in a 120x40 tmux
# pane, and prints per round the iteration rate of each (iterations / run wall time, from summary.json),
# their ratio, and the view thread's own CPU use (it reports it when it closes). Needs tmux and python3.
set -euo pipefail
BIN=$(realpath "${1:-build/gauntlet}")
ROUNDS=${2:-3}
OUT=$(mktemp -d /tmp/gauntlet-bench-tui.XXXXXX)
SOCK=gauntlet-bench-$$
# the server's socket goes too (tmux leaves it when the server ends)
trap 'tmux -L $SOCK kill-server 2>/dev/null || true; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"' EXIT
cat > "$OUT/s.yaml" <<'EOF'
name: bench-tui
ranks: 8
iterations: 1000
seed: 1
workload:
  gemm: { m: 256, n: 256, k: 256, count: 2 }
  allreduce: { bytes: 4MiB }
power: { sample_hz: 1000 }
sim: { tflops: 0.002 }
mitigations: [none]
EOF
rate() {   # iterations per second of the run in $1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]+"/summary.json"))["runs"][0]; print(r["iterations"]/r["wall_s"])' "$1"
}
printf '%-6s %12s %12s %8s   %s\n' round headless_it/s view_it/s ratio "view thread"
for i in $(seq 1 "$ROUNDS"); do
  "$BIN" run "$OUT/s.yaml" --out "$OUT/h$i" --backend sim --headless > /dev/null 2>&1
  tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
    "env TERM=xterm-256color LANG=C.UTF-8 $BIN run $OUT/s.yaml --out $OUT/v$i --backend sim 2> $OUT/v$i.err; touch $OUT/v$i.done"
  while [ ! -e "$OUT/v$i.done" ]; do sleep 0.5; done
  h=$(rate "$OUT/h$i"); v=$(rate "$OUT/v$i")
  cpu=$(grep -o 'live view: .*' "$OUT/v$i.err" || echo "no report")
  printf '%-6s %12.2f %12.2f %8.4f   %s\n' "$i" "$h" "$v" "$(python3 -c "print($v/$h)")" "$cpu"
done
echo "results in $OUT"
