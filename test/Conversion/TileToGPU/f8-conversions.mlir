// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=f8-conversions=1 --canonicalize | FileCheck %s
// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu --canonicalize | FileCheck %s --check-prefix=INT
// RUN: tile-opt %s --tile-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: tile-opt %s --tile-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=SM80

// e4m3 weights widened for a GEMV: on sm_89 and later two elements per
// cvt.rn.f16x2.e4m3x2 (8 bytes a thread: four pairs), then f16 to f32;
// elsewhere integer operations place the byte's bits under f16's and scale
// by 2^8.
// CHECK-LABEL: gpu.func @widen
// CHECK: vector.load {{.*}} : memref<?x256xf8E4M3FN, {{.*}}>, vector<8xf8E4M3FN>
// CHECK-COUNT-4: nvvm.convert.f8x2.to.f16x2 {{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// INT-LABEL: gpu.func @widen
// INT-NOT: nvvm.convert
// INT: arith.shli {{.*}} : vector<8xi16>
// INT: arith.bitcast {{.*}} : vector<8xi16> to vector<8xf16>
// INT: arith.mulf {{.*}} : vector<8xf32>
// NVVM-LABEL: llvm.func @widen
// NVVM: nvvm.convert.f8x2.to.f16x2
// SM80-LABEL: llvm.func @widen
// SM80-NOT: nvvm.convert.f8x2
// SM80: llvm.return
tile.kernel @widen(%w: !tile.view<in, ?x256xf8E4M3FN>, %y: !tile.view<out, ?x256xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %pw = tile.partition %w : !tile.partition<in, ?x256xf8E4M3FN, tile = [4, 256]>
  %py = tile.partition %y : !tile.partition<out, ?x256xf32, tile = [4, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf32, tile = [4, 256]>
  tile.grid %n
  %t = tile.load %pw[%pid, %c0] : !tile.partition<in, ?x256xf8E4M3FN, tile = [4, 256]> -> tensor<4x256xf8E4M3FN>
  %f = tile.convert %t : tensor<4x256xf8E4M3FN> -> tensor<4x256xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf32, tile = [4, 256]>
  tile.store %f, %b : tensor<4x256xf32>, !tile.owned<out, 4x256xf32>
  tile.return
}
