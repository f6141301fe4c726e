// Partition loads proven to read whole tiles inside their view get
// tile.in_bounds; any load that may touch the padding keeps its guards.
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-mark-in-bounds-loads --remarks-filter-passed=tile-mark-in-bounds-loads --remark-format=emitRemark -verify-diagnostics | FileCheck %s
// Without the ownership proof (no launch contract to enforce the
// assumptions) nothing is marked.
// RUN: tile-opt %s --split-input-file --tile-mark-in-bounds-loads | FileCheck %s --check-prefix=UNVERIFIED
// UNVERIFIED-NOT: tile.in_bounds

// A GEMV whose assumptions make K a multiple of the K tile and N a multiple
// of the row tile: both loads of the loop are whole, and the launch contract
// gets an aligned_rows rule for each view (dynamic row strides).
// CHECK-LABEL: tile.kernel @gemv_assumed
// CHECK-SAME: {\22a\22:1,\22bytes\22:16,\22kind\22:\22aligned_rows\22}
// CHECK-SAME: {\22a\22:0,\22bytes\22:16,\22kind\22:\22aligned_rows\22}
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] {tile.in_bounds}
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] {tile.in_bounds}
// expected-remark @+1 {{Function=gemv_assumed | Remark="2 of 2 loads proven in bounds}}
tile.kernel @gemv_assumed(%x: !tile.view<in, 1x?xf16>, %w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, 1x?xf16>) {
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
  tile.assume %wholek, "K is a multiple of 512"
  %rn = arith.remui %nw, %c4 : index
  %wholen = arith.cmpi eq, %rn, %c0 : index
  tile.assume %wholen, "N is a multiple of 4"
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

// The same loads without the divisibility assumptions: the last K tile and
// the last row tile may be partial.
// CHECK-LABEL: tile.kernel @gemv_partial
// CHECK-NOT: aligned_rows
// CHECK-NOT: tile.in_bounds
// expected-remark @+1 {{Function=gemv_partial | Remark="0 of 2 loads proven in bounds}}
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

// Static shapes: 96 rows in tiles of 32 are whole, in tiles of 64 the
// second is partial; the 4 indices are one whole tile. A load at an index
// read from memory is unbounded;
// the same index guarded by 0 <= j < 3 is whole inside the if.
// CHECK-LABEL: tile.kernel @static_and_guarded
// CHECK-NOT: aligned_rows
// CHECK: tile.load %[[P32:[0-9]+]][%{{.*}}, %{{.*}}] {tile.in_bounds}
// CHECK-NEXT: tile.load %{{.*}}[%{{.*}}, %{{.*}}] :
// CHECK: tile.load %{{.*}}[%{{.*}}] {tile.in_bounds}
// CHECK: tile.load %[[P32]][%{{.*}}, %{{.*}}] :
// CHECK: scf.if
// CHECK-NEXT: tile.load %[[P32]][%{{.*}}, %{{.*}}] {tile.in_bounds}
// expected-remark @+1 {{Function=static_and_guarded | Remark="3 of 5 loads proven in bounds}}
tile.kernel @static_and_guarded(%a: !tile.view<in, 96x64xf32>, %idx: !tile.view<in, 4xi32>, %y: !tile.view<out, 3x64xf32>) {
  %i = tile.program_id x
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %py = tile.partition %y : !tile.partition<out, 3x64xf32, tile = [1, 64]>
  tile.grid %c3
  %p32 = tile.partition %a : !tile.partition<in, 96x64xf32, tile = [32, 64]>
  %p64 = tile.partition %a : !tile.partition<in, 96x64xf32, tile = [64, 64]>
  %t32 = tile.load %p32[%i, %c0] : !tile.partition<in, 96x64xf32, tile = [32, 64]> -> tensor<32x64xf32>
  %t64 = tile.load %p64[%i, %c0] : !tile.partition<in, 96x64xf32, tile = [64, 64]> -> tensor<64x64xf32>
  %pi = tile.partition %idx : !tile.partition<in, 4xi32, tile = [4]>
  %iv = tile.load %pi[%c0] : !tile.partition<in, 4xi32, tile = [4]> -> tensor<4xi32>
  %e = tile.extract %iv [0] : tensor<4xi32>
  %j = arith.index_cast %e : i32 to index
  %td = tile.load %p32[%j, %c0] : !tile.partition<in, 96x64xf32, tile = [32, 64]> -> tensor<32x64xf32>
  %ge = arith.cmpi sge, %j, %c0 : index
  %lt3 = arith.cmpi slt, %j, %c3 : index
  %lt = arith.andi %ge, %lt3 : i1
  %s = scf.if %lt -> tensor<32x64xf32> {
    %tg = tile.load %p32[%j, %c0] : !tile.partition<in, 96x64xf32, tile = [32, 64]> -> tensor<32x64xf32>
    scf.yield %tg : tensor<32x64xf32>
  } else {
    scf.yield %td : tensor<32x64xf32>
  }
  %sum = arith.addf %s, %t32 : tensor<32x64xf32>
  %r = tile.reduce %sum dim = 0 : (tensor<32x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%l: f32, %m: f32):
    %t = arith.addf %l, %m : f32
    tile.yield %t : f32
  }
  %r64 = tile.reduce %t64 dim = 0 : (tensor<64x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%l: f32, %m: f32):
    %t = arith.addf %l, %m : f32
    tile.yield %t : f32
  }
  %out = arith.addf %r, %r64 : tensor<1x64xf32>
  %b = tile.own %py[%i, %c0] : !tile.partition<out, 3x64xf32, tile = [1, 64]>
  tile.store %out, %b : tensor<1x64xf32>, !tile.owned<out, 1x64xf32>
  tile.return
}

// -----

// A loop over key blocks from a clamped start to the ceil-div of a clamped
// end (a prompt attention's causal range): cdiv lowers to (e + 63) / 64,
// whose dividend the integer ranges cannot bound (the add may overflow), and
// a min has no lower bound in the model. The system's own facts show both
// are non-negative (the max with 0, the dim), so the divisions are floor
// divisions and the start is >= 0: the load is whole.
// CHECK-LABEL: tile.kernel @clamped_ceil_div_range
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] {tile.in_bounds}
// expected-remark @+1 {{Function=clamped_ceil_div_range | Remark="1 of 1 loads proven in bounds}}
tile.kernel @clamped_ceil_div_range(%k: !tile.view<in, ?x64xf16>, %n: index, %o: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  tile.grid %c1
  %d = tile.dim %k, 0 : !tile.view<in, ?x64xf16>
  %r = arith.remui %d, %c64 : index
  %whole = arith.cmpi eq, %r, %c0 : index
  tile.assume %whole, "whole key blocks"
  %nn = arith.maxsi %n, %c0 : index
  %end = arith.minsi %nn, %d : index
  %e63 = arith.addi %end, %c63 : index
  %blocks = arith.divsi %e63, %c64 : index
  %first = arith.divsi %nn, %c64 : index
  %start = arith.minsi %first, %blocks : index
  %pk = tile.partition %k : !tile.partition<in, ?x64xf16, tile = [64, 64]>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %j = %start to %blocks step %c1 iter_args(%a = %zero) -> tensor<64x64xf32> {
    %t = tile.load %pk[%j, %c0] : !tile.partition<in, ?x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %t32 = tile.convert %t : tensor<64x64xf16> -> tensor<64x64xf32>
    %s = arith.addf %a, %t32 : tensor<64x64xf32>
    scf.yield %s : tensor<64x64xf32>
  }
  %po = tile.partition %o : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %blk = tile.own %po[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %acc, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// Row 2 * pid of x, which has twice y's rows, computed in i32: with up to
// 2^31 - 1 programs the product may wrap, so the load keeps its guards.
// CHECK-LABEL: tile.kernel @i32_row_may_wrap
// CHECK-NOT: tile.in_bounds
// CHECK: tile.return
// expected-remark @+1 {{Function=i32_row_may_wrap | Remark="0 of 1 loads proven in bounds}}
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
// CHECK-LABEL: tile.kernel @i32_row_bounded
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] {tile.in_bounds}
// expected-remark @+1 {{Function=i32_row_bounded | Remark="1 of 1 loads proven in bounds}}
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

// -----

// A tile one element wide (a block scale of a [?, ?] tensor) is read an
// element at a time: proven in bounds, it needs no aligned rows.
// CHECK-LABEL: tile.kernel @scalar_tiles
// CHECK-NOT: aligned_rows
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] {tile.in_bounds}
// expected-remark @+1 {{Function=scalar_tiles | Remark="1 of 1 loads proven in bounds}}
tile.kernel @scalar_tiles(%s: !tile.view<in, ?x?xf32>, %y: !tile.view<out, ?x?xf32>) {
  %i = tile.program_id x
  %j = tile.program_id y
  %c0 = arith.constant 0 : index
  %ps = tile.partition %s : !tile.partition<in, ?x?xf32, tile = [1, 1]>
  %py = tile.partition %y : !tile.partition<out, ?x?xf32, tile = [1, 1]>
  %gi = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf32, tile = [1, 1]>
  %gj = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf32, tile = [1, 1]>
  tile.grid %gi, %gj
  %si = tile.dim %s, 0 : !tile.view<in, ?x?xf32>
  %sj = tile.dim %s, 1 : !tile.view<in, ?x?xf32>
  %yi = tile.dim %y, 0 : !tile.view<out, ?x?xf32>
  %yj = tile.dim %y, 1 : !tile.view<out, ?x?xf32>
  %a = arith.cmpi eq, %si, %yi : index
  %b = arith.cmpi eq, %sj, %yj : index
  %ab = arith.andi %a, %b : i1
  tile.assume %ab, "s and y have one shape"
  %t = tile.load %ps[%i, %j] : !tile.partition<in, ?x?xf32, tile = [1, 1]> -> tensor<1x1xf32>
  %o = tile.own %py[%i, %j] : !tile.partition<out, ?x?xf32, tile = [1, 1]>
  tile.store %t, %o : tensor<1x1xf32>, !tile.owned<out, 1x1xf32>
  tile.return
}

// -----

// A row picked by the program id modulo the row count (a head index
// `bg % heads`): the remainder of a non-negative value by a run-time
// divisor of at least 1 stays below the divisor. Without that assumption
// the divisor may be 0 and the load keeps its guards.
// CHECK-LABEL: tile.kernel @rem_by_rows
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] {tile.in_bounds}
// expected-remark @+1 {{Function=rem_by_rows | Remark="1 of 1 loads proven in bounds}}
tile.kernel @rem_by_rows(%x: !tile.view<in, ?x16xf32>, %y: !tile.view<out, ?x16xf32>) {
  %p = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %py = tile.partition %y : !tile.partition<out, ?x16xf32, tile = [1, 16]>
  %g = tile.num_tiles %py, 0 : !tile.partition<out, ?x16xf32, tile = [1, 16]>
  tile.grid %g
  %rows = tile.dim %x, 0 : !tile.view<in, ?x16xf32>
  %some = arith.cmpi sge, %rows, %c1 : index
  tile.assume %some, "x has a row"
  %r = arith.remui %p, %rows : index
  %px = tile.partition %x : !tile.partition<in, ?x16xf32, tile = [1, 16]>
  %t = tile.load %px[%r, %c0] : !tile.partition<in, ?x16xf32, tile = [1, 16]> -> tensor<1x16xf32>
  %o = tile.own %py[%p, %c0] : !tile.partition<out, ?x16xf32, tile = [1, 16]>
  tile.store %t, %o : tensor<1x16xf32>, !tile.owned<out, 1x16xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @rem_by_maybe_zero
// CHECK-NOT: tile.in_bounds
// expected-remark @+1 {{Function=rem_by_maybe_zero | Remark="0 of 1 loads proven in bounds}}
tile.kernel @rem_by_maybe_zero(%x: !tile.view<in, ?x16xf32>, %y: !tile.view<out, ?x16xf32>) {
  %p = tile.program_id x
  %c0 = arith.constant 0 : index
  %py = tile.partition %y : !tile.partition<out, ?x16xf32, tile = [1, 16]>
  %g = tile.num_tiles %py, 0 : !tile.partition<out, ?x16xf32, tile = [1, 16]>
  tile.grid %g
  %rows = tile.dim %x, 0 : !tile.view<in, ?x16xf32>
  %r = arith.remui %p, %rows : index
  %px = tile.partition %x : !tile.partition<in, ?x16xf32, tile = [1, 16]>
  %t = tile.load %px[%r, %c0] : !tile.partition<in, ?x16xf32, tile = [1, 16]> -> tensor<1x16xf32>
  %o = tile.own %py[%p, %c0] : !tile.partition<out, ?x16xf32, tile = [1, 16]>
  tile.store %t, %o : tensor<1x16xf32>, !tile.owned<out, 1x16xf32>
  tile.return
}
