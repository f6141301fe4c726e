// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=4 --canonicalize | FileCheck %s

// Column reductions (128 threads): each thread folds its own rows in
// registers, lanes holding the same columns combine with xor shuffles, and
// the warps' partials meet in shared memory (one barrier before the writes,
// one after).

// [48, 128] f32 over its rows: a row is 16 vectors of 8, so each thread
// holds 6 rows of the same 8 columns (rows tid / 16 + 8k) and lanes 16
// apart hold the same columns: one shuffle stage, then 4 warp partials.
// CHECK-LABEL: gpu.func @sum_rows
// CHECK-NOT: scf.for
// CHECK-COUNT-40: arith.addf %{{.*}} : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NOT: gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK: gpu.barrier
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK-NOT: scf.for
// CHECK: gpu.return
tile.kernel @sum_rows(%x: !tile.view<in, ?x128xf32>, %y: !tile.view<out, ?x128xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x128xf32, tile = [48, 128]>
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x128xf32, tile = [48, 128]> -> tensor<48x128xf32>
  %s = tile.reduce %t dim = 0 : (tensor<48x128xf32>) -> tensor<1x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %o = tile.own %py[%pid, %c0] : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  tile.store %s, %o : tensor<1x128xf32>, !tile.owned<out, 1x128xf32>
  tile.return
}

// A column of 48 (one element on each of threads 0-47, not a power of two
// of lanes for the shuffle lowering): five shuffle stages that skip lanes
// past the tile (a select on each lane's flag), then the two warps that
// hold rows meet in shared memory, and the maximum is in every thread.
// CHECK-LABEL: gpu.func @max_column
// CHECK-NOT: scf.for
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: arith.maximumf
// CHECK: arith.select
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK: memref.load
// CHECK: arith.maximumf
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @max_column(%x: !tile.view<in, ?x1xf32>, %y: !tile.view<out, ?xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x1xf32, tile = [48, 1]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [1]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [1]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x1xf32, tile = [48, 1]> -> tensor<48x1xf32>
  %m = tile.reduce %t dim = 0 : (tensor<48x1xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %b : f32
    tile.yield %r : f32
  }
  %m1 = tile.reshape %m : tensor<1x1xf32> -> tensor<1xf32>
  %o = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [1]>
  tile.store %m1, %o : tensor<1xf32>, !tile.owned<out, 1xf32>
  tile.return
}
