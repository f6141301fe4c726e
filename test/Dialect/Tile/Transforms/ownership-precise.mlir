// Kernels whose proof needs more than linear arithmetic: clamps (exact
// min/max), a block table whose entries the launch contract checks distinct
// (a paged KV cache), the Triton tile orders with a run-time divisor, and
// grid-stride loops. The report names the facts used; the near misses of
// each family are in ownership-precise-reject.mlir.
// RUN: tile-opt %s --tile-verify-ownership="report=true print-contract=true" -verify-diagnostics -o /dev/null

// 1. A KV-cache row clamped into the cache: 0 <= p <= dim - 1 whenever the
// cache is non-empty (and an empty cache is claimed nowhere).
// expected-remark @+3 {{launch contract: grid = (8)}}
// expected-remark @+2 {{launch contract: no_overlap(arg1, arg0)}}
// expected-remark @+1 {{kernel @kv_write_clamped: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 1 launch-contract rules, 0 unchecked regions; using exact min/max}}
tile.kernel @kv_write_clamped(%k: !tile.view<in, 8x128xf16>, %cache: !tile.view<inout, ?x8x128xf16>, %pos: i64) {
  %h = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  tile.grid %c8
  %p0 = arith.index_cast %pos : i64 to index
  %n = tile.dim %cache, 0 : !tile.view<inout, ?x8x128xf16>
  %last = arith.subi %n, %c1 : index
  %p1 = arith.maxsi %p0, %c0 : index
  %p = arith.minsi %p1, %last : index
  %pk = tile.partition %k : !tile.partition<in, 8x128xf16, tile = [1, 128]>
  %row = tile.load %pk[%h, %c0] : !tile.partition<in, 8x128xf16, tile = [1, 128]> -> tensor<1x128xf16>
  %r3 = tile.reshape %row : tensor<1x128xf16> -> tensor<1x1x128xf16>
  %pc = tile.partition %cache : !tile.partition<inout, ?x8x128xf16, tile = [1, 1, 128]>
  %b = tile.own %pc[%p, %h, %c0] : !tile.partition<inout, ?x8x128xf16, tile = [1, 1, 128]>
  tile.store %r3, %b : tensor<1x1x128xf16>, !tile.owned<inout, 1x1x128xf16>
  tile.return
}

// 2. Paged KV cache: program i writes the cache block blocks[i]; the launch
// contract checks the table's entries distinct and inside the cache.
// expected-remark @+6 {{launch contract: grid = (dim(arg0, 0))}}
// expected-remark @+5 {{launch contract: no_overlap(arg2, arg0)}}
// expected-remark @+4 {{launch contract: no_overlap(arg2, arg1)}}
// expected-remark @+3 {{launch contract: assume(dim(arg1, 0) == dim(arg0, 0)) "one table entry per block written"}}
// expected-remark @+2 {{launch contract: distinct_in_range(arg1, 0, dim(arg2, 0)) "block table entries are distinct cache blocks"}}
// expected-remark @+1 {{kernel @paged_kv_write: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 4 launch-contract rules, 0 unchecked regions; using entries of %arg1 distinct and in range (launch contract)}}
tile.kernel @paged_kv_write(%k: !tile.view<in, ?x16x128xf16>, %blocks: !tile.view<frozen, ?xi32>,
                            %cache: !tile.view<inout, ?x16x128xf16>) {
  %i = tile.program_id x
  %c0 = arith.constant 0 : index
  %nk = tile.dim %k, 0 : !tile.view<in, ?x16x128xf16>
  tile.grid %nk
  %nt = tile.dim %blocks, 0 : !tile.view<frozen, ?xi32>
  %same = arith.cmpi eq, %nt, %nk : index
  tile.assume %same, "one table entry per block written"
  %nc = tile.dim %cache, 0 : !tile.view<inout, ?x16x128xf16>
  tile.assume_distinct %blocks, %c0, %nc, "block table entries are distinct cache blocks" : !tile.view<frozen, ?xi32>
  %pb = tile.partition %blocks : !tile.partition<frozen, ?xi32, tile = [1]>
  %t = tile.load %pb[%i] : !tile.partition<frozen, ?xi32, tile = [1]> -> tensor<1xi32>
  %e = tile.extract %t [0] : tensor<1xi32>
  %blk = arith.index_cast %e : i32 to index
  %pk = tile.partition %k : !tile.partition<in, ?x16x128xf16, tile = [1, 16, 128]>
  %v = tile.load %pk[%i, %c0, %c0] : !tile.partition<in, ?x16x128xf16, tile = [1, 16, 128]> -> tensor<1x16x128xf16>
  %pc = tile.partition %cache : !tile.partition<inout, ?x16x128xf16, tile = [1, 16, 128]>
  %b = tile.own %pc[%blk, %c0, %c0] : !tile.partition<inout, ?x16x128xf16, tile = [1, 16, 128]>
  tile.store %v, %b : tensor<1x16x128xf16>, !tile.owned<inout, 1x16x128xf16>
  tile.return
}

// 3. Triton's tile order with a run-time number of column tiles n:
// (pid / n, pid % n) is injective, and inside [0, m) x [0, n) for a grid of
// m * n programs.
// expected-remark @+4 {{launch contract: grid = (ceildiv(dim(arg1, 0), 64) * ceildiv(dim(arg1, 1), 64))}}
// expected-remark @+3 {{launch contract: no_overlap(arg1, arg0)}}
// expected-remark @+2 {{launch contract: non_self_overlapping(arg1)}}
// expected-remark @+1 {{kernel @gemm_tiles_runtime_n: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions; using division by a run-time divisor (injective), products of non-negative values}}
tile.kernel @gemm_tiles_runtime_n(%a: !tile.view<in, ?x?xf16, strides = [?, 1]>, %c: !tile.view<out, ?x?xf16, strides = [?, 1]>) {
  %pid = tile.program_id x
  %pc = tile.partition %c : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  %m = tile.num_tiles %pc, 0 : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  %n = tile.num_tiles %pc, 1 : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  %total = arith.muli %m, %n : index
  tile.grid %total
  %pm = arith.divui %pid, %n : index
  %pn = arith.remui %pid, %n : index
  %v = arith.constant dense<0.0> : tensor<64x64xf16>
  %blk = tile.own %pc[%pm, %pn] : !tile.partition<out, ?x?xf16, strides = [?, 1], tile = [64, 64]>
  tile.store %v, %blk : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
  tile.return
}

// 4. A persistent kernel: each program strides over the row blocks by the
// number of programs, a grid of at most one program per block.
// expected-remark @+3 {{launch contract: grid = (min(arg1, ceildiv(dim(arg0, 0), 1)))}}
// expected-remark @+2 {{launch contract: assume(arg1 >= 1) "at least one program"}}
// expected-remark @+1 {{kernel @grid_stride_rows: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 1 launch-contract rules, 0 unchecked regions; using exact min/max, loop stepping by a run-time value}}
tile.kernel @grid_stride_rows(%y: !tile.view<out, ?x128xf32>, %progs: i64, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %p = arith.index_cast %progs : i64 to index
  %pos = arith.cmpi sge, %p, %c1 : index
  tile.assume %pos, "at least one program"
  %g = arith.minsi %p, %rows : index
  tile.grid %g
  %n = tile.num_programs x
  %v = tile.splat %s : tensor<1x128xf32>
  scf.for %r = %pid to %rows step %n {
    %blk = tile.own %py[%r, %c0] : !tile.partition<out, ?x128xf32, tile = [1, 128]>
    tile.store %v, %blk : tensor<1x128xf32>, !tile.owned<out, 1x128xf32>
  }
  tile.return
}

// 5. A grid-stride loop over a declared grid of a scalar's programs.
// expected-remark @+3 {{launch contract: grid = (arg1)}}
// expected-remark @+2 {{launch contract: assume(arg1 >= 1) "at least one program"}}
// expected-remark @+1 {{kernel @grid_stride_declared: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 1 launch-contract rules, 0 unchecked regions; using loop stepping by a run-time value}}
tile.kernel @grid_stride_declared(%y: !tile.view<out, ?x128xf32>, %progs: i64, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = arith.index_cast %progs : i64 to index
  %pos = arith.cmpi sge, %g, %c1 : index
  tile.assume %pos, "at least one program"
  tile.grid %g
  %n = tile.num_programs x
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %v = tile.splat %s : tensor<1x128xf32>
  scf.for %r = %pid to %rows step %n {
    %blk = tile.own %py[%r, %c0] : !tile.partition<out, ?x128xf32, tile = [1, 128]>
    tile.store %v, %blk : tensor<1x128xf32>, !tile.owned<out, 1x128xf32>
  }
  tile.return
}
