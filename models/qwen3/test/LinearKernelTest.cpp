//===- LinearKernelTest.cpp - the decode GEMVs vs an fp64 reference -------===//
//
// The Qwen3 kernel set's GEMVs without bounds checks, launched directly at
// every K-step group the engine picks (gemv<WHOLE=1, U> and gemv_swiglu<U>):
// K spans two groups, so both the constant inner loop and the outer one
// run. Each output is poisoned first, must be written, and must agree with
// the fp64 product of the rounded inputs (for gemv_swiglu, silu(gate) * up
// of the fp64 projections). A K that is not a whole number of groups is a
// launch-contract refusal. The tiny test model never reaches these
// instances (its hidden size is 128), so this is their CPU coverage; with
// QWEN3_TEST_DEVICE=cuda the same test runs on the GPU.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tile_runtime;

namespace {

struct Case {
  const char *dtype;
  int64_t group; // U: K steps of 512 per unrolled group
  bool swiglu;
};

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return std::string(info.param.swiglu ? "gemv_swiglu" : "gemv") + "_U" +
         std::to_string(info.param.group) + "_" + info.param.dtype;
}

class DecodeGemvKernel : public ::testing::TestWithParam<Case> {};

TEST_P(DecodeGemvKernel, MatchesFp64ReferenceAndRefusesPartialGroups) {
  const Case c = GetParam();
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(c.dtype);
  auto encode = ht.encode;
  auto decode = ht.decode;
  const double eps = ht.eps;
  // Two groups of U steps (one for U = 19, which only 4B's 9728 uses).
  const int64_t K = 512 * c.group * (c.group == 19 ? 1 : 2);
  const int64_t rows = 12;                    // outputs (R = 2 rows per program)
  const int64_t N = c.swiglu ? 2 * rows : rows; // rows of w

  std::string name = c.swiglu ? "gemv_swiglu" : "gemv__WHOLE_1";
  if (c.group != 1)
    name += "__U_" + std::to_string(c.group);
  qwen3::test::KernelUnderTest kut;
  ASSERT_NO_FATAL_FAILURE(kut.open(c.dtype, name));

  // Products of a few hundredths summed over K: outputs of order 1.
  std::mt19937 gen(11 + c.group);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const float xs = 1.0f / std::sqrt(float(K)) * 3;
  std::vector<uint16_t> x(K), w(N * K);
  for (uint16_t &e : x)
    e = encode(dist(gen) * xs);
  for (uint16_t &e : w)
    e = encode(dist(gen));
  std::vector<uint16_t> y(rows, qwen3::test::kPoison);

  Stream &stream = kut.device->defaultStream();
  auto upload = [&](const std::vector<uint16_t> &v) {
    return kut.upload(ht.type, v.data(), static_cast<int64_t>(v.size()), 2);
  };
  Buffer bx = upload(x), bw = upload(w), by = upload(y);
  auto launch = [&](int64_t k) {
    if (c.swiglu)
      return stream.launch(kut.kernel, {Arg::in(bx, {1, 1, k}), Arg::in(bw, {2, rows, k}),
                                       Arg::out(by, {1, rows})});
    return stream.launch(kut.kernel, {Arg::in(bx, {1, k}), Arg::in(bw, {N, k}),
                                     Arg::out(by, {1, rows})});
  };
  Status st = launch(K);
  ASSERT_TRUE(st.isOk()) << st.message();
  st = stream.copyToHost(y.data(), by, y.size() * 2);
  ASSERT_TRUE(st.isOk()) << st.message();
  ASSERT_TRUE(stream.synchronize().isOk());

  auto dotRow = [&](int64_t r) {
    double acc = 0;
    for (int64_t k = 0; k < K; ++k)
      acc += double(decode(x[k])) * decode(w[r * K + k]);
    return acc;
  };
  double errSq = 0, refSq = 0;
  for (int64_t j = 0; j < rows; ++j) {
    double ref = dotRow(j);
    if (c.swiglu)
      ref = ref / (1 + std::exp(-ref)) * dotRow(rows + j);
    float got = decode(y[j]);
    ASSERT_FALSE(std::isnan(got)) << name << " (" << c.dtype << "): y[" << j
                                  << "] was not written";
    // f32 accumulation, then one to three roundings to the type.
    ASSERT_LE(std::abs(got - ref), 4 * eps * (std::abs(ref) + 0.05))
        << name << " (" << c.dtype << "): y[" << j << "] = " << got << ", reference " << ref;
    errSq += (got - ref) * (got - ref);
    refSq += ref * ref;
  }
  EXPECT_LE(std::sqrt(errSq / refSq), 2 * eps) << name << " (" << c.dtype << ")";

  // K one tile short of whole groups: the contract refuses the launch.
  if (c.group > 1) {
    Status refused = launch(K - 512);
    EXPECT_FALSE(refused.isOk()) << name << " ran with K = " << K - 512;
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char *dt : {"bf16", "f16"})
    for (int64_t u : {1, 2, 4, 5, 6, 8, 10, 19})
      for (bool swiglu : {false, true})
        out.push_back({dt, u, swiglu});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Groups, DecodeGemvKernel, ::testing::ValuesIn(cases()), caseName);

} // namespace
