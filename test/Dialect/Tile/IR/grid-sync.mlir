// tile.grid_sync: its form and the structural rules of its verifier.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A program id, a size and index arithmetic cross the barrier.
// CHECK-LABEL: tile.kernel @rotate
// CHECK: tile.grid_sync %arg1 : !tile.view<ticket, ?xi32>
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : !tile.partition<inout, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
tile.kernel @rotate(%a: !tile.view<inout, ?x4xf32>, %t: !tile.view<ticket, ?xi32>) {
  %r = tile.program_id x
  %n = tile.dim %a, 0 : !tile.view<inout, ?x4xf32>
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %next = arith.addi %r, %c1 : index
  %wrapped = arith.remui %next, %n : index
  tile.grid_sync %t : !tile.view<ticket, ?xi32>
  %p = tile.partition %a : !tile.partition<inout, ?x4xf32, tile = [1, 4]>
  %v = tile.load %p[%wrapped, %c0] : !tile.partition<inout, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
  tile.return
}

// -----

tile.kernel @in_a_loop(%t: !tile.view<ticket, ?xi32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    // expected-error @+1 {{'tile.grid_sync' op expects parent op 'tile.kernel'}}
    tile.grid_sync %t : !tile.view<ticket, ?xi32>
  }
  tile.return
}

// -----

tile.kernel @not_ticket(%t: !tile.view<inout, ?xi32>) {
  // expected-error @+1 {{'tile.grid_sync' op needs a 'ticket' view of rank 1 and i32 for its counter}}
  tile.grid_sync %t : !tile.view<inout, ?xi32>
  tile.return
}

// -----

// Loaded data does not cross a barrier (the CPU runs each phase for every
// program before the next).
tile.kernel @loaded_value_crosses(%x: !tile.view<in, ?x4xf32>, %a: !tile.view<inout, ?x4xf32>,
                                  %t: !tile.view<ticket, ?xi32>) {
  %r = tile.program_id x
  %c0 = arith.constant 0 : index
  %px = tile.partition %x : !tile.partition<in, ?x4xf32, tile = [1, 4]>
  // expected-note @+1 {{computed here}}
  %v = tile.load %px[%r, %c0] : !tile.partition<in, ?x4xf32, tile = [1, 4]> -> tensor<1x4xf32>
  // expected-error @+1 {{'tile.grid_sync' op a value computed before the barrier is used after it}}
  tile.grid_sync %t : !tile.view<ticket, ?xi32>
  %pa = tile.partition %a : !tile.partition<inout, ?x4xf32, tile = [1, 4]>
  %b = tile.own %pa[%r, %c0] : !tile.partition<inout, ?x4xf32, tile = [1, 4]>
  // expected-note @+1 {{used here}}
  tile.store %v, %b : tensor<1x4xf32>, !tile.owned<inout, 1x4xf32>
  tile.return
}
