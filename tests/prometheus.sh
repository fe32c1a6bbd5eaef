#!/usr/bin/env bash
# tests/prometheus.sh BUILD_DIR: a real Prometheus scrapes a sim run's --metrics endpoint. Debian's `prometheus`
# (2.42) is started here with a configuration of its own in a temporary folder (scrape every second, the run's
# 127.0.0.1 port); the test waits until a query through Prometheus' HTTP API returns gauntlet's per-GPU power for
# both ranks, checks the labels (node, rank, gpu) and the value, and runs `promtool check metrics` on what the
# endpoint served and on the textfile written beside it. Exit 77 (skip) with the reason when prometheus, promtool,
# curl or the HTTP server (libmicrohttpd) is missing here.
set -u
build=$(cd "${1:?usage: tests/prometheus.sh BUILD_DIR}" && pwd)
g="$build/gauntlet"
skip() { echo "prometheus: skipped: $*"; exit 77; }
for c in prometheus promtool curl python3; do
  command -v $c >/dev/null || skip "$c not installed (apt-get install prometheus curl)"
done
tmp=$(mktemp -d /tmp/gauntlet-prom.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "prometheus: FAIL: $*"; for f in "$tmp"/run.log "$tmp"/prom.log; do [ -f "$f" ] && { echo "== $f"; tail -15 "$f"; }; done; exit 1; }

# two free ports: the run's and Prometheus' own
read -r mport pport < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')

cat >"$tmp/run.yaml" <<EOF
name: prom
ranks: 2
iterations: 5000
workload: { gemm: { m: 8192, n: 8192, k: 8192, count: 8 }, allreduce: { bytes: 256MiB, emulate_busbw: 50 } }
EOF
mkdir "$tmp/textfile"
"$g" run "$tmp/run.yaml" --backend sim --headless --out "$tmp/out" --metrics "127.0.0.1:$mport" \
  --metrics-textfile "$tmp/textfile" >"$tmp/run.log" 2>&1 & pids+=($!)
for i in $(seq 100); do curl -sf "http://127.0.0.1:$mport/metrics" >/dev/null 2>&1 && break; sleep 0.1; done
if ! curl -sf "http://127.0.0.1:$mport/metrics" >/dev/null 2>&1; then
  grep -q "libmicrohttpd" "$tmp/run.log" && skip "$(grep -m1 libmicrohttpd "$tmp/run.log")"
  fail "nothing answers on 127.0.0.1:$mport"
fi

cat >"$tmp/prometheus.yml" <<EOF
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: gauntlet
    static_configs: [{ targets: ["127.0.0.1:$mport"] }]
EOF
promtool check config "$tmp/prometheus.yml" >"$tmp/promtool-config.txt" 2>&1 || fail "promtool check config: $(cat "$tmp/promtool-config.txt")"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 & pids+=($!)

# Prometheus itself must start within 30 s (its readiness endpoint), else the service cannot run here: a skip,
# saying why (a chroot or container without what it needs), never a failure of gauntlet's
for i in $(seq 150); do
  curl -sf "http://127.0.0.1:$pport/-/ready" >/dev/null 2>&1 && break
  kill -0 "${pids[-1]}" 2>/dev/null || skip "prometheus exited at start: $(tail -n 1 "$tmp/prom.log")"
  sleep 0.2
done
curl -sf "http://127.0.0.1:$pport/-/ready" >/dev/null 2>&1 ||
  skip "prometheus did not become ready within 30 s: $(tail -n 1 "$tmp/prom.log")"

# one series back through Prometheus' own query API: both GPUs' power, labelled (the run goes on for about 90 s;
# on a loaded machine Prometheus' start and first scrapes take several seconds; the run is stopped at the end)
got=""
for i in $(seq 300); do
  got=$(curl -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode 'query=gauntlet_gpu_power_watts{job="gauntlet"}' 2>/dev/null) &&
    python3 -c 'import json,sys; r=json.loads(sys.argv[1])["data"]["result"]; sys.exit(0 if len(r) >= 2 else 1)' "$got" 2>/dev/null && break
  sleep 0.2
done
python3 - "$got" <<'PY' || fail "Prometheus did not return gauntlet_gpu_power_watts for both ranks: $got"
import json, sys
r = json.loads(sys.argv[1])
assert r["status"] == "success", r
res = r["data"]["result"]
ranks = sorted(x["metric"]["rank"] for x in res)
assert ranks == ["0", "1"], ranks
for x in res:
    m = x["metric"]
    for label in ("node", "rank", "instance", "job"):   # gpu: the UUID, empty on sim (Prometheus drops it)
        assert label in m, (label, m)
    w = float(x["value"][1])
    assert 0 < w < 2000, w   # the sim model's GPU: idle 70 W .. compute 780 W
print("prometheus: query gauntlet_gpu_power_watts:", ", ".join(f'rank {x["metric"]["rank"]} {float(x["value"][1]):.0f} W' for x in res))
PY
# the scrape itself is healthy (Prometheus parsed what it got)
up=$(curl -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode 'query=up{job="gauntlet"}')
python3 -c 'import json,sys; r=json.loads(sys.argv[1])["data"]["result"]; assert r and r[0]["value"][1] == "1", r' "$up" ||
  fail "up{job=gauntlet} is not 1: $up"

# promtool on what was served (the text format a scraper asks for by default) and on the textfile
curl -sf "http://127.0.0.1:$mport/metrics" >"$tmp/served.txt" || fail "the endpoint went away"
promtool check metrics <"$tmp/served.txt" >"$tmp/promtool.txt" 2>&1 || fail "promtool check metrics (served): $(cat "$tmp/promtool.txt")"
for i in $(seq 30); do [ -s "$tmp/textfile/gauntlet.prom" ] && break; sleep 0.1; done
promtool check metrics <"$tmp/textfile/gauntlet.prom" >"$tmp/promtool2.txt" 2>&1 ||
  fail "promtool check metrics (textfile): $(cat "$tmp/promtool2.txt")"
echo "prometheus: ok (a real Prometheus scraped --metrics; promtool check metrics: served and textfile clean)"
