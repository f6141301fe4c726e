// RUN: tile-opt %s --tile-verify-ownership --tile-plan-fragments --convert-tile-to-gpu --canonicalize | FileCheck %s

// One flash-attention step per K/V block (from a .tile kernel): S = Q K^T,
// the online softmax, O = P V + O * alpha. With fragment layouts, the
// accumulator (64 x 64 f32: 32 registers per thread), the running max and
// sum (Rows: 2 registers, the thread's two rows) are loop-carried in
// registers; Q moves into its A-operand layout once, before the loop.
// CHECK-LABEL: gpu.func @attention_step
// CHECK: vector.from_elements {{.*}} : vector<32xbf16>
// CHECK: scf.for {{.*}} -> (vector<32xf32>, vector<2xf32>, vector<2xf32>)
//
// K staged as loaded (rows padded to 72): the permute folds into ldmatrix
// without transpose; bf16 operands are i32 pairs.
// CHECK: gpu.barrier
// CHECK: vector.store {{.*}} : memref<2304xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: gpu.barrier
// CHECK-NOT: memref.store
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x72xf16
// CHECK: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}} : (i32, i32, f32)
//
// Row max and row sum: two shuffles within the quad each, no shared memory.
// CHECK-NOT: memref.store
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK-NOT: memref.store
// CHECK: math.exp {{.*}} : vector<16xf32>
// CHECK-NOT: memref.store
// CHECK-COUNT-4: gpu.shuffle  xor
//
// P V: P is the A operand as computed (converted to bf16 in registers), V
// is staged and read transposed.
// CHECK-NOT: memref.store
// CHECK: gpu.barrier
// CHECK: vector.store {{.*}} : memref<2304xbf16
// CHECK: gpu.barrier
// CHECK-NOT: memref.store
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-NOT: memref.store
// CHECK: scf.yield {{.*}} : vector<32xf32>, vector<2xf32>, vector<2xf32>
//
// After the loop the output moves to the flat layout for its store.
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}} : memref<4096xbf16, #gpu.address_space<workgroup>>
module {
  tile.kernel @attention_step(%arg0: !tile.view<in, 64x64xbf16>, %arg1: !tile.view<in, ?x64xbf16>, %arg2: !tile.view<in, ?x64xbf16>, %arg3: !tile.view<out, 64x64xbf16>) {
    %0 = tile.partition %arg3 : !tile.partition<out, 64x64xbf16, tile = [64, 64]>
    %c1 = arith.constant 1 : index
    tile.grid %c1
    %1 = tile.partition %arg0 : !tile.partition<in, 64x64xbf16, tile = [64, 64]>
    %c0 = arith.constant 0 : index
    %c0_0 = arith.constant 0 : index
    %2 = tile.load %1[%c0, %c0_0] : !tile.partition<in, 64x64xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %3 = tile.partition %arg1 : !tile.partition<in, ?x64xbf16, tile = [32, 64]>
    %4 = tile.partition %arg2 : !tile.partition<in, ?x64xbf16, tile = [32, 64]>
    %5 = tile.iota : tensor<32xi32>
    %6 = tile.reshape %5 : tensor<32xi32> -> tensor<1x32xi32>
    %cst = arith.constant 0xFF800000 : f32
    %7 = tile.splat %cst : tensor<64x1xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %8 = tile.splat %cst_1 : tensor<64x1xf32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %9 = tile.splat %cst_2 : tensor<64x64xf32>
    %c0_3 = arith.constant 0 : index
    %10 = tile.num_tiles %3, 0 : !tile.partition<in, ?x64xbf16, tile = [32, 64]>
    %c1_4 = arith.constant 1 : index
    %11:3 = scf.for %arg4 = %c0_3 to %10 step %c1_4 iter_args(%arg5 = %9, %arg6 = %8, %arg7 = %7) -> (tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>) {
      %c0_7 = arith.constant 0 : index
      %16 = tile.load %3[%arg4, %c0_7] : !tile.partition<in, ?x64xbf16, tile = [32, 64]> -> tensor<32x64xbf16>
      %17 = tile.permute %16 [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %cst_8 = arith.constant 0.000000e+00 : f32
      %18 = tile.splat %cst_8 : tensor<64x32xf32>
      %19 = tile.dot %2, %17, %18 : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
      %c32 = arith.constant 32 : index
      %20 = arith.muli %arg4, %c32 : index
      %21 = arith.index_cast %20 : index to i32
      %22 = tile.splat %21 : tensor<1x32xi32>
      %23 = arith.addi %6, %22 : tensor<1x32xi32>
      %24 = tile.dim %arg1, 0 : !tile.view<in, ?x64xbf16>
      %25 = arith.index_cast %24 : index to i32
      %26 = tile.splat %25 : tensor<1x32xi32>
      %27 = arith.cmpi sge, %23, %26 : tensor<1x32xi32>
      %cst_9 = arith.constant 0xFF800000 : f32
      %28 = tile.splat %cst_9 : tensor<64x32xf32>
      %29 = tile.broadcast %27 : tensor<1x32xi1> -> tensor<64x32xi1>
      %30 = arith.select %29, %28, %19 : tensor<64x32xi1>, tensor<64x32xf32>
      %31 = tile.reduce %30 dim = 1 : (tensor<64x32xf32>) -> tensor<64x1xf32> {
      ^bb0(%arg8: f32, %arg9: f32):
        %46 = arith.maximumf %arg8, %arg9 : f32
        tile.yield %46 : f32
      }
      %32 = arith.maximumf %arg7, %31 : tensor<64x1xf32>
      %33 = tile.broadcast %32 : tensor<64x1xf32> -> tensor<64x32xf32>
      %34 = arith.subf %30, %33 : tensor<64x32xf32>
      %35 = math.exp %34 : tensor<64x32xf32>
      %36 = arith.subf %arg7, %32 : tensor<64x1xf32>
      %37 = math.exp %36 : tensor<64x1xf32>
      %38 = arith.mulf %arg6, %37 : tensor<64x1xf32>
      %39 = tile.reduce %35 dim = 1 : (tensor<64x32xf32>) -> tensor<64x1xf32> {
      ^bb0(%arg8: f32, %arg9: f32):
        %46 = arith.addf %arg8, %arg9 : f32
        tile.yield %46 : f32
      }
      %40 = arith.addf %38, %39 : tensor<64x1xf32>
      %41 = tile.convert %35 : tensor<64x32xf32> -> tensor<64x32xbf16>
      %c0_10 = arith.constant 0 : index
      %42 = tile.load %4[%arg4, %c0_10] : !tile.partition<in, ?x64xbf16, tile = [32, 64]> -> tensor<32x64xbf16>
      %43 = tile.broadcast %37 : tensor<64x1xf32> -> tensor<64x64xf32>
      %44 = arith.mulf %arg5, %43 : tensor<64x64xf32>
      %45 = tile.dot %41, %42, %44 : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
      scf.yield %45, %40, %32 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
    }
    %c0_5 = arith.constant 0 : index
    %c0_6 = arith.constant 0 : index
    %12 = tile.own %0[%c0_5, %c0_6] : !tile.partition<out, 64x64xbf16, tile = [64, 64]>
    %13 = tile.broadcast %11#1 : tensor<64x1xf32> -> tensor<64x64xf32>
    %14 = arith.divf %11#0, %13 : tensor<64x64xf32>
    %15 = tile.convert %14 : tensor<64x64xf32> -> tensor<64x64xbf16>
    tile.store %15, %12 : tensor<64x64xbf16>, !tile.owned<out, 64x64xbf16>
    tile.return
  }
}
