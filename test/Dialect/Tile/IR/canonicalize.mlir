// Folders: static dims and tile counts become constants.
// RUN: tile-opt %s --allow-unregistered-dialect --canonicalize | FileCheck %s

// CHECK-LABEL: tile.kernel @fold_static
// CHECK-DAG: %[[C100:.*]] = arith.constant 100 : index
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : index
// The dynamic dim and its tile count stay.
// CHECK: %[[D1:.*]] = tile.dim %{{.*}}, 1
// CHECK: %[[T1:.*]] = tile.num_tiles %{{.*}}, 1
// CHECK: "test.use"(%[[C100]], %[[D1]], %[[C7]], %[[T1]])
tile.kernel @fold_static(%x: !tile.view<in, 100x?xf16, strides = [?, 1]>) {
  %d0 = tile.dim %x, 0 : !tile.view<in, 100x?xf16, strides = [?, 1]>
  %d1 = tile.dim %x, 1 : !tile.view<in, 100x?xf16, strides = [?, 1]>
  %p = tile.partition %x : !tile.partition<in, 100x?xf16, strides = [?, 1], tile = [16, 64]>
  // ceildiv(100, 16) = 7
  %t0 = tile.num_tiles %p, 0 : !tile.partition<in, 100x?xf16, strides = [?, 1], tile = [16, 64]>
  %t1 = tile.num_tiles %p, 1 : !tile.partition<in, 100x?xf16, strides = [?, 1], tile = [16, 64]>
  "test.use"(%d0, %d1, %t0, %t1) : (index, index, index, index) -> ()
  tile.return
}
