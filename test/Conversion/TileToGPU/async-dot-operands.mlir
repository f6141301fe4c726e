// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-mark-in-bounds-loads --tile-plan-fragments="wgmma-dots=1" --tile-plan-async-operands --convert-tile-to-gpu --canonicalize | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-mark-in-bounds-loads --tile-plan-fragments="wgmma-dots=1" --tile-plan-async-operands --convert-tile-to-gpu --remarks-filter="convert-tile-to-gpu|tile-plan-fragments|tile-plan-async-operands" --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The plan alone: the loads copied ahead carry tile.copy_ahead.
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-mark-in-bounds-loads --tile-plan-fragments="wgmma-dots=1" --tile-plan-async-operands | FileCheck %s --check-prefix=PLAN
// PLAN-LABEL: tile.kernel @flash_step
// PLAN-COUNT-2: tile.load {{.*}} {tile.copy_ahead, tile.in_bounds}
// PLAN-LABEL: tile.kernel @unproven_blocks
// PLAN-NOT: tile.copy_ahead

// A flash-attention step: S = Q K^T and O += S V, K and V loaded per block
// of an innermost loop from read-only views, proven in bounds (the loop
// runs to cdiv(keys, 64) and the keys are whole blocks). Both loads become
// cp.async copies (16 bytes, .cg) straight into their own swizzled buffers
// at the start of the scratch space (4096 f16 each, 1024-byte aligned),
// one iteration ahead: the first iteration's before the loop under
// lb < ub, K's first (its dot comes first), one commit group each; in the
// body each dot waits for all but the one group committed after its own
// (wait_group 1), fences the async proxy and takes a barrier; after each
// dot's wgmma, a barrier (every warpgroup has read the buffer) and the
// next iteration's copies into the same buffer under iv + 1 < ub. No
// register round trip: no vector.load of K or V, no stores into shared
// memory for them. After the loop nothing is in flight (wait_group 0).
// CHECK-LABEL: gpu.func @flash_step
// CHECK-SAME: workgroup(%{{.*}} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64})
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-4: nvgpu.device_async_copy %arg1[{{.*}}], %[[KBUF:.*]][{{.*}}], 8 {bypassL1} : memref<?x64xf16, strided<[64, 1], offset: ?>> to memref<4096xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.if
// CHECK-COUNT-4: nvgpu.device_async_copy %arg2[{{.*}}], %[[VBUF:.*]][{{.*}}], 8 {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK-NOT: vector.load
// CHECK-NOT: vector.store
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0;
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: gpu.barrier
// CHECK: arith.cmpi slt
// CHECK: scf.if
// CHECK-COUNT-4: nvgpu.device_async_copy %arg1[{{.*}}], %[[KBUF]]
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-4: nvgpu.device_async_copy %arg2[{{.*}}], %[[VBUF]]
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// REMARK-COUNT-2: remark: [Passed] async-dot-operands | Category:tile-plan-async-operands | Function=flash_step | Remark="B copied one iteration ahead with cp.async into its swizzled buffer"
tile.kernel @flash_step(%arg0: !tile.view<in, 64x64xf16>, %arg1: !tile.view<in, ?x64xf16>, %arg2: !tile.view<in, ?x64xf16>, %arg3: !tile.view<out, 64x64xf16>) {
  %0 = tile.partition %arg3 : !tile.partition<out, 64x64xf16, tile = [64, 64]>
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %1 = tile.dim %arg1, 0 : !tile.view<in, ?x64xf16>
  %c64 = arith.constant 64 : index
  %2 = arith.remui %1, %c64 : index
  %c0 = arith.constant 0 : index
  %3 = arith.cmpi eq, %2, %c0 : index
  tile.assume %3, "whole key blocks"
  %4 = tile.dim %arg2, 0 : !tile.view<in, ?x64xf16>
  %5 = tile.dim %arg1, 0 : !tile.view<in, ?x64xf16>
  %6 = arith.cmpi eq, %4, %5 : index
  tile.assume %6, "one value per key"
  %7 = tile.partition %arg0 : !tile.partition<in, 64x64xf16, tile = [64, 64]>
  %c0_0 = arith.constant 0 : index
  %c0_1 = arith.constant 0 : index
  %8 = tile.load %7[%c0_0, %c0_1] : !tile.partition<in, 64x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
  %9 = tile.partition %arg1 : !tile.partition<in, ?x64xf16, tile = [64, 64]>
  %10 = tile.partition %arg2 : !tile.partition<in, ?x64xf16, tile = [64, 64]>
  %cst = arith.constant 0.000000e+00 : f32
  %11 = tile.splat %cst : tensor<64x64xf32>
  %c0_2 = arith.constant 0 : index
  %12 = tile.dim %arg1, 0 : !tile.view<in, ?x64xf16>
  %c64_3 = arith.constant 64 : index
  %c1_4 = arith.constant 1 : index
  %13 = arith.addi %12, %c64_3 : index
  %14 = arith.subi %13, %c1_4 : index
  %15 = arith.divsi %14, %c64_3 : index
  %c1_5 = arith.constant 1 : index
  %16 = scf.for %arg4 = %c0_2 to %15 step %c1_5 iter_args(%arg5 = %11) -> (tensor<64x64xf32>) {
    %c0_8 = arith.constant 0 : index
    %19 = tile.load %9[%arg4, %c0_8] : !tile.partition<in, ?x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %c0_9 = arith.constant 0 : index
    %20 = tile.load %10[%arg4, %c0_9] : !tile.partition<in, ?x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %21 = tile.permute %19 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %cst_10 = arith.constant 0.000000e+00 : f32
    %22 = tile.splat %cst_10 : tensor<64x64xf32>
    %23 = tile.dot %8, %21, %22 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %24 = tile.convert %23 : tensor<64x64xf32> -> tensor<64x64xf16>
    %25 = tile.dot %24, %20, %arg5 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %25 : tensor<64x64xf32>
  }
  %c0_6 = arith.constant 0 : index
  %c0_7 = arith.constant 0 : index
  %17 = tile.own %0[%c0_6, %c0_7] : !tile.partition<out, 64x64xf16, tile = [64, 64]>
  %18 = tile.convert %16 : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %18, %17 : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
  tile.return
}

// -----

// Without the whole-block assumption the last block may be partial: the
// loads are not proven in bounds, so they keep the guarded register path
// (padding past the keys) and no copy goes out ahead.
// CHECK-LABEL: gpu.func @unproven_blocks
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-NOT: nvvm.cp.async
// CHECK: scf.for
// CHECK: vector.load
// CHECK: gpu.return
// REMARK: remark: [Missed] async-dot-operands | Category:tile-plan-async-operands | Function=unproven_blocks | Reason="B not copied ahead with cp.async: the load is not proven in bounds"
tile.kernel @unproven_blocks(%arg0: !tile.view<in, 64x64xf16>, %arg1: !tile.view<in, ?x64xf16>, %arg2: !tile.view<in, ?x64xf16>, %arg3: !tile.view<out, 64x64xf16>) {
  %0 = tile.partition %arg3 : !tile.partition<out, 64x64xf16, tile = [64, 64]>
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %4 = tile.dim %arg2, 0 : !tile.view<in, ?x64xf16>
  %5 = tile.dim %arg1, 0 : !tile.view<in, ?x64xf16>
  %6 = arith.cmpi eq, %4, %5 : index
  tile.assume %6, "one value per key"
  %7 = tile.partition %arg0 : !tile.partition<in, 64x64xf16, tile = [64, 64]>
  %c0_0 = arith.constant 0 : index
  %c0_1 = arith.constant 0 : index
  %8 = tile.load %7[%c0_0, %c0_1] : !tile.partition<in, 64x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
  %9 = tile.partition %arg1 : !tile.partition<in, ?x64xf16, tile = [64, 64]>
  %10 = tile.partition %arg2 : !tile.partition<in, ?x64xf16, tile = [64, 64]>
  %cst = arith.constant 0.000000e+00 : f32
  %11 = tile.splat %cst : tensor<64x64xf32>
  %c0_2 = arith.constant 0 : index
  %12 = tile.dim %arg1, 0 : !tile.view<in, ?x64xf16>
  %c64_3 = arith.constant 64 : index
  %c1_4 = arith.constant 1 : index
  %13 = arith.addi %12, %c64_3 : index
  %14 = arith.subi %13, %c1_4 : index
  %15 = arith.divsi %14, %c64_3 : index
  %c1_5 = arith.constant 1 : index
  %16 = scf.for %arg4 = %c0_2 to %15 step %c1_5 iter_args(%arg5 = %11) -> (tensor<64x64xf32>) {
    %c0_8 = arith.constant 0 : index
    %19 = tile.load %9[%arg4, %c0_8] : !tile.partition<in, ?x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %c0_9 = arith.constant 0 : index
    %20 = tile.load %10[%arg4, %c0_9] : !tile.partition<in, ?x64xf16, tile = [64, 64]> -> tensor<64x64xf16>
    %21 = tile.permute %19 [1, 0] : tensor<64x64xf16> -> tensor<64x64xf16>
    %cst_10 = arith.constant 0.000000e+00 : f32
    %22 = tile.splat %cst_10 : tensor<64x64xf32>
    %23 = tile.dot %8, %21, %22 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %24 = tile.convert %23 : tensor<64x64xf32> -> tensor<64x64xf16>
    %25 = tile.dot %24, %20, %arg5 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %25 : tensor<64x64xf32>
  }
  %c0_6 = arith.constant 0 : index
  %c0_7 = arith.constant 0 : index
  %17 = tile.own %0[%c0_6, %c0_7] : !tile.partition<out, 64x64xf16, tile = [64, 64]>
  %18 = tile.convert %16 : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %18, %17 : tensor<64x64xf16>, !tile.owned<out, 64x64xf16>
  tile.return
}
