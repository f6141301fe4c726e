//===- MatmulTest.cpp - tiled matmuls against an fp64 reference -----------===//
//
// On sm_90a the matmul kernels of kernels.tile run as TMA + wgmma pipelines
// with descriptors the runtime encodes; on the CPU device as plain loops.
// The GEMV runs with the loads its in-bounds proof left unguarded.
// Both must agree with an fp64 reference on problems with partial tiles in
// every dimension, and write every element of the output.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include "tile/runtime/Half.h"

#include <cmath>
#include <random>

using namespace tile_runtime;
using namespace tile_runtime::test;

namespace {

struct Dtype {
  DType type;
  uint16_t (*encode)(float);
  float (*decode)(uint16_t);
  double tolerance; ///< relative, for the output's rounding
};
const Dtype kF16{DType::F16, toHalf, fromHalf, 2e-3};
const Dtype kBF16{DType::BF16, toBF16, fromBF16, 1e-2};
constexpr uint16_t kPoison = 0x7E00; // NaN in f16; a NaN in bf16 too (0x7E00)

class MatmulTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_OK(rt.open(TILE_TEST_DEVICE)); }

  Buffer upload16(DType type, const std::vector<uint16_t> &v) {
    Buffer b;
    EXPECT_OK(rt.device->allocate(type, static_cast<int64_t>(v.size()), b));
    EXPECT_OK(rt.stream().copyToDevice(b, v.data(), v.size() * 2));
    return b;
  }
  std::vector<uint16_t> download16(const Buffer &b) {
    std::vector<uint16_t> v(static_cast<size_t>(b.count()));
    EXPECT_OK(rt.stream().copyToHost(v.data(), b, v.size() * 2));
    EXPECT_OK(rt.stream().synchronize());
    return v;
  }
  std::vector<uint16_t> random16(const Dtype &d, size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<uint16_t> v(n);
    for (uint16_t &e : v)
      e = d.encode(dist(gen));
    return v;
  }

  /// y[M, N] (row stride ldy) = x[M, K] w[N, K]^T through `kernel`, checked
  /// element by element against fp64 on the rounded inputs. The buffer has
  /// `extraRows` poisoned rows after the view's M, which must stay so.
  void check(const char *kernel, const Dtype &d, int64_t M, int64_t N,
             int64_t K, int64_t ldy, int64_t extraRows = 0) {
    auto x = random16(d, M * K, 1), w = random16(d, N * K, 2);
    Buffer bx = upload16(d.type, x), bw = upload16(d.type, w);
    Buffer by =
        upload16(d.type, std::vector<uint16_t>((M + extraRows) * ldy, kPoison));
    ASSERT_OK(rt.stream().launch(
        rt.kernel(kernel), {Arg::in(bx, {M, K}), Arg::in(bw, {N, K}),
                            Arg::out(by, {M, N}, {ldy, 1})}));
    std::vector<uint16_t> y = download16(by);
    double errSq = 0, refSq = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          double p = double(d.decode(x[i * K + k])) * d.decode(w[j * K + k]);
          ref += p;
          mag += std::abs(p);
        }
        float got = d.decode(y[i * ldy + j]);
        ASSERT_FALSE(std::isnan(got))
            << kernel << ": y[" << i << ", " << j << "] was not written";
        // The output's rounding, plus f32 accumulation over K terms.
        double tol = d.tolerance * std::abs(ref) + 1e-5 * mag;
        ASSERT_LE(std::abs(got - ref), tol)
            << kernel << ": y[" << i << ", " << j << "] = " << got
            << ", reference " << ref;
        errSq += (got - ref) * (got - ref);
        refSq += ref * ref;
      }
    EXPECT_LE(std::sqrt(errSq / refSq), d.tolerance / 2) << kernel;
    // Nothing past the row's N columns, or past the view's rows, was
    // touched.
    for (int64_t i = 0; i < M + extraRows; ++i)
      for (int64_t j = i < M ? N : 0; j < ldy; ++j)
        ASSERT_EQ(y[i * ldy + j], kPoison) << kernel << ": wrote y[" << i
                                           << ", " << j << "] past the view";
  }

  Loaded rt;
};

// Partial tiles in M, N and K (K = 3 * 64 + 8: TMA reads the tail's
// missing columns as zeros).
TEST_F(MatmulTest, TwoConsumerWarpgroupsF16) {
  check("matmul_f16", kF16, 200, 320, 200, 320);
}

TEST_F(MatmulTest, OneConsumerWarpgroupBF16) {
  check("matmul_bf16", kBF16, 100, 200, 136, 200);
}

// Odd row stride: the epilogue stores elements one by one.
TEST_F(MatmulTest, OddOutputRowStride) {
  check("matmul_bf16", kBF16, 70, 130, 64, 131);
}

// Many K tiles: every stage of the shared-memory ring is reused.
TEST_F(MatmulTest, LongKWrapsTheStageRing) {
  check("matmul_f16", kF16, 130, 260, 1024 + 64, 260);
}

// A partial last tile row (300 = 2 x 128 + 44) and column (520 = 2 x 256
// + 8): the rows after the view in the same buffer stay poisoned.
TEST_F(MatmulTest, PartialTilesStoreNothingPastTheView) {
  check("matmul_f16", kF16, 300, 520, 200, 520, /*extraRows=*/256);
}

// More tiles than a wave holds (18 x 16 = 288 programs, one per SM at a
// time on a 132-SM GPU): programs start on SMs another one left.
TEST_F(MatmulTest, MoreTilesThanAWave) {
  check("matmul_bf16", kBF16, 1100, 2000, 136, 2000);
}

// TMA needs rows 16 bytes apart: K = 36 (72-byte rows) is refused on the
// GPU with the argument named, before anything is launched; the CPU device
// runs it.
TEST_F(MatmulTest, TMARowStrideIsCheckedAtLaunch) {
  const int64_t M = 8, N = 16, K = 36;
  Buffer bx = upload16(DType::F16, random16(kF16, M * K, 3));
  Buffer bw = upload16(DType::F16, random16(kF16, N * K, 4));
  Buffer by = upload16(DType::F16, std::vector<uint16_t>(M * N, kPoison));
  Status s = rt.stream().launch(
      rt.kernel("matmul_f16"),
      {Arg::in(bx, {M, K}), Arg::in(bw, {N, K}), Arg::out(by, {M, N})});
  if (!rt.device->isCuda()) {
    ASSERT_OK(s);
    return;
  }
  expectError(s, {"matmul_f16", "'x'", "row stride"});
  for (uint16_t v : download16(by))
    ASSERT_EQ(v, kPoison);
}

// A GEMV whose loads are all proven inside their views (tile.in_bounds):
// on the GPU a straight-line loop of unguarded 16-byte loads. Several K
// tiles and more rows than one wave of programs.
TEST_F(MatmulTest, GemvWithUnguardedLoads) {
  check("gemv_whole", kF16, 1, 2 * 1000, 256 * 9, 2 * 1000);
}

// What makes the unguarded loads safe is checked at launch, on every
// device: K not a multiple of the tile breaks the assumption, and a weight
// whose rows are not 16 bytes apart breaks aligned_rows.
TEST_F(MatmulTest, GemvContractRefusesPartialTilesAndUnalignedRows) {
  const int64_t N = 8, K = 512;
  Buffer bx = upload16(DType::F16, random16(kF16, K + 8, 5));
  Buffer bw = upload16(DType::F16, random16(kF16, N * (K + 4), 6));
  Buffer by = upload16(DType::F16, std::vector<uint16_t>(N, kPoison));
  Status s = rt.stream().launch(
      rt.kernel("gemv_whole"),
      {Arg::in(bx, {1, K - 8}), Arg::in(bw, {N, K - 8}), Arg::out(by, {1, N})});
  expectError(s, {"gemv_whole", "K and N are multiples of the tile"});
  s = rt.stream().launch(rt.kernel("gemv_whole"),
                         {Arg::in(bx, {1, K}), Arg::in(bw, {N, K}, {K + 4, 1}),
                          Arg::out(by, {1, N})});
  expectError(s, {"gemv_whole", "argument w (#1)", "not a multiple of 16 bytes",
                  "aligned_rows(w, 16)"});
  for (uint16_t v : download16(by))
    ASSERT_EQ(v, kPoison);
}

} // namespace
