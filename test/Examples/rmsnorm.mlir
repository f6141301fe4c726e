// The sample kernel scripts/demo.sh compiles: it verifies and is in the safe
// subset.
// RUN: tile-opt %tile_src_root/examples/rmsnorm.mlir --tile-verify-ownership --canonicalize --tile-report-unchecked=forbid=true | FileCheck %s

// CHECK: tile.kernel @rmsnorm_f16
// CHECK-SAME: tile.ownership_verified
// CHECK-SAME: tile.unchecked_regions = 0
// CHECK: tile.reduce
// CHECK: math.rsqrt
// CHECK: tile.own
// CHECK: tile.store
