// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-hopper-matmul -verify-diagnostics

// A pinned plan must fit the body: its tile sizes are the body's.
// expected-error @+1 {{tile.hopper_matmul: 'bm' must be 64 (the body's)}}
tile.kernel @wrong_bm(%x: !tile.view<in, ?x?xbf16>, %w: !tile.view<in, ?x?xbf16>, %y: !tile.view<out, ?x?xbf16>) attributes {tile.hopper_matmul = {bk = 64 : i64, bm = 128 : i64, bn = 128 : i64, consumers = 1 : i64, stages = 4 : i64}} {
  %py = tile.partition %y : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.grid %gm, %gn
  %px = tile.partition %x : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %pw = tile.partition %w : !tile.partition<in, ?x?xbf16, tile = [128, 64]>
  %nk = tile.num_tiles %px, 1 : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %z) -> tensor<64x128xf32> {
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xbf16, tile = [128, 64]> -> tensor<128x64xbf16>
    %wT = tile.permute %wt [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %wT, %a : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %o = tile.convert %acc : tensor<64x128xf32> -> tensor<64x128xbf16>
  %b = tile.own %py[%m, %n] : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.store %o, %b : tensor<64x128xbf16>, !tile.owned<out, 64x128xbf16>
  tile.return
}

// -----

// Stages from 2 to what fits the shared memory.
// expected-error @+1 {{tile.hopper_matmul: 'stages' must be 2 to 9 (what fits the shared memory)}}
tile.kernel @one_stage(%x: !tile.view<in, ?x?xbf16>, %w: !tile.view<in, ?x?xbf16>, %y: !tile.view<out, ?x?xbf16>) attributes {tile.hopper_matmul = {bk = 64 : i64, bm = 64 : i64, bn = 128 : i64, consumers = 1 : i64, stages = 1 : i64}} {
  %py = tile.partition %y : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %m = tile.program_id x
  %n = tile.program_id y
  %gm = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  %gn = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.grid %gm, %gn
  %px = tile.partition %x : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %pw = tile.partition %w : !tile.partition<in, ?x?xbf16, tile = [128, 64]>
  %nk = tile.num_tiles %px, 1 : !tile.partition<in, ?x?xbf16, tile = [64, 64]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %z) -> tensor<64x128xf32> {
    %xt = tile.load %px[%m, %k] : !tile.partition<in, ?x?xbf16, tile = [64, 64]> -> tensor<64x64xbf16>
    %wt = tile.load %pw[%n, %k] : !tile.partition<in, ?x?xbf16, tile = [128, 64]> -> tensor<128x64xbf16>
    %wT = tile.permute %wt [1, 0] : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %wT, %a : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %o = tile.convert %acc : tensor<64x128xf32> -> tensor<64x128xbf16>
  %b = tile.own %py[%m, %n] : !tile.partition<out, ?x?xbf16, tile = [64, 128]>
  tile.store %o, %b : tensor<64x128xbf16>, !tile.owned<out, 64x128xbf16>
  tile.return
}
