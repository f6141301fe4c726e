// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=grid-dependency-control=1 | FileCheck %s
// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --tile-to-nvvm | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --tile-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %s --tile-to-nvvm="grid-dependency-control=0" | FileCheck %s --check-prefix=SM80

// Programmatic dependent launch: the kernel first lets the next kernel's
// blocks be scheduled, then waits for the grids before it ahead of any
// access (so none can race them), and is marked so the runtime knows it
// may launch it early.
// CHECK-LABEL: gpu.func @copy
// CHECK-SAME: tile.waits_for_prior_grid
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: gpu.thread_id
// OFF-LABEL: gpu.func @copy
// OFF-NOT: tile.waits_for_prior_grid
// OFF-NOT: griddepcontrol
// OFF: gpu.return
// The pipelines turn it on for sm_90 and later only (the default chip is
// sm_90a), and it can be turned off.
// SM90: llvm.func @copy
// SM90: nvvm.griddepcontrol launch_dependents
// SM90-NEXT: nvvm.griddepcontrol wait
// SM80: llvm.func @copy
// SM80-NOT: griddepcontrol
// SM80: llvm.return
tile.kernel @copy(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [128]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [128]>
  tile.grid %n
  %v = tile.load %px[%pid] : !tile.partition<in, ?xf32, tile = [128]> -> tensor<128xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [128]>
  tile.store %v, %b : tensor<128xf32>, !tile.owned<out, 128xf32>
  tile.return
}

// Loads of `settled` and `frozen` views that open the kernel, and the math
// on them, go before the wait: no launch the kernel overlaps writes them.
// The wait comes before the first access that needs it (the `in` load).
// CHECK-LABEL: gpu.func @early
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NOT: griddepcontrol
// CHECK: vector.load %arg0
// CHECK-NOT: griddepcontrol
// CHECK: vector.load %arg1
// CHECK-NOT: griddepcontrol
// CHECK: arith.mulf
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NOT: griddepcontrol
// CHECK: vector.load %arg2
// CHECK-NOT: griddepcontrol
// CHECK: gpu.return
// OFF-LABEL: gpu.func @early
// OFF-NOT: griddepcontrol
// OFF: gpu.return
tile.kernel @early(%pos: !tile.view<settled, 128xf32>, %w: !tile.view<frozen, 128xf32>,
                   %x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %pp = tile.partition %pos : !tile.partition<settled, 128xf32, tile = [128]>
  %pw = tile.partition %w : !tile.partition<frozen, 128xf32, tile = [128]>
  %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [128]>
  %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [128]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [128]>
  tile.grid %n
  %p = tile.load %pp[%c0] : !tile.partition<settled, 128xf32, tile = [128]> -> tensor<128xf32>
  %g = tile.load %pw[%c0] : !tile.partition<frozen, 128xf32, tile = [128]> -> tensor<128xf32>
  %pg = arith.mulf %p, %g : tensor<128xf32>
  %v = tile.load %px[%pid] : !tile.partition<in, ?xf32, tile = [128]> -> tensor<128xf32>
  %r = arith.addf %v, %pg : tensor<128xf32>
  %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [128]>
  tile.store %r, %b : tensor<128xf32>, !tile.owned<out, 128xf32>
  tile.return
}
