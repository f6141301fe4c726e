// RUN: tile-opt %s --tile-verify-ownership --tile-plan-fragments --convert-tile-to-gpu | FileCheck %s

// An scf.if result the plan puts in a fragment layout (it is added to the
// dot's accumulator): the branch yields flat registers, and the move into
// the accumulator layout is built after the branch, not inside it.
// CHECK-LABEL: gpu.func @if_fragments
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (vector<32xf32>) {
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : vector<32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: arith.constant
// CHECK: gpu.barrier
// CHECK: %[[R]]
// CHECK: arith.addf {{.*}} : vector<32xf32>
tile.kernel @if_fragments(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %z : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %cond = arith.cmpi ugt, %n, %c0 : index
  %r = scf.if %cond -> tensor<64x64xf32> {
    %one = arith.constant dense<1.0> : tensor<64x64xf32>
    scf.yield %one : tensor<64x64xf32>
  } else {
    scf.yield %z : tensor<64x64xf32>
  }
  %s = arith.addf %r, %d : tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %s, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}
