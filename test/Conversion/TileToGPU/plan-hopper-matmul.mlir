// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-hopper-matmul | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-hopper-matmul --convert-tile-to-gpu | FileCheck %s --check-prefix=LOWER
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-hopper-matmul --convert-tile-to-gpu -verify-diagnostics -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=NONE

// The plan as IR: a tiled matmul gets tile.hopper_matmul, 8 stages of
// [64 + 128] x 64 bf16 by default.
// CHECK-LABEL: tile.kernel @matmul
// CHECK-SAME: tile.hopper_matmul = {bk = 64 : i64, bm = 64 : i64, bn = 128 : i64, consumers = 1 : i64, stages = 8 : i64}
// LOWER-LABEL: gpu.func @matmul
// LOWER-SAME: known_block_size = array<i32: 256, 1, 1>
// NONE-NOT: error
tile.kernel @matmul(%x: !tile.view<in, ?x?xbf16>, %w: !tile.view<in, ?x?xbf16>, %y: !tile.view<out, ?x?xbf16>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.grid %gm, %gn
  %px = tile.partition %x : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %pw = tile.partition %w : !tile.partition<in, ?x?xbf16, tile = [128, 64]>
  %nk = tile.num_tiles %px, 1 : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %z) -> tensor<64x128xf32> {
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xbf16, tile = [128, 64]> -> tensor<128x64xbf16>
    %wT = tile.permute %wt [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %wT, %a : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %o = tile.convert %acc : tensor<64x128xf32> -> tensor<64x128xbf16>
  %b = tile.own %py[%m, %n] : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.store %o, %b : tensor<64x128xbf16>, !tile.owned<out, 64x128xbf16>
  tile.return
}

// -----

// A plan pinned by hand is kept: two stages, so two full and two empty
// barriers.
// CHECK-LABEL: tile.kernel @pinned
// CHECK-SAME: stages = 2 : i64
// LOWER-LABEL: gpu.func @pinned
// LOWER-COUNT-4: nvvm.mbarrier.init
// LOWER-NOT: nvvm.mbarrier.init
// LOWER: gpu.return
tile.kernel @pinned(%x: !tile.view<in, ?x?xbf16>, %w: !tile.view<in, ?x?xbf16>, %y: !tile.view<out, ?x?xbf16>) attributes {tile.hopper_matmul = {bk = 64 : i64, bm = 64 : i64, bn = 128 : i64, consumers = 1 : i64, stages = 2 : i64}} {
  %py = tile.partition %y : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.grid %gm, %gn
  %px = tile.partition %x : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %pw = tile.partition %w : !tile.partition<in, ?x?xbf16, tile = [128, 64]>
  %nk = tile.num_tiles %px, 1 : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %z) -> tensor<64x128xf32> {
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xbf16, tile = [128, 64]> -> tensor<128x64xbf16>
    %wT = tile.permute %wt [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %wT, %a : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %o = tile.convert %acc : tensor<64x128xf32> -> tensor<64x128xbf16>
  %b = tile.own %py[%m, %n] : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.store %o, %b : tensor<64x128xbf16>, !tile.owned<out, 64x128xbf16>
  tile.return
}

// -----

// The result stored transposed (weights as the dot's A operand, 16 tokens
// as its B: y[m, n] = (W_n x_m^T)^T): planned, the store element by
// element from the accumulator's registers.
// CHECK-LABEL: tile.kernel @transposed
// CHECK-SAME: tile.hopper_matmul = {bk = 64 : i64, bm = 64 : i64, bn = 16 : i64, consumers = 1 : i64, stages = 8 : i64, transposed_store}
// LOWER-LABEL: gpu.func @transposed
// LOWER: nvvm.wgmma.mma_async
// LOWER-NOT: vector.store
// LOWER: memref.store
// LOWER: gpu.return
tile.kernel @transposed(%x: !tile.view<in, ?x?xbf16>, %w: !tile.view<in, ?x?xbf16>, %y: !tile.view<out, ?x?xbf16>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xbf16, tile = [16, 64]>
  %n = tile.program_id x
  %m = tile.program_id y
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xbf16, tile = [16, 64]>
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xbf16, tile = [16, 64]>
  tile.grid %gn, %gm
  %pw = tile.partition %w : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %px = tile.partition %x : !tile.partition<in, ?x?xbf16, tile = [16, 64]>
  %nk = tile.num_tiles %pw, 1 : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : tensor<64x16xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %z) -> tensor<64x16xf32> {
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xbf16, tile = [16, 64]> -> tensor<16x64xbf16>
    %xT = tile.permute %xt [1, 0] : tensor<16x64xbf16> -> tensor<64x16xbf16>
    %d = tile.dot %wt, %xT, %a : tensor<64x64xbf16>, tensor<64x16xbf16> -> tensor<64x16xf32>
    scf.yield %d : tensor<64x16xf32>
  }
  %o = tile.convert %acc : tensor<64x16xf32> -> tensor<64x16xbf16>
  %oT = tile.permute %o [1, 0] : tensor<64x16xbf16> -> tensor<16x64xbf16>
  %b = tile.own %py[%m, %n] : !tile.partition<out, ?x?xbf16, tile = [16, 64]>
  tile.store %oT, %b : tensor<16x64xbf16>, !tile.owned<out, 16x64xbf16>
  tile.return
}

// -----

// Split K: program s of the splits (y's row tiles) runs K tiles
// [s * ks, (s + 1) * ks) and stores its f32 partial sums, transposed, to
// its own rows of y; x's row index is a constant in the loop, as the
// frontend writes it. Planned: the producer's
// TMA loads start at the loop's first tile, the store writes f32 (as pairs
// where y's rows allow, element by element transposed).
// CHECK-LABEL: tile.kernel @split_k
// CHECK-SAME: tile.hopper_matmul = {bk = 64 : i64, bm = 64 : i64, bn = 64 : i64, consumers = 1 : i64, stages = 8 : i64, transposed_store}
// LOWER-LABEL: gpu.func @split_k
// LOWER: arith.subi
// LOWER: nvvm.cp.async.bulk.tensor.shared.cluster.global
// LOWER: nvvm.wgmma.mma_async
// LOWER: memref.store {{.*}} : memref<?x?xf32
// LOWER: gpu.return
tile.kernel @split_k(%x: !tile.view<in, ?x?xbf16>, %w: !tile.view<in, ?x?xbf16>, %y: !tile.view<out, ?x?xf32>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xf32, tile = [64, 64]>
  %n = tile.program_id x
  %s = tile.program_id y
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf32, tile = [64, 64]>
  %gs = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf32, tile = [64, 64]>
  tile.grid %gn, %gs
  %pw = tile.partition %w : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %px = tile.partition %x : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %nk = tile.num_tiles %pw, 1 : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %ks = arith.divui %nk, %gs : index
  %lo = arith.muli %s, %ks : index
  %hi = arith.addi %lo, %ks : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : tensor<64x64xf32>
  %acc = scf.for %k = %lo to %hi step %c1 iter_args(%a = %z) -> tensor<64x64xf32> {
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %c0 = arith.constant 0 : index
    %xt = tile.load %px[%c0, %k] : !tile.partition<in, ?x?xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %xT = tile.permute %xt [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %wt, %xT, %a : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %oT = tile.permute %acc [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %b = tile.own %py[%s, %n] : !tile.partition<out, ?x?xf32, tile = [64, 64]>
  tile.store %oT, %b : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}
