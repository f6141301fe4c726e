// RUN: tile-opt %s --tile-plan-fragments="wgmma-dots=1" --tile-plan-async-operands --convert-tile-to-gpu | FileCheck %s

// One loop with two fragment dots, their paths pinned: S = Q K^T on wgmma
// with K copied ahead (its buffer at the start of the scratch space, 8192
// bytes: the arena's floor while the loop runs), O += S V on mma.sync with
// V staged through shared memory for ldmatrix. V's buffer starts past the
// floor, and the ldmatrix view must start there too: at offset 0 it read
// K's copies instead of V.
// CHECK-LABEL: gpu.func @mixed_step
// CHECK: nvgpu.device_async_copy
// CHECK: scf.for
// CHECK: memref.view %{{.*}}[%c8192][] : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>> to memref<4608xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[MATRIX:.*]] = memref.view %{{.*}}[%c8192][] : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>> to memref<64x72xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %[[MATRIX]]
module {
  tile.kernel @mixed_step(%arg0: !tile.view<in, 64x64xf16>, %arg1: !tile.view<in, ?x64xf16>, %arg2: !tile.view<in, ?x64xf16>, %arg3: !tile.view<out, 64x64xf16>) attributes {tile.ownership_verified, tile.unchecked_regions = 0 : i64} {
    %0 = tile.partition %arg3 : !tile.partition<out, 64x64xf16, tile = [64, 64]>
    %c1 = arith.constant 1 : index
    tile.grid %c1
    %1 = tile.dim %arg1, 0 : !tile.view<in, ?x64xf16>
    %c64 = arith.constant 64 : index
    %2 = arith.remui %1, %c64 : index
    %c0 = arith.constant 0 : index
    %3 = arith.cmpi eq, %2, %c0 : index
    tile.assume %3, "whole key blocks"
    %4 = tile.dim %arg2, 0 : !tile.view<in, ?x64xf16>
    %5 = tile.dim %arg1, 0 : !tile.view<in, ?x64xf16>
    %6 = arith.cmpi eq, %4, %5 : index
    tile.assume %6, "one value per key"
    %7 = tile.partition %arg0 : !tile.partition<in, 64x64xf16, tile = [64, 64]>
    %c0_0 = arith.constant 0 : index
    %c0_1 = arith.constant 0 : index
    %8 = tile.load %7[%c0_0, %c0_1] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}], tile.in_bounds} : !tile.partition<in, 64x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %9 = tile.partition %arg1 : !tile.partition<in, ?x64xf16, tile = [64, 64]>
    %10 = tile.partition %arg2 : !tile.partition<in, ?x64xf16, tile = [64, 64]>
    %cst = arith.constant 0.000000e+00 : f32
    %11 = tile.splat %cst {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x64xf32>
    %c0_2 = arith.constant 0 : index
    %12 = tile.dim %arg1, 0 : !tile.view<in, ?x64xf16>
    %c64_3 = arith.constant 64 : index
    %c1_4 = arith.constant 1 : index
    %13 = arith.addi %12, %c64_3 : index
    %14 = arith.subi %13, %c1_4 : index
    %15 = arith.divsi %14, %c64_3 : index
    %c1_5 = arith.constant 1 : index
    %16 = scf.for %arg4 = %c0_2 to %15 step %c1_5 iter_args(%arg5 = %11) -> (tensor<64x64xf32>) {
      %c0_8 = arith.constant 0 : index
      %19 = tile.load %9[%arg4, %c0_8] {tile.copy_ahead, tile.in_bounds} : !tile.partition<in, ?x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
      %c0_9 = arith.constant 0 : index
      %20 = tile.load %10[%arg4, %c0_9] {tile.in_bounds} : !tile.partition<in, ?x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
      %21 = tile.permute %19 [1, 0] {tile.folded_permute} : tensor<64x64xf16> -> tensor<64x64xf16>
      %cst_10 = arith.constant 0.000000e+00 : f32
      %22 = tile.splat %cst_10 {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x64xf32>
      %23 = tile.dot %8, %21, %22 {tile.fragment_dot = "wgmma", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      %24 = tile.convert %23 {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x64xf32> -> tensor<64x64xf16>
      %25 = tile.dot %24, %20, %arg5 {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
      scf.yield %25 : tensor<64x64xf32>
    } {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}], tile.iter_arg_fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]}
    %c0_6 = arith.constant 0 : index
    %c0_7 = arith.constant 0 : index
    %17 = tile.own %0[%c0_6, %c0_7] : !tile.partition<out, 64x64xf16, tile = [64, 64]>
    %18 = tile.convert %16 {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x64xf32> -> tensor<64x64xf16>
    tile.store %18, %17 : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
    tile.return
  }
}

