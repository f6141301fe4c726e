// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=4 --canonicalize | FileCheck %s

// Reductions and broadcasts that stay in registers (128 threads): a
// single-element result is kept in every thread that computed it, so the
// broadcasts, extracts and loop-carried values that need it in no more
// threads take it from their own registers, not through shared memory.

// A row of 128 f32 is 16 vectors on threads 0-15: shuffles within the 16,
// lane 0 gives the sum to its warp, and the broadcast back over the row
// (16 positions) is a splat.
// CHECK-LABEL: gpu.func @norm_row
// CHECK-NOT: workgroup(
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle idx %{{.*}}, %c0_i32, %c32_i32 : f32
// CHECK-NOT: gpu.barrier
// CHECK: math.rsqrt %{{.*}} : vector<1xf32>
// CHECK-NOT: gpu.barrier
// CHECK: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @norm_row(%x: !tile.view<in, ?x128xf32>, %y: !tile.view<out, ?x128xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x128xf32, tile = [1, 128]>
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x128xf32, tile = [1, 128]> -> tensor<1x128xf32>
  %sq = arith.mulf %t, %t : tensor<1x128xf32>
  %s = tile.reduce %sq dim = 1 : (tensor<1x128xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %r = math.rsqrt %s : tensor<1x1xf32>
  %rb = tile.broadcast %r : tensor<1x1xf32> -> tensor<1x128xf32>
  %o = arith.mulf %t, %rb : tensor<1x128xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  tile.store %o, %b : tensor<1x128xf32>, !tile.owned<out, 1x128xf32>
  tile.return
}

// A column [32, 1] (one element per thread of the first warp) reduced
// along its rows is a contiguous line: shuffles, not a loop over shared
// memory, and its max and sum come back over the column as splats.
// CHECK-LABEL: gpu.func @column_softmax
// CHECK-NOT: workgroup(
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: arith.maximumf
// CHECK-NOT: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: arith.addf
// CHECK-NOT: gpu.barrier
// CHECK: arith.divf
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @column_softmax(%x: !tile.view<in, ?x1xf32>, %y: !tile.view<out, ?x1xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x1xf32, tile = [32, 1]>
  %py = tile.partition %y : !tile.partition<out, ?x1xf32, tile = [32, 1]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x1xf32, tile = [32, 1]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x1xf32, tile = [32, 1]> -> tensor<32x1xf32>
  %m = tile.reduce %t dim = 0 : (tensor<32x1xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %b : f32
    tile.yield %r : f32
  }
  %mb = tile.broadcast %m : tensor<1x1xf32> -> tensor<32x1xf32>
  %d = arith.subf %t, %mb : tensor<32x1xf32>
  %e = math.exp %d : tensor<32x1xf32>
  %s = tile.reduce %e dim = 0 : (tensor<32x1xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %sb = tile.broadcast %s : tensor<1x1xf32> -> tensor<32x1xf32>
  %o = arith.divf %e, %sb : tensor<32x1xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x1xf32, tile = [32, 1]>
  tile.store %o, %b : tensor<32x1xf32>, !tile.owned<out, 32x1xf32>
  tile.return
}

// Rows of one vector (8 f32, Q = 1): thread t holds row t of the input and
// of the [64, 1] result, so the row max and sum are folds in each thread
// and their broadcasts back over the rows are splats: no shuffles either.
// CHECK-LABEL: gpu.func @row_softmax
// CHECK-NOT: workgroup(
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: arith.divf %{{.*}} : vector<8xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @row_softmax(%x: !tile.view<in, ?x8xf32>, %y: !tile.view<out, ?x8xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x8xf32, tile = [64, 8]>
  %py = tile.partition %y : !tile.partition<out, ?x8xf32, tile = [64, 8]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x8xf32, tile = [64, 8]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x8xf32, tile = [64, 8]> -> tensor<64x8xf32>
  %m = tile.reduce %t dim = 1 : (tensor<64x8xf32>) -> tensor<64x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %b : f32
    tile.yield %r : f32
  }
  %mb = tile.broadcast %m : tensor<64x1xf32> -> tensor<64x8xf32>
  %d = arith.subf %t, %mb : tensor<64x8xf32>
  %e = math.exp %d : tensor<64x8xf32>
  %s = tile.reduce %e dim = 1 : (tensor<64x8xf32>) -> tensor<64x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %sb = tile.broadcast %s : tensor<64x1xf32> -> tensor<64x8xf32>
  %o = arith.divf %e, %sb : tensor<64x8xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x8xf32, tile = [64, 8]>
  tile.store %o, %b : tensor<64x8xf32>, !tile.owned<out, 64x8xf32>
  tile.return
}

// A single element loaded from device memory (a position) is loaded by
// every thread, so its extract is a uniform scalar without shared memory.
// CHECK-LABEL: gpu.func @position
// CHECK-NOT: workgroup(
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @position(%pos: !tile.view<in, 1xi32>, %x: !tile.view<in, ?x64xf32>, %y: !tile.view<out, 1x64xf32>) {
  %c0 = arith.constant 0 : index
  %pp = tile.partition %pos : !tile.partition<in, 1xi32, tile = [1]>
  %px = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  %py = tile.partition %y : !tile.partition<out, 1x64xf32, tile = [1, 64]>
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %p = tile.load %pp[%c0] : !tile.partition<in, 1xi32, tile = [1]> -> tensor<1xi32>
  %e = tile.extract %p [0] : tensor<1xi32>
  %i = arith.index_cast %e : i32 to index
  %t = tile.load %px[%i, %c0] : !tile.partition<in, ?x64xf32, tile = [1, 64]> -> tensor<1x64xf32>
  %b = tile.own %py[%c0, %c0] : !tile.partition<out, 1x64xf32, tile = [1, 64]>
  tile.store %t, %b : tensor<1x64xf32>, !tile.owned<out, 1x64xf32>
  tile.return
}

// A running max carried by a loop: the row of 6 (3 vectors of 2) reduces
// through shared memory into thread 0 only, so the yield gives the new max
// to the warp from lane 0, as the next iteration's broadcast expects; a
// row of 2048 spans the block (partials of the 4 warps through shared
// memory, two barriers) and its sum is then in every thread.
// CHECK-LABEL: gpu.func @running_max
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: gpu.shuffle idx %{{.*}}, %c0_i32, %c32_i32 : f32
// CHECK-NEXT: vector.broadcast %{{.*}} : f32 to vector<1xf32>
// CHECK-NEXT: scf.yield
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @running_max(%x: !tile.view<in, ?x6xf32>, %w: !tile.view<in, 2048xf32>, %y: !tile.view<out, 2048xf32>, %mx: !tile.view<out, 1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %px = tile.partition %x : !tile.partition<in, ?x6xf32, tile = [1, 6]>
  %pw = tile.partition %w : !tile.partition<in, 2048xf32, tile = [2048]>
  %py = tile.partition %y : !tile.partition<out, 2048xf32, tile = [2048]>
  %pz = tile.partition %mx : !tile.partition<out, 1xf32, tile = [1]>
  tile.grid %c1
  %ninf = arith.constant dense<0xFF800000> : tensor<1x1xf32>
  %m = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %ninf) -> tensor<1x1xf32> {
    %t = tile.load %px[%k, %c0] : !tile.partition<in, ?x6xf32, tile = [1, 6]> -> tensor<1x6xf32>
    %ab = tile.broadcast %a : tensor<1x1xf32> -> tensor<1x6xf32>
    %s = arith.subf %t, %ab : tensor<1x6xf32>
    %r = tile.reduce %s dim = 1 : (tensor<1x6xf32>) -> tensor<1x1xf32> {
    ^bb0(%u: f32, %v: f32):
      %z = arith.maximumf %u, %v : f32
      tile.yield %z : f32
    }
    %a2 = arith.addf %a, %r : tensor<1x1xf32>
    scf.yield %a2 : tensor<1x1xf32>
  }
  %wt = tile.load %pw[%c0] : !tile.partition<in, 2048xf32, tile = [2048]> -> tensor<2048xf32>
  %sum = tile.reduce %wt dim = 0 : (tensor<2048xf32>) -> tensor<1xf32> {
  ^bb0(%u: f32, %v: f32):
    %z = arith.addf %u, %v : f32
    tile.yield %z : f32
  }
  %tb = tile.broadcast %sum : tensor<1xf32> -> tensor<2048xf32>
  %o = arith.divf %wt, %tb : tensor<2048xf32>
  %b = tile.own %py[%c0] : !tile.partition<out, 2048xf32, tile = [2048]>
  tile.store %o, %b : tensor<2048xf32>, !tile.owned<out, 2048xf32>
  %m1 = tile.reshape %m : tensor<1x1xf32> -> tensor<1xf32>
  %bz = tile.own %pz[%c0] : !tile.partition<out, 1xf32, tile = [1]>
  tile.store %m1, %bz : tensor<1xf32>, !tile.owned<out, 1xf32>
  tile.return
}

// A sum held by one warp, broadcast over a tile on all four: through
// shared memory.
// CHECK-LABEL: gpu.func @wider_broadcast
// CHECK: gpu.shuffle idx
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.return
tile.kernel @wider_broadcast(%x: !tile.view<in, 128xf32>, %y: !tile.view<out, 32x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition %x : !tile.partition<in, 128xf32, tile = [128]>
  %py = tile.partition %y : !tile.partition<out, 32x128xf32, tile = [32, 128]>
  tile.grid %c1
  %t = tile.load %px[%c0] : !tile.partition<in, 128xf32, tile = [128]> -> tensor<128xf32>
  %s = tile.reduce %t dim = 0 : (tensor<128xf32>) -> tensor<1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %s2 = tile.reshape %s : tensor<1xf32> -> tensor<1x1xf32>
  %sb = tile.broadcast %s2 : tensor<1x1xf32> -> tensor<32x128xf32>
  %b = tile.own %py[%c0, %c0] : !tile.partition<out, 32x128xf32, tile = [32, 128]>
  tile.store %sb, %b : tensor<32x128xf32>, !tile.owned<out, 32x128xf32>
  tile.return
}
