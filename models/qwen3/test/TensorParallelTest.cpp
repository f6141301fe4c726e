//===- TensorParallelTest.cpp - a model split over N devices vs one -------===//
//
// --tensor-parallel on the test device (the CPU here: N CPU devices joined by
// the in-process exchange; on a GPU machine with N GPUs, NCCL). The model is
// a random-weight Qwen3 written by the test, with 8 query heads over 4 KV
// heads so that 2 and 4 ranks split it: its logits with N ranks must match
// one device's at every step of a greedy run (teacher-forced on one device's
// tokens), and the picks must be the same wherever the logits do not tie.
//
//===----------------------------------------------------------------------===//

#include "Qwen3TestUtils.h"
#include "RandomModel.h"
#include "qwen3/Engine.h"
#include "tile/runtime/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdio>

using namespace qwen3;
using tile_runtime::DType;

namespace {

using test::ModelShape;
using test::writeModel;

std::string modelDir(const std::string &name) {
  return ::testing::TempDir() + "qwen3-tp-" + name;
}

using AllReduce = EngineOptions::AllReduce;

Status open(const std::string &dir, int64_t ranks, std::unique_ptr<Engine> &engine,
            int64_t maxBatch = 1, AllReduce allReduce = AllReduce::Auto,
            int64_t stepPromptTokens = 0) {
  EngineOptions opts;
  opts.stepPromptTokens = stepPromptTokens;
  opts.allReduce = allReduce;
  opts.device = test::testDevice();
  opts.kernelsDir = test::kernelsDir();
  opts.maxSeqLen = 128;
  opts.tensorParallel = ranks;
  opts.maxBatch = maxBatch;
  return Engine::create(dir, opts, engine);
}

struct TpCase {
  const char *name;
  int64_t ranks;
  ModelShape shape;
  /// The decode step's all-reduce: Auto is the one-shot one through peer
  /// buffers (CPU devices always reach each other's memory).
  AllReduce allReduce = AllReduce::Auto;
};

bool launches(const std::vector<KernelTime> &times, const std::string &prefix) {
  return std::any_of(times.begin(), times.end(),
                     [&](const KernelTime &t) { return t.name.rfind(prefix, 0) == 0; });
}

void PrintTo(const TpCase &c, std::ostream *os) { *os << c.name; }

class Qwen3TensorParallel : public ::testing::TestWithParam<TpCase> {};

TEST_P(Qwen3TensorParallel, LogitsAndPicksMatchOneDevice) {
  const TpCase &c = GetParam();
  const std::string dir = modelDir(c.name);
  writeModel(dir, c.shape);
  std::unique_ptr<Engine> one, split;
  ASSERT_TRUE(open(dir, 1, one).isOk());
  Status st = open(dir, c.ranks, split, 1, c.allReduce);
  if (!st && test::testDevice() != "cpu")
    GTEST_SKIP() << c.ranks << " ranks on " << test::testDevice() << ": " << st.message();
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_NE(split->deviceName().find(std::to_string(c.ranks) + " x "), std::string::npos)
      << split->deviceName();

  // The rounding unit of the model dtype: the two runs add the same
  // products in another order (partial sums per rank, then the all-reduce).
  const double u = c.shape.f16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  std::vector<int32_t> prompt = {17, 900, 4, 2000, 55, 1234, 7, 300, 2100, 64, 999, 12};
  int32_t a = 0, b = 0;
  ASSERT_TRUE(one->prefill(prompt, a).isOk());
  ASSERT_TRUE(split->prefill(prompt, b).isOk());
  int ties = 0;
  for (int step = 0; step <= 24; ++step) {
    std::vector<float> la, lb;
    ASSERT_TRUE(one->lastLogits(la).isOk());
    ASSERT_TRUE(split->lastLogits(lb).isOk());
    ASSERT_EQ(la.size(), lb.size());
    double spread = 0;
    for (size_t i = 0; i < la.size(); ++i) {
      ASSERT_TRUE(std::isfinite(lb[i])) << "step " << step << " logit " << i;
      spread = std::max(spread, std::abs(double(la[i])));
    }
    const test::LogitsAgreement agree = test::agreement(la.data(), lb.data(), la.size());
    EXPECT_GE(agree.cosine, 0.999) << "step " << step;
    EXPECT_LE(agree.relError, 10 * u) << "step " << step;
    if (a != b) {
      // Only a tie within the bound may pick differently.
      ++ties;
      EXPECT_LE(std::abs(double(la[a]) - la[b]), 10 * u * spread)
          << "step " << step << ": one device picked " << a << " (" << la[a] << "), "
          << c.ranks << " ranks picked " << b << " (" << la[b] << ")";
    }
    if (step == 24)
      break;
    // Both continue from one device's pick.
    int32_t fed = a;
    Status sa = one->decode(fed, a), sb = split->decode(fed, b);
    ASSERT_TRUE(sa.isOk()) << sa.message();
    ASSERT_TRUE(sb.isOk()) << sb.message();
  }
  EXPECT_LE(ties, 2);
  // The all-reduce asked for is the one the decode step ran.
  std::vector<KernelTime> times;
  ASSERT_TRUE(split->profileDecode(times).isOk());
  const bool peer = c.allReduce != AllReduce::Nccl;
  EXPECT_EQ(launches(times, "residual_all_reduce"), peer);
  EXPECT_EQ(launches(times, "peer_wait"), peer);
  EXPECT_EQ(launches(times, "all_reduce"), !peer);
}

const TpCase kCases[] = {
    {"bf16_2_ranks", 2, ModelShape{}},
    {"bf16_4_ranks", 4, ModelShape{}},
    {"f16_2_ranks_untied", 2, [] {
       ModelShape s;
       s.f16 = true;
       s.tied = false;
       return s;
     }()},
    // FP8 weights split by whole 128 x 128 blocks (each rank's slice of
    // every projection is, at 2 ranks), their block scales with them.
    {"fp8_2_ranks", 2, [] {
       ModelShape s;
       s.fp8 = true;
       return s;
     }()},
    {"bf16_4_ranks_group_1", 4, [] {
       ModelShape s;
       s.heads = 4;
       return s;
     }()},
    {"bf16_2_ranks_nccl", 2, ModelShape{}, AllReduce::Nccl},
    {"f16_4_ranks_nccl", 4, [] {
       ModelShape s;
       s.f16 = true;
       return s;
     }(), AllReduce::Nccl},
    {"bf16_4_ranks_peer", 4, ModelShape{}, AllReduce::Peer},
};

INSTANTIATE_TEST_SUITE_P(Random, Qwen3TensorParallel, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<TpCase> &i) {
                           return std::string(i.param.name);
                         });

// Continuous batching on every rank: each row of a batched step of three
// slots (its LM head over the rows, the ranks' vocabulary slices gathered
// into each row) against one device's batched step, teacher-forced on one
// device's picks.
TEST_P(Qwen3TensorParallel, BatchedStepsMatchOneDevice) {
  const TpCase &c = GetParam();
  const std::string dir = modelDir(std::string(c.name) + "-batch");
  writeModel(dir, c.shape);
  std::unique_ptr<Engine> one, split;
  ASSERT_TRUE(open(dir, 1, one, 3).isOk());
  Status st = open(dir, c.ranks, split, 3);
  if (!st && test::testDevice() != "cpu")
    GTEST_SKIP() << c.ranks << " ranks on " << test::testDevice() << ": " << st.message();
  ASSERT_TRUE(st.isOk()) << st.message();
  const double u = c.shape.f16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  const std::vector<std::vector<int32_t>> prompts = {
      {17, 900, 4, 2000, 55, 1234, 7}, {5, 6, 7}, {300, 301, 302, 303, 304, 305, 306, 307, 308}};
  std::vector<int32_t> fed(prompts.size());
  for (size_t i = 0; i < prompts.size(); ++i) {
    int32_t a = 0, b = 0;
    int64_t reused = 0;
    ASSERT_TRUE(one->prefillSlot(int64_t(i), prompts[i], Sampling(), a, reused).isOk());
    ASSERT_TRUE(split->prefillSlot(int64_t(i), prompts[i], Sampling(), b, reused).isOk());
    fed[i] = a;
  }
  for (int step = 0; step < 6; ++step) {
    std::vector<Engine::SlotStep> steps;
    for (size_t i = 0; i < prompts.size(); ++i)
      steps.push_back({int64_t(i), fed[i], Sampling()});
    std::vector<int32_t> na, nb;
    ASSERT_TRUE(one->decodeSlots(steps, na).isOk());
    ASSERT_TRUE(split->decodeSlots(steps, nb).isOk());
    for (size_t i = 0; i < prompts.size(); ++i) {
      std::vector<float> la, lb;
      ASSERT_TRUE(one->slotLogits(int64_t(i), la).isOk());
      ASSERT_TRUE(split->slotLogits(int64_t(i), lb).isOk());
      ASSERT_EQ(la.size(), lb.size());
      double spread = 0;
      for (float v : la)
        spread = std::max(spread, std::abs(double(v)));
      const test::LogitsAgreement agree = test::agreement(la.data(), lb.data(), la.size());
      EXPECT_GE(agree.cosine, 0.999) << "step " << step << " row " << i;
      EXPECT_LE(agree.relError, 10 * u) << "step " << step << " row " << i;
      if (na[i] != nb[i])
        EXPECT_LE(std::abs(double(la[na[i]]) - la[nb[i]]), 10 * u * spread)
            << "step " << step << " row " << i;
      fed[i] = na[i];
    }
  }
}

// The paged cache on every rank: a released sequence's published page
// serves a later prompt (gathered into each rank's staging rows), which
// goes on in its second page, against one device doing the same.
TEST(Qwen3TensorParallel, PublishedPagesServeEveryRank) {
  const std::string dir = modelDir("pages");
  writeModel(dir, ModelShape{});
  std::unique_ptr<Engine> one, split;
  ASSERT_TRUE(open(dir, 1, one, 2).isOk());
  Status st = open(dir, 2, split, 2);
  if (!st && test::testDevice() != "cpu")
    GTEST_SKIP() << "2 ranks on " << test::testDevice() << ": " << st.message();
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<int32_t> first, second;
  for (int32_t i = 0; i < 70; ++i)
    first.push_back(100 + (i * 37) % 1900);
  second.assign(first.begin(), first.begin() + 66);
  second.insert(second.end(), {7, 8});
  for (Engine *e : {one.get(), split.get()}) {
    int32_t t = 0;
    int64_t reused = 0;
    std::vector<int32_t> picks;
    ASSERT_TRUE(e->prefillSlot(0, first, Sampling(), t, reused).isOk());
    ASSERT_TRUE(e->decodeSlots({{0, t, Sampling()}}, picks).isOk());
    ASSERT_TRUE(e->releaseSlot(0).isOk());
    // Another prompt takes the staging rows; the page stays published.
    ASSERT_TRUE(e->prefillSlot(0, {5, 6, 7}, Sampling(), t, reused).isOk());
    ASSERT_TRUE(e->prefillSlot(1, second, Sampling(), t, reused).isOk());
    EXPECT_EQ(reused, 64);
  }
  std::vector<float> la, lb;
  ASSERT_TRUE(one->slotLogits(1, la).isOk());
  ASSERT_TRUE(split->slotLogits(1, lb).isOk());
  EXPECT_GE(test::agreement(la.data(), lb.data(), la.size()).cosine, 0.999);
  int32_t fed = 9;
  for (int step = 0; step < 50; ++step) {
    std::vector<int32_t> na, nb;
    ASSERT_TRUE(one->decodeSlots({{1, fed, Sampling()}}, na).isOk());
    ASSERT_TRUE(split->decodeSlots({{1, fed, Sampling()}}, nb).isOk());
    ASSERT_TRUE(one->slotLogits(1, la).isOk());
    ASSERT_TRUE(split->slotLogits(1, lb).isOk());
    ASSERT_GE(test::agreement(la.data(), lb.data(), la.size()).cosine, 0.999) << "step " << step;
    fed = na[0];
  }
  // Slot 1's 118 positions in 2 pages (the first shared), slot 0's 3 in 1.
  EXPECT_EQ(split->pageCounts().inUse, 3);
}

// Mixed steps on every rank: a prompt's chunks inside batched steps beside
// a decode row (its last chunk's pick from the LM head's all-gather), then
// both rows decoding, against one device doing the same.
TEST(Qwen3TensorParallel, MixedStepsMatchOneDevice) {
  const std::string dir = modelDir("mixed");
  writeModel(dir, ModelShape{});
  std::unique_ptr<Engine> one, split;
  ASSERT_TRUE(open(dir, 1, one, 2, AllReduce::Auto, 8).isOk());
  Status st = open(dir, 2, split, 2, AllReduce::Auto, 8);
  if (!st && test::testDevice() != "cpu")
    GTEST_SKIP() << "2 ranks on " << test::testDevice() << ": " << st.message();
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<int32_t> prompt;
  for (int32_t i = 0; i < 30; ++i)
    prompt.push_back(200 + (i * 53) % 1700);
  int32_t ta = 0, tb = 0;
  int64_t reused = 0;
  ASSERT_TRUE(one->prefillSlot(0, {11, 12, 13, 14}, Sampling(), ta, reused).isOk());
  ASSERT_TRUE(split->prefillSlot(0, {11, 12, 13, 14}, Sampling(), tb, reused).isOk());
  ASSERT_EQ(ta, tb);
  Engine::PromptChunk ca, cb;
  ca.slot = cb.slot = 1;
  ca.prompt = cb.prompt = &prompt;
  ca.stepTokens = cb.stepTokens = 8;
  std::vector<float> la, lb;
  while (ca.end < static_cast<int64_t>(prompt.size())) {
    std::vector<int32_t> na, nb;
    ASSERT_TRUE(one->decodeSlots({{0, ta, Sampling()}}, na, &ca).isOk());
    ASSERT_TRUE(split->decodeSlots({{0, ta, Sampling()}}, nb, &cb).isOk());
    ASSERT_EQ(ca.end, cb.end);
    ASSERT_TRUE(one->slotLogits(0, la).isOk());
    ASSERT_TRUE(split->slotLogits(0, lb).isOk());
    ASSERT_GE(test::agreement(la.data(), lb.data(), la.size()).cosine, 0.999) << ca.end;
    ta = na[0];
  }
  ASSERT_TRUE(one->slotLogits(1, la).isOk());
  ASSERT_TRUE(split->slotLogits(1, lb).isOk());
  EXPECT_GE(test::agreement(la.data(), lb.data(), la.size()).cosine, 0.999);
  int32_t t1 = ca.next;
  for (int step = 0; step < 6; ++step) {
    std::vector<int32_t> na, nb;
    ASSERT_TRUE(one->decodeSlots({{0, ta, Sampling()}, {1, t1, Sampling()}}, na).isOk());
    ASSERT_TRUE(split->decodeSlots({{0, ta, Sampling()}, {1, t1, Sampling()}}, nb).isOk());
    for (int64_t slot : {0, 1}) {
      ASSERT_TRUE(one->slotLogits(slot, la).isOk());
      ASSERT_TRUE(split->slotLogits(slot, lb).isOk());
      ASSERT_GE(test::agreement(la.data(), lb.data(), la.size()).cosine, 0.999)
          << "slot " << slot << " step " << step;
    }
    ta = na[0];
    t1 = na[1];
  }
}

// Prefix reuse on every rank: a prompt extending the last one prefills its
// new tokens after the cached rows on each shard, the logits those of a
// whole prefill on one device.
TEST(Qwen3TensorParallel, PrefillReusingKeepsEveryRanksCache) {
  const std::string dir = modelDir("reuse");
  writeModel(dir, ModelShape{});
  std::unique_ptr<Engine> one, split;
  ASSERT_TRUE(open(dir, 1, one).isOk());
  Status st = open(dir, 2, split);
  if (!st && test::testDevice() != "cpu")
    GTEST_SKIP() << "2 ranks on " << test::testDevice() << ": " << st.message();
  ASSERT_TRUE(st.isOk()) << st.message();
  const std::vector<int32_t> a = {17, 900, 4, 2000, 55, 1234, 7, 300};
  std::vector<int32_t> b = a;
  b.insert(b.end(), {2100, 64, 999, 12});
  int32_t next = 0, want = 0;
  int64_t reused = -1;
  ASSERT_TRUE(split->prefill(a, next).isOk());
  ASSERT_TRUE(split->prefillReusing(b, next, reused).isOk());
  EXPECT_EQ(reused, static_cast<int64_t>(a.size()));
  ASSERT_TRUE(one->prefill(b, want).isOk());
  std::vector<float> ls, lo;
  ASSERT_TRUE(split->lastLogits(ls).isOk());
  ASSERT_TRUE(one->lastLogits(lo).isOk());
  const test::LogitsAgreement agree = test::agreement(lo.data(), ls.data(), lo.size());
  EXPECT_GE(agree.cosine, 0.999);
  EXPECT_LE(agree.relError, 10 * std::ldexp(1.0, -8));
}

TEST(Qwen3TensorParallel, ShapesThatDoNotSplitNameTheirField) {
  ModelShape s;
  s.intermediate = 384;
  const std::string dir = modelDir("no-split");
  writeModel(dir, s);
  std::unique_ptr<Engine> e;
  Status st = open(dir, 3, e);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("config.json: num_key_value_heads 4 does not split over "
                              "--tensor-parallel 3"),
            std::string::npos)
      << st.message();
  st = open(dir, 2, e);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("config.json: intermediate_size 384 does not split over "
                              "--tensor-parallel 2 into multiples of 128"),
            std::string::npos)
      << st.message();
  st = open(dir, 0, e);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("--tensor-parallel must be in [1, 64], got 0"), std::string::npos)
      << st.message();
}

} // namespace
