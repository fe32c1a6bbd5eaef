#!/usr/bin/env bash
# tests/asan-cluster.sh: the multi-node fault paths under AddressSanitizer and UndefinedBehaviorSanitizer (CI runs it
# after the suite): tests/sanitize-all.sh --cluster.
exec "$(dirname "$0")/sanitize-all.sh" --cluster
