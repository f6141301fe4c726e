// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments --convert-tile-to-gpu --canonicalize | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --convert-tile-to-gpu --canonicalize | FileCheck %s --check-prefix=STAGED
// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments --convert-tile-to-gpu --remarks-filter="convert-tile-to-gpu|tile-plan-fragments" --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A dot on tensor cores with fragments: the A operand moves once into the
// accumulator layout of 64 x 32 (16 f16 per thread), B is staged in shared
// memory with rows padded to 72 and read with ldmatrix (transposed: B is
// K x N), and each of the 4 warps issues 2 K steps x 8 column tiles of
// mma.sync m16n8k16 into its 16 rows.
// CHECK-LABEL: gpu.func @small_dot
// CHECK: vector.from_elements {{.*}} : vector<16xf16>
// CHECK: memref.view {{.*}} to memref<32x72xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: vector.store
// CHECK: gpu.barrier
// CHECK-COUNT-4: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<32x72xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-8: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: nvgpu.ldmatrix
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// The f32 result moves to the flat layout for its store.
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier

// Without fragments: A, B and the accumulator all go through shared memory;
// warps take 16x8 output tiles, K in steps of 16.
// STAGED-LABEL: gpu.func @small_dot
// STAGED: scf.for
// STAGED: scf.for
// STAGED: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
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
// CHECK-NOT: mma.sync
// CHECK: math.fma
// STAGED-LABEL: gpu.func @large_dot
// STAGED-NOT: mma.sync
// STAGED: math.fma
// REMARK: remark: [Missed] mma-fragments | Category:tile-plan-fragments | Function=large_dot | Reason="operands and accumulator through shared memory at every dot: staging takes 65536 bytes of shared memory, over the static 49152"
// REMARK: remark: [Missed] tensor-cores | Category:tile-plan-fragments | Function=large_dot | Reason="FMA instead of mma.sync: bf16 operands (staged mma.sync takes f16)"
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

// -----

// A path pinned by hand: the dot that would stage for mma.sync runs on
// FMAs.
// STAGED-LABEL: gpu.func @pinned_fma
// STAGED-NOT: mma.sync
// STAGED: math.fma
tile.kernel @pinned_fma(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
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
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}
