#!/usr/bin/env bash
# Here (with the compiler built): compiles bench/gpu/kernels.mlir to the CUBIN
# and PTX that run.sh uses on the GPU machine (carry bench/gpu/out), plus the
# CUBIN of the compiler configuration gemv_ab compares.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tool="$here/../../build/bin/tile-translate"
target="${TARGET:-sm_90a}"
mkdir -p "$here/out"
"$tool" "$here/kernels.mlir" --emit=cubin --target="$target" -o "$here/out/kernels.cubin"
"$tool" "$here/kernels.mlir" --emit=ptx --target="$target" -o "$here/out/kernels.ptx"
# The invariant-load marking switched off, for gemv_ab.
"$tool" "$here/kernels.mlir" --emit=cubin --target="$target" \
  --pipeline-options='invariant-loads=0' -o "$here/out/no-invariant-loads.cubin"
ls -la "$here/out"
