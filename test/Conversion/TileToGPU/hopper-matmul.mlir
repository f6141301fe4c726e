// RUN: tile-opt %s --split-input-file --tile-verify-ownership --convert-tile-to-gpu=hopper-matmul=1 | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --convert-tile-to-gpu | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --split-input-file --tile-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: tile-opt %s --split-input-file --tile-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=SM80

// A tiled matmul (64 x 128 tiles, K steps of 64): one producer warpgroup
// issuing TMA loads, one consumer warpgroup issuing wgmma m64n128k16.
// CHECK: llvm.mlir.global external @__tile_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: tile.tensor_map_params = 2
// The barriers: full (one arrival + bytes), empty (one per consumer warp).
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c4_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// Producer: fewer registers, one thread issues both loads per stage.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c24576_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// Consumer: more registers, wait for a stage, four wgmma over its 64 K.
// CHECK: nvvm.setmaxregister increase 240
// CHECK: scf.for {{.*}} iter_args
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The epilogue: pairs of converted values, 4-byte stores where aligned.
// CHECK: memref.extract_strided_metadata
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: vector.store {{.*}} {alignment = 4 : i64} : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<2xbf16>
// OFF-LABEL: gpu.func @matmul
// OFF-NOT: tile.tensor_map_params
// OFF-NOT: wgmma
// OFF: gpu.return
// After the NVVM pipeline: the descriptors are 128-byte grid constants.
// NVVM-LABEL: llvm.func @matmul
// NVVM-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// NVVM-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM80-LABEL: llvm.func @matmul
// SM80-NOT: wgmma
// SM80-NOT: nvvm.grid_constant
// SM80: llvm.return
tile.kernel @matmul(%x: !tile.view<in, ?x?xbf16>, %w: !tile.view<in, ?x?xbf16>, %y: !tile.view<out, ?x?xbf16>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.grid %gm, %gn
  %px = tile.partition %x : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %pw = tile.partition %w : !tile.partition<in, ?x?xbf16, tile = [128, 64]>
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = tile.num_tiles %px, 1 : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %init) -> (tensor<64x128xf32>) {
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xbf16, tile = [128, 64]> -> tensor<128x64xbf16>
    %wT = tile.permute %wt [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %wT, %a : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %blk = tile.own %py[%m, %n] : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %r = tile.convert %acc : tensor<64x128xf32> -> tensor<64x128xbf16>
  tile.store %r, %blk : tensor<64x128xbf16>, !tile.owned<out, 64x128xbf16>
  tile.return
}

// -----

// Not planned: K steps of 32 (a stage row must be the 128-byte swizzle).
// CHECK-LABEL: gpu.func @bk32
// CHECK-NOT: tile.tensor_map_params
// CHECK-NOT: wgmma
// CHECK: gpu.return
tile.kernel @bk32(%x: !tile.view<in, ?x?xf16>, %w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, ?x?xf16>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  tile.grid %gm, %gn
  %px = tile.partition %x : !tile.partition<in, ?x?xf16, tile = [64, 32]>
  %pw = tile.partition %w : !tile.partition<in, ?x?xf16, tile = [64, 32]>
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = tile.num_tiles %px, 1 : !tile.partition<in, ?x?xf16, tile = [64, 32]>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %init) -> (tensor<64x64xf32>) {
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xf16, tile = [64, 32]> -> tensor<64x32xf16>
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xf16, tile = [64, 32]> -> tensor<64x32xf16>
    %wT = tile.permute %wt [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = tile.dot %xt, %wT, %a : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %blk = tile.own %py[%m, %n] : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %r = tile.convert %acc : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %r, %blk : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
  tile.return
}

// -----

// Not planned: the accumulator is used again after the loop (here scaled
// before the store), which the pipeline's epilogue does not do.
// CHECK-LABEL: gpu.func @scaled
// CHECK-NOT: wgmma
// CHECK: gpu.return
tile.kernel @scaled(%x: !tile.view<in, ?x?xf16>, %w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, ?x?xf16>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  tile.grid %gm, %gn
  %px = tile.partition %x : !tile.partition<in, ?x?xf16, tile = [64, 64]>
  %pw = tile.partition %w : !tile.partition<in, ?x?xf16, tile = [64, 64]>
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = tile.num_tiles %px, 1 : !tile.partition<in, ?x?xf16, tile = [64, 64]>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %init) -> (tensor<64x64xf32>) {
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %wT = tile.permute %wt [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %xt, %wT, %a : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %half = arith.constant 0.5 : f32
  %s = tile.splat %half : tensor<64x64xf32>
  %scaled = arith.mulf %acc, %s : tensor<64x64xf32>
  %blk = tile.own %py[%m, %n] : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %r = tile.convert %scaled : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %r, %blk : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
  tile.return
}
