#!/usr/bin/env bash
# On the GPU machine: builds kernel_bench against the CUDA driver API and runs
# it on the CUBIN compiled here (bench/gpu/out/kernels.cubin, made by
# bench/gpu/prepare.sh). Writes the result table to stdout and $OUT if set.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
out="${OUT:-$here/out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
for tool in kernel_bench gemv_ab; do
  g++ -O2 -std=c++17 -I"$root/runtime/include" -I/usr/local/cuda/include \
    "$here/$tool.cpp" -o "$out/$tool" -L/usr/local/cuda/lib64/stubs -lcuda
done
# Sanitizers on small problems with partial tiles, then the measurement.
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$out/kernel_bench" "$here/out/kernels.cubin" --small > "$out/sanitizer-$tool.txt" 2>&1 \
      && echo "compute-sanitizer $tool: clean" \
      || { echo "compute-sanitizer $tool: FAILED"; tail -30 "$out/sanitizer-$tool.txt"; }
  done
fi
"$out/kernel_bench" "$here/out/kernels.cubin" | tee "$out/results.md"
# The GEMV under each compiler configuration, interleaved (cd: short names).
if [ "${GEMV_AB:-1}" = 1 ]; then
  (cd "$here/out" && "$out/gemv_ab" kernels.cubin no-invariant-loads.cubin) \
    | tee "$out/gemv_ab.md"
fi
