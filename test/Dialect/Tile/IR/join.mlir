// tile.join: its form and the structural rules of its verifier.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: tile.kernel @merge
// CHECK: tile.join %arg2 by x {
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<inout, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
// CHECK: } : !tile.view<ticket, ?xi32>
// CHECK-NEXT: tile.return
tile.kernel @merge(%parts: !tile.view<inout, ?x4xf32>, %y: !tile.view<out, ?x4xf32>,
                   %t: !tile.view<ticket, ?xi32>) {
  %g = tile.program_id x
  %c0 = arith.constant 0 : index
  tile.join %t by x {
    %p = tile.partition %parts : !tile.partition<inout, ?x4xf32, tile = [1, 4]>
    %v = tile.load %p[%g, %c0] : !tile.partition<inout, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
    %py = tile.partition %y : !tile.partition<out, ?x4xf32, tile = [1, 4]>
    %b = tile.own %py[%g, %c0] : !tile.partition<out, ?x4xf32, tile = [1, 4]>
    tile.store %v, %b : tensor<1x4xf32>, !tile.owned<out, 1x4xf32>
  } : !tile.view<ticket, ?xi32>
  tile.return
}

// -----

tile.kernel @not_last(%parts: !tile.view<inout, ?x4xf32>, %t: !tile.view<ticket, ?xi32>) {
  // expected-error @+1 {{'tile.join' op must be the last op of the kernel body (before tile.return)}}
  tile.join %t by x {
  } : !tile.view<ticket, ?xi32>
  %g = tile.program_id x
  tile.return
}

// -----

tile.kernel @two(%t: !tile.view<ticket, ?xi32>) {
  // expected-error @+1 {{'tile.join' op must be the last op of the kernel body}}
  tile.join %t by x {
  } : !tile.view<ticket, ?xi32>
  tile.join %t by y {
  } : !tile.view<ticket, ?xi32>
  tile.return
}

// -----

tile.kernel @not_ticket(%t: !tile.view<inout, ?xi32>) {
  // expected-error @+1 {{'tile.join' op needs a 'ticket' view for its counters; this one is 'inout'}}
  tile.join %t by x {
  } : !tile.view<inout, ?xi32>
  tile.return
}

// -----

tile.kernel @nested(%t: !tile.view<ticket, ?xi32>, %c: i1) {
  scf.if %c {
    // expected-error @+1 {{'tile.join' op expects parent op 'tile.kernel'}}
    tile.join %t by x {
    } : !tile.view<ticket, ?xi32>
  }
  tile.return
}

// -----

tile.kernel @grid_inside(%t: !tile.view<ticket, ?xi32>) {
  // expected-error @+1 {{'tile.join' op region holds tile.grid or tile.assume}}
  tile.join %t by x {
    %c1 = arith.constant 1 : index
    tile.grid %c1
  } : !tile.view<ticket, ?xi32>
  tile.return
}

// -----

// expected-error @+1 {{a 'ticket' view holds one i32 counter per group: rank 1, i32}}
tile.kernel @ticket_type(%t: !tile.view<ticket, ?x2xi32>) {
  tile.return
}

// -----

tile.kernel @partition_ticket(%t: !tile.view<ticket, ?xi32>) {
  // expected-error @+1 {{'tile.partition' op cannot partition a 'ticket' view: only tile.join touches its counters}}
  %p = tile.partition %t : !tile.partition<ticket, ?xi32, tile = [1]>
  tile.return
}

// -----

tile.kernel @inout_read_outside(%parts: !tile.view<inout, ?x4xf32>) {
  %g = tile.program_id x
  %c0 = arith.constant 0 : index
  %p = tile.partition %parts : !tile.partition<inout, ?x4xf32, tile = [1, 4]>
  // expected-error @+1 {{'tile.load' op cannot load from an 'inout' partition directly: read an inout view only through the block this program owns (tile.own), inside a tile.join, or after a tile.grid_sync}}
  %v = tile.load %p[%g, %c0] : !tile.partition<inout, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
  tile.return
}
