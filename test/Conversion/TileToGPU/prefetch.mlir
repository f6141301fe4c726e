// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=grid-dependency-control=1 | FileCheck %s
// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu | FileCheck %s --check-prefix=NOPDL
// RUN: tile-opt %s --tile-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-scf | FileCheck %s --check-prefix=CPU
// Chips before sm_90 have no L2 prefetch in the backend: the hint goes.
// RUN: tile-opt %s --tile-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=SM80
// SM80-NOT: prefetch
// SM80: llvm.return

// tile.prefetch of a [2, 256] f16 tile: 512-byte rows are four 128-byte L2
// lines, probed at columns 0, 64, 128, 192 and at the last element (the
// tile need not start on a line): 2 x 5 probes, one per thread of the
// first ten, each guarded by its element lying inside the view. The kernel
// opens with it, so the griddepcontrol.wait comes after the prefetch and
// before the first load: the weights start streaming while the grid before
// this one runs.
// CHECK-LABEL: gpu.func @gemv_rows
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: griddepcontrol
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: %[[Q:.*]] = arith.addi %[[TID]]
// CHECK: arith.cmpi ult, %[[Q]], %c10
// CHECK: arith.divui %[[Q]], %c5
// CHECK: arith.remui %[[Q]], %c5
// CHECK: arith.minui %{{.*}}, %c255
// CHECK: scf.if
// CHECK: llvm.inttoptr
// CHECK-NEXT: nvvm.prefetch level = L2, %{{.*}} : !llvm.ptr
// CHECK: nvvm.griddepcontrol wait
// CHECK-NOT: nvvm.prefetch
// CHECK: vector.load
// CHECK: gpu.return
// Without the grid dependency control there is no wait to place.
// NOPDL-LABEL: gpu.func @gemv_rows
// NOPDL-NOT: griddepcontrol
// NOPDL: nvvm.prefetch level = L2
// NOPDL: gpu.return
// NVVM: llvm.func @gemv_rows
// NVVM: nvvm.griddepcontrol launch_dependents
// NVVM: nvvm.prefetch level = L2
// NVVM: nvvm.griddepcontrol wait
// The CPU has no L2 to fill: the op is dropped.
// CPU-LABEL: func.func @gemv_rows
// CPU-NOT: prefetch
// CPU: return
tile.kernel @gemv_rows(%w: !tile.view<in, ?x?xf16>, %y: !tile.view<out, ?x256xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %pw = tile.partition %w : !tile.partition<in, ?x?xf16, tile = [2, 256]>
  %py = tile.partition %y : !tile.partition<out, ?x256xf16, tile = [2, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf16, tile = [2, 256]>
  tile.grid %n
  tile.prefetch %pw[%pid, %c0] : !tile.partition<in, ?x?xf16, tile = [2, 256]>
  %v = tile.load %pw[%pid, %c0] : !tile.partition<in, ?x?xf16, tile = [2, 256]> -> tensor<2x256xf16>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf16, tile = [2, 256]>
  tile.store %v, %b : tensor<2x256xf16>, !tile.owned<out, 2x256xf16>
  tile.return
}

// A kernel without prefetches keeps the wait first.
// CHECK-LABEL: gpu.func @plain
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
tile.kernel @plain(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) {
  %pid = tile.program_id x
  %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [128]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [128]>
  tile.grid %n
  %v = tile.load %px[%pid] : !tile.partition<in, ?xf32, tile = [128]> -> tensor<128xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [128]>
  tile.store %v, %b : tensor<128xf32>, !tile.owned<out, 128xf32>
  tile.return
}
