#!/usr/bin/env bash
# The project's main job, end to end. For now: build the toolchain and
# verify a sample kernel (RMSNorm) with tile-opt, reporting its unchecked
# regions (none: it is in the safe subset).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tile_setup
sample="$TILE_ROOT/examples/rmsnorm.mlir"
tile_log "tile-opt --tile-report-unchecked=remarks=true $sample"
"$TILE_BUILD/bin/tile-opt" --canonicalize \
  --tile-report-unchecked=remarks=true "$sample"
