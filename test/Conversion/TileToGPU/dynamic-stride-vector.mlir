// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu=num-warps=1 --canonicalize | FileCheck %s

// A weight of dynamic row length ([?, ?], strides [?, 1]): whether a row's
// 8-element vectors are 16-byte aligned depends on the row stride, known
// only at launch. The lowering checks it once, uniformly: a stride that is a
// multiple of 8 takes the 16-byte vector loads (a GEMV's whole bandwidth),
// any other takes element loads with padding.
// CHECK: gpu.func @rows_dyn
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata
// CHECK: %[[REM:.*]] = arith.remui %[[STRIDES]]#0, %c8
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %c0
// CHECK: %[[WHOLE:.*]] = arith.andi %{{.*}}, %[[ALIGNED]] : i1
// CHECK: scf.if %[[WHOLE]]
// CHECK-NEXT: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?xf16, strided<[?, 1], offset: ?>>, vector<8xf16>
// CHECK: } else {
// CHECK: memref.load
tile.kernel @rows_dyn(%x: !tile.view<in, ?x?xf16>, %y: !tile.view<out, ?x256xf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x?xf16, tile = [1, 256]>
  %py = tile.partition %y : !tile.partition<out, ?x256xf16, tile = [1, 256]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xf16, tile = [1, 256]>
  tile.grid %n
  %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x?xf16, tile = [1, 256]> -> tensor<1x256xf16>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xf16, tile = [1, 256]>
  tile.store %t, %b : tensor<1x256xf16>, !tile.owned<out, 1x256xf16>
  tile.return
}
