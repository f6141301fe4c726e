// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-async-operands -verify-diagnostics

// A copy-ahead mark pinned on a load that is not the B of a wgmma dot in
// its innermost loop is an error (the lowering would leave it in place).
tile.kernel @not_a_wgmma_operand(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 4 : i64}]} : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  // expected-error @+1 {{tile.copy_ahead: not the B load of a wgmma dot in its innermost loop that can be copied ahead}}
  %bt = tile.load %pb[%c0, %c0] {tile.copy_ahead} : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}
