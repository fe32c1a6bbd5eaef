#!/usr/bin/env bash
# tests/test-install.sh BUILD_DIR: `cmake --install` into a fresh prefix; the installed binary, run from another
# folder, finds the installed scenarios (`gauntlet list` names the folder and lists acceptance/), checks one, runs
# a short shipped scenario on sim, and `accept --help` offers --scenarios; `cpack -G DEB` makes a .deb that holds
# the binary, the scenarios and the docs where they belong (skipped, saying why, without dpkg-deb). Exit 77: skip.
set -euo pipefail
build=$(cd "${1:?usage: tests/test-install.sh BUILD_DIR}" && pwd)
tmp=$(mktemp -d /tmp/gauntlet-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test-install: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || fail "cmake --install failed: $(tail -3 "$tmp/install.log")"
g="$tmp/prefix/bin/gauntlet"
share="$tmp/prefix/share/gauntlet/scenarios"
[ -x "$g" ] || fail "no bin/gauntlet under the prefix"
[ -f "$tmp/prefix/share/doc/gauntlet/README.md" ] && [ -f "$tmp/prefix/share/doc/gauntlet/scenarios.md" ] ||
  fail "the docs are not under share/doc/gauntlet"
mkdir "$tmp/elsewhere" && cd "$tmp/elsewhere"   # not the source tree: nothing to find by accident
"$g" list >list.txt || fail "gauntlet list failed"
grep -qF "scenarios ($share):" list.txt || fail "list does not name the installed scenarios: $(grep '^scenarios' list.txt)"
grep -q "^  acceptance/L1-swing " list.txt || fail "list does not show the acceptance scenarios"
"$g" check "$share/acceptance/L1-swing.yaml" >/dev/null || fail "an installed acceptance scenario does not check"
"$g" accept --help | grep -q -- "--scenarios DIR" || fail "accept --help does not offer --scenarios"
sed -e 's/^iterations: .*/iterations: 4/' "$share/demo.yaml" >demo.yaml
"$g" run demo.yaml --backend sim --headless --out run >run.log 2>&1 || fail "the installed binary cannot run the demo: $(tail -3 run.log)"
[ -f run/summary.json ] || fail "no summary.json"
if ! command -v dpkg-deb >/dev/null; then
  echo "test-install: install checked; the .deb skipped: no dpkg-deb here"
  exit 0
fi
(cd "$build" && cpack -G DEB -B "$tmp/pkg") >"$tmp/cpack.log" 2>&1 || fail "cpack -G DEB failed: $(tail -5 "$tmp/cpack.log")"
deb=$(ls "$tmp"/pkg/gauntlet_*.deb)
dpkg-deb -c "$deb" >contents.txt
for f in ./usr/bin/gauntlet ./usr/share/gauntlet/scenarios/acceptance/L1-swing.yaml ./usr/share/gauntlet/scenarios/demo.yaml \
         ./usr/share/doc/gauntlet/README.md; do
  grep -q " $f\$" contents.txt || fail "the .deb lacks $f"
done
dpkg-deb -f "$deb" Depends | grep -q libyaml || fail "the .deb declares no dependency on libyaml: $(dpkg-deb -f "$deb" Depends)"
echo "test-install: ok ($(basename "$deb"): $(dpkg-deb -f "$deb" Depends))"
