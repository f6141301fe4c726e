// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments="num-warps=2" | FileCheck %s --check-prefix=TWO
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments --remarks-filter=tile-plan-fragments --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments="wgmma-dots=1" | FileCheck %s --check-prefix=WGMMA

// The plan as IR: the dot runs on fragments; its result and the zero
// accumulator take the accumulator layout of 64 x 64 over the 4 warps, A
// that of 64 x 32; B and the store stay flat (no attribute).
// CHECK-LABEL: tile.kernel @small_dot
// CHECK: %[[A:.*]] = tile.load {{.*}} {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 4 : i64}]}
// CHECK: %[[B:.*]] = tile.load
// CHECK-NOT: tile.fragments
// CHECK-SAME: -> tensor<32x64xf16>
// CHECK: arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]}
// CHECK: tile.dot %[[A]], %[[B]], %{{.*}} {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]}
// With 2 warps each warp takes 32 rows.
// TWO-LABEL: tile.kernel @small_dot
// TWO: tile.dot {{.*}} {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 2 : i64}]}
// REMARK-NOT: small_dot
// With wgmma-dots the dot is one 64-row slab over the 4 warps (a
// warpgroup) and B's contiguous dim (N = 64) one swizzle panel: wgmma.
// WGMMA-LABEL: tile.kernel @small_dot
// WGMMA: tile.dot {{.*}} {tile.fragment_dot = "wgmma"
tile.kernel @small_dot(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
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

// A dot that cannot run on fragments gets no fragments, and a missed
// remark saying why; too large to stage for mma.sync either, its path is
// FMA, with a second remark.
// CHECK-LABEL: tile.kernel @large_dot
// CHECK-NOT: tile.fragment
// CHECK: tile.dot {{.*}} {tile.flat_dot = "fma"}
// CHECK: tile.return
// REMARK: remark: [Missed] mma-fragments | Category:tile-plan-fragments | Function=large_dot | Reason="operands and accumulator through shared memory at every dot: staging takes 65536 bytes of shared memory, over the static 49152"
// REMARK: remark: [Missed] tensor-cores | Category:tile-plan-fragments | Function=large_dot | Reason="FMA instead of mma.sync: staging takes 98304 bytes of shared memory, over 48 KB"
tile.kernel @large_dot(%a: !tile.view<in, 128x64xf16>, %b: !tile.view<in, 64x128xf16>, %c: !tile.view<out, 128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 128x64xf16, tile = [128, 64]>
  %pb = tile.partition %b : !tile.partition<in, 64x128xf16, tile = [64, 128]>
  %pc = tile.partition %c : !tile.partition<out, 128x128xf32, tile = [128, 128]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 128x64xf16, tile = [128, 64]> -> tensor<128x64xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 64x128xf16, tile = [64, 128]> -> tensor<64x128xf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %at, %bt, %z : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 128x128xf32, tile = [128, 128]>
  tile.store %d, %blk : tensor<128x128xf32>, !tile.owned<out, 128x128xf32>
  tile.return
}

// -----

// A plan pinned by hand is checked and kept: here A stays flat (it moves
// into its fragments at the dot, as the lowering does for a flat operand)
// where the planner would have put the load itself in fragments. The
// kernel's tile.num_warps (4) overrides the pass's num-warps.
// CHECK-LABEL: tile.kernel @pinned
// CHECK: %[[A:.*]] = tile.load
// CHECK-NOT: tile.fragments
// CHECK-SAME: -> tensor<64x32xf16>
// CHECK: %[[A2:.*]] = arith.addf %[[A]], %[[A]] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 4 : i64}]}
// CHECK: tile.dot %[[A2]]
tile.kernel @pinned(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) attributes {tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %a2 = arith.addf %at, %at {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 4 : i64}]} : tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a2, %bt, %z {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// 16 rows do not give each of the 4 warps its own 16: no fragments, but
// the dot fits staged mma.sync (A, B and the accumulator through shared
// memory at the dot).
// CHECK-LABEL: tile.kernel @staged_dot
// CHECK-NOT: tile.fragment
// CHECK: tile.dot {{.*}} {tile.flat_dot = "mma_sync"}
// REMARK-NOT: tensor-cores
tile.kernel @staged_dot(%a: !tile.view<in, 16x16xf16>, %b: !tile.view<in, 16x8xf16>, %c: !tile.view<out, 16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 16x16xf16, tile = [16, 16]>
  %pb = tile.partition %b : !tile.partition<in, 16x8xf16, tile = [16, 8]>
  %pc = tile.partition %c : !tile.partition<out, 16x8xf32, tile = [16, 8]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 16x16xf16, tile = [16, 16]> -> tensor<16x16xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 16x8xf16, tile = [16, 8]> -> tensor<16x8xf16>
  %z = arith.constant dense<0.0> : tensor<16x8xf32>
  %d = tile.dot %at, %bt, %z : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 16x8xf32, tile = [16, 8]>
  tile.store %d, %blk : tensor<16x8xf32>, !tile.owned<out, 16x8xf32>
  tile.return
}

// -----

// A dot's path pinned by hand is a plan: the dot that would run on
// fragments stays on FMAs, and the kernel's other dot gets its path.
// CHECK-LABEL: tile.kernel @pinned_flat
// CHECK-NOT: tile.fragment
// CHECK: tile.dot {{.*}} {tile.flat_dot = "fma"}
// CHECK: tile.dot {{.*}} {tile.flat_dot = "mma_sync"}
tile.kernel @pinned_flat(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %z {tile.flat_dot = "fma"} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %e = tile.dot %at, %bt, %d : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %e, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}
