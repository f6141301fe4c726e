// RUN: tile-opt %s --split-input-file --tile-verify-ownership --convert-tile-to-scf | FileCheck %s
// RUN: not tile-opt %s --split-input-file --convert-tile-to-scf 2>&1 | FileCheck %s --check-prefix=UNVERIFIED

// A kernel becomes a per-program function (views as strided memrefs, then
// scalars, program ids and grid extents) and a grid entry point.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[X:arg[0-9]+]]: memref<?x64xf32, strided<[64, 1], offset: ?>>,
// CHECK-SAME: %[[Y:arg[0-9]+]]: memref<?x64xf32, strided<[64, 1], offset: ?>>,
// CHECK-SAME: %{{arg[0-9]+}}: f32, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index,
// CHECK-SAME: %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index, %{{arg[0-9]+}}: index)
// A load is a generate that reads in-bounds elements, padding elsewhere.
// CHECK: tensor.generate
// CHECK:   scf.if
// CHECK:     memref.load %[[X]]
// CHECK:   else
// CHECK:     scf.yield %cst
// A claim is a subview clipped to the view; a store writes in-bounds
// elements only.
// CHECK: %[[BLK:[a-z_0-9]+]] = memref.subview %[[Y]]
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     scf.if
// CHECK:       tensor.extract
// CHECK:       memref.store %{{.*}}, %[[BLK]]
// CHECK: return
// CHECK-LABEL: func.func @rows_grid(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK: scf.for %[[Z:arg[0-9]+]] =
// CHECK:   scf.for %[[YI:arg[0-9]+]] =
// CHECK:     scf.for %[[XI:arg[0-9]+]] =
// CHECK:       func.call @rows({{.*}}, %[[XI]], %[[YI]], %[[Z]],
tile.kernel @rows(%x: !tile.view<in, ?x64xf32>, %y: !tile.view<out, ?x64xf32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [2, 64]>
  %py = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [2, 64]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x64xf32, tile = [2, 64]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x64xf32, tile = [2, 64]> -> tensor<2x64xf32>
  %v = tile.splat %s : tensor<2x64xf32>
  %m = arith.mulf %t, %v : tensor<2x64xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [2, 64]>
  tile.store %m, %b : tensor<2x64xf32>, !tile.owned<out, 2x64xf32>
  tile.return
}

// -----

// The lowering trusts the proof, so it refuses kernels that have not had it.
// UNVERIFIED: kernel @unproven has not been verified; run tile-verify-ownership first
tile.kernel @unproven(%s: f32) {
  tile.return
}
