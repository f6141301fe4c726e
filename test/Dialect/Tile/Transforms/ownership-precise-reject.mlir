// Near misses of ownership-precise.mlir: each breaks what its family's
// proof relies on, and the witness is a real collision or a real index
// outside the index space.
// RUN: tile-opt %s -split-input-file --tile-verify-ownership -verify-diagnostics -o /dev/null

// Clamped to dim, not dim - 1: a position past the end claims row dim.
tile.kernel @kv_write_clamped_to_dim(%k: !tile.view<in, 8x128xf16>, %cache: !tile.view<inout, ?x8x128xf16>, %pos: i64) {
  %h = tile.program_id x
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tile.grid %c8
  %p0 = arith.index_cast %pos : i64 to index
  %n = tile.dim %cache, 0 : !tile.view<inout, ?x8x128xf16>
  %p1 = arith.maxsi %p0, %c0 : index
  %p = arith.minsi %p1, %n : index
  %pk = tile.partition %k : !tile.partition<in, 8x128xf16, tile = [1, 128]>
  %row = tile.load %pk[%h, %c0] : !tile.partition<in, 8x128xf16, tile = [1, 128]> -> tensor<1x128xf16>
  %r3 = tile.reshape %row : tensor<1x128xf16> -> tensor<1x1x128xf16>
  %pc = tile.partition %cache : !tile.partition<inout, ?x8x128xf16, tile = [1, 1, 128]>
  // expected-error @+1 {{program (1) claims tile index 1 along dim 0 of %arg1, outside its index space [0, 1) (with grid = (8), dim(%arg1, 0) = 1, %arg2 = 1, 'arith.maxsi' (min/max) = 1, 'arith.minsi' (min/max) = 1)}}
  %b = tile.own %pc[%p, %h, %c0] : !tile.partition<inout, ?x8x128xf16, tile = [1, 1, 128]>
  tile.store %r3, %b : tensor<1x1x128xf16>, !tile.owned<inout, 1x1x128xf16>
  tile.return
}

// -----

// A block table without tile.assume_distinct: two entries may be equal.
tile.kernel @paged_kv_write_no_rule(%blocks: !tile.view<frozen, ?xi32>, %cache: !tile.view<out, ?x16x128xf16>) {
  %i = tile.program_id x
  %c0 = arith.constant 0 : index
  %nt = tile.dim %blocks, 0 : !tile.view<frozen, ?xi32>
  tile.grid %nt
  %pb = tile.partition %blocks : !tile.partition<frozen, ?xi32, tile = [1]>
  %t = tile.load %pb[%i] : !tile.partition<frozen, ?xi32, tile = [1]> -> tensor<1xi32>
  %e = tile.extract %t [0] : tensor<1xi32>
  %blk = arith.index_cast %e : i32 to index
  %nc = tile.dim %cache, 0 : !tile.view<out, ?x16x128xf16>
  %c1 = arith.constant 1 : index
  %last = arith.subi %nc, %c1 : index
  %b0 = arith.maxsi %blk, %c0 : index
  %b1 = arith.minsi %b0, %last : index
  %v = arith.constant dense<0.0> : tensor<1x16x128xf16>
  %pc = tile.partition %cache : !tile.partition<out, ?x16x128xf16, tile = [1, 16, 128]>
  // expected-error @+1 {{programs (0) and (1) both own elements [0, 1) x [0, 16) x [0, 128) of %arg1}}
  %b = tile.own %pc[%b1, %c0, %c0] : !tile.partition<out, ?x16x128xf16, tile = [1, 16, 128]>
  tile.store %v, %b : tensor<1x16x128xf16>, !tile.owned<out, 1x16x128xf16>
  tile.return
}

// -----

// More programs than table entries: those past the end read padding (0),
// all the same block.
tile.kernel @paged_kv_write_grid_past_table(%blocks: !tile.view<frozen, ?xi32>, %cache: !tile.view<out, ?x16x128xf16>, %g: i64) {
  %i = tile.program_id x
  %c0 = arith.constant 0 : index
  %nc = tile.dim %cache, 0 : !tile.view<out, ?x16x128xf16>
  tile.assume_distinct %blocks, %c0, %nc, "distinct cache blocks" : !tile.view<frozen, ?xi32>
  %gi = arith.index_cast %g : i64 to index
  tile.grid %gi
  %pb = tile.partition %blocks : !tile.partition<frozen, ?xi32, tile = [1]>
  %t = tile.load %pb[%i] : !tile.partition<frozen, ?xi32, tile = [1]> -> tensor<1xi32>
  %e = tile.extract %t [0] : tensor<1xi32>
  %blk = arith.index_cast %e : i32 to index
  %c1 = arith.constant 1 : index
  %last = arith.subi %nc, %c1 : index
  %b0 = arith.maxsi %blk, %c0 : index
  %b1 = arith.minsi %b0, %last : index
  %v = arith.constant dense<0.0> : tensor<1x16x128xf16>
  %pc = tile.partition %cache : !tile.partition<out, ?x16x128xf16, tile = [1, 16, 128]>
  // expected-error @+1 {{programs (0) and (1) both own elements [0, 1) x [0, 16) x [0, 128) of %arg1}}
  %b = tile.own %pc[%b1, %c0, %c0] : !tile.partition<out, ?x16x128xf16, tile = [1, 16, 128]>
  tile.store %v, %b : tensor<1x16x128xf16>, !tile.owned<out, 1x16x128xf16>
  tile.return
}

// -----

// (pid / n, pid % m) with m the row count: two divisors, not a bijection.
tile.kernel @gemm_tiles_two_divisors(%c: !tile.view<out, ?x?xf16, strides = [?, 1]>) {
  %pid = tile.program_id x
  %pc = tile.partition %c : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  %m = tile.num_tiles %pc, 0 : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  %n = tile.num_tiles %pc, 1 : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  %total = arith.muli %m, %n : index
  tile.grid %total
  %pm = arith.divui %pid, %n : index
  %pn = arith.remui %pid, %m : index
  %v = arith.constant dense<0.0> : tensor<64x64xf16>
  // expected-error @+2 {{program (1) claims tile index 1 along dim 1 of %arg0, outside its index space [0, 1) (with grid = (2), dim(%arg0, 0) = 128, dim(%arg0, 1) = 1}}
  // expected-error @+1 {{programs (0) and (1) both own elements [0, 64) x [0, 64) of %arg0 (with grid = (2), dim(%arg0, 0) = 1, dim(%arg0, 1) = 65}}
  %blk = tile.own %pc[%pm, %pn] : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  tile.store %v, %blk : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
  tile.return
}

// -----

// A grid-stride loop that starts every program at row 0.
tile.kernel @grid_stride_from_zero(%y: !tile.view<out, ?x128xf32>, %s: f32) {
  %g = tile.num_programs x
  %c0 = arith.constant 0 : index
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %v = tile.splat %s : tensor<1x128xf32>
  scf.for %r = %c0 to %rows step %g {
    // expected-error @+1 {{programs (0, 0, 0) and (1, 0, 0) both own elements [0, 1) x [0, 128) of %arg0 (with grid = (2, 1, 1), dim(%arg0, 0) = 1)}}
    %blk = tile.own %py[%r, %c0] : !tile.partition<out, ?x128xf32, tile = [1, 128]>
    tile.store %v, %blk : tensor<1x128xf32>, !tile.owned<out, 1x128xf32>
  }
  tile.return
}
