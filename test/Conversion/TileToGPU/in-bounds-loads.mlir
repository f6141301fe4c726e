// RUN: tile-opt %s --tile-verify-ownership --tile-mark-in-bounds-loads --convert-tile-to-gpu=num-warps=4 --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=4 --canonicalize --cse | FileCheck %s --check-prefix=GUARDED

// A GEMV whose assumptions put every tile inside its view: with
// tile.in_bounds the K loop is straight-line code, 16-byte vector loads of
// W (two slots per thread) and of x (reloaded in the broadcast's layout),
// no bounds checks, no alignment checks (the contract's aligned_rows rule
// covers the dynamic row stride), no edge path. The loads index the view
// flattened: the tile's origin times the strides once, and W's second slot
// one step (its rows' stride) past the first. Without the marks every
// slot sits behind a bounds check with an element-by-element edge path.
// CHECK-LABEL: gpu.func @gemv
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK-NOT: memref.load
// CHECK: %[[S:.*]] = arith.muli %strides{{.*}}, %c2 : index
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[A:.*]], %[[S]] : index
// CHECK-NEXT: %[[W:.*]] = memref.reinterpret_cast %arg1 to offset: [0], sizes: [1099511627776], strides: [1]
// CHECK-NEXT: vector.load %[[W]][%[[A]]] {alignment = 16 : i64} : memref<1099511627776xf16>
// CHECK-NOT: scf.if
// CHECK: vector.load %[[W]][%[[B]]] {alignment = 16 : i64} : memref<1099511627776xf16>
// CHECK-NOT: scf.if
// CHECK: %[[X:.*]] = memref.reinterpret_cast %arg0
// CHECK: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<1099511627776xf16>
// CHECK-NOT: scf.if
// CHECK: scf.yield
// GUARDED-LABEL: gpu.func @gemv
// GUARDED: scf.for
// GUARDED: scf.if
// GUARDED: vector.load
// GUARDED: } else {
// GUARDED: memref.load
tile.kernel @gemv(%x: !tile.view<in, 1x?xf16>, %w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, 1x?xf16>) {
  %n = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  %py = tile.partition %y : !tile.partition<out, 1x?xf16, tile = [1, 4]>
  %g = tile.num_tiles %py, 1 : !tile.partition<out, 1x?xf16, tile = [1, 4]>
  tile.grid %g
  %kx = tile.dim %x, 1 : !tile.view<in, 1x?xf16>
  %kw = tile.dim %w, 1 : !tile.view<in, ?x?xf16>
  %nw = tile.dim %w, 0 : !tile.view<in, ?x?xf16>
  %ny = tile.dim %y, 1 : !tile.view<out, 1x?xf16>
  %samek = arith.cmpi eq, %kx, %kw : index
  tile.assume %samek, "x and w have the same K"
  %samen = arith.cmpi eq, %ny, %nw : index
  tile.assume %samen, "one output per row of w"
  %rk = arith.remui %kw, %c512 : index
  %wholek = arith.cmpi eq, %rk, %c0 : index
  %rn = arith.remui %nw, %c4 : index
  %wholen = arith.cmpi eq, %rn, %c0 : index
  %whole = arith.andi %wholek, %wholen : i1
  tile.assume %whole, "K and N are multiples of the tile"
  %pw = tile.partition %w : !tile.partition<in, ?x?xf16, tile = [4, 512]>
  %px = tile.partition %x : !tile.partition<in, 1x?xf16, tile = [1, 512]>
  %nk = tile.num_tiles %pw, 1 : !tile.partition<in, ?x?xf16, tile = [4, 512]>
  %zero = arith.constant dense<0.0> : tensor<4x512xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %zero) -> tensor<4x512xf32> {
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xf16, tile = [4, 512]> -> tensor<4x512xf16>
    %xt = tile.load %px[%c0, %k] : !tile.partition<in, 1x?xf16, tile = [1, 512]> -> tensor<1x512xf16>
    %xb = tile.broadcast %xt : tensor<1x512xf16> -> tensor<4x512xf16>
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
  %o = tile.reshape %s : tensor<4x1xf32> -> tensor<1x4xf32>
  %oh = tile.convert %o : tensor<1x4xf32> -> tensor<1x4xf16>
  %b = tile.own %py[%c0, %n] : !tile.partition<out, 1x?xf16, tile = [1, 4]>
  tile.store %oh, %b : tensor<1x4xf16>, !tile.owned<out, 1x4xf16>
  tile.return
}
