#!/usr/bin/env bash
# tests/asan-cluster.sh: the multi-node fault paths under AddressSanitizer and UndefinedBehaviorSanitizer —
# several supervisors under mpirun, faults owned by the node of their rank, deaths on two nodes at once, a node
# crash, shrink across nodes, a stalled node. Builds build-asan/ (gauntlet and test_cluster only) and runs those
# tests one at a time; any sanitizer report, from a supervisor or a worker, fails it (reports land in a folder
# that must stay empty: a worker that dies of one would otherwise be just a recovered crash). CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpirun >/dev/null; then
  echo "asan-cluster: mpirun not found: skipped (apt-get install openmpi-bin libopenmpi-dev)"
  exit 0
fi
cmake -S . -B build-asan -DGAUNTLET_SANITIZE=ON -DGAUNTLET_WERROR=ON -DGAUNTLET_CUDA=OFF >/dev/null
cmake --build build-asan -j --target gauntlet test_cluster >/dev/null
reports=$(mktemp -d /tmp/gauntlet-asan.XXXXXX)
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0:log_path=$reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan"
status=0
build-asan/tests/test_cluster -j1 --filter \
  '*/@(a_random_rate*|two_deaths*|shrink_drops*|a_stalled_node_is_shrunk*|a_node_crash_is_recovered*)' || status=1
if [ -n "$(ls -A "$reports")" ]; then
  echo "asan-cluster: sanitizer reports:"
  cat "$reports"/* | head -200
  status=1
fi
rm -rf "$reports"
[ "$status" = 0 ] && echo "asan-cluster: no sanitizer report"
exit "$status"
