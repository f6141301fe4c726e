//===- Fp8GemvKernelTest.cpp - the FP8 decode GEMVs vs an fp64 reference ---===//
//
// linear_fp8.tile's GEMVs, launched directly on e4m3 weights with one f32
// scale per 128 x 128 block (distinct scales per block, so a block read
// with its neighbour's scale shows): gemv_fp8 (y = x W^T), gemv_rms_fp8
// (x normalized by the sum of squares it is handed, times the norm weight
// g it applies itself), gemv_residual_fp8 (h += x W^T, the squares of h
// added to a sum) and gemv_swiglu_fp8 (the gate/up GEMV normalizing as
// gemv_rms_fp8, SwiGLU in its epilogue, W seen as [2, I, K]), each at the
// U of its instances with K spanning two groups. Outputs are poisoned first and must
// be written, and agree with fp64 over the decoded weights (the e4m3 bytes
// decoded by the format's definition, not by the engine's table). K not a
// whole number of groups, or scales of the wrong shape, are launch-contract
// refusals. With QWEN3_TEST_DEVICE=cuda the same test runs on the GPU.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tile_runtime;

namespace {

// The kernel table's FP8 GEMV families (the test launches all but
// ResidualKv, whose K/V write gemv_residual_kv's tests cover).
using Family = qwen3::kernels::Fp8Gemv;

const char *familyName(Family f) {
  switch (f) {
  case Family::Plain:
    return "gemv_fp8";
  case Family::Rms:
    return "gemv_rms_fp8";
  case Family::Residual:
    return "gemv_residual_fp8";
  case Family::Swiglu:
    return "gemv_swiglu_fp8";
  case Family::ResidualKv:
    return "gemv_residual_kv_fp8";
  }
  return "?";
}

struct Case {
  const char *dtype;
  Family family;
  int64_t unroll;
  size_t form = 0; ///< index into the kernel table's forms of the family
};

// The kernel table's instance of the case.
std::string instanceName(const Case &c) {
  const std::vector<qwen3::kernels::Fp8GemvForm> forms =
      qwen3::kernels::fp8GemvForms(c.family);
  if (c.form >= forms.size())
    return "(no such form)";
  return qwen3::kernels::gemvFp8(c.family, c.unroll, 128, forms[c.form]).name();
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return std::string(familyName(info.param.family)) + "_U" +
         std::to_string(info.param.unroll) +
         (info.param.form ? "_form" + std::to_string(info.param.form) : std::string()) + "_" +
         info.param.dtype;
}

void PrintTo(const Case &c, std::ostream *os) {
  *os << instanceName(c) << " " << c.dtype;
}

/// An e4m3fn byte's value by the format's definition.
double e4m3(uint8_t b) {
  int e = (b >> 3) & 15, m = b & 7;
  double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
  return (b & 0x80) ? -v : v;
}

class Fp8GemvKernel : public ::testing::TestWithParam<Case> {};

TEST_P(Fp8GemvKernel, MatchesFp64ReferenceAndRefusesPartialGroups) {
  const Case c = GetParam();
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(c.dtype);
  const bool swiglu = c.family == Family::Swiglu;
  const bool rms = c.family == Family::Rms || swiglu;
  const bool residual = c.family == Family::Residual;
  constexpr int64_t B = 128; // the block
  const int64_t K = 2 * std::max<int64_t>(c.unroll, 4) * B; // two groups of U steps
  const int64_t rows = 2 * B;                                       // two block rows
  const int64_t parts = swiglu ? 2 : 1;                             // gate and up
  const float normEps = 1e-6f;

  const std::string name = instanceName(c);
  qwen3::test::KernelUnderTest kut;
  ASSERT_NO_FATAL_FAILURE(kut.open(c.dtype, name));

  std::mt19937 gen(17 + c.unroll + 100 * static_cast<int>(c.family));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // Weights: any finite byte of magnitude below 8 (exponents up to 9);
  // scales of a few hundredths, a different one per block.
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> w(parts * rows * K);
  for (uint8_t &b : w) {
    do
      b = static_cast<uint8_t>(byte(gen));
    while (((b >> 3) & 15) > 9);
  }
  const int64_t sr = rows / B, sc = K / B;
  std::vector<float> s(parts * sr * sc);
  for (size_t i = 0; i < s.size(); ++i)
    s[i] = (0.5f + 0.01f * static_cast<float>(i % 37)) / std::sqrt(float(K));
  std::vector<uint16_t> x(K), g(K), y(rows, qwen3::test::kPoison);
  const float xs = rms ? 3.0f : 1.0f;
  for (uint16_t &e : x)
    e = ht.encode(dist(gen) * xs);
  for (uint16_t &e : g)
    e = ht.encode(1.0f + dist(gen) / 4);
  if (residual)
    for (uint16_t &e : y)
      e = ht.encode(dist(gen) * 4);
  const std::vector<uint16_t> h0 = y;

  Stream &stream = kut.device->defaultStream();
  auto upload16 = [&](const std::vector<uint16_t> &v) {
    return kut.upload(ht.type, v.data(), static_cast<int64_t>(v.size()), 2);
  };
  Buffer bx = upload16(x), bg = upload16(g), by = upload16(y);
  Buffer bw = kut.upload(DType::F8E4M3, w.data(), static_cast<int64_t>(w.size()), 1);
  Buffer bs = kut.upload(DType::F32, s.data(), static_cast<int64_t>(s.size()), 4);
  double sumSq = 0;
  for (int64_t k = 0; k < K; ++k)
    sumSq += double(ht.decode(x[k])) * ht.decode(x[k]);
  const float ssStart = residual ? 0.5f : static_cast<float>(sumSq);
  Buffer bss = kut.upload(DType::F32, &ssStart, 1, 4);
  ASSERT_TRUE(stream.freeze(bw).isOk());
  ASSERT_TRUE(stream.freeze(bs).isOk());
  ASSERT_TRUE(stream.freeze(bg).isOk());

  auto launch = [&](int64_t k, int64_t scaleCols) {
    switch (c.family) {
    case Family::Plain:
      return stream.launch(kut.kernel, {Arg::in(bx, {1, k}), Arg::in(bw, {rows, k}),
                                       Arg::in(bs, {sr, scaleCols}),
                                       Arg::out(by, {1, rows})});
    case Family::Rms:
      return stream.launch(kut.kernel, {Arg::in(bx, {1, k}), Arg::in(bg, {1, k}),
                                       Arg::in(bw, {rows, k}), Arg::in(bs, {sr, scaleCols}),
                                       Arg::out(by, {1, rows}), Arg::in(bss, {1}),
                                       Arg::real(normEps)});
    case Family::Residual:
      return stream.launch(kut.kernel, {Arg::in(bx, {1, k}), Arg::in(bw, {rows, k}),
                                       Arg::in(bs, {sr, scaleCols}),
                                       Arg::inout(by, {1, rows}), Arg::add(bss, {1})});
    case Family::Swiglu:
      return stream.launch(kut.kernel, {Arg::in(bx, {1, 1, k}), Arg::in(bg, {1, 1, k}),
                                       Arg::in(bw, {2, rows, k}),
                                       Arg::in(bs, {2, sr, scaleCols}),
                                       Arg::out(by, {1, rows}), Arg::in(bss, {1}),
                                       Arg::real(normEps)});
    case Family::ResidualKv:
      break;
    }
    return Status::error("unknown family");
  };
  // Contract refusals: scales that do not match the blocks, and (U > 1) a
  // K of one block less than two groups.
  Status bad = launch(K, sc - 1);
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("one scale per 128 x 128 block"), std::string::npos)
      << bad.message();
  if (c.unroll > 1) {
    Status partial = launch(K - B, sc - 1);
    ASSERT_FALSE(partial.isOk());
  }
  Status st = launch(K, sc);
  ASSERT_TRUE(st.isOk()) << st.message();
  ASSERT_TRUE(stream.copyToHost(y.data(), by, y.size() * 2).isOk());
  float ssEnd = 0;
  ASSERT_TRUE(stream.copyToHost(&ssEnd, bss, 4).isOk());
  ASSERT_TRUE(stream.synchronize().isOk());

  const double invRms = rms ? 1.0 / std::sqrt(sumSq / K + normEps) : 1.0;
  auto dot = [&](int64_t part, int64_t r) {
    double acc = 0;
    for (int64_t k = 0; k < K; ++k) {
      double xv = ht.decode(x[k]) * (rms ? double(ht.decode(g[k])) : 1.0);
      double wv = e4m3(w[(part * rows + r) * K + k]) * s[(part * sr + r / B) * sc + k / B];
      acc += xv * wv;
    }
    return acc * invRms;
  };
  double errSq = 0, refSq = 0, ssRef = 0.5;
  for (int64_t j = 0; j < rows; ++j) {
    ASSERT_NE(y[j], qwen3::test::kPoison) << "output " << j << " not written";
    double ref;
    if (swiglu) {
      double gate = dot(0, j), up = dot(1, j);
      ref = gate / (1 + std::exp(-gate)) * up;
    } else {
      ref = dot(0, j) + (residual ? double(ht.decode(h0[j])) : 0.0);
    }
    double got = ht.decode(y[j]);
    ssRef += got * got;
    errSq += (got - ref) * (got - ref);
    refSq += ref * ref;
  }
  // Rounded to the model dtype once or twice (SwiGLU's roundings): a few
  // units of it, relative to the output's norm.
  double rel = std::sqrt(errSq / refSq);
  EXPECT_LT(rel, 4 * ht.eps) << "relative error";
  EXPECT_GT(refSq, 0.05 * rows) << "outputs of order 1";
  if (residual)
    EXPECT_NEAR(ssEnd, ssRef, 1e-3 * ssRef) << "the squares of h added to the sum";
}

INSTANTIATE_TEST_SUITE_P(
    Families, Fp8GemvKernel,
    ::testing::Values(Case{"bf16", Family::Plain, 1}, Case{"bf16", Family::Plain, 4},
                      Case{"bf16", Family::Plain, 8}, Case{"f16", Family::Plain, 8},
                      Case{"bf16", Family::Rms, 1}, Case{"bf16", Family::Rms, 8},
                      Case{"f16", Family::Rms, 4}, Case{"bf16", Family::Residual, 1},
                      Case{"bf16", Family::Residual, 4}, Case{"bf16", Family::Residual, 8},
                      Case{"bf16", Family::Swiglu, 1}, Case{"bf16", Family::Swiglu, 4},
                      Case{"f16", Family::Swiglu, 4},
                      // The wider shapes' forms (kernels::fp8GemvForm).
                      Case{"bf16", Family::Rms, 8, 1}, Case{"f16", Family::Rms, 4, 1},
                      Case{"bf16", Family::Swiglu, 4, 1}, Case{"f16", Family::Swiglu, 1, 1},
                      Case{"bf16", Family::Swiglu, 4, 2}, Case{"f16", Family::Swiglu, 1, 2}),
    caseName);

} // namespace
