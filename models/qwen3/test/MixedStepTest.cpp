//===- MixedStepTest.cpp - prompt chunks inside batched decode steps ------===//
//
// Engine::decodeSlots with a PromptChunk on the committed tiny models: a
// prompt run in chunks beside decode rows against the same prompt
// prefilled whole (its pick and logits), the decode rows against the same
// steps without the chunk (bit for bit: a row's products do not depend on
// the rows beside it), a chunked prompt going on after another prompt took
// the staging rows, reusing published pages, and the refusals.
//
//===----------------------------------------------------------------------===//

#include "Qwen3TestUtils.h"
#include "qwen3/Engine.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace qwen3;

namespace {

std::unique_ptr<Engine> openEngine(const std::string &name, int64_t maxBatch,
                                   int64_t stepPromptTokens, int64_t maxSeqLen = 128,
                                   int64_t projectionSplits = 0) {
  EngineOptions opts;
  opts.projectionSplits = projectionSplits;
  opts.device = test::testDevice();
  opts.kernelsDir = test::kernelsDir();
  opts.maxSeqLen = maxSeqLen;
  opts.maxBatch = maxBatch;
  opts.stepPromptTokens = stepPromptTokens;
  std::unique_ptr<Engine> engine;
  Status st = Engine::create(test::fixturesDir() + "/" + name, opts, engine);
  EXPECT_TRUE(st.isOk()) << st.message();
  return engine;
}

const std::vector<int32_t> kFirst = {17, 900, 4, 2000, 55, 1234, 7, 300};
const std::vector<int32_t> kSecond = {5, 6, 7};
std::vector<int32_t> longPrompt(int32_t base, size_t n) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < n; ++i)
    ids.push_back(base + static_cast<int32_t>((i * 37) % 1500));
  return ids;
}

std::vector<float> logitsOf(Engine &e, int64_t slot) {
  std::vector<float> logits;
  Status st = e.slotLogits(slot, logits);
  EXPECT_TRUE(st.isOk()) << st.message();
  return logits;
}

Engine::PromptChunk chunkOf(int64_t slot, const std::vector<int32_t> &prompt,
                            int64_t stepTokens) {
  Engine::PromptChunk chunk;
  chunk.slot = slot;
  chunk.prompt = &prompt;
  chunk.stepTokens = stepTokens;
  return chunk;
}

/// The chunked prompt's pick and its slot's logits against a whole prefill
/// of the prompt on `fresh`.
void expectWholePrefill(Engine &fresh, const std::vector<int32_t> &prompt, int32_t pick,
                        Engine &mixed, int64_t slot) {
  int32_t want = 0;
  std::vector<float> ref;
  ASSERT_TRUE(fresh.prefill(prompt, want).isOk());
  ASSERT_TRUE(fresh.lastLogits(ref).isOk());
  EXPECT_EQ(pick, want);
  EXPECT_GE(test::agreement(ref.data(), logitsOf(mixed, slot).data(), ref.size()).cosine,
            0.99999);
}

} // namespace

class Qwen3MixedStep : public ::testing::TestWithParam<std::string> {};

// Slots 0 and 1 decode while slot 2's 36-token prompt runs in chunks of 5
// inside the same steps; the reference engine prefills it whole and steps
// 0 and 1 without it. Then all three decode together in both.
TEST_P(Qwen3MixedStep, ChunksBesideDecodeRowsMatchAWholePrefill) {
  std::unique_ptr<Engine> ref = openEngine(GetParam(), 4, 0);
  std::unique_ptr<Engine> mixed = openEngine(GetParam(), 4, 5);
  ASSERT_TRUE(ref && mixed);
  const std::vector<int32_t> prompt = longPrompt(801, 36);
  int32_t t0 = 0, t1 = 0, r0 = 0, r1 = 0, want = 0;
  int64_t reused = 0;
  ASSERT_TRUE(ref->prefillSlot(0, kFirst, Sampling(), r0, reused).isOk());
  ASSERT_TRUE(ref->prefillSlot(1, kSecond, Sampling(), r1, reused).isOk());
  ASSERT_TRUE(mixed->prefillSlot(0, kFirst, Sampling(), t0, reused).isOk());
  ASSERT_TRUE(mixed->prefillSlot(1, kSecond, Sampling(), t1, reused).isOk());
  ASSERT_EQ(t0, r0);
  ASSERT_EQ(t1, r1);
  ASSERT_TRUE(ref->prefillSlot(2, prompt, Sampling(), want, reused).isOk());
  const std::vector<float> wantLogits = logitsOf(*ref, 2);

  // 7 rows for the chunk beside 2 decode rows: stepPromptTokens (5) caps it.
  Engine::PromptChunk chunk = chunkOf(2, prompt, 9);
  int64_t steps = 0, end = 0;
  while (end < static_cast<int64_t>(prompt.size())) {
    std::vector<int32_t> got, refNext;
    Status st = mixed->decodeSlots({{0, t0, Sampling()}, {1, t1, Sampling()}}, got, &chunk);
    ASSERT_TRUE(st.isOk()) << st.message();
    ASSERT_TRUE(ref->decodeSlots({{0, r0, Sampling()}, {1, r1, Sampling()}}, refNext).isOk());
    EXPECT_EQ(chunk.end, std::min<int64_t>(end + 5, prompt.size()));
    EXPECT_EQ(chunk.reused, 0);
    EXPECT_EQ(mixed->slotLength(2), chunk.end);
    end = chunk.end;
    ASSERT_EQ(got, refNext) << "step " << steps;
    for (int64_t s : {0, 1})
      EXPECT_EQ(logitsOf(*mixed, s), logitsOf(*ref, s)) << "slot " << s << " step " << steps;
    t0 = r0 = got[0];
    t1 = r1 = got[1];
    ++steps;
  }
  EXPECT_EQ(steps, 8);
  EXPECT_EQ(chunk.next, want);
  test::LogitsAgreement agree =
      test::agreement(wantLogits.data(), logitsOf(*mixed, 2).data(), wantLogits.size());
  EXPECT_GE(agree.cosine, 0.99999);
  EXPECT_LE(agree.relError, 0.01);

  int32_t t2 = chunk.next, r2 = want;
  for (int s = 0; s < 4; ++s) {
    std::vector<int32_t> got, refNext;
    ASSERT_TRUE(mixed->decodeSlots({{0, t0, Sampling()}, {1, t1, Sampling()}, {2, t2, Sampling()}},
                                   got)
                    .isOk());
    ASSERT_TRUE(
        ref->decodeSlots({{0, r0, Sampling()}, {1, r1, Sampling()}, {2, r2, Sampling()}}, refNext)
            .isOk());
    for (int64_t slot : {0, 1, 2}) {
      const std::vector<float> a = logitsOf(*ref, slot), b = logitsOf(*mixed, slot);
      EXPECT_GE(test::agreement(a.data(), b.data(), a.size()).cosine, 0.99999)
          << "slot " << slot << " step " << s;
    }
    // Teacher-forced on the reference's picks.
    t0 = r0 = refNext[0];
    t1 = r1 = refNext[1];
    t2 = r2 = refNext[2];
  }
  for (int64_t slot : {0, 1, 2})
    ASSERT_TRUE(mixed->releaseSlot(slot).isOk());
  EXPECT_EQ(mixed->pageCounts().inUse, 0);
}

INSTANTIATE_TEST_SUITE_P(Tiny, Qwen3MixedStep,
                         ::testing::Values("tiny-bf16", "tiny-g3-bf16", "tiny-g5-f16"),
                         [](const auto &info) {
                           std::string n = info.param.substr(5);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// A chunked prompt whose staging rows another prompt took between its
// chunks goes on from its pages; a later prompt sharing its first page
// takes the page and runs only the rest, in chunks with no decode row.
TEST(Qwen3MixedStep, ChunksGoOnFromPagesAndReusePublishedOnes) {
  std::unique_ptr<Engine> mixed = openEngine("tiny-bf16", 4, 16);
  std::unique_ptr<Engine> fresh = openEngine("tiny-bf16", 1, 0);
  ASSERT_TRUE(mixed && fresh);
  const std::vector<int32_t> prompt = longPrompt(801, 70);
  int32_t t0 = 0;
  int64_t reused = 0;
  ASSERT_TRUE(mixed->prefillSlot(0, kFirst, Sampling(), t0, reused).isOk());
  Engine::PromptChunk chunk = chunkOf(1, prompt, 16);
  std::vector<int32_t> next;
  ASSERT_TRUE(mixed->decodeSlots({{0, t0, Sampling()}}, next, &chunk).isOk());
  EXPECT_EQ(chunk.end, 15); // the step's 16 rows: one decode row, 15 of the prompt
  t0 = next[0];
  // Another prompt takes the staging rows; slot 1's rows go to its pages.
  int32_t t2 = 0;
  ASSERT_TRUE(mixed->prefillSlot(2, kSecond, Sampling(), t2, reused).isOk());
  while (chunk.end < static_cast<int64_t>(prompt.size())) {
    const int64_t before = chunk.end;
    ASSERT_TRUE(
        mixed->decodeSlots({{0, t0, Sampling()}, {2, t2, Sampling()}}, next, &chunk).isOk());
    EXPECT_EQ(chunk.end, std::min<int64_t>(before + 14, prompt.size()));
    t0 = next[0];
    t2 = next[1];
  }
  expectWholePrefill(*fresh, prompt, chunk.next, *mixed, 1);

  // Released, its first page stays published: a prompt sharing it reuses
  // it, and its chunks run in steps of no decode row (the step's rows all
  // its own).
  ASSERT_TRUE(mixed->releaseSlot(1).isOk());
  std::vector<int32_t> other(prompt.begin(), prompt.begin() + 64);
  other.insert(other.end(), {3, 1, 4, 1, 5, 9, 2});
  Engine::PromptChunk second = chunkOf(3, other, 4);
  ASSERT_TRUE(mixed->decodeSlots({}, next, &second).isOk());
  EXPECT_TRUE(next.empty());
  EXPECT_EQ(second.reused, 64);
  EXPECT_EQ(second.end, 68);
  ASSERT_TRUE(mixed->decodeSlots({}, next, &second).isOk());
  EXPECT_EQ(second.reused, 0);
  EXPECT_EQ(second.end, 71);
  expectWholePrefill(*fresh, other, second.next, *mixed, 3);
}

// Steps of more than 64 rows: a prompt in one chunk beside a decode row,
// its rows in gemm_few's tiles of 128 and 256 tokens (o and down split
// over K or not) and, past them, the prompt's GEMMs.
TEST(Qwen3MixedStep, StepsOfMoreThan64RowsMatchAWholePrefill) {
  for (auto [size, splits] : {std::pair<int64_t, int64_t>{100, 1}, {100, 2}, {200, 1},
                              {200, 2}, {300, 1}}) {
    SCOPED_TRACE("a chunk of " + std::to_string(size) + " tokens, " + std::to_string(splits) +
                 " K splits");
    std::unique_ptr<Engine> mixed = openEngine("tiny-bf16", 2, size, 320, splits);
    std::unique_ptr<Engine> fresh = openEngine("tiny-bf16", 1, 0, 320);
    ASSERT_TRUE(mixed && fresh);
    const std::vector<int32_t> prompt = longPrompt(300, size);
    int32_t t0 = 0;
    int64_t reused = 0;
    ASSERT_TRUE(mixed->prefillSlot(0, kFirst, Sampling(), t0, reused).isOk());
    Engine::PromptChunk chunk = chunkOf(1, prompt, size + 1);
    std::vector<int32_t> next;
    ASSERT_TRUE(mixed->decodeSlots({{0, t0, Sampling()}}, next, &chunk).isOk());
    EXPECT_EQ(chunk.end, size);
    expectWholePrefill(*fresh, prompt, chunk.next, *mixed, 1);
  }
}

TEST(Qwen3MixedStep, RefusesChunksItCannotRun) {
  std::unique_ptr<Engine> plain = openEngine("tiny-bf16", 2, 0);
  std::unique_ptr<Engine> mixed = openEngine("tiny-bf16", 2, 4);
  ASSERT_TRUE(plain && mixed);
  int32_t t = 0;
  int64_t reused = 0;
  ASSERT_TRUE(mixed->prefillSlot(0, kFirst, Sampling(), t, reused).isOk());
  ASSERT_TRUE(plain->prefillSlot(0, kFirst, Sampling(), t, reused).isOk());
  Engine::PromptChunk chunk = chunkOf(1, kSecond, 4);
  std::vector<int32_t> next;
  Status st = plain->decodeSlots({{0, t, Sampling()}}, next, &chunk);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("stepPromptTokens"), std::string::npos) << st.message();
  chunk.slot = 0;
  st = mixed->decodeSlots({{0, t, Sampling()}}, next, &chunk);
  EXPECT_NE(st.message().find("stepped and prefilled"), std::string::npos) << st.message();
  chunk.slot = 1;
  chunk.stepTokens = 0;
  EXPECT_FALSE(mixed->decodeSlots({{0, t, Sampling()}}, next, &chunk).isOk());
  const std::vector<int32_t> empty;
  chunk.prompt = &empty;
  chunk.stepTokens = 4;
  EXPECT_FALSE(mixed->decodeSlots({{0, t, Sampling()}}, next, &chunk).isOk());
  // Slot 0 is untouched by the refusals: it steps on. A step its decode
  // rows fill still runs one prompt token.
  chunk.prompt = &kSecond;
  chunk.stepTokens = 1;
  ASSERT_TRUE(mixed->decodeSlots({{0, t, Sampling()}}, next, &chunk).isOk());
  EXPECT_EQ(chunk.end, 1);
  chunk.stepTokens = 4;
  ASSERT_TRUE(mixed->decodeSlots({{0, next[0], Sampling()}}, next, &chunk).isOk());
  EXPECT_EQ(chunk.end, 3);
  EXPECT_EQ(mixed->slotLength(0), static_cast<int64_t>(kFirst.size()) + 2);
  EXPECT_EQ(mixed->slotLength(1), static_cast<int64_t>(kSecond.size()));
}
