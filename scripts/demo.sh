#!/usr/bin/env bash
# The project's main job, end to end. For now: build the toolchain, prove a
# sample kernel (RMSNorm) race-free and in bounds with tile-opt, and print its
# launch contract; it is in the safe subset (no unchecked regions).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tile_setup
sample="$TILE_ROOT/examples/rmsnorm.mlir"
tile_log "tile-opt --tile-verify-ownership $sample"
"$TILE_BUILD/bin/tile-opt" "$sample" --mlir-print-op-on-diagnostic=false \
  '--tile-verify-ownership=report=true print-contract=true' \
  --tile-report-unchecked=forbid=true --canonicalize
