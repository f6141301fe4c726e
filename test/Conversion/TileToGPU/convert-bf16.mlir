// RUN: tile-opt %s --tile-verify-ownership --convert-tile-to-gpu | FileCheck %s

// bf16 -> f32 widens each thread's registers as 32-bit words: the low half
// of a word shifted up 16, the high half with the low bits cleared, the two
// interleaved back into element order (bit-exact: a bf16 is the top half of
// its f32). The conversion instruction needed each half extracted first:
// two ALU ops per element, one here. Other conversions keep arith's ops.
// CHECK-LABEL: gpu.func @widen
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<?x1024xbf16, {{.*}}>, vector<8xbf16>
// CHECK: %[[W:.*]] = vector.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// CHECK: %[[C16:.*]] = arith.constant dense<16> : vector<4xi32>
// CHECK: %[[L:.*]] = arith.shli %[[W]], %[[C16]] : vector<4xi32>
// CHECK: %[[HI:.*]] = arith.constant dense<-65536> : vector<4xi32>
// CHECK: %[[H:.*]] = arith.andi %[[W]], %[[HI]] : vector<4xi32>
// CHECK: %[[S:.*]] = vector.shuffle %[[L]], %[[H]] [0, 4, 1, 5, 2, 6, 3, 7] : vector<4xi32>, vector<4xi32>
// CHECK: vector.bitcast %[[S]] : vector<8xi32> to vector<8xf32>
// CHECK-NOT: arith.extf
// CHECK-LABEL: gpu.func @narrow
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK-LABEL: gpu.func @widen_f16
// CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
tile.kernel @widen(%x: !tile.view<in, ?x1024xbf16>, %y: !tile.view<out, ?x1024xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x1024xbf16, tile = [1, 1024]>
  %py = tile.partition %y : !tile.partition<out, ?x1024xf32, tile = [1, 1024]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x1024xf32, tile = [1, 1024]>
  tile.grid %n
  %v = tile.load %px[%pid, %c0] : !tile.partition<in, ?x1024xbf16, tile = [1, 1024]> -> tensor<1x1024xbf16>
  %f = tile.convert %v : tensor<1x1024xbf16> -> tensor<1x1024xf32>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x1024xf32, tile = [1, 1024]>
  tile.store %f, %b : tensor<1x1024xf32>, !tile.owned<out, 1x1024xf32>
  tile.return
}

tile.kernel @narrow(%x: !tile.view<in, ?x1024xf32>, %y: !tile.view<out, ?x1024xbf16>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x1024xf32, tile = [1, 1024]>
  %py = tile.partition %y : !tile.partition<out, ?x1024xbf16, tile = [1, 1024]>
  %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x1024xbf16, tile = [1, 1024]>
  tile.grid %n
  %v = tile.load %px[%pid, %c0] : !tile.partition<in, ?x1024xf32, tile = [1, 1024]> -> tensor<1x1024xf32>
  %t = tile.convert %v : tensor<1x1024xf32> -> tensor<1x1024xbf16>
  %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x1024xbf16, tile = [1, 1024]>
  tile.store %t, %b : tensor<1x1024xbf16>, !tile.owned<out, 1x1024xbf16>
  tile.return
}

tile.kernel @widen_f16(%h: !tile.view<in, ?x1024xf16>, %z: !tile.view<out, ?x1024xf32>) {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : index
  %ph = tile.partition %h : !tile.partition<in, ?x1024xf16, tile = [1, 1024]>
  %pz = tile.partition %z : !tile.partition<out, ?x1024xf32, tile = [1, 1024]>
  %n = tile.num_tiles %pz, 0 : !tile.partition<out, ?x1024xf32, tile = [1, 1024]>
  tile.grid %n
  %w = tile.load %ph[%pid, %c0] : !tile.partition<in, ?x1024xf16, tile = [1, 1024]> -> tensor<1x1024xf16>
  %e = tile.convert %w : tensor<1x1024xf16> -> tensor<1x1024xf32>
  %c = tile.own %pz[%pid, %c0] : !tile.partition<out, ?x1024xf32, tile = [1, 1024]>
  tile.store %e, %c : tensor<1x1024xf32>, !tile.owned<out, 1x1024xf32>
  tile.return
}
