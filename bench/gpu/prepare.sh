#!/usr/bin/env bash
# Here (with the compiler built): compiles bench/gpu/kernels.mlir to the CUBIN
# and PTX that run.sh uses on the GPU machine (carry bench/gpu/out).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tool="$here/../../build/bin/tile-translate"
mkdir -p "$here/out"
"$tool" "$here/kernels.mlir" --emit=cubin --target="${TARGET:-sm_90a}" -o "$here/out/kernels.cubin"
"$tool" "$here/kernels.mlir" --emit=ptx --target="${TARGET:-sm_90a}" -o "$here/out/kernels.ptx"
ls -la "$here/out"
