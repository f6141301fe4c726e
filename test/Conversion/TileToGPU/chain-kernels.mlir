// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=grid-dependency-control=1 --canonicalize --cse "--tile-chain-kernels=chain=pair=scale,apply" | FileCheck %s
// RUN: not tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=grid-dependency-control=1 "--tile-chain-kernels=chain=pair=scale" 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=grid-dependency-control=1 "--tile-chain-kernels=chain=pair=scale,nope" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tile-opt %s --tile-verify-ownership --convert-tile-to-gpu "--tile-chain-kernels=chain=pair=scale,apply" 2>&1 | FileCheck %s --check-prefix=NOWAIT
// RUN: tile-opt %s "--tile-to-cubin=chain=pair=scale,apply format=isa" | FileCheck %s --check-prefix=PTX

// One kernel runs `scale`, then `apply`, in one grid: the parts' parameters,
// the counters, three extents per part; the parts themselves are gone.
// CHECK-NOT: gpu.func @scale
// CHECK-NOT: gpu.func @apply
// CHECK-LABEL: gpu.func @pair
// CHECK-SAME: %arg2: memref<128xf32, strided<[1], offset: ?>> {llvm.nofree}
// CHECK-SAME: %arg5: memref<?xi32, strided<[1], offset: ?>>, %arg6: i64, %arg7: i64, %arg8: i64, %arg9: i64, %arg10: i64, %arg11: i64
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: nvvm.minctasm = 2
// CHECK-SAME: tile.waits_for_prior_grid
// The chain waits for the grid before, then each block takes a ticket.
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK: memref.atomic_rmw addi %{{.*}}, %arg5[%{{.*}}]
// CHECK: gpu.barrier
// Part 1 (tickets below its program count): block ids from the ticket, no
// wait of its own; it counts itself done after a release fence.
// CHECK: scf.if
// CHECK-NOT: griddepcontrol
// CHECK-NOT: gpu.block_id
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: memref.atomic_rmw addi %{{.*}}, %arg5[%c1
// Part 2: its frozen load before it waits; the wait polls counter 1 with
// relaxed loads and sleeps, then acquires; its `in` load after.
// CHECK: } else {
// CHECK: vector.load %arg2
// CHECK: scf.while
// CHECK: llvm.load %{{.*}} atomic syncscope("device") monotonic
// CHECK: nvvm.nanosleep
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: gpu.barrier
// CHECK: vector.load %arg3
// The last block of the last part leaves the three counters at zero.
// CHECK: memref.atomic_rmw addi %{{.*}}, %arg5[%c2
// CHECK: memref.store %{{.*}}, %arg5[%c0
// CHECK: memref.store %{{.*}}, %arg5[%c1
// CHECK: memref.store %{{.*}}, %arg5[%c2
// CHECK: gpu.return
// ONE: chain 'pair=scale': expected name=part1,part2[,...] (two parts or more)
// MISSING: chain 'pair=scale,nope': no kernel named 'nope'
// NOWAIT: 'scale' does not wait for the grid before
// In PTX the poll is ld.relaxed.gpu, the `in` input of the second part a
// coherent load (an earlier part may write it), the frozen one read-only.
// PTX: .entry pair(
// PTX: atom.global.add.u32
// PTX: ld.global.nc.v4
// PTX: ld.relaxed.gpu.b32
// PTX: nanosleep.u32
// PTX: fence.acq_rel.gpu
// PTX-NOT: ld.global.nc
// PTX: ret;
tile.kernel @scale(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) attributes {tile.min_programs_per_sm = 2 : i64} {
  %pid = tile.program_id x
  %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [128]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [128]>
  tile.grid %n
  %v = tile.load %px[%pid] : !tile.partition<in, ?xf32, tile = [128]> -> tensor<128xf32>
  %w = arith.addf %v, %v : tensor<128xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [128]>
  tile.store %w, %b : tensor<128xf32>, !tile.owned<out, 128xf32>
  tile.return
}
tile.kernel @apply(%w: !tile.view<frozen, 128xf32>, %x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %pw = tile.partition %w : !tile.partition<frozen, 128xf32, tile = [128]>
  %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [128]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [128]>
  tile.grid %n
  %k = tile.load %pw[%c0] : !tile.partition<frozen, 128xf32, tile = [128]> -> tensor<128xf32>
  %v = tile.load %px[%pid] : !tile.partition<in, ?xf32, tile = [128]> -> tensor<128xf32>
  %m = arith.mulf %v, %k : tensor<128xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [128]>
  tile.store %m, %b : tensor<128xf32>, !tile.owned<out, 128xf32>
  tile.return
}
