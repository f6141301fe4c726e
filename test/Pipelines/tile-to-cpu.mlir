// tile-to-cpu takes every kernel of the accepted ownership corpus to LLVM
// dialect, each with its per-program function and its grid entry point.
// RUN: tile-opt %S/../Dialect/Tile/Transforms/ownership-accept.mlir --tile-verify-ownership=report=true --tile-to-cpu -verify-diagnostics | FileCheck %S/../Dialect/Tile/Transforms/ownership-accept.mlir --check-prefix=CPU
// RUN: tile-opt %s --tile-to-cpu | FileCheck %s

// The stages leave nothing but LLVM dialect behind.
// CHECK-NOT: tile.
// CHECK-NOT: tensor.
// CHECK-NOT: memref.
// CHECK-NOT: scf.
// CHECK-LABEL: llvm.func @copy(
// CHECK: llvm.func @copy_grid(
// CHECK: llvm.func @_mlir_ciface_copy_grid(
tile.kernel @copy(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) {
  %pid = tile.program_id x
  %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [16]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [16]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [16]>
  tile.grid %n
  %t = tile.load %px[%pid] : !tile.partition<in, ?xf32, tile = [16]> -> tensor<16xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [16]>
  tile.store %t, %b : tensor<16xf32>, !tile.owned<out, 16xf32>
  tile.return
}
