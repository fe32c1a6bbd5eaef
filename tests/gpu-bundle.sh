#!/usr/bin/env bash
# tests/gpu-bundle.sh [OUTDIR] — builds the cuda backend here, where the packages are, and gathers what a GPU machine
# needs to run tests/gpu-check.sh without building: OUTDIR (default build-bundle, in the repository's root, which
# git ignores as it does every build*/) is laid out as a build folder — OUTDIR/gauntlet, the GPU test executables
# OUTDIR/tests/test_cuda_* and OUTDIR/tests/test_gpu_scenarios — with OUTDIR/lib holding every shared library they
# link (as ldd finds them here) that a GPU machine's image may lack: libyaml, FFTW, ncurses, Open MPI, Criterion and
# its own libraries (libgit2, mbedtls, nanomsg, ...), PAPI and libmicrohttpd where this build links them. Left out:
# the C library and the compiler's runtime (the image's are as new or newer), and CUDA's own libraries but its small
# runtime (the driver, NCCL, cuBLASLt: the image's; gpu-check.sh finds NCCL in PyTorch's packages where the loader
# does not). For an image with CUDA, NCCL, PyTorch and libjansson, but no libyaml, FFTW or Criterion and no package
# registry to fetch them from.
#
# The one command, in two steps (docs/performance.md, "The GPU check"):
#   tests/gpu-bundle.sh                                   # here: the cuda build (build-gpu), then build-bundle/
#   BUILD=build-bundle tests/gpu-check.sh OUT             # on the GPU machine, in the repository's root
# The second runs where the working tree is copied with build-bundle/ carried beside it (git ignores build*/, so
# name it to whatever copies the tree): one call of at most 8 minutes. gpu-check.sh puts OUTDIR/lib on
# LD_LIBRARY_PATH for gauntlet and the tests itself (not for PyTorch), so none needs setting by hand; the bundle is
# about 20 MiB.
#
# Environment: BUILD (default build-gpu) the cuda build it makes or brings up to date (cmake --build); CMAKE_PREFIX_PATH
# / NCCL_ROOT as for any build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-bundle}
build=${BUILD:-build-gpu}
log=$(mktemp /tmp/gauntlet-bundle-XXXXXX.log)
trap 'rm -f "$log"' EXIT   # kept only where a message below names it
echo "gpu-bundle: the cuda build in $build (log $log)"
if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGAUNTLET_WERROR=ON >"$log" 2>&1 &&
       cmake --build "$build" -j"$(nproc)" >>"$log" 2>&1; }; then
  trap - EXIT; tail -30 "$log"; echo "gpu-bundle: the build failed: see $log"; exit 3
fi
grep -q "building the cuda backend" "$log" ||
  { trap - EXIT; echo "gpu-bundle: the cuda backend was not built (nvcc, NCCL?): see $log"; exit 3; }
rm -rf "$out"
mkdir -p "$out/tests" "$out/lib"
cp "$build/gauntlet" "$out/"
cp "$build"/tests/test_cuda_* "$build/tests/test_gpu_scenarios" "$out/tests/"
# Every library ldd resolves for them, less glibc's, the compiler runtime's and CUDA's own (libcudart excepted).
skip='^(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux.*|libgcc_s|libstdc\+\+|libcuda|libnccl|libcublas.*|libnvidia-.*|libnvrtc.*)\.so'
for exe in "$out/gauntlet" "$out"/tests/*; do
  ldd "$exe"
done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u | while read -r name path; do
  [[ $name =~ $skip ]] || cp -L "$path" "$out/lib/$name"
done
missing=$(for exe in "$out/gauntlet" "$out"/tests/*; do ldd "$exe"; done | grep "not found" | sort -u || true)
[ -z "$missing" ] || { echo "gpu-bundle: not found here either:"; echo "$missing"; exit 3; }
echo "gpu-bundle: $out: $(du -sh "$out" | cut -f1) ($(ls "$out/lib" | wc -l) libraries: $(ls "$out/lib" | tr '\n' ' '))"
echo "gpu-bundle: on the GPU machine, in the repository's root: BUILD=$out tests/gpu-check.sh OUTDIR"
