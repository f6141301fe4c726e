// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-mark-in-bounds-loads --remarks-filter-missed=tile-mark-in-bounds-loads --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s

// Each load left guarded says which bound could not be proven.
// CHECK: remark: [Missed] in-bounds-load | Category:tile-mark-in-bounds-loads | Function=gemv_partial | Reason="bounds-checked load: the tile may end past dim 0 of the view
// CHECK: remark: [Missed] in-bounds-load | Category:tile-mark-in-bounds-loads | Function=gemv_partial | Reason="bounds-checked load: the tile may end past dim 1 of the view
// CHECK: remark: [Missed] in-bounds-load | Category:tile-mark-in-bounds-loads | Function=i32_row_may_wrap | Reason="bounds-checked load: index 0 may be negative"
// CHECK-NOT: Function=i32_row_bounded

// The same loads without the divisibility assumptions: the last K tile and
// the last row tile may be partial.
tile.kernel @gemv_partial(%x: !tile.view<in, 1x?xf16>, %w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, 1x?xf16>) {
  %n = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
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

// -----

// Row 2 * pid of x, which has twice y's rows, computed in i32: with up to
// 2^31 - 1 programs the product may wrap, so the load keeps its guards.
tile.kernel @i32_row_may_wrap(%x: !tile.view<in, ?x64xf32>, %y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %two = arith.constant 2 : i32
  %px = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  %py = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %rx = tile.dim %x, 0 : !tile.view<in, ?x64xf32>
  %ry = tile.dim %y, 0 : !tile.view<out, ?x64xf32>
  %ry2 = arith.muli %ry, %c2 : index
  %twice = arith.cmpi eq, %rx, %ry2 : index
  tile.assume %twice, "x has twice y's rows"
  %pid = tile.program_id x
  %p32 = arith.index_cast %pid : index to i32
  %r32 = arith.muli %p32, %two : i32
  %r = arith.index_cast %r32 : i32 to index
  %t = tile.load %px[%r, %c0] : !tile.partition<in, ?x64xf32, tile = [1, 64]> -> tensor<1x64xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.store %t, %b : tensor<1x64xf32>, !tile.owned<out, 1x64xf32>
  tile.return
}

// -----

// The same with y's rows assumed below 2^20: 2 * pid fits i32 and the load
// is whole.
tile.kernel @i32_row_bounded(%x: !tile.view<in, ?x64xf32>, %y: !tile.view<out, ?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cmax = arith.constant 1048576 : index
  %two = arith.constant 2 : i32
  %px = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 64]>
  %py = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %rx = tile.dim %x, 0 : !tile.view<in, ?x64xf32>
  %ry = tile.dim %y, 0 : !tile.view<out, ?x64xf32>
  %ry2 = arith.muli %ry, %c2 : index
  %twice = arith.cmpi eq, %rx, %ry2 : index
  tile.assume %twice, "x has twice y's rows"
  %small = arith.cmpi slt, %ry, %cmax : index
  tile.assume %small, "fewer than 2^20 rows"
  %pid = tile.program_id x
  %p32 = arith.index_cast %pid : index to i32
  %r32 = arith.muli %p32, %two : i32
  %r = arith.index_cast %r32 : i32 to index
  %t = tile.load %px[%r, %c0] : !tile.partition<in, ?x64xf32, tile = [1, 64]> -> tensor<1x64xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.store %t, %b : tensor<1x64xf32>, !tile.owned<out, 1x64xf32>
  tile.return
}
