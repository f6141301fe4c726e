#!/usr/bin/env bash
# On a machine with a GPU and the CUDA toolkit but not the LLVM packages:
# builds the runtime and its GPU tests (-DTILE_ENABLE_COMPILER=OFF), runs
# the GPU-labelled tests (ctest -L gpu), compute-sanitizer memcheck and
# racecheck over them, and the launch benchmark.
#
# The kernels are compiled elsewhere (by scripts/test.sh's build, with
# tilec) and carried in: build/runtime/test/kernels.{json,cubin,so}, or the
# manifest named by TILE_RUNTIME_TEST_KERNELS. Without cmake/GoogleTest on
# this machine, the test binaries built elsewhere (build/runtime/) are used.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export TILE_RUNTIME_TEST_KERNELS="${TILE_RUNTIME_TEST_KERNELS:-$root/build/runtime/test/kernels.json}"
log() { echo "== gpu-test: $*"; }
if [ ! -f "$TILE_RUNTIME_TEST_KERNELS" ]; then
  echo "gpu-test: no compiled test kernels at $TILE_RUNTIME_TEST_KERNELS;" \
       "build with scripts/test.sh where the compiler is and carry build/runtime/test" >&2
  exit 1
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true

bin=""
build="$root/build-gpu"
if command -v cmake >/dev/null && cmake -S "$root" -B "$build" \
     -DTILE_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release >"$build.log" 2>&1; then
  log "building the runtime (no compiler)"
  cmake --build "$build" -j "$(nproc)" --target TileRuntimeGpuTests tile-launch-bench
  bin="$build/runtime"
  log "ctest -L gpu"
  (cd "$build" && ctest -L gpu --output-on-failure)
else
  log "no cmake build here ($(tail -1 "$build.log" 2>/dev/null || echo 'no cmake')); using the binaries carried in build/runtime"
  bin="$root/build/runtime"
  "$bin/TileRuntimeGpuTests"
fi

if command -v compute-sanitizer >/dev/null; then
  # Without the test whose cooperative launch CUDA refuses on purpose:
  # memcheck reports that refused launch as an error.
  for tool in memcheck racecheck; do
    log "compute-sanitizer --tool $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$bin/TileRuntimeGpuTests" --gtest_filter=-DeviceTest.GridBarriersNeedEveryProgramResident \
      > "${OUT:-/tmp}/sanitizer-$tool.txt" 2>&1 \
      || { tail -40 "${OUT:-/tmp}/sanitizer-$tool.txt"; echo "gpu-test: $tool FAILED"; exit 3; }
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED" "${OUT:-/tmp}/sanitizer-$tool.txt" | tail -2
  done
else
  echo "gpu-test: compute-sanitizer not found" >&2
  exit 1
fi

log "launch benchmark"
"$bin/tile-launch-bench" "$TILE_RUNTIME_TEST_KERNELS" cuda
"$bin/tile-launch-bench" "$TILE_RUNTIME_TEST_KERNELS" cpu | grep contract || true
log "all GPU tests passed"
