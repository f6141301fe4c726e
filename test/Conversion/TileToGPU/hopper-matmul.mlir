// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-hopper-matmul --convert-tile-to-gpu | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --convert-tile-to-gpu | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --split-input-file --tile-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: tile-opt %s --split-input-file --tile-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-hopper-matmul --convert-tile-to-gpu --remarks-filter="convert-tile-to-gpu|tile-plan-hopper-matmul" --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

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
// The epilogue: the accumulator's registers converted, then stored as
// pairs, 4-byte stores where aligned.
// CHECK: vector.from_elements {{.*}} : vector<64xf32>
// CHECK: arith.truncf {{.*}} : vector<64xf32> to vector<64xbf16>
// CHECK: memref.extract_strided_metadata
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
// REMARK: remark: [Passed] hopper-matmul | Category:tile-plan-hopper-matmul | Function=matmul | Remark="Hopper TMA + wgmma GEMM: tile 64x128x64, 8 stages
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
// REMARK: remark: [Missed] hopper-matmul | Category:tile-plan-hopper-matmul | Function=bk32 | Reason="not a Hopper TMA + wgmma GEMM: the parts of w load
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

// An element-wise epilogue (here a scale by a splat constant) runs on the
// accumulator's registers: no shared memory, no barrier after the loop.
// CHECK-LABEL: gpu.func @scaled
// CHECK-SAME: tile.tensor_map_params = 2
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: gpu.barrier
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[S:.*]] = vector.broadcast %[[HALF]] : f32 to vector<32xf32>
// CHECK: arith.mulf %{{.*}}, %[[S]] : vector<32xf32>
// CHECK: arith.truncf {{.*}} : vector<32xf32> to vector<32xf16>
// CHECK-NOT: gpu.barrier
// CHECK: vector.store
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

// -----

// SwiGLU in the epilogue: w's tile stacks two row blocks (gate rows n, up
// rows n + I / 64), one TMA box each into one stage, one m64n128 wgmma
// over both; the accumulator's column halves are registers 0-31 and
// 32-63, combined in place, and only the 64 activation columns are stored.
// CHECK-LABEL: gpu.func @swiglu
// CHECK-SAME: tile.tensor_map_params = 2
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c24576_i32
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[ACC:.*]] = vector.from_elements {{.*}} : vector<64xf32>
// CHECK: vector.shuffle %[[ACC]], %[[ACC]] [0, 1, 2, {{.*}}, 31] : vector<64xf32>, vector<64xf32>
// CHECK: vector.shuffle %[[ACC]], %[[ACC]] [32, 33, {{.*}}, 63] : vector<64xf32>, vector<64xf32>
// CHECK: math.exp {{.*}} : vector<32xf32>
// CHECK: arith.divf {{.*}} : vector<32xf32>
// CHECK-NOT: gpu.barrier
// CHECK: vector.store {{.*}} : memref<?x?xf16, strided<[?, 1], offset: ?>>, vector<2xf16>
// CHECK: gpu.return
// NVVM-LABEL: llvm.func @swiglu
// NVVM-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
tile.kernel @swiglu(%x: !tile.view<in, ?x?xf16>, %w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, ?x?xf16>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  tile.grid %gm, %gn
  %px = tile.partition %x : !tile.partition<in, ?x?xf16, tile = [64, 64]>
  %pw = tile.partition %w : !tile.partition<in, ?x?xf16, tile = [64, 64]>
  %nu = arith.addi %n, %gn : index
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64x128xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = tile.num_tiles %px, 1 : !tile.partition<in, ?x?xf16, tile = [64, 64]>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %init) -> (tensor<64x128xf32>) {
    %wg = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %wu = tile.load %pw[%nu, %k] : !tile.partition<in, ?x?xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %wt = tile.concat %wg, %wu dim = 0 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<128x64xf16>
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %wT = tile.permute %wt [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %xt, %wT, %a : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %g = tile.slice %acc [0, 0] : tensor<64x128xf32> -> tensor<64x64xf32>
  %u = tile.slice %acc [0, 64] : tensor<64x128xf32> -> tensor<64x64xf32>
  %ng = arith.negf %g : tensor<64x64xf32>
  %e = math.exp %ng : tensor<64x64xf32>
  %one = arith.constant 1.0 : f32
  %ones = tile.splat %one : tensor<64x64xf32>
  %den = arith.addf %ones, %e : tensor<64x64xf32>
  %sg = arith.divf %g, %den : tensor<64x64xf32>
  %act = arith.mulf %sg, %u : tensor<64x64xf32>
  %blk = tile.own %py[%m, %n] : !tile.partition<out, ?x?xf16, tile = [64, 64]>
  %r = tile.convert %act : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %r, %blk : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
  tile.return
}

// -----

// Not planned: an epilogue op that does not map register to register (a
// row sum: its lanes would have to meet), and a slice off the 8-column
// grain of the accumulator's layout.
// CHECK-LABEL: gpu.func @rowsum
// CHECK-NOT: wgmma
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @offgrain
// CHECK-NOT: wgmma
// CHECK: gpu.return
// REMARK: remark: [Missed] hopper-matmul | Category:tile-plan-hopper-matmul | Function=rowsum | Reason="not a Hopper TMA + wgmma GEMM: an epilogue tile not [bm, 8n]"
tile.kernel @rowsum(%x: !tile.view<in, ?x?xf16>, %w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, ?x?xf16>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xf16, tile = [64, 1]>
  %m = tile.program_id x
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf16, tile = [64, 1]>
  tile.grid %gm
  %n = arith.constant 0 : index
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
  %s = tile.reduce %acc dim = 1 : (tensor<64x64xf32>) -> tensor<64x1xf32> {
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tile.yield %t : f32
  }
  %blk = tile.own %py[%m, %n] : !tile.partition<out, ?x?xf16, tile = [64, 1]>
  %r = tile.convert %s : tensor<64x1xf32> -> tensor<64x1xf16>
  tile.store %r, %blk : tensor<64x1xf16>, !tile.owned<out, 64x1xf16>
  tile.return
}
// REMARK: remark: [Missed] hopper-matmul | Category:tile-plan-hopper-matmul | Function=offgrain | Reason="not a Hopper TMA + wgmma GEMM: an epilogue slice not of whole rows at a multiple of 8 columns"
tile.kernel @offgrain(%x: !tile.view<in, ?x?xf16>, %w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, ?x?xf16>) {
  %py = tile.partition %y : !tile.partition<out, ?x?xf16, tile = [64, 56]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf16, tile = [64, 56]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf16, tile = [64, 56]>
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
  %s = tile.slice %acc [0, 4] : tensor<64x64xf32> -> tensor<64x56xf32>
  %blk = tile.own %py[%m, %n] : !tile.partition<out, ?x?xf16, tile = [64, 56]>
  %r = tile.convert %s : tensor<64x56xf32> -> tensor<64x56xf16>
  tile.store %r, %blk : tensor<64x56xf16>, !tile.owned<out, 64x56xf16>
  tile.return
}
