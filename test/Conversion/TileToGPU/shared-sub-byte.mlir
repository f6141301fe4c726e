// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=4 | FileCheck %s

// A mask broadcast from one row ([1, 64] i1, 8 positions of 8) to 16 rows
// goes through shared memory. A vector of i1 is bit-packed in memory while
// the broadcast's readers load one element (a byte) at a time, so the mask
// is written element by element: with vector stores, the GPU read element 0
// of each vector right and the rest wrong (a flat attention's masked keys).
// CHECK-LABEL: gpu.func @mask_rows
// CHECK-NOT: vector.store {{.*}}workgroup{{.*}}vector<8xi1>
// CHECK-COUNT-8: memref.store {{.*}} : memref<64xi1, #gpu.address_space<workgroup>>
// CHECK-NOT: vector.store {{.*}}workgroup{{.*}}vector<8xi1>
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<64xi1, #gpu.address_space<workgroup>>
// CHECK: gpu.return
tile.kernel @mask_rows(%arg0: !tile.view<in, 16x64xf32>, %arg1: !tile.view<out, 16x64xf32>, %arg2: i32) {
  %0 = tile.partition %arg1 : !tile.partition<out, 16x64xf32, tile = [16, 64]>
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %1 = tile.iota : tensor<64xi32>
  %2 = tile.reshape %1 : tensor<64xi32> -> tensor<1x64xi32>
  %c0 = arith.constant 0 : index
  %3 = tile.own %0[%c0, %c0] : !tile.partition<out, 16x64xf32, tile = [16, 64]>
  %4 = tile.splat %arg2 : tensor<1x64xi32>
  %5 = arith.cmpi sge, %2, %4 : tensor<1x64xi32>
  %6 = tile.partition %arg0 : !tile.partition<in, 16x64xf32, tile = [16, 64]>
  %7 = tile.load %6[%c0, %c0] : !tile.partition<in, 16x64xf32, tile = [16, 64]> -> tensor<16x64xf32>
  %cst = arith.constant 0xFF800000 : f32
  %8 = tile.splat %cst : tensor<16x64xf32>
  %9 = tile.broadcast %5 : tensor<1x64xi1> -> tensor<16x64xi1>
  %10 = arith.select %9, %8, %7 : tensor<16x64xi1>, tensor<16x64xf32>
  tile.store %10, %3 : tensor<16x64xf32>, !tile.owned<out, 16x64xf32>
  tile.return
}
