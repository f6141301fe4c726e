// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=2 --canonicalize | FileCheck %s

// A program is a block of 64 threads; rows of 256 f16 are split into
// vectors of 8 (16 bytes): 32 positions, one per thread of the first warp...
// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @tile_kernels
// The `in` view is readonly; the verified kernel's inputs are invariant.
// CHECK: gpu.func @rows(%{{.*}}: memref<?x256xf16, strided<[256, 1], offset: ?>> {llvm.readonly}, %{{.*}}: memref<?x256xf16, strided<[256, 1], offset: ?>>)
// No shared memory: the row's sum never leaves the registers of the warp.
// CHECK-NOT: workgroup(
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 64, 1, 1>, tile.invariant_inputs}
// CHECK-DAG: gpu.thread_id x
// CHECK-DAG: gpu.block_id x
// ... loaded 16 bytes at a time where the vector is inside the view,
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x256xf16, strided<[256, 1], offset: ?>>, vector<8xf16>
// element by element with padding at the edges,
// CHECK: memref.load
// reduced along the row with shuffles within the 32 threads of the row,
// which all hold the sum after them, so the broadcast back over the row
// is a splat of a register (no barrier),
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NOT: gpu.barrier
// CHECK: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: arith.divf
// CHECK-NOT: gpu.barrier
// and stored 16 bytes at a time.
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x256xf16, strided<[256, 1], offset: ?>>, vector<8xf16>
// CHECK: gpu.return
tile.kernel @rows(%x: !tile.view<in, ?x256xf16>, %y: !tile.view<out, ?x256xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x256xf16, tile = [1, 256]>
  %py = tile.partition %y : !tile.partition<out, ?x256xf16, tile = [1, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf16, tile = [1, 256]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x256xf16, tile = [1, 256]> -> tensor<1x256xf16>
  %t32 = tile.convert %t : tensor<1x256xf16> -> tensor<1x256xf32>
  %s = tile.reduce %t32 dim = 1 : (tensor<1x256xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %sb = tile.broadcast %s : tensor<1x1xf32> -> tensor<1x256xf32>
  %d = arith.divf %t32, %sb : tensor<1x256xf32>
  %dh = tile.convert %d : tensor<1x256xf32> -> tensor<1x256xf16>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf16, tile = [1, 256]>
  tile.store %dh, %b : tensor<1x256xf16>, !tile.owned<out, 1x256xf16>
  tile.return
}
