// RUN: tile-opt %s --split-input-file --tile-verify-ownership --convert-tile-to-gpu --verify-diagnostics | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-to-nvvm --verify-diagnostics | FileCheck %s --check-prefix=NVVM

// tile.min_programs_per_sm (the .tile builtin min_programs_per_sm(n)) becomes
// nvvm.minctasm on the kernel, which the NVPTX backend emits as
// .minnctapersm: ptxas then caps the registers per thread so that n programs
// fit on an SM. A kernel without it gets no such bound.
// CHECK-LABEL: gpu.func @copy
// CHECK-SAME: nvvm.minctasm = 4 : i32
// NVVM-LABEL: llvm.func @copy
// NVVM-SAME: nvvm.minctasm = 4 : i32
tile.kernel @copy(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) attributes {tile.min_programs_per_sm = 4 : i64} {
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

// -----

// CHECK-LABEL: gpu.func @plain
// CHECK-NOT: nvvm.minctasm
// CHECK: gpu.return
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

// -----

// expected-error @+1 {{convert-tile-to-gpu: tile.min_programs_per_sm must be in [1, 32]}}
tile.kernel @zero(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) attributes {tile.min_programs_per_sm = 0 : i64} {
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
