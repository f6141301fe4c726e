//===- HostRunnerTest.cpp - every tile op on the host vs C++ references ---===//
//
// Each test compiles a small kernel with the tile-to-cpu pipeline, runs it
// through the JIT on random inputs with poisoned outputs, and compares with a
// plain C++ reference computed in double precision.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtils.h"

using namespace tile;
using namespace tile::testing;

namespace {

TEST(HostRunner, CopyWithPartialEdgeTiles) {
  // 10 rows in blocks of 4: the last block has 2 rows, masked on store.
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @copy(%x: !tile.view<in, ?x64xf32>, %y: !tile.view<out, ?x64xf32>) {
      %pid = tile.program_id x
      %c0 = arith.constant 0 : index
      %px = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [4, 64]>
      %py = tile.partition %y : !tile.partition<out, ?x64xf32, tile = [4, 64]>
      %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x64xf32, tile = [4, 64]>
      tile.grid %n
      %t = tile.load %px[%pid, %c0] : !tile.partition<in, ?x64xf32, tile = [4, 64]> -> tensor<4x64xf32>
      %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x64xf32, tile = [4, 64]>
      tile.store %t, %b : tensor<4x64xf32>, !tile.owned<out, 4x64xf32>
      tile.return
    })mlir");
  std::vector<float> x = randomFloats(10 * 64, -2, 2, 1);
  // Two guard rows after y catch a store past the view.
  std::vector<float> y = poisoned32(12 * 64);
  runOrFail(r, "copy",
            {HostArg::view(x.data(), {10, 64}), HostArg::view(y.data(), {10, 64})},
            {3, 1, 1});
  std::vector<float> got(y.begin(), y.begin() + 10 * 64);
  expectClose(got, std::vector<double>(x.begin(), x.end()), 0);
  for (size_t i = 10 * 64; i < y.size(); ++i)
    ASSERT_TRUE(isPoison(y[i])) << "store past the view at " << i;
}

TEST(HostRunner, LoadsPadOutsideTheView) {
  // Program i reads block i + 1: the last program reads padding.
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @shift(%x: !tile.view<in, ?xf32>, %y: !tile.view<out, ?xf32>) {
      %pid = tile.program_id x
      %c1 = arith.constant 1 : index
      %px = tile.partition %x : !tile.partition<in, ?xf32, tile = [8]>
      %py = tile.partition %y : !tile.partition<out, ?xf32, tile = [8]>
      %n = tile.num_tiles %py, 0 : !tile.partition<out, ?xf32, tile = [8]>
      tile.grid %n
      %next = arith.addi %pid, %c1 : index
      %t = tile.load %px[%next] padding = 7.5 : f32 : !tile.partition<in, ?xf32, tile = [8]> -> tensor<8xf32>
      %b = tile.own %py[%pid] : !tile.partition<out, ?xf32, tile = [8]>
      tile.store %t, %b : tensor<8xf32>, !tile.owned<out, 8xf32>
      tile.return
    })mlir");
  std::vector<float> x = randomFloats(20, -1, 1, 2);
  std::vector<float> y = poisoned32(20);
  runOrFail(r, "shift", {HostArg::view(x.data(), {20}), HostArg::view(y.data(), {20})},
            {3, 1, 1});
  std::vector<double> ref(20);
  for (int i = 0; i < 20; ++i)
    ref[i] = i + 8 < 20 ? x[i + 8] : 7.5;
  expectClose(y, ref, 0);
}

TEST(HostRunner, RMSNormBF16MatchesDoubleReference) {
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @rmsnorm(%x: !tile.view<in, ?x256xbf16>, %w: !tile.view<in, 256xbf16>,
                         %y: !tile.view<out, ?x256xbf16>, %eps: f32) {
      %pid = tile.program_id x
      %c0 = arith.constant 0 : index
      %px = tile.partition %x : !tile.partition<in, ?x256xbf16, tile = [2, 256]>
      %pw = tile.partition %w : !tile.partition<in, 256xbf16, tile = [256]>
      %py = tile.partition %y : !tile.partition<out, ?x256xbf16, tile = [2, 256]>
      %n = tile.num_tiles %py, 0 : !tile.partition<out, ?x256xbf16, tile = [2, 256]>
      tile.grid %n
      %xt = tile.load %px[%pid, %c0] : !tile.partition<in, ?x256xbf16, tile = [2, 256]> -> tensor<2x256xbf16>
      %x32 = tile.convert %xt : tensor<2x256xbf16> -> tensor<2x256xf32>
      %sq = arith.mulf %x32, %x32 : tensor<2x256xf32>
      %s = tile.reduce %sq dim = 1 : (tensor<2x256xf32>) -> tensor<2x1xf32> {
      ^bb0(%a: f32, %b: f32):
        %t = arith.addf %a, %b : f32
        tile.yield %t : f32
      }
      %cn = arith.constant dense<256.0> : tensor<2x1xf32>
      %mean = arith.divf %s, %cn : tensor<2x1xf32>
      %e = tile.splat %eps : tensor<2x1xf32>
      %v = arith.addf %mean, %e : tensor<2x1xf32>
      %inv = math.rsqrt %v : tensor<2x1xf32>
      %ib = tile.broadcast %inv : tensor<2x1xf32> -> tensor<2x256xf32>
      %nrm = arith.mulf %x32, %ib : tensor<2x256xf32>
      %nb = tile.convert %nrm : tensor<2x256xf32> -> tensor<2x256xbf16>
      %wt = tile.load %pw[%c0] : !tile.partition<in, 256xbf16, tile = [256]> -> tensor<256xbf16>
      %w2 = tile.reshape %wt : tensor<256xbf16> -> tensor<1x256xbf16>
      %wb = tile.broadcast %w2 : tensor<1x256xbf16> -> tensor<2x256xbf16>
      %o = arith.mulf %nb, %wb : tensor<2x256xbf16>
      %b = tile.own %py[%pid, %c0] : !tile.partition<out, ?x256xbf16, tile = [2, 256]>
      tile.store %o, %b : tensor<2x256xbf16>, !tile.owned<out, 2x256xbf16>
      tile.return
    })mlir");
  const int rows = 5;
  std::vector<float> xf = randomFloats(rows * 256, -3, 3, 3);
  std::vector<float> wf = randomFloats(256, 0.5, 1.5, 4);
  std::vector<uint16_t> x(xf.size()), w(wf.size()), y(rows * 256, kPoison16);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = toBF16(xf[i]);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = toBF16(wf[i]);
  float eps = 1e-6f;
  runOrFail(r, "rmsnorm",
            {HostArg::view(x.data(), {rows, 256}), HostArg::view(w.data(), {256}),
             HostArg::view(y.data(), {rows, 256}), HostArg::f32(eps)},
            {3, 1, 1});
  std::vector<float> got;
  std::vector<double> ref;
  for (int i = 0; i < rows; ++i) {
    double ss = 0;
    for (int j = 0; j < 256; ++j)
      ss += double(fromBF16(x[i * 256 + j])) * fromBF16(x[i * 256 + j]);
    double inv = 1.0 / std::sqrt(ss / 256 + eps);
    for (int j = 0; j < 256; ++j) {
      ASSERT_NE(y[i * 256 + j], kPoison16) << "unwritten " << i << "," << j;
      got.push_back(fromBF16(y[i * 256 + j]));
      ref.push_back(fromBF16(x[i * 256 + j]) * inv * fromBF16(w[j]));
    }
  }
  // Two bf16 roundings (normalized value, product): ~2^-8 each.
  expectClose(got, ref, 1.6e-2, 1e-3);
}

TEST(HostRunner, ArgmaxReduceTiesToTheSmallerIndex) {
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @argmax(%x: !tile.view<in, 4x64xf32>, %out: !tile.view<out, 4x1xi32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid %c1
      %px = tile.partition %x : !tile.partition<in, 4x64xf32, tile = [4, 64]>
      %v = tile.load %px[%c0, %c0] : !tile.partition<in, 4x64xf32, tile = [4, 64]> -> tensor<4x64xf32>
      %i = tile.iota : tensor<64xi32>
      %i2 = tile.reshape %i : tensor<64xi32> -> tensor<1x64xi32>
      %ib = tile.broadcast %i2 : tensor<1x64xi32> -> tensor<4x64xi32>
      %mv, %mi = tile.reduce %v, %ib dim = 1 : (tensor<4x64xf32>, tensor<4x64xi32>) -> (tensor<4x1xf32>, tensor<4x1xi32>) {
      ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
        %gt = arith.cmpf ogt, %bv, %av : f32
        %eq = arith.cmpf oeq, %bv, %av : f32
        %lt = arith.cmpi slt, %bi, %ai : i32
        %tie = arith.andi %eq, %lt : i1
        %take = arith.ori %gt, %tie : i1
        %rv = arith.select %take, %bv, %av : f32
        %ri = arith.select %take, %bi, %ai : i32
        tile.yield %rv, %ri : f32, i32
      }
      %po = tile.partition %out : !tile.partition<out, 4x1xi32, tile = [4, 1]>
      %b = tile.own %po[%c0, %c0] : !tile.partition<out, 4x1xi32, tile = [4, 1]>
      tile.store %mi, %b : tensor<4x1xi32>, !tile.owned<out, 4x1xi32>
      tile.return
    })mlir");
  std::vector<float> x = randomFloats(4 * 64, -1, 1, 5);
  x[1 * 64 + 10] = 5;
  x[1 * 64 + 3] = 5; // tie: index 3 wins
  x[3 * 64 + 63] = 9;
  std::vector<int32_t> out(4, -7);
  runOrFail(r, "argmax", {HostArg::view(x.data(), {4, 64}), HostArg::view(out.data(), {4, 1})},
            {1, 1, 1});
  for (int i = 0; i < 4; ++i) {
    int best = 0;
    for (int j = 1; j < 64; ++j)
      if (x[i * 64 + j] > x[i * 64 + best])
        best = j;
    EXPECT_EQ(out[i], best) << "row " << i;
  }
  EXPECT_EQ(out[1], 3);
}

TEST(HostRunner, RotateHalfWithSliceConcatPermuteExtract) {
  // y = concat(-x[64:], x[:64]) * x[0]; then a transpose through permute.
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @rope(%x: !tile.view<in, 2x128xf32>, %y: !tile.view<out, 128x2xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid %c1
      %px = tile.partition %x : !tile.partition<in, 2x128xf32, tile = [2, 128]>
      %t = tile.load %px[%c0, %c0] : !tile.partition<in, 2x128xf32, tile = [2, 128]> -> tensor<2x128xf32>
      %lo = tile.slice %t [0, 0] : tensor<2x128xf32> -> tensor<2x64xf32>
      %hi = tile.slice %t [0, 64] : tensor<2x128xf32> -> tensor<2x64xf32>
      %nhi = arith.negf %hi : tensor<2x64xf32>
      %rot = tile.concat %nhi, %lo dim = 1 : tensor<2x64xf32>, tensor<2x64xf32> -> tensor<2x128xf32>
      %s = tile.extract %t [0, 0] : tensor<2x128xf32>
      %sv = tile.splat %s : tensor<2x128xf32>
      %m = arith.mulf %rot, %sv : tensor<2x128xf32>
      %p = tile.permute %m [1, 0] : tensor<2x128xf32> -> tensor<128x2xf32>
      %py = tile.partition %y : !tile.partition<out, 128x2xf32, tile = [128, 2]>
      %b = tile.own %py[%c0, %c0] : !tile.partition<out, 128x2xf32, tile = [128, 2]>
      tile.store %p, %b : tensor<128x2xf32>, !tile.owned<out, 128x2xf32>
      tile.return
    })mlir");
  std::vector<float> x = randomFloats(256, -1, 1, 6);
  std::vector<float> y = poisoned32(256);
  runOrFail(r, "rope", {HostArg::view(x.data(), {2, 128}), HostArg::view(y.data(), {128, 2})},
            {1, 1, 1});
  std::vector<double> ref(256);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 128; ++j) {
      double rot = j < 64 ? -x[i * 128 + j + 64] : x[i * 128 + j - 64];
      ref[j * 2 + i] = rot * x[0];
    }
  expectClose(y, ref, 1e-6);
}

TEST(HostRunner, RollWrapsAlongEitherDim) {
  // y = roll(roll(x, 67, dim 1), -3, dim 0) over a 6 x 128 tile: element
  // (i, j) of y is x((i + 3) mod 6, (j - 67) mod 128).
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @roll(%x: !tile.view<in, 6x128xf32>, %y: !tile.view<out, 6x128xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid %c1
      %px = tile.partition %x : !tile.partition<in, 6x128xf32, tile = [6, 128]>
      %t = tile.load %px[%c0, %c0] : !tile.partition<in, 6x128xf32, tile = [6, 128]> -> tensor<6x128xf32>
      %a = tile.roll %t shift = 67 dim = 1 : tensor<6x128xf32>
      %b = tile.roll %a shift = -3 dim = 0 : tensor<6x128xf32>
      %py = tile.partition %y : !tile.partition<out, 6x128xf32, tile = [6, 128]>
      %o = tile.own %py[%c0, %c0] : !tile.partition<out, 6x128xf32, tile = [6, 128]>
      tile.store %b, %o : tensor<6x128xf32>, !tile.owned<out, 6x128xf32>
      tile.return
    })mlir");
  std::vector<float> x = randomFloats(6 * 128, -1, 1, 11);
  std::vector<float> y = poisoned32(6 * 128);
  runOrFail(
      r, "roll",
      {HostArg::view(x.data(), {6, 128}), HostArg::view(y.data(), {6, 128})},
      {1, 1, 1});
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 128; ++j)
      ASSERT_EQ(y[i * 128 + j], x[((i + 3) % 6) * 128 + (j + 128 - 67) % 128])
          << "y[" << i << ", " << j << "]";
}

TEST(HostRunner, DotF16AccumulatesInF32) {
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @gemm(%a: !tile.view<in, ?x?xf16, strides = [?, 1]>, %b: !tile.view<in, ?x?xf16, strides = [?, 1]>,
                      %c: !tile.view<out, ?x?xf32, strides = [?, 1]>) {
      %m = tile.program_id x
      %n = tile.program_id y
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %pa = tile.partition %a : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [16, 16]>
      %pb = tile.partition %b : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [16, 16]>
      %pc = tile.partition %c : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
      %tm = tile.num_tiles %pc, 0 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
      %tn = tile.num_tiles %pc, 1 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
      tile.grid %tm, %tn
      %tk = tile.num_tiles %pa, 1 : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [16, 16]>
      %z = arith.constant dense<0.0> : tensor<16x16xf32>
      %acc = scf.for %k = %c0 to %tk step %c1 iter_args(%acc0 = %z) -> tensor<16x16xf32> {
        %at = tile.load %pa[%m, %k] : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [16, 16]> -> tensor<16x16xf16>
        %bt = tile.load %pb[%k, %n] : !tile.partition<in, ?x?xf16, strides = [?, 1], tile = [16, 16]> -> tensor<16x16xf16>
        %d = tile.dot %at, %bt, %acc0 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
        scf.yield %d : tensor<16x16xf32>
      }
      %blk = tile.own %pc[%m, %n] : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [16, 16]>
      tile.store %acc, %blk : tensor<16x16xf32>, !tile.owned<out, 16x16xf32>
      tile.return
    })mlir");
  const int M = 37, N = 20, K = 50; // none a multiple of the tile
  std::vector<float> af = randomFloats(M * K, -1, 1, 7), bf = randomFloats(K * N, -1, 1, 8);
  std::vector<uint16_t> a(M * K), b(K * N);
  for (int i = 0; i < M * K; ++i) a[i] = toHalf(af[i]);
  for (int i = 0; i < K * N; ++i) b[i] = toHalf(bf[i]);
  std::vector<float> c = poisoned32(M * N);
  runOrFail(r, "gemm",
            {HostArg::view(a.data(), {M, K}), HostArg::view(b.data(), {K, N}),
             HostArg::view(c.data(), {M, N})},
            {3, 2, 1});
  std::vector<double> ref(M * N, 0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < K; ++k)
        ref[i * N + j] += double(fromHalf(a[i * K + k])) * fromHalf(b[k * N + j]);
  expectClose(c, ref, 1e-5, 1e-5);
}

TEST(HostRunner, ParallelProgramsMatchSequentialOnes) {
  // Race-free by proof, so any schedule of programs gives the same bytes.
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @blocks(%x: !tile.view<in, ?x?xf32, strides = [?, 1]>, %y: !tile.view<out, ?x?xf32, strides = [?, 1]>) {
      %i = tile.program_id x
      %j = tile.program_id y
      %px = tile.partition %x : !tile.partition<in, ?x?xf32, strides = [?, 1], tile = [8, 8]>
      %py = tile.partition %y : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [8, 8]>
      %ni = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [8, 8]>
      %nj = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [8, 8]>
      tile.grid %ni, %nj
      %t = tile.load %px[%i, %j] : !tile.partition<in, ?x?xf32, strides = [?, 1], tile = [8, 8]> -> tensor<8x8xf32>
      %e = math.exp %t : tensor<8x8xf32>
      %b = tile.own %py[%i, %j] : !tile.partition<out, ?x?xf32, strides = [?, 1], tile = [8, 8]>
      tile.store %e, %b : tensor<8x8xf32>, !tile.owned<out, 8x8xf32>
      tile.return
    })mlir");
  const int M = 61, N = 77;
  std::vector<float> x = randomFloats(M * N, -3, 3, 14);
  std::vector<float> serial = poisoned32(M * N), parallel = poisoned32(M * N);
  std::array<int64_t, 3> grid = {8, 10, 1};
  ASSERT_FALSE(static_cast<bool>(r.run(
      "blocks", {HostArg::view(x.data(), {M, N}), HostArg::view(serial.data(), {M, N})},
      grid, /*threads=*/1)));
  ASSERT_FALSE(static_cast<bool>(r.run(
      "blocks", {HostArg::view(x.data(), {M, N}), HostArg::view(parallel.data(), {M, N})},
      grid, /*threads=*/7)));
  EXPECT_EQ(0, std::memcmp(serial.data(), parallel.data(), serial.size() * 4));
  std::vector<double> ref(M * N);
  for (int i = 0; i < M * N; ++i)
    ref[i] = std::exp(double(x[i]));
  expectClose(parallel, ref, 1e-6);
}

TEST(HostRunner, GatherReadsPaddingForBadIds) {
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @embed(%ids: !tile.view<in, 4xi32>, %t: !tile.view<in, 10x8xf32>, %o: !tile.view<out, 4x8xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid %c1
      %pi = tile.partition %ids : !tile.partition<in, 4xi32, tile = [4]>
      %id = tile.load %pi[%c0] : !tile.partition<in, 4xi32, tile = [4]> -> tensor<4xi32>
      %pt = tile.partition %t : !tile.partition<in, 10x8xf32, tile = [1, 8]>
      %rows = tile.gather %pt[%id, %c0] padding = -1.0 : f32 : !tile.partition<in, 10x8xf32, tile = [1, 8]>, tensor<4xi32> -> tensor<4x8xf32>
      %po = tile.partition %o : !tile.partition<out, 4x8xf32, tile = [4, 8]>
      %b = tile.own %po[%c0, %c0] : !tile.partition<out, 4x8xf32, tile = [4, 8]>
      tile.store %rows, %b : tensor<4x8xf32>, !tile.owned<out, 4x8xf32>
      tile.return
    })mlir");
  std::vector<int32_t> ids = {3, -1, 9, 10};
  std::vector<float> table = randomFloats(80, 0.5, 1, 9);
  std::vector<float> out = poisoned32(32);
  runOrFail(r, "embed",
            {HostArg::view(ids.data(), {4}), HostArg::view(table.data(), {10, 8}),
             HostArg::view(out.data(), {4, 8})},
            {1, 1, 1});
  std::vector<double> ref(32);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j)
      ref[i * 8 + j] = ids[i] >= 0 && ids[i] < 10 ? table[ids[i] * 8 + j] : -1.0;
  expectClose(out, ref, 0);
}

TEST(HostRunner, ConvertSaturatesAndRounds) {
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @cvt(%x: !tile.view<in, 8xf32>, %i: !tile.view<out, 8xi32>, %h: !tile.view<out, 8xf16>,
                     %z: !tile.view<out, 8xf16>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid %c1
      %px = tile.partition %x : !tile.partition<in, 8xf32, tile = [8]>
      %t = tile.load %px[%c0] : !tile.partition<in, 8xf32, tile = [8]> -> tensor<8xf32>
      %ti = tile.convert %t : tensor<8xf32> -> tensor<8xi32>
      %th = tile.convert %t : tensor<8xf32> -> tensor<8xf16>
      %tz = tile.convert %t rounding = rtz : tensor<8xf32> -> tensor<8xf16>
      %pi = tile.partition %i : !tile.partition<out, 8xi32, tile = [8]>
      %ph = tile.partition %h : !tile.partition<out, 8xf16, tile = [8]>
      %pz = tile.partition %z : !tile.partition<out, 8xf16, tile = [8]>
      %bi = tile.own %pi[%c0] : !tile.partition<out, 8xi32, tile = [8]>
      tile.store %ti, %bi : tensor<8xi32>, !tile.owned<out, 8xi32>
      %bh = tile.own %ph[%c0] : !tile.partition<out, 8xf16, tile = [8]>
      tile.store %th, %bh : tensor<8xf16>, !tile.owned<out, 8xf16>
      %bz = tile.own %pz[%c0] : !tile.partition<out, 8xf16, tile = [8]>
      tile.store %tz, %bz : tensor<8xf16>, !tile.owned<out, 8xf16>
      tile.return
    })mlir");
  float nan = std::nanf("");
  std::vector<float> x = {1.9f, -2.9f, 3e10f, -3e10f, nan, 1.0f + 1.0f / 4096, 65520.f, -0.4f};
  std::vector<int32_t> i(8, 77);
  std::vector<uint16_t> h(8, kPoison16), z(8, kPoison16);
  runOrFail(r, "cvt",
            {HostArg::view(x.data(), {8}), HostArg::view(i.data(), {8}),
             HostArg::view(h.data(), {8}), HostArg::view(z.data(), {8})},
            {1, 1, 1});
  EXPECT_EQ(i, (std::vector<int32_t>{1, -2, INT32_MAX, INT32_MIN, 0, 1, 65520, 0}));
  for (int k = 0; k < 8; ++k) {
    if (k == 4) {
      EXPECT_TRUE(std::isnan(fromHalf(h[k])));
      continue;
    }
    EXPECT_EQ(h[k], toHalf(x[k])) << "round to nearest even, element " << k;
  }
  // 1 + 2^-12 is below half an f16 ulp (2^-10): both modes give 1.0;
  // 65520 rounds up to inf to nearest, down to 65504 toward zero.
  EXPECT_EQ(fromHalf(z[5]), 1.0f);
  EXPECT_EQ(fromHalf(h[6]), INFINITY);
  EXPECT_EQ(fromHalf(z[6]), 65504.0f);
  EXPECT_EQ(fromHalf(z[0]), 1.8994140625f) << "1.9 truncated toward zero";
}

// e4m3fn (FP8 weights) widens exactly: every finite byte against the
// format's definition, (-1)^s 2^(e-7) (1 + m/8), subnormals 2^-6 (m/8).
TEST(HostRunner, E4M3WidensExactly) {
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @widen(%x: !tile.view<in, 256xf8E4M3FN>, %f: !tile.view<out, 256xf32>,
                       %h: !tile.view<out, 256xbf16>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.grid %c1
      %px = tile.partition %x : !tile.partition<in, 256xf8E4M3FN, tile = [256]>
      %t = tile.load %px[%c0] : !tile.partition<in, 256xf8E4M3FN, tile = [256]> -> tensor<256xf8E4M3FN>
      %tf = tile.convert %t : tensor<256xf8E4M3FN> -> tensor<256xf32>
      %th = tile.convert %t : tensor<256xf8E4M3FN> -> tensor<256xbf16>
      %pf = tile.partition %f : !tile.partition<out, 256xf32, tile = [256]>
      %ph = tile.partition %h : !tile.partition<out, 256xbf16, tile = [256]>
      %bf = tile.own %pf[%c0] : !tile.partition<out, 256xf32, tile = [256]>
      tile.store %tf, %bf : tensor<256xf32>, !tile.owned<out, 256xf32>
      %bh = tile.own %ph[%c0] : !tile.partition<out, 256xbf16, tile = [256]>
      tile.store %th, %bh : tensor<256xbf16>, !tile.owned<out, 256xbf16>
      tile.return
    })mlir");
  std::vector<uint8_t> x(256);
  for (int b = 0; b < 256; ++b)
    x[b] = static_cast<uint8_t>(b);
  std::vector<float> f(256, std::nanf(""));
  std::vector<uint16_t> h(256, kPoison16);
  runOrFail(r, "widen",
            {HostArg::view(x.data(), {256}), HostArg::view(f.data(), {256}),
             HostArg::view(h.data(), {256})},
            {1, 1, 1});
  for (int b = 0; b < 256; ++b) {
    int e = (b >> 3) & 15, m = b & 7;
    if (e == 15 && m == 7)
      continue; // NaN
    double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
    if (b & 0x80)
      v = -v;
    EXPECT_EQ(f[b], static_cast<float>(v)) << "byte " << b;
    EXPECT_EQ(fromBF16(h[b]), static_cast<float>(v)) << "byte " << b;
  }
}

TEST(HostRunner, SubTileLoopsAndInOutBlocks) {
  // y[row] += x[row] through 4 sub-tiles of 16 per owned row of 64.
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @acc(%x: !tile.view<in, ?x64xf32>, %y: !tile.view<inout, ?x64xf32>) {
      %pid = tile.program_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %px = tile.partition %x : !tile.partition<in, ?x64xf32, tile = [1, 16]>
      %py = tile.partition %y : !tile.partition<inout, ?x64xf32, tile = [1, 64]>
      %n = tile.num_tiles %py, 0 : !tile.partition<inout, ?x64xf32, tile = [1, 64]>
      tile.grid %n
      %blk = tile.own %py[%pid, %c0] : !tile.partition<inout, ?x64xf32, tile = [1, 64]>
      scf.for %j = %c0 to %c4 step %c1 {
        %xt = tile.load %px[%pid, %j] : !tile.partition<in, ?x64xf32, tile = [1, 16]> -> tensor<1x16xf32>
        %yt = tile.load %blk[%c0, %j] : !tile.owned<inout, 1x64xf32> -> tensor<1x16xf32>
        %s = arith.addf %xt, %yt : tensor<1x16xf32>
        tile.store %s, %blk[%c0, %j] : tensor<1x16xf32>, !tile.owned<inout, 1x64xf32>
      }
      tile.return
    })mlir");
  std::vector<float> x = randomFloats(3 * 64, -1, 1, 10), y = randomFloats(3 * 64, -1, 1, 11);
  std::vector<double> ref(3 * 64);
  for (int i = 0; i < 3 * 64; ++i)
    ref[i] = double(x[i]) + y[i];
  runOrFail(r, "acc", {HostArg::view(x.data(), {3, 64}), HostArg::view(y.data(), {3, 64})},
            {3, 1, 1});
  expectClose(y, ref, 1e-7);
}

TEST(HostRunner, StridedViewsAndScalars) {
  // y (column-major) = x (row-major) * s + k, with an i64 and an f32 scalar.
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @axpb(%x: !tile.view<in, ?x?xf32, strides = [?, 1]>, %y: !tile.view<out, ?x?xf32, strides = [1, ?]>,
                      %s: f32, %k: i64) {
      %i = tile.program_id x
      %j = tile.program_id y
      %px = tile.partition %x : !tile.partition<in, ?x?xf32, strides = [?, 1], tile = [4, 4]>
      %py = tile.partition %y : !tile.partition<out, ?x?xf32, strides = [1, ?], tile = [4, 4]>
      %ni = tile.num_tiles %py, 0 : !tile.partition<out, ?x?xf32, strides = [1, ?], tile = [4, 4]>
      %nj = tile.num_tiles %py, 1 : !tile.partition<out, ?x?xf32, strides = [1, ?], tile = [4, 4]>
      tile.grid %ni, %nj
      %t = tile.load %px[%i, %j] : !tile.partition<in, ?x?xf32, strides = [?, 1], tile = [4, 4]> -> tensor<4x4xf32>
      %sv = tile.splat %s : tensor<4x4xf32>
      %kf = arith.sitofp %k : i64 to f32
      %kv = tile.splat %kf : tensor<4x4xf32>
      %m = arith.mulf %t, %sv : tensor<4x4xf32>
      %a = arith.addf %m, %kv : tensor<4x4xf32>
      %b = tile.own %py[%i, %j] : !tile.partition<out, ?x?xf32, strides = [1, ?], tile = [4, 4]>
      tile.store %a, %b : tensor<4x4xf32>, !tile.owned<out, 4x4xf32>
      tile.return
    })mlir");
  const int M = 6, N = 9;
  std::vector<float> x = randomFloats(M * 16, -1, 1, 12); // row stride 16
  std::vector<float> y = poisoned32(M * N);
  runOrFail(r, "axpb",
            {HostArg::view(x.data(), {M, N}, {16, 1}), HostArg::view(y.data(), {M, N}, {1, M}),
             HostArg::f32(0.5f), HostArg::i64(3)},
            {2, 3, 1});
  std::vector<double> ref(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      ref[j * M + i] = double(x[i * 16 + j]) * 0.5 + 3;
  expectClose(y, ref, 1e-6);
}

TEST(HostRunner, UncheckedScatterRuns) {
  HostRunner r = compileOrDie(R"mlir(
    tile.kernel @scatter(%perm: !tile.view<in, 4xi32>, %x: !tile.view<in, 4x8xf32>, %y: !tile.view<out, 4x8xf32>) {
      %pid = tile.program_id x
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      tile.grid %c4
      %pp = tile.partition %perm : !tile.partition<in, 4xi32, tile = [1]>
      %t = tile.load %pp[%pid] : !tile.partition<in, 4xi32, tile = [1]> -> tensor<1xi32>
      %d = tile.extract %t [0] : tensor<1xi32>
      %di = arith.index_cast %d : i32 to index
      %px = tile.partition %x : !tile.partition<in, 4x8xf32, tile = [1, 8]>
      %row = tile.load %px[%pid, %c0] : !tile.partition<in, 4x8xf32, tile = [1, 8]> -> tensor<1x8xf32>
      %py = tile.partition %y : !tile.partition<out, 4x8xf32, tile = [1, 8]>
      tile.unchecked "scatter through a permutation" {
        tile.store %row, %py[%di, %c0] : tensor<1x8xf32>, !tile.partition<out, 4x8xf32, tile = [1, 8]>
      }
      tile.return
    })mlir");
  std::vector<int32_t> perm = {2, 0, 3, 1};
  std::vector<float> x = randomFloats(32, -1, 1, 13), y = poisoned32(32);
  runOrFail(r, "scatter",
            {HostArg::view(perm.data(), {4}), HostArg::view(x.data(), {4, 8}),
             HostArg::view(y.data(), {4, 8})},
            {4, 1, 1});
  std::vector<double> ref(32);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j)
      ref[perm[i] * 8 + j] = x[i * 8 + j];
  expectClose(y, ref, 0);
}

TEST(HostRunner, RejectsKernelsThatFailTheProof) {
  auto r = HostRunner::compileSource(R"mlir(
    tile.kernel @race(%y: !tile.view<out, 8xf32>, %s: f32) {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      tile.grid %c2
      %p = tile.partition %y : !tile.partition<out, 8xf32, tile = [8]>
      %b = tile.own %p[%c0] : !tile.partition<out, 8xf32, tile = [8]>
      tile.return
    })mlir");
  ASSERT_FALSE(static_cast<bool>(r));
  std::string message = llvm::toString(r.takeError());
  EXPECT_NE(message.find("programs (0) and (1) both own elements [0, 8)"),
            std::string::npos)
      << message;
}

} // namespace
