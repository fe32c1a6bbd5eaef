#!/usr/bin/env bash
# tests/slurm.sh BUILD_DIR: gauntlet under a real Slurm on this one host — Debian's slurmctld, slurmd and munge,
# started here (as root) with a configuration of their own in a temporary folder, MpiDefault=none as Slurm ships.
# Through sbatch + srun --mpi=pmix: a 2-task sim run joined into one (nodes: 2), its results whole; srun without
# --mpi: exit 3 on both tasks naming the fix; `gauntlet accept --level 0` and `--level 1` with their JUnit files
# (level 1: every verdict judged, exit 0 or 1); and a long run
# scancel'ed mid-way: node 0's summary written (stopped), nothing of gauntlet left running. Exit 77 (skip) with the
# reason when it cannot run here (not root, no Slurm: apt-get install slurmctld slurmd munge).
set -u
build=$(cd "${1:?usage: tests/slurm.sh BUILD_DIR}" && pwd)
g="$build/gauntlet"
skip() { echo "slurm: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (Slurm's daemons need it)"
for c in slurmctld slurmd munged munge sbatch srun scancel squeue sinfo; do
  command -v $c >/dev/null || skip "$c not installed (apt-get install slurmctld slurmd munge slurm-client)"
done
ls /usr/lib/*/slurm-wlm/mpi_pmix*.so >/dev/null 2>&1 || skip "Slurm has no pmix plugin here (mpi_pmix.so)"
tmp=$(mktemp -d /tmp/gauntlet-slurm.XXXXXX)
chmod 755 "$tmp"
host=$(hostname -s)
pids=()
started_munge=0
cleanup() {
  timeout 3 scancel --user=root >/dev/null 2>&1   # bounded: with no slurmctld, scancel retries for ~20 s
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.5
  # a munged this script started goes with it (one left running, or its socket left by a reboot, made every mpirun
  # on the host wait ~2 s in libmunge's retries: docs/cluster.md)
  [ "$started_munge" = 1 ] && pkill -x -u munge munged 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "slurm: FAIL: $*"; for f in "$tmp"/*.out "$tmp"/slurmctld.log "$tmp"/slurmd.log; do [ -f "$f" ] && { echo "== $f"; tail -20 "$f"; }; done; exit 1; }

# munge: a key of its own, the daemon as its user
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
[ -s /etc/munge/munge.key ] || { dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; }
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null
chmod 0400 /etc/munge/munge.key
if ! munge -n </dev/null >/dev/null 2>&1; then   # a munged that answers (pgrep also finds a zombie)
  timeout 10 runuser -u munge -- munged ||
    skip "munged cannot start here (a chroot or a container without its run directories?)"
  started_munge=1
fi

mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=gauntlet-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
KillWait=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -f "$SLURM_CONF" >/dev/null 2>&1 & pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >/dev/null 2>&1 & pids+=($!)
# the daemons up within 25 s, or this host cannot run them (a chroot: no cgroups, no systemd, no network
# namespace of its own): a skip that says why, never a hang to the test's timeout
deadline=$((SECONDS + 25)); up=0
while [ $SECONDS -lt $deadline ]; do
  timeout 3 sinfo -h -o %T 2>/dev/null | grep -qE '^idle' && { up=1; break; }
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done   # a daemon died: it will not come up
  sleep 0.2
done
if [ $up = 0 ]; then
  why=$( { tail -3 "$tmp/slurmctld.log"; tail -3 "$tmp/slurmd.log"; } 2>/dev/null | tr '\n' ' ' | cut -c1-300)
  skip "Slurm's daemons did not come up within 25 s here: ${why:-no log}"
fi

cd "$tmp"
cat >two.yaml <<EOF
name: slurm-two
ranks: 1
nodes: 2
iterations: 20
workload: { gemm: { m: 1024, n: 1024, k: 1024 }, allreduce: { bytes: 1MiB } }
EOF
wait_job() { for i in $(seq 600); do squeue -h -j "$1" 2>/dev/null | grep -q . || return 0; sleep 0.2; done; return 1; }

# 1. two tasks joined into one run by srun --mpi=pmix
j=$(sbatch --parsable -n2 -o "$tmp/two.out" --wrap "srun --mpi=pmix $g run two.yaml --backend sim --headless --out $tmp/two")
wait_job "$j" || fail "job $j did not end"
python3 - "$tmp/two/summary.json" <<'PY' || fail "the joined run's summary: see two.out"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["exit"] == 0, s["exit"]
assert len(s["nodes"]) == 2 and s["ranks_total"] == 2, (len(s["nodes"]), s.get("ranks_total"))
assert s["runs"][0]["iterations"] == 20
PY
grep -q "gauntlet\[node 1/2\]: node 1 of 2: exit 0" "$tmp/two.out" || fail "node 1's last line: $(grep 'node 1' "$tmp/two.out")"

# 2. srun without PMI: exit 3 on both tasks, the fix named
j=$(sbatch --parsable -n2 -o "$tmp/nopmi.out" --wrap "srun $g run two.yaml --backend sim --headless --out $tmp/nopmi; echo srun-exit=\$?")
wait_job "$j" || fail "job $j did not end"
grep -q "srun-exit=3" "$tmp/nopmi.out" || fail "srun without --mpi: $(cat "$tmp/nopmi.out")"
[ "$(grep -c 'srun --mpi=pmix' "$tmp/nopmi.out")" -ge 2 ] || fail "each task names the fix: $(cat "$tmp/nopmi.out")"

# 3. the health check through the scheduler, with its JUnit file
j=$(sbatch --parsable -n1 -o "$tmp/accept.out" --wrap "srun --mpi=pmix $g accept --level 0 --backend sim --out $tmp/accept --junit $tmp/accept.xml")
wait_job "$j" || fail "job $j did not end"
grep -q "gauntlet accept: PASS" "$tmp/accept.out" && grep -q "<testsuites" "$tmp/accept.xml" || fail "accept --level 0: $(tail -3 "$tmp/accept.out")"

# 3b. the level-1 suite through the scheduler: every verdict in the JUnit file (a check may fail on this machine's
# disk or GPUs; the suite must run through and judge: exit 0 or 1, never 3)
j=$(sbatch --parsable -n1 -o "$tmp/accept1.out" --wrap "srun --mpi=pmix $g accept --level 1 --backend sim --out $tmp/accept1 --junit $tmp/accept1.xml; echo accept-exit=\$?")
wait_job "$j" || fail "job $j did not end"
grep -qE "accept-exit=(0|1)$" "$tmp/accept1.out" || fail "accept --level 1: $(tail -5 "$tmp/accept1.out")"
python3 - "$tmp/accept1/verdicts.json" "$tmp/accept1.xml" <<'PY' || fail "accept --level 1: verdicts.json and JUnit disagree"
import json, sys, xml.etree.ElementTree as ET
v = json.load(open(sys.argv[1]))
cases = ET.parse(sys.argv[2]).getroot().iter("testcase")
n = len(v["verdicts"])
assert n >= 20 and n == sum(1 for _ in cases), n
print(f"slurm: accept --level 1: {v['passed']} passed, {v['failed']} failed, {v['skipped']} skipped; JUnit whole")
PY

# 4. scancel mid-run: node 0 writes its summary (stopped), nothing is left running
sed -e 's/^iterations: .*/iterations: 100000/' two.yaml >long.yaml
j=$(sbatch --parsable -n2 -o "$tmp/long.out" --wrap "srun --mpi=pmix $g run long.yaml --backend sim --headless --out $tmp/long")
for i in $(seq 200); do [ -s "$tmp/long/events.jsonl" ] && [ "$(grep -c '"iteration"' "$tmp/long/events.jsonl")" -gt 20 ] && break; sleep 0.1; done
scancel "$j"
wait_job "$j" || fail "job $j did not end after scancel"
sleep 1
# this test's gauntlet processes only (the suite may run other tests beside it): those started in $tmp
left=""
for p in $(pgrep -f "$g" 2>/dev/null); do [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$tmp" ] && left="$left $p"; done
[ -z "$left" ] || fail "gauntlet processes left after scancel:$(for p in $left; do echo; tr '\0' ' ' <"/proc/$p/cmdline"; done)"
if [ -f "$tmp/long/summary.json" ]; then
  # the cause is scancel's SIGTERM (to every process of the step, the workers too): a stop by that signal, no
  # fault observed (until 2026-11-29 the workers died of it and were counted crashes: stop "fault")
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['stopped'] and s['stop'] == 'signal', s
assert all(r['faults']['observed'] == 0 for r in s['runs']), s" "$tmp/long/summary.json" ||
    fail "the cancelled run's summary does not say it was stopped by scancel's signal, with no fault observed"
  echo "slurm: scancel: node 0 wrote its summary ($(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stopped'])" "$tmp/long/summary.json"))"
else
  "$g" summarize "$tmp/long" >/dev/null || fail "no summary after scancel, and summarize could not rebuild it"
  echo "slurm: scancel: no summary written; summarize rebuilt it from the record"
fi
echo "slurm: ok (sbatch + srun --mpi=pmix: 2 tasks joined; srun without PMI: exit 3; accept --level 0 and 1 with JUnit; scancel)"
