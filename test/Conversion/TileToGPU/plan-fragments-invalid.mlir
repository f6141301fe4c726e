// RUN: tile-opt %s --split-input-file --tile-verify-ownership --tile-plan-fragments -verify-diagnostics

// Plans pinned by hand that the kernel cannot follow are errors.
// A layout for other warps than the kernel runs.
tile.kernel @other_warps(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 4 : i64}]} : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{is for 2 warps, the kernel runs 4}}
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 2 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// A layout that does not fit its tile.
tile.kernel @misfit(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  // expected-error @+1 {{does not fit 'tensor<64x32xf16>'}}
  %at = tile.load %pa[%c0, %c0] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// An unknown kind.
tile.kernel @unknown_kind(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  // expected-error @+1 {{unknown kind 'blocked'}}
  %at = tile.load %pa[%c0, %c0] {tile.fragments = [{kind = "blocked", m = 64 : i64, warps = 4 : i64}]} : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// One entry per result.
tile.kernel @entries(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 4 : i64}]} : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  // expected-error @+1 {{0 entries for 1 values}}
  %z = arith.constant {tile.fragments = []} dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// A fragment dot whose A has no layout.
tile.kernel @no_a_layout(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{its result, accumulator and A must have fragment layouts}}
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// A folded permute that does not feed a fragment dot as B.
tile.kernel @folded_permute(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 4 : i64}]} : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  // expected-error @+1 {{not a [1, 0] permute that only feeds fragment dots as B}}
  %bp = tile.permute %bt [1, 0] {tile.folded_permute} : tensor<32x64xf16> -> tensor<64x32xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "mma_sync", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// A path other than wgmma or mma_sync.
tile.kernel @bad_path(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 4 : i64}]} : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{tile.fragment_dot: expected "wgmma" or "mma_sync", got "fma"}}
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "fma", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 4 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}

// -----

// wgmma pinned on a kernel of 2 warps (not a warpgroup).
tile.kernel @wgmma_two_warps(%a: !tile.view<in, 64x32xf16>, %b: !tile.view<in, 32x64xf16>, %c: !tile.view<out, 64x64xf32>) attributes {tile.num_warps = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.grid %c1
  %pa = tile.partition %a : !tile.partition<in, 64x32xf16, tile = [64, 32]>
  %pb = tile.partition %b : !tile.partition<in, 32x64xf16, tile = [32, 64]>
  %pc = tile.partition %c : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  %at = tile.load %pa[%c0, %c0] {tile.fragments = [{kind = "acc", m = 64 : i64, n = 32 : i64, warps = 2 : i64}]} : !tile.partition<in, 64x32xf16, tile = [64, 32]> -> tensor<64x32xf16>
  %bt = tile.load %pb[%c0, %c0] : !tile.partition<in, 32x64xf16, tile = [32, 64]> -> tensor<32x64xf16>
  %z = arith.constant {tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 2 : i64}]} dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{the dot cannot run on wgmma: 2 warps are not whole warpgroups}}
  %d = tile.dot %at, %bt, %z {tile.fragment_dot = "wgmma", tile.fragments = [{kind = "acc", m = 64 : i64, n = 64 : i64, warps = 2 : i64}]} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %blk = tile.own %pc[%c0, %c0] : !tile.partition<out, 64x64xf32, tile = [64, 64]>
  tile.store %d, %blk : tensor<64x64xf32>, !tile.owned<out, 64x64xf32>
  tile.return
}
