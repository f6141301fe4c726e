//===- BatchEngineTest.cpp - batched decode steps over the paged cache ----===//
//
// Continuous batching's engine (Engine::prefillSlot, decodeSlots) on the
// committed tiny models on the test device: every row of a batched step
// against the same sequence decoded alone by the single-sequence steps,
// rows bit for bit the same whichever slots run beside them, prompts
// reusing a prefix the staging rows or the published pages hold, the
// pages' accounting, and the refusals.
//
//===----------------------------------------------------------------------===//

#include "Qwen3TestUtils.h"
#include "qwen3/Engine.h"
#include "qwen3/KernelTable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace qwen3;

namespace {

EngineOptions batchOptions(int64_t maxBatch) {
  EngineOptions opts;
  opts.device = test::testDevice();
  opts.kernelsDir = test::kernelsDir();
  opts.maxSeqLen = 96;
  opts.maxBatch = maxBatch;
  return opts;
}

std::unique_ptr<Engine> openEngine(const std::string &name, int64_t maxBatch,
                                   int64_t attentionSplits = 0, int64_t projectionSplits = 0) {
  EngineOptions opts = batchOptions(maxBatch);
  opts.batchAttentionSplits = attentionSplits;
  opts.projectionSplits = projectionSplits;
  std::unique_ptr<Engine> engine;
  Status st = Engine::create(test::fixturesDir() + "/" + name, opts, engine);
  EXPECT_TRUE(st.isOk()) << st.message();
  return engine;
}

// Four prompts of different lengths (so the rows sit at different
// positions), none a prefix of another.
const std::vector<std::vector<int32_t>> kPrompts = {
    {17, 900, 4, 2000, 55, 1234, 7, 300},
    {5, 6},
    {801, 802, 803, 804, 805, 806, 807, 808, 809, 810, 811, 812, 813, 814, 815, 816, 817, 818,
     819, 820, 821, 822, 823, 824, 825, 826, 827, 828, 829, 830, 831, 832, 833, 834, 835, 836},
    {42, 43, 44, 45, 46}};
constexpr int kSteps = 12;

struct Decoded {
  std::vector<int32_t> picks;
  std::vector<std::vector<float>> logits;
};

} // namespace

class Qwen3BatchEngine : public ::testing::TestWithParam<std::string> {};

// Each row of a batched step against its sequence decoded alone by the
// single-sequence path (GEMVs there, GEMMs here: within rounding), greedy,
// teacher-forced on the single path's picks.
TEST_P(Qwen3BatchEngine, RowsAgreeWithTheSequenceDecodedAlone) {
  std::unique_ptr<Engine> batched = openEngine(GetParam(), 4);
  ASSERT_TRUE(batched);
  std::vector<Decoded> alone(kPrompts.size());
  for (size_t i = 0; i < kPrompts.size(); ++i) {
    std::unique_ptr<Engine> single = openEngine(GetParam(), 1);
    ASSERT_TRUE(single);
    int32_t next = 0;
    ASSERT_TRUE(single->prefill(kPrompts[i], next).isOk());
    for (int s = 0; s < kSteps; ++s) {
      alone[i].picks.push_back(next);
      ASSERT_TRUE(single->decode(next, next).isOk());
      alone[i].logits.emplace_back();
      ASSERT_TRUE(single->lastLogits(alone[i].logits.back()).isOk());
    }
  }
  for (size_t i = 0; i < kPrompts.size(); ++i) {
    int32_t next = 0;
    int64_t reused = -1;
    Status st = batched->prefillSlot(static_cast<int64_t>(i), kPrompts[i], Sampling(), next, reused);
    ASSERT_TRUE(st.isOk()) << st.message();
    EXPECT_EQ(reused, 0);
    EXPECT_EQ(next, alone[i].picks[0]) << "prompt " << i;
  }
  int ties = 0;
  for (int s = 0; s < kSteps; ++s) {
    std::vector<Engine::SlotStep> steps;
    for (size_t i = 0; i < kPrompts.size(); ++i)
      steps.push_back({static_cast<int64_t>(i), alone[i].picks[s], Sampling()});
    std::vector<int32_t> next;
    Status st = batched->decodeSlots(steps, next);
    ASSERT_TRUE(st.isOk()) << st.message();
    for (size_t i = 0; i < kPrompts.size(); ++i) {
      std::vector<float> got;
      ASSERT_TRUE(batched->slotLogits(static_cast<int64_t>(i), got).isOk());
      const std::vector<float> &want = alone[i].logits[s];
      ASSERT_EQ(got.size(), want.size());
      test::LogitsAgreement agree = test::agreement(want.data(), got.data(), want.size());
      EXPECT_GE(agree.cosine, 0.999) << "prompt " << i << " step " << s;
      EXPECT_LE(agree.relError, 0.03) << "prompt " << i << " step " << s;
      // The pick is the argmax of its own logits; it may differ from the
      // single path's only where that one's logits of the two picks are
      // within rounding: two units in the last place of the model dtype
      // (bf16: 8 bits of mantissa) at the largest logit.
      const int32_t best = static_cast<int32_t>(
          std::max_element(got.begin(), got.end()) - got.begin());
      EXPECT_EQ(next[i], best);
      if (s + 1 < kSteps && next[i] != alone[i].picks[s + 1]) {
        ++ties;
        float top = 0;
        for (float v : want)
          top = std::max(top, std::fabs(v));
        EXPECT_LE(want[alone[i].picks[s + 1]] - want[next[i]], top * std::ldexp(1.0f, -6))
            << "prompt " << i << " step " << s;
      }
    }
    EXPECT_EQ(batched->slotLength(0), static_cast<int64_t>(kPrompts[0].size()) + s + 1);
  }
  EXPECT_LE(ties, kSteps * static_cast<int>(kPrompts.size()) / 4);
}

// A row's logits are bit for bit the same alone (a step of one row) as
// beside three others: the GEMMs' products of a row do not depend on the
// rows beside it, nor its attention on the other slots.
TEST_P(Qwen3BatchEngine, ARowIsTheSameAloneAndInABatch) {
  std::unique_ptr<Engine> a = openEngine(GetParam(), 4), b = openEngine(GetParam(), 4);
  ASSERT_TRUE(a && b);
  int32_t na = 0, nb = 0;
  int64_t reused = 0;
  ASSERT_TRUE(a->prefillSlot(0, kPrompts[0], Sampling(), na, reused).isOk());
  std::vector<int32_t> rows(kPrompts.size());
  for (size_t i = 0; i < kPrompts.size(); ++i)
    ASSERT_TRUE(b->prefillSlot(static_cast<int64_t>(i), kPrompts[i], Sampling(), rows[i], reused)
                    .isOk());
  nb = rows[0];
  ASSERT_EQ(na, nb);
  for (int s = 0; s < kSteps; ++s) {
    std::vector<int32_t> next;
    ASSERT_TRUE(a->decodeSlots({{0, na, Sampling()}}, next).isOk());
    na = next[0];
    std::vector<Engine::SlotStep> steps;
    for (size_t i = 0; i < kPrompts.size(); ++i)
      steps.push_back({static_cast<int64_t>(i), rows[i], Sampling()});
    ASSERT_TRUE(b->decodeSlots(steps, rows).isOk());
    std::vector<float> la, lb;
    ASSERT_TRUE(a->slotLogits(0, la).isOk());
    ASSERT_TRUE(b->slotLogits(0, lb).isOk());
    EXPECT_EQ(la, lb) << "step " << s;
    EXPECT_EQ(na, rows[0]) << "step " << s;
  }
}

// The attention's share counts (2, 4, 8: each S a kernel instance) split
// each row's context (up to 3 blocks of 32 keys) differently and merge the
// shares: the rows' logits agree within the merge's rounding.
TEST_P(Qwen3BatchEngine, EveryAttentionSplitCountAgrees) {
  std::vector<std::vector<int32_t>> prompts;
  for (int n : {90, 70, 40, 10}) {
    prompts.emplace_back();
    for (int i = 0; i < n; ++i)
      prompts.back().push_back((37 * i + 11 * n) % 1900 + 5);
  }
  std::vector<std::vector<std::vector<float>>> logits; // [S][row]
  for (int64_t splits : {2, 4, 8}) {
    std::unique_ptr<Engine> e = openEngine(GetParam(), 4, splits);
    ASSERT_TRUE(e);
    std::vector<Engine::SlotStep> steps;
    for (size_t i = 0; i < prompts.size(); ++i) {
      int32_t next = 0;
      int64_t reused = 0;
      ASSERT_TRUE(e->prefillSlot(static_cast<int64_t>(i), prompts[i], Sampling(), next, reused)
                      .isOk());
      steps.push_back({static_cast<int64_t>(i), next, Sampling()});
    }
    std::vector<int32_t> next;
    ASSERT_TRUE(e->decodeSlots(steps, next).isOk());
    logits.emplace_back(prompts.size());
    for (size_t i = 0; i < prompts.size(); ++i)
      ASSERT_TRUE(e->slotLogits(static_cast<int64_t>(i), logits.back()[i]).isOk());
  }
  for (size_t s = 1; s < logits.size(); ++s)
    for (size_t i = 0; i < prompts.size(); ++i) {
      test::LogitsAgreement agree =
          test::agreement(logits[0][i].data(), logits[s][i].data(), logits[0][i].size());
      EXPECT_GE(agree.cosine, 0.9999) << "S index " << s << " row " << i;
      EXPECT_LE(agree.relError, 0.02) << "S index " << s << " row " << i;
    }
}

// The o and down projections split over K (gemm_few_split, the partial
// sums added up by add_rmsnorm_partials) against unsplit (gemm_few): the
// same rows' logits within the sums' f32 rounding, over steps fed the
// unsplit engine's picks; the split kernels ran (the profile names them).
TEST_P(Qwen3BatchEngine, EveryProjectionSplitCountAgrees) {
  std::vector<std::vector<std::vector<std::vector<float>>>> logits; // [pin][step][row]
  std::vector<std::vector<int32_t>> fed(kSteps);
  for (int64_t pin : {1, 2, 4, 8}) {
    std::unique_ptr<Engine> e = openEngine(GetParam(), 4, 0, pin);
    ASSERT_TRUE(e);
    std::vector<int32_t> rows(kPrompts.size());
    for (size_t i = 0; i < kPrompts.size(); ++i) {
      int64_t reused = 0;
      ASSERT_TRUE(e->prefillSlot(static_cast<int64_t>(i), kPrompts[i], Sampling(), rows[i], reused)
                      .isOk());
    }
    logits.emplace_back();
    for (int s = 0; s < kSteps; ++s) {
      if (pin == 1)
        fed[s] = rows;
      std::vector<Engine::SlotStep> steps;
      for (size_t i = 0; i < kPrompts.size(); ++i)
        steps.push_back({static_cast<int64_t>(i), fed[s][i], Sampling()});
      std::vector<KernelTime> times;
      Status st = s == 0 ? e->profileSlots(steps, rows, times) : e->decodeSlots(steps, rows);
      ASSERT_TRUE(st.isOk()) << st.message();
      if (s == 0) {
        const bool split = std::any_of(times.begin(), times.end(), [](const KernelTime &t) {
          return t.name.rfind("gemm_few_split", 0) == 0;
        });
        EXPECT_EQ(split, pin > 1) << "pin " << pin;
        // The attention's bytes: every row's keys and values up to the
        // position of the token it is fed, in every layer.
        const ModelConfig &c = e->config();
        double kv = 0;
        for (const std::vector<int32_t> &prompt : kPrompts)
          kv += (prompt.size() + 1.0) * 2 * c.kvHeads * c.headDim * 2 * c.layers;
        auto attention = std::find_if(times.begin(), times.end(), [](const KernelTime &t) {
          return t.name.rfind("batch_decode_attention", 0) == 0;
        });
        ASSERT_NE(attention, times.end());
        EXPECT_EQ(attention->launches, c.layers);
        EXPECT_DOUBLE_EQ(attention->bytes, kv);
      }
      logits.back().emplace_back(kPrompts.size());
      for (size_t i = 0; i < kPrompts.size(); ++i)
        ASSERT_TRUE(e->slotLogits(static_cast<int64_t>(i), logits.back()[s][i]).isOk());
    }
  }
  for (size_t p = 1; p < logits.size(); ++p)
    for (int s = 0; s < kSteps; ++s)
      for (size_t i = 0; i < kPrompts.size(); ++i) {
        const std::vector<float> &want = logits[0][s][i], &got = logits[p][s][i];
        test::LogitsAgreement agree = test::agreement(want.data(), got.data(), want.size());
        EXPECT_GE(agree.cosine, 0.9999) << "pin index " << p << " step " << s << " row " << i;
        EXPECT_LE(agree.relError, 0.02) << "pin index " << p << " step " << s << " row " << i;
      }
}

INSTANTIATE_TEST_SUITE_P(Tiny, Qwen3BatchEngine,
                         ::testing::Values("tiny-bf16", "tiny-g3-bf16", "tiny-g5-f16"),
                         [](const auto &info) {
                           std::string n = info.param.substr(5);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// A prompt that extends what another slot holds copies that slot's rows
// and computes the rest: the logits and the steps after are a whole
// prefill's (the copied rows were prefilled).
TEST(Qwen3BatchEngine, APromptReusesThePrefixAnotherSlotHolds) {
  std::unique_ptr<Engine> engine = openEngine("tiny-bf16", 3), fresh = openEngine("tiny-bf16", 1);
  ASSERT_TRUE(engine && fresh);
  const std::vector<int32_t> &system = kPrompts[2];
  std::vector<int32_t> ask = system;
  ask.insert(ask.end(), {60, 61, 62});
  int32_t next = 0, want = 0;
  int64_t reused = -1;
  ASSERT_TRUE(engine->prefillSlot(1, system, Sampling(), next, reused).isOk());
  EXPECT_EQ(reused, 0);
  ASSERT_TRUE(engine->prefillSlot(2, ask, Sampling(), next, reused).isOk());
  EXPECT_EQ(reused, static_cast<int64_t>(system.size()));
  ASSERT_TRUE(fresh->prefill(ask, want).isOk());
  std::vector<float> got, ref;
  ASSERT_TRUE(engine->slotLogits(2, got).isOk());
  ASSERT_TRUE(fresh->lastLogits(ref).isOk());
  EXPECT_EQ(got, ref);
  EXPECT_EQ(next, want);
  // Slot 1's own sequence is untouched: stepping both goes on as each alone.
  std::vector<int32_t> picks;
  ASSERT_TRUE(engine->decodeSlots({{2, next, Sampling()}}, picks).isOk());
  ASSERT_TRUE(fresh->decode(want, want).isOk());
  ASSERT_TRUE(engine->slotLogits(2, got).isOk());
  ASSERT_TRUE(fresh->lastLogits(ref).isOk());
  EXPECT_GE(test::agreement(ref.data(), got.data(), ref.size()).cosine, 0.999);
  EXPECT_EQ(engine->slotLength(1), static_cast<int64_t>(system.size()));
  EXPECT_EQ(engine->slotLength(2), static_cast<int64_t>(ask.size()) + 1);
  // The prompt logits of slot 1 were replaced by slot 2's prompt.
  EXPECT_FALSE(engine->slotLogits(1, got).isOk());
}

// Sampled rows draw with their own settings beside greedy ones; a seed
// reproduces its draws.
TEST(Qwen3BatchEngine, SampledRowsAreReproducibleBesideGreedyOnes) {
  std::vector<std::vector<int32_t>> runs;
  for (int run = 0; run < 2; ++run) {
    std::unique_ptr<Engine> engine = openEngine("tiny-bf16", 2);
    ASSERT_TRUE(engine);
    Sampling hot;
    hot.enabled = true;
    hot.temperature = 1.5;
    hot.topK = 50;
    hot.seed = 1234;
    int32_t g = 0, h = 0;
    int64_t reused = 0;
    ASSERT_TRUE(engine->prefillSlot(0, kPrompts[0], Sampling(), g, reused).isOk());
    ASSERT_TRUE(engine->prefillSlot(1, kPrompts[1], hot, h, reused).isOk());
    std::vector<int32_t> drawn;
    for (int s = 0; s < kSteps; ++s) {
      std::vector<int32_t> next;
      Status st = engine->decodeSlots({{0, g, Sampling()}, {1, h, hot}}, next);
      ASSERT_TRUE(st.isOk()) << st.message();
      g = next[0];
      h = next[1];
      ASSERT_GE(h, 0);
      ASSERT_LT(h, engine->config().vocabSize);
      drawn.push_back(h);
    }
    runs.push_back(drawn);
  }
  EXPECT_EQ(runs[0], runs[1]);
}

// A sequence moved into slot 0 goes on with the single-sequence steps
// exactly as one that ran in slot 0 all along (the server moves a request
// left alone there).
TEST(Qwen3BatchEngine, AMovedSequenceGoesOnInSlotZero) {
  std::unique_ptr<Engine> a = openEngine("tiny-bf16", 3), b = openEngine("tiny-bf16", 3);
  ASSERT_TRUE(a && b);
  int32_t ta = 0, tb = 0;
  int64_t reused = 0;
  ASSERT_TRUE(a->prefillSlot(2, kPrompts[0], Sampling(), ta, reused).isOk());
  ASSERT_TRUE(b->prefillSlot(0, kPrompts[0], Sampling(), tb, reused).isOk());
  ASSERT_EQ(ta, tb);
  for (int s = 0; s < 2; ++s) {
    std::vector<int32_t> na, nb;
    ASSERT_TRUE(a->decodeSlots({{2, ta, Sampling()}}, na).isOk());
    ASSERT_TRUE(b->decodeSlots({{0, tb, Sampling()}}, nb).isOk());
    ta = na[0], tb = nb[0];
    ASSERT_EQ(ta, tb);
  }
  ASSERT_TRUE(a->moveSlot(2, 0).isOk());
  EXPECT_EQ(a->slotLength(0), b->slotLength(0));
  EXPECT_EQ(a->slotLength(2), 0); // its pages went with it
  for (int s = 0; s < 3; ++s) {
    ASSERT_TRUE(a->decode(ta, ta).isOk());
    ASSERT_TRUE(b->decode(tb, tb).isOk());
    std::vector<float> la, lb;
    ASSERT_TRUE(a->lastLogits(la).isOk());
    ASSERT_TRUE(b->lastLogits(lb).isOk());
    EXPECT_EQ(la, lb) << "step " << s;
    EXPECT_EQ(ta, tb) << "step " << s;
  }
  Status st = a->moveSlot(1, 0);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("slot 1 holds no sequence"), std::string::npos) << st.message();
}

// --kv-cache-memory: the context is the longest whose rows fit it in the
// staging rows and in a slot's share of the paged cache each (whole
// 64-position blocks); a --max-seq-len past it, or a budget below one
// block, is refused before any weight loads. The tiny model's rows: 2
// layers x K and V x 1 KV head x 64 x 2 bytes = 512 bytes a position.
TEST(Qwen3BatchEngine, KvCacheMemorySizesTheContext) {
  auto create = [](int64_t bytes, int64_t maxSeq, std::unique_ptr<Engine> &engine) {
    EngineOptions opts = batchOptions(2);
    opts.maxSeqLen = maxSeq;
    opts.kvCacheBytes = bytes;
    return Engine::create(test::fixturesDir() + "/tiny-bf16", opts, engine);
  };
  std::unique_ptr<Engine> engine;
  Status st = create(200000, 0, engine);
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_EQ(engine->maxSeqLen(), 128);
  EXPECT_EQ(engine->pageCounts().pages, 4); // 2 slots x 128 positions
  st = create(200000, 256, engine);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("--kv-cache-memory 200000 bytes hold 384 positions; --max-seq-len "
                              "256 with --max-batch 2 needs 512 (the staging rows, then pages for "
                              "one context and a page per sequence): 262144 bytes"),
            std::string::npos)
      << st.message();
  // With --max-seq-len the pages are what the memory leaves: 384 - 128.
  st = create(200000, 100, engine);
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_EQ(engine->pageCounts().pages, 4);
  st = create(1000, 0, engine);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("(at least 64 needed: 98304 bytes)"), std::string::npos)
      << st.message();
}

// A released sequence's whole pages stay published: a later prompt that
// starts with the same tokens takes them (gathered, not computed) and its
// logits are a whole prefill's; sequences stepping across page boundaries
// agree with the single-sequence steps; every page comes back.
TEST(Qwen3BatchEngine, PublishedPagesServeALaterPrompt) {
  EngineOptions opts = batchOptions(3);
  opts.maxSeqLen = 256;
  std::unique_ptr<Engine> engine, fresh;
  ASSERT_TRUE(Engine::create(test::fixturesDir() + "/tiny-bf16", opts, engine).isOk());
  opts.maxBatch = 1;
  ASSERT_TRUE(Engine::create(test::fixturesDir() + "/tiny-bf16", opts, fresh).isOk());
  const int64_t page = engine->pageCounts().pageSize;
  ASSERT_EQ(page, 64);
  std::vector<int32_t> first, second;
  for (int32_t i = 0; i < 150; ++i)
    first.push_back(100 + (i * 37) % 1900);
  second.assign(first.begin(), first.begin() + 140);
  second.insert(second.end(), {7, 8, 9, 10, 11});
  int32_t a = 0, b = 0, want = 0;
  int64_t reused = -1;
  ASSERT_TRUE(engine->prefillSlot(0, first, Sampling(), a, reused).isOk());
  EXPECT_EQ(reused, 0);
  // A batched step writes the rows into pages: 3 pages, 2 of them whole.
  std::vector<int32_t> picks;
  ASSERT_TRUE(engine->decodeSlots({{0, a, Sampling()}}, picks).isOk());
  EXPECT_EQ(engine->pageCounts().inUse, 3);
  ASSERT_TRUE(engine->releaseSlot(0).isOk());
  EXPECT_EQ(engine->pageCounts().inUse, 0);
  EXPECT_EQ(engine->pageCounts().cached, 2);
  // The staging rows still hold the released sequence: all 140 shared
  // tokens. Once another prompt took them, the published pages: 128.
  EXPECT_EQ(engine->reusablePrefix(second), 140);
  int32_t c = 0;
  ASSERT_TRUE(engine->prefillSlot(2, kPrompts[2], Sampling(), c, reused).isOk());
  EXPECT_EQ(engine->reusablePrefix(second), 2 * page);
  ASSERT_TRUE(engine->prefillSlot(1, second, Sampling(), b, reused).isOk());
  EXPECT_EQ(reused, 2 * page);
  EXPECT_EQ(engine->pageCounts().inUse, 2 + 1); // and slot 2's rows, scattered
  ASSERT_TRUE(fresh->prefill(second, want).isOk());
  std::vector<float> got, ref;
  ASSERT_TRUE(engine->slotLogits(1, got).isOk());
  ASSERT_TRUE(fresh->lastLogits(ref).isOk());
  EXPECT_EQ(got, ref);
  EXPECT_EQ(b, want);
  // Slot 2 beside it, both stepping past a page boundary (145 + 50 > 192).
  for (int s = 0; s < 50; ++s) {
    ASSERT_TRUE(engine->decodeSlots({{1, want, Sampling()}, {2, c, Sampling()}}, picks).isOk());
    c = picks[1];
    ASSERT_TRUE(engine->slotLogits(1, got).isOk());
    ASSERT_TRUE(fresh->decode(want, want).isOk());
    ASSERT_TRUE(fresh->lastLogits(ref).isOk());
    ASSERT_GE(test::agreement(ref.data(), got.data(), ref.size()).cosine, 0.999) << "step " << s;
  }
  EXPECT_EQ(engine->slotLength(1), static_cast<int64_t>(second.size()) + 50);
  EXPECT_EQ(engine->pageCounts().inUse, 4 + 2); // 195 and 86 positions
  ASSERT_TRUE(engine->releaseSlot(1).isOk());
  ASSERT_TRUE(engine->releaseSlot(2).isOk());
  EXPECT_EQ(engine->pageCounts().inUse, 0);
  // With --max-batch 1 there is no paged cache, and no batched step.
  EXPECT_EQ(fresh->pageCounts().pages, 0);
  EXPECT_NE(fresh->decodeSlots({{0, want, Sampling()}}, picks).message().find("--max-batch"),
            std::string::npos);
}

// --kv-cache-memory with --max-seq-len: fewer pages than every sequence's
// whole context. A step that needs a page when all are held is refused,
// naming the pages, and leaves the sequences as they were; a released
// sequence's pages serve the others.
TEST(Qwen3BatchEngine, SequencesShareFewerPagesThanTheirContexts) {
  EngineOptions opts = batchOptions(4);
  opts.maxSeqLen = 128;
  opts.kvCacheBytes = 512 * (128 + 4 * 64); // the staging rows and 4 pages
  std::unique_ptr<Engine> engine;
  ASSERT_TRUE(Engine::create(test::fixturesDir() + "/tiny-bf16", opts, engine).isOk());
  ASSERT_EQ(engine->pageCounts().pages, 4);
  std::vector<int32_t> fed(4);
  int64_t reused = 0;
  for (int64_t s = 0; s < 4; ++s) {
    std::vector<int32_t> prompt = kPrompts[s];
    prompt.push_back(1000 + static_cast<int32_t>(s)); // none a prefix of another
    ASSERT_TRUE(engine->prefillSlot(s, prompt, Sampling(), fed[s], reused).isOk());
  }
  std::vector<int32_t> picks;
  std::vector<Engine::SlotStep> all;
  for (int64_t s = 0; s < 4; ++s)
    all.push_back({s, fed[s], Sampling()});
  ASSERT_TRUE(engine->decodeSlots(all, picks).isOk());
  EXPECT_EQ(engine->pageCounts().inUse, 4);
  // Slot 2 holds 38 tokens (its 37-token prompt and a step): its position
  // 64 needs a second page, 26 steps on.
  for (int step = 0; step < 26; ++step) {
    for (int64_t s = 0; s < 4; ++s)
      all[s].token = picks[s];
    ASSERT_TRUE(engine->decodeSlots(all, picks).isOk()) << "step " << step;
  }
  const int64_t before = engine->slotLength(2);
  for (int64_t s = 0; s < 4; ++s)
    all[s].token = picks[s];
  Status st = engine->decodeSlots(all, picks);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("the KV cache's 4 pages are all in use"), std::string::npos)
      << st.message();
  EXPECT_EQ(engine->slotLength(2), before);
  ASSERT_TRUE(engine->releaseSlot(0).isOk());
  all.erase(all.begin());
  ASSERT_TRUE(engine->decodeSlots(all, picks).isOk());
  EXPECT_EQ(engine->slotLength(2), before + 1);
  EXPECT_EQ(engine->pageCounts().inUse, 4);
}

TEST(Qwen3BatchEngine, RefusesBadSlotsAndSteps) {
  {
    EngineOptions opts = batchOptions(2);
    opts.batchAttentionSplits = 3;
    std::unique_ptr<Engine> engine;
    Status st = Engine::create(test::fixturesDir() + "/tiny-bf16", opts, engine);
    EXPECT_FALSE(st.isOk());
    EXPECT_NE(st.message().find("must be 0, 2, 4 or 8, got 3"), std::string::npos) << st.message();
  }
  for (int64_t pin : {int64_t{-1}, kernels::kMaxProjectionSplits + 1}) {
    EngineOptions opts = batchOptions(2);
    opts.projectionSplits = pin;
    std::unique_ptr<Engine> engine;
    EXPECT_EQ(Engine::create(test::fixturesDir() + "/tiny-bf16", opts, engine).message(),
              "--projection-splits must be in [0, 8], got " + std::to_string(pin));
  }
  std::unique_ptr<Engine> engine = openEngine("tiny-bf16", 2);
  ASSERT_TRUE(engine);
  int32_t next = 0;
  int64_t reused = 0;
  std::vector<int32_t> picks;
  EXPECT_EQ(engine->prefillSlot(2, kPrompts[0], Sampling(), next, reused).message(),
            "slot 2 is not in [0, 2)");
  EXPECT_EQ(engine->decodeSlots({{1, 5, Sampling()}}, picks).message(),
            "slot 1 holds no sequence (prefill it first)");
  ASSERT_TRUE(engine->prefillSlot(1, kPrompts[1], Sampling(), next, reused).isOk());
  EXPECT_EQ(engine->decodeSlots({{1, 5, Sampling()}, {1, 6, Sampling()}}, picks).message(),
            "slot 1 is stepped twice in one batch");
  Sampling bad;
  bad.enabled = true;
  bad.temperature = 0;
  EXPECT_FALSE(engine->decodeSlots({{1, 5, bad}}, picks).isOk());
  EXPECT_EQ(engine->slotLength(1), static_cast<int64_t>(kPrompts[1].size()))
      << "a refused step leaves the slot as it was";
  std::unique_ptr<Engine> none;
  EngineOptions opts;
  opts.device = test::testDevice();
  opts.kernelsDir = test::kernelsDir();
  opts.maxBatch = 0;
  EXPECT_EQ(Engine::create(test::fixturesDir() + "/tiny-bf16", opts, none).message(),
            "--max-batch must be in [1, 1024], got 0");
}
