// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments="wgmma-dots=1" --convert-tile-to-gpu --canonicalize | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments="wgmma-dots=1" --convert-tile-to-gpu --remarks-filter="convert-tile-to-gpu|tile-plan-fragments" --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A fragment dot whose 64 rows are one warpgroup's (4 warps): B (K x N,
// N contiguous) is staged with the 128-byte swizzle (16-byte chunks XORed
// with the row) in a 1024-byte aligned scratch space, fenced for the async
// proxy, and read MN-major (the transposed-B flag 1) by 2 K steps of
// m64n64k16 with A from registers. The zero accumulator is not read: the
// first step has scale-d 0 on undefined registers. Descriptor: 128-byte
// swizzle (1 << 62), 8-row groups 1024 bytes apart (64 << 32), 64-column
// panels 32 rows x 128 bytes apart (256 << 16).
// CHECK-LABEL: gpu.func @mn_major_b
// CHECK-SAME: workgroup(%{{.*}} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64})
// CHECK-DAG: %[[UNDEF:.*]] = llvm.mlir.undef : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[DESC:.*]] = arith.constant 4611686293322072064 : i64
// CHECK: gpu.barrier
// CHECK: arith.xori
// CHECK: vector.store {{.*}} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.ori %{{.*}}, %[[DESC]]
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;{{.*}} %[[UNDEF]], {{.*}}, %[[ZERO]] :
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;{{.*}}, %[[ONE]] :
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-32: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,0"
// CHECK-NOT: nvgpu.ldmatrix
// CHECK-NOT: nvvm.mma.sync
// REMARK: remark: [Passed] mma-fragments | Category:convert-tile-to-gpu | Function=mn_major_b | Remark="64x64x32 dot on register-A wgmma
tile.kernel @mn_major_b(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %z : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// Q K^T: the permute folds into a K-major read of the staged 32 x 64 tile
// (transposed-B flag 0), 4 K steps of m64n32k16 stepping 32 bytes along
// the swizzled row; the leading offset is unused (1 << 16). The
// accumulator is read (loaded, not zero): every step has scale-d 1, and
// its registers are pinned before the fence.
// CHECK-LABEL: gpu.func @k_major_b
// CHECK-DAG: %[[DESC:.*]] = arith.constant 4611686293305360384 : i64
// CHECK: nvvm.fence.proxy
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,0"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0;
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvgpu.ldmatrix
tile.kernel @k_major_b(%q: !tile.view<in, 64x64xbf16>, %k: !tile.view<in, 32x64xbf16>, %s0: !tile.view<in, 64x32xf32>, %s: !tile.view<out, 64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pq = tile.partition %q : !tile.partition<in, 64x64xbf16, tile = [64, 64]>
  %pk = tile.partition %k : !tile.partition<in, 32x64xbf16, tile = [32, 64]>
  %p0 = tile.partition %s0 : !tile.partition<in, 64x32xf32, tile = [64, 32]>
  %ps = tile.partition %s : !tile.partition<out, 64x32xf32, tile = [64, 32]>
  %qt = tile.load %pq[%c0, %c0] : !tile.partition<in, 64x64xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
  %kt = tile.load %pk[%c0, %c0] : !tile.partition<in, 32x64xbf16, tile = [32, 64]> -> tensor<32x64xbf16>
  %acc = tile.load %p0[%c0, %c0] : !tile.partition<in, 64x32xf32, tile = [64, 32]> -> tensor<64x32xf32>
  %kT = tile.permute %kt [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
  %d = tile.dot %qt, %kT, %acc : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
  %blk = tile.own %ps[%c0, %c0] : !tile.partition<out, 64x32xf32, tile = [64, 32]>
  tile.store %d, %blk : tensor<64x32xf32>, !tile.owned<out, 64x32xf32>
  tile.return
}

// -----

// B's contiguous dim (N = 32) is not whole 64-element swizzle panels:
// mma.sync on ldmatrix fragments, as without the option.
// CHECK-LABEL: gpu.func @narrow_b
// CHECK-NOT: wgmma
// CHECK: nvgpu.ldmatrix
// CHECK: nvvm.mma.sync
// REMARK: remark: [Missed] wgmma-dots | Category:tile-plan-fragments | Function=narrow_b | Reason="mma.sync instead of wgmma: B's contiguous dim (N = 32) is not a multiple of the 64-element swizzle panel"
tile.kernel @narrow_b(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x32xf16>, %c: !tile.view<out, 64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x32xf16, tile = [32, 32]>
  %pc = tile.partition %c : !tile.partition<out, 64x32xf32, tile = [64, 32]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x32xf16, tile = [32, 32]> -> tensor<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %d = tile.dot %at, %bt, %z : tensor<64x32xf16>, tensor<32x32xf16> -> tensor<64x32xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x32xf32, tile = [64, 32]>
  tile.store %d, %blk : tensor<64x32xf32>, !tile.owned<out, 64x32xf32>
  tile.return
}

// -----

// Two warps (tile.num_warps): 32 rows are not a warpgroup's 64: mma.sync.
// CHECK-LABEL: gpu.func @two_warps
// CHECK-NOT: wgmma
// CHECK: nvvm.mma.sync
tile.kernel @two_warps(%a: !tile.view<in, 32x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 32x64xf32>) attributes {tile.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 32x32xf16, tile = [32, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 32x64xf32, tile = [32, 64]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 32x32xf16, tile = [32, 32]> -> tensor<32x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<32x64xf32>
  %d = tile.dot %at, %bt, %z : tensor<32x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 32x64xf32, tile = [32, 64]>
  tile.store %d, %blk : tensor<32x64xf32>, !tile.owned<out, 32x64xf32>
  tile.return
}
