// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=4 --canonicalize --cse | FileCheck %s

// The x of a GEMV: a tile loaded from an `in` view, reshaped to a row and
// broadcast over the rows of W. The load is issued again in the broadcast's
// layout, so the K loop needs neither shared memory nor a barrier.
// CHECK-LABEL: gpu.func @gemv
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<?x4096xf16
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<4096xf16
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// The row sums after the loop cross warps through shared memory.
// CHECK: gpu.barrier
tile.kernel @gemv(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [4, 512]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [512]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [4]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [4]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<4x512xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> tensor<4x512xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [4, 512]> -> tensor<4x512xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [512]> -> tensor<512xf16>
    %xr = tile.reshape %xt : tensor<512xf16> -> tensor<1x512xf16>
    %xb = tile.broadcast %xr : tensor<1x512xf16> -> tensor<4x512xf16>
    %w32 = tile.convert %wt : tensor<4x512xf16> -> tensor<4x512xf32>
    %x32 = tile.convert %xb : tensor<4x512xf16> -> tensor<4x512xf32>
    %p = arith.mulf %w32, %x32 : tensor<4x512xf32>
    %a2 = arith.addf %a, %p : tensor<4x512xf32>
    scf.yield %a2 : tensor<4x512xf32>
  }
  %s = tile.reduce %acc dim = 1 : (tensor<4x512xf32>) -> tensor<4x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %o = tile.reshape %s : tensor<4x1xf32> -> tensor<4xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [4]>
  tile.store %o, %b : tensor<4xf32>, !tile.owned<out, 4xf32>
  tile.return
}

// Element-wise work on a read-only load is not recomputed in the
// broadcast's layout: the computed row crosses shared memory.
// CHECK-LABEL: gpu.func @scaled_rows
// CHECK: math.exp
// CHECK: gpu.barrier
tile.kernel @scaled_rows(%x: !tile.view<in, ?x256xf32>, %s: !tile.view<in, 256xf16>, %y: !tile.view<out, ?x256xf32>, %k: f32) {
  %pid = tile.program_id x
  %px = tile.partition %x : !tile.partition<in, ?x256xf32, tile = [2, 256]>
  %ps = tile.partition %s : !tile.partition<in, 256xf16, tile = [256]>
  %py = tile.partition %y : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  tile.grid %n
  %c0 = arith.constant 0 : index
  %xt = tile.load %px[%pid, %c0] : !tile.partition<in, ?x256xf32, tile = [2, 256]> -> tensor<2x256xf32>
  %st = tile.load %ps[%c0] : !tile.partition<in, 256xf16, tile = [256]> -> tensor<256xf16>
  %s32 = tile.convert %st : tensor<256xf16> -> tensor<256xf32>
  %ks = tile.splat %k : tensor<256xf32>
  %one = arith.constant dense<1.0> : tensor<256xf32>
  %sk = arith.mulf %s32, %ks : tensor<256xf32>
  %s1 = arith.addf %sk, %one : tensor<256xf32>
  %s2 = math.exp %s1 : tensor<256xf32>
  %sr = tile.reshape %s2 : tensor<256xf32> -> tensor<1x256xf32>
  %sb = tile.broadcast %sr : tensor<1x256xf32> -> tensor<2x256xf32>
  %r = arith.mulf %xt, %sb : tensor<2x256xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  tile.store %r, %b : tensor<2x256xf32>, !tile.owned<out, 2x256xf32>
  tile.return
}

// A broadcast of what a reduction computed cannot be recomputed per
// thread: it moves through shared memory.
// CHECK-LABEL: gpu.func @centered_rows
// CHECK: gpu.barrier
// CHECK: memref.load {{.*}} : memref<{{.*}}xf32, #gpu.address_space<workgroup>>
tile.kernel @centered_rows(%x: !tile.view<in, ?x256xf32>, %y: !tile.view<out, ?x256xf32>) {
  %pid = tile.program_id x
  %px = tile.partition %x : !tile.partition<in, ?x256xf32, tile = [2, 256]>
  %py = tile.partition %y : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  tile.grid %n
  %c0 = arith.constant 0 : index
  %xt = tile.load %px[%pid, %c0] : !tile.partition<in, ?x256xf32, tile = [2, 256]> -> tensor<2x256xf32>
  %m = tile.reduce %xt dim = 1 : (tensor<2x256xf32>) -> tensor<2x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.maximumf %l, %r : f32
    tile.yield %t : f32
  }
  %mb = tile.broadcast %m : tensor<2x1xf32> -> tensor<2x256xf32>
  %r = arith.subf %xt, %mb : tensor<2x256xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf32, tile = [2, 256]>
  tile.store %r, %b : tensor<2x256xf32>, !tile.owned<out, 2x256xf32>
  tile.return
}
