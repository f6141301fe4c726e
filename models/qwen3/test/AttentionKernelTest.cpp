//===- AttentionKernelTest.cpp - prefill attention vs an fp64 reference ---===//
//
// The Qwen3 kernel set's causal prefill attention at the real head size
// (128) and GQA groups, launched directly: a prompt continuing a cache that
// already holds keys, query and key counts that leave partial blocks, and
// cache rows past the causal limit filled with values that must not count.
// On the GPU its dots run on tensor cores with the scores, the softmax and
// the probabilities in mma fragments; on the CPU device as loops. Both must
// agree with softmax(q k^T * scale) v in fp64 on the rounded inputs, and
// write every output element.
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
  int64_t group, kvHeads, tokens, past;
};

// What ctest lists as the parameter.
void PrintTo(const Case &c, std::ostream *os) {
  *os << c.dtype << ", group " << c.group << ", " << c.kvHeads << " KV heads, " << c.tokens
      << " tokens after " << c.past;
}

class PrefillAttentionKernel : public ::testing::TestWithParam<Case> {};

TEST_P(PrefillAttentionKernel, MatchesFp64Reference) {
  const Case c = GetParam();
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(c.dtype);
  auto encode = ht.encode;
  auto decode = ht.decode;
  const double eps = ht.eps; // the type's rounding
  const DType type = ht.type;
  constexpr int64_t HD = 128, maxSeq = 320;
  const int64_t heads = c.group * c.kvHeads, nq = heads * HD;
  const int64_t T = c.tokens, p0 = c.past;
  const double scale = 1.0 / std::sqrt(double(HD));

  qwen3::test::KernelUnderTest kut;
  const std::string name = qwen3::kernels::prefillAttention(c.group, HD).name();
  ASSERT_NO_FATAL_FAILURE(kut.open(c.dtype, name));

  // Scores of a few units (q, k in [-1.5, 1.5]), so the softmax is neither
  // flat nor one-hot.
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1.5f, 1.5f);
  auto random = [&](size_t n) {
    std::vector<uint16_t> v(n);
    for (uint16_t &e : v)
      e = encode(dist(gen));
    return v;
  };
  std::vector<uint16_t> q = random(T * nq);
  std::vector<uint16_t> kc = random(maxSeq * c.kvHeads * HD);
  std::vector<uint16_t> vc = random(maxSeq * c.kvHeads * HD);
  std::vector<uint16_t> o(T * nq, qwen3::test::kPoison);
  int32_t pos = static_cast<int32_t>(p0);

  Stream &stream = kut.device->defaultStream();
  Buffer bq = kut.upload(type, q.data(), q.size(), 2);
  Buffer bk = kut.upload(type, kc.data(), kc.size(), 2);
  Buffer bv = kut.upload(type, vc.data(), vc.size(), 2);
  Buffer bpos = kut.upload(DType::I32, &pos, 1, 4);
  Buffer bo = kut.upload(type, o.data(), o.size(), 2);
  Status st = stream.launch(kut.kernel,
                     {Arg::in(bq, {T, nq}), Arg::in(bk, {maxSeq, c.kvHeads, HD}),
                      Arg::in(bv, {maxSeq, c.kvHeads, HD}), Arg::in(bpos, {1}),
                      Arg::out(bo, {T, nq}), Arg::real(scale)});
  ASSERT_TRUE(st.isOk()) << st.message();
  st = stream.copyToHost(o.data(), bo, o.size() * 2);
  ASSERT_TRUE(st.isOk()) << st.message();
  ASSERT_TRUE(stream.synchronize().isOk());

  double errSq = 0, refSq = 0, worst = 0;
  std::vector<double> p(maxSeq), ref(HD);
  for (int64_t h = 0; h < heads; ++h) {
    int64_t kvh = h / c.group;
    for (int64_t i = 0; i < T; ++i) {
      int64_t keys = p0 + i + 1; // causal: the cache up to its own position
      double mx = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double s = 0;
        for (int64_t d = 0; d < HD; ++d)
          s += double(decode(q[i * nq + h * HD + d])) *
               decode(kc[(j * c.kvHeads + kvh) * HD + d]);
        p[j] = s * scale;
        mx = std::max(mx, p[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < keys; ++j)
        sum += (p[j] = std::exp(p[j] - mx));
      std::fill(ref.begin(), ref.end(), 0.0);
      for (int64_t j = 0; j < keys; ++j)
        for (int64_t d = 0; d < HD; ++d)
          ref[d] += p[j] / sum * decode(vc[(j * c.kvHeads + kvh) * HD + d]);
      for (int64_t d = 0; d < HD; ++d) {
        float got = decode(o[i * nq + h * HD + d]);
        ASSERT_FALSE(std::isnan(got)) << name << " (" << c.dtype << "): o["
                                      << i << ", " << h * HD + d
                                      << "] was not written";
        double err = std::abs(got - ref[d]);
        // Probabilities rounded to the type before P V, the output rounded:
        // a few units of the type's rounding on values of magnitude <= 1.5.
        ASSERT_LE(err, 8 * eps) << name << " (" << c.dtype << "): o[" << i
                                << ", " << h * HD + d << "] = " << got
                                << ", reference " << ref[d];
        worst = std::max(worst, err);
        errSq += err * err;
        refSq += ref[d] * ref[d];
      }
    }
  }
  double rel = std::sqrt(errSq / refSq);
  EXPECT_LE(rel, 2 * eps) << name << " (" << c.dtype << ")";
  std::printf("%s (%s, %lld tokens after %lld): relative RMS error %.2e, "
              "worst %.2e\n",
              name.c_str(), c.dtype, static_cast<long long>(T),
              static_cast<long long>(p0), rel, worst);
}

// Tokens 100 and 37 past: query blocks of 64 split unevenly, the last key
// block partial and crossing the causal limit; an 8-head group with one KV
// head; a prompt from position 0 whose query and key blocks align; the
// other GQA groups (Qwen3-14B's 5, and 1, 3 and 16).
INSTANTIATE_TEST_SUITE_P(
    Shapes, PrefillAttentionKernel,
    ::testing::Values(Case{"bf16", 4, 2, 100, 37}, Case{"f16", 4, 2, 100, 37},
                      Case{"bf16", 8, 1, 70, 0}, Case{"f16", 2, 2, 128, 64},
                      Case{"bf16", 5, 2, 100, 37}, Case{"f16", 1, 4, 70, 0},
                      Case{"bf16", 3, 2, 128, 64}, Case{"f16", 16, 1, 100, 37}),
    [](const ::testing::TestParamInfo<Case> &info) {
      const Case &c = info.param;
      return std::string(c.dtype) + "_G" + std::to_string(c.group) + "_T" +
             std::to_string(c.tokens) + "_past" + std::to_string(c.past);
    });

} // namespace
