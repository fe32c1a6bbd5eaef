#!/usr/bin/env bash
# tests/test-install.sh BUILD_DIR: `cmake --install` into a fresh prefix; the installed binary, run from another
# folder, finds the installed scenarios (`gauntlet list` names the folder and lists acceptance/), checks one, runs
# a short shipped scenario on sim, and `accept --help` offers --scenarios; `cpack -G DEB` makes a .deb that holds
# the binary, the scenarios and the docs where they belong (skipped, saying why, without dpkg-deb),
# depending on the Debian package of every library the binary links.
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
# every library the binary links that a Debian package holds is that package's, and the .deb depends on it (or on a
# package that depends on it: libncursesw6 brings libtinfo6); a library no package holds (a cuda build's CUDA runtime
# and NCCL, the node's own installs) is said
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/ //g')
[ -n "$deps" ] || fail "the .deb declares no dependencies"
brought=$(for d in $deps; do dpkg-query -W -f='${Depends},${Pre-Depends}\n' "$d" 2>/dev/null || true; done |
          tr ',|' '\n\n' | sed 's/(.*//; s/:any//; s/ //g')
ldd "$g" >ldd.txt || fail "ldd $g failed"
needed=$(readelf -d "$g" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf names no library $g links"
if grep -q '^libasan\.so' <<<"$needed"; then   # a sanitized build is no package (it links what the plain one drops)
  echo "test-install: a sanitized build: its libraries are not held to the .deb's dependencies (the plain build's are)"
  : >ldd.txt
fi
while read -r so _ path _; do   # the libraries it names itself (ldd lists theirs too)
  case "$path" in /*) ;; *) continue ;; esac
  grep -qxF "$so" <<<"$needed" || continue
  real=$(readlink -f "$path")
  owner=""
  for p in "$real" "/usr$real" "${real#/usr}" "$path"; do   # merged /usr: dpkg knows one of the spellings
    owner=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$owner" ] && break
  done
  if [ -z "$owner" ]; then
    echo "test-install: $so ($real) is no Debian package's: the node's own install"
    continue
  fi
  grep -qxF "$owner" <<<"$deps$(printf '\n%s' $brought)" ||
    fail "the binary links $so of $owner, which the .deb does not depend on: Depends: $(dpkg-deb -f "$deb" Depends)"
done <ldd.txt
echo "test-install: ok ($(basename "$deb"): $(dpkg-deb -f "$deb" Depends))"
