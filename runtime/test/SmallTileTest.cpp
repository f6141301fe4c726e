//===- SmallTileTest.cpp - small tiles kept in registers ------------------===//
//
// Compiled for the CPU and the CUDA device, as DeviceTest.cpp. On the GPU
// these kernels' reductions, broadcasts and shape ops take no shared
// memory: a row's sum kept in each thread of its warp, a column reduced by
// shuffles, rows of one vector folded in their own thread, columns of a
// tile folded by each thread over its rows and then across threads (the
// one shared-memory step: a partial per warp), loop-carried
// single elements given to the warp by lane 0, slices, concats, reshapes,
// broadcasts and permutes of tiles in the first warp as shuffles
// (test/Conversion/TileToGPU/reduce-in-registers.mlir and
// warp-shuffles.mlir check the lowering; this, the values). Each is
// checked element by element against a double reference, on poisoned
// outputs.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include <cmath>

using namespace tile_runtime;
using namespace tile_runtime::test;

namespace {

class SmallTileTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_OK(rt.open(TILE_TEST_DEVICE)); }

  // Launches `kernel` on x ([rows, cols]) into a poisoned y of the same
  // shape, and checks every element against want(row, x row).
  template <typename Want>
  void expectRows(const char *kernel, int rows, int cols, Want want,
                  double tol) {
    auto x = randomFloats(rows * cols, -4, 4, 5 + cols);
    Buffer bx = rt.upload(x);
    Buffer by = rt.upload(poisoned32(rows * cols));
    ASSERT_OK(
        rt.stream().launch(rt.kernel(kernel), {Arg::in(bx, {rows, cols}),
                                               Arg::out(by, {rows, cols})}));
    std::vector<float> y = rt.download(by);
    std::vector<double> ref(cols);
    for (int r = 0; r < rows; ++r) {
      want(&x[static_cast<size_t>(r) * cols], ref.data());
      for (int c = 0; c < cols; ++c) {
        float got = y[static_cast<size_t>(r) * cols + c];
        ASSERT_FALSE(isPoison(got)) << kernel << " row " << r << " col " << c;
        ASSERT_LE(std::abs(got - ref[c]), tol * std::abs(ref[c]) + 1e-30)
            << kernel << " row " << r << " col " << c;
      }
    }
  }

  Loaded rt;
};

void softmax(const float *x, double *y, int n) {
  double m = -INFINITY, s = 0;
  for (int i = 0; i < n; ++i)
    m = std::max(m, double(x[i]));
  for (int i = 0; i < n; ++i)
    s += std::exp(double(x[i]) - m);
  for (int i = 0; i < n; ++i)
    y[i] = std::exp(double(x[i]) - m) / s;
}

TEST_F(SmallTileTest, RowRmsBroadcastsTheRowsMeanSquare) {
  expectRows(
      "row_rms", 45, 128,
      [](const float *x, double *y) {
        double ss = 0;
        for (int i = 0; i < 128; ++i)
          ss += double(x[i]) * x[i];
        double r = 1 / std::sqrt(ss / 128 + 1e-6);
        for (int i = 0; i < 128; ++i)
          y[i] = x[i] * r;
      },
      1e-5);
}

TEST_F(SmallTileTest, SoftmaxOverAColumnOf32) {
  // [rows, 1]: program n takes rows 32n .. 32n + 31 as one column.
  const int blocks = 23;
  auto x = randomFloats(blocks * 32, -6, 6, 17);
  Buffer bx = rt.upload(x);
  Buffer by = rt.upload(poisoned32(blocks * 32));
  ASSERT_OK(rt.stream().launch(
      rt.kernel("softmax_columns"),
      {Arg::in(bx, {blocks * 32, 1}), Arg::out(by, {blocks * 32, 1})}));
  std::vector<float> y = rt.download(by);
  double ref[32];
  for (int n = 0; n < blocks; ++n) {
    softmax(&x[n * 32], ref, 32);
    for (int i = 0; i < 32; ++i) {
      ASSERT_FALSE(isPoison(y[n * 32 + i])) << "element " << n * 32 + i;
      ASSERT_LE(std::abs(y[n * 32 + i] - ref[i]), 1e-5 * ref[i])
          << "element " << n * 32 + i;
    }
  }
}

TEST_F(SmallTileTest, SoftmaxOverRowsOfEight) {
  // 150 rows: the last program's 64-row block is partial.
  expectRows(
      "softmax_rows8", 150, 8,
      [](const float *x, double *y) { softmax(x, y, 8); }, 1e-5);
}

TEST_F(SmallTileTest, WeightedSumsOverColumns) {
  struct Shape {
    const char *kernel;
    int rows, cols; // R, D of the instance
  };
  for (Shape sh :
       {Shape{"weighted_rows", 48, 128}, Shape{"weighted_rows__R_6", 6, 128},
        Shape{"weighted_rows__R_20__D_64", 20, 64}}) {
    const int outs = 9, R = sh.rows, D = sh.cols;
    auto x = randomFloats(outs * R * D, -3, 3, 41 + R);
    auto lse = randomFloats(outs * R, -8, 8, 43 + R);
    Buffer bx = rt.upload(x), bl = rt.upload(lse);
    Buffer by = rt.upload(poisoned32(outs * D));
    ASSERT_OK(
        rt.stream().launch(rt.kernel(sh.kernel), {Arg::in(bx, {outs * R, D}),
                                                  Arg::in(bl, {outs * R, 1}),
                                                  Arg::out(by, {outs, D})}));
    std::vector<float> y = rt.download(by);
    for (int n = 0; n < outs; ++n) {
      double m = -INFINITY, s = 0;
      for (int r = 0; r < R; ++r)
        m = std::max(m, double(lse[n * R + r]));
      for (int r = 0; r < R; ++r)
        s += std::exp(double(lse[n * R + r]) - m);
      for (int d = 0; d < D; ++d) {
        double want = 0;
        for (int r = 0; r < R; ++r)
          want +=
              std::exp(double(lse[n * R + r]) - m) / s * x[(n * R + r) * D + d];
        float got = y[n * D + d];
        ASSERT_FALSE(isPoison(got))
            << sh.kernel << " y[" << n << ", " << d << "]";
        // Weights of one row in [0, 1] summing to 1 over values of |x| <= 3.
        ASSERT_LE(std::abs(got - want), 1e-5 * (std::abs(want) + 1))
            << sh.kernel << " y[" << n << ", " << d << "]";
      }
    }
  }
}

TEST_F(SmallTileTest, ArgmaxOverColumnsTakesTheFirstOfTies) {
  // Values from {-2, ..., 2}: most columns hold their maximum in several
  // rows, and the first of them must win whichever thread held it.
  const int outs = 7, R = 20, D = 64;
  auto x = randomFloats(outs * R * D, -2.49f, 2.49f, 53);
  for (float &e : x)
    e = std::round(e);
  Buffer bx = rt.upload(x);
  Buffer bv = rt.upload(poisoned32(outs * D));
  Buffer bi;
  ASSERT_OK(rt.device->allocate(DType::I32, outs * D, bi));
  std::vector<int32_t> poison(outs * D, -7);
  ASSERT_OK(rt.stream().copyToDevice(bi, poison.data(), poison.size() * 4));
  ASSERT_OK(
      rt.stream().launch(rt.kernel("argmax_rows"),
                         {Arg::in(bx, {outs * R, D}), Arg::out(bv, {outs, D}),
                          Arg::out(bi, {outs, D})}));
  std::vector<float> v = rt.download(bv);
  std::vector<int32_t> idx(outs * D);
  ASSERT_OK(rt.stream().copyToHost(idx.data(), bi, idx.size() * 4));
  ASSERT_OK(rt.stream().synchronize());
  int ties = 0;
  for (int n = 0; n < outs; ++n)
    for (int d = 0; d < D; ++d) {
      int first = 0, count = 0;
      for (int r = 0; r < R; ++r)
        if (x[(n * R + r) * D + d] > x[(n * R + first) * D + d])
          first = r;
      for (int r = 0; r < R; ++r)
        count += x[(n * R + r) * D + d] == x[(n * R + first) * D + d];
      ties += count > 1;
      ASSERT_EQ(v[n * D + d], x[(n * R + first) * D + d])
          << "v[" << n << ", " << d << "]";
      ASSERT_EQ(idx[n * D + d], first) << "i[" << n << ", " << d << "]";
    }
  EXPECT_GT(ties, outs * D / 2) << "the input should tie in most columns";
}

TEST_F(SmallTileTest, LoopCarriedLogSumExpOverRowsReadFromDevice) {
  const int xrows = 40, outs = 7;
  auto x = randomFloats(xrows * 6, -3, 3, 23);
  Buffer bx = rt.upload(x);
  for (int32_t count : {29, 0, 1000}) { // 1000: clamped to the 40 rows
    Buffer bc;
    ASSERT_OK(rt.device->allocate(DType::I32, 1, bc));
    ASSERT_OK(rt.stream().copyToDevice(bc, &count, 4));
    Buffer by = rt.upload(poisoned32(outs));
    ASSERT_OK(rt.stream().launch(
        rt.kernel("running_logsumexp"),
        {Arg::in(bx, {xrows, 6}), Arg::in(bc, {1}), Arg::out(by, {outs})}));
    std::vector<float> y = rt.download(by);
    int rows = std::min(count, xrows);
    for (int n = 0; n < outs; ++n) {
      ASSERT_FALSE(isPoison(y[n])) << "output " << n << ", count " << count;
      if (rows == 0) { // no rows: log(0) + -inf
        EXPECT_TRUE(std::isinf(y[n]) && y[n] < 0)
            << "output " << n << ": " << y[n];
        continue;
      }
      double m = -INFINITY, s = 0;
      for (int i = 0; i < rows * 6; ++i)
        m = std::max(m, double(x[i]) * (n + 1));
      for (int i = 0; i < rows * 6; ++i)
        s += std::exp(double(x[i]) * (n + 1) - m);
      double want = m + std::log(s);
      EXPECT_LE(std::abs(y[n] - want), 1e-5 * std::abs(want) + 1e-5)
          << "output " << n << ", count " << count;
    }
  }
}

TEST_F(SmallTileTest, ShapeOpsWithinTheFirstWarp) {
  const int rows = 19;
  auto x = randomFloats(rows * 128, -2, 2, 31);
  Buffer bx = rt.upload(x);
  Buffer by = rt.upload(poisoned32(rows * 128));
  Buffer bz = rt.upload(poisoned32(rows * 128));
  Buffer bp = rt.upload(poisoned32(rows * 32));
  ASSERT_OK(rt.stream().launch(
      rt.kernel("warp_shapes"),
      {Arg::in(bx, {rows, 128}), Arg::out(by, {rows, 128}),
       Arg::out(bz, {rows, 2, 64}), Arg::out(bp, {rows, 8, 4})}));
  std::vector<float> y = rt.download(by), z = rt.download(bz),
                     p = rt.download(bp);
  for (int n = 0; n < rows; ++n) {
    const float *v = &x[n * 128];
    for (int i = 0; i < 128; ++i) { // rotate-half: exact
      float want = i < 64 ? -v[i + 64] : v[i - 64];
      ASSERT_EQ(y[n * 128 + i], want)
          << "rotate-half row " << n << " element " << i;
    }
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < 64; ++i) {
        float got = z[n * 128 + r * 64 + i];
        ASSERT_FALSE(isPoison(got))
            << "broadcast row " << n << "." << r << " element " << i;
        double want = std::exp(double(v[i]));
        ASSERT_LE(std::abs(got - want), 1e-5 * want)
            << "broadcast row " << n << "." << r << " element " << i;
      }
    for (int r = 0; r < 8; ++r) // p[n] = transpose of v[0:32] as [4, 8]
      for (int c = 0; c < 4; ++c)
        ASSERT_EQ(p[n * 32 + r * 4 + c], v[c * 8 + r])
            << "transpose row " << n << " (" << r << ", " << c << ")";
  }
}

// roll along the rows, every element exactly where torch.roll puts it, for
// each instance: the shuffle lowering (Q = 16, 32, 8 lanes a row; a
// negative shift) and the shared-memory one (64 vectors a row; a shift
// of 3 elements). 37 rows: the last tile partial.
TEST_F(SmallTileTest, RollAlongTheRows) {
  struct Instance {
    const char *kernel;
    int cols, shift;
  };
  for (const Instance &in : {Instance{"roll_cols", 128, 64},
                             Instance{"roll_cols__R_4__D_256__S_40", 256, 40},
                             Instance{"roll_cols__R_8__D_64__S__8", 64, -8},
                             Instance{"roll_cols__R_2__D_512__S_64", 512, 64},
                             Instance{"roll_cols__R_16__D_128__S_3", 128, 3}}) {
    const int rows = 37, cols = in.cols;
    auto x = randomFloats(rows * cols, -2, 2, 41 + cols);
    Buffer bx = rt.upload(x);
    Buffer by = rt.upload(poisoned32(rows * cols));
    ASSERT_OK(
        rt.stream().launch(rt.kernel(in.kernel), {Arg::in(bx, {rows, cols}),
                                                  Arg::out(by, {rows, cols})}));
    std::vector<float> y = rt.download(by);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        int from = ((c - in.shift) % cols + cols) % cols;
        ASSERT_EQ(y[r * cols + c], x[r * cols + from])
            << in.kernel << " row " << r << " col " << c;
      }
  }
}

// The steps of one key block of a grouped decode attention on four warps
// with flat tiles (flat_attention_steps: 16 query rows, 4 of them heads),
// each stored and checked against doubles from the same bf16-rounded
// inputs: the zero-padded query tile, Q K^T, the masked row maxima, the
// exponentials, their row sums, P V (from the kernel's own P), and the
// heads' normalized rows in their share of the partials.
TEST_F(SmallTileTest, FlatAttentionStepsOnFourWarps) {
  auto bf16 = [](float f) { return tile::testing::fromBF16(tile::testing::toBF16(f)); };
  const int len = 50; // keys 50 .. 63 masked
  auto q = randomFloats(4 * 128, -1, 1, 61), k = randomFloats(64 * 128, -1, 1, 62),
       v = randomFloats(64 * 128, -1, 1, 63);
  Buffer bq = rt.upload(q), bk = rt.upload(k), bv = rt.upload(v);
  Buffer qs = rt.upload(poisoned32(16 * 128)), sc = rt.upload(poisoned32(16 * 64)),
         mx = rt.upload(poisoned32(16)), pr = rt.upload(poisoned32(16 * 64)),
         ls = rt.upload(poisoned32(16)), ac = rt.upload(poisoned32(16 * 128)),
         part = rt.upload(poisoned32(4 * 2 * 128));
  ASSERT_OK(rt.stream().launch(
      rt.kernel("flat_attention_steps"),
      {Arg::in(bq, {4, 128}), Arg::in(bk, {64, 128}), Arg::in(bv, {64, 128}),
       Arg::out(qs, {16, 128}), Arg::out(sc, {16, 64}), Arg::out(mx, {16}),
       Arg::out(pr, {16, 64}), Arg::out(ls, {16}), Arg::out(ac, {16, 128}),
       Arg::out(part, {4, 2, 128}), Arg::integer(len)}));
  std::vector<float> gq = rt.download(qs), gs = rt.download(sc), gm = rt.download(mx),
                     gp = rt.download(pr), gl = rt.download(ls), ga = rt.download(ac),
                     gpart = rt.download(part);
  auto near = [](double got, double want, double scale) {
    return std::abs(got - want) <= 1e-3 * scale + 1e-6;
  };
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 128; ++c)
      ASSERT_EQ(gq[r * 128 + c], r < 4 ? bf16(q[r * 128 + c]) : 0.0f) << "query row " << r;
    double m = -INFINITY, s[64];
    for (int j = 0; j < 64; ++j) {
      double d = 0;
      for (int c = 0; c < 128; ++c)
        d += r < 4 ? double(bf16(q[r * 128 + c])) * bf16(k[j * 128 + c]) : 0.0;
      s[j] = d * 0.125;
      ASSERT_TRUE(near(gs[r * 64 + j], s[j], 2.0)) << "Q K^T row " << r << " key " << j;
      if (j < len)
        m = std::max(m, s[j]);
    }
    ASSERT_TRUE(near(gm[r], m, 2.0)) << "row max " << r;
    double l = 0, p[64];
    for (int j = 0; j < 64; ++j) {
      p[j] = j < len ? std::exp(s[j] - m) : 0.0;
      l += p[j];
      ASSERT_TRUE(near(gp[r * 64 + j], p[j], 1.0)) << "exp row " << r << " key " << j;
    }
    ASSERT_TRUE(near(gl[r], l, l)) << "row sum " << r;
    for (int c = 0; c < 128; ++c) {
      double a = 0;
      for (int j = 0; j < 64; ++j)
        a += double(bf16(gp[r * 64 + j])) * bf16(v[j * 128 + c]);
      ASSERT_TRUE(near(ga[r * 128 + c], a, 8.0)) << "P V row " << r << " col " << c;
      if (r < 4) {
        ASSERT_TRUE(isPoison(gpart[(r * 2 + 0) * 128 + c])) << "another share written";
        ASSERT_TRUE(near(gpart[(r * 2 + 1) * 128 + c], a / std::max(l, 1.0), 1.0))
            << "head " << r << " col " << c;
      }
    }
  }
}

} // namespace
