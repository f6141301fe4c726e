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
g++ -O2 -std=c++17 -I"$root/runtime/include" -I/usr/local/cuda/include \
  "$here/kernel_bench.cpp" -o "$out/kernel_bench" -L/usr/local/cuda/lib64/stubs -lcuda
"$out/kernel_bench" "$here/out/kernels.cubin" | tee "$out/results.md"
