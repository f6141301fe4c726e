// RUN: tile-opt %s --split-input-file --tile-verify-ownership --convert-tile-to-gpu -verify-diagnostics

// A dot's path pinned by hand (tile.flat_dot) that it cannot take is an
// error.
tile.kernel @bf16_on_mma(%a: !tile.view<in, 16x16xbf16>, %b: !tile.view<in, 16x8xbf16>, %c: !tile.view<out, 16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 16x16xbf16, tile = [16, 16]>
  %pb = tile.partition %b : !tile.partition<in, 16x8xbf16, tile = [16, 8]>
  %pc = tile.partition %c : !tile.partition<out, 16x8xf32, tile = [16, 8]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 16x16xbf16, tile = [16, 16]> -> tensor<16x16xbf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 16x8xbf16, tile = [16, 8]> -> tensor<16x8xbf16>
  %z = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{tile.flat_dot: the dot cannot run on mma.sync: bf16 operands (staged mma.sync takes f16)}}
  %d = tile.dot %at, %bt, %z {tile.flat_dot = "mma_sync"} : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 16x8xf32, tile = [16, 8]>
  tile.store %d, %blk : tensor<16x8xf32>, !tile.owned<out, 16x8xf32>
  tile.return
}

// -----

tile.kernel @unknown_path(%a: !tile.view<in, 16x16xf16>, %b: !tile.view<in, 16x8xf16>, %c: !tile.view<out, 16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 16x16xf16, tile = [16, 16]>
  %pb = tile.partition %b : !tile.partition<in, 16x8xf16, tile = [16, 8]>
  %pc = tile.partition %c : !tile.partition<out, 16x8xf32, tile = [16, 8]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 16x16xf16, tile = [16, 16]> -> tensor<16x16xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 16x8xf16, tile = [16, 8]> -> tensor<16x8xf16>
  %z = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{tile.flat_dot: expected "mma_sync" or "fma", got "wgmma"}}
  %d = tile.dot %at, %bt, %z {tile.flat_dot = "wgmma"} : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 16x8xf32, tile = [16, 8]>
  tile.store %d, %blk : tensor<16x8xf32>, !tile.owned<out, 16x8xf32>
  tile.return
}
