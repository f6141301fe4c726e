// RUN: tile-opt %s --split-input-file --tile-verify-ownership --convert-tile-to-gpu --canonicalize | FileCheck %s

// A dot whose operands and accumulator fit 48 KB of shared memory runs on
// tensor cores: warps take 16x8 output tiles, K in steps of 16.
// CHECK-LABEL: gpu.func @small_dot
// CHECK: scf.for
// CHECK: scf.for
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
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

// Too large to stage (128x128 f32 accumulator alone is 64 KB): f32 FMAs.
// CHECK-LABEL: gpu.func @large_dot
// CHECK-NOT: nvgpu.mma.sync
// CHECK: math.fma
tile.kernel @large_dot(%a: !tile.view<in, 128x64xbf16>, %b: !tile.view<in, 64x128xbf16>, %c: !tile.view<out, 128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 128x64xbf16, tile = [128, 64]>
  %pb = tile.partition %b : !tile.partition<in, 64x128xbf16, tile = [64, 128]>
  %pc = tile.partition %c : !tile.partition<out, 128x128xf32, tile = [128, 128]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 128x64xbf16, tile = [128, 64]> -> tensor<128x64xbf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 64x128xbf16, tile = [64, 128]> -> tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %at, %bt, %z : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 128x128xf32, tile = [128, 128]>
  tile.store %d, %blk : tensor<128x128xf32>, !tile.owned<out, 128x128xf32>
  tile.return
}
