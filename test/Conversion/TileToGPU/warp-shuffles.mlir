// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=4 --canonicalize | FileCheck %s

// RoPE's rotate-half of a head of 128 (16 vectors of 8 on threads 0-15):
// each slice takes one shuffle per lane (8), the concat two runs per lane
// (16), and nothing goes through shared memory.
// CHECK-LABEL: gpu.func @rotate_half
// CHECK-NOT: workgroup(
// CHECK-COUNT-32: gpu.shuffle idx
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @rotate_half(%x: !tile.view<in, ?x128xf32>, %y: !tile.view<out, ?x128xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x128xf32, tile = [1, 128]>
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x128xf32, tile = [1, 128]> -> tensor<1x128xf32>
  %hi = tile.slice %t [0, 64] : tensor<1x128xf32> -> tensor<1x64xf32>
  %lo = tile.slice %t [0, 0] : tensor<1x128xf32> -> tensor<1x64xf32>
  %neg = arith.negf %hi : tensor<1x64xf32>
  %rot = tile.concat %neg, %lo dim = 1 : tensor<1x64xf32>, tensor<1x64xf32> -> tensor<1x128xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  tile.store %rot, %b : tensor<1x128xf32>, !tile.owned<out, 1x128xf32>
  tile.return
}

// A reshape to a narrower vector ([1, 64] in vectors of 8 to [32, 2] in
// vectors of 2): thread t reads thread t / 4, from a lane that depends on
// t, so each result lane takes a shuffle per source lane it may read (4)
// and selects.
// CHECK-LABEL: gpu.func @narrow
// CHECK-NOT: workgroup(
// CHECK-COUNT-8: gpu.shuffle idx
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @narrow(%x: !tile.view<in, 64xf32>, %y: !tile.view<out, 32x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition %x : !tile.partition<in, 64xf32, tile = [64]>
  %py = tile.partition %y : !tile.partition<out, 32x2xf32, tile = [32, 2]>
  tile.grid %c1
  %t = tile.load %px[%c0] : !tile.partition<in, 64xf32, tile = [64]> -> tensor<64xf32>
  %r = tile.reshape %t : tensor<64xf32> -> tensor<32x2xf32>
  %b = tile.own %py[%c0, %c0] : !tile.partition<out, 32x2xf32, tile = [32, 2]>
  tile.store %r, %b : tensor<32x2xf32>, !tile.owned<out, 32x2xf32>
  tile.return
}

// A column of 64 (one element per thread on two warps) does not fit the
// first warp: shared memory.
// CHECK-LABEL: gpu.func @column
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK: gpu.return
tile.kernel @column(%x: !tile.view<in, 64xf32>, %y: !tile.view<out, 64x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %px = tile.partition %x : !tile.partition<in, 64xf32, tile = [64]>
  %py = tile.partition %y : !tile.partition<out, 64x1xf32, tile = [64, 1]>
  tile.grid %c1
  %t = tile.load %px[%c0] : !tile.partition<in, 64xf32, tile = [64]> -> tensor<64xf32>
  %e = math.exp %t : tensor<64xf32>
  %r = tile.reshape %e : tensor<64xf32> -> tensor<64x1xf32>
  %b = tile.own %py[%c0, %c0] : !tile.partition<out, 64x1xf32, tile = [64, 1]>
  tile.store %r, %b : tensor<64x1xf32>, !tile.owned<out, 64x1xf32>
  tile.return
}

// A roll of whole vectors along the last dim on a tile larger than a warp:
// [16, 128] f32 on 128 threads is 16 vectors a row on 16 lanes of one
// warp, two slots a thread; rolling by half a row takes each register from
// lane (lane & ~15) | ((lane + 8) & 15) in the same slot: 16 shuffles, no
// shared memory. By 3 (not whole vectors) or along dim 0 it goes through
// shared memory.
// CHECK-LABEL: gpu.func @roll_rows
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-16: gpu.shuffle idx
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @roll_rows(%x: !tile.view<in, ?x128xf32>, %y: !tile.view<out, ?x128xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x128xf32, tile = [16, 128]>
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x128xf32, tile = [16, 128]> -> tensor<16x128xf32>
  %r = tile.roll %t shift = 64 dim = 1 : tensor<16x128xf32>
  %o = tile.own %py[%pid, %c0] : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  tile.store %r, %o : tensor<16x128xf32>, !tile.owned<out, 16x128xf32>
  tile.return
}

// CHECK-LABEL: gpu.func @roll_off_grain
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
tile.kernel @roll_off_grain(%x: !tile.view<in, ?x128xf32>, %y: !tile.view<out, ?x128xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x128xf32, tile = [16, 128]>
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x128xf32, tile = [16, 128]> -> tensor<16x128xf32>
  %a = tile.roll %t shift = 3 dim = 1 : tensor<16x128xf32>
  %r = tile.roll %a shift = 1 dim = 0 : tensor<16x128xf32>
  %o = tile.own %py[%pid, %c0] : !tile.partition<out, ?x128xf32, tile = [16, 128]>
  tile.store %r, %o : tensor<16x128xf32>, !tile.owned<out, 16x128xf32>
  tile.return
}
