// A safe-subset build rejects every unchecked region, nested ones too.
// RUN: tile-opt %s --split-input-file --tile-report-unchecked=forbid=true -verify-diagnostics

tile.kernel @safe(%s: f32) {
  %t = tile.splat %s : tensor<4xf32>
  tile.return
}

// -----

tile.kernel @two_regions(%y: !tile.view<out, ?x64xf32>, %s: f32) {
  %i = tile.program_id x
  %c0 = arith.constant 0 : index
  %v = tile.splat %s : tensor<1x64xf32>
  %p = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [1, 64]>
  // expected-error @+1 {{unchecked region in kernel @two_regions ("scatter"); this build accepts only the safe subset}}
  tile.unchecked "scatter" {
    tile.store %v, %p[%i, %c0] : tensor<1x64xf32>, !tile.partition<out, ?x64xf32, tile = [1, 64]>
    // expected-error @+1 {{unchecked region in kernel @two_regions ("nested"); this build accepts only the safe subset}}
    tile.unchecked "nested" {
    }
  }
  tile.return
}
