// The valid half of the ownership corpus: each kernel is proven race-free and
// in bounds. The report remark shows what was proven, so a kernel whose
// claims were silently skipped would fail this test.
// RUN: tile-opt %s --tile-verify-ownership=report=true -verify-diagnostics -o /dev/null
// (test/Pipelines/tile-to-cpu.mlir lowers every kernel here to host code:)
// CPU-DAG: llvm.func @_mlir_ciface_copy_rows_grid(
// CPU-DAG: llvm.func @_mlir_ciface_rmsnorm_rows16_grid(
// CPU-DAG: llvm.func @_mlir_ciface_add_rmsnorm_grid(
// CPU-DAG: llvm.func @_mlir_ciface_gemv_grid(
// CPU-DAG: llvm.func @_mlir_ciface_gemv_splitk_grid(
// CPU-DAG: llvm.func @_mlir_ciface_gemm_2d_grid(
// CPU-DAG: llvm.func @_mlir_ciface_gemm_grouped_grid(
// CPU-DAG: llvm.func @_mlir_ciface_subtile_loop_grid(
// CPU-DAG: llvm.func @_mlir_ciface_nested_subtiles_grid(
// CPU-DAG: llvm.func @_mlir_ciface_inout_subtiles_grid(
// CPU-DAG: llvm.func @_mlir_ciface_flash_attention_causal_grid(
// CPU-DAG: llvm.func @_mlir_ciface_decode_attention_split_grid(
// CPU-DAG: llvm.func @_mlir_ciface_decode_attention_merge_grid(
// CPU-DAG: llvm.func @_mlir_ciface_kv_write_scalar_pos_grid(
// CPU-DAG: llvm.func @_mlir_ciface_kv_write_device_pos_grid(
// CPU-DAG: llvm.func @_mlir_ciface_embedding_grid(
// CPU-DAG: llvm.func @_mlir_ciface_argmax_stage1_grid(
// CPU-DAG: llvm.func @_mlir_ciface_argmax_stage2_grid(
// CPU-DAG: llvm.func @_mlir_ciface_swiglu_grid(
// CPU-DAG: llvm.func @_mlir_ciface_elementwise_2d_grid(
// CPU-DAG: llvm.func @_mlir_ciface_transpose_map_grid(
// CPU-DAG: llvm.func @_mlir_ciface_qk_norm_rope_grid(
// CPU-DAG: llvm.func @_mlir_ciface_batched_3d_grid(
// CPU-DAG: llvm.func @_mlir_ciface_rows_per_program_loop_grid(
// CPU-DAG: llvm.func @_mlir_ciface_conditional_claim_grid(
// CPU-DAG: llvm.func @_mlir_ciface_static_shapes_grid(
// CPU-DAG: llvm.func @_mlir_ciface_with_unchecked_grid(

// 1. Identity map: program i owns row i.
// expected-remark @+1 {{kernel @copy_rows: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 1 launch-contract rules, 0 unchecked regions}}
tile.kernel @copy_rows(%x: !tile.view<in, ?x4096xf16>, %y: !tile.view<out, ?x4096xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x4096xf16, tile = [1, 4096]>
  %py = tile.partition %y : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
  %rows = tile.num_tiles %py, 0 : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
  tile.grid %rows
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x4096xf16, tile = [1, 4096]> -> tensor<1x4096xf16>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x4096xf16, tile = [1, 4096]>
  tile.store %t, %b : tensor<1x4096xf16>, !tile.owned<out, 1x4096xf16>
  tile.return
}

// 2. RMSNorm, 16 rows per program, partial last block (ceil-div grid).
// expected-remark @+1 {{kernel @rmsnorm_rows16: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 3 launch-contract rules, 0 unchecked regions}}
tile.kernel @rmsnorm_rows16(%x: !tile.view<in, ?x4096xbf16>, %w: !tile.view<in, 4096xbf16>,
                            %y: !tile.view<out, ?x4096xbf16>, %eps: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x4096xbf16, tile = [16, 4096]>
  %py = tile.partition %y : !tile.partition<out, ?x4096xbf16, tile = [16, 4096]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x4096xbf16, tile = [16, 4096]>
  tile.grid %n
  %rx = tile.dim %x, 0 : !tile.view<in, ?x4096xbf16>
  %ry = tile.dim %y, 0 : !tile.view<out, ?x4096xbf16>
  %same = arith.cmpi eq, %rx, %ry : index
  tile.assume %same, "x and y have the same rows"
  %xt = tile.load %px[%pid, %c0] : !tile.partition<in, ?x4096xbf16, tile = [16, 4096]> -> tensor<16x4096xbf16>
  %x32 = tile.convert %xt : tensor<16x4096xbf16> -> tensor<16x4096xf32>
  %sq = arith.mulf %x32, %x32 : tensor<16x4096xf32>
  %ss = tile.reduce %sq dim = 1 : (tensor<16x4096xf32>) -> tensor<16x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %e = tile.splat %eps : tensor<16x1xf32>
  %v = arith.addf %ss, %e : tensor<16x1xf32>
  %r = math.rsqrt %v : tensor<16x1xf32>
  %rb = tile.broadcast %r : tensor<16x1xf32> -> tensor<16x4096xf32>
  %o = arith.mulf %x32, %rb : tensor<16x4096xf32>
  %oh = tile.convert %o : tensor<16x4096xf32> -> tensor<16x4096xbf16>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x4096xbf16, tile = [16, 4096]>
  tile.store %oh, %b : tensor<16x4096xbf16>, !tile.owned<out, 16x4096xbf16>
  tile.return
}

// 3. Fused residual add + RMSNorm: one program owns a block of two outputs,
// one of them read back in place (inout).
// expected-remark @+1 {{kernel @add_rmsnorm: 2 claims, 2 claim pairs proven disjoint, 2 claims in bounds, 0 sub-tile accesses in bounds, 4 launch-contract rules, 0 unchecked regions}}
tile.kernel @add_rmsnorm(%x: !tile.view<in, ?x1024xf16>, %res: !tile.view<inout, ?x1024xf16>,
                         %y: !tile.view<out, ?x1024xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x1024xf16, tile = [1, 1024]>
  %pr = tile.partition %res : !tile.partition<inout, ?x1024xf16, tile = [1, 1024]>
  %py = tile.partition %y : !tile.partition<out, ?x1024xf16, tile = [1, 1024]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x1024xf16, tile = [1, 1024]>
  tile.grid %n
  %ny = tile.dim %y, 0 : !tile.view<out, ?x1024xf16>
  %nr = tile.dim %res, 0 : !tile.view<inout, ?x1024xf16>
  %same = arith.cmpi eq, %ny, %nr : index
  tile.assume %same, "residual and output have the same rows"
  %xt = tile.load %px[%pid, %c0] : !tile.partition<in, ?x1024xf16, tile = [1, 1024]> -> tensor<1x1024xf16>
  %rb = tile.own %pr[%pid, %c0] : !tile.partition<inout, ?x1024xf16, tile = [1, 1024]>
  %rt = tile.load %rb : !tile.owned<inout, 1x1024xf16> -> tensor<1x1024xf16>
  %sum = arith.addf %xt, %rt : tensor<1x1024xf16>
  tile.store %sum, %rb : tensor<1x1024xf16>, !tile.owned<inout, 1x1024xf16>
  %yb = tile.own %py[%pid, %c0] : !tile.partition<out, ?x1024xf16, tile = [1, 1024]>
  tile.store %sum, %yb : tensor<1x1024xf16>, !tile.owned<out, 1x1024xf16>
  tile.return
}

// 4. GEMV y = W x: a program owns 4 outputs and loops over K.
// expected-remark @+1 {{kernel @gemv: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @gemv(%w: !tile.view<in, ?x4096xf16>, %x: !tile.view<in, 4096xf16>, %y: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [4, 512]>
  %px = tile.partition %x : !tile.partition<in, 4096xf16, tile = [512]>
  %py = tile.partition %y : !tile.partition<out, ?xf16, tile = [4]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf16, tile = [4]>
  tile.grid %n
  %zero = arith.constant dense<0.0> : tensor<4x1xf32>
  %acc = scf.for %k = %c0 to %c8 step %c1 iter_args(%a = %zero) -> tensor<4x1xf32> {
    %wt = tile.load %pw[%pid, %k] : !tile.partition<in, ?x4096xf16, tile = [4, 512]> -> tensor<4x512xf16>
    %xt = tile.load %px[%k] : !tile.partition<in, 4096xf16, tile = [512]> -> tensor<512xf16>
    %xr = tile.reshape %xt : tensor<512xf16> -> tensor<1x512xf16>
    %xb = tile.broadcast %xr : tensor<1x512xf16> -> tensor<4x512xf16>
    %p = arith.mulf %wt, %xb : tensor<4x512xf16>
    %p32 = tile.convert %p : tensor<4x512xf16> -> tensor<4x512xf32>
    %s = tile.reduce %p32 dim = 1 : (tensor<4x512xf32>) -> tensor<4x1xf32> {
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      tile.yield %t : f32
    }
    %a2 = arith.addf %a, %s : tensor<4x1xf32>
    scf.yield %a2 : tensor<4x1xf32>
  }
  %o = tile.reshape %acc : tensor<4x1xf32> -> tensor<4xf32>
  %oh = tile.convert %o : tensor<4xf32> -> tensor<4xf16>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf16, tile = [4]>
  tile.store %oh, %b : tensor<4xf16>, !tile.owned<out, 4xf16>
  tile.return
}

// 5. Split-K GEMV partials: a 2-D grid (row block, K split).
// expected-remark @+1 {{kernel @gemv_splitk: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @gemv_splitk(%w: !tile.view<in, ?x4096xf16>, %part: !tile.view<out, 8x?xf32, strides = [?, 1]>) {
  %n = tile.program_id x
  %ks = tile.program_id y
  %c0 = arith.constant 0 : index
  %pw = tile.partition %w : !tile.partition<in, ?x4096xf16, tile = [16, 512]>
  %pp = tile.partition %part : !tile.partition<out, 8x?xf32, strides = [?, 1], tile = [1, 16]>
  %nb = tile.num_tiles %pp, 1 : !tile.partition<out, 8x?xf32, strides = [?, 1], tile = [1, 16]>
  %c8 = arith.constant 8 : index
  tile.grid %nb, %c8
  %wt = tile.load %pw[%n, %ks] : !tile.partition<in, ?x4096xf16, tile = [16, 512]> -> tensor<16x512xf16>
  %w32 = tile.convert %wt : tensor<16x512xf16> -> tensor<16x512xf32>
  %s = tile.reduce %w32 dim = 1 : (tensor<16x512xf32>) -> tensor<16x1xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %st = tile.reshape %s : tensor<16x1xf32> -> tensor<1x16xf32>
  %b = tile.own %pp[%ks, %n] : !tile.partition<out, 8x?xf32, strides = [?, 1], tile = [1, 16]>
  tile.store %st, %b : tensor<1x16xf32>, !tile.owned<out, 1x16xf32>
  tile.return
}

// 6. GEMM with a K loop and tile.dot on a 2-D grid.
// expected-remark @+1 {{kernel @gemm_2d: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 3 launch-contract rules, 0 unchecked regions}}
tile.kernel @gemm_2d(%a: !tile.view<in, ?x?xf16, strides = [?, 1]>, %b: !tile.view<in, ?x?xf16, strides = [?, 1]>,
                     %c: !tile.view<out, ?x?xf32, strides = [?, 1]>) {
  %m = tile.program_id x
  %n = tile.program_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition %a : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [128, 64]>
  %pb = tile.partition %b : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 128]>
  %pc = tile.partition %c : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [128, 128]>
  %tm = tile.num_tiles %pc, 0 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [128, 128]>
  %tn = tile.num_tiles %pc, 1 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [128, 128]>
  tile.grid %tm, %tn
  %tk = tile.num_tiles %pa, 1 : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [128, 64]>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %tk step %c1 iter_args(%acc0 = %zero) -> tensor<128x128xf32> {
    %at = tile.load %pa[%m, %k] : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [128, 64]> -> tensor<128x64xf16>
    %bt = tile.load %pb[%k, %n] : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [64, 128]> -> tensor<64x128xf16>
    %d = tile.dot %at, %bt, %acc0 : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %blk = tile.own %pc[%m, %n] : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [128, 128]>
  tile.store %acc, %blk : tensor<128x128xf32>, !tile.owned<out, 128x128xf32>
  tile.return
}

// 7. Grouped (swizzled) GEMM tile order: a bijection from a 1-D grid onto
// (m, n) tiles, groups of 8 row blocks; N = 4096 (32 column tiles) and the
// number of row tiles a multiple of 8 (checked at launch).
// expected-remark @+1 {{kernel @gemm_grouped: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @gemm_grouped(%a: !tile.view<in, ?x4096xf16>, %c: !tile.view<out, ?x4096xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  %pc = tile.partition %c : !tile.partition<out, ?x4096xf16, tile = [128, 128]>
  %tm = tile.num_tiles %pc, 0 : !tile.partition<out, ?x4096xf16, tile = [128, 128]>
  %r = arith.remui %tm, %c8 : index
  %whole = arith.cmpi eq, %r, %c0 : index
  tile.assume %whole, "row tiles come in whole groups of 8"
  %c32 = arith.constant 32 : index
  %total = arith.muli %tm, %c32 : index
  tile.grid %total
  // group = pid / (8 * 32); m = group * 8 + pid % 8; n = (pid % 256) / 8
  %group = arith.divui %pid, %c256 : index
  %first = arith.muli %group, %c8 : index
  %inm = arith.remui %pid, %c8 : index
  %m = arith.addi %first, %inm : index
  %ing = arith.remui %pid, %c256 : index
  %n = arith.divui %ing, %c8 : index
  %v = arith.constant dense<0.0> : tensor<128x128xf16>
  %blk = tile.own %pc[%m, %n] : !tile.partition<out, ?x4096xf16, tile = [128, 128]>
  tile.store %v, %blk : tensor<128x128xf16>, !tile.owned<out, 128x128xf16>
  tile.return
}

// 8. A loop stores the sub-tiles of the owned block one by one.
// expected-remark @+1 {{kernel @subtile_loop: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 1 sub-tile accesses in bounds, 0 launch-contract rules, 0 unchecked regions}}
tile.kernel @subtile_loop(%y: !tile.view<out, ?x256xf32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %py = tile.partition %y : !tile.partition<out, ?x256xf32, tile = [64, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf32, tile = [64, 256]>
  tile.grid %n
  %blk = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf32, tile = [64, 256]>
  %v = tile.splat %s : tensor<64x64xf32>
  scf.for %j = %c0 to %c4 step %c1 {
    tile.store %v, %blk[%c0, %j] : tensor<64x64xf32>, !tile.owned<out, 64x256xf32>
  }
  tile.return
}

// 9. Nested loops over 32x32 sub-tiles of a 64x128 block, step 2 on the
// inner loop (strided sub-tile walk).
// expected-remark @+1 {{kernel @nested_subtiles: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 1 sub-tile accesses in bounds, 0 launch-contract rules, 0 unchecked regions}}
tile.kernel @nested_subtiles(%y: !tile.view<out, 256x128xf32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tile.grid %c4
  %py = tile.partition %y : !tile.partition<out, 256x128xf32, tile = [64, 128]>
  %blk = tile.own %py[%pid, %c0] : !tile.partition<out, 256x128xf32, tile = [64, 128]>
  %v = tile.splat %s : tensor<32x32xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c1 to %c4 step %c2 {
      tile.store %v, %blk[%i, %j] : tensor<32x32xf32>, !tile.owned<out, 64x128xf32>
    }
  }
  tile.return
}

// 10. Read-modify-write of sub-tiles of an owned inout block.
// expected-remark @+1 {{kernel @inout_subtiles: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 2 sub-tile accesses in bounds, 0 launch-contract rules, 0 unchecked regions}}
tile.kernel @inout_subtiles(%y: !tile.view<inout, ?x512xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %py = tile.partition %y : !tile.partition<inout, ?x512xf32, tile = [1, 512]>
  %n = tile.num_tiles %py, 0 : !tile.partition<inout, ?x512xf32, tile = [1, 512]>
  tile.grid %n
  %blk = tile.own %py[%pid, %c0] : !tile.partition<inout, ?x512xf32, tile = [1, 512]>
  scf.for %j = %c0 to %c4 step %c1 {
    %t = tile.load %blk[%c0, %j] : !tile.owned<inout, 1x512xf32> -> tensor<1x128xf32>
    %t2 = arith.addf %t, %t : tensor<1x128xf32>
    tile.store %t2, %blk[%c0, %j] : tensor<1x128xf32>, !tile.owned<inout, 1x512xf32>
  }
  tile.return
}

// 11. Causal flash attention (prefill): grid (query blocks, heads); the KV
// loop stops at the diagonal; K and V are shared, read-only.
// expected-remark @+1 {{kernel @flash_attention_causal: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 3 launch-contract rules, 0 unchecked regions}}
tile.kernel @flash_attention_causal(%q: !tile.view<in, ?x4096xf16>, %k: !tile.view<in, ?x1024xf16>,
                                    %v: !tile.view<in, ?x1024xf16>, %o: !tile.view<out, ?x4096xf16>) {
  %qb = tile.program_id x
  %h = tile.program_id y
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %pq = tile.partition %q : !tile.partition<in, ?x4096xf16, tile = [64, 128]>
  %pk = tile.partition %k : !tile.partition<in, ?x1024xf16, tile = [64, 128]>
  %pv = tile.partition %v : !tile.partition<in, ?x1024xf16, tile = [64, 128]>
  %po = tile.partition %o : !tile.partition<out, ?x4096xf16, tile = [64, 128]>
  %nq = tile.num_tiles %po, 0 : !tile.partition<out, ?x4096xf16, tile = [64, 128]>
  tile.grid %nq, %c32
  // GQA: 32 query heads share 8 KV heads.
  %kvh = arith.divui %h, %c4 : index
  %qt = tile.load %pq[%qb, %h] : !tile.partition<in, ?x4096xf16, tile = [64, 128]> -> tensor<64x128xf16>
  %end = arith.addi %qb, %c1 : index
  %mi = arith.constant dense<0xFF800000> : tensor<64x1xf32>
  %li = arith.constant dense<0.0> : tensor<64x1xf32>
  %ai = arith.constant dense<0.0> : tensor<64x128xf32>
  %r:3 = scf.for %j = %c0 to %end step %c1 iter_args(%m = %mi, %l = %li, %acc = %ai) -> (tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x128xf32>) {
    %kt = tile.load %pk[%j, %kvh] : !tile.partition<in, ?x1024xf16, tile = [64, 128]> -> tensor<64x128xf16>
    %vt = tile.load %pv[%j, %kvh] : !tile.partition<in, ?x1024xf16, tile = [64, 128]> -> tensor<64x128xf16>
    %ktt = tile.permute %kt [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %s = tile.dot %qt, %ktt, %z : tensor<64x128xf16>, tensor<128x64xf16> -> tensor<64x64xf32>
    // Causal mask on the diagonal block: column > row -> -inf.
    %ri = tile.iota : tensor<64xi32>
    %rr = tile.reshape %ri : tensor<64xi32> -> tensor<64x1xi32>
    %rb = tile.broadcast %rr : tensor<64x1xi32> -> tensor<64x64xi32>
    %cr = tile.reshape %ri : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tile.broadcast %cr : tensor<1x64xi32> -> tensor<64x64xi32>
    %diag = arith.cmpi eq, %j, %qb : index
    %upper = arith.cmpi sgt, %cb, %rb : tensor<64x64xi32>
    %dg = tile.splat %diag : tensor<64x64xi1>
    %mask = arith.andi %upper, %dg : tensor<64x64xi1>
    %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32>
    %sm = arith.select %mask, %ninf, %s : tensor<64x64xi1>, tensor<64x64xf32>
    %bm = tile.reduce %sm dim = 1 : (tensor<64x64xf32>) -> tensor<64x1xf32> {
    ^bb0(%x0: f32, %x1: f32):
      %mx = arith.maximumf %x0, %x1 : f32
      tile.yield %mx : f32
    }
    %mn = arith.maximumf %m, %bm : tensor<64x1xf32>
    %mnb = tile.broadcast %mn : tensor<64x1xf32> -> tensor<64x64xf32>
    %sc = arith.subf %sm, %mnb : tensor<64x64xf32>
    %p = math.exp %sc : tensor<64x64xf32>
    %ps = tile.reduce %p dim = 1 : (tensor<64x64xf32>) -> tensor<64x1xf32> {
    ^bb0(%x0: f32, %x1: f32):
      %sx = arith.addf %x0, %x1 : f32
      tile.yield %sx : f32
    }
    %dm = arith.subf %m, %mn : tensor<64x1xf32>
    %alpha = math.exp %dm : tensor<64x1xf32>
    %l2 = arith.mulf %l, %alpha : tensor<64x1xf32>
    %l3 = arith.addf %l2, %ps : tensor<64x1xf32>
    %ab = tile.broadcast %alpha : tensor<64x1xf32> -> tensor<64x128xf32>
    %acc2 = arith.mulf %acc, %ab : tensor<64x128xf32>
    %ph = tile.convert %p : tensor<64x64xf32> -> tensor<64x64xf16>
    %acc3 = tile.dot %ph, %vt, %acc2 : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %mn, %l3, %acc3 : tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x128xf32>
  }
  %lb = tile.broadcast %r#1 : tensor<64x1xf32> -> tensor<64x128xf32>
  %out = arith.divf %r#2, %lb : tensor<64x128xf32>
  %oh = tile.convert %out : tensor<64x128xf32> -> tensor<64x128xf16>
  %blk = tile.own %po[%qb, %h] : !tile.partition<out, ?x4096xf16, tile = [64, 128]>
  tile.store %oh, %blk : tensor<64x128xf16>, !tile.owned<out, 64x128xf16>
  tile.return
}

// 12. Split-K decode attention: grid (heads, splits); each program owns its
// partial output and its log-sum-exp, two outputs.
// expected-remark @+1 {{kernel @decode_attention_split: 2 claims, 2 claim pairs proven disjoint, 2 claims in bounds, 0 sub-tile accesses in bounds, 6 launch-contract rules, 0 unchecked regions}}
tile.kernel @decode_attention_split(%q: !tile.view<in, 32x128xf16>, %kc: !tile.view<in, ?x8x128xf16>,
                                    %po: !tile.view<out, 32x16x128xf32>, %plse: !tile.view<out, 32x16xf32>,
                                    %len: index) {
  %h = tile.program_id x
  %s = tile.program_id y
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  tile.grid %c32, %c16
  %cap = tile.dim %kc, 0 : !tile.view<in, ?x8x128xf16>
  %fits = arith.cmpi ule, %len, %cap : index
  tile.assume %fits, "the KV length fits the cache"
  %kvh = arith.divui %h, %c4 : index
  %pk = tile.partition %kc : !tile.partition<in, ?x8x128xf16, tile = [64, 1, 128]>
  %kt = tile.load %pk[%s, %kvh, %c0] : !tile.partition<in, ?x8x128xf16, tile = [64, 1, 128]> -> tensor<64x1x128xf16>
  %k32 = tile.convert %kt : tensor<64x1x128xf16> -> tensor<64x1x128xf32>
  %k2 = tile.reshape %k32 : tensor<64x1x128xf32> -> tensor<64x128xf32>
  %acc = tile.reduce %k2 dim = 0 : (tensor<64x128xf32>) -> tensor<1x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  %lse = tile.reduce %acc dim = 1 : (tensor<1x128xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.maximumf %a, %b : f32
    tile.yield %t : f32
  }
  %ppo = tile.partition %po : !tile.partition<out, 32x16x128xf32, tile = [1, 1, 128]>
  %pl = tile.partition %plse : !tile.partition<out, 32x16xf32, tile = [1, 1]>
  %o3 = tile.reshape %acc : tensor<1x128xf32> -> tensor<1x1x128xf32>
  %ob = tile.own %ppo[%h, %s, %c0] : !tile.partition<out, 32x16x128xf32, tile = [1, 1, 128]>
  tile.store %o3, %ob : tensor<1x1x128xf32>, !tile.owned<out, 1x1x128xf32>
  %lb = tile.own %pl[%h, %s] : !tile.partition<out, 32x16xf32, tile = [1, 1]>
  tile.store %lse, %lb : tensor<1x1xf32>, !tile.owned<out, 1x1xf32>
  tile.return
}

// 13. The merge kernel of split-K decode attention: one program per head
// reads all 16 partials and owns one output row.
// expected-remark @+1 {{kernel @decode_attention_merge: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @decode_attention_merge(%po: !tile.view<in, 32x16x128xf32>, %plse: !tile.view<in, 32x16xf32>,
                                    %o: !tile.view<out, 32x128xf16>) {
  %h = tile.program_id x
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tile.grid %c32
  %ppo = tile.partition %po : !tile.partition<in, 32x16x128xf32, tile = [1, 16, 128]>
  %pl = tile.partition %plse : !tile.partition<in, 32x16xf32, tile = [1, 16]>
  %parts = tile.load %ppo[%h, %c0, %c0] : !tile.partition<in, 32x16x128xf32, tile = [1, 16, 128]> -> tensor<1x16x128xf32>
  %lses = tile.load %pl[%h, %c0] : !tile.partition<in, 32x16xf32, tile = [1, 16]> -> tensor<1x16xf32>
  %p2 = tile.reshape %parts : tensor<1x16x128xf32> -> tensor<16x128xf32>
  %l2 = tile.reshape %lses : tensor<1x16xf32> -> tensor<16x1xf32>
  %w = math.exp %l2 : tensor<16x1xf32>
  %wb = tile.broadcast %w : tensor<16x1xf32> -> tensor<16x128xf32>
  %x = arith.mulf %p2, %wb : tensor<16x128xf32>
  %sum = tile.reduce %x dim = 0 : (tensor<16x128xf32>) -> tensor<1x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  %oh = tile.convert %sum : tensor<1x128xf32> -> tensor<1x128xf16>
  %pout = tile.partition %o : !tile.partition<out, 32x128xf16, tile = [1, 128]>
  %b = tile.own %pout[%h, %c0] : !tile.partition<out, 32x128xf16, tile = [1, 128]>
  tile.store %oh, %b : tensor<1x128xf16>, !tile.owned<out, 1x128xf16>
  tile.return
}

// 14. KV-cache write at a position given as a scalar argument: grid over KV
// heads; the bound on pos is a launch-contract rule and a hypothesis.
// expected-remark @+1 {{kernel @kv_write_scalar_pos: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @kv_write_scalar_pos(%k: !tile.view<in, 8x128xf16>, %cache: !tile.view<inout, ?x8x128xf16>, %pos: i32) {
  %h = tile.program_id x
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tile.grid %c8
  %p = arith.index_cast %pos : i32 to index
  %cap = tile.dim %cache, 0 : !tile.view<inout, ?x8x128xf16>
  %lo = arith.cmpi sge, %p, %c0 : index
  %hi = arith.cmpi slt, %p, %cap : index
  %ok = arith.andi %lo, %hi : i1
  tile.assume %ok, "0 <= pos < cache length"
  %pk = tile.partition %k : !tile.partition<in, 8x128xf16, tile = [1, 128]>
  %row = tile.load %pk[%h, %c0] : !tile.partition<in, 8x128xf16, tile = [1, 128]> -> tensor<1x128xf16>
  %r3 = tile.reshape %row : tensor<1x128xf16> -> tensor<1x1x128xf16>
  %pc = tile.partition %cache : !tile.partition<inout, ?x8x128xf16, tile = [1, 1, 128]>
  %b = tile.own %pc[%p, %h, %c0] : !tile.partition<inout, ?x8x128xf16, tile = [1, 1, 128]>
  tile.store %r3, %b : tensor<1x1x128xf16>, !tile.owned<inout, 1x1x128xf16>
  tile.return
}

// 15. KV-cache write at a position read from device memory (as in a replayed
// decode graph): the value is uniform (every program reads the same element
// of an `in` view), so all programs agree on it; only its range is unknown.
// The index-space check is what a clamp satisfies.
// expected-remark @+1 {{kernel @kv_write_device_pos: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @kv_write_device_pos(%k: !tile.view<in, 8x128xf16>, %cache: !tile.view<inout, 4096x8x128xf16>,
                                 %posbuf: !tile.view<in, 1xi32>) {
  %h = tile.program_id x
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c4095 = arith.constant 4095 : index
  tile.grid %c8
  %pp = tile.partition %posbuf : !tile.partition<in, 1xi32, tile = [1]>
  %pt = tile.load %pp[%c0] : !tile.partition<in, 1xi32, tile = [1]> -> tensor<1xi32>
  %pv = tile.extract %pt [0] : tensor<1xi32>
  %pi = arith.index_cast %pv : i32 to index
  %p1 = arith.maxsi %pi, %c0 : index
  %p = arith.minsi %p1, %c4095 : index
  %pk = tile.partition %k : !tile.partition<in, 8x128xf16, tile = [1, 128]>
  %row = tile.load %pk[%h, %c0] : !tile.partition<in, 8x128xf16, tile = [1, 128]> -> tensor<1x128xf16>
  %r3 = tile.reshape %row : tensor<1x128xf16> -> tensor<1x1x128xf16>
  %pc = tile.partition %cache : !tile.partition<inout, 4096x8x128xf16, tile = [1, 1, 128]>
  %b = tile.own %pc[%p, %h, %c0] : !tile.partition<inout, 4096x8x128xf16, tile = [1, 1, 128]>
  tile.store %r3, %b : tensor<1x1x128xf16>, !tile.owned<inout, 1x1x128xf16>
  tile.return
}

// 16. Embedding gather: one program per token; a bad token id reads
// padding, never foreign memory.
// expected-remark @+1 {{kernel @embedding: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 3 launch-contract rules, 0 unchecked regions}}
tile.kernel @embedding(%ids: !tile.view<in, ?xi32>, %table: !tile.view<in, 151936x1024xbf16>,
                       %out: !tile.view<out, ?x1024xbf16>) {
  %t = tile.program_id x
  %c0 = arith.constant 0 : index
  %po = tile.partition %out : !tile.partition<out, ?x1024xbf16, tile = [1, 1024]>
  %n = tile.num_tiles %po, 0 : !tile.partition<out, ?x1024xbf16, tile = [1, 1024]>
  tile.grid %n
  %ni = tile.dim %ids, 0 : !tile.view<in, ?xi32>
  %same = arith.cmpi eq, %ni, %n : index
  tile.assume %same, "one output row per token"
  %pi = tile.partition %ids : !tile.partition<in, ?xi32, tile = [1]>
  %id = tile.load %pi[%t] : !tile.partition<in, ?xi32, tile = [1]> -> tensor<1xi32>
  %pt = tile.partition %table : !tile.partition<in, 151936x1024xbf16, tile = [1, 1024]>
  %row = tile.gather %pt[%id, %c0] : !tile.partition<in, 151936x1024xbf16, tile = [1, 1024]>, tensor<1xi32> -> tensor<1x1024xbf16>
  %b = tile.own %po[%t, %c0] : !tile.partition<out, ?x1024xbf16, tile = [1, 1024]>
  tile.store %row, %b : tensor<1x1024xbf16>, !tile.owned<out, 1x1024xbf16>
  tile.return
}

// 17. Two-level argmax, stage 1: each program reduces a chunk of 4096
// logits to a (value, index) pair; two outputs.
// expected-remark @+1 {{kernel @argmax_stage1: 2 claims, 2 claim pairs proven disjoint, 2 claims in bounds, 0 sub-tile accesses in bounds, 3 launch-contract rules, 0 unchecked regions}}
tile.kernel @argmax_stage1(%logits: !tile.view<in, 151936xf32>, %vals: !tile.view<out, 38xf32>,
                           %idxs: !tile.view<out, 38xi32>) {
  %pid = tile.program_id x
  %c38 = arith.constant 38 : index
  tile.grid %c38
  %pl = tile.partition %logits : !tile.partition<in, 151936xf32, tile = [4096]>
  %x = tile.load %pl[%pid] padding = 0xFF800000 : f32 : !tile.partition<in, 151936xf32, tile = [4096]> -> tensor<4096xf32>
  %i = tile.iota : tensor<4096xi32>
  %base = arith.index_cast %pid : index to i32
  %c4096 = arith.constant 4096 : i32
  %off = arith.muli %base, %c4096 : i32
  %offs = tile.splat %off : tensor<4096xi32>
  %gi = arith.addi %i, %offs : tensor<4096xi32>
  %mv, %mi = tile.reduce %x, %gi dim = 0 : (tensor<4096xf32>, tensor<4096xi32>) -> (tensor<1xf32>, tensor<1xi32>) {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %eq = arith.cmpf oeq, %bv, %av : f32
    %lt = arith.cmpi slt, %bi, %ai : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %rv = arith.select %take, %bv, %av : f32
    %ri = arith.select %take, %bi, %ai : i32
    tile.yield %rv, %ri : f32, i32
  }
  %pv = tile.partition %vals : !tile.partition<out, 38xf32, tile = [1]>
  %px = tile.partition %idxs : !tile.partition<out, 38xi32, tile = [1]>
  %bv = tile.own %pv[%pid] : !tile.partition<out, 38xf32, tile = [1]>
  tile.store %mv, %bv : tensor<1xf32>, !tile.owned<out, 1xf32>
  %bi = tile.own %px[%pid] : !tile.partition<out, 38xi32, tile = [1]>
  tile.store %mi, %bi : tensor<1xi32>, !tile.owned<out, 1xi32>
  tile.return
}

// 18. Two-level argmax, stage 2: a single program reads the 38 partials.
// expected-remark @+1 {{kernel @argmax_stage2: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @argmax_stage2(%vals: !tile.view<in, 38xf32>, %idxs: !tile.view<in, 38xi32>, %token: !tile.view<out, 1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pv = tile.partition %vals : !tile.partition<in, 38xf32, tile = [64]>
  %pi = tile.partition %idxs : !tile.partition<in, 38xi32, tile = [64]>
  %v = tile.load %pv[%c0] padding = 0xFF800000 : f32 : !tile.partition<in, 38xf32, tile = [64]> -> tensor<64xf32>
  %i = tile.load %pi[%c0] : !tile.partition<in, 38xi32, tile = [64]> -> tensor<64xi32>
  %mv, %mi = tile.reduce %v, %i dim = 0 : (tensor<64xf32>, tensor<64xi32>) -> (tensor<1xf32>, tensor<1xi32>) {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %rv = arith.select %gt, %bv, %av : f32
    %ri = arith.select %gt, %bi, %ai : i32
    tile.yield %rv, %ri : f32, i32
  }
  %pt = tile.partition %token : !tile.partition<out, 1xi32, tile = [1]>
  %b = tile.own %pt[%c0] : !tile.partition<out, 1xi32, tile = [1]>
  tile.store %mi, %b : tensor<1xi32>, !tile.owned<out, 1xi32>
  tile.return
}

// 19. SwiGLU over a flat 1-D view in blocks of 1024.
// expected-remark @+1 {{kernel @swiglu: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 3 launch-contract rules, 0 unchecked regions}}
tile.kernel @swiglu(%gate: !tile.view<in, ?xf16>, %up: !tile.view<in, ?xf16>, %out: !tile.view<out, ?xf16>) {
  %pid = tile.program_id x
  %po = tile.partition %out : !tile.partition<out, ?xf16, tile = [1024]>
  %n = tile.num_tiles %po, 0 : !tile.partition<out, ?xf16, tile = [1024]>
  tile.grid %n
  %ng = tile.dim %gate, 0 : !tile.view<in, ?xf16>
  %no = tile.dim %out, 0 : !tile.view<out, ?xf16>
  %same = arith.cmpi eq, %ng, %no : index
  tile.assume %same, "gate and out have the same length"
  %pg = tile.partition %gate : !tile.partition<in, ?xf16, tile = [1024]>
  %pu = tile.partition %up : !tile.partition<in, ?xf16, tile = [1024]>
  %g = tile.load %pg[%pid] : !tile.partition<in, ?xf16, tile = [1024]> -> tensor<1024xf16>
  %u = tile.load %pu[%pid] : !tile.partition<in, ?xf16, tile = [1024]> -> tensor<1024xf16>
  %g32 = tile.convert %g : tensor<1024xf16> -> tensor<1024xf32>
  %ng32 = arith.negf %g32 : tensor<1024xf32>
  %e = math.exp %ng32 : tensor<1024xf32>
  %one = arith.constant dense<1.0> : tensor<1024xf32>
  %d = arith.addf %one, %e : tensor<1024xf32>
  %silu = arith.divf %g32, %d : tensor<1024xf32>
  %u32 = tile.convert %u : tensor<1024xf16> -> tensor<1024xf32>
  %r = arith.mulf %silu, %u32 : tensor<1024xf32>
  %rh = tile.convert %r : tensor<1024xf32> -> tensor<1024xf16>
  %b = tile.own %po[%pid] : !tile.partition<out, ?xf16, tile = [1024]>
  tile.store %rh, %b : tensor<1024xf16>, !tile.owned<out, 1024xf16>
  tile.return
}

// 20. A 2-D grid over a 2-D elementwise op; column-major strides of the
// output checked at launch.
// expected-remark @+1 {{kernel @elementwise_2d: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @elementwise_2d(%x: !tile.view<in, ?x?xf32, strides = [?, 1]>, %y: !tile.view<out, ?x?xf32, strides = [1, ?]>) {
  %i = tile.program_id x
  %j = tile.program_id y
  %px = tile.partition %x : !tile.partition<in, ?x?xf32, strides = [?, 1], tile = [32, 32]>
  %py = tile.partition %y : !tile.partition<out, ?x?xf32, strides = [1, ?], tile = [32, 32]>
  %ni = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf32, strides = [1, ?], tile = [32, 32]>
  %nj = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf32, strides = [1, ?], tile = [32, 32]>
  tile.grid %ni, %nj
  %t = tile.load %px[%i, %j] : !tile.partition<in, ?x?xf32, strides = [?, 1], tile = [32, 32]> -> tensor<32x32xf32>
  %e = math.exp %t : tensor<32x32xf32>
  %b = tile.own %py[%i, %j] : !tile.partition<out, ?x?xf32, strides = [1, ?], tile = [32, 32]>
  tile.store %e, %b : tensor<32x32xf32>, !tile.owned<out, 32x32xf32>
  tile.return
}

// 21. Transposed program mapping: program (x, y) owns block (y, x).
// expected-remark @+1 {{kernel @transpose_map: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 1 launch-contract rules, 0 unchecked regions}}
tile.kernel @transpose_map(%x: !tile.view<in, 512x256xf32>, %y: !tile.view<out, 256x512xf32>) {
  %bx = tile.program_id x
  %by = tile.program_id y
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  // y is 256x512 in 64x64 blocks: 4 row blocks, 8 column blocks.
  tile.grid %c8, %c4
  %px = tile.partition %x : !tile.partition<in, 512x256xf32, tile = [64, 64]>
  %t = tile.load %px[%bx, %by] : !tile.partition<in, 512x256xf32, tile = [64, 64]> -> tensor<64x64xf32>
  %tt = tile.permute %t [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %py = tile.partition %y : !tile.partition<out, 256x512xf32, tile = [64, 64]>
  %b = tile.own %py[%by, %bx] : !tile.partition<out, 256x512xf32, tile = [64, 64]>
  tile.store %tt, %b : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// 22. QK-norm + RoPE per head: grid (tokens, heads), rotate-half with slices.
// expected-remark @+1 {{kernel @qk_norm_rope: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 2 launch-contract rules, 0 unchecked regions}}
tile.kernel @qk_norm_rope(%q: !tile.view<in, ?x4096xbf16>, %cos: !tile.view<in, ?x128xf32>,
                          %qo: !tile.view<out, ?x4096xbf16>) {
  %t = tile.program_id x
  %h = tile.program_id y
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %po = tile.partition %qo : !tile.partition<out, ?x4096xbf16, tile = [1, 128]>
  %nt = tile.num_tiles %po, 0 : !tile.partition<out, ?x4096xbf16, tile = [1, 128]>
  tile.grid %nt, %c32
  %pq = tile.partition %q : !tile.partition<in, ?x4096xbf16, tile = [1, 128]>
  %pc = tile.partition %cos : !tile.partition<in, ?x128xf32, tile = [1, 128]>
  %x = tile.load %pq[%t, %h] : !tile.partition<in, ?x4096xbf16, tile = [1, 128]> -> tensor<1x128xbf16>
  %c = tile.load %pc[%t, %c0] : !tile.partition<in, ?x128xf32, tile = [1, 128]> -> tensor<1x128xf32>
  %x32 = tile.convert %x : tensor<1x128xbf16> -> tensor<1x128xf32>
  %lo = tile.slice %x32 [0, 0] : tensor<1x128xf32> -> tensor<1x64xf32>
  %hi = tile.slice %x32 [0, 64] : tensor<1x128xf32> -> tensor<1x64xf32>
  %nhi = arith.negf %hi : tensor<1x64xf32>
  %rot = tile.concat %nhi, %lo dim = 1 : tensor<1x64xf32>, tensor<1x64xf32> -> tensor<1x128xf32>
  %a = arith.mulf %x32, %c : tensor<1x128xf32>
  %b2 = arith.mulf %rot, %c : tensor<1x128xf32>
  %r = arith.addf %a, %b2 : tensor<1x128xf32>
  %rb = tile.convert %r : tensor<1x128xf32> -> tensor<1x128xbf16>
  %blk = tile.own %po[%t, %h] : !tile.partition<out, ?x4096xbf16, tile = [1, 128]>
  tile.store %rb, %blk : tensor<1x128xbf16>, !tile.owned<out, 1x128xbf16>
  tile.return
}

// 23. A 3-D grid: (column block, row block, batch).
// expected-remark @+1 {{kernel @batched_3d: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 0 launch-contract rules, 0 unchecked regions}}
tile.kernel @batched_3d(%y: !tile.view<out, ?x64x256xf16>, %s: f16) {
  %n = tile.program_id x
  %m = tile.program_id y
  %b = tile.program_id z
  %c4 = arith.constant 4 : index
  %py = tile.partition %y : !tile.partition<out, ?x64x256xf16, tile = [1, 16, 64]>
  %nb = tile.num_tiles %py, 0 : !tile.partition<out, ?x64x256xf16, tile = [1, 16, 64]>
  tile.grid %c4, %c4, %nb
  %v = tile.splat %s : tensor<1x16x64xf16>
  %blk = tile.own %py[%b, %m, %n] : !tile.partition<out, ?x64x256xf16, tile = [1, 16, 64]>
  tile.store %v, %blk : tensor<1x16x64xf16>, !tile.owned<out, 1x16x64xf16>
  tile.return
}

// 24. A program claims several rows in a loop: rows 4*pid .. 4*pid+3.
// expected-remark @+1 {{kernel @rows_per_program_loop: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 1 launch-contract rules, 0 unchecked regions}}
tile.kernel @rows_per_program_loop(%y: !tile.view<out, ?x128xf32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %py = tile.partition %y : !tile.partition<out, ?x128xf32, tile = [1, 128]>
  %rows = tile.dim %y, 0 : !tile.view<out, ?x128xf32>
  %r4 = arith.remui %rows, %c4 : index
  %whole = arith.cmpi eq, %r4, %c0 : index
  tile.assume %whole, "rows is a multiple of 4"
  %g = arith.divui %rows, %c4 : index
  tile.grid %g
  %base = arith.muli %pid, %c4 : index
  %v = tile.splat %s : tensor<1x128xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.addi %base, %i : index
    %blk = tile.own %py[%r, %c0] : !tile.partition<out, ?x128xf32, tile = [1, 128]>
    tile.store %v, %blk : tensor<1x128xf32>, !tile.owned<out, 1x128xf32>
  }
  tile.return
}

// 25. A claim under a condition: over-approximated, still disjoint.
// expected-remark @+1 {{kernel @conditional_claim: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 0 launch-contract rules, 0 unchecked regions}}
tile.kernel @conditional_claim(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %py = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %r = arith.remui %pid, %c2 : index
  %even = arith.cmpi eq, %r, %c0 : index
  scf.if %even {
    %v = tile.splat %s : tensor<1x64xf32>
    %blk = tile.own %py[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
    tile.store %v, %blk : tensor<1x64xf32>, !tile.owned<out, 1x64xf32>
  }
  tile.return
}

// 26. Static shapes throughout; a constant grid that matches exactly.
// expected-remark @+1 {{kernel @static_shapes: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 1 launch-contract rules, 0 unchecked regions}}
tile.kernel @static_shapes(%x: !tile.view<in, 1000x64xf32>, %y: !tile.view<out, 1000x64xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  // ceildiv(1000, 128) = 8 blocks, the last one partial (masked).
  %c8 = arith.constant 8 : index
  tile.grid %c8
  %px = tile.partition %x : !tile.partition<in, 1000x64xf32, tile = [128, 64]>
  %py = tile.partition %y : !tile.partition<out, 1000x64xf32, tile = [128, 64]>
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, 1000x64xf32, tile = [128, 64]> -> tensor<128x64xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, 1000x64xf32, tile = [128, 64]>
  tile.store %t, %b : tensor<128x64xf32>, !tile.owned<out, 128x64xf32>
  tile.return
}

// 27. Unchecked code is exempt and counted; the checked claim is proven.
// The scatter through a permutation read from memory cannot be proven
// disjoint, so it is written as unchecked code.
// expected-remark @+1 {{kernel @with_unchecked: 1 claims, 1 claim pairs proven disjoint, 1 claims in bounds, 0 sub-tile accesses in bounds, 3 launch-contract rules, 1 unchecked regions}}
tile.kernel @with_unchecked(%y: !tile.view<out, ?x64xf32>, %z: !tile.view<out, ?x64xf32>,
                            %perm: !tile.view<in, ?xi32>, %s: f32) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %py = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.grid %n
  %v = tile.splat %s : tensor<1x64xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.store %v, %b : tensor<1x64xf32>, !tile.owned<out, 1x64xf32>
  %pp = tile.partition %perm : !tile.partition<in, ?xi32, tile = [1]>
  %t = tile.load %pp[%pid] : !tile.partition<in, ?xi32, tile = [1]> -> tensor<1xi32>
  %r = tile.extract %t [0] : tensor<1xi32>
  %ri = arith.index_cast %r : i32 to index
  %pz = tile.partition %z : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  tile.unchecked "scatter rows through a permutation" {
    tile.store %v, %pz[%ri, %c0] : tensor<1x64xf32>, !tile.partition<out, ?x64xf32, tile = [1, 64]>
  }
  tile.return
}
