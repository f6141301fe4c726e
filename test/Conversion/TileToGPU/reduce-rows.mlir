// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu="num-warps=4 rows-in-registers=1" --canonicalize | FileCheck %s
// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=4 --canonicalize | FileCheck %s --check-prefix=OFF

// Row reductions broadcast back (128 threads): an RMSNorm of 16 rows of
// 128 f32. A row is 16 vectors of 8 on 16 lanes of one warp (each thread
// holds rows tid / 16 and tid / 16 + 8, one per slot); after the xor
// shuffles every one of those lanes has the row's sum, so with
// rows-in-registers the rsqrt runs per slot and the broadcast back is a
// splat: no shared memory. Without it the sums go to the [16, 1] layout
// through shared memory and come back for the broadcast.

// CHECK-LABEL: gpu.func @rms_rows
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-2: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NOT: gpu.barrier
// CHECK: math.rsqrt %{{.*}} : vector<2xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// OFF-LABEL: gpu.func @rms_rows
// OFF: gpu.shuffle xor
// OFF: gpu.barrier
// OFF: math.rsqrt %{{.*}} : vector<1xf32>
// OFF: gpu.barrier
tile.kernel @rms_rows(%x: !tile.view<in, ?x128xf32>, %y: !tile.view<out, ?x128xf32>, %eps: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x128xf32, tile = [16, 128]>
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x128xf32, tile = [16, 128]> -> tensor<16x128xf32>
  %sq = arith.mulf %t, %t : tensor<16x128xf32>
  %s = tile.reduce %sq dim = 1 : (tensor<16x128xf32>) -> tensor<16x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %n128 = arith.constant dense<1.280000e+02> : tensor<16x1xf32>
  %mean = arith.divf %s, %n128 : tensor<16x1xf32>
  %e = tile.splat %eps : tensor<16x1xf32>
  %v = arith.addf %mean, %e : tensor<16x1xf32>
  %rs = math.rsqrt %v : tensor<16x1xf32>
  %b = tile.broadcast %rs : tensor<16x1xf32> -> tensor<16x128xf32>
  %out = arith.mulf %t, %b : tensor<16x128xf32>
  %o = tile.own %py[%pid, %c0] : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  tile.store %out, %o : tensor<16x128xf32>, !tile.owned<out, 16x128xf32>
  tile.return
}

// The row sums stored as they are: the [16, 1] layout is what the store
// wants, so the reduction takes the shared-memory path even with the
// option.
// CHECK-LABEL: gpu.func @row_sums_stored
// CHECK: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: gpu.return
tile.kernel @row_sums_stored(%x: !tile.view<in, ?x128xf32>, %y: !tile.view<out, ?x1xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x128xf32, tile = [16, 128]>
  %py = tile.partition %y : !tile.partition<out, ?x1xf32, tile = [16, 1]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x1xf32, tile = [16, 1]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x128xf32, tile = [16, 128]> -> tensor<16x128xf32>
  %s = tile.reduce %t dim = 1 : (tensor<16x128xf32>) -> tensor<16x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %o = tile.own %py[%pid, %c0] : !tile.partition<out, ?x1xf32, tile = [16, 1]>
  tile.store %s, %o : tensor<16x1xf32>, !tile.owned<out, 16x1xf32>
  tile.return
}
