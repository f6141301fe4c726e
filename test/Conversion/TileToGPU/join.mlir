// tile.join on the GPU: after the block's stores, a barrier; thread 0
// fences (fence.acq_rel.gpu), takes a ticket with an atomic add on the group's
// counter (block id along the join's dim), resets it if it was the last
// (group size - 1: the grid's other dims), fences again and passes the
// flag through shared memory; the region runs under the flag. The CPU
// lowering: the atomic add and the region under its result.
// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu | FileCheck %s
// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-scf | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %s --tile-to-nvvm | FileCheck %s --check-prefix=NVVM

// CHECK-LABEL: gpu.func @merge
// The shares' stores, then the ticket.
// CHECK: memref.store
// CHECK: %[[KEY:.*]] = gpu.block_id x
// CHECK: %[[GY:.*]] = gpu.grid_dim y
// CHECK: %[[GROUP:.*]] = arith.muli %{{.*}}, %[[GY]]
// CHECK: %[[GZ:.*]] = gpu.grid_dim z
// CHECK: %[[SIZE:.*]] = arith.muli %[[GROUP]], %[[GZ]]
// CHECK: %[[LASTI:.*]] = arith.subi %[[SIZE]], %c1
// CHECK: %[[LAST:.*]] = arith.index_cast %[[LASTI]] : index to i32
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK: %[[OLD:.*]] = memref.atomic_rmw addi %{{.*}}, %arg3[%[[KEY]]]
// CHECK: %[[IS:.*]] = arith.cmpi eq, %[[OLD]], %[[LAST]] : i32
// CHECK: scf.if %[[IS]] {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: memref.store %[[ZERO]], %arg3[%[[KEY]]]
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: memref.store %{{.*}}, %[[FLAG:.*]][%{{.*}}] : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[FLAG]]
// CHECK: scf.if
// The region: the row of shares, then y[g].
// CHECK: memref.load %arg1
// CHECK: memref.store {{.*}} %{{.*}}[{{.*}}] : memref<?xf32
// CHECK: gpu.return

// CPU-LABEL: func.func @merge(
// CPU: memref.store
// CPU: %[[OLD:.*]] = memref.atomic_rmw addi %{{.*}}, %arg3[%arg4]
// CPU: %[[IS:.*]] = arith.cmpi eq, %[[OLD]], %{{.*}} : i32
// CPU: scf.if %[[IS]] {
// CPU: memref.store %{{.*}}, %arg3[%arg4]
// CPU: memref.load %arg1
// CPU: return

// NVVM-LABEL: llvm.func @merge
// NVVM: nvvm.barrier
// NVVM: llvm.fence syncscope("device") acq_rel
// NVVM: llvm.atomicrmw add
// NVVM: llvm.fence syncscope("device") acq_rel
tile.kernel @merge(%x: !tile.view<in, ?x4xf32>, %parts: !tile.view<inout, ?x4xf32>,
                   %y: !tile.view<out, ?xf32>, %t: !tile.view<ticket, ?xi32>) {
  %pp = tile.partition %parts : !tile.partition<inout, ?x4xf32, tile = [1, 1]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [1]>
  %g = tile.program_id x
  %s = tile.program_id y
  %rows = tile.dim %parts, 0 : !tile.view<inout, ?x4xf32>
  %c4 = arith.constant 4 : index
  tile.grid %rows, %c4
  %nt = tile.dim %t, 0 : !tile.view<ticket, ?xi32>
  %enough = arith.cmpi sge, %nt, %rows : index
  tile.assume %enough, "a counter per row"
  %ny = tile.dim %y, 0 : !tile.view<out, ?xf32>
  %same = arith.cmpi eq, %ny, %rows : index
  tile.assume %same, "one sum per row"
  %b = tile.own %pp[%g, %s] : !tile.partition<inout, ?x4xf32, tile = [1, 1]>
  %px = tile.partition %x : !tile.partition<in, ?x4xf32, tile = [1, 1]>
  %v = tile.load %px[%g, %s] : !tile.partition<in, ?x4xf32, tile = [1, 1]> -> tensor<1x1xf32>
  tile.store %v, %b : tensor<1x1xf32>, !tile.owned<inout, 1x1xf32>
  tile.join %t by x {
    %yb = tile.own %py[%g] : !tile.partition<out, ?xf32, tile = [1]>
    %pr = tile.partition %parts : !tile.partition<inout, ?x4xf32, tile = [1, 4]>
    %c0 = arith.constant 0 : index
    %row = tile.load %pr[%g, %c0] : !tile.partition<inout, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
    %r = tile.reduce %row dim = 1 : (tensor<1x4xf32>) -> tensor<1x1xf32> {
    ^bb0(%a: f32, %c: f32):
      %sum = arith.addf %a, %c : f32
      tile.yield %sum : f32
    }
    %r1 = tile.reshape %r : tensor<1x1xf32> -> tensor<1xf32>
    tile.store %r1, %yb : tensor<1xf32>, !tile.owned<out, 1xf32>
  } : !tile.view<ticket, ?xi32>
  tile.return
}
