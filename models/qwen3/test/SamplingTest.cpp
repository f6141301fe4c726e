//===- SamplingTest.cpp - the device sampler against exact probabilities --===//
//
// The `sample` kernel of the compiled Qwen3 set, launched directly on logits
// whose distribution is known: a few tokens with distinct logits spread over
// several chunks of the vocabulary, the rest far below. Every draw must come
// from the set top-k and top-p keep (computed here in double, Hugging Face's
// way), the draw frequencies must match the renormalised softmax, and the
// same (seed, position) must give the same token.
//
//===----------------------------------------------------------------------===//

#include "Qwen3TestUtils.h"

#include "tile/runtime/Half.h"
#include "tile/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

using namespace tile_runtime;

namespace {

constexpr int64_t kVocab = 12000; // 2 chunks of 8192, the last partial
// The candidates: (id, logit); everything else sits at -30.
const std::vector<std::pair<int32_t, float>> kTop = {
    {17, 2.0f}, {9000, 1.5f}, {11999, 1.0f}, {8191, 0.5f}, {8192, 0.0f}, {4242, -0.5f}};

struct Sampler {
  std::unique_ptr<Device> device;
  Module module;
  Kernel kernel;
  Buffer logits, pos, token;

  void open() {
    std::string manifest = qwen3::test::kernelsDir() + "/qwen3_bf16.json";
    Status st = Device::open(qwen3::test::testDevice(), device);
    ASSERT_TRUE(st.isOk()) << st.message();
    ASSERT_TRUE((st = device->loadModule(manifest, module)).isOk()) << st.message();
    ASSERT_TRUE((st = module.kernel("sample", kernel)).isOk()) << st.message();
    Stream &s = device->defaultStream();
    ASSERT_TRUE(device->allocate(DType::BF16, kVocab, s, logits).isOk());
    ASSERT_TRUE(device->allocate(DType::I32, 1, s, pos).isOk());
    ASSERT_TRUE(device->allocate(DType::I32, 1, s, token).isOk());
    std::vector<uint16_t> raw(kVocab, toBF16(-30.0f));
    for (auto [id, l] : kTop)
      raw[id] = toBF16(l);
    ASSERT_TRUE(s.copyToDevice(logits, raw.data(), raw.size() * 2).isOk());
  }

  /// One draw at `position`; the output is poisoned first.
  int32_t draw(int32_t position, double temperature, int64_t topK, double topP,
               int32_t seed) {
    Stream &s = device->defaultStream();
    int32_t poison = -12345, out = -1;
    Status st = s.copyToDevice(pos, &position, 4);
    if (st)
      st = s.copyToDevice(token, &poison, 4);
    if (st)
      st = s.launch(kernel, {Arg::in(logits, {1, kVocab}), Arg::in(pos, {1}),
                             Arg::out(token, {1}), Arg::real(temperature),
                             Arg::integer(topK), Arg::real(topP), Arg::integer(seed)});
    if (st)
      st = s.copyToHost(&out, token, 4);
    if (st)
      st = s.synchronize();
    EXPECT_TRUE(st.isOk()) << st.message();
    return out;
  }
};

/// Hugging Face's filtering in double: softmax(l / T) over the top-k, then
/// the smallest prefix holding top_p of that mass. The kept ids and their
/// renormalised probabilities.
std::map<int32_t, double> expected(double temperature, int64_t topK, double topP) {
  std::vector<std::pair<int32_t, float>> order = kTop; // the rest is e^-30: negligible
  std::sort(order.begin(), order.end(),
            [](auto &a, auto &b) { return a.second > b.second; });
  if (topK > 0 && topK < static_cast<int64_t>(order.size()))
    order.resize(topK);
  std::vector<double> p;
  for (auto [id, l] : order)
    p.push_back(std::exp((l - order[0].second) / temperature));
  double z = std::accumulate(p.begin(), p.end(), 0.0), cum = 0;
  size_t keep = p.size();
  for (size_t i = 0; i < p.size(); ++i)
    if ((cum += p[i] / z) >= topP) {
      keep = i + 1;
      break;
    }
  double zk = std::accumulate(p.begin(), p.begin() + keep, 0.0);
  std::map<int32_t, double> out;
  for (size_t i = 0; i < keep; ++i)
    out[order[i].first] = p[i] / zk;
  return out;
}

void checkDistribution(Sampler &s, double temperature, int64_t topK, double topP,
                       int32_t seed) {
  const int n = 1200;
  std::map<int32_t, int> counts;
  for (int i = 0; i < n; ++i)
    counts[s.draw(i, temperature, topK, topP, seed)]++;
  std::map<int32_t, double> want = expected(temperature, topK, topP);
  for (auto [id, c] : counts)
    EXPECT_TRUE(want.count(id)) << "drew token " << id << " (" << c
                                << " times), outside the kept set";
  for (auto [id, p] : want) {
    double f = counts[id] / static_cast<double>(n);
    double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(f, p, 4.5 * sigma + 1e-9)
        << "token " << id << " (T " << temperature << ", top-k " << topK
        << ", top-p " << topP << ")";
  }
}

} // namespace

TEST(Qwen3Sampling, TemperatureOnlyMatchesTheSoftmax) {
  Sampler s;
  ASSERT_NO_FATAL_FAILURE(s.open());
  checkDistribution(s, 1.0, 0, 1.0, 7);
}

TEST(Qwen3Sampling, TopKKeepsTheKBest) {
  Sampler s;
  ASSERT_NO_FATAL_FAILURE(s.open());
  checkDistribution(s, 1.0, 3, 1.0, 11);
}

TEST(Qwen3Sampling, TopPKeepsTheSmallestSetHoldingP) {
  Sampler s;
  ASSERT_NO_FATAL_FAILURE(s.open());
  // T = 1: probabilities .41 .25 .15 .09 .06 .03 (of the six): top-p 0.7
  // keeps the first three (.41 + .25 < .7 <= .41 + .25 + .15).
  ASSERT_EQ(expected(1.0, 0, 0.7).size(), 3u);
  checkDistribution(s, 1.0, 0, 0.7, 3);
}

TEST(Qwen3Sampling, TemperatureTopKAndTopPTogether) {
  Sampler s;
  ASSERT_NO_FATAL_FAILURE(s.open());
  // Qwen3's generation defaults: T 0.6, top-k 20, top-p 0.95.
  checkDistribution(s, 0.6, 20, 0.95, 5);
  checkDistribution(s, 1.7, 4, 0.9, 5);
}

TEST(Qwen3Sampling, TopKOneIsGreedy) {
  Sampler s;
  ASSERT_NO_FATAL_FAILURE(s.open());
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(s.draw(i, 1.0, 1, 1.0, i), 17);
}

TEST(Qwen3Sampling, SeedAndPositionDetermineTheDraw) {
  Sampler s;
  ASSERT_NO_FATAL_FAILURE(s.open());
  std::vector<int32_t> a, b, c;
  for (int i = 0; i < 64; ++i) {
    a.push_back(s.draw(i, 2.0, 0, 1.0, 42));
    b.push_back(s.draw(i, 2.0, 0, 1.0, 42));
    c.push_back(s.draw(i, 2.0, 0, 1.0, 43));
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}
