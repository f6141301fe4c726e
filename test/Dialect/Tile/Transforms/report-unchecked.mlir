// RUN: tile-opt %s --tile-report-unchecked | FileCheck %s
// RUN: tile-opt %s --tile-report-unchecked=remarks=true -verify-diagnostics -o /dev/null

// CHECK-LABEL: tile.kernel @safe
// CHECK-SAME: attributes {tile.unchecked_regions = 0 : i64}
// expected-remark @+1 {{kernel @safe: 0 unchecked regions}}
tile.kernel @safe(%s: f32) {
  %t = tile.splat %s : tensor<4xf32>
  tile.return
}

// CHECK-LABEL: tile.kernel @two_regions
// CHECK-SAME: attributes {tile.unchecked_regions = 2 : i64}
// expected-remark @+1 {{kernel @two_regions: 2 unchecked regions}}
tile.kernel @two_regions(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %i = tile.program_id x
  %c0 = arith.constant 0 : index
  %v = tile.splat %s : tensor<1x64xf32>
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  // expected-remark @+1 {{unchecked region: scatter}}
  tile.unchecked "scatter" {
    tile.store %v, %p[%i, %c0] : tensor<1x64xf32>, !tile.partition<out, ?x64xf32, tile = [1, 64]>
    // Nested regions count too.
    // expected-remark @+1 {{unchecked region: nested}}
    tile.unchecked "nested" {
    }
  }
  tile.return
}
